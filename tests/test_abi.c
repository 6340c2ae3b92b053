/*
 * test_abi.c: the layout of the public structs is pinned, so that a change
 * of the ABI is deliberate (bump KVPLAN_VERSION_MINOR and the SONAME, and
 * the pins here, in the same commit). kvplan_struct_size() must agree
 * with the header the caller compiled, and the version macros with the
 * library.
 */
#include "check.h"
#include "kvplan.h"

#include <stddef.h>
#include <string.h>

int main(void)
{
    static const struct {
        const char *name;
        size_t size;
        size_t lp64; /* the pinned size on LP64 (x86-64, AArch64) */
    } structs[] = {
        {"kvplan_error", sizeof(kvplan_error), 652},
        {"kvplan_opt_int", sizeof(kvplan_opt_int), 16},
        {"kvplan_opt_double", sizeof(kvplan_opt_double), 16},
        {"kvplan_ids", sizeof(kvplan_ids), 16},
        {"kvplan_rank", sizeof(kvplan_rank), 728},
        {"kvplan_configurator_terms", sizeof(kvplan_configurator_terms), 184},
        {"kvplan_configurator", sizeof(kvplan_configurator), 328},
        {"kvplan_pool_config", sizeof(kvplan_pool_config), 88},
        {"kvplan_model_info", sizeof(kvplan_model_info), 136},
        {"kvplan_server_args", sizeof(kvplan_server_args), 280},
        {"kvplan_gpu", sizeof(kvplan_gpu), 208},
        {"kvplan_plan_options", sizeof(kvplan_plan_options), 784},
        {"kvplan_allocation", sizeof(kvplan_allocation), 48},
        {"kvplan_stage_plan", sizeof(kvplan_stage_plan), 1320},
        {"kvplan_weight_tensor", sizeof(kvplan_weight_tensor), 64},
        {"kvplan_warning", sizeof(kvplan_warning), 256},
        {"kvplan_budget", sizeof(kvplan_budget), 2328},
        {"kvplan_pool_info", sizeof(kvplan_pool_info), 72},
        {"kvplan_capacity", sizeof(kvplan_capacity), 664},
        {"kvplan_usage", sizeof(kvplan_usage), 72},
        {"kvplan_admission", sizeof(kvplan_admission), 80},
        {"kvplan_plan", sizeof(kvplan_plan), 90000},
        {"kvplan_target", sizeof(kvplan_target), 16},
        {"kvplan_hub_options", sizeof(kvplan_hub_options), 96},
        {"kvplan_hub_result", sizeof(kvplan_hub_result), 4168},
        {"kvplan_solution", sizeof(kvplan_solution), 256},
        {"kvplan_log_args", sizeof(kvplan_log_args), 960},
        {"kvplan_log_readings", sizeof(kvplan_log_readings), 4992},
        {"kvplan_log_rank", sizeof(kvplan_log_rank), 56},
        {"kvplan_log_cause", sizeof(kvplan_log_cause), 260},
        {"kvplan_log_result", sizeof(kvplan_log_result), 2432},
        {"kvplan_engine_options", sizeof(kvplan_engine_options), 688},
        {"kvplan_engine_group", sizeof(kvplan_engine_group), 80},
        {"kvplan_engine_plan", sizeof(kvplan_engine_plan), 1584},
        {"kvplan_fleet", sizeof(kvplan_fleet), 48},
        {"kvplan_option", sizeof(kvplan_option), 144},
        {"kvplan_options", sizeof(kvplan_options), 1968},
        {"kvplan_loaded", sizeof(kvplan_loaded), 6184},
        {"kvplan_sweep_axis", sizeof(kvplan_sweep_axis), 24},
        {"kvplan_sweep_row", sizeof(kvplan_sweep_row), 936},
        {"kvplan_version_figures", sizeof(kvplan_version_figures), 256},
        {"kvplan_rule_delta", sizeof(kvplan_rule_delta), 304},
        {"kvplan_version_comparison", sizeof(kvplan_version_comparison), 19984},
        {"kvplan_engine_column", sizeof(kvplan_engine_column), 584},
        {"kvplan_comparison", sizeof(kvplan_comparison), 5016},
        {"kvplan_vllm_log_readings", sizeof(kvplan_vllm_log_readings), 1040},
        {"kvplan_vllm_log_result", sizeof(kvplan_vllm_log_result), 2200},
        {"kvplan_vllm_calibration", sizeof(kvplan_vllm_calibration), 56},
        {"kvplan_trtllm_calibration", sizeof(kvplan_trtllm_calibration), 56},
        {"kvplan_trtllm_log_readings", sizeof(kvplan_trtllm_log_readings), 320},
        {"kvplan_trtllm_log_result", sizeof(kvplan_trtllm_log_result), 2208},
        {"kvplan_engine_version_figures", sizeof(kvplan_engine_version_figures),
         240},
        {"kvplan_engine_rule_delta", sizeof(kvplan_engine_rule_delta), 288},
        {"kvplan_engine_version_comparison",
         sizeof(kvplan_engine_version_comparison), 5104},
        {"kvplan_trtllm_version_comparison",
         sizeof(kvplan_trtllm_version_comparison), 1656},
    };
    bool lp64 = sizeof(void *) == 8 && sizeof(long) == 8;
    for (size_t i = 0; i < sizeof structs / sizeof structs[0]; i++) {
        CHECK_INT(kvplan_struct_size(structs[i].name), structs[i].size);
        if (lp64)
            CHECK_INT(structs[i].size, structs[i].lp64);
    }
    CHECK_INT(kvplan_struct_size("kvplan_no_such_struct"), 0);
    CHECK_INT(kvplan_struct_size(NULL), 0);

    /* the init functions set struct_size */
    kvplan_rank r;
    kvplan_rank_init(&r);
    CHECK_INT(r.struct_size, sizeof r);
    kvplan_hub_options h;
    kvplan_hub_options_init(&h);
    CHECK_INT(h.struct_size, sizeof h);
    kvplan_server_args a;
    kvplan_server_args_init(&a);
    CHECK_INT(a.struct_size, sizeof a);
    CHECK_INT(a.page_size, KVPLAN_PAGE_SIZE_AUTO);
    CHECK_INT(a.nnodes, 1);
    /* nnodes lives in enable_dp_attention's padding: the members after it
     * stay where 0.10.0 put them */
    CHECK(offsetof(kvplan_server_args, nnodes) >
              offsetof(kvplan_server_args, enable_dp_attention) &&
          offsetof(kvplan_server_args, nnodes) + sizeof a.nnodes <=
              offsetof(kvplan_server_args, attn_cp_size));
    if (lp64)
        CHECK_INT(offsetof(kvplan_server_args, attn_cp_size), 40);
    kvplan_engine_options eo;
    kvplan_engine_options_init(&eo);
    CHECK_INT(eo.struct_size, sizeof eo);
    CHECK_INT(eo.engine, KVPLAN_ENGINE_VLLM);
    /* 0.11: vLLM's version and its flags append; the default is the
     * newest profile and the version's mamba cache mode */
    CHECK_INT(eo.vllm_version, KVPLAN_VLLM_LATEST);
    CHECK_INT(eo.mamba_cache_mode, KVPLAN_MAMBA_CACHE_AUTO);
    CHECK(!eo.num_gpu_blocks_override.set);
    /* 0.12: TensorRT-LLM's version and use_kv_cache_manager_v2: false
     * append; the default is the newest profile, the manager auto */
    CHECK_INT(eo.trtllm_version, KVPLAN_TRTLLM_LATEST);
    CHECK(!eo.use_kv_cache_manager_v2 && !eo.no_use_kv_cache_manager_v2);
    /* 0.13: kvplan_options holds --compare-version as a TensorRT-LLM
     * release (kvplan_trtllm_version_compare); none by default */
    kvplan_options opts;
    kvplan_options_init(&opts);
    CHECK(!opts.compare_trtllm_set);
    CHECK_INT(opts.compare_trtllm_version, KVPLAN_TRTLLM_LATEST);
    kvplan_plan_options o;
    kvplan_plan_options_init(&o);
    CHECK_INT(o.struct_size, sizeof o);
    CHECK_INT(o.server.struct_size, sizeof o.server);
    CHECK_INT(o.server.page_size, KVPLAN_PAGE_SIZE_AUTO);

    /* a rank that was not initialized is refused, not read */
    kvplan_rank bad;
    memset(&bad, 0, sizeof bad);
    kvplan_configurator c;
    kvplan_error err;
    CHECK_INT(kvplan_configurator_init(&c, &bad, &err),
              KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "struct_size");

    /* every status has a name, a kind and a message, from one table */
    for (int st = KVPLAN_OK; st <= KVPLAN_PARSE; st++) {
        CHECK(strncmp(kvplan_status_name((kvplan_status)st), "KVPLAN_", 7) ==
              0);
        CHECK(strcmp(kvplan_status_kind((kvplan_status)st), "unknown") != 0);
        CHECK(strlen(kvplan_status_message((kvplan_status)st)) > 4);
    }
    CHECK_STR(kvplan_status_message(KVPLAN_NOT_ENOUGH_MEMORY),
              "the budget cannot hold the KV-cache pools");
    CHECK_STR(kvplan_status_message((kvplan_status)99), "an unknown status");
    CHECK_STR(kvplan_status_name((kvplan_status)99), "KVPLAN_UNKNOWN");

    /* the header and the library agree */
    CHECK_INT(kvplan_version_number(), KVPLAN_VERSION_NUMBER);
    CHECK_INT(KVPLAN_VERSION_NUMBER, KVPLAN_VERSION_MAJOR * 10000 +
                                         KVPLAN_VERSION_MINOR * 100 +
                                         KVPLAN_VERSION_PATCH);
    CHECK_STR(kvplan_version(), KVPLAN_VERSION_STRING);
    return check_report();
}
