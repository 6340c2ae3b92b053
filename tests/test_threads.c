/*
 * test_threads.c: "thread-safe, no global state" checked: 8 threads at
 * once load models, rank them, build configurators, plan and admit
 * requests, on shared
 * read-only models and options, and every answer must equal the one
 * computed alone first. tests/tsan.sh runs it under ThreadSanitizer where
 * clang is installed.
 */
#include "check.h"
#include "kvplan.h"

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
static kvplan_capacity shared_capacity[MODELS]; /* read by every thread */
static kvplan_admission want_admit[MODELS];
static int failures[THREADS];

static int64_t tokens(const kvplan_model *m, kvplan_plan *p)
{
    kvplan_error err;
    if (kvplan_plan_compute(m, &options, p, &err) != KVPLAN_OK)
        return -1;
    return p->max_total_num_tokens;
}

static void *work(void *arg)
{
    int id = (int)(intptr_t)arg;
    kvplan_plan *p = malloc(sizeof *p);
    for (int round = 0; p != NULL && round < ROUNDS; round++) {
        size_t k = (size_t)(round + id) % MODELS;
        failures[id] += tokens(models[k], p) != want[k];
        /* a model loaded here, freed here */
        kvplan_model *own = NULL;
        kvplan_error err;
        if (round % 20 == 0) {
            failures[id] += kvplan_model_load(names[k], &own, &err) !=
                            KVPLAN_OK;
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
            failures[id] += memcmp(a.cost, want_admit[k].cost,
                                   sizeof a.cost) != 0 ||
                            a.admit != want_admit[k].admit;
        char buf[32];
        failures[id] += kvplan_format_double(0.1 * round, buf, sizeof buf) == 0;
        kvplan_gpu g;
        failures[id] += !kvplan_gpu_preset("h200", &g);
    }
    free(p);
    return NULL;
}

int main(void)
{
    kvplan_error err;
    kvplan_plan_options_init(&options);
    options.server.tp_size = 8;
    CHECK(kvplan_gpu_preset("H200", &options.gpu));
    options.gpu_set = true;
    kvplan_plan *p = malloc(sizeof *p);
    for (size_t k = 0; k < MODELS; k++) {
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
    return check_report();
}
