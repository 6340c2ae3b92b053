/*
 * versions.h: --compare-version in the text report (versions.c); the
 * JSON's is the library's (json/doc_versions.c).
 */
#ifndef KVPLAN_CLI_VERSIONS_H
#define KVPLAN_CLI_VERSIONS_H

#include "flags.h"

#include <stdio.h>

/* The plan's version against cli->o.compare_version, each differing rule
 * with what it changes alone, as text; -1 out of memory. */
int cli_compare_text(FILE *out, const cli_args *cli, const kvplan_model *model,
                     const kvplan_plan *plan);

#endif /* KVPLAN_CLI_VERSIONS_H */
