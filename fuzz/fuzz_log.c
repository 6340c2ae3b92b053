/*
 * fuzz_log.c: a start-up log, hostile, through the log readers (sglang's
 * and vLLM's, as kvplan_log_engine tells them), the options each gives
 * and the reconciliation (the plans of a loaded model at the log's own
 * figures, and on a preset).
 */
#include "kvplan.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static kvplan_model *model;
    static kvplan_plan *work;
    static kvplan_log_readings r;
    static kvplan_log_result x;
    static kvplan_vllm_log_readings vr;
    static kvplan_vllm_log_result vx;
    if (model == NULL &&
        kvplan_model_load("llama-3.1-8b-instruct", &model, NULL) != KVPLAN_OK)
        return 0;
    if (work == NULL && (work = malloc(sizeof *work)) == NULL)
        return 0;
    kvplan_error err;
    if (kvplan_log_engine((const char *)data, size) == KVPLAN_ENGINE_VLLM &&
        kvplan_vllm_log_parse((const char *)data, size, &vr, &err) ==
            KVPLAN_OK) {
        kvplan_engine_options eo;
        kvplan_engine_options_init(&eo);
        if (kvplan_vllm_log_options(&vr, &eo, &err) == KVPLAN_OK) {
            kvplan_vllm_log_reconcile(model, NULL, &vr, &eo, &vx, &err);
            eo.gpu_set = kvplan_gpu_preset("H100-80GB", &eo.gpu);
            kvplan_vllm_log_reconcile(model, NULL, &vr, &eo, &vx, &err);
            kvplan_vllm_log_reconcile(NULL, "not found", &vr, &eo, &vx, &err);
        }
    }
    if (kvplan_log_parse((const char *)data, size, &r, &err) != KVPLAN_OK)
        return 0;
    kvplan_plan_options o;
    kvplan_plan_options_init(&o);
    if (kvplan_log_options(&r, &o, &err) != KVPLAN_OK)
        return 0;
    /* with the model, and as a log whose model was not found */
    kvplan_log_reconcile(model, NULL, &r, &o, work, &x, &err);
    kvplan_log_reconcile(NULL, "not found", &r, &o, work, &x, &err);
    return 0;
}
