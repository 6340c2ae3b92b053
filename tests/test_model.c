/*
 * test_model.c: the config.json loader (src/model/) against values
 * derived from the spec by hand, and the rank it hands the core.
 *
 * The table below holds, for every config of data/models, what sglang
 * derives at bf16, TP 1, one PP stage, with its default flags: the
 * configurator, layers, total KV heads, head dims, the bytes-per-token
 * coefficient and the context length. Each row carries its derivation.
 * Coefficients are written as kvplan_format_double writes them (Python's
 * repr for fractional ones).
 */
#include "check.h"
#include "kvplan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct expected {
    const char *name;
    int kind; /* 0: refused or a draft head */
    int64_t layers;
    int64_t kv_heads;
    int64_t head_dim;
    int64_t v_head_dim;
    const char *cell; /* or the refusal status name, or "draft" */
    int64_t context_len;
} expected;

static const expected catalog[] = {
    /* 8 kv * (128 + 128) * 32 layers * 2 B */
    {"c4ai-command-r7b-12-2024", KVPLAN_CONFIGURATOR_DEFAULT, 32, 8, 128, 128,
     "131072", 8192},
    /* 8 kv * (128 + 128) * 48 layers * 2 B */
    {"codellama-34b-instruct", KVPLAN_CONFIGURATOR_DEFAULT, 48, 8, 128, 128,
     "196608", 16384},
    /* MLA (512 + 64) * 61 layers * 2 B */
    {"deepseek-r1", KVPLAN_CONFIGURATOR_DEFAULT, 61, 128, 256, 128, "70272",
     163840},
    /* 8 kv * (128 + 128) * 64 layers * 2 B */
    {"deepseek-r1-distill-qwen-32b", KVPLAN_CONFIGURATOR_DEFAULT, 64, 8, 128,
     128, "262144", 131072},
    /* refused: not a Hugging Face config.json */
    {"deepseek-v2-236b-inference-format", 0, 0, 0, 0, 0, "KVPLAN_PARSE", 0},
    /* MLA (512 + 64) * 27 layers * 2 B */
    {"deepseek-v2-lite", KVPLAN_CONFIGURATOR_DEFAULT, 27, 16, 256, 128, "31104",
     163840},
    /* refused: not a Hugging Face config.json */
    {"deepseek-v2-lite-inference-format", 0, 0, 0, 0, 0, "KVPLAN_PARSE", 0},
    /* MLA (512 + 64) * 61 layers * 2 B */
    {"deepseek-v3", KVPLAN_CONFIGURATOR_DEFAULT, 61, 128, 256, 128, "70272",
     163840},
    /* refused: not a Hugging Face config.json */
    {"deepseek-v3-inference-format", 0, 0, 0, 0, 0, "KVPLAN_PARSE", 0},
    /* MLA (512 + 64) * 61 layers * 2 B */
    {"deepseek-v3.1", KVPLAN_CONFIGURATOR_DEFAULT, 61, 128, 256, 128, "70272",
     163840},
    /* MLA (512 + 64) * 61 layers * 2 B + DSA (128 + 4) * 61 */
    {"deepseek-v3.2", KVPLAN_CONFIGURATOR_DEFAULT, 61, 128, 256, 128, "78324",
     163840},
    /* refused: not a Hugging Face config.json */
    {"deepseek-v3.2-exp-inference-format", 0, 0, 0, 0, 0, "KVPLAN_PARSE", 0},
    /* DSV4 kv 584 over 43 layers (21 c4, 20 c128), ratio 0.1, fp32 states */
    {"deepseek-v4-flash", KVPLAN_CONFIGURATOR_DSV4, 43, 1, 512, 512,
     "7705.450000000001", 1048576},
    /* DSV4 kv 584 over 61 layers (30 c4, 31 c128), ratio 0.1, fp32 states */
    {"deepseek-v4-pro", KVPLAN_CONFIGURATOR_DSV4, 61, 1, 512, 512,
     "10993.837500000001", 1048576},
    /* an EAGLE3 draft head of 1 layer: refused as a target */
    {"eagle3-deepseek-v3", 0, 1, 0, 0, 0, "draft", 0},
    /* an EAGLE3 draft head of 1 layer: refused as a target */
    {"eagle3-gpt-oss-120b", 0, 1, 0, 0, 0, "draft", 0},
    /* an EAGLE3 draft head of 1 layer: refused as a target */
    {"eagle3-kimi-k2-instruct", 0, 1, 0, 0, 0, "draft", 0},
    /* an EAGLE3 draft head of 1 layer: refused as a target */
    {"eagle3-llama3.1-8b", 0, 1, 0, 0, 0, "draft", 0},
    /* an EAGLE3 draft head of 1 layer: refused as a target */
    {"eagle3-llama4-scout", 0, 1, 0, 0, 0, "draft", 0},
    /* an EAGLE3 draft head of 1 layer: refused as a target */
    {"eagle3-qwen3-8b", 0, 1, 0, 0, 0, "draft", 0},
    /* an EAGLE3 draft head of 1 layer: refused as a target */
    {"eagle3-qwen3-next-80b-a3b", 0, 1, 0, 0, 0, "draft", 0},
    /* 16 kv * (128 + 128) * 46 layers * 2 B */
    {"gemma-2-27b-it", KVPLAN_CONFIGURATOR_DEFAULT, 46, 16, 128, 128, "376832",
     8192},
    /* 8 kv * (256 + 256) * 42 layers * 2 B */
    {"gemma-2-9b-it", KVPLAN_CONFIGURATOR_DEFAULT, 42, 8, 256, 256, "344064",
     8192},
    /* 1 kv * (256 + 256) * 18 layers * 2 B */
    {"gemma-3-270m-derived", KVPLAN_CONFIGURATOR_DEFAULT, 18, 1, 256, 256,
     "18432", 32768},
    /* 4 kv * (256 + 256) * 34 layers * 2 B */
    {"gemma-3-4b-it", KVPLAN_CONFIGURATOR_DEFAULT, 34, 4, 256, 256, "139264",
     131072},
    /* hybrid SWA F 4096 * 5 full + 0.8 * S 8192 * 25 sliding */
    {"gemma-4-26b-a4b", KVPLAN_CONFIGURATOR_HYBRID_SWA, 30, 2, 512, 512,
     "184320.0", 262144},
    /* MLA (512 + 64) * 78 layers * 2 B + DSA (128 + 4) * 78 */
    {"glm-5", KVPLAN_CONFIGURATOR_DEFAULT, 78, 64, 256, 256, "100152", 202752},
    /* MLA (512 + 64) * 78 layers * 2 B + DSA (128 + 4) * 78 */
    {"glm-5.1", KVPLAN_CONFIGURATOR_DEFAULT, 78, 64, 256, 256, "100152",
     202752},
    /* hybrid SWA F 2048 * 18 full + 0.8 * S 2048 * 18 sliding */
    {"gpt-oss-120b", KVPLAN_CONFIGURATOR_HYBRID_SWA, 36, 8, 64, 64, "66355.2",
     131072},
    /* hybrid SWA F 2048 * 12 full + 0.8 * S 2048 * 12 sliding */
    {"gpt-oss-20b", KVPLAN_CONFIGURATOR_HYBRID_SWA, 24, 8, 64, 64, "44236.8",
     131072},
    /* refused: JambaForCausalLM */
    {"jamba-tiny-random", 0, 0, 0, 0, 0, "KVPLAN_UNSUPPORTED", 0},
    /* refused: JambaForCausalLM */
    {"jamba-v0.1", 0, 0, 0, 0, 0, "KVPLAN_UNSUPPORTED", 0},
    /* MLA (512 + 64) * 61 layers * 2 B */
    {"kimi-k2-instruct", KVPLAN_CONFIGURATOR_DEFAULT, 61, 64, 256, 128, "70272",
     131072},
    /* MLA (512 + 64) * 61 layers * 2 B */
    {"kimi-k2.5", KVPLAN_CONFIGURATOR_DEFAULT, 61, 64, 256, 128, "70272",
     262144},
    /* refused: KimiK3ForConditionalGeneration */
    {"kimi-k3", 0, 0, 0, 0, 0, "KVPLAN_UNSUPPORTED", 0},
    /* 8 kv * (128 + 128) * 80 layers * 2 B */
    {"llama-2-70b", KVPLAN_CONFIGURATOR_DEFAULT, 80, 8, 128, 128, "327680",
     4096},
    /* 32 kv * (128 + 128) * 32 layers * 2 B */
    {"llama-2-7b", KVPLAN_CONFIGURATOR_DEFAULT, 32, 32, 128, 128, "524288",
     4096},
    /* 8 kv * (128 + 128) * 126 layers * 2 B */
    {"llama-3.1-405b", KVPLAN_CONFIGURATOR_DEFAULT, 126, 8, 128, 128, "516096",
     131072},
    /* 8 kv * (128 + 128) * 80 layers * 2 B */
    {"llama-3.1-70b", KVPLAN_CONFIGURATOR_DEFAULT, 80, 8, 128, 128, "327680",
     131072},
    /* 8 kv * (128 + 128) * 80 layers * 2 B */
    {"llama-3.1-70b-instruct", KVPLAN_CONFIGURATOR_DEFAULT, 80, 8, 128, 128,
     "327680", 131072},
    /* 8 kv * (128 + 128) * 32 layers * 2 B */
    {"llama-3.1-8b", KVPLAN_CONFIGURATOR_DEFAULT, 32, 8, 128, 128, "131072",
     131072},
    /* 8 kv * (128 + 128) * 32 layers * 2 B */
    {"llama-3.1-8b-instruct", KVPLAN_CONFIGURATOR_DEFAULT, 32, 8, 128, 128,
     "131072", 131072},
    /* 8 kv * (64 + 64) * 16 layers * 2 B */
    {"llama-3.2-1b-instruct", KVPLAN_CONFIGURATOR_DEFAULT, 16, 8, 64, 64,
     "32768", 131072},
    /* 8 kv * (128 + 128) * 28 layers * 2 B */
    {"llama-3.2-3b-instruct", KVPLAN_CONFIGURATOR_DEFAULT, 28, 8, 128, 128,
     "114688", 131072},
    /* 8 kv * (128 + 128) * 80 layers * 2 B */
    {"llama-3.3-70b-instruct", KVPLAN_CONFIGURATOR_DEFAULT, 80, 8, 128, 128,
     "327680", 131072},
    /* 8 kv * (128 + 128) * 80 layers * 2 B */
    {"llama-3.3-nemotron-super-49b-v1", KVPLAN_CONFIGURATOR_DEFAULT, 80, 8, 128,
     128, "327680", 131072},
    /* hybrid SWA F 4096 * 12 full + 0.8 * S 4096 * 36 sliding */
    {"llama-4-maverick-17b-128e-instruct", KVPLAN_CONFIGURATOR_HYBRID_SWA, 48,
     8, 128, 128, "167116.8", 1048576},
    /* hybrid SWA F 4096 * 12 full + 0.8 * S 4096 * 36 sliding */
    {"llama-4-scout-17b-16e-instruct", KVPLAN_CONFIGURATOR_HYBRID_SWA, 48, 8,
     128, 128, "167116.8", 10485760},
    /* 8 kv * (128 + 128) * 36 layers * 2 B */
    {"mimo-7b-base", KVPLAN_CONFIGURATOR_DEFAULT, 36, 8, 128, 128, "147456",
     32768},
    /* hybrid SWA F 2560 * 9 full + 0.8 * S 5120 * 39 sliding */
    {"mimo-v2-flash", KVPLAN_CONFIGURATOR_HYBRID_SWA, 48, 4, 192, 128,
     "182784.0", 262144},
    /* refused: MiniMaxM1ForCausalLM */
    {"minimax-m1", 0, 0, 0, 0, 0, "KVPLAN_UNSUPPORTED", 0},
    /* 8 kv * (128 + 128) * 62 layers * 2 B */
    {"minimax-m2.7", KVPLAN_CONFIGURATOR_DEFAULT, 62, 8, 128, 128, "253952",
     204800},
    /* refused: MiniMaxM3ForCausalLM */
    {"minimax-m3", 0, 0, 0, 0, 0, "KVPLAN_UNSUPPORTED", 0},
    /* 8 kv * (128 + 128) * 32 layers * 2 B */
    {"mistral-7b-instruct-v0.3", KVPLAN_CONFIGURATOR_DEFAULT, 32, 8, 128, 128,
     "131072", 32768},
    /* 8 kv * (128 + 128) * 32 layers * 2 B */
    {"mistral-7b-v0.1", KVPLAN_CONFIGURATOR_DEFAULT, 32, 8, 128, 128, "131072",
     32768},
    /* 8 kv * (128 + 128) * 40 layers * 2 B */
    {"mistral-nemo-instruct-2407", KVPLAN_CONFIGURATOR_DEFAULT, 40, 8, 128, 128,
     "163840", 131072},
    /* 8 kv * (128 + 128) * 56 layers * 2 B */
    {"mixtral-8x22b-v0.1", KVPLAN_CONFIGURATOR_DEFAULT, 56, 8, 128, 128,
     "229376", 65536},
    /* 8 kv * (128 + 128) * 32 layers * 2 B */
    {"mixtral-8x7b-instruct-v0.1", KVPLAN_CONFIGURATOR_DEFAULT, 32, 8, 128, 128,
     "131072", 32768},
    /* 8 kv * (128 + 128) * 32 layers * 2 B */
    {"mixtral-8x7b-v0.1", KVPLAN_CONFIGURATOR_DEFAULT, 32, 8, 128, 128,
     "131072", 32768},
    /* mamba hybrid 2 kv * (128 + 128) * 6 attention layers * 2 B */
    {"nemotron-3-nano-30b-a3b", KVPLAN_CONFIGURATOR_DEFAULT, 52, 2, 128, 128,
     "6144", 262144},
    /* mamba hybrid 2 kv * (128 + 128) * 8 attention layers * 2 B */
    {"nemotron-3-super-120b-a12b-fp8", KVPLAN_CONFIGURATOR_DEFAULT, 88, 2, 128,
     128, "8192", 262144},
    /* mamba hybrid 2 kv * (128 + 128) * 12 attention layers * 2 B */
    {"nemotron-3-ultra-550b-a55b", KVPLAN_CONFIGURATOR_DEFAULT, 108, 2, 128,
     128, "12288", 262144},
    /* mamba hybrid 8 kv * (128 + 128) * 10 attention layers * 2 B */
    {"nemotron-h-56b-base-8k", KVPLAN_CONFIGURATOR_DEFAULT, 118, 8, 128, 128,
     "40960", 8192},
    /* 10 kv * (128 + 128) * 40 layers * 2 B */
    {"phi-3-medium-128k-instruct", KVPLAN_CONFIGURATOR_DEFAULT, 40, 10, 128,
     128, "204800", 131072},
    /* 10 kv * (128 + 128) * 40 layers * 2 B */
    {"phi-3-medium-4k-instruct", KVPLAN_CONFIGURATOR_DEFAULT, 40, 10, 128, 128,
     "204800", 4096},
    /* 32 kv * (96 + 96) * 32 layers * 2 B */
    {"phi-3-mini-128k-instruct", KVPLAN_CONFIGURATOR_DEFAULT, 32, 32, 96, 96,
     "393216", 131072},
    /* 32 kv * (96 + 96) * 32 layers * 2 B */
    {"phi-3-mini-4k-instruct", KVPLAN_CONFIGURATOR_DEFAULT, 32, 32, 96, 96,
     "393216", 4096},
    /* 10 kv * (128 + 128) * 40 layers * 2 B */
    {"phi-4", KVPLAN_CONFIGURATOR_DEFAULT, 40, 10, 128, 128, "204800", 16384},
    /* 2 kv * (128 + 128) * 28 layers * 2 B */
    {"qwen2.5-1.5b", KVPLAN_CONFIGURATOR_DEFAULT, 28, 2, 128, 128, "28672",
     131072},
    /* 8 kv * (128 + 128) * 64 layers * 2 B */
    {"qwen2.5-32b", KVPLAN_CONFIGURATOR_DEFAULT, 64, 8, 128, 128, "262144",
     131072},
    /* 8 kv * (128 + 128) * 80 layers * 2 B */
    {"qwen2.5-72b", KVPLAN_CONFIGURATOR_DEFAULT, 80, 8, 128, 128, "327680",
     131072},
    /* 4 kv * (128 + 128) * 28 layers * 2 B */
    {"qwen2.5-7b-instruct", KVPLAN_CONFIGURATOR_DEFAULT, 28, 4, 128, 128,
     "57344", 32768},
    /* 8 kv * (128 + 128) * 28 layers * 2 B */
    {"qwen3-0.6b", KVPLAN_CONFIGURATOR_DEFAULT, 28, 8, 128, 128, "114688",
     40960},
    /* 8 kv * (128 + 128) * 28 layers * 2 B */
    {"qwen3-1.7b", KVPLAN_CONFIGURATOR_DEFAULT, 28, 8, 128, 128, "114688",
     40960},
    /* 8 kv * (128 + 128) * 40 layers * 2 B */
    {"qwen3-14b", KVPLAN_CONFIGURATOR_DEFAULT, 40, 8, 128, 128, "163840",
     40960},
    /* 4 kv * (128 + 128) * 94 layers * 2 B */
    {"qwen3-235b-a22b", KVPLAN_CONFIGURATOR_DEFAULT, 94, 4, 128, 128, "192512",
     40960},
    /* 4 kv * (128 + 128) * 48 layers * 2 B */
    {"qwen3-30b-a3b", KVPLAN_CONFIGURATOR_DEFAULT, 48, 4, 128, 128, "98304",
     40960},
    /* 8 kv * (128 + 128) * 64 layers * 2 B */
    {"qwen3-32b", KVPLAN_CONFIGURATOR_DEFAULT, 64, 8, 128, 128, "262144",
     40960},
    /* 8 kv * (128 + 128) * 36 layers * 2 B */
    {"qwen3-8b", KVPLAN_CONFIGURATOR_DEFAULT, 36, 8, 128, 128, "147456", 40960},
    /* 8 kv * (128 + 128) * 62 layers * 2 B */
    {"qwen3-coder-480b-a35b-instruct", KVPLAN_CONFIGURATOR_DEFAULT, 62, 8, 128,
     128, "253952", 262144},
    /* mamba hybrid 2 kv * (256 + 256) * 12 attention layers * 2 B */
    {"qwen3-next-80b-a3b-thinking", KVPLAN_CONFIGURATOR_DEFAULT, 48, 2, 256,
     256, "24576", 262144},
    /* mamba hybrid 2 kv * (256 + 256) * 12 attention layers * 2 B */
    {"qwen3.5-122b-a10b", KVPLAN_CONFIGURATOR_DEFAULT, 48, 2, 256, 256, "24576",
     262144},
    /* mamba hybrid 4 kv * (256 + 256) * 16 attention layers * 2 B */
    {"qwen3.5-27b", KVPLAN_CONFIGURATOR_DEFAULT, 64, 4, 256, 256, "65536",
     262144},
    /* mamba hybrid 2 kv * (256 + 256) * 10 attention layers * 2 B */
    {"qwen3.5-35b-a3b", KVPLAN_CONFIGURATOR_DEFAULT, 40, 2, 256, 256, "20480",
     262144},
    /* mamba hybrid 2 kv * (256 + 256) * 15 attention layers * 2 B */
    {"qwen3.5-397b-a17b", KVPLAN_CONFIGURATOR_DEFAULT, 60, 2, 256, 256, "30720",
     262144},
    /* 8 kv * (128 + 128) * 60 layers * 2 B */
    {"yi-34b", KVPLAN_CONFIGURATOR_DEFAULT, 60, 8, 128, 128, "245760", 4096},
};

static const char *coefficient(const kvplan_configurator *c)
{
    static char buf[40];
    if (c->kind == KVPLAN_CONFIGURATOR_DSV4)
        kvplan_format_double(c->bytes_per_full_token, buf, sizeof buf);
    else if (c->cell_size_is_float)
        kvplan_format_double(c->cell_size, buf, sizeof buf);
    else
        snprintf(buf, sizeof buf, "%lld", (long long)c->cell_size_bytes);
    return buf;
}

/* Loads a catalog model and builds its rank and configurator. */
static kvplan_model *plan(const char *name, const kvplan_server_args *args,
                          int64_t pp_rank, kvplan_rank *rank,
                          kvplan_configurator *conf)
{
    kvplan_model *m = NULL;
    kvplan_error err;
    kvplan_status st = kvplan_model_load(name, &m, &err);
    CHECK_INT(st, KVPLAN_OK);
    if (st != KVPLAN_OK) {
        fprintf(stderr, "  %s: %s\n", name, err.message);
        return NULL;
    }
    st = kvplan_model_rank(m, args, pp_rank, rank, NULL, &err);
    CHECK_INT(st, KVPLAN_OK);
    if (st == KVPLAN_OK) {
        st = kvplan_configurator_init(conf, rank, &err);
        CHECK_INT(st, KVPLAN_OK);
    }
    if (st != KVPLAN_OK)
        fprintf(stderr, "  %s: %s\n", name, err.message);
    return m;
}

/* Hugging Face ids as they are today, and former ones, name the catalog's
 * configs; a near miss is answered with the nearest name. */
static void test_catalog_names(void)
{
    static const struct {
        const char *id, *name;
    } ids[] = {
        {"meta-llama/Llama-3.1-8B", "llama-3.1-8b"},
        {"meta-llama/Meta-Llama-3.1-8B", "llama-3.1-8b"},
        {"meta-llama/Meta-Llama-3.1-8B-Instruct", "llama-3.1-8b-instruct"},
        {"META-LLAMA/LLAMA-3.1-70B", "llama-3.1-70b"},
        {"deepseek-ai/DeepSeek-R1-0528", "deepseek-r1"},
        {"deepseek-ai/DeepSeek-V3-0324", "deepseek-v3"},
    };
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        kvplan_model *m = NULL;
        kvplan_error err;
        CHECK_INT(kvplan_model_load(ids[i].id, &m, &err), KVPLAN_OK);
        if (m != NULL)
            CHECK_STR(kvplan_model_get_info(m)->name, ids[i].name);
        kvplan_model_free(m);
    }
    kvplan_model *m = NULL;
    kvplan_error err;
    CHECK_INT(kvplan_model_load("llama-3.1-8b-instrct", &m, &err), KVPLAN_IO);
    CHECK_CONTAINS(err.message, "did you mean llama-3.1-8b-instruct?");
    CHECK_INT(kvplan_model_load("Qwen/Qwen3-235B-A22B-Instruct-2507", &m, &err),
              KVPLAN_IO);
    CHECK_CONTAINS(err.message, "did you mean Qwen/Qwen3-235B-A22B?");
    CHECK_INT(kvplan_model_load("zzzz", &m, &err), KVPLAN_IO);
    CHECK(strstr(err.message, "did you mean") == NULL);
    /* the distance behind every "did you mean" */
    CHECK_INT(kvplan_edit_distance("H100", "h100"), 0);
    CHECK_INT(kvplan_edit_distance("kitten", "sitting"), 3);
    CHECK_INT(kvplan_edit_distance("", "abc"), 3);
    CHECK_INT(kvplan_edit_distance("a", "abcdefghijklmnop"), 4); /* capped */
    CHECK_INT(kvplan_edit_distance("abcdefgh", "hgfedcba"), 4);
    CHECK_INT(
        kvplan_edit_distance("--mem-fraction-statc", "--mem-fraction-static"),
        1);
    CHECK_INT(kvplan_edit_distance("ab", "ba"), 2);
    CHECK_INT(kvplan_edit_distance(NULL, "a"), 4);
}

static void test_catalog(void)
{
    size_t n = sizeof catalog / sizeof catalog[0];
    size_t in_catalog = 0;
    while (kvplan_catalog_name(in_catalog) != NULL)
        in_catalog++;
    CHECK_INT(in_catalog, n); /* every catalog model has its row */
    for (size_t i = 0; i < n; i++) {
        const expected *e = &catalog[i];
        kvplan_model *m = NULL;
        kvplan_error err;
        kvplan_status st = kvplan_model_load(e->name, &m, &err);
        if (e->kind == 0 && strcmp(e->cell, "draft") != 0) {
            CHECK_STR(kvplan_status_name(st), e->cell);
            CHECK(m == NULL);
            CHECK(err.message[0] != '\0');
            if (st == KVPLAN_UNSUPPORTED)
                CHECK_STR(err.field, "/architectures");
            continue;
        }
        CHECK_INT(st, KVPLAN_OK);
        if (st != KVPLAN_OK) {
            fprintf(stderr, "  %s: %s\n", e->name, err.message);
            continue;
        }
        const kvplan_model_info *info = kvplan_model_get_info(m);
        CHECK_INT(info->num_hidden_layers, e->layers);
        kvplan_server_args args;
        kvplan_server_args_init(&args);
        args.kv_cache_dtype = KVPLAN_KV_BF16; /* bf16 for every row */
        kvplan_rank rank;
        int64_t ctx = 0;
        if (e->kind == 0) { /* a draft head: refused as a target */
            CHECK(info->is_draft_only);
            CHECK_INT(kvplan_model_rank(m, &args, 0, &rank, &ctx, &err),
                      KVPLAN_UNSUPPORTED);
            CHECK_CONTAINS(err.message, "--speculative-draft-model-path");
            kvplan_model_free(m);
            continue;
        }
        st = kvplan_model_rank(m, &args, 0, &rank, &ctx, &err);
        CHECK_INT(st, KVPLAN_OK);
        kvplan_configurator c;
        if (st == KVPLAN_OK &&
            kvplan_configurator_init(&c, &rank, &err) == KVPLAN_OK) {
            if ((int)c.kind != e->kind || strcmp(coefficient(&c), e->cell) != 0)
                fprintf(stderr, "  %s\n", e->name);
            CHECK_INT(c.kind, e->kind);
            CHECK_STR(coefficient(&c), e->cell);
        } else {
            CHECK_FAIL_("%s: %s", e->name, err.message);
        }
        CHECK_INT(info->num_key_value_heads, e->kv_heads);
        CHECK_INT(info->head_dim, e->head_dim);
        CHECK_INT(info->v_head_dim, e->v_head_dim);
        CHECK_INT(ctx, e->context_len);
        CHECK_INT(info->context_len, e->context_len);
        kvplan_model_free(m);
    }
}

/* The spec's worked examples (§0.5), from the catalog configs. */
static void test_worked_examples(void)
{
    kvplan_server_args a;
    kvplan_server_args_init(&a);
    kvplan_rank r;
    kvplan_configurator c;
    kvplan_pool_config cfg;

    kvplan_model *m = plan("llama-3.1-8b-instruct", &a, 0, &r, &c);
    CHECK_INT(c.cell_size_bytes, 131072);
    CHECK_INT(kvplan_calculate_pool_sizes(&c, 107374182400LL, 1, &cfg, NULL),
              KVPLAN_OK);
    CHECK_INT(cfg.max_total_num_tokens, 819200);
    kvplan_model_free(m);

    /* the Hugging Face id finds the same model */
    m = plan("meta-llama/Llama-3.1-8B-Instruct", &a, 0, &r, &c);
    CHECK_INT(c.cell_size_bytes, 131072);
    CHECK_STR(kvplan_model_get_info(m)->hf_id,
              "meta-llama/Llama-3.1-8B-Instruct");
    kvplan_model_free(m);

    /* DeepSeek-V3 on Hopper: MLA bf16, 576 * 61 * 2; MTP scales by 1/61 */
    m = plan("deepseek-v3", &a, 0, &r, &c);
    CHECK_INT(c.cell_size_bytes, 70272);
    kvplan_model_free(m);
    a.speculative_algorithm = KVPLAN_SPEC_EAGLE;
    m = plan("deepseek-v3", &a, 0, &r, &c);
    CHECK_INT(r.runner.eagle_draft_num_layers.value, 1);
    CHECK_INT(c.cell_size_bytes, 71424);
    kvplan_model_free(m);
    m = plan("deepseek-v3.2", &a, 0, &r, &c);
    CHECK_INT(c.cell_size_bytes, 79608); /* int(78324 * (1 + 1/61)) */
    kvplan_model_free(m);
    /* Kimi-K2 says num_nextn_predict_layers: 0, which disables it */
    m = plan("kimi-k2-instruct", &a, 0, &r, &c);
    CHECK_INT(r.runner.eagle_draft_num_layers.value, 0);
    CHECK_INT(c.cell_size_bytes, 70272);
    kvplan_model_free(m);
    a.speculative_algorithm = KVPLAN_SPEC_NONE;

    /* DeepSeek-V3.2: bf16 on Hopper (78324), fp8 on Blackwell, priced by
     * the seed at 576 * 61 + 132 * 61 = 43188 */
    m = plan("deepseek-v3.2", &a, 0, &r, &c);
    CHECK_INT(r.runner.kv_cache_dtype, KVPLAN_DTYPE_BFLOAT16);
    CHECK_INT(c.cell_size_bytes, 78324);
    kvplan_model_free(m);
    a.gpu_compute_capability = 100;
    m = plan("deepseek-v3.2", &a, 0, &r, &c);
    CHECK_INT(r.runner.kv_cache_dtype, KVPLAN_DTYPE_FLOAT8_E4M3FN);
    CHECK_INT(c.cell_size_bytes, 43188);
    kvplan_model_free(m);
    a.gpu_compute_capability = 90;

    /* gpt-oss-120b: hybrid SWA, window 128 - 1 */
    m = plan("gpt-oss-120b", &a, 0, &r, &c);
    CHECK_DOUBLE(c.cell_size, 66355.2);
    CHECK_INT(r.runner.sliding_window_size.value, 127);
    CHECK_INT(kvplan_calculate_pool_sizes(&c, 107374182400LL, 1, &cfg, NULL),
              KVPLAN_OK);
    CHECK_INT(cfg.full_max_total_num_tokens.value, 1618172);
    CHECK_INT(cfg.swa_max_total_num_tokens.value, 1294537);
    kvplan_model_free(m);
}

/* Review D4 and D6: values the command never passes, through the API. */
static void test_hostile_api_values(void)
{
    kvplan_model *m = NULL;
    kvplan_error err;
    CHECK_INT(kvplan_model_load("llama-3.1-8b-instruct", &m, &err), KVPLAN_OK);
    kvplan_server_args a;
    kvplan_server_args_init(&a);
    kvplan_rank r;
    /* attn_cp_size * dp_size wrapped to 0: a SIGFPE in the modulo */
    a.tp_size = a.attn_cp_size = a.dp_size = (int64_t)1 << 32;
    a.enable_dp_attention = true;
    CHECK_INT(kvplan_model_rank(m, &a, 0, &r, NULL, &err),
              KVPLAN_INVALID_CONFIG);
    CHECK_STR(err.field, "--tp-size");
    a.tp_size = a.attn_cp_size = (int64_t)1 << 62;
    a.dp_size = 4;
    CHECK_INT(kvplan_model_rank(m, &a, 0, &r, NULL, &err),
              KVPLAN_INVALID_CONFIG);
    kvplan_model_free(m);
    /* NULL outputs are refused, not written */
    CHECK(!kvplan_spec_algorithm_from_name("eagle", NULL));
    CHECK(!kvplan_gpu_preset("H100-80GB", NULL));
    kvplan_spec_algorithm alg = KVPLAN_SPEC_NONE;
    CHECK(kvplan_spec_algorithm_from_name("eagle", &alg));
    CHECK_INT(alg, KVPLAN_SPEC_EAGLE);
}

static void test_parallel(void)
{
    kvplan_server_args a;
    kvplan_server_args_init(&a);
    kvplan_rank r;
    kvplan_configurator c;

    /* TP wider than the KV heads: 2 heads over tp 4 keep 1 per rank:
     * 1 * 256 * 28 * 2 */
    a.tp_size = 4;
    kvplan_model *m = plan("qwen2.5-1.5b", &a, 0, &r, &c);
    CHECK_INT(r.parallel.attn_tp_size, 4);
    CHECK_INT(c.cell_size_bytes, 14336);
    kvplan_model_free(m);

    /* DP attention: attn_tp = tp / dp = 8 / 4 = 2 -> 8 // 2 = 4 heads */
    a.tp_size = 8;
    a.dp_size = 4;
    a.enable_dp_attention = true;
    m = plan("llama-3.1-8b", &a, 0, &r, &c);
    CHECK_INT(r.parallel.attn_tp_size, 2);
    CHECK_INT(r.runner.dp_size, 4);
    CHECK_INT(c.cell_size_bytes, 4 * 256 * 32 * 2);
    kvplan_model_free(m);
    /* without --enable-dp-attention the DP size does not split attention */
    a.enable_dp_attention = false;
    m = plan("llama-3.1-8b", &a, 0, &r, &c);
    CHECK_INT(r.parallel.attn_tp_size, 8);
    CHECK_INT(r.runner.dp_size, 1);
    kvplan_model_free(m);
    a.tp_size = a.dp_size = 1;

    /* PP: 32 layers over 3 stages, the last 32 % 3 = 2 take one more:
     * [0, 10) [10, 21) [21, 32) */
    a.pp_size = 3;
    static const int64_t bounds[3][2] = {{0, 10}, {10, 21}, {21, 32}};
    for (int64_t rank = 0; rank < 3; rank++) {
        m = plan("llama-3.1-8b", &a, rank, &r, &c);
        CHECK_INT(r.runner.start_layer, bounds[rank][0]);
        CHECK_INT(r.runner.end_layer, bounds[rank][1]);
        CHECK_INT(c.cell_size_bytes,
                  8 * 256 * (bounds[rank][1] - bounds[rank][0]) * 2);
        kvplan_model_free(m);
    }
    /* SGLANG_PP_LAYER_PARTITION overrides it */
    a.SGLANG_PP_LAYER_PARTITION = "16,8,8";
    m = plan("llama-3.1-8b", &a, 1, &r, &c);
    CHECK_INT(r.runner.start_layer, 16);
    CHECK_INT(r.runner.end_layer, 24);
    kvplan_model_free(m);
    kvplan_error err;
    a.SGLANG_PP_LAYER_PARTITION = "16,8";
    CHECK_INT(kvplan_model_load("llama-3.1-8b", &m, &err), KVPLAN_OK);
    CHECK_INT(kvplan_model_rank(m, &a, 0, &r, NULL, &err),
              KVPLAN_INVALID_CONFIG);
    CHECK_STR(err.field, "SGLANG_PP_LAYER_PARTITION");
    kvplan_model_free(m);
    a.SGLANG_PP_LAYER_PARTITION = NULL;

    /* hybrid SWA under PP keeps range(start, end + 1): gpt-oss-120b over 2
     * stages; stage 0 is [0, 18) and keeps full 1..17 (9) and sliding
     * 0..18 (10); stage 1 is [18, 36) and keeps full 19..35 (9), sliding
     * 18..34 (9) */
    a.pp_size = 2;
    m = plan("gpt-oss-120b", &a, 0, &r, &c);
    CHECK_INT(r.model.full_attention_layer_ids.count, 9);
    CHECK_INT(r.model.swa_attention_layer_ids.count, 10);
    kvplan_model_free(m);
    m = plan("gpt-oss-120b", &a, 1, &r, &c);
    CHECK_INT(r.model.full_attention_layer_ids.count, 9);
    CHECK_INT(r.model.swa_attention_layer_ids.count, 9);
    kvplan_model_free(m);
    /* mamba hybrid under PP: Qwen3-Next's attention layers 3, 7, ..., 47;
     * stage 1 of 2 is [24, 48) and holds 27, 31, ..., 47: 6 layers */
    m = plan("qwen3-next-80b-a3b-thinking", &a, 1, &r, &c);
    CHECK_INT(c.cell_size_bytes, 2 * 512 * 6 * 2);
    kvplan_model_free(m);
    a.pp_size = 1;
}

static void test_flags(void)
{
    kvplan_server_args a;
    kvplan_server_args_init(&a);
    kvplan_rank r;
    kvplan_configurator c;
    kvplan_error err;
    kvplan_model *m;

    /* an fp8 KV cache halves the bf16 cell */
    a.kv_cache_dtype = KVPLAN_KV_FP8_E4M3;
    m = plan("llama-3.1-8b", &a, 0, &r, &c);
    CHECK_INT(c.cell_size_bytes, 65536);
    kvplan_model_free(m);
    /* DSA allows only bf16 and fp8_e4m3 */
    a.kv_cache_dtype = KVPLAN_KV_FP8_E5M2;
    CHECK_INT(kvplan_model_load("deepseek-v3.2", &m, &err), KVPLAN_OK);
    CHECK_INT(kvplan_model_rank(m, &a, 0, &r, NULL, &err),
              KVPLAN_INVALID_CONFIG);
    CHECK_STR(err.field, "--kv-cache-dtype");
    kvplan_model_free(m);
    a.kv_cache_dtype = KVPLAN_KV_AUTO;

    /* Llama-2 says float16; --dtype bfloat16 changes the model dtype */
    m = plan("llama-2-7b", &a, 0, &r, &c);
    CHECK_INT(r.runner.kv_cache_dtype, KVPLAN_DTYPE_FLOAT16);
    kvplan_model_free(m);
    /* a config without a dtype is float32, which auto turns into fp16;
     * gpt-oss (mxfp4) is the override that makes it bf16 */
    m = plan("gpt-oss-20b", &a, 0, &r, &c);
    CHECK_INT(r.runner.dtype, KVPLAN_DTYPE_BFLOAT16);
    kvplan_model_free(m);

    /* --context-length: shorter is used, longer is refused */
    int64_t ctx = 0;
    a.context_length = (kvplan_opt_int){8192, true};
    CHECK_INT(kvplan_model_load("llama-3.1-8b", &m, &err), KVPLAN_OK);
    CHECK_INT(kvplan_model_rank(m, &a, 0, &r, &ctx, &err), KVPLAN_OK);
    CHECK_INT(ctx, 8192);
    a.context_length = (kvplan_opt_int){262144, true};
    CHECK_INT(kvplan_model_rank(m, &a, 0, &r, &ctx, &err),
              KVPLAN_INVALID_CONFIG);
    CHECK_STR(err.field, "--context-length");
    a.SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN = true;
    CHECK_INT(kvplan_model_rank(m, &a, 0, &r, &ctx, &err), KVPLAN_OK);
    CHECK_INT(ctx, 262144);
    a.context_length.set = false;
    a.SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN = false;

    /* an EAGLE3 draft of one layer: int(131072 * (1 + 1/32)) = 135168 */
    kvplan_model *draft = NULL;
    CHECK_INT(kvplan_model_load("eagle3-llama3.1-8b", &draft, &err), KVPLAN_OK);
    a.speculative_algorithm = KVPLAN_SPEC_EAGLE3;
    a.speculative_draft_model = draft;
    CHECK_INT(kvplan_model_rank(m, &a, 0, &r, NULL, &err), KVPLAN_OK);
    CHECK_INT(kvplan_configurator_init(&c, &r, &err), KVPLAN_OK);
    CHECK_INT(r.runner.eagle_draft_num_layers.value, 1);
    CHECK_INT(c.cell_size_bytes, 135168);
    /* DFLASH needs a draft model: its layers are in the budget */
    a.speculative_algorithm = KVPLAN_SPEC_DFLASH;
    a.speculative_draft_model = NULL;
    CHECK_INT(kvplan_model_rank(m, &a, 0, &r, NULL, &err),
              KVPLAN_INVALID_CONFIG);
    CHECK_STR(err.field, "--speculative-draft-model-path");
    /* with it: (131072 * 33 + 31) // 32 = 135168 */
    a.speculative_draft_model = draft;
    CHECK_INT(kvplan_model_rank(m, &a, 0, &r, NULL, &err), KVPLAN_OK);
    CHECK_INT(kvplan_configurator_init(&c, &r, &err), KVPLAN_OK);
    CHECK_INT(c.cell_size_bytes, 135168);
    kvplan_model_free(draft);
    kvplan_model_free(m);
    kvplan_server_args_init(&a);

    /* --disable-hybrid-swa-memory: gpt-oss at full size on every layer */
    a.disable_hybrid_swa_memory = true;
    m = plan("gpt-oss-120b", &a, 0, &r, &c);
    CHECK_INT(c.kind, KVPLAN_CONFIGURATOR_DEFAULT);
    CHECK_INT(c.cell_size_bytes, 8 * 128 * 36 * 2);
    kvplan_model_free(m);
    /* DeepSeek V4: page 256 is the caller's; ratio 0.1 by default */
    a.disable_hybrid_swa_memory = false;
    m = plan("deepseek-v4-flash", &a, 0, &r, &c);
    CHECK_DOUBLE(r.server_args.swa_full_tokens_ratio, 0.1);
    CHECK_INT(r.runner.kv_cache_dtype, KVPLAN_DTYPE_FLOAT8_E4M3FN);
    CHECK_INT(r.model.window_size.value, 128);
    CHECK_INT(r.model.qk_nope_head_dim.value, 448);
    kvplan_model_free(m);
}

static kvplan_status load_text(const char *text, kvplan_model **m,
                               kvplan_error *err)
{
    return kvplan_model_load_json(text, strlen(text), "test.json", m, err);
}

static void test_errors(void)
{
    kvplan_model *m = NULL;
    kvplan_error err;

    /* syntax errors give line and column */
    CHECK_INT(load_text("{\n  \"architectures\": [\"LlamaForCausalLM\"],\n"
                        "  \"num_hidden_layers\": 32,,\n}",
                        &m, &err),
              KVPLAN_PARSE);
    CHECK_INT(err.line, 3);
    CHECK(err.column > 0);
    CHECK_CONTAINS(err.message, "test.json:3:");
    CHECK(m == NULL);

    /* a missing field is named by its JSON pointer, text config included */
    CHECK_INT(
        load_text("{\"architectures\": [\"Gemma3ForConditionalGeneration\"],"
                  " \"text_config\": {\"model_type\": \"llama\","
                  " \"hidden_size\": 4096, \"num_hidden_layers\": 32}}",
                  &m, &err),
        KVPLAN_PARSE);
    CHECK_STR(err.field, "/text_config/num_attention_heads");
    CHECK_CONTAINS(err.message, "required");

    /* a wrong type */
    CHECK_INT(load_text("{\"architectures\": [\"LlamaForCausalLM\"],"
                        " \"hidden_size\": 4096, \"num_attention_heads\": 32,"
                        " \"num_hidden_layers\": \"32\"}",
                        &m, &err),
              KVPLAN_PARSE);
    CHECK_STR(err.field, "/num_hidden_layers");
    CHECK_CONTAINS(err.message, "expected an integer");

    /* an unknown architecture is refused by name */
    CHECK_INT(load_text("{\"architectures\": [\"FancyNetForCausalLM\"],"
                        " \"hidden_size\": 64, \"num_attention_heads\": 1,"
                        " \"num_hidden_layers\": 1}",
                        &m, &err),
              KVPLAN_UNSUPPORTED);
    CHECK_CONTAINS(err.message, "FancyNetForCausalLM");

    /* not an object; not a model of the catalog */
    CHECK_INT(load_text("[1, 2]", &m, &err), KVPLAN_PARSE);
    CHECK_INT(kvplan_model_load("no-such-model-anywhere", &m, &err), KVPLAN_IO);
    CHECK_CONTAINS(err.message, "--list-models");

    /* a minimal config with its defaults: heads default to attention
     * heads, head_dim to hidden / heads, context to 2048 (llama's class
     * default for max_position_embeddings) */
    CHECK_INT(load_text("{\"architectures\": [\"LlamaForCausalLM\"],"
                        " \"model_type\": \"llama\", \"hidden_size\": 512,"
                        " \"num_attention_heads\": 8, \"num_hidden_layers\": 4,"
                        " \"torch_dtype\": \"bfloat16\"}",
                        &m, &err),
              KVPLAN_OK);
    const kvplan_model_info *info = kvplan_model_get_info(m);
    CHECK_INT(info->num_key_value_heads, 8);
    CHECK_INT(info->head_dim, 64);
    CHECK_INT(info->context_len, 2048);
    /* --pp-size larger than the layers */
    kvplan_server_args a;
    kvplan_server_args_init(&a);
    a.pp_size = 8;
    kvplan_rank r;
    CHECK_INT(kvplan_model_rank(m, &a, 0, &r, NULL, &err),
              KVPLAN_INVALID_CONFIG);
    CHECK_STR(err.field, "--pp-size");
    a.pp_size = 1;
    a.tp_size = 0; /* out of its range: an argument error */
    CHECK_INT(kvplan_model_rank(m, &a, 0, &r, NULL, &err),
              KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "--tp-size");
    CHECK_STR(err.message, "--tp-size must be a positive integer, got 0");
    /* auto page size: sglang's default without a backend, 1 */
    a.tp_size = 1;
    a.page_size = KVPLAN_PAGE_SIZE_AUTO;
    CHECK_INT(kvplan_model_rank(m, &a, 0, &r, NULL, &err), KVPLAN_OK);
    CHECK_INT(r.runner.page_size, 1);
    a.page_size = -3; /* was taken as auto */
    CHECK_INT(kvplan_model_rank(m, &a, 0, &r, NULL, &err),
              KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "--page-size");
    a.page_size = 16;
    a.speculative_algorithm = (kvplan_spec_algorithm)42;
    CHECK_INT(kvplan_model_rank(m, &a, 0, &r, NULL, &err),
              KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "--speculative-algorithm");
    a.speculative_algorithm = KVPLAN_SPEC_NONE;
    a.struct_size = 8; /* built against another kvplan.h */
    CHECK_INT(kvplan_model_rank(m, &a, 0, &r, NULL, &err),
              KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "struct_size");
    kvplan_model_free(m);

    /* get_pp_indices on 10 layers over 4 stages: [0,2) [2,4) [4,7) [7,10) */
    CHECK_INT(load_text("{\"architectures\": [\"LlamaForCausalLM\"],"
                        " \"hidden_size\": 128, \"num_attention_heads\": 2,"
                        " \"num_hidden_layers\": 10}",
                        &m, &err),
              KVPLAN_OK);
    kvplan_server_args_init(&a);
    a.pp_size = 4;
    static const int64_t starts[] = {0, 2, 4, 7}, ends[] = {2, 4, 7, 10};
    for (int64_t i = 0; i < 4; i++) {
        CHECK_INT(kvplan_model_rank(m, &a, i, &r, NULL, &err), KVPLAN_OK);
        CHECK_INT(r.runner.start_layer, starts[i]);
        CHECK_INT(r.runner.end_layer, ends[i]);
    }
    kvplan_model_free(m);

    /* a model directory: its config.json */
    CHECK_INT(kvplan_model_load(KVPLAN_TEST_MODEL_DIR, &m, &err), KVPLAN_OK);
    if (m != NULL)
        CHECK_INT(kvplan_model_get_info(m)->num_hidden_layers, 32);
    kvplan_model_free(m);
}

/* A FIFO, a device or a directory where a file is expected is refused at
 * once: nothing blocks on a FIFO with no writer. */
static void test_special_files(void)
{
    char dir[] = "/tmp/kvplan-test-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char fifo[256], st[256], sub[256];
    snprintf(fifo, sizeof fifo, "%s/config.json", dir);
    CHECK_INT(mkfifo(fifo, 0600), 0);
    kvplan_model *m = NULL;
    kvplan_error err;
    CHECK_INT(kvplan_model_load(fifo, &m, &err), KVPLAN_IO);
    CHECK_CONTAINS(err.message, "not a regular file");
    CHECK_INT(kvplan_model_load(dir, &m, &err), KVPLAN_IO); /* dir/FIFO */
    CHECK_INT(kvplan_model_load("/dev/zero", &m, &err), KVPLAN_IO);
    /* a directory named config.json */
    snprintf(sub, sizeof sub, "%s/d", dir);
    CHECK_INT(mkdir(sub, 0700), 0);
    char inner[300];
    snprintf(inner, sizeof inner, "%s/config.json", sub);
    CHECK_INT(mkdir(inner, 0700), 0);
    CHECK_INT(kvplan_model_load(sub, &m, &err), KVPLAN_IO);
    CHECK_CONTAINS(err.message, "not a regular file");
    /* a config over 32 MiB is refused before it is read (review D8) */
    char big[300];
    snprintf(big, sizeof big, "%s/big.json", dir);
    FILE *bf = fopen(big, "wb");
    CHECK(bf != NULL && ftruncate(fileno(bf), 40 << 20) == 0);
    if (bf != NULL)
        fclose(bf);
    CHECK_INT(kvplan_model_load(big, &m, &err), KVPLAN_PARSE);
    CHECK_CONTAINS(err.message, "at most 32 MiB");
    unlink(big);
    /* a symlink loop says so (review D14), not "no such file" */
    char loop[300];
    snprintf(loop, sizeof loop, "%s/loop", dir);
    CHECK_INT(symlink(loop, loop), 0);
    CHECK_INT(kvplan_model_load(loop, &m, &err), KVPLAN_IO);
    CHECK(strstr(err.message, "no such file") == NULL);
    CHECK_STR(err.field, "--model-path");
    unlink(loop);
    /* safetensors: a FIFO among them is refused, not read */
    snprintf(st, sizeof st, "%s/model.safetensors", dir);
    CHECK_INT(mkfifo(st, 0600), 0);
    int64_t bytes = 0;
    CHECK_INT(kvplan_weights_from_dir(dir, &bytes, &err), KVPLAN_PARSE);
    CHECK_CONTAINS(err.message, "model.safetensors: not a regular file");
    snprintf(st, sizeof st, "%s/model.safetensors.index.json", dir);
    CHECK_INT(mkfifo(st, 0600), 0);
    CHECK_INT(kvplan_weights_from_dir(dir, &bytes, &err), KVPLAN_PARSE);
    CHECK_CONTAINS(err.message, "index.json: not a regular file");
    unlink(st);
    snprintf(st, sizeof st, "%s/model.safetensors", dir);
    unlink(st);
    unlink(fifo);
    rmdir(inner);
    rmdir(sub);
    rmdir(dir);
}

/* Review R9: a catalog name is the catalog's wherever the command runs,
 * the working folder untouched (a folder of that name there included; one
 * kvplan may not search, when not root); "./name" is the local path. */
/* A catalog model is read once per process and copied after (memo.c):
 * the copy is the same model as a fresh read of its config, and each
 * handle is the caller's own (freeing one leaves the next intact). */
static void test_catalog_memo(void)
{
    const char *names[] = {"gemma-3-4b-it", "deepseek-v4-flash",
                           "qwen3-next-80b-a3b-thinking", "kimi-k2.5"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        kvplan_model *a = NULL, *b = NULL, *fresh = NULL;
        kvplan_error err;
        char path[256];
        snprintf(path, sizeof path, "%s/../%s/config.json",
                 KVPLAN_TEST_MODEL_DIR, names[k]);
        CHECK_INT(kvplan_model_load(names[k], &a, &err), KVPLAN_OK);
        kvplan_model_free(a);
        CHECK_INT(kvplan_model_load(names[k], &b, &err), KVPLAN_OK);
        CHECK_INT(kvplan_model_load(path, &fresh, &err), KVPLAN_OK);
        if (b == NULL || fresh == NULL)
            continue;
        const kvplan_model_info *x = kvplan_model_get_info(b),
                                *y = kvplan_model_get_info(fresh);
        CHECK_STR(x->name, names[k]);
        CHECK_STR(x->architecture, y->architecture);
        CHECK_STR(x->model_type, y->model_type);
        CHECK_INT(x->num_kv_layers, y->num_kv_layers);
        CHECK_INT(x->context_len, y->context_len);
        /* the same plan from both: the layer lists, the shapes, the
         * weights */
        kvplan_plan *p = malloc(2 * sizeof *p);
        kvplan_plan_options o;
        kvplan_plan_options_init(&o);
        o.gpu_set = kvplan_gpu_preset("H200", &o.gpu);
        o.server.tp_size = 8;
        if (p != NULL && kvplan_plan_compute(b, &o, &p[0], NULL) == KVPLAN_OK &&
            kvplan_plan_compute(fresh, &o, &p[1], NULL) == KVPLAN_OK) {
            CHECK_INT(p[0].max_total_num_tokens, p[1].max_total_num_tokens);
            CHECK_INT(p[0].max_running_requests, p[1].max_running_requests);
            CHECK_INT(p[0].stages[0].pools.c4_max_total_num_tokens,
                      p[1].stages[0].pools.c4_max_total_num_tokens);
            CHECK(p[0].budget.rank_weight_bytes ==
                  p[1].budget.rank_weight_bytes);
            CHECK_INT(p[0].stages[0].pools.full_max_total_num_tokens.value,
                      p[1].stages[0].pools.full_max_total_num_tokens.value);
            CHECK_INT(p[0].stages[0].pools.swa_max_total_num_tokens.value,
                      p[1].stages[0].pools.swa_max_total_num_tokens.value);
        } else
            CHECK(false);
        free(p);
        kvplan_model_free(b);
        kvplan_model_free(fresh);
    }
}

static void test_catalog_name_cwd(void)
{
    char dir[] = "/tmp/kvplan-cwd-XXXXXX", here[4096];
    CHECK(mkdtemp(dir) != NULL);
    CHECK(getcwd(here, sizeof here) != NULL);
    char path[200];
    snprintf(path, sizeof path, "%s/qwen3-8b", dir);
    CHECK_INT(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/qwen3-8b/config.json", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f != NULL) {
        fputs("not json", f);
        fclose(f);
    }
    CHECK_INT(chdir(dir), 0);
    kvplan_model *m = NULL;
    kvplan_error err;
    CHECK_INT(kvplan_model_load("qwen3-8b", &m, &err), KVPLAN_OK);
    CHECK_STR(kvplan_model_get_info(m)->hf_id, "Qwen/Qwen3-8B");
    kvplan_model_free(m);
    CHECK_INT(kvplan_model_load("./qwen3-8b", &m, &err), KVPLAN_PARSE);
    if (geteuid() != 0) { /* root searches any folder */
        CHECK_INT(chmod(dir, 0), 0);
        CHECK_INT(kvplan_model_load("qwen3-8b", &m, &err), KVPLAN_OK);
        kvplan_model_free(m);
        CHECK_INT(kvplan_model_load("Qwen/Qwen3-8B", &m, &err), KVPLAN_OK);
        kvplan_model_free(m);
        CHECK_INT(chmod(dir, 0755), 0);
    }
    CHECK_INT(chdir(here), 0);
    unlink(path);
    snprintf(path, sizeof path, "%s/qwen3-8b", dir);
    rmdir(path);
    rmdir(dir);
}

int main(void)
{
    test_special_files();
    test_hostile_api_values();
    test_catalog_names();
    test_catalog_name_cwd();
    test_catalog_memo();
    test_catalog();
    test_worked_examples();
    test_parallel();
    test_flags();
    test_errors();
    return check_report();
}
