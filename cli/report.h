/*
 * report.h: a plan, written for a person (text, with --explain) or for a
 * script (--json, schema docs/plan.schema.json).
 */
#ifndef KVPLAN_REPORT_H
#define KVPLAN_REPORT_H

#include "flags.h"

#include <jansson.h>
#include <stdio.h>

#define CLI_PLAN_SCHEMA_VERSION 3

/* Bytes per GiB: sglang prints GiB and calls them GB. */
#define GIB 1073741824.0

/* Writes the human report; returns 0 or -1 on a write error. */
int cli_report_text(FILE *out, const cli_args *cli, const kvplan_model *model,
                    const kvplan_plan *plan);

/* The --json document (new reference), or NULL when out of memory. */
json_t *cli_report_json(const cli_args *cli, const kvplan_model *model,
                        const kvplan_plan *plan);

#endif /* KVPLAN_REPORT_H */
