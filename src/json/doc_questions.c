/*
 * doc_questions.c: the questions' documents: fit's and solve's heads (the
 * answer, with the plan at it under "plan"), solve's answer written into
 * the options (the plan printed is the forward plan at it), and a sweep's
 * rows (docs/capacity.md).
 */
#include "json/doc.h"

#include <string.h>

void kvplan__doc_fit_head(kvplan__writer *w, int64_t n, const kvplan_plan *p)
{
    const kvplan_capacity *c = &p->capacity;
    kvplan__w_str(w, "binding",
                  kvplan__binding_name(c, c->binding, c->binding_pool));
    kvplan__w_int(w, "context_length", p->context_len);
    if (n > 0) {
        kvplan__w_int(w, "concurrency", n);
        kvplan__w_int(w, "max_concurrency_at_context_len",
                      c->max_concurrency_at_context_len);
    } else {
        kvplan__w_int(w, "concurrency", c->max_concurrency_at_context_len);
    }
}

void kvplan__solution_apply(kvplan_options *opts, kvplan_knob knob,
                            const kvplan_solution *sol)
{
    kvplan_plan_options *o = &opts->plan;
    switch (knob) {
    case KVPLAN_KNOB_MEM_FRACTION_STATIC:
        o->mem_fraction_static = (kvplan_opt_double){sol->value, true};
        break;
    case KVPLAN_KNOB_SWA_FULL_TOKENS_RATIO:
        o->server.swa_full_tokens_ratio = (kvplan_opt_double){sol->value, true};
        break;
    case KVPLAN_KNOB_TP_SIZE:
        o->server.tp_size = (int64_t)sol->value;
        break;
    case KVPLAN_KNOB_MAX_RUNNING_REQUESTS:
        o->server.max_running_requests =
            (kvplan_opt_int){(int64_t)sol->value, true};
        break;
    case KVPLAN_KNOB_GPU:
        o->gpu = sol->gpu;
        o->gpu_set = true;
        opts->internal_.gpu_text = o->gpu.name;
        break;
    case KVPLAN_KNOB_KV_CACHE_DTYPE:
        o->server.kv_cache_dtype = sol->kv_cache_dtype;
        break;
    }
}

void kvplan__doc_solve_head(kvplan__writer *w, kvplan_knob knob,
                            const kvplan_solution *sol, const kvplan_target *t,
                            const kvplan_plan *p)
{
    kvplan__w_str(w, "solve_for", kvplan_knob_name(knob));
    switch (knob) {
    case KVPLAN_KNOB_MEM_FRACTION_STATIC:
    case KVPLAN_KNOB_SWA_FULL_TOKENS_RATIO:
        kvplan__w_real(w, "value", sol->value);
        break;
    case KVPLAN_KNOB_TP_SIZE:
    case KVPLAN_KNOB_MAX_RUNNING_REQUESTS:
        kvplan__w_int(w, "value", (int64_t)sol->value);
        break;
    case KVPLAN_KNOB_GPU:
        kvplan__w_str(w, "value", sol->gpu.name);
        break;
    case KVPLAN_KNOB_KV_CACHE_DTYPE:
        kvplan__w_str(w, "value",
                      kvplan_word_name(KVPLAN_WORDS_KV_CACHE_DTYPE,
                                       (int)sol->kv_cache_dtype));
        break;
    }
    kvplan__w_object(w, "target");
    if (t->tokens > 0) {
        kvplan__w_int(w, "tokens", t->tokens);
    } else {
        kvplan__w_int(w, "concurrency", t->concurrency);
        kvplan__w_int(w, "context_length", p->context_len);
    }
    kvplan__w_end(w);
    kvplan__w_int(w, "figure", sol->figure);
    kvplan__w_int(w, "plans", sol->plans);
}

void kvplan__doc_solve_none(kvplan__writer *w, const kvplan_error *e,
                            const kvplan_solution *sol)
{
    kvplan__w_reset(w);
    kvplan__w_object(w, NULL);
    kvplan__w_str(w, "error", kvplan_status_name(e->code));
    kvplan__w_str(w, "field", e->field);
    kvplan__w_str(w, "message", e->message);
    kvplan__w_bool(w, "found", false);
    kvplan__w_int(w, "best", sol->best);
    kvplan__w_int(w, "plans", sol->plans);
    kvplan__w_int(w, "exit_status", 1);
    kvplan__w_end(w);
}

bool kvplan__sweep_row_plan(const kvplan_model *m, const kvplan_options *base,
                            const kvplan_sweep_axis *axes, size_t naxes,
                            const kvplan_sweep_row *r, kvplan_options *row,
                            kvplan_plan *work)
{
    return r->status == KVPLAN_OK &&
           kvplan_sweep_row_options(base, axes, naxes, r, row, NULL) ==
               KVPLAN_OK &&
           kvplan_plan_compute(m, &row->plan, work, NULL) == KVPLAN_OK;
}

const char *kvplan__row_binding(const kvplan_sweep_row *r)
{
    return r->binding == KVPLAN_LIMIT_POOL
               ? kvplan_pool_kind_name(r->binding_pool)
               : kvplan_limit_name(r->binding);
}

void kvplan__doc_sweep_row(kvplan__writer *w, const kvplan_sweep_axis *axes,
                           size_t naxes, const kvplan_sweep_row *r, size_t rank,
                           const char *const *flags, size_t nflags,
                           const kvplan__doc *rd, const kvplan_plan *plan)
{
    kvplan__w_object(w, NULL);
    kvplan__w_int(w, "rank", (int64_t)rank);
    kvplan__w_object(w, "inputs");
    for (size_t k = 0; k < naxes; k++) {
        /* the option's flag without its dashes: "tp-size" */
        const kvplan_option *o = kvplan_option_find(axes[k].option);
        kvplan__w_str(w, o != NULL ? o->flag + 2 : axes[k].option,
                      axes[k].values[r->pick[k]]);
    }
    kvplan__w_end(w);
    kvplan__w_array(w, "flags");
    for (size_t i = 0; i < nflags; i++)
        kvplan__w_str(w, NULL, flags[i]);
    kvplan__w_end(w);
    kvplan__w_bool(w, "plans", r->status == KVPLAN_OK);
    kvplan__w_bool(w, "fits", r->fits);
    if (r->status != KVPLAN_OK) {
        const kvplan_error *e = &r->error;
        kvplan__w_object(w, "error");
        kvplan__w_str(w, "error", kvplan_status_name(r->status));
        kvplan__w_str(w, "field", e->field[0] ? e->field : NULL);
        kvplan__w_str(w, "message", e->message);
        kvplan__w_end(w);
    } else {
        kvplan__w_int(w, "gpus", r->fleet.gpus);
        kvplan__w_int(w, "concurrency", r->fleet.concurrency_at_context_len);
        kvplan__w_real(w, "concurrency_per_gpu", r->fleet.concurrency_per_gpu);
        kvplan__w_str(w, "binding", kvplan__row_binding(r));
        if (plan != NULL)
            kvplan__doc_plan(w, "plan", rd, plan, false);
        else
            w->t.bad = true; /* a row that plans is planned again */
    }
    kvplan__w_end(w);
}
