/*
 * doc_trtllm_log.c: a TensorRT-LLM log's document (kvplan log --json, the
 * JSON request's "log" question): what the log printed, the interval from
 * its own available memory at kvplan's bytes a token, and the causes
 * (docs/log.md, "TensorRT-LLM logs").
 */
#include "json/doc.h"

void kvplan__doc_trtllm_log(kvplan__writer *w,
                            const kvplan_trtllm_log_readings *r,
                            const char *model, const kvplan_engine_options *eo,
                            const kvplan_trtllm_log_result *x)
{
    kvplan__w_object(w, NULL);
    kvplan__w_str(w, "kvplan_version", kvplan_version());
    kvplan__w_str(w, "engine", "trtllm");
    kvplan__w_str(w, "model", model);
    kvplan__w_object(w, "readings");
    kvplan__w_int(w, "lines", r->lines);
    kvplan__w_int(w, "lines_used", r->lines_used);
    kvplan__w_str(w, "version", r->version[0] ? r->version : NULL);
    kvplan__w_opt_real(w, "weights_gib", r->weights_gib);
    kvplan__w_opt_real(w, "activation_gib", r->activation_gib);
    kvplan__w_opt_real(w, "outside_torch_gib", r->outside_torch_gib);
    kvplan__w_opt_real(w, "peak_gib", r->peak_gib);
    kvplan__w_opt_real(w, "available_gib", r->available_gib);
    kvplan__w_opt_real(w, "fraction", r->fraction);
    kvplan__w_opt_int(w, "kv_bytes_per_token", r->kv_bytes_per_token);
    kvplan__w_opt_real(w, "total_gib", r->total_gib);
    kvplan__w_opt_int(w, "max_tokens", r->max_tokens);
    kvplan__w_opt_int(w, "tokens_per_block", r->tokens_per_block);
    kvplan__w_opt_int(w, "kv_cache_tokens", r->kv_cache_tokens);
    kvplan__w_opt_int(w, "max_seq_len", r->max_seq_len);
    kvplan__w_opt_int(w, "max_batch_size", r->max_batch_size);
    kvplan__w_opt_real(w, "estimated_gib", r->estimated_gib);
    kvplan__w_opt_real(w, "v2_quota_gib", r->v2_quota_gib);
    kvplan__w_end(w);
    kvplan__w_int(w, "kv_cache_manager", x->kv_cache_manager);
    if (x->kv_cache_manager == 2) {
        kvplan__w_object(w, "v2");
        kvplan__w_int(w, "quota_bytes", x->v2_quota_bytes);
        if (x->v2_slots > 0)
            kvplan__w_int(w, "slots", x->v2_slots);
        else
            kvplan__w_null(w, "slots");
        kvplan__w_end(w);
    }
    kvplan__w_str(w, "gpu", eo->gpu_set ? eo->gpu.name : NULL);
    if (x->interval) {
        kvplan__w_object(w, "from_log");
        kvplan__w_int(w, "available_lo", x->available_lo);
        kvplan__w_int(w, "available_hi", x->available_hi);
        kvplan__w_int(w, "max_tokens_lo", x->max_tokens_lo);
        kvplan__w_int(w, "max_tokens_hi", x->max_tokens_hi);
        kvplan__w_int(w, "tokens_lo", x->tokens_lo);
        kvplan__w_int(w, "tokens_hi", x->tokens_hi);
        kvplan__w_bool(w, "inside", x->inside);
        if (x->bytes_per_token > 0)
            kvplan__w_int(w, "bytes_per_token", x->bytes_per_token);
        else
            kvplan__w_null(w, "bytes_per_token");
        kvplan__w_bool(w, "bytes_match", x->bytes_match);
        kvplan__w_end(w);
    } else {
        kvplan__w_null(w, "from_log");
    }
    if (x->pool_bytes > 0) {
        kvplan__w_object(w, "pool");
        kvplan__w_int(w, "bytes", x->pool_bytes);
        kvplan__w_bool(w, "matches_allocated", x->pool_match);
        kvplan__w_end(w);
    } else {
        kvplan__w_null(w, "pool");
    }
    kvplan__doc_log_causes(w, x->causes, x->num_causes);
    kvplan__w_end(w);
}

void kvplan__doc_trtllm_calibration(kvplan__writer *w, const char *source,
                                    const char *model,
                                    const kvplan_engine_options *o,
                                    const kvplan_trtllm_log_readings *r,
                                    const kvplan_trtllm_calibration *c)
{
    kvplan__w_object(w, NULL);
    kvplan__doc_calibration_head(w, "trtllm", source, model, o);
    kvplan__w_str(w, "trtllm", r->version[0] ? r->version : NULL);
    kvplan__w_real(w, "total_gib", c->total_gib);
    kvplan__w_bool(w, "total_from_log", c->total_from_log);
    kvplan__w_real(w, "free_gpu_memory_fraction", c->fraction);
    kvplan__w_int(w, "rank_weight_bytes", c->rank_weight_bytes);
    kvplan__w_int(w, "activation_bytes", c->activation_bytes);
    kvplan__w_int(w, "non_torch_bytes", c->non_torch_bytes);
    if (c->printed_activation_gib >= 0)
        kvplan__w_real(w, "printed_activation_gib", c->printed_activation_gib);
    else
        kvplan__w_null(w, "printed_activation_gib");
    kvplan__w_end(w);
}
