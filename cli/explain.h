/*
 * explain.h: the lines of --explain and of the notes, shared by the text
 * and the JSON report.
 */
#ifndef KVPLAN_EXPLAIN_H
#define KVPLAN_EXPLAIN_H

#include "flags.h"

typedef struct cli_lines {
    char text[48][320];
    size_t n;
    size_t dropped; /* lines past the 48: counted, and said */
} cli_lines;

void cli_add(cli_lines *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Python's repr() of x into buf (40 bytes); returns buf. */
const char *cli_repr(double x, char *buf);

/* The configurator's coefficient as sglang's log or the golden file
 * writes it, into buf (40 bytes). */
void cli_coefficient_text(const kvplan_configurator *c, char *buf);

/* The KV dtype as sglang names it on this GPU (float8_e4m3fnuz on
 * gfx94x). */
const char *cli_kv_dtype_name(const cli_args *cli, kvplan_dtype dtype);

/* The terms of the bytes per token of stage `sp`. */
void cli_explain_cell(cli_lines *l, const kvplan_model *model,
                      const kvplan_stage_plan *sp);

/* The terms of the budget. */
void cli_explain_budget(cli_lines *l, const cli_args *cli,
                        const kvplan_plan *p);

/* Where kvplan's figures are estimates, and where sglang allocates more
 * than its configurator prices. */
/* Where context_len, the KV dtype and max_running_requests come from. */
void cli_explain_serving(cli_lines *l, const cli_args *cli,
                         const kvplan_model *model, const kvplan_plan *p);

void cli_notes(cli_lines *l, const kvplan_plan *p);
/* Where --model-path org/name was read: the Hub, its cache, or the
 * catalog and why (cli/hub.c). */
void cli_hub_notes(cli_lines *l, const cli_args *cli);

#endif /* KVPLAN_EXPLAIN_H */
