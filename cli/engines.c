/*
 * engines.c: --engine vllm|trtllm (what that engine would allocate for the
 * same model and GPU) and `kvplan compare` (sglang, vLLM and TensorRT-LLM
 * side by side, and why they differ); docs/engines.md.
 */
#include "engines.h"

#include "cli.h"
#include "json/doc.h"
#include "launch.h"
#include "report.h"

#include <stdlib.h>
#include <string.h>

#define GIB 1073741824.0

static void term_text(FILE *out, const char *what, double bytes,
                      kvplan_source src)
{
    fprintf(out, "  %-40s %8.2f  (%s)\n", what, bytes / GIB,
            kvplan_source_name(src));
}

void cli_engine_text(FILE *out, const cli_args *cli, const kvplan_model *model,
                     const kvplan_engine_plan *p)
{
    const kvplan_model_info *info = kvplan_model_get_info(model);
    bool vllm = p->engine == KVPLAN_ENGINE_VLLM;
    fprintf(out, "kvplan %s: %s (%s) under %s on %s, tp %lld, pp %lld\n",
            kvplan_version(), info->name, info->architecture,
            vllm ? "vLLM" : "TensorRT-LLM",
            cli->o.plan.gpu_set ? cli->o.plan.gpu.name : KVPLAN_DEFAULT_GPU,
            (long long)cli->o.plan.server.tp_size,
            (long long)cli->o.plan.server.pp_size);
    cli_sizes_text(out, cli);
    if (vllm)
        fprintf(out,
                "rules: vLLM %s (--vllm-version; v1 at 3f6f508e1 and the "
                "rules since, docs/engines.md)\n",
                kvplan_vllm_profile_name(p->vllm_version));
    else
        fprintf(out,
                "rules: TensorRT-LLM %s (--trtllm-version; its PyTorch "
                "flow, KvCacheCreator, docs/engines.md)\n",
                kvplan_trtllm_profile_name(p->trtllm_version));
    fprintf(out, "\none GPU's memory%*sGiB\n", 33, "");
    fprintf(out, "  %-40s %8.2f\n", "memory.total (nvidia-smi)",
            p->memory_total_bytes / GIB);
    term_text(out, "the driver's reserve", p->reserved_bytes,
              p->reserved_source);
    fprintf(out, "  %-40s %8.2f\n", "total (CUDA's, as the engine reads it)",
            p->total_bytes / GIB);
    if (vllm)
        fprintf(out, "  %-40s %8.2f\n", "requested (gpu_memory_utilization)",
                p->requested_bytes / GIB);
    term_text(out, "weights", p->weight_bytes, p->weight_source);
    term_text(out, "profile run's peak (activations)", p->activation_bytes,
              p->activation_source);
    term_text(out, "non-torch (NCCL, cuBLAS)", p->non_torch_bytes,
              p->non_torch_source);
    term_text(out, "CUDA graphs", p->cuda_graph_bytes, p->cuda_graph_source);
    fprintf(out, "  %-40s %8.2f%s\n", "KV cache",
            (double)p->available_bytes / GIB,
            p->available_given ? "  (--kv-cache-memory)" : "");
    bool dsa = vllm && p->num_groups == 2 && kvplan__engine_groups(p) == 1;
    if (dsa)
        fprintf(out,
                "\nKV cache: 1 group of %lld MLA layers, each with its "
                "indexer cache, block_size %lld\n",
                (long long)p->groups[0].layers, (long long)p->block_size);
    else if (vllm)
        fprintf(out,
                "\nKV cache: %lld group%s of %lld layers, block_size %lld\n",
                (long long)kvplan__engine_groups(p),
                kvplan__engine_groups(p) == 1 ? "" : "s",
                (long long)p->group_size, (long long)p->block_size);
    else if (p->kv_cache_manager == 2)
        fprintf(out,
                "\nKV cache: %lld layers, tokens_per_block %lld, KV cache "
                "manager V2 (a slot is a block of every layer of a row)\n",
                (long long)p->group_size, (long long)p->block_size);
    else
        fprintf(out, "\nKV cache: %lld layers, tokens_per_block %lld\n",
                (long long)p->group_size, (long long)p->block_size);
    fprintf(out, "  %-16s %7s %8s %12s %7s %16s%s\n", "spec", "layers",
            vllm ? "padding" : "window", "page bytes", "block", "one request",
            vllm ? "" : "     blocks");
    for (size_t i = 0; i < p->num_groups; i++) {
        const kvplan_engine_group *g = &p->groups[i];
        fprintf(out, "  %-16s %7lld %8lld %12lld %7lld %16lld",
                kvplan_engine_spec_name(g->spec), (long long)g->layers,
                (long long)(vllm ? g->padding_layers : g->window),
                (long long)g->page_bytes, (long long)g->block_size,
                (long long)g->max_usage_bytes);
        if (!vllm)
            fprintf(out, " %10lld", (long long)g->num_blocks);
        fprintf(out, "\n");
    }
    char tok[40], len[40];
    fprintf(out, "  %-26s %lld\n", "num_gpu_blocks",
            (long long)p->num_gpu_blocks);
    if (vllm) {
        if (p->padding_layers > 0)
            fprintf(out, "  %-26s %lld (group size %lld)\n",
                    p->packed_groups ? "padding layer tuples"
                                     : "padding layers",
                    (long long)p->padding_layers, (long long)p->group_size);
        fprintf(out, "\nas vLLM logs it:\n  GPU KV cache size: %s tokens\n",
                kvplan__grouped(p->kv_cache_tokens, tok, sizeof tok));
        fprintf(out, "  Maximum concurrency for %s tokens per request: %.2fx\n",
                kvplan__grouped(p->max_model_len, len, sizeof len),
                p->max_concurrency);
    } else {
        int64_t host = 0;
        for (size_t i = 0; i < p->num_groups; i++)
            host += p->groups[i].host_blocks;
        if (host > 0)
            fprintf(out, "  %-26s %lld (--host-cache-size)\n", "host blocks",
                    (long long)host);
        fprintf(out, "  %-26s %lld bytes\n", "kv size per token",
                (long long)p->bytes_per_token);
        fprintf(out, "  %-26s %lld\n",
                p->kv_cache_manager == 2 ? "tokens (slots x block)"
                                         : "max_tokens",
                (long long)p->kv_cache_tokens);
        fprintf(out, "  %-26s %.2f requests of %lld tokens\n", "concurrency",
                p->max_concurrency, (long long)p->max_model_len);
    }
    char text[KVPLAN__ENGINE_NOTES][KVPLAN__ENGINE_NOTE];
    size_t nnotes = kvplan__engine_notes(p, text);
    if (nnotes > 0)
        fprintf(out, "\nnotes:\n");
    for (size_t i = 0; i < nnotes; i++)
        fprintf(out, "  - %s\n", text[i]);
}

/* --compare-version under --engine vllm or trtllm: the two releases'
 * plans (with TensorRT-LLM's manager) and each rule they differ in,
 * alone. */
typedef struct compare_view {
    const char *engine, *name[2], *tokens;
    const kvplan_engine_version_figures *f[2];
    int32_t manager[2]; /* TensorRT-LLM's; 0 for vLLM */
    const kvplan_engine_rule_delta *rules;
    size_t num_rules;
} compare_view;

static void compare_print(FILE *out, const compare_view *v)
{
    fprintf(out, "\n%s %s against %s (--compare-version):\n", v->engine,
            v->name[0], v->name[1]);
    int width = 10;
    for (int i = 0; i < 2; i++)
        if ((int)strlen(v->name[i]) > width)
            width = (int)strlen(v->name[i]);
    for (int i = 0; i < 2; i++) {
        const kvplan_engine_version_figures *f = v->f[i];
        fprintf(out, "  %-*s ", width, v->name[i]);
        if (f->status != KVPLAN_OK) {
            fprintf(out, "does not start: %s\n", f->error);
            continue;
        }
        if (v->manager[i] > 0)
            fprintf(out, "KV cache manager V%d, ", (int)v->manager[i]);
        fprintf(out, "KV cache %.2f GiB, %lld blocks, %s %lld tokens, %.2fx\n",
                (double)f->available_bytes / GIB, (long long)f->num_gpu_blocks,
                v->tokens, (long long)f->kv_cache_tokens, f->max_concurrency);
    }
    if (v->num_rules == 0)
        fprintf(out, "  no rule kvplan restates differs between them\n");
    for (size_t i = 0; i < v->num_rules; i++) {
        const kvplan_engine_rule_delta *d = &v->rules[i];
        fprintf(out, "  rule %s (%s, %s): %s\n", d->rule.name,
                d->in_plan ? "in this plan" : "in the other", d->rule.source,
                d->rule.summary);
        if (!d->changes)
            fprintf(out, "    alone: no figure of this plan moves\n");
        else if (d->alone.status != KVPLAN_OK)
            fprintf(out, "    alone: does not start: %s\n", d->alone.error);
        else
            fprintf(out, "    alone: %lld blocks, %lld tokens, %.2fx\n",
                    (long long)d->alone.num_gpu_blocks,
                    (long long)d->alone.kv_cache_tokens,
                    d->alone.max_concurrency);
    }
}

static void compare_text(FILE *out, const cli_args *cli,
                         const kvplan_model *model,
                         const kvplan_engine_options *o)
{
    if (o->engine == KVPLAN_ENGINE_VLLM && cli->o.compare_vllm_set) {
        kvplan_engine_version_comparison c;
        if (kvplan_engine_version_compare(model, o, cli->o.compare_vllm_version,
                                          &c, NULL) != KVPLAN_OK)
            return;
        compare_print(out,
                      &(compare_view){"vLLM",
                                      {kvplan_vllm_profile_name(c.profile),
                                       kvplan_vllm_profile_name(c.compared)},
                                      "GPU KV cache size",
                                      {&c.plan, &c.compared_plan},
                                      {0, 0},
                                      c.rules,
                                      c.num_rules});
    } else if (o->engine == KVPLAN_ENGINE_TRTLLM && cli->o.compare_trtllm_set) {
        kvplan_trtllm_version_comparison c;
        if (kvplan_trtllm_version_compare(
                model, o, cli->o.compare_trtllm_version, &c, NULL) != KVPLAN_OK)
            return;
        compare_print(
            out,
            &(compare_view){"TensorRT-LLM",
                            {kvplan_trtllm_profile_name(c.profile),
                             kvplan_trtllm_profile_name(c.compared)},
                            "max_tokens",
                            {&c.plan, &c.compared_plan},
                            {c.kv_cache_manager, c.compared_kv_cache_manager},
                            c.rules,
                            c.num_rules});
    }
}

int cli_engine_report(const cli_args *cli, const kvplan_model *model)
{
    cli_launch_notes(stderr, cli);
    cli_unused_warnings(cli);
    kvplan_engine_options o;
    kvplan_options_engine(&cli->o, cli->o.engine, &o);
    kvplan_engine_plan p;
    kvplan_error err;
    kvplan_status st = kvplan_engine_compute(model, &o, &p, &err);
    if (st != KVPLAN_OK)
        return cli_plan_failed("kvplan", st, &err, cli->json);
    int rc = CLI_EXIT_OK;
    if (cli->json) {
        char notes[2][1200];
        kvplan__doc d = {&cli->o, &cli->loaded, model, {NULL, NULL, NULL}};
        for (int i = 0; i < 2; i++)
            if (cli_launch_note_text(cli, i == 1, notes[i], sizeof notes[i]))
                d.launch_notes[i] = notes[i];
        d.launch_notes[2] = cli->launch.config_note;
        kvplan__writer w = {0};
        kvplan__doc_engine(&w, NULL, &d, &p, true);
        if (kvplan__w_print(&w, stdout, true) != 0)
            rc = CLI_EXIT_INTERNAL;
    } else {
        cli_engine_text(stdout, cli, model, &p);
        compare_text(stdout, cli, model, &o);
    }
    return fflush(stdout) != 0 ? CLI_EXIT_INTERNAL : rc;
}
