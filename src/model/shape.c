/*
 * shape.c: what the budget needs beyond the KV geometry, read from
 * config.json: the vision tower (it moves mem_fraction_static, §4.1), the
 * shapes behind a weight estimate, and one request's mamba state (§3.1).
 * Read only: budget/weights.c prices them. Sections (§) are those of
 * docs/sglang-rules.md.
 */
#include "model/model.h"

#include <fnmatch.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>

/* vision_config's integer `key`, else Kimi-K2.5's `vt_` spelling of it
 * (its config class maps one to the other), else `fallback`. */
static int64_t vision_int(const json_t *vision, const char *key,
                          int64_t fallback)
{
    char vt[64];
    snprintf(vt, sizeof vt, "vt_%s", key);
    const json_t *x = kvplan__get(vision, key);
    if (!json_is_integer(x))
        x = kvplan__get(vision, vt);
    return json_is_integer(x) ? (int64_t)json_integer_value(x) : fallback;
}

static void read_vision(kvplan_model *m, const kvplan__view *v)
{
    const json_t *vision = kvplan__get(v->top, "vision_config");
    kvplan__vision_shape *s = &m->vision;
    s->present = json_is_object(vision);
    /* §4.1's rule: num_hidden_layers and hidden_size, defaults 24, 1024 */
    s->layers = s->present ? vision_int(vision, "num_hidden_layers", 24) : 24;
    s->hidden = s->present ? vision_int(vision, "hidden_size", 1024) : 1024;
    /* the tower's tensors: Qwen's towers say depth, not num_hidden_layers */
    kvplan__weight_shape *w = &m->weights;
    if (!s->present)
        return;
    int64_t depth = vision_int(vision, "depth", s->layers);
    w->vision_layers = (double)vision_int(vision, "num_hidden_layers", depth);
    w->vision_hidden = (double)vision_int(
        vision, "hidden_size", vision_int(vision, "embed_dim", s->hidden));
    int64_t inter = vision_int(vision, "intermediate_size", -1);
    w->vision_inter = inter >= 0 ? (double)inter : 4 * w->vision_hidden;
    w->vision_out = (double)m->info.hidden_size;
    /* the towers whose projector reads one patch (pooled), not 2x2 merged:
     * SigLIP under Gemma 3 (a position per patch of the image) and Gemma
     * 4's (gated MLPs, 2-D positions); transformers' Gemma3 and Gemma4
     * vision classes, checked by tests/test_census.c */
    const char *kind = json_string_value(kvplan__get(vision, "model_type"));
    kind = kind ? kind : "";
    w->vision_mlp_mats = 2;
    w->vision_proj_in = 4 * w->vision_hidden;
    if (strcmp(kind, "siglip_vision_model") == 0) {
        int64_t patch = vision_int(vision, "patch_size", 0);
        double side = patch > 0 ? (double)vision_int(vision, "image_size", 0) /
                                      (double)patch
                                : 0;
        w->vision_proj_in = w->vision_hidden;
        w->vision_positions = floor(side) * floor(side);
    } else if (strcmp(kind, "gemma4_vision") == 0) {
        w->vision_mlp_mats = 3;
        w->vision_proj_in = w->vision_hidden;
        w->vision_positions =
            2 * (double)vision_int(vision, "position_embedding_size", 0);
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

/* DeciLM (Nemotron-NAS): each block_configs entry says whether its layer
 * has attention (and how many query heads share a KV head) and the size
 * of its MLP: ffn_mult * 2/3 * hidden, rounded up to 256. */
static void read_block_configs(const kvplan__view *v, kvplan__weight_shape *w)
{
    const json_t *blocks = kvplan__tget(v, "block_configs");
    if (!json_is_array(blocks) || json_array_size(blocks) == 0)
        return;
    w->attn_layers = 0;
    w->mlp_inter_sum = 0;
    double kv = 0;
    size_t i;
    const json_t *b;
    json_array_foreach(blocks, i, b)
    {
        const json_t *a = kvplan__get(b, "attention");
        const json_t *group = kvplan__get(a, "n_heads_in_group");
        if (!json_is_true(kvplan__get(a, "no_op")) && json_is_integer(group) &&
            json_integer_value(group) > 0) {
            w->attn_layers += 1;
            kv = w->heads / (double)json_integer_value(group);
        }
        const json_t *f = kvplan__get(b, "ffn");
        const json_t *mult = kvplan__get(f, "ffn_mult");
        if (!json_is_true(kvplan__get(f, "no_op")) && json_is_number(mult)) {
            double inter = 2.0 * json_number_value(mult) * w->hidden / 3.0;
            w->mlp_inter_sum += ceil(inter / 256.0) * 256.0;
        }
    }
    if (kv > 0)
        w->kv_heads = kv;
}

/* Which of the classes' module `names` match one entry of an ignore list
 * (skip[c] set for each): "re:" a regular expression matched from the
 * start (Python's re.match), compiled once for all the classes, else a
 * glob, or a plain name contained in the module's. */
static void module_matches(const char *pattern,
                           const char *const names[KVPLAN__W_CLASSES],
                           bool skip[KVPLAN__W_CLASSES])
{
    if (strncmp(pattern, "re:", 3) == 0) {
        char anchored[256];
        regex_t re;
        if (snprintf(anchored, sizeof anchored, "^(%s)", pattern + 3) >=
                (int)sizeof anchored ||
            regcomp(&re, anchored, REG_EXTENDED | REG_NOSUB) != 0)
            return;
        for (int c = 0; c < KVPLAN__W_CLASSES; c++)
            skip[c] |= !skip[c] && regexec(&re, names[c], 0, NULL, 0) == 0;
        regfree(&re);
        return;
    }
    for (int c = 0; c < KVPLAN__W_CLASSES; c++) {
        if (strchr(pattern, '*') != NULL) {
            char prefix[256];
            snprintf(prefix, sizeof prefix, "%s.*", pattern);
            skip[c] |= fnmatch(pattern, names[c], 0) == 0 ||
                       fnmatch(prefix, names[c], 0) == 0;
        } else {
            skip[c] |= *pattern != '\0' && strstr(names[c], pattern) != NULL;
        }
    }
}

/* Which classes of weights the quantization leaves in the model dtype:
 * each class is tried with a module name of its kind against the
 * config's ignore lists. */
static void read_quant_skips(const json_t *qc, const char *model_type,
                             kvplan__weight_shape *w)
{
    bool qwen = strstr(model_type, "qwen") != NULL;
    static const char *const lists[] = {"ignore", "modules_to_not_convert",
                                        "ignored_layers", "exclude_modules"};
    const char *names[KVPLAN__W_CLASSES] = {
        [KVPLAN__W_ATTN] = "model.layers.1.self_attn.o_proj",
        [KVPLAN__W_MLP] = "model.layers.0.mlp.down_proj",
        [KVPLAN__W_SHARED] =
            qwen ? "model.layers.1.mlp.shared_expert.down_proj"
                 : "model.layers.1.mlp.shared_experts.down_proj",
        [KVPLAN__W_EXPERT] = "model.layers.1.mlp.experts.0.down_proj",
        [KVPLAN__W_LM_HEAD] = "lm_head",
    };
    for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++) {
        const json_t *arr = kvplan__get(qc, lists[l]);
        size_t i;
        const json_t *e;
        json_array_foreach(arr, i, e)
        {
            const char *pat = json_string_value(e);
            if (pat != NULL)
                module_matches(pat, names, w->quant_skip);
        }
    }
}

static void read_quant(const kvplan__view *v, kvplan__weight_shape *w)
{
    const json_t *qc = kvplan__hget(v, "quantization_config");
    const char *q = json_string_value(kvplan__get(qc, "quant_method"));
    snprintf(w->quant_method, sizeof w->quant_method, "%.23s", q ? q : "");
    const json_t *bits = kvplan__get(qc, "bits");
    const json_t *group = kvplan__get(qc, "group_size");
    /* compressed-tensors: the weights of a group (one is enough) */
    const char *gk;
    const json_t *g;
    json_object_foreach((json_t *)kvplan__get(qc, "config_groups"), gk, g)
    {
        const json_t *wt = kvplan__get(g, "weights");
        bits = kvplan__get(wt, "num_bits");
        group = kvplan__get(wt, "group_size");
    }
    if (json_is_integer(bits) && json_integer_value(bits) > 0 &&
        json_integer_value(bits) <= 32)
        w->quant_bits = (int)json_integer_value(bits);
    if (json_is_integer(group) && json_integer_value(group) > 0 &&
        json_integer_value(group) <= 1 << 20)
        w->quant_group = (int)json_integer_value(group);
    const json_t *block =
        json_array_get(kvplan__get(qc, "weight_block_size"), 0);
    if (json_is_integer(block) && json_integer_value(block) > 0 &&
        json_integer_value(block) <= 1 << 20)
        w->quant_block = (int)json_integer_value(block);
    const char *ed = json_string_value(kvplan__hget(v, "expert_dtype"));
    w->experts_fp4 = ed != NULL && strcmp(ed, "fp4") == 0;
    read_quant_skips(qc, v->model_type ? v->model_type : "", w);
}

/* The shapes of the weight estimate (budget/tensors.c). The defaults are
 * the ones the estimate assumes when a config leaves a key out. */
static void read_weights(kvplan_model *m, const kvplan__view *v)
{
    kvplan__weight_shape *w = &m->weights;
    memset(w, 0, sizeof *w);
    read_quant(v, w);

    w->hidden = (double)m->info.hidden_size;
    w->heads = (double)m->info.num_attention_heads;
    w->kv_heads = (double)m->info.num_key_value_heads;
    w->head_dim = (double)m->info.head_dim;
    w->v_head_dim = (double)m->info.v_head_dim;
    w->layers = (double)m->info.num_hidden_layers;
    if (m->swa_num_key_value_heads.set) {
        w->swa_layers = (double)m->swa_ids.count;
        w->swa_kv_heads = (double)m->swa_num_key_value_heads.value;
        w->swa_head_dim = (double)m->swa_head_dim;
        w->swa_v_head_dim = (double)m->swa_v_head_dim;
    }
    w->vocab = (double)m->info.vocab_size;
    w->tied_embeddings = kvplan__hbool(v, "tie_word_embeddings");
    /* sglang's reward and classification classes: the body and a score */
    const char *arch = m->info.architecture ? m->info.architecture : "";
    w->score_head = strstr(arch, "ForSequenceClassification") != NULL ||
                    strstr(arch, "ForRewardModel") != NULL;
    w->score_mlp = strcmp(arch, "Qwen2ForRewardModel") == 0
                       ? (double)m->info.hidden_size
                       : 0;
    w->attention_bias = json_is_true(kvplan__tget(v, "attention_bias")) ||
                        strncmp(m->model_type, "qwen2", 5) == 0;
    w->q_lora = (double)kvplan__tint_or(v, "q_lora_rank", 0);
    w->is_mla = m->info.is_mla;
    if (w->is_mla) {
        w->kv_lora = (double)m->kv_lora_rank.value;
        w->rope = (double)m->qk_rope_head_dim.value;
        w->nope =
            m->qk_nope_head_dim.set ? (double)m->qk_nope_head_dim.value : 128;
    }
    w->is_dsa = m->info.is_deepseek_dsa;
    if (w->is_dsa) {
        w->index_heads = (double)kvplan__tint_or(v, "index_n_heads", 64);
        w->index_head_dim = m->dsa_index_head_dim.set
                                ? (double)m->dsa_index_head_dim.value
                                : 128;
    }
    /* hidden_size >= 0 (derive.c): 4 x it stays an int64 */
    int64_t inter = kvplan__tint_or(
        v, "intermediate_size",
        m->info.hidden_size < INT64_MAX / 4 ? 4 * m->info.hidden_size : 0);
    w->inter = (double)inter;
    w->mlp_mats = (m->traits & KVPLAN__ARCH_MLP_FC) ? 2 : 3;
    w->experts = (double)kvplan__tint_or(
        v, "n_routed_experts",
        kvplan__tint_or(v, "num_experts",
                        kvplan__tint_or(v, "num_local_experts", 0)));
    int64_t moe_inter = kvplan__tint_or(v, "moe_intermediate_size", inter);
    w->moe_inter = (double)moe_inter;
    /* Qwen2-MoE and its heirs name one shared expert by its size alone */
    int64_t shared_size = kvplan__tint_or(
        v, "shared_expert_intermediate_size",
        kvplan__tint_or(v, "moe_shared_expert_intermediate_size", 0));
    /* Llama 4's MoE layers each have one shared expert of the experts'
     * size, which its config does not name (transformers'
     * Llama4TextMoe.shared_expert; sglang's Llama4MoE) */
    bool llama4 = strcmp(m->model_type, "llama4_text") == 0;
    w->shared = (double)kvplan__tint_or(v, "n_shared_experts",
                                        shared_size > 0 || llama4 ? 1 : 0);
    w->shared_inter = (double)(shared_size > 0 ? shared_size : moe_inter);
    w->first_dense = (double)kvplan__tint_or(v, "first_k_dense_replace", 0);
    /* MiMo: moe_layer_freq lists each layer, 0 for a dense one; the dense
     * ones are counted as leading (they are: [0, 1, 1, ...]) */
    const json_t *freq = kvplan__tget(v, "moe_layer_freq");
    if (json_is_array(freq) && json_array_size(freq) > 0) {
        size_t i;
        const json_t *e;
        w->first_dense = 0;
        json_array_foreach(freq, i, e) w->first_dense +=
            json_is_integer(e) && json_integer_value(e) == 0;
    }
    w->moe_step = kvplan__tint_or(v, "interleave_moe_layer_step", 1);
    w->inter_mlp = (double)kvplan__tint_or(v, "intermediate_size_mlp", inter);
    /* Gemma 4: a dense MLP beside the experts in every layer, and the
     * full layers' keys are their values (transformers' Gemma4 text
     * classes: enable_moe_block, attention_k_eq_v) */
    w->moe_with_mlp = json_is_true(kvplan__tget(v, "enable_moe_block"));
    w->full_k_eq_v = json_is_true(kvplan__tget(v, "attention_k_eq_v"));
    w->o_lora = (double)kvplan__tint_or(v, "o_lora_rank", 0);
    w->o_groups = (double)kvplan__tint_or(v, "o_groups", 1);
    w->attn_layers = -1;
    read_block_configs(v, w);
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
 * (Qwen3 Next / 3.5), before TP. Sizes that overflow int64, or make one
 * request's state beyond 10^18 bytes (an exabyte), are refused naming the
 * first size: a state left at 0 would price none, an absurd plan. */
static kvplan_status read_mamba(kvplan_model *m, const kvplan__view *v)
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
        const char *cache = kvplan__tstr(v, "mamba_ssm_cache_dtype");
        s->vllm_ssm_from_config = true;
        s->vllm_ssm_size =
            cache == NULL                   ? 0
            : strcmp(cache, "float32") == 0 ? 4
            : strcmp(cache, "float16") == 0 || strcmp(cache, "bfloat16") == 0
                ? 2
                : -1; /* refused by vLLM's plan */
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
    double state = kvplan__mamba_per_request(s, 1);
    if (ovf || !(state <= 1e18)) {
        bool gdn = strcmp(mt, "nemotron_h") != 0;
        memset(s, 0, sizeof *s);
        return kvplan__fail_at(
            v->err, KVPLAN_OVERFLOW, v, true,
            gdn ? "linear_num_key_heads" : "mamba_num_heads",
            "the %s sizes (%s) make one request's state %s: no model's "
            "state is that large; check them",
            gdn ? "Gated DeltaNet" : "Mamba2",
            gdn ? "linear_num_key_heads, linear_num_value_heads, "
                  "linear_key_head_dim, linear_value_head_dim, "
                  "linear_conv_kernel_dim"
                : "mamba_num_heads, mamba_head_dim, n_groups, "
                  "ssm_state_size, conv_kernel",
            ovf ? "overflow 64 bits" : "beyond 10^18 bytes");
    }
    return KVPLAN_OK;
}

/* The sizes the weight estimate multiplies: none may be negative. */
static kvplan_status check_sizes(const kvplan__view *v)
{
    static const char *const keys[] = {"intermediate_size",
                                       "moe_intermediate_size",
                                       "n_routed_experts",
                                       "num_experts",
                                       "num_local_experts",
                                       "n_shared_experts",
                                       "shared_expert_intermediate_size",
                                       "moe_shared_expert_intermediate_size",
                                       "q_lora_rank",
                                       "first_k_dense_replace",
                                       "intermediate_size_mlp",
                                       "index_n_heads",
                                       "mamba_num_heads",
                                       "mamba_head_dim",
                                       "n_groups",
                                       "ssm_state_size",
                                       "moe_latent_size",
                                       "linear_num_key_heads",
                                       "linear_num_value_heads",
                                       "linear_key_head_dim",
                                       "linear_value_head_dim",
                                       "conv_kernel",
                                       "linear_conv_kernel_dim",
                                       "qk_rope_head_dim",
                                       "qk_nope_head_dim",
                                       "v_head_dim",
                                       "kv_lora_rank",
                                       "o_lora_rank",
                                       "o_groups"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const json_t *x = kvplan__tget(v, keys[i]);
        if (json_is_integer(x) && json_integer_value(x) < 0)
            return kvplan__fail_at(v->err, KVPLAN_PARSE, v, true, keys[i],
                                   "expected a non-negative integer, got "
                                   "%lld",
                                   (long long)json_integer_value(x));
    }
    return KVPLAN_OK;
}

kvplan_status kvplan__derive_shapes(kvplan_model *m, const kvplan__view *v)
{
    kvplan_status st = check_sizes(v);
    if (st != KVPLAN_OK)
        return st;
    read_weights(m, v);
    read_vision(m, v);
    if ((st = read_mamba(m, v)) != KVPLAN_OK)
        return st;
    kvplan__weight_shape *w = &m->weights;
    const char *mt = m->model_type;
    if (strcmp(mt, "qwen3_next") == 0 || strncmp(mt, "qwen3_5", 7) == 0) {
        /* Gated DeltaNet layers: every layer but the attention ones */
        w->gdn_layers = (double)m->mamba.layers;
        w->gdn_k_heads = (double)kvplan__tint_or(v, "linear_num_key_heads", 0);
        w->gdn_v_heads =
            (double)kvplan__tint_or(v, "linear_num_value_heads", 0);
        w->gdn_k_dim = (double)kvplan__tint_or(v, "linear_key_head_dim", 0);
        w->gdn_v_dim = (double)kvplan__tint_or(v, "linear_value_head_dim", 0);
    }
    return KVPLAN_OK;
}
