/*
 * scenario.h: configurator scenarios in the golden schema
 * (tests/data/golden/README.md), read from JSON into a kvplan_rank and a
 * list of calls, run through the library, and answered as JSON.
 *
 * This is the engine authors' door into the core from outside C
 * (`kvplan pools`, kvplan_json's pools, Python's kvplan.pools), and the
 * tests' and the benchmark's reader of the golden vectors. Internal: not
 * declared in the installed headers.
 */
#ifndef KVPLAN_SCENARIO_H
#define KVPLAN_SCENARIO_H

#include "kvplan.h"

#include "common/json.h" /* jansson, as the library calls it */

typedef enum kvplan__call_entry {
    KVPLAN__CALL_AVAILABLE_BYTES, /* kvplan_calculate_pool_sizes */
    KVPLAN__CALL_MAX_TOKENS,      /* ..._from_max_tokens */
    KVPLAN__CALL_FINALIZE         /* kvplan_finalize_with_max_running_... */
} kvplan__call_entry;

typedef struct kvplan__call {
    kvplan__call_entry entry;
    int64_t value;     /* bytes, tokens, or max_running_requests */
    int64_t page_size; /* unused by finalize */
} kvplan__call;

/* A parsed scenario. It owns the id lists `rank` points into. */
typedef struct kvplan__scenario {
    kvplan_rank rank;
    kvplan__call *calls;
    size_t num_calls;
    int64_t *lists[8]; /* owned storage behind the rank's kvplan_ids */
    size_t num_lists;
    char *state_dtype; /* owned SGLANG_DSV4_COMPRESS_STATE_DTYPE */
} kvplan__scenario;

/* Reads one scenario object. On failure `err` names the offending field as
 * a JSON pointer and `out` holds nothing to free. */
kvplan_status kvplan__scenario_parse(const json_t *obj, kvplan__scenario *out,
                                     kvplan_error *err);

void kvplan__scenario_free(kvplan__scenario *s);

/* What one call of a replay answered. */
typedef enum kvplan__outcome {
    KVPLAN__ANSWERED, /* `cfg` holds the answer */
    KVPLAN__REFUSED,  /* the call failed: `err` (when messages are wanted) */
    KVPLAN__UNBUILT,  /* the configurator's construction failed */
    KVPLAN__SKIPPED   /* a finalize after a failed call */
} kvplan__outcome;

/*
 * Runs the scenario's calls on one configurator, as the reference oracle
 * does: a finalize follows the last successful call, and is skipped after a
 * failed one. `on_answer(ctx, i, outcome, conf, cfg, err)` receives each
 * call's answer; `err` is NULL unless `messages` (the benchmark times the
 * calls without formatting messages). Inline, so that the benchmark's
 * callback inlines too. Returns the number of calls.
 */
static inline size_t kvplan__scenario_replay(
    const kvplan__scenario *s, bool messages,
    bool (*on_answer)(void *ctx, size_t i, kvplan__outcome outcome,
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
            if (!on_answer(ctx, i, KVPLAN__UNBUILT, NULL, NULL, err))
                return i;
        return s->num_calls;
    }
    bool have_last = false;
    for (size_t i = 0; i < s->num_calls; i++) {
        const kvplan__call *c = &s->calls[i];
        kvplan_status st;
        if (c->entry == KVPLAN__CALL_FINALIZE) {
            if (!have_last) {
                if (!on_answer(ctx, i, KVPLAN__SKIPPED, &conf, NULL, err))
                    return i;
                continue;
            }
            last.max_running_requests = (kvplan_opt_int){c->value, true};
            st = kvplan_finalize_with_max_running_requests(&conf, &last, err);
        } else if (c->entry == KVPLAN__CALL_AVAILABLE_BYTES) {
            st = kvplan_calculate_pool_sizes(&conf, c->value, c->page_size,
                                             &last, err);
        } else {
            st = kvplan_calculate_pool_sizes_from_max_tokens(
                &conf, c->value, c->page_size, &last, err);
        }
        have_last = st == KVPLAN_OK;
        if (!on_answer(ctx, i, have_last ? KVPLAN__ANSWERED : KVPLAN__REFUSED,
                       &conf, have_last ? &last : NULL, err))
            return i;
    }
    return s->num_calls;
}

struct kvplan__writer; /* doc.h */

/* The replay's "results" list (as the reference writes them). */
void kvplan__scenario_results(struct kvplan__writer *w, const char *key,
                              const kvplan__scenario *s);

/* The scenario `obj` (read into `s`) as command pools answers it: its
 * members as given, its "results" the replay's. */
void kvplan__scenario_answer(struct kvplan__writer *w, const json_t *obj,
                             const kvplan__scenario *s);

/* The answer for one pool config, with the coefficients of `conf`, into an
 * open object. */
void kvplan__pool_config_members(struct kvplan__writer *w,
                                 const kvplan_configurator *conf,
                                 const kvplan_pool_config *cfg);

#endif /* KVPLAN_SCENARIO_H */
