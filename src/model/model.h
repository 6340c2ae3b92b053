/*
 * model.h: the model room's internals; not installed.
 *
 * config.json -> struct kvplan_model (load.c, derive.c, layers.c, shape.c)
 * -> kvplan_rank for one pipeline stage (rank.c). The JSON view and its
 * typed readers (json.c) are the only code of the library that touches
 * jansson, with the safetensors reader of budget/weights.c. The public face
 * of a model is kvplan_model_info.
 *
 * Sections marked § are those of docs/sglang-rules.md.
 */
#ifndef KVPLAN_MODEL_H
#define KVPLAN_MODEL_H

#include "common/internal.h"
#include "common/shapes.h"

#include "common/json.h"

/* The most layers kvplan accepts: far above any model, low enough that the
 * per-layer lists stay small. */
#define KVPLAN__MAX_LAYERS (1 << 20)

/* ---- arch.c: the architecture registry --------------------------------- */

/* What sglang does differently for a model class (architectures[0]). */
enum {
    KVPLAN__ARCH_SUPPORTED = 1u << 0,   /* sglang serves it as a target */
    KVPLAN__ARCH_MLA = 1u << 1,         /* attention_arch MLA (§1.3) */
    KVPLAN__ARCH_MLA_IF_LORA = 1u << 2, /* MLA when kv_lora_rank is set */
    KVPLAN__ARCH_DSA = 1u << 3,         /* DSA when index_topk is set */
    KVPLAN__ARCH_DSA_DTYPE = 1u << 4,   /* DSA's GPU-dependent KV dtype */
    KVPLAN__ARCH_DSV4 = 1u << 5,        /* DeepSeek V4 compressed attention */
    KVPLAN__ARCH_MINIMAX_SPARSE = 1u << 6,
    KVPLAN__ARCH_HYBRID_SWA = 1u << 7,          /* any entry of architectures */
    KVPLAN__ARCH_SWA_OWN_GEOMETRY = 1u << 8,    /* is_hybrid_swa_compress */
    KVPLAN__ARCH_WINDOW_MINUS_ONE = 1u << 9,    /* window = sliding_window-1 */
    KVPLAN__ARCH_WINDOW_IF_POSITIVE = 1u << 10, /* ... only when > 0 */
    KVPLAN__ARCH_SELF_DRAFT = 1u << 11, /* MTP drafts from its own weights */
    KVPLAN__ARCH_ATTENTION_SINKS = 1u << 12, /* triton, not flashinfer */
    KVPLAN__ARCH_BF16 = 1u << 13,            /* --dtype auto runs bf16 */
    KVPLAN__ARCH_BF16_IF_MXFP4 = 1u << 14,   /* ... with mxfp4 weights */
    KVPLAN__ARCH_MTP_LIKE = 1u << 15,        /* EAGLE's auto params as MTP's */
    KVPLAN__ARCH_FA3_FA4 = 1u << 16, /* fa3 (fa4 on Blackwell), page 128 */
    KVPLAN__ARCH_TWO_ATTENTION_PER_LAYER = 1u << 17, /* LongcatFlash */
    KVPLAN__ARCH_EAGLE_TARGET = 1u << 18, /* "Eagle" in the name, a target */
    KVPLAN__ARCH_HYBRID_SWA_IF_FLAG = 1u << 19, /* ... when sliding_window
                                                  is true */
    KVPLAN__ARCH_MLP_FC = 1u << 20 /* a two-matrix MLP, fc1 and fc2 (Phi) */
};

/* How a hybrid SWA class lays out its sliding and full layers (§1.9). */
enum {
    KVPLAN__SWA_FROM_CONFIG = 0,  /* hybrid_layer_pattern or layer_types */
    KVPLAN__SWA_EVERY_FOURTH = 1, /* Llama4: chunked on 3 of 4 layers */
    KVPLAN__SWA_ONE_LAYER = 2,    /* MTP heads: one sliding layer */
    KVPLAN__SWA_ALL = 3,          /* every layer sliding */
    KVPLAN__SWA_PATTERN = 4,      /* hybrid_layer_pattern, always */
    KVPLAN__SWA_ALTERNATE = 5     /* without layer_types: even sliding */
};

/* Nominal MLA head_dim other than sglang's 256 (not used for the KV
 * cell). */
#define KVPLAN__MLA_HEAD_DIM_CONFIG (-1)    /* the config's head_dim */
#define KVPLAN__MLA_HEAD_DIM_ROPE_NOPE (-2) /* qk_rope + qk_nope */

typedef struct kvplan__arch {
    const char *name;
    uint32_t traits;
    int16_t mla_head_dim; /* 0: 256; else a value or one of the above */
    uint8_t swa_layout;
    /* For a class kvplan refuses: why, appended to the message. */
    const char *refusal;
} kvplan__arch;

/* The row of a class, or NULL for a class kvplan does not know. */
const kvplan__arch *kvplan__arch_find(const char *name);
/* Its traits; 0 for an unknown class. */
uint32_t kvplan__arch_traits(const char *name);
/* The rows in name order: `index` from 0; NULL past the end. */
const kvplan__arch *kvplan__arch_at(size_t index);
/* The class for a config without "architectures", by model_type. */
const char *kvplan__arch_for_model_type(const char *model_type);

/* ---- the model --------------------------------------------------------- */

typedef struct id_list {
    int64_t *ids;
    size_t count;
} id_list;

struct kvplan_model {
    kvplan_model_info info;
    char *name, *hf_id, *arch, *model_type;
    uint32_t traits; /* of the class, from the registry */
    uint8_t swa_layout;
    /* attention geometry (total heads; dims per head) */
    kvplan_opt_int swa_num_key_value_heads;
    int64_t swa_head_dim, swa_v_head_dim;
    kvplan_opt_int kv_lora_rank, qk_rope_head_dim, qk_nope_head_dim;
    kvplan_opt_int dsa_index_head_dim;
    /* DSA layers that compute their own top-k (later sglang prices only
     * their indexer), when the config gives a schedule */
    bool dsa_topk_schedule;
    id_list dsa_topk_ids;
    /* DeepSeek V4 */
    kvplan_opt_int dsv4_window_size, dsv4_index_head_dim;
    id_list compress_ratios;
    /* MiniMax sparse */
    id_list minimax_dense, minimax_sparse, minimax_k_only;
    kvplan_opt_int minimax_index_dim;
    /* hybrid SWA: global ids, ascending */
    id_list full_ids, swa_ids;
    bool hybrid_swa_compress;
    /* sliding layers by transformers' config classes, for vLLM where
     * sglang sizes every layer full (Gemma2/3, Cohere2, layer_types) */
    id_list hf_swa_ids;
    /* the sliding window, by sglang's three rules (§1.9) */
    kvplan_opt_int class_window;         /* rule 1: the model class says */
    kvplan_opt_int config_window;        /* rule 2: sliding_window_size ... */
    kvplan_opt_int attention_chunk_size; /* rule 3 */
    /* mamba / linear hybrids: global ids of the attention layers */
    id_list mamba_full_ids;
    int64_t num_attention_layers;
    bool kv_fp8_quant;   /* ModelOpt FP8 KV cache: "auto" means fp8 */
    bool dsa_dtype_arch; /* DSA's GPU-dependent KV dtype default applies */
    bool self_draft;     /* sglang drafts MTP from the model itself */
    /* for the budget (src/budget/), read by shape.c */
    kvplan__vision_shape vision;
    kvplan__weight_shape weights;
    kvplan__mamba_shape mamba;
    /* the plans' fronts kept for this model (plan/cache.c); NULL: none */
    struct kvplan__plan_cache *plan_cache;
};

/* A model's cache of plan fronts, and its end (plan/cache.c: the plan
 * room owns what it holds; the model allocates it, as a plan may not). */
struct kvplan__plan_cache *kvplan__plan_cache_new(void);
void kvplan__plan_cache_free(struct kvplan__plan_cache *c);

/* ---- json.c: the config as sglang reads it ----------------------------- */

/* The two config objects sglang reads: hf_config (the top) and
 * hf_text_config, with the JSON pointer of the latter for messages. */
typedef struct kvplan__view {
    const json_t *top;
    const json_t *text;
    char text_path[96]; /* "" for a flat config, else "/text_config" ... */
    const char *model_type;
    kvplan_error *err;
    /* the first field read that held NaN or an infinity ("/num_key_value_
     * heads: got NaN"): read as absent, then refused (kvplan__derive) */
    char *nonfinite;
} kvplan__view;

/* config.json's bare NaN, Infinity and -Infinity (Python's json writes
 * them) are parsed as strings of this prefix (U+FDD0, a noncharacter) and
 * the token, so that a field kvplan reads is refused, not defaulted. */
#define KVPLAN__NONFINITE "\xef\xb7\x90"
#define KVPLAN__NONFINITE_SIZE 192

/* config.json's text parsed as Python's json reads it (NaN and Infinity
 * marked, duplicate keys the last wins): *out a new tree, or the error
 * (line and column; a number past 64 bits named by its JSON pointer). */
kvplan_status kvplan__config_parse(const char *text, size_t len,
                                   const char *origin, json_t **out,
                                   kvplan_error *err);
/* The most bytes of a config.json from any source (a file, standard input,
 * a request, the Hub): a 2^20-layer config fits. */
#define KVPLAN__MAX_CONFIG_BYTES                                               \
    ((size_t)32 << 20) /* kvplan__view.nonfinite's room */

/* Fails with `code`, the field named as the JSON pointer of `key` (in the
 * text config when `in_text`). */
kvplan_status kvplan__fail_at(kvplan_error *err, kvplan_status code,
                              const kvplan__view *v, bool in_text,
                              const char *key, const char *fmt, ...)
    KVPLAN_PRINTF(6, 7);
/* obj.key, NULL when absent or null. */
const json_t *kvplan__get(const json_t *obj, const char *key);
/* hf_text_config.key */
const json_t *kvplan__tget(const kvplan__view *v, const char *key);
bool kvplan__hbool(const kvplan__view *v, const char *key);
/* hf_config.key, after the copy-up of the text config's attributes. */
const json_t *kvplan__hget(const kvplan__view *v, const char *key);
const char *kvplan__tstr(const kvplan__view *v, const char *key);
/* An integer of the text config: present (with its class default when the
 * file leaves it out) or not; a non-integer is an error. */
kvplan_status kvplan__tint(const kvplan__view *v, const char *key,
                           kvplan_opt_int *out);
kvplan_status kvplan__tint_required(const kvplan__view *v, const char *key,
                                    int64_t *out);
/* A positive count: layers, heads. */
kvplan_status kvplan__tcount(const kvplan__view *v, const char *key,
                             int64_t *out);
/* An integer of the text config, or `fallback` when absent or invalid. */
int64_t kvplan__tint_or(const kvplan__view *v, const char *key,
                        int64_t fallback);
/* The first of `keys` (NULL-terminated) that the text config sets, as
 * sglang's "first non-None attribute among" rules read it; *key names it. */
kvplan_status kvplan__first_int(const kvplan__view *v, const char *const *keys,
                                kvplan_opt_int *out, const char **key);
kvplan_status kvplan__alloc_ids(id_list *l, size_t n, kvplan_error *err);

/* Indices i < limit of an array whose entry satisfies `pick`. */
typedef bool (*kvplan__picker)(const json_t *entry, const void *arg);
kvplan_status kvplan__ids_where(const kvplan__view *v, const json_t *arr,
                                const char *key, size_t limit,
                                kvplan__picker pick, const void *arg,
                                id_list *out);
bool kvplan__pick_string(const json_t *e, const void *arg);
bool kvplan__pick_int(const json_t *e, const void *arg);
bool kvplan__pick_nonzero(const json_t *e, const void *arg);
bool kvplan__pick_zero(const json_t *e, const void *arg);
char *kvplan__dup_str(const char *s);
/* config.json's text into a model named `name` (hf_id, the overrides and
 * the checkpoint's folder `dir` optional); errors prefixed with `origin`
 * (load.c). */
kvplan_status kvplan__model_load_text(const char *text, size_t len,
                                      const char *origin, const char *name,
                                      const char *hf_id, const char *overrides,
                                      const char *dir, kvplan_model **out,
                                      kvplan_error *err);
/* What a model holds on the heap besides itself and its plan cache: its
 * strings and its id lists, for its free and its copy (load.c). */
#define KVPLAN__MODEL_STRINGS 4
#define KVPLAN__MODEL_ID_LISTS 9
void kvplan__model_owned(kvplan_model *m, char **strs[KVPLAN__MODEL_STRINGS],
                         id_list *lists[KVPLAN__MODEL_ID_LISTS]);
/* A deep copy of a model (memo.c). */
kvplan_status kvplan__model_copy(const kvplan_model *src, kvplan_model **out,
                                 kvplan_error *err);
struct kvplan__catalog_entry;
/* A catalog entry's model: read once per process, then copied (memo.c). */
kvplan_status kvplan__catalog_load(const struct kvplan__catalog_entry *e,
                                   kvplan_model **out, kvplan_error *err);

/* A model read from a Hub snapshot, named by its repo id (not the
 * snapshot's folder). */
kvplan_status kvplan__model_name_as(kvplan_model *m, const char *id,
                                    kvplan_error *err);

/* ---- the derivations, file by file ------------------------------------- */

/* derive.c: everything that depends on the config alone. */
kvplan_status kvplan__derive(kvplan_model *m, const json_t *root,
                             kvplan_error *err);
/* layers.c: hybrid SWA ids (§1.9), mamba/linear attention layers (§1.10),
 * MiniMax sparse layers (§2.3). */
kvplan_status kvplan__derive_swa_ids(kvplan_model *m, const kvplan__view *v);
kvplan_status kvplan__derive_hf_swa_ids(kvplan_model *m, const kvplan__view *v,
                                        int64_t window);
kvplan_status kvplan__derive_mambaish(kvplan_model *m, const kvplan__view *v,
                                      bool *is_mambaish);
kvplan_status kvplan__derive_minimax(kvplan_model *m, const kvplan__view *v);
/* The DSA top-k schedule (index_topk_freq, index_skip_topk_offset,
 * index_topk_pattern, indexer_types), into dsa_topk_ids. */
kvplan_status kvplan__derive_dsa_topk(kvplan_model *m, const kvplan__view *v);
/* sglang's attention DP size: dp_size under --enable-dp-attention, else 1
 * (one attention group). */
static inline int64_t kvplan__attn_dp(const kvplan_server_args *a)
{
    return a->enable_dp_attention ? a->dp_size : 1;
}

/* The attention's TP size (§1.13): tp_size / attn_cp_size / attn_dp, at
 * least 1 (kvplan_model_rank refuses a --tp-size they do not divide). */
static inline int64_t kvplan__attn_tp(const kvplan_server_args *a)
{
    int64_t dp = kvplan__attn_dp(a), cp = a->attn_cp_size;
    int64_t tp = dp > 0 && cp > 0 ? a->tp_size / cp / dp : 0;
    return tp > 1 ? tp : 1;
}

/* rank.c: the checks of kvplan_server_args (ranges, enums) that
 * kvplan_model_rank and kvplan_plan_options_validate make. */
kvplan_status kvplan__server_args_check(const kvplan_server_args *a,
                                        kvplan_error *err);
/* The same, with the rows of a kvplan_plan_options (`plan`, or NULL) in
 * the same walk of the option table. */
kvplan_status kvplan__server_args_check_with(const kvplan_server_args *a,
                                             const void *plan,
                                             kvplan_error *err);
/* rank.c: a flag's value below its least, refused naming the flag ("%s
 * must be >= N, got X"); the optional form passes when absent. */
kvplan_status kvplan__check_least(int64_t x, int64_t least, const char *flag,
                                  kvplan_error *err);
kvplan_status kvplan__check_opt_least(kvplan_opt_int x, int64_t least,
                                      const char *flag, kvplan_error *err);
/* rank.c: a GPU's memory figures as sglang's and the engines' budgets read
 * them: the total between 1 MiB and 1 EiB, what other processes hold (--gpu
 * auto's) at least 0 and below it. */
kvplan_status kvplan__check_gpu_memory(const kvplan_gpu *gpu,
                                       kvplan_error *err);
/* rank.c: kvplan_model_rank for arguments already checked. */
kvplan_status kvplan__model_rank(const kvplan_model *m,
                                 const kvplan_server_args *a, int64_t pp_rank,
                                 kvplan_rank *r, int64_t *context_len,
                                 kvplan_error *err);
/* shape.c: the weight, mamba and vision shapes for the budget; a
 * negative size among them is refused, naming its key. */
kvplan_status kvplan__derive_shapes(kvplan_model *m, const kvplan__view *v);

#endif /* KVPLAN_MODEL_H */
