/*
 * pools.c: kvplan pools in kvplan_json: configurator scenarios in the
 * golden schema (docs/pools.md), read from the request as they are (a
 * list, or JSON lines), each answered with its "results" as the command
 * writes them.
 */
#include "json/request.h"

#include "json/scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each scenario with its "results": the scenario's members as given,
 * the results the replay's. A scenario refused is an error object in its
 * place ({"error", "exit_status", "field", "line", "message"}), the others
 * answered as the command answers them (it says the refused line on standard
 * error); the status is then the first refusal's. */
#define MAX_REFUSED 100 /* refused scenarios answered one by one */

static kvplan_status answer_list(kvplan__writer *w, const json_t *scenarios)
{
    kvplan__w_array(w, NULL);
    size_t i;
    json_t *s;
    kvplan_status first = KVPLAN_OK;
    char first_msg[480] = "";
    int refused = 0;
    json_array_foreach(scenarios, i, s)
    {
        kvplan__scenario sc;
        kvplan_error err;
        if (kvplan__scenario_parse(s, &sc, &err) != KVPLAN_OK) {
            char msg[sizeof err.message];
            snprintf(msg, sizeof msg, "kvplan pools: line %zu: %.400s", i + 1,
                     err.message);
            kvplan__w_object(w, NULL);
            kvplan__w_str(w, "error", kvplan_status_name(err.code));
            kvplan__w_int(w, "exit_status", 3);
            kvplan__w_str(w, "field", err.field[0] ? err.field : NULL);
            kvplan__w_int(w, "line", (int64_t)i + 1);
            kvplan__w_str(w, "message", msg);
            kvplan__w_end(w);
            if (first == KVPLAN_OK) {
                first = err.code;
                snprintf(first_msg, sizeof first_msg, "%.470s", msg);
            }
            if (++refused > MAX_REFUSED) /* not a list of scenarios at all */
                return kvplan__refuse(w, first, 3, NULL,
                                      "kvplan pools: more than %d scenarios "
                                      "refused; the first, %.400s",
                                      MAX_REFUSED, first_msg);
            continue;
        }
        kvplan__scenario_answer(w, s, &sc);
        kvplan__scenario_free(&sc);
    }
    kvplan__w_end(w);
    return first;
}

kvplan_status kvplan__ask_pools(kvplan__writer *w, const json_t *scenarios)
{
    json_t *parsed = NULL;
    if (json_is_string(scenarios)) { /* JSON lines: one scenario a line */
        parsed = json_array();
        const char *t = json_string_value(scenarios);
        size_t len = json_string_length(scenarios);
        for (size_t at = 0; parsed != NULL && at < len;) {
            const char *nl = memchr(t + at, '\n', len - at);
            size_t end = nl != NULL ? (size_t)(nl - t) : len;
            json_error_t jerr;
            json_t *one =
                end > at ? json_loadb(t + at, end - at, 0, &jerr) : NULL;
            if (end > at && one == NULL) {
                size_t line = json_array_size(parsed) + 1;
                json_decref(parsed);
                return kvplan__refuse(w, KVPLAN_PARSE, 3, "scenarios",
                                      "kvplan pools: line %zu, column %d: %s",
                                      line, jerr.column, jerr.text);
            }
            if (one != NULL && json_array_append_new(parsed, one) != 0)
                w->t.bad = true;
            at = end + 1;
        }
        if (parsed == NULL)
            return kvplan__refuse(w, KVPLAN_NOMEM, 4, NULL, "out of memory");
        scenarios = parsed;
    }
    kvplan_status st = answer_list(w, scenarios);
    json_decref(parsed);
    return st;
}

/* ---- prepared scenarios (kvplan_scenarios) --------------------------------
 */

struct kvplan_scenarios {
    size_t n;
    kvplan__scenario *s;
};

size_t kvplan_scenarios_count(const kvplan_scenarios *s)
{
    return s != NULL ? s->n : 0;
}

void kvplan_scenarios_free(kvplan_scenarios *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->n; i++)
        kvplan__scenario_free(&s->s[i]);
    free(s->s);
    free(s);
}

/* The scenarios of `text`: a JSON list, or JSON lines. */
static json_t *read_list(const char *text, size_t len, kvplan_error *err)
{
    size_t at = 0;
    while (at < len && (text[at] == ' ' || text[at] == '\n' ||
                        text[at] == '\t' || text[at] == '\r'))
        at++;
    json_error_t jerr;
    if (at < len && text[at] == '[') {
        json_t *list = json_loadb(text, len, 0, &jerr);
        if (list == NULL)
            kvplan__fail(err, KVPLAN_PARSE, "scenarios",
                         "scenarios: line %d, column %d: %s", jerr.line,
                         jerr.column, jerr.text);
        return list;
    }
    json_t *list = json_array();
    size_t line = 0;
    while (list != NULL && at < len) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t end = nl != NULL ? (size_t)(nl - text) : len;
        line++;
        if (end > at) {
            json_t *one = json_loadb(text + at, end - at, 0, &jerr);
            if (one == NULL) {
                json_decref(list);
                kvplan__fail(err, KVPLAN_PARSE, "scenarios",
                             "scenarios: line %zu, column %d: %s", line,
                             jerr.column, jerr.text);
                return NULL;
            }
            json_array_append_new(list, one);
        }
        at = end + 1;
    }
    return list;
}

kvplan_status kvplan_scenarios_load(const char *text, size_t len,
                                    kvplan_scenarios **out, kvplan_error *err)
{
    KVPLAN__FAIL_IF(text == NULL || out == NULL, err, KVPLAN_INVALID_ARGUMENT,
                    NULL,
                    "kvplan_scenarios_load needs text and a result; got "
                    "NULL");
    *out = NULL;
    json_t *list = read_list(text, len, err);
    if (list == NULL)
        return err != NULL && err->code != KVPLAN_OK ? err->code : KVPLAN_NOMEM;
    KVPLAN__FAIL_IF(!json_is_array(list), err, KVPLAN_PARSE, "scenarios",
                    "scenarios: expected a list of scenario objects or their "
                    "JSON lines");
    kvplan_scenarios *s = calloc(1, sizeof *s);
    size_t n = json_array_size(list);
    if (s != NULL)
        s->s = calloc(n > 0 ? n : 1, sizeof *s->s);
    if (s == NULL || s->s == NULL) {
        json_decref(list);
        free(s);
        return kvplan__fail(err, KVPLAN_NOMEM, NULL, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        kvplan_error e;
        if (kvplan__scenario_parse(json_array_get(list, i), &s->s[i], &e) !=
            KVPLAN_OK) {
            json_decref(list);
            kvplan_scenarios_free(s);
            char field[160];
            snprintf(field, sizeof field, "/scenarios/%zu%.120s", i, e.field);
            return kvplan__fail(err, e.code, field, "scenario %zu: %s", i,
                                e.message);
        }
        s->n++;
    }
    json_decref(list);
    *out = s;
    return kvplan__ok(err);
}

kvplan_status kvplan_scenarios_run_as(const kvplan_scenarios *s,
                                      kvplan_encoding encoding, char **response,
                                      size_t *response_len)
{
    if (s == NULL || response == NULL ||
        (encoding != KVPLAN_ENCODING_JSON &&
         encoding != KVPLAN_ENCODING_PICKLE))
        return KVPLAN_INVALID_ARGUMENT;
    kvplan__writer w = {.pickle = encoding == KVPLAN_ENCODING_PICKLE};
    kvplan__w_array(&w, NULL);
    for (size_t i = 0; i < s->n && !w.t.bad; i++)
        kvplan__scenario_results(&w, NULL, &s->s[i]);
    kvplan__w_end(&w);
    *response = kvplan__w_take(&w, response_len);
    return *response != NULL ? KVPLAN_OK : KVPLAN_NOMEM;
}

kvplan_status kvplan_scenarios_run(const kvplan_scenarios *s, char **response,
                                   size_t *response_len)
{
    return kvplan_scenarios_run_as(s, KVPLAN_ENCODING_JSON, response,
                                   response_len);
}
