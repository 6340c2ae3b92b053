/*
 * dl.c: a library loaded at run time, its calls resolved by name into a
 * table of function pointers (internal.h): libcurl for the Hub
 * (src/hub/http_curl.c) and libmicrohttpd for kvplan serve (cli/mhd.c).
 * A file of its own, so that a static link that needs neither pulls no
 * dlsym in.
 */
#include "common/internal.h"

#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

const char *kvplan__dl_resolve(void *lib, const kvplan__dl_call *calls,
                               size_t n, void *api)
{
    for (size_t i = 0; i < n; i++) {
        void *sym = dlsym(lib, calls[i].name);
        if (sym == NULL)
            return calls[i].name;
        /* POSIX allows the cast from dlsym's object pointer */
        void (*fn)(void) = (void (*)(void))(uintptr_t)sym;
        memcpy((char *)api + calls[i].offset, &fn, sizeof fn);
    }
    return NULL;
}
