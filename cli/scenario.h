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

#include "common/json.h" /* jansson, as the library calls it */

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

/* What one call of a replay answered. */
typedef enum cli_outcome {
    CLI_ANSWERED, /* `cfg` holds the answer */
    CLI_REFUSED,  /* the call failed: `err` (when messages are wanted) */
    CLI_UNBUILT,  /* the configurator's construction failed */
    CLI_SKIPPED   /* a finalize after a failed call */
} cli_outcome;

/*
 * Runs the scenario's calls on one configurator, as the reference oracle
 * does: a finalize follows the last successful call, and is skipped after a
 * failed one. `on_answer(ctx, i, outcome, conf, cfg, err)` receives each
 * call's answer; `err` is NULL unless `messages` (the benchmark times the
 * calls without formatting messages). Inline, so that the benchmark's
 * callback inlines too. Returns the number of calls.
 */
static inline size_t cli_scenario_replay(
    const cli_scenario *s, bool messages,
    bool (*on_answer)(void *ctx, size_t i, cli_outcome outcome,
                      const kvplan_configurator *conf,
                      const kvplan_pool_config *cfg, const kvplan_error *err),
    void *ctx)
{
    kvplan_configurator conf;
    kvplan_error err_buf;
    kvplan_error *err = messages ? &err_buf : NULL;
    kvplan_pool_config last;
    if (kvplan_configurator_init(&conf, &s->rank, err) != KVPLAN_OK) {
        for (size_t i = 0; i < s->num_calls; i++)
            if (!on_answer(ctx, i, CLI_UNBUILT, NULL, NULL, err))
                return i;
        return s->num_calls;
    }
    bool have_last = false;
    for (size_t i = 0; i < s->num_calls; i++) {
        const cli_call *c = &s->calls[i];
        kvplan_status st;
        if (c->entry == CLI_CALL_FINALIZE) {
            if (!have_last) {
                if (!on_answer(ctx, i, CLI_SKIPPED, &conf, NULL, err))
                    return i;
                continue;
            }
            last.max_running_requests = (kvplan_opt_int){c->value, true};
            st = kvplan_finalize_with_max_running_requests(&conf, &last, err);
        } else if (c->entry == CLI_CALL_AVAILABLE_BYTES) {
            st = kvplan_calculate_pool_sizes(&conf, c->value, c->page_size,
                                             &last, err);
        } else {
            st = kvplan_calculate_pool_sizes_from_max_tokens(
                &conf, c->value, c->page_size, &last, err);
        }
        have_last = st == KVPLAN_OK;
        if (!on_answer(ctx, i, have_last ? CLI_ANSWERED : CLI_REFUSED, &conf,
                       have_last ? &last : NULL, err))
            return i;
    }
    return s->num_calls;
}

/* The replay as the "results" array (new reference), or NULL when out of
 * memory. */
json_t *cli_scenario_run(const cli_scenario *s);

/* The answer for one pool config, with the coefficients of `conf`. */
json_t *cli_pool_config_json(const kvplan_configurator *conf,
                             const kvplan_pool_config *cfg);

#endif /* KVPLAN_SCENARIO_H */
