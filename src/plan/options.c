/*
 * options.c: a plan's options, requested: their defaults and their checks.
 * Every bound lives here (and in kvplan__server_args_check for the server
 * flags), so an embedder who never passes through the command gets the
 * same refusals, each naming its flag.
 */
#include "plan/plan.h"

#include <string.h>

void kvplan_plan_options_init(kvplan_plan_options *o)
{
    if (o == NULL)
        return;
    memset(o, 0, sizeof *o);
    o->struct_size = (uint32_t)sizeof *o;
    kvplan_server_args_init(&o->server); /* page size: auto */
}

kvplan_status kvplan_plan_options_validate(const kvplan_plan_options *o,
                                           kvplan_error *err)
{
    KVPLAN__FAIL_IF(o == NULL, err, KVPLAN_INVALID_ARGUMENT, NULL,
                    "kvplan_plan_options_validate needs options; got NULL");
    KVPLAN__FAIL_IF(o->struct_size != sizeof *o, err, KVPLAN_INVALID_ARGUMENT,
                    "struct_size",
                    "kvplan_plan_options.struct_size is %u, expected %zu: "
                    "fill the options with kvplan_plan_options_init() of "
                    "this kvplan.h",
                    (unsigned)o->struct_size, sizeof *o);
    KVPLAN__TRY(kvplan__server_args_check(&o->server, err));
    KVPLAN__FAIL_IF(o->server.pp_size > KVPLAN_MAX_PP_STAGES, err,
                    KVPLAN_UNSUPPORTED, "--pp-size",
                    "--pp-size above %d is not supported",
                    KVPLAN_MAX_PP_STAGES);
    double f = o->mem_fraction_static.value;
    KVPLAN__FAIL_IF(o->mem_fraction_static.set && !(f > 0 && f < 1), err,
                    KVPLAN_INVALID_ARGUMENT, "--mem-fraction-static",
                    "--mem-fraction-static must be a fraction in (0, 1), "
                    "got %g",
                    f);
    KVPLAN__TRY(kvplan__check_opt_least(o->max_total_tokens, 1,
                                        "--max-total-tokens", err));
    KVPLAN__TRY(kvplan__check_opt_least(o->max_prefill_tokens, 1,
                                        "--max-prefill-tokens", err));
    KVPLAN__TRY(kvplan__check_opt_least(o->cuda_graph_max_bs, 1,
                                        "--cuda-graph-max-bs", err));
    KVPLAN__TRY(kvplan__check_opt_least(o->available_bytes, 0,
                                        "--available-bytes", err));
    KVPLAN__TRY(
        kvplan__check_opt_least(o->weight_bytes, 0, "--weight-bytes", err));
    KVPLAN__TRY(kvplan__check_opt_least(o->draft_weight_bytes, 0,
                                        "draft_weight_bytes", err));
    KVPLAN__FAIL_IF(o->attention_backend != NULL &&
                        !kvplan_word_value(KVPLAN_WORDS_ATTENTION_BACKEND,
                                           o->attention_backend, NULL),
                    err, KVPLAN_INVALID_ARGUMENT, "--attention-backend",
                    "--attention-backend '%.40s' is not one of sglang's "
                    "attention backends (kvplan_word_at lists them)",
                    o->attention_backend);
    KVPLAN__FAIL_IF(!o->gpu_set && !o->available_bytes.set, err,
                    KVPLAN_INVALID_ARGUMENT, "--gpu",
                    "a GPU (--gpu, --gpu-memory) or --available-bytes is "
                    "needed to size the budget");
    double mib = o->gpu.total_mib;
    KVPLAN__FAIL_IF(o->gpu_set && !(mib >= 1.0 && mib <= 0x1p40), err,
                    KVPLAN_INVALID_ARGUMENT, "--gpu-memory",
                    "the GPU's memory must be between 1 MiB and 1 EiB, got "
                    "%g MiB",
                    mib);
    return kvplan__ok(err);
}
