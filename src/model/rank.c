/*
 * rank.c: one pipeline stage of a model served with sglang's flags: the
 * facts sglang's ModelRunner holds and the configurator reads
 * (kvplan_rank): the layer range (docs/sglang-rules.md §1.7), the KV dtype
 * (§1.11), the draft's layers (§1.12), the parallel sizes (§1.13) and the
 * server args (§1.14).
 */
#include "model/model.h"

#include "common/option_table.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void kvplan_server_args_init(kvplan_server_args *a)
{
    if (a == NULL)
        return;
    memset(a, 0, sizeof *a);
    a->struct_size = (uint32_t)sizeof *a;
    a->tp_size = a->pp_size = a->dp_size = 1;
    a->attn_cp_size = 1;
    a->nnodes = 1;
    a->page_size = KVPLAN_PAGE_SIZE_AUTO;
    a->hisparse_host_to_device_ratio = 2.0;
    a->gpu_compute_capability = 90;
    a->SGLANG_SWA_EVICTION_INTERVAL = 128;
}

/* §1.7: get_pp_indices, with SGLANG_PP_LAYER_PARTITION. */
static kvplan_status pp_range(int64_t layers, int64_t rank, int64_t pp,
                              const char *partition, int64_t *start,
                              int64_t *end, kvplan_error *err)
{
    if (partition != NULL && partition[0] != '\0') {
        int64_t sum = 0, count = 0, mine_start = 0, mine = 0;
        const char *p = partition;
        while (*p) {
            char *next;
            errno = 0;
            long long x = strtoll(p, &next, 10);
            while (*next == ' ' || *next == '\t') /* int(" 16 ") */
                next++;
            if (next == p || errno != 0 || x < 0 ||
                (*next != ',' && *next != '\0'))
                return kvplan__fail(err, KVPLAN_INVALID_CONFIG,
                                    "SGLANG_PP_LAYER_PARTITION",
                                    "SGLANG_PP_LAYER_PARTITION must be "
                                    "comma-separated layer counts, got "
                                    "'%.60s'",
                                    partition);
            if (count == rank) {
                mine_start = sum;
                mine = x;
            }
            if (x > layers || sum > layers)
                sum = layers + 1; /* too many already: refused below */
            else
                sum += x;
            count++;
            p = *next == ',' ? next + 1 : next;
        }
        if (count != pp || sum != layers)
            return kvplan__fail(err, KVPLAN_INVALID_CONFIG,
                                "SGLANG_PP_LAYER_PARTITION",
                                "SGLANG_PP_LAYER_PARTITION must give %lld "
                                "counts (one per PP rank) summing to %lld "
                                "layers; got %lld counts summing to %lld",
                                (long long)pp, (long long)layers,
                                (long long)count, (long long)sum);
        *start = mine_start;
        *end = mine_start + mine;
        return KVPLAN_OK;
    }
    /* the last layers % pp ranks take one layer more */
    int64_t base = layers / pp, rem = layers % pp;
    if (rank >= pp - rem) {
        *start = rank * (base + 1) - (pp - rem);
        *end = *start + base + 1;
    } else {
        *start = rank * base;
        *end = *start + base;
    }
    return KVPLAN_OK;
}

/* The ids of an ascending list within [lo, hi): a slice, no copy. */
static kvplan_ids slice(id_list l, int64_t lo, int64_t hi)
{
    size_t b = 0, e;
    while (b < l.count && l.ids[b] < lo)
        b++;
    e = b;
    while (e < l.count && l.ids[e] < hi)
        e++;
    /* an empty list may have no storage: no arithmetic on NULL */
    return e > b ? (kvplan_ids){l.ids + b, e - b} : (kvplan_ids){NULL, 0};
}

static kvplan_ids all_ids(id_list l)
{
    return (kvplan_ids){l.ids, l.count};
}

/* §1.11: the KV cache dtype. */
static kvplan_status kv_dtype(const kvplan_model *m,
                              const kvplan_server_args *a,
                              kvplan_dtype model_dtype, kvplan_dtype *out,
                              kvplan_error *err)
{
    kvplan_kv_cache_dtype_flag f = a->kv_cache_dtype;
    KVPLAN__FAIL_IF(f == KVPLAN_KV_FP8, err, KVPLAN_INVALID_ARGUMENT,
                    "--kv-cache-dtype",
                    "--kv-cache-dtype fp8 is vLLM's and TensorRT-LLM's "
                    "spelling; sglang's choices are fp8_e4m3 and fp8_e5m2 "
                    "(sglang: \"argument --kv-cache-dtype: invalid choice: "
                    "'fp8'\")");
    if (m->dsa_dtype_arch) {
        /* DSA: auto is fp8 on Blackwell, bf16 on Hopper; only those two */
        if (f == KVPLAN_KV_AUTO)
            f = a->gpu_compute_capability >= 100 ? KVPLAN_KV_FP8_E4M3
                                                 : KVPLAN_KV_BF16;
        if (f != KVPLAN_KV_FP8_E4M3 && f != KVPLAN_KV_BF16)
            return kvplan__fail(err, KVPLAN_INVALID_CONFIG, "--kv-cache-dtype",
                                "--kv-cache-dtype for DeepSeek DSA must be "
                                "auto, bf16, bfloat16 or fp8_e4m3");
    } else if (m->info.is_deepseek_v4 && f == KVPLAN_KV_AUTO) {
        f = KVPLAN_KV_FP8_E4M3;
    }
    if (f == KVPLAN_KV_AUTO) {
        *out = m->kv_fp8_quant ? KVPLAN_DTYPE_FLOAT8_E4M3FN : model_dtype;
        return KVPLAN_OK;
    }
    *out = kvplan__kv_dtype_of_flag(f);
    if (*out != KVPLAN_DTYPE_UNSET)
        return KVPLAN_OK;
    return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, "--kv-cache-dtype",
                        "--kv-cache-dtype: unknown value %d", (int)f);
}

/* §1.12: the layers of the EAGLE/MTP draft, as the target counts them. */
static kvplan_opt_int eagle_draft_layers(const kvplan_model *m,
                                         const kvplan_server_args *a)
{
    const kvplan_model *d = a->speculative_draft_model;
    if (d == NULL && m->self_draft)
        d = m; /* MTP from the model's own weights */
    if (d == NULL)
        return (kvplan_opt_int){0, false};
    if (d->info.num_nextn_predict_layers.set)
        return d->info.num_nextn_predict_layers;
    if (d == m && m->info.is_deepseek_v4)
        return (kvplan_opt_int){1, true};
    return (kvplan_opt_int){
        kvplan__max(d->info.num_hidden_layers, d->num_attention_layers), true};
}

kvplan_status kvplan__check_least(int64_t x, int64_t least, const char *flag,
                                  kvplan_error *err)
{
    KVPLAN__FAIL_IF(x < least, err, KVPLAN_INVALID_ARGUMENT, flag,
                    "%s must be >= %lld, got %lld", flag, (long long)least,
                    (long long)x);
    return KVPLAN_OK;
}

kvplan_status kvplan__check_opt_least(kvplan_opt_int x, int64_t least,
                                      const char *flag, kvplan_error *err)
{
    return x.set ? kvplan__check_least(x.value, least, flag, err) : KVPLAN_OK;
}

kvplan_status kvplan__check_gpu_memory(const kvplan_gpu *gpu, kvplan_error *err)
{
    double mib = gpu->total_mib, used = gpu->in_use_mib;
    KVPLAN__FAIL_IF(!(mib >= 1.0 && mib <= 0x1p40), err,
                    KVPLAN_INVALID_ARGUMENT, "--gpu-memory",
                    "the GPU's memory must be between 1 MiB and 1 EiB, got "
                    "%g MiB",
                    mib);
    KVPLAN__FAIL_IF(!(used >= 0 && used < mib), err, KVPLAN_INVALID_ARGUMENT,
                    "gpu.in_use_mib",
                    "what other processes hold must be at least 0 and less "
                    "than the GPU's %g MiB, got %g MiB",
                    mib, used);
    return KVPLAN_OK;
}

kvplan_status kvplan__server_args_check_with(const kvplan_server_args *a,
                                             const void *plan,
                                             kvplan_error *err)
{
    KVPLAN__FAIL_IF(a->struct_size != sizeof *a, err, KVPLAN_INVALID_ARGUMENT,
                    "struct_size",
                    "kvplan_server_args.struct_size is %u, expected %zu: "
                    "fill it with kvplan_server_args_init() of this kvplan.h",
                    (unsigned)a->struct_size, sizeof *a);
    KVPLAN__TRY(kvplan__options_check(plan, a, NULL, err));
    KVPLAN__FAIL_IF(a->gpu_compute_capability < 0, err, KVPLAN_INVALID_ARGUMENT,
                    "gpu_compute_capability",
                    "gpu_compute_capability must be >= 0, got %d",
                    a->gpu_compute_capability);
    return KVPLAN_OK;
}

kvplan_status kvplan__server_args_check(const kvplan_server_args *a,
                                        kvplan_error *err)
{
    return kvplan__server_args_check_with(a, NULL, err);
}

/* What sglang refuses of the parallelism before building a rank: the
 * attention's CP x DP split of --tp-size, more stages than layers. */
static kvplan_status rank_refusals(const kvplan_model *m,
                                   const kvplan_server_args *a,
                                   kvplan_error *err)
{
    int64_t attn_dp = kvplan__attn_dp(a);
    int64_t attn_split = 0; /* CP x DP attention; 0 when it overflows */
    if (__builtin_mul_overflow(a->attn_cp_size, attn_dp, &attn_split))
        attn_split = 0;
    if (attn_dp > a->tp_size || a->attn_cp_size > a->tp_size ||
        attn_split <= 0 || attn_split > a->tp_size ||
        a->tp_size % attn_split != 0)
        return kvplan__fail(err, KVPLAN_INVALID_CONFIG, "--tp-size",
                            "--tp-size (%lld) must be a multiple of the "
                            "attention CP size (%lld) times the "
                            "DP-attention size (%lld)",
                            (long long)a->tp_size, (long long)a->attn_cp_size,
                            (long long)attn_dp);
    if (m->info.num_hidden_layers < a->pp_size)
        return kvplan__fail(err, KVPLAN_INVALID_CONFIG, "--pp-size",
                            "--pp-size (%lld) is larger than the model's "
                            "%lld layers",
                            (long long)a->pp_size,
                            (long long)m->info.num_hidden_layers);

    return KVPLAN_OK;
}

/* The rank's runner: dtypes, its layers on stage `pp_rank`, the page,
 * speculative decoding's draft layers, the sliding window. */
static kvplan_status rank_runner(const kvplan_model *m,
                                 const kvplan_server_args *a, int64_t pp_rank,
                                 int64_t attn_dp, kvplan_rank *r,
                                 kvplan_error *err)
{
    kvplan_status st;
    kvplan_dtype model_dtype = kvplan__dtype_of_flag(a->dtype, m->info.dtype);
    r->runner.dtype = model_dtype;
    if ((st = kv_dtype(m, a, model_dtype, &r->runner.kv_cache_dtype, err)) !=
        KVPLAN_OK)
        return st;
    r->runner.use_mla_backend = m->info.is_mla;
    r->runner.is_hybrid_swa =
        m->info.is_hybrid_swa && !a->disable_hybrid_swa_memory;
    r->runner.is_draft_worker = false;
    int64_t start = 0, end = 0;
    if ((st = pp_range(m->info.num_hidden_layers, pp_rank, a->pp_size,
                       a->SGLANG_PP_LAYER_PARTITION, &start, &end, err)) !=
        KVPLAN_OK)
        return st;
    if (a->pp_size == 1)
        end = kvplan__max(m->info.num_hidden_layers, m->num_attention_layers);
    r->runner.start_layer = start;
    r->runner.end_layer = end;
    r->runner.num_effective_layers = end - start;
    r->runner.pp_size = a->pp_size;
    r->runner.pp_rank = pp_rank;
    /* sglang's default page without a backend to snap it: 1 (§4.3) */
    r->runner.page_size =
        a->page_size == KVPLAN_PAGE_SIZE_AUTO ? 1 : a->page_size;
    r->runner.dp_size = attn_dp;
    r->runner.is_mambaish = m->info.is_mambaish;
    r->runner.mambaish_full_attention_layer_ids = all_ids(m->mamba_full_ids);

    /* speculative decoding */
    kvplan_spec_algorithm spec = a->speculative_algorithm;
    r->runner.spec_algorithm = spec;
    bool eagle = spec == KVPLAN_SPEC_EAGLE || spec == KVPLAN_SPEC_EAGLE3 ||
                 spec == KVPLAN_SPEC_STANDALONE;
    /* EAGLE, EAGLE3 and STANDALONE draft with a model of their own:
     * sglang's speculative hook names the target itself only for the MTP
     * architectures (server_args.py, _handle_speculative_decoding); for
     * any other its draft worker has no model to load and the server does
     * not start */
    if (eagle && a->speculative_draft_model == NULL && !m->self_draft)
        return kvplan__fail(
            err, KVPLAN_INVALID_CONFIG, "--speculative-draft-model-path",
            "--speculative-algorithm %s%s drafts with a model of its own: "
            "sglang names the target as its draft only for the MTP models "
            "(DeepSeek V3/V3.2/V4, GLM-4 MoE, ...), not %s, and does not "
            "start without one; pass --speculative-draft-model-path (NGRAM "
            "needs no draft)",
            kvplan_word_name(KVPLAN_WORDS_SPECULATIVE_ALGORITHM, (int)spec),
            spec == KVPLAN_SPEC_EAGLE
                ? " (or NEXTN, which sglang runs as EAGLE)"
                : "",
            m->info.architecture);
    if (eagle)
        r->runner.eagle_draft_num_layers = eagle_draft_layers(m, a);
    if (spec == KVPLAN_SPEC_DFLASH || spec == KVPLAN_SPEC_DSPARK) {
        const kvplan_model *d = a->speculative_draft_model;
        if (d == NULL)
            return kvplan__fail(err, KVPLAN_INVALID_CONFIG,
                                "--speculative-draft-model-path",
                                "DFLASH and DSPARK need "
                                "--speculative-draft-model-path: the draft's "
                                "layers are part of the KV budget");
        r->runner.dflash_draft_num_layers =
            (kvplan_opt_int){d->info.num_hidden_layers, true};
    }

    /* the sliding window (§1.9): the class's rule, the config, or Llama4's
     * attention chunk */
    if (m->class_window.set)
        r->runner.sliding_window_size = m->class_window;
    else if (r->runner.is_hybrid_swa && m->config_window.set)
        r->runner.sliding_window_size = m->config_window;
    else if (m->attention_chunk_size.set)
        r->runner.sliding_window_size = m->attention_chunk_size;
    r->runner.enable_hisparse = a->enable_hisparse;
    r->runner.hisparse_host_to_device_ratio = a->hisparse_host_to_device_ratio;

    return KVPLAN_OK;
}

/* The model's geometry as the configurator reads it; a PP stage's layer
 * ids (§8.7). */
static void rank_model(const kvplan_model *m, const kvplan_server_args *a,
                       kvplan_rank *r)
{
    int64_t start = r->runner.start_layer, end = r->runner.end_layer;
    r->model.num_key_value_heads = m->info.num_key_value_heads;
    r->model.swa_num_key_value_heads = m->swa_num_key_value_heads;
    r->model.head_dim = (kvplan_opt_int){m->info.head_dim, true};
    r->model.v_head_dim = (kvplan_opt_int){m->info.v_head_dim, true};
    r->model.swa_head_dim = (kvplan_opt_int){m->swa_head_dim, true};
    r->model.swa_v_head_dim = (kvplan_opt_int){m->swa_v_head_dim, true};
    r->model.kv_lora_rank = m->kv_lora_rank;
    r->model.qk_rope_head_dim = m->qk_rope_head_dim;
    r->model.qk_nope_head_dim = m->qk_nope_head_dim;
    if (r->runner.is_hybrid_swa && !m->info.is_deepseek_v4) {
        /* a PP stage keeps the ids of range(start, end + 1) (§8.7) */
        int64_t hi = a->pp_size > 1 ? end + 1 : INT64_MAX;
        r->model.full_attention_layer_ids = slice(m->full_ids, start, hi);
        r->model.swa_attention_layer_ids = slice(m->swa_ids, start, hi);
    }
    r->model.compress_ratios = all_ids(m->compress_ratios);
    r->model.window_size = m->dsv4_window_size;
    r->model.index_head_dim = m->dsv4_index_head_dim;
    r->model.hf_config.is_deepseek_dsa = m->info.is_deepseek_dsa;
    r->model.hf_config.index_head_dim = m->dsa_index_head_dim;
    r->upstream.dsa_topk_schedule = m->dsa_topk_schedule;
    r->upstream.dsa_topk_layer_ids =
        (kvplan_ids){m->dsa_topk_ids.ids, m->dsa_topk_ids.count};
    r->model.hf_config.is_deepseek_v4 = m->info.is_deepseek_v4;
    r->model.hf_config.is_minimax_sparse = m->info.is_minimax_sparse;
    r->model.hf_config.minimax_sparse.dense_layer_ids =
        all_ids(m->minimax_dense);
    r->model.hf_config.minimax_sparse.sparse_layer_ids =
        all_ids(m->minimax_sparse);
    r->model.hf_config.minimax_sparse.disable_value_layer_ids =
        all_ids(m->minimax_k_only);
    r->model.hf_config.minimax_sparse.sparse_index_dim = m->minimax_index_dim;
}

/* The server args (§1.14) and the environment the configurator reads;
 * DSV4 defaults its ratio to 0.1 (§4.4). */
static void rank_server_args(const kvplan_model *m, const kvplan_server_args *a,
                             int64_t attn_dp, kvplan_rank *r)
{
    r->server_args.swa_full_tokens_ratio = a->swa_full_tokens_ratio.set
                                               ? a->swa_full_tokens_ratio.value
                                           : m->info.is_deepseek_v4 ? 0.1
                                                                    : 0.8;
    r->server_args.max_running_requests = a->max_running_requests;
    r->server_args.disable_radix_cache = a->disable_radix_cache;
    r->server_args.chunked_prefill_size = a->chunked_prefill_size;
    r->server_args.speculative_num_steps = a->speculative_num_steps;
    r->server_args.speculative_eagle_topk = a->speculative_eagle_topk;
    r->server_args.speculative_num_draft_tokens =
        a->speculative_num_draft_tokens;
    r->server_args.max_speculative_num_draft_tokens =
        a->speculative_num_draft_tokens;
    r->server_args.disable_overlap_schedule = a->disable_overlap_schedule;
    r->server_args.disaggregation_mode = a->disaggregation_mode;
    if (a->disaggregation_decode_extra_slots.set) {
        r->server_args.disaggregation_decode_extra_slots =
            a->disaggregation_decode_extra_slots.value;
    } else if (a->disaggregation_mode == KVPLAN_DISAGG_DECODE &&
               a->max_running_requests.set) {
        /* decode: 2 * per_worker when that is at most 32, else 0 */
        int64_t per_worker = a->max_running_requests.value / attn_dp;
        r->server_args.disaggregation_decode_extra_slots =
            per_worker <= 32 ? 2 * per_worker : 0;
    }
    r->server_args.enable_dsa_cache_layer_split =
        a->enable_dsa_cache_layer_split;

    /* environment */
    r->env.SGLANG_SWA_EVICTION_INTERVAL = a->SGLANG_SWA_EVICTION_INTERVAL;
    r->env.SGLANG_DSV4_COMPRESS_STATE_DTYPE =
        a->SGLANG_DSV4_COMPRESS_STATE_DTYPE;
    r->env.SGLANG_OPT_USE_ONLINE_COMPRESS = a->SGLANG_OPT_USE_ONLINE_COMPRESS;
    r->env.SGLANG_EXPERIMENTAL_ONLINE_C128_MTP =
        a->SGLANG_EXPERIMENTAL_ONLINE_C128_MTP;
}

kvplan_status kvplan__model_rank(const kvplan_model *m,
                                 const kvplan_server_args *a, int64_t pp_rank,
                                 kvplan_rank *r, int64_t *context_len,
                                 kvplan_error *err)
{
    if (m == NULL || a == NULL || r == NULL)
        return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, NULL,
                            "kvplan_model_rank needs a model, server args "
                            "and a rank to fill; got NULL");
    kvplan_status st;
    if (pp_rank < 0 || pp_rank >= a->pp_size)
        return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, "pp_rank",
                            "pp_rank must be in [0, %lld), got %lld",
                            (long long)a->pp_size, (long long)pp_rank);
    if (m->info.is_draft_only)
        return kvplan__fail(err, KVPLAN_UNSUPPORTED, "--model-path",
                            "%s is a speculative-decoding draft head (%s): "
                            "pass it as --speculative-draft-model-path of "
                            "the model it drafts for",
                            m->name, m->arch);
    if ((st = rank_refusals(m, a, err)) != KVPLAN_OK)
        return st;
    int64_t attn_dp = kvplan__attn_dp(a);
    kvplan_rank_init(r);
    if ((st = rank_runner(m, a, pp_rank, attn_dp, r, err)) != KVPLAN_OK)
        return st;
    /* parallel (§1.13) */
    r->parallel.attn_tp_size = kvplan__attn_tp(a);
    r->parallel.attn_cp_size = a->attn_cp_size;
    rank_model(m, a, r);
    /* context length (§1.8) */
    int64_t ctx = m->info.context_len;
    if (a->context_length.set) {
        if (a->context_length.value > ctx &&
            !a->SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN)
            return kvplan__fail(
                err, KVPLAN_INVALID_CONFIG, "--context-length",
                "--context-length %lld is longer than the model's %lld "
                "(derived from its config); sglang refuses it unless "
                "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1",
                (long long)a->context_length.value, (long long)ctx);
        ctx = a->context_length.value;
    }
    r->model.context_len = (kvplan_opt_int){ctx, true};
    if (context_len != NULL)
        *context_len = ctx;

    rank_server_args(m, a, attn_dp, r);
    return kvplan__ok(err);
}

kvplan_status kvplan_model_rank(const kvplan_model *m,
                                const kvplan_server_args *a, int64_t pp_rank,
                                kvplan_rank *r, int64_t *context_len,
                                kvplan_error *err)
{
    KVPLAN__FAIL_IF(m == NULL || a == NULL || r == NULL, err,
                    KVPLAN_INVALID_ARGUMENT, NULL,
                    "kvplan_model_rank needs a model, server args and a rank "
                    "to fill; got NULL");
    KVPLAN__TRY(kvplan__server_args_check(a, err));
    return kvplan__model_rank(m, a, pp_rank, r, context_len, err);
}
