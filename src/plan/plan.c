/*
 * plan.c: the whole plan, as an sglang server computes it at start-up, as
 * a pipeline of named stages (sections of docs/sglang-rules.md):
 *
 *   check the options                        (options.c)
 *   requested -> resolved flags (§4.1-4.5)   (resolve.c)
 *   mem_fraction_static (§4.1)               (budget/budget.c)
 *   the first rank: the flags against the model (model/rank.c)
 *   the weights (measured or estimated)      (budget/weights.c)
 *   available bytes per rank (§3.1)          (budget/budget.c)
 *   each stage: rank, configurator, profiling path (src/core/)
 *   --max-total-tokens and the PP minimum: constraint path (§3.2)
 *   max_running_requests (§3.3), finalize, what the pools really allocate
 *   (§5) and the req_to_token pool (§3.4)    (allocation.c)
 *   release: the plan keeps no pointer into the model or the options
 *
 * --available-bytes skips the budget and starts from the number sglang's
 * log gives.
 */
#include "plan/plan.h"

#include <string.h>

/* What the stages hand each other beyond the plan itself. */
typedef struct pipeline {
    const kvplan_model *m;
    const kvplan_plan_options *o;
    kvplan_gpu gpu;
    kvplan_dtype model_dtype;
    double weights, draft; /* whole model, bytes */
    int64_t available;     /* per rank */
    int64_t max_mamba;     /* mamba slots; 0 unless mambaish */
    double mamba_per;      /* one request's mamba state, bytes */
    int64_t mamba_ratio;
    int64_t attn_dp;
    bool ovf;
} pipeline;

/* The header and the stages used; the rest of the 64 stages is left as it
 * was (a plan is large, and zeroing it all was most of a plan's cost). */
static void reset(kvplan_plan *out, size_t stages)
{
    memset(out, 0, offsetof(kvplan_plan, stages));
    memset(out->stages, 0, stages * sizeof out->stages[0]);
    out->struct_size = (uint32_t)sizeof *out;
    out->num_stages = stages;
}

/* §4.1: the fraction, given or by sglang's rule. */
static void fraction(pipeline *p, kvplan_plan *out)
{
    const kvplan_plan_options *o = p->o;
    const kvplan_server_args *s = &out->resolved;
    kvplan_budget *b = &out->budget;
    b->gpu_mem_mib = p->gpu.total_mib;
    if (o->mem_fraction_static.set) {
        b->mem_fraction_static = o->mem_fraction_static.value;
        return;
    }
    b->mem_fraction_auto = true;
    /* the rule runs before the hooks: the requested values */
    kvplan__fraction_inputs fi = {
        .gpu_mib = p->gpu.total_mib,
        .is_hip = p->gpu.is_hip,
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
        .vision = p->m->vision,
    };
    kvplan__budget_fraction(&fi, b);
}

/* The weights of the model and of its draft, whole (not per rank). */
static void weights(pipeline *p, kvplan_plan *out)
{
    const kvplan_plan_options *o = p->o;
    const kvplan_model *m = p->m;
    kvplan_budget *b = &out->budget;
    p->weights = o->weight_bytes.set
                     ? (double)o->weight_bytes.value
                     : kvplan__weights_estimate(&m->weights, p->model_dtype);
    b->weights_estimated = !o->weight_bytes.set;
    p->draft = 0;
    const kvplan_model *d = o->server.speculative_draft_model;
    if (o->draft_weight_bytes.set) {
        p->draft = (double)o->draft_weight_bytes.value;
    } else if (d != NULL) {
        b->draft_weights_estimated = true;
        p->draft = kvplan__weights_estimate(&d->weights, p->model_dtype);
    } else if (o->server.speculative_algorithm != KVPLAN_SPEC_NONE &&
               m->self_draft && m->info.num_nextn_predict_layers.set &&
               m->info.num_hidden_layers > 0) {
        /* MTP layers from the model itself: their share of the weights */
        p->draft = p->weights * (double)m->info.num_nextn_predict_layers.value /
                   (double)m->info.num_hidden_layers;
        b->draft_weights_estimated = true;
    }
}

/* §3.1: the bytes each rank hands the configurator. */
static kvplan_status available(pipeline *p, kvplan_plan *out, kvplan_error *err)
{
    const kvplan_server_args *s = &out->resolved;
    const kvplan_model *m = p->m;
    p->attn_dp = s->enable_dp_attention ? s->dp_size : 1;
    p->mamba_ratio = 1;
    if (m->info.is_mambaish) {
        p->mamba_per = kvplan__mamba_per_request(&m->mamba, s->tp_size);
        p->mamba_ratio = kvplan__mamba_ratio(
            s->disable_radix_cache, s->disable_overlap_schedule, s->page_size);
    }
    if (p->o->available_bytes.set) {
        out->budget.given = true;
        p->available = p->o->available_bytes.value;
        return KVPLAN_OK;
    }
    kvplan__available_inputs ai = {
        .gpu_mib = p->gpu.total_mib,
        .ranks = (double)s->tp_size * (double)s->pp_size,
        .weight_bytes = p->weights,
        .draft_bytes = p->draft,
        .fraction = out->budget.mem_fraction_static,
        .is_mambaish = m->info.is_mambaish,
        .mamba_per_request = p->mamba_per,
        .mamba_ratio = p->mamba_ratio,
        .attn_dp = p->attn_dp,
        .disable_radix_cache = s->disable_radix_cache,
        .speculative = s->speculative_algorithm != KVPLAN_SPEC_NONE,
        .speculative_num_draft_tokens = s->speculative_num_draft_tokens,
        .max_running_requests = s->max_running_requests,
    };
    return kvplan__budget_available(&ai, &out->budget, &p->available,
                                    &p->max_mamba, err);
}

/* Each stage: its rank (stage 0's is built by the flag check), its
 * configurator and the profiling path; the binding stage has the fewest
 * tokens. */
static kvplan_status profile(pipeline *p, kvplan_plan *out, kvplan_error *err)
{
    double ranks =
        (double)out->resolved.tp_size * (double)out->resolved.pp_size;
    int64_t least = INT64_MAX;
    for (size_t i = 0; i < out->num_stages; i++) {
        kvplan_stage_plan *sp = &out->stages[i];
        sp->pp_rank = (int64_t)i;
        if (i > 0)
            KVPLAN__TRY(kvplan__model_rank(p->m, &out->resolved, sp->pp_rank,
                                           &sp->rank, NULL, err));
        KVPLAN__TRY(
            kvplan_configurator_init(&sp->configurator, &sp->rank, err));
        KVPLAN__TRY(kvplan_calculate_pool_sizes(&sp->configurator, p->available,
                                                out->page_size, &sp->profiled,
                                                err));
        sp->available_bytes = p->available;
        sp->weight_bytes = kvplan__trunc(p->weights / ranks, &p->ovf);
        sp->draft_weight_bytes = kvplan__trunc(p->draft / ranks, &p->ovf);
        sp->max_mamba_cache_size = p->max_mamba;
        if (sp->profiled.max_total_num_tokens < least) {
            least = sp->profiled.max_total_num_tokens;
            out->binding_stage = i;
        }
    }
    return KVPLAN_OK;
}

/* §3.2: --max-total-tokens lowers, then every stage takes the minimum. */
static kvplan_status constrain(pipeline *p, kvplan_plan *out, kvplan_error *err)
{
    int64_t t = out->stages[out->binding_stage].profiled.max_total_num_tokens;
    if (p->o->max_total_tokens.set && p->o->max_total_tokens.value < t)
        t = p->o->max_total_tokens.value;
    for (size_t i = 0; i < out->num_stages; i++) {
        kvplan_stage_plan *sp = &out->stages[i];
        sp->pools = sp->profiled;
        if (t != sp->profiled.max_total_num_tokens)
            KVPLAN__TRY(kvplan_calculate_pool_sizes_from_max_tokens(
                &sp->configurator, t, out->page_size, &sp->pools, err));
    }
    return KVPLAN_OK;
}

/* §3.3: max_running_requests from the final tokens, then each stage's
 * finalize, its allocation and its req_to_token pool. */
static kvplan_status requests(pipeline *p, kvplan_plan *out, kvplan_error *err)
{
    const kvplan_server_args *s = &out->resolved;
    int64_t t = out->stages[0].pools.max_total_num_tokens;
    int64_t n =
        s->max_running_requests.set
            ? kvplan__min(s->max_running_requests.value / p->attn_dp, t / 2)
            : kvplan__default_max_running_requests(t, out->context_len,
                                                   &p->ovf);
    if (p->m->info.is_mambaish && p->max_mamba > 0)
        n = kvplan__min(n, p->max_mamba / p->mamba_ratio);
    KVPLAN__FAIL_IF(n <= 0, err, KVPLAN_NOT_ENOUGH_MEMORY, NULL,
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
        sp->allocation.req_to_token_bytes =
            kvplan__req_to_token_bytes(&sp->rank, n, out->context_len, &p->ovf);
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
        r->env.SGLANG_DSV4_COMPRESS_STATE_DTYPE = NULL;
    }
}

kvplan_status kvplan_plan_compute(const kvplan_model *m,
                                  const kvplan_plan_options *o,
                                  kvplan_plan *out, kvplan_error *err)
{
    KVPLAN__FAIL_IF(m == NULL || o == NULL || out == NULL, err,
                    KVPLAN_INVALID_ARGUMENT, NULL,
                    "kvplan_plan_compute needs a model, options and a plan "
                    "to fill; got NULL");
    KVPLAN__TRY(kvplan_plan_options_validate(o, err));
    pipeline p = {.m = m, .o = o};
    p.gpu = o->gpu_set ? o->gpu : *kvplan__gpu_default();
    p.model_dtype = kvplan__dtype_of_flag(o->server.dtype, m->info.dtype);
    reset(out, (size_t)o->server.pp_size);

    KVPLAN__TRY(kvplan__resolve_args(m, o, &p.gpu, o->gpu_set, out, err));
    fraction(&p, out);
    /* the flags against the model first: a contradiction is named as such,
     * not as a budget that does not fit */
    kvplan_rank *first = &out->stages[0].rank;
    KVPLAN__TRY(kvplan__model_rank(m, &out->resolved, 0, first,
                                   &out->context_len, err));
    kvplan__resolve_dtypes(out, p.model_dtype, first->runner.kv_cache_dtype);
    weights(&p, out);
    KVPLAN__TRY(available(&p, out, err));
    KVPLAN__TRY(profile(&p, out, err));
    KVPLAN__TRY(constrain(&p, out, err));
    KVPLAN__TRY(requests(&p, out, err));
    release(out);
    KVPLAN__FAIL_IF(p.ovf, err, KVPLAN_OVERFLOW, NULL,
                    "a pool size or a weight share exceeds 64 bits");
    return kvplan__ok(err);
}
