/*
 * budget.c: sglang's budget: the memory tiers of the defaults
 * (docs/sglang-rules.md §4.2), the mem_fraction_static rule (§4.1) and the
 * bytes _profile_available_bytes hands the configurator, with the mamba
 * state reservation (§3.1).
 *
 * Everything sglang measures on a live GPU (free memory before and after
 * loading the weights) is modelled from the GPU's total and the weights'
 * size; the plan reports those terms as estimates.
 */
#include "budget/budget.h"

#include <math.h>

/* §4.2: chunked_prefill_size and the decode cuda-graph batch by memory. */
void kvplan__memory_tiers(double gpu_mib, bool known, int64_t tp,
                          int64_t *chunk, int64_t *max_bs)
{
    static const struct {
        double below;
        int64_t chunk, bs_small_tp, bs_large_tp;
    } tiers[] = {
        {20480, 2048, 8, 8},      {35840, 2048, 24, 80},
        {61440, 4096, 32, 160},   {92160, 8192, 256, 512},
        {163840, 8192, 256, 512}, {1e300, 16384, 512, 512},
    };
    if (!known) {
        *chunk = 4096;
        *max_bs = 160;
        return;
    }
    size_t n = sizeof tiers / sizeof tiers[0];
    for (size_t i = 0; i < n; i++) {
        if (gpu_mib < tiers[i].below || i + 1 == n) { /* the last takes all */
            *chunk = tiers[i].chunk;
            *max_bs = tp < 4 ? tiers[i].bs_small_tp : tiers[i].bs_large_tp;
            return;
        }
    }
}

/* The prefill cuda-graph batch sizes up to max_bs (§4.1): 4..32 step 4,
 * 48..256 step 16, 288..512 step 32, 576..1024 step 64, 1280..4096 step
 * 256, then 4608, 5120, ... (counted per range, not walked: a sweep plans
 * this for every row). */
static int64_t prefill_bs_count(int64_t max_bs)
{
    static const int64_t ranges[][3] = {{4, 32, 4},
                                        {48, 256, 16},
                                        {288, 512, 32},
                                        {576, 1024, 64},
                                        {1280, 4096, 256}};
    int64_t n = 0;
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
        int64_t lo = ranges[i][0], hi = ranges[i][1], step = ranges[i][2];
        if (max_bs >= lo)
            n += ((max_bs < hi ? max_bs : hi) - lo) / step + 1;
    }
    if (max_bs >= 4608) /* 4608, 5120, ... up to max_bs */
        n += (max_bs - 4608) / 512 + 1;
    return n;
}

/* A value through a float32 tensor (the min-reduce of the free memory).
 * The volatile is load-bearing: GCC 12's SLP vectorizer drops a plain
 * (double)(float) pair when it fuses the two stores that follow
 * (test_plan checks the rounding at TP > 1). */
static double to_f32(double x)
{
    volatile float f = (float)x;
    return f;
}

/* The aiter backend's own adjustment for long contexts, on every rule's
 * fraction (and a given one, kvplan__fraction_given): x 0.85 when the
 * context is longer than 8192. */
static void aiter_adjust(const kvplan__fraction_inputs *in, kvplan_budget *b)
{
    b->aiter_factor = in->aiter && in->context_len > 8192 ? 0.85 : 1;
    if (b->aiter_factor != 1)
        b->mem_fraction_static *= b->aiter_factor;
}

/* sglang 0.4.8 - 0.5.2 (KVPLAN_RULE_FRACTION_TIERS): a reserve per GPU
 * tier, in GiB, with the speculative and DP-attention additions. */
static void fraction_tiers(const kvplan__fraction_inputs *in, kvplan_budget *b)
{
    double g = in->gpu_mib, ps = (double)in->tp_size * (double)in->pp_size;
    /* GiB: base + tp x pp x per rank, by the GPU's tier */
    b->tier_base_gib = g < 35 * 1024    ? 2.8
                       : g < 90 * 1024  ? 9.5
                       : g < 160 * 1024 ? 12
                                        : 32;
    b->tier_per_rank_gib = g < 35 * 1024 ? 0.1 : g < 160 * 1024 ? 0.5 : 0;
    double gib = g < 35 * 1024    ? 2.8 + ps / 10
                 : g < 90 * 1024  ? 9.5 + ps / 2
                 : g < 160 * 1024 ? 12 + ps / 2
                                  : 32;
    b->fraction_tiers = true;
    b->reserve_ranks = ps;
    b->spec_reserve_mib =
        in->speculative_algorithm != KVPLAN_SPEC_NONE ? 2048 : 0;
    b->dp_attention_mib = in->enable_dp_attention ? 4096 : 0;
    double reserved = gib * 1024 + b->spec_reserve_mib + b->dp_attention_mib;
    b->reserved_mib = reserved;
    b->fraction_rule = kvplan__py_round3((g - reserved) / g);
    b->mem_fraction_static = b->fraction_rule;
    b->vision_factor = 1;
    aiter_adjust(in, b); /* ModelRunner's (KVPLAN_RULE_AITER_IN_MODEL_RUNNER) */
}

/* sglang before 0.4.8 (KVPLAN_RULE_FRACTION_TP_TABLE): the fraction by
 * tp_size alone (its server_args.py: 0.79 at 16 and more, 0.81 at 8, 0.85
 * at 4, 0.87 at 2, else 0.88), then ModelRunner's aiter factor. */
static void fraction_tp_table(const kvplan__fraction_inputs *in,
                              kvplan_budget *b)
{
    int64_t tp = in->tp_size;
    double f = tp >= 16  ? 0.79
               : tp >= 8 ? 0.81
               : tp >= 4 ? 0.85
               : tp >= 2 ? 0.87
                         : 0.88;
    b->fraction_rule = f;
    b->mem_fraction_static = f;
    b->reserved_mib = in->gpu_mib * (1 - f);
    b->vision_factor = 1;
    aiter_adjust(in, b);
}

/* Whether sglang captures the (breakable) prefill cuda graphs, whose batch
 * sizes the reserve counts: the seed's exclusions, less those later
 * sglang lifted (KVPLAN_RULE_MLA_PREFILL_GRAPH, ..._DP_ATTN_...) and with
 * the one it added (KVPLAN_RULE_DCP_NO_PREFILL_GRAPH). */
static bool prefill_graph_on(const kvplan__fraction_inputs *in)
{
    uint64_t r = in->rules;
    bool later_mla = (r & KVPLAN_RULE_MLA_PREFILL_GRAPH) != 0;
    bool later_dp = (r & KVPLAN_RULE_DP_ATTN_PREFILL_GRAPH) != 0;
    bool dcp_off = (r & KVPLAN_RULE_DCP_NO_PREFILL_GRAPH) && in->dcp_size > 1;
    return !in->disable_cuda_graph &&
           in->disaggregation_mode != KVPLAN_DISAGG_DECODE && !in->is_hip &&
           (!in->is_mla || later_mla) && !in->is_deepseek_v4 &&
           in->attn_cp_size <= 1 && (!in->enable_dp_attention || later_dp) &&
           !in->vision.present && (!in->moe_a2a || later_mla) && !dcp_off;
}

/* _handle_gpu_memory_settings: the reserve, in MiB, and the fraction. */
void kvplan__budget_fraction(const kvplan__fraction_inputs *in,
                             kvplan_budget *b)
{
    if (in->rules & KVPLAN_RULE_FRACTION_TIERS) {
        fraction_tiers(in, b);
        return;
    }
    if (in->rules & KVPLAN_RULE_FRACTION_TP_TABLE) {
        fraction_tp_table(in, b);
        return;
    }
    bool pd_prefill = in->disaggregation_mode == KVPLAN_DISAGG_PREFILL;
    bool pd_decode = in->disaggregation_mode == KVPLAN_DISAGG_DECODE;
    int64_t chunk = in->chunked_prefill_size;
    int64_t max_bs = in->cuda_graph_max_bs;
    /* activations: the largest forward batch's tokens */
    double act;
    if (pd_decode) {
        double reqs = (double)(in->max_running_requests.set
                                   ? in->max_running_requests.value
                                   : max_bs);
        double tok = (double)(in->speculative_num_draft_tokens.set
                                  ? in->speculative_num_draft_tokens.value
                                  : 1);
        act = reqs * tok > 2048 ? reqs * tok : 2048;
    } else if (chunk > 0) {
        act = (double)kvplan__max(chunk, 2048);
    } else {
        act = (double)kvplan__max(in->max_prefill_tokens, 2048);
    }
    /* cuda graphs: decode, DP attention, and the prefill graphs */
    double graph = 0;
    bool decode_graph = !in->disable_cuda_graph && !pd_prefill;
    if (decode_graph)
        graph += (double)max_bs * 2;
    if (in->enable_dp_attention && !pd_prefill) {
        graph += (double)max_bs * (double)in->dp_size * 3;
        if (max_bs > 300)
            graph += (double)max_bs * (double)in->dp_size * 1.5;
    }
    bool prefill_graph = prefill_graph_on(in);
    if (prefill_graph) {
        int64_t pbs = chunk > 0 ? chunk : in->max_prefill_tokens;
        if (in->enable_dp_attention && in->dp_size > 1)
            pbs /= in->dp_size; /* later sglang: the per-DP chunk */
        if (in->max_total_tokens.set)
            pbs = kvplan__min(pbs, in->max_total_tokens.value);
        if (in->model_is_llama2)
            pbs = kvplan__min(pbs, 4096);
        if (in->context_length.set &&
            !(in->rules & KVPLAN_RULE_PREFILL_BS_UNCLAMPED))
            pbs = kvplan__min(pbs, in->context_length.value);
        b->prefill_graph_bs_count = prefill_bs_count(pbs);
        /* later sglang reserves 1536 MB for an MLA model's graphs */
        graph += in->is_mla ? 1536 : 8.0 * (double)b->prefill_graph_bs_count;
        if ((in->rules & KVPLAN_RULE_DEEPEP_PREFILL) && in->deepep)
            graph += 1024;
    }
    /* reserved = 512 + 1.5 act + tp*pp/8 GiB + graphs, >= 10 GiB on big GPUs */
    double reserved = 512 + act * 1.5 +
                      (double)in->tp_size * (double)in->pp_size / 8 * 1024 +
                      graph;
    b->fraction_tiers = false;
    b->reserve_ranks = (double)in->tp_size * (double)in->pp_size;
    b->floor_mib = in->gpu_mib > 60 * 1024 ? 10240 : 0;
    reserved = reserved > b->floor_mib ? reserved : b->floor_mib;
    b->deepep_mib = decode_graph && in->deepep ? 2048 : 0;
    reserved += b->deepep_mib;
    if (in->rules & KVPLAN_RULE_SPEC_RESERVE) {
        /* 0.5.3 - 0.5.12: a flat reserve for the draft, after the floor */
        kvplan_spec_algorithm a = in->speculative_algorithm;
        b->spec_reserve_mib = a == KVPLAN_SPEC_STANDALONE ? 6144
                              : a != KVPLAN_SPEC_NONE     ? 4096
                                                          : 0;
        reserved += b->spec_reserve_mib;
    }
    b->activation_mib = act * 1.5;
    b->graph_mib = graph;
    b->reserved_mib = reserved;
    b->fraction_rule =
        kvplan__py_round3((in->gpu_mib - reserved) / in->gpu_mib);
    b->mem_fraction_static = b->fraction_rule;
    b->vision_factor = 1;
    bool vlm_exempt = (in->rules & KVPLAN_RULE_VLM_PD_DECODE) && pd_decode;
    if (in->vision.present && !vlm_exempt) {
        /* the vision tower: 0.95 * clamp(1 - 0.1 (cv - 1), 0.8, 1.05) */
        double cv = (double)in->vision.layers * (double)in->vision.hidden *
                    (double)in->vision.hidden / (24.0 * 1024 * 1024);
        double adj = 1 - 0.1 * (cv - 1);
        adj = adj < 0.8 ? 0.8 : adj > 1.05 ? 1.05 : adj;
        b->vision_factor = 0.95 * adj;
        b->mem_fraction_static *= b->vision_factor;
    }
    aiter_adjust(in, b);
}

/* handle_max_mamba_cache: the mamba state's slots, and what they take out
 * of `rest` (GiB). */
static kvplan_status reserve_mamba(const kvplan__available_inputs *in,
                                   double *rest, int64_t *max_mamba,
                                   kvplan_error *err)
{
    double mamba_per = in->mamba_per_request;
    int64_t ratio = in->mamba_ratio;
    bool ovf = false;
    double d = in->speculative && in->speculative_num_draft_tokens.set
                   ? (double)in->speculative_num_draft_tokens.value
                   : 0;
    int64_t n = 0;
    const char *field = NULL;
    if (in->max_mamba_cache_size.set) { /* case A: the flag */
        field = "--max-mamba-cache-size";
        n = in->max_mamba_cache_size.value / in->attn_dp;
        if (d > 0) {
            int64_t reqs = in->max_running_requests.set
                               ? in->max_running_requests.value / in->attn_dp
                               : n / ratio;
            *rest -= mamba_per * (double)kvplan__min(reqs, n / ratio) * d /
                     1073741824.0;
        }
    } else if (in->disable_radix_cache && in->max_running_requests.set) {
        field = "--max-running-requests";
        n = in->max_running_requests.value / in->attn_dp;
        *rest -= mamba_per * (double)n * d / 1073741824.0;
    } else {
        double q = in->mamba_full_memory_ratio;
        double budget = *rest * q / (1 + q);
        /* later sglang counts the pool's padding slot in the solve */
        double pad =
            (in->rules & KVPLAN_RULE_MAMBA_PAD_SLOT) ? mamba_per * (1 + d) : 0;
        if (d > 0) {
            n = kvplan__trunc(
                kvplan__py_float_floordiv(budget * 1073741824.0 - pad,
                                          mamba_per * (1 + d / (double)ratio)),
                &ovf);
            int64_t reqs = in->max_running_requests.set
                               ? in->max_running_requests.value / in->attn_dp
                               : n / ratio;
            *rest -= mamba_per * (double)kvplan__min(reqs, n / ratio) * d /
                     1073741824.0;
        } else {
            n = kvplan__trunc(kvplan__py_float_floordiv(
                                  budget * 1073741824.0 - pad, mamba_per),
                              &ovf);
        }
    }
    KVPLAN__FAIL_IF(n <= 0, err, KVPLAN_NOT_ENOUGH_MEMORY,
                    field ? field : "--mem-fraction-static",
                    "Not enough memory for the mamba state: one request "
                    "needs %.0f bytes of it; increase --mem-fraction-static",
                    mamba_per);
    int64_t slots = (in->rules & KVPLAN_RULE_MAMBA_PAD_SLOT) ? n + 1 : n;
    *rest -= (double)slots * mamba_per / 1073741824.0;
    KVPLAN__FAIL_IF(*rest <= 0 && field != NULL, err, KVPLAN_NOT_ENOUGH_MEMORY,
                    field,
                    "the mamba state of %lld requests (%s) takes %.2f GiB, "
                    "more than the %.2f GiB the KV cache and it share; lower "
                    "%s",
                    (long long)n, field, (double)n * mamba_per / 1073741824.0,
                    *rest + (double)n * mamba_per / 1073741824.0, field);
    *max_mamba = n;
    return KVPLAN_OK;
}

/* _profile_available_bytes: free memory after the weights, less the part
 * of the memory before them that mem_fraction_static leaves out. */
kvplan_status kvplan__budget_available(const kvplan__available_inputs *in,
                                       kvplan_budget *b, int64_t *available,
                                       int64_t *max_mamba, kvplan_error *err)
{
    double world = in->ranks;
    if (in->context_known) {
        /* b's context terms stand */
    } else if (in->context_bytes.set) {
        b->context_overhead_bytes = (double)in->context_bytes.value;
        b->context_source = KVPLAN_SOURCE_MEASURED;
        b->context_basis = "measured: a calibration (kvplan log --calibrate)";
    } else {
        kvplan__context_overhead(in->gpu, world, in->nodes, in->rules,
                                 &b->context_overhead_bytes, &b->context_source,
                                 &b->context_basis);
    }
    /* what other processes hold (--gpu auto) is not free before loading:
     * sglang measures it so (get_available_gpu_memory, the least over its
     * ranks) */
    double pre = (in->gpu->total_mib - in->gpu->in_use_mib) * 1048576.0 -
                 b->context_overhead_bytes;
    KVPLAN__FAIL_IF(pre <= 0, err, KVPLAN_NOT_ENOUGH_MEMORY,
                    in->context_bytes.set ? "--calibration" : "--gpu-memory",
                    "a GPU of %.0f MiB does not hold even the CUDA context "
                    "and communicators (%.2f GiB%s)",
                    in->gpu->total_mib,
                    b->context_overhead_bytes / 1073741824.0,
                    in->context_bytes.set ? ", the calibration's" : "");
    double post = pre - in->rank_weight_bytes - in->rank_draft_bytes;
    if (world > 1) { /* min-reduced through a float32 tensor */
        pre = to_f32(pre);
        post = to_f32(post);
    }
    b->pre_load_gib = pre / 1073741824.0;
    b->post_load_gib = post / 1073741824.0;
    double f = in->fraction;
    b->slack_gib = b->pre_load_gib * (1 - f);
    double rest = b->post_load_gib - b->slack_gib;
    b->rest_gib = rest;
    *max_mamba = 0;
    double per_rank = in->rank_weight_bytes + in->rank_draft_bytes;
    KVPLAN__FAIL_IF(
        b->post_load_gib <= 0, err, KVPLAN_NOT_ENOUGH_MEMORY, "--tp-size",
        "Not enough memory: the weights alone (%.2f GiB per rank%s) exceed "
        "the %.2f GiB free on each GPU before loading them; sglang would "
        "fail loading them. Spread the model over more GPUs (--tp-size, "
        "--pp-size) or use a larger GPU.",
        per_rank / 1073741824.0, b->weights_estimated ? ", estimated" : "",
        b->pre_load_gib);
    if (in->mm_reserve_mib > 0) {
        /* later sglang: the multimodal cache, before the mamba state */
        b->mm_reserve_mib = in->mm_reserve_mib;
        rest -= in->mm_reserve_mib / 1024;
    }
    if (rest > 0 && in->is_mambaish && in->mamba_per_request > 0) {
        double before = rest;
        KVPLAN__TRY(reserve_mamba(in, &rest, max_mamba, err));
        b->mamba_gib = before - rest;
    }
    if (rest <= 0) {
        /* the fraction that would leave the KV cache room, after the
         * multimodal cache (a reserve the fraction does not move when it
         * alone exceeds what the weights leave) */
        double mm = b->mm_reserve_mib / 1024;
        double need = 1 - (b->post_load_gib - mm) / b->pre_load_gib;
        KVPLAN__FAIL_IF(mm > 0 && need >= 1, err, KVPLAN_NOT_ENOUGH_MEMORY,
                        "SGLANG_VLM_CACHE_SIZE_MB",
                        "the multimodal cache (SGLANG_VLM_CACHE_SIZE_MB, "
                        "%.2f GiB) takes more than the %.2f GiB the weights "
                        "leave free: lower it",
                        mm, b->post_load_gib);
        char f_text[32];
        kvplan_format_double(f, f_text, sizeof f_text);
        return kvplan__fail(
            err, KVPLAN_NOT_ENOUGH_MEMORY, "--mem-fraction-static",
            "Loaded weights leave no GPU memory for the KV cache under "
            "--mem-fraction-static=%s. Raise --mem-fraction-static above "
            "%.3f (weights %.2f GiB per rank%s, %.2f GiB free before "
            "loading them%s).",
            f_text, ceil(need * 1000) / 1000, per_rank / 1073741824.0,
            b->weights_estimated ? ", estimated" : "", b->pre_load_gib,
            mm > 0 ? ", the multimodal cache's reserve included" : "");
    }
    bool ovf = false;
    *available = kvplan__trunc(rest * 1073741824.0, &ovf);
    KVPLAN__FAIL_IF(ovf, err, KVPLAN_OVERFLOW, NULL,
                    "the available bytes exceed 64 bits");
    return KVPLAN_OK;
}
