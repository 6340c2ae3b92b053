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
#include "options/options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void lines_json(kvplan__writer *w, const char *key,
                       const kvplan__lines *l)
{
    kvplan__w_array(w, key);
    for (size_t i = 0; i < l->n; i++)
        kvplan__w_str(w, NULL, l->text[i]);
    if (l->dropped > 0) {
        char more[64];
        snprintf(more, sizeof more, "(%zu more lines left out)", l->dropped);
        kvplan__w_str(w, NULL, more);
    }
    kvplan__w_end(w);
}

static void model_json(kvplan__writer *w, const kvplan_model_info *info)
{
    kvplan__w_object(w, "model");
    kvplan__w_str(w, "architecture", info->architecture);
    kvplan__w_int(w, "head_dim", info->head_dim);
    kvplan__w_str(w, "hf_id", info->hf_id);
    kvplan__w_bool(w, "is_deepseek_dsa", info->is_deepseek_dsa);
    kvplan__w_bool(w, "is_deepseek_v4", info->is_deepseek_v4);
    kvplan__w_bool(w, "is_hybrid_swa", info->is_hybrid_swa);
    kvplan__w_bool(w, "is_mambaish", info->is_mambaish);
    kvplan__w_bool(w, "is_mla", info->is_mla);
    kvplan__w_str(w, "model_type", info->model_type);
    kvplan__w_str(w, "name", info->name);
    kvplan__w_int(w, "num_hidden_layers", info->num_hidden_layers);
    kvplan__w_int(w, "num_key_value_heads", info->num_key_value_heads);
    kvplan__w_int(w, "v_head_dim", info->v_head_dim);
    kvplan__w_end(w);
}

/* The server args as sglang resolved them (kvplan_plan.resolved) and the
 * plan's resolved values. */
static void resolved_json(kvplan__writer *w, const kvplan__doc *d,
                          const kvplan_plan *p)
{
    const kvplan_server_args *s = &p->resolved;
    const kvplan_stage_plan *sp = &p->stages[p->binding_stage];
    kvplan__w_object(w, "resolved");
    kvplan__w_int(w, "tp_size", s->tp_size);
    kvplan__w_int(w, "pp_size", s->pp_size);
    kvplan__w_int(w, "dp_size", s->dp_size);
    kvplan__w_bool(w, "enable_dp_attention", s->enable_dp_attention);
    kvplan__w_int(w, "page_size", p->page_size);
    kvplan__w_str(w, "attention_backend", p->attention_backend);
    kvplan__w_str(w, "kv_cache_dtype",
                  kvplan__kv_dtype_name(d, sp->rank.runner.kv_cache_dtype));
    kvplan__w_str(w, "dtype", kvplan_dtype_name(sp->rank.runner.dtype));
    kvplan__w_int(w, "chunked_prefill_size", p->chunked_prefill_size);
    kvplan__w_int(w, "max_prefill_tokens", p->max_prefill_tokens);
    kvplan__w_int(w, "cuda_graph_max_bs", p->cuda_graph_max_bs);
    if (p->budget.given && p->budget.mem_fraction_auto)
        kvplan__w_null(w, "mem_fraction_static"); /* the budget was given:
                                                     no fraction used */
    else
        kvplan__w_real(w, "mem_fraction_static", p->budget.mem_fraction_static);
    kvplan__w_int(w, "max_running_requests", p->max_running_requests);
    kvplan__w_int(w, "context_len", p->context_len);
    kvplan__w_real(w, "swa_full_tokens_ratio",
                   sp->rank.server_args.swa_full_tokens_ratio);
    kvplan__w_bool(w, "disable_radix_cache", s->disable_radix_cache);
    kvplan__w_bool(w, "disable_overlap_schedule", s->disable_overlap_schedule);
    kvplan__w_str(w, "speculative_algorithm",
                  kvplan_word_name(KVPLAN_WORDS_SPECULATIVE_ALGORITHM,
                                   (int)s->speculative_algorithm));
    kvplan__w_opt_int(w, "speculative_num_steps", s->speculative_num_steps);
    kvplan__w_opt_int(w, "speculative_eagle_topk", s->speculative_eagle_topk);
    kvplan__w_opt_int(w, "speculative_num_draft_tokens",
                      s->speculative_num_draft_tokens);
    kvplan__w_str(w, "disaggregation_mode",
                  kvplan_word_name(KVPLAN_WORDS_DISAGGREGATION_MODE,
                                   (int)s->disaggregation_mode));
    kvplan__w_bool(w, "disable_hybrid_swa_memory",
                   s->disable_hybrid_swa_memory);
    kvplan__w_end(w);
}

static void pair(kvplan__writer *w, const char *key, int64_t a, int64_t b)
{
    kvplan__w_array(w, key);
    kvplan__w_int(w, NULL, a);
    kvplan__w_int(w, NULL, b);
    kvplan__w_end(w);
}

static void tensors_json(kvplan__writer *w, const kvplan_budget *b)
{
    kvplan__w_array(w, "tensors");
    for (size_t i = 0; i < b->num_weight_tensors; i++) {
        const kvplan_weight_tensor *t = &b->weight_tensors[i];
        kvplan__w_object(w, NULL);
        kvplan__w_int(w, "count", t->count);
        kvplan__w_real(w, "elem_bytes", t->elem_bytes);
        kvplan__w_str(w, "name", t->name);
        kvplan__w_int(w, "rank_bytes", t->rank_bytes);
        pair(w, "rank_shape", t->rank_rows, t->rank_cols);
        pair(w, "shape", t->rows, t->cols);
        kvplan__w_end(w);
    }
    kvplan__w_end(w);
}

/* What the weights' figure rests on. */
static const char *weights_basis(const kvplan__doc *d, const kvplan_budget *b)
{
    if (d->loaded->weights_measured)
        return d->loaded->hub_dir[0]
                   ? "the checkpoint's safetensors headers, "
                     "read from the Hub or its cache"
                   : "the model directory's safetensors headers";
    switch (b->weights_source) {
    case KVPLAN_SOURCE_GIVEN:
        return "--weight-bytes";
    case KVPLAN_SOURCE_MEASURED:
        return "a calibration (kvplan log --calibrate)";
    default:
        return "config.json, tensor by tensor";
    }
}

static void budget_terms(kvplan__writer *w, const kvplan__doc *d,
                         const kvplan_budget *b)
{
    const char *weights = d->loaded->weights_measured
                              ? "measured"
                              : kvplan_source_name(b->weights_source);
    kvplan__w_object(w, "terms");
    kvplan__w_object(w, "gpu");
    kvplan__w_real(w, "total_mib", b->gpu_mem_mib);
    kvplan__w_str(w, "source",
                  d->o->gpu_memory_mib.set ? "given"
                  : d->o->gpu_auto         ? "measured"
                                           : "preset");
    if (d->o->plan.gpu_set && d->o->plan.gpu.in_use_mib > 0) {
        kvplan__w_real(w, "in_use_mib", d->o->plan.gpu.in_use_mib);
        kvplan__w_str(w, "in_use_by", d->o->plan.gpu.in_use_by);
    }
    kvplan__w_end(w);
    kvplan__w_real(w, "fraction_rule", b->fraction_rule);
    kvplan__w_real(w, "vision_factor", b->vision_factor);
    kvplan__w_real(w, "aiter_factor", b->aiter_factor);
    kvplan__w_real(w, "deepep_mib", b->deepep_mib);
    kvplan__w_real(w, "mm_reserve_mib", b->mm_reserve_mib);
    kvplan__w_real(w, "spec_reserve_mib", b->spec_reserve_mib);
    kvplan__w_real(w, "graph_mib", b->graph_mib);
    kvplan__w_real(w, "slack_gib", b->slack_gib);
    kvplan__w_real(w, "fixed_gib", b->fixed_gib);
    kvplan__w_object(w, "context");
    kvplan__w_real(w, "gib", b->context_overhead_bytes / KVPLAN__GIB);
    kvplan__w_str(w, "source",
                  b->given ? "given" : kvplan_source_name(b->context_source));
    kvplan__w_str(w, "basis", b->context_basis);
    kvplan__w_end(w);
    kvplan__w_object(w, "weights");
    kvplan__w_str(w, "source", weights);
    kvplan__w_str(w, "basis", weights_basis(d, b));
    kvplan__w_real(w, "estimated_gib",
                   b->estimated_rank_weight_bytes / KVPLAN__GIB);
    kvplan__w_real(w, "load_overhead_gib",
                   b->load_overhead_bytes / KVPLAN__GIB);
    kvplan_model_params params;
    if (d->model != NULL &&
        kvplan_model_parameters(d->model, &params, NULL) == KVPLAN_OK)
        kvplan__w_int(w, "params", params.total);
    if (d->o->explain)
        tensors_json(w, b);
    kvplan__w_end(w);
    kvplan__w_end(w);
}

static void budget_json(kvplan__writer *w, const kvplan__doc *d,
                        const kvplan_plan *p)
{
    const kvplan_budget *b = &p->budget;
    const kvplan_stage_plan *sp = &p->stages[p->binding_stage];
    for (size_t i = 0; i < p->num_stages; i++) /* the heaviest rank */
        if (p->stages[i].weight_bytes > sp->weight_bytes)
            sp = &p->stages[i];
    kvplan__w_object(w, "budget");
    kvplan__w_bool(w, "given", b->given);
    kvplan__w_bool(w, "weights_estimated", b->weights_estimated);
    kvplan__w_real(w, "gpu_mem_mib", b->gpu_mem_mib);
    kvplan__w_real(w, "mem_fraction_static", b->mem_fraction_static);
    kvplan__w_bool(w, "mem_fraction_auto", b->mem_fraction_auto);
    kvplan__w_real(w, "reserved_mib", b->reserved_mib);
    kvplan__w_real(w, "pre_load_gib", b->pre_load_gib);
    kvplan__w_real(w, "post_load_gib", b->post_load_gib);
    kvplan__w_int(w, "weight_bytes", sp->weight_bytes);
    kvplan__w_int(w, "draft_weight_bytes", sp->draft_weight_bytes);
    kvplan__w_real(w, "mamba_state_gib", b->mamba_gib);
    budget_terms(w, d, b);
    kvplan__w_end(w);
}

static void warning(kvplan__writer *w, int code, const char *field,
                    const char *message)
{
    kvplan__w_object(w, NULL);
    kvplan__w_int(w, "code", code);
    kvplan__w_str(w, "field", field);
    kvplan__w_str(w, "message", message);
    kvplan__w_end(w);
}

static void warnings_json(kvplan__writer *w, const kvplan__doc *d,
                          const kvplan_plan *p)
{
    kvplan__w_array(w, "warnings");
    for (size_t i = 0; i < p->num_warnings; i++)
        warning(w, (int)p->warnings[i].code, p->warnings[i].field,
                p->warnings[i].message);
    char probe[240];
    if (kvplan__probe_short(d, p, probe, sizeof probe))
        warning(w, 0, "--gpu", probe);
    const struct kvplan__options_internal *in = &d->o->internal_;
    for (size_t i = 0; i < in->num_bad_env; i++) {
        char text[240];
        snprintf(text, sizeof text,
                 "%s is not a value of its kind; sglang warns and takes the "
                 "default, as kvplan does",
                 in->bad_env[i]);
        warning(w, 0, in->bad_env[i], text);
    }
    const kvplan_option *g;
    char unused[320];
    for (size_t i = 0;
         (g = kvplan__options_unused(d->o, i, unused, sizeof unused)) != NULL;
         i++)
        warning(w, 0, g->flag, unused);
    for (size_t i = 0; (g = kvplan__not_read(d->o, i)) != NULL; i++) {
        if (g->memory == NULL)
            continue;
        char text[240];
        snprintf(text, sizeof text, "%s is read by sglang, not by kvplan: %s",
                 g->flag, g->memory);
        warning(w, 0, g->flag, text);
    }
    kvplan__w_end(w);
}

static void ignored_json(kvplan__writer *w, const kvplan__doc *d)
{
    kvplan__w_array(w, "ignored_flags");
    const kvplan_option *g;
    for (size_t i = 0; (g = kvplan__not_read(d->o, i)) != NULL; i++) {
        kvplan__w_object(w, NULL);
        kvplan__w_str(w, "flag", g->flag);
        kvplan__w_str(w, "memory", g->memory);
        kvplan__w_end(w);
    }
    kvplan__w_end(w);
}

static void allocated_json(kvplan__writer *w, const kvplan_allocation *a)
{
    kvplan__w_object(w, "allocated");
    kvplan__w_int(w, "draft_kv_bytes", a->draft_kv_bytes);
    kvplan__w_int(w, "kv_bytes", a->kv_bytes);
    kvplan__w_int(w, "mamba_state_bytes", a->mamba_state_bytes);
    kvplan__w_int(w, "predicted_kv_bytes", a->predicted_kv_bytes);
    kvplan__w_int(w, "req_to_token_bytes", a->req_to_token_bytes);
    kvplan__w_end(w);
}

void kvplan__doc_capacity(kvplan__writer *w, const char *key,
                          const kvplan_capacity *c)
{
    int64_t cost[KVPLAN_MAX_POOLS] = {0};
    kvplan_request_cost(c, c->context_len, 0, cost, NULL);
    kvplan__w_object(w, key);
    kvplan__w_array(w, "pools");
    for (size_t i = 0; i < c->num_pools; i++) {
        const kvplan_pool_info *p = &c->pools[i];
        kvplan__w_object(w, NULL);
        kvplan__w_real(w, "bytes_per_token", p->bytes_per_token);
        kvplan__w_int(w, "capacity_tokens", p->capacity_tokens);
        kvplan__w_int(w, "context_len_request_tokens", cost[i]);
        kvplan__w_str(w, "name", kvplan_pool_kind_name(p->kind));
        kvplan__w_int(w, "page_size", p->page_size);
        kvplan__w_int(w, "per_request", p->per_request);
        kvplan__w_int(w, "request_cap", p->request_cap);
        kvplan__w_int(w, "reserved_tokens", p->reserved_tokens);
        kvplan__w_real(w, "tokens_per_unit", p->tokens_per_unit);
        kvplan__w_int(w, "units_per_step", p->units_per_step);
        kvplan__w_end(w);
    }
    kvplan__w_end(w);
    kvplan__w_int(w, "longest_request_tokens", c->longest_request_tokens);
    kvplan__w_str(w, "longest_binding",
                  kvplan__binding_name(c, c->longest_binding, c->longest_pool));
    kvplan__w_int(w, "max_concurrency_at_context_len",
                  c->max_concurrency_at_context_len);
    kvplan__w_str(w, "binding",
                  kvplan__binding_name(c, c->binding, c->binding_pool));
    kvplan__w_int(w, "max_running_requests", c->max_running_requests);
    kvplan__w_int(w, "req_to_token_rows", c->req_to_token_rows);
    kvplan__w_end(w);
}

static void stages_json(kvplan__writer *w, const kvplan_plan *p)
{
    kvplan__w_array(w, "stages");
    for (size_t i = 0; i < p->num_stages; i++) {
        const kvplan_stage_plan *st = &p->stages[i];
        kvplan__w_object(w, NULL);
        kvplan__w_bool(w, "binds", i == p->binding_stage);
        kvplan__w_int(w, "end_layer", st->rank.runner.end_layer);
        kvplan__w_int(w, "kv_bytes", st->allocation.kv_bytes);
        kvplan__w_int(w, "max_total_num_tokens",
                      st->pools.max_total_num_tokens);
        kvplan__w_int(w, "pp_rank", st->pp_rank);
        kvplan__w_int(w, "profiled_max_total_num_tokens",
                      st->profiled.max_total_num_tokens);
        kvplan__w_int(w, "start_layer", st->rank.runner.start_layer);
        kvplan__w_end(w);
    }
    kvplan__w_end(w);
}

/* --compare-version: the plan's options under the other sglang too. */
static void compare_version(kvplan__writer *w, const kvplan__doc *d)
{
    kvplan_version_comparison *c = malloc(sizeof *c);
    kvplan_plan *work = malloc(sizeof *work);
    if (c != NULL && work != NULL &&
        kvplan_version_compare(d->model, &d->o->plan, d->o->compare_version,
                               work, c, NULL) == KVPLAN_OK)
        kvplan__doc_version_compare(w, "compare_version", c);
    else
        w->t.bad = true; /* as out of memory: no document with holes */
    free(c);
    free(work);
}

/* ---- the echo of what was requested ---------------------------------------
 */

static void echo(kvplan__writer *w, const char *key, const kvplan_options *o,
                 const kvplan__option_row *row)
{
    const void *field = kvplan__option_value(o, row);
    const struct kvplan__options_internal *in = &o->internal_;
    int word;
    switch (row->store) {
    case KVPLAN__STORE_OPT_INT:
    case KVPLAN__STORE_BYTES: {
        const kvplan_opt_int *v = field;
        if (row->zero_is_auto && v->set && v->value == 0)
            kvplan__w_str(w, key, "auto"); /* --max-model-len auto */
        else
            kvplan__w_opt_int(w, key, *v);
        return;
    }
    case KVPLAN__STORE_INT: { /* below its least only when never given */
        int64_t x = *(const int64_t *)field;
        if ((double)x < row->pub.min)
            kvplan__w_null(w, key);
        else
            kvplan__w_int(w, key, x);
        return;
    }
    case KVPLAN__STORE_INT32:
        kvplan__w_int(w, key, *(const int32_t *)field);
        return;
    case KVPLAN__STORE_DOUBLE:
    case KVPLAN__STORE_GPU_MEMORY:
        kvplan__w_opt_real(w, key, *(const kvplan_opt_double *)field);
        return;
    case KVPLAN__STORE_BOOL:
        kvplan__w_bool(w, key, *(const bool *)field);
        return;
    case KVPLAN__STORE_WORD: /* none: null */
        memcpy(&word, field, sizeof word);
        kvplan__w_str(w, key,
                      kvplan_word_name((kvplan_word_set)row->pub.words, word));
        return;
    case KVPLAN__STORE_NAME:
    case KVPLAN__STORE_TEXT:
        kvplan__w_str(w, key, *(const char *const *)field);
        return;
    case KVPLAN__STORE_GPU:
        kvplan__w_str(w, key, in->gpu_text);
        return;
    case KVPLAN__STORE_ENGINE:
        kvplan__w_str(w, key, in->engine_text);
        return;
    case KVPLAN__STORE_VLLM_VERSION:
        kvplan__w_str(w, key, in->vllm_version_text);
        return;
    case KVPLAN__STORE_TRTLLM_VERSION:
        kvplan__w_str(w, key, in->trtllm_version_text);
        return;
    case KVPLAN__STORE_VERSION:
        kvplan__w_str(w, key,
                      row->region == KVPLAN__IN_OPTIONS
                          ? in->compare_version_text
                          : in->sglang_version_text);
        return;
    case KVPLAN__STORE_HISPARSE:
        if (in->hisparse_text)
            kvplan__w_real(w, key,
                           o->plan.server.hisparse_host_to_device_ratio);
        else
            kvplan__w_null(w, key);
        return;
    default:
        kvplan__w_null(w, key);
        return;
    }
}

void kvplan__doc_requested(kvplan__writer *w, const char *key,
                           const kvplan_options *o)
{
    kvplan__w_object(w, key);
    for (size_t i = 0; i < kvplan__num_option_rows; i++) {
        const kvplan__option_row *row = &kvplan__option_rows[i];
        if (row->pub.echo)
            echo(w, row->echo_key ? row->echo_key : row->pub.name, o, row);
    }
    kvplan__w_end(w);
}

/* ---- the plan ---------------------------------------------------------------
 */

static void gpu_json(kvplan__writer *w, const kvplan__doc *d,
                     const kvplan_plan *p)
{
    if (p->budget.given) {
        kvplan__w_null(w, "gpu");
        return;
    }
    kvplan__w_object(w, "gpu");
    kvplan__w_str(w, "arch", d->o->plan.gpu.arch);
    kvplan__w_int(w, "compute_capability", d->o->plan.gpu.compute_capability);
    kvplan__w_int(w, "count", p->fleet.gpus);
    kvplan__w_str(w, "name", d->o->plan.gpu.name);
    kvplan__w_real(w, "total_mib", p->budget.gpu_mem_mib);
    kvplan__w_end(w);
}

static void fleet_json(kvplan__writer *w, const kvplan_fleet *f)
{
    kvplan__w_object(w, "fleet");
    kvplan__w_int(w, "concurrency_at_context_len",
                  f->concurrency_at_context_len);
    kvplan__w_real(w, "concurrency_per_gpu", f->concurrency_per_gpu);
    kvplan__w_int(w, "dp_workers", f->dp_workers);
    kvplan__w_int(w, "gpus", f->gpus);
    kvplan__w_int(w, "gpus_per_replica", f->gpus_per_replica);
    kvplan__w_int(w, "replicas", f->replicas);
    kvplan__w_end(w);
}

/* The plan's picture, for "svg": true. */
static void picture(kvplan__writer *w, const kvplan__doc *d,
                    const kvplan_plan *p)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    int bad = f == NULL || kvplan__svg_plan(f, d, p) != 0;
    if ((f != NULL && fclose(f) != 0) || bad)
        w->t.bad = true;
    else
        kvplan__w_strn(w, "svg", buf, n);
    free(buf);
}

void kvplan__doc_plan(kvplan__writer *w, const char *key, const kvplan__doc *d,
                      const kvplan_plan *p, bool svg)
{
    const kvplan_model_info *info = kvplan_model_get_info(d->model);
    const kvplan_stage_plan *sp = &p->stages[p->binding_stage];
    kvplan__w_object(w, key);
    /* sglang's names at the top: the answer `kvplan pools` gives for the
     * binding stage (its tokens are the cluster's after the PP minimum,
     * and max_running_requests is set by the plan) */
    kvplan__pool_config_members(w, &sp->configurator, &sp->pools);
    kvplan__w_int(w, "schema_version", KVPLAN__PLAN_SCHEMA_VERSION);
    kvplan__w_str(w, "kvplan_version", kvplan_version());
    kvplan__doc_version(w, "sglang_version", p);
    if (d->o->compare_version_set)
        compare_version(w, d);
    model_json(w, info);
    gpu_json(w, d, p);
    kvplan__doc_requested(w, "requested", d->o);
    resolved_json(w, d, p);
    kvplan__w_int(w, "context_len", p->context_len);
    kvplan__w_int(w, "page_size", p->page_size);
    kvplan__w_int(w, "available_bytes", sp->available_bytes);
    kvplan__w_str(w, "kv_cache_dtype",
                  kvplan__kv_dtype_name(d, sp->rank.runner.kv_cache_dtype));
    kvplan__w_int(w, "longest_request", p->longest_request);
    kvplan__doc_capacity(w, "capacity", &p->capacity);
    fleet_json(w, &p->fleet);
    budget_json(w, d, p);
    warnings_json(w, d, p);
    ignored_json(w, d);
    allocated_json(w, &sp->allocation);
    stages_json(w, p);
    kvplan__lines l; /* its 15 KiB of text are written before read */
    l.n = l.dropped = 0;
    kvplan__notes(&l, p);
    kvplan__hub_notes(&l, d);
    lines_json(w, "notes", &l);
    /* org/name: where it was read; null for a path or a catalog name */
    kvplan__w_str(w, "model_source", d->loaded->source);
    if (d->o->explain) {
        l.n = l.dropped = 0;
        kvplan__explain_cell(&l, sp);
        kvplan__explain_budget(&l, d, p);
        kvplan__explain_serving(&l, d, p);
        lines_json(w, "explain", &l);
    }
    if (svg)
        picture(w, d, p);
    kvplan__w_end(w);
}
