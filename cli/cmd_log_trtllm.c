/*
 * cmd_log_trtllm.c: kvplan log FILE for a TensorRT-LLM start-up log
 * (docs/log.md, "TensorRT-LLM logs"): what KvCacheCreator and the KV-cache
 * manager printed, max_tokens and the pool's tokens from the log's own
 * available memory at kvplan's bytes a token, and a cause for each
 * difference. cmd_log.c hands a log here when kvplan_log_engine says it is
 * TensorRT-LLM's.
 */
#include "calibration.h"
#include "cli.h"
#include "flags.h"
#include "report.h"
#include "log/log.h"
#include "options/options.h"
#include "json/doc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void text_report(FILE *out, const char *path,
                        const kvplan_trtllm_log_readings *r, const char *model,
                        const kvplan_trtllm_log_result *x)
{
    fprintf(out, "kvplan %s log %s: %lld lines, %lld read; TensorRT-LLM's\n",
            kvplan_version(), path, (long long)r->lines,
            (long long)r->lines_used);
    fprintf(out, "model: %s\n", model != NULL ? model : "none");
    fprintf(out, "TensorRT-LLM: %s\n",
            r->version[0] ? r->version : "not named in the log");
    fprintf(out, "\nthe log printed\n");
    cli_log_reading(out, "weights per GPU, GiB", r->weights_gib);
    cli_log_reading(out, "activation, GiB", r->activation_gib);
    cli_log_reading(out, "outside torch, GiB", r->outside_torch_gib);
    cli_log_reading(out, "peak, GiB", r->peak_gib);
    cli_log_reading(out, "device total, GiB", r->total_gib);
    cli_log_reading(out, "fraction", r->fraction);
    cli_log_reading(out, "available KV cache memory, GiB", r->available_gib);
    cli_log_count(out, "kv size a token, bytes", r->kv_bytes_per_token);
    cli_log_count(out, "max_tokens", r->max_tokens);
    cli_log_count(out, "tokens per block", r->tokens_per_block);
    cli_log_reading(out, "allocated, GiB", r->allocated_gib);
    cli_log_count(out, "tokens in the pool", r->kv_cache_tokens);
    cli_log_count(out, "max_batch_size", r->max_batch_size);
    cli_log_reading(out, "estimated max memory, GiB", r->estimated_gib);
    cli_log_reading(out, "V2 device quota, GiB", r->v2_quota_gib);
    fprintf(out, "\nKV cache manager: V%d (%s)\n", (int)x->kv_cache_manager,
            r->v2_quota_gib.set        ? "its device quota line"
            : x->kv_cache_manager == 2 ? "the model's: no device quota line"
                                       : "no V2 device quota line");
    if (x->v2_slots > 0)
        fprintf(out,
                "  at the quota's %lld bytes kvplan's V2 pool holds %lld "
                "slots; the log prints no count to hold them against\n",
                (long long)x->v2_quota_bytes, (long long)x->v2_slots);
    if (x->interval) {
        fprintf(out,
                "\nfrom the log's own %.2f GiB (+-0.005: [%lld, %lld] "
                "bytes) at ",
                kvplan__trtllm_log_budget(r).value, (long long)x->available_lo,
                (long long)x->available_hi);
        if (x->bytes_per_token > 0)
            fprintf(out, "kvplan's %lld bytes a token (%s):\n",
                    (long long)x->bytes_per_token,
                    x->bytes_match ? "the log's" : "not the log's");
        else
            fprintf(out, "the log's %lld bytes a token:\n",
                    (long long)r->kv_bytes_per_token.value);
        fprintf(out,
                "  max_tokens [%lld, %lld]; tokens in the pool [%lld, %lld]: "
                "the log's lie %s\n",
                (long long)x->max_tokens_lo, (long long)x->max_tokens_hi,
                (long long)x->tokens_lo, (long long)x->tokens_hi,
                x->inside ? "inside" : "OUTSIDE");
    }
    if (x->pool_bytes > 0)
        fprintf(out,
                "\nthe pool's %lld tokens at kvplan's bytes a token: %lld "
                "bytes, %.2f GiB (%s the log's %.2f)\n",
                (long long)r->kv_cache_tokens.value, (long long)x->pool_bytes,
                (double)x->pool_bytes / 1073741824.0,
                x->pool_match ? "as" : "NOT", r->allocated_gib.value);
    if (x->num_causes > 0)
        fprintf(out, "\ncauses:\n");
    for (size_t i = 0; i < x->num_causes; i++)
        fprintf(out, "  - %s (%s): %s\n",
                kvplan_log_cause_name(x->causes[i].code), x->causes[i].row,
                x->causes[i].text);
}

/* --calibrate OUT: the log's terms (kvplan_trtllm_log_calibrate) as a
 * file kvplan --calibration reads back into the engine's options. */
static int write_calibration(const char *out, const char *path,
                             const char *model, const kvplan_engine_options *eo,
                             const kvplan_trtllm_log_readings *r, bool json)
{
    kvplan_trtllm_calibration c;
    kvplan_error err;
    if (kvplan_trtllm_log_calibrate(r, eo, &c, &err) != KVPLAN_OK)
        return cli_error("kvplan log", &err, CLI_EXIT_USAGE, json);
    kvplan__writer w = {0};
    kvplan__doc_trtllm_calibration(&w, path, model, eo, r, &c);
    if (cli_calibration_save(out, &w) == 0)
        return CLI_EXIT_OK;
    fprintf(stderr, "kvplan log: %s: cannot be written\n", out);
    return CLI_EXIT_INTERNAL;
}

int cli_log_trtllm(const char *path, const char *text, size_t len, int argc,
                   char **argv, bool json, const char *calibrate)
{
    kvplan_trtllm_log_readings *r = malloc(sizeof *r);
    cli_args *cli = malloc(sizeof *cli);
    kvplan_trtllm_log_result *x = malloc(sizeof *x);
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
    if (kvplan_trtllm_log_parse(text, len, r, &err) != KVPLAN_OK) {
        rc = cli_error("kvplan log", &err, CLI_EXIT_BAD_INPUT, json);
        goto done;
    }
    if (cli_parse_over(argc, argv, 0, "log", cli, &err) != KVPLAN_OK) {
        rc = cli_error("kvplan log", &err, CLI_EXIT_USAGE, json);
        goto done;
    }
    if (kvplan__trtllm_log_question(&cli->o, r, &eo, x, &ans, &err) !=
        KVPLAN_OK) {
        rc = cli_error("kvplan log", &err, cli_exit_for(err.code), json);
        goto done;
    }
    if (cli->json) {
        kvplan__writer w = {0};
        kvplan__doc_trtllm_log(&w, r, ans.model_name, &eo, x);
        if (kvplan__w_print(&w, stdout, true) != 0)
            rc = CLI_EXIT_INTERNAL;
    } else {
        text_report(stdout, path, r, ans.model_name, x);
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
