/*
 * fleet.c: the GPUs a plan occupies (kvplan_fleet), the one rule the
 * reports, the sweep and the comparison read: tp x pp ranks per server,
 * dp_size servers without DP attention (one with it), and the requests of
 * context_len the dp workers hold at once, in all and per GPU.
 */
#include "plan/plan.h"

void kvplan__plan_fleet(kvplan_plan *plan, bool *ovf)
{
    const kvplan_server_args *s = &plan->resolved;
    kvplan_fleet *f = &plan->fleet;
    int64_t dp = s->dp_size > 0 ? s->dp_size : 1;
    f->gpus_per_replica = kvplan__mul(s->tp_size, s->pp_size, ovf);
    f->replicas = s->enable_dp_attention ? 1 : dp;
    f->gpus = kvplan__mul(f->gpus_per_replica, f->replicas, ovf);
    f->dp_workers = dp;
    f->concurrency_at_context_len =
        kvplan__mul(plan->capacity.max_concurrency_at_context_len, dp, ovf);
    f->concurrency_per_gpu =
        f->gpus > 0 ? (double)f->concurrency_at_context_len / (double)f->gpus
                    : 0;
}
