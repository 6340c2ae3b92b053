/*
 * test_trtllm_versions.c: --trtllm-version. Its profiles' boundaries are
 * main's version bumps (1.3.0rc21 on 2026-06-30, TensorRT-LLM#15742, a
 * day before #15823 added use_kv_cache_manager_v2's "auto"; 1.3.0rc28 on
 * 2026-09-17, #19346, after Llama's #19004), and the one rule they move
 * is the KV cache manager a model gets when use_kv_cache_manager_v2 is
 * not given: V1 for every model before #15823; V2 for the families of
 * TensorRT-LLM's KV cache docs (docs/source/features/kvcache.md,
 * "Selecting the KV Cache Manager") after; between, refused for those
 * families unless given either way.
 */
#include "engine_plan.h"

static kvplan_trtllm_profile parsed(const char *v, kvplan_status want)
{
    kvplan_trtllm_profile p = (kvplan_trtllm_profile)99;
    kvplan_error err;
    CHECK_INT(kvplan_trtllm_profile_parse(v, &p, &err), want);
    if (want != KVPLAN_OK)
        CHECK_STR(err.field, "--trtllm-version");
    return p;
}

static void test_parse(void)
{
    CHECK_INT(parsed("latest", KVPLAN_OK), KVPLAN_TRTLLM_LATEST);
    CHECK_INT(parsed("main", KVPLAN_OK), KVPLAN_TRTLLM_LATEST);
    CHECK_INT(parsed("1.0.0", KVPLAN_OK), KVPLAN_TRTLLM_V1_0);
    CHECK_INT(parsed("1.1.0rc3", KVPLAN_OK), KVPLAN_TRTLLM_V1_0);
    CHECK_INT(parsed("1.2", KVPLAN_OK), KVPLAN_TRTLLM_V1_0);
    CHECK_INT(parsed("v1.2.0", KVPLAN_OK), KVPLAN_TRTLLM_V1_0);
    /* the DeepSeek-V4 branch's release (#14690, 2026-05-28) */
    CHECK_INT(parsed("1.3.0rc15.post1", KVPLAN_OK), KVPLAN_TRTLLM_V1_0);
    CHECK_INT(parsed("1.3.0rc20", KVPLAN_OK), KVPLAN_TRTLLM_V1_0);
    CHECK_INT(parsed("1.3.0rc21", KVPLAN_OK), KVPLAN_TRTLLM_RC21);
    CHECK_INT(parsed("1.3.0rc24", KVPLAN_OK), KVPLAN_TRTLLM_RC21);
    CHECK_INT(parsed("1.3.0rc27", KVPLAN_OK), KVPLAN_TRTLLM_RC21);
    CHECK_INT(parsed("1.3.0rc28", KVPLAN_OK), KVPLAN_TRTLLM_LATEST);
    CHECK_INT(parsed("v1.4.0rc4", KVPLAN_OK), KVPLAN_TRTLLM_LATEST);
    CHECK_INT(parsed("1.4.0", KVPLAN_OK), KVPLAN_TRTLLM_LATEST);
    CHECK_INT(parsed("1.0-1.3.0rc20", KVPLAN_OK), KVPLAN_TRTLLM_V1_0);
    CHECK_INT(parsed("1.3.0rc21-rc27", KVPLAN_OK), KVPLAN_TRTLLM_RC21);
    kvplan_error err;
    kvplan_trtllm_profile p;
    CHECK_INT(kvplan_trtllm_profile_parse("1.3.0", &p, &err),
              KVPLAN_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "1.3.0 itself");
    parsed("1.3", KVPLAN_INVALID_ARGUMENT);
    CHECK_INT(kvplan_trtllm_profile_parse("0.21.0", &p, &err),
              KVPLAN_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "older than 1.0");
    CHECK_INT(kvplan_trtllm_profile_parse("1.5.0", &p, &err),
              KVPLAN_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "newer than 1.4");
    CHECK_INT(kvplan_trtllm_profile_parse("1.3.0rcX", &p, &err),
              KVPLAN_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "not a version");
    parsed(NULL, KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(kvplan_trtllm_profile_name(KVPLAN_TRTLLM_LATEST),
              "1.3.0rc28-1.4");
    CHECK(kvplan_trtllm_profile_name((kvplan_trtllm_profile)7) == NULL);
    CHECK_INT(kvplan_trtllm_rules(KVPLAN_TRTLLM_LATEST), 0);
    CHECK_INT(kvplan_trtllm_rules(KVPLAN_TRTLLM_V1_0),
              KVPLAN_TRTLLM_RULE_V1_DEFAULT |
                  KVPLAN_TRTLLM_RULE_V2_SYNC_RAISES);
    CHECK_INT(kvplan_trtllm_rules(KVPLAN_TRTLLM_RC21), 0);
    kvplan_rule_info r;
    CHECK(kvplan_trtllm_rule_at(0, &r));
    CHECK_STR(r.name, "v1_default");
    CHECK_CONTAINS(r.source, "#15823");
    CHECK(kvplan_trtllm_rule_at(1, &r));
    CHECK_STR(r.name, "v2_sync_raises");
    CHECK_CONTAINS(r.source, "#15991");
    CHECK(!kvplan_trtllm_rule_at(2, &r));
}

/* One plan's manager and how it was chosen. */
static void manager_is(const char *model, kvplan_engine_options *o, int want,
                       kvplan_kv_cache_manager_choice choice)
{
    kvplan_engine_plan p = plan(model, o, KVPLAN_OK, NULL);
    CHECK_INT(p.kv_cache_manager, want);
    CHECK_INT(p.kv_cache_manager_choice, choice);
    CHECK_INT(p.trtllm_version, o->trtllm_version);
}

/* The rule v1_default: Llama 3.1 8B (the docs' table, #19004) takes V2 by
 * default in the newest, V1 before 1.3.0rc21, and between is refused
 * unless given; Qwen3 (not in the table) takes V1 in all three. */
static void test_v1_default(void)
{
    kvplan_engine_options o = trtllm_options(1, false);
    manager(&o, 0);
    manager_is("llama-3.1-8b-instruct", &o, 2, KVPLAN_KVCM_DEFAULT);
    kvplan_engine_plan p = plan("llama-3.1-8b-instruct", &o, KVPLAN_OK, NULL);
    CHECK_STR(p.v2_default, "Llama (TensorRT-LLM's KV cache docs)");
    CHECK_INT(p.trtllm_rules, 0);
    manager_is("qwen3-8b", &o, 1, KVPLAN_KVCM_DEFAULT);
    manager_is("gpt-oss-20b", &o, 2, KVPLAN_KVCM_DEFAULT);
    manager_is("gemma-3-4b-it", &o, 2, KVPLAN_KVCM_DEFAULT);
    /* V2's states hold max_batch_size requests: 2048 are past an H100 */
    kvplan_error err;
    plan("nemotron-3-nano-30b-a3b", &o, KVPLAN_NOT_ENOUGH_MEMORY, &err);
    CHECK_STR(err.field, "--max-num-seqs");
    o.max_num_seqs = (kvplan_opt_int){64, true};
    manager_is("nemotron-3-nano-30b-a3b", &o, 2, KVPLAN_KVCM_DEFAULT);
    o.trtllm_version = KVPLAN_TRTLLM_V1_0;
    manager_is("llama-3.1-8b-instruct", &o, 1, KVPLAN_KVCM_DEFAULT);
    p = plan("llama-3.1-8b-instruct", &o, KVPLAN_OK, NULL);
    CHECK_INT(p.trtllm_rules, KVPLAN_TRTLLM_RULE_V1_DEFAULT |
                                  KVPLAN_TRTLLM_RULE_V2_SYNC_RAISES);
    manager_is("gpt-oss-20b", &o, 1, KVPLAN_KVCM_DEFAULT);
    manager_is("qwen3-8b", &o, 1, KVPLAN_KVCM_DEFAULT);
    /* Gemma 4 has V2 in every release, whatever is given */
    manager_is("gemma-4-26b-a4b", &o, 2, KVPLAN_KVCM_MODEL);
    manager(&o, 1);
    manager_is("gemma-4-26b-a4b", &o, 2, KVPLAN_KVCM_MODEL);
    manager(&o, 2);
    manager_is("llama-3.1-8b-instruct", &o, 2, KVPLAN_KVCM_GIVEN);
    /* between: the family's release not pinned down */
    o.trtllm_version = KVPLAN_TRTLLM_RC21;
    manager(&o, 0);
    plan("llama-3.1-8b-instruct", &o, KVPLAN_UNSUPPORTED, &err);
    CHECK_STR(err.field, "--trtllm-version");
    CHECK_CONTAINS(err.message, "Llama");
    CHECK_CONTAINS(err.message, "--no-use-kv-cache-manager-v2");
    manager_is("qwen3-8b", &o, 1, KVPLAN_KVCM_DEFAULT);
    manager(&o, 1);
    manager_is("llama-3.1-8b-instruct", &o, 1, KVPLAN_KVCM_GIVEN);
    /* both asked: refused, not one of them dropped */
    o.use_kv_cache_manager_v2 = true;
    plan("llama-3.1-8b-instruct", &o, KVPLAN_INVALID_ARGUMENT, &err);
    CHECK_STR(err.field, "--no-use-kv-cache-manager-v2");
}

/* The four classes #16060 names ("DeepseekV3ForCausalLM,
 * DeepseekV32ForCausalLM, GlmMoeDsaForCausalLM, and
 * MistralLarge3ForCausalLM select V2 by default when this option is
 * auto", docs/source/features/kvcache.md as it merged, 2026-08-07):
 * DeepSeek R1 (DeepseekV3ForCausalLM, MLA not sparse) and DeepSeek V3.2
 * (DSA) take V2 when nothing is given, V1 before 1.3.0rc21 (kvplan
 * 0.12.0 planned V1 for R1 in every release, exit 0). DeepSeek V2 Lite,
 * another class, keeps V1. */
static void test_deepseek(void)
{
    kvplan_engine_options o = trtllm_options(8, false);
    CHECK(kvplan_gpu_preset("H200", &o.gpu));
    manager(&o, 0);
    manager_is("deepseek-r1", &o, 2, KVPLAN_KVCM_DEFAULT);
    kvplan_engine_plan p = plan("deepseek-r1", &o, KVPLAN_OK, NULL);
    CHECK_STR(p.v2_default, "DeepSeek V3 / R1 (#16060)");
    p = plan("deepseek-v3.2", &o, KVPLAN_OK, NULL);
    CHECK_INT(p.kv_cache_manager, 2);
    CHECK_STR(p.v2_default, "the DSA models (#16060)");
    manager_is("deepseek-v2-lite", &o, 1, KVPLAN_KVCM_DEFAULT);
    o.trtllm_version = KVPLAN_TRTLLM_V1_0;
    manager_is("deepseek-r1", &o, 1, KVPLAN_KVCM_DEFAULT);
    kvplan_error err;
    o.trtllm_version = KVPLAN_TRTLLM_RC21;
    plan("deepseek-r1", &o, KVPLAN_UNSUPPORTED, &err);
    CHECK_STR(err.field, "--trtllm-version");
    CHECK_CONTAINS(err.message, "DeepSeek V3 / R1");
}

/* --compare-version under --engine trtllm
 * (kvplan_trtllm_version_compare): Llama 3.1 8B on an H100, the newest
 * against 1.2.0 (1.0-1.3.0rc20): V2 against V1, the rule v1_default in
 * the other, and alone it gives that plan; against 1.3.0rc24 no rule
 * differs and the other plan is the refusal, its message kept. Qwen3 8B
 * is V1 in both: the rule moves nothing. */
static void test_compare(void)
{
    kvplan_engine_options o = trtllm_options(1, false);
    manager(&o, 0);
    kvplan_model *m = NULL;
    CHECK_INT(kvplan_model_load("llama-3.1-8b-instruct", &m, NULL), KVPLAN_OK);
    kvplan_trtllm_version_comparison c;
    CHECK_INT(
        kvplan_trtllm_version_compare(m, &o, KVPLAN_TRTLLM_V1_0, &c, NULL),
        KVPLAN_OK);
    CHECK_INT(c.profile, KVPLAN_TRTLLM_LATEST);
    CHECK_INT(c.compared, KVPLAN_TRTLLM_V1_0);
    CHECK_INT(c.kv_cache_manager, 2);
    CHECK_INT(c.compared_kv_cache_manager, 1);
    kvplan_engine_plan p = plan("llama-3.1-8b-instruct", &o, KVPLAN_OK, NULL);
    CHECK_INT(c.plan.num_gpu_blocks, p.num_gpu_blocks);
    o.trtllm_version = KVPLAN_TRTLLM_V1_0;
    p = plan("llama-3.1-8b-instruct", &o, KVPLAN_OK, NULL);
    CHECK_INT(c.compared_plan.num_gpu_blocks, p.num_gpu_blocks);
    CHECK(c.plan.num_gpu_blocks != c.compared_plan.num_gpu_blocks);
    CHECK_INT(c.num_rules, 2);
    CHECK_STR(c.rules[0].rule.name, "v1_default");
    CHECK(!c.rules[0].in_plan && c.rules[0].changes);
    CHECK_INT(c.rules[0].alone.num_gpu_blocks, p.num_gpu_blocks);
    /* one rank: the sync changes nothing */
    CHECK_STR(c.rules[1].rule.name, "v2_sync_raises");
    CHECK(!c.rules[1].changes);
    o.trtllm_version = KVPLAN_TRTLLM_LATEST;
    CHECK_INT(
        kvplan_trtllm_version_compare(m, &o, KVPLAN_TRTLLM_RC21, &c, NULL),
        KVPLAN_OK);
    CHECK_INT(c.num_rules, 0);
    CHECK_INT(c.compared_plan.status, KVPLAN_UNSUPPORTED);
    CHECK_INT(c.compared_kv_cache_manager, 0);
    CHECK_CONTAINS(c.compared_plan.error, "1.3.0rc21-rc27");
    kvplan_error err;
    CHECK_INT(kvplan_trtllm_version_compare(m, &o, (kvplan_trtllm_profile)9, &c,
                                            &err),
              KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "--compare-version");
    CHECK_INT(
        kvplan_trtllm_version_compare(NULL, &o, KVPLAN_TRTLLM_V1_0, &c, &err),
        KVPLAN_INVALID_ARGUMENT);
    kvplan_model_free(m);
    CHECK_INT(kvplan_model_load("qwen3-8b", &m, NULL), KVPLAN_OK);
    CHECK_INT(
        kvplan_trtllm_version_compare(m, &o, KVPLAN_TRTLLM_V1_0, &c, NULL),
        KVPLAN_OK);
    CHECK_INT(c.num_rules, 2);
    CHECK(!c.rules[0].changes && !c.rules[1].changes);
    CHECK_INT(c.kv_cache_manager, 1);
    kvplan_model_free(m);
}

/* A hybrid Mamba under V1: kvplan restates V1's cost as releases before
 * 1.3.0rc21 priced it (a snapshot every mamba_state_cache_interval
 * tokens); the newest V1 (kv_cache/mamba_cache_manager) holds every live
 * and dummy state and is not restated: refused in the newest, naming
 * what asked for V1 (the flag, or the release for a model whose default
 * V1 is). */
static void test_mamba_v1(void)
{
    kvplan_engine_options o = trtllm_options(1, false);
    o.max_gpu_total_bytes = (kvplan_opt_int){32LL << 30, true};
    kvplan_error err;
    plan("nemotron-3-nano-30b-a3b", &o, KVPLAN_UNSUPPORTED, &err);
    CHECK_STR(err.field, "--no-use-kv-cache-manager-v2");
    CHECK_CONTAINS(err.message, "1.3.0rc28-1.4's V1");
    o.trtllm_version = KVPLAN_TRTLLM_V1_0;
    kvplan_engine_plan p = plan("nemotron-3-nano-30b-a3b", &o, KVPLAN_OK, NULL);
    CHECK_INT(p.kv_cache_manager, 1);
    CHECK_INT(p.groups[1].spec, KVPLAN_KV_SPEC_MAMBA);
}

/* The rule v2_sync_raises: Gemma 4 26B (V2 in every release) at TP 2
 * under a 40 GiB cap with the default 2048 requests, whose windows are
 * 200 GiB a rank. Clamped (1fe0b08), int(40 GiB x 0.95) holds no tokens,
 * their quota (the windows) over 0.95 is above 40 GiB, and the quota stays
 * 40 GiB; before the clamp the quota became the windows, which the GPU
 * does not hold, and kvplan refuses naming --max-num-seqs. */
static void test_v2_sync_raises(void)
{
    kvplan_engine_options o = trtllm_options(2, true);
    o.max_gpu_total_bytes = (kvplan_opt_int){40LL << 30, true};
    kvplan_engine_plan p = plan("gemma-4-26b-a4b", &o, KVPLAN_OK, NULL);
    CHECK_INT(p.gpu_quota_bytes, 40LL << 30);
    CHECK_INT(p.trtllm_rules, 0);
    o.trtllm_version = KVPLAN_TRTLLM_V1_0;
    kvplan_error err;
    plan("gemma-4-26b-a4b", &o, KVPLAN_NOT_ENOUGH_MEMORY, &err);
    CHECK_STR(err.field, "--max-num-seqs");
    CHECK_CONTAINS(err.message, "turns its quota");
}

int main(void)
{
    test_parse();
    test_v1_default();
    test_deepseek();
    test_compare();
    test_mamba_v1();
    test_v2_sync_raises();
    return check_report();
}
