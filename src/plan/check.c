/*
 * check.c: what sglang refuses before it sizes anything (refuse), and after
 * the plan what could not start and what starts but the operator should
 * know (check: an error naming the term and the flag that fixes it, or the
 * plan's warnings).
 */
#include "plan/plan.h"

#include <stdarg.h>
#include <stdio.h>

/* A warning for the caller. Each code is warned of once at most, and
 * there is a slot for each: none is left out. */
_Static_assert(KVPLAN_WARN_NO_DRAFT <= KVPLAN_MAX_WARNINGS,
               "a slot for every warning code (the last is NO_DRAFT)");
static void warn(kvplan_plan *out, kvplan_warning_code code, const char *field,
                 const char *fmt, ...) KVPLAN_PRINTF(4, 5);

static void warn(kvplan_plan *out, kvplan_warning_code code, const char *field,
                 const char *fmt, ...)
{
    if (out->num_warnings >= KVPLAN_MAX_WARNINGS)
        return;
    kvplan_warning *w = &out->warnings[out->num_warnings++];
    w->code = code;
    w->field = field;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->message, sizeof w->message, fmt, ap);
    va_end(ap);
}

/* What sglang refuses before it sizes anything: heads the attention ranks
 * cannot split, and DSA's pool on another page size. */
kvplan_status kvplan__plan_refuse(const kvplan_model *m, const kvplan_gpu *gpu,
                                  const kvplan_plan *out, kvplan_error *err)
{
    const kvplan_server_args *s = &out->resolved;
    int64_t attn_dp = kvplan__attn_dp(s);
    int64_t attn_tp = kvplan__attn_tp(s);
    int64_t heads = m->info.num_attention_heads;
    KVPLAN__FAIL_IF(
        heads % attn_tp != 0, err, KVPLAN_INVALID_CONFIG, "--tp-size",
        "the %lld attention heads do not split over %lld attention ranks "
        "(--tp-size %lld%s): sglang needs whole heads on each rank; use a "
        "--tp-size that divides %lld",
        (long long)heads, (long long)attn_tp, (long long)s->tp_size,
        attn_dp > 1 ? " / --dp-size" : "", (long long)heads);
    KVPLAN__FAIL_IF(m->info.is_deepseek_dsa && !gpu->is_hip &&
                        out->page_size != 64,
                    err, KVPLAN_INVALID_CONFIG, "--page-size",
                    "DSA's KV pool needs --page-size 64 on CUDA (sglang's "
                    "DSATokenToKVPool asserts page_size == 64), got %lld",
                    (long long)out->page_size);
    return KVPLAN_OK;
}

/* After the plan: what could not start (exit 1 with the term and the flag
 * that fixes it), and what starts but the operator should know. */
kvplan_status kvplan__plan_check(const kvplan_model *m,
                                 const kvplan_plan_options *o,
                                 kvplan_dtype model_dtype, kvplan_plan *out,
                                 kvplan_error *err)
{
    kvplan_budget *b = &out->budget;
    const kvplan_stage_plan *sp = &out->stages[out->binding_stage];
    /* the fixed pools against the reserve they live in */
    int64_t r2t = 0, over = 0;
    for (size_t i = 0; i < out->num_stages; i++) {
        const kvplan_allocation *a = &out->stages[i].allocation;
        r2t = kvplan__max(r2t, a->req_to_token_bytes);
        over = kvplan__max(over, a->kv_bytes + a->draft_kv_bytes -
                                     out->stages[i].available_bytes);
    }
    double gib = 1073741824.0;
    b->fixed_gib =
        (double)r2t / gib + b->deepep_mib / 1024 + (double)over / gib;
    if (!b->given && b->fixed_gib > b->slack_gib) {
        bool user_mrr = o->server.max_running_requests.set;
        const char *flag =
            user_mrr ? "--max-running-requests" : "--context-length";
        char more[160] = "";
        size_t n = 0;
        if (b->deepep_mib > 0)
            n += (size_t)snprintf(more + n, sizeof more - n,
                                  ", DeepEP %.2f GiB", b->deepep_mib / 1024);
        if ((double)over / gib >= 0.005 && n < sizeof more)
            snprintf(more + n, sizeof more - n,
                     ", pool rows beyond their price %.2f GiB",
                     (double)over / gib);
        return kvplan__fail(
            err, KVPLAN_NOT_ENOUGH_MEMORY, flag,
            "sglang could not start: the pools outside the KV cache take "
            "%.2f GiB (req_to_token %.2f GiB for %lld requests x %lld "
            "tokens%s), more than the %.2f GiB that mem_fraction_static "
            "%.4g leaves outside it; lower %s%s or --mem-fraction-static",
            b->fixed_gib, (double)r2t / gib,
            (long long)out->max_running_requests, (long long)out->context_len,
            more, b->slack_gib, b->mem_fraction_static, flag,
            user_mrr ? ", --context-length" : ", --max-running-requests");
    }
    double graphs = b->graph_mib / 1024;
    if (!b->given && b->fixed_gib + graphs > b->slack_gib)
        warn(out, KVPLAN_WARN_RESERVE_TIGHT, "--mem-fraction-static",
             "the reserve outside the KV cache (%.2f GiB) keeps %.2f GiB "
             "after req_to_token and the pools' own rows, less than the "
             "%.2f GiB sglang's rule sets aside for cuda graphs: start-up "
             "or the first large batch may run out of memory",
             b->slack_gib, b->slack_gib - b->fixed_gib, graphs);
    const kvplan_capacity *cap = &out->capacity;
    out->longest_request = cap->longest_request_tokens;
    if (out->longest_request < out->context_len) {
        const kvplan_pool_info *pool = &cap->pools[cap->longest_pool];
        char held[64] = "the KV cache";
        if (pool->kind != KVPLAN_POOL_FULL)
            snprintf(held, sizeof held, "the %s pool",
                     kvplan_pool_kind_name(pool->kind));
        warn(out, KVPLAN_WARN_CONTEXT_TOO_LONG, "--context-length",
             "one request at context_len %lld cannot fit: %s holds %lld "
             "tokens, so the longest request is %lld tokens; pass "
             "--context-length %lld, or more memory",
             (long long)out->context_len, held,
             (long long)pool->capacity_tokens, (long long)out->longest_request,
             (long long)out->longest_request);
    }
    /* later sglang refuses a sliding-window pool that cannot hold one
     * window and a page (§7); the seed serves it */
    KVPLAN__TRY(kvplan__profile_refuse(out, err));
    const kvplan_rank *r = &sp->rank;
    if (r->runner.is_hybrid_swa && r->runner.sliding_window_size.set &&
        sp->pools.swa_max_total_num_tokens.set &&
        r->runner.sliding_window_size.value + out->page_size >=
            sp->pools.swa_max_total_num_tokens.value)
        warn(out, KVPLAN_WARN_SWA_BELOW_WINDOW, "--swa-full-tokens-ratio",
             "the sliding-window pool holds %lld tokens, not one window "
             "(%lld) and a page: requests will evict their own window; later "
             "sglang refuses this (raise --swa-full-tokens-ratio or the "
             "memory)",
             (long long)sp->pools.swa_max_total_num_tokens.value,
             (long long)r->runner.sliding_window_size.value);
    int64_t profiled = sp->profiled.max_total_num_tokens;
    if (o->max_total_tokens.set && o->max_total_tokens.value > profiled)
        warn(out, KVPLAN_WARN_MAX_TOTAL_TOKENS_ABOVE_PROFILED,
             "--max-total-tokens",
             "max_total_tokens=%lld is larger than the profiled value %lld. "
             "Use the profiled value instead.",
             (long long)o->max_total_tokens.value, (long long)profiled);
    int64_t attn_dp = kvplan__attn_dp(&out->resolved);
    if (o->server.max_running_requests.set &&
        out->max_running_requests <
            o->server.max_running_requests.value / attn_dp)
        warn(out, KVPLAN_WARN_MAX_RUNNING_REQUESTS_REDUCED,
             "--max-running-requests",
             "max_running_requests was reduced from the requested %lld to "
             "%lld (per dp worker) due to the available KV cache capacity.",
             (long long)(o->server.max_running_requests.value / attn_dp),
             (long long)out->max_running_requests);
    if (o->gpu_set && o->gpu.in_use_mib > 0 && !b->given)
        warn(out, KVPLAN_WARN_GPU_IN_USE, "--gpu",
             "--gpu auto: %.2f GiB of the GPU is in use (%.90s): the budget "
             "starts from what is free, as sglang measures it; on the idle "
             "card the KV cache would have %.2f GiB more",
             o->gpu.in_use_mib / 1024, o->gpu.in_use_by,
             o->gpu.in_use_mib / 1024 * b->mem_fraction_static);
    const char *q = o->quantization ? o->quantization : m->weights.quant_method;
    if (!b->given && b->weights_estimated && q[0] != '\0' &&
        !kvplan__priced_quantization(q))
        warn(out, KVPLAN_WARN_QUANTIZATION_UNKNOWN, "--weight-bytes",
             "the weights' quantization '%.40s' is not one kvplan prices: "
             "they are estimated at the model dtype; pass --weight-bytes",
             q);
    const char *name = m->info.name ? m->info.name : "";
    if (!b->given && b->weights_estimated && q[0] == '\0' &&
        m->weights.name_says_quantized)
        warn(out, KVPLAN_WARN_NAME_SAYS_QUANTIZED, "--quantization",
             "'%.60s' names a quantized checkpoint, but its config has no "
             "quantization_config: the weights are priced at %s; pass "
             "--quantization",
             name, kvplan_dtype_name(model_dtype));
    return KVPLAN_OK;
}
