/*
 * fuzz_hub.c: what a Hub answers, hostile (src/hub/answers.c). The first
 * byte picks what the rest is: config.json's body, a shard's header (its
 * 8-byte length, then the JSON), model.safetensors.index.json's body, a
 * redirect's Location (after "endpoint\n"), or an X-Repo-Commit. Each must
 * be taken or refused with a message, never crash, leak or read past the
 * bytes given.
 */
#include "hub/hub.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t pick = data[0] % 5;
    const uint8_t *b = data + 1;
    size_t n = size - 1;
    char *text = malloc(n + 1); /* a NUL-terminated copy for the strings */
    if (text == NULL)
        return 0;
    memcpy(text, b, n);
    text[n] = '\0';
    kvplan_error err;
    switch (pick) {
    case 0:
        (void)kvplan__hub_check_config("o/m", text, n, &err);
        break;
    case 1: {
        uint64_t len = 0;
        (void)kvplan__hub_header_length("o/m", "a.safetensors", b, n, &len,
                                        &err);
        (void)kvplan__hub_check_header("o/m", "a.safetensors", b, n, &err);
        break;
    }
    case 2: {
        const char *names[64];
        size_t k = 0;
        json_t *index = NULL;
        (void)kvplan__hub_index_shards("o/m", text, n, &index, names, 64, &k,
                                       &err);
        for (size_t i = 0; i < k; i++)
            if (strlen(names[i]) == 0)
                abort(); /* a shard has a name */
        json_decref(index);
        break;
    }
    case 3: {
        char *nl = strchr(text, '\n');
        bool same;
        if (nl != NULL) {
            *nl = '\0';
            (void)kvplan__http_redirect_ok(text, nl + 1, &same);
        }
        (void)kvplan__http_redirect_ok("https://huggingface.co", text, &same);
        break;
    }
    default:
        if (kvplan__hub_revision_ok(text) &&
            (strlen(text) > KVPLAN__HUB_MAX_COMMIT || strchr(text, '/')))
            abort(); /* a revision names one folder, at most 47 bytes */
        break;
    }
    free(text);
    return 0;
}
