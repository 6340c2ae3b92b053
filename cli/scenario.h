/*
 * scenario.h: configurator scenarios in the golden schema
 * (tests/data/golden/README.md), read from JSON into a kvplan_rank and a
 * list of calls, run through the library, and answered as JSON.
 *
 * This is the engine authors' door into the core from outside C
 * (`kvplan pools`), and the tests' and the benchmark's reader of the golden
 * vectors. Not part of the installed library.
 */
#ifndef KVPLAN_SCENARIO_H
#define KVPLAN_SCENARIO_H

#include "kvplan.h"

#include <jansson.h>

typedef enum cli_call_entry {
    CLI_CALL_AVAILABLE_BYTES, /* kvplan_calculate_pool_sizes */
    CLI_CALL_MAX_TOKENS,      /* ..._from_max_tokens */
    CLI_CALL_FINALIZE         /* kvplan_finalize_with_max_running_... */
} cli_call_entry;

typedef struct cli_call {
    cli_call_entry entry;
    int64_t value;     /* bytes, tokens, or max_running_requests */
    int64_t page_size; /* unused by finalize */
} cli_call;

/* A parsed scenario. It owns the id lists `rank` points into. */
typedef struct cli_scenario {
    kvplan_rank rank;
    cli_call *calls;
    size_t num_calls;
    int64_t *lists[8]; /* owned storage behind the rank's kvplan_ids */
    size_t num_lists;
    char *state_dtype; /* owned SGLANG_DSV4_COMPRESS_STATE_DTYPE */
} cli_scenario;

/* Reads one scenario object. On failure `err` names the offending field as
 * a JSON pointer and `out` holds nothing to free. */
kvplan_status cli_scenario_parse(const json_t *obj, cli_scenario *out,
                                     kvplan_error *err);

void cli_scenario_free(cli_scenario *s);

/* Runs the scenario's calls on one configurator, as the reference oracle
 * does, and returns the "results" array (new reference), or NULL when out
 * of memory. */
json_t *cli_scenario_run(const cli_scenario *s);

/* The answer for one pool config, with the coefficients of `conf`. */
json_t *cli_pool_config_json(const kvplan_configurator *conf,
                                 const kvplan_pool_config *cfg);

/*
 * Compares one scenario's results with the expected ones, field by field:
 * the configurator, every pool size and coefficient, or the error kind (and
 * whether it came from construction). Messages are not compared: kvplan's
 * say more than the reference's. Returns the number of calls that differ
 * and, for the first, writes a description to `why`.
 */
size_t cli_results_compare(const json_t *expected, const json_t *actual,
                               char *why, size_t why_size);

#endif /* KVPLAN_SCENARIO_H */
