/*
 * profile.c: the sglang versions a plan can follow (docs/versions.md).
 *
 * The seed (6cc9352d) is what the golden vectors replay; every later or
 * earlier change that moves a number is one rule, a bit of
 * kvplan_plan.rules, and each profile is a set of rules. The rooms read
 * the bits where the rule lives: the core (rank.upstream.rules), the
 * budget (its inputs) and the plan (this file's checks). The facts and
 * their commits are those of the upstream survey (shared spec
 * upstream.md §1.2, §1.3).
 */
#include "plan/plan.h"

#include <stdio.h>
#include <string.h>

static const kvplan_rule_info rules[] = {
    {KVPLAN_RULE_DSA_FP8_656, "dsa_fp8_656", "#31992 (2abb1d2c3, 07-27)",
     "DSA with an fp8 KV cache prices its rows as allocated: kv_lora_rank + "
     "kv_lora_rank // 128 * 4 + rope * 2 = 656 bytes per layer, not 576 "
     "(not on HIP)",
     true},
    {KVPLAN_RULE_DSA_SKIP_TOPK, "dsa_skip_topk", "#30531 (8cc112d48, 08-17)",
     "the DSA indexer is priced only on the layers that compute their own "
     "top-k (index_topk_freq, index_topk_pattern, indexer_types); not with "
     "HiSparse, PD, a draft or the layer split",
     true},
    {KVPLAN_RULE_FP4_MHA_WORKSPACE, "fp4_mha_workspace",
     "#21601 (ec6a3163b, 07-17)",
     "an FP4 MHA cell adds one shared fp8 dequant workspace, heads * "
     "head_dim * 2 per token",
     true},
    {KVPLAN_RULE_DCP_KV_HEADS, "dcp_kv_heads",
     "#32828, #33925, #32858 (1496bfee9, 07-31..08-08)",
     "the MHA cell's heads per rank are total // (attn_tp // dcp): with "
     "--dcp-size > 1 a rank holds more heads, and fewer tokens",
     true},
    {KVPLAN_RULE_SWA_FLOOR_ERROR, "swa_floor_error",
     "#31681 (02236fa38, 07-19)",
     "a sliding-window pool that cannot hold sliding_window_size + "
     "page_size tokens is a start-up error (the seed serves it and hangs)",
     true},
    {KVPLAN_RULE_DSV4_DRAFT_PAD, "dsv4_draft_pad", "#34189 (4a5d7d3c6, 08-09)",
     "DeepSeek V4 refuses more speculative draft tokens than the compress "
     "state's write pad (4)",
     false},
    {KVPLAN_RULE_MAMBA_PAD_SLOT, "mamba_pad_slot", "#32184 (59ef3b15c, 07-23)",
     "the mamba solve counts the pool's padding slot: K = (B - per (1 + D)) "
     "// (per (1 + D / ratio)), and K + 1 slots leave the KV budget",
     true},
    {KVPLAN_RULE_MM_RESERVE, "mm_reserve", "#34141 (773faf992, 08-12)",
     "a multimodal model keeps SGLANG_VLM_CACHE_SIZE_MB (100 MiB) out of the "
     "available bytes",
     true},
    {KVPLAN_RULE_MLA_PREFILL_GRAPH, "mla_prefill_graph",
     "#33661 (06f32bab6), #31987, #33150",
     "the breakable prefill cuda graph stays on for MLA and MoE all-to-all "
     "models: the fraction's reserve adds 1536 MB for MLA (8 MB per batch "
     "size otherwise)",
     true},
    {KVPLAN_RULE_DCP_NO_PREFILL_GRAPH, "dcp_no_prefill_graph",
     "#31532 (96dd96c02, 07-16)",
     "--dcp-size > 1 turns the prefill cuda graphs off, and their reserve",
     true},
    {KVPLAN_RULE_DEEPEP_PREFILL, "deepep_prefill", "#31987 (3e0f7c3f3, 07-31)",
     "DeepEP with the breakable prefill graph reserves 1024 MB more", true},
    {KVPLAN_RULE_PREFILL_BS_UNCLAMPED, "prefill_bs_unclamped",
     "#30206 (7eb27372b, 08-03)",
     "the prefill graph batch sizes are no longer cut at --context-length",
     true},
    {KVPLAN_RULE_VLM_PD_DECODE, "vlm_pd_decode", "#34262 (fde9ad253, 08-11)",
     "a PD decode server skips the vision tower's fraction factor", true},
    {KVPLAN_RULE_FRACTION_TIERS, "fraction_tiers", "#7054 (0.4.8)",
     "the default fraction from a reserve per GPU tier: 2.8 + tp*pp/10 GiB "
     "(< 35 GiB), 9.5 + tp*pp/2 (< 90), 12 + tp*pp/2 (< 160), 32 GiB above; "
     "+2 GiB speculative, +4 GiB DP attention",
     true},
    {KVPLAN_RULE_FRACTION_TP_TABLE, "fraction_tp_table", "before #7054 (0.4.8)",
     "the default fraction by tp_size alone: 0.88 (1), 0.87 (2-3), 0.85 "
     "(4-7), 0.81 (8-15; 0.83 in some builds before 0.4), 0.79 (16 and "
     "more)",
     false},
    {KVPLAN_RULE_SPEC_RESERVE, "spec_reserve", "#10975; removed by #23862",
     "speculative decoding reserves a flat 4 GiB (EAGLE, MTP) or 6 GiB "
     "(STANDALONE) in the fraction, after the 10 GiB floor",
     false},
    {KVPLAN_RULE_DRAFT_UNPRICED, "draft_unpriced", "before #23862 (06-12)",
     "the draft's KV and weights are not in the budget: the cell is the "
     "target's alone, the draft loads after profiling",
     false},
    {KVPLAN_RULE_MRR_AS_GIVEN, "mrr_as_given", "before #20142 (03-08)",
     "an explicit --max-running-requests is used as given (per DP worker), "
     "not cut to max_total_num_tokens // 2",
     false},
    {KVPLAN_RULE_DSV4_SWA_FLOOR, "dsv4_swa_floor", "#37610 (09-02)",
     "DeepSeek V4 fails at start-up, as hybrid SWA does, when its SWA pool "
     "holds no window and a page (it used to hang in warm-up)",
     false},
    {KVPLAN_RULE_AITER_IN_MODEL_RUNNER, "aiter_in_model_runner",
     "before #12136 (10-26)",
     "the aiter backend's x 0.85 of mem_fraction_static (context over 8192, "
     "given or not) is made in ModelRunner, after the server args are "
     "printed: a log prints the fraction before it",
     false},
    {KVPLAN_RULE_CONTEXT_TP1_NCCL, "context_tp1_nccl",
     "public 0.5.17-0.5.19 launches (issue 26's survey)",
     "one NVIDIA GPU holds 1.17 GiB before loading (the CUDA context, "
     "cuBLAS and a communicator made at start-up), where older builds held "
     "0.84-1.06: an RTX 5090 1.16",
     false},
    {KVPLAN_RULE_DP_ATTN_PREFILL_GRAPH, "dp_attn_prefill_graph",
     "#30898 (b94ac87e0), #31682 (429f6b6d1)",
     "DP attention keeps the breakable prefill graph, its batch sizes cut to "
     "the per-DP chunk",
     false},
};

#define NUM_RULES (sizeof rules / sizeof rules[0])

bool kvplan_rule_at(size_t index, kvplan_rule_info *out)
{
    if (out == NULL || index >= NUM_RULES)
        return false;
    *out = rules[index];
    return true;
}

/* 0.5.16 = the seed and what landed between 07-12 and its cut */
#define RULES_0516                                                             \
    (KVPLAN_RULE_FP4_MHA_WORKSPACE | KVPLAN_RULE_SWA_FLOOR_ERROR |             \
     KVPLAN_RULE_DCP_NO_PREFILL_GRAPH | KVPLAN_RULE_DP_ATTN_PREFILL_GRAPH)

static const struct {
    kvplan_sglang_profile profile;
    const char *name;
    uint64_t rules;
} profiles[] = {
    {KVPLAN_SGLANG_SEED, "seed", 0},
    {KVPLAN_SGLANG_E1, "0.3.0-0.4.7",
     KVPLAN_RULE_FRACTION_TP_TABLE | KVPLAN_RULE_DRAFT_UNPRICED |
         KVPLAN_RULE_MRR_AS_GIVEN | KVPLAN_RULE_AITER_IN_MODEL_RUNNER},
    {KVPLAN_SGLANG_E2, "0.4.8-0.5.2",
     KVPLAN_RULE_FRACTION_TIERS | KVPLAN_RULE_DRAFT_UNPRICED |
         KVPLAN_RULE_MRR_AS_GIVEN | KVPLAN_RULE_AITER_IN_MODEL_RUNNER},
    {KVPLAN_SGLANG_E3, "0.5.3-0.5.12",
     KVPLAN_RULE_SPEC_RESERVE | KVPLAN_RULE_DRAFT_UNPRICED |
         KVPLAN_RULE_MRR_AS_GIVEN},
    {KVPLAN_SGLANG_E4, "0.5.13-0.5.15", 0},
    {KVPLAN_SGLANG_V0516, "0.5.16", RULES_0516},
    {KVPLAN_SGLANG_MAIN, "main",
     RULES_0516 | KVPLAN_RULE_DSA_FP8_656 | KVPLAN_RULE_DSA_SKIP_TOPK |
         KVPLAN_RULE_DCP_KV_HEADS | KVPLAN_RULE_DSV4_DRAFT_PAD |
         KVPLAN_RULE_MAMBA_PAD_SLOT | KVPLAN_RULE_MM_RESERVE |
         KVPLAN_RULE_MLA_PREFILL_GRAPH | KVPLAN_RULE_DEEPEP_PREFILL |
         KVPLAN_RULE_PREFILL_BS_UNCLAMPED | KVPLAN_RULE_VLM_PD_DECODE |
         KVPLAN_RULE_DSV4_SWA_FLOOR | KVPLAN_RULE_CONTEXT_TP1_NCCL},
};

#define NUM_PROFILES (sizeof profiles / sizeof profiles[0])

static int profile_row(kvplan_sglang_profile p)
{
    for (size_t i = 0; i < NUM_PROFILES; i++)
        if (profiles[i].profile == p)
            return (int)i;
    return -1;
}

uint64_t kvplan_sglang_rules(kvplan_sglang_profile p)
{
    int i = profile_row(p);
    return i < 0 ? 0 : profiles[i].rules;
}

const char *kvplan_sglang_profile_name(kvplan_sglang_profile p)
{
    int i = profile_row(p);
    return i < 0 ? NULL : profiles[i].name;
}

bool kvplan_sglang_profile_exact(kvplan_sglang_profile p)
{
    if (p == KVPLAN_SGLANG_SEED)
        return true;
    if (p == KVPLAN_SGLANG_E2 || p == KVPLAN_SGLANG_E3 ||
        p == KVPLAN_SGLANG_E4 || profile_row(p) < 0)
        return false;
    uint64_t r = kvplan_sglang_rules(p);
    for (size_t i = 0; i < NUM_RULES; i++)
        if ((r & rules[i].bit) && !rules[i].exact)
            return false;
    return true;
}

kvplan_status kvplan_sglang_profile_parse(const char *version,
                                          kvplan_sglang_profile *out,
                                          kvplan_error *err)
{
    static const struct {
        const char *word;
        kvplan_sglang_profile profile;
    } words[] = {
        {"seed", KVPLAN_SGLANG_SEED},
        {"6cc9352d", KVPLAN_SGLANG_SEED},
        {"main", KVPLAN_SGLANG_MAIN},
        {"latest", KVPLAN_SGLANG_MAIN},
        {"e5", KVPLAN_SGLANG_MAIN},
        {"e4", KVPLAN_SGLANG_E4},
        {"e3", KVPLAN_SGLANG_E3},
        {"e1", KVPLAN_SGLANG_E1},
        {"0.3.0-0.4.7", KVPLAN_SGLANG_E1},
        {"e2", KVPLAN_SGLANG_E2},
        {"0.4.8-0.5.2", KVPLAN_SGLANG_E2},
        {"0.5.3-0.5.12", KVPLAN_SGLANG_E3},
        {"0.5.13-0.5.15", KVPLAN_SGLANG_E4},
    };
    KVPLAN__FAIL_IF(version == NULL || out == NULL, err,
                    KVPLAN_INVALID_ARGUMENT, "--sglang-version",
                    "--sglang-version: no version given");
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (kvplan__ascii_ieq(version, words[i].word)) {
            *out = words[i].profile;
            return kvplan__ok(err);
        }
    long n = kvplan__release_number(version);
    kvplan_sglang_profile p = KVPLAN_SGLANG_SEED;
    bool known = true;
    if (n >= 300 && n <= 407)
        p = KVPLAN_SGLANG_E1;
    else if (n >= 408 && n <= 502)
        p = KVPLAN_SGLANG_E2;
    else if (n >= 503 && n <= 512)
        p = KVPLAN_SGLANG_E3;
    else if (n >= 513 && n <= 515)
        p = KVPLAN_SGLANG_E4;
    else if (n == 516)
        p = KVPLAN_SGLANG_V0516;
    else if (n >= 517 && n <= 519)
        p = KVPLAN_SGLANG_MAIN;
    else
        known = false;
    KVPLAN__FAIL_IF(
        !known, err, KVPLAN_INVALID_ARGUMENT, "--sglang-version",
        "--sglang-version: kvplan has no profile for '%.40s'%s; it knows "
        "seed (the default, commit 6cc9352d), main (0.5.17-0.5.19 and main "
        "of 2026-08), 0.5.16, 0.5.13-0.5.15, 0.5.3-0.5.12, 0.4.8-0.5.2 and "
        "0.3.0-0.4.7, or a release of those ranges such as 0.5.9",
        version,
        n < 0     ? " (not a version)"
        : n < 300 ? " (older than 0.3.0)"
                  : " (newer than 0.5.19)");
    *out = p;
    return kvplan__ok(err);
}

void kvplan__profile_start(kvplan_plan *out, const kvplan_plan_options *o,
                           const kvplan_gpu *gpu)
{
    out->sglang_version = o->sglang_version;
    out->rules = kvplan_sglang_rules(o->sglang_version) ^ o->sglang_rules_flip;
    if (gpu->is_hip) /* HIP's DSA backends keep the 576-byte price */
        out->rules &= ~(uint64_t)KVPLAN_RULE_DSA_FP8_656;
}

void kvplan__profile_ranks(kvplan_plan *out, const kvplan_plan_options *o)
{
    for (size_t i = 0; i < out->num_stages; i++) {
        kvplan_rank *r = &out->stages[i].rank;
        r->upstream.rules = out->rules;
        r->upstream.dcp_size = o->dcp_size > 0 ? o->dcp_size : 1;
    }
}

kvplan_status kvplan__profile_refuse(const kvplan_plan *out, kvplan_error *err)
{
    const kvplan_stage_plan *sp = &out->stages[out->binding_stage];
    const kvplan_rank *r = &sp->rank;
    bool dsv4 = r->model.hf_config.is_deepseek_v4;
    int64_t window =
        dsv4 ? (r->model.window_size.set ? r->model.window_size.value : 0)
             : (r->runner.sliding_window_size.set
                    ? r->runner.sliding_window_size.value
                    : 0);
    bool floor = (out->rules & (dsv4 ? KVPLAN_RULE_DSV4_SWA_FLOOR
                                     : KVPLAN_RULE_SWA_FLOOR_ERROR)) != 0;
    if (floor && r->runner.is_hybrid_swa && window > 0 &&
        sp->pools.swa_max_total_num_tokens.set &&
        window + out->page_size >= sp->pools.swa_max_total_num_tokens.value)
        return kvplan__fail(
            err, KVPLAN_NOT_ENOUGH_MEMORY, "--swa-full-tokens-ratio",
            "sglang %s refuses to start: the sliding-window pool holds %lld "
            "tokens, not sliding_window_size + page_size (%lld + %lld); "
            "raise --swa-full-tokens-ratio or the memory",
            kvplan_sglang_profile_name(out->sglang_version),
            (long long)sp->pools.swa_max_total_num_tokens.value,
            (long long)window, (long long)out->page_size);
    kvplan_opt_int d = r->server_args.max_speculative_num_draft_tokens;
    if (!d.set)
        d = r->server_args.speculative_num_draft_tokens;
    int64_t pad =
        r->upstream.dsv4_draft_pad > 0 ? r->upstream.dsv4_draft_pad : 4;
    KVPLAN__FAIL_IF(
        dsv4 && (out->rules & KVPLAN_RULE_DSV4_DRAFT_PAD) && d.set &&
            d.value > pad,
        err, KVPLAN_INVALID_CONFIG, "--speculative-num-draft-tokens",
        "sglang %s refuses DeepSeek V4 with %lld draft tokens: the compress "
        "state's write pad holds %lld; lower --speculative-num-draft-tokens",
        kvplan_sglang_profile_name(out->sglang_version), (long long)d.value,
        (long long)pad);
    return KVPLAN_OK;
}
