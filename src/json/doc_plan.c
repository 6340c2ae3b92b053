/*
 * doc_plan.c: the plan written for a script: the document of --json and of
 * kvplan_json, schema docs/plan.schema.json. sglang's names at the top
 * level, the options as requested (from the option table) and as sglang
 * resolved them, the budget, the allocation, the stages, the fleet, the
 * notes.
 *
 * Out of memory anywhere gives no document at all (NULL), never a
 * document with holes.
 */
#include "json/doc.h"

#include "common/option_table.h"
#include "json/scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sets o[key] = v, remembering a failure (v NULL included). */
static void set(json_t *o, const char *key, json_t *v, bool *bad)
{
    if (v == NULL || json_object_set_new(o, key, v) != 0)
        *bad = true;
}

static json_t *opt_int(kvplan_opt_int v)
{
    return v.set ? json_integer(v.value) : json_null();
}

static json_t *lines_json(const kvplan__lines *l)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < l->n; i++)
        if (json_array_append_new(a, kvplan__json_text(l->text[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    if (a != NULL && l->dropped > 0) {
        char more[64];
        snprintf(more, sizeof more, "(%zu more lines left out)", l->dropped);
        if (json_array_append_new(a, json_string(more)) != 0) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

static json_t *model_json(const kvplan_model_info *info)
{
    return json_pack(
        "{s:o, s:o, s:o, s:o, s:I, s:I, s:I, s:I, s:b, s:b, s:b, s:b, s:b}",
        "name", kvplan__json_text(info->name), "hf_id", kvplan__json_text(info->hf_id),
        "architecture", kvplan__json_text(info->architecture), "model_type",
        kvplan__json_text(info->model_type), "num_hidden_layers",
        (json_int_t)info->num_hidden_layers, "num_key_value_heads",
        (json_int_t)info->num_key_value_heads, "head_dim",
        (json_int_t)info->head_dim, "v_head_dim", (json_int_t)info->v_head_dim,
        "is_mla", info->is_mla, "is_deepseek_dsa", info->is_deepseek_dsa,
        "is_hybrid_swa", info->is_hybrid_swa, "is_mambaish", info->is_mambaish,
        "is_deepseek_v4", info->is_deepseek_v4);
}

/* The server args as sglang resolved them (kvplan_plan.resolved) and the
 * plan's resolved values. */
static json_t *resolved_json(const kvplan__doc *d, const kvplan_plan *p)
{
    const kvplan_server_args *s = &p->resolved;
    const kvplan_stage_plan *sp = &p->stages[p->binding_stage];
    json_t *o = json_object();
    bool bad = o == NULL;
    if (bad)
        return NULL;
    set(o, "tp_size", json_integer(s->tp_size), &bad);
    set(o, "pp_size", json_integer(s->pp_size), &bad);
    set(o, "dp_size", json_integer(s->dp_size), &bad);
    set(o, "enable_dp_attention", json_boolean(s->enable_dp_attention), &bad);
    set(o, "page_size", json_integer(p->page_size), &bad);
    set(o, "attention_backend", json_string(p->attention_backend), &bad);
    set(o, "kv_cache_dtype",
        json_string(kvplan__kv_dtype_name(d, sp->rank.runner.kv_cache_dtype)),
        &bad);
    set(o, "dtype", json_string(kvplan_dtype_name(sp->rank.runner.dtype)),
        &bad);
    set(o, "chunked_prefill_size", json_integer(p->chunked_prefill_size), &bad);
    set(o, "max_prefill_tokens", json_integer(p->max_prefill_tokens), &bad);
    set(o, "cuda_graph_max_bs", json_integer(p->cuda_graph_max_bs), &bad);
    set(o, "mem_fraction_static",
        p->budget.given && p->budget.mem_fraction_auto
            ? json_null() /* the budget was given: no fraction used */
            : json_real(p->budget.mem_fraction_static),
        &bad);
    set(o, "max_running_requests", json_integer(p->max_running_requests), &bad);
    set(o, "context_len", json_integer(p->context_len), &bad);
    set(o, "swa_full_tokens_ratio",
        json_real(sp->rank.server_args.swa_full_tokens_ratio), &bad);
    set(o, "disable_radix_cache", json_boolean(s->disable_radix_cache), &bad);
    set(o, "disable_overlap_schedule",
        json_boolean(s->disable_overlap_schedule), &bad);
    const char *spec = kvplan_word_name(KVPLAN_WORDS_SPECULATIVE_ALGORITHM,
                                        (int)s->speculative_algorithm);
    set(o, "speculative_algorithm", spec ? json_string(spec) : json_null(),
        &bad);
    set(o, "speculative_num_steps", opt_int(s->speculative_num_steps), &bad);
    set(o, "speculative_eagle_topk", opt_int(s->speculative_eagle_topk), &bad);
    set(o, "speculative_num_draft_tokens",
        opt_int(s->speculative_num_draft_tokens), &bad);
    set(o, "disaggregation_mode",
        json_string(kvplan_word_name(KVPLAN_WORDS_DISAGGREGATION_MODE,
                                     (int)s->disaggregation_mode)),
        &bad);
    set(o, "disable_hybrid_swa_memory",
        json_boolean(s->disable_hybrid_swa_memory), &bad);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *tensors_json(const kvplan_budget *b)
{
    json_t *a = json_array();
    for (size_t i = 0; a != NULL && i < b->num_weight_tensors; i++) {
        const kvplan_weight_tensor *t = &b->weight_tensors[i];
        json_t *one = json_pack(
            "{s:s, s:[I,I], s:[I,I], s:I, s:f, s:I}", "name", t->name, "shape",
            (json_int_t)t->rows, (json_int_t)t->cols, "rank_shape",
            (json_int_t)t->rank_rows, (json_int_t)t->rank_cols, "count",
            (json_int_t)t->count, "elem_bytes", t->elem_bytes, "rank_bytes",
            (json_int_t)t->rank_bytes);
        if (one == NULL || json_array_append_new(a, one) != 0) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

/* What the weights' figure rests on. */
static const char *weights_basis(const kvplan__doc *d, const kvplan_budget *b)
{
    if (d->loaded->weights_measured)
        return d->loaded->hub_dir[0] ? "the checkpoint's safetensors headers, "
                                 "read from the Hub or its cache"
                               : "the model directory's safetensors headers";
    switch (b->weights_source) {
    case KVPLAN_SOURCE_GIVEN: return "--weight-bytes";
    case KVPLAN_SOURCE_MEASURED: return "a calibration (kvplan log --calibrate)";
    default: return "config.json, tensor by tensor";
    }
}

static json_t *budget_json(const kvplan__doc *d, const kvplan_plan *p)
{
    const kvplan_budget *b = &p->budget;
    const kvplan_stage_plan *sp = &p->stages[p->binding_stage];
    for (size_t i = 0; i < p->num_stages; i++) /* the heaviest rank */
        if (p->stages[i].weight_bytes > sp->weight_bytes)
            sp = &p->stages[i];
    const char *weights = d->loaded->weights_measured
                              ? "measured"
                              : kvplan_source_name(b->weights_source);
    json_t *o = json_pack(
        "{s:b, s:b, s:f, s:f, s:b, s:f, s:f, s:f, s:I, s:I, s:f}", "given",
        b->given, "weights_estimated", b->weights_estimated, "gpu_mem_mib",
        b->gpu_mem_mib, "mem_fraction_static", b->mem_fraction_static,
        "mem_fraction_auto", b->mem_fraction_auto, "reserved_mib",
        b->reserved_mib, "pre_load_gib", b->pre_load_gib, "post_load_gib",
        b->post_load_gib, "weight_bytes", (json_int_t)sp->weight_bytes,
        "draft_weight_bytes", (json_int_t)sp->draft_weight_bytes,
        "mamba_state_gib", b->mamba_gib);
    const char *gpu = d->o->gpu_memory_mib.set ? "given"
                      : d->o->gpu_auto         ? "measured"
                                               : "preset";
    json_t *terms = json_pack(
        "{s:{s:f, s:s}, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, "
        "s:{s:f, s:s, s:s?}, "
        "s:{s:s, s:s, s:f, s:f, s:o*}}",
        "gpu", "total_mib", b->gpu_mem_mib, "source", gpu,
        "fraction_rule", b->fraction_rule, "vision_factor", b->vision_factor,
        "aiter_factor", b->aiter_factor, "deepep_mib", b->deepep_mib,
        "mm_reserve_mib", b->mm_reserve_mib, "spec_reserve_mib",
        b->spec_reserve_mib,
        "graph_mib", b->graph_mib, "slack_gib", b->slack_gib, "fixed_gib",
        b->fixed_gib, "context", "gib", b->context_overhead_bytes / KVPLAN__GIB,
        "source", b->given ? "given" : kvplan_source_name(b->context_source),
        "basis", b->context_basis, "weights", "source", weights, "basis",
        weights_basis(d, b), "estimated_gib",
        b->estimated_rank_weight_bytes / KVPLAN__GIB, "load_overhead_gib", b->load_overhead_bytes / KVPLAN__GIB, "tensors",
        d->o->explain ? tensors_json(b) : NULL);
    if (o == NULL || terms == NULL || json_object_set_new(o, "terms", terms)) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *warnings_json(const kvplan__doc *d, const kvplan_plan *p)
{
    json_t *a = json_array();
    for (size_t i = 0; a != NULL && i < p->num_warnings; i++) {
        const kvplan_warning *w = &p->warnings[i];
        if (json_array_append_new(
                a, json_pack("{s:i, s:s?, s:o}", "code", (int)w->code,
                             "field", w->field, "message",
                             kvplan__json_text(w->message))) != 0) {
            json_decref(a);
            return NULL;
        }
    }
    char probe[240];
    if (a != NULL && kvplan__probe_short(d, p, probe, sizeof probe) &&
        json_array_append_new(a, json_pack("{s:i, s:s, s:s}", "code", 0,
                                           "field", "--gpu", "message",
                                           probe)) != 0) {
        json_decref(a);
        return NULL;
    }
    const struct kvplan__options_internal *in = &d->o->internal_;
    for (size_t i = 0; a != NULL && i < in->num_bad_env; i++) {
        char text[240];
        snprintf(text, sizeof text,
                 "%s is not a value of its kind; sglang warns and takes the "
                 "default, as kvplan does",
                 in->bad_env[i]);
        if (json_array_append_new(a, json_pack("{s:i, s:s, s:s}", "code", 0,
                                               "field", in->bad_env[i],
                                               "message", text)) != 0) {
            json_decref(a);
            return NULL;
        }
    }
    const kvplan_option *g;
    for (size_t i = 0; a != NULL && (g = kvplan__not_read(d->o, i)) != NULL;
         i++) {
        if (g->memory == NULL)
            continue;
        char text[240];
        snprintf(text, sizeof text, "%s is read by sglang, not by kvplan: %s",
                 g->flag, g->memory);
        if (json_array_append_new(a, json_pack("{s:i, s:s, s:s}", "code", 0,
                                               "field", g->flag, "message",
                                               text)) != 0) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

static json_t *ignored_json(const kvplan__doc *d)
{
    json_t *a = json_array();
    const kvplan_option *g;
    for (size_t i = 0; a != NULL && (g = kvplan__not_read(d->o, i)) != NULL;
         i++)
        if (json_array_append_new(
                a, json_pack("{s:s, s:s?}", "flag", g->flag, "memory",
                             g->memory)) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

static json_t *allocated_json(const kvplan_allocation *a)
{
    return json_pack("{s:I, s:I, s:I, s:I, s:I}", "kv_bytes",
                     (json_int_t)a->kv_bytes, "predicted_kv_bytes",
                     (json_int_t)a->predicted_kv_bytes, "draft_kv_bytes",
                     (json_int_t)a->draft_kv_bytes, "req_to_token_bytes",
                     (json_int_t)a->req_to_token_bytes, "mamba_state_bytes",
                     (json_int_t)a->mamba_state_bytes);
}

json_t *kvplan__doc_capacity(const kvplan_capacity *c)
{
    int64_t cost[KVPLAN_MAX_POOLS] = {0};
    kvplan_request_cost(c, c->context_len, 0, cost, NULL);
    json_t *pools = json_array();
    for (size_t i = 0; pools != NULL && i < c->num_pools; i++) {
        const kvplan_pool_info *p = &c->pools[i];
        json_t *one = json_pack(
            "{s:s, s:I, s:f, s:I, s:I, s:I, s:f, s:I, s:I, s:I}", "name",
            kvplan_pool_kind_name(p->kind), "capacity_tokens",
            (json_int_t)p->capacity_tokens, "bytes_per_token",
            p->bytes_per_token, "page_size", (json_int_t)p->page_size,
            "reserved_tokens", (json_int_t)p->reserved_tokens,
            "request_cap", (json_int_t)p->request_cap, "tokens_per_unit",
            p->tokens_per_unit, "units_per_step",
            (json_int_t)p->units_per_step, "per_request",
            (json_int_t)p->per_request, "context_len_request_tokens",
            (json_int_t)cost[i]);
        if (one == NULL || json_array_append_new(pools, one) != 0) {
            json_decref(pools);
            return NULL;
        }
    }
    if (pools == NULL)
        return NULL;
    return json_pack(
        "{s:o, s:I, s:s, s:I, s:s, s:I, s:I}", "pools", pools,
        "longest_request_tokens", (json_int_t)c->longest_request_tokens,
        "longest_binding",
        kvplan__binding_name(c, c->longest_binding, c->longest_pool),
        "max_concurrency_at_context_len",
        (json_int_t)c->max_concurrency_at_context_len, "binding",
        kvplan__binding_name(c, c->binding, c->binding_pool),
        "max_running_requests", (json_int_t)c->max_running_requests,
        "req_to_token_rows", (json_int_t)c->req_to_token_rows);
}

static json_t *stages_json(const kvplan_plan *p)
{
    json_t *stages = json_array();
    for (size_t i = 0; stages != NULL && i < p->num_stages; i++) {
        const kvplan_stage_plan *st = &p->stages[i];
        json_t *one = json_pack(
            "{s:I, s:I, s:I, s:I, s:I, s:I, s:b}", "pp_rank",
            (json_int_t)st->pp_rank, "start_layer",
            (json_int_t)st->rank.runner.start_layer, "end_layer",
            (json_int_t)st->rank.runner.end_layer,
            "profiled_max_total_num_tokens",
            (json_int_t)st->profiled.max_total_num_tokens,
            "max_total_num_tokens", (json_int_t)st->pools.max_total_num_tokens,
            "kv_bytes", (json_int_t)st->allocation.kv_bytes, "binds",
            i == p->binding_stage);
        if (one == NULL || json_array_append_new(stages, one) != 0) {
            json_decref(stages);
            return NULL;
        }
    }
    return stages;
}

/* --compare-version: the plan's options under the other sglang too. */
static json_t *compare_version(const kvplan__doc *d)
{
    kvplan_version_comparison *c = malloc(sizeof *c);
    kvplan_plan *work = malloc(sizeof *work);
    json_t *doc = NULL;
    if (c != NULL && work != NULL &&
        kvplan_version_compare(d->model, &d->o->plan, d->o->compare_version,
                               work, c, NULL) == KVPLAN_OK)
        doc = kvplan__doc_version_compare(c);
    free(c);
    free(work);
    return doc;
}

/* ---- the echo of what was requested ---------------------------------------
 */

/* Where a row's value is kept in `o`. */
static const void *field_of(const kvplan_options *o,
                            const kvplan__option_row *row)
{
    const char *base = (const char *)o;
    switch (row->region) {
    case KVPLAN__IN_PLAN:
        base = (const char *)&o->plan;
        break;
    case KVPLAN__IN_SERVER:
        base = (const char *)&o->plan.server;
        break;
    case KVPLAN__IN_ENGINE:
        base = (const char *)&o->engine_options;
        break;
    case KVPLAN__IN_OPTIONS:
        break;
    }
    return base + row->offset;
}

static json_t *echo(const kvplan_options *o, const kvplan__option_row *row)
{
    const void *field = field_of(o, row);
    const struct kvplan__options_internal *in = &o->internal_;
    int w;
    switch (row->store) {
    case KVPLAN__STORE_OPT_INT:
    case KVPLAN__STORE_BYTES: {
        const kvplan_opt_int *x = field;
        return x->set ? json_integer(x->value) : json_null();
    }
    case KVPLAN__STORE_INT: { /* below its least only when never given */
        int64_t x = *(const int64_t *)field;
        return (double)x < row->pub.min ? json_null() : json_integer(x);
    }
    case KVPLAN__STORE_DOUBLE:
    case KVPLAN__STORE_GPU_MEMORY: {
        const kvplan_opt_double *x = field;
        return x->set ? json_real(x->value) : json_null();
    }
    case KVPLAN__STORE_BOOL:
        return json_boolean(*(const bool *)field);
    case KVPLAN__STORE_WORD: {
        memcpy(&w, field, sizeof w);
        const char *name = kvplan_word_name((kvplan_word_set)row->pub.words, w);
        return name ? json_string(name) : json_null(); /* none: null */
    }
    case KVPLAN__STORE_NAME:
    case KVPLAN__STORE_TEXT: {
        const char *s = *(const char *const *)field;
        return s ? kvplan__json_text(s) : json_null();
    }
    case KVPLAN__STORE_GPU:
        return in->gpu_text ? kvplan__json_text(in->gpu_text) : json_null();
    case KVPLAN__STORE_ENGINE:
        return in->engine_text ? kvplan__json_text(in->engine_text)
                               : json_null();
    case KVPLAN__STORE_VERSION: {
        const char *t = row->region == KVPLAN__IN_OPTIONS
                            ? in->compare_version_text
                            : in->sglang_version_text;
        return t ? kvplan__json_text(t) : json_null();
    }
    case KVPLAN__STORE_HISPARSE:
        return in->hisparse_text
                   ? json_real(o->plan.server.hisparse_host_to_device_ratio)
                   : json_null();
    default:
        return json_null();
    }
}

json_t *kvplan__doc_requested(const kvplan_options *o)
{
    json_t *doc = json_object();
    for (size_t i = 0; doc != NULL && i < kvplan__num_option_rows; i++) {
        const kvplan__option_row *row = &kvplan__option_rows[i];
        if (!row->pub.echo)
            continue;
        const char *key = row->echo_key ? row->echo_key : row->pub.name;
        if (json_object_set_new(doc, key, echo(o, row)) != 0) {
            json_decref(doc);
            return NULL;
        }
    }
    return doc;
}

/* ---- the plan ---------------------------------------------------------------
 */

json_t *kvplan__doc_plan(const kvplan__doc *d, const kvplan_plan *p)
{
    const kvplan_model_info *info = kvplan_model_get_info(d->model);
    const kvplan_stage_plan *sp = &p->stages[p->binding_stage];
    const kvplan_budget *b = &p->budget;
    json_t *o = json_object();
    if (o == NULL)
        return NULL;
    bool bad = false;
    /* sglang's names at the top: the answer `kvplan pools` gives for the
     * binding stage (its tokens are the cluster's after the PP minimum,
     * and max_running_requests is set by the plan) */
    json_t *answer = kvplan__pool_config_json(&sp->configurator, &sp->pools);
    if (answer == NULL || json_object_update(o, answer) != 0)
        bad = true;
    json_decref(answer);
    set(o, "schema_version", json_integer(KVPLAN__PLAN_SCHEMA_VERSION), &bad);
    set(o, "kvplan_version", json_string(kvplan_version()), &bad);
    set(o, "sglang_version", kvplan__doc_version(p), &bad);
    if (d->o->compare_version_set)
        set(o, "compare_version", compare_version(d), &bad);
    set(o, "model", model_json(info), &bad);
    set(o, "gpu",
        b->given ? json_null()
                 : json_pack("{s:o, s:s, s:f, s:i, s:i}", "name",
                             kvplan__json_text(d->o->plan.gpu.name),
                             "arch", d->o->plan.gpu.arch, "total_mib",
                             b->gpu_mem_mib, "compute_capability",
                             d->o->plan.gpu.compute_capability, "count",
                             (int)p->fleet.gpus),
        &bad);
    set(o, "requested", kvplan__doc_requested(d->o), &bad);
    set(o, "resolved", resolved_json(d, p), &bad);
    set(o, "context_len", json_integer(p->context_len), &bad);
    set(o, "page_size", json_integer(p->page_size), &bad);
    set(o, "available_bytes", json_integer(sp->available_bytes), &bad);
    set(o, "kv_cache_dtype",
        json_string(kvplan__kv_dtype_name(d, sp->rank.runner.kv_cache_dtype)),
        &bad);
    set(o, "longest_request", json_integer(p->longest_request), &bad);
    set(o, "capacity", kvplan__doc_capacity(&p->capacity), &bad);
    set(o, "fleet",
        json_pack("{s:I, s:I, s:I, s:I, s:I, s:f}", "gpus",
                  (json_int_t)p->fleet.gpus, "gpus_per_replica",
                  (json_int_t)p->fleet.gpus_per_replica, "replicas",
                  (json_int_t)p->fleet.replicas, "dp_workers",
                  (json_int_t)p->fleet.dp_workers,
                  "concurrency_at_context_len",
                  (json_int_t)p->fleet.concurrency_at_context_len,
                  "concurrency_per_gpu", p->fleet.concurrency_per_gpu),
        &bad);
    set(o, "budget", budget_json(d, p), &bad);
    set(o, "warnings", warnings_json(d, p), &bad);
    set(o, "ignored_flags", ignored_json(d), &bad);
    set(o, "allocated", allocated_json(&sp->allocation), &bad);
    set(o, "stages", stages_json(p), &bad);
    kvplan__lines l = {.n = 0};
    kvplan__notes(&l, p);
    kvplan__hub_notes(&l, d);
    set(o, "notes", lines_json(&l), &bad);
    /* org/name: where it was read; null for a path or a catalog name */
    set(o, "model_source",
        d->loaded->source ? json_string(d->loaded->source) : json_null(),
        &bad);
    if (d->o->explain) {
        l.n = l.dropped = 0;
        kvplan__explain_cell(&l, sp);
        kvplan__explain_budget(&l, d, p);
        kvplan__explain_serving(&l, d, p);
        set(o, "explain", lines_json(&l), &bad);
    }
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}
