/*
 * kvplan_json.h: kvplan's JSON entry point, for bindings (Python, the web
 * calculator) and services: one request document in, one answer document
 * out, the same documents `kvplan ... --json` prints (docs/json-api.md).
 * It is part of libkvplan, above the C library of kvplan.h: it reads the
 * request into options by name (kvplan_options_set), asks the library and
 * writes the answer with the same writers as the command. It never writes
 * a file and never prints.
 */
#ifndef KVPLAN_JSON_API_H
#define KVPLAN_JSON_API_H

#include "kvplan.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Answers one request:
 *
 *   {"command": "plan",            plan (the default), fit, solve, sweep,
 *                                  compare, log, pools, models, gpus, flags,
 *                                  version
 *    "model": "llama-3.1-8b-instruct",  a catalog name, Hub id or path
 *    "config": {...},              or config.json itself (object or text)
 *    "flags": {"tp_size": 2, "gpu": "H100-80GB", "context_length": 32768},
 *    "log": "...",                 command log: the log's text
 *    "calibrate": true,            command log: add "calibration", what
 *                                  kvplan log --calibrate would write
 *    "scenarios": [...],           command pools: the golden schema's
 *    "svg": true,                  plan, fit, solve: add "svg", the picture
 *    "env": {"SGLANG_...": "..."}} variables for this call (null: unset)
 *
 * Flags are options by name (kvplan_option_find: sglang's ServerArgs
 * names, or "--tp-size"): a string is the option's text, a number its
 * number, true and false a switch's (refused for any other option), an
 * object its JSON text, null leaves it out; for command sweep, a list is
 * the values of an option the sweep varies. An option refused names the
 * request's key in the error's "field".
 *
 * The answer is the document; an error is {"error", "field", "message",
 * "exit_status"} (the command's exit status: 1 does not fit, 2 usage, 3
 * bad input, 4 internal). Returns the library's status: KVPLAN_OK; the
 * error's code; KVPLAN_NOT_ENOUGH_MEMORY also where the answer is a whole
 * document that says so (fit with no request of the length, solve that
 * reaches nothing, a sweep where no row fits). *response is NUL-terminated
 * JSON of *response_len bytes (response_len may be NULL), freed with
 * kvplan_json_free; NULL only when memory runs out (KVPLAN_NOMEM).
 * Variables not in "env" are the process's. Thread-safe: calls keep
 * nothing.
 */
KVPLAN_API kvplan_status kvplan_json(const char *request, size_t len,
                                     char **response, size_t *response_len);

/* Frees an answer; NULL is ignored. */
KVPLAN_API void kvplan_json_free(char *response);

/*
 * How an answer is written: JSON text (kvplan_json's), or the same
 * document as Python's pickle, protocol 2, for the Python binding, which
 * unpickles it (pickle.loads) rather than parsing JSON: dicts, lists,
 * str, int, float, bool and None only, no memo and nothing that runs
 * code; each float the double the JSON text reads back, each text valid
 * UTF-8 as the JSON's. *response_len then counts its bytes (it may hold
 * NUL).
 */
typedef enum kvplan_encoding {
    KVPLAN_ENCODING_JSON = 0,
    KVPLAN_ENCODING_PICKLE = 1
} kvplan_encoding;

/*
 * A session: kvplan_json with the models it loaded kept for the calls that
 * ask for them again (a binding planning the same model many times pays
 * its load once). Only what cannot change between calls is kept: catalog
 * names and config.json's text given inline, with their override and
 * draft; a path or a Hub id is loaded on every call. A session belongs to
 * one thread at a time (a binding keeps one per thread); its answers are
 * kvplan_json's, byte for byte. NULL out of memory.
 */
typedef struct kvplan_json_session kvplan_json_session;

KVPLAN_API kvplan_json_session *kvplan_json_session_new(void);
KVPLAN_API kvplan_status kvplan_json_session_call(kvplan_json_session *session,
                                                  const char *request,
                                                  size_t len, char **response,
                                                  size_t *response_len);
/* kvplan_json_session_call, the answer written in `encoding`
 * (KVPLAN_INVALID_ARGUMENT, and no answer, for one not listed). */
KVPLAN_API kvplan_status kvplan_json_session_call_as(
    kvplan_json_session *session, kvplan_encoding encoding, const char *request,
    size_t len, char **response, size_t *response_len);
/* Frees the session and its models; NULL is ignored. */
KVPLAN_API void kvplan_json_session_free(kvplan_json_session *session);

/*
 * Prepared scenarios (command pools): configurator scenarios in the golden
 * schema (docs/pools.md), a JSON list of objects or their JSON lines, read
 * once. kvplan_scenarios_run then builds each configurator and makes its
 * calls, as the reference oracle does, and answers with a JSON list of
 * each scenario's "results" (what command pools writes), written without
 * reading the scenarios again: for a binding that answers the same ranks
 * many times. KVPLAN_PARSE naming the scenario and its field for one it
 * cannot read ("/scenarios/3/runner/page_size").
 */
typedef struct kvplan_scenarios kvplan_scenarios;

KVPLAN_API kvplan_status kvplan_scenarios_load(const char *text, size_t len,
                                               kvplan_scenarios **out,
                                               kvplan_error *err);
/* The number of scenarios read. */
KVPLAN_API size_t kvplan_scenarios_count(const kvplan_scenarios *s);
KVPLAN_API kvplan_status kvplan_scenarios_run(const kvplan_scenarios *s,
                                              char **response,
                                              size_t *response_len);
/* kvplan_scenarios_run, the answer written in `encoding`. */
KVPLAN_API kvplan_status kvplan_scenarios_run_as(const kvplan_scenarios *s,
                                                 kvplan_encoding encoding,
                                                 char **response,
                                                 size_t *response_len);
KVPLAN_API void kvplan_scenarios_free(kvplan_scenarios *s);

#ifdef __cplusplus
}
#endif

#endif /* KVPLAN_JSON_API_H */
