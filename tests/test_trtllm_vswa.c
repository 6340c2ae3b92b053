/*
 * test_trtllm_vswa.c: TensorRT-LLM's max_attention_window and
 * max_gpu_total_bytes (src/engine/trtllm_vswa.c, docs/engines.md). A
 * three-layer model of 2048 bytes a token and layer, its pool fixed by
 * --max-gpu-total-bytes at 100 MiB (104,857,600 bytes), 32 tokens a block.
 *
 * --host-cache-size adds each pool's secondary blocks on the host.
 *
 * The shares are upstream's own: cpp/tests/unit_tests/batch_manager/
 * kvCacheManagerTest.cpp, BlockManagerTestWindowSizeToShare (TensorRT-LLM,
 * read at 000a01de), asserts 0.0769, 0.3077 and 0.6154 for windows 1024,
 * 4096 and 8192 of equal cache sizes, and 2048, 49152 and 16384 over
 * their sum (0.0303, 0.7273, 0.2424) when the 4096 window's cache is six
 * times the others'. Each window's blocks are then
 * ceil(floor(pool x share / its bytes a token) / 32)
 * (BaseKVCacheManager::calculateMaxNumBlocks), worked by hand below.
 */
#include "check.h"
#include "kvplan.h"

#include <stdio.h>
#include <string.h>

#define POOL 104857600LL

static kvplan_model *tiny(int layers)
{
    char json[512];
    snprintf(json, sizeof json,
             "{\"architectures\": [\"LlamaForCausalLM\"], \"model_type\": "
             "\"llama\", \"hidden_size\": 512, \"num_attention_heads\": 8, "
             "\"num_key_value_heads\": 8, \"head_dim\": 64, "
             "\"num_hidden_layers\": %d, \"intermediate_size\": 1024, "
             "\"vocab_size\": 1000, \"max_position_embeddings\": 8192, "
             "\"torch_dtype\": \"float16\"}",
             layers);
    kvplan_model *m = NULL;
    CHECK_INT(kvplan_model_load_json(json, strlen(json), "inline", &m, NULL),
              KVPLAN_OK);
    return m;
}

static kvplan_engine_options trt(const char *windows)
{
    kvplan_engine_options o;
    kvplan_engine_options_init(&o);
    o.engine = KVPLAN_ENGINE_TRTLLM;
    CHECK(kvplan_gpu_preset("H200", &o.gpu));
    o.gpu_set = true;
    o.max_gpu_total_bytes = (kvplan_opt_int){POOL, true};
    o.max_attention_window = windows;
    /* V1's block manager, which upstream's tests drive (a Llama takes V2
     * by default from 1.3.0rc28) */
    o.no_use_kv_cache_manager_v2 = true;
    return o;
}

static kvplan_engine_plan plan(kvplan_model *m, const kvplan_engine_options *o,
                               kvplan_status want, kvplan_error *err)
{
    kvplan_engine_plan p;
    kvplan_error e;
    memset(&p, 0, sizeof p);
    CHECK_INT(kvplan_engine_compute(m, o, &p, err ? err : &e), want);
    return p;
}

/* Windows 1024, 4096, 8192 on one layer each: shares 1024/13312,
 * 4096/13312, 8192/13312; pool x share / 2048 = 3938.5, 15753.8,
 * 31507.7 tokens: 124, 493 and 985 blocks. */
static void test_equal_caches(void)
{
    kvplan_model *m = tiny(3);
    kvplan_engine_options o = trt("1024,4096,8192");
    kvplan_engine_plan p = plan(m, &o, KVPLAN_OK, NULL);
    CHECK_INT(p.num_groups, 3);
    CHECK_INT(p.groups[0].window, 1024);
    CHECK_INT(p.groups[0].num_blocks, 124);
    CHECK_INT(p.groups[1].window, 4096);
    CHECK_INT(p.groups[1].num_blocks, 493);
    CHECK_INT(p.groups[2].spec, KVPLAN_KV_SPEC_FULL);
    CHECK_INT(p.groups[2].num_blocks, 985);
    CHECK_INT(p.num_gpu_blocks, 985);
    CHECK_INT(p.kv_cache_tokens, 985 * 32);
    /* one request of 8192: 32, 128 and 256 blocks; the fewest is 985/256 */
    CHECK(p.max_concurrency > 3.847 && p.max_concurrency < 3.848);
    kvplan_model_free(m);
}

/* Eight layers, the pattern 1024, then 4096 six times, then 8192: the
 * 4096 window's cache six times the others' (upstream's 2048 : 49152 :
 * 16384). Tokens 1551.5, 6206.1 (12,288 bytes a token), 12412.1: 49, 194
 * and 388 blocks. */
static void test_weighted_caches(void)
{
    kvplan_model *m = tiny(8);
    kvplan_engine_options o = trt("1024,4096,4096,4096,4096,4096,4096,8192");
    kvplan_engine_plan p = plan(m, &o, KVPLAN_OK, NULL);
    CHECK_INT(p.num_groups, 3);
    CHECK_INT(p.groups[1].layers, 6);
    CHECK_INT(p.groups[0].num_blocks, 49);
    CHECK_INT(p.groups[1].num_blocks, 194);
    CHECK_INT(p.groups[2].num_blocks, 388);
    kvplan_model_free(m);
}

/* adjust_window_sizes_for_vswa: 8 MiB cannot hold one request of every
 * window (1024 + 4096 + 8192 tokens x 2048 bytes). 1024 tokens of all
 * three layers take 6 MiB; the 2 MiB left hold 512 more of the two larger
 * windows: windows 1024 (1 layer) and 1536 (2 layers), shares 1/4 and 3/4,
 * 1024 and 1536 tokens: 32 and 48 blocks. */
static void test_adjusted_windows(void)
{
    kvplan_model *m = tiny(3);
    kvplan_engine_options o = trt("1024,4096,8192");
    o.max_gpu_total_bytes = (kvplan_opt_int){8388608, true};
    kvplan_engine_plan p = plan(m, &o, KVPLAN_OK, NULL);
    CHECK_INT(p.num_groups, 2);
    CHECK_INT(p.groups[0].window, 1024);
    CHECK_INT(p.groups[0].num_blocks, 32);
    CHECK_INT(p.groups[1].window, 1536);
    CHECK_INT(p.groups[1].layers, 2);
    CHECK_INT(p.groups[1].num_blocks, 48);
    kvplan_model_free(m);
}

/* One window: the usual pool (104,857,600 / 6144 = 17066 tokens, 534
 * blocks), a request holding its window's 32 blocks; a window above
 * max_seq_len is clamped to it (full attention). Refusals name the flag. */
static void test_one_window_and_refusals(void)
{
    kvplan_model *m = tiny(3);
    kvplan_engine_options o = trt("1024");
    kvplan_engine_plan p = plan(m, &o, KVPLAN_OK, NULL);
    CHECK_INT(p.num_groups, 1);
    CHECK_INT(p.groups[0].spec, KVPLAN_KV_SPEC_SLIDING_WINDOW);
    CHECK_INT(p.num_gpu_blocks, 534);
    CHECK(p.max_concurrency > 16.68 && p.max_concurrency < 16.69);
    o.max_attention_window = "65536";
    p = plan(m, &o, KVPLAN_OK, NULL);
    CHECK_INT(p.groups[0].spec, KVPLAN_KV_SPEC_FULL);
    CHECK_INT(p.groups[0].window, 0);
    kvplan_error err;
    static const char *bad[] = {"0", "128,", "128,x", "-5", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        o.max_attention_window = bad[i];
        plan(m, &o, KVPLAN_INVALID_ARGUMENT, &err);
        CHECK_STR(err.field, "--max-attention-window");
    }
    kvplan_model_free(m);
    kvplan_model *mla = NULL;
    CHECK_INT(kvplan_model_load("deepseek-v2-lite", &mla, NULL), KVPLAN_OK);
    o.max_attention_window = "128,4096";
    plan(mla, &o, KVPLAN_UNSUPPORTED, &err);
    CHECK_STR(err.field, "--max-attention-window");
    kvplan_model_free(mla);
}

/* --host-cache-size: the secondary pool. One window: int(host / bytes a
 * token / 32) = 1 GiB / 6144 / 32 = 5461 blocks (calculate_max_num_blocks).
 * Three windows: (float)(host x share) / 2048 tokens, floor-divided by 32:
 * 1260, 5041 and 10082 blocks, the very figures upstream's
 * BlockManagerTestWindowSizeToShare rounds out of 16384 blocks (1 GiB is
 * 16384 blocks of 32 tokens x 2048 bytes). */
static void test_host_cache(void)
{
    kvplan_model *m = tiny(3);
    kvplan_engine_options o = trt(NULL);
    o.host_cache_size = (kvplan_opt_int){1073741824, true};
    kvplan_engine_plan p = plan(m, &o, KVPLAN_OK, NULL);
    CHECK_INT(p.groups[0].host_blocks, 5461);
    o.max_attention_window = "1024,4096,8192";
    p = plan(m, &o, KVPLAN_OK, NULL);
    CHECK_INT(p.groups[0].host_blocks, 1260);
    CHECK_INT(p.groups[1].host_blocks, 5041);
    CHECK_INT(p.groups[2].host_blocks, 10082);
    CHECK_INT(p.groups[2].num_blocks, 985); /* the GPU pool unchanged */
    kvplan_model_free(m);
}

int main(void)
{
    test_host_cache();
    test_equal_caches();
    test_weighted_caches();
    test_adjusted_windows();
    test_one_window_and_refusals();
    return check_report();
}
