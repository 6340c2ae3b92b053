/*
 * versions.h: the sglang version a plan follows, in the report, and
 * --compare-version's per-rule comparison (versions.c).
 */
#ifndef KVPLAN_CLI_VERSIONS_H
#define KVPLAN_CLI_VERSIONS_H

#include "flags.h"

#include <stdio.h>

/* {"profile", "exact", "rules": [names]} of the plan; NULL out of memory. */
json_t *cli_version_json(const kvplan_plan *plan);

/* --compare-version: the plan's version against cli->o.compare_version,
 * each differing rule with what it changes alone. JSON (NULL out of
 * memory) or text (-1 out of memory). */
json_t *cli_compare_json(const cli_args *cli, const kvplan_model *model,
                         const kvplan_plan *plan);
int cli_compare_text(FILE *out, const cli_args *cli, const kvplan_model *model,
                     const kvplan_plan *plan);

#endif /* KVPLAN_CLI_VERSIONS_H */
