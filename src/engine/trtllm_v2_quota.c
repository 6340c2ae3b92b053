/*
 * trtllm_v2_quota.c: the GPU tier's quota of TensorRT-LLM's KV cache
 * manager V2 (KVCacheManagerV2.__init__, kv_cache_manager_v2.py): the
 * creator's max_gpu_total_bytes, capped by what --max-tokens allows and,
 * over more than one rank, turned into tokens and back
 * (_get_max_tokens_from_quota, _get_quota_from_max_tokens), each in
 * Python's ints and floats. DeepSeek-V4's manager adds a fixed padding to
 * both (_get_extra_quota_padding, trtllm_dsv4.c).
 */
#include "engine/engine.h"

#include <math.h>

/* _get_quota_from_max_tokens for `tokens` given as an integer: the full
 * layers' bytes for all of them, the windowed layers' a token for those
 * in context (at most max_num_tokens), their windows for max_batch_size
 * requests. */
int64_t kvplan__trtllm_v2_quota_of_tokens(const int64_t cost[3], int64_t tokens,
                                          int64_t mnt, int64_t mbs, bool *ovf)
{
    int64_t q = kvplan__mul(tokens, cost[0], ovf);
    q = kvplan__add(q, kvplan__mul(mbs, cost[2], ovf), ovf);
    return kvplan__add(q, kvplan__mul(kvplan__min(tokens, mnt), cost[1], ovf),
                       ovf);
}

/* _get_max_tokens_from_quota of `q` in Python's floats (the tokens a
 * float, max_num_tokens and the per-request bytes ints): 0 below the
 * batch's windows, false where it is inf (every layer windowed). */
static bool tokens_of(const int64_t cost[3], int64_t pad, int64_t q,
                      int64_t mnt, int64_t mbs, double *t, bool *ovf)
{
    int64_t batch = kvplan__add(kvplan__mul(mbs, cost[2], ovf), pad, ovf);
    int64_t context = kvplan__add(cost[0], cost[1], ovf);
    int64_t limit = kvplan__add(kvplan__mul(mnt, context, ovf), batch, ovf);
    *t = 0;
    if (q < batch)
        return true;
    if (q <= limit) {
        if (context <= 0)
            return false;
        *t = (double)(q - batch) / (double)context;
        return true;
    }
    if (cost[0] <= 0)
        return false;
    *t = (double)mnt + (double)(q - limit) / (double)cost[0];
    return true;
}

/* _get_quota_from_max_tokens of `t` tokens, a float: int() of the sum */
static int64_t quota_of(const int64_t cost[3], int64_t pad, double t,
                        int64_t mnt, int64_t mbs, bool *ovf)
{
    /* min(tokens, max_num_tokens): the float unless the int is smaller */
    bool mnt_less = (double)mnt < t;
    double gen = mnt_less ? t - (double)mnt : 0.0;
    double quota = t * (double)cost[0] + gen * 0.0 +
                   (double)kvplan__mul(mbs, cost[2], ovf);
    double extra =
        mnt_less ? (double)kvplan__mul(mnt, cost[1], ovf) : t * (double)cost[1];
    return (int64_t)(quota + extra + (double)pad);
}

/* Over more than one rank, the quota to tokens and back (the ranks'
 * minimum, which one rank's plan is). Before the clamp, the whole quota's
 * tokens, and below the batch's windows the quota becomes them; with it
 * (kv_cache_manager_v2.py at 1fe0b08: "allreduce(MIN) must never increase
 * the local quota", nvbugs/6418103), the tokens of int(quota x
 * max_util_for_resume), back as ceil(quota / max_util_for_resume), at most
 * the quota. */
static int64_t quota_synced(const int64_t cost[3], int64_t pad, int64_t q,
                            int64_t mnt, int64_t mbs, double mu, bool clamp,
                            bool *ovf)
{
    double t;
    if (!clamp)
        return tokens_of(cost, pad, q, mnt, mbs, &t, ovf)
                   ? quota_of(cost, pad, t, mnt, mbs, ovf)
                   : q;
    int64_t resumable = (int64_t)((double)q * mu);
    if (!tokens_of(cost, pad, resumable, mnt, mbs, &t, ovf))
        return q;
    double synced = ceil((double)quota_of(cost, pad, t, mnt, mbs, ovf) / mu);
    return synced < (double)q ? (int64_t)synced : q;
}

double kvplan__trtllm_v2_mu(const kvplan_engine_options *o)
{
    return o->max_util_for_resume.set ? o->max_util_for_resume.value : 0.95;
}

int64_t kvplan__trtllm_v2_cap(const kvplan_engine_options *o, int64_t from,
                              int64_t q)
{
    double mu = kvplan__trtllm_v2_mu(o);
    double cap = ceil((double)from / mu); /* past 2^63 it caps nothing */
    return cap < (double)q ? (int64_t)cap : q;
}

/* The quota V2's GPU tier gets (KVCacheManagerV2.__init__): the
 * creator's max_gpu_total_bytes, int(); with max_tokens, at most
 * ceil(_get_quota_from_max_tokens(max_tokens) / max_util_for_resume);
 * over more than one rank, through tokens (the ranks' minimum, which one
 * rank's plan is). */
int64_t kvplan__trtllm_v2_quota(const kvplan_engine_options *o, double kv,
                                const int64_t cost[3], int64_t pad, int64_t mnt,
                                int64_t mbs, bool clamp, int64_t *short_of,
                                bool *ovf)
{
    double mu = kvplan__trtllm_v2_mu(o);
    *short_of = 0;
    int64_t q = (int64_t)kv;
    if (o->max_tokens.set)
        q = kvplan__trtllm_v2_cap(
            o,
            kvplan__add(kvplan__trtllm_v2_quota_of_tokens(
                            cost, o->max_tokens.value, mnt, mbs, ovf),
                        pad, ovf),
            q);
    if (o->tp_size * o->pp_size > 1) {
        if (!clamp && q < kvplan__add(kvplan__mul(mbs, cost[2], ovf), pad, ovf))
            *short_of = q; /* raised to the batch's windows */
        q = quota_synced(cost, pad, q, mnt, mbs, mu, clamp, ovf);
    }
    return q;
}
