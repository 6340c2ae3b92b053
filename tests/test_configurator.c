/*
 * test_configurator.c: the four configurators on hand-worked cases.
 *
 * Each expected value is derived by hand beside the check, from the rules in
 * the seed and docs/sglang-rules.md (the worked examples of
 * §0.5 among them); none is copied from kvplan's own output.
 */
#include "check.h"
#include "kvplan.h"

#include <math.h>

#define OPT(v) ((kvplan_opt_int){(v), true})
#define GiB100 107374182400LL /* 100 GiB: the spec's worked examples */

static kvplan_rank gqa(int64_t layers, int64_t kv_heads, int64_t head_dim)
{
    kvplan_rank r;
    kvplan_rank_init(&r);
    r.runner.kv_cache_dtype = KVPLAN_DTYPE_BFLOAT16;
    r.runner.end_layer = layers;
    r.runner.num_effective_layers = layers;
    r.runner.page_size = 1;
    r.model.num_key_value_heads = kv_heads;
    r.model.head_dim = OPT(head_dim);
    return r;
}

static kvplan_rank mla(int64_t layers)
{
    kvplan_rank r = gqa(layers, 1, 192);
    r.runner.use_mla_backend = true;
    r.model.kv_lora_rank = OPT(512);
    r.model.qk_rope_head_dim = OPT(64);
    return r;
}

/* Builds the configurator and checks its kind. */
static kvplan_configurator build(const kvplan_rank *r,
                                 kvplan_configurator_kind kind)
{
    kvplan_configurator c;
    kvplan_error err;
    kvplan_status st = kvplan_configurator_init(&c, r, &err);
    CHECK_INT(st, KVPLAN_OK);
    if (st != KVPLAN_OK)
        fprintf(stderr, "  %s\n", err.message);
    CHECK_INT(c.kind, kind);
    return c;
}

static int64_t tokens_for(const kvplan_configurator *c, int64_t bytes,
                          int64_t page)
{
    kvplan_pool_config cfg;
    CHECK_INT(kvplan_calculate_pool_sizes(c, bytes, page, &cfg, NULL),
              KVPLAN_OK);
    return cfg.max_total_num_tokens;
}

/* docs/sglang-rules.md §0.5: Llama-3.1-8B, bf16, 32 layers, 8 KV heads of 128.
 */
static void test_llama_3_1_8b(void)
{
    kvplan_rank r = gqa(32, 8, 128);
    kvplan_configurator c = build(&r, KVPLAN_CONFIGURATOR_DEFAULT);
    CHECK_INT(c.cell_size_bytes, 131072); /* 8 * (128 + 128) * 32 * 2 */
    CHECK(!c.cell_size_is_float);
    /* the terms the coefficient is made of */
    CHECK_INT(c.terms.kv_heads, 8);
    CHECK_INT(c.terms.kv_dtype_bytes, 2);
    CHECK_INT(c.terms.num_layers, 32);
    CHECK_INT(c.terms.priced_layers, 32);
    CHECK_INT(c.terms.draft_layers, 0);
    CHECK_INT(c.terms.mla_latent_dim, 0);
    CHECK_INT(tokens_for(&c, GiB100, 1), 819200); /* 100 GiB / 128 KiB */
    CHECK_INT(tokens_for(&c, GiB100, 64), 819200);
    CHECK_INT(tokens_for(&c, GiB100 - 1, 64), 819136); /* one page less */

    kvplan_pool_config cfg;
    CHECK_INT(
        kvplan_calculate_pool_sizes_from_max_tokens(&c, 100000, 64, &cfg, NULL),
        KVPLAN_OK);
    CHECK_INT(cfg.max_total_num_tokens, 99968); /* 100000 // 64 * 64 */
    CHECK(!cfg.full_max_total_num_tokens.set);
    CHECK(!cfg.swa_max_total_num_tokens.set);
    CHECK(!cfg.max_running_requests.set);
}

/* TP wider than the KV heads: each rank keeps max(1, 8 // 16) = 1 head. */
static void test_tp_wider_than_heads(void)
{
    kvplan_rank r = gqa(32, 8, 128);
    r.parallel.attn_tp_size = 16;
    kvplan_configurator c = build(&r, KVPLAN_CONFIGURATOR_DEFAULT);
    CHECK_INT(c.cell_size_bytes, 16384); /* 1 * 256 * 32 * 2 */
    CHECK_INT(c.terms.kv_heads, 1);      /* max(1, 8 // 16) */
    r.parallel.attn_tp_size = 4;
    c = build(&r, KVPLAN_CONFIGURATOR_DEFAULT);
    CHECK_INT(c.cell_size_bytes, 32768); /* 2 * 256 * 32 * 2 */
}

/* FP4: half the bytes plus one scale per 16 K and V values. */
static void test_fp4(void)
{
    kvplan_rank r = gqa(61, 8, 128);
    r.runner.kv_cache_dtype = KVPLAN_DTYPE_FLOAT4_E2M1FN_X2;
    kvplan_configurator c = build(&r, KVPLAN_CONFIGURATOR_DEFAULT);
    /* 8 * 256 * 61 * 1 = 124928; // 2 = 62464; scales
     * (8 * 128 * 61 * 2 * 1) // 16 = 7808 */
    CHECK_INT(c.cell_size_bytes, 70272);

    kvplan_rank m = mla(61);
    m.runner.kv_cache_dtype = KVPLAN_DTYPE_FLOAT4_E2M1FN_X2;
    c = build(&m, KVPLAN_CONFIGURATOR_DEFAULT);
    /* 576 * 61 = 35136; // 2 = 17568; (576 // 16) * 61 = 2196 */
    CHECK_INT(c.cell_size_bytes, 19764);
}

/* docs/sglang-rules.md §0.5: DeepSeek-V3 (MLA) and V3.2 (DSA), bf16, 61 layers.
 */
static void test_deepseek(void)
{
    kvplan_rank r = mla(61);
    kvplan_configurator c = build(&r, KVPLAN_CONFIGURATOR_DEFAULT);
    CHECK_INT(c.cell_size_bytes, 70272); /* (512 + 64) * 61 * 2 */
    CHECK_INT(c.terms.mla_latent_dim, 576);
    CHECK_INT(c.terms.dsa_indexer_bytes, 0);

    r.runner.spec_algorithm = KVPLAN_SPEC_EAGLE; /* MTP: one draft layer */
    r.runner.eagle_draft_num_layers = OPT(1);
    c = build(&r, KVPLAN_CONFIGURATOR_DEFAULT);
    CHECK_INT(c.cell_size_bytes, 71424); /* int(70272 * (1 + 1/61)) */
    CHECK_INT(c.terms.draft_layers, 1);

    kvplan_rank d = mla(61);
    d.model.hf_config.is_deepseek_dsa = true;
    d.model.hf_config.index_head_dim = OPT(128);
    c = build(&d, KVPLAN_CONFIGURATOR_DEFAULT);
    CHECK_INT(c.cell_size_bytes, 78324);       /* 70272 + (128 + 4) * 61 */
    CHECK_INT(c.terms.dsa_indexer_bytes, 132); /* 128 + 128 // 128 * 4 */
    d.runner.spec_algorithm = KVPLAN_SPEC_EAGLE;
    d.runner.eagle_draft_num_layers = OPT(1);
    c = build(&d, KVPLAN_CONFIGURATOR_DEFAULT);
    CHECK_INT(c.cell_size_bytes, 79608); /* int(78324 * (1 + 1/61)) */

    /* docs/sglang-rules.md §2.5: the DSA layer split keeps ceil(61 / 4) + 1 =
     * 17 layers per CP rank, but the EAGLE ratio still divides by 61. */
    d.server_args.enable_dsa_cache_layer_split = true;
    d.parallel.attn_cp_size = 4;
    c = build(&d, KVPLAN_CONFIGURATOR_DEFAULT);
    /* (576 * 17 * 2 + 132 * 17) = 21828; int(21828 * (1 + 1/61)) = 22185 */
    CHECK_INT(c.cell_size_bytes, 22185);
    CHECK_INT(c.terms.num_layers, 61);
    CHECK_INT(c.terms.priced_layers, 17);
    d.runner.is_draft_worker = true; /* a draft worker neither splits nor
                                      * scales: 78324 */
    c = build(&d, KVPLAN_CONFIGURATOR_DEFAULT);
    CHECK_INT(c.cell_size_bytes, 78324);
}

/* docs/sglang-rules.md §8.1: the EAGLE scaling truncates a float and can lose
 * one byte. */
static void test_eagle_truncates(void)
{
    kvplan_rank r = gqa(3, 1, 144); /* 1 * 288 * 3 * 2 = 1728 */
    r.runner.spec_algorithm = KVPLAN_SPEC_EAGLE3;
    r.runner.eagle_draft_num_layers = OPT(2);
    kvplan_configurator c = build(&r, KVPLAN_CONFIGURATOR_DEFAULT);
    CHECK_INT(c.cell_size_bytes, 2879); /* not 1728 * 5 / 3 = 2880 */

    r.runner.eagle_draft_num_layers = (kvplan_opt_int){0, false};
    c = build(&r, KVPLAN_CONFIGURATOR_DEFAULT); /* unknown draft: no scaling */
    CHECK_INT(c.cell_size_bytes, 1728);
}

/* docs/sglang-rules.md §2.6: DFLASH scales by an exact integer ceiling. */
static void test_dflash(void)
{
    kvplan_rank r = gqa(36, 8, 128); /* 8 * 256 * 36 * 2 = 147456 */
    r.runner.spec_algorithm = KVPLAN_SPEC_DFLASH;
    r.runner.dflash_draft_num_layers = OPT(5);
    kvplan_configurator c = build(&r, KVPLAN_CONFIGURATOR_DEFAULT);
    /* (147456 * 41 + 35) // 36 = 167936 */
    CHECK_INT(c.cell_size_bytes, 167936);
    r.runner.dflash_draft_num_layers = OPT(7);
    c = build(&r, KVPLAN_CONFIGURATOR_DEFAULT);
    /* (147456 * 43 + 35) // 36 = 6340643 // 36 = 176128 */
    CHECK_INT(c.cell_size_bytes, 176128);
}

/* Mamba/linear hybrids: only the stage's attention layers hold KV. */
static void test_mambaish(void)
{
    static const int64_t ids[] = {5, 11, 17, 23};
    kvplan_rank r = gqa(24, 2, 64);
    r.runner.start_layer = 12;
    r.runner.end_layer = 24;
    r.runner.num_effective_layers = 12;
    r.runner.is_mambaish = true;
    r.runner.mambaish_full_attention_layer_ids = (kvplan_ids){ids, 4};
    kvplan_configurator c = build(&r, KVPLAN_CONFIGURATOR_DEFAULT);
    CHECK_INT(c.cell_size_bytes, 1024); /* 2 layers (17, 23) * 2 * 128 * 2 */

    /* a stage with no attention layer: the reference divides by zero;
     * kvplan says what is wrong */
    r.runner.start_layer = 0;
    r.runner.end_layer = 5;
    c = build(&r, KVPLAN_CONFIGURATOR_DEFAULT);
    CHECK_INT(c.cell_size_bytes, 0);
    kvplan_pool_config cfg;
    kvplan_error err;
    CHECK_INT(kvplan_calculate_pool_sizes(&c, GiB100, 1, &cfg, &err),
              KVPLAN_INVALID_CONFIG);
    CHECK_CONTAINS(err.message, "holds no attention layer");
}

/* MiniMax sparse: main K+V pool plus a single-head indexer in the model
 * dtype, K+V on some sparse layers and K only on the others. */
static void test_minimax_sparse(void)
{
    static const int64_t dense[] = {0, 2, 4, 6}, sparse[] = {1, 3, 5, 7},
                         k_only[] = {3, 7};
    kvplan_rank r = gqa(8, 8, 128);
    r.parallel.attn_tp_size = 2; /* 4 heads per rank */
    r.model.hf_config.is_minimax_sparse = true;
    r.model.hf_config.minimax_sparse.dense_layer_ids = (kvplan_ids){dense, 4};
    r.model.hf_config.minimax_sparse.sparse_layer_ids = (kvplan_ids){sparse, 4};
    r.model.hf_config.minimax_sparse.disable_value_layer_ids =
        (kvplan_ids){k_only, 2};
    r.model.hf_config.minimax_sparse.sparse_index_dim = OPT(128);
    kvplan_configurator c = build(&r, KVPLAN_CONFIGURATOR_DEFAULT);
    /* main (4 + 4) * 2 * 4 * 128 * 2 = 16384; indexer (2 * 2 + 2) * 128 * 2
     * = 1536 */
    CHECK_INT(c.cell_size_bytes, 17920);
    r.runner.end_layer = 4; /* stage [0, 4): dense 0, 2; sparse 1, 3 (3 is
                             * k-only) */
    c = build(&r, KVPLAN_CONFIGURATOR_DEFAULT);
    /* 4 * 2 * 4 * 128 * 2 = 8192; (1 * 2 + 1) * 128 * 2 = 768 */
    CHECK_INT(c.cell_size_bytes, 8960);
    r.runner.dtype = KVPLAN_DTYPE_FLOAT32; /* the indexer follows the model */
    c = build(&r, KVPLAN_CONFIGURATOR_DEFAULT);
    CHECK_INT(c.cell_size_bytes, 8192 + 1536);
}

/* docs/sglang-rules.md §0.5: gpt-oss-120b, 18 full + 18 sliding layers, 8 KV
 * heads of 64. */
static void test_gpt_oss_120b(void)
{
    static int64_t full[18], swa[18];
    for (int i = 0; i < 18; i++) {
        swa[i] = 2 * i;
        full[i] = 2 * i + 1;
    }
    kvplan_rank r = gqa(36, 8, 64);
    r.runner.is_hybrid_swa = true;
    r.runner.sliding_window_size = OPT(127);
    r.model.full_attention_layer_ids = (kvplan_ids){full, 18};
    r.model.swa_attention_layer_ids = (kvplan_ids){swa, 18};
    kvplan_configurator c = build(&r, KVPLAN_CONFIGURATOR_HYBRID_SWA);
    /* F = S = 8 * 128 * 2 = 2048; cell = 2048 * 18 + (0.8 * 2048) * 18 */
    CHECK(c.cell_size_is_float);
    CHECK_DOUBLE(c.cell_size, 66355.2);
    CHECK_INT(c.terms.full_per_token, 2048);
    CHECK_INT(c.terms.swa_per_token, 2048);
    CHECK_INT(c.terms.full_layers_num, 18);
    CHECK_INT(c.terms.swa_layers_num, 18);
    CHECK_INT(c.terms.kv_heads, 8);
    kvplan_pool_config cfg;
    CHECK_INT(kvplan_calculate_pool_sizes(&c, GiB100, 1, &cfg, NULL),
              KVPLAN_OK);
    CHECK_INT(cfg.max_total_num_tokens, 1618172); /* 100 GiB // 66355.2 */
    CHECK_INT(cfg.full_max_total_num_tokens.value, 1618172);
    CHECK_INT(cfg.swa_max_total_num_tokens.value, 1294537); /* int(x * 0.8) */

    /* Radix cache off and requests explicit: the SWA chunk cap applies.
     * trailing = 127 + 128 * 1 + 1 = 256, decode = page = 1, per request
     * 257; cap = 257 * 64 + 2 chunks * 8192 + 1 = 32833 */
    r.server_args.max_running_requests = OPT(64);
    r.server_args.disable_radix_cache = true;
    r.server_args.chunked_prefill_size = OPT(8192);
    c = build(&r, KVPLAN_CONFIGURATOR_SWA_CHUNK_CAP);
    CHECK_INT(c.swa_cap, 32833);
    CHECK_INT(kvplan_calculate_pool_sizes(&c, GiB100, 1, &cfg, NULL),
              KVPLAN_OK);
    /* swa bytes = 32833 * 2048 * 18 = 1210351104; full = (100 GiB - that)
     * // (2048 * 18) = 106163831296 // 36864 = 2879878 */
    CHECK_INT(cfg.swa_max_total_num_tokens.value, 32833);
    CHECK_INT(cfg.full_max_total_num_tokens.value, 2879878);
    CHECK_INT(
        kvplan_calculate_pool_sizes_from_max_tokens(&c, 1000, 1, &cfg, NULL),
        KVPLAN_OK);
    CHECK_INT(cfg.swa_max_total_num_tokens.value, 1000); /* min(cap, t) */

    /* spec v2 (overlap on): eagle, 3 steps, topk 1, 4 draft tokens, page
     * 16: trailing = 127 + 128 * 4 + 16 = 655; alloc = max(3, 4) = 4, kept
     * twice: 8; cap = 663 * 64 + 2 * 8192 + 16 = 58832 */
    r.runner.page_size = 16;
    r.runner.spec_algorithm = KVPLAN_SPEC_EAGLE;
    r.server_args.speculative_num_steps = OPT(3);
    r.server_args.speculative_eagle_topk = OPT(1);
    r.server_args.speculative_num_draft_tokens = OPT(4);
    r.server_args.max_speculative_num_draft_tokens = OPT(4);
    c = build(&r, KVPLAN_CONFIGURATOR_SWA_CHUNK_CAP);
    CHECK_INT(c.swa_cap, 58832);
    /* spec v1 (overlap off): alloc = max(ceil_align(3, 16) * 1,
     * ceil_align(4, 16)) = 16; cap = (655 + 16) * 64 + 1 * 8192 + 16 */
    r.server_args.disable_overlap_schedule = true;
    c = build(&r, KVPLAN_CONFIGURATOR_SWA_CHUNK_CAP);
    CHECK_INT(c.swa_cap, 671 * 64 + 8192 + 16);
    /* PD decode: cap = per_request * n + (window + page) * extra slots */
    r.server_args.disaggregation_mode = KVPLAN_DISAGG_DECODE;
    r.server_args.disaggregation_decode_extra_slots = 8;
    c = build(&r, KVPLAN_CONFIGURATOR_SWA_CHUNK_CAP);
    CHECK_INT(c.swa_cap, 671 * 64 + (127 + 16) * 8);

    /* The cap can leave nothing for the full pool. */
    kvplan_error err;
    CHECK_INT(kvplan_calculate_pool_sizes(&c, 1000000, 16, &cfg, &err),
              KVPLAN_NOT_ENOUGH_MEMORY);
    CHECK_CONTAINS(err.message, "leaves no room for the full KV pool");
    /* cap 671 * 64 + 143 * 8 = 44088, page-aligned 44096 tokens; 44096 *
     * 2048 * 18 bytes = 1.51 GiB */
    CHECK_CONTAINS(err.message, "(44096 tokens, 1.51 GiB)");
}

/* docs/sglang-rules.md §0.2: available bytes an exact multiple of a fractional
 * cell. */
static void test_swa_float_floordiv(void)
{
    static const int64_t full[] = {18},
                         swa[] = {0, 1,  2,  3,  4,  5,  6,  7,  8,
                                  9, 10, 11, 12, 13, 14, 15, 16, 17};
    kvplan_rank r = gqa(19, 1, 64);
    r.runner.is_hybrid_swa = true;
    r.runner.sliding_window_size = OPT(127);
    r.model.full_attention_layer_ids = (kvplan_ids){full, 1};
    r.model.swa_attention_layer_ids = (kvplan_ids){swa, 18};
    kvplan_configurator c = build(&r, KVPLAN_CONFIGURATOR_HYBRID_SWA);
    /* 256 + (0.8 * 256) * 18 = 3942.4000000000001 in doubles */
    CHECK_DOUBLE(c.cell_size, 256.0 + 0.8 * 256.0 * 18.0);
    /* 3942400000 // 3942.4 is 999999 in Python; floor(a / b) says 1000000 */
    CHECK_INT(tokens_for(&c, 3942400000LL, 1), 999999);
    CHECK(floor(3942400000.0 / c.cell_size) == 1000000.0);
}

/* All-SWA: no full pool, no ratio; the draft's full layers still count. */
static void test_all_swa(void)
{
    static const int64_t swa[] = {0, 1, 2, 3};
    kvplan_rank r = gqa(4, 4, 128);
    r.runner.is_hybrid_swa = true;
    r.model.swa_attention_layer_ids = (kvplan_ids){swa, 4};
    kvplan_configurator c = build(&r, KVPLAN_CONFIGURATOR_HYBRID_SWA);
    CHECK(!c.cell_size_is_float);
    CHECK_INT(c.cell_size_bytes, 2048 * 4); /* 4 * 256 * 2 = 2048 a layer */
    kvplan_pool_config cfg;
    CHECK_INT(kvplan_calculate_pool_sizes(&c, 8192 * 100 + 5, 16, &cfg, NULL),
              KVPLAN_OK);
    CHECK_INT(cfg.max_total_num_tokens, 96); /* 100 // 16 * 16 */
    CHECK_INT(cfg.full_max_total_num_tokens.value, 0);
    CHECK_INT(cfg.swa_max_total_num_tokens.value, 96);
    r.runner.spec_algorithm = KVPLAN_SPEC_STANDALONE;
    r.runner.eagle_draft_num_layers = OPT(2);
    c = build(&r, KVPLAN_CONFIGURATOR_HYBRID_SWA);
    CHECK_INT(c.cell_size_bytes, 2048 * 4 + 2048 * 2); /* + F * d */
}

static kvplan_rank dsv4(const int64_t *ratios, size_t n)
{
    kvplan_rank r;
    kvplan_rank_init(&r);
    r.runner.kv_cache_dtype = KVPLAN_DTYPE_FLOAT8_E4M3FN;
    r.runner.is_hybrid_swa = true;
    r.runner.end_layer = (int64_t)n;
    r.runner.num_effective_layers = (int64_t)n;
    r.runner.page_size = 256;
    r.model.num_key_value_heads = 1;
    r.model.qk_nope_head_dim = OPT(448);
    r.model.qk_rope_head_dim = OPT(64);
    r.model.index_head_dim = OPT(128);
    r.model.window_size = OPT(128);
    r.model.context_len = OPT(65536);
    r.model.compress_ratios = (kvplan_ids){ratios, n};
    r.model.hf_config.is_deepseek_v4 = true;
    r.server_args.swa_full_tokens_ratio = 0.1;
    r.server_args.max_running_requests = OPT(256);
    return r;
}

/* DeepSeek V4, docs/sglang-rules.md §2.15: layers with ratios 0, 4, 128, 4. */
static void test_dsv4(void)
{
    static const int64_t ratios[] = {0, 4, 128, 4};
    kvplan_rank r = dsv4(ratios, 4);
    kvplan_configurator c = build(&r, KVPLAN_CONFIGURATOR_DSV4);
    /* kv = 448 + 2 * 64 + 8 = 584, indexer = 128 + 4 = 132, c4 ring 8 over
     * window 128; fp32 states: c4 2*2*512*4 = 8192, c4 indexer 2*2*128*4 =
     * 2048.
     *   0.1*584*4 + 0.25*584*2 + 584/128*1 + 0.25*132*2
     *   + 0.1*0.0625*8192*2 + 0 + 0.1*0.0625*2048*2 = 724.1625 */
    CHECK_DOUBLE(c.bytes_per_full_token, 724.1625);
    CHECK_INT(c.terms.dsv4_kv_bytes, 584);
    CHECK_INT(c.terms.dsa_indexer_bytes, 132);
    CHECK_INT(c.terms.num_layers_total, 4);
    CHECK_INT(c.terms.num_layers_ca4, 2);
    CHECK_INT(c.terms.num_layers_ca128, 1);

    kvplan_pool_config cfg;
    CHECK_INT(kvplan_calculate_pool_sizes(&c, 40000000000LL, 256, &cfg, NULL),
              KVPLAN_OK);
    /* c128 state for 256 requests: rows ceil_align(257 * 128 + 129, 128) =
     * 33152, times 2 * 512 * 4 bytes, one c128 layer: 135790592 bytes.
     * full = int((4e10 - 135790592) / 724.1625) = 55048707 -> 55048704 */
    CHECK_INT(cfg.max_total_num_tokens, 55048704);
    CHECK_INT(cfg.swa_max_total_num_tokens.value, 5504768);
    CHECK_INT(cfg.c4_max_total_num_tokens, 13762176); /* full // 4 */
    CHECK_INT(cfg.c128_max_total_num_tokens, 430068); /* full // 128 */
    CHECK_INT(cfg.c4_state_pool_size, 344048);        /* swa // 128 * 8 */
    CHECK_INT(cfg.c128_state_pool_size, 0);
    cfg.max_running_requests = OPT(256);
    CHECK_INT(kvplan_finalize_with_max_running_requests(&c, &cfg, NULL),
              KVPLAN_OK);
    CHECK_INT(cfg.c128_state_pool_size, 257 * 128); /* slots * ring */

    /* MTP inflates bytes per token by (4 + 1) / 4 and doubles the rings */
    r.runner.spec_algorithm = KVPLAN_SPEC_EAGLE;
    c = build(&r, KVPLAN_CONFIGURATOR_DSV4);
    CHECK_DOUBLE(c.bytes_per_full_token,
                 (0.1 * 584 * 4 + 0.25 * 584 * 2 + 1.0 / 128 * 584 +
                  0.25 * 132 * 2 + 0.1 * 0.125 * 8192 * 2 + 0.0 +
                  0.1 * 0.125 * 2048 * 2) *
                     (5.0 / 4.0));

    /* page_size must be a multiple of 128 */
    kvplan_error err;
    CHECK_INT(kvplan_calculate_pool_sizes(&c, 40000000000LL, 64, &cfg, &err),
              KVPLAN_INVALID_CONFIG);
    CHECK_CONTAINS(err.message, "multiple of 128");

    /* online c128 refuses MTP unless the experimental flag is on */
    r.env.SGLANG_OPT_USE_ONLINE_COMPRESS = true;
    CHECK_INT(kvplan_configurator_init(&c, &r, &err), KVPLAN_INVALID_CONFIG);
    CHECK_CONTAINS(err.message, "online c128 does not support MTP");
    CHECK_STR(err.field, "/env/SGLANG_OPT_USE_ONLINE_COMPRESS");

    /* bf16 state with online compress is refused */
    r.runner.spec_algorithm = KVPLAN_SPEC_NONE;
    r.env.SGLANG_DSV4_COMPRESS_STATE_DTYPE = " BF16 ";
    CHECK_INT(kvplan_configurator_init(&c, &r, &err), KVPLAN_INVALID_CONFIG);
    CHECK_CONTAINS(err.message, "online c128 state must stay float32");
    r.env.SGLANG_DSV4_COMPRESS_STATE_DTYPE = "fp16";
    CHECK_INT(kvplan_configurator_init(&c, &r, &err), KVPLAN_INVALID_CONFIG);
    CHECK_CONTAINS(err.message, "Unsupported SGLANG_DSV4_COMPRESS_STATE_DTYPE");
    CHECK_STR(err.field, "/env/SGLANG_DSV4_COMPRESS_STATE_DTYPE");
}

/* One check per status the core returns. */
static void test_errors(void)
{
    kvplan_rank r = gqa(32, 8, 128);
    kvplan_configurator c;
    kvplan_pool_config cfg;
    kvplan_error err;

    CHECK_INT(kvplan_configurator_init(NULL, &r, &err),
              KVPLAN_INVALID_ARGUMENT);
    CHECK_INT(kvplan_configurator_init(&c, NULL, NULL),
              KVPLAN_INVALID_ARGUMENT);

    c = build(&r, KVPLAN_CONFIGURATOR_DEFAULT);
    CHECK_INT(kvplan_calculate_pool_sizes(&c, 131072 * 63, 64, &cfg, &err),
              KVPLAN_NOT_ENOUGH_MEMORY);
    CHECK_CONTAINS(err.message, "Not enough memory. Please try to increase "
                                "--mem-fraction-static.");
    CHECK_CONTAINS(err.message, "needs 8388608"); /* 64 * 131072 */
    CHECK_INT(err.code, KVPLAN_NOT_ENOUGH_MEMORY);
    CHECK_INT(kvplan_calculate_pool_sizes(&c, GiB100, 0, &cfg, &err),
              KVPLAN_INVALID_CONFIG);
    CHECK_STR(err.field, "page_size");
    /* success clears the error */
    CHECK_INT(kvplan_calculate_pool_sizes(&c, GiB100, 1, &cfg, &err),
              KVPLAN_OK);
    CHECK_INT(err.code, KVPLAN_OK);
    CHECK_STR(err.message, "");

    kvplan_rank missing = r;
    missing.runner.kv_cache_dtype = KVPLAN_DTYPE_UNSET;
    CHECK_INT(kvplan_configurator_init(&c, &missing, &err),
              KVPLAN_INVALID_CONFIG);
    CHECK_STR(err.field, "/runner/kv_cache_dtype");
    missing = r;
    missing.model.head_dim.set = false;
    CHECK_INT(kvplan_configurator_init(&c, &missing, &err),
              KVPLAN_INVALID_CONFIG);
    CHECK_STR(err.field, "/model/head_dim");
    missing = r;
    missing.parallel.attn_tp_size = 0;
    CHECK_INT(kvplan_configurator_init(&c, &missing, &err),
              KVPLAN_INVALID_CONFIG);
    CHECK_STR(err.field, "/parallel/attn_tp_size");

    /* hybrid SWA with no SWA layer: the reference's assertion */
    static const int64_t full[] = {0, 1, 2, 3};
    kvplan_rank h = gqa(4, 8, 128);
    h.runner.is_hybrid_swa = true;
    h.model.full_attention_layer_ids = (kvplan_ids){full, 4};
    CHECK_INT(kvplan_configurator_init(&c, &h, &err), KVPLAN_INVALID_CONFIG);
    CHECK_CONTAINS(err.message, "at least one SWA layer");

    /* a list with entries but no storage */
    h.model.swa_attention_layer_ids = (kvplan_ids){NULL, 3};
    CHECK_INT(kvplan_configurator_init(&c, &h, &err), KVPLAN_INVALID_ARGUMENT);

    /* overflow is refused, never wrapped */
    kvplan_rank big = gqa(32, 8, INT64_MAX / 4);
    CHECK_INT(kvplan_configurator_init(&c, &big, &err), KVPLAN_OVERFLOW);
    CHECK_CONTAINS(err.message, "64-bit");
    c = build(&r, KVPLAN_CONFIGURATOR_DEFAULT);
    CHECK_INT(kvplan_calculate_pool_sizes_from_max_tokens(&c, INT64_MAX, 3,
                                                          &cfg, &err),
              KVPLAN_OK); /* INT64_MAX // 3 * 3 fits */
    CHECK_INT(cfg.max_total_num_tokens, INT64_MAX - 1);

    /* finalize needs max_running_requests */
    kvplan_pool_config unset = {0};
    CHECK_INT(kvplan_finalize_with_max_running_requests(&c, &unset, &err),
              KVPLAN_INVALID_ARGUMENT);
    unset.max_running_requests = OPT(10);
    CHECK_INT(kvplan_finalize_with_max_running_requests(&c, &unset, &err),
              KVPLAN_OK);
}

static void test_names(void)
{
    CHECK_STR(kvplan_status_name(KVPLAN_NOT_ENOUGH_MEMORY),
              "KVPLAN_NOT_ENOUGH_MEMORY");
    CHECK_STR(kvplan_status_kind(KVPLAN_NOT_ENOUGH_MEMORY), "out_of_memory");
    CHECK_STR(kvplan_status_kind(KVPLAN_INVALID_CONFIG), "invalid_config");
    CHECK_STR(kvplan_status_name((kvplan_status)99), "KVPLAN_UNKNOWN");
    CHECK_INT(KVPLAN_OK, 0); /* pinned values */
    CHECK_INT(KVPLAN_INVALID_CONFIG, 2);
    CHECK_INT(KVPLAN_PARSE, 8);
    CHECK_INT(kvplan_dtype_size(KVPLAN_DTYPE_FLOAT4_E2M1FN_X2), 1);
    CHECK_INT(kvplan_dtype_size(KVPLAN_DTYPE_FLOAT32), 4);
    CHECK_INT(kvplan_dtype_size(KVPLAN_DTYPE_UNSET), 0);
    CHECK_INT(kvplan_dtype_from_name("float8_e5m2"), KVPLAN_DTYPE_FLOAT8_E5M2);
    CHECK_INT(kvplan_dtype_from_name("fp8"), KVPLAN_DTYPE_UNSET);
    CHECK_STR(kvplan_configurator_name(KVPLAN_CONFIGURATOR_SWA_CHUNK_CAP),
              "SWAChunkCapPoolConfigurator");
    kvplan_spec_algorithm a = KVPLAN_SPEC_NONE;
    CHECK(kvplan_spec_algorithm_from_name("dspark", &a));
    CHECK_INT(a, KVPLAN_SPEC_DSPARK);
    CHECK(!kvplan_spec_algorithm_from_name("medusa", &a));
    CHECK_STR(kvplan_version(), KVPLAN_VERSION_STRING);

    /* sglang's words for its flags: any case for the speculative
     * algorithm (sglang upper-cases it), NEXTN and FROZEN_KV_MTP as EAGLE */
    int v = -1;
    CHECK(kvplan_word_value(KVPLAN_WORDS_SPECULATIVE_ALGORITHM, "eagle3", &v));
    CHECK_INT(v, KVPLAN_SPEC_EAGLE3);
    CHECK(kvplan_word_value(KVPLAN_WORDS_SPECULATIVE_ALGORITHM, "NEXTN", &v));
    CHECK_INT(v, KVPLAN_SPEC_EAGLE);
    CHECK(kvplan_word_value(KVPLAN_WORDS_SPECULATIVE_ALGORITHM, "frozen_kv_mtp",
                            &v));
    CHECK_INT(v, KVPLAN_SPEC_EAGLE);
    CHECK_STR(
        kvplan_word_name(KVPLAN_WORDS_SPECULATIVE_ALGORITHM, KVPLAN_SPEC_EAGLE),
        "EAGLE");
    CHECK(kvplan_word_name(KVPLAN_WORDS_SPECULATIVE_ALGORITHM,
                           KVPLAN_SPEC_NONE) == NULL);
    /* the other sets exactly, as argparse: bf16 and bfloat16 */
    CHECK(kvplan_word_value(KVPLAN_WORDS_KV_CACHE_DTYPE, "bfloat16", &v));
    CHECK_INT(v, KVPLAN_KV_BF16);
    CHECK_STR(kvplan_word_name(KVPLAN_WORDS_KV_CACHE_DTYPE, KVPLAN_KV_BF16),
              "bf16"); /* the canonical word, never the alias */
    CHECK(!kvplan_word_value(KVPLAN_WORDS_KV_CACHE_DTYPE, "BF16", &v));
    CHECK(kvplan_word_value(KVPLAN_WORDS_DTYPE, "half", &v));
    CHECK_INT(v, KVPLAN_DT_FLOAT16);
    CHECK_STR(kvplan_word_name(KVPLAN_WORDS_DTYPE, KVPLAN_DT_FLOAT16),
              "float16");
    CHECK_STR(kvplan_word_name(KVPLAN_WORDS_DISAGGREGATION_MODE,
                               KVPLAN_DISAGG_DECODE),
              "decode");
    CHECK(
        kvplan_word_value(KVPLAN_WORDS_ATTENTION_BACKEND, "trtllm_mha", NULL));
    CHECK(kvplan_word_value(KVPLAN_WORDS_ATTENTION_BACKEND, "nsa", NULL));
    CHECK(!kvplan_word_value(KVPLAN_WORDS_ATTENTION_BACKEND, "no-such", NULL));
    CHECK(!kvplan_word_value(KVPLAN_WORDS_ATTENTION_BACKEND, NULL, NULL));
    CHECK(!kvplan_word_value((kvplan_word_set)99, "auto", &v));
    /* enumeration: every word, aliases included, then NULL */
    size_t n = 0;
    while (kvplan_word_at(KVPLAN_WORDS_KV_CACHE_DTYPE, n, &v) != NULL)
        n++;
    CHECK_INT(n, 7); /* sglang's six, and vLLM's "fp8" */
    CHECK_STR(kvplan_word_at(KVPLAN_WORDS_KV_CACHE_DTYPE, 4, &v), "bfloat16");
    CHECK_STR(kvplan_word_at(KVPLAN_WORDS_KV_CACHE_DTYPE, 6, &v), "fp8");
    CHECK_INT(v, KVPLAN_KV_FP8);
    CHECK(kvplan_word_at((kvplan_word_set)99, 0, NULL) == NULL);
}

int main(void)
{
    test_llama_3_1_8b();
    test_tp_wider_than_heads();
    test_fp4();
    test_deepseek();
    test_eagle_truncates();
    test_dflash();
    test_mambaish();
    test_minimax_sparse();
    test_gpt_oss_120b();
    test_swa_float_floordiv();
    test_all_swa();
    test_dsv4();
    test_errors();
    test_names();
    return check_report();
}
