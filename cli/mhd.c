/*
 * mhd.c: libmicrohttpd loaded for kvplan serve (mhd.h): dlopen with
 * RTLD_LOCAL, each call resolved by name.
 */
#include "mhd.h"

#include "common/internal.h"

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
    static const kvplan__dl_call calls[] = {
#define CALL(field) {offsetof(cli_mhd_api, field), "MHD_" #field}
        CALL(start_daemon),        CALL(stop_daemon),
        CALL(get_daemon_info),     CALL(create_response_from_buffer),
        CALL(add_response_header), CALL(queue_response),
        CALL(destroy_response),
#undef CALL
    };
    const char *missing = kvplan__dl_resolve(
        lib, calls, sizeof calls / sizeof calls[0], &cli_mhd);
    if (missing != NULL) {
        snprintf(why, size, "the libmicrohttpd here (%s) lacks %s", soname,
                 missing);
        return false;
    }
    return true;
}
