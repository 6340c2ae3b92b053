/*
 * trtllm_log.c: a TensorRT-LLM start-up log (PyTorch flow) read and
 * reconciled with kvplan (docs/log.md, "TensorRT-LLM logs").
 * KvCacheCreator (_torch/pyexecutor/_util.py) prints its profile: the
 * weights, the activation and the memory outside torch, then "Peak memory
 * during memory usage profiling (torch + non-torch): P GiB, available KV
 * cache memory when calculating max tokens: A GiB, fraction is set F, kv
 * size is N"; the C++ manager prints the tokens it allocated, "Allocated X
 * GiB for max tokens in paged KV cache (T)". From A (2 decimals, +-0.005
 * GiB) and kvplan's bytes a token, max_tokens = A // N and the pool's
 * ceilDiv(max_tokens, tokens_per_block) blocks give an interval the
 * printed counts must lie in. Bounded, no allocation, nothing defaulted.
 */
#include "budget/budget.h"
#include "engine/engine.h"
#include "log/log.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define GIB 1073741824.0

/* An integer after `key`, which a '.' may end ("kv size is 73728.",
 * "Number of tokens per block: 32."), not a decimal's head. */
static bool int_end(kvplan__log_span l, const char *key, int64_t *out)
{
    const char *p = kvplan__log_value_at(l, key, " ");
    if (p == NULL)
        return false;
    int64_t v = 0;
    bool any = false;
    for (; p < l.end && *p >= '0' && *p <= '9'; p++) {
        if (v > (INT64_MAX - 9) / 10)
            return false;
        v = v * 10 + (*p - '0');
        any = true;
    }
    if (!any ||
        (p < l.end && *p == '.' && p + 1 < l.end && p[1] >= '0' && p[1] <= '9'))
        return false;
    *out = v;
    return true;
}

static void gib(kvplan__log_span l, const char *key, kvplan_opt_double *o,
                bool *used)
{
    double v;
    if (kvplan__log_gib_after(l, key, &v)) {
        *o = (kvplan_opt_double){v, true};
        *used = true;
    }
}

static void count(kvplan__log_span l, const char *key, kvplan_opt_int *o,
                  bool *used)
{
    int64_t v;
    if (int_end(l, key, &v) && v >= 0) {
        *o = (kvplan_opt_int){v, true};
        *used = true;
    }
}

/* "Both free_gpu_memory_fraction and max_tokens are set (to F and N,
 * respectively)": N */
static void max_tokens(kvplan__log_span l, kvplan_opt_int *o, bool *used)
{
    const char *k = kvplan__log_find(l.s, l.end, "max_tokens are set (to ");
    if (k == NULL)
        return;
    const char *p = k + strlen("max_tokens are set (to ");
    double f;
    int64_t v;
    if (!kvplan__log_parse_double(&p, l.end, &f) || l.end - p < 5 ||
        memcmp(p, " and ", 5) != 0)
        return;
    p += 5;
    if (kvplan__log_parse_int(&p, l.end, &v) && v >= 0) {
        *o = (kvplan_opt_int){v, true};
        *used = true;
    }
}

/* "KV cache manager v2 device quota set to XGiB": X is Python's repr of
 * quota / 2^30, up to 17 significant digits, which the shared decimal
 * reader takes only within 2^53. The quota's bytes, exactly: the whole
 * GiB and the fraction's share of 2^30 (its error far below a byte),
 * kept as bytes / 2^30 (exact for bytes below 2^53). Nothing but "GiB"
 * may follow (no exponent). */
static void v2_quota(kvplan__log_span l, kvplan_opt_double *o, bool *used)
{
    static const char key[] = "KV cache manager v2 device quota set to ";
    const char *p = kvplan__log_find(l.s, l.end, key);
    if (p == NULL)
        return;
    p += sizeof key - 1;
    int64_t whole = 0, frac = 0, scale = 1;
    int nw = 0;
    for (; p < l.end && *p >= '0' && *p <= '9' && nw < 8; p++, nw++)
        whole = whole * 10 + (*p - '0');
    if (p < l.end && *p == '.')
        for (p++; p < l.end && *p >= '0' && *p <= '9'; p++)
            if (scale < INT64_C(100000000000000000)) {
                frac = frac * 10 + (*p - '0');
                scale *= 10;
            }
    /* within the GiB any reading takes (kvplan__log_gib_after's) */
    if (nw == 0 || whole > 1048576 || l.end - p < 3 || memcmp(p, "GiB", 3) != 0)
        return;
    int64_t bytes = whole * (INT64_C(1) << 30) +
                    llround((double)frac / (double)scale * GIB);
    *o = (kvplan_opt_double){(double)bytes / GIB, true};
    *used = true;
}

static void read_line(kvplan__log_span l, kvplan_trtllm_log_readings *r)
{
    bool used = false;
    if (kvplan__log_find(l.s, l.end, "TensorRT-LLM version: ") != NULL)
        used |= kvplan__log_word_after(l, "TensorRT-LLM version: ", r->version,
                                       sizeof r->version);
    gib(l,
        "weights (inside torch) in memory usage profiling: ", &r->weights_gib,
        &used);
    gib(l, "during inference (inside torch) in memory usage profiling: ",
        &r->activation_gib, &used);
    gib(l, "CUDA graphs) in memory usage profiling: ", &r->outside_torch_gib,
        &used);
    if (kvplan__log_find(l.s, l.end, "Peak memory during memory usage") !=
        NULL) {
        gib(l, "(torch + non-torch): ", &r->peak_gib, &used);
        gib(l, "when calculating max tokens: ", &r->available_gib, &used);
        double f;
        if (kvplan__log_double_after(l, "fraction is set ", &f) && f > 0 &&
            f <= 1)
            r->fraction = (kvplan_opt_double){f, true};
        count(l, "kv size is ", &r->kv_bytes_per_token, &used);
        count(l, "kv size per token is ", &r->kv_bytes_per_token, &used);
        gib(l, "device total memory ", &r->total_gib, &used);
    }
    max_tokens(l, &r->max_tokens, &used);
    count(l, "Number of tokens per block: ", &r->tokens_per_block, &used);
    if (kvplan__log_find(l.s, l.end, "for max tokens in paged KV cache (") !=
        NULL) {
        gib(l, "Allocated ", &r->allocated_gib, &used);
        count(l, "paged KV cache (", &r->kv_cache_tokens, &used);
    }
    gib(l, "Estimated max memory in KV cache : ", &r->estimated_gib, &used);
    v2_quota(l, &r->v2_quota_gib, &used);
    if (kvplan__log_find(l.s, l.end, "max_num_requests=") != NULL) {
        count(l, "max_seq_len=", &r->max_seq_len, &used);
        count(l, "max_batch_size=", &r->max_batch_size, &used);
        count(l, "max_num_tokens=", &r->max_num_tokens, &used);
    }
    r->lines_used += used;
}

kvplan_status kvplan_trtllm_log_parse(const char *text, size_t len,
                                      kvplan_trtllm_log_readings *out,
                                      kvplan_error *err)
{
    KVPLAN__FAIL_IF(out == NULL || (text == NULL && len > 0), err,
                    KVPLAN_INVALID_ARGUMENT, NULL,
                    "kvplan_trtllm_log_parse: text and out must not be NULL");
    memset(out, 0, sizeof *out);
    const char *p = text, *end = text + len;
    kvplan__log_span l;
    while (kvplan__log_next_line(&p, end, &l)) {
        out->lines++;
        read_line(l, out);
    }
    KVPLAN__FAIL_IF(!out->available_gib.set && !out->kv_cache_tokens.set &&
                        !out->estimated_gib.set && !out->v2_quota_gib.set,
                    err, KVPLAN_PARSE, "log",
                    "no line of TensorRT-LLM's KV-cache sizing (\"available "
                    "KV cache memory when calculating max tokens\", "
                    "\"Estimated max memory in KV cache\", \"Allocated ... "
                    "for max tokens in paged KV cache\", \"KV cache manager "
                    "v2 device quota set to\") in the %lld lines",
                    (long long)out->lines);
    return KVPLAN_OK;
}

KVPLAN_PRINTF(4, 5)
static void cause(kvplan_trtllm_log_result *out, kvplan_log_cause_code code,
                  const char *row, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kvplan__log_vcause(out->causes, &out->num_causes, code, row, fmt, ap);
    va_end(ap);
}

/* kvplan's plan with the KV memory capped at `bytes` (the log's available
 * memory, as KvCacheCreator hands it on as max_gpu_total_bytes) on a GPU
 * whose own budget is larger still: the tokens the cap buys. */
static kvplan_status plan_at(const kvplan_model *m,
                             const kvplan_engine_options *o, int64_t bytes,
                             kvplan_engine_plan *p, kvplan_error *err)
{
    kvplan_engine_options x = *o;
    x.engine = KVPLAN_ENGINE_TRTLLM;
    x.gpu_set = true;
    /* 16 TiB and twice the cap: the cap binds */
    x.gpu.total_mib = 16.0 * 1048576 + 2.0 * (double)bytes / 1048576;
    x.gpu.in_use_mib = 0;
    x.max_gpu_total_bytes = (kvplan_opt_int){bytes, true};
    x.max_tokens = (kvplan_opt_int){0, false};
    memset(p, 0, sizeof *p);
    p->struct_size = sizeof *p;
    return kvplan_engine_compute(m, &x, p, err);
}

/* max_tokens and the pool's tokens at `bytes`: kvplan's plan, else the
 * log's own bytes a token. */
static kvplan_status end_at(const kvplan_model *m,
                            const kvplan_engine_options *o,
                            const kvplan_trtllm_log_readings *r, int64_t bytes,
                            int64_t tpb, int64_t *max_tok, int64_t *tokens,
                            int64_t *bpt, kvplan_error *err)
{
    if (m != NULL) {
        kvplan_engine_plan p;
        KVPLAN__TRY(plan_at(m, o, bytes, &p, err));
        *bpt = p.bytes_per_token;
        *tokens = p.kv_cache_tokens;
        /* the plan's tokens before the blocks' rounding */
        int64_t fixed = p.available_bytes - p.kv_cache_tokens * *bpt;
        *max_tok = (bytes - fixed) / *bpt;
        return KVPLAN_OK;
    }
    int64_t n = r->kv_bytes_per_token.value;
    *max_tok = bytes / n;
    *tokens = (*max_tok + tpb - 1) / tpb * tpb;
    return KVPLAN_OK;
}

/* The pool the log allocated: its tokens at kvplan's bytes a token (a
 * plan whose cap is exactly those tokens' bytes), against the "Allocated
 * X GiB" it printed to 2 decimals. */
static kvplan_status pool_check(const kvplan_model *m,
                                const kvplan_engine_options *o,
                                const kvplan_trtllm_log_readings *r,
                                kvplan_trtllm_log_result *out,
                                kvplan_error *err)
{
    kvplan_engine_plan p;
    KVPLAN__TRY(plan_at(m, o, INT64_C(1) << 40, &p, err));
    int64_t tokens = r->kv_cache_tokens.value;
    if (p.bytes_per_token <= 0 || tokens > INT64_MAX / p.bytes_per_token)
        return KVPLAN_OK;
    out->pool_bytes = tokens * p.bytes_per_token;
    out->pool_match =
        fabs((double)out->pool_bytes / GIB - r->allocated_gib.value) <= 0.005;
    if (!out->pool_match)
        cause(out, KVPLAN_CAUSE_OUTSIDE, "allocated",
              "%lld tokens at kvplan's %lld bytes a token are %.2f GiB; the "
              "log allocated %.2f GiB",
              (long long)tokens, (long long)p.bytes_per_token,
              (double)out->pool_bytes / GIB, r->allocated_gib.value);
    return KVPLAN_OK;
}

kvplan_opt_double kvplan__trtllm_log_budget(const kvplan_trtllm_log_readings *r)
{
    return r->available_gib.set ? r->available_gib : r->estimated_gib;
}

/* A V2 log's pool: its quota, printed in full (quota / 2^30 in Python's
 * repr), is the quota's bytes; kvplan's V2 pool at it. The log prints no
 * count of blocks or tokens to hold it against. */
static void v2_pool(const kvplan_model *m, const kvplan_engine_options *o,
                    const kvplan_trtllm_log_readings *r,
                    kvplan_trtllm_log_result *out)
{
    out->v2_quota_bytes = llround(r->v2_quota_gib.value * GIB);
    if (m == NULL)
        return;
    kvplan_engine_plan p;
    kvplan_error e;
    if (plan_at(m, o, out->v2_quota_bytes, &p, &e) != KVPLAN_OK) {
        cause(out, KVPLAN_CAUSE_MODEL_NOT_PLANNED, "v2", "%s", e.message);
        return;
    }
    out->v2_slots = p.num_gpu_blocks;
    cause(out, KVPLAN_CAUSE_MISSING_READING, "tokens",
          "a KV cache manager V2 log prints no count of blocks or tokens; at "
          "its quota (%lld bytes) kvplan's V2 pool%s holds %lld slots of %lld "
          "tokens, %lld tokens",
          (long long)out->v2_quota_bytes,
          p.num_groups > 1 ? " of the full layers (its first share)" : "",
          (long long)p.num_gpu_blocks, (long long)p.block_size,
          (long long)p.kv_cache_tokens);
}

kvplan_status kvplan_trtllm_log_reconcile(const kvplan_model *model,
                                          const char *model_error,
                                          const kvplan_trtllm_log_readings *r,
                                          const kvplan_engine_options *options,
                                          kvplan_trtllm_log_result *out,
                                          kvplan_error *err)
{
    KVPLAN__FAIL_IF(r == NULL || options == NULL || out == NULL, err,
                    KVPLAN_INVALID_ARGUMENT, NULL,
                    "kvplan_trtllm_log_reconcile: readings, options and out "
                    "must not be NULL");
    memset(out, 0, sizeof *out);
    kvplan_engine_options o = *options;
    o.engine = KVPLAN_ENGINE_TRTLLM;
    if (r->tokens_per_block.set && r->tokens_per_block.value > 0)
        o.tokens_per_block = r->tokens_per_block;
    if (r->max_batch_size.set && r->max_batch_size.value > 0)
        o.max_num_seqs = r->max_batch_size;
    if (r->max_num_tokens.set && r->max_num_tokens.value > 0)
        o.max_num_batched_tokens = r->max_num_tokens;
    if (model == NULL)
        cause(out, KVPLAN_CAUSE_MODEL_NOT_PLANNED, "model", "%s",
              model_error != NULL && model_error[0] ? model_error
                                                    : "no model was given "
                                                      "(--model-path)");
    /* the manager the log's lines are, whatever the options say; Gemma
     * 4's is V2 whatever either says (its quota line missing: a log cut
     * short, or a release before V2 took it) */
    bool forced = model != NULL && kvplan__trtllm_gemma4(model);
    bool v2 = r->v2_quota_gib.set;
    out->kv_cache_manager = v2 || forced ? 2 : 1;
    if (forced && !v2) {
        cause(out, KVPLAN_CAUSE_MISSING_READING, "manager",
              "TensorRT-LLM takes KV cache manager V2 for Gemma 4, whose "
              "\"KV cache manager v2 device quota set to\" line this log "
              "lacks: cut short, or a release before V2 took Gemma 4");
        return KVPLAN_OK;
    }
    /* the release the log names picks the rules; the manager is the
     * log's, whatever the options or that release's default say */
    kvplan_trtllm_profile release;
    if (kvplan_trtllm_profile_parse(r->version, &release, NULL) == KVPLAN_OK)
        o.trtllm_version = release;
    bool given =
        options->use_kv_cache_manager_v2 || options->no_use_kv_cache_manager_v2;
    int want = given           ? (options->use_kv_cache_manager_v2 ? 2 : 1)
               : model != NULL ? kvplan__trtllm_default_manager(model, &o)
                               : 0;
    if (!forced && want != 0 && want != (v2 ? 2 : 1))
        cause(out, KVPLAN_CAUSE_OLDER_RULES, "manager",
              "the log's lines are KV cache manager V%d's; kvplan follows the "
              "log, not %s",
              v2 ? 2 : 1,
              given ? (v2 ? "--no-use-kv-cache-manager-v2"
                          : "--use-kv-cache-manager-v2")
              : v2  ? "the release's default for this model, V1"
                    : "the release's default for this model, V2 "
                      "(use_kv_cache_manager_v2: false, or an older release)");
    o.use_kv_cache_manager_v2 = v2;
    o.no_use_kv_cache_manager_v2 = !v2;
    if (v2) {
        v2_pool(model, &o, r, out);
        return KVPLAN_OK;
    }
    if (model != NULL && r->kv_cache_tokens.set && r->allocated_gib.set)
        KVPLAN__TRY(pool_check(model, &o, r, out, err));
    kvplan_opt_double avail = kvplan__trtllm_log_budget(r);
    if (!avail.set) {
        cause(out, KVPLAN_CAUSE_MISSING_READING, "available",
              "the log prints no \"available KV cache memory when "
              "calculating max tokens\" or \"Estimated max memory in KV "
              "cache\" line");
        return KVPLAN_OK;
    }
    if (model == NULL &&
        !(r->kv_bytes_per_token.set && r->kv_bytes_per_token.value > 0))
        return KVPLAN_OK; /* nothing to divide by */
    int64_t tpb = o.tokens_per_block.set ? o.tokens_per_block.value : 32;
    out->available_lo = (int64_t)ceil((avail.value - 0.005) * GIB);
    out->available_hi = (int64_t)floor((avail.value + 0.005) * GIB);
    if (out->available_lo < 0)
        out->available_lo = 0;
    int64_t bpt = 0;
    KVPLAN__TRY(end_at(model, &o, r, out->available_lo, tpb,
                       &out->max_tokens_lo, &out->tokens_lo, &bpt, err));
    KVPLAN__TRY(end_at(model, &o, r, out->available_hi, tpb,
                       &out->max_tokens_hi, &out->tokens_hi, &bpt, err));
    out->interval = true;
    out->bytes_per_token = model != NULL ? bpt : 0;
    out->bytes_match = model != NULL && r->kv_bytes_per_token.set &&
                       r->kv_bytes_per_token.value == bpt;
    if (model != NULL && r->kv_bytes_per_token.set && !out->bytes_match)
        cause(out, KVPLAN_CAUSE_OUTSIDE, "bytes_per_token",
              "the log's kv size is %lld bytes a token, kvplan's %lld",
              (long long)r->kv_bytes_per_token.value, (long long)bpt);
    bool in = true;
    if (r->max_tokens.set)
        in &= out->max_tokens_lo <= r->max_tokens.value &&
              r->max_tokens.value <= out->max_tokens_hi;
    if (r->kv_cache_tokens.set)
        in &= out->tokens_lo <= r->kv_cache_tokens.value &&
              r->kv_cache_tokens.value <= out->tokens_hi;
    out->inside = in && (r->max_tokens.set || r->kv_cache_tokens.set);
    if (!r->max_tokens.set && !r->kv_cache_tokens.set)
        cause(out, KVPLAN_CAUSE_MISSING_READING, "tokens",
              "the log prints neither max_tokens nor the tokens allocated");
    else if (!in)
        cause(out, KVPLAN_CAUSE_OUTSIDE, "tokens",
              "from the log's own %.2f GiB kvplan gives max_tokens "
              "%lld-%lld and %lld-%lld tokens in the pool; the log printed "
              "%lld and %lld",
              avail.value, (long long)out->max_tokens_lo,
              (long long)out->max_tokens_hi, (long long)out->tokens_lo,
              (long long)out->tokens_hi,
              (long long)(r->max_tokens.set ? r->max_tokens.value : -1),
              (long long)(r->kv_cache_tokens.set ? r->kv_cache_tokens.value
                                                 : -1));
    return KVPLAN_OK;
}

kvplan_status kvplan_trtllm_log_calibrate(const kvplan_trtllm_log_readings *r,
                                          const kvplan_engine_options *o,
                                          kvplan_trtllm_calibration *out,
                                          kvplan_error *err)
{
    KVPLAN__FAIL_IF(r == NULL || o == NULL || out == NULL, err,
                    KVPLAN_INVALID_ARGUMENT, NULL,
                    "kvplan_trtllm_log_calibrate: readings, options and out "
                    "must not be NULL");
    memset(out, 0, sizeof *out);
    kvplan_opt_double avail = kvplan__trtllm_log_budget(r);
    const char *missing =
        !r->weights_gib.set         ? "\"Memory used after loading model "
                                      "weights (inside torch)\""
        : !r->outside_torch_gib.set ? "\"Memory used outside torch\""
        : !avail.set                ? "\"available KV cache memory when "
                                      "calculating max tokens\" or "
                                      "\"Estimated max memory in KV cache\""
                                    : NULL;
    KVPLAN__FAIL_IF(missing != NULL, err, KVPLAN_INVALID_ARGUMENT,
                    "--calibrate",
                    "--calibrate: the log prints no %s, which a calibration "
                    "needs",
                    missing);
    KVPLAN__FAIL_IF(!r->total_gib.set && !o->gpu_set, err,
                    KVPLAN_INVALID_ARGUMENT, "--gpu",
                    "--calibrate: the log prints no device total; name its "
                    "GPU with --gpu");
    /* CUDA's total as kvplan__engine_terms takes it */
    double total = r->total_gib.value * GIB;
    out->total_from_log = !o->gpu_set;
    if (o->gpu_set)
        total = kvplan__gpu_cuda_total(&o->gpu, NULL);
    out->total_gib = total / GIB;
    out->fraction = r->fraction.set ? r->fraction.value
                    : o->free_gpu_memory_fraction.set
                        ? o->free_gpu_memory_fraction.value
                        : 0.9;
    out->printed_activation_gib =
        r->activation_gib.set ? r->activation_gib.value : -1;
    double w = r->weights_gib.value * GIB,
           nt = r->outside_torch_gib.value * GIB;
    double rest = total - avail.value * GIB / out->fraction - w - nt;
    KVPLAN__FAIL_IF(!(rest > 0) || !(out->fraction > 0), err,
                    KVPLAN_INVALID_ARGUMENT, "--gpu",
                    "--calibrate: on %.2f GiB at fraction %.4g the log's "
                    "weights (%.2f GiB), memory outside torch (%.2f GiB) and "
                    "available memory (%.2f GiB) leave nothing for the "
                    "activation: not the GPU it ran on",
                    out->total_gib, out->fraction, r->weights_gib.value,
                    r->outside_torch_gib.value, avail.value);
    out->rank_weight_bytes = (int64_t)w;
    out->non_torch_bytes = (int64_t)nt;
    out->activation_bytes = (int64_t)rest;
    return kvplan__ok(err);
}
