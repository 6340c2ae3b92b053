/*
 * sweep.c: kvplan sweep's rows (kvplan_sweep): one plan per combination of
 * the values given to the options a sweep varies, every other option held.
 * Each row's options are the base's with its values set by name, as a
 * single plan's would be, so a row and the plan of its flags cannot
 * differ; rows that change only the GPU and the fraction reuse the row
 * before's ranks (kvplan_plan_update). And the ranking, best first, ties in
 * the product's order: a total order, sorted without a global, so that
 * sweeps on several threads never see each other's key.
 */
#include "options/options.h"

#include <string.h>

static const char *const key_names[] = {
    [KVPLAN_SWEEP_CONCURRENCY_PER_GPU] = "concurrency-per-gpu",
    [KVPLAN_SWEEP_CONCURRENCY] = "concurrency",
    [KVPLAN_SWEEP_TOKENS] = "tokens",
    [KVPLAN_SWEEP_TOKENS_PER_GPU] = "tokens-per-gpu",
    [KVPLAN_SWEEP_LONGEST_REQUEST] = "longest-request",
    [KVPLAN_SWEEP_GPUS] = "gpus",
};

const char *kvplan_sweep_key_name(kvplan_sweep_key key)
{
    return (size_t)key < sizeof key_names / sizeof key_names[0] ? key_names[key]
                                                                : NULL;
}

bool kvplan_sweep_key_from_name(const char *name, kvplan_sweep_key *out)
{
    for (size_t k = 0; name != NULL && k < sizeof key_names / sizeof *key_names;
         k++)
        if (strcmp(name, key_names[k]) == 0) {
            *out = (kvplan_sweep_key)k;
            return true;
        }
    return false;
}

/* The axes: options a sweep varies, each with 1..64 values, at most 8;
 * each option's row into found[k] (looked up once for all the rows) and
 * the product of their counts into *rows; `base`'s struct_size checked as
 * kvplan_options_set checks it. */
static kvplan_status check_axes(const kvplan_options *base,
                                const kvplan_sweep_axis *axes, size_t n,
                                const kvplan__option_row **found, size_t *rows,
                                kvplan_error *err)
{
    KVPLAN__FAIL_IF(base->struct_size != sizeof *base, err,
                    KVPLAN_INVALID_ARGUMENT, "struct_size",
                    "kvplan_options.struct_size is %u, expected %zu: fill the "
                    "options with kvplan_options_init() of this kvplan.h",
                    (unsigned)base->struct_size, sizeof *base);
    KVPLAN__FAIL_IF(n > KVPLAN_MAX_SWEEP_AXES, err, KVPLAN_INVALID_ARGUMENT,
                    NULL, "a sweep varies at most %d options, got %zu",
                    KVPLAN_MAX_SWEEP_AXES, n);
    KVPLAN__FAIL_IF(n > 0 && axes == NULL, err, KVPLAN_INVALID_ARGUMENT, NULL,
                    "kvplan_sweep: %zu axes and no list", n);
    size_t product = 1;
    for (size_t k = 0; k < n; k++) {
        const char *name = axes[k].option ? axes[k].option : "(NULL)";
        found[k] =
            axes[k].option ? kvplan__option_lookup(name, strlen(name)) : NULL;
        KVPLAN__FAIL_IF(found[k] == NULL || !found[k]->pub.sweep, err,
                        KVPLAN_INVALID_ARGUMENT, name,
                        "%.100s: a sweep varies gpu, tp_size, pp_size, "
                        "kv_cache_dtype, page_size, context_length, "
                        "mem_fraction_static or speculative_algorithm",
                        name);
        KVPLAN__FAIL_IF(axes[k].count == 0 || axes[k].values == NULL, err,
                        KVPLAN_INVALID_ARGUMENT, name,
                        "%s: expected a value or a list", name);
        KVPLAN__FAIL_IF(axes[k].count > KVPLAN_MAX_SWEEP_VALUES, err,
                        KVPLAN_INVALID_ARGUMENT, name, "%s: at most %d values",
                        name, KVPLAN_MAX_SWEEP_VALUES);
        product *= axes[k].count;
        KVPLAN__FAIL_IF(product > KVPLAN_MAX_SWEEP_ROWS, err,
                        KVPLAN_INVALID_ARGUMENT, name,
                        "%s: the lists make more than %d rows", name,
                        KVPLAN_MAX_SWEEP_ROWS);
    }
    *rows = product;
    return KVPLAN_OK;
}

/* "none" in speculative_algorithm's list: the option left out. */
static bool is_none(const kvplan_option *o, const char *v)
{
    return strcmp(o->name, "speculative_algorithm") == 0 &&
           strcmp(v, "none") == 0;
}

/* The picks of row `index` (the first axis outermost). */
static void picks(const kvplan_sweep_axis *axes, size_t n, size_t index,
                  size_t *pick)
{
    for (size_t k = n; k-- > 0;) {
        pick[k] = index % axes[k].count;
        index /= axes[k].count;
    }
}

/* Row `row`'s options: base with each axis's value stored through its
 * option's row (rows[k], looked up once). */
static kvplan_status row_options(const kvplan_options *base,
                                 const kvplan_sweep_axis *axes,
                                 const kvplan__option_row *const *rows,
                                 size_t num_axes, const kvplan_sweep_row *row,
                                 kvplan_options *out, kvplan_error *err)
{
    *out = *base;
    for (size_t k = 0; k < num_axes; k++) {
        const char *v = axes[k].values[row->pick[k]];
        if (is_none(&rows[k]->pub, v)) {
            out->plan.server.speculative_algorithm = KVPLAN_SPEC_NONE;
            continue;
        }
        KVPLAN__TRY(
            kvplan__options_store(out, rows[k], axes[k].option, v, err));
    }
    /* the GPU the row names (its --gpu-memory over it); a probe is the
     * base's, made once */
    return kvplan__options_resolve_gpu(out, NULL, err);
}

/* Not an answer: next_options cannot build the row from the row before. */
#define KVPLAN__AGAIN ((kvplan_status)-1)

/* The next row's options from the row before's (`o`, built with picks
 * `was`): only the axes whose value changed stored again, which is what
 * storing them all over the base gives (a store writes its field; the
 * GPU's resolution is run again). speculative_algorithm's "none" leaves
 * the option out, which a store cannot undo: KVPLAN__AGAIN when it
 * changes. */
static kvplan_status next_options(const kvplan_sweep_axis *axes,
                                  const kvplan__option_row *const *rows,
                                  size_t num_axes, const size_t *was,
                                  const size_t *pick, kvplan_options *o,
                                  kvplan_error *err)
{
    for (size_t k = 0; k < num_axes; k++)
        if (pick[k] != was[k] &&
            strcmp(rows[k]->pub.name, "speculative_algorithm") == 0)
            return KVPLAN__AGAIN;
    for (size_t k = 0; k < num_axes; k++)
        if (pick[k] != was[k])
            KVPLAN__TRY(kvplan__options_store(o, rows[k], axes[k].option,
                                              axes[k].values[pick[k]], err));
    return kvplan__options_resolve_gpu(o, NULL, err);
}

kvplan_status kvplan_sweep_row_options(const kvplan_options *base,
                                       const kvplan_sweep_axis *axes,
                                       size_t num_axes,
                                       const kvplan_sweep_row *row,
                                       kvplan_options *out, kvplan_error *err)
{
    KVPLAN__FAIL_IF(base == NULL || row == NULL || out == NULL, err,
                    KVPLAN_INVALID_ARGUMENT, NULL,
                    "kvplan_sweep_row_options needs options, a row and a "
                    "result; got NULL");
    const kvplan__option_row *rows[KVPLAN_MAX_SWEEP_AXES];
    size_t product;
    KVPLAN__TRY(check_axes(base, axes, num_axes, rows, &product, err));
    return row_options(base, axes, rows, num_axes, row, out, err);
}

/* `s` into `to` (of `size` > 0 bytes), cut to fit: a row's names, written
 * on every row, without snprintf's format. */
static void copy_name(char *to, size_t size, const char *s)
{
    if (s == NULL)
        s = "";
    size_t n = strnlen(s, size - 1);
    memcpy(to, s, n);
    to[n] = '\0';
}

/* A row's figures from its plan. */
static void figures(kvplan_sweep_row *r, const kvplan_options *o,
                    const kvplan_plan *pl)
{
    const kvplan_capacity *c = &pl->capacity;
    r->max_total_num_tokens = pl->max_total_num_tokens;
    r->max_running_requests = pl->max_running_requests;
    r->context_len = pl->context_len;
    r->longest_request_tokens = c->longest_request_tokens;
    r->page_size = pl->page_size;
    r->fits = c->max_concurrency_at_context_len > 0;
    r->binding = c->binding;
    r->binding_pool = c->binding == KVPLAN_LIMIT_POOL
                          ? c->pools[c->binding_pool].kind
                          : (kvplan_pool_kind)0;
    r->fleet = pl->fleet;
    r->mem_fraction_static = pl->budget.mem_fraction_static;
    r->kv_cache_dtype =
        pl->stages[pl->binding_stage].rank.runner.kv_cache_dtype;
    copy_name(r->kv_cache_dtype_name, sizeof r->kv_cache_dtype_name,
              kvplan_kv_dtype_name(r->kv_cache_dtype,
                                   o->plan.gpu_set ? &o->plan.gpu : NULL));
}

kvplan_status kvplan_sweep(const kvplan_model *model,
                           const kvplan_options *base,
                           const kvplan_sweep_axis *axes, size_t num_axes,
                           kvplan_sweep_row *rows, size_t num_rows,
                           kvplan_plan work[2], kvplan_error *err)
{
    KVPLAN__FAIL_IF(model == NULL || base == NULL || rows == NULL ||
                        work == NULL,
                    err, KVPLAN_INVALID_ARGUMENT, NULL,
                    "kvplan_sweep needs a model, options, rows and work; got "
                    "NULL");
    size_t want = 0;
    const kvplan__option_row *orows[KVPLAN_MAX_SWEEP_AXES];
    KVPLAN__TRY(check_axes(base, axes, num_axes, orows, &want, err));
    KVPLAN__FAIL_IF(num_rows != want, err, KVPLAN_INVALID_ARGUMENT, NULL,
                    "kvplan_sweep: the axes make %zu rows, got room for %zu",
                    want, num_rows);
    /* two plans in turn: the row before's (prev) and this one's */
    kvplan_plan *prev = &work[0], *next = &work[1];
    kvplan_plan_options prev_p;
    kvplan_options o;
    bool have_prev = false, built = false;
    size_t built_pick[KVPLAN_MAX_SWEEP_AXES] = {0};
    for (size_t i = 0; i < num_rows; i++) {
        kvplan_sweep_row *r = &rows[i];
        memset(r, 0, sizeof *r);
        r->index = i;
        picks(axes, num_axes, i, r->pick);
        r->status =
            built ? next_options(axes, orows, num_axes, built_pick, r->pick, &o,
                                 &r->error)
                  : row_options(base, axes, orows, num_axes, r, &o, &r->error);
        if (r->status == KVPLAN__AGAIN)
            r->status =
                row_options(base, axes, orows, num_axes, r, &o, &r->error);
        built = r->status == KVPLAN_OK;
        memcpy(built_pick, r->pick, sizeof built_pick);
        if (r->status == KVPLAN_OK)
            r->status =
                kvplan_plan_update(model, &o.plan, have_prev ? &prev_p : NULL,
                                   have_prev ? prev : NULL, next, &r->error);
        copy_name(r->gpu, sizeof r->gpu,
                  o.plan.available_bytes.set ? "" : o.plan.gpu.name);
        if (r->status == KVPLAN_INVALID_ARGUMENT || r->status == KVPLAN_PARSE) {
            /* a value no row can take: the sweep's error */
            if (err != NULL)
                *err = r->error;
            return r->status;
        }
        if (r->status != KVPLAN_OK)
            continue;
        figures(r, &o, next);
        kvplan_plan *t = prev; /* this one the next row's before */
        prev = next;
        next = t;
        prev_p = o.plan;
        have_prev = true;
    }
    return kvplan__ok(err);
}

/* ---- the ranking ------------------------------------------------------------
 */

/* kvplan_sweep_figure's, inlined where the ranking compares rows. */
static inline double figure(const kvplan_sweep_row *r, kvplan_sweep_key key)
{
    const kvplan_fleet *f = &r->fleet;
    switch (key) {
    case KVPLAN_SWEEP_CONCURRENCY_PER_GPU:
        return f->concurrency_per_gpu;
    case KVPLAN_SWEEP_CONCURRENCY:
        return (double)f->concurrency_at_context_len;
    case KVPLAN_SWEEP_TOKENS:
        return (double)r->max_total_num_tokens;
    case KVPLAN_SWEEP_TOKENS_PER_GPU:
        return (double)r->max_total_num_tokens /
               (double)(f->gpus > 0 ? f->gpus : 1);
    case KVPLAN_SWEEP_LONGEST_REQUEST:
        return (double)r->longest_request_tokens;
    case KVPLAN_SWEEP_GPUS:
        return (double)f->gpus;
    }
    return 0;
}

double kvplan_sweep_figure(const kvplan_sweep_row *r, kvplan_sweep_key key)
{
    return figure(r, key);
}

/* A row's place in the ranking, read once: its class (fits, plans), its
 * figure (negated for gpus: fewer first), its index. */
typedef struct rank_key {
    int cls;
    double figure;
    size_t index;
} rank_key;

static rank_key key_of(const kvplan_sweep_row *r, kvplan_sweep_key key)
{
    double f = figure(r, key);
    return (rank_key){r->fits * 2 + (r->status == KVPLAN_OK),
                      key == KVPLAN_SWEEP_GPUS ? -f : f, r->index};
}

/* Whether a row of key a ranks before one of key b (see before()). */
static bool key_before(const rank_key *a, const rank_key *b)
{
    if (a->cls != b->cls)
        return a->cls > b->cls;
    if (a->figure != b->figure)
        return a->figure > b->figure;
    return a->index < b->index;
}

/* Whether row a ranks before row b: those that fit, then those that plan;
 * the better figure (fewer GPUs for gpus); the product's order. */
static bool before(const kvplan_sweep_row *a, const kvplan_sweep_row *b,
                   kvplan_sweep_key key)
{
    rank_key ka = key_of(a, key), kb = key_of(b, key);
    return key_before(&ka, &kb);
}

/* A heap's sift, for the ranking's heapsort: in place, no allocation; with
 * the total order above the same result a stable sort gives. */
static void sift(const kvplan_sweep_row *rows, size_t *order, size_t at,
                 size_t n, kvplan_sweep_key key)
{
    for (;;) {
        size_t child = 2 * at + 1;
        if (child >= n)
            return;
        /* a max-heap of "ranks last" */
        if (child + 1 < n &&
            before(&rows[order[child]], &rows[order[child + 1]], key))
            child++;
        if (!before(&rows[order[at]], &rows[order[child]], key))
            return;
        size_t t = order[at];
        order[at] = order[child];
        order[child] = t;
        at = child;
    }
}

static void swap_at(size_t *order, size_t i, size_t j)
{
    size_t t = order[i];
    order[i] = order[j];
    order[j] = t;
}

/* order[lo, hi) sorted: quicksort with the pivot's key read once (each
 * comparison reads one row, not two: the rows are large and the reads
 * random), median of three, the smaller side first; heapsort past `depth`
 * levels, so that no input takes more than n log n; insertion below 16. */
static void rank_range(const kvplan_sweep_row *rows, size_t *order, size_t lo,
                       size_t hi, kvplan_sweep_key key, int depth)
{
    while (hi - lo > 16) {
        if (depth-- == 0) {
            size_t n = hi - lo, *o = order + lo;
            for (size_t i = n / 2; i-- > 0;)
                sift(rows, o, i, n, key);
            for (size_t end = n; end-- > 1;) {
                swap_at(o, 0, end);
                sift(rows, o, 0, end, key);
            }
            return;
        }
        size_t mid = lo + (hi - lo) / 2;
        rank_key a = key_of(&rows[order[lo]], key),
                 b = key_of(&rows[order[mid]], key),
                 c = key_of(&rows[order[hi - 1]], key);
        /* the median of the three to order[lo]: Hoare's pivot */
        size_t m = key_before(&a, &b) ? (key_before(&b, &c)   ? mid
                                         : key_before(&a, &c) ? hi - 1
                                                              : lo)
                                      : (key_before(&a, &c)   ? lo
                                         : key_before(&b, &c) ? hi - 1
                                                              : mid);
        swap_at(order, lo, m);
        rank_key pivot = m == lo ? a : m == mid ? b : c;
        size_t i = lo - 1, j = hi;
        for (;;) {
            rank_key k;
            do {
                k = key_of(&rows[order[++i]], key);
            } while (key_before(&k, &pivot));
            do {
                k = key_of(&rows[order[--j]], key);
            } while (key_before(&pivot, &k));
            if (i >= j)
                break;
            swap_at(order, i, j);
        }
        /* [lo, j] and (j, hi): both hold a row (the pivot leads) */
        if (j + 1 - lo < hi - j - 1) {
            rank_range(rows, order, lo, j + 1, key, depth);
            lo = j + 1;
        } else {
            rank_range(rows, order, j + 1, hi, key, depth);
            hi = j + 1;
        }
    }
    for (size_t i = lo + 1; i < hi; i++) {
        size_t t = order[i], k = i;
        rank_key x = key_of(&rows[t], key);
        for (; k > lo; k--) {
            rank_key y = key_of(&rows[order[k - 1]], key);
            if (!key_before(&x, &y))
                break;
            order[k] = order[k - 1];
        }
        order[k] = t;
    }
}

void kvplan_sweep_rank(const kvplan_sweep_row *rows, size_t n,
                       kvplan_sweep_key key, size_t *order)
{
    if (rows == NULL || order == NULL)
        return;
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    int depth = 0;
    for (size_t k = n; k > 1; k >>= 1)
        depth += 2;
    rank_range(rows, order, 0, n, key, depth);
}
