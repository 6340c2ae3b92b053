/*
 * admit.c: an admission controller's use of kvplan: plan a server once,
 * keep its capacity, and ask before each request starts whether the pools
 * hold it, and if not, which refuses.
 *
 * Plans gpt-oss-120b (full and sliding-window layers) on two H100-80GB,
 * then admits requests of 30000 prompt + 2000 decode tokens until one is
 * refused, and prints how many started and what refused the next.
 *
 *   cc admit.c $(pkg-config --cflags --libs kvplan) -o admit && ./admit
 */
#include <kvplan.h>

#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    kvplan_model *model = NULL;
    kvplan_plan *plan = malloc(sizeof *plan); /* large: not on the stack */
    kvplan_plan_options options;
    kvplan_error err;
    kvplan_plan_options_init(&options);
    options.gpu_set = kvplan_gpu_preset("H100-80GB", &options.gpu);
    options.server.tp_size = 2;
    if (plan == NULL ||
        kvplan_model_load("gpt-oss-120b", &model, &err) != KVPLAN_OK ||
        kvplan_plan_compute(model, &options, plan, &err) != KVPLAN_OK) {
        fprintf(stderr, "kvplan: %s\n", plan ? err.message : "no memory");
        return 1;
    }
    kvplan_capacity capacity = plan->capacity; /* a plain value: keep it */
    kvplan_model_free(model);
    free(plan);

    kvplan_usage usage = {0};
    kvplan_admission a;
    for (;;) {
        if (kvplan_admit(&capacity, &usage, 30000, 2000, &a, &err) !=
            KVPLAN_OK) {
            fprintf(stderr, "kvplan: %s\n", err.message);
            return 1;
        }
        if (!a.admit)
            break;
        usage.running_requests++; /* the request starts: take its cost */
        for (size_t i = 0; i < capacity.num_pools; i++)
            usage.used[i] += a.cost[i];
    }
    printf("%lld requests started; the next is refused by %s\n",
           (long long)usage.running_requests,
           a.refused_by == KVPLAN_LIMIT_POOL
               ? kvplan_pool_kind_name(capacity.pools[a.pool].kind)
               : kvplan_limit_name(a.refused_by));
    return 0;
}
