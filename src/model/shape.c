/*
 * shape.c: what the budget needs beyond the KV geometry, read from
 * config.json: the vision tower (it moves mem_fraction_static, §4.1), the
 * shapes behind a weight estimate, and one request's mamba state (§3.1).
 * Read only: budget/weights.c prices them. Sections (§) are those of
 * docs/sglang-rules.md.
 */
#include "model/model.h"

#include <stdio.h>
#include <string.h>

static void read_vision(kvplan_model *m, const kvplan__view *v)
{
    const json_t *vision = kvplan__get(v->top, "vision_config");
    kvplan__vision_shape *s = &m->vision;
    s->present = json_is_object(vision);
    s->layers = 24;
    s->hidden = 1024;
    if (s->present) {
        const json_t *x = kvplan__get(vision, "num_hidden_layers");
        if (json_is_integer(x))
            s->layers = (int64_t)json_integer_value(x);
        x = kvplan__get(vision, "hidden_size");
        if (json_is_integer(x))
            s->hidden = (int64_t)json_integer_value(x);
    }
}

/* Nemotron-H: the pattern (or the block list) says what each layer is. */
static void count_nemotron_layers(const kvplan__view *v,
                                  kvplan__weight_shape *w)
{
    const json_t *pattern = kvplan__tget(v, "hybrid_override_pattern");
    const json_t *blocks = kvplan__tget(v, "layers_block_type");
    if (json_is_string(pattern)) {
        for (const char *c = json_string_value(pattern); *c; c++) {
            w->n_mamba += *c == 'M';
            w->n_attn += *c == '*';
            w->n_mlp += *c == '-';
            w->n_moe += *c == 'E';
        }
        return;
    }
    size_t i;
    const json_t *e;
    json_array_foreach(blocks, i, e)
    {
        w->n_mamba += kvplan__pick_string(e, "mamba");
        w->n_attn += kvplan__pick_string(e, "attention");
        w->n_mlp += kvplan__pick_string(e, "mlp");
        w->n_moe += kvplan__pick_string(e, "moe");
    }
}

/* The shapes of the weight estimate (budget/weights.c). The defaults are
 * the ones the estimate assumes when a config leaves a key out. */
static void read_weights(kvplan_model *m, const kvplan__view *v)
{
    kvplan__weight_shape *w = &m->weights;
    memset(w, 0, sizeof *w);
    const json_t *qc = kvplan__hget(v, "quantization_config");
    const char *q = json_string_value(kvplan__get(qc, "quant_method"));
    snprintf(w->quant_method, sizeof w->quant_method, "%.23s", q ? q : "");
    /* compressed-tensors: the weights' bit width (one group is enough) */
    const char *gk;
    const json_t *group;
    json_object_foreach((json_t *)kvplan__get(qc, "config_groups"), gk, group)
    {
        const json_t *bits =
            kvplan__get(kvplan__get(group, "weights"), "num_bits");
        if (json_is_integer(bits) && json_integer_value(bits) > 0 &&
            json_integer_value(bits) <= 32)
            w->quant_bits = (int)json_integer_value(bits);
    }

    w->hidden = (double)m->info.hidden_size;
    w->heads = (double)m->info.num_attention_heads;
    w->kv_heads = (double)m->info.num_key_value_heads;
    w->head_dim = (double)m->info.head_dim;
    w->v_head_dim = (double)m->info.v_head_dim;
    w->layers = (double)m->info.num_hidden_layers;
    w->vocab = (double)m->info.vocab_size;
    w->tied_embeddings = json_is_true(kvplan__hget(v, "tie_word_embeddings"));
    w->q_lora = (double)kvplan__tint_or(v, "q_lora_rank", 0);
    w->is_mla = m->info.is_mla;
    if (w->is_mla) {
        w->kv_lora = (double)m->kv_lora_rank.value;
        w->rope = (double)m->qk_rope_head_dim.value;
        w->nope =
            m->qk_nope_head_dim.set ? (double)m->qk_nope_head_dim.value : 128;
    }
    w->inter = (double)kvplan__tint_or(
        v, "intermediate_size",
        m->info.hidden_size < INT64_MAX / 4 ? 4 * m->info.hidden_size : 0);
    w->experts = (double)kvplan__tint_or(
        v, "n_routed_experts",
        kvplan__tint_or(v, "num_experts",
                        kvplan__tint_or(v, "num_local_experts", 0)));
    w->moe_inter =
        (double)kvplan__tint_or(v, "moe_intermediate_size", (int64_t)w->inter);
    w->shared = (double)kvplan__tint_or(v, "n_shared_experts", 0);
    w->shared_inter = (double)kvplan__tint_or(
        v, "shared_expert_intermediate_size",
        kvplan__tint_or(v, "moe_shared_expert_intermediate_size",
                        (int64_t)w->moe_inter));
    w->first_dense = (double)kvplan__tint_or(v, "first_k_dense_replace", 0);
    w->moe_step = kvplan__tint_or(v, "interleave_moe_layer_step", 1);
    w->inter_mlp =
        (double)kvplan__tint_or(v, "intermediate_size_mlp", (int64_t)w->inter);
    w->nemotron_h = strcmp(m->model_type, "nemotron_h") == 0;
    if (w->nemotron_h) {
        w->mamba_heads = (double)kvplan__tint_or(v, "mamba_num_heads", 0);
        w->mamba_head_dim = (double)kvplan__tint_or(v, "mamba_head_dim", 0);
        w->mamba_groups = (double)kvplan__tint_or(v, "n_groups", 8);
        w->mamba_state = (double)kvplan__tint_or(v, "ssm_state_size", 128);
        w->moe_latent = (double)kvplan__tint_or(v, "moe_latent_size", 0);
        count_nemotron_layers(v, w);
    }
}

/* One request's mamba state: Mamba2 (Nemotron-H) and Gated DeltaNet
 * (Qwen3 Next / 3.5), before TP. Sizes a hostile config would overflow
 * are left at 0: no state is priced then. */
static void read_mamba(kvplan_model *m, const kvplan__view *v)
{
    kvplan__mamba_shape *s = &m->mamba;
    memset(s, 0, sizeof *s);
    const char *mt = m->model_type;
    const char *ssm = kvplan__tstr(v, "mamba_ssm_dtype");
    s->ssm_size = ssm != NULL && (strcmp(ssm, "bfloat16") == 0 ||
                                  strcmp(ssm, "float16") == 0)
                      ? 2
                      : 4;
    bool ovf = false;
    if (strcmp(mt, "nemotron_h") == 0) {
        int64_t nh = kvplan__tint_or(v, "mamba_num_heads", 0);
        int64_t mhd = kvplan__tint_or(v, "mamba_head_dim", 0);
        int64_t groups = kvplan__tint_or(v, "n_groups", 8);
        int64_t state = kvplan__tint_or(v, "ssm_state_size", 128);
        /* conv_dim = heads * head_dim + 2 * groups * state */
        s->conv_dim = kvplan__add(
            kvplan__mul(nh, mhd, &ovf),
            kvplan__mul(kvplan__mul(2, groups, &ovf), state, &ovf), &ovf);
        s->conv_width =
            kvplan__sub(kvplan__tint_or(v, "conv_kernel", 4), 1, &ovf);
        s->temporal_heads = nh;
        s->temporal_a = mhd;
        s->temporal_b = state;
        const json_t *p = kvplan__tget(v, "hybrid_override_pattern");
        const json_t *b = kvplan__tget(v, "layers_block_type");
        if (json_is_string(p)) {
            for (const char *c = json_string_value(p); *c; c++)
                s->layers += *c == 'M';
        } else {
            size_t i;
            const json_t *e;
            json_array_foreach(b, i, e) s->layers +=
                kvplan__pick_string(e, "mamba");
        }
    } else if (strcmp(mt, "qwen3_next") == 0 ||
               strncmp(mt, "qwen3_5", 7) == 0) {
        int64_t nk = kvplan__tint_or(v, "linear_num_key_heads", 0);
        int64_t nv = kvplan__tint_or(v, "linear_num_value_heads", 0);
        int64_t dk = kvplan__tint_or(v, "linear_key_head_dim", 0);
        int64_t dv = kvplan__tint_or(v, "linear_value_head_dim", 0);
        /* conv_dim = 2 * key_heads * key_dim + value_heads * value_dim */
        s->conv_dim =
            kvplan__add(kvplan__mul(kvplan__mul(2, nk, &ovf), dk, &ovf),
                        kvplan__mul(nv, dv, &ovf), &ovf);
        s->conv_width = kvplan__sub(
            kvplan__tint_or(v, "linear_conv_kernel_dim", 4), 1, &ovf);
        s->temporal_heads = nv;
        s->temporal_a = dk;
        s->temporal_b = dv;
        s->layers =
            m->info.num_hidden_layers - (int64_t)m->mamba_full_ids.count;
    }
    if (ovf)
        memset(s, 0, sizeof *s);
}

void kvplan__derive_shapes(kvplan_model *m, const kvplan__view *v)
{
    read_vision(m, v);
    read_weights(m, v);
    read_mamba(m, v);
}
