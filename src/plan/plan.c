/*
 * plan.c: the whole plan, as an sglang server computes it at start-up, as
 * a kvplan__pipeline of named stages (sections of docs/sglang-rules.md):
 *
 *   check the options                        (options.c)
 *   requested -> resolved flags (§4.1-4.5)   (resolve.c)
 *   mem_fraction_static (§4.1)               (budget/budget.c)
 *   the first rank: the flags against the model (model/rank.c), and what
 *   sglang refuses before sizing             (check.c)
 *   the weights (measured or estimated)      (budget/weights.c)
 *   available bytes per rank (§3.1)          (budget/budget.c)
 *   each stage: rank, configurator, profiling path (src/core/)
 *   --max-total-tokens and the PP minimum: constraint path (§3.2)
 *   max_running_requests (§3.3), finalize, what the pools really allocate
 *   (§5) and the req_to_token pool (§3.4)    (allocation.c)
 *   what could not start, and the warnings   (check.c)
 *   release: the plan keeps no pointer into the model or the options
 *
 * --available-bytes skips the budget and starts from the number sglang's
 * log gives.
 */
#include "plan/plan.h"

#include <stdio.h>
#include <string.h>

/* The header and the stages used; the rest of the 64 stages is left as it
 * was (a plan is large, and zeroing it all was most of a plan's cost). */
void kvplan__plan_reset(kvplan_plan *out, size_t stages)
{
    /* the header; the warnings and weight tensors are written up to their
     * counts, so their arrays are left as they were */
    memset(out, 0, offsetof(kvplan_plan, warnings));
    memset(&out->budget, 0, offsetof(kvplan_budget, weight_tensors));
    out->binding_stage = 0;
    memset(out->stages, 0, stages * sizeof out->stages[0]);
    out->struct_size = (uint32_t)sizeof *out;
    out->num_stages = stages;
}

/* §4.1: the fraction, given or by sglang's rule. The rule's terms are
 * computed either way: the reserve check reads its graph term. */
kvplan_status kvplan__pipeline_fraction(kvplan__pipeline *p, kvplan_plan *out,
                                        kvplan_error *err)
{
    const kvplan_plan_options *o = p->o;
    const kvplan_server_args *s = &out->resolved;
    kvplan_budget *b = &out->budget;
    b->gpu_mem_mib = p->gpu->total_mib;
    const char *a2a = o->moe_a2a_backend;
    /* the rule runs before the hooks: the requested values */
    kvplan__fraction_inputs fi = {
        .gpu_mib = p->gpu->total_mib,
        .is_hip = p->gpu->is_hip,
        .tp_size = s->tp_size,
        .pp_size = s->pp_size,
        .dp_size = s->dp_size,
        .attn_cp_size = s->attn_cp_size,
        .enable_dp_attention = s->enable_dp_attention,
        .disaggregation_mode = s->disaggregation_mode,
        .max_running_requests = o->server.max_running_requests,
        .speculative_num_draft_tokens = o->server.speculative_num_draft_tokens,
        .max_total_tokens = o->max_total_tokens,
        .context_length = s->context_length,
        .chunked_prefill_size = out->chunked_prefill_size,
        .max_prefill_tokens = out->max_prefill_tokens,
        .cuda_graph_max_bs = out->cuda_graph_max_bs,
        .disable_cuda_graph = o->disable_cuda_graph,
        .model_is_llama2 =
            o->model_path != NULL && strstr(o->model_path, "llama-2"),
        .is_mla = p->m->info.is_mla,
        .is_deepseek_v4 = p->m->info.is_deepseek_v4,
        .deepep = a2a != NULL && strcmp(a2a, "deepep") == 0,
        .moe_a2a = a2a != NULL && strcmp(a2a, "none") != 0,
        .aiter = strcmp(out->attention_backend, "aiter") == 0,
        .context_len = s->context_length.set ? s->context_length.value
                                             : p->m->info.context_len,
        .vision = p->m->vision,
        .rules = out->rules,
        .dcp_size = o->dcp_size,
        .speculative_algorithm = s->speculative_algorithm,
    };
    kvplan__budget_fraction(&fi, b);
    if (kvplan__fraction_given(o, out->rules, b))
        return KVPLAN_OK;
    b->mem_fraction_auto = true;
    /* a reserve larger than the GPU: the rule's own answer is no fraction
     * at all; name what made the reserve */
    double act = b->activation_mib, graph = b->graph_mib;
    double ranks = b->fraction_tiers
                       ? b->reserve_ranks * b->tier_per_rank_gib * 1024
                       : b->reserve_ranks / 8 * 1024;
    /* the largest term, where it is large */
    double most = fmax(graph, fmax(act, ranks));
    const char *flag = most <= 4096    ? "--gpu-memory"
                       : most == ranks ? "--tp-size"
                       : most == graph ? "--cuda-graph-max-bs"
                                       : "--chunked-prefill-size";
    KVPLAN__FAIL_IF(
        !(b->mem_fraction_static > 0), err, KVPLAN_NOT_ENOUGH_MEMORY, flag,
        "sglang's rule leaves no mem_fraction_static (%.4g): its reserve of "
        "%.0f MiB (activations %.0f, cuda graphs %.0f, %.0f ranks) is more "
        "than the GPU's %.0f MiB; lower %s, or give --mem-fraction-static",
        b->mem_fraction_static, b->reserved_mib, act, graph, b->reserve_ranks,
        b->gpu_mem_mib, flag);
    return KVPLAN_OK;
}

/* Every stage's rank: the flags against the model (stage 0's is built
 * first, by the flag check). */
static kvplan_status ranks(kvplan__pipeline *p, kvplan_plan *out,
                           kvplan_error *err)
{
    for (size_t i = 1; i < out->num_stages; i++)
        KVPLAN__TRY(kvplan__model_rank(p->m, &out->resolved, (int64_t)i,
                                       &out->stages[i].rank, NULL, err));
    return KVPLAN_OK;
}

/* sglang's MXFP4 MoE (mxfp4.py, Mxfp4MoEMethod.create_weights, at
 * bafa16ec): each rank's expert intermediate padded, on SM100 by
 * FlashInfer's MXFP4 kernel (gpt-oss's default runner there:
 * "enabling FlashInfer MXFP4 MOE kernel") to 256 and the hidden size
 * too, elsewhere on CUDA by triton_kernels' to the MXFP4 block, 32; on
 * ROCm the checkpoint's shapes. */
static void mxfp4_padding(const kvplan_gpu *gpu, kvplan__weights_request *rq)
{
    bool sm100 = kvplan__gpu_major(gpu) == 10;
    rq->mx_inter = gpu->is_hip ? 1 : sm100 ? 256 : 32;
    rq->mx_hidden = !gpu->is_hip && sm100 ? 256 : 1;
}

/* One rank's weights on stage `sp` (tensors recorded into `b` when not
 * NULL). */
static void estimate_stage(const kvplan__pipeline *p, const kvplan_plan *out,
                           const kvplan_model *m, const kvplan_stage_plan *sp,
                           kvplan_budget *b, kvplan__weights_estimate_out *e)
{
    const kvplan_server_args *s = &out->resolved;
    int64_t attn_dp = kvplan__attn_dp(s);
    int64_t first = sp->rank.runner.start_layer;
    int64_t end =
        kvplan__min(sp->rank.runner.end_layer, m->info.num_hidden_layers);
    kvplan__weights_request rq = {
        .shape = &m->weights,
        .dtype_bytes = kvplan_dtype_size(p->model_dtype),
        .quantization = p->o->quantization,
        .tp = s->tp_size,
        .attn_tp = kvplan__attn_tp(s),
        .dp_attention = s->enable_dp_attention && attn_dp > 1,
        .start_layer = (double)first,
        .end_layer = (double)end,
        .first_stage = sp->pp_rank == 0,
        .last_stage = sp->pp_rank == s->pp_size - 1,
    };
    mxfp4_padding(p->gpu, &rq);
    memset(e, 0, sizeof *e);
    if (b != NULL)
        e->tensors = b->weight_tensors;
    kvplan__weights_estimate_kept(m, &rq, e); /* cache.c */
}

/* The weights of the model and of its draft: whole, and on each stage's
 * ranks. Measured (or given) weights keep the estimate's split: the share
 * each rank holds, replicated tensors included. */
static kvplan_status weights(kvplan__pipeline *p, kvplan_plan *out,
                             kvplan_error *err)
{
    const kvplan_plan_options *o = p->o;
    const kvplan_model *m = p->m;
    kvplan_budget *b = &out->budget;
    kvplan__weights_estimate_out e;
    size_t heaviest = 0;
    double most = -1, model = 0, exact = 0;
    for (size_t i = 0; out->num_stages > 1 && i < out->num_stages; i++) {
        estimate_stage(p, out, m, &out->stages[i], NULL, &e);
        if (e.rank_bytes > most) {
            most = e.rank_bytes;
            heaviest = i;
        }
    }
    /* the heaviest stage (the only one without PP), tensors recorded */
    estimate_stage(p, out, m, &out->stages[heaviest], b, &e);
    KVPLAN__FAIL_IF(e.beyond && !o->weight_bytes.set &&
                        !o->rank_weight_bytes.set,
                    err, KVPLAN_INVALID_CONFIG, "/hidden_size",
                    "config.json's sizes (hidden_size, intermediate_size, "
                    "the expert counts, vocab_size) make a weight estimate "
                    "beyond 10^30 bytes: no model is that large; check "
                    "them, or pass --weight-bytes");
    most = e.rank_bytes;
    exact = e.rank_exact_bytes;
    model = e.model_bytes;

    b->num_weight_tensors = e.num_tensors;
    b->load_overhead_bytes = e.load_overhead_bytes;
    double ranks =
        (double)out->resolved.tp_size * (double)out->resolved.pp_size;
    b->weights_estimated = !o->weight_bytes.set;
    b->weights_source =
        o->weight_bytes.set ? KVPLAN_SOURCE_GIVEN : KVPLAN_SOURCE_ESTIMATED;
    double share = model > 0 ? exact / model : 1 / ranks;
    if (o->weight_bytes.set) {
        p->weights = (double)o->weight_bytes.value;
        b->num_weight_tensors = 0;
        b->load_overhead_bytes = e.load_overhead_bytes;
    } else {
        p->weights = model;
    }
    /* every stage's ranks: its own share */
    for (size_t i = 0; i < out->num_stages; i++) {
        kvplan_stage_plan *sp = &out->stages[i];
        double mine = most, mine_exact = exact;
        if (out->num_stages > 1) {
            estimate_stage(p, out, m, sp, NULL, &e);
            mine = e.rank_bytes;
            mine_exact = e.rank_exact_bytes;
        }
        double bytes = o->weight_bytes.set
                           ? (double)o->weight_bytes.value *
                                 (model > 0 ? mine_exact / model : 1 / ranks)
                           : mine;
        sp->weight_bytes =
            kvplan__trunc(bytes + b->load_overhead_bytes, &p->ovf);
    }
    p->rank_weights = (o->weight_bytes.set ? p->weights * share : most) +
                      b->load_overhead_bytes;
    b->estimated_rank_weight_bytes = most + b->load_overhead_bytes;
    if (o->rank_weight_bytes.set) {
        /* a calibration: one rank's weights as loaded, on every stage */
        p->rank_weights = (double)o->rank_weight_bytes.value;
        p->weights = p->rank_weights * ranks;
        b->weights_estimated = false;
        b->weights_source = KVPLAN_SOURCE_MEASURED;
        b->num_weight_tensors = 0;
        b->load_overhead_bytes = 0;
        for (size_t i = 0; i < out->num_stages; i++)
            out->stages[i].weight_bytes = o->rank_weight_bytes.value;
    }
    p->draft = 0;
    p->rank_draft = 0;
    const kvplan_model *d = o->server.speculative_draft_model;
    if (o->draft_weight_bytes.set) {
        p->draft = (double)o->draft_weight_bytes.value;
        p->rank_draft = p->draft / ranks;
    } else if (d != NULL) {
        b->draft_weights_estimated = true;
        kvplan__weights_request rq = {
            .shape = &d->weights,
            .dtype_bytes = kvplan_dtype_size(p->model_dtype),
            .tp = out->resolved.tp_size,
            .attn_tp = out->resolved.tp_size,
            .start_layer = 0,
            .end_layer = d->weights.layers,
            .first_stage = true,
            .last_stage = true,
        };
        mxfp4_padding(p->gpu, &rq);
        kvplan__weights_estimate_out de = {0};
        kvplan__weights_estimate(&rq, &de);
        p->draft = de.model_bytes;
        p->rank_draft = de.rank_bytes;
    } else if (o->server.speculative_algorithm != KVPLAN_SPEC_NONE &&
               m->self_draft && m->info.num_nextn_predict_layers.set &&
               m->info.num_hidden_layers > 0) {
        /* MTP layers from the model itself: their share of the weights */
        double f = (double)m->info.num_nextn_predict_layers.value /
                   (double)m->info.num_hidden_layers;
        p->draft = p->weights * f;
        p->rank_draft = (p->rank_weights - b->load_overhead_bytes) * f;
        b->draft_weights_estimated = true;
    }
    for (size_t i = 0; i < out->num_stages; i++)
        out->stages[i].draft_weight_bytes =
            kvplan__trunc(p->rank_draft, &p->ovf);
    if (out->rules & KVPLAN_RULE_DRAFT_UNPRICED)
        p->rank_draft = 0; /* older sglang loads it after profiling */
    b->rank_weight_bytes = p->rank_weights;
    b->rank_draft_bytes = p->rank_draft;
    return KVPLAN_OK;
}

/* §3.1: the bytes each rank hands the configurator. */
static kvplan_status available(kvplan__pipeline *p, kvplan_plan *out,
                               kvplan_error *err)
{
    const kvplan_server_args *s = &out->resolved;
    const kvplan_model *m = p->m;
    p->attn_dp = kvplan__attn_dp(s);
    p->mamba_ratio = 1;
    if (m->info.is_mambaish) {
        /* the ssm state's dtype: the flag (it sets the variable), the
         * variable, then the config's */
        kvplan__mamba_shape shape = m->mamba;
        const char *ssm = p->o->mamba_ssm_dtype != NULL
                              ? p->o->mamba_ssm_dtype
                              : p->o->SGLANG_MAMBA_SSM_DTYPE;
        if (ssm != NULL)
            shape.ssm_size = strcmp(ssm, "float32") == 0 ? 4 : 2;
        p->mamba_per = kvplan__mamba_per_request(&shape, s->tp_size);
        p->mamba_ratio = kvplan__mamba_ratio(
            s->disable_radix_cache, s->disable_overlap_schedule, s->page_size);
    }
    if (p->o->available_bytes.set) {
        out->budget.given = true;
        p->available = p->o->available_bytes.value;
        return KVPLAN_OK;
    }
    kvplan__available_inputs ai = {
        .gpu = p->gpu,
        .ranks = (double)s->tp_size * (double)s->pp_size,
        .nodes = s->nnodes > 1 ? s->nnodes : 1,
        .rank_weight_bytes = out->budget.rank_weight_bytes,
        .rank_draft_bytes = out->budget.rank_draft_bytes,
        .fraction = out->budget.mem_fraction_static,
        .is_mambaish = m->info.is_mambaish,
        .mamba_per_request = p->mamba_per,
        .mamba_ratio = p->mamba_ratio,
        .attn_dp = p->attn_dp,
        .disable_radix_cache = s->disable_radix_cache,
        .speculative = s->speculative_algorithm != KVPLAN_SPEC_NONE,
        .speculative_num_draft_tokens = s->speculative_num_draft_tokens,
        .max_running_requests = s->max_running_requests,
        .max_mamba_cache_size = p->o->max_mamba_cache_size,
        .mamba_full_memory_ratio = p->o->mamba_full_memory_ratio.set
                                       ? p->o->mamba_full_memory_ratio.value
                                       : 0.9,
        .context_bytes = p->o->context_bytes,
        .context_known = p->context_known,
        .rules = out->rules,
        .mm_reserve_mib =
            (out->rules & KVPLAN_RULE_MM_RESERVE) && m->vision.present
                ? (double)(p->o->SGLANG_VLM_CACHE_SIZE_MB.set
                               ? p->o->SGLANG_VLM_CACHE_SIZE_MB.value
                               : 100)
                : 0,
    };
    /* a preset's, or the caller's kvplan_gpu (probed or given: the caller
     * knows which) */
    out->budget.gpu_source = KVPLAN_SOURCE_PRESET;
    return kvplan__budget_available(&ai, &out->budget, &p->available,
                                    &p->max_mamba, err);
}

/* Each stage: its rank (stage 0's is built by the flag check), its
 * configurator and the profiling path; the binding stage has the fewest
 * tokens. */
/* The core names the rank's fields; a plan names its flags. A core error
 * without a field (or with the core's "the sizes given") gets the flag
 * that sets what overflowed or ran out. */
static kvplan_status name_flag(kvplan_status st, kvplan_error *err,
                               const char *flag)
{
    if (st != KVPLAN_OK && err != NULL && flag != NULL &&
        (err->field[0] == '\0' || strcmp(err->field, "the sizes given") == 0))
        snprintf(err->field, sizeof err->field, "%s", flag);
    return st;
}

/* The flag behind a budget's token count: the bytes given, else the
 * fraction. */
static const char *budget_flag(const kvplan__pipeline *p)
{
    return p->o->available_bytes.set ? "--available-bytes"
                                     : "--mem-fraction-static";
}

/* The input a pool or weight overflow past 64 bits comes from: the
 * weights given, the SWA eviction interval or the requests (the pools'
 * multipliers), else the budget's flag (review R22: it blamed
 * --mem-fraction-static, which was not given). */
static const char *overflow_flag(const kvplan__pipeline *p)
{
    const kvplan_plan_options *o = p->o;
    if (o->weight_bytes.set)
        return "--weight-bytes";
    if (o->server.SGLANG_SWA_EVICTION_INTERVAL > 128)
        return "SGLANG_SWA_EVICTION_INTERVAL";
    if (o->server.max_running_requests.set)
        return "--max-running-requests";
    return budget_flag(p);
}

static kvplan_status profile(kvplan__pipeline *p, kvplan_plan *out, bool init,
                             kvplan_error *err)
{
    int64_t least = INT64_MAX;
    for (size_t i = 0; i < out->num_stages; i++) {
        kvplan_stage_plan *sp = &out->stages[i];
        const kvplan_rank *r = &sp->rank;
        /* the SWA chunk cap is made of the requests; a stage without a KV
         * layer of the PP split */
        const char *init_flag =
            r->runner.is_hybrid_swa && r->server_args.disable_radix_cache
                ? "--max-running-requests"
            : out->resolved.SGLANG_PP_LAYER_PARTITION != NULL
                ? "SGLANG_PP_LAYER_PARTITION"
                : "--pp-size";
        if (init)
            KVPLAN__TRY(name_flag(
                kvplan_configurator_init(&sp->configurator, &sp->rank, err),
                err, init_flag));
        /* into pools, which constrain() keeps unless it lowers them; the
         * profiled copy is read by nothing after it in this call (a copy
         * that reads what was just stored waits for the stores) */
        kvplan_status st = kvplan_calculate_pool_sizes(
            &sp->configurator, p->available, out->page_size, &sp->pools, err);
        /* a stage that holds no KV (INVALID_CONFIG) is the split's doing */
        KVPLAN__TRY(name_flag(
            st, err, st == KVPLAN_INVALID_CONFIG ? init_flag : budget_flag(p)));
        sp->profiled = sp->pools;
        sp->available_bytes = p->available;
        sp->max_mamba_cache_size = p->max_mamba;
        if (sp->pools.max_total_num_tokens < least) {
            least = sp->pools.max_total_num_tokens;
            out->binding_stage = i;
        }
    }
    return KVPLAN_OK;
}

/* §3.2: --max-total-tokens lowers, then every stage takes the minimum. */
static kvplan_status constrain(kvplan__pipeline *p, kvplan_plan *out,
                               kvplan_error *err)
{
    /* each stage's pools are its profiled ones (profile()) */
    int64_t t = out->stages[out->binding_stage].pools.max_total_num_tokens;
    if (p->o->max_total_tokens.set && p->o->max_total_tokens.value < t)
        t = p->o->max_total_tokens.value;
    for (size_t i = 0; i < out->num_stages; i++) {
        kvplan_stage_plan *sp = &out->stages[i];
        if (t != sp->pools.max_total_num_tokens)
            KVPLAN__TRY(kvplan_calculate_pool_sizes_from_max_tokens(
                &sp->configurator, t, out->page_size, &sp->pools, err));
    }
    return KVPLAN_OK;
}

/* §3.3: max_running_requests from the final tokens, then each stage's
 * finalize, its allocation and its req_to_token pool. */
static kvplan_status requests(kvplan__pipeline *p, kvplan_plan *out,
                              kvplan_error *err)
{
    const kvplan_server_args *s = &out->resolved;
    int64_t t = out->stages[0].pools.max_total_num_tokens;
    int64_t n =
        s->max_running_requests.set && (out->rules & KVPLAN_RULE_MRR_AS_GIVEN)
            ? s->max_running_requests.value / p->attn_dp
        : s->max_running_requests.set
            ? kvplan__min(s->max_running_requests.value / p->attn_dp, t / 2)
            : kvplan__default_max_running_requests(t, out->context_len,
                                                   &p->ovf);
    if (p->m->info.is_mambaish && p->max_mamba > 0)
        n = kvplan__min(n, p->max_mamba / p->mamba_ratio);
    KVPLAN__FAIL_IF(n <= 0, err, KVPLAN_NOT_ENOUGH_MEMORY,
                    p->o->max_total_tokens.set ? "--max-total-tokens"
                                               : budget_flag(p),
                    "the KV cache holds %lld tokens, which leaves no room "
                    "for a running request",
                    (long long)t);
    out->max_running_requests = n;
    out->max_total_num_tokens = t;
    for (size_t i = 0; i < out->num_stages; i++) {
        kvplan_stage_plan *sp = &out->stages[i];
        sp->pools.max_running_requests = (kvplan_opt_int){n, true};
        KVPLAN__TRY(kvplan_finalize_with_max_running_requests(&sp->configurator,
                                                              &sp->pools, err));
        out->max_total_num_tokens = kvplan__min(out->max_total_num_tokens,
                                                sp->pools.max_total_num_tokens);
        kvplan__price_allocation(p->m, out, sp, &p->ovf);
        sp->allocation.req_to_token_bytes = kvplan__req_to_token_bytes(
            &sp->rank, n, out->context_len, &p->ovf_requests);
        sp->allocation.mamba_state_bytes =
            kvplan__trunc((double)p->max_mamba * p->mamba_per, &p->ovf);
    }
    return KVPLAN_OK;
}

static void release_ids(kvplan_ids *ids)
{
    ids->ids = NULL; /* the count stays */
}

/* The plan owns its data: no pointer into the model, its draft or the
 * caller's strings survives the call. */
static void release(kvplan_plan *out)
{
    kvplan_server_args *s = &out->resolved;
    s->speculative_draft_model = NULL;
    s->SGLANG_PP_LAYER_PARTITION = NULL;
    s->SGLANG_DSV4_COMPRESS_STATE_DTYPE = NULL;
    for (size_t i = 0; i < out->num_stages; i++) {
        kvplan_rank *r = &out->stages[i].rank;
        struct kvplan_minimax_sparse *ms = &r->model.hf_config.minimax_sparse;
        release_ids(&r->runner.mambaish_full_attention_layer_ids);
        release_ids(&r->model.full_attention_layer_ids);
        release_ids(&r->model.swa_attention_layer_ids);
        release_ids(&r->model.compress_ratios);
        release_ids(&ms->dense_layer_ids);
        release_ids(&ms->sparse_layer_ids);
        release_ids(&ms->disable_value_layer_ids);
        release_ids(&r->upstream.dsa_topk_layer_ids);
        r->env.SGLANG_DSV4_COMPRESS_STATE_DTYPE = NULL;
    }
}

/* The flags: resolved against the GPU and the model, the fraction,
 * every stage's rank, the weights. */
static kvplan_status front(kvplan__pipeline *p, kvplan_plan *out,
                           kvplan_error *err)
{
    const kvplan_model *m = p->m;
    const kvplan_plan_options *o = p->o;
    KVPLAN__TRY(kvplan__resolve_args(m, o, p->gpu, o->gpu_set, out, err));
    kvplan__profile_start(out, o, p->gpu);
    KVPLAN__TRY(kvplan__pipeline_fraction(p, out, err));
    /* the flags against the model first: a contradiction is named as such,
     * not as a budget that does not fit */
    kvplan_rank *first = &out->stages[0].rank;
    KVPLAN__TRY(kvplan__model_rank(m, &out->resolved, 0, first,
                                   &out->context_len, err));
    KVPLAN__TRY(kvplan__plan_refuse(p->m, p->gpu, out, err));
    kvplan__resolve_dtypes(out, p->model_dtype, first->runner.kv_cache_dtype);
    KVPLAN__TRY(ranks(p, out, err));
    kvplan__profile_ranks(out, o);
    KVPLAN__TRY(weights(p, out, err));
    return KVPLAN_OK;
}

/* The budget and the pools: available bytes, the profiling path (each
 * stage's configurator built first when `init`), the constraints,
 * max_running_requests, the capacity, the checks. */
kvplan_status kvplan__pipeline_back(kvplan__pipeline *p, kvplan_plan *out,
                                    bool init, kvplan_error *err)
{
    const kvplan_plan_options *o = p->o;
    KVPLAN__TRY(available(p, out, err));
    KVPLAN__TRY(profile(p, out, init, err));
    KVPLAN__TRY(constrain(p, out, err));
    KVPLAN__TRY(requests(p, out, err));
    kvplan__plan_capacity(out, p->max_mamba, p->mamba_ratio, p->mamba_per,
                          &p->ovf);
    kvplan__plan_fleet(out, &p->ovf);
    const kvplan_server_args *rs = &out->resolved;
    KVPLAN__FAIL_IF(p->ovf_requests, err, KVPLAN_OVERFLOW,
                    rs->disaggregation_decode_extra_slots.set
                        ? "--disaggregation-decode-extra-slots"
                    : o->server.max_running_requests.set
                        ? "--max-running-requests"
                        : "--context-length",
                    "the req_to_token pool (requests x context_len x 4 "
                    "bytes) exceeds 64 bits");
    KVPLAN__FAIL_IF(p->ovf, err, KVPLAN_OVERFLOW, overflow_flag(p),
                    "a pool size or a weight share exceeds 64 bits");
    KVPLAN__TRY(kvplan__plan_check(p->m, p->o, p->model_dtype, out, err));
    release(out);
    return kvplan__ok(err);
}

kvplan_status kvplan_plan_compute(const kvplan_model *m,
                                  const kvplan_plan_options *o,
                                  kvplan_plan *out, kvplan_error *err)
{
    KVPLAN__FAIL_IF(m == NULL || o == NULL || out == NULL, err,
                    KVPLAN_INVALID_ARGUMENT, NULL,
                    "kvplan_plan_compute needs a model, options and a plan "
                    "to fill; got NULL");
    kvplan__pipeline kept = {.ovf = false};
    kvplan__front_key key;
    bool keyed = o->struct_size == sizeof *o && kvplan__front_key_of(o, &key);
    int restored = keyed ? kvplan__front_restore(m, &key, o, &kept, out) : 0;
    if (restored > 0) {
        /* a front kept for options that differ at most in the fraction's
         * value (cache.c): they were valid, so only it is checked */
        KVPLAN__TRY(kvplan__check_budget_options(o, err));
        kvplan__pipeline p = kvplan__pipeline_start(m, o);
        p.ovf = kept.ovf;
        /* the rule's terms are the key's: only a given value changes */
        kvplan__fraction_given(o, out->rules, &out->budget);
        KVPLAN__TRY(kvplan__pipeline_back(&p, out, restored == 1, err));
        if (restored == 1)
            kvplan__front_configured(m, &key, out);
        return KVPLAN_OK;
    }
    KVPLAN__TRY(kvplan_plan_options_validate(o, err));
    kvplan__pipeline p = kvplan__pipeline_start(m, o);
    kvplan__plan_reset(out, (size_t)o->server.pp_size);
    for (size_t i = 0; i < out->num_stages; i++)
        out->stages[i].pp_rank = (int64_t)i;

    KVPLAN__TRY(front(&p, out, err));
    if (keyed)
        kvplan__front_keep(m, &key, &p, out);
    KVPLAN__TRY(kvplan__pipeline_back(&p, out, true, err));
    if (keyed)
        kvplan__front_configured(m, &key, out);
    return KVPLAN_OK;
}
