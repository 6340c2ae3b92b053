/*
 * doc_log.c: kvplan log's documents (schema docs/log.schema.json): what an
 * sglang start-up log printed, the plan rebuilt from it and each
 * difference with its cause; and a calibration, what the log measured for
 * kvplan --calibration (docs/log.md).
 */
#include "json/doc.h"

static void opt_b(kvplan__writer *w, const char *key, kvplan_opt_int v)
{
    if (v.set)
        kvplan__w_bool(w, key, v.value != 0);
    else
        kvplan__w_null(w, key);
}

/* An empty text is null. */
static void text_or_null(kvplan__writer *w, const char *key, const char *s)
{
    kvplan__w_str(w, key, s[0] ? s : NULL);
}

static void ranks_json(kvplan__writer *w, const kvplan_log_readings *r)
{
    kvplan__w_array(w, "per_rank");
    for (size_t i = 0; i < r->num_rank_readings; i++) {
        const kvplan_log_rank *k = &r->rank_readings[i];
        kvplan__w_object(w, NULL);
        kvplan__w_int(w, "rank", k->rank);
        kvplan__w_opt_real(w, "free_before_gib", k->free_before_gib);
        kvplan__w_opt_real(w, "free_after_gib", k->free_after_gib);
        kvplan__w_opt_real(w, "weights_gib", k->weights_gib);
        kvplan__w_end(w);
    }
    kvplan__w_end(w);
}

static void args_json(kvplan__writer *w, const kvplan_log_args *a)
{
    kvplan__w_object(w, "server_args");
    kvplan__w_bool(w, "present", a->present);
    text_or_null(w, "model_path", a->model_path);
    text_or_null(w, "dtype", a->dtype);
    text_or_null(w, "kv_cache_dtype", a->kv_cache_dtype);
    text_or_null(w, "quantization", a->quantization);
    text_or_null(w, "attention_backend", a->attention_backend);
    text_or_null(w, "speculative_algorithm", a->speculative_algorithm);
    kvplan__w_opt_real(w, "mem_fraction_static", a->mem_fraction_static);
    kvplan__w_opt_int(w, "tp_size", a->tp_size);
    kvplan__w_opt_int(w, "pp_size", a->pp_size);
    kvplan__w_opt_int(w, "dp_size", a->dp_size);
    kvplan__w_opt_int(w, "page_size", a->page_size);
    kvplan__w_opt_int(w, "context_length", a->context_length);
    kvplan__w_opt_int(w, "chunked_prefill_size", a->chunked_prefill_size);
    kvplan__w_opt_int(w, "max_prefill_tokens", a->max_prefill_tokens);
    kvplan__w_opt_int(w, "max_running_requests", a->max_running_requests);
    kvplan__w_opt_int(w, "max_total_tokens", a->max_total_tokens);
    kvplan__w_opt_int(w, "cuda_graph_max_bs", a->cuda_graph_max_bs);
    opt_b(w, "enable_dp_attention", a->enable_dp_attention);
    opt_b(w, "disable_cuda_graph", a->disable_cuda_graph);
    opt_b(w, "disable_radix_cache", a->disable_radix_cache);
    opt_b(w, "is_embedding", a->is_embedding);
    kvplan__w_opt_int(w, "ep_size", a->ep_size);
    text_or_null(w, "speculative_draft_model_path",
                 a->speculative_draft_model_path);
    kvplan__w_opt_int(w, "speculative_num_steps", a->speculative_num_steps);
    kvplan__w_opt_int(w, "speculative_eagle_topk", a->speculative_eagle_topk);
    kvplan__w_opt_int(w, "speculative_num_draft_tokens",
                      a->speculative_num_draft_tokens);
    kvplan__w_end(w);
}

static void readings_json(kvplan__writer *w, const kvplan_log_readings *r)
{
    kvplan__w_object(w, "readings");
    kvplan__w_int(w, "lines", (int64_t)r->lines);
    kvplan__w_int(w, "lines_read", (int64_t)r->lines_used);
    kvplan__w_int(w, "ranks", (int64_t)r->ranks);
    text_or_null(w, "date", r->date);
    kvplan__w_opt_real(w, "free_before_gib", r->free_before_gib);
    kvplan__w_opt_real(w, "free_after_gib", r->free_after_gib);
    kvplan__w_opt_real(w, "weights_gib", r->weights_gib);
    kvplan__w_opt_real(w, "distributed_gib", r->distributed_gib);
    kvplan__w_opt_real(w, "pool_end_gib", r->pool_end_gib);
    kvplan__w_opt_int(w, "kv_tokens", r->kv_tokens);
    kvplan__w_opt_real(w, "k_size_gib", r->k_size_gib);
    kvplan__w_opt_real(w, "v_size_gib", r->v_size_gib);
    kvplan__w_opt_real(w, "kv_size_gib", r->kv_size_gib);
    kvplan__w_opt_int(w, "max_total_num_tokens", r->max_total_num_tokens);
    kvplan__w_opt_int(w, "max_prefill_tokens", r->max_prefill_tokens);
    kvplan__w_opt_int(w, "max_running_requests", r->max_running_requests);
    kvplan__w_opt_int(w, "context_len", r->context_len);
    kvplan__w_opt_real(w, "available_gpu_mem_gib", r->available_gpu_mem_gib);
    text_or_null(w, "model_class", r->model_class);
    text_or_null(w, "model_dtype", r->model_dtype);
    text_or_null(w, "kv_dtype", r->kv_dtype);
    args_json(w, &r->args);
    ranks_json(w, r);
    kvplan__w_end(w);
}

static void interval(kvplan__writer *w, const char *key, bool set, int64_t lo,
                     int64_t hi)
{
    if (!set) {
        kvplan__w_null(w, key);
        return;
    }
    kvplan__w_array(w, key);
    kvplan__w_int(w, NULL, lo);
    kvplan__w_int(w, NULL, hi);
    kvplan__w_end(w);
}

static void inputs_json(kvplan__writer *w, const kvplan_log_readings *r,
                        const char *model, const kvplan_log_result *x,
                        kvplan_sglang_profile version)
{
    kvplan__w_object(w, "inputs");
    kvplan__w_str(w, "model", model != NULL && model[0] ? model : NULL);
    text_or_null(w, "gpu", x->gpu.name);
    if (x->gpu.name[0])
        kvplan__w_real(w, "gpu_mem_mib", x->gpu.total_mib);
    else
        kvplan__w_null(w, "gpu_mem_mib");
    kvplan__w_bool(w, "gpu_inferred", x->gpu_inferred);
    if (x->interval || x->modelled)
        kvplan__w_real(w, "mem_fraction_static", x->mem_fraction_static);
    else
        kvplan__w_null(w, "mem_fraction_static");
    kvplan__w_bool(w, "fraction_from_log", x->fraction_from_log);
    kvplan__w_object(w, "sglang_version");
    text_or_null(w, "named", r->sglang_version);
    kvplan__w_str(w, "profile", kvplan_sglang_profile_name(version));
    kvplan__w_end(w);
    kvplan__w_end(w);
}

void kvplan__doc_log_members(kvplan__writer *w, const kvplan_log_readings *r,
                             const char *model, const kvplan_log_result *x,
                             kvplan_sglang_profile version)
{
    kvplan__w_int(w, "schema_version", 1);
    readings_json(w, r);
    inputs_json(w, r, model, x, version);
    interval(w, "available_interval", x->interval, x->available_lo,
             x->available_hi);
    interval(w, "tokens_interval", x->interval, x->tokens_lo, x->tokens_hi);
    kvplan__w_opt_int(w, "logged_tokens", x->logged_tokens);
    if (x->interval && x->logged_tokens.set)
        kvplan__w_bool(w, "inside", x->inside);
    else
        kvplan__w_null(w, "inside");
    if (x->modelled) {
        kvplan__w_object(w, "modelled");
        kvplan__w_real(w, "free_before_gib", x->free_before_gib);
        kvplan__w_real(w, "free_after_gib", x->free_after_gib);
        kvplan__w_real(w, "weights_gib", x->weights_gib);
        kvplan__w_int(w, "max_total_num_tokens", x->tokens);
        kvplan__w_int(w, "kv_bytes", x->kv_bytes);
        kvplan__w_int(w, "max_running_requests", x->max_running_requests);
        kvplan__w_int(w, "context_len", x->context_len);
        kvplan__w_end(w);
    } else {
        kvplan__w_null(w, "modelled");
    }
    kvplan__doc_log_causes(w, x->causes, x->num_causes);
}

void kvplan__doc_log_causes(kvplan__writer *w, const kvplan_log_cause *causes,
                            size_t n)
{
    kvplan__w_array(w, "causes");
    for (size_t i = 0; i < n; i++) {
        kvplan__w_object(w, NULL);
        kvplan__w_str(w, "cause", kvplan_log_cause_name(causes[i].code));
        kvplan__w_str(w, "row", causes[i].row);
        kvplan__w_str(w, "text", causes[i].text);
        kvplan__w_end(w);
    }
    kvplan__w_end(w);
}

void kvplan__doc_calibration(kvplan__writer *w, const char *key,
                             const char *source, const kvplan_log_readings *r,
                             const kvplan_plan_options *o, bool gpu_inferred,
                             const char *model)
{
    double before = r->free_before_gib.value;
    double weights = kvplan_log_weights_gib(r).value; /* checked set */
    kvplan__w_object(w, key);
    kvplan__w_int(w, "kvplan_calibration", 1);
    kvplan__w_str(w, "source", source);
    kvplan__w_str(w, "model", model);
    kvplan__w_str(w, "gpu", o->gpu.name);
    kvplan__w_bool(w, "gpu_inferred", gpu_inferred);
    kvplan__w_real(w, "gpu_mem_mib", o->gpu.total_mib);
    kvplan__w_int(w, "tp_size", o->server.tp_size);
    kvplan__w_int(w, "pp_size", o->server.pp_size);
    kvplan__w_real(w, "free_before_gib", before);
    /* what the GPU held before the weights: context, communicators */
    kvplan__w_int(
        w, "context_bytes",
        (int64_t)(o->gpu.total_mib * 1048576.0 - before * KVPLAN__GIB));
    kvplan__w_int(w, "rank_weight_bytes", (int64_t)(weights * KVPLAN__GIB));
    kvplan__w_end(w);
}
