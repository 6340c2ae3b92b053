/*
 * model.h: the loaded model as the library's modules see it (model.c fills
 * it, plan.c reads it). Internal: the public face is kvplan_model_info.
 */
#ifndef KVPLAN_MODEL_H
#define KVPLAN_MODEL_H

#include "kvplan.h"

typedef struct id_list {
    int64_t *ids;
    size_t count;
} id_list;

struct kvplan_model {
    kvplan_model_info info;
    char *name, *hf_id, *arch, *model_type;
    /* attention geometry (total heads; dims per head) */
    kvplan_opt_int swa_num_key_value_heads;
    int64_t swa_head_dim, swa_v_head_dim;
    kvplan_opt_int kv_lora_rank, qk_rope_head_dim, qk_nope_head_dim;
    kvplan_opt_int dsa_index_head_dim;
    /* DeepSeek V4 */
    kvplan_opt_int dsv4_window_size, dsv4_index_head_dim;
    id_list compress_ratios;
    /* MiniMax sparse */
    id_list minimax_dense, minimax_sparse, minimax_k_only;
    kvplan_opt_int minimax_index_dim;
    /* hybrid SWA: global ids, ascending */
    id_list full_ids, swa_ids;
    bool hybrid_swa_compress;
    /* the sliding window, by sglang's three rules (§1.9) */
    kvplan_opt_int class_window;        /* rule 1: the model class says */
    kvplan_opt_int config_window;       /* rule 2: sliding_window_size ... */
    kvplan_opt_int attention_chunk_size; /* rule 3 */
    /* mamba / linear hybrids: global ids of the attention layers */
    id_list mamba_full_ids;
    int64_t num_attention_layers;
    bool kv_fp8_quant;     /* ModelOpt FP8 KV cache: "auto" means fp8 */
    bool dsa_dtype_arch;   /* DSA's GPU-dependent KV dtype default applies */
    bool self_draft;       /* sglang drafts MTP from the model itself */
    /* for the budget (src/plan.c) */
    bool multimodal;        /* a vision tower sglang loads with the LM */
    int64_t vit_layers, vit_hidden;
    bool attention_sinks;   /* gpt-oss: triton instead of flashinfer */
    double dense_params;    /* weight estimate, in parameters (a double:
                               hostile configs must not overflow it) */
    double expert_params;   /* MoE expert weights (quantized apart) */
    char quant_method[24];  /* quantization_config.quant_method, or "" */
    int quant_bits;         /* compressed-tensors weights: num_bits; 0 */
    /* one request's mamba state at TP 1 (spec §3.1) */
    int64_t mamba_conv_dim, mamba_conv_width, mamba_layers;
    int64_t mamba_temporal_heads, mamba_temporal_a, mamba_temporal_b;
    int64_t mamba_ssm_size; /* bytes per ssm element */
};

#endif /* KVPLAN_MODEL_H */
