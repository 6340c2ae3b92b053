/*
 * test_trtllm_dsv4.c: DeepSeek-V4 under TensorRT-LLM (docs/engines.md,
 * "DeepSeek-V4 under TensorRT-LLM"): DeepseekV4CacheManager's manager
 * layers (tensorrt_llm/_torch/attention/backends/sparse/deepseek_v4/
 * cache_manager.py, read at 0393e46) over KV cache manager V2's storage
 * with SWA scratch reuse (_storage_manager.py, _life_cycle_registry.py:
 * compute_scratch_range) and the base's typical step and constraints
 * (kv_cache_manager_v2.py). Each figure is derived by hand below; the
 * compressed pool group's slots were also replayed by a Python count of
 * _grains_to_slots written for this check.
 */
#include "check.h"
#include "engine_plan.h"
#include "kvplan.h"

#include <string.h>

#define GIB 1073741824LL
#define MIB 1048576LL

/* TensorRT-LLM on a B200 at TP `tp` (Blackwell: bf16 by default; Hopper's
 * default is fp8_ds_mla, test_hopper), max_seq_len 8192, 16 requests, the
 * KV cache capped at 16 GiB. */
static kvplan_engine_options b200(int64_t tp)
{
    kvplan_engine_options o = trtllm_on("B200", tp);
    o.max_model_len = (kvplan_opt_int){8192, true};
    o.max_num_seqs = (kvplan_opt_int){16, true};
    o.max_gpu_total_bytes = (kvplan_opt_int){16 * GIB, true};
    return o;
}

/* DeepSeek-V4-Flash: 43 layers, compress_ratios 0, 0 (a window only, read
 * as 1), then 4 and 128 by turns (21 and 20), head_dim 512 in bf16,
 * index_head_dim 128, sliding_window 128; tokens_per_block 128.
 *
 * Life cycles, in the order of their first layer: the window of 128 holds
 * every layer's SWA block (512 x 2 x 128 = 131,072 bytes) and each
 * ratio-128 layer's compressor state and score (fp32, 512 x 4 x 128 =
 * 262,144 each): pools of 40 x 262144 = 10,485,760 and 43 x 131072 =
 * 5,636,096. No window: a ratio-4 layer's compressed rows (1024 x 32 =
 * 32,768) and indexer keys ((128 + 4) x 32 = 4,224), a ratio-128 layer's
 * compressed row (1024): pools of 688,128, 88,704 and 20,480. The window
 * of 8 (2 x 4): a ratio-4 layer's compressor and indexer-compressor
 * states and scores (2 x 512 x 4 x 128 = 524,288 and 2 x 128 x 4 x 128 =
 * 131,072, two of each): pools of 22,020,096 and 5,505,024. Three pool
 * groups.
 *
 * A layer's most share of a slot (slot_util_frac_max): a ratio-128
 * layer's state and score are 2 of the 40 buffers of their pool, 1/20; a
 * ratio-4 layer's 2 of 42, 1/21.
 *
 * The typical step: a context request of max_num_tokens (8192) and 15 of
 * 8192 tokens with 8191 past. In the window of 128 the context's 64 blocks
 * are all input, and blocks [0, (8193 - 128) // 128 = 63) are stale once
 * it is history: 63 scratch blocks, 1 + ceil(63 / 20) = 5 slots; each
 * generating request holds 1 (64 blocks, 63 stale): 20 slots. No window:
 * 16 x 64 = 1024. The window of 8: 1 + ceil(63 / 21) = 4 and 15: 19. In
 * grains of 32 MiB (the quota is 16 GiB): 7 + 4 = 11, 21 + 3 + 1 = 25 and
 * 13 + 4 = 17. The constraints: one request of 8192 (8191 past) beside 15
 * one-token decodes (16, 79, 16 slots) and a context of 8192 (5, 64, 4):
 * floors of 16, 79 and 16.
 *
 * The split of 512 grains, the smallest share first: round(512 x 11/53)
 * = 106 grains hold 220 slots of the window of 128 (221 take 108); of the
 * 406 left, round(406 x 17/42) = 164 hold 199 of the window of 8; the
 * other 242 hold 10,142 compressed slots (10,143 take 243). */
static void test_flash(void)
{
    kvplan_engine_options o = b200(1);
    kvplan_engine_plan p = plan("deepseek-v4-flash", &o, KVPLAN_OK, NULL);
    CHECK_INT(p.kv_cache_manager, 2);
    CHECK_INT(p.kv_cache_manager_choice, KVPLAN_KVCM_MODEL);
    CHECK_INT(p.block_size, 128);
    CHECK_INT(p.gpu_quota_bytes, 16 * GIB);
    CHECK_INT(p.quota_grain_bytes, 32 * MIB);
    /* get_cache_bytes_per_token: the compressed roles a token, 21 x
     * (1024 / 4 + 132 / 4) + 20 x 1024 / 128 */
    CHECK_INT(p.bytes_per_token, 21 * (256 + 33) + 20 * 8);
    CHECK_INT(p.num_groups, 3);
    CHECK_INT(p.groups[0].spec, KVPLAN_KV_SPEC_SLIDING_WINDOW);
    CHECK_INT(p.groups[0].window, 128);
    CHECK_INT(p.groups[0].layers, 43);
    CHECK_INT(p.groups[0].num_blocks, 220);
    CHECK_INT(p.groups[1].spec, KVPLAN_KV_SPEC_MLA);
    CHECK_INT(p.groups[1].window, 0);
    CHECK_INT(p.groups[1].layers, 41);
    CHECK_INT(p.groups[1].num_blocks, 10142);
    CHECK_INT(p.groups[2].window, 8);
    CHECK_INT(p.groups[2].layers, 21);
    CHECK_INT(p.groups[2].num_blocks, 199);
    CHECK_INT(p.num_gpu_blocks, 10142);
    CHECK_INT(p.kv_cache_tokens, 10142 * 128);
    CHECK_INT(p.available_bytes, 220LL * (10485760 + 5636096) +
                                     10142LL * (688128 + 88704 + 20480) +
                                     199LL * (22020096 + 5505024));
    /* the compressed pool runs out first: 10142 x 128 / 8192 requests */
    CHECK(p.max_concurrency == 10142.0 * 128 / 8192);
}

/* An fp8 cache halves the SWA and compressed rows, not the fp32 states:
 * the window of 128's pools 10,485,760 and 43 x 65536 = 2,818,048; bytes
 * a token 21 x (512 / 4 + 132 / 4) + 20 x 512 / 128. */
static void test_fp8(void)
{
    kvplan_engine_options o = b200(1);
    o.kv_cache_dtype = KVPLAN_KV_FP8;
    kvplan_engine_plan p = plan("deepseek-v4-flash", &o, KVPLAN_OK, NULL);
    CHECK_INT(p.bytes_per_token, 21 * (128 + 33) + 20 * 4);
    CHECK_INT(p.groups[0].page_bytes, (10485760 + 2818048) / 43);
    CHECK_INT(p.groups[1].page_bytes, (21 * (16384 + 4224) + 20 * 512) / 41);
}

/* Over 8 ranks the quota goes to tokens and back, clamped never to grow
 * (KVCacheManagerV2.__init__: the tokens of int(quota x 0.95), back as
 * ceil(quota / 0.95)); a quota from --max-tokens carries the 7 roles' 2
 * MiB each (_get_extra_quota_padding). With max_tokens 100,000: 100000 x
 * 6229 bytes, 16 windows of every sliding role (43 x 128 x 1024 +
 * 21 x 128 x 10240 + 20 x 128 x 4096 = 43,646,976 each), 8192 context
 * tokens of each (role, ratio) once (SWA of ratios 1, 4, 128: 3 x 1024;
 * ratio 4's states and scores 2 x 4096 + 2 x 1024; ratio 128's 2 x 2048:
 * 17,408), the padding: 622,900,000 + 698,351,616 + 142,606,336 +
 * 14,680,064 = 1,478,538,016, over 0.95: 1,556,355,807 bytes. The sync:
 * int(1556355807 x 0.95) = 1,478,538,016 is 8192 context tokens and
 * (1478538016 - 906665984) / 6229 = 91,808 more, 100,000 exactly, whose
 * quota is the same: unchanged. */
static void test_max_tokens(void)
{
    kvplan_engine_options o = b200(8);
    o.max_tokens = (kvplan_opt_int){100000, true};
    kvplan_engine_plan p = plan("deepseek-v4-flash", &o, KVPLAN_OK, NULL);
    CHECK_INT(p.gpu_quota_bytes, 1556355807LL);
}

/* On Hopper the model's defaults give the fp8_ds_mla cache
 * (get_model_defaults at SM 90; test_deepseek_v4_hopper_uses_fp8_ds_mla_
 * defaults): SWA and compressed rows of 584 bytes a token (448 fp8, 64
 * bf16, 8 of scales and pad; footer_scale_kv.py). The window of 128's
 * pools 10,485,760 and 43 x 584 x 128 = 3,214,336; the compressed rows
 * of a ratio-4 layer 584 x 32 and 132 x 32, of a ratio-128 layer 584; a
 * token 21 x (584 / 4 + 132 / 4) + 20 x (584 / 128) = 3,839. */
static void test_hopper(void)
{
    kvplan_engine_options o = b200(8);
    CHECK(kvplan_gpu_preset("H200", &o.gpu));
    kvplan_engine_plan p = plan("deepseek-v4-flash", &o, KVPLAN_OK, NULL);
    CHECK_INT(p.bytes_per_token, 21 * (146 + 33) + 20 * 4);
    CHECK_INT(p.groups[0].page_bytes, (10485760 + 3214336) / 43);
    CHECK_INT(p.groups[1].page_bytes, (21 * (584 * 32 + 4224) + 20 * 584) / 41);
    CHECK_CONTAINS(p.v2_default, "fp8_ds_mla");
}

static void test_refusals(void)
{
    kvplan_engine_options o = b200(1);
    kvplan_error err;
    CHECK(kvplan_gpu_preset("H200", &o.gpu));
    o.kv_cache_dtype = KVPLAN_KV_FP8;
    plan("deepseek-v4-flash", &o, KVPLAN_UNSUPPORTED, &err);
    CHECK_STR(err.field, "--kv-cache-dtype");
    CHECK_CONTAINS(err.message, "requires kv_cache_config.dtype='fp8_ds_mla'");
    o = b200(1);
    o.tokens_per_block = (kvplan_opt_int){64, true};
    plan("deepseek-v4-flash", &o, KVPLAN_INVALID_ARGUMENT, &err);
    CHECK_STR(err.field, "--tokens-per-block");
    CHECK_CONTAINS(err.message, "requires tokens_per_block in [128, 256]");
    o = b200(1);
    manager(&o, 1);
    plan("deepseek-v4-flash", &o, KVPLAN_UNSUPPORTED, &err);
    CHECK_STR(err.field, "--no-use-kv-cache-manager-v2");
    o = b200(1);
    o.trtllm_version = KVPLAN_TRTLLM_V1_0;
    plan("deepseek-v4-flash", &o, KVPLAN_UNSUPPORTED, &err);
    CHECK_STR(err.field, "--trtllm-version");
    o = b200(1);
    o.speculative_algorithm = KVPLAN_SPEC_EAGLE;
    plan("deepseek-v4-flash", &o, KVPLAN_UNSUPPORTED, &err);
    CHECK_STR(err.field, "--speculative-algorithm");
    o = b200(2);
    o.pp_size = 2;
    o.tp_size = 1;
    plan("deepseek-v4-flash", &o, KVPLAN_UNSUPPORTED, &err);
    CHECK_STR(err.field, "--pp-size");
    o = b200(1);
    o.kv_cache_dtype = KVPLAN_KV_AUTO;
    o.dtype = KVPLAN_DT_FLOAT16;
    plan("deepseek-v4-flash", &o, KVPLAN_INVALID_ARGUMENT, &err);
    CHECK_STR(err.field, "--dtype");
    o = b200(1);
    o.avg_seq_len = (kvplan_opt_int){9000, true};
    plan("deepseek-v4-flash", &o, KVPLAN_INVALID_ARGUMENT, &err);
    CHECK_STR(err.field, "--avg-seq-len");
}

int main(void)
{
    test_flash();
    test_fp8();
    test_max_tokens();
    test_hopper();
    test_refusals();
    return check_report();
}
