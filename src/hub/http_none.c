/*
 * http_none.c: kvplan__http_get where kvplan is built without libcurl
 * (KVPLAN_WITH_CURL=OFF): the Hub cache still serves, nothing is fetched.
 */
#include "hub/hub.h"

#include <stdio.h>
#include <string.h>

kvplan_status kvplan__http_get(const char *url, const char *token,
                               int64_t first, int64_t count, size_t max_bytes,
                               double timeout_s, int retries,
                               kvplan__http_response *out)
{
    (void)url, (void)token, (void)first, (void)count, (void)max_bytes;
    (void)timeout_s, (void)retries;
    memset(out, 0, sizeof *out);
    snprintf(out->why, sizeof out->why,
             "kvplan was built without libcurl (KVPLAN_WITH_CURL=OFF)");
    return KVPLAN_UNSUPPORTED;
}
