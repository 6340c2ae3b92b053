/*
 * test_plan.c: the whole plan (src/plan/) against the spec's rules and
 * worked numbers: mem_fraction_static (§4.1), page size and backend
 * defaults (§4.3), the model and speculative hooks (§4.4-4.5),
 * --max-total-tokens and the PP minimum (§3.2), max_running_requests
 * (§3.3), the req_to_token pool (§3.4), real allocations (§5), weights
 * from safetensors, and the GPU presets and probe.
 */
#include "check.h"
#include "kvplan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static kvplan_plan *plan_of(const char *model, kvplan_plan_options *o,
                            kvplan_status want)
{
    kvplan_model *m = NULL;
    kvplan_error err;
    kvplan_plan *p = malloc(sizeof *p);
    CHECK_INT(kvplan_model_load(model, &m, &err), KVPLAN_OK);
    kvplan_status st = kvplan_plan_compute(m, o, p, &err);
    CHECK_INT(st, want);
    if (st != want)
        fprintf(stderr, "  %s: %s\n", model, err.message);
    kvplan_model_free(m);
    return p;
}

static kvplan_plan_options on_gpu(const char *gpu)
{
    kvplan_plan_options o;
    kvplan_plan_options_init(&o);
    CHECK(kvplan_gpu_preset(gpu, &o.gpu));
    o.gpu_set = true;
    return o;
}

/* §4.1's examples: non-MLA, chunk 8192, decode graphs to 256 (tp < 4) or
 * 512 (tp >= 4), 58 prefill graph sizes (8 MB each). */
static void test_mem_fraction(void)
{
    kvplan_plan_options o = on_gpu("H100-80GB");
    kvplan_plan *p = plan_of("llama-3.1-8b-instruct", &o, KVPLAN_OK);
    /* 512 + 1.5 * 8192 + 1/8 * 1024 + 256 * 2 + 8 * 58 = 13904 */
    CHECK_DOUBLE(p->budget.reserved_mib, 13904.0);
    CHECK_DOUBLE(p->budget.mem_fraction_static, 0.83);
    CHECK_INT(p->budget.prefill_graph_bs_count, 58);
    CHECK_INT(p->chunked_prefill_size, 8192);
    CHECK_INT(p->cuda_graph_max_bs, 256);
    CHECK_INT(p->page_size, 1); /* fa3 on Hopper keeps page 1 */
    CHECK_STR(p->attention_backend, "fa3");
    free(p);
    o = on_gpu("H200");
    p = plan_of("llama-3.1-8b-instruct", &o, KVPLAN_OK);
    CHECK_DOUBLE(p->budget.mem_fraction_static, 0.903);
    free(p);
    /* tp 8: 512 + 12288 + 1024 + 512 * 2 + 464 = 15312 */
    o = on_gpu("H100-80GB");
    o.server.tp_size = 8;
    p = plan_of("llama-3.1-70b-instruct", &o, KVPLAN_OK);
    CHECK_DOUBLE(p->budget.reserved_mib, 15312.0);
    CHECK_DOUBLE(p->budget.mem_fraction_static, 0.812);
    free(p);
    o = on_gpu("H200");
    o.server.tp_size = 8;
    p = plan_of("llama-3.1-70b-instruct", &o, KVPLAN_OK);
    CHECK_DOUBLE(p->budget.mem_fraction_static, 0.893);
    free(p);
    /* a small GPU: no 10 GiB floor; chunk 2048 and graphs to 24 on 24 GB:
     * 512 + 1.5 * 2048 + 128 + 24 * 2 + 8 * 38 (sizes up to 2048) */
    o = on_gpu("L4");
    p = plan_of("qwen3-0.6b", &o, KVPLAN_OK);
    CHECK_INT(p->chunked_prefill_size, 2048);
    CHECK_INT(p->cuda_graph_max_bs, 24);
    CHECK_INT(p->budget.prefill_graph_bs_count, 42);
    CHECK_DOUBLE(p->budget.reserved_mib, 512 + 3072 + 128 + 48 + 8 * 42);
    free(p);
    /* a given fraction is used as is */
    o = on_gpu("H100-80GB");
    o.mem_fraction_static = (kvplan_opt_double){0.7, true};
    p = plan_of("llama-3.1-8b-instruct", &o, KVPLAN_OK);
    CHECK_DOUBLE(p->budget.mem_fraction_static, 0.7);
    CHECK(!p->budget.mem_fraction_auto);
    free(p);
}

/* §3.3-3.4 and §5.1 on the spec's Llama example: 100 GiB, page 64. */
static void test_requests_and_allocation(void)
{
    kvplan_plan_options o;
    kvplan_plan_options_init(&o);
    o.available_bytes = (kvplan_opt_int){107374182400LL, true};
    o.server.page_size = 64;
    kvplan_plan *p = plan_of("llama-3.1-8b-instruct", &o, KVPLAN_OK);
    CHECK_INT(p->max_total_num_tokens, 819200);
    /* min(clamp(int(819200 / 131072 * 512) = 3200, 2048, 4096), 409600) */
    CHECK_INT(p->max_running_requests, 3200);
    CHECK_INT(p->context_len, 131072);
    const kvplan_allocation *a = &p->stages[0].allocation;
    CHECK_INT(a->predicted_kv_bytes, 819200LL * 131072);
    CHECK_INT(a->kv_bytes, (819200LL + 64) * 131072); /* + one page */
    /* (3200 + 1) rows x (131072 + 4) x int32 */
    CHECK_INT(a->req_to_token_bytes, 3201LL * 131076 * 4);
    free(p);

    /* §2.8: with speculative pages of several top-k branches the extra
     * length is twice a decode step's allocation. EAGLE, page 64, topk 4,
     * 3 steps, 8 draft tokens: pages = (63 + 3 + 63) // 64 = 2, alloc =
     * max(2 * 64 * 4, 8) = 512, extra = max(4 + 8, 1024) = 1024 */
    o.server.speculative_algorithm = KVPLAN_SPEC_EAGLE;
    o.server.speculative_num_steps = (kvplan_opt_int){3, true};
    o.server.speculative_eagle_topk = (kvplan_opt_int){4, true};
    o.server.speculative_num_draft_tokens = (kvplan_opt_int){8, true};
    p = plan_of("llama-3.1-8b-instruct", &o, KVPLAN_OK);
    CHECK_INT(p->max_running_requests, 48);
    CHECK_INT(p->stages[0].allocation.req_to_token_bytes,
              49LL * (131072 + 1024) * 4);
    free(p);
    /* NGRAM keeps no draft KV: its allocation is max(steps * topk, draft
     * tokens) = max(12, 8) = 12 whatever the page, extra = max(12, 24) */
    o.server.speculative_algorithm = KVPLAN_SPEC_NGRAM;
    p = plan_of("llama-3.1-8b-instruct", &o, KVPLAN_OK);
    CHECK_INT(p->stages[0].allocation.req_to_token_bytes,
              49LL * (131072 + 24) * 4);
    free(p);
    o.server.speculative_algorithm = KVPLAN_SPEC_NONE;
    o.server.speculative_num_steps.set = false;
    o.server.speculative_eagle_topk.set = false;
    o.server.speculative_num_draft_tokens.set = false;

    /* --max-total-tokens lowers through the constraint path:
     * 100000 // 64 * 64 = 99968; requests min(2048, 49984) */
    o.max_total_tokens = (kvplan_opt_int){100000, true};
    p = plan_of("llama-3.1-8b-instruct", &o, KVPLAN_OK);
    CHECK_INT(p->stages[0].profiled.max_total_num_tokens, 819200);
    CHECK_INT(p->max_total_num_tokens, 99968);
    CHECK_INT(p->max_running_requests, 2048);
    free(p);
    o.max_total_tokens.set = false;

    /* a user value, per DP worker, capped by tokens // 2 */
    o.server.max_running_requests = (kvplan_opt_int){10000000, true};
    p = plan_of("llama-3.1-8b-instruct", &o, KVPLAN_OK);
    CHECK_INT(p->max_running_requests, 409600);
    free(p);
    o.server.max_running_requests.set = false;

    /* speculative decoding sets 48 running requests when none is given */
    o.server.speculative_algorithm = KVPLAN_SPEC_EAGLE;
    p = plan_of("deepseek-v3", &o, KVPLAN_OK);
    CHECK_INT(p->max_running_requests, 48);
    CHECK_INT(p->stages[0].configurator.cell_size_bytes, 71424);
    free(p);
    o.server.speculative_algorithm = KVPLAN_SPEC_NONE;

    /* the budget holds no page: does not fit */
    o.available_bytes = (kvplan_opt_int){1000, true};
    p = plan_of("llama-3.1-8b-instruct", &o, KVPLAN_NOT_ENOUGH_MEMORY);
    free(p);
}

/* §4.3-4.5: the model hooks. */
static void test_model_hooks(void)
{
    kvplan_plan_options o = on_gpu("B200");
    o.server.tp_size = 4;
    kvplan_plan *p = plan_of("deepseek-v4-flash", &o, KVPLAN_OK);
    CHECK_INT(p->page_size, 256);
    CHECK_INT(p->max_running_requests, 256);
    CHECK_DOUBLE(p->stages[0].rank.server_args.swa_full_tokens_ratio, 0.1);
    CHECK_INT(p->stages[0].pools.c128_state_pool_size, 257 * 128);
    free(p);
    o = on_gpu("B200");
    o.server.tp_size = 8;
    p = plan_of("deepseek-v3.2", &o, KVPLAN_OK);
    CHECK_INT(p->page_size, 64);
    CHECK_STR(p->attention_backend, "dsa");
    CHECK_INT(p->stages[0].rank.runner.kv_cache_dtype,
              KVPLAN_DTYPE_FLOAT8_E4M3FN);
    /* DSA fp8 rows really take 656 bytes, plus the indexer */
    const kvplan_stage_plan *s = &p->stages[0];
    int64_t rows = s->pools.max_total_num_tokens + 64;
    int64_t pages = (s->pools.max_total_num_tokens + 64 + 1) / 64;
    CHECK_INT(s->allocation.kv_bytes, rows * 656 * 61 + pages * 64 * 132 * 61);
    free(p);
    /* MHA on Blackwell: trtllm_mha, page 64 */
    o = on_gpu("B200");
    p = plan_of("qwen3-8b", &o, KVPLAN_OK);
    CHECK_STR(p->attention_backend, "trtllm_mha");
    CHECK_INT(p->page_size, 64);
    free(p);
}

static void test_pipeline(void)
{
    kvplan_plan_options o = on_gpu("A100-80GB");
    o.server.tp_size = 4;
    o.server.pp_size = 3;
    kvplan_plan *p = plan_of("llama-3.1-70b-instruct", &o, KVPLAN_OK);
    CHECK_INT(p->num_stages, 3);
    /* 80 layers: [0, 26) [26, 53) [53, 80); the 27-layer stages bind */
    CHECK_INT(p->stages[0].rank.runner.end_layer, 26);
    CHECK(p->stages[p->binding_stage].rank.runner.num_effective_layers == 27);
    for (size_t i = 0; i < 3; i++)
        CHECK_INT(p->stages[i].pools.max_total_num_tokens,
                  p->max_total_num_tokens);
    CHECK(p->stages[0].profiled.max_total_num_tokens >
          p->max_total_num_tokens);
    free(p);
}

static void test_weights_and_gpus(void)
{
    kvplan_model *m = NULL;
    kvplan_error err;
    /* the safetensors headers of a directory, or its index's total */
    int64_t bytes = 0;
    CHECK_INT(kvplan_weights_from_dir(KVPLAN_TEST_DATA "/tiny-safetensors",
                                      &bytes, &err),
              KVPLAN_OK);
    CHECK_INT(bytes, 14); /* 8 + 6 */
    CHECK_INT(kvplan_weights_from_dir(KVPLAN_TEST_DATA "/tiny-index", &bytes,
                                      &err),
              KVPLAN_OK);
    CHECK_INT(bytes, 1503238553);
    CHECK_INT(kvplan_model_load(KVPLAN_TEST_DATA "/tiny-index", &m, &err),
              KVPLAN_OK);
    kvplan_plan_options o = on_gpu("H100-80GB");
    o.weight_bytes = (kvplan_opt_int){bytes, true};
    kvplan_plan *p = malloc(sizeof *p);
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_OK);
    CHECK(!p->budget.weights_estimated);
    CHECK_INT(p->stages[0].weight_bytes, 1503238553);
    /* without them: estimated from config.json */
    o.weight_bytes.set = false;
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_OK);
    CHECK(p->budget.weights_estimated);
    free(p);
    kvplan_model_free(m);
    /* a directory without safetensors, or no directory: refused */
    CHECK_INT(kvplan_weights_from_dir(KVPLAN_TEST_DATA "/../golden", &bytes,
                                      &err),
              KVPLAN_IO);
    CHECK_STR(err.field, "--model-path");
    CHECK_INT(kvplan_weights_from_dir(KVPLAN_TEST_DATA "/no-such-dir", &bytes,
                                      &err),
              KVPLAN_IO);

    kvplan_gpu g;
    CHECK(kvplan_gpu_preset("h100-80gb", &g));
    CHECK_DOUBLE(g.total_mib, 81559.0);
    CHECK_INT(g.compute_capability, 90);
    CHECK(kvplan_gpu_preset("H200", &g));
    CHECK_DOUBLE(g.total_mib, 143771.0);
    CHECK_STR(g.arch, "sm90");
    CHECK(!kvplan_gpu_preset("H1000", &g));
    /* AMD boards by their gfx name, with no CUDA compute capability */
    CHECK(kvplan_gpu_preset("mi355x", &g));
    CHECK_STR(g.arch, "gfx950");
    CHECK_INT(g.compute_capability, 0);
    CHECK(g.is_hip);
    CHECK(kvplan_gpu_preset("MI300X", &g));
    CHECK_STR(g.arch, "gfx942");
    CHECK(kvplan_gpu_preset("b200", &g));
    CHECK_STR(g.arch, "sm100");
    /* NULL is refused, not dereferenced */
    CHECK(!kvplan_gpu_preset("H200", NULL));
    CHECK(!kvplan_gpu_preset(NULL, &g));
    CHECK(!kvplan_gpu_preset_at(0, NULL));
    CHECK(kvplan_gpu_preset(KVPLAN_DEFAULT_GPU, &g));
    CHECK_STR(g.name, "H100-80GB");
    size_t n = 0;
    while (kvplan_gpu_preset_at(n, &g))
        n++;
    CHECK_INT(n, 16);
    /* the probe: a GPU here, or a clear refusal naming --gpu */
    int count = 0;
    kvplan_status st = kvplan_gpu_probe(&g, &count, &err);
    CHECK(st == KVPLAN_OK || st == KVPLAN_UNSUPPORTED);
    if (st == KVPLAN_OK) {
        CHECK(count > 0);
        CHECK(g.total_mib > 0);
    } else {
        CHECK_STR(err.field, "--gpu");
        CHECK_CONTAINS(err.message, "--gpu auto");
    }
}

/* The weight estimate against the models' published sizes (parameters x
 * bytes of their checkpoints), within 5%. */
static void test_weight_estimates(void)
{
    static const struct {
        const char *name;
        double bytes; /* published parameters x checkpoint bytes */
    } models[] = {
        {"llama-3.1-8b-instruct", 8.03e9 * 2},   /* bf16 */
        {"llama-3.1-70b-instruct", 70.6e9 * 2},
        {"qwen3-235b-a22b", 235e9 * 2},
        {"deepseek-v3", 671e9 * 1},              /* fp8 */
        {"kimi-k2.5", 595e9},                    /* int4 experts */
        {"llama-4-maverick-17b-128e-instruct", 400e9 * 2},
        {"gpt-oss-120b", 65e9},                  /* mxfp4 experts */
        {"nemotron-3-super-120b-a12b-fp8", 120e9 * 2}, /* bf16 config */
        {"qwen3-next-80b-a3b-thinking", 80e9 * 2},
    };
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        kvplan_plan_options o;
        kvplan_plan_options_init(&o);
        o.available_bytes = (kvplan_opt_int){1000000000, true};
        kvplan_plan *p = plan_of(models[i].name, &o, KVPLAN_OK);
        double got = (double)p->stages[0].weight_bytes;
        double ratio = got / models[i].bytes;
        if (!(ratio > 0.95 && ratio < 1.05))
            CHECK_FAIL_("%s: weights estimated at %.1f GB, published %.1f GB",
                        models[i].name, got / 1e9, models[i].bytes / 1e9);
        else
            check_passed_++;
        CHECK(p->budget.weights_estimated);
        free(p);
    }
}

/* Every option is checked by the library, each refusal naming its flag:
 * what the command refuses, an embedder's call refuses too. */
static void test_options_checked(void)
{
    kvplan_model *m = NULL;
    kvplan_error err;
    CHECK_INT(kvplan_model_load("llama-3.1-8b-instruct", &m, &err),
              KVPLAN_OK);
    kvplan_plan *p = malloc(sizeof *p);
    static const struct {
        const char *field;
        kvplan_status status;
    } want[] = {
        {"--mem-fraction-static", KVPLAN_INVALID_ARGUMENT}, /* 5.0 */
        {"--mem-fraction-static", KVPLAN_INVALID_ARGUMENT}, /* NaN */
        {"--page-size", KVPLAN_INVALID_ARGUMENT},           /* -3 */
        {"--max-running-requests", KVPLAN_INVALID_ARGUMENT}, /* 0 */
        {"--max-total-tokens", KVPLAN_INVALID_ARGUMENT},    /* -1 */
        {"--speculative-algorithm", KVPLAN_INVALID_ARGUMENT}, /* 42 */
        {"--dtype", KVPLAN_INVALID_ARGUMENT},               /* -1 */
        {"--weight-bytes", KVPLAN_INVALID_ARGUMENT},        /* -100 */
        {"--attention-backend", KVPLAN_INVALID_ARGUMENT},   /* unknown */
        {"--swa-full-tokens-ratio", KVPLAN_INVALID_ARGUMENT}, /* 1.5 */
        {"--cuda-graph-max-bs", KVPLAN_INVALID_ARGUMENT},   /* 0 */
        {"--hisparse-config", KVPLAN_INVALID_ARGUMENT},     /* ratio 0.5 */
        {"struct_size", KVPLAN_INVALID_ARGUMENT},           /* not init */
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        kvplan_plan_options o = on_gpu("H100-80GB");
        switch (i) {
        case 0: o.mem_fraction_static = (kvplan_opt_double){5.0, true}; break;
        case 1: o.mem_fraction_static = (kvplan_opt_double){NAN, true}; break;
        case 2: o.server.page_size = -3; break;
        case 3: o.server.max_running_requests = (kvplan_opt_int){0, true}; break;
        case 4: o.max_total_tokens = (kvplan_opt_int){-1, true}; break;
        case 5: o.server.speculative_algorithm = (kvplan_spec_algorithm)42; break;
        case 6: o.server.dtype = (kvplan_dtype_flag)-1; break;
        case 7: o.weight_bytes = (kvplan_opt_int){-100, true}; break;
        case 8: o.attention_backend = "no-such-backend"; break;
        case 9: o.server.swa_full_tokens_ratio = (kvplan_opt_double){1.5, true}; break;
        case 10: o.cuda_graph_max_bs = (kvplan_opt_int){0, true}; break;
        case 11:
            o.server.enable_hisparse = true;
            o.server.hisparse_host_to_device_ratio = 0.5;
            break;
        default: o.struct_size = 0; break;
        }
        CHECK_INT(kvplan_plan_options_validate(&o, &err), want[i].status);
        CHECK_INT(kvplan_plan_compute(m, &o, p, &err), want[i].status);
        CHECK_STR(err.field, want[i].field);
    }
    /* sglang's names of the backends are taken */
    kvplan_plan_options o = on_gpu("H100-80GB");
    o.attention_backend = "flashinfer";
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_OK);
    CHECK_STR(p->attention_backend, "flashinfer");
    free(p);
    kvplan_model_free(m);
}

/* Requested and resolved stay apart: the request is never written, and
 * what sglang resolves is in plan->resolved. */
static void test_resolved(void)
{
    kvplan_model *m = NULL;
    kvplan_error err;
    CHECK_INT(kvplan_model_load("deepseek-v3", &m, &err), KVPLAN_OK);
    kvplan_plan_options o = on_gpu("B200");
    o.server.speculative_algorithm = KVPLAN_SPEC_EAGLE;
    o.server.tp_size = 8;
    kvplan_plan_options before = o;
    kvplan_plan *p = malloc(sizeof *p);
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_OK);
    CHECK(memcmp(&before, &o, sizeof o) == 0);
    CHECK_INT(o.server.page_size, KVPLAN_PAGE_SIZE_AUTO);
    /* Blackwell, MLA, self-drafting: trtllm_mla, which snaps to page 64 */
    CHECK_STR(p->attention_backend, "trtllm_mla");
    CHECK_INT(p->resolved.page_size, 64);
    CHECK_INT(p->page_size, 64);
    /* the speculative hook: 48 requests, MTP-like (3, 1, 4), then topk 1
     * makes the draft tokens steps + 1 */
    CHECK_INT(p->resolved.max_running_requests.value, 48);
    CHECK_INT(p->resolved.speculative_num_steps.value, 3);
    CHECK_INT(p->resolved.speculative_eagle_topk.value, 1);
    CHECK_INT(p->resolved.speculative_num_draft_tokens.value, 4);
    CHECK(!o.server.max_running_requests.set);
    /* auto KV and model dtypes resolve to the model's bf16 */
    CHECK_INT(p->resolved.kv_cache_dtype, KVPLAN_KV_BF16);
    CHECK_INT(p->resolved.dtype, KVPLAN_DT_BFLOAT16);
    CHECK_INT(o.server.kv_cache_dtype, KVPLAN_KV_AUTO);
    CHECK_INT(p->resolved.chunked_prefill_size.value, p->chunked_prefill_size);
    CHECK_INT(p->max_prefill_tokens, 16384);
    CHECK_INT(p->struct_size, sizeof *p);
    /* the plan holds no pointer into the model or the options */
    CHECK(p->resolved.speculative_draft_model == NULL);
    kvplan_model_free(m);
    const kvplan_rank *r = &p->stages[0].rank;
    CHECK(r->model.compress_ratios.ids == NULL);
    CHECK(r->runner.mambaish_full_attention_layer_ids.ids == NULL);
    CHECK_INT(p->stages[0].configurator.kind, KVPLAN_CONFIGURATOR_DEFAULT);
    free(p);

    /* DSA on Blackwell: auto KV is fp8, backend dsa at page 64 */
    CHECK_INT(kvplan_model_load("deepseek-v3.2", &m, &err), KVPLAN_OK);
    o = on_gpu("B200");
    o.server.tp_size = 8;
    p = malloc(sizeof *p);
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_OK);
    CHECK_INT(p->resolved.kv_cache_dtype, KVPLAN_KV_FP8_E4M3);
    CHECK_STR(p->attention_backend, "dsa");
    CHECK_INT(p->resolved.page_size, 64);
    kvplan_model_free(m);
    free(p);

    /* a hybrid SWA model keeps its layer counts, not the pointers */
    CHECK_INT(kvplan_model_load("gpt-oss-120b", &m, &err), KVPLAN_OK);
    o = on_gpu("H100-80GB");
    o.server.tp_size = 2;
    p = malloc(sizeof *p);
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_OK);
    kvplan_model_free(m);
    r = &p->stages[0].rank;
    CHECK_INT(r->model.full_attention_layer_ids.count, 18);
    CHECK_INT(r->model.swa_attention_layer_ids.count, 18);
    CHECK(r->model.full_attention_layer_ids.ids == NULL);
    free(p);
}

/* Only the header and the stages used are written: a plan is large, and
 * zeroing all 64 stages was most of its cost. */
static void test_plan_writes_what_it_uses(void)
{
    kvplan_model *m = NULL;
    kvplan_error err;
    CHECK_INT(kvplan_model_load("llama-3.1-70b-instruct", &m, &err),
              KVPLAN_OK);
    kvplan_plan *p = malloc(sizeof *p);
    memset(p, 0xA5, sizeof *p);
    kvplan_plan_options o = on_gpu("H100-80GB");
    o.server.tp_size = 4;
    o.server.pp_size = 2;
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_OK);
    CHECK_INT(p->num_stages, 2);
    CHECK_INT(p->stages[1].pp_rank, 1);
    unsigned char untouched[sizeof p->stages[2]];
    memset(untouched, 0xA5, sizeof untouched);
    CHECK(memcmp(&p->stages[2], untouched, sizeof untouched) == 0);
    /* the header holds no stale byte: the budget is set field by field */
    CHECK(p->budget.mamba_gib == 0.0);
    CHECK(!p->budget.given);
    free(p);
    kvplan_model_free(m);
}

int main(void)
{
    test_options_checked();
    test_resolved();
    test_plan_writes_what_it_uses();
    test_mem_fraction();
    test_requests_and_allocation();
    test_model_hooks();
    test_pipeline();
    test_weights_and_gpus();
    test_weight_estimates();
    return check_report();
}
