/*
 * trtllm_v2.c: TensorRT-LLM's KV cache manager V2 (KVCacheManagerV2,
 * tensorrt_llm/_torch/pyexecutor/kv_cache_manager_v2.py, over the storage
 * of tensorrt_llm/runtime/kv_cache_manager_v2), for the models whose every
 * layer holds all of a sequence (docs/engines.md, "KV cache manager V2").
 *
 * KvCacheCreator gives V2 its budget as max_gpu_total_bytes only
 * (configure_kv_cache_capacity, _util.py); the manager takes it as the GPU
 * tier's quota, less what a given max_tokens allows
 * (ceil(quota_from_max_tokens / max_util_for_resume)), synced over the
 * ranks through tokens. Its layers make one life cycle, so one pool group,
 * whose pools coalesce the buffers of one size (create_storage_config,
 * _storage/_config.py): K and V of every layer in one pool when their pages
 * are equal, MLA's latent (SELFKONLY) alone. The quota is rounded up to
 * grains of 2 MiB << min(4, max(0, int(log2(quota / 1 GiB))))
 * (cache_tier_granularity, _storage_manager.py) and the pool group takes
 * the most slots whose pools fit the grains, each pool rounded up to a
 * grain (_grains_to_slots, _storage/_core.py). A slot is one block of
 * every layer.
 */
#include "engine/engine.h"

#include <math.h>
#include <string.h>

/* The model classes for which use_kv_cache_manager_v2's default, auto,
 * picks V2: the table of TensorRT-LLM's own docs
 * (docs/source/features/kvcache.md, "Selecting the KV Cache Manager",
 * 0076e93, 2026): hybrid Mamba (NemotronH and its multimodal models,
 * Qwen3-Next), DeepSeek-V4 (V2 its only manager: kvplan__trtllm_manager
 * gives it V2 before this table), GPT-OSS (#16942), Gemma 3 and 4 (#17396),
 * Llama and Llama 4; MiniMax M2 by its own PR (#17360), which that table
 * does not list; and the four classes #16060 (merged 2026-08-07) names in
 * the same docs section, "DeepseekV3ForCausalLM, DeepseekV32ForCausalLM,
 * GlmMoeDsaForCausalLM, and MistralLarge3ForCausalLM select V2 by default
 * when this option is auto": the DSA models, DeepSeek V3 / R1 (and Kimi K2,
 * the same class) and Mistral Large 3. The later table dropped them, not
 * the code (modeling_deepseekv3.py at v1.3.0rc25 declares the preference).
 * By architectures[0]'s prefix. (Kimi K2.5, in #18228's draft notes: no
 * code read says so.) */
static const struct {
    const char *prefix, *family;
} v2_defaults[] = {
    {"NemotronH", "NemotronH, a hybrid Mamba (TensorRT-LLM's KV cache docs)"},
    {"Qwen3Next", "Qwen3-Next, a hybrid Mamba (TensorRT-LLM's KV cache docs)"},
    {"DeepseekV3ForCausalLM", "DeepSeek V3 / R1 (#16060)"},
    {"MistralLarge3ForCausalLM", "Mistral Large 3 (#16060)"},
    {"GptOss", "GPT-OSS (#16942)"},
    {"MiniMaxM2", "MiniMax M2 (#17360)"},
    {"Gemma3", "Gemma 3 (#17396)"},
    {"Gemma4", "Gemma 4 (#17396)"},
    {"Llama4", "Llama 4 (TensorRT-LLM's KV cache docs)"},
    {"LlamaForCausalLM", "Llama (TensorRT-LLM's KV cache docs)"},
};

const char *kvplan__trtllm_v2_default(const char *architecture, bool dsa)
{
    if (dsa)
        return "the DSA models (#16060)";
    for (size_t i = 0;
         architecture != NULL && i < sizeof v2_defaults / sizeof v2_defaults[0];
         i++)
        if (strncmp(architecture, v2_defaults[i].prefix,
                    strlen(v2_defaults[i].prefix)) == 0)
            return v2_defaults[i].family;
    return NULL;
}

/* What V2 does not size as kvplan restates it, refused in the caller's
 * terms: the flag that asks for it, else --use-kv-cache-manager-v2 (or
 * the model, where TensorRT-LLM takes V2 for it). */
#define V2_WHY                                                                 \
    "%s: kvplan does not model %s under TensorRT-LLM's KV cache manager V2 "   \
    "(it sizes V2's pools of attention layers, full or windowed)%s"
kvplan_status kvplan__trtllm_v2_check(const kvplan__engine_census *c,
                                      const kvplan_engine_options *o,
                                      const kvplan_engine_plan *p,
                                      kvplan_error *err)
{
    bool v2 = p->kv_cache_manager == 2;
    bool gemma4 = p->kv_cache_manager_choice == KVPLAN_KVCM_MODEL;
    /* TensorRT-LLM reads max_util_for_resume only under V2 with
     * max_tokens: elsewhere it would change nothing, and an answer would
     * hide that */
    KVPLAN__FAIL_IF(o->max_util_for_resume.set && !(v2 && o->max_tokens.set),
                    err, KVPLAN_INVALID_ARGUMENT, "--max-util-for-resume",
                    "--max-util-for-resume bounds the quota a --max-tokens "
                    "allows under KV cache manager V2 "
                    "(--use-kv-cache-manager-v2); without both it changes "
                    "nothing");
    KVPLAN__FAIL_IF(o->avg_seq_len.set && !v2, err, KVPLAN_INVALID_ARGUMENT,
                    "--avg-seq-len",
                    "--avg-seq-len sets KV cache manager V2's typical step "
                    "(--use-kv-cache-manager-v2); V1 does not read it");
    if (!v2)
        return KVPLAN_OK;
    bool given = p->kv_cache_manager_choice == KVPLAN_KVCM_GIVEN;
    const char *flag = given ? "--use-kv-cache-manager-v2" : "--model-path";
    const char *v1 = given    ? "; plan V1 without the flag"
                     : gemma4 ? " (TensorRT-LLM takes V2 for Gemma 4)"
                              : " (V2 is this model's default in "
                                "TensorRT-LLM 1.3.0rc28 and later: "
                                "--no-use-kv-cache-manager-v2 plans V1)";
    /* sliding layers of their own geometry other than Gemma 4's: V2 gets
     * one geometry for every layer from TensorRT-LLM there */
    bool own =
        !gemma4 && c->hybrid_swa &&
        (c->swa_kv_heads != c->kv_heads || c->swa_head_dim != c->head_dim ||
         c->swa_v_head_dim != c->v_head_dim);
    KVPLAN__TRY(kvplan__trtllm_v2_mamba_check(c, o, err));
    const char *model =
        c->dsa && c->dsa_shared ? "DSA layers that share another's indexer (a "
                                  "top-k schedule)"
        : own                   ? "sliding-window layers of their own geometry "
                                  "(other than Gemma 4's)"
        : c->draft_layers > 0 &&
                (gemma4 || c->mla || c->draft_head_dim != c->head_dim ||
                 c->draft_v_head_dim != c->v_head_dim)
            ? "a speculative draft's layers of a head_dim "
              "other than the target's, or beside Gemma 4's "
              "or MLA's (V2 gives every layer the target's "
              "head_dim)"
            : NULL;
    KVPLAN__FAIL_IF(model != NULL, err, KVPLAN_UNSUPPORTED, flag, V2_WHY, flag,
                    model, v1);
    KVPLAN__FAIL_IF(o->separate_draft_kv_cache, err, KVPLAN_UNSUPPORTED,
                    "--separate-draft-kv-cache", V2_WHY,
                    "--separate-draft-kv-cache", "a separate draft KV cache",
                    v1);
    return KVPLAN_OK;
}

/* Gemma 4's hybrid attention (is_gemma4_hybrid, _torch/pyexecutor/
 * config_utils.py: global_head_dim unlike head_dim): per-layer geometry
 * only V2 allocates, so TensorRT-LLM takes V2 whatever
 * use_kv_cache_manager_v2 says (_non_hybrid_kv_cache_manager_cls,
 * _util.py). */
bool kvplan__trtllm_gemma4(const kvplan_model *m)
{
    const kvplan_model_info *i = kvplan_model_get_info(m);
    return i->architecture != NULL &&
           strncmp(i->architecture, "Gemma4", 6) == 0 && m->swa_ids.count > 0 &&
           m->swa_head_dim != i->head_dim;
}

bool kvplan__trtllm_v2_derives(const kvplan__engine_census *c)
{
    return c->swa_layers > 0 && c->full_layers > 0 && c->window > 0 &&
           !c->mambaish;
}

/* V2's layers in order, each with its window and its K and V bytes a
 * token: --max-attention-window's pattern (each clamped to max_seq_len,
 * one at max_seq_len none); else the windows V2 derives for a model whose
 * layers mix sliding and full attention under one sliding_window (GPT-OSS,
 * Gemma 3: "sliding layers get sliding_window, full layers get
 * max_seq_len", docs/source/features/kvcache.md, "Selecting the KV Cache
 * Manager", TensorRT-LLM 0076e93, 2026; get_layer_attention_window,
 * config_utils.py), and Gemma 4's own (_create_kv_cache_manager), Gemma
 * 4's in the sliding layers' geometry and the full layers'
 * (global_head_dim, and num_global_key_value_heads only with
 * attention_k_eq_v: the caller gives the census the heads TensorRT-LLM
 * takes), the others' in one geometry. */
static kvplan_status v2_layers(const kvplan__engine_census *c,
                               const kvplan_engine_options *o, bool gemma4,
                               int64_t layers, int64_t tpb, int64_t len,
                               kvplan__trtllm_v2_storage *s, kvplan_error *err)
{
    bool ovf = false;
    int64_t pattern[KVPLAN__TRTLLM_MAX_PATTERN];
    size_t n = 0;
    if (o->max_attention_window != NULL)
        KVPLAN__TRY(kvplan__trtllm_window_pattern(o->max_attention_window, len,
                                                  pattern, &n, err));
    bool derived = gemma4 || (n == 0 && kvplan__trtllm_v2_derives(c));
    bool windows = n > 0 || derived;
    KVPLAN__FAIL_IF(windows && o->pp_size > 1, err, KVPLAN_UNSUPPORTED,
                    "--pp-size",
                    "--pp-size %lld: kvplan does not model the stages' "
                    "share of V2's windowed layers (plan one stage with "
                    "--pp-size 1)",
                    (long long)o->pp_size);
    KVPLAN__FAIL_IF(c->mla && windows, err, KVPLAN_UNSUPPORTED,
                    "--max-attention-window",
                    "--max-attention-window with MLA is not modelled");
    int64_t elem = c->kv_elem;
    int64_t k = c->mla
                    ? kvplan__mul(c->mla_dim, elem, &ovf)
                    : kvplan__mul(kvplan__mul(c->kv_heads, c->head_dim, &ovf),
                                  elem, &ovf);
    int64_t v = c->mla
                    ? 0
                    : kvplan__mul(kvplan__mul(c->kv_heads, c->v_head_dim, &ovf),
                                  elem, &ovf);
    int64_t sk = kvplan__mul(
        kvplan__mul(c->swa_kv_heads, c->swa_head_dim, &ovf), elem, &ovf);
    int64_t sv = kvplan__mul(
        kvplan__mul(c->swa_kv_heads, c->swa_v_head_dim, &ovf), elem, &ovf);
    /* DSA's indexer keys on every layer (DSACacheManagerV2: index_head_dim
     * fp8 bytes and a 4-byte scale per 128, as uint8) */
    int64_t x = c->dsa ? c->index_bytes : 0;
    KVPLAN__FAIL_IF(ovf, err, KVPLAN_OVERFLOW, "--model-path",
                    "the KV bytes per token exceed 64 bits");
    /* a hybrid Mamba's states: one SSM life cycle, registered before the
     * attention's where a mamba layer comes first */
    bool mamba = c->mambaish && c->mamba_layers > 0;
    bool ssm_first = mamba && !(c->attn_at.count > 0 && c->attn_at.ids[0] == 0);
    if (ssm_first)
        KVPLAN__TRY(kvplan__trtllm_v2_add_ssm(s, c->mamba_layers, c->mamba_ssm,
                                              c->mamba_conv, err));
    size_t next = 0; /* the next sliding layer's id in swa_at */
    for (int64_t i = 0; i < layers; i++) {
        bool sliding = false;
        if (derived) {
            while (next < c->swa_at.count && c->swa_at.ids[next] < i)
                next++;
            sliding = next < c->swa_at.count && c->swa_at.ids[next] == i;
        }
        int64_t w = n > 0     ? pattern[(size_t)i % n]
                    : sliding ? kvplan__min(c->window, len)
                              : 0;
        if (w >= len)
            w = 0;                    /* at max_seq_len: none */
        bool own = gemma4 && sliding; /* Gemma 4's sliding geometry */
        KVPLAN__TRY(kvplan__trtllm_v2_add_layer(s, w, own ? sk : k,
                                                own ? sv : v, x, tpb, err));
    }
    if (mamba && !ssm_first)
        KVPLAN__TRY(kvplan__trtllm_v2_add_ssm(s, c->mamba_layers, c->mamba_ssm,
                                              c->mamba_conv, err));
    /* an EAGLE head's layers after the target's, in the same manager:
     * the head's KV heads, the target's head_dim (head_dim is one int for
     * every layer there; _build_per_layer_num_kv_heads, _util.py) */
    int64_t dk = kvplan__mul(kvplan__mul(c->draft_kv_heads, c->head_dim, &ovf),
                             elem, &ovf);
    int64_t dv = kvplan__mul(
        kvplan__mul(c->draft_kv_heads, c->v_head_dim, &ovf), elem, &ovf);
    for (int64_t i = layers; i < layers + c->draft_layers; i++) {
        int64_t w = n > 0 ? pattern[(size_t)i % n] : 0;
        KVPLAN__TRY(kvplan__trtllm_v2_add_layer(s, w >= len ? 0 : w, dk, dv, 0,
                                                tpb, err));
    }
    KVPLAN__FAIL_IF(
        !kvplan__trtllm_v2_group(s), err, KVPLAN_OVERFLOW, "--tokens-per-block",
        "--tokens-per-block %lld: a slot exceeds 64 bits", (long long)tpb);
    return kvplan__ok(err);
}

/* A row per life cycle, the slots its pool group holds; the plan's
 * blocks are the full layers' pool group's (else the widest window's),
 * its concurrency the pool group that runs out first for requests of
 * max_model_len (a windowed life cycle holds the blocks get_stale_range
 * leaves at its last token). */
static void v2_rows(const kvplan__engine_census *c,
                    const kvplan__trtllm_v2_storage *s, int64_t tpb,
                    kvplan_engine_plan *p, bool *ovf)
{
    int64_t len = p->max_model_len, need[KVPLAN_MAX_ENGINE_GROUPS] = {0};
    int64_t slot[KVPLAN_MAX_ENGINE_GROUPS] = {0}; /* a pool group's bytes */
    size_t main = 0;
    int64_t widest = -1, bytes = 0;
    for (size_t g = 0; g < s->groups; g++)
        for (size_t j = 0; j < s->pg[g].pools; j++)
            slot[g] = kvplan__add(slot[g], s->pg[g].size[j], ovf);
    p->num_groups = s->life_cycles;
    p->group_size = 0;
    for (size_t i = 0; i < s->life_cycles; i++) {
        const kvplan__trtllm_v2_life_cycle *lc = &s->lc[i];
        bool first = true; /* its pool group's first row: the host slots */
        for (size_t j = 0; j < i; j++)
            first &= s->lc[j].group != lc->group;
        p->group_size += lc->layers;
        if (lc->window == KVPLAN__V2_SSM) { /* a request's states: a slot */
            need[lc->group] = -1;
            p->groups[i] =
                (kvplan_engine_group){KVPLAN_KV_SPEC_MAMBA,
                                      lc->layers,
                                      0,
                                      c->mamba_page,
                                      c->mamba_page,
                                      0,
                                      0,
                                      c->mamba_page,
                                      s->pg[lc->group].slots,
                                      first ? s->pg[lc->group].host : 0};
            continue;
        }
        int64_t page = slot[lc->group] / lc->layers;
        int64_t blocks = kvplan__trtllm_v2_request_blocks(lc->window, 0, len,
                                                          len - 1, tpb, ovf);
        need[lc->group] = kvplan__add(
            need[lc->group],
            lc->window == 0 ? len : kvplan__min(len, blocks * tpb), ovf);
        int64_t reach = lc->window == 0 ? INT64_MAX : lc->window;
        if (reach > widest) {
            widest = reach;
            main = lc->group;
        }
        p->groups[i] =
            (kvplan_engine_group){lc->window > 0 ? KVPLAN_KV_SPEC_SLIDING_WINDOW
                                  : c->mla       ? KVPLAN_KV_SPEC_MLA
                                                 : KVPLAN_KV_SPEC_FULL,
                                  lc->layers,
                                  0,
                                  page,
                                  page,
                                  tpb,
                                  lc->window,
                                  kvplan__mul(blocks, page, ovf),
                                  s->pg[lc->group].slots,
                                  first ? s->pg[lc->group].host : 0};
    }
    double conc = -1;
    for (size_t g = 0; g < s->groups; g++) {
        bytes =
            kvplan__add(bytes, kvplan__mul(s->pg[g].slots, slot[g], ovf), ovf);
        /* the SSM pool: a slot a request, one the CUDA-graph dummy's */
        double x = need[g] < 0
                       ? (double)(s->pg[g].slots - 1)
                       : (double)s->pg[g].slots * (double)tpb / (double)need[g];
        if (len > 0 && (conc < 0 || x < conc))
            conc = x;
    }
    p->num_gpu_blocks = s->pg[main].slots;
    p->kv_cache_tokens = kvplan__mul(p->num_gpu_blocks, tpb, ovf);
    p->available_bytes = bytes;
    p->max_concurrency = conc > 0 ? conc : 0;
}

kvplan_status kvplan__trtllm_v2_avg_check(const kvplan__engine_census *c,
                                          const kvplan_engine_options *o,
                                          const kvplan_engine_plan *p,
                                          kvplan_error *err)
{
    if (!o->avg_seq_len.set)
        return KVPLAN_OK;
    KVPLAN__FAIL_IF(o->avg_seq_len.value > p->max_model_len, err,
                    KVPLAN_INVALID_ARGUMENT, "--avg-seq-len",
                    "--avg-seq-len %lld: TensorRT-LLM refuses it "
                    "(\"kv_cache_config.avg_seq_len (%lld) must be less than "
                    "or equal to max_seq_len (%lld)\")",
                    (long long)o->avg_seq_len.value,
                    (long long)o->avg_seq_len.value,
                    (long long)p->max_model_len);
    KVPLAN__FAIL_IF(c->draft_layers > 0, err, KVPLAN_UNSUPPORTED,
                    "--avg-seq-len",
                    "--avg-seq-len beside a speculative draft (whose tokens "
                    "join V2's typical step) is not modelled by kvplan");
    return KVPLAN_OK;
}

/* The constraints V2's base sets with a typical step (_build_base_config):
 * one request at max_seq_len beside max_batch_size - 1 minimal decodes,
 * and one fresh context of max_num_tokens; a hybrid Mamba appends its
 * `dummies` to each. Each raises the pool groups' least slots. */
void kvplan__trtllm_v2_constraints(const kvplan_engine_plan *p, int64_t dummies,
                                   int64_t tpb, kvplan__trtllm_v2_storage *s,
                                   bool *ovf)
{
    int64_t len = p->max_model_len;
    kvplan__trtllm_v2_step warmup = {
        3, {{1, len, len - 1}, {p->max_num_seqs - 1, 1, 0}, {dummies, 0, 0}}};
    kvplan__trtllm_v2_step context = {
        2, {{1, p->max_num_batched_tokens, 0}, {dummies, 0, 0}}};
    kvplan__trtllm_v2_constrain(s, &warmup, tpb, ovf);
    kvplan__trtllm_v2_constrain(s, &context, tpb, ovf);
}

/* A hybrid Mamba's quota and typical step (trtllm_v2_mamba.c): its SSM
 * pool group holds at least a slot for each request and dummy (the
 * min-slots constraint _build_cache_config adds), and TensorRT-LLM
 * refuses to start with fewer (_setup_state_pool). */
static kvplan_status v2_mamba(const kvplan__engine_census *c,
                              const kvplan_engine_options *o, double kv,
                              const int64_t cost[3], int64_t tpb,
                              kvplan__trtllm_v2_storage *s,
                              kvplan_engine_plan *p, kvplan_error *err)
{
    bool ovf = false;
    kvplan__trtllm_v2_mamba m;
    kvplan__trtllm_v2_mamba_of(c, o, p->max_num_seqs, p->max_model_len, tpb,
                               cost, &m, &ovf);
    int64_t live = kvplan__add(m.lineages, m.dummies, &ovf);
    KVPLAN__FAIL_IF(ovf, err, KVPLAN_OVERFLOW, "--max-num-seqs",
                    "--max-num-seqs %lld: the mamba states' bytes exceed 64 "
                    "bits",
                    (long long)p->max_num_seqs);
    int64_t q = 0;
    bool clamp = !(p->trtllm_rules & KVPLAN_TRTLLM_RULE_V2_SYNC_RAISES);
    KVPLAN__TRY(kvplan__trtllm_v2_mamba_quota(o, kv, cost, &m,
                                              p->max_num_batched_tokens,
                                              p->max_num_seqs, clamp, &q, err));
    size_t ssm = 0;
    while (s->lc[ssm].window != KVPLAN__V2_SSM)
        ssm++;
    kvplan__trtllm_v2_pool_group *pg = &s->pg[s->lc[ssm].group];
    pg->least = kvplan__max(pg->least, live);
    kvplan__trtllm_v2_step step = {
        2, {{m.lineages, m.capacity, m.capacity - 1}, {m.dummies, 0, 0}}};
    if (o->avg_seq_len.set)
        kvplan__trtllm_v2_constraints(p, m.dummies, tpb, s, &ovf);
    KVPLAN__TRY(kvplan__trtllm_v2_finish(c, o, q, tpb, &step, s, p, err));
    /* get_cache_bytes_per_token: the attention's, and a snapshot's states
     * spread over its interval */
    if (m.interval > 0)
        p->bytes_per_token += m.state / m.interval;
    KVPLAN__FAIL_IF(
        pg->slots < live, err, KVPLAN_NOT_ENOUGH_MEMORY, "--max-num-seqs",
        "--max-num-seqs %lld: TensorRT-LLM refuses to start (\"The "
        "V2 Mamba state pool has only %lld slots but needs at "
        "least %lld live/dummy slots.\")",
        (long long)p->max_num_seqs, (long long)pg->slots, (long long)live);
    return KVPLAN_OK;
}

kvplan_status kvplan__trtllm_v2(const kvplan__engine_census *c,
                                const kvplan_engine_options *o, double kv,
                                int64_t layers, int64_t tpb, bool gemma4,
                                kvplan_engine_plan *p, kvplan_error *err)
{
    bool ovf = false;
    kvplan__trtllm_v2_storage s;
    memset(&s, 0, sizeof s); /* no scratch reuse: false by default */
    KVPLAN__TRY(
        v2_layers(c, o, gemma4, layers, tpb, p->max_model_len, &s, err));
    int64_t cost[3];
    kvplan__trtllm_v2_costs(&s, tpb, cost, &ovf);
    /* the bytes a token every layer holds (the windowed ones too) */
    p->bytes_per_token = kvplan__add(cost[0], cost[1], &ovf);
    /* one request of 2049 tokens, 2048 past (ratio_from_length); a hybrid
     * Mamba's its own (trtllm_v2_mamba.c) */
    KVPLAN__TRY(kvplan__trtllm_v2_avg_check(c, o, p, err));
    if (c->mambaish && c->mamba_layers > 0)
        return v2_mamba(c, o, kv, cost, tpb, &s, p, err);
    kvplan__trtllm_v2_step step = {1, {{1, 2049, 2048}}};
    if (o->avg_seq_len.set) { /* one context, the rest generating */
        int64_t len = o->avg_seq_len.value, mbs = p->max_num_seqs;
        step =
            (kvplan__trtllm_v2_step){2,
                                     {{1, p->max_num_batched_tokens, 0},
                                      {mbs - 1, len, kvplan__max(0, len - 1)}}};
        kvplan__trtllm_v2_constraints(p, 0, tpb, &s, &ovf);
    }
    int64_t short_of = 0;
    bool clamp = !(p->trtllm_rules & KVPLAN_TRTLLM_RULE_V2_SYNC_RAISES);
    int64_t q =
        kvplan__trtllm_v2_quota(o, kv, cost, 0, p->max_num_batched_tokens,
                                p->max_num_seqs, clamp, &short_of, &ovf);
    KVPLAN__FAIL_IF(
        ovf && o->max_tokens.set, err, KVPLAN_OVERFLOW, "--max-tokens",
        "--max-tokens %lld: its bytes (%lld a token) exceed 64 "
        "bits",
        (long long)o->max_tokens.value, (long long)p->bytes_per_token);
    KVPLAN__FAIL_IF(ovf, err, KVPLAN_OVERFLOW, "--max-num-batched-tokens",
                    "--max-num-batched-tokens %lld: its bytes (%lld a token) "
                    "exceed 64 bits",
                    (long long)p->max_num_batched_tokens,
                    (long long)p->bytes_per_token);
    KVPLAN__FAIL_IF(!(q > 0), err, KVPLAN_NOT_ENOUGH_MEMORY,
                    "--max-gpu-total-bytes",
                    "TensorRT-LLM's KV cache manager V2 has no quota for the "
                    "KV cache (%.2f GiB)",
                    kv / 1073741824.0);
    /* _get_max_tokens_from_quota gives 0 tokens below max_batch_size
     * requests' windows, and _get_quota_from_max_tokens(0) is those
     * windows: a quota past the budget, which the GPU does not hold */
    KVPLAN__FAIL_IF(
        short_of > 0, err, KVPLAN_NOT_ENOUGH_MEMORY, "--max-num-seqs",
        "--max-num-seqs %lld: over %lld ranks TensorRT-LLM's KV "
        "cache manager V2 turns its quota (%.2f GiB) into tokens "
        "and back, and below the windows of max_batch_size "
        "requests it becomes those windows, %.2f GiB, more than "
        "the budget; lower --max-num-seqs",
        (long long)p->max_num_seqs, (long long)(o->tp_size * o->pp_size),
        (double)short_of / 1073741824.0, (double)q / 1073741824.0);
    return kvplan__trtllm_v2_finish(c, o, q, tpb, &step, &s, p, err);
}

kvplan_status kvplan__trtllm_v2_finish(const kvplan__engine_census *c,
                                       const kvplan_engine_options *o,
                                       int64_t q, int64_t tpb,
                                       const kvplan__trtllm_v2_step *step,
                                       kvplan__trtllm_v2_storage *s,
                                       kvplan_engine_plan *p, kvplan_error *err)
{
    bool ovf = false;
    int64_t g = 0;
    int rc = kvplan__trtllm_v2_allocate(s, q, tpb, step, &g, &ovf);
    KVPLAN__FAIL_IF(ovf, err, KVPLAN_OVERFLOW, "--max-gpu-total-bytes",
                    "the KV cache manager V2's pool exceeds 64 bits");
    KVPLAN__FAIL_IF(rc != 0, err, KVPLAN_NOT_ENOUGH_MEMORY,
                    "--max-gpu-total-bytes",
                    "TensorRT-LLM's KV cache manager V2: a quota of %.2f GiB "
                    "holds no more than one slot of each life cycle "
                    "(\"Insufficient quota to satisfy min_slots "
                    "constraints\")",
                    (double)q / 1073741824.0);
    /* the host tier: --host-cache-size's bytes (0: none); without it V2
     * provisions one from the host's free memory, which only the host
     * knows, and the GPU's slots do not move */
    if (o->host_cache_size.set && o->host_cache_size.value > 0) {
        rc = kvplan__trtllm_v2_allocate_host(s, o->host_cache_size.value, &ovf);
        KVPLAN__FAIL_IF(ovf || rc != 0, err, KVPLAN_INVALID_ARGUMENT,
                        "--host-cache-size",
                        "--host-cache-size %lld: TensorRT-LLM's KV cache "
                        "manager V2 cannot split it over its pool groups",
                        (long long)o->host_cache_size.value);
    }
    p->gpu_quota_bytes = q;
    p->quota_grain_bytes = g;
    v2_rows(c, s, tpb, p, &ovf);
    KVPLAN__FAIL_IF(ovf, err, KVPLAN_OVERFLOW, "--max-model-len",
                    "--max-model-len %lld: one request's KV cache overflows "
                    "64 bits",
                    (long long)p->max_model_len);
    return kvplan__ok(err);
}
