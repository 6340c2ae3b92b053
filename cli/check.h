/*
 * check.h: kvplan check's answer for a manifest (cmd_check.c), for the
 * command and for kvplan serve's /v1/check and /validate (cmd_serve.c).
 */
#ifndef KVPLAN_CHECK_H
#define KVPLAN_CHECK_H

#include "k8s.h"

#include <jansson.h>
#include <stdio.h>

typedef enum verdict {
    V_STARTS,  /* starts */
    V_WARNS,   /* starts, and one request of its context cannot fit */
    V_FAILS,   /* the engine refuses to start */
    V_UNKNOWN, /* cannot be checked: what to add is said */
} verdict;

/* What every launch is planned with: the command line's own flags. */
typedef struct cli_check_args {
    int argc;
    char **argv; /* kvplan flags for every launch */
    const char *gpu;
    const char *model;
    bool json;
    double deadline; /* cli_now() past which no server is planned; 0: none */
} cli_check_args;

/* Plans every launch of `k`: its text report on `text` (NULL: none) and
 * the counts of each verdict; without `text`, the JSON document (NULL
 * when memory runs out). */
json_t *cli_check_document(const char *name, const cli_k8s *k,
                           const cli_check_args *c, size_t count[4],
                           FILE *text);

#endif /* KVPLAN_CHECK_H */
