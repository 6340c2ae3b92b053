/*
 * trtllm_v2_storage.c: how TensorRT-LLM's KV cache manager V2 lays its
 * layers out and splits its GPU quota (docs/engines.md, "KV cache manager
 * V2"), restated from tensorrt_llm/runtime/kv_cache_manager_v2 as stored in
 * 2026:
 *
 * - a life cycle per distinct (window, sink blocks) over the layers, in
 *   the layers' order (LifeCycleRegistry, _life_cycle_registry.py);
 * - each life cycle's buffers coalesced by size, the coalesced sizes in
 *   descending order making its slot, and life cycles of equal slot size
 *   lists sharing a pool group (create_storage_config,
 *   _storage/_config.py);
 * - the pool groups' initial shares from the bytes a typical step needs
 *   (no typical_step, constraints or pool_ratio given: one request of
 *   capacity 2049 with 2048 tokens of history; ratio_from_batch,
 *   _compute_slots_for_batch, _slots_to_bytes in _storage_manager.py),
 *   at least one slot per life cycle (_compute_min_slots_from_constraints);
 * - the quota split by those shares (CacheLevelStorage.
 *   ratio_to_slot_count_list, _storage/_core.py).
 *
 * The split is V2's initial one: it moves the shares at run time as
 * requests close (KVCacheManager's moving averages of their lengths).
 */
#include "engine/engine.h"

#include <math.h>
#include <string.h>

/* cache_tier_granularity for the GPU: 2 MiB << min(4, max(0,
 * int(math.log(quota / (2 MiB * 512), 2)))); Python's two-argument log is
 * log(x) / log(2), and int() truncates toward zero. */
int64_t kvplan__trtllm_v2_grain(int64_t quota)
{
    double x = (double)quota / (double)(INT64_C(2) << 29);
    double l = log(x) / log(2.0);
    int k = l >= 4 ? 4 : l > 0 ? (int)l : 0;
    return (INT64_C(2) << 20) << k;
}

/* The grains `n` slots take: each pool rounded up to a grain
 * (_grains_for_slots). */
int64_t kvplan__trtllm_v2_grains(int64_t n, const int64_t *size, size_t pools,
                                 int64_t g, bool *ovf)
{
    int64_t sum = 0;
    for (size_t i = 0; i < pools; i++)
        sum = kvplan__add(
            sum, kvplan__ceil_div(kvplan__mul(n, size[i], ovf), g, ovf), ovf);
    return sum;
}

/* The most slots whose pools fit `grains` (_grains_to_slots and the
 * bump that follows it in ratio_to_slot_count_list: the largest n with
 * kvplan__trtllm_v2_grains(n) <= grains, which the sum's monotony makes a
 * bisection). */
int64_t kvplan__trtllm_v2_slots(int64_t grains, const int64_t *size,
                                size_t pools, int64_t g, bool *ovf)
{
    int64_t least = size[0];
    for (size_t i = 1; i < pools; i++)
        least = size[i] < least ? size[i] : least;
    int64_t lo = 0, hi = kvplan__mul(grains, g, ovf) / least + 1;
    while (lo + 1 < hi && !*ovf) {
        int64_t mid = lo + (hi - lo) / 2;
        if (kvplan__trtllm_v2_grains(mid, size, pools, g, ovf) <= grains)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The index of the life cycle of `window` (s->life_cycles: none yet) */
static size_t life_cycle_of(const kvplan__trtllm_v2_storage *s, int64_t window)
{
    size_t i = 0;
    while (i < s->life_cycles && s->lc[i].window != window)
        i++;
    return i;
}

kvplan_status kvplan__trtllm_v2_add_buffers(kvplan__trtllm_v2_storage *s,
                                            int64_t window,
                                            const int64_t *block, size_t n,
                                            kvplan_error *err)
{
    size_t i = life_cycle_of(s, window);
    if (i == s->life_cycles) {
        KVPLAN__FAIL_IF(i >= KVPLAN_MAX_ENGINE_GROUPS, err, KVPLAN_UNSUPPORTED,
                        "--max-attention-window",
                        "--max-attention-window: more than %d distinct "
                        "windows",
                        KVPLAN_MAX_ENGINE_GROUPS);
        memset(&s->lc[i], 0, sizeof s->lc[i]);
        s->lc[i].window = window;
        s->life_cycles++;
    }
    kvplan__trtllm_v2_life_cycle *lc = &s->lc[i];
    lc->layers++;
    for (size_t r = 0; r < n; r++) {
        if (block[r] == 0)
            continue;
        size_t j = 0;
        while (j < lc->sizes && lc->size[j] != block[r])
            j++;
        KVPLAN__FAIL_IF(j >= KVPLAN__V2_MAX_POOLS, err, KVPLAN_UNSUPPORTED,
                        "--model-path",
                        "KV cache manager V2: more than %d buffer sizes in "
                        "one life cycle",
                        KVPLAN__V2_MAX_POOLS);
        if (j == lc->sizes) {
            lc->size[j] = block[r];
            lc->count[j] = 0;
            lc->sizes++;
        }
        lc->count[j]++;
    }
    return kvplan__ok(err);
}

kvplan_status kvplan__trtllm_v2_add_layer(kvplan__trtllm_v2_storage *s,
                                          int64_t window, int64_t k, int64_t v,
                                          int64_t x, int64_t tpb,
                                          kvplan_error *err)
{
    bool ovf = false;
    /* K's buffer, then V's (none for MLA's latent), then the extra
     * (_extra_buffers_per_layer), each a block */
    int64_t block[3] = {kvplan__mul(k, tpb, &ovf), kvplan__mul(v, tpb, &ovf),
                        kvplan__mul(x, tpb, &ovf)};
    KVPLAN__FAIL_IF(ovf, err, KVPLAN_OVERFLOW, "--tokens-per-block",
                    "--tokens-per-block %lld: a layer's block exceeds 64 bits",
                    (long long)tpb);
    KVPLAN__TRY(kvplan__trtllm_v2_add_buffers(s, window, block, 3, err));
    kvplan__trtllm_v2_life_cycle *lc = &s->lc[life_cycle_of(s, window)];
    lc->per_token = kvplan__add(
        lc->per_token, kvplan__add(kvplan__add(k, v, &ovf), x, &ovf), &ovf);
    KVPLAN__FAIL_IF(ovf, err, KVPLAN_OVERFLOW, "--model-path",
                    "the KV bytes per token exceed 64 bits");
    return kvplan__ok(err);
}

void kvplan__trtllm_v2_share(kvplan__trtllm_v2_storage *s, int64_t window,
                             const int64_t *block, size_t n)
{
    size_t i = life_cycle_of(s, window);
    if (i == s->life_cycles)
        return;
    kvplan__trtllm_v2_life_cycle *lc = &s->lc[i];
    for (size_t j = 0; j < lc->sizes; j++) {
        int64_t mine = 0; /* the layer's buffers in pool j */
        for (size_t r = 0; r < n; r++)
            mine += block[r] == lc->size[j];
        /* mine / count[j] above share_num / share_den, crosswise */
        if (mine > 0 && (lc->share_den == 0 ||
                         mine * lc->share_den > lc->share_num * lc->count[j])) {
            lc->share_num = mine;
            lc->share_den = lc->count[j];
        }
    }
}

kvplan_status kvplan__trtllm_v2_add_ssm(kvplan__trtllm_v2_storage *s,
                                        int64_t layers, int64_t ssm,
                                        int64_t conv, kvplan_error *err)
{
    KVPLAN__FAIL_IF(s->life_cycles >= KVPLAN_MAX_ENGINE_GROUPS, err,
                    KVPLAN_UNSUPPORTED, "--model-path",
                    "KV cache manager V2: more than %d life cycles",
                    KVPLAN_MAX_ENGINE_GROUPS);
    kvplan__trtllm_v2_life_cycle *lc = &s->lc[s->life_cycles++];
    memset(lc, 0, sizeof *lc);
    lc->window = KVPLAN__V2_SSM;
    lc->layers = layers;
    /* SSM_STATE's buffer, then CONV_STATE's (_get_recurrent_buffer_configs),
     * one of each a layer, coalesced by size */
    int64_t role[2] = {ssm, conv};
    for (size_t r = 0; r < 2; r++) {
        if (role[r] == 0)
            continue;
        size_t j = 0;
        while (j < lc->sizes && lc->size[j] != role[r])
            j++;
        if (j == lc->sizes) {
            lc->size[j] = role[r];
            lc->count[j] = 0;
            lc->sizes++;
        }
        lc->count[j] += layers;
    }
    return kvplan__ok(err);
}

/* Each life cycle's slot (coalesced sizes, descending, stable as Python's
 * sort), then the pool groups: life cycles of equal slot size lists, in
 * the order their lists first appear. */
bool kvplan__trtllm_v2_group(kvplan__trtllm_v2_storage *s)
{
    bool ovf = false;
    s->groups = 0;
    for (size_t i = 0; i < s->life_cycles; i++) {
        kvplan__trtllm_v2_life_cycle *lc = &s->lc[i];
        lc->pools = lc->sizes;
        for (size_t j = 0; j < lc->sizes; j++) {
            int64_t cb = kvplan__mul(lc->size[j], lc->count[j], &ovf);
            size_t at = j; /* insertion: after the larger or equal */
            while (at > 0 && lc->pool[at - 1] < cb) {
                lc->pool[at] = lc->pool[at - 1];
                at--;
            }
            lc->pool[at] = cb;
        }
        size_t g = 0;
        while (g < s->groups && !(s->pg[g].pools == lc->pools &&
                                  memcmp(s->pg[g].size, lc->pool,
                                         lc->pools * sizeof lc->pool[0]) == 0))
            g++;
        if (g == s->groups) {
            memset(&s->pg[g], 0, sizeof s->pg[g]);
            s->pg[g].pools = lc->pools;
            memcpy(s->pg[g].size, lc->pool, lc->pools * sizeof lc->pool[0]);
            s->groups++;
        }
        lc->group = g;
        s->pg[g].least++;
    }
    return !ovf;
}

/* The blocks one request of `capacity` tokens with `history` of them
 * behind it holds in a life cycle (no system prompt shared, no scratch):
 * its blocks less the stale ones, [min(blocks of history, sink blocks),
 * (history + 1 - window) // tpb) of a windowed one
 * (AttnLifeCycle.get_stale_range). */
/* AttnLifeCycle.get_stale_range of a windowed life cycle with `history`
 * tokens past: [min(blocks of history, sink blocks), max(that, (history +
 * 1 - window) // tpb)), into *start and *end. */
static void stale_range(int64_t window, int64_t sink_blocks, int64_t history,
                        int64_t tpb, int64_t *start, int64_t *end, bool *ovf)
{
    *start = kvplan__min(kvplan__ceil_div(history, tpb, ovf), sink_blocks);
    *end = kvplan__max(
        *start,
        kvplan__floordiv(kvplan__sub(kvplan__add(history, 1, ovf), window, ovf),
                         tpb, ovf));
}

int64_t kvplan__trtllm_v2_request_blocks(int64_t window, int64_t sink_blocks,
                                         int64_t capacity, int64_t history,
                                         int64_t tpb, bool *ovf)
{
    int64_t blocks = kvplan__ceil_div(capacity, tpb, ovf);
    if (window == 0)
        return blocks;
    int64_t start, end;
    stale_range(window, sink_blocks, history, tpb, &start, &end, ovf);
    return blocks - (end - start);
}

/* round_up(n x size, g) over a pool group's pools: its bytes
 * (_slots_to_bytes) */
static int64_t group_bytes(const kvplan__trtllm_v2_pool_group *pg, int64_t n,
                           int64_t g, bool *ovf)
{
    return kvplan__mul(kvplan__trtllm_v2_grains(n, pg->size, pg->pools, g, ovf),
                       g, ovf);
}

/* A tier's quota for the split (_compute_slot_count_for_level): `quota`
 * rounded up to the grain, at least what the pool groups' least slots
 * take. */
static int64_t level_quota(const kvplan__trtllm_v2_pool_group *pg,
                           size_t groups, int64_t quota, int64_t g, bool *ovf)
{
    int64_t least = 0;
    for (size_t i = 0; i < groups; i++)
        least =
            kvplan__add(least, group_bytes(&pg[i], pg[i].least, g, ovf), ovf);
    return kvplan__max(least,
                       kvplan__mul(kvplan__ceil_div(quota, g, ovf), g, ovf));
}

/* Python's sum() of floats since 3.12: Neumaier's compensated sum. */
static double python_sum(const double *x, const size_t *at, size_t n)
{
    double sum = 0.0, c = 0.0;
    for (size_t i = 0; i < n; i++) {
        double t = sum + x[at[i]];
        if (fabs(sum) >= fabs(x[at[i]]))
            c += (sum - t) + x[at[i]];
        else
            c += (x[at[i]] - t) + sum;
        sum = t;
    }
    return c != 0.0 && isfinite(c) ? sum + c : sum;
}

/* _grains_to_slots: the most slots whose pools fit `grains`, and the
 * grains they take (0, 0 where one slot does not fit) */
static int64_t grains_to_slots(int64_t grains,
                               const kvplan__trtllm_v2_pool_group *pg,
                               int64_t g, int64_t *used, bool *ovf)
{
    int64_t n = kvplan__trtllm_v2_slots(grains, pg->size, pg->pools, g, ovf);
    *used = kvplan__trtllm_v2_grains(n, pg->size, pg->pools, g, ovf);
    return n;
}

int kvplan__trtllm_v2_split(int64_t quota, kvplan__trtllm_v2_pool_group *pg,
                            size_t groups, const double *ratio, int64_t g,
                            bool *ovf)
{
    size_t active[KVPLAN_MAX_ENGINE_GROUPS], order[KVPLAN_MAX_ENGINE_GROUPS];
    size_t na = groups;
    for (size_t i = 0; i < groups; i++) {
        active[i] = i;
        pg[i].slots = 0;
    }
    int64_t remaining = quota / g;
    while (na > 0) {
        /* the remaining grains by share, the smallest share first */
        double r[KVPLAN_MAX_ENGINE_GROUPS];
        int64_t slots[KVPLAN_MAX_ENGINE_GROUPS], used;
        for (size_t i = 0; i < na; i++) {
            r[i] = ratio[active[i]];
            size_t at = i; /* a stable insertion sort by share */
            while (at > 0 && r[order[at - 1]] > r[i]) {
                order[at] = order[at - 1];
                at--;
            }
            order[at] = i;
        }
        int64_t budget = remaining;
        for (size_t i = 0; i < na; i++) {
            size_t idx = order[i];
            double pct = r[idx] / python_sum(r, order + i, na - i);
            int64_t want = (int64_t)nearbyint((double)budget * pct);
            slots[idx] = grains_to_slots(want, &pg[active[idx]], g, &used, ovf);
            budget -= used;
        }
        size_t keep = 0;
        for (size_t i = 0; i < na; i++) {
            kvplan__trtllm_v2_pool_group *p = &pg[active[i]];
            if (slots[i] > p->least) {
                active[keep] = active[i];
                slots[keep++] = slots[i];
                continue;
            }
            /* pinned: the most slots its least slots' grains hold */
            int64_t least =
                kvplan__trtllm_v2_grains(p->least, p->size, p->pools, g, ovf);
            p->slots = grains_to_slots(least, p, g, &used, ovf);
            remaining -= used;
        }
        if (keep == na) {
            for (size_t i = 0; i < na; i++)
                pg[active[i]].slots = slots[i];
            break;
        }
        if (keep == 0)
            break;
        if (remaining <= 0)
            return -1; /* "Insufficient quota to satisfy min_slots" */
        na = keep;
    }
    /* the bump: more slots while they fit the grains they take */
    for (size_t i = 0; i < groups && !*ovf; i++) {
        int64_t now = kvplan__trtllm_v2_grains(pg[i].slots, pg[i].size,
                                               pg[i].pools, g, ovf);
        while (!*ovf && kvplan__trtllm_v2_grains(pg[i].slots + 1, pg[i].size,
                                                 pg[i].pools, g, ovf) <= now)
            pg[i].slots++;
    }
    return 0;
}

/* The blocks of a request of `capacity` tokens, `history` past, that take
 * scratch slots in a windowed life cycle (compute_scratch_range,
 * _life_cycle_registry.py): those stale once all but the last `rewind`
 * tokens are history, among the blocks this step writes. */
static int64_t scratch_blocks(const kvplan__trtllm_v2_life_cycle *lc,
                              int64_t capacity, int64_t history, int64_t tpb,
                              int64_t rewind, bool *ovf)
{
    int64_t start, end;
    stale_range(lc->window, lc->sink_blocks, kvplan__max(0, capacity - rewind),
                tpb, &start, &end, ovf);
    int64_t first = kvplan__max(start, kvplan__ceil_div(history, tpb, ovf));
    int64_t last = kvplan__min(end, kvplan__ceil_div(capacity, tpb, ovf));
    return last > first ? last - first : 0;
}

/* The slots `batch` needs of each pool group, into pg[].typical: the SSM
 * life cycle one a request, dummies too, whatever their length; an
 * attention one each request's blocks less the stale (none of a dummy's)
 * (_compute_slots_for_batch, no system prompt shared). */
static void batch_slots(kvplan__trtllm_v2_storage *s,
                        const kvplan__trtllm_v2_step *batch, int64_t tpb,
                        bool *ovf)
{
    for (size_t i = 0; i < s->groups; i++)
        s->pg[i].typical = 0;
    for (size_t i = 0; i < s->life_cycles; i++) {
        const kvplan__trtllm_v2_life_cycle *lc = &s->lc[i];
        int64_t n = 0;
        for (size_t k = 0; k < batch->kinds; k++) {
            int64_t cap = batch->kind[k].capacity;
            int64_t hist = batch->kind[k].history;
            int64_t each =
                lc->window == KVPLAN__V2_SSM
                    ? 1
                    : kvplan__trtllm_v2_request_blocks(
                          lc->window, lc->sink_blocks, cap, hist, tpb, ovf);
            if (s->scratch && lc->window > 0 && lc->share_den > 0) {
                int64_t sc = scratch_blocks(lc, cap, hist, tpb, s->rewind, ovf);
                each = each - sc +
                       kvplan__ceil_div(kvplan__mul(sc, lc->share_num, ovf),
                                        lc->share_den, ovf);
            }
            n = kvplan__add(n, kvplan__mul(batch->kind[k].count, each, ovf),
                            ovf);
        }
        s->pg[lc->group].typical =
            kvplan__add(s->pg[lc->group].typical, n, ovf);
    }
}

void kvplan__trtllm_v2_constrain(kvplan__trtllm_v2_storage *s,
                                 const kvplan__trtllm_v2_step *batch,
                                 int64_t tpb, bool *ovf)
{
    batch_slots(s, batch, tpb, ovf);
    for (size_t i = 0; i < s->groups; i++)
        s->pg[i].least = kvplan__max(s->pg[i].least, s->pg[i].typical);
}

int kvplan__trtllm_v2_allocate(kvplan__trtllm_v2_storage *s, int64_t quota,
                               int64_t tpb, const kvplan__trtllm_v2_step *step,
                               int64_t *grain, bool *ovf)
{
    int64_t g = kvplan__trtllm_v2_grain(quota);
    *grain = g;
    /* the typical step's slots and bytes, a pool group's share of them */
    int64_t bytes[KVPLAN_MAX_ENGINE_GROUPS], total = 0;
    batch_slots(s, step, tpb, ovf);
    for (size_t i = 0; i < s->groups; i++) {
        bytes[i] = group_bytes(&s->pg[i], s->pg[i].typical, g, ovf);
        total = kvplan__add(total, bytes[i], ovf);
    }
    for (size_t i = 0; i < s->groups; i++)
        s->ratio[i] = (double)bytes[i] / (double)total;
    int64_t level = level_quota(s->pg, s->groups, quota, g, ovf);
    if (*ovf)
        return 0;
    return kvplan__trtllm_v2_split(level, s->pg, s->groups, s->ratio, g, ovf);
}

int kvplan__trtllm_v2_allocate_host(kvplan__trtllm_v2_storage *s, int64_t quota,
                                    bool *ovf)
{
    const int64_t g = 4096;
    kvplan__trtllm_v2_pool_group pg[KVPLAN_MAX_ENGINE_GROUPS];
    memcpy(pg, s->pg, s->groups * sizeof pg[0]);
    int64_t level = level_quota(pg, s->groups, quota, g, ovf);
    if (*ovf)
        return 0;
    int rc = kvplan__trtllm_v2_split(level, pg, s->groups, s->ratio, g, ovf);
    for (size_t i = 0; i < s->groups; i++)
        s->pg[i].host = rc == 0 ? pg[i].slots : 0;
    return rc;
}

/* _estimate_full_attn_size_per_token and _estimate_swa_cache_size
 * (kv_cache_manager_v2.py, no scratch reuse): the full layers' bytes a
 * token; a windowed layer's a token while in context, and its
 * ceil(window / tpb) blocks' a request in generation. */
void kvplan__trtllm_v2_costs(const kvplan__trtllm_v2_storage *s, int64_t tpb,
                             int64_t costs[3], bool *ovf)
{
    costs[0] = costs[1] = costs[2] = 0;
    for (size_t i = 0; i < s->life_cycles; i++) {
        const kvplan__trtllm_v2_life_cycle *lc = &s->lc[i];
        if (lc->window == KVPLAN__V2_SSM)
            continue; /* the states: no bytes a token */
        if (lc->window == 0) {
            costs[0] = kvplan__add(costs[0], lc->per_token, ovf);
            continue;
        }
        costs[1] = kvplan__add(costs[1], lc->per_token, ovf);
        int64_t window_tokens =
            kvplan__mul(kvplan__ceil_div(lc->window, tpb, ovf), tpb, ovf);
        costs[2] = kvplan__add(
            costs[2], kvplan__mul(window_tokens, lc->per_token, ovf), ovf);
    }
}
