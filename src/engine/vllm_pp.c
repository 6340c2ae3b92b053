/*
 * vllm_pp.c: vLLM's KV cache under pipeline parallelism (docs/engines.md):
 * each worker's layers of the whole model's groups, the stage one request
 * needs the most of, and the fewest blocks a stage's memory holds.
 */
#include "engine/vllm_spec.h"

/*
 * vLLM groups the layers of the whole model (get_kv_cache_groups on every
 * worker's specs merged), then each worker sizes its cache from the groups'
 * layers it holds: num_blocks = its memory // page // its largest group's
 * layers there, the least over the workers (get_kv_cache_configs). Layers
 * of one kind clustered on one stage make that stage's groups fuller than
 * an even share (vLLM's test_get_kv_cache_configs_multiple_workers: full,
 * full | sliding, sliding at PP 2 is 10 blocks, not 20). A kind's layers
 * are dealt to its groups in turn (_get_kv_cache_groups_uniform_page_size:
 * layers[i::num_groups]), which spreads each group over the stages. */

/* get_pp_indices: L // pp layers a stage, the remainder given from the
 * second-to-last stage back (stages pp - 1 - rem to pp - 2 one more). */
static void pp_range(int64_t L, int64_t pp, int64_t rank, int64_t *start,
                     int64_t *end)
{
    int64_t base = L / pp, rem = L % pp, first = pp - 1 - rem;
    int64_t before = (rank < pp - 1 ? rank : pp - 1) - first;
    *start = rank * base + (before > 0 ? before : 0);
    *end = *start + base + (rank >= first && rank < pp - 1);
}

/* The first stage that holds a layer: with more stages than layers, the
 * ones before pp - 1 - L hold none (and the last the drafts'); a stage
 * with no layer needs nothing and bounds nothing, so the loops over the
 * stages start there and take at most L + 1 of them, whatever pp is. */
static int64_t first_stage(int64_t L, int64_t pp)
{
    return pp > L + 1 ? pp - 1 - L : 0;
}

/* Whether `id` is in the ascending `ids`, from *at on (a cursor). */
static bool listed(const kvplan_ids *ids, int64_t id, size_t *at)
{
    while (*at < ids->count && ids->ids[*at] < id)
        (*at)++;
    return *at < ids->count && ids->ids[*at] == id;
}

/* Spec s's layers below `end` (its layers in model order; a draft's
 * past the model's, on the last stage). */
static int64_t layers_below(const kvplan__engine_census *c,
                            const kvplan__vllm_spec *s, int64_t end)
{
    bool sliding = s->kind == KVPLAN_KV_SPEC_SLIDING_WINDOW;
    bool mamba = s->kind == KVPLAN_KV_SPEC_MAMBA;
    int64_t n = 0;
    size_t at = 0;
    for (int64_t id = 0; id < c->model_layers && id < end && n < s->layers;
         id++) {
        bool in = sliding       ? listed(&c->swa_at, id, &at)
                  : mamba       ? !listed(&c->attn_at, id, &at)
                  : c->mambaish ? listed(&c->attn_at, id, &at)
                                : !listed(&c->swa_at, id, &at);
        n += in;
    }
    /* a draft's layers (beyond the model's): on the last stage */
    if (s->draft)
        n = 0;
    if (end > c->model_layers)
        n = s->layers;
    return n;
}

/* Stage r's layers of each spec into cnt[]. */
static void stage_layers(const kvplan__engine_census *c,
                         const kvplan__vllm_spec *s, size_t n, int64_t pp,
                         int64_t r, int64_t *cnt)
{
    int64_t start, end;
    pp_range(c->model_layers, pp, r, &start, &end);
    if (r == pp - 1)
        end = INT64_MAX; /* the drafts' layers too */
    for (size_t i = 0; i < n; i++)
        cnt[i] = layers_below(c, &s[i], end) - layers_below(c, &s[i], start);
}

/* The stage one request needs the most of (check_enough_kv_cache_memory
 * on each worker): its layers of each spec into t[]. */
void kvplan__vllm_pp_binding_stage(const kvplan__engine_census *c,
                                   const kvplan__vllm_spec *s, size_t n,
                                   int64_t pp, int64_t len, int64_t mnbt,
                                   kvplan__vllm_spec *t, bool *ovf)
{
    int64_t most = -1, cnt[5];
    for (int64_t r = first_stage(c->model_layers, pp); r < pp; r++) {
        stage_layers(c, s, n, pp, r, cnt);
        int64_t sum = 0;
        for (size_t i = 0; i < n; i++)
            sum = kvplan__add(
                sum,
                kvplan__mul(kvplan__vllm_usage(&s[i], len, mnbt, ovf), cnt[i],
                            ovf),
                ovf);
        if (sum > most) {
            most = sum;
            for (size_t i = 0; i < n; i++)
                t[i].layers = cnt[i];
        }
    }
}

/* The fewest blocks a stage's memory holds: its pages summed with one
 * group (g 0); else its fullest group there, spec i's layers dealt to its
 * cdiv(layers, g) groups in turn (layers[j::groups], so a stage's run of
 * cnt layers puts at most cdiv(cnt, groups) in one). */
int64_t kvplan__vllm_pp_blocks(const kvplan__engine_census *c,
                               const kvplan__vllm_spec *s, size_t n, int64_t pp,
                               int64_t g, int64_t avail, bool *ovf)
{
    int64_t blocks = INT64_MAX, cnt[5];
    for (int64_t r = first_stage(c->model_layers, pp); r < pp; r++) {
        stage_layers(c, s, n, pp, r, cnt);
        int64_t per = 0;
        for (size_t i = 0; i < n; i++) {
            if (g <= 0) {
                per =
                    kvplan__add(per, kvplan__mul(s[i].page, cnt[i], ovf), ovf);
                continue;
            }
            int64_t groups = kvplan__ceil_div(s[i].layers, g, ovf);
            per = kvplan__max(
                per, kvplan__mul(s[i].page,
                                 kvplan__ceil_div(cnt[i], groups, ovf), ovf));
        }
        if (per > 0)
            blocks = kvplan__min(blocks, avail / per);
    }
    return blocks == INT64_MAX ? 0 : blocks;
}
