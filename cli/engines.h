/*
 * engines.h: --engine vllm|trtllm and `kvplan compare` (engines.c,
 * cmd_compare.c; docs/engines.md).
 */
#ifndef KVPLAN_CLI_ENGINES_H
#define KVPLAN_CLI_ENGINES_H

#include "flags.h"

#include <stdio.h>

/* The engine options of the parsed flags: the engine's own, and the
 * shared ones (TP, PP, KV dtype, GPU, weights, --context-length as
 * max_model_len). */
void cli_engine_options(const cli_args *cli, kvplan_engine engine,
                        kvplan_engine_options *o);
/* One engine's plan as JSON (NULL out of memory) or text. */
json_t *cli_engine_json(const cli_args *cli, const kvplan_model *model,
                        const kvplan_engine_plan *p);
void cli_engine_text(FILE *out, const cli_args *cli, const kvplan_model *model,
                     const kvplan_engine_plan *p);
/* --engine vllm|trtllm: plans and reports; the exit status. */
int cli_engine_report(const cli_args *cli, const kvplan_model *model);

#endif /* KVPLAN_CLI_ENGINES_H */
