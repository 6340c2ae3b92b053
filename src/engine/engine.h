/*
 * engine.h: the engine room's internals; not installed.
 *
 * model + budget -> what vLLM or TensorRT-LLM would allocate for the same
 * model and GPU (docs/engines.md): engine.c reads the model once into a
 * census of its KV layers and estimates the terms only a live profile
 * measures; vllm.c restates vLLM v1's KV-cache specs, page unification,
 * groups and report; trtllm.c restates TensorRT-LLM's KvCacheCreator. The
 * engine room is the sglang plan's sibling: it uses the model and the
 * budget, never the plan or the core.
 */
#ifndef KVPLAN_ENGINE_H
#define KVPLAN_ENGINE_H

#include "budget/budget.h"
#include "model/model.h"

/* The KV layers of one rank, as the engines see them. */
typedef struct kvplan__engine_census {
    bool mla, dsa, hybrid_swa, mambaish;
    int64_t kv_elem; /* the KV cache element's bytes */
    bool kv_fp8;
    int64_t full_layers, swa_layers, mamba_layers;
    int64_t draft_layers; /* an EAGLE draft's own full-attention layers */
    int64_t draft_kv_heads, draft_head_dim, draft_v_head_dim;
    /* per rank: max(1, total // tp) */
    int64_t kv_heads, head_dim, v_head_dim;
    int64_t swa_kv_heads, swa_head_dim, swa_v_head_dim;
    int64_t window;  /* the config's sliding window */
    int64_t mla_dim; /* kv_lora_rank + qk_rope_head_dim */
    int64_t kv_lora_rank, rope_dim;
    int64_t qk_nope;     /* the config's qk_nope_head_dim; 1 absent (vLLM's) */
    int64_t ds_mla_row;  /* fp8_ds_mla's bytes a token (the core's rule) */
    int64_t index_bytes; /* DSA indexer per token and layer (fp8 + scales) */
    bool dsa_shared;     /* DSA layers sharing another's indexer (a top-k
                            schedule) */
    int64_t mamba_page;  /* one mamba layer's state per request, bytes */
    int64_t mamba_conv, mamba_ssm; /* its conv and temporal states' */
    bool mamba_divides;  /* TP divides the mamba heads and conv channels */
    int64_t ssm_elem;    /* its temporal state's bytes an element */
    int64_t context_len; /* the model's */
    double hidden, inter, vocab; /* for the activation estimate */
    /* where the layers are, for PP's stages (ascending ids into the
     * model): the sliding layers', or a mamba hybrid's attention layers';
     * none: every layer is full attention. model_layers: the stack's. */
    kvplan_ids swa_at, attn_at;
    int64_t model_layers;
} kvplan__engine_census;

kvplan_status kvplan__engine_census_of(const kvplan_model *m,
                                       const kvplan_engine_options *o,
                                       kvplan__engine_census *c,
                                       kvplan_error *err);

/* The budget's terms only a live profile measures: the options' where
 * given, else estimates (engine.c). `tokens` is the profile run's batch,
 * `seqs` the sampler's. */
void kvplan__engine_terms(const kvplan_model *m, const kvplan_engine_options *o,
                          const kvplan__engine_census *c, int64_t tokens,
                          int64_t seqs, kvplan_engine_plan *p);

/* ---- vllm.c ---------------------------------------------------------- */

/* vLLM's per-layer page bytes (kv_cache_interface.py), for `block` tokens:
 * attention K + V of `heads` heads; MLA's latent, or fp8_ds_mla's
 * `ds_mla_row` bytes a token (kvplan__dsa_fp8_row_bytes: 656) when not 0;
 * DeepSeek V4's `row` bytes per compressed token (kvplan__dsv4_row_bytes:
 * 584), aligned up. */
int64_t kvplan__vllm_attention_page(int64_t block, int64_t heads,
                                    int64_t head_dim, int64_t v_head_dim,
                                    int64_t elem, bool *ovf);
int64_t kvplan__vllm_mla_page(int64_t block, int64_t mla_dim, int64_t elem,
                              int64_t ds_mla_row, bool *ovf);
int64_t kvplan__vllm_dsv4_page(int64_t block, int64_t compress_ratio,
                               int64_t row, int64_t alignment, bool *ovf);

/* _get_kv_cache_groups_uniform_page_size: the group size for layer counts
 * `counts` of `n` spec types (the least, or the most when it is below 1.5
 * times the least), and the padding layers it adds. */
int64_t kvplan__vllm_group_size(const int64_t *counts, size_t n,
                                int64_t *padding);

/* The census vLLM sizes (engine.c): under
 * --disable-hybrid-kv-cache-manager the sliding layers are full ones; a
 * mamba hybrid is refused, as vLLM refuses it. */
kvplan_status kvplan__vllm_without_hma(const kvplan__engine_census *c,
                                       const kvplan_engine_options *o,
                                       kvplan__engine_census *out,
                                       kvplan_error *err);

kvplan_status kvplan__vllm_plan(const kvplan__engine_census *c,
                                const kvplan_engine_options *o,
                                const kvplan_model *m, kvplan_engine_plan *p,
                                kvplan_error *err);

/* ---- versions.c: an engine's release ranges ------------------------- */

/* One release range of an engine (versions.c for vLLM, trtllm_versions.c):
 * its profile's value, its name, its first and last release as that
 * engine's parser numbers them, and the older rules it still had. */
typedef struct kvplan__release_range {
    int profile;
    const char *name;
    long first, last;
    uint64_t rules;
} kvplan__release_range;

/* The range of `profile` in table[0..n); NULL when none is. */
const kvplan__release_range *
kvplan__range_of(const kvplan__release_range *table, size_t n, int profile);
/* The range named `name` (ASCII case-insensitive), else the one holding
 * the release numbered `release` (-1: none); NULL when none does. */
const kvplan__release_range *
kvplan__range_find(const kvplan__release_range *table, size_t n,
                   const char *name, long release);
/* rules[index] into *out; false past `n` or without out. */
bool kvplan__rule_copy(const kvplan_rule_info *rules, size_t n, size_t index,
                       kvplan_rule_info *out);
/* The figures of o's plan of m, or its refusal's message, returning its
 * kv_cache_manager (0 where it does not start); and whether two such
 * differ (--compare-version of vLLM and TensorRT-LLM). */
int32_t kvplan__engine_figures(const kvplan_model *m,
                               const kvplan_engine_options *o,
                               kvplan_engine_version_figures *f);
bool kvplan__engine_figures_move(const kvplan_engine_version_figures *a,
                                 const kvplan_engine_version_figures *b);
/* --compare-version's rules: each of `table[0..n)` in which `mine` (the
 * plan's, its flips applied) and `theirs` differ, switched alone from
 * o's plan by xoring its bit into *flip (o's vllm_rules_flip or
 * trtllm_rules_flip, restored after), its figures against `plan`, into
 * out[0..cap); returns how many. */
size_t kvplan__engine_rule_deltas(const kvplan_model *m,
                                  kvplan_engine_options *o, uint64_t *flip,
                                  const kvplan_rule_info *table, size_t n,
                                  uint64_t mine, uint64_t theirs,
                                  const kvplan_engine_version_figures *plan,
                                  kvplan_engine_rule_delta *out, size_t cap);

/* ---- trtllm.c -------------------------------------------------------- */

kvplan_status kvplan__trtllm_plan(const kvplan__engine_census *c,
                                  const kvplan_engine_options *o,
                                  const kvplan_model *m, kvplan_engine_plan *p,
                                  kvplan_error *err);

/* TensorRT-LLM's KV cache manager V2 (trtllm_v2.c): its pools from the
 * creator's budget `kv` over `layers` layers, windowed by
 * --max-attention-window or, for Gemma 4 (`gemma4`), by its sliding
 * layers; fills the plan's groups (a life cycle each), blocks, tokens,
 * quota and concurrency (after kvplan__trtllm_v2_check). */
kvplan_status kvplan__trtllm_v2(const kvplan__engine_census *c,
                                const kvplan_engine_options *o, double kv,
                                int64_t layers, int64_t tpb, bool gemma4,
                                kvplan_engine_plan *p, kvplan_error *err);

/* Under V2 (p's manager, after kvplan__trtllm_manager), what V2 does not
 * size as kvplan restates it (mamba, DSA's shared indexers, a head of
 * its own head_dim, a separate draft cache); and
 * --max-util-for-resume where it changes nothing (not V2 with
 * --max-tokens): each refused naming the flag, before the budget. */
kvplan_status kvplan__trtllm_v2_check(const kvplan__engine_census *c,
                                      const kvplan_engine_options *o,
                                      const kvplan_engine_plan *p,
                                      kvplan_error *err);
/* Gemma 4's hybrid attention, for which TensorRT-LLM takes V2 (the plan
 * and the log's reconciliation). */
bool kvplan__trtllm_gemma4(const kvplan_model *m);
/* The KV cache manager TensorRT-LLM gives the model (trtllm_versions.c):
 * p's kv_cache_manager, its choice, v2_default and the release's rules,
 * from use_kv_cache_manager_v2 given either way, Gemma 4's need, or the
 * release's default for the model (refused where kvplan has not pinned
 * the release a family moved in). */
kvplan_status kvplan__trtllm_manager(const kvplan_model *m,
                                     const kvplan__engine_census *c,
                                     const kvplan_engine_options *o,
                                     kvplan_engine_plan *p, kvplan_error *err);
/* The manager use_kv_cache_manager_v2's absence gives `m` under o's
 * release: 1 or 2; 0 where kvplan cannot say (a release of its
 * unsettled range, or a model it cannot read). */
int kvplan__trtllm_default_manager(const kvplan_model *m,
                                   const kvplan_engine_options *o);
/* The family (and pull request) whose model defaults pick V2 for a
 * model of `architecture` (architectures[0]), or DSA's; NULL: V1 stays
 * its default. */
const char *kvplan__trtllm_v2_default(const char *architecture, bool dsa);
/* Whether V2 derives windows for the model's sliding layers where
 * --max-attention-window is not given: they mix with full layers under
 * one sliding_window (trtllm_v2.c, v2_layers). */
bool kvplan__trtllm_v2_derives(const kvplan__engine_census *c);
/* V2's storage arithmetic: the grain for a GPU quota
 * (cache_tier_granularity); the grains n slots of pools `size` take, each
 * pool rounded up to a grain (_grains_for_slots); the most slots whose
 * pools fit `grains` (_grains_to_slots with ratio_to_slot_count_list's
 * bump). */
int64_t kvplan__trtllm_v2_grain(int64_t quota);
int64_t kvplan__trtllm_v2_grains(int64_t n, const int64_t *size, size_t pools,
                                 int64_t g, bool *ovf);
int64_t kvplan__trtllm_v2_slots(int64_t grains, const int64_t *size,
                                size_t pools, int64_t g, bool *ovf);

/* V2's storage (trtllm_v2_storage.c): its life cycles (one a window,
 * 0: none; KVPLAN__V2_SSM: a hybrid Mamba's states), their buffers
 * coalesced by size into pools, and the pool groups life cycles of equal
 * pool sizes share. */
#define KVPLAN__V2_MAX_POOLS 4
#define KVPLAN__V2_SSM (-1)
/* A batch of requests (a BatchDesc): up to four kinds, `count` requests
 * of `capacity` tokens, `history` of them past (a CUDA-graph dummy: none
 * of either). */
typedef struct kvplan__trtllm_v2_step {
    size_t kinds;
    struct {
        int64_t count, capacity, history;
    } kind[4];
} kvplan__trtllm_v2_step;
typedef struct kvplan__trtllm_v2_life_cycle {
    int64_t window, sink_blocks, layers; /* TensorRT-LLM's: no sinks */
    int64_t per_token;                   /* its layers' K and V bytes a token */
    size_t sizes; /* distinct buffer sizes (a block), first seen first */
    int64_t size[KVPLAN__V2_MAX_POOLS], count[KVPLAN__V2_MAX_POOLS];
    size_t pools; /* the coalesced sizes, descending */
    int64_t pool[KVPLAN__V2_MAX_POOLS];
    size_t group;
    /* a layer's most share of a slot (LayerAttr.slot_util_frac_max), the
     * most of its layers' (kvplan__trtllm_v2_share); 0/0: none given */
    int64_t share_num, share_den;
} kvplan__trtllm_v2_life_cycle;
typedef struct kvplan__trtllm_v2_pool_group {
    size_t pools;
    int64_t size[KVPLAN__V2_MAX_POOLS];
    int64_t least;   /* its least slots: one a life cycle */
    int64_t typical; /* the slots the typical step needs */
    int64_t slots;   /* its share of the quota */
    int64_t host;    /* its share of the host tier's (0: none) */
} kvplan__trtllm_v2_pool_group;
typedef struct kvplan__trtllm_v2_storage {
    size_t life_cycles, groups;
    kvplan__trtllm_v2_life_cycle lc[KVPLAN_MAX_ENGINE_GROUPS];
    kvplan__trtllm_v2_pool_group pg[KVPLAN_MAX_ENGINE_GROUPS];
    double ratio[KVPLAN_MAX_ENGINE_GROUPS]; /* the typical step's shares */
    /* SWA scratch reuse (swa_scratch_reuse, its max_rewind_len): set
     * before a step's slots are counted; false (memset) unless asked */
    bool scratch;
    int64_t rewind;
} kvplan__trtllm_v2_storage;
/* A layer of window `window` (0: none) whose K and V take `k` and `v`
 * bytes a token (v 0: MLA's latent alone), and an extra buffer `x` (DSA's
 * indexer keys, Role.INDEX_KEY; 0: none), in the layers' order. */
kvplan_status kvplan__trtllm_v2_add_layer(kvplan__trtllm_v2_storage *s,
                                          int64_t window, int64_t k, int64_t v,
                                          int64_t x, int64_t tpb,
                                          kvplan_error *err);
/* A manager layer of window `window` (0: none) whose buffers take
 * block[0..n) bytes a block (0: none), in the layers' order; its life
 * cycle's per_token is the caller's. */
kvplan_status kvplan__trtllm_v2_add_buffers(kvplan__trtllm_v2_storage *s,
                                            int64_t window,
                                            const int64_t *block, size_t n,
                                            kvplan_error *err);
/* After the layers are added: a layer of block[0..n) in the life cycle of
 * `window` raises its share_num / share_den to the most share of a pool
 * that layer's buffers take. */
void kvplan__trtllm_v2_share(kvplan__trtllm_v2_storage *s, int64_t window,
                             const int64_t *block, size_t n);
/* A hybrid Mamba's `layers` mamba layers (MambaHybridCacheManagerV2's
 * SsmLayerConfig): one SSM life cycle whose slot is each layer's `ssm`
 * and `conv` state bytes, one slot a request. */
kvplan_status kvplan__trtllm_v2_add_ssm(kvplan__trtllm_v2_storage *s,
                                        int64_t layers, int64_t ssm,
                                        int64_t conv, kvplan_error *err);
/* The pools and pool groups of the layers added; false on overflow. */
bool kvplan__trtllm_v2_group(kvplan__trtllm_v2_storage *s);
/* The blocks a request of `capacity` tokens, `history` of them past,
 * holds in a life cycle of `window` (get_stale_range); *ovf set where
 * the count passes 64 bits. */
int64_t kvplan__trtllm_v2_request_blocks(int64_t window, int64_t sink_blocks,
                                         int64_t capacity, int64_t history,
                                         int64_t tpb, bool *ovf);
/* ratio_to_slot_count_list: `quota` (a multiple of the grain `g`) split
 * over the pool groups by `ratio`, each at least its `least` slots,
 * into pg[].slots; -1 where the least slots leave nothing. */
int kvplan__trtllm_v2_split(int64_t quota, kvplan__trtllm_v2_pool_group *pg,
                            size_t groups, const double *ratio, int64_t g,
                            bool *ovf);
/* The GPU tier of `quota`: its grain and the pool groups' initial slots,
 * shared by the typical step's bytes (kvplan__trtllm_v2_split's result). */
int kvplan__trtllm_v2_allocate(kvplan__trtllm_v2_storage *s, int64_t quota,
                               int64_t tpb, const kvplan__trtllm_v2_step *step,
                               int64_t *grain, bool *ovf);
/* A constraint (_compute_min_slots_from_constraints): each pool group
 * holds at least the slots `batch` needs. */
void kvplan__trtllm_v2_constrain(kvplan__trtllm_v2_storage *s,
                                 const kvplan__trtllm_v2_step *batch,
                                 int64_t tpb, bool *ovf);
/* The host tier of `quota` bytes (--host-cache-size): the pool groups'
 * host slots, the GPU's shares split in 4 KiB grains (HostMem.ALIGNMENT,
 * _compute_slot_count_for_level); after kvplan__trtllm_v2_allocate. */
int kvplan__trtllm_v2_allocate_host(kvplan__trtllm_v2_storage *s, int64_t quota,
                                    bool *ovf);
/* A hybrid Mamba under V2 (trtllm_v2_mamba.c): the requests that hold
 * states (max_batch_size x pp_size) and the CUDA-graph dummies', a slot
 * of states' bytes, the periodic snapshots' interval (0: none), an
 * attention block of every layer's bytes, the typical request's tokens. */
typedef struct kvplan__trtllm_v2_mamba {
    int64_t lineages, dummies, state, interval, block, capacity;
} kvplan__trtllm_v2_mamba;
kvplan_status kvplan__trtllm_v2_mamba_check(const kvplan__engine_census *c,
                                            const kvplan_engine_options *o,
                                            kvplan_error *err);
void kvplan__trtllm_v2_mamba_of(const kvplan__engine_census *c,
                                const kvplan_engine_options *o, int64_t mbs,
                                int64_t len, int64_t tpb, const int64_t cost[3],
                                kvplan__trtllm_v2_mamba *m, bool *ovf);
/* _get_quota_from_max_tokens of MambaHybridCacheManagerV2. */
int64_t
kvplan__trtllm_v2_mamba_quota_of_tokens(const kvplan__trtllm_v2_mamba *m,
                                        const int64_t cost[3], int64_t tokens,
                                        int64_t mnt, int64_t mbs, bool *ovf);
/* The GPU tier's quota from the budget `kv`: --max-tokens' cap, the ranks'
 * sync through tokens (`clamp`ed as kvplan__trtllm_v2_quota's), and the
 * live states' floor (refused below it). */
kvplan_status kvplan__trtllm_v2_mamba_quota(const kvplan_engine_options *o,
                                            double kv, const int64_t cost[3],
                                            const kvplan__trtllm_v2_mamba *m,
                                            int64_t mnt, int64_t mbs,
                                            bool clamp, int64_t *quota,
                                            kvplan_error *err);
/* V2's _get_quota_from_max_tokens over its attention layers (trtllm_v2.c):
 * the full layers' bytes for every token, the windowed layers' for those
 * in context, their windows for max_batch_size requests. */
int64_t kvplan__trtllm_v2_quota_of_tokens(const int64_t cost[3], int64_t tokens,
                                          int64_t mnt, int64_t mbs, bool *ovf);
/* kv_cache_config.max_util_for_resume: --max-util-for-resume, else
 * KvCacheConfig's 0.95 (trtllm_v2_quota.c). */
double kvplan__trtllm_v2_mu(const kvplan_engine_options *o);
/* --max-tokens' cap on the quota `q` (KVCacheManagerV2.__init__):
 * ceil(`from`, the quota of its tokens, / max_util_for_resume) where
 * smaller. */
int64_t kvplan__trtllm_v2_cap(const kvplan_engine_options *o, int64_t from,
                              int64_t q);
/* The quota V2's GPU tier gets from the budget `kv` (trtllm_v2_quota.c):
 * --max-tokens' cap, and over more than one rank the sync through tokens;
 * `pad` bytes join every quota of tokens (DeepSeek-V4's, else 0); the
 * sync `clamp`ed as the newest releases clamp it (never above the quota).
 * Unclamped, where the ranks' quota falls below max_batch_size requests'
 * windows, *short_of is the budget's quota (a start TensorRT-LLM does not
 * make). */
int64_t kvplan__trtllm_v2_quota(const kvplan_engine_options *o, double kv,
                                const int64_t cost[3], int64_t pad, int64_t mnt,
                                int64_t mbs, bool clamp, int64_t *short_of,
                                bool *ovf);
/* The GPU tier's slots for quota `q` split by `step`'s shares, the host
 * tier's, and the plan's rows, blocks and concurrency (trtllm_v2.c). */
kvplan_status kvplan__trtllm_v2_finish(
    const kvplan__engine_census *c, const kvplan_engine_options *o, int64_t q,
    int64_t tpb, const kvplan__trtllm_v2_step *step,
    kvplan__trtllm_v2_storage *s, kvplan_engine_plan *p, kvplan_error *err);
/* kv_cache_config.avg_seq_len (trtllm_v2.c): at most max_seq_len
 * (TensorRT-LLM's own refusal, _build_base_config); beside a draft's
 * tokens (max_draft_len, num_extra_kv_tokens) in its step, not modelled. */
kvplan_status kvplan__trtllm_v2_avg_check(const kvplan__engine_census *c,
                                          const kvplan_engine_options *o,
                                          const kvplan_engine_plan *p,
                                          kvplan_error *err);
/* The constraints V2's base adds to a typical step (trtllm_v2.c): one
 * request at max_seq_len beside max_batch_size - 1 one-token decodes, one
 * fresh context of max_num_tokens, `dummies` CUDA-graph dummies beside
 * each. */
void kvplan__trtllm_v2_constraints(const kvplan_engine_plan *p, int64_t dummies,
                                   int64_t tpb, kvplan__trtllm_v2_storage *s,
                                   bool *ovf);
/* DeepSeek-V4 under TensorRT-LLM (trtllm_dsv4.c): what TensorRT-LLM
 * refuses and kvplan does not restate, before the budget; then
 * DeepseekV4CacheManager's pools from the KV budget `kv`, in blocks of
 * `tpb` tokens. */
kvplan_status kvplan__trtllm_dsv4_check(const kvplan_model *m,
                                        const kvplan__engine_census *c,
                                        const kvplan_engine_options *o,
                                        const kvplan_engine_plan *p,
                                        int64_t tpb, kvplan_error *err);
kvplan_status kvplan__trtllm_dsv4(const kvplan_model *m,
                                  const kvplan__engine_census *c,
                                  const kvplan_engine_options *o, double kv,
                                  int64_t tpb, kvplan_engine_plan *p,
                                  kvplan_error *err);
/* The bytes the quota arithmetic prices: [0] the full layers' a token,
 * [1] the windowed layers' a token in context, [2] their windows' a
 * request in generation. */
void kvplan__trtllm_v2_costs(const kvplan__trtllm_v2_storage *s, int64_t tpb,
                             int64_t costs[3], bool *ovf);

/* TensorRT-LLM's max_attention_window (trtllm_vswa.c): the distinct
 * windows, ascending, with their layers and (after kvplan__trtllm_vswa)
 * their primary blocks */
typedef struct kvplan__trtllm_window {
    int64_t window, layers, blocks, host_blocks;
} kvplan__trtllm_window;

/* `text` ("128,131072"): the windows as given, each clamped to
 * max_seq_len, into pattern[KVPLAN__TRTLLM_MAX_PATTERN] (layer i takes
 * pattern[i % n]). */
#define KVPLAN__TRTLLM_MAX_PATTERN 1024
kvplan_status kvplan__trtllm_window_pattern(const char *text,
                                            int64_t max_seq_len,
                                            int64_t *pattern, size_t *n,
                                            kvplan_error *err);
/* `text` ("128,131072") over `layers` layers, each clamped to
 * max_seq_len, into w[KVPLAN_MAX_ENGINE_GROUPS]. */
kvplan_status kvplan__trtllm_windows(const char *text, int64_t max_seq_len,
                                     int64_t layers, kvplan__trtllm_window *w,
                                     size_t *n, kvplan_error *err);
/* Two or more windows: the memory `kv` split by window (VSWA); fills the
 * plan's groups, blocks, tokens and concurrency. */
kvplan_status kvplan__trtllm_vswa(const kvplan_engine_options *o,
                                  kvplan__trtllm_window *w, size_t n,
                                  int64_t per_layer, double kv, int64_t tpb,
                                  kvplan_engine_plan *p, kvplan_error *err);

#endif /* KVPLAN_ENGINE_H */
