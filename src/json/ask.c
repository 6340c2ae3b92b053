/*
 * ask.c: the questions of kvplan_json, asked of the library with the
 * request's options: plan (sglang's, or another engine's), fit, solve,
 * sweep and compare (the model loaded through the session), and log; each
 * answered with the command's own document writers.
 */
#include "json/request.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


answer kvplan__with(json_t *doc, const char *member, json_t *v, kvplan_status st)
{
    if (doc == NULL || v == NULL || json_object_set_new(doc, member, v) != 0) {
        json_decref(doc);
        return (answer){NULL, KVPLAN_NOMEM};
    }
    return (answer){doc, st};
}

/* The plan's picture, for "svg": true. */
static json_t *picture(const kvplan__doc *d, const kvplan_plan *p)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (f == NULL)
        return NULL;
    int bad = kvplan__svg_plan(f, d, p);
    if (fclose(f) != 0 || bad != 0) {
        free(buf);
        return NULL;
    }
    json_t *s = json_stringn_nocheck(buf, n);
    free(buf);
    return s;
}

/* The plan document, with its picture when asked. */
static answer plan_doc(const request *rq, const kvplan__doc *d,
                       const kvplan_plan *p, json_t *head, kvplan_status st)
{
    json_t *doc = kvplan__doc_plan(d, p);
    answer a = {doc, st};
    if (doc != NULL && json_is_true(rq->svg))
        a = kvplan__with(doc, "svg", picture(d, p), st);
    if (head == NULL)
        return a;
    return kvplan__with(head, "plan", a.doc, st);
}

static answer ask_plan(const request *rq, kvplan_options *o,
                       const kvplan__doc *d, kvplan_plan *p)
{
    kvplan_error err;
    if (o->engine != KVPLAN_ENGINE_SGLANG) {
        kvplan_engine_options eo;
        kvplan_engine_plan ep;
        kvplan_options_engine(o, o->engine, &eo);
        if (kvplan_engine_compute(d->model, &eo, &ep, &err) != KVPLAN_OK)
            return kvplan__failed(&err, true);
        return kvplan__with(kvplan__doc_engine(d, &ep), "requested",
                    kvplan__doc_requested(o), KVPLAN_OK);
    }
    if (kvplan_plan_compute(d->model, &o->plan, p, &err) != KVPLAN_OK)
        return kvplan__failed(&err, true);
    return plan_doc(rq, d, p, NULL, KVPLAN_OK);
}

static answer ask_fit(const request *rq, kvplan_options *o,
                      const kvplan__doc *d, kvplan_plan *p)
{
    kvplan_error err;
    kvplan_plan_options *po = &o->plan;
    if (o->concurrency.set) {
        int64_t len = 0;
        if (kvplan_fit_context(d->model, po, o->concurrency.value, p, &len,
                               &err) != KVPLAN_OK)
            return kvplan__failed(&err, true);
        /* the plan is the forward plan's: --context-length L */
        po->server.context_length = (kvplan_opt_int){len, true};
        return plan_doc(rq, d, p, kvplan__doc_fit(o->concurrency.value, p),
                        KVPLAN_OK);
    }
    if (!po->server.context_length.set)
        return kvplan__refuse(KVPLAN_INVALID_ARGUMENT, 2, "concurrency",
                      "command fit needs concurrency N (the longest context "
                      "for N requests) or context_length L (the most "
                      "requests of L tokens)");
    if (kvplan_plan_compute(d->model, po, p, &err) != KVPLAN_OK)
        return kvplan__failed(&err, true);
    return plan_doc(rq, d, p, kvplan__doc_fit(0, p),
                    p->capacity.max_concurrency_at_context_len == 0
                        ? KVPLAN_NOT_ENOUGH_MEMORY
                        : KVPLAN_OK);
}

static answer ask_solve(const request *rq, kvplan_options *o,
                        const kvplan__doc *d, kvplan_plan *p)
{
    if (o->target_tokens.set == o->target_concurrency.set)
        return kvplan__refuse(KVPLAN_INVALID_ARGUMENT, 2, "target_tokens",
                      "command solve needs one target: target_tokens T or "
                      "target_concurrency N");
    kvplan_target t = {o->target_tokens.value, o->target_concurrency.value};
    kvplan_solution sol;
    kvplan_error err;
    kvplan_status st =
        kvplan_solve(d->model, &o->plan, o->solve_for, &t, p, &sol, &err);
    if (st == KVPLAN_NOT_ENOUGH_MEMORY && !sol.found)
        return (answer){kvplan__doc_solve_none(&err, &sol), st};
    if (st != KVPLAN_OK)
        return kvplan__failed(&err, true);
    /* the plan is the forward plan at the answer */
    kvplan__solution_apply(o, o->solve_for, &sol);
    return plan_doc(rq, d, p, kvplan__doc_solve(o->solve_for, &sol, &t, p),
                    KVPLAN_OK);
}

static answer ask_compare(kvplan_options *o, const kvplan__doc *d,
                          kvplan_plan *p)
{
    kvplan_comparison *c = malloc(sizeof *c);
    kvplan_error err;
    answer a;
    if (c == NULL)
        a = kvplan__refuse(KVPLAN_NOMEM, 4, NULL, "out of memory");
    else if (kvplan_compare(d->model, o, p, c, &err) != KVPLAN_OK)
        a = kvplan__failed(&err, false);
    else
        a = (answer){kvplan__doc_compare(d, c), KVPLAN_OK};
    free(c);
    return a;
}

/* A sweep's rows: each with its command line and its plan document. */
static answer ask_sweep(const kvplan__doc *d, const kvplan_options *base,
                        const axis *ax, size_t naxes, const held *h,
                        kvplan_plan *work)
{
    kvplan_sweep_axis axes[KVPLAN_MAX_SWEEP_AXES];
    size_t n = 1;
    for (size_t k = 0; k < naxes; k++) {
        axes[k] = (kvplan_sweep_axis){ax[k].key, ax[k].values, ax[k].n};
        n *= ax[k].n > 0 ? ax[k].n : 1;
    }
    kvplan_sweep_row *rows = n <= KVPLAN_MAX_SWEEP_ROWS
                                 ? calloc(n, sizeof *rows)
                                 : NULL;
    size_t *order = rows != NULL ? malloc(n * sizeof *order) : NULL;
    kvplan_options *row = malloc(sizeof *row);
    json_t *list = json_array();
    kvplan_error err;
    answer a = {list, KVPLAN_OK};
    if (rows == NULL || order == NULL || row == NULL || list == NULL) {
        json_decref(list);
        a = n > KVPLAN_MAX_SWEEP_ROWS
                ? kvplan__refuse(KVPLAN_INVALID_ARGUMENT, 2, "flags",
                         "the lists make more than %d rows",
                         KVPLAN_MAX_SWEEP_ROWS)
                : kvplan__refuse(KVPLAN_NOMEM, 4, NULL, "out of memory");
    } else if (kvplan_sweep(d->model, base, axes, naxes, rows, n, work,
                            &err) != KVPLAN_OK) {
        json_decref(list);
        a = kvplan__failed(&err, true);
    } else {
        kvplan_sweep_rank(rows, n, base->rank_by, order);
        for (size_t i = 0; a.doc != NULL && i < n; i++) {
            const kvplan_sweep_row *r = &rows[order[i]];
            const char *flags[2 * KVPLAN_MAX_SWEEP_AXES + MAX_HELD];
            size_t nf = 0;
            for (size_t k = 0; k < naxes; k++) {
                const char *v = ax[k].values[r->pick[k]];
                const kvplan_option *o = kvplan_option_find(ax[k].key);
                if (o == NULL || (strcmp(o->name, "speculative_algorithm") ==
                                      0 &&
                                  strcmp(v, "none") == 0))
                    continue;
                flags[nf++] = o->flag;
                flags[nf++] = v;
            }
            for (size_t k = 0; k < h->n; k++)
                flags[nf++] = h->argv[k];
            json_t *plan = NULL;
            kvplan__doc rd = {row, d->loaded, d->model};
            if (r->status == KVPLAN_OK &&
                kvplan_sweep_row_options(base, axes, naxes, r, row, NULL) ==
                    KVPLAN_OK &&
                kvplan_plan_compute(d->model, &row->plan, work, NULL) ==
                    KVPLAN_OK)
                plan = kvplan__doc_plan(&rd, work);
            json_t *one = kvplan__doc_sweep_row(axes, naxes, r, i + 1, flags,
                                                nf, plan);
            if (one == NULL || json_array_append_new(list, one) != 0) {
                json_decref(list);
                a = (answer){NULL, KVPLAN_NOMEM};
            }
        }
        if (a.doc != NULL && n > 0 && !rows[order[0]].fits)
            a.st = KVPLAN_NOT_ENOUGH_MEMORY; /* not one row fits */
    }
    free(rows);
    free(order);
    free(row);
    return a;
}

/* The first value of each list into the options, before they are loaded
 * (as the command loads them with its first row's flags). */
static bool first_row(kvplan_options *o, const axis *ax, size_t naxes,
                      answer *a)
{
    kvplan_error err;
    for (size_t k = 0; k < naxes; k++) {
        const kvplan_option *opt = kvplan_option_find(ax[k].key);
        if (ax[k].n == 0) {
            *a = kvplan__refuse(KVPLAN_INVALID_ARGUMENT, 2, ax[k].key,
                        "%s: expected a value or a list", ax[k].key);
            return false;
        }
        if (strcmp(opt->name, "speculative_algorithm") == 0 &&
            strcmp(ax[k].values[0], "none") == 0)
            continue;
        if (kvplan_options_set(o, ax[k].key, ax[k].values[0], &err) !=
            KVPLAN_OK) {
            snprintf(err.field, sizeof err.field, "%.100s", ax[k].key);
            *a = kvplan__failed(&err, true);
            return false;
        }
    }
    return true;
}

answer kvplan__ask(request *rq, kvplan_options *o, held *h, axis *ax,
                   size_t naxes, kvplan_plan *work,
                   kvplan_json_session *session)
{
    answer a;
    if (!first_row(o, ax, naxes, &a))
        return a;
    kvplan_loaded *l = malloc(sizeof *l);
    kvplan_error err;
    bool borrowed = false;
    if (l == NULL)
        return kvplan__refuse(KVPLAN_NOMEM, 4, NULL, "out of memory");
    if (kvplan__session_load(session, o, l, &borrowed, &err) != KVPLAN_OK) {
        free(l);
        if (rq->config == NULL && strcmp(err.field, "--model-path") == 0)
            snprintf(err.field, sizeof err.field, "model");
        return kvplan__failed(&err, false);
    }
    kvplan__doc d = {o, l, l->model};
    const char *c = rq->command;
    if (strcmp(c, "fit") == 0)
        a = ask_fit(rq, o, &d, work);
    else if (strcmp(c, "solve") == 0)
        a = ask_solve(rq, o, &d, work);
    else if (strcmp(c, "sweep") == 0)
        a = ask_sweep(&d, o, ax, naxes, h, work);
    else if (strcmp(c, "compare") == 0)
        a = ask_compare(o, &d, work);
    else
        a = ask_plan(rq, o, &d, work);
    if (!borrowed)
        kvplan_loaded_free(l);
    free(l);
    return a;
}

answer kvplan__ask_log(request *rq, kvplan_options *o, held *h, axis *ax,
                      size_t *naxes, kvplan_plan *work)
{
    kvplan_log_readings *r = malloc(sizeof *r);
    kvplan_log_result *x = malloc(sizeof *x);
    kvplan__log_answer ans = {.model = NULL};
    kvplan_error err;
    answer a = {NULL, KVPLAN_OK};
    if (r == NULL || x == NULL)
        a = kvplan__refuse(KVPLAN_NOMEM, 4, NULL, "out of memory");
    else if (kvplan_log_parse(json_string_value(rq->log),
                              json_string_length(rq->log), r,
                              &err) != KVPLAN_OK ||
             kvplan_log_options(r, &o->plan, &err) != KVPLAN_OK)
        a = kvplan__failed(&err, false);
    else if (!kvplan__request_options(rq, o, h, ax, naxes, &a))
        ; /* refused */
    else if (kvplan__log_question(o, r, work, x, &ans, &err) != KVPLAN_OK)
        a = kvplan__failed(&err, true);
    else
        a = (answer){kvplan__doc_log(r, ans.model_name, x,
                                     o->plan.sglang_version),
                     KVPLAN_OK};
    if (a.doc != NULL && a.st == KVPLAN_OK && json_is_true(rq->calibrate)) {
        kvplan_plan_options po = o->plan;
        po.gpu = x->gpu;
        if (kvplan__calibration_check(r, x, &err) != KVPLAN_OK) {
            json_decref(a.doc);
            a = kvplan__failed(&err, false);
        } else {
            a = kvplan__with(a.doc, "calibration",
                     kvplan__doc_calibration("log", r, &po, x->gpu_inferred,
                                             ans.model_name ? ans.model_name
                                                            : ""),
                     KVPLAN_OK);
        }
    }
    kvplan__log_answer_free(&ans);
    free(r);
    free(x);
    return a;
}
