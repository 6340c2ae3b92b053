/*
 * hub.c: a model from the Hugging Face Hub or its local cache, made a
 * folder kvplan loads like any other (docs/hub.md):
 *
 *   {cache}/models--{org}--{name}/refs/{revision}         the commit
 *   {cache}/models--{org}--{name}/snapshots/{commit}/config.json
 *                                  .../model.safetensors.index.json
 *                                  .../{shard}.kvplan-header
 *                                  .../.kvplan-complete
 *
 * A shard's header is its first 8 + N bytes (the length, then the JSON),
 * read with two range requests and kept under a name of kvplan's own, so
 * that no tool takes it for the shard. A snapshot huggingface-cli put
 * there (with the shards themselves) is read as it is.
 */
#include "hub/hub.h"

#include "common/json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_ENDPOINT "https://huggingface.co"
#define MAX_CONFIG_BYTES (4u << 20)
#define MAX_INDEX_BYTES (32u << 20)
#define MAX_HEADER_BYTES (16u << 20) /* as budget/weights.c reads them */
#define MAX_SHARDS 4096

void kvplan_hub_options_init(kvplan_hub_options *o)
{
    if (o == NULL)
        return;
    memset(o, 0, sizeof *o);
    o->struct_size = (uint32_t)sizeof *o;
    o->retries = 2;
}

/* A name of the Hub's: letters, digits, '-', '_', '.', not starting with
 * '.' or '-', not "..", 1 to 96 bytes. */
static bool hub_name(const char *s, size_t n)
{
    if (n == 0 || n > 96 || s[0] == '.' || s[0] == '-')
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                  (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
        if (!ok || (c == '.' && i + 1 < n && s[i + 1] == '.'))
            return false;
    }
    return true;
}

bool kvplan_hub_repo_id(const char *name)
{
    if (name == NULL)
        return false;
    const char *slash = strchr(name, '/');
    return slash != NULL && strchr(slash + 1, '/') == NULL &&
           hub_name(name, (size_t)(slash - name)) &&
           hub_name(slash + 1, strlen(slash + 1));
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

/* ---- files --------------------------------------------------------------- */

static bool is_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* mkdir -p */
static bool make_dirs(const char *path)
{
    char p[4096];
    if (snprintf(p, sizeof p, "%s", path) >= (int)sizeof p)
        return false;
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            if (mkdir(p, 0755) != 0 && errno != EEXIST)
                return false;
            *s = '/';
        }
    return mkdir(p, 0755) == 0 || errno == EEXIST;
}

/* Writes `len` bytes to `path` whole or not at all (a temporary, then a
 * rename). */
static bool write_file(const char *path, const void *data, size_t len)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (f == NULL)
        return false;
    bool ok = fwrite(data, 1, len, f) == len;
    ok &= fclose(f) == 0;
    ok = ok && rename(tmp, path) == 0;
    if (!ok)
        remove(tmp);
    return ok;
}

/* The first line of a small file (a ref), trimmed; false when absent. */
static bool read_ref(const char *path, char *out, size_t size)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return false;
    bool ok = fgets(out, (int)size, f) != NULL;
    fclose(f);
    if (!ok)
        return false;
    out[strcspn(out, "\r\n \t")] = '\0';
    return out[0] != '\0' && hub_name(out, strlen(out));
}

/* ---- the cache ----------------------------------------------------------- */

typedef struct repo {
    const char *id;
    const char *revision;
    char folder[3800]; /* {cache}/models--org--name; "" without a cache */
} repo;

static void repo_folder(repo *r, const char *cache)
{
    r->folder[0] = '\0';
    if (cache == NULL || cache[0] == '\0')
        return;
    const char *slash = strchr(r->id, '/');
    snprintf(r->folder, sizeof r->folder, "%.3500s/models--%.*s--%s", cache,
             (int)(slash - r->id), r->id, slash + 1);
}

/* A complete snapshot of the revision in the cache: kvplan's (with its
 * marker) or one huggingface-cli downloaded (config.json beside its
 * safetensors). */
static bool cached(const repo *r, kvplan_hub_result *out)
{
    char path[4400], commit[48];
    if (r->folder[0] == '\0')
        return false;
    snprintf(path, sizeof path, "%s/refs/%s", r->folder, r->revision);
    if (!read_ref(path, commit, sizeof commit))
        snprintf(commit, sizeof commit, "%.47s", r->revision);
    snprintf(out->dir, sizeof out->dir, "%.3800s/snapshots/%.47s", r->folder,
             commit);
    snprintf(path, sizeof path, "%s/config.json", out->dir);
    if (!is_file(path))
        return false;
    snprintf(out->commit, sizeof out->commit, "%s", commit);
    snprintf(path, sizeof path, "%s/.kvplan-complete", out->dir);
    if (is_file(path))
        return true;
    snprintf(path, sizeof path, "%s/model.safetensors.index.json", out->dir);
    char single[4400];
    snprintf(single, sizeof single, "%s/model.safetensors", out->dir);
    return is_file(path) || is_file(single);
}

/* ---- fetching ------------------------------------------------------------ */

typedef struct fetch {
    const kvplan_hub_options *o;
    repo r;
    kvplan_hub_result *out;
    size_t done, total;
} fetch;

static void url_of(const fetch *f, const char *file, char *url, size_t size)
{
    const char *e =
        f->o->endpoint && f->o->endpoint[0] ? f->o->endpoint : DEFAULT_ENDPOINT;
    size_t n = strlen(e);
    while (n > 0 && e[n - 1] == '/')
        n--;
    snprintf(url, size, "%.*s/%s/resolve/%s/%s", (int)n, e, f->r.id,
             f->r.revision, file);
}

/* An answer that is not the file, as an error that says what to do. */
static kvplan_status refused(const fetch *f, const char *url,
                             const kvplan__http_response *h, kvplan_error *err)
{
    if (h->status == 401 || h->status == 403)
        return kvplan__fail(
            err, KVPLAN_IO, "--model-path",
            "%s: the Hub answered %ld (%s) for %.300s: the repo is gated or "
            "private; set HF_TOKEN (or HF_TOKEN_PATH) to a token that may "
            "read it",
            f->r.id, h->status, h->status == 401 ? "unauthorized" : "forbidden",
            url);
    if (h->status == 404)
        return kvplan__fail(err, KVPLAN_IO, "--model-path",
                            "%s: the Hub has no such repo, revision or file "
                            "(404 for %.300s); check the id and --revision",
                            f->r.id, url);
    if (h->status >= 500)
        return kvplan__fail(err, KVPLAN_IO, "--model-path",
                            "%s: the Hub answered %ld for %.300s after %d "
                            "tries; try again later, or set HF_HUB_OFFLINE=1 "
                            "to plan from the local cache",
                            f->r.id, h->status, url, f->o->retries + 1);
    return kvplan__fail(err, KVPLAN_IO, "--model-path",
                        "%s: the Hub answered %ld for %.300s", f->r.id,
                        h->status, url);
}

/* GETs `file` (or its bytes [first, first + count)) into h. */
static kvplan_status get(fetch *f, const char *file, int64_t first,
                         int64_t count, size_t max, kvplan__http_response *h,
                         char *url, size_t url_size, kvplan_error *err)
{
    url_of(f, file, url, url_size);
    double timeout = f->o->timeout_s > 0 ? f->o->timeout_s : 30;
    int retries = f->o->retries < 0    ? 0
                  : f->o->retries > 10 ? 10
                                       : f->o->retries;
    kvplan_status st = kvplan__http_get(url, f->o->token, first, count, max,
                                        timeout, retries, h);
    if (st == KVPLAN_NOMEM)
        return kvplan__fail(err, KVPLAN_NOMEM, NULL, "out of memory");
    if (st == KVPLAN_UNSUPPORTED)
        return kvplan__fail(err, KVPLAN_UNSUPPORTED, "--model-path",
                            "%s: not in the Hub cache, and %s", f->r.id,
                            h->why);
    if (st != KVPLAN_OK)
        return kvplan__fail(err, KVPLAN_IO, "--model-path",
                            "%s: no answer from %.300s: %s%s", f->r.id, url,
                            h->why,
                            h->timed_out ? " (raise the timeout, or set "
                                           "HF_HUB_OFFLINE=1 for the cache)"
                                         : "");
    f->out->bytes += (int64_t)h->len;
    return KVPLAN_OK;
}

/* Keeps `len` bytes as {snapshot}/{name}. */
static kvplan_status keep(const fetch *f, const char *name, const void *data,
                          size_t len, kvplan_error *err)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", f->out->dir, name);
    KVPLAN__FAIL_IF(!write_file(path, data, len), err, KVPLAN_IO,
                    "--model-path",
                    "%s: cannot write %.300s into the Hub cache (set "
                    "HF_HUB_CACHE to a folder kvplan may write)",
                    f->r.id, path);
    return KVPLAN_OK;
}

static void progress(fetch *f, const char *file)
{
    f->done++;
    f->out->files++;
    if (f->o->progress != NULL)
        f->o->progress(f->o->progress_ctx, f->done, f->total, file);
}

/* A shard's name from the index: a file of the snapshot's own folder. */
static bool shard_name(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    return n > 12 && n < 200 && strcmp(s + n - 12, ".safetensors") == 0 &&
           strchr(s, '/') == NULL && strstr(s, "..") == NULL && s[0] != '.';
}

/* One shard's header: 8 bytes of length, then that many of JSON. */
static kvplan_status header(fetch *f, const char *shard, kvplan_error *err)
{
    char url[4400], name[256];
    kvplan__http_response h = {0};
    kvplan_status st = get(f, shard, 0, 8, 8, &h, url, sizeof url, err);
    if (st == KVPLAN_OK && (h.status != 206 && h.status != 200))
        st = refused(f, url, &h, err);
    if (st == KVPLAN_OK && (h.len != 8 || h.status != 206)) {
        st = kvplan__fail(err, KVPLAN_PARSE, "--model-path",
                          "%s: %.300s did not answer a range request (status "
                          "%ld, %zu bytes): kvplan reads only the header of "
                          "a shard, never the weights",
                          f->r.id, url, h.status, h.len);
    }
    uint64_t n = 0;
    for (int i = 7; st == KVPLAN_OK && i >= 0; i--)
        n = (n << 8) | (unsigned char)h.body[i];
    if (st == KVPLAN_OK && (n == 0 || n > MAX_HEADER_BYTES))
        st = kvplan__fail(err, KVPLAN_PARSE, "--model-path",
                          "%s: %s: a safetensors header of %llu bytes; "
                          "kvplan reads headers of 1 byte to %u MiB",
                          f->r.id, shard, (unsigned long long)n,
                          MAX_HEADER_BYTES >> 20);
    unsigned char len8[8];
    if (st == KVPLAN_OK)
        memcpy(len8, h.body, 8);
    free(h.body);
    if (st != KVPLAN_OK)
        return st;
    h = (kvplan__http_response){0};
    st = get(f, shard, 8, (int64_t)n, (size_t)n, &h, url, sizeof url, err);
    if (st == KVPLAN_OK && h.status != 206)
        st = h.status == 200 ? kvplan__fail(err, KVPLAN_PARSE, "--model-path",
                                            "%s: %.300s did not answer a "
                                            "range request",
                                            f->r.id, url)
                             : refused(f, url, &h, err);
    if (st == KVPLAN_OK && h.len != n)
        st = kvplan__fail(err, KVPLAN_PARSE, "--model-path",
                          "%s: %s: the header is %llu bytes, %zu came", f->r.id,
                          shard, (unsigned long long)n, h.len);
    json_t *j = st == KVPLAN_OK ? json_loadb(h.body, h.len, 0, NULL) : NULL;
    if (st == KVPLAN_OK && !json_is_object(j))
        st = kvplan__fail(err, KVPLAN_PARSE, "--model-path",
                          "%s: %s: its safetensors header is not a JSON "
                          "object",
                          f->r.id, shard);
    json_decref(j);
    if (st == KVPLAN_OK) {
        /* the shard's first 8 + n bytes, under kvplan's own name */
        char *all = malloc((size_t)n + 8);
        if (all == NULL) {
            st = kvplan__fail(err, KVPLAN_NOMEM, NULL, "out of memory");
        } else {
            memcpy(all, len8, 8);
            memcpy(all + 8, h.body, (size_t)n);
            snprintf(name, sizeof name, "%s.kvplan-header", shard);
            st = keep(f, name, all, (size_t)n + 8, err);
            free(all);
        }
    }
    free(h.body);
    if (st == KVPLAN_OK)
        progress(f, shard);
    return st;
}

/* The shards the index names (each once), or the single file. */
static kvplan_status shards_of(fetch *f, const json_t *index,
                               const char **names, size_t *n, kvplan_error *err)
{
    *n = 0;
    if (index == NULL) {
        names[(*n)++] = "model.safetensors";
        return KVPLAN_OK;
    }
    const json_t *map = json_object_get(index, "weight_map");
    KVPLAN__FAIL_IF(!json_is_object(map), err, KVPLAN_PARSE, "--model-path",
                    "%s: model.safetensors.index.json has no weight_map "
                    "object",
                    f->r.id);
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)map, key, v)
    {
        const char *s = json_string_value(v);
        KVPLAN__FAIL_IF(!shard_name(s), err, KVPLAN_PARSE, "--model-path",
                        "%s: the index maps '%.80s' to '%.80s', not a "
                        ".safetensors file of the repo's folder",
                        f->r.id, key, s ? s : "(not a string)");
        size_t i = 0;
        while (i < *n && strcmp(names[i], s) != 0)
            i++;
        if (i == *n) {
            KVPLAN__FAIL_IF(*n == MAX_SHARDS, err, KVPLAN_PARSE, "--model-path",
                            "%s: the index names more than %d shards", f->r.id,
                            MAX_SHARDS);
            names[(*n)++] = s;
        }
    }
    return KVPLAN_OK;
}

static kvplan_status from_hub(fetch *f, kvplan_error *err)
{
    char url[4400];
    kvplan__http_response h = {0};
    KVPLAN__TRY(get(f, "config.json", 0, 0, MAX_CONFIG_BYTES, &h, url,
                    sizeof url, err));
    if (h.status != 200) {
        kvplan_status st = refused(f, url, &h, err);
        free(h.body);
        return st;
    }
    /* the snapshot: the commit the Hub resolved the revision to */
    const char *commit = h.commit[0] && hub_name(h.commit, strlen(h.commit))
                             ? h.commit
                             : f->r.revision;
    snprintf(f->out->commit, sizeof f->out->commit, "%s", commit);
    kvplan_status st = KVPLAN_OK;
    if (f->r.folder[0] != '\0') {
        snprintf(f->out->dir, sizeof f->out->dir, "%.3800s/snapshots/%.47s",
                 f->r.folder, f->out->commit);
        if (!make_dirs(f->out->dir))
            st = kvplan__fail(err, KVPLAN_IO, "--model-path",
                              "%s: cannot make %.300s in the Hub cache (set "
                              "HF_HUB_CACHE to a folder kvplan may write)",
                              f->r.id, f->out->dir);
    } else {
        st = kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, "cache_dir",
                          "%s: kvplan_hub_fetch needs a cache folder to keep "
                          "what it reads",
                          f->r.id);
    }
    if (st == KVPLAN_OK)
        st = keep(f, "config.json", h.body, h.len, err);
    free(h.body);
    KVPLAN__TRY(st);
    f->total = 2;
    progress(f, "config.json");

    h = (kvplan__http_response){0};
    KVPLAN__TRY(get(f, "model.safetensors.index.json", 0, 0, MAX_INDEX_BYTES,
                    &h, url, sizeof url, err));
    json_t *index = NULL;
    if (h.status == 200) {
        index = json_loadb(h.body, h.len, 0, NULL);
        st = index == NULL
                 ? kvplan__fail(err, KVPLAN_PARSE, "--model-path",
                                "%s: model.safetensors.index.json is not JSON",
                                f->r.id)
                 : keep(f, "model.safetensors.index.json", h.body, h.len, err);
    } else if (h.status != 404) {
        st = refused(f, url, &h, err);
    }
    free(h.body);
    const char **names = malloc(MAX_SHARDS * sizeof *names);
    size_t n = 0;
    if (st == KVPLAN_OK && names == NULL)
        st = kvplan__fail(err, KVPLAN_NOMEM, NULL, "out of memory");
    if (st == KVPLAN_OK)
        st = shards_of(f, index, names, &n, err);
    if (st == KVPLAN_OK) {
        f->total = (index != NULL ? 2 : 1) + n;
        if (index != NULL)
            progress(f, "model.safetensors.index.json");
    }
    for (size_t i = 0; st == KVPLAN_OK && i < n; i++)
        st = header(f, names[i], err);
    free(names);
    json_decref(index);
    KVPLAN__TRY(st);
    /* complete: the ref, then the marker */
    char path[4400];
    snprintf(path, sizeof path, "%s/refs", f->r.folder);
    KVPLAN__FAIL_IF(!make_dirs(path), err, KVPLAN_IO, "--model-path",
                    "%s: cannot make %.300s", f->r.id, path);
    snprintf(path, sizeof path, "%s/refs/%s", f->r.folder, f->r.revision);
    KVPLAN__FAIL_IF(!write_file(path, f->out->commit, strlen(f->out->commit)),
                    err, KVPLAN_IO, "--model-path", "%s: cannot write %.300s",
                    f->r.id, path);
    return keep(f, ".kvplan-complete", "", 0, err);
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
    KVPLAN__FAIL_IF(!hub_name(rev, strlen(rev)), err, KVPLAN_INVALID_ARGUMENT,
                    "--revision",
                    "--revision '%.60s': expected a branch, tag or commit "
                    "(letters, digits, '-', '_', '.')",
                    rev);
    memset(out, 0, sizeof *out);
    fetch f = {.o = o, .out = out};
    f.r.id = repo_id;
    f.r.revision = rev;
    repo_folder(&f.r, o->cache_dir);
    if (cached(&f.r, out)) {
        out->from_cache = true;
        return kvplan__ok(err);
    }
    KVPLAN__FAIL_IF(o->offline, err, KVPLAN_IO, "--model-path",
                    "%s: not in the Hub cache (%.300s) at revision %s, and "
                    "HF_HUB_OFFLINE is set",
                    repo_id, f.r.folder[0] ? f.r.folder : "no cache folder",
                    rev);
    KVPLAN__TRY(from_hub(&f, err));
    return kvplan__ok(err);
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
