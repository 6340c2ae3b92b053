/*
 * engine_plan.h: an engine's plan of a catalog model, for the engine
 * tests (test_engines, test_trtllm_v2).
 */
#ifndef KVPLAN_TESTS_ENGINE_PLAN_H
#define KVPLAN_TESTS_ENGINE_PLAN_H

#include "check.h"
#include "kvplan.h"

#include <stdio.h>
#include <string.h>

/* kvplan_engine_compute of `model` under `o`, checked to return `want`
 * (its message printed when not); `err` may be NULL. */
static inline kvplan_engine_plan plan(const char *model,
                                      kvplan_engine_options *o,
                                      kvplan_status want, kvplan_error *err)
{
    kvplan_model *m = NULL;
    kvplan_error e;
    if (err == NULL)
        err = &e;
    kvplan_engine_plan p;
    memset(&p, 0, sizeof p);
    CHECK_INT(kvplan_model_load(model, &m, err), KVPLAN_OK);
    kvplan_status st = kvplan_engine_compute(m, o, &p, err);
    CHECK_INT(st, want);
    if (st != want)
        fprintf(stderr, "  %s: %s\n", model, err->message);
    kvplan_model_free(m);
    return p;
}

/* TensorRT-LLM's use_kv_cache_manager_v2 as given: 2 true, 1 false, 0
 * neither (auto: the release's default for the model). */
static inline void manager(kvplan_engine_options *o, int v)
{
    o->use_kv_cache_manager_v2 = v == 2;
    o->no_use_kv_cache_manager_v2 = v == 1;
}

/* TensorRT-LLM on the `gpu` preset at TP `tp`, its manager the
 * release's default for the model. */
static inline kvplan_engine_options trtllm_on(const char *gpu, int64_t tp)
{
    kvplan_engine_options o;
    kvplan_engine_options_init(&o);
    CHECK(kvplan_gpu_preset(gpu, &o.gpu));
    o.gpu_set = true;
    o.tp_size = tp;
    o.engine = KVPLAN_ENGINE_TRTLLM;
    return o;
}

/* TensorRT-LLM on the H100 preset at TP `tp`, its KV cache manager V2
 * where `v2`, else V1, each asked for (the TensorRT-LLM tests' start). */
static inline kvplan_engine_options trtllm_options(int64_t tp, bool v2)
{
    kvplan_engine_options o = trtllm_on("H100-80GB", tp);
    manager(&o, v2 ? 2 : 1);
    return o;
}

#endif
