/*
 * trtllm.c: what TensorRT-LLM's PyTorch flow allocates (docs/engines.md),
 * restated from tensorrt_llm/_torch/pyexecutor/_util.py (KvCacheCreator):
 * the KV bytes per token of every layer (K and V heads, or MLA's latent
 * with kv_factor 1 and DSA's indexer), the dummy requests' peak, then
 *
 *   kv_max = (total - peak) * free_gpu_memory_fraction,
 *
 * capped by max_gpu_total_bytes and max_tokens, in blocks of
 * tokens_per_block. Without max_attention_window every layer, sliding ones
 * too, holds the whole sequence (VSWA is opt-in: trtllm_vswa.c). A mamba
 * hybrid's states join the cost, per token or per request (below).
 */
#include "engine/engine.h"

#include <math.h>

/* A mamba hybrid (CppMambaHybridCacheManager, one pool with the
 * attention blocks): its cost is affine, slope x tokens + intercept
 * (get_cache_size_per_token, mamba_cache_manager.py; CacheCost in
 * _util.py). Each mamba layer of the rank (its stage's share of the count,
 * pp_layers) holds conv (conv_dim // tp, kernel - 1) in the model dtype and
 * ssm (heads // tp, head_dim, state) per request
 * (get_states_bytes_per_layer, config_utils.py). With block reuse
 * (enable_block_reuse, on by default) its snapshots every
 * mamba_state_cache_interval (256) tokens are priced per token and the
 * intercept is 0; without, the intercept is max_batch_size requests'
 * states. Returns the slope. */
static int64_t mamba_cost(const kvplan__engine_census *c,
                          const kvplan_engine_options *o, int64_t max_batch,
                          int64_t attention_slope, int64_t *intercept,
                          int64_t *mamba_rank, bool *ovf)
{
    *mamba_rank = o->pp_size > 1
                      ? kvplan__ceil_div(c->mamba_layers, o->pp_size, ovf)
                      : c->mamba_layers;
    int64_t state_rank = kvplan__mul(*mamba_rank, c->mamba_page, ovf);
    int64_t interval = o->mamba_state_cache_interval.set
                           ? o->mamba_state_cache_interval.value
                           : 256;
    *intercept = 0;
    if (!o->no_prefix_caching)
        return kvplan__add(attention_slope, state_rank / interval, ovf);
    *intercept = kvplan__mul(max_batch, state_rank, ovf);
    return attention_slope;
}

/* A separate draft KV cache (one-model EAGLE with the speculative
 * config's separate draft manager): the target's and the head's costs
 * split the KV budget as _compute_draft_budget_shares (_util.py) does,
 * the draft int(slope budget x draft slope / both slopes) plus its
 * intercept (0), the target the rest; each manager holds the tokens its
 * share buys, at most the max_tokens the whole cost gave, in ceilDiv
 * blocks; the host cache splits by the slopes alone. The target's group
 * is groups[0]; the head's is appended. */
static kvplan_status draft_split(const kvplan__engine_census *c,
                                 const kvplan_engine_options *o, double kv,
                                 int64_t intercept, int64_t tokens, int64_t tpb,
                                 kvplan_engine_plan *p, kvplan_error *err)
{
    bool ovf = false;
    int64_t draft_page =
        kvplan__vllm_attention_page(1, c->draft_kv_heads, c->draft_head_dim,
                                    c->draft_v_head_dim, c->kv_elem, &ovf);
    int64_t d = kvplan__mul(draft_page, c->draft_layers, &ovf);
    int64_t t = p->bytes_per_token - d;
    int64_t budget = (int64_t)kv; /* max_gpu_total_bytes, an int */
    int64_t share =
        (int64_t)((double)(budget - intercept) * (double)d / (double)(t + d));
    int64_t target_budget = budget - share;
    int64_t tokens_t = (target_budget - intercept) / t;
    int64_t tokens_d = share / d;
    if (tokens_t > tokens)
        tokens_t = tokens;
    if (tokens_d > tokens)
        tokens_d = tokens;
    p->bytes_per_token = t;
    p->num_gpu_blocks = kvplan__ceil_div(tokens_t, tpb, &ovf);
    p->kv_cache_tokens = p->num_gpu_blocks * tpb;
    int64_t draft_blocks = kvplan__ceil_div(tokens_d, tpb, &ovf);
    p->available_bytes = kvplan__add(
        kvplan__add(kvplan__mul(p->kv_cache_tokens, t, &ovf), intercept, &ovf),
        kvplan__mul(draft_blocks * tpb, d, &ovf), &ovf);
    p->max_concurrency =
        p->max_model_len > 0
            ? (double)kvplan__min(p->kv_cache_tokens, draft_blocks * tpb) /
                  (double)p->max_model_len
            : 0;
    int64_t host = o->host_cache_size.set ? o->host_cache_size.value : 0;
    int64_t host_d = (int64_t)((double)host * (double)d / (double)(t + d));
    p->groups[0].num_blocks = p->num_gpu_blocks;
    p->groups[0].host_blocks =
        (int64_t)((double)(host - host_d) / (double)t / (double)tpb);
    KVPLAN__FAIL_IF(p->num_groups >= KVPLAN_MAX_ENGINE_GROUPS, err,
                    KVPLAN_UNSUPPORTED, "--separate-draft-kv-cache",
                    "--separate-draft-kv-cache: too many KV-cache groups");
    int64_t page = kvplan__mul(draft_page, tpb, &ovf);
    p->groups[p->num_groups++] = (kvplan_engine_group){
        KVPLAN_KV_SPEC_FULL,
        c->draft_layers,
        0,
        page,
        page,
        tpb,
        0,
        kvplan__mul(kvplan__ceil_div(p->max_model_len, tpb, &ovf), page, &ovf),
        draft_blocks,
        (int64_t)((double)host_d / (double)d / (double)tpb)};
    KVPLAN__FAIL_IF(ovf, err, KVPLAN_OVERFLOW, "--separate-draft-kv-cache",
                    "the draft KV cache's bytes exceed 64 bits");
    return KVPLAN_OK;
}

/* The profile's peak (the estimated terms into `p`): its dummy context
 * requests (_create_dummy_context_requests, _util.py) are max_num_tokens
 * in requests of min(max_num_tokens, max_seq_len - 1) tokens, each
 * sampling its last token only, so the sampler sees that many sequences,
 * not max_batch_size. The CUDA graphs are captured in the estimation run,
 * before the profile reads the peak ("Memory used outside torch (e.g.,
 * NCCL and CUDA graphs)"; tests/logs/trtllm/01's warm-up precedes its
 * profile): they are in the peak. A given non-torch figure is that
 * line's, the graphs in it: no estimate is added to it. */
static double profile_peak(const kvplan_model *m,
                           const kvplan__engine_census *c,
                           const kvplan_engine_options *o,
                           kvplan_engine_plan *p, bool *ovf)
{
    int64_t len1 = kvplan__min(p->max_num_batched_tokens,
                               kvplan__max(1, p->max_model_len - 1));
    int64_t dummies = kvplan__ceil_div(p->max_num_batched_tokens, len1, ovf);
    kvplan__engine_terms(m, o, c, p->max_num_batched_tokens, dummies, p);
    if (o->non_torch_bytes.set && !o->cuda_graph_bytes.set) {
        p->cuda_graph_bytes = 0;
        p->cuda_graph_source = KVPLAN_SOURCE_GIVEN;
    }
    return p->weight_bytes + p->activation_bytes + p->non_torch_bytes +
           p->cuda_graph_bytes;
}

/* The rank's KV bytes a token and its layers (its stage's share), one
 * layer's bytes a token into *per_layer: K and V heads, or MLA's latent
 * with kv_factor 1 and DSA's indexer; an EAGLE head's layers share the
 * manager, in their own geometry (with PP they are on the last stage,
 * counted here in full). */
static int64_t token_bytes(const kvplan__engine_census *c,
                           const kvplan_engine_options *o, int64_t *layers,
                           int64_t *per_layer, bool *ovf)
{
    *layers = c->full_layers + c->swa_layers;
    if (o->pp_size > 1)
        *layers = kvplan__ceil_div(*layers, o->pp_size, ovf);
    if (c->mla) /* kv_factor 1: the latent and the rope key */
        *per_layer = kvplan__add(kvplan__mul(c->mla_dim, c->kv_elem, ovf),
                                 c->index_bytes, ovf);
    else
        *per_layer = kvplan__vllm_attention_page(
            1, c->kv_heads, c->head_dim, c->v_head_dim, c->kv_elem, ovf);
    return kvplan__add(kvplan__mul(*per_layer, *layers, ovf),
                       kvplan__mul(kvplan__vllm_attention_page(
                                       1, c->draft_kv_heads, c->draft_head_dim,
                                       c->draft_v_head_dim, c->kv_elem, ovf),
                                   c->draft_layers, ovf),
                       ovf);
}

kvplan_status kvplan__trtllm_plan(const kvplan__engine_census *c,
                                  const kvplan_engine_options *o,
                                  const kvplan_model *m, kvplan_engine_plan *p,
                                  kvplan_error *err)
{
    bool ovf = false;
    KVPLAN__TRY(kvplan__trtllm_manager(m, c, o, p, err));
    bool gemma4 = kvplan__trtllm_gemma4(m); /* V2 whatever is asked */
    bool v2 = p->kv_cache_manager == 2;
    bool dsv4 = m->info.is_deepseek_v4; /* its own manager: trtllm_dsv4.c */
    if (!dsv4)
        KVPLAN__TRY(kvplan__trtllm_v2_check(c, o, p, err));
    /* the dummy context requests of max_num_tokens (8192), a batch of
     * max_batch_size (2048) in the sampler */
    p->max_num_batched_tokens =
        o->max_num_batched_tokens.set ? o->max_num_batched_tokens.value : 8192;
    p->max_num_seqs = o->max_num_seqs.set ? o->max_num_seqs.value : 2048;
    /* the bytes a token (DeepSeek-V4's roles price themselves) */
    int64_t layers = 0, per_layer = 0, per_token = 0;
    int64_t intercept = 0, mamba_rank = 0;
    if (!dsv4) {
        per_token = token_bytes(c, o, &layers, &per_layer, &ovf);
        if (c->mambaish)
            per_token = mamba_cost(c, o, p->max_num_seqs, per_token, &intercept,
                                   &mamba_rank, &ovf);
        KVPLAN__FAIL_IF(ovf || per_token <= 0, err, KVPLAN_OVERFLOW,
                        "--model-path",
                        "the KV bytes per token exceed 64 bits");
    }
    p->bytes_per_token = per_token;
    KVPLAN__FAIL_IF(o->separate_draft_kv_cache && c->draft_layers == 0, err,
                    KVPLAN_UNSUPPORTED, "--separate-draft-kv-cache",
                    "--separate-draft-kv-cache: kvplan models it for an "
                    "EAGLE head given with --speculative-draft-model-path; "
                    "this plan has none");
    /* 32, KvCacheConfig's; DeepSeek-V4's model defaults give 128 */
    int64_t tpb = o->tokens_per_block.set ? o->tokens_per_block.value
                  : dsv4                  ? 128
                                          : 32;
    p->block_size = tpb;
    p->max_model_len =
        o->max_model_len.set ? o->max_model_len.value : c->context_len;
    if (dsv4)
        KVPLAN__TRY(kvplan__trtllm_dsv4_check(m, c, o, p, tpb, err));
    double peak = profile_peak(m, c, o, p, &ovf);
    double f = o->free_gpu_memory_fraction.set
                   ? o->free_gpu_memory_fraction.value
                   : 0.9;
    /* a share of what is free after the profile (others': --gpu auto) */
    double others = o->gpu_set ? o->gpu.in_use_mib * 1048576.0 : 0;
    double kv = (p->total_bytes - others - peak) * f;
    KVPLAN__FAIL_IF(!(kv > 0), err, KVPLAN_NOT_ENOUGH_MEMORY, "--tp-size",
                    "TensorRT-LLM has no memory for the KV cache: the weights "
                    "and the profile's peak (%.2f GiB per rank) exceed the "
                    "GPU's %.2f GiB",
                    peak / 1073741824.0, p->total_bytes / 1073741824.0);
    int64_t cap = o->max_gpu_total_bytes.set ? o->max_gpu_total_bytes.value : 0;
    if (cap > 0 && (double)cap < kv) /* 0: none, KvCacheConfig's default */
        kv = (double)cap;
    p->requested_bytes = kv;
    if (dsv4)
        return kvplan__trtllm_dsv4(m, c, o, kv, tpb, p, err);
    if (v2) { /* Gemma 4's full layers: its global heads with k_eq_v */
        kvplan__engine_census g = *c;
        if (gemma4 && !m->weights.full_k_eq_v)
            g.kv_heads = c->swa_kv_heads;
        return kvplan__trtllm_v2(&g, o, kv, layers, tpb, gemma4, p, err);
    }
    kvplan__trtllm_window w[KVPLAN_MAX_ENGINE_GROUPS];
    size_t nw = 0;
    if (o->max_attention_window != NULL) {
        KVPLAN__FAIL_IF(c->mla || c->draft_layers > 0 || c->mambaish, err,
                        KVPLAN_UNSUPPORTED, "--max-attention-window",
                        "--max-attention-window with %s is not modelled",
                        c->mla                ? "MLA"
                        : c->draft_layers > 0 ? "a speculative draft's layers"
                                              : "a mamba hybrid");
        KVPLAN__TRY(kvplan__trtllm_windows(
            o->max_attention_window, p->max_model_len, layers, w, &nw, err));
        if (nw > 1)
            return kvplan__trtllm_vswa(o, w, nw, per_layer, kv, tpb, p, err);
    }
    int64_t window =
        nw == 1 && w[0].window < p->max_model_len ? w[0].window : 0;
    /* tokens_for_budget: (budget - intercept) // slope, at least 0 */
    KVPLAN__FAIL_IF(
        !(kv > (double)intercept), err, KVPLAN_NOT_ENOUGH_MEMORY,
        "--max-num-seqs",
        "TensorRT-LLM has no memory for the KV cache: the mamba "
        "states of max_batch_size %lld requests (%.2f GiB per "
        "rank, without block reuse) exceed the %.2f GiB left for it",
        (long long)p->max_num_seqs, (double)intercept / 1073741824.0,
        kv / 1073741824.0);
    int64_t tokens = (int64_t)((kv - (double)intercept) / (double)per_token);
    if (o->max_tokens.set && o->max_tokens.value < tokens)
        tokens = o->max_tokens.value;
    /* KVCacheManager::calculateMaxNumBlocks: ceilDiv(maxTokens,
     * tokensPerBlock) blocks in the primary pool, the last one partly
     * beyond the tokens the memory was sized for (kvCacheManager.cpp) */
    p->num_gpu_blocks = kvplan__ceil_div(tokens, tpb, &ovf);
    p->kv_cache_tokens = p->num_gpu_blocks * tpb;
    p->available_bytes = kvplan__add(
        kvplan__mul(p->kv_cache_tokens, per_token, &ovf), intercept, &ovf);
    /* a request of max_seq_len holds its window's blocks at most */
    int64_t held = window > 0 ? kvplan__ceil_div(window, tpb, &ovf) * tpb
                              : p->max_model_len;
    p->max_concurrency =
        held > 0 ? (double)p->kv_cache_tokens / (double)held : 0;
    if (intercept > 0 && p->max_concurrency > (double)p->max_num_seqs)
        p->max_concurrency = (double)p->max_num_seqs; /* a state a request */
    p->num_groups = 1;
    p->group_size = layers;
    p->groups[0] = (kvplan_engine_group){
        c->mla   ? KVPLAN_KV_SPEC_MLA
        : window ? KVPLAN_KV_SPEC_SLIDING_WINDOW
                 : KVPLAN_KV_SPEC_FULL,
        layers, 0, kvplan__mul(per_layer, tpb, &ovf),
        kvplan__mul(per_layer, tpb, &ovf), tpb, window,
        kvplan__mul(
            kvplan__ceil_div(window > 0 ? window : p->max_model_len, tpb, &ovf),
            kvplan__mul(per_layer, tpb, &ovf), &ovf),
        p->num_gpu_blocks,
        /* calculate_max_num_blocks: int(host / bytes a token / block) */
        o->host_cache_size.set ? (int64_t)((double)o->host_cache_size.value /
                                           (double)per_token / (double)tpb)
                               : 0};
    if (c->mambaish) /* the states: a request's on each mamba layer */
        p->groups[p->num_groups++] =
            (kvplan_engine_group){KVPLAN_KV_SPEC_MAMBA,
                                  mamba_rank,
                                  0,
                                  c->mamba_page,
                                  c->mamba_page,
                                  0,
                                  0,
                                  c->mamba_page,
                                  intercept > 0 ? p->max_num_seqs : 0,
                                  0};
    KVPLAN__FAIL_IF(ovf, err, KVPLAN_OVERFLOW, "--max-model-len",
                    "--max-model-len %lld: one request's KV cache "
                    "(%lld bytes per layer per token) overflows 64 bits",
                    (long long)p->max_model_len, (long long)per_layer);
    if (o->separate_draft_kv_cache)
        return draft_split(c, o, kv, intercept, tokens, tpb, p, err);
    return KVPLAN_OK;
}
