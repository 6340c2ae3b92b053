/*
 * flags.c: the parser of the one table of options (flag_table.c), its
 * errors and the environment sglang reads. Values follow sglang's argparse:
 * "--flag value" or "--flag=value"; store_true flags take none. The
 * library checks every value again (kvplan_plan_options_validate): the
 * bounds here only let the command say "expected ..." in its own words
 * before anything is loaded.
 */
#include "flags.h"

#include "cli.h"
#include "flag_table.h"
#include "sglang_flags.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NUM_FLAGS cli_num_flags

_Static_assert(sizeof(kvplan_kv_cache_dtype_flag) == sizeof(int) &&
                   sizeof(kvplan_dtype_flag) == sizeof(int) &&
                   sizeof(kvplan_spec_algorithm) == sizeof(int) &&
                   sizeof(kvplan_disaggregation_mode) == sizeof(int),
               "K_WORD stores an enum as an int");

/* ---- errors ------------------------------------------------------------ */

static kvplan_status fail(kvplan_error *err, kvplan_status code,
                          const char *flag_name, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static kvplan_status fail(kvplan_error *err, kvplan_status code,
                          const char *flag_name, const char *fmt, ...)
{
    memset(err, 0, sizeof *err);
    err->code = code;
    snprintf(err->field, sizeof err->field, "%.100s", flag_name);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return code;
}

/* A bad value: "--flag: expected EXPECTED, got 'VALUE'". */
static kvplan_status bad(kvplan_error *err, const char *flag_name,
                         const char *expected, const char *got)
{
    return fail(err, KVPLAN_PARSE, flag_name, "%s: expected %s, got '%.80s'",
                flag_name, expected, got);
}

/* "one of a, b, c" for a word set, into buf. */
static const char *one_of(int set, char *buf, size_t size)
{
    size_t n = (size_t)snprintf(buf, size, "one of ");
    const char *w;
    for (size_t i = 0;
         (w = kvplan_word_at((kvplan_word_set)set, i, NULL)) && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? ", " : "", w);
    return buf;
}

/* ---- values -------------------------------------------------------------- */

/* Blanks after a number, as Python's int() and float() allow them. */
static bool only_blanks(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    return *s == '\0';
}

/* argparse's type=int: Python's int(), decimal, blanks around it. */
static bool parse_int(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (end == s || !only_blanks(end) || errno != 0)
        return false;
    *out = x;
    return true;
}

/* A hexadecimal float ("0x0.8p0", " -0X1p3"), which strtod reads and
 * Python's float() does not. */
static bool is_hex(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s == '+' || *s == '-')
        s++;
    return s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

/* argparse's type=float: Python's float(), no hexadecimal. */
static bool parse_double(const char *s, double *out)
{
    char *end;
    if (is_hex(s))
        return false;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || !only_blanks(end) || errno != 0 || !isfinite(x))
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
    double x = 0;
    end = (char *)text;
    if (!is_hex(text))
        x = strtod(text, &end);
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

/* --gpu NAME | auto: a preset now, auto when the GPU is resolved. */
static kvplan_status gpu_flag(cli_args *cli, const char *v, kvplan_error *err)
{
    cli->gpu_text = v;
    if (strcmp(v, "auto") == 0) {
        cli->gpu_auto = true;
        return KVPLAN_OK;
    }
    kvplan_gpu g;
    if (!kvplan_gpu_preset(v, &g)) {
        char list[400] = "", near[200] = "";
        kvplan_gpu p;
        size_t n = 0, m = 0;
        char upper[64];
        snprintf(upper, sizeof upper, "%s", v);
        for (char *c = upper; *c; c++)
            *c = (*c >= 'a' && *c <= 'z') ? (char)(*c - 'a' + 'A') : *c;
        /* near misses: the presets it begins ("h100"), else those a few
         * edits away */
        for (int pass = 0; pass < 2 && m == 0; pass++)
            for (size_t i = 0; kvplan_gpu_preset_at(i, &p); i++) {
                if (pass == 0 && n < sizeof list)
                    n += (size_t)snprintf(list + n, sizeof list - n, "%s, ",
                                          p.name);
                bool hit = pass == 0
                               ? strncmp(p.name, upper, strlen(upper)) == 0
                               : kvplan_edit_distance(upper, p.name) <=
                                     (strlen(upper) >= 4 ? 2 : 1);
                if (hit && m < sizeof near)
                    m += (size_t)snprintf(near + m, sizeof near - m, "%s%s",
                                          m ? " or " : "", p.name);
            }
        if (m > 0)
            return fail(err, KVPLAN_PARSE, "--gpu",
                        "--gpu: unknown GPU '%.60s'; did you mean %s? (kvplan "
                        "--list-gpus lists them)",
                        v, near);
        return fail(err, KVPLAN_PARSE, "--gpu",
                    "--gpu: unknown GPU '%.60s'; expected one of %sauto", v,
                    list);
    }
    cli->gpu_auto = false;
    cli->options.gpu = g;
    cli->options.gpu_set = true;
    cli->gpu_name = cli->options.gpu.name;
    return KVPLAN_OK;
}

/* --hisparse-config: a JSON object; host_to_device_ratio defaults to 2 */
static kvplan_status hisparse_flag(cli_args *cli, const char *v,
                                   kvplan_error *err)
{
    json_error_t jerr;
    json_t *o = json_loads(v, 0, &jerr);
    const json_t *r = json_object_get(o, "host_to_device_ratio");
    if (!json_is_object(o) || (r != NULL && !json_is_number(r))) {
        json_decref(o);
        return bad(err, "--hisparse-config",
                   "a JSON object such as {\"host_to_device_ratio\": 4}", v);
    }
    if (r != NULL)
        cli->options.server.hisparse_host_to_device_ratio =
            json_number_value(r);
    cli->hisparse_text = v;
    json_decref(o);
    return KVPLAN_OK;
}

/* Stores `v` for row `f`. */
static kvplan_status store(cli_args *cli, const flag *f, const char *v,
                           kvplan_error *err)
{
    void *field = (char *)cli + f->offset;
    int64_t x;
    double d;
    int w;
    char words[512];
    switch (f->kind) {
    case K_OPT_INT:
    case K_INT:
        if (!parse_int(v, &x) || x < f->min)
            return bad(err, f->name, f->expect, v);
        if (f->kind == K_INT)
            *(int64_t *)field = x;
        else
            *(kvplan_opt_int *)field = (kvplan_opt_int){x, true};
        return KVPLAN_OK;
    case K_DOUBLE:
        if (!parse_double(v, &d))
            return bad(err, f->name, "a number", v);
        if (f->expect != NULL &&
            !(d > f->lo && (f->hi_closed ? d <= f->hi : d < f->hi)))
            return bad(err, f->name, f->expect, v);
        *(kvplan_opt_double *)field = (kvplan_opt_double){d, true};
        return KVPLAN_OK;
    case K_WORD:
    case K_NAME:
        if (!kvplan_word_value((kvplan_word_set)f->words, v, &w))
            return bad(err, f->name, one_of(f->words, words, sizeof words), v);
        if (f->kind == K_WORD)
            memcpy(field, &w, sizeof w);
        else
            *(const char **)field = v;
        return KVPLAN_OK;
    case K_TEXT:
        *(const char **)field = v;
        return KVPLAN_OK;
    case K_GPU:
        return gpu_flag(cli, v, err);
    case K_GPU_MEMORY:
        CLI_TRY(cli_parse_size_mib(v, f->name, &cli->gpu_memory_mib, err));
        cli->gpu_memory_set = true;
        return KVPLAN_OK;
    case K_HISPARSE:
        return hisparse_flag(cli, v, err);
    case K_ENGINE: {
        static const char *const names[] = {"sglang", "vllm", "trtllm"};
        for (int e = 0; e < 3; e++)
            if (strcmp(v, names[e]) == 0 ||
                (e == 2 && strcmp(v, "tensorrt-llm") == 0)) {
                cli->engine = (kvplan_engine)e;
                cli->engine_text = v;
                return KVPLAN_OK;
            }
        return bad(err, f->name, "one of sglang, vllm, trtllm", v);
    }
    case K_BYTES: {
        double mib;
        char *end;
        double b = strtod(v, &end);
        if (end != v && *end == '\0' && b >= 0 && b < 9.2e18 && b == floor(b)) {
            *(kvplan_opt_int *)field = (kvplan_opt_int){(int64_t)b, true};
            return KVPLAN_OK; /* a bare number is bytes, as vLLM takes it */
        }
        CLI_TRY(cli_parse_size_mib(v, f->name, &mib, err));
        *(kvplan_opt_int *)field =
            (kvplan_opt_int){(int64_t)(mib * 1048576.0), true};
        return KVPLAN_OK;
    }
    case K_VERSION: {
        kvplan_sglang_profile p;
        CLI_TRY(kvplan_sglang_profile_parse(v, &p, err));
        memcpy(field, &p, sizeof p);
        if (f->offset == offsetof(cli_args, compare_version))
            cli->compare_version_text = v;
        else
            cli->sglang_version = v;
        return KVPLAN_OK;
    }
    case K_TRUE:
        break;
    }
    return KVPLAN_OK;
}

/* A variable sglang warns of and then ignores (its value is neither of
 * its kind), for the command to say so too. */
static void bad_env(cli_args *cli, const char *name)
{
    if (cli->num_bad_env < sizeof cli->bad_env / sizeof cli->bad_env[0])
        cli->bad_env[cli->num_bad_env++] = name;
}

/* sglang's EnvBool of the process environment. */
static bool env_bool(cli_args *cli, const char *name, bool fallback)
{
    const char *v = cli_getenv(name);
    if (v == NULL)
        return fallback;
    size_t n = strlen(v);
    /* garbage gives the fallback whatever it is */
    if (kvplan_env_bool(v, n, true) != kvplan_env_bool(v, n, false))
        bad_env(cli, name);
    return kvplan_env_bool(v, n, fallback);
}

static void read_environment(cli_args *cli)
{
    kvplan_plan_options *o = &cli->options;
    kvplan_server_args *s = &o->server;
    s->SGLANG_PP_LAYER_PARTITION = cli_getenv("SGLANG_PP_LAYER_PARTITION");
    s->SGLANG_DSV4_COMPRESS_STATE_DTYPE =
        cli_getenv("SGLANG_DSV4_COMPRESS_STATE_DTYPE");
    s->SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN =
        env_bool(cli, "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN", false);
    s->SGLANG_OPT_USE_ONLINE_COMPRESS =
        env_bool(cli, "SGLANG_OPT_USE_ONLINE_COMPRESS", false);
    s->SGLANG_EXPERIMENTAL_ONLINE_C128_MTP =
        env_bool(cli, "SGLANG_EXPERIMENTAL_ONLINE_C128_MTP", false);
    o->SGLANG_MAMBA_SSM_DTYPE = cli_getenv("SGLANG_MAMBA_SSM_DTYPE");
    const char *vlm = cli_getenv("SGLANG_VLM_CACHE_SIZE_MB");
    if (vlm != NULL) {
        size_t n = strlen(vlm);
        if (kvplan_env_int(vlm, n, 1) != kvplan_env_int(vlm, n, 2) ||
            kvplan_env_int(vlm, n, 0) < 0)
            bad_env(cli, "SGLANG_VLM_CACHE_SIZE_MB");
        else
            o->SGLANG_VLM_CACHE_SIZE_MB =
                (kvplan_opt_int){kvplan_env_int(vlm, n, 100), true};
    }
    const char *iv = cli_getenv("SGLANG_SWA_EVICTION_INTERVAL");
    if (iv != NULL) {
        size_t n = strlen(iv);
        if (kvplan_env_int(iv, n, 1) != kvplan_env_int(iv, n, 2))
            bad_env(cli, "SGLANG_SWA_EVICTION_INTERVAL");
        s->SGLANG_SWA_EVICTION_INTERVAL =
            kvplan_env_int(iv, n, s->SGLANG_SWA_EVICTION_INTERVAL);
    }
}

static const flag *find(const char *arg, size_t name_len)
{
    for (size_t k = 0; k < NUM_FLAGS; k++) {
        const char *names[3] = {cli_flags[k].name, cli_flags[k].alias,
                                cli_flags[k].alias2};
        for (int j = 0; j < 3; j++)
            if (names[j] && strlen(names[j]) == name_len &&
                strncmp(names[j], arg, name_len) == 0)
                return &cli_flags[k];
    }
    return NULL;
}

const char *cli_flag_canonical(const char *arg, size_t len)
{
    const flag *f = find(arg, len);
    return f ? f->name : NULL;
}

/* The nearest flag name (kvplan's or sglang's) to `arg`, within 3 edits. */
static const char *nearest(const char *arg, size_t len)
{
    char name[96];
    snprintf(name, sizeof name, "%.*s", (int)(len < 90 ? len : 90), arg);
    const char *best = NULL;
    int d = 4;
    for (size_t k = 0; k < NUM_FLAGS; k++) {
        int x = kvplan_edit_distance(name, cli_flags[k].name);
        if (x < d) {
            d = x;
            best = cli_flags[k].name;
        }
    }
    const char *s;
    for (size_t k = 0; (s = cli_sglang_flag_at(k)) != NULL; k++) {
        int x = kvplan_edit_distance(name, s);
        if (x < d) {
            d = x;
            best = s;
        }
    }
    return best;
}

/* An argument that is a value, not a flag: anything but "--x" ("-1" is a
 * value). */
static bool is_value(const char *a)
{
    return !(a[0] == '-' && a[1] == '-' && a[2] != '\0') &&
           !(a[0] == '-' && a[1] != '\0' && !(a[1] >= '0' && a[1] <= '9') &&
             a[1] != '.');
}

/* sglang's own flag outside the table: ignored (its values skipped) and
 * listed. Returns the index of its last value. */
static int ignore_flag(cli_args *cli, const cli_sglang_flag *g, int i, int argc,
                       char **argv, bool has_eq)
{
    if (cli->num_ignored < CLI_MAX_IGNORED)
        cli->ignored[cli->num_ignored++] = g;
    if (!g->takes_value || has_eq)
        return i;
    while (i + 1 < argc && is_value(argv[i + 1]))
        i++; /* one value, or several (nargs) */
    return i;
}

/* The first argument after "--" that is a flag of sglang's command:
 * "python3 -m sglang.launch_server ARGS", "sglang serve [MODEL] ARGS" or
 * ARGS alone. A model given as serve's positional is taken. */
static int launch_start(int argc, char **argv, int i, cli_args *cli)
{
    for (int j = i; j < argc; j++) {
        const char *a = argv[j];
        if (a[0] == '-' && a[1] == '-')
            return j;
        if (strcmp(a, "serve") == 0 && j + 1 < argc && argv[j + 1][0] != '-') {
            cli->model_path = argv[j + 1];
            return j + 2;
        }
    }
    return argc;
}

kvplan_status cli_parse(int argc, char **argv, int first, cli_args *cli,
                        kvplan_error *err)
{
    memset(cli, 0, sizeof *cli);
    kvplan_plan_options_init(&cli->options);
    kvplan_engine_options_init(&cli->engine_options);
    return cli_parse_over(argc, argv, first, cli, err);
}

kvplan_status cli_parse_over(int argc, char **argv, int first, cli_args *cli,
                             kvplan_error *err)
{
    read_environment(cli);
    for (int i = first; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--") == 0 && !cli->launch_command) {
            cli->launch_command = true;
            i = launch_start(argc, argv, i + 1, cli) - 1;
            continue;
        }
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        const flag *f = find(arg, len);
        if (f == NULL) {
            const cli_sglang_flag *g = cli_sglang_flag_find(arg, len);
            if (g != NULL) {
                i = ignore_flag(cli, g, i, argc, argv, eq != NULL);
                continue;
            }
            const char *near = arg[0] == '-' ? nearest(arg, len) : NULL;
            return fail(err, KVPLAN_INVALID_ARGUMENT, arg,
                        "%.100s: %s%s%s%s (see kvplan --help)", arg,
                        arg[0] == '-' ? "unknown option"
                                      : "unexpected argument",
                        near ? "; did you mean " : "", near ? near : "",
                        near ? "?" : "");
        }
        if (f->kind == K_TRUE) {
            if (eq)
                return fail(err, KVPLAN_INVALID_ARGUMENT, f->name,
                            "%s takes no value", f->name);
            *(bool *)((char *)cli + f->offset) = true;
            continue;
        }
        const char *v;
        if (eq)
            v = eq + 1;
        else if (i + 1 < argc)
            v = argv[++i];
        else
            return fail(err, KVPLAN_INVALID_ARGUMENT, f->name,
                        "%s needs a value", f->name);
        CLI_TRY(store(cli, f, v, err));
    }
    if (cli->model_path != NULL)
        cli->options.model_path = cli->model_path;
    return KVPLAN_OK;
}

kvplan_status cli_resolve_gpu(cli_args *cli, kvplan_error *err)
{
    kvplan_plan_options *o = &cli->options;
    if (cli->gpu_auto) {
        CLI_TRY(kvplan_gpu_probe(&o->gpu, &cli->gpu_count, err));
        o->gpu_set = true;
        cli->gpu_name = o->gpu.name;
    }
    if (cli->gpu_memory_set) {
        /* another board's total; sm90 unless --gpu names the board */
        if (!o->gpu_set)
            kvplan_gpu_preset(KVPLAN_DEFAULT_GPU, &o->gpu);
        if (!cli->gpu_auto && cli->gpu_name == NULL)
            snprintf(o->gpu.name, sizeof o->gpu.name, "custom");
        o->gpu.total_mib = cli->gpu_memory_mib;
        o->gpu_set = true;
        cli->gpu_name = cli->gpu_name ? cli->gpu_name : "custom";
    }
    if (!o->gpu_set && !o->available_bytes.set) {
        kvplan_gpu_preset(KVPLAN_DEFAULT_GPU, &o->gpu);
        o->gpu_set = true;
        cli->gpu_name = o->gpu.name;
    }
    return KVPLAN_OK;
}
