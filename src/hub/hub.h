/*
 * hub.h: the hub room's internals; not installed.
 *
 * hub.c reads a model from the Hugging Face Hub or its local cache
 * (kvplan_hub_fetch): the files it needs, the cache's layout, the errors.
 * It fetches through one call, kvplan__http_get, which http_curl.c
 * implements on libcurl and http_none.c refuses where kvplan is built
 * without it (KVPLAN_WITH_CURL=OFF): the only files of the library that
 * touch the network.
 */
#ifndef KVPLAN_HUB_H
#define KVPLAN_HUB_H

#include "common/internal.h"

/* One GET's answer. `body` is malloc'ed (free it), NUL-terminated. */
typedef struct kvplan__http_response {
    long status; /* the HTTP status; 0 when none came */
    char *body;
    size_t len;
    char commit[48]; /* the X-Repo-Commit header, "" when absent */
    char why[200];   /* no answer: libcurl's words (a timeout, DNS) */
    bool timed_out;
    bool too_large; /* the body passed max_bytes: cut off */
} kvplan__http_response;

/*
 * GETs `url` (redirects followed, at most 10), with "Authorization:
 * Bearer TOKEN" when `token` is not NULL, bytes [first, first + count) of
 * it when count > 0 (a Range request), reading at most max_bytes of body.
 * Retries a 5xx answer or a timeout `retries` times. Returns KVPLAN_OK
 * with out->status set whenever an answer came (any status), else
 * KVPLAN_IO with out->why; KVPLAN_UNSUPPORTED without libcurl;
 * KVPLAN_NOMEM.
 */
kvplan_status kvplan__http_get(const char *url, const char *token,
                               int64_t first, int64_t count, size_t max_bytes,
                               double timeout_s, int retries,
                               kvplan__http_response *out);

#endif /* KVPLAN_HUB_H */
