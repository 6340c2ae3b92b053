/*
 * sweep.c: kvplan sweep's rows (kvplan_sweep): one plan per combination of
 * the values given to the options a sweep varies, every other option held,
 * each row the plan kvplan_plan_compute gives for its options, reusing the
 * row before's ranks where only the GPU and the fraction change; and their
 * ranking, best first, ties in the product's order.
 */
#include "plan/plan.h"

#include <string.h>

static const char *const key_names[] = {
    [KVPLAN_SWEEP_CONCURRENCY_PER_GPU] = "concurrency-per-gpu",
    [KVPLAN_SWEEP_CONCURRENCY] = "concurrency",
    [KVPLAN_SWEEP_TOKENS] = "tokens",
    [KVPLAN_SWEEP_TOKENS_PER_GPU] = "tokens-per-gpu",
    [KVPLAN_SWEEP_LONGEST_REQUEST] = "longest-request",
    [KVPLAN_SWEEP_GPUS] = "gpus",
};

const char *kvplan_sweep_key_name(kvplan_sweep_key key)
{
    return (size_t)key < sizeof key_names / sizeof key_names[0]
               ? key_names[key]
               : NULL;
}

bool kvplan_sweep_key_from_name(const char *name, kvplan_sweep_key *out)
{
    for (size_t k = 0; name != NULL && k < sizeof key_names / sizeof *key_names;
         k++)
        if (strcmp(name, key_names[k]) == 0) {
            *out = (kvplan_sweep_key)k;
            return true;
        }
    return false;
}
