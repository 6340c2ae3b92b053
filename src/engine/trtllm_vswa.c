/*
 * trtllm_vswa.c: TensorRT-LLM's max_attention_window (docs/engines.md,
 * "TensorRT-LLM"), restated from tensorrt_llm/_torch/pyexecutor/
 * resource_manager.py (KVCacheManager: the windows clamped to max_seq_len,
 * a pattern repeated over the layers; adjust_window_sizes_for_vswa) and
 * cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp
 * (BlockManager::calculateWindowSizeToShare and
 * BaseKVCacheManager::calculateMaxNumBlocks). With two or more windows
 * the memory is split by window: window w holding layers of cs_w bytes a
 * token gets the share cs_w x w / sum(cs x w), computed in float as the
 * C++ computes it, and ceil(tokens / tokens_per_block) blocks of its own.
 */
#include "engine/engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

kvplan_status kvplan__trtllm_window_pattern(const char *text,
                                            int64_t max_seq_len,
                                            int64_t *pattern, size_t *n,
                                            kvplan_error *err)
{
    size_t len = 0;
    const char *s = text;
    bool more = *s != '\0';
    while (more) {
        char *end = NULL;
        long long v = strtoll(s, &end, 10);
        KVPLAN__FAIL_IF(end == s || v <= 0 || v > 2147483647 ||
                            (*end != ',' && *end != '\0') ||
                            len >= KVPLAN__TRTLLM_MAX_PATTERN,
                        err, KVPLAN_INVALID_ARGUMENT, "--max-attention-window",
                        "--max-attention-window: '%.60s' is not a list of "
                        "windows such as 128,131072 (each from 1 to "
                        "2147483647, at most %d)",
                        text, KVPLAN__TRTLLM_MAX_PATTERN);
        pattern[len++] = kvplan__min(v, max_seq_len); /* clamped */
        more = *end == ','; /* "128," wants one more */
        s = end + (more ? 1 : 0);
    }
    KVPLAN__FAIL_IF(len == 0, err, KVPLAN_INVALID_ARGUMENT,
                    "--max-attention-window",
                    "--max-attention-window: no window given");
    *n = len;
    return kvplan__ok(err);
}

kvplan_status kvplan__trtllm_windows(const char *text, int64_t max_seq_len,
                                     int64_t layers, kvplan__trtllm_window *w,
                                     size_t *n, kvplan_error *err)
{
    *n = 0;
    int64_t pattern[KVPLAN__TRTLLM_MAX_PATTERN];
    size_t len = 0;
    KVPLAN__TRY(
        kvplan__trtllm_window_pattern(text, max_seq_len, pattern, &len, err));
    /* layer i has pattern[i % len]; the windows ascending, as the C++
     * std::map orders them */
    for (int64_t i = 0; i < layers; i++) {
        int64_t win = pattern[(size_t)i % len];
        size_t k = 0;
        while (k < *n && w[k].window < win)
            k++;
        if (k < *n && w[k].window == win) {
            w[k].layers++;
            continue;
        }
        KVPLAN__FAIL_IF(*n >= KVPLAN_MAX_ENGINE_GROUPS, err, KVPLAN_UNSUPPORTED,
                        "--max-attention-window",
                        "--max-attention-window: more than %d distinct "
                        "windows",
                        KVPLAN_MAX_ENGINE_GROUPS);
        memmove(&w[k + 1], &w[k], (*n - k) * sizeof *w);
        w[k] = (kvplan__trtllm_window){win, 1, 0, 0};
        (*n)++;
    }
    return kvplan__ok(err);
}

/* adjust_window_sizes_for_vswa: when one sequence of every window does
 * not fit, each window holds what the memory left covers, the smallest
 * first, over the layers not yet served. */
static void adjust_windows(kvplan__trtllm_window *w, size_t n,
                           int64_t per_layer, uint64_t pool, int64_t max_tokens)
{
    double need = 0;
    for (size_t i = 0; i < n; i++)
        need += (double)w[i].window * (double)(w[i].layers * per_layer);
    if (need < (double)pool)
        return;
    uint64_t left = pool;
    int64_t remaining = 0, accum = 0, prev = 0;
    for (size_t i = 0; i < n; i++)
        remaining += w[i].layers;
    for (size_t i = 0; i < n; i++) {
        if (left > 0 && remaining > 0) {
            uint64_t cs = (uint64_t)(remaining * per_layer);
            int64_t fit = (int64_t)(left / cs);
            int64_t t = kvplan__min(fit, w[i].window - prev);
            left -= (uint64_t)t * cs;
            accum += t;
            if (accum < w[i].window)
                left = 0;
            if (max_tokens > 0) {
                accum = kvplan__min(accum, max_tokens);
                if (accum == max_tokens)
                    left = 0;
            }
        }
        remaining -= w[i].layers;
        prev = w[i].window;
        w[i].window = accum;
    }
}

/* Windows the adjustment made equal share one pool, as the C++ map's key */
static size_t merge_equal(kvplan__trtllm_window *w, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m > 0 && w[m - 1].window == w[i].window)
            w[m - 1].layers += w[i].layers;
        else
            w[m++] = w[i];
    }
    return m;
}

kvplan_status kvplan__trtllm_vswa(const kvplan_engine_options *o,
                                  kvplan__trtllm_window *w, size_t n,
                                  int64_t per_layer, double kv, int64_t tpb,
                                  kvplan_engine_plan *p, kvplan_error *err)
{
    uint64_t pool = (uint64_t)kv;
    int64_t max_tokens = o->max_tokens.set ? o->max_tokens.value : 0;
    adjust_windows(w, n, per_layer, pool, max_tokens);
    n = merge_equal(w, n);
    /* calculateWindowSizeToShare, in the C++'s float and double */
    int64_t total_cs = 0;
    for (size_t i = 0; i < n; i++)
        total_cs += w[i].layers * per_layer;
    float contribution[KVPLAN_MAX_ENGINE_GROUPS];
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        contribution[i] = (float)(w[i].layers * per_layer) / (float)total_cs;
        contribution[i] *= (float)w[i].window;
        sum += contribution[i];
    }
    float check = 0.0f;
    bool ovf = false, cut = false;
    p->available_bytes = 0;
    p->max_concurrency = -1;
    for (size_t i = 0; i < n; i++) {
        float share = (float)(contribution[i] / sum);
        check += share;
        int64_t cs = w[i].layers * per_layer;
        /* allottedPrimaryMemBytes * windowSizeShare is a float product */
        uint64_t t = (uint64_t)((double)((float)pool * share) / (double)cs);
        if (max_tokens > 0 && (uint64_t)max_tokens < t)
            t = (uint64_t)max_tokens;
        w[i].blocks = kvplan__ceil_div((int64_t)t, tpb, &ovf);
        /* the secondary pool: a float quotient, truncated to SizeType32,
         * floor-divided into blocks */
        float host = o->host_cache_size.set
                         ? (float)o->host_cache_size.value * share / (float)cs
                         : 0.0f;
        w[i].host_blocks =
            host < 2147483647.0f ? kvplan__max(0, (int64_t)host / tpb) : 0;
        /* _validate_and_adjust_attention_windows: a window above its
         * blocks' tokens is cut to them, and max_seq_len with it */
        if (w[i].window > w[i].blocks * tpb) {
            w[i].window = w[i].blocks * tpb;
            cut = true;
        }
        p->available_bytes = kvplan__add(
            p->available_bytes,
            kvplan__mul(kvplan__mul(w[i].blocks, tpb, &ovf), cs, &ovf), &ovf);
        int64_t need = kvplan__ceil_div(
            kvplan__min(p->max_model_len, w[i].window), tpb, &ovf);
        double c = need > 0 ? (double)w[i].blocks / (double)need : 0;
        if (p->max_concurrency < 0 || c < p->max_concurrency)
            p->max_concurrency = c;
    }
    KVPLAN__FAIL_IF(check != 1.0f, err, KVPLAN_UNSUPPORTED,
                    "--max-attention-window",
                    "TensorRT-LLM stops here: the windows' shares sum to "
                    "%.9g, not 1.0f, and calculateWindowSizeToShare checks "
                    "'total == 1.0f'",
                    (double)check);
    KVPLAN__FAIL_IF(ovf, err, KVPLAN_OVERFLOW, "--max-attention-window",
                    "the windows' KV bytes exceed 64 bits");
    if (cut) /* max(adjusted windows) */
        p->max_model_len = w[n - 1].window;
    /* the largest window's pool holds a request's whole length */
    p->num_gpu_blocks = w[n - 1].blocks;
    p->kv_cache_tokens = p->num_gpu_blocks * tpb;
    p->num_groups = n;
    p->group_size = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t page = per_layer * tpb;
        bool full = w[i].window >= p->max_model_len;
        p->groups[i] = (kvplan_engine_group){
            full ? KVPLAN_KV_SPEC_FULL : KVPLAN_KV_SPEC_SLIDING_WINDOW,
            w[i].layers,
            0,
            page,
            page,
            tpb,
            full ? 0 : w[i].window,
            kvplan__ceil_div(w[i].window, tpb, &ovf) * page,
            w[i].blocks,
            w[i].host_blocks};
        p->group_size += w[i].layers;
    }
    return kvplan__ok(err);
}
