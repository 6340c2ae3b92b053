/*
 * fuzz_log.c: an sglang start-up log, hostile, through the log reader,
 * the options it gives and the reconciliation (three plans of a loaded
 * model on the GPU the log's free memory implies).
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
    if (model == NULL &&
        kvplan_model_load("llama-3.1-8b-instruct", &model, NULL) != KVPLAN_OK)
        return 0;
    if (work == NULL && (work = malloc(sizeof *work)) == NULL)
        return 0;
    kvplan_error err;
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
