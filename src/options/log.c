/*
 * log.c: kvplan log's question (docs/log.md): a log's readings, the
 * options its server arguments give with the caller's over them, its
 * model (the caller's, else the log's model_path as a path, a Hub id made
 * of its last two parts, or a catalog name), its draft, and the plan
 * reconciled with what it printed; and what a calibration needs of it.
 * A vLLM log the same: its arguments as engine options, its model, the
 * interval from its own available memory.
 */
#include "options/options.h"

#include <stdio.h>
#include <string.h>

/* The log's model: the options', else its model_path as given, as a Hub
 * id (the last two parts of a local path that is not here) or a name. */
static kvplan_model *log_model(const kvplan_options *o, const char *logged,
                               kvplan__log_answer *a)
{
    const char *name = o->model_path != NULL ? o->model_path : logged;
    kvplan_model *m = NULL;
    kvplan_error err;
    a->model_name = name;
    if (name == NULL || name[0] == '\0') {
        snprintf(a->why, sizeof a->why,
                 "the log prints no model_path (pass --model-path: a "
                 "catalog name, a Hugging Face id or a model directory)");
        return NULL;
    }
    if (kvplan_model_load_override(name, o->model_override_args, &m, &err) ==
        KVPLAN_OK)
        return m;
    if (err.code != KVPLAN_IO) { /* found, and refused */
        snprintf(a->why, sizeof a->why, "%.511s", err.message);
        return NULL;
    }
    /* "/home/model/Qwen/QwQ-32B": try "Qwen/QwQ-32B", then "QwQ-32B" */
    const char *last = strrchr(name, '/'), *two = NULL;
    for (const char *p = last; p != NULL && p > name; p--)
        if (p[-1] == '/') {
            two = p;
            break;
        }
    const char *tries[2] = {two, last != NULL ? last + 1 : NULL};
    for (int i = 0; i < 2; i++) {
        if (tries[i] == NULL || tries[i][0] == '\0')
            continue;
        if (kvplan_model_load_override(tries[i], o->model_override_args, &m,
                                       NULL) == KVPLAN_OK) {
            a->model_name = tries[i];
            return m;
        }
    }
    snprintf(a->why, sizeof a->why,
             "the log's model_path '%.120s' is not a model directory here nor "
             "a catalog model (kvplan --list-models): pass --model-path",
             name);
    return NULL;
}

kvplan_status kvplan__log_question(kvplan_options *o,
                                   const kvplan_log_readings *r,
                                   kvplan_plan *work, kvplan_log_result *x,
                                   kvplan__log_answer *a, kvplan_error *err)
{
    memset(a, 0, sizeof *a);
    /* a GPU only when named: else reconcile infers it from the log */
    if (o->internal_.gpu_text != NULL || o->gpu_memory_mib.set)
        KVPLAN__TRY(kvplan__options_resolve_gpu(o, NULL, err));
    a->model = log_model(o, r->args.model_path, a);
    const char *draft = o->draft_model_path != NULL
                            ? o->draft_model_path
                            : r->args.speculative_draft_model_path;
    if (a->model != NULL && draft[0] != '\0' &&
        kvplan_model_load(draft, &a->draft, NULL) == KVPLAN_OK)
        o->plan.server.speculative_draft_model = a->draft;
    KVPLAN__TRY(
        kvplan_log_reconcile(a->model, a->why, r, &o->plan, work, x, err));
    if (a->model != NULL)
        a->model_name = kvplan_model_get_info(a->model)->name;
    return KVPLAN_OK;
}

kvplan_status
kvplan__vllm_log_question(kvplan_options *o, const kvplan_vllm_log_readings *r,
                          kvplan_engine_options *eo, kvplan_vllm_log_result *x,
                          kvplan__log_answer *a, kvplan_error *err)
{
    memset(a, 0, sizeof *a);
    if (o->internal_.gpu_text != NULL || o->gpu_memory_mib.set)
        KVPLAN__TRY(kvplan__options_resolve_gpu(o, NULL, err));
    a->model = log_model(o, r->model, a);
    kvplan_options_engine(o, KVPLAN_ENGINE_VLLM, eo);
    KVPLAN__TRY(kvplan_vllm_log_reconcile(a->model, a->why, r, eo, x, err));
    if (a->model != NULL)
        a->model_name = kvplan_model_get_info(a->model)->name;
    return KVPLAN_OK;
}

kvplan_status kvplan__trtllm_log_question(kvplan_options *o,
                                          const kvplan_trtllm_log_readings *r,
                                          kvplan_engine_options *eo,
                                          kvplan_trtllm_log_result *x,
                                          kvplan__log_answer *a,
                                          kvplan_error *err)
{
    memset(a, 0, sizeof *a);
    if (o->internal_.gpu_text != NULL || o->gpu_memory_mib.set)
        KVPLAN__TRY(kvplan__options_resolve_gpu(o, NULL, err));
    /* TensorRT-LLM's own lines name no model: the caller's */
    a->model = log_model(o, "", a);
    if (a->model == NULL && o->model_path == NULL)
        snprintf(a->why, sizeof a->why,
                 "a TensorRT-LLM log names no model (pass --model-path: a "
                 "catalog name, a Hugging Face id or a model directory)");
    kvplan_options_engine(o, KVPLAN_ENGINE_TRTLLM, eo);
    KVPLAN__TRY(kvplan_trtllm_log_reconcile(a->model, a->why, r, eo, x, err));
    if (a->model != NULL)
        a->model_name = kvplan_model_get_info(a->model)->name;
    return KVPLAN_OK;
}

kvplan_status kvplan__vllm_log_apply(const kvplan_vllm_log_readings *r,
                                     kvplan_options *o, kvplan_error *err)
{
    kvplan_engine_options eo;
    kvplan_options_engine(o, KVPLAN_ENGINE_VLLM, &eo);
    KVPLAN__TRY(kvplan_vllm_log_options(r, &eo, err));
    o->engine_options = eo;
    o->plan.server.tp_size = eo.tp_size;
    o->plan.server.pp_size = eo.pp_size;
    o->plan.server.kv_cache_dtype = eo.kv_cache_dtype;
    o->plan.server.dtype = eo.dtype;
    if (eo.quantization != NULL) /* the log's scheme, under the caller's */
        o->plan.quantization = eo.quantization;
    return KVPLAN_OK;
}

void kvplan__log_answer_free(kvplan__log_answer *a)
{
    kvplan_model_free(a->model);
    kvplan_model_free(a->draft);
    a->model = a->draft = NULL;
}

kvplan_status kvplan__calibration_check(const kvplan_log_readings *r,
                                        const kvplan_log_result *x,
                                        kvplan_error *err)
{
    KVPLAN__FAIL_IF(!r->free_before_gib.set || !kvplan_log_weights_gib(r).set,
                    err, KVPLAN_PARSE, "calibrate",
                    "--calibrate needs the log's \"Load weight begin\" and "
                    "\"Load weight end\" lines");
    KVPLAN__FAIL_IF(x->gpu.total_mib / 1024.0 < r->free_before_gib.value, err,
                    KVPLAN_INVALID_ARGUMENT, "--gpu",
                    "--calibrate: the %s (%.2f GiB) is smaller than the %.2f "
                    "GiB the log saw free: name the GPU it ran on with --gpu",
                    x->gpu.name, x->gpu.total_mib / 1024.0,
                    r->free_before_gib.value);
    return KVPLAN_OK;
}
