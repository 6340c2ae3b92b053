/*
 * doc_vllm_log.c: a vLLM log's document (kvplan log --json, the JSON
 * request's "log" question, Python): what the log printed, the interval
 * from its own available memory, kvplan's own budget on the GPU named,
 * and the causes (docs/log.md, "vLLM logs").
 */
#include "json/doc.h"

void kvplan__doc_vllm_log(kvplan__writer *w, const kvplan_vllm_log_readings *r,
                          const char *model, const kvplan_engine_options *eo,
                          const kvplan_vllm_log_result *x,
                          const kvplan_vllm_calibration *cal)
{
    kvplan__w_object(w, NULL);
    kvplan__w_str(w, "kvplan_version", kvplan_version());
    kvplan__w_str(w, "engine", "vllm");
    kvplan__w_str(w, "model", model);
    kvplan__w_object(w, "readings");
    kvplan__w_int(w, "lines", r->lines);
    kvplan__w_int(w, "lines_used", r->lines_used);
    kvplan__w_int(w, "workers", r->workers);
    kvplan__w_str(w, "version", r->version[0] ? r->version : NULL);
    kvplan__w_str(w, "model", r->model[0] ? r->model : NULL);
    kvplan__w_opt_int(w, "tensor_parallel_size", r->tensor_parallel_size);
    kvplan__w_opt_int(w, "max_model_len", r->max_model_len);
    kvplan__w_opt_real(w, "gpu_memory_utilization", r->gpu_memory_utilization);
    kvplan__w_opt_real(w, "weights_gib", r->weights_gib);
    kvplan__w_opt_real(w, "available_gib", r->available_gib);
    kvplan__w_opt_int(w, "kv_cache_bytes", r->kv_cache_bytes);
    kvplan__w_opt_real(w, "consumed_gib", r->consumed_gib);
    kvplan__w_opt_real(w, "graph_estimate_gib", r->graph_estimate_gib);
    kvplan__w_opt_int(w, "num_gpu_blocks", r->num_gpu_blocks);
    kvplan__w_opt_int(w, "kv_cache_tokens", r->kv_cache_tokens);
    kvplan__w_opt_real(w, "max_concurrency", r->max_concurrency);
    kvplan__w_end(w);
    kvplan__w_str(w, "vllm_version", kvplan_vllm_profile_name(x->profile));
    kvplan__w_bool(w, "version_from_log", x->profile_from_log);
    kvplan__w_str(w, "gpu", eo->gpu_set ? eo->gpu.name : NULL);
    if (x->interval) {
        kvplan__w_object(w, "from_log");
        kvplan__w_int(w, "available_lo", x->available_lo);
        kvplan__w_int(w, "available_hi", x->available_hi);
        kvplan__w_int(w, "blocks_lo", x->blocks_lo);
        kvplan__w_int(w, "blocks_hi", x->blocks_hi);
        kvplan__w_int(w, "tokens_lo", x->tokens_lo);
        kvplan__w_int(w, "tokens_hi", x->tokens_hi);
        kvplan__w_bool(w, "inside", x->inside);
        kvplan__w_end(w);
    } else {
        kvplan__w_null(w, "from_log");
    }
    if (x->modelled) {
        kvplan__w_object(w, "modelled");
        kvplan__w_real(w, "weights_gib", x->weights_gib);
        kvplan__w_real(w, "available_gib", x->available_gib);
        kvplan__w_int(w, "num_gpu_blocks", x->blocks);
        kvplan__w_int(w, "kv_cache_tokens", x->tokens);
        kvplan__w_real(w, "error_pct", x->error_pct);
        kvplan__w_end(w);
    } else {
        kvplan__w_null(w, "modelled");
    }
    kvplan__doc_log_causes(w, x->causes, x->num_causes);
    if (cal != NULL) /* the request's "calibrate": what the file would hold */
        kvplan__doc_vllm_calibration(w, "calibration", "log", model, eo, r,
                                     cal);
    kvplan__w_end(w);
}

void kvplan__doc_calibration_head(kvplan__writer *w, const char *engine,
                                  const char *source, const char *model,
                                  const kvplan_engine_options *o)
{
    kvplan__w_int(w, "kvplan_calibration", 1);
    kvplan__w_str(w, "engine", engine);
    kvplan__w_str(w, "source", source);
    kvplan__w_str(w, "model", model);
    kvplan__w_str(w, "gpu", o->gpu_set ? o->gpu.name : NULL);
    kvplan__w_int(w, "tp_size", o->tp_size);
    kvplan__w_int(w, "pp_size", o->pp_size);
}

void kvplan__doc_vllm_calibration(kvplan__writer *w, const char *key,
                                  const char *source, const char *model,
                                  const kvplan_engine_options *o,
                                  const kvplan_vllm_log_readings *r,
                                  const kvplan_vllm_calibration *c)
{
    kvplan__w_object(w, key);
    kvplan__doc_calibration_head(w, "vllm", source, model, o);
    kvplan__w_str(w, "vllm", r->version[0] ? r->version : NULL);
    kvplan__w_str(w, "vllm_version", kvplan_vllm_profile_name(o->vllm_version));
    kvplan__w_real(w, "total_gib", c->total_gib);
    kvplan__w_bool(w, "total_from_log", c->total_from_log);
    kvplan__w_real(w, "gpu_memory_utilization", c->utilization);
    kvplan__w_int(w, "rank_weight_bytes", c->rank_weight_bytes);
    kvplan__w_int(w, "activation_bytes", c->activation_bytes);
    kvplan__w_int(w, "non_torch_bytes", c->non_torch_bytes);
    if (c->cuda_graph_bytes > 0)
        kvplan__w_int(w, "cuda_graph_bytes", c->cuda_graph_bytes);
    kvplan__w_bool(w, "folded", c->folded);
    kvplan__w_end(w);
}
