/*
 * http_none.c: the Hub session where kvplan is built without libcurl
 * (KVPLAN_WITH_CURL=OFF): the Hub cache still serves, nothing is fetched.
 */
#include "hub/hub.h"

#include <stdio.h>

kvplan_status kvplan__http_open(const kvplan__http_config *c,
                                kvplan__http **out, char *why, size_t why_size)
{
    (void)c;
    *out = NULL;
    snprintf(why, why_size,
             "kvplan was built without libcurl (KVPLAN_WITH_CURL=OFF)");
    return KVPLAN_UNSUPPORTED;
}

kvplan_status kvplan__http_run(kvplan__http *h, kvplan__http_req *reqs,
                               size_t n, bool (*done)(void *ctx, size_t i),
                               void *ctx)
{
    (void)h, (void)reqs, (void)n, (void)done, (void)ctx;
    return KVPLAN_UNSUPPORTED;
}

void kvplan__http_req_clear(kvplan__http_req *r)
{
    (void)r;
}

void kvplan__http_close(kvplan__http *h)
{
    (void)h;
}
