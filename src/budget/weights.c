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

/* The largest safetensors header and index kvplan reads: real ones are
 * a few MiB at most (DeepSeek-V3's index: 8 MiB), and a JSON text costs
 * about 20 times its size to hold. */
#define MAX_HEADER_BYTES (16u << 20)
#define MAX_INDEX_BYTES (32u << 20)

/* safetensors' dtype names and their bytes; 0: a name kvplan does not
 * know (its tensor is counted from data_offsets, unchecked). */
static int64_t dtype_bytes(const char *name)
{
    static const struct {
        const char *name;
        int64_t bytes;
    } dtypes[] = {{"F64", 8},    {"F32", 4},     {"F16", 2},     {"BF16", 2},
                  {"I64", 8},    {"I32", 4},     {"I16", 2},     {"I8", 1},
                  {"U64", 8},    {"U32", 4},     {"U16", 2},     {"U8", 1},
                  {"BOOL", 1},   {"F8_E4M3", 1}, {"F8_E5M2", 1}, {"E8M0", 1},
                  {"F8_E8M0", 1}};
    for (size_t i = 0; name != NULL && i < sizeof dtypes / sizeof dtypes[0];
         i++)
        if (strcmp(dtypes[i].name, name) == 0)
            return dtypes[i].bytes;
    return 0;
}

/* One tensor of shard `path`: its data_offsets within the data section of
 * `data` bytes, cross-checked against dtype x shape. Adds its bytes to
 * *total. */
static kvplan_status add_tensor(const char *path, const char *name,
                                const json_t *t, int64_t data, int64_t *total,
                                kvplan_error *err)
{
    const json_t *off = json_object_get(t, "data_offsets");
    const json_t *a = json_array_get(off, 0), *b = json_array_get(off, 1);
    json_int_t start = json_integer_value(a), end = json_integer_value(b);
    KVPLAN__FAIL_IF(!json_is_object(t) || json_array_size(off) != 2 ||
                        !json_is_integer(a) || !json_is_integer(b) ||
                        start < 0 || end < start || end > data,
                    err, KVPLAN_PARSE, "--model-path",
                    "%.200s: tensor '%.80s': data_offsets must be [start, "
                    "end] with 0 <= start <= end <= %lld (the data "
                    "section's size)",
                    path, name, (long long)data);
    int64_t span = (int64_t)(end - start);
    int64_t elem = dtype_bytes(json_string_value(json_object_get(t, "dtype")));
    const json_t *shape = json_object_get(t, "shape");
    if (elem > 0 && json_is_array(shape)) {
        int64_t n = elem;
        bool ovf = false;
        size_t i;
        const json_t *d;
        json_array_foreach(shape, i, d)
        {
            json_int_t x = json_integer_value(d);
            ovf |= !json_is_integer(d) || x < 0 ||
                   __builtin_mul_overflow(n, (int64_t)x, &n);
        }
        KVPLAN__FAIL_IF(ovf || n != span, err, KVPLAN_PARSE, "--model-path",
                        "%.200s: tensor '%.80s': its dtype and shape make "
                        "%s bytes, but its data_offsets span %lld",
                        path, name, ovf ? "more than 2^63" : "other",
                        (long long)span);
    }
    KVPLAN__FAIL_IF(__builtin_add_overflow(*total, span, total), err,
                    KVPLAN_OVERFLOW, "--model-path",
                    "%.200s: its tensors' bytes exceed 64 bits", path);
    return KVPLAN_OK;
}

/* The bytes of one .safetensors file's tensors, from its header alone: an
 * 8-byte little-endian length, then a JSON object of tensors with dtype,
 * shape and data_offsets. Every figure is checked against the file; a
 * header kept alone (SHARD.kvplan-header, what kvplan_hub_fetch reads of a
 * shard) has no data to check the offsets against. */
static kvplan_status safetensors_bytes(const char *path, bool header_only,
                                       int64_t *bytes, kvplan_error *err)
{
    bool special;
    FILE *f = kvplan__open_regular(path, &special);
    KVPLAN__FAIL_IF(f == NULL, err, KVPLAN_PARSE, "--model-path", "%.200s: %s",
                    path,
                    special ? "not a regular file (a FIFO, a device or a "
                              "directory)"
                            : "cannot be read");
    struct stat sb;
    int64_t size = fstat(fileno(f), &sb) == 0 ? (int64_t)sb.st_size : 0;
    unsigned char len8[8];
    uint64_t n = 0;
    bool ok = fread(len8, 1, 8, f) == 8;
    for (int i = 7; ok && i >= 0; i--)
        n = (n << 8) | len8[i];
    if (!ok || n == 0 || n > MAX_HEADER_BYTES || (int64_t)n > size - 8) {
        fclose(f);
        return kvplan__fail(err, KVPLAN_PARSE, "--model-path",
                            "%.200s: not a safetensors file: its header "
                            "length (%llu) must be 1 to %u bytes and within "
                            "the file (%lld bytes)",
                            path, (unsigned long long)n, MAX_HEADER_BYTES,
                            (long long)size);
    }
    char *hdr = malloc((size_t)n);
    ok = hdr != NULL && fread(hdr, 1, (size_t)n, f) == n;
    fclose(f);
    if (!ok) {
        free(hdr);
        return kvplan__fail(err, hdr ? KVPLAN_PARSE : KVPLAN_NOMEM,
                            "--model-path", "%.200s: %s", path,
                            hdr ? "its header cannot be read"
                                : "out of memory");
    }
    json_t *h = json_loadb(hdr, (size_t)n, 0, NULL);
    free(hdr);
    if (!json_is_object(h)) {
        json_decref(h);
        return kvplan__fail(err, KVPLAN_PARSE, "--model-path",
                            "%.200s: its header is not a JSON object", path);
    }
    int64_t total = 0, data = header_only ? INT64_MAX : size - 8 - (int64_t)n;
    kvplan_status st = KVPLAN_OK;
    const char *key;
    json_t *t;
    json_object_foreach(h, key, t)
    {
        if (st == KVPLAN_OK && strcmp(key, "__metadata__") != 0)
            st = add_tensor(path, key, t, data, &total, err);
    }
    json_decref(h);
    *bytes = total;
    return st;
}

/* model.safetensors.index.json's metadata.total_size: *found false when
 * the index is absent or says nothing of it. */
static kvplan_status index_total(const char *dir, kvplan_opt_int *out,
                                 kvplan_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/model.safetensors.index.json", dir);
    *out = (kvplan_opt_int){0, false};
    bool special;
    FILE *f = kvplan__open_regular(path, &special);
    if (f == NULL && !special)
        return KVPLAN_OK; /* no index */
    KVPLAN__FAIL_IF(f == NULL, err, KVPLAN_PARSE, "--model-path",
                    "%.200s: not a regular file (a FIFO, a device or a "
                    "directory)",
                    path);
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0 || sb.st_size > (off_t)MAX_INDEX_BYTES) {
        fclose(f);
        return kvplan__fail(err, KVPLAN_PARSE, "--model-path",
                            "%.200s: larger than %u MiB; an index is far "
                            "smaller",
                            path, MAX_INDEX_BYTES >> 20);
    }
    json_t *index = json_loadf(f, 0, NULL);
    fclose(f);
    const json_t *total =
        json_object_get(json_object_get(index, "metadata"), "total_size");
    if (json_is_integer(total) && json_integer_value(total) > 0)
        *out = (kvplan_opt_int){(int64_t)json_integer_value(total), true};
    json_decref(index);
    KVPLAN__FAIL_IF(index == NULL, err, KVPLAN_PARSE, "--model-path",
                    "%.200s: not JSON", path);
    return KVPLAN_OK;
}

/* The weights of a model directory: model.safetensors.index.json's
 * metadata.total_size, else the sum over the *.safetensors headers. */
static kvplan_status directory_weights(const char *dir, kvplan_opt_int *out,
                                       kvplan_error *err)
{
    KVPLAN__TRY(index_total(dir, out, err));
    if (out->set)
        return KVPLAN_OK;
    DIR *d = opendir(dir);
    if (d == NULL)
        return KVPLAN_OK;
    char path[4096];
    struct dirent *e;
    kvplan_status st = KVPLAN_OK;
    while (st == KVPLAN_OK && (e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        static const char kept[] = ".safetensors.kvplan-header";
        size_t k = sizeof kept - 1;
        bool shard = n > 12 && strcmp(e->d_name + n - 12, ".safetensors") == 0;
        bool header = n > k && strcmp(e->d_name + n - k, kept) == 0;
        if (header) { /* only where the shard itself is not there */
            struct stat sb;
            snprintf(path, sizeof path, "%s/%.*s", dir,
                     (int)(n - sizeof ".kvplan-header" + 1), e->d_name);
            header = stat(path, &sb) != 0;
        }
        if (shard || header) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            int64_t b = 0;
            st = safetensors_bytes(path, header, &b, err);
            if (st == KVPLAN_OK &&
                __builtin_add_overflow(out->value, b, &out->value))
                st = kvplan__fail(err, KVPLAN_OVERFLOW, "--model-path",
                                  "%.200s: the shards' bytes exceed 64 bits",
                                  dir);
            out->set = true;
        }
    }
    closedir(d);
    return st;
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
    kvplan_opt_int w = {0, false};
    KVPLAN__TRY(directory_weights(dir, &w, err));
    KVPLAN__FAIL_IF(!w.set, err, KVPLAN_IO, "--model-path",
                    "%s: no model.safetensors.index.json and no "
                    "*.safetensors file",
                    dir);
    *bytes = w.value;
    return kvplan__ok(err);
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
