/*
 * errors.c: status names and the one function that fills a kvplan_error.
 *
 * The names, kinds and values come from KVPLAN_STATUS_LIST in kvplan.h, so
 * the table below cannot drift from the enum.
 */
#include "common/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *kvplan_status_name(kvplan_status status)
{
    switch (status) {
#define KVPLAN_X_NAME(name, value, kind, text)                                 \
    case KVPLAN_##name:                                                        \
        return "KVPLAN_" #name;
        KVPLAN_STATUS_LIST(KVPLAN_X_NAME)
#undef KVPLAN_X_NAME
    }
    return "KVPLAN_UNKNOWN";
}

const char *kvplan_status_kind(kvplan_status status)
{
    switch (status) {
#define KVPLAN_X_KIND(name, value, kind, text)                                 \
    case KVPLAN_##name:                                                        \
        return kind;
        KVPLAN_STATUS_LIST(KVPLAN_X_KIND)
#undef KVPLAN_X_KIND
    }
    return "unknown";
}

const char *kvplan_status_message(kvplan_status status)
{
    switch (status) {
#define KVPLAN_X_TEXT(name, value, kind, text)                                 \
    case KVPLAN_##name:                                                        \
        return text;
        KVPLAN_STATUS_LIST(KVPLAN_X_TEXT)
#undef KVPLAN_X_TEXT
    }
    return "an unknown status";
}

kvplan_status kvplan__fail(kvplan_error *err, kvplan_status code,
                           const char *field, const char *fmt, ...)
{
    if (err == NULL)
        return code;
    memset(err, 0, sizeof *err);
    err->code = code;
    if (field != NULL)
        snprintf(err->field, sizeof err->field, "%s", field);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return code;
}

const char *kvplan_version(void)
{
    return KVPLAN_VERSION_STRING;
}

unsigned kvplan_version_number(void)
{
    return KVPLAN_VERSION_NUMBER;
}

size_t kvplan_struct_size(const char *name)
{
#define KVPLAN_X_SIZE(type) {#type, sizeof(type)},
    static const struct {
        const char *name;
        size_t size;
    } sizes[] = {
        /* clang-format off */
        KVPLAN_X_SIZE(kvplan_error)
        KVPLAN_X_SIZE(kvplan_opt_int)
        KVPLAN_X_SIZE(kvplan_opt_double)
        KVPLAN_X_SIZE(kvplan_ids)
        KVPLAN_X_SIZE(kvplan_rank)
        KVPLAN_X_SIZE(kvplan_configurator_terms)
        KVPLAN_X_SIZE(kvplan_configurator)
        KVPLAN_X_SIZE(kvplan_pool_config)
        KVPLAN_X_SIZE(kvplan_model_info)
        KVPLAN_X_SIZE(kvplan_server_args)
        KVPLAN_X_SIZE(kvplan_gpu)
        KVPLAN_X_SIZE(kvplan_plan_options)
        KVPLAN_X_SIZE(kvplan_allocation)
        KVPLAN_X_SIZE(kvplan_stage_plan)
        KVPLAN_X_SIZE(kvplan_weight_tensor)
        KVPLAN_X_SIZE(kvplan_warning)
        KVPLAN_X_SIZE(kvplan_budget)
        KVPLAN_X_SIZE(kvplan_pool_info)
        KVPLAN_X_SIZE(kvplan_capacity)
        KVPLAN_X_SIZE(kvplan_usage)
        KVPLAN_X_SIZE(kvplan_admission)
        KVPLAN_X_SIZE(kvplan_plan)
        KVPLAN_X_SIZE(kvplan_target)
        KVPLAN_X_SIZE(kvplan_hub_options)
        KVPLAN_X_SIZE(kvplan_hub_result)
        KVPLAN_X_SIZE(kvplan_solution)
        KVPLAN_X_SIZE(kvplan_log_args)
        KVPLAN_X_SIZE(kvplan_log_rank)
        KVPLAN_X_SIZE(kvplan_log_readings)
        KVPLAN_X_SIZE(kvplan_log_cause)
        KVPLAN_X_SIZE(kvplan_log_result)
        KVPLAN_X_SIZE(kvplan_engine_options)
        KVPLAN_X_SIZE(kvplan_engine_group)
        KVPLAN_X_SIZE(kvplan_engine_plan)
        KVPLAN_X_SIZE(kvplan_fleet)
        KVPLAN_X_SIZE(kvplan_option)
        KVPLAN_X_SIZE(kvplan_options)
        KVPLAN_X_SIZE(kvplan_loaded)
        KVPLAN_X_SIZE(kvplan_sweep_axis)
        KVPLAN_X_SIZE(kvplan_sweep_row)
        KVPLAN_X_SIZE(kvplan_version_figures)
        KVPLAN_X_SIZE(kvplan_rule_delta)
        KVPLAN_X_SIZE(kvplan_version_comparison)
        KVPLAN_X_SIZE(kvplan_engine_column)
        KVPLAN_X_SIZE(kvplan_comparison)
        KVPLAN_X_SIZE(kvplan_vllm_log_readings)
        KVPLAN_X_SIZE(kvplan_vllm_log_result)
        KVPLAN_X_SIZE(kvplan_vllm_calibration)
        KVPLAN_X_SIZE(kvplan_trtllm_log_readings)
        KVPLAN_X_SIZE(kvplan_trtllm_log_result)
        KVPLAN_X_SIZE(kvplan_trtllm_calibration)
        KVPLAN_X_SIZE(kvplan_engine_version_figures)
        KVPLAN_X_SIZE(kvplan_engine_rule_delta)
        KVPLAN_X_SIZE(kvplan_engine_version_comparison)
        KVPLAN_X_SIZE(kvplan_trtllm_version_comparison)
        /* clang-format on */
    };
#undef KVPLAN_X_SIZE
    for (size_t i = 0; name != NULL && i < sizeof sizes / sizeof sizes[0]; i++)
        if (strcmp(sizes[i].name, name) == 0)
            return sizes[i].size;
    return 0;
}

const char *kvplan_source_name(kvplan_source source)
{
    switch (source) {
    case KVPLAN_SOURCE_GIVEN:
        return "given";
    case KVPLAN_SOURCE_MEASURED:
        return "measured";
    case KVPLAN_SOURCE_PRESET:
        return "preset";
    case KVPLAN_SOURCE_ESTIMATED:
        return "estimated";
    case KVPLAN_SOURCE_EXACT:
        return "exact";
    }
    return "?";
}
