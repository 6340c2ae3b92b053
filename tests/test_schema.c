/*
 * test_schema.c: validates JSON documents against a JSON Schema, for the
 * subset kvplan's schemas use: type (one or a list), const, enum,
 * minimum, required, properties, additionalProperties: false, items, and
 * (docs/check.schema.json) $ref to "#/$defs/NAME", allOf, if/then.
 *
 *   test_schema SCHEMA FILE...   prints "N passed, N failed" (documents)
 */
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int errors;
static int quiet;          /* inside an "if": count, do not print */
static const json_t *root; /* the schema, for $ref */

static bool type_is(const json_t *v, const char *t)
{
    if (strcmp(t, "object") == 0)
        return json_is_object(v);
    if (strcmp(t, "array") == 0)
        return json_is_array(v);
    if (strcmp(t, "string") == 0)
        return json_is_string(v);
    if (strcmp(t, "integer") == 0)
        return json_is_integer(v);
    if (strcmp(t, "number") == 0)
        return json_is_number(v);
    if (strcmp(t, "boolean") == 0)
        return json_is_boolean(v);
    if (strcmp(t, "null") == 0)
        return json_is_null(v);
    return false;
}

static void fail(const char *path, const char *what)
{
    if (errors++ < 20 && quiet == 0)
        fprintf(stderr, "  %s: %s\n", path[0] ? path : "/", what);
}

static void check(const json_t *s, const json_t *v, const char *path);

/* $ref ("#/$defs/NAME"), allOf, and if/then (the "if" tried quietly). */
static void check_combined(const json_t *s, const json_t *v, const char *path)
{
    const char *ref = json_string_value(json_object_get(s, "$ref"));
    if (ref != NULL) {
        const json_t *sub =
            strncmp(ref, "#/$defs/", 8) == 0
                ? json_object_get(json_object_get(root, "$defs"), ref + 8)
                : NULL;
        if (sub == NULL)
            fail(path, "a $ref this validator cannot resolve");
        else
            check(sub, v, path);
    }
    size_t i;
    const json_t *x;
    json_array_foreach(json_object_get(s, "allOf"), i, x) check(x, v, path);
    const json_t *cond = json_object_get(s, "if");
    if (cond != NULL) {
        int before = errors;
        quiet++;
        check(cond, v, path);
        quiet--;
        bool holds = errors == before;
        errors = before;
        if (holds && json_object_get(s, "then"))
            check(json_object_get(s, "then"), v, path);
    }
}

static void check(const json_t *s, const json_t *v, const char *path)
{
    check_combined(s, v, path);
    const json_t *t = json_object_get(s, "type");
    if (json_is_string(t) && !type_is(v, json_string_value(t)))
        fail(path, "wrong type");
    if (json_is_array(t)) {
        bool ok = false;
        size_t i;
        const json_t *x;
        json_array_foreach(t, i, x) ok |= type_is(v, json_string_value(x));
        if (!ok)
            fail(path, "none of the allowed types");
    }
    const json_t *c = json_object_get(s, "const");
    if (c && !json_equal((json_t *)c, (json_t *)v))
        fail(path, "not the constant");
    const json_t *e = json_object_get(s, "enum");
    if (e) {
        bool ok = false;
        size_t i;
        const json_t *x;
        json_array_foreach(e, i, x) ok |= json_equal((json_t *)x, (json_t *)v);
        if (!ok)
            fail(path, "not one of the enum values");
    }
    const json_t *min = json_object_get(s, "minimum");
    if (min && json_is_number(v) &&
        json_number_value(v) < json_number_value(min))
        fail(path, "below the minimum");
    if (json_is_object(v)) {
        const json_t *req = json_object_get(s, "required");
        size_t i;
        const json_t *x;
        json_array_foreach(req, i,
                           x) if (!json_object_get(v, json_string_value(x)))
        {
            char p[256];
            snprintf(p, sizeof p, "%s/%s", path, json_string_value(x));
            fail(p, "required, but absent");
        }
        const json_t *props = json_object_get(s, "properties");
        const char *key;
        json_t *val;
        json_object_foreach((json_t *)v, key, val)
        {
            char p[256];
            snprintf(p, sizeof p, "%s/%s", path, key);
            const json_t *sub = json_object_get(props, key);
            if (sub)
                check(sub, val, p);
            else if (json_is_false(json_object_get(s, "additionalProperties")))
                fail(p, "not allowed by the schema");
        }
    }
    const json_t *items = json_object_get(s, "items");
    if (items && json_is_array(v)) {
        size_t i;
        const json_t *x;
        json_array_foreach(v, i, x)
        {
            char p[256];
            snprintf(p, sizeof p, "%s/%zu", path, i);
            check(items, x, p);
        }
    }
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_schema SCHEMA FILE...\n");
        return 2;
    }
    json_error_t jerr;
    json_t *schema = json_load_file(argv[1], 0, &jerr);
    root = schema;
    if (schema == NULL) {
        fprintf(stderr, "%s:%d: %s\n", argv[1], jerr.line, jerr.text);
        return 2;
    }
    int passed = 0, failed = 0;
    for (int i = 2; i < argc; i++) {
        json_t *doc = json_load_file(argv[i], 0, &jerr);
        int before = errors;
        if (doc == NULL)
            fail(argv[i], jerr.text);
        else
            check(schema, doc, "");
        if (errors > before) {
            fprintf(stderr, "FAIL %s\n", argv[i]);
            failed++;
        } else {
            passed++;
        }
        json_decref(doc);
    }
    json_decref(schema);
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 && passed > 0 ? 0 : 1;
}
