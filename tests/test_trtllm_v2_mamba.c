/*
 * test_trtllm_v2_mamba.c: a hybrid Mamba under TensorRT-LLM's KV cache
 * manager V2 (docs/engines.md, "KV cache manager V2"), restated from
 * MambaHybridCacheManagerV2 (tensorrt_llm/_torch/pyexecutor/kv_cache/
 * mamba_cache_manager/mamba_cache_manager_v2.py and common.py, read at
 * 2829508, 2026) over V2's storage (_storage_manager.py:
 * _compute_slots_for_batch gives the SSM life cycle one slot a request,
 * _compute_min_slots_from_constraints its floor). Each figure is derived
 * by hand below; the splits were also replayed by a Python restatement of
 * ratio_to_slot_count_list written for this check.
 */
#include "check.h"
#include "engine_plan.h"
#include "kvplan.h"

#include <string.h>

#define GIB 1073741824LL
#define MIB 1048576LL

/* TensorRT-LLM's KV cache manager V2 at TP `tp`, `max_num_seqs`
 * requests. */
static kvplan_engine_options v2(int64_t tp, int64_t max_num_seqs)
{
    kvplan_engine_options o = trtllm_options(tp, true);
    o.max_num_seqs = (kvplan_opt_int){max_num_seqs, true};
    return o;
}

/* Nemotron-3-Nano 30B-A3B (pattern MEMEM*E...: 23 mamba layers first, 6
 * attention): a mamba layer's ssm state 64 heads x 64 x 128 x 4 (float32)
 * = 2,097,152 bytes and conv (64 x 64 + 2 x 8 x 128) x 3 x 2 = 36,864, so
 * the SSM life cycle's slot is pools of 23 x 2097152 = 48,234,496 and 23 x
 * 36864 = 847,872; an attention block is 6 layers x K and V of 32 x 2 x
 * 128 x 2 = 16,384: 196,608 bytes. With 64 requests and 16 GiB, one rank:
 * the quota is the budget, 512 grains of 32 MiB. The typical step: 64
 * requests of 262144 // 2 = 131072 tokens (4096 blocks each, 262,144
 * slots: 1536 grains) and 65 SSM slots (64 and the CUDA-graph dummy:
 * ceil(65 x 48234496 / 32 MiB) = 94 grains and ceil(65 x 847872 / 32 MiB)
 * = 2), shares 96/1632 and 1536/1632. The SSM group first: round(512 x
 * 96/1632) = 30 grains hold 20 slots, below its floor of 65, so pinned at
 * 65 (96 grains; 66 would take 97); the attention group the other 416,
 * floor(416 x 32 MiB / 196608) = 70997 slots. */
static void test_nemotron(void)
{
    kvplan_engine_options o = v2(1, 64);
    o.max_gpu_total_bytes = (kvplan_opt_int){16 * GIB, true};
    kvplan_engine_plan p = plan("nemotron-3-nano-30b-a3b", &o, KVPLAN_OK, NULL);
    CHECK_INT(p.kv_cache_manager, 2);
    CHECK_INT(p.gpu_quota_bytes, 16 * GIB);
    CHECK_INT(p.quota_grain_bytes, 32 * MIB);
    CHECK_INT(p.num_groups, 2);
    CHECK_INT(p.groups[0].spec, KVPLAN_KV_SPEC_MAMBA);
    CHECK_INT(p.groups[0].layers, 23);
    CHECK_INT(p.groups[0].page_bytes, 2097152 + 36864);
    CHECK_INT(p.groups[0].num_blocks, 65);
    CHECK_INT(p.groups[1].spec, KVPLAN_KV_SPEC_FULL);
    CHECK_INT(p.groups[1].layers, 6);
    CHECK_INT(p.groups[1].num_blocks, 70997);
    CHECK_INT(p.num_gpu_blocks, 70997);
    CHECK_INT(p.bytes_per_token, 6144); /* the attention layers' */
    /* the SSM pool is what runs out first: 64 requests (65 less the
     * dummy's slot); the attention's 70997 x 32 / 262144 is 8.67 */
    CHECK(p.max_concurrency > 8.66 && p.max_concurrency < 8.67);
}

/* TensorRT-LLM's default max_batch_size, 2048: V2 reserves a slot of
 * states for each, 2049 x 23 x 2,134,016 = 100,569,772,032 bytes, and one
 * attention block (196,608): the quota (16 GiB) is short, and
 * TensorRT-LLM refuses to start (_minimum_live_gpu_quota). */
static void test_live_floor(void)
{
    kvplan_engine_options o = v2(1, 2048);
    o.max_gpu_total_bytes = (kvplan_opt_int){16 * GIB, true};
    kvplan_error err;
    plan("nemotron-3-nano-30b-a3b", &o, KVPLAN_NOT_ENOUGH_MEMORY, &err);
    CHECK_STR(err.field, "--max-num-seqs");
    CHECK(strstr(err.message, "need at least 100569968640 bytes") != NULL);
}

/* Periodic snapshots (--mamba-state-cache-interval 256, block reuse on)
 * and --max-tokens 10000: _get_quota_from_max_tokens is 10000 x 6144 =
 * 61,440,000 for the attention, (64 + 1 + 10000 // 256 = 39) = 104 slots
 * of 23 x 2134016 = 49,082,368 bytes (5,104,566,272), and a partial block
 * a request once snapshots exist, 64 x 6144 x 32 = 12,582,912:
 * 5,178,589,184; over max_util_for_resume 0.95, ceil: 5,451,146,510
 * bytes, the quota. 8 MiB grains (log2 of 5.08 GiB is 2): the SSM group
 * pinned at its 65 slots, the attention's the rest, 11477 slots. */
static void test_snapshots(void)
{
    kvplan_engine_options o = v2(1, 64);
    o.max_gpu_total_bytes = (kvplan_opt_int){16 * GIB, true};
    o.mamba_state_cache_interval = (kvplan_opt_int){256, true};
    o.max_tokens = (kvplan_opt_int){10000, true};
    kvplan_engine_plan p = plan("nemotron-3-nano-30b-a3b", &o, KVPLAN_OK, NULL);
    CHECK_INT(p.gpu_quota_bytes, 5451146510);
    /* get_cache_bytes_per_token: 6144 + 49082368 // 256 */
    CHECK_INT(p.bytes_per_token, 6144 + 191728);
    CHECK_INT(p.quota_grain_bytes, 8 * MIB);
    CHECK_INT(p.groups[0].num_blocks, 65);
    CHECK_INT(p.groups[1].num_blocks, 11477);
    /* without block reuse there are no snapshots: (10000 x 6144 + 65 x
     * 49082368) / 0.95, ceil, 3,422,940,969 */
    o.no_prefix_caching = true;
    p = plan("nemotron-3-nano-30b-a3b", &o, KVPLAN_OK, NULL);
    CHECK_INT(p.gpu_quota_bytes, 3422940969);
}

/* Qwen3-Next 80B-A3B at TP 4 under 20 GiB (36 linear-attention layers,
 * 12 full): a rank's state 8 heads x 128 x 128 x 2 = 262,144 and conv
 * (32 x 128 + 2 x 16 x 128) / 4 x 3 x 2 = 12,288; 1 KV head of 256, 12
 * layers: 12,288 bytes a token, blocks of 393,216. Over four ranks the
 * quota goes to tokens and back (_get_max_tokens_from_quota's bisection),
 * clamped (KVCacheManagerV2.__init__ at 1fe0b08): the tokens of int(20 GiB
 * x 0.95) = 20,401,094,656 bytes are (20401094656 - 65 x 36 x 274432) //
 * 12288 = 1,607,985, whose quota 65 x 9879552 + 1607985 x 12288 =
 * 20,401,090,560 over 0.95 is 21,474,832,169 (ceil), below 20 GiB: the
 * quota. (Before the clamp, v2_sync_raises, the whole 20 GiB's 1,695,366
 * tokens gave 21,474,828,288.) 640 grains of 32 MiB:
 * SSM slots of 36 x 262144 and 36 x 12288 bytes; its share round(640 x
 * 20/3092) = 4 grains hold 10, below 65: pinned, 20 grains holding 67;
 * the attention group 620 grains, floor(620 x 32 MiB / 393216) = 52906. */
static void test_qwen3_next_tp4(void)
{
    kvplan_engine_options o = v2(4, 64);
    o.max_gpu_total_bytes = (kvplan_opt_int){20 * GIB, true};
    kvplan_engine_plan p =
        plan("qwen3-next-80b-a3b-thinking", &o, KVPLAN_OK, NULL);
    CHECK_INT(p.gpu_quota_bytes, 21474832169);
    CHECK_INT(p.groups[0].spec, KVPLAN_KV_SPEC_MAMBA);
    CHECK_INT(p.groups[0].layers, 36);
    CHECK_INT(p.groups[0].num_blocks, 67);
    CHECK_INT(p.groups[1].layers, 12);
    CHECK_INT(p.groups[1].num_blocks, 52906);
    o.trtllm_version = KVPLAN_TRTLLM_V1_0; /* v2_sync_raises */
    p = plan("qwen3-next-80b-a3b-thinking", &o, KVPLAN_OK, NULL);
    CHECK_INT(p.gpu_quota_bytes, 21474828288);
}

/* What kvplan does not restate for a hybrid Mamba under V2 is refused,
 * naming the flag; TensorRT-LLM's own refusal of speculative decoding is
 * quoted. */
static void test_refusals(void)
{
    kvplan_engine_options o = v2(1, 64);
    kvplan_error err;
    o.pp_size = 2;
    plan("nemotron-3-nano-30b-a3b", &o, KVPLAN_UNSUPPORTED, &err);
    CHECK_STR(err.field, "--pp-size");
    o.pp_size = 1;
    /* TP 3 splits neither Nemotron-3-Nano's 64 mamba heads nor its conv
     * channels: TensorRT-LLM asserts both divide (the fuzzer's TP 34592
     * had left a rank no state, a pool of 0 bytes) */
    o.tp_size = 3;
    plan("nemotron-3-nano-30b-a3b", &o, KVPLAN_INVALID_ARGUMENT, &err);
    CHECK_STR(err.field, "--tp-size");
    CHECK(strstr(err.message, "mamba_num_heads must be divisible") != NULL);
    o.tp_size = 1;
    o.max_attention_window = "4096";
    plan("nemotron-3-nano-30b-a3b", &o, KVPLAN_UNSUPPORTED, &err);
    CHECK_STR(err.field, "--max-attention-window");
    o.max_attention_window = NULL;
    o.speculative_algorithm = KVPLAN_SPEC_EAGLE3;
    plan("nemotron-3-nano-30b-a3b", &o, KVPLAN_UNSUPPORTED, &err);
    CHECK_STR(err.field, "--speculative-algorithm");
    CHECK(strstr(err.message, "model-specific Mamba cache manager") != NULL);
}

/* --avg-seq-len 8192 on Nemotron-3-Nano (64 requests, 16 GiB): the
 * typical step is 64 requests of 8192 tokens (256 blocks: 16,384
 * attention slots, 96 grains) and 65 SSM slots (96 grains), shares 1/2
 * and 1/2; the base's constraints with the dummy appended floor the
 * attention group at 8192 + 63 = 8255 slots and the SSM group at 65. The
 * SSM group first (the equal shares keep their order): 256 grains hold
 * 174 slots (175 would take 252 + 5 = 257); the attention group the other
 * 256, 43690. */
static void test_avg_seq_len(void)
{
    kvplan_engine_options o = v2(1, 64);
    o.max_gpu_total_bytes = (kvplan_opt_int){16 * GIB, true};
    o.avg_seq_len = (kvplan_opt_int){8192, true};
    kvplan_engine_plan p = plan("nemotron-3-nano-30b-a3b", &o, KVPLAN_OK, NULL);
    CHECK_INT(p.groups[0].num_blocks, 174);
    CHECK_INT(p.groups[1].num_blocks, 43690);
}

int main(void)
{
    test_nemotron();
    test_live_floor();
    test_snapshots();
    test_qwen3_next_tp4();
    test_avg_seq_len();
    test_refusals();
    return check_report();
}
