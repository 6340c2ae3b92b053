/*
 * test_alloc.c: fails the Nth allocation, for every N, while loading
 * configs (and reading a scenario), and checks that each failure is a clean
 * error (a status and a message, no model) and that nothing leaks.
 *
 * kvplan's own allocations are caught with the GNU linker's --wrap (the
 * library is linked statically into this test) and failed in turn.
 * jansson's go through json_set_alloc_funcs and are counted for the leak
 * check but not failed: jansson 2.14 asserts in its lexer
 * (lex_scan_string) when its allocator fails, which kvplan cannot mend.
 */
#include "check.h"
#include "kvplan.h"
#include "json/doc.h"
#include "json/scenario.h"

#include <jansson.h>
#include <stdlib.h>

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void __real_free(void *p);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);
void __wrap_free(void *p);

static long calls, fail_at, live;

static bool should_fail(void)
{
    return ++calls == fail_at;
}

/* jansson's allocator: counted, never failed */
static void *json_malloc(size_t size)
{
    void *p = __real_malloc(size);
    live += p != NULL;
    return p;
}

void *__wrap_malloc(size_t size)
{
    if (should_fail())
        return NULL;
    void *p = __real_malloc(size);
    live += p != NULL;
    return p;
}

void *__wrap_calloc(size_t n, size_t size)
{
    if (should_fail())
        return NULL;
    void *p = __real_calloc(n, size);
    live += p != NULL;
    return p;
}

void *__wrap_realloc(void *old, size_t size)
{
    if (should_fail())
        return NULL;
    void *p = __real_realloc(old, size);
    live += old == NULL && p != NULL;
    return p;
}

void __wrap_free(void *p)
{
    live -= p != NULL;
    __real_free(p);
}

/* Loads `name` failing each allocation in turn until one load needs no
 * failure; returns how many failures were injected. */
static long exhaust(const char *name, const char *overrides)
{
    long injected = 0;
    /* the status without any failure: a refusal stays a refusal */
    kvplan_model *base = NULL;
    kvplan_error base_err;
    fail_at = 0;
    kvplan_status want =
        kvplan_model_load_override(name, overrides, &base, &base_err);
    kvplan_model_free(base);
    for (fail_at = 1;; fail_at++) {
        calls = 0;
        live = 0;
        kvplan_model *m = (kvplan_model *)1;
        kvplan_error err;
        kvplan_status st =
            kvplan_model_load_override(name, overrides, &m, &err);
        bool failed_here = calls >= fail_at;
        if (st == KVPLAN_OK)
            kvplan_model_free(m);
        if (live != 0)
            CHECK_FAIL_("%s: allocation %ld failed: %ld blocks leaked", name,
                        fail_at, live);
        if (!failed_here) {
            CHECK_INT(st, want); /* no failure: as without the wrapper */
            break;
        }
        injected++;
        if (st == KVPLAN_OK)
            continue; /* a failure the loader could do without */
        if (m != NULL)
            CHECK_FAIL_("%s: allocation %ld failed but a model came back", name,
                        fail_at);
        if (err.message[0] == '\0')
            CHECK_FAIL_("%s: allocation %ld failed without a message", name,
                        fail_at);
        check_passed_++;
    }
    fail_at = 0;
    CHECK(injected > 0); /* the load did allocate, and each was failed */
    return injected;
}

static void exhaust_scenario(const char *line)
{
    for (fail_at = 1;; fail_at++) {
        calls = 0;
        live = 0;
        json_t *obj = json_loads(line, 0, NULL);
        kvplan__scenario s;
        kvplan_error err;
        if (obj != NULL && kvplan__scenario_parse(obj, &s, &err) == KVPLAN_OK) {
            kvplan__writer w = {0};
            kvplan__scenario_answer(&w, obj, &s);
            free(kvplan__w_take(&w, NULL));
            kvplan__scenario_free(&s);
        }
        json_decref(obj);
        bool failed_here = calls >= fail_at;
        if (live != 0)
            CHECK_FAIL_("scenario: allocation %ld failed: %ld blocks leaked",
                        fail_at, live);
        else
            check_passed_++;
        if (!failed_here)
            break;
    }
    fail_at = 0;
}

int main(void)
{
    json_set_alloc_funcs(json_malloc, __wrap_free);
    long n = 0;
    n += exhaust("llama-3.1-8b-instruct", NULL);
    n += exhaust("gemma-4-26b-a4b", NULL);         /* text_config, SWA ids */
    n += exhaust("deepseek-v4-flash", NULL);       /* compress ratios */
    n += exhaust("nemotron-3-nano-30b-a3b", NULL); /* NaN/Infinity, mamba */
    n += exhaust("llama-3.2-1b-instruct", "{\"num_hidden_layers\": 8}");
    n += exhaust(KVPLAN_TEST_DATA "/tiny-safetensors", NULL); /* files */
    n += exhaust("jamba-v0.1", NULL); /* refused: the error path */
    exhaust_scenario(
        "{\"runner\": {\"kv_cache_dtype\": \"bfloat16\", "
        "\"start_layer\": 0, \"end_layer\": 4, "
        "\"num_effective_layers\": 4, \"page_size\": 1, "
        "\"mambaish_full_attention_layer_ids\": [1, 3]}, "
        "\"model\": {\"num_key_value_heads\": 8, \"head_dim\": 128}, "
        "\"env\": {\"SGLANG_DSV4_COMPRESS_STATE_DTYPE\": \"bf16\"}, "
        "\"calls\": [{\"entry\": \"available_bytes\", \"value\": "
        "1000000000, \"page_size\": 1}]}");
    printf("%ld allocation failures injected\n", n);
    CHECK(n >= 7);
    return check_report();
}
