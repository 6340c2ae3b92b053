/*
 * resolve.c: requested -> resolved: what sglang's server_args resolve
 * before the budget (sections of docs/sglang-rules.md): the memory tiers'
 * prefill chunk and cuda-graph batch (§4.2), the model's and the
 * speculative hooks (§4.4, §4.5, §1.12), PD decode's radix cache (§4.6),
 * the attention backend and the page size it implies (§4.3), the dtypes;
 * and the pipeline's start: the GPU and the model dtype.
 * The request is never written: the answer goes to kvplan_plan.resolved.
 */
#include "plan/plan.h"

#include <string.h>

/* §4.3: the attention backend and the page size it implies. */
static void choose_backend(const kvplan_model *m, const kvplan_plan_options *o,
                           const kvplan_gpu *gpu, int64_t *page, char *backend,
                           size_t size)
{
    const char *b = o->attention_backend;
    int major = kvplan__gpu_major(gpu);
    /* sglang's is_sm100_supported() and is_hopper_with_cuda_12_3() are the
     * majors 10 and 9 exactly: consumer Blackwell (sm120 RTX 5090, sm121
     * GB10) takes neither, but the fallback */
    bool sm100 = major == 10, hopper = major == 9;
    bool user_page = o->server.page_size > 0;
    int64_t p = user_page ? o->server.page_size : 1;
    if (m->info.is_deepseek_v4) {
        b = b ? b : "dsv4";
        if (!user_page)
            p = gpu->is_hip ? 128 : 256;
    } else if (m->info.is_deepseek_dsa) {
        b = b ? b : "dsa";
        if (!user_page)
            p = 64;
    } else if (b == NULL) {
        bool topk_one = !o->server.speculative_eagle_topk.set ||
                        o->server.speculative_eagle_topk.value <= 1;
        /* HIP: aiter, but for MLA only where its kernels have the heads
         * per rank (16 or 128), else triton */
        int64_t rank_heads = kvplan__max(
            1, m->info.num_key_value_heads / kvplan__max(1, o->server.tp_size));
        if (gpu->is_hip && m->info.is_mla)
            b = rank_heads == 16 || rank_heads == 128 ? "aiter" : "triton";
        else if (gpu->is_hip)
            b = "aiter";
        else if (m->info.is_mla)
            b = sm100    ? (m->self_draft ? "trtllm_mla" : "flashinfer")
                : hopper ? "fa3"
                         : "flashinfer";
        else if (sm100)
            b = "trtllm_mha";
        else if (hopper && topk_one)
            b = "fa3";
        else
            b = (m->traits & KVPLAN__ARCH_ATTENTION_SINKS) ? "triton"
                                                           : "flashinfer";
        if (m->traits & KVPLAN__ARCH_FA3_FA4) {
            b = sm100 ? "fa4" : "fa3";
            if (!user_page)
                p = 128;
        }
    }
    /* the backends' page constraints */
    if (strcmp(b, "flashmla") == 0)
        p = 64;
    else if (strcmp(b, "cutlass_mla") == 0)
        p = 128;
    else if ((strcmp(b, "trtllm_mla") == 0 ||
              strcmp(b, "tokenspeed_mla") == 0 ||
              strcmp(b, "cutedsl_mla") == 0) &&
             p != 32 && p != 64)
        p = 64;
    else if (strcmp(b, "trtllm_mha") == 0 && p != 16 && p != 32 && p != 64)
        p = 64;
    else if (strcmp(b, "fa4") == 0 && sm100 && !m->info.is_mla)
        p = 128;
    *page = p;
    size_t n = strlen(b); /* a copy, cut to the field (no printf here) */
    n = n < size ? n : size - 1;
    memcpy(backend, b, n);
    backend[n] = '\0';
}

/* sglang's auto speculative parameters when --speculative-num-steps is
 * not given (steps, topk, draft tokens). */
static void auto_spec_params(const kvplan_model *m, kvplan_server_args *s)
{
    if (s->speculative_num_steps.set)
        return;
    bool mtp_like = m->self_draft || m->info.is_mla ||
                    (m->traits & KVPLAN__ARCH_MTP_LIKE) || m->info.is_mambaish;
    int64_t steps = mtp_like ? 3 : 5, topk = mtp_like ? 1 : 4,
            tokens = mtp_like ? 4 : 8;
    s->speculative_num_steps = (kvplan_opt_int){steps, true};
    if (!s->speculative_eagle_topk.set)
        s->speculative_eagle_topk = (kvplan_opt_int){topk, true};
    if (!s->speculative_num_draft_tokens.set)
        s->speculative_num_draft_tokens = (kvplan_opt_int){tokens, true};
}

kvplan_status kvplan__resolve_args(const kvplan_model *m,
                                   const kvplan_plan_options *o,
                                   const kvplan_gpu *gpu, bool gpu_known,
                                   kvplan_plan *out, kvplan_error *err)
{
    kvplan_server_args *s = &out->resolved;
    *s = o->server;
    s->gpu_compute_capability = gpu->compute_capability;

    /* §4.2: the memory tiers, before the model's and spec's hooks */
    int64_t tier_chunk, tier_bs;
    kvplan__memory_tiers(gpu->total_mib, gpu_known, s->tp_size, &tier_chunk,
                         &tier_bs);
    if (!s->chunked_prefill_size.set)
        s->chunked_prefill_size = (kvplan_opt_int){tier_chunk, true};
    out->chunked_prefill_size = s->chunked_prefill_size.value;
    out->cuda_graph_max_bs =
        o->cuda_graph_max_bs.set ? o->cuda_graph_max_bs.value : tier_bs;
    out->max_prefill_tokens =
        o->max_prefill_tokens.set ? o->max_prefill_tokens.value : 16384;

    /* §4.4-4.5: the model's hook (DSV4: 256 requests), then the
     * speculative hook (48 requests, EAGLE's automatic parameters) */
    bool ovf = false;
    if (m->info.is_deepseek_v4 && !s->max_running_requests.set)
        s->max_running_requests = (kvplan_opt_int){256, true};
    if (s->speculative_algorithm != KVPLAN_SPEC_NONE) {
        if (!s->max_running_requests.set)
            s->max_running_requests = (kvplan_opt_int){48, true};
        if (kvplan__is_eagle_family(s->speculative_algorithm))
            auto_spec_params(m, s);
        if (s->speculative_eagle_topk.set &&
            s->speculative_eagle_topk.value == 1 &&
            s->speculative_num_steps.set)
            s->speculative_num_draft_tokens = (kvplan_opt_int){
                kvplan__add(s->speculative_num_steps.value, 1, &ovf), true};
    }
    KVPLAN__FAIL_IF(ovf, err, KVPLAN_OVERFLOW, "--speculative-num-steps",
                    "--speculative-num-steps is too large");
    if (s->disaggregation_mode == KVPLAN_DISAGG_DECODE)
        s->disable_radix_cache = true;
    choose_backend(m, o, gpu, &s->page_size, out->attention_backend,
                   sizeof out->attention_backend);
    out->page_size = s->page_size;
    return KVPLAN_OK;
}

/* The flags of the dtypes the ranks run, where the flags can name them:
 * --kv-cache-dtype has no word for float16 or float32 (then it stays
 * auto). Rerunning a rank with them gives the same dtypes. */
void kvplan__resolve_dtypes(kvplan_plan *out, kvplan_dtype model_dtype,
                            kvplan_dtype kv_dtype)
{
    kvplan_server_args *s = &out->resolved;
    s->dtype = kvplan__dtype_flag(model_dtype);
    /* float16, float32: no word; auto runs them */
    kvplan_kv_cache_dtype_flag kv = kvplan__kv_dtype_flag(kv_dtype);
    if (kv != KVPLAN_KV_AUTO)
        s->kv_cache_dtype = kv;
    out->dtype = model_dtype;
    out->kv_cache_dtype = kv_dtype;
}

/* The kvplan__pipeline's start for `o`: the GPU and the model dtype. */
#if defined(__LP64__) /* the size with 64-bit pointers */
_Static_assert(sizeof(kvplan__pipeline) == 112,
               "kvplan__pipeline changed: set a new member in "
               "kvplan__pipeline_start");
#endif
kvplan__pipeline kvplan__pipeline_start(const kvplan_model *m,
                                        const kvplan_plan_options *o)
{
    /* member by member: GCC zeroes a compound literal this size with
     * `rep stosq`, whose start-up is most of it, on every sweep row */
    kvplan__pipeline p;
    p.m = m;
    p.o = o;
    p.gpu = o->gpu_set ? &o->gpu : kvplan__gpu_default();
    p.model_dtype = kvplan__dtype_of_flag(o->server.dtype, m->info.dtype);
    p.weights = p.draft = p.rank_weights = p.rank_draft = 0;
    p.available = p.max_mamba = 0;
    p.mamba_per = 0;
    p.mamba_ratio = p.attn_dp = 0;
    p.context_known = p.ovf = p.ovf_requests = false;
    return p;
}
