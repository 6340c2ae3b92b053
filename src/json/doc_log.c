/*
 * doc_log.c: kvplan log's documents (schema docs/log.schema.json): what an
 * sglang start-up log printed, the plan rebuilt from it and each
 * difference with its cause; and a calibration, what the log measured for
 * kvplan --calibration (docs/log.md).
 */
#include "json/doc.h"

static json_t *opt_d(kvplan_opt_double v)
{
    return v.set ? json_real(v.value) : json_null();
}

static json_t *opt_i(kvplan_opt_int v)
{
    return v.set ? json_integer((json_int_t)v.value) : json_null();
}

static json_t *opt_b(kvplan_opt_int v)
{
    return v.set ? json_boolean(v.value != 0) : json_null();
}

static json_t *text_or_null(const char *s)
{
    return s[0] ? kvplan__json_text(s) : json_null();
}

static json_t *ranks_json(const kvplan_log_readings *r)
{
    json_t *a = json_array();
    for (size_t i = 0; a != NULL && i < r->num_rank_readings; i++) {
        const kvplan_log_rank *k = &r->rank_readings[i];
        json_array_append_new(
            a, json_pack("{s:I, s:o, s:o, s:o}", "rank", (json_int_t)k->rank,
                         "free_before_gib", opt_d(k->free_before_gib),
                         "free_after_gib", opt_d(k->free_after_gib),
                         "weights_gib", opt_d(k->weights_gib)));
    }
    return a;
}

static json_t *readings_json(const kvplan_log_readings *r)
{
    const kvplan_log_args *a = &r->args;
    json_t *args = json_pack(
        "{s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, "
        "s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, "
        "s:o}",
        "present", a->present, "model_path", text_or_null(a->model_path),
        "dtype", text_or_null(a->dtype), "kv_cache_dtype",
        text_or_null(a->kv_cache_dtype), "quantization",
        text_or_null(a->quantization), "attention_backend",
        text_or_null(a->attention_backend), "speculative_algorithm",
        text_or_null(a->speculative_algorithm), "mem_fraction_static",
        opt_d(a->mem_fraction_static), "tp_size", opt_i(a->tp_size), "pp_size",
        opt_i(a->pp_size), "dp_size", opt_i(a->dp_size), "page_size",
        opt_i(a->page_size), "context_length", opt_i(a->context_length),
        "chunked_prefill_size", opt_i(a->chunked_prefill_size),
        "max_prefill_tokens", opt_i(a->max_prefill_tokens),
        "max_running_requests", opt_i(a->max_running_requests),
        "max_total_tokens", opt_i(a->max_total_tokens), "cuda_graph_max_bs",
        opt_i(a->cuda_graph_max_bs), "enable_dp_attention",
        opt_b(a->enable_dp_attention), "disable_cuda_graph",
        opt_b(a->disable_cuda_graph), "disable_radix_cache",
        opt_b(a->disable_radix_cache), "is_embedding", opt_b(a->is_embedding),
        "ep_size", opt_i(a->ep_size), "speculative_draft_model_path",
        text_or_null(a->speculative_draft_model_path), "speculative_num_steps",
        opt_i(a->speculative_num_steps), "speculative_eagle_topk",
        opt_i(a->speculative_eagle_topk), "speculative_num_draft_tokens",
        opt_i(a->speculative_num_draft_tokens));
    return json_pack(
        "{s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, "
        "s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
        "lines", (json_int_t)r->lines, "lines_read", (json_int_t)r->lines_used,
        "ranks", (json_int_t)r->ranks, "date", text_or_null(r->date),
        "free_before_gib", opt_d(r->free_before_gib), "free_after_gib",
        opt_d(r->free_after_gib), "weights_gib", opt_d(r->weights_gib),
        "distributed_gib", opt_d(r->distributed_gib), "pool_end_gib",
        opt_d(r->pool_end_gib), "kv_tokens", opt_i(r->kv_tokens),
        "k_size_gib", opt_d(r->k_size_gib), "v_size_gib", opt_d(r->v_size_gib),
        "kv_size_gib", opt_d(r->kv_size_gib), "max_total_num_tokens",
        opt_i(r->max_total_num_tokens), "max_prefill_tokens",
        opt_i(r->max_prefill_tokens), "max_running_requests",
        opt_i(r->max_running_requests), "context_len", opt_i(r->context_len),
        "available_gpu_mem_gib", opt_d(r->available_gpu_mem_gib),
        "model_class", text_or_null(r->model_class), "model_dtype",
        text_or_null(r->model_dtype), "kv_dtype", text_or_null(r->kv_dtype),
        "server_args", args, "per_rank", ranks_json(r));
}

json_t *kvplan__doc_log(const kvplan_log_readings *r, const char *model,
                           const kvplan_log_result *x,
                           kvplan_sglang_profile version)
{
    json_t *causes = json_array();
    for (size_t i = 0; causes != NULL && i < x->num_causes; i++)
        json_array_append_new(
            causes, json_pack("{s:s, s:o, s:o}", "cause",
                              kvplan_log_cause_name(x->causes[i].code), "row",
                              kvplan__json_text(x->causes[i].row), "text",
                              kvplan__json_text(x->causes[i].text)));
    json_t *modelled =
        x->modelled
            ? json_pack("{s:f, s:f, s:f, s:I, s:I, s:I, s:I}",
                        "free_before_gib", x->free_before_gib,
                        "free_after_gib", x->free_after_gib, "weights_gib",
                        x->weights_gib, "max_total_num_tokens",
                        (json_int_t)x->tokens, "kv_bytes",
                        (json_int_t)x->kv_bytes, "max_running_requests",
                        (json_int_t)x->max_running_requests, "context_len",
                        (json_int_t)x->context_len)
            : json_null();
    json_t *inputs = json_pack(
        "{s:o, s:o, s:o, s:b, s:o, s:b}", "model",
        model != NULL && model[0] ? kvplan__json_text(model) : json_null(), "gpu",
        text_or_null(x->gpu.name), "gpu_mem_mib",
        x->gpu.name[0] ? json_real(x->gpu.total_mib) : json_null(),
        "gpu_inferred", x->gpu_inferred, "mem_fraction_static",
        x->interval || x->modelled ? json_real(x->mem_fraction_static)
                                   : json_null(),
        "fraction_from_log", x->fraction_from_log);
    if (inputs != NULL)
        json_object_set_new(
            inputs, "sglang_version",
            json_pack("{s:o, s:s}", "named",
                      text_or_null(r->sglang_version), "profile",
                      kvplan_sglang_profile_name(version)));
    return json_pack(
        "{s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "schema_version", 1,
        "readings", readings_json(r), "inputs", inputs, "available_interval",
        x->interval ? json_pack("[I, I]", (json_int_t)x->available_lo,
                                (json_int_t)x->available_hi)
                    : json_null(),
        "tokens_interval",
        x->interval ? json_pack("[I, I]", (json_int_t)x->tokens_lo,
                                (json_int_t)x->tokens_hi)
                    : json_null(),
        "logged_tokens", opt_i(x->logged_tokens), "inside",
        x->interval && x->logged_tokens.set ? json_boolean(x->inside)
                                            : json_null(),
        "modelled", modelled, "causes", causes);
}

json_t *kvplan__doc_calibration(const char *source,
                                const kvplan_log_readings *r,
                                const kvplan_plan_options *o,
                                bool gpu_inferred, const char *model)
{
    double before = r->free_before_gib.value;
    double weights = kvplan_log_weights_gib(r).value; /* checked set */
    return json_pack(
        "{s:i, s:o, s:o, s:o, s:b, s:f, s:I, s:I, s:f, s:I, s:I}",
        "kvplan_calibration", 1, "source", kvplan__json_text(source), "model",
        kvplan__json_text(model), "gpu", kvplan__json_text(o->gpu.name),
        "gpu_inferred", gpu_inferred, "gpu_mem_mib", o->gpu.total_mib,
        "tp_size", (json_int_t)o->server.tp_size, "pp_size",
        (json_int_t)o->server.pp_size, "free_before_gib", before,
        /* what the GPU held before the weights: context, communicators */
        "context_bytes",
        (json_int_t)(o->gpu.total_mib * 1048576.0 - before * KVPLAN__GIB),
        "rank_weight_bytes", (json_int_t)(weights * KVPLAN__GIB));
}
