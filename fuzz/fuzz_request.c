/*
 * fuzz_request.c: a request document, hostile, through kvplan_json (the
 * JSON entry point): whatever it holds, the answer is one JSON document
 * and the status one of the library's; Python's pickle of it
 * (KVPLAN_ENCODING_PICKLE) has the same status, opens with PROTO 2 and
 * ends with STOP. No request writes a file; those
 * that ask the GPU driver (--gpu auto) are left out, and the Hub is
 * offline: the harness plans, it does not touch the devices or the
 * network.
 */
#include "kvplan.h"
#include "kvplan_json.h"

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
    /* no request writes a file (a picture and a calibration come back in
     * the answer): only --gpu auto, which asks the driver, is left out */
    if (has(data, size, "auto") || size > 65536)
        return 0;
    char *resp = NULL;
    size_t len = 0;
    kvplan_status rc = kvplan_json((const char *)data, size, &resp, &len);
    if (strcmp(kvplan_status_name(rc), "KVPLAN_UNKNOWN") == 0)
        abort(); /* a status not of the list */
    if (resp == NULL) {
        if (rc != KVPLAN_NOMEM)
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
    kvplan_status pk = kvplan_json_session_call_as(
        NULL, KVPLAN_ENCODING_PICKLE, (const char *)data, size, &resp, &len);
    if (resp == NULL) {
        if (pk != KVPLAN_NOMEM)
            abort();
        return 0;
    }
    if (pk != rc || len < 3 || (unsigned char)resp[0] != 0x80 || resp[1] != 2 ||
        resp[len - 1] != '.')
        abort(); /* another status, or not a whole pickle */
    kvplan_json_free(resp);
    return 0;
}
