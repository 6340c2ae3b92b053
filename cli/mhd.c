/*
 * mhd.c: libmicrohttpd loaded for kvplan serve (mhd.h): dlopen with
 * RTLD_LOCAL, each call resolved by name.
 */
#include "mhd.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

cli_mhd_api cli_mhd;

bool cli_mhd_load(char *why, size_t size)
{
    static const char soname[] = "libmicrohttpd.so.12";
    void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        const char *e = dlerror();
        snprintf(why, size,
                 "kvplan serve needs libmicrohttpd, which cannot be loaded "
                 "here (%.150s; apt-get install libmicrohttpd12)",
                 e != NULL ? e : soname);
        return false;
    }
    static const struct {
        size_t offset;
        const char *name;
    } calls[] = {
#define CALL(field) {offsetof(cli_mhd_api, field), "MHD_" #field}
        CALL(start_daemon),        CALL(stop_daemon),
        CALL(get_daemon_info),     CALL(create_response_from_buffer),
        CALL(add_response_header), CALL(queue_response),
        CALL(destroy_response),
#undef CALL
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        void *sym = dlsym(lib, calls[i].name);
        if (sym == NULL) {
            snprintf(why, size, "the libmicrohttpd here (%s) lacks %s", soname,
                     calls[i].name);
            return false;
        }
        /* POSIX allows the cast from dlsym's object pointer */
        void (*fn)(void) = (void (*)(void))(uintptr_t)sym;
        memcpy((char *)&cli_mhd + calls[i].offset, &fn, sizeof fn);
    }
    return true;
}
