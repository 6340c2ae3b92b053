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
#include "plan_options.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The prefill graphs' batch sizes (§4.1), walked here and counted in
 * ranges by the budget, for every chunk size up to 6000. */
static void test_prefill_graph_count(void)
{
    kvplan_model *m = NULL;
    CHECK_INT(kvplan_model_load("llama-3.1-8b-instruct", &m, NULL), KVPLAN_OK);
    kvplan_plan *p = malloc(sizeof *p);
    kvplan_plan_options o = on_gpu("H100-80GB");
    size_t bad = 0;
    for (int64_t chunk = 1; chunk <= 6000; chunk++) {
        int64_t want = 0;
        for (int64_t b = 4; b <= 32; b += 4)
            want += b <= chunk;
        for (int64_t b = 48; b <= 256; b += 16)
            want += b <= chunk;
        for (int64_t b = 288; b <= 512; b += 32)
            want += b <= chunk;
        for (int64_t b = 576; b <= 1024; b += 64)
            want += b <= chunk;
        for (int64_t b = 1280; b <= 4096; b += 256)
            want += b <= chunk;
        for (int64_t b = 4608; b <= chunk; b += 512)
            want++;
        o.server.chunked_prefill_size = (kvplan_opt_int){chunk, true};
        if (kvplan_plan_compute(m, &o, p, NULL) != KVPLAN_OK ||
            p->budget.prefill_graph_bs_count != want)
            bad++;
    }
    CHECK_INT(bad, 0);
    free(p);
    kvplan_model_free(m);
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
    kvplan_model *draft = NULL; /* sglang starts EAGLE with a draft only */
    CHECK_INT(kvplan_model_load("eagle3-llama3.1-8b", &draft, NULL), KVPLAN_OK);
    o.server.speculative_algorithm = KVPLAN_SPEC_EAGLE;
    o.server.speculative_draft_model = draft;
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
    o.server.speculative_draft_model = NULL;
    kvplan_model_free(draft);
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
    /* consumer Blackwell is neither sglang's SM100 (major 10 exactly) nor
     * Hopper: flashinfer, page 1 (an RTX 5090 was planned as trtllm_mha,
     * page 64); triton for a model with attention sinks */
    static const char *consumer[] = {"RTX-5090", "RTX-5080", "GB10"};
    for (size_t i = 0; i < 3; i++) {
        o = on_gpu(consumer[i]);
        p = plan_of("qwen3-0.6b", &o, KVPLAN_OK);
        CHECK_STR(p->attention_backend, "flashinfer");
        CHECK_INT(p->page_size, 1);
        free(p);
    }
    o = on_gpu("GB10");
    p = plan_of("gpt-oss-20b", &o, KVPLAN_OK);
    CHECK_STR(p->attention_backend, "triton");
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
    CHECK(p->stages[0].profiled.max_total_num_tokens > p->max_total_num_tokens);
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
    CHECK_INT(
        kvplan_weights_from_dir(KVPLAN_TEST_DATA "/tiny-index", &bytes, &err),
        KVPLAN_OK);
    CHECK_INT(bytes, 1503238553);
    CHECK_INT(kvplan_model_load(KVPLAN_TEST_DATA "/tiny-index", &m, &err),
              KVPLAN_OK);
    kvplan_plan_options o = on_gpu("H100-80GB");
    o.weight_bytes = (kvplan_opt_int){bytes, true};
    kvplan_plan *p = malloc(sizeof *p);
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_OK);
    CHECK(!p->budget.weights_estimated);
    /* at TP 1 the rank holds them all, plus what loading adds beside the
     * tensors (0.07 GiB) */
    CHECK_INT(p->stages[0].weight_bytes, 1503238553 + 75161927);
    CHECK_INT(p->budget.weights_source, KVPLAN_SOURCE_GIVEN);
    CHECK_INT(p->budget.num_weight_tensors, 0);
    /* without them: estimated from config.json */
    o.weight_bytes.set = false;
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_OK);
    CHECK(p->budget.weights_estimated);
    free(p);
    kvplan_model_free(m);
    /* a directory without safetensors, or no directory: refused */
    CHECK_INT(
        kvplan_weights_from_dir(KVPLAN_TEST_DATA "/../golden", &bytes, &err),
        KVPLAN_IO);
    CHECK_STR(err.field, "--model-path");
    CHECK_INT(
        kvplan_weights_from_dir(KVPLAN_TEST_DATA "/no-such-dir", &bytes, &err),
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
    CHECK_INT(n, 18);
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
        {"llama-3.1-8b-instruct", 8.03e9 * 2}, /* bf16 */
        {"llama-3.1-70b-instruct", 70.6e9 * 2},
        {"qwen3-235b-a22b", 235e9 * 2},
        {"deepseek-v3", 671e9 * 1}, /* fp8 */
        {"kimi-k2.5", 595e9},       /* int4 experts */
        {"llama-4-maverick-17b-128e-instruct", 400e9 * 2},
        {"gpt-oss-120b", 65e9},                        /* mxfp4 experts */
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
    CHECK_INT(kvplan_model_load("llama-3.1-8b-instruct", &m, &err), KVPLAN_OK);
    kvplan_plan *p = malloc(sizeof *p);
    static const struct {
        const char *field;
        kvplan_status status;
    } want[] = {
        {"--mem-fraction-static", KVPLAN_INVALID_ARGUMENT},   /* 5.0 */
        {"--mem-fraction-static", KVPLAN_INVALID_ARGUMENT},   /* NaN */
        {"--page-size", KVPLAN_INVALID_ARGUMENT},             /* -3 */
        {"--max-running-requests", KVPLAN_INVALID_ARGUMENT},  /* 0 */
        {"--max-total-tokens", KVPLAN_INVALID_ARGUMENT},      /* -1 */
        {"--speculative-algorithm", KVPLAN_INVALID_ARGUMENT}, /* 42 */
        {"--dtype", KVPLAN_INVALID_ARGUMENT},                 /* -1 */
        {"--weight-bytes", KVPLAN_INVALID_ARGUMENT},          /* -100 */
        {"--attention-backend", KVPLAN_INVALID_ARGUMENT},     /* unknown */
        {"--swa-full-tokens-ratio", KVPLAN_INVALID_ARGUMENT}, /* 1.5 */
        {"--cuda-graph-max-bs", KVPLAN_INVALID_ARGUMENT},     /* 0 */
        {"--hisparse-config", KVPLAN_INVALID_ARGUMENT},       /* ratio 0.5 */
        {"struct_size", KVPLAN_INVALID_ARGUMENT},             /* not init */
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        kvplan_plan_options o = on_gpu("H100-80GB");
        switch (i) {
        case 0:
            o.mem_fraction_static = (kvplan_opt_double){5.0, true};
            break;
        case 1:
            o.mem_fraction_static = (kvplan_opt_double){NAN, true};
            break;
        case 2:
            o.server.page_size = -3;
            break;
        case 3:
            o.server.max_running_requests = (kvplan_opt_int){0, true};
            break;
        case 4:
            o.max_total_tokens = (kvplan_opt_int){-1, true};
            break;
        case 5:
            o.server.speculative_algorithm = (kvplan_spec_algorithm)42;
            break;
        case 6:
            o.server.dtype = (kvplan_dtype_flag)-1;
            break;
        case 7:
            o.weight_bytes = (kvplan_opt_int){-100, true};
            break;
        case 8:
            o.attention_backend = "no-such-backend";
            break;
        case 9:
            o.server.swa_full_tokens_ratio = (kvplan_opt_double){1.5, true};
            break;
        case 10:
            o.cuda_graph_max_bs = (kvplan_opt_int){0, true};
            break;
        case 11:
            o.server.enable_hisparse = true;
            o.server.hisparse_host_to_device_ratio = 0.5;
            break;
        default:
            o.struct_size = 0;
            break;
        }
        CHECK_INT(kvplan_plan_options_validate(&o, &err), want[i].status);
        CHECK_INT(kvplan_plan_compute(m, &o, p, &err), want[i].status);
        CHECK_STR(err.field, want[i].field);
    }
    /* the reliability review's D11 probes, with its own extreme values:
     * each was an absurd plan with KVPLAN_OK */
    for (int i = 0; i < 5; i++) {
        static const char *const field[] = {
            "--page-size", "--weight-bytes", "draft_weight_bytes",
            "--cuda-graph-max-bs", "--max-running-requests"};
        kvplan_plan_options o = on_gpu("H100-80GB");
        switch (i) {
        case 0:
            o.server.page_size = INT64_MIN;
            break;
        case 1:
            o.weight_bytes = (kvplan_opt_int){-1000000000000000000, true};
            break;
        case 2:
            o.draft_weight_bytes = (kvplan_opt_int){-1000000000000000000, true};
            break;
        case 3:
            o.cuda_graph_max_bs = (kvplan_opt_int){INT64_MIN, true};
            break;
        default: /* decode with INT64_MIN requests (D4/D5) */
            o.server.disaggregation_mode = KVPLAN_DISAGG_DECODE;
            o.server.max_running_requests = (kvplan_opt_int){INT64_MIN, true};
            break;
        }
        CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_INVALID_ARGUMENT);
        CHECK_STR(err.field, field[i]);
    }
    /* fuzz_log's find: ranks beyond int64 in the fraction rule's message
     * (a signed overflow); refused naming the term that made the reserve */
    {
        kvplan_plan_options o = on_gpu("H100-80GB");
        o.server.tp_size = 5222222222222222222;
        o.server.pp_size = 3;
        CHECK_INT(kvplan_plan_compute(m, &o, p, &err),
                  KVPLAN_NOT_ENOUGH_MEMORY);
        CHECK_STR(err.field, "--tp-size");
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

    /* --dtype float16: the KV cache runs float16, which no
     * --kv-cache-dtype word names: the flag stays auto, the plan's own
     * dtypes say it (architecture review 3: resolved in resolved types) */
    CHECK_INT(kvplan_model_load("llama-3.1-8b-instruct", &m, &err), KVPLAN_OK);
    o = on_gpu("H100-80GB");
    o.server.dtype = KVPLAN_DT_FLOAT16;
    p = malloc(sizeof *p);
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_OK);
    CHECK_INT(p->resolved.dtype, KVPLAN_DT_FLOAT16);
    CHECK_INT(p->resolved.kv_cache_dtype, KVPLAN_KV_AUTO);
    CHECK_INT(p->dtype, KVPLAN_DTYPE_FLOAT16);
    CHECK_INT(p->kv_cache_dtype, KVPLAN_DTYPE_FLOAT16);
    /* and the words both ways, from one table */
    CHECK_INT(p->stages[0].rank.runner.kv_cache_dtype, KVPLAN_DTYPE_FLOAT16);
    o.server.kv_cache_dtype = KVPLAN_KV_FP8_E4M3;
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_OK);
    CHECK_INT(p->kv_cache_dtype, KVPLAN_DTYPE_FLOAT8_E4M3FN);
    CHECK_INT(p->resolved.kv_cache_dtype, KVPLAN_KV_FP8_E4M3);
    kvplan_model_free(m);
    free(p);
}

/* Only the header and the stages used are written: a plan is large, and
 * zeroing all 64 stages was most of its cost. */
static void test_plan_writes_what_it_uses(void)
{
    kvplan_model *m = NULL;
    kvplan_error err;
    CHECK_INT(kvplan_model_load("llama-3.1-70b-instruct", &m, &err), KVPLAN_OK);
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

/* The weights one rank holds: the tensor that names a rule, found in the
 * estimate's list. */
static const kvplan_weight_tensor *tensor(const kvplan_plan *p,
                                          const char *name)
{
    for (size_t i = 0; i < p->budget.num_weight_tensors; i++)
        if (strcmp(p->budget.weight_tensors[i].name, name) == 0)
            return &p->budget.weight_tensors[i];
    return NULL;
}

static double rank_gib(const kvplan_plan *p)
{
    return (double)p->stages[0].weight_bytes / 1073741824.0;
}

/* Issue 15's estimate fixes, each against the figure that exposed it. */
static void test_weight_fixes(void)
{
    /* Qwen2-MoE's heirs name one shared expert by its size alone */
    kvplan_plan_options o = on_gpu("H200");
    o.server.tp_size = 4;
    kvplan_plan *p = plan_of("qwen3-next-80b-a3b-thinking", &o, KVPLAN_OK);
    const kvplan_weight_tensor *t = tensor(p, "mlp.shared_experts.down_proj");
    CHECK(t != NULL);
    if (t != NULL)
        CHECK_INT(t->cols, 512); /* shared_expert_intermediate_size */
    CHECK(tensor(p, "linear_attn.in_proj (qkvz, ba)") != NULL);
    free(p);

    /* DeciLM: block_configs, not the top-level keys: ~49.9 B parameters,
     * 46.5 GiB a rank at TP2, so the plan fits (it was refused) */
    o = on_gpu("H100-80GB");
    o.server.tp_size = 2;
    p = plan_of("llama-3.3-nemotron-super-49b-v1", &o, KVPLAN_OK);
    CHECK(rank_gib(p) > 45.5 && rank_gib(p) < 47.5);
    free(p);

    /* DP attention: every rank holds the attention whole (MLA at attn_tp
     * 1) and the embedding: DeepSeek-V3 TP8 DP8 holds ~11.7 GiB more */
    o = on_gpu("H200");
    o.server.tp_size = 8;
    p = plan_of("deepseek-v3", &o, KVPLAN_OK);
    double plain = rank_gib(p);
    t = tensor(p, "self_attn.q_b_proj");
    CHECK(t != NULL && t->rank_rows * 8 == t->rows);
    free(p);
    o.server.dp_size = 8;
    o.server.enable_dp_attention = true;
    p = plan_of("deepseek-v3", &o, KVPLAN_OK);
    CHECK(rank_gib(p) - plain > 10.5 && rank_gib(p) - plain < 13);
    t = tensor(p, "self_attn.q_b_proj");
    CHECK(t != NULL && t->rank_rows == t->rows);
    /* FP8 blocks: one float32 scale per 128 x 128 */
    CHECK(t != NULL && t->elem_bytes > 1 && t->elem_bytes < 1.001);
    CHECK(tensor(p, "self_attn.w_kc+w_vc (absorbed)") != NULL);
    CHECK_DOUBLE(tensor(p, "lm_head")->elem_bytes, 2.0); /* 16 bits */
    free(p);

    /* int4 compressed-tensors experts with group scales and g_idx, the
     * vision tower whole on each rank: Kimi-K2.5 at TP8, 73.58 GiB logged */
    o = on_gpu("MI355X");
    o.server.tp_size = 8;
    p = plan_of("kimi-k2.5", &o, KVPLAN_OK);
    CHECK(fabs(rank_gib(p) - 73.58) < 0.3);
    t = tensor(p, "mlp.experts.w13 (gate_up)");
    CHECK(t != NULL && fabs(t->elem_bytes - 0.5625) < 1e-12);
    CHECK(tensor(p, "vision.blocks.mlp (fc1, fc2)") != NULL);
    t = tensor(p, "self_attn.fused_qkv_a_proj_with_mqa"); /* ignored: bf16 */
    CHECK(t != NULL && t->elem_bytes == 2.0 && t->rank_rows == t->rows);
    free(p);

    /* PyTorch's allocator: QwQ-32B's o_proj at TP4 is 12.5 MiB, a 14 MiB
     * block */
    o = on_gpu("L4");
    o.server.tp_size = 4;
    o.mem_fraction_static = (kvplan_opt_double){0.85, true};
    p = plan_of("qwen2.5-32b", &o, KVPLAN_OK);
    t = tensor(p, "self_attn.o_proj");
    CHECK(t != NULL && t->rank_bytes == 14 << 20);
    /* four ranks min-reduce their free memory through a float32 tensor
     * (§3.1): both figures are float32 values */
    double pre = p->budget.pre_load_gib * 1073741824.0;
    double post = p->budget.post_load_gib * 1073741824.0;
    CHECK_DOUBLE(pre, (double)(float)pre);
    CHECK_DOUBLE(post, (double)(float)post);
    /* the budget terms, labelled */
    CHECK_INT(p->budget.context_source, KVPLAN_SOURCE_MEASURED);
    CHECK_CONTAINS(p->budget.context_basis, "tests/logs/18");
    CHECK_DOUBLE(p->budget.context_overhead_bytes, 0.86 * 1073741824.0);
    CHECK_INT(p->budget.weights_source, KVPLAN_SOURCE_ESTIMATED);
    free(p);

    /* the context table: each row the one its board, ranks and build
     * match, naming its measurement (src/budget/gpu.c, docs/budget.md) */
    static const struct {
        const char *gpu;
        int tp;
        const char *version;
        double gib;
        kvplan_source source;
        const char *basis;
    } rows[] = {
        {"RTX-4090", 4, "seed", 0.91, KVPLAN_SOURCE_MEASURED, "tests/logs/24"},
        {"MI355X", 8, "seed", 4.45, KVPLAN_SOURCE_MEASURED,
         "tests/logs 14, 21"},
        {"RTX-5080", 1, "seed", 0.76, KVPLAN_SOURCE_MEASURED, "tests/logs/25"},
        /* unified memory: the host's use is the row, whatever the build */
        {"GB10", 1, "main", 9.77, KVPLAN_SOURCE_MEASURED, "unified memory"},
        {"H200", 1, "main", 1.25, KVPLAN_SOURCE_MEASURED, "h200-memory.md"},
        {"H100-80GB", 1, "main", 1.17, KVPLAN_SOURCE_MEASURED, "tests/logs/23"},
        {"B200", 1, "seed", 0.95, KVPLAN_SOURCE_ESTIMATED, "NVIDIA's single"},
        /* no row at TP2: one GPU's and PCIe's share of a further rank */
        {"RTX-4090", 2, "seed", 0.95 + 0.13 / 3, KVPLAN_SOURCE_ESTIMATED,
         "PCIe NCCL buffers per further rank"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        o = on_gpu(rows[i].gpu);
        o.server.tp_size = rows[i].tp;
        CHECK_INT(kvplan_sglang_profile_parse(rows[i].version,
                                              &o.sglang_version, NULL),
                  KVPLAN_OK);
        /* Qwen3-1.7B fits the 16 GB RTX 5080 */
        p = plan_of("qwen3-1.7b", &o, KVPLAN_OK);
        CHECK_DOUBLE(p->budget.context_overhead_bytes / 1073741824.0,
                     rows[i].gib);
        CHECK_INT(p->budget.context_source, rows[i].source);
        CHECK_CONTAINS(p->budget.context_basis, rows[i].basis);
        free(p);
    }

    /* --nnodes: the communicators grow with one node's ranks. TP16 on two
     * nodes of 8x H200 is the H200 TP8 row's 3.10 GiB, labelled estimated
     * (it was 0.95 + 15 x 0.31 = 5.56, as if one NVLink held 16); a C
     * caller's 0 is one node (0.10's padding), a negative is refused */
    o = on_gpu("H200");
    o.server.tp_size = 16;
    p = plan_of("qwen3-8b", &o, KVPLAN_OK);
    CHECK_DOUBLE(p->budget.context_overhead_bytes / 1073741824.0,
                 0.95 + 15 * 2.15 / 7);
    free(p);
    o.server.nnodes = 2;
    p = plan_of("qwen3-8b", &o, KVPLAN_OK);
    CHECK_DOUBLE(p->budget.context_overhead_bytes / 1073741824.0, 3.10);
    CHECK_INT(p->budget.context_source, KVPLAN_SOURCE_ESTIMATED);
    CHECK_CONTAINS(p->budget.context_basis, "--nnodes");
    free(p);
    o.server.nnodes = 0;
    p = plan_of("qwen3-8b", &o, KVPLAN_OK);
    CHECK(p->budget.context_overhead_bytes / 1073741824.0 > 5.5);
    free(p);
    o.server.nnodes = -2;
    p = plan_of("qwen3-8b", &o, KVPLAN_INVALID_ARGUMENT);
    free(p);

    /* --quantization fp8 on a bf16 checkpoint: linear layers at 1 byte,
     * embeddings and the LM head at 16 bits */
    o = on_gpu("H100-80GB");
    p = plan_of("llama-3.1-8b-instruct", &o, KVPLAN_OK);
    double bf16 = rank_gib(p);
    free(p);
    o.quantization = "fp8";
    p = plan_of("llama-3.1-8b-instruct", &o, KVPLAN_OK);
    CHECK(rank_gib(p) > 8.4 && rank_gib(p) < 8.7 && rank_gib(p) < bf16);
    CHECK_DOUBLE(tensor(p, "mlp.down_proj")->elem_bytes, 1.0);
    CHECK_DOUBLE(tensor(p, "embed_tokens")->elem_bytes, 2.0);
    free(p);
    o.quantization = "gguf"; /* not priced: the dtype, and a warning */
    p = plan_of("llama-3.1-8b-instruct", &o, KVPLAN_OK);
    CHECK(fabs(rank_gib(p) - bf16) < 1e-9);
    CHECK_INT(p->num_warnings, 1);
    CHECK_INT(p->warnings[0].code, KVPLAN_WARN_QUANTIZATION_UNKNOWN);
    free(p);
    /* a name that says FP8 and a config that does not */
    o = on_gpu("H200");
    o.server.tp_size = 8;
    p = plan_of("nemotron-3-super-120b-a12b-fp8", &o, KVPLAN_OK);
    bool named = false;
    for (size_t i = 0; i < p->num_warnings; i++)
        named |= p->warnings[i].code == KVPLAN_WARN_NAME_SAYS_QUANTIZED;
    CHECK(named);
    free(p);

    /* measured weights keep the estimate's split: DP attention's
     * replication holds for safetensors too */
    o = on_gpu("H200");
    o.server.tp_size = 8;
    o.weight_bytes = (kvplan_opt_int){671000000000, true};
    p = plan_of("deepseek-v3", &o, KVPLAN_OK);
    double split = rank_gib(p);
    CHECK_INT(p->budget.weights_source, KVPLAN_SOURCE_GIVEN);
    free(p);
    o.server.dp_size = 8;
    o.server.enable_dp_attention = true;
    p = plan_of("deepseek-v3", &o, KVPLAN_OK);
    CHECK(rank_gib(p) > split + 9);
    free(p);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f != NULL) {
        fputs(text, f);
        fclose(f);
    }
}

/* A ModelOpt checkpoint says its quantization in hf_quant_config.json,
 * beside a config.json that does not. */
static void test_modelopt_dir(void)
{
    char dir[] = "/tmp/kvplan-modelopt-XXXXXX", path[256];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/config.json", dir);
    write_text(path,
               "{\"architectures\": [\"LlamaForCausalLM\"], "
               "\"model_type\": \"llama\", \"hidden_size\": 4096, "
               "\"intermediate_size\": 14336, \"num_hidden_layers\": 32, "
               "\"num_attention_heads\": 32, \"num_key_value_heads\": 8, "
               "\"vocab_size\": 128256, \"max_position_embeddings\": 8192, "
               "\"torch_dtype\": \"bfloat16\"}");
    kvplan_plan_options o = on_gpu("H100-80GB");
    kvplan_plan *p = plan_of(dir, &o, KVPLAN_OK);
    double bf16 = rank_gib(p);
    free(p);
    snprintf(path, sizeof path, "%s/hf_quant_config.json", dir);
    write_text(path, "{\"quantization\": {\"quant_algo\": \"FP8\", "
                     "\"kv_cache_quant_algo\": \"FP8\", "
                     "\"exclude_modules\": [\"lm_head\"]}}");
    p = plan_of(dir, &o, KVPLAN_OK);
    CHECK(rank_gib(p) < 0.6 * bf16);
    CHECK_DOUBLE(tensor(p, "mlp.down_proj")->elem_bytes, 1.0);
    CHECK_DOUBLE(tensor(p, "lm_head")->elem_bytes, 2.0);
    /* its FP8 KV cache too, as for a config that says it */
    CHECK_INT(p->stages[0].rank.runner.kv_cache_dtype,
              KVPLAN_DTYPE_FLOAT8_E4M3FN);
    free(p);
    unlink(path);
    snprintf(path, sizeof path, "%s/config.json", dir);
    unlink(path);
    rmdir(dir);
}

/* A shard whose header is `header` followed by `data` bytes. */
static void write_shard(const char *path, const char *header, size_t data)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f == NULL)
        return;
    uint64_t n = strlen(header);
    unsigned char len8[8];
    for (int i = 0; i < 8; i++)
        len8[i] = (unsigned char)(n >> (8 * i));
    fwrite(len8, 1, 8, f);
    fputs(header, f);
    for (size_t i = 0; i < data; i++)
        fputc(0, f);
    fclose(f);
}

/* Review D1 and D8: every figure of a safetensors header is checked
 * against the file and the tensor's dtype x shape; the sum is checked; an
 * index too large is refused before it is read. */
static void test_hostile_safetensors(void)
{
    char dir[] = "/tmp/kvplan-st-XXXXXX", path[256];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    kvplan_error err;
    int64_t bytes = 0;
    static const struct {
        const char *header;
        size_t data;
        kvplan_status want;
        const char *says;
    } shards[] = {
        {"{\"w\": {\"dtype\": \"BF16\", \"shape\": [3], "
         "\"data_offsets\": [0, 6]}, \"__metadata__\": {}}",
         6, KVPLAN_OK, NULL},
        /* D1: offsets far past the file, which made the sum wrap */
        {"{\"w\": {\"dtype\": \"BF16\", \"shape\": [1], "
         "\"data_offsets\": [0, 6000000000000000000]}}",
         2, KVPLAN_PARSE, "tensor 'w': data_offsets"},
        {"{\"w\": {\"dtype\": \"BF16\", \"shape\": [1], "
         "\"data_offsets\": [-9223372036854775808, 9223372036854775807]}}",
         2, KVPLAN_PARSE, "data_offsets"},
        {"{\"w\": {\"dtype\": \"BF16\", \"shape\": [1], "
         "\"data_offsets\": [2, 0]}}",
         2, KVPLAN_PARSE, "data_offsets"},
        /* a span that dtype x shape does not make */
        {"{\"w\": {\"dtype\": \"F32\", \"shape\": [2], "
         "\"data_offsets\": [0, 6]}}",
         6, KVPLAN_PARSE, "dtype and shape make other bytes"},
        {"{\"w\": {\"dtype\": \"F32\", \"shape\": "
         "[4294967296, 4294967296], \"data_offsets\": [0, 6]}}",
         6, KVPLAN_PARSE, "more than 2^63"},
        {"[1, 2]", 0, KVPLAN_PARSE, "not a JSON object"},
    };
    for (size_t i = 0; i < sizeof shards / sizeof shards[0]; i++) {
        write_shard(path, shards[i].header, shards[i].data);
        CHECK_INT(kvplan_weights_from_dir(dir, &bytes, &err), shards[i].want);
        if (shards[i].says != NULL)
            CHECK_CONTAINS(err.message, shards[i].says);
        else
            CHECK_INT(bytes, 6);
    }
    /* a header length of 0, or past the file's end */
    FILE *f = fopen(path, "wb");
    fwrite("\0\0\0\0\0\0\0\0", 1, 8, f);
    fclose(f);
    CHECK_INT(kvplan_weights_from_dir(dir, &bytes, &err), KVPLAN_PARSE);
    f = fopen(path, "wb");
    fwrite("\xff\xff\0\0\0\0\0\0{}", 1, 10, f);
    fclose(f);
    CHECK_INT(kvplan_weights_from_dir(dir, &bytes, &err), KVPLAN_PARSE);
    CHECK_CONTAINS(err.message, "within the file");
    /* a length prefix of 2^63, and one over the 16 MiB cap in a file that
     * is that large (sparse): refused before anything is allocated */
    f = fopen(path, "wb");
    fwrite("\0\0\0\0\0\0\0\x80{}", 1, 10, f);
    fclose(f);
    CHECK_INT(kvplan_weights_from_dir(dir, &bytes, &err), KVPLAN_PARSE);
    CHECK_CONTAINS(err.message, "9223372036854775808");
    f = fopen(path, "wb");
    fwrite("\0\0\x40\x01\0\0\0\0", 1, 8, f); /* 20 MiB */
    CHECK(ftruncate(fileno(f), 24 << 20) == 0);
    fclose(f);
    CHECK_INT(kvplan_weights_from_dir(dir, &bytes, &err), KVPLAN_PARSE);
    CHECK_CONTAINS(err.message, "must be 1 to 16777216 bytes");
    unlink(path);
    /* many shards: each read, the sum exact */
    for (int i = 0; i < 500; i++) {
        snprintf(path, sizeof path, "%s/model-%05d-of-00500.safetensors", dir,
                 i);
        write_shard(path,
                    "{\"w\": {\"dtype\": \"BF16\", \"shape\": [3], "
                    "\"data_offsets\": [0, 6]}}",
                    6);
    }
    CHECK_INT(kvplan_weights_from_dir(dir, &bytes, &err), KVPLAN_OK);
    CHECK_INT(bytes, 500 * 6);
    /* a symlink to a shard is followed; one to a device is refused */
    char link[300];
    snprintf(link, sizeof link, "%s/model-extra.safetensors", dir);
    snprintf(path, sizeof path, "%s/model-00000-of-00500.safetensors", dir);
    CHECK_INT(symlink(path, link), 0);
    CHECK_INT(kvplan_weights_from_dir(dir, &bytes, &err), KVPLAN_OK);
    CHECK_INT(bytes, 501 * 6);
    unlink(link);
    CHECK_INT(symlink("/dev/zero", link), 0);
    CHECK_INT(kvplan_weights_from_dir(dir, &bytes, &err), KVPLAN_PARSE);
    CHECK_CONTAINS(err.message, "model-extra.safetensors: not a regular file");
    unlink(link);
    for (int i = 0; i < 500; i++) {
        snprintf(path, sizeof path, "%s/model-%05d-of-00500.safetensors", dir,
                 i);
        unlink(path);
    }
    /* an index's total_size at the extreme: read, then a plan that does
     * not fit, not one that wraps */
    snprintf(path, sizeof path, "%s/model.safetensors.index.json", dir);
    write_text(path, "{\"metadata\": {\"total_size\": 9223372036854775807}}");
    CHECK_INT(kvplan_weights_from_dir(dir, &bytes, &err), KVPLAN_OK);
    CHECK_INT(bytes, INT64_MAX);
    {
        kvplan_plan_options o = on_gpu("H100-80GB");
        o.weight_bytes = (kvplan_opt_int){bytes, true};
        free(plan_of("llama-3.1-8b-instruct", &o, KVPLAN_NOT_ENOUGH_MEMORY));
    }
    unlink(path);
    /* D8: an index over 32 MiB is refused before it is parsed */
    snprintf(path, sizeof path, "%s/model.safetensors.index.json", dir);
    f = fopen(path, "wb");
    CHECK(f != NULL && ftruncate(fileno(f), 40 << 20) == 0);
    fclose(f);
    CHECK_INT(kvplan_weights_from_dir(dir, &bytes, &err), KVPLAN_PARSE);
    CHECK_CONTAINS(err.message, "larger than 32 MiB");
    unlink(path);
    rmdir(dir);
}

/* The fraction's factors and the flags that move the budget. */
static void test_budget_flags(void)
{
    /* aiter: x 0.85 with context_len > 8192 (§4.1) */
    kvplan_plan_options o = on_gpu("MI300X");
    o.server.tp_size = 8;
    kvplan_plan *p = plan_of("llama-3.1-70b-instruct", &o, KVPLAN_OK);
    CHECK_STR(p->attention_backend, "aiter");
    CHECK_DOUBLE(p->budget.aiter_factor, 0.85);
    CHECK_DOUBLE(p->budget.mem_fraction_static, p->budget.fraction_rule * 0.85);
    free(p);
    o.server.context_length = (kvplan_opt_int){8192, true};
    p = plan_of("llama-3.1-70b-instruct", &o, KVPLAN_OK);
    CHECK_DOUBLE(p->budget.aiter_factor, 1.0);
    free(p);

    /* DeepEP: 2048 MiB more in the rule's reserve, and no prefill graphs
     * with an all-to-all backend */
    o = on_gpu("H200");
    o.server.tp_size = 8;
    p = plan_of("qwen3-235b-a22b", &o, KVPLAN_OK);
    double reserved = p->budget.reserved_mib;
    double graphs = p->budget.graph_mib;
    free(p);
    o.moe_a2a_backend = "deepep";
    o.ep_size = 8;
    p = plan_of("qwen3-235b-a22b", &o, KVPLAN_OK);
    CHECK_DOUBLE(p->budget.deepep_mib, 2048.0);
    CHECK_DOUBLE(p->budget.reserved_mib,
                 reserved - (graphs - p->budget.graph_mib) + 2048);
    CHECK(p->budget.graph_mib < graphs);
    free(p);

    /* mamba: --mamba-ssm-dtype (and SGLANG_MAMBA_SSM_DTYPE) halve the
     * ssm state; --max-mamba-cache-size sets the slots;
     * --mamba-full-memory-ratio moves the split */
    o = on_gpu("H200");
    o.server.tp_size = 4;
    p = plan_of("qwen3-next-80b-a3b-thinking", &o, KVPLAN_OK);
    int64_t slots = p->stages[0].max_mamba_cache_size;
    double state = p->budget.mamba_gib;
    free(p);
    o.SGLANG_MAMBA_SSM_DTYPE = "bfloat16";
    p = plan_of("qwen3-next-80b-a3b-thinking", &o, KVPLAN_OK);
    CHECK(p->stages[0].max_mamba_cache_size > slots);
    CHECK(fabs(p->budget.mamba_gib - state) < 0.01 * state);
    int64_t env_slots = p->stages[0].max_mamba_cache_size;
    free(p);
    o.SGLANG_MAMBA_SSM_DTYPE = "float32";
    o.mamba_ssm_dtype = "bfloat16"; /* the flag wins */
    p = plan_of("qwen3-next-80b-a3b-thinking", &o, KVPLAN_OK);
    CHECK_INT(p->stages[0].max_mamba_cache_size, env_slots);
    free(p);
    o.mamba_ssm_dtype = NULL;
    o.SGLANG_MAMBA_SSM_DTYPE = NULL;
    o.max_mamba_cache_size = (kvplan_opt_int){100, true};
    p = plan_of("qwen3-next-80b-a3b-thinking", &o, KVPLAN_OK);
    CHECK_INT(p->stages[0].max_mamba_cache_size, 100);
    CHECK_INT(p->max_running_requests, 20); /* 100 // ratio 5 */
    free(p);
    o.max_mamba_cache_size = (kvplan_opt_int){100000000, true};
    free(plan_of("qwen3-next-80b-a3b-thinking", &o, KVPLAN_NOT_ENOUGH_MEMORY));
    o.max_mamba_cache_size.set = false;
    o.mamba_full_memory_ratio = (kvplan_opt_double){0.45, true};
    p = plan_of("qwen3-next-80b-a3b-thinking", &o, KVPLAN_OK);
    CHECK(p->stages[0].max_mamba_cache_size < slots);
    free(p);

    /* --attn-cp-size: attention splits over tp / cp ranks only (its
     * weights twice as large a rank), and no prefill graphs */
    o = on_gpu("H200");
    o.server.tp_size = 8;
    p = plan_of("llama-3.1-70b-instruct", &o, KVPLAN_OK);
    int64_t rows = tensor(p, "self_attn.o_proj")->rank_cols;
    CHECK(p->budget.prefill_graph_bs_count > 0);
    free(p);
    o.server.attn_cp_size = 2;
    p = plan_of("llama-3.1-70b-instruct", &o, KVPLAN_OK);
    CHECK_INT(tensor(p, "self_attn.o_proj")->rank_cols, 2 * rows);
    CHECK_INT(p->budget.prefill_graph_bs_count, 0);
    free(p);
    /* --ep-size and --dcp-size: every rank still holds 1/tp of the
     * experts, and this sglang sizes the pools without DCP */
    o = on_gpu("H200");
    o.server.tp_size = 8;
    p = plan_of("qwen3-235b-a22b", &o, KVPLAN_OK);
    int64_t tokens = p->max_total_num_tokens;
    int64_t weights = p->stages[0].weight_bytes;
    free(p);
    o.ep_size = 8;
    o.dcp_size = 2;
    p = plan_of("qwen3-235b-a22b", &o, KVPLAN_OK);
    CHECK_INT(p->max_total_num_tokens, tokens);
    CHECK_INT(p->stages[0].weight_bytes, weights);
    free(p);

    /* the checks of the new flags, each naming its flag */
    kvplan_error err;
    o = on_gpu("H100-80GB");
    o.server.tp_size = 8;
    o.ep_size = 3;
    CHECK_INT(kvplan_plan_options_validate(&o, &err), KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "--ep-size");
    o.ep_size = 1;
    o.dcp_size = 0;
    CHECK_INT(kvplan_plan_options_validate(&o, &err), KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "--dcp-size");
    o.dcp_size = 2;
    o.quantization = "int3";
    CHECK_INT(kvplan_plan_options_validate(&o, &err), KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "--quantization");
    o.quantization = NULL;
    o.moe_a2a_backend = "nccl";
    CHECK_INT(kvplan_plan_options_validate(&o, &err), KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "--moe-a2a-backend");
    o.moe_a2a_backend = NULL;
    o.mamba_ssm_dtype = "fp8";
    CHECK_INT(kvplan_plan_options_validate(&o, &err), KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "--mamba-ssm-dtype");
    o.mamba_ssm_dtype = NULL;
    o.SGLANG_MAMBA_SSM_DTYPE = "half";
    CHECK_INT(kvplan_plan_options_validate(&o, &err), KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "SGLANG_MAMBA_SSM_DTYPE");
    o.SGLANG_MAMBA_SSM_DTYPE = NULL;
    o.mamba_full_memory_ratio = (kvplan_opt_double){0, true};
    CHECK_INT(kvplan_plan_options_validate(&o, &err), KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "--mamba-full-memory-ratio");
    o.mamba_full_memory_ratio.set = false;
    o.max_mamba_cache_size = (kvplan_opt_int){0, true};
    CHECK_INT(kvplan_plan_options_validate(&o, &err), KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "--max-mamba-cache-size");
    o.max_mamba_cache_size.set = false;
    CHECK_INT(kvplan_plan_options_validate(&o, &err), KVPLAN_OK);
}

/* What sglang could not start is refused (KVPLAN_NOT_ENOUGH_MEMORY, the
 * flag named); what it refuses itself, as it does; what starts but
 * should not surprise, warned of. */
static void test_refusals_and_warnings(void)
{
    kvplan_model *m = NULL;
    kvplan_error err;
    kvplan_plan *p = malloc(sizeof *p);
    /* Llama-4-Scout at TP8: 2048 requests x 10M context of req_to_token,
     * 80 GiB, in a 27 GiB reserve */
    kvplan_plan_options o = on_gpu("H100-80GB");
    o.server.tp_size = 8;
    CHECK_INT(kvplan_model_load("llama-4-scout-17b-16e-instruct", &m, &err),
              KVPLAN_OK);
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_NOT_ENOUGH_MEMORY);
    CHECK_STR(err.field, "--context-length");
    CHECK_CONTAINS(err.message, "req_to_token");
    o.server.context_length = (kvplan_opt_int){131072, true};
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_OK);
    kvplan_model_free(m);
    /* --max-running-requests 100000: 48.8 GiB of req_to_token */
    o = on_gpu("H100-80GB");
    o.server.max_running_requests = (kvplan_opt_int){100000, true};
    CHECK_INT(kvplan_model_load("llama-3.1-8b-instruct", &m, &err), KVPLAN_OK);
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_NOT_ENOUGH_MEMORY);
    CHECK_STR(err.field, "--max-running-requests");
    /* --max-total-tokens above the profiled: sglang's warning */
    o.server.max_running_requests.set = false;
    o.max_total_tokens = (kvplan_opt_int){10000000, true};
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_OK);
    CHECK_INT(p->num_warnings, 1);
    CHECK_INT(p->warnings[0].code, KVPLAN_WARN_MAX_TOTAL_TOKENS_ABOVE_PROFILED);
    CHECK_CONTAINS(p->warnings[0].message, "is larger than the profiled value");
    /* a user's max_running_requests the pool cannot hold: reduced, warned */
    o.max_total_tokens.set = false;
    o.server.max_running_requests = (kvplan_opt_int){20000, true};
    o.server.context_length = (kvplan_opt_int){1024, true};
    o.mem_fraction_static = (kvplan_opt_double){0.22, true};
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_OK);
    CHECK(p->max_running_requests < 20000);
    CHECK_INT(p->warnings[0].code, KVPLAN_WARN_MAX_RUNNING_REQUESTS_REDUCED);
    CHECK_CONTAINS(p->warnings[0].message, "was reduced from the requested");
    /* the fraction so high the reserve cannot hold the graphs: warned */
    o = on_gpu("H100-80GB");
    o.mem_fraction_static = (kvplan_opt_double){0.985, true};
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_OK);
    CHECK_INT(p->warnings[0].code, KVPLAN_WARN_RESERVE_TIGHT);
    /* TP that does not divide the heads (sglang cannot split them) */
    o = on_gpu("H100-80GB");
    o.server.tp_size = 3;
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_INVALID_CONFIG);
    CHECK_STR(err.field, "--tp-size");
    kvplan_model_free(m);
    /* DSA's pool asserts page 64 on CUDA */
    o = on_gpu("B200");
    o.server.tp_size = 8;
    o.server.page_size = 32;
    CHECK_INT(kvplan_model_load("deepseek-v3.2", &m, &err), KVPLAN_OK);
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_INVALID_CONFIG);
    CHECK_STR(err.field, "--page-size");
    CHECK_CONTAINS(err.message, "page_size == 64");
    o.server.page_size = 64;
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_OK);
    kvplan_model_free(m);
    /* gpt-oss-120b on one H100: one request at 131072 cannot fit */
    o = on_gpu("H100-80GB");
    CHECK_INT(kvplan_model_load("gpt-oss-120b", &m, &err), KVPLAN_OK);
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_OK);
    CHECK_INT(p->num_warnings, 1);
    CHECK_INT(p->warnings[0].code, KVPLAN_WARN_CONTEXT_TOO_LONG);
    CHECK_STR(p->warnings[0].field, "--context-length");
    CHECK_INT(p->longest_request, p->max_total_num_tokens - 1);
    CHECK(p->longest_request < p->context_len);
    o.server.context_length = (kvplan_opt_int){32768, true};
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_OK);
    CHECK_INT(p->num_warnings, 0);
    CHECK_INT(p->longest_request, 32768);
    /* a sliding-window pool smaller than one window and a page: served
     * here, refused by later sglang (§7) */
    o.server.swa_full_tokens_ratio = (kvplan_opt_double){0.0001, true};
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_OK);
    CHECK_INT(p->num_warnings, 2);
    /* and then no request of 32768 tokens fits that pool either: its
     * window term is more than the pool */
    CHECK_INT(p->warnings[0].code, KVPLAN_WARN_CONTEXT_TOO_LONG);
    CHECK_CONTAINS(p->warnings[0].message, "the swa pool holds");
    CHECK_INT(p->capacity.longest_binding, KVPLAN_LIMIT_POOL);
    CHECK_INT(p->capacity.pools[p->capacity.longest_pool].kind,
              KVPLAN_POOL_SWA);
    CHECK_INT(p->warnings[1].code, KVPLAN_WARN_SWA_BELOW_WINDOW);
    CHECK_STR(p->warnings[1].field, "--swa-full-tokens-ratio");
    kvplan_model_free(m);
    /* review D9: every failure of a plan names the flag behind it */
    CHECK_INT(kvplan_model_load("llama-3.1-8b-instruct", &m, &err), KVPLAN_OK);
    o = on_gpu("H100-80GB");
    o.available_bytes = (kvplan_opt_int){INT64_MAX, true};
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_OVERFLOW);
    CHECK_STR(err.field, "--available-bytes");
    o = on_gpu("H100-80GB");
    o.max_total_tokens = (kvplan_opt_int){1, true};
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_NOT_ENOUGH_MEMORY);
    CHECK_STR(err.field, "--max-total-tokens");
    o = on_gpu("H100-80GB");
    o.server.disaggregation_mode = KVPLAN_DISAGG_DECODE;
    o.server.disaggregation_decode_extra_slots =
        (kvplan_opt_int){INT64_MAX, true};
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_OVERFLOW);
    CHECK_STR(err.field, "--disaggregation-decode-extra-slots");
    o = on_gpu("H100-80GB");
    o.cuda_graph_max_bs = (kvplan_opt_int){1000000000, true};
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_NOT_ENOUGH_MEMORY);
    CHECK_STR(err.field, "--cuda-graph-max-bs");
    CHECK_CONTAINS(err.message, "sglang's rule leaves no mem_fraction_static");
    o = on_gpu("H100-80GB");
    o.server.pp_size = 2;
    o.server.SGLANG_PP_LAYER_PARTITION = "0,32";
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_INVALID_CONFIG);
    CHECK_STR(err.field, "SGLANG_PP_LAYER_PARTITION");
    /* a partition as Python's int() reads it (review D12) */
    o.server.SGLANG_PP_LAYER_PARTITION = " 16 , 16";
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_OK);
    /* EAGLE, EAGLE3 or STANDALONE with no draft model on a model that is
     * not its own draft: sglang's speculative hook names no draft and the
     * server does not start (server_args.py, _handle_speculative_decoding;
     * review R21, issue 25): refused, naming the flag */
    static const kvplan_spec_algorithm drafted[] = {
        KVPLAN_SPEC_EAGLE, KVPLAN_SPEC_EAGLE3, KVPLAN_SPEC_STANDALONE};
    for (size_t i = 0; i < 3; i++) {
        o = on_gpu("H100-80GB");
        o.server.speculative_algorithm = drafted[i];
        CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_INVALID_CONFIG);
        CHECK_STR(err.field, "--speculative-draft-model-path");
    }
    /* NGRAM drafts from the prompt: no model needed */
    o.server.speculative_algorithm = KVPLAN_SPEC_NGRAM;
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_OK);
    kvplan_model_free(m);
    /* a GPU too small for its own context */
    o = on_gpu("H100-80GB");
    o.gpu.total_mib = 96;
    CHECK_INT(kvplan_model_load("qwen3-0.6b", &m, &err), KVPLAN_OK);
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_NOT_ENOUGH_MEMORY);
    CHECK_STR(err.field, "--gpu-memory");
    /* what other processes hold (--gpu auto's): at least 0, less than the
     * GPU; 40 GiB held leaves 40 GiB less before loading */
    static const double held[] = {-1, 81559, 1e300};
    for (size_t i = 0; i < sizeof held / sizeof held[0]; i++) {
        o = on_gpu("H100-80GB");
        o.gpu.in_use_mib = held[i];
        CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_INVALID_ARGUMENT);
        CHECK_STR(err.field, "gpu.in_use_mib");
    }
    o = on_gpu("H100-80GB");
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_OK);
    double idle = p->budget.pre_load_gib;
    o.gpu.in_use_mib = 40960;
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_OK);
    CHECK_DOUBLE(p->budget.pre_load_gib, idle - 40);
    kvplan_model_free(m);
    free(p);
}

/* The GPUs a plan occupies (src/plan/fleet.c): tp x pp per server, and
 * --dp-size whole servers unless DP attention shares one server's ranks;
 * the requests of context_len at once count every DP worker. */
static void test_fleet(void)
{
    kvplan_plan_options o = on_gpu("H100-80GB");
    kvplan_plan *one = plan_of("llama-3.1-8b-instruct", &o, KVPLAN_OK);
    CHECK_INT(one->fleet.gpus, 1);
    CHECK_INT(one->fleet.replicas, 1);
    int64_t c = one->capacity.max_concurrency_at_context_len;
    CHECK(c > 0);
    /* --dp-size 2: two servers of one GPU, each with the same pools */
    o.server.dp_size = 2;
    kvplan_plan *dp = plan_of("llama-3.1-8b-instruct", &o, KVPLAN_OK);
    CHECK_INT(dp->fleet.gpus, 2);
    CHECK_INT(dp->fleet.gpus_per_replica, 1);
    CHECK_INT(dp->fleet.replicas, 2);
    CHECK_INT(dp->fleet.dp_workers, 2);
    CHECK_INT(dp->capacity.max_concurrency_at_context_len, c);
    CHECK_INT(dp->fleet.concurrency_at_context_len, 2 * c);
    CHECK(dp->fleet.concurrency_per_gpu == (double)c);
    /* tp 4, pp 2, dp 4 with DP attention: one server of 8 GPUs, four
     * attention workers */
    o = on_gpu("H200");
    o.server.tp_size = 4;
    o.server.pp_size = 2;
    o.server.dp_size = 4;
    o.server.enable_dp_attention = true;
    kvplan_plan *att = plan_of("qwen3-32b", &o, KVPLAN_OK);
    CHECK_INT(att->fleet.gpus, 8);
    CHECK_INT(att->fleet.gpus_per_replica, 8);
    CHECK_INT(att->fleet.replicas, 1);
    CHECK_INT(att->fleet.dp_workers, 4);
    CHECK_INT(att->fleet.concurrency_at_context_len,
              4 * att->capacity.max_concurrency_at_context_len);
    free(one);
    free(dp);
    free(att);
}

/* A plan whose front is kept in the model handle (src/plan/cache.c) is
 * the plan a fresh handle computes, byte for byte (both plans' memory
 * filled alike first, so that a field the kept path leaves stale would
 * show): the same options again, and again with another fraction; over
 * the catalog, with TP, PP, a sglang version, a DSV4 state dtype and an
 * error that only some fractions make; and fronts not kept whose weight
 * estimates are (a context length per fraction). */
static void test_front_kept(void)
{
    kvplan_plan *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    size_t compared = 0, models = 0;
    for (size_t c = 0; a != NULL && b != NULL && kvplan_catalog_name(c); c++) {
        kvplan_model *warm = NULL;
        if (kvplan_model_load(kvplan_catalog_name(c), &warm, NULL) != KVPLAN_OK)
            continue;
        models++;
        for (int v = 0; v < 6; v++) {
            kvplan_plan_options o;
            kvplan_plan_options_init(&o);
            o.gpu_set = kvplan_gpu_preset(v == 3 ? "H20" : "H200", &o.gpu);
            o.server.tp_size = v == 1 ? 8 : v == 4 ? 2 : 4;
            /* pp 4: fronts not kept, the middle stages' weights are */
            o.server.pp_size = v == 2 ? 2 : v == 5 ? 4 : 1;
            if (v == 3)
                o.server.SGLANG_DSV4_COMPRESS_STATE_DTYPE = "bfloat16";
            if (v == 4)
                kvplan_sglang_profile_parse("0.5.4", &o.sglang_version, NULL);
            const double fractions[] = {0, 0.85, 0.6, 0.93};
            for (int f = 0; f < 4; f++) {
                o.mem_fraction_static =
                    (kvplan_opt_double){fractions[f], f > 0};
                if (v == 4) /* a front for each: the weights' estimate kept */
                    o.server.context_length =
                        (kvplan_opt_int){2048 * (f + 1), true};
                kvplan_model *fresh = NULL;
                kvplan_error ea, eb;
                memset(a, 0x5a, sizeof *a);
                memset(b, 0x5a, sizeof *b);
                /* the first fraction twice on the warm handle: kept, then
                 * restored; the next ones restored */
                if (f == 0)
                    kvplan_plan_compute(warm, &o, a, NULL);
                memset(a, 0x5a, sizeof *a);
                kvplan_status sa = kvplan_plan_compute(warm, &o, a, &ea);
                CHECK_INT(
                    kvplan_model_load(kvplan_catalog_name(c), &fresh, NULL),
                    KVPLAN_OK);
                kvplan_status sb = kvplan_plan_compute(fresh, &o, b, &eb);
                kvplan_model_free(fresh);
                CHECK_INT(sa, sb);
                if (sa != sb || sa != KVPLAN_OK) {
                    if (sa == sb)
                        CHECK_STR(ea.message, eb.message);
                    continue;
                }
                compared++;
                if (memcmp(a, b, sizeof *a) != 0)
                    CHECK_FAIL_("%s, variant %d, fraction %g: the kept "
                                "front's plan differs from a fresh one",
                                kvplan_catalog_name(c), v, fractions[f]);
                else
                    check_passed_++;
            }
        }
        kvplan_model_free(warm);
    }
    printf("kept fronts: %zu plans of %zu models compared\n", compared, models);
    CHECK(models > 70);
    CHECK(compared > 700);
    free(a);
    free(b);
}

/* PhiForCausalLM (phi-1.5, phi-2: sglang's models/phi.py), refused
 * before as a class sglang lacked (issue 27). Phi-2's shapes: 32 layers
 * of 32 heads of 80, fp16; its MLP is fc1 and fc2, two matrices: vocab x
 * hidden x 2 + 32 x (4 h^2 + 2 h x 10240) = 2,778,726,400 parameters
 * (its card's 2.7 B; biases and norms left out), and one token's KV is 32
 * x 32 x 80 x 2 x 2 = 327,680 bytes. */
static void test_phi(void)
{
    static const char config[] =
        "{\"architectures\": [\"PhiForCausalLM\"], \"model_type\": "
        "\"phi\", \"hidden_size\": 2560, \"intermediate_size\": 10240, "
        "\"num_attention_heads\": 32, \"num_hidden_layers\": 32, "
        "\"num_key_value_heads\": 32, \"vocab_size\": 51200, "
        "\"max_position_embeddings\": 2048, \"partial_rotary_factor\": "
        "0.4, \"tie_word_embeddings\": false, \"torch_dtype\": "
        "\"float16\"}";
    kvplan_model *m = NULL;
    kvplan_error err;
    CHECK_INT(kvplan_model_load_json_override(config, strlen(config), "phi-2",
                                              NULL, &m, &err),
              KVPLAN_OK);
    kvplan_model_params params;
    CHECK_INT(kvplan_model_parameters(m, &params, &err), KVPLAN_OK);
    CHECK_INT(params.total, 51200LL * 2560 * 2 +
                                32 * (4LL * 2560 * 2560 + 2LL * 2560 * 10240));
    kvplan_plan_options o = on_gpu("H100-80GB");
    kvplan_plan *p = malloc(sizeof *p);
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_OK);
    CHECK_INT((int64_t)p->stages[0].configurator.cell_size, 327680);
    free(p);
    kvplan_model_free(m);
}

int main(void)
{
    test_prefill_graph_count();
    test_options_checked();
    test_resolved();
    test_plan_writes_what_it_uses();
    test_mem_fraction();
    test_requests_and_allocation();
    test_model_hooks();
    test_pipeline();
    test_weights_and_gpus();
    test_weight_estimates();
    test_weight_fixes();
    test_modelopt_dir();
    test_hostile_safetensors();
    test_budget_flags();
    test_refusals_and_warnings();
    test_fleet();
    test_front_kept();
    test_phi();
    return check_report();
}
