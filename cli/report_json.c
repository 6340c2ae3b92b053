/*
 * report_json.c: the plan written for a script: the --json document,
 * schema docs/plan.schema.json (schema_version 2). sglang's names at the
 * top level, the flags as requested (from the flag table) and as sglang
 * resolved them, the budget, the allocation, the stages, the notes.
 *
 * Out of memory anywhere gives no document at all (NULL), never a
 * document with holes.
 */
#include "explain.h"
#include "jsonout.h"
#include "report.h"
#include "scenario.h"
#include "versions.h"

#include <stdio.h>

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

static json_t *lines_json(const cli_lines *l)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < l->n; i++)
        if (json_array_append_new(a, cli_json_text(l->text[i])) != 0) {
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
        "name", cli_json_text(info->name), "hf_id", cli_json_text(info->hf_id),
        "architecture", cli_json_text(info->architecture), "model_type",
        cli_json_text(info->model_type), "num_hidden_layers",
        (json_int_t)info->num_hidden_layers, "num_key_value_heads",
        (json_int_t)info->num_key_value_heads, "head_dim",
        (json_int_t)info->head_dim, "v_head_dim", (json_int_t)info->v_head_dim,
        "is_mla", info->is_mla, "is_deepseek_dsa", info->is_deepseek_dsa,
        "is_hybrid_swa", info->is_hybrid_swa, "is_mambaish", info->is_mambaish,
        "is_deepseek_v4", info->is_deepseek_v4);
}

/* The server args as sglang resolved them (kvplan_plan.resolved) and the
 * plan's resolved values. */
static json_t *resolved_json(const cli_args *cli, const kvplan_plan *p)
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
        json_string(cli_kv_dtype_name(cli, sp->rank.runner.kv_cache_dtype)),
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
static const char *weights_basis(const cli_args *cli, const kvplan_budget *b)
{
    if (cli->loaded.weights_measured)
        return cli->loaded.hub_dir[0] ? "the checkpoint's safetensors headers, "
                                 "read from the Hub or its cache"
                               : "the model directory's safetensors headers";
    switch (b->weights_source) {
    case KVPLAN_SOURCE_GIVEN: return "--weight-bytes";
    case KVPLAN_SOURCE_MEASURED: return "a calibration (kvplan log --calibrate)";
    default: return "config.json, tensor by tensor";
    }
}

static json_t *budget_json(const cli_args *cli, const kvplan_plan *p)
{
    const kvplan_budget *b = &p->budget;
    const kvplan_stage_plan *sp = &p->stages[p->binding_stage];
    for (size_t i = 0; i < p->num_stages; i++) /* the heaviest rank */
        if (p->stages[i].weight_bytes > sp->weight_bytes)
            sp = &p->stages[i];
    const char *weights = cli->loaded.weights_measured
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
    const char *gpu = cli->o.gpu_memory_mib.set ? "given"
                      : cli->o.gpu_auto     ? "measured"
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
        b->fixed_gib, "context", "gib", b->context_overhead_bytes / GIB,
        "source", b->given ? "given" : kvplan_source_name(b->context_source),
        "basis", b->context_basis, "weights", "source", weights, "basis",
        weights_basis(cli, b), "estimated_gib",
        b->estimated_rank_weight_bytes / GIB, "load_overhead_gib", b->load_overhead_bytes / GIB, "tensors",
        cli->o.explain ? tensors_json(b) : NULL);
    if (o == NULL || terms == NULL || json_object_set_new(o, "terms", terms)) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *warnings_json(const cli_args *cli, const kvplan_plan *p)
{
    json_t *a = json_array();
    for (size_t i = 0; a != NULL && i < p->num_warnings; i++) {
        const kvplan_warning *w = &p->warnings[i];
        if (json_array_append_new(
                a, json_pack("{s:i, s:s?, s:o}", "code", (int)w->code,
                             "field", w->field, "message",
                             cli_json_text(w->message))) != 0) {
            json_decref(a);
            return NULL;
        }
    }
    char probe[240];
    if (a != NULL && cli_probe_short(cli, p, probe, sizeof probe) &&
        json_array_append_new(a, json_pack("{s:i, s:s, s:s}", "code", 0,
                                           "field", "--gpu", "message",
                                           probe)) != 0) {
        json_decref(a);
        return NULL;
    }
    for (size_t i = 0; a != NULL && i < cli->o.internal_.num_bad_env; i++) {
        char text[240];
        snprintf(text, sizeof text,
                 "%s is not a value of its kind; sglang warns and takes the "
                 "default, as kvplan does",
                 cli->o.internal_.bad_env[i]);
        if (json_array_append_new(a, json_pack("{s:i, s:s, s:s}", "code", 0,
                                               "field", cli->o.internal_.bad_env[i],
                                               "message", text)) != 0) {
            json_decref(a);
            return NULL;
        }
    }
    const kvplan_option *g;
    for (size_t i = 0; a != NULL && (g = cli_not_read(cli, i)) != NULL; i++) {
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

static json_t *ignored_json(const cli_args *cli)
{
    json_t *a = json_array();
    const kvplan_option *g;
    for (size_t i = 0; a != NULL && (g = cli_not_read(cli, i)) != NULL; i++)
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

json_t *cli_capacity_json(const kvplan_capacity *c)
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
        cli_binding_name(c, c->longest_binding, c->longest_pool),
        "max_concurrency_at_context_len",
        (json_int_t)c->max_concurrency_at_context_len, "binding",
        cli_binding_name(c, c->binding, c->binding_pool),
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

json_t *cli_report_json(const cli_args *cli, const kvplan_model *model,
                        const kvplan_plan *p)
{
    const kvplan_model_info *info = kvplan_model_get_info(model);
    const kvplan_stage_plan *sp = &p->stages[p->binding_stage];
    const kvplan_budget *b = &p->budget;
    json_t *o = json_object();
    if (o == NULL)
        return NULL;
    bool bad = false;
    /* sglang's names at the top: the answer `kvplan pools` gives for the
     * binding stage (its tokens are the cluster's after the PP minimum,
     * and max_running_requests is set by the plan) */
    json_t *answer = cli_pool_config_json(&sp->configurator, &sp->pools);
    if (answer == NULL || json_object_update(o, answer) != 0)
        bad = true;
    json_decref(answer);
    set(o, "schema_version", json_integer(CLI_PLAN_SCHEMA_VERSION), &bad);
    set(o, "kvplan_version", json_string(kvplan_version()), &bad);
    set(o, "sglang_version", cli_version_json(p), &bad);
    if (cli->o.internal_.compare_version_text != NULL)
        set(o, "compare_version", cli_compare_json(cli, model, p), &bad);
    set(o, "model", model_json(info), &bad);
    set(o, "gpu",
        b->given ? json_null()
                 : json_pack("{s:o, s:s, s:f, s:i, s:i}", "name",
                             cli_json_text(cli->o.plan.gpu.name),
                             "arch", cli->o.plan.gpu.arch, "total_mib",
                             b->gpu_mem_mib, "compute_capability",
                             cli->o.plan.gpu.compute_capability, "count",
                             (int)p->fleet.gpus),
        &bad);
    set(o, "requested", cli_requested_json(cli), &bad);
    set(o, "resolved", resolved_json(cli, p), &bad);
    set(o, "context_len", json_integer(p->context_len), &bad);
    set(o, "page_size", json_integer(p->page_size), &bad);
    set(o, "available_bytes", json_integer(sp->available_bytes), &bad);
    set(o, "kv_cache_dtype",
        json_string(cli_kv_dtype_name(cli, sp->rank.runner.kv_cache_dtype)),
        &bad);
    set(o, "longest_request", json_integer(p->longest_request), &bad);
    set(o, "capacity", cli_capacity_json(&p->capacity), &bad);
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
    set(o, "budget", budget_json(cli, p), &bad);
    set(o, "warnings", warnings_json(cli, p), &bad);
    set(o, "ignored_flags", ignored_json(cli), &bad);
    set(o, "allocated", allocated_json(&sp->allocation), &bad);
    set(o, "stages", stages_json(p), &bad);
    cli_lines l = {.n = 0};
    cli_notes(&l, p);
    cli_hub_notes(&l, cli);
    set(o, "notes", lines_json(&l), &bad);
    /* org/name: where it was read; null for a path or a catalog name */
    set(o, "model_source",
        cli->loaded.source ? json_string(cli->loaded.source) : json_null(),
        &bad);
    if (cli->o.explain) {
        l.n = l.dropped = 0;
        cli_explain_cell(&l, model, sp);
        cli_explain_budget(&l, cli, p);
        cli_explain_serving(&l, cli, model, p);
        set(o, "explain", lines_json(&l), &bad);
    }
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}
