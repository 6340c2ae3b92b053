/*
 * dsv4.c: sglang's DSV4PoolConfigurator for DeepSeek V4's compressed
 * attention: a sliding-window pool, the c4 and c128 compressed pools, the
 * c4 indexer and the compress states (seed: DSV4PoolConfigurator).
 *
 * Sections marked § are those of docs/sglang-rules.md.
 */
#include "core/core.h"

#include <math.h>

/* The factory's first rule: DeepSeek V4 served with its hybrid SWA pools. */
bool kvplan__dsv4_applies(const kvplan_rank *r)
{
    return r->model.hf_config.is_deepseek_v4 && r->runner.is_hybrid_swa;
}

/* _get_dsv4_compress_state_dtype_sizes: element sizes of the c4 and c128
 * compress states from SGLANG_DSV4_COMPRESS_STATE_DTYPE (its words are
 * read by common/env.c). */
static kvplan_status dsv4_state_dtype_sizes(const kvplan_rank *r, int64_t *c4,
                                            int64_t *c128, kvplan_error *err)
{
    char word[64];
    int64_t size = 0;
    if (!kvplan__state_dtype_size(r->env.SGLANG_DSV4_COMPRESS_STATE_DTYPE,
                                  &size, word, sizeof word))
        return kvplan__fail(err, KVPLAN_INVALID_CONFIG,
                            "/env/SGLANG_DSV4_COMPRESS_STATE_DTYPE",
                            "Unsupported SGLANG_DSV4_COMPRESS_STATE_DTYPE="
                            "'%s'. Expected one of: float32, fp32, bfloat16, "
                            "bf16.",
                            word);
    if (size == 2 && r->env.SGLANG_OPT_USE_ONLINE_COMPRESS)
        return kvplan__fail(
            err, KVPLAN_INVALID_CONFIG, "/env/SGLANG_DSV4_COMPRESS_STATE_DTYPE",
            "SGLANG_DSV4_COMPRESS_STATE_DTYPE=%s is not supported when "
            "SGLANG_OPT_USE_ONLINE_COMPRESS=1; online c128 state must stay "
            "float32.",
            word);
    *c4 = *c128 = size;
    return KVPLAN_OK;
}

/* Seed: DSV4PoolConfigurator._get_bytes_per_full_token. A float sum of
 * seven terms, each a left-to-right product, summed left to right
 * (§2.15). */
static double dsv4_bytes_per_full_token(const kvplan_configurator *c,
                                        int64_t nope, int64_t rope,
                                        int64_t index_head_dim,
                                        int64_t c4_state_size, double ratio)
{
    bool ovf = false; /* inputs were range-checked by the caller */
    int64_t kv_bytes = c->terms.dsv4_kv_bytes;
    int64_t indexer_bytes = kvplan__dsa_indexer_bytes(index_head_dim, &ovf);
    int64_t attn_head_dim = nope + rope;
    int64_t c4_state_bytes = 2 * 2 * attn_head_dim * c4_state_size;
    int64_t c4_indexer_state_bytes = 2 * 2 * index_head_dim * c4_state_size;
    /* c128 state is request-scoped (finalize sizes it): ratio 0 here */
    double c4_state_ratio = kvplan__to_double(c->terms.c4_ring_size) /
                            kvplan__to_double(c->internal_.swa_page_size);
    double c4_frac = c->internal_.c4_shrink_is_int
                         ? 1.0 / kvplan__to_double(
                                     4 * (int64_t)c->internal_.c4_shrink_factor)
                         : 1.0 / (4.0 * c->internal_.c4_shrink_factor);
    double kv = kvplan__to_double(kv_bytes);
    double lt = kvplan__to_double(c->terms.num_layers_total);
    double l4 = kvplan__to_double(c->terms.num_layers_ca4);
    double l128 = kvplan__to_double(c->terms.num_layers_ca128);

    double t1 = ratio * kv * lt;                                   /* SWA KV */
    double t2 = c4_frac * kv * l4;                                 /* c4 KV */
    double t3 = 1.0 / 128.0 * kv * l128;                           /* c128 KV */
    double t4 = 1.0 / 4.0 * kvplan__to_double(indexer_bytes) * l4; /* idx */
    double t5 = ratio * c4_state_ratio * kvplan__to_double(c4_state_bytes) *
                l4;  /* c4 state */
    double t6 = 0.0; /* c128 state */
    double t7 =
        ratio * c4_state_ratio * kvplan__to_double(c4_indexer_state_bytes) * l4;
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
    if (c->internal_.decode_mode)
        slots = kvplan__add(slots, c->internal_.decode_extra_slots, ovf);
    return kvplan__add(slots, 1, ovf);
}

/* _get_c128_state_fixed_bytes: the c128 compress state, request-scoped:
 *   online:  rows = (slots + ring + 1) * (1 + mtp_draft), 3 * attn per row
 *   else:    rows = ceil_align(slots * ring + ring + 1, 128), 2 * attn
 *   bytes  = rows * per_row * state_elem * c128_layers */
static int64_t dsv4_c128_state_fixed_bytes(const kvplan_configurator *c,
                                           int64_t requests, bool *ovf)
{
    if (c->terms.num_layers_ca128 == 0)
        return 0;
    int64_t slots = dsv4_req_slots(c, requests, ovf);
    int64_t ring = c->terms.c128_ring_size;
    int64_t rows, last_dim;
    if (c->terms.online_c128) {
        rows = kvplan__mul(
            kvplan__add(kvplan__add(slots, ring, ovf), 1, ovf),
            kvplan__add(1, c->terms.online_c128_mtp_max_draft_tokens, ovf),
            ovf);
        last_dim = 3 * c->internal_.attn_head_dim;
    } else {
        rows = kvplan__add(
            kvplan__add(kvplan__mul(slots, ring, ovf), ring, ovf), 1, ovf);
        rows = kvplan__ceil_align(rows, 128, ovf);
        last_dim = 2 * c->internal_.attn_head_dim;
    }
    return kvplan__mul(kvplan__mul(kvplan__mul(rows, last_dim, ovf),
                                   c->terms.c128_state_dtype_size, ovf),
                       c->terms.num_layers_ca128, ovf);
}

/* Seed: DSV4PoolConfigurator.__init__. */
/* The head dims and the window DSV4 needs, each refused when absent. */
static kvplan_status dsv4_dims(const kvplan_rank *r, int64_t *nope_out,
                               int64_t *rope_out, int64_t *ihd_out,
                               int64_t *window_out, kvplan_error *err)
{
    kvplan_status st;
    int64_t nope = 0, rope = 0, ihd = 0, window = 0;
    if ((st = kvplan__need_dim(r->model.qk_nope_head_dim,
                               "/model/qk_nope_head_dim", "for DeepSeek V4",
                               &nope, err)) != KVPLAN_OK ||
        (st = kvplan__need_dim(r->model.qk_rope_head_dim,
                               "/model/qk_rope_head_dim", "for DeepSeek V4",
                               &rope, err)) != KVPLAN_OK ||
        (st = kvplan__need_dim(r->model.index_head_dim, "/model/index_head_dim",
                               "for DeepSeek V4", &ihd, err)) != KVPLAN_OK ||
        (st = kvplan__need_dim(r->model.window_size, "/model/window_size",
                               "for DeepSeek V4", &window, err)) != KVPLAN_OK)
        return st;
    /* the byte formulas below stay far inside int64 with dims this small */
    if (nope > INT32_MAX || rope > INT32_MAX || ihd > INT32_MAX)
        return kvplan__overflow(err, "a DeepSeek V4 head dim");
    *nope_out = nope;
    *rope_out = rope;
    *ihd_out = ihd;
    *window_out = window;
    return KVPLAN_OK;
}

/* The stage's layers by compress ratio, the window, the context, the
 * requests per DP worker and PD decode's. */
static kvplan_status dsv4_layout(kvplan_configurator *c, const kvplan_rank *r,
                                 int64_t window, bool *ovf, kvplan_error *err)
{
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
    c->terms.num_layers_total = e - b;
    c->terms.num_layers_ca4 = l4;
    c->terms.num_layers_ca128 = l128;
    c->internal_.swa_page_size = window;
    c->terms.swa_full_tokens_ratio = r->server_args.swa_full_tokens_ratio;
    c->internal_.context_len =
        r->model.context_len.set ? r->model.context_len.value : 0;
    c->terms.online_c128_mtp_max_draft_tokens =
        kvplan__or_default(r->server_args.max_speculative_num_draft_tokens, 0);

    c->internal_.requested_max_running_requests_per_worker.set = false;
    if (r->server_args.max_running_requests.set) {
        if (r->runner.dp_size == 0)
            return kvplan__fail(err, KVPLAN_INVALID_CONFIG, "/runner/dp_size",
                                "/runner/dp_size must be >= 1 to share "
                                "max_running_requests among DP ranks, got 0");
        c->internal_.requested_max_running_requests_per_worker =
            (kvplan_opt_int){
                kvplan__floordiv(r->server_args.max_running_requests.value,
                                 r->runner.dp_size, ovf),
                true};
    }
    c->internal_.decode_mode =
        r->server_args.disaggregation_mode == KVPLAN_DISAGG_DECODE;
    c->internal_.decode_extra_slots =
        r->server_args.disaggregation_decode_extra_slots;

    return KVPLAN_OK;
}

/* HiSparse's share of the c4 pool on the device, and the compressor
 * state rings (get_compress_state_ring_size, §2.7). */
static kvplan_status dsv4_rings(kvplan_configurator *c, const kvplan_rank *r,
                                bool speculative, kvplan_error *err)
{
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
    c->internal_.c4_shrink_factor = shrink;
    c->internal_.c4_shrink_is_int = shrink == floor(shrink) && shrink < 0x1p60;

    /* get_compress_state_ring_size (§2.7) */
    bool online = r->env.SGLANG_OPT_USE_ONLINE_COMPRESS;
    c->terms.online_c128 = online;
    c->terms.c4_ring_size = speculative ? 16 : 8;
    if (online) {
        if (speculative && !r->env.SGLANG_EXPERIMENTAL_ONLINE_C128_MTP)
            return kvplan__fail(
                err, KVPLAN_INVALID_CONFIG,
                "/env/SGLANG_OPT_USE_ONLINE_COMPRESS",
                "online c128 does not support MTP: speculative decoding "
                "with SGLANG_OPT_USE_ONLINE_COMPRESS=1 needs "
                "SGLANG_EXPERIMENTAL_ONLINE_C128_MTP=1");
        c->terms.c128_ring_size = 1;
    } else {
        c->terms.c128_ring_size = speculative ? 256 : 128;
    }

    return KVPLAN_OK;
}

kvplan_status kvplan__dsv4_init(kvplan_configurator *c, const kvplan_rank *r,
                                kvplan_error *err)
{
    kvplan_status st;
    int64_t nope = 0, rope = 0, ihd = 0, window = 0;
    if ((st = dsv4_dims(r, &nope, &rope, &ihd, &window, err)) != KVPLAN_OK)
        return st;
    c->kind = KVPLAN_CONFIGURATOR_DSV4;
    bool speculative = r->runner.spec_algorithm != KVPLAN_SPEC_NONE;
    bool ovf = false;
    if ((st = dsv4_layout(c, r, window, &ovf, err)) != KVPLAN_OK ||
        (st = dsv4_rings(c, r, speculative, err)) != KVPLAN_OK)
        return st;
    bool online = c->terms.online_c128;
    int64_t c4_size = 0, c128_size = 0;
    if ((st = dsv4_state_dtype_sizes(r, &c4_size, &c128_size, err)) !=
        KVPLAN_OK)
        return st;
    c->internal_.attn_head_dim = nope + rope;
    c->terms.c128_state_dtype_size = c128_size;
    if (window == 0)
        return kvplan__fail(err, KVPLAN_INVALID_CONFIG, "/model/window_size",
                            "/model/window_size must be >= 1 for DeepSeek V4 "
                            "(the c4 state ring is priced per window), got 0");

    /* fp8 nope, bf16 rope, 8 scale bytes per token and layer */
    c->terms.dsv4_kv_bytes = kvplan__dsv4_row_bytes(nope, rope, &ovf);
    double bpft = dsv4_bytes_per_full_token(c, nope, rope, ihd, c4_size,
                                            c->terms.swa_full_tokens_ratio);
    if (speculative) {
        /* reserve the MTP draft worker: bpft * (T + 1) / T, one draft layer */
        if (c->terms.num_layers_total == 0)
            return kvplan__fail(
                err, KVPLAN_INVALID_CONFIG, "/model/compress_ratios",
                "this pipeline stage (layers [%lld, %lld)) has no entry in "
                "/model/compress_ratios, so the draft worker's share cannot "
                "be priced; sglang fails here with a division by zero",
                (long long)r->runner.start_layer,
                (long long)r->runner.end_layer);
        bpft *= kvplan__to_double(c->terms.num_layers_total + 1) /
                kvplan__to_double(c->terms.num_layers_total);
    }
    c->bytes_per_full_token = bpft;
    c->terms.dsa_indexer_bytes = kvplan__dsa_indexer_bytes(ihd, &ovf);
    c->terms.draft_layers = speculative ? 1 : 0; /* the MTP draft */
    c->cell_size = 0.0;

    if (online) {
        bool experimental_mtp =
            r->env.SGLANG_EXPERIMENTAL_ONLINE_C128_MTP &&
            kvplan__is_eagle_family(r->runner.spec_algorithm);
        if (speculative && !experimental_mtp)
            return kvplan__fail(
                err, KVPLAN_INVALID_CONFIG,
                "/env/SGLANG_OPT_USE_ONLINE_COMPRESS",
                "SGLANG_OPT_USE_ONLINE_COMPRESS does not support speculative "
                "decode (MTP) yet, except the experimental EAGLE topk=1 path "
                "gated by SGLANG_EXPERIMENTAL_ONLINE_C128_MTP=1");
        if (experimental_mtp && c->terms.online_c128_mtp_max_draft_tokens <= 0)
            return kvplan__fail(err, KVPLAN_INVALID_CONFIG,
                                "/server_args/max_speculative_num_draft_tokens",
                                "SGLANG_EXPERIMENTAL_ONLINE_C128_MTP requires "
                                "speculative_num_draft_tokens to be set.");
    }
    if (ovf)
        return kvplan__overflow(err, "the requests per DP rank");
    /* With the requests given, the c128 state is the same for every
     * budget: price it once here, not on every call. */
    if (c->internal_.requested_max_running_requests_per_worker.set) {
        c->internal_.requested_c128_state_fixed_bytes =
            dsv4_c128_state_fixed_bytes(
                c, c->internal_.requested_max_running_requests_per_worker.value,
                &ovf);
        c->internal_.requested_c128_state_overflows = ovf;
    }
    return KVPLAN_OK;
}

/* _compute_dsv4_sizes: every pool follows from the full-token count. */
typedef struct dsv4_pools {
    int64_t full, swa, c4, c128, c4_state;
} dsv4_pools;

static dsv4_pools dsv4_sizes(const kvplan_configurator *c, int64_t full_token,
                             int64_t page, bool *ovf)
{
    dsv4_pools p;
    p.full = kvplan__align_down(full_token, page, ovf);
    p.swa = kvplan__align_down(kvplan__trunc(kvplan__to_double(p.full) *
                                                 c->terms.swa_full_tokens_ratio,
                                             ovf),
                               page, ovf);
    if (c->internal_.c4_shrink_is_int)
        p.c4 = kvplan__floordiv(
            p.full, 4 * (int64_t)c->internal_.c4_shrink_factor, ovf);
    else
        p.c4 = kvplan__trunc(
            kvplan__py_float_floordiv(kvplan__to_double(p.full),
                                      4.0 * c->internal_.c4_shrink_factor),
            ovf);
    p.c128 = kvplan__floordiv(p.full, 128, ovf);
    p.c4_state =
        kvplan__mul(kvplan__floordiv(p.swa, c->internal_.swa_page_size, ovf),
                    c->terms.c4_ring_size, ovf);
    return p;
}

static void put_dsv4(kvplan_pool_config *out, const dsv4_pools *p)
{
    kvplan__put_config(out, p->full, kvplan__some(p->full),
                       kvplan__some(p->swa));
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
 * from sglang's default estimate at this capacity (§2.15). */
kvplan_status kvplan__dsv4_from_bytes(const kvplan_configurator *c,
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
                            (long long)c->internal_.stage_start_layer,
                            (long long)c->internal_.stage_end_layer);
    bool ovf = false;
    int64_t fixed;
    kvplan_opt_int requested =
        c->internal_.requested_max_running_requests_per_worker;
    if (requested.set) {
        fixed = c->internal_.requested_c128_state_fixed_bytes;
        ovf = c->internal_.requested_c128_state_overflows;
    } else {
        if (c->internal_.context_len == 0)
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
        int64_t requests = kvplan__default_max_running_requests(
            capacity, c->internal_.context_len, &ovf);
        fixed = dsv4_c128_state_fixed_bytes(c, requests, &ovf);
    }
    int64_t for_tokens = kvplan__max(kvplan__sub(available, fixed, &ovf), 0);
    int64_t full_token =
        kvplan__trunc(kvplan__to_double(for_tokens) / bpft, &ovf);
    dsv4_pools sizes = dsv4_sizes(c, full_token, page, &ovf);
    if (ovf)
        return kvplan__overflow(err, "a DeepSeek V4 pool size");
    if (sizes.full <= 0) {
        char bpft_text[32] = "";
        if (err != NULL)
            kvplan_format_double(bpft, bpft_text, sizeof bpft_text);
        return kvplan__not_enough(
            err,
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
kvplan_status kvplan__dsv4_from_tokens(const kvplan_configurator *c,
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
        return kvplan__overflow(err, "a DeepSeek V4 pool size");
    if (sizes.full <= 0)
        return kvplan__tokens_below_page(tokens, page, err);
    put_dsv4(out, &sizes);
    return KVPLAN_OK;
}

/* Seed: DSV4PoolConfigurator.finalize_with_max_running_requests: the c128
 * state pool holds ring rows per request slot (one row per slot online). */
kvplan_status kvplan__dsv4_finalize(const kvplan_configurator *c,
                                    kvplan_pool_config *config,
                                    kvplan_error *err)
{
    bool ovf = false;
    int64_t slots = dsv4_req_slots(c, config->max_running_requests.value, &ovf);
    int64_t pool = c->terms.online_c128
                       ? slots
                       : kvplan__mul(slots, c->terms.c128_ring_size, &ovf);
    if (ovf)
        return kvplan__overflow(err, "the c128 state pool size");
    config->c128_state_pool_size = pool;
    return KVPLAN_OK;
}
