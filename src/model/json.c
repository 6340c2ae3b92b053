/*
 * json.c: config.json as sglang reads it: the view of hf_config and
 * hf_text_config (docs/sglang-rules.md §1.1), and typed readers that name
 * the JSON pointer of what they refuse. With the transformers config
 * classes' defaults for the keys a config may leave out.
 */
#include "model/model.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

kvplan_status kvplan__fail_at(kvplan_error *err, kvplan_status code,
                              const kvplan__view *v, bool in_text,
                              const char *key, const char *fmt, ...)
    KVPLAN_PRINTF(6, 7);

kvplan_status kvplan__fail_at(kvplan_error *err, kvplan_status code,
                              const kvplan__view *v, bool in_text,
                              const char *key, const char *fmt, ...)
{
    char field[128];
    snprintf(field, sizeof field, "%s/%s", in_text ? v->text_path : "", key);
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return kvplan__fail(err, code, field, "%s: %s", field, msg);
}

const json_t *kvplan__get(const json_t *obj, const char *key)
{
    const json_t *x = obj ? json_object_get(obj, key) : NULL;
    return (x == NULL || json_is_null(x)) ? NULL : x;
}

/* obj.key as kvplan__get, a non-finite number as absent, noted in the
 * view (`path` is obj's JSON pointer). */
static const json_t *finite_get(const kvplan__view *v, const json_t *obj,
                                const char *path, const char *key)
{
    const json_t *x = kvplan__get(obj, key);
    const char *s = json_string_value(x);
    size_t n = sizeof KVPLAN__NONFINITE - 1;
    if (s == NULL || strncmp(s, KVPLAN__NONFINITE, n) != 0)
        return x;
    if (v->nonfinite != NULL && v->nonfinite[0] == '\0')
        snprintf(v->nonfinite, KVPLAN__NONFINITE_SIZE,
                 "%.60s/%.40s: expected a finite number, got %.9s", path, key,
                 s + n);
    return NULL;
}

/* hf_text_config.key */
const json_t *kvplan__tget(const kvplan__view *v, const char *key)
{
    return finite_get(v, v->text, v->text_path, key);
}

/* hf_config.key, after the copy-up of the text config's attributes. */
const json_t *kvplan__hget(const kvplan__view *v, const char *key)
{
    const json_t *x = finite_get(v, v->top, "", key);
    return x ? x : finite_get(v, v->text, v->text_path, key);
}

const char *kvplan__tstr(const kvplan__view *v, const char *key)
{
    const json_t *x = kvplan__tget(v, key);
    return json_is_string(x) ? json_string_value(x) : NULL;
}

/*
 * Class defaults of the transformers config classes for keys a config may
 * leave out (only what kvplan reads). Gemma3's text config is the one in
 * the catalog that needs them (gemma-3-4b-it omits its heads).
 */
static bool class_default(const char *model_type, const char *key, int64_t *out)
{
    static const struct {
        const char *model_type, *key;
        int64_t value;
    } defaults[] = {
        {"gemma3_text", "num_attention_heads", 8},
        {"gemma3_text", "num_key_value_heads", 4},
        {"gemma3_text", "head_dim", 256},
        {"gemma3_text", "max_position_embeddings", 131072},
        {"gemma3_text", "sliding_window", 4096},
        {"gemma3_text", "num_hidden_layers", 26},
        {"gemma3_text", "hidden_size", 2304},
        {"gemma3_text", "vocab_size", 262208},
        {"gemma2", "sliding_window", 4096},
        {"gemma2", "max_position_embeddings", 8192},
        {"llama", "max_position_embeddings", 2048},
        {"mistral", "max_position_embeddings", 131072},
        {"mixtral", "max_position_embeddings", 131072},
        {"qwen2", "max_position_embeddings", 32768},
        {"qwen3", "max_position_embeddings", 32768},
        {"phi3", "max_position_embeddings", 4096},
        {"qwen3_next", "full_attention_interval", 4},
        {"qwen3_5_text", "full_attention_interval", 4},
        {"qwen3_5_moe_text", "full_attention_interval", 4},
        /* booleans as 0 / 1: the classes that tie their LM head to the
         * embedding unless the config says not (transformers' Gemma,
         * Gemma 2/3/4 and Cohere 1/2 configs; the census's "tied",
         * tests/data/reference/README.md) */
        {"gemma", "tie_word_embeddings", 1},
        {"gemma2", "tie_word_embeddings", 1},
        {"gemma3", "tie_word_embeddings", 1},
        {"gemma3_text", "tie_word_embeddings", 1},
        {"gemma4", "tie_word_embeddings", 1},
        {"gemma4_text", "tie_word_embeddings", 1},
        {"cohere", "tie_word_embeddings", 1},
        {"cohere2", "tie_word_embeddings", 1},
    };
    if (model_type == NULL)
        return false;
    for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++) {
        if (strcmp(defaults[i].model_type, model_type) == 0 &&
            strcmp(defaults[i].key, key) == 0) {
            *out = defaults[i].value;
            return true;
        }
    }
    return false;
}

/* A boolean attribute of hf_config (kvplan__hget): its value, else the
 * text config class's default, else false. */
bool kvplan__hbool(const kvplan__view *v, const char *key)
{
    const json_t *x = kvplan__hget(v, key);
    int64_t d = 0;
    if (json_is_boolean(x))
        return json_is_true(x);
    return class_default(v->model_type, key, &d) && d != 0;
}

/* An integer attribute of the text config: present (with its class default
 * when the file leaves it out) or not. A non-integer is an error. */
kvplan_status kvplan__tint(const kvplan__view *v, const char *key,
                           kvplan_opt_int *out)
{
    const json_t *x = kvplan__tget(v, key);
    out->set = false;
    if (x == NULL) {
        int64_t d;
        if (class_default(v->model_type, key, &d))
            *out = (kvplan_opt_int){d, true};
        return KVPLAN_OK;
    }
    if (json_is_real(x) && json_real_value(x) == floor(json_real_value(x)) &&
        fabs(json_real_value(x)) < 0x1p53) {
        *out = (kvplan_opt_int){(int64_t)json_real_value(x), true};
        return KVPLAN_OK;
    }
    if (!json_is_integer(x))
        return kvplan__fail_at(v->err, KVPLAN_PARSE, v, true, key,
                               "expected an integer");
    *out = (kvplan_opt_int){(int64_t)json_integer_value(x), true};
    return KVPLAN_OK;
}

kvplan_status kvplan__tint_required(const kvplan__view *v, const char *key,
                                    int64_t *out)
{
    kvplan_opt_int o;
    kvplan_status st = kvplan__tint(v, key, &o);
    if (st != KVPLAN_OK)
        return st;
    if (!o.set)
        return kvplan__fail_at(v->err, KVPLAN_PARSE, v, true, key,
                               "required, but absent");
    if (o.value < 0)
        return kvplan__fail_at(v->err, KVPLAN_PARSE, v, true, key,
                               "expected a non-negative integer, got %lld",
                               (long long)o.value);
    *out = o.value;
    return KVPLAN_OK;
}

/* A positive count: layers, heads. */
kvplan_status kvplan__tcount(const kvplan__view *v, const char *key,
                             int64_t *out)
{
    kvplan_status st = kvplan__tint_required(v, key, out);
    if (st == KVPLAN_OK && *out == 0)
        return kvplan__fail_at(v->err, KVPLAN_PARSE, v, true, key,
                               "expected a positive integer, got 0");
    return st;
}

/* An integer of the text config, or `fallback` when absent or invalid. */
int64_t kvplan__tint_or(const kvplan__view *v, const char *key,
                        int64_t fallback)
{
    kvplan_opt_int x;
    kvplan__view quiet = *v;
    quiet.err = NULL;
    if (kvplan__tint(&quiet, key, &x) != KVPLAN_OK || !x.set)
        return fallback;
    return x.value;
}

/* The first of `keys` (NULL-terminated) that the text config sets, as
 * sglang's "first non-None attribute among" rules read it; *key names it. */
kvplan_status kvplan__first_int(const kvplan__view *v, const char *const *keys,
                                kvplan_opt_int *out, const char **key)
{
    out->set = false;
    *key = NULL;
    for (; *keys != NULL; keys++) {
        kvplan_status st = kvplan__tint(v, *keys, out);
        if (st != KVPLAN_OK || out->set) {
            *key = *keys;
            return st;
        }
    }
    return KVPLAN_OK;
}

kvplan_status kvplan__alloc_ids(id_list *l, size_t n, kvplan_error *err)
{
    l->ids = n ? malloc(n * sizeof *l->ids) : NULL;
    l->count = n;
    if (n && l->ids == NULL)
        return kvplan__fail(err, KVPLAN_NOMEM, NULL,
                            "out of memory reading the model config");
    return KVPLAN_OK;
}

kvplan_status kvplan__ids_where(const kvplan__view *v, const json_t *arr,
                                const char *key, size_t limit,
                                kvplan__picker pick, const void *arg,
                                id_list *out)
{
    if (!json_is_array(arr))
        return kvplan__fail_at(v->err, KVPLAN_PARSE, v, true, key,
                               "expected an array");
    size_t n = json_array_size(arr), k = 0;
    if (n > limit)
        n = limit;
    kvplan_status st = kvplan__alloc_ids(out, n, v->err);
    if (st != KVPLAN_OK)
        return st;
    for (size_t i = 0; i < n; i++)
        if (pick(json_array_get(arr, i), arg))
            out->ids[k++] = (int64_t)i;
    out->count = k;
    return KVPLAN_OK;
}

bool kvplan__pick_string(const json_t *e, const void *arg)
{
    return json_is_string(e) && strcmp(json_string_value(e), arg) == 0;
}

bool kvplan__pick_int(const json_t *e, const void *arg)
{
    return json_is_integer(e) &&
           json_integer_value(e) == *(const json_int_t *)arg;
}

bool kvplan__pick_nonzero(const json_t *e, const void *arg)
{
    (void)arg;
    return json_is_integer(e) ? json_integer_value(e) != 0 : json_is_true(e);
}

bool kvplan__pick_zero(const json_t *e, const void *arg)
{
    (void)arg;
    return (json_is_integer(e) && json_integer_value(e) == 0) ||
           json_is_false(e);
}

char *kvplan__dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d != NULL)
        memcpy(d, s, n);
    return d;
}
