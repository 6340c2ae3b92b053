/*
 * configurator.c: the core's public face: kvplan_rank_init, the factory
 * (seed: create_memory_pool_configurator) and the three entry points,
 * which dispatch to the configurator files of src/core/.
 *
 * The core restates sglang's pool_configurator.py at 6cc9352d
 * (python/sglang/srt/model_executor/pool_configurator.py). Each configurator
 * turns a budget into pool sizes with sglang's "coeff + bias" model,
 *
 *     available_bytes = max_tokens * coeff + bias,
 *
 * and every formula names the seed class and method it restates.
 * Exactness rules (docs/sglang-rules.md §0.2):
 * - integer steps are Python int steps: floor division, signed, checked
 *   for int64 overflow (the reference has no bound; kvplan refuses rather
 *   than wrap);
 * - float steps are the reference's IEEE-754 operations in its order of
 *   evaluation, with Python's float floor division where it divides by a
 *   float, and int() as truncation.
 *
 * Where the reference fails only by accident (a bare division by zero), the
 * status is KVPLAN_INVALID_CONFIG with a message that says what is wrong.
 *
 * The core is pure: no files, no JSON, no environment. It reads a
 * kvplan_rank and writes pool sizes.
 */
#include "core/core.h"

#include <string.h>

void kvplan_rank_init(kvplan_rank *rank)
{
    if (rank == NULL)
        return;
    memset(rank, 0, sizeof *rank);
    rank->struct_size = (uint32_t)sizeof *rank;
    rank->runner.dtype = KVPLAN_DTYPE_BFLOAT16;
    rank->runner.pp_size = 1;
    rank->runner.dp_size = 1;
    rank->runner.hisparse_host_to_device_ratio = 2.0;
    rank->parallel.attn_tp_size = 1;
    rank->parallel.attn_cp_size = 1;
    rank->server_args.swa_full_tokens_ratio = 0.8;
    rank->env.SGLANG_SWA_EVICTION_INTERVAL = 128;
    rank->upstream.dcp_size = 1;
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
    const struct kvplan_minimax_sparse *ms = &r->model.hf_config.minimax_sparse;
    /* the common case, all fine, in one expression: the bits or'ed as
     * ints, one branch (clang warns of | on bools) */
    int bad = (int)ids_bad(r->runner.mambaish_full_attention_layer_ids) |
              (int)ids_bad(r->model.full_attention_layer_ids) |
              (int)ids_bad(r->model.swa_attention_layer_ids) |
              (int)ids_bad(r->model.compress_ratios) |
              (int)ids_bad(ms->dense_layer_ids) |
              (int)ids_bad(ms->sparse_layer_ids) |
              (int)ids_bad(ms->disable_value_layer_ids) |
              (int)ids_bad(r->upstream.dsa_topk_layer_ids);
    if (!bad)
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
        {ms->dense_layer_ids,
         "/model/hf_config/minimax_sparse/dense_layer_ids"},
        {ms->sparse_layer_ids,
         "/model/hf_config/minimax_sparse/sparse_layer_ids"},
        {ms->disable_value_layer_ids,
         "/model/hf_config/minimax_sparse/disable_value_layer_ids"},
        {r->upstream.dsa_topk_layer_ids, "/upstream/dsa_topk_layer_ids"},
    };
    size_t i = 0;
    while (!ids_bad(lists[i].ids))
        i++;
    return kvplan__fail(
        err, KVPLAN_INVALID_ARGUMENT, lists[i].field,
        "%s has %zu entries but %s", lists[i].field, lists[i].ids.count,
        lists[i].ids.ids == NULL ? "a NULL pointer" : "is too long");
}

/* The factory and the entry points are switches over the kind table's
 * rows; `flatten` asks the compiler to inline each configurator's path
 * into them (the core is compiled as one unit for that). */
#if defined(__GNUC__)
#define KVPLAN__FLATTEN __attribute__((flatten))
#else
#define KVPLAN__FLATTEN
#endif

/* Seed: create_memory_pool_configurator, generated from the kind table:
 * the first row that applies builds the configurator. */
KVPLAN__FLATTEN static kvplan_status
build(kvplan_configurator *out, const kvplan_rank *rank, kvplan_error *err)
{
#define KVPLAN_X_BUILD(kind, applies, init, from_bytes, from_tokens, finalize) \
    if (applies(rank))                                                         \
        return init(out, rank, err);
    KVPLAN__KIND_TABLE(KVPLAN_X_BUILD)
#undef KVPLAN_X_BUILD
    return kvplan__fail(err, KVPLAN_INVALID_CONFIG, NULL,
                        "no configurator applies"); /* DEFAULT always does */
}

KVPLAN__FLATTEN
kvplan_status kvplan_configurator_init(kvplan_configurator *out,
                                       const kvplan_rank *rank,
                                       kvplan_error *err)
{
    KVPLAN__FAIL_IF(out == NULL || rank == NULL, err, KVPLAN_INVALID_ARGUMENT,
                    NULL,
                    "kvplan_configurator_init needs a configurator to fill "
                    "and a rank to read; got NULL");
    KVPLAN__FAIL_IF(rank->struct_size != sizeof *rank, err,
                    KVPLAN_INVALID_ARGUMENT, "struct_size",
                    "kvplan_rank.struct_size is %u, expected %zu: fill the "
                    "rank with kvplan_rank_init() of this kvplan.h",
                    (unsigned)rank->struct_size, sizeof *rank);
    KVPLAN__TRY(check_rank_lists(rank, err));
    /* Built in place: copying a finished configurator would cost more than
     * building it. A failure leaves `out` unusable (kind 0), so a call on it
     * is refused rather than answered from half a configurator. */
    /* Zeroed part by part: the compiler copies each with vector moves,
     * where one copy of the whole struct (or a memset) became a `rep
     * movs` (`rep stos`) that cost more than the rest of an init. */
    static const kvplan_configurator_terms no_terms;
    static const struct kvplan__configurator_internal no_internal;
    out->kind = (kvplan_configurator_kind)0;
    out->cell_size_bytes = 0;
    out->cell_size = 0.0;
    out->cell_size_is_float = false;
    out->bytes_per_full_token = 0.0;
    out->swa_cap = 0;
    out->terms = no_terms;
    out->internal_ = no_internal;
    out->internal_.stage_start_layer = rank->runner.start_layer;
    out->internal_.stage_end_layer = rank->runner.end_layer;
    kvplan_status st = build(out, rank, err);
    if (st != KVPLAN_OK) {
        out->kind = (kvplan_configurator_kind)0;
        return st;
    }
    return kvplan__ok(err);
}

static kvplan_status not_built(const kvplan_configurator *conf, const void *out,
                               kvplan_error *err)
{
    if (conf == NULL || out == NULL)
        return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, NULL,
                            "a configurator and a result to fill are "
                            "required; got NULL");
    return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, NULL,
                        "the configurator was not built by "
                        "kvplan_configurator_init");
}

KVPLAN__FLATTEN
kvplan_status kvplan_calculate_pool_sizes(const kvplan_configurator *conf,
                                          int64_t available_bytes,
                                          int64_t page_size,
                                          kvplan_pool_config *out,
                                          kvplan_error *err)
{
    kvplan_status st = KVPLAN_INVALID_ARGUMENT;
    if (conf == NULL || out == NULL)
        return not_built(conf, out, err);
    KVPLAN__TRY(kvplan__check_page(page_size, err));
    switch (conf->kind) {
#define KVPLAN_X_FROM_BYTES(kind, applies, init, from_bytes, from_tokens,      \
                            finalize)                                          \
    case kind:                                                                 \
        st = from_bytes(conf, available_bytes, page_size, out, err);           \
        break;
        KVPLAN__KIND_TABLE(KVPLAN_X_FROM_BYTES)
#undef KVPLAN_X_FROM_BYTES
    default:
        return not_built(conf, out, err);
    }
    return st != KVPLAN_OK ? st : kvplan__ok(err);
}

KVPLAN__FLATTEN
kvplan_status kvplan_calculate_pool_sizes_from_max_tokens(
    const kvplan_configurator *conf, int64_t max_total_num_tokens,
    int64_t page_size, kvplan_pool_config *out, kvplan_error *err)
{
    kvplan_status st = KVPLAN_INVALID_ARGUMENT;
    if (conf == NULL || out == NULL)
        return not_built(conf, out, err);
    KVPLAN__TRY(kvplan__check_page(page_size, err));
    switch (conf->kind) {
#define KVPLAN_X_FROM_TOKENS(kind, applies, init, from_bytes, from_tokens,     \
                             finalize)                                         \
    case kind:                                                                 \
        st = from_tokens(conf, max_total_num_tokens, page_size, out, err);     \
        break;
        KVPLAN__KIND_TABLE(KVPLAN_X_FROM_TOKENS)
#undef KVPLAN_X_FROM_TOKENS
    default:
        return not_built(conf, out, err);
    }
    return st != KVPLAN_OK ? st : kvplan__ok(err);
}

/* Seed: MemoryPoolConfigurator.finalize_with_max_running_requests (a no-op
 * but for DeepSeek V4's override). */
kvplan_status
kvplan_finalize_with_max_running_requests(const kvplan_configurator *conf,
                                          kvplan_pool_config *config,
                                          kvplan_error *err)
{
    kvplan_status st = KVPLAN_INVALID_ARGUMENT;
    if (conf == NULL || config == NULL)
        return not_built(conf, config, err);
    switch (conf->kind) {
#define KVPLAN_X_FINALIZE(kind, applies, init, from_bytes, from_tokens,        \
                          finalize)                                            \
    case kind:                                                                 \
        KVPLAN__FAIL_IF(!config->max_running_requests.set, err,                \
                        KVPLAN_INVALID_ARGUMENT, "max_running_requests",       \
                        "finalize needs config->max_running_requests to be "   \
                        "set");                                                \
        st = finalize(conf, config, err);                                      \
        break;
        KVPLAN__KIND_TABLE(KVPLAN_X_FINALIZE)
#undef KVPLAN_X_FINALIZE
    default:
        return not_built(conf, config, err);
    }
    return st != KVPLAN_OK ? st : kvplan__ok(err);
}
