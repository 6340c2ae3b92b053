/*
 * json.c: the table of jansson's functions the library calls (json.h).
 *
 * jansson is a dependency of libkvplan: it is loaded already. Its handle
 * (dlopen with RTLD_NOLOAD) finds its own definitions with dlsym, which a
 * host's functions of the same names cannot shadow; where there is no such
 * shared library (a fully static link), the functions the linker bound are
 * taken, and there nothing can shadow them either. Resolved once.
 */
#include "common/json.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

/* json.h's macros are for callers: here the real names are meant. */
#undef json_object_get
#undef json_object_size
#undef json_object_update
#undef json_object_iter
#undef json_object_iter_next
#undef json_object_iter_key
#undef json_object_iter_value
#undef json_object_key_to_iter
#undef json_array_size
#undef json_array_get
#undef json_string_value
#undef json_string_length
#undef json_integer_value
#undef json_real_value
#undef json_number_value
#undef json_loads
#undef json_loadb
#undef json_loadf
#undef json_object
#undef json_string
#undef json_object_set_new

static kvplan__jansson table;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* jansson's own definition of `name`, else the one linked (`fallback`).
 * POSIX allows the cast from dlsym's object pointer. */
#define RESOLVE(field, name)                                                   \
    do {                                                                       \
        void *p = lib ? dlsym(lib, #name) : NULL;                              \
        if (p != NULL)                                                         \
            memcpy(&table.field, &p, sizeof p);                                \
        else                                                                   \
            table.field = name;                                                \
    } while (0)

static void resolve(void)
{
#ifdef __EMSCRIPTEN__
    void *lib = NULL; /* WebAssembly: one module, jansson linked in */
#else
    void *lib = dlopen("libjansson.so.4", RTLD_LAZY | RTLD_NOLOAD);
#endif
    RESOLVE(object_get, json_object_get);
    RESOLVE(object_size, json_object_size);
    RESOLVE(object_update, json_object_update);
    RESOLVE(object_iter, json_object_iter);
    RESOLVE(object_iter_next, json_object_iter_next);
    RESOLVE(object_iter_key, json_object_iter_key);
    RESOLVE(object_iter_value, json_object_iter_value);
    RESOLVE(object_key_to_iter, json_object_key_to_iter);
    RESOLVE(array_size, json_array_size);
    RESOLVE(array_get, json_array_get);
    RESOLVE(string_value, json_string_value);
    RESOLVE(string_length, json_string_length);
    RESOLVE(integer_value, json_integer_value);
    RESOLVE(real_value, json_real_value);
    RESOLVE(number_value, json_number_value);
    RESOLVE(loads, json_loads);
    RESOLVE(loadb, json_loadb);
    RESOLVE(loadf, json_loadf);
    RESOLVE(object, json_object);
    RESOLVE(string, json_string);
    RESOLVE(object_set_new, json_object_set_new);
    RESOLVE(delete_, json_delete);
    /* the handle stays open: jansson is loaded for the process's life */
}

const kvplan__jansson *kvplan__jansson_calls(void)
{
    pthread_once(&once, resolve);
    return &table;
}
