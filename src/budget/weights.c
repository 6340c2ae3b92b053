/*
 * weights.c: the weights' bytes, measured or estimated, and one request's
 * mamba state.
 *
 * Measured: the safetensors of a model directory, from their headers
 * alone (no tensor is read). The estimate from config.json, tensor by
 * tensor, is tensors.c's.
 */
#include "budget/budget.h"

#include "common/json.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The bytes of one .safetensors file's tensors, from its header alone: an
 * 8-byte little-endian length, then a JSON object of tensors with
 * data_offsets. -1 when the file is not readable as such. */
static int64_t safetensors_bytes(const char *path)
{
    bool special;
    FILE *f = kvplan__open_regular(path, &special);
    if (f == NULL)
        return -1;
    unsigned char len8[8];
    int64_t total = -1;
    if (fread(len8, 1, 8, f) == 8) {
        uint64_t n = 0;
        for (int i = 7; i >= 0; i--)
            n = (n << 8) | len8[i];
        char *hdr = n > 0 && n < (100u << 20) ? malloc((size_t)n) : NULL;
        if (hdr != NULL && fread(hdr, 1, (size_t)n, f) == n) {
            json_t *h = json_loadb(hdr, (size_t)n, 0, NULL);
            const char *key;
            json_t *t;
            total = h ? 0 : -1;
            json_object_foreach(h, key, t)
            {
                const json_t *off = json_object_get(t, "data_offsets");
                if (json_array_size(off) == 2)
                    total +=
                        (int64_t)(json_integer_value(json_array_get(off, 1)) -
                                  json_integer_value(json_array_get(off, 0)));
            }
            json_decref(h);
        }
        free(hdr);
    }
    fclose(f);
    return total;
}

/* The weights of a model directory: model.safetensors.index.json's
 * metadata.total_size, else the sum over the *.safetensors headers. */
static kvplan_opt_int directory_weights(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/model.safetensors.index.json", dir);
    bool special;
    FILE *f = kvplan__open_regular(path, &special);
    json_t *index = f ? json_loadf(f, 0, NULL) : NULL;
    if (f != NULL)
        fclose(f);
    const json_t *total =
        json_object_get(json_object_get(index, "metadata"), "total_size");
    kvplan_opt_int out = {0, false};
    if (json_is_integer(total) && json_integer_value(total) > 0)
        out = (kvplan_opt_int){(int64_t)json_integer_value(total), true};
    json_decref(index);
    if (out.set)
        return out;
    DIR *d = opendir(dir);
    if (d == NULL)
        return out;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n > 12 && strcmp(e->d_name + n - 12, ".safetensors") == 0) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            int64_t b = safetensors_bytes(path);
            if (b > 0)
                out = (kvplan_opt_int){out.value + b, true};
        }
    }
    closedir(d);
    return out;
}

kvplan_status kvplan_weights_from_dir(const char *dir, int64_t *bytes,
                                      kvplan_error *err)
{
    KVPLAN__FAIL_IF(dir == NULL || bytes == NULL, err, KVPLAN_INVALID_ARGUMENT,
                    NULL,
                    "kvplan_weights_from_dir needs a directory and a place "
                    "for the bytes; got NULL");
    struct stat sb;
    KVPLAN__FAIL_IF(stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode), err, KVPLAN_IO,
                    "--model-path", "%s: not a directory", dir);
    kvplan_opt_int w = directory_weights(dir);
    KVPLAN__FAIL_IF(!w.set, err, KVPLAN_IO, "--model-path",
                    "%s: no model.safetensors.index.json and no readable "
                    "*.safetensors file",
                    dir);
    *bytes = w.value;
    return kvplan__ok(err);
}

/* Conv state in bf16 (conv_dim / tp, width) and the ssm state
 * (heads / tp, a, b) at ssm_size bytes, per mamba layer. */
double kvplan__mamba_per_request(const kvplan__mamba_shape *s, int64_t tp)
{
    double conv = (double)(s->conv_dim / tp) * (double)s->conv_width * 2.0;
    double ssm = (double)(s->temporal_heads / tp) * (double)s->temporal_a *
                 (double)s->temporal_b * (double)s->ssm_size;
    return (conv + ssm) * (double)s->layers;
}

int64_t kvplan__mamba_ratio(bool disable_radix_cache,
                            bool disable_overlap_schedule, int64_t page_size)
{
    if (disable_radix_cache)
        return 1;
    if (!disable_overlap_schedule)
        return 5; /* extra_buffer with the overlap schedule */
    return page_size > 1 ? 4 : 3;
}
