/*
 * engines.h: --engine vllm|trtllm and `kvplan compare` (engines.c,
 * cmd_compare.c; docs/engines.md).
 */
#ifndef KVPLAN_CLI_ENGINES_H
#define KVPLAN_CLI_ENGINES_H

#include "flags.h"

#include <stdio.h>

/* One engine's plan as JSON (NULL out of memory) or text. */
json_t *cli_engine_json(const cli_args *cli, const kvplan_model *model,
                        const kvplan_engine_plan *p);
void cli_engine_text(FILE *out, const cli_args *cli, const kvplan_model *model,
                     const kvplan_engine_plan *p);
/* --engine vllm|trtllm: plans and reports; the exit status. */
int cli_engine_report(const cli_args *cli, const kvplan_model *model);

#endif /* KVPLAN_CLI_ENGINES_H */
