/*
 * flags.c: one table of options, sglang's names first (see flags.h).
 *
 * Each entry names a flag, whether it takes a value, and how the value is
 * stored; the parser, the errors and the help text all come from it.
 * Values follow sglang's argparse: "--flag value" or "--flag=value",
 * store_true flags take none.
 */
#include "flags.h"
#include "scenario.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum kind {
    K_INT,    /* an int64 option (kvplan_opt_int) */
    K_INT64,  /* an int64 field with a default */
    K_DOUBLE, /* kvplan_opt_double */
    K_TRUE,   /* store_true */
    K_CHOICE, /* a word from a list, handled by name */
    K_TEXT    /* kept as given */
} kind;

typedef struct flag {
    const char *name;
    const char *alias;
    kind kind;
    size_t offset; /* into cli_args */
} flag;

#define AT(field) offsetof(cli_args, field)

static const flag flags[] = {
    {"--model-path", "--model", K_TEXT, AT(model_path)},
    {"--tp-size", "--tp", K_INT64, AT(options.server.tp_size)},
    {"--pp-size", "--pp", K_INT64, AT(options.server.pp_size)},
    {"--dp-size", "--dp", K_INT64, AT(options.server.dp_size)},
    {"--enable-dp-attention", NULL, K_TRUE,
     AT(options.server.enable_dp_attention)},
    {"--page-size", NULL, K_INT64, AT(options.server.page_size)},
    {"--kv-cache-dtype", NULL, K_CHOICE, 0},
    {"--dtype", NULL, K_CHOICE, 0},
    {"--mem-fraction-static", NULL, K_DOUBLE,
     AT(options.mem_fraction_static)},
    {"--max-total-tokens", NULL, K_INT, AT(options.max_total_tokens)},
    {"--max-running-requests", NULL, K_INT,
     AT(options.server.max_running_requests)},
    {"--context-length", NULL, K_INT, AT(options.server.context_length)},
    {"--chunked-prefill-size", NULL, K_INT,
     AT(options.server.chunked_prefill_size)},
    {"--max-prefill-tokens", NULL, K_INT, AT(options.max_prefill_tokens)},
    {"--swa-full-tokens-ratio", NULL, K_DOUBLE,
     AT(options.server.swa_full_tokens_ratio)},
    {"--disable-radix-cache", NULL, K_TRUE,
     AT(options.server.disable_radix_cache)},
    {"--disable-overlap-schedule", NULL, K_TRUE,
     AT(options.server.disable_overlap_schedule)},
    {"--disable-cuda-graph", NULL, K_TRUE, AT(options.disable_cuda_graph)},
    {"--cuda-graph-max-bs", "--cuda-graph-max-bs-decode", K_INT,
     AT(options.cuda_graph_max_bs)},
    {"--speculative-algorithm", NULL, K_CHOICE, 0},
    {"--speculative-num-steps", NULL, K_INT,
     AT(options.server.speculative_num_steps)},
    {"--speculative-eagle-topk", NULL, K_INT,
     AT(options.server.speculative_eagle_topk)},
    {"--speculative-num-draft-tokens", NULL, K_INT,
     AT(options.server.speculative_num_draft_tokens)},
    {"--speculative-draft-model-path", NULL, K_TEXT, AT(draft_model_path)},
    {"--disaggregation-mode", NULL, K_CHOICE, 0},
    {"--disaggregation-decode-extra-slots", NULL, K_INT,
     AT(options.server.disaggregation_decode_extra_slots)},
    {"--disable-hybrid-swa-memory", NULL, K_TRUE,
     AT(options.server.disable_hybrid_swa_memory)},
    {"--enable-hisparse", NULL, K_TRUE, AT(options.server.enable_hisparse)},
    {"--hisparse-config", NULL, K_CHOICE, 0},
    {"--json-model-override-args", NULL, K_TEXT, AT(override_args)},
    {"--attention-backend", NULL, K_TEXT, AT(options.attention_backend)},
    {"--enable-dsa-cache-layer-split", NULL, K_TRUE,
     AT(options.server.enable_dsa_cache_layer_split)},
    /* kvplan's own */
    {"--gpu", NULL, K_CHOICE, 0},
    {"--gpu-memory", NULL, K_CHOICE, 0},
    {"--available-bytes", NULL, K_INT, AT(options.available_bytes)},
    {"--weight-bytes", NULL, K_INT, AT(options.weight_bytes)},
    {"--json", NULL, K_TRUE, AT(json)},
    {"--explain", NULL, K_TRUE, AT(explain)},
    {"--help", "-h", K_TRUE, AT(help)},
};

/* A usage error: `what` follows the flag's name. */
static kvplan_status usage(kvplan_error *err, const char *flag_name,
                           const char *what)
{
    memset(err, 0, sizeof *err);
    err->code = KVPLAN_INVALID_ARGUMENT;
    snprintf(err->field, sizeof err->field, "%.100s", flag_name);
    snprintf(err->message, sizeof err->message, "%.100s%s", flag_name, what);
    return KVPLAN_INVALID_ARGUMENT;
}

static kvplan_status bad(kvplan_error *err, const char *flag_name,
                         const char *expected, const char *got)
{
    memset(err, 0, sizeof *err);
    err->code = KVPLAN_PARSE;
    snprintf(err->field, sizeof err->field, "%.100s", flag_name);
    snprintf(err->message, sizeof err->message, "%s: expected %s, got '%.80s'",
             flag_name, expected, got);
    return KVPLAN_PARSE;
}

static bool parse_int(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (end == s || *end != '\0' || errno != 0)
        return false;
    *out = x;
    return true;
}

static bool parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || *end != '\0' || errno != 0 || !isfinite(x))
        return false;
    *out = x;
    return true;
}

kvplan_status cli_parse_size_mib(const char *text, const char *flag_name,
                                     double *mib, kvplan_error *err)
{
    static const struct {
        const char *unit;
        double mib;
    } units[] = {{"", 1.0},
                 {"B", 1.0 / 1048576},
                 {"KiB", 1.0 / 1024},
                 {"MiB", 1.0},
                 {"GiB", 1024.0},
                 {"TiB", 1048576.0},
                 {"KB", 1e3 / 1048576},
                 {"MB", 1e6 / 1048576},
                 {"GB", 1e9 / 1048576},
                 {"TB", 1e12 / 1048576}};
    char *end;
    errno = 0;
    double x = strtod(text, &end);
    if (end == text || errno != 0 || !isfinite(x) || x <= 0)
        return bad(err, flag_name, "a positive size such as 80GB or 81559MiB",
                   text);
    while (*end == ' ')
        end++;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(end, units[i].unit) == 0) {
            *mib = x * units[i].mib;
            if (!(*mib >= 1.0 && *mib <= 0x1p40)) /* 1 MiB to 1 EiB */
                return bad(err, flag_name,
                           "a GPU memory between 1 MiB and 1 EiB", text);
            return KVPLAN_OK;
        }
    }
    return bad(err, flag_name,
               "a size with one of the units B, KiB, MiB, GiB, TiB, KB, MB, "
               "GB, TB",
               text);
}

static kvplan_status choice(cli_args *cli, const char *name,
                            const char *v, kvplan_error *err)
{
    kvplan_server_args *s = &cli->options.server;
    if (strcmp(name, "--kv-cache-dtype") == 0) {
        static const struct {
            const char *word;
            kvplan_kv_cache_dtype_flag f;
        } words[] = {{"auto", KVPLAN_KV_AUTO},       {"fp8_e5m2", KVPLAN_KV_FP8_E5M2},
                     {"fp8_e4m3", KVPLAN_KV_FP8_E4M3}, {"bf16", KVPLAN_KV_BF16},
                     {"bfloat16", KVPLAN_KV_BF16},     {"fp4_e2m1", KVPLAN_KV_FP4_E2M1}};
        for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
            if (strcmp(words[i].word, v) == 0) {
                s->kv_cache_dtype = words[i].f;
                return KVPLAN_OK;
            }
        return bad(err, name,
                   "one of auto, fp8_e5m2, fp8_e4m3, bf16, bfloat16, fp4_e2m1",
                   v);
    }
    if (strcmp(name, "--dtype") == 0) {
        if (strcmp(v, "auto") == 0)
            s->dtype = KVPLAN_DT_AUTO;
        else if (strcmp(v, "half") == 0 || strcmp(v, "float16") == 0)
            s->dtype = KVPLAN_DT_FLOAT16;
        else if (strcmp(v, "bfloat16") == 0)
            s->dtype = KVPLAN_DT_BFLOAT16;
        else if (strcmp(v, "float") == 0 || strcmp(v, "float32") == 0)
            s->dtype = KVPLAN_DT_FLOAT32;
        else
            return bad(err, name,
                       "one of auto, half, float16, bfloat16, float, float32",
                       v);
        return KVPLAN_OK;
    }
    if (strcmp(name, "--speculative-algorithm") == 0) {
        /* sglang upper-cases it; NEXTN is EAGLE */
        char up[32];
        size_t n = strlen(v);
        if (n >= sizeof up)
            n = sizeof up - 1;
        for (size_t i = 0; i < n; i++)
            up[i] = (char)tolower((unsigned char)v[i]);
        up[n] = '\0';
        if (strcmp(up, "nextn") == 0 || strcmp(up, "frozen_kv_mtp") == 0)
            snprintf(up, sizeof up, "eagle");
        if (!kvplan_spec_algorithm_from_name(up, &s->speculative_algorithm) ||
            s->speculative_algorithm == KVPLAN_SPEC_NONE)
            return bad(err, name,
                       "one of EAGLE, EAGLE3, NEXTN, STANDALONE, DFLASH, "
                       "DSPARK, NGRAM",
                       v);
        return KVPLAN_OK;
    }
    if (strcmp(name, "--disaggregation-mode") == 0) {
        if (strcmp(v, "null") == 0)
            s->disaggregation_mode = KVPLAN_DISAGG_NULL;
        else if (strcmp(v, "prefill") == 0)
            s->disaggregation_mode = KVPLAN_DISAGG_PREFILL;
        else if (strcmp(v, "decode") == 0)
            s->disaggregation_mode = KVPLAN_DISAGG_DECODE;
        else
            return bad(err, name, "one of null, prefill, decode", v);
        return KVPLAN_OK;
    }
    if (strcmp(name, "--hisparse-config") == 0) {
        /* a JSON object; host_to_device_ratio defaults to 2 */
        json_error_t jerr;
        json_t *o = json_loads(v, 0, &jerr);
        const json_t *r = json_object_get(o, "host_to_device_ratio");
        if (!json_is_object(o) || (r != NULL && !json_is_number(r))) {
            json_decref(o);
            return bad(err, name,
                       "a JSON object such as {\"host_to_device_ratio\": 4}",
                       v);
        }
        if (r != NULL)
            s->hisparse_host_to_device_ratio = json_number_value(r);
        json_decref(o);
        return KVPLAN_OK;
    }
    if (strcmp(name, "--gpu-memory") == 0) {
        double mib;
        kvplan_status st = cli_parse_size_mib(v, name, &mib, err);
        if (st != KVPLAN_OK)
            return st;
        kvplan_gpu *g = &cli->options.gpu;
        if (!cli->options.gpu_set)
            kvplan_gpu_preset(KVPLAN_DEFAULT_GPU, g); /* sm90 unless --gpu says */
        snprintf(g->name, sizeof g->name, "custom");
        g->total_mib = mib;
        cli->options.gpu_set = true;
        cli->gpu_name = "custom";
        return KVPLAN_OK;
    }
    /* --gpu NAME | auto */
    kvplan_gpu g;
    if (strcmp(v, "auto") == 0) {
        kvplan_status st = kvplan_gpu_probe(&g, &cli->gpu_count, err);
        if (st != KVPLAN_OK)
            return st;
    } else if (!kvplan_gpu_preset(v, &g)) {
        char list[400] = "";
        kvplan_gpu p;
        for (size_t i = 0; kvplan_gpu_preset_at(i, &p); i++) {
            strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
            strncat(list, p.name, sizeof list - strlen(list) - 1);
        }
        strncat(list, ", auto", sizeof list - strlen(list) - 1);
        memset(err, 0, sizeof *err);
        err->code = KVPLAN_PARSE;
        snprintf(err->field, sizeof err->field, "--gpu");
        snprintf(err->message, sizeof err->message,
                 "--gpu: unknown GPU '%.60s'; expected one of %s", v, list);
        return KVPLAN_PARSE;
    }
    if (cli->options.gpu_set && cli->gpu_name != NULL &&
        strcmp(cli->gpu_name, "custom") == 0) {
        g.total_mib = cli->options.gpu.total_mib; /* --gpu-memory wins */
    }
    cli->options.gpu = g;
    cli->options.gpu_set = true;
    cli->gpu_name = cli->options.gpu.name;
    return KVPLAN_OK;
}

/* sglang's EnvBool of the process environment (scenario.c parses it). */
static bool env_bool(const char *name, bool fallback)
{
    const char *v = getenv(name);
    return v == NULL ? fallback : kvplan_env_bool(v, strlen(v), fallback);
}

static void read_environment(kvplan_server_args *s)
{
    s->SGLANG_PP_LAYER_PARTITION = getenv("SGLANG_PP_LAYER_PARTITION");
    s->SGLANG_DSV4_COMPRESS_STATE_DTYPE =
        getenv("SGLANG_DSV4_COMPRESS_STATE_DTYPE");
    s->SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN =
        env_bool("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN", false);
    s->SGLANG_OPT_USE_ONLINE_COMPRESS =
        env_bool("SGLANG_OPT_USE_ONLINE_COMPRESS", false);
    s->SGLANG_EXPERIMENTAL_ONLINE_C128_MTP =
        env_bool("SGLANG_EXPERIMENTAL_ONLINE_C128_MTP", false);
    const char *iv = getenv("SGLANG_SWA_EVICTION_INTERVAL");
    if (iv != NULL)
        s->SGLANG_SWA_EVICTION_INTERVAL = kvplan_env_int(
            iv, strlen(iv), s->SGLANG_SWA_EVICTION_INTERVAL);
}

kvplan_status cli_parse(int argc, char **argv, int first,
                                cli_args *cli, kvplan_error *err)
{
    memset(cli, 0, sizeof *cli);
    kvplan_plan_options_init(&cli->options);
    read_environment(&cli->options.server);
    for (int i = first; i < argc; i++) {
        const char *arg = argv[i];
        const char *eq = strchr(arg, '=');
        size_t name_len = eq ? (size_t)(eq - arg) : strlen(arg);
        const flag *f = NULL;
        for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++) {
            const char *names[2] = {flags[k].name, flags[k].alias};
            for (int j = 0; j < 2; j++)
                if (names[j] && strlen(names[j]) == name_len &&
                    strncmp(names[j], arg, name_len) == 0)
                    f = &flags[k];
        }
        if (f == NULL)
            return usage(err, arg,
                         arg[0] == '-' ? ": unknown option (see kvplan --help)"
                                       : ": unexpected argument (see kvplan "
                                         "--help)");
        const char *v = NULL;
        if (f->kind == K_TRUE) {
            if (eq)
                return usage(err, f->name, " takes no value");
            *(bool *)((char *)cli + f->offset) = true;
            continue;
        }
        if (eq) {
            v = eq + 1;
        } else if (i + 1 < argc) {
            v = argv[++i];
        } else {
            return usage(err, f->name, " needs a value");
        }
        void *field = (char *)cli + f->offset;
        int64_t x;
        double d;
        switch (f->kind) {
        case K_INT:
            if (!parse_int(v, &x) ||
                (x < 1 && strcmp(f->name, "--chunked-prefill-size") != 0 &&
                 strcmp(f->name, "--disaggregation-decode-extra-slots") != 0))
                return bad(err, f->name,
                           strcmp(f->name, "--chunked-prefill-size") == 0
                               ? "an integer"
                               : "a positive integer",
                           v);
            *(kvplan_opt_int *)field = (kvplan_opt_int){x, true};
            break;
        case K_INT64: /* sizes and counts: positive */
            if (!parse_int(v, &x) || x < 1)
                return bad(err, f->name, "a positive integer", v);
            *(int64_t *)field = x;
            break;
        case K_DOUBLE:
            if (!parse_double(v, &d))
                return bad(err, f->name, "a number", v);
            if (strcmp(f->name, "--mem-fraction-static") == 0 &&
                !(d > 0 && d < 1))
                return bad(err, f->name, "a fraction in (0, 1)", v);
            if (strcmp(f->name, "--swa-full-tokens-ratio") == 0 &&
                !(d > 0 && d <= 1))
                return bad(err, f->name, "a ratio in (0, 1]", v);
            *(kvplan_opt_double *)field = (kvplan_opt_double){d, true};
            break;
        case K_TEXT:
            *(const char **)field = v;
            break;
        case K_CHOICE: {
            kvplan_status st = choice(cli, f->name, v, err);
            if (st != KVPLAN_OK)
                return st;
            break;
        }
        case K_TRUE:
            break;
        }
    }
    cli->options.model_path = cli->model_path;
    return KVPLAN_OK;
}
