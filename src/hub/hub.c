/*
 * hub.c: a model from the Hugging Face Hub or its local cache, made a
 * folder kvplan loads like any other (docs/hub.md). From
 * {endpoint}/{org}/{name}/resolve/{revision}/ it reads config.json (whose
 * X-Repo-Commit names the snapshot; the other files are then asked at
 * that commit), model.safetensors.index.json and hf_quant_config.json
 * where the repo has them, and of each shard only its header: its first
 * 8 bytes (the header's length), then the header, never a weight; several
 * shards at once over one session's connections (http_curl.c). Every answer is
 * checked (answers.c) before it is kept, and kept through a stage that
 * becomes the snapshot only when every file is in (cache.c). Bounded: each
 * request by its timeout, the whole fetch by its deadline.
 */
#include "hub/hub.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_ENDPOINT "https://huggingface.co"
#define MAX_CONFIG_BYTES (4u << 20)
#define MAX_INDEX_BYTES (32u << 20)
#define MAX_QUANT_BYTES (1u << 20)
#define MAX_SHARDS 4096

void kvplan_hub_options_init(kvplan_hub_options *o)
{
    if (o == NULL)
        return;
    memset(o, 0, sizeof *o);
    o->struct_size = (uint32_t)sizeof *o;
    o->retries = 2;
}

bool kvplan_hub_repo_id(const char *name)
{
    if (name == NULL)
        return false;
    const char *slash = strchr(name, '/');
    return slash != NULL && strchr(slash + 1, '/') == NULL &&
           kvplan__hub_name(name, (size_t)(slash - name)) &&
           kvplan__hub_name(slash + 1, strlen(slash + 1));
}

bool kvplan_hub_cache_dir(const char *hf_hub_cache, const char *hf_home,
                          const char *home, char *out, size_t size)
{
    int n;
    if (out == NULL || size == 0)
        return false;
    if (hf_hub_cache != NULL && hf_hub_cache[0] != '\0')
        n = snprintf(out, size, "%s", hf_hub_cache);
    else if (hf_home != NULL && hf_home[0] != '\0')
        n = snprintf(out, size, "%s/hub", hf_home);
    else if (home != NULL && home[0] != '\0')
        n = snprintf(out, size, "%s/.cache/huggingface/hub", home);
    else
        return false;
    return n > 0 && (size_t)n < size;
}

/* ---- a fetch ------------------------------------------------------------- */

typedef struct fetch {
    const kvplan_hub_options *o;
    kvplan__hub_repo r;
    kvplan__hub_stage stage;
    kvplan__http *http;
    kvplan_hub_result *out;
    char endpoint[512];
    const char *at; /* the revision the files are asked at: the commit */
    double deadline_s;
    int retries;
    size_t done, total;
    /* the shards: their names and requests */
    const char **names;
    kvplan__http_req *reqs;
    size_t n;         /* reqs[i]: shard i's length; reqs[n + i]: its header */
    kvplan_status st; /* the first failure of a batch */
    kvplan_error *err;
} fetch;

static void url_of(const fetch *f, const char *file, kvplan__http_req *q)
{
    snprintf(q->url, sizeof q->url, "%s/%s/resolve/%s/%s", f->endpoint, f->r.id,
             f->at, file);
}

/* An answer that is not the file, as an error that says what to do. */
static kvplan_status refused(const fetch *f, const kvplan__http_req *q,
                             kvplan_error *err)
{
    if (q->st == KVPLAN_NOMEM)
        return kvplan__fail(err, KVPLAN_NOMEM, NULL, "out of memory");
    if (q->st != KVPLAN_OK && q->past_deadline)
        return kvplan__fail(err, KVPLAN_IO, "KVPLAN_HUB_DEADLINE",
                            "%s: the fetch ran past its deadline of %g s "
                            "(KVPLAN_HUB_DEADLINE) at %.300s; nothing was "
                            "kept: raise it, or set HF_HUB_OFFLINE=1 for the "
                            "cache",
                            f->r.id, f->deadline_s, q->url);
    if (q->st != KVPLAN_OK)
        return kvplan__fail(err, KVPLAN_IO, "--model-path",
                            "%s: no answer from %.300s: %s%s", f->r.id, q->url,
                            q->why,
                            q->timed_out ? " (raise KVPLAN_HUB_TIMEOUT, or set "
                                           "HF_HUB_OFFLINE=1 for the cache)"
                                         : "");
    if (q->status == 401 || q->status == 403)
        return kvplan__fail(
            err, KVPLAN_IO, "--model-path",
            "%s: the Hub answered %ld (%s) for %.300s: the repo is gated or "
            "private; set HF_TOKEN (or HF_TOKEN_PATH) to a token that may "
            "read it",
            f->r.id, q->status, q->status == 401 ? "unauthorized" : "forbidden",
            q->url);
    if (q->status == 404)
        return kvplan__fail(err, KVPLAN_IO, "--model-path",
                            "%s: the Hub has no such repo, revision or file "
                            "(404 for %.300s); check the id and --revision",
                            f->r.id, q->url);
    if (q->status >= 500)
        return kvplan__fail(err, KVPLAN_IO, "--model-path",
                            "%s: the Hub answered %ld for %.300s after %d "
                            "tries; try again later, or set HF_HUB_OFFLINE=1 "
                            "to plan from the local cache",
                            f->r.id, q->status, q->url, f->retries + 1);
    return kvplan__fail(err, KVPLAN_IO, "--model-path",
                        "%s: the Hub answered %ld for %.300s", f->r.id,
                        q->status, q->url);
}

/* A whole file's answer: 200 within its cap (or 404 where `absent_ok`). */
static kvplan_status whole(const fetch *f, const kvplan__http_req *q,
                           bool absent_ok, kvplan_error *err)
{
    if (q->st != KVPLAN_OK ||
        (q->status != 200 && !(absent_ok && q->status == 404)))
        return refused(f, q, err);
    const char *file = strrchr(q->url, '/') + 1;
    KVPLAN__FAIL_IF(q->too_large, err, KVPLAN_PARSE, "--model-path",
                    "%s: %s is over %zu MiB, far more than such a file holds: "
                    "nothing was kept",
                    f->r.id, file, q->max_bytes >> 20);
    f->out->bytes += (int64_t)q->len;
    return KVPLAN_OK;
}

static void progress(fetch *f, const char *file)
{
    f->done++;
    f->out->files++;
    if (f->o->progress != NULL)
        f->o->progress(f->o->progress_ctx, f->done, f->total, file);
}

/* Runs one request for `file`. */
static kvplan_status one(fetch *f, const char *file, size_t max,
                         kvplan__http_req *q)
{
    memset(q, 0, sizeof *q);
    url_of(f, file, q);
    q->max_bytes = max;
    return kvplan__http_run(f->http, q, 1, NULL, NULL);
}

/* ---- the shards' headers -------------------------------------------------
 */

/* A header, whole: checked and staged as SHARD.kvplan-header. */
static kvplan_status keep_header(fetch *f, const char *shard,
                                 const unsigned char *all, size_t len)
{
    char name[256];
    KVPLAN__TRY(kvplan__hub_check_header(f->r.id, shard, all, len, f->err));
    snprintf(name, sizeof name, "%s.kvplan-header", shard);
    KVPLAN__TRY(
        kvplan__hub_stage_put(&f->stage, &f->r, name, all, len, f->err));
    progress(f, shard);
    return KVPLAN_OK;
}

/* A range's answer: 206 and within the file. */
static kvplan_status ranged(fetch *f, const kvplan__http_req *q)
{
    if (q->st != KVPLAN_OK || (q->status != 206 && q->status != 200))
        return refused(f, q, f->err);
    KVPLAN__FAIL_IF(q->status != 206, f->err, KVPLAN_PARSE, "--model-path",
                    "%s: %.300s did not answer a range request (status %ld): "
                    "kvplan reads only the header of a shard, never the "
                    "weights",
                    f->r.id, q->url, q->status);
    f->out->bytes += (int64_t)q->len;
    return KVPLAN_OK;
}

/* A shard's first request ended: its 8 bytes give the header's length N,
 * and the header is asked next, as the second request reqs[n + i]. */
static bool length_done(void *ctx, size_t i)
{
    fetch *f = ctx;
    kvplan__http_req *q = &f->reqs[i], *next = &f->reqs[f->n + i];
    uint64_t n = 0;
    kvplan_status st = ranged(f, q);
    if (st == KVPLAN_OK)
        st = kvplan__hub_header_length(f->r.id, f->names[i],
                                       (const unsigned char *)q->body, q->len,
                                       &n, f->err);
    if (st == KVPLAN_OK) {
        url_of(f, f->names[i], next);
        next->first = 8;
        next->count = (int64_t)n;
        next->max_bytes = (size_t)n;
    }
    f->st = st;
    return st == KVPLAN_OK;
}

/* A shard's header came: after its 8-byte length, checked and kept. */
static bool header_done(void *ctx, size_t i)
{
    fetch *f = ctx;
    kvplan__http_req *p = &f->reqs[i], *q = &f->reqs[f->n + i];
    kvplan_status st = ranged(f, q);
    if (st == KVPLAN_OK && q->len != (size_t)q->count)
        st = kvplan__fail(f->err, KVPLAN_PARSE, "--model-path",
                          "%s: %s: the header is %lld bytes, %zu came", f->r.id,
                          f->names[i], (long long)q->count, q->len);
    unsigned char *all = st == KVPLAN_OK ? malloc(p->len + q->len) : NULL;
    if (st == KVPLAN_OK && all == NULL)
        st = kvplan__fail(f->err, KVPLAN_NOMEM, NULL, "out of memory");
    if (all != NULL) {
        memcpy(all, p->body, p->len);
        memcpy(all + p->len, q->body, q->len);
        st = keep_header(f, f->names[i], all, p->len + q->len);
        free(all);
    }
    kvplan__http_req_clear(p);
    kvplan__http_req_clear(q);
    f->st = st;
    return st == KVPLAN_OK;
}

/* Every shard's header: its length first (8 bytes), then the header, each
 * round several shards at once; no byte past a header is asked. */
static kvplan_status headers(fetch *f)
{
    size_t n = f->n;
    f->reqs = calloc(2 * n, sizeof *f->reqs);
    KVPLAN__FAIL_IF(f->reqs == NULL, f->err, KVPLAN_NOMEM, NULL,
                    "out of memory");
    for (size_t i = 0; i < n; i++) {
        url_of(f, f->names[i], &f->reqs[i]);
        f->reqs[i].count = 8;
        f->reqs[i].max_bytes = 8;
    }
    f->st = KVPLAN_OK;
    KVPLAN__TRY(kvplan__http_run(f->http, f->reqs, n, length_done, f));
    if (f->st == KVPLAN_OK)
        KVPLAN__TRY(kvplan__http_run(f->http, f->reqs + n, n, header_done, f));
    return f->st;
}

/* ---- the files ------------------------------------------------------------
 */

/* config.json: checked, staged; its X-Repo-Commit names the snapshot. */
static kvplan_status config(fetch *f, kvplan_error *err)
{
    kvplan__http_req q;
    kvplan_status st = one(f, "config.json", MAX_CONFIG_BYTES, &q);
    if (st == KVPLAN_OK)
        st = whole(f, &q, false, err);
    if (st == KVPLAN_OK && q.bad_commit)
        st = kvplan__fail(err, KVPLAN_PARSE, "--model-path",
                          "%s: the Hub's X-Repo-Commit for %.300s is not a "
                          "commit (1 to %d letters, digits, '-', '_', '.')",
                          f->r.id, q.url, KVPLAN__HUB_MAX_COMMIT);
    if (st == KVPLAN_OK)
        st = kvplan__hub_check_config(f->r.id, q.body, q.len, err);
    if (st == KVPLAN_OK) {
        /* the snapshot: the commit the Hub resolved the revision to */
        snprintf(f->out->commit, sizeof f->out->commit, "%s",
                 q.commit[0] ? q.commit : f->r.revision);
        f->at = f->out->commit;
        st = kvplan__hub_stage_open(&f->r, &f->stage, err);
    }
    if (st == KVPLAN_OK)
        st = kvplan__hub_stage_put(&f->stage, &f->r, "config.json", q.body,
                                   q.len, err);
    kvplan__http_req_clear(&q);
    KVPLAN__TRY(st);
    f->total = 2;
    progress(f, "config.json");
    return KVPLAN_OK;
}

/* The index and hf_quant_config.json (each where the repo has it), asked
 * together; the shards the index names into f->names (or the single
 * model.safetensors). */
static kvplan_status small_files(fetch *f, json_t **index, kvplan_error *err)
{
    kvplan__http_req q[2];
    memset(q, 0, sizeof q);
    url_of(f, "model.safetensors.index.json", &q[0]);
    url_of(f, "hf_quant_config.json", &q[1]);
    q[0].max_bytes = MAX_INDEX_BYTES;
    q[1].max_bytes = MAX_QUANT_BYTES;
    kvplan_status st = kvplan__http_run(f->http, q, 2, NULL, NULL);
    if (st == KVPLAN_OK)
        st = whole(f, &q[0], true, err);
    if (st == KVPLAN_OK)
        st = whole(f, &q[1], true, err);
    if (st == KVPLAN_OK && q[0].status == 200)
        st = kvplan__hub_index_shards(f->r.id, q[0].body, q[0].len, index,
                                      f->names, MAX_SHARDS, &f->n, err);
    if (st == KVPLAN_OK && q[0].status == 200)
        st = kvplan__hub_stage_put(&f->stage, &f->r,
                                   "model.safetensors.index.json", q[0].body,
                                   q[0].len, err);
    json_t *quant = NULL;
    if (st == KVPLAN_OK && q[1].status == 200 &&
        !json_is_object(quant = json_loadb(q[1].body, q[1].len, 0, NULL)))
        st = kvplan__fail(err, KVPLAN_PARSE, "--model-path",
                          "%s: hf_quant_config.json is not a JSON object; "
                          "nothing was kept",
                          f->r.id);
    json_decref(quant);
    if (st == KVPLAN_OK && q[1].status == 200)
        st = kvplan__hub_stage_put(&f->stage, &f->r, "hf_quant_config.json",
                                   q[1].body, q[1].len, err);
    bool has_index = q[0].status == 200;
    kvplan__http_req_clear(&q[0]);
    kvplan__http_req_clear(&q[1]);
    KVPLAN__TRY(st);
    if (!has_index)
        f->names[f->n++] = "model.safetensors";
    f->total = (has_index ? 2 : 1) + f->n;
    if (has_index)
        progress(f, "model.safetensors.index.json");
    return KVPLAN_OK;
}

static kvplan_status from_hub(fetch *f, kvplan_error *err)
{
    json_t *index = NULL;
    KVPLAN__TRY(config(f, err));
    f->names = malloc(MAX_SHARDS * sizeof *f->names);
    KVPLAN__FAIL_IF(f->names == NULL, err, KVPLAN_NOMEM, NULL, "out of memory");
    kvplan_status st = small_files(f, &index, err);
    if (st == KVPLAN_OK)
        st = headers(f);
    json_decref(index); /* f->names borrowed from it */
    free(f->names);
    f->names = NULL;
    KVPLAN__TRY(st);
    return kvplan__hub_stage_commit(&f->stage, &f->r, f->out, err);
}

/* ---- the options ----------------------------------------------------------
 */

/* A number of seconds within (0, max]; 0 takes `fallback`. */
static kvplan_status seconds(double v, double fallback, double max,
                             const char *field, double *out, kvplan_error *err)
{
    *out = v == 0 ? fallback : v;
    KVPLAN__FAIL_IF(!isfinite(v) || v < 0 ||
                        (v > 0 && v < KVPLAN__HUB_SECONDS_MIN) || v > max,
                    err, KVPLAN_INVALID_ARGUMENT, field,
                    "kvplan_hub_options.%s is %g: expected seconds from "
                    "%g to %g (0: %g)",
                    field, v, KVPLAN__HUB_SECONDS_MIN, max, fallback);
    return KVPLAN_OK;
}

/* The options checked; the endpoint without its trailing '/'. */
static kvplan_status check_options(const kvplan_hub_options *o, fetch *f,
                                   kvplan__http_config *c, kvplan_error *err)
{
    const char *e =
        o->endpoint && o->endpoint[0] ? o->endpoint : DEFAULT_ENDPOINT;
    size_t n = strlen(e);
    while (n > 0 && e[n - 1] == '/')
        n--;
    KVPLAN__FAIL_IF(n >= sizeof f->endpoint || (strncmp(e, "http://", 7) != 0 &&
                                                strncmp(e, "https://", 8) != 0),
                    err, KVPLAN_INVALID_ARGUMENT, "endpoint",
                    "the Hub endpoint '%.100s' must be an http:// or https:// "
                    "URL of at most %zu bytes (HF_ENDPOINT)",
                    e, sizeof f->endpoint - 1);
    snprintf(f->endpoint, sizeof f->endpoint, "%.*s", (int)n, e);
    size_t tn = o->token != NULL ? strlen(o->token) : 0;
    bool control = kvplan__hub_token_control(o->token);
    KVPLAN__FAIL_IF(control || tn > KVPLAN__HUB_MAX_TOKEN, err,
                    KVPLAN_INVALID_ARGUMENT, "token",
                    "the Hub token (HF_TOKEN) %s: a token is one line of at "
                    "most %d printable characters",
                    control ? "holds a control character (a line break?)"
                            : "is too long",
                    KVPLAN__HUB_MAX_TOKEN);
    *c = (kvplan__http_config){.endpoint = f->endpoint, .token = o->token};
    KVPLAN__TRY(seconds(o->timeout_s, KVPLAN__HUB_TIMEOUT_DEFAULT,
                        KVPLAN__HUB_TIMEOUT_MAX, "timeout_s", &c->timeout_s,
                        err));
    KVPLAN__TRY(seconds(o->deadline_s, KVPLAN__HUB_DEADLINE_DEFAULT,
                        KVPLAN__HUB_DEADLINE_MAX, "deadline_s", &f->deadline_s,
                        err));
    KVPLAN__FAIL_IF(o->parallel < 0 || o->parallel > KVPLAN__HUB_PARALLEL_MAX,
                    err, KVPLAN_INVALID_ARGUMENT, "parallel",
                    "kvplan_hub_options.parallel is %d: expected 1 to %d "
                    "requests at once (0: %d)",
                    o->parallel, KVPLAN__HUB_PARALLEL_MAX,
                    KVPLAN__HUB_PARALLEL_DEFAULT);
    c->parallel = o->parallel ? o->parallel : KVPLAN__HUB_PARALLEL_DEFAULT;
    f->retries = o->retries < 0 ? 0 : o->retries > 10 ? 10 : o->retries;
    c->retries = f->retries;
    return KVPLAN_OK;
}

kvplan_status kvplan_hub_fetch(const char *repo_id, const kvplan_hub_options *o,
                               kvplan_hub_result *out, kvplan_error *err)
{
    KVPLAN__FAIL_IF(o == NULL || out == NULL, err, KVPLAN_INVALID_ARGUMENT,
                    NULL,
                    "kvplan_hub_fetch needs options and a result to fill; "
                    "got NULL");
    KVPLAN__FAIL_IF(o->struct_size != sizeof *o, err, KVPLAN_INVALID_ARGUMENT,
                    "struct_size",
                    "kvplan_hub_options.struct_size is %u, expected %zu: "
                    "fill the options with kvplan_hub_options_init()",
                    (unsigned)o->struct_size, sizeof *o);
    KVPLAN__FAIL_IF(!kvplan_hub_repo_id(repo_id), err, KVPLAN_INVALID_ARGUMENT,
                    "--model-path",
                    "'%.100s' is not a Hub repo id (org/name: letters, "
                    "digits, '-', '_', '.')",
                    repo_id ? repo_id : "(null)");
    const char *rev = o->revision && o->revision[0] ? o->revision : "main";
    KVPLAN__FAIL_IF(!kvplan__hub_revision_ok(rev), err, KVPLAN_INVALID_ARGUMENT,
                    "--revision",
                    "--revision '%.60s': expected a branch, tag or commit of "
                    "1 to %d letters, digits, '-', '_', '.'",
                    rev, KVPLAN__HUB_MAX_COMMIT);
    memset(out, 0, sizeof *out);
    fetch f = {.o = o, .out = out, .err = err, .at = rev};
    kvplan__http_config c;
    KVPLAN__TRY(check_options(o, &f, &c, err));
    kvplan__hub_repo_init(&f.r, repo_id, rev, o->cache_dir);
    if (kvplan__hub_cached(&f.r, out)) {
        out->from_cache = true;
        return kvplan__ok(err);
    }
    KVPLAN__FAIL_IF(o->offline, err, KVPLAN_IO, "--model-path",
                    "%s: not in the Hub cache (%.300s) at revision %s, and "
                    "HF_HUB_OFFLINE is set",
                    repo_id, f.r.folder[0] ? f.r.folder : "no cache folder",
                    rev);
    c.deadline = kvplan__http_now() + f.deadline_s;
    char why[300];
    kvplan_status st = kvplan__http_open(&c, &f.http, why, sizeof why);
    if (st == KVPLAN_UNSUPPORTED)
        return kvplan__fail(err, st, "--model-path",
                            "%s: not in the Hub cache, and %s", repo_id, why);
    KVPLAN__FAIL_IF(st != KVPLAN_OK, err, st, NULL, "%s", why);
    st = from_hub(&f, err);
    for (size_t i = 0; f.reqs != NULL && i < 2 * f.n; i++)
        kvplan__http_req_clear(&f.reqs[i]);
    free(f.reqs);
    kvplan__http_close(f.http);
    kvplan__hub_stage_abort(&f.stage); /* what a failure left */
    if (st != KVPLAN_OK)
        memset(out->dir, 0, sizeof out->dir);
    return st == KVPLAN_OK ? kvplan__ok(err) : st;
}

kvplan_status kvplan_model_load_hub(const char *repo_id,
                                    const kvplan_hub_options *o,
                                    kvplan_model **out,
                                    kvplan_hub_result *result,
                                    kvplan_error *err)
{
    KVPLAN__FAIL_IF(out == NULL, err, KVPLAN_INVALID_ARGUMENT, NULL,
                    "kvplan_model_load_hub needs a place for the model; got "
                    "NULL");
    *out = NULL;
    kvplan_hub_result own;
    kvplan_hub_result *r = result != NULL ? result : &own;
    KVPLAN__TRY(kvplan_hub_fetch(repo_id, o, r, err));
    return kvplan_model_load(r->dir, out, err);
}
