/*
 * compare.c: the same model, GPU and parallelism under sglang, vLLM and
 * TensorRT-LLM (kvplan_compare, `kvplan compare`), and the reasons their
 * figures differ, as codes (docs/engines.md). The options the three share
 * (TP, PP, the KV dtype, the GPU, the draft, the weights, the context) are
 * mapped once, here: kvplan_options_engine.
 */
#include "options/options.h"

#include "plan/plan.h"

#include <stdio.h>
#include <string.h>

const char *kvplan_compare_reason_name(kvplan_compare_reason r)
{
    switch (r) {
    case KVPLAN_REASON_BUDGET:
        return "budget";
    case KVPLAN_REASON_HEADLINE:
        return "headline";
    case KVPLAN_REASON_SLIDING_WINDOW:
        return "sliding_window";
    case KVPLAN_REASON_MAMBA_STATE:
        return "mamba_state";
    case KVPLAN_REASON_DSA_ROW:
        return "dsa_row";
    case KVPLAN_REASON_KV_DTYPE:
        return "kv_dtype";
    }
    return "?";
}

void kvplan_options_engine(const kvplan_options *opts, kvplan_engine engine,
                           kvplan_engine_options *o)
{
    const kvplan_plan_options *p = &opts->plan;
    *o = opts->engine_options;
    o->engine = engine;
    o->tp_size = p->server.tp_size;
    o->pp_size = p->server.pp_size;
    o->kv_cache_dtype = p->server.kv_cache_dtype;
    o->dtype = p->server.dtype;
    o->quantization = p->quantization;
    /* vLLM's envs.py: "1" or "true", any case, blanks around */
    const char *allow =
        kvplan_options_getenv(opts, "VLLM_ALLOW_LONG_MAX_MODEL_LEN");
    size_t n = allow != NULL ? strlen(allow) : 0;
    if (allow != NULL)
        kvplan__py_strip(&allow, &n);
    o->allow_long_max_model_len =
        allow != NULL && (kvplan__ascii_ieq_n(allow, n, "1") ||
                          kvplan__ascii_ieq_n(allow, n, "true"));
    o->gpu_set = p->gpu_set;
    o->gpu = p->gpu;
    o->speculative_algorithm = p->server.speculative_algorithm;
    o->speculative_draft_model = p->server.speculative_draft_model;
    if (!o->weight_bytes.set)
        o->weight_bytes = p->weight_bytes;
    if (!o->max_model_len.set)
        o->max_model_len = p->server.context_length;
}

static void sglang_column(const kvplan_model *m, const kvplan_options *o,
                          kvplan_plan *p, kvplan_comparison *out)
{
    kvplan_engine_column *c = &out->columns[0];
    kvplan_error err;
    c->engine = KVPLAN_ENGINE_SGLANG;
    c->status = kvplan_plan_compute(m, &o->plan, p, &err);
    if (c->status != KVPLAN_OK) {
        snprintf(c->error, sizeof c->error, "%s", err.message);
        /* the GPUs the same parallelism takes, without a plan's pools */
        memset(p, 0, offsetof(kvplan_plan, stages));
        p->resolved = o->plan.server;
        bool ovf = false;
        kvplan__plan_fleet(p, &ovf);
        out->fleet = p->fleet;
        return;
    }
    const kvplan_stage_plan *sp = &p->stages[p->binding_stage];
    out->fleet = p->fleet;
    out->sglang_rules = p->rules;
    /* vLLM's one pool holds the mamba state with the KV; sglang reserves
     * the state's slots beside its KV budget, so the column adds them */
    c->state_bytes = (double)sp->allocation.mamba_state_bytes;
    c->kv_bytes = (double)sp->available_bytes + c->state_bytes;
    c->bytes_per_token = sp->configurator.kind == KVPLAN_CONFIGURATOR_DSV4
                             ? sp->configurator.bytes_per_full_token
                             : sp->configurator.cell_size;
    c->tokens = p->max_total_num_tokens;
    c->request_tokens = p->context_len;
    c->concurrency = (double)p->capacity.max_concurrency_at_context_len;
    c->weight_bytes = (double)sp->weight_bytes;
}

static void engine_column(const kvplan_model *m, const kvplan_options *opts,
                          kvplan_engine e, kvplan_engine_plan *p,
                          kvplan_engine_column *c)
{
    kvplan_engine_options o;
    kvplan_options_engine(opts, e, &o);
    kvplan_error err;
    c->engine = e;
    c->status = kvplan_engine_compute(m, &o, p, &err);
    if (c->status != KVPLAN_OK) {
        snprintf(c->error, sizeof c->error, "%s", err.message);
        return;
    }
    c->kv_bytes = (double)p->available_bytes;
    c->bytes_per_token = (double)p->bytes_per_token;
    c->tokens = p->kv_cache_tokens;
    c->request_tokens = p->max_model_len;
    c->concurrency = p->max_concurrency;
    c->weight_bytes = p->weight_bytes;
}

/* Why the columns differ, for what this model and plan are. */
static void reasons(const kvplan_model *m, kvplan_comparison *out)
{
    const kvplan_model_info *info = kvplan_model_get_info(m);
    const kvplan_engine_column *c = out->columns;
    kvplan_compare_reason *r = out->reasons;
    size_t n = 0;
    r[n++] = KVPLAN_REASON_BUDGET;
    r[n++] = KVPLAN_REASON_HEADLINE;
    if (info->is_hybrid_swa)
        r[n++] = KVPLAN_REASON_SLIDING_WINDOW;
    if (info->is_mambaish)
        r[n++] = KVPLAN_REASON_MAMBA_STATE;
    if (info->is_deepseek_dsa && c[0].status == KVPLAN_OK &&
        c[1].status == KVPLAN_OK)
        r[n++] = KVPLAN_REASON_DSA_ROW;
    if (c[0].status == KVPLAN_OK && c[1].status == KVPLAN_OK &&
        c[0].bytes_per_token != c[1].bytes_per_token && !info->is_hybrid_swa &&
        !info->is_mambaish)
        r[n++] = KVPLAN_REASON_KV_DTYPE;
    out->num_reasons = n;
}

kvplan_status kvplan_compare(const kvplan_model *m, const kvplan_options *o,
                             kvplan_plan *work, kvplan_comparison *out,
                             kvplan_error *err)
{
    KVPLAN__FAIL_IF(m == NULL || o == NULL || work == NULL || out == NULL, err,
                    KVPLAN_INVALID_ARGUMENT, NULL,
                    "kvplan_compare needs a model, options, a plan to work "
                    "in and a result; got NULL");
    memset(out, 0, offsetof(kvplan_comparison, vllm));
    sglang_column(m, o, work, out);
    engine_column(m, o, KVPLAN_ENGINE_VLLM, &out->vllm, &out->columns[1]);
    engine_column(m, o, KVPLAN_ENGINE_TRTLLM, &out->trtllm, &out->columns[2]);
    reasons(m, out);
    return kvplan__ok(err);
}
