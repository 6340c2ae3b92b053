/*
 * allocation.c: the bytes sglang's pools really allocate once the
 * configurator has sized them (docs/sglang-rules.md §5), beside the
 * configurator's price, and the req_to_token pool (§3.4).
 */
#include "plan/plan.h"

#include <string.h>

static int64_t mha_pool(int64_t tokens, int64_t page, int64_t heads,
                        int64_t k_dim, int64_t v_dim, int64_t elem,
                        int64_t layers, bool fp4, bool *ovf)
{
    if (layers <= 0)
        return 0;
    int64_t rows = kvplan__add(tokens, page, ovf);
    int64_t per_row;
    if (fp4) /* K and V packed (V uses head_dim), plus two scale buffers */
        per_row = kvplan__add(kvplan__mul(2 * heads, k_dim / 2, ovf),
                              2 * (kvplan__mul(heads, k_dim, ovf) / 16), ovf);
    else
        per_row = kvplan__mul(
            kvplan__mul(heads, kvplan__add(k_dim, v_dim, ovf), ovf), elem, ovf);
    return kvplan__mul(kvplan__mul(rows, per_row, ovf), layers, ovf);
}

static int64_t dsv4_page_bytes(int64_t page, int64_t per_token, bool *ovf)
{
    return kvplan__ceil_align(kvplan__mul(page, per_token, ovf), 576, ovf);
}

static int64_t dsv4_pool(int64_t size, int64_t page, int64_t per_token,
                         int64_t layers, bool *ovf)
{
    if (layers <= 0 || page <= 0)
        return 0;
    int64_t pages = kvplan__add(size, page + 1, ovf) / page;
    return kvplan__mul(
        kvplan__mul(pages, dsv4_page_bytes(page, per_token, ovf), ovf), layers,
        ovf);
}

static int64_t dsv4_state(int64_t size, int64_t ratio, int64_t ring,
                          int64_t width, int64_t elem, bool online, int64_t mtp,
                          int64_t layers, bool *ovf)
{
    int64_t rows = online ? kvplan__mul(kvplan__add(size, 2, ovf),
                                        kvplan__add(1, mtp, ovf), ovf)
                          : kvplan__ceil_align(kvplan__add(size, ring + 1, ovf),
                                               ratio, ovf);
    return kvplan__mul(kvplan__mul(rows, kvplan__mul(width, elem, ovf), ovf),
                       layers, ovf);
}

/* DeepSeek V4's pools: the SWA, c4 and c128 compressed caches, the c4
 * indexer, and the compressor states. */
static void price_dsv4(kvplan_stage_plan *sp, bool *ovf)
{
    const kvplan_rank *r = &sp->rank;
    const kvplan_configurator *c = &sp->configurator;
    const kvplan_pool_config *p = &sp->pools;
    int64_t page = r->runner.page_size, S = p->max_total_num_tokens;
    const kvplan_configurator_terms *t = &c->terms;
    kvplan_allocation *a = &sp->allocation;
    int64_t nope = r->model.qk_nope_head_dim.value;
    int64_t rope = r->model.qk_rope_head_dim.value;
    int64_t ihd = r->model.index_head_dim.value;
    int64_t win = r->model.window_size.value;
    /* the pool's own row (DeepSeekV4SingleKVPool: a scale byte per 64
     * NoPE values and one more), which sglang asserts is the
     * configurator's (kvplan__dsv4_row_bytes, 584); the pool's is priced */
    int64_t per_token = nope + 2 * rope + nope / 64 + 1;
    a->kv_row_bytes = per_token;
    int64_t lt = c->terms.num_layers_total, l4 = c->terms.num_layers_ca4,
            l128 = c->terms.num_layers_ca128;
    int64_t attn = nope + rope, s_elem = c->terms.c128_state_dtype_size;
    int64_t c128_state = kvplan__max(p->c128_state_pool_size, 0);
    a->kv_bytes =
        dsv4_pool(p->swa_max_total_num_tokens.value, win, per_token, lt, ovf) +
        dsv4_pool(p->c4_max_total_num_tokens, page / 4, per_token, l4, ovf) +
        dsv4_pool(p->c128_max_total_num_tokens, page / 128, per_token, l128,
                  ovf) +
        /* the c4 indexer holds c128 * 32 tokens */
        (l4 > 0 && page >= 4
             ? kvplan__mul(
                   kvplan__mul(
                       kvplan__add(
                           kvplan__mul(p->c128_max_total_num_tokens, 32, ovf),
                           page / 4 + 1, ovf) /
                           (page / 4),
                       kvplan__mul(page / 4, t->dsa_indexer_bytes, ovf), ovf),
                   l4, ovf)
             : 0) +
        dsv4_state(p->c4_state_pool_size, 4, c->terms.c4_ring_size, 4 * attn,
                   s_elem, false, 0, l4, ovf) +
        dsv4_state(p->c4_state_pool_size, 4, c->terms.c4_ring_size, 4 * ihd,
                   s_elem, false, 0, l4, ovf) +
        dsv4_state(c128_state, 128, c->terms.c128_ring_size,
                   (c->terms.online_c128 ? 3 : 2) * attn, s_elem,
                   c->terms.online_c128,
                   c->terms.online_c128_mtp_max_draft_tokens, l128, ovf);
    a->predicted_kv_bytes =
        kvplan__trunc(kvplan__to_double(S) * c->bytes_per_full_token, ovf);
}

/* SWAKVPool: two MHA sub-pools; only the compress archs keep the SWA
 * layers' own geometry, the others use the full one, V = head_dim.
 * Returns a token's bytes in one full layer (a draft of the target's
 * geometry). */
static int64_t price_swa(const kvplan_model *m, kvplan_stage_plan *sp,
                         bool *ovf)
{
    const kvplan_rank *r = &sp->rank;
    const kvplan_configurator *c = &sp->configurator;
    const kvplan_pool_config *p = &sp->pools;
    int64_t page = r->runner.page_size, S = p->max_total_num_tokens;
    const kvplan_configurator_terms *t = &c->terms;
    kvplan_allocation *a = &sp->allocation;
    int64_t elem = t->kv_dtype_bytes, heads = t->kv_heads;
    int64_t hd = m->info.head_dim, vhd = m->info.v_head_dim;
    int64_t per_layer_token = 0;
    int64_t nf = (int64_t)r->model.full_attention_layer_ids.count;
    int64_t ns = (int64_t)r->model.swa_attention_layer_ids.count;
    int64_t swa_tokens = p->swa_max_total_num_tokens.value;
    int64_t full_tokens = p->full_max_total_num_tokens.value;
    if (m->hybrid_swa_compress) {
        int64_t swa_heads = t->swa_kv_heads;
        a->kv_bytes =
            mha_pool(swa_tokens, page, swa_heads, m->swa_head_dim,
                     m->swa_v_head_dim, elem, ns, false, ovf) +
            mha_pool(full_tokens, page, heads, hd, vhd, elem, nf, false, ovf);
        per_layer_token = kvplan__mul(
            kvplan__mul(heads, kvplan__add(hd, vhd, ovf), ovf), elem, ovf);
    } else {
        a->kv_bytes =
            mha_pool(swa_tokens, page, heads, hd, hd, elem, ns, false, ovf) +
            mha_pool(full_tokens, page, heads, hd, hd, elem, nf, false, ovf);
        per_layer_token =
            kvplan__mul(kvplan__mul(2 * heads, hd, ovf), elem, ovf);
    }
    if (c->kind == KVPLAN_CONFIGURATOR_SWA_CHUNK_CAP)
        /* the chunk cap prices the SWA pool at its cap, apart: swa * S *
         * ns + full * F * (nf + d) */
        a->predicted_kv_bytes = kvplan__add(
            kvplan__mul(kvplan__mul(swa_tokens, c->terms.swa_per_token, ovf),
                        c->terms.swa_layers_num, ovf),
            kvplan__mul(
                kvplan__mul(full_tokens, c->terms.full_per_token, ovf),
                c->terms.full_layers_num + c->terms.draft_full_layers_num, ovf),
            ovf);
    else
        a->predicted_kv_bytes =
            kvplan__trunc(kvplan__to_double(S) * c->cell_size, ovf);
    return per_layer_token;
}

/* The default configurator's pool: MLA (DSA's indexer with it), MiniMax's
 * sparse layers, or MHA. Returns a token's bytes in one layer. */
static int64_t price_default(const kvplan_model *m, const kvplan_plan *plan,
                             kvplan_stage_plan *sp, bool *ovf)
{
    const kvplan_rank *r = &sp->rank;
    const kvplan_configurator *c = &sp->configurator;
    const kvplan_pool_config *p = &sp->pools;
    int64_t page = r->runner.page_size, S = p->max_total_num_tokens;
    const kvplan_configurator_terms *t = &c->terms;
    kvplan_allocation *a = &sp->allocation;
    int64_t elem = t->kv_dtype_bytes, heads = t->kv_heads;
    bool fp4 = r->runner.kv_cache_dtype == KVPLAN_DTYPE_FLOAT4_E2M1FN_X2;
    int64_t hd = m->info.head_dim, vhd = m->info.v_head_dim;
    int64_t start = r->runner.start_layer, end = r->runner.end_layer;
    int64_t per_layer_token = 0;
    int64_t layers = r->runner.num_effective_layers;
    if (r->runner.is_mambaish)
        layers = c->terms.num_layers;
    if (r->runner.use_mla_backend) {
        int64_t lora = r->model.kv_lora_rank.value;
        int64_t rope = r->model.qk_rope_head_dim.value;
        int64_t dim = lora + rope;
        bool dsa = r->model.hf_config.is_deepseek_dsa;
        if (dsa && r->runner.kv_cache_dtype == KVPLAN_DTYPE_FLOAT8_E4M3FN &&
            strcmp(plan->attention_backend, "trtllm_mla") != 0)
            dim = kvplan__dsa_fp8_row_bytes(lora, rope, ovf); /* 656 */
        int64_t rows = kvplan__add(S, page, ovf);
        int64_t per_row =
            fp4 ? dim / 2 + dim / 16 : kvplan__mul(dim, elem, ovf);
        int64_t le = t->priced_layers; /* after the DSA layer split */
        a->kv_bytes = kvplan__mul(kvplan__mul(rows, per_row, ovf), le, ovf);
        if (dsa) {
            int64_t pages = kvplan__add(S, page + 1, ovf) / page;
            a->kv_bytes = kvplan__add(
                a->kv_bytes,
                kvplan__mul(
                    kvplan__mul(pages,
                                kvplan__mul(page, t->dsa_indexer_bytes, ovf),
                                ovf),
                    le, ovf),
                ovf);
        }
        per_layer_token = per_row;
        a->kv_row_bytes = per_row;
    } else if (r->model.hf_config.is_minimax_sparse) {
        const struct kvplan_minimax_sparse *ms =
            &r->model.hf_config.minimax_sparse;
        int64_t idim = ms->sparse_index_dim.value;
        int64_t isz = kvplan_dtype_size(r->runner.dtype);
        int64_t nd = kvplan__count_in_stage(ms->dense_layer_ids, start, end);
        int64_t ns = kvplan__count_in_stage(ms->sparse_layer_ids, start, end);
        int64_t nk = kvplan__count_k_only(ms, start, end);
        a->kv_bytes =
            mha_pool(S, page, heads, hd, hd, elem, nd + ns, false, ovf) +
            mha_pool(S, page, 1, idim, idim, isz, ns - nk, false, ovf) +
            mha_pool(S, page, 1, idim, 0, isz, nk, false, ovf);
        per_layer_token =
            kvplan__mul(kvplan__mul(2 * heads, hd, ovf), elem, ovf);
    } else {
        int64_t v = r->runner.is_mambaish ? hd : vhd;
        a->kv_bytes = mha_pool(S, page, heads, hd, v, elem, layers, fp4, ovf);
        per_layer_token = kvplan__mul(
            kvplan__mul(heads, kvplan__add(hd, v, ovf), ovf), elem, ovf);
    }
    a->predicted_kv_bytes = kvplan__mul(S, c->cell_size_bytes, ovf);
    return per_layer_token;
}

void kvplan__price_allocation(const kvplan_model *m, const kvplan_plan *plan,
                              kvplan_stage_plan *sp, bool *ovf)
{
    const kvplan_rank *r = &sp->rank;
    const kvplan_configurator *c = &sp->configurator;
    int64_t page = r->runner.page_size;
    int64_t S = sp->pools.max_total_num_tokens;
    kvplan_allocation *a = &sp->allocation;
    int64_t per_layer_token = 0; /* for a draft of the target's geometry */
    if (c->kind == KVPLAN_CONFIGURATOR_DSV4)
        price_dsv4(sp, ovf);
    else if (c->kind != KVPLAN_CONFIGURATOR_DEFAULT)
        per_layer_token = price_swa(m, sp, ovf);
    else
        per_layer_token = price_default(m, plan, sp, ovf);

    if (c->kind != KVPLAN_CONFIGURATOR_DSV4 && !r->runner.use_mla_backend)
        a->kv_row_bytes = per_layer_token;

    /* the draft's KV pool, same tokens, its own geometry (§3.5) */
    kvplan_spec_algorithm spec = r->runner.spec_algorithm;
    if (spec != KVPLAN_SPEC_NONE && spec != KVPLAN_SPEC_NGRAM &&
        c->kind != KVPLAN_CONFIGURATOR_DSV4) {
        int64_t dl = r->runner.eagle_draft_num_layers.set
                         ? r->runner.eagle_draft_num_layers.value
                     : r->runner.dflash_draft_num_layers.set
                         ? r->runner.dflash_draft_num_layers.value
                         : 0;
        a->draft_kv_bytes = kvplan__mul(
            kvplan__mul(kvplan__add(S, page, ovf), per_layer_token, ovf), dl,
            ovf);
    }
}

/* The request slots of the req_to_token pool (§3.4): max_running_requests,
 * and PD decode's pre-allocated slots. */
int64_t kvplan__request_slots(const kvplan_rank *r, int64_t requests, bool *ovf)
{
    if (r->server_args.disaggregation_mode == KVPLAN_DISAGG_DECODE)
        return kvplan__add(
            requests, r->server_args.disaggregation_decode_extra_slots, ovf);
    return requests;
}

/* get_req_to_token_extra_context_len (§2.8) and the pool (§3.4): rows
 * (requests + 1, + the PD decode slots) of (context_len + extra) int32,
 * extra = 4 + max draft tokens, or twice a decode step's allocation when
 * speculative pages hold several top-k branches. */
int64_t kvplan__req_to_token_bytes(const kvplan_rank *r, int64_t requests,
                                   int64_t context_len, bool *ovf)
{
    int64_t extra = kvplan__add(
        4,
        kvplan__or_default(r->server_args.max_speculative_num_draft_tokens, 0),
        ovf);
    int64_t topk = kvplan__or_default(r->server_args.speculative_eagle_topk, 1);
    if (r->runner.spec_algorithm != KVPLAN_SPEC_NONE &&
        r->runner.page_size > 1 && topk > 1)
        extra = kvplan__max(
            extra, kvplan__mul(2, kvplan__spec_v2_alloc_len(r, ovf), ovf));
    int64_t rows = kvplan__add(kvplan__request_slots(r, requests, ovf), 1, ovf);
    return kvplan__mul(
        kvplan__mul(rows, kvplan__add(context_len, extra, ovf), ovf), 4, ovf);
}
