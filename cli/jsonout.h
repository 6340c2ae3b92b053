/*
 * jsonout.h: JSON text exactly as Python's json.dumps(obj, sort_keys=True)
 * writes it: ", " and ": " separators, keys sorted, non-ASCII escaped, and
 * reals in repr() form (0.8, not 0.80000000000000004). kvplan's JSON lines
 * can then be compared byte for byte with the reference oracle's.
 */
#ifndef KVPLAN_JSONOUT_H
#define KVPLAN_JSONOUT_H

#include "common/json.h" /* jansson, as the library calls it */
#include <stdio.h>

/* A JSON string of text from outside (a path, a config's name, a message
 * quoting them): kept byte for byte however invalid its UTF-8; the writer
 * turns each invalid byte into U+FFFD. NULL only when out of memory. */
json_t *cli_json_text(const char *s);

/* The error object of --json: {"error", "field" (null when none),
 * "message", "exit_status": rc}; NULL when out of memory. */
struct kvplan_error;
json_t *cli_error_json(const struct kvplan_error *err, int rc);

/* Writes `v` to `out`; returns 0, or -1 on a write error or out of memory. */
int cli_json_write(const json_t *v, FILE *out);

#endif /* KVPLAN_JSONOUT_H */
