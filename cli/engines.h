/*
 * engines.h: --engine vllm|trtllm's text report and command (engines.c;
 * docs/engines.md).
 */
#ifndef KVPLAN_CLI_ENGINES_H
#define KVPLAN_CLI_ENGINES_H

#include "flags.h"

#include <stdio.h>

/* One engine's plan as text (its JSON: kvplan__doc_engine). */
void cli_engine_text(FILE *out, const cli_args *cli, const kvplan_model *model,
                     const kvplan_engine_plan *p);
/* --engine vllm|trtllm: plans and reports; the exit status. */
int cli_engine_report(const cli_args *cli, const kvplan_model *model);

#endif /* KVPLAN_CLI_ENGINES_H */
