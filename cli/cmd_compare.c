/*
 * cmd_compare.c: kvplan compare: the same model, GPU and parallelism under
 * sglang, vLLM and TensorRT-LLM, side by side, and why their figures
 * differ (kvplan_compare; docs/engines.md). Each engine reads its own
 * flags; one an engine cannot plan is shown with its reason.
 */
#include "cli.h"
#include "engines.h"
#include "json/doc.h"
#include "report.h"

#include <stdlib.h>
#include <string.h>

static void text(const kvplan_model *m, const cli_args *cli,
                 const kvplan_comparison *x)
{
    FILE *out = stdout;
    const kvplan_engine_column *c = x->columns;
    const kvplan_model_info *info = kvplan_model_get_info(m);
    const kvplan_plan_options *p = &cli->o.plan;
    fprintf(out,
            "kvplan %s compare: %s (%s) on %s, tp %lld, pp %lld: %lld GPU%s\n",
            kvplan_version(), info->name, info->architecture,
            p->gpu_set ? p->gpu.name : KVPLAN_DEFAULT_GPU,
            (long long)p->server.tp_size, (long long)p->server.pp_size,
            (long long)x->fleet.gpus, x->fleet.gpus == 1 ? "" : "s");
    fprintf(out,
            "rules: sglang %s's; vLLM %s's (--vllm-version); TensorRT-LLM "
            "%s's (--trtllm-version)\n\n",
            kvplan_sglang_profile_name(p->sglang_version),
            kvplan_vllm_profile_name(cli->o.engine_options.vllm_version),
            kvplan_trtllm_profile_name(cli->o.engine_options.trtllm_version));
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
                    snprintf(cell, sizeof cell, "%.2f",
                             c[i].weight_bytes / GIB);
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
                    kvplan__tokens_are(c[i].engine, x->vllm.vllm_rules,
                                       x->trtllm.kv_cache_manager));
        else
            fprintf(out, "  %s: not planned: %s\n",
                    kvplan_engine_name(c[i].engine), c[i].error);
    fprintf(out, "\nwhy they differ:\n");
    for (size_t i = 0; i < x->num_reasons; i++)
        fprintf(out, "  - %s\n",
                kvplan__reason_text(x->reasons[i], x->sglang_rules));
    fprintf(out, "\nvLLM's and TensorRT-LLM's activation, non-torch and CUDA "
                 "graph terms are estimates (kvplan --engine vllm shows "
                 "them; set them from a log)\n");
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
        fprintf(stderr, "kvplan compare: out of memory\n");
        rc = CLI_EXIT_INTERNAL;
    } else if (cli_parse(argc, argv, 2, "compare", cli, &err) != KVPLAN_OK) {
        rc = cli_error("kvplan compare", &err, CLI_EXIT_USAGE, json);
    } else if (cli->help) {
        fprintf(stdout,
                "usage: kvplan compare [--model-path MODEL] [flags]\n"
                "  the model under sglang, vLLM and TensorRT-LLM side by "
                "side: each engine reads its own flags (kvplan --help)\n");
    } else if (cli_load(cli, &model, &draft, &err) != KVPLAN_OK) {
        rc = cli_error("kvplan compare", &err, cli_exit_for(err.code), json);
    } else if (kvplan_compare(model, &cli->o, plan, x, &err) != KVPLAN_OK) {
        rc = cli_error("kvplan compare", &err, cli_exit_for(err.code), json);
    } else if (json) {
        kvplan__doc d = {&cli->o, &cli->loaded, model, {NULL, NULL, NULL}};
        kvplan__writer w = {0};
        kvplan__doc_compare(&w, &d, x);
        if (kvplan__w_print(&w, stdout, true) != 0)
            rc = CLI_EXIT_INTERNAL;
    } else {
        text(model, cli, x);
    }
    if (fflush(stdout) != 0)
        rc = CLI_EXIT_INTERNAL;
    kvplan_model_free(model);
    kvplan_model_free(draft);
    free(plan);
    free(x);
    free(cli);
    return rc;
}
