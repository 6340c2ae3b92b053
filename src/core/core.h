/*
 * core.h: the core's internal interface; not installed.
 *
 * The core (src/core/) is pure: a kvplan_rank in, pool sizes out; no files,
 * no JSON, no process environment. One file per configurator of sglang's
 * pool_configurator.py (6cc9352d), plus common.c (what they share) and
 * configurator.c (the factory and the entry points, through the kind table
 * below). The functions declared at the end are the sglang rules that the
 * plan (src/plan/) applies too: one copy each, here.
 *
 * Sections marked § are those of docs/sglang-rules.md.
 */
#ifndef KVPLAN_CORE_H
#define KVPLAN_CORE_H

#include "common/internal.h"

/* ---- the kind table ----------------------------------------------------- */

/*
 * One row per configurator: its kind and its five functions (applies,
 * init, from_bytes, from_tokens, finalize), in the order sglang's
 * create_memory_pool_configurator tries them: the first whose `applies`
 * holds builds the configurator (DEFAULT applies to any rank). The factory
 * and the three entry points of configurator.c are generated from it, as
 * switches the compiler can inline; a fifth configurator is one file and
 * one row here.
 */
#define KVPLAN__KIND_TABLE(X)                                                  \
    X(KVPLAN_CONFIGURATOR_DSV4, kvplan__dsv4_applies, kvplan__dsv4_init,       \
      kvplan__dsv4_from_bytes, kvplan__dsv4_from_tokens,                       \
      kvplan__dsv4_finalize)                                                   \
    X(KVPLAN_CONFIGURATOR_SWA_CHUNK_CAP, kvplan__swa_chunk_cap_applies,        \
      kvplan__swa_chunk_cap_init, kvplan__swa_chunk_cap_from_bytes,            \
      kvplan__swa_chunk_cap_from_tokens, kvplan__no_finalize)                  \
    X(KVPLAN_CONFIGURATOR_HYBRID_SWA, kvplan__hybrid_swa_applies,              \
      kvplan__hybrid_swa_init, kvplan__hybrid_swa_from_bytes,                  \
      kvplan__hybrid_swa_solve, kvplan__no_finalize)                           \
    X(KVPLAN_CONFIGURATOR_DEFAULT, kvplan__default_applies,                    \
      kvplan__default_init, kvplan__default_from_bytes,                        \
      kvplan__default_from_tokens, kvplan__no_finalize)

/* finalize for the configurators that have nothing to finalize */
static inline kvplan_status kvplan__no_finalize(const kvplan_configurator *c,
                                                kvplan_pool_config *config,
                                                kvplan_error *err)
{
    (void)c;
    (void)config;
    (void)err;
    return KVPLAN_OK;
}

/* default.c */
bool kvplan__default_applies(const kvplan_rank *r);
kvplan_status kvplan__default_init(kvplan_configurator *c, const kvplan_rank *r,
                                   kvplan_error *err);
kvplan_status kvplan__default_from_bytes(const kvplan_configurator *c,
                                         int64_t available, int64_t page,
                                         kvplan_pool_config *out,
                                         kvplan_error *err);
kvplan_status kvplan__default_from_tokens(const kvplan_configurator *c,
                                          int64_t tokens, int64_t page,
                                          kvplan_pool_config *out,
                                          kvplan_error *err);

/* hybrid_swa.c */
bool kvplan__hybrid_swa_applies(const kvplan_rank *r);
kvplan_status kvplan__hybrid_swa_init(kvplan_configurator *c,
                                      const kvplan_rank *r, kvplan_error *err);
kvplan_status kvplan__hybrid_swa_solve(const kvplan_configurator *c,
                                       int64_t tokens, int64_t page,
                                       kvplan_pool_config *out,
                                       kvplan_error *err);
kvplan_status kvplan__hybrid_swa_from_bytes(const kvplan_configurator *c,
                                            int64_t available, int64_t page,
                                            kvplan_pool_config *out,
                                            kvplan_error *err);

/* swa_chunk_cap.c: the most one request holds in the SWA pool, and what
 * the pool holds beside its requests (the seed's per_request term and the
 * rest of its cap); the capacity (src/plan/capacity.c) reads them too. */
int64_t kvplan__swa_request_tokens(const kvplan_rank *r, bool *ovf);
int64_t kvplan__swa_shared_tokens(const kvplan_rank *r, bool *ovf);

/* swa_chunk_cap.c */
bool kvplan__swa_chunk_cap_applies(const kvplan_rank *r);
kvplan_status kvplan__swa_chunk_cap_init(kvplan_configurator *c,
                                         const kvplan_rank *r,
                                         kvplan_error *err);
kvplan_status kvplan__swa_chunk_cap_from_bytes(const kvplan_configurator *c,
                                               int64_t available, int64_t page,
                                               kvplan_pool_config *out,
                                               kvplan_error *err);
kvplan_status kvplan__swa_chunk_cap_from_tokens(const kvplan_configurator *c,
                                                int64_t tokens, int64_t page,
                                                kvplan_pool_config *out,
                                                kvplan_error *err);

/* dsv4.c */
bool kvplan__dsv4_applies(const kvplan_rank *r);
kvplan_status kvplan__dsv4_init(kvplan_configurator *c, const kvplan_rank *r,
                                kvplan_error *err);
kvplan_status kvplan__dsv4_from_bytes(const kvplan_configurator *c,
                                      int64_t available, int64_t page,
                                      kvplan_pool_config *out,
                                      kvplan_error *err);
kvplan_status kvplan__dsv4_from_tokens(const kvplan_configurator *c,
                                       int64_t tokens, int64_t page,
                                       kvplan_pool_config *out,
                                       kvplan_error *err);
kvplan_status kvplan__dsv4_finalize(const kvplan_configurator *c,
                                    kvplan_pool_config *config,
                                    kvplan_error *err);

/* ---- common.c: readers of the rank, each naming the field it refuses --- */

/* An optional int that the formula needs: present and >= 0. */
kvplan_status kvplan__need_dim(kvplan_opt_int v, const char *field,
                               const char *why, int64_t *out,
                               kvplan_error *err);
/* sglang's `x or fallback` for an optional dim: absent or 0 falls back. */
kvplan_status kvplan__dim_or(kvplan_opt_int v, int64_t fallback,
                             const char *field, int64_t *out,
                             kvplan_error *err);
/* The KV cache element size, refusing an unset or unknown dtype. */
kvplan_status kvplan__kv_size_of(kvplan_dtype dtype, const char *field,
                                 int64_t *out, kvplan_error *err);
kvplan_status kvplan__check_tp(const kvplan_rank *r, kvplan_error *err);
/* The page size refused (check_page's failure, out of line). */
kvplan_status kvplan__bad_page(int64_t page_size, kvplan_error *err);
int64_t kvplan__swa_kv_heads_per_rank(const kvplan_rank *r);

/* ---- common.c: failures ------------------------------------------------ */

/* An int64 overflow, refused: `what` is the quantity, `fields` the JSON
 * pointers of the inputs it is made of. */
kvplan_status kvplan__overflow_of(kvplan_error *err, const char *what,
                                  const char *fields);
kvplan_status kvplan__overflow(kvplan_error *err, const char *what);
/* MemoryPoolConfig.__post_init__: "Not enough memory...", then `fmt`. */
kvplan_status kvplan__not_enough(kvplan_error *err, const char *fmt, ...)
    KVPLAN_PRINTF(2, 3);
kvplan_status kvplan__no_kv_layer(const kvplan_configurator *c,
                                  kvplan_error *err);
kvplan_status kvplan__tokens_below_page(int64_t tokens, int64_t page,
                                        kvplan_error *err);

/* ---- common.c: answers ------------------------------------------------- */

/* ---- inline: on the path of every call --------------------------------- */

/* sglang's `x or 1` / `x or 0` for an optional count. */
static inline int64_t kvplan__or_default(kvplan_opt_int v, int64_t fallback)
{
    return (v.set && v.value != 0) ? v.value : fallback;
}

/* KV heads one rank holds: max(1, total // attn_tp); heads replicate when
 * TP is wider than the model's KV heads (model_config.get_num_kv_heads,
 * §1.4). attn_tp >= 1. */
static inline int64_t kvplan__kv_heads_per_rank(int64_t total, int64_t attn_tp)
{
    bool unused = false;
    return kvplan__max(1, kvplan__floordiv(total, attn_tp, &unused));
}

/* KV heads per rank of the MHA cell: later sglang (KVPLAN_RULE_DCP_KV_HEADS)
 * divides the heads over attn_tp // dcp ranks, drafts excepted. */
static inline int64_t kvplan__mha_kv_heads(const kvplan_rank *r)
{
    int64_t tp = r->parallel.attn_tp_size;
    int64_t dcp = r->upstream.dcp_size;
    if ((r->upstream.rules & KVPLAN_RULE_DCP_KV_HEADS) && dcp > 1 &&
        !r->runner.is_draft_worker && tp % dcp == 0)
        tp /= dcp;
    return kvplan__kv_heads_per_rank(r->model.num_key_value_heads, tp);
}

/* Later sglang (KVPLAN_RULE_DSA_FP8_656): DSA with an fp8 KV cache prices
 * the rows its pool allocates. */
static inline bool kvplan__dsa_fp8_rows(const kvplan_rank *r)
{
    kvplan_dtype d = r->runner.kv_cache_dtype;
    return (r->upstream.rules & KVPLAN_RULE_DSA_FP8_656) &&
           r->model.hf_config.is_deepseek_dsa &&
           (d == KVPLAN_DTYPE_FLOAT8_E4M3FN || d == KVPLAN_DTYPE_FLOAT8_E5M2);
}

/* The DSA layers whose indexer is priced: all `layers`, or under
 * KVPLAN_RULE_DSA_SKIP_TOPK those of the stage that compute their own
 * top-k (not for HiSparse, PD, drafts, a draft's layers or the layer
 * split, which later sglang prices otherwise). */
int64_t kvplan__dsa_topk_layers(const kvplan_rank *r, int64_t layers);

static inline kvplan_status kvplan__check_page(int64_t page_size,
                                               kvplan_error *err)
{
    return page_size > 0 ? KVPLAN_OK : kvplan__bad_page(page_size, err);
}

/* Writes a whole answer at once, the DeepSeek V4 fields zeroed. Every
 * entry point computes into locals and calls this only once all its checks
 * have passed, so a failed call leaves the caller's struct as it was (and
 * no memset-then-copy sits on the hot path). */
static inline void kvplan__put_config(kvplan_pool_config *out,
                                      int64_t max_total, kvplan_opt_int full,
                                      kvplan_opt_int swa)
{
    out->max_total_num_tokens = max_total;
    out->full_max_total_num_tokens = full;
    out->swa_max_total_num_tokens = swa;
    out->c4_max_total_num_tokens = 0;
    out->c128_max_total_num_tokens = 0;
    out->c4_state_pool_size = 0;
    out->c128_state_pool_size = 0;
    out->max_running_requests = (kvplan_opt_int){0, false};
}

/* An integer coefficient: cell_size_bytes and cell_size together. */
static inline void kvplan__set_coefficient_int(kvplan_configurator *c,
                                               int64_t cell)
{
    c->cell_size_bytes = cell;
    c->cell_size = kvplan__to_double(cell);
    c->cell_size_is_float = false;
}

static const kvplan_opt_int kvplan__unset = {0, false};

static inline kvplan_opt_int kvplan__some(int64_t v)
{
    return (kvplan_opt_int){v, true};
}

static inline bool kvplan__is_eagle_family(kvplan_spec_algorithm a)
{
    return a == KVPLAN_SPEC_EAGLE || a == KVPLAN_SPEC_EAGLE3;
}

static inline bool kvplan__is_dflash_family(kvplan_spec_algorithm a)
{
    return a == KVPLAN_SPEC_DFLASH || a == KVPLAN_SPEC_DSPARK;
}

/* ---- sglang's rules, one copy each (the plan applies them too) --------- */

/* DSA indexer bytes per token and layer, uint8 keys with their fp32
 * scales: index_head_dim + index_head_dim // 128 * 4 (DSATokenToKVPool;
 * DeepSeek V4's c4 indexer). */
int64_t kvplan__dsa_indexer_bytes(int64_t index_head_dim, bool *ovf);

/* An MLA row as DSA's fp8 pool lays it out (later sglang's
 * KVPLAN_RULE_DSA_FP8_656, what it allocates, vLLM's fp8_ds_mla): the fp8
 * latent, its fp32 scales per 128, a bf16 rope: kv_lora_rank +
 * kv_lora_rank // 128 * 4 + rope * 2 (656 bytes for 512 and 64). */
int64_t kvplan__dsa_fp8_row_bytes(int64_t kv_lora_rank, int64_t rope,
                                  bool *ovf);

/* DeepSeek V4's KV bytes per token and layer: fp8 NoPE, bf16 RoPE and 8
 * scale bytes, nope + rope * 2 + 8 (584 for 448 and 64). */
int64_t kvplan__dsv4_row_bytes(int64_t nope, int64_t rope, bool *ovf);

/* sglang's default max_running_requests for a token capacity
 * (_resolve_max_num_reqs, §3.3; DSV4's c128 estimate, §2.15):
 * min(clamp(int(tokens / context_len * 512), 2048, 4096), tokens // 2).
 * context_len >= 1. */
int64_t kvplan__default_max_running_requests(int64_t tokens,
                                             int64_t context_len, bool *ovf);

/* Entries of `ids` in the stage [start, end); duplicates count, as in the
 * seed's list comprehensions. */
int64_t kvplan__count_in_stage(kvplan_ids ids, int64_t start, int64_t end);

/* The stage's sparse MiniMax layers that are k-only indexer layers. */
int64_t kvplan__count_k_only(const struct kvplan_minimax_sparse *ms,
                             int64_t start, int64_t end);

/* KV layers of a rank under the DSA cache layer split (§2.5). */
int64_t kvplan__dsa_split_layers(const kvplan_rank *r, int64_t num_layers,
                                 bool *ovf);

/* get_alloc_len_per_decode (§2.8): KV slots one request may take in one
 * decode step with speculative v2; the caller has checked that
 * max_speculative_num_draft_tokens is set. */
int64_t kvplan__spec_v2_alloc_len(const kvplan_rank *r, bool *ovf);

#endif /* KVPLAN_CORE_H */
