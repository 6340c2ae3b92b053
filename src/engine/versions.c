/*
 * versions.c: the vLLM releases a plan can follow (docs/engines.md,
 * "vLLM versions"). The newest kvplan models is the default; each change
 * that moved a figure since vLLM 0.10 is one rule, a bit of
 * kvplan_engine_plan.vllm_rules, set in the releases that still had the
 * older behaviour. vllm.c and engine.c read the bits where the rule
 * lives. Release boundaries come from the PRs' merge dates and from logs
 * that show them (a 0.20.2 launch already "default since v0.21.0").
 */
#include "engine/engine.h"

#include <stdio.h>
#include <string.h>

static const kvplan_rule_info rules[] = {
    {KVPLAN_VLLM_RULE_NO_NULL_BLOCK, "no_null_block",
     "vllm#47272 (76fb6d21, merged 2026-08; first in 0.29.0)",
     "one request of max_model_len is checked against every block; 0.29 "
     "keeps the null block out (check_memory = available - one block of "
     "every layer), so a cache of exactly one request's blocks is refused",
     true},
    {KVPLAN_VLLM_RULE_MAMBA_NONE, "mamba_none",
     "vllm#50991 (2026-08-04; 0.28.0)",
     "a mamba hybrid serves without prefix caching by default "
     "(mamba_cache_mode none: one state block a request); 0.28 turns "
     "prefix caching on with mode align, two blocks a request",
     false},
    {KVPLAN_VLLM_RULE_UNPADDED_PAGE, "unpadded_page",
     "vllm#45181 (2026-06-10), #45207 (2026-06-11)",
     "a KV page that does not divide the largest is refused (\"The page "
     "size of the layer is not divisible by the maximum page size\"); "
     "later releases pad it up to the largest, its block unchanged",
     false},
    {KVPLAN_VLLM_RULE_GRAPHS_UNCOUNTED, "graphs_uncounted",
     "vllm#30515 (opt-in), on by default from vllm#38284 (2026-04-21): a "
     "0.20.2 launch already prints \"CUDA graph memory profiling is enabled "
     "(default since v0.21.0)\" (tests/logs/vllm/09)",
     "the CUDA graphs' memory is not taken from the KV budget "
     "(VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS off)",
     true},
    {KVPLAN_VLLM_RULE_UTILIZATION_090, "utilization_090",
     "vllm#38284 (96a85c575, 2026-04-21), with the graphs' default",
     "--gpu-memory-utilization defaults to 0.9, not 0.92", true},
    {KVPLAN_VLLM_RULE_TOKENS_PER_GROUP, "tokens_per_group",
     "vllm#13596 (2025-02), replaced after vllm#40691 (0.19.0, 2026-04-23); "
     "0.20.2 prints max_concurrency x max_model_len (tests/logs/vllm/09)",
     "\"GPU KV cache size\" prints num_blocks // KV-cache groups x the "
     "least block size, not max_concurrency x max_model_len (the two "
     "differ for models of several groups)",
     true},
    {KVPLAN_VLLM_RULE_SSM_FLOAT16, "ssm_float16",
     "vllm#39032 (2026-04-05, after 0.19.0 was released: first in 0.20)",
     "a Nemotron-H config without mamba_ssm_cache_dtype keeps its ssm "
     "state in float16 (NemotronHForCausalLMConfig's default), not "
     "float32; the public Nemotron-3 configs set float32 themselves",
     true},
    {KVPLAN_VLLM_RULE_SSM_AS_CONV, "ssm_as_conv",
     "vllm#29978 (2025-12-03, after 0.12.0's branch: first in 0.13)",
     "a Nemotron-H model's ssm state takes the conv state's dtype (the "
     "model's) unless --mamba-ssm-cache-dtype says otherwise; 0.13 reads "
     "the config's mamba_ssm_cache_dtype (float32 in Nemotron-3's)",
     false},
    {KVPLAN_VLLM_RULE_MLA_CUTLASS, "mla_cutlass",
     "vllm#21626 (2025-07-25) made CUTLASS_MLA Blackwell's default; "
     "vllm#32615 (2026-01) FlashInfer MLA's for qk_nope_head_dim 128",
     "an MLA model on Blackwell (SM10x) takes CUTLASS_MLA and blocks of "
     "128 tokens; later releases take FlashInfer MLA, 64, where "
     "qk_nope_head_dim is 128 (DeepSeek V3, Kimi K2)",
     false},
    {KVPLAN_VLLM_RULE_MAMBA_SEQS_UNCHECKED, "mamba_seqs_unchecked",
     "vllm#38270 (2026-03-30; vllm#38632 names it): NeMo RL's A/B "
     "(NVIDIA-NeMo/RL#2620) starts on 0.17.1 and is refused on 0.20.0; "
     "0.19.0's side is not established",
     "a mamba hybrid starts with fewer state blocks than --max-num-seqs; "
     "later releases refuse it before capturing CUDA graphs "
     "(\"max_num_seqs (N) exceeds available Mamba cache blocks (M)\"), "
     "not with --enforce-eager",
     true},
    {KVPLAN_VLLM_RULE_ONE_BATCH_IN_FLIGHT, "one_batch_in_flight",
     "vllm#47728 (2026-07-06; first in 0.26.0: the Gemma 4 launch of "
     "vllm#49878 needs 45.79 GiB on 0.25.1, 70.79 GiB on 0.26)",
     "a sliding-window layer reserves window - 1 + max_num_batched_tokens "
     "a request; from 0.26 its out-of-window blocks are freed only once "
     "the steps in flight settle, so it reserves max_in_flight_tokens = "
     "max_concurrent_batches x max_num_batched_tokens (2 batches under "
     "async scheduling, the default; PP one a stage)",
     true},
};

#define NUM_RULES (sizeof rules / sizeof rules[0])

bool kvplan_vllm_rule_at(size_t index, kvplan_rule_info *out)
{
    return kvplan__rule_copy(rules, NUM_RULES, index, out);
}

bool kvplan__rule_copy(const kvplan_rule_info *table, size_t n, size_t index,
                       kvplan_rule_info *out)
{
    if (out == NULL || index >= n)
        return false;
    *out = table[index];
    return true;
}

const kvplan__release_range *
kvplan__range_of(const kvplan__release_range *table, size_t n, int profile)
{
    for (size_t i = 0; i < n; i++)
        if (table[i].profile == profile)
            return &table[i];
    return NULL;
}

const kvplan__release_range *
kvplan__range_find(const kvplan__release_range *table, size_t n,
                   const char *name, long release)
{
    for (size_t i = 0; i < n; i++)
        if (kvplan__ascii_ieq(name, table[i].name))
            return &table[i];
    for (size_t i = 0; release >= 0 && i < n; i++)
        if (release >= table[i].first && release <= table[i].last)
            return &table[i];
    return NULL;
}

#define RULES_0_26                                                             \
    (KVPLAN_VLLM_RULE_NO_NULL_BLOCK | KVPLAN_VLLM_RULE_MAMBA_NONE)
#define RULES_0_23 (RULES_0_26 | KVPLAN_VLLM_RULE_ONE_BATCH_IN_FLIGHT)
#define RULES_0_20 (RULES_0_23 | KVPLAN_VLLM_RULE_UNPADDED_PAGE)
#define RULES_0_13                                                             \
    (RULES_0_20 | KVPLAN_VLLM_RULE_GRAPHS_UNCOUNTED |                          \
     KVPLAN_VLLM_RULE_UTILIZATION_090 | KVPLAN_VLLM_RULE_TOKENS_PER_GROUP |    \
     KVPLAN_VLLM_RULE_SSM_FLOAT16 | KVPLAN_VLLM_RULE_MAMBA_SEQS_UNCHECKED)

/* first and last: releases, as kvplan__release_number */
static const kvplan__release_range profiles[] = {
    {KVPLAN_VLLM_LATEST, "0.29-0.31", 2900, 3199, 0},
    {KVPLAN_VLLM_V0_28, "0.28", 2800, 2899, KVPLAN_VLLM_RULE_NO_NULL_BLOCK},
    {KVPLAN_VLLM_V0_26, "0.26-0.27", 2600, 2799, RULES_0_26},
    {KVPLAN_VLLM_V0_23, "0.23-0.25", 2300, 2599, RULES_0_23},
    {KVPLAN_VLLM_V0_20, "0.20-0.22", 2000, 2299, RULES_0_20},
    {KVPLAN_VLLM_V0_13, "0.13-0.19", 1300, 1999, RULES_0_13},
    {KVPLAN_VLLM_V0_10, "0.10-0.12", 1000, 1299,
     RULES_0_13 | KVPLAN_VLLM_RULE_SSM_AS_CONV | KVPLAN_VLLM_RULE_MLA_CUTLASS},
};

#define NUM_PROFILES (sizeof profiles / sizeof profiles[0])

uint64_t kvplan_vllm_rules(kvplan_vllm_profile p)
{
    const kvplan__release_range *r =
        kvplan__range_of(profiles, NUM_PROFILES, (int)p);
    return r != NULL ? r->rules : 0;
}

const char *kvplan_vllm_profile_name(kvplan_vllm_profile p)
{
    const kvplan__release_range *r =
        kvplan__range_of(profiles, NUM_PROFILES, (int)p);
    return r != NULL ? r->name : NULL;
}

kvplan_status kvplan_vllm_profile_parse(const char *version,
                                        kvplan_vllm_profile *out,
                                        kvplan_error *err)
{
    KVPLAN__FAIL_IF(version == NULL || out == NULL, err,
                    KVPLAN_INVALID_ARGUMENT, "--vllm-version",
                    "--vllm-version: no version given");
    if (kvplan__ascii_ieq(version, "latest") ||
        kvplan__ascii_ieq(version, "main")) {
        *out = KVPLAN_VLLM_LATEST;
        return kvplan__ok(err);
    }
    /* "0.28" as "0.28.0" */
    char full[48];
    long n = kvplan__release_number(version);
    if (n < 0 && strlen(version) < 40 && strchr(version, '.') != NULL &&
        strchr(strchr(version, '.') + 1, '.') == NULL) {
        snprintf(full, sizeof full, "%s.0", version);
        n = kvplan__release_number(full);
    }
    const kvplan__release_range *r =
        kvplan__range_find(profiles, NUM_PROFILES, version, n);
    if (r != NULL) {
        *out = (kvplan_vllm_profile)r->profile;
        return kvplan__ok(err);
    }
    return kvplan__fail(
        err, KVPLAN_INVALID_ARGUMENT, "--vllm-version",
        "--vllm-version: kvplan has no profile for '%.40s'%s; it knows "
        "latest (the default: 0.29-0.31), 0.28, 0.26-0.27, 0.23-0.25, "
        "0.20-0.22, "
        "0.13-0.19 and 0.10-0.12, or a release of those ranges such as "
        "0.10.2",
        version,
        n < 0      ? " (not a version)"
        : n < 1000 ? " (older than 0.10: vLLM's V0 engine, not modelled)"
                   : " (newer than 0.31)");
}

int32_t kvplan__engine_figures(const kvplan_model *m,
                               const kvplan_engine_options *o,
                               kvplan_engine_version_figures *f)
{
    kvplan_engine_plan p;
    kvplan_error err;
    memset(f, 0, sizeof *f);
    f->status = kvplan_engine_compute(m, o, &p, &err);
    if (f->status != KVPLAN_OK) {
        /* a message past the field ends in "..." */
        if (snprintf(f->error, sizeof f->error, "%s", err.message) >=
            (int)sizeof f->error)
            memcpy(f->error + sizeof f->error - 4, "...", 4);
        return 0;
    }
    f->available_bytes = p.available_bytes;
    f->num_gpu_blocks = p.num_gpu_blocks;
    f->kv_cache_tokens = p.kv_cache_tokens;
    f->max_concurrency = p.max_concurrency;
    return p.kv_cache_manager;
}

bool kvplan__engine_figures_move(const kvplan_engine_version_figures *a,
                                 const kvplan_engine_version_figures *b)
{
    return a->status != b->status || a->available_bytes != b->available_bytes ||
           a->num_gpu_blocks != b->num_gpu_blocks ||
           a->kv_cache_tokens != b->kv_cache_tokens ||
           a->max_concurrency != b->max_concurrency;
}

size_t kvplan__engine_rule_deltas(const kvplan_model *m,
                                  kvplan_engine_options *o, uint64_t *flip,
                                  const kvplan_rule_info *table, size_t n,
                                  uint64_t mine, uint64_t theirs,
                                  const kvplan_engine_version_figures *plan,
                                  kvplan_engine_rule_delta *out, size_t cap)
{
    uint64_t given = *flip;
    size_t k = 0;
    for (size_t i = 0; i < n && k < cap; i++) {
        if (!((mine ^ theirs) & table[i].bit))
            continue;
        kvplan_engine_rule_delta *d = &out[k++];
        d->rule = table[i];
        d->in_plan = (mine & table[i].bit) != 0;
        *flip = given ^ table[i].bit;
        kvplan__engine_figures(m, o, &d->alone);
        d->changes = kvplan__engine_figures_move(&d->alone, plan);
    }
    *flip = given;
    return k;
}

kvplan_status kvplan_engine_version_compare(
    const kvplan_model *m, const kvplan_engine_options *options,
    kvplan_vllm_profile other, kvplan_engine_version_comparison *out,
    kvplan_error *err)
{
    KVPLAN__FAIL_IF(m == NULL || options == NULL || out == NULL, err,
                    KVPLAN_INVALID_ARGUMENT, NULL,
                    "kvplan_engine_version_compare needs a model, options "
                    "and a result; got NULL");
    KVPLAN__FAIL_IF(kvplan_vllm_profile_name(other) == NULL, err,
                    KVPLAN_INVALID_ARGUMENT, "--compare-version",
                    "--compare-version: %d is not a kvplan_vllm_profile",
                    (int)other);
    memset(out, 0, sizeof *out);
    kvplan_engine_options o = *options;
    o.engine = KVPLAN_ENGINE_VLLM;
    out->profile = o.vllm_version;
    out->compared = other;
    kvplan__engine_figures(m, &o, &out->plan);
    o.vllm_version = other;
    kvplan__engine_figures(m, &o, &out->compared_plan);
    o.vllm_version = options->vllm_version;
    out->num_rules = kvplan__engine_rule_deltas(
        m, &o, &o.vllm_rules_flip, rules, NUM_RULES,
        kvplan_vllm_rules(options->vllm_version), kvplan_vllm_rules(other),
        &out->plan, out->rules, sizeof out->rules / sizeof out->rules[0]);
    return kvplan__ok(err);
}
