/*
 * test_interpose.c: a host program that defines functions with jansson's
 * names, as one that links json-c statically does (json-c has
 * json_object_get and json_object_iter_next, with other meanings), must
 * not break libkvplan.so: the library calls jansson's own definitions.
 * Linked against the shared library.
 */
#include "check.h"
#include "kvplan.h"
#include "kvplan_json.h"

#include <stddef.h>
#include <string.h>

/* The host's: what json-c's json_object_get would do to a jansson
 * object, reduced to a visible failure. */
void *json_object_get(void *object, const char *key);
void *json_object_get(void *object, const char *key)
{
    (void)object;
    (void)key;
    return NULL;
}

void *json_object_iter_next(void *object, void *iter);
void *json_object_iter_next(void *object, void *iter)
{
    (void)object;
    (void)iter;
    return NULL;
}

int main(void)
{
    kvplan_model *m = NULL;
    kvplan_error err;
    CHECK_INT(kvplan_model_load("llama-3.1-8b-instruct", &m, &err), KVPLAN_OK);
    if (m != NULL) {
        CHECK_INT(kvplan_model_get_info(m)->num_hidden_layers, 32);
        CHECK_INT(kvplan_model_get_info(m)->num_key_value_heads, 8);
        CHECK_STR(kvplan_model_get_info(m)->architecture, "LlamaForCausalLM");
    }
    kvplan_model_free(m);
    /* a config with an override, read through jansson's iterators */
    CHECK_INT(kvplan_model_load_override(
                  "qwen3-0.6b", "{\"num_hidden_layers\": 7}", &m, &err),
              KVPLAN_OK);
    if (m != NULL)
        CHECK_INT(kvplan_model_get_info(m)->num_hidden_layers, 7);
    kvplan_model_free(m);
    /* the JSON entry point reads its request through jansson too */
    const char *req = "{\"model\": \"llama-3.1-8b-instruct\", \"flags\": "
                      "{\"available_bytes\": 107374182400, \"page_size\": 64}}";
    char *resp = NULL;
    CHECK_INT(kvplan_json(req, strlen(req), &resp, NULL), 0);
    if (resp != NULL)
        CHECK_CONTAINS(resp, "\"max_total_num_tokens\": 819200,");
    kvplan_json_free(resp);
    return check_report();
}
