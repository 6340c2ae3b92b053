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

/* Adds a tensor's bytes to the summary, by dtype. */
static void count_dtype(kvplan__weights_summary *s, const char *dtype,
                        int64_t bytes)
{
    size_t i = 0;
    const char *name = dtype != NULL ? dtype : "?";
    while (i < s->num_dtypes && strcmp(s->by_dtype[i].name, name) != 0)
        i++;
    if (i == s->num_dtypes) {
        if (i == KVPLAN__MAX_DTYPES)
            i--, name = "other"; /* the last row holds the rest */
        else
            s->num_dtypes++;
        snprintf(s->by_dtype[i].name, sizeof s->by_dtype[i].name, "%s", name);
    }
    s->by_dtype[i].bytes += bytes;
}

/* One tensor of shard `path`: its data_offsets within the data section of
 * `data` bytes, cross-checked against dtype x shape. Adds its bytes to
 * the summary. */
static kvplan_status add_tensor(const char *path, const char *name,
                                const json_t *t, int64_t data,
                                kvplan__weights_summary *s, kvplan_error *err)
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
    const char *dtype = json_string_value(json_object_get(t, "dtype"));
    int64_t elem = dtype_bytes(dtype);
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
    KVPLAN__FAIL_IF(__builtin_add_overflow(s->bytes, span, &s->bytes), err,
                    KVPLAN_OVERFLOW, "--model-path",
                    "%.200s: its tensors' bytes exceed 64 bits", path);
    s->tensors++;
    count_dtype(s, dtype, span);
    return KVPLAN_OK;
}

/* The tensors of one .safetensors file, from its header alone: an 8-byte
 * little-endian length, then a JSON object of tensors with dtype, shape
 * and data_offsets. Every figure is checked against the file; a header
 * kept alone (SHARD.kvplan-header, what kvplan_hub_fetch reads of a shard)
 * has no data to check the offsets against. */
static kvplan_status safetensors_bytes(const char *path, bool header_only,
                                       kvplan__weights_summary *s,
                                       kvplan_error *err)
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
    int64_t data = header_only ? INT64_MAX : size - 8 - (int64_t)n;
    kvplan_status st = KVPLAN_OK;
    const char *key;
    json_t *t;
    json_object_foreach(h, key, t)
    {
        if (st == KVPLAN_OK && strcmp(key, "__metadata__") != 0)
            st = add_tensor(path, key, t, data, s, err);
    }
    json_decref(h);
    s->shards++;
    return st;
}

/* A JSON file of the folder, parsed: *out NULL when absent. */
static kvplan_status read_json(const char *path, size_t max, json_t **out,
                               kvplan_error *err)
{
    *out = NULL;
    bool special;
    FILE *f = kvplan__open_regular(path, &special);
    if (f == NULL && !special)
        return KVPLAN_OK;
    KVPLAN__FAIL_IF(f == NULL, err, KVPLAN_PARSE, "--model-path",
                    "%.200s: not a regular file (a FIFO, a device or a "
                    "directory)",
                    path);
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0 || sb.st_size > (off_t)max) {
        fclose(f);
        return kvplan__fail(err, KVPLAN_PARSE, "--model-path",
                            "%.200s: larger than %zu MiB; such a file is far "
                            "smaller",
                            path, max >> 20);
    }
    *out = json_loadf(f, 0, NULL);
    fclose(f);
    KVPLAN__FAIL_IF(*out == NULL, err, KVPLAN_PARSE, "--model-path",
                    "%.200s: not JSON", path);
    return KVPLAN_OK;
}

/* One shard of the folder, as itself or as the header kvplan kept. */
static kvplan_status add_shard(const char *dir, const char *name,
                               kvplan__weights_summary *s, bool *missing,
                               kvplan_error *err)
{
    char path[4400];
    struct stat sb;
    *missing = false;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (stat(path, &sb) == 0)
        return safetensors_bytes(path, false, s, err);
    snprintf(path, sizeof path, "%s/%s.kvplan-header", dir, name);
    if (stat(path, &sb) == 0)
        return safetensors_bytes(path, true, s, err);
    *missing = true;
    return KVPLAN_OK;
}

/* The shards model.safetensors.index.json names, each once. */
static kvplan_status indexed(const char *dir, const json_t *index,
                             kvplan__weights_summary *s, kvplan_error *err)
{
    const json_t *map = json_object_get(index, "weight_map");
    const json_t *total =
        json_object_get(json_object_get(index, "metadata"), "total_size");
    bool has_total = json_is_integer(total) && json_integer_value(total) > 0;
    if (!json_is_object(map) && has_total) { /* the figure alone */
        s->bytes = (int64_t)json_integer_value(total);
        s->from_index = true;
        return KVPLAN_OK;
    }
    KVPLAN__FAIL_IF(!json_is_object(map), err, KVPLAN_PARSE, "--model-path",
                    "%.200s/model.safetensors.index.json: no weight_map object",
                    dir);
    json_t *seen = json_object();
    KVPLAN__FAIL_IF(seen == NULL, err, KVPLAN_NOMEM, NULL, "out of memory");
    const char *key, *first_missing = NULL;
    const json_t *v;
    int64_t missing = 0, named = 0;
    kvplan_status st = KVPLAN_OK;
    json_object_foreach((json_t *)map, key, v)
    {
        const char *name = json_string_value(v);
        if (st != KVPLAN_OK || name == NULL || strchr(name, '/') != NULL ||
            json_object_get(seen, name) != NULL)
            continue;
        json_object_set_new(seen, name, json_true());
        named++;
        bool gone;
        st = add_shard(dir, name, s, &gone, err);
        if (gone && missing++ == 0)
            first_missing = name;
    }
    if (st == KVPLAN_OK && missing == named && has_total) {
        /* the index alone (a download of the small files): its figure */
        s->bytes = (int64_t)json_integer_value(total);
        s->from_index = true;
    } else if (st == KVPLAN_OK && missing > 0) {
        st = kvplan__fail(err, KVPLAN_PARSE, "--model-path",
                          "%.200s: the index names %lld shards and %lld are "
                          "not in the folder (%.100s first): an unfinished "
                          "download; its headers are not all there to measure",
                          dir, (long long)named, (long long)missing,
                          first_missing);
    }
    json_decref(seen);
    return st;
}

/* The weights of a model directory from its headers (see budget.h). */
kvplan_status kvplan__weights_measure(const char *dir,
                                      kvplan__weights_summary *s,
                                      kvplan_error *err)
{
    memset(s, 0, sizeof *s);
    char path[4400];
    json_t *index;
    snprintf(path, sizeof path, "%s/model.safetensors.index.json", dir);
    KVPLAN__TRY(read_json(path, MAX_INDEX_BYTES, &index, err));
    if (index != NULL) {
        kvplan_status st = indexed(dir, index, s, err);
        json_decref(index);
        return st;
    }
    DIR *d = opendir(dir);
    KVPLAN__FAIL_IF(d == NULL, err, KVPLAN_IO, "--model-path",
                    "%s: not a directory", dir);
    struct dirent *e;
    kvplan_status st = KVPLAN_OK;
    bool any = false;
    while (st == KVPLAN_OK && (e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        static const char kept[] = ".safetensors.kvplan-header";
        size_t k = sizeof kept - 1;
        bool shard = n > 12 && strcmp(e->d_name + n - 12, ".safetensors") == 0;
        bool header = n > k && strcmp(e->d_name + n - k, kept) == 0;
        struct stat sb;
        snprintf(path, sizeof path, "%s/%.*s", dir,
                 (int)(header ? n - (sizeof ".kvplan-header" - 1) : n),
                 e->d_name);
        if (header && stat(path, &sb) == 0)
            continue; /* the shard itself is there */
        if (shard || header) {
            any = true;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            st = safetensors_bytes(path, header, s, err);
        }
    }
    closedir(d);
    KVPLAN__FAIL_IF(st == KVPLAN_OK && !any, err, KVPLAN_IO, "--model-path",
                    "%s: no model.safetensors.index.json and no "
                    "*.safetensors file",
                    dir);
    return st;
}

char *kvplan__weights_summary_json(const kvplan__weights_summary *s,
                                   const char *commit)
{
    json_t *by = json_object();
    for (size_t i = 0; by != NULL && i < s->num_dtypes; i++)
        json_object_set_new(by, s->by_dtype[i].name,
                            json_integer(s->by_dtype[i].bytes));
    json_t *doc = json_pack(
        "{s:i, s:s, s:{s:I, s:I, s:I, s:b, s:o}}", "kvplan_snapshot", 1,
        "commit", commit != NULL ? commit : "", "weights", "bytes",
        (json_int_t)s->bytes, "shards", (json_int_t)s->shards, "tensors",
        (json_int_t)s->tensors, "from_index", s->from_index, "by_dtype", by);
    char *text = doc != NULL ? json_dumps(doc, JSON_COMPACT) : NULL;
    json_decref(doc);
    return text;
}

/* The weights kvplan_hub_fetch summed when it kept the snapshot: false
 * when the folder has no such summary (any other folder). */
static bool summarized(const char *dir, int64_t *bytes)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/.kvplan-complete", dir);
    json_t *doc = NULL;
    if (read_json(path, 1u << 20, &doc, NULL) != KVPLAN_OK || doc == NULL)
        return false;
    const json_t *b = json_object_get(json_object_get(doc, "weights"), "bytes");
    bool ok =
        json_integer_value(json_object_get(doc, "kvplan_snapshot")) == 1 &&
        json_is_integer(b) && json_integer_value(b) >= 0;
    if (ok)
        *bytes = (int64_t)json_integer_value(b);
    json_decref(doc);
    return ok;
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
    if (summarized(dir, bytes))
        return kvplan__ok(err);
    kvplan__weights_summary s;
    KVPLAN__TRY(kvplan__weights_measure(dir, &s, err));
    *bytes = s.bytes;
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
