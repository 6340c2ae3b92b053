/*
 * plan.h: the plan room's internals; not installed.
 *
 * model + budget + core -> per-rank plans: resolve.c turns the requested
 * server arguments into resolved ones, plan.c runs the pipeline
 * (kvplan_plan_compute), allocation.c prices what the pools really take.
 * The plan is the only room that uses the model, the budget and the core
 * together.
 *
 * Sections marked § are those of docs/sglang-rules.md.
 */
#ifndef KVPLAN_PLAN_H
#define KVPLAN_PLAN_H

#include "budget/budget.h"
#include "core/core.h"
#include "model/model.h"

/* resolve.c: requested -> resolved. Writes out->resolved (the server args
 * after sglang's defaults and hooks: prefill chunk, requests, speculative
 * parameters, radix cache, page size) and the plan's chunked_prefill_size,
 * max_prefill_tokens, cuda_graph_max_bs, attention_backend and page_size.
 * The dtype flags are resolved after the first rank (resolve_dtypes). */
kvplan_status kvplan__resolve_args(const kvplan_model *m,
                                   const kvplan_plan_options *o,
                                   const kvplan_gpu *gpu, bool gpu_known,
                                   kvplan_plan *out, kvplan_error *err);
void kvplan__resolve_dtypes(kvplan_plan *out, kvplan_dtype model_dtype,
                            kvplan_dtype kv_dtype);

/* options.c: the checks of the fraction and the GPU alone (for options
 * that differ from valid ones only there). */
kvplan_status kvplan__check_budget_options(const kvplan_plan_options *o,
                                           kvplan_error *err);

/* allocation.c: what stage `sp`'s pools allocate (§5). */
void kvplan__price_allocation(const kvplan_model *m, const kvplan_plan *plan,
                              kvplan_stage_plan *sp, bool *ovf);

/* allocation.c: the req_to_token pool's request slots and bytes (§3.4). */
int64_t kvplan__request_slots(const kvplan_rank *r, int64_t requests,
                              bool *ovf);
int64_t kvplan__req_to_token_bytes(const kvplan_rank *r, int64_t requests,
                                   int64_t context_len, bool *ovf);

/* capacity.c: the plan's capacity (docs/capacity.md), from its binding
 * stage, once max_running_requests is known; the mamba slots, the slots a
 * request takes and one slot's bytes. */
void kvplan__plan_capacity(kvplan_plan *plan, int64_t max_mamba,
                           int64_t mamba_ratio, double mamba_per, bool *ovf);

/* fleet.c: the GPUs the plan occupies and what they hold together, once
 * its capacity is known. */
void kvplan__plan_fleet(kvplan_plan *plan, bool *ovf);

/* profile.c: the sglang version's rules (docs/versions.md): into the plan
 * (start), into every stage's rank (ranks), and the start-up errors later
 * sglang raises after sizing (refuse). */
void kvplan__profile_start(kvplan_plan *out, const kvplan_plan_options *o,
                           const kvplan_gpu *gpu);
void kvplan__profile_ranks(kvplan_plan *out, const kvplan_plan_options *o);
kvplan_status kvplan__profile_refuse(const kvplan_plan *out, kvplan_error *err);

/* check.c: the heads and page size sglang refuses before sizing, and after
 * the plan the reserve it could not start in (an error) and its warnings. */
kvplan_status kvplan__plan_refuse(const kvplan_model *m, const kvplan_gpu *gpu,
                                  const kvplan_plan *out, kvplan_error *err);
kvplan_status kvplan__plan_check(const kvplan_model *m,
                                 const kvplan_plan_options *o,
                                 kvplan_dtype model_dtype, kvplan_plan *out,
                                 kvplan_error *err);

/* ---- plan.c: the pipeline, which update.c enters midway --------------- */

/* What the stages hand each other beyond the plan itself. */
typedef struct kvplan__pipeline {
    const kvplan_model *m;
    const kvplan_plan_options *o;
    const kvplan_gpu *gpu; /* o's, or the default; never NULL */
    kvplan_dtype model_dtype;
    double weights, draft;           /* whole model, bytes */
    double rank_weights, rank_draft; /* on the rank with the most */
    int64_t available;               /* per rank */
    int64_t max_mamba;               /* mamba slots; 0 unless mambaish */
    double mamba_per;                /* one request's mamba state, bytes */
    int64_t mamba_ratio;
    int64_t attn_dp;
    bool context_known; /* out's context terms are this GPU's already */
    bool ovf;           /* a pool's or a weight's bytes past 64 bits */
    bool ovf_requests;  /* req_to_token's */
} kvplan__pipeline;

/* The pipeline's start for `o`: the GPU and the model dtype. */
kvplan__pipeline kvplan__pipeline_start(const kvplan_model *m,
                                        const kvplan_plan_options *o);
/* The header and the stages used of `out`, zeroed. */
void kvplan__plan_reset(kvplan_plan *out, size_t stages);
/* A given fraction over the rule's in `b`; false when none is given. */
bool kvplan__fraction_given(const kvplan_plan_options *o, uint64_t rules,
                            kvplan_budget *b);
/* §4.1: the fraction, given or by sglang's rule. */
kvplan_status kvplan__pipeline_fraction(kvplan__pipeline *p, kvplan_plan *out,
                                        kvplan_error *err);
/* The budget and the pools: available bytes, the profiling path (each
 * stage's configurator built first when `init`), the constraints,
 * max_running_requests, the capacity, the checks. */
kvplan_status kvplan__pipeline_back(kvplan__pipeline *p, kvplan_plan *out,
                                    bool init, kvplan_error *err);

/* cache.c: what a plan's options are for its front (the front depends
 * on nothing else of them): the options with the fraction's value and
 * every pointer zeroed, and the strings' text. */
#define KVPLAN__FRONT_TEXT 512
typedef struct kvplan__front_key {
    kvplan_plan_options o;
    size_t text_len;
    char text[KVPLAN__FRONT_TEXT];
} kvplan__front_key;
/* The key of `o`; false when its plans' fronts are not kept (a draft
 * model, more than 2 stages, strings past the key's room). */
bool kvplan__front_key_of(const kvplan_plan_options *o, kvplan__front_key *k);
/* The front kept for key `k` restored into `out` and `p` (the state
 * after the front: the back still to run; `o` the call's options, whose
 * strings the plan points to): 2 with the stages' configurators built, 1
 * without; 0 when none is kept. */
int kvplan__front_restore(const kvplan_model *m, const kvplan__front_key *k,
                          const kvplan_plan_options *o, kvplan__pipeline *p,
                          kvplan_plan *out);
/* The front just planned kept for `k` in m's cache. */
void kvplan__front_keep(const kvplan_model *m, const kvplan__front_key *k,
                        const kvplan__pipeline *p, const kvplan_plan *out);
/* The stages' configurators a back built, kept with k's front. */
void kvplan__front_configured(const kvplan_model *m, const kvplan__front_key *k,
                              const kvplan_plan *out);

/* kvplan__weights_estimate of a request on m's own shape, kept in m's
 * cache (the same answer, tensors included when out->tensors is set). */
void kvplan__weights_estimate_kept(const kvplan_model *m,
                                   const kvplan__weights_request *rq,
                                   kvplan__weights_estimate_out *out);

/* search.c: what a limit that binds is, and the flags that move it
 * ("the request cap: --max-running-requests moves it"). */
const char *kvplan__limit_remedy(kvplan_limit limit);

#endif /* KVPLAN_PLAN_H */
