/*
 * test_vllm_log.c: public vLLM start-up logs read back (tests/logs/vllm,
 * each with its source in tests/logs/SOURCES.md): the engine told from
 * the log, every reading checked against the log's text, and the blocks
 * and "GPU KV cache size" kvplan derives from the log's own "Available KV
 * cache memory" holding what the log printed; from the GPU's preset, the
 * error against the log's count is bounded where the log names its GPU.
 *   test_vllm_log DIR (tests/logs/vllm)
 */
#include "check.h"
#include "kvplan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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

/* One log: what it printed, and its interval. */
typedef struct expect {
    const char *file, *model, *gpu; /* the catalog model; a preset or NULL */
    const char *version;
    int64_t tp, max_model_len;
    double available_gib, weights_gib;
    int64_t tokens, blocks; /* -1: not printed */
    double max_error_pct;   /* from the preset; 0: not bounded */
    bool inside;            /* else a cause names why not */
    kvplan_vllm_profile profile;
} expect;

static const expect logs[] = {
    /* vLLM 0.10.2 on a Jetson Thor (no preset): eager, utilization 0.85 */
    {"01-llama-3.1-8b-thor.log", "llama-3.1-8b-instruct", NULL, "0.10.2", 1,
     131072, 85.79, 14.9889, 702800, 43925, 0, true, KVPLAN_VLLM_V0_10},
    /* 0.10.1.1, one A100-80GB at 0.5 and 0.25 of the same launch, TP2 on
     * one node and TP2 over two A100-40GB nodes; Qwen2-7B-Instruct's
     * shapes are Qwen2.5-7B-Instruct's */
    {"02-qwen2-7b-a100-0.5.log", "qwen2.5-7b-instruct", "A100-80GB", "0.10.1.1",
     1, 16384, 24.83, 14.2488, 464848, 29053, 1.0, true, KVPLAN_VLLM_V0_10},
    {"03-qwen2-7b-a100-0.25.log", "qwen2.5-7b-instruct", "A100-80GB",
     "0.10.1.1", 1, 16384, 5.01, 14.2488, 93872, 5867, 1.0, true,
     KVPLAN_VLLM_V0_10},
    {"04-qwen2-7b-a100-tp2.log", "qwen2.5-7b-instruct", "A100-80GB", "0.10.1.1",
     2, 16384, 31.83, 7.1217, 1192160, 74510, 1.0, true, KVPLAN_VLLM_V0_10},
    /* the same at 0.25, custom all-reduce off (no P2P) */
    {"13-qwen2-7b-a100-tp2-0.25.log", "qwen2.5-7b-instruct", "A100-80GB",
     "0.10.1.1", 2, 16384, 12.02, 7.1217, 450192, 28137, 1.0, true,
     KVPLAN_VLLM_V0_10},
    /* gpt-oss-120b at TP4 over four nodes: 18 sliding + 18 full layers in
     * two groups, printed as blocks // 2 groups x 16 (0.10's report) */
    {"05-gpt-oss-120b-a100-tp4.log", "gpt-oss-120b", "A100-80GB", "0.10.1.1", 4,
     16384, 45.32, 17.2217, 2640144, -1, 1.0, true, KVPLAN_VLLM_V0_10},
    {"06-qwen2-7b-a100-40gb-tp2-nodes.log", "qwen2.5-7b-instruct", "A100-40GB",
     "0.10.1.1", 2, 16384, 11.03, 7.1217, 412944, 25809, 1.0, true,
     KVPLAN_VLLM_V0_10},
    /* fp16 on a card under 70 GiB (2048 batched tokens), GPU not named */
    {"07-llama-3.1-8b-fp16.log", "llama-3.1-8b-instruct", NULL, "0.10.1.1", 1,
     131072, 19.25, 14.9889, 157648, 9853, 0, true, KVPLAN_VLLM_V0_10},
    /* a dev build of 2025-08 with the DEBUG profile: no profile of its own,
     * planned with the newest rules (one group: the same count) */
    {"08-llama-3.2-1b-debug.log", "llama-3.2-1b-instruct", NULL,
     "0.1.dev8168+g475c1a0", 1, 131072, 37.10, 2.3185, 1215552, -1, 0, true,
     KVPLAN_VLLM_LATEST},
    /* Nemotron-3-Nano on a DGX Spark under 0.20.2, from a write-up that
     * quotes the cache lines only: its ssm state float32 by its config's
     * mamba_ssm_cache_dtype (vllm#29978), an attention block of 2096, 2861
     * blocks: the printed 5,769,184 tokens at 22.01x exactly
     * (test_vllm_versions' test_ssm_dtype) */
    /* 0.19.1 on an A100-SXM4-40GB: the CUDA graphs estimated (2.35 GiB)
     * and not taken ("In v0.19, CUDA graph memory profiling will be
     * enabled by default"): the 0.13-0.19 profile's rule */
    {"10-qwen3-8b-a100-40gb.log", "qwen3-8b", "A100-40GB", "0.19.1", 1, 40960,
     19.36, 15.27, 140960, -1, 1.0, true, KVPLAN_VLLM_V0_13},
    /* 0.31 (its image's tag; the quoted lines do not name it) on an
     * A100-80GB, defaults: 2048 batched tokens and 256 sequences, the
     * sampler's sort 1.44 GiB ("peak activation"), kvplan's 1.18 */
    {"11-llama-3.1-8b-a100-0.31.log", "llama-3.1-8b-instruct", "A100-80GB", "",
     1, 131072, 56.21, 15.0, 460496, -1, 1.0, true, KVPLAN_VLLM_LATEST},
    /* 0.27.1 (Model Runner V2) on an RTX 4090 under WSL2, utilization
     * 0.85: 1.54 GiB held by the host's desktop (busy_gpu), the total as
     * WSL2 reports it (23.99 GiB, nvidia-smi's): from the preset -3.29 %,
     * both named; Qwen2.5-0.5B-Instruct's config beside the logs */
    {"12-qwen2.5-0.5b-rtx4090-wsl-0.27.log", "../models/qwen2.5-0.5b-instruct",
     "RTX-4090", "0.27.1", 1, 2048, 18.65, 0.93, 1629520, -1, 4.0, true,
     KVPLAN_VLLM_V0_26},
    {"09-nemotron-3-nano-gb10.log", "nemotron-3-nano-30b-a3b", NULL, "", 1,
     262144, 34.32, -1, 5769184, -1, 0, true, KVPLAN_VLLM_V0_20},
};

/* |error| from the preset of each idle launch (bounded at 1 %; 12, the
 * busy one, at more), for the median the issue asks: at most 0.5 % */
static double idle_errors[16];
static size_t num_idle;

static void test_log(const expect *x)
{
    size_t len = 0;
    const char *text = slurp(x->file, &len);
    if (text == NULL)
        return;
    CHECK_INT(kvplan_log_engine(text, len), KVPLAN_ENGINE_VLLM);
    kvplan_vllm_log_readings r;
    kvplan_error err;
    CHECK_INT(kvplan_vllm_log_parse(text, len, &r, &err), KVPLAN_OK);
    CHECK_STR(r.version, x->version);
    CHECK(r.tensor_parallel_size.set || x->tp == 1);
    if (r.tensor_parallel_size.set)
        CHECK_INT(r.tensor_parallel_size.value, x->tp);
    CHECK_DOUBLE(r.available_gib.value, x->available_gib);
    CHECK_DOUBLE(r.weights_gib.set ? r.weights_gib.value : -1, x->weights_gib);
    CHECK_INT(r.kv_cache_tokens.value, x->tokens);
    CHECK_INT(r.num_gpu_blocks.set ? r.num_gpu_blocks.value : -1, x->blocks);
    kvplan_engine_options o;
    kvplan_engine_options_init(&o);
    if (x->version[0] == '\0') /* the launch's flags, as its source says */
        o.vllm_version = x->profile;
    CHECK_INT(kvplan_vllm_log_options(&r, &o, &err), KVPLAN_OK);
    CHECK_INT(o.vllm_version, x->profile);
    CHECK_INT(o.tp_size, x->tp);
    o.max_model_len = (kvplan_opt_int){x->max_model_len, true};
    if (x->gpu != NULL) {
        CHECK(kvplan_gpu_preset(x->gpu, &o.gpu));
        o.gpu_set = true;
    }
    kvplan_model *m = NULL;
    char path[512]; /* "../models/x": a config beside the logs */
    snprintf(path, sizeof path, "%s/%s", dir, x->model);
    CHECK_INT(kvplan_model_load(
                  strncmp(x->model, "../", 3) == 0 ? path : x->model, &m, NULL),
              KVPLAN_OK);
    kvplan_vllm_log_result res;
    CHECK_INT(kvplan_vllm_log_reconcile(m, NULL, &r, &o, &res, &err),
              KVPLAN_OK);
    CHECK(res.interval);
    CHECK_INT(res.inside, x->inside);
    CHECK_INT(res.profile_from_log,
              x->profile != KVPLAN_VLLM_LATEST && x->version[0] != '\0');
    bool named = false; /* each difference has its cause */
    for (size_t i = 0; i < res.num_causes; i++)
        named |= res.causes[i].code == KVPLAN_CAUSE_OUTSIDE ||
                 res.causes[i].code == KVPLAN_CAUSE_OLDER_RULES;
    CHECK(named || (res.inside && res.profile_from_log));
    if (res.inside != x->inside)
        fprintf(stderr, "  %s: [%lld, %lld] blocks, [%lld, %lld] tokens\n",
                x->file, (long long)res.blocks_lo, (long long)res.blocks_hi,
                (long long)res.tokens_lo, (long long)res.tokens_hi);
    CHECK_INT(res.tokens_lo <= x->tokens && x->tokens <= res.tokens_hi,
              x->inside);
    if (x->max_error_pct > 0) {
        CHECK(res.modelled);
        CHECK(fabs(res.error_pct) <= x->max_error_pct);
        fprintf(stderr, "  %s from the %s preset: %+.2f %%\n", x->file, x->gpu,
                res.error_pct);
        if (x->max_error_pct <= 1.0 && num_idle < 16)
            idle_errors[num_idle++] = fabs(res.error_pct);
    }
    kvplan_model_free(m);
}

/* A line a terminal cut at its width is joined back: the non-default args
 * of 06 are cut inside 'Qwen2-7B-Instruct' and the utilization follows;
 * "Available KV cache me" / "mory: 11.03 GiB" too. */
static void test_wrapped(void)
{
    size_t len = 0;
    const char *text = slurp("06-qwen2-7b-a100-40gb-tp2-nodes.log", &len);
    kvplan_vllm_log_readings r;
    CHECK_INT(kvplan_vllm_log_parse(text, len, &r, NULL), KVPLAN_OK);
    CHECK_STR(r.model, "Qwen2-7B-Instruct");
    CHECK_DOUBLE(r.gpu_memory_utilization.value, 0.5);
    CHECK_INT(r.num_gpu_blocks.value, 25809);
    /* its sampler is PyTorch's ("FlashInfer i" / "s not available"): its
     * sort priced (35.7 bytes an entry, not FlashInfer's 8), the plan from
     * the A100-40GB preset within 1 %, and no cause left to name */
    CHECK(r.native_sampler);
    kvplan_engine_options o;
    kvplan_engine_options_init(&o);
    CHECK_INT(kvplan_vllm_log_options(&r, &o, NULL), KVPLAN_OK);
    CHECK(o.native_sampler);
    CHECK(kvplan_gpu_preset("A100-40GB", &o.gpu));
    o.gpu_set = true;
    kvplan_model *m = NULL;
    CHECK_INT(kvplan_model_load("qwen2.5-7b-instruct", &m, NULL), KVPLAN_OK);
    kvplan_vllm_log_result x;
    CHECK_INT(kvplan_vllm_log_reconcile(m, NULL, &r, &o, &x, NULL), KVPLAN_OK);
    CHECK(x.modelled && fabs(x.error_pct) < 1.0);
    bool named = false;
    for (size_t i = 0; i < x.num_causes; i++)
        named |= strcmp(x.causes[i].row, "activation") == 0;
    CHECK(!named);
    kvplan_model_free(m);
}

/* What is not a vLLM log: an sglang one is told apart, and text without
 * vLLM's lines is refused as a parse error naming "log". */
static void test_not_vllm(void)
{
    const char *sglang = "[2025-01-01 00:00:00] Load weight begin. avail "
                         "mem=78.50 GB\n";
    CHECK_INT(kvplan_log_engine(sglang, strlen(sglang)), KVPLAN_ENGINE_SGLANG);
    kvplan_vllm_log_readings r;
    kvplan_error err;
    CHECK_INT(kvplan_vllm_log_parse(sglang, strlen(sglang), &r, &err),
              KVPLAN_PARSE);
    CHECK_STR(err.field, "log");
    /* a refusal is read; a negative memory names it */
    const char *refused =
        "INFO 09-06 03:10:08 [gpu_worker.py:276] Available KV cache memory: "
        "-0.53 GiB\nERROR 09-06 03:10:08 [core.py:700] ValueError: No "
        "available memory for the cache blocks. Try increasing\n";
    CHECK_INT(kvplan_vllm_log_parse(refused, strlen(refused), &r, &err),
              KVPLAN_OK);
    CHECK_DOUBLE(r.available_gib.value, -0.53);
    CHECK(strncmp(r.refusal, "No available memory", 19) == 0);
    /* 0.21+: the graphs' estimate, one line of both figures */
    const char *newer =
        "(EngineCore pid=79) INFO 07-30 07:11:00 [gpu_model_runner.py:6737] "
        "Estimated CUDA graph memory: 0.58 GiB total\n(EngineCore pid=79) "
        "INFO 07-30 07:11:00 [gpu_worker.py:560] Available KV cache memory: "
        "13.33 GiB\nINFO [kv_cache_utils.py:2021] GPU KV cache size: "
        "1,553,140 tokens, Maximum concurrency for 1,000,000 tokens per "
        "request: 1.55x\n";
    CHECK_INT(kvplan_vllm_log_parse(newer, strlen(newer), &r, &err), KVPLAN_OK);
    /* 0.10.2's closing line has the cache's bytes; 0.28's the weights and
     * non-torch together */
    const char *closing =
        "INFO 09-23 18:12:33 [gpu_worker.py:298] Available KV cache memory: "
        "55.15 GiB\nINFO 09-23 18:12:39 [gpu_worker.py:391] Free memory on "
        "device (78.66/79.19 GiB) on startup. Desired GPU memory utilization "
        "is (0.9, 71.27 GiB). Actual usage is 14.08 GiB for weight, 1.97 GiB "
        "for peak activation, 0.07 GiB for non-torch memory, and 0.67 GiB for "
        "CUDAGraph memory. Current kv cache memory in use is 59212694937 "
        "bytes.\nINFO [gpu_worker.py:804] Actual usage is 51.66 GiB for "
        "consumed memory (weights + non-torch), 2.4 GiB for peak activation\n";
    kvplan_vllm_log_readings c;
    CHECK_INT(kvplan_vllm_log_parse(closing, strlen(closing), &c, &err),
              KVPLAN_OK);
    CHECK_INT(c.kv_cache_bytes.value, 59212694937);
    CHECK_DOUBLE(c.free_gib.value, 78.66);
    CHECK_DOUBLE(c.total_gib.value, 79.19);
    CHECK_DOUBLE(c.non_torch_gib.value, 0.07);
    CHECK_DOUBLE(c.activation_gib.value, 2.4);
    CHECK_DOUBLE(c.consumed_gib.value, 51.66);
    /* a scheme given at launch is the plan's: the weights follow it */
    const char *quant = "INFO 09-23 18:11:24 [utils.py:328] non-default args: "
                        "{'model': 'meta-llama/Llama-3.1-8B-Instruct', "
                        "'quantization': 'fp8', 'max_model_len': 8192}\n";
    CHECK_INT(kvplan_vllm_log_parse(quant, strlen(quant), &c, &err), KVPLAN_OK);
    CHECK_STR(c.quantization, "fp8");
    CHECK_INT(c.max_model_len.value, 8192);
    kvplan_engine_options o;
    kvplan_engine_options_init(&o);
    CHECK_INT(kvplan_vllm_log_options(&c, &o, &err), KVPLAN_OK);
    CHECK_STR(o.quantization, "fp8");
    /* Nemotron-H's ssm dtype as vLLM resolved it (vllm#29978's hook, the
     * line as a public vLLM issue about Nemotron 3 quotes it), or as the
     * launch gave it */
    const char *ssm = "INFO 02-11 16:42:00 [config.py:578] Updating "
                      "mamba_ssm_cache_dtype to 'float32' for NemotronH "
                      "model\n";
    CHECK_INT(kvplan_vllm_log_parse(ssm, strlen(ssm), &c, &err), KVPLAN_OK);
    CHECK_STR(c.mamba_ssm_cache_dtype, "float32");
    CHECK_INT(kvplan_vllm_log_options(&c, &o, &err), KVPLAN_OK);
    CHECK_STR(o.mamba_ssm_cache_dtype, "float32");
    const char *given = "INFO [utils.py:233] non-default args: {'model': "
                        "'x', 'mamba_ssm_cache_dtype': 'float16'}\n";
    CHECK_INT(kvplan_vllm_log_parse(given, strlen(given), &c, &err), KVPLAN_OK);
    CHECK_STR(c.mamba_ssm_cache_dtype, "float16");
    const char *odd = "INFO [utils.py:233] non-default args: {'model': "
                      "'x', 'mamba_ssm_cache_dtype': 'fp8'}\n";
    CHECK_INT(kvplan_vllm_log_parse(odd, strlen(odd), &c, &err), KVPLAN_OK);
    CHECK_INT(kvplan_vllm_log_options(&c, &o, &err), KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "--mamba-ssm-cache-dtype");
    CHECK_DOUBLE(r.graph_estimate_gib.value, 0.58);
    CHECK_INT(r.kv_cache_tokens.value, 1553140);
    CHECK_INT(r.concurrency_len.value, 1000000);
    CHECK_DOUBLE(r.max_concurrency.value, 1.55);
}

/* kvplan_vllm_log_calibrate: log 02 (0.10.1.1, Qwen2-7B on an A100-80GB at
 * 0.5) prints weights and available memory only: on the preset's CUDA
 * total (81183 MiB) the request is ceil(0.5 x 85,126,545,408) =
 * 42,563,272,704 bytes, the weights 14.2488 GiB (15,299,532,501 bytes),
 * 24.83 GiB available: 602,730,712 bytes for the activation (folded, with
 * the non-torch memory). The same launch at 0.25 (log 03) planned with it
 * gives 5863 blocks, where the log printed 5867 (5.01 GiB, 2 decimals).
 * Log 11 (0.31) prints its terms: 1.44 GiB activation, 15.26 - 15.0 GiB
 * non-torch, not folded. */
static void test_calibrate(void)
{
    size_t len = 0;
    const char *text = slurp("02-qwen2-7b-a100-0.5.log", &len);
    if (text == NULL)
        return;
    kvplan_vllm_log_readings r;
    kvplan_error err;
    CHECK_INT(kvplan_vllm_log_parse(text, len, &r, &err), KVPLAN_OK);
    kvplan_engine_options o;
    kvplan_engine_options_init(&o);
    CHECK_INT(kvplan_vllm_log_options(&r, &o, &err), KVPLAN_OK);
    kvplan_vllm_calibration c;
    CHECK_INT(kvplan_vllm_log_calibrate(&r, &o, &c, &err),
              KVPLAN_INVALID_ARGUMENT); /* no total, no GPU */
    CHECK_STR(err.field, "--gpu");
    CHECK(kvplan_gpu_preset("A100-80GB", &o.gpu));
    o.gpu_set = true;
    CHECK_INT(kvplan_vllm_log_calibrate(&r, &o, &c, &err), KVPLAN_OK);
    CHECK(c.folded && !c.total_from_log);
    CHECK_INT(c.rank_weight_bytes, 15299532501);
    CHECK_INT(c.activation_bytes, 602730712);
    CHECK_INT(c.non_torch_bytes, 0);
    CHECK_INT(c.cuda_graph_bytes, 0);
    o.rank_weight_bytes = (kvplan_opt_int){c.rank_weight_bytes, true};
    o.activation_bytes = (kvplan_opt_int){c.activation_bytes, true};
    o.non_torch_bytes = (kvplan_opt_int){0, true};
    o.gpu_memory_utilization = (kvplan_opt_double){0.25, true};
    kvplan_model *m = NULL;
    CHECK_INT(kvplan_model_load("qwen2.5-7b-instruct", &m, NULL), KVPLAN_OK);
    kvplan_engine_plan p;
    CHECK_INT(kvplan_engine_compute(m, &o, &p, &err), KVPLAN_OK);
    CHECK_INT(p.num_gpu_blocks, 5863);
    kvplan_model_free(m);
    /* a GPU the figures do not add up on */
    CHECK(kvplan_gpu_preset("L4", &o.gpu));
    o.gpu_memory_utilization = (kvplan_opt_double){0.5, true};
    CHECK_INT(kvplan_vllm_log_calibrate(&r, &o, &c, &err),
              KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "--gpu");
    text = slurp("11-llama-3.1-8b-a100-0.31.log", &len);
    if (text == NULL)
        return;
    CHECK_INT(kvplan_vllm_log_parse(text, len, &r, &err), KVPLAN_OK);
    kvplan_engine_options_init(&o);
    CHECK_INT(kvplan_vllm_log_options(&r, &o, &err), KVPLAN_OK);
    CHECK_INT(kvplan_vllm_log_calibrate(&r, &o, &c, &err), KVPLAN_OK);
    CHECK(!c.folded && c.total_from_log);
    CHECK_INT(c.activation_bytes, 1546188226);
    CHECK_INT(c.non_torch_bytes, 279172874);
    CHECK_INT(c.rank_weight_bytes, 16106127360);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Every idle launch within 1 % of its printed "GPU KV cache size" (each
 * bounded above), and their median within 0.5 %. */
static void test_idle_median(void)
{
    CHECK(num_idle >= 8);
    if (num_idle == 0)
        return;
    qsort(idle_errors, num_idle, sizeof idle_errors[0], by_value);
    double median =
        num_idle % 2
            ? idle_errors[num_idle / 2]
            : (idle_errors[num_idle / 2 - 1] + idle_errors[num_idle / 2]) / 2;
    fprintf(stderr,
            "  %zu idle launches: median |error| %.2f %%, worst %.2f %%\n",
            num_idle, median, idle_errors[num_idle - 1]);
    CHECK(median <= 0.5);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_vllm_log DIR\n");
        return 2;
    }
    dir = argv[1];
    for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++)
        test_log(&logs[i]);
    test_idle_median();
    test_wrapped();
    test_not_vllm();
    test_calibrate();
    return check_report();
}
