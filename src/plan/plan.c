/*
 * plan.c: the whole plan, as an sglang server computes it at start-up
 * (sections of docs/sglang-rules.md):
 *
 *   flags -> GPU-dependent defaults (§4.1-4.5, resolve.c)
 *         -> available bytes per rank (§3.1, budget/budget.c)
 *         -> configurator profiling path (src/core/)
 *         -> --max-total-tokens and the PP minimum: constraint path (§3.2)
 *         -> max_running_requests (§3.3) -> finalize
 *         -> what the pools really allocate (§5) and the req_to_token pool
 *            (§3.4) (allocation.c)
 *
 * --available-bytes skips the budget and starts from the number sglang's
 * log gives.
 */
#include "plan/plan.h"

#include <stdio.h>
#include <string.h>

/* The weights of the model and of its draft, whole (not per rank). */
static void weights_of(const kvplan_model *m, const kvplan_plan_options *o,
                       const kvplan_server_args *s, kvplan_dtype model_dtype,
                       double *weights, double *draft, kvplan_budget *b)
{
    *weights = o->weight_bytes.set
                   ? (double)o->weight_bytes.value
                   : kvplan__weights_estimate(&m->weights, model_dtype);
    b->weights_estimated = !o->weight_bytes.set;
    *draft = 0;
    if (o->draft_weight_bytes.set) {
        *draft = (double)o->draft_weight_bytes.value;
    } else if (s->speculative_draft_model != NULL) {
        b->draft_weights_estimated = true;
        *draft = kvplan__weights_estimate(&s->speculative_draft_model->weights,
                                          model_dtype);
    } else if (s->speculative_algorithm != KVPLAN_SPEC_NONE && m->self_draft &&
               m->info.num_nextn_predict_layers.set &&
               m->info.num_hidden_layers > 0) {
        /* MTP layers from the model itself: their share of the weights */
        *draft = *weights * (double)m->info.num_nextn_predict_layers.value /
                 (double)m->info.num_hidden_layers;
        b->draft_weights_estimated = true;
    }
}

kvplan_status kvplan_plan_compute(const kvplan_model *m,
                                  const kvplan_plan_options *o,
                                  kvplan_plan *out, kvplan_error *err)
{
    if (m == NULL || o == NULL || out == NULL)
        return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, NULL,
                            "kvplan_plan_compute needs a model, options and "
                            "a plan to fill; got NULL");
    if (o->server.pp_size > KVPLAN_MAX_PP_STAGES)
        return kvplan__fail(err, KVPLAN_UNSUPPORTED, "--pp-size",
                            "--pp-size above %d is not supported",
                            KVPLAN_MAX_PP_STAGES);
    if (!o->gpu_set && !o->available_bytes.set)
        return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, "--gpu",
                            "a GPU (--gpu, --gpu-memory) or --available-bytes "
                            "is needed to size the budget");
    memset(out, 0, sizeof *out);
    bool ovf = false;
    kvplan_server_args s = o->server;
    kvplan_budget *b = &out->budget;
    kvplan_gpu gpu = o->gpu_set ? o->gpu : *kvplan__gpu_default();
    bool gpu_known = o->gpu_set;
    if (gpu_known && !(gpu.total_mib >= 1.0 && gpu.total_mib <= 0x1p40))
        return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, "--gpu-memory",
                            "the GPU's memory must be between 1 MiB and "
                            "1 EiB, got %g MiB",
                            gpu.total_mib);
    b->gpu_mem_mib = gpu.total_mib;
    s.gpu_compute_capability = gpu.compute_capability;
    kvplan_dtype model_dtype = kvplan__dtype_of_flag(s.dtype, m->info.dtype);

    /* §4.1-4.2: memory settings, before the model's and spec's hooks */
    int64_t tier_chunk, tier_bs;
    kvplan__memory_tiers(gpu.total_mib, gpu_known, s.tp_size, &tier_chunk,
                         &tier_bs);
    int64_t chunk =
        s.chunked_prefill_size.set ? s.chunked_prefill_size.value : tier_chunk;
    s.chunked_prefill_size = (kvplan_opt_int){chunk, true};
    int64_t max_bs =
        o->cuda_graph_max_bs.set ? o->cuda_graph_max_bs.value : tier_bs;
    out->chunked_prefill_size = chunk;
    out->cuda_graph_max_bs = max_bs;
    bool pd_decode = s.disaggregation_mode == KVPLAN_DISAGG_DECODE;
    int64_t prefill_tokens =
        o->max_prefill_tokens.set ? o->max_prefill_tokens.value : 16384;
    if (o->mem_fraction_static.set) {
        b->mem_fraction_static = o->mem_fraction_static.value;
    } else {
        b->mem_fraction_auto = true;
        kvplan__fraction_inputs fi = {
            .gpu_mib = gpu.total_mib,
            .is_hip = gpu.is_hip,
            .tp_size = s.tp_size,
            .pp_size = s.pp_size,
            .dp_size = s.dp_size,
            .attn_cp_size = s.attn_cp_size,
            .enable_dp_attention = s.enable_dp_attention,
            .disaggregation_mode = s.disaggregation_mode,
            .max_running_requests = s.max_running_requests,
            .speculative_num_draft_tokens = s.speculative_num_draft_tokens,
            .max_total_tokens = o->max_total_tokens,
            .context_length = s.context_length,
            .chunked_prefill_size = chunk,
            .max_prefill_tokens = prefill_tokens,
            .cuda_graph_max_bs = max_bs,
            .disable_cuda_graph = o->disable_cuda_graph,
            .model_is_llama2 =
                o->model_path != NULL && strstr(o->model_path, "llama-2"),
            .is_mla = m->info.is_mla,
            .is_deepseek_v4 = m->info.is_deepseek_v4,
            .vision = m->vision,
        };
        kvplan__budget_fraction(&fi, b);
    }

    /* §4.3-4.5: the model's hooks, the backend and page, the spec hook */
    if (m->info.is_deepseek_v4 && !s.max_running_requests.set)
        s.max_running_requests = (kvplan_opt_int){256, true};
    if (s.speculative_algorithm != KVPLAN_SPEC_NONE) {
        if (!s.max_running_requests.set)
            s.max_running_requests = (kvplan_opt_int){48, true};
        if (s.speculative_algorithm == KVPLAN_SPEC_EAGLE ||
            s.speculative_algorithm == KVPLAN_SPEC_EAGLE3)
            kvplan__auto_spec_params(m, &s);
        if (s.speculative_eagle_topk.set &&
            s.speculative_eagle_topk.value == 1 && s.speculative_num_steps.set)
            s.speculative_num_draft_tokens = (kvplan_opt_int){
                kvplan__add(s.speculative_num_steps.value, 1, &ovf), true};
    }
    if (pd_decode)
        s.disable_radix_cache = true;
    kvplan__choose_backend(m, o, &gpu, &s.page_size, out->attention_backend,
                           sizeof out->attention_backend);
    out->page_size = s.page_size;
    /* the flags against the model first: a contradiction is named as such,
     * not as a budget that does not fit */
    kvplan_status st =
        kvplan_model_rank(m, &s, 0, &out->stages[0].rank, NULL, err);
    if (st != KVPLAN_OK)
        return st;

    /* the weights this rank holds, and the draft's */
    double ranks = (double)s.tp_size * (double)s.pp_size;
    double weights, draft;
    weights_of(m, o, &s, model_dtype, &weights, &draft, b);

    /* §3.1: available bytes */
    int64_t available = 0;
    int64_t max_mamba = 0;
    double mamba_per = 0;
    int64_t ratio = 1;
    int64_t attn_dp = s.enable_dp_attention ? s.dp_size : 1;
    if (m->info.is_mambaish) {
        mamba_per = kvplan__mamba_per_request(&m->mamba, s.tp_size);
        ratio = kvplan__mamba_ratio(s.disable_radix_cache,
                                    s.disable_overlap_schedule, s.page_size);
    }
    if (o->available_bytes.set) {
        b->given = true;
        available = o->available_bytes.value;
    } else {
        kvplan__available_inputs ai = {
            .gpu_mib = gpu.total_mib,
            .ranks = ranks,
            .weight_bytes = weights,
            .draft_bytes = draft,
            .fraction = b->mem_fraction_static,
            .is_mambaish = m->info.is_mambaish,
            .mamba_per_request = mamba_per,
            .mamba_ratio = ratio,
            .attn_dp = attn_dp,
            .disable_radix_cache = s.disable_radix_cache,
            .speculative = s.speculative_algorithm != KVPLAN_SPEC_NONE,
            .speculative_num_draft_tokens = s.speculative_num_draft_tokens,
            .max_running_requests = s.max_running_requests,
        };
        if ((st = kvplan__budget_available(&ai, b, &available, &max_mamba,
                                           err)) != KVPLAN_OK)
            return st;
    }

    /* each stage: rank, configurator, profiling path */
    out->num_stages = (size_t)s.pp_size;
    int64_t t = INT64_MAX;
    for (size_t i = 0; i < out->num_stages; i++) {
        kvplan_stage_plan *sp = &out->stages[i];
        sp->pp_rank = (int64_t)i;
        if ((st = kvplan_model_rank(m, &s, sp->pp_rank, &sp->rank,
                                    &out->context_len, err)) != KVPLAN_OK ||
            (st = kvplan_configurator_init(&sp->configurator, &sp->rank,
                                           err)) != KVPLAN_OK ||
            (st = kvplan_calculate_pool_sizes(&sp->configurator, available,
                                              s.page_size, &sp->profiled,
                                              err)) != KVPLAN_OK)
            return st;
        sp->available_bytes = available;
        sp->weight_bytes = kvplan__trunc(weights / ranks, &ovf);
        sp->draft_weight_bytes = kvplan__trunc(draft / ranks, &ovf);
        sp->max_mamba_cache_size = max_mamba;
        if (sp->profiled.max_total_num_tokens < t) {
            t = sp->profiled.max_total_num_tokens;
            out->binding_stage = i;
        }
    }
    /* §3.2: --max-total-tokens lowers, then the PP minimum */
    if (o->max_total_tokens.set && o->max_total_tokens.value < t)
        t = o->max_total_tokens.value;
    for (size_t i = 0; i < out->num_stages; i++) {
        kvplan_stage_plan *sp = &out->stages[i];
        sp->pools = sp->profiled;
        if (t != sp->profiled.max_total_num_tokens &&
            (st = kvplan_calculate_pool_sizes_from_max_tokens(
                 &sp->configurator, t, s.page_size, &sp->pools, err)) !=
                KVPLAN_OK)
            return st;
    }
    /* §3.3: max_running_requests from the final tokens */
    const kvplan_stage_plan *first = &out->stages[0];
    int64_t final_t = first->pools.max_total_num_tokens;
    int64_t n =
        s.max_running_requests.set
            ? kvplan__min(s.max_running_requests.value / attn_dp, final_t / 2)
            : kvplan__default_max_running_requests(final_t, out->context_len,
                                                   &ovf);
    if (m->info.is_mambaish && max_mamba > 0)
        n = kvplan__min(n, max_mamba / ratio);
    if (n <= 0)
        return kvplan__fail(err, KVPLAN_NOT_ENOUGH_MEMORY, NULL,
                            "the KV cache holds %lld tokens, which leaves no "
                            "room for a running request",
                            (long long)final_t);
    out->max_running_requests = n;
    out->max_total_num_tokens = final_t;
    for (size_t i = 0; i < out->num_stages; i++) {
        kvplan_stage_plan *sp = &out->stages[i];
        sp->pools.max_running_requests = (kvplan_opt_int){n, true};
        if ((st = kvplan_finalize_with_max_running_requests(
                 &sp->configurator, &sp->pools, err)) != KVPLAN_OK)
            return st;
        out->max_total_num_tokens = kvplan__min(out->max_total_num_tokens,
                                                sp->pools.max_total_num_tokens);
        kvplan__price_allocation(m, out, sp, &ovf);
        sp->allocation.req_to_token_bytes =
            kvplan__req_to_token_bytes(&sp->rank, n, out->context_len, &ovf);
        sp->allocation.mamba_state_bytes =
            kvplan__trunc((double)max_mamba * mamba_per, &ovf);
    }
    if (ovf)
        return kvplan__fail(err, KVPLAN_OVERFLOW, NULL,
                            "a pool size exceeds 64 bits");
    return kvplan__ok(err);
}
