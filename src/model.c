/*
 * model.c: a Hugging Face config.json read the way sglang reads it, and the
 * per-rank facts sglang's ModelConfig and ModelRunner derive from it and the
 * server flags (spec §1, "../shared/spec/sglang-semantics.md").
 *
 * Loading derives everything that depends on the config alone (text config,
 * dims, heads, layer ids, context length, predicates); kvplan_model_rank()
 * then applies the serving flags for one pipeline stage. jansson is used
 * here and nowhere else in the library.
 *
 * Sources, by spec section: text config and copy-up §1.1, dtype §1.2, dims
 * and per-architecture overrides §1.3, KV heads §1.4, layer counts and PP
 * §1.6-1.7, context length §1.8, hybrid SWA §1.9, mamba hybrids §1.10,
 * KV dtype §1.11, draft layers §1.12, parallel sizes §1.13, DSA / DSV4 /
 * MiniMax predicates §2.1-2.3.
 */
#include "catalog.h"
#include "internal.h"
#include "model.h"

#include <jansson.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------------ */
/* The model                                                                 */
/* ------------------------------------------------------------------------ */

/* The most layers kvplan accepts: far above any model, low enough that the
 * per-layer lists stay small. */
#define KVPLAN__MAX_LAYERS (1 << 20)

/* ------------------------------------------------------------------------ */
/* Architecture tables                                                       */
/* ------------------------------------------------------------------------ */

static bool in_list(const char *s, const char *const *list)
{
    for (; s != NULL && *list != NULL; list++)
        if (strcmp(s, *list) == 0)
            return true;
    return false;
}

/* §1.3: attention_arch = MLA. */
static const char *const mla_archs[] = {
    "DeepseekV2ForCausalLM", "DeepseekV32ForCausalLM",
    "DeepseekV3ForCausalLM", "DeepseekV3ForCausalLMNextN",
    "Glm4MoeLiteForCausalLM", "Glm4MoeLiteForCausalLMNextN",
    "GlmMoeDsaForCausalLM", "GlmMoeDsaForCausalLMNextN",
    "LongcatFlashForCausalLM", "LongcatFlashForCausalLMNextN",
    "DotsVLMForCausalLM", "MistralLarge3ForCausalLM",
    "MistralLarge3ForCausalLMEagle", "KimiK25ForConditionalGeneration",
    "Eagle3DeepseekV2ForCausalLM", NULL};

/* §2.1: DSA when architectures[0] is one of these and index_topk is set. */
static const char *const dsa_archs[] = {
    "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM",
    "DeepseekV3ForCausalLMNextN", "MistralLarge3ForCausalLM",
    "PixtralForConditionalGeneration", "GlmMoeDsaForCausalLM",
    "GlmMoeDsaForCausalLMNextN", "LongcatFlashForCausalLM",
    "LongcatFlashForCausalLMNextN", NULL};

/* §1.11: archs whose "auto" KV dtype follows the GPU when DSA. */
static const char *const dsa_dtype_archs[] = {
    "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM",
    "KimiK25ForConditionalGeneration", "MistralLarge3ForCausalLM",
    "PixtralForConditionalGeneration", "GlmMoeDsaForCausalLM",
    "LongcatFlashForCausalLM", NULL};

/* §2.2 */
static const char *const dsv4_archs[] = {
    "DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMNextN",
    "DeepseekV4ForCausalLMDSpark", NULL};

/* §2.3 */
static const char *const minimax_sparse_archs[] = {
    "MiniMaxM3SparseForCausalLM", "MiniMaxM3SparseForConditionalGeneration",
    NULL};

/* §1.9: hybrid SWA by architecture (any entry of architectures). */
static const char *const hybrid_swa_archs[] = {
    "Llama4ForConditionalGeneration", "DeepseekV4ForCausalLM",
    "DeepseekV4ForCausalLMNextN", "DeepseekV4ForCausalLMDSpark",
    "GptOssForCausalLM", "MiMoV2ForCausalLM", "MiMoV2FlashForCausalLM",
    "MiMoV2MTP", "Step3p5ForCausalLM", "Step3p5MTP",
    "Step3p7ForConditionalGeneration", "Gemma4ForCausalLM",
    "Gemma4ForConditionalGeneration",
    "Gemma4UnifiedForConditionalGeneration", "UnlimitedOCRForCausalLM",
    NULL};

/* §1.9: is_hybrid_swa_compress (the SWA pool keeps its own geometry). */
static const char *const hybrid_swa_compress_archs[] = {
    "MiMoV2ForCausalLM", "MiMoV2FlashForCausalLM", "MiMoV2MTP",
    "Gemma4ForCausalLM", "Gemma4ForConditionalGeneration",
    "Gemma4UnifiedForConditionalGeneration", NULL};

/* §1.9 rule 1: model classes whose get_attention_sliding_window_size()
 * returns config.sliding_window - 1. */
static const char *const window_minus_one_archs[] = {
    "GptOssForCausalLM", "Gemma2ForCausalLM", "Gemma3ForCausalLM",
    "Gemma3ForConditionalGeneration", "Gemma3nForCausalLM",
    "Gemma3nForConditionalGeneration", "Gemma4ForCausalLM",
    "Gemma4ForConditionalGeneration",
    "Gemma4UnifiedForConditionalGeneration", "Exaone4ForCausalLM",
    "Olmo2ForCausalLM", "AfmoeForCausalLM", NULL};

/* §1.12: the speculative hook sets the draft path to the model itself. */
static const char *const self_draft_archs[] = {
    "DeepseekV32ForCausalLM", "DeepseekV3ForCausalLM",
    "DeepseekV4ForCausalLM", "Glm4MoeForCausalLM", "Glm4MoeLiteForCausalLM",
    "GlmMoeDsaForCausalLM", "BailingMoeForCausalLM",
    "BailingMoeV2ForCausalLM", "BailingMoeV2_5ForCausalLM",
    "MistralLarge3ForCausalLM", "PixtralForConditionalGeneration",
    "HYV3ForCausalLM", NULL};

/* Architectures sglang serves at the reference commit, as far as kvplan
 * plans them; anything else is refused by name. */
static const char *const supported_archs[] = {
    "LlamaForCausalLM", "MistralForCausalLM", "MixtralForCausalLM",
    "Qwen2ForCausalLM", "Qwen2MoeForCausalLM", "Qwen3ForCausalLM",
    "Qwen3MoeForCausalLM", "Qwen3NextForCausalLM",
    "Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration",
    "Qwen3_5ForCausalLM", "Qwen3_5MoeForCausalLM", "Phi3ForCausalLM",
    "Gemma2ForCausalLM", "Gemma3ForCausalLM",
    "Gemma3ForConditionalGeneration", "Gemma4ForCausalLM",
    "Gemma4ForConditionalGeneration", "CohereForCausalLM",
    "Cohere2ForCausalLM", "DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM",
    "DeepseekV32ForCausalLM", "DeepseekV4ForCausalLM",
    "GlmMoeDsaForCausalLM", "Glm4MoeForCausalLM", "Glm4MoeLiteForCausalLM",
    "KimiK25ForConditionalGeneration", "KimiVLForConditionalGeneration",
    "KimiLinearForCausalLM", "GptOssForCausalLM",
    "Llama4ForConditionalGeneration", "MiMoForCausalLM",
    "MiMoV2FlashForCausalLM", "MiMoV2ForCausalLM", "MiniMaxM2ForCausalLM",
    "MiniMaxM3SparseForCausalLM", "MiniMaxM3SparseForConditionalGeneration",
    "NemotronHForCausalLM", "DeciLMForCausalLM", "FalconH1ForCausalLM",
    "MiniCPM3ForCausalLM", "GraniteMoeHybridForCausalLM", "Lfm2ForCausalLM",
    "Step3p5ForCausalLM", "LongcatFlashForCausalLM",
    "MistralLarge3ForCausalLM", NULL};

/* model_type -> architecture, for copies of configs that dropped the
 * "architectures" key (sglang needs it; transformers does not). */
static const char *const arch_for_model_type[][2] = {
    {"llama", "LlamaForCausalLM"},     {"mistral", "MistralForCausalLM"},
    {"mixtral", "MixtralForCausalLM"}, {"qwen2", "Qwen2ForCausalLM"},
    {"qwen3", "Qwen3ForCausalLM"},     {"phi3", "Phi3ForCausalLM"},
    {NULL, NULL}};

/* ------------------------------------------------------------------------ */
/* Reading the JSON                                                          */
/* ------------------------------------------------------------------------ */

/* The two config objects sglang reads: hf_config (the top) and
 * hf_text_config, with the JSON pointer of the latter for messages. */
typedef struct view {
    const json_t *top;
    const json_t *text;
    char text_path[96]; /* "" for a flat config, else "/text_config" ... */
    const char *model_type;
    kvplan_error *err;
} view;

static kvplan_status fail_at(kvplan_error *err, kvplan_status code,
                             const view *v, bool in_text, const char *key,
                             const char *fmt, ...) KVPLAN_PRINTF(6, 7);

static kvplan_status fail_at(kvplan_error *err, kvplan_status code,
                             const view *v, bool in_text, const char *key,
                             const char *fmt, ...)
{
    char field[128];
    snprintf(field, sizeof field, "%s/%s", in_text ? v->text_path : "",
             key);
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return kvplan__fail(err, code, field, "%s: %s", field, msg);
}

static const json_t *get(const json_t *obj, const char *key)
{
    const json_t *x = obj ? json_object_get(obj, key) : NULL;
    return (x == NULL || json_is_null(x)) ? NULL : x;
}

/* hf_text_config.key */
static const json_t *tget(const view *v, const char *key)
{
    return get(v->text, key);
}

/* hf_config.key, after the copy-up of the text config's attributes. */
static const json_t *hget(const view *v, const char *key)
{
    const json_t *x = get(v->top, key);
    return x ? x : get(v->text, key);
}

static const char *tstr(const view *v, const char *key)
{
    const json_t *x = tget(v, key);
    return json_is_string(x) ? json_string_value(x) : NULL;
}

/*
 * Class defaults of the transformers config classes for keys a config may
 * leave out (only what kvplan reads). Gemma3's text config is the one in
 * the catalog that needs them (gemma-3-4b-it omits its heads).
 */
static bool class_default(const char *model_type, const char *key,
                          int64_t *out)
{
    static const struct {
        const char *model_type, *key;
        int64_t value;
    } defaults[] = {
        {"gemma3_text", "num_attention_heads", 8},
        {"gemma3_text", "num_key_value_heads", 4},
        {"gemma3_text", "head_dim", 256},
        {"gemma3_text", "max_position_embeddings", 131072},
        {"gemma3_text", "sliding_window", 4096},
        {"gemma3_text", "num_hidden_layers", 26},
        {"gemma3_text", "hidden_size", 2304},
        {"gemma3_text", "vocab_size", 262208},
        {"gemma2", "sliding_window", 4096},
        {"gemma2", "max_position_embeddings", 8192},
        {"llama", "max_position_embeddings", 2048},
        {"mistral", "max_position_embeddings", 131072},
        {"mixtral", "max_position_embeddings", 131072},
        {"qwen2", "max_position_embeddings", 32768},
        {"qwen3", "max_position_embeddings", 32768},
        {"phi3", "max_position_embeddings", 4096},
        {"qwen3_next", "full_attention_interval", 4},
        {"qwen3_5_text", "full_attention_interval", 4},
        {"qwen3_5_moe_text", "full_attention_interval", 4},
    };
    if (model_type == NULL)
        return false;
    for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++) {
        if (strcmp(defaults[i].model_type, model_type) == 0 &&
            strcmp(defaults[i].key, key) == 0) {
            *out = defaults[i].value;
            return true;
        }
    }
    return false;
}

/* An integer attribute of the text config: present (with its class default
 * when the file leaves it out) or not. A non-integer is an error. */
static kvplan_status tint(const view *v, const char *key, kvplan_opt_int *out)
{
    const json_t *x = tget(v, key);
    out->set = false;
    if (x == NULL) {
        int64_t d;
        if (class_default(v->model_type, key, &d))
            *out = (kvplan_opt_int){d, true};
        return KVPLAN_OK;
    }
    if (json_is_real(x) && json_real_value(x) == floor(json_real_value(x)) &&
        fabs(json_real_value(x)) < 0x1p53) {
        *out = (kvplan_opt_int){(int64_t)json_real_value(x), true};
        return KVPLAN_OK;
    }
    if (!json_is_integer(x))
        return fail_at(v->err, KVPLAN_PARSE, v, true, key,
                       "expected an integer");
    *out = (kvplan_opt_int){(int64_t)json_integer_value(x), true};
    return KVPLAN_OK;
}

static kvplan_status tint_required(const view *v, const char *key,
                                   int64_t *out)
{
    kvplan_opt_int o;
    kvplan_status st = tint(v, key, &o);
    if (st != KVPLAN_OK)
        return st;
    if (!o.set)
        return fail_at(v->err, KVPLAN_PARSE, v, true, key,
                       "required, but absent");
    if (o.value < 0)
        return fail_at(v->err, KVPLAN_PARSE, v, true, key,
                       "expected a non-negative integer, got %lld",
                       (long long)o.value);
    *out = o.value;
    return KVPLAN_OK;
}

/* A positive count: layers, heads. */
static kvplan_status tcount(const view *v, const char *key, int64_t *out)
{
    kvplan_status st = tint_required(v, key, out);
    if (st == KVPLAN_OK && *out == 0)
        return fail_at(v->err, KVPLAN_PARSE, v, true, key,
                       "expected a positive integer, got 0");
    return st;
}

static kvplan_status alloc_ids(id_list *l, size_t n, kvplan_error *err)
{
    l->ids = n ? malloc(n * sizeof *l->ids) : NULL;
    l->count = n;
    if (n && l->ids == NULL)
        return kvplan__fail(err, KVPLAN_NOMEM, NULL,
                            "out of memory reading the model config");
    return KVPLAN_OK;
}

/* Indices i < limit of an array whose entry satisfies `pick`. */
typedef bool (*picker)(const json_t *entry, const void *arg);

static kvplan_status ids_where(const view *v, const json_t *arr,
                               const char *key, size_t limit, picker pick,
                               const void *arg, id_list *out)
{
    if (!json_is_array(arr))
        return fail_at(v->err, KVPLAN_PARSE, v, true, key,
                       "expected an array");
    size_t n = json_array_size(arr), k = 0;
    if (n > limit)
        n = limit;
    kvplan_status st = alloc_ids(out, n, v->err);
    if (st != KVPLAN_OK)
        return st;
    for (size_t i = 0; i < n; i++)
        if (pick(json_array_get(arr, i), arg))
            out->ids[k++] = (int64_t)i;
    out->count = k;
    return KVPLAN_OK;
}

static bool pick_string(const json_t *e, const void *arg)
{
    return json_is_string(e) && strcmp(json_string_value(e), arg) == 0;
}

static bool pick_int(const json_t *e, const void *arg)
{
    return json_is_integer(e) &&
           json_integer_value(e) == *(const json_int_t *)arg;
}

static bool pick_nonzero(const json_t *e, const void *arg)
{
    (void)arg;
    return json_is_integer(e) ? json_integer_value(e) != 0
                              : json_is_true(e);
}

static bool pick_zero(const json_t *e, const void *arg)
{
    (void)arg;
    return (json_is_integer(e) && json_integer_value(e) == 0) ||
           json_is_false(e);
}

/* ------------------------------------------------------------------------ */
/* Derivations                                                               */
/* ------------------------------------------------------------------------ */

/* §1.2: the config dtype, then --dtype auto. */
static kvplan_dtype config_dtype(const view *v)
{
    const json_t *x = tget(v, "dtype");
    if (x == NULL)
        x = tget(v, "torch_dtype");
    if (x == NULL && v->text != v->top) {
        /* the parent's dtype is copied into a sub-config without one */
        x = get(v->top, "dtype");
        if (x == NULL)
            x = get(v->top, "torch_dtype");
    }
    const char *s = json_is_string(x) ? json_string_value(x) : "";
    if (strcmp(s, "half") == 0 || strcmp(s, "float16") == 0)
        return KVPLAN_DTYPE_FLOAT16;
    if (strcmp(s, "bfloat16") == 0)
        return KVPLAN_DTYPE_BFLOAT16;
    return KVPLAN_DTYPE_FLOAT32; /* float, float32, unknown or missing */
}

static kvplan_dtype auto_dtype(const kvplan_model *m, kvplan_dtype config,
                               const view *v)
{
    /* model overrides: gpt-oss with mxfp4 weights and MistralLarge3 run in
     * bf16 */
    const json_t *q = hget(v, "quantization_config");
    const char *method = json_string_value(get(q, "quant_method"));
    if ((strcmp(m->arch, "GptOssForCausalLM") == 0 && method != NULL &&
         strcmp(method, "mxfp4") == 0) ||
        strcmp(m->arch, "MistralLarge3ForCausalLM") == 0)
        return KVPLAN_DTYPE_BFLOAT16;
    if (config == KVPLAN_DTYPE_FLOAT32)
        return strncmp(m->model_type, "gemma", 5) == 0 ? KVPLAN_DTYPE_BFLOAT16
                                                       : KVPLAN_DTYPE_FLOAT16;
    return config;
}

/* The first of `keys` (NULL-terminated) that the text config sets, as
 * sglang's "first non-None attribute among" rules read it; *key names it. */
static kvplan_status first_int(const view *v, const char *const *keys,
                               kvplan_opt_int *out, const char **key)
{
    out->set = false;
    *key = NULL;
    for (; *keys != NULL; keys++) {
        kvplan_status st = tint(v, *keys, out);
        if (st != KVPLAN_OK || out->set) {
            *key = *keys;
            return st;
        }
    }
    return KVPLAN_OK;
}

/* §1.8: the context length sglang derives. */
static kvplan_status derive_context_len(const view *v, int64_t *out)
{
    const json_t *rope = tget(v, "rope_scaling");
    if (rope == NULL)
        rope = tget(v, "rope_parameters"); /* transformers v5's name */
    double factor = 1.0;
    /* transformers 5 keeps Gemma3's rope per layer type: no top factor */
    bool per_layer_type = v->model_type != NULL &&
                          (strcmp(v->model_type, "gemma3_text") == 0 ||
                           strcmp(v->model_type, "gemma3") == 0);
    if (json_is_object(rope) && json_object_size(rope) > 0 &&
        !per_layer_type) {
        const json_t *f = get(rope, "factor");
        if (json_is_number(f))
            factor = json_number_value(f);
        const char *type = json_string_value(get(rope, "rope_type"));
        if (json_object_get(rope, "original_max_position_embeddings") ||
            (type != NULL && strcmp(type, "llama3") == 0))
            factor = 1.0;
    }
    static const char *const keys[] = {"max_sequence_length", "seq_length",
                                       "max_seq_len", "model_max_length",
                                       "max_position_embeddings", NULL};
    kvplan_opt_int x;
    const char *key;
    kvplan_status st = first_int(v, keys, &x, &key);
    if (st != KVPLAN_OK)
        return st;
    if (x.set) {
        bool ovf = false;
        *out = kvplan__trunc(factor * kvplan__to_double(x.value), &ovf);
        if (ovf || *out <= 0)
            return fail_at(v->err, KVPLAN_PARSE, v, true, key,
                           "the context length it gives is out of range");
        return KVPLAN_OK;
    }
    *out = 2048;
    return KVPLAN_OK;
}

/* §1.4: get_total_num_kv_heads. */
static kvplan_status derive_kv_heads(const view *v, int64_t attn_heads,
                                     int64_t *out)
{
    const char *mt = v->model_type ? v->model_type : "";
    if (json_is_true(tget(v, "multi_query")) &&
        !json_is_true(tget(v, "new_decoder_architecture"))) {
        *out = 1;
        return KVPLAN_OK;
    }
    if (strcmp(mt, "nemotron-nas") == 0) {
        /* the one value of heads // n_heads_in_group over attention blocks */
        const json_t *blocks = tget(v, "block_configs");
        int64_t found = 0;
        size_t i;
        const json_t *b;
        json_array_foreach(blocks, i, b)
        {
            const json_t *g = get(get(b, "attention"), "n_heads_in_group");
            if (!json_is_integer(g) || json_integer_value(g) <= 0)
                continue; /* a no-op attention block */
            int64_t heads = attn_heads / (int64_t)json_integer_value(g);
            if (found != 0 && heads != found)
                return fail_at(v->err, KVPLAN_UNSUPPORTED, v, true,
                               "block_configs",
                               "KV heads differ between layers (%lld and "
                               "%lld); sglang needs one value",
                               (long long)found, (long long)heads);
            found = heads;
        }
        if (found == 0)
            return fail_at(v->err, KVPLAN_PARSE, v, true, "block_configs",
                           "no block with attention");
        *out = found;
        return KVPLAN_OK;
    }
    static const char *const keys[] = {"n_head_kv", "num_kv_heads",
                                       "num_key_value_heads",
                                       "multi_query_group_num",
                                       "num_attention_groups", NULL};
    kvplan_opt_int x;
    const char *key;
    kvplan_status st = first_int(v, keys, &x, &key);
    if (st != KVPLAN_OK)
        return st;
    if (x.set) {
        if (x.value <= 0)
            return fail_at(v->err, KVPLAN_PARSE, v, true, key,
                           "expected a positive integer, got %lld",
                           (long long)x.value);
        *out = x.value;
        return KVPLAN_OK;
    }
    *out = attn_heads;
    return KVPLAN_OK;
}

/* §1.9: hybrid SWA layer ids. */
static kvplan_status derive_swa_ids(kvplan_model *m, const view *v)
{
    int64_t n = m->info.num_hidden_layers;
    const char *a = m->arch;
    kvplan_status st;
    if (strcmp(a, "Llama4ForConditionalGeneration") == 0) {
        /* chunked attention on 3 of 4 layers, global on every 4th */
        if ((st = alloc_ids(&m->swa_ids, (size_t)n, v->err)) != KVPLAN_OK ||
            (st = alloc_ids(&m->full_ids, (size_t)n, v->err)) != KVPLAN_OK)
            return st;
        size_t s = 0, f = 0;
        for (int64_t i = 0; i < n; i++) {
            if ((i + 1) % 4 != 0)
                m->swa_ids.ids[s++] = i;
            else
                m->full_ids.ids[f++] = i;
        }
        m->swa_ids.count = s;
        m->full_ids.count = f;
        return KVPLAN_OK;
    }
    if (strcmp(a, "MiMoV2MTP") == 0 || strcmp(a, "Step3p5MTP") == 0) {
        if ((st = alloc_ids(&m->swa_ids, 1, v->err)) != KVPLAN_OK)
            return st;
        m->swa_ids.ids[0] = 0;
        return KVPLAN_OK;
    }
    if (strcmp(a, "UnlimitedOCRForCausalLM") == 0) {
        if ((st = alloc_ids(&m->swa_ids, (size_t)n, v->err)) != KVPLAN_OK)
            return st;
        for (int64_t i = 0; i < n; i++)
            m->swa_ids.ids[i] = i;
        return KVPLAN_OK;
    }
    const json_t *pattern = tget(v, "hybrid_layer_pattern");
    if (pattern != NULL && (strcmp(a, "MiMoV2ForCausalLM") == 0 ||
                            strcmp(a, "MiMoV2FlashForCausalLM") == 0 ||
                            tget(v, "layer_types") == NULL)) {
        json_int_t one = 1;
        if ((st = ids_where(v, pattern, "hybrid_layer_pattern", (size_t)n,
                            pick_int, &one, &m->swa_ids)) != KVPLAN_OK)
            return st;
        return ids_where(v, pattern, "hybrid_layer_pattern", (size_t)n,
                         pick_zero, NULL, &m->full_ids);
    }
    const json_t *types = tget(v, "layer_types");
    if (types == NULL && strcmp(a, "GptOssForCausalLM") == 0) {
        /* GptOssConfig's default: sliding on even layers, full on odd */
        if ((st = alloc_ids(&m->swa_ids, (size_t)(n + 1) / 2, v->err)) !=
                KVPLAN_OK ||
            (st = alloc_ids(&m->full_ids, (size_t)n / 2, v->err)) !=
                KVPLAN_OK)
            return st;
        for (int64_t i = 0; i < n; i++) {
            if (i % 2 == 0)
                m->swa_ids.ids[i / 2] = i;
            else
                m->full_ids.ids[i / 2] = i;
        }
        return KVPLAN_OK;
    }
    if (types == NULL)
        return fail_at(v->err, KVPLAN_PARSE, v, true, "layer_types",
                       "required for a hybrid sliding-window %s, but absent",
                       a);
    if ((st = ids_where(v, types, "layer_types", (size_t)n, pick_string,
                        "sliding_attention", &m->swa_ids)) != KVPLAN_OK)
        return st;
    return ids_where(v, types, "layer_types", (size_t)n, pick_string,
                     "full_attention", &m->full_ids);
}

/* §1.10: the attention layers of a mamba / linear-attention hybrid; false
 * when the model is not one. */
static kvplan_status derive_mambaish(kvplan_model *m, const view *v,
                                     bool *is_mambaish)
{
    const char *mt = v->model_type ? v->model_type : "";
    int64_t n = m->info.num_hidden_layers;
    kvplan_status st;
    *is_mambaish = true;
    if (strcmp(mt, "nemotron_h") == 0) {
        const json_t *p = tget(v, "hybrid_override_pattern");
        if (json_is_string(p)) {
            const char *s = json_string_value(p);
            size_t len = strlen(s), k = 0;
            if ((st = alloc_ids(&m->mamba_full_ids, len, v->err)) !=
                KVPLAN_OK)
                return st;
            for (size_t i = 0; i < len; i++)
                if (s[i] == '*')
                    m->mamba_full_ids.ids[k++] = (int64_t)i;
            m->mamba_full_ids.count = k;
            return KVPLAN_OK;
        }
        const json_t *blocks = tget(v, "layers_block_type");
        if (blocks != NULL)
            return ids_where(v, blocks, "layers_block_type", SIZE_MAX,
                             pick_string, "attention", &m->mamba_full_ids);
        return fail_at(v->err, KVPLAN_PARSE, v, true,
                       "hybrid_override_pattern",
                       "required for Nemotron-H (or layers_block_type), but "
                       "absent");
    }
    if (strcmp(mt, "falcon_h1") == 0) {
        if ((st = alloc_ids(&m->mamba_full_ids, (size_t)n, v->err)) !=
            KVPLAN_OK)
            return st;
        for (int64_t i = 0; i < n; i++)
            m->mamba_full_ids.ids[i] = i;
        return KVPLAN_OK;
    }
    if (strcmp(mt, "qwen3_next") == 0 || strncmp(mt, "qwen3_5", 7) == 0) {
        /* every full_attention_interval-th layer; layer_types is ignored */
        kvplan_opt_int every;
        if ((st = tint(v, "full_attention_interval", &every)) != KVPLAN_OK)
            return st;
        if (!every.set || every.value <= 0)
            return fail_at(v->err, KVPLAN_PARSE, v, true,
                           "full_attention_interval",
                           "expected a positive integer");
        if ((st = alloc_ids(&m->mamba_full_ids, (size_t)n, v->err)) !=
            KVPLAN_OK)
            return st;
        size_t k = 0;
        for (int64_t i = 0; i < n; i++)
            if ((i + 1) % every.value == 0)
                m->mamba_full_ids.ids[k++] = i;
        m->mamba_full_ids.count = k;
        return KVPLAN_OK;
    }
    if (strncmp(mt, "lfm2", 4) == 0) {
        const json_t *types = tget(v, "layer_types");
        if (types == NULL)
            return KVPLAN_OK; /* Lfm2Moe without layer_types: no layer */
        return ids_where(v, types, "layer_types", SIZE_MAX, pick_string,
                         "full_attention", &m->mamba_full_ids);
    }
    if (strcmp(mt, "granitemoehybrid") == 0) {
        const json_t *types = tget(v, "layer_types");
        size_t i;
        const json_t *e;
        bool any_mamba = false;
        json_array_foreach(types, i, e) any_mamba |=
            pick_string(e, "mamba");
        if (any_mamba)
            return ids_where(v, types, "layer_types", SIZE_MAX, pick_string,
                             "attention", &m->mamba_full_ids);
    }
    if (strcmp(mt, "kimi_linear") == 0) {
        /* layers whose 1-based number is not a KDA layer */
        const json_t *kda = get(tget(v, "linear_attn_config"), "kda_layers");
        if ((st = alloc_ids(&m->mamba_full_ids, (size_t)n, v->err)) !=
            KVPLAN_OK)
            return st;
        size_t k = 0;
        for (int64_t i = 0; i < n; i++) {
            bool linear = false;
            size_t j;
            const json_t *e;
            json_array_foreach(kda, j, e) linear |=
                json_is_integer(e) && json_integer_value(e) == i + 1;
            if (!linear)
                m->mamba_full_ids.ids[k++] = i;
        }
        m->mamba_full_ids.count = k;
        return KVPLAN_OK;
    }
    *is_mambaish = false;
    return KVPLAN_OK;
}

/* §1.3 and §1.5: head dims and the per-architecture overrides. */
static kvplan_status derive_dims(kvplan_model *m, const view *v)
{
    kvplan_status st;
    kvplan_opt_int hd, vhd, shd, svhd;
    if ((st = tint(v, "head_dim", &hd)) != KVPLAN_OK ||
        (st = tint(v, "v_head_dim", &vhd)) != KVPLAN_OK ||
        (st = tint(v, "swa_head_dim", &shd)) != KVPLAN_OK ||
        (st = tint(v, "swa_v_head_dim", &svhd)) != KVPLAN_OK)
        return st;
    int64_t head_dim = hd.set ? hd.value
                              : m->info.hidden_size / m->info.num_attention_heads;
    int64_t v_head_dim = (vhd.set && vhd.value) ? vhd.value : head_dim;
    m->swa_head_dim = (shd.set && shd.value) ? shd.value : head_dim;
    m->swa_v_head_dim = (svhd.set && svhd.value) ? svhd.value
                                                 : m->swa_head_dim;
    const char *a = m->arch;
    const char *top_type = json_string_value(get(v->top, "model_type"));
    if (top_type != NULL && strncmp(top_type, "gemma4", 6) == 0) {
        /* Gemma4: the SWA layers keep the config's dims and heads; the
         * global layers take global_head_dim and num_global_kv_heads */
        kvplan_opt_int ghd, gkv;
        if ((st = tint(v, "global_head_dim", &ghd)) != KVPLAN_OK ||
            (st = tint(v, "num_global_key_value_heads", &gkv)) != KVPLAN_OK)
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
    bool mla = in_list(a, mla_archs) ||
               strcmp(a, "KimiVLForConditionalGeneration") == 0 ||
               strcmp(a, "KimiLinearForCausalLM") == 0 ||
               strcmp(a, "MiniCPM3ForCausalLM") == 0 ||
               strcmp(a, "BailingMoeV2_5ForCausalLM") == 0 ||
               strcmp(a, "SarvamMLAForCausalLM") == 0 ||
               (strcmp(a, "PixtralForConditionalGeneration") == 0 &&
                tget(v, "kv_lora_rank") != NULL);
    if (in_list(a, dsv4_archs)) {
        /* DeepSeek V4: head_dim = nope + rope, the window is
         * sliding_window, one compress ratio per layer */
        kvplan_opt_int rope, window, ihd;
        if ((st = tint(v, "qk_rope_head_dim", &rope)) != KVPLAN_OK ||
            (st = tint(v, "sliding_window", &window)) != KVPLAN_OK ||
            (st = tint(v, "index_head_dim", &ihd)) != KVPLAN_OK)
            return st;
        if (!rope.set || !hd.set || rope.value > hd.value)
            return fail_at(v->err, KVPLAN_PARSE, v, true, "qk_rope_head_dim",
                           "DeepSeek V4 needs head_dim and qk_rope_head_dim "
                           "<= head_dim");
        m->qk_rope_head_dim = rope;
        m->qk_nope_head_dim = (kvplan_opt_int){hd.value - rope.value, true};
        m->dsv4_window_size = window;
        m->dsv4_index_head_dim = ihd;
        head_dim = v_head_dim = hd.value;
        const json_t *ratios = tget(v, "compress_ratios");
        if (!json_is_array(ratios))
            return fail_at(v->err, KVPLAN_PARSE, v, true, "compress_ratios",
                           "expected an array, one ratio per layer");
        size_t n = json_array_size(ratios);
        if ((st = alloc_ids(&m->compress_ratios, n, v->err)) != KVPLAN_OK)
            return st;
        for (size_t i = 0; i < n; i++) {
            const json_t *r = json_array_get(ratios, i);
            if (!json_is_integer(r)) {
                char key[48];
                snprintf(key, sizeof key, "compress_ratios/%zu", i);
                return fail_at(v->err, KVPLAN_PARSE, v, true, key,
                               "expected an integer (0, 4 or 128)");
            }
            m->compress_ratios.ids[i] = (int64_t)json_integer_value(r);
        }
    } else if (mla) {
        m->info.is_mla = true;
        if ((st = tint(v, "kv_lora_rank", &m->kv_lora_rank)) != KVPLAN_OK ||
            (st = tint(v, "qk_rope_head_dim", &m->qk_rope_head_dim)) !=
                KVPLAN_OK ||
            (st = tint(v, "qk_nope_head_dim", &m->qk_nope_head_dim)) !=
                KVPLAN_OK)
            return st;
        if (!m->kv_lora_rank.set)
            return fail_at(v->err, KVPLAN_PARSE, v, true, "kv_lora_rank",
                           "required for the MLA architecture %s, but "
                           "absent",
                           a);
        if (!m->qk_rope_head_dim.set)
            return fail_at(v->err, KVPLAN_PARSE, v, true, "qk_rope_head_dim",
                           "required for the MLA architecture %s, but "
                           "absent",
                           a);
        /* sglang's nominal head_dim for MLA (not used for the KV cell) */
        if (strcmp(a, "MiniCPM3ForCausalLM") == 0)
            head_dim = 128;
        else if (strcmp(a, "KimiLinearForCausalLM") == 0)
            head_dim = 72;
        else if (strcmp(a, "SarvamMLAForCausalLM") == 0)
            head_dim = m->qk_rope_head_dim.value +
                       (m->qk_nope_head_dim.set ? m->qk_nope_head_dim.value : 0);
        else if (strcmp(a, "BailingMoeV2_5ForCausalLM") != 0)
            head_dim = 256;
    }
    m->info.head_dim = head_dim;
    m->info.v_head_dim = v_head_dim;
    return KVPLAN_OK;
}

/* §2.3: MiniMax sparse layer ids from sparse_attention_config. */
static kvplan_status derive_minimax(kvplan_model *m, const view *v)
{
    const json_t *cfg = tget(v, "sparse_attention_config");
    if (cfg == NULL)
        cfg = get(v->top, "sparse_attention_config");
    if (!json_is_object(cfg))
        return fail_at(v->err, KVPLAN_PARSE, v, true,
                       "sparse_attention_config",
                       "required for MiniMax sparse attention, but absent");
    view sv = *v;
    snprintf(sv.text_path, sizeof sv.text_path, "%.60s/sparse_attention_config",
             v->text_path);
    sv.text = cfg;
    sv.model_type = NULL;
    const json_t *freq = get(cfg, "sparse_attention_freq");
    if (freq == NULL)
        return fail_at(v->err, KVPLAN_PARSE, &sv, true,
                       "sparse_attention_freq", "required, but absent");
    kvplan_status st;
    if ((st = ids_where(&sv, freq, "sparse_attention_freq", SIZE_MAX,
                        pick_zero, NULL, &m->minimax_dense)) != KVPLAN_OK ||
        (st = ids_where(&sv, freq, "sparse_attention_freq", SIZE_MAX,
                        pick_nonzero, NULL, &m->minimax_sparse)) != KVPLAN_OK)
        return st;
    const json_t *k_only = get(cfg, "sparse_disable_index_value");
    if (k_only != NULL &&
        (st = ids_where(&sv, k_only, "sparse_disable_index_value", SIZE_MAX,
                        pick_nonzero, NULL, &m->minimax_k_only)) != KVPLAN_OK)
        return st;
    if ((st = tint(&sv, "sparse_index_dim", &m->minimax_index_dim)) !=
        KVPLAN_OK)
        return st;
    if (!m->minimax_index_dim.set)
        return fail_at(v->err, KVPLAN_PARSE, &sv, true, "sparse_index_dim",
                       "required, but absent");
    return KVPLAN_OK;
}

/* An integer of the text config, or `fallback` when absent or invalid. */
static int64_t tint_or(const view *v, const char *key, int64_t fallback)
{
    kvplan_opt_int x;
    view quiet = *v;
    quiet.err = NULL;
    if (tint(&quiet, key, &x) != KVPLAN_OK || !x.set)
        return fallback;
    return x.value;
}

/*
 * What the budget needs beyond the KV geometry: the vision tower (it moves
 * mem_fraction_static, spec §4.1), an estimate of the weights in
 * parameters for configs without their safetensors, and one request's
 * mamba state (spec §3.1). The weight estimate counts embeddings,
 * attention projections and MLP or MoE experts; norms and biases are left
 * out, and every layer of a hybrid is priced as attention + MLP, so it is
 * an estimate and reported as one.
 */
static void derive_budget_facts(kvplan_model *m, const view *v)
{
    const json_t *vision = get(v->top, "vision_config");
    m->multimodal = json_is_object(vision);
    m->vit_layers = 24;
    m->vit_hidden = 1024;
    if (m->multimodal) {
        const json_t *x = get(vision, "num_hidden_layers");
        if (json_is_integer(x))
            m->vit_layers = (int64_t)json_integer_value(x);
        x = get(vision, "hidden_size");
        if (json_is_integer(x))
            m->vit_hidden = (int64_t)json_integer_value(x);
    }
    m->attention_sinks = strcmp(m->arch, "GptOssForCausalLM") == 0;
    const json_t *qc = hget(v, "quantization_config");
    const char *q = json_string_value(get(qc, "quant_method"));
    snprintf(m->quant_method, sizeof m->quant_method, "%.23s", q ? q : "");
    /* compressed-tensors: the weights' bit width (one group is enough) */
    const char *gk;
    const json_t *group;
    m->quant_bits = 0;
    json_object_foreach((json_t *)get(qc, "config_groups"), gk, group)
    {
        const json_t *bits = get(get(group, "weights"), "num_bits");
        if (json_is_integer(bits) && json_integer_value(bits) > 0 &&
            json_integer_value(bits) <= 32)
            m->quant_bits = (int)json_integer_value(bits);
    }

    /* in doubles: an estimate, and no product of config values may
     * overflow */
    double h = (double)m->info.hidden_size;
    double heads = (double)m->info.num_attention_heads;
    double kv = (double)m->info.num_key_value_heads;
    double hd = (double)m->info.head_dim, vhd = (double)m->info.v_head_dim;
    double layers = (double)m->info.num_hidden_layers;
    double attn;
    double q_lora = (double)tint_or(v, "q_lora_rank", 0);
    if (m->info.is_mla) {
        double lora = (double)m->kv_lora_rank.value;
        double rope = (double)m->qk_rope_head_dim.value;
        double nope =
            m->qk_nope_head_dim.set ? (double)m->qk_nope_head_dim.value : 128;
        attn = (q_lora > 0 ? h * q_lora + q_lora * heads * (nope + rope)
                           : h * heads * (nope + rope)) +
               h * (lora + rope) + lora * heads * (nope + vhd) +
               heads * vhd * h;
    } else {
        attn = (q_lora > 0 ? h * q_lora + q_lora * heads * hd
                           : h * heads * hd) +
               2 * h * kv * hd + heads * hd * h;
    }
    double inter = (double)tint_or(v, "intermediate_size",
                                   m->info.hidden_size < INT64_MAX / 4
                                       ? 4 * m->info.hidden_size
                                       : 0);
    double experts = (double)tint_or(
        v, "n_routed_experts",
        tint_or(v, "num_experts", tint_or(v, "num_local_experts", 0)));
    double moe_inter = (double)tint_or(v, "moe_intermediate_size",
                                       (int64_t)inter);
    double shared = (double)tint_or(v, "n_shared_experts", 0);
    double shared_inter = (double)tint_or(
        v, "shared_expert_intermediate_size",
        tint_or(v, "moe_shared_expert_intermediate_size", (int64_t)moe_inter));
    double mlp_dense = layers * 3 * h * inter, mlp_experts = 0;
    const json_t *pattern = tget(v, "hybrid_override_pattern");
    const json_t *blocks = tget(v, "layers_block_type");
    if (strcmp(m->model_type, "nemotron_h") == 0) {
        /* Nemotron-H: the pattern says what each layer is; its MLPs and
         * experts are not gated (relu^2): two matrices each */
        double d_inner = (double)tint_or(v, "mamba_num_heads", 0) *
                         (double)tint_or(v, "mamba_head_dim", 0);
        double groups = (double)tint_or(v, "n_groups", 8);
        double state = (double)tint_or(v, "ssm_state_size", 128);
        double mamba = h * (2 * d_inner + 2 * groups * state +
                            (double)tint_or(v, "mamba_num_heads", 0)) +
                       d_inner * h;
        double n_m = 0, n_attn = 0, n_mlp = 0, n_moe = 0;
        if (json_is_string(pattern)) {
            for (const char *c = json_string_value(pattern); *c; c++) {
                n_m += *c == 'M';
                n_attn += *c == '*';
                n_mlp += *c == '-';
                n_moe += *c == 'E';
            }
        } else {
            size_t i;
            const json_t *e;
            json_array_foreach(blocks, i, e)
            {
                n_m += pick_string(e, "mamba");
                n_attn += pick_string(e, "attention");
                n_mlp += pick_string(e, "mlp");
                n_moe += pick_string(e, "moe");
            }
        }
        attn *= n_attn / (layers > 0 ? layers : 1); /* only '*' layers */
        /* latent MoE: experts work in moe_latent_size, with a projection
         * from and back to the hidden size per layer */
        double latent = (double)tint_or(v, "moe_latent_size", 0);
        double width = latent > 0 ? latent : h;
        mlp_dense = n_m * mamba + n_mlp * 2 * h * inter +
                    n_moe * (h * experts + 2 * h * shared_inter * shared +
                             (latent > 0 ? 2 * h * latent : 0));
        mlp_experts = n_moe * experts * 2 * width * moe_inter;
    } else if (experts > 0) {
        double first_dense = (double)tint_or(v, "first_k_dense_replace", 0);
        double moe_layers = layers - first_dense > 0 ? layers - first_dense : 0;
        double dense_layers = first_dense;
        int64_t step = tint_or(v, "interleave_moe_layer_step", 1);
        if (step > 1) { /* Llama4: every step-th layer is MoE */
            moe_layers = layers / (double)step;
            dense_layers = layers - moe_layers;
            inter = (double)tint_or(v, "intermediate_size_mlp", (int64_t)inter);
        }
        mlp_dense = dense_layers * 3 * h * inter +
                    moe_layers * (h * experts +
                                  3 * h * shared_inter * (shared > 0 ? shared : 0));
        mlp_experts = moe_layers * experts * 3 * h * moe_inter;
    }
    double vocab = (double)m->info.vocab_size;
    bool tied = json_is_true(hget(v, "tie_word_embeddings"));
    m->dense_params = vocab * h * (tied ? 1 : 2) + layers * attn + mlp_dense;
    m->expert_params = mlp_experts;
    if (!(m->dense_params >= 0 && m->dense_params < 1e30))
        m->dense_params = 0; /* nonsense dims: no estimate */
    if (!(m->expert_params >= 0 && m->expert_params < 1e30))
        m->expert_params = 0;

    /* mamba state shapes: Mamba2 (Nemotron-H) and Gated DeltaNet (Qwen3
     * Next / 3.5), per request, before TP */
    const char *mt = m->model_type;
    const char *ssm = tstr(v, "mamba_ssm_dtype");
    m->mamba_ssm_size =
        ssm != NULL && (strcmp(ssm, "bfloat16") == 0 ||
                        strcmp(ssm, "float16") == 0)
            ? 2
            : 4;
    if (strcmp(mt, "nemotron_h") == 0) {
        int64_t nh = tint_or(v, "mamba_num_heads", 0);
        int64_t mhd = tint_or(v, "mamba_head_dim", 0);
        int64_t groups = tint_or(v, "n_groups", 8);
        int64_t state = tint_or(v, "ssm_state_size", 128);
        m->mamba_conv_dim = nh * mhd + 2 * groups * state;
        m->mamba_conv_width = tint_or(v, "conv_kernel", 4) - 1;
        m->mamba_temporal_heads = nh;
        m->mamba_temporal_a = mhd;
        m->mamba_temporal_b = state;
        m->mamba_layers = 0;
        const json_t *p = tget(v, "hybrid_override_pattern");
        const json_t *b = tget(v, "layers_block_type");
        if (json_is_string(p)) {
            for (const char *c = json_string_value(p); *c; c++)
                m->mamba_layers += *c == 'M';
        } else {
            size_t i;
            const json_t *e;
            json_array_foreach(b, i, e) m->mamba_layers +=
                pick_string(e, "mamba");
        }
    } else if (strcmp(mt, "qwen3_next") == 0 || strncmp(mt, "qwen3_5", 7) == 0) {
        int64_t nk = tint_or(v, "linear_num_key_heads", 0);
        int64_t nv = tint_or(v, "linear_num_value_heads", 0);
        int64_t dk = tint_or(v, "linear_key_head_dim", 0);
        int64_t dv = tint_or(v, "linear_value_head_dim", 0);
        m->mamba_conv_dim = 2 * nk * dk + nv * dv;
        m->mamba_conv_width = tint_or(v, "linear_conv_kernel_dim", 4) - 1;
        m->mamba_temporal_heads = nv;
        m->mamba_temporal_a = dk;
        m->mamba_temporal_b = dv;
        m->mamba_layers =
            m->info.num_hidden_layers - (int64_t)m->mamba_full_ids.count;
    }
}

/* Picks hf_text_config (§1.1) and sets the view. */
static kvplan_status select_text_config(view *v, const char *arch)
{
    v->text = v->top;
    v->text_path[0] = '\0';
    if (arch != NULL && strncmp(arch, "Llava", 5) == 0 &&
        strstr(arch, "ForCausalLM") != NULL)
        return KVPLAN_OK;
    const json_t *thinker = get(v->top, "thinker_config");
    if (json_is_object(thinker)) {
        const json_t *inner = get(thinker, "text_config");
        v->text = json_is_object(inner) ? inner : thinker;
        snprintf(v->text_path, sizeof v->text_path, "%s",
                 json_is_object(inner) ? "/thinker_config/text_config"
                                       : "/thinker_config");
        return KVPLAN_OK;
    }
    static const char *const subs[] = {"llm_config", "language_config",
                                       "text_config"};
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++) {
        const json_t *x = get(v->top, subs[i]);
        if (x == NULL)
            continue;
        if (!json_is_object(x))
            return fail_at(v->err, KVPLAN_PARSE, v, false, subs[i],
                           "expected an object");
        v->text = x;
        snprintf(v->text_path, sizeof v->text_path, "/%s", subs[i]);
        return KVPLAN_OK;
    }
    return KVPLAN_OK;
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d != NULL)
        memcpy(d, s, n);
    return d;
}

/* Everything that depends on the config alone. */
static kvplan_status derive(kvplan_model *m, const json_t *root,
                            kvplan_error *err)
{
    view v;
    memset(&v, 0, sizeof v);
    v.top = root;
    v.err = err;
    if (!json_is_object(root))
        return kvplan__fail(err, KVPLAN_PARSE, "",
                            "a config.json must hold a JSON object");
    if (get(root, "dim") && get(root, "n_layers") &&
        !get(root, "architectures") && !get(root, "model_type"))
        return kvplan__fail(
            err, KVPLAN_PARSE, "",
            "this is not a Hugging Face config.json: it holds DeepSeek's "
            "reference-inference ModelArgs (dim, n_layers, n_heads, ...); "
            "use the config.json of the model's Hugging Face repository");

    /* architectures[0], from the top (or copied up from the text config) */
    const json_t *archs = get(root, "architectures");
    const char *arch = NULL;
    if (archs != NULL) {
        if (!json_is_array(archs) || json_array_size(archs) == 0 ||
            !json_is_string(json_array_get(archs, 0)))
            return kvplan__fail(err, KVPLAN_PARSE, "/architectures",
                                "/architectures: expected a non-empty array "
                                "of class names");
        arch = json_string_value(json_array_get(archs, 0));
    }
    kvplan_status st = select_text_config(&v, arch);
    if (st != KVPLAN_OK)
        return st;
    const char *mt = tstr(&v, "model_type");
    if (mt == NULL)
        mt = json_string_value(get(root, "model_type"));
    v.model_type = mt;
    if (arch == NULL) {
        for (size_t i = 0; mt != NULL && arch_for_model_type[i][0]; i++)
            if (strcmp(arch_for_model_type[i][0], mt) == 0)
                arch = arch_for_model_type[i][1];
        if (arch == NULL)
            return kvplan__fail(err, KVPLAN_PARSE, "/architectures",
                                "/architectures: required (sglang picks the "
                                "model class from it), but absent");
    }
    if ((m->arch = dup_str(arch)) == NULL ||
        (m->model_type = dup_str(mt ? mt : "")) == NULL)
        return kvplan__fail(err, KVPLAN_NOMEM, NULL, "out of memory");
    m->info.architecture = m->arch;
    m->info.model_type = m->model_type;
    m->info.is_draft_only = strstr(arch, "Eagle") != NULL &&
                            strcmp(arch, "MistralLarge3ForCausalLMEagle") != 0;
    if (!m->info.is_draft_only && !in_list(arch, supported_archs)) {
        static const char *const hints[][2] = {
            {"MiniMaxM3ForCausalLM",
             "; the published MiniMax-M3 config names "
             "MiniMaxM3SparseForConditionalGeneration, the class sglang "
             "loads"},
            {"JambaForCausalLM", "; sglang does not serve Jamba"},
            {"MiniMaxM1ForCausalLM",
             "; its lightning-attention layers have no pool in sglang's "
             "configurator"},
        };
        const char *hint = "";
        for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++)
            if (strcmp(hints[i][0], arch) == 0)
                hint = hints[i][1];
        return kvplan__fail(err, KVPLAN_UNSUPPORTED, "/architectures",
                            "/architectures: %s is not an architecture "
                            "kvplan can plan (sglang has no model class for "
                            "it at the reference version)%s",
                            arch, hint);
    }

    /* heads and layers */
    int64_t heads, layers;
    if ((st = tcount(&v, "num_attention_heads", &heads)) != KVPLAN_OK)
        return st;
    m->info.num_attention_heads = heads;
    kvplan_opt_int hidden, vocab;
    if ((st = tint(&v, "hidden_size", &hidden)) != KVPLAN_OK ||
        (st = tint(&v, "vocab_size", &vocab)) != KVPLAN_OK)
        return st;
    m->info.hidden_size = hidden.set ? hidden.value : 0;
    m->info.vocab_size = vocab.set ? vocab.value : 0;
    if (strcmp(mt ? mt : "", "nemotron_h") == 0 &&
        tget(&v, "num_hidden_layers") == NULL) {
        /* Nemotron-H: the layer stack is the pattern */
        const json_t *p = tget(&v, "hybrid_override_pattern");
        const json_t *b = tget(&v, "layers_block_type");
        layers = json_is_string(p) ? (int64_t)json_string_length(p)
                                   : (int64_t)json_array_size(b);
        if (layers == 0)
            return fail_at(err, KVPLAN_PARSE, &v, true, "num_hidden_layers",
                           "required, but absent");
    } else if ((st = tcount(&v, "num_hidden_layers", &layers)) != KVPLAN_OK) {
        return st;
    }
    /* per-layer lists are allocated: refuse counts no model has */
    if (layers > KVPLAN__MAX_LAYERS)
        return fail_at(err, KVPLAN_PARSE, &v, true, "num_hidden_layers",
                       "expected at most %d layers, got %lld",
                       KVPLAN__MAX_LAYERS, (long long)layers);
    m->info.num_hidden_layers = layers;
    m->num_attention_layers =
        strcmp(arch, "LongcatFlashForCausalLM") == 0 ? 2 * layers : layers;
    if ((st = tint(&v, "num_nextn_predict_layers",
                   &m->info.num_nextn_predict_layers)) != KVPLAN_OK)
        return st;
    if (!hidden.set && tget(&v, "head_dim") == NULL)
        return fail_at(err, KVPLAN_PARSE, &v, true, "head_dim",
                       "required when hidden_size is absent");
    if ((st = derive_kv_heads(&v, heads, &m->info.num_key_value_heads)) !=
        KVPLAN_OK)
        return st;
    kvplan_opt_int swa_kv;
    if ((st = tint(&v, "swa_num_key_value_heads", &swa_kv)) != KVPLAN_OK)
        return st;
    const json_t *other = tget(&v, "attention_other_setting");
    if (!swa_kv.set && json_is_integer(get(other, "num_attention_groups")))
        swa_kv = (kvplan_opt_int){
            (int64_t)json_integer_value(get(other, "num_attention_groups")),
            true};
    m->swa_num_key_value_heads = swa_kv;
    if ((st = derive_dims(m, &v)) != KVPLAN_OK)
        return st;

    /* predicates */
    m->info.is_deepseek_v4 = in_list(arch, dsv4_archs);
    m->info.is_deepseek_dsa =
        in_list(arch, dsa_archs) && hget(&v, "index_topk") != NULL;
    m->dsa_dtype_arch = in_list(arch, dsa_dtype_archs) &&
                        hget(&v, "index_topk") != NULL;
    if (m->info.is_deepseek_dsa) {
        if ((st = tint(&v, "index_head_dim", &m->dsa_index_head_dim)) !=
            KVPLAN_OK)
            return st;
        if (!m->dsa_index_head_dim.set)
            return fail_at(err, KVPLAN_PARSE, &v, true, "index_head_dim",
                           "required for DeepSeek DSA (index_topk is set), "
                           "but absent");
    }
    m->info.is_minimax_sparse = in_list(arch, minimax_sparse_archs);
    if (m->info.is_minimax_sparse && (st = derive_minimax(m, &v)) != KVPLAN_OK)
        return st;

    /* hybrid SWA (§1.9) */
    bool hybrid = false;
    for (size_t i = 0; i < json_array_size(archs); i++) {
        const char *x = json_string_value(json_array_get(archs, i));
        hybrid |= in_list(x, hybrid_swa_archs);
        hybrid |= x != NULL && strcmp(x, "LagunaForCausalLM") == 0 &&
                  json_is_true(tget(&v, "sliding_window"));
    }
    hybrid |= json_is_true(tget(&v, "is_hybrid_swa"));
    m->info.is_hybrid_swa = hybrid;
    m->hybrid_swa_compress = in_list(arch, hybrid_swa_compress_archs);
    if (hybrid && !m->info.is_deepseek_v4 &&
        (st = derive_swa_ids(m, &v)) != KVPLAN_OK)
        return st;
    kvplan_opt_int sw, sws, ws, chunk;
    if ((st = tint(&v, "sliding_window", &sw)) != KVPLAN_OK ||
        (st = tint(&v, "sliding_window_size", &sws)) != KVPLAN_OK ||
        (st = tint(&v, "window_size", &ws)) != KVPLAN_OK ||
        (st = tint(&v, "attention_chunk_size", &chunk)) != KVPLAN_OK)
        return st;
    if (in_list(arch, window_minus_one_archs) && sw.set &&
        !(strcmp(arch, "AfmoeForCausalLM") == 0 && sw.value <= 0))
        m->class_window = (kvplan_opt_int){sw.value - 1, true};
    m->config_window = sws.set ? sws : sw.set ? sw : ws;
    m->attention_chunk_size = chunk;

    bool mambaish;
    if ((st = derive_mambaish(m, &v, &mambaish)) != KVPLAN_OK)
        return st;
    m->info.is_mambaish = mambaish;

    /* context, dtype, quantization */
    if ((st = derive_context_len(&v, &m->info.context_len)) != KVPLAN_OK)
        return st;
    m->info.dtype = auto_dtype(m, config_dtype(&v), &v);
    const json_t *q = hget(&v, "quantization_config");
    const char *method = json_string_value(get(q, "quant_method"));
    const char *kv_algo = json_string_value(get(q, "kv_cache_quant_algo"));
    m->kv_fp8_quant = method != NULL && strcmp(method, "modelopt") == 0 &&
                      kv_algo != NULL &&
                      (strcmp(kv_algo, "FP8") == 0 ||
                       strcmp(kv_algo, "fp8") == 0);
    m->self_draft = in_list(arch, self_draft_archs);

    derive_budget_facts(m, &v);

    /* the layers that hold a KV cache, all stages together */
    m->info.num_kv_layers =
        mambaish ? (int64_t)m->mamba_full_ids.count
        : m->info.is_minimax_sparse
            ? (int64_t)(m->minimax_dense.count + m->minimax_sparse.count)
            : kvplan__max(layers, m->num_attention_layers);
    return KVPLAN_OK;
}

/* ------------------------------------------------------------------------ */
/* Loading                                                                   */
/* ------------------------------------------------------------------------ */

static void free_ids(id_list *l)
{
    free(l->ids);
    l->ids = NULL;
    l->count = 0;
}

void kvplan_model_free(kvplan_model *m)
{
    if (m == NULL)
        return;
    free(m->name);
    free(m->hf_id);
    free(m->arch);
    free(m->model_type);
    id_list *lists[] = {&m->compress_ratios, &m->minimax_dense,
                        &m->minimax_sparse,  &m->minimax_k_only,
                        &m->full_ids,        &m->swa_ids,
                        &m->mamba_full_ids};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        free_ids(lists[i]);
    free(m);
}

/*
 * Python's json module, which reads config.json for transformers, accepts
 * the bare tokens NaN, Infinity and -Infinity (Nemotron-H configs hold
 * them); JSON and jansson do not. Outside strings they become null, which
 * kvplan never needs to read as a number. Returns a new buffer, or NULL
 * when there was nothing to replace (or no memory: then the parse reports
 * the token).
 */
static char *python_json_tokens(const char *text, size_t len, size_t *out_len)
{
    static const char *const tokens[] = {"-Infinity", "Infinity", "NaN"};
    bool found = false, in_str = false;
    for (size_t i = 0; i < len && !found; i++) {
        if (in_str) {
            if (text[i] == '\\')
                i++;
            else if (text[i] == '"')
                in_str = false;
        } else if (text[i] == '"') {
            in_str = true;
        } else {
            found = text[i] == 'N' || text[i] == 'I';
        }
    }
    if (!found)
        return NULL;
    char *b = malloc(len + len / 3 + 1); /* "NaN" grows to "null" */
    if (b == NULL)
        return NULL;
    size_t n = 0;
    in_str = false;
    for (size_t i = 0; i < len;) {
        char c = text[i];
        if (in_str) {
            b[n++] = c;
            if (c == '\\' && i + 1 < len)
                b[n++] = text[++i];
            else if (c == '"')
                in_str = false;
            i++;
            continue;
        }
        if (c == '"')
            in_str = true;
        size_t t = 0;
        for (; t < sizeof tokens / sizeof tokens[0]; t++) {
            size_t tl = strlen(tokens[t]);
            if (len - i >= tl && memcmp(text + i, tokens[t], tl) == 0) {
                memcpy(b + n, "null", 4);
                n += 4;
                i += tl;
                break;
            }
        }
        if (t == sizeof tokens / sizeof tokens[0])
            b[n++] = text[i++];
    }
    *out_len = n;
    return b;
}

static kvplan_status load_text(const char *text, size_t len,
                               const char *origin, const char *name,
                               const char *hf_id, const char *overrides,
                               kvplan_model **out, kvplan_error *err)
{
    json_error_t jerr;
    size_t fixed_len = 0;
    char *fixed = python_json_tokens(text, len, &fixed_len);
    /* duplicate keys: the last wins, as in Python's json */
    json_t *root = fixed ? json_loadb(fixed, fixed_len, 0, &jerr)
                         : json_loadb(text, len, 0, &jerr);
    free(fixed);
    if (root == NULL) {
        kvplan__fail(err, KVPLAN_PARSE, "", "%s:%d:%d: %s",
                     origin ? origin : "config", jerr.line, jerr.column,
                     jerr.text);
        if (err != NULL) {
            err->line = jerr.line > 0 ? (uint32_t)jerr.line : 0;
            err->column = jerr.column > 0 ? (uint32_t)jerr.column : 0;
        }
        return KVPLAN_PARSE;
    }
    if (overrides != NULL) {
        /* config.update(overrides): top-level keys replaced */
        json_t *o = json_loads(overrides, 0, &jerr);
        if (o == NULL || !json_is_object(o) || !json_is_object(root) ||
            json_object_update(root, o) != 0) {
            json_decref(o);
            json_decref(root);
            return kvplan__fail(err, KVPLAN_PARSE,
                                "--json-model-override-args",
                                "--json-model-override-args must be a JSON "
                                "object%s%s",
                                o == NULL ? ": " : "", o == NULL ? jerr.text : "");
        }
        json_decref(o);
    }
    kvplan_model *m = calloc(1, sizeof *m);
    kvplan_status st = KVPLAN_OK;
    if (m == NULL || (m->name = dup_str(name ? name : "")) == NULL ||
        (m->hf_id = dup_str(hf_id ? hf_id : "")) == NULL)
        st = kvplan__fail(err, KVPLAN_NOMEM, NULL, "out of memory");
    if (st == KVPLAN_OK)
        st = derive(m, root, err);
    json_decref(root);
    if (st != KVPLAN_OK) {
        if (err != NULL && origin != NULL && err->message[0] != '\0' &&
            st != KVPLAN_NOMEM) {
            char msg[sizeof err->message];
            memcpy(msg, err->message, sizeof msg);
            snprintf(err->message, sizeof err->message, "%.150s: %.350s",
                     origin, msg);
        }
        kvplan_model_free(m);
        return st;
    }
    m->info.name = m->name;
    m->info.hf_id = m->hf_id;
    *out = m;
    return kvplan__ok(err);
}

kvplan_status kvplan_model_load_json(const char *text, size_t len,
                                     const char *origin, kvplan_model **out,
                                     kvplan_error *err)
{
    if (out == NULL || text == NULL)
        return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, NULL,
                            "kvplan_model_load_json needs text and a place "
                            "for the model; got NULL");
    *out = NULL;
    return load_text(text, len, origin, origin, "", NULL, out, err);
}

static kvplan_status read_file(const char *path, char **buf, size_t *len,
                               kvplan_error *err)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
        return kvplan__fail(err, KVPLAN_IO, "", "%s: not a regular file",
                            path);
    if (stat(path, &sb) == 0 && sb.st_size > (1 << 26))
        return kvplan__fail(err, KVPLAN_PARSE, "",
                            "%s: %lld bytes; a config.json is far smaller "
                            "(kvplan reads at most 64 MiB)",
                            path, (long long)sb.st_size);
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return kvplan__fail(err, KVPLAN_IO, "", "%s: %s", path,
                            strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    while (b != NULL) {
        n += fread(b + n, 1, cap - n, f);
        if (n < cap)
            break;
        if (cap >= ((size_t)1 << 30)) {
            free(b);
            fclose(f);
            return kvplan__fail(err, KVPLAN_PARSE, "",
                                "%s: larger than 1 GiB; not a config.json",
                                path);
        }
        char *g = realloc(b, cap * 2);
        if (g == NULL) {
            free(b);
            b = NULL;
            break;
        }
        b = g;
        cap *= 2;
    }
    bool bad = ferror(f) != 0;
    fclose(f);
    if (b == NULL)
        return kvplan__fail(err, KVPLAN_NOMEM, NULL, "out of memory reading %s",
                            path);
    if (bad) {
        free(b);
        return kvplan__fail(err, KVPLAN_IO, "", "%s: read error", path);
    }
    *buf = b;
    *len = n;
    return KVPLAN_OK;
}

static bool name_eq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = (*a >= 'A' && *a <= 'Z') ? (char)(*a - 'A' + 'a') : *a;
        char y = (*b >= 'A' && *b <= 'Z') ? (char)(*b - 'A' + 'a') : *b;
        if (x != y)
            return false;
    }
    return *a == *b;
}

/* The bytes of one .safetensors file's tensors, from its header alone: an
 * 8-byte little-endian length, then a JSON object of tensors with
 * data_offsets. -1 when the file is not readable as such. */
static int64_t safetensors_bytes(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return -1;
    unsigned char len8[8];
    int64_t total = -1;
    if (fread(len8, 1, 8, f) == 8) {
        uint64_t n = 0;
        for (int i = 7; i >= 0; i--)
            n = (n << 8) | len8[i];
        char *hdr = n > 0 && n < (100u << 20) ? malloc((size_t)n) : NULL;
        if (hdr != NULL && fread(hdr, 1, (size_t)n, f) == n) {
            json_t *h = json_loadb(hdr, (size_t)n, 0, NULL);
            const char *key;
            json_t *t;
            total = h ? 0 : -1;
            json_object_foreach(h, key, t)
            {
                const json_t *off = json_object_get(t, "data_offsets");
                if (json_array_size(off) == 2)
                    total += (int64_t)(json_integer_value(json_array_get(off, 1)) -
                                       json_integer_value(json_array_get(off, 0)));
            }
            json_decref(h);
        }
        free(hdr);
    }
    fclose(f);
    return total;
}

/* The weights of a model directory: model.safetensors.index.json's
 * metadata.total_size, else the sum over the *.safetensors headers. */
static kvplan_opt_int directory_weights(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/model.safetensors.index.json", dir);
    json_t *index = json_load_file(path, 0, NULL);
    const json_t *total =
        json_object_get(json_object_get(index, "metadata"), "total_size");
    kvplan_opt_int out = {0, false};
    if (json_is_integer(total) && json_integer_value(total) > 0)
        out = (kvplan_opt_int){(int64_t)json_integer_value(total), true};
    json_decref(index);
    if (out.set)
        return out;
    DIR *d = opendir(dir);
    if (d == NULL)
        return out;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n > 12 && strcmp(e->d_name + n - 12, ".safetensors") == 0) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            int64_t b = safetensors_bytes(path);
            if (b > 0)
                out = (kvplan_opt_int){out.value + b, true};
        }
    }
    closedir(d);
    return out;
}

kvplan_status kvplan_model_load(const char *name_or_path, kvplan_model **out,
                                kvplan_error *err)
{
    return kvplan_model_load_override(name_or_path, NULL, out, err);
}

kvplan_status kvplan_model_load_override(const char *name_or_path,
                                         const char *overrides,
                                         kvplan_model **out, kvplan_error *err)
{
    if (out == NULL || name_or_path == NULL)
        return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, NULL,
                            "kvplan_model_load needs a name or path and a "
                            "place for the model; got NULL");
    *out = NULL;
    struct stat sb;
    if (stat(name_or_path, &sb) == 0) {
        char path[4096];
        if (S_ISDIR(sb.st_mode))
            snprintf(path, sizeof path, "%s/config.json", name_or_path);
        else
            snprintf(path, sizeof path, "%s", name_or_path);
        char *buf = NULL;
        size_t len = 0;
        kvplan_status st = read_file(path, &buf, &len, err);
        if (st != KVPLAN_OK)
            return st;
        st = load_text(buf, len, path, name_or_path, "", overrides, out, err);
        free(buf);
        if (st == KVPLAN_OK && S_ISDIR(sb.st_mode))
            (*out)->info.weight_bytes = directory_weights(name_or_path);
        return st;
    }
    /* catalog: the short name or the Hugging Face id, any case */
    for (size_t i = 0; i < kvplan__catalog_count; i++) {
        const kvplan__catalog_entry *e = &kvplan__catalog[i];
        if (name_eq(e->name, name_or_path) ||
            (e->hf_id[0] != '\0' && name_eq(e->hf_id, name_or_path)))
            return load_text((const char *)e->json, e->json_size, e->name,
                             e->name, e->hf_id, overrides, out, err);
    }
    return kvplan__fail(err, KVPLAN_IO, "--model-path",
                        "%s: no such file or directory, and not a model of "
                        "the built-in catalog (kvplan --list-models lists "
                        "them)",
                        name_or_path);
}

const kvplan_model_info *kvplan_model_get_info(const kvplan_model *model)
{
    return model ? &model->info : NULL;
}

const char *kvplan_catalog_name(size_t index)
{
    return index < kvplan__catalog_count ? kvplan__catalog[index].name : NULL;
}

const char *kvplan_catalog_hf_id(size_t index)
{
    return index < kvplan__catalog_count ? kvplan__catalog[index].hf_id
                                         : NULL;
}

/* ------------------------------------------------------------------------ */
/* One rank                                                                  */
/* ------------------------------------------------------------------------ */

void kvplan_server_args_init(kvplan_server_args *a)
{
    if (a == NULL)
        return;
    memset(a, 0, sizeof *a);
    a->tp_size = a->pp_size = a->dp_size = 1;
    a->attn_cp_size = 1;
    a->page_size = 1;
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
    switch (f) {
    case KVPLAN_KV_AUTO:
        *out = m->kv_fp8_quant ? KVPLAN_DTYPE_FLOAT8_E4M3FN : model_dtype;
        return KVPLAN_OK;
    case KVPLAN_KV_FP8_E5M2:
        *out = KVPLAN_DTYPE_FLOAT8_E5M2;
        return KVPLAN_OK;
    case KVPLAN_KV_FP8_E4M3:
        *out = KVPLAN_DTYPE_FLOAT8_E4M3FN;
        return KVPLAN_OK;
    case KVPLAN_KV_BF16:
        *out = KVPLAN_DTYPE_BFLOAT16;
        return KVPLAN_OK;
    case KVPLAN_KV_FP4_E2M1:
        *out = KVPLAN_DTYPE_FLOAT4_E2M1FN_X2;
        return KVPLAN_OK;
    }
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
        kvplan__max(d->info.num_hidden_layers, d->num_attention_layers),
        true};
}

static kvplan_status check_positive(int64_t x, const char *flag,
                                    kvplan_error *err)
{
    if (x < 1)
        return kvplan__fail(err, KVPLAN_INVALID_CONFIG, flag,
                            "%s must be >= 1, got %lld", flag, (long long)x);
    return KVPLAN_OK;
}

kvplan_status kvplan_model_rank(const kvplan_model *m,
                                const kvplan_server_args *a, int64_t pp_rank,
                                kvplan_rank *r, int64_t *context_len,
                                kvplan_error *err)
{
    if (m == NULL || a == NULL || r == NULL)
        return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, NULL,
                            "kvplan_model_rank needs a model, server args "
                            "and a rank to fill; got NULL");
    kvplan_status st;
    if ((st = check_positive(a->tp_size, "--tp-size", err)) != KVPLAN_OK ||
        (st = check_positive(a->pp_size, "--pp-size", err)) != KVPLAN_OK ||
        (st = check_positive(a->dp_size, "--dp-size", err)) != KVPLAN_OK ||
        (st = check_positive(a->attn_cp_size, "--attn-cp-size", err)) !=
            KVPLAN_OK ||
        (st = check_positive(a->page_size, "--page-size", err)) != KVPLAN_OK)
        return st;
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
    int64_t attn_dp = a->enable_dp_attention ? a->dp_size : 1;
    if (attn_dp > a->tp_size || a->attn_cp_size > a->tp_size ||
        a->tp_size % (a->attn_cp_size * attn_dp) != 0)
        return kvplan__fail(err, KVPLAN_INVALID_CONFIG, "--tp-size",
                            "--tp-size (%lld) must be a multiple of the "
                            "attention CP size times the DP-attention size "
                            "(%lld)",
                            (long long)a->tp_size,
                            (long long)(a->attn_cp_size * attn_dp));
    if (m->info.num_hidden_layers < a->pp_size)
        return kvplan__fail(err, KVPLAN_INVALID_CONFIG, "--pp-size",
                            "--pp-size (%lld) is larger than the model's "
                            "%lld layers",
                            (long long)a->pp_size,
                            (long long)m->info.num_hidden_layers);

    kvplan_rank_init(r);
    /* runner */
    kvplan_dtype model_dtype;
    switch (a->dtype) {
    case KVPLAN_DT_FLOAT16:
        model_dtype = KVPLAN_DTYPE_FLOAT16;
        break;
    case KVPLAN_DT_BFLOAT16:
        model_dtype = KVPLAN_DTYPE_BFLOAT16;
        break;
    case KVPLAN_DT_FLOAT32:
        model_dtype = KVPLAN_DTYPE_FLOAT32;
        break;
    default:
        model_dtype = m->info.dtype;
    }
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
    r->runner.page_size = a->page_size;
    r->runner.dp_size = attn_dp;
    r->runner.is_mambaish = m->info.is_mambaish;
    r->runner.mambaish_full_attention_layer_ids = all_ids(m->mamba_full_ids);

    /* speculative decoding */
    kvplan_spec_algorithm spec = a->speculative_algorithm;
    r->runner.spec_algorithm = spec;
    if (spec == KVPLAN_SPEC_EAGLE || spec == KVPLAN_SPEC_EAGLE3 ||
        spec == KVPLAN_SPEC_STANDALONE)
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

    /* parallel (§1.13) */
    r->parallel.attn_tp_size = a->tp_size / a->attn_cp_size / attn_dp;
    r->parallel.attn_cp_size = a->attn_cp_size;

    /* model */
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
        /* a PP stage keeps the ids of range(start, end + 1) (spec §8.7) */
        int64_t hi = a->pp_size > 1 ? end + 1 : INT64_MAX;
        r->model.full_attention_layer_ids = slice(m->full_ids, start, hi);
        r->model.swa_attention_layer_ids = slice(m->swa_ids, start, hi);
    }
    r->model.compress_ratios = all_ids(m->compress_ratios);
    r->model.window_size = m->dsv4_window_size;
    r->model.index_head_dim = m->dsv4_index_head_dim;
    r->model.hf_config.is_deepseek_dsa = m->info.is_deepseek_dsa;
    r->model.hf_config.index_head_dim = m->dsa_index_head_dim;
    r->model.hf_config.is_deepseek_v4 = m->info.is_deepseek_v4;
    r->model.hf_config.is_minimax_sparse = m->info.is_minimax_sparse;
    r->model.hf_config.minimax_sparse.dense_layer_ids =
        all_ids(m->minimax_dense);
    r->model.hf_config.minimax_sparse.sparse_layer_ids =
        all_ids(m->minimax_sparse);
    r->model.hf_config.minimax_sparse.disable_value_layer_ids =
        all_ids(m->minimax_k_only);
    r->model.hf_config.minimax_sparse.sparse_index_dim = m->minimax_index_dim;

    /* context length (§1.8) */
    int64_t ctx = m->info.context_len;
    if (a->context_length.set) {
        if (a->context_length.value < 1)
            return kvplan__fail(err, KVPLAN_INVALID_CONFIG, "--context-length",
                                "--context-length must be >= 1, got %lld",
                                (long long)a->context_length.value);
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

    /* server args (§1.14); DSV4 defaults its ratio to 0.1 (§4.4) */
    r->server_args.swa_full_tokens_ratio =
        a->swa_full_tokens_ratio.set ? a->swa_full_tokens_ratio.value
        : m->info.is_deepseek_v4     ? 0.1
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
    return kvplan__ok(err);
}
