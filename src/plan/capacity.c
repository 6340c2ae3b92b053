/*
 * capacity.c: what a plan's pools hold and what one request costs in each
 * (docs/capacity.md): the per-pool list, the longest request a worker
 * admits, the concurrency at context_len and what binds it, and the
 * admission call an engine's scheduler asks before it starts a request.
 *
 * The request's footprint follows the pools' own rules: a full pool holds
 * every token, a sliding-window pool only the window and its trailing
 * allocation (the seed's SWA chunk cap term), DeepSeek V4's compressed
 * pools one token per 4 (x the shrink) or 128, its state pools a ring per
 * request or per SWA page, a mamba pool its slots per request.
 */
#include "plan/plan.h"

#include <math.h>
#include <string.h>

const char *kvplan_pool_kind_name(kvplan_pool_kind kind)
{
    switch (kind) {
    case KVPLAN_POOL_FULL:
        return "full";
    case KVPLAN_POOL_SWA:
        return "swa";
    case KVPLAN_POOL_C4:
        return "c4";
    case KVPLAN_POOL_C128:
        return "c128";
    case KVPLAN_POOL_C4_STATE:
        return "c4_state";
    case KVPLAN_POOL_C128_STATE:
        return "c128_state";
    case KVPLAN_POOL_MAMBA:
        return "mamba";
    }
    return "?";
}

const char *kvplan_limit_name(kvplan_limit limit)
{
    switch (limit) {
    case KVPLAN_LIMIT_NONE:
        return "none";
    case KVPLAN_LIMIT_POOL:
        return "pool";
    case KVPLAN_LIMIT_CONTEXT_LEN:
        return "context_len";
    case KVPLAN_LIMIT_MAX_RUNNING_REQUESTS:
        return "max_running_requests";
    case KVPLAN_LIMIT_REQ_TO_TOKEN:
        return "req_to_token";
    }
    return "?";
}

/* One pool's cost of a request of `len` page-aligned tokens; false past
 * 64 bits. */
static bool pool_cost(const kvplan_pool_info *p, int64_t len, int64_t *out)
{
    bool ovf = false;
    int64_t units = 0;
    if (p->tokens_per_unit > 0) {
        int64_t held =
            p->request_cap > 0 ? kvplan__min(len, p->request_cap) : len;
        double u;
        if (p->tokens_per_unit == 1.0) {
            units = held;
        } else if (p->tokens_per_unit == floor(p->tokens_per_unit) &&
                   p->tokens_per_unit < 0x1p62) {
            int64_t d = (int64_t)p->tokens_per_unit;
            units = held / d + (held % d != 0);
        } else if ((u = ceil((double)held / p->tokens_per_unit)) < 0x1p62) {
            units = (int64_t)u; /* <= held for a ratio above 1 */
        } else {
            return false; /* a ratio below 1 that a plan never writes */
        }
        units = kvplan__mul(units, p->units_per_step, &ovf);
    }
    *out = kvplan__add(units, p->per_request, &ovf);
    return !ovf;
}

static kvplan_status costs(const kvplan_capacity *c, int64_t prompt,
                           int64_t decode, int64_t *len, int64_t *cost,
                           kvplan_error *err)
{
    KVPLAN__FAIL_IF(c == NULL, err, KVPLAN_INVALID_ARGUMENT, NULL,
                    "a request's cost needs a capacity (kvplan_plan's "
                    "capacity); got NULL");
    KVPLAN__FAIL_IF(prompt < 0 || decode < 0, err, KVPLAN_INVALID_ARGUMENT,
                    prompt < 0 ? "prompt" : "decode",
                    "a request's %s tokens must be >= 0, got %lld",
                    prompt < 0 ? "prompt" : "decode",
                    (long long)(prompt < 0 ? prompt : decode));
    KVPLAN__FAIL_IF(c->num_pools > KVPLAN_MAX_POOLS || c->page_size < 1, err,
                    KVPLAN_INVALID_ARGUMENT, NULL,
                    "the capacity is not one a plan wrote (%zu pools, page "
                    "%lld)",
                    c->num_pools, (long long)c->page_size);
    bool ovf = false;
    *len = kvplan__ceil_align(kvplan__add(prompt, decode, &ovf), c->page_size,
                              &ovf);
    for (size_t i = 0; i < c->num_pools && !ovf; i++)
        ovf = !pool_cost(&c->pools[i], *len, &cost[i]);
    if (ovf)
        return kvplan__overflow(err, "a request's cost");
    return kvplan__ok(err);
}

kvplan_status kvplan_request_cost(const kvplan_capacity *capacity,
                                  int64_t prompt, int64_t decode,
                                  int64_t cost[KVPLAN_MAX_POOLS],
                                  kvplan_error *err)
{
    int64_t len, tmp[KVPLAN_MAX_POOLS] = {0};
    KVPLAN__FAIL_IF(cost == NULL, err, KVPLAN_INVALID_ARGUMENT, NULL,
                    "kvplan_request_cost needs an array to fill; got NULL");
    KVPLAN__TRY(costs(capacity, prompt, decode, &len, tmp, err));
    memcpy(cost, tmp, sizeof tmp);
    return KVPLAN_OK;
}

kvplan_status kvplan_admit(const kvplan_capacity *c, const kvplan_usage *usage,
                           int64_t prompt, int64_t decode,
                           kvplan_admission *out, kvplan_error *err)
{
    KVPLAN__FAIL_IF(out == NULL, err, KVPLAN_INVALID_ARGUMENT, NULL,
                    "kvplan_admit needs an admission to fill; got NULL");
    int64_t len;
    kvplan_admission a = {.admit = true, .refused_by = KVPLAN_LIMIT_NONE};
    KVPLAN__TRY(costs(c, prompt, decode, &len, a.cost, err));
    kvplan_usage none = {0};
    const kvplan_usage *u = usage != NULL ? usage : &none;
    KVPLAN__FAIL_IF(u->running_requests < 0, err, KVPLAN_INVALID_ARGUMENT,
                    "usage.running_requests",
                    "usage.running_requests must be >= 0, got %lld",
                    (long long)u->running_requests);
    for (size_t i = 0; i < c->num_pools; i++)
        KVPLAN__FAIL_IF(
            u->used[i] < 0, err, KVPLAN_INVALID_ARGUMENT, "usage.used",
            "usage.used[%zu] (the %s pool's tokens in use) must "
            "be >= 0, got %lld",
            i, kvplan_pool_kind_name(c->pools[i].kind), (long long)u->used[i]);
    if (prompt + decode > c->longest_request_tokens) {
        a.refused_by = c->longest_binding;
        a.pool = c->longest_pool;
    } else if (u->running_requests >= c->max_running_requests) {
        a.refused_by = KVPLAN_LIMIT_MAX_RUNNING_REQUESTS;
    } else {
        for (size_t i = 0; i < c->num_pools; i++) {
            const kvplan_pool_info *p = &c->pools[i];
            /* used + cost > capacity - reserved, without overflow */
            int64_t room = p->capacity_tokens - p->reserved_tokens;
            if (u->used[i] > room || a.cost[i] > room - u->used[i]) {
                a.refused_by = KVPLAN_LIMIT_POOL;
                a.pool = i;
                break;
            }
        }
    }
    a.admit = a.refused_by == KVPLAN_LIMIT_NONE;
    *out = a;
    return KVPLAN_OK;
}

/* ---- the plan's capacity ------------------------------------------------- */

static kvplan_pool_info *add(kvplan_capacity *c, kvplan_pool_kind kind,
                             int64_t tokens, double bytes, int64_t page)
{
    kvplan_pool_info *p = &c->pools[c->num_pools++];
    *p = (kvplan_pool_info){.kind = kind,
                            .capacity_tokens = tokens,
                            .bytes_per_token = bytes,
                            .page_size = page,
                            .tokens_per_unit = 1,
                            .units_per_step = 1};
    return p;
}

/* The SWA pool's rule: the request's window term, the shared chunks. */
static void swa_rule(kvplan_pool_info *p, const kvplan_rank *r, bool *ovf)
{
    p->request_cap = kvplan__swa_request_tokens(r, ovf);
    p->reserved_tokens = kvplan__max(0, kvplan__swa_shared_tokens(r, ovf));
}

static void dsv4_pools(kvplan_capacity *c, const kvplan_stage_plan *sp,
                       int64_t page, bool *ovf)
{
    const kvplan_configurator *k = &sp->configurator;
    const kvplan_configurator_terms *t = &k->terms;
    const kvplan_pool_config *pc = &sp->pools;
    kvplan_rank r = sp->rank; /* the SWA pool's window is the model's */
    if (!r.runner.sliding_window_size.set)
        r.runner.sliding_window_size = r.model.window_size;
    double kv = (double)t->dsv4_kv_bytes;
    double shrink = k->internal_.c4_shrink_factor;
    int64_t win = kvplan__max(1, k->internal_.swa_page_size);
    int64_t attn = k->internal_.attn_head_dim;
    int64_t ihd = r.model.index_head_dim.value;
    int64_t s_elem = t->c128_state_dtype_size;
    add(c, KVPLAN_POOL_FULL, pc->full_max_total_num_tokens.value,
        k->bytes_per_full_token, page);
    kvplan_pool_info *swa =
        add(c, KVPLAN_POOL_SWA, pc->swa_max_total_num_tokens.value,
            kv * (double)t->num_layers_total, win);
    swa_rule(swa, &r, ovf);
    if (t->num_layers_ca4 > 0) {
        kvplan_pool_info *c4 =
            add(c, KVPLAN_POOL_C4, pc->c4_max_total_num_tokens,
                (kv + shrink * (double)t->dsa_indexer_bytes) *
                    (double)t->num_layers_ca4,
                page / 4);
        c4->tokens_per_unit = 4 * shrink;
        kvplan_pool_info *st =
            add(c, KVPLAN_POOL_C4_STATE, pc->c4_state_pool_size,
                (double)((4 * attn + 4 * ihd) * s_elem * t->num_layers_ca4), 1);
        /* a ring per SWA page the request holds */
        st->tokens_per_unit = (double)win;
        st->request_cap = swa->request_cap;
        st->units_per_step = t->c4_ring_size;
    }
    if (t->num_layers_ca128 > 0) {
        kvplan_pool_info *c128 =
            add(c, KVPLAN_POOL_C128, pc->c128_max_total_num_tokens,
                kv * (double)t->num_layers_ca128, page / 128);
        c128->tokens_per_unit = 128;
        kvplan_pool_info *st =
            add(c, KVPLAN_POOL_C128_STATE, pc->c128_state_pool_size,
                (double)((t->online_c128 ? 3 : 2) * attn * s_elem *
                         t->num_layers_ca128),
                1);
        st->tokens_per_unit = 0;
        st->per_request = t->c128_ring_size; /* one ring per request */
    }
}

/* The largest length in [0, hi] one request of which fits every pool
 * (costs rise with the length). */
static int64_t longest_fit(const kvplan_capacity *c, int64_t hi, size_t *pool)
{
    int64_t lo = 0;
    bool first = true;
    while (lo < hi) {
        int64_t mid = first ? hi : lo + (hi - lo + 1) / 2;
        first = false;
        bool fits = true, ovf = false;
        int64_t len = kvplan__ceil_align(mid, c->page_size, &ovf);
        for (size_t i = 0; i < c->num_pools && fits; i++) {
            int64_t cost;
            const kvplan_pool_info *p = &c->pools[i];
            if (ovf || !pool_cost(p, len, &cost) ||
                cost > p->capacity_tokens - p->reserved_tokens) {
                fits = false;
                *pool = i;
            }
        }
        if (fits)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

void kvplan__plan_capacity(kvplan_plan *plan, int64_t max_mamba,
                           int64_t mamba_ratio, double mamba_per, bool *ovf)
{
    kvplan_capacity *c = &plan->capacity;
    const kvplan_stage_plan *sp = &plan->stages[plan->binding_stage];
    const kvplan_configurator *k = &sp->configurator;
    const kvplan_configurator_terms *t = &k->terms;
    const kvplan_pool_config *pc = &sp->pools;
    int64_t page = plan->page_size;
    memset(c, 0, offsetof(kvplan_capacity, pools));
    c->page_size = page;
    c->context_len = plan->context_len;
    c->max_running_requests = plan->max_running_requests;
    c->req_to_token_rows =
        kvplan__request_slots(&sp->rank, plan->max_running_requests, ovf);

    switch (k->kind) {
    case KVPLAN_CONFIGURATOR_DSV4:
        dsv4_pools(c, sp, page, ovf);
        break;
    case KVPLAN_CONFIGURATOR_HYBRID_SWA:
    case KVPLAN_CONFIGURATOR_SWA_CHUNK_CAP: {
        double full = (double)t->full_per_token *
                      (double)(t->full_layers_num + t->draft_full_layers_num);
        double swa = (double)t->swa_per_token * (double)t->swa_layers_num;
        if (t->full_layers_num > 0)
            add(c, KVPLAN_POOL_FULL, pc->full_max_total_num_tokens.value, full,
                page);
        else /* all-SWA: the draft's full layers are priced with it */
            swa += (double)t->full_per_token * (double)t->draft_full_layers_num;
        swa_rule(add(c, KVPLAN_POOL_SWA, pc->swa_max_total_num_tokens.value,
                     swa, page),
                 &sp->rank, ovf);
        break;
    }
    case KVPLAN_CONFIGURATOR_DEFAULT:
    default:
        add(c, KVPLAN_POOL_FULL, pc->max_total_num_tokens,
            (double)k->cell_size_bytes, page);
        break;
    }
    if (max_mamba > 0) {
        kvplan_pool_info *m =
            add(c, KVPLAN_POOL_MAMBA, max_mamba, mamba_per, 1);
        m->tokens_per_unit = 0;
        m->per_request = mamba_ratio;
    }

    /* the longest request: sglang's max_req_len, then the pools */
    int64_t t_total = plan->max_total_num_tokens;
    c->longest_request_tokens = plan->context_len;
    c->longest_binding = KVPLAN_LIMIT_CONTEXT_LEN;
    if (t_total - 1 < plan->context_len) {
        c->longest_request_tokens = kvplan__max(0, t_total - 1);
        c->longest_binding = KVPLAN_LIMIT_POOL; /* the token pool */
        c->longest_pool = 0;
        for (size_t i = 0; i < c->num_pools; i++)
            if (c->pools[i].capacity_tokens == t_total &&
                c->pools[i].request_cap == 0 &&
                c->pools[i].tokens_per_unit == 1) {
                c->longest_pool = i;
                break;
            }
    }
    size_t pool = 0;
    int64_t fit = longest_fit(c, c->longest_request_tokens, &pool);
    if (fit < c->longest_request_tokens) {
        c->longest_request_tokens = fit;
        c->longest_binding = KVPLAN_LIMIT_POOL;
        c->longest_pool = pool;
    }

    /* requests of context_len at once */
    if (c->longest_request_tokens < plan->context_len) {
        c->max_concurrency_at_context_len = 0;
        c->binding = c->longest_binding;
        c->binding_pool = c->longest_pool;
        return;
    }
    int64_t len = kvplan__ceil_align(plan->context_len, page, ovf);
    int64_t best = c->max_running_requests;
    c->binding = KVPLAN_LIMIT_MAX_RUNNING_REQUESTS;
    for (size_t i = 0; i < c->num_pools; i++) {
        const kvplan_pool_info *p = &c->pools[i];
        int64_t cost;
        if (!pool_cost(p, len, &cost) || cost <= 0)
            continue;
        int64_t n =
            kvplan__max(0, p->capacity_tokens - p->reserved_tokens) / cost;
        /* a pool that ties the cap is why it is so; among pools, the
         * first */
        if (n < best || (n == best && c->binding != KVPLAN_LIMIT_POOL)) {
            best = n;
            c->binding = KVPLAN_LIMIT_POOL;
            c->binding_pool = i;
        }
    }
    if (c->req_to_token_rows < best) {
        best = c->req_to_token_rows;
        c->binding = KVPLAN_LIMIT_REQ_TO_TOKEN;
    }
    c->max_concurrency_at_context_len = best;
}
