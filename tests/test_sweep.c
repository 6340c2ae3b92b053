/*
 * test_sweep.c: kvplan_plan_update, the sweep's reuse, gives what
 * kvplan_plan_compute gives: rows over GPUs and fractions (the reused
 * path), and over the flags that defeat it (a new arch, new flags), for
 * every configurator, PP, a draft, a mamba hybrid. And kvplan_sweep: each
 * row is the plan of its own options, and the ranking is a total order.
 */
#include "check.h"
#include "kvplan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static kvplan_plan *a, *b, *prev;

static bool same_double(double x, double y)
{
    return memcmp(&x, &y, sizeof x) == 0;
}

/* Every figure a plan publishes, compared. */
static void same_plan(const kvplan_plan *x, const kvplan_plan *y)
{
    CHECK_INT(x->max_total_num_tokens, y->max_total_num_tokens);
    CHECK_INT(x->max_running_requests, y->max_running_requests);
    CHECK_INT(x->context_len, y->context_len);
    CHECK_INT(x->page_size, y->page_size);
    CHECK_INT(x->chunked_prefill_size, y->chunked_prefill_size);
    CHECK_INT(x->cuda_graph_max_bs, y->cuda_graph_max_bs);
    CHECK_STR(x->attention_backend, y->attention_backend);
    CHECK_INT(x->longest_request, y->longest_request);
    /* the resolved flags the later stages read (padding is not compared:
     * it is not part of a value) */
    const kvplan_server_args *r = &x->resolved, *q0 = &y->resolved;
    CHECK_INT(r->tp_size, q0->tp_size);
    CHECK_INT(r->pp_size, q0->pp_size);
    CHECK_INT(r->page_size, q0->page_size);
    CHECK_INT(r->kv_cache_dtype, q0->kv_cache_dtype);
    CHECK_INT(r->dtype, q0->dtype);
    CHECK_INT(r->max_running_requests.value, q0->max_running_requests.value);
    CHECK_INT(r->chunked_prefill_size.value, q0->chunked_prefill_size.value);
    CHECK_INT(r->disable_radix_cache, q0->disable_radix_cache);
    CHECK_INT(r->speculative_algorithm, q0->speculative_algorithm);
    CHECK_INT(r->speculative_num_draft_tokens.value,
              q0->speculative_num_draft_tokens.value);
    CHECK_INT(r->gpu_compute_capability, q0->gpu_compute_capability);
    CHECK_INT(x->num_warnings, y->num_warnings);
    for (size_t i = 0; i < x->num_warnings && i < y->num_warnings; i++) {
        CHECK_INT(x->warnings[i].code, y->warnings[i].code);
        CHECK_STR(x->warnings[i].message, y->warnings[i].message);
    }
    const kvplan_budget *p = &x->budget, *q = &y->budget;
    CHECK(memcmp(p, q, offsetof(kvplan_budget, weight_tensors)) == 0);
    CHECK(same_double(p->mem_fraction_static, q->mem_fraction_static));
    CHECK(same_double(p->post_load_gib, q->post_load_gib));
    CHECK(memcmp(p->weight_tensors, q->weight_tensors,
                 p->num_weight_tensors * sizeof p->weight_tensors[0]) == 0);
    CHECK_INT(x->num_stages, y->num_stages);
    CHECK_INT(x->binding_stage, y->binding_stage);
    for (size_t i = 0; i < x->num_stages && i < y->num_stages; i++) {
        const kvplan_stage_plan *s = &x->stages[i], *t = &y->stages[i];
        CHECK_INT(s->available_bytes, t->available_bytes);
        CHECK(memcmp(&s->profiled, &t->profiled, sizeof s->profiled) == 0);
        CHECK(memcmp(&s->pools, &t->pools, sizeof s->pools) == 0);
        CHECK(memcmp(&s->allocation, &t->allocation, sizeof s->allocation) ==
              0);
        CHECK_INT(s->configurator.kind, t->configurator.kind);
        CHECK_INT(s->configurator.cell_size_bytes,
                  t->configurator.cell_size_bytes);
        CHECK(
            same_double(s->configurator.cell_size, t->configurator.cell_size));
        CHECK(same_double(s->configurator.bytes_per_full_token,
                          t->configurator.bytes_per_full_token));
        CHECK_INT(s->configurator.swa_cap, t->configurator.swa_cap);
        const kvplan_rank *u = &s->rank, *v = &t->rank;
        CHECK_INT(u->runner.start_layer, v->runner.start_layer);
        CHECK_INT(u->runner.end_layer, v->runner.end_layer);
        CHECK_INT(u->runner.num_effective_layers,
                  v->runner.num_effective_layers);
        CHECK_INT(u->runner.page_size, v->runner.page_size);
        CHECK_INT(u->runner.kv_cache_dtype, v->runner.kv_cache_dtype);
        CHECK_INT(u->runner.spec_algorithm, v->runner.spec_algorithm);
        CHECK_INT(u->model.context_len.value, v->model.context_len.value);
        CHECK_INT(u->server_args.max_running_requests.value,
                  v->server_args.max_running_requests.value);
        CHECK_INT(s->weight_bytes, t->weight_bytes);
        CHECK_INT(s->draft_weight_bytes, t->draft_weight_bytes);
        CHECK_INT(s->max_mamba_cache_size, t->max_mamba_cache_size);
    }
    const kvplan_capacity *c = &x->capacity, *d = &y->capacity;
    CHECK_INT(c->num_pools, d->num_pools);
    for (size_t i = 0; i < c->num_pools && i < d->num_pools; i++) {
        CHECK_INT(c->pools[i].kind, d->pools[i].kind);
        CHECK_INT(c->pools[i].capacity_tokens, d->pools[i].capacity_tokens);
        CHECK_INT(c->pools[i].reserved_tokens, d->pools[i].reserved_tokens);
        CHECK(same_double(c->pools[i].bytes_per_token,
                          d->pools[i].bytes_per_token));
        CHECK_INT(c->pools[i].request_cap, d->pools[i].request_cap);
        CHECK_INT(c->pools[i].per_request, d->pools[i].per_request);
    }
    CHECK_INT(c->longest_request_tokens, d->longest_request_tokens);
    CHECK_INT(c->max_concurrency_at_context_len,
              d->max_concurrency_at_context_len);
    CHECK_INT(c->binding, d->binding);
    CHECK_INT(c->binding_pool, d->binding_pool);
}

static const char *const gpus[] = {"H100-80GB", "H200", "H20",    "B200",
                                   "GB200",     "L4",   "MI300X", "MI355X"};
static const double fractions[] = {0, 0.6, 0.85, 0.93};

/* A sweep over GPUs and fractions for `model` with options `base`, each
 * row planned by update (from the row before) and by compute. */
static size_t sweep(const char *model, const char *draft,
                    kvplan_plan_options base)
{
    kvplan_model *m = NULL, *d = NULL;
    CHECK_INT(kvplan_model_load(model, &m, NULL), KVPLAN_OK);
    if (draft != NULL) {
        CHECK_INT(kvplan_model_load(draft, &d, NULL), KVPLAN_OK);
        base.server.speculative_draft_model = d;
    }
    kvplan_plan_options po = base;
    bool have_prev = false;
    size_t rows = 0;
    for (size_t g = 0; g < sizeof gpus / sizeof gpus[0]; g++)
        for (size_t f = 0; f < sizeof fractions / sizeof fractions[0]; f++) {
            kvplan_plan_options o = base;
            CHECK(kvplan_gpu_preset(gpus[g], &o.gpu));
            o.gpu_set = true;
            if (fractions[f] > 0)
                o.mem_fraction_static = (kvplan_opt_double){fractions[f], true};
            kvplan_error e1, e2;
            kvplan_status s1 = kvplan_plan_compute(m, &o, a, &e1);
            kvplan_status s2 = kvplan_plan_update(
                m, &o, have_prev ? &po : NULL, have_prev ? prev : NULL, b, &e2);
            CHECK_INT(s2, s1);
            if (s1 != s2)
                fprintf(stderr, "  %s on %s at %g: %s | %s\n", model, gpus[g],
                        fractions[f], e1.message, e2.message);
            if (s1 == KVPLAN_OK && s2 == KVPLAN_OK) {
                same_plan(a, b);
                kvplan_plan *t = prev;
                prev = b;
                b = t;
                po = o;
                have_prev = true;
                rows++;
            } else if (s1 == s2) {
                CHECK_STR(e2.message, e1.message);
                CHECK_STR(e2.field, e1.field);
            }
        }
    kvplan_model_free(m);
    kvplan_model_free(d);
    return rows;
}

static kvplan_plan_options opts(void)
{
    kvplan_plan_options o;
    kvplan_plan_options_init(&o);
    return o;
}

/* kvplan_sweep over options by name: each row's figures are
 * kvplan_plan_compute's for the row's options; the ranking puts the rows
 * that fit first, best first, ties in the product's order. */
static void test_sweep_rows(void)
{
    kvplan_options base;
    kvplan_options_init(&base);
    kvplan_error err;
    base.model_path = "gpt-oss-120b";
    kvplan_loaded l;
    CHECK_INT(kvplan_options_load(&base, &l, &err), KVPLAN_OK);
    static const char *const gpu_values[] = {"H100-80GB", "L4", "h200"};
    static const char *const tp_values[] = {"1", "2", "4"};
    static const char *const frac_values[] = {"0.8", "0.9"};
    static const char *const spec_values[] = {"none", "EAGLE"};
    kvplan_sweep_axis axes[] = {{"gpu", gpu_values, 3},
                                {"--tp-size", tp_values, 3},
                                {"mem-fraction-static", frac_values, 2},
                                {"speculative_algorithm", spec_values, 2}};
    size_t n = 36;
    kvplan_sweep_row *rows = calloc(n, sizeof *rows);
    kvplan_plan *work = malloc(2 * sizeof *work), *one = malloc(sizeof *one);
    size_t *order = malloc(n * sizeof *order);
    CHECK_INT(kvplan_sweep(l.model, &base, axes, 4, rows, n, work, &err),
              KVPLAN_OK);
    size_t planned = 0, fit = 0;
    for (size_t i = 0; i < n; i++) {
        const kvplan_sweep_row *r = &rows[i];
        CHECK_INT(r->index, i);
        kvplan_options o;
        CHECK_INT(kvplan_sweep_row_options(&base, axes, 4, r, &o, &err),
                  KVPLAN_OK);
        kvplan_status st = kvplan_plan_compute(l.model, &o.plan, one, &err);
        CHECK_INT(r->status, st);
        if (st != KVPLAN_OK) {
            CHECK_STR(r->error.message, err.message);
            continue;
        }
        planned++;
        fit += r->fits;
        CHECK_INT(r->max_total_num_tokens, one->max_total_num_tokens);
        CHECK_INT(r->fleet.gpus, one->fleet.gpus);
        CHECK_INT(r->fleet.concurrency_at_context_len,
                  one->fleet.concurrency_at_context_len);
        CHECK_STR(r->gpu, one->budget.given ? "" : o.plan.gpu.name);
        CHECK(r->mem_fraction_static == one->budget.mem_fraction_static);
    }
    CHECK(planned > 10 && fit > 5);
    /* the last axis innermost: row 1 is EAGLE on the first GPU, tp 1 */
    CHECK_INT(rows[1].pick[3], 1);
    CHECK_INT(rows[1].pick[0], 0);
    CHECK_STR(rows[12].gpu, "L4");
    for (int k = 0; k <= KVPLAN_SWEEP_GPUS; k++) {
        kvplan_sweep_key key = (kvplan_sweep_key)k;
        kvplan_sweep_rank(rows, n, key, order);
        for (size_t i = 1; i < n; i++) {
            const kvplan_sweep_row *x = &rows[order[i - 1]],
                                   *y = &rows[order[i]];
            int cx = x->fits * 2 + (x->status == KVPLAN_OK),
                cy = y->fits * 2 + (y->status == KVPLAN_OK);
            CHECK(cx >= cy);
            if (cx != cy)
                continue;
            double fx = kvplan_sweep_figure(x, key),
                   fy = kvplan_sweep_figure(y, key);
            if (key == KVPLAN_SWEEP_GPUS)
                CHECK(fx <= fy);
            else
                CHECK(fx >= fy);
            if (fx == fy)
                CHECK(x->index < y->index);
        }
    }
    /* a value no row takes is the sweep's error, naming the option */
    static const char *const bad_tp[] = {"1", "x"};
    kvplan_sweep_axis bad[] = {{"tp_size", bad_tp, 2}};
    CHECK_INT(kvplan_sweep(l.model, &base, bad, 1, rows, 2, work, &err),
              KVPLAN_PARSE);
    CHECK_STR(err.field, "tp_size");
    kvplan_sweep_axis not_swept[] = {{"dp_size", tp_values, 3}};
    CHECK_INT(kvplan_sweep(l.model, &base, not_swept, 1, rows, 3, work, &err),
              KVPLAN_INVALID_ARGUMENT);
    CHECK_INT(kvplan_sweep(l.model, &base, axes, 4, rows, 35, work, &err),
              KVPLAN_INVALID_ARGUMENT);
    kvplan_loaded_free(&l);
    free(rows);
    free(work);
    free(one);
    free(order);
}

/* Rows built from the row before (kvplan_sweep stores only the axes that
 * changed) equal rows built from the base: speculative_algorithm
 * outermost (its "none" leaves the option out, so the row is built
 * afresh), the GPU under a --gpu-memory held, the KV dtype, the context
 * and the fraction innermost; each row as kvplan_plan_compute plans its
 * own options. */
static void test_sweep_from_row_before(void)
{
    kvplan_options base;
    kvplan_options_init(&base);
    kvplan_error err;
    base.model_path = "qwen3-8b";
    CHECK_INT(kvplan_options_set(&base, "--gpu-memory", "70GiB", &err),
              KVPLAN_OK);
    kvplan_loaded l;
    CHECK_INT(kvplan_options_load(&base, &l, &err), KVPLAN_OK);
    static const char *const spec[] = {"none", "EAGLE", "none"};
    static const char *const gpu[] = {"H100-80GB", "B200"};
    static const char *const kv[] = {"auto", "fp8_e4m3"};
    static const char *const ctx[] = {"4096", "32768"};
    static const char *const frac[] = {"0.8", "0.85", "0.9"};
    kvplan_sweep_axis axes[] = {{"speculative_algorithm", spec, 3},
                                {"gpu", gpu, 2},
                                {"kv_cache_dtype", kv, 2},
                                {"context_length", ctx, 2},
                                {"mem_fraction_static", frac, 3}};
    size_t n = 3 * 2 * 2 * 2 * 3;
    kvplan_sweep_row *rows = calloc(n, sizeof *rows);
    kvplan_plan *work = malloc(2 * sizeof *work), *one = malloc(sizeof *one);
    CHECK_INT(kvplan_sweep(l.model, &base, axes, 5, rows, n, work, &err),
              KVPLAN_OK);
    size_t planned = 0;
    for (size_t i = 0; rows != NULL && i < n; i++) {
        const kvplan_sweep_row *r = &rows[i];
        kvplan_options o;
        CHECK_INT(kvplan_sweep_row_options(&base, axes, 5, r, &o, &err),
                  KVPLAN_OK);
        CHECK(o.plan.gpu.total_mib == 70 * 1024); /* --gpu-memory over it */
        kvplan_status st = kvplan_plan_compute(l.model, &o.plan, one, &err);
        CHECK_INT(r->status, st);
        if (st != KVPLAN_OK)
            continue;
        planned++;
        CHECK_INT(r->max_total_num_tokens, one->max_total_num_tokens);
        CHECK_INT(r->max_running_requests, one->max_running_requests);
        CHECK_INT(r->context_len, one->context_len);
        CHECK_INT(r->kv_cache_dtype, one->stages[0].rank.runner.kv_cache_dtype);
        CHECK(r->mem_fraction_static == one->budget.mem_fraction_static);
        CHECK_STR(r->gpu, o.plan.gpu.name);
    }
    CHECK_INT(planned, 48); /* EAGLE rows need a draft: they do not plan */
    free(rows);
    free(work);
    free(one);
    kvplan_loaded_free(&l);
}

/* The ranking of many rows (the quicksort's partitions, its heapsort past
 * the depth limit is reached by no input here, and the insertion of the
 * small ranges): a permutation in the total order kvplan_sweep_rank
 * promises, over rows with many ties, already sorted, reversed and
 * all-equal figures, for every key. */
static void test_rank_many(void)
{
    enum { N = 5000 };
    kvplan_sweep_row *rows = calloc(N, sizeof *rows);
    size_t *order = malloc(N * sizeof *order);
    bool *seen = malloc(N);
    uint64_t s = 2026;
    for (int pattern = 0; rows != NULL && order != NULL && pattern < 4;
         pattern++) {
        for (size_t i = 0; i < N; i++) {
            kvplan_sweep_row *r = &rows[i];
            s = s * 6364136223846793005u + 1442695040888963407u;
            r->index = i;
            r->status = (s >> 60) == 0 ? KVPLAN_NOT_ENOUGH_MEMORY : KVPLAN_OK;
            r->fits = r->status == KVPLAN_OK && (s >> 58 & 3) != 0;
            double f = pattern == 0   ? (double)(s >> 33 & 15) /* ties */
                       : pattern == 1 ? (double)i              /* ascending */
                       : pattern == 2 ? (double)(N - i)        /* descending */
                                      : 7.0;                   /* all equal */
            r->fleet.concurrency_per_gpu = f;
            r->fleet.concurrency_at_context_len = (int64_t)f;
            r->fleet.gpus = (int64_t)f + 1;
            r->max_total_num_tokens = (int64_t)f * 1000;
            r->longest_request_tokens = (int64_t)f;
        }
        for (int k = 0; k <= KVPLAN_SWEEP_GPUS; k++) {
            kvplan_sweep_key key = (kvplan_sweep_key)k;
            kvplan_sweep_rank(rows, N, key, order);
            memset(seen, 0, N);
            size_t bad = 0;
            for (size_t i = 0; i < N; i++) {
                bad += order[i] >= N || seen[order[i]];
                if (order[i] < N)
                    seen[order[i]] = true;
            }
            for (size_t i = 1; bad == 0 && i < N; i++) {
                const kvplan_sweep_row *x = &rows[order[i - 1]],
                                       *y = &rows[order[i]];
                int cx = x->fits * 2 + (x->status == KVPLAN_OK),
                    cy = y->fits * 2 + (y->status == KVPLAN_OK);
                double fx = kvplan_sweep_figure(x, key),
                       fy = kvplan_sweep_figure(y, key);
                if (key == KVPLAN_SWEEP_GPUS) {
                    fx = -fx;
                    fy = -fy;
                }
                bad += cx < cy || (cx == cy && fx < fy) ||
                       (cx == cy && fx == fy && x->index > y->index);
            }
            if (bad != 0)
                CHECK_FAIL_("pattern %d, key %d: %zu rows out of order",
                            pattern, k, bad);
            else
                check_passed_++;
        }
    }
    free(rows);
    free(order);
    free(seen);
}

int main(void)
{
    a = malloc(sizeof *a);
    b = malloc(sizeof *b);
    prev = malloc(sizeof *prev);
    kvplan_plan_options o = opts();
    CHECK(sweep("llama-3.1-8b-instruct", NULL, o) > 20);
    o.server.context_length = (kvplan_opt_int){8192, true};
    o.server.max_running_requests = (kvplan_opt_int){64, true};
    CHECK(sweep("llama-3.1-8b-instruct", NULL, o) > 20);
    o = opts();
    o.server.tp_size = 2;
    CHECK(sweep("gpt-oss-120b", NULL, o) > 10);
    o.server.disable_radix_cache = true;
    o.server.max_running_requests = (kvplan_opt_int){64, true};
    CHECK(sweep("gpt-oss-120b", NULL, o) > 10); /* the SWA chunk cap */
    o = opts();
    o.server.tp_size = 8;
    CHECK(sweep("deepseek-v4-flash", NULL, o) > 5);
    CHECK(sweep("deepseek-v3.2", NULL, o) > 5);
    o.server.speculative_algorithm = KVPLAN_SPEC_EAGLE; /* NEXTN: MTP */
    CHECK(sweep("deepseek-v3", NULL, o) > 5);
    o = opts();
    o.server.tp_size = 4;
    o.server.pp_size = 2;
    CHECK(sweep("llama-3.1-70b-instruct", NULL, o) > 10);
    o = opts();
    o.server.tp_size = 4;
    CHECK(sweep("qwen3-next-80b-a3b-thinking", NULL, o) > 10);
    o = opts();
    o.server.speculative_algorithm = KVPLAN_SPEC_EAGLE3;
    CHECK(sweep("llama-3.1-8b-instruct", "eagle3-llama3.1-8b", o) > 10);
    o = opts();
    o.available_bytes = (kvplan_opt_int){1LL << 34, true};
    CHECK(sweep("gemma-3-4b-it", NULL, o) > 10);
    /* update never writes the plan it reuses */
    kvplan_model *m = NULL;
    CHECK_INT(kvplan_model_load("llama-3.1-8b-instruct", &m, NULL), KVPLAN_OK);
    o = opts();
    o.gpu_set = kvplan_gpu_preset("H100-80GB", &o.gpu);
    CHECK_INT(kvplan_plan_compute(m, &o, a, NULL), KVPLAN_OK);
    CHECK_INT(kvplan_plan_update(m, &o, &o, a, a, NULL),
              KVPLAN_INVALID_ARGUMENT);
    kvplan_model_free(m);
    free(a);
    free(b);
    free(prev);
    test_sweep_rows();
    test_sweep_from_row_before();
    test_rank_many();
    return check_report();
}
