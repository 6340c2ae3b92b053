/*
 * fuzz_pools.c: one `kvplan pools` line, hostile, through the scenario
 * reader, the configurator calls and the JSON writer.
 */
#include "json/doc.h"
#include "json/scenario.h"

#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *obj = json_loadb((const char *)data, size, 0, NULL);
    if (obj == NULL)
        return 0;
    kvplan__scenario s;
    kvplan_error err;
    if (kvplan__scenario_parse(obj, &s, &err) == KVPLAN_OK) {
        kvplan__writer w = {0};
        kvplan__scenario_answer(&w, obj, &s);
        FILE *sink = fopen("/dev/null", "w");
        if (sink != NULL) {
            kvplan__w_print(&w, sink, true);
            fclose(sink);
        } else {
            kvplan__w_free(&w);
        }
        kvplan__scenario_free(&s);
    }
    json_decref(obj);
    return 0;
}
