/*
 * readers.c: which engine reads which option. The option table says, for
 * each option, the engines whose plan reads it and each engine's option of
 * the same meaning; from the options given (kvplan_options' record), a
 * plan names every option its engine does not read (a vLLM flag in an
 * sglang plan, sglang's in a vLLM plan) with the one it does, and a
 * question that answers for sglang's pools refuses another engine.
 */
#include "options/options.h"

#include <stdio.h>
#include <string.h>

/* Records that the row was given (a switch set off is not). */
void kvplan__option_mark_given(kvplan_options *o, const kvplan__option_row *row,
                               const char *v)
{
    size_t k = (size_t)(row - kvplan__option_rows);
    bool off = row->store == KVPLAN__STORE_BOOL && v != NULL &&
               strcmp(v, "false") == 0;
    if (row >= kvplan__option_rows && k < kvplan__num_option_rows && !off)
        o->internal_.given[k / 64] |= (uint64_t)1 << (k % 64);
}

bool kvplan__option_given(const kvplan_options *o,
                          const kvplan__option_row *row)
{
    size_t k = (size_t)(row - kvplan__option_rows);
    return row >= kvplan__option_rows && k < kvplan__num_option_rows &&
           (o->internal_.given[k / 64] >> (k % 64) & 1) != 0;
}

static const char *const engine_names[] = {"sglang", "vLLM", "TensorRT-LLM"};
/* "... is not read by <an sglang> plan", by engine */
static const char *const a_plan[] = {"an sglang", "a vLLM", "a TensorRT-LLM"};

kvplan_status kvplan__compare_release_refusal(kvplan_engine engine,
                                              const char *flag, const char *v,
                                              kvplan_error *err)
{
    const char *eflag = flag[0] == '-' ? "--engine" : "engine";
    if (engine == KVPLAN_ENGINE_VLLM)
        return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, flag,
                            "%s '%.40s' is not a vLLM release kvplan has a "
                            "profile for (%s vllm compares vLLM "
                            "versions: 0.10 to 0.31, or latest)",
                            flag, v, eflag);
    return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, flag,
                        "%s '%.40s' is not a TensorRT-LLM release kvplan "
                        "has a profile for (%s trtllm compares "
                        "TensorRT-LLM releases: 1.0 to 1.4 but 1.3.0 "
                        "itself, or latest)",
                        flag, v, eflag);
}

kvplan_status kvplan__options_for_question(const kvplan_options *o,
                                           const char *question, bool flags,
                                           kvplan_error *err)
{
    if (question == NULL)
        question = "plan";
    /* --explain: the terms of a plan's (plan, fit, solve) and a log's */
    bool explained =
        strcmp(question, "sweep") != 0 && strcmp(question, "compare") != 0;
    const char *explain = flags ? "--explain" : "explain";
    if (o->explain && !explained)
        return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, explain,
                            "%s is read by a plan, fit, solve and log; kvplan "
                            "%s has no terms to explain (each row's plan "
                            "does: kvplan --explain with its flags)",
                            explain, question);
    /* --compare-version names a release of the engine asked */
    const char *cv = o->internal_.compare_version_text;
    const char *cflag = flags ? "--compare-version" : "compare_version";
    const char *eflag = flags ? "--engine" : "engine";
    kvplan_engine other =
        o->compare_vllm_set ? KVPLAN_ENGINE_VLLM : KVPLAN_ENGINE_TRTLLM;
    if (cv != NULL && o->engine == KVPLAN_ENGINE_SGLANG &&
        !o->compare_version_set)
        return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, cflag,
                            "%s '%.40s' is a %s release: an sglang plan "
                            "compares sglang versions (or pass %s %s)",
                            cflag, cv, engine_names[other], eflag,
                            kvplan_engine_name(other));
    if (cv != NULL &&
        ((o->engine == KVPLAN_ENGINE_VLLM && !o->compare_vllm_set) ||
         (o->engine == KVPLAN_ENGINE_TRTLLM && !o->compare_trtllm_set)))
        return kvplan__compare_release_refusal(o->engine, cflag, cv, err);
    if (o->engine == KVPLAN_ENGINE_SGLANG || strcmp(question, "plan") == 0 ||
        strcmp(question, "compare") == 0)
        return KVPLAN_OK;
    unsigned e = (unsigned)o->engine < 3 ? (unsigned)o->engine : 0;
    return kvplan__fail(
        err, KVPLAN_INVALID_ARGUMENT, eflag,
        "%s %s: %s answers for sglang's pools only; %s's "
        "plan is a plan's (kvplan --engine %s), and "
        "kvplan compare sets the engines side by side",
        eflag,
        o->internal_.engine_text ? o->internal_.engine_text : engine_names[e],
        question, engine_names[e], kvplan_engine_name((kvplan_engine)e));
}

const kvplan_option *kvplan__options_unused(const kvplan_options *o,
                                            size_t index, char *text,
                                            size_t size)
{
    unsigned engine = (unsigned)o->engine < 3 ? (unsigned)o->engine : 0;
    for (size_t k = 0; k < kvplan__num_option_rows; k++) {
        const kvplan__option_row *row = &kvplan__option_rows[k];
        if (!kvplan__option_given(o, row) ||
            (kvplan__option_readers(row) >> engine & 1) != 0 || index-- > 0)
            continue;
        const kvplan__option_row *peer =
            row->peer[engine] != NULL
                ? kvplan__option_lookup(row->peer[engine],
                                        strlen(row->peer[engine]))
                : NULL;
        unsigned r = kvplan__option_readers(row);
        snprintf(text, size, "%s is not read by %s plan (it is %s%s%s's)%s%s",
                 row->pub.flag, a_plan[engine],
                 r & KVPLAN__READ_SGLANG ? "sglang" : "",
                 (r & KVPLAN__READ_SGLANG) && (r & 6) ? " and " : "",
                 (r & 6) == 6                ? "vLLM's and TensorRT-LLM"
                 : (r & KVPLAN__READ_VLLM)   ? "vLLM"
                 : (r & KVPLAN__READ_TRTLLM) ? "TensorRT-LLM"
                                             : "",
                 peer ? "; the same for " : "",
                 peer ? engine_names[engine] : "");
        if (peer != NULL) {
            size_t n = strlen(text);
            snprintf(text + n, size - n, " is %s", peer->pub.flag);
        }
        return &row->pub;
    }
    /* sglang's own flags that kvplan lists as not read, given to another
     * engine's plan: said there too, not dropped */
    for (size_t k = 0;
         engine != KVPLAN_ENGINE_SGLANG && k < o->internal_.num_not_read; k++) {
        const kvplan_option *x = kvplan_option_at(o->internal_.not_read[k]);
        if (x == NULL || index-- > 0)
            continue;
        snprintf(text, size,
                 "%s is not read by %s plan (it is sglang's, and kvplan "
                 "does not read it for sglang either)",
                 x->flag, a_plan[engine]);
        return x;
    }
    return NULL;
}
