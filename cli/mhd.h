/*
 * mhd.h: the calls of libmicrohttpd kvplan serve makes (mhd.c), resolved
 * from the library loaded when the command starts, as the Hub loads
 * libcurl: no other command loads it, or GnuTLS behind it.
 */
#ifndef KVPLAN_MHD_H
#define KVPLAN_MHD_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct cli_mhd_api {
    struct MHD_Daemon *(*start_daemon)(unsigned int, uint16_t,
                                       MHD_AcceptPolicyCallback, void *,
                                       MHD_AccessHandlerCallback, void *, ...);
    void (*stop_daemon)(struct MHD_Daemon *);
    const union MHD_DaemonInfo *(*get_daemon_info)(struct MHD_Daemon *,
                                                   enum MHD_DaemonInfoType,
                                                   ...);
    struct MHD_Response *(*create_response_from_buffer)(
        size_t, void *, enum MHD_ResponseMemoryMode);
    enum MHD_Result (*add_response_header)(struct MHD_Response *, const char *,
                                           const char *);
    enum MHD_Result (*queue_response)(struct MHD_Connection *, unsigned int,
                                      struct MHD_Response *);
    void (*destroy_response)(struct MHD_Response *);
} cli_mhd_api;

/* Written by cli_mhd_load before the daemon starts, then only read. */
extern cli_mhd_api cli_mhd;

/* Loads libmicrohttpd and resolves cli_mhd; false with `why` said. */
bool cli_mhd_load(char *why, size_t size);

#endif /* KVPLAN_MHD_H */
