/*
 * common.c: what the four configurators share: readers of the rank that
 * name the field they refuse, KV heads per rank, stage counters, the
 * overflow and "not enough memory" messages, and the answer writer.
 *
 * Formulas restate sglang's pool_configurator.py at 6cc9352d
 * (python/sglang/srt/model_executor/pool_configurator.py); sections
 * marked "§" are those of docs/sglang-rules.md.
 */
#include "core/core.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* An optional int that the formula needs: present and >= 0. */
kvplan_status kvplan__need_dim(kvplan_opt_int v, const char *field,
                               const char *why, int64_t *out, kvplan_error *err)
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
kvplan_status kvplan__dim_or(kvplan_opt_int v, int64_t fallback,
                             const char *field, int64_t *out, kvplan_error *err)
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

kvplan_status kvplan__kv_size_of(kvplan_dtype dtype, const char *field,
                                 int64_t *out, kvplan_error *err)
{
    int64_t size = kvplan__elem_bytes(dtype);
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

kvplan_status kvplan__check_tp(const kvplan_rank *r, kvplan_error *err)
{
    if (r->parallel.attn_tp_size <= 0)
        return kvplan__fail(err, KVPLAN_INVALID_CONFIG,
                            "/parallel/attn_tp_size",
                            "/parallel/attn_tp_size must be >= 1, got %lld",
                            (long long)r->parallel.attn_tp_size);
    return KVPLAN_OK;
}

int64_t kvplan__swa_kv_heads_per_rank(const kvplan_rank *r)
{
    if (!r->model.swa_num_key_value_heads.set)
        return kvplan__kv_heads_per_rank(r->model.num_key_value_heads,
                                         r->parallel.attn_tp_size);
    return kvplan__kv_heads_per_rank(r->model.swa_num_key_value_heads.value,
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

/* Whether an ascending list holds x (binary search). */
static bool sorted_contains(kvplan_ids ids, int64_t x)
{
    size_t lo = 0, hi = ids.count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ids.ids[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ids.count && ids.ids[lo] == x;
}

static bool ascending(kvplan_ids ids)
{
    for (size_t i = 1; i < ids.count; i++)
        if (ids.ids[i] < ids.ids[i - 1])
            return false;
    return true;
}

/* The sparse layers in [start, end) that a bitmap of the k-only layers
 * in that window marks: at most 4096 layers a window, on the stack. */
static int64_t count_window(const struct kvplan_minimax_sparse *ms,
                            int64_t start, int64_t end)
{
    uint64_t bits[64];
    size_t words = (size_t)((end - start + 63) / 64);
    memset(bits, 0, words * sizeof bits[0]);
    for (size_t i = 0; i < ms->disable_value_layer_ids.count; i++) {
        int64_t l = ms->disable_value_layer_ids.ids[i];
        if (start <= l && l < end)
            bits[(uint64_t)(l - start) / 64] |= 1ull
                                                << ((uint64_t)(l - start) % 64);
    }
    int64_t n = 0;
    for (size_t i = 0; i < ms->sparse_layer_ids.count; i++) {
        int64_t l = ms->sparse_layer_ids.ids[i];
        if (start <= l && l < end)
            n += (int64_t)((bits[(uint64_t)(l - start) / 64] >>
                            ((uint64_t)(l - start) % 64)) &
                           1);
    }
    return n;
}

/* The stage's sparse layers (duplicates counted) whose id is among the
 * k-only indexer layers, as the seed's
 * sum(1 for l in local_sparse if l in set(disable_value_ids)), without
 * allocating: a stack bitmap for a stage up to 4096 layers wide; wider,
 * a binary search when the k-only list is ascending (as a config gives
 * it), else the bitmap window by window. Never a scan per layer. */
int64_t kvplan__count_k_only(const struct kvplan_minimax_sparse *ms,
                             int64_t start, int64_t end)
{
    int64_t width;
    if (end <= start || __builtin_sub_overflow(end, start, &width))
        return 0;
    if (width <= 64 * 64)
        return count_window(ms, start, end);
    int64_t n = 0;
    if (ascending(ms->disable_value_layer_ids)) {
        for (size_t i = 0; i < ms->sparse_layer_ids.count; i++) {
            int64_t l = ms->sparse_layer_ids.ids[i];
            n += start <= l && l < end &&
                 sorted_contains(ms->disable_value_layer_ids, l);
        }
        return n;
    }
    for (int64_t lo = start; lo < end;) {
        int64_t hi = end - lo > 64 * 64 ? lo + 64 * 64 : end; /* no wrap */
        n += count_window(ms, lo, hi);
        lo = hi;
    }
    return n;
}

/* An int64 kvplan__overflow, refused: `what` is the quantity, `fields` the JSON
 * pointers of the inputs it is made of. */
kvplan_status kvplan__overflow_of(kvplan_error *err, const char *what,
                                  const char *fields)
{
    return kvplan__fail(err, KVPLAN_OVERFLOW, fields,
                        "%s exceeds the range of a 64-bit integer; check %s",
                        what, fields);
}

kvplan_status kvplan__overflow(kvplan_error *err, const char *what)
{
    return kvplan__overflow_of(err, what, "the sizes given");
}

kvplan_status kvplan__bad_page(int64_t page_size, kvplan_error *err)
{
    return kvplan__fail(err, KVPLAN_INVALID_CONFIG, "page_size",
                        "page_size must be >= 1, got %lld",
                        (long long)page_size);
}

/* MemoryPoolConfig.__post_init__: a pool with no token is refused, in the
 * reference's words, followed by what kvplan knows about the shortfall
 * (formatted only when the caller asked for details). */
kvplan_status kvplan__not_enough(kvplan_error *err, const char *fmt, ...)
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

kvplan_status kvplan__no_kv_layer(const kvplan_configurator *c,
                                  kvplan_error *err)
{
    return kvplan__fail(
        err, KVPLAN_INVALID_CONFIG, NULL,
        "the KV cell size is 0 bytes per token: %s, so no token count "
        "follows from a budget (sglang fails here with a division by zero)",
        c->kind == KVPLAN_CONFIGURATOR_DEFAULT && c->terms.num_layers == 0
            ? "this pipeline stage holds no attention layer with a KV cache"
            : "the model's KV heads and head dims give 0 bytes");
}

kvplan_status kvplan__tokens_below_page(int64_t tokens, int64_t page,
                                        kvplan_error *err)
{
    return kvplan__not_enough(
        err,
        "(max_total_num_tokens %lld is less than one page of "
        "%lld tokens.)",
        (long long)tokens, (long long)page);
}

int64_t kvplan__dsa_indexer_bytes(int64_t index_head_dim, bool *ovf)
{
    return kvplan__add(
        index_head_dim,
        kvplan__mul(kvplan__floordiv(index_head_dim, 128, ovf), 4, ovf), ovf);
}

int64_t kvplan__dsa_fp8_row_bytes(int64_t kv_lora_rank, int64_t rope, bool *ovf)
{
    return kvplan__add(
        kvplan__add(
            kv_lora_rank,
            kvplan__mul(kvplan__floordiv(kv_lora_rank, 128, ovf), 4, ovf), ovf),
        kvplan__mul(rope, 2, ovf), ovf);
}

int64_t kvplan__dsv4_row_bytes(int64_t nope, int64_t rope, bool *ovf)
{
    return kvplan__add(kvplan__add(nope, kvplan__mul(rope, 2, ovf), ovf), 8,
                       ovf);
}

int64_t kvplan__default_max_running_requests(int64_t tokens,
                                             int64_t context_len, bool *ovf)
{
    int64_t estimated = kvplan__trunc(
        kvplan__to_double(tokens) / kvplan__to_double(context_len) * 512.0,
        ovf);
    estimated = kvplan__max(kvplan__min(estimated, 4096), 2048);
    return kvplan__min(estimated, kvplan__floordiv(tokens, 2, ovf));
}
