/*
 * test_capacity.c: the plan's capacity (docs/capacity.md) for each
 * configurator, derived here by hand from the geometry and the pools'
 * rules, and the admission call: MHA, MLA, DSA, hybrid SWA, the SWA chunk
 * cap, DeepSeek V4, a mamba hybrid, and a draft.
 */
#include "check.h"
#include "kvplan.h"
#include "plan_options.h"

#include <stdlib.h>
#include <string.h>

static kvplan_plan *plan;

static const kvplan_capacity *plan_of(const char *model, const char *draft,
                                      kvplan_plan_options *o)
{
    kvplan_model *m = NULL, *d = NULL;
    kvplan_error err;
    CHECK_INT(kvplan_model_load(model, &m, &err), KVPLAN_OK);
    if (draft != NULL) {
        CHECK_INT(kvplan_model_load(draft, &d, &err), KVPLAN_OK);
        o->server.speculative_draft_model = d;
    }
    kvplan_status st = kvplan_plan_compute(m, o, plan, &err);
    CHECK_INT(st, KVPLAN_OK);
    if (st != KVPLAN_OK)
        fprintf(stderr, "  %s: %s\n", model, err.message);
    kvplan_model_free(m);
    kvplan_model_free(d);
    o->server.speculative_draft_model = NULL;
    return &plan->capacity;
}

static int64_t cost_of(const kvplan_capacity *c, int64_t prompt, int64_t decode,
                       size_t pool)
{
    int64_t cost[KVPLAN_MAX_POOLS];
    CHECK_INT(kvplan_request_cost(c, prompt, decode, cost, NULL), KVPLAN_OK);
    return cost[pool];
}

/* MHA: llama-3.1-8b, 8 KV heads x (128 + 128) x 2 bytes x 32 layers =
 * 131072 bytes per token; 100000 tokens given. */
static void test_mha(void)
{
    kvplan_plan_options o = on_gpu("H100-80GB");
    o.available_bytes = (kvplan_opt_int){131072LL * 100000, true};
    const kvplan_capacity *c = plan_of("llama-3.1-8b-instruct", NULL, &o);
    CHECK_INT(c->num_pools, 1);
    CHECK_INT(c->pools[0].kind, KVPLAN_POOL_FULL);
    CHECK_INT(c->pools[0].capacity_tokens, 100000);
    CHECK_DOUBLE(c->pools[0].bytes_per_token, 131072.0);
    CHECK_INT(c->pools[0].page_size, 1);
    /* context_len 131072 > 100000 - 1: sglang's max_req_len */
    CHECK_INT(c->longest_request_tokens, 99999);
    CHECK_INT(c->longest_binding, KVPLAN_LIMIT_POOL);
    CHECK_INT(c->max_concurrency_at_context_len, 0);
    CHECK_INT(plan->longest_request, 99999);
    /* at 8192: 100000 // 8192 = 12; max_running_requests is 4096 */
    o.server.context_length = (kvplan_opt_int){8192, true};
    c = plan_of("llama-3.1-8b-instruct", NULL, &o);
    CHECK_INT(c->longest_request_tokens, 8192);
    CHECK_INT(c->longest_binding, KVPLAN_LIMIT_CONTEXT_LEN);
    CHECK_INT(c->max_concurrency_at_context_len, 12);
    CHECK_INT(c->binding, KVPLAN_LIMIT_POOL);
    CHECK_INT(c->binding_pool, 0);
    CHECK_INT(c->max_running_requests, 4096);
    CHECK_INT(c->req_to_token_rows, 4096);
    CHECK_INT(cost_of(c, 1000, 24, 0), 1024);

    /* admission */
    kvplan_admission a;
    kvplan_usage u = {0};
    CHECK_INT(kvplan_admit(c, NULL, 1000, 24, &a, NULL), KVPLAN_OK);
    CHECK(a.admit);
    CHECK_INT(a.refused_by, KVPLAN_LIMIT_NONE);
    CHECK_INT(a.cost[0], 1024);
    u.used[0] = 100000 - 1024; /* exactly the room left */
    CHECK_INT(kvplan_admit(c, &u, 1000, 24, &a, NULL), KVPLAN_OK);
    CHECK(a.admit);
    u.used[0]++;
    CHECK_INT(kvplan_admit(c, &u, 1000, 24, &a, NULL), KVPLAN_OK);
    CHECK(!a.admit);
    CHECK_INT(a.refused_by, KVPLAN_LIMIT_POOL);
    CHECK_INT(a.pool, 0);
    u.used[0] = 0;
    u.running_requests = 4096;
    CHECK_INT(kvplan_admit(c, &u, 1, 1, &a, NULL), KVPLAN_OK);
    CHECK_INT(a.refused_by, KVPLAN_LIMIT_MAX_RUNNING_REQUESTS);
    u.running_requests = 0;
    CHECK_INT(kvplan_admit(c, &u, 8000, 193, &a, NULL), KVPLAN_OK);
    CHECK_INT(a.refused_by, KVPLAN_LIMIT_CONTEXT_LEN);
    CHECK_INT(kvplan_admit(c, &u, 8000, 192, &a, NULL), KVPLAN_OK);
    CHECK(a.admit);
    /* bad arguments are named */
    kvplan_error err;
    CHECK_INT(kvplan_admit(c, &u, -1, 0, &a, &err), KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "prompt");
    CHECK_INT(kvplan_admit(NULL, &u, 1, 0, &a, &err), KVPLAN_INVALID_ARGUMENT);
    /* usage from a confused caller: refused, never overflowed */
    u.used[0] = INT64_MIN;
    CHECK_INT(kvplan_admit(c, &u, 1, 0, &a, &err), KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "usage.used");
    CHECK_CONTAINS(err.message, "full pool");
    u.used[0] = INT64_MAX;
    CHECK_INT(kvplan_admit(c, &u, 1, 0, &a, &err), KVPLAN_OK);
    CHECK_INT(a.refused_by, KVPLAN_LIMIT_POOL);
    u.used[0] = 0;
    u.running_requests = -1;
    CHECK_INT(kvplan_admit(c, &u, 1, 0, &a, &err), KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "usage.running_requests");
    u.running_requests = 0;
    /* a capacity no plan wrote: a ratio below one token per unit */
    kvplan_capacity bad = *c;
    bad.pools[0].tokens_per_unit = 1e-300;
    CHECK_INT(kvplan_request_cost(&bad, 1000, 0, a.cost, &err),
              KVPLAN_OVERFLOW);
    bad.num_pools = 99;
    CHECK_INT(kvplan_request_cost(&bad, 1000, 0, a.cost, &err),
              KVPLAN_INVALID_ARGUMENT);
    CHECK_INT(kvplan_admit(c, &u, 1, 0, NULL, &err), KVPLAN_INVALID_ARGUMENT);
    CHECK_INT(kvplan_request_cost(c, INT64_MAX, 1, a.cost, &err),
              KVPLAN_OVERFLOW);
    CHECK_INT(kvplan_request_cost(c, 1, 1, NULL, &err),
              KVPLAN_INVALID_ARGUMENT);
    /* PD decode: its pre-allocated slots are request rows too */
    kvplan_plan_options d = o;
    d.server.disaggregation_mode = KVPLAN_DISAGG_DECODE;
    d.server.disaggregation_decode_extra_slots = (kvplan_opt_int){7, true};
    c = plan_of("llama-3.1-8b-instruct", NULL, &d);
    CHECK_INT(c->req_to_token_rows, c->max_running_requests + 7);
}

/* MLA: deepseek-v3, (512 + 64) x 2 bytes x 61 layers = 70272 per token,
 * page 64; DSA (v3.2) adds the indexer, 128 + 128 / 128 * 4 = 132 bytes
 * per layer: 61 x (1152 + 132) = 78324. */
static void test_mla_dsa(void)
{
    kvplan_plan_options o = on_gpu("H200");
    o.server.tp_size = 8;
    o.server.page_size = 64;
    o.server.context_length = (kvplan_opt_int){16384, true};
    o.available_bytes = (kvplan_opt_int){70272LL * 64 * 1000, true};
    const kvplan_capacity *c = plan_of("deepseek-v3", NULL, &o);
    CHECK_INT(c->num_pools, 1);
    CHECK_DOUBLE(c->pools[0].bytes_per_token, 70272.0);
    CHECK_INT(c->pools[0].capacity_tokens, 64000);
    CHECK_INT(c->pools[0].page_size, 64);
    CHECK_INT(cost_of(c, 100, 0, 0), 128); /* whole pages */
    CHECK_INT(cost_of(c, 128, 0, 0), 128);
    CHECK_INT(c->max_concurrency_at_context_len, 64000 / 16384);

    o.available_bytes = (kvplan_opt_int){78324LL * 64 * 1000, true};
    c = plan_of("deepseek-v3.2", NULL, &o);
    CHECK_INT(c->num_pools, 1);
    CHECK_DOUBLE(c->pools[0].bytes_per_token, 78324.0);
    CHECK_INT(c->pools[0].capacity_tokens, 64000);
    CHECK_INT(c->max_concurrency_at_context_len, 3);
}

/* Hybrid SWA: gpt-oss-120b, 18 full + 18 sliding layers, 8 heads x (64 +
 * 64) x 2 bytes = 2048 per layer: 36864 per token in each pool. A request
 * holds in the SWA pool its window (127: sglang takes sliding_window - 1
 * for gpt-oss), the eviction interval (128) x 1 draft token, a page (1)
 * and a decode allocation (a page): 257; the pool keeps two prefill
 * chunks (4096 each) and a page for prefill: 8193. */
static void test_hybrid_swa(void)
{
    kvplan_plan_options o = on_gpu("H100-80GB");
    o.server.tp_size = 2;
    o.server.chunked_prefill_size = (kvplan_opt_int){4096, true};
    o.server.context_length = (kvplan_opt_int){32768, true};
    const kvplan_capacity *c = plan_of("gpt-oss-120b", NULL, &o);
    const kvplan_stage_plan *sp = &plan->stages[0];
    CHECK_INT(c->num_pools, 2);
    CHECK_INT(c->pools[0].kind, KVPLAN_POOL_FULL);
    CHECK_INT(c->pools[1].kind, KVPLAN_POOL_SWA);
    /* tp 2: 4 heads: 18 x 4 x 128 x 2 = 18432 */
    CHECK_DOUBLE(c->pools[0].bytes_per_token, 18432.0);
    CHECK_DOUBLE(c->pools[1].bytes_per_token, 18432.0);
    CHECK_INT(c->pools[0].capacity_tokens,
              sp->pools.full_max_total_num_tokens.value);
    CHECK_INT(c->pools[1].capacity_tokens,
              sp->pools.swa_max_total_num_tokens.value);
    CHECK_INT(c->pools[1].request_cap, 257);
    CHECK_INT(plan->chunked_prefill_size, 4096);
    CHECK_INT(c->pools[1].reserved_tokens, 2 * 4096 + 1);
    CHECK_INT(cost_of(c, 100, 50, 1), 150);
    CHECK_INT(cost_of(c, 32000, 768, 1), 257);
    CHECK_INT(cost_of(c, 32000, 768, 0), 32768);
    int64_t full = sp->pools.full_max_total_num_tokens.value;
    int64_t swa = sp->pools.swa_max_total_num_tokens.value;
    int64_t want = full / 32768;
    if ((swa - 8193) / 257 < want)
        want = (swa - 8193) / 257;
    CHECK_INT(c->max_concurrency_at_context_len, want);
    CHECK_INT(c->binding, KVPLAN_LIMIT_POOL);
    CHECK_INT(c->binding_pool, 0); /* the full pool: sliding layers keep
                                      only the window */
    /* a SWA pool of a few windows binds */
    o.server.swa_full_tokens_ratio = (kvplan_opt_double){0.01, true};
    c = plan_of("gpt-oss-120b", NULL, &o);
    swa = plan->stages[0].pools.swa_max_total_num_tokens.value;
    CHECK_INT(c->max_concurrency_at_context_len, (swa - 8193) / 257);
    CHECK_INT(c->binding_pool, 1);
}

/* The SWA chunk cap: 64 requests, no radix cache: the SWA pool is sized
 * for them, 257 x 64 + 2 x 4096 + 1 = 24641 tokens, and holds exactly 64:
 * the pool ties max_running_requests and is named. */
static void test_chunk_cap(void)
{
    kvplan_plan_options o = on_gpu("H100-80GB");
    o.server.tp_size = 2;
    o.server.max_running_requests = (kvplan_opt_int){64, true};
    o.server.chunked_prefill_size = (kvplan_opt_int){4096, true};
    o.server.disable_radix_cache = true;
    o.server.context_length = (kvplan_opt_int){4096, true};
    const kvplan_capacity *c = plan_of("gpt-oss-120b", NULL, &o);
    CHECK_INT(plan->stages[0].configurator.kind,
              KVPLAN_CONFIGURATOR_SWA_CHUNK_CAP);
    CHECK_INT(c->pools[1].capacity_tokens, 257 * 64 + 2 * 4096 + 1);
    CHECK_INT(c->max_running_requests, 64);
    CHECK_INT(c->max_concurrency_at_context_len, 64);
    CHECK_INT(c->binding, KVPLAN_LIMIT_POOL);
    CHECK_INT(c->binding_pool, 1);
    /* the 65th request is refused by max_running_requests, and a 64th
     * by the SWA pool once 63 hold their window and one more chunk is in */
    kvplan_usage u = {.running_requests = 64};
    kvplan_admission a;
    CHECK_INT(kvplan_admit(c, &u, 10, 10, &a, NULL), KVPLAN_OK);
    CHECK_INT(a.refused_by, KVPLAN_LIMIT_MAX_RUNNING_REQUESTS);
    u.running_requests = 63;
    u.used[1] = 63 * 257 + 200;
    CHECK_INT(kvplan_admit(c, &u, 4000, 96, &a, NULL), KVPLAN_OK);
    CHECK_INT(a.refused_by, KVPLAN_LIMIT_POOL);
    CHECK_INT(a.pool, 1);
}

/* DeepSeek V4 Flash on 8 B200: page 256, window 128 (the SWA pool's
 * page), c4 one token per 4, c128 one per 128, the c4 state a ring of 8
 * per SWA page a request holds, the c128 state a ring of 128 per request
 * (sglang's sizes: num_req_slots x ring). */
static void test_dsv4(void)
{
    kvplan_plan_options o = on_gpu("B200");
    o.server.tp_size = 8;
    const kvplan_capacity *c = plan_of("deepseek-v4-flash", NULL, &o);
    const kvplan_pool_config *pc = &plan->stages[0].pools;
    CHECK_INT(c->num_pools, 6);
    CHECK_INT(c->pools[0].kind, KVPLAN_POOL_FULL);
    CHECK_INT(c->pools[1].kind, KVPLAN_POOL_SWA);
    CHECK_INT(c->pools[2].kind, KVPLAN_POOL_C4);
    CHECK_INT(c->pools[3].kind, KVPLAN_POOL_C4_STATE);
    CHECK_INT(c->pools[4].kind, KVPLAN_POOL_C128);
    CHECK_INT(c->pools[5].kind, KVPLAN_POOL_C128_STATE);
    CHECK_INT(c->pools[0].capacity_tokens, pc->full_max_total_num_tokens.value);
    CHECK_INT(c->pools[2].capacity_tokens, pc->c4_max_total_num_tokens);
    CHECK_INT(c->pools[4].capacity_tokens, pc->c128_max_total_num_tokens);
    CHECK_INT(c->pools[3].capacity_tokens, pc->c4_state_pool_size);
    CHECK_INT(c->pools[5].capacity_tokens, pc->c128_state_pool_size);
    CHECK_DOUBLE(c->pools[0].bytes_per_token,
                 plan->stages[0].configurator.bytes_per_full_token);
    CHECK_INT(plan->page_size, 256);
    CHECK_INT(c->pools[1].page_size, 128);
    CHECK_INT(c->pools[2].page_size, 64);
    CHECK_INT(c->pools[4].page_size, 2);
    /* a request of 1000 + 24 tokens: 1024 full, 1024 / 4, 1024 / 128;
     * SWA: window 128 + 128 x 1 + a page (256) + a decode page (256) = 768;
     * c4 state: 768 / 128 pages x 8; c128 state: 128 */
    CHECK_INT(cost_of(c, 1000, 24, 0), 1024);
    CHECK_INT(cost_of(c, 1000, 24, 1), 768);
    CHECK_INT(cost_of(c, 1000, 24, 2), 256);
    CHECK_INT(cost_of(c, 1000, 24, 3), 48);
    CHECK_INT(cost_of(c, 1000, 24, 4), 8);
    CHECK_INT(cost_of(c, 1000, 24, 5), 128);
    CHECK_INT(cost_of(c, 100, 0, 1), 256); /* one page of the plan */
    /* at context_len 1048576: the full pool binds (the others hold a
     * fraction of it) */
    CHECK_INT(c->context_len, 1048576);
    CHECK_INT(c->max_concurrency_at_context_len,
              pc->full_max_total_num_tokens.value / 1048576);
    CHECK_INT(c->binding, KVPLAN_LIMIT_POOL);
    CHECK_INT(c->binding_pool, 0);
    /* c128 state: 256 requests + 1 slot, 128 each: never the one */
    CHECK_INT(pc->c128_state_pool_size, (c->max_running_requests + 1) * 128);
}

/* A mamba hybrid: nemotron-3-nano, radix cache and the overlap schedule:
 * 5 slots per request (sglang's mamba ratio, extra_buffer). At a short
 * context the mamba slots bind max_running_requests. */
static void test_mamba(void)
{
    kvplan_plan_options o = on_gpu("H100-80GB");
    o.server.context_length = (kvplan_opt_int){4096, true};
    const kvplan_capacity *c = plan_of("nemotron-3-nano-30b-a3b", NULL, &o);
    CHECK_INT(c->num_pools, 2);
    CHECK_INT(c->pools[1].kind, KVPLAN_POOL_MAMBA);
    CHECK_INT(c->pools[1].capacity_tokens,
              plan->stages[0].max_mamba_cache_size);
    CHECK_INT(c->pools[1].per_request, 5);
    CHECK_INT(cost_of(c, 4096, 0, 1), 5);
    CHECK_INT(c->max_running_requests,
              plan->stages[0].max_mamba_cache_size / 5);
    CHECK_INT(c->max_concurrency_at_context_len, c->max_running_requests);
    CHECK_INT(c->binding, KVPLAN_LIMIT_POOL);
    CHECK_INT(c->binding_pool, 1);
    /* one slot's bytes, as the budget priced the state */
    CHECK_DOUBLE(c->pools[1].bytes_per_token *
                     (double)c->pools[1].capacity_tokens,
                 (double)plan->stages[0].allocation.mamba_state_bytes);
    /* without the radix cache, one slot per request */
    o.server.disable_radix_cache = true;
    c = plan_of("nemotron-3-nano-30b-a3b", NULL, &o);
    CHECK_INT(c->pools[1].per_request, 1);
}

/* A draft: EAGLE3 on llama-3.1-8b prices its one layer into the full
 * pool's token: 4096 x (32 + 1) = 135168; it shares the target's tokens. */
static void test_draft(void)
{
    kvplan_plan_options o = on_gpu("H100-80GB");
    o.server.speculative_algorithm = KVPLAN_SPEC_EAGLE3;
    o.server.context_length = (kvplan_opt_int){8192, true};
    o.available_bytes = (kvplan_opt_int){135168LL * 50000, true};
    const kvplan_capacity *c =
        plan_of("llama-3.1-8b-instruct", "eagle3-llama3.1-8b", &o);
    CHECK_INT(c->num_pools, 1);
    CHECK_DOUBLE(c->pools[0].bytes_per_token, 135168.0);
    CHECK_INT(c->pools[0].capacity_tokens, 50000);
    CHECK_INT(c->max_concurrency_at_context_len, 50000 / 8192);
}

int main(void)
{
    plan = malloc(sizeof *plan);
    test_mha();
    test_mla_dsa();
    test_hybrid_swa();
    test_chunk_cap();
    test_dsv4();
    test_mamba();
    test_draft();
    free(plan);
    return check_report();
}
