/*
 * doc_questions.c: the questions' documents: fit's and solve's heads (the
 * answer, with the plan at it under "plan"), solve's answer written into
 * the options (the plan printed is the forward plan at it), and a sweep's
 * rows (docs/capacity.md).
 */
#include "json/doc.h"

#include <string.h>

json_t *kvplan__doc_fit(int64_t n, const kvplan_plan *p)
{
    const kvplan_capacity *c = &p->capacity;
    const char *binding =
        kvplan__binding_name(c, c->binding, c->binding_pool);
    if (n > 0)
        return json_pack("{s:I, s:I, s:I, s:s}", "concurrency", (json_int_t)n,
                         "context_length", (json_int_t)p->context_len,
                         "max_concurrency_at_context_len",
                         (json_int_t)c->max_concurrency_at_context_len,
                         "binding", binding);
    return json_pack("{s:I, s:I, s:s}", "context_length",
                     (json_int_t)p->context_len, "concurrency",
                     (json_int_t)c->max_concurrency_at_context_len, "binding",
                     binding);
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

json_t *kvplan__doc_solve(kvplan_knob knob, const kvplan_solution *sol,
                          const kvplan_target *t, const kvplan_plan *p)
{
    json_t *v = NULL;
    switch (knob) {
    case KVPLAN_KNOB_MEM_FRACTION_STATIC:
    case KVPLAN_KNOB_SWA_FULL_TOKENS_RATIO:
        v = json_real(sol->value);
        break;
    case KVPLAN_KNOB_TP_SIZE:
    case KVPLAN_KNOB_MAX_RUNNING_REQUESTS:
        v = json_integer((json_int_t)sol->value);
        break;
    case KVPLAN_KNOB_GPU:
        v = json_string(sol->gpu.name);
        break;
    case KVPLAN_KNOB_KV_CACHE_DTYPE:
        v = json_string(kvplan_word_name(KVPLAN_WORDS_KV_CACHE_DTYPE,
                                         (int)sol->kv_cache_dtype));
        break;
    }
    json_t *target =
        t->tokens > 0
            ? json_pack("{s:I}", "tokens", (json_int_t)t->tokens)
            : json_pack("{s:I, s:I}", "concurrency", (json_int_t)t->concurrency,
                        "context_length", (json_int_t)p->context_len);
    return json_pack("{s:s, s:o, s:o, s:I, s:I}", "solve_for",
                     kvplan_knob_name(knob), "value", v, "target", target,
                     "figure", (json_int_t)sol->figure, "plans",
                     (json_int_t)sol->plans);
}

json_t *kvplan__doc_solve_none(const kvplan_error *e,
                               const kvplan_solution *sol)
{
    return json_pack("{s:s, s:s, s:s, s:b, s:I, s:I, s:i}", "error",
                     kvplan_status_name(e->code), "field", e->field, "message",
                     e->message, "found", 0, "best", (json_int_t)sol->best,
                     "plans", (json_int_t)sol->plans, "exit_status", 1);
}

const char *kvplan__row_binding(const kvplan_sweep_row *r)
{
    return r->binding == KVPLAN_LIMIT_POOL
               ? kvplan_pool_kind_name(r->binding_pool)
               : kvplan_limit_name(r->binding);
}

json_t *kvplan__doc_sweep_row(const kvplan_sweep_axis *axes, size_t naxes,
                              const kvplan_sweep_row *r, size_t rank,
                              const char *const *flags, size_t nflags,
                              json_t *plan)
{
    json_t *inputs = json_object(), *list = json_array();
    for (size_t k = 0; inputs != NULL && k < naxes; k++) {
        /* the option's flag without its dashes: "tp-size" */
        const kvplan_option *o = kvplan_option_find(axes[k].option);
        const char *key = o != NULL ? o->flag + 2 : axes[k].option;
        json_object_set_new(inputs, key,
                            json_string(axes[k].values[r->pick[k]]));
    }
    for (size_t i = 0; list != NULL && i < nflags; i++)
        json_array_append_new(list, kvplan__json_text(flags[i]));
    json_t *o = json_pack("{s:I, s:o, s:o, s:b, s:b}", "rank",
                          (json_int_t)rank, "inputs", inputs, "flags", list,
                          "plans", r->status == KVPLAN_OK, "fits", r->fits);
    if (o == NULL) {
        json_decref(plan);
        return NULL;
    }
    if (r->status != KVPLAN_OK) {
        const kvplan_error *e = &r->error;
        json_object_set_new(
            o, "error",
            json_pack("{s:s, s:o, s:o}", "error", kvplan_status_name(r->status),
                      "field",
                      e->field[0] ? kvplan__json_text(e->field) : json_null(),
                      "message", kvplan__json_text(e->message)));
        return o;
    }
    json_object_set_new(o, "gpus", json_integer(r->fleet.gpus));
    json_object_set_new(o, "concurrency",
                        json_integer(r->fleet.concurrency_at_context_len));
    json_object_set_new(o, "concurrency_per_gpu",
                        json_real(r->fleet.concurrency_per_gpu));
    json_object_set_new(o, "binding", json_string(kvplan__row_binding(r)));
    if (plan == NULL) {
        json_decref(o);
        return NULL;
    }
    json_object_set_new(o, "plan", plan);
    return o;
}
