/*
 * test_threads.c: "thread-safe, no global state" checked: 8 threads at
 * once load models, rank them, build configurators, plan and admit
 * requests, on shared read-only models and options; and 8 threads of
 * kvplan_json (and of sessions) mix plans, fits and sweeps ranked by
 * different keys (the command's sweep once sorted with a static key that
 * one thread's call set for another's). Every answer must equal the one
 * computed alone first. tests/tsan.sh runs it under ThreadSanitizer where
 * clang is installed, over every file of the library.
 */
#include "check.h"
#include "kvplan.h"
#include "kvplan_json.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 8
#define ROUNDS 200

static const char *const names[] = {"llama-3.1-8b-instruct", "deepseek-v3.2",
                                    "gpt-oss-120b", "deepseek-v4-flash",
                                    "qwen3-next-80b-a3b-thinking"};
#define MODELS (sizeof names / sizeof names[0])

static kvplan_model *models[MODELS];
static kvplan_plan_options options;
static int64_t want[MODELS];
/* the same models under 6 option sets in turn (TP 2, 4, 8 and two
 * fractions): more fronts than a model keeps (src/plan/cache.c), so that
 * the threads keep, replace and restore them at once */
#define VARIANTS 6
static kvplan_plan_options variant[VARIANTS];
static int64_t want_variant[MODELS][VARIANTS];
static kvplan_capacity shared_capacity[MODELS]; /* read by every thread */
static kvplan_admission want_admit[MODELS];
static int failures[THREADS];

static int64_t tokens_with(const kvplan_model *m, const kvplan_plan_options *o,
                           kvplan_plan *p)
{
    kvplan_error err;
    if (kvplan_plan_compute(m, o, p, &err) != KVPLAN_OK)
        return -1;
    return p->max_total_num_tokens;
}

static int64_t tokens(const kvplan_model *m, kvplan_plan *p)
{
    return tokens_with(m, &options, p);
}

static void *work(void *arg)
{
    int id = (int)(intptr_t)arg;
    kvplan_plan *p = malloc(sizeof *p);
    for (int round = 0; p != NULL && round < ROUNDS; round++) {
        size_t k = (size_t)(round + id) % MODELS;
        failures[id] += tokens(models[k], p) != want[k];
        size_t v = (size_t)(round * 7 + id) % VARIANTS;
        failures[id] +=
            tokens_with(models[k], &variant[v], p) != want_variant[k][v];
        /* a model loaded here, freed here */
        kvplan_model *own = NULL;
        kvplan_error err;
        if (round % 20 == 0) {
            failures[id] +=
                kvplan_model_load(names[k], &own, &err) != KVPLAN_OK;
            failures[id] += own != NULL && tokens(own, p) != want[k];
            kvplan_model_free(own);
        }
        /* admission on a capacity every thread reads */
        kvplan_usage u = {.running_requests = round % 4};
        u.used[0] = 1000 * round;
        kvplan_admission a;
        failures[id] += kvplan_admit(&shared_capacity[k], &u, 4000, 96, &a,
                                     NULL) != KVPLAN_OK;
        if (round == 0)
            failures[id] +=
                memcmp(a.cost, want_admit[k].cost, sizeof a.cost) != 0 ||
                a.admit != want_admit[k].admit;
        char buf[32];
        failures[id] += kvplan_format_double(0.1 * round, buf, sizeof buf) == 0;
        kvplan_gpu g;
        failures[id] += !kvplan_gpu_preset("h200", &g);
    }
    free(p);
    return NULL;
}

/* The JSON entry point's questions, mixed. */
static const char *const requests[] = {
    "{\"command\": \"sweep\", \"model\": \"llama-3.1-8b-instruct\", "
    "\"flags\": {\"gpu\": [\"H100-80GB\", \"L4\", \"H200\"], \"tp_size\": "
    "[1, 2], \"rank_by\": \"gpus\"}}",
    "{\"command\": \"sweep\", \"model\": \"llama-3.1-8b-instruct\", "
    "\"flags\": {\"gpu\": [\"H100-80GB\", \"L4\", \"H200\"], \"tp_size\": "
    "[1, 2], \"rank_by\": \"tokens\"}}",
    "{\"command\": \"sweep\", \"model\": \"gpt-oss-120b\", \"flags\": "
    "{\"gpu\": [\"H200\", \"B200\"], \"mem_fraction_static\": [0.8, 0.9], "
    "\"rank_by\": \"longest-request\"}}",
    "{\"command\": \"fit\", \"model\": \"qwen3-8b\", \"flags\": {\"gpu\": "
    "\"L4\", \"concurrency\": 4}}",
    "{\"model\": \"deepseek-v3\", \"flags\": {\"gpu\": \"H200\", "
    "\"tp_size\": 8}}",
    "{\"command\": \"compare\", \"model\": \"gpt-oss-120b\"}",
    "{\"command\": \"solve\", \"model\": \"qwen3-8b\", \"flags\": "
    "{\"target_tokens\": 100000}}",
    "{\"flags\": {\"tp_size\": true}}"};
#define REQUESTS (sizeof requests / sizeof requests[0])
static char *alone[REQUESTS];

static void *json_work(void *arg)
{
    int id = (int)(intptr_t)arg;
    /* half the threads through a session of their own */
    kvplan_json_session *s = id % 2 ? kvplan_json_session_new() : NULL;
    for (int round = 0; round < 6; round++)
        for (size_t j = 0; j < REQUESTS; j++) {
            size_t i = (j + (size_t)id) % REQUESTS;
            char *r = NULL;
            kvplan_json_session_call(s, requests[i], strlen(requests[i]), &r,
                                     NULL);
            failures[id] += r == NULL || strcmp(r, alone[i]) != 0;
            kvplan_json_free(r);
        }
    kvplan_json_session_free(s);
    return NULL;
}

static void test_json_threads(void)
{
    for (size_t i = 0; i < REQUESTS; i++) {
        kvplan_json(requests[i], strlen(requests[i]), &alone[i], NULL);
        CHECK(alone[i] != NULL);
    }
    /* the two sweeps differ only in their key, and so do their orders */
    CHECK(alone[0] != NULL && alone[1] != NULL &&
          strcmp(alone[0], alone[1]) != 0);
    memset(failures, 0, sizeof failures);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        CHECK_INT(pthread_create(&t[i], NULL, json_work, (void *)(intptr_t)i),
                  0);
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        CHECK_INT(failures[i], 0);
    }
    for (size_t i = 0; i < REQUESTS; i++)
        kvplan_json_free(alone[i]);
}

int main(void)
{
    kvplan_error err;
    kvplan_plan_options_init(&options);
    options.server.tp_size = 8;
    CHECK(kvplan_gpu_preset("H200", &options.gpu));
    options.gpu_set = true;
    kvplan_plan *p = malloc(sizeof *p);
    for (size_t v = 0; v < VARIANTS; v++) {
        variant[v] = options;
        variant[v].server.tp_size = (int64_t)2 << (v % 3);
        variant[v].mem_fraction_static =
            (kvplan_opt_double){v < 3 ? 0.8 : 0.85, true};
    }
    for (size_t k = 0; k < MODELS; k++) {
        /* each variant's answer on a handle of its own, nothing kept */
        for (size_t v = 0; v < VARIANTS; v++) {
            kvplan_model *fresh = NULL;
            CHECK_INT(kvplan_model_load(names[k], &fresh, &err), KVPLAN_OK);
            want_variant[k][v] = tokens_with(fresh, &variant[v], p);
            kvplan_model_free(fresh);
        }
        CHECK_INT(kvplan_model_load(names[k], &models[k], &err), KVPLAN_OK);
        want[k] = tokens(models[k], p);
        CHECK(want[k] > 0);
        shared_capacity[k] = p->capacity; /* the plan tokens() made */
        kvplan_usage u0 = {0};
        CHECK_INT(kvplan_admit(&shared_capacity[k], &u0, 4000, 96,
                               &want_admit[k], NULL),
                  KVPLAN_OK);
        CHECK(want_admit[k].admit);
    }
    free(p);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        CHECK_INT(pthread_create(&t[i], NULL, work, (void *)(intptr_t)i), 0);
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        CHECK_INT(failures[i], 0);
    }
    for (size_t k = 0; k < MODELS; k++)
        kvplan_model_free(models[k]);
    test_json_threads();
    return check_report();
}
