/*
 * fuzz_request.c: a request document, hostile, through kvplan_json (the
 * JSON entry point): whatever it holds, the answer is one JSON document
 * and the status one of the command's. Requests that would write files
 * (--svg FILE, --calibrate, --calibration) or reach the Hub are left out:
 * the harness plans, it does not touch the disk or the network.
 */
#include "kvplan.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool has(const uint8_t *data, size_t size, const char *word)
{
    size_t n = strlen(word);
    for (size_t i = 0; i + n <= size; i++)
        if (memcmp(data + i, word, n) == 0)
            return true;
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setenv("HF_HUB_OFFLINE", "1", 1);
    setenv("HF_HUB_CACHE", "/nonexistent/kvplan-fuzz", 1);
    if (has(data, size, "svg") || has(data, size, "calibra") ||
        has(data, size, "auto") || size > 65536)
        return 0;
    char *resp = NULL;
    size_t len = 0;
    int rc = kvplan_json((const char *)data, size, &resp, &len);
    if (rc < 0 || rc > 4)
        abort();
    if (resp == NULL) {
        if (rc != 4)
            abort();
        return 0;
    }
    if (strlen(resp) != len)
        abort(); /* a NUL inside the document */
    json_error_t jerr;
    json_t *doc = json_loadb(resp, len, 0, &jerr);
    if (doc == NULL)
        abort(); /* not one JSON document */
    json_decref(doc);
    kvplan_json_free(resp);
    return 0;
}
