/*
 * test_search.c: fit and solve (src/plan/search.c) against the forward
 * plan: each answer reaches its target in kvplan_plan_compute, and the
 * step beyond it (fit: one token longer; solve: one step of the knob
 * below) does not.
 */
#include "check.h"
#include "kvplan.h"
#include "plan_options.h"

#include <stdlib.h>
#include <string.h>

static kvplan_plan *work, *fwd;

/* The concurrency at context length `len`, forward; -1 when it does not
 * plan. */
static int64_t conc_at(const kvplan_model *m, kvplan_plan_options o,
                       int64_t len)
{
    o.server.context_length = (kvplan_opt_int){len, true};
    if (kvplan_plan_compute(m, &o, fwd, NULL) != KVPLAN_OK)
        return -1;
    return fwd->capacity.max_concurrency_at_context_len;
}

static void check_fit(const char *model, kvplan_plan_options o, int64_t n)
{
    kvplan_model *m = NULL;
    kvplan_error err;
    CHECK_INT(kvplan_model_load(model, &m, &err), KVPLAN_OK);
    int64_t len = 0;
    kvplan_status st = kvplan_fit_context(m, &o, n, work, &len, &err);
    CHECK_INT(st, KVPLAN_OK);
    if (st != KVPLAN_OK) {
        fprintf(stderr, "  %s: %s\n", model, err.message);
    } else {
        CHECK(conc_at(m, o, len) >= n);
        /* the work plan is the forward plan at the answer */
        CHECK_INT(work->max_total_num_tokens, fwd->max_total_num_tokens);
        CHECK_INT(work->context_len, len);
        if (len < kvplan_model_get_info(m)->context_len)
            CHECK(conc_at(m, o, len + 1) < n);
    }
    kvplan_model_free(m);
}

static void test_fit(void)
{
    kvplan_plan_options o = on_gpu("H100-80GB");
    check_fit("llama-3.1-8b-instruct", o, 16);
    check_fit("llama-3.1-8b-instruct", o, 1);
    check_fit("llama-3.1-8b-instruct", o, 400);
    /* hybrid SWA, DSV4, a mamba hybrid */
    o.server.tp_size = 2;
    check_fit("gpt-oss-120b", o, 32);
    o.server.tp_size = 4;
    check_fit("qwen3-next-80b-a3b-thinking", o, 8);
    kvplan_plan_options b = on_gpu("B200");
    b.server.tp_size = 8;
    check_fit("deepseek-v4-flash", b, 64);
    /* at the model's own context length: the ceiling itself */
    o = on_gpu("H200");
    kvplan_model *m = NULL;
    CHECK_INT(kvplan_model_load("llama-3.1-8b-instruct", &m, NULL), KVPLAN_OK);
    int64_t len = 0;
    CHECK_INT(kvplan_fit_context(m, &o, 1, work, &len, NULL), KVPLAN_OK);
    CHECK_INT(len, 131072);
    /* more requests than sglang's default cap (4096) runs: the cap binds,
     * named with its flag (issue 25: it was "not enough memory") */
    kvplan_error err;
    CHECK_INT(kvplan_fit_context(m, &o, 10000000, work, &len, &err),
              KVPLAN_INVALID_CONFIG);
    CHECK_STR(err.field, "--max-running-requests");
    CHECK_CONTAINS(err.message, "--max-running-requests 10000000");
    /* the cap raised: more requests than any length holds, memory named */
    kvplan_plan_options raised = o;
    raised.server.max_running_requests = (kvplan_opt_int){10000000, true};
    CHECK_INT(kvplan_fit_context(m, &raised, 10000000, work, &len, &err),
              KVPLAN_NOT_ENOUGH_MEMORY);
    CHECK_STR(err.field, "--concurrency");
    CHECK_CONTAINS(err.message, "memory binds");
    CHECK_INT(kvplan_fit_context(m, &o, 0, work, &len, &err),
              KVPLAN_INVALID_ARGUMENT);
    CHECK_INT(kvplan_fit_context(NULL, &o, 1, work, &len, &err),
              KVPLAN_INVALID_ARGUMENT);
    kvplan_model_free(m);
}

static int64_t figure(const kvplan_target *t, const kvplan_plan *p)
{
    return t->tokens > 0 ? p->max_total_num_tokens
                         : p->capacity.max_concurrency_at_context_len;
}

static bool reaches(const kvplan_model *m, const kvplan_plan_options *o,
                    const kvplan_target *t)
{
    if (kvplan_plan_compute(m, o, fwd, NULL) != KVPLAN_OK)
        return false;
    return figure(t, fwd) >= (t->tokens > 0 ? t->tokens : t->concurrency);
}

/* Solves, then checks the answer and the step below forward. */
static void check_solve(const char *model, kvplan_plan_options o,
                        kvplan_knob knob, kvplan_target t)
{
    kvplan_model *m = NULL;
    kvplan_error err;
    CHECK_INT(kvplan_model_load(model, &m, &err), KVPLAN_OK);
    kvplan_solution sol;
    kvplan_status st = kvplan_solve(m, &o, knob, &t, work, &sol, &err);
    CHECK_INT(st, KVPLAN_OK);
    if (st != KVPLAN_OK) {
        fprintf(stderr, "  %s %s: %s\n", model, kvplan_knob_name(knob),
                err.message);
        kvplan_model_free(m);
        return;
    }
    CHECK(sol.found);
    CHECK(sol.plans > 0);
    kvplan_plan_options at = o, below = o;
    bool has_below = true;
    switch (knob) {
    case KVPLAN_KNOB_MEM_FRACTION_STATIC:
        at.mem_fraction_static = (kvplan_opt_double){sol.value, true};
        below.mem_fraction_static = (kvplan_opt_double){sol.value - 1e-6, true};
        has_below = sol.value > 1.5e-6;
        break;
    case KVPLAN_KNOB_SWA_FULL_TOKENS_RATIO:
        at.server.swa_full_tokens_ratio = (kvplan_opt_double){sol.value, true};
        below.server.swa_full_tokens_ratio =
            (kvplan_opt_double){sol.value - 1e-6, true};
        has_below = sol.value > 1.5e-6;
        break;
    case KVPLAN_KNOB_TP_SIZE:
        at.server.tp_size = (int64_t)sol.value;
        below.server.tp_size = (int64_t)sol.value / 2;
        has_below = sol.value >= 2;
        break;
    case KVPLAN_KNOB_MAX_RUNNING_REQUESTS:
        at.server.max_running_requests =
            (kvplan_opt_int){(int64_t)sol.value, true};
        below.server.max_running_requests =
            (kvplan_opt_int){(int64_t)sol.value - 1, true};
        has_below = sol.value >= 2;
        break;
    case KVPLAN_KNOB_GPU:
        at.gpu = sol.gpu;
        has_below = false; /* every preset with less memory: below */
        for (size_t i = 0; kvplan_gpu_preset_at(i, &below.gpu); i++)
            if (below.gpu.total_mib < sol.gpu.total_mib)
                CHECK(!reaches(m, &below, &t));
        break;
    case KVPLAN_KNOB_KV_CACHE_DTYPE:
        at.server.kv_cache_dtype = sol.kv_cache_dtype;
        has_below = false;
        break;
    }
    CHECK(reaches(m, &at, &t));
    CHECK_INT(figure(&t, fwd), sol.figure);
    CHECK_INT(work->max_total_num_tokens, fwd->max_total_num_tokens);
    if (has_below)
        CHECK(!reaches(m, &below, &t));
    kvplan_model_free(m);
}

static void test_solve(void)
{
    kvplan_plan_options o = on_gpu("H100-80GB");
    kvplan_target tokens = {.tokens = 300000};
    kvplan_target requests = {.concurrency = 8};
    check_solve("llama-3.1-8b-instruct", o, KVPLAN_KNOB_MEM_FRACTION_STATIC,
                tokens);
    o.server.context_length = (kvplan_opt_int){131072, true};
    check_solve("llama-3.1-8b-instruct", o, KVPLAN_KNOB_MEM_FRACTION_STATIC,
                (kvplan_target){.concurrency = 3});
    check_solve("llama-3.1-8b-instruct", o, KVPLAN_KNOB_TP_SIZE, requests);
    check_solve("llama-3.1-8b-instruct", o, KVPLAN_KNOB_GPU, requests);
    check_solve("llama-3.1-8b-instruct", o, KVPLAN_KNOB_KV_CACHE_DTYPE,
                (kvplan_target){.concurrency = 5});
    o.server.context_length = (kvplan_opt_int){8192, true};
    check_solve("llama-3.1-8b-instruct", o, KVPLAN_KNOB_MAX_RUNNING_REQUESTS,
                (kvplan_target){.concurrency = 40});
    /* hybrid SWA: the least ratio whose SWA pool holds 100 requests */
    kvplan_plan_options g = on_gpu("H100-80GB");
    g.server.tp_size = 2;
    g.server.context_length = (kvplan_opt_int){8192, true};
    check_solve("gpt-oss-120b", g, KVPLAN_KNOB_SWA_FULL_TOKENS_RATIO,
                (kvplan_target){.concurrency = 100});
    check_solve("gpt-oss-120b", g, KVPLAN_KNOB_MEM_FRACTION_STATIC,
                (kvplan_target){.concurrency = 150});
    kvplan_plan_options b = on_gpu("B200");
    b.server.tp_size = 8;
    check_solve("deepseek-v4-flash", b, KVPLAN_KNOB_MEM_FRACTION_STATIC,
                (kvplan_target){.tokens = 10000000});

    /* no solution: the best reached, named */
    kvplan_model *m = NULL;
    kvplan_error err;
    kvplan_solution sol;
    CHECK_INT(kvplan_model_load("llama-3.1-8b-instruct", &m, NULL), KVPLAN_OK);
    o = on_gpu("H100-80GB");
    kvplan_target far = {.tokens = 5000000};
    CHECK_INT(kvplan_solve(m, &o, KVPLAN_KNOB_MEM_FRACTION_STATIC, &far, work,
                           &sol, &err),
              KVPLAN_NOT_ENOUGH_MEMORY);
    CHECK(!sol.found);
    CHECK_STR(err.field, "--target-tokens");
    /* the best is more than sglang's rule gives, less than the GPU */
    CHECK(kvplan_plan_compute(m, &o, fwd, NULL) == KVPLAN_OK);
    CHECK(sol.best > fwd->max_total_num_tokens);
    CHECK(sol.best < 81559LL * 1024 * 1024 / 131072);
    /* bad targets and knobs */
    kvplan_target both = {.tokens = 1, .concurrency = 1};
    CHECK_INT(kvplan_solve(m, &o, KVPLAN_KNOB_GPU, &both, work, &sol, &err),
              KVPLAN_INVALID_ARGUMENT);
    CHECK_INT(kvplan_solve(m, &o, (kvplan_knob)99, &far, work, &sol, &err),
              KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "--solve-for");
    CHECK_INT(kvplan_solve(m, &o, KVPLAN_KNOB_SWA_FULL_TOKENS_RATIO, &requests,
                           work, &sol, &err),
              KVPLAN_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "sliding-window");
    o.available_bytes = (kvplan_opt_int){1LL << 34, true};
    CHECK_INT(kvplan_solve(m, &o, KVPLAN_KNOB_GPU, &requests, work, &sol, &err),
              KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "--available-bytes");
    kvplan_knob k;
    CHECK(kvplan_knob_from_name("tp-size", &k) && k == KVPLAN_KNOB_TP_SIZE);
    CHECK(!kvplan_knob_from_name("tp_size", &k));
    kvplan_model_free(m);
}

int main(void)
{
    work = malloc(sizeof *work);
    fwd = malloc(sizeof *fwd);
    test_fit();
    test_solve();
    free(work);
    free(fwd);
    return check_report();
}
