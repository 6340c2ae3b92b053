/*
 * default.c: sglang's DefaultPoolConfigurator: MHA/GQA, MLA, DSA, FP4,
 * MiniMax sparse and the attention layers of mamba hybrids, with the
 * EAGLE/MTP and DFLASH draft scaling (seed: DefaultPoolConfigurator).
 *
 * Sections marked § are those of docs/sglang-rules.md.
 */
#include "core/core.h"

/* get_glm_dsa_layer_split_effective_num_layers (§2.5): with the DSA
 * cache layer split on, a CP rank keeps ceil(L / cp) layers plus one
 * scratch layer. */
int64_t kvplan__dsa_split_layers(const kvplan_rank *r, int64_t num_layers,
                                 bool *ovf)
{
    bool enabled = !r->runner.is_draft_worker &&
                   r->server_args.enable_dsa_cache_layer_split &&
                   r->runner.use_mla_backend &&
                   r->model.hf_config.is_deepseek_dsa;
    int64_t shard = r->parallel.attn_cp_size;
    if (!enabled || shard <= 1)
        return num_layers;
    return kvplan__max(
        1, kvplan__add(kvplan__ceil_div(num_layers, shard, ovf), 1, ovf));
}

int64_t kvplan__dsa_topk_layers(const kvplan_rank *r, int64_t layers)
{
    bool priced = (r->upstream.rules & KVPLAN_RULE_DSA_SKIP_TOPK) &&
                  r->upstream.dsa_topk_schedule && !r->runner.is_draft_worker &&
                  !r->runner.enable_hisparse &&
                  r->server_args.disaggregation_mode == KVPLAN_DISAGG_NULL &&
                  r->runner.spec_algorithm == KVPLAN_SPEC_NONE &&
                  layers == r->runner.num_effective_layers;
    if (!priced)
        return layers;
    return kvplan__count_in_stage(r->upstream.dsa_topk_layer_ids,
                                  r->runner.start_layer, r->runner.end_layer);
}

/* Seed: DefaultPoolConfigurator._compute_cell_size, MLA branch. */
static kvplan_status mla_cell_size(const kvplan_rank *r, int64_t layers,
                                   int64_t kv_size, int64_t *cell,
                                   kvplan_error *err)
{
    int64_t lora = 0, rope = 0;
    kvplan_status st;
    if ((st = kvplan__need_dim(r->model.kv_lora_rank, "/model/kv_lora_rank",
                               "for an MLA model", &lora, err)) != KVPLAN_OK ||
        (st = kvplan__need_dim(r->model.qk_rope_head_dim,
                               "/model/qk_rope_head_dim", "for an MLA model",
                               &rope, err)) != KVPLAN_OK)
        return st;
    bool ovf = false;
    int64_t latent = kvplan__add(lora, rope, &ovf);
    /* compressed KV + rope key per layer:
     * (kv_lora_rank + qk_rope_head_dim) * layers * elem */
    int64_t c = kvplan__mul(kvplan__mul(latent, layers, &ovf), kv_size, &ovf);
    if (kvplan__dsa_fp8_rows(r)) {
        /* later sglang (KVPLAN_RULE_DSA_FP8_656): the rows as DSA's fp8
         * pool lays them out */
        c = kvplan__mul(kvplan__dsa_fp8_row_bytes(lora, rope, &ovf), layers,
                        &ovf);
    }
    if (r->runner.kv_cache_dtype == KVPLAN_DTYPE_FLOAT4_E2M1FN_X2) {
        /* packed fp4 halves the bytes, plus one scale per 16 values */
        int64_t scales = kvplan__mul(
            kvplan__mul(kvplan__floordiv(latent, 16, &ovf), layers, &ovf),
            kv_size, &ovf);
        c = kvplan__add(kvplan__floordiv(c, 2, &ovf), scales, &ovf);
    }
    if (r->model.hf_config.is_deepseek_dsa) {
        /* DSA indexer keys with their fp32 scales, uint8 storage:
         * (ihd + ihd // 128 * 4) * layers * 1 (DSATokenToKVPool constants) */
        int64_t ihd = 0;
        if ((st = kvplan__need_dim(r->model.hf_config.index_head_dim,
                                   "/model/hf_config/index_head_dim",
                                   "for a DeepSeek DSA model", &ihd, err)) !=
            KVPLAN_OK)
            return st;
        int64_t per_token = kvplan__dsa_indexer_bytes(ihd, &ovf);
        c = kvplan__add(
            c,
            kvplan__mul(kvplan__mul(per_token,
                                    kvplan__dsa_topk_layers(r, layers), &ovf),
                        1, &ovf),
            &ovf);
    }
    if (ovf)
        return kvplan__overflow_of(
            err, "the MLA cell size",
            "/model/kv_lora_rank, /model/qk_rope_head_dim");
    *cell = c;
    return KVPLAN_OK;
}

/* Seed: DefaultPoolConfigurator._compute_cell_size, MiniMax sparse branch
 * (mirrors MiniMaxSparseKVPool): K+V of every local layer in the main pool,
 * plus a single-head indexer on the sparse layers, K+V or K only, in the
 * model dtype. No FP4 adjustment. */
static kvplan_status minimax_cell_size(const kvplan_rank *r, int64_t kv_size,
                                       int64_t *cell, kvplan_error *err)
{
    const struct kvplan_minimax_sparse *ms = &r->model.hf_config.minimax_sparse;
    int64_t start = r->runner.start_layer, end = r->runner.end_layer;
    int64_t num_dense = kvplan__count_in_stage(ms->dense_layer_ids, start, end);
    int64_t num_sparse =
        kvplan__count_in_stage(ms->sparse_layer_ids, start, end);
    int64_t num_k_only = kvplan__count_k_only(ms, start, end);
    int64_t num_kv = num_sparse - num_k_only;

    kvplan_status st;
    int64_t head_dim = 0, index_dim = 0, index_size = 0;
    if ((st = kvplan__check_tp(r, err)) != KVPLAN_OK ||
        (st = kvplan__need_dim(r->model.head_dim, "/model/head_dim",
                               "for a MiniMax sparse model", &head_dim, err)) !=
            KVPLAN_OK ||
        (st = kvplan__need_dim(
             ms->sparse_index_dim,
             "/model/hf_config/minimax_sparse/sparse_index_dim",
             "for a MiniMax sparse model", &index_dim, err)) != KVPLAN_OK ||
        (st = kvplan__kv_size_of(r->runner.dtype, "/runner/dtype", &index_size,
                                 err)) != KVPLAN_OK)
        return st;
    int64_t kv_heads = kvplan__kv_heads_per_rank(r->model.num_key_value_heads,
                                                 r->parallel.attn_tp_size);
    bool ovf = false;
    /* (dense + sparse) * 2 * kv_heads * head_dim * elem */
    int64_t main_pool = kvplan__mul(
        kvplan__mul(kvplan__mul(kvplan__mul(num_dense + num_sparse, 2, &ovf),
                                kv_heads, &ovf),
                    head_dim, &ovf),
        kv_size, &ovf);
    /* (kv_layers * 2 + k_only_layers) * sparse_index_dim * model elem */
    int64_t indexer = kvplan__mul(
        kvplan__mul(kvplan__add(kvplan__mul(num_kv, 2, &ovf), num_k_only, &ovf),
                    index_dim, &ovf),
        index_size, &ovf);
    int64_t c = kvplan__add(main_pool, indexer, &ovf);
    if (ovf)
        return kvplan__overflow_of(
            err, "the MiniMax sparse cell size",
            "/model/head_dim, /model/num_key_value_heads, "
            "/model/hf_config/minimax_sparse/sparse_index_dim");
    *cell = c;
    return KVPLAN_OK;
}

/* Seed: DefaultPoolConfigurator._compute_cell_size, MHA branch. */
static kvplan_status mha_cell_size(const kvplan_rank *r, int64_t layers,
                                   int64_t kv_size, int64_t *cell,
                                   kvplan_error *err)
{
    kvplan_status st;
    int64_t head_dim = 0, v_head_dim = 0;
    if ((st = kvplan__check_tp(r, err)) != KVPLAN_OK ||
        (st = kvplan__need_dim(r->model.head_dim, "/model/head_dim", "",
                               &head_dim, err)) != KVPLAN_OK ||
        (st = kvplan__dim_or(r->model.v_head_dim, head_dim, "/model/v_head_dim",
                             &v_head_dim, err)) != KVPLAN_OK)
        return st;
    int64_t n = kvplan__mha_kv_heads(r);
    bool ovf = false;
    /* K+V per layer: heads * (head_dim + v_head_dim) * layers * elem */
    int64_t c = kvplan__mul(
        kvplan__mul(
            kvplan__mul(n, kvplan__add(head_dim, v_head_dim, &ovf), &ovf),
            layers, &ovf),
        kv_size, &ovf);
    if (r->runner.kv_cache_dtype == KVPLAN_DTYPE_FLOAT4_E2M1FN_X2) {
        /* packed fp4 halves the bytes; K and V scales, one per 16 values:
         * (heads * head_dim * layers * 2 * elem) // 16 */
        int64_t scales = kvplan__floordiv(
            kvplan__mul(kvplan__mul(kvplan__mul(kvplan__mul(n, head_dim, &ovf),
                                                layers, &ovf),
                                    2, &ovf),
                        kv_size, &ovf),
            16, &ovf);
        c = kvplan__add(kvplan__floordiv(c, 2, &ovf), scales, &ovf);
        if (r->upstream.rules & KVPLAN_RULE_FP4_MHA_WORKSPACE)
            /* later sglang: one fp8 dequant workspace shared by the layers,
             * heads * head_dim * 2 * elem per token */
            c = kvplan__add(
                c,
                kvplan__mul(
                    kvplan__mul(kvplan__mul(n, head_dim, &ovf), 2, &ovf),
                    kv_size, &ovf),
                &ovf);
    }
    if (ovf)
        return kvplan__overflow_of(
            err, "the cell size",
            "/model/num_key_value_heads, /model/head_dim, "
            "/model/v_head_dim, /runner/num_effective_layers");
    *cell = c;
    return KVPLAN_OK;
}

/* The factory's last rule: any rank. */
bool kvplan__default_applies(const kvplan_rank *r)
{
    (void)r;
    return true;
}

kvplan_status kvplan__default_init(kvplan_configurator *c, const kvplan_rank *r,
                                   kvplan_error *err)
{
    /* Layers holding KV on this stage: for mamba/linear hybrids, only the
     * attention layers of the stage (seed: DefaultPoolConfigurator
     * .__init__). */
    int64_t num_layers = r->runner.is_mambaish
                             ? kvplan__count_in_stage(
                                   r->runner.mambaish_full_attention_layer_ids,
                                   r->runner.start_layer, r->runner.end_layer)
                             : r->runner.num_effective_layers;
    if (num_layers < 0)
        return kvplan__fail(err, KVPLAN_INVALID_CONFIG,
                            "/runner/num_effective_layers",
                            "/runner/num_effective_layers must be >= 0, got "
                            "%lld",
                            (long long)num_layers);
    int64_t kv_size = 0;
    kvplan_status st = kvplan__kv_size_of(
        r->runner.kv_cache_dtype, "/runner/kv_cache_dtype", &kv_size, err);
    if (st != KVPLAN_OK)
        return st;

    bool ovf = false;
    int64_t layers = kvplan__dsa_split_layers(r, num_layers, &ovf);
    if (ovf)
        return kvplan__overflow(err, "the DSA layer split");
    int64_t cell = 0;
    if (r->runner.use_mla_backend)
        st = mla_cell_size(r, layers, kv_size, &cell, err);
    else if (r->model.hf_config.is_minimax_sparse)
        st = minimax_cell_size(r, kv_size, &cell, err);
    else
        st = mha_cell_size(r, layers, kv_size, &cell, err);
    if (st != KVPLAN_OK)
        return st;

    int64_t draft_layers = 0;
    kvplan_spec_algorithm spec = r->runner.spec_algorithm;
    if (r->upstream.rules & KVPLAN_RULE_DRAFT_UNPRICED)
        spec = KVPLAN_SPEC_NONE; /* older sglang: the draft is not priced */
    if ((kvplan__is_eagle_family(spec) || spec == KVPLAN_SPEC_STANDALONE) &&
        !r->runner.is_draft_worker) {
        /* The EAGLE/MTP draft shares the target's per-layer geometry:
         * cell * (1 + D / L), in floats, truncated; it can lose one byte
         * (§8.1). L is the undivided layer count (§2.5). */
        kvplan_opt_int d = r->runner.eagle_draft_num_layers;
        if (d.set && d.value > 0 && num_layers > 0) {
            draft_layers = d.value;
            double scale = 1.0 + kvplan__to_double(d.value) /
                                     kvplan__to_double(num_layers);
            cell = kvplan__trunc(kvplan__to_double(cell) * scale, &ovf);
        }
    }
    if (kvplan__is_dflash_family(spec) && !r->runner.is_draft_worker) {
        /* scale_kv_cell_size_per_token_for_dflash (§2.6): the exact
         * integer ceiling of cell * (L + D) / L. */
        kvplan_opt_int d = r->runner.dflash_draft_num_layers;
        if (d.set && d.value > 0 && num_layers > 0) {
            if (cell <= 0)
                return kvplan__fail(
                    err, KVPLAN_INVALID_CONFIG, NULL,
                    "target_cell_size_per_token must be positive, got %lld: "
                    "this stage holds no KV-cache layer to scale for the "
                    "DFLASH draft",
                    (long long)cell);
            draft_layers = d.value;
            int64_t total = kvplan__add(num_layers, d.value, &ovf);
            cell = kvplan__floordiv(
                kvplan__sub(kvplan__add(kvplan__mul(cell, total, &ovf),
                                        num_layers, &ovf),
                            1, &ovf),
                num_layers, &ovf);
        }
    }
    if (ovf)
        return kvplan__overflow(err, "the draft-scaled cell size");
    c->kind = KVPLAN_CONFIGURATOR_DEFAULT;
    kvplan_configurator_terms *t = &c->terms;
    t->kv_dtype_bytes = kv_size;
    if (r->parallel.attn_tp_size >= 1) /* checked where heads count */
        t->kv_heads = kvplan__mha_kv_heads(r);
    t->num_layers = num_layers;
    t->priced_layers = layers;
    t->draft_layers = draft_layers;
    if (r->runner.use_mla_backend) /* both checked by mla_cell_size */
        t->mla_latent_dim =
            r->model.kv_lora_rank.value + r->model.qk_rope_head_dim.value;
    if (r->model.hf_config.is_deepseek_dsa &&
        r->model.hf_config.index_head_dim.set)
        t->dsa_indexer_bytes = kvplan__dsa_indexer_bytes(
            r->model.hf_config.index_head_dim.value, &ovf);
    if (ovf)
        return kvplan__overflow(err, "the DSA indexer bytes");
    kvplan__set_coefficient_int(c, cell);
    return KVPLAN_OK;
}

/* Seed: DefaultPoolConfigurator.calculate_pool_sizes:
 * tokens = available // cell // page * page. For positive cell and page,
 * (a // cell) // page == a // (cell * page): one division instead of two
 * when the product fits. */
kvplan_status kvplan__default_from_bytes(const kvplan_configurator *c,
                                         int64_t available, int64_t page,
                                         kvplan_pool_config *out,
                                         kvplan_error *err)
{
    int64_t cell = c->cell_size_bytes;
    if (cell == 0)
        return kvplan__no_kv_layer(c, err);
    bool ovf = false;
    int64_t tokens, cell_page;
    if (cell > 0 && !__builtin_mul_overflow(cell, page, &cell_page))
        tokens = kvplan__mul(kvplan__floordiv(available, cell_page, &ovf), page,
                             &ovf);
    else
        tokens = kvplan__align_down(kvplan__floordiv(available, cell, &ovf),
                                    page, &ovf);
    if (ovf)
        return kvplan__overflow(err, "the token count");
    if (tokens <= 0)
        return kvplan__not_enough(
            err,
            "(available_bytes is %lld; one page of %lld tokens "
            "at %lld bytes per token needs %lld.)",
            (long long)available, (long long)page, (long long)cell,
            (long long)kvplan__mul(page, cell, &ovf));
    kvplan__put_config(out, tokens, kvplan__unset, kvplan__unset);
    return KVPLAN_OK;
}

/* Seed: DefaultPoolConfigurator.calculate_pool_sizes_from_max_tokens. */
kvplan_status kvplan__default_from_tokens(const kvplan_configurator *c,
                                          int64_t tokens, int64_t page,
                                          kvplan_pool_config *out,
                                          kvplan_error *err)
{
    (void)c; /* the token count alone decides */
    bool ovf = false;
    int64_t aligned = kvplan__align_down(tokens, page, &ovf);
    if (ovf)
        return kvplan__overflow(err, "the token count");
    if (aligned <= 0)
        return kvplan__tokens_below_page(tokens, page, err);
    kvplan__put_config(out, aligned, kvplan__unset, kvplan__unset);
    return KVPLAN_OK;
}
