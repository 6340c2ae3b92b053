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

/* resolve.c: §4.3, the attention backend and the page size it implies. */
void kvplan__choose_backend(const kvplan_model *m, const kvplan_plan_options *o,
                            const kvplan_gpu *gpu, int64_t *page, char *backend,
                            size_t size);

/* resolve.c: sglang's automatic EAGLE parameters (steps, topk, draft
 * tokens) when --speculative-num-steps is not given. */
void kvplan__auto_spec_params(const kvplan_model *m, kvplan_server_args *s);

/* allocation.c: what stage `sp`'s pools allocate (§5). */
void kvplan__price_allocation(const kvplan_model *m, const kvplan_plan *plan,
                              kvplan_stage_plan *sp, bool *ovf);

/* allocation.c: the req_to_token pool's bytes (§3.4). */
int64_t kvplan__req_to_token_bytes(const kvplan_rank *r, int64_t requests,
                                   int64_t context_len, bool *ovf);

#endif /* KVPLAN_PLAN_H */
