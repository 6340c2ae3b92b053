/*
 * cmd_compare.c: kvplan compare: the same model, GPU and parallelism under
 * sglang, vLLM and TensorRT-LLM, side by side, and why their figures
 * differ (docs/engines.md). Each engine reads its own flags; one an engine
 * cannot plan is shown with its reason.
 */
#include "cli.h"
#include "engines.h"
#include "jsonout.h"
#include "report.h"

#include <stdlib.h>
#include <string.h>

#define GIB 1073741824.0

/* One column. */
typedef struct column {
    const char *engine;
    bool ok;
    char error[520];
    double kv_gib;         /* the cache's bytes per rank, state included */
    double state_gib;      /* sglang's mamba slots, part of kv_gib */
    double per_token;      /* bytes per token of full attention, all layers */
    int64_t tokens;        /* the engine's own headline count */
    const char *tokens_is; /* what that count is */
    int64_t len;           /* the request length of the concurrency */
    double concurrency;
    double weights_gib;
} column;

static void sglang_column(const kvplan_model *m, const cli_args *cli,
                          kvplan_plan *p, column *c)
{
    kvplan_error err;
    c->engine = "sglang";
    c->tokens_is = "max_total_num_tokens (the pool's tokens)";
    if (kvplan_plan_compute(m, &cli->o.plan, p, &err) != KVPLAN_OK) {
        snprintf(c->error, sizeof c->error, "%s", err.message);
        return;
    }
    const kvplan_stage_plan *sp = &p->stages[p->binding_stage];
    c->ok = true;
    /* vLLM's one pool holds the mamba state with the KV; sglang reserves
     * the state's slots beside its KV budget, so the column adds them */
    c->state_gib = (double)sp->allocation.mamba_state_bytes / GIB;
    c->kv_gib = (double)sp->available_bytes / GIB + c->state_gib;
    c->per_token = sp->configurator.kind == KVPLAN_CONFIGURATOR_DSV4
                       ? sp->configurator.bytes_per_full_token
                       : sp->configurator.cell_size;
    c->tokens = p->max_total_num_tokens;
    c->len = p->context_len;
    c->concurrency = (double)p->capacity.max_concurrency_at_context_len;
    c->weights_gib = (double)sp->weight_bytes / GIB;
}

static void engine_column(const kvplan_model *m, const cli_args *cli,
                          kvplan_engine e, kvplan_engine_plan *p, column *c)
{
    kvplan_engine_options o;
    cli_engine_options(cli, e, &o);
    kvplan_error err;
    c->engine = kvplan_engine_name(e);
    c->tokens_is = e == KVPLAN_ENGINE_VLLM
                       ? "GPU KV cache size (concurrency x max_model_len)"
                       : "max_tokens (blocks x tokens_per_block)";
    if (kvplan_engine_compute(m, &o, p, &err) != KVPLAN_OK) {
        snprintf(c->error, sizeof c->error, "%s", err.message);
        return;
    }
    c->ok = true;
    c->kv_gib = (double)p->available_bytes / GIB;
    c->per_token = (double)p->bytes_per_token;
    c->tokens = p->kv_cache_tokens;
    c->len = p->max_model_len;
    c->concurrency = p->max_concurrency;
    c->weights_gib = p->weight_bytes / GIB;
}

/* Why the columns differ, in words, for what this model and plan are. */
static size_t reasons(const kvplan_model *m, const kvplan_plan *sg,
                      const kvplan_engine_plan *vl, const column *col,
                      const char *out[8])
{
    const kvplan_model_info *info = kvplan_model_get_info(m);
    size_t n = 0;
    out[n++] = "the budget: sglang keeps 1 - mem_fraction_static of the "
               "memory free before the weights out of the KV cache; vLLM "
               "takes gpu_memory_utilization of the total less what its "
               "profile measures (weights, activation peak, non-torch, "
               "CUDA graphs); TensorRT-LLM free_gpu_memory_fraction of what "
               "is free after its profile's peak";
    out[n++] = "the headline count: sglang's max_total_num_tokens is the "
               "pool's capacity; vLLM's \"GPU KV cache size\" is its "
               "concurrency at max_model_len times max_model_len, so a "
               "sliding-window or mamba model's is more than any pool "
               "holds; TensorRT-LLM's max_tokens is its blocks' tokens";
    if (info->is_hybrid_swa)
        out[n++] = "sliding window: sglang splits a full and an SWA pool "
                   "(--swa-full-tokens-ratio); vLLM keeps window - 1 + "
                   "max_num_batched_tokens tokens per request in the "
                   "sliding layers, in one pool of equal pages (with "
                   "padding layers where the counts differ); TensorRT-LLM "
                   "prices every layer at the whole sequence unless "
                   "max_attention_window is set";
    if (info->is_mambaish)
        out[n++] = "mamba state: sglang reserves its slots beside the KV "
                   "cache (--mamba-full-memory-ratio); vLLM gives each "
                   "mamba layer a block padded to the attention page, and "
                   "grows the attention block to hold one state";
    if (info->is_deepseek_dsa && sg != NULL && vl != NULL)
        out[n++] = "DSA: vLLM's fp8 cache is fp8_ds_mla, 656 bytes a token "
                   "and layer, and its indexer cache is always fp8; the "
                   "seed's sglang prices the fp8 latent at 576 "
                   "(--sglang-version main: 656)";
    if (col[0].ok && col[1].ok && col[0].per_token != col[1].per_token &&
        !info->is_hybrid_swa && !info->is_mambaish)
        out[n++] = "bytes per token: the KV dtype's default differs (sglang "
                   "picks fp8 for DSA on Blackwell and for ModelOpt FP8 "
                   "checkpoints; vLLM and TensorRT-LLM take the model "
                   "dtype unless --kv-cache-dtype says)";
    return n;
}

static json_t *column_json(const column *c)
{
    if (!c->ok)
        return json_pack("{s:s, s:s}", "engine", c->engine, "error", c->error);
    return json_pack("{s:s, s:f, s:o*, s:f, s:I, s:s, s:I, s:f, s:f}", "engine",
                     c->engine, "kv_cache_gib", c->kv_gib, "mamba_state_gib",
                     c->state_gib > 0 ? json_real(c->state_gib) : NULL,
                     "bytes_per_token", c->per_token, "tokens",
                     (json_int_t)c->tokens, "tokens_are", c->tokens_is,
                     "request_tokens", (json_int_t)c->len, "concurrency",
                     c->concurrency, "weights_gib", c->weights_gib);
}

static void text(const kvplan_model *m, const cli_args *cli, const column *c,
                 const char **why, size_t nwhy)
{
    FILE *out = cli_out();
    const kvplan_model_info *info = kvplan_model_get_info(m);
    fprintf(out, "kvplan %s compare: %s (%s) on %s, tp %lld, pp %lld\n\n",
            kvplan_version(), info->name, info->architecture,
            cli->o.plan.gpu_set ? cli->o.plan.gpu.name : KVPLAN_DEFAULT_GPU,
            (long long)cli->o.plan.server.tp_size,
            (long long)cli->o.plan.server.pp_size);
    fprintf(out, "  %-30s %16s %16s %16s\n", "", c[0].engine, c[1].engine,
            c[2].engine);
    const char *rows[] = {"weights per GPU (GiB)", "KV cache per GPU (GiB)",
                          "KV bytes per token",    "tokens",
                          "request length",        "requests at once"};
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        fprintf(out, "  %-30s", rows[r]);
        for (int i = 0; i < 3; i++) {
            char cell[32] = "-";
            if (c[i].ok) {
                switch (r) {
                case 0:
                    snprintf(cell, sizeof cell, "%.2f", c[i].weights_gib);
                    break;
                case 1:
                    snprintf(cell, sizeof cell, "%.2f", c[i].kv_gib);
                    break;
                case 2:
                    snprintf(cell, sizeof cell, "%.10g", c[i].per_token);
                    break;
                case 3:
                    snprintf(cell, sizeof cell, "%lld", (long long)c[i].tokens);
                    break;
                case 4:
                    snprintf(cell, sizeof cell, "%lld", (long long)c[i].len);
                    break;
                default:
                    snprintf(cell, sizeof cell, "%.2f", c[i].concurrency);
                }
            }
            fprintf(out, " %16s", cell);
        }
        fputc('\n', out);
    }
    if (c[0].ok && c[0].state_gib > 0)
        fprintf(
            out,
            "  sglang's KV cache includes its mamba state, %.2f GiB (vLLM's "
            "pool holds both)\n",
            c[0].state_gib);
    for (int i = 0; i < 3; i++)
        if (c[i].ok)
            fprintf(out, "  %s's tokens: %s\n", c[i].engine, c[i].tokens_is);
        else
            fprintf(out, "  %s: not planned: %s\n", c[i].engine, c[i].error);
    fprintf(out, "\nwhy they differ:\n");
    for (size_t i = 0; i < nwhy; i++)
        fprintf(out, "  - %s\n", why[i]);
    fprintf(out, "\nvLLM's and TensorRT-LLM's activation, non-torch and CUDA "
                 "graph terms are estimates (kvplan --engine vllm shows "
                 "them; set them from a log)\n");
}

int cli_cmd_compare(int argc, char **argv)
{
    cli_args *cli = malloc(sizeof *cli);
    kvplan_plan *plan = malloc(sizeof *plan);
    kvplan_engine_plan *vl = malloc(sizeof *vl), *tr = malloc(sizeof *tr);
    kvplan_model *model = NULL, *draft = NULL;
    kvplan_error err;
    bool json = cli_wants_json(argc, argv);
    int rc = CLI_EXIT_OK;
    if (cli == NULL || plan == NULL || vl == NULL || tr == NULL) {
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
    } else {
        column c[3];
        memset(c, 0, sizeof c);
        sglang_column(model, cli, plan, &c[0]);
        engine_column(model, cli, KVPLAN_ENGINE_VLLM, vl, &c[1]);
        engine_column(model, cli, KVPLAN_ENGINE_TRTLLM, tr, &c[2]);
        const char *why[8];
        size_t nwhy =
            reasons(model, c[0].ok ? plan : NULL, c[1].ok ? vl : NULL, c, why);
        if (json) {
            json_t *w = json_array();
            for (size_t i = 0; w != NULL && i < nwhy; i++)
                json_array_append_new(w, json_string(why[i]));
            json_t *doc = json_pack(
                "{s:s, s:i, s:s, s:o, s:[o, o, o], s:o, s:o*, s:o*}",
                "kvplan_version", kvplan_version(), "schema_version", 1,
                "model", kvplan_model_get_info(model)->name, "requested",
                cli_requested_json(cli), "engines", column_json(&c[0]),
                column_json(&c[1]), column_json(&c[2]), "why", w, "vllm",
                c[1].ok ? cli_engine_json(cli, model, vl) : NULL, "trtllm",
                c[2].ok ? cli_engine_json(cli, model, tr) : NULL);
            if (doc == NULL || cli_json_write(doc, cli_out()) != 0 ||
                fputc('\n', cli_out()) == EOF)
                rc = CLI_EXIT_INTERNAL;
            json_decref(doc);
        } else {
            text(model, cli, c, why, nwhy);
        }
        if (fflush(cli_out()) != 0)
            rc = CLI_EXIT_INTERNAL;
    }
    kvplan_model_free(model);
    kvplan_model_free(draft);
    free(plan);
    free(vl);
    free(tr);
    free(cli);
    return rc;
}
