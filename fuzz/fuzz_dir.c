/*
 * fuzz_dir.c: a model directory, hostile: the input is cut at "\n--\n"
 * into config.json, model.safetensors.index.json and up to three shards
 * (each an 8-byte header length, the header and its data, as given; the
 * third kept alone, as kvplan_hub_fetch keeps a shard's header),
 * written to a temporary folder and read back by kvplan_model_load,
 * kvplan_weights_from_dir and a plan on the weights it measured.
 */
#include "kvplan.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {
    "config.json", "model.safetensors.index.json", "a.safetensors",
    "b.safetensors", "c.safetensors.kvplan-header"};
#define PARTS (sizeof names / sizeof names[0])

static void put(const char *dir, const char *name, const uint8_t *b, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (b == NULL) {
        unlink(path);
        return;
    }
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return;
    if (n > 0)
        fwrite(b, 1, n, f);
    fclose(f);
}

static char dir[] = "/tmp/kvplan-fuzz-dir-XXXXXX";

/* The folder and its files go when the run ends. */
static void clean(void)
{
    for (size_t k = 0; k < PARTS; k++)
        put(dir, names[k], NULL, 0);
    rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool made;
    if (!made) {
        if (mkdtemp(dir) == NULL)
            return 0;
        made = true;
        atexit(clean);
    }
    /* the parts, cut at "\n--\n"; a part absent is a file absent */
    const uint8_t *start = data, *end = data + size;
    for (size_t k = 0; k < PARTS; k++) {
        const uint8_t *cut = NULL;
        for (const uint8_t *p = start; start != NULL && p + 4 <= end; p++)
            if (memcmp(p, "\n--\n", 4) == 0) {
                cut = p;
                break;
            }
        if (start == NULL) {
            put(dir, names[k], NULL, 0);
            continue;
        }
        const uint8_t *stop = cut != NULL ? cut : end;
        put(dir, names[k], start, (size_t)(stop - start));
        start = cut != NULL ? cut + 4 : NULL;
    }
    kvplan_model *m = NULL;
    kvplan_error err;
    int64_t bytes = 0;
    kvplan_status w = kvplan_weights_from_dir(dir, &bytes, &err);
    if (kvplan_model_load(dir, &m, &err) == KVPLAN_OK) {
        kvplan_plan_options o;
        kvplan_plan_options_init(&o);
        o.gpu_set = kvplan_gpu_preset("H200", &o.gpu);
        if (w == KVPLAN_OK)
            o.weight_bytes = (kvplan_opt_int){bytes, true};
        kvplan_plan *p = malloc(sizeof *p);
        if (p != NULL)
            kvplan_plan_compute(m, &o, p, &err);
        free(p);
        kvplan_model_free(m);
    }
    return 0;
}
