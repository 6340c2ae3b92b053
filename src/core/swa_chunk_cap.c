/*
 * swa_chunk_cap.c: sglang's SWAChunkCapPoolConfigurator: the sliding-
 * window pool sized from a per-request worst case when requests are capped
 * and there is no radix cache, the rest of the budget to the full pool
 * (seed: SWAChunkCapPoolConfigurator).
 *
 * Sections marked § are those of docs/sglang-rules.md.
 */
#include "core/core.h"

/* SWAChunkCapPoolConfigurator.is_applicable: the SWA chunk cache can be
 * bounded per request when the request count is explicit and there is no
 * radix cache to keep evicted tokens alive. */
bool kvplan__swa_chunk_cap_applies(const kvplan_rank *r)
{
    return r->runner.is_hybrid_swa && r->server_args.max_running_requests.set &&
           r->server_args.disable_radix_cache &&
           r->server_args.chunked_prefill_size.set &&
           r->runner.sliding_window_size.set &&
           r->model.full_attention_layer_ids.count > 0;
}

/* spec_decode_alloc_len_per_request (§2.9): page-aligned KV slots one
 * request needs for its next decode with speculative v1. */
static int64_t spec_v1_decode_alloc(const kvplan_rank *r, bool *ovf)
{
    int64_t page = r->runner.page_size;
    int64_t len_per_topk =
        kvplan__or_default(r->server_args.speculative_num_steps, 1);
    int64_t topk = kvplan__or_default(r->server_args.speculative_eagle_topk, 1);
    int64_t tokens =
        kvplan__or_default(r->server_args.speculative_num_draft_tokens, 1);
    if (page > 1 && topk > 1) {
        len_per_topk =
            kvplan__ceil_align(kvplan__add(len_per_topk, page, ovf), page, ovf);
        tokens = kvplan__ceil_align(tokens, page, ovf);
    } else if (page > 1) {
        len_per_topk = kvplan__ceil_align(len_per_topk, page, ovf);
        tokens = kvplan__ceil_align(tokens, page, ovf);
    }
    return kvplan__max(kvplan__mul(len_per_topk, topk, ovf), tokens);
}

/* get_alloc_len_per_decode (§2.8): KV slots one request may take in one
 * decode step with speculative v2. max_speculative_num_draft_tokens counts
 * as 0 when absent (get_req_to_token_extra_context_len reads it so). */
int64_t kvplan__spec_v2_alloc_len(const kvplan_rank *r, bool *ovf)
{
    if (r->runner.spec_algorithm == KVPLAN_SPEC_NONE)
        return 1;
    int64_t steps = kvplan__or_default(r->server_args.speculative_num_steps, 1);
    int64_t topk = kvplan__or_default(r->server_args.speculative_eagle_topk, 1);
    int64_t tokens =
        kvplan__or_default(r->server_args.max_speculative_num_draft_tokens, 0);
    int64_t page = r->runner.page_size;
    bool has_draft_kv = r->runner.spec_algorithm != KVPLAN_SPEC_NGRAM;
    if (page == 1 || topk == 1 || !has_draft_kv)
        return kvplan__max(kvplan__mul(steps, topk, ovf), tokens);
    /* pages = ((page - 1) + steps + page - 1) // page */
    int64_t pages = kvplan__floordiv(
        kvplan__add(kvplan__add(page - 1, steps, ovf), page - 1, ovf), page,
        ovf);
    return kvplan__max(kvplan__mul(kvplan__mul(pages, page, ovf), topk, ovf),
                       tokens);
}

/* Seed: SWAChunkCapPoolConfigurator.__init__: the most one request holds
 * in the SWA pool,
 *
 *   [padding][eviction_interval * draft_tokens][window] + one decode
 *   allocation
 *
 * (spec-v2 reads max_speculative_num_draft_tokens as 0 when absent; the
 * chunk cap requires it first). */
int64_t kvplan__swa_request_tokens(const kvplan_rank *r, bool *ovf)
{
    int64_t page = r->runner.page_size;
    int64_t window = r->runner.sliding_window_size.value;
    int64_t draft_tokens =
        kvplan__or_default(r->server_args.speculative_num_draft_tokens, 1);
    int64_t eviction = kvplan__max(1, r->env.SGLANG_SWA_EVICTION_INTERVAL);
    int64_t trailing = kvplan__add(
        kvplan__add(window, kvplan__mul(eviction, draft_tokens, ovf), ovf),
        page, ovf);
    int64_t decode_alloc;
    if (r->runner.spec_algorithm == KVPLAN_SPEC_NONE)
        decode_alloc = page;
    else if (r->server_args.disable_overlap_schedule)
        decode_alloc = spec_v1_decode_alloc(r, ovf);
    else /* the overlap allocator keeps 2 * alloc_len outstanding */
        decode_alloc = kvplan__mul(2, kvplan__spec_v2_alloc_len(r, ovf), ovf);
    return kvplan__add(trailing, decode_alloc, ovf);
}

/* What the SWA pool holds beside its requests: the prefill chunks in
 * flight and a page (PD decode: a window and a page per extra slot). */
int64_t kvplan__swa_shared_tokens(const kvplan_rank *r, bool *ovf)
{
    int64_t page = r->runner.page_size;
    int64_t window = r->runner.sliding_window_size.value;
    if (r->server_args.disaggregation_mode == KVPLAN_DISAGG_DECODE)
        return kvplan__mul(kvplan__add(window, page, ovf),
                           r->server_args.disaggregation_decode_extra_slots,
                           ovf);
    int64_t chunk = kvplan__or_default(r->server_args.chunked_prefill_size, 0);
    int64_t chunks_in_flight = r->server_args.disable_overlap_schedule ? 1 : 2;
    return kvplan__add(kvplan__mul(chunks_in_flight, chunk, ovf), page, ovf);
}

/* Seed: SWAChunkCapPoolConfigurator.__init__: the SWA pool's worst case,
 *
 *   cap = per_request * requests + prefill chunks in flight + one page
 *       (PD decode: + (window + page) per extra slot instead)
 */
kvplan_status kvplan__swa_chunk_cap_init(kvplan_configurator *c,
                                         const kvplan_rank *r,
                                         kvplan_error *err)
{
    kvplan_status st = kvplan__hybrid_swa_init(c, r, err);
    if (st != KVPLAN_OK)
        return st;
    c->kind = KVPLAN_CONFIGURATOR_SWA_CHUNK_CAP;
    if (r->runner.page_size <= 0)
        return kvplan__fail(err, KVPLAN_INVALID_CONFIG, "/runner/page_size",
                            "/runner/page_size must be >= 1, got %lld",
                            (long long)r->runner.page_size);
    KVPLAN__FAIL_IF(r->runner.spec_algorithm != KVPLAN_SPEC_NONE &&
                        !r->server_args.disable_overlap_schedule &&
                        !r->server_args.max_speculative_num_draft_tokens.set,
                    err, KVPLAN_INVALID_CONFIG,
                    "/server_args/max_speculative_num_draft_tokens",
                    "/server_args/max_speculative_num_draft_tokens is "
                    "required to size the SWA chunk cap with speculative "
                    "decoding and the overlap schedule, but it is absent");
    bool ovf = false;
    int64_t per_request = kvplan__swa_request_tokens(r, &ovf);

    if (r->runner.dp_size == 0)
        return kvplan__fail(err, KVPLAN_INVALID_CONFIG, "/runner/dp_size",
                            "/runner/dp_size must be >= 1 to share "
                            "max_running_requests among DP ranks, got 0");
    int64_t num_reqs = kvplan__floordiv(
        r->server_args.max_running_requests.value, r->runner.dp_size, &ovf);
    int64_t cap = kvplan__add(kvplan__mul(per_request, num_reqs, &ovf),
                              kvplan__swa_shared_tokens(r, &ovf), &ovf);
    if (ovf)
        return kvplan__overflow(err, "the SWA chunk cap");
    c->swa_cap = cap;
    return KVPLAN_OK;
}

/* Seed: SWAChunkCapPoolConfigurator.calculate_pool_sizes: the SWA pool is
 * sized tightly from the cap, the rest of the budget goes to full. */
kvplan_status kvplan__swa_chunk_cap_from_bytes(const kvplan_configurator *c,
                                               int64_t available, int64_t page,
                                               kvplan_pool_config *out,
                                               kvplan_error *err)
{
    bool ovf = false;
    int64_t swa = kvplan__ceil_align(c->swa_cap, page, &ovf);
    /* fixed SWA bytes = swa_tokens * S * ns */
    int64_t fixed = kvplan__mul(kvplan__mul(swa, c->terms.swa_per_token, &ovf),
                                c->terms.swa_layers_num, &ovf);
    /* full cell = F * (nf + d) */
    int64_t full_cell =
        kvplan__mul(c->terms.full_per_token,
                    kvplan__add(c->terms.full_layers_num,
                                c->terms.draft_full_layers_num, &ovf),
                    &ovf);
    if (ovf)
        return kvplan__overflow(err, "the SWA pool size");
    if (full_cell == 0)
        return kvplan__no_kv_layer(c, err);
    int64_t full = kvplan__align_down(
        kvplan__floordiv(kvplan__sub(available, fixed, &ovf), full_cell, &ovf),
        page, &ovf);
    if (ovf)
        return kvplan__overflow(err, "the full pool size");
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
            kvplan__to_double(available) / gib, (long long)(full_cell * page),
            (long long)fixed);
    }
    kvplan__put_config(out, full, kvplan__some(full), kvplan__some(swa));
    return KVPLAN_OK;
}

/* Seed: SWAChunkCapPoolConfigurator.calculate_pool_sizes_from_max_tokens:
 * the constrained count goes to the full pool; the SWA pool stays at its
 * cap, but no larger than the unaligned count (§8.13). */
kvplan_status kvplan__swa_chunk_cap_from_tokens(const kvplan_configurator *c,
                                                int64_t tokens, int64_t page,
                                                kvplan_pool_config *out,
                                                kvplan_error *err)
{
    bool ovf = false;
    int64_t swa = kvplan__ceil_align(c->swa_cap, page, &ovf);
    int64_t full = kvplan__align_down(tokens, page, &ovf);
    if (ovf)
        return kvplan__overflow(err, "the token count");
    if (full <= 0)
        return kvplan__tokens_below_page(tokens, page, err);
    kvplan__put_config(out, full, kvplan__some(full),
                       kvplan__some(kvplan__min(swa, tokens)));
    return KVPLAN_OK;
}
