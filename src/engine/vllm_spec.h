/*
 * vllm_spec.h: vLLM's KV-cache spec as vllm.c builds it, shared with
 * vllm_pp.c (pipeline parallelism's stages); not installed.
 */
#ifndef KVPLAN_VLLM_SPEC_H
#define KVPLAN_VLLM_SPEC_H

#include "engine/engine.h"

/* One spec type of the model: its layers and one layer's page. */
typedef struct kvplan__vllm_spec {
    kvplan_engine_spec kind;
    int64_t layers, page, real_page, block, window;
    bool draft; /* an EAGLE head's own: past the model's layers */
    /* mamba: the state blocks a request holds (mamba_cache_mode none 1,
     * align 2); 0: one a block of its tokens (all) */
    int64_t state_blocks;
} kvplan__vllm_spec;

/* What one request of `len` tokens takes of one layer of spec `s`
 * (max_memory_usage_bytes). */
int64_t kvplan__vllm_usage(const kvplan__vllm_spec *s, int64_t len,
                           int64_t in_flight, bool *ovf);

/* The longest request, up to `most` tokens, whose bytes `need(ctx, len)`
 * fit in `avail` (estimate_max_model_len's bisection); 0 when not one
 * token does. */
int64_t kvplan__vllm_longest(int64_t most, int64_t avail,
                             int64_t (*need)(const void *, int64_t, bool *),
                             const void *ctx, bool *ovf);
/* The bytes one request of `len` is checked against: the available less
 * the null block's `block_bytes` from 0.29 (not under --max-model-len
 * auto); `len` 0 (auto found none) refused. */
kvplan_status kvplan__vllm_check_memory(const kvplan_engine_plan *p,
                                        int64_t len, bool autofit,
                                        int64_t block_bytes, int64_t *avail,
                                        kvplan_error *err);
/* vLLM's refusal of a max_model_len whose one request (`need` bytes) does
 * not fit `avail`, with the longest that would (`best`). */
kvplan_status kvplan__vllm_refuse_length(int64_t len, int64_t need,
                                         int64_t avail, int64_t best,
                                         kvplan_error *err);

/* ---- vllm_pp.c ---------------------------------------------------------- */

/* The stage one request needs the most of (check_enough_kv_cache_memory
 * on each worker): its layers of each spec into t[]. */
void kvplan__vllm_pp_binding_stage(const kvplan__engine_census *c,
                                   const kvplan__vllm_spec *s, size_t n,
                                   int64_t pp, int64_t len, int64_t mnbt,
                                   kvplan__vllm_spec *t, bool *ovf);
/* The fewest blocks a stage's memory holds (g: the group size; 0 for one
 * group). */
int64_t kvplan__vllm_pp_blocks(const kvplan__engine_census *c,
                               const kvplan__vllm_spec *s, size_t n, int64_t pp,
                               int64_t g, int64_t avail, bool *ovf);

/* ---- vllm_dsv4.c -------------------------------------------------------- */

/* The MTP layers a DeepSeek-V4 plan's draft adds (its own next-n layers
 * under EAGLE with no draft model; 0 without a draft). */
int64_t kvplan__vllm_dsv4_mtp(const kvplan_model *m,
                              const kvplan_engine_options *o);
/* DeepSeek-V4's cache under vLLM, once the budget is in `p`
 * (available_bytes, max_model_len, max_in_flight_tokens, vllm_rules):
 * `autofit` for --max-model-len auto, up to `context` tokens. */
kvplan_status kvplan__vllm_dsv4_plan(const kvplan_model *m,
                                     const kvplan_engine_options *o,
                                     int64_t mtp, bool autofit, int64_t context,
                                     kvplan_engine_plan *p, kvplan_error *err);

#endif /* KVPLAN_VLLM_SPEC_H */
