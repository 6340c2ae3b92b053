/*
 * engine.c: kvplan_engine_compute: the options, the model's KV layers as
 * the engines see them (the census), and the budget terms only a live
 * profile measures, estimated and labelled where the caller did not give
 * them (docs/engines.md).
 */
#include "engine/engine.h"

#include "common/option_table.h"
#include "core/core.h"

#include <math.h>
#include <string.h>

const char *kvplan_engine_name(kvplan_engine e)
{
    switch (e) {
    case KVPLAN_ENGINE_SGLANG:
        return "sglang";
    case KVPLAN_ENGINE_VLLM:
        return "vllm";
    case KVPLAN_ENGINE_TRTLLM:
        return "trtllm";
    }
    return NULL;
}

const char *kvplan_engine_rules(kvplan_engine e)
{
    switch (e) {
    case KVPLAN_ENGINE_SGLANG:
        return "sglang's pool_configurator.py at 6cc9352d (2026-07-12, the "
               "seed; closest release 0.5.16), or --sglang-version's profile";
    case KVPLAN_ENGINE_VLLM:
        return "vLLM v1 at 3f6f508e1 (2026-05-29) and the rules since, by "
               "--vllm-version's profile (default 0.29-0.31)";
    case KVPLAN_ENGINE_TRTLLM:
        return "TensorRT-LLM's PyTorch flow (KvCacheCreator, "
               "_torch/pyexecutor/_util.py), by --trtllm-version's profile "
               "(default 1.3.0rc28-1.4)";
    }
    return NULL;
}

const char *kvplan_engine_spec_name(kvplan_engine_spec s)
{
    switch (s) {
    case KVPLAN_KV_SPEC_FULL:
        return "full_attention";
    case KVPLAN_KV_SPEC_MLA:
        return "mla";
    case KVPLAN_KV_SPEC_SLIDING_WINDOW:
        return "sliding_window";
    case KVPLAN_KV_SPEC_MAMBA:
        return "mamba";
    }
    return "?";
}

void kvplan_engine_options_init(kvplan_engine_options *o)
{
    if (o == NULL)
        return;
    memset(o, 0, sizeof *o);
    o->struct_size = (uint32_t)sizeof *o;
    o->engine = KVPLAN_ENGINE_VLLM;
    o->tp_size = 1;
    o->pp_size = 1;
}

static kvplan_status check(const kvplan_engine_options *o, kvplan_error *err)
{
    KVPLAN__FAIL_IF(o->struct_size != sizeof *o, err, KVPLAN_INVALID_ARGUMENT,
                    NULL,
                    "kvplan_engine_options: struct_size %u, expected %zu "
                    "(fill it with kvplan_engine_options_init)",
                    (unsigned)o->struct_size, sizeof *o);
    KVPLAN__FAIL_IF(o->engine != KVPLAN_ENGINE_VLLM &&
                        o->engine != KVPLAN_ENGINE_TRTLLM,
                    err, KVPLAN_INVALID_ARGUMENT, "--engine",
                    "--engine: expected vllm or trtllm here (sglang's plan "
                    "is kvplan_plan_compute), got %d",
                    (int)o->engine);
    KVPLAN__TRY(kvplan__check_least(o->tp_size, 1, "--tp-size", err));
    KVPLAN__TRY(kvplan__check_least(o->pp_size, 1, "--pp-size", err));
    if (o->gpu_set) /* the budgets read its total and what others hold */
        KVPLAN__TRY(kvplan__check_gpu_memory(&o->gpu, err));
    /* the engines' own flags: the option table's bounds */
    KVPLAN__TRY(kvplan__options_check_region(KVPLAN__IN_ENGINE, o, err));
    KVPLAN__FAIL_IF(o->engine == KVPLAN_ENGINE_TRTLLM && o->max_model_len.set &&
                        o->max_model_len.value == 0,
                    err, KVPLAN_INVALID_ARGUMENT, "--max-model-len",
                    "--max-model-len auto is vLLM's; TensorRT-LLM's "
                    "max_seq_len takes a length");
    KVPLAN__TRY(
        kvplan__check_opt_least(o->weight_bytes, 0, "--weight-bytes", err));
    KVPLAN__FAIL_IF(kvplan_trtllm_profile_name(o->trtllm_version) == NULL, err,
                    KVPLAN_INVALID_ARGUMENT, "--trtllm-version",
                    "--trtllm-version: %d is not a kvplan_trtllm_profile",
                    (int)o->trtllm_version);
    KVPLAN__FAIL_IF((unsigned)o->kv_cache_dtype > KVPLAN_KV_FP8, err,
                    KVPLAN_INVALID_ARGUMENT, "--kv-cache-dtype",
                    "--kv-cache-dtype: %d is not a kvplan_kv_cache_dtype_flag",
                    (int)o->kv_cache_dtype);
    /* --quantization: a scheme vLLM knows and kvplan prices; else the
     * weights would be the model dtype's, silently */
    KVPLAN__FAIL_IF(o->quantization != NULL &&
                        (!kvplan_word_value(KVPLAN_WORDS_QUANTIZATION,
                                            o->quantization, NULL) ||
                         !kvplan__priced_quantization(o->quantization)),
                    err, KVPLAN_UNSUPPORTED, "--quantization",
                    "--quantization %.40s: a scheme kvplan does not price "
                    "under --engine; pass the weights' bytes with "
                    "--weight-bytes",
                    o->quantization);
    KVPLAN__FAIL_IF((unsigned)o->dtype > KVPLAN_DT_FLOAT32, err,
                    KVPLAN_INVALID_ARGUMENT, "--dtype",
                    "--dtype: %d is not a kvplan_dtype_flag", (int)o->dtype);
    return KVPLAN_OK;
}

/* A mamba layer's conv state is in the model dtype (mamba_cache_dtype
 * auto); its temporal state's, MambaStateDtypeCalculator's: the flag,
 * else Nemotron-H's config (vllm#29978; float32 when it names none from
 * vllm#39032, float16 before), else the conv state's. TensorRT-LLM's
 * (extract_mamba_kv_cache_params, config_utils.py): the flag, else the
 * config's mamba_ssm_cache_dtype, else the model dtype. */
static kvplan_status ssm_elem(const kvplan_model *m,
                              const kvplan_engine_options *o, int64_t conv,
                              int64_t *out, kvplan_error *err)
{
    int flag = 0;
    if (o->mamba_ssm_cache_dtype != NULL)
        (void)kvplan_word_value(KVPLAN_WORDS_MAMBA_SSM_CACHE_DTYPE,
                                o->mamba_ssm_cache_dtype, &flag);
    uint64_t rules = kvplan_vllm_rules(o->vllm_version) ^ o->vllm_rules_flip;
    *out = conv;
    if (flag > 0) {
        *out = flag;
    } else if (o->engine == KVPLAN_ENGINE_VLLM &&
               m->mamba.vllm_ssm_from_config &&
               !(rules & KVPLAN_VLLM_RULE_SSM_AS_CONV)) {
        KVPLAN__FAIL_IF(m->mamba.vllm_ssm_size < 0, err, KVPLAN_UNSUPPORTED,
                        "/mamba_ssm_cache_dtype",
                        "config.json's mamba_ssm_cache_dtype is none of "
                        "vLLM's float32, float16, bfloat16");
        *out = m->mamba.vllm_ssm_size > 0             ? m->mamba.vllm_ssm_size
               : rules & KVPLAN_VLLM_RULE_SSM_FLOAT16 ? 2
                                                      : 4;
    } else if (o->engine == KVPLAN_ENGINE_TRTLLM &&
               m->mamba.vllm_ssm_size != 0) {
        KVPLAN__FAIL_IF(m->mamba.vllm_ssm_size < 0, err, KVPLAN_UNSUPPORTED,
                        "/mamba_ssm_cache_dtype",
                        "config.json's mamba_ssm_cache_dtype is none of "
                        "float32, float16, bfloat16");
        *out = m->mamba.vllm_ssm_size;
    }
    return kvplan__ok(err);
}

/* DeepSeek-V4 under vLLM: the layout kvplan read (v0.27.1's packed
 * groups) from the 0.26 profile on; its fp8_ds_mla cache only, as vLLM
 * asserts; MTP its only draft. */
static kvplan_status dsv4_vllm_check(const kvplan_model *m,
                                     const kvplan_engine_options *o,
                                     kvplan_error *err)
{
    kvplan_vllm_profile v = o->vllm_version;
    KVPLAN__FAIL_IF(
        v != KVPLAN_VLLM_LATEST && v != KVPLAN_VLLM_V0_28 &&
            v != KVPLAN_VLLM_V0_26,
        err, KVPLAN_UNSUPPORTED, "--vllm-version",
        "--vllm-version %s: kvplan models DeepSeek-V4's cache under "
        "vLLM as 0.26 and later lay it out (read at v0.27.1: one "
        "block of every group packed, vllm#44577); plan it with "
        "--vllm-version 0.26 or later",
        kvplan_vllm_profile_name(v));
    KVPLAN__FAIL_IF(
        o->kv_cache_dtype != KVPLAN_KV_AUTO &&
            o->kv_cache_dtype != KVPLAN_KV_FP8 &&
            o->kv_cache_dtype != KVPLAN_KV_FP8_E4M3,
        err, KVPLAN_UNSUPPORTED, "--kv-cache-dtype",
        "DeepseekV4 only supports fp8 kv-cache format for now, got "
        "%s (vLLM's assertion: --kv-cache-dtype fp8)",
        kvplan_word_name(KVPLAN_WORDS_KV_CACHE_DTYPE, (int)o->kv_cache_dtype));
    KVPLAN__FAIL_IF(o->speculative_draft_model != NULL ||
                        (o->speculative_algorithm != KVPLAN_SPEC_NONE &&
                         o->speculative_algorithm != KVPLAN_SPEC_EAGLE &&
                         o->speculative_algorithm != KVPLAN_SPEC_EAGLE3),
                    err, KVPLAN_UNSUPPORTED, "--speculative-algorithm",
                    "DeepSeek-V4 under vLLM: kvplan models its own MTP draft "
                    "only (--speculative-algorithm EAGLE with no draft model)");
    /* vLLM's compressor knows ratios 4 and 128 (and 0, 1: a window only) */
    size_t n4 = 0, n128 = 0;
    for (size_t i = 0; i < m->compress_ratios.count; i++) {
        int64_t r = m->compress_ratios.ids[i];
        KVPLAN__FAIL_IF(r != 0 && r != 1 && r != 4 && r != 128, err,
                        KVPLAN_UNSUPPORTED, "/compress_ratios",
                        "compress_ratios/%zu is %lld: vLLM's DeepSeek-V4 "
                        "compresses by 4 or 128 (0 or 1: a window only)",
                        i, (long long)r);
        n4 += r == 4;
        n128 += r == 128;
    }
    KVPLAN__FAIL_IF(n4 + n128 == 0, err, KVPLAN_UNSUPPORTED, "/compress_ratios",
                    "a DeepSeek-V4 config without a compressed layer: vLLM "
                    "asserts one (group_and_unify_kv_cache_specs)");
    KVPLAN__FAIL_IF(!m->dsv4_window_size.set || m->dsv4_window_size.value < 1 ||
                        m->dsv4_window_size.value > (1 << 30),
                    err, KVPLAN_UNSUPPORTED, "/sliding_window",
                    "DeepSeek-V4 under vLLM needs sliding_window, 1 to 2^30");
    KVPLAN__FAIL_IF(n4 > 0 && (!m->dsv4_index_head_dim.set ||
                               m->dsv4_index_head_dim.value < 1 ||
                               m->dsv4_index_head_dim.value > (1 << 20)),
                    err, KVPLAN_UNSUPPORTED, "/index_head_dim",
                    "DeepSeek-V4's ratio-4 layers need index_head_dim, 1 to "
                    "2^20");
    return KVPLAN_OK;
}

kvplan_status kvplan__engine_census_of(const kvplan_model *m,
                                       const kvplan_engine_options *o,
                                       kvplan__engine_census *c,
                                       kvplan_error *err)
{
    memset(c, 0, sizeof *c);
    const char *engine = kvplan_engine_name(o->engine);
    /* under TensorRT-LLM: trtllm_dsv4.c's own checks */
    if (m->info.is_deepseek_v4 && o->engine == KVPLAN_ENGINE_VLLM)
        KVPLAN__TRY(dsv4_vllm_check(m, o, err));
    KVPLAN__FAIL_IF(o->kv_cache_dtype == KVPLAN_KV_FP4_E2M1, err,
                    KVPLAN_UNSUPPORTED, "--kv-cache-dtype",
                    "--engine %s: an fp4 KV cache (NVFP4 scales) is not "
                    "modelled; use fp8 or bf16",
                    engine);
    kvplan_server_args a;
    kvplan_server_args_init(&a);
    a.tp_size = o->tp_size;
    /* "fp8" is e4m3 to vLLM (and TensorRT-LLM) on CUDA */
    a.kv_cache_dtype = o->kv_cache_dtype == KVPLAN_KV_FP8 ? KVPLAN_KV_FP8_E4M3
                                                          : o->kv_cache_dtype;
    a.dtype = o->dtype;
    a.gpu_compute_capability = o->gpu_set
                                   ? o->gpu.compute_capability
                                   : kvplan__gpu_default()->compute_capability;
    kvplan_rank r;
    KVPLAN__TRY(kvplan_model_rank(m, &a, 0, &r, &c->context_len, err));
    /* vLLM's and TRT-LLM's "auto" is the model's dtype (sglang's DSA and
     * ModelOpt defaults to fp8 are its own) */
    kvplan_dtype kv = o->kv_cache_dtype == KVPLAN_KV_AUTO
                          ? r.runner.dtype
                          : r.runner.kv_cache_dtype;
    c->kv_elem = kvplan_dtype_size(kv);
    c->kv_fp8 =
        kv == KVPLAN_DTYPE_FLOAT8_E4M3FN || kv == KVPLAN_DTYPE_FLOAT8_E5M2;
    c->mla = r.runner.use_mla_backend;
    c->dsa = r.model.hf_config.is_deepseek_dsa;
    c->hybrid_swa = r.runner.is_hybrid_swa;
    c->mambaish = r.runner.is_mambaish;
    int64_t tp = o->tp_size;
    c->kv_heads = kvplan__max(1, r.model.num_key_value_heads / tp);
    c->head_dim = r.model.head_dim.set ? r.model.head_dim.value : 0;
    c->v_head_dim = r.model.v_head_dim.set && r.model.v_head_dim.value
                        ? r.model.v_head_dim.value
                        : c->head_dim;
    int64_t swa_heads = r.model.swa_num_key_value_heads.set
                            ? r.model.swa_num_key_value_heads.value
                            : r.model.num_key_value_heads;
    c->swa_kv_heads = kvplan__max(1, swa_heads / tp);
    c->swa_head_dim = r.model.swa_head_dim.set && r.model.swa_head_dim.value
                          ? r.model.swa_head_dim.value
                          : c->head_dim;
    c->swa_v_head_dim =
        r.model.swa_v_head_dim.set && r.model.swa_v_head_dim.value
            ? r.model.swa_v_head_dim.value
            : c->swa_head_dim;
    if (c->mla) {
        c->kv_lora_rank = r.model.kv_lora_rank.value;
        c->rope_dim = r.model.qk_rope_head_dim.value;
        c->qk_nope = m->qk_nope_head_dim.set ? m->qk_nope_head_dim.value : 1;
        c->mla_dim = c->kv_lora_rank + c->rope_dim;
        bool ovf = false;
        c->ds_mla_row =
            kvplan__dsa_fp8_row_bytes(c->kv_lora_rank, c->rope_dim, &ovf);
    }
    if (c->dsa && r.model.hf_config.index_head_dim.set) {
        int64_t ihd = r.model.hf_config.index_head_dim.value;
        bool ovf = false; /* a dim sglang's rank took */
        c->index_bytes = kvplan__dsa_indexer_bytes(ihd, &ovf);
        c->dsa_shared = m->dsa_topk_schedule;
    }
    c->model_layers = r.runner.num_effective_layers;
    if (c->hybrid_swa) {
        c->full_layers = (int64_t)r.model.full_attention_layer_ids.count;
        c->swa_layers = (int64_t)r.model.swa_attention_layer_ids.count;
        c->swa_at = r.model.swa_attention_layer_ids;
        c->window = m->config_window.set ? m->config_window.value
                    : r.runner.sliding_window_size.set
                        ? r.runner.sliding_window_size.value
                        : 0;
    } else if (c->mambaish) {
        c->full_layers =
            (int64_t)r.runner.mambaish_full_attention_layer_ids.count;
        c->attn_at = r.runner.mambaish_full_attention_layer_ids;
        c->mamba_layers = m->mamba.layers;
        int64_t e = kvplan_dtype_size(r.runner.dtype);
        int64_t ssm = 0;
        KVPLAN__TRY(ssm_elem(m, o, e, &ssm, err));
        c->ssm_elem = ssm;
        bool ovf = false;
        c->mamba_conv = kvplan__mul(
            kvplan__mul(m->mamba.conv_dim / tp, m->mamba.conv_width, &ovf), e,
            &ovf);
        c->mamba_ssm =
            kvplan__mul(kvplan__mul(kvplan__mul(m->mamba.temporal_heads / tp,
                                                m->mamba.temporal_a, &ovf),
                                    m->mamba.temporal_b, &ovf),
                        ssm, &ovf);
        c->mamba_page = kvplan__add(c->mamba_conv, c->mamba_ssm, &ovf);
        c->mamba_divides =
            m->mamba.temporal_heads % tp == 0 && m->mamba.conv_dim % tp == 0;
        KVPLAN__FAIL_IF(ovf, err, KVPLAN_OVERFLOW, "/linear_num_value_heads",
                        "the mamba state's bytes exceed 64 bits");
    } else if (m->hf_swa_ids.count > 0 && !c->mla) {
        /* sglang sizes these full; vLLM builds their sliding specs */
        c->swa_layers = (int64_t)m->hf_swa_ids.count;
        c->full_layers = r.runner.num_effective_layers - c->swa_layers;
        c->swa_at = (kvplan_ids){m->hf_swa_ids.ids, m->hf_swa_ids.count};
        c->window = m->config_window.value;
    } else {
        c->full_layers = r.runner.num_effective_layers;
    }
    /* the speculative draft's KV layers: MTP from the model's own layers
     * (its attention kind, num_nextn_predict_layers of them), or an EAGLE
     * head's full-attention layers with the head's geometry */
    bool eagle = o->speculative_algorithm == KVPLAN_SPEC_EAGLE ||
                 o->speculative_algorithm == KVPLAN_SPEC_EAGLE3;
    const kvplan_model *d = o->speculative_draft_model;
    if (eagle && d == NULL && m->self_draft) {
        const kvplan_opt_int *nn = &m->info.num_nextn_predict_layers;
        c->full_layers += nn->set && nn->value > 0 ? nn->value : 1;
    } else if (eagle && d != NULL) {
        const kvplan_model_info *di = &d->info;
        c->draft_layers =
            kvplan__max(di->num_hidden_layers, d->num_attention_layers);
        c->draft_kv_heads = kvplan__max(1, di->num_key_value_heads / tp);
        c->draft_head_dim = di->head_dim;
        c->draft_v_head_dim = di->v_head_dim ? di->v_head_dim : di->head_dim;
    }
    c->hidden = m->weights.hidden;
    c->inter =
        m->weights.experts > 0 ? m->weights.moe_inter * 8 : m->weights.inter;
    c->vocab = m->weights.vocab;
    return KVPLAN_OK;
}

/* vLLM's MXFP4 MoE (mxfp4.py, get_mxfp4_backend and
 * Mxfp4MoEMethod.create_weights): on SM100 FlashInfer's kernel pads each
 * rank's expert intermediate and the hidden size to 256; below Hopper
 * Marlin's n % 256 and k % 128, the intermediate to 128 and the hidden
 * size to 256 (gpt-oss-120b at TP4 on A100s: 17.22 GiB a rank loaded,
 * tests/logs/vllm/05, the checkpoint's 15.28 and 1.94 of padding);
 * triton_kernels elsewhere, the intermediate to 64; ROCm's alignment is
 * not modelled (the checkpoint's shapes). */
static void vllm_mxfp4_padding(const kvplan_gpu *gpu,
                               kvplan__weights_request *rq)
{
    int major = kvplan__gpu_major(gpu);
    rq->mx_inter = gpu->is_hip ? 1 : major == 10 ? 256 : major < 9 ? 128 : 64;
    rq->mx_hidden = gpu->is_hip ? 1 : major == 10 || major < 9 ? 256 : 1;
}

/* One rank's weights of `m` at `tp`, every layer (budget/tensors.c); the
 * MXFP4 experts padded as vLLM holds them on `gpu` when not NULL. */
static kvplan__weights_estimate_out
rank_weights(const kvplan_model *m, kvplan_dtype_flag dtype, int64_t tp,
             const char *quantization, const kvplan_gpu *gpu)
{
    kvplan__weights_request rq = {
        .shape = &m->weights,
        .quantization = quantization,
        .dtype_bytes =
            kvplan_dtype_size(kvplan__dtype_of_flag(dtype, m->info.dtype)),
        .tp = tp,
        .attn_tp = tp,
        .start_layer = 0,
        .end_layer = m->weights.layers,
        .first_stage = true,
        .last_stage = true,
    };
    if (gpu != NULL)
        vllm_mxfp4_padding(gpu, &rq);
    kvplan__weights_estimate_out e = {0};
    kvplan__weights_estimate(&rq, &e);
    return e;
}

void kvplan__engine_terms(const kvplan_model *m, const kvplan_engine_options *o,
                          const kvplan__engine_census *c, int64_t tokens,
                          int64_t seqs, kvplan_engine_plan *p)
{
    const kvplan_gpu *gpu = o->gpu_set ? &o->gpu : kvplan__gpu_default();
    /* the engines read CUDA's total (torch.cuda.mem_get_info), which
     * leaves the driver's reserve out: NVML's or a preset's where known,
     * else 512 MiB on NVIDIA (vLLM's logs of H100s: total_gpu_memory
     * 79.11-79.33 GiB of memory.total's 79.65; an H200's is 0.60 GiB) */
    p->memory_total_bytes = gpu->total_mib * 1048576.0;
    bool known = false;
    p->total_bytes = kvplan__gpu_cuda_total(gpu, &known);
    p->reserved_bytes = p->memory_total_bytes - p->total_bytes;
    p->reserved_source =
        known ? KVPLAN_SOURCE_MEASURED : KVPLAN_SOURCE_ESTIMATED;
    double tp = (double)o->tp_size;
    /* the weights of one rank: the estimate's share of the given total */
    kvplan__weights_estimate_out e =
        rank_weights(m, o->dtype, o->tp_size, o->quantization,
                     o->engine == KVPLAN_ENGINE_VLLM ? gpu : NULL);
    double pp = (double)o->pp_size;
    if (o->rank_weight_bytes.set) { /* a calibration's, as loaded */
        p->weight_bytes = (double)o->rank_weight_bytes.value;
        p->weight_source = KVPLAN_SOURCE_MEASURED;
    } else if (o->weight_bytes.set) {
        double share =
            e.model_bytes > 0 ? e.rank_exact_bytes / e.model_bytes : 1 / tp;
        p->weight_bytes = (double)o->weight_bytes.value * share / pp;
        p->weight_source = KVPLAN_SOURCE_GIVEN;
    } else {
        p->weight_bytes = e.rank_bytes / pp;
        p->weight_source = KVPLAN_SOURCE_ESTIMATED;
    }
    /* an EAGLE head's weights, on the last stage: estimated */
    const kvplan_model *d = o->speculative_draft_model;
    if (c->draft_layers > 0 && d != NULL) {
        p->weight_bytes +=
            rank_weights(d, o->dtype, o->tp_size, NULL, NULL).rank_bytes;
        p->weight_source = KVPLAN_SOURCE_ESTIMATED;
    }
    /* the profile run's activation peak: the batch's hidden states and MLP
     * intermediates (in the model dtype), and the sampler's over the
     * vocabulary for every sequence. FlashInfer's top-k/top-p kernel adds
     * fp32 logits and probabilities, 8 bytes an entry, to the forward's
     * (0.10.1.1 on A100s: tests/logs/vllm/02-04 and 13 within 0.02 GiB);
     * 0.13-0.19's sampler 13.9 bytes an entry (one launch,
     * tests/logs/vllm/10: 0.50 GiB over Qwen3-8B's forward at 256
     * sequences). A sort peaks on its own, above the forward's: the newest
     * releases' sampler at 38.5 bytes an entry (llm-d-benchmark's H100
     * table: Llama-3.1-8B 4.76 GiB, Qwen3-0.6B 5.56, gpt-oss-20b 7.38 at
     * 1024 sequences; tests/logs/vllm/11, 0.31, 1.44 GiB where this gives
     * 1.18), PyTorch's where FlashInfer is absent at 35.7 (0.10.1.1:
     * tests/logs/vllm/06, one launch; the newest figure in later ones) */
    double dt =
        kvplan_dtype_size(kvplan__dtype_of_flag(o->dtype, m->info.dtype));
    double fwd = (double)tokens * dt * (6 * c->hidden + 2 * c->inter / tp);
    double entries = (double)seqs * c->vocab;
    bool vllm = o->engine == KVPLAN_ENGINE_VLLM;
    bool v010 = o->vllm_version == KVPLAN_VLLM_V0_10;
    bool sort =
        vllm && (o->native_sampler || o->vllm_version == KVPLAN_VLLM_LATEST);
    double per_entry = !vllm                                  ? 8
                       : o->vllm_version == KVPLAN_VLLM_V0_13 ? 13.9
                                                              : 8;
    double act = sort ? fmax(fwd, (v010 ? 35.7 : 38.5) * entries)
                      : fwd + per_entry * entries;
    p->activation_bytes =
        o->activation_bytes.set ? (double)o->activation_bytes.value : act;
    p->activation_source =
        o->activation_bytes.set ? KVPLAN_SOURCE_GIVEN : KVPLAN_SOURCE_ESTIMATED;
    /* NCCL, cuBLAS workspaces, the custom all-reduce: vLLM's own
     * "non-torch memory" on H100s, 0.13-0.14 GiB at TP1 (five launches) and
     * 0.54-0.55 at TP2 (two), llm-d-benchmark's
     * config_explorer/empirical-vllm-memory-results.md; 0.10-0.12's
     * profile grew less: 0.02 and 0.07 GiB at TP1 (tests/logs/vllm/08, and
     * an H100 launch of 2025-09 printing "0.07 GiB for non-torch memory"),
     * 0.25 at TP2 (the rest of logs 04 and 06 after the activation, both
     * without the custom all-reduce). TensorRT-LLM's stay estimated at
     * 0.25 and 1 GiB */
    double gib = 1073741824.0;
    bool ranks = o->tp_size * o->pp_size > 1;
    double nt = o->engine != KVPLAN_ENGINE_VLLM ? (ranks ? 1.0 : 0.25)
                : v010                          ? (ranks ? 0.25 : 0.05)
                                                : (ranks ? 0.55 : 0.13);
    p->non_torch_bytes =
        o->non_torch_bytes.set ? (double)o->non_torch_bytes.value : nt * gib;
    p->non_torch_source =
        o->non_torch_bytes.set ? KVPLAN_SOURCE_GIVEN : KVPLAN_SOURCE_ESTIMATED;
    /* captured graphs: about half a GiB per rank for a dense model, more
     * with experts (vLLM logs of 0.21+ report 0.3 - 2 GiB) */
    double cg = o->enforce_eager         ? 0
                : m->weights.experts > 0 ? 1.0 * gib
                                         : 0.5 * gib;
    p->cuda_graph_bytes =
        o->cuda_graph_bytes.set ? (double)o->cuda_graph_bytes.value : cg;
    p->cuda_graph_source = o->cuda_graph_bytes.set || o->enforce_eager
                               ? KVPLAN_SOURCE_GIVEN
                               : KVPLAN_SOURCE_ESTIMATED;
}

kvplan_status kvplan__vllm_without_hma(const kvplan__engine_census *c,
                                       const kvplan_engine_options *o,
                                       kvplan__engine_census *out,
                                       kvplan_error *err)
{
    *out = *c;
    if (!o->disable_hybrid_kv_cache_manager ||
        (c->swa_layers == 0 && c->mamba_layers == 0))
        return KVPLAN_OK;
    /* a sliding layer then holds the whole request, as a full one
     * (kv_cache_utils.py: the specs unified into one full-attention type);
     * a mamba hybrid cannot be */
    KVPLAN__FAIL_IF(c->mamba_layers > 0, err, KVPLAN_UNSUPPORTED,
                    "--disable-hybrid-kv-cache-manager",
                    "vLLM cannot serve a mamba hybrid without its hybrid KV "
                    "cache manager (\"Hybrid KV cache manager is disabled but "
                    "failed to convert the KV cache specs to one unified "
                    "type\")");
    KVPLAN__FAIL_IF(
        c->swa_kv_heads != c->kv_heads || c->swa_head_dim != c->head_dim ||
            c->swa_v_head_dim != c->v_head_dim,
        err, KVPLAN_UNSUPPORTED, "--disable-hybrid-kv-cache-manager",
        "--disable-hybrid-kv-cache-manager with sliding layers "
        "of another geometry than the full ones is not modelled "
        "by kvplan");
    out->full_layers += out->swa_layers;
    out->swa_layers = 0;
    out->swa_at = (kvplan_ids){NULL, 0};
    return KVPLAN_OK;
}

kvplan_status kvplan_engine_compute(const kvplan_model *m,
                                    const kvplan_engine_options *o,
                                    kvplan_engine_plan *out, kvplan_error *err)
{
    KVPLAN__FAIL_IF(m == NULL || o == NULL || out == NULL, err,
                    KVPLAN_INVALID_ARGUMENT, NULL,
                    "kvplan_engine_compute needs a model, options and a plan "
                    "to fill; got NULL");
    KVPLAN__TRY(check(o, err));
    memset(out, 0, sizeof *out);
    out->struct_size = (uint32_t)sizeof *out;
    out->engine = o->engine;
    kvplan__engine_census c;
    KVPLAN__TRY(kvplan__engine_census_of(m, o, &c, err));
    if (o->engine == KVPLAN_ENGINE_VLLM)
        KVPLAN__TRY(kvplan__vllm_plan(&c, o, m, out, err));
    else
        KVPLAN__TRY(kvplan__trtllm_plan(&c, o, m, out, err));
    return kvplan__ok(err);
}
