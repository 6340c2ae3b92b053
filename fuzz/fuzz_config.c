/*
 * fuzz_config.c: a config.json, hostile, through the loader, the rank
 * derivation under several flag sets, the configurator and the plan.
 */
#include "kvplan.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kvplan_model *m = NULL;
    kvplan_error err;
    if (kvplan_model_load_json((const char *)data, size, "fuzz", &m, &err) !=
        KVPLAN_OK)
        return 0;
    static const struct {
        int64_t tp, pp, dp;
        bool dp_attention;
        int64_t page;
    } sets[] = {{1, 1, 1, false, 1},
                {8, 2, 1, false, 64},
                {8, 1, 4, true, 16},
                {3, 3, 1, false, 256}};
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        kvplan_server_args a;
        kvplan_server_args_init(&a);
        a.tp_size = sets[i].tp;
        a.pp_size = sets[i].pp;
        a.dp_size = sets[i].dp;
        a.enable_dp_attention = sets[i].dp_attention;
        a.page_size = sets[i].page;
        a.speculative_algorithm = i == 2 ? KVPLAN_SPEC_EAGLE : KVPLAN_SPEC_NONE;
        for (int64_t rank = 0; rank < a.pp_size; rank++) {
            kvplan_rank r;
            kvplan_configurator c;
            kvplan_pool_config cfg;
            if (kvplan_model_rank(m, &a, rank, &r, NULL, &err) != KVPLAN_OK ||
                kvplan_configurator_init(&c, &r, &err) != KVPLAN_OK)
                continue;
            if (kvplan_calculate_pool_sizes(&c, 80000000000, a.page_size, &cfg,
                                            &err) == KVPLAN_OK) {
                cfg.max_running_requests = (kvplan_opt_int){256, true};
                kvplan_finalize_with_max_running_requests(&c, &cfg, &err);
            }
            kvplan_calculate_pool_sizes_from_max_tokens(&c, 100000, a.page_size,
                                                        &cfg, &err);
        }
    }
    kvplan_plan_options o;
    kvplan_plan_options_init(&o);
    o.gpu_set = kvplan_gpu_preset(KVPLAN_DEFAULT_GPU, &o.gpu);
    kvplan_plan *p = malloc(sizeof *p);
    if (p != NULL)
        kvplan_plan_compute(m, &o, p, &err);
    free(p);
    kvplan_model_free(m);
    return 0;
}
