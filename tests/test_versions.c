/*
 * test_versions.c: --sglang-version (docs/versions.md). The version
 * strings and their profiles, and each rule of each profile against a
 * value derived by hand from the rule as the upstream survey states it,
 * each rule switched alone (kvplan_plan_options.sglang_rules_flip) so that
 * the difference is that rule's. The seed's golden vectors are replayed by
 * test_golden; here the seed is the baseline.
 */
#include "check.h"
#include "kvplan.h"
#include "plan_options.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static kvplan_plan *plan_of(const char *model, kvplan_plan_options *o,
                            kvplan_status want, kvplan_error *err)
{
    kvplan_model *m = NULL;
    kvplan_error e;
    if (err == NULL)
        err = &e;
    kvplan_plan *p = calloc(1, sizeof *p);
    CHECK_INT(kvplan_model_load(model, &m, err), KVPLAN_OK);
    kvplan_status st = kvplan_plan_compute(m, o, p, err);
    CHECK_INT(st, want);
    if (st != want)
        fprintf(stderr, "  %s: %s\n", model, err->message);
    kvplan_model_free(m);
    return p;
}

static void test_parse(void)
{
    static const struct {
        const char *text;
        kvplan_sglang_profile want;
    } ok[] = {
        {"seed", KVPLAN_SGLANG_SEED},
        {"SEED", KVPLAN_SGLANG_SEED},
        {"main", KVPLAN_SGLANG_MAIN},
        {"latest", KVPLAN_SGLANG_MAIN},
        {"0.5.17", KVPLAN_SGLANG_MAIN},
        {"0.5.19", KVPLAN_SGLANG_MAIN},
        {"0.5.16", KVPLAN_SGLANG_V0516},
        {"0.5.15", KVPLAN_SGLANG_E4},
        {"0.5.13", KVPLAN_SGLANG_E4},
        {"0.5.12", KVPLAN_SGLANG_E3},
        {"0.5.9", KVPLAN_SGLANG_E3},
        {"v0.5.10.post1", KVPLAN_SGLANG_E3},
        {"0.5.3", KVPLAN_SGLANG_E3},
        {"0.5.2", KVPLAN_SGLANG_E2},
        {"0.5.0rc0", KVPLAN_SGLANG_E2},
        {"0.4.8", KVPLAN_SGLANG_E2},
        {"0.4.10.post2+cu128", KVPLAN_SGLANG_E2},
        {"0.5.3-0.5.12", KVPLAN_SGLANG_E3},
        {"e4", KVPLAN_SGLANG_E4},
        /* before 0.4.8: the TP table's default fraction */
        {"0.4.7", KVPLAN_SGLANG_E1},
        {"0.4.3.post4", KVPLAN_SGLANG_E1},
        {"0.3.4", KVPLAN_SGLANG_E1},
        {"0.3.0-0.4.7", KVPLAN_SGLANG_E1},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        kvplan_sglang_profile p = (kvplan_sglang_profile)99;
        CHECK_INT(kvplan_sglang_profile_parse(ok[i].text, &p, NULL), KVPLAN_OK);
        CHECK_INT(p, ok[i].want);
    }
    const char *bad[] = {"0.2.9",  "0.1.18", "0.5.20", "0.6.0",
                         "banana", "0.5",    "",       "1.0.0x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        kvplan_error err;
        kvplan_sglang_profile p;
        CHECK_INT(kvplan_sglang_profile_parse(bad[i], &p, &err),
                  KVPLAN_INVALID_ARGUMENT);
        CHECK_STR(err.field, "--sglang-version");
        /* the message lists the known */
        CHECK(strstr(err.message, "seed") && strstr(err.message, "main") &&
              strstr(err.message, "0.5.3-0.5.12"));
    }
    CHECK_INT(kvplan_sglang_profile_parse(NULL, NULL, NULL),
              KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(kvplan_sglang_profile_name(KVPLAN_SGLANG_MAIN), "main");
    CHECK_STR(kvplan_sglang_profile_name(KVPLAN_SGLANG_E2), "0.4.8-0.5.2");
    CHECK_STR(kvplan_sglang_profile_name(KVPLAN_SGLANG_E1), "0.3.0-0.4.7");
    CHECK(kvplan_sglang_profile_name((kvplan_sglang_profile)7) == NULL);
    CHECK(kvplan_sglang_profile_exact(KVPLAN_SGLANG_SEED));
    CHECK(!kvplan_sglang_profile_exact(KVPLAN_SGLANG_E3));
    CHECK(!kvplan_sglang_profile_exact(KVPLAN_SGLANG_MAIN)); /* 3 are not */
    CHECK_INT(kvplan_sglang_rules(KVPLAN_SGLANG_SEED), 0);
    CHECK_INT(kvplan_sglang_rules(KVPLAN_SGLANG_E4), 0);
    /* every rule has a name, a source, a summary, and one bit of its own;
     * main holds 0.5.16's */
    uint64_t seen = 0;
    kvplan_rule_info r;
    size_t n = 0;
    for (; kvplan_rule_at(n, &r); n++) {
        CHECK(r.name && r.source && r.summary && r.summary[0]);
        CHECK((seen & r.bit) == 0 && r.bit != 0 && (r.bit & (r.bit - 1)) == 0);
        seen |= r.bit;
    }
    CHECK_INT(n, 22);
    CHECK(!kvplan_rule_at(n, &r) && !kvplan_rule_at(0, NULL));
    uint64_t v16 = kvplan_sglang_rules(KVPLAN_SGLANG_V0516);
    CHECK_INT(kvplan_sglang_rules(KVPLAN_SGLANG_MAIN) & v16, v16);
    CHECK_INT(kvplan_sglang_rules(KVPLAN_SGLANG_MAIN) & ~seen, 0);
    /* an unknown profile in the options is refused */
    kvplan_plan_options o = on_gpu("H100-80GB");
    o.sglang_version = (kvplan_sglang_profile)42;
    kvplan_error err;
    CHECK_INT(kvplan_plan_options_validate(&o, &err), KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "--sglang-version");
}

/* The seed's rules are E4's: the same plan bit for bit. */
static void test_seed_is_e4(void)
{
    kvplan_plan_options o = on_gpu("H100-80GB");
    kvplan_plan *a = plan_of("llama-3.1-8b-instruct", &o, KVPLAN_OK, NULL);
    o.sglang_version = KVPLAN_SGLANG_E4;
    kvplan_plan *b = plan_of("llama-3.1-8b-instruct", &o, KVPLAN_OK, NULL);
    CHECK_INT(a->max_total_num_tokens, b->max_total_num_tokens);
    CHECK_DOUBLE(a->budget.mem_fraction_static, b->budget.mem_fraction_static);
    CHECK_INT(a->rules, 0);
    CHECK_INT(b->sglang_version, KVPLAN_SGLANG_E4);
    free(a);
    free(b);
}

/* The aiter backend's x 0.85 (context over 8192) applies to a given
 * fraction too: sglang multiplies self.mem_fraction_static whether the
 * operator gave it or not (server_args.py since #12136, ModelRunner
 * before; issue 26: three MI355X launches were 18-22 % over without it).
 * A fraction as a log printed it is the product already, except where
 * ModelRunner made it after printing (0.4.8-0.5.2). */
static void test_aiter_given(void)
{
    kvplan_plan_options o = on_gpu("MI300X");
    o.mem_fraction_static = (kvplan_opt_double){0.8, true};
    kvplan_plan *a = plan_of("llama-3.1-8b-instruct", &o, KVPLAN_OK, NULL);
    CHECK_STR(a->attention_backend, "aiter");
    CHECK(a->budget.mem_fraction_static == 0.8 * 0.85);
    CHECK(a->budget.aiter_factor == 0.85);
    o.mem_fraction_printed = true; /* a log of the seed printed 0.8 */
    kvplan_plan *b = plan_of("llama-3.1-8b-instruct", &o, KVPLAN_OK, NULL);
    CHECK(b->budget.mem_fraction_static == 0.8);
    CHECK(b->max_total_num_tokens > a->max_total_num_tokens);
    o.sglang_version = KVPLAN_SGLANG_E2; /* printed before ModelRunner's */
    kvplan_plan *c = plan_of("llama-3.1-8b-instruct", &o, KVPLAN_OK, NULL);
    CHECK(c->budget.mem_fraction_static == 0.8 * 0.85);
    /* not aiter's: an H100 keeps the given value */
    kvplan_plan_options h = on_gpu("H100-80GB");
    h.mem_fraction_static = (kvplan_opt_double){0.8, true};
    kvplan_plan *d = plan_of("llama-3.1-8b-instruct", &h, KVPLAN_OK, NULL);
    CHECK(d->budget.mem_fraction_static == 0.8);
    /* a sweep's update takes the factor as compute does */
    kvplan_model *m = NULL;
    CHECK_INT(kvplan_model_load("llama-3.1-8b-instruct", &m, NULL), KVPLAN_OK);
    kvplan_plan_options o2 = on_gpu("MI300X"), o1 = o2;
    o1.mem_fraction_static = (kvplan_opt_double){0.7, true};
    o2.mem_fraction_static = (kvplan_opt_double){0.8, true};
    CHECK_INT(kvplan_plan_compute(m, &o1, b, NULL), KVPLAN_OK);
    CHECK_INT(kvplan_plan_update(m, &o2, &o1, b, c, NULL), KVPLAN_OK);
    CHECK(c->budget.mem_fraction_static == 0.8 * 0.85);
    CHECK_INT(c->max_total_num_tokens, a->max_total_num_tokens);
    kvplan_model_free(m);
    free(a);
    free(b);
    free(c);
    free(d);
}

/* Recent builds on one NVIDIA GPU hold 1.17 GiB before loading (public
 * 0.5.17-0.5.19 launches on an idle H100: 1.17-1.18; an RTX 5090 1.16):
 * main's; the seed keeps the 0.95 of older builds; more ranks, and AMD,
 * keep their own figures. */
static void test_context_tp1(void)
{
    kvplan_plan_options o = on_gpu("H100-80GB");
    kvplan_plan *a = plan_of("llama-3.1-8b-instruct", &o, KVPLAN_OK, NULL);
    CHECK_DOUBLE(a->budget.context_overhead_bytes / 1073741824.0, 0.95);
    o.sglang_version = KVPLAN_SGLANG_MAIN;
    kvplan_plan *b = plan_of("llama-3.1-8b-instruct", &o, KVPLAN_OK, NULL);
    CHECK_DOUBLE(b->budget.context_overhead_bytes / 1073741824.0, 1.17);
    CHECK(b->max_total_num_tokens < a->max_total_num_tokens);
    kvplan_plan_options r = on_gpu("RTX-5090");
    r.sglang_version = KVPLAN_SGLANG_MAIN;
    kvplan_plan *c = plan_of("qwen3-8b", &r, KVPLAN_OK, NULL);
    CHECK_DOUBLE(c->budget.context_overhead_bytes / 1073741824.0, 1.16);
    kvplan_plan_options m = on_gpu("MI355X");
    m.sglang_version = KVPLAN_SGLANG_MAIN;
    kvplan_plan *d = plan_of("llama-3.1-8b-instruct", &m, KVPLAN_OK, NULL);
    CHECK_DOUBLE(d->budget.context_overhead_bytes / 1073741824.0, 0.80);
    o.server.tp_size = 8;
    kvplan_plan *e = plan_of("llama-3.1-8b-instruct", &o, KVPLAN_OK, NULL);
    CHECK(e->budget.context_overhead_bytes / 1073741824.0 > 2.0);
    free(a);
    free(b);
    free(c);
    free(d);
    free(e);
}

/* Before 0.4.8 the default fraction came from tp_size alone (sglang's
 * server_args.py of 0.3-0.4.7): a 2024 launch of Llama 3.1 8B on one H100
 * printed 0.88 (tests/logs/01). */
static void test_fraction_tp_table(void)
{
    static const struct {
        int64_t tp;
        double f;
    } table[] = {{1, 0.88}, {2, 0.87}, {4, 0.85}, {8, 0.81}, {16, 0.79}};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        kvplan_plan_options o = on_gpu("H100-80GB");
        o.sglang_version = KVPLAN_SGLANG_E1;
        o.server.tp_size = table[i].tp;
        kvplan_plan *p = plan_of("llama-3.1-8b-instruct", &o, KVPLAN_OK, NULL);
        CHECK(p->budget.mem_fraction_static == table[i].f);
        CHECK(p->budget.mem_fraction_auto);
        free(p);
    }
}

static int64_t cell(const kvplan_plan *p)
{
    return p->stages[p->binding_stage].configurator.cell_size_bytes;
}

/* #31992: DSA + fp8 priced at 656 bytes per layer. DeepSeek-V3.2 on B200
 * (fp8 KV by default), 61 layers, indexer 128 + 128 // 128 * 4 = 132:
 * seed 61 * (576 + 132) = 43188, main 61 * (656 + 132) = 48068. */
static void test_dsa_fp8_656(void)
{
    kvplan_plan_options o = on_gpu("B200");
    o.server.tp_size = 8;
    kvplan_plan *p = plan_of("deepseek-v3.2", &o, KVPLAN_OK, NULL);
    CHECK_INT(cell(p), 61 * (576 + 132));
    free(p);
    o.sglang_version = KVPLAN_SGLANG_MAIN;
    p = plan_of("deepseek-v3.2", &o, KVPLAN_OK, NULL);
    CHECK_INT(cell(p), 48068);
    CHECK_INT(cell(p), 61 * (512 + 512 / 128 * 4 + 64 * 2 + 132));
    CHECK(p->rules & KVPLAN_RULE_DSA_FP8_656);
    free(p);
    o.sglang_version = KVPLAN_SGLANG_SEED;
    o.sglang_rules_flip = KVPLAN_RULE_DSA_FP8_656; /* alone */
    p = plan_of("deepseek-v3.2", &o, KVPLAN_OK, NULL);
    CHECK_INT(cell(p), 48068);
    free(p);
    /* a bf16 KV cache keeps 576: the rule is fp8's */
    o.server.kv_cache_dtype = KVPLAN_KV_BF16;
    p = plan_of("deepseek-v3.2", &o, KVPLAN_OK, NULL);
    CHECK_INT(cell(p), 61 * (576 * 2 + 132));
    free(p);
    /* HIP's DSA backends keep the seed's price */
    kvplan_plan_options h = on_gpu("MI355X");
    h.server.tp_size = 8;
    h.sglang_version = KVPLAN_SGLANG_MAIN;
    p = plan_of("deepseek-v3.2", &h, KVPLAN_OK, NULL);
    CHECK(!(p->rules & KVPLAN_RULE_DSA_FP8_656));
    free(p);
}

/* #30531: GLM-5.2's schedule (index_topk_freq 4, offset 3) computes the
 * top-k on layers 0, 1, 2, 6, 10, ..., 74: 21 of 78. The indexer's 132
 * bytes leave the other 57 layers: 57 * 132 = 7524 bytes per token. */
static void test_dsa_skip_topk(void)
{
    const char *glm = KVPLAN_TEST_DATA "/glm-5.2-style";
    kvplan_plan_options o = on_gpu("H100-80GB");
    o.server.tp_size = 8;
    o.available_bytes = (kvplan_opt_int){100000000000, true};
    kvplan_plan *a = plan_of(glm, &o, KVPLAN_OK, NULL);
    o.sglang_rules_flip = KVPLAN_RULE_DSA_SKIP_TOPK;
    kvplan_plan *b = plan_of(glm, &o, KVPLAN_OK, NULL);
    CHECK_INT(cell(a) - cell(b), 57 * 132);
    CHECK_INT(cell(a), 78 * ((512 + 64) * 2 + 132));
    /* glm-5.1 (no schedule) is unchanged */
    kvplan_plan *c = plan_of("glm-5.1", &o, KVPLAN_OK, NULL);
    CHECK_INT(cell(c), cell(a));
    /* nor with a draft (priced otherwise by later sglang, not modelled) */
    o.server.speculative_algorithm = KVPLAN_SPEC_EAGLE;
    kvplan_plan *d = plan_of(glm, &o, KVPLAN_OK, NULL);
    o.sglang_rules_flip = 0;
    kvplan_plan *e = plan_of(glm, &o, KVPLAN_OK, NULL);
    CHECK_INT(cell(d), cell(e));
    free(a);
    free(b);
    free(c);
    free(d);
    free(e);
}

/* #21601: FP4 MHA adds heads * head_dim * 2 * 1 per token. Llama-3.1-8B
 * at TP1: seed (8 * 256 * 32) / 2 + 8 * 128 * 32 * 2 // 16 = 36864, then
 * + 8 * 128 * 2 = 2048. */
static void test_fp4_workspace(void)
{
    kvplan_plan_options o = on_gpu("B200");
    o.server.kv_cache_dtype = KVPLAN_KV_FP4_E2M1;
    kvplan_plan *a = plan_of("llama-3.1-8b-instruct", &o, KVPLAN_OK, NULL);
    CHECK_INT(cell(a), 36864);
    o.sglang_version = KVPLAN_SGLANG_V0516;
    kvplan_plan *b = plan_of("llama-3.1-8b-instruct", &o, KVPLAN_OK, NULL);
    CHECK_INT(cell(b), 36864 + 2048);
    free(a);
    free(b);
}

/* #32828: heads per rank over attn_tp // dcp. Llama-3.1-8B, 8 KV heads,
 * TP 8, DCP 8: the seed's max(1, 8 // 8) = 1 head (16384 B/token), main's
 * 8 // (8 // 8) = 8 heads (131072). */
static void test_dcp_heads(void)
{
    kvplan_plan_options o = on_gpu("H100-80GB");
    o.server.tp_size = 8;
    o.dcp_size = 8;
    kvplan_plan *a = plan_of("llama-3.1-8b-instruct", &o, KVPLAN_OK, NULL);
    CHECK_INT(cell(a), 1 * 256 * 32 * 2);
    o.sglang_rules_flip = KVPLAN_RULE_DCP_KV_HEADS;
    kvplan_plan *b = plan_of("llama-3.1-8b-instruct", &o, KVPLAN_OK, NULL);
    CHECK_INT(cell(b), 8 * 256 * 32 * 2);
    CHECK_INT(b->stages[0].configurator.terms.kv_heads, 8);
    /* #31532: DCP > 1 turns the prefill graphs off, 8 MB per batch size */
    o.sglang_rules_flip = KVPLAN_RULE_DCP_NO_PREFILL_GRAPH;
    kvplan_plan *c = plan_of("llama-3.1-8b-instruct", &o, KVPLAN_OK, NULL);
    CHECK(a->budget.prefill_graph_bs_count > 0);
    CHECK_DOUBLE(a->budget.graph_mib - c->budget.graph_mib,
                 8.0 * (double)a->budget.prefill_graph_bs_count);
    free(a);
    free(b);
    free(c);
}

/* #31681 and #37610: a sliding-window pool below window + page is a
 * start-up error; the seed serves it with a warning. */
static void test_swa_floor(void)
{
    kvplan_plan_options o = on_gpu("H100-80GB");
    o.max_total_tokens = (kvplan_opt_int){128, true};
    kvplan_plan *a = plan_of("gpt-oss-20b", &o, KVPLAN_OK, NULL);
    bool warned = false;
    for (size_t i = 0; i < a->num_warnings; i++)
        warned |= a->warnings[i].code == KVPLAN_WARN_SWA_BELOW_WINDOW;
    CHECK(warned);
    o.sglang_version = KVPLAN_SGLANG_V0516;
    kvplan_error err;
    free(plan_of("gpt-oss-20b", &o, KVPLAN_NOT_ENOUGH_MEMORY, &err));
    CHECK_STR(err.field, "--swa-full-tokens-ratio");
    CHECK(strstr(err.message, "102 tokens") && strstr(err.message, "127 + 1"));
    /* DeepSeek V4 at --max-total-tokens 4096: swa 256 < 128 + 256 */
    kvplan_plan_options d = on_gpu("B200");
    d.server.tp_size = 8;
    d.max_total_tokens = (kvplan_opt_int){4096, true};
    free(plan_of("deepseek-v4-flash", &d, KVPLAN_OK, NULL));
    d.sglang_version = KVPLAN_SGLANG_V0516; /* hybrid SWA's rule alone */
    free(plan_of("deepseek-v4-flash", &d, KVPLAN_OK, NULL));
    d.sglang_version = KVPLAN_SGLANG_MAIN;
    free(plan_of("deepseek-v4-flash", &d, KVPLAN_NOT_ENOUGH_MEMORY, &err));
    CHECK(strstr(err.message, "256 tokens") &&
          strstr(err.message, "128 + 256"));
    free(a);
}

/* #34189: DeepSeek V4 with more draft tokens than the write pad (4). */
static void test_dsv4_draft_pad(void)
{
    kvplan_plan_options o = on_gpu("B200");
    o.server.tp_size = 8;
    o.server.speculative_algorithm = KVPLAN_SPEC_EAGLE;
    o.server.speculative_num_steps = (kvplan_opt_int){7, true};
    o.server.speculative_eagle_topk = (kvplan_opt_int){1, true};
    o.server.speculative_num_draft_tokens = (kvplan_opt_int){8, true};
    free(plan_of("deepseek-v4-flash", &o, KVPLAN_OK, NULL));
    o.sglang_version = KVPLAN_SGLANG_MAIN;
    kvplan_error err;
    free(plan_of("deepseek-v4-flash", &o, KVPLAN_INVALID_CONFIG, &err));
    CHECK_STR(err.field, "--speculative-num-draft-tokens");
    o.server.speculative_num_steps = (kvplan_opt_int){3, true};
    o.server.speculative_num_draft_tokens = (kvplan_opt_int){4, true};
    free(plan_of("deepseek-v4-flash", &o, KVPLAN_OK, NULL));
}

/* #32184: the padding slot in the mamba solve: K = (B - per) // per, one
 * slot fewer than the seed's B // per, and K + 1 slots leave the budget:
 * the KV bytes are the seed's. */
static void test_mamba_pad_slot(void)
{
    kvplan_plan_options o = on_gpu("H200");
    o.server.tp_size = 4;
    kvplan_plan *a =
        plan_of("qwen3-next-80b-a3b-thinking", &o, KVPLAN_OK, NULL);
    o.sglang_rules_flip = KVPLAN_RULE_MAMBA_PAD_SLOT;
    kvplan_plan *b =
        plan_of("qwen3-next-80b-a3b-thinking", &o, KVPLAN_OK, NULL);
    int64_t na = a->stages[0].max_mamba_cache_size;
    int64_t nb = b->stages[0].max_mamba_cache_size;
    CHECK(na > 1);
    CHECK_INT(nb, na - 1);
    int64_t diff = a->stages[0].available_bytes - b->stages[0].available_bytes;
    CHECK(diff >= -1 && diff <= 1);
    free(a);
    free(b);
}

/* #34141: a multimodal model keeps 100 MiB out (SGLANG_VLM_CACHE_SIZE_MB). */
static void test_mm_reserve(void)
{
    kvplan_plan_options o = on_gpu("H100-80GB");
    kvplan_plan *a = plan_of("gemma-3-4b-it", &o, KVPLAN_OK, NULL);
    o.sglang_rules_flip = KVPLAN_RULE_MM_RESERVE;
    kvplan_plan *b = plan_of("gemma-3-4b-it", &o, KVPLAN_OK, NULL);
    int64_t diff = a->stages[0].available_bytes - b->stages[0].available_bytes;
    CHECK(diff >= 104857600 - 1 && diff <= 104857600 + 1);
    CHECK_DOUBLE(b->budget.mm_reserve_mib, 100.0);
    o.SGLANG_VLM_CACHE_SIZE_MB = (kvplan_opt_int){0, true};
    kvplan_plan *c = plan_of("gemma-3-4b-it", &o, KVPLAN_OK, NULL);
    CHECK_INT(c->stages[0].available_bytes, a->stages[0].available_bytes);
    /* a text model keeps none */
    kvplan_plan *d = plan_of("llama-3.1-8b-instruct", &o, KVPLAN_OK, NULL);
    CHECK_DOUBLE(d->budget.mm_reserve_mib, 0.0);
    /* #34262: a PD decode server skips the vision factor */
    o.SGLANG_VLM_CACHE_SIZE_MB.set = false;
    o.sglang_rules_flip = 0;
    o.server.disaggregation_mode = KVPLAN_DISAGG_DECODE;
    kvplan_plan *e = plan_of("gemma-3-4b-it", &o, KVPLAN_OK, NULL);
    CHECK(e->budget.vision_factor != 1);
    o.sglang_rules_flip = KVPLAN_RULE_VLM_PD_DECODE;
    kvplan_plan *f = plan_of("gemma-3-4b-it", &o, KVPLAN_OK, NULL);
    CHECK_DOUBLE(f->budget.vision_factor, 1.0);
    CHECK_DOUBLE(f->budget.mem_fraction_static, f->budget.fraction_rule);
    free(a);
    free(b);
    free(c);
    free(d);
    free(e);
    free(f);
}

/* #33661: DeepSeek-V3 on H200 at TP8: the seed's reserve 512 + 1.5 * 8192 +
 * 1024 + 2 * 512 = 14848 MB (0.897), main's + 1536 for the MLA prefill
 * graph = 16384 (0.886). #31987: DeepEP adds 1024 more with it. */
static void test_mla_prefill_graph(void)
{
    kvplan_plan_options o = on_gpu("H200");
    o.server.tp_size = 8;
    kvplan_plan *a = plan_of("deepseek-v3", &o, KVPLAN_OK, NULL);
    double g = a->budget.gpu_mem_mib;
    CHECK_DOUBLE(a->budget.reserved_mib, 14848.0);
    CHECK_DOUBLE(a->budget.mem_fraction_static, 0.897);
    o.sglang_version = KVPLAN_SGLANG_MAIN;
    kvplan_plan *b = plan_of("deepseek-v3", &o, KVPLAN_OK, NULL);
    CHECK_DOUBLE(b->budget.reserved_mib, 16384.0);
    CHECK_DOUBLE(b->budget.mem_fraction_static, 0.886);
    CHECK_DOUBLE(b->budget.mem_fraction_static,
                 round((g - 16384) / g * 1000) / 1000);
    o.moe_a2a_backend = "deepep";
    kvplan_plan *c = plan_of("deepseek-v3", &o, KVPLAN_OK, NULL);
    o.sglang_rules_flip = KVPLAN_RULE_DEEPEP_PREFILL;
    kvplan_plan *d = plan_of("deepseek-v3", &o, KVPLAN_OK, NULL);
    CHECK_DOUBLE(c->budget.graph_mib - d->budget.graph_mib, 1024.0);
    free(a);
    free(b);
    free(c);
    free(d);
}

/* #30206: --context-length 1024 no longer cuts the prefill batch sizes:
 * 38 sizes up to 1024, 60 up to 8192 (the H100 chunk). */
static void test_prefill_bs_unclamped(void)
{
    kvplan_plan_options o = on_gpu("H100-80GB");
    o.server.context_length = (kvplan_opt_int){1024, true};
    kvplan_plan *a = plan_of("llama-3.1-8b-instruct", &o, KVPLAN_OK, NULL);
    CHECK_INT(a->budget.prefill_graph_bs_count, 8 + 14 + 8 + 8);
    o.sglang_rules_flip = KVPLAN_RULE_PREFILL_BS_UNCLAMPED;
    kvplan_plan *b = plan_of("llama-3.1-8b-instruct", &o, KVPLAN_OK, NULL);
    CHECK_INT(b->budget.prefill_graph_bs_count, 38 + 12 + 4 + 4);
    free(a);
    free(b);
}

/* #30898: DP attention keeps the prefill graph, cut to the per-DP chunk:
 * 8192 / 8 = 1024, 38 batch sizes. */
static void test_dp_attn_prefill_graph(void)
{
    kvplan_plan_options o = on_gpu("H100-80GB");
    o.server.tp_size = 8;
    o.server.dp_size = 8;
    o.server.enable_dp_attention = true;
    kvplan_plan *a = plan_of("llama-3.1-70b", &o, KVPLAN_OK, NULL);
    CHECK_INT(a->budget.prefill_graph_bs_count, 0);
    o.sglang_version = KVPLAN_SGLANG_V0516;
    kvplan_plan *b = plan_of("llama-3.1-70b", &o, KVPLAN_OK, NULL);
    CHECK_INT(b->budget.prefill_graph_bs_count, 38);
    CHECK_DOUBLE(b->budget.graph_mib - a->budget.graph_mib, 8.0 * 38);
    free(a);
    free(b);
}

/* 0.4.8 - 0.5.2: the tier reserve. H100 (81559 MiB, 35-90 GiB) at TP1:
 * 9.5 + 1/2 = 10 GiB, round((81559 - 10240) / 81559, 3) = 0.874; H200 at
 * TP8: 12 + 4 = 16 GiB, 0.886; +2 GiB speculative, +4 GiB DP attention;
 * B200: 32 GiB. */
static void test_fraction_tiers(void)
{
    kvplan_plan_options o = on_gpu("H100-80GB");
    o.sglang_version = KVPLAN_SGLANG_E2;
    kvplan_plan *p = plan_of("llama-3.1-8b-instruct", &o, KVPLAN_OK, NULL);
    CHECK_DOUBLE(p->budget.reserved_mib, 10240.0);
    CHECK_DOUBLE(p->budget.mem_fraction_static, 0.874);
    /* the terms of the rule that ran, for --explain: 9.5 + 1 x 0.5 GiB */
    CHECK(p->budget.fraction_tiers);
    CHECK_DOUBLE(p->budget.tier_base_gib, 9.5);
    CHECK_DOUBLE(p->budget.tier_per_rank_gib, 0.5);
    CHECK_DOUBLE(p->budget.reserve_ranks, 1.0);
    CHECK_DOUBLE((p->budget.tier_base_gib +
                  p->budget.reserve_ranks * p->budget.tier_per_rank_gib) *
                         1024 +
                     p->budget.spec_reserve_mib + p->budget.dp_attention_mib,
                 p->budget.reserved_mib);
    free(p);
    kvplan_model *draft = NULL; /* EAGLE3 starts with its draft only */
    CHECK_INT(kvplan_model_load("eagle3-llama3.1-8b", &draft, NULL), KVPLAN_OK);
    o.server.speculative_algorithm = KVPLAN_SPEC_EAGLE3;
    o.server.speculative_draft_model = draft;
    o.server.speculative_num_steps = (kvplan_opt_int){3, true};
    o.server.speculative_eagle_topk = (kvplan_opt_int){1, true};
    o.server.speculative_num_draft_tokens = (kvplan_opt_int){4, true};
    p = plan_of("llama-3.1-8b-instruct", &o, KVPLAN_OK, NULL);
    CHECK_DOUBLE(p->budget.reserved_mib, 10240.0 + 2048);
    CHECK_DOUBLE(p->budget.spec_reserve_mib, 2048.0);
    free(p);
    kvplan_model_free(draft);
    kvplan_plan_options h = on_gpu("H200");
    h.sglang_version = KVPLAN_SGLANG_E2;
    h.server.tp_size = 8;
    p = plan_of("llama-3.1-70b", &h, KVPLAN_OK, NULL);
    CHECK_DOUBLE(p->budget.reserved_mib, 16384.0);
    CHECK_DOUBLE(
        p->budget.mem_fraction_static,
        round((p->budget.gpu_mem_mib - 16384) / p->budget.gpu_mem_mib * 1000) /
            1000);
    free(p);
    h.server.dp_size = 8;
    h.server.enable_dp_attention = true;
    p = plan_of("llama-3.1-70b", &h, KVPLAN_OK, NULL);
    CHECK_DOUBLE(p->budget.reserved_mib, 16384.0 + 4096);
    free(p);
    kvplan_plan_options b = on_gpu("B200");
    b.sglang_version = KVPLAN_SGLANG_E2;
    p = plan_of("llama-3.1-8b-instruct", &b, KVPLAN_OK, NULL);
    CHECK_DOUBLE(p->budget.reserved_mib, 32768.0);
    free(p);
}

/* 0.5.3 - 0.5.12: a flat speculative reserve after the floor, the draft
 * unpriced, --max-running-requests as given. */
static void test_e3(void)
{
    kvplan_model *m = NULL, *draft = NULL;
    CHECK_INT(kvplan_model_load("llama-3.1-8b-instruct", &m, NULL), KVPLAN_OK);
    CHECK_INT(kvplan_model_load("eagle3-llama3.1-8b", &draft, NULL), KVPLAN_OK);
    kvplan_plan_options o = on_gpu("H100-80GB");
    o.server.speculative_algorithm = KVPLAN_SPEC_EAGLE3;
    o.server.speculative_draft_model = draft;
    kvplan_plan *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    CHECK_INT(kvplan_plan_compute(m, &o, a, NULL), KVPLAN_OK);
    o.sglang_version = KVPLAN_SGLANG_E3;
    CHECK_INT(kvplan_plan_compute(m, &o, b, NULL), KVPLAN_OK);
    /* the seed scales the cell by the draft's layer: 131072 * 33 / 32 */
    CHECK_INT(cell(a), 135168);
    CHECK_INT(cell(b), 131072);
    CHECK(a->budget.rank_draft_bytes > 0);
    CHECK_DOUBLE(b->budget.rank_draft_bytes, 0.0);
    CHECK_DOUBLE(b->budget.reserved_mib - a->budget.reserved_mib, 4096.0);
    CHECK_DOUBLE(b->budget.spec_reserve_mib, 4096.0);
    o.server.speculative_algorithm = KVPLAN_SPEC_STANDALONE;
    CHECK_INT(kvplan_plan_compute(m, &o, b, NULL), KVPLAN_OK);
    CHECK_DOUBLE(b->budget.spec_reserve_mib, 6144.0);
    /* --max-running-requests 800 over 1000 tokens: the seed cuts it to
     * 1000 // 2, older sglang keeps it */
    kvplan_plan_options r = on_gpu("H100-80GB");
    r.max_total_tokens = (kvplan_opt_int){1000, true};
    r.server.max_running_requests = (kvplan_opt_int){800, true};
    CHECK_INT(kvplan_plan_compute(m, &r, a, NULL), KVPLAN_OK);
    CHECK_INT(a->max_running_requests, 500);
    r.sglang_version = KVPLAN_SGLANG_E3;
    CHECK_INT(kvplan_plan_compute(m, &r, b, NULL), KVPLAN_OK);
    CHECK_INT(b->max_running_requests, 800);
    free(a);
    free(b);
    kvplan_model_free(m);
    kvplan_model_free(draft);
}

/* kvplan log takes the version a log names. */
static void test_log_version(void)
{
    static const struct {
        const char *line, *want;
    } lines[] = {
        {"[2026-05-01 10:00:00] sglang version: 0.5.9\n", "0.5.9"},
        {"INFO sglang==0.5.10.post1 starting\n", "0.5.10.post1"},
        {"SGLang v0.5.17 (cuda 12.9)\n", "0.5.17"},
        {"the sglang router\n", ""},
        {"sglang 0.5\n", ""},
    };
    kvplan_log_readings *r = malloc(sizeof *r);
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        /* a line that names no version is no reading: the parse says the
         * text is no sglang log */
        CHECK_INT(
            kvplan_log_parse(lines[i].line, strlen(lines[i].line), r, NULL),
            lines[i].want[0] ? KVPLAN_OK : KVPLAN_PARSE);
        CHECK_STR(r->sglang_version, lines[i].want);
    }
    const char *log = "sglang version: 0.5.9\n";
    CHECK_INT(kvplan_log_parse(log, strlen(log), r, NULL), KVPLAN_OK);
    kvplan_plan_options o;
    kvplan_plan_options_init(&o);
    CHECK_INT(kvplan_log_options(r, &o, NULL), KVPLAN_OK);
    CHECK_INT(o.sglang_version, KVPLAN_SGLANG_E3);
    log = "sglang version: 0.4.3.post4\n"; /* the TP table's */
    CHECK_INT(kvplan_log_parse(log, strlen(log), r, NULL), KVPLAN_OK);
    kvplan_plan_options_init(&o);
    CHECK_INT(kvplan_log_options(r, &o, NULL), KVPLAN_OK);
    CHECK_INT(o.sglang_version, KVPLAN_SGLANG_E1);
    log = "sglang version: 0.2.9\n"; /* no profile: the seed's */
    CHECK_INT(kvplan_log_parse(log, strlen(log), r, NULL), KVPLAN_OK);
    kvplan_plan_options_init(&o);
    CHECK_INT(kvplan_log_options(r, &o, NULL), KVPLAN_OK);
    CHECK_INT(o.sglang_version, KVPLAN_SGLANG_SEED);
    free(r);
}

/* --compare-version in the library (kvplan_version_compare): one delta
 * per rule the versions differ in, each the plan with that rule alone
 * switched, and whether it moves a figure. */
static void test_version_compare(void)
{
    kvplan_model *m = NULL;
    CHECK_INT(kvplan_model_load("deepseek-v3.2", &m, NULL), KVPLAN_OK);
    kvplan_plan_options o = on_gpu("B200");
    o.server.tp_size = 8;
    kvplan_plan *p = malloc(sizeof *p);
    kvplan_version_comparison *c = malloc(sizeof *c);
    kvplan_error err;
    CHECK_INT(kvplan_version_compare(m, &o, KVPLAN_SGLANG_MAIN, p, c, &err),
              KVPLAN_OK);
    CHECK_INT(c->profile, KVPLAN_SGLANG_SEED);
    CHECK_INT(c->compared, KVPLAN_SGLANG_MAIN);
    uint64_t diff = kvplan_sglang_rules(KVPLAN_SGLANG_MAIN);
    size_t bits = 0;
    for (uint64_t d = diff; d != 0; d &= d - 1)
        bits++;
    CHECK_INT(c->num_rules, bits);
    CHECK_INT(c->plan.status, KVPLAN_OK);
    CHECK_INT(c->compared_plan.status, KVPLAN_OK);
    /* the 656-byte DSA row alone: a larger cell, fewer tokens */
    bool seen = false;
    for (size_t i = 0; i < c->num_rules; i++) {
        const kvplan_rule_delta *d = &c->rules[i];
        CHECK(!d->in_plan); /* the seed has none of them */
        if (d->rule.bit != KVPLAN_RULE_DSA_FP8_656)
            continue;
        seen = true;
        CHECK(d->changes);
        CHECK(d->alone.cell_size > c->plan.cell_size);
        CHECK(d->alone.max_total_num_tokens < c->plan.max_total_num_tokens);
    }
    CHECK(seen);
    /* each delta is the plan with that one rule switched */
    o.sglang_rules_flip = KVPLAN_RULE_DSA_FP8_656;
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_OK);
    for (size_t i = 0; i < c->num_rules; i++)
        if (c->rules[i].rule.bit == KVPLAN_RULE_DSA_FP8_656)
            CHECK_INT(c->rules[i].alone.max_total_num_tokens,
                      p->max_total_num_tokens);
    CHECK_INT(
        kvplan_version_compare(m, &o, (kvplan_sglang_profile)9, p, c, &err),
        KVPLAN_INVALID_ARGUMENT);
    free(p);
    free(c);
    kvplan_model_free(m);
}

int main(void)
{
    test_aiter_given();
    test_context_tp1();
    test_fraction_tp_table();
    test_parse();
    test_seed_is_e4();
    test_dsa_fp8_656();
    test_dsa_skip_topk();
    test_fp4_workspace();
    test_dcp_heads();
    test_swa_floor();
    test_dsv4_draft_pad();
    test_mamba_pad_slot();
    test_mm_reserve();
    test_mla_prefill_graph();
    test_prefill_bs_unclamped();
    test_dp_attn_prefill_graph();
    test_fraction_tiers();
    test_e3();
    test_log_version();
    test_version_compare();
    return check_report();
}
