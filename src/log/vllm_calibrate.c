/*
 * vllm_calibrate.c: a vLLM log's budget as engine options' terms (kvplan
 * log --calibrate on a vLLM log, docs/log.md "Calibrating from a log").
 * vLLM's own sum, gpu_worker.py: available = requested - weights - peak
 * activation - non-torch - CUDA graphs (from 0.20), requested =
 * ceil(total x gpu_memory_utilization). What the log prints is taken as
 * printed; what it does not, the rest of the sum, is the activation's.
 */
#include "budget/budget.h"
#include "log/log.h"

#include <math.h>
#include <string.h>

#define GIB 1073741824.0

kvplan_status kvplan_vllm_log_calibrate(const kvplan_vllm_log_readings *r,
                                        const kvplan_engine_options *o,
                                        kvplan_vllm_calibration *out,
                                        kvplan_error *err)
{
    KVPLAN__FAIL_IF(r == NULL || o == NULL || out == NULL, err,
                    KVPLAN_INVALID_ARGUMENT, NULL,
                    "kvplan_vllm_log_calibrate: readings, options and out "
                    "must not be NULL");
    memset(out, 0, sizeof *out);
    KVPLAN__FAIL_IF(!r->weights_gib.set || !r->available_gib.set, err,
                    KVPLAN_INVALID_ARGUMENT, "--calibrate",
                    "--calibrate: the log prints no %s, which a calibration "
                    "needs",
                    r->weights_gib.set ? "\"Available KV cache memory\""
                                       : "\"Model loading took X GiB\"");
    KVPLAN__FAIL_IF(!r->total_gib.set && !o->gpu_set, err,
                    KVPLAN_INVALID_ARGUMENT, "--gpu",
                    "--calibrate: the log prints no total memory; name its "
                    "GPU with --gpu");
    uint64_t rules = kvplan_vllm_rules(o->vllm_version) ^ o->vllm_rules_flip;
    out->total_from_log = r->total_gib.set;
    double total = r->total_gib.set ? r->total_gib.value * GIB
                                    : kvplan__gpu_cuda_total(&o->gpu, NULL);
    out->total_gib = total / GIB;
    out->utilization = o->gpu_memory_utilization.set
                           ? o->gpu_memory_utilization.value
                       : rules & KVPLAN_VLLM_RULE_UTILIZATION_090 ? 0.9
                                                                  : 0.92;
    double requested = ceil(total * out->utilization);
    double weights = r->weights_gib.value * GIB;
    double graphs = !(rules & KVPLAN_VLLM_RULE_GRAPHS_UNCOUNTED) &&
                            r->graph_estimate_gib.set
                        ? r->graph_estimate_gib.value * GIB
                        : 0;
    out->rank_weight_bytes = (int64_t)weights;
    out->cuda_graph_bytes = (int64_t)graphs;
    /* 0.28's "X GiB for consumed memory (weights + non-torch)" holds the
     * non-torch memory where no line prints it alone */
    double nt = r->non_torch_gib.set  ? r->non_torch_gib.value * GIB
                : r->consumed_gib.set ? r->consumed_gib.value * GIB - weights
                                      : -1;
    if (r->activation_gib.set && nt >= 0) {
        out->activation_bytes = (int64_t)(r->activation_gib.value * GIB);
        out->non_torch_bytes = (int64_t)nt;
        return kvplan__ok(err);
    }
    double rest = requested - weights - graphs - r->available_gib.value * GIB;
    KVPLAN__FAIL_IF(!(rest > 0), err, KVPLAN_INVALID_ARGUMENT, "--gpu",
                    "--calibrate: on %.2f GiB at utilization %.4g the log's "
                    "weights (%.2f GiB) and available memory (%.2f GiB) "
                    "leave nothing for the activation: not the GPU it ran on",
                    total / GIB, out->utilization, r->weights_gib.value,
                    r->available_gib.value);
    out->folded = true;
    out->activation_bytes = (int64_t)rest;
    return kvplan__ok(err);
}
