/*
 * report.h: a plan, written for a person (text, with --explain) or for a
 * script (--json, schema docs/plan.schema.json).
 */
#ifndef KVPLAN_REPORT_H
#define KVPLAN_REPORT_H

#include "flags.h"

#include "json/doc.h"

#include <stdio.h>

/* Bytes per GiB: sglang prints GiB and calls them GB. */
#define GIB 1073741824.0

/* One reading of a log's report, "  name   value", when the log printed
 * it: a figure to 2 decimals, or a count. */
void cli_log_reading(FILE *out, const char *name, kvplan_opt_double v);
void cli_log_count(FILE *out, const char *name, kvplan_opt_int v);

/* The capacity section of the report ("one request" is the cost of one
 * of context_len in each pool). */
void cli_capacity_text(FILE *out, const kvplan_capacity *c, bool per_worker);

/* What the library's documents read of the command: its options, what
 * loading them found, the model. */
kvplan__doc cli_doc(const cli_args *cli, const kvplan_model *model);

/* cmd_plan.c: what each planning command does once its flags are parsed:
 * the GPU resolved, a calibration read, the model and its draft loaded
 * (free both, even on failure), the weights measured from a model
 * directory. */
kvplan_status cli_load(cli_args *cli, kvplan_model **model,
                       kvplan_model **draft, kvplan_error *err);
/* "read: --gpu-memory 76294 MiB = 74.51 GiB" for each size given. */
void cli_sizes_text(FILE *out, const cli_args *cli);
/* The options given that the engine asked does not read, each with its
 * engine's option of the same meaning, on standard error. */
void cli_unused_warnings(const cli_args *cli);
/* The plan's warnings and the flags kvplan does not read, on standard
 * error. */
void cli_warnings(const cli_args *cli, const kvplan_plan *plan);
/* --svg's picture of the plan, when asked for; the exit status. */
int cli_write_svg(const cli_args *cli, const kvplan_model *model,
                  const kvplan_plan *plan);
/* --svg, cli_warnings, then the text or --json report. */
int cli_report(const cli_args *cli, const kvplan_model *model,
               const kvplan_plan *plan);
/* A failed plan's error, as `who` ("kvplan fit"); returns the status. */
int cli_plan_failed(const char *who, kvplan_status st, const kvplan_error *err,
                    bool json);

/* Writes the human report; returns 0 or -1 on a write error. */
int cli_report_text(FILE *out, const cli_args *cli, const kvplan_model *model,
                    const kvplan_plan *plan);

/* The --json document (the library's, kvplan__doc_plan) into `w`, as
 * `key` of its open object (NULL: the document itself). */
void cli_report_json(kvplan__writer *w, const char *key, const cli_args *cli,
                     const kvplan_model *model, const kvplan_plan *plan);

#endif /* KVPLAN_REPORT_H */
