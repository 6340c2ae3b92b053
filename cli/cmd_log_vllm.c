/*
 * cmd_log_vllm.c: kvplan log FILE for a vLLM start-up log (docs/log.md,
 * "vLLM logs"): what it printed, the blocks and "GPU KV cache size" from
 * its own available memory, kvplan's own budget on the GPU named, and a
 * cause for each difference. cmd_log.c hands a log here when
 * kvplan_log_engine says it is vLLM's.
 */
#include "calibration.h"
#include "cli.h"
#include "flags.h"
#include "report.h"
#include "options/options.h"
#include "json/doc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void text_report(FILE *out, const char *path,
                        const kvplan_vllm_log_readings *r, const char *model,
                        const kvplan_engine_options *eo,
                        const kvplan_vllm_log_result *x)
{
    fprintf(out,
            "kvplan %s log %s: %lld lines, %lld read; vLLM's; %lld "
            "worker%s\n",
            kvplan_version(), path, (long long)r->lines,
            (long long)r->lines_used,
            (long long)(r->workers > 0 ? r->workers : 1),
            r->workers > 1 ? "s" : "");
    fprintf(out, "model: %s%s%s%s\n", model != NULL ? model : "none",
            r->model[0] ? " (the log's " : "", r->model,
            r->model[0] ? ")" : "");
    fprintf(out, "vLLM: %s; planned with the rules of %s%s\n",
            r->version[0] ? r->version : "not named in the log",
            kvplan_vllm_profile_name(x->profile),
            x->profile_from_log ? " (the log's version)" : " (--vllm-version)");
    fprintf(out, "GPU: %s\n",
            eo->gpu_set ? eo->gpu.name
                        : "not named (--gpu NAME adds kvplan's own budget)");
    fprintf(out, "\nthe log printed\n");
    cli_log_reading(out, "weights per GPU, GiB", r->weights_gib);
    cli_log_reading(out, "free at start, GiB", r->free_gib);
    cli_log_reading(out, "total, GiB", r->total_gib);
    cli_log_reading(out, "peak activation, GiB", r->activation_gib);
    cli_log_reading(out, "non-torch, GiB", r->non_torch_gib);
    cli_log_reading(out, "CUDA graphs estimated, GiB", r->graph_estimate_gib);
    cli_log_reading(out, "CUDA graphs captured, GiB", r->graph_taken_gib);
    cli_log_reading(out, "available KV cache memory, GiB", r->available_gib);
    cli_log_count(out, "num_gpu_blocks", r->num_gpu_blocks);
    cli_log_count(out, "GPU KV cache size, tokens", r->kv_cache_tokens);
    cli_log_reading(out, "maximum concurrency", r->max_concurrency);
    if (r->refusal[0] != '\0')
        fprintf(out, "  refused: %s\n", r->refusal);
    if (x->interval)
        fprintf(out,
                "\nfrom the log's own %.2f GiB (+-0.005: [%lld, %lld] "
                "bytes):\n  num_gpu_blocks [%lld, %lld]; GPU KV cache size "
                "[%lld, %lld]: the log's lie %s\n",
                r->available_gib.value, (long long)x->available_lo,
                (long long)x->available_hi, (long long)x->blocks_lo,
                (long long)x->blocks_hi, (long long)x->tokens_lo,
                (long long)x->tokens_hi, x->inside ? "inside" : "OUTSIDE");
    if (x->modelled)
        fprintf(out,
                "\nkvplan's own budget on the %s (no figure of the log):\n"
                "  weights %.2f GiB, KV cache %.2f GiB, %lld blocks, GPU KV "
                "cache size %lld tokens (%+.2f %% against the log's)\n",
                eo->gpu.name, x->weights_gib, x->available_gib,
                (long long)x->blocks, (long long)x->tokens, x->error_pct);
    if (x->num_causes > 0)
        fprintf(out, "\ncauses:\n");
    for (size_t i = 0; i < x->num_causes; i++)
        fprintf(out, "  - %s (%s): %s\n",
                kvplan_log_cause_name(x->causes[i].code), x->causes[i].row,
                x->causes[i].text);
}

/* --calibrate OUT: the log's terms (kvplan_vllm_log_calibrate) as a file
 * kvplan --calibration reads back into the engine's options. */
static int write_calibration(const char *out, const char *path,
                             const char *model, const kvplan_engine_options *eo,
                             const kvplan_vllm_log_readings *r, bool json)
{
    kvplan_vllm_calibration c;
    kvplan_error err;
    if (kvplan_vllm_log_calibrate(r, eo, &c, &err) != KVPLAN_OK)
        return cli_error("kvplan log", &err, CLI_EXIT_USAGE, json);
    kvplan__writer w = {0};
    kvplan__doc_vllm_calibration(&w, NULL, path, model, eo, r, &c);
    int rc =
        cli_calibration_save(out, &w) == 0 ? CLI_EXIT_OK : CLI_EXIT_INTERNAL;
    if (rc != CLI_EXIT_OK)
        fprintf(stderr, "kvplan log: %s: cannot be written\n", out);
    return rc;
}

int cli_log_vllm(const char *path, const char *text, size_t len, int argc,
                 char **argv, bool json, const char *calibrate)
{
    kvplan_vllm_log_readings *r = malloc(sizeof *r);
    cli_args *cli = malloc(sizeof *cli);
    kvplan_vllm_log_result *x = malloc(sizeof *x);
    kvplan__log_answer ans = {0};
    kvplan_error err;
    int rc = CLI_EXIT_OK;
    if (r == NULL || cli == NULL || x == NULL) {
        fprintf(stderr, "kvplan log: out of memory\n");
        rc = CLI_EXIT_INTERNAL;
        goto done;
    }
    memset(cli, 0, sizeof *cli);
    kvplan_options_init(&cli->o);
    kvplan_engine_options eo;
    if (kvplan_vllm_log_parse(text, len, r, &err) != KVPLAN_OK ||
        kvplan__vllm_log_apply(r, &cli->o, &err) != KVPLAN_OK) {
        rc = cli_error("kvplan log", &err, CLI_EXIT_BAD_INPUT, json);
        goto done;
    }
    if (cli_parse_over(argc, argv, 0, "log", cli, &err) != KVPLAN_OK) {
        rc = cli_error("kvplan log", &err, CLI_EXIT_USAGE, json);
        goto done;
    }
    if (kvplan__vllm_log_question(&cli->o, r, &eo, x, &ans, &err) !=
        KVPLAN_OK) {
        rc = cli_error("kvplan log", &err, cli_exit_for(err.code), json);
        goto done;
    }
    if (cli->json) {
        kvplan__writer w = {0};
        kvplan__doc_vllm_log(&w, r, ans.model_name, &eo, x, NULL);
        if (kvplan__w_print(&w, stdout, true) != 0)
            rc = CLI_EXIT_INTERNAL;
    } else {
        text_report(stdout, path, r, ans.model_name, &eo, x);
    }
    if (fflush(stdout) != 0)
        rc = CLI_EXIT_INTERNAL;
    if (rc == CLI_EXIT_OK && calibrate != NULL)
        rc = write_calibration(calibrate, path, ans.model_name, &eo, r,
                               cli->json);
done:
    kvplan__log_answer_free(&ans);
    free(r);
    free(cli);
    free(x);
    return rc;
}
