/*
 * request.h: what the files of kvplan_json share (request.c reads a
 * request into options, ask.c asks the library, pools.c answers
 * scenarios, session.c keeps loaded models for a session); internal to the
 * json room.
 */
#ifndef KVPLAN_REQUEST_H
#define KVPLAN_REQUEST_H

#include "json/doc.h"

#include "kvplan_json.h"
#include "options/options.h"

#define MAX_ENV 64
#define MAX_HELD 512

typedef struct kvplan__request {
    const char *command;
    json_t *model, *config, *flags, *log, *scenarios, *svg, *calibrate;
    const char *env[2 * MAX_ENV + 1];
    char *config_text; /* the config object's text (owned) */
    size_t config_len;
} request;

/* The command line the request's flags spell, for a sweep row's "flags":
 * "--flag" and its value's text, or the flag alone for true. */
typedef struct kvplan__held {
    const char *argv[MAX_HELD];
    char *owned[MAX_HELD];
    size_t n, nowned;
} held;

/* A sweep's axis: an option it varies, its values as text. */
typedef struct kvplan__axis {
    const char *key;
    const char *values[KVPLAN_MAX_SWEEP_VALUES];
    char *owned[KVPLAN_MAX_SWEEP_VALUES];
    size_t n;
} axis;

/* Each question writes its answer into a writer and returns the library's
 * status; a refusal replaces whatever was written with the error
 * document. */

/* An error document for what the request itself gets wrong. */
kvplan_status kvplan__refuse(kvplan__writer *w, kvplan_status code,
                             int exit_status, const char *field,
                             const char *fmt, ...) KVPLAN_PRINTF(5, 6);
/* The error's field and message in a request's terms: each option's flag
 * spelled as its key (--tp-size: tp_size), but in a command line quoted as
 * one ("kvplan --engine vllm"). */
void kvplan__request_terms(kvplan_error *err);

/* The library's error, as the command reports it: with `usage`, a value
 * out of range is a usage error (exit 2). */
kvplan_status kvplan__failed(kvplan__writer *w, const kvplan_error *err,
                             bool usage);

/* request.c: the request's model, variables and flags into `o`. */
kvplan_status kvplan__request_options(kvplan__writer *w, request *rq,
                                      kvplan_options *o, held *h, axis *axes,
                                      size_t *naxes);

/* ask.c: plan, fit, solve, sweep, compare (the options loaded, through
 * the session's models when it has them), and log. */
kvplan_status kvplan__ask(kvplan__writer *w, request *rq, kvplan_options *o,
                          held *h, axis *ax, size_t naxes, kvplan_plan *work,
                          kvplan_json_session *session);
kvplan_status kvplan__ask_log(kvplan__writer *w, request *rq, kvplan_options *o,
                              held *h, axis *ax, size_t *naxes,
                              kvplan_plan *work);

/* pools.c: each scenario answered, in a list. */
kvplan_status kvplan__ask_pools(kvplan__writer *w, const json_t *scenarios);

/* session.c: the options loaded, the session's models reused where they
 * are the same; *borrowed when the models are the session's (not to be
 * freed with the load). */
kvplan_status kvplan__session_load(kvplan_json_session *s, kvplan_options *o,
                                   kvplan_loaded *l, bool *borrowed,
                                   kvplan_error *err);

#endif /* KVPLAN_REQUEST_H */
