/*
 * test_complexity.c: every loop over layers, ids or patterns is linear (or
 * n log n) in the input. Each family's config is built at 2^12 and 2^16
 * layers (16 times more) and loaded and planned; the time ratio is
 * asserted near-linear (below 64, where a quadratic loop gives ~256). A
 * ratio, not a wall-clock limit: it holds on a slow or sanitized build.
 */
#include "check.h"
#include "kvplan.h"

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

/* "[1,1,...]" or "[1,2,...,n]" for n entries, into a growing buffer. */
static void list(char **out, size_t *len, size_t *cap, int n, bool count)
{
    for (int i = 0; i < n; i++) {
        if (*len + 24 > *cap) {
            *cap = *cap * 2 + 64;
            *out = realloc(*out, *cap);
        }
        *len += (size_t)snprintf(*out + *len, *cap - *len, "%s%d",
                                 i ? "," : "", count ? i + 1 : 1);
    }
}

typedef struct family {
    const char *name;
    const char *head; /* the config up to the list */
    const char *tail; /* after it */
    bool count;       /* the list counts layers 1..n, else n ones */
} family;

static const family families[] = {
    {"KimiLinear (kda_layers)",
     "{\"architectures\": [\"KimiLinearForCausalLM\"], \"model_type\": "
     "\"kimi_linear\", \"hidden_size\": 2048, \"num_attention_heads\": 16, "
     "\"num_key_value_heads\": 16, \"head_dim\": 128, \"vocab_size\": 1000, "
     "\"max_position_embeddings\": 4096, \"kv_lora_rank\": 512, "
     "\"qk_rope_head_dim\": 64, \"qk_nope_head_dim\": 128, \"v_head_dim\": "
     "128, \"num_hidden_layers\": %d, \"linear_attn_config\": {"
     "\"num_heads\": 16, \"head_dim\": 128, \"kda_layers\": [",
     "]}}", true},
    {"MiniMax sparse (sparse_attention_freq)",
     "{\"architectures\": [\"MiniMaxM3SparseForCausalLM\"], \"model_type\": "
     "\"minimax_m3\", \"hidden_size\": 2048, \"num_attention_heads\": 16, "
     "\"num_key_value_heads\": 4, \"head_dim\": 128, \"vocab_size\": 1000, "
     "\"max_position_embeddings\": 4096, \"num_hidden_layers\": %d, "
     "\"sparse_attention_config\": {\"sparse_index_dim\": 128, "
     "\"sparse_disable_index_value\": [",
     "], \"sparse_attention_freq\": [@]}}", false},
    {"hybrid SWA (layer_types)",
     "{\"architectures\": [\"Gemma3ForCausalLM\"], \"model_type\": "
     "\"gemma3_text\", \"hidden_size\": 2048, \"num_attention_heads\": 8, "
     "\"num_key_value_heads\": 4, \"head_dim\": 256, \"vocab_size\": 1000, "
     "\"max_position_embeddings\": 4096, \"sliding_window\": 512, "
     "\"num_hidden_layers\": %d, \"sliding_window_pattern\": 6, "
     "\"layer_types\": [",
     "]}", false},
};

/* The config of family `f` at n layers. */
static char *config(const family *f, int n)
{
    size_t cap = 1 << 16, len = 0;
    char *out = malloc(cap);
    const char *d = strstr(f->head, "%d"); /* the layer count goes there */
    len = (size_t)snprintf(out, cap, "%.*s%d%s", (int)(d - f->head), f->head,
                           n, d + 2);
    if (strstr(f->name, "layer_types") != NULL) {
        for (int i = 0; i < n; i++) { /* five sliding, one full */
            const char *t = i % 6 == 5 ? "\"full_attention\""
                                       : "\"sliding_attention\"";
            if (len + 32 > cap)
                out = realloc(out, cap *= 2);
            len += (size_t)snprintf(out + len, cap - len, "%s%s",
                                    i ? "," : "", t);
        }
    } else { /* counting: every layer linear but the last */
        list(&out, &len, &cap, f->count ? n - 1 : n, f->count);
    }
    const char *tail = f->tail;
    const char *at = strchr(tail, '@');
    if (len + strlen(tail) + 8 > cap)
        out = realloc(out, cap = len + strlen(tail) + 64);
    if (at == NULL) {
        len += (size_t)snprintf(out + len, cap - len, "%s", tail);
    } else { /* a second list where the tail says @ */
        len += (size_t)snprintf(out + len, cap - len, "%.*s",
                                (int)(at - tail), tail);
        list(&out, &len, &cap, n, f->count);
        if (len + strlen(at) + 8 > cap)
            out = realloc(out, cap = len + strlen(at) + 64);
        len += (size_t)snprintf(out + len, cap - len, "%s", at + 1);
    }
    return out;
}

/* The least of 5 runs: load, then a plan (ranks, configurator, pools). */
static double load_and_plan(const char *text)
{
    double best = 1e30;
    for (int run = 0; run < 5; run++) {
        kvplan_model *m = NULL;
        kvplan_error err;
        kvplan_plan_options o;
        kvplan_plan_options_init(&o);
        o.available_bytes = (kvplan_opt_int){80000000000, true};
        kvplan_plan *p = malloc(sizeof *p);
        double t0 = now_s();
        kvplan_status st = kvplan_model_load_json(text, strlen(text), "gen",
                                                  &m, &err);
        if (st == KVPLAN_OK)
            st = kvplan_plan_compute(m, &o, p, &err);
        double t = now_s() - t0;
        if (st != KVPLAN_OK && run == 0)
            CHECK_FAIL_("%s", err.message);
        best = t < best ? t : best;
        kvplan_model_free(m);
        free(p);
    }
    return best;
}

int main(void)
{
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
        char *small = config(&families[i], 1 << 12);
        char *large = config(&families[i], 1 << 16);
        double a = load_and_plan(small), b = load_and_plan(large);
        double ratio = b / (a > 1e-6 ? a : 1e-6);
        printf("%-40s 2^12: %.4f s, 2^16: %.4f s, ratio %.1f (linear 16, "
               "quadratic 256)\n",
               families[i].name, a, b, ratio);
        CHECK(ratio < 64);
        free(small);
        free(large);
    }
    return check_report();
}
