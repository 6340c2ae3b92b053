/*
 * derive.c: what sglang's ModelConfig derives from config.json alone
 * (docs/sglang-rules.md §1): the text config (§1.1), dtype (§1.2), head
 * dims and the per-architecture overrides (§1.3), KV heads (§1.4), layer
 * counts (§1.6), context length (§1.8), the hybrid SWA and mamba
 * predicates (§1.9, §1.10), and the DSA / DSV4 / MiniMax predicates
 * (§2.1-2.3). Class-specific rules come from the registry (arch.c).
 */
#include "model/model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* §1.2: the config dtype, then --dtype auto. */
static kvplan_dtype config_dtype(const kvplan__view *v)
{
    const json_t *x = kvplan__tget(v, "dtype");
    if (x == NULL)
        x = kvplan__tget(v, "torch_dtype");
    if (x == NULL && v->text != v->top) {
        /* the parent's dtype is copied into a sub-config without one */
        x = kvplan__get(v->top, "dtype");
        if (x == NULL)
            x = kvplan__get(v->top, "torch_dtype");
    }
    const char *s = json_is_string(x) ? json_string_value(x) : "";
    if (strcmp(s, "half") == 0 || strcmp(s, "float16") == 0)
        return KVPLAN_DTYPE_FLOAT16;
    if (strcmp(s, "bfloat16") == 0)
        return KVPLAN_DTYPE_BFLOAT16;
    return KVPLAN_DTYPE_FLOAT32; /* float, float32, unknown or missing */
}

static kvplan_dtype auto_dtype(const kvplan_model *m, kvplan_dtype config,
                               const kvplan__view *v)
{
    /* model overrides: gpt-oss with mxfp4 weights and MistralLarge3 run in
     * bf16 */
    const json_t *q = kvplan__hget(v, "quantization_config");
    const char *method = json_string_value(kvplan__get(q, "quant_method"));
    if (((m->traits & KVPLAN__ARCH_BF16_IF_MXFP4) && method != NULL &&
         strcmp(method, "mxfp4") == 0) ||
        (m->traits & KVPLAN__ARCH_BF16))
        return KVPLAN_DTYPE_BFLOAT16;
    if (config == KVPLAN_DTYPE_FLOAT32)
        return strncmp(m->model_type, "gemma", 5) == 0 ? KVPLAN_DTYPE_BFLOAT16
                                                       : KVPLAN_DTYPE_FLOAT16;
    return config;
}

/* §1.8: the context length sglang derives. */
static kvplan_status derive_context_len(const kvplan__view *v, int64_t *out)
{
    const json_t *rope = kvplan__tget(v, "rope_scaling");
    if (rope == NULL)
        rope = kvplan__tget(v, "rope_parameters"); /* transformers v5's name */
    double factor = 1.0;
    /* transformers 5 keeps Gemma3's rope per layer type: no top factor */
    bool per_layer_type =
        v->model_type != NULL && (strcmp(v->model_type, "gemma3_text") == 0 ||
                                  strcmp(v->model_type, "gemma3") == 0);
    if (json_is_object(rope) && json_object_size(rope) > 0 && !per_layer_type) {
        const json_t *f = kvplan__get(rope, "factor");
        if (json_is_number(f))
            factor = json_number_value(f);
        const char *type = json_string_value(kvplan__get(rope, "rope_type"));
        if (json_object_get(rope, "original_max_position_embeddings") ||
            (type != NULL && strcmp(type, "llama3") == 0))
            factor = 1.0;
    }
    static const char *const keys[] = {"max_sequence_length",
                                       "seq_length",
                                       "max_seq_len",
                                       "model_max_length",
                                       "max_position_embeddings",
                                       NULL};
    kvplan_opt_int x;
    const char *key;
    kvplan_status st = kvplan__first_int(v, keys, &x, &key);
    if (st != KVPLAN_OK)
        return st;
    if (x.set) {
        bool ovf = false;
        *out = kvplan__trunc(factor * kvplan__to_double(x.value), &ovf);
        if (ovf || *out <= 0)
            return kvplan__fail_at(
                v->err, KVPLAN_PARSE, v, true, key,
                "the context length it gives is out of range");
        return KVPLAN_OK;
    }
    *out = 2048;
    return KVPLAN_OK;
}

/* §1.4: get_total_num_kv_heads. */
static kvplan_status derive_kv_heads(const kvplan__view *v, int64_t attn_heads,
                                     int64_t *out)
{
    const char *mt = v->model_type ? v->model_type : "";
    if (json_is_true(kvplan__tget(v, "multi_query")) &&
        !json_is_true(kvplan__tget(v, "new_decoder_architecture"))) {
        *out = 1;
        return KVPLAN_OK;
    }
    if (strcmp(mt, "nemotron-nas") == 0) {
        /* the one value of heads // n_heads_in_group over attention blocks */
        const json_t *blocks = kvplan__tget(v, "block_configs");
        int64_t found = 0;
        size_t i;
        const json_t *b;
        json_array_foreach(blocks, i, b)
        {
            const json_t *g =
                kvplan__get(kvplan__get(b, "attention"), "n_heads_in_group");
            if (!json_is_integer(g) || json_integer_value(g) <= 0)
                continue; /* a no-op attention block */
            int64_t heads = attn_heads / (int64_t)json_integer_value(g);
            if (found != 0 && heads != found)
                return kvplan__fail_at(
                    v->err, KVPLAN_UNSUPPORTED, v, true, "block_configs",
                    "KV heads differ between layers (%lld and "
                    "%lld); sglang needs one value",
                    (long long)found, (long long)heads);
            found = heads;
        }
        if (found == 0)
            return kvplan__fail_at(v->err, KVPLAN_PARSE, v, true,
                                   "block_configs", "no block with attention");
        *out = found;
        return KVPLAN_OK;
    }
    static const char *const keys[] = {"n_head_kv",
                                       "num_kv_heads",
                                       "num_key_value_heads",
                                       "multi_query_group_num",
                                       "num_attention_groups",
                                       NULL};
    kvplan_opt_int x;
    const char *key;
    kvplan_status st = kvplan__first_int(v, keys, &x, &key);
    if (st != KVPLAN_OK)
        return st;
    if (x.set) {
        if (x.value <= 0)
            return kvplan__fail_at(v->err, KVPLAN_PARSE, v, true, key,
                                   "expected a positive integer, got %lld",
                                   (long long)x.value);
        *out = x.value;
        return KVPLAN_OK;
    }
    *out = attn_heads;
    return KVPLAN_OK;
}

/* §1.3 and §1.5: head dims and the per-architecture overrides. */
static kvplan_status derive_dims(kvplan_model *m, const kvplan__view *v)
{
    kvplan_status st;
    kvplan_opt_int hd, vhd, shd, svhd;
    if ((st = kvplan__tint(v, "head_dim", &hd)) != KVPLAN_OK ||
        (st = kvplan__tint(v, "v_head_dim", &vhd)) != KVPLAN_OK ||
        (st = kvplan__tint(v, "swa_head_dim", &shd)) != KVPLAN_OK ||
        (st = kvplan__tint(v, "swa_v_head_dim", &svhd)) != KVPLAN_OK)
        return st;
    int64_t head_dim =
        hd.set ? hd.value : m->info.hidden_size / m->info.num_attention_heads;
    int64_t v_head_dim = (vhd.set && vhd.value) ? vhd.value : head_dim;
    m->swa_head_dim = (shd.set && shd.value) ? shd.value : head_dim;
    m->swa_v_head_dim = (svhd.set && svhd.value) ? svhd.value : m->swa_head_dim;
    const char *a = m->arch;
    const char *top_type = json_string_value(kvplan__get(v->top, "model_type"));
    if (top_type != NULL && strncmp(top_type, "gemma4", 6) == 0) {
        /* Gemma4: the SWA layers keep the config's dims and heads; the
         * global layers take global_head_dim and num_global_kv_heads */
        kvplan_opt_int ghd, gkv;
        if ((st = kvplan__tint(v, "global_head_dim", &ghd)) != KVPLAN_OK ||
            (st = kvplan__tint(v, "num_global_key_value_heads", &gkv)) !=
                KVPLAN_OK)
            return st;
        m->swa_head_dim = m->swa_v_head_dim = head_dim;
        m->swa_num_key_value_heads =
            (kvplan_opt_int){m->info.num_key_value_heads, true};
        if (ghd.set)
            head_dim = ghd.value;
        if (gkv.set)
            m->info.num_key_value_heads = gkv.value;
        v_head_dim = (vhd.set && vhd.value) ? vhd.value : head_dim;
    }
    bool mla = (m->traits & KVPLAN__ARCH_MLA) ||
               ((m->traits & KVPLAN__ARCH_MLA_IF_LORA) &&
                kvplan__tget(v, "kv_lora_rank") != NULL);
    if (m->traits & KVPLAN__ARCH_DSV4) {
        /* DeepSeek V4: head_dim = nope + rope, the window is
         * sliding_window, one compress ratio per layer */
        kvplan_opt_int rope, window, ihd;
        if ((st = kvplan__tint(v, "qk_rope_head_dim", &rope)) != KVPLAN_OK ||
            (st = kvplan__tint(v, "sliding_window", &window)) != KVPLAN_OK ||
            (st = kvplan__tint(v, "index_head_dim", &ihd)) != KVPLAN_OK)
            return st;
        if (!rope.set || !hd.set || rope.value < 0 || hd.value < 0 ||
            rope.value > hd.value)
            return kvplan__fail_at(
                v->err, KVPLAN_PARSE, v, true, "qk_rope_head_dim",
                "DeepSeek V4 needs head_dim and 0 <= qk_rope_head_dim "
                "<= head_dim");
        m->qk_rope_head_dim = rope;
        m->qk_nope_head_dim = (kvplan_opt_int){hd.value - rope.value, true};
        m->dsv4_window_size = window;
        m->dsv4_index_head_dim = ihd;
        head_dim = v_head_dim = hd.value;
        const json_t *ratios = kvplan__tget(v, "compress_ratios");
        if (!json_is_array(ratios))
            return kvplan__fail_at(v->err, KVPLAN_PARSE, v, true,
                                   "compress_ratios",
                                   "expected an array, one ratio per layer");
        size_t n = json_array_size(ratios);
        if ((st = kvplan__alloc_ids(&m->compress_ratios, n, v->err)) !=
            KVPLAN_OK)
            return st;
        for (size_t i = 0; i < n; i++) {
            const json_t *r = json_array_get(ratios, i);
            if (!json_is_integer(r)) {
                char key[48];
                snprintf(key, sizeof key, "compress_ratios/%zu", i);
                return kvplan__fail_at(v->err, KVPLAN_PARSE, v, true, key,
                                       "expected an integer (0, 4 or 128)");
            }
            m->compress_ratios.ids[i] = (int64_t)json_integer_value(r);
        }
    } else if (mla) {
        m->info.is_mla = true;
        if ((st = kvplan__tint(v, "kv_lora_rank", &m->kv_lora_rank)) !=
                KVPLAN_OK ||
            (st = kvplan__tint(v, "qk_rope_head_dim", &m->qk_rope_head_dim)) !=
                KVPLAN_OK ||
            (st = kvplan__tint(v, "qk_nope_head_dim", &m->qk_nope_head_dim)) !=
                KVPLAN_OK)
            return st;
        if (!m->kv_lora_rank.set)
            return kvplan__fail_at(v->err, KVPLAN_PARSE, v, true,
                                   "kv_lora_rank",
                                   "required for the MLA architecture %s, but "
                                   "absent",
                                   a);
        if (!m->qk_rope_head_dim.set)
            return kvplan__fail_at(v->err, KVPLAN_PARSE, v, true,
                                   "qk_rope_head_dim",
                                   "required for the MLA architecture %s, but "
                                   "absent",
                                   a);
        /* sglang's nominal head_dim for MLA (not used for the KV cell) */
        const kvplan__arch *row = kvplan__arch_find(a);
        int64_t nominal = row != NULL ? row->mla_head_dim : 0;
        if (nominal == KVPLAN__MLA_HEAD_DIM_ROPE_NOPE)
            head_dim =
                m->qk_rope_head_dim.value +
                (m->qk_nope_head_dim.set ? m->qk_nope_head_dim.value : 0);
        else if (nominal != KVPLAN__MLA_HEAD_DIM_CONFIG)
            head_dim = nominal > 0 ? nominal : 256;
    }
    m->info.head_dim = head_dim;
    m->info.v_head_dim = v_head_dim;
    return KVPLAN_OK;
}

/* Picks hf_text_config (§1.1) and sets the kvplan__view. */
static kvplan_status select_text_config(kvplan__view *v, const char *arch)
{
    v->text = v->top;
    v->text_path[0] = '\0';
    if (arch != NULL && strncmp(arch, "Llava", 5) == 0 &&
        strstr(arch, "ForCausalLM") != NULL)
        return KVPLAN_OK;
    const json_t *thinker = kvplan__get(v->top, "thinker_config");
    if (json_is_object(thinker)) {
        const json_t *inner = kvplan__get(thinker, "text_config");
        v->text = json_is_object(inner) ? inner : thinker;
        snprintf(v->text_path, sizeof v->text_path, "%s",
                 json_is_object(inner) ? "/thinker_config/text_config"
                                       : "/thinker_config");
        return KVPLAN_OK;
    }
    static const char *const subs[] = {"llm_config", "language_config",
                                       "text_config"};
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++) {
        const json_t *x = kvplan__get(v->top, subs[i]);
        if (x == NULL)
            continue;
        if (!json_is_object(x))
            return kvplan__fail_at(v->err, KVPLAN_PARSE, v, false, subs[i],
                                   "expected an object");
        v->text = x;
        snprintf(v->text_path, sizeof v->text_path, "/%s", subs[i]);
        return KVPLAN_OK;
    }
    return KVPLAN_OK;
}

/* Everything that depends on the config alone. */
/* architectures[0] (or the model type's class), the model type, the
 * class's traits; a class sglang cannot serve refused. */
static kvplan_status derive_architecture(kvplan_model *m, kvplan__view *v,
                                         const json_t *root,
                                         const json_t **archs_out)
{
    kvplan_error *err = v->err;
    /* architectures[0], from the top (or copied up from the text config) */
    const json_t *archs = kvplan__get(root, "architectures");
    const char *arch = NULL;
    if (archs != NULL) {
        if (!json_is_array(archs) || json_array_size(archs) == 0 ||
            !json_is_string(json_array_get(archs, 0)))
            return kvplan__fail(err, KVPLAN_PARSE, "/architectures",
                                "/architectures: expected a non-empty array "
                                "of class names");
        arch = json_string_value(json_array_get(archs, 0));
    }
    kvplan_status st = select_text_config(v, arch);
    if (st != KVPLAN_OK)
        return st;
    const char *mt = kvplan__tstr(v, "model_type");
    if (mt == NULL)
        mt = json_string_value(kvplan__get(root, "model_type"));
    v->model_type = mt;
    if (arch == NULL) {
        arch = kvplan__arch_for_model_type(mt);
        if (arch == NULL)
            return kvplan__fail(err, KVPLAN_PARSE, "/architectures",
                                "/architectures: required (sglang picks the "
                                "model class from it), but absent");
    }
    if ((m->arch = kvplan__dup_str(arch)) == NULL ||
        (m->model_type = kvplan__dup_str(mt ? mt : "")) == NULL)
        return kvplan__fail(err, KVPLAN_NOMEM, NULL, "out of memory");
    m->info.architecture = m->arch;
    m->info.model_type = m->model_type;
    const kvplan__arch *row = kvplan__arch_find(arch);
    m->traits = row != NULL ? row->traits : 0;
    m->swa_layout = row != NULL ? row->swa_layout : KVPLAN__SWA_FROM_CONFIG;
    m->info.is_draft_only = strstr(arch, "Eagle") != NULL &&
                            !(m->traits & KVPLAN__ARCH_EAGLE_TARGET);
    if (!m->info.is_draft_only && !(m->traits & KVPLAN__ARCH_SUPPORTED))
        return kvplan__fail(err, KVPLAN_UNSUPPORTED, "/architectures",
                            "/architectures: %s is not an architecture "
                            "kvplan can plan (sglang has no model class for "
                            "it at the reference version)%s",
                            arch,
                            row != NULL && row->refusal ? row->refusal : "");

    *archs_out = archs;
    return KVPLAN_OK;
}

/* Heads, layers, the hidden and vocabulary sizes, the KV heads and the
 * head dimensions. */
static kvplan_status derive_counts(kvplan_model *m, kvplan__view *v,
                                   const char *mt)
{
    kvplan_error *err = v->err;
    kvplan_status st;
    /* heads and layers */
    int64_t heads, layers;
    if ((st = kvplan__tcount(v, "num_attention_heads", &heads)) != KVPLAN_OK)
        return st;
    m->info.num_attention_heads = heads;
    kvplan_opt_int hidden, vocab;
    if ((st = kvplan__tint(v, "hidden_size", &hidden)) != KVPLAN_OK ||
        (st = kvplan__tint(v, "vocab_size", &vocab)) != KVPLAN_OK)
        return st;
    if (hidden.set && hidden.value < 0)
        return kvplan__fail_at(err, KVPLAN_PARSE, v, true, "hidden_size",
                               "expected a non-negative integer, got %lld",
                               (long long)hidden.value);
    if (vocab.set && vocab.value < 0)
        return kvplan__fail_at(err, KVPLAN_PARSE, v, true, "vocab_size",
                               "expected a non-negative integer, got %lld",
                               (long long)vocab.value);
    m->info.hidden_size = hidden.set ? hidden.value : 0;
    m->info.vocab_size = vocab.set ? vocab.value : 0;
    if (strcmp(mt ? mt : "", "nemotron_h") == 0 &&
        kvplan__tget(v, "num_hidden_layers") == NULL) {
        /* Nemotron-H: the layer stack is the pattern */
        const json_t *p = kvplan__tget(v, "hybrid_override_pattern");
        const json_t *b = kvplan__tget(v, "layers_block_type");
        layers = json_is_string(p) ? (int64_t)json_string_length(p)
                                   : (int64_t)json_array_size(b);
        if (layers == 0)
            return kvplan__fail_at(err, KVPLAN_PARSE, v, true,
                                   "num_hidden_layers", "required, but absent");
    } else if ((st = kvplan__tcount(v, "num_hidden_layers", &layers)) !=
               KVPLAN_OK) {
        return st;
    }
    /* per-layer lists are allocated: refuse counts no model has */
    if (layers > KVPLAN__MAX_LAYERS)
        return kvplan__fail_at(err, KVPLAN_PARSE, v, true, "num_hidden_layers",
                               "expected at most %d layers, got %lld",
                               KVPLAN__MAX_LAYERS, (long long)layers);
    m->info.num_hidden_layers = layers;
    m->num_attention_layers = (m->traits & KVPLAN__ARCH_TWO_ATTENTION_PER_LAYER)
                                  ? 2 * layers
                                  : layers;
    if ((st = kvplan__tint(v, "num_nextn_predict_layers",
                           &m->info.num_nextn_predict_layers)) != KVPLAN_OK)
        return st;
    if (!hidden.set && kvplan__tget(v, "head_dim") == NULL)
        return kvplan__fail_at(err, KVPLAN_PARSE, v, true, "head_dim",
                               "required when hidden_size is absent");
    if ((st = derive_kv_heads(v, heads, &m->info.num_key_value_heads)) !=
        KVPLAN_OK)
        return st;
    kvplan_opt_int swa_kv;
    if ((st = kvplan__tint(v, "swa_num_key_value_heads", &swa_kv)) != KVPLAN_OK)
        return st;
    const json_t *other = kvplan__tget(v, "attention_other_setting");
    if (!swa_kv.set &&
        json_is_integer(kvplan__get(other, "num_attention_groups")))
        swa_kv = (kvplan_opt_int){(int64_t)json_integer_value(kvplan__get(
                                      other, "num_attention_groups")),
                                  true};
    m->swa_num_key_value_heads = swa_kv;
    if ((st = derive_dims(m, v)) != KVPLAN_OK)
        return st;

    return KVPLAN_OK;
}

/* DeepSeek's DSA and MiniMax's sparse attention, with what they read. */
static kvplan_status derive_sparse(kvplan_model *m, kvplan__view *v)
{
    kvplan_error *err = v->err;
    kvplan_status st;
    /* predicates */
    m->info.is_deepseek_v4 = (m->traits & KVPLAN__ARCH_DSV4) != 0;
    m->info.is_deepseek_dsa =
        (m->traits & KVPLAN__ARCH_DSA) && kvplan__hget(v, "index_topk") != NULL;
    m->dsa_dtype_arch = (m->traits & KVPLAN__ARCH_DSA_DTYPE) &&
                        kvplan__hget(v, "index_topk") != NULL;
    if (m->info.is_deepseek_dsa) {
        if ((st = kvplan__tint(v, "index_head_dim", &m->dsa_index_head_dim)) !=
            KVPLAN_OK)
            return st;
        if (!m->dsa_index_head_dim.set)
            return kvplan__fail_at(
                err, KVPLAN_PARSE, v, true, "index_head_dim",
                "required for DeepSeek DSA (index_topk is set), "
                "but absent");
        if ((st = kvplan__derive_dsa_topk(m, v)) != KVPLAN_OK)
            return st;
    }
    m->info.is_minimax_sparse = (m->traits & KVPLAN__ARCH_MINIMAX_SPARSE) != 0;
    if (m->info.is_minimax_sparse &&
        (st = kvplan__derive_minimax(m, v)) != KVPLAN_OK)
        return st;

    return KVPLAN_OK;
}

/* Hybrid SWA (§1.9) and the sliding windows a config names. */
static kvplan_status derive_windows(kvplan_model *m, kvplan__view *v,
                                    const json_t *archs)
{
    kvplan_error *err = v->err;
    kvplan_status st;
    /* hybrid SWA (§1.9) */
    bool hybrid = false;
    for (size_t i = 0; i < json_array_size(archs); i++) {
        const char *x = json_string_value(json_array_get(archs, i));
        uint32_t t = kvplan__arch_traits(x);
        hybrid |= (t & KVPLAN__ARCH_HYBRID_SWA) != 0;
        hybrid |= (t & KVPLAN__ARCH_HYBRID_SWA_IF_FLAG) &&
                  json_is_true(kvplan__tget(v, "sliding_window"));
    }
    hybrid |= json_is_true(kvplan__tget(v, "is_hybrid_swa"));
    m->info.is_hybrid_swa = hybrid;
    m->hybrid_swa_compress = (m->traits & KVPLAN__ARCH_SWA_OWN_GEOMETRY) != 0;
    if (hybrid && !m->info.is_deepseek_v4 &&
        (st = kvplan__derive_swa_ids(m, v)) != KVPLAN_OK)
        return st;
    kvplan_opt_int sw, sws, ws, chunk;
    if ((st = kvplan__tint(v, "sliding_window", &sw)) != KVPLAN_OK ||
        (st = kvplan__tint(v, "sliding_window_size", &sws)) != KVPLAN_OK ||
        (st = kvplan__tint(v, "window_size", &ws)) != KVPLAN_OK ||
        (st = kvplan__tint(v, "attention_chunk_size", &chunk)) != KVPLAN_OK)
        return st;
    if ((m->traits & KVPLAN__ARCH_WINDOW_MINUS_ONE) && sw.set &&
        !((m->traits & KVPLAN__ARCH_WINDOW_IF_POSITIVE) && sw.value <= 0)) {
        bool ovf = false;
        m->class_window =
            (kvplan_opt_int){kvplan__sub(sw.value, 1, &ovf), true};
        if (ovf)
            return kvplan__fail_at(err, KVPLAN_PARSE, v, true, "sliding_window",
                                   "expected a window size, got %lld",
                                   (long long)sw.value);
    }
    m->config_window = sws.set ? sws : sw.set ? sw : ws;
    m->attention_chunk_size = chunk;
    if (!hybrid && !m->info.is_deepseek_v4 && sw.set &&
        (st = kvplan__derive_hf_swa_ids(m, v, sw.value)) != KVPLAN_OK)
        return st;

    return KVPLAN_OK;
}

static kvplan_status derive_all(kvplan_model *m, const json_t *root,
                                kvplan_error *err, char *nonfinite)
{
    kvplan__view v;
    memset(&v, 0, sizeof v);
    v.top = root;
    v.err = err;
    v.nonfinite = nonfinite;
    if (!json_is_object(root))
        return kvplan__fail(err, KVPLAN_PARSE, "",
                            "a config.json must hold a JSON object");
    if (kvplan__get(root, "dim") && kvplan__get(root, "n_layers") &&
        !kvplan__get(root, "architectures") && !kvplan__get(root, "model_type"))
        return kvplan__fail(
            err, KVPLAN_PARSE, "",
            "this is not a Hugging Face config.json: it holds DeepSeek's "
            "reference-inference ModelArgs (dim, n_layers, n_heads, ...); "
            "use the config.json of the model's Hugging Face repository");

    const json_t *archs = NULL;
    kvplan_status st = derive_architecture(m, &v, root, &archs);
    if (st != KVPLAN_OK ||
        (st = derive_counts(m, &v, v.model_type)) != KVPLAN_OK ||
        (st = derive_sparse(m, &v)) != KVPLAN_OK ||
        (st = derive_windows(m, &v, archs)) != KVPLAN_OK)
        return st;
    int64_t layers = m->info.num_hidden_layers;
    bool mambaish;
    if ((st = kvplan__derive_mambaish(m, &v, &mambaish)) != KVPLAN_OK)
        return st;
    m->info.is_mambaish = mambaish;

    /* context, dtype, quantization */
    if ((st = derive_context_len(&v, &m->info.context_len)) != KVPLAN_OK)
        return st;
    m->info.dtype = auto_dtype(m, config_dtype(&v), &v);
    const json_t *q = kvplan__hget(&v, "quantization_config");
    const char *method = json_string_value(kvplan__get(q, "quant_method"));
    const char *kv_algo =
        json_string_value(kvplan__get(q, "kv_cache_quant_algo"));
    m->kv_fp8_quant =
        method != NULL && strcmp(method, "modelopt") == 0 && kv_algo != NULL &&
        (strcmp(kv_algo, "FP8") == 0 || strcmp(kv_algo, "fp8") == 0);
    m->self_draft = (m->traits & KVPLAN__ARCH_SELF_DRAFT) != 0;

    if ((st = kvplan__derive_shapes(m, &v)) != KVPLAN_OK)
        return st;

    /* the layers that hold a KV cache, all stages together */
    m->info.num_kv_layers =
        mambaish ? (int64_t)m->mamba_full_ids.count
        : m->info.is_minimax_sparse
            ? (int64_t)(m->minimax_dense.count + m->minimax_sparse.count)
            : kvplan__max(layers, m->num_attention_layers);
    return KVPLAN_OK;
}

kvplan_status kvplan__derive(kvplan_model *m, const json_t *root,
                             kvplan_error *err)
{
    char nonfinite[KVPLAN__NONFINITE_SIZE] = "";
    kvplan_status st = derive_all(m, root, err, nonfinite);
    if (nonfinite[0] == '\0' || st == KVPLAN_NOMEM)
        return st;
    /* a field read held NaN or an infinity: sglang's int() or arithmetic
     * fails on it, and a default would be a silent guess */
    const char *colon = strchr(nonfinite, ':');
    char field[128];
    snprintf(field, sizeof field, "%.*s", (int)(colon - nonfinite), nonfinite);
    return kvplan__fail(err, KVPLAN_PARSE, field, "%s", nonfinite);
}
