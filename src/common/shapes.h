/*
 * shapes.h: what the budget needs to know of a model beyond its KV
 * geometry, as plain numbers: the shapes behind a weight estimate, one
 * request's mamba state, the vision tower. The model room reads them from
 * config.json (model/shape.c); the budget room prices them
 * (budget/weights.c, budget/budget.c). Neither room includes the other.
 */
#ifndef KVPLAN_SHAPES_H
#define KVPLAN_SHAPES_H

#include <stdbool.h>
#include <stdint.h>

/* The classes of weights a quantization scheme treats apart. */
enum {
    KVPLAN__W_ATTN = 0, /* attention projections (and mamba / linear) */
    KVPLAN__W_MLP,      /* dense MLPs */
    KVPLAN__W_SHARED,   /* shared experts */
    KVPLAN__W_EXPERT,   /* routed experts */
    KVPLAN__W_LM_HEAD,  /* the LM head */
    KVPLAN__W_CLASSES
};

/* The tensors behind a weight estimate, from config.json. Sizes are
 * doubles: an estimate, and no product of hostile config values may
 * overflow. */
typedef struct kvplan__weight_shape {
    double hidden, heads, kv_heads, head_dim, v_head_dim, layers, vocab;
    /* sliding-window layers with attention shapes of their own (MiMo's
     * swa_num_key_value_heads, swa_head_dim); swa_layers 0: none */
    double swa_layers, swa_kv_heads, swa_head_dim, swa_v_head_dim;
    bool tied_embeddings;
    /* a reward or classification model: a score head of num_labels rows
     * (under 1 MiB, left out) instead of the LM head, after score_mlp x
     * hidden where it is an MLP (Qwen2ForRewardModel); 0: none */
    bool score_head;
    double score_mlp;
    bool attention_bias; /* q, k, v biases (Qwen2) */
    /* MLA (is_mla): q_lora 0 means no q compression */
    bool is_mla;
    double q_lora, kv_lora, rope, nope;
    /* the DSA indexer (is_dsa): heads x head_dim on every rank */
    bool is_dsa;
    double index_heads, index_head_dim;
    /* MLP and MoE */
    double inter, experts, moe_inter, shared, shared_inter;
    double mlp_mats;    /* the dense MLP's matrices: 3 (gate, up, down), or 2 */
    double first_dense; /* first_k_dense_replace */
    int64_t moe_step;   /* interleave_moe_layer_step (Llama4) */
    double inter_mlp;   /* intermediate_size_mlp (Llama4) */
    bool moe_with_mlp;  /* a dense MLP beside the experts (Gemma 4) */
    bool full_k_eq_v;   /* the full layers store no v (Gemma 4) */
    /* DeepSeek V4's output projection: o_groups groups of heads, each
     * through an o_lora_rank bottleneck; o_lora 0: one o_proj */
    double o_groups, o_lora;
    /* DeciLM (block_configs): layers with attention, their KV heads, and
     * the sum of the MLPs' intermediate sizes; attn_layers < 0: every
     * layer as the top-level keys say */
    double attn_layers, mlp_inter_sum;
    /* Nemotron-H: what each layer of the pattern is */
    bool nemotron_h;
    double n_mamba, n_attn, n_mlp, n_moe;
    double mamba_heads, mamba_head_dim, mamba_groups, mamba_state;
    double moe_latent; /* moe_latent_size, 0: none */
    /* Gated DeltaNet layers (Qwen3 Next / 3.5): count and head shapes */
    double gdn_layers, gdn_k_heads, gdn_v_heads, gdn_k_dim, gdn_v_dim;
    /* the vision tower, whole on every rank */
    double vision_layers, vision_hidden, vision_inter, vision_out;
    double vision_mlp_mats;  /* 2 (fc1, fc2), 3 when gated (Gemma 4) */
    double vision_proj_in;   /* the projector's input: 4 x hidden where 2x2
                                patches are merged (Qwen), else hidden */
    double vision_positions; /* learned position embeddings, rows */
    /* quantization_config (or hf_quant_config.json) */
    char quant_method[24]; /* quant_method, or "" */
    int quant_bits;        /* the weights' bits; 0: the scheme's */
    int quant_group;       /* elements per scale along a row; 0: scheme's */
    int quant_block;       /* fp8 weight_block_size; 0: per channel */
    /* DeepSeek-V4's config "expert_dtype": "fp4": an fp8 checkpoint whose
     * routed experts are MXFP4 (4 bits, an e8m0 scale per 32; vLLM's
     * DeepseekV4FP8Config, sglang's alike) */
    bool experts_fp4;
    bool quant_skip[KVPLAN__W_CLASSES]; /* left unquantized by the config */
    bool name_says_quantized; /* "FP8", "AWQ", ... in the model's name */
} kvplan__weight_shape;

/* One request's mamba state at TP 1 (docs/sglang-rules.md §3.1): conv
 * state (conv_dim, conv_width) in bf16 and the temporal (ssm) state
 * (heads, a, b) at ssm_size bytes, on each of `layers` layers. */
typedef struct kvplan__mamba_shape {
    int64_t conv_dim, conv_width, layers;
    int64_t temporal_heads, temporal_a, temporal_b;
    int64_t ssm_size;
    /* vLLM's reading: a Nemotron-H config (whose ssm dtype vLLM takes
     * from it, NemotronHForCausalLMConfig) and its mamba_ssm_cache_dtype's
     * bytes, 0 when absent, -1 for a dtype vLLM does not take */
    bool vllm_ssm_from_config;
    int64_t vllm_ssm_size;
} kvplan__mamba_shape;

/* One request's mamba state on a rank at TP `tp`, in bytes (§3.1): the
 * conv state in bf16 (conv_dim / tp, width) and the ssm state (heads / tp,
 * a, b) at ssm_size bytes, per mamba layer. In doubles: the model checks
 * the TP 1 figure is sane when it reads the config. */
static inline double kvplan__mamba_per_request(const kvplan__mamba_shape *s,
                                               int64_t tp)
{
    double conv = (double)(s->conv_dim / tp) * (double)s->conv_width * 2.0;
    double ssm = (double)(s->temporal_heads / tp) * (double)s->temporal_a *
                 (double)s->temporal_b * (double)s->ssm_size;
    return (conv + ssm) * (double)s->layers;
}

/* A vision tower sglang loads beside the language model (it moves
 * mem_fraction_static, §4.1). */
typedef struct kvplan__vision_shape {
    bool present;
    int64_t layers, hidden; /* as the rule reads them (defaults 24, 1024) */
} kvplan__vision_shape;

#endif /* KVPLAN_SHAPES_H */
