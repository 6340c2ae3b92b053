/*
 * trtllm_dsv4.c: DeepSeek-V4 under TensorRT-LLM (docs/engines.md,
 * "DeepSeek-V4"): KV cache manager V2's DeepseekV4CacheManager
 * (tensorrt_llm/_torch/attention_backend/sparse/deepseek_v4/
 * cache_manager.py, its stored version whose manager layers bundle the
 * cache roles by life cycle; the roles and their bytes in
 * deepseek_v4.py), over the storage of trtllm_v2_storage.c.
 *
 * Each model layer (compress ratio 1, 4 or 128; a checkpoint's 0 is 1)
 * becomes manager layers, each one life cycle:
 *
 *   ratio 1:   [SWA]                                  window w
 *   ratio 4:   [SWA]                                  window w
 *              [COMPRESS, INDEXER_COMPRESS]           no window
 *              [COMPRESSOR_KV, COMPRESSOR_SCORE,
 *               INDEXER_COMPRESSOR_KV, _SCORE]        window 2 x 4
 *   ratio 128: [SWA, COMPRESSOR_KV, COMPRESSOR_SCORE] window w
 *              [COMPRESS]                             no window
 *
 * w is the config's sliding_window. A block holds tokens_per_block tokens
 * of each role, a compressed role's tokens_per_block / ratio rows. Bytes
 * a token (get_token_bytes): SWA and COMPRESS head_dim x the KV dtype
 * (bf16 or fp8); the compressor's states fp32, 2 x head_dim (ratio 4, the
 * overlapping compressor) or head_dim, the indexer compressor's 2 x
 * index_head_dim; the indexer's keys FP8 blockwise, index_head_dim and a
 * 4-byte scale per 128.
 *
 * DeepSeek-V4's model defaults (get_model_defaults): tokens_per_block
 * 128, V2, and SWA scratch reuse (#13965), whose max_rewind_len is the
 * draft's extra KV tokens (none here). The typical step is one context
 * request of max_num_tokens beside max_batch_size - 1 generating ones of
 * avg_seq_len (else max_seq_len) with all but one token past; the
 * constraints one request at max_seq_len with all but one past and one
 * fresh context of max_num_tokens (_build_cache_config). The quota from
 * tokens prices the compressed roles for every token, the sliding roles
 * a token in context (each (role, ratio) once with scratch reuse) and
 * their windows for max_batch_size requests, plus 2 MiB for each of the
 * seven roles (_get_quota_from_max_tokens, _get_extra_quota_padding).
 */
#include "engine/engine.h"

#include <string.h>

enum { SWA, CKV, CSCORE, ICKV, ISCORE, COMPRESS, ICOMPRESS, ROLES };

typedef struct dsv4_geometry {
    int64_t head, ihead, elem, window, tpb;
    bool ds_mla; /* fp8_ds_mla's 584-byte rows for SWA and COMPRESS */
} dsv4_geometry;

/* get_token_bytes: one token of `role` in a layer of `ratio` */
static int64_t token_bytes(const dsv4_geometry *g, int64_t ratio, int role)
{
    int64_t f = ratio == 4 ? 2 : 1; /* the overlapping compressor's 2 */
    switch (role) {
    case SWA:
    case COMPRESS:
        return g->ds_mla ? 448 + 64 * 2 + 8 : g->head * g->elem;
    case CKV:
    case CSCORE:
        return f * g->head * 4;
    case ICKV:
    case ISCORE:
        return f * g->ihead * 4;
    default: /* ICOMPRESS: fp8 keys and an fp32 scale per 128 */
        return g->ihead + g->ihead / 128 * 4;
    }
}

/* The rows of `role` a block holds (compressed_block_sizes) */
static int64_t rows(const dsv4_geometry *g, int64_t ratio, int role)
{
    return role == COMPRESS || role == ICOMPRESS ? g->tpb / ratio : g->tpb;
}

/* The manager layers of a model layer of `ratio`: up to three, each its
 * roles (ROLES ends a list) and whether it is windowed (by its first
 * role's window) */
typedef struct manager_layer {
    int role[5];
    bool windowed;
} manager_layer;

static size_t manager_layers(int64_t ratio, manager_layer *out)
{
    static const manager_layer one[] = {{{SWA, ROLES}, true}};
    static const manager_layer four[] = {
        {{SWA, ROLES}, true},
        {{COMPRESS, ICOMPRESS, ROLES}, false},
        {{CKV, CSCORE, ICKV, ISCORE, ROLES}, true}};
    static const manager_layer big[] = {{{SWA, CKV, CSCORE, ROLES}, true},
                                        {{COMPRESS, ROLES}, false}};
    const manager_layer *l = ratio == 1 ? one : ratio == 4 ? four : big;
    size_t n = ratio == 1 ? 1 : ratio == 4 ? 3 : 2;
    memcpy(out, l, n * sizeof *l);
    return n;
}

/* A sliding role's window (_get_window_size, no draft): SWA's, else the
 * compressor's, 2 x 4 for the overlapping one, 128 */
static int64_t role_window(const dsv4_geometry *g, int64_t ratio, int role)
{
    return role == SWA ? g->window : (ratio == 4 ? 2 : 1) * ratio;
}

/* A manager layer's buffers, a block each */
static size_t layer_blocks(const dsv4_geometry *g, int64_t ratio,
                           const manager_layer *l, int64_t *block, bool *ovf)
{
    size_t n = 0;
    while (l->role[n] != ROLES) {
        block[n] = kvplan__mul(token_bytes(g, ratio, l->role[n]),
                               rows(g, ratio, l->role[n]), ovf);
        n++;
    }
    return n;
}

static int64_t ratio_at(const kvplan_model *m, int64_t i)
{
    int64_t r = m->compress_ratios.ids[i];
    return r == 0 ? 1 : r; /* "configs normalize checkpoint ratio 0 to 1" */
}

/* The storage, each life cycle's layers' most share of a slot, and the
 * quota's prices: cost[0] the compressed roles' bytes a token
 * (get_cache_bytes_per_token), cost[1] the sliding roles' a token in
 * context, cost[2] their windows' a request. */
static kvplan_status build(const kvplan_model *m, const dsv4_geometry *g,
                           int64_t n, kvplan__trtllm_v2_storage *s,
                           int64_t cost[3], bool *ovf, kvplan_error *err)
{
    bool seen[ROLES][3] = {{false}}; /* (role, ratio) priced in context */
    cost[0] = cost[1] = cost[2] = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int64_t i = 0; i < n; i++) {
            int64_t r = ratio_at(m, i);
            manager_layer l[3];
            size_t k = manager_layers(r, l);
            for (size_t j = 0; j < k; j++) {
                int64_t block[5];
                size_t nb = layer_blocks(g, r, &l[j], block, ovf);
                int64_t w = l[j].windowed ? role_window(g, r, l[j].role[0]) : 0;
                if (pass == 1) { /* after the counts: the shares */
                    kvplan__trtllm_v2_share(s, w, block, nb);
                    continue;
                }
                KVPLAN__TRY(
                    kvplan__trtllm_v2_add_buffers(s, w, block, nb, err));
                for (size_t b = 0; b < nb; b++) {
                    int role = l[j].role[b];
                    int64_t t = token_bytes(g, r, role);
                    if (role == COMPRESS || role == ICOMPRESS) {
                        cost[0] = kvplan__add(cost[0], t / r, ovf);
                        continue;
                    }
                    /* the role's own window, in whole blocks */
                    int64_t held = kvplan__mul(
                        kvplan__ceil_div(role_window(g, r, role), g->tpb, ovf),
                        g->tpb, ovf);
                    int at = r == 1 ? 0 : r == 4 ? 1 : 2;
                    if (!seen[role][at])
                        cost[1] = kvplan__add(cost[1], t, ovf);
                    seen[role][at] = true;
                    cost[2] =
                        kvplan__add(cost[2], kvplan__mul(held, t, ovf), ovf);
                }
            }
        }
    return KVPLAN_OK;
}

/* fp8_ds_mla (footer_scale_kv.py: 448 fp8 values, 64 bf16 rope values,
 * seven scales and a pad byte, 584 bytes a token of SWA and COMPRESS) is
 * DeepSeek-V4's default on Hopper: 1 there with --kv-cache-dtype left
 * out, 0 with another given there (refused), -1 elsewhere. kvplan has no
 * word for it, so Blackwell's opt-in (tokens_per_block 256) is not
 * planned. */
static int ds_mla_default(const kvplan_engine_options *o)
{
    const kvplan_gpu *gpu = o->gpu_set ? &o->gpu : kvplan__gpu_default();
    if (gpu->compute_capability != 90)
        return -1;
    return o->kv_cache_dtype == KVPLAN_KV_AUTO ? 1 : 0;
}

/* What TensorRT-LLM refuses (quoted) and what kvplan does not restate
 * (named), in the caller's terms. */
kvplan_status kvplan__trtllm_dsv4_check(const kvplan_model *m,
                                        const kvplan__engine_census *c,
                                        const kvplan_engine_options *o,
                                        const kvplan_engine_plan *p,
                                        int64_t tpb, kvplan_error *err)
{
    KVPLAN__FAIL_IF(
        o->trtllm_version != KVPLAN_TRTLLM_LATEST, err, KVPLAN_UNSUPPORTED,
        "--trtllm-version",
        "--trtllm-version %s: kvplan plans DeepSeek-V4 under TensorRT-LLM as "
        "its newest sources lay the cache out (the %s profile); which "
        "earlier release served it, and how, is not established",
        kvplan_trtllm_profile_name(o->trtllm_version),
        kvplan_trtllm_profile_name(KVPLAN_TRTLLM_LATEST));
    KVPLAN__FAIL_IF(o->no_use_kv_cache_manager_v2, err, KVPLAN_UNSUPPORTED,
                    "--no-use-kv-cache-manager-v2",
                    "--no-use-kv-cache-manager-v2: TensorRT-LLM caches "
                    "DeepSeek-V4 in DeepseekV4CacheManager, a KV cache "
                    "manager V2 (its model defaults ask for V2); kvplan "
                    "knows no V1 layout of it");
    KVPLAN__FAIL_IF(o->speculative_algorithm != KVPLAN_SPEC_NONE ||
                        o->speculative_draft_model != NULL,
                    err, KVPLAN_UNSUPPORTED, "--speculative-algorithm",
                    "DeepSeek-V4 under TensorRT-LLM with a draft (MTP's "
                    "virtual layers, windows widened by max_draft_len, "
                    "the scratch's rewind) is not modelled by kvplan");
    KVPLAN__FAIL_IF(o->pp_size > 1, err, KVPLAN_UNSUPPORTED, "--pp-size",
                    "--pp-size %lld: DeepSeek-V4's stages under TensorRT-LLM "
                    "(pp_layers) are not modelled by kvplan",
                    (long long)o->pp_size);
    KVPLAN__FAIL_IF(o->max_attention_window != NULL, err, KVPLAN_UNSUPPORTED,
                    "--max-attention-window",
                    "--max-attention-window: DeepSeek-V4's windows are its "
                    "own (sliding_window and the compressors'); kvplan does "
                    "not model another");
    KVPLAN__FAIL_IF(
        o->max_util_for_resume.set && !o->max_tokens.set, err,
        KVPLAN_INVALID_ARGUMENT, "--max-util-for-resume",
        "--max-util-for-resume bounds the quota a --max-tokens allows; "
        "without --max-tokens it changes nothing");
    KVPLAN__TRY(kvplan__trtllm_v2_avg_check(c, o, p, err));
    /* Hopper: the model's defaults give fp8_ds_mla (get_model_defaults);
     * another dtype given is refused (get_sm_version() == 90) */
    KVPLAN__FAIL_IF(
        ds_mla_default(o) == 0, err, KVPLAN_UNSUPPORTED, "--kv-cache-dtype",
        "--kv-cache-dtype %s: TensorRT-LLM refuses DeepSeek-V4 on Hopper in "
        "another cache than fp8_ds_mla (\"DeepSeek-V4 on Hopper requires "
        "kv_cache_config.dtype='fp8_ds_mla'\"), its default there: leave "
        "--kv-cache-dtype out",
        kvplan_word_name(KVPLAN_WORDS_KV_CACHE_DTYPE, (int)o->kv_cache_dtype));
    KVPLAN__FAIL_IF(tpb != 128 && tpb != 256, err, KVPLAN_INVALID_ARGUMENT,
                    "--tokens-per-block",
                    "--tokens-per-block %lld: TensorRT-LLM refuses it "
                    "(\"DeepseekV4CacheManager requires tokens_per_block in "
                    "[128, 256], got %lld\")",
                    (long long)tpb, (long long)tpb);
    /* the cache's dtype: bf16 or fp8 ("auto": the model's) */
    bool bf16 = o->kv_cache_dtype == KVPLAN_KV_BF16 ||
                (o->kv_cache_dtype == KVPLAN_KV_AUTO &&
                 kvplan__dtype_of_flag(o->dtype, m->info.dtype) ==
                     KVPLAN_DTYPE_BFLOAT16);
    KVPLAN__FAIL_IF(!c->kv_fp8 && !bf16 && ds_mla_default(o) < 0, err,
                    KVPLAN_INVALID_ARGUMENT,
                    o->kv_cache_dtype == KVPLAN_KV_AUTO ? "--dtype"
                                                        : "--kv-cache-dtype",
                    "DeepSeek-V4's KV cache under TensorRT-LLM is bf16 or fp8 "
                    "(\"Unsupported dtype ..., only support BF16 and FP8\"); "
                    "give --kv-cache-dtype fp8 or bf16");
    const id_list *r = &m->compress_ratios;
    int64_t n = m->info.num_hidden_layers;
    KVPLAN__FAIL_IF((int64_t)r->count < n, err, KVPLAN_UNSUPPORTED,
                    "/compress_ratios",
                    "config.json's compress_ratios has %zu entries for %lld "
                    "layers: TensorRT-LLM refuses it (\"The length of "
                    "compress ratios must be >= the number of layers\")",
                    r->count, (long long)n);
    bool sparse = false;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = r->ids[i];
        KVPLAN__FAIL_IF(v != 0 && v != 1 && v != 4 && v != 128, err,
                        KVPLAN_UNSUPPORTED, "/compress_ratios",
                        "compress_ratios/%lld is %lld: TensorRT-LLM refuses "
                        "it (\"Unsupported DeepSeek-V4 compress ratio\"; 1, "
                        "4 or 128, a checkpoint's 0 read as 1)",
                        (long long)i, (long long)v);
        sparse |= v == 4;
    }
    KVPLAN__FAIL_IF(!m->dsv4_window_size.set || m->dsv4_window_size.value < 1 ||
                        m->dsv4_window_size.value > (1 << 30),
                    err, KVPLAN_UNSUPPORTED, "/sliding_window",
                    "DeepSeek-V4 under TensorRT-LLM needs sliding_window, 1 "
                    "to 2^30");
    int64_t ih = m->dsv4_index_head_dim.set ? m->dsv4_index_head_dim.value : 0;
    KVPLAN__FAIL_IF(
        sparse && (ih < 128 || ih > (1 << 20) || ih % 128 != 0), err,
        KVPLAN_UNSUPPORTED, "/index_head_dim",
        "index_head_dim %lld: TensorRT-LLM's DeepSeek-V4 indexer keys are "
        "FP8 in blocks of 128 (\"indexer_head_dim must be divisible by "
        "128\"); kvplan plans 128 to 2^20",
        (long long)ih);
    KVPLAN__FAIL_IF(m->info.head_dim < 1 || m->info.head_dim > (1 << 20), err,
                    KVPLAN_UNSUPPORTED, "/head_dim",
                    "DeepSeek-V4 needs head_dim, 1 to 2^20");
    return KVPLAN_OK;
}

kvplan_status kvplan__trtllm_dsv4(const kvplan_model *m,
                                  const kvplan__engine_census *c,
                                  const kvplan_engine_options *o, double kv,
                                  int64_t tpb, kvplan_engine_plan *p,
                                  kvplan_error *err)
{
    bool ovf = false;
    dsv4_geometry g = {m->info.head_dim,
                       m->dsv4_index_head_dim.set ? m->dsv4_index_head_dim.value
                                                  : 128,
                       c->kv_elem,
                       m->dsv4_window_size.value,
                       tpb,
                       ds_mla_default(o) == 1};
    kvplan__trtllm_v2_storage s;
    memset(&s, 0, sizeof s);
    s.scratch = true; /* enable_swa_scratch_reuse: the model's default */
    s.rewind = 0;     /* num_extra_kv_tokens: no draft */
    int64_t cost[3];
    KVPLAN__TRY(build(m, &g, m->info.num_hidden_layers, &s, cost, &ovf, err));
    KVPLAN__FAIL_IF(!kvplan__trtllm_v2_group(&s) || ovf, err, KVPLAN_OVERFLOW,
                    "/head_dim", "a DeepSeek-V4 block's bytes exceed 64 bits");
    p->bytes_per_token = cost[0]; /* get_cache_bytes_per_token */
    int64_t len = p->max_model_len, mnt = p->max_num_batched_tokens;
    int64_t mbs = p->max_num_seqs;
    int64_t typical = o->avg_seq_len.set ? o->avg_seq_len.value : len;
    kvplan__trtllm_v2_step step = {
        2, {{1, mnt, 0}, {mbs - 1, typical, kvplan__max(0, typical - 1)}}};
    kvplan__trtllm_v2_constraints(p, 0, tpb, &s, &ovf);
    int64_t pad = (int64_t)ROLES * (INT64_C(2) << 20), short_of = 0;
    int64_t q = kvplan__trtllm_v2_quota(o, kv, cost, pad, mnt, mbs, true,
                                        &short_of, &ovf);
    /* --max-tokens' quota, else the windows of max_batch_size requests */
    const char *why = o->max_tokens.set ? "--max-tokens" : "--max-num-seqs";
    KVPLAN__FAIL_IF(ovf, err, KVPLAN_OVERFLOW, why,
                    "%s: DeepSeek-V4's quota under TensorRT-LLM exceeds 64 "
                    "bits",
                    why);
    KVPLAN__FAIL_IF(short_of > 0, err, KVPLAN_NOT_ENOUGH_MEMORY,
                    "--max-num-seqs",
                    "--max-num-seqs %lld: over %lld ranks TensorRT-LLM's "
                    "DeepseekV4CacheManager turns its quota (%.2f GiB) into "
                    "tokens and back, and below the windows of "
                    "max_batch_size requests it becomes those windows, "
                    "%.2f GiB, more than the budget; lower --max-num-seqs",
                    (long long)mbs, (long long)(o->tp_size * o->pp_size),
                    (double)short_of / 1073741824.0, (double)q / 1073741824.0);
    if (g.ds_mla) /* said: the plan has no field for the cache's dtype */
        p->v2_default = "DeepSeek-V4, whose caches TensorRT-LLM holds in "
                        "DeepseekV4CacheManager, a V2 manager; on Hopper in "
                        "fp8_ds_mla, its default there (584 bytes a token of "
                        "SWA and compressed rows)";
    kvplan__engine_census rows = *c;
    rows.mla = true; /* the compressed caches' row: latent rows */
    return kvplan__trtllm_v2_finish(&rows, o, q, tpb, &step, &s, p, err);
}
