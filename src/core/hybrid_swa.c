/*
 * hybrid_swa.c: sglang's HybridSWAPoolConfigurator: a full-attention pool
 * and a sliding-window pool that holds swa_full_tokens_ratio times as many
 * tokens (seed: HybridSWAPoolConfigurator).
 *
 * Sections marked § are those of docs/sglang-rules.md.
 */
#include "core/core.h"

bool kvplan__hybrid_swa_applies(const kvplan_rank *r)
{
    return r->runner.is_hybrid_swa;
}

/* Seed: HybridSWAPoolConfigurator.__init__. */
kvplan_status kvplan__hybrid_swa_init(kvplan_configurator *c,
                                      const kvplan_rank *r, kvplan_error *err)
{
    int64_t kv_size = 0, head_dim = 0, v_head_dim = 0, swa_head_dim = 0,
            swa_v_head_dim = 0;
    kvplan_status st;
    if ((st = kvplan__kv_size_of(r->runner.kv_cache_dtype,
                                 "/runner/kv_cache_dtype", &kv_size, err)) !=
        KVPLAN_OK)
        return st;

    int64_t nf = (int64_t)r->model.full_attention_layer_ids.count;
    int64_t ns = (int64_t)r->model.swa_attention_layer_ids.count;
    if (ns <= 0)
        return kvplan__fail(err, KVPLAN_INVALID_CONFIG,
                            "/model/swa_attention_layer_ids",
                            "Hybrid SWA model must have at least one SWA "
                            "layer: /model/swa_attention_layer_ids is empty "
                            "for this rank");

    if ((st = kvplan__check_tp(r, err)) != KVPLAN_OK ||
        (st = kvplan__need_dim(r->model.head_dim, "/model/head_dim",
                               "for a hybrid SWA model", &head_dim, err)) !=
            KVPLAN_OK ||
        (st = kvplan__dim_or(r->model.v_head_dim, head_dim, "/model/v_head_dim",
                             &v_head_dim, err)) != KVPLAN_OK ||
        (st = kvplan__dim_or(r->model.swa_head_dim, head_dim,
                             "/model/swa_head_dim", &swa_head_dim, err)) !=
            KVPLAN_OK ||
        (st = kvplan__dim_or(r->model.swa_v_head_dim, swa_head_dim,
                             "/model/swa_v_head_dim", &swa_v_head_dim, err)) !=
            KVPLAN_OK)
        return st;

    bool ovf = false;
    /* full layer bytes per token: heads * (head_dim + v_head_dim) * elem */
    int64_t full_per_token = kvplan__mul(
        kvplan__mul(kvplan__kv_heads_per_rank(r->model.num_key_value_heads,
                                              r->parallel.attn_tp_size),
                    kvplan__add(head_dim, v_head_dim, &ovf), &ovf),
        kv_size, &ovf);
    /* SWA layer bytes per token, with the SWA layers' own geometry */
    int64_t swa_per_token = kvplan__mul(
        kvplan__mul(kvplan__swa_kv_heads_per_rank(r),
                    kvplan__add(swa_head_dim, swa_v_head_dim, &ovf), &ovf),
        kv_size, &ovf);

    /* The EAGLE/STANDALONE draft keeps full-attention layers that take
     * max_total tokens each: budget them into the full term. */
    int64_t draft = 0;
    kvplan_spec_algorithm spec = r->runner.spec_algorithm;
    if ((kvplan__is_eagle_family(spec) || spec == KVPLAN_SPEC_STANDALONE) &&
        !r->runner.is_draft_worker &&
        !(r->upstream.rules & KVPLAN_RULE_DRAFT_UNPRICED)) {
        kvplan_opt_int d = r->runner.eagle_draft_num_layers;
        if (d.set && d.value > 0)
            draft = d.value;
    }

    double ratio = r->server_args.swa_full_tokens_ratio;
    c->kind = KVPLAN_CONFIGURATOR_HYBRID_SWA;
    if (nf == 0) {
        /* All-SWA: max_total is the SWA pool; no ratio applies.
         * cell = S * ns + F * d (an int) */
        int64_t cell =
            kvplan__add(kvplan__mul(swa_per_token, ns, &ovf),
                        kvplan__mul(full_per_token, draft, &ovf), &ovf);
        kvplan__set_coefficient_int(c, cell);
    } else {
        /* Hybrid: max_total is the full pool and the SWA pool holds
         * ratio * that. cell = F * (nf + d) + ((r * S) * ns), the int
         * product added to the float term (§0.4). */
        int64_t full_bytes =
            kvplan__mul(full_per_token, kvplan__add(nf, draft, &ovf), &ovf);
        double swa_term =
            ratio * kvplan__to_double(swa_per_token) * kvplan__to_double(ns);
        c->cell_size = kvplan__to_double(full_bytes) + swa_term;
        c->cell_size_is_float = true;
        c->cell_size_bytes = 0;
    }
    if (ovf)
        return kvplan__overflow_of(
            err, "the hybrid SWA cell size",
            "/model/num_key_value_heads, /model/head_dim, "
            "/model/swa_head_dim, the layer id lists");
    c->terms.kv_dtype_bytes = kv_size;
    c->terms.kv_heads = kvplan__kv_heads_per_rank(r->model.num_key_value_heads,
                                                  r->parallel.attn_tp_size);
    c->terms.swa_kv_heads = kvplan__swa_kv_heads_per_rank(r);
    c->terms.draft_layers = draft;
    c->terms.full_layers_num = nf;
    c->terms.swa_layers_num = ns;
    c->terms.draft_full_layers_num = draft;
    c->terms.full_per_token = full_per_token;
    c->terms.swa_per_token = swa_per_token;
    c->terms.swa_full_tokens_ratio = ratio;
    return KVPLAN_OK;
}

/* Seed: HybridSWAPoolConfigurator._solve_pool_sizes. */
kvplan_status kvplan__hybrid_swa_solve(const kvplan_configurator *c,
                                       int64_t tokens, int64_t page,
                                       kvplan_pool_config *out,
                                       kvplan_error *err)
{
    bool ovf = false;
    if (c->terms.full_layers_num == 0) {
        /* all-SWA: the SWA pool is max_total; the full pool is empty */
        int64_t swa = kvplan__align_down(tokens, page, &ovf);
        if (ovf)
            return kvplan__overflow(err, "the token count");
        if (swa <= 0)
            return kvplan__tokens_below_page(tokens, page, err);
        kvplan__put_config(out, swa, kvplan__some(0), kvplan__some(swa));
        return KVPLAN_OK;
    }
    /* full = aligned tokens; swa = int(full * ratio), aligned after */
    int64_t full = kvplan__align_down(tokens, page, &ovf);
    int64_t swa = kvplan__align_down(
        kvplan__trunc(kvplan__to_double(full) * c->terms.swa_full_tokens_ratio,
                      &ovf),
        page, &ovf);
    if (ovf)
        return kvplan__overflow(err, "the token count");
    if (full <= 0)
        return kvplan__tokens_below_page(tokens, page, err);
    kvplan__put_config(out, full, kvplan__some(full), kvplan__some(swa));
    return KVPLAN_OK;
}

/* Seed: HybridSWAPoolConfigurator.calculate_pool_sizes:
 * tokens = int(available // cell), Python's float floor division when the
 * cell is fractional (§0.2). */
kvplan_status kvplan__hybrid_swa_from_bytes(const kvplan_configurator *c,
                                            int64_t available, int64_t page,
                                            kvplan_pool_config *out,
                                            kvplan_error *err)
{
    bool ovf = false;
    int64_t tokens;
    if (c->cell_size == 0.0)
        return kvplan__no_kv_layer(c, err);
    if (c->cell_size_is_float)
        tokens = kvplan__trunc(kvplan__py_float_floordiv(
                                   kvplan__to_double(available), c->cell_size),
                               &ovf);
    else
        tokens = kvplan__floordiv(available, c->cell_size_bytes, &ovf);
    if (ovf)
        return kvplan__overflow(err, "the token count");
    kvplan_status st = kvplan__hybrid_swa_solve(c, tokens, page, out, err);
    if (st == KVPLAN_NOT_ENOUGH_MEMORY && err != NULL) {
        char cell[32];
        kvplan_format_double(c->cell_size, cell, sizeof cell);
        return kvplan__not_enough(
            err,
            "(available_bytes is %lld; at %s bytes per token "
            "that holds %lld tokens, less than one page of "
            "%lld.)",
            (long long)available, cell, (long long)tokens, (long long)page);
    }
    return st;
}
