/*
 * kvplan.h: plan the KV-cache memory of an LLM inference server, exactly as
 * sglang's pool configurator would, without touching a GPU.
 *
 * This header is the whole contract: what is not declared here is not API.
 *
 * The core takes a resolved description of one model-runner rank
 * (kvplan_rank: what sglang's ModelRunner and ModelConfig hold once a model
 * config and the server flags have been read), chooses one of sglang's four
 * pool configurators, and answers its two entry points:
 *
 *   kvplan_calculate_pool_sizes()                  profiling path: bytes in
 *   kvplan_calculate_pool_sizes_from_max_tokens()  constraint path: tokens in
 *   kvplan_finalize_with_max_running_requests()    sizes request-scoped state
 *
 * Integers equal the reference's, and floating-point results are equal bit
 * for bit: the same IEEE-754 operations run in the same order, with Python's
 * floor division of floats where the reference uses it.
 *
 * Conventions:
 * - Bytes and tokens are int64_t, signed like Python's ints in the
 *   reference. A result that would not fit is refused with
 *   KVPLAN_ERR_OVERFLOW, never wrapped.
 * - Every fallible call returns a kvplan_status and, when `err` is not NULL,
 *   fills it (zeroed on success). The library never prints, exits or aborts
 *   on bad input, and keeps no global state (but for a table of jansson's
 *   functions, resolved once so that a host's functions of the same names
 *   cannot shadow them): all calls are thread-safe.
 * - The compute calls allocate nothing. A kvplan_configurator is a plain
 *   value the caller owns; it keeps no pointer into the kvplan_rank it was
 *   built from.
 * - Structs that will grow start with `struct_size`, set by their init
 *   function; a call refuses a struct whose size is not this header's
 *   (a caller built against another version), with
 *   KVPLAN_INVALID_ARGUMENT. kvplan_struct_size() gives every public
 *   struct's size, for bindings that mirror them.
 * - "Auto" is spelled as such (KVPLAN_PAGE_SIZE_AUTO, KVPLAN_KV_AUTO,
 *   an absent kvplan_opt_int); what the library resolved it to is in the
 *   result (kvplan_plan.resolved, kvplan_plan.dtype), never written back
 *   into a request.
 *
 * Contents, in tiers: each builds on the one above it, and a caller may
 * stop at any (search for the section's title).
 *
 *   1. The configurator, exact against sglang's pool_configurator.py:
 *        Status codes and errors; Element types; The resolved description
 *        of one runner rank; sglang versions; Configurators.
 *   2. The plan: a model and a GPU to the pools a server would allocate:
 *        Models; GPUs and the whole plan (budget, allocation, capacity,
 *        fleet; sglang versions side by side); Models on the Hugging Face
 *        Hub and in its local cache.
 *   3. Questions over plans:
 *        Questions: fit and solve; Other engines (vLLM, TensorRT-LLM) and
 *        the three side by side; Reading an sglang start-up log.
 *   4. Options by name: every option in one table, set from text, loaded
 *      (model, GPU, Hub, calibration), and the sweep. The command, the JSON
 *      entry point (kvplan_json.h, its own header) and Python are built on
 *      this tier.
 *   Helpers: names, formats, versions.
 */
#ifndef KVPLAN_H
#define KVPLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KVPLAN_VERSION_MAJOR 0
#define KVPLAN_VERSION_MINOR 14
#define KVPLAN_VERSION_PATCH 0
#define KVPLAN_VERSION_STRING "0.14.0"
/* MAJOR * 10000 + MINOR * 100 + PATCH: compare it with
 * kvplan_version_number() to check that the library loaded is the one
 * this header describes. */
#define KVPLAN_VERSION_NUMBER                                                  \
    (KVPLAN_VERSION_MAJOR * 10000 + KVPLAN_VERSION_MINOR * 100 +               \
     KVPLAN_VERSION_PATCH)

#if defined(_WIN32) && defined(KVPLAN_SHARED_BUILD)
#define KVPLAN_API __declspec(dllexport)
#elif defined(__GNUC__)
#define KVPLAN_API __attribute__((visibility("default")))
#else
#define KVPLAN_API
#endif

/* ------------------------------------------------------------------------ */
/* Status codes and errors                                                   */
/* ------------------------------------------------------------------------ */

/*
 * X(NAME, value, kind, description). The values are pinned: a code is never
 * renumbered or reused. `kind` is the short name used in JSON output
 * (`"error": "out_of_memory"` matches the reference's vocabulary).
 */
#define KVPLAN_STATUS_LIST(X)                                                  \
    X(OK, 0, "ok", "success")                                                  \
    X(INVALID_ARGUMENT, 1, "invalid_argument",                                 \
      "a NULL pointer or an out-of-range argument to a kvplan function")       \
    X(INVALID_CONFIG, 2, "invalid_config",                                     \
      "a rule of the configurator refuses the input")                          \
    X(NOT_ENOUGH_MEMORY, 3, "out_of_memory",                                   \
      "the budget cannot hold the KV-cache pools")                             \
    X(OVERFLOW, 4, "overflow", "a size does not fit in 64 bits")               \
    X(UNSUPPORTED, 5, "unsupported", "a model or option kvplan cannot plan")   \
    X(NOMEM, 6, "alloc_failed", "the host ran out of memory")                  \
    X(IO, 7, "io_error", "a file could not be read")                           \
    X(PARSE, 8, "parse_error", "malformed input text")

typedef enum kvplan_status {
#define KVPLAN_X_ENUM(name, value, kind, text) KVPLAN_##name = value,
    KVPLAN_STATUS_LIST(KVPLAN_X_ENUM)
#undef KVPLAN_X_ENUM
} kvplan_status;

/* Spelled out for readers who grep: KVPLAN_OK, KVPLAN_INVALID_ARGUMENT,
 * KVPLAN_INVALID_CONFIG, KVPLAN_NOT_ENOUGH_MEMORY, KVPLAN_OVERFLOW,
 * KVPLAN_UNSUPPORTED, KVPLAN_NOMEM, KVPLAN_IO, KVPLAN_PARSE. */

/*
 * Details of a failure. Caller-owned, fixed buffers, never needs freeing.
 * On success every function that takes one resets it: code KVPLAN_OK,
 * empty field and message, line and column 0.
 */
typedef struct kvplan_error {
    kvplan_status code; /* the status returned */
    /* What is wrong, as a JSON pointer into the input ("/runner/page_size",
     * "/text_config/num_key_value_heads") or a flag ("--page-size"); "" when
     * no single field is to blame. */
    char field[128];
    /* One or two sentences: what was expected and what was found. */
    char message[512];
    /* 1-based position of a syntax error in a text input; 0 otherwise. */
    uint32_t line;
    uint32_t column;
} kvplan_error;

/* Constant name ("KVPLAN_INVALID_CONFIG") of a status; "KVPLAN_UNKNOWN" for
 * a value outside the list. Never NULL. */
KVPLAN_API const char *kvplan_status_name(kvplan_status status);
/* Short kind ("invalid_config", "out_of_memory", ...). Never NULL. */
KVPLAN_API const char *kvplan_status_kind(kvplan_status status);
/* What the status means, in a few words ("the budget cannot hold the
 * KV-cache pools"). Never NULL. */
KVPLAN_API const char *kvplan_status_message(kvplan_status status);

/* ------------------------------------------------------------------------ */
/* Element types                                                             */
/* ------------------------------------------------------------------------ */

/* torch dtypes that a KV cache or a model can use. 0 means "not given". */
typedef enum kvplan_dtype {
    KVPLAN_DTYPE_UNSET = 0,
    KVPLAN_DTYPE_BFLOAT16 = 1,
    KVPLAN_DTYPE_FLOAT16 = 2,
    KVPLAN_DTYPE_FLOAT32 = 3,
    KVPLAN_DTYPE_FLOAT8_E4M3FN = 4,
    KVPLAN_DTYPE_FLOAT8_E5M2 = 5,
    KVPLAN_DTYPE_FLOAT4_E2M1FN_X2 = 6, /* two fp4 values in one byte: size 1 */
    KVPLAN_DTYPE_UINT8 = 7
} kvplan_dtype;

/* Element size in bytes as torch reports it (torch._utils._element_size);
 * 0 for KVPLAN_DTYPE_UNSET or an unknown value. */
KVPLAN_API int kvplan_dtype_size(kvplan_dtype dtype);
/* torch's name without "torch." ("bfloat16"); NULL for an unknown value. */
KVPLAN_API const char *kvplan_dtype_name(kvplan_dtype dtype);
/* Inverse of kvplan_dtype_name; KVPLAN_DTYPE_UNSET when `name` is unknown
 * or NULL. */
KVPLAN_API kvplan_dtype kvplan_dtype_from_name(const char *name);

struct kvplan_gpu;
/* A KV cache dtype as sglang's log names it on `gpu` (NULL: any): ROCm's
 * fp8 on gfx94x (MI300X, MI325X) is float8_e4m3fnuz, one byte as
 * float8_e4m3fn; otherwise kvplan_dtype_name. */
KVPLAN_API const char *kvplan_kv_dtype_name(kvplan_dtype dtype,
                                            const struct kvplan_gpu *gpu);

/* ------------------------------------------------------------------------ */
/* The resolved description of one runner rank                               */
/* ------------------------------------------------------------------------ */

/* An integer that may be absent (Python's None). */
typedef struct kvplan_opt_int {
    int64_t value; /* meaningful only when `set` */
    bool set;
} kvplan_opt_int;

/* A caller-owned list of layer ids (or, for compress_ratios, one value per
 * layer). `ids` may be NULL when `count` is 0. */
typedef struct kvplan_ids {
    const int64_t *ids;
    size_t count;
} kvplan_ids;

typedef enum kvplan_spec_algorithm {
    KVPLAN_SPEC_NONE = 0,
    KVPLAN_SPEC_EAGLE = 1,  /* EAGLE family */
    KVPLAN_SPEC_EAGLE3 = 2, /* EAGLE family */
    KVPLAN_SPEC_STANDALONE = 3,
    KVPLAN_SPEC_DFLASH = 4, /* DFLASH family */
    KVPLAN_SPEC_DSPARK = 5, /* DFLASH family */
    KVPLAN_SPEC_NGRAM = 6
} kvplan_spec_algorithm;

/* Lower-case name as the golden schema spells it ("eagle3"); NULL when out
 * of range. */
KVPLAN_API const char *kvplan_spec_algorithm_name(kvplan_spec_algorithm a);
/* Inverse; returns false (and leaves *out alone) for an unknown name. */
KVPLAN_API bool kvplan_spec_algorithm_from_name(const char *name,
                                                kvplan_spec_algorithm *out);

typedef enum kvplan_disaggregation_mode {
    KVPLAN_DISAGG_NULL = 0, /* sglang's "null": no PD disaggregation */
    KVPLAN_DISAGG_PREFILL = 1,
    KVPLAN_DISAGG_DECODE = 2
} kvplan_disaggregation_mode;

/* ------------------------------------------------------------------------ */
/* sglang versions: the rules that changed after the seed (docs/versions.md) */
/* ------------------------------------------------------------------------ */

/*
 * The sglang a plan follows. The seed (commit 6cc9352d, what the golden
 * vectors replay) is the default; the others switch the rules that moved
 * before or after it, each rule its own bit below.
 */
typedef enum kvplan_sglang_profile {
    KVPLAN_SGLANG_SEED = 0,  /* 6cc9352d (2026-07-12), the golden vectors */
    KVPLAN_SGLANG_E1 = 1,    /* 0.3.0 - 0.4.7 (approximate) */
    KVPLAN_SGLANG_E2 = 2,    /* 0.4.8 - 0.5.2 (approximate) */
    KVPLAN_SGLANG_E3 = 3,    /* 0.5.3 - 0.5.12 (approximate) */
    KVPLAN_SGLANG_E4 = 4,    /* 0.5.13 - 0.5.15: the seed's rules */
    KVPLAN_SGLANG_V0516 = 5, /* 0.5.16, the release closest to the seed */
    KVPLAN_SGLANG_MAIN = 6   /* E5: 0.5.17 - 0.5.19 and main of 2026-08-22 */
} kvplan_sglang_profile;

/* The rules, one bit each; kvplan_sglang_rules(profile) gives a profile's. */
#define KVPLAN_RULE_DSA_FP8_656 (1ull << 0)           /* #31992 */
#define KVPLAN_RULE_DSA_SKIP_TOPK (1ull << 1)         /* #30531 */
#define KVPLAN_RULE_FP4_MHA_WORKSPACE (1ull << 2)     /* #21601 */
#define KVPLAN_RULE_DCP_KV_HEADS (1ull << 3)          /* #32828 */
#define KVPLAN_RULE_SWA_FLOOR_ERROR (1ull << 4)       /* #31681, #37610 */
#define KVPLAN_RULE_DSV4_DRAFT_PAD (1ull << 5)        /* #34189 */
#define KVPLAN_RULE_MAMBA_PAD_SLOT (1ull << 6)        /* #32184 */
#define KVPLAN_RULE_MM_RESERVE (1ull << 7)            /* #34141 */
#define KVPLAN_RULE_MLA_PREFILL_GRAPH (1ull << 8)     /* #33661, #30898 */
#define KVPLAN_RULE_DCP_NO_PREFILL_GRAPH (1ull << 9)  /* #31532 */
#define KVPLAN_RULE_DEEPEP_PREFILL (1ull << 10)       /* #31987 */
#define KVPLAN_RULE_PREFILL_BS_UNCLAMPED (1ull << 11) /* #30206 */
#define KVPLAN_RULE_VLM_PD_DECODE (1ull << 12)        /* #34262 */
#define KVPLAN_RULE_FRACTION_TIERS (1ull << 13)       /* E2: #7054 */
#define KVPLAN_RULE_SPEC_RESERVE (1ull << 14)   /* E3: removed by #23862 */
#define KVPLAN_RULE_DRAFT_UNPRICED (1ull << 15) /* E2, E3 */
#define KVPLAN_RULE_MRR_AS_GIVEN (1ull << 16)   /* E2, E3: #20142, #27399 */
#define KVPLAN_RULE_DP_ATTN_PREFILL_GRAPH (1ull << 17) /* #30898, #31682 */
#define KVPLAN_RULE_DSV4_SWA_FLOOR (1ull << 18)        /* #37610 */
#define KVPLAN_RULE_AITER_IN_MODEL_RUNNER (1ull << 19) /* before #12136 */
#define KVPLAN_RULE_CONTEXT_TP1_NCCL (1ull << 20)      /* 0.5.17-0.5.19 logs */
#define KVPLAN_RULE_FRACTION_TP_TABLE (1ull << 21) /* before #7054 (0.4.8) */

/* What one rule is. */
typedef struct kvplan_rule_info {
    uint64_t bit;
    const char *name;    /* "dsa_fp8_656" */
    const char *source;  /* the sglang PRs and commits */
    const char *summary; /* what it changes, one line */
    bool exact;          /* restated from code read at that commit; false:
                            from the PR's description or the epoch's shape */
} kvplan_rule_info;

/* The rules kvplan knows, `index` from 0; false past the end. */
KVPLAN_API bool kvplan_rule_at(size_t index, kvplan_rule_info *out);
/* A profile's rules (0 for the seed and E4). */
KVPLAN_API uint64_t kvplan_sglang_rules(kvplan_sglang_profile profile);
/* "seed", "0.4.8-0.5.2", "0.5.3-0.5.12", "0.5.13-0.5.15", "0.5.16",
 * "main"; NULL out of range. */
KVPLAN_API const char *kvplan_sglang_profile_name(kvplan_sglang_profile p);
/* Whether every rule of the profile is exact (the seed, E4, 0.5.16). */
KVPLAN_API bool kvplan_sglang_profile_exact(kvplan_sglang_profile p);
/*
 * The profile of an sglang version as a user writes it: "seed", "main"
 * (or "latest", "e5"), "e2".."e4", a release such as "0.5.9", "v0.5.10.post1"
 * or "0.5.0rc0", or a profile's own name. KVPLAN_INVALID_ARGUMENT for one
 * kvplan has no profile for (older than 0.4.8, newer than 0.5.19, or not a
 * version), with a message that lists the known.
 */
KVPLAN_API kvplan_status kvplan_sglang_profile_parse(const char *version,
                                                     kvplan_sglang_profile *out,
                                                     kvplan_error *err);

/*
 * Everything the reference configurator reads about one rank. The sections
 * and names follow the golden schema (tests/data/golden/README.md), which
 * follows sglang's ModelRunner, ModelConfig and ServerArgs. Fill it with
 * kvplan_rank_init() first: each field's default is given beside it.
 */
typedef struct kvplan_rank {
    uint32_t struct_size; /* sizeof(kvplan_rank), set by kvplan_rank_init */
    struct {
        kvplan_dtype kv_cache_dtype; /* required */
        kvplan_dtype dtype;          /* model dtype; default bfloat16 */
        bool use_mla_backend;        /* default false */
        bool is_hybrid_swa;          /* default false */
        bool is_draft_worker;        /* default false */
        int64_t start_layer;         /* this PP stage's layers [start, end) */
        int64_t end_layer;
        int64_t num_effective_layers; /* layers holding KV on this stage */
        int64_t pp_size;              /* default 1 */
        int64_t pp_rank;              /* default 0 */
        int64_t page_size;            /* required, > 0 */
        int64_t dp_size;              /* attention DP size; default 1 */
        /* Mamba/linear-attention hybrids: global ids of the layers that keep
         * a KV cache. Read only when `is_mambaish`. */
        bool is_mambaish;
        kvplan_ids mambaish_full_attention_layer_ids;
        kvplan_spec_algorithm spec_algorithm;   /* default none */
        kvplan_opt_int eagle_draft_num_layers;  /* absent = unknown */
        kvplan_opt_int dflash_draft_num_layers; /* absent = unknown */
        kvplan_opt_int sliding_window_size;     /* absent = none */
        bool enable_hisparse;                   /* default false */
        /* HiSparse host-to-device ratio; default 2, read only when enabled.
         * sglang takes it as given, an int or a float. */
        double hisparse_host_to_device_ratio;
    } runner;
    struct {
        int64_t attn_tp_size; /* attention TP size; default 1 */
        int64_t attn_cp_size; /* context-parallel size; default 1 */
    } parallel;
    struct {
        int64_t num_key_value_heads; /* total; required */
        kvplan_opt_int
            swa_num_key_value_heads; /* absent: num_key_value_heads */
        kvplan_opt_int head_dim;
        /* Absent or 0: falls back as sglang's `x or y` does. */
        kvplan_opt_int v_head_dim;       /* fallback head_dim */
        kvplan_opt_int swa_head_dim;     /* fallback head_dim */
        kvplan_opt_int swa_v_head_dim;   /* fallback swa_head_dim */
        kvplan_opt_int kv_lora_rank;     /* MLA */
        kvplan_opt_int qk_rope_head_dim; /* MLA, DeepSeek V4 */
        kvplan_opt_int qk_nope_head_dim; /* DeepSeek V4 */
        /* Hybrid sliding window: the ids this rank holds after the PP
         * filter; only their counts matter. */
        kvplan_ids full_attention_layer_ids;
        kvplan_ids swa_attention_layer_ids;
        /* DeepSeek V4 compressed attention. */
        kvplan_ids compress_ratios; /* one per layer: 0, 4 or 128 */
        kvplan_opt_int window_size;
        kvplan_opt_int index_head_dim;
        kvplan_opt_int context_len;
        /* Predicates sglang reads from the HF config, resolved. */
        struct {
            bool is_deepseek_dsa;
            kvplan_opt_int index_head_dim; /* DSA indexer head dim */
            bool is_deepseek_v4;
            bool is_minimax_sparse;
            struct kvplan_minimax_sparse {
                kvplan_ids dense_layer_ids;
                kvplan_ids sparse_layer_ids;
                kvplan_ids disable_value_layer_ids; /* k-only indexer layers */
                kvplan_opt_int sparse_index_dim;
            } minimax_sparse;
        } hf_config;
    } model;
    struct {
        double swa_full_tokens_ratio; /* default 0.8 */
        kvplan_opt_int max_running_requests;
        bool disable_radix_cache; /* default false */
        kvplan_opt_int chunked_prefill_size;
        kvplan_opt_int speculative_num_steps;
        kvplan_opt_int speculative_eagle_topk;
        kvplan_opt_int speculative_num_draft_tokens;
        kvplan_opt_int max_speculative_num_draft_tokens;
        bool disable_overlap_schedule;                  /* default false */
        kvplan_disaggregation_mode disaggregation_mode; /* default null */
        int64_t disaggregation_decode_extra_slots;      /* default 0 */
        bool enable_dsa_cache_layer_split;              /* default false */
    } server_args;
    /* Environment knobs, already parsed as sglang parses them. */
    struct {
        int64_t SGLANG_SWA_EVICTION_INTERVAL; /* default 128 */
        /* Raw value; NULL means the default "float32". Accepted: float32,
         * fp32, bfloat16, bf16, case and surrounding blanks ignored; any
         * other value is refused when the configurator is built. */
        const char *SGLANG_DSV4_COMPRESS_STATE_DTYPE;
        bool SGLANG_OPT_USE_ONLINE_COMPRESS;      /* default false */
        bool SGLANG_EXPERIMENTAL_ONLINE_C128_MTP; /* default false */
    } env;
    /* Later sglang: the rules that differ from the seed's, and what only
     * they read. Default 0: the seed. */
    struct {
        uint64_t rules;   /* KVPLAN_RULE_* bits */
        int64_t dcp_size; /* --dcp-size; default 1 */
        /* KVPLAN_RULE_DSA_SKIP_TOPK: the global ids of the DSA layers that
         * compute their own top-k, when the config gives a schedule
         * (index_topk_freq, index_topk_pattern, indexer_types). */
        bool dsa_topk_schedule;
        kvplan_ids dsa_topk_layer_ids;
        /* KVPLAN_RULE_DSV4_DRAFT_PAD: the most draft tokens the compress
         * state's write pad takes; 0: the default, 4 */
        int64_t dsv4_draft_pad;
    } upstream;
} kvplan_rank;

/* Sets every field to its default (see above); required fields are left
 * unset/0 so that forgetting them is reported. NULL is ignored. */
KVPLAN_API void kvplan_rank_init(kvplan_rank *rank);

/* ------------------------------------------------------------------------ */
/* Configurators                                                             */
/* ------------------------------------------------------------------------ */

typedef enum kvplan_configurator_kind {
    KVPLAN_CONFIGURATOR_DEFAULT = 1,       /* MHA/GQA, MLA, DSA, FP4, ... */
    KVPLAN_CONFIGURATOR_HYBRID_SWA = 2,    /* full + sliding-window pools */
    KVPLAN_CONFIGURATOR_SWA_CHUNK_CAP = 3, /* SWA pool from a token cap */
    KVPLAN_CONFIGURATOR_DSV4 = 4           /* DeepSeek V4 compressed */
} kvplan_configurator_kind;

/* sglang's class name ("DefaultPoolConfigurator"); NULL when out of range. */
KVPLAN_API const char *kvplan_configurator_name(kvplan_configurator_kind k);

/*
 * The terms a configurator's coefficient is made of, as it priced them:
 * what an explanation or an allocation reads, so that nobody re-derives
 * sglang's geometry. 0 (false) where a kind has no such term. Names are
 * the seed's.
 */
typedef struct kvplan_configurator_terms {
    int64_t kv_dtype_bytes; /* the KV cache element size */
    int64_t kv_heads;       /* KV heads per rank: max(1, total // attn_tp) */
    int64_t swa_kv_heads;   /* the same for the sliding-window layers */
    /* Layers holding a KV cache on this stage (mamba hybrids: the
     * attention layers), and those priced after the DSA cache layer split
     * (the same without it). */
    int64_t num_layers;
    int64_t priced_layers;
    /* Draft layers whose KV the coefficient includes (EAGLE/MTP and
     * STANDALONE: eagle_draft_num_layers; DFLASH: its draft's layers). */
    int64_t draft_layers;
    /* MLA: kv_lora_rank + qk_rope_head_dim per token and layer. */
    int64_t mla_latent_dim;
    /* DSA indexer bytes per token and layer: index_head_dim + its fp32
     * scales, index_head_dim // 128 * 4. */
    int64_t dsa_indexer_bytes;
    /* Hybrid SWA and the SWA chunk cap. */
    int64_t full_layers_num, swa_layers_num, draft_full_layers_num;
    int64_t full_per_token, swa_per_token; /* bytes per token per layer */
    double swa_full_tokens_ratio;
    /* DeepSeek V4: KV bytes per token and layer (fp8 nope, bf16 rope, 8
     * scale bytes), and the layers of each compression. */
    int64_t dsv4_kv_bytes;
    int64_t num_layers_total, num_layers_ca4, num_layers_ca128;
    int64_t c4_ring_size, c128_ring_size, c128_state_dtype_size;
    bool online_c128;
    int64_t online_c128_mtp_max_draft_tokens;
} kvplan_configurator_terms;

/* ---- Internal layout, not API ------------------------------------------
 * Visible only so that a kvplan_configurator can be a plain value the
 * caller owns. Its fields change in any release without notice: read the
 * coefficients and `terms` instead. sizeof(kvplan_configurator) is pinned
 * by tests/test_abi.c so that a change is deliberate. */
struct kvplan__configurator_internal {
    int64_t stage_start_layer, stage_end_layer;
    int64_t attn_head_dim, swa_page_size, context_len;
    double c4_shrink_factor;
    bool c4_shrink_is_int;
    bool decode_mode;
    int64_t decode_extra_slots;
    kvplan_opt_int requested_max_running_requests_per_worker;
    int64_t requested_c128_state_fixed_bytes; /* for those requests */
    bool requested_c128_state_overflows;
};

/*
 * A built configurator: a plain value, copyable, with no pointers. Read
 * its coefficient and terms; `internal_` is not API.
 */
typedef struct kvplan_configurator {
    kvplan_configurator_kind kind;
    /* Bytes per token of max_total_num_tokens (all but DeepSeek V4). It is
     * fractional for a hybrid SWA model (the ratio term): then
     * `cell_size_is_float` is true and only `cell_size` holds it; otherwise
     * `cell_size_bytes` is exact and `cell_size` is the same as a double. */
    int64_t cell_size_bytes;
    double cell_size;
    bool cell_size_is_float;
    /* DeepSeek V4: bytes per full-attention token (a float). */
    double bytes_per_full_token;
    /* SWA chunk cap: tokens the SWA pool must hold (unaligned). */
    int64_t swa_cap;
    kvplan_configurator_terms terms;
    struct kvplan__configurator_internal internal_;
} kvplan_configurator;

/*
 * The answer of one entry point: sglang's MemoryPoolConfig.
 * Optional fields are absent (set = false) where the reference leaves them
 * None.
 */
typedef struct kvplan_pool_config {
    int64_t max_total_num_tokens;
    kvplan_opt_int full_max_total_num_tokens;
    kvplan_opt_int swa_max_total_num_tokens;
    int64_t c4_max_total_num_tokens;   /* DeepSeek V4; else 0 */
    int64_t c128_max_total_num_tokens; /* DeepSeek V4; else 0 */
    int64_t c4_state_pool_size;        /* DeepSeek V4; else 0 */
    int64_t c128_state_pool_size;      /* set by finalize; else 0 */
    kvplan_opt_int max_running_requests;
} kvplan_pool_config;

/*
 * Chooses and builds the configurator sglang would use for `rank`
 * (seed: create_memory_pool_configurator):
 *   DeepSeek V4 and hybrid SWA          -> DSV4
 *   hybrid SWA, SWA chunk cap applies   -> SWA_CHUNK_CAP
 *   hybrid SWA                          -> HYBRID_SWA
 *   anything else                       -> DEFAULT
 * Fails with KVPLAN_INVALID_CONFIG where the reference's constructor fails
 * (an assertion or a ValueError) or where a field it reads is missing or
 * out of range, and with KVPLAN_OVERFLOW where a size exceeds int64.
 * On failure `out` is left unusable: the compute calls refuse it with
 * KVPLAN_INVALID_ARGUMENT. Allocates nothing.
 */
KVPLAN_API kvplan_status kvplan_configurator_init(kvplan_configurator *out,
                                                  const kvplan_rank *rank,
                                                  kvplan_error *err);

/*
 * Profiling path: pool sizes from the bytes left for the KV cache
 * (seed: calculate_pool_sizes). KVPLAN_NOT_ENOUGH_MEMORY when they cannot
 * hold one page, with the reference's words and what would be needed.
 * `out` is written only on success; pass err = NULL to skip formatting the
 * message of a failure.
 */
KVPLAN_API kvplan_status kvplan_calculate_pool_sizes(
    const kvplan_configurator *conf, int64_t available_bytes, int64_t page_size,
    kvplan_pool_config *out, kvplan_error *err);

/*
 * Constraint path: pool sizes from a token count, such as a
 * --max-total-tokens cap (seed: calculate_pool_sizes_from_max_tokens).
 */
KVPLAN_API kvplan_status kvplan_calculate_pool_sizes_from_max_tokens(
    const kvplan_configurator *conf, int64_t max_total_num_tokens,
    int64_t page_size, kvplan_pool_config *out, kvplan_error *err);

/*
 * Finalizes `config` once its max_running_requests is known (it must be
 * set): DeepSeek V4 sizes its c128 state pool here; the other configurators
 * leave it as it is (seed: finalize_with_max_running_requests).
 */
KVPLAN_API kvplan_status kvplan_finalize_with_max_running_requests(
    const kvplan_configurator *conf, kvplan_pool_config *config,
    kvplan_error *err);

/* ------------------------------------------------------------------------ */
/* Models: a config.json read the way sglang reads it                        */
/* ------------------------------------------------------------------------ */

/* A loaded model configuration (opaque). Thread-safe to read once loaded:
 * any number of threads may plan with one handle at once. A handle keeps
 * the last few plans' fronts (the flags resolved, the ranks, the weights)
 * and weight estimates, allocated with it and shared under a lock, so that
 * a plan whose options differ from a kept one's only in
 * mem_fraction_static computes just its budget and pools; the answer is
 * the same either way. A catalog name's model is read once per process
 * and copied to each handle loaded after. */
typedef struct kvplan_model kvplan_model;

/*
 * Loads a model's configuration from `name_or_path`: a model directory (its
 * config.json), a config.json file, or a name from kvplan's built-in
 * catalog, short ("llama-3.1-8b-instruct") or the Hugging Face id
 * ("meta-llama/Llama-3.1-8B-Instruct"). A path that exists wins over a
 * catalog name. On success *out owns everything (free it with
 * kvplan_model_free); on failure *out is NULL and `err` names the JSON
 * field (a JSON pointer such as "/text_config/num_key_value_heads") or the
 * line and column of a syntax error. Refuses with KVPLAN_UNSUPPORTED an
 * architecture sglang cannot serve, and with KVPLAN_PARSE a file that is
 * not a Hugging Face config (DeepSeek's reference-inference format).
 */
KVPLAN_API kvplan_status kvplan_model_load(const char *name_or_path,
                                           kvplan_model **out,
                                           kvplan_error *err);

/* The same from JSON text in memory; `origin` names it in messages (may be
 * NULL). */
KVPLAN_API kvplan_status kvplan_model_load_json(const char *text, size_t len,
                                                const char *origin,
                                                kvplan_model **out,
                                                kvplan_error *err);

/* kvplan_model_load_json, then --json-model-override-args as below. */
KVPLAN_API kvplan_status kvplan_model_load_json_override(
    const char *text, size_t len, const char *origin, const char *overrides,
    kvplan_model **out, kvplan_error *err);

/* kvplan_model_load, then sglang's --json-model-override-args: the JSON
 * object `overrides` (may be NULL) updates the config's top level before
 * anything is derived. */
KVPLAN_API kvplan_status kvplan_model_load_override(const char *name_or_path,
                                                    const char *overrides,
                                                    kvplan_model **out,
                                                    kvplan_error *err);

/* Frees a model; NULL is ignored. */
KVPLAN_API void kvplan_model_free(kvplan_model *model);

/* What kvplan derived from the config, before any serving option. The
 * strings live as long as the model. */
typedef struct kvplan_model_info {
    const char *name;         /* catalog short name, or the path given */
    const char *hf_id;        /* Hugging Face id for catalog models; "" */
    const char *architecture; /* architectures[0] */
    const char *model_type;   /* of the text config */
    int64_t num_hidden_layers;
    int64_t num_attention_heads;
    int64_t num_key_value_heads; /* total, before TP (full layers) */
    int64_t head_dim;
    int64_t v_head_dim;
    int64_t hidden_size;
    int64_t vocab_size;
    int64_t context_len; /* derived, before --context-length */
    kvplan_opt_int
        num_nextn_predict_layers; /* MTP layers, if the config says */
    kvplan_dtype dtype;           /* the model dtype with --dtype auto */
    bool is_mla;                  /* sglang's MLA attention */
    bool is_deepseek_dsa;
    bool is_deepseek_v4;
    bool is_minimax_sparse;
    bool is_hybrid_swa;    /* before --disable-hybrid-swa-memory */
    bool is_mambaish;      /* mamba / linear-attention hybrid */
    bool is_draft_only;    /* an EAGLE3 draft head: serves only as a draft */
    int64_t num_kv_layers; /* layers holding a KV cache (all stages) */
} kvplan_model_info;

/* Never NULL for a loaded model. */
KVPLAN_API const kvplan_model_info *
kvplan_model_get_info(const kvplan_model *model);

/* A model's parameters, each counted once (tied embeddings once): the
 * figure its model card publishes. */
typedef struct kvplan_model_params {
    int64_t total;   /* all of them, the vision tower's included */
    int64_t embed;   /* the input embedding */
    int64_t lm_head; /* the output head (a reward model's score): 0 when
                        tied to the embedding */
    int64_t vision;  /* the vision tower and projector sglang loads; 0 */
} kvplan_model_params;

/*
 * `model`'s parameters from config.json's shapes, as the weight estimate
 * lays them out (norms, biases and other tensors under 1 MiB left out:
 * within 0.5 % of transformers' own model classes, tests/test_census.c).
 * KVPLAN_OVERFLOW when the sizes make more than 64 bits count.
 */
KVPLAN_API kvplan_status kvplan_model_parameters(const kvplan_model *model,
                                                 kvplan_model_params *out,
                                                 kvplan_error *err);

/* The built-in catalog: `index` from 0; NULL past the end. */
KVPLAN_API const char *kvplan_catalog_name(size_t index);
KVPLAN_API const char *kvplan_catalog_hf_id(size_t index); /* "" if none */

/* A double that may be absent. */
typedef struct kvplan_opt_double {
    double value;
    bool set;
} kvplan_opt_double;

/* sglang's --kv-cache-dtype choices. */
typedef enum kvplan_kv_cache_dtype_flag {
    KVPLAN_KV_AUTO = 0, /* the model dtype; fp8 for DSV4, ModelOpt FP8 and
                           DSA on Blackwell */
    KVPLAN_KV_FP8_E5M2 = 1,
    KVPLAN_KV_FP8_E4M3 = 2,
    KVPLAN_KV_BF16 = 3, /* "bf16" or "bfloat16" */
    KVPLAN_KV_FP4_E2M1 = 4,
    KVPLAN_KV_FP8 = 5 /* "fp8": vLLM's and TensorRT-LLM's name for fp8_e4m3;
                         not one of sglang's choices, which refuses it */
} kvplan_kv_cache_dtype_flag;

/* sglang's --dtype choices. */
typedef enum kvplan_dtype_flag {
    KVPLAN_DT_AUTO = 0,
    KVPLAN_DT_FLOAT16 = 1, /* "half", "float16" */
    KVPLAN_DT_BFLOAT16 = 2,
    KVPLAN_DT_FLOAT32 = 3 /* "float", "float32" */
} kvplan_dtype_flag;

/*
 * The words sglang's flags take, in sglang's own spellings, one set per
 * flag: what `kvplan --help` lists, what the flag parser and the JSON echo
 * read and write. Speculative algorithms are matched in any case (sglang
 * upper-cases them); the other sets exactly, as argparse does.
 */
typedef enum kvplan_word_set {
    KVPLAN_WORDS_KV_CACHE_DTYPE = 0, /* --kv-cache-dtype: the flag enum */
    KVPLAN_WORDS_DTYPE = 1,          /* --dtype: kvplan_dtype_flag */
    KVPLAN_WORDS_SPECULATIVE_ALGORITHM = 2, /* kvplan_spec_algorithm */
    KVPLAN_WORDS_DISAGGREGATION_MODE = 3,   /* kvplan_disaggregation_mode */
    KVPLAN_WORDS_ATTENTION_BACKEND = 4,     /* names only; value = index */
    KVPLAN_WORDS_QUANTIZATION = 5,          /* --quantization; names only */
    KVPLAN_WORDS_MOE_A2A_BACKEND = 6,       /* --moe-a2a-backend; names only */
    KVPLAN_WORDS_MAMBA_SSM_DTYPE = 7,      /* --mamba-ssm-dtype; value: bytes */
    KVPLAN_WORDS_MAMBA_CACHE_MODE = 8,     /* vLLM's; kvplan_mamba_cache_mode */
    KVPLAN_WORDS_MAMBA_SSM_CACHE_DTYPE = 9 /* vLLM's; value: bytes, 0 auto */
} kvplan_word_set;

/* The `index`-th word a set accepts, aliases included, in the order
 * sglang lists them; its value in *value when not NULL. NULL past the end
 * or for an unknown set. */
KVPLAN_API const char *kvplan_word_at(kvplan_word_set set, size_t index,
                                      int *value);
/* Looks `word` up in `set`: true and *value set, or false (and *value left
 * alone) when the word is not one of the set's, or NULL. */
KVPLAN_API bool kvplan_word_value(kvplan_word_set set, const char *word,
                                  int *value);
/* The canonical word of `value` in `set` (never an alias: "bf16", not
 * "bfloat16"); NULL when none. */
KVPLAN_API const char *kvplan_word_name(kvplan_word_set set, int value);

/* The edit distance of two names, ASCII case ignored, for a "did you
 * mean": 0 to 3, or 4 for more edits, NULL or a name over 120 characters.
 * Linear in the names' length. */
KVPLAN_API int kvplan_edit_distance(const char *a, const char *b);

/*
 * The sglang server flags that shape one rank's KV cache, named after the
 * flags (--tp-size is tp_size). Fill with kvplan_server_args_init(): each
 * default is sglang's. Values are taken as given: kvplan_model_rank() does
 * not apply sglang's GPU-dependent defaults (page size, prefill chunk);
 * kvplan_plan_compute() does, into kvplan_plan.resolved.
 */
#define KVPLAN_PAGE_SIZE_AUTO 0

typedef struct kvplan_server_args {
    uint32_t struct_size; /* set by kvplan_server_args_init */
    int64_t tp_size;      /* default 1 */
    int64_t pp_size;      /* default 1 */
    int64_t dp_size;      /* default 1 */
    bool enable_dp_attention;
    /* --nnodes: the nodes the tp x pp ranks span (default 1); the
     * communicators' context grows with the ranks within one node. In
     * enable_dp_attention's padding: the layout is 0.10's. */
    int32_t nnodes;
    int64_t attn_cp_size; /* context parallel; default 1 */
    /* Tokens per KV page; default KVPLAN_PAGE_SIZE_AUTO: sglang's default,
     * 1 for kvplan_model_rank(), the backend's for kvplan_plan_compute().
     * Negative values are refused. */
    int64_t page_size;
    kvplan_kv_cache_dtype_flag kv_cache_dtype;
    kvplan_dtype_flag dtype;
    kvplan_opt_int context_length;
    kvplan_opt_double swa_full_tokens_ratio; /* absent: 0.8 (DSV4: 0.1) */
    kvplan_opt_int max_running_requests;
    kvplan_opt_int chunked_prefill_size;
    bool disable_radix_cache;
    bool disable_overlap_schedule;
    bool disable_hybrid_swa_memory;
    bool enable_dsa_cache_layer_split;
    bool enable_hisparse;
    double hisparse_host_to_device_ratio; /* default 2 */
    kvplan_spec_algorithm speculative_algorithm;
    kvplan_opt_int speculative_num_steps;
    kvplan_opt_int speculative_eagle_topk;
    kvplan_opt_int speculative_num_draft_tokens;
    /* --speculative-draft-model-path, loaded; NULL: none (the MTP models
     * sglang drafts from their own weights still get their MTP layers). */
    const kvplan_model *speculative_draft_model;
    kvplan_disaggregation_mode disaggregation_mode;
    kvplan_opt_int disaggregation_decode_extra_slots;
    /* The GPU's compute capability, major * 10 + minor (90 Hopper, 100
     * Blackwell): it picks DSA's default KV dtype. Default 90. */
    int gpu_compute_capability;
    /* Environment, as sglang reads it (NULL: unset). */
    const char *SGLANG_PP_LAYER_PARTITION;
    bool SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN;
    int64_t SGLANG_SWA_EVICTION_INTERVAL;         /* default 128 */
    const char *SGLANG_DSV4_COMPRESS_STATE_DTYPE; /* NULL: "float32" */
    bool SGLANG_OPT_USE_ONLINE_COMPRESS;
    bool SGLANG_EXPERIMENTAL_ONLINE_C128_MTP;
} kvplan_server_args;

KVPLAN_API void kvplan_server_args_init(kvplan_server_args *args);

/*
 * Resolves what sglang's ModelConfig and ModelRunner hold for pipeline
 * stage `pp_rank` of `model` served with `args`: exactly the facts the
 * configurator reads (kvplan_rank), ready for kvplan_configurator_init().
 * The rank's id lists point into `model` (and the draft model): keep them
 * alive while the rank is used. *context_len receives the served context
 * length (after --context-length) when not NULL. KVPLAN_INVALID_ARGUMENT
 * names a flag out of its range (the checks of
 * kvplan_plan_options_validate for these flags).
 */
KVPLAN_API kvplan_status kvplan_model_rank(const kvplan_model *model,
                                           const kvplan_server_args *args,
                                           int64_t pp_rank, kvplan_rank *rank,
                                           int64_t *context_len,
                                           kvplan_error *err);

/* ------------------------------------------------------------------------ */
/* GPUs and the whole plan: sglang's budget, constraints and pools           */
/* ------------------------------------------------------------------------ */

typedef struct kvplan_gpu { /* (declared above: kvplan_kv_dtype_name) */
    char name[64];
    double total_mib; /* memory.total as nvidia-smi reports it */
    /* CUDA's major * 10 + minor: 90 Hopper, 100 Blackwell; 0 for AMD. */
    int compute_capability;
    bool is_hip;   /* AMD Instinct */
    char arch[16]; /* "sm90", "sm100", "gfx942", "gfx950" */
    /* The driver's reserve, outside CUDA's view: CUDA's total
     * (torch.cuda.mem_get_info, vLLM's and TensorRT-LLM's total) is
     * total_mib - reserved_mib. NVML's on a probed GPU, measured for a
     * preset where kvplan knows it; 0 where unknown. sglang's rule reads
     * total_mib. */
    double reserved_mib;
    /* What other processes hold on the GPU as probed (--gpu auto), MiB:
     * sglang's budget starts from the memory free before it loads, the
     * least over its ranks, so the plan does too. 0 for a preset and
     * --gpu-memory: an idle card. in_use_by names them ("pid 4242 40.00
     * GiB"), or says why it cannot; "" when none. */
    double in_use_mib;
    char in_use_by[96];
} kvplan_gpu;

/* The preset kvplan_options_load and kvplan_engine_compute take when no
 * GPU is named (sglang's reference board). kvplan_plan_compute takes none
 * by itself: it needs options.gpu or options.available_bytes. */
#define KVPLAN_DEFAULT_GPU "H100-80GB"
/* The model kvplan_options_load takes when none is named. */
#define KVPLAN_DEFAULT_MODEL "llama-3.1-8b-instruct"

/* The built-in presets (H100-80GB, H200, B200, MI300X, ...): `index` from
 * 0; false past the end or when `out` is NULL. */
KVPLAN_API bool kvplan_gpu_preset_at(size_t index, kvplan_gpu *out);
/* A preset by name, any case, '_' as '-' ("h100_80gb"); false when
 * unknown or when `name` or `out` is NULL. */
KVPLAN_API bool kvplan_gpu_preset(const char *name, kvplan_gpu *out);
/*
 * The local GPUs through NVML, loaded at run time (no CUDA at build time):
 * those CUDA_VISIBLE_DEVICES names (indices; all when it is unset), the
 * smallest total memory over them, as sglang takes it, its driver's
 * reserve (nvmlDeviceGetMemoryInfo_v2; 0 where the driver lacks it), what
 * other processes hold (in_use_mib: on the GPU with the least free, what
 * keeps its free memory below the smallest total; with their ids from
 * NVML's compute processes), and their count. KVPLAN_UNSUPPORTED with a
 * message when there is no driver, KVPLAN_INVALID_ARGUMENT naming
 * CUDA_VISIBLE_DEVICES when it names no GPU NVML sees.
 */
KVPLAN_API kvplan_status kvplan_gpu_probe(kvplan_gpu *out, int *count,
                                          kvplan_error *err);

/*
 * The bytes of the weights in a model directory, from the safetensors
 * headers alone (no tensor is read): model.safetensors.index.json's
 * metadata.total_size, else the sum over its *.safetensors files, each
 * tensor's data_offsets checked against the file and its dtype x shape
 * (and over the SHARD.kvplan-header files kvplan_hub_fetch keeps, where
 * their shard is not there).
 * Give them to kvplan_plan_options.weight_bytes; without them the plan
 * estimates the weights from config.json. KVPLAN_IO when `dir` is not a
 * directory or holds no index and no *.safetensors; KVPLAN_PARSE (naming
 * the file and the tensor) for one that is special, unreadable or
 * malformed, KVPLAN_OVERFLOW when the bytes exceed 64 bits.
 */
KVPLAN_API kvplan_status kvplan_weights_from_dir(const char *dir,
                                                 int64_t *bytes,
                                                 kvplan_error *err);

/* ------------------------------------------------------------------------ */
/* Models on the Hugging Face Hub and in its local cache (docs/hub.md)       */
/* ------------------------------------------------------------------------ */

/* What kvplan_hub_fetch reads, as the Hub's own tools take it (the command
 * fills it from HF_ENDPOINT, HF_TOKEN, HF_TOKEN_PATH, HF_HOME,
 * HF_HUB_CACHE and HF_HUB_OFFLINE). Fill with kvplan_hub_options_init. */
typedef struct kvplan_hub_options {
    uint32_t struct_size;
    const char *endpoint;  /* NULL: https://huggingface.co */
    const char *revision;  /* a branch, tag or commit; NULL: "main" */
    const char *token;     /* a Bearer token for gated repos; NULL: none */
    const char *cache_dir; /* the HF hub cache; NULL: none kept */
    bool offline;          /* the cache alone */
    double timeout_s;      /* per request, 0.001 to 3600 s; 0: 30 */
    int retries;           /* on a 5xx answer or a timeout; default 2 */
    double deadline_s;     /* the whole fetch, 0.001 to 86400 s; 0: 300 */
    int parallel;          /* requests at once, 1 to 32; 0: 8 */
    /* Called after each file fetched (done of total), when not NULL. */
    void (*progress)(void *ctx, size_t done, size_t total, const char *file);
    void *progress_ctx;
} kvplan_hub_options;

/* Defaults (struct_size set). NULL is ignored. */
KVPLAN_API void kvplan_hub_options_init(kvplan_hub_options *options);

/* Whether `name` has the form of a Hub repo id, "org/name". */
KVPLAN_API bool kvplan_hub_repo_id(const char *name);

/* The Hub cache folder as huggingface_hub picks it: HF_HUB_CACHE, else
 * HF_HOME/hub, else HOME/.cache/huggingface/hub (each NULL or "" when
 * unset). false when none can be formed or it does not fit `size`. */
KVPLAN_API bool kvplan_hub_cache_dir(const char *hf_hub_cache,
                                     const char *hf_home, const char *home,
                                     char *out, size_t size);

typedef struct kvplan_hub_result {
    char dir[4096];  /* the snapshot folder: load and measure it */
    char commit[48]; /* the revision's commit (as the Hub said it) */
    bool from_cache; /* no request made: the cache's snapshot */
    int64_t files;   /* files fetched */
    int64_t bytes;   /* bytes fetched */
} kvplan_hub_result;

/*
 * Makes model `repo_id` at options->revision a local folder kvplan can
 * load (kvplan_model_load) and measure (kvplan_weights_from_dir): its
 * config.json, its model.safetensors.index.json and hf_quant_config.json,
 * and of each safetensors shard only the header (two range requests, no
 * weight read), kept beside the config as SHARD.kvplan-header. It reads
 * them from the Hub cache when a snapshot of that revision is complete
 * there or `offline` is set, else from {endpoint}/{repo_id}/resolve/
 * {revision}/, several requests at once over kept connections, and keeps
 * them in the cache in the Hub's layout (models--org--name/snapshots/
 * {commit}/, refs/{revision}): complete, with its marker written last, or
 * not at all (docs/hub.md). Safe to call from several threads and
 * processes on one cache. Errors name the URL and what to do: KVPLAN_IO
 * for a repo or revision the Hub does not have (404), a refusal (401, 403:
 * set a token), a server error after the retries, a timeout, the fetch's
 * deadline (field "KVPLAN_HUB_DEADLINE"), a redirect off the endpoint's
 * host or to another protocol, a network failure, a cache that lacks it
 * when offline; KVPLAN_PARSE for an answer that is not what it should be
 * (a config.json that is not a JSON object, a body over its cap, a header
 * longer than 16 MiB or not JSON); KVPLAN_INVALID_ARGUMENT for an option
 * out of range (named: timeout_s, deadline_s, parallel, token, endpoint,
 * --revision); KVPLAN_UNSUPPORTED when kvplan was built without libcurl
 * (KVPLAN_WITH_CURL=OFF) and the cache does not have it.
 */
KVPLAN_API kvplan_status kvplan_hub_fetch(const char *repo_id,
                                          const kvplan_hub_options *options,
                                          kvplan_hub_result *out,
                                          kvplan_error *err);

/* kvplan_hub_fetch, then kvplan_model_load of the snapshot: *out owns the
 * model (kvplan_model_free), `result` (optional) says where it came from;
 * measure its weights with kvplan_weights_from_dir(result->dir). */
KVPLAN_API kvplan_status kvplan_model_load_hub(
    const char *repo_id, const kvplan_hub_options *options, kvplan_model **out,
    kvplan_hub_result *result, kvplan_error *err);

#define KVPLAN_MAX_PP_STAGES 64

/* Options of a whole plan: the server flags plus what sizes the budget.
 * Fill with kvplan_plan_options_init(); every value is a request, and
 * kvplan_plan_compute() checks each (range, enum) and names the flag of
 * the first that is wrong. */
typedef struct kvplan_plan_options {
    uint32_t struct_size; /* set by kvplan_plan_options_init */
    /* sglang's flags (page_size KVPLAN_PAGE_SIZE_AUTO: sglang's default for
     * the GPU, model and backend). */
    kvplan_server_args server;
    const char *model_path; /* as given: sglang checks it for "llama-2" */
    kvplan_opt_int max_total_tokens;   /* >= 1 */
    kvplan_opt_int max_prefill_tokens; /* >= 1; absent: 16384 */
    kvplan_opt_int cuda_graph_max_bs;  /* >= 1; absent: by GPU memory */
    bool disable_cuda_graph;
    /* One of sglang's names (KVPLAN_WORDS_ATTENTION_BACKEND); NULL:
     * sglang's default for the GPU and model. */
    const char *attention_backend;
    bool gpu_set;
    /* mem_fraction_static as a log of sglang printed it (kvplan log): where
     * that sglang prints it after its own adjustments (the aiter
     * backend's x 0.85; server_args since #12136), they are not made
     * again. */
    bool mem_fraction_printed;
    kvplan_gpu gpu;
    /* Skips the budget: the bytes sglang's _profile_available_bytes
     * returned (for checks against a real log). */
    kvplan_opt_int available_bytes;
    /* Weights of the whole model and of the draft, in bytes (>= 0; see
     * kvplan_weights_from_dir); absent: an estimate from the config
     * (reported as such). */
    kvplan_opt_int weight_bytes;
    kvplan_opt_int draft_weight_bytes;
    /* The memory flags only the budget reads (docs/planning.md). */
    const char *quantization;    /* --quantization; NULL: the config's */
    int64_t ep_size;             /* --ep-size, divides tp_size; default 1 */
    int64_t dcp_size;            /* --dcp-size, divides tp_size; default 1 */
    const char *moe_a2a_backend; /* --moe-a2a-backend; NULL: "none" */
    kvplan_opt_int max_mamba_cache_size;       /* >= 1 */
    kvplan_opt_double mamba_full_memory_ratio; /* > 0; absent: 0.9 */
    /* The mamba ssm state's dtype: --mamba-ssm-dtype, else the
     * SGLANG_MAMBA_SSM_DTYPE environment variable, else the config's
     * mamba_ssm_dtype, else float32. "float32", "bfloat16", "float16". */
    const char *mamba_ssm_dtype;
    const char *SGLANG_MAMBA_SSM_DTYPE;
    /* Measured on this GPU at this rank count (a calibration, kvplan log
     * --calibrate): the CUDA context and communicators of one rank, and
     * one rank's weights as loaded (a log's "mem usage", draft excluded).
     * Set, they replace the model's terms and are reported "measured". */
    kvplan_opt_int context_bytes;
    kvplan_opt_int rank_weight_bytes;
    /* --sglang-version: the rules of that sglang; default the seed's. */
    kvplan_sglang_profile sglang_version;
    /* SGLANG_VLM_CACHE_SIZE_MB (KVPLAN_RULE_MM_RESERVE); absent: 100. */
    kvplan_opt_int SGLANG_VLM_CACHE_SIZE_MB;
    /* KVPLAN_RULE_* bits switched against the profile's (what one rule
     * does alone: kvplan --compare-version); default 0. */
    uint64_t sglang_rules_flip;
    /* in (0, 1); absent: the rule. Last: a sweep over it compares the
     * options before it in one piece (kvplan_plan_update). */
    kvplan_opt_double mem_fraction_static;
} kvplan_plan_options;

/* Defaults for every field (struct_size set, page size auto, no GPU).
 * NULL is ignored. */
KVPLAN_API void kvplan_plan_options_init(kvplan_plan_options *options);

/*
 * Checks every option kvplan_plan_compute() reads, without planning:
 * struct_size, each count >= 1, fractions and ratios in range and finite,
 * each enum one of its values, the attention backend one of sglang's.
 * KVPLAN_INVALID_ARGUMENT naming the flag ("--mem-fraction-static") of the
 * first that is wrong.
 */
KVPLAN_API kvplan_status kvplan_plan_options_validate(
    const kvplan_plan_options *options, kvplan_error *err);

/* Bytes the pools really take (docs/sglang-rules.md §5), beside the
 * configurator's price. */
typedef struct kvplan_allocation {
    int64_t kv_bytes; /* target KV pools, padding page included */
    /* Bytes per token and layer of the main KV pool as allocated: MHA K+V
     * rows, MLA latent rows (DSA fp8: fp8 latent, its scales and a bf16
     * rope), DeepSeek V4's rows. */
    int64_t kv_row_bytes;
    int64_t draft_kv_bytes;     /* the draft's pool at the same tokens */
    int64_t req_to_token_bytes; /* int32 (rows, context_len + extra) */
    int64_t mamba_state_bytes;  /* mamba / linear hybrids */
    int64_t predicted_kv_bytes; /* tokens * the configurator's coefficient */
} kvplan_allocation;

/* One tensor of a weight estimate, as the binding rank holds it. */
typedef struct kvplan_weight_tensor {
    const char *name;             /* static: "self_attn.qkv_proj" */
    int64_t rows, cols;           /* the whole tensor */
    int64_t rank_rows, rank_cols; /* the rank's part of it */
    int64_t count;                /* copies on the rank (its layers) */
    double elem_bytes;            /* per element, scales included */
    int64_t rank_bytes;           /* one copy, as PyTorch's allocator rounds it
                                     (g_idx included) */
} kvplan_weight_tensor;

#define KVPLAN_MAX_WEIGHT_TENSORS 32

/* Where a budget term comes from. */
typedef enum kvplan_source {
    KVPLAN_SOURCE_GIVEN = 0, /* the caller's (a flag) */
    KVPLAN_SOURCE_MEASURED,  /* read from the model directory or the GPU,
                                or a public log of this GPU at this rank
                                count */
    KVPLAN_SOURCE_PRESET,    /* a GPU preset's figure */
    KVPLAN_SOURCE_ESTIMATED, /* modelled */
    KVPLAN_SOURCE_EXACT      /* the engine's own rule, restated: a term
                                the version followed does not count */
} kvplan_source;

/* "given", "measured", "preset", "estimated", "exact"; "?" out of range. */
KVPLAN_API const char *kvplan_source_name(kvplan_source source);

/* One pipeline stage. */
typedef struct kvplan_stage_plan {
    int64_t pp_rank;
    kvplan_rank rank;
    kvplan_configurator configurator;
    int64_t available_bytes;     /* handed to the profiling path */
    kvplan_pool_config profiled; /* what the budget holds */
    kvplan_pool_config pools;    /* after --max-total-tokens, the PP min,
                                    max_running_requests and finalize */
    kvplan_allocation allocation;
    int64_t weight_bytes; /* this rank's share */
    int64_t draft_weight_bytes;
    int64_t max_mamba_cache_size; /* requests; 0 unless mambaish */
} kvplan_stage_plan;

/* The budget's terms (docs/sglang-rules.md §3.1, §4.1), in sglang's units. */
typedef struct kvplan_budget {
    bool given; /* --available-bytes: no budget computed */
    double gpu_mem_mib;
    double mem_fraction_static;
    bool mem_fraction_auto;
    double reserved_mib; /* the rule's reserve */
    double activation_mib;
    double graph_mib;
    int64_t prefill_graph_bs_count;
    double context_overhead_bytes; /* CUDA context, NCCL: an estimate */
    double pre_load_gib;           /* free before the weights */
    double post_load_gib;          /* free after target and draft weights */
    double rest_gib;               /* post - pre * (1 - f), before mamba */
    double mamba_gib;              /* the mamba state reservation */
    bool weights_estimated;
    bool draft_weights_estimated;
    /* Where the terms come from, and what they rest on (static text). */
    kvplan_source gpu_source;     /* the total: a preset's, or the
                                     caller's kvplan_gpu */
    kvplan_source context_source; /* context_overhead_bytes */
    const char *context_basis;
    kvplan_source weights_source;
    /* The rule that made the reserve (kvplan_plan.rules): the seed's sum,
     * reserved_mib = max(512 + activation_mib + reserve_ranks / 8 x 1024 +
     * graph_mib, floor_mib) + deepep_mib (+ spec_reserve_mib, 0.5.3 -
     * 0.5.12); or sglang 0.4.8 - 0.5.2's tiers (fraction_tiers:
     * KVPLAN_RULE_FRACTION_TIERS), reserved_mib = (tier_base_gib +
     * reserve_ranks x tier_per_rank_gib) x 1024 + spec_reserve_mib +
     * dp_attention_mib. */
    bool fraction_tiers;
    double reserve_ranks; /* tp_size x pp_size, as the rule read them */
    double floor_mib;     /* 10240 above 60 GiB; 0 */
    double tier_base_gib, tier_per_rank_gib;
    double dp_attention_mib; /* the tiers' 4096 with DP attention */
    /* sglang's rule: round(...) before its factors, and the factors */
    double fraction_rule;
    double vision_factor; /* 0.95 * adj, or 1 */
    double aiter_factor;  /* 0.85 (aiter, context > 8192), or 1 */
    double deepep_mib;    /* the DeepEP reserve, in the rule */
    /* The reserve the fixed pools live in, pre * (1 - f), and what they
     * take of it: req_to_token, the DeepEP buffers, the pools' rows beyond
     * their price (more than the reserve: sglang could not start). */
    double slack_gib;
    double fixed_gib;
    /* The estimate, tensor by tensor, for the rank with the most weights
     * (none when the weights were given or measured). */
    double load_overhead_bytes; /* beyond the tensors, per rank */
    /* What the budget subtracts for the rank with the most weights: its
     * weights as loaded (the overhead included) and its draft's. */
    double rank_weight_bytes;
    double rank_draft_bytes;
    /* config.json's estimate of that rank's weights as loaded, beside the
     * figure planned with (which may be measured or given). */
    double estimated_rank_weight_bytes;
    /* Later sglang's terms (kvplan_plan.rules): the multimodal cache it
     * takes out of the available bytes (KVPLAN_RULE_MM_RESERVE), and the
     * flat speculative reserve of the fraction (KVPLAN_RULE_SPEC_RESERVE). */
    double mm_reserve_mib;
    double spec_reserve_mib;
    size_t num_weight_tensors;
    kvplan_weight_tensor weight_tensors[KVPLAN_MAX_WEIGHT_TENSORS];
} kvplan_budget;

/* What a plan that fits still warns of. */
typedef enum kvplan_warning_code {
    KVPLAN_WARN_CONTEXT_TOO_LONG =
        1, /* one request at context_len cannot fit */
    KVPLAN_WARN_MAX_TOTAL_TOKENS_ABOVE_PROFILED, /* sglang's warning */
    KVPLAN_WARN_MAX_RUNNING_REQUESTS_REDUCED,    /* sglang's warning */
    KVPLAN_WARN_QUANTIZATION_UNKNOWN,            /* priced at the model dtype */
    KVPLAN_WARN_NAME_SAYS_QUANTIZED, /* "FP8" in the name, no config */
    KVPLAN_WARN_RESERVE_TIGHT,    /* little room left for graphs, activations */
    KVPLAN_WARN_SWA_BELOW_WINDOW, /* later sglang refuses it (ValueError) */
    KVPLAN_WARN_NO_DRAFT,         /* unused since 0.8: a draft algorithm with no
                                     draft model is refused (KVPLAN_INVALID_CONFIG),
                                     as sglang does not start */
    KVPLAN_WARN_GPU_IN_USE        /* --gpu auto: other processes hold memory */
} kvplan_warning_code;

typedef struct kvplan_warning {
    kvplan_warning_code code;
    const char *field; /* the flag that changes it (static), or NULL */
    char message[240];
} kvplan_warning;

/* One slot per code: a plan warns of each at most once, so none is ever
 * left out. */
#define KVPLAN_MAX_WARNINGS 8

/* ---- Capacity: what the pools hold and what one request costs ------------
 * docs/capacity.md. Per DP worker, on the binding stage. */

typedef enum kvplan_pool_kind {
    KVPLAN_POOL_FULL = 1,   /* full-attention KV: every token of a request */
    KVPLAN_POOL_SWA,        /* sliding-window KV: a request holds its window */
    KVPLAN_POOL_C4,         /* DeepSeek V4: 1 token per 4 (x the shrink) */
    KVPLAN_POOL_C128,       /* DeepSeek V4: 1 token per 128 */
    KVPLAN_POOL_C4_STATE,   /* DeepSeek V4: compress state per SWA page */
    KVPLAN_POOL_C128_STATE, /* DeepSeek V4: one ring per request */
    KVPLAN_POOL_MAMBA       /* mamba / linear-attention state slots */
} kvplan_pool_kind;

/* "full", "swa", "c4", "c128", "c4_state", "c128_state", "mamba"; "?" out
 * of range. */
KVPLAN_API const char *kvplan_pool_kind_name(kvplan_pool_kind kind);

/*
 * One pool. A request of P prompt and D decode tokens, L = P + D rounded
 * up to the plan's page, costs
 *
 *   ceil(min(L, request_cap) / tokens_per_unit) * units_per_step
 *     + per_request
 *
 * of capacity_tokens (the first term only when tokens_per_unit > 0;
 * request_cap 0 is no cap). reserved_tokens are held back from every
 * request: the SWA pool's prefill chunks in flight.
 */
typedef struct kvplan_pool_info {
    kvplan_pool_kind kind;
    int64_t capacity_tokens; /* tokens, or slots for the state pools */
    int64_t reserved_tokens;
    /* The configurator's price of one token (slot) of this pool on this
     * rank, every layer (the full pool's includes the draft's layers and
     * the DSA indexer; DeepSeek V4's full pool is its bytes per full token,
     * all pools together); the state pools': as allocated. */
    double bytes_per_token;
    int64_t page_size; /* allocation granule, tokens (slots) */
    /* the cost rule above */
    double tokens_per_unit;
    int64_t request_cap;
    int64_t units_per_step;
    int64_t per_request;
} kvplan_pool_info;

#define KVPLAN_MAX_POOLS 8

/* What bounds a figure. */
typedef enum kvplan_limit {
    KVPLAN_LIMIT_NONE = 0,
    KVPLAN_LIMIT_POOL,                 /* pools[..._pool] */
    KVPLAN_LIMIT_CONTEXT_LEN,          /* the request length sglang accepts */
    KVPLAN_LIMIT_MAX_RUNNING_REQUESTS, /* the scheduler's cap */
    KVPLAN_LIMIT_REQ_TO_TOKEN          /* the request slots' rows */
} kvplan_limit;

/* "none", "pool", "context_len", "max_running_requests", "req_to_token";
 * "?" out of range. */
KVPLAN_API const char *kvplan_limit_name(kvplan_limit limit);

typedef struct kvplan_capacity {
    size_t num_pools;
    kvplan_pool_info pools[KVPLAN_MAX_POOLS];
    int64_t page_size; /* the plan's: requests are rounded to it */
    int64_t context_len;
    int64_t max_running_requests; /* per DP worker */
    int64_t req_to_token_rows;    /* request slots (PD decode's included) */
    /* The longest request one worker admits (sglang's max_req_len:
     * context_len, at most max_total_num_tokens - 1, and what the pools
     * hold), and what bounds it. */
    int64_t longest_request_tokens;
    kvplan_limit longest_binding;
    size_t longest_pool;
    /* Requests of context_len tokens running at once, and what bounds it. */
    int64_t max_concurrency_at_context_len;
    kvplan_limit binding;
    size_t binding_pool;
} kvplan_capacity;

/* The pools' use: tokens (slots) taken in each pool, in the order of
 * kvplan_capacity.pools, and the requests running. */
typedef struct kvplan_usage {
    int64_t running_requests;
    int64_t used[KVPLAN_MAX_POOLS];
} kvplan_usage;

typedef struct kvplan_admission {
    bool admit;
    kvplan_limit refused_by;        /* NONE when admitted */
    size_t pool;                    /* with KVPLAN_LIMIT_POOL */
    int64_t cost[KVPLAN_MAX_POOLS]; /* the request's, per pool */
} kvplan_admission;

/*
 * What a request of `prompt` + `decode` tokens costs in each pool of
 * `capacity` (the rule of kvplan_pool_info), into cost[0..num_pools).
 * KVPLAN_INVALID_ARGUMENT for a negative count, KVPLAN_OVERFLOW past 64
 * bits. Allocation-free and thread-safe.
 */
KVPLAN_API kvplan_status kvplan_request_cost(const kvplan_capacity *capacity,
                                             int64_t prompt, int64_t decode,
                                             int64_t cost[KVPLAN_MAX_POOLS],
                                             kvplan_error *err);

/*
 * May a request of `prompt` + `decode` tokens start now, with the pools
 * used as `usage` says (NULL: empty)? out->admit, and otherwise what
 * refuses it: the request length (CONTEXT_LEN), the running requests
 * (MAX_RUNNING_REQUESTS), or the first pool it would overfill (POOL, by
 * index). Allocation-free and thread-safe; err only for bad arguments.
 */
KVPLAN_API kvplan_status kvplan_admit(const kvplan_capacity *capacity,
                                      const kvplan_usage *usage, int64_t prompt,
                                      int64_t decode, kvplan_admission *out,
                                      kvplan_error *err);

/*
 * The GPUs a plan occupies and what they serve together: the one rule every
 * report, sweep and comparison reads (docs/planning.md). sglang launches
 * tp_size x pp_size ranks per server; --dp-size without DP attention
 * launches that many whole servers (replicas), with DP attention the dp
 * workers share one server's ranks. Each DP worker (a replica, or an
 * attention DP worker) holds the capacity's pools.
 */
typedef struct kvplan_fleet {
    int64_t gpus;             /* gpus_per_replica x replicas */
    int64_t gpus_per_replica; /* tp_size x pp_size */
    int64_t replicas;         /* dp_size without DP attention; else 1 */
    int64_t dp_workers;       /* dp_size: the schedulers, each with pools */
    /* Requests of context_len at once on all the GPUs (the capacity's per
     * worker x dp_workers), and that per GPU. */
    int64_t concurrency_at_context_len;
    double concurrency_per_gpu;
} kvplan_fleet;

/* A whole plan: resolved flags, the budget and every PP stage. The plan
 * owns its data: it holds no pointer into the model or the options (the
 * stages' id lists are emptied: ids NULL, counts kept), so it outlives
 * both. Only the first num_stages stages are written. */
typedef struct kvplan_plan {
    uint32_t struct_size; /* written by kvplan_plan_compute */
    /* The server args as sglang resolved them: page size and backend,
     * prefill chunk, the model's and the speculative hooks' values
     * (max_running_requests, speculative parameters), PD decode's radix
     * cache, and the flags that name the dtypes run (auto where no flag's
     * word does: a float16 or float32 KV cache). Pointers are NULL. */
    kvplan_server_args resolved;
    /* The dtypes the ranks run, in their own type: the model's and the KV
     * cache's (float16 under --dtype float16, where resolved.kv_cache_dtype
     * stays auto). */
    kvplan_dtype dtype, kv_cache_dtype;
    int64_t page_size;            /* = resolved.page_size */
    int64_t chunked_prefill_size; /* = resolved.chunked_prefill_size */
    int64_t max_prefill_tokens;
    int64_t cuda_graph_max_bs;
    char attention_backend[32];
    int64_t context_len;
    int64_t max_running_requests; /* per DP worker */
    int64_t max_total_num_tokens; /* the cluster's: min over stages */
    /* The longest request the pool holds: context_len, or fewer tokens
     * when the pool is smaller (then a KVPLAN_WARN_CONTEXT_TOO_LONG). */
    int64_t longest_request;
    /* The sglang followed (options.sglang_version) and its rules. */
    kvplan_sglang_profile sglang_version;
    uint64_t rules;
    size_t num_warnings;
    kvplan_warning warnings[KVPLAN_MAX_WARNINGS];
    /* Per pool, what it holds and what a request costs (binding stage). */
    kvplan_capacity capacity;
    /* The GPUs it occupies, and what they hold together. */
    kvplan_fleet fleet;
    kvplan_budget budget;
    size_t num_stages;
    size_t binding_stage; /* the stage with the fewest tokens */
    kvplan_stage_plan stages[KVPLAN_MAX_PP_STAGES];
} kvplan_plan;

/*
 * Plans `model` served with `options` as sglang would start it: resolves
 * the GPU-dependent defaults (page size and attention backend, prefill
 * chunk, cuda-graph batch size, mem_fraction_static), computes each
 * stage's available bytes, runs the configurator's profiling path, applies
 * --max-total-tokens and the PP minimum (constraint path), resolves
 * max_running_requests and finalizes; then prices what the pools really
 * allocate. First it checks the options (kvplan_plan_options_validate):
 * KVPLAN_INVALID_ARGUMENT names a wrong flag; KVPLAN_INVALID_CONFIG a
 * combination sglang refuses; KVPLAN_NOT_ENOUGH_MEMORY a budget that
 * holds no page, no request or not even the weights. `out` is large (see
 * KVPLAN_MAX_PP_STAGES): allocate it, not on a small stack; only its
 * header and the stages used are written. Allocates nothing.
 */
KVPLAN_API kvplan_status kvplan_plan_compute(const kvplan_model *model,
                                             const kvplan_plan_options *options,
                                             kvplan_plan *out,
                                             kvplan_error *err);

/*
 * kvplan_plan_compute for `options` when `prev` is the plan of
 * `prev_options` (kvplan_plan_compute or this call returned KVPLAN_OK for
 * them): where the two differ only in the GPU's memory (gpu.total_mib,
 * gpu.name) and mem_fraction_static, and sglang resolves the same flags
 * for both, prev's ranks, configurators and weights are reused and only
 * the budget and the pools are computed again; otherwise it is
 * kvplan_plan_compute. The result is kvplan_plan_compute's either way
 * (tests/test_sweep.c). `out` must not be `prev`. For a sweep over GPUs
 * and fractions. Allocates nothing.
 */
KVPLAN_API kvplan_status kvplan_plan_update(
    const kvplan_model *model, const kvplan_plan_options *options,
    const kvplan_plan_options *prev_options, const kvplan_plan *prev,
    kvplan_plan *out, kvplan_error *err);

/* ------------------------------------------------------------------------ */
/* Questions: fit and solve (docs/capacity.md)                               */
/* ------------------------------------------------------------------------ */

/*
 * The longest --context-length L at which `concurrency` requests of L
 * tokens fit (capacity.max_concurrency_at_context_len >= concurrency),
 * searching up to options' context_length, or the model's when absent.
 * Every other option holds. On success *context_len is L and `work` holds
 * the plan at L (the same as kvplan_plan_compute with context_length L),
 * and the plan at L + 1, when L is not the ceiling, does not fit.
 * KVPLAN_NOT_ENOUGH_MEMORY when not even a request of one token fits that
 * many times; the errors of kvplan_plan_compute otherwise. Allocates
 * nothing; `work` is a plan's worth of memory.
 */
KVPLAN_API kvplan_status kvplan_fit_context(const kvplan_model *model,
                                            const kvplan_plan_options *options,
                                            int64_t concurrency,
                                            kvplan_plan *work,
                                            int64_t *context_len,
                                            kvplan_error *err);

/* The knob kvplan_solve() turns. */
typedef enum kvplan_knob {
    KVPLAN_KNOB_MEM_FRACTION_STATIC = 1, /* on a 1e-6 grid in (0, 1) */
    KVPLAN_KNOB_TP_SIZE,                 /* 1, 2, 4, ... 64 */
    KVPLAN_KNOB_GPU,                     /* the presets, least memory first */
    KVPLAN_KNOB_MAX_RUNNING_REQUESTS,    /* 1 .. 2^24 */
    KVPLAN_KNOB_SWA_FULL_TOKENS_RATIO,   /* on a 1e-6 grid in (0, 1] */
    KVPLAN_KNOB_KV_CACHE_DTYPE /* auto, bf16, fp8_e4m3, fp8_e5m2, fp4_e2m1 */
} kvplan_knob;

/* The flag's name without dashes ("mem-fraction-static"); NULL out of
 * range. */
KVPLAN_API const char *kvplan_knob_name(kvplan_knob knob);
/* By that name; false when unknown or NULL. */
KVPLAN_API bool kvplan_knob_from_name(const char *name, kvplan_knob *out);

/* What to reach: max_total_num_tokens >= tokens (when > 0), or
 * capacity.max_concurrency_at_context_len >= concurrency at the options'
 * context length (when > 0). Exactly one is set. */
typedef struct kvplan_target {
    int64_t tokens;
    int64_t concurrency;
} kvplan_target;

typedef struct kvplan_solution {
    bool found;
    kvplan_knob knob;
    /* The answer: mem_fraction_static or swa_full_tokens_ratio (a 1e-6
     * multiple), tp_size or max_running_requests (integers in a double),
     * or the GPU, or the KV cache dtype. */
    double value;
    kvplan_gpu gpu;
    kvplan_kv_cache_dtype_flag kv_cache_dtype;
    /* The figure at the answer, or the best any value reached (0 when
     * none planned). */
    int64_t figure;
    int64_t best;
    /* How many plans the search computed. */
    int64_t plans;
} kvplan_solution;

/*
 * The smallest value of `knob` (for the KV cache dtype: the widest) at
 * which the plan of `options` reaches `target`, every other option held;
 * `work` holds the plan at the answer (kvplan_plan_compute with it) and
 * the step below it does not reach (checked). KVPLAN_NOT_ENOUGH_MEMORY,
 * with out->found false and out->best, when no value reaches it;
 * KVPLAN_INVALID_ARGUMENT for a bad target or knob; the errors of
 * kvplan_plan_compute that no knob value changes. Allocates nothing.
 */
KVPLAN_API kvplan_status kvplan_solve(const kvplan_model *model,
                                      const kvplan_plan_options *options,
                                      kvplan_knob knob,
                                      const kvplan_target *target,
                                      kvplan_plan *work, kvplan_solution *out,
                                      kvplan_error *err);

/* ---- sglang versions side by side (--compare-version; docs/versions.md) */

/* What a comparison reports of one plan. */
typedef struct kvplan_version_figures {
    kvplan_status status; /* KVPLAN_OK: that sglang starts */
    char error[200];      /* why it does not */
    double cell_size;     /* bytes per token (DeepSeek V4: per full token) */
    double mem_fraction_static;
    int64_t available_bytes, max_total_num_tokens, max_running_requests;
    int64_t swa_max_total_num_tokens; /* 0 without a sliding-window pool */
} kvplan_version_figures;

/* One rule in which the two versions differ, and what it alone changes. */
typedef struct kvplan_rule_delta {
    kvplan_rule_info rule;
    bool in_plan; /* the plan's version has it (else the compared one) */
    bool changes; /* switched alone, a figure moves (or it no longer
                     starts) */
    kvplan_version_figures alone; /* the plan with this rule switched */
} kvplan_rule_delta;

#define KVPLAN_MAX_RULES 64

typedef struct kvplan_version_comparison {
    kvplan_sglang_profile profile, compared;
    kvplan_version_figures plan, compared_plan;
    size_t num_rules;
    kvplan_rule_delta rules[KVPLAN_MAX_RULES];
} kvplan_version_comparison;

/*
 * `options` planned under their sglang version and under `other`, and for
 * each rule the two differ in, the plan with that rule alone switched
 * (kvplan_plan_options.sglang_rules_flip): what each rule changes. A plan
 * that does not start is a figure (its status and error), not an error;
 * the error return is for NULL arguments and an unknown profile. `work`
 * is a plan's worth of memory. Allocates nothing.
 */
KVPLAN_API kvplan_status kvplan_version_compare(
    const kvplan_model *model, const kvplan_plan_options *options,
    kvplan_sglang_profile other, kvplan_plan *work,
    kvplan_version_comparison *out, kvplan_error *err);

/* What kvplan sweep ranks its rows by, best first. */
typedef enum kvplan_sweep_key {
    KVPLAN_SWEEP_CONCURRENCY_PER_GPU = 0, /* requests of context_len at once
                                             per GPU (the default) */
    KVPLAN_SWEEP_CONCURRENCY,             /* ... on all the GPUs */
    KVPLAN_SWEEP_TOKENS,                  /* max_total_num_tokens */
    KVPLAN_SWEEP_TOKENS_PER_GPU,
    KVPLAN_SWEEP_LONGEST_REQUEST,
    KVPLAN_SWEEP_GPUS /* fewest first */
} kvplan_sweep_key;

/* "concurrency-per-gpu", "concurrency", "tokens", "tokens-per-gpu",
 * "longest-request", "gpus"; NULL out of range. */
KVPLAN_API const char *kvplan_sweep_key_name(kvplan_sweep_key key);
/* By that name; false when unknown or NULL. */
KVPLAN_API bool kvplan_sweep_key_from_name(const char *name,
                                           kvplan_sweep_key *out);

/* ------------------------------------------------------------------------ */
/* Other engines: what vLLM and TensorRT-LLM would allocate (docs/engines.md) */
/* ------------------------------------------------------------------------ */

typedef enum kvplan_engine {
    KVPLAN_ENGINE_SGLANG = 0, /* kvplan_plan_compute */
    KVPLAN_ENGINE_VLLM = 1,   /* vLLM v1 (0.10+, --vllm-version) */
    KVPLAN_ENGINE_TRTLLM = 2  /* TensorRT-LLM's PyTorch flow */
} kvplan_engine;

/* "sglang", "vllm", "trtllm"; NULL out of range. */
KVPLAN_API const char *kvplan_engine_name(kvplan_engine engine);
/* Whose rules kvplan follows for the engine, in words ("vLLM v1 at
 * 3f6f508e1 (2026-05-29)"); sglang's depend on the profile
 * (kvplan_sglang_profile_name). NULL out of range. */
KVPLAN_API const char *kvplan_engine_rules(kvplan_engine engine);

/*
 * The vLLM a plan follows. The newest kvplan models is the default; each
 * older release range switches on the rules below that it still had, one
 * bit each (kvplan_rule_info, as for sglang). Release boundaries are
 * those of the PRs' merge dates and of the logs that name them.
 */
typedef enum kvplan_vllm_profile {
    KVPLAN_VLLM_LATEST = 0, /* 0.29 - 0.31: the default */
    KVPLAN_VLLM_V0_28 = 1,  /* 0.28 */
    KVPLAN_VLLM_V0_23 = 2,  /* 0.23 - 0.25 */
    KVPLAN_VLLM_V0_20 = 3,  /* 0.20 - 0.22: commit 3f6f508e1 (2026-05-29) */
    KVPLAN_VLLM_V0_10 = 4,  /* 0.10 - 0.12 */
    KVPLAN_VLLM_V0_13 = 5,  /* 0.13 - 0.19 */
    KVPLAN_VLLM_V0_26 = 6   /* 0.26 - 0.27 */
} kvplan_vllm_profile;

/* vLLM's rules, each the older behaviour a release range still had. */
#define KVPLAN_VLLM_RULE_NO_NULL_BLOCK (1ull << 0)    /* before #47272 */
#define KVPLAN_VLLM_RULE_MAMBA_NONE (1ull << 1)       /* before #50991 */
#define KVPLAN_VLLM_RULE_UNPADDED_PAGE (1ull << 2)    /* before #45181 */
#define KVPLAN_VLLM_RULE_GRAPHS_UNCOUNTED (1ull << 3) /* before #38284 */
#define KVPLAN_VLLM_RULE_UTILIZATION_090 (1ull << 4)  /* before #38284 */
#define KVPLAN_VLLM_RULE_TOKENS_PER_GROUP (1ull << 5) /* before vllm#40691 */
#define KVPLAN_VLLM_RULE_SSM_FLOAT16 (1ull << 6)      /* before #39032 */
#define KVPLAN_VLLM_RULE_SSM_AS_CONV (1ull << 7)      /* before #29978 */
#define KVPLAN_VLLM_RULE_MLA_CUTLASS (1ull << 8)      /* before #32615 */
#define KVPLAN_VLLM_RULE_MAMBA_SEQS_UNCHECKED (1ull << 9) /* before #38270 */
#define KVPLAN_VLLM_RULE_ONE_BATCH_IN_FLIGHT (1ull << 10) /* before #47728 */

/* vLLM's rules, `index` from 0; false past the end. */
KVPLAN_API bool kvplan_vllm_rule_at(size_t index, kvplan_rule_info *out);
/* A profile's rules (0 for the default). */
KVPLAN_API uint64_t kvplan_vllm_rules(kvplan_vllm_profile profile);
/* "0.29-0.31", "0.28", "0.26-0.27", "0.23-0.25", "0.20-0.22",
 * "0.13-0.19", "0.10-0.12"; NULL out of range. */
KVPLAN_API const char *kvplan_vllm_profile_name(kvplan_vllm_profile p);
/*
 * The profile of a vLLM version as a user writes it: "latest", a release
 * such as "0.10.2", "v0.27.1" or "0.28.0rc1", or a profile's own name.
 * KVPLAN_INVALID_ARGUMENT for one kvplan has no profile for (older than
 * 0.10, whose V0 engine sized its cache otherwise, or newer than 0.31),
 * naming --vllm-version and the profiles known.
 */
KVPLAN_API kvplan_status kvplan_vllm_profile_parse(const char *version,
                                                   kvplan_vllm_profile *out,
                                                   kvplan_error *err);

/*
 * The TensorRT-LLM a plan follows (--trtllm-version). Its sizing rules
 * have one change kvplan models by release: which KV cache manager a
 * model gets when use_kv_cache_manager_v2 is not given. From #15823
 * (2026-07) its default is "auto", each model class's own preference,
 * and the families of TensorRT-LLM's KV cache docs prefer V2 (their PRs
 * in kvplan_engine_plan.v2_default). Release boundaries are those of the
 * PRs and of main's version bumps (1.3.0rc21 on 2026-06-30, before
 * #15823 was opened; 1.3.0rc28 on 2026-09-17, after the last family's
 * #19004 was in). Between them each family moved in a release kvplan has
 * not pinned down: a plan there of a model whose default moved is
 * refused unless use_kv_cache_manager_v2 is given either way.
 */
typedef enum kvplan_trtllm_profile {
    KVPLAN_TRTLLM_LATEST = 0, /* 1.3.0rc28 - 1.4: the default */
    KVPLAN_TRTLLM_V1_0 = 1,   /* 1.0 - 1.2, 1.3.0rc0 - rc20 */
    KVPLAN_TRTLLM_RC21 = 2    /* 1.3.0rc21 - rc27: the families moving */
} kvplan_trtllm_profile;

/* TensorRT-LLM's rules, each the older behaviour a release range still
 * had: every model V1 unless use_kv_cache_manager_v2 is true (Gemma 4,
 * which only V2 allocates, aside); over more than one rank, V2's quota
 * turned into tokens and back whole, raised to max_batch_size requests'
 * windows below them. */
#define KVPLAN_TRTLLM_RULE_V1_DEFAULT (1ull << 0)     /* before #15823 */
#define KVPLAN_TRTLLM_RULE_V2_SYNC_RAISES (1ull << 1) /* #15991, #16545 */

/* TensorRT-LLM's rules, `index` from 0; false past the end. */
KVPLAN_API bool kvplan_trtllm_rule_at(size_t index, kvplan_rule_info *out);
/* A profile's rules (0 for the default). */
KVPLAN_API uint64_t kvplan_trtllm_rules(kvplan_trtllm_profile profile);
/* "1.3.0rc28-1.4", "1.0-1.3.0rc20", "1.3.0rc21-rc27"; NULL out of
 * range. */
KVPLAN_API const char *kvplan_trtllm_profile_name(kvplan_trtllm_profile p);
/*
 * The profile of a TensorRT-LLM version as a user writes it: "latest", a
 * release such as "1.2.0", "1.3.0rc24" or "v1.4.0rc4" (a ".postN" is its
 * rc's), or a profile's own name. KVPLAN_INVALID_ARGUMENT for one kvplan
 * has no profile for (older than 1.0, the TensorRT flow's; 1.3.0 itself,
 * whose branch point is not established; newer than 1.4), naming
 * --trtllm-version and the profiles known.
 */
KVPLAN_API kvplan_status kvplan_trtllm_profile_parse(const char *version,
                                                     kvplan_trtllm_profile *out,
                                                     kvplan_error *err);

/* How a TensorRT-LLM plan's KV cache manager was chosen. */
typedef enum kvplan_kv_cache_manager_choice {
    KVPLAN_KVCM_DEFAULT = 0, /* use_kv_cache_manager_v2 not given: the
                                release's default for the model */
    KVPLAN_KVCM_GIVEN = 1,   /* true or false, given */
    KVPLAN_KVCM_MODEL = 2    /* Gemma 4, DeepSeek-V4: V2, their only manager */
} kvplan_kv_cache_manager_choice;

/* One vLLM plan's figures, for a comparison of versions. */
typedef struct kvplan_engine_version_figures {
    kvplan_status status;
    char error[200]; /* its message, when it does not start */
    int64_t available_bytes, num_gpu_blocks, kv_cache_tokens;
    double max_concurrency;
} kvplan_engine_version_figures;

/* One rule two vLLM versions differ in, and the plan with it alone
 * switched. */
typedef struct kvplan_engine_rule_delta {
    kvplan_rule_info rule;
    bool in_plan; /* the options' profile has it */
    bool changes; /* it alone moves a figure of the plan */
    kvplan_engine_version_figures alone;
} kvplan_engine_rule_delta;

/* Two vLLM versions side by side, each rule they differ in alone. */
typedef struct kvplan_engine_version_comparison {
    kvplan_vllm_profile profile, compared;
    kvplan_engine_version_figures plan, compared_plan;
    size_t num_rules;
    kvplan_engine_rule_delta rules[16];
} kvplan_engine_version_comparison;

/* How vLLM keeps a mamba layer's state per request (--mamba-cache-mode). */
typedef enum kvplan_mamba_cache_mode {
    KVPLAN_MAMBA_CACHE_AUTO = 0,  /* the profile's: align from 0.28 with
                                     prefix caching, else none */
    KVPLAN_MAMBA_CACHE_NONE = 1,  /* one block a request */
    KVPLAN_MAMBA_CACHE_ALIGN = 2, /* two: the running and the cached */
    KVPLAN_MAMBA_CACHE_ALL = 3    /* one a block of the request's tokens */
} kvplan_mamba_cache_mode;

/* One engine's flags, in its own names. Fill with
 * kvplan_engine_options_init. The terms only a live profile measures
 * (activation peak, non-torch memory, CUDA graphs) are estimated when
 * absent, and reported as such. */
typedef struct kvplan_engine_options {
    uint32_t struct_size;
    kvplan_engine engine; /* default vLLM */
    bool gpu_set;
    kvplan_gpu gpu;                            /* default H100-80GB */
    int64_t tp_size;                           /* default 1 */
    int64_t pp_size;                           /* default 1 */
    kvplan_kv_cache_dtype_flag kv_cache_dtype; /* auto: the model dtype */
    kvplan_opt_int max_model_len;              /* absent: the model's context */
    /* vLLM */
    kvplan_opt_double gpu_memory_utilization; /* (0, 1]; absent: 0.92 */
    kvplan_opt_int kv_cache_memory_bytes; /* --kv-cache-memory: the KV bytes */
    kvplan_opt_int block_size;   /* absent: 16; MLA by GPU (docs/engines.md) */
    kvplan_opt_int max_num_seqs; /* absent: 1024 (256 < 70 GiB) */
    kvplan_opt_int max_num_batched_tokens; /* absent: 8192 (2048 < 70 GiB) */
    bool enforce_eager;                    /* no CUDA graphs */
    /* TensorRT-LLM's KvCacheConfig */
    kvplan_opt_double free_gpu_memory_fraction; /* (0, 1]; absent: 0.9 */
    kvplan_opt_int max_tokens;
    kvplan_opt_int tokens_per_block; /* absent: 32 */
    /* Speculative decoding: EAGLE and EAGLE3 drafts' attention layers,
     * and MTP's from the model itself (NEXTN: num_nextn_predict_layers),
     * join the KV cache in both engines. The draft model is borrowed. */
    kvplan_spec_algorithm speculative_algorithm;
    const kvplan_model *speculative_draft_model;
    /* Measured terms (bytes per rank); absent: estimated. */
    kvplan_opt_int weight_bytes; /* the whole model's (all ranks) */
    kvplan_opt_int activation_bytes;
    kvplan_opt_int non_torch_bytes;
    kvplan_opt_int cuda_graph_bytes;
    /* --dtype: the weights', the activations' and an "auto" KV cache's
     * element type; auto: the config's */
    kvplan_dtype_flag dtype;
    /* VLLM_ALLOW_LONG_MAX_MODEL_LEN: vLLM takes a max_model_len above the
     * model's own; else it refuses one */
    bool allow_long_max_model_len;
    /* vLLM: --no-enable-prefix-caching (a mamba hybrid's cache mode is
     * then none); TensorRT-LLM: enable_block_reuse false (a mamba hybrid's
     * states are then a fixed cost of max_batch_size requests) */
    bool no_prefix_caching;
    /* vLLM: --disable-hybrid-kv-cache-manager: sliding-window layers keep
     * a full layer's cache, one KV-cache group */
    bool disable_hybrid_kv_cache_manager;
    /* The vLLM followed (default the newest) and rules switched from it
     * (kvplan_vllm_rules' bits; --compare-version's one at a time). */
    kvplan_vllm_profile vllm_version;
    uint64_t vllm_rules_flip;
    /* vLLM: --num-gpu-blocks-override, the blocks instead of the budget's */
    kvplan_opt_int num_gpu_blocks_override;
    kvplan_mamba_cache_mode mamba_cache_mode;
    /* vLLM: --quantization, the weights' scheme (kvplan_word_at's
     * KVPLAN_WORDS_QUANTIZATION); NULL: the config's. Borrowed. */
    const char *quantization;
    /* vLLM: --mamba-ssm-cache-dtype, a mamba layer's temporal (ssm)
     * state: "float32", "float16" or "bfloat16"; NULL or "auto": the
     * model's rule (Nemotron-H: its config's mamba_ssm_cache_dtype, else
     * float32; others the conv state's, the model dtype). TensorRT-LLM's
     * KvCacheConfig.mamba_ssm_cache_dtype the same; "auto": the config's
     * mamba_ssm_cache_dtype, else the model dtype. Borrowed. */
    const char *mamba_ssm_cache_dtype;
    /* vLLM: the sampler's top-k/top-p is a sort (PyTorch's or the newest
     * releases' own) rather than FlashInfer's kernel: FlashInfer absent
     * (a log's "Falling back to the PyTorch-native implementation"),
     * VLLM_USE_FLASHINFER_SAMPLER=0, or the 0.29-0.31 profile, which
     * sorts by default. The profile run's peak is then the sort's. */
    bool native_sampler;
    /* TensorRT-LLM's KvCacheConfig: max_attention_window, "W[,W...]" (a
     * pattern repeated over the layers, each clamped to max_seq_len; two
     * or more windows split the memory by window, VSWA); NULL: every
     * layer max_seq_len. Borrowed. */
    const char *max_attention_window;
    kvplan_opt_int max_gpu_total_bytes; /* its cap on the KV memory, bytes */
    kvplan_opt_int host_cache_size;     /* its host (secondary) pool, bytes */
    /* One rank's weights as a log measured them (a vLLM calibration);
     * set, they replace the estimate and are reported "measured". */
    kvplan_opt_int rank_weight_bytes;
    /* vLLM: --attention-backend as vLLM spells it ("FLASHMLA",
     * "CUTLASS_MLA", "FLASHINFER_MLA", "FLASH_ATTN", ...); NULL: the
     * platform's choice. An MLA backend forces its block size. Borrowed. */
    const char *vllm_attention_backend;
    /* TensorRT-LLM's KvCacheConfig.mamba_state_cache_interval: with block
     * reuse a mamba hybrid's state is snapshot every so many tokens and
     * priced per token; absent: 256 under V1, none under V2 */
    kvplan_opt_int mamba_state_cache_interval;
    /* TensorRT-LLM: an EAGLE head's layers in a KV-cache manager of their
     * own (the speculative config's separate draft KV cache), the budget
     * split by the two managers' costs (_compute_draft_budget_shares);
     * false: the head's layers join the target's manager */
    bool separate_draft_kv_cache;
    /* vLLM: --no-async-scheduling. Async scheduling (the default) keeps
     * two batches in flight, PP one a stage; from 0.26 (vllm#47728) a
     * sliding window reserves them all (max_in_flight_tokens). */
    bool no_async_scheduling;
    /* vLLM: --attention-config.use_fp4_indexer_cache=True, DeepSeek-V4's
     * indexer keys in MXFP4 (68 bytes a compressed token, not fp8's 132) */
    bool fp4_indexer_cache;
    /* TensorRT-LLM's KvCacheConfig.use_kv_cache_manager_v2: plan the KV
     * cache manager V2's pool (docs/engines.md) rather than V1's; and its
     * max_util_for_resume, (0, 1], absent 0.95, which bounds the quota a
     * given max_tokens allows under V2 */
    bool use_kv_cache_manager_v2;
    kvplan_opt_double max_util_for_resume;
    /* TensorRT-LLM's KvCacheConfig.avg_seq_len, 1 to max_seq_len: the
     * workload's average total length, from which KV cache manager V2
     * models the typical step and constraints of its pools' first split;
     * absent: none (a hybrid Mamba then takes max_seq_len // 2) */
    kvplan_opt_int avg_seq_len;
    /* The TensorRT-LLM followed (default the newest), and
     * use_kv_cache_manager_v2: false given (--no-use-kv-cache-manager-v2):
     * V1 whatever the model's default. Neither it nor
     * use_kv_cache_manager_v2 set is TensorRT-LLM's "auto". */
    kvplan_trtllm_profile trtllm_version;
    bool no_use_kv_cache_manager_v2;
    /* TensorRT-LLM: rules switched from trtllm_version's
     * (kvplan_trtllm_rules' bits; --compare-version's one at a time) */
    uint64_t trtllm_rules_flip;
} kvplan_engine_options;

KVPLAN_API void kvplan_engine_options_init(kvplan_engine_options *options);

/* What one KV-cache group holds (vLLM) or one layer kind (TRT-LLM). */
typedef enum kvplan_engine_spec {
    KVPLAN_KV_SPEC_FULL = 1,
    KVPLAN_KV_SPEC_MLA, /* MLA latent (and DSA's indexer) */
    KVPLAN_KV_SPEC_SLIDING_WINDOW,
    KVPLAN_KV_SPEC_MAMBA
} kvplan_engine_spec;

/* "full_attention", "mla", "sliding_window", "mamba"; "?" out of range. */
KVPLAN_API const char *kvplan_engine_spec_name(kvplan_engine_spec spec);

#define KVPLAN_MAX_ENGINE_GROUPS 16

typedef struct kvplan_engine_group {
    kvplan_engine_spec spec;
    int64_t layers;          /* real layers in the group */
    int64_t padding_layers;  /* vLLM's padding to the group size */
    int64_t page_bytes;      /* one block of one layer, after unification */
    int64_t real_page_bytes; /* before the padding of a smaller page */
    int64_t block_size;      /* tokens per block */
    int64_t window;          /* sliding window; 0 */
    /* vLLM: one request of max_model_len's most bytes in one layer */
    int64_t max_usage_bytes;
    /* the blocks this group holds: vLLM's num_gpu_blocks (shared);
     * TensorRT-LLM's, its window's primary pool under VSWA */
    int64_t num_blocks;
    int64_t host_blocks; /* TensorRT-LLM: the secondary pool's, on the host */
} kvplan_engine_group;

typedef struct kvplan_engine_plan {
    uint32_t struct_size;
    kvplan_engine engine;
    int64_t max_model_len, max_num_seqs, max_num_batched_tokens;
    int64_t block_size;     /* the attention layers', after unification */
    int64_t group_size;     /* vLLM: layers per group (the largest) */
    int64_t padding_layers; /* vLLM: all groups' */
    size_t num_groups;
    kvplan_engine_group groups[KVPLAN_MAX_ENGINE_GROUPS];
    /* the budget, per rank, in bytes */
    double memory_total_bytes; /* memory.total, as nvidia-smi reports it */
    double reserved_bytes;     /* the driver's reserve CUDA does not see */
    kvplan_source reserved_source;
    double total_bytes;     /* CUDA's total: memory.total less the reserve
                               (vLLM's total_gpu_memory) */
    double requested_bytes; /* vLLM: ceil(total * utilization) */
    double weight_bytes, activation_bytes, non_torch_bytes, cuda_graph_bytes;
    kvplan_source weight_source, activation_source, non_torch_source,
        cuda_graph_source;
    int64_t available_bytes; /* for the KV cache */
    bool available_given;    /* --kv-cache-memory */
    /* the answer */
    int64_t num_gpu_blocks;
    int64_t kv_cache_tokens; /* vLLM's "GPU KV cache size: N tokens";
                                TRT-LLM's max_tokens */
    double max_concurrency;  /* vLLM's "Maximum concurrency for L tokens
                                per request: X" */
    int64_t bytes_per_token; /* TRT-LLM's kv size per token (all layers);
                                vLLM: the pool's bytes per token at full
                                attention (informative) */
    /* vLLM: the profile followed and its rules (kvplan_vllm_rules with
     * any flip); the mamba cache mode applied; the blocks before
     * --num-gpu-blocks-override; the most a request holds (the check of
     * one request at max_model_len, after the null block from 0.29) */
    kvplan_vllm_profile vllm_version;
    uint64_t vllm_rules;
    kvplan_mamba_cache_mode mamba_cache_mode;
    int64_t profiled_blocks;
    int64_t blocks_per_request;
    /* vLLM: the tokens a sliding window reserves past itself: from 0.26
     * max_in_flight_tokens (max_concurrent_batches x
     * max_num_batched_tokens), before max_num_batched_tokens */
    int64_t max_in_flight_tokens;
    /* vLLM, DeepSeek-V4: groups[] are its KV-cache groups as allocated,
     * one block of each packed at a stride of the widest group's
     * page_bytes; group_size is the layer tuples each is padded to and
     * padding_layers the tuples added (vllm_dsv4.c) */
    bool packed_groups;
    /* TensorRT-LLM: the KV cache manager planned, 1 or 2 (0 for vLLM).
     * V2: its GPU tier's quota as the manager logs it ("KV cache manager
     * v2 device quota set to"), and the grain its pools are rounded up to
     * (num_gpu_blocks are its slots, a block of every layer each) */
    int32_t kv_cache_manager;
    int64_t gpu_quota_bytes, quota_grain_bytes;
    /* TensorRT-LLM: the family whose model defaults pick KV cache manager
     * V2 since mid-2026, with its pull request ("GPT-OSS (#16942)"), for
     * this model; NULL where V1 stays its default. Static. */
    const char *v2_default;
    /* TensorRT-LLM: the release followed, its rules
     * (kvplan_trtllm_rules), and how its manager was chosen */
    kvplan_trtllm_profile trtllm_version;
    uint64_t trtllm_rules;
    kvplan_kv_cache_manager_choice kv_cache_manager_choice;
} kvplan_engine_plan;

/*
 * What `options->engine` would allocate for `model` on one rank: vLLM's
 * KV-cache spec per layer, its page unification and groups, the blocks
 * its budget holds, and the figures its log prints; TensorRT-LLM's bytes
 * per token, its share of free memory, its blocks and max_tokens.
 * KVPLAN_UNSUPPORTED for a model kvplan does not size for that engine
 * (DeepSeek V4's vLLM layout; mamba hybrids and DeepSeek V4 on
 * TensorRT-LLM), KVPLAN_NOT_ENOUGH_MEMORY where the engine would refuse
 * to start, with its message. Allocation-free.
 */
KVPLAN_API kvplan_status kvplan_engine_compute(
    const kvplan_model *model, const kvplan_engine_options *options,
    kvplan_engine_plan *out, kvplan_error *err);

/*
 * The vLLM plan of `model` with `options` (its vllm_version) and under
 * `other`, and for every rule the two differ in, the plan with that rule
 * alone switched (--compare-version under --engine vllm). A plan that
 * does not start is a figure, not an error. Allocation-free.
 */
KVPLAN_API kvplan_status kvplan_engine_version_compare(
    const kvplan_model *model, const kvplan_engine_options *options,
    kvplan_vllm_profile other, kvplan_engine_version_comparison *out,
    kvplan_error *err);

/* Two TensorRT-LLM releases side by side (--compare-version under
 * --engine trtllm): each plan's figures and the KV cache manager it
 * planned, and the rule they differ in with the plan under it alone. The
 * 1.3.0rc21-rc27 range differs from the newest in no rule: it refuses a
 * model whose default it has not pinned, and its plan's error says so. */
typedef struct kvplan_trtllm_version_comparison {
    kvplan_trtllm_profile profile, compared;
    kvplan_engine_version_figures plan, compared_plan;
    /* 1 or 2; 0 where that plan does not start */
    int32_t kv_cache_manager, compared_kv_cache_manager;
    size_t num_rules;
    kvplan_engine_rule_delta rules[4];
} kvplan_trtllm_version_comparison;

/*
 * The TensorRT-LLM plan of `model` with `options` (its trtllm_version)
 * and under `other`, and for each rule the two differ in, the plan with
 * that rule alone switched. A plan that does not start is a figure, not
 * an error. Allocation-free.
 */
KVPLAN_API kvplan_status kvplan_trtllm_version_compare(
    const kvplan_model *model, const kvplan_engine_options *options,
    kvplan_trtllm_profile other, kvplan_trtllm_version_comparison *out,
    kvplan_error *err);

/* ------------------------------------------------------------------------ */
/* Reading an sglang start-up log (docs/log.md)                              */
/* ------------------------------------------------------------------------ */

/* The memory-relevant pieces of a log's server_args=ServerArgs(...) line,
 * under sglang's names. Each is set only where the line printed it (and
 * not None): a piece the log cut ("...") stays unset, never defaulted.
 * Strings are cut to their field (see model_path_cut). */
typedef struct kvplan_log_args {
    bool present; /* the line was in the log */
    char model_path[256];
    bool model_path_cut; /* longer than its field */
    char dtype[24];      /* "auto", "bfloat16", ... */
    char kv_cache_dtype[24];
    char quantization[32];
    char attention_backend[32];
    char speculative_algorithm[24];
    char speculative_draft_model_path[256];
    kvplan_opt_double mem_fraction_static;
    kvplan_opt_int tp_size, pp_size, dp_size, ep_size, page_size;
    kvplan_opt_int context_length, chunked_prefill_size, max_prefill_tokens;
    kvplan_opt_int max_running_requests, max_total_tokens, cuda_graph_max_bs;
    kvplan_opt_int speculative_num_steps, speculative_eagle_topk;
    kvplan_opt_int speculative_num_draft_tokens;
    /* True/False, as 1/0 */
    kvplan_opt_int enable_dp_attention, disable_cuda_graph;
    kvplan_opt_int disable_radix_cache, is_embedding;
} kvplan_log_args;

/* One rank's readings, where the log prefixes its lines "TPn". */
typedef struct kvplan_log_rank {
    int64_t rank; /* n of "TPn" */
    kvplan_opt_double free_before_gib, free_after_gib, weights_gib;
} kvplan_log_rank;

/* The ranks listed one by one (the minimum and maximum cover them all). */
#define KVPLAN_LOG_MAX_RANKS 64

/* What a log printed. A reading is set only where a line printed it: a
 * missing line is reported as missing, never defaulted. GiB figures are
 * as printed (2 decimals; sglang says "GB"); over ranks (TP0..TPn) the
 * free memory is the minimum, as sglang all-reduces it, and the usage the
 * maximum. */
typedef struct kvplan_log_readings {
    int64_t lines;                     /* lines read */
    int64_t lines_used;                /* lines a reading came from */
    int64_t ranks;                     /* distinct TPn prefixes; 0: none */
    char date[11];                     /* the first timestamp's YYYY-MM-DD */
    kvplan_opt_double free_before_gib; /* "Load weight begin. avail mem=" */
    kvplan_opt_double free_after_gib;  /* "Load weight end. ... avail mem=" */
    kvplan_opt_double weights_gib;     /* "Load weight end. ... mem usage=" */
    kvplan_opt_double distributed_gib; /* "Init torch distributed ends. mem
                                          usage=" */
    kvplan_opt_double pool_end_gib;    /* "Memory pool end. avail mem=" */
    kvplan_opt_int kv_tokens;          /* "KV Cache is allocated. #tokens:" */
    kvplan_opt_double k_size_gib, v_size_gib; /* "K size:", "V size:" */
    kvplan_opt_double kv_size_gib; /* "KV size:" (MLA, newer builds) */
    /* the closing line: "max_total_num_tokens=N, ..." */
    kvplan_opt_int max_total_num_tokens, max_prefill_tokens;
    kvplan_opt_int max_running_requests, context_len;
    kvplan_opt_double available_gpu_mem_gib; /* its "available_gpu_mem=" */
    char model_class[96];                    /* "type=LlamaForCausalLM" */
    char model_dtype[24]; /* "dtype=torch.bfloat16": "bfloat16" */
    char kv_dtype[24];    /* "Using KV cache dtype: torch.X" */
    kvplan_log_args args;
    /* per rank, in the order first met (the first 64 ranks) */
    size_t num_rank_readings;
    kvplan_log_rank rank_readings[KVPLAN_LOG_MAX_RANKS];
    /* the sglang release the log names ("sglang version: 0.5.9",
     * "sglang==0.5.9", "SGLang v0.5.9"); "" when it names none */
    char sglang_version[32];
} kvplan_log_readings;

/*
 * Reads an sglang start-up log (any bytes; every format of docs/log.md:
 * 2024 builds, "KV Cache is allocated" with K/V or KV sizes, TPn prefixes,
 * ROCm builds, server_args). Trusts no number it did not parse. Allocates
 * nothing. KVPLAN_PARSE (field "log") when no line of sglang's start-up
 * is in it.
 */
KVPLAN_API kvplan_status kvplan_log_parse(const char *text, size_t len,
                                          kvplan_log_readings *out,
                                          kvplan_error *err);

/* One rank's weights as the log shows them, GiB: "mem usage", else the
 * free memory before loading less after; unset when it shows neither. */
KVPLAN_API kvplan_opt_double
kvplan_log_weights_gib(const kvplan_log_readings *readings);

/*
 * The plan options the log's server arguments give: each printed flag
 * over `options` (initialized by the caller: a GPU, other flags), the
 * rest left as they are; without a printed tp_size, the ranks its TPn
 * prefixes count. String options point into `readings`, which
 * must outlive them. KVPLAN_INVALID_ARGUMENT names a server argument
 * kvplan does not know the value of ("--kv-cache-dtype").
 */
KVPLAN_API kvplan_status kvplan_log_options(const kvplan_log_readings *readings,
                                            kvplan_plan_options *options,
                                            kvplan_error *err);

/* Why a log and a plan differ. */
typedef enum kvplan_log_cause_code {
    KVPLAN_CAUSE_MODEL_NOT_PLANNED = 1, /* no model, or one kvplan refuses */
    KVPLAN_CAUSE_MISSING_READING, /* a line the comparison needs is absent */
    KVPLAN_CAUSE_FLAG_NOT_SHOWN,  /* a memory flag the log does not print */
    KVPLAN_CAUSE_BUSY_GPU,        /* free before loading below an idle GPU's */
    KVPLAN_CAUSE_OLDER_RULES,     /* the log's sglang follows another rule */
    KVPLAN_CAUSE_SPECULATIVE,     /* a speculative draft sized another way */
    KVPLAN_CAUSE_WEIGHTS,         /* the weights differ from the estimate */
    KVPLAN_CAUSE_OUTSIDE,         /* the count is outside, cause unknown */
    KVPLAN_CAUSE_GPU_MISMATCH,    /* the GPU named holds less than the log
                                     saw free: it ran on another */
    KVPLAN_CAUSE_CONTEXT          /* less free before loading because the
                                     build's own communicators took more
                                     ("Init torch distributed ends. mem
                                     usage="), not another process */
} kvplan_log_cause_code;

/* "model_not_planned", "missing_reading", ...; "?" out of range. */
KVPLAN_API const char *kvplan_log_cause_name(kvplan_log_cause_code code);

typedef struct kvplan_log_cause {
    kvplan_log_cause_code code;
    char row[24];   /* the compared figure: "tokens", "free_before", ... */
    char text[232]; /* one sentence */
} kvplan_log_cause;

#define KVPLAN_MAX_LOG_CAUSES 8

/* A log reconciled with kvplan's plan of the same server. */
typedef struct kvplan_log_result {
    /* The log's free figures, read back to the bytes sglang handed the
     * configurator: an interval, as they print with 2 decimals. */
    kvplan_gpu gpu;             /* the options', or inferred */
    bool gpu_inferred;          /* the smallest preset holding the
                                   log's free memory */
    bool interval;              /* computed (model and readings) */
    double mem_fraction_static; /* the one used */
    bool fraction_from_log;     /* else kvplan's rule (a GPU given) */
    int64_t available_lo, available_hi;
    int64_t tokens_lo, tokens_hi; /* max_total_num_tokens at each end */
    kvplan_opt_int logged_tokens; /* max_total_num_tokens, else #tokens */
    bool inside;                  /* tokens_lo <= logged <= tokens_hi */
    /* The plan of the same server on the options' GPU, from kvplan's own
     * budget (no log figure): what kvplan would have said before the
     * launch. */
    bool modelled;
    double free_before_gib, free_after_gib, weights_gib;
    int64_t tokens;
    int64_t kv_bytes; /* the KV pools as allocated */
    int64_t max_running_requests, context_len;
    size_t num_causes;
    kvplan_log_cause causes[KVPLAN_MAX_LOG_CAUSES];
} kvplan_log_result;

/*
 * Reconciles `readings` with kvplan: the interval of available bytes and
 * of max_total_num_tokens from the log's own free figures (plans of
 * `model` with `options` at each end), whether the logged count lies
 * inside, the plan kvplan models without the log when `options` has a
 * GPU, and a named cause for each difference it knows. `model` may be
 * NULL (not found or refused: a KVPLAN_CAUSE_MODEL_NOT_PLANNED, with
 * `model_error` as its text when given). `work` is scratch space for the
 * plans. A plan that fails is a cause, not an error: the error return is
 * for NULL arguments and options kvplan_plan_options_validate refuses.
 * Allocates nothing.
 */
KVPLAN_API kvplan_status kvplan_log_reconcile(
    const kvplan_model *model, const char *model_error,
    const kvplan_log_readings *readings, const kvplan_plan_options *options,
    kvplan_plan *work, kvplan_log_result *out, kvplan_error *err);

/* ------------------------------------------------------------------------ */
/* Reading a vLLM start-up log (docs/log.md, "vLLM logs")                    */
/* ------------------------------------------------------------------------ */

/* The engine whose start-up a log is: KVPLAN_ENGINE_VLLM when it holds a
 * line only vLLM prints ("vLLM API server version", "Initializing a V1 LLM
 * engine", "GPU KV cache size:", "Available KV cache memory:"),
 * KVPLAN_ENGINE_TRTLLM for TensorRT-LLM's ("[TRT-LLM]", "[TensorRT-LLM]"),
 * else KVPLAN_ENGINE_SGLANG (kvplan_log_parse says whether it is one). */
KVPLAN_API kvplan_engine kvplan_log_engine(const char *text, size_t len);

/* What a vLLM log printed, each reading set only where a line printed it.
 * Over workers (TPn) the available memory is the least, the weights the
 * most. Figures are as printed (GiB to 2 or 4 decimals). */
typedef struct kvplan_vllm_log_readings {
    int64_t lines, lines_used;
    int64_t workers;  /* distinct "TPn" of the worker prefixes; 0: none */
    char version[32]; /* "0.10.1.1": the API server's or the engine's */
    char model[256];  /* the non-default args' model, else the config's */
    bool model_cut;   /* longer than its field */
    /* from "non-default args: {...}" and "with config: ...", vLLM's names */
    char dtype[24], kv_cache_dtype[24], quantization[32];
    kvplan_opt_int tensor_parallel_size, pipeline_parallel_size;
    kvplan_opt_int max_model_len; /* "Using max model len", max_seq_len= */
    kvplan_opt_int block_size, max_num_seqs, max_num_batched_tokens;
    kvplan_opt_int enforce_eager, enable_prefix_caching; /* 1/0 */
    kvplan_opt_int num_gpu_blocks_override;
    kvplan_opt_double gpu_memory_utilization;
    /* the budget's lines */
    kvplan_opt_double weights_gib;   /* "Model loading took X GiB" */
    kvplan_opt_double available_gib; /* "Available KV cache memory: X GiB" */
    kvplan_opt_int kv_cache_bytes;   /* "Current kv cache memory in use is
                                        N bytes" (0.10-0.11): exact */
    kvplan_opt_double consumed_gib;  /* "X GiB for consumed memory (weights
                                        + non-torch)" (0.28+) */
    kvplan_opt_double graph_estimate_gib;  /* "Estimated CUDA graph memory:
                                              X GiB total" (0.19+) */
    kvplan_opt_double graph_taken_gib;     /* "Graph capturing finished in N
                                              secs, took X GiB" */
    kvplan_opt_double free_gib, total_gib; /* "Free memory on device (F/T
                                              GiB) on startup", DEBUG
                                              "Initial free memory: F GiB" */
    kvplan_opt_double activation_gib;      /* "X GiB for peak activation",
                                              DEBUG "torch peak memory increase" */
    kvplan_opt_double non_torch_gib;       /* "X GiB for non-torch memory" */
    /* the cache's lines */
    kvplan_opt_int kv_cache_tokens;    /* "GPU KV cache size: N tokens" */
    kvplan_opt_int concurrency_len;    /* "Maximum concurrency for L tokens" */
    kvplan_opt_double max_concurrency; /* "per request: X.XXx" */
    kvplan_opt_int num_gpu_blocks;     /* "num_gpu_blocks is: N",
                                          "# GPU blocks: N" */
    kvplan_opt_int attention_block;    /* "Setting attention block size to
                                          N tokens" */
    kvplan_opt_int padding_layers;     /* "Add N padding layers" */
    char refusal[200]; /* "No available memory for the cache blocks", "To
                          serve at least one request ...": the first */
    /* "FlashInfer is not available. Falling back to the PyTorch-native
     * implementation of top-p & top-k sampling": the profile run's sort
     * is PyTorch's, a larger peak than kvplan's estimate */
    bool native_sampler;
    /* a mamba layer's ssm state dtype: the non-default args', or the
     * "Updating mamba_ssm_cache_dtype to 'X' for NemotronH model" line */
    char mamba_ssm_cache_dtype[16];
} kvplan_vllm_log_readings;

/*
 * Reads a vLLM start-up log (any bytes; lines a terminal wrapped are
 * joined back). Trusts no number it did not parse; allocates nothing.
 * KVPLAN_PARSE (field "log") when no line of vLLM's start-up is in it.
 */
KVPLAN_API kvplan_status kvplan_vllm_log_parse(const char *text, size_t len,
                                               kvplan_vllm_log_readings *out,
                                               kvplan_error *err);

/*
 * The engine options the log's arguments give (each printed value over
 * `options`, initialized by the caller; the version's profile when kvplan
 * has one). KVPLAN_INVALID_ARGUMENT names a value kvplan does not know
 * ("--kv-cache-dtype").
 */
KVPLAN_API kvplan_status
kvplan_vllm_log_options(const kvplan_vllm_log_readings *readings,
                        kvplan_engine_options *options, kvplan_error *err);

/* A vLLM log reconciled with kvplan's plan of the same server. */
typedef struct kvplan_vllm_log_result {
    /* From the log's own "Available KV cache memory" (2 decimals:
     * +-0.005 GiB), or its exact bytes where it prints them: the blocks
     * and "GPU KV cache size" at each end. */
    bool interval;
    int64_t available_lo, available_hi;
    int64_t blocks_lo, blocks_hi, tokens_lo, tokens_hi;
    bool inside; /* the printed tokens (and blocks) lie inside */
    kvplan_vllm_profile profile; /* the rules planned with */
    bool profile_from_log;       /* the log's version named it */
    /* kvplan's own plan of the server on the options' GPU (no figure of
     * the log): what it would have said before the launch */
    bool modelled;
    double available_gib, weights_gib;
    int64_t blocks, tokens;
    double error_pct; /* tokens against the log's, percent; 0 unmodelled */
    size_t num_causes;
    kvplan_log_cause causes[KVPLAN_MAX_LOG_CAUSES];
} kvplan_vllm_log_result;

/*
 * Reconciles `readings` with kvplan: plans of `model` with `options`
 * (kvplan_vllm_log_options' result, the caller's over it) at each end of
 * the log's available memory, whether the printed counts lie inside, the
 * plan from kvplan's own budget when `options` names a GPU, and a cause
 * for each difference it knows. `model` may be NULL (a cause, with
 * `model_error` as its text). Allocates nothing.
 */
KVPLAN_API kvplan_status
kvplan_vllm_log_reconcile(const kvplan_model *model, const char *model_error,
                          const kvplan_vllm_log_readings *readings,
                          const kvplan_engine_options *options,
                          kvplan_vllm_log_result *out, kvplan_error *err);

/* ------------------------------------------------------------------------ */
/* Reading a TensorRT-LLM start-up log (docs/log.md, "TensorRT-LLM logs")    */
/* ------------------------------------------------------------------------ */

/* What a TensorRT-LLM (PyTorch flow) start-up log printed, each reading
 * set only where a line printed it. KvCacheCreator prints its profile
 * (weights, activation and memory outside torch, the peak, the KV memory
 * and bytes a token); the C++ manager the tokens it allocated. Lines that
 * appear twice (the estimation's cache, then the final one) keep the
 * last. Figures are as printed (GiB to 2 decimals). */
typedef struct kvplan_trtllm_log_readings {
    int64_t lines, lines_used;
    char version[32]; /* "TensorRT-LLM version: 1.1.0rc3" */
    /* KvCacheCreator's profile ("... in memory usage profiling: X GiB") */
    kvplan_opt_double weights_gib;       /* model weights, inside torch */
    kvplan_opt_double activation_gib;    /* dynamically allocated */
    kvplan_opt_double outside_torch_gib; /* NCCL, CUDA graphs, ... */
    kvplan_opt_double peak_gib;          /* "Peak memory ... : X GiB" */
    kvplan_opt_double available_gib;     /* "available KV cache memory when
                                            calculating max tokens: X GiB" */
    kvplan_opt_double fraction;          /* "fraction is set F" */
    kvplan_opt_int kv_bytes_per_token;   /* "kv size is N" (per token) */
    kvplan_opt_double total_gib;         /* "device total memory T GiB" */
    /* the manager's lines: the last of each */
    kvplan_opt_int max_tokens;       /* "Both free_gpu_memory_fraction and
                                        max_tokens are set (to F and N, ...)" */
    kvplan_opt_int tokens_per_block; /* "Number of tokens per block: N." */
    kvplan_opt_double allocated_gib; /* "Allocated X GiB for max tokens in
                                        paged KV cache (N)." */
    kvplan_opt_int kv_cache_tokens;  /* its N */
    kvplan_opt_int max_seq_len;      /* "max_seq_len=N, max_num_requests=" */
    kvplan_opt_int max_batch_size;   /* "max_batch_size=N" */
    kvplan_opt_int max_num_tokens;   /* "max_num_tokens=N" */
    /* the creator of 2026 ("Estimated max memory in KV cache : X GiB",
     * its budget after the caps) and the KV cache manager V2 ("KV cache
     * manager v2 device quota set to XGiB", printed in full: the quota's
     * bytes) */
    kvplan_opt_double estimated_gib;
    kvplan_opt_double v2_quota_gib;
} kvplan_trtllm_log_readings;

/*
 * Reads a TensorRT-LLM start-up log (any bytes). Trusts no number it did
 * not parse; allocates nothing. KVPLAN_PARSE (field "log") when no line of
 * TensorRT-LLM's KV-cache sizing is in it.
 */
KVPLAN_API kvplan_status
kvplan_trtllm_log_parse(const char *text, size_t len,
                        kvplan_trtllm_log_readings *out, kvplan_error *err);

/* A TensorRT-LLM log reconciled with kvplan's plan of the same server. */
typedef struct kvplan_trtllm_log_result {
    /* From the log's own available KV memory (2 decimals: +-0.005 GiB)
     * at kvplan's bytes a token (the log's where no model is planned):
     * max_tokens and the tokens the pool's blocks hold at each end. */
    bool interval;
    int64_t available_lo, available_hi;
    int64_t max_tokens_lo, max_tokens_hi, tokens_lo, tokens_hi;
    bool inside; /* the printed max_tokens and pool tokens lie inside */
    /* kvplan's bytes a token for the model (0: not planned), and whether
     * the log's "kv size" is the same number */
    int64_t bytes_per_token;
    bool bytes_match;
    /* the pool the log allocated (its tokens at kvplan's bytes a token),
     * and whether that prints as the log's "Allocated X GiB" */
    int64_t pool_bytes;
    bool pool_match;
    size_t num_causes;
    kvplan_log_cause causes[KVPLAN_MAX_LOG_CAUSES];
    /* the manager the log's lines are (2: it printed V2's device quota),
     * which the reconciliation follows whatever the options say; V2's
     * quota in bytes and the slots kvplan's V2 pool holds at it (the log
     * prints no count of them) */
    int32_t kv_cache_manager;
    int64_t v2_quota_bytes, v2_slots;
} kvplan_trtllm_log_result;

/*
 * Reconciles `readings` with kvplan: the plan of `model` under TensorRT-LLM
 * with `options` (its tokens_per_block, max_batch_size and max_num_tokens
 * taken from the log where it prints them) at each end of the log's
 * available memory, and a cause for each difference. `model` may be NULL
 * (a cause, `model_error` its text): the log's own bytes a token are then
 * used. Allocates nothing.
 */
KVPLAN_API kvplan_status
kvplan_trtllm_log_reconcile(const kvplan_model *model, const char *model_error,
                            const kvplan_trtllm_log_readings *readings,
                            const kvplan_engine_options *options,
                            kvplan_trtllm_log_result *out, kvplan_error *err);

/* What a TensorRT-LLM log measured, one rank's, as the engine options'
 * terms (kvplan log --calibrate on a TensorRT-LLM log). KvCacheCreator
 * sizes the cache as (total - peak) x free_gpu_memory_fraction; the
 * weights and the memory outside torch are taken as the log prints them,
 * the activation is the rest of that sum at the log's available memory
 * (its printed "dynamically allocated" also held the estimation's KV
 * cache, which the sum gives back). */
typedef struct kvplan_trtllm_calibration {
    int64_t rank_weight_bytes;     /* "... after loading model weights (inside
                                      torch) ...: X GiB" */
    int64_t non_torch_bytes;       /* "Memory used outside torch (e.g., NCCL and
                                      CUDA graphs) ...: X GiB" */
    int64_t activation_bytes;      /* total - available / fraction - both */
    double total_gib;              /* CUDA's total the sum took: the GPU's as a
                                      plan takes it, else the log's */
    double fraction;               /* the log's, else the options', else 0.9 */
    double printed_activation_gib; /* the log's own; -1 absent */
    bool total_from_log;
} kvplan_trtllm_calibration;

/*
 * The terms of a TensorRT-LLM log (kvplan_trtllm_log_parse) at `options`'
 * GPU (CUDA's total as kvplan_engine_compute takes it; the log's device
 * total where no GPU is given). Needs the profile's weights, memory outside
 * torch and available KV memory; a sum that leaves the activation at or
 * below 0 is refused naming --gpu. Allocates nothing.
 */
KVPLAN_API kvplan_status
kvplan_trtllm_log_calibrate(const kvplan_trtllm_log_readings *readings,
                            const kvplan_engine_options *options,
                            kvplan_trtllm_calibration *out, kvplan_error *err);

/* What a vLLM log measured, one rank's, as the engine options' terms
 * (kvplan log --calibrate on a vLLM log; kvplan --calibration reads it
 * back into kvplan_engine_options). */
typedef struct kvplan_vllm_calibration {
    int64_t rank_weight_bytes; /* "Model loading took X GiB" */
    /* the log's peak activation and non-torch memory where it prints
     * them; else (folded) the rest of the budget, requested less weights,
     * the graphs the version takes and the available memory, all in
     * activation_bytes and non_torch_bytes 0 */
    int64_t activation_bytes, non_torch_bytes;
    int64_t cuda_graph_bytes; /* the estimate the budget took (0.20+) */
    double total_gib;         /* CUDA's total: the log's, else the GPU's */
    double utilization;       /* the log's, else the version's default */
    bool total_from_log, folded;
} kvplan_vllm_calibration;

/*
 * The terms of a vLLM log (kvplan_vllm_log_parse), at `options`' GPU and
 * vLLM version (kvplan_vllm_log_options' result). Needs the log's weights
 * and available memory, and CUDA's total (the log's, or a GPU in
 * `options`); a budget whose terms do not add up (a rest at or below 0)
 * is refused naming --gpu. Allocates nothing.
 */
KVPLAN_API kvplan_status
kvplan_vllm_log_calibrate(const kvplan_vllm_log_readings *readings,
                          const kvplan_engine_options *options,
                          kvplan_vllm_calibration *out, kvplan_error *err);

/* ------------------------------------------------------------------------ */
/* Options by name: every flag of the command, key of a JSON request and     */
/* keyword of Python, one table (docs/options.md)                           */
/* ------------------------------------------------------------------------ */

/* What a value of an option is. */
typedef enum kvplan_option_type {
    KVPLAN_OPTION_INTEGER = 1, /* a whole number within [min, max] */
    KVPLAN_OPTION_NUMBER,      /* a real within the bounds */
    KVPLAN_OPTION_SWITCH,      /* on or off (a flag alone on a command line) */
    KVPLAN_OPTION_WORD,        /* one of a word set (`words`) */
    KVPLAN_OPTION_TEXT,        /* a name, a path or JSON text */
    KVPLAN_OPTION_SIZE,        /* memory: "80GB", "8GiB", or a number in
                                  the option's unit */
    KVPLAN_OPTION_NOT_READ     /* one of sglang's flags that kvplan accepts,
                                  so that a pasted command parses, and lists
                                  as not read */
} kvplan_option_type;

/* Whose option it is. */
typedef enum kvplan_option_scope {
    KVPLAN_SCOPE_SGLANG = 1, /* sglang's launch_server flag, same meaning */
    KVPLAN_SCOPE_KVPLAN,     /* kvplan's own: the GPU, the budget's terms */
    KVPLAN_SCOPE_ENGINE,     /* vLLM's or TensorRT-LLM's (kvplan_engine) */
    KVPLAN_SCOPE_QUESTION,   /* read by one question: fit, solve, sweep */
    KVPLAN_SCOPE_OUTPUT      /* what the answer's documents hold */
} kvplan_option_scope;

typedef struct kvplan_option {
    const char *name;   /* "tp_size": sglang's ServerArgs name where sglang
                           has one; the key of a JSON request, Python's
                           keyword */
    const char *flag;   /* "--tp-size" */
    const char *alias;  /* another spelling ("--tp"); NULL */
    const char *alias2; /* sglang's long one ("--tensor-parallel-size") */
    const char *vllm;   /* vLLM's flag of the same meaning; NULL */
    const char *trtllm; /* TensorRT-LLM's (trtllm-serve); NULL */
    kvplan_option_type type;
    kvplan_option_scope scope;
    const char *unit;        /* of a number or a bare size: "bytes", "MiB",
                                "tokens"; NULL */
    double min, max;         /* INTEGER, NUMBER: the bounds */
    bool min_open, max_open; /* the bound itself excluded */
    int words;               /* WORD: a kvplan_word_set; -1 for none */
    const char *expect;      /* what a value must be, in words; NULL */
    const char *meta;        /* the value in --help ("N"); NULL: its words.
                                NOT_READ: "VALUE" for a flag that takes one or
                                several, NULL for a switch */
    const char *help;        /* one line */
    const char *section;     /* the title of the --help section it opens */
    bool echo;               /* written back in the documents' "requested" */
    bool sweep;              /* kvplan sweep takes a list of its values */
    /* QUESTION: the one that reads it ("fit", "solve", "sweep") */
    const char *question;
    /* NOT_READ: how it changes GPU memory in a way kvplan does not model
     * (warned of); NULL when it does not touch memory. */
    const char *memory;
} kvplan_option;

/* The options, `index` from 0: those kvplan reads, then sglang's flags it
 * does not read; NULL past the end. Static: never freed. */
KVPLAN_API const kvplan_option *kvplan_option_at(size_t index);
/* The option named `name`: its name ("tp_size"), flag ("--tp-size"), an
 * alias ("--tp", "--tensor-parallel-size") or the name with dashes
 * ("tp-size"); NULL when none is. */
KVPLAN_API const kvplan_option *kvplan_option_find(const char *name);
/* The same for the first `len` bytes of `name` (a command line's
 * "--flag=value"). */
KVPLAN_API const kvplan_option *kvplan_option_find_n(const char *name,
                                                     size_t len);

/* The room of the internal part of kvplan_options: not API. */
#define KVPLAN__MAX_NOT_READ 64
#define KVPLAN__MAX_BAD_ENV 8
struct kvplan__options_internal {
    /* the texts as given, for the documents' "requested" */
    const char *gpu_text, *sglang_version_text, *compare_version_text,
        *engine_text, *hisparse_text, *vllm_version_text, *trtllm_version_text;
    /* sglang's flags given and not read (indices for kvplan_option_at),
     * and those past the room */
    uint16_t not_read[KVPLAN__MAX_NOT_READ];
    size_t num_not_read, not_read_dropped;
    /* sglang's variables set to a value not of their kind */
    const char *bad_env[KVPLAN__MAX_BAD_ENV];
    size_t num_bad_env;
    /* the options kvplan reads that were given (by kvplan_option_at's
     * index), for what the engine asked does not read */
    uint64_t given[2];
};

/*
 * Every option of every question, set by name (kvplan_options_set): the
 * model and where it is read from, the GPU, sglang's flags and the
 * budget's (plan), the other engines' (engine_options), and the
 * questions' own. Fill with kvplan_options_init. Text values are
 * borrowed: keep them alive while the options are used.
 */
typedef struct kvplan_options {
    uint32_t struct_size; /* set by kvplan_options_init */
    /* The model: a model directory, a config.json, a Hub id or a catalog
     * name; NULL: KVPLAN_DEFAULT_MODEL. When `model_config` is set, it is
     * config.json's text and model_path only names it. */
    const char *model_path;
    const char *model_config;
    size_t model_config_len;
    const char *revision;            /* of a Hub id; NULL: "main" */
    const char *model_override_args; /* --json-model-override-args */
    const char *draft_model_path;    /* --speculative-draft-model-path */
    const char *calibration;         /* --calibration FILE */
    /* The GPU: plan.gpu (a preset, plan.gpu_set), or the local GPUs
     * (gpu_auto, probed by kvplan_options_load); gpu_memory_mib replaces
     * its memory.total. */
    bool gpu_auto;
    kvplan_opt_double gpu_memory_mib;
    /* sglang's flags and the budget's */
    kvplan_plan_options plan;
    /* --engine, and the other engines' own flags (their shared ones, TP
     * and the GPU, come from `plan`: kvplan_options_engine) */
    kvplan_engine engine;
    kvplan_engine_options engine_options;
    /* --compare-version: also plan under this sglang */
    bool compare_version_set;
    kvplan_sglang_profile compare_version;
    /* --compare-version as a vLLM release, for --engine vllm (the text is
     * parsed as both; the engine asked picks) */
    bool compare_vllm_set;
    kvplan_vllm_profile compare_vllm_version;
    /* --compare-version as a TensorRT-LLM release, for --engine trtllm */
    bool compare_trtllm_set;
    kvplan_trtllm_profile compare_trtllm_version;
    /* The questions' own: fit's --concurrency, solve's target and knob,
     * sweep's ranking. */
    kvplan_opt_int concurrency;
    kvplan_opt_int target_tokens, target_concurrency;
    kvplan_knob solve_for; /* default KVPLAN_KNOB_MEM_FRACTION_STATIC */
    kvplan_sweep_key rank_by;
    /* The documents carry every term of the sums (--explain). */
    bool explain;
    /* Called after each file kvplan_options_load fetches from the Hub
     * (kvplan_hub_options.progress), when not NULL. */
    void (*progress)(void *ctx, size_t done, size_t total, const char *file);
    void *progress_ctx;
    /* Variables for this question, read before the process's: NAME, VALUE
     * pairs (VALUE NULL: unset), NULL-terminated; NULL: the process's
     * alone. sglang's (SGLANG_*) and the Hub's (HF_*). */
    const char *const *env;
    struct kvplan__options_internal internal_;
} kvplan_options;

/* Defaults for every option (struct_size set; no GPU chosen yet: the
 * default one is taken when the options are loaded). NULL is ignored. */
KVPLAN_API void kvplan_options_init(kvplan_options *options);

/*
 * Sets option `name` (kvplan_option_find) from its text, checked as
 * sglang's argparse checks it: an integer in decimal, a real (no hex, no
 * NaN), a word of the option's set, a size with a unit, a GPU preset or
 * "auto", an sglang version; a SWITCH takes NULL, "true" or "false".
 * KVPLAN_INVALID_ARGUMENT for a name that is no option (with a "did you
 * mean"), KVPLAN_PARSE for a value it does not take; the error's field is
 * the option as the caller spelled it: the flag for a command line's
 * ("--tp-size"), else the name ("tp_size"). One of sglang's flags kvplan
 * does not read is taken and listed as not read.
 */
KVPLAN_API kvplan_status kvplan_options_set(kvplan_options *options,
                                            const char *name, const char *text,
                                            kvplan_error *err);
/* The same with a number (a JSON request's, a Python int or float): an
 * INTEGER option takes a whole one, a SIZE one a number in its unit; any
 * other type refuses it, as it refuses a switch's true or false. */
KVPLAN_API kvplan_status kvplan_options_set_integer(kvplan_options *options,
                                                    const char *name,
                                                    int64_t value,
                                                    kvplan_error *err);
KVPLAN_API kvplan_status kvplan_options_set_number(kvplan_options *options,
                                                   const char *name,
                                                   double value,
                                                   kvplan_error *err);
/* A SWITCH on or off; any other type refuses true and false ("tp_size:
 * expected a positive integer, got true"). */
KVPLAN_API kvplan_status kvplan_options_set_switch(kvplan_options *options,
                                                   const char *name, bool value,
                                                   kvplan_error *err);

/*
 * sglang's environment variables as sglang reads them, from
 * options->env and then the process's: SGLANG_PP_LAYER_PARTITION,
 * SGLANG_SWA_EVICTION_INTERVAL, SGLANG_DSV4_COMPRESS_STATE_DTYPE,
 * SGLANG_MAMBA_SSM_DTYPE, SGLANG_VLM_CACHE_SIZE_MB, and the EnvBools
 * (SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN, ...). A value not of its
 * kind takes the default, as sglang warns and does; the documents list it.
 */
KVPLAN_API void kvplan_options_read_env(kvplan_options *options);

/* The variable `name` as the options see it: options->env's (NULL where
 * it unsets it), else the process's. */
KVPLAN_API const char *kvplan_options_getenv(const kvplan_options *options,
                                             const char *name);

/* What kvplan_options_load found: the model and its draft, where they
 * were read, and what it measured or warns of. */
#define KVPLAN_MAX_LOAD_WARNINGS 4
typedef struct kvplan_loaded {
    kvplan_model *model; /* owned: kvplan_loaded_free */
    kvplan_model *draft; /* owned; NULL without a draft model */
    /* Where a Hub id was read: "hub", "hub_cache", or "catalog" (the Hub
     * and its cache had it not: then `note` says why); NULL for a path, a
     * config.json's text or a catalog name. */
    const char *source;
    char hub_dir[4096]; /* the snapshot folder read; "" when none */
    char hub_commit[48];
    char note[400];
    /* The weights from the model folder's safetensors headers (or the Hub
     * snapshot's): options->plan.weight_bytes was set from them. */
    bool weights_measured;
    int gpu_count; /* --gpu auto: the GPUs NVML saw; 0 otherwise */
    /* What the options loaded but warn of: a checkpoint whose weights
     * could not be read (estimated instead), a calibration made on another
     * GPU or rank count. One sentence each; the first four. */
    size_t num_warnings;
    char warnings[KVPLAN_MAX_LOAD_WARNINGS][400];
} kvplan_loaded;

/*
 * Loads what `options` name, as the kvplan command does before any
 * question: the GPU (a preset, --gpu-memory, or --gpu auto through NVML;
 * the default board when none is named and the budget is not given), a
 * calibration file's terms, the model (options->model_config's text, a
 * local folder or config.json, a Hub id through the Hub or its cache with
 * the catalog as the fallback, a catalog name; docs/hub.md) with
 * --json-model-override-args, its draft, and the weights from the model
 * folder's safetensors headers. The options are completed in place: the
 * GPU into plan.gpu, the measured and calibrated bytes into plan, the
 * draft into plan.server.speculative_draft_model. The Hub's variables
 * (HF_ENDPOINT, HF_TOKEN, HF_TOKEN_PATH, HF_HOME, HF_HUB_CACHE,
 * HF_HUB_OFFLINE, KVPLAN_HUB_TIMEOUT, KVPLAN_HUB_DEADLINE) are read
 * through options->env. On
 * failure nothing is left to free. Reads files and the network; writes
 * only the Hub cache (docs/hub.md).
 */
KVPLAN_API kvplan_status kvplan_options_load(kvplan_options *options,
                                             kvplan_loaded *out,
                                             kvplan_error *err);
/* Frees the models a load holds; NULL is ignored. */
KVPLAN_API void kvplan_loaded_free(kvplan_loaded *loaded);

/* ---- The sweep: one plan per combination of values (kvplan sweep) ------- */

#define KVPLAN_MAX_SWEEP_AXES 8
#define KVPLAN_MAX_SWEEP_VALUES 64
#define KVPLAN_MAX_SWEEP_ROWS 100000

/* One option a sweep varies: an option whose `sweep` is true ("gpu",
 * "tp_size", "pp_size", "kv_cache_dtype", "page_size", "context_length",
 * "mem_fraction_static", "speculative_algorithm"), by any name
 * kvplan_option_find takes, and its values as text ("none" leaves
 * speculative_algorithm out). */
typedef struct kvplan_sweep_axis {
    const char *option;
    const char *const *values;
    size_t count;
} kvplan_sweep_axis;

/* One row: its options' plan, in figures. */
typedef struct kvplan_sweep_row {
    size_t index;                       /* in the product: the tie-break */
    size_t pick[KVPLAN_MAX_SWEEP_AXES]; /* each axis's value */
    kvplan_status status;               /* KVPLAN_OK: the row plans */
    kvplan_error error;                 /* why it does not */
    bool fits;    /* it plans, and one request of context_len runs */
    char gpu[64]; /* the GPU's name; "" when --available-bytes is given */
    int64_t max_total_num_tokens, max_running_requests, context_len;
    int64_t longest_request_tokens, page_size;
    double mem_fraction_static;
    kvplan_dtype kv_cache_dtype;
    char kv_cache_dtype_name[24];  /* as sglang names it on this GPU */
    kvplan_limit binding;          /* what bounds the concurrency */
    kvplan_pool_kind binding_pool; /* with KVPLAN_LIMIT_POOL */
    kvplan_fleet fleet;            /* GPUs, and the concurrency on them */
} kvplan_sweep_row;

/*
 * The sweep: for every combination of the axes' values (the first axis
 * outermost), the plan of `base` with those values set by name
 * (kvplan_options_set), every other option held: `rows` (num_rows, the
 * product of the counts) get each row's figures, in the product's order.
 * `base` is the options after kvplan_options_load and `model` its model.
 * Consecutive rows that differ in the GPU and the fraction alone reuse the
 * row before's ranks (kvplan_plan_update); each row equals
 * kvplan_plan_compute of its own options. A row that does not plan keeps
 * its error; a value no row can take (a word, a bound) is the sweep's
 * error: KVPLAN_PARSE or KVPLAN_INVALID_ARGUMENT naming the option.
 * `work` is two plans' worth of memory. Allocates nothing.
 */
KVPLAN_API kvplan_status kvplan_sweep(const kvplan_model *model,
                                      const kvplan_options *base,
                                      const kvplan_sweep_axis *axes,
                                      size_t num_axes, kvplan_sweep_row *rows,
                                      size_t num_rows, kvplan_plan work[2],
                                      kvplan_error *err);

/* The options of row `row` (base with its values set), for its whole plan
 * or document. */
KVPLAN_API kvplan_status kvplan_sweep_row_options(
    const kvplan_options *base, const kvplan_sweep_axis *axes, size_t num_axes,
    const kvplan_sweep_row *row, kvplan_options *out, kvplan_error *err);

/* The rows' ranking by `key` into order[0..n): the rows that fit first,
 * then those that plan, then the rest, each best first, ties in the
 * product's order (a total order: the same rows rank the same way on
 * every thread). Allocates nothing. */
KVPLAN_API void kvplan_sweep_rank(const kvplan_sweep_row *rows, size_t n,
                                  kvplan_sweep_key key, size_t *order);

/* A row's figure for `key` (what kvplan_sweep_rank compares; gpus as a
 * count, fewest best). */
KVPLAN_API double kvplan_sweep_figure(const kvplan_sweep_row *row,
                                      kvplan_sweep_key key);

/* ---- The three engines side by side (kvplan compare) ------------------- */

/* Why sglang's, vLLM's and TensorRT-LLM's figures differ for a model. */
typedef enum kvplan_compare_reason {
    KVPLAN_REASON_BUDGET = 1,     /* each engine's budget rule */
    KVPLAN_REASON_HEADLINE,       /* what each headline token count is */
    KVPLAN_REASON_SLIDING_WINDOW, /* the sliding layers' pools */
    KVPLAN_REASON_MAMBA_STATE,    /* the mamba state's place */
    KVPLAN_REASON_DSA_ROW,        /* DSA's fp8 row: 656 bytes in vLLM */
    KVPLAN_REASON_KV_DTYPE        /* the KV dtype each engine defaults to */
} kvplan_compare_reason;

/* "budget", "headline", "sliding_window", "mamba_state", "dsa_row",
 * "kv_dtype"; "?" out of range. */
KVPLAN_API const char *kvplan_compare_reason_name(kvplan_compare_reason r);

/* One engine's column: per rank. */
typedef struct kvplan_engine_column {
    kvplan_engine engine;
    kvplan_status status; /* KVPLAN_OK: it planned */
    char error[520];
    double kv_bytes;        /* the cache's bytes; sglang's holds its mamba
                               state too, as vLLM's one pool does */
    double state_bytes;     /* sglang's mamba slots, part of kv_bytes */
    double bytes_per_token; /* of full attention, every layer */
    int64_t tokens;         /* the engine's headline count */
    int64_t request_tokens; /* the request length of the concurrency */
    double concurrency;     /* requests of that length at once */
    double weight_bytes;
} kvplan_engine_column;

#define KVPLAN_MAX_COMPARE_REASONS 8

typedef struct kvplan_comparison {
    kvplan_engine_column columns[3]; /* sglang, vLLM, TensorRT-LLM */
    /* The GPUs the parallelism occupies (kvplan_fleet's rule; sglang's
     * plan's when it planned) and the sglang rules its column followed. */
    kvplan_fleet fleet;
    uint64_t sglang_rules;
    size_t num_reasons;
    kvplan_compare_reason reasons[KVPLAN_MAX_COMPARE_REASONS];
    kvplan_engine_plan vllm, trtllm; /* the whole plans, where they planned */
} kvplan_comparison;

/* The engine options `options` give `engine`: its own flags
 * (options->engine_options) and the shared ones: TP, PP, the KV dtype,
 * the GPU, the speculative draft, the weights, and --context-length as
 * max_model_len where the engine's own is not given. */
KVPLAN_API void kvplan_options_engine(const kvplan_options *options,
                                      kvplan_engine engine,
                                      kvplan_engine_options *out);

/*
 * The model of `options` (loaded: kvplan_options_load) under sglang, vLLM
 * and TensorRT-LLM, with the reasons their figures differ. An engine that
 * cannot plan it is a column with its error, not an error. `work` is a
 * plan's worth of memory. Allocates nothing.
 */
KVPLAN_API kvplan_status kvplan_compare(const kvplan_model *model,
                                        const kvplan_options *options,
                                        kvplan_plan *work,
                                        kvplan_comparison *out,
                                        kvplan_error *err);

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

/*
 * Writes `x` as Python's repr() would ("66355.2", "1e+16", "inf"): the
 * shortest text that reads back to the same double. Returns the length
 * written, excluding the NUL, or 0 if `size` is too small (at least 32
 * always suffices).
 */
KVPLAN_API size_t kvplan_format_double(double x, char *buf, size_t size);

/*
 * sglang's environment variable rules (environ.py), for text an embedder
 * read itself: EnvBool takes true/1/yes/y and false/0/no/n in any case,
 * EnvInt is Python's int() (blanks around, a sign, underscores between
 * digits). Anything else gives `fallback`, as sglang's default.
 */
KVPLAN_API bool kvplan_env_bool(const char *text, size_t len, bool fallback);
KVPLAN_API int64_t kvplan_env_int(const char *text, size_t len,
                                  int64_t fallback);

/* The library's version, "MAJOR.MINOR.PATCH". */
KVPLAN_API const char *kvplan_version(void);
/* The library's KVPLAN_VERSION_NUMBER. */
KVPLAN_API unsigned kvplan_version_number(void);

/* sizeof a public struct by its name ("kvplan_plan", "kvplan_rank", ...),
 * as this library was built; 0 for a name it does not know. For bindings
 * that mirror the structs: compare before use. */
KVPLAN_API size_t kvplan_struct_size(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* KVPLAN_H */
