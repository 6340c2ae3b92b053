/*
 * report.c: the plan written for a person: one GPU's memory, the pools and
 * their tokens, concurrency, the binding stage, and --explain's terms.
 * Sizes in GiB (2^30, as sglang's logs).
 */
#include "json/doc.h"
#include "report.h"
#include "options/options.h"
#include "common/option_table.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A fraction for a person: 4 significant digits ("0.826", not
 * 0.8260405859375; JSON keeps the exact value). */
static const char *rounded(double x, char *buf)
{
    snprintf(buf, 40, "%.4g", x);
    return buf;
}

void cli_capacity_text(FILE *out, const kvplan_capacity *c, bool per_worker)
{
    int64_t cost[KVPLAN_MAX_POOLS] = {0};
    kvplan_request_cost(c, c->context_len, 0, cost, NULL);
    fprintf(out, "\ncapacity%s:\n", per_worker ? " (per DP worker)" : "");
    fprintf(out, "  %-12s %14s %14s %6s %14s\n", "pool", "tokens",
            "bytes/token", "page", "one request");
    for (size_t i = 0; i < c->num_pools; i++) {
        const kvplan_pool_info *pl = &c->pools[i];
        char bpt[32];
        snprintf(bpt, sizeof bpt, "%.10g", pl->bytes_per_token);
        fprintf(out, "  %-12s %14lld %14s %6lld %14lld\n",
                kvplan_pool_kind_name(pl->kind), (long long)pl->capacity_tokens,
                bpt, (long long)pl->page_size, (long long)cost[i]);
    }
    fprintf(out, "  %-26s %lld tokens (%s binds)\n", "longest request",
            (long long)c->longest_request_tokens,
            kvplan__binding_name(c, c->longest_binding, c->longest_pool));
    fprintf(out, "  %-26s %lld request%s of context_len %lld (%s binds)\n",
            "concurrency", (long long)c->max_concurrency_at_context_len,
            c->max_concurrency_at_context_len == 1 ? "" : "s",
            (long long)c->context_len,
            kvplan__binding_name(c, c->binding, c->binding_pool));
}

/* The sizes given, as read: "--gpu-memory 80GB" is 76294 MiB, not the
 * 81920 a reader of "80 GB" in sglang's log means. */
void cli_sizes_text(FILE *out, const cli_args *cli)
{
    const kvplan_option *o;
    for (size_t k = 0; (o = kvplan_option_at(k)) != NULL; k++) {
        const kvplan__option_row *row = kvplan__row_of(o);
        if (o->type != KVPLAN_OPTION_SIZE ||
            !kvplan__option_given(&cli->o, row))
            continue;
        const void *v = kvplan__option_value(&cli->o, row);
        double mib = row->store == KVPLAN__STORE_GPU_MEMORY
                         ? ((const kvplan_opt_double *)v)->value
                         : (double)((const kvplan_opt_int *)v)->value / 1048576;
        fprintf(out, "read: %s %.0f MiB = %.2f GiB\n", o->flag, mib,
                mib / 1024);
    }
}

/* The first lines: the model, the GPUs, the serving flags, the rules. */
static void text_head(FILE *out, const cli_args *cli,
                      const kvplan_model_info *info, const kvplan_plan *p,
                      const kvplan__doc *d)
{
    const kvplan_server_args *s = &cli->o.plan.server;
    const kvplan_stage_plan *sp = &p->stages[p->binding_stage];
    const kvplan_budget *b = &p->budget;
    char f[40];
    fprintf(out, "kvplan %s: %s (%s)", kvplan_version(), info->name,
            info->architecture);
    long long ranks = (long long)p->fleet.gpus_per_replica;
    long long replicas = (long long)p->fleet.replicas;
    if (b->given)
        fprintf(out, ", available_bytes given (defaults as on %s)\n",
                cli->o.plan.gpu_set ? cli->o.plan.gpu.name
                                    : KVPLAN_DEFAULT_GPU);
    else if (replicas > 1)
        fprintf(out,
                " on %s (%.0f MiB, %s), %lld GPUs: %lld replicas of %lld\n",
                cli->o.plan.gpu.name, b->gpu_mem_mib, cli->o.plan.gpu.arch,
                (long long)p->fleet.gpus, replicas, ranks);
    else
        fprintf(out, " on %s (%.0f MiB, %s), %lld GPU%s\n",
                cli->o.plan.gpu.name, b->gpu_mem_mib, cli->o.plan.gpu.arch,
                ranks, ranks > 1 ? "s" : "");
    fprintf(out,
            "serving: tp %lld, pp %lld, dp %lld%s, page_size %lld, "
            "kv_cache_dtype %s, attention_backend %s\n",
            (long long)s->tp_size, (long long)s->pp_size, (long long)s->dp_size,
            s->enable_dp_attention ? " (dp attention)" : "",
            (long long)p->page_size,
            kvplan__kv_dtype_name(d, sp->rank.runner.kv_cache_dtype),
            p->attention_backend);
    char graphs[48];
    if (cli->o.plan.disable_cuda_graph)
        snprintf(graphs, sizeof graphs, "cuda graphs disabled");
    else
        snprintf(graphs, sizeof graphs, "cuda_graph_max_bs %lld",
                 (long long)p->cuda_graph_max_bs);
    if (!b->given)
        fprintf(out,
                "         chunked_prefill_size %lld, %s, "
                "mem_fraction_static %s%s\n",
                (long long)p->chunked_prefill_size, graphs,
                rounded(b->mem_fraction_static, f),
                b->mem_fraction_auto ? " (sglang's rule)" : "");
    cli_sizes_text(out, cli);
    /* the rules followed, always said: a later sglang moves some plans */
    int n = 0;
    kvplan_rule_info r;
    for (size_t i = 0; kvplan_rule_at(i, &r); i++)
        n += (p->rules & r.bit) != 0;
    if (p->sglang_version == KVPLAN_SGLANG_SEED && p->rules == 0)
        fprintf(out,
                "sglang: the seed's rules (6cc9352d, about 0.5.16; exact); "
                "for 0.5.17 on: --sglang-version main\n");
    else
        fprintf(out,
                "sglang: %s's rules (%d differ from the seed's, %s; "
                "--compare-version seed lists them)\n",
                kvplan_sglang_profile_name(p->sglang_version), n,
                kvplan_sglang_profile_exact(p->sglang_version) ? "exact"
                                                               : "approximate");
}

/* One GPU's memory, term by term (req_to_token, activations and CUDA
 * graphs come out of the reserve, docs/sglang-rules.md §3.4; the mamba
 * state out of the budget). */
static void text_memory(FILE *out, const cli_args *cli,
                        const kvplan_stage_plan *sp, const kvplan_budget *b)
{
    double total = b->gpu_mem_mib / 1024.0;
    double kv = (double)sp->allocation.kv_bytes / GIB;
    double draft_kv = (double)sp->allocation.draft_kv_bytes / GIB;
    double mamba = (double)sp->allocation.mamba_state_bytes / GIB;
    double req = (double)sp->allocation.req_to_token_bytes / GIB;
    double reserve = b->pre_load_gib * (1 - b->mem_fraction_static);
    double weights = (double)(sp->weight_bytes + sp->draft_weight_bytes) / GIB;
    double ctx = b->context_overhead_bytes / GIB;
    fprintf(out, "\none GPU's memory (PP stage %lld)%*sGiB\n",
            (long long)sp->pp_rank, 24, "");
    fprintf(out, "  %-44s %8.2f\n", "total", total);
    char label[64];
    snprintf(label, sizeof label, "CUDA context, NCCL (%s)",
             kvplan_source_name(b->context_source));
    fprintf(out, "  %-44s %8.2f\n", label, ctx);
    if (b->context_basis != NULL) /* the row of the context table */
        fprintf(out, "    %s\n", b->context_basis);
    char measured_label[64] = "";
    if (cli->loaded.weights_measured)
        snprintf(measured_label, sizeof measured_label,
                 "  (config.json's estimate: %.2f)",
                 b->estimated_rank_weight_bytes / GIB);
    fprintf(out, "  %-44s %8.2f%s\n",
            cli->loaded.weights_measured && cli->loaded.hub_dir[0]
                ? "weights (the checkpoint's headers, measured)"
            : cli->loaded.weights_measured ? "weights (safetensors, measured)"
            : b->weights_source == KVPLAN_SOURCE_MEASURED
                ? "weights (measured: calibration)"
            : b->weights_estimated ? "weights (estimated from config.json)"
                                   : "weights (--weight-bytes)",
            weights, measured_label);
    fprintf(out, "  %-44s %8.2f\n", "KV cache pools", kv);
    if (draft_kv > 0)
        fprintf(out, "  %-44s %8.2f\n", "draft KV pool", draft_kv);
    if (mamba > 0)
        fprintf(out, "  %-44s %8.2f\n", "mamba state", mamba);
    fprintf(out, "  %-44s %8.2f\n", "reserve (1 - mem_fraction_static)",
            reserve);
    fprintf(out, "  %-44s %8.2f\n", "  of which the req_to_token pool", req);
    double left = total - ctx - weights - kv - draft_kv - mamba - reserve;
    fprintf(out, "  %-44s %8.2f\n",
            left < -0.005 ? "overcommit (pool rows beyond their price)"
                          : "left over (padding pages, rounding)",
            fabs(left) < 0.005 ? 0.0 : left);
}

/* The configurator, its pools and what they allocate, the capacity, the
 * PP stages. */
static void text_pools(FILE *out, const cli_args *cli, const kvplan_plan *p)
{
    const kvplan_server_args *s = &cli->o.plan.server;
    const kvplan_stage_plan *sp = &p->stages[p->binding_stage];
    const kvplan_configurator *c = &sp->configurator;
    const kvplan_pool_config *pools = &sp->pools;
    char coef[40];
    /* rounded for a person: 7705.45, not 7705.450000000001 (JSON and
     * --explain keep the exact value) */
    double coefficient = c->kind == KVPLAN_CONFIGURATOR_DSV4
                             ? c->bytes_per_full_token
                             : c->cell_size;
    snprintf(coef, sizeof coef, "%.10g", coefficient);
    fprintf(out, "\nKV cache: %s\n", kvplan_configurator_name(c->kind));
    fprintf(out, "  %-26s %s bytes per token\n",
            c->kind == KVPLAN_CONFIGURATOR_DSV4 ? "bytes_per_full_token"
                                                : "cell_size",
            coef);
    fprintf(out, "  %-26s %lld\n", "available_bytes",
            (long long)sp->available_bytes);
    fprintf(out, "  %-26s %lld\n", "max_total_num_tokens",
            (long long)pools->max_total_num_tokens);
    if (pools->full_max_total_num_tokens.set)
        fprintf(out, "  %-26s %lld\n", "full_max_total_num_tokens",
                (long long)pools->full_max_total_num_tokens.value);
    if (pools->swa_max_total_num_tokens.set)
        fprintf(out, "  %-26s %lld\n", "swa_max_total_num_tokens",
                (long long)pools->swa_max_total_num_tokens.value);
    if (c->kind == KVPLAN_CONFIGURATOR_SWA_CHUNK_CAP)
        fprintf(out, "  %-26s %lld\n", "swa_cap", (long long)c->swa_cap);
    if (c->kind == KVPLAN_CONFIGURATOR_DSV4) {
        fprintf(out, "  %-26s %lld\n", "c4_max_total_num_tokens",
                (long long)pools->c4_max_total_num_tokens);
        fprintf(out, "  %-26s %lld\n", "c128_max_total_num_tokens",
                (long long)pools->c128_max_total_num_tokens);
        fprintf(out, "  %-26s %lld\n", "c4_state_pool_size",
                (long long)pools->c4_state_pool_size);
        fprintf(out, "  %-26s %lld\n", "c128_state_pool_size",
                (long long)pools->c128_state_pool_size);
    }
    fprintf(out, "  %-26s %lld%s\n", "max_running_requests",
            (long long)p->max_running_requests,
            s->enable_dp_attention && s->dp_size > 1 ? " (per DP worker)" : "");
    fprintf(out, "  %-26s %lld\n", "context_len", (long long)p->context_len);
    fprintf(out,
            "  %-26s %lld bytes KV (the configurator prices %lld), "
            "%lld req_to_token\n",
            "allocated", (long long)sp->allocation.kv_bytes,
            (long long)sp->allocation.predicted_kv_bytes,
            (long long)sp->allocation.req_to_token_bytes);
    cli_capacity_text(out, &p->capacity,
                      s->enable_dp_attention && s->dp_size > 1);
    if (p->num_stages > 1) {
        fprintf(out, "\nPP stages (the cluster takes the minimum):\n");
        for (size_t i = 0; i < p->num_stages; i++) {
            const kvplan_stage_plan *st = &p->stages[i];
            kvplan__coefficient_text(&st->configurator, coef);
            fprintf(out,
                    "  stage %lld: layers [%lld, %lld), coefficient %s, "
                    "profiled %lld tokens%s\n",
                    (long long)st->pp_rank,
                    (long long)st->rank.runner.start_layer,
                    (long long)st->rank.runner.end_layer, coef,
                    (long long)st->profiled.max_total_num_tokens,
                    i == p->binding_stage ? " (binds)" : "");
        }
    }
}

/* --explain's lines, and the notes. */
static void text_notes(FILE *out, const cli_args *cli, const kvplan_plan *p,
                       const kvplan__doc *d)
{
    const kvplan_stage_plan *sp = &p->stages[p->binding_stage];
    kvplan__lines l; /* its 15 KiB of text are written before read */
    l.n = l.dropped = 0;
    if (cli->o.explain) {
        kvplan__explain_cell(&l, sp);
        kvplan__explain_budget(&l, d, p);
        kvplan__explain_serving(&l, d, p);
        fprintf(out, "\nexplain:\n");
        for (size_t i = 0; i < l.n; i++)
            fprintf(out, "  %s\n", l.text[i]);
        if (l.dropped > 0)
            fprintf(out, "  (%zu more lines left out)\n", l.dropped);
        l.n = l.dropped = 0;
    }
    kvplan__notes(&l, p);
    kvplan__hub_notes(&l, d);
    if (kvplan__not_read(&cli->o, 0) != NULL) {
        char names[600];
        size_t n = 0;
        const kvplan_option *g;
        for (size_t i = 0;
             (g = kvplan__not_read(&cli->o, i)) != NULL && n < sizeof names;
             i++)
            n += (size_t)snprintf(names + n, sizeof names - n, "%s%s",
                                  i ? ", " : "", g->flag);
        kvplan__lines_add(&l, "sglang flags kvplan does not read: %s", names);
    }
    if (l.n > 0) {
        fprintf(out, "\nnotes:\n");
        for (size_t i = 0; i < l.n; i++)
            fprintf(out, "  - %s\n", l.text[i]);
    }
}

int cli_report_text(FILE *out, const cli_args *cli, const kvplan_model *model,
                    const kvplan_plan *p)
{
    kvplan__doc d = cli_doc(cli, model);
    text_head(out, cli, kvplan_model_get_info(model), p, &d);
    if (!p->budget.given)
        text_memory(out, cli, &p->stages[p->binding_stage], &p->budget);
    text_pools(out, cli, p);
    text_notes(out, cli, p, &d);
    return ferror(out) ? -1 : 0;
}

void cli_log_reading(FILE *out, const char *name, kvplan_opt_double v)
{
    if (v.set)
        fprintf(out, "  %-34s %12.2f\n", name, v.value);
}

void cli_log_count(FILE *out, const char *name, kvplan_opt_int v)
{
    if (v.set)
        fprintf(out, "  %-34s %12lld\n", name, (long long)v.value);
}
