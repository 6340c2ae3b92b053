/*
 * cmd_compare.c: kvplan compare: the same model, GPU and parallelism under
 * sglang, vLLM and TensorRT-LLM, side by side, and why their figures
 * differ (kvplan_compare; docs/engines.md). Each engine reads its own
 * flags; one an engine cannot plan is shown with its reason.
 */
#include "cli.h"
#include "engines.h"
#include "jsonout.h"
#include "report.h"

#include <stdlib.h>
#include <string.h>

#define GIB 1073741824.0

/* What each engine's headline count is. */
static const char *tokens_are(kvplan_engine e)
{
    switch (e) {
    case KVPLAN_ENGINE_SGLANG:
        return "max_total_num_tokens (the pool's tokens)";
    case KVPLAN_ENGINE_VLLM:
        return "GPU KV cache size (concurrency x max_model_len)";
    default:
        return "max_tokens (blocks x tokens_per_block)";
    }
}

/* A reason, in words, for the plan's sglang rules. */
static const char *reason_text(kvplan_compare_reason r, uint64_t rules)
{
    switch (r) {
    case KVPLAN_REASON_BUDGET:
        return "the budget: sglang keeps 1 - mem_fraction_static of the "
               "memory free before the weights out of the KV cache; vLLM "
               "takes gpu_memory_utilization of the total less what its "
               "profile measures (weights, activation peak, non-torch, "
               "CUDA graphs); TensorRT-LLM free_gpu_memory_fraction of what "
               "is free after its profile's peak";
    case KVPLAN_REASON_HEADLINE:
        return "the headline count: sglang's max_total_num_tokens is the "
               "pool's capacity; vLLM's \"GPU KV cache size\" is its "
               "concurrency at max_model_len times max_model_len, so a "
               "sliding-window or mamba model's is more than any pool "
               "holds; TensorRT-LLM's max_tokens is its blocks' tokens";
    case KVPLAN_REASON_SLIDING_WINDOW:
        return "sliding window: sglang splits a full and an SWA pool "
               "(--swa-full-tokens-ratio); vLLM keeps window - 1 + "
               "max_num_batched_tokens tokens per request in the sliding "
               "layers, in one pool of equal pages (with padding layers "
               "where the counts differ); TensorRT-LLM prices every layer "
               "at the whole sequence unless max_attention_window is set";
    case KVPLAN_REASON_MAMBA_STATE:
        return "mamba state: sglang reserves its slots beside the KV cache "
               "(--mamba-full-memory-ratio); vLLM gives each mamba layer a "
               "block padded to the attention page, and grows the "
               "attention block to hold one state";
    case KVPLAN_REASON_DSA_ROW:
        return (rules & KVPLAN_RULE_DSA_FP8_656)
                   ? "DSA: vLLM's fp8 cache is fp8_ds_mla, 656 bytes a token "
                     "and layer, and its indexer cache is always fp8; this "
                     "sglang prices the fp8 latent at 656 too"
                   : "DSA: vLLM's fp8 cache is fp8_ds_mla, 656 bytes a token "
                     "and layer, and its indexer cache is always fp8; the "
                     "seed's sglang prices the fp8 latent at 576 "
                     "(--sglang-version main: 656)";
    case KVPLAN_REASON_KV_DTYPE:
        return "bytes per token: the KV dtype's default differs (sglang "
               "picks fp8 for DSA on Blackwell and for ModelOpt FP8 "
               "checkpoints; vLLM and TensorRT-LLM take the model dtype "
               "unless --kv-cache-dtype says)";
    }
    return "?";
}

static json_t *column_json(const kvplan_engine_column *c)
{
    const char *name = kvplan_engine_name(c->engine);
    if (c->status != KVPLAN_OK)
        return json_pack("{s:s, s:s}", "engine", name, "error", c->error);
    return json_pack(
        "{s:s, s:f, s:o*, s:f, s:I, s:s, s:I, s:f, s:f}", "engine", name,
        "kv_cache_gib", c->kv_bytes / GIB, "mamba_state_gib",
        c->state_bytes > 0 ? json_real(c->state_bytes / GIB) : NULL,
        "bytes_per_token", c->bytes_per_token, "tokens", (json_int_t)c->tokens,
        "tokens_are", tokens_are(c->engine), "request_tokens",
        (json_int_t)c->request_tokens, "concurrency", c->concurrency,
        "weights_gib", c->weight_bytes / GIB);
}

static void text(const kvplan_model *m, const cli_args *cli,
                 const kvplan_comparison *x)
{
    FILE *out = cli_out();
    const kvplan_engine_column *c = x->columns;
    const kvplan_model_info *info = kvplan_model_get_info(m);
    const kvplan_plan_options *p = &cli->o.plan;
    fprintf(out,
            "kvplan %s compare: %s (%s) on %s, tp %lld, pp %lld: %lld GPU%s\n\n",
            kvplan_version(), info->name, info->architecture,
            p->gpu_set ? p->gpu.name : KVPLAN_DEFAULT_GPU,
            (long long)p->server.tp_size, (long long)p->server.pp_size,
            (long long)x->fleet.gpus, x->fleet.gpus == 1 ? "" : "s");
    fprintf(out, "  %-30s %16s %16s %16s\n", "",
            kvplan_engine_name(c[0].engine), kvplan_engine_name(c[1].engine),
            kvplan_engine_name(c[2].engine));
    const char *rows[] = {"weights per GPU (GiB)", "KV cache per GPU (GiB)",
                          "KV bytes per token",    "tokens",
                          "request length",        "requests at once"};
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        fprintf(out, "  %-30s", rows[r]);
        for (int i = 0; i < 3; i++) {
            char cell[32] = "-";
            if (c[i].status == KVPLAN_OK) {
                switch (r) {
                case 0:
                    snprintf(cell, sizeof cell, "%.2f", c[i].weight_bytes / GIB);
                    break;
                case 1:
                    snprintf(cell, sizeof cell, "%.2f", c[i].kv_bytes / GIB);
                    break;
                case 2:
                    snprintf(cell, sizeof cell, "%.10g", c[i].bytes_per_token);
                    break;
                case 3:
                    snprintf(cell, sizeof cell, "%lld", (long long)c[i].tokens);
                    break;
                case 4:
                    snprintf(cell, sizeof cell, "%lld",
                             (long long)c[i].request_tokens);
                    break;
                default:
                    snprintf(cell, sizeof cell, "%.2f", c[i].concurrency);
                }
            }
            fprintf(out, " %16s", cell);
        }
        fputc('\n', out);
    }
    if (c[0].status == KVPLAN_OK && c[0].state_bytes > 0)
        fprintf(out,
                "  sglang's KV cache includes its mamba state, %.2f GiB "
                "(vLLM's pool holds both)\n",
                c[0].state_bytes / GIB);
    for (int i = 0; i < 3; i++)
        if (c[i].status == KVPLAN_OK)
            fprintf(out, "  %s's tokens: %s\n", kvplan_engine_name(c[i].engine),
                    tokens_are(c[i].engine));
        else
            fprintf(out, "  %s: not planned: %s\n",
                    kvplan_engine_name(c[i].engine), c[i].error);
    fprintf(out, "\nwhy they differ:\n");
    for (size_t i = 0; i < x->num_reasons; i++)
        fprintf(out, "  - %s\n", reason_text(x->reasons[i], x->sglang_rules));
    fprintf(out, "\nvLLM's and TensorRT-LLM's activation, non-torch and CUDA "
                 "graph terms are estimates (kvplan --engine vllm shows "
                 "them; set them from a log)\n");
}

static json_t *document(const kvplan_model *model, const cli_args *cli,
                        const kvplan_comparison *x)
{
    json_t *w = json_array();
    for (size_t i = 0; w != NULL && i < x->num_reasons; i++)
        json_array_append_new(
            w, json_string(reason_text(x->reasons[i], x->sglang_rules)));
    const kvplan_engine_column *c = x->columns;
    return json_pack(
        "{s:s, s:i, s:s, s:I, s:o, s:[o, o, o], s:o, s:o*, s:o*}",
        "kvplan_version", kvplan_version(), "schema_version", 1, "model",
        kvplan_model_get_info(model)->name, "gpus", (json_int_t)x->fleet.gpus,
        "requested", cli_requested_json(cli), "engines", column_json(&c[0]),
        column_json(&c[1]), column_json(&c[2]), "why", w, "vllm",
        c[1].status == KVPLAN_OK ? cli_engine_json(cli, model, &x->vllm) : NULL,
        "trtllm",
        c[2].status == KVPLAN_OK ? cli_engine_json(cli, model, &x->trtllm)
                                 : NULL);
}

int cli_cmd_compare(int argc, char **argv)
{
    cli_args *cli = malloc(sizeof *cli);
    kvplan_plan *plan = malloc(sizeof *plan);
    kvplan_comparison *x = malloc(sizeof *x);
    kvplan_model *model = NULL, *draft = NULL;
    kvplan_error err;
    bool json = cli_wants_json(argc, argv);
    int rc = CLI_EXIT_OK;
    if (cli == NULL || plan == NULL || x == NULL) {
        fprintf(cli_err(), "kvplan compare: out of memory\n");
        rc = CLI_EXIT_INTERNAL;
    } else if (cli_parse(argc, argv, 2, NULL, cli, &err) != KVPLAN_OK) {
        rc = cli_error("kvplan compare", &err, CLI_EXIT_USAGE, json);
    } else if (cli->help) {
        fprintf(cli_out(),
                "usage: kvplan compare [--model-path MODEL] [flags]\n"
                "  the model under sglang, vLLM and TensorRT-LLM side by "
                "side: each engine reads its own flags (kvplan --help)\n");
    } else if (cli_load(cli, &model, &draft, &err) != KVPLAN_OK) {
        rc = cli_error("kvplan compare", &err, cli_exit_for(err.code), json);
    } else if (kvplan_compare(model, &cli->o, plan, x, &err) != KVPLAN_OK) {
        rc = cli_error("kvplan compare", &err, cli_exit_for(err.code), json);
    } else if (json) {
        json_t *doc = document(model, cli, x);
        if (doc == NULL || cli_json_write(doc, cli_out()) != 0 ||
            fputc('\n', cli_out()) == EOF)
            rc = CLI_EXIT_INTERNAL;
        json_decref(doc);
    } else {
        text(model, cli, x);
    }
    if (fflush(cli_out()) != 0)
        rc = CLI_EXIT_INTERNAL;
    kvplan_model_free(model);
    kvplan_model_free(draft);
    free(plan);
    free(x);
    free(cli);
    return rc;
}
