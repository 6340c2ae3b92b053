/*
 * test_noalloc.c: the compute calls allocate nothing, as the header says:
 * kvplan_model_rank, kvplan_configurator_init, the three pool calls and
 * kvplan_plan_compute, the capacity's calls (kvplan_request_cost,
 * kvplan_admit), kvplan_plan_update, kvplan_fit_context, kvplan_solve,
 * and the log reader (parse, options, reconcile), on
 * models of every configurator family, counted
 * with the GNU linker's --wrap over malloc, calloc and realloc (the
 * library is linked statically into this test). Loading a model may
 * allocate; the hot calls after it may not.
 */
#include "check.h"
#include "kvplan.h"

#include <stdlib.h>

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);

static long allocations;

void *__wrap_malloc(size_t size)
{
    allocations++;
    return __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
    allocations++;
    return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
    allocations++;
    return __real_realloc(p, size);
}

int main(void)
{
    static const char *const models[] = {"llama-3.1-8b-instruct",
                                         "deepseek-v3.2",
                                         "gpt-oss-120b",
                                         "deepseek-v4-flash",
                                         "qwen3-next-80b-a3b-thinking",
                                         "mimo-v2-flash",
                                         "gemma-3-4b-it",
                                         "nemotron-3-nano-30b-a3b",
                                         "kimi-k2.5"};
    kvplan_plan *plan = malloc(sizeof *plan), *next = malloc(sizeof *next);
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        kvplan_model *m = NULL;
        kvplan_error err;
        long loading = allocations;
        CHECK_INT(kvplan_model_load(models[i], &m, &err), KVPLAN_OK);
        CHECK(allocations > loading); /* the count sees kvplan's mallocs */
        kvplan_server_args a;
        kvplan_server_args_init(&a);
        a.tp_size = 8;
        kvplan_plan_options o;
        kvplan_plan_options_init(&o);
        o.server.tp_size = 8;
        CHECK(kvplan_gpu_preset("H200", &o.gpu));
        o.gpu_set = true;
        long before = allocations;
        kvplan_rank r;
        kvplan_configurator c;
        kvplan_pool_config pc;
        if (kvplan_model_rank(m, &a, 0, &r, NULL, &err) == KVPLAN_OK &&
            kvplan_configurator_init(&c, &r, &err) == KVPLAN_OK) {
            kvplan_calculate_pool_sizes(&c, 80000000000, 64, &pc, &err);
            kvplan_calculate_pool_sizes_from_max_tokens(&c, 100000, 64, &pc,
                                                        &err);
            pc.max_running_requests = (kvplan_opt_int){64, true};
            kvplan_finalize_with_max_running_requests(&c, &pc, &err);
            kvplan_calculate_pool_sizes(&c, 1, 64, &pc, &err); /* fails */
        }
        CHECK_INT(kvplan_plan_compute(m, &o, plan, &err), KVPLAN_OK);
        /* a log read and reconciled (docs/log.md) */
        static const char log[] =
            "server_args=ServerArgs(tp_size=8, mem_fraction_static=0.85)\n"
            "[2026-01-01 00:00:00 TP0] Load weight begin. avail mem=138.50 "
            "GB\n[2026-01-01 00:00:09 TP0] Load weight end. type=X, avail "
            "mem=60.00 GB, mem usage=78.50 GB.\n"
            "[2026-01-01 00:00:10 TP0] KV Cache is allocated. #tokens: 1000\n";
        kvplan_log_readings lr;
        kvplan_log_result lx;
        kvplan_plan_options lo;
        kvplan_plan_options_init(&lo);
        CHECK_INT(kvplan_log_parse(log, sizeof log - 1, &lr, &err), KVPLAN_OK);
        CHECK_INT(kvplan_log_options(&lr, &lo, &err), KVPLAN_OK);
        CHECK_INT(kvplan_log_reconcile(m, NULL, &lr, &lo, plan, &lx, &err),
                  KVPLAN_OK);
        /* the capacity's calls, a sweep's update, fit and solve */
        CHECK_INT(kvplan_plan_compute(m, &o, plan, &err), KVPLAN_OK);
        int64_t cost[KVPLAN_MAX_POOLS];
        kvplan_admission adm;
        kvplan_usage use = {.running_requests = 1};
        CHECK_INT(kvplan_request_cost(&plan->capacity, 1000, 100, cost, &err),
                  KVPLAN_OK);
        CHECK_INT(kvplan_admit(&plan->capacity, &use, 1000, 100, &adm, &err),
                  KVPLAN_OK);
        kvplan_plan_options o2 = o;
        CHECK(kvplan_gpu_preset("B200", &o2.gpu));
        o2.mem_fraction_static = (kvplan_opt_double){0.9, true};
        kvplan_plan_update(m, &o2, &o, plan, next, &err);
        int64_t len;
        kvplan_fit_context(m, &o, 4, next, &len, &err);
        kvplan_solution sol;
        kvplan_target tgt = {.concurrency = 4};
        kvplan_solve(m, &o, KVPLAN_KNOB_MEM_FRACTION_STATIC, &tgt, next, &sol,
                     &err);
        kvplan_solve(m, &o, KVPLAN_KNOB_GPU, &tgt, next, &sol, &err);
        o.mem_fraction_static = (kvplan_opt_double){0.01, true};
        kvplan_plan_compute(m, &o, plan, &err); /* does not fit */
        if (allocations != before)
            CHECK_FAIL_("%s: %ld allocations in the compute calls", models[i],
                        allocations - before);
        else
            check_passed_++;
        kvplan_model_free(m);
    }
    free(plan);
    free(next);
    return check_report();
}
