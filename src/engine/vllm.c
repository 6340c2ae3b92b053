/*
 * vllm.c: what vLLM v1 allocates (docs/engines.md), restated from
 * vllm/v1/kv_cache_interface.py (each spec's most bytes per request; the
 * page bytes are vllm_pages.c's), vllm/v1/core/kv_cache_utils.py (page
 * unification, the groups and their padding layers, num_blocks, the report) and
 * vllm/model_executor/models/config.py (the attention block grown to the
 * mamba page). The budget (gpu_worker.py): requested = ceil(total *
 * gpu_memory_utilization), less the weights, the profile run's peak, the
 * non-torch memory and the CUDA graphs; --kv-cache-memory replaces it.
 * The rules that moved between releases are versions.c's bits.
 */
#include "engine/vllm_spec.h"

#include <math.h>
#include <string.h>

int64_t kvplan__vllm_usage(const kvplan__vllm_spec *s, int64_t len,
                           int64_t in_flight, bool *ovf)
{
    switch (s->kind) {
    case KVPLAN_KV_SPEC_SLIDING_WINDOW: {
        int64_t t = kvplan__min(s->window - 1 + in_flight, len);
        return kvplan__mul(kvplan__ceil_div(t, s->block, ovf) + 1, s->page,
                           ovf);
    }
    case KVPLAN_KV_SPEC_MAMBA: /* no speculative blocks */
        if (s->state_blocks > 0)
            return kvplan__mul(s->state_blocks, s->page, ovf);
        break; /* all: a state a block */
    case KVPLAN_KV_SPEC_FULL:
    case KVPLAN_KV_SPEC_MLA:
        break;
    }
    return kvplan__mul(kvplan__ceil_div(len, s->block, ovf), s->page, ovf);
}

/* Every layer's most bytes for one request of `len` tokens (the check of
 * check_enough_kv_cache_memory and estimate_max_model_len). */
static int64_t needed(const kvplan__vllm_spec *s, size_t n, int64_t len,
                      int64_t in_flight, bool *ovf)
{
    int64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum = kvplan__add(
            sum,
            kvplan__mul(kvplan__vllm_usage(&s[i], len, in_flight, ovf),
                        s[i].layers, ovf),
            ovf);
    return sum;
}

/* An MLA model's block as CudaPlatformBase.check_and_update_config forces
 * it for the default backend: DSA's sparse FlashMLA 64; on Blackwell
 * (SM10x) FlashInfer MLA 64 (32 kept) where qk_nope_head_dim is 128, else
 * CUTLASS_MLA a multiple of 128 (always, before vllm#32615); on Hopper
 * FlashMLA a multiple of 64; elsewhere (Ampere, Ada, consumer Blackwell,
 * ROCm) Triton MLA keeps the block, 16 by default. A backend named with
 * --attention-backend forces its own: FLASHMLA (where its dense kernel
 * runs, Hopper) 64, CUTLASS_MLA 128, FLASHINFER_MLA 64 or 32; another
 * keeps the block. */
static int64_t mla_block(const kvplan__engine_census *c,
                         const kvplan_engine_options *o, const kvplan_gpu *gpu,
                         int64_t block)
{
    uint64_t rules = kvplan_vllm_rules(o->vllm_version) ^ o->vllm_rules_flip;
    int major = gpu->is_hip ? 0 : kvplan__gpu_major(gpu);
    if (c->dsa)
        return 64;
    const char *named = o->vllm_attention_backend;
    if (named != NULL) { /* the forced case */
        if (kvplan__ascii_ieq(named, "FLASHMLA") && major == 9)
            return block % 64 == 0 ? block : 64;
        if (kvplan__ascii_ieq(named, "CUTLASS_MLA"))
            return block % 128 == 0 ? block : 128;
        if (kvplan__ascii_ieq(named, "FLASHINFER_MLA"))
            return block == 32 || block % 64 == 0 ? block : 64;
        return block;
    }
    if (major == 10 && c->qk_nope == 128 &&
        !(rules & KVPLAN_VLLM_RULE_MLA_CUTLASS))
        return block == 32 || block % 64 == 0 ? block : 64;
    if (major == 10)
        return block % 128 == 0 ? block : 128;
    if (major == 9)
        return block % 64 == 0 ? block : 64;
    return block;
}

/* The block: --block-size, else 16 (MLA's: mla_block); for a hybrid
 * mamba model (HybridAttentionMambaModelConfig) the least block, a
 * multiple of the kernel's alignment, whose page holds one mamba state.
 * `attn_1`: one token's attention page. */
static int64_t vllm_block(const kvplan__engine_census *c,
                          const kvplan_engine_options *o, const kvplan_gpu *gpu,
                          int64_t attn_1, bool *ovf)
{
    int64_t block = o->block_size.set ? o->block_size.value : 16;
    if (c->mla)
        block = mla_block(c, o, gpu, block);
    int64_t mamba_page = c->mamba_page;
    if (c->mambaish && mamba_page > 0) {
        int64_t align = c->mla ? 64 : 16;
        if (kvplan__gpu_major(gpu) == 10 && !c->mla && c->head_dim == 256)
            align = 32; /* flashinfer, head 256 on Blackwell */
        int64_t need = kvplan__mul(
            align,
            kvplan__ceil_div(mamba_page, kvplan__mul(align, attn_1, ovf), ovf),
            ovf);
        if (!o->block_size.set || o->block_size.value < need)
            block = need;
        if (mamba_page > kvplan__mul(block, attn_1, ovf))
            block = kvplan__ceil_div(mamba_page, attn_1, ovf);
    }
    return block;
}

/* The KV specs vLLM builds, into s[5]; returns how many. `states`: a
 * request's mamba blocks (spec.state_blocks). */
static size_t vllm_specs(const kvplan__engine_census *c, int64_t block,
                         int64_t attn_1, int64_t states, kvplan__vllm_spec s[5],
                         bool *ovf)
{
    size_t n = 0;
    int64_t mamba_page = c->mamba_page;
    if (c->full_layers > 0)
        s[n++] = (kvplan__vllm_spec){c->mla ? KVPLAN_KV_SPEC_MLA
                                            : KVPLAN_KV_SPEC_FULL,
                                     c->full_layers,
                                     kvplan__mul(block, attn_1, ovf),
                                     0,
                                     block,
                                     0,
                                     false,
                                     0};
    if (c->dsa) /* the indexer's cache: one more MLA-type layer each */
        s[n++] = (kvplan__vllm_spec){KVPLAN_KV_SPEC_MLA,
                                     c->full_layers,
                                     kvplan__mul(block, c->index_bytes, ovf),
                                     0,
                                     block,
                                     0,
                                     false,
                                     0};
    if (c->swa_layers > 0)
        s[n++] = (kvplan__vllm_spec){
            KVPLAN_KV_SPEC_SLIDING_WINDOW,
            c->swa_layers,
            kvplan__vllm_attention_page(block, c->swa_kv_heads, c->swa_head_dim,
                                        c->swa_v_head_dim, c->kv_elem, ovf),
            0,
            block,
            c->window,
            false,
            0};
    if (c->mamba_layers > 0) { /* padded to the attention page */
        int64_t padded = kvplan__max(mamba_page, n > 0 ? s[0].page : 0);
        s[n++] = (kvplan__vllm_spec){KVPLAN_KV_SPEC_MAMBA,
                                     c->mamba_layers,
                                     padded,
                                     mamba_page,
                                     block,
                                     0,
                                     false,
                                     states};
    }
    if (c->draft_layers > 0) {
        /* an EAGLE head: full attention with its own geometry; with the
         * target's page it is one spec with the target's full layers */
        int64_t page = kvplan__vllm_attention_page(
            block, c->draft_kv_heads, c->draft_head_dim, c->draft_v_head_dim,
            c->kv_elem, ovf);
        if (n > 0 && s[0].kind == KVPLAN_KV_SPEC_FULL && s[0].page == page)
            s[0].layers += c->draft_layers;
        else
            s[n++] = (kvplan__vllm_spec){KVPLAN_KV_SPEC_FULL,
                                         c->draft_layers,
                                         page,
                                         0,
                                         block,
                                         0,
                                         true,
                                         0};
    }
    for (size_t i = 0; i < n; i++)
        if (s[i].real_page == 0)
            s[i].real_page = s[i].page;
    return n;
}

/* The cache's bytes: --kv-cache-memory, or gpu_memory_utilization of the
 * total less the profile's terms (weights, activation, non-torch, CUDA
 * graphs). */
static kvplan_status vllm_available(const kvplan_engine_options *o,
                                    kvplan_engine_plan *p, kvplan_error *err)
{
    bool old = p->vllm_rules & KVPLAN_VLLM_RULE_UTILIZATION_090;
    double util = o->gpu_memory_utilization.set
                      ? o->gpu_memory_utilization.value
                  : old ? 0.9
                        : 0.92;
    /* before 0.20 the CUDA graphs, captured after the profile, took no
     * part in it */
    if ((p->vllm_rules & KVPLAN_VLLM_RULE_GRAPHS_UNCOUNTED) &&
        !o->cuda_graph_bytes.set) {
        p->cuda_graph_bytes = 0;
        p->cuda_graph_source = KVPLAN_SOURCE_EXACT;
    }
    p->requested_bytes = ceil(p->total_bytes * util);
    /* memory other processes hold (--gpu auto): vLLM refuses to start when
     * what is free is less than it requests (request_memory) */
    double free =
        p->total_bytes - (o->gpu_set ? o->gpu.in_use_mib : 0) * 1048576.0;
    double g = 1073741824.0;
    KVPLAN__FAIL_IF(free < p->requested_bytes, err, KVPLAN_NOT_ENOUGH_MEMORY,
                    "--gpu-memory-utilization",
                    "Free memory on device (%.2f/%.2f GiB) on startup is less "
                    "than desired GPU memory utilization (%g, %.2f GiB). "
                    "Decrease GPU memory utilization or reduce GPU memory "
                    "used by other processes. (vLLM; %.90s)",
                    free / g, p->total_bytes / g, util, p->requested_bytes / g,
                    o->gpu.in_use_by);
    if (o->kv_cache_memory_bytes.set) {
        p->available_bytes = o->kv_cache_memory_bytes.value;
        p->available_given = true;
        return KVPLAN_OK;
    }
    double a = p->requested_bytes - p->weight_bytes - p->activation_bytes -
               p->non_torch_bytes - p->cuda_graph_bytes;
    p->available_bytes = a > 0 ? (int64_t)a : 0;
    KVPLAN__FAIL_IF(
        !(a > 0), err, KVPLAN_NOT_ENOUGH_MEMORY, "--gpu-memory-utilization",
        "No available memory for the cache blocks. Try increasing "
        "`gpu_memory_utilization` when initializing the engine (vLLM; "
        "the weights take %.2f GiB of the %.2f GiB requested)",
        p->weight_bytes / 1073741824.0, p->requested_bytes / 1073741824.0);
    return KVPLAN_OK;
}

/* The specs of a plan and the tokens in flight, as kvplan__vllm_longest's
 * context */
typedef struct specs_at {
    const kvplan__vllm_spec *s;
    size_t n;
    int64_t in_flight;
} specs_at;

static int64_t specs_need(const void *ctx, int64_t len, bool *ovf)
{
    const specs_at *a = ctx;
    return needed(a->s, a->n, len, a->in_flight, ovf);
}

static int64_t vllm_fit_len(const kvplan__vllm_spec *s, size_t n, int64_t most,
                            int64_t mnbt, int64_t avail, bool *ovf)
{
    specs_at a = {s, n, mnbt};
    return kvplan__vllm_longest(most, avail, specs_need, &a, ovf);
}

kvplan_status kvplan__vllm_check_memory(const kvplan_engine_plan *p,
                                        int64_t len, bool autofit,
                                        int64_t block_bytes, int64_t *avail,
                                        kvplan_error *err)
{
    KVPLAN__FAIL_IF(len == 0, err, KVPLAN_NOT_ENOUGH_MEMORY, "--max-model-len",
                    "--max-model-len auto: not one token's KV cache fits in "
                    "%.2f GiB (vLLM)",
                    (double)p->available_bytes / 1073741824.0);
    /* #47272 keeps check_memory = available under auto (#48724, open) */
    bool null_block =
        !(p->vllm_rules & KVPLAN_VLLM_RULE_NO_NULL_BLOCK) && !autofit;
    *avail = p->available_bytes - (null_block ? block_bytes : 0);
    return KVPLAN_OK;
}

kvplan_status kvplan__vllm_refuse_length(int64_t len, int64_t need,
                                         int64_t avail, int64_t best,
                                         kvplan_error *err)
{
    return kvplan__fail(
        err, KVPLAN_NOT_ENOUGH_MEMORY, "--max-model-len",
        "To serve at least one request with the model's max seq len "
        "(%lld), (%.2f GiB KV cache is needed, which is larger than the "
        "available KV cache memory (%.2f GiB). Based on the available "
        "memory, the estimated maximum model length is %lld. Try "
        "increasing `gpu_memory_utilization` or decreasing "
        "`max_model_len` (vLLM)",
        (long long)len, (double)need / 1073741824.0,
        (double)avail / 1073741824.0, (long long)best);
}

/* One request of max_model_len must fit in `avail` (from 0.29 less the
 * null block: the caller's): else vLLM's refusal, with the longest that
 * would (estimate_max_model_len, by bisection). */
static kvplan_status vllm_one_request(const kvplan__vllm_spec *s, size_t n,
                                      int64_t len, int64_t mnbt, int64_t avail,
                                      bool *ovf, kvplan_error *err)
{
    int64_t need = needed(s, n, len, mnbt, ovf);
    if (need <= avail)
        return KVPLAN_OK;
    return kvplan__vllm_refuse_length(
        len, need, avail, vllm_fit_len(s, n, len, mnbt, avail, ovf), err);
}

/* One group: every layer the same spec, or one UniformType group (DSA:
 * the MLA and the indexer layers, pages summed). */
static void vllm_one_group(const kvplan__vllm_spec *s, size_t n, int64_t len,
                           int64_t mnbt, int64_t block, kvplan_engine_plan *p,
                           int64_t *blocks, int64_t *per_req, bool *ovf)
{
    int64_t layers = 0, page_sum = 0;
    for (size_t i = 0; i < n; i++) {
        layers += s[i].layers;
        page_sum = kvplan__add(page_sum,
                               kvplan__mul(s[i].page, s[i].layers, ovf), ovf);
    }
    *blocks = p->available_bytes / page_sum;
    /* get_max_concurrency_for_kv_cache_config: a request's blocks are its
     * spec's most bytes over the page, so an all-sliding model's are the
     * window's (cdiv(min(window - 1 + batched, len), block) + 1), not the
     * length's (vLLM's test: 32 sliding layers, window 1024, 387 blocks:
     * 3.00x, where len / block gave 0.38x) */
    *per_req = n == 1
                   ? kvplan__ceil_div(kvplan__vllm_usage(&s[0], len, mnbt, ovf),
                                      s[0].page, ovf)
                   : kvplan__ceil_div(len, block, ovf);
    p->group_size = layers;
    p->num_groups = n;
    for (size_t i = 0; i < n; i++)
        p->groups[i] =
            (kvplan_engine_group){s[i].kind,
                                  s[i].layers,
                                  0,
                                  s[i].page,
                                  s[i].real_page,
                                  s[i].block,
                                  0,
                                  kvplan__vllm_usage(&s[i], len, mnbt, ovf),
                                  0,
                                  0};
}

/* unify_kv_cache_spec_page_size: a smaller page grows its block to the
 * largest page; one that does not divide it, or a mamba state's (whose
 * page its block does not set), is padded up to it from 0.23 (#45181,
 * #45207) and refused before. */
static kvplan_status vllm_unify(kvplan__vllm_spec *s, size_t n, uint64_t rules,
                                kvplan_error *err)
{
    int64_t top = 0;
    for (size_t i = 0; i < n; i++)
        top = kvplan__max(top, s[i].page);
    bool unpadded = rules & KVPLAN_VLLM_RULE_UNPADDED_PAGE;
    for (size_t i = 0; i < n; i++) {
        if (s[i].page == top)
            continue;
        KVPLAN__FAIL_IF(unpadded && top % s[i].page != 0, err,
                        KVPLAN_UNSUPPORTED, "--block-size",
                        "vLLM before 0.23 cannot unify this model's KV pages "
                        "(%lld and %lld bytes): \"The page size of the layer "
                        "is not divisible by the maximum page size\" (padded "
                        "from vllm#45181: --vllm-version 0.23)",
                        (long long)s[i].page, (long long)top);
        KVPLAN__FAIL_IF(unpadded && s[i].kind == KVPLAN_KV_SPEC_MAMBA, err,
                        KVPLAN_UNSUPPORTED, "--block-size",
                        "vLLM before 0.23 stops with an AssertionError in "
                        "unify_kv_cache_spec_page_size: a mamba page (%lld "
                        "bytes) below the largest (%lld) does not grow with "
                        "its block (vllm#43626; padded from vllm#45207)",
                        (long long)s[i].page, (long long)top);
        if (top % s[i].page == 0 && s[i].kind != KVPLAN_KV_SPEC_MAMBA)
            s[i].block *= top / s[i].page;
        s[i].page = top; /* else page_size_padded, the block kept */
    }
    return KVPLAN_OK;
}

/* Specs of several kinds, unified: groups of group_size layers. */
static void vllm_groups(kvplan__vllm_spec *s, size_t n, int64_t len,
                        int64_t mnbt, kvplan_engine_plan *p, int64_t *blocks,
                        int64_t *per_req, bool *ovf)
{
    int64_t top = s[0].page;
    int64_t counts[5];
    for (size_t i = 0; i < n; i++)
        counts[i] = s[i].layers;
    int64_t g = kvplan__vllm_group_size(counts, n, &p->padding_layers);
    p->group_size = g;
    *blocks = p->available_bytes / top / g;
    int64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t groups = kvplan__ceil_div(s[i].layers, g, ovf);
        int64_t u = kvplan__vllm_usage(&s[i], len, mnbt, ovf);
        sum = kvplan__add(sum, kvplan__mul(u, groups, ovf), ovf);
        int64_t pad = s[i].layers % g ? g - s[i].layers % g : 0;
        if (p->num_groups < KVPLAN_MAX_ENGINE_GROUPS)
            p->groups[p->num_groups++] = (kvplan_engine_group){
                s[i].kind,  s[i].layers, pad, s[i].page, s[i].real_page,
                s[i].block, s[i].window, u,   0,         0};
    }
    *per_req = kvplan__ceil_div(sum, top, ovf);
}

/* #38270: a mamba hybrid needs one state block a decode sequence,
 * checked where CUDA graphs are captured (compilation.py), so not under
 * --enforce-eager. */
static kvplan_status vllm_mamba_seqs(const kvplan__engine_census *c,
                                     const kvplan_engine_options *o,
                                     const kvplan_engine_plan *p,
                                     int64_t blocks, kvplan_error *err)
{
    KVPLAN__FAIL_IF(
        c->mamba_layers > 0 && !o->enforce_eager &&
            !(p->vllm_rules & KVPLAN_VLLM_RULE_MAMBA_SEQS_UNCHECKED) &&
            p->max_num_seqs > blocks,
        err, KVPLAN_NOT_ENOUGH_MEMORY, "--max-num-seqs",
        "max_num_seqs (%lld) exceeds available Mamba cache blocks (%lld). "
        "Each decode sequence requires one Mamba cache block, so CUDA graph "
        "capture cannot proceed. Please lower max_num_seqs to at most %lld "
        "or increase gpu_memory_utilization. (vLLM)",
        (long long)p->max_num_seqs, (long long)blocks, (long long)blocks);
    return KVPLAN_OK;
}

/* What a sliding window reserves past itself: one step's tokens before
 * 0.26; from #47728 max_in_flight_tokens, the steps not yet settled:
 * max_concurrent_batches (async scheduling, the default: 2; PP: one a
 * stage, the V1 model runner's count) x the step's. */
static int64_t vllm_in_flight(const kvplan_engine_options *o,
                              kvplan_engine_plan *p, bool *ovf)
{
    int64_t stages = o->pp_size > 1 ? o->pp_size : 1;
    int64_t batches = p->vllm_rules & KVPLAN_VLLM_RULE_ONE_BATCH_IN_FLIGHT ? 1
                      : !o->no_async_scheduling && stages == 1             ? 2
                                                               : stages;
    p->max_in_flight_tokens =
        kvplan__mul(batches, p->max_num_batched_tokens, ovf);
    return p->max_in_flight_tokens;
}

kvplan_status kvplan__vllm_plan(const kvplan__engine_census *census,
                                const kvplan_engine_options *o,
                                const kvplan_model *m, kvplan_engine_plan *p,
                                kvplan_error *err)
{
    kvplan__engine_census merged;
    const kvplan__engine_census *c = &merged;
    KVPLAN__TRY(kvplan__vllm_without_hma(census, o, &merged, err));
    const kvplan_gpu *gpu = o->gpu_set ? &o->gpu : kvplan__gpu_default();
    bool big = gpu->total_mib >= 70 * 1024 && !strstr(gpu->name, "A100");
    p->vllm_version = o->vllm_version;
    p->vllm_rules = kvplan_vllm_rules(o->vllm_version) ^ o->vllm_rules_flip;
    /* --max-model-len auto (-1, kept as 0): the longest one request fits,
     * found below once the cache's bytes are known */
    bool autofit = o->max_model_len.set && o->max_model_len.value == 0;
    p->max_model_len = o->max_model_len.set && !autofit ? o->max_model_len.value
                                                        : c->context_len;
    /* vLLM's ModelConfig (_get_and_verify_max_len): a length above the
     * model's own is refused unless VLLM_ALLOW_LONG_MAX_MODEL_LEN is set */
    KVPLAN__FAIL_IF(
        p->max_model_len > c->context_len && !o->allow_long_max_model_len, err,
        KVPLAN_INVALID_CONFIG, "--max-model-len",
        "User-specified max_model_len (%lld) is greater than the derived "
        "max_model_len (%lld in the model's config.json). To allow "
        "overriding this maximum, set the env var "
        "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 (vLLM)",
        (long long)p->max_model_len, (long long)c->context_len);
    p->max_num_seqs = o->max_num_seqs.set ? o->max_num_seqs.value
                      : big               ? 1024
                                          : 256;
    p->max_num_batched_tokens = o->max_num_batched_tokens.set
                                    ? o->max_num_batched_tokens.value
                                : big ? 8192
                                      : 2048;
    int64_t len = p->max_model_len;
    bool ovf = false;
    int64_t mnbt = p->max_num_batched_tokens;
    int64_t in_flight = vllm_in_flight(o, p, &ovf);
    KVPLAN__FAIL_IF(ovf, err, KVPLAN_OVERFLOW, "--max-num-batched-tokens",
                    "--max-num-batched-tokens %lld: the tokens in flight "
                    "(max_concurrent_batches x it) exceed 64 bits",
                    (long long)p->max_num_batched_tokens);
    kvplan__engine_terms(m, o, c, mnbt, p->max_num_seqs, p);
    KVPLAN__TRY(vllm_available(o, p, err));
    KVPLAN__FAIL_IF(o->fp4_indexer_cache && !m->info.is_deepseek_v4, err,
                    KVPLAN_INVALID_ARGUMENT, "--fp4-indexer-cache",
                    "--fp4-indexer-cache: DeepSeek-V4's indexer keys; %s has "
                    "no DeepSeek-V4 indexer",
                    m->info.name);
    if (m->info.is_deepseek_v4)
        return kvplan__vllm_dsv4_plan(m, o, kvplan__vllm_dsv4_mtp(m, o),
                                      autofit, c->context_len, p, err);
    bool ds_mla = c->dsa && c->kv_fp8; /* DeepSeek V3.2's fp8_ds_mla */
    int64_t attn_1 =
        c->mla ? kvplan__vllm_mla_page(1, c->mla_dim, c->kv_elem,
                                       ds_mla ? c->ds_mla_row : 0, &ovf)
               : kvplan__vllm_attention_page(1, c->kv_heads, c->head_dim,
                                             c->v_head_dim, c->kv_elem, &ovf);
    int64_t block = vllm_block(c, o, gpu, attn_1, &ovf);
    /* mamba_cache_mode: align from 0.28, where a hybrid's prefix caching
     * is on by default (#50991); none without prefix caching or before */
    kvplan_mamba_cache_mode mode =
        o->mamba_cache_mode != KVPLAN_MAMBA_CACHE_AUTO ? o->mamba_cache_mode
        : (p->vllm_rules & KVPLAN_VLLM_RULE_MAMBA_NONE) || o->no_prefix_caching
            ? KVPLAN_MAMBA_CACHE_NONE
            : KVPLAN_MAMBA_CACHE_ALIGN;
    p->mamba_cache_mode = c->mamba_layers > 0 ? mode : KVPLAN_MAMBA_CACHE_AUTO;
    kvplan__vllm_spec s[5];
    size_t n = vllm_specs(c, block, attn_1,
                          mode == KVPLAN_MAMBA_CACHE_ALL     ? 0
                          : mode == KVPLAN_MAMBA_CACHE_ALIGN ? 2
                                                             : 1,
                          s, &ovf);
    KVPLAN__FAIL_IF(ovf, err, KVPLAN_OVERFLOW, "--block-size",
                    "a KV page exceeds 64 bits");
    KVPLAN__FAIL_IF(n == 0, err, KVPLAN_UNSUPPORTED, "--model-path",
                    "this model has no KV-cache layer vLLM would size");
    bool one = n == 1 || (n == 2 && c->dsa); /* all full attention */
    if (!one)
        KVPLAN__TRY(vllm_unify(s, n, p->vllm_rules, err));
    /* one block of every layer: the pool's bytes a block id spans */
    int64_t per_block = 0, counts[5], pad;
    for (size_t i = 0; i < n; i++) {
        per_block = kvplan__add(
            per_block, kvplan__mul(s[i].page, s[i].layers, &ovf), &ovf);
        counts[i] = s[i].layers;
    }
    if (!one)
        per_block = kvplan__mul(s[0].page,
                                kvplan__vllm_group_size(counts, n, &pad), &ovf);
    /* --num-gpu-blocks-override: its blocks' bytes replace the budget's */
    if (o->num_gpu_blocks_override.set) {
        p->profiled_blocks = p->available_bytes / kvplan__max(per_block, 1);
        p->available_bytes =
            kvplan__mul(o->num_gpu_blocks_override.value, per_block, &ovf);
    }
    /* PP: each worker's layers (get_pp_indices); the one a request needs
     * the most of checks, the one with the fewest blocks binds */
    int64_t pp = o->pp_size > 1 ? o->pp_size : 1;
    kvplan__vllm_spec t[5];
    const kvplan__vllm_spec *check = s;
    if (pp > 1) {
        memcpy(t, s, n * sizeof s[0]);
        kvplan__vllm_pp_binding_stage(c, s, n, pp, len, in_flight, t, &ovf);
        check = t;
    }
    if (autofit) /* _auto_fit_max_model_len: on the whole cache (#48724) */
        p->max_model_len = len = vllm_fit_len(
            check, n, c->context_len, in_flight, p->available_bytes, &ovf);
    int64_t avail = 0;
    KVPLAN__TRY(
        kvplan__vllm_check_memory(p, len, autofit, per_block, &avail, err));
    KVPLAN__TRY(vllm_one_request(check, n, len, in_flight, avail, &ovf, err));
    int64_t blocks = 0, per_req = 1;
    if (one)
        vllm_one_group(s, n, len, in_flight, block, p, &blocks, &per_req, &ovf);
    else
        vllm_groups(s, n, len, in_flight, p, &blocks, &per_req, &ovf);
    if (pp > 1)
        blocks = kvplan__vllm_pp_blocks(c, s, n, pp, one ? 0 : p->group_size,
                                        p->available_bytes, &ovf);
    KVPLAN__FAIL_IF(ovf, err, KVPLAN_OVERFLOW, "--max-model-len",
                    "a request's KV bytes exceed 64 bits");
    if (!o->num_gpu_blocks_override.set)
        p->profiled_blocks = blocks;
    else
        blocks = o->num_gpu_blocks_override.value;
    p->block_size = s[0].block;
    p->num_gpu_blocks = blocks;
    for (size_t i = 0; i < p->num_groups; i++) /* one pool, shared */
        p->groups[i].num_blocks = blocks;
    p->blocks_per_request = per_req;
    KVPLAN__TRY(vllm_mamba_seqs(c, o, p, blocks, err));
    p->max_concurrency = (double)blocks / (double)per_req;
    p->kv_cache_tokens = (int64_t)(p->max_concurrency * (double)len);
    if (p->vllm_rules & KVPLAN_VLLM_RULE_TOKENS_PER_GROUP) {
        /* _report_kv_cache_config of 0.10-0.19: blocks // groups x the
         * least block size */
        int64_t groups = 0, least = INT64_MAX;
        for (size_t i = 0; i < n; i++) {
            groups += one ? (i == 0)
                          : kvplan__ceil_div(s[i].layers, p->group_size, &ovf);
            least = kvplan__min(least, s[i].block);
        }
        p->kv_cache_tokens = blocks / groups * least;
    }
    int64_t per_token = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i].kind == KVPLAN_KV_SPEC_FULL || s[i].kind == KVPLAN_KV_SPEC_MLA)
            per_token += s[i].page / s[i].block * s[i].layers;
    p->bytes_per_token = per_token;
    return KVPLAN_OK;
}
