/*
 * doc_engine.c: the other engines' documents: --engine vllm|trtllm's plan
 * (schema docs/engine.schema.json) with its notes, and kvplan compare's
 * three columns and the reasons they differ, in words (schema
 * docs/compare.schema.json; docs/engines.md).
 */
#include "json/doc.h"
#include "options/options.h"

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

/* How TensorRT-LLM's KV cache manager was chosen, and what the other
 * choice or release would give (trtllm_versions.c); 0 where the plan's
 * manager is the release's default and no family default moves it. */
static size_t manager_note(const kvplan_engine_plan *p, bool mamba, char *out,
                           size_t size)
{
    const char *release = kvplan_trtllm_profile_name(p->trtllm_version);
    const char *fam = p->v2_default;
    bool v2 = p->kv_cache_manager == 2;
    if (p->kv_cache_manager_choice == KVPLAN_KVCM_MODEL)
        snprintf(out, size, "KV cache manager V2 for %s", fam);
    else if (v2 && p->kv_cache_manager_choice == KVPLAN_KVCM_DEFAULT)
        snprintf(out, size,
                 "KV cache manager V2: TensorRT-LLM %s's default for %s "
                 "(use_kv_cache_manager_v2: auto); "
                 "--no-use-kv-cache-manager-v2 plans V1%s; TensorRT-LLM "
                 "before 1.3.0rc21 gives every model V1 (--trtllm-version)",
                 release, fam,
                 mamba ? ", its deprecated compatibility path for a hybrid "
                         "Mamba"
                       : "");
    else if (v2)
        return 0; /* asked for, by use_kv_cache_manager_v2: true */
    else if (fam != NULL && p->kv_cache_manager_choice == KVPLAN_KVCM_GIVEN)
        snprintf(out, size,
                 "planned as KVCacheManager V1 sizes it, as "
                 "use_kv_cache_manager_v2: false asks%s; the default for %s "
                 "is V2 from TensorRT-LLM 1.3.0rc28",
                 mamba ? " (TensorRT-LLM's deprecated compatibility path for "
                         "a hybrid Mamba)"
                       : "",
                 fam);
    else if (fam != NULL)
        snprintf(out, size,
                 "planned as KVCacheManager V1 sizes it, TensorRT-LLM %s's "
                 "default for every model; from 1.3.0rc28 %s takes V2 by "
                 "default (--trtllm-version latest)",
                 release, fam);
    else
        snprintf(out, size,
                 "planned as KVCacheManager V1 sizes it, TensorRT-LLM's "
                 "default for this model (V2 with "
                 "use_kv_cache_manager_v2: true: --use-kv-cache-manager-v2)");
    return 1;
}

/* vLLM's groups: each spec's layers in groups of group_size. */
int64_t kvplan__engine_groups(const kvplan_engine_plan *p)
{
    int64_t n = 0;
    if (p->packed_groups)
        return (int64_t)p->num_groups;
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

static void term_json(kvplan__writer *w, const char *key, double bytes,
                      kvplan_source src)
{
    kvplan__w_object(w, key);
    kvplan__w_real(w, "gib", bytes / KVPLAN__GIB);
    kvplan__w_str(w, "source", kvplan_source_name(src));
    kvplan__w_end(w);
}

/* The plan's notes: which terms are estimates, and how to set them. */
size_t kvplan__engine_notes(const kvplan_engine_plan *p,
                            char out[KVPLAN__ENGINE_NOTES][KVPLAN__ENGINE_NOTE])
{
    size_t n = 0;
    bool vllm = p->engine == KVPLAN_ENGINE_VLLM;
    bool mamba = false;
    for (size_t i = 0; i < p->num_groups; i++)
        mamba |= p->groups[i].spec == KVPLAN_KV_SPEC_MAMBA;
    bool estimated = p->weight_source == KVPLAN_SOURCE_ESTIMATED ||
                     p->activation_source == KVPLAN_SOURCE_ESTIMATED ||
                     p->non_torch_source == KVPLAN_SOURCE_ESTIMATED ||
                     p->cuda_graph_source == KVPLAN_SOURCE_ESTIMATED;
    if (estimated && !p->available_given)
        snprintf(out[n++], sizeof out[0],
                 "the terms marked estimated need a live profile; set them "
                 "from a log with --activation-memory, --non-torch-memory, "
                 "--cuda-graph-memory and --weight-bytes%s",
                 vllm ? ", or give the cache's bytes with --kv-cache-memory"
                      : "");
    if (p->reserved_source == KVPLAN_SOURCE_ESTIMATED && !p->available_given)
        snprintf(out[n++], sizeof out[0],
                 "the engine reads CUDA's total, memory.total less the "
                 "driver's reserve (estimated here; --gpu auto reads it "
                 "through NVML)");
    if (!vllm && p->kv_cache_manager == 2 && mamba)
        snprintf(
            out[n++], sizeof out[0],
            "planned as MambaHybridCacheManagerV2 sizes it: device quota "
            "%.2f GiB (the line it logs), grains of %lld MiB; a request's "
            "states take one mamba slot (one is a CUDA-graph dummy's); the "
            "first split follows %lld requests of avg_seq_len tokens, "
            "else of max_seq_len // 2 = %lld (TensorRT-LLM's fallback)",
            (double)p->gpu_quota_bytes / KVPLAN__GIB,
            (long long)(p->quota_grain_bytes >> 20), (long long)p->max_num_seqs,
            (long long)(p->max_model_len / 2 > 0 ? p->max_model_len / 2 : 1));
    else if (!vllm && p->kv_cache_manager == 2 && p->v2_default != NULL &&
             strncmp(p->v2_default, "DeepSeek-V4", 11) == 0)
        snprintf(out[n++], sizeof out[0],
                 "planned as DeepseekV4CacheManager sizes it: device quota "
                 "%.2f GiB (the line it logs), grains "
                 "of %lld MiB, SWA scratch reuse on; the slots are each pool "
                 "group's first share, set by one context request of "
                 "max_num_tokens (%lld) beside %lld generating ones of "
                 "avg_seq_len, else max_seq_len (V2 moves it as requests "
                 "close)",
                 (double)p->gpu_quota_bytes / KVPLAN__GIB,
                 (long long)(p->quota_grain_bytes >> 20),
                 (long long)p->max_num_batched_tokens,
                 (long long)(p->max_num_seqs - 1));
    else if (!vllm && p->kv_cache_manager == 2 && p->num_groups > 1)
        snprintf(out[n++], sizeof out[0],
                 "planned as KVCacheManagerV2 sizes it: device quota "
                 "%.2f GiB (the line it logs), grains of %lld MiB; the slots "
                 "are each pool group's first share (rows of equal slots "
                 "share one), set by a typical 2,048-token request, or "
                 "--avg-seq-len's step (V2 moves "
                 "it as requests close)",
                 (double)p->gpu_quota_bytes / KVPLAN__GIB,
                 (long long)(p->quota_grain_bytes >> 20));
    else if (!vllm && p->kv_cache_manager == 2)
        snprintf(out[n++], sizeof out[0],
                 "planned as KVCacheManagerV2 sizes it: device quota %.2f GiB "
                 "(the line it logs), rounded up to grains of %lld MiB; %lld "
                 "slots, a block of every layer each",
                 (double)p->gpu_quota_bytes / KVPLAN__GIB,
                 (long long)(p->quota_grain_bytes >> 20),
                 (long long)p->num_gpu_blocks);
    if (!vllm)
        n += manager_note(p, mamba, out[n], sizeof out[0]);
    /* _compute_slot_count_for_level: a tier takes at least one slot of
     * each life cycle, past its quota where one slot outgrows it */
    int64_t g = p->quota_grain_bytes;
    if (!vllm && p->kv_cache_manager == 2 && g > 0 &&
        p->available_bytes > (p->gpu_quota_bytes + g - 1) / g * g)
        snprintf(out[n++], sizeof out[0],
                 "V2's slots take %lld bytes, past its device quota of %lld "
                 "bytes: it keeps at least one slot of each life cycle, so "
                 "the GPU must hold them beyond the KV budget (lower "
                 "--tokens-per-block, or give the cache more)",
                 (long long)p->available_bytes, (long long)p->gpu_quota_bytes);
    int64_t stride = 0;
    for (size_t i = 0; i < p->num_groups; i++)
        stride =
            p->groups[i].page_bytes > stride ? p->groups[i].page_bytes : stride;
    if (p->padding_layers > 0 && p->packed_groups)
        snprintf(out[n++], sizeof out[0],
                 "vLLM pads DeepSeek-V4's groups to multiples of %lld layer "
                 "tuples: %lld padding tuple%s priced in the one-request "
                 "check; one block of every group is packed at a stride of "
                 "the widest group's %lld bytes",
                 (long long)p->group_size, (long long)p->padding_layers,
                 p->padding_layers == 1 ? "" : "s", (long long)stride);
    else if (p->padding_layers > 0)
        snprintf(out[n++], sizeof out[0],
                 "vLLM pads the smaller spec to groups of %lld layers: %lld "
                 "padding layer%s cost memory and hold nothing",
                 (long long)p->group_size, (long long)p->padding_layers,
                 p->padding_layers == 1 ? "" : "s");
    return n;
}

static void groups_json(kvplan__writer *w, const kvplan_engine_plan *p)
{
    kvplan__w_array(w, "groups");
    for (size_t i = 0; i < p->num_groups; i++) {
        const kvplan_engine_group *g = &p->groups[i];
        kvplan__w_object(w, NULL);
        kvplan__w_str(w, "spec", kvplan_engine_spec_name(g->spec));
        kvplan__w_int(w, "layers", g->layers);
        kvplan__w_int(w, "padding_layers", g->padding_layers);
        kvplan__w_int(w, "page_bytes", g->page_bytes);
        kvplan__w_int(w, "real_page_bytes", g->real_page_bytes);
        kvplan__w_int(w, "block_size", g->block_size);
        kvplan__w_int(w, "window", g->window);
        kvplan__w_int(w, "max_usage_bytes", g->max_usage_bytes);
        kvplan__w_int(w, "num_blocks", g->num_blocks);
        kvplan__w_int(w, "host_blocks", g->host_blocks);
        kvplan__w_end(w);
    }
    kvplan__w_end(w);
}

static void engine_budget(kvplan__writer *w, const kvplan_engine_plan *p)
{
    bool vllm = p->engine == KVPLAN_ENGINE_VLLM;
    kvplan__w_object(w, "budget");
    kvplan__w_real(w, "memory_total_gib", p->memory_total_bytes / KVPLAN__GIB);
    term_json(w, "driver_reserve", p->reserved_bytes, p->reserved_source);
    kvplan__w_real(w, "total_gib", p->total_bytes / KVPLAN__GIB);
    kvplan__w_real(w, vllm ? "requested_gib" : "kv_budget_gib",
                   p->requested_bytes / KVPLAN__GIB);
    term_json(w, "weights", p->weight_bytes, p->weight_source);
    term_json(w, "activation", p->activation_bytes, p->activation_source);
    term_json(w, "non_torch", p->non_torch_bytes, p->non_torch_source);
    term_json(w, "cuda_graphs", p->cuda_graph_bytes, p->cuda_graph_source);
    kvplan__w_int(w, "available_bytes", p->available_bytes);
    kvplan__w_bool(w, "available_given", p->available_given);
    kvplan__w_end(w);
}

static void figures(kvplan__writer *w, const char *key,
                    const kvplan_engine_version_figures *f)
{
    kvplan__w_object(w, key);
    kvplan__w_str(w, "status", kvplan_status_kind(f->status));
    if (f->status != KVPLAN_OK) {
        kvplan__w_str(w, "error", f->error);
    } else {
        kvplan__w_int(w, "available_bytes", f->available_bytes);
        kvplan__w_int(w, "num_gpu_blocks", f->num_gpu_blocks);
        kvplan__w_int(w, "kv_cache_tokens", f->kv_cache_tokens);
        kvplan__w_real(w, "max_concurrency", f->max_concurrency);
    }
    kvplan__w_end(w);
}

/* --compare-version under --engine vllm (kvplan_engine_version_compare)
 * or trtllm (kvplan_trtllm_version_compare): the two releases' figures,
 * TensorRT-LLM's managers, each rule they differ in alone. */
static void compare_version(kvplan__writer *w, const kvplan__doc *d,
                            kvplan_engine engine)
{
    kvplan_engine_options o;
    kvplan_options_engine(d->o, engine, &o);
    kvplan_engine_version_comparison v;
    kvplan_trtllm_version_comparison t;
    const kvplan_engine_rule_delta *rules;
    size_t n;
    if (engine == KVPLAN_ENGINE_VLLM) {
        if (kvplan_engine_version_compare(d->model, &o,
                                          d->o->compare_vllm_version, &v,
                                          NULL) != KVPLAN_OK)
            return;
        kvplan__w_object(w, "compare_version");
        kvplan__w_str(w, "vllm_version", kvplan_vllm_profile_name(v.profile));
        kvplan__w_str(w, "compared", kvplan_vllm_profile_name(v.compared));
        figures(w, "plan", &v.plan);
        figures(w, "compared_plan", &v.compared_plan);
        rules = v.rules, n = v.num_rules;
    } else {
        if (kvplan_trtllm_version_compare(d->model, &o,
                                          d->o->compare_trtllm_version, &t,
                                          NULL) != KVPLAN_OK)
            return;
        kvplan__w_object(w, "compare_version");
        kvplan__w_str(w, "trtllm_version",
                      kvplan_trtllm_profile_name(t.profile));
        kvplan__w_str(w, "compared", kvplan_trtllm_profile_name(t.compared));
        figures(w, "plan", &t.plan);
        figures(w, "compared_plan", &t.compared_plan);
        kvplan__w_int(w, "kv_cache_manager", t.kv_cache_manager);
        kvplan__w_int(w, "compared_kv_cache_manager",
                      t.compared_kv_cache_manager);
        rules = t.rules, n = t.num_rules;
    }
    kvplan__w_array(w, "rules");
    for (size_t i = 0; i < n; i++) {
        kvplan__w_object(w, NULL);
        kvplan__w_str(w, "name", rules[i].rule.name);
        kvplan__w_str(w, "source", rules[i].rule.source);
        kvplan__w_bool(w, "in_plan", rules[i].in_plan);
        kvplan__w_bool(w, "changes", rules[i].changes);
        figures(w, "alone", &rules[i].alone);
        kvplan__w_end(w);
    }
    kvplan__w_end(w);
    kvplan__w_end(w);
}

void kvplan__doc_engine(kvplan__writer *w, const char *key,
                        const kvplan__doc *d, const kvplan_engine_plan *p,
                        bool requested)
{
    bool vllm = p->engine == KVPLAN_ENGINE_VLLM;
    const kvplan_gpu *gpu = &d->o->plan.gpu;
    kvplan_gpu preset;
    if (!d->o->plan.gpu_set && kvplan_gpu_preset(KVPLAN_DEFAULT_GPU, &preset))
        gpu = &preset;
    kvplan__w_object(w, key);
    kvplan__w_str(w, "kvplan_version", kvplan_version());
    kvplan__w_int(w, "schema_version", 2); /* 2: "rules" (0.8) */
    kvplan__w_str(w, "engine", kvplan_engine_name(p->engine));
    kvplan__w_str(w, "rules", kvplan_engine_rules(p->engine));
    if (vllm) {
        kvplan__w_str(w, "vllm_version",
                      kvplan_vllm_profile_name(p->vllm_version));
        kvplan__w_rules(w, "vllm_rules", p->vllm_rules, kvplan_vllm_rule_at);
        if (p->mamba_cache_mode != KVPLAN_MAMBA_CACHE_AUTO)
            kvplan__w_str(w, "mamba_cache_mode",
                          kvplan_word_name(KVPLAN_WORDS_MAMBA_CACHE_MODE,
                                           (int)p->mamba_cache_mode));
        else
            kvplan__w_null(w, "mamba_cache_mode");
        kvplan__w_int(w, "blocks_per_request", p->blocks_per_request);
        kvplan__w_int(w, "profiled_blocks", p->profiled_blocks);
        kvplan__w_int(w, "max_in_flight_tokens", p->max_in_flight_tokens);
        kvplan__w_bool(w, "packed_groups", p->packed_groups);
    } else {
        static const char *const choice[] = {"default", "given", "model"};
        kvplan__w_int(w, "kv_cache_manager", p->kv_cache_manager);
        kvplan__w_str(w, "kv_cache_manager_choice",
                      (unsigned)p->kv_cache_manager_choice < 3
                          ? choice[p->kv_cache_manager_choice]
                          : "default");
        kvplan__w_str(w, "trtllm_version",
                      kvplan_trtllm_profile_name(p->trtllm_version));
        kvplan__w_rules(w, "trtllm_rules", p->trtllm_rules,
                        kvplan_trtllm_rule_at);
        kvplan__w_str(w, "v2_default", p->v2_default);
        if (p->kv_cache_manager == 2) {
            kvplan__w_int(w, "gpu_quota_bytes", p->gpu_quota_bytes);
            kvplan__w_int(w, "quota_grain_bytes", p->quota_grain_bytes);
        }
    }
    kvplan__w_str(w, "model", kvplan_model_get_info(d->model)->name);
    kvplan__w_object(w, "gpu");
    kvplan__w_str(w, "name", gpu->name);
    kvplan__w_real(w, "total_mib", gpu->total_mib);
    kvplan__w_end(w);
    kvplan__w_int(w, "tp_size", d->o->plan.server.tp_size);
    kvplan__w_int(w, "pp_size", d->o->plan.server.pp_size);
    kvplan__w_int(w, "max_model_len", p->max_model_len);
    kvplan__w_int(w, "max_num_seqs", p->max_num_seqs);
    kvplan__w_int(w, "max_num_batched_tokens", p->max_num_batched_tokens);
    kvplan__w_int(w, "block_size", p->block_size);
    kvplan__w_int(w, "num_gpu_blocks", p->num_gpu_blocks);
    kvplan__w_int(w, "kv_cache_tokens", p->kv_cache_tokens);
    kvplan__w_int(w, "group_size", p->group_size);
    kvplan__w_real(w, "max_concurrency", p->max_concurrency);
    kvplan__w_int(w, "padding_layers", p->padding_layers);
    kvplan__w_int(w, "kv_cache_groups", vllm ? kvplan__engine_groups(p) : 1);
    groups_json(w, p);
    engine_budget(w, p);
    kvplan__w_array(w, "log");
    if (vllm) {
        char tok[40], len[40], line[160];
        snprintf(line, sizeof line, "GPU KV cache size: %s tokens",
                 kvplan__grouped(p->kv_cache_tokens, tok, sizeof tok));
        kvplan__w_str(w, NULL, line);
        snprintf(line, sizeof line,
                 "Maximum concurrency for %s tokens per request: %.2fx",
                 kvplan__grouped(p->max_model_len, len, sizeof len),
                 p->max_concurrency);
        kvplan__w_str(w, NULL, line);
    }
    kvplan__w_end(w);
    kvplan__w_int(w, "bytes_per_token", p->bytes_per_token);
    char text[KVPLAN__ENGINE_NOTES][KVPLAN__ENGINE_NOTE];
    size_t nnotes = kvplan__engine_notes(p, text);
    kvplan__w_array(w, "notes");
    for (size_t i = 0; i < nnotes; i++)
        kvplan__w_str(w, NULL, text[i]);
    for (size_t i = 0; i < 3; i++)
        if (d->launch_notes[i] != NULL && d->launch_notes[i][0] != '\0')
            kvplan__w_str(w, NULL, d->launch_notes[i]);
    /* the flags this engine does not read, as the command warns of them
     * (a compare's nested plans answer no request of their own) */
    char unused[320];
    for (size_t i = 0;
         requested && kvplan__options_unused(d->o, i, unused, sizeof unused);
         i++)
        kvplan__w_str(w, NULL, unused);
    kvplan__w_end(w);
    if (vllm ? d->o->compare_vllm_set : d->o->compare_trtllm_set)
        compare_version(w, d, p->engine);
    if (requested)
        kvplan__doc_requested(w, "requested", d->o);
    kvplan__w_end(w);
}

/* What each engine's headline count is, under vLLM's rules `vllm_rules`
 * and TensorRT-LLM's KV cache manager `trtllm_manager` (1 or 2). */
const char *kvplan__tokens_are(kvplan_engine e, uint64_t vllm_rules,
                               int32_t trtllm_manager)
{
    switch (e) {
    case KVPLAN_ENGINE_SGLANG:
        return "max_total_num_tokens (the pool's tokens)";
    case KVPLAN_ENGINE_VLLM:
        return (vllm_rules & KVPLAN_VLLM_RULE_TOKENS_PER_GROUP)
                   ? "GPU KV cache size (num_blocks // KV-cache groups x "
                     "block, as 0.10-0.19 print it)"
                   : "GPU KV cache size (concurrency x max_model_len)";
    default:
        return trtllm_manager == 2 ? "KV cache manager V2's slots x "
                                     "tokens_per_block (it sizes no "
                                     "max_tokens)"
                                   : "max_tokens (blocks x tokens_per_block)";
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
               "holds; TensorRT-LLM's max_tokens is its blocks' tokens "
               "(KV cache manager V2's: its full layers' slots', "
               "DeepSeek-V4's compressed rows')";
    case KVPLAN_REASON_SLIDING_WINDOW:
        return "sliding window: sglang splits a full and an SWA pool "
               "(--swa-full-tokens-ratio); vLLM keeps window - 1 + the "
               "tokens in flight (from 0.26 two steps' under async "
               "scheduling) per request in the sliding layers, in one "
               "pool of equal pages (with padding layers "
               "where the counts differ); TensorRT-LLM's KV cache manager "
               "V1 prices every layer at the whole sequence unless "
               "max_attention_window is set; V2 keeps the sliding layers' "
               "window (GPT-OSS, Gemma 3 and 4, DeepSeek-V4's SWA and "
               "compressor states: a life cycle per window, "
               "the quota split between their pool groups by a typical "
               "request's needs)";
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

static void column_json(kvplan__writer *w, const kvplan_engine_column *c,
                        uint64_t vllm_rules, int32_t trtllm_manager)
{
    kvplan__w_object(w, NULL);
    kvplan__w_str(w, "engine", kvplan_engine_name(c->engine));
    if (c->status != KVPLAN_OK) {
        kvplan__w_str(w, "error", c->error);
        kvplan__w_end(w);
        return;
    }
    kvplan__w_real(w, "kv_cache_gib", c->kv_bytes / KVPLAN__GIB);
    if (c->state_bytes > 0)
        kvplan__w_real(w, "mamba_state_gib", c->state_bytes / KVPLAN__GIB);
    kvplan__w_real(w, "bytes_per_token", c->bytes_per_token);
    kvplan__w_int(w, "tokens", c->tokens);
    kvplan__w_str(w, "tokens_are",
                  kvplan__tokens_are(c->engine, vllm_rules, trtllm_manager));
    kvplan__w_int(w, "request_tokens", c->request_tokens);
    kvplan__w_real(w, "concurrency", c->concurrency);
    kvplan__w_real(w, "weights_gib", c->weight_bytes / KVPLAN__GIB);
    kvplan__w_end(w);
}

void kvplan__doc_compare(kvplan__writer *w, const kvplan__doc *d,
                         const kvplan_comparison *x)
{
    const kvplan_engine_column *c = x->columns;
    kvplan__w_object(w, NULL);
    kvplan__w_str(w, "kvplan_version", kvplan_version());
    kvplan__w_int(w, "schema_version", 1);
    kvplan__w_str(w, "model", kvplan_model_get_info(d->model)->name);
    kvplan__w_int(w, "gpus", x->fleet.gpus);
    kvplan__doc_requested(w, "requested", d->o);
    kvplan__w_array(w, "engines");
    for (size_t i = 0; i < 3; i++)
        column_json(w, &c[i], x->vllm.vllm_rules, x->trtllm.kv_cache_manager);
    kvplan__w_end(w);
    kvplan__w_array(w, "why");
    for (size_t i = 0; i < x->num_reasons; i++)
        kvplan__w_str(w, NULL,
                      kvplan__reason_text(x->reasons[i], x->sglang_rules));
    kvplan__w_end(w);
    if (c[1].status == KVPLAN_OK)
        kvplan__doc_engine(w, "vllm", d, &x->vllm, false);
    if (c[2].status == KVPLAN_OK)
        kvplan__doc_engine(w, "trtllm", d, &x->trtllm, false);
    kvplan__w_end(w);
}
