/*
 * names.c: the small tables that turn enums into the names sglang and torch
 * use (dtypes with their element sizes, speculative algorithms,
 * configurator classes) and back.
 */
#include "common/internal.h"

#include <string.h>

/* torch dtype -> its name (sizes: kvplan__elem_bytes, internal.h). */
static const struct {
    kvplan_dtype dtype;
    const char *name;
} dtypes[] = {
    {KVPLAN_DTYPE_BFLOAT16, "bfloat16"},
    {KVPLAN_DTYPE_FLOAT16, "float16"},
    {KVPLAN_DTYPE_FLOAT32, "float32"},
    {KVPLAN_DTYPE_FLOAT8_E4M3FN, "float8_e4m3fn"},
    {KVPLAN_DTYPE_FLOAT8_E5M2, "float8_e5m2"},
    {KVPLAN_DTYPE_FLOAT4_E2M1FN_X2, "float4_e2m1fn_x2"},
    {KVPLAN_DTYPE_UINT8, "uint8"},
};

int kvplan_dtype_size(kvplan_dtype dtype)
{
    return (int)kvplan__elem_bytes(dtype);
}

const char *kvplan_dtype_name(kvplan_dtype dtype)
{
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (dtypes[i].dtype == dtype)
            return dtypes[i].name;
    return NULL;
}

const char *kvplan_kv_dtype_name(kvplan_dtype dtype, const kvplan_gpu *gpu)
{
    /* ROCm's fp8 on gfx94x (MI300X, MI325X) is the fnuz variant, as
     * sglang's log names it; one byte either way */
    if (dtype == KVPLAN_DTYPE_FLOAT8_E4M3FN && gpu != NULL && gpu->is_hip &&
        strncmp(gpu->arch, "gfx94", 5) == 0)
        return "float8_e4m3fnuz";
    return kvplan_dtype_name(dtype);
}

kvplan_dtype kvplan_dtype_from_name(const char *name)
{
    if (name == NULL)
        return KVPLAN_DTYPE_UNSET;
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (strcmp(dtypes[i].name, name) == 0)
            return dtypes[i].dtype;
    return KVPLAN_DTYPE_UNSET;
}

static const char *const spec_names[] = {
    [KVPLAN_SPEC_NONE] = "none",     [KVPLAN_SPEC_EAGLE] = "eagle",
    [KVPLAN_SPEC_EAGLE3] = "eagle3", [KVPLAN_SPEC_STANDALONE] = "standalone",
    [KVPLAN_SPEC_DFLASH] = "dflash", [KVPLAN_SPEC_DSPARK] = "dspark",
    [KVPLAN_SPEC_NGRAM] = "ngram",
};

const char *kvplan_spec_algorithm_name(kvplan_spec_algorithm a)
{
    if ((unsigned)a >= sizeof spec_names / sizeof spec_names[0])
        return NULL;
    return spec_names[a];
}

bool kvplan_spec_algorithm_from_name(const char *name,
                                     kvplan_spec_algorithm *out)
{
    if (name == NULL || out == NULL)
        return false;
    for (size_t i = 0; i < sizeof spec_names / sizeof spec_names[0]; i++) {
        if (strcmp(spec_names[i], name) == 0) {
            *out = (kvplan_spec_algorithm)i;
            return true;
        }
    }
    return false;
}

const char *kvplan_configurator_name(kvplan_configurator_kind k)
{
    switch (k) {
    case KVPLAN_CONFIGURATOR_DEFAULT:
        return "DefaultPoolConfigurator";
    case KVPLAN_CONFIGURATOR_HYBRID_SWA:
        return "HybridSWAPoolConfigurator";
    case KVPLAN_CONFIGURATOR_SWA_CHUNK_CAP:
        return "SWAChunkCapPoolConfigurator";
    case KVPLAN_CONFIGURATOR_DSV4:
        return "DSV4PoolConfigurator";
    }
    return NULL;
}

/* ---- the words of sglang's flags --------------------------------------- */

typedef struct word {
    const char *word;
    int value;
    bool alias;         /* another spelling: never the canonical name */
    kvplan_dtype dtype; /* --dtype, --kv-cache-dtype: the dtype it runs
                           (auto: none, the model's) */
} word;

#define WORD(w, v)                                                             \
    {                                                                          \
        (w), (v), false, KVPLAN_DTYPE_UNSET                                    \
    }
#define ALIAS(w, v)                                                            \
    {                                                                          \
        (w), (v), true, KVPLAN_DTYPE_UNSET                                     \
    }

/* Each set in the order sglang's --help lists it. */

/* --kv-cache-dtype (server_args.py choices) */
static const word kv_cache_dtype_words[] = {
    {"auto", KVPLAN_KV_AUTO, false, KVPLAN_DTYPE_UNSET},
    {"fp8_e5m2", KVPLAN_KV_FP8_E5M2, false, KVPLAN_DTYPE_FLOAT8_E5M2},
    {"fp8_e4m3", KVPLAN_KV_FP8_E4M3, false, KVPLAN_DTYPE_FLOAT8_E4M3FN},
    {"bf16", KVPLAN_KV_BF16, false, KVPLAN_DTYPE_BFLOAT16},
    {"bfloat16", KVPLAN_KV_BF16, true, KVPLAN_DTYPE_BFLOAT16},
    {"fp4_e2m1", KVPLAN_KV_FP4_E2M1, false, KVPLAN_DTYPE_FLOAT4_E2M1FN_X2},
    /* vLLM's and TensorRT-LLM's spelling (e4m3 on CUDA); sglang refuses
     * it (model/rank.c) */
    {"fp8", KVPLAN_KV_FP8, false, KVPLAN_DTYPE_FLOAT8_E4M3FN},
};

/* --dtype */
static const word dtype_words[] = {
    {"auto", KVPLAN_DT_AUTO, false, KVPLAN_DTYPE_UNSET},
    {"half", KVPLAN_DT_FLOAT16, true, KVPLAN_DTYPE_FLOAT16},
    {"float16", KVPLAN_DT_FLOAT16, false, KVPLAN_DTYPE_FLOAT16},
    {"bfloat16", KVPLAN_DT_BFLOAT16, false, KVPLAN_DTYPE_BFLOAT16},
    {"float", KVPLAN_DT_FLOAT32, true, KVPLAN_DTYPE_FLOAT32},
    {"float32", KVPLAN_DT_FLOAT32, false, KVPLAN_DTYPE_FLOAT32},
};

/* --speculative-algorithm, in sglang's spelling; NEXTN and FROZEN_KV_MTP
 * run as EAGLE */
static const word spec_words[] = {
    WORD("EAGLE", KVPLAN_SPEC_EAGLE),
    WORD("EAGLE3", KVPLAN_SPEC_EAGLE3),
    ALIAS("NEXTN", KVPLAN_SPEC_EAGLE),
    WORD("STANDALONE", KVPLAN_SPEC_STANDALONE),
    WORD("DFLASH", KVPLAN_SPEC_DFLASH),
    WORD("DSPARK", KVPLAN_SPEC_DSPARK),
    WORD("NGRAM", KVPLAN_SPEC_NGRAM),
    ALIAS("FROZEN_KV_MTP", KVPLAN_SPEC_EAGLE),
};

/* --disaggregation-mode */
static const word disagg_words[] = {
    WORD("null", KVPLAN_DISAGG_NULL),
    WORD("prefill", KVPLAN_DISAGG_PREFILL),
    WORD("decode", KVPLAN_DISAGG_DECODE),
};

/* --attention-backend: sglang's ATTENTION_BACKEND_CHOICES (nsa and
 * compressed are its deprecated aliases of dsa and dsv4) */
static const word backend_words[] = {
    WORD("triton", 0),
    WORD("torch_native", 1),
    WORD("flex_attention", 2),
    WORD("dsa", 3),
    ALIAS("nsa", 3),
    WORD("dsv4", 4),
    ALIAS("compressed", 4),
    WORD("cutlass_mla", 5),
    WORD("fa3", 6),
    WORD("fa4", 7),
    WORD("flashinfer", 8),
    WORD("flashmla", 9),
    WORD("trtllm_mla", 10),
    WORD("cutedsl_mla", 11),
    WORD("tokenspeed_mla", 12),
    WORD("trtllm_mha", 13),
    WORD("dual_chunk_flash_attn", 14),
    WORD("hpc_ops", 15),
    WORD("minicpm_flashattn", 16),
    WORD("minicpm_flashinfer", 17),
    WORD("aiter", 18),
    WORD("wave", 19),
    WORD("intel_amx", 20),
    WORD("ascend", 21),
    WORD("intel_xpu", 22),
    WORD("mlu", 23),
};

/* --quantization (server_args.py QUANTIZATION_CHOICES) */
static const word quantization_words[] = {
    WORD("awq", 0),           WORD("fp8", 1),
    WORD("gptq", 2),          WORD("marlin", 3),
    WORD("gptq_marlin", 4),   WORD("awq_marlin", 5),
    WORD("bitsandbytes", 6),  WORD("gguf", 7),
    WORD("modelopt", 8),      WORD("modelopt_fp8", 9),
    WORD("modelopt_fp4", 10), WORD("petit_nvfp4", 11),
    WORD("w8a8_int8", 12),    WORD("w8a8_fp8", 13),
    WORD("moe_wna16", 14),    WORD("qoq", 15),
    WORD("w4afp8", 16),       WORD("mxfp4", 17),
    WORD("mxfp8", 18),        WORD("compressed-tensors", 19),
    WORD("fbgemm_fp8", 20),   WORD("auto-round", 21),
    WORD("quark", 22),
};

/* --moe-a2a-backend */
static const word a2a_words[] = {
    WORD("none", 0), WORD("deepep", 1),        WORD("mooncake", 2),
    WORD("mori", 3), WORD("ascend_fuseep", 4), WORD("flashinfer", 5),
};

/* --mamba-ssm-dtype: the value is the element's bytes */
static const word ssm_dtype_words[] = {
    WORD("float32", 4),
    WORD("bfloat16", 2),
    WORD("float16", 2),
};

/* vLLM's --mamba-ssm-cache-dtype (vllm/config/cache.py, MambaDType):
 * the state's bytes an element, auto 0 (the model's rule) */
static const word ssm_cache_dtype_words[] = {
    WORD("auto", 0),
    WORD("float32", 4),
    WORD("float16", 2),
    WORD("bfloat16", 2),
};

/* vLLM's --mamba-cache-mode: kvplan_mamba_cache_mode */
static const word mamba_mode_words[] = {
    WORD("none", 1),
    WORD("align", 2),
    WORD("all", 3),
};

static const struct {
    const word *words;
    size_t count;
    bool any_case;
} sets[] = {
    [KVPLAN_WORDS_KV_CACHE_DTYPE] = {kv_cache_dtype_words,
                                     sizeof kv_cache_dtype_words /
                                         sizeof kv_cache_dtype_words[0],
                                     false},
    [KVPLAN_WORDS_DTYPE] = {dtype_words,
                            sizeof dtype_words / sizeof dtype_words[0], false},
    [KVPLAN_WORDS_SPECULATIVE_ALGORITHM] =
        {spec_words, sizeof spec_words / sizeof spec_words[0], true},
    [KVPLAN_WORDS_DISAGGREGATION_MODE] =
        {disagg_words, sizeof disagg_words / sizeof disagg_words[0], false},
    [KVPLAN_WORDS_ATTENTION_BACKEND] =
        {backend_words, sizeof backend_words / sizeof backend_words[0], false},
    [KVPLAN_WORDS_QUANTIZATION] = {quantization_words,
                                   sizeof quantization_words /
                                       sizeof quantization_words[0],
                                   false},
    [KVPLAN_WORDS_MOE_A2A_BACKEND] = {a2a_words,
                                      sizeof a2a_words / sizeof a2a_words[0],
                                      false},
    [KVPLAN_WORDS_MAMBA_SSM_DTYPE] = {ssm_dtype_words,
                                      sizeof ssm_dtype_words /
                                          sizeof ssm_dtype_words[0],
                                      false},
    [KVPLAN_WORDS_MAMBA_CACHE_MODE] = {mamba_mode_words,
                                       sizeof mamba_mode_words /
                                           sizeof mamba_mode_words[0],
                                       false},
    [KVPLAN_WORDS_MAMBA_SSM_CACHE_DTYPE] = {ssm_cache_dtype_words,
                                            sizeof ssm_cache_dtype_words /
                                                sizeof ssm_cache_dtype_words[0],
                                            false},
};

const char *kvplan_word_at(kvplan_word_set set, size_t index, int *value)
{
    if ((size_t)set >= sizeof sets / sizeof sets[0] || index >= sets[set].count)
        return NULL;
    if (value != NULL)
        *value = sets[set].words[index].value;
    return sets[set].words[index].word;
}

bool kvplan_word_value(kvplan_word_set set, const char *w, int *value)
{
    if ((size_t)set >= sizeof sets / sizeof sets[0] || w == NULL)
        return false;
    for (size_t i = 0; i < sets[set].count; i++) {
        const char *x = sets[set].words[i].word;
        if (sets[set].any_case ? kvplan__ascii_ieq(x, w) : strcmp(x, w) == 0) {
            if (value != NULL)
                *value = sets[set].words[i].value;
            return true;
        }
    }
    return false;
}

const char *kvplan_word_name(kvplan_word_set set, int value)
{
    if ((size_t)set >= sizeof sets / sizeof sets[0])
        return NULL;
    for (size_t i = 0; i < sets[set].count; i++)
        if (sets[set].words[i].value == value && !sets[set].words[i].alias)
            return sets[set].words[i].word;
    return NULL;
}

/* ---- the dtype flags, both ways, from their words' dtypes --------------- */

static kvplan_dtype dtype_of_value(kvplan_word_set set, int value)
{
    for (size_t i = 0; i < sets[set].count; i++)
        if (sets[set].words[i].value == value)
            return sets[set].words[i].dtype;
    return KVPLAN_DTYPE_UNSET;
}

static int value_of_dtype(kvplan_word_set set, kvplan_dtype dtype)
{
    for (size_t i = 0; i < sets[set].count; i++)
        if (sets[set].words[i].dtype == dtype && !sets[set].words[i].alias &&
            dtype != KVPLAN_DTYPE_UNSET)
            return sets[set].words[i].value;
    return 0; /* auto */
}

kvplan_dtype kvplan__dtype_of_flag(kvplan_dtype_flag flag,
                                   kvplan_dtype model_default)
{
    kvplan_dtype d = dtype_of_value(KVPLAN_WORDS_DTYPE, (int)flag);
    return d != KVPLAN_DTYPE_UNSET ? d : model_default;
}

kvplan_dtype_flag kvplan__dtype_flag(kvplan_dtype dtype)
{
    return (kvplan_dtype_flag)value_of_dtype(KVPLAN_WORDS_DTYPE, dtype);
}

kvplan_dtype kvplan__kv_dtype_of_flag(kvplan_kv_cache_dtype_flag flag)
{
    return dtype_of_value(KVPLAN_WORDS_KV_CACHE_DTYPE, (int)flag);
}

kvplan_kv_cache_dtype_flag kvplan__kv_dtype_flag(kvplan_dtype dtype)
{
    return (kvplan_kv_cache_dtype_flag)value_of_dtype(
        KVPLAN_WORDS_KV_CACHE_DTYPE, dtype);
}
