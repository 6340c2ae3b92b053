/*
 * test_scenario.c: the golden-schema reader and writer (src/json/scenario.c,
 * src/json/write.c): defaults, strict types with JSON pointers, sglang's
 * parsing of environment strings, and Python-identical JSON text.
 */
#include "check.h"
#include "json/doc.h"
#include "json/scenario.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char base[] =
    "{\"runner\": {\"kv_cache_dtype\": \"bfloat16\", \"start_layer\": 0, "
    "\"end_layer\": 32, \"num_effective_layers\": 32, \"page_size\": 1}, "
    "\"model\": {\"num_key_value_heads\": 8, \"head_dim\": 128}, "
    "\"calls\": [{\"entry\": \"available_bytes\", \"value\": 107374182400, "
    "\"page_size\": 1}]}";

static json_t *load(const char *text)
{
    json_t *v = json_loads(text, 0, NULL);
    if (v == NULL)
        fprintf(stderr, "bad test JSON: %s\n", text);
    return v;
}

/* Parses `text` after setting /section/key to the JSON `value`. */
static kvplan_status parse_with(const char *section, const char *key,
                                const char *value, kvplan__scenario *s,
                                kvplan_error *err)
{
    json_t *obj = load(base);
    json_t *sec = json_object_get(obj, section);
    if (sec == NULL) {
        sec = json_object();
        json_object_set_new(obj, section, sec);
    }
    json_object_set_new(sec, key, json_loads(value, JSON_DECODE_ANY, NULL));
    kvplan_status st = kvplan__scenario_parse(obj, s, err);
    json_decref(obj);
    return st;
}

static void test_defaults(void)
{
    json_t *obj = load(base);
    kvplan__scenario s;
    kvplan_error err;
    CHECK_INT(kvplan__scenario_parse(obj, &s, &err), KVPLAN_OK);
    CHECK_INT(s.rank.runner.dtype, KVPLAN_DTYPE_BFLOAT16);
    CHECK_INT(s.rank.runner.dp_size, 1);
    CHECK_INT(s.rank.parallel.attn_tp_size, 1);
    CHECK_DOUBLE(s.rank.server_args.swa_full_tokens_ratio, 0.8);
    CHECK_INT(s.rank.env.SGLANG_SWA_EVICTION_INTERVAL, 128);
    CHECK(!s.rank.runner.is_mambaish);
    CHECK_INT(s.num_calls, 1);
    CHECK_INT(s.calls[0].value, 107374182400LL);

    kvplan__writer w = {0};
    kvplan__scenario_results(&w, NULL, &s);
    char *text = kvplan__w_take(&w, NULL);
    json_t *results = text != NULL ? json_loads(text, 0, NULL) : NULL;
    free(text);
    CHECK_INT(json_array_size(results), 1);
    json_t *r0 = json_array_get(results, 0);
    CHECK_INT(json_integer_value(json_object_get(r0, "max_total_num_tokens")),
              819200);
    CHECK_INT(json_integer_value(json_object_get(r0, "cell_size")), 131072);
    CHECK(json_is_null(json_object_get(r0, "full_max_total_num_tokens")));
    json_decref(results);
    kvplan__scenario_free(&s);
    json_decref(obj);
}

static void test_type_errors(void)
{
    kvplan__scenario s;
    kvplan_error err;
    CHECK_INT(parse_with("runner", "page_size", "16.5", &s, &err),
              KVPLAN_PARSE);
    CHECK_STR(err.field, "/runner/page_size");
    CHECK_CONTAINS(err.message, "expected an integer, got a real");
    CHECK_INT(parse_with("runner", "kv_cache_dtype", "\"fp8\"", &s, &err),
              KVPLAN_PARSE);
    CHECK_STR(err.field, "/runner/kv_cache_dtype");
    CHECK_INT(
        parse_with("model", "full_attention_layer_ids", "[1, \"2\"]", &s, &err),
        KVPLAN_PARSE);
    CHECK_STR(err.field, "/model/full_attention_layer_ids/1");
    CHECK_INT(parse_with("runner", "spec_algorithm", "\"medusa\"", &s, &err),
              KVPLAN_PARSE);
    CHECK_CONTAINS(err.message, "eagle3");
    CHECK_INT(parse_with("server_args", "disable_radix_cache", "1", &s, &err),
              KVPLAN_PARSE);
    CHECK_CONTAINS(err.message, "expected true or false");
    /* a required field that is absent */
    json_t *obj = load(base);
    json_object_del(json_object_get(obj, "runner"), "page_size");
    CHECK_INT(kvplan__scenario_parse(obj, &s, &err), KVPLAN_PARSE);
    CHECK_STR(err.field, "/runner/page_size");
    CHECK_CONTAINS(err.message, "required");
    json_decref(obj);
}

static void test_env_strings(void)
{
    kvplan__scenario s;
    kvplan_error err;
    /* EnvInt: Python's int() with blanks and underscores */
    CHECK_INT(parse_with("env", "SGLANG_SWA_EVICTION_INTERVAL", "\" 1_024 \"",
                         &s, &err),
              KVPLAN_OK);
    CHECK_INT(s.rank.env.SGLANG_SWA_EVICTION_INTERVAL, 1024);
    kvplan__scenario_free(&s);
    /* not an int: the default stays */
    CHECK_INT(
        parse_with("env", "SGLANG_SWA_EVICTION_INTERVAL", "\"12x\"", &s, &err),
        KVPLAN_OK);
    CHECK_INT(s.rank.env.SGLANG_SWA_EVICTION_INTERVAL, 128);
    kvplan__scenario_free(&s);
    /* EnvBool words, any case */
    CHECK_INT(parse_with("env", "SGLANG_OPT_USE_ONLINE_COMPRESS", "\" YES\"",
                         &s, &err),
              KVPLAN_OK);
    CHECK(s.rank.env.SGLANG_OPT_USE_ONLINE_COMPRESS);
    kvplan__scenario_free(&s);
    CHECK_INT(parse_with("env", "SGLANG_OPT_USE_ONLINE_COMPRESS", "\"maybe\"",
                         &s, &err),
              KVPLAN_OK);
    CHECK(!s.rank.env.SGLANG_OPT_USE_ONLINE_COMPRESS);
    kvplan__scenario_free(&s);
}

static char *dump(const char *text)
{
    json_t *v = json_loads(text, JSON_DECODE_ANY, NULL);
    char *out = kvplan__dump(v, NULL);
    json_decref(v);
    return out;
}

static void test_json_text(void)
{
    /* What Python's json.dumps(..., sort_keys=True) writes */
    char *t = dump(
        "{\"b\": [1, 0.8, null], \"a\": {\"y\": true, \"x\": \"\\u00e9\\n\"}}");
    CHECK_STR(
        t,
        "{\"a\": {\"x\": \"\\u00e9\\n\", \"y\": true}, \"b\": [1, 0.8, null]}");
    free(t);
    t = dump("[1e16, 0.1, -0.0, 12345678901234567890.0, \"\\ud83d\\ude00\"]");
    CHECK_STR(t,
              "[1e+16, 0.1, -0.0, 1.2345678901234567e+19, \"\\ud83d\\ude00\"]");
    free(t);
}

/* Text from outside may be any bytes: the document stays valid JSON, each
 * invalid byte a U+FFFD (review D7). */
static void test_json_invalid_utf8(void)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"plain", "\"plain\""},
        {"caf\xc3\xa9", "\"caf\\u00e9\""},
        {"dir\xff", "\"dir\\ufffd\""},
        {"\xc0\xaf", "\"\\ufffd\\ufffd\""},            /* overlong */
        {"\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\""}, /* surrogate */
        {"\xe2\x82", "\"\\ufffd\\ufffd\""},            /* truncated */
        {"\xf0\x9f\x98\x80", "\"\\ud83d\\ude00\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kvplan__writer w = {0};
        kvplan__w_str(&w, NULL, cases[i].in);
        char *t = kvplan__w_take(&w, NULL);
        CHECK_STR(t, cases[i].out);
        free(t);
    }
}

/* A number JSON cannot hold refuses the document, naming its member (the
 * name copied: the key need not outlive the writer). */
static void test_json_nonfinite(void)
{
    char key[16];
    snprintf(key, sizeof key, "%s", "ratio");
    kvplan__writer w = {0};
    kvplan__w_object(&w, NULL);
    kvplan__w_real(&w, key, NAN);
    kvplan__w_end(&w);
    memset(key, 0, sizeof key);
    kvplan_error err;
    CHECK_INT(kvplan__w_status(&w, &err), KVPLAN_OVERFLOW);
    CHECK_STR(err.field, "ratio");
    CHECK(kvplan__w_take(&w, NULL) == NULL);
}

int main(void)
{
    test_json_invalid_utf8();
    test_json_nonfinite();
    test_defaults();
    test_type_errors();
    test_env_strings();
    test_json_text();
    return check_report();
}
