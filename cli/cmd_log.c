/*
 * cmd_log.c: kvplan log FILE: an sglang start-up log read back (its
 * readings, the server arguments that move memory), the plan rebuilt from
 * them, and each difference with its cause (docs/log.md). --calibrate OUT
 * writes what the log measured, for kvplan --calibration.
 */
#include "calibration.h"
#include "cli.h"
#include "flags.h"
#include "jsonout.h"
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define GIB 1073741824.0
#define MAX_LOG_BYTES (64u << 20)

/* The whole of FILE ("-": standard input), at most 64 MiB. */
static char *read_all(const char *path, size_t *len, kvplan_error *err)
{
    bool in = strcmp(path, "-") == 0;
    FILE *f = in ? cli_in() : fopen(path, "rb");
    struct stat sb;
    if (f == NULL || (!in && (fstat(fileno(f), &sb) != 0 ||
                              !S_ISREG(sb.st_mode)))) {
        if (f != NULL && !in)
            fclose(f);
        memset(err, 0, sizeof *err);
        snprintf(err->field, sizeof err->field, "log");
        err->code = KVPLAN_IO;
        snprintf(err->message, sizeof err->message,
                 "%.200s: cannot be read as a log (a regular file, or - for "
                 "standard input)",
                 path);
        return NULL;
    }
    char *buf = cli_read_stream(f, MAX_LOG_BYTES, "log", path, len, err);
    if (!in)
        fclose(f);
    if (buf == NULL && err->code == KVPLAN_PARSE)
        snprintf(err->message, sizeof err->message,
                 "%.200s: larger than 64 MiB; a start-up log is far smaller: "
                 "cut it to the start-up lines",
                 path);
    return buf;
}

/* The log's model: --model-path, else its model_path as given, as a Hub
 * id (the last two parts of a local path that is not here) or a name. */
static kvplan_model *load_model(const cli_args *cli,
                                const kvplan_log_readings *r,
                                const char **used, char *why, size_t size)
{
    const char *name = cli->o.model_path != NULL ? cli->o.model_path
                                               : r->args.model_path;
    kvplan_model *m = NULL;
    kvplan_error err;
    *used = name;
    if (name == NULL || name[0] == '\0') {
        snprintf(why, size,
                 "the log prints no model_path (pass --model-path: a "
                 "catalog name, a Hugging Face id or a model directory)");
        return NULL;
    }
    if (kvplan_model_load_override(name, cli->o.model_override_args, &m,
                                   &err) == KVPLAN_OK)
        return m;
    if (err.code != KVPLAN_IO) { /* found, and refused */
        snprintf(why, size, "%.511s", err.message);
        return NULL;
    }
    /* "/home/model/Qwen/QwQ-32B": try "Qwen/QwQ-32B", then "QwQ-32B" */
    const char *last = strrchr(name, '/'), *two = NULL;
    for (const char *p = last; p != NULL && p > name; p--)
        if (p[-1] == '/') {
            two = p;
            break;
        }
    const char *tries[2] = {two, last != NULL ? last + 1 : NULL};
    for (int i = 0; i < 2; i++) {
        if (tries[i] == NULL || tries[i][0] == '\0')
            continue;
        if (kvplan_model_load_override(tries[i], cli->o.model_override_args, &m,
                                       NULL) == KVPLAN_OK) {
            *used = tries[i];
            return m;
        }
    }
    snprintf(why, size,
             "the log's model_path '%.120s' is not a model directory here nor "
             "a catalog model (kvplan --list-models): pass --model-path",
             name);
    return NULL;
}

static void opt_double(char *buf, size_t n, kvplan_opt_double v)
{
    if (v.set)
        snprintf(buf, n, "%.2f", v.value);
    else
        snprintf(buf, n, "missing");
}

static void row(const char *name, const char *log, const char *kv,
                const char *diff)
{
    fprintf(cli_out(), "  %-26s %14s %27s %12s\n", name, log, kv, diff);
}

static void text_report(const char *path, const kvplan_log_readings *r,
                        const char *model, const kvplan_log_result *x,
                        kvplan_sglang_profile version)
{
    fprintf(cli_out(), "kvplan %s log %s: %lld lines, %lld read; %lld rank%s%s%s\n",
           kvplan_version(), path, (long long)r->lines,
           (long long)r->lines_used, (long long)(r->ranks ? r->ranks : 1),
           r->ranks > 1 ? "s" : "", r->date[0] ? "; dated " : "", r->date);
    fprintf(cli_out(), "model: %s%s%s%s\n", model != NULL && model[0] ? model : "none",
           r->model_class[0] ? " (the log loaded " : "", r->model_class,
           r->model_class[0] ? ")" : "");
    if (r->sglang_version[0] != '\0' || version != KVPLAN_SGLANG_SEED)
        fprintf(cli_out(), "sglang: %s%s%s; planned with the rules of %s\n",
                r->sglang_version[0] ? r->sglang_version : "not named",
                r->sglang_version[0] ? " (the log's)" : " in the log",
                r->sglang_version[0] &&
                        kvplan_sglang_profile_parse(r->sglang_version, &version,
                                                    NULL) != KVPLAN_OK
                    ? ", a version kvplan has no profile for"
                    : "",
                kvplan_sglang_profile_name(version));
    if (x->gpu.name[0] != '\0')
        fprintf(cli_out(), "GPU: %s, %.0f MiB (%s)\n", x->gpu.name, x->gpu.total_mib,
               x->gpu_inferred ? "inferred: the smallest preset holding the "
                                 "log's free memory; pass --gpu"
                               : "given");
    if (r->num_rank_readings > 1) {
        fprintf(cli_out(), "free before / after loading per rank, GiB:");
        for (size_t i = 0; i < r->num_rank_readings; i++) {
            const kvplan_log_rank *k = &r->rank_readings[i];
            fprintf(cli_out(), "%s TP%lld %.2f/%.2f", i % 4 == 0 ? "\n " : ",",
                   (long long)k->rank, k->free_before_gib.value,
                   k->free_after_gib.value);
        }
        fprintf(cli_out(), "\n");
    }
    if (x->interval || x->modelled)
        fprintf(cli_out(), "mem_fraction_static: %.4g (%s)\n", x->mem_fraction_static,
               x->fraction_from_log ? "the log's" : "kvplan's rule");
    char a[48], b[48], c[48];
    fprintf(cli_out(), "\n  %-26s %14s %27s %12s\n", "", "log", "kvplan", "difference");
    /* the free memory and the weights, GiB */
    const kvplan_opt_double logs[3] = {
        r->free_before_gib, r->free_after_gib, kvplan_log_weights_gib(r)};
    const double mine[3] = {x->free_before_gib, x->free_after_gib,
                            x->weights_gib};
    static const char *const names[3] = {"free before loading, GiB",
                                         "free after loading, GiB",
                                         "weights per rank, GiB"};
    for (int i = 0; i < 3; i++) {
        opt_double(a, sizeof a, logs[i]);
        snprintf(b, sizeof b, x->modelled ? "%.2f" : "-", mine[i]);
        if (logs[i].set && x->modelled)
            snprintf(c, sizeof c, "%+.2f", mine[i] - logs[i].value);
        else
            snprintf(c, sizeof c, "-");
        row(names[i], a, b, c);
    }
    if (x->interval) {
        snprintf(b, sizeof b, "%lld..%lld", (long long)x->available_lo,
                 (long long)x->available_hi);
        row("available_bytes", "(read back)", b, "-");
    }
    if (x->logged_tokens.set)
        snprintf(a, sizeof a, "%lld", (long long)x->logged_tokens.value);
    else
        snprintf(a, sizeof a, "missing");
    if (x->interval)
        snprintf(b, sizeof b, "%lld..%lld", (long long)x->tokens_lo,
                 (long long)x->tokens_hi);
    else
        snprintf(b, sizeof b, "-");
    row("max_total_num_tokens", a, b,
        !x->interval || !x->logged_tokens.set ? "-"
        : x->inside                           ? "inside"
                                              : "OUTSIDE");
    if (x->modelled) {
        snprintf(b, sizeof b, "%lld (modelled)", (long long)x->tokens);
        if (x->logged_tokens.set && x->logged_tokens.value > 0)
            snprintf(c, sizeof c, "%+.2f%%",
                     100.0 * ((double)x->tokens / (double)x->logged_tokens.value -
                              1));
        else
            snprintf(c, sizeof c, "-");
        row("", "", b, c);
    }
    double kv = r->kv_size_gib.set ? r->kv_size_gib.value
                : r->k_size_gib.set && r->v_size_gib.set
                    ? r->k_size_gib.value + r->v_size_gib.value
                    : -1;
    if (kv >= 0) {
        snprintf(a, sizeof a, "%.2f", kv);
        snprintf(b, sizeof b, x->modelled ? "%.2f (modelled)" : "-",
                 (double)x->kv_bytes / GIB);
        row("KV pools, GiB", a, b, "-");
    }
    if (r->max_running_requests.set) {
        snprintf(a, sizeof a, "%lld", (long long)r->max_running_requests.value);
        snprintf(b, sizeof b, x->modelled ? "%lld" : "-",
                 (long long)x->max_running_requests);
        row("max_running_requests", a, b, "-");
    }
    if (r->context_len.set) {
        snprintf(a, sizeof a, "%lld", (long long)r->context_len.value);
        snprintf(b, sizeof b, x->modelled ? "%lld" : "-",
                 (long long)x->context_len);
        row("context_len", a, b, "-");
    }
    fprintf(cli_out(), "\ncauses:%s\n", x->num_causes ? "" : " none");
    for (size_t i = 0; i < x->num_causes; i++)
        fprintf(cli_out(), "  - %s (%s): %s\n", kvplan_log_cause_name(x->causes[i].code),
               x->causes[i].row, x->causes[i].text);
    if (x->interval && x->logged_tokens.set)
        fprintf(cli_out(), "\nthe logged %lld tokens lie %s kvplan's interval [%lld, "
               "%lld]\n",
               (long long)x->logged_tokens.value,
               x->inside ? "inside" : "OUTSIDE", (long long)x->tokens_lo,
               (long long)x->tokens_hi);
}

static json_t *opt_d(kvplan_opt_double v)
{
    return v.set ? json_real(v.value) : json_null();
}

static json_t *opt_i(kvplan_opt_int v)
{
    return v.set ? json_integer((json_int_t)v.value) : json_null();
}

static json_t *opt_b(kvplan_opt_int v)
{
    return v.set ? json_boolean(v.value != 0) : json_null();
}

static json_t *text_or_null(const char *s)
{
    return s[0] ? cli_json_text(s) : json_null();
}

static json_t *ranks_json(const kvplan_log_readings *r)
{
    json_t *a = json_array();
    for (size_t i = 0; a != NULL && i < r->num_rank_readings; i++) {
        const kvplan_log_rank *k = &r->rank_readings[i];
        json_array_append_new(
            a, json_pack("{s:I, s:o, s:o, s:o}", "rank", (json_int_t)k->rank,
                         "free_before_gib", opt_d(k->free_before_gib),
                         "free_after_gib", opt_d(k->free_after_gib),
                         "weights_gib", opt_d(k->weights_gib)));
    }
    return a;
}

static json_t *readings_json(const kvplan_log_readings *r)
{
    const kvplan_log_args *a = &r->args;
    json_t *args = json_pack(
        "{s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, "
        "s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, "
        "s:o}",
        "present", a->present, "model_path", text_or_null(a->model_path),
        "dtype", text_or_null(a->dtype), "kv_cache_dtype",
        text_or_null(a->kv_cache_dtype), "quantization",
        text_or_null(a->quantization), "attention_backend",
        text_or_null(a->attention_backend), "speculative_algorithm",
        text_or_null(a->speculative_algorithm), "mem_fraction_static",
        opt_d(a->mem_fraction_static), "tp_size", opt_i(a->tp_size), "pp_size",
        opt_i(a->pp_size), "dp_size", opt_i(a->dp_size), "page_size",
        opt_i(a->page_size), "context_length", opt_i(a->context_length),
        "chunked_prefill_size", opt_i(a->chunked_prefill_size),
        "max_prefill_tokens", opt_i(a->max_prefill_tokens),
        "max_running_requests", opt_i(a->max_running_requests),
        "max_total_tokens", opt_i(a->max_total_tokens), "cuda_graph_max_bs",
        opt_i(a->cuda_graph_max_bs), "enable_dp_attention",
        opt_b(a->enable_dp_attention), "disable_cuda_graph",
        opt_b(a->disable_cuda_graph), "disable_radix_cache",
        opt_b(a->disable_radix_cache), "is_embedding", opt_b(a->is_embedding),
        "ep_size", opt_i(a->ep_size), "speculative_draft_model_path",
        text_or_null(a->speculative_draft_model_path), "speculative_num_steps",
        opt_i(a->speculative_num_steps), "speculative_eagle_topk",
        opt_i(a->speculative_eagle_topk), "speculative_num_draft_tokens",
        opt_i(a->speculative_num_draft_tokens));
    return json_pack(
        "{s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, "
        "s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
        "lines", (json_int_t)r->lines, "lines_read", (json_int_t)r->lines_used,
        "ranks", (json_int_t)r->ranks, "date", text_or_null(r->date),
        "free_before_gib", opt_d(r->free_before_gib), "free_after_gib",
        opt_d(r->free_after_gib), "weights_gib", opt_d(r->weights_gib),
        "distributed_gib", opt_d(r->distributed_gib), "pool_end_gib",
        opt_d(r->pool_end_gib), "kv_tokens", opt_i(r->kv_tokens),
        "k_size_gib", opt_d(r->k_size_gib), "v_size_gib", opt_d(r->v_size_gib),
        "kv_size_gib", opt_d(r->kv_size_gib), "max_total_num_tokens",
        opt_i(r->max_total_num_tokens), "max_prefill_tokens",
        opt_i(r->max_prefill_tokens), "max_running_requests",
        opt_i(r->max_running_requests), "context_len", opt_i(r->context_len),
        "available_gpu_mem_gib", opt_d(r->available_gpu_mem_gib),
        "model_class", text_or_null(r->model_class), "model_dtype",
        text_or_null(r->model_dtype), "kv_dtype", text_or_null(r->kv_dtype),
        "server_args", args, "per_rank", ranks_json(r));
}

static json_t *result_json(const kvplan_log_readings *r, const char *model,
                           const kvplan_log_result *x,
                           kvplan_sglang_profile version)
{
    json_t *causes = json_array();
    for (size_t i = 0; causes != NULL && i < x->num_causes; i++)
        json_array_append_new(
            causes, json_pack("{s:s, s:o, s:o}", "cause",
                              kvplan_log_cause_name(x->causes[i].code), "row",
                              cli_json_text(x->causes[i].row), "text",
                              cli_json_text(x->causes[i].text)));
    json_t *modelled =
        x->modelled
            ? json_pack("{s:f, s:f, s:f, s:I, s:I, s:I, s:I}",
                        "free_before_gib", x->free_before_gib,
                        "free_after_gib", x->free_after_gib, "weights_gib",
                        x->weights_gib, "max_total_num_tokens",
                        (json_int_t)x->tokens, "kv_bytes",
                        (json_int_t)x->kv_bytes, "max_running_requests",
                        (json_int_t)x->max_running_requests, "context_len",
                        (json_int_t)x->context_len)
            : json_null();
    json_t *inputs = json_pack(
        "{s:o, s:o, s:o, s:b, s:o, s:b}", "model",
        model != NULL && model[0] ? cli_json_text(model) : json_null(), "gpu",
        text_or_null(x->gpu.name), "gpu_mem_mib",
        x->gpu.name[0] ? json_real(x->gpu.total_mib) : json_null(),
        "gpu_inferred", x->gpu_inferred, "mem_fraction_static",
        x->interval || x->modelled ? json_real(x->mem_fraction_static)
                                   : json_null(),
        "fraction_from_log", x->fraction_from_log);
    if (inputs != NULL)
        json_object_set_new(
            inputs, "sglang_version",
            json_pack("{s:o, s:s}", "named",
                      text_or_null(r->sglang_version), "profile",
                      kvplan_sglang_profile_name(version)));
    return json_pack(
        "{s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "schema_version", 1,
        "readings", readings_json(r), "inputs", inputs, "available_interval",
        x->interval ? json_pack("[I, I]", (json_int_t)x->available_lo,
                                (json_int_t)x->available_hi)
                    : json_null(),
        "tokens_interval",
        x->interval ? json_pack("[I, I]", (json_int_t)x->tokens_lo,
                                (json_int_t)x->tokens_hi)
                    : json_null(),
        "logged_tokens", opt_i(x->logged_tokens), "inside",
        x->interval && x->logged_tokens.set ? json_boolean(x->inside)
                                            : json_null(),
        "modelled", modelled, "causes", causes);
}

static int usage(FILE *out)
{
    fprintf(out,
            "usage: kvplan log FILE|- [--model-path M] [--gpu NAME | "
            "--gpu-memory SIZE] [sglang flags] [--json] [--calibrate OUT]\n"
            "  reads an sglang start-up log, rebuilds the plan from its "
            "readings and server arguments, and names the cause of each "
            "difference (docs/log.md); flags given here win over the "
            "log's. --calibrate OUT writes what the log measured on that "
            "GPU, for kvplan --calibration OUT.\n");
    return out == cli_out() ? CLI_EXIT_OK : CLI_EXIT_USAGE;
}

static int fail(const kvplan_error *err, int rc, bool json)
{
    return cli_error("kvplan log", err, rc, json);
}

int cli_cmd_log(int argc, char **argv)
{
    if (argc < 3 || strcmp(argv[2], "--help") == 0 ||
        strcmp(argv[2], "-h") == 0)
        return usage(argc < 3 ? cli_err() : cli_out());
    const char *path = argv[2], *calibrate = NULL;
    bool json = false;
    /* --calibrate is the log command's own; the rest are the plan's */
    char **rest = malloc(sizeof *rest * (size_t)argc);
    int n = 0;
    for (int i = 3; rest != NULL && i < argc; i++) {
        if (strcmp(argv[i], "--calibrate") == 0 && i + 1 < argc)
            calibrate = argv[++i];
        else
            rest[n++] = argv[i];
        json |= strcmp(argv[i], "--json") == 0;
    }
    kvplan_error err;
    size_t len = 0;
    char *text = rest != NULL ? read_all(path, &len, &err) : NULL;
    kvplan_log_readings *r = malloc(sizeof *r);
    cli_args *cli = malloc(sizeof *cli);
    kvplan_plan *work = malloc(sizeof *work);
    kvplan_log_result *x = malloc(sizeof *x);
    kvplan_model *model = NULL, *draft = NULL;
    int rc = CLI_EXIT_OK;
    char why[600] = "";
    const char *used = NULL;
    if (rest == NULL || r == NULL || cli == NULL || work == NULL ||
        x == NULL) {
        fprintf(cli_err(), "kvplan log: out of memory\n");
        rc = CLI_EXIT_INTERNAL;
        goto done;
    }
    if (text == NULL) {
        rc = fail(&err, cli_exit_for(err.code), json);
        goto done;
    }
    if (kvplan_log_parse(text, len, r, &err) != KVPLAN_OK) {
        rc = fail(&err, CLI_EXIT_BAD_INPUT, json);
        goto done;
    }
    memset(cli, 0, sizeof *cli);
    kvplan_options_init(&cli->o);
    if (kvplan_log_options(r, &cli->o.plan, &err) != KVPLAN_OK) {
        rc = fail(&err, CLI_EXIT_BAD_INPUT, json);
        goto done;
    }
    if (cli_parse_over(n, rest, 0, NULL, cli, &err) != KVPLAN_OK) {
        rc = fail(&err, CLI_EXIT_USAGE, json);
        goto done;
    }
    /* a GPU only when named: else reconcile infers it from the log */
    if ((cli->o.internal_.gpu_text != NULL || cli->o.gpu_memory_mib.set) &&
        cli_resolve_gpu(cli, &err) != KVPLAN_OK) {
        rc = fail(&err, cli_exit_for(err.code), json);
        goto done;
    }
    model = load_model(cli, r, &used, why, sizeof why);
    const char *draft_path = cli->o.draft_model_path != NULL
                                 ? cli->o.draft_model_path
                                 : r->args.speculative_draft_model_path;
    if (model != NULL && draft_path[0] != '\0' &&
        kvplan_model_load(draft_path, &draft, NULL) == KVPLAN_OK)
        cli->o.plan.server.speculative_draft_model = draft;
    if (kvplan_log_reconcile(model, why, r, &cli->o.plan, work, x, &err) !=
        KVPLAN_OK) {
        rc = fail(&err, err.code == KVPLAN_INVALID_ARGUMENT ? CLI_EXIT_USAGE
                                                            : cli_exit_for(err.code),
                  json);
        goto done;
    }
    const char *model_name =
        model != NULL ? kvplan_model_get_info(model)->name : used;
    if (cli->json) {
        json_t *doc = result_json(r, model_name, x, cli->o.plan.sglang_version);
        if (doc == NULL || cli_json_write(doc, cli_out()) != 0 ||
            fputc('\n', cli_out()) == EOF)
            rc = CLI_EXIT_INTERNAL;
        json_decref(doc);
    } else {
        text_report(path, r, model_name, x, cli->o.plan.sglang_version);
    }
    if (calibrate != NULL) {
        kvplan_plan_options o = cli->o.plan;
        o.gpu = x->gpu;
        if (!r->free_before_gib.set || !kvplan_log_weights_gib(r).set) {
            fprintf(cli_err(), "kvplan log: --calibrate needs the log's \"Load "
                            "weight begin\" and \"Load weight end\" lines\n");
            rc = CLI_EXIT_BAD_INPUT;
        } else if (o.gpu.total_mib / 1024.0 < r->free_before_gib.value) {
            fprintf(cli_err(),
                    "kvplan log: --calibrate: the %s (%.2f GiB) is smaller "
                    "than the %.2f GiB the log saw free: name the GPU it ran "
                    "on with --gpu\n",
                    o.gpu.name, o.gpu.total_mib / 1024.0,
                    r->free_before_gib.value);
            rc = CLI_EXIT_BAD_INPUT;
        } else if (cli_calibration_write(calibrate, path, r, &o,
                                         x->gpu_inferred,
                                         model_name ? model_name : "") != 0) {
            fprintf(cli_err(), "kvplan log: %s: cannot be written\n", calibrate);
            rc = CLI_EXIT_INTERNAL;
        } else if (x->gpu_inferred) {
            fprintf(cli_err(),
                    "kvplan log: warning: the GPU was inferred (%s); the "
                    "calibration's context is only as good as that guess: "
                    "pass --gpu\n",
                    x->gpu.name);
        }
    }
    if (fflush(cli_out()) != 0)
        rc = CLI_EXIT_INTERNAL;
done:
    kvplan_model_free(model);
    kvplan_model_free(draft);
    free(text);
    free(rest);
    free(r);
    free(cli);
    free(work);
    free(x);
    return rc;
}
