/*
 * trtllm_v2.c: TensorRT-LLM's KV cache manager V2 (KVCacheManagerV2,
 * tensorrt_llm/_torch/pyexecutor/kv_cache_manager_v2.py, over the storage
 * of tensorrt_llm/runtime/kv_cache_manager_v2), for the models whose every
 * layer holds all of a sequence (docs/engines.md, "KV cache manager V2").
 *
 * KvCacheCreator gives V2 its budget as max_gpu_total_bytes only
 * (configure_kv_cache_capacity, _util.py); the manager takes it as the GPU
 * tier's quota, less what a given max_tokens allows
 * (ceil(quota_from_max_tokens / max_util_for_resume)), synced over the
 * ranks through tokens. Its layers make one life cycle, so one pool group,
 * whose pools coalesce the buffers of one size (create_storage_config,
 * _storage/_config.py): K and V of every layer in one pool when their pages
 * are equal, MLA's latent (SELFKONLY) alone. The quota is rounded up to
 * grains of 2 MiB << min(4, max(0, int(log2(quota / 1 GiB))))
 * (cache_tier_granularity, _storage_manager.py) and the pool group takes
 * the most slots whose pools fit the grains, each pool rounded up to a
 * grain (_grains_to_slots, _storage/_core.py). A slot is one block of
 * every layer.
 */
#include "engine/engine.h"

#include <math.h>
#include <string.h>

/* The model classes whose get_model_defaults (or preferred manager) pick
 * V2 by default: GPT-OSS (#16942, merged 2026-07-28), MiniMax M2
 * (#17360), Gemma 3 and 4 (#17396), the DSA models (#16060), and by the
 * draft release notes of #18228 DeepSeek, GLM, Kimi K2.5, Qwen and
 * Nemotron. By architectures[0]'s prefix. */
static const struct {
    const char *prefix, *family;
} v2_defaults[] = {
    {"GptOss", "GPT-OSS (#16942)"},
    {"MiniMaxM2", "MiniMax M2 (#17360)"},
    {"Gemma3", "Gemma 3 (#17396)"},
    {"Gemma4", "Gemma 4 (#17396)"},
    {"Deepseek", "DeepSeek (#18228's draft release notes)"},
    {"Glm", "GLM (#18228's draft release notes)"},
    {"Kimi", "Kimi K2.5 (#18228's draft release notes)"},
    {"Qwen", "Qwen (#18228's draft release notes)"},
    {"Nemotron", "Nemotron (#18228's draft release notes)"},
};

const char *kvplan__trtllm_v2_default(const char *architecture, bool dsa)
{
    if (dsa)
        return "the DSA models (#16060)";
    for (size_t i = 0;
         architecture != NULL && i < sizeof v2_defaults / sizeof v2_defaults[0];
         i++)
        if (strncmp(architecture, v2_defaults[i].prefix,
                    strlen(v2_defaults[i].prefix)) == 0)
            return v2_defaults[i].family;
    return NULL;
}

/* cache_tier_granularity for the GPU: 2 MiB << min(4, max(0,
 * int(math.log(quota / (2 MiB * 512), 2)))); Python's two-argument log is
 * log(x) / log(2), and int() truncates toward zero. */
int64_t kvplan__trtllm_v2_grain(int64_t quota)
{
    double x = (double)quota / (double)(INT64_C(2) << 29);
    double l = log(x) / log(2.0);
    int k = l >= 4 ? 4 : l > 0 ? (int)l : 0;
    return (INT64_C(2) << 20) << k;
}

/* The grains `n` slots take: each pool rounded up to a grain
 * (_grains_for_slots). */
int64_t kvplan__trtllm_v2_grains(int64_t n, const int64_t *size, size_t pools,
                                 int64_t g, bool *ovf)
{
    int64_t sum = 0;
    for (size_t i = 0; i < pools; i++)
        sum = kvplan__add(
            sum, kvplan__ceil_div(kvplan__mul(n, size[i], ovf), g, ovf), ovf);
    return sum;
}

/* The most slots whose pools fit `grains` (_grains_to_slots and the
 * bump that follows it in ratio_to_slot_count_list: the largest n with
 * kvplan__trtllm_v2_grains(n) <= grains, which the sum's monotony makes a
 * bisection). */
int64_t kvplan__trtllm_v2_slots(int64_t grains, const int64_t *size,
                                size_t pools, int64_t g, bool *ovf)
{
    int64_t least = size[0];
    for (size_t i = 1; i < pools; i++)
        least = size[i] < least ? size[i] : least;
    int64_t lo = 0, hi = kvplan__mul(grains, g, ovf) / least + 1;
    while (lo + 1 < hi && !*ovf) {
        int64_t mid = lo + (hi - lo) / 2;
        if (kvplan__trtllm_v2_grains(mid, size, pools, g, ovf) <= grains)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* What V2 does not size as kvplan restates it, refused in the caller's
 * terms: the flag that asks for it, else --use-kv-cache-manager-v2. */
#define V2_WHY                                                                 \
    "--use-kv-cache-manager-v2: kvplan does not model %s under "               \
    "TensorRT-LLM's KV cache manager V2 (it sizes V2's pool for models "       \
    "whose every layer holds the whole sequence); plan V1 without the flag"
kvplan_status kvplan__trtllm_v2_check(const kvplan__engine_census *c,
                                      const kvplan_engine_options *o,
                                      kvplan_error *err)
{
    /* TensorRT-LLM reads max_util_for_resume only under V2 with
     * max_tokens: elsewhere it would change nothing, and an answer would
     * hide that */
    KVPLAN__FAIL_IF(o->max_util_for_resume.set &&
                        !(o->use_kv_cache_manager_v2 && o->max_tokens.set),
                    err, KVPLAN_INVALID_ARGUMENT, "--max-util-for-resume",
                    "--max-util-for-resume bounds the quota a --max-tokens "
                    "allows under KV cache manager V2 "
                    "(--use-kv-cache-manager-v2); without both it changes "
                    "nothing");
    if (!o->use_kv_cache_manager_v2)
        return KVPLAN_OK;
    /* sliding layers of their own geometry: Gemma 4's, whose windows
     * TensorRT-LLM sets itself under V2 (_create_kv_cache_manager,
     * _util.py); others' sliding layers hold the whole sequence there, as
     * under V1, unless --max-attention-window says otherwise */
    bool own = c->hybrid_swa && (c->swa_kv_heads != c->kv_heads ||
                                 c->swa_head_dim != c->head_dim ||
                                 c->swa_v_head_dim != c->v_head_dim);
    const char *model = c->mambaish ? "a mamba hybrid's states"
                        : c->dsa    ? "DSA's indexer keys"
                        : own ? "sliding-window layers of their own geometry "
                                "(Gemma 4's, whose windows TensorRT-LLM sets "
                                "itself under V2)"
                        : c->draft_layers > 0 ? "a speculative draft's layers"
                                              : NULL;
    KVPLAN__FAIL_IF(model != NULL, err, KVPLAN_UNSUPPORTED,
                    "--use-kv-cache-manager-v2", V2_WHY, model);
    KVPLAN__FAIL_IF(o->max_attention_window != NULL, err, KVPLAN_UNSUPPORTED,
                    "--max-attention-window", V2_WHY,
                    "--max-attention-window's life cycles");
    KVPLAN__FAIL_IF(o->host_cache_size.set, err, KVPLAN_UNSUPPORTED,
                    "--host-cache-size", V2_WHY, "the host tier");
    KVPLAN__FAIL_IF(o->separate_draft_kv_cache, err, KVPLAN_UNSUPPORTED,
                    "--separate-draft-kv-cache", V2_WHY,
                    "a separate draft KV cache");
    return KVPLAN_OK;
}

/* The quota V2's GPU tier gets (KVCacheManagerV2.__init__): the
 * creator's max_gpu_total_bytes, int(); with max_tokens, at most
 * ceil(int(max_tokens x bytes a token) / max_util_for_resume); over more
 * than one rank, to tokens and back (the ranks' minimum, which one rank's
 * plan is): (quota - ...) / bytes a token past max_num_tokens' context
 * tokens, in float, then int(tokens x bytes a token). */
static int64_t v2_quota(const kvplan_engine_options *o, double kv,
                        int64_t per_token, int64_t mnt, bool *ovf)
{
    int64_t q = (int64_t)kv;
    if (o->max_tokens.set) {
        double mu =
            o->max_util_for_resume.set ? o->max_util_for_resume.value : 0.95;
        double from = (double)kvplan__mul(o->max_tokens.value, per_token, ovf);
        double cap = ceil(from / mu); /* past 2^63 it caps nothing */
        if (cap < (double)q)
            q = (int64_t)cap;
    }
    if (o->tp_size * o->pp_size > 1) {
        double limit = (double)kvplan__mul(mnt, per_token, ovf);
        double tokens =
            (double)q <= limit
                ? (double)q / (double)per_token
                : (double)mnt + ((double)q - limit) / (double)per_token;
        q = (int64_t)(tokens * (double)per_token);
    }
    return q;
}

kvplan_status kvplan__trtllm_v2(const kvplan__engine_census *c,
                                const kvplan_engine_options *o, double kv,
                                int64_t layers, int64_t tpb,
                                kvplan_engine_plan *p, kvplan_error *err)
{
    bool ovf = false;
    /* a layer's buffers, one block each: K and V, or MLA's latent */
    int64_t k = c->mla
                    ? kvplan__mul(c->mla_dim, c->kv_elem, &ovf)
                    : kvplan__mul(kvplan__mul(c->kv_heads, c->head_dim, &ovf),
                                  c->kv_elem, &ovf);
    int64_t v = c->mla
                    ? 0
                    : kvplan__mul(kvplan__mul(c->kv_heads, c->v_head_dim, &ovf),
                                  c->kv_elem, &ovf);
    k = kvplan__mul(k, tpb, &ovf);
    v = kvplan__mul(v, tpb, &ovf);
    /* the pools, largest first: the coalesced buffers of each size */
    int64_t size[2];
    size_t pools = 0;
    if (v == k)
        size[pools++] = kvplan__mul(kvplan__mul(2, k, &ovf), layers, &ovf);
    else {
        size[pools++] = kvplan__mul(k > v ? k : v, layers, &ovf);
        if (v > 0)
            size[pools++] = kvplan__mul(k > v ? v : k, layers, &ovf);
    }
    int64_t slot = 0;
    for (size_t i = 0; i < pools; i++)
        slot = kvplan__add(slot, size[i], &ovf);
    KVPLAN__FAIL_IF(ovf || slot <= 0, err, KVPLAN_OVERFLOW,
                    "--tokens-per-block",
                    "--tokens-per-block %lld: a block of every layer exceeds "
                    "64 bits",
                    (long long)tpb);
    int64_t q =
        v2_quota(o, kv, p->bytes_per_token, p->max_num_batched_tokens, &ovf);
    KVPLAN__FAIL_IF(
        ovf && o->max_tokens.set, err, KVPLAN_OVERFLOW, "--max-tokens",
        "--max-tokens %lld: its bytes (%lld a token) exceed 64 "
        "bits",
        (long long)o->max_tokens.value, (long long)p->bytes_per_token);
    KVPLAN__FAIL_IF(ovf, err, KVPLAN_OVERFLOW, "--max-num-batched-tokens",
                    "--max-num-batched-tokens %lld: its bytes (%lld a token) "
                    "exceed 64 bits",
                    (long long)p->max_num_batched_tokens,
                    (long long)p->bytes_per_token);
    KVPLAN__FAIL_IF(!(q > 0), err, KVPLAN_NOT_ENOUGH_MEMORY,
                    "--max-gpu-total-bytes",
                    "TensorRT-LLM's KV cache manager V2 has no quota for the "
                    "KV cache (%.2f GiB)",
                    kv / 1073741824.0);
    int64_t g = kvplan__trtllm_v2_grain(q);
    /* the level's quota: rounded up to the grain, at least one slot's */
    int64_t grains =
        kvplan__max(kvplan__ceil_div(q, g, &ovf),
                    kvplan__trtllm_v2_grains(1, size, pools, g, &ovf));
    int64_t n = kvplan__trtllm_v2_slots(grains, size, pools, g, &ovf);
    KVPLAN__FAIL_IF(ovf, err, KVPLAN_OVERFLOW, "--max-gpu-total-bytes",
                    "the KV cache manager V2's pool exceeds 64 bits");
    p->kv_cache_manager = 2;
    p->gpu_quota_bytes = q;
    p->quota_grain_bytes = g;
    p->num_gpu_blocks = n;
    p->kv_cache_tokens = kvplan__mul(n, tpb, &ovf);
    p->available_bytes = kvplan__mul(n, slot, &ovf);
    p->max_concurrency = p->max_model_len > 0 ? (double)p->kv_cache_tokens /
                                                    (double)p->max_model_len
                                              : 0;
    int64_t page = slot / layers;
    p->num_groups = 1;
    p->group_size = layers;
    p->groups[0] = (kvplan_engine_group){
        c->mla ? KVPLAN_KV_SPEC_MLA : KVPLAN_KV_SPEC_FULL,
        layers,
        0,
        page,
        page,
        tpb,
        0,
        kvplan__mul(kvplan__ceil_div(p->max_model_len, tpb, &ovf), page, &ovf),
        n,
        0};
    KVPLAN__FAIL_IF(ovf, err, KVPLAN_OVERFLOW, "--max-model-len",
                    "--max-model-len %lld: one request's KV cache overflows "
                    "64 bits",
                    (long long)p->max_model_len);
    return KVPLAN_OK;
}
