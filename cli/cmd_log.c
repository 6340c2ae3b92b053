/*
 * cmd_log.c: kvplan log FILE: an sglang start-up log read back (its
 * readings, the server arguments that move memory), the plan rebuilt from
 * them, and each difference with its cause (docs/log.md). --calibrate OUT
 * writes what the log measured, for kvplan --calibration. A vLLM log goes
 * to cmd_log_vllm.c.
 */
#include "calibration.h"
#include "cli.h"
#include "flags.h"
#include "options/options.h"
#include "json/doc.h"
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
    char *buf = cli_read_file(path, MAX_LOG_BYTES, "log", "a log", len, err);
    if (buf == NULL && err->code == KVPLAN_PARSE)
        snprintf(err->message, sizeof err->message,
                 "%.200s: larger than 64 MiB; a start-up log is far smaller: "
                 "cut it to the start-up lines",
                 path);
    return buf;
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
    fprintf(stdout, "  %-26s %14s %27s %12s\n", name, log, kv, diff);
}

static void text_report(const char *path, const kvplan_log_readings *r,
                        const char *model, const kvplan_log_result *x,
                        kvplan_sglang_profile version)
{
    fprintf(stdout,
            "kvplan %s log %s: %lld lines, %lld read; %lld rank%s%s%s\n",
            kvplan_version(), path, (long long)r->lines,
            (long long)r->lines_used, (long long)(r->ranks ? r->ranks : 1),
            r->ranks > 1 ? "s" : "", r->date[0] ? "; dated " : "", r->date);
    fprintf(stdout, "model: %s%s%s%s\n",
            model != NULL && model[0] ? model : "none",
            r->model_class[0] ? " (the log loaded " : "", r->model_class,
            r->model_class[0] ? ")" : "");
    /* whose rules, always said */
    fprintf(stdout, "sglang: %s%s%s; planned with the rules of %s\n",
            r->sglang_version[0] ? r->sglang_version : "not named",
            r->sglang_version[0] ? " (the log's)" : " in the log",
            r->sglang_version[0] &&
                    kvplan_sglang_profile_parse(r->sglang_version, &version,
                                                NULL) != KVPLAN_OK
                ? ", a version kvplan has no profile for"
                : "",
            kvplan_sglang_profile_name(version));
    if (x->gpu.name[0] != '\0')
        fprintf(stdout, "GPU: %s, %.0f MiB (%s)\n", x->gpu.name,
                x->gpu.total_mib,
                x->gpu_inferred ? "inferred: the smallest preset holding the "
                                  "log's free memory; pass --gpu"
                                : "given");
    if (r->num_rank_readings > 1) {
        fprintf(stdout, "free before / after loading per rank, GiB:");
        for (size_t i = 0; i < r->num_rank_readings; i++) {
            const kvplan_log_rank *k = &r->rank_readings[i];
            fprintf(stdout, "%s TP%lld %.2f/%.2f", i % 4 == 0 ? "\n " : ",",
                    (long long)k->rank, k->free_before_gib.value,
                    k->free_after_gib.value);
        }
        fprintf(stdout, "\n");
    }
    if (x->interval || x->modelled)
        fprintf(stdout, "mem_fraction_static: %.4g (%s)\n",
                x->mem_fraction_static,
                x->fraction_from_log ? "the log's" : "kvplan's rule");
    char a[48], b[48], c[48];
    fprintf(stdout, "\n  %-26s %14s %27s %12s\n", "", "log", "kvplan",
            "difference");
    /* the free memory and the weights, GiB */
    const kvplan_opt_double logs[3] = {r->free_before_gib, r->free_after_gib,
                                       kvplan_log_weights_gib(r)};
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
            snprintf(
                c, sizeof c, "%+.2f%%",
                100.0 *
                    ((double)x->tokens / (double)x->logged_tokens.value - 1));
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
    fprintf(stdout, "\ncauses:%s\n", x->num_causes ? "" : " none");
    for (size_t i = 0; i < x->num_causes; i++)
        fprintf(stdout, "  - %s (%s): %s\n",
                kvplan_log_cause_name(x->causes[i].code), x->causes[i].row,
                x->causes[i].text);
    if (x->interval && x->logged_tokens.set)
        fprintf(stdout,
                "\nthe logged %lld tokens lie %s kvplan's interval [%lld, "
                "%lld]\n",
                (long long)x->logged_tokens.value,
                x->inside ? "inside" : "OUTSIDE", (long long)x->tokens_lo,
                (long long)x->tokens_hi);
}

/* --explain: sglang's arithmetic from the log's own figures to its
 * token count (docs/log.md), with the cell size of kvplan's plan at the
 * interval's low end. */
static void text_explain(const cli_args *cli, const kvplan_log_readings *r,
                         const kvplan_model *model, const kvplan_log_result *x,
                         kvplan_plan *work)
{
    fprintf(stdout, "\nthe arithmetic (sglang's profile_max_num_token; "
                    "docs/log.md):\n");
    if (!x->interval || model == NULL || !r->free_before_gib.set ||
        !r->free_after_gib.set) {
        fprintf(stdout, "  not computed: it needs the model and the log's "
                        "free memory before and after loading\n");
        return;
    }
    double f = x->mem_fraction_static;
    fprintf(stdout,
            "  total     = free before loading = %.2f GiB (printed to 2 "
            "decimals: +-0.005)\n"
            "  free      = free after loading  = %.2f GiB\n"
            "  f         = mem_fraction_static = %.6g (%s)\n"
            "  available = free - total x (1 - f) = %.2f - %.2f x %.6g\n"
            "            = [%lld, %lld] bytes\n",
            r->free_before_gib.value, r->free_after_gib.value, f,
            x->fraction_from_log ? "the log's" : "kvplan's rule",
            r->free_after_gib.value, r->free_before_gib.value, 1 - f,
            (long long)x->available_lo, (long long)x->available_hi);
    kvplan_plan_options po = cli->o.plan;
    po.gpu = x->gpu;
    po.gpu_set = true;
    po.available_bytes = (kvplan_opt_int){x->available_lo, true};
    kvplan_error err;
    if (kvplan_plan_compute(model, &po, work, &err) == KVPLAN_OK) {
        const kvplan_stage_plan *sp = &work->stages[work->binding_stage];
        fprintf(stdout,
                "  cell_size = %.10g bytes per token (kvplan --explain: its "
                "terms)\n"
                "  max_total_num_tokens = available // cell_size, to a "
                "multiple of page_size %lld\n",
                sp->configurator.cell_size, (long long)work->page_size);
    }
    fprintf(stdout, "            = [%lld, %lld]", (long long)x->tokens_lo,
            (long long)x->tokens_hi);
    if (x->logged_tokens.set)
        fprintf(stdout, "; the log's %lld lies %s",
                (long long)x->logged_tokens.value,
                x->inside ? "inside" : "OUTSIDE");
    fprintf(stdout, "\n");
}

static int usage(FILE *out)
{
    fprintf(out,
            "usage: kvplan log FILE|- [--model-path M] [--gpu NAME | "
            "--gpu-memory SIZE] [sglang flags] [--json] [--calibrate OUT]\n"
            "  reads an sglang start-up log, rebuilds the plan from its "
            "readings and server arguments, and names the cause of each "
            "difference (docs/log.md); flags given here win over the "
            "log's. --explain adds the arithmetic from the log's free memory "
            "to its token count. --calibrate OUT writes what the log measured "
            "on that "
            "GPU, for kvplan --calibration OUT.\n");
    return out == stdout ? CLI_EXIT_OK : CLI_EXIT_USAGE;
}

static int fail(const kvplan_error *err, int rc, bool json)
{
    return cli_error("kvplan log", err, rc, json);
}

int cli_cmd_log(int argc, char **argv)
{
    if (argc < 3 || strcmp(argv[2], "--help") == 0 ||
        strcmp(argv[2], "-h") == 0)
        return usage(argc < 3 ? stderr : stdout);
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
    kvplan_status st;
    if (rest == NULL || r == NULL || cli == NULL || work == NULL || x == NULL) {
        fprintf(stderr, "kvplan log: out of memory\n");
        rc = CLI_EXIT_INTERNAL;
        goto done;
    }
    if (text == NULL) {
        rc = fail(&err, cli_exit_for(err.code), json);
        goto done;
    }
    kvplan_engine engine = kvplan_log_engine(text, len);
    if (engine == KVPLAN_ENGINE_VLLM) {
        rc = cli_log_vllm(path, text, len, n, rest, json, calibrate);
        goto done;
    }
    if (engine == KVPLAN_ENGINE_TRTLLM) {
        rc = cli_log_trtllm(path, text, len, n, rest, json, calibrate);
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
    if (cli_parse_over(n, rest, 0, "log", cli, &err) != KVPLAN_OK) {
        rc = fail(&err, CLI_EXIT_USAGE, json);
        goto done;
    }
    kvplan__log_answer ans;
    st = kvplan__log_question(&cli->o, r, work, x, &ans, &err);
    model = ans.model;
    draft = ans.draft;
    if (st != KVPLAN_OK) {
        rc = fail(&err,
                  err.code == KVPLAN_INVALID_ARGUMENT ? CLI_EXIT_USAGE
                                                      : cli_exit_for(err.code),
                  json);
        goto done;
    }
    const char *model_name = ans.model_name;
    if (cli->json) {
        kvplan__writer w = {0};
        kvplan__w_object(&w, NULL);
        kvplan__doc_log_members(&w, r, model_name, x,
                                cli->o.plan.sglang_version);
        kvplan__w_end(&w);
        if (kvplan__w_print(&w, stdout, true) != 0)
            rc = CLI_EXIT_INTERNAL;
    } else {
        text_report(path, r, model_name, x, cli->o.plan.sglang_version);
        if (cli->o.explain)
            text_explain(cli, r, model, x, work);
    }
    if (calibrate != NULL) {
        kvplan_plan_options o = cli->o.plan;
        o.gpu = x->gpu;
        if (kvplan__calibration_check(r, x, &err) != KVPLAN_OK) {
            fprintf(stderr, "kvplan log: %s\n", err.message);
            rc = CLI_EXIT_BAD_INPUT;
        } else if (cli_calibration_write(calibrate, path, r, &o,
                                         x->gpu_inferred,
                                         model_name ? model_name : "") != 0) {
            fprintf(stderr, "kvplan log: %s: cannot be written\n", calibrate);
            rc = CLI_EXIT_INTERNAL;
        } else if (x->gpu_inferred) {
            fprintf(stderr,
                    "kvplan log: warning: the GPU was inferred (%s); the "
                    "calibration's context is only as good as that guess: "
                    "pass --gpu\n",
                    x->gpu.name);
        }
    }
    if (fflush(stdout) != 0)
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
