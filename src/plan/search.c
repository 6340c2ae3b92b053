/*
 * search.c: the questions operators ask of a plan, answered by forward
 * plans alone (docs/capacity.md): the longest context at N requests
 * (kvplan_fit_context) and the smallest value of one knob that reaches a
 * target (kvplan_solve). Each answer is a plan kvplan_plan_compute gives
 * for it, and the step beyond it is checked not to reach: a search can
 * never disagree with the plan it names.
 *
 * A plan that does not fit (KVPLAN_NOT_ENOUGH_MEMORY, KVPLAN_OVERFLOW) is
 * a "no" for the search; an error that no value of the knob changes is
 * returned as it is.
 */
#include "plan/plan.h"

#include <stdio.h>
#include <string.h>

/* One forward plan, classified. */
typedef enum probe_result {
    PROBE_REACHES,
    PROBE_SHORT, /* plans, below the target */
    PROBE_LOW,   /* does not plan: too little memory for it */
    PROBE_HIGH,  /* does not plan: sglang could not start, the fraction
                    leaves too little outside the KV cache */
    PROBE_ERROR  /* any other failure: `st` */
} probe_result;

typedef struct search {
    const kvplan_model *m;
    kvplan_plan_options o; /* the knob is turned in this copy */
    kvplan_target t;
    kvplan_plan *work;
    kvplan_error err; /* the last probe's */
    kvplan_status st;
    int64_t figure; /* the last plan's, when it planned */
    int64_t best;
    kvplan_limit best_binding; /* what bounds the best plan's figure */
    int64_t plans;
    bool not_monotone; /* the step below the answer reaches too */
} search;

static int64_t figure_of(const search *s, const kvplan_plan *p)
{
    return s->t.tokens > 0 ? p->max_total_num_tokens
                           : p->capacity.max_concurrency_at_context_len;
}

static probe_result probe(search *s)
{
    s->plans++;
    s->st = kvplan_plan_compute(s->m, &s->o, s->work, &s->err);
    if (s->st == KVPLAN_OK) {
        s->figure = figure_of(s, s->work);
        if (s->figure > s->best) {
            s->best = s->figure;
            s->best_binding =
                s->t.tokens > 0 ? KVPLAN_LIMIT_POOL : s->work->capacity.binding;
        }
        return s->figure >= (s->t.tokens > 0 ? s->t.tokens : s->t.concurrency)
                   ? PROBE_REACHES
                   : PROBE_SHORT;
    }
    s->figure = 0;
    if (s->st == KVPLAN_NOT_ENOUGH_MEMORY)
        return s->work->budget.fixed_gib > s->work->budget.slack_gib &&
                       !s->work->budget.given
                   ? PROBE_HIGH
                   : PROBE_LOW;
    if (s->st == KVPLAN_OVERFLOW)
        return PROBE_LOW;
    return PROBE_ERROR;
}

static kvplan_status error_out(search *s, kvplan_error *err)
{
    if (err != NULL)
        *err = s->err;
    return s->st;
}

/* ---- fit ----------------------------------------------------------------- */

/* No context length reaches `concurrency`: the limit that binds at 1
 * token named, with the flag that moves it. */
static kvplan_status fit_none(search *s, int64_t concurrency, kvplan_error *err)
{
    if (s->st != KVPLAN_OK)
        return kvplan__fail(err, KVPLAN_NOT_ENOUGH_MEMORY, "--concurrency",
                            "%lld requests do not fit at any context length: "
                            "at 1 token %s",
                            (long long)concurrency, s->err.message);
    const kvplan_capacity *c = &s->work->capacity;
    bool given = s->o.server.max_running_requests.set;
    /* a cap given above what the tokens allow is cut to them: memory */
    bool cut = given &&
               c->max_running_requests < s->o.server.max_running_requests.value;
    if ((c->binding == KVPLAN_LIMIT_MAX_RUNNING_REQUESTS ||
         c->binding == KVPLAN_LIMIT_REQ_TO_TOKEN) &&
        !cut) {
        return kvplan__fail(
            err, KVPLAN_INVALID_CONFIG, "--max-running-requests",
            "%lld requests never run at once: sglang's max_running_requests "
            "is %lld here (%s), so the request cap binds, not memory; %s "
            "--max-running-requests %lld",
            (long long)concurrency, (long long)c->max_running_requests,
            given ? "as given" : "its default: at most 4096",
            given ? "raise it:" : "pass", (long long)concurrency);
    }
    return kvplan__fail(
        err, KVPLAN_NOT_ENOUGH_MEMORY, "--concurrency",
        "%lld requests do not fit at any context length: at 1 token the "
        "pools hold %lld of them (memory binds: --tp-size, --gpu, "
        "--mem-fraction-static or --kv-cache-dtype fp8_e4m3 move it)",
        (long long)concurrency, (long long)c->max_concurrency_at_context_len);
}

const char *kvplan__limit_remedy(kvplan_limit limit)
{
    switch (limit) {
    case KVPLAN_LIMIT_POOL:
        return "memory: --tp-size, --gpu, --mem-fraction-static or "
               "--kv-cache-dtype move it";
    case KVPLAN_LIMIT_CONTEXT_LEN:
        return "the context length: --context-length moves it";
    case KVPLAN_LIMIT_MAX_RUNNING_REQUESTS:
    case KVPLAN_LIMIT_REQ_TO_TOKEN:
        return "the request cap: --max-running-requests moves it";
    default:
        return "no value planned";
    }
}

kvplan_status kvplan_fit_context(const kvplan_model *model,
                                 const kvplan_plan_options *options,
                                 int64_t concurrency, kvplan_plan *work,
                                 int64_t *context_len, kvplan_error *err)
{
    KVPLAN__FAIL_IF(model == NULL || options == NULL || work == NULL ||
                        context_len == NULL,
                    err, KVPLAN_INVALID_ARGUMENT, NULL,
                    "kvplan_fit_context needs a model, options, a plan to "
                    "work in and an answer to fill; got NULL");
    KVPLAN__FAIL_IF(concurrency < 1, err, KVPLAN_INVALID_ARGUMENT,
                    "--concurrency", "--concurrency must be >= 1, got %lld",
                    (long long)concurrency);
    KVPLAN__TRY(kvplan_plan_options_validate(options, err));
    search s = {.m = model, .o = *options, .work = work};
    s.t.concurrency = concurrency;
    int64_t hi = options->server.context_length.set
                     ? options->server.context_length.value
                     : kvplan_model_get_info(model)->context_len;
    s.o.server.context_length = (kvplan_opt_int){hi, true};
    probe_result r = probe(&s);
    if (r == PROBE_ERROR)
        return error_out(&s, err);
    if (r != PROBE_REACHES) {
        s.o.server.context_length.value = 1;
        r = probe(&s);
        if (r == PROBE_ERROR)
            return error_out(&s, err);
        if (r != PROBE_REACHES)
            return fit_none(&s, concurrency, err);
        /* lo reaches, hi does not */
        int64_t lo = 1;
        while (hi - lo > 1) {
            int64_t mid = lo + (hi - lo) / 2;
            s.o.server.context_length.value = mid;
            r = probe(&s);
            if (r == PROBE_ERROR)
                return error_out(&s, err);
            if (r == PROBE_REACHES)
                lo = mid;
            else
                hi = mid;
        }
        s.o.server.context_length.value = hi = lo;
        if (probe(&s) != PROBE_REACHES)
            return error_out(&s, err);
    }
    *context_len = hi;
    return kvplan__ok(err);
}

/* ---- solve --------------------------------------------------------------- */

const char *kvplan_knob_name(kvplan_knob knob)
{
    switch (knob) {
    case KVPLAN_KNOB_MEM_FRACTION_STATIC:
        return "mem-fraction-static";
    case KVPLAN_KNOB_TP_SIZE:
        return "tp-size";
    case KVPLAN_KNOB_GPU:
        return "gpu";
    case KVPLAN_KNOB_MAX_RUNNING_REQUESTS:
        return "max-running-requests";
    case KVPLAN_KNOB_SWA_FULL_TOKENS_RATIO:
        return "swa-full-tokens-ratio";
    case KVPLAN_KNOB_KV_CACHE_DTYPE:
        return "kv-cache-dtype";
    }
    return NULL;
}

bool kvplan_knob_from_name(const char *name, kvplan_knob *out)
{
    if (name == NULL || out == NULL)
        return false;
    for (int k = KVPLAN_KNOB_MEM_FRACTION_STATIC;
         k <= KVPLAN_KNOB_KV_CACHE_DTYPE; k++)
        if (strcmp(name, kvplan_knob_name((kvplan_knob)k)) == 0) {
            *out = (kvplan_knob)k;
            return true;
        }
    return false;
}

/* Sets value k of a grid knob: 1e-6 steps, or an integer. */
static void set_knob(search *s, kvplan_knob knob, int64_t k)
{
    switch (knob) {
    case KVPLAN_KNOB_MEM_FRACTION_STATIC:
        s->o.mem_fraction_static = (kvplan_opt_double){(double)k / 1e6, true};
        break;
    case KVPLAN_KNOB_SWA_FULL_TOKENS_RATIO:
        s->o.server.swa_full_tokens_ratio =
            (kvplan_opt_double){(double)k / 1e6, true};
        break;
    case KVPLAN_KNOB_MAX_RUNNING_REQUESTS:
        s->o.server.max_running_requests = (kvplan_opt_int){k, true};
        break;
    case KVPLAN_KNOB_TP_SIZE:
        s->o.server.tp_size = k;
        break;
    default:
        break;
    }
}

/* A yes/no of the grid searches: `high` counts as yes (the boundary
 * beyond which the fraction no longer plans). */
typedef bool (*grid_pred)(search *s, probe_result r);

/* The smallest k in [lo, hi] with pred, pred assumed monotone (no below,
 * yes from it on); hi + 1 when none. PROBE_ERROR stops it (*bad). */
static int64_t smallest(search *s, kvplan_knob knob, int64_t lo, int64_t hi,
                        grid_pred pred, bool *bad)
{
    int64_t no = lo - 1, yes = hi + 1;
    while (yes - no > 1) {
        int64_t mid = no + (yes - no) / 2;
        set_knob(s, knob, mid);
        probe_result r = probe(s);
        if (r == PROBE_ERROR) {
            *bad = true;
            return hi + 1;
        }
        if (pred(s, r))
            yes = mid;
        else
            no = mid;
    }
    return yes;
}

static bool reaches_or_high(search *s, probe_result r)
{
    (void)s;
    return r == PROBE_REACHES || r == PROBE_HIGH;
}

static bool is_high(search *s, probe_result r)
{
    (void)s;
    return r == PROBE_HIGH;
}

/* The sliding-window pool's own count of requests of context_len (the
 * side the ratio raises), or a plan that reaches. */
static bool swa_side(search *s, probe_result r)
{
    if (r == PROBE_REACHES)
        return true;
    if (r != PROBE_SHORT)
        return false;
    const kvplan_capacity *c = &s->work->capacity;
    int64_t cost[KVPLAN_MAX_POOLS];
    if (kvplan_request_cost(c, c->context_len, 0, cost, NULL) != KVPLAN_OK)
        return false;
    for (size_t i = 0; i < c->num_pools; i++)
        if (c->pools[i].kind == KVPLAN_POOL_SWA && cost[i] > 0)
            return (c->pools[i].capacity_tokens - c->pools[i].reserved_tokens) /
                       cost[i] >=
                   s->t.concurrency;
    return true;
}

/* Whether the answer is no answer: the value found does not reach. */
static kvplan_status at(search *s, kvplan_knob knob, int64_t k,
                        kvplan_solution *out)
{
    set_knob(s, knob, k);
    probe_result r = probe(s);
    out->value = knob == KVPLAN_KNOB_MEM_FRACTION_STATIC ||
                         knob == KVPLAN_KNOB_SWA_FULL_TOKENS_RATIO
                     ? (double)k / 1e6
                     : (double)k;
    out->found = r == PROBE_REACHES;
    out->figure = s->figure;
    return r == PROBE_ERROR ? s->st : KVPLAN_OK;
}

static kvplan_status solve_grid(search *s, kvplan_knob knob,
                                kvplan_solution *out)
{
    bool bad = false;
    int64_t k, top;
    switch (knob) {
    case KVPLAN_KNOB_MEM_FRACTION_STATIC:
        top = 999999;
        k = smallest(s, knob, 1, top, reaches_or_high, &bad);
        break;
    case KVPLAN_KNOB_SWA_FULL_TOKENS_RATIO:
        top = 1000000;
        /* the full pool only shrinks as the ratio grows: for tokens, the
         * least ratio; for requests, the least at which the SWA pool
         * holds them */
        k = s->t.tokens > 0 ? 1 : smallest(s, knob, 1, top, swa_side, &bad);
        break;
    case KVPLAN_KNOB_MAX_RUNNING_REQUESTS:
        /* concurrency never passes max_running_requests, and the pools
         * only lose by more of them: the target itself, or none */
        top = (int64_t)1 << 24;
        k = s->t.tokens > 0 ? 1 : s->t.concurrency;
        break;
    default:
        return KVPLAN_INVALID_ARGUMENT;
    }
    if (bad)
        return s->st;
    if (k > top)
        return KVPLAN_OK; /* not found */
    kvplan_status st = at(s, knob, k, out);
    if (st != KVPLAN_OK)
        return st;
    if (!out->found) {
        if (knob == KVPLAN_KNOB_MEM_FRACTION_STATIC) {
            /* refused from k on: the best is just below the refusal */
            int64_t h = smallest(s, knob, 1, k, is_high, &bad);
            if (!bad && h > 1) {
                set_knob(s, knob, h - 1);
                probe(s);
            }
        } else if (knob == KVPLAN_KNOB_SWA_FULL_TOKENS_RATIO && k > 1) {
            set_knob(s, knob, k - 1); /* the other side of the balance */
            probe(s);
        }
        return bad ? s->st : KVPLAN_OK;
    }
    if (k > 1) { /* one step below must not reach */
        set_knob(s, knob, k - 1);
        probe_result r = probe(s);
        if (r == PROBE_ERROR)
            return s->st;
        if (r == PROBE_REACHES) {
            s->not_monotone = true;
            return KVPLAN_UNSUPPORTED;
        }
        set_knob(s, knob, k);
        probe(s); /* the plan at the answer, in work */
    }
    return KVPLAN_OK;
}

/* The presets, least memory first (a stable order: index on ties). */
static size_t gpus_by_memory(kvplan_gpu *out, size_t cap)
{
    size_t n = 0;
    while (n < cap && kvplan_gpu_preset_at(n, &out[n]))
        n++;
    for (size_t i = 1; i < n; i++) {
        kvplan_gpu g = out[i];
        size_t j = i;
        for (; j > 0 && out[j - 1].total_mib > g.total_mib; j--)
            out[j] = out[j - 1];
        out[j] = g;
    }
    return n;
}

static kvplan_status solve_list(search *s, kvplan_knob knob,
                                kvplan_solution *out)
{
    static const kvplan_kv_cache_dtype_flag dtypes[] = {
        KVPLAN_KV_AUTO, KVPLAN_KV_BF16, KVPLAN_KV_FP8_E4M3, KVPLAN_KV_FP8_E5M2,
        KVPLAN_KV_FP4_E2M1};
    kvplan_gpu gpus[64];
    size_t n = knob == KVPLAN_KNOB_GPU       ? gpus_by_memory(gpus, 64)
               : knob == KVPLAN_KNOB_TP_SIZE ? 7
                                             : sizeof dtypes / sizeof dtypes[0];
    kvplan_status first_error = KVPLAN_OK;
    kvplan_error first_err = {0};
    for (size_t i = 0; i < n; i++) {
        if (knob == KVPLAN_KNOB_GPU) {
            s->o.gpu = gpus[i];
            s->o.gpu_set = true;
        } else if (knob == KVPLAN_KNOB_TP_SIZE) {
            s->o.server.tp_size = (int64_t)1 << i;
        } else {
            s->o.server.kv_cache_dtype = dtypes[i];
        }
        probe_result r = probe(s);
        if (r == PROBE_ERROR && first_error == KVPLAN_OK) {
            first_error = s->st; /* a value sglang refuses: the next */
            first_err = s->err;
        }
        if (r == PROBE_REACHES) {
            out->found = true;
            out->figure = s->figure;
            out->value = knob == KVPLAN_KNOB_TP_SIZE ? (double)((int64_t)1 << i)
                                                     : (double)i;
            if (knob == KVPLAN_KNOB_GPU)
                out->gpu = gpus[i];
            if (knob == KVPLAN_KNOB_KV_CACHE_DTYPE)
                out->kv_cache_dtype = dtypes[i];
            return KVPLAN_OK;
        }
    }
    if (s->best == 0 && first_error != KVPLAN_OK) {
        s->st = first_error;
        s->err = first_err;
        return first_error;
    }
    return KVPLAN_OK;
}

kvplan_status kvplan_solve(const kvplan_model *model,
                           const kvplan_plan_options *options, kvplan_knob knob,
                           const kvplan_target *target, kvplan_plan *work,
                           kvplan_solution *out, kvplan_error *err)
{
    KVPLAN__FAIL_IF(model == NULL || options == NULL || target == NULL ||
                        work == NULL || out == NULL,
                    err, KVPLAN_INVALID_ARGUMENT, NULL,
                    "kvplan_solve needs a model, options, a target, a plan "
                    "to work in and a solution to fill; got NULL");
    KVPLAN__FAIL_IF(kvplan_knob_name(knob) == NULL, err,
                    KVPLAN_INVALID_ARGUMENT, "--solve-for",
                    "--solve-for must be one of mem-fraction-static, "
                    "tp-size, gpu, max-running-requests, "
                    "swa-full-tokens-ratio, kv-cache-dtype; got %d",
                    (int)knob);
    KVPLAN__FAIL_IF((target->tokens > 0) == (target->concurrency > 0) ||
                        target->tokens < 0 || target->concurrency < 0,
                    err, KVPLAN_INVALID_ARGUMENT, "--target-tokens",
                    "give one target, --target-tokens T or "
                    "--target-concurrency N, >= 1 (got tokens %lld, "
                    "concurrency %lld)",
                    (long long)target->tokens, (long long)target->concurrency);
    KVPLAN__FAIL_IF(options->available_bytes.set &&
                        (knob == KVPLAN_KNOB_MEM_FRACTION_STATIC ||
                         knob == KVPLAN_KNOB_GPU),
                    err, KVPLAN_INVALID_ARGUMENT, "--available-bytes",
                    "--available-bytes skips the budget that --solve-for %s "
                    "turns; leave it out",
                    kvplan_knob_name(knob));
    KVPLAN__TRY(kvplan_plan_options_validate(options, err));
    *out = (kvplan_solution){.knob = knob};
    search s = {.m = model, .o = *options, .t = *target, .work = work};
    kvplan_status st;
    if (knob == KVPLAN_KNOB_SWA_FULL_TOKENS_RATIO) {
        /* only a model with a sliding-window pool has the knob */
        probe_result r = probe(&s);
        if (r == PROBE_ERROR)
            return error_out(&s, err);
        KVPLAN__FAIL_IF(r != PROBE_LOW && r != PROBE_HIGH &&
                            !work->stages[0].rank.runner.is_hybrid_swa,
                        err, KVPLAN_INVALID_ARGUMENT, "--solve-for",
                        "--solve-for swa-full-tokens-ratio needs a model "
                        "with sliding-window layers; this one has none");
    }
    if (knob == KVPLAN_KNOB_GPU || knob == KVPLAN_KNOB_TP_SIZE ||
        knob == KVPLAN_KNOB_KV_CACHE_DTYPE)
        st = solve_list(&s, knob, out);
    else
        st = solve_grid(&s, knob, out);
    out->best = s.best;
    out->plans = s.plans;
    if (s.not_monotone)
        return kvplan__fail(err, KVPLAN_UNSUPPORTED, "--solve-for",
                            "--solve-for %s: the value below the answer "
                            "reaches the target too (the plan is not "
                            "monotone in it here)",
                            kvplan_knob_name(knob));
    if (st != KVPLAN_OK)
        return error_out(&s, err);
    if (!out->found) {
        char what[64];
        if (target->tokens > 0)
            snprintf(what, sizeof what, "%lld tokens",
                     (long long)target->tokens);
        else
            snprintf(what, sizeof what, "%lld requests at once",
                     (long long)target->concurrency);
        char held[96] = "";
        if (knob != KVPLAN_KNOB_TP_SIZE)
            snprintf(held, sizeof held, " at --tp-size %lld",
                     (long long)options->server.tp_size);
        return kvplan__fail(
            err, KVPLAN_NOT_ENOUGH_MEMORY,
            target->tokens > 0 ? "--target-tokens" : "--target-concurrency",
            "no value of --%s reaches %s%s; the best is "
            "%lld (what binds it, %s)",
            kvplan_knob_name(knob), what, held, (long long)s.best,
            kvplan__limit_remedy(s.best_binding));
    }
    return kvplan__ok(err);
}
