/*
 * json.h: jansson, as the library calls it; include this, never
 * <jansson.h> directly.
 *
 * A host program may define functions of the same names (json-c has
 * json_object_get and json_object_iter_next, with other meanings). Calls
 * from libkvplan.so to jansson by name would then bind to the host's, and
 * a valid config would fail to load. So every jansson function the library
 * calls goes through a table of jansson's own definitions, looked up in
 * jansson itself once (json.c). The names below are macros over that
 * table; jansson's own macros (json_object_foreach, json_array_foreach)
 * expand to them too.
 */
#ifndef KVPLAN_JSON_H
#define KVPLAN_JSON_H

#include <jansson.h>

typedef struct kvplan__jansson {
    json_t *(*object_get)(const json_t *, const char *);
    size_t (*object_size)(const json_t *);
    int (*object_update)(json_t *, json_t *);
    void *(*object_iter)(json_t *);
    void *(*object_iter_next)(json_t *, void *);
    const char *(*object_iter_key)(void *);
    json_t *(*object_iter_value)(void *);
    void *(*object_key_to_iter)(const char *);
    size_t (*array_size)(const json_t *);
    json_t *(*array_get)(const json_t *, size_t);
    const char *(*string_value)(const json_t *);
    size_t (*string_length)(const json_t *);
    json_int_t (*integer_value)(const json_t *);
    double (*real_value)(const json_t *);
    double (*number_value)(const json_t *);
    json_t *(*loads)(const char *, size_t, json_error_t *);
    json_t *(*loadb)(const char *, size_t, size_t, json_error_t *);
    json_t *(*loadf)(FILE *, size_t, json_error_t *);
    json_t *(*object)(void);
    json_t *(*string)(const char *);
    int (*object_set_new)(json_t *, const char *, json_t *);
    void (*delete_)(json_t *);
} kvplan__jansson;

/* The table, resolved on the first call (thread-safe) and never changed
 * after: the library's one piece of process-wide state. */
const kvplan__jansson *kvplan__jansson_calls(void);

#define KVPLAN__J (kvplan__jansson_calls())
#define json_object_get(o, k) (KVPLAN__J->object_get(o, k))
#define json_object_size(o) (KVPLAN__J->object_size(o))
#define json_object_update(o, other) (KVPLAN__J->object_update(o, other))
#define json_object_iter(o) (KVPLAN__J->object_iter(o))
#define json_object_iter_next(o, it) (KVPLAN__J->object_iter_next(o, it))
#define json_object_iter_key(it) (KVPLAN__J->object_iter_key(it))
#define json_object_iter_value(it) (KVPLAN__J->object_iter_value(it))
#define json_object_key_to_iter(k) (KVPLAN__J->object_key_to_iter(k))
#define json_array_size(a) (KVPLAN__J->array_size(a))
#define json_array_get(a, i) (KVPLAN__J->array_get(a, i))
#define json_string_value(s) (KVPLAN__J->string_value(s))
#define json_string_length(s) (KVPLAN__J->string_length(s))
#define json_integer_value(i) (KVPLAN__J->integer_value(i))
#define json_real_value(r) (KVPLAN__J->real_value(r))
#define json_number_value(n) (KVPLAN__J->number_value(n))
#define json_loads(t, f, e) (KVPLAN__J->loads(t, f, e))
#define json_loadb(b, n, f, e) (KVPLAN__J->loadb(b, n, f, e))
#define json_loadf(p, f, e) (KVPLAN__J->loadf(p, f, e))
#define json_object() (KVPLAN__J->object())
#define json_string(s) (KVPLAN__J->string(s))
#define json_object_set_new(o, k, v) (KVPLAN__J->object_set_new(o, k, v))

/* jansson's json_decref is an inline calling json_delete by name. */
static inline void kvplan__json_decref(json_t *json)
{
    if (json != NULL && json->refcount != (size_t)-1 &&
        JSON_INTERNAL_DECREF(json) == 0)
        KVPLAN__J->delete_(json);
}
#define json_decref(j) kvplan__json_decref(j)

#endif /* KVPLAN_JSON_H */
