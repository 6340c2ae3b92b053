/*
 * hub.h: the hub room's internals; not installed.
 *
 * hub.c reads a model from the Hugging Face Hub or its local cache
 * (kvplan_hub_fetch): the files it needs, the cache's layout, the errors.
 * It fetches through one session (kvplan__http_*), which http_curl.c
 * implements on libcurl and http_none.c refuses where kvplan is built
 * without it (KVPLAN_WITH_CURL=OFF): the only files of the library that
 * touch the network. answers.c checks what the Hub answered before any of
 * it is kept (the fuzz target fuzz/fuzz_hub.c drives it).
 */
#ifndef KVPLAN_HUB_H
#define KVPLAN_HUB_H

#include "common/internal.h"

#include "common/json.h"

/* The bounds of kvplan_hub_options and of their variables. */
#define KVPLAN__HUB_TIMEOUT_DEFAULT 30.0   /* seconds per request */
#define KVPLAN__HUB_TIMEOUT_MAX 3600.0     /* an hour */
#define KVPLAN__HUB_DEADLINE_DEFAULT 300.0 /* seconds for a whole fetch */
#define KVPLAN__HUB_DEADLINE_MAX 86400.0   /* a day */
#define KVPLAN__HUB_PARALLEL_DEFAULT 8     /* requests in flight at once */
#define KVPLAN__HUB_PARALLEL_MAX 32
#define KVPLAN__HUB_MAX_COMMIT 47     /* the longest revision or commit kept */
#define KVPLAN__HUB_SECONDS_MIN 0.001 /* the shortest timeout or deadline */
#define KVPLAN__HUB_MAX_TOKEN 4096

/* One GET of a session: what to ask, and its answer. */
typedef struct kvplan__http_req {
    char url[1200];
    int64_t first, count; /* bytes [first, first + count); count 0: all */
    size_t max_bytes;     /* a longer body is cut off, too_large set */
    /* the answer: st KVPLAN_OK whenever one came (any status) */
    kvplan_status st;
    long status; /* the HTTP status; 0 when none came */
    char *body;  /* malloc'ed, NUL-terminated; the session frees it */
    size_t len;
    char commit[KVPLAN__HUB_MAX_COMMIT + 1]; /* X-Repo-Commit; "" if none */
    bool bad_commit; /* an X-Repo-Commit too long or not a commit's form */
    bool timed_out, too_large;
    bool past_deadline; /* ended by the session's deadline */
    char why[300];      /* no answer: what happened (libcurl's words, a refused
                           redirect, the deadline) */
    /* the session's own */
    int state, tries, redirects;
    bool foreign; /* redirected off the endpoint's host: no token */
    double retry_at;
    size_t cap;
} kvplan__http_req;

/* What a session needs to know. */
typedef struct kvplan__http_config {
    const char *endpoint; /* redirects stay on its host (or the Hub's CDN) */
    const char *token;    /* sent to the endpoint's own host only */
    double timeout_s;     /* each request */
    double deadline;      /* kvplan__http_now() by which all have ended */
    int retries;          /* of a 5xx answer or a timeout */
    int parallel;         /* requests in flight at once */
} kvplan__http_config;

typedef struct kvplan__http kvplan__http;

/* A monotonic clock in seconds. */
double kvplan__http_now(void);

/* A session: KVPLAN_UNSUPPORTED (why set) without libcurl, KVPLAN_NOMEM. */
kvplan_status kvplan__http_open(const kvplan__http_config *c,
                                kvplan__http **out, char *why, size_t why_size);

/*
 * Performs reqs[0..n), at most c->parallel at once over connections the
 * session keeps between calls. done(ctx, i) is called on the caller's
 * thread as request i ends (answered or not); it returns false to stop the
 * rest (they end with st KVPLAN_IO, why "not asked"). Redirects are
 * followed by hand, at most 10, to http or https on the endpoint's host or
 * the Hub's CDN; a 5xx answer or a timeout is retried. Returns KVPLAN_OK,
 * or KVPLAN_NOMEM.
 */
kvplan_status kvplan__http_run(kvplan__http *h, kvplan__http_req *reqs,
                               size_t n, bool (*done)(void *ctx, size_t i),
                               void *ctx);

/* Frees a request's body. */
void kvplan__http_req_clear(kvplan__http_req *r);

void kvplan__http_close(kvplan__http *h);

/* Whether `url` is one a session may follow a redirect to, from
 * `endpoint`: http or https (https only from https), on the endpoint's
 * host or a host of its domain (huggingface.co: also hf.co's). *same_host
 * says whether the token may go with it: the endpoint's own scheme, host
 * and port. */
bool kvplan__http_redirect_ok(const char *endpoint, const char *url,
                              bool *same_host);

/* ---- cache.c: the Hub cache ---------------------------------------------- */

typedef struct kvplan__hub_repo {
    const char *id, *revision;
    char folder[3800]; /* {cache}/models--org--name; "" without a cache */
} kvplan__hub_repo;

void kvplan__hub_repo_init(kvplan__hub_repo *r, const char *id,
                           const char *revision, const char *cache);

/* A complete snapshot of the revision in the cache (out->dir, ->commit). */
bool kvplan__hub_cached(const kvplan__hub_repo *r, kvplan_hub_result *out);

/* A fetch's own folder in the cache, filled, then moved into place. */
typedef struct kvplan__hub_stage {
    char dir[4096]; /* "" when none */
} kvplan__hub_stage;

kvplan_status kvplan__hub_stage_open(const kvplan__hub_repo *r,
                                     kvplan__hub_stage *s, kvplan_error *err);

/* A new file of the stage, whole or not at all. */
kvplan_status kvplan__hub_stage_put(const kvplan__hub_stage *s,
                                    const kvplan__hub_repo *r, const char *name,
                                    const void *data, size_t len,
                                    kvplan_error *err);

/* The staged files into snapshots/{out->commit}, the marker (with the
 * weights' summary) last, then refs/{revision}; the stage removed. */
kvplan_status kvplan__hub_stage_commit(kvplan__hub_stage *s,
                                       const kvplan__hub_repo *r,
                                       kvplan_hub_result *out,
                                       kvplan_error *err);

/* The stage and what it holds, removed (nothing when already done). */
void kvplan__hub_stage_abort(kvplan__hub_stage *s);

/* ---- answers.c: what the Hub answered, checked -------------------------- */

/* A name of the Hub's: letters, digits, '-', '_', '.', not starting with
 * '.' or '-', no "..", 1 to 96 bytes. */
bool kvplan__hub_name(const char *s, size_t n);

/* Whether a token holds a control character (a line break would add a
 * request header). */
bool kvplan__hub_token_control(const char *token);

/* A revision or commit kvplan keeps: a Hub name of 1 to 47 bytes. */
bool kvplan__hub_revision_ok(const char *s);

/* config.json's body: a JSON object, whole. */
kvplan_status kvplan__hub_check_config(const char *id, const char *body,
                                       size_t len, kvplan_error *err);

/* A shard header's first bytes: the header's length N (1 to 16 MiB) from
 * the first 8. */
kvplan_status kvplan__hub_header_length(const char *id, const char *shard,
                                        const unsigned char *first, size_t len,
                                        uint64_t *n, kvplan_error *err);

/* A safetensors header (8 + N bytes): its JSON an object of tensors. */
kvplan_status kvplan__hub_check_header(const char *id, const char *shard,
                                       const unsigned char *all, size_t len,
                                       kvplan_error *err);

/* The index's body: parsed (*index, json_decref it) with the distinct
 * shards its weight_map names (borrowed from *index) into names[0..*n),
 * at most `cap`. */
kvplan_status kvplan__hub_index_shards(const char *id, const char *body,
                                       size_t len, json_t **index,
                                       const char **names, size_t cap,
                                       size_t *n, kvplan_error *err);

#endif /* KVPLAN_HUB_H */
