/*
 * test_complexity.c: every loop over layers, ids or patterns is linear (or
 * n log n) in the input. Each family's config is built at 2^10 and 2^20
 * layers (1024 times more; DeciLM's block objects at 2^10 and 2^16) and
 * loaded and planned: the rank, the configurator and the pools, the calls
 * an embedder makes hot. The CPU-time ratio is asserted near-linear: below
 * 8 times the linear ratio, where a quadratic loop gives the linear ratio
 * squared. A ratio, not a wall-clock limit: it holds on a slow or
 * sanitized build.
 */
#include "check.h"
#include "kvplan.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* CPU time, not wall time: a loaded machine (ctest -j) slows the wall
 * clock of the larger run more than its CPU time. */
static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* A growing text. */
typedef struct text {
    char *s;
    size_t len, cap;
} text;

__attribute__((format(printf, 2, 3))) static void add(text *t, const char *fmt,
                                                      ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        t->cap = t->cap * 2 + (size_t)(n > 0 ? n : 0) + 64;
        char *s = realloc(t->s, t->cap);
        if (s == NULL) {
            fprintf(stderr, "out of memory\n");
            exit(2);
        }
        t->s = s;
    }
}

/* "[f(0),f(1),...]" of n values taken from `cycle`, a repeating list. */
static void cycle_list(text *t, int n, const char *const *cycle, int period)
{
    add(t, "[");
    for (int i = 0; i < n; i++)
        add(t, "%s%s", i ? "," : "", cycle[i % period]);
    add(t, "]");
}

/* A family: a catalog model and the override that gives it n layers, or
 * a whole config (model NULL). */
typedef struct family {
    const char *name;
    const char *model;
    void (*build)(text *t, int n);
    int large_log2; /* the larger size, 2^large_log2 layers */
} family;

static void kimi_linear(text *t, int n)
{
    /* a whole config: kda layers 1..n-1, the last one full attention */
    add(t,
        "{\"architectures\": [\"KimiLinearForCausalLM\"], \"model_type\": "
        "\"kimi_linear\", \"hidden_size\": 2048, \"num_attention_heads\": "
        "16, \"num_key_value_heads\": 16, \"head_dim\": 128, "
        "\"vocab_size\": 1000, \"max_position_embeddings\": 4096, "
        "\"kv_lora_rank\": 512, \"qk_rope_head_dim\": 64, "
        "\"qk_nope_head_dim\": 128, \"v_head_dim\": 128, "
        "\"num_hidden_layers\": %d, \"linear_attn_config\": {"
        "\"num_heads\": 16, \"head_dim\": 128, \"kda_layers\": [",
        n);
    for (int i = 1; i < n; i++)
        add(t, "%s%d", i > 1 ? "," : "", i);
    add(t, "], \"full_attn_layers\": [%d]}}", n);
}

static void minimax_sparse(text *t, int n)
{
    /* a whole config: the sparse attention of MiniMax M3 */
    static const char *const freq[] = {"0", "1", "1", "1"};
    add(t,
        "{\"architectures\": [\"MiniMaxM3SparseForCausalLM\"], "
        "\"model_type\": \"minimax_m3\", \"hidden_size\": 2048, "
        "\"num_attention_heads\": 16, \"num_key_value_heads\": 4, "
        "\"head_dim\": 128, \"vocab_size\": 1000, "
        "\"max_position_embeddings\": 4096, \"num_hidden_layers\": %d, "
        "\"sparse_attention_config\": {\"sparse_index_dim\": 128, "
        "\"sparse_disable_index_value\": ",
        n);
    cycle_list(t, n, freq, 4);
    add(t, ", \"sparse_attention_freq\": ");
    cycle_list(t, n, freq, 4);
    add(t, "}}");
}

static void minimax_types(text *t, int n)
{
    static const char *const type[] = {"0", "0", "0", "0", "0", "0", "0", "1"};
    add(t, "{\"num_hidden_layers\": %d, \"attn_type_list\": ", n);
    cycle_list(t, n, type, 8);
    add(t, "}");
}

static void layer_types(text *t, int n)
{
    static const char *const type[] = {"\"sliding_attention\"",
                                       "\"full_attention\""};
    add(t, "{\"num_hidden_layers\": %d, \"layer_types\": ", n);
    cycle_list(t, n, type, 2);
    add(t, "}");
}

static void mimo_hybrid(text *t, int n)
{
    static const char *const pat[] = {"0", "1", "1", "1", "1", "1"};
    static const char *const moe[] = {"1"};
    add(t, "{\"num_hidden_layers\": %d, \"hybrid_layer_pattern\": ", n);
    cycle_list(t, n, pat, 6);
    add(t, ", \"moe_layer_freq\": ");
    cycle_list(t, n, moe, 1);
    add(t, "}");
}

static void dsv4_ratios(text *t, int n)
{
    static const char *const ratio[] = {"4", "128"};
    add(t, "{\"num_hidden_layers\": %d, \"compress_ratios\": ", n);
    cycle_list(t, n + 1, ratio, 2); /* one more: the MTP layer */
    add(t, "}");
}

static void nemotron_pattern(text *t, int n)
{
    static const char unit[] = "M-M-M*-"; /* mamba, MLP, attention */
    add(t, "{\"num_hidden_layers\": %d, \"hybrid_override_pattern\": \"", n);
    for (int i = 0; i < n; i++)
        add(t, "%c", unit[i % 7]);
    add(t, "\"}");
}

static void decilm_blocks(text *t, int n)
{
    static const char *const block[] = {
        "{\"attention\": {\"n_heads_in_group\": 8}, \"ffn\": {\"ffn_mult\": "
        "2.625}}",
        "{\"attention\": {\"no_op\": true}, \"ffn\": {\"ffn_mult\": 5.25}}"};
    add(t, "{\"num_hidden_layers\": %d, \"block_configs\": ", n);
    cycle_list(t, n, block, 2);
    add(t, "}");
}

static void layers_only(text *t, int n)
{
    add(t, "{\"num_hidden_layers\": %d}", n);
}

static const family families[] = {
    {"KimiLinear (kda_layers)", NULL, kimi_linear, 20},
    {"MiniMax sparse (sparse_attention_freq)", NULL, minimax_sparse, 20},
    {"MiniMax M2 (attn_type_list)", "minimax-m2.7", minimax_types, 20},
    {"hybrid SWA (gpt-oss layer_types)", "gpt-oss-20b", layer_types, 20},
    {"MiMo hybrid_layer_pattern", "mimo-v2-flash", mimo_hybrid, 20},
    {"DeepSeek V4 (compress_ratios)", "deepseek-v4-flash", dsv4_ratios, 20},
    {"Nemotron-H (hybrid_override_pattern)", "nemotron-h-56b-base-8k",
     nemotron_pattern, 20},
    {"DeciLM (block_configs)", "llama-3.3-nemotron-super-49b-v1", decilm_blocks,
     16},
    {"Qwen3-Next (full_attention_interval)", "qwen3-next-80b-a3b-thinking",
     layers_only, 20},
    {"dense (Llama)", "llama-3.1-8b-instruct", layers_only, 20},
    {"MLA (DeepSeek V3)", "deepseek-v3", layers_only, 20},
};

/* One load and plan of family `f` at n layers, in CPU seconds; -1 when it
 * fails (reported). */
static double load_and_plan(const family *f, const char *cfg)
{
    kvplan_model *m = NULL;
    kvplan_error err;
    kvplan_plan_options o;
    kvplan_plan_options_init(&o);
    /* a petabyte: DeepSeek V4's state at 2^20 layers takes 71 TB */
    o.available_bytes = (kvplan_opt_int){1000000000000000, true};
    o.weight_bytes = (kvplan_opt_int){1000000000, true};
    kvplan_plan *p = malloc(sizeof *p);
    double t0 = now_s();
    kvplan_status st =
        f->model == NULL
            ? kvplan_model_load_json(cfg, strlen(cfg), "gen", &m, &err)
            : kvplan_model_load_override(f->model, cfg, &m, &err);
    if (st == KVPLAN_OK)
        st = kvplan_plan_compute(m, &o, p, &err);
    double t = now_s() - t0;
    if (st != KVPLAN_OK)
        CHECK_FAIL_("%s: %s", f->name, err.message);
    kvplan_model_free(m);
    free(p);
    return st == KVPLAN_OK ? t : -1;
}

/* The time of one run at n layers: the least of a few, the small ones
 * repeated until a run is long enough to time. */
static double time_at(const family *f, int n, int runs)
{
    text t = {NULL, 0, 0};
    f->build(&t, n);
    double best = 1e30;
    for (int r = 0; r < runs; r++) {
        int reps = 0;
        double total = 0;
        do {
            double one = load_and_plan(f, t.s);
            if (one < 0) {
                free(t.s);
                return -1;
            }
            total += one;
            reps++;
        } while (total < 0.02);
        best = total / reps < best ? total / reps : best;
    }
    free(t.s);
    return best;
}

int main(void)
{
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
        const family *f = &families[i];
        int large = 1 << f->large_log2;
        double a = time_at(f, 1 << 10, 3), b = time_at(f, large, 1);
        if (a < 0 || b < 0)
            continue;
        double linear = (double)large / 1024.0;
        double ratio = b / (a > 1e-9 ? a : 1e-9);
        printf("%-40s 2^10: %.6f s, 2^%d: %.4f s, ratio %.0f (linear %.0f, "
               "quadratic %.0f)\n",
               f->name, a, f->large_log2, b, ratio, linear, linear * linear);
        CHECK(ratio < 8 * linear);
    }
    return check_report();
}
