/*
 * configurator.c: sglang's four KV-cache pool configurators and their
 * factory, restated in C from the seed (sglang's pool_configurator.py at
 * upstream 6cc9352d; shared/seed/pool_configurator.py.txt).
 *
 * Each configurator turns a budget into pool sizes with sglang's
 * "coeff + bias" model:
 *
 *     available_bytes = max_tokens * coeff + bias
 *
 * and every formula below names the seed class and method it restates.
 * Exactness rules (spec §0.2):
 * - integer steps are Python int steps: floor division, signed, checked
 *   for int64 overflow (the reference has no bound; kvplan refuses rather
 *   than wrap);
 * - float steps are the reference's IEEE-754 operations in its order of
 *   evaluation, with Python's float floor division where it divides by a
 *   float, and int() as truncation.
 *
 * Where the reference fails only by accident (a bare division by zero), the
 * status is KVPLAN_INVALID_CONFIG with a message that says what is wrong.
 */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Small readers of the rank, each failing with the field's JSON pointer     */
/* ------------------------------------------------------------------------ */

/* An optional int that the formula needs: present and >= 0. */
static kvplan_status need_dim(kvplan_opt_int v, const char *field,
                              const char *why, int64_t *out,
                              kvplan_error *err)
{
    if (!v.set)
        return kvplan__fail(err, KVPLAN_INVALID_CONFIG, field,
                            "%s is required %s, but it is absent", field, why);
    if (v.value < 0)
        return kvplan__fail(err, KVPLAN_INVALID_CONFIG, field,
                            "%s must be >= 0, got %lld", field,
                            (long long)v.value);
    *out = v.value;
    return KVPLAN_OK;
}

/* sglang's `x or fallback` for an optional dim: absent or 0 falls back. */
static kvplan_status dim_or(kvplan_opt_int v, int64_t fallback,
                            const char *field, int64_t *out,
                            kvplan_error *err)
{
    if (!v.set || v.value == 0) {
        *out = fallback;
        return KVPLAN_OK;
    }
    if (v.value < 0)
        return kvplan__fail(err, KVPLAN_INVALID_CONFIG, field,
                            "%s must be >= 0, got %lld", field,
                            (long long)v.value);
    *out = v.value;
    return KVPLAN_OK;
}

/* sglang's `x or 1` / `x or 0` for an optional count. */
static int64_t or_default(kvplan_opt_int v, int64_t fallback)
{
    return (v.set && v.value != 0) ? v.value : fallback;
}

static kvplan_status kv_size_of(kvplan_dtype dtype, const char *field,
                                int64_t *out, kvplan_error *err)
{
    int size = kvplan_dtype_size(dtype);
    if (size == 0)
        return kvplan__fail(err, KVPLAN_INVALID_CONFIG, field,
                            "%s must be one of bfloat16, float16, float32, "
                            "float8_e4m3fn, float8_e5m2, float4_e2m1fn_x2; "
                            "got %s",
                            field,
                            dtype == KVPLAN_DTYPE_UNSET ? "nothing"
                                                        : "an unknown value");
    *out = size;
    return KVPLAN_OK;
}

static kvplan_status check_tp(const kvplan_rank *r, kvplan_error *err)
{
    if (r->parallel.attn_tp_size <= 0)
        return kvplan__fail(err, KVPLAN_INVALID_CONFIG,
                            "/parallel/attn_tp_size",
                            "/parallel/attn_tp_size must be >= 1, got %lld",
                            (long long)r->parallel.attn_tp_size);
    return KVPLAN_OK;
}

/* KV heads one rank holds: max(1, total // attn_tp); heads replicate when
 * TP is wider than the model's KV heads (seed: model_config
 * .get_num_kv_heads; spec §1.4). The caller has checked attn_tp >= 1. */
static int64_t kv_heads_per_rank(int64_t total, int64_t attn_tp)
{
    bool unused = false;
    return kvplan__max(1, kvplan__floordiv(total, attn_tp, &unused));
}

static int64_t swa_kv_heads_per_rank(const kvplan_rank *r)
{
    if (!r->model.swa_num_key_value_heads.set)
        return kv_heads_per_rank(r->model.num_key_value_heads,
                                 r->parallel.attn_tp_size);
    return kv_heads_per_rank(r->model.swa_num_key_value_heads.value,
                             r->parallel.attn_tp_size);
}

/* How many entries of `ids` fall in [start, end); duplicates count, as in
 * the seed's list comprehensions. */
int64_t kvplan__count_in_stage(kvplan_ids ids, int64_t start, int64_t end)
{
    int64_t n = 0;
    for (size_t i = 0; i < ids.count; i++) /* branch-free: vectorizes */
        n += (start <= ids.ids[i]) & (ids.ids[i] < end);
    return n;
}

static bool contains(kvplan_ids ids, int64_t x)
{
    for (size_t i = 0; i < ids.count; i++)
        if (ids.ids[i] == x)
            return true;
    return false;
}

/* The stage's sparse layers (duplicates counted) whose id is among the
 * k-only indexer layers, as the seed's
 * sum(1 for l in local_sparse if l in set(disable_value_ids)).
 * A bitmap over the stage keeps it linear; a stage wider than the bitmap
 * falls back to scanning the list. */
int64_t kvplan__count_k_only(const struct kvplan_minimax_sparse *ms,
                             int64_t start, int64_t end)
{
    uint64_t bits[64]; /* stages of up to 4096 layers */
    int64_t n = 0;
    int64_t width;
    bool use_bits = end > start && !__builtin_sub_overflow(end, start, &width) &&
                    width <= 64 * 64;
    if (use_bits) {
        size_t words = (size_t)((width + 63) / 64);
        memset(bits, 0, words * sizeof bits[0]);
        for (size_t i = 0; i < ms->disable_value_layer_ids.count; i++) {
            int64_t l = ms->disable_value_layer_ids.ids[i];
            if (start <= l && l < end)
                bits[(uint64_t)(l - start) / 64] |=
                    1ull << ((uint64_t)(l - start) % 64);
        }
    }
    for (size_t i = 0; i < ms->sparse_layer_ids.count; i++) {
        int64_t l = ms->sparse_layer_ids.ids[i];
        if (start <= l && l < end)
            n += use_bits ? (int64_t)((bits[(uint64_t)(l - start) / 64] >>
                                       ((uint64_t)(l - start) % 64)) &
                                      1)
                          : contains(ms->disable_value_layer_ids, l);
    }
    return n;
}

static bool is_eagle_family(kvplan_spec_algorithm a)
{
    return a == KVPLAN_SPEC_EAGLE || a == KVPLAN_SPEC_EAGLE3;
}

static bool is_dflash_family(kvplan_spec_algorithm a)
{
    return a == KVPLAN_SPEC_DFLASH || a == KVPLAN_SPEC_DSPARK;
}

/* An int64 overflow, refused: `what` is the quantity, `fields` the JSON
 * pointers of the inputs it is made of. */
static kvplan_status overflow_of(kvplan_error *err, const char *what,
                                 const char *fields)
{
    return kvplan__fail(err, KVPLAN_OVERFLOW, fields,
                        "%s exceeds the range of a 64-bit integer; check %s",
                        what, fields);
}

static kvplan_status overflow(kvplan_error *err, const char *what)
{
    return overflow_of(err, what, "the sizes given");
}

static kvplan_status check_page(int64_t page_size, kvplan_error *err)
{
    if (page_size <= 0)
        return kvplan__fail(err, KVPLAN_INVALID_CONFIG, "page_size",
                            "page_size must be >= 1, got %lld",
                            (long long)page_size);
    return KVPLAN_OK;
}

/* MemoryPoolConfig.__post_init__: a pool with no token is refused, in the
 * reference's words, followed by what kvplan knows about the shortfall
 * (formatted only when the caller asked for details). */
static kvplan_status not_enough(kvplan_error *err, const char *fmt, ...)
    KVPLAN_PRINTF(2, 3);

static kvplan_status not_enough(kvplan_error *err, const char *fmt, ...)
{
    if (err == NULL)
        return KVPLAN_NOT_ENOUGH_MEMORY;
    char detail[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    return kvplan__fail(err, KVPLAN_NOT_ENOUGH_MEMORY, NULL,
                        "Not enough memory. Please try to increase "
                        "--mem-fraction-static. %s",
                        detail);
}

/* Writes a whole answer at once. Every entry point computes into locals
 * and calls this only once all its checks have passed, so a failed call
 * leaves the caller's struct as it was (and no memset-then-copy sits on
 * the hot path). */
static void put_config(kvplan_pool_config *out, int64_t max_total,
                       kvplan_opt_int full, kvplan_opt_int swa)
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

static const kvplan_opt_int unset = {0, false};

static kvplan_opt_int some(int64_t v)
{
    return (kvplan_opt_int){v, true};
}

static void set_coefficient_int(kvplan_configurator *c, int64_t cell)
{
    c->cell_size_bytes = cell;
    c->cell_size = kvplan__to_double(cell);
    c->cell_size_is_float = false;
}

/* ------------------------------------------------------------------------ */
/* DefaultPoolConfigurator: MHA/GQA, MLA, DSA, FP4, MiniMax sparse, mamba    */
/* ------------------------------------------------------------------------ */

/* get_glm_dsa_layer_split_effective_num_layers (spec §2.5): with the DSA
 * cache layer split on, a CP rank keeps ceil(L / cp) layers plus one
 * scratch layer. */
int64_t kvplan__dsa_split_layers(const kvplan_rank *r, int64_t num_layers,
                                 bool *ovf)
{
    bool enabled = !r->runner.is_draft_worker &&
                   r->server_args.enable_dsa_cache_layer_split &&
                   r->runner.use_mla_backend &&
                   r->model.hf_config.is_deepseek_dsa;
    int64_t shard = r->parallel.attn_cp_size;
    if (!enabled || shard <= 1)
        return num_layers;
    return kvplan__max(1, kvplan__add(kvplan__ceil_div(num_layers, shard, ovf),
                                      1, ovf));
}

/* Seed: DefaultPoolConfigurator._compute_cell_size, MLA branch. */
static kvplan_status mla_cell_size(const kvplan_rank *r, int64_t layers,
                                   int64_t kv_size, int64_t *cell,
                                   kvplan_error *err)
{
    int64_t lora = 0, rope = 0;
    kvplan_status st;
    if ((st = need_dim(r->model.kv_lora_rank, "/model/kv_lora_rank",
                       "for an MLA model", &lora, err)) != KVPLAN_OK ||
        (st = need_dim(r->model.qk_rope_head_dim, "/model/qk_rope_head_dim",
                       "for an MLA model", &rope, err)) != KVPLAN_OK)
        return st;
    bool ovf = false;
    int64_t latent = kvplan__add(lora, rope, &ovf);
    /* compressed KV + rope key per layer:
     * (kv_lora_rank + qk_rope_head_dim) * layers * elem */
    int64_t c = kvplan__mul(kvplan__mul(latent, layers, &ovf), kv_size, &ovf);
    if (r->runner.kv_cache_dtype == KVPLAN_DTYPE_FLOAT4_E2M1FN_X2) {
        /* packed fp4 halves the bytes, plus one scale per 16 values */
        int64_t scales = kvplan__mul(
            kvplan__mul(kvplan__floordiv(latent, 16, &ovf), layers, &ovf),
            kv_size, &ovf);
        c = kvplan__add(kvplan__floordiv(c, 2, &ovf), scales, &ovf);
    }
    if (r->model.hf_config.is_deepseek_dsa) {
        /* DSA indexer keys with their fp32 scales, uint8 storage:
         * (ihd + ihd // 128 * 4) * layers * 1 (DSATokenToKVPool constants) */
        int64_t ihd = 0;
        if ((st = need_dim(r->model.hf_config.index_head_dim,
                           "/model/hf_config/index_head_dim",
                           "for a DeepSeek DSA model", &ihd, err)) !=
            KVPLAN_OK)
            return st;
        int64_t per_token = kvplan__add(
            ihd, kvplan__mul(kvplan__floordiv(ihd, 128, &ovf), 4, &ovf), &ovf);
        c = kvplan__add(c, kvplan__mul(kvplan__mul(per_token, layers, &ovf), 1,
                                       &ovf),
                        &ovf);
    }
    if (ovf)
        return overflow_of(err, "the MLA cell size",
                           "/model/kv_lora_rank, /model/qk_rope_head_dim");
    *cell = c;
    return KVPLAN_OK;
}

/* Seed: DefaultPoolConfigurator._compute_cell_size, MiniMax sparse branch
 * (mirrors MiniMaxSparseKVPool): K+V of every local layer in the main pool,
 * plus a single-head indexer on the sparse layers, K+V or K only, in the
 * model dtype. No FP4 adjustment. */
static kvplan_status minimax_cell_size(const kvplan_rank *r,
                                       int64_t kv_size, int64_t *cell,
                                       kvplan_error *err)
{
    const struct kvplan_minimax_sparse *ms =
        &r->model.hf_config.minimax_sparse;
    int64_t start = r->runner.start_layer, end = r->runner.end_layer;
    int64_t num_dense = kvplan__count_in_stage(ms->dense_layer_ids, start, end);
    int64_t num_sparse = kvplan__count_in_stage(ms->sparse_layer_ids, start, end);
    int64_t num_k_only = kvplan__count_k_only(ms, start, end);
    int64_t num_kv = num_sparse - num_k_only;

    kvplan_status st;
    int64_t head_dim = 0, index_dim = 0, index_size = 0;
    if ((st = check_tp(r, err)) != KVPLAN_OK ||
        (st = need_dim(r->model.head_dim, "/model/head_dim",
                       "for a MiniMax sparse model", &head_dim, err)) !=
            KVPLAN_OK ||
        (st = need_dim(ms->sparse_index_dim,
                       "/model/hf_config/minimax_sparse/sparse_index_dim",
                       "for a MiniMax sparse model", &index_dim, err)) !=
            KVPLAN_OK ||
        (st = kv_size_of(r->runner.dtype, "/runner/dtype", &index_size,
                         err)) != KVPLAN_OK)
        return st;
    int64_t kv_heads = kv_heads_per_rank(r->model.num_key_value_heads,
                                         r->parallel.attn_tp_size);
    bool ovf = false;
    /* (dense + sparse) * 2 * kv_heads * head_dim * elem */
    int64_t main_pool = kvplan__mul(
        kvplan__mul(kvplan__mul(kvplan__mul(num_dense + num_sparse, 2, &ovf),
                                kv_heads, &ovf),
                    head_dim, &ovf),
        kv_size, &ovf);
    /* (kv_layers * 2 + k_only_layers) * sparse_index_dim * model elem */
    int64_t indexer = kvplan__mul(
        kvplan__mul(kvplan__add(kvplan__mul(num_kv, 2, &ovf), num_k_only,
                                &ovf),
                    index_dim, &ovf),
        index_size, &ovf);
    int64_t c = kvplan__add(main_pool, indexer, &ovf);
    if (ovf)
        return overflow_of(err, "the MiniMax sparse cell size",
                           "/model/head_dim, /model/num_key_value_heads, "
                           "/model/hf_config/minimax_sparse/sparse_index_dim");
    *cell = c;
    return KVPLAN_OK;
}

/* Seed: DefaultPoolConfigurator._compute_cell_size, MHA branch. */
static kvplan_status mha_cell_size(const kvplan_rank *r, int64_t layers,
                                   int64_t kv_size, int64_t *cell,
                                   kvplan_error *err)
{
    kvplan_status st;
    int64_t head_dim = 0, v_head_dim = 0;
    if ((st = check_tp(r, err)) != KVPLAN_OK ||
        (st = need_dim(r->model.head_dim, "/model/head_dim", "", &head_dim,
                       err)) != KVPLAN_OK ||
        (st = dim_or(r->model.v_head_dim, head_dim, "/model/v_head_dim",
                     &v_head_dim, err)) != KVPLAN_OK)
        return st;
    int64_t n = kv_heads_per_rank(r->model.num_key_value_heads,
                                  r->parallel.attn_tp_size);
    bool ovf = false;
    /* K+V per layer: heads * (head_dim + v_head_dim) * layers * elem */
    int64_t c = kvplan__mul(
        kvplan__mul(kvplan__mul(n, kvplan__add(head_dim, v_head_dim, &ovf),
                                &ovf),
                    layers, &ovf),
        kv_size, &ovf);
    if (r->runner.kv_cache_dtype == KVPLAN_DTYPE_FLOAT4_E2M1FN_X2) {
        /* packed fp4 halves the bytes; K and V scales, one per 16 values:
         * (heads * head_dim * layers * 2 * elem) // 16 */
        int64_t scales = kvplan__floordiv(
            kvplan__mul(
                kvplan__mul(kvplan__mul(kvplan__mul(n, head_dim, &ovf),
                                        layers, &ovf),
                            2, &ovf),
                kv_size, &ovf),
            16, &ovf);
        c = kvplan__add(kvplan__floordiv(c, 2, &ovf), scales, &ovf);
    }
    if (ovf)
        return overflow_of(err, "the cell size",
                           "/model/num_key_value_heads, /model/head_dim, "
                           "/model/v_head_dim, /runner/num_effective_layers");
    *cell = c;
    return KVPLAN_OK;
}

static kvplan_status default_init(kvplan_configurator *c,
                                  const kvplan_rank *r, kvplan_error *err)
{
    /* Layers holding KV on this stage: for mamba/linear hybrids, only the
     * attention layers of the stage (seed: DefaultPoolConfigurator
     * .__init__). */
    int64_t num_layers = r->runner.is_mambaish
                             ? kvplan__count_in_stage(
                                   r->runner.mambaish_full_attention_layer_ids,
                                   r->runner.start_layer, r->runner.end_layer)
                             : r->runner.num_effective_layers;
    if (num_layers < 0)
        return kvplan__fail(err, KVPLAN_INVALID_CONFIG,
                            "/runner/num_effective_layers",
                            "/runner/num_effective_layers must be >= 0, got "
                            "%lld",
                            (long long)num_layers);
    int64_t kv_size = 0;
    kvplan_status st = kv_size_of(r->runner.kv_cache_dtype,
                                  "/runner/kv_cache_dtype", &kv_size, err);
    if (st != KVPLAN_OK)
        return st;

    bool ovf = false;
    int64_t layers = kvplan__dsa_split_layers(r, num_layers, &ovf);
    if (ovf)
        return overflow(err, "the DSA layer split");
    int64_t cell = 0;
    if (r->runner.use_mla_backend)
        st = mla_cell_size(r, layers, kv_size, &cell, err);
    else if (r->model.hf_config.is_minimax_sparse)
        st = minimax_cell_size(r, kv_size, &cell, err);
    else
        st = mha_cell_size(r, layers, kv_size, &cell, err);
    if (st != KVPLAN_OK)
        return st;

    kvplan_spec_algorithm spec = r->runner.spec_algorithm;
    if ((is_eagle_family(spec) || spec == KVPLAN_SPEC_STANDALONE) &&
        !r->runner.is_draft_worker) {
        /* The EAGLE/MTP draft shares the target's per-layer geometry:
         * cell * (1 + D / L), in floats, truncated; it can lose one byte
         * (spec §8.1). L is the undivided layer count (spec §2.5). */
        kvplan_opt_int d = r->runner.eagle_draft_num_layers;
        if (d.set && d.value > 0 && num_layers > 0) {
            double scale = 1.0 + kvplan__to_double(d.value) /
                                     kvplan__to_double(num_layers);
            cell = kvplan__trunc(kvplan__to_double(cell) * scale, &ovf);
        }
    }
    if (is_dflash_family(spec) && !r->runner.is_draft_worker) {
        /* scale_kv_cell_size_per_token_for_dflash (spec §2.6): the exact
         * integer ceiling of cell * (L + D) / L. */
        kvplan_opt_int d = r->runner.dflash_draft_num_layers;
        if (d.set && d.value > 0 && num_layers > 0) {
            if (cell <= 0)
                return kvplan__fail(
                    err, KVPLAN_INVALID_CONFIG, NULL,
                    "target_cell_size_per_token must be positive, got %lld: "
                    "this stage holds no KV-cache layer to scale for the "
                    "DFLASH draft",
                    (long long)cell);
            int64_t total = kvplan__add(num_layers, d.value, &ovf);
            cell = kvplan__floordiv(
                kvplan__sub(kvplan__add(kvplan__mul(cell, total, &ovf),
                                        num_layers, &ovf),
                            1, &ovf),
                num_layers, &ovf);
        }
    }
    if (ovf)
        return overflow(err, "the draft-scaled cell size");
    c->kind = KVPLAN_CONFIGURATOR_DEFAULT;
    c->state.num_layers = num_layers;
    c->state.stage_start_layer = r->runner.start_layer;
    c->state.stage_end_layer = r->runner.end_layer;
    set_coefficient_int(c, cell);
    return KVPLAN_OK;
}

static kvplan_status no_kv_layer(const kvplan_configurator *c,
                                 kvplan_error *err)
{
    return kvplan__fail(
        err, KVPLAN_INVALID_CONFIG, NULL,
        "the KV cell size is 0 bytes per token: %s, so no token count "
        "follows from a budget (sglang fails here with a division by zero)",
        c->kind == KVPLAN_CONFIGURATOR_DEFAULT && c->state.num_layers == 0
            ? "this pipeline stage holds no attention layer with a KV cache"
            : "the model's KV heads and head dims give 0 bytes");
}

/* Seed: DefaultPoolConfigurator.calculate_pool_sizes:
 * tokens = available // cell // page * page. For positive cell and page,
 * (a // cell) // page == a // (cell * page): one division instead of two
 * when the product fits. */
static kvplan_status default_from_bytes(const kvplan_configurator *c,
                                        int64_t available, int64_t page,
                                        kvplan_pool_config *out,
                                        kvplan_error *err)
{
    int64_t cell = c->cell_size_bytes;
    if (cell == 0)
        return no_kv_layer(c, err);
    bool ovf = false;
    int64_t tokens, cell_page;
    if (cell > 0 && !__builtin_mul_overflow(cell, page, &cell_page))
        tokens = kvplan__mul(kvplan__floordiv(available, cell_page, &ovf),
                             page, &ovf);
    else
        tokens = kvplan__align_down(kvplan__floordiv(available, cell, &ovf),
                                    page, &ovf);
    if (ovf)
        return overflow(err, "the token count");
    if (tokens <= 0)
        return not_enough(err,
                          "(available_bytes is %lld; one page of %lld tokens "
                          "at %lld bytes per token needs %lld.)",
                          (long long)available, (long long)page,
                          (long long)cell,
                          (long long)kvplan__mul(page, cell, &ovf));
    put_config(out, tokens, unset, unset);
    return KVPLAN_OK;
}

static kvplan_status tokens_below_page(int64_t tokens, int64_t page,
                                       kvplan_error *err)
{
    return not_enough(err,
                      "(max_total_num_tokens %lld is less than one page of "
                      "%lld tokens.)",
                      (long long)tokens, (long long)page);
}

/* Seed: DefaultPoolConfigurator.calculate_pool_sizes_from_max_tokens. */
static kvplan_status default_from_tokens(int64_t tokens, int64_t page,
                                         kvplan_pool_config *out,
                                         kvplan_error *err)
{
    bool ovf = false;
    int64_t aligned = kvplan__align_down(tokens, page, &ovf);
    if (ovf)
        return overflow(err, "the token count");
    if (aligned <= 0)
        return tokens_below_page(tokens, page, err);
    put_config(out, aligned, unset, unset);
    return KVPLAN_OK;
}

/* ------------------------------------------------------------------------ */
/* HybridSWAPoolConfigurator                                                 */
/* ------------------------------------------------------------------------ */

/* Seed: HybridSWAPoolConfigurator.__init__. */
static kvplan_status hybrid_swa_init(kvplan_configurator *c,
                                     const kvplan_rank *r, kvplan_error *err)
{
    int64_t kv_size = 0, head_dim = 0, v_head_dim = 0, swa_head_dim = 0, swa_v_head_dim = 0;
    kvplan_status st;
    if ((st = kv_size_of(r->runner.kv_cache_dtype, "/runner/kv_cache_dtype",
                         &kv_size, err)) != KVPLAN_OK)
        return st;

    int64_t nf = (int64_t)r->model.full_attention_layer_ids.count;
    int64_t ns = (int64_t)r->model.swa_attention_layer_ids.count;
    if (ns <= 0)
        return kvplan__fail(err, KVPLAN_INVALID_CONFIG,
                            "/model/swa_attention_layer_ids",
                            "Hybrid SWA model must have at least one SWA "
                            "layer: /model/swa_attention_layer_ids is empty "
                            "for this rank");

    if ((st = check_tp(r, err)) != KVPLAN_OK ||
        (st = need_dim(r->model.head_dim, "/model/head_dim",
                       "for a hybrid SWA model", &head_dim, err)) !=
            KVPLAN_OK ||
        (st = dim_or(r->model.v_head_dim, head_dim, "/model/v_head_dim",
                     &v_head_dim, err)) != KVPLAN_OK ||
        (st = dim_or(r->model.swa_head_dim, head_dim, "/model/swa_head_dim",
                     &swa_head_dim, err)) != KVPLAN_OK ||
        (st = dim_or(r->model.swa_v_head_dim, swa_head_dim,
                     "/model/swa_v_head_dim", &swa_v_head_dim, err)) !=
            KVPLAN_OK)
        return st;

    bool ovf = false;
    /* full layer bytes per token: heads * (head_dim + v_head_dim) * elem */
    int64_t full_per_token = kvplan__mul(
        kvplan__mul(kv_heads_per_rank(r->model.num_key_value_heads,
                                      r->parallel.attn_tp_size),
                    kvplan__add(head_dim, v_head_dim, &ovf), &ovf),
        kv_size, &ovf);
    /* SWA layer bytes per token, with the SWA layers' own geometry */
    int64_t swa_per_token = kvplan__mul(
        kvplan__mul(swa_kv_heads_per_rank(r),
                    kvplan__add(swa_head_dim, swa_v_head_dim, &ovf), &ovf),
        kv_size, &ovf);

    /* The EAGLE/STANDALONE draft keeps full-attention layers that take
     * max_total tokens each: budget them into the full term. */
    int64_t draft = 0;
    kvplan_spec_algorithm spec = r->runner.spec_algorithm;
    if ((is_eagle_family(spec) || spec == KVPLAN_SPEC_STANDALONE) &&
        !r->runner.is_draft_worker) {
        kvplan_opt_int d = r->runner.eagle_draft_num_layers;
        if (d.set && d.value > 0)
            draft = d.value;
    }

    double ratio = r->server_args.swa_full_tokens_ratio;
    c->kind = KVPLAN_CONFIGURATOR_HYBRID_SWA;
    if (nf == 0) {
        /* All-SWA: max_total is the SWA pool; no ratio applies.
         * cell = S * ns + F * d (an int) */
        int64_t cell = kvplan__add(kvplan__mul(swa_per_token, ns, &ovf),
                                   kvplan__mul(full_per_token, draft, &ovf),
                                   &ovf);
        set_coefficient_int(c, cell);
    } else {
        /* Hybrid: max_total is the full pool and the SWA pool holds
         * ratio * that. cell = F * (nf + d) + ((r * S) * ns), the int
         * product added to the float term (spec §0.4). */
        int64_t full_bytes =
            kvplan__mul(full_per_token, kvplan__add(nf, draft, &ovf), &ovf);
        double swa_term = ratio * kvplan__to_double(swa_per_token) *
                          kvplan__to_double(ns);
        c->cell_size = kvplan__to_double(full_bytes) + swa_term;
        c->cell_size_is_float = true;
        c->cell_size_bytes = 0;
    }
    if (ovf)
        return overflow_of(err, "the hybrid SWA cell size",
                           "/model/num_key_value_heads, /model/head_dim, "
                           "/model/swa_head_dim, the layer id lists");
    c->state.full_layers_num = nf;
    c->state.swa_layers_num = ns;
    c->state.draft_full_layers_num = draft;
    c->state.full_per_token = full_per_token;
    c->state.swa_per_token = swa_per_token;
    c->state.swa_full_tokens_ratio = ratio;
    c->state.stage_start_layer = r->runner.start_layer;
    c->state.stage_end_layer = r->runner.end_layer;
    return KVPLAN_OK;
}

/* Seed: HybridSWAPoolConfigurator._solve_pool_sizes. */
static kvplan_status hybrid_swa_solve(const kvplan_configurator *c,
                                      int64_t tokens, int64_t page,
                                      kvplan_pool_config *out,
                                      kvplan_error *err)
{
    bool ovf = false;
    if (c->state.full_layers_num == 0) {
        /* all-SWA: the SWA pool is max_total; the full pool is empty */
        int64_t swa = kvplan__align_down(tokens, page, &ovf);
        if (ovf)
            return overflow(err, "the token count");
        if (swa <= 0)
            return tokens_below_page(tokens, page, err);
        put_config(out, swa, some(0), some(swa));
        return KVPLAN_OK;
    }
    /* full = aligned tokens; swa = int(full * ratio), aligned after */
    int64_t full = kvplan__align_down(tokens, page, &ovf);
    int64_t swa = kvplan__align_down(
        kvplan__trunc(kvplan__to_double(full) * c->state.swa_full_tokens_ratio,
                      &ovf),
        page, &ovf);
    if (ovf)
        return overflow(err, "the token count");
    if (full <= 0)
        return tokens_below_page(tokens, page, err);
    put_config(out, full, some(full), some(swa));
    return KVPLAN_OK;
}

/* Seed: HybridSWAPoolConfigurator.calculate_pool_sizes:
 * tokens = int(available // cell), Python's float floor division when the
 * cell is fractional (spec §0.2). */
static kvplan_status hybrid_swa_from_bytes(const kvplan_configurator *c,
                                           int64_t available, int64_t page,
                                           kvplan_pool_config *out,
                                           kvplan_error *err)
{
    bool ovf = false;
    int64_t tokens;
    if (c->cell_size == 0.0)
        return no_kv_layer(c, err);
    if (c->cell_size_is_float)
        tokens = kvplan__trunc(
            kvplan__py_float_floordiv(kvplan__to_double(available),
                                      c->cell_size),
            &ovf);
    else
        tokens = kvplan__floordiv(available, c->cell_size_bytes, &ovf);
    if (ovf)
        return overflow(err, "the token count");
    kvplan_status st = hybrid_swa_solve(c, tokens, page, out, err);
    if (st == KVPLAN_NOT_ENOUGH_MEMORY && err != NULL) {
        char cell[32];
        kvplan_format_double(c->cell_size, cell, sizeof cell);
        return not_enough(err,
                          "(available_bytes is %lld; at %s bytes per token "
                          "that holds %lld tokens, less than one page of "
                          "%lld.)",
                          (long long)available, cell, (long long)tokens,
                          (long long)page);
    }
    return st;
}

/* ------------------------------------------------------------------------ */
/* SWAChunkCapPoolConfigurator                                               */
/* ------------------------------------------------------------------------ */

/* SWAChunkCapPoolConfigurator.is_applicable: the SWA chunk cache can be
 * bounded per request when the request count is explicit and there is no
 * radix cache to keep evicted tokens alive. */
static bool swa_chunk_cap_applies(const kvplan_rank *r)
{
    return r->server_args.max_running_requests.set &&
           r->server_args.disable_radix_cache &&
           r->server_args.chunked_prefill_size.set &&
           r->runner.sliding_window_size.set &&
           r->model.full_attention_layer_ids.count > 0;
}

/* spec_decode_alloc_len_per_request (spec §2.9): page-aligned KV slots one
 * request needs for its next decode with speculative v1. */
static int64_t spec_v1_decode_alloc(const kvplan_rank *r, bool *ovf)
{
    int64_t page = r->runner.page_size;
    int64_t len_per_topk = or_default(r->server_args.speculative_num_steps, 1);
    int64_t topk = or_default(r->server_args.speculative_eagle_topk, 1);
    int64_t tokens = or_default(r->server_args.speculative_num_draft_tokens, 1);
    if (page > 1 && topk > 1) {
        len_per_topk = kvplan__ceil_align(kvplan__add(len_per_topk, page, ovf),
                                          page, ovf);
        tokens = kvplan__ceil_align(tokens, page, ovf);
    } else if (page > 1) {
        len_per_topk = kvplan__ceil_align(len_per_topk, page, ovf);
        tokens = kvplan__ceil_align(tokens, page, ovf);
    }
    return kvplan__max(kvplan__mul(len_per_topk, topk, ovf), tokens);
}

/* get_alloc_len_per_decode (spec §2.8): KV slots one request may take in one
 * decode step with speculative v2. */
static kvplan_status spec_v2_decode_alloc(const kvplan_rank *r, int64_t *out,
                                          bool *ovf, kvplan_error *err)
{
    if (!r->server_args.max_speculative_num_draft_tokens.set)
        return kvplan__fail(
            err, KVPLAN_INVALID_CONFIG,
            "/server_args/max_speculative_num_draft_tokens",
            "/server_args/max_speculative_num_draft_tokens is required to "
            "size the SWA chunk cap with speculative decoding and the "
            "overlap schedule, but it is absent");
    int64_t steps = or_default(r->server_args.speculative_num_steps, 1);
    int64_t topk = or_default(r->server_args.speculative_eagle_topk, 1);
    int64_t tokens = r->server_args.max_speculative_num_draft_tokens.value;
    int64_t page = r->runner.page_size;
    bool has_draft_kv = r->runner.spec_algorithm != KVPLAN_SPEC_NGRAM;
    if (page == 1 || topk == 1 || !has_draft_kv) {
        *out = kvplan__max(kvplan__mul(steps, topk, ovf), tokens);
        return KVPLAN_OK;
    }
    int64_t pages = kvplan__floordiv(
        kvplan__add(kvplan__add(page - 1, steps, ovf), page - 1, ovf), page,
        ovf);
    *out = kvplan__max(kvplan__mul(kvplan__mul(pages, page, ovf), topk, ovf),
                       tokens);
    return KVPLAN_OK;
}

/* Seed: SWAChunkCapPoolConfigurator.__init__: the SWA pool's worst case,
 *
 *   per request: [padding][eviction_interval * draft_tokens][window]
 *                + one decode allocation
 *   cap = per_request * requests + prefill chunks in flight + one page
 *       (PD decode: + (window + page) per extra slot instead)
 */
static kvplan_status swa_chunk_cap_init(kvplan_configurator *c,
                                        const kvplan_rank *r,
                                        kvplan_error *err)
{
    kvplan_status st = hybrid_swa_init(c, r, err);
    if (st != KVPLAN_OK)
        return st;
    c->kind = KVPLAN_CONFIGURATOR_SWA_CHUNK_CAP;
    if (r->runner.page_size <= 0)
        return kvplan__fail(err, KVPLAN_INVALID_CONFIG, "/runner/page_size",
                            "/runner/page_size must be >= 1, got %lld",
                            (long long)r->runner.page_size);

    int64_t page = r->runner.page_size;
    int64_t window = r->runner.sliding_window_size.value;
    int64_t draft_tokens =
        or_default(r->server_args.speculative_num_draft_tokens, 1);
    int64_t eviction = kvplan__max(1, r->env.SGLANG_SWA_EVICTION_INTERVAL);
    bool ovf = false;

    int64_t trailing = kvplan__add(
        kvplan__add(window, kvplan__mul(eviction, draft_tokens, &ovf), &ovf),
        page, &ovf);
    int64_t decode_alloc;
    if (r->runner.spec_algorithm == KVPLAN_SPEC_NONE) {
        decode_alloc = page;
    } else if (r->server_args.disable_overlap_schedule) {
        decode_alloc = spec_v1_decode_alloc(r, &ovf);
    } else {
        /* the overlap allocator keeps 2 * alloc_len outstanding */
        int64_t alloc_len = 0;
        if ((st = spec_v2_decode_alloc(r, &alloc_len, &ovf, err)) !=
            KVPLAN_OK)
            return st;
        decode_alloc = kvplan__mul(2, alloc_len, &ovf);
    }
    int64_t per_request = kvplan__add(trailing, decode_alloc, &ovf);

    if (r->runner.dp_size == 0)
        return kvplan__fail(err, KVPLAN_INVALID_CONFIG, "/runner/dp_size",
                            "/runner/dp_size must be >= 1 to share "
                            "max_running_requests among DP ranks, got 0");
    int64_t num_reqs = kvplan__floordiv(
        r->server_args.max_running_requests.value, r->runner.dp_size, &ovf);
    int64_t cap;
    if (r->server_args.disaggregation_mode == KVPLAN_DISAGG_DECODE) {
        cap = kvplan__add(
            kvplan__mul(per_request, num_reqs, &ovf),
            kvplan__mul(kvplan__add(window, page, &ovf),
                        r->server_args.disaggregation_decode_extra_slots,
                        &ovf),
            &ovf);
    } else {
        int64_t chunks_in_flight =
            r->server_args.disable_overlap_schedule ? 1 : 2;
        cap = kvplan__add(
            kvplan__add(kvplan__mul(per_request, num_reqs, &ovf),
                        kvplan__mul(chunks_in_flight,
                                    r->server_args.chunked_prefill_size.value,
                                    &ovf),
                        &ovf),
            page, &ovf);
    }
    if (ovf)
        return overflow(err, "the SWA chunk cap");
    c->swa_cap = cap;
    return KVPLAN_OK;
}

/* Seed: SWAChunkCapPoolConfigurator.calculate_pool_sizes: the SWA pool is
 * sized tightly from the cap, the rest of the budget goes to full. */
static kvplan_status swa_chunk_cap_from_bytes(const kvplan_configurator *c,
                                              int64_t available, int64_t page,
                                              kvplan_pool_config *out,
                                              kvplan_error *err)
{
    bool ovf = false;
    int64_t swa = kvplan__ceil_align(c->swa_cap, page, &ovf);
    /* fixed SWA bytes = swa_tokens * S * ns */
    int64_t fixed = kvplan__mul(kvplan__mul(swa, c->state.swa_per_token, &ovf),
                                c->state.swa_layers_num, &ovf);
    /* full cell = F * (nf + d) */
    int64_t full_cell = kvplan__mul(
        c->state.full_per_token,
        kvplan__add(c->state.full_layers_num, c->state.draft_full_layers_num,
                    &ovf),
        &ovf);
    if (ovf)
        return overflow(err, "the SWA pool size");
    if (full_cell == 0)
        return no_kv_layer(c, err);
    int64_t full = kvplan__align_down(
        kvplan__floordiv(kvplan__sub(available, fixed, &ovf), full_cell, &ovf),
        page, &ovf);
    if (ovf)
        return overflow(err, "the full pool size");
    if (full <= 0) {
        double gib = (double)(1 << 30);
        return kvplan__fail(
            err, KVPLAN_NOT_ENOUGH_MEMORY, NULL,
            "SWA pool cap (%lld tokens, %.2f GiB) leaves no room for the full "
            "KV pool within the available %.2f GiB. Reduce "
            "--max-running-requests, lower SGLANG_SWA_EVICTION_INTERVAL, or "
            "increase --mem-fraction-static. (One page of the full pool "
            "needs %lld bytes beyond the SWA pool's %lld.)",
            (long long)swa, kvplan__to_double(fixed) / gib,
            kvplan__to_double(available) / gib,
            (long long)(full_cell * page), (long long)fixed);
    }
    put_config(out, full, some(full), some(swa));
    return KVPLAN_OK;
}

/* Seed: SWAChunkCapPoolConfigurator.calculate_pool_sizes_from_max_tokens:
 * the constrained count goes to the full pool; the SWA pool stays at its
 * cap, but no larger than the unaligned count (spec §8.13). */
static kvplan_status swa_chunk_cap_from_tokens(const kvplan_configurator *c,
                                               int64_t tokens, int64_t page,
                                               kvplan_pool_config *out,
                                               kvplan_error *err)
{
    bool ovf = false;
    int64_t swa = kvplan__ceil_align(c->swa_cap, page, &ovf);
    int64_t full = kvplan__align_down(tokens, page, &ovf);
    if (ovf)
        return overflow(err, "the token count");
    if (full <= 0)
        return tokens_below_page(tokens, page, err);
    put_config(out, full, some(full), some(kvplan__min(swa, tokens)));
    return KVPLAN_OK;
}

/* ------------------------------------------------------------------------ */
/* DSV4PoolConfigurator: DeepSeek V4 compressed attention                    */
/* ------------------------------------------------------------------------ */

/* _get_dsv4_compress_state_dtype_sizes: element sizes of the c4 and c128
 * compress states from SGLANG_DSV4_COMPRESS_STATE_DTYPE. */
static kvplan_status dsv4_state_dtype_sizes(const kvplan_rank *r,
                                            int64_t *c4, int64_t *c128,
                                            kvplan_error *err)
{
    const char *raw = r->env.SGLANG_DSV4_COMPRESS_STATE_DTYPE;
    if (raw == NULL)
        raw = "float32";
    const char *b = raw, *e = raw + strlen(raw);
    while (b < e && kvplan__py_space(*b))
        b++;
    while (e > b && kvplan__py_space(e[-1]))
        e--;
    char name[32];
    size_t n = (size_t)(e - b);
    bool fits = n < sizeof name;
    if (fits) {
        for (size_t i = 0; i < n; i++) {
            char ch = b[i];
            name[i] = (ch >= 'A' && ch <= 'Z') ? (char)(ch - 'A' + 'a') : ch;
        }
        name[n] = '\0';
    }
    if (fits && (strcmp(name, "float32") == 0 || strcmp(name, "fp32") == 0)) {
        *c4 = *c128 = 4;
        return KVPLAN_OK;
    }
    if (fits &&
        (strcmp(name, "bfloat16") == 0 || strcmp(name, "bf16") == 0)) {
        if (r->env.SGLANG_OPT_USE_ONLINE_COMPRESS)
            return kvplan__fail(
                err, KVPLAN_INVALID_CONFIG,
                "/env/SGLANG_DSV4_COMPRESS_STATE_DTYPE",
                "SGLANG_DSV4_COMPRESS_STATE_DTYPE=%s is not supported when "
                "SGLANG_OPT_USE_ONLINE_COMPRESS=1; online c128 state must "
                "stay float32.",
                name);
        *c4 = *c128 = 2;
        return KVPLAN_OK;
    }
    return kvplan__fail(err, KVPLAN_INVALID_CONFIG,
                        "/env/SGLANG_DSV4_COMPRESS_STATE_DTYPE",
                        "Unsupported SGLANG_DSV4_COMPRESS_STATE_DTYPE='%.*s'. "
                        "Expected one of: float32, fp32, bfloat16, bf16.",
                        (int)(n < 64 ? n : 64), b);
}

/* Seed: DSV4PoolConfigurator._get_bytes_per_full_token. A float sum of
 * seven terms, each a left-to-right product, summed left to right
 * (spec §2.15). */
static double dsv4_bytes_per_full_token(const kvplan_configurator *c,
                                        int64_t nope, int64_t rope,
                                        int64_t index_head_dim,
                                        int64_t c4_state_size, double ratio)
{
    bool ovf = false; /* inputs were range-checked by the caller */
    int64_t kv_bytes = nope + rope * 2 + 8;
    int64_t indexer_bytes =
        index_head_dim + kvplan__floordiv(index_head_dim, 128, &ovf) * 4;
    int64_t attn_head_dim = nope + rope;
    int64_t c4_state_bytes = 2 * 2 * attn_head_dim * c4_state_size;
    int64_t c4_indexer_state_bytes = 2 * 2 * index_head_dim * c4_state_size;
    /* c128 state is request-scoped (finalize sizes it): ratio 0 here */
    double c4_state_ratio = kvplan__to_double(c->state.c4_ring_size) /
                            kvplan__to_double(c->state.swa_page_size);
    double c4_frac = c->state.c4_shrink_is_int
                         ? 1.0 / kvplan__to_double(
                                     4 * (int64_t)c->state.c4_shrink_factor)
                         : 1.0 / (4.0 * c->state.c4_shrink_factor);
    double kv = kvplan__to_double(kv_bytes);
    double lt = kvplan__to_double(c->state.num_layers_total);
    double l4 = kvplan__to_double(c->state.num_layers_ca4);
    double l128 = kvplan__to_double(c->state.num_layers_ca128);

    double t1 = ratio * kv * lt;                        /* SWA KV */
    double t2 = c4_frac * kv * l4;                      /* c4 KV */
    double t3 = 1.0 / 128.0 * kv * l128;                /* c128 KV */
    double t4 = 1.0 / 4.0 * kvplan__to_double(indexer_bytes) * l4; /* idx */
    double t5 = ratio * c4_state_ratio *
                kvplan__to_double(c4_state_bytes) * l4; /* c4 state */
    double t6 = 0.0;                                    /* c128 state */
    double t7 = ratio * c4_state_ratio *
                kvplan__to_double(c4_indexer_state_bytes) * l4;
    return t1 + t2 + t3 + t4 + t5 + t6 + t7;
}

/* Python's list[start:end] bounds for a list of n entries. */
static void py_slice(int64_t n, int64_t start, int64_t end, int64_t *b,
                     int64_t *e)
{
    *b = start < 0 ? kvplan__max(0, start + n) : kvplan__min(start, n);
    *e = end < 0 ? kvplan__max(0, end + n) : kvplan__min(end, n);
    if (*e < *b)
        *e = *b;
}

/* _get_num_req_slots: request slots, plus the PD decode extra slots, plus
 * the padding slot. */
static int64_t dsv4_req_slots(const kvplan_configurator *c, int64_t requests,
                              bool *ovf)
{
    int64_t slots = requests;
    if (c->state.decode_mode)
        slots = kvplan__add(slots, c->state.decode_extra_slots, ovf);
    return kvplan__add(slots, 1, ovf);
}

/* _get_c128_state_fixed_bytes: the c128 compress state, request-scoped:
 *   online:  rows = (slots + ring + 1) * (1 + mtp_draft), 3 * attn per row
 *   else:    rows = ceil_align(slots * ring + ring + 1, 128), 2 * attn
 *   bytes  = rows * per_row * state_elem * c128_layers */
static int64_t dsv4_c128_state_fixed_bytes(const kvplan_configurator *c,
                                           int64_t requests, bool *ovf)
{
    if (c->state.num_layers_ca128 == 0)
        return 0;
    int64_t slots = dsv4_req_slots(c, requests, ovf);
    int64_t ring = c->state.c128_ring_size;
    int64_t rows, last_dim;
    if (c->state.online_c128) {
        rows = kvplan__mul(
            kvplan__add(kvplan__add(slots, ring, ovf), 1, ovf),
            kvplan__add(1, c->state.online_c128_mtp_max_draft_tokens, ovf),
            ovf);
        last_dim = 3 * c->state.attn_head_dim;
    } else {
        rows = kvplan__add(kvplan__add(kvplan__mul(slots, ring, ovf), ring, ovf),
                           1, ovf);
        rows = kvplan__ceil_align(rows, 128, ovf);
        last_dim = 2 * c->state.attn_head_dim;
    }
    return kvplan__mul(
        kvplan__mul(kvplan__mul(rows, last_dim, ovf),
                    c->state.c128_state_dtype_size, ovf),
        c->state.num_layers_ca128, ovf);
}

/* Seed: DSV4PoolConfigurator.__init__. */
static kvplan_status dsv4_init(kvplan_configurator *c, const kvplan_rank *r,
                               kvplan_error *err)
{
    kvplan_status st;
    int64_t nope = 0, rope = 0, ihd = 0, window = 0;
    if ((st = need_dim(r->model.qk_nope_head_dim, "/model/qk_nope_head_dim",
                       "for DeepSeek V4", &nope, err)) != KVPLAN_OK ||
        (st = need_dim(r->model.qk_rope_head_dim, "/model/qk_rope_head_dim",
                       "for DeepSeek V4", &rope, err)) != KVPLAN_OK ||
        (st = need_dim(r->model.index_head_dim, "/model/index_head_dim",
                       "for DeepSeek V4", &ihd, err)) != KVPLAN_OK ||
        (st = need_dim(r->model.window_size, "/model/window_size",
                       "for DeepSeek V4", &window, err)) != KVPLAN_OK)
        return st;
    /* the byte formulas below stay far inside int64 with dims this small */
    if (nope > INT32_MAX || rope > INT32_MAX || ihd > INT32_MAX)
        return overflow(err, "a DeepSeek V4 head dim");
    c->kind = KVPLAN_CONFIGURATOR_DSV4;

    /* PP-local slice of the per-layer compress ratios */
    int64_t b, e;
    py_slice((int64_t)r->model.compress_ratios.count, r->runner.start_layer,
             r->runner.end_layer, &b, &e);
    int64_t l4 = 0, l128 = 0;
    for (int64_t i = b; i < e; i++) {
        int64_t ratio = r->model.compress_ratios.ids[i];
        l4 += ratio == 4;
        l128 += ratio == 128;
    }
    c->state.num_layers_total = e - b;
    c->state.num_layers_ca4 = l4;
    c->state.num_layers_ca128 = l128;
    c->state.swa_page_size = window;
    c->state.swa_full_tokens_ratio = r->server_args.swa_full_tokens_ratio;
    c->state.context_len =
        r->model.context_len.set ? r->model.context_len.value : 0;
    bool speculative = r->runner.spec_algorithm != KVPLAN_SPEC_NONE;
    c->state.online_c128_mtp_max_draft_tokens =
        or_default(r->server_args.max_speculative_num_draft_tokens, 0);

    bool ovf = false;
    c->state.requested_max_running_requests_per_worker.set = false;
    if (r->server_args.max_running_requests.set) {
        if (r->runner.dp_size == 0)
            return kvplan__fail(err, KVPLAN_INVALID_CONFIG, "/runner/dp_size",
                                "/runner/dp_size must be >= 1 to share "
                                "max_running_requests among DP ranks, got 0");
        c->state.requested_max_running_requests_per_worker =
            (kvplan_opt_int){
                kvplan__floordiv(r->server_args.max_running_requests.value,
                                 r->runner.dp_size, &ovf),
                true};
    }
    c->state.decode_mode =
        r->server_args.disaggregation_mode == KVPLAN_DISAGG_DECODE;
    c->state.decode_extra_slots =
        r->server_args.disaggregation_decode_extra_slots;

    /* HiSparse keeps 1/ratio of the c4 pool on the device. */
    double shrink = r->runner.enable_hisparse
                        ? r->runner.hisparse_host_to_device_ratio
                        : 1.0;
    if (!(shrink >= 1.0))
        return kvplan__fail(err, KVPLAN_INVALID_CONFIG,
                            "/runner/hisparse_host_to_device_ratio",
                            "the HiSparse host_to_device_ratio must be >= 1, "
                            "got %g",
                            shrink);
    c->state.c4_shrink_factor = shrink;
    c->state.c4_shrink_is_int = shrink == floor(shrink) && shrink < 0x1p60;

    /* get_compress_state_ring_size (spec §2.7) */
    bool online = r->env.SGLANG_OPT_USE_ONLINE_COMPRESS;
    c->state.online_c128 = online;
    c->state.c4_ring_size = speculative ? 16 : 8;
    if (online) {
        if (speculative && !r->env.SGLANG_EXPERIMENTAL_ONLINE_C128_MTP)
            return kvplan__fail(
                err, KVPLAN_INVALID_CONFIG,
                "/env/SGLANG_OPT_USE_ONLINE_COMPRESS",
                "online c128 does not support MTP: speculative decoding "
                "with SGLANG_OPT_USE_ONLINE_COMPRESS=1 needs "
                "SGLANG_EXPERIMENTAL_ONLINE_C128_MTP=1");
        c->state.c128_ring_size = 1;
    } else {
        c->state.c128_ring_size = speculative ? 256 : 128;
    }

    int64_t c4_size = 0, c128_size = 0;
    if ((st = dsv4_state_dtype_sizes(r, &c4_size, &c128_size, err)) !=
        KVPLAN_OK)
        return st;
    c->state.attn_head_dim = nope + rope;
    c->state.c128_state_dtype_size = c128_size;
    if (window == 0)
        return kvplan__fail(err, KVPLAN_INVALID_CONFIG, "/model/window_size",
                            "/model/window_size must be >= 1 for DeepSeek V4 "
                            "(the c4 state ring is priced per window), got 0");

    double bpft = dsv4_bytes_per_full_token(c, nope, rope, ihd, c4_size,
                                            c->state.swa_full_tokens_ratio);
    if (speculative) {
        /* reserve the MTP draft worker: bpft * (T + 1) / T, one draft layer */
        if (c->state.num_layers_total == 0)
            return kvplan__fail(
                err, KVPLAN_INVALID_CONFIG, "/model/compress_ratios",
                "this pipeline stage (layers [%lld, %lld)) has no entry in "
                "/model/compress_ratios, so the draft worker's share cannot "
                "be priced; sglang fails here with a division by zero",
                (long long)r->runner.start_layer,
                (long long)r->runner.end_layer);
        bpft *= kvplan__to_double(c->state.num_layers_total + 1) /
                kvplan__to_double(c->state.num_layers_total);
    }
    c->bytes_per_full_token = bpft;
    c->cell_size = 0.0;

    if (online) {
        bool experimental_mtp = r->env.SGLANG_EXPERIMENTAL_ONLINE_C128_MTP &&
                                is_eagle_family(r->runner.spec_algorithm);
        if (speculative && !experimental_mtp)
            return kvplan__fail(
                err, KVPLAN_INVALID_CONFIG,
                "/env/SGLANG_OPT_USE_ONLINE_COMPRESS",
                "SGLANG_OPT_USE_ONLINE_COMPRESS does not support speculative "
                "decode (MTP) yet, except the experimental EAGLE topk=1 path "
                "gated by SGLANG_EXPERIMENTAL_ONLINE_C128_MTP=1");
        if (experimental_mtp && c->state.online_c128_mtp_max_draft_tokens <= 0)
            return kvplan__fail(
                err, KVPLAN_INVALID_CONFIG,
                "/server_args/max_speculative_num_draft_tokens",
                "SGLANG_EXPERIMENTAL_ONLINE_C128_MTP requires "
                "speculative_num_draft_tokens to be set.");
    }
    if (ovf)
        return overflow(err, "the requests per DP rank");
    /* With the requests given, the c128 state is the same for every
     * budget: price it once here, not on every call. */
    if (c->state.requested_max_running_requests_per_worker.set) {
        c->state.requested_c128_state_fixed_bytes = dsv4_c128_state_fixed_bytes(
            c, c->state.requested_max_running_requests_per_worker.value, &ovf);
        c->state.requested_c128_state_overflows = ovf;
    }
    return KVPLAN_OK;
}

/* _compute_dsv4_sizes: every pool follows from the full-token count. */
typedef struct dsv4_pools {
    int64_t full, swa, c4, c128, c4_state;
} dsv4_pools;

static dsv4_pools dsv4_sizes(const kvplan_configurator *c,
                             int64_t full_token, int64_t page, bool *ovf)
{
    dsv4_pools p;
    p.full = kvplan__align_down(full_token, page, ovf);
    p.swa = kvplan__align_down(
        kvplan__trunc(kvplan__to_double(p.full) *
                          c->state.swa_full_tokens_ratio,
                      ovf),
        page, ovf);
    if (c->state.c4_shrink_is_int)
        p.c4 = kvplan__floordiv(p.full, 4 * (int64_t)c->state.c4_shrink_factor,
                                ovf);
    else
        p.c4 = kvplan__trunc(
            kvplan__py_float_floordiv(kvplan__to_double(p.full),
                                      4.0 * c->state.c4_shrink_factor),
            ovf);
    p.c128 = kvplan__floordiv(p.full, 128, ovf);
    p.c4_state = kvplan__mul(kvplan__floordiv(p.swa, c->state.swa_page_size,
                                              ovf),
                             c->state.c4_ring_size, ovf);
    return p;
}

static void put_dsv4(kvplan_pool_config *out, const dsv4_pools *p)
{
    put_config(out, p->full, some(p->full), some(p->swa));
    out->c4_max_total_num_tokens = p->c4;
    out->c128_max_total_num_tokens = p->c128;
    out->c4_state_pool_size = p->c4_state;
}

static kvplan_status dsv4_check_page(int64_t page, kvplan_error *err)
{
    if (page % 128 != 0)
        return kvplan__fail(err, KVPLAN_INVALID_CONFIG, "page_size",
                            "page_size must be multiple of 128 for "
                            "compressed attention, got %lld",
                            (long long)page);
    return KVPLAN_OK;
}

/* Seed: DSV4PoolConfigurator.calculate_pool_sizes. The c128 state is a
 * fixed cost: from the requested running requests when given, otherwise
 * from sglang's default estimate at this capacity (spec §2.15). */
static kvplan_status dsv4_from_bytes(const kvplan_configurator *c,
                                     int64_t available, int64_t page,
                                     kvplan_pool_config *out,
                                     kvplan_error *err)
{
    kvplan_status st = dsv4_check_page(page, err);
    if (st != KVPLAN_OK)
        return st;
    double bpft = c->bytes_per_full_token;
    if (bpft == 0.0)
        return kvplan__fail(err, KVPLAN_INVALID_CONFIG, NULL,
                            "bytes_per_full_token is 0: this pipeline stage "
                            "(layers [%lld, %lld)) holds no compressed-"
                            "attention layer, so no token count follows from "
                            "a budget",
                            (long long)c->state.stage_start_layer,
                            (long long)c->state.stage_end_layer);
    bool ovf = false;
    int64_t fixed;
    kvplan_opt_int requested =
        c->state.requested_max_running_requests_per_worker;
    if (requested.set) {
        fixed = c->state.requested_c128_state_fixed_bytes;
        ovf = c->state.requested_c128_state_overflows;
    } else {
        if (c->state.context_len == 0)
            return kvplan__fail(err, KVPLAN_INVALID_CONFIG,
                                "/model/context_len",
                                "/model/context_len must be >= 1 to estimate "
                                "max_running_requests for DeepSeek V4 when "
                                "/server_args/max_running_requests is "
                                "absent");
        /* _get_c128_state_fixed_bytes_for_token_capacity:
         * requests = min(clamp(int(cap / context_len * 512), 2048, 4096),
         *                cap // 2) */
        int64_t capacity =
            kvplan__trunc(kvplan__to_double(available) / bpft, &ovf);
        int64_t estimated = kvplan__trunc(
            kvplan__to_double(capacity) /
                kvplan__to_double(c->state.context_len) * 512.0,
            &ovf);
        estimated = kvplan__max(kvplan__min(estimated, 4096), 2048);
        int64_t requests =
            kvplan__min(estimated, kvplan__floordiv(capacity, 2, &ovf));
        fixed = dsv4_c128_state_fixed_bytes(c, requests, &ovf);
    }
    int64_t for_tokens = kvplan__max(kvplan__sub(available, fixed, &ovf), 0);
    int64_t full_token =
        kvplan__trunc(kvplan__to_double(for_tokens) / bpft, &ovf);
    dsv4_pools sizes = dsv4_sizes(c, full_token, page, &ovf);
    if (ovf)
        return overflow(err, "a DeepSeek V4 pool size");
    if (sizes.full <= 0) {
        char bpft_text[32] = "";
        if (err != NULL)
            kvplan_format_double(bpft, bpft_text, sizeof bpft_text);
        return not_enough(err,
                          "(available_bytes is %lld, of which the c128 state "
                          "takes %lld; at %s bytes per full token the rest "
                          "holds %lld tokens, less than one page of %lld.)",
                          (long long)available, (long long)fixed, bpft_text,
                          (long long)full_token, (long long)page);
    }
    put_dsv4(out, &sizes);
    return KVPLAN_OK;
}

/* Seed: DSV4PoolConfigurator.calculate_pool_sizes_from_max_tokens. */
static kvplan_status dsv4_from_tokens(const kvplan_configurator *c,
                                      int64_t tokens, int64_t page,
                                      kvplan_pool_config *out,
                                      kvplan_error *err)
{
    kvplan_status st = dsv4_check_page(page, err);
    if (st != KVPLAN_OK)
        return st;
    bool ovf = false;
    dsv4_pools sizes = dsv4_sizes(c, tokens, page, &ovf);
    if (ovf)
        return overflow(err, "a DeepSeek V4 pool size");
    if (sizes.full <= 0)
        return tokens_below_page(tokens, page, err);
    put_dsv4(out, &sizes);
    return KVPLAN_OK;
}

/* ------------------------------------------------------------------------ */
/* Public entry points                                                       */
/* ------------------------------------------------------------------------ */

void kvplan_rank_init(kvplan_rank *rank)
{
    if (rank == NULL)
        return;
    memset(rank, 0, sizeof *rank);
    rank->runner.dtype = KVPLAN_DTYPE_BFLOAT16;
    rank->runner.pp_size = 1;
    rank->runner.dp_size = 1;
    rank->runner.hisparse_host_to_device_ratio = 2.0;
    rank->parallel.attn_tp_size = 1;
    rank->parallel.attn_cp_size = 1;
    rank->server_args.swa_full_tokens_ratio = 0.8;
    rank->env.SGLANG_SWA_EVICTION_INTERVAL = 128;
}

/* Lists the caller handed over must point somewhere when they are not
 * empty, and be short enough to count in an int64. */
static bool ids_bad(kvplan_ids ids)
{
    return (ids.count > 0 && ids.ids == NULL) ||
           ids.count > (size_t)INT64_MAX / 2;
}

static kvplan_status check_rank_lists(const kvplan_rank *r, kvplan_error *err)
{
    const struct kvplan_minimax_sparse *ms =
        &r->model.hf_config.minimax_sparse;
    /* the common case, all fine, in one expression */
    if (!(ids_bad(r->runner.mambaish_full_attention_layer_ids) |
          ids_bad(r->model.full_attention_layer_ids) |
          ids_bad(r->model.swa_attention_layer_ids) |
          ids_bad(r->model.compress_ratios) | ids_bad(ms->dense_layer_ids) |
          ids_bad(ms->sparse_layer_ids) |
          ids_bad(ms->disable_value_layer_ids)))
        return KVPLAN_OK;
    const struct {
        kvplan_ids ids;
        const char *field;
    } lists[] = {
        {r->runner.mambaish_full_attention_layer_ids,
         "/runner/mambaish_full_attention_layer_ids"},
        {r->model.full_attention_layer_ids, "/model/full_attention_layer_ids"},
        {r->model.swa_attention_layer_ids, "/model/swa_attention_layer_ids"},
        {r->model.compress_ratios, "/model/compress_ratios"},
        {ms->dense_layer_ids, "/model/hf_config/minimax_sparse/dense_layer_ids"},
        {ms->sparse_layer_ids,
         "/model/hf_config/minimax_sparse/sparse_layer_ids"},
        {ms->disable_value_layer_ids,
         "/model/hf_config/minimax_sparse/disable_value_layer_ids"},
    };
    size_t i = 0;
    while (!ids_bad(lists[i].ids))
        i++;
    return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, lists[i].field,
                        "%s has %zu entries but %s", lists[i].field,
                        lists[i].ids.count,
                        lists[i].ids.ids == NULL ? "a NULL pointer"
                                                 : "is too long");
}

/* Seed: create_memory_pool_configurator. */
kvplan_status kvplan_configurator_init(kvplan_configurator *out,
                                       const kvplan_rank *rank,
                                       kvplan_error *err)
{
    if (out == NULL || rank == NULL)
        return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, NULL,
                            "kvplan_configurator_init needs a configurator "
                            "to fill and a rank to read; got NULL");
    kvplan_status st = check_rank_lists(rank, err);
    if (st != KVPLAN_OK)
        return st;
    /* Built in place: copying a finished configurator would cost more than
     * building it. A failure leaves `out` unusable (kind 0), so a call on it
     * is refused rather than answered from half a configurator. */
    static const kvplan_configurator empty; /* copied with vector moves; a
                                             * memset here became a slow
                                             * `rep stos` */
    *out = empty;
    out->state.stage_start_layer = rank->runner.start_layer;
    out->state.stage_end_layer = rank->runner.end_layer;
    if (rank->model.hf_config.is_deepseek_v4 && rank->runner.is_hybrid_swa)
        st = dsv4_init(out, rank, err);
    else if (rank->runner.is_hybrid_swa && swa_chunk_cap_applies(rank))
        st = swa_chunk_cap_init(out, rank, err);
    else if (rank->runner.is_hybrid_swa)
        st = hybrid_swa_init(out, rank, err);
    else
        st = default_init(out, rank, err);
    if (st != KVPLAN_OK) {
        out->kind = (kvplan_configurator_kind)0;
        return st;
    }
    return kvplan__ok(err);
}

static kvplan_status check_call(const kvplan_configurator *conf,
                                const void *out, int64_t page_size,
                                kvplan_error *err)
{
    if (conf == NULL || out == NULL)
        return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, NULL,
                            "a configurator and a result to fill are "
                            "required; got NULL");
    if (conf->kind < KVPLAN_CONFIGURATOR_DEFAULT ||
        conf->kind > KVPLAN_CONFIGURATOR_DSV4)
        return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, NULL,
                            "the configurator was not built by "
                            "kvplan_configurator_init");
    return check_page(page_size, err);
}

kvplan_status kvplan_calculate_pool_sizes(const kvplan_configurator *conf,
                                          int64_t available_bytes,
                                          int64_t page_size,
                                          kvplan_pool_config *out,
                                          kvplan_error *err)
{
    kvplan_status st = check_call(conf, out, page_size, err);
    if (st != KVPLAN_OK)
        return st;
    switch (conf->kind) {
    case KVPLAN_CONFIGURATOR_DEFAULT:
        st = default_from_bytes(conf, available_bytes, page_size, out, err);
        break;
    case KVPLAN_CONFIGURATOR_HYBRID_SWA:
        st = hybrid_swa_from_bytes(conf, available_bytes, page_size, out,
                                   err);
        break;
    case KVPLAN_CONFIGURATOR_SWA_CHUNK_CAP:
        st = swa_chunk_cap_from_bytes(conf, available_bytes, page_size, out,
                                      err);
        break;
    case KVPLAN_CONFIGURATOR_DSV4:
        st = dsv4_from_bytes(conf, available_bytes, page_size, out, err);
        break;
    }
    if (st != KVPLAN_OK)
        return st;
    return kvplan__ok(err);
}

kvplan_status kvplan_calculate_pool_sizes_from_max_tokens(
    const kvplan_configurator *conf, int64_t max_total_num_tokens,
    int64_t page_size, kvplan_pool_config *out, kvplan_error *err)
{
    kvplan_status st = check_call(conf, out, page_size, err);
    if (st != KVPLAN_OK)
        return st;
    switch (conf->kind) {
    case KVPLAN_CONFIGURATOR_DEFAULT:
        st = default_from_tokens(max_total_num_tokens, page_size, out, err);
        break;
    case KVPLAN_CONFIGURATOR_HYBRID_SWA:
        st = hybrid_swa_solve(conf, max_total_num_tokens, page_size, out,
                              err);
        break;
    case KVPLAN_CONFIGURATOR_SWA_CHUNK_CAP:
        st = swa_chunk_cap_from_tokens(conf, max_total_num_tokens, page_size,
                                       out, err);
        break;
    case KVPLAN_CONFIGURATOR_DSV4:
        st = dsv4_from_tokens(conf, max_total_num_tokens, page_size, out,
                              err);
        break;
    }
    if (st != KVPLAN_OK)
        return st;
    return kvplan__ok(err);
}

/* Seed: MemoryPoolConfigurator.finalize_with_max_running_requests and the
 * DSV4 override: the c128 state pool holds ring rows per request slot (one
 * row per slot online). */
kvplan_status kvplan_finalize_with_max_running_requests(
    const kvplan_configurator *conf, kvplan_pool_config *config,
    kvplan_error *err)
{
    kvplan_status st = check_call(conf, config, 1, err);
    if (st != KVPLAN_OK)
        return st;
    if (!config->max_running_requests.set)
        return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT,
                            "max_running_requests",
                            "finalize needs config->max_running_requests to "
                            "be set");
    if (conf->kind == KVPLAN_CONFIGURATOR_DSV4) {
        bool ovf = false;
        int64_t slots =
            dsv4_req_slots(conf, config->max_running_requests.value, &ovf);
        int64_t pool = conf->state.online_c128
                           ? slots
                           : kvplan__mul(slots, conf->state.c128_ring_size,
                                         &ovf);
        if (ovf)
            return overflow(err, "the c128 state pool size");
        config->c128_state_pool_size = pool;
    }
    return kvplan__ok(err);
}
