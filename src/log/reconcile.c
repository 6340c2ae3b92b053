/*
 * reconcile.c: a log's readings against kvplan (docs/log.md).
 *
 * sglang hands the configurator trunc((after - before * (1 - f)) * 2^30)
 * bytes (§3.1), from the free memory before and after loading the weights.
 * A log prints both with 2 decimals, so the bytes lie in an interval; the
 * plan is run at each end with the log's own figures standing in for
 * kvplan's modelled context and weights (a one-off calibration), so the
 * mamba reservation, the PP minimum and finalize all apply as sglang
 * applied them. Then the plan kvplan models without the log is set beside
 * it, and each difference it can explain gets a named cause.
 */
#include "log/log.h"
#include "model/model.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#define GIB 1073741824.0

static const char *const cause_names[] = {
    NULL,       "model_not_planned", "missing_reading", "flag_not_shown",
    "busy_gpu", "older_rules",       "speculative",     "weights",
    "outside",  "gpu_mismatch",      "context"};

const char *kvplan_log_cause_name(kvplan_log_cause_code code)
{
    return code >= KVPLAN_CAUSE_MODEL_NOT_PLANNED &&
                   code <= KVPLAN_CAUSE_CONTEXT
               ? cause_names[code]
               : "?";
}

KVPLAN_PRINTF(4, 5)
static void cause(kvplan_log_result *out, kvplan_log_cause_code code,
                  const char *row, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kvplan__log_vcause(out->causes, &out->num_causes, code, row, fmt, ap);
    va_end(ap);
}

kvplan_opt_double kvplan_log_weights_gib(const kvplan_log_readings *r)
{
    if (r == NULL || r->weights_gib.set)
        return r != NULL ? r->weights_gib : (kvplan_opt_double){0, false};
    if (r->free_before_gib.set && r->free_after_gib.set)
        return (kvplan_opt_double){
            r->free_before_gib.value - r->free_after_gib.value, true};
    return (kvplan_opt_double){0, false};
}

/* A server argument the log prints as a word, read as sglang reads its
 * flag (any case where sglang's choices are, aliases too); one kvplan
 * does not know is named by its flag. */
static kvplan_status log_word(kvplan_word_set set, const char *arg,
                              const char *word, int *value, kvplan_error *err)
{
    char flag[40] = "--";
    for (size_t i = 0; arg[i] != '\0' && i + 3 < sizeof flag; i++)
        flag[i + 2] = arg[i] == '_' ? '-' : arg[i];
    KVPLAN__FAIL_IF(!kvplan_word_value(set, word, value), err,
                    KVPLAN_INVALID_ARGUMENT, flag,
                    "the log's %s='%s' is not one of sglang's %s choices "
                    "kvplan knows",
                    arg, word, flag);
    return KVPLAN_OK;
}

kvplan_status kvplan_log_options(const kvplan_log_readings *r,
                                 kvplan_plan_options *o, kvplan_error *err)
{
    KVPLAN__FAIL_IF(r == NULL || o == NULL, err, KVPLAN_INVALID_ARGUMENT, NULL,
                    "kvplan_log_options: readings and options must "
                    "not be NULL");
    const kvplan_log_args *a = &r->args;
    kvplan_server_args *s = &o->server;
    /* the sglang the log names, when kvplan has its profile */
    kvplan_sglang_profile named;
    if (r->sglang_version[0] != '\0' &&
        kvplan_sglang_profile_parse(r->sglang_version, &named, NULL) ==
            KVPLAN_OK)
        o->sglang_version = named;
    if (a->tp_size.set)
        s->tp_size = a->tp_size.value;
    else if (r->ranks > 1)
        s->tp_size = r->ranks; /* the TPn prefixes count them */
    if (a->pp_size.set)
        s->pp_size = a->pp_size.value;
    if (a->dp_size.set)
        s->dp_size = a->dp_size.value;
    if (a->ep_size.set)
        o->ep_size = a->ep_size.value;
    if (a->page_size.set)
        s->page_size = a->page_size.value;
    if (a->context_length.set)
        s->context_length = a->context_length;
    if (a->chunked_prefill_size.set)
        s->chunked_prefill_size = a->chunked_prefill_size;
    if (a->max_running_requests.set)
        s->max_running_requests = a->max_running_requests;
    if (a->speculative_num_steps.set)
        s->speculative_num_steps = a->speculative_num_steps;
    if (a->speculative_eagle_topk.set)
        s->speculative_eagle_topk = a->speculative_eagle_topk;
    if (a->speculative_num_draft_tokens.set)
        s->speculative_num_draft_tokens = a->speculative_num_draft_tokens;
    if (a->max_prefill_tokens.set)
        o->max_prefill_tokens = a->max_prefill_tokens;
    if (a->max_total_tokens.set)
        o->max_total_tokens = a->max_total_tokens;
    if (a->cuda_graph_max_bs.set)
        o->cuda_graph_max_bs = a->cuda_graph_max_bs;
    if (a->mem_fraction_static.set) {
        o->mem_fraction_static = a->mem_fraction_static;
        o->mem_fraction_printed = true;
    }
    if (a->enable_dp_attention.set)
        s->enable_dp_attention = a->enable_dp_attention.value != 0;
    if (a->disable_cuda_graph.set)
        o->disable_cuda_graph = a->disable_cuda_graph.value != 0;
    if (a->disable_radix_cache.set)
        s->disable_radix_cache = a->disable_radix_cache.value != 0;
    int v;
    if (a->kv_cache_dtype[0] != '\0') {
        KVPLAN__TRY(log_word(KVPLAN_WORDS_KV_CACHE_DTYPE, "kv_cache_dtype",
                             a->kv_cache_dtype, &v, err));
        s->kv_cache_dtype = (kvplan_kv_cache_dtype_flag)v;
    }
    if (a->dtype[0] != '\0') {
        KVPLAN__TRY(log_word(KVPLAN_WORDS_DTYPE, "dtype", a->dtype, &v, err));
        s->dtype = (kvplan_dtype_flag)v;
    }
    if (a->speculative_algorithm[0] != '\0') {
        /* sglang prints it upper-case ('EAGLE3') */
        KVPLAN__TRY(log_word(KVPLAN_WORDS_SPECULATIVE_ALGORITHM,
                             "speculative_algorithm", a->speculative_algorithm,
                             &v, err));
        s->speculative_algorithm = (kvplan_spec_algorithm)v;
    }
    if (a->attention_backend[0] != '\0')
        o->attention_backend = a->attention_backend;
    if (a->quantization[0] != '\0')
        o->quantization = a->quantization;
    if (a->model_path[0] != '\0')
        o->model_path = a->model_path;
    return kvplan__ok(err);
}

/* The smallest preset that holds `gib` free with its context: the GPU a
 * log names none of (its defaults: memory tiers, the fraction rule). */
static bool infer_gpu(double gib, kvplan_gpu *gpu)
{
    bool found = false;
    kvplan_gpu g;
    for (size_t i = 0; kvplan_gpu_preset_at(i, &g); i++) {
        if (g.total_mib / 1024.0 >= gib + 0.3 &&
            (!found || g.total_mib < gpu->total_mib)) {
            *gpu = g;
            found = true;
        }
    }
    if (!found) { /* larger than any preset: the largest, made to fit */
        for (size_t i = 0; kvplan_gpu_preset_at(i, &g); i++)
            if (i == 0 || g.total_mib > gpu->total_mib)
                *gpu = g;
        gpu->total_mib = (gib + 1) * 1024;
        snprintf(gpu->name, sizeof gpu->name, "custom");
    }
    return found;
}

/* One plan at the log's own free figures `before` and `after` (GiB). */
static kvplan_status plan_at(const kvplan_model *m,
                             const kvplan_plan_options *base, double before,
                             double after, kvplan_plan *p, kvplan_error *err)
{
    kvplan_plan_options o = *base;
    double total = o.gpu.total_mib * 1048576.0;
    o.context_bytes = (kvplan_opt_int){(int64_t)(total - before * GIB), true};
    o.rank_weight_bytes =
        (kvplan_opt_int){(int64_t)((before - after) * GIB), true};
    o.draft_weight_bytes = (kvplan_opt_int){0, true}; /* in `after` */
    o.available_bytes.set = false;
    return kvplan_plan_compute(m, &o, p, err);
}

/* The weights of one rank a plan holds, GiB (its binding stage's). */
static double plan_weights_gib(const kvplan_plan *p)
{
    const kvplan_stage_plan *sp = &p->stages[p->binding_stage];
    return (double)(sp->weight_bytes + sp->draft_weight_bytes) / GIB;
}

/* The causes the modelled plan explains: free memory before loading, the
 * weights. */
static void compare_modelled(const kvplan_model *m,
                             const kvplan_log_readings *r,
                             const kvplan_plan_options *o, bool inferred,
                             kvplan_log_result *out)
{
    if (r->free_before_gib.set) {
        double log = r->free_before_gib.value, idle = out->free_before_gib;
        double taken = o->gpu.total_mib / 1024.0 - log;
        if (log < idle - fmax(1.0, 0.01 * idle)) {
            if (!inferred && r->distributed_gib.set &&
                r->distributed_gib.value >= 0.5 * taken)
                /* most of what was gone before loading was sglang's own
                 * torch.distributed init: its communicators, not a stranger
                 * (tests/logs/22: 7.8 GB at TP8 where 0.5.8's took 3.8) */
                cause(out, KVPLAN_CAUSE_CONTEXT, "free_before",
                      "%.2f GiB free before loading, %.2f GiB below an idle "
                      "%s's %.2f GiB: this build's own torch.distributed init "
                      "took %.2f GiB of the %.2f GiB gone (\"Init torch "
                      "distributed ends. mem usage\"), more than kvplan's "
                      "context for it; plan with the log's figures (kvplan log "
                      "--calibrate)",
                      log, idle - log, o->gpu.name, idle,
                      r->distributed_gib.value, taken);
            else if (inferred)
                cause(out, KVPLAN_CAUSE_BUSY_GPU, "free_before",
                      "%.2f GiB free before loading is less than any GPU "
                      "kvplan knows has idle (the smallest, %s, %.2f GiB): "
                      "another process held GPU memory",
                      log, o->gpu.name, idle);
            else
                cause(out, KVPLAN_CAUSE_BUSY_GPU, "free_before",
                      "%.2f GiB free before loading, %.2f GiB below an idle "
                      "%s's %.2f GiB: another process held GPU memory, or "
                      "the GPU is not a %s",
                      log, idle - log, o->gpu.name, idle, o->gpu.name);
        }
    }
    kvplan_opt_double shown = kvplan_log_weights_gib(r);
    if (!shown.set)
        return;
    double log_w = shown.value, est = out->weights_gib, diff = log_w - est;
    if (fabs(diff) <= fmax(0.05, 0.02 * est))
        return;
    /* 2024 builds: a tied embedding loaded twice (lm_head its own copy) */
    const kvplan_model_info *info = kvplan_model_get_info(m);
    double head = (double)info->vocab_size * (double)info->hidden_size *
                  (double)kvplan_dtype_size(info->dtype) /
                  (double)(o->server.tp_size > 0 ? o->server.tp_size : 1) / GIB;
    if (m->weights.tied_embeddings && r->date[0] != '\0' &&
        strncmp(r->date, "2025", 4) < 0 &&
        fabs(diff - head) < 0.05 + 0.1 * head)
        cause(out, KVPLAN_CAUSE_OLDER_RULES, "weights",
              "the log's %.2f GiB of weights are %.2f GiB above kvplan's: "
              "sglang builds of 2024 (this log's is of %s) loaded an untied "
              "lm_head copy of tied embeddings (vocab x hidden: %.2f GiB)",
              log_w, diff, r->date, head);
    else
        cause(out, KVPLAN_CAUSE_WEIGHTS, "weights",
              "the log's %.2f GiB of weights per rank differ from kvplan's "
              "estimate from config.json (%.2f GiB) by %+.2f GiB: tensors "
              "or a quantization the estimate does not see; the log's "
              "figure is the one to plan with (kvplan log --calibrate)",
              log_w, est, diff);
}

/* sglang's own check at TP > 1: a rank with less than 90 % of another's
 * free memory before loading is "unbalanced" (another process on it). */
static void unbalanced(const kvplan_log_readings *r, kvplan_log_result *out)
{
    const kvplan_log_rank *lo = NULL, *hi = NULL;
    for (size_t i = 0; i < r->num_rank_readings; i++) {
        const kvplan_log_rank *k = &r->rank_readings[i];
        if (!k->free_before_gib.set)
            continue;
        if (lo == NULL || k->free_before_gib.value < lo->free_before_gib.value)
            lo = k;
        if (hi == NULL || k->free_before_gib.value > hi->free_before_gib.value)
            hi = k;
    }
    if (lo != NULL &&
        lo->free_before_gib.value < 0.9 * hi->free_before_gib.value)
        cause(out, KVPLAN_CAUSE_BUSY_GPU, "free_before",
              "TP%lld had %.2f GiB free before loading, below 90 %% of "
              "TP%lld's %.2f GiB: sglang calls the ranks unbalanced (another "
              "process on that GPU), and the least free rank sizes them all",
              (long long)lo->rank, lo->free_before_gib.value,
              (long long)hi->rank, hi->free_before_gib.value);
}

/* No model to plan: the causes, and the readings alone. */
static void not_planned(const kvplan_log_readings *r, const char *model_error,
                        kvplan_log_result *out)
{
    if (strncmp(r->model_class, "Mllama", 6) == 0)
        cause(out, KVPLAN_CAUSE_MODEL_NOT_PLANNED, "model",
              "the log loaded %s, a cross-attention model: sglang's "
              "reference version has no class for it, so kvplan has no "
              "rule for its pools; the readings are shown, with no "
              "interval",
              r->model_class);
    cause(out, KVPLAN_CAUSE_MODEL_NOT_PLANNED, "model", "%s",
          model_error != NULL && model_error[0] != '\0'
              ? model_error
              : "no model to plan: the log names none (pass "
                "--model-path)");
}

/* What sglang's free-memory reading after the printed "Load weight end"
 * may lack of it (GiB): that later reading, not the printed one, sizes the
 * pools; ten public 2025-2026 launches landed 7-35 MB below the printed
 * figure's interval (issue 26). */
#define LATE_READING_GIB (35.0 / 1024)

/* The interval of tokens the log's printed figures allow (each within
 * 0.005 GiB, the free memory after loading down to LATE_READING_GIB
 * less), and whether the log's count lies in it. */
static void interval(const kvplan_model *m, const kvplan_log_readings *r,
                     kvplan_plan_options o, kvplan_plan *work,
                     kvplan_log_result *out)
{
    kvplan_error e;
    double f = out->mem_fraction_static;
    double b = r->free_before_gib.value, a = r->free_after_gib.value;
    if (o.gpu.total_mib / 1024.0 < b + 0.005) {
        cause(out, KVPLAN_CAUSE_GPU_MISMATCH, "free_before",
              "the %s has %.2f GiB, less than the %.2f GiB the log saw free "
              "before loading: the log ran on another GPU; the interval "
              "uses the smallest preset that holds it",
              o.gpu.name, o.gpu.total_mib / 1024.0, b);
        infer_gpu(b, &o.gpu);
    }
    o.mem_fraction_static = (kvplan_opt_double){f, true};
    double ends[2][2] = {{b + 0.005, a - 0.005 - LATE_READING_GIB},
                         {b - 0.005, a + 0.005}};
    int64_t tokens[2], avail[2];
    for (int i = 0; i < 2; i++) {
        double rest = ends[i][1] - ends[i][0] * (1 - f);
        avail[i] = rest > 0 ? (int64_t)(rest * GIB) : 0;
        kvplan_status st = plan_at(m, &o, ends[i][0], ends[i][1], work, &e);
        if (st == KVPLAN_NOT_ENOUGH_MEMORY) {
            tokens[i] = 0;
        } else if (st != KVPLAN_OK) {
            cause(out, KVPLAN_CAUSE_MODEL_NOT_PLANNED, "tokens", "%s",
                  e.message);
            return;
        } else {
            tokens[i] = work->max_total_num_tokens;
            avail[i] = work->stages[work->binding_stage].available_bytes;
        }
    }
    out->interval = true;
    out->available_lo = avail[0];
    out->available_hi = avail[1];
    out->tokens_lo = tokens[0];
    out->tokens_hi = tokens[1];
    if (!out->logged_tokens.set) {
        cause(out, KVPLAN_CAUSE_MISSING_READING, "tokens",
              "no \"max_total_num_tokens=\" or \"#tokens:\" line: nothing "
              "to compare the interval with");
        return;
    }
    int64_t n = out->logged_tokens.value;
    out->inside = n >= out->tokens_lo && n <= out->tokens_hi;
    if (!out->inside) {
        if (r->args.speculative_algorithm[0] != '\0')
            cause(out, KVPLAN_CAUSE_SPECULATIVE, "tokens",
                  "the log's %lld tokens lie outside [%lld, %lld] and it "
                  "runs %s: its draft's KV is sized with the log's draft "
                  "model, which kvplan did not load (pass "
                  "--speculative-draft-model-path)",
                  (long long)n, (long long)out->tokens_lo,
                  (long long)out->tokens_hi, r->args.speculative_algorithm);
        else
            cause(out, KVPLAN_CAUSE_OUTSIDE, "tokens",
                  "the log's %lld tokens lie outside [%lld, %lld]: its "
                  "sglang sized the pool by a rule kvplan does not follow "
                  "(a flag the log cut, or another version's)",
                  (long long)n, (long long)out->tokens_lo,
                  (long long)out->tokens_hi);
    }
}

kvplan_status kvplan_log_reconcile(const kvplan_model *m,
                                   const char *model_error,
                                   const kvplan_log_readings *r,
                                   const kvplan_plan_options *options,
                                   kvplan_plan *work, kvplan_log_result *out,
                                   kvplan_error *err)
{
    KVPLAN__FAIL_IF(r == NULL || options == NULL || work == NULL || out == NULL,
                    err, KVPLAN_INVALID_ARGUMENT, NULL,
                    "kvplan_log_reconcile: readings, options, work and out "
                    "must not be NULL");
    memset(out, 0, sizeof *out);
    out->logged_tokens =
        r->max_total_num_tokens.set ? r->max_total_num_tokens : r->kv_tokens;
    if (m == NULL) {
        not_planned(r, model_error, out);
        return kvplan__ok(err);
    }
    kvplan_plan_options o = *options;
    bool inferred = false;
    if (!o.gpu_set) {
        /* the log names no GPU: the smallest that holds its free memory */
        double gib = r->free_before_gib.set ? r->free_before_gib.value : 0;
        infer_gpu(gib, &o.gpu);
        o.gpu_set = true;
        inferred = true;
    }
    KVPLAN__TRY(kvplan_plan_options_validate(&o, err));
    kvplan_error e;
    /* the plan kvplan models, no log figure in it */
    if (kvplan_plan_compute(m, &o, work, &e) == KVPLAN_OK) {
        out->modelled = true;
        out->free_before_gib = work->budget.pre_load_gib;
        out->free_after_gib = work->budget.post_load_gib;
        out->weights_gib = plan_weights_gib(work);
        out->tokens = work->max_total_num_tokens;
        out->kv_bytes = work->stages[work->binding_stage].allocation.kv_bytes;
        out->max_running_requests = work->max_running_requests;
        out->context_len = work->context_len;
        out->mem_fraction_static = work->budget.mem_fraction_static;
    } else if (e.code != KVPLAN_NOT_ENOUGH_MEMORY) {
        cause(out, KVPLAN_CAUSE_MODEL_NOT_PLANNED, "model", "%s", e.message);
        return kvplan__ok(err);
    }
    if (!r->args.present)
        cause(out, KVPLAN_CAUSE_FLAG_NOT_SHOWN, "server_args",
              "the log has no server_args line: every flag kvplan did not "
              "get on its command line is sglang's default%s",
              r->ranks > 1 ? ", but tp_size, from the log's TPn prefixes" : "");
    else if (!r->args.tp_size.set && r->ranks > 1)
        cause(out, KVPLAN_CAUSE_FLAG_NOT_SHOWN, "tp_size",
              "the log prints no tp_size: %lld ranks from its TPn prefixes",
              (long long)r->ranks);
    out->fraction_from_log = r->args.mem_fraction_static.set;
    if (out->fraction_from_log) {
        /* the fraction sglang used: the printed one, and the aiter
         * backend's factor where that sglang made it after printing */
        out->mem_fraction_static = r->args.mem_fraction_static.value;
        if (out->modelled && (work->rules & KVPLAN_RULE_AITER_IN_MODEL_RUNNER))
            out->mem_fraction_static *= work->budget.aiter_factor;
    } else if (out->modelled) {
        cause(out, KVPLAN_CAUSE_FLAG_NOT_SHOWN, "mem_fraction_static",
              "the log prints no mem_fraction_static: kvplan's rule for "
              "the %s gives %.4g",
              o.gpu.name, out->mem_fraction_static);
        o.mem_fraction_static =
            (kvplan_opt_double){out->mem_fraction_static, true};
    }
    out->gpu = o.gpu;
    out->gpu_inferred = inferred;
    if (out->modelled)
        compare_modelled(m, r, &o, inferred, out);
    unbalanced(r, out);
    if (out->modelled && r->max_running_requests.set &&
        r->max_running_requests.value == out->max_running_requests + 1)
        cause(out, KVPLAN_CAUSE_OLDER_RULES, "max_running_requests",
              "the log's %lld is kvplan's %lld plus one: its build printed "
              "the req_to_token pool's size (max_num_reqs + 1, slot 0 a "
              "padding slot) where the reference prints the requests",
              (long long)r->max_running_requests.value,
              (long long)out->max_running_requests);
    if (!r->free_before_gib.set || !r->free_after_gib.set) {
        cause(out, KVPLAN_CAUSE_MISSING_READING, "available_bytes",
              "no \"Load weight %s\" line: the bytes sglang handed the "
              "configurator cannot be read back",
              !r->free_before_gib.set ? "begin. avail mem="
                                      : "end. avail mem=");
        return kvplan__ok(err);
    }
    if (!out->fraction_from_log && !out->modelled) {
        cause(out, KVPLAN_CAUSE_MISSING_READING, "mem_fraction_static",
              "the log prints no mem_fraction_static and kvplan's rule "
              "could not be applied");
        return kvplan__ok(err);
    }
    interval(m, r, o, work, out);
    return kvplan__ok(err);
}
