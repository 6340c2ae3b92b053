/*
 * bench.c: kvplan-bench, the core's speed on the golden scenarios.
 *
 *   kvplan-bench [GOLDEN_FILE]
 *
 * Prints four figures:
 *   pools_scenario_ns  building a configurator and making its calls (as the
 *                      reference oracle does), per call;
 *   pools_call_ns      one profiling-path call on a built configurator;
 *   plan_compute_ns    one whole plan (kvplan_plan_compute) of a loaded
 *                      catalog model, llama-3.1-8b-instruct on an H100-80GB
 *                      (target: at most 1000 ns);
 *   engine_compute_ns  what vLLM would allocate (kvplan_engine_compute)
 *                      for gpt-oss-20b on an H100-80GB: two specs, page
 *                      unification, groups and the concurrency;
 *   sweep_plans_per_s  rows of a sweep per second, each the whole plan of
 *                      its flags (kvplan_plan_update from the row before):
 *                      "gpu,fraction" varies the GPU (H100-80GB, H200,
 *                      H20, B200) and mem_fraction_static (16 values);
 *                      "tp" varies tp_size (1, 2, 4, 8) on every row, and
 *                      the fraction;
 *                      goals 10 M and 1 M;
 *   hub_cache_load_us  loading and planning a Hub id from a cached
 *                      snapshot of 160 shards and 80,000 tensors (a
 *                      DeepSeek-V3-sized repository, built here through the
 *                      cache's own stage), beside the same for a catalog
 *                      name (deepseek-v3), and their ratio (goal: <= 3);
 *   plan_process_ms    one whole plan of a catalog model as a process
 *                      (kvplan --model-path llama-3.1-8b-instruct --json,
 *                      the kvplan beside this program), median of 31 runs.
 * The JSON is parsed before the clock starts: only the core is timed. Each
 * figure is the median of 9 trials of at least 0.1 s, so that a noisy
 * neighbour on a shared machine moves it less; the fastest trial is shown
 * beside it. The Python anchor for both is ../shared/oracle/bench_seed.py on
 * the same file (bench/compare.sh runs both and prints the ratios).
 */
#include "json/scenario.h"

#include "hub/hub.h"
#include "model/catalog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef KVPLAN_DEFAULT_GOLDEN
#define KVPLAN_DEFAULT_GOLDEN "tests/data/golden/configurator.jsonl"
#endif

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Keeps the optimizer from dropping the work. */
static volatile int64_t sink;

#define TRIALS 9

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Each answer's tokens into the sink, as the work the optimizer keeps. */
static bool count(void *ctx, size_t i, kvplan__outcome outcome,
                  const kvplan_configurator *conf,
                  const kvplan_pool_config *cfg, const kvplan_error *err)
{
    (void)ctx, (void)i, (void)conf, (void)err;
    sink += outcome == KVPLAN__ANSWERED ? cfg->max_total_num_tokens : 0;
    return true;
}

/* One scenario as the oracle runs it; returns the number of calls made. */
static size_t run_scenario(const kvplan__scenario *s)
{
    return kvplan__scenario_replay(s, false, count, NULL);
}

/* Median time of one whole plan (kvplan_plan_compute) of a loaded catalog
 * model on an H100-80GB, in ns: the model handle is reused, as an
 * embedder's scheduler would; -1 when the model cannot be planned. */
/* The options of both planners, filled once before the clock starts. */
static kvplan_plan_options sglang_options;
static kvplan_engine_options vllm_options;

/* One call of a planner on a loaded model: true when it succeeded. */
typedef bool (*planner)(const kvplan_model *m, void *out);

static bool sglang_plan(const kvplan_model *m, void *out)
{
    kvplan_plan *p = out;
    bool ok = kvplan_plan_compute(m, &sglang_options, p, NULL) == KVPLAN_OK;
    sink += p->max_total_num_tokens;
    return ok;
}

static bool vllm_plan(const kvplan_model *m, void *out)
{
    kvplan_engine_plan *p = out;
    bool ok = kvplan_engine_compute(m, &vllm_options, p, NULL) == KVPLAN_OK;
    sink += p->num_gpu_blocks;
    return ok;
}

/* The median ns of one call of `fn` on `model` (its out struct of `size`
 * bytes), over the trials; the fastest trial in *fastest. */
static double plan_ns(const char *model, planner fn, size_t size,
                      double *fastest)
{
    kvplan_model *m = NULL;
    if (kvplan_model_load(model, &m, NULL) != KVPLAN_OK)
        return -1;
    void *p = malloc(size);
    double ns[TRIALS];
    bool ok = p != NULL;
    for (int t = 0; ok && t < TRIALS; t++) {
        size_t plans = 0;
        double t0 = now_s(), elapsed;
        do {
            for (int k = 0; k < 1000; k++)
                ok &= fn(m, p);
            plans += 1000;
            elapsed = now_s() - t0;
        } while (elapsed < 0.1);
        ns[t] = elapsed * 1e9 / (double)plans;
    }
    free(p);
    kvplan_model_free(m);
    if (!ok)
        return -1;
    qsort(ns, TRIALS, sizeof ns[0], cmp_double);
    *fastest = ns[0];
    return ns[TRIALS / 2];
}

/* Rows of a sweep per second (median of the trials): the GPUs in `gpus`
 * x 16 fractions x the tp sizes in `tps`, in that order (every row of a
 * TP sweep changes the TP size), each row planned by kvplan_plan_update
 * from the row before it. */
static double sweep_rate(const char *const *gpus, size_t ngpus,
                         const int64_t *tps, size_t ntps)
{
    kvplan_model *m = NULL;
    if (kvplan_model_load("llama-3.1-8b-instruct", &m, NULL) != KVPLAN_OK)
        return -1;
    enum { NF = 16 };
    size_t rows = ngpus * ntps * NF;
    kvplan_plan_options *o = calloc(rows, sizeof *o);
    kvplan_plan *p[2] = {malloc(sizeof(kvplan_plan)),
                         malloc(sizeof(kvplan_plan))};
    double rate[TRIALS];
    bool ok = o != NULL && p[0] != NULL && p[1] != NULL;
    for (size_t i = 0; ok && i < rows; i++) {
        /* tp innermost: each row of a TP sweep changes it */
        size_t g = i / (ntps * NF), f = i / ntps % NF, t = i % ntps;
        kvplan_plan_options_init(&o[i]);
        o[i].gpu_set = kvplan_gpu_preset(gpus[g], &o[i].gpu);
        o[i].server.tp_size = tps[t];
        o[i].mem_fraction_static =
            (kvplan_opt_double){0.80 + 0.01 * (double)f, true};
    }
    for (int t = 0; ok && t < TRIALS; t++) {
        size_t done = 0;
        double t0 = now_s(), elapsed;
        do {
            ok &= kvplan_plan_compute(m, &o[0], p[0], NULL) == KVPLAN_OK;
            for (size_t i = 1; i < rows; i++) {
                ok &= kvplan_plan_update(m, &o[i], &o[i - 1], p[(i - 1) & 1],
                                         p[i & 1], NULL) == KVPLAN_OK;
                sink += p[i & 1]->max_total_num_tokens;
            }
            done += rows;
            elapsed = now_s() - t0;
        } while (elapsed < 0.1);
        rate[t] = (double)done / elapsed;
    }
    free(o);
    free(p[0]);
    free(p[1]);
    kvplan_model_free(m);
    if (!ok)
        return -1;
    qsort(rate, TRIALS, sizeof rate[0], cmp_double);
    return rate[TRIALS / 2];
}

/* Median wall time of running `kvplan` as a process, in ms; -1 when it
 * cannot be run. */
static double process_ms(const char *kvplan)
{
    char *const args[] = {(char *)kvplan, "--model-path",
                          "llama-3.1-8b-instruct", "--json", NULL};
    double ms[31];
    for (int i = 0; i < 31; i++) {
        double t0 = now_s();
        pid_t pid = fork();
        if (pid < 0)
            return -1;
        if (pid == 0) {
            FILE *devnull = freopen("/dev/null", "w", stdout);
            (void)devnull;
            execv(kvplan, args);
            _exit(127);
        }
        int status = 0;
        if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
            WEXITSTATUS(status) != 0)
            return -1;
        ms[i] = (now_s() - t0) * 1e3;
    }
    qsort(ms, 31, sizeof ms[0], cmp_double);
    return ms[15];
}

/* A cached snapshot of repo bench/big: deepseek-v3's config.json, an
 * index of 80,000 tensors over 160 shards, each shard's header as a fetch
 * keeps it; kept through the cache's stage (cache.c), as a fetch keeps
 * it. false when it cannot be built. */
static bool big_snapshot(const char *cache)
{
    const kvplan__catalog_entry *e = kvplan__catalog_entry_of("deepseek-v3");
    kvplan__hub_repo r;
    kvplan__hub_stage st;
    kvplan_hub_result out = {.commit = "0123456789abcdef"};
    kvplan__hub_repo_init(&r, "bench/big", "main", cache);
    if (e == NULL || kvplan__hub_stage_open(&r, &st, NULL) != KVPLAN_OK)
        return false;
    bool ok = kvplan__hub_stage_put(&st, &r, "config.json", e->json,
                                    e->json_size, NULL) == KVPLAN_OK;
    size_t cap = 16u << 20, n = 0;
    char *index = malloc(cap), *hdr = malloc(1 << 20);
    ok &= index != NULL && hdr != NULL;
    if (ok)
        n = (size_t)snprintf(index, cap,
                             "{\"metadata\": {\"total_size\": 1}, "
                             "\"weight_map\": {");
    for (int s = 0; ok && s < 160; s++) {
        size_t k = 8;
        k += (size_t)snprintf(hdr + k, (1 << 20) - k, "{");
        for (int t = 0; t < 500; t++) {
            int64_t each = 7168LL * 256;
            k += (size_t)snprintf(
                hdr + k, (1 << 20) - k,
                "%s\"model.layers.%d.mlp.experts.%d.w\": {\"dtype\": "
                "\"F8_E4M3\", \"shape\": [7168, 256], \"data_offsets\": "
                "[%lld, %lld]}",
                t ? ", " : "", s, t, (long long)(each * t),
                (long long)(each * (t + 1)));
            n += (size_t)snprintf(index + n, cap - n,
                                  "%s\"model.layers.%d.mlp.experts.%d.w\": "
                                  "\"model-%05d-of-00160.safetensors\"",
                                  s || t ? ", " : "", s, t, s + 1);
        }
        k += (size_t)snprintf(hdr + k, (1 << 20) - k, "}");
        for (int b = 0; b < 8; b++)
            hdr[b] = (char)((k - 8) >> (8 * b));
        char name[80];
        snprintf(name, sizeof name,
                 "model-%05d-of-00160.safetensors.kvplan-header", s + 1);
        ok = kvplan__hub_stage_put(&st, &r, name, hdr, k, NULL) == KVPLAN_OK;
    }
    if (ok) {
        n += (size_t)snprintf(index + n, cap - n, "}}");
        ok = kvplan__hub_stage_put(&st, &r, "model.safetensors.index.json",
                                   index, n, NULL) == KVPLAN_OK &&
             kvplan__hub_stage_commit(&st, &r, &out, NULL) == KVPLAN_OK;
    }
    kvplan__hub_stage_abort(&st);
    free(index);
    free(hdr);
    return ok;
}

/* Median time to load and plan `model` (kvplan_options_load, then
 * kvplan_plan_compute) on 8 H200s, in µs; -1 on a failure. */
static double load_us(const char *model, const char *const *env)
{
    double us[TRIALS];
    kvplan_plan *p = malloc(sizeof *p);
    for (int t = 0; p != NULL && t < TRIALS; t++) {
        int runs = 0;
        double t0 = now_s(), elapsed;
        do {
            kvplan_options o;
            kvplan_loaded l;
            kvplan_options_init(&o);
            o.model_path = model;
            o.env = env;
            o.plan.gpu_set = kvplan_gpu_preset("H200", &o.plan.gpu);
            o.plan.server.tp_size = 8;
            if (kvplan_options_load(&o, &l, NULL) != KVPLAN_OK ||
                kvplan_plan_compute(l.model, &o.plan, p, NULL) != KVPLAN_OK) {
                free(p);
                return -1;
            }
            sink += p->max_total_num_tokens;
            kvplan_loaded_free(&l);
            runs++;
            elapsed = now_s() - t0;
        } while (elapsed < 0.1);
        us[t] = elapsed * 1e6 / runs;
    }
    free(p);
    if (p == NULL)
        return -1;
    qsort(us, TRIALS, sizeof us[0], cmp_double);
    return us[TRIALS / 2];
}

/* The Hub cache's figures: a cached 160-shard snapshot against the
 * catalog. */
static void hub_cache_bench(void)
{
    char cache[] = "/tmp/kvplan-bench-hub-XXXXXX", cmd[200];
    if (mkdtemp(cache) == NULL)
        return;
    const char *const env[] = {"HF_HUB_CACHE",
                               cache,
                               "HF_HUB_OFFLINE",
                               "1",
                               "HF_TOKEN",
                               "",
                               "HF_TOKEN_PATH",
                               "/nonexistent",
                               NULL};
    if (big_snapshot(cache)) {
        double hub = load_us("bench/big", env);
        double cat = load_us("deepseek-v3", env);
        if (hub > 0 && cat > 0)
            printf("hub_cache_load_us %.1f (160 shards, 80,000 tensors)\n"
                   "catalog_load_us %.1f (deepseek-v3)\n"
                   "hub_cache_vs_catalog %.2fx (goal: at most 3x)\n",
                   hub, cat, hub / cat);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", cache);
    if (system(cmd) != 0)
        fprintf(stderr, "kvplan-bench: could not remove %s\n", cache);
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : KVPLAN_DEFAULT_GOLDEN;
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        perror(path);
        return 2;
    }
    size_t n = 0, cap = 0;
    kvplan__scenario *all = NULL;
    char *line = NULL;
    size_t line_cap = 0;
    ssize_t len;
    while ((len = getline(&line, &line_cap, f)) != -1) {
        json_t *obj = json_loadb(line, (size_t)len, 0, NULL);
        if (obj == NULL)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 1024;
            kvplan__scenario *grown = realloc(all, cap * sizeof *all);
            if (grown == NULL)
                return 4;
            all = grown;
        }
        if (kvplan__scenario_parse(obj, &all[n], NULL) == KVPLAN_OK)
            n++;
        json_decref(obj);
    }
    free(line);
    fclose(f);
    if (n == 0) {
        fprintf(stderr, "kvplan-bench: no scenario in %s\n", path);
        return 2;
    }

    /* Whole scenarios: repeat the file for at least 0.1 s per trial. */
    double scenario_ns[TRIALS], call_ns[TRIALS];
    for (int t = 0; t < TRIALS; t++) {
        size_t calls = 0;
        double t0 = now_s(), elapsed;
        do {
            for (size_t i = 0; i < n; i++)
                calls += run_scenario(&all[i]);
            elapsed = now_s() - t0;
        } while (elapsed < 0.1);
        scenario_ns[t] = elapsed * 1e9 / (double)calls;
    }

    /* Profiling-path calls on built configurators (those whose first call
     * succeeds, as the anchor does). */
    kvplan_configurator *built = calloc(n, sizeof *built);
    const kvplan__call **first = calloc(n, sizeof *first);
    size_t nb = 0;
    if (built == NULL || first == NULL)
        return 4;
    for (size_t i = 0; i < n; i++) {
        kvplan_pool_config out;
        const kvplan__call *c = &all[i].calls[0];
        if (all[i].num_calls == 0 || c->entry != KVPLAN__CALL_AVAILABLE_BYTES)
            continue;
        if (kvplan_configurator_init(&built[nb], &all[i].rank, NULL) ==
                KVPLAN_OK &&
            kvplan_calculate_pool_sizes(&built[nb], c->value, c->page_size,
                                        &out, NULL) == KVPLAN_OK)
            first[nb++] = c;
    }
    for (int t = 0; t < TRIALS; t++) {
        size_t pcalls = 0;
        double t0 = now_s(), elapsed;
        do {
            for (size_t i = 0; i < nb; i++) {
                kvplan_pool_config out;
                kvplan_calculate_pool_sizes(&built[i], first[i]->value,
                                            first[i]->page_size, &out, NULL);
                sink += out.max_total_num_tokens;
            }
            pcalls += nb;
            elapsed = now_s() - t0;
        } while (elapsed < 0.1);
        call_ns[t] = elapsed * 1e9 / (double)pcalls;
    }
    qsort(scenario_ns, TRIALS, sizeof scenario_ns[0], cmp_double);
    qsort(call_ns, TRIALS, sizeof call_ns[0], cmp_double);

    printf("scenarios: %zu, built configurators: %zu\n", n, nb);
    printf("pools_scenario_ns: %.2f\n", scenario_ns[TRIALS / 2]);
    printf("pools_call_ns: %.2f\n", call_ns[TRIALS / 2]);
    printf("fastest trials: scenario %.2f ns, call %.2f ns\n", scenario_ns[0],
           call_ns[0]);
    kvplan_plan_options_init(&sglang_options);
    sglang_options.gpu_set =
        kvplan_gpu_preset("H100-80GB", &sglang_options.gpu);
    kvplan_engine_options_init(&vllm_options);
    vllm_options.gpu_set = kvplan_gpu_preset("H100-80GB", &vllm_options.gpu);
    double plan_fastest = 0,
           plan = plan_ns("llama-3.1-8b-instruct", sglang_plan,
                          sizeof(kvplan_plan), &plan_fastest);
    if (plan >= 0)
        printf("plan_compute_ns %.0f\nfastest trial: plan %.0f ns\n", plan,
               plan_fastest);
    double engine_fastest = 0,
           engine = plan_ns("gpt-oss-20b", vllm_plan,
                            sizeof(kvplan_engine_plan), &engine_fastest);
    if (engine >= 0)
        printf("engine_compute_ns %.0f (vllm)\nfastest trial: engine %.0f "
               "ns\n",
               engine, engine_fastest);
    static const char *const gpus[] = {"H100-80GB", "H200", "H20", "B200"};
    static const int64_t one_tp[] = {1}, tps[] = {1, 2, 4, 8};
    double by_gpu = sweep_rate(gpus, 4, one_tp, 1);
    double by_tp = sweep_rate(gpus, 1, tps, 4);
    if (by_gpu >= 0 && by_tp >= 0)
        printf("sweep_plans_per_s %.0f (gpu,fraction)\n"
               "sweep_plans_per_s %.0f (tp)\n",
               by_gpu, by_tp);
    hub_cache_bench();
    /* the kvplan beside this program */
    char kvplan[4096];
    snprintf(kvplan, sizeof kvplan, "%s", argv[0]);
    char *slash = strrchr(kvplan, '/');
    snprintf(slash ? slash + 1 : kvplan,
             sizeof kvplan - (size_t)(slash ? slash + 1 - kvplan : 0),
             "kvplan");
    fflush(stdout); /* before fork: the children must not write it again */
    double proc = process_ms(kvplan);
    if (proc >= 0)
        printf("plan_process_ms: %.2f\n", proc);
    for (size_t i = 0; i < n; i++)
        kvplan__scenario_free(&all[i]);
    free(all);
    free(built);
    free(first);
    return 0;
}
