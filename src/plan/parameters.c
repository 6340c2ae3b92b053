/*
 * parameters.c: a model's parameter count (kvplan_model_parameters): the
 * weight estimate's tensors over the whole model, each counted once, as a
 * model card publishes it and as transformers' model classes build it
 * (tests/test_census.c checks it against them).
 */
#include "plan/plan.h"

#include <string.h>

kvplan_status kvplan_model_parameters(const kvplan_model *model,
                                      kvplan_model_params *out,
                                      kvplan_error *err)
{
    KVPLAN__FAIL_IF(model == NULL || out == NULL, err, KVPLAN_INVALID_ARGUMENT,
                    NULL,
                    "kvplan_model_parameters needs a model and a count to "
                    "fill; got NULL");
    memset(out, 0, sizeof *out);
    kvplan__weights_request rq = {
        .shape = &model->weights,
        .dtype_bytes = 2, /* a count: the dtype does not matter */
        .tp = 1,
        .attn_tp = 1,
        .start_layer = 0,
        .end_layer = (double)model->info.num_hidden_layers,
        .first_stage = true,
        .last_stage = true,
        .params = true,
    };
    kvplan__weights_estimate_out e;
    memset(&e, 0, sizeof e);
    kvplan__weights_estimate(&rq, &e);
    bool ovf = false;
    kvplan_model_params n = {
        .total = kvplan__trunc(e.model_params, &ovf),
        .embed = kvplan__trunc(e.embed_params, &ovf),
        .lm_head = kvplan__trunc(e.head_params, &ovf),
        .vision = kvplan__trunc(e.vision_params, &ovf),
    };
    KVPLAN__FAIL_IF(e.beyond || ovf, err, KVPLAN_OVERFLOW, "/hidden_size",
                    "config.json's sizes (hidden_size, intermediate_size, "
                    "the expert counts, vocab_size) make more parameters "
                    "than 64 bits count");
    *out = n;
    return kvplan__ok(err);
}
