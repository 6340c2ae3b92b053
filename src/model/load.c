/*
 * load.c: a model from a path, a directory, JSON text or the built-in
 * catalog, and its release.
 */
#include "model/catalog.h"
#include "model/model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void free_ids(id_list *l)
{
    free(l->ids);
    l->ids = NULL;
    l->count = 0;
}

void kvplan__model_owned(kvplan_model *m, char **strs[KVPLAN__MODEL_STRINGS],
                         id_list *lists[KVPLAN__MODEL_ID_LISTS])
{
    char **s[KVPLAN__MODEL_STRINGS] = {&m->name, &m->hf_id, &m->arch,
                                       &m->model_type};
    id_list *l[KVPLAN__MODEL_ID_LISTS] = {
        &m->compress_ratios, &m->minimax_dense, &m->minimax_sparse,
        &m->minimax_k_only,  &m->full_ids,      &m->swa_ids,
        &m->mamba_full_ids,  &m->dsa_topk_ids,  &m->hf_swa_ids};
    memcpy(strs, s, sizeof s);
    memcpy(lists, l, sizeof l);
}

void kvplan_model_free(kvplan_model *m)
{
    if (m == NULL)
        return;
    char **strs[KVPLAN__MODEL_STRINGS];
    id_list *lists[KVPLAN__MODEL_ID_LISTS];
    kvplan__model_owned(m, strs, lists);
    for (size_t i = 0; i < KVPLAN__MODEL_STRINGS; i++)
        free(*strs[i]);
    for (size_t i = 0; i < KVPLAN__MODEL_ID_LISTS; i++)
        free_ids(lists[i]);
    kvplan__plan_cache_free(m->plan_cache);
    free(m);
}

/*
 * Python's json module, which reads config.json for transformers, accepts
 * the bare tokens NaN, Infinity and -Infinity (Nemotron-H configs hold
 * them in fields kvplan does not read); JSON and jansson do not. Outside
 * strings they become strings marked KVPLAN__NONFINITE, so that a field
 * kvplan reads (kvplan__tget, kvplan__hget) is refused naming its JSON
 * pointer rather than taken as absent. Returns a new buffer, or NULL
 * when there was nothing to replace (or no memory: then the parse reports
 * the token).
 */
static char *python_json_tokens(const char *text, size_t len, size_t *out_len,
                                bool *nomem)
{
    *nomem = false;
    static const char *const tokens[] = {"-Infinity", "Infinity", "NaN"};
    bool found = false, in_str = false;
    for (size_t i = 0; i < len && !found; i++) {
        if (in_str) {
            if (text[i] == '\\')
                i++;
            else if (text[i] == '"')
                in_str = false;
        } else if (text[i] == '"') {
            in_str = true;
        } else {
            found = text[i] == 'N' || text[i] == 'I';
        }
    }
    if (!found)
        return NULL;
    /* "NaN" grows to a string of 8 bytes, the most */
    char *b = len < SIZE_MAX / 3 ? malloc(len * 3 + 1) : NULL;
    if (b == NULL) {
        *nomem = true;
        return NULL;
    }
    size_t n = 0;
    in_str = false;
    for (size_t i = 0; i < len;) {
        char c = text[i];
        if (in_str) {
            b[n++] = c;
            if (c == '\\' && i + 1 < len)
                b[n++] = text[++i];
            else if (c == '"')
                in_str = false;
            i++;
            continue;
        }
        if (c == '"')
            in_str = true;
        size_t t = 0;
        for (; t < sizeof tokens / sizeof tokens[0]; t++) {
            size_t tl = strlen(tokens[t]);
            if (len - i >= tl && memcmp(text + i, tokens[t], tl) == 0) {
                size_t ml = sizeof KVPLAN__NONFINITE - 1;
                b[n++] = '"';
                memcpy(b + n, KVPLAN__NONFINITE, ml);
                memcpy(b + n + ml, tokens[t], tl);
                n += ml + tl;
                b[n++] = '"';
                i += tl;
                break;
            }
        }
        if (t == sizeof tokens / sizeof tokens[0])
            b[n++] = text[i++];
    }
    *out_len = n;
    return b;
}

/* Whether `hay` contains `needle` (lower case ASCII), any case. */
static bool contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; hay != NULL && *hay; hay++)
        if (kvplan__ascii_ieq_n(hay, n, needle) && strlen(hay) >= n)
            return true;
    return false;
}

/* ModelOpt checkpoints (NVIDIA's FP8 and NVFP4 releases) say how they are
 * quantized in hf_quant_config.json beside config.json, as sglang reads
 * it: a config without quantization_config takes it from there. */
static void modelopt_quant(json_t *root, const char *dir)
{
    if (dir == NULL || !json_is_object(root) ||
        json_object_get(root, "quantization_config") != NULL ||
        json_object_get(json_object_get(root, "text_config"),
                        "quantization_config") != NULL)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s/hf_quant_config.json", dir);
    bool special;
    FILE *f = kvplan__open_regular(path, &special);
    if (f == NULL)
        return;
    json_t *hf = json_loadf(f, 0, NULL);
    fclose(f);
    const json_t *q = json_object_get(hf, "quantization");
    const char *algo = json_string_value(json_object_get(q, "quant_algo"));
    const char *method = algo == NULL                       ? NULL
                         : kvplan__ascii_ieq(algo, "FP8")   ? "modelopt"
                         : kvplan__ascii_ieq(algo, "NVFP4") ? "modelopt_fp4"
                                                            : NULL;
    json_t *qc = method ? json_object() : NULL;
    if (qc != NULL) {
        json_object_set_new(qc, "quant_method", json_string(method));
        const json_t *ex = json_object_get(q, "exclude_modules");
        if (json_is_array(ex))
            json_object_set_new(qc, "exclude_modules",
                                json_incref((json_t *)ex));
        const json_t *kv = json_object_get(q, "kv_cache_quant_algo");
        if (json_is_string(kv))
            json_object_set_new(qc, "kv_cache_quant_algo",
                                json_incref((json_t *)kv));
        json_object_set_new(root, "quantization_config", qc);
    }
    json_decref(hf);
}

/* The JSON pointer of the value at byte `pos` of `text` ("/text_config/
 * num_hidden_layers", "/layer_types/3"), for a number jansson cannot hold:
 * the objects' keys and the arrays' indices walked up to it. */
static void pointer_at(const char *text, size_t pos, char *out, size_t size)
{
    enum { DEPTH = 16 };
    struct {
        bool array;
        long index;
        char key[40];
    } st[DEPTH];
    int depth = -1;
    bool in_str = false, want_key = false;
    size_t key_from = 0;
    for (size_t i = 0; i < pos && text[i] != '\0'; i++) {
        char c = text[i];
        if (in_str) {
            if (c == '\\')
                i++;
            else if (c == '"') {
                in_str = false;
                if (want_key && depth >= 0 && depth < DEPTH)
                    snprintf(st[depth].key, sizeof st[depth].key, "%.*s",
                             (int)(i - key_from), text + key_from);
            }
            continue;
        }
        if (c == '"') {
            in_str = true;
            key_from = i + 1;
        } else if (c == '{' || c == '[') {
            depth++;
            if (depth >= 0 && depth < DEPTH) {
                st[depth].array = c == '[';
                st[depth].index = 0;
                st[depth].key[0] = '\0';
            }
            want_key = c == '{';
        } else if (c == '}' || c == ']') {
            depth--;
            want_key = false;
        } else if (c == ':') {
            want_key = false;
        } else if (c == ',' && depth >= 0 && depth < DEPTH) {
            if (st[depth].array)
                st[depth].index++;
            else
                want_key = true;
        }
    }
    size_t n = 0;
    out[0] = '\0';
    for (int d = 0; d <= depth && d < DEPTH && n + 1 < size; d++)
        n += (size_t)(st[d].array
                          ? snprintf(out + n, size - n, "/%ld", st[d].index)
                          : snprintf(out + n, size - n, "/%s", st[d].key));
}

/* Whether a failed parse ran out of memory: jansson says so, or gives no
 * reason, or the memory its tree takes (several times the text) is not
 * there now. A parse error is then not the text's fault. */
static bool parse_ran_out(const json_error_t *jerr, size_t len)
{
    if (json_error_code(jerr) == json_error_out_of_memory ||
        jerr->text[0] == '\0')
        return true;
    void *probe = len < SIZE_MAX / 8 ? malloc(len * 8 + 1) : NULL;
    free(probe);
    return probe == NULL;
}

kvplan_status kvplan__config_parse(const char *text, size_t len,
                                   const char *origin, json_t **out,
                                   kvplan_error *err)
{
    json_error_t jerr;
    size_t fixed_len = 0;
    bool nomem = false;
    *out = NULL;
    char *fixed = python_json_tokens(text, len, &fixed_len, &nomem);
    if (nomem)
        return kvplan__fail(err, KVPLAN_NOMEM, NULL,
                            "out of memory reading config.json");
    /* duplicate keys: the last wins, as in Python's json */
    json_t *root = fixed ? json_loadb(fixed, fixed_len, 0, &jerr)
                         : json_loadb(text, len, 0, &jerr);
    char at[128] = ""; /* a number past 64 bits: where */
    if (root == NULL && json_error_code(&jerr) == json_error_numeric_overflow)
        pointer_at(fixed ? fixed : text, (size_t)jerr.position, at, sizeof at);
    free(fixed);
    if (root == NULL && parse_ran_out(&jerr, len))
        return kvplan__fail(err, KVPLAN_NOMEM, NULL,
                            "out of memory reading config.json");
    if (root == NULL && at[0] != '\0') {
        /* a number past 64 bits where counts go: named by its pointer */
        return kvplan__fail(err, KVPLAN_PARSE, at,
                            "%s: %s: expected a number that fits in 64 bits "
                            "(line %d, column %d)",
                            origin ? origin : "config", at, jerr.line,
                            jerr.column);
    }
    if (root == NULL) {
        kvplan__fail(err, KVPLAN_PARSE, "", "%s:%d:%d: %s",
                     origin ? origin : "config", jerr.line, jerr.column,
                     jerr.text);
        if (err != NULL) {
            err->line = jerr.line > 0 ? (uint32_t)jerr.line : 0;
            err->column = jerr.column > 0 ? (uint32_t)jerr.column : 0;
        }
        return KVPLAN_PARSE;
    }
    *out = root;
    return KVPLAN_OK;
}

kvplan_status kvplan__model_load_text(const char *text, size_t len,
                                      const char *origin, const char *name,
                                      const char *hf_id, const char *overrides,
                                      const char *dir, kvplan_model **out,
                                      kvplan_error *err)
{
    json_error_t jerr;
    if (len > KVPLAN__MAX_CONFIG_BYTES)
        return kvplan__fail(err, KVPLAN_PARSE, "--model-path",
                            "%.150s: %zu bytes; a config.json is far smaller "
                            "(kvplan reads at most 32 MiB from any source: a "
                            "2^20-layer config fits)",
                            origin ? origin : "config", len);
    json_t *root = NULL;
    KVPLAN__TRY(kvplan__config_parse(text, len, origin, &root, err));
    if (overrides != NULL) {
        /* config.update(overrides): top-level keys replaced */
        json_t *o = json_loads(overrides, 0, &jerr);
        if (o == NULL || !json_is_object(o) || !json_is_object(root) ||
            json_object_update(root, o) != 0) {
            json_decref(o);
            json_decref(root);
            return kvplan__fail(err, KVPLAN_PARSE, "--json-model-override-args",
                                "--json-model-override-args must be a JSON "
                                "object%s%s",
                                o == NULL ? ": " : "",
                                o == NULL ? jerr.text : "");
        }
        json_decref(o);
    }
    modelopt_quant(root, dir);
    kvplan_model *m = calloc(1, sizeof *m);
    kvplan_status st = KVPLAN_OK;
    if (m == NULL || (m->name = kvplan__dup_str(name ? name : "")) == NULL ||
        (m->hf_id = kvplan__dup_str(hf_id ? hf_id : "")) == NULL)
        st = kvplan__fail(err, KVPLAN_NOMEM, NULL, "out of memory");
    if (st == KVPLAN_OK)
        st = kvplan__derive(m, root, err);
    json_decref(root);
    if (st != KVPLAN_OK) {
        if (err != NULL && origin != NULL && err->message[0] != '\0' &&
            st != KVPLAN_NOMEM) {
            char msg[sizeof err->message];
            memcpy(msg, err->message, sizeof msg);
            snprintf(err->message, sizeof err->message, "%.150s: %.350s",
                     origin, msg);
        }
        kvplan_model_free(m);
        return st;
    }
    m->info.name = m->name;
    m->info.hf_id = m->hf_id;
    m->plan_cache = kvplan__plan_cache_new(); /* none: plans keep nothing */
    /* a checkpoint named quantized ("...-FP8") whose config does not say
     * so: the plan warns that it prices the weights unquantized */
    static const char *const quantized[] = {"fp8",  "fp4",  "awq",
                                            "gptq", "int4", "int8"};
    for (size_t i = 0; i < sizeof quantized / sizeof quantized[0]; i++)
        m->weights.name_says_quantized |= contains_ci(m->name, quantized[i]);
    *out = m;
    return kvplan__ok(err);
}

kvplan_status kvplan_model_load_json(const char *text, size_t len,
                                     const char *origin, kvplan_model **out,
                                     kvplan_error *err)
{
    if (out == NULL || text == NULL)
        return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, NULL,
                            "kvplan_model_load_json needs text and a place "
                            "for the model; got NULL");
    *out = NULL;
    return kvplan__model_load_text(text, len, origin, origin, "", NULL, NULL,
                                   out, err);
}

kvplan_status kvplan_model_load_json_override(const char *text, size_t len,
                                              const char *origin,
                                              const char *overrides,
                                              kvplan_model **out,
                                              kvplan_error *err)
{
    if (out == NULL || text == NULL)
        return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, NULL,
                            "kvplan_model_load_json_override needs text and "
                            "a place for the model; got NULL");
    *out = NULL;
    return kvplan__model_load_text(text, len, origin, origin, "", overrides,
                                   NULL, out, err);
}

static kvplan_status read_file(const char *path, char **buf, size_t *len,
                               kvplan_error *err)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) &&
        (size_t)sb.st_size > KVPLAN__MAX_CONFIG_BYTES)
        return kvplan__fail(err, KVPLAN_PARSE, "--model-path",
                            "%s: %lld bytes; a config.json is far smaller "
                            "(kvplan reads at most 32 MiB: a 2^20-layer "
                            "config fits)",
                            path, (long long)sb.st_size);
    bool special = false;
    FILE *f = kvplan__open_regular(path, &special);
    if (special)
        return kvplan__fail(err, KVPLAN_IO, "",
                            "%s: not a regular file (a FIFO, a device or a "
                            "directory); expected a config.json",
                            path);
    if (f == NULL) {
        /* strerror_r, not strerror: its buffer is the caller's (threads) */
        char why[128] = "cannot be opened";
        int code = errno;
        if (strerror_r(code, why, sizeof why) != 0)
            snprintf(why, sizeof why, "error %d", code);
        return kvplan__fail(err, KVPLAN_IO, "", "%s: %s", path, why);
    }
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    while (b != NULL) {
        n += fread(b + n, 1, cap - n, f);
        if (n < cap)
            break;
        if (cap >= ((size_t)1 << 30)) {
            free(b);
            fclose(f);
            return kvplan__fail(err, KVPLAN_PARSE, "",
                                "%s: larger than 1 GiB; not a config.json",
                                path);
        }
        char *g = realloc(b, cap * 2);
        if (g == NULL) {
            free(b);
            b = NULL;
            break;
        }
        b = g;
        cap *= 2;
    }
    bool bad = ferror(f) != 0;
    fclose(f);
    if (b == NULL)
        return kvplan__fail(err, KVPLAN_NOMEM, NULL, "out of memory reading %s",
                            path);
    if (bad) {
        free(b);
        return kvplan__fail(err, KVPLAN_IO, "", "%s: read error", path);
    }
    *buf = b;
    *len = n;
    return KVPLAN_OK;
}

/* Whether `name` is one of a comma-separated list, any case. */
static bool in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && kvplan__ascii_ieq_n(p, len, name))
            return true;
        p += len + (end != NULL);
    }
    return false;
}

/* The catalog's nearest name or id to `name`: a few edits away, or the one
 * whose id (or name) `name` begins or ends with ("DeepSeek-R1-0528-Qwen3",
 * "Qwen/Qwen3-235B-A22B-Instruct-2507"). NULL when none is near. */
static const char *nearest_entry(const char *name)
{
    const char *best = NULL;
    int d = 4;
    size_t best_len = 0;
    for (size_t i = 0; i < kvplan__catalog_count; i++) {
        const kvplan__catalog_entry *e = &kvplan__catalog[i];
        const char *ids[2] = {e->name, e->hf_id};
        for (int k = 0; k < 2; k++) {
            if (ids[k][0] == '\0')
                continue;
            int x = kvplan_edit_distance(name, ids[k]);
            size_t len = strlen(ids[k]);
            if (x < d) {
                d = x;
                best = ids[k];
            } else if (d == 4 && len > best_len && len >= 6 &&
                       kvplan__ascii_ieq_n(name, len, ids[k])) {
                best = ids[k]; /* a variant of this id */
                best_len = len;
            }
        }
    }
    return best;
}

kvplan_status kvplan_model_load(const char *name_or_path, kvplan_model **out,
                                kvplan_error *err)
{
    return kvplan_model_load_override(name_or_path, NULL, out, err);
}

kvplan_status kvplan__model_name_as(kvplan_model *m, const char *id,
                                    kvplan_error *err)
{
    char *name = kvplan__dup_str(id), *hf = kvplan__dup_str(id);
    if (name == NULL || hf == NULL) {
        free(name);
        free(hf);
        return kvplan__fail(err, KVPLAN_NOMEM, NULL, "out of memory");
    }
    free(m->name);
    free(m->hf_id);
    m->info.name = m->name = name;
    m->info.hf_id = m->hf_id = hf;
    return KVPLAN_OK;
}

const kvplan__catalog_entry *kvplan__catalog_entry_of(const char *name)
{
    /* the short name, the Hugging Face id or another id of the same
     * config, any case */
    for (size_t i = 0; name != NULL && i < kvplan__catalog_count; i++) {
        const kvplan__catalog_entry *e = &kvplan__catalog[i];
        if (kvplan__ascii_ieq(e->name, name) ||
            (e->hf_id[0] != '\0' && kvplan__ascii_ieq(e->hf_id, name)) ||
            in_list(e->aliases, name))
            return e;
    }
    return NULL;
}

kvplan_status kvplan_model_load_override(const char *name_or_path,
                                         const char *overrides,
                                         kvplan_model **out, kvplan_error *err)
{
    if (out == NULL || name_or_path == NULL)
        return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, NULL,
                            "kvplan_model_load needs a name or path and a "
                            "place for the model; got NULL");
    *out = NULL;
    /* a catalog name (no '/'): the catalog's, the working folder untouched
     * (it may not even be searchable); a path says so with a '/' */
    const kvplan__catalog_entry *e = kvplan__catalog_entry_of(name_or_path);
    struct stat sb;
    int found = e != NULL && strchr(name_or_path, '/') == NULL
                    ? -1
                    : stat(name_or_path, &sb);
    if (found != 0 && e == NULL && errno != ENOENT && errno != ENOTDIR) {
        /* a path that exists but cannot be followed (a symlink loop, no
         * permission): say why, not "no such file" */
        char why[128] = "cannot be read";
        int code = errno;
        if (strerror_r(code, why, sizeof why) != 0)
            snprintf(why, sizeof why, "error %d", code);
        return kvplan__fail(err, KVPLAN_IO, "--model-path", "%.300s: %s",
                            name_or_path, why);
    }
    if (found == 0) {
        char path[4096];
        if (S_ISDIR(sb.st_mode))
            snprintf(path, sizeof path, "%s/config.json", name_or_path);
        else
            snprintf(path, sizeof path, "%s", name_or_path);
        char *buf = NULL;
        size_t len = 0;
        kvplan_status st = read_file(path, &buf, &len, err);
        if (st != KVPLAN_OK)
            return st;
        st = kvplan__model_load_text(
            buf, len, path, name_or_path, "", overrides,
            S_ISDIR(sb.st_mode) ? name_or_path : NULL, out, err);
        free(buf);
        return st;
    }
    if (e != NULL && overrides == NULL)
        return kvplan__catalog_load(e, out, err); /* memo.c */
    if (e != NULL)
        return kvplan__model_load_text((const char *)e->json, e->json_size,
                                       e->name, e->name, e->hf_id, overrides,
                                       NULL, out, err);
    const char *near = nearest_entry(name_or_path);
    return kvplan__fail(err, KVPLAN_IO, "--model-path",
                        "%s: no such file or directory, and not a model of "
                        "the built-in catalog%s%s%s (kvplan --list-models "
                        "lists them)",
                        name_or_path, near ? "; did you mean " : "",
                        near ? near : "", near ? "?" : "");
}

const kvplan_model_info *kvplan_model_get_info(const kvplan_model *model)
{
    return model ? &model->info : NULL;
}

const char *kvplan_catalog_name(size_t index)
{
    return index < kvplan__catalog_count ? kvplan__catalog[index].name : NULL;
}

const char *kvplan_catalog_hf_id(size_t index)
{
    return index < kvplan__catalog_count ? kvplan__catalog[index].hf_id : NULL;
}
