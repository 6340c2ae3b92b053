/*
 * options.c: a plan's options, requested: their defaults and their checks.
 * Every bound lives here (and in kvplan__server_args_check for the server
 * flags), so an embedder who never passes through the command gets the
 * same refusals, each naming its flag.
 */
#include "plan/plan.h"

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

/* A word flag: NULL (absent) or one of `set`'s words. */
static kvplan_status check_word(const char *value, kvplan_word_set set,
                                const char *flag, kvplan_error *err)
{
    if (value == NULL || kvplan_word_value(set, value, NULL))
        return KVPLAN_OK;
    char list[320] = "";
    size_t n = 0;
    const char *w;
    for (size_t i = 0; (w = kvplan_word_at(set, i, NULL)) && n < sizeof list;
         i++)
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%s",
                              i ? ", " : "", w);
    return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, flag,
                        "%s '%.40s' is not one of sglang's: %s", flag, value,
                        list);
}

/* An optional double in (0, hi), NaN refused. */
static kvplan_status check_open_range(kvplan_opt_double x, double hi,
                                      const char *flag, const char *what,
                                      kvplan_error *err)
{
    KVPLAN__FAIL_IF(x.set && !(x.value > 0 && x.value < hi), err,
                    KVPLAN_INVALID_ARGUMENT, flag, "%s must be %s, got %g",
                    flag, what, x.value);
    return KVPLAN_OK;
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

/* The fraction and the GPU: all kvplan_plan_update checks of options that
 * differ from valid ones only in them. */
kvplan_status kvplan__check_budget_options(const kvplan_plan_options *o,
                                           kvplan_error *err)
{
    KVPLAN__TRY(check_open_range(o->mem_fraction_static, 1,
                                 "--mem-fraction-static", "a fraction in (0, 1)",
                                 err));
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
    return KVPLAN_OK;
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
    KVPLAN__TRY(kvplan__check_opt_least(o->context_bytes, 0, "context_bytes",
                                        err));
    KVPLAN__TRY(kvplan__check_opt_least(o->rank_weight_bytes, 0,
                                        "rank_weight_bytes", err));
    KVPLAN__FAIL_IF(o->attention_backend != NULL &&
                        !kvplan_word_value(KVPLAN_WORDS_ATTENTION_BACKEND,
                                           o->attention_backend, NULL),
                    err, KVPLAN_INVALID_ARGUMENT, "--attention-backend",
                    "--attention-backend '%.40s' is not one of sglang's "
                    "attention backends (kvplan_word_at lists them)",
                    o->attention_backend);
    KVPLAN__TRY(check_word(o->quantization, KVPLAN_WORDS_QUANTIZATION,
                           "--quantization", err));
    KVPLAN__TRY(check_word(o->moe_a2a_backend, KVPLAN_WORDS_MOE_A2A_BACKEND,
                           "--moe-a2a-backend", err));
    KVPLAN__TRY(check_word(o->mamba_ssm_dtype, KVPLAN_WORDS_MAMBA_SSM_DTYPE,
                           "--mamba-ssm-dtype", err));
    KVPLAN__TRY(check_word(o->SGLANG_MAMBA_SSM_DTYPE,
                           KVPLAN_WORDS_MAMBA_SSM_DTYPE,
                           "SGLANG_MAMBA_SSM_DTYPE", err));
    KVPLAN__TRY(check_divides(o->ep_size, o->server.tp_size, "--ep-size", err));
    KVPLAN__TRY(
        check_divides(o->dcp_size, o->server.tp_size, "--dcp-size", err));
    KVPLAN__TRY(kvplan__check_opt_least(o->max_mamba_cache_size, 1,
                                        "--max-mamba-cache-size", err));
    KVPLAN__TRY(check_open_range(o->mamba_full_memory_ratio, 1e6,
                                 "--mamba-full-memory-ratio",
                                 "a positive ratio", err));
    KVPLAN__FAIL_IF(kvplan_sglang_profile_name(o->sglang_version) == NULL,
                    err, KVPLAN_INVALID_ARGUMENT, "--sglang-version",
                    "--sglang-version: %d is not a kvplan_sglang_profile",
                    (int)o->sglang_version);
    KVPLAN__TRY(kvplan__check_opt_least(o->SGLANG_VLM_CACHE_SIZE_MB, 0,
                                        "SGLANG_VLM_CACHE_SIZE_MB", err));
    KVPLAN__TRY(kvplan__check_budget_options(o, err));
    return kvplan__ok(err);
}
