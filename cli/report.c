/*
 * report.c: the plan as text and as JSON (see report.h).
 *
 * Both are built from the same "explain" lines and figures, so the text
 * and the JSON cannot disagree. Sizes are bytes in JSON and GiB (2^30, as
 * sglang's logs) in text.
 */
#include "report.h"

#include "scenario.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define GIB 1073741824.0

/* ------------------------------------------------------------------------ */
/* Small formatting helpers                                                  */
/* ------------------------------------------------------------------------ */

typedef struct lines {
    char text[48][320];
    size_t n;
} lines;

#if defined(__GNUC__)
static void add(lines *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
#endif

static void add(lines *l, const char *fmt, ...)
{
    if (l->n >= sizeof l->text / sizeof l->text[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->text[l->n++], sizeof l->text[0], fmt, ap);
    va_end(ap);
}

static const char *repr(double x, char *buf)
{
    kvplan_format_double(x, buf, 40);
    return buf;
}

static const char *kv_flag_name(kvplan_kv_cache_dtype_flag f)
{
    static const char *const names[] = {"auto", "fp8_e5m2", "fp8_e4m3",
                                        "bf16", "fp4_e2m1"};
    return (unsigned)f < 5 ? names[f] : "?";
}

static const char *dtype_flag_name(kvplan_dtype_flag f)
{
    static const char *const names[] = {"auto", "float16", "bfloat16",
                                        "float32"};
    return (unsigned)f < 4 ? names[f] : "?";
}

static const char *disagg_name(kvplan_disaggregation_mode m)
{
    return m == KVPLAN_DISAGG_DECODE    ? "decode"
           : m == KVPLAN_DISAGG_PREFILL ? "prefill"
                                        : "null";
}

/* The configurator's coefficient as sglang's log or the golden file
 * writes it. */
static void coefficient_text(const kvplan_configurator *c, char *buf)
{
    if (c->kind == KVPLAN_CONFIGURATOR_DSV4)
        kvplan_format_double(c->bytes_per_full_token, buf, 40);
    else if (c->cell_size_is_float)
        kvplan_format_double(c->cell_size, buf, 40);
    else
        snprintf(buf, 40, "%lld", (long long)c->cell_size_bytes);
}

/* ------------------------------------------------------------------------ */
/* --explain: every term of the bytes-per-token sum and of the budget        */
/* ------------------------------------------------------------------------ */

static void explain_cell(lines *l, const kvplan_model *model,
                         const kvplan_stage_plan *sp)
{
    const kvplan_rank *r = &sp->rank;
    const kvplan_configurator *c = &sp->configurator;
    /* the terms the configurator priced, not a second derivation */
    const kvplan_configurator_terms *t = &c->terms;
    int64_t tp = r->parallel.attn_tp_size;
    int64_t heads = t->kv_heads;
    int64_t elem = t->kv_dtype_bytes;
    const char *dt = kvplan_dtype_name(r->runner.kv_cache_dtype);
    char a[40], b[40];
    (void)model;
    switch (c->kind) {
    case KVPLAN_CONFIGURATOR_DEFAULT:
        if (r->runner.use_mla_backend) {
            add(l,
                "cell_size: MLA (kv_lora_rank %lld + qk_rope_head_dim %lld) "
                "x %lld layers x %lld bytes (%s)",
                (long long)r->model.kv_lora_rank.value,
                (long long)r->model.qk_rope_head_dim.value,
                (long long)t->priced_layers, (long long)elem, dt);
            if (r->model.hf_config.is_deepseek_dsa)
                add(l,
                    "cell_size: + DSA indexer (index_head_dim %lld + %lld "
                    "scale bytes) x %lld layers x 1 byte",
                    (long long)r->model.hf_config.index_head_dim.value,
                    (long long)(t->dsa_indexer_bytes -
                                r->model.hf_config.index_head_dim.value),
                    (long long)t->priced_layers);
        } else if (r->model.hf_config.is_minimax_sparse) {
            add(l,
                "cell_size: MiniMax sparse: K+V of every local layer, %lld "
                "heads x head_dim %lld x %lld bytes, plus the indexer "
                "(sparse_index_dim %lld, model dtype)",
                (long long)heads, (long long)r->model.head_dim.value,
                (long long)elem,
                (long long)r->model.hf_config.minimax_sparse.sparse_index_dim
                    .value);
        } else {
            add(l,
                "cell_size: %lld KV heads per rank (%lld // attn_tp %lld, at "
                "least 1) x (head_dim %lld + v_head_dim %lld) x %lld layers "
                "x %lld bytes (%s)",
                (long long)heads, (long long)r->model.num_key_value_heads,
                (long long)tp, (long long)r->model.head_dim.value,
                (long long)r->model.v_head_dim.value,
                (long long)t->priced_layers, (long long)elem, dt);
            if (r->runner.kv_cache_dtype == KVPLAN_DTYPE_FLOAT4_E2M1FN_X2)
                add(l, "cell_size: fp4 packs two values a byte (// 2) and "
                       "adds one scale byte per 16 K and V values");
        }
        if (t->draft_layers > 0 && r->runner.eagle_draft_num_layers.set)
            add(l,
                "cell_size: x (1 + %lld draft layers / %lld layers), in "
                "floats, truncated (EAGLE/MTP draft KV)",
                (long long)t->draft_layers, (long long)t->num_layers);
        if (t->draft_layers > 0 && r->runner.dflash_draft_num_layers.set)
            add(l,
                "cell_size: x (%lld + %lld draft layers) / %lld, rounded up "
                "(DFLASH draft KV)",
                (long long)t->num_layers, (long long)t->draft_layers,
                (long long)t->num_layers);
        add(l, "cell_size = %lld bytes per token",
            (long long)c->cell_size_bytes);
        break;
    case KVPLAN_CONFIGURATOR_HYBRID_SWA:
    case KVPLAN_CONFIGURATOR_SWA_CHUNK_CAP:
        add(l,
            "full layer bytes per token F = %lld; sliding-window layer S = "
            "%lld (%s)",
            (long long)c->terms.full_per_token,
            (long long)c->terms.swa_per_token, dt);
        if (c->terms.full_layers_num == 0)
            add(l, "cell_size = S x %lld sliding layers + F x %lld draft "
                   "layers (all sliding: no ratio)",
                (long long)c->terms.swa_layers_num,
                (long long)c->terms.draft_full_layers_num);
        else
            add(l,
                "cell_size = F x (%lld full + %lld draft layers) + "
                "swa_full_tokens_ratio %s x S x %lld sliding layers = %s",
                (long long)c->terms.full_layers_num,
                (long long)c->terms.draft_full_layers_num,
                repr(c->terms.swa_full_tokens_ratio, a),
                (long long)c->terms.swa_layers_num, repr(c->cell_size, b));
        if (c->kind == KVPLAN_CONFIGURATOR_SWA_CHUNK_CAP)
            add(l,
                "swa_cap = per request (window + eviction interval x draft "
                "tokens + page + one decode allocation) x requests + "
                "prefill chunks in flight + page = %lld tokens",
                (long long)c->swa_cap);
        break;
    case KVPLAN_CONFIGURATOR_DSV4:
        add(l,
            "bytes_per_full_token: %lld layers (%lld c4, %lld c128); "
            "ratio %s x %lld KV bytes on every layer, 1/4 (c4) and 1/128 "
            "(c128) of them compressed, the c4 indexer and states",
            (long long)c->terms.num_layers_total,
            (long long)c->terms.num_layers_ca4,
            (long long)c->terms.num_layers_ca128,
            repr(c->terms.swa_full_tokens_ratio, a),
            (long long)c->terms.dsv4_kv_bytes);
        add(l, "bytes_per_full_token = %s", repr(c->bytes_per_full_token, b));
        break;
    }
}

static void explain_budget(lines *l, const cli_args *cli,
                           const kvplan_plan *p)
{
    const kvplan_budget *b = &p->budget;
    char f[40];
    if (b->given) {
        add(l, "available_bytes = %lld, given with --available-bytes",
            (long long)p->stages[0].available_bytes);
        return;
    }
    add(l, "gpu memory = %.0f MiB (%s)", b->gpu_mem_mib,
        cli->gpu_name ? cli->gpu_name : "?");
    if (b->mem_fraction_auto) {
        add(l,
            "reserved = 512 + %.0f (activations: 1.5 x max(chunk, 2048)) + "
            "%lld / 8 x 1024 (tp x pp) + %.0f (cuda graphs) MiB%s = %.0f MiB",
            b->activation_mib,
            (long long)(cli->options.server.tp_size *
                        cli->options.server.pp_size),
            b->graph_mib,
            b->gpu_mem_mib > 60 * 1024 ? ", at least 10240 above 60 GiB"
                                       : "",
            b->reserved_mib);
        add(l, "mem_fraction_static = round((%.0f - %.0f) / %.0f, 3) = %s",
            b->gpu_mem_mib, b->reserved_mib, b->gpu_mem_mib,
            repr(b->mem_fraction_static, f));
    } else {
        add(l, "mem_fraction_static = %s, given",
            repr(b->mem_fraction_static, f));
    }
    add(l,
        "free before loading = %.0f MiB - %.2f GiB CUDA context (estimate) = "
        "%.4f GiB",
        b->gpu_mem_mib, b->context_overhead_bytes / GIB, b->pre_load_gib);
    add(l,
        "free after loading = %.4f GiB - weights %.4f GiB%s - draft %.4f "
        "GiB = %.4f GiB",
        b->pre_load_gib, (double)p->stages[0].weight_bytes / GIB,
        b->weights_estimated ? " (estimate)" : "",
        (double)p->stages[0].draft_weight_bytes / GIB, b->post_load_gib);
    add(l, "rest = %.4f - %.4f x (1 - %s) = %.4f GiB", b->post_load_gib,
        b->pre_load_gib, f, b->rest_gib);
    if (b->mamba_gib > 0)
        add(l, "mamba state for %lld requests: - %.4f GiB",
            (long long)p->stages[0].max_mamba_cache_size, b->mamba_gib);
    add(l, "available_bytes = int(rest x 2^30) = %lld",
        (long long)p->stages[0].available_bytes);
}

/* Where kvplan's figures are estimates, and where sglang allocates more
 * than its configurator prices. */
static void notes(lines *l, const kvplan_plan *p)
{
    const kvplan_stage_plan *sp = &p->stages[p->binding_stage];
    const kvplan_allocation *a = &sp->allocation;
    if (!p->budget.given)
        add(l, "the budget models the free memory sglang measures (CUDA "
               "context, weights%s); pass --available-bytes from a real "
               "log for sglang's exact numbers",
            p->budget.weights_estimated ? " estimated from config.json" : "");
    /* the configurator prices the draft's KV too (EAGLE/DFLASH scaling) */
    int64_t allocated = a->kv_bytes + a->draft_kv_bytes;
    if (allocated != a->predicted_kv_bytes && a->predicted_kv_bytes > 0) {
        long long diff = (long long)(allocated - a->predicted_kv_bytes);
        const kvplan_configurator_terms *t = &sp->configurator.terms;
        char dsa_why[160];
        snprintf(dsa_why, sizeof dsa_why,
                 "DSA's fp8 MLA rows take %lld bytes, not the %lld the "
                 "configurator prices, and each pool keeps a padding page",
                 (long long)a->kv_row_bytes,
                 (long long)(t->mla_latent_dim * t->kv_dtype_bytes));
        const char *why =
            sp->configurator.kind == KVPLAN_CONFIGURATOR_DSV4
                ? "DeepSeek V4's pools round each page up to 576-byte "
                  "multiples, keep a padding page per pool, and its c4 "
                  "indexer holds c128 x 32 tokens"
            : sp->rank.model.hf_config.is_deepseek_dsa &&
                    sp->rank.runner.kv_cache_dtype ==
                        KVPLAN_DTYPE_FLOAT8_E4M3FN
                ? dsa_why
            : a->draft_kv_bytes > 0
                ? "a padding page per pool, and the draft's own geometry"
                : "one padding page per pool";
        add(l,
            "sglang allocates %lld bytes for the KV pools%s, %lld %s than the "
            "configurator's price: %s",
            (long long)allocated, a->draft_kv_bytes > 0 ? " (draft included)" : "",
            diff < 0 ? -diff : diff, diff < 0 ? "less" : "more", why);
    }
}

/* ------------------------------------------------------------------------ */
/* Text                                                                      */
/* ------------------------------------------------------------------------ */

int cli_report_text(FILE *out, const cli_args *cli,
                        const kvplan_model *model, const kvplan_plan *p)
{
    const kvplan_model_info *info = kvplan_model_get_info(model);
    const kvplan_server_args *s = &cli->options.server;
    const kvplan_stage_plan *sp = &p->stages[p->binding_stage];
    const kvplan_configurator *c = &sp->configurator;
    const kvplan_pool_config *pools = &sp->pools;
    const kvplan_budget *b = &p->budget;
    char coef[40], f[40];

    fprintf(out, "kvplan %s: %s (%s)", kvplan_version(), info->name,
            info->architecture);
    if (b->given)
        fprintf(out, ", available_bytes given\n");
    else
        fprintf(out, " on %s (%.0f MiB, %s), %lld GPU%s\n",
                cli->gpu_name, b->gpu_mem_mib, cli->options.gpu.arch,
                (long long)(s->tp_size * s->pp_size),
                s->tp_size * s->pp_size > 1 ? "s" : "");
    fprintf(out,
            "serving: tp %lld, pp %lld, dp %lld%s, page_size %lld, "
            "kv_cache_dtype %s, attention_backend %s\n",
            (long long)s->tp_size, (long long)s->pp_size,
            (long long)s->dp_size,
            s->enable_dp_attention ? " (dp attention)" : "",
            (long long)p->page_size,
            kvplan_dtype_name(sp->rank.runner.kv_cache_dtype),
            p->attention_backend);
    if (!b->given)
        fprintf(out,
                "         chunked_prefill_size %lld, cuda_graph_max_bs %lld, "
                "mem_fraction_static %s%s\n",
                (long long)p->chunked_prefill_size,
                (long long)p->cuda_graph_max_bs,
                repr(b->mem_fraction_static, f),
                b->mem_fraction_auto ? " (sglang's rule)" : "");

    if (!b->given) {
        /* req_to_token, activations and cuda graphs come out of the
         * reserve (spec §3.4); the mamba state out of the budget */
        double total = b->gpu_mem_mib / 1024.0;
        double kv = (double)sp->allocation.kv_bytes / GIB;
        double draft_kv = (double)sp->allocation.draft_kv_bytes / GIB;
        double mamba = (double)sp->allocation.mamba_state_bytes / GIB;
        double req = (double)sp->allocation.req_to_token_bytes / GIB;
        double reserve = b->pre_load_gib * (1 - b->mem_fraction_static);
        double weights =
            (double)(sp->weight_bytes + sp->draft_weight_bytes) / GIB;
        double ctx = b->context_overhead_bytes / GIB;
        fprintf(out, "\none GPU's memory (PP stage %lld)%*sGiB\n",
                (long long)sp->pp_rank, 24, "");
        fprintf(out, "  %-44s %8.2f\n", "total", total);
        fprintf(out, "  %-44s %8.2f\n", "CUDA context, NCCL (estimate)", ctx);
        fprintf(out, "  %-44s %8.2f\n",
                b->weights_estimated ? "weights (estimate from config.json)"
                                     : "weights",
                weights);
        fprintf(out, "  %-44s %8.2f\n", "KV cache pools", kv);
        if (draft_kv > 0)
            fprintf(out, "  %-44s %8.2f\n", "draft KV pool", draft_kv);
        if (mamba > 0)
            fprintf(out, "  %-44s %8.2f\n", "mamba state", mamba);
        fprintf(out, "  %-44s %8.2f\n", "reserve (1 - mem_fraction_static)",
                reserve);
        fprintf(out, "  %-44s %8.2f\n", "  of which the req_to_token pool",
                req);
        double left = total - ctx - weights - kv - draft_kv - mamba - reserve;
        fprintf(out, "  %-44s %8.2f\n", "left over (padding pages, rounding)",
                fabs(left) < 0.005 ? 0.0 : left);
    }

    coefficient_text(c, coef);
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
    fprintf(out, "  %-26s %lld (per DP worker)\n", "max_running_requests",
            (long long)p->max_running_requests);
    fprintf(out, "  %-26s %lld\n", "context_len", (long long)p->context_len);
    int64_t full = pools->max_total_num_tokens;
    fprintf(out, "  %-26s %lld request%s at the full context_len%s\n",
            "concurrency", (long long)(full / p->context_len),
            full / p->context_len == 1 ? "" : "s",
            pools->swa_max_total_num_tokens.set &&
                    pools->full_max_total_num_tokens.set &&
                    pools->full_max_total_num_tokens.value > 0
                ? " (the full-attention pool binds: sliding layers keep "
                  "only the window)"
                : "");
    fprintf(out, "  %-26s %lld bytes KV (the configurator prices %lld), "
                 "%lld req_to_token\n",
            "allocated", (long long)sp->allocation.kv_bytes,
            (long long)sp->allocation.predicted_kv_bytes,
            (long long)sp->allocation.req_to_token_bytes);
    if (p->num_stages > 1) {
        fprintf(out, "\nPP stages (the cluster takes the minimum):\n");
        for (size_t i = 0; i < p->num_stages; i++) {
            const kvplan_stage_plan *st = &p->stages[i];
            coefficient_text(&st->configurator, coef);
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
    lines l = {.n = 0};
    if (cli->explain) {
        explain_cell(&l, model, sp);
        explain_budget(&l, cli, p);
        fprintf(out, "\nexplain:\n");
        for (size_t i = 0; i < l.n; i++)
            fprintf(out, "  %s\n", l.text[i]);
        l.n = 0;
    }
    notes(&l, p);
    if (l.n > 0) {
        fprintf(out, "\nnotes:\n");
        for (size_t i = 0; i < l.n; i++)
            fprintf(out, "  - %s\n", l.text[i]);
    }
    return ferror(out) ? -1 : 0;
}

/* ------------------------------------------------------------------------ */
/* JSON                                                                      */
/* ------------------------------------------------------------------------ */

static json_t *opt_int(kvplan_opt_int v)
{
    return v.set ? json_integer(v.value) : json_null();
}

static json_t *lines_json(const lines *l)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < l->n; i++)
        json_array_append_new(a, json_string(l->text[i]));
    return a;
}

json_t *cli_report_json(const cli_args *cli, const kvplan_model *model,
                            const kvplan_plan *p)
{
    const kvplan_model_info *info = kvplan_model_get_info(model);
    const kvplan_server_args *s = &cli->options.server;
    const kvplan_stage_plan *sp = &p->stages[p->binding_stage];
    const kvplan_configurator *c = &sp->configurator;
    const kvplan_pool_config *pools = &sp->pools;
    const kvplan_budget *b = &p->budget;

    json_t *o = json_object();
    if (o == NULL)
        return NULL;
    json_object_set_new(o, "schema_version",
                        json_integer(CLI_PLAN_SCHEMA_VERSION));
    json_object_set_new(o, "kvplan_version", json_string(kvplan_version()));
    json_object_set_new(
        o, "model",
        json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:b, s:b, s:b, "
                  "s:b, s:b}",
                  "name", info->name, "hf_id", info->hf_id, "architecture",
                  info->architecture, "model_type", info->model_type,
                  "num_hidden_layers", (json_int_t)info->num_hidden_layers,
                  "num_key_value_heads",
                  (json_int_t)info->num_key_value_heads, "head_dim",
                  (json_int_t)info->head_dim, "v_head_dim",
                  (json_int_t)info->v_head_dim, "is_mla", info->is_mla,
                  "is_deepseek_dsa", info->is_deepseek_dsa, "is_hybrid_swa",
                  info->is_hybrid_swa, "is_mambaish", info->is_mambaish,
                  "is_deepseek_v4", info->is_deepseek_v4));
    if (b->given)
        json_object_set_new(o, "gpu", json_null());
    else
        json_object_set_new(
            o, "gpu",
            json_pack("{s:s, s:f, s:i, s:i}", "name", cli->gpu_name,
                      "total_mib", b->gpu_mem_mib, "compute_capability",
                      cli->options.gpu.compute_capability, "count",
                      (int)(s->tp_size * s->pp_size)));
    json_t *flags = json_object();
    json_object_set_new(flags, "tp_size", json_integer(s->tp_size));
    json_object_set_new(flags, "pp_size", json_integer(s->pp_size));
    json_object_set_new(flags, "dp_size", json_integer(s->dp_size));
    json_object_set_new(flags, "enable_dp_attention",
                        json_boolean(s->enable_dp_attention));
    json_object_set_new(flags, "page_size", json_integer(p->page_size));
    json_object_set_new(flags, "kv_cache_dtype",
                        json_string(kv_flag_name(s->kv_cache_dtype)));
    json_object_set_new(flags, "dtype",
                        json_string(dtype_flag_name(s->dtype)));
    json_object_set_new(flags, "attention_backend",
                        json_string(p->attention_backend));
    json_object_set_new(flags, "chunked_prefill_size",
                        json_integer(p->chunked_prefill_size));
    json_object_set_new(flags, "cuda_graph_max_bs",
                        json_integer(p->cuda_graph_max_bs));
    json_object_set_new(flags, "mem_fraction_static",
                        b->given && !cli->options.mem_fraction_static.set
                            ? json_null()
                            : json_real(b->mem_fraction_static));
    json_object_set_new(flags, "max_total_tokens",
                        opt_int(cli->options.max_total_tokens));
    json_object_set_new(flags, "max_running_requests",
                        opt_int(s->max_running_requests));
    json_object_set_new(flags, "context_length", opt_int(s->context_length));
    json_object_set_new(flags, "swa_full_tokens_ratio",
                        json_real(sp->rank.server_args.swa_full_tokens_ratio));
    json_object_set_new(flags, "disable_radix_cache",
                        json_boolean(sp->rank.server_args.disable_radix_cache));
    json_object_set_new(flags, "disable_overlap_schedule",
                        json_boolean(s->disable_overlap_schedule));
    json_object_set_new(
        flags, "speculative_algorithm",
        s->speculative_algorithm == KVPLAN_SPEC_NONE
            ? json_null()
            : json_string(kvplan_spec_algorithm_name(s->speculative_algorithm)));
    json_object_set_new(flags, "speculative_num_steps",
                        opt_int(sp->rank.server_args.speculative_num_steps));
    json_object_set_new(flags, "speculative_eagle_topk",
                        opt_int(sp->rank.server_args.speculative_eagle_topk));
    json_object_set_new(
        flags, "speculative_num_draft_tokens",
        opt_int(sp->rank.server_args.speculative_num_draft_tokens));
    json_object_set_new(flags, "disaggregation_mode",
                        json_string(disagg_name(s->disaggregation_mode)));
    json_object_set_new(flags, "disable_hybrid_swa_memory",
                        json_boolean(s->disable_hybrid_swa_memory));
    json_object_set_new(o, "flags", flags);

    /* sglang's names at the top: the same answer `kvplan pools` gives
     * for the binding stage (its tokens are the cluster's after the PP
     * minimum, and max_running_requests is set by the plan) */
    json_t *answer = cli_pool_config_json(c, pools);
    if (answer == NULL || json_object_update(o, answer) != 0) {
        json_decref(answer);
        json_decref(o);
        return NULL;
    }
    json_decref(answer);
    json_object_set_new(o, "context_len", json_integer(p->context_len));
    json_object_set_new(o, "page_size", json_integer(p->page_size));
    json_object_set_new(o, "available_bytes",
                        json_integer(sp->available_bytes));
    json_object_set_new(o, "kv_cache_dtype",
                        json_string(kvplan_dtype_name(
                            sp->rank.runner.kv_cache_dtype)));

    json_object_set_new(
        o, "budget",
        json_pack("{s:b, s:b, s:f, s:f, s:b, s:f, s:f, s:f, s:I, s:I, s:f}",
                  "given", b->given, "weights_estimated",
                  b->weights_estimated, "gpu_mem_mib", b->gpu_mem_mib,
                  "mem_fraction_static", b->mem_fraction_static,
                  "mem_fraction_auto", b->mem_fraction_auto, "reserved_mib",
                  b->reserved_mib, "pre_load_gib", b->pre_load_gib,
                  "post_load_gib", b->post_load_gib, "weight_bytes",
                  (json_int_t)sp->weight_bytes, "draft_weight_bytes",
                  (json_int_t)sp->draft_weight_bytes, "mamba_state_gib",
                  b->mamba_gib));
    json_object_set_new(
        o, "allocated",
        json_pack("{s:I, s:I, s:I, s:I, s:I}", "kv_bytes",
                  (json_int_t)sp->allocation.kv_bytes, "predicted_kv_bytes",
                  (json_int_t)sp->allocation.predicted_kv_bytes,
                  "draft_kv_bytes", (json_int_t)sp->allocation.draft_kv_bytes,
                  "req_to_token_bytes",
                  (json_int_t)sp->allocation.req_to_token_bytes,
                  "mamba_state_bytes",
                  (json_int_t)sp->allocation.mamba_state_bytes));
    json_t *stages = json_array();
    for (size_t i = 0; i < p->num_stages; i++) {
        const kvplan_stage_plan *st = &p->stages[i];
        json_array_append_new(
            stages,
            json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:b}", "pp_rank",
                      (json_int_t)st->pp_rank, "start_layer",
                      (json_int_t)st->rank.runner.start_layer, "end_layer",
                      (json_int_t)st->rank.runner.end_layer,
                      "profiled_max_total_num_tokens",
                      (json_int_t)st->profiled.max_total_num_tokens,
                      "max_total_num_tokens",
                      (json_int_t)st->pools.max_total_num_tokens, "kv_bytes",
                      (json_int_t)st->allocation.kv_bytes, "binds",
                      i == p->binding_stage));
    }
    json_object_set_new(o, "stages", stages);
    lines l = {.n = 0};
    notes(&l, p);
    json_object_set_new(o, "notes", lines_json(&l));
    if (cli->explain) {
        l.n = 0;
        explain_cell(&l, model, sp);
        explain_budget(&l, cli, p);
        json_object_set_new(o, "explain", lines_json(&l));
    }
    return o;
}
