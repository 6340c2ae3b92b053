/*
 * test_trtllm_log.c: public TensorRT-LLM start-up logs read back
 * (tests/logs/trtllm, each with its source in tests/logs/SOURCES.md): the
 * engine told from the log, every reading checked against the log's text,
 * and max_tokens and the pool's tokens from the log's own available memory
 * at kvplan's bytes a token holding what the log printed.
 *   test_trtllm_log DIR (tests/logs/trtllm)
 */
#include "check.h"
#include "kvplan.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *dir;

static char *slurp(const char *name, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (f == NULL)
        return NULL;
    static char buf[1 << 16];
    *len = fread(buf, 1, sizeof buf - 1, f);
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

static kvplan_trtllm_log_result reconcile(const char *model,
                                          const kvplan_trtllm_log_readings *r)
{
    kvplan_model *m = NULL;
    if (model != NULL)
        CHECK_INT(kvplan_model_load(model, &m, NULL), KVPLAN_OK);
    kvplan_engine_options o;
    kvplan_engine_options_init(&o);
    kvplan_trtllm_log_result x;
    CHECK_INT(kvplan_trtllm_log_reconcile(m, "no model", r, &o, &x, NULL),
              KVPLAN_OK);
    kvplan_model_free(m);
    return x;
}

/* gpt-oss-120b under TensorRT-LLM 1.1.0rc3 on a DGX Spark: KvCacheCreator
 * printed 5.95 GiB at 73728 bytes a token (36 layers x 8 x 64 x 2 x 2:
 * every layer, sliding ones too, holds the whole sequence), max_tokens
 * 86711 = 5.95 GiB // 73728 within the rounding, and the manager 86720
 * tokens: ceilDiv(86711, 32) x 32, the block rounding kvplan follows
 * (calculateMaxNumBlocks). The estimation's cache (8224) came first. */
static void test_gpt_oss_gb10(void)
{
    size_t len = 0;
    const char *text = slurp("01-gpt-oss-120b-gb10-1.1.0rc3.log", &len);
    if (text == NULL)
        return;
    CHECK_INT(kvplan_log_engine(text, len), KVPLAN_ENGINE_TRTLLM);
    kvplan_trtllm_log_readings r;
    CHECK_INT(kvplan_trtllm_log_parse(text, len, &r, NULL), KVPLAN_OK);
    CHECK_STR(r.version, "1.1.0rc3");
    CHECK_DOUBLE(r.weights_gib.value, 63.52);
    CHECK_DOUBLE(r.activation_gib.value, 0.85);
    CHECK_DOUBLE(r.outside_torch_gib.value, 49.28);
    CHECK_DOUBLE(r.peak_gib.value, 113.65);
    CHECK_DOUBLE(r.available_gib.value, 5.95);
    CHECK_DOUBLE(r.fraction.value, 0.8999999761581421);
    CHECK_INT(r.kv_bytes_per_token.value, 73728);
    CHECK_DOUBLE(r.total_gib.value, 119.70);
    CHECK_INT(r.max_tokens.value, 86711);
    CHECK_INT(r.tokens_per_block.value, 32);
    CHECK_DOUBLE(r.allocated_gib.value, 5.95);
    CHECK_INT(r.kv_cache_tokens.value, 86720);
    CHECK_INT(r.max_seq_len.value, 86720);
    CHECK_INT(r.max_batch_size.value, 64);
    kvplan_trtllm_log_result x = reconcile("gpt-oss-120b", &r);
    CHECK(x.interval && x.inside);
    CHECK_INT(x.bytes_per_token, 36 * 8 * 64 * 2 * 2);
    CHECK(x.bytes_match);
    CHECK(x.max_tokens_lo <= 86711 && 86711 <= x.max_tokens_hi);
    CHECK_INT(x.available_lo / 73728, x.max_tokens_lo);
    CHECK(x.pool_match);
    CHECK_INT(x.pool_bytes, 86720LL * 73728);
    CHECK_INT(x.num_causes, 0);
    /* no model: the log's own bytes a token, the same interval */
    kvplan_trtllm_log_result y = reconcile(NULL, &r);
    CHECK(y.interval && y.inside);
    CHECK_INT(y.max_tokens_lo, x.max_tokens_lo);
    CHECK_INT(y.tokens_hi, x.tokens_hi);
    CHECK_INT(y.causes[0].code, KVPLAN_CAUSE_MODEL_NOT_PLANNED);
    /* another model's bytes a token are named */
    kvplan_trtllm_log_result z = reconcile("gpt-oss-20b", &r);
    CHECK(!z.bytes_match);
    bool named = false;
    for (size_t i = 0; i < z.num_causes; i++)
        named |= strcmp(z.causes[i].row, "bytes_per_token") == 0;
    CHECK(named);
}

/* Qwen3-Reranker-0.6B (Qwen3-0.6B's shapes, 28 x 8 x 128 x 2 x 2 = 114688
 * bytes a token) on an H100: only the allocation line is quoted, 643136
 * tokens in 68.69 GiB, which kvplan's bytes a token reproduce. */
static void test_reranker_h100(void)
{
    size_t len = 0;
    const char *text = slurp("02-qwen3-reranker-0.6b-h100.log", &len);
    if (text == NULL)
        return;
    CHECK_INT(kvplan_log_engine(text, len), KVPLAN_ENGINE_TRTLLM);
    kvplan_trtllm_log_readings r;
    CHECK_INT(kvplan_trtllm_log_parse(text, len, &r, NULL), KVPLAN_OK);
    CHECK_INT(r.kv_cache_tokens.value, 643136);
    CHECK_DOUBLE(r.allocated_gib.value, 68.69);
    CHECK(!r.available_gib.set);
    kvplan_trtllm_log_result x = reconcile("qwen3-0.6b", &r);
    CHECK(!x.interval);
    CHECK_INT(x.pool_bytes, 643136LL * 114688);
    CHECK(x.pool_match);
    CHECK_INT(x.causes[0].code, KVPLAN_CAUSE_MISSING_READING);
    /* from the H100 preset, kvplan's own budget (its terms estimated):
     * 649632 tokens, +1.01 % against the log's */
    kvplan_model *m = NULL;
    CHECK_INT(kvplan_model_load("qwen3-0.6b", &m, NULL), KVPLAN_OK);
    kvplan_engine_options o;
    kvplan_engine_options_init(&o);
    o.engine = KVPLAN_ENGINE_TRTLLM;
    CHECK(kvplan_gpu_preset("H100-80GB", &o.gpu));
    o.gpu_set = true;
    kvplan_engine_plan p;
    memset(&p, 0, sizeof p);
    p.struct_size = sizeof p;
    CHECK_INT(kvplan_engine_compute(m, &o, &p, NULL), KVPLAN_OK);
    double err = 100.0 * ((double)p.kv_cache_tokens / 643136.0 - 1);
    fprintf(stderr, "  02 from the H100-80GB preset: %+.2f %%\n", err);
    CHECK(err > -1.5 && err < 1.5);
    kvplan_model_free(m);
}

/* Text without TensorRT-LLM's sizing lines is refused naming "log"; an
 * sglang or vLLM log is not taken for one. */
static void test_not_trtllm(void)
{
    const char *t = "[TRT-LLM] [I] Using LLM with PyTorch backend\n";
    kvplan_trtllm_log_readings r;
    kvplan_error err;
    CHECK_INT(kvplan_log_engine(t, strlen(t)), KVPLAN_ENGINE_TRTLLM);
    CHECK_INT(kvplan_trtllm_log_parse(t, strlen(t), &r, &err), KVPLAN_PARSE);
    CHECK_STR(err.field, "log");
    const char *v = "INFO 09-03 [gpu_worker.py:276] Available KV cache memory: "
                    "12.02 GiB\n";
    CHECK_INT(kvplan_log_engine(v, strlen(v)), KVPLAN_ENGINE_VLLM);
    const char *s = "[2025-01-01 00:00:00] Load weight begin. avail mem=79.0 "
                    "GB\n";
    CHECK_INT(kvplan_log_engine(s, strlen(s)), KVPLAN_ENGINE_SGLANG);
    CHECK_INT(kvplan_trtllm_log_parse(NULL, 1, &r, &err),
              KVPLAN_INVALID_ARGUMENT);
    /* a log saved with CRLF line ends reads the same */
    const char *crlf =
        "[TensorRT-LLM][INFO] Number of tokens per block: 32.\r\n"
        "[TensorRT-LLM][INFO] [MemUsageChange] Allocated 5.95 "
        "GiB for max tokens in paged KV cache (86720).\r\n";
    CHECK_INT(kvplan_trtllm_log_parse(crlf, strlen(crlf), &r, NULL), KVPLAN_OK);
    CHECK_INT(r.tokens_per_block.value, 32);
    CHECK_INT(r.kv_cache_tokens.value, 86720);
    CHECK_INT(r.lines, 2);
}

/* The lines of 2026, no public log of which was found: these are
 * written here from the format strings of KvCacheCreator
 * (configure_kv_cache_capacity, _util.py: "Estimated max memory in KV
 * cache : %.2f GiB") and KVCacheManagerV2.__init__
 * (kv_cache_manager_v2.py: "KV cache manager v2 device quota set to
 * {quota / (1 << 30)}GiB", Python's repr of the float). Llama-3.1-8B's
 * quota of test_trtllm_v2's test_dense, 60098339635 bytes, prints as
 * 55.97094039898366 and reads back to the byte; kvplan's V2 pool there
 * holds 14336 slots. The reconciliation follows the log's manager, not
 * the options': a V2 log under options without the flag is V2's, a V1
 * log under the flag V1's, each with a cause. */
static void test_v2_lines(void)
{
    const char *t =
        "[TRT-LLM] [I] Estimated max memory in KV cache : 55.97 GiB\n"
        "[TRT-LLM] [I] KV cache manager v2 device quota set to "
        "55.97094039898366GiB\n";
    kvplan_trtllm_log_readings r;
    CHECK_INT(kvplan_trtllm_log_parse(t, strlen(t), &r, NULL), KVPLAN_OK);
    CHECK_DOUBLE(r.estimated_gib.value, 55.97);
    CHECK(r.v2_quota_gib.set);
    CHECK_INT(r.lines_used, 2);
    kvplan_model *m = NULL;
    CHECK_INT(kvplan_model_load("llama-3.1-8b-instruct", &m, NULL), KVPLAN_OK);
    kvplan_engine_options o;
    kvplan_engine_options_init(&o);
    kvplan_trtllm_log_result x;
    CHECK_INT(kvplan_trtllm_log_reconcile(m, NULL, &r, &o, &x, NULL),
              KVPLAN_OK);
    CHECK_INT(x.kv_cache_manager, 2);
    CHECK_INT(x.v2_quota_bytes, 60098339635);
    CHECK_INT(x.v2_slots, 14336);
    CHECK(!x.interval);
    /* V2 is Llama's default from 1.3.0rc28 (the default release): only
     * that no count is printed */
    CHECK_INT(x.num_causes, 1);
    CHECK_STR(x.causes[0].row, "tokens");
    /* a release before 1.3.0rc21 gives Llama V1: the log's manager is
     * named as a cause */
    o.trtllm_version = KVPLAN_TRTLLM_V1_0;
    CHECK_INT(kvplan_trtllm_log_reconcile(m, NULL, &r, &o, &x, NULL),
              KVPLAN_OK);
    CHECK_INT(x.num_causes, 2);
    CHECK_STR(x.causes[0].row, "manager");
    CHECK_STR(x.causes[1].row, "tokens");
    o.trtllm_version = KVPLAN_TRTLLM_LATEST;
    /* the same budget on a V1 log of 2026: its estimated memory is the
     * available memory, max_tokens floor(bytes / 131072) at each end */
    const char *v1 =
        "[TRT-LLM] [I] Estimated max memory in KV cache : 55.97 GiB\n";
    CHECK_INT(kvplan_trtllm_log_parse(v1, strlen(v1), &r, NULL), KVPLAN_OK);
    o.use_kv_cache_manager_v2 = true;
    CHECK_INT(kvplan_trtllm_log_reconcile(m, NULL, &r, &o, &x, NULL),
              KVPLAN_OK);
    CHECK_INT(x.kv_cache_manager, 1);
    CHECK(x.interval);
    CHECK_INT(x.max_tokens_lo,
              (int64_t)ceil((55.97 - 0.005) * 1073741824.0) / 131072);
    CHECK_INT(x.max_tokens_hi,
              (int64_t)floor((55.97 + 0.005) * 1073741824.0) / 131072);
    CHECK_STR(x.causes[0].row, "manager");
    /* repr's 17 significant digits (past the shared reader's 2^53) read
     * to the byte; a number with an exponent, which the reader does not
     * take, is not read rather than read as its mantissa (1e9 had read
     * as 1) */
    const char *d17 = "[TRT-LLM] [I] KV cache manager v2 device quota set to "
                      "55.970940398983664GiB\n";
    CHECK_INT(kvplan_trtllm_log_parse(d17, strlen(d17), &r, NULL), KVPLAN_OK);
    CHECK_INT(llround(r.v2_quota_gib.value * 1073741824.0), 60098339635);
    const char *e9 = "[TRT-LLM] [I] KV cache manager v2 device quota set to "
                     "1e9GiB\n[TRT-LLM] [I] Estimated max memory in KV cache "
                     ": 1e9 GiB\n";
    CHECK_INT(kvplan_trtllm_log_parse(e9, strlen(e9), &r, NULL), KVPLAN_PARSE);
    kvplan_model_free(m);
}

/* kvplan_trtllm_log_calibrate on log 01: the weights (63.52 GiB) and the
 * memory outside torch (49.28) as printed; the activation the rest of
 * KvCacheCreator's sum, total - 5.95 / 0.9 - both: at the log's 119.70
 * GiB 0.289 GiB (its printed 0.85 held the estimation's 0.56 GiB cache,
 * "tmp kv_mem 0.56 GiB"), at the GB10 preset's 121.13 the 1.43 GiB more.
 * Planned back with those terms, gpt-oss-120b gets 5.95 GiB and 86,656
 * tokens, inside the log's 86,580-86,725 (its 86,711). On an H100 the sum
 * leaves nothing: refused, naming --gpu. */
static void test_calibrate(void)
{
    size_t len = 0;
    const char *text = slurp("01-gpt-oss-120b-gb10-1.1.0rc3.log", &len);
    if (text == NULL)
        return;
    kvplan_trtllm_log_readings r;
    CHECK_INT(kvplan_trtllm_log_parse(text, len, &r, NULL), KVPLAN_OK);
    kvplan_engine_options o;
    kvplan_engine_options_init(&o);
    o.engine = KVPLAN_ENGINE_TRTLLM;
    kvplan_trtllm_calibration c;
    CHECK_INT(kvplan_trtllm_log_calibrate(&r, &o, &c, NULL), KVPLAN_OK);
    CHECK(c.total_from_log);
    CHECK_DOUBLE(c.total_gib, 119.70);
    CHECK_INT(c.rank_weight_bytes, (int64_t)(63.52 * 1073741824.0));
    CHECK_INT(c.non_torch_bytes, (int64_t)(49.28 * 1073741824.0));
    double f = 0.8999999761581421;
    CHECK_DOUBLE(c.fraction, f);
    CHECK_INT(c.activation_bytes,
              (int64_t)(119.70 * 1073741824.0 - 5.95 * 1073741824.0 / f -
                        63.52 * 1073741824.0 - 49.28 * 1073741824.0));
    CHECK_DOUBLE(c.printed_activation_gib, 0.85);
    CHECK(kvplan_gpu_preset("GB10", &o.gpu));
    o.gpu_set = true;
    CHECK_INT(kvplan_trtllm_log_calibrate(&r, &o, &c, NULL), KVPLAN_OK);
    CHECK(!c.total_from_log);
    o.rank_weight_bytes = (kvplan_opt_int){c.rank_weight_bytes, true};
    o.activation_bytes = (kvplan_opt_int){c.activation_bytes, true};
    o.non_torch_bytes = (kvplan_opt_int){c.non_torch_bytes, true};
    o.trtllm_version = KVPLAN_TRTLLM_V1_0; /* the log's 1.1.0rc3: V1 */
    kvplan_model *m = NULL;
    CHECK_INT(kvplan_model_load("gpt-oss-120b", &m, NULL), KVPLAN_OK);
    kvplan_engine_plan p;
    CHECK_INT(kvplan_engine_compute(m, &o, &p, NULL), KVPLAN_OK);
    kvplan_model_free(m);
    CHECK(p.kv_cache_tokens >= 86580 && p.kv_cache_tokens <= 86725);
    CHECK_INT(p.kv_cache_tokens, 86656);
    kvplan_error err;
    CHECK(kvplan_gpu_preset("H100-80GB", &o.gpu));
    CHECK_INT(kvplan_trtllm_log_calibrate(&r, &o, &c, &err),
              KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "--gpu");
    /* log 02 prints the pool only: nothing to calibrate, said so */
    text = slurp("02-qwen3-reranker-0.6b-h100.log", &len);
    CHECK_INT(kvplan_trtllm_log_parse(text, len, &r, NULL), KVPLAN_OK);
    CHECK_INT(kvplan_trtllm_log_calibrate(&r, &o, &c, &err),
              KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "--calibrate");
    CHECK_CONTAINS(err.message, "the log prints no \"Memory used after "
                                "loading model weights (inside torch)\"");
}

/* A log's text read and reconciled against `model` under `o`. */
static kvplan_trtllm_log_result reconciled(const char *model, const char *text,
                                           const kvplan_engine_options *o)
{
    kvplan_trtllm_log_readings r;
    kvplan_trtllm_log_result x;
    memset(&x, 0, sizeof x);
    kvplan_model *m = NULL;
    CHECK_INT(kvplan_trtllm_log_parse(text, strlen(text), &r, NULL), KVPLAN_OK);
    CHECK_INT(kvplan_model_load(model, &m, NULL), KVPLAN_OK);
    CHECK_INT(kvplan_trtllm_log_reconcile(m, NULL, &r, o, &x, NULL), KVPLAN_OK);
    kvplan_model_free(m);
    return x;
}

/* Gemma 4's manager is V2 whatever the options or the log say
 * (_non_hybrid_kv_cache_manager_cls, _util.py): a V2 log of a 26 GiB
 * quota is planned there with no "manager" cause, its full layers' pool
 * group 9472 slots (test_trtllm_v2_windows' test_gemma4); a log without
 * the quota line is named as lacking it, not planned as V1. */
static void test_gemma4(void)
{
    kvplan_engine_options o;
    kvplan_engine_options_init(&o);
    kvplan_trtllm_log_result x = reconciled(
        "gemma-4-26b-a4b",
        "[TRT-LLM] [I] Estimated max memory in KV cache : 26.32 GiB\n"
        "[TRT-LLM] [I] KV cache manager v2 device quota set to 26.0GiB\n",
        &o);
    CHECK_INT(x.kv_cache_manager, 2);
    CHECK_INT(x.v2_quota_bytes, 26LL << 30);
    CHECK_INT(x.v2_slots, 9472);
    CHECK_INT(x.num_causes, 1);
    CHECK_STR(x.causes[0].row, "tokens");
    x = reconciled(
        "gemma-4-26b-a4b",
        "[TRT-LLM] [I] Estimated max memory in KV cache : 26.32 GiB\n", &o);
    CHECK_INT(x.kv_cache_manager, 2);
    CHECK(!x.interval);
    CHECK_INT(x.num_causes, 1);
    CHECK_STR(x.causes[0].row, "manager");
}

/* A hybrid Mamba's V2 log (MambaHybridCacheManagerV2 logs the same
 * quota line) is planned under V2 with its quota: Nemotron-3-Nano with 64
 * requests and 16 GiB is 70997 attention slots beside 65 of states
 * (test_trtllm_v2_mamba's test_nemotron); kvplan had refused V2 here. */
static void test_mamba_v2(void)
{
    kvplan_engine_options o;
    kvplan_engine_options_init(&o);
    o.max_num_seqs = (kvplan_opt_int){64, true};
    kvplan_trtllm_log_result x = reconciled(
        "nemotron-3-nano-30b-a3b",
        "[TRT-LLM] [I] KV cache manager v2 device quota set to 16.0GiB\n", &o);
    CHECK_INT(x.kv_cache_manager, 2);
    CHECK_INT(x.v2_quota_bytes, 16LL << 30);
    CHECK_INT(x.v2_slots, 70997);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_trtllm_log DIR\n");
        return 2;
    }
    dir = argv[1];
    test_gpt_oss_gb10();
    test_reranker_h100();
    test_not_trtllm();
    test_v2_lines();
    test_gemma4();
    test_mamba_v2();
    test_calibrate();
    return check_report();
}
