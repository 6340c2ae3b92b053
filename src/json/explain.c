/*
 * explain.c: --explain and the notes: every term of the bytes-per-token sum
 * and of the budget, in words, from the terms the configurator and the
 * plan publish (kvplan_configurator.terms, kvplan_budget, the
 * allocation), never from a second derivation of sglang's rules. The text
 * report and the JSON one print the same lines; and the small words both
 * share (what binds a figure, the --gpu auto warning).
 */
#include "json/doc.h"

#include "model/model.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void kvplan__lines_add(kvplan__lines *l, const char *fmt, ...)
{
    if (l->n >= sizeof l->text / sizeof l->text[0]) {
        l->dropped++; /* reported by the writers, not lost in silence */
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->text[l->n++], sizeof l->text[0], fmt, ap);
    va_end(ap);
}

const char *kvplan__repr(double x, char *buf)
{
    kvplan_format_double(x, buf, 40);
    return buf;
}

/* The configurator's coefficient as sglang's log or the golden file
 * writes it. */
const char *kvplan__kv_dtype_name(const kvplan__doc *d, kvplan_dtype dtype)
{
    const kvplan_plan_options *p = &d->o->plan;
    return kvplan_kv_dtype_name(dtype, p->gpu_set ? &p->gpu : NULL);
}

void kvplan__coefficient_text(const kvplan_configurator *c, char *buf)
{
    if (c->kind == KVPLAN_CONFIGURATOR_DSV4)
        kvplan_format_double(c->bytes_per_full_token, buf, 40);
    else if (c->cell_size_is_float)
        kvplan_format_double(c->cell_size, buf, 40);
    else
        snprintf(buf, 40, "%lld", (long long)c->cell_size_bytes);
}

void kvplan__explain_cell(kvplan__lines *l, const kvplan_stage_plan *sp)
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
    switch (c->kind) {
    case KVPLAN_CONFIGURATOR_DEFAULT:
        if (r->runner.use_mla_backend) {
            kvplan__lines_add(
                l,
                "cell_size: MLA (kv_lora_rank %lld + qk_rope_head_dim %lld) "
                "x %lld layers x %lld bytes (%s)",
                (long long)r->model.kv_lora_rank.value,
                (long long)r->model.qk_rope_head_dim.value,
                (long long)t->priced_layers, (long long)elem, dt);
            if (r->model.hf_config.is_deepseek_dsa)
                kvplan__lines_add(
                    l,
                    "cell_size: + DSA indexer (index_head_dim %lld + %lld "
                    "scale bytes) x %lld layers x 1 byte",
                    (long long)r->model.hf_config.index_head_dim.value,
                    (long long)(t->dsa_indexer_bytes -
                                r->model.hf_config.index_head_dim.value),
                    (long long)t->priced_layers);
        } else if (r->model.hf_config.is_minimax_sparse) {
            kvplan__lines_add(
                l,
                "cell_size: MiniMax sparse: K+V of every local layer, %lld "
                "heads x head_dim %lld x %lld bytes, plus the indexer "
                "(sparse_index_dim %lld, model dtype)",
                (long long)heads, (long long)r->model.head_dim.value,
                (long long)elem,
                (long long)
                    r->model.hf_config.minimax_sparse.sparse_index_dim.value);
        } else {
            kvplan__lines_add(
                l,
                "cell_size: %lld KV heads per rank (%lld // attn_tp %lld, at "
                "least 1) x (head_dim %lld + v_head_dim %lld) x %lld layers "
                "x %lld bytes (%s)",
                (long long)heads, (long long)r->model.num_key_value_heads,
                (long long)tp, (long long)r->model.head_dim.value,
                (long long)r->model.v_head_dim.value,
                (long long)t->priced_layers, (long long)elem, dt);
            if (r->runner.kv_cache_dtype == KVPLAN_DTYPE_FLOAT4_E2M1FN_X2)
                kvplan__lines_add(
                    l, "cell_size: fp4 packs two values a byte (// 2) and "
                       "adds one scale byte per 16 K and V values");
        }
        if (t->draft_layers > 0 && r->runner.eagle_draft_num_layers.set)
            kvplan__lines_add(
                l,
                "cell_size: x (1 + %lld draft layers / %lld layers), in "
                "floats, truncated (EAGLE/MTP draft KV)",
                (long long)t->draft_layers, (long long)t->num_layers);
        if (t->draft_layers > 0 && r->runner.dflash_draft_num_layers.set)
            kvplan__lines_add(
                l,
                "cell_size: x (%lld + %lld draft layers) / %lld, rounded up "
                "(DFLASH draft KV)",
                (long long)t->num_layers, (long long)t->draft_layers,
                (long long)t->num_layers);
        kvplan__lines_add(l, "cell_size = %lld bytes per token",
                          (long long)c->cell_size_bytes);
        break;
    case KVPLAN_CONFIGURATOR_HYBRID_SWA:
    case KVPLAN_CONFIGURATOR_SWA_CHUNK_CAP:
        kvplan__lines_add(
            l,
            "full layer bytes per token F = %lld; sliding-window layer S = "
            "%lld (%s)",
            (long long)c->terms.full_per_token,
            (long long)c->terms.swa_per_token, dt);
        if (c->terms.full_layers_num == 0)
            kvplan__lines_add(
                l,
                "cell_size = S x %lld sliding layers + F x %lld draft "
                "layers (all sliding: no ratio)",
                (long long)c->terms.swa_layers_num,
                (long long)c->terms.draft_full_layers_num);
        else
            kvplan__lines_add(
                l,
                "cell_size = F x (%lld full + %lld draft layers) + "
                "swa_full_tokens_ratio %s x S x %lld sliding layers = %s",
                (long long)c->terms.full_layers_num,
                (long long)c->terms.draft_full_layers_num,
                kvplan__repr(c->terms.swa_full_tokens_ratio, a),
                (long long)c->terms.swa_layers_num,
                kvplan__repr(c->cell_size, b));
        if (c->kind == KVPLAN_CONFIGURATOR_SWA_CHUNK_CAP)
            kvplan__lines_add(
                l,
                "swa_cap = per request (window + eviction interval x draft "
                "tokens + page + one decode allocation) x requests + "
                "prefill chunks in flight + page = %lld tokens",
                (long long)c->swa_cap);
        break;
    case KVPLAN_CONFIGURATOR_DSV4:
        kvplan__lines_add(
            l,
            "bytes_per_full_token: %lld layers (%lld c4, %lld c128); "
            "ratio %s x %lld KV bytes on every layer, 1/4 (c4) and 1/128 "
            "(c128) of them compressed, the c4 indexer and states",
            (long long)c->terms.num_layers_total,
            (long long)c->terms.num_layers_ca4,
            (long long)c->terms.num_layers_ca128,
            kvplan__repr(c->terms.swa_full_tokens_ratio, a),
            (long long)c->terms.dsv4_kv_bytes);
        kvplan__lines_add(l, "bytes_per_full_token = %s",
                          kvplan__repr(c->bytes_per_full_token, b));
        break;
    }
}

void kvplan__explain_budget(kvplan__lines *l, const kvplan__doc *d,
                            const kvplan_plan *p)
{
    const kvplan_budget *b = &p->budget;
    char f[40];
    if (b->given) {
        kvplan__lines_add(
            l, "available_bytes = %lld, given with --available-bytes",
            (long long)p->stages[0].available_bytes);
        return;
    }
    kvplan__lines_add(l, "gpu memory = %.0f MiB (%s)", b->gpu_mem_mib,
                      d->o->plan.gpu.name);
    if (b->mem_fraction_auto && b->fraction_tiers) {
        /* sglang 0.4.8 - 0.5.2: a reserve per GPU tier */
        char per_rank[64] = "";
        if (b->tier_per_rank_gib > 0)
            snprintf(per_rank, sizeof per_rank, " + %.0f x %g (tp x pp)",
                     b->reserve_ranks, b->tier_per_rank_gib);
        kvplan__lines_add(l,
                          "reserved = (%g%s) x 1024 (this GPU's tier) + %.0f "
                          "(speculative) + %.0f (DP attention) MiB = %.0f MiB",
                          b->tier_base_gib, per_rank, b->spec_reserve_mib,
                          b->dp_attention_mib, b->reserved_mib);
    } else if (b->mem_fraction_auto) {
        char floor[48] = "";
        if (b->floor_mib > 0)
            snprintf(floor, sizeof floor, ", at least %.0f above 60 GiB",
                     b->floor_mib);
        kvplan__lines_add(
            l,
            "reserved = 512 + %.0f (activations: 1.5 x max(chunk, 2048)) + "
            "%.0f / 8 x 1024 (tp x pp) + %.0f (cuda graphs) MiB%s = %.0f MiB",
            b->activation_mib, b->reserve_ranks, b->graph_mib, floor,
            b->reserved_mib);
        if (b->deepep_mib > 0)
            kvplan__lines_add(
                l, "reserved += %.0f MiB (DeepEP all-to-all buffers)",
                b->deepep_mib);
        if (b->spec_reserve_mib > 0)
            kvplan__lines_add(l,
                              "reserved += %.0f MiB (the draft's flat reserve)",
                              b->spec_reserve_mib);
    }
    if (b->mem_fraction_auto) {
        kvplan__lines_add(
            l, "mem_fraction_static = round((%.0f - %.0f) / %.0f, 3) = %s",
            b->gpu_mem_mib, b->reserved_mib, b->gpu_mem_mib,
            kvplan__repr(b->fraction_rule, f));
        if (b->vision_factor != 1)
            kvplan__lines_add(
                l,
                "  x %.6g (vision tower: 0.95 x clamp(1 - 0.1 x (layers x "
                "hidden^2 / (24 x 1024^2) - 1), 0.8, 1.05))",
                b->vision_factor);
        if (b->aiter_factor != 1)
            kvplan__lines_add(
                l,
                "  x 0.85 (the aiter backend with context_len %lld > "
                "8192)",
                (long long)p->context_len);
        if (b->vision_factor != 1 || b->aiter_factor != 1)
            kvplan__lines_add(l, "  = %.6g", b->mem_fraction_static);
        snprintf(f, sizeof f, "%.6g", b->mem_fraction_static);
    } else {
        kvplan__lines_add(l, "mem_fraction_static = %s, given",
                          kvplan__repr(b->mem_fraction_static, f));
    }
    kvplan__lines_add(
        l,
        "free before loading = %.0f MiB - %.2f GiB CUDA context and "
        "communicators (%s) = %.4f GiB",
        b->gpu_mem_mib, b->context_overhead_bytes / KVPLAN__GIB,
        b->context_basis ? b->context_basis : "estimated", b->pre_load_gib);
    const kvplan_stage_plan *heavy = &p->stages[0];
    for (size_t i = 1; i < p->num_stages; i++)
        if (p->stages[i].weight_bytes > heavy->weight_bytes)
            heavy = &p->stages[i];
    if (b->num_weight_tensors > 0) {
        kvplan__lines_add(
            l, "weights on one GPU (PP stage %lld), tensor by tensor:",
            (long long)heavy->pp_rank);
        for (size_t i = 0; i < b->num_weight_tensors; i++) {
            const kvplan_weight_tensor *t = &b->weight_tensors[i];
            char shape[96];
            if (t->rank_rows != t->rows || t->rank_cols != t->cols)
                snprintf(shape, sizeof shape, "%lld x %lld of %lld x %lld",
                         (long long)t->rank_rows, (long long)t->rank_cols,
                         (long long)t->rows, (long long)t->cols);
            else
                snprintf(shape, sizeof shape, "%lld x %lld, whole",
                         (long long)t->rows, (long long)t->cols);
            kvplan__lines_add(
                l, "  %-38s %lld x [%s] x %.4g B = %.4f GiB", t->name,
                (long long)t->count, shape, t->elem_bytes,
                (double)t->rank_bytes * (double)t->count / KVPLAN__GIB);
        }
        kvplan__lines_add(
            l, "  %-38s %.4f GiB (estimated: kernels, RoPE caches)",
            "loading overhead", b->load_overhead_bytes / KVPLAN__GIB);
    }
    kvplan__lines_add(
        l,
        "free after loading = %.4f GiB - weights %.4f GiB (%s) - draft "
        "%.4f GiB = %.4f GiB",
        b->pre_load_gib, (double)heavy->weight_bytes / KVPLAN__GIB,
        kvplan_source_name(b->weights_source),
        (double)heavy->draft_weight_bytes / KVPLAN__GIB, b->post_load_gib);
    kvplan__lines_add(l, "rest = %.4f - %.4f x (1 - %s) = %.4f GiB",
                      b->post_load_gib, b->pre_load_gib, f, b->rest_gib);
    if (b->mamba_gib > 0)
        kvplan__lines_add(l, "mamba state for %lld requests: - %.4f GiB",
                          (long long)p->stages[0].max_mamba_cache_size,
                          b->mamba_gib);
    kvplan__lines_add(l, "available_bytes = int(rest x 2^30) = %lld",
                      (long long)p->stages[0].available_bytes);
}

/* Where the served values come from: context_len, the KV dtype, the
 * requests (docs/sglang-rules.md §1.8, §1.11, §3.3). */
void kvplan__explain_serving(kvplan__lines *l, const kvplan__doc *d,
                             const kvplan_plan *p)
{
    const kvplan_server_args *s = &d->o->plan.server;
    const kvplan_stage_plan *sp = &p->stages[p->binding_stage];
    if (s->context_length.set)
        kvplan__lines_add(l, "context_len = %lld, given with --context-length",
                          (long long)p->context_len);
    else
        kvplan__lines_add(
            l, "context_len = %lld, the model's (config.json, §1.8)",
            (long long)kvplan_model_get_info(d->model)->context_len);
    const char *kv = kvplan__kv_dtype_name(d, sp->rank.runner.kv_cache_dtype);
    if (s->kv_cache_dtype != KVPLAN_KV_AUTO)
        kvplan__lines_add(l, "kv_cache_dtype = %s, given with --kv-cache-dtype",
                          kv);
    else
        kvplan__lines_add(
            l,
            "kv_cache_dtype = %s: --kv-cache-dtype auto, the model's "
            "dtype unless its config or the GPU says fp8 (§1.11)",
            kv);
    int64_t t = p->max_total_num_tokens;
    int64_t dp = kvplan__attn_dp(&p->resolved);
    if (s->max_running_requests.set)
        kvplan__lines_add(
            l,
            "max_running_requests = min(%lld / %lld (dp), %lld // 2) = "
            "%lld%s",
            (long long)s->max_running_requests.value, (long long)dp,
            (long long)t, (long long)p->max_running_requests,
            sp->max_mamba_cache_size > 0 ? ", then the mamba cap" : "");
    else
        kvplan__lines_add(
            l,
            "max_running_requests = min(clamp(int(%lld / %lld x 512), "
            "2048, 4096), %lld // 2)%s = %lld%s",
            (long long)t, (long long)p->context_len, (long long)t,
            sp->max_mamba_cache_size > 0 ? ", min mamba slots / ratio" : "",
            (long long)p->max_running_requests,
            p->resolved.max_running_requests.set
                ? " (the model's or the speculative hook's value first)"
                : "");
    size_t ignored = d->o->internal_.num_not_read;
    if (ignored > 0)
        kvplan__lines_add(l, "%zu sglang flag%s not read by kvplan (see notes)",
                          ignored, ignored == 1 ? "" : "s");
}

/* Where kvplan's figures are estimates, and where sglang allocates more
 * than its configurator prices. */
void kvplan__notes(kvplan__lines *l, const kvplan_plan *p)
{
    const kvplan_stage_plan *sp = &p->stages[p->binding_stage];
    const kvplan_allocation *a = &sp->allocation;
    if (!p->budget.given)
        kvplan__lines_add(
            l,
            "the budget models the free memory sglang measures (CUDA "
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
                        KVPLAN_DTYPE_FLOAT8_E4M3FN &&
                    !(p->rules & KVPLAN_RULE_DSA_FP8_656)
                ? dsa_why
            : a->draft_kv_bytes > 0
                ? "a padding page per pool, and the draft's own geometry"
                : "one padding page per pool";
        kvplan__lines_add(
            l,
            "sglang allocates %lld bytes for the KV pools%s, %lld %s than the "
            "configurator's price: %s",
            (long long)allocated,
            a->draft_kv_bytes > 0 ? " (draft included)" : "",
            diff < 0 ? -diff : diff, diff < 0 ? "less" : "more", why);
    }
}

void kvplan__hub_notes(kvplan__lines *l, const kvplan__doc *d)
{
    const kvplan_loaded *ld = d->loaded;
    const char *from = ld->source == NULL                     ? NULL
                       : strcmp(ld->source, "hub") == 0       ? "the Hub"
                       : strcmp(ld->source, "hub_cache") == 0 ? "the Hub cache"
                                                              : NULL;
    if (from != NULL)
        kvplan__lines_add(
            l,
            "%s read from %s at commit %s: its config.json, and its "
            "weights from the safetensors headers alone",
            d->o->model_path, from, ld->hub_commit);
    if (ld->note[0] != '\0')
        kvplan__lines_add(l, "%s", ld->note);
}

const char *kvplan__binding_name(const kvplan_capacity *c, kvplan_limit limit,
                                 size_t pool)
{
    return limit == KVPLAN_LIMIT_POOL
               ? kvplan_pool_kind_name(c->pools[pool].kind)
               : kvplan_limit_name(limit);
}

bool kvplan__probe_short(const kvplan__doc *d, const kvplan_plan *plan,
                         char *text, size_t size)
{
    const kvplan_fleet *f = &plan->fleet;
    int seen = d->loaded->gpu_count;
    int64_t need = f->gpus;
    if (seen <= 0 || need <= seen)
        return false;
    char replicas[48] = "";
    if (f->replicas > 1)
        snprintf(replicas, sizeof replicas, " x %lld replicas",
                 (long long)f->replicas);
    snprintf(text, size,
             "--gpu auto sees %d GPU%s here, and the plan spreads over %lld "
             "(tp %lld x pp %lld%s): the other %lld are assumed to be like "
             "the smallest seen",
             seen, seen == 1 ? "" : "s", (long long)need,
             (long long)plan->resolved.tp_size,
             (long long)plan->resolved.pp_size, replicas,
             (long long)(need - seen));
    return true;
}

const kvplan_option *kvplan__not_read(const kvplan_options *o, size_t index)
{
    const struct kvplan__options_internal *in = &o->internal_;
    return index < in->num_not_read ? kvplan_option_at(in->not_read[index])
                                    : NULL;
}
