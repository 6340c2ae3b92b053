/*
 * plan.c: the whole plan, as an sglang server computes it at start-up:
 *
 *   flags -> GPU-dependent defaults (spec §4.1-4.5)
 *         -> available bytes per rank (§3.1, with the mamba reservation)
 *         -> configurator profiling path (configurator.c)
 *         -> --max-total-tokens and the PP minimum: constraint path (§3.2)
 *         -> max_running_requests (§3.3) -> finalize
 *         -> what the pools really allocate (§5) and the req_to_token pool
 *            (§3.4)
 *
 * Everything sglang measures on a live GPU (free memory before and after
 * loading the weights) is modelled here from a GPU preset and the weights'
 * size; kvplan reports those terms as estimates. --available-bytes skips
 * them and starts from the number sglang's log gives.
 */
#include "internal.h"
#include "model.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* GPU presets                                                               */
/* ------------------------------------------------------------------------ */

/* memory.total in MiB as nvidia-smi (rocm-smi for AMD) reports it. H100
 * and H200 are the spec's figures (§4.1); the others are the totals these
 * boards report, rounded as the tools print them. */
static const kvplan_gpu presets[] = {
    {"H100-80GB", 81559, 90, false}, {"H100-NVL", 95830, 90, false},
    {"H200", 143771, 90, false},     {"H20", 97871, 90, false},
    {"B200", 183359, 100, false},    {"GB200", 189471, 100, false},
    {"A100-80GB", 81920, 80, false}, {"A100-40GB", 40960, 80, false},
    {"L40S", 46068, 89, false},      {"L4", 23034, 89, false},
    {"A10G", 23028, 86, false},      {"RTX-4090", 24564, 89, false},
    {"RTX-5090", 32607, 120, false}, {"MI300X", 196592, 94, true},
    {"MI325X", 262128, 94, true},    {"MI355X", 294896, 95, true},
};

bool kvplan_gpu_preset_at(size_t index, kvplan_gpu *out)
{
    if (index >= sizeof presets / sizeof presets[0] || out == NULL)
        return false;
    *out = presets[index];
    return true;
}

static bool same_name(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = (*a >= 'a' && *a <= 'z') ? (char)(*a - 'a' + 'A') : *a;
        char y = (*b >= 'a' && *b <= 'z') ? (char)(*b - 'a' + 'A') : *b;
        if (x == '_')
            x = '-';
        if (y == '_')
            y = '-';
        if (x != y)
            return false;
    }
    return *a == *b;
}

bool kvplan_gpu_preset(const char *name, kvplan_gpu *out)
{
    for (size_t i = 0; name != NULL && i < sizeof presets / sizeof presets[0];
         i++) {
        if (same_name(presets[i].name, name)) {
            *out = presets[i];
            return true;
        }
    }
    return false;
}

/* NVML, loaded at run time: the few calls kvplan needs. */
typedef struct nvml_memory {
    unsigned long long total, free, used;
} nvml_memory;

kvplan_status kvplan_gpu_probe(kvplan_gpu *out, int *count, kvplan_error *err)
{
    if (out == NULL || count == NULL)
        return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, NULL,
                            "kvplan_gpu_probe needs a GPU and a count to "
                            "fill; got NULL");
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL)
        return kvplan__fail(err, KVPLAN_UNSUPPORTED, "--gpu",
                            "--gpu auto: no NVIDIA driver here "
                            "(libnvidia-ml.so.1 cannot be loaded); name a "
                            "preset with --gpu NAME or give --gpu-memory");
    typedef int (*init_fn)(void);
    typedef int (*count_fn)(unsigned int *);
    typedef int (*handle_fn)(unsigned int, void **);
    typedef int (*mem_fn)(void *, nvml_memory *);
    typedef int (*cc_fn)(void *, int *, int *);
    typedef int (*name_fn)(void *, char *, unsigned int);
    /* POSIX allows the cast from dlsym's object pointer */
    init_fn init = (init_fn)(uintptr_t)dlsym(lib, "nvmlInit_v2");
    init_fn shutdown = (init_fn)(uintptr_t)dlsym(lib, "nvmlShutdown");
    count_fn get_count =
        (count_fn)(uintptr_t)dlsym(lib, "nvmlDeviceGetCount_v2");
    handle_fn get_handle =
        (handle_fn)(uintptr_t)dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
    mem_fn get_mem = (mem_fn)(uintptr_t)dlsym(lib, "nvmlDeviceGetMemoryInfo");
    cc_fn get_cc =
        (cc_fn)(uintptr_t)dlsym(lib, "nvmlDeviceGetCudaComputeCapability");
    name_fn get_name = (name_fn)(uintptr_t)dlsym(lib, "nvmlDeviceGetName");
    kvplan_status st = KVPLAN_OK;
    unsigned int n = 0;
    if (!init || !shutdown || !get_count || !get_handle || !get_mem ||
        !get_cc || !get_name) {
        st = kvplan__fail(err, KVPLAN_UNSUPPORTED, "--gpu",
                          "--gpu auto: the NVIDIA driver's NVML lacks the "
                          "calls kvplan needs");
    } else if (init() != 0) {
        st = kvplan__fail(err, KVPLAN_UNSUPPORTED, "--gpu",
                          "--gpu auto: NVML could not start (is the NVIDIA "
                          "driver loaded?)");
    } else {
        if (get_count(&n) != 0 || n == 0) {
            st = kvplan__fail(err, KVPLAN_UNSUPPORTED, "--gpu",
                              "--gpu auto: NVML sees no GPU");
        }
        /* sglang takes the smallest total over every GPU (§4.1) */
        for (unsigned int i = 0; st == KVPLAN_OK && i < n; i++) {
            void *dev = NULL;
            nvml_memory mem;
            int major = 0, minor = 0;
            char name[96] = "";
            if (get_handle(i, &dev) != 0 || get_mem(dev, &mem) != 0) {
                st = kvplan__fail(err, KVPLAN_UNSUPPORTED, "--gpu",
                                  "--gpu auto: NVML cannot read GPU %u", i);
                break;
            }
            get_cc(dev, &major, &minor);
            get_name(dev, name, sizeof name);
            double mib = (double)(mem.total >> 20);
            if (i == 0 || mib < out->total_mib) {
                snprintf(out->name, sizeof out->name, "%.63s", name);
                out->total_mib = mib;
                out->compute_capability = major * 10 + minor;
                out->is_hip = false;
            }
        }
        shutdown();
    }
    dlclose(lib);
    if (st != KVPLAN_OK)
        return st;
    *count = (int)n;
    return kvplan__ok(err);
}

/* ------------------------------------------------------------------------ */
/* Defaults sglang resolves from the GPU (spec §4.1-4.3)                     */
/* ------------------------------------------------------------------------ */

void kvplan_plan_options_init(kvplan_plan_options *o)
{
    if (o == NULL)
        return;
    memset(o, 0, sizeof *o);
    kvplan_server_args_init(&o->server);
    o->server.page_size = 0; /* sglang's default */
}

/* §4.2: chunked_prefill_size and the decode cuda-graph batch by memory. */
static void memory_tiers(double gpu_mib, bool known, int64_t tp,
                         int64_t *chunk, int64_t *max_bs)
{
    static const struct {
        double below;
        int64_t chunk, bs_small_tp, bs_large_tp;
    } tiers[] = {
        {20480, 2048, 8, 8},       {35840, 2048, 24, 80},
        {61440, 4096, 32, 160},    {92160, 8192, 256, 512},
        {163840, 8192, 256, 512},  {1e300, 16384, 512, 512},
    };
    if (!known) {
        *chunk = 4096;
        *max_bs = 160;
        return;
    }
    size_t n = sizeof tiers / sizeof tiers[0];
    for (size_t i = 0; i < n; i++) {
        if (gpu_mib < tiers[i].below || i + 1 == n) { /* the last takes all */
            *chunk = tiers[i].chunk;
            *max_bs = tp < 4 ? tiers[i].bs_small_tp : tiers[i].bs_large_tp;
            return;
        }
    }
}

/* The prefill cuda-graph batch sizes up to max_bs (§4.1). */
static int64_t prefill_bs_count(int64_t max_bs)
{
    static const int64_t ranges[][3] = {{4, 32, 4},       {48, 256, 16},
                                        {288, 512, 32},   {576, 1024, 64},
                                        {1280, 4096, 256}};
    int64_t n = 0;
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
        for (int64_t b = ranges[i][0]; b <= ranges[i][1]; b += ranges[i][2])
            n += b <= max_bs;
    if (max_bs >= 4608) /* 4608, 5120, ... up to max_bs */
        n += (max_bs - 4608) / 512 + 1;
    return n;
}

/* Python's round(x, 3): correctly rounded, ties to even on the exact
 * binary value, which is what printf does. */
static double round3(double x)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.3f", x);
    return strtod(buf, NULL);
}

/* §4.3: the attention backend and the page size it implies. */
static void choose_backend(const kvplan_model *m,
                           const kvplan_plan_options *o,
                           const kvplan_gpu *gpu, int64_t *page,
                           char *backend, size_t size)
{
    const char *b = o->attention_backend;
    int cc = gpu->compute_capability;
    bool user_page = o->server.page_size > 0;
    int64_t p = user_page ? o->server.page_size : 1;
    if (m->info.is_deepseek_v4) {
        b = b ? b : "dsv4";
        if (!user_page)
            p = gpu->is_hip ? 128 : 256;
    } else if (m->info.is_deepseek_dsa) {
        b = b ? b : "dsa";
        if (!user_page)
            p = 64;
    } else if (b == NULL) {
        bool topk_one = !o->server.speculative_eagle_topk.set ||
                        o->server.speculative_eagle_topk.value <= 1;
        if (gpu->is_hip)
            b = "aiter";
        else if (m->info.is_mla)
            b = cc >= 100 ? (m->self_draft ? "trtllm_mla" : "flashinfer")
                : cc >= 90 ? "fa3"
                           : "flashinfer";
        else if (cc >= 100)
            b = "trtllm_mha";
        else if (cc >= 90 && topk_one)
            b = "fa3";
        else
            b = m->attention_sinks ? "triton" : "flashinfer";
        if (strcmp(m->arch, "MiniMaxM3SparseForCausalLM") == 0 ||
            strcmp(m->arch, "MiniMaxM3SparseForConditionalGeneration") == 0) {
            b = cc >= 100 ? "fa4" : "fa3";
            if (!user_page)
                p = 128;
        }
    }
    /* the backends' page constraints */
    if (strcmp(b, "flashmla") == 0)
        p = 64;
    else if (strcmp(b, "cutlass_mla") == 0)
        p = 128;
    else if ((strcmp(b, "trtllm_mla") == 0 ||
              strcmp(b, "tokenspeed_mla") == 0 ||
              strcmp(b, "cutedsl_mla") == 0) &&
             p != 32 && p != 64)
        p = 64;
    else if (strcmp(b, "trtllm_mha") == 0 && p != 16 && p != 32 && p != 64)
        p = 64;
    else if (strcmp(b, "fa4") == 0 && cc >= 100 && !m->info.is_mla)
        p = 128;
    *page = p;
    snprintf(backend, size, "%s", b);
}

/* sglang's auto speculative parameters when --speculative-num-steps is
 * not given (steps, topk, draft tokens). */
static void auto_spec_params(const kvplan_model *m, kvplan_server_args *s)
{
    if (s->speculative_num_steps.set)
        return;
    bool mtp_like = m->self_draft || m->info.is_mla ||
                    strcmp(m->arch, "GptOssForCausalLM") == 0 ||
                    m->info.is_mambaish;
    int64_t steps = mtp_like ? 3 : 5, topk = mtp_like ? 1 : 4,
            tokens = mtp_like ? 4 : 8;
    s->speculative_num_steps = (kvplan_opt_int){steps, true};
    if (!s->speculative_eagle_topk.set)
        s->speculative_eagle_topk = (kvplan_opt_int){topk, true};
    if (!s->speculative_num_draft_tokens.set)
        s->speculative_num_draft_tokens = (kvplan_opt_int){tokens, true};
}

/* ------------------------------------------------------------------------ */
/* Weights and the mamba state                                               */
/* ------------------------------------------------------------------------ */

/* Bytes of a model's weights, estimated from its config. */
static double estimate_weights(const kvplan_model *m, kvplan_dtype dtype)
{
    double elem = kvplan_dtype_size(dtype);
    const char *q = m->quant_method;
    double dense_elem = elem, expert_elem = elem;
    if (strcmp(q, "fp8") == 0 || strcmp(q, "fbgemm_fp8") == 0) {
        dense_elem = expert_elem = 1.0;
    } else if (strcmp(q, "mxfp4") == 0) {
        expert_elem = 0.53125; /* 4 bits + one e8m0 scale per 32 */
    } else if (strcmp(q, "modelopt_fp4") == 0 || strcmp(q, "nvfp4") == 0) {
        dense_elem = expert_elem = 0.5625; /* 4 bits + fp8 scale per 16 */
    } else if (strcmp(q, "compressed-tensors") == 0 && m->quant_bits > 0) {
        /* the experts at num_bits, plus a scale per group of 32; what the
         * config leaves unquantized (attention, shared MLPs) stays */
        expert_elem = m->quant_bits / 8.0 + 2.0 / 32;
    }
    return (double)m->dense_params * dense_elem +
           (double)m->expert_params * expert_elem;
}

/* One request's mamba state on a rank (spec §3.1): conv state in bf16
 * (conv_dim / tp, width) and the ssm state (heads / tp, a, b). */
static double mamba_per_request(const kvplan_model *m, int64_t tp)
{
    double conv = (double)(m->mamba_conv_dim / tp) *
                  (double)m->mamba_conv_width * 2.0;
    double ssm = (double)(m->mamba_temporal_heads / tp) *
                 (double)m->mamba_temporal_a * (double)m->mamba_temporal_b *
                 (double)m->mamba_ssm_size;
    return (conv + ssm) * (double)m->mamba_layers;
}

/* _calculate_mamba_ratio: mamba slots per running request. */
static int64_t mamba_ratio(const kvplan_server_args *s)
{
    if (s->disable_radix_cache)
        return 1;
    if (!s->disable_overlap_schedule)
        return 5; /* extra_buffer with the overlap schedule */
    return s->page_size > 1 ? 4 : 3;
}

/* ------------------------------------------------------------------------ */
/* What the pools allocate (spec §5)                                         */
/* ------------------------------------------------------------------------ */

static int64_t mha_pool(int64_t tokens, int64_t page, int64_t heads,
                        int64_t k_dim, int64_t v_dim, int64_t elem,
                        int64_t layers, bool fp4, bool *ovf)
{
    if (layers <= 0)
        return 0;
    int64_t rows = kvplan__add(tokens, page, ovf);
    int64_t per_row;
    if (fp4) /* K and V packed (V uses head_dim), plus two scale buffers */
        per_row = kvplan__add(
            kvplan__mul(2 * heads, k_dim / 2, ovf),
            2 * (kvplan__mul(heads, k_dim, ovf) / 16), ovf);
    else
        per_row = kvplan__mul(
            kvplan__mul(heads, kvplan__add(k_dim, v_dim, ovf), ovf), elem,
            ovf);
    return kvplan__mul(kvplan__mul(rows, per_row, ovf), layers, ovf);
}

static int64_t dsv4_page_bytes(int64_t page, int64_t per_token, bool *ovf)
{
    return kvplan__ceil_align(kvplan__mul(page, per_token, ovf), 576, ovf);
}

static int64_t dsv4_pool(int64_t size, int64_t page, int64_t per_token,
                         int64_t layers, bool *ovf)
{
    if (layers <= 0 || page <= 0)
        return 0;
    int64_t pages = kvplan__add(size, page + 1, ovf) / page;
    return kvplan__mul(kvplan__mul(pages, dsv4_page_bytes(page, per_token, ovf),
                                   ovf),
                       layers, ovf);
}

static int64_t dsv4_state(int64_t size, int64_t ratio, int64_t ring,
                          int64_t width, int64_t elem, bool online,
                          int64_t mtp, int64_t layers, bool *ovf)
{
    int64_t rows =
        online ? kvplan__mul(kvplan__add(size, 2, ovf), kvplan__add(1, mtp, ovf),
                             ovf)
               : kvplan__ceil_align(kvplan__add(size, ring + 1, ovf), ratio, ovf);
    return kvplan__mul(kvplan__mul(rows, kvplan__mul(width, elem, ovf), ovf),
                       layers, ovf);
}

static void price_allocation(const kvplan_model *m, const kvplan_plan *plan,
                             kvplan_stage_plan *sp, bool *ovf)
{
    const kvplan_rank *r = &sp->rank;
    const kvplan_configurator *c = &sp->configurator;
    const kvplan_pool_config *p = &sp->pools;
    int64_t page = r->runner.page_size, S = p->max_total_num_tokens;
    int64_t elem = kvplan_dtype_size(r->runner.kv_cache_dtype);
    bool fp4 = r->runner.kv_cache_dtype == KVPLAN_DTYPE_FLOAT4_E2M1FN_X2;
    int64_t tp = r->parallel.attn_tp_size;
    int64_t heads = kvplan__max(1, r->model.num_key_value_heads / tp);
    int64_t hd = m->info.head_dim, vhd = m->info.v_head_dim;
    int64_t start = r->runner.start_layer, end = r->runner.end_layer;
    kvplan_allocation *a = &sp->allocation;
    int64_t per_layer_token = 0; /* for a draft of the target's geometry */

    if (c->kind == KVPLAN_CONFIGURATOR_DSV4) {
        int64_t nope = r->model.qk_nope_head_dim.value;
        int64_t rope = r->model.qk_rope_head_dim.value;
        int64_t ihd = r->model.index_head_dim.value;
        int64_t win = r->model.window_size.value;
        int64_t per_token = nope + 2 * rope + nope / 64 + 1;
        int64_t lt = c->state.num_layers_total, l4 = c->state.num_layers_ca4,
                l128 = c->state.num_layers_ca128;
        int64_t attn = nope + rope, s_elem = c->state.c128_state_dtype_size;
        int64_t c128_state = kvplan__max(p->c128_state_pool_size, 0);
        a->kv_bytes =
            dsv4_pool(p->swa_max_total_num_tokens.value, win, per_token, lt,
                      ovf) +
            dsv4_pool(p->c4_max_total_num_tokens, page / 4, per_token, l4,
                      ovf) +
            dsv4_pool(p->c128_max_total_num_tokens, page / 128, per_token,
                      l128, ovf) +
            /* the c4 indexer holds c128 * 32 tokens */
            (l4 > 0 && page >= 4
                 ? kvplan__mul(
                       kvplan__mul(
                           kvplan__add(kvplan__mul(p->c128_max_total_num_tokens,
                                                   32, ovf),
                                       page / 4 + 1, ovf) /
                               (page / 4),
                           kvplan__mul(page / 4, ihd + ihd / 128 * 4, ovf),
                           ovf),
                       l4, ovf)
                 : 0) +
            dsv4_state(p->c4_state_pool_size, 4, c->state.c4_ring_size,
                       4 * attn, s_elem, false, 0, l4, ovf) +
            dsv4_state(p->c4_state_pool_size, 4, c->state.c4_ring_size,
                       4 * ihd, s_elem, false, 0, l4, ovf) +
            dsv4_state(c128_state, 128, c->state.c128_ring_size,
                       (c->state.online_c128 ? 3 : 2) * attn, s_elem,
                       c->state.online_c128,
                       c->state.online_c128_mtp_max_draft_tokens, l128, ovf);
        a->predicted_kv_bytes = kvplan__trunc(
            kvplan__to_double(S) * c->bytes_per_full_token, ovf);
    } else if (c->kind != KVPLAN_CONFIGURATOR_DEFAULT) {
        /* SWAKVPool: two MHA sub-pools; only the compress archs keep the
         * SWA layers' own geometry, the others use the full one, V =
         * head_dim */
        int64_t nf = (int64_t)r->model.full_attention_layer_ids.count;
        int64_t ns = (int64_t)r->model.swa_attention_layer_ids.count;
        int64_t swa_tokens = p->swa_max_total_num_tokens.value;
        int64_t full_tokens = p->full_max_total_num_tokens.value;
        if (m->hybrid_swa_compress) {
            int64_t swa_heads = kvplan__max(
                1, (r->model.swa_num_key_value_heads.set
                        ? r->model.swa_num_key_value_heads.value
                        : r->model.num_key_value_heads) /
                       tp);
            a->kv_bytes = mha_pool(swa_tokens, page, swa_heads,
                                   m->swa_head_dim, m->swa_v_head_dim, elem,
                                   ns, false, ovf) +
                          mha_pool(full_tokens, page, heads, hd, vhd, elem,
                                   nf, false, ovf);
            per_layer_token = kvplan__mul(
                kvplan__mul(heads, kvplan__add(hd, vhd, ovf), ovf), elem, ovf);
        } else {
            a->kv_bytes = mha_pool(swa_tokens, page, heads, hd, hd, elem, ns,
                                   false, ovf) +
                          mha_pool(full_tokens, page, heads, hd, hd, elem, nf,
                                   false, ovf);
            per_layer_token = kvplan__mul(kvplan__mul(2 * heads, hd, ovf), elem,
                                          ovf);
        }
        if (c->kind == KVPLAN_CONFIGURATOR_SWA_CHUNK_CAP)
            /* the chunk cap prices the SWA pool at its cap, apart: swa * S *
             * ns + full * F * (nf + d) */
            a->predicted_kv_bytes = kvplan__add(
                kvplan__mul(kvplan__mul(swa_tokens, c->state.swa_per_token,
                                        ovf),
                            c->state.swa_layers_num, ovf),
                kvplan__mul(kvplan__mul(full_tokens, c->state.full_per_token,
                                        ovf),
                            c->state.full_layers_num +
                                c->state.draft_full_layers_num,
                            ovf),
                ovf);
        else
            a->predicted_kv_bytes =
                kvplan__trunc(kvplan__to_double(S) * c->cell_size, ovf);
    } else {
        int64_t layers = r->runner.num_effective_layers;
        if (r->runner.is_mambaish)
            layers = c->state.num_layers;
        if (r->runner.use_mla_backend) {
            int64_t lora = r->model.kv_lora_rank.value;
            int64_t rope = r->model.qk_rope_head_dim.value;
            int64_t dim = lora + rope;
            bool dsa = r->model.hf_config.is_deepseek_dsa;
            if (dsa && r->runner.kv_cache_dtype ==
                           KVPLAN_DTYPE_FLOAT8_E4M3FN &&
                strcmp(plan->attention_backend, "trtllm_mla") != 0)
                dim = lora + (lora / 128) * 4 + rope * 2; /* 656 for 512/64 */
            int64_t rows = kvplan__add(S, page, ovf);
            int64_t per_row = fp4 ? dim / 2 + dim / 16
                                  : kvplan__mul(dim, elem, ovf);
            int64_t le = kvplan__dsa_split_layers(r, layers, ovf);
            a->kv_bytes = kvplan__mul(kvplan__mul(rows, per_row, ovf), le, ovf);
            if (dsa) {
                int64_t ihd = r->model.hf_config.index_head_dim.value;
                int64_t pages = kvplan__add(S, page + 1, ovf) / page;
                a->kv_bytes = kvplan__add(
                    a->kv_bytes,
                    kvplan__mul(
                        kvplan__mul(pages,
                                    kvplan__mul(page, ihd + ihd / 128 * 4, ovf),
                                    ovf),
                        le, ovf),
                    ovf);
            }
            per_layer_token = per_row;
        } else if (r->model.hf_config.is_minimax_sparse) {
            const struct kvplan_minimax_sparse *ms =
                &r->model.hf_config.minimax_sparse;
            int64_t idim = ms->sparse_index_dim.value;
            int64_t isz = kvplan_dtype_size(r->runner.dtype);
            int64_t nd = kvplan__count_in_stage(ms->dense_layer_ids, start, end);
            int64_t ns = kvplan__count_in_stage(ms->sparse_layer_ids, start, end);
            int64_t nk = kvplan__count_k_only(ms, start, end);
            a->kv_bytes =
                mha_pool(S, page, heads, hd, hd, elem, nd + ns, false, ovf) +
                mha_pool(S, page, 1, idim, idim, isz, ns - nk, false, ovf) +
                mha_pool(S, page, 1, idim, 0, isz, nk, false, ovf);
            per_layer_token = kvplan__mul(kvplan__mul(2 * heads, hd, ovf), elem,
                                          ovf);
        } else {
            int64_t v = r->runner.is_mambaish ? hd : vhd;
            a->kv_bytes = mha_pool(S, page, heads, hd, v, elem, layers, fp4,
                                   ovf);
            per_layer_token = kvplan__mul(
                kvplan__mul(heads, kvplan__add(hd, v, ovf), ovf), elem, ovf);
        }
        a->predicted_kv_bytes = kvplan__mul(S, c->cell_size_bytes, ovf);
    }

    /* the draft's KV pool, same tokens, its own geometry (§3.5) */
    kvplan_spec_algorithm spec = r->runner.spec_algorithm;
    if (spec != KVPLAN_SPEC_NONE && spec != KVPLAN_SPEC_NGRAM &&
        c->kind != KVPLAN_CONFIGURATOR_DSV4) {
        int64_t dl = r->runner.eagle_draft_num_layers.set
                         ? r->runner.eagle_draft_num_layers.value
                     : r->runner.dflash_draft_num_layers.set
                         ? r->runner.dflash_draft_num_layers.value
                         : 0;
        a->draft_kv_bytes = kvplan__mul(
            kvplan__mul(kvplan__add(S, page, ovf), per_layer_token, ovf), dl,
            ovf);
    }
}

/* get_req_to_token_extra_context_len (§2.8) and the pool (§3.4). */
static int64_t req_to_token_bytes(const kvplan_rank *r, int64_t requests,
                                  int64_t context_len, bool *ovf)
{
    int64_t tokens = r->server_args.max_speculative_num_draft_tokens.set
                         ? r->server_args.max_speculative_num_draft_tokens.value
                         : 0;
    int64_t extra = kvplan__add(4, tokens, ovf);
    int64_t page = r->runner.page_size;
    int64_t topk = r->server_args.speculative_eagle_topk.set
                       ? r->server_args.speculative_eagle_topk.value
                       : 1;
    if (r->runner.spec_algorithm != KVPLAN_SPEC_NONE && page > 1 && topk > 1) {
        int64_t steps = r->server_args.speculative_num_steps.set
                            ? r->server_args.speculative_num_steps.value
                            : 1;
        int64_t pages =
            kvplan__add(kvplan__add(page - 1, steps, ovf), page - 1, ovf) / page;
        int64_t alloc = kvplan__max(
            kvplan__mul(kvplan__mul(pages, page, ovf), topk, ovf), tokens);
        extra = kvplan__max(extra, kvplan__mul(2, alloc, ovf));
    }
    int64_t rows = kvplan__add(requests, 1, ovf);
    if (r->server_args.disaggregation_mode == KVPLAN_DISAGG_DECODE)
        rows = kvplan__add(rows, r->server_args.disaggregation_decode_extra_slots,
                           ovf);
    return kvplan__mul(kvplan__mul(rows, kvplan__add(context_len, extra, ovf),
                                   ovf),
                       4, ovf);
}

/* ------------------------------------------------------------------------ */
/* The plan                                                                  */
/* ------------------------------------------------------------------------ */

static float to_f32(double x)
{
    return (float)x;
}

kvplan_status kvplan_plan_compute(const kvplan_model *m,
                                  const kvplan_plan_options *o,
                                  kvplan_plan *out, kvplan_error *err)
{
    if (m == NULL || o == NULL || out == NULL)
        return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, NULL,
                            "kvplan_plan_compute needs a model, options and "
                            "a plan to fill; got NULL");
    if (o->server.pp_size > KVPLAN_MAX_PP_STAGES)
        return kvplan__fail(err, KVPLAN_UNSUPPORTED, "--pp-size",
                            "--pp-size above %d is not supported",
                            KVPLAN_MAX_PP_STAGES);
    if (!o->gpu_set && !o->available_bytes.set)
        return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, "--gpu",
                            "a GPU (--gpu, --gpu-memory) or --available-bytes "
                            "is needed to size the budget");
    memset(out, 0, sizeof *out);
    bool ovf = false;
    kvplan_server_args s = o->server;
    kvplan_budget *b = &out->budget;
    kvplan_gpu gpu = o->gpu;
    if (!o->gpu_set) { /* --available-bytes alone: an H100-class GPU */
        kvplan_gpu_preset("H100-80GB", &gpu);
    }
    bool gpu_known = o->gpu_set;
    if (gpu_known && !(gpu.total_mib >= 1.0 && gpu.total_mib <= 0x1p40))
        return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, "--gpu-memory",
                            "the GPU's memory must be between 1 MiB and "
                            "1 EiB, got %g MiB",
                            gpu.total_mib);
    b->gpu_mem_mib = gpu.total_mib;
    s.gpu_compute_capability = gpu.compute_capability;
    kvplan_dtype model_dtype =
        s.dtype == KVPLAN_DT_FLOAT16    ? KVPLAN_DTYPE_FLOAT16
        : s.dtype == KVPLAN_DT_BFLOAT16 ? KVPLAN_DTYPE_BFLOAT16
        : s.dtype == KVPLAN_DT_FLOAT32  ? KVPLAN_DTYPE_FLOAT32
                                        : m->info.dtype;

    /* §4.1-4.2: memory settings, before the model's and spec's hooks */
    int64_t tier_chunk, tier_bs;
    memory_tiers(gpu.total_mib, gpu_known, s.tp_size, &tier_chunk, &tier_bs);
    int64_t chunk = s.chunked_prefill_size.set ? s.chunked_prefill_size.value
                                               : tier_chunk;
    s.chunked_prefill_size = (kvplan_opt_int){chunk, true};
    int64_t max_bs = o->cuda_graph_max_bs.set ? o->cuda_graph_max_bs.value
                                              : tier_bs;
    out->chunked_prefill_size = chunk;
    out->cuda_graph_max_bs = max_bs;
    bool pd_prefill = s.disaggregation_mode == KVPLAN_DISAGG_PREFILL;
    bool pd_decode = s.disaggregation_mode == KVPLAN_DISAGG_DECODE;
    int64_t prefill_tokens =
        o->max_prefill_tokens.set ? o->max_prefill_tokens.value : 16384;
    if (o->mem_fraction_static.set) {
        b->mem_fraction_static = o->mem_fraction_static.value;
    } else {
        b->mem_fraction_auto = true;
        double act;
        if (pd_decode) {
            double reqs = (double)(s.max_running_requests.set
                                       ? s.max_running_requests.value
                                       : max_bs);
            double tok = (double)(s.speculative_num_draft_tokens.set
                                      ? s.speculative_num_draft_tokens.value
                                      : 1);
            act = reqs * tok > 2048 ? reqs * tok : 2048;
        } else if (chunk > 0) {
            act = (double)kvplan__max(chunk, 2048);
        } else {
            act = (double)kvplan__max(prefill_tokens, 2048);
        }
        double graph = 0;
        bool decode_graph = !o->disable_cuda_graph && !pd_prefill;
        if (decode_graph)
            graph += (double)max_bs * 2;
        if (s.enable_dp_attention && !pd_prefill) {
            graph += (double)max_bs * (double)s.dp_size * 3;
            if (max_bs > 300)
                graph += (double)max_bs * (double)s.dp_size * 1.5;
        }
        bool prefill_graph = !o->disable_cuda_graph && !pd_decode &&
                             !gpu.is_hip && !m->info.is_mla &&
                             !m->info.is_deepseek_v4 && s.attn_cp_size <= 1 &&
                             !s.enable_dp_attention && !m->multimodal;
        if (prefill_graph) {
            int64_t pbs = chunk > 0 ? chunk : prefill_tokens;
            if (o->max_total_tokens.set)
                pbs = kvplan__min(pbs, o->max_total_tokens.value);
            if (o->model_path != NULL && strstr(o->model_path, "llama-2"))
                pbs = kvplan__min(pbs, 4096);
            if (s.context_length.set)
                pbs = kvplan__min(pbs, s.context_length.value);
            b->prefill_graph_bs_count = prefill_bs_count(pbs);
            graph += 8.0 * (double)b->prefill_graph_bs_count;
        }
        double reserved = 512 + act * 1.5 +
                          (double)s.tp_size * (double)s.pp_size / 8 * 1024 +
                          graph;
        if (gpu.total_mib > 60 * 1024)
            reserved = reserved > 10240 ? reserved : 10240;
        b->activation_mib = act * 1.5;
        b->graph_mib = graph;
        b->reserved_mib = reserved;
        b->mem_fraction_static =
            round3((gpu.total_mib - reserved) / gpu.total_mib);
        if (m->multimodal) {
            double cv = (double)m->vit_layers * (double)m->vit_hidden *
                        (double)m->vit_hidden / (24.0 * 1024 * 1024);
            double adj = 1 - 0.1 * (cv - 1);
            adj = adj < 0.8 ? 0.8 : adj > 1.05 ? 1.05 : adj;
            b->mem_fraction_static *= 0.95 * adj;
        }
    }

    /* §4.3-4.5: the model's hooks, the backend and page, the spec hook */
    if (m->info.is_deepseek_v4 && !s.max_running_requests.set)
        s.max_running_requests = (kvplan_opt_int){256, true};
    if (s.speculative_algorithm != KVPLAN_SPEC_NONE) {
        if (!s.max_running_requests.set)
            s.max_running_requests = (kvplan_opt_int){48, true};
        if (s.speculative_algorithm == KVPLAN_SPEC_EAGLE ||
            s.speculative_algorithm == KVPLAN_SPEC_EAGLE3)
            auto_spec_params(m, &s);
        if (s.speculative_eagle_topk.set &&
            s.speculative_eagle_topk.value == 1 &&
            s.speculative_num_steps.set)
            s.speculative_num_draft_tokens = (kvplan_opt_int){
                kvplan__add(s.speculative_num_steps.value, 1, &ovf), true};
    }
    if (pd_decode)
        s.disable_radix_cache = true;
    choose_backend(m, o, &gpu, &s.page_size, out->attention_backend,
                   sizeof out->attention_backend);
    out->page_size = s.page_size;
    /* the flags against the model first: a contradiction is named as such,
     * not as a budget that does not fit */
    kvplan_status st = kvplan_model_rank(m, &s, 0, &out->stages[0].rank, NULL,
                                         err);
    if (st != KVPLAN_OK)
        return st;

    /* the weights this rank holds, and the draft's */
    double ranks = (double)s.tp_size * (double)s.pp_size;
    kvplan_opt_int measured = o->weight_bytes.set ? o->weight_bytes
                                                  : m->info.weight_bytes;
    double weights = measured.set ? (double)measured.value
                                  : estimate_weights(m, model_dtype);
    b->weights_estimated = !measured.set;
    double draft = 0;
    if (o->draft_weight_bytes.set) {
        draft = (double)o->draft_weight_bytes.value;
    } else if (s.speculative_draft_model != NULL) {
        const kvplan_model *d = s.speculative_draft_model;
        b->draft_weights_estimated = !d->info.weight_bytes.set;
        draft = d->info.weight_bytes.set ? (double)d->info.weight_bytes.value
                                         : estimate_weights(d, model_dtype);
    } else if (s.speculative_algorithm != KVPLAN_SPEC_NONE && m->self_draft &&
               m->info.num_nextn_predict_layers.set &&
               m->info.num_hidden_layers > 0) {
        /* MTP layers from the model itself: their share of the weights */
        draft = weights * (double)m->info.num_nextn_predict_layers.value /
                (double)m->info.num_hidden_layers;
        b->draft_weights_estimated = true;
    }

    /* §3.1: available bytes */
    int64_t available = 0;
    double mamba_per = 0;
    int64_t max_mamba = 0;
    int64_t ratio = 1;
    int64_t attn_dp = s.enable_dp_attention ? s.dp_size : 1;
    if (m->info.is_mambaish) {
        mamba_per = mamba_per_request(m, s.tp_size);
        ratio = mamba_ratio(&s);
    }
    if (o->available_bytes.set) {
        b->given = true;
        available = o->available_bytes.value;
    } else {
        double world = ranks;
        b->context_overhead_bytes = (world > 1 ? 1.0 : 0.5) * (1 << 30);
        double pre = gpu.total_mib * 1048576.0 - b->context_overhead_bytes;
        double post = pre - weights / ranks - draft / ranks;
        if (world > 1) { /* min-reduced through a float32 tensor */
            pre = to_f32(pre);
            post = to_f32(post);
        }
        b->pre_load_gib = pre / 1073741824.0;
        b->post_load_gib = post / 1073741824.0;
        double f = b->mem_fraction_static;
        double rest = b->post_load_gib - b->pre_load_gib * (1 - f);
        b->rest_gib = rest;
        if (rest > 0 && m->info.is_mambaish && mamba_per > 0) {
            /* handle_max_mamba_cache */
            double d = s.speculative_algorithm != KVPLAN_SPEC_NONE &&
                               s.speculative_num_draft_tokens.set
                           ? (double)s.speculative_num_draft_tokens.value
                           : 0;
            double before = rest;
            if (s.disable_radix_cache && s.max_running_requests.set) {
                max_mamba = s.max_running_requests.value / attn_dp;
                rest -= mamba_per * (double)max_mamba * d / 1073741824.0;
            } else {
                double budget = rest * 0.9 / 1.9;
                if (d > 0) {
                    max_mamba = kvplan__trunc(
                        kvplan__py_float_floordiv(
                            budget * 1073741824.0,
                            mamba_per * (1 + d / (double)ratio)),
                        &ovf);
                    int64_t reqs = s.max_running_requests.set
                                       ? s.max_running_requests.value / attn_dp
                                       : max_mamba / ratio;
                    rest -= mamba_per *
                            (double)kvplan__min(reqs, max_mamba / ratio) * d /
                            1073741824.0;
                } else {
                    max_mamba = kvplan__trunc(
                        kvplan__py_float_floordiv(budget * 1073741824.0,
                                                  mamba_per),
                        &ovf);
                }
            }
            if (max_mamba <= 0)
                return kvplan__fail(
                    err, KVPLAN_NOT_ENOUGH_MEMORY, NULL,
                    "Not enough memory for the mamba state: one request "
                    "needs %.0f bytes of it; increase --mem-fraction-static",
                    mamba_per);
            rest -= (double)max_mamba * mamba_per / 1073741824.0;
            b->mamba_gib = before - rest;
        }
        if (b->post_load_gib <= 0)
            return kvplan__fail(
                err, KVPLAN_NOT_ENOUGH_MEMORY, "--tp-size",
                "Not enough memory: the weights alone (%.2f GiB per rank%s) "
                "exceed the %.2f GiB free on each GPU before loading them; "
                "sglang would fail loading them. Spread the model over more "
                "GPUs (--tp-size, --pp-size) or use a larger GPU.",
                (weights + draft) / ranks / 1073741824.0,
                b->weights_estimated ? ", estimated" : "", b->pre_load_gib);
        if (rest <= 0) {
            double need = 1 - b->post_load_gib / b->pre_load_gib;
            char f_text[32];
            kvplan_format_double(f, f_text, sizeof f_text);
            return kvplan__fail(
                err, KVPLAN_NOT_ENOUGH_MEMORY, "--mem-fraction-static",
                "Loaded weights leave no GPU memory for the KV cache under "
                "--mem-fraction-static=%s. Raise --mem-fraction-static above "
                "%.3f (weights %.2f GiB per rank%s, %.2f GiB free before "
                "loading them).",
                f_text, ceil(need * 1000) / 1000,
                (weights + draft) / ranks / 1073741824.0,
                b->weights_estimated ? ", estimated" : "", b->pre_load_gib);
        }
        available = kvplan__trunc(rest * 1073741824.0, &ovf);
        if (ovf)
            return kvplan__fail(err, KVPLAN_OVERFLOW, NULL,
                                "the available bytes exceed 64 bits");
    }

    /* each stage: rank, configurator, profiling path */
    out->num_stages = (size_t)s.pp_size;
    int64_t t = INT64_MAX;
    for (size_t i = 0; i < out->num_stages; i++) {
        kvplan_stage_plan *sp = &out->stages[i];
        sp->pp_rank = (int64_t)i;
        if ((st = kvplan_model_rank(m, &s, sp->pp_rank, &sp->rank,
                                    &out->context_len, err)) != KVPLAN_OK ||
            (st = kvplan_configurator_init(&sp->configurator, &sp->rank,
                                           err)) != KVPLAN_OK ||
            (st = kvplan_calculate_pool_sizes(&sp->configurator, available,
                                              s.page_size, &sp->profiled,
                                              err)) != KVPLAN_OK)
            return st;
        sp->available_bytes = available;
        sp->weight_bytes = kvplan__trunc(weights / ranks, &ovf);
        sp->draft_weight_bytes = kvplan__trunc(draft / ranks, &ovf);
        sp->max_mamba_cache_size = max_mamba;
        if (sp->profiled.max_total_num_tokens < t) {
            t = sp->profiled.max_total_num_tokens;
            out->binding_stage = i;
        }
    }
    /* §3.2: --max-total-tokens lowers, then the PP minimum */
    if (o->max_total_tokens.set && o->max_total_tokens.value < t)
        t = o->max_total_tokens.value;
    for (size_t i = 0; i < out->num_stages; i++) {
        kvplan_stage_plan *sp = &out->stages[i];
        sp->pools = sp->profiled;
        if (t != sp->profiled.max_total_num_tokens &&
            (st = kvplan_calculate_pool_sizes_from_max_tokens(
                 &sp->configurator, t, s.page_size, &sp->pools, err)) !=
                KVPLAN_OK)
            return st;
    }
    /* §3.3: max_running_requests from the final tokens */
    const kvplan_stage_plan *first = &out->stages[0];
    int64_t final_t = first->pools.max_total_num_tokens;
    int64_t est = kvplan__trunc(kvplan__to_double(final_t) /
                                    kvplan__to_double(out->context_len) *
                                    512.0,
                                &ovf);
    est = kvplan__max(kvplan__min(est, 4096), 2048);
    int64_t n = s.max_running_requests.set
                    ? kvplan__min(s.max_running_requests.value / attn_dp,
                                  final_t / 2)
                    : kvplan__min(est, final_t / 2);
    if (m->info.is_mambaish && max_mamba > 0)
        n = kvplan__min(n, max_mamba / ratio);
    if (n <= 0)
        return kvplan__fail(err, KVPLAN_NOT_ENOUGH_MEMORY, NULL,
                            "the KV cache holds %lld tokens, which leaves no "
                            "room for a running request",
                            (long long)final_t);
    out->max_running_requests = n;
    out->max_total_num_tokens = final_t;
    for (size_t i = 0; i < out->num_stages; i++) {
        kvplan_stage_plan *sp = &out->stages[i];
        sp->pools.max_running_requests = (kvplan_opt_int){n, true};
        if ((st = kvplan_finalize_with_max_running_requests(
                 &sp->configurator, &sp->pools, err)) != KVPLAN_OK)
            return st;
        out->max_total_num_tokens =
            kvplan__min(out->max_total_num_tokens,
                        sp->pools.max_total_num_tokens);
        price_allocation(m, out, sp, &ovf);
        sp->allocation.req_to_token_bytes =
            req_to_token_bytes(&sp->rank, n, out->context_len, &ovf);
        sp->allocation.mamba_state_bytes =
            kvplan__trunc((double)max_mamba * mamba_per, &ovf);
    }
    if (ovf)
        return kvplan__fail(err, KVPLAN_OVERFLOW, NULL,
                            "a pool size exceeds 64 bits");
    return kvplan__ok(err);
}
