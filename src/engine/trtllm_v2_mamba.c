/*
 * trtllm_v2_mamba.c: a hybrid Mamba model (Nemotron-H, Qwen3-Next) under
 * TensorRT-LLM's KV cache manager V2, MambaHybridCacheManagerV2
 * (tensorrt_llm/_torch/pyexecutor/kv_cache/mamba_cache_manager/
 * mamba_cache_manager_v2.py and common.py, read at 2829508, late 2026;
 * docs/engines.md, "KV cache manager V2"). Its mamba layers make one SSM
 * life cycle whose slot holds every local mamba layer's ssm and conv
 * state (SsmLayerConfig); a request holds one slot whatever its length.
 * Beside V2's attention life cycles:
 *
 * - the typical step (no pool_ratio given): max_batch_size x pp_size
 *   requests of avg_seq_len tokens, else of max_seq_len // 2 (TensorRT-LLM
 *   warns), and a request of none for each CUDA-graph padding slot, one
 *   without speculative decoding (_typical_request_descs,
 *   _build_cache_config, _get_num_cuda_graph_padding_dummy_slots);
 * - at least that many SSM slots (its min-slots constraint);
 * - the quota from tokens: the attention layers' (V2's own), a slot of
 *   states for each live, dummy and periodic-snapshot state, and, once a
 *   snapshot is taken, one attention block a request
 *   (_get_quota_from_max_tokens); the tokens from a quota by bisection
 *   over the integers (_get_max_tokens_from_quota);
 * - a quota that holds the live states and one attention block, else
 *   TensorRT-LLM refuses to start (_minimum_live_gpu_quota).
 *
 * Periodic snapshots are off by default there
 * (mamba_state_config.periodic_snapshot_interval, which the older
 * mamba_state_cache_interval, --mamba-state-cache-interval, sets) and
 * need block reuse; an interval past max_seq_len takes none
 * (_mamba_regular_snapshot_interval).
 */
#include "engine/engine.h"

#include <math.h>

kvplan_status kvplan__trtllm_v2_mamba_check(const kvplan__engine_census *c,
                                            const kvplan_engine_options *o,
                                            kvplan_error *err)
{
    if (!c->mambaish)
        return KVPLAN_OK;
    KVPLAN__FAIL_IF(c->draft_layers > 0 ||
                        o->speculative_algorithm != KVPLAN_SPEC_NONE,
                    err, KVPLAN_UNSUPPORTED, "--speculative-algorithm",
                    "--speculative-algorithm: TensorRT-LLM's KV cache "
                    "manager V2 for a hybrid Mamba refuses it "
                    "(\"Speculative decoding requires a model-specific Mamba "
                    "cache manager\", MambaHybridCacheManagerV2); kvplan "
                    "models no model's own");
    /* MambaHybridCacheManagerV2 asserts both; a rank of no state would
     * also leave the SSM pool empty */
    KVPLAN__FAIL_IF(!c->mamba_divides || c->mamba_ssm <= 0 ||
                        c->mamba_conv <= 0,
                    err, KVPLAN_INVALID_ARGUMENT, "--tp-size",
                    "--tp-size %lld: TensorRT-LLM's KV cache manager V2 "
                    "refuses it (\"mamba_num_heads must be divisible by "
                    "tp_size\", \"conv_dim must be divisible by tp_size\")",
                    (long long)o->tp_size);
    KVPLAN__FAIL_IF(o->pp_size > 1, err, KVPLAN_UNSUPPORTED, "--pp-size",
                    "--pp-size %lld: kvplan does not model the stages' share "
                    "of a hybrid Mamba's layers under TensorRT-LLM's KV cache "
                    "manager V2 (plan one stage with --pp-size 1)",
                    (long long)o->pp_size);
    KVPLAN__FAIL_IF(o->max_attention_window != NULL, err, KVPLAN_UNSUPPORTED,
                    "--max-attention-window",
                    "--max-attention-window beside a hybrid Mamba's states "
                    "under TensorRT-LLM's KV cache manager V2 is not "
                    "modelled by kvplan");
    return KVPLAN_OK;
}

void kvplan__trtllm_v2_mamba_of(const kvplan__engine_census *c,
                                const kvplan_engine_options *o, int64_t mbs,
                                int64_t len, int64_t tpb, const int64_t cost[3],
                                kvplan__trtllm_v2_mamba *m, bool *ovf)
{
    m->lineages = kvplan__mul(mbs, o->pp_size, ovf);
    m->dummies = 1;
    m->state = kvplan__mul(c->mamba_layers, c->mamba_page, ovf);
    int64_t every = o->mamba_state_cache_interval.set
                        ? o->mamba_state_cache_interval.value
                        : 0;
    m->interval =
        !o->no_prefix_caching && every > 0 && every <= len ? every : 0;
    m->block = kvplan__mul(kvplan__add(cost[0], cost[1], ovf), tpb, ovf);
    m->capacity =
        o->avg_seq_len.set ? o->avg_seq_len.value : kvplan__max(1, len / 2);
}

int64_t
kvplan__trtllm_v2_mamba_quota_of_tokens(const kvplan__trtllm_v2_mamba *m,
                                        const int64_t cost[3], int64_t tokens,
                                        int64_t mnt, int64_t mbs, bool *ovf)
{
    int64_t q = kvplan__trtllm_v2_quota_of_tokens(cost, tokens, mnt, mbs, ovf);
    int64_t snapshots =
        tokens > 0 && m->interval > 0 ? tokens / m->interval : 0;
    int64_t slots =
        kvplan__add(kvplan__add(m->lineages, m->dummies, ovf), snapshots, ovf);
    q = kvplan__add(q, kvplan__mul(slots, m->state, ovf), ovf);
    if (snapshots > 0)
        q = kvplan__add(q, kvplan__mul(m->lineages, m->block, ovf), ovf);
    return q;
}

/* _get_max_tokens_from_quota: 0 below the quota of none, else the most
 * tokens whose quota fits, found by doubling then bisection; -1 where it
 * passes 2^62 (Python's inf: the quota stays). */
static int64_t tokens_of_quota(const kvplan__trtllm_v2_mamba *m,
                               const int64_t cost[3], int64_t q, int64_t mnt,
                               int64_t mbs, bool *ovf)
{
    if (kvplan__trtllm_v2_mamba_quota_of_tokens(m, cost, 0, mnt, mbs, ovf) > q)
        return 0;
    int64_t low = 0, high = 1;
    while (!*ovf && kvplan__trtllm_v2_mamba_quota_of_tokens(m, cost, high, mnt,
                                                            mbs, ovf) <= q) {
        low = high;
        high *= 2;
        if (high >= INT64_C(1) << 62)
            return -1;
    }
    while (low + 1 < high && !*ovf) {
        int64_t mid = low + (high - low) / 2;
        if (kvplan__trtllm_v2_mamba_quota_of_tokens(m, cost, mid, mnt, mbs,
                                                    ovf) <= q)
            low = mid;
        else
            high = mid;
    }
    return low;
}

kvplan_status kvplan__trtllm_v2_mamba_quota(const kvplan_engine_options *o,
                                            double kv, const int64_t cost[3],
                                            const kvplan__trtllm_v2_mamba *m,
                                            int64_t mnt, int64_t mbs,
                                            bool clamp, int64_t *quota,
                                            kvplan_error *err)
{
    bool ovf = false;
    int64_t q = (int64_t)kv;
    if (o->max_tokens.set)
        q = kvplan__trtllm_v2_cap(
            o,
            kvplan__trtllm_v2_mamba_quota_of_tokens(
                m, cost, o->max_tokens.value, mnt, mbs, &ovf),
            q);
    int64_t none =
        kvplan__trtllm_v2_mamba_quota_of_tokens(m, cost, 0, mnt, mbs, &ovf);
    if (o->tp_size * o->pp_size > 1 && clamp) {
        /* the tokens of int(quota x max_util_for_resume), back over it,
         * never above the quota (KVCacheManagerV2.__init__, 1fe0b08) */
        double mu = kvplan__trtllm_v2_mu(o);
        int64_t t =
            tokens_of_quota(m, cost, (int64_t)((double)q * mu), mnt, mbs, &ovf);
        double synced =
            t < 0 ? (double)q /* inf tokens: unchanged */
                  : ceil((double)kvplan__trtllm_v2_mamba_quota_of_tokens(
                             m, cost, t, mnt, mbs, &ovf) /
                         mu);
        if (synced < (double)q)
            q = (int64_t)synced;
    } else if (o->tp_size * o->pp_size > 1) {
        /* below the quota of no tokens the sync gives 0 tokens, and the
         * quota becomes that of none: more than the budget */
        KVPLAN__FAIL_IF(
            q < none, err, KVPLAN_NOT_ENOUGH_MEMORY, "--max-num-seqs",
            "--max-num-seqs %lld: over %lld ranks TensorRT-LLM's KV cache "
            "manager V2 turns its quota (%.2f GiB) into tokens and back, "
            "and below the states of max_batch_size requests (and a "
            "dummy's) it becomes those, %.2f GiB, more than the budget; "
            "lower --max-num-seqs",
            (long long)mbs, (long long)(o->tp_size * o->pp_size),
            (double)q / 1073741824.0, (double)none / 1073741824.0);
        int64_t t = tokens_of_quota(m, cost, q, mnt, mbs, &ovf);
        if (t >= 0)
            q = kvplan__trtllm_v2_mamba_quota_of_tokens(m, cost, t, mnt, mbs,
                                                        &ovf);
    }
    int64_t live = kvplan__add(
        kvplan__mul(kvplan__add(m->lineages, m->dummies, &ovf), m->state, &ovf),
        m->block, &ovf);
    int64_t need = kvplan__max(none, live);
    KVPLAN__FAIL_IF(ovf, err, KVPLAN_OVERFLOW, "--max-num-seqs",
                    "--max-num-seqs %lld: the mamba states' bytes exceed 64 "
                    "bits",
                    (long long)mbs);
    KVPLAN__FAIL_IF(need > q, err, KVPLAN_NOT_ENOUGH_MEMORY, "--max-num-seqs",
                    "--max-num-seqs %lld: TensorRT-LLM refuses to start (\"The "
                    "V2 Mamba GPU cache quota is too small for live recurrent "
                    "states and attention pages: got %lld bytes, need at "
                    "least %lld bytes.\"); lower --max-num-seqs or give the "
                    "cache more memory",
                    (long long)mbs, (long long)q, (long long)need);
    *quota = q;
    return kvplan__ok(err);
}
