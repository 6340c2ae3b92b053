/*
 * scenario.c: the golden schema in and out (see scenario.h).
 *
 * Reading is strict about types (an integer field holding 1.5 or "16" is
 * refused with its JSON pointer) and lenient about absence: an absent or
 * null field takes the schema's default, as the reference oracle reads it.
 * Environment knobs may be typed values or strings; strings are parsed as
 * sglang parses the variables (docs/sglang-rules.md §2.11).
 */
#include "json/scenario.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Typed readers                                                             */
/* ------------------------------------------------------------------------ */

/* Copies a JSON pointer into err->field, cut to fit. */
static void set_field(kvplan_error *err, const char *path)
{
    size_t n = strlen(path);
    if (n >= sizeof err->field)
        n = sizeof err->field - 1;
    memcpy(err->field, path, n);
    err->field[n] = '\0';
}

static kvplan_status type_error(kvplan_error *err, const char *path,
                                const char *expected, const json_t *v)
{
    static const char *const names[] = {"an object",  "an array", "a string",
                                        "an integer", "a real",   "true",
                                        "false",      "null"};
    const char *got = names[json_typeof(v)];
    kvplan_status st = KVPLAN_PARSE;
    if (err != NULL) {
        memset(err, 0, sizeof *err);
        err->code = st;
        set_field(err, path);
        snprintf(err->message, sizeof err->message, "%s: expected %s, got %s",
                 path, expected, got);
    }
    return st;
}

static kvplan_status value_error(kvplan_error *err, const char *path,
                                 const char *message)
{
    if (err != NULL) {
        memset(err, 0, sizeof *err);
        err->code = KVPLAN_PARSE;
        set_field(err, path);
        snprintf(err->message, sizeof err->message, "%s: %s", path, message);
    }
    return KVPLAN_PARSE;
}

/* "/section/key" into buf. */
static const char *pointer(char *buf, size_t size, const char *section,
                           const char *key)
{
    snprintf(buf, size, "%s/%s", section, key);
    return buf;
}

typedef struct reader {
    const json_t *obj; /* the section; may be NULL */
    const char *section;
    kvplan_error *err;
    kvplan_status st; /* first failure, sticky */
    char path[160];
} reader;

static const json_t *field(reader *r, const char *key)
{
    if (r->st != KVPLAN_OK || r->obj == NULL)
        return NULL;
    const json_t *v = json_object_get(r->obj, key);
    if (v == NULL || json_is_null(v))
        return NULL;
    pointer(r->path, sizeof r->path, r->section, key);
    return v;
}

static void read_opt_int(reader *r, const char *key, kvplan_opt_int *out)
{
    const json_t *v = field(r, key);
    if (v == NULL)
        return;
    if (!json_is_integer(v)) {
        r->st = type_error(r->err, r->path, "an integer", v);
        return;
    }
    *out = (kvplan_opt_int){(int64_t)json_integer_value(v), true};
}

static void read_int(reader *r, const char *key, int64_t *out)
{
    kvplan_opt_int v = {0, false};
    read_opt_int(r, key, &v);
    if (v.set)
        *out = v.value;
}

static void read_required_int(reader *r, const char *key, int64_t *out)
{
    if (r->st == KVPLAN_OK &&
        (r->obj == NULL || json_object_get(r->obj, key) == NULL ||
         json_is_null(json_object_get(r->obj, key)))) {
        pointer(r->path, sizeof r->path, r->section, key);
        r->st = value_error(r->err, r->path, "required, but absent");
        return;
    }
    read_int(r, key, out);
}

static void read_bool(reader *r, const char *key, bool *out)
{
    const json_t *v = field(r, key);
    if (v == NULL)
        return;
    if (!json_is_boolean(v)) {
        r->st = type_error(r->err, r->path, "true or false", v);
        return;
    }
    *out = json_is_true(v);
}

static void read_number(reader *r, const char *key, double *out)
{
    const json_t *v = field(r, key);
    if (v == NULL)
        return;
    if (!json_is_number(v)) {
        r->st = type_error(r->err, r->path, "a number", v);
        return;
    }
    *out = json_number_value(v);
}

static const char *read_string(reader *r, const char *key)
{
    const json_t *v = field(r, key);
    if (v == NULL)
        return NULL;
    if (!json_is_string(v)) {
        r->st = type_error(r->err, r->path, "a string", v);
        return NULL;
    }
    return json_string_value(v);
}

static void read_ids(reader *r, kvplan__scenario *s, const char *key,
                     kvplan_ids *out, bool *present)
{
    const json_t *v = field(r, key);
    if (v == NULL)
        return;
    if (!json_is_array(v)) {
        r->st = type_error(r->err, r->path, "an array of integers", v);
        return;
    }
    size_t n = json_array_size(v);
    int64_t *ids = NULL;
    if (n > 0) {
        if (s->num_lists == sizeof s->lists / sizeof s->lists[0] ||
            (ids = malloc(n * sizeof *ids)) == NULL) {
            r->st = KVPLAN_NOMEM;
            if (r->err != NULL) {
                memset(r->err, 0, sizeof *r->err);
                r->err->code = KVPLAN_NOMEM;
                snprintf(r->err->message, sizeof r->err->message,
                         "out of memory reading %s", r->path);
            }
            return;
        }
        s->lists[s->num_lists++] = ids;
    }
    for (size_t i = 0; i < n; i++) {
        const json_t *x = json_array_get(v, i);
        if (!json_is_integer(x)) {
            char path[200];
            snprintf(path, sizeof path, "%s/%zu", r->path, i);
            r->st = type_error(r->err, path, "an integer", x);
            return;
        }
        ids[i] = (int64_t)json_integer_value(x);
    }
    *out = (kvplan_ids){ids, n};
    if (present != NULL)
        *present = true;
}

static void read_dtype(reader *r, const char *key, kvplan_dtype *out)
{
    const char *name = read_string(r, key);
    if (name == NULL)
        return;
    kvplan_dtype d = kvplan_dtype_from_name(name);
    if (d == KVPLAN_DTYPE_UNSET || d == KVPLAN_DTYPE_UINT8) {
        r->st = value_error(r->err, r->path,
                            "expected one of bfloat16, float16, float32, "
                            "float8_e4m3fn, float8_e5m2, float4_e2m1fn_x2");
        return;
    }
    *out = d;
}

/* ------------------------------------------------------------------------ */
/* Environment strings, as sglang's envs parse them                          */
/* ------------------------------------------------------------------------ */

/* EnvBool, for a typed value or a string. */
static void read_env_bool(reader *r, const char *key, bool *out)
{
    const json_t *v = field(r, key);
    if (v == NULL)
        return;
    if (json_is_boolean(v))
        *out = json_is_true(v);
    else if (json_is_integer(v))
        *out = json_integer_value(v) != 0;
    else if (json_is_string(v))
        *out =
            kvplan_env_bool(json_string_value(v), json_string_length(v), *out);
    else
        r->st = type_error(r->err, r->path, "a boolean or a string", v);
}

/* EnvInt, for a typed value or a string. */
static void read_env_int(reader *r, const char *key, int64_t *out)
{
    const json_t *v = field(r, key);
    if (v == NULL)
        return;
    if (json_is_integer(v))
        *out = (int64_t)json_integer_value(v);
    else if (json_is_boolean(v))
        *out = json_is_true(v);
    else if (json_is_string(v))
        *out =
            kvplan_env_int(json_string_value(v), json_string_length(v), *out);
    else
        r->st = type_error(r->err, r->path, "an integer or a string", v);
}

/* ------------------------------------------------------------------------ */
/* The scenario                                                              */
/* ------------------------------------------------------------------------ */

void kvplan__scenario_free(kvplan__scenario *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->num_lists; i++)
        free(s->lists[i]);
    free(s->calls);
    free(s->state_dtype);
    memset(s, 0, sizeof *s);
}

static const json_t *section(const json_t *obj, const char *key,
                             kvplan_error *err, kvplan_status *st)
{
    const json_t *v = json_object_get(obj, key);
    if (v == NULL || json_is_null(v) || *st != KVPLAN_OK)
        return NULL;
    if (!json_is_object(v)) {
        char path[64];
        snprintf(path, sizeof path, "/%s", key);
        *st = type_error(err, path, "an object", v);
        return NULL;
    }
    return v;
}

static void read_runner(reader *r, kvplan__scenario *s)
{
    kvplan_rank *k = &s->rank;
    read_dtype(r, "kv_cache_dtype", &k->runner.kv_cache_dtype);
    if (r->st == KVPLAN_OK && k->runner.kv_cache_dtype == KVPLAN_DTYPE_UNSET)
        r->st = value_error(r->err, "/runner/kv_cache_dtype",
                            "required, but absent");
    read_dtype(r, "dtype", &k->runner.dtype);
    read_bool(r, "use_mla_backend", &k->runner.use_mla_backend);
    read_bool(r, "is_hybrid_swa", &k->runner.is_hybrid_swa);
    read_bool(r, "is_draft_worker", &k->runner.is_draft_worker);
    read_required_int(r, "start_layer", &k->runner.start_layer);
    read_required_int(r, "end_layer", &k->runner.end_layer);
    read_required_int(r, "num_effective_layers",
                      &k->runner.num_effective_layers);
    read_int(r, "pp_size", &k->runner.pp_size);
    read_int(r, "pp_rank", &k->runner.pp_rank);
    read_required_int(r, "page_size", &k->runner.page_size);
    read_int(r, "dp_size", &k->runner.dp_size);
    read_ids(r, s, "mambaish_full_attention_layer_ids",
             &k->runner.mambaish_full_attention_layer_ids,
             &k->runner.is_mambaish);
    const char *spec = read_string(r, "spec_algorithm");
    if (spec != NULL &&
        !kvplan_spec_algorithm_from_name(spec, &k->runner.spec_algorithm))
        r->st = value_error(r->err, r->path,
                            "expected one of none, eagle, eagle3, standalone, "
                            "dflash, dspark, ngram");
    read_opt_int(r, "eagle_draft_num_layers",
                 &k->runner.eagle_draft_num_layers);
    read_opt_int(r, "dflash_draft_num_layers",
                 &k->runner.dflash_draft_num_layers);
    read_opt_int(r, "sliding_window_size", &k->runner.sliding_window_size);
    read_bool(r, "enable_hisparse", &k->runner.enable_hisparse);
    read_number(r, "hisparse_host_to_device_ratio",
                &k->runner.hisparse_host_to_device_ratio);
}

static void read_model(reader *r, kvplan__scenario *s)
{
    kvplan_rank *k = &s->rank;
    read_required_int(r, "num_key_value_heads", &k->model.num_key_value_heads);
    read_opt_int(r, "swa_num_key_value_heads",
                 &k->model.swa_num_key_value_heads);
    read_opt_int(r, "head_dim", &k->model.head_dim);
    read_opt_int(r, "v_head_dim", &k->model.v_head_dim);
    read_opt_int(r, "swa_head_dim", &k->model.swa_head_dim);
    read_opt_int(r, "swa_v_head_dim", &k->model.swa_v_head_dim);
    read_opt_int(r, "kv_lora_rank", &k->model.kv_lora_rank);
    read_opt_int(r, "qk_rope_head_dim", &k->model.qk_rope_head_dim);
    read_opt_int(r, "qk_nope_head_dim", &k->model.qk_nope_head_dim);
    read_ids(r, s, "full_attention_layer_ids",
             &k->model.full_attention_layer_ids, NULL);
    read_ids(r, s, "swa_attention_layer_ids", &k->model.swa_attention_layer_ids,
             NULL);
    read_ids(r, s, "compress_ratios", &k->model.compress_ratios, NULL);
    read_opt_int(r, "window_size", &k->model.window_size);
    read_opt_int(r, "index_head_dim", &k->model.index_head_dim);
    read_opt_int(r, "context_len", &k->model.context_len);

    const json_t *hf = field(r, "hf_config");
    if (hf == NULL)
        return;
    if (!json_is_object(hf)) {
        r->st = type_error(r->err, r->path, "an object", hf);
        return;
    }
    reader h = {hf, "/model/hf_config", r->err, KVPLAN_OK, {0}};
    read_bool(&h, "is_deepseek_dsa", &k->model.hf_config.is_deepseek_dsa);
    read_opt_int(&h, "index_head_dim", &k->model.hf_config.index_head_dim);
    read_bool(&h, "is_deepseek_v4", &k->model.hf_config.is_deepseek_v4);
    const json_t *ms = field(&h, "minimax_sparse");
    if (ms != NULL) {
        if (!json_is_object(ms)) {
            h.st = type_error(h.err, h.path, "an object", ms);
        } else {
            struct kvplan_minimax_sparse *m =
                &k->model.hf_config.minimax_sparse;
            k->model.hf_config.is_minimax_sparse = true;
            reader mr = {
                ms, "/model/hf_config/minimax_sparse", r->err, KVPLAN_OK, {0}};
            read_ids(&mr, s, "dense_layer_ids", &m->dense_layer_ids, NULL);
            read_ids(&mr, s, "sparse_layer_ids", &m->sparse_layer_ids, NULL);
            read_ids(&mr, s, "disable_value_layer_ids",
                     &m->disable_value_layer_ids, NULL);
            read_opt_int(&mr, "sparse_index_dim", &m->sparse_index_dim);
            h.st = mr.st;
        }
    }
    r->st = h.st;
}

static void read_server_args(reader *r, kvplan__scenario *s)
{
    kvplan_rank *k = &s->rank;
    read_number(r, "swa_full_tokens_ratio",
                &k->server_args.swa_full_tokens_ratio);
    read_opt_int(r, "max_running_requests",
                 &k->server_args.max_running_requests);
    read_bool(r, "disable_radix_cache", &k->server_args.disable_radix_cache);
    read_opt_int(r, "chunked_prefill_size",
                 &k->server_args.chunked_prefill_size);
    read_opt_int(r, "speculative_num_steps",
                 &k->server_args.speculative_num_steps);
    read_opt_int(r, "speculative_eagle_topk",
                 &k->server_args.speculative_eagle_topk);
    read_opt_int(r, "speculative_num_draft_tokens",
                 &k->server_args.speculative_num_draft_tokens);
    read_opt_int(r, "max_speculative_num_draft_tokens",
                 &k->server_args.max_speculative_num_draft_tokens);
    read_bool(r, "disable_overlap_schedule",
              &k->server_args.disable_overlap_schedule);
    const char *mode = read_string(r, "disaggregation_mode");
    if (mode != NULL) {
        if (strcmp(mode, "null") == 0)
            k->server_args.disaggregation_mode = KVPLAN_DISAGG_NULL;
        else if (strcmp(mode, "prefill") == 0)
            k->server_args.disaggregation_mode = KVPLAN_DISAGG_PREFILL;
        else if (strcmp(mode, "decode") == 0)
            k->server_args.disaggregation_mode = KVPLAN_DISAGG_DECODE;
        else
            r->st = value_error(r->err, r->path,
                                "expected one of null, prefill, decode");
    }
    read_int(r, "disaggregation_decode_extra_slots",
             &k->server_args.disaggregation_decode_extra_slots);
    read_bool(r, "enable_dsa_cache_layer_split",
              &k->server_args.enable_dsa_cache_layer_split);
}

static void read_env(reader *r, kvplan__scenario *s)
{
    kvplan_rank *k = &s->rank;
    read_env_int(r, "SGLANG_SWA_EVICTION_INTERVAL",
                 &k->env.SGLANG_SWA_EVICTION_INTERVAL);
    const char *dt = read_string(r, "SGLANG_DSV4_COMPRESS_STATE_DTYPE");
    if (dt != NULL) {
        size_t n = strlen(dt) + 1;
        s->state_dtype = malloc(n);
        if (s->state_dtype == NULL) {
            r->st = KVPLAN_NOMEM;
            return;
        }
        memcpy(s->state_dtype, dt, n);
        k->env.SGLANG_DSV4_COMPRESS_STATE_DTYPE = s->state_dtype;
    }
    read_env_bool(r, "SGLANG_OPT_USE_ONLINE_COMPRESS",
                  &k->env.SGLANG_OPT_USE_ONLINE_COMPRESS);
    read_env_bool(r, "SGLANG_EXPERIMENTAL_ONLINE_C128_MTP",
                  &k->env.SGLANG_EXPERIMENTAL_ONLINE_C128_MTP);
}

static kvplan_status read_calls(const json_t *obj, kvplan__scenario *s,
                                kvplan_error *err)
{
    const json_t *calls = json_object_get(obj, "calls");
    if (calls == NULL)
        return value_error(err, "/calls", "required, but absent");
    if (!json_is_array(calls))
        return type_error(err, "/calls", "an array", calls);
    size_t n = json_array_size(calls);
    s->calls = calloc(n > 0 ? n : 1, sizeof *s->calls);
    if (s->calls == NULL)
        return KVPLAN_NOMEM;
    for (size_t i = 0; i < n; i++) {
        const json_t *c = json_array_get(calls, i);
        char base[32];
        snprintf(base, sizeof base, "/calls/%zu", i);
        if (!json_is_object(c))
            return type_error(err, base, "an object", c);
        reader r = {c, base, err, KVPLAN_OK, {0}};
        const char *entry = read_string(&r, "entry");
        if (r.st != KVPLAN_OK)
            return r.st;
        kvplan__call *call = &s->calls[i];
        if (entry != NULL && strcmp(entry, "available_bytes") == 0) {
            call->entry = KVPLAN__CALL_AVAILABLE_BYTES;
        } else if (entry != NULL && strcmp(entry, "max_tokens") == 0) {
            call->entry = KVPLAN__CALL_MAX_TOKENS;
        } else if (entry != NULL && strcmp(entry, "finalize") == 0) {
            call->entry = KVPLAN__CALL_FINALIZE;
            read_required_int(&r, "max_running_requests", &call->value);
            if (r.st != KVPLAN_OK)
                return r.st;
            continue;
        } else {
            char path[48];
            snprintf(path, sizeof path, "%s/entry", base);
            return value_error(err, path,
                               "expected one of available_bytes, max_tokens, "
                               "finalize");
        }
        read_required_int(&r, "value", &call->value);
        read_required_int(&r, "page_size", &call->page_size);
        if (r.st != KVPLAN_OK)
            return r.st;
    }
    s->num_calls = n;
    return KVPLAN_OK;
}

kvplan_status kvplan__scenario_parse(const json_t *obj, kvplan__scenario *out,
                                     kvplan_error *err)
{
    memset(out, 0, sizeof *out);
    if (!json_is_object(obj))
        return type_error(err, "", "a scenario object", obj);
    kvplan_rank_init(&out->rank);
    kvplan_status st = KVPLAN_OK;
    const json_t *runner = section(obj, "runner", err, &st);
    if (st == KVPLAN_OK && runner == NULL)
        st = value_error(err, "/runner", "required, but absent");
    const json_t *parallel = section(obj, "parallel", err, &st);
    const json_t *model = section(obj, "model", err, &st);
    if (st == KVPLAN_OK && model == NULL)
        st = value_error(err, "/model", "required, but absent");
    const json_t *server_args = section(obj, "server_args", err, &st);
    const json_t *env = section(obj, "env", err, &st);

    reader r = {runner, "/runner", err, st, {0}};
    read_runner(&r, out);
    r = (reader){parallel, "/parallel", err, r.st, {0}};
    read_int(&r, "attn_tp_size", &out->rank.parallel.attn_tp_size);
    read_int(&r, "attn_cp_size", &out->rank.parallel.attn_cp_size);
    r = (reader){model, "/model", err, r.st, {0}};
    read_model(&r, out);
    r = (reader){server_args, "/server_args", err, r.st, {0}};
    read_server_args(&r, out);
    r = (reader){env, "/env", err, r.st, {0}};
    read_env(&r, out);
    st = r.st;
    if (st == KVPLAN_OK)
        st = read_calls(obj, out, err);
    if (st != KVPLAN_OK) {
        if (st == KVPLAN_NOMEM && err != NULL && err->message[0] == '\0') {
            err->code = st;
            snprintf(err->message, sizeof err->message, "out of memory");
        }
        kvplan__scenario_free(out);
    }
    return st;
}
