/*
 * test_trtllm_v2_windows.c: TensorRT-LLM's KV cache manager V2 with
 * windowed layers (docs/engines.md, "KV cache manager V2"): life cycles,
 * pool groups, the typical step's shares and their split of the quota,
 * restated from the stored TensorRT-LLM sources of 2026
 * (runtime/kv_cache_manager_v2: _life_cycle_registry.py,
 * _storage/_config.py, _storage_manager.py, _storage/_core.py; the quota
 * from _torch/pyexecutor/kv_cache_manager_v2.py; Gemma 4's windows and
 * geometry from _util.py's _create_kv_cache_manager; the windows V2 derives
 * for GPT-OSS and Gemma 3 from docs/source/features/kvcache.md). TensorRT-LLM's
 * own TestInitRatioConfig.test_default_init_ratio and TestCacheLevelStorage.
 * test_ratio_to_slot_count_list_preserves_min_slots
 * (tests/unittest/kv_cache_manager_v2_tests/test_kv_cache_manager_v2.py)
 * are ported with their slots computed exactly (upstream asserts only
 * orderings and floors). Each figure is derived by hand from those
 * rules; the splits were also replayed by a Python restatement of
 * ratio_to_slot_count_list written for this check.
 */
#include "check.h"
#include "engine_plan.h"
#include "engine/engine.h"
#include "kvplan.h"

#include <string.h>

#define GIB 1073741824LL
#define MIB 1048576LL

/* test_default_init_ratio: a 128 MiB quota, one windowed layer (window
 * 128, 32 sink tokens: one sink block; a 786,432-byte key buffer) and one
 * full layer (1,310,720 bytes), 32 tokens a block, no typical step: the
 * fallback request of capacity 2049 with 2048 tokens past. The windowed
 * life cycle keeps ceil(2049 / 32) = 65 blocks less the stale
 * [1, (2049 - 128) // 32 = 60): 6; the full one all 65. Their bytes in
 * 2 MiB grains (the quota is below 1 GiB): ceil(6 x 786432 / 2 MiB) = 3
 * grains, ceil(65 x 1310720 / 2 MiB) = 41, shares 3/44 and 41/44 (upstream
 * asserts the first below the second). Split: the smaller share first,
 * round(64 x 3/44) = 4 grains hold floor(4 x 2 MiB / 786432) = 10 slots;
 * the other 60 grains hold floor(60 x 2 MiB / 1310720) = 96. */
static void test_default_init_ratio(void)
{
    kvplan__trtllm_v2_storage s;
    memset(&s, 0, sizeof s);
    kvplan_error err;
    CHECK_INT(kvplan__trtllm_v2_add_layer(&s, 128, 786432 / 32, 0, 0, 32, &err),
              KVPLAN_OK);
    CHECK_INT(kvplan__trtllm_v2_add_layer(&s, 0, 1310720 / 32, 0, 0, 32, &err),
              KVPLAN_OK);
    s.lc[0].sink_blocks = 1;
    CHECK(kvplan__trtllm_v2_group(&s));
    CHECK_INT(s.groups, 2);
    CHECK_INT(s.pg[0].size[0], 786432);
    CHECK_INT(s.pg[1].size[0], 1310720);
    int64_t g = 0;
    bool ovf = false;
    const kvplan__trtllm_v2_step step = {1, {{1, 2049, 2048}}};
    CHECK_INT(kvplan__trtllm_v2_allocate(&s, 128 * MIB, 32, &step, &g, &ovf),
              0);
    CHECK(!ovf);
    CHECK_INT(g, 2 * MIB);
    CHECK_INT(s.pg[0].typical, 6);
    CHECK_INT(s.pg[1].typical, 65);
    CHECK_INT(s.pg[0].slots, 10);
    CHECK_INT(s.pg[1].slots, 96);
    /* get_stale_range: no sinks, a window past the history: none stale */
    CHECK_INT(kvplan__trtllm_v2_request_blocks(4096, 0, 2049, 2048, 32, &ovf),
              65);
    CHECK_INT(kvplan__trtllm_v2_request_blocks(1024, 0, 2049, 2048, 32, &ovf),
              33);
    CHECK(!ovf);
    /* a request of INT64_MAX tokens passes 64 bits in blocks: said */
    kvplan__trtllm_v2_request_blocks(0, 0, INT64_MAX, 0, 32, &ovf);
    CHECK(ovf);
}

/* test_ratio_to_slot_count_list_preserves_min_slots: 16 MiB grains, three
 * pool groups, their least slots 157, 3907 and 157, the quota exactly the
 * grains those take (192 + 149 + 369 = 710), shares 0.2, 0.5, 0.3. Every
 * group falls to its least and is pinned at the most slots its least's
 * grains hold: 157 (192 grains: 153 + 39, test_trtllm_v2), 3925 (115 +
 * 30 + 4 = 149 grains; 3926 would take 116), 157 (295 + 74 = 369). Four
 * times the quota (2,840 grains) leaves every group above its least:
 * 468, 37,546 and 363 slots. */
static void test_preserves_min_slots(void)
{
    kvplan__trtllm_v2_pool_group pg[3] = {
        {2, {16252928, 4063232}, 157, 0, 0, 0},
        {3, {491520, 126720, 15872}, 3907, 0, 0, 0},
        {2, {31457280, 7864320}, 157, 0, 0, 0},
    };
    const double ratio[3] = {0.2, 0.5, 0.3};
    int64_t g = 16 * MIB;
    bool ovf = false;
    int64_t least = 0;
    for (size_t i = 0; i < 3; i++)
        least += kvplan__trtllm_v2_grains(pg[i].least, pg[i].size, pg[i].pools,
                                          g, &ovf);
    CHECK_INT(least, 710);
    CHECK_INT(kvplan__trtllm_v2_split(least * g, pg, 3, ratio, g, &ovf), 0);
    CHECK_INT(pg[0].slots, 157);
    CHECK_INT(pg[1].slots, 3925);
    CHECK_INT(pg[2].slots, 157);
    CHECK_INT(kvplan__trtllm_v2_split(4 * least * g, pg, 3, ratio, g, &ovf), 0);
    CHECK_INT(pg[0].slots, 468);
    CHECK_INT(pg[1].slots, 37546);
    CHECK_INT(pg[2].slots, 363);
    CHECK(!ovf);
}

/* Gemma 4 26B-A4B (Gemma4ForConditionalGeneration: 25 sliding layers of
 * 8 KV heads x 256, window 1024; 5 full ones of global_head_dim 512 with
 * num_global_key_value_heads 2, attention_k_eq_v) under TensorRT-LLM:
 * V2 without the flag (is_gemma4_hybrid), its sliding layers windowed at
 * 1024 and its full ones not. Blocks of 32 tokens, bf16: a sliding
 * layer's K (or V) block 8 x 256 x 2 x 32 = 131,072 bytes, a full one's
 * 65,536; the life cycles' slots 50 x 131,072 = 6,553,600 and 10 x 65,536
 * = 655,360, two pool groups. A quota capped at 26 GiB (grains of 32
 * MiB, 832 of them): the typical request keeps 65 - 32 = 33 sliding
 * blocks (7 grains) and 65 full ones (2 grains), shares 7/9 and 2/9; the
 * full group's round(832 x 2/9) = 185 grains hold 9,472 slots, the
 * sliding group's 647 grains 3,312. */
static void test_gemma4(void)
{
    kvplan_engine_options o = trtllm_options(1, false);
    o.max_gpu_total_bytes = (kvplan_opt_int){26 * GIB, true};
    kvplan_engine_plan p = plan("gemma-4-26b-a4b", &o, KVPLAN_OK, NULL);
    CHECK_INT(p.kv_cache_manager, 2);
    CHECK(p.v2_default != NULL && strstr(p.v2_default, "Gemma 4") != NULL);
    CHECK_INT(p.gpu_quota_bytes, 26 * GIB);
    CHECK_INT(p.quota_grain_bytes, 32 * MIB);
    CHECK_INT(p.num_groups, 2);
    CHECK_INT(p.groups[0].spec, KVPLAN_KV_SPEC_SLIDING_WINDOW);
    CHECK_INT(p.groups[0].layers, 25);
    CHECK_INT(p.groups[0].window, 1024);
    CHECK_INT(p.groups[0].page_bytes, 262144);
    CHECK_INT(p.groups[1].spec, KVPLAN_KV_SPEC_FULL);
    CHECK_INT(p.groups[1].layers, 5);
    CHECK_INT(p.groups[1].page_bytes, 131072);
    CHECK_INT(p.groups[0].num_blocks, 3312);
    CHECK_INT(p.groups[1].num_blocks, 9472);
    CHECK_INT(p.num_gpu_blocks, 9472);
    CHECK_INT(p.kv_cache_tokens, 9472 * 32);
    CHECK_INT(p.bytes_per_token, 25 * 8192 + 5 * 4096);
    CHECK_INT(p.available_bytes, 3312LL * 6553600 + 9472LL * 655360);
    CHECK_INT(p.groups[0].host_blocks, 0);
    /* --host-cache-size 64 GiB: the host tier in 4 KiB grains
     * (HostMem.ALIGNMENT), 16,777,216 of them, split by the same shares:
     * the full group's round(16777216 x 2/9) = 3,728,270 grains hold
     * 23,301 slots (3,728,160 grains), the sliding group's remaining
     * 13,049,056 grains 8,155 */
    o.host_cache_size = (kvplan_opt_int){64 * GIB, true};
    p = plan("gemma-4-26b-a4b", &o, KVPLAN_OK, NULL);
    CHECK_INT(p.groups[0].host_blocks, 8155);
    CHECK_INT(p.groups[1].host_blocks, 23301);
    CHECK_INT(p.groups[1].num_blocks, 9472); /* the GPU's do not move */
    o.host_cache_size.set = false;
    /* --max-tokens: _get_quota_from_max_tokens prices 2048 requests'
     * windows (2048 x 1024 x 204,800 bytes), 400 GiB: no cap */
    o.max_tokens = (kvplan_opt_int){100000, true};
    kvplan_engine_plan q = plan("gemma-4-26b-a4b", &o, KVPLAN_OK, NULL);
    CHECK_INT(q.gpu_quota_bytes, 26 * GIB);
    /* over two ranks the quota goes to tokens and back: 40 GiB with 64
     * requests' windows (64 x 1024 x 102,400 bytes = 6.25 GiB) is
     * (40 GiB - 8192 x 112,640 - 6.25 GiB) / 10,240 + 8192 = 3,457,024
     * tokens, and back to 40 GiB exactly */
    o.max_tokens.set = false;
    o.tp_size = 2;
    o.max_num_seqs = (kvplan_opt_int){64, true};
    o.max_gpu_total_bytes = (kvplan_opt_int){40 * GIB, true};
    q = plan("gemma-4-26b-a4b", &o, KVPLAN_OK, NULL);
    CHECK_INT(q.gpu_quota_bytes, 40 * GIB);
    CHECK_INT(q.groups[0].num_blocks, 10485);
    CHECK_INT(q.groups[1].num_blocks, 26214);
    /* with max_batch_size 2048 the windows (200 GiB a rank) exceed the
     * quota: int(40 GiB x 0.95) holds no tokens, and their quota, the
     * windows, over 0.95 is above 40 GiB, which the clamp keeps
     * (KVCacheManagerV2.__init__ at 1fe0b08). Before it (v2_sync_raises,
     * 1.0-1.3.0rc20) _get_quota_from_max_tokens(0) became the quota, 200
     * GiB, which the GPU does not hold: refused */
    o.max_num_seqs.set = false;
    q = plan("gemma-4-26b-a4b", &o, KVPLAN_OK, NULL);
    CHECK_INT(q.gpu_quota_bytes, 40 * GIB);
    kvplan_error err;
    o.trtllm_version = KVPLAN_TRTLLM_V1_0;
    plan("gemma-4-26b-a4b", &o, KVPLAN_NOT_ENOUGH_MEMORY, &err);
    CHECK_STR(err.field, "--max-num-seqs");
}

/* --max-attention-window 4096,131072 on Llama-3.1-8B under V2: the
 * second window is max_seq_len, so none; two life cycles of 16 layers
 * whose slots are equal (32 x 65,536 bytes), so one pool group of two
 * (at least two slots); 20 GiB in 32 MiB grains hold 640 x 16 = 10,240
 * slots, shared by both. */
static void test_llama_windows(void)
{
    kvplan_engine_options o = trtllm_options(1, true);
    o.max_attention_window = "4096,131072";
    o.max_gpu_total_bytes = (kvplan_opt_int){20 * GIB, true};
    kvplan_engine_plan p = plan("llama-3.1-8b-instruct", &o, KVPLAN_OK, NULL);
    CHECK_INT(p.num_groups, 2);
    CHECK_INT(p.groups[0].window, 4096);
    CHECK_INT(p.groups[0].layers, 16);
    CHECK_INT(p.groups[1].window, 0);
    CHECK_INT(p.groups[0].num_blocks, 10240);
    CHECK_INT(p.groups[1].num_blocks, 10240);
    CHECK_INT(p.num_gpu_blocks, 10240);
    /* a request of 131,072 tokens: all its blocks in the full life cycle,
     * 4096 / 32 = 128 in the windowed one (4096 - (131072 - 4096) // 32) */
    CHECK(p.max_concurrency > 327680.0 / 135168 - 1e-9 &&
          p.max_concurrency < 327680.0 / 135168 + 1e-9);
}

/* Gemma 3 4B under V2, its windows derived as TensorRT-LLM's docs say
 * (docs/source/features/kvcache.md, 0076e93: "sliding layers get
 * sliding_window, full layers get max_seq_len"): every sixth of its 34
 * layers is full, so 29 sliding (window 1024) and 5 full, each 32 tokens
 * x 4 heads x 256 x 2 x 2 = 131,072 bytes a block. Slots of 29 x 131072 =
 * 3,801,088 and 5 x 131072 = 655,360 bytes: two pool groups. The typical
 * request (capacity 2049, 2048 past) keeps 65 - (2049 - 1024) // 32 = 33
 * sliding blocks and 65 full ones: ceil(33 x 3801088 / 32 MiB) = 4 grains
 * and ceil(65 x 655360 / 32 MiB) = 2, shares 2/3 and 1/3. A 16 GiB cap is
 * 512 grains: the full group first, round(512 / 3) = 171 grains, floor(171
 * x 32 MiB / 655360) = 8755 slots; the sliding group the other 341,
 * floor(341 x 32 MiB / 3801088) = 3010. V1 derives no window (all 34
 * layers the whole sequence). */
static void test_gemma3_derived(void)
{
    kvplan_engine_options o = trtllm_options(1, true);
    o.max_gpu_total_bytes = (kvplan_opt_int){16 * GIB, true};
    kvplan_engine_plan p = plan("gemma-3-4b-it", &o, KVPLAN_OK, NULL);
    CHECK_INT(p.num_groups, 2);
    CHECK_INT(p.groups[0].spec, KVPLAN_KV_SPEC_SLIDING_WINDOW);
    CHECK_INT(p.groups[0].window, 1024);
    CHECK_INT(p.groups[0].layers, 29);
    CHECK_INT(p.groups[0].num_blocks, 3010);
    CHECK_INT(p.groups[1].spec, KVPLAN_KV_SPEC_FULL);
    CHECK_INT(p.groups[1].layers, 5);
    CHECK_INT(p.groups[1].num_blocks, 8755);
    CHECK_INT(p.num_gpu_blocks, 8755);
    CHECK_INT(p.quota_grain_bytes, 32 * MIB);
    /* a window at max_seq_len is none: one life cycle of 34 layers */
    o.max_model_len = (kvplan_opt_int){1024, true};
    p = plan("gemma-3-4b-it", &o, KVPLAN_OK, NULL);
    CHECK_INT(p.num_groups, 1);
    CHECK_INT(p.groups[0].layers, 34);
    /* pipeline stages' share of the windowed layers is not modelled */
    o.max_model_len = (kvplan_opt_int){0, false};
    o.pp_size = 2;
    kvplan_error err;
    plan("gemma-3-4b-it", &o, KVPLAN_UNSUPPORTED, &err);
    CHECK_STR(err.field, "--pp-size");
}

/* --avg-seq-len 4096 (kv_cache_config.avg_seq_len) on that Gemma 3:
 * V2's base models one context of max_num_tokens (8192: 256 blocks in
 * either life cycle) and 2047 requests of 4096 tokens, 4095 past (128
 * blocks, of which a 1024 window keeps 128 - (4096 - 1024) // 32 = 32):
 * 256 + 2047 x 32 = 65,760 sliding slots and 256 + 2047 x 128 = 262,272
 * full ones, 7450 and 5123 grains of 32 MiB. Its constraints (one request
 * at 131072 beside 2047 one-token decodes; one context of 8192) floor
 * the groups at 32 + 2047 = 2079 and 4096 + 2047 = 6143 slots. The full
 * group first: round(512 x 5123/12573) = 209 grains, 10700 slots; the
 * sliding group the other 303, 2674 (_build_base_config at 1fe0b08). */
static void test_gemma3_avg_seq_len(void)
{
    kvplan_engine_options o = trtllm_options(1, true);
    o.max_gpu_total_bytes = (kvplan_opt_int){16 * GIB, true};
    o.avg_seq_len = (kvplan_opt_int){4096, true};
    kvplan_engine_plan p = plan("gemma-3-4b-it", &o, KVPLAN_OK, NULL);
    CHECK_INT(p.groups[0].window, 1024);
    CHECK_INT(p.groups[0].num_blocks, 2674);
    CHECK_INT(p.groups[1].num_blocks, 10700);
    /* TensorRT-LLM's own refusal past max_seq_len; V1 reads nothing */
    kvplan_error err;
    o.avg_seq_len = (kvplan_opt_int){131073, true};
    plan("gemma-3-4b-it", &o, KVPLAN_INVALID_ARGUMENT, &err);
    CHECK_STR(err.field, "--avg-seq-len");
    CHECK(strstr(err.message, "must be less than or equal to max_seq_len "
                              "(131072)") != NULL);
    o.avg_seq_len = (kvplan_opt_int){4096, true};
    manager(&o, 1);
    plan("gemma-3-4b-it", &o, KVPLAN_INVALID_ARGUMENT, &err);
    CHECK_STR(err.field, "--avg-seq-len");
}

int main(void)
{
    test_default_init_ratio();
    test_preserves_min_slots();
    test_gemma4();
    test_llama_windows();
    test_gemma3_derived();
    test_gemma3_avg_seq_len();
    return check_report();
}
