/*
 * options.c: a plan's options, requested: their defaults and their checks.
 * The bounds and words of every flag are the option table's
 * (common/option_table.c), checked here over the stored values, so an
 * embedder who never passes through the command gets the same refusals,
 * each naming its flag; the checks here are those no single flag's bound
 * says (ep and dcp divide tp, the GPU or the bytes are needed).
 */
#include "plan/plan.h"

#include "common/option_table.h"

#include <stdio.h>
#include <string.h>

void kvplan_plan_options_init(kvplan_plan_options *o)
{
    if (o == NULL)
        return;
    memset(o, 0, sizeof *o);
    o->struct_size = (uint32_t)sizeof *o;
    kvplan_server_args_init(&o->server); /* page size: auto */
    o->ep_size = 1;
    o->dcp_size = 1;
}

/* A parallel size that must divide --tp-size. */
static kvplan_status check_divides(int64_t x, int64_t tp, const char *flag,
                                   kvplan_error *err)
{
    KVPLAN__TRY(kvplan__check_least(x, 1, flag, err));
    KVPLAN__FAIL_IF(tp % x != 0, err, KVPLAN_INVALID_ARGUMENT, flag,
                    "%s must divide --tp-size %lld, got %lld", flag,
                    (long long)tp, (long long)x);
    return KVPLAN_OK;
}

/* A GPU or the bytes a budget is sized from. */
static kvplan_status check_gpu(const kvplan_plan_options *o, kvplan_error *err)
{
    KVPLAN__FAIL_IF(!o->gpu_set && !o->available_bytes.set, err,
                    KVPLAN_INVALID_ARGUMENT, "--gpu",
                    "a GPU (--gpu, --gpu-memory) or --available-bytes is "
                    "needed to size the budget");
    return o->gpu_set ? kvplan__check_gpu_memory(&o->gpu, err) : KVPLAN_OK;
}

/* The fraction and the GPU: all kvplan_plan_update checks of options that
 * differ from valid ones only in them. */
kvplan_status kvplan__check_budget_options(const kvplan_plan_options *o,
                                           kvplan_error *err)
{
    KVPLAN__TRY(kvplan__options_check_fraction(o, err));
    return check_gpu(o, err);
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
    /* the server args' rows and the plan's, in one walk of the table */
    KVPLAN__TRY(kvplan__server_args_check_with(&o->server, o, err));
    KVPLAN__FAIL_IF(o->server.pp_size > KVPLAN_MAX_PP_STAGES, err,
                    KVPLAN_UNSUPPORTED, "--pp-size",
                    "--pp-size above %d is not supported",
                    KVPLAN_MAX_PP_STAGES);
    /* the values no flag sets: measured, or a calibration's */
    KVPLAN__TRY(kvplan__check_opt_least(o->draft_weight_bytes, 0,
                                        "draft_weight_bytes", err));
    KVPLAN__TRY(
        kvplan__check_opt_least(o->context_bytes, 0, "context_bytes", err));
    KVPLAN__TRY(kvplan__check_opt_least(o->rank_weight_bytes, 0,
                                        "rank_weight_bytes", err));
    KVPLAN__FAIL_IF(o->SGLANG_MAMBA_SSM_DTYPE != NULL &&
                        !kvplan_word_value(KVPLAN_WORDS_MAMBA_SSM_DTYPE,
                                           o->SGLANG_MAMBA_SSM_DTYPE, NULL),
                    err, KVPLAN_INVALID_ARGUMENT, "SGLANG_MAMBA_SSM_DTYPE",
                    "SGLANG_MAMBA_SSM_DTYPE '%.40s' is not one of sglang's: "
                    "float32, bfloat16, float16",
                    o->SGLANG_MAMBA_SSM_DTYPE);
    KVPLAN__TRY(check_divides(o->ep_size, o->server.tp_size, "--ep-size", err));
    KVPLAN__TRY(
        check_divides(o->dcp_size, o->server.tp_size, "--dcp-size", err));
    KVPLAN__FAIL_IF(kvplan_sglang_profile_name(o->sglang_version) == NULL, err,
                    KVPLAN_INVALID_ARGUMENT, "--sglang-version",
                    "--sglang-version: %d is not a kvplan_sglang_profile",
                    (int)o->sglang_version);
    KVPLAN__TRY(kvplan__check_opt_least(o->SGLANG_VLM_CACHE_SIZE_MB, 0,
                                        "SGLANG_VLM_CACHE_SIZE_MB", err));
    KVPLAN__TRY(check_gpu(o, err)); /* the fraction was a row of the walk */
    return kvplan__ok(err);
}
