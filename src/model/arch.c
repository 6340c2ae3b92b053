/*
 * arch.c: the architecture registry: one row per model class (a config's
 * architectures[0]), with what sglang does differently for it. Every rule
 * that sglang keys on a class name is a trait bit or a field of that row,
 * so a new class is one row here (docs/architecture.md).
 *
 * Sources (sections of docs/sglang-rules.md): attention_arch MLA §1.3,
 * DSA §2.1 and its KV dtype §1.11, DeepSeek V4 §2.2, MiniMax sparse §2.3,
 * hybrid SWA and the sliding window §1.9, the speculative hook §1.12, the
 * attention backend §4.3, the supported set: sglang's model registry at
 * 6cc9352d as far as kvplan plans it.
 */
#include "model/model.h"

#include <string.h>

enum {
    S = KVPLAN__ARCH_SUPPORTED,
    MLA = KVPLAN__ARCH_MLA,
    MLA_LORA = KVPLAN__ARCH_MLA_IF_LORA,
    DSA = KVPLAN__ARCH_DSA,
    DSA_DT = KVPLAN__ARCH_DSA_DTYPE,
    V4 = KVPLAN__ARCH_DSV4,
    MMS = KVPLAN__ARCH_MINIMAX_SPARSE,
    SWA = KVPLAN__ARCH_HYBRID_SWA,
    SWA_OWN = KVPLAN__ARCH_SWA_OWN_GEOMETRY,
    W1 = KVPLAN__ARCH_WINDOW_MINUS_ONE,
    DRAFT = KVPLAN__ARCH_SELF_DRAFT,
    SINKS = KVPLAN__ARCH_ATTENTION_SINKS,
    BF16 = KVPLAN__ARCH_BF16,
    BF16_MXFP4 = KVPLAN__ARCH_BF16_IF_MXFP4,
    MTP_LIKE = KVPLAN__ARCH_MTP_LIKE,
    FA3_FA4 = KVPLAN__ARCH_FA3_FA4,
    TWO_ATTN = KVPLAN__ARCH_TWO_ATTENTION_PER_LAYER,
    EAGLE = KVPLAN__ARCH_EAGLE_TARGET,
    W_POS = KVPLAN__ARCH_WINDOW_IF_POSITIVE,
    SWA_FLAG = KVPLAN__ARCH_HYBRID_SWA_IF_FLAG,
    MLP_FC = KVPLAN__ARCH_MLP_FC,
};

/* Nominal head_dim of MLA classes (not used for the KV cell). */
#define HD_CONFIG KVPLAN__MLA_HEAD_DIM_CONFIG
#define HD_ROPE_NOPE KVPLAN__MLA_HEAD_DIM_ROPE_NOPE

/* Sorted by name; kvplan__arch_find searches it. .mla_head_dim 0 means
 * sglang's 256. */
static const kvplan__arch archs[] = {
    {"AfmoeForCausalLM", W1 | W_POS, 0, 0, NULL},
    {"BailingMoeForCausalLM", DRAFT, 0, 0, NULL},
    {"BailingMoeV2ForCausalLM", DRAFT, 0, 0, NULL},
    {"BailingMoeV2_5ForCausalLM", MLA | DRAFT, HD_CONFIG, 0, NULL},
    {"Cohere2ForCausalLM", S, 0, 0, NULL},
    {"CohereForCausalLM", S, 0, 0, NULL},
    {"DeciLMForCausalLM", S, 0, 0, NULL},
    {"DeepseekV2ForCausalLM", S | MLA, 0, 0, NULL},
    {"DeepseekV32ForCausalLM", S | MLA | DSA | DSA_DT | DRAFT, 0, 0, NULL},
    {"DeepseekV3ForCausalLM", S | MLA | DSA | DSA_DT | DRAFT, 0, 0, NULL},
    {"DeepseekV3ForCausalLMNextN", MLA | DSA, 0, 0, NULL},
    {"DeepseekV4ForCausalLM", S | V4 | SWA | DRAFT, 0, 0, NULL},
    {"DeepseekV4ForCausalLMDSpark", V4 | SWA, 0, 0, NULL},
    {"DeepseekV4ForCausalLMNextN", V4 | SWA, 0, 0, NULL},
    {"DotsVLMForCausalLM", MLA, 0, 0, NULL},
    {"Eagle3DeepseekV2ForCausalLM", MLA, 0, 0, NULL},
    {"Exaone4ForCausalLM", W1, 0, 0, NULL},
    {"FalconH1ForCausalLM", S, 0, 0, NULL},
    {"Gemma2ForCausalLM", S | W1, 0, 0, NULL},
    /* reward and classification heads on a causal LM's body (sglang's
     * gemma2_reward.py, llama_reward.py, qwen2_rm.py,
     * qwen2_classification.py): its pools, a score head for the LM head */
    {"Gemma2ForSequenceClassification", S | W1, 0, 0, NULL},
    {"Gemma3ForCausalLM", S | W1, 0, 0, NULL},
    {"Gemma3ForConditionalGeneration", S | W1, 0, 0, NULL},
    {"Gemma3nForCausalLM", W1, 0, 0, NULL},
    {"Gemma3nForConditionalGeneration", W1, 0, 0, NULL},
    {"Gemma4ForCausalLM", S | SWA | SWA_OWN | W1, 0, 0, NULL},
    {"Gemma4ForConditionalGeneration", S | SWA | SWA_OWN | W1, 0, 0, NULL},
    {"Gemma4UnifiedForConditionalGeneration", SWA | SWA_OWN | W1, 0, 0, NULL},
    {"Glm4MoeForCausalLM", S | DRAFT, 0, 0, NULL},
    {"Glm4MoeLiteForCausalLM", S | MLA | DRAFT, 0, 0, NULL},
    {"Glm4MoeLiteForCausalLMNextN", MLA, 0, 0, NULL},
    {"GlmMoeDsaForCausalLM", S | MLA | DSA | DSA_DT | DRAFT, 0, 0, NULL},
    {"GlmMoeDsaForCausalLMNextN", MLA | DSA, 0, 0, NULL},
    {"GptOssForCausalLM", S | SWA | W1 | SINKS | BF16_MXFP4 | MTP_LIKE, 0,
     KVPLAN__SWA_ALTERNATE, NULL},
    {"GraniteMoeHybridForCausalLM", S, 0, 0, NULL},
    {"HYV3ForCausalLM", DRAFT, 0, 0, NULL},
    {"JambaForCausalLM", 0, 0, 0, "; sglang does not serve Jamba"},
    {"KimiK25ForConditionalGeneration", S | MLA | DSA_DT, 0, 0, NULL},
    {"KimiLinearForCausalLM", S | MLA, 72, 0, NULL},
    {"KimiVLForConditionalGeneration", S | MLA, 0, 0, NULL},
    {"LagunaForCausalLM", SWA_FLAG, 0, 0, NULL},
    {"Lfm2ForCausalLM", S, 0, 0, NULL},
    {"Llama4ForConditionalGeneration", S | SWA, 0, KVPLAN__SWA_EVERY_FOURTH,
     NULL},
    {"LlamaForCausalLM", S, 0, 0, NULL},
    {"LlamaForSequenceClassification", S, 0, 0, NULL},
    {"LlamaForSequenceClassificationWithNormal_Weights", S, 0, 0, NULL},
    {"LongcatFlashForCausalLM", S | MLA | DSA | DSA_DT | TWO_ATTN, 0, 0, NULL},
    {"LongcatFlashForCausalLMNextN", MLA | DSA, 0, 0, NULL},
    {"MiMoForCausalLM", S, 0, 0, NULL},
    {"MiMoV2FlashForCausalLM", S | SWA | SWA_OWN, 0, KVPLAN__SWA_PATTERN, NULL},
    {"MiMoV2ForCausalLM", S | SWA | SWA_OWN, 0, KVPLAN__SWA_PATTERN, NULL},
    {"MiMoV2MTP", SWA | SWA_OWN, 0, KVPLAN__SWA_ONE_LAYER, NULL},
    {"MiniCPM3ForCausalLM", S | MLA, 128, 0, NULL},
    {"MiniMaxM1ForCausalLM", 0, 0, 0,
     "; its lightning-attention layers have no pool in sglang's "
     "configurator"},
    {"MiniMaxM2ForCausalLM", S, 0, 0, NULL},
    {"MiniMaxM3ForCausalLM", 0, 0, 0,
     "; the published MiniMax-M3 config names "
     "MiniMaxM3SparseForConditionalGeneration, the class sglang loads"},
    {"MiniMaxM3SparseForCausalLM", S | MMS | FA3_FA4, 0, 0, NULL},
    {"MiniMaxM3SparseForConditionalGeneration", S | MMS | FA3_FA4, 0, 0, NULL},
    {"MistralForCausalLM", S, 0, 0, NULL},
    {"MistralLarge3ForCausalLM", S | MLA | DSA | DSA_DT | DRAFT | BF16, 0, 0,
     NULL},
    {"MistralLarge3ForCausalLMEagle", MLA | EAGLE, 0, 0, NULL},
    {"MixtralForCausalLM", S, 0, 0, NULL},
    {"NemotronHForCausalLM", S, 0, 0, NULL},
    {"Olmo2ForCausalLM", W1, 0, 0, NULL},
    {"Phi3ForCausalLM", S, 0, 0, NULL},
    /* phi-1.5, phi-2 (sglang's models/phi.py): dense, fc1/fc2 */
    {"PhiForCausalLM", S | MLP_FC, 0, 0, NULL},
    {"PixtralForConditionalGeneration", MLA_LORA | DSA | DSA_DT | DRAFT, 0, 0,
     NULL},
    {"Qwen2ForCausalLM", S, 0, 0, NULL},
    {"Qwen2ForRewardModel", S, 0, 0, NULL},
    {"Qwen2ForSequenceClassification", S, 0, 0, NULL},
    {"Qwen2MoeForCausalLM", S, 0, 0, NULL},
    {"Qwen3ForCausalLM", S, 0, 0, NULL},
    {"Qwen3MoeForCausalLM", S, 0, 0, NULL},
    {"Qwen3NextForCausalLM", S, 0, 0, NULL},
    {"Qwen3_5ForCausalLM", S, 0, 0, NULL},
    {"Qwen3_5ForConditionalGeneration", S, 0, 0, NULL},
    {"Qwen3_5MoeForCausalLM", S, 0, 0, NULL},
    {"Qwen3_5MoeForConditionalGeneration", S, 0, 0, NULL},
    {"SarvamMLAForCausalLM", MLA, HD_ROPE_NOPE, 0, NULL},
    {"Step3p5ForCausalLM", S | SWA, 0, 0, NULL},
    {"Step3p5MTP", SWA, 0, KVPLAN__SWA_ONE_LAYER, NULL},
    {"Step3p7ForConditionalGeneration", SWA, 0, 0, NULL},
    {"UnlimitedOCRForCausalLM", SWA, 0, KVPLAN__SWA_ALL, NULL},
};

const kvplan__arch *kvplan__arch_find(const char *name)
{
    if (name == NULL)
        return NULL;
    size_t lo = 0, hi = sizeof archs / sizeof archs[0];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(name, archs[mid].name);
        if (c == 0)
            return &archs[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

uint32_t kvplan__arch_traits(const char *name)
{
    const kvplan__arch *a = kvplan__arch_find(name);
    return a ? a->traits : 0;
}

const kvplan__arch *kvplan__arch_at(size_t index)
{
    return index < sizeof archs / sizeof archs[0] ? &archs[index] : NULL;
}

/* model_type -> architecture, for copies of configs that dropped the
 * "architectures" key (sglang needs it; transformers does not). */
const char *kvplan__arch_for_model_type(const char *model_type)
{
    static const char *const by_type[][2] = {
        {"llama", "LlamaForCausalLM"},     {"mistral", "MistralForCausalLM"},
        {"mixtral", "MixtralForCausalLM"}, {"qwen2", "Qwen2ForCausalLM"},
        {"qwen3", "Qwen3ForCausalLM"},     {"phi3", "Phi3ForCausalLM"}};
    for (size_t i = 0;
         model_type != NULL && i < sizeof by_type / sizeof by_type[0]; i++)
        if (strcmp(by_type[i][0], model_type) == 0)
            return by_type[i][1];
    return NULL;
}
