/*
 * vllm_dsv4.c: DeepSeek-V4 under vLLM (0.26 on), as read at v0.27.1:
 * the layers' specs (vllm/models/deepseek_v4/attention.py, compressor.py,
 * vllm/v1/attention/backends/mla/sparse_swa.py), their grouping into
 * UniformType buckets padded to a common count of layer tuples
 * (kv_cache_utils.py: group_and_unify_kv_cache_specs, _approximate_gcd,
 * _get_kv_cache_groups_uniform_groups), the packed per-block layout whose
 * stride is the widest group's (_get_packed_kv_cache_layout), the check
 * priced per padded tuple (_max_memory_usage_bytes_from_groups) and the
 * concurrency of get_max_concurrency_for_kv_cache_config.
 *
 * Every layer keeps a sliding-window cache of `window` tokens in blocks of
 * 64 (584-byte rows); a compressed layer (ratio 4 or 128) adds its
 * compressed cache (blocks of 256 tokens, 256 / ratio rows of 584 bytes)
 * and its compressor's fp32 state (2 x coff x head_dim a token; coff 2 at
 * ratio 4, 1 at 128; blocks of 4 and 8, windows coff x ratio); a ratio-4
 * layer also its indexer's keys (64 rows of 132 bytes, fp8, or 68, fp4)
 * and the indexer compressor's state (head 128). Every page is rounded
 * up to 576 bytes (FlashMLA's alignment).
 */
#include "core/core.h"
#include "engine/vllm_spec.h"

#include <string.h>

#define ALIGN 576
#define BLOCK 256
#define SWA_BLOCK 64

typedef struct kind {
    int64_t page, layers, block, window; /* window 0: the whole length */
} kind;

/* One KV-cache group: up to three kinds of page. */
typedef struct group {
    kind k[3];
    size_t n;
    kvplan_engine_spec spec;
} group;

static int64_t aligned(int64_t bytes, bool *ovf)
{
    return kvplan__mul(kvplan__ceil_div(bytes, ALIGN, ovf), ALIGN, ovf);
}

/* get_num_layer_tuples: the layers of the most common page */
static int64_t tuples(const group *g)
{
    int64_t best = 0;
    for (size_t i = 0; i < g->n; i++) {
        int64_t c = 0;
        for (size_t j = 0; j < g->n; j++)
            c += g->k[j].page == g->k[i].page ? g->k[j].layers : 0;
        best = c > best ? c : best;
    }
    return best;
}

/* max_memory_usage_pages: the most blocks a layer of the group needs */
static int64_t group_pages(const group *g, int64_t len, int64_t in_flight,
                           bool *ovf)
{
    int64_t most = 0;
    for (size_t i = 0; i < g->n; i++) {
        const kind *k = &g->k[i];
        int64_t b =
            k->window == 0
                ? kvplan__ceil_div(len, k->block, ovf)
                : kvplan__ceil_div(kvplan__min(k->window - 1 + in_flight, len),
                                   k->block, ovf) +
                      1;
        most = b > most ? b : most;
    }
    return most;
}

static int64_t group_bytes(const group *g, bool *ovf)
{
    int64_t sum = 0;
    for (size_t i = 0; i < g->n; i++)
        sum = kvplan__add(sum, kvplan__mul(g->k[i].page, g->k[i].layers, ovf),
                          ovf);
    return sum;
}

/* _approximate_gcd: the d in [lower, max] that pads the least, the larger
 * on a tie */
static int64_t approximate_gcd(const int64_t *v, size_t n, int64_t *pad)
{
    int64_t lower = v[0] > 1 ? v[0] : 1, top = 0, best = lower;
    for (size_t i = 0; i < n; i++)
        top = v[i] > top ? v[i] : top;
    *pad = -1;
    for (int64_t d = lower; d <= top; d++) {
        int64_t p = 0;
        for (size_t i = 0; i < n; i++)
            p += (d - v[i] % d) % d;
        if (*pad < 0 || p <= *pad) {
            *pad = p;
            best = d;
        }
    }
    if (*pad < 0)
        *pad = 0;
    return best;
}

typedef struct layout {
    group g[KVPLAN_MAX_ENGINE_GROUPS];
    size_t n;
    int64_t stride, tuple_bytes, most_tuples, padding;
} layout;

/* The buckets: the compressed caches and the indexer's (one UniformType
 * group), then the sliding windows, the ratio-4 states, the ratio-128
 * states, each split into groups of at most d layer tuples. */
static bool build(const kvplan_model *m, int64_t mtp, bool fp4_indexer,
                  layout *l, bool *ovf)
{
    int64_t n4 = 0, n128 = 0, nswa = 0;
    for (size_t i = 0;
         i < m->compress_ratios.count && (int64_t)i < m->info.num_hidden_layers;
         i++) {
        n4 += m->compress_ratios.ids[i] == 4;
        n128 += m->compress_ratios.ids[i] == 128;
        nswa++;
    }
    nswa += mtp;
    int64_t head = m->info.head_dim, ihead = m->dsv4_index_head_dim.value;
    int64_t row = kvplan__dsv4_row_bytes(m->qk_nope_head_dim.value,
                                         m->qk_rope_head_dim.value, ovf);
    int64_t window = m->dsv4_window_size.value;
    int64_t irow =
        fp4_indexer ? ihead / 2 + ihead / 32 : ihead + ihead / 128 * 4;
    group b[4];
    memset(b, 0, sizeof b);
    b[0].spec = KVPLAN_KV_SPEC_MLA;
    if (n4 > 0) {
        b[0].k[b[0].n++] = (kind){
            aligned(kvplan__mul(BLOCK / 4, row, ovf), ovf), n4, BLOCK, 0};
        b[0].k[b[0].n++] = (kind){
            aligned(kvplan__mul(BLOCK / 4, irow, ovf), ovf), n4, BLOCK, 0};
    }
    if (n128 > 0)
        b[0].k[b[0].n++] = (kind){
            aligned(kvplan__mul(BLOCK / 128, row, ovf), ovf), n128, BLOCK, 0};
    b[1].spec = b[2].spec = b[3].spec = KVPLAN_KV_SPEC_SLIDING_WINDOW;
    b[1].k[b[1].n++] = (kind){aligned(kvplan__mul(SWA_BLOCK, row, ovf), ovf),
                              nswa, SWA_BLOCK, window};
    if (n4 > 0) { /* fp32 states, 2 x coff(2) x head a token, 4 a block */
        b[2].k[b[2].n++] = (kind){
            aligned(kvplan__mul(4 * 2 * 2 * 4, head, ovf), ovf), n4, 4, 8};
        b[2].k[b[2].n++] = (kind){
            aligned(kvplan__mul(4 * 2 * 2 * 4, ihead, ovf), ovf), n4, 4, 8};
    }
    if (n128 > 0) /* coff 1, 8 a block */
        b[3].k[b[3].n++] = (kind){
            aligned(kvplan__mul(8 * 2 * 1 * 4, head, ovf), ovf), n128, 8, 128};
    int64_t v[4];
    size_t nv = 0;
    for (size_t i = 0; i < 4; i++)
        if (b[i].n > 0)
            v[nv++] = tuples(&b[i]);
    int64_t d = approximate_gcd(v, nv, &l->padding);
    memset(l->g, 0, sizeof l->g);
    l->n = 0;
    l->g[l->n++] = b[0];
    for (size_t i = 1; i < 4; i++) {
        if (b[i].n == 0)
            continue;
        int64_t t = b[i].k[0].layers; /* every page the same count */
        int64_t parts = kvplan__ceil_div(t, d, ovf);
        if (parts > (int64_t)(KVPLAN_MAX_ENGINE_GROUPS - l->n))
            return false;
        for (int64_t j = 0; j < parts; j++) {
            group s = b[i];
            for (size_t k = 0; k < s.n; k++)
                s.k[k].layers = (t - j + parts - 1) / parts;
            l->g[l->n++] = s;
        }
    }
    l->stride = l->tuple_bytes = l->most_tuples = 0;
    for (size_t i = 0; i < l->n; i++) {
        l->stride = kvplan__max(l->stride, group_bytes(&l->g[i], ovf));
        l->most_tuples = kvplan__max(l->most_tuples, tuples(&l->g[i]));
    }
    for (size_t i = 0; i < b[0].n; i++) { /* its distinct pages */
        bool seen = false;
        for (size_t j = 0; j < i; j++)
            seen |= b[0].k[j].page == b[0].k[i].page;
        if (!seen)
            l->tuple_bytes = kvplan__add(l->tuple_bytes, b[0].k[i].page, ovf);
    }
    return true;
}

/* What one request of `len` is priced in the check: every group's pages
 * at the padded tuple count's bytes */
static int64_t needed(const layout *l, int64_t len, int64_t in_flight,
                      bool *ovf)
{
    int64_t sum = 0;
    int64_t block = kvplan__mul(l->most_tuples, l->tuple_bytes, ovf);
    for (size_t i = 0; i < l->n; i++)
        sum = kvplan__add(
            sum,
            kvplan__mul(group_pages(&l->g[i], len, in_flight, ovf), block, ovf),
            ovf);
    return sum;
}

typedef struct layout_at {
    const layout *l;
    int64_t in_flight;
} layout_at;

static int64_t layout_need(const void *ctx, int64_t len, bool *ovf)
{
    const layout_at *a = ctx;
    return needed(a->l, len, a->in_flight, ovf);
}

/* The longest request up to `most` whose check fits `avail` */
static int64_t fit_len(const layout *l, int64_t most, int64_t in_flight,
                       int64_t avail, bool *ovf)
{
    layout_at a = {l, in_flight};
    return kvplan__vllm_longest(most, avail, layout_need, &a, ovf);
}

int64_t kvplan__vllm_dsv4_mtp(const kvplan_model *m,
                              const kvplan_engine_options *o)
{
    const kvplan_opt_int *nn = &m->info.num_nextn_predict_layers;
    bool eagle = o->speculative_algorithm == KVPLAN_SPEC_EAGLE ||
                 o->speculative_algorithm == KVPLAN_SPEC_EAGLE3;
    return eagle && nn->set && nn->value > 0 ? nn->value : eagle ? 1 : 0;
}

kvplan_status kvplan__vllm_dsv4_plan(const kvplan_model *m,
                                     const kvplan_engine_options *o,
                                     int64_t mtp, bool autofit, int64_t context,
                                     kvplan_engine_plan *p, kvplan_error *err)
{
    KVPLAN__FAIL_IF(o->block_size.set && o->block_size.value != BLOCK, err,
                    KVPLAN_UNSUPPORTED, "--block-size",
                    "--block-size %lld: kvplan plans DeepSeek-V4 under vLLM at "
                    "the sparse FlashMLA backend's block of 256 only",
                    (long long)o->block_size.value);
    KVPLAN__FAIL_IF(o->pp_size > 1, err, KVPLAN_UNSUPPORTED, "--pp-size",
                    "--pp-size %lld: DeepSeek-V4's grouped cache under vLLM's "
                    "pipeline stages is not modelled by kvplan",
                    (long long)o->pp_size);
    bool ovf = false;
    layout l;
    KVPLAN__FAIL_IF(!build(m, mtp, o->fp4_indexer_cache, &l, &ovf), err,
                    KVPLAN_UNSUPPORTED, "/compress_ratios",
                    "this DeepSeek-V4 config's layers make more than %d vLLM "
                    "KV-cache groups, more than kvplan plans",
                    KVPLAN_MAX_ENGINE_GROUPS);
    KVPLAN__FAIL_IF(ovf, err, KVPLAN_OVERFLOW, "/head_dim",
                    "a DeepSeek-V4 page's bytes exceed 64 bits");
    int64_t in_flight = p->max_in_flight_tokens;
    int64_t len = p->max_model_len;
    if (o->num_gpu_blocks_override.set) {
        p->profiled_blocks = p->available_bytes / l.stride;
        p->available_bytes =
            kvplan__mul(o->num_gpu_blocks_override.value, l.stride, &ovf);
    }
    if (autofit)
        p->max_model_len = len =
            fit_len(&l, context, in_flight, p->available_bytes, &ovf);
    /* from 0.29 (#47272) one block, the null block, is not the requests':
     * here one stride */
    int64_t avail = 0;
    KVPLAN__TRY(
        kvplan__vllm_check_memory(p, len, autofit, l.stride, &avail, err));
    int64_t need = needed(&l, len, in_flight, &ovf);
    KVPLAN__FAIL_IF(ovf, err, KVPLAN_OVERFLOW, "--max-model-len",
                    "a request's KV bytes exceed 64 bits");
    if (need > avail)
        return kvplan__vllm_refuse_length(
            len, need, avail, fit_len(&l, len, in_flight, avail, &ovf), err);
    int64_t blocks = o->num_gpu_blocks_override.set
                         ? o->num_gpu_blocks_override.value
                         : p->available_bytes / l.stride;
    if (!o->num_gpu_blocks_override.set)
        p->profiled_blocks = blocks;
    int64_t per_req = 0;
    p->num_groups = 0;
    for (size_t i = 0; i < l.n; i++) {
        const group *g = &l.g[i];
        int64_t pages = group_pages(g, len, in_flight, &ovf);
        int64_t bytes = group_bytes(g, &ovf), layers = 0;
        per_req = kvplan__add(per_req, pages, &ovf);
        for (size_t k = 0; k < g->n; k++)
            layers += g->k[k].layers;
        p->groups[p->num_groups++] =
            (kvplan_engine_group){g->spec,
                                  layers,
                                  0,
                                  bytes,
                                  bytes,
                                  g->k[0].block,
                                  g->k[0].window,
                                  kvplan__mul(pages, bytes, &ovf),
                                  blocks,
                                  0};
    }
    KVPLAN__FAIL_IF(ovf, err, KVPLAN_OVERFLOW, "--max-model-len",
                    "a request's KV bytes exceed 64 bits");
    p->block_size = BLOCK;
    p->packed_groups = true;
    p->group_size = l.most_tuples;
    p->padding_layers = l.padding;
    p->num_gpu_blocks = blocks;
    p->blocks_per_request = per_req;
    p->max_concurrency = (double)blocks / (double)per_req;
    p->kv_cache_tokens = (int64_t)(p->max_concurrency * (double)len);
    p->bytes_per_token = group_bytes(&l.g[0], &ovf) / BLOCK;
    return KVPLAN_OK;
}
