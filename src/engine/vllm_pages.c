/*
 * vllm_pages.c: vLLM's page bytes per layer (vllm/v1/kv_cache_interface.py:
 * attention, MLA and fp8_ds_mla, DeepSeek V4's compressed rows) and the
 * group size of its KV-cache groups (kv_cache_utils.py,
 * _get_kv_cache_groups_uniform_page_size), and the bisection of the longest
 * request that fits (estimate_max_model_len); vllm.c and vllm_dsv4.c build
 * the plan on them.
 */
#include "engine/vllm_spec.h"

int64_t kvplan__vllm_attention_page(int64_t block, int64_t heads,
                                    int64_t head_dim, int64_t v_head_dim,
                                    int64_t elem, bool *ovf)
{
    return kvplan__mul(kvplan__mul(kvplan__mul(block, heads, ovf),
                                   kvplan__add(head_dim, v_head_dim, ovf), ovf),
                       elem, ovf);
}

int64_t kvplan__vllm_mla_page(int64_t block, int64_t mla_dim, int64_t elem,
                              int64_t ds_mla_row, bool *ovf)
{
    if (ds_mla_row > 0) /* fp8 latent, its fp32 scales, bf16 rope */
        return kvplan__mul(block, ds_mla_row, ovf);
    return kvplan__mul(kvplan__mul(block, mla_dim, ovf), elem, ovf);
}

int64_t kvplan__vllm_dsv4_page(int64_t block, int64_t compress_ratio,
                               int64_t row, int64_t alignment, bool *ovf)
{
    int64_t page = kvplan__mul(block / compress_ratio, row, ovf);
    if (alignment > 0)
        page =
            kvplan__mul(kvplan__ceil_div(page, alignment, ovf), alignment, ovf);
    return page;
}

int64_t kvplan__vllm_group_size(const int64_t *counts, size_t n,
                                int64_t *padding)
{
    int64_t least = INT64_MAX, most = 0;
    for (size_t i = 0; i < n; i++) {
        least = counts[i] < least ? counts[i] : least;
        most = counts[i] > most ? counts[i] : most;
    }
    /* the "1" of an n:1 pattern, or the most when the counts are close
     * (gpt-oss + EAGLE: 12 sliding + 13 full -> 13 + 13, not 12 + 24) */
    int64_t g = (double)most < (double)least * 1.5 ? most : least;
    *padding = 0;
    for (size_t i = 0; i < n; i++)
        if (counts[i] % g != 0)
            *padding += g - counts[i] % g;
    return g;
}

int64_t kvplan__vllm_longest(int64_t most, int64_t avail,
                             int64_t (*need)(const void *, int64_t, bool *),
                             const void *ctx, bool *ovf)
{
    int64_t lo = 1, hi = most, best = 0;
    while (lo <= hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (need(ctx, mid, ovf) <= avail) {
            best = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return best;
}
