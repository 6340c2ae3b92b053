/*
 * test_vllm_versions.c: --vllm-version, one test per rule
 * (src/engine/versions.c, docs/engines.md "vLLM versions"). Each figure
 * is derived here by hand from the rule's PR, under the newest profile
 * and under the release range that still had the older behaviour.
 */
#include "check.h"
#include "kvplan.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define GIB 1073741824LL

static kvplan_engine_plan plan_of(kvplan_model *m, kvplan_engine_options *o,
                                  kvplan_status want, kvplan_error *err)
{
    kvplan_engine_plan p;
    kvplan_error e;
    memset(&p, 0, sizeof p);
    kvplan_status st = kvplan_engine_compute(m, o, &p, err ? err : &e);
    CHECK_INT(st, want);
    if (st != want)
        fprintf(stderr, "  %s\n", (err ? err : &e)->message);
    return p;
}

static kvplan_model *load(const char *name)
{
    kvplan_model *m = NULL;
    CHECK_INT(kvplan_model_load(name, &m, NULL), KVPLAN_OK);
    return m;
}

static kvplan_engine_options on(const char *gpu, int64_t tp)
{
    kvplan_engine_options o;
    kvplan_engine_options_init(&o);
    CHECK(kvplan_gpu_preset(gpu, &o.gpu));
    o.gpu_set = true;
    o.tp_size = tp;
    return o;
}

/* Versions as users write them; older than 0.10 (V0) and newer than 0.31
 * are refused, naming the flag. */
static void test_parse(void)
{
    static const struct {
        const char *text;
        kvplan_vllm_profile p;
    } ok[] = {
        {"latest", KVPLAN_VLLM_LATEST},    {"0.31.0", KVPLAN_VLLM_LATEST},
        {"0.29.0rc1", KVPLAN_VLLM_LATEST}, {"0.28", KVPLAN_VLLM_V0_28},
        {"v0.27.1", KVPLAN_VLLM_V0_26},    {"0.23.0", KVPLAN_VLLM_V0_23},
        {"0.26.0", KVPLAN_VLLM_V0_26},     {"0.25.1", KVPLAN_VLLM_V0_23},
        {"0.26-0.27", KVPLAN_VLLM_V0_26},  {"0.22.1", KVPLAN_VLLM_V0_20},
        {"0.21.0", KVPLAN_VLLM_V0_20},     {"0.20.2", KVPLAN_VLLM_V0_20},
        {"0.10.2", KVPLAN_VLLM_V0_10},     {"0.12.0", KVPLAN_VLLM_V0_10},
        {"0.13.0", KVPLAN_VLLM_V0_13},     {"0.19.1", KVPLAN_VLLM_V0_13},
        {"0.23-0.25", KVPLAN_VLLM_V0_23},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        kvplan_vllm_profile p = KVPLAN_VLLM_LATEST;
        CHECK_INT(kvplan_vllm_profile_parse(ok[i].text, &p, NULL), KVPLAN_OK);
        CHECK_INT(p, ok[i].p);
    }
    kvplan_error err;
    kvplan_vllm_profile p;
    CHECK_INT(kvplan_vllm_profile_parse("0.9.2", &p, &err),
              KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "--vllm-version");
    CHECK(strstr(err.message, "older than 0.10") != NULL);
    CHECK_INT(kvplan_vllm_profile_parse("0.32.0", &p, &err),
              KVPLAN_INVALID_ARGUMENT);
    CHECK(strstr(err.message, "newer than 0.31") != NULL);
    CHECK_INT(kvplan_vllm_profile_parse("nightly", &p, &err),
              KVPLAN_INVALID_ARGUMENT);
    /* each profile's rules: the newest none, the oldest all eleven */
    CHECK_INT(kvplan_vllm_rules(KVPLAN_VLLM_LATEST), 0);
    CHECK_INT(kvplan_vllm_rules(KVPLAN_VLLM_V0_28),
              KVPLAN_VLLM_RULE_NO_NULL_BLOCK);
    size_t n = 0;
    kvplan_rule_info r;
    for (; kvplan_vllm_rule_at(n, &r); n++)
        CHECK((kvplan_vllm_rules(KVPLAN_VLLM_V0_10) & r.bit) != 0);
    CHECK_INT(n, 11);
    CHECK_INT(kvplan_vllm_rules(KVPLAN_VLLM_V0_23) ^
                  kvplan_vllm_rules(KVPLAN_VLLM_V0_26),
              KVPLAN_VLLM_RULE_ONE_BATCH_IN_FLIGHT);
    CHECK_STR(kvplan_vllm_profile_name(KVPLAN_VLLM_V0_10), "0.10-0.12");
    CHECK_STR(kvplan_vllm_profile_name(KVPLAN_VLLM_V0_13), "0.13-0.19");
    CHECK_INT(kvplan_vllm_rules(KVPLAN_VLLM_V0_13) ^
                  kvplan_vllm_rules(KVPLAN_VLLM_V0_10),
              KVPLAN_VLLM_RULE_SSM_AS_CONV | KVPLAN_VLLM_RULE_MLA_CUTLASS);
}

/* no_null_block (vllm#47272, 0.29): Llama-3.1-8B, --max-model-len 32768,
 * a KV cache of exactly one request: 32768 / 16 = 2048 blocks of 32
 * layers x 65536 bytes = 4 GiB. 0.28 starts at 1.00x (and then never
 * schedules the request: the null block is not usable); 0.29 refuses,
 * the longest length that fits one block less: 32752. */
static void test_null_block(void)
{
    kvplan_model *m = load("llama-3.1-8b-instruct");
    kvplan_engine_options o = on("H100-80GB", 1);
    o.max_model_len = (kvplan_opt_int){32768, true};
    o.kv_cache_memory_bytes = (kvplan_opt_int){2048 * 32 * 65536LL, true};
    CHECK_INT(o.kv_cache_memory_bytes.value, 4 * GIB);
    o.vllm_version = KVPLAN_VLLM_V0_28;
    kvplan_engine_plan p = plan_of(m, &o, KVPLAN_OK, NULL);
    CHECK_INT(p.num_gpu_blocks, 2048);
    CHECK_DOUBLE(p.max_concurrency, 1.0);
    o.vllm_version = KVPLAN_VLLM_LATEST;
    kvplan_error err;
    plan_of(m, &o, KVPLAN_NOT_ENOUGH_MEMORY, &err);
    CHECK_STR(err.field, "--max-model-len");
    CHECK(strstr(err.message, "estimated maximum model length is 32752"));
    /* the rule alone, switched back */
    o.vllm_rules_flip = KVPLAN_VLLM_RULE_NO_NULL_BLOCK;
    plan_of(m, &o, KVPLAN_OK, NULL);
    kvplan_model_free(m);
}

/* mamba_none (vllm#50991, 0.28): Qwen3-Next-80B at TP4 on H200, 32 GiB
 * (tests/test_engines.c's test_mamba: 10280 blocks; a request of 262144
 * holds 964 attention blocks and, in each of the 3 mamba groups, one
 * state block with mode none, two with align). */
static void test_mamba_mode(void)
{
    kvplan_model *m = load("qwen3-next-80b-a3b-thinking");
    kvplan_engine_options o = on("H200", 4);
    o.kv_cache_memory_bytes = (kvplan_opt_int){32 * GIB, true};
    kvplan_engine_plan p = plan_of(m, &o, KVPLAN_OK, NULL);
    CHECK_INT(p.mamba_cache_mode, KVPLAN_MAMBA_CACHE_ALIGN);
    CHECK_INT(p.blocks_per_request, 964 + 3 * 2);
    CHECK_INT(p.kv_cache_tokens, (int64_t)(10280.0 / 970 * 262144));
    o.vllm_version = KVPLAN_VLLM_V0_23;
    p = plan_of(m, &o, KVPLAN_OK, NULL);
    CHECK_INT(p.mamba_cache_mode, KVPLAN_MAMBA_CACHE_NONE);
    CHECK_INT(p.blocks_per_request, 964 + 3);
    /* without prefix caching 0.29 keeps none too; "all": a state per
     * attention block of 272 tokens, 964 in each group */
    o.vllm_version = KVPLAN_VLLM_LATEST;
    o.no_prefix_caching = true;
    p = plan_of(m, &o, KVPLAN_OK, NULL);
    CHECK_INT(p.blocks_per_request, 967);
    o.no_prefix_caching = false;
    o.mamba_cache_mode = KVPLAN_MAMBA_CACHE_ALL;
    p = plan_of(m, &o, KVPLAN_OK, NULL);
    CHECK_INT(p.blocks_per_request, 964 * 4);
    /* a dense model has no mode */
    kvplan_model *d = load("llama-3.1-8b-instruct");
    o = on("H100-80GB", 1);
    o.kv_cache_memory_bytes = (kvplan_opt_int){8 * GIB, true};
    o.max_model_len = (kvplan_opt_int){8192, true};
    CHECK_INT(plan_of(d, &o, KVPLAN_OK, NULL).mamba_cache_mode,
              KVPLAN_MAMBA_CACHE_AUTO);
    kvplan_model_free(d);
    kvplan_model_free(m);
}

/* unpadded_page (vllm#45181, #45207; from 0.23): full layers of head 128
 * and sliding ones of head 96 (swa_head_dim), 8 KV heads, fp16: pages
 * 16 x 8 x 256 x 2 = 65536 and 16 x 8 x 192 x 2 = 49152, which does not
 * divide it. 0.20-0.22 refuse the model; later the sliding page is padded
 * to 65536, its block kept at 16: 8 + 8 layers, groups of 8, 1 GiB //
 * 65536 // 8 = 2048 blocks. */
/* mamba_seqs_unchecked (vllm#38270, refused from 0.20): Qwen3-Next at
 * TP4 with 2 GiB of KV cache. test_mamba_mode's 32 GiB hold 10280 blocks
 * (a block is 32 GiB / 10280 = 3342336 bytes: 1 GiB is 321 of them), so
 * 2 GiB hold 642 (at --max-model-len 32768: one request of 262144 needs
 * 3 GiB), under the 1024 sequences an H200 defaults to. 0.29 refuses,
 * naming --max-num-seqs and the blocks; with --enforce-eager no graph is
 * captured and it starts; 0.13-0.19 start. */
/* one_batch_in_flight (vllm#47728, first in 0.26.0; vllm#49878 shows the
 * boundary): Gemma 2 9B (21 sliding layers of window 4096 beside 21 full,
 * one page of 16 x 8 x 256 x 2 x 2 = 131072 bytes, groups of 21) at
 * --max-model-len 32768, --max-num-batched-tokens 8192, an 8 GiB cache.
 * One batch in flight (0.25, or --no-async-scheduling): a request holds
 * 2048 full blocks and cdiv(4095 + 8192, 16) + 1 = 769 sliding ones,
 * 2817 x 131072 x 21 = 7.22 GiB, which fits. Two (async scheduling, the
 * default from 0.26): cdiv(4095 + 16384, 16) + 1 = 1281, 3329 blocks,
 * 8.53 GiB: refused. PP 2 keeps two batches whatever the scheduling. */
static void test_one_batch_in_flight(void)
{
    kvplan_model *m = load("gemma-2-9b-it");
    kvplan_engine_options o = on("H100-80GB", 1);
    o.kv_cache_memory_bytes = (kvplan_opt_int){8 * GIB, true};
    o.max_model_len = (kvplan_opt_int){32768, true};
    o.max_num_batched_tokens = (kvplan_opt_int){8192, true};
    o.allow_long_max_model_len = true;
    kvplan_engine_plan p;
    kvplan_error err;
    CHECK_INT(kvplan_engine_compute(m, &o, &p, &err), KVPLAN_NOT_ENOUGH_MEMORY);
    CHECK_STR(err.field, "--max-model-len");
    CHECK_CONTAINS(err.message, "(8.53 GiB KV cache is needed");
    CHECK_DOUBLE((2048.0 + 1281) * 131072 * 21 / GIB, 8.5338134765625);
    o.vllm_version = KVPLAN_VLLM_V0_23;
    CHECK_INT(kvplan_engine_compute(m, &o, &p, &err), KVPLAN_OK);
    CHECK_INT(p.max_in_flight_tokens, 8192);
    CHECK_INT(p.blocks_per_request, 2048 + 769);
    CHECK_INT(p.num_gpu_blocks, 8 * GIB / 131072 / 21);
    /* the newest, one batch: the same plan */
    o.vllm_version = KVPLAN_VLLM_LATEST;
    o.no_async_scheduling = true;
    kvplan_engine_plan q;
    CHECK_INT(kvplan_engine_compute(m, &o, &q, &err), KVPLAN_OK);
    CHECK_INT(q.blocks_per_request, p.blocks_per_request);
    CHECK_DOUBLE(q.max_concurrency, p.max_concurrency);
    /* PP 2: a batch a stage, async or not; each stage 11 + 10 layers */
    o.pp_size = 2;
    CHECK_INT(kvplan_engine_compute(m, &o, &q, &err), KVPLAN_OK);
    CHECK_INT(q.max_in_flight_tokens, 16384);
    CHECK_INT(q.groups[1].max_usage_bytes, 1281 * 131072);
    kvplan_model_free(m);
}

static void test_mamba_seqs(void)
{
    kvplan_model *m = load("qwen3-next-80b-a3b-thinking");
    kvplan_engine_options o = on("H200", 4);
    o.kv_cache_memory_bytes = (kvplan_opt_int){2 * GIB, true};
    o.max_model_len = (kvplan_opt_int){32768, true};
    kvplan_error err;
    plan_of(m, &o, KVPLAN_NOT_ENOUGH_MEMORY, &err);
    CHECK_STR(err.field, "--max-num-seqs");
    CHECK(strstr(err.message, "max_num_seqs (1024) exceeds available Mamba "
                              "cache blocks (642)") != NULL);
    o.enforce_eager = true;
    CHECK_INT(plan_of(m, &o, KVPLAN_OK, NULL).num_gpu_blocks, 642);
    o.enforce_eager = false;
    o.max_num_seqs = (kvplan_opt_int){642, true};
    plan_of(m, &o, KVPLAN_OK, NULL);
    o.max_num_seqs.set = false;
    o.vllm_version = KVPLAN_VLLM_V0_13;
    plan_of(m, &o, KVPLAN_OK, NULL);
    o.vllm_version = KVPLAN_VLLM_V0_20;
    plan_of(m, &o, KVPLAN_NOT_ENOUGH_MEMORY, NULL);
    kvplan_model_free(m);
}

static void test_padded_page(void)
{
    char types[512] = "";
    for (int i = 0; i < 16; i++)
        snprintf(types + strlen(types), sizeof types - strlen(types),
                 "%s\"%s\"", i ? "," : "",
                 i % 2 ? "sliding_attention" : "full_attention");
    char config[2048];
    snprintf(config, sizeof config,
             "{\"architectures\": [\"Qwen2ForCausalLM\"], \"model_type\": "
             "\"qwen2\", \"hidden_size\": 4096, \"intermediate_size\": "
             "11008, \"num_attention_heads\": 32, \"num_key_value_heads\": "
             "8, \"head_dim\": 128, \"swa_head_dim\": 96, \"vocab_size\": "
             "32000, \"max_position_embeddings\": 32768, "
             "\"sliding_window\": 1024, \"use_sliding_window\": true, "
             "\"num_hidden_layers\": 16, \"layer_types\": [%s], "
             "\"torch_dtype\": \"float16\"}",
             types);
    kvplan_model *m = NULL;
    CHECK_INT(kvplan_model_load_json_override(config, strlen(config), "swa-96",
                                              NULL, &m, NULL),
              KVPLAN_OK);
    kvplan_engine_options o = on("H100-80GB", 1);
    o.kv_cache_memory_bytes = (kvplan_opt_int){GIB, true};
    o.max_model_len = (kvplan_opt_int){8192, true};
    kvplan_engine_plan p = plan_of(m, &o, KVPLAN_OK, NULL);
    CHECK_INT(p.num_groups, 2);
    CHECK_INT(p.groups[1].spec, KVPLAN_KV_SPEC_SLIDING_WINDOW);
    CHECK_INT(p.groups[1].real_page_bytes, 49152);
    CHECK_INT(p.groups[1].page_bytes, 65536);
    CHECK_INT(p.groups[1].block_size, 16);
    CHECK_INT(p.group_size, 8);
    CHECK_INT(p.num_gpu_blocks, GIB / 65536 / 8);
    o.vllm_version = KVPLAN_VLLM_V0_20;
    kvplan_error err;
    plan_of(m, &o, KVPLAN_UNSUPPORTED, &err);
    CHECK(strstr(err.message, "not divisible by the maximum page size"));
    kvplan_model_free(m);
}

/* graphs_uncounted and utilization_090 (before 0.20): Llama-3.1-8B on
 * an H100, its budget estimated. 0.10-0.19 request ceil(total x 0.9),
 * not 0.92, and take no CUDA graphs out of it (0 bytes, the rule's). */
static void test_budget_rules(void)
{
    kvplan_model *m = load("llama-3.1-8b-instruct");
    kvplan_engine_options o = on("H100-80GB", 1);
    o.max_model_len = (kvplan_opt_int){8192, true};
    kvplan_engine_plan now = plan_of(m, &o, KVPLAN_OK, NULL);
    CHECK_DOUBLE(now.requested_bytes, ceil(now.total_bytes * 0.92));
    CHECK(now.cuda_graph_bytes > 0);
    CHECK_INT(now.cuda_graph_source, KVPLAN_SOURCE_ESTIMATED);
    o.vllm_version = KVPLAN_VLLM_V0_10;
    kvplan_engine_plan old = plan_of(m, &o, KVPLAN_OK, NULL);
    CHECK_DOUBLE(old.requested_bytes, ceil(old.total_bytes * 0.9));
    CHECK_DOUBLE(old.cuda_graph_bytes, 0.0);
    CHECK_INT(old.cuda_graph_source, KVPLAN_SOURCE_EXACT);
    CHECK_INT(old.available_bytes,
              (int64_t)(old.requested_bytes - old.weight_bytes -
                        old.activation_bytes - old.non_torch_bytes));
    /* each rule alone, from the newest */
    o.vllm_version = KVPLAN_VLLM_LATEST;
    o.vllm_rules_flip = KVPLAN_VLLM_RULE_UTILIZATION_090;
    kvplan_engine_plan u = plan_of(m, &o, KVPLAN_OK, NULL);
    CHECK_DOUBLE(u.requested_bytes, old.requested_bytes);
    CHECK_DOUBLE(u.cuda_graph_bytes, now.cuda_graph_bytes);
    o.vllm_rules_flip = KVPLAN_VLLM_RULE_GRAPHS_UNCOUNTED;
    kvplan_engine_plan g = plan_of(m, &o, KVPLAN_OK, NULL);
    CHECK_DOUBLE(g.requested_bytes, now.requested_bytes);
    CHECK_INT(g.available_bytes - now.available_bytes,
              (int64_t)now.cuda_graph_bytes);
    kvplan_model_free(m);
}

/* tokens_per_group (0.10-0.19's _report_kv_cache_config, vllm#40691):
 * "GPU KV cache size" = num_blocks // groups x the least block. Qwen3-
 * Next at 32 GiB: 10280 blocks in 4 groups of block 272: 2570 x 272 =
 * 699,040 tokens, where max_concurrency x max_model_len gives 2.7 M (the
 * +330 % of issue 27). A one-group model prints blocks x block in both. */
static void test_tokens_per_group(void)
{
    kvplan_model *m = load("qwen3-next-80b-a3b-thinking");
    kvplan_engine_options o = on("H200", 4);
    o.kv_cache_memory_bytes = (kvplan_opt_int){32 * GIB, true};
    o.vllm_version = KVPLAN_VLLM_V0_10;
    kvplan_engine_plan p = plan_of(m, &o, KVPLAN_OK, NULL);
    CHECK_INT(p.num_gpu_blocks, 10280);
    CHECK_INT(p.kv_cache_tokens, 10280 / 4 * 272);
    CHECK_INT(p.kv_cache_tokens, 699040);
    CHECK_DOUBLE(p.max_concurrency, 10280.0 / 967);
    kvplan_model_free(m);
    m = load("llama-3.1-8b-instruct");
    o = on("H100-80GB", 1);
    o.kv_cache_memory_bytes = (kvplan_opt_int){8 * GIB, true};
    o.max_model_len = (kvplan_opt_int){32768, true};
    o.vllm_version = KVPLAN_VLLM_V0_10;
    CHECK_INT(plan_of(m, &o, KVPLAN_OK, NULL).kv_cache_tokens, 4096 * 16);
    o.vllm_version = KVPLAN_VLLM_LATEST;
    CHECK_INT(plan_of(m, &o, KVPLAN_OK, NULL).kv_cache_tokens, 4096 * 16);
    kvplan_model_free(m);
}

/* --num-gpu-blocks-override: its blocks' bytes replace the budget's
 * (kv_cache_utils.py); the budget's own count is kept. Llama-3.1-8B,
 * 1000 blocks at --max-model-len 8192 (512 blocks a request): 1.95x. */
static void test_override(void)
{
    kvplan_model *m = load("llama-3.1-8b-instruct");
    kvplan_engine_options o = on("H100-80GB", 1);
    o.kv_cache_memory_bytes = (kvplan_opt_int){8 * GIB, true};
    o.max_model_len = (kvplan_opt_int){8192, true};
    o.num_gpu_blocks_override = (kvplan_opt_int){1000, true};
    kvplan_engine_plan p = plan_of(m, &o, KVPLAN_OK, NULL);
    CHECK_INT(p.profiled_blocks, 4096);
    CHECK_INT(p.num_gpu_blocks, 1000);
    CHECK_INT(p.available_bytes, 1000 * 32 * 65536LL);
    CHECK_DOUBLE(p.max_concurrency, 1000.0 / 512);
    /* fewer than one request needs (and the null block): refused */
    o.num_gpu_blocks_override = (kvplan_opt_int){512, true};
    plan_of(m, &o, KVPLAN_NOT_ENOUGH_MEMORY, NULL);
    o.num_gpu_blocks_override = (kvplan_opt_int){0, true};
    kvplan_error err;
    plan_of(m, &o, KVPLAN_INVALID_ARGUMENT, &err);
    CHECK_STR(err.field, "--num-gpu-blocks-override");
    kvplan_model_free(m);
}

/* --compare-version under --engine vllm (kvplan_engine_version_compare):
 * Qwen3-Next at 32 GiB, the newest against 0.10-0.12: all eleven rules
 * differ (the two of Nemotron-H's ssm dtype and MLA's on Blackwell move
 * nothing here); tokens_per_group alone prints 699,040
 * (test_tokens_per_group), mamba_none alone a request of 967 blocks (10280 /
 * 967 x 262144), the budget's rules move nothing when the cache is given. */
static void test_compare(void)
{
    kvplan_model *m = load("qwen3-next-80b-a3b-thinking");
    kvplan_engine_options o = on("H200", 4);
    o.kv_cache_memory_bytes = (kvplan_opt_int){32 * GIB, true};
    kvplan_engine_version_comparison c;
    CHECK_INT(kvplan_engine_version_compare(m, &o, KVPLAN_VLLM_V0_10, &c, NULL),
              KVPLAN_OK);
    CHECK_INT(c.num_rules, 11);
    CHECK_INT(c.compared_plan.kv_cache_tokens, 699040);
    for (size_t i = 0; i < c.num_rules; i++) {
        const kvplan_engine_rule_delta *d = &c.rules[i];
        CHECK(!d->in_plan);
        if (d->rule.bit == KVPLAN_VLLM_RULE_TOKENS_PER_GROUP)
            CHECK_INT(d->alone.kv_cache_tokens, 699040);
        else if (d->rule.bit == KVPLAN_VLLM_RULE_MAMBA_NONE)
            CHECK_INT(d->alone.kv_cache_tokens,
                      (int64_t)(10280.0 / 967 * 262144));
        else
            CHECK(!d->changes);
    }
    kvplan_error err;
    CHECK_INT(
        kvplan_engine_version_compare(m, &o, (kvplan_vllm_profile)9, &c, &err),
        KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "--compare-version");
    kvplan_model_free(m);
}

/* --max-model-len auto (-1): the longest request the cache holds
 * (_auto_fit_max_model_len). Llama-3.1-8B at 8 GiB: 4096 blocks of 16,
 * 65536 tokens, 1.00x; the null block is not kept out of it (#47272 keeps
 * check_memory = available under auto; #48724, open, would). TRT-LLM's
 * max_seq_len takes no auto. */
static void test_auto_fit(void)
{
    kvplan_model *m = load("llama-3.1-8b-instruct");
    kvplan_engine_options o = on("H100-80GB", 1);
    o.kv_cache_memory_bytes = (kvplan_opt_int){8 * GIB, true};
    o.max_model_len = (kvplan_opt_int){0, true};
    kvplan_engine_plan p = plan_of(m, &o, KVPLAN_OK, NULL);
    CHECK_INT(p.max_model_len, 65536);
    CHECK_INT(p.kv_cache_tokens, 65536);
    CHECK_DOUBLE(p.max_concurrency, 1.0);
    /* capped by the model's own 131072 */
    o.kv_cache_memory_bytes = (kvplan_opt_int){64 * GIB, true};
    CHECK_INT(plan_of(m, &o, KVPLAN_OK, NULL).max_model_len, 131072);
    /* the option's words */
    kvplan_options opts;
    kvplan_options_init(&opts);
    CHECK_INT(kvplan_options_set(&opts, "max_model_len", "auto", NULL),
              KVPLAN_OK);
    CHECK(opts.engine_options.max_model_len.set &&
          opts.engine_options.max_model_len.value == 0);
    CHECK_INT(kvplan_options_set(&opts, "max_model_len", "-1", NULL),
              KVPLAN_OK);
    kvplan_error err;
    CHECK_INT(kvplan_options_set(&opts, "max_model_len", "-2", &err),
              KVPLAN_PARSE);
    CHECK_STR(err.field, "max_model_len");
    o.engine = KVPLAN_ENGINE_TRTLLM;
    plan_of(m, &o, KVPLAN_INVALID_ARGUMENT, &err);
    CHECK_STR(err.field, "--max-model-len");
    kvplan_model_free(m);
}

/* ssm_as_conv (vllm#29978, 0.13) and ssm_float16 (vllm#39032, 0.20):
 * a Nemotron-H mamba layer's ssm state. Nemotron-3-Nano-30B-A3B at TP1:
 * conv (64 x 64 + 2 x 8 x 128) x 3 x 2 = 36,864 bytes; ssm 64 x 64 x 128
 * = 524,288 elements, float32 by its config's mamba_ssm_cache_dtype; an
 * attention token 2 x 2 x 128 x 2 = 1024 bytes a layer. The block is the
 * least multiple of 16 whose page holds the state:
 *   float32: 2,134,016 bytes, 16 x ceil(2,134,016 / 16,384) = 2096;
 *   bf16 (0.10-0.12, or --mamba-ssm-cache-dtype float16): 1,085,440,
 *   16 x 67 = 1072.
 * tests/logs/vllm/09 (0.20.2, 34.32 GiB) prints the first: 2861 blocks of
 * 6 layers x 2,146,304 bytes, 5,769,184 tokens at 22.01x.
 * Nemotron-H-56B's config names no dtype: float32 from 0.20, float16 in
 * 0.13-0.19. Conv (256 x 64 + 2 x 8 x 256) x 3 x 2 = 122,880; ssm 256 x
 * 64 x 256 = 4,194,304 elements; a token 2 x 8 x 128 x 2 = 4096 bytes:
 * float32 16,900,096 bytes, 16 x ceil(16,900,096 / 65,536) = 4128;
 * float16 8,511,488, 16 x 130 = 2080. */
static void test_ssm_dtype(void)
{
    kvplan_model *m = load("nemotron-3-nano-30b-a3b");
    kvplan_engine_options o = on("GB10", 1);
    o.kv_cache_memory_bytes = (kvplan_opt_int){2861LL * 6 * 2146304, true};
    o.max_model_len = (kvplan_opt_int){262144, true};
    o.max_num_seqs = (kvplan_opt_int){8, true}; /* the launch's */
    o.vllm_version = KVPLAN_VLLM_V0_20;
    kvplan_engine_plan p = plan_of(m, &o, KVPLAN_OK, NULL);
    CHECK_INT(p.groups[0].block_size, 2096);
    CHECK_INT(p.groups[0].page_bytes, 2146304);
    CHECK_INT(p.num_gpu_blocks, 2861);
    CHECK_INT(p.kv_cache_tokens, 5769184);
    o.vllm_version = KVPLAN_VLLM_V0_13;
    p = plan_of(m, &o, KVPLAN_OK, NULL);
    CHECK_INT(p.groups[0].block_size, 2096);
    o.vllm_version = KVPLAN_VLLM_V0_10;
    p = plan_of(m, &o, KVPLAN_OK, NULL);
    CHECK_INT(p.groups[0].block_size, 1072);
    o.vllm_version = KVPLAN_VLLM_LATEST;
    o.mamba_ssm_cache_dtype = "float16";
    p = plan_of(m, &o, KVPLAN_OK, NULL);
    CHECK_INT(p.groups[0].block_size, 1072);
    o.mamba_ssm_cache_dtype = "auto";
    p = plan_of(m, &o, KVPLAN_OK, NULL);
    CHECK_INT(p.groups[0].block_size, 2096);
    kvplan_model_free(m);

    m = load("nemotron-h-56b-base-8k");
    o = on("H200", 1);
    o.kv_cache_memory_bytes = (kvplan_opt_int){32 * GIB, true};
    /* 403 blocks (203 in float16): under the 1024 sequences an H200
     * defaults to, which 0.20 refuses (test_mamba_seqs) */
    o.max_num_seqs = (kvplan_opt_int){128, true};
    p = plan_of(m, &o, KVPLAN_OK, NULL);
    CHECK_INT(p.groups[0].block_size, 4128);
    o.vllm_rules_flip = KVPLAN_VLLM_RULE_SSM_FLOAT16;
    p = plan_of(m, &o, KVPLAN_OK, NULL);
    CHECK_INT(p.groups[0].block_size, 2080);
    o.vllm_rules_flip = 0;
    o.vllm_version = KVPLAN_VLLM_V0_13;
    p = plan_of(m, &o, KVPLAN_OK, NULL);
    CHECK_INT(p.groups[0].block_size, 2080);
    kvplan_model_free(m);
}

/* mla_cutlass (vllm#32615) and the MLA block by GPU, as
 * CudaPlatformBase.check_and_update_config forces it when no backend is
 * named: DeepSeek-V2-Lite (qk_nope_head_dim 128, a token 576 x 2 = 1152
 * bytes a layer) takes 64 on an H100 (FlashMLA), 16 on an A100 and an RTX
 * 5090 (Triton MLA keeps vLLM's 16), 0 on ROCm's default too; on a B200
 * FlashInfer MLA's 64, CUTLASS_MLA's 128 in 0.10-0.12 or with another
 * qk_nope_head_dim; DSA's sparse FlashMLA 64 everywhere. A --block-size
 * that is not the kernel's multiple is forced (16 on an H100 is 64), and so
 * is a backend named with --attention-backend (check_and_update_config's
 * "Forced case"). */
static void test_mla_block(void)
{
    static const struct {
        const char *model, *override, *gpu, *backend;
        kvplan_vllm_profile profile;
        int64_t given, block;
    } cases[] = {
        {"deepseek-v2-lite", NULL, "H100-80GB", NULL, KVPLAN_VLLM_LATEST, 0,
         64},
        {"deepseek-v2-lite", NULL, "H100-80GB", NULL, KVPLAN_VLLM_LATEST, 16,
         64},
        {"deepseek-v2-lite", NULL, "H100-80GB", NULL, KVPLAN_VLLM_LATEST, 128,
         128},
        {"deepseek-v2-lite", NULL, "A100-80GB", NULL, KVPLAN_VLLM_LATEST, 0,
         16},
        {"deepseek-v2-lite", NULL, "RTX-5090", NULL, KVPLAN_VLLM_LATEST, 0, 16},
        {"deepseek-v2-lite", NULL, "MI300X", NULL, KVPLAN_VLLM_LATEST, 0, 16},
        {"deepseek-v2-lite", NULL, "B200", NULL, KVPLAN_VLLM_LATEST, 0, 64},
        {"deepseek-v2-lite", NULL, "B200", NULL, KVPLAN_VLLM_LATEST, 32, 32},
        {"deepseek-v2-lite", NULL, "B200", NULL, KVPLAN_VLLM_V0_10, 0, 128},
        {"deepseek-v2-lite", "{\"qk_nope_head_dim\": 64}", "B200", NULL,
         KVPLAN_VLLM_LATEST, 0, 128},
        {"deepseek-v3.2", NULL, "A100-80GB", NULL, KVPLAN_VLLM_LATEST, 0, 64},
        {"deepseek-v3.2", NULL, "B200", NULL, KVPLAN_VLLM_V0_10, 0, 64},
        /* --attention-backend: the forced case */
        {"deepseek-v2-lite", NULL, "A100-80GB", "CUTLASS_MLA",
         KVPLAN_VLLM_LATEST, 0, 128},
        {"deepseek-v2-lite", NULL, "H100-80GB", "FLASHINFER_MLA",
         KVPLAN_VLLM_LATEST, 0, 64},
        {"deepseek-v2-lite", NULL, "H100-80GB", "TRITON_MLA",
         KVPLAN_VLLM_LATEST, 0, 16},
        {"deepseek-v2-lite", NULL, "B200", "FLASHMLA", KVPLAN_VLLM_LATEST, 0,
         16}, /* FlashMLA's dense kernel is Hopper's: the block kept */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kvplan_model *m = NULL;
        CHECK_INT(kvplan_model_load_override(cases[i].model, cases[i].override,
                                             &m, NULL),
                  KVPLAN_OK);
        kvplan_engine_options o = on(cases[i].gpu, 1);
        o.kv_cache_memory_bytes = (kvplan_opt_int){8 * GIB, true};
        o.max_model_len = (kvplan_opt_int){4096, true};
        o.vllm_version = cases[i].profile;
        o.vllm_attention_backend = cases[i].backend;
        if (cases[i].given > 0)
            o.block_size = (kvplan_opt_int){cases[i].given, true};
        kvplan_engine_plan p = plan_of(m, &o, KVPLAN_OK, NULL);
        CHECK_INT(p.block_size, cases[i].block);
        if (p.block_size != cases[i].block)
            fprintf(stderr, "  case %zu\n", i);
        kvplan_model_free(m);
    }
}

int main(void)
{
    test_mla_block();
    test_ssm_dtype();
    test_auto_fit();
    test_compare();
    test_parse();
    test_null_block();
    test_mamba_mode();
    test_mamba_seqs();
    test_one_batch_in_flight();
    test_padded_page();
    test_budget_rules();
    test_tokens_per_group();
    test_override();
    return check_report();
}
