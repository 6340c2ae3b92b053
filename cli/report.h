/*
 * report.h: a plan, written for a person (text, with --explain) or for a
 * script (--json, schema docs/plan.schema.json).
 */
#ifndef KVPLAN_REPORT_H
#define KVPLAN_REPORT_H

#include "flags.h"

#include "common/json.h" /* jansson, as the library calls it */
#include <stdio.h>

#define CLI_PLAN_SCHEMA_VERSION 3

/* Bytes per GiB: sglang prints GiB and calls them GB. */
#define GIB 1073741824.0

/* The capacity section of the report ("one request" is the cost of one
 * of context_len in each pool), and the name of what binds a figure: a
 * pool's ("full", "swa") or the limit's ("max_running_requests"). */
void cli_capacity_text(FILE *out, const kvplan_capacity *c, bool per_worker);
const char *cli_binding_name(const kvplan_capacity *c, kvplan_limit limit,
                             size_t pool);

/* cmd_plan.c: what each planning command does once its flags are parsed:
 * the GPU resolved, a calibration read, the model and its draft loaded
 * (free both, even on failure), the weights measured from a model
 * directory. */
kvplan_status cli_load(cli_args *cli, kvplan_model **model,
                       kvplan_model **draft, kvplan_error *err);
/* The plan's warnings and the flags kvplan does not read, on standard
 * error. */
void cli_warnings(const cli_args *cli, const kvplan_plan *plan);
/* --gpu auto probed fewer GPUs than the plan's tp x pp: true, with the
 * warning's text. */
bool cli_probe_short(const cli_args *cli, const kvplan_plan *plan,
                     char *text, size_t size);
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

/* The --json document (new reference), or NULL when out of memory. */
json_t *cli_report_json(const cli_args *cli, const kvplan_model *model,
                        const kvplan_plan *plan);

/* The plan's "capacity" object (docs/capacity.md), or NULL when out of
 * memory. */
json_t *cli_capacity_json(const kvplan_capacity *c);

#endif /* KVPLAN_REPORT_H */
