/*
 * test_trtllm_v2.c: TensorRT-LLM's KV cache manager V2 (docs/engines.md,
 * "KV cache manager V2"), each figure derived here by hand from the
 * manager's rules as read in the stored TensorRT-LLM sources of 2026:
 * the quota from KvCacheCreator's max_gpu_total_bytes (_util.py) and
 * KVCacheManagerV2.__init__ (kv_cache_manager_v2.py), the grain of
 * cache_tier_granularity (_storage_manager.py), the slots of
 * _grains_to_slots (_storage/_core.py). TensorRT-LLM's own
 * TestCacheLevelStorage.test_grains_to_slots_refines_proportional_lower_
 * bound (tests/unittest/kv_cache_manager_v2_tests/
 * test_kv_cache_manager_v2.py) and TestStorageManagerInit's pools
 * (test_storage_manager.py), read in the stored sources of 2026, are
 * ported with their figures computed exactly.
 */
#include "check.h"
#include "engine_plan.h"
#include "engine/engine.h"
#include "json/doc.h"
#include "kvplan.h"

#include <string.h>

#define GIB 1073741824LL
#define MIB 1048576LL

/* The grain: 2 MiB << min(4, max(0, int(log2(quota / 1 GiB)))). The
 * slots: TensorRT-LLM's test sizes (16 MiB grains, pools of 16252928 and
 * 4063232 bytes a slot): 157 slots take ceil(157 x 16252928 / 16 MiB) =
 * 153 grains and ceil(157 x 4063232 / 16 MiB) = 39, 192 in all; 158 would
 * take 154 + 39 = 193, so 192 grains hold exactly 157 (the test asks at
 * least 157, in at most 192). */
static void test_storage(void)
{
    CHECK_INT(kvplan__trtllm_v2_grain(GIB / 2), 2 * MIB);
    CHECK_INT(kvplan__trtllm_v2_grain(GIB), 2 * MIB);
    CHECK_INT(kvplan__trtllm_v2_grain(2 * GIB - 1), 2 * MIB);
    CHECK_INT(kvplan__trtllm_v2_grain(2 * GIB), 4 * MIB);
    CHECK_INT(kvplan__trtllm_v2_grain(15 * GIB), 16 * MIB);
    CHECK_INT(kvplan__trtllm_v2_grain(16 * GIB), 32 * MIB);
    CHECK_INT(kvplan__trtllm_v2_grain(1000 * GIB), 32 * MIB);
    bool ovf = false;
    const int64_t size[2] = {16252928, 4063232};
    int64_t g = 16 * MIB;
    int64_t grains = kvplan__trtllm_v2_grains(157, size, 2, g, &ovf);
    CHECK_INT(grains, 153 + 39);
    CHECK_INT(kvplan__trtllm_v2_slots(grains, size, 2, g, &ovf), 157);
    CHECK_INT(kvplan__trtllm_v2_grains(158, size, 2, g, &ovf), 154 + 39);
    /* one pool: floor(grains x g / slot) */
    const int64_t one[1] = {4194304};
    CHECK_INT(kvplan__trtllm_v2_slots(1792, one, 1, 32 * MIB, &ovf), 1792 * 8);
    CHECK_INT(kvplan__trtllm_v2_slots(0, one, 1, 32 * MIB, &ovf), 0);
    /* TensorRT-LLM's TestStorageManagerInit (test_storage_manager.py,
     * 2026), whose pools it asserts and whose slots it asks only be
     * some, at its 256 MiB quota (2 MiB grains, 128 of them): four layers
     * of 8 KiB K and V coalesced into one 64 KiB pool, 4096 slots; two
     * layers with 512-byte block-quant buffers, pools of 32 KiB and 2 KiB,
     * 7680 slots (120 + 8 grains; 7681 would take 121 + 8) */
    const int64_t four[1] = {4 * 2 * 8192};
    CHECK_INT(kvplan__trtllm_v2_grain(256 * MIB), 2 * MIB);
    CHECK_INT(kvplan__trtllm_v2_slots(128, four, 1, 2 * MIB, &ovf), 4096);
    const int64_t quant[2] = {2 * 2 * 8192, 2 * 2 * 512};
    CHECK_INT(kvplan__trtllm_v2_slots(128, quant, 2, 2 * MIB, &ovf), 7680);
    CHECK_INT(kvplan__trtllm_v2_grains(7681, quant, 2, 2 * MIB, &ovf), 129);
    CHECK(!ovf);
}

/* Llama-3.1-8B on H100 as test_engines' test_trtllm plans it: the same
 * budget, int() 60098339635 bytes (55.97 GiB), is V2's quota; a slot is a
 * block of 32 tokens of every layer, 32 x 131072 = 4 MiB; the quota
 * rounded up to 1792 grains of 32 MiB holds 14336 slots, where V1's
 * ceilDiv(458513, 32) is 14329 blocks. */
static void test_dense(void)
{
    kvplan_engine_options o = trtllm_options(1, true);
    o.weight_bytes = (kvplan_opt_int){16060522496, true};
    o.activation_bytes = (kvplan_opt_int){GIB, true};
    o.non_torch_bytes = (kvplan_opt_int){GIB, true};
    kvplan_engine_plan p = plan("llama-3.1-8b-instruct", &o, KVPLAN_OK, NULL);
    CHECK_INT(p.kv_cache_manager, 2);
    CHECK_INT(p.gpu_quota_bytes, 60098339635);
    CHECK_INT(p.quota_grain_bytes, 32 * MIB);
    CHECK_INT(p.num_gpu_blocks, 14336);
    CHECK_INT(p.kv_cache_tokens, 14336 * 32);
    CHECK_INT(p.available_bytes, 14336 * 4194304LL);
    CHECK_INT(p.num_groups, 1);
    CHECK_INT(p.groups[0].page_bytes, 131072);
    CHECK_INT(p.groups[0].num_blocks, 14336);
    manager(&o, 1);
    p = plan("llama-3.1-8b-instruct", &o, KVPLAN_OK, NULL);
    CHECK_INT(p.kv_cache_manager, 1);
    CHECK_INT(p.num_gpu_blocks, 14329);
    /* max_tokens 100000: V1 holds them (3125 blocks); V2's quota is
     * ceil(100000 x 131072 / 0.95) = 13797052632, 823 grains of 16 MiB,
     * 3292 slots; at max_util_for_resume 1.0, 13107200000 in 782 grains,
     * 3128 */
    o.max_tokens = (kvplan_opt_int){100000, true};
    p = plan("llama-3.1-8b-instruct", &o, KVPLAN_OK, NULL);
    CHECK_INT(p.num_gpu_blocks, 3125);
    manager(&o, 2);
    p = plan("llama-3.1-8b-instruct", &o, KVPLAN_OK, NULL);
    CHECK_INT(p.gpu_quota_bytes, 13797052632);
    CHECK_INT(p.quota_grain_bytes, 16 * MIB);
    CHECK_INT(p.num_gpu_blocks, 3292);
    o.max_util_for_resume = (kvplan_opt_double){1.0, true};
    p = plan("llama-3.1-8b-instruct", &o, KVPLAN_OK, NULL);
    CHECK_INT(p.gpu_quota_bytes, 13107200000);
    CHECK_INT(p.num_gpu_blocks, 3128);
}

/* The grain's share: Qwen3-0.6B (28 layers x 8 x 128 x 2 x 2 = 114688
 * bytes a token, a 3.5 MiB slot) under a 20 GiB + 1 byte cap: V2 rounds
 * the quota up to 641 grains of 32 MiB, 5860 slots; V1 holds
 * floor(21474836481 / 114688) = 187245 tokens, 5852 blocks. */
static void test_grain_share(void)
{
    kvplan_engine_options o = trtllm_options(1, true);
    o.max_gpu_total_bytes = (kvplan_opt_int){20 * GIB + 1, true};
    kvplan_engine_plan p = plan("qwen3-0.6b", &o, KVPLAN_OK, NULL);
    CHECK_INT(p.bytes_per_token, 114688);
    CHECK_INT(p.gpu_quota_bytes, 20 * GIB + 1);
    CHECK_INT(p.num_gpu_blocks, 5860);
    manager(&o, 1);
    p = plan("qwen3-0.6b", &o, KVPLAN_OK, NULL);
    CHECK_INT(p.num_gpu_blocks, 5852);
}

/* MLA (SELFKONLY: the latent, kv_factor 1): DeepSeek-V2-Lite at TP 2,
 * 27 x 576 x 2 = 31104 bytes a token, a slot of 32 tokens 995328 bytes.
 * Over two ranks the quota goes to tokens and back: 20 GiB + 12345 bytes
 * is 8192 + (21474848825 - 8192 x 31104) / 31104 tokens, in float, and
 * int(tokens x 31104) = 21474848825 again; 641 grains of 32 MiB hold
 * 21609 slots. */
static void test_mla(void)
{
    kvplan_engine_options o = trtllm_options(2, true);
    o.max_gpu_total_bytes = (kvplan_opt_int){20 * GIB + 12345, true};
    kvplan_engine_plan p = plan("deepseek-v2-lite", &o, KVPLAN_OK, NULL);
    CHECK_INT(p.bytes_per_token, 31104);
    CHECK_INT(p.groups[0].spec, KVPLAN_KV_SPEC_MLA);
    CHECK_INT(p.groups[0].page_bytes, 576 * 2 * 32);
    CHECK_INT(p.gpu_quota_bytes, 21474848825);
    CHECK_INT(p.num_gpu_blocks, 21609);
    o.max_gpu_total_bytes = (kvplan_opt_int){20 * GIB, true};
    p = plan("deepseek-v2-lite", &o, KVPLAN_OK, NULL);
    CHECK_INT(p.num_gpu_blocks, 21575); /* 640 x 32 MiB / 995328 */
}

/* GPT-OSS, V2 by default since #16942: V2 derives its windows from
 * layer_types ("sliding layers get sliding_window, full layers get
 * max_seq_len", docs/source/features/kvcache.md, TensorRT-LLM 0076e93),
 * so gpt-oss-20b's 12 sliding layers keep their 128 tokens. Each layer's
 * K and V are 32 x 8 x 64 x 2 x 2 = 65536 bytes a block; both life cycles
 * have 12 layers, slots of 12 x 65536 = 786432 bytes, so they share one
 * pool group. Under a 16 GiB cap: 512 grains of 32 MiB, 17179869184 /
 * 786432 = 21845 slots (the grains round nothing up: 21845 x 786432 is
 * under 512 grains). A token of every layer is still 24 x 2048 = 49152
 * bytes. V1 gives the sliding layers the whole sequence:
 * ceilDiv(16 GiB // 49152, 32) = ceilDiv(349525, 32) is 10923 blocks. */
static void test_gpt_oss(void)
{
    kvplan_engine_options o = trtllm_options(1, true);
    o.max_gpu_total_bytes = (kvplan_opt_int){16 * GIB, true};
    kvplan_engine_plan p = plan("gpt-oss-20b", &o, KVPLAN_OK, NULL);
    CHECK_INT(p.bytes_per_token, 49152);
    CHECK_INT(p.num_groups, 2);
    CHECK_INT(p.groups[0].spec, KVPLAN_KV_SPEC_SLIDING_WINDOW);
    CHECK_INT(p.groups[0].window, 128);
    CHECK_INT(p.groups[0].layers, 12);
    CHECK_INT(p.groups[1].spec, KVPLAN_KV_SPEC_FULL);
    CHECK_INT(p.groups[1].layers, 12);
    CHECK_INT(p.groups[0].num_blocks, 21845);
    CHECK_INT(p.num_gpu_blocks, 21845);
    /* --max-attention-window overrides the derivation: one window of
     * max_seq_len is every layer full, 24 layers a slot, 10922 slots */
    o.max_attention_window = "131072";
    p = plan("gpt-oss-20b", &o, KVPLAN_OK, NULL);
    CHECK_INT(p.num_groups, 1);
    CHECK_INT(p.num_gpu_blocks, 10922);
    o.max_attention_window = NULL;
    manager(&o, 1);
    p = plan("gpt-oss-20b", &o, KVPLAN_OK, NULL);
    CHECK_INT(p.num_gpu_blocks, 10923);
    /* a V1 plan names the family whose default V2 is, after TensorRT-LLM's
     * docs' table (which lists Llama, and of the Qwens only Qwen3-Next) */
    CHECK_STR(p.v2_default, "GPT-OSS (#16942)");
    p = plan("qwen3-0.6b", &o, KVPLAN_OK, NULL);
    CHECK(p.v2_default == NULL);
    p = plan("llama-3.1-8b-instruct", &o, KVPLAN_OK, NULL);
    CHECK_STR(p.v2_default, "Llama (TensorRT-LLM's KV cache docs)");
    o.trtllm_version = KVPLAN_TRTLLM_V1_0; /* V1's mamba cost: then */
    p = plan("nemotron-3-nano-30b-a3b", &o, KVPLAN_OK, NULL);
    CHECK_STR(p.v2_default,
              "NemotronH, a hybrid Mamba (TensorRT-LLM's KV cache docs)");
}

/* DeepSeek-V3.2 (DSA) under V2 at TP 8, a 40 GiB cap: DSACacheManagerV2
 * gives each of the 61 layers its MLA latent, 576 x 2 bytes a token in
 * bf16 (SELFKONLY), and its indexer keys, 128 + 4 = 132 bytes as uint8
 * (Role.INDEX_KEY, _extra_buffers_per_layer): 78,324 bytes a token. The
 * quota through tokens and back is 40 GiB again; the pools, 61 x 1152 x
 * 32 = 2,248,704 and 61 x 132 x 32 = 257,664 bytes a slot, take 1,148 +
 * 132 = 1,280 grains of 32 MiB for 17,130 slots (17,131 would take
 * 1,149 + 132). */
static void test_dsa(void)
{
    kvplan_engine_options o = trtllm_options(8, true);
    CHECK(kvplan_gpu_preset("H200", &o.gpu));
    o.max_gpu_total_bytes = (kvplan_opt_int){40 * GIB, true};
    kvplan_engine_plan p = plan("deepseek-v3.2", &o, KVPLAN_OK, NULL);
    CHECK_INT(p.bytes_per_token, 61 * (1152 + 132));
    CHECK_INT(p.gpu_quota_bytes, 40 * GIB);
    CHECK_INT(p.num_groups, 1);
    CHECK_INT(p.groups[0].spec, KVPLAN_KV_SPEC_MLA);
    CHECK_INT(p.num_gpu_blocks, 17130);
    CHECK_INT(p.available_bytes, 17130LL * (2248704 + 257664));
}

/* An EAGLE3 head (eagle3-llama3.1-8b: one layer of 8 KV heads x 128)
 * under V2 joins the target's manager as a 33rd layer of the same size, so
 * one life cycle, one pool of 66 buffers of 65,536 bytes: a 4,325,376-byte
 * slot; a 16 GiB cap is 512 grains of 32 MiB, floor(512 x 32 MiB /
 * 4325376) = 3,971 slots (V1: ceilDiv(127,100 tokens, 32) = 3,972
 * blocks, test_engines' test_trtllm_draft_split). */
static void test_draft(void)
{
    kvplan_model *d = NULL;
    CHECK_INT(kvplan_model_load("eagle3-llama3.1-8b", &d, NULL), KVPLAN_OK);
    kvplan_engine_options o = trtllm_options(1, true);
    o.speculative_algorithm = KVPLAN_SPEC_EAGLE3;
    o.speculative_draft_model = d;
    o.max_gpu_total_bytes = (kvplan_opt_int){16 * GIB, true};
    kvplan_engine_plan p = plan("llama-3.1-8b-instruct", &o, KVPLAN_OK, NULL);
    CHECK_INT(p.bytes_per_token, 33 * 4096);
    CHECK_INT(p.num_groups, 1);
    CHECK_INT(p.groups[0].layers, 33);
    CHECK_INT(p.num_gpu_blocks, 3971);
    /* a separate draft cache under V2 is not restated */
    o.separate_draft_kv_cache = true;
    kvplan_error err;
    plan("llama-3.1-8b-instruct", &o, KVPLAN_UNSUPPORTED, &err);
    CHECK_STR(err.field, "--separate-draft-kv-cache");
    kvplan_model_free(d);
}

/* What kvplan does not restate under V2 is refused, naming the flag. */
static void test_refusals(void)
{
    kvplan_engine_options o = trtllm_options(1, true);
    kvplan_error err;
    /* windows over pipeline stages, and MLA's, are not restated */
    o.max_attention_window = "4096";
    o.pp_size = 2;
    plan("llama-3.1-8b-instruct", &o, KVPLAN_UNSUPPORTED, &err);
    CHECK_STR(err.field, "--pp-size");
    o.pp_size = 1;
    plan("deepseek-v2-lite", &o, KVPLAN_UNSUPPORTED, &err);
    CHECK_STR(err.field, "--max-attention-window");
    o.max_attention_window = NULL;
    /* max_util_for_resume is read only with V2 and max_tokens: elsewhere
     * TensorRT-LLM ignores it, and kvplan names it rather than answer */
    o.max_util_for_resume = (kvplan_opt_double){0.9, true};
    plan("llama-3.1-8b-instruct", &o, KVPLAN_INVALID_ARGUMENT, &err);
    CHECK_STR(err.field, "--max-util-for-resume");
    manager(&o, 1);
    o.max_tokens = (kvplan_opt_int){100000, true};
    plan("llama-3.1-8b-instruct", &o, KVPLAN_INVALID_ARGUMENT, &err);
    CHECK_STR(err.field, "--max-util-for-resume");
}

/* The notes of the longest kinds (a V2 plan naming why it is V2,
 * Gemma 4's; a hybrid Mamba's under V2 and V1) fit their room whole:
 * snprintf would cut them without a word. */
static void test_notes_fit(void)
{
    const char *models[] = {"gemma-4-26b-a4b", "nemotron-3-nano-30b-a3b",
                            "nemotron-3-nano-30b-a3b", "gpt-oss-20b"};
    bool v2[] = {true, true, false, true};
    for (size_t i = 0; i < 4; i++) {
        kvplan_engine_options o = trtllm_options(1, v2[i]);
        if (!v2[i]) /* V1's mamba cost as 1.0-1.3.0rc20 priced it */
            o.trtllm_version = KVPLAN_TRTLLM_V1_0;
        o.max_num_seqs = (kvplan_opt_int){64, true};
        o.max_tokens = (kvplan_opt_int){1, true}; /* the least-slots note */
        kvplan_engine_plan p = plan(models[i], &o, KVPLAN_OK, NULL);
        char text[KVPLAN__ENGINE_NOTES][KVPLAN__ENGINE_NOTE];
        size_t n = kvplan__engine_notes(&p, text);
        CHECK(n >= 3);
        for (size_t j = 0; j < n; j++)
            CHECK(strlen(text[j]) < sizeof text[j] - 1);
    }
}

int main(void)
{
    test_storage();
    test_dense();
    test_grain_share();
    test_mla();
    test_gpt_oss();
    test_dsa();
    test_draft();
    test_refusals();
    test_notes_fit();
    return check_report();
}
