/*
 * engines.c: --engine vllm|trtllm (what that engine would allocate for the
 * same model and GPU) and `kvplan compare` (sglang, vLLM and TensorRT-LLM
 * side by side, and why they differ); docs/engines.md.
 */
#include "engines.h"

#include "cli.h"
#include "jsonout.h"
#include "report.h"

#include <stdlib.h>
#include <string.h>

#define GIB 1073741824.0

/* vLLM's "{:,}": 1234567 -> "1,234,567". */
static const char *grouped(int64_t v, char *buf, size_t size)
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
static int64_t kv_cache_groups(const kvplan_engine_plan *p)
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
    return json_pack("{s:f, s:s}", "gib", bytes / GIB, "source",
                     kvplan_source_name(src));
}

/* The plan's notes: which terms are estimates, and how to set them. */
static size_t notes(const kvplan_engine_plan *p, char out[3][320])
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

json_t *cli_engine_json(const cli_args *cli, const kvplan_model *model,
                        const kvplan_engine_plan *p)
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
             grouped(p->kv_cache_tokens, tok, sizeof tok));
    snprintf(line[1], sizeof line[1],
             "Maximum concurrency for %s tokens per request: %.2fx",
             grouped(p->max_model_len, len, sizeof len), p->max_concurrency);
    bool vllm = p->engine == KVPLAN_ENGINE_VLLM;
    json_t *budget = json_pack(
        "{s:f, s:o, s:f, s:f, s:o, s:o, s:o, s:o, s:I, s:b}",
        "memory_total_gib", p->memory_total_bytes / GIB, "driver_reserve",
        term_json(p->reserved_bytes, p->reserved_source), "total_gib",
        p->total_bytes / GIB, vllm ? "requested_gib" : "kv_budget_gib",
        p->requested_bytes / GIB, "weights",
        term_json(p->weight_bytes, p->weight_source), "activation",
        term_json(p->activation_bytes, p->activation_source), "non_torch",
        term_json(p->non_torch_bytes, p->non_torch_source), "cuda_graphs",
        term_json(p->cuda_graph_bytes, p->cuda_graph_source), "available_bytes",
        (json_int_t)p->available_bytes, "available_given", p->available_given);
    const kvplan_model_info *info = kvplan_model_get_info(model);
    char text[3][320];
    size_t nnotes = notes(p, text);
    json_t *nt = json_array();
    for (size_t i = 0; nt != NULL && i < nnotes; i++)
        json_array_append_new(nt, json_string(text[i]));
    const kvplan_gpu *gpu = &cli->o.plan.gpu;
    kvplan_gpu preset;
    if (!cli->o.plan.gpu_set && kvplan_gpu_preset(KVPLAN_DEFAULT_GPU, &preset))
        gpu = &preset;
    return json_pack(
        "{s:s, s:i, s:s, s:s, s:{s:s, s:f}, s:I, s:I, s:I, s:I, s:I, s:I, "
        "s:I, s:I, s:I, s:f, s:I, s:I, s:o, s:o, s:o, s:I, s:o}",
        "kvplan_version", kvplan_version(), "schema_version", 1, "engine",
        kvplan_engine_name(p->engine), "model", info->name, "gpu", "name",
        gpu->name, "total_mib", gpu->total_mib, "tp_size",
        (json_int_t)cli->o.plan.server.tp_size, "pp_size",
        (json_int_t)cli->o.plan.server.pp_size, "max_model_len",
        (json_int_t)p->max_model_len, "max_num_seqs",
        (json_int_t)p->max_num_seqs, "max_num_batched_tokens",
        (json_int_t)p->max_num_batched_tokens, "block_size",
        (json_int_t)p->block_size, "num_gpu_blocks",
        (json_int_t)p->num_gpu_blocks, "kv_cache_tokens",
        (json_int_t)p->kv_cache_tokens, "group_size", (json_int_t)p->group_size,
        "max_concurrency", p->max_concurrency, "padding_layers",
        (json_int_t)p->padding_layers, "kv_cache_groups",
        (json_int_t)(vllm ? kv_cache_groups(p) : 1), "groups", groups, "budget",
        budget, "log",
        vllm ? json_pack("[s, s]", line[0], line[1]) : json_array(),
        "bytes_per_token", (json_int_t)p->bytes_per_token, "notes", nt);
}

static void term_text(FILE *out, const char *what, double bytes,
                      kvplan_source src)
{
    fprintf(out, "  %-40s %8.2f  (%s)\n", what, bytes / GIB,
            kvplan_source_name(src));
}

void cli_engine_text(FILE *out, const cli_args *cli, const kvplan_model *model,
                     const kvplan_engine_plan *p)
{
    const kvplan_model_info *info = kvplan_model_get_info(model);
    bool vllm = p->engine == KVPLAN_ENGINE_VLLM;
    fprintf(out, "kvplan %s: %s (%s) under %s on %s, tp %lld, pp %lld\n",
            kvplan_version(), info->name, info->architecture,
            vllm ? "vLLM" : "TensorRT-LLM",
            cli->o.plan.gpu_set ? cli->o.plan.gpu.name : KVPLAN_DEFAULT_GPU,
            (long long)cli->o.plan.server.tp_size,
            (long long)cli->o.plan.server.pp_size);
    fprintf(out, "\none GPU's memory%*sGiB\n", 33, "");
    fprintf(out, "  %-40s %8.2f\n", "memory.total (nvidia-smi)",
            p->memory_total_bytes / GIB);
    term_text(out, "the driver's reserve", p->reserved_bytes,
              p->reserved_source);
    fprintf(out, "  %-40s %8.2f\n", "total (CUDA's, as the engine reads it)",
            p->total_bytes / GIB);
    if (vllm)
        fprintf(out, "  %-40s %8.2f\n", "requested (gpu_memory_utilization)",
                p->requested_bytes / GIB);
    term_text(out, "weights", p->weight_bytes, p->weight_source);
    term_text(out, "profile run's peak (activations)", p->activation_bytes,
              p->activation_source);
    term_text(out, "non-torch (NCCL, cuBLAS)", p->non_torch_bytes,
              p->non_torch_source);
    if (vllm)
        term_text(out, "CUDA graphs", p->cuda_graph_bytes,
                  p->cuda_graph_source);
    fprintf(out, "  %-40s %8.2f%s\n", "KV cache",
            (double)p->available_bytes / GIB,
            p->available_given ? "  (--kv-cache-memory)" : "");
    bool dsa = vllm && p->num_groups == 2 && kv_cache_groups(p) == 1;
    if (dsa)
        fprintf(out,
                "\nKV cache: 1 group of %lld MLA layers, each with its "
                "indexer cache, block_size %lld\n",
                (long long)p->groups[0].layers, (long long)p->block_size);
    else if (vllm)
        fprintf(
            out, "\nKV cache: %lld group%s of %lld layers, block_size %lld\n",
            (long long)kv_cache_groups(p), kv_cache_groups(p) == 1 ? "" : "s",
            (long long)p->group_size, (long long)p->block_size);
    else
        fprintf(out, "\nKV cache: %lld layers, tokens_per_block %lld\n",
                (long long)p->group_size, (long long)p->block_size);
    fprintf(out, "  %-16s %7s %8s %12s %7s %16s\n", "spec", "layers", "padding",
            "page bytes", "block", "one request");
    for (size_t i = 0; i < p->num_groups; i++) {
        const kvplan_engine_group *g = &p->groups[i];
        fprintf(out, "  %-16s %7lld %8lld %12lld %7lld %16lld\n",
                kvplan_engine_spec_name(g->spec), (long long)g->layers,
                (long long)g->padding_layers, (long long)g->page_bytes,
                (long long)g->block_size, (long long)g->max_usage_bytes);
    }
    char tok[40], len[40];
    fprintf(out, "  %-26s %lld\n", "num_gpu_blocks",
            (long long)p->num_gpu_blocks);
    if (vllm) {
        if (p->padding_layers > 0)
            fprintf(out, "  %-26s %lld (group size %lld)\n", "padding layers",
                    (long long)p->padding_layers, (long long)p->group_size);
        fprintf(out, "\nas vLLM logs it:\n  GPU KV cache size: %s tokens\n",
                grouped(p->kv_cache_tokens, tok, sizeof tok));
        fprintf(out, "  Maximum concurrency for %s tokens per request: %.2fx\n",
                grouped(p->max_model_len, len, sizeof len), p->max_concurrency);
    } else {
        fprintf(out, "  %-26s %lld bytes\n", "kv size per token",
                (long long)p->bytes_per_token);
        fprintf(out, "  %-26s %lld\n", "max_tokens",
                (long long)p->kv_cache_tokens);
        fprintf(out, "  %-26s %.2f requests of %lld tokens\n", "concurrency",
                p->max_concurrency, (long long)p->max_model_len);
    }
    char text[3][320];
    size_t nnotes = notes(p, text);
    if (nnotes > 0)
        fprintf(out, "\nnotes:\n");
    for (size_t i = 0; i < nnotes; i++)
        fprintf(out, "  - %s\n", text[i]);
}

int cli_engine_report(const cli_args *cli, const kvplan_model *model)
{
    kvplan_engine_options o;
    kvplan_options_engine(&cli->o, cli->o.engine, &o);
    kvplan_engine_plan p;
    kvplan_error err;
    kvplan_status st = kvplan_engine_compute(model, &o, &p, &err);
    if (st != KVPLAN_OK)
        return cli_plan_failed("kvplan", st, &err, cli->json);
    int rc = CLI_EXIT_OK;
    if (cli->json) {
        json_t *doc = cli_engine_json(cli, model, &p);
        if (doc != NULL)
            json_object_set_new(doc, "requested", cli_requested_json(cli));
        if (doc == NULL || cli_json_write(doc, cli_out()) != 0 ||
            fputc('\n', cli_out()) == EOF)
            rc = CLI_EXIT_INTERNAL;
        json_decref(doc);
    } else {
        cli_engine_text(cli_out(), cli, model, &p);
    }
    return fflush(cli_out()) != 0 ? CLI_EXIT_INTERNAL : rc;
}
