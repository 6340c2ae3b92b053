/*
 * doc_engine.c: the other engines' documents: --engine vllm|trtllm's plan
 * (schema docs/engine.schema.json) with its notes, and kvplan compare's
 * three columns and the reasons they differ, in words (schema
 * docs/compare.schema.json; docs/engines.md).
 */
#include "json/doc.h"

#include <stdio.h>
#include <string.h>

/* vLLM's "{:,}": 1234567 -> "1,234,567". */
const char *kvplan__grouped(int64_t v, char *buf, size_t size)
{
    char raw[32];
    int n = snprintf(raw, sizeof raw, "%lld", (long long)(v < 0 ? -v : v));
    size_t at = 0;
    if (v < 0 && at + 1 < size)
        buf[at++] = '-';
    for (int i = 0; i < n && at + 2 < size; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            buf[at++] = ',';
        buf[at++] = raw[i];
    }
    buf[at] = '\0';
    return buf;
}

/* vLLM's groups: each spec's layers in groups of group_size. */
int64_t kvplan__engine_groups(const kvplan_engine_plan *p)
{
    int64_t n = 0;
    for (size_t i = 0; i < p->num_groups; i++)
        n += p->group_size > 0
                 ? (p->groups[i].layers + p->group_size - 1) / p->group_size
                 : 0;
    /* one UniformType group: DSA's MLA and indexer layers together */
    return p->group_size >= p->groups[0].layers * (int64_t)p->num_groups &&
                   p->num_groups > 1
               ? 1
               : n;
}

static json_t *term_json(double bytes, kvplan_source src)
{
    return json_pack("{s:f, s:s}", "gib", bytes / KVPLAN__GIB, "source",
                     kvplan_source_name(src));
}

/* The plan's notes: which terms are estimates, and how to set them. */
size_t kvplan__engine_notes(const kvplan_engine_plan *p, char out[3][320])
{
    size_t n = 0;
    bool vllm = p->engine == KVPLAN_ENGINE_VLLM;
    bool estimated = p->weight_source == KVPLAN_SOURCE_ESTIMATED ||
                     p->activation_source == KVPLAN_SOURCE_ESTIMATED ||
                     p->non_torch_source == KVPLAN_SOURCE_ESTIMATED ||
                     (vllm && p->cuda_graph_source == KVPLAN_SOURCE_ESTIMATED);
    if (estimated && !p->available_given)
        snprintf(out[n++], sizeof out[0],
                 "the terms marked estimated need a live profile; set them "
                 "from a log with --activation-memory, --non-torch-memory%s "
                 "and --weight-bytes%s",
                 vllm ? ", --cuda-graph-memory" : "",
                 vllm ? ", or give the cache's bytes with --kv-cache-memory"
                      : "");
    if (p->reserved_source == KVPLAN_SOURCE_ESTIMATED && !p->available_given)
        snprintf(out[n++], sizeof out[0],
                 "the engine reads CUDA's total, memory.total less the "
                 "driver's reserve (estimated here; --gpu auto reads it "
                 "through NVML)");
    if (p->padding_layers > 0)
        snprintf(out[n++], sizeof out[0],
                 "vLLM pads the smaller spec to groups of %lld layers: %lld "
                 "padding layer%s cost memory and hold nothing",
                 (long long)p->group_size, (long long)p->padding_layers,
                 p->padding_layers == 1 ? "" : "s");
    return n;
}

json_t *kvplan__doc_engine(const kvplan__doc *d, const kvplan_engine_plan *p)
{
    json_t *groups = json_array();
    for (size_t i = 0; groups != NULL && i < p->num_groups; i++) {
        const kvplan_engine_group *g = &p->groups[i];
        json_array_append_new(
            groups, json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
                              "spec", kvplan_engine_spec_name(g->spec),
                              "layers", (json_int_t)g->layers, "padding_layers",
                              (json_int_t)g->padding_layers, "page_bytes",
                              (json_int_t)g->page_bytes, "real_page_bytes",
                              (json_int_t)g->real_page_bytes, "block_size",
                              (json_int_t)g->block_size, "window",
                              (json_int_t)g->window, "max_usage_bytes",
                              (json_int_t)g->max_usage_bytes));
    }
    char tok[40], len[40], line[2][160];
    snprintf(line[0], sizeof line[0], "GPU KV cache size: %s tokens",
             kvplan__grouped(p->kv_cache_tokens, tok, sizeof tok));
    snprintf(line[1], sizeof line[1],
             "Maximum concurrency for %s tokens per request: %.2fx",
             kvplan__grouped(p->max_model_len, len, sizeof len), p->max_concurrency);
    bool vllm = p->engine == KVPLAN_ENGINE_VLLM;
    json_t *budget = json_pack(
        "{s:f, s:o, s:f, s:f, s:o, s:o, s:o, s:o, s:I, s:b}",
        "memory_total_gib", p->memory_total_bytes / KVPLAN__GIB, "driver_reserve",
        term_json(p->reserved_bytes, p->reserved_source), "total_gib",
        p->total_bytes / KVPLAN__GIB, vllm ? "requested_gib" : "kv_budget_gib",
        p->requested_bytes / KVPLAN__GIB, "weights",
        term_json(p->weight_bytes, p->weight_source), "activation",
        term_json(p->activation_bytes, p->activation_source), "non_torch",
        term_json(p->non_torch_bytes, p->non_torch_source), "cuda_graphs",
        term_json(p->cuda_graph_bytes, p->cuda_graph_source), "available_bytes",
        (json_int_t)p->available_bytes, "available_given", p->available_given);
    const kvplan_model_info *info = kvplan_model_get_info(d->model);
    char text[3][320];
    size_t nnotes = kvplan__engine_notes(p, text);
    json_t *nt = json_array();
    for (size_t i = 0; nt != NULL && i < nnotes; i++)
        json_array_append_new(nt, json_string(text[i]));
    const kvplan_gpu *gpu = &d->o->plan.gpu;
    kvplan_gpu preset;
    if (!d->o->plan.gpu_set && kvplan_gpu_preset(KVPLAN_DEFAULT_GPU, &preset))
        gpu = &preset;
    return json_pack(
        "{s:s, s:i, s:s, s:s, s:{s:s, s:f}, s:I, s:I, s:I, s:I, s:I, s:I, "
        "s:I, s:I, s:I, s:f, s:I, s:I, s:o, s:o, s:o, s:I, s:o}",
        "kvplan_version", kvplan_version(), "schema_version", 1, "engine",
        kvplan_engine_name(p->engine), "model", info->name, "gpu", "name",
        gpu->name, "total_mib", gpu->total_mib, "tp_size",
        (json_int_t)d->o->plan.server.tp_size, "pp_size",
        (json_int_t)d->o->plan.server.pp_size, "max_model_len",
        (json_int_t)p->max_model_len, "max_num_seqs",
        (json_int_t)p->max_num_seqs, "max_num_batched_tokens",
        (json_int_t)p->max_num_batched_tokens, "block_size",
        (json_int_t)p->block_size, "num_gpu_blocks",
        (json_int_t)p->num_gpu_blocks, "kv_cache_tokens",
        (json_int_t)p->kv_cache_tokens, "group_size", (json_int_t)p->group_size,
        "max_concurrency", p->max_concurrency, "padding_layers",
        (json_int_t)p->padding_layers, "kv_cache_groups",
        (json_int_t)(vllm ? kvplan__engine_groups(p) : 1), "groups", groups, "budget",
        budget, "log",
        vllm ? json_pack("[s, s]", line[0], line[1]) : json_array(),
        "bytes_per_token", (json_int_t)p->bytes_per_token, "notes", nt);
}

/* What each engine's headline count is. */
const char *kvplan__tokens_are(kvplan_engine e)
{
    switch (e) {
    case KVPLAN_ENGINE_SGLANG:
        return "max_total_num_tokens (the pool's tokens)";
    case KVPLAN_ENGINE_VLLM:
        return "GPU KV cache size (concurrency x max_model_len)";
    default:
        return "max_tokens (blocks x tokens_per_block)";
    }
}

/* A reason, in words, for the plan's sglang rules. */
const char *kvplan__reason_text(kvplan_compare_reason r, uint64_t rules)
{
    switch (r) {
    case KVPLAN_REASON_BUDGET:
        return "the budget: sglang keeps 1 - mem_fraction_static of the "
               "memory free before the weights out of the KV cache; vLLM "
               "takes gpu_memory_utilization of the total less what its "
               "profile measures (weights, activation peak, non-torch, "
               "CUDA graphs); TensorRT-LLM free_gpu_memory_fraction of what "
               "is free after its profile's peak";
    case KVPLAN_REASON_HEADLINE:
        return "the headline count: sglang's max_total_num_tokens is the "
               "pool's capacity; vLLM's \"GPU KV cache size\" is its "
               "concurrency at max_model_len times max_model_len, so a "
               "sliding-window or mamba model's is more than any pool "
               "holds; TensorRT-LLM's max_tokens is its blocks' tokens";
    case KVPLAN_REASON_SLIDING_WINDOW:
        return "sliding window: sglang splits a full and an SWA pool "
               "(--swa-full-tokens-ratio); vLLM keeps window - 1 + "
               "max_num_batched_tokens tokens per request in the sliding "
               "layers, in one pool of equal pages (with padding layers "
               "where the counts differ); TensorRT-LLM prices every layer "
               "at the whole sequence unless max_attention_window is set";
    case KVPLAN_REASON_MAMBA_STATE:
        return "mamba state: sglang reserves its slots beside the KV cache "
               "(--mamba-full-memory-ratio); vLLM gives each mamba layer a "
               "block padded to the attention page, and grows the "
               "attention block to hold one state";
    case KVPLAN_REASON_DSA_ROW:
        return (rules & KVPLAN_RULE_DSA_FP8_656)
                   ? "DSA: vLLM's fp8 cache is fp8_ds_mla, 656 bytes a token "
                     "and layer, and its indexer cache is always fp8; this "
                     "sglang prices the fp8 latent at 656 too"
                   : "DSA: vLLM's fp8 cache is fp8_ds_mla, 656 bytes a token "
                     "and layer, and its indexer cache is always fp8; the "
                     "seed's sglang prices the fp8 latent at 576 "
                     "(--sglang-version main: 656)";
    case KVPLAN_REASON_KV_DTYPE:
        return "bytes per token: the KV dtype's default differs (sglang "
               "picks fp8 for DSA on Blackwell and for ModelOpt FP8 "
               "checkpoints; vLLM and TensorRT-LLM take the model dtype "
               "unless --kv-cache-dtype says)";
    }
    return "?";
}

static json_t *column_json(const kvplan_engine_column *c)
{
    const char *name = kvplan_engine_name(c->engine);
    if (c->status != KVPLAN_OK)
        return json_pack("{s:s, s:s}", "engine", name, "error", c->error);
    return json_pack(
        "{s:s, s:f, s:o*, s:f, s:I, s:s, s:I, s:f, s:f}", "engine", name,
        "kv_cache_gib", c->kv_bytes / KVPLAN__GIB, "mamba_state_gib",
        c->state_bytes > 0 ? json_real(c->state_bytes / KVPLAN__GIB) : NULL,
        "bytes_per_token", c->bytes_per_token, "tokens", (json_int_t)c->tokens,
        "tokens_are", kvplan__tokens_are(c->engine), "request_tokens",
        (json_int_t)c->request_tokens, "concurrency", c->concurrency,
        "weights_gib", c->weight_bytes / KVPLAN__GIB);
}

json_t *kvplan__doc_compare(const kvplan__doc *d, const kvplan_comparison *x)
{
    json_t *w = json_array();
    for (size_t i = 0; w != NULL && i < x->num_reasons; i++)
        json_array_append_new(
            w, json_string(kvplan__reason_text(x->reasons[i], x->sglang_rules)));
    const kvplan_engine_column *c = x->columns;
    return json_pack(
        "{s:s, s:i, s:s, s:I, s:o, s:[o, o, o], s:o, s:o*, s:o*}",
        "kvplan_version", kvplan_version(), "schema_version", 1, "model",
        kvplan_model_get_info(d->model)->name, "gpus", (json_int_t)x->fleet.gpus,
        "requested", kvplan__doc_requested(d->o), "engines", column_json(&c[0]),
        column_json(&c[1]), column_json(&c[2]), "why", w, "vllm",
        c[1].status == KVPLAN_OK ? kvplan__doc_engine(d, &x->vllm) : NULL,
        "trtllm",
        c[2].status == KVPLAN_OK ? kvplan__doc_engine(d, &x->trtllm)
                                 : NULL);
}

