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

/* The plan document: as the answer, or as "plan" in the question's head
 * (fit's, solve's), which it closes. */
static kvplan_status plan_doc(kvplan__writer *w, const request *rq,
                              const kvplan__doc *d, const kvplan_plan *p,
                              bool in_head, kvplan_status st)
{
    kvplan__doc_plan(w, in_head ? "plan" : NULL, d, p, json_is_true(rq->svg));
    if (in_head)
        kvplan__w_end(w);
    return st;
}

static kvplan_status ask_plan(kvplan__writer *w, const request *rq,
                              kvplan_options *o, const kvplan__doc *d,
                              kvplan_plan *p)
{
    kvplan_error err;
    if (o->engine != KVPLAN_ENGINE_SGLANG) {
        kvplan_engine_options eo;
        kvplan_engine_plan ep;
        kvplan_options_engine(o, o->engine, &eo);
        if (kvplan_engine_compute(d->model, &eo, &ep, &err) != KVPLAN_OK)
            return kvplan__failed(w, &err, true);
        kvplan__doc_engine(w, NULL, d, &ep, true);
        return KVPLAN_OK;
    }
    if (kvplan_plan_compute(d->model, &o->plan, p, &err) != KVPLAN_OK)
        return kvplan__failed(w, &err, true);
    return plan_doc(w, rq, d, p, false, KVPLAN_OK);
}

static kvplan_status ask_fit(kvplan__writer *w, const request *rq,
                             kvplan_options *o, const kvplan__doc *d,
                             kvplan_plan *p)
{
    kvplan_error err;
    kvplan_plan_options *po = &o->plan;
    if (o->concurrency.set) {
        int64_t len = 0;
        if (kvplan_fit_context(d->model, po, o->concurrency.value, p, &len,
                               &err) != KVPLAN_OK)
            return kvplan__failed(w, &err, true);
        /* the plan is the forward plan's: --context-length L */
        po->server.context_length = (kvplan_opt_int){len, true};
        kvplan__w_object(w, NULL);
        kvplan__doc_fit_head(w, o->concurrency.value, p);
        return plan_doc(w, rq, d, p, true, KVPLAN_OK);
    }
    if (!po->server.context_length.set)
        return kvplan__refuse(w, KVPLAN_INVALID_ARGUMENT, 2, "concurrency",
                              "command fit needs concurrency N (the longest "
                              "context for N requests) or context_length L "
                              "(the most requests of L tokens)");
    if (kvplan_plan_compute(d->model, po, p, &err) != KVPLAN_OK)
        return kvplan__failed(w, &err, true);
    kvplan__w_object(w, NULL);
    kvplan__doc_fit_head(w, 0, p);
    return plan_doc(w, rq, d, p, true,
                    p->capacity.max_concurrency_at_context_len == 0
                        ? KVPLAN_NOT_ENOUGH_MEMORY
                        : KVPLAN_OK);
}

static kvplan_status ask_solve(kvplan__writer *w, const request *rq,
                               kvplan_options *o, const kvplan__doc *d,
                               kvplan_plan *p)
{
    if (o->target_tokens.set == o->target_concurrency.set)
        return kvplan__refuse(w, KVPLAN_INVALID_ARGUMENT, 2, "target_tokens",
                              "command solve needs one target: target_tokens "
                              "T or target_concurrency N");
    kvplan_target t = {o->target_tokens.value, o->target_concurrency.value};
    kvplan_solution sol;
    kvplan_error err;
    kvplan_status st =
        kvplan_solve(d->model, &o->plan, o->solve_for, &t, p, &sol, &err);
    if (st == KVPLAN_NOT_ENOUGH_MEMORY && !sol.found) {
        kvplan__request_terms(&err);
        kvplan__doc_solve_none(w, &err, &sol);
        return st;
    }
    if (st != KVPLAN_OK)
        return kvplan__failed(w, &err, true);
    /* the plan is the forward plan at the answer */
    kvplan__solution_apply(o, o->solve_for, &sol);
    kvplan__w_object(w, NULL);
    kvplan__doc_solve_head(w, o->solve_for, &sol, &t, p);
    return plan_doc(w, rq, d, p, true, KVPLAN_OK);
}

static kvplan_status ask_compare(kvplan__writer *w, kvplan_options *o,
                                 const kvplan__doc *d, kvplan_plan *p)
{
    kvplan_comparison *c = malloc(sizeof *c);
    kvplan_error err;
    kvplan_status st = KVPLAN_OK;
    if (c == NULL)
        st = kvplan__refuse(w, KVPLAN_NOMEM, 4, NULL, "out of memory");
    else if (kvplan_compare(d->model, o, p, c, &err) != KVPLAN_OK)
        st = kvplan__failed(w, &err, false);
    else
        kvplan__doc_compare(w, d, c);
    free(c);
    return st;
}

/* The command line of a sweep's row: the lists' picks, then the flags
 * they share. */
static size_t row_flags(const axis *ax, size_t naxes, const held *h,
                        const kvplan_sweep_row *r, const char **flags)
{
    size_t nf = 0;
    for (size_t k = 0; k < naxes; k++) {
        const char *v = ax[k].values[r->pick[k]];
        const kvplan_option *o = kvplan_option_find(ax[k].key);
        if (o == NULL || (strcmp(o->name, "speculative_algorithm") == 0 &&
                          strcmp(v, "none") == 0))
            continue;
        flags[nf++] = o->flag;
        flags[nf++] = v;
    }
    for (size_t k = 0; k < h->n; k++)
        flags[nf++] = h->argv[k];
    return nf;
}

/* A sweep's rows: each with its command line and its plan document. */
static kvplan_status ask_sweep(kvplan__writer *w, const kvplan__doc *d,
                               const kvplan_options *base, const axis *ax,
                               size_t naxes, const held *h, kvplan_plan *work)
{
    kvplan_sweep_axis axes[KVPLAN_MAX_SWEEP_AXES];
    size_t n = 1;
    for (size_t k = 0; k < naxes; k++) {
        axes[k] = (kvplan_sweep_axis){ax[k].key, ax[k].values, ax[k].n};
        n *= ax[k].n > 0 ? ax[k].n : 1;
    }
    if (n > KVPLAN_MAX_SWEEP_ROWS)
        return kvplan__refuse(w, KVPLAN_INVALID_ARGUMENT, 2, "flags",
                              "the lists make more than %d rows",
                              KVPLAN_MAX_SWEEP_ROWS);
    kvplan_sweep_row *rows = calloc(n, sizeof *rows);
    size_t *order = malloc(n * sizeof *order);
    kvplan_options *row = malloc(sizeof *row);
    kvplan_error err;
    kvplan_status st = KVPLAN_OK;
    if (rows == NULL || order == NULL || row == NULL) {
        st = kvplan__refuse(w, KVPLAN_NOMEM, 4, NULL, "out of memory");
    } else if (kvplan_sweep(d->model, base, axes, naxes, rows, n, work, &err) !=
               KVPLAN_OK) {
        st = kvplan__failed(w, &err, true);
    } else {
        kvplan_sweep_rank(rows, n, base->rank_by, order);
        kvplan__w_array(w, NULL);
        for (size_t i = 0; i < n && !w->t.bad; i++) {
            const kvplan_sweep_row *r = &rows[order[i]];
            const char *flags[2 * KVPLAN_MAX_SWEEP_AXES + MAX_HELD];
            size_t nf = row_flags(ax, naxes, h, r, flags);
            kvplan__doc rd = {row, d->loaded, d->model, {NULL, NULL, NULL}};
            bool planned = kvplan__sweep_row_plan(d->model, base, axes, naxes,
                                                  r, row, work);
            kvplan__doc_sweep_row(w, axes, naxes, r, i + 1, flags, nf, &rd,
                                  planned ? work : NULL);
        }
        kvplan__w_end(w);
        if (n > 0 && !rows[order[0]].fits)
            st = KVPLAN_NOT_ENOUGH_MEMORY; /* not one row fits */
    }
    free(rows);
    free(order);
    free(row);
    return st;
}

/* The first value of each list into the options, before they are loaded
 * (as the command loads them with its first row's flags). */
static kvplan_status first_row(kvplan__writer *w, kvplan_options *o,
                               const axis *ax, size_t naxes)
{
    kvplan_error err;
    for (size_t k = 0; k < naxes; k++) {
        const kvplan_option *opt = kvplan_option_find(ax[k].key);
        if (ax[k].n == 0) {
            return kvplan__refuse(w, KVPLAN_INVALID_ARGUMENT, 2, ax[k].key,
                                  "%s: expected a value or a list", ax[k].key);
        }
        if (strcmp(opt->name, "speculative_algorithm") == 0 &&
            strcmp(ax[k].values[0], "none") == 0)
            continue;
        if (kvplan_options_set(o, ax[k].key, ax[k].values[0], &err) !=
            KVPLAN_OK) {
            snprintf(err.field, sizeof err.field, "%.100s", ax[k].key);
            return kvplan__failed(w, &err, true);
        }
    }
    return KVPLAN_OK;
}

kvplan_status kvplan__ask(kvplan__writer *w, request *rq, kvplan_options *o,
                          held *h, axis *ax, size_t naxes, kvplan_plan *work,
                          kvplan_json_session *session)
{
    kvplan_error err;
    if (kvplan__options_for_question(o, rq->command, false, &err) != KVPLAN_OK)
        return kvplan__failed(w, &err, true);
    kvplan_status st = first_row(w, o, ax, naxes);
    if (st != KVPLAN_OK)
        return st;
    kvplan_loaded *l = malloc(sizeof *l);
    bool borrowed = false;
    if (l == NULL)
        return kvplan__refuse(w, KVPLAN_NOMEM, 4, NULL, "out of memory");
    if (kvplan__session_load(session, o, l, &borrowed, &err) != KVPLAN_OK) {
        free(l);
        if (rq->config == NULL && strcmp(err.field, "--model-path") == 0)
            snprintf(err.field, sizeof err.field, "model");
        return kvplan__failed(w, &err, false);
    }
    kvplan__doc d = {o, l, l->model, {NULL, NULL, NULL}};
    const char *c = rq->command;
    if (strcmp(c, "fit") == 0)
        st = ask_fit(w, rq, o, &d, work);
    else if (strcmp(c, "solve") == 0)
        st = ask_solve(w, rq, o, &d, work);
    else if (strcmp(c, "sweep") == 0)
        st = ask_sweep(w, &d, o, ax, naxes, h, work);
    else if (strcmp(c, "compare") == 0)
        st = ask_compare(w, o, &d, work);
    else
        st = ask_plan(w, rq, o, &d, work);
    if (!borrowed)
        kvplan_loaded_free(l);
    free(l);
    return st;
}

/* A vLLM log: its arguments under the request's, then its question. */
static kvplan_status ask_vllm_log(kvplan__writer *w, request *rq,
                                  kvplan_options *o, held *h, axis *ax,
                                  size_t *naxes)
{
    kvplan_vllm_log_readings *r = malloc(sizeof *r);
    kvplan_vllm_log_result *x = malloc(sizeof *x);
    kvplan__log_answer ans = {.model = NULL};
    kvplan_engine_options eo;
    kvplan_vllm_calibration cal;
    kvplan_error err;
    kvplan_status st;
    if (r == NULL || x == NULL)
        st = kvplan__refuse(w, KVPLAN_NOMEM, 4, NULL, "out of memory");
    else if (kvplan_vllm_log_parse(json_string_value(rq->log),
                                   json_string_length(rq->log), r,
                                   &err) != KVPLAN_OK ||
             kvplan__vllm_log_apply(r, o, &err) != KVPLAN_OK)
        st = kvplan__failed(w, &err, false);
    else if ((st = kvplan__request_options(w, rq, o, h, ax, naxes)) !=
             KVPLAN_OK)
        ; /* refused */
    else if (kvplan__vllm_log_question(o, r, &eo, x, &ans, &err) != KVPLAN_OK)
        st = kvplan__failed(w, &err, true);
    else if (json_is_true(rq->calibrate) &&
             kvplan_vllm_log_calibrate(r, &eo, &cal, &err) != KVPLAN_OK)
        st = kvplan__failed(w, &err, true);
    else
        kvplan__doc_vllm_log(w, r, ans.model_name, &eo, x,
                             json_is_true(rq->calibrate) ? &cal : NULL);
    kvplan__log_answer_free(&ans);
    free(r);
    free(x);
    return st;
}

/* A TensorRT-LLM log: the request's options, then its question. */
static kvplan_status ask_trtllm_log(kvplan__writer *w, request *rq,
                                    kvplan_options *o, held *h, axis *ax,
                                    size_t *naxes)
{
    kvplan_trtllm_log_readings *r = malloc(sizeof *r);
    kvplan_trtllm_log_result *x = malloc(sizeof *x);
    kvplan__log_answer ans = {.model = NULL};
    kvplan_engine_options eo;
    kvplan_error err;
    kvplan_status st;
    if (r == NULL || x == NULL)
        st = kvplan__refuse(w, KVPLAN_NOMEM, 4, NULL, "out of memory");
    else if (kvplan_trtllm_log_parse(json_string_value(rq->log),
                                     json_string_length(rq->log), r,
                                     &err) != KVPLAN_OK)
        st = kvplan__failed(w, &err, false);
    else if (json_is_true(rq->calibrate))
        st = kvplan__refuse(w, KVPLAN_UNSUPPORTED, 2, "calibrate",
                            "calibrate reads sglang and vLLM logs; a "
                            "TensorRT-LLM log's terms are not calibrated");
    else if ((st = kvplan__request_options(w, rq, o, h, ax, naxes)) !=
             KVPLAN_OK)
        ; /* refused */
    else if (kvplan__trtllm_log_question(o, r, &eo, x, &ans, &err) != KVPLAN_OK)
        st = kvplan__failed(w, &err, true);
    else
        kvplan__doc_trtllm_log(w, r, ans.model_name, &eo, x);
    kvplan__log_answer_free(&ans);
    free(r);
    free(x);
    return st;
}

kvplan_status kvplan__ask_log(kvplan__writer *w, request *rq, kvplan_options *o,
                              held *h, axis *ax, size_t *naxes,
                              kvplan_plan *work)
{
    kvplan_engine engine = kvplan_log_engine(json_string_value(rq->log),
                                             json_string_length(rq->log));
    if (engine == KVPLAN_ENGINE_VLLM)
        return ask_vllm_log(w, rq, o, h, ax, naxes);
    if (engine == KVPLAN_ENGINE_TRTLLM)
        return ask_trtllm_log(w, rq, o, h, ax, naxes);
    kvplan_log_readings *r = malloc(sizeof *r);
    kvplan_log_result *x = malloc(sizeof *x);
    kvplan__log_answer ans = {.model = NULL};
    kvplan_error err;
    kvplan_status st;
    if (r == NULL || x == NULL)
        st = kvplan__refuse(w, KVPLAN_NOMEM, 4, NULL, "out of memory");
    else if (kvplan_log_parse(json_string_value(rq->log),
                              json_string_length(rq->log), r,
                              &err) != KVPLAN_OK ||
             kvplan_log_options(r, &o->plan, &err) != KVPLAN_OK)
        st = kvplan__failed(w, &err, false);
    else if ((st = kvplan__request_options(w, rq, o, h, ax, naxes)) !=
             KVPLAN_OK)
        ; /* refused */
    else if (kvplan__options_for_question(o, "log", false, &err) != KVPLAN_OK)
        st = kvplan__failed(w, &err, true);
    else if (kvplan__log_question(o, r, work, x, &ans, &err) != KVPLAN_OK)
        st = kvplan__failed(w, &err, true);
    else if (json_is_true(rq->calibrate) &&
             kvplan__calibration_check(r, x, &err) != KVPLAN_OK)
        st = kvplan__failed(w, &err, false);
    else {
        kvplan__w_object(w, NULL);
        kvplan__doc_log_members(w, r, ans.model_name, x,
                                o->plan.sglang_version);
        if (json_is_true(rq->calibrate)) {
            kvplan_plan_options po = o->plan;
            po.gpu = x->gpu;
            kvplan__doc_calibration(w, "calibration", "log", r, &po,
                                    x->gpu_inferred,
                                    ans.model_name ? ans.model_name : "");
        }
        kvplan__w_end(w);
    }
    kvplan__log_answer_free(&ans);
    free(r);
    free(x);
    return st;
}
