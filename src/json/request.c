/*
 * request.c: kvplan_json (kvplan_json.h, docs/json-api.md): a request
 * document read into options by name (kvplan_options_set: the same table,
 * checks and words as the command's flags), the question asked of the
 * library, and the answer written by the command's own document writers,
 * so that it is byte for byte what `kvplan ... --json` prints. No argv, no
 * command run in memory, no file written: a picture or a calibration comes
 * back inside the answer.
 *
 *   {"command": "plan", "model": "llama-3.1-8b-instruct",
 *    "flags": {"tp_size": 2, "gpu": "H100-80GB"}}
 */
#include "json/request.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

kvplan_status kvplan__refuse(kvplan__writer *w, kvplan_status code,
                             int exit_status, const char *field,
                             const char *fmt, ...)
{
    kvplan_error err;
    memset(&err, 0, sizeof err);
    err.code = code;
    snprintf(err.field, sizeof err.field, "%s", field ? field : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err.message, sizeof err.message, fmt, ap);
    va_end(ap);
    kvplan__w_error(w, &err, exit_status);
    return code;
}

/* The command's exit status for a library status. */
static int exit_for(kvplan_status st)
{
    return st == KVPLAN_OK                  ? 0
           : st == KVPLAN_NOT_ENOUGH_MEMORY ? 1
           : st == KVPLAN_NOMEM             ? 4
                                            : 3;
}

/* `text` with each option's flag ("--mem-fraction-static") spelled as a
 * request and Python key it ("mem_fraction_static"), so that a refusal
 * names it in the caller's terms; a command line quoted as one ("kvplan
 * --engine vllm") is left as it is. */
static void request_terms(char *text, size_t size)
{
    char out[sizeof((kvplan_error){0}).message];
    size_t n = 0;
    bool quoted = false; /* inside "kvplan ..." up to its end */
    for (const char *p = text; *p != '\0' && n + 1 < sizeof out;) {
        if (strncmp(p, "kvplan ", 7) == 0)
            quoted = true;
        else if (*p == ')' || *p == ';' || *p == ',')
            quoted = false;
        const kvplan_option *o = NULL;
        size_t len = 0;
        if (!quoted && p[0] == '-' && p[1] == '-' &&
            (p == text || p[-1] == ' ' || p[-1] == '(')) {
            while ((p[2 + len] >= 'a' && p[2 + len] <= 'z') ||
                   (p[2 + len] >= '0' && p[2 + len] <= '9') ||
                   p[2 + len] == '-')
                len++;
            while (len > 0 && p[1 + len] == '-')
                len--;
            o = len > 0 ? kvplan_option_find_n(p, len + 2) : NULL;
        }
        if (o != NULL && o->type != KVPLAN_OPTION_NOT_READ) {
            size_t k = strlen(o->name);
            if (n + k + 1 >= sizeof out)
                break;
            memcpy(out + n, o->name, k);
            n += k;
            p += len + 2;
        } else {
            out[n++] = *p++;
        }
    }
    out[n] = '\0';
    snprintf(text, size, "%s", out);
}

void kvplan__request_terms(kvplan_error *err)
{
    request_terms(err->field, sizeof err->field);
    request_terms(err->message, sizeof err->message);
}

kvplan_status kvplan__failed(kvplan__writer *w, const kvplan_error *err,
                             bool usage)
{
    kvplan_error said = *err;
    kvplan__request_terms(&said);
    err = &said;
    int rc = usage && (err->code == KVPLAN_INVALID_ARGUMENT ||
                       err->code == KVPLAN_PARSE)
                 ? 2
                 : exit_for(err->code);
    kvplan__w_error(w, err, rc);
    return err->code;
}

/* ---- the request ------------------------------------------------------------
 */

static const char *const commands[] = {"plan",    "fit",   "solve",  "sweep",
                                       "compare", "log",   "pools",  "models",
                                       "gpus",    "flags", "version"};
static const char *const members[] = {"command", "model", "config",
                                      "flags",   "log",   "scenarios",
                                      "svg",     "env",   "calibrate"};

static bool one_of(const char *s, const char *const *list, size_t n)
{
    for (size_t i = 0; s != NULL && i < n; i++)
        if (strcmp(s, list[i]) == 0)
            return true;
    return false;
}

/* The members' types, each refusal naming its member. */
static kvplan_status check_members(const request *rq, kvplan__writer *w)
{
    bool is_log = strcmp(rq->command, "log") == 0;
    bool is_pools = strcmp(rq->command, "pools") == 0;
    bool pictured = one_of(rq->command, commands, 3); /* plan, fit, solve */
    if (rq->model != NULL && !json_is_string(rq->model))
        return kvplan__refuse(
            w, KVPLAN_INVALID_ARGUMENT, 2, "model",
            "model must be a string: a catalog name, a Hugging Face "
            "id or a path");
    if (rq->config != NULL && !json_is_object(rq->config) &&
        !json_is_string(rq->config))
        return kvplan__refuse(
            w, KVPLAN_INVALID_ARGUMENT, 2, "config",
            "config must be config.json: an object, or its text");
    if (rq->flags != NULL && !json_is_object(rq->flags))
        return kvplan__refuse(
            w, KVPLAN_INVALID_ARGUMENT, 2, "flags",
            "flags must be an object of options by their names: "
            "{\"tp_size\": 2}");
    if (rq->svg != NULL && !json_is_boolean(rq->svg))
        return kvplan__refuse(w, KVPLAN_INVALID_ARGUMENT, 2, "svg",
                              "svg must be true or false");
    if (json_is_true(rq->svg) && !pictured)
        return kvplan__refuse(
            w, KVPLAN_INVALID_ARGUMENT, 2, "svg",
            "svg is the picture of a plan: commands plan, fit and "
            "solve");
    if (is_log != (rq->log != NULL) ||
        (rq->log != NULL && !json_is_string(rq->log)))
        return kvplan__refuse(w, KVPLAN_INVALID_ARGUMENT, 2, "log",
                              is_log ? "command log needs log: the log's text"
                                     : "log is read by command log only");
    if (rq->calibrate != NULL && (!is_log || !json_is_boolean(rq->calibrate)))
        return kvplan__refuse(w, KVPLAN_INVALID_ARGUMENT, 2, "calibrate",
                              "calibrate is true or false, for command log");
    if (is_pools != (rq->scenarios != NULL) ||
        (rq->scenarios != NULL && !json_is_array(rq->scenarios) &&
         !json_is_string(rq->scenarios)))
        return kvplan__refuse(w, KVPLAN_INVALID_ARGUMENT, 2, "scenarios",
                              is_pools
                                  ? "command pools needs scenarios: a list of "
                                    "scenario objects, or their JSON lines"
                                  : "scenarios are read by command pools only");
    return KVPLAN_OK;
}

/* Reads the request's members; a refusal written into `w`. */
static kvplan_status read_request(json_t *req, request *rq, kvplan__writer *w)
{
    memset(rq, 0, sizeof *rq);
    if (!json_is_object(req)) {
        return kvplan__refuse(
            w, KVPLAN_PARSE, 2, NULL,
            "the request must be a JSON object: {\"command\": "
            "\"plan\", \"model\": ..., \"flags\": {...}}");
    }
    const char *key;
    json_t *v;
    json_object_foreach(req, key, v)
    {
        if (!one_of(key, members, sizeof members / sizeof *members)) {
            return kvplan__refuse(
                w, KVPLAN_INVALID_ARGUMENT, 2, key,
                "unknown member '%.100s' of the request; expected "
                "command, model, config, flags, log, calibrate, "
                "scenarios, svg, env",
                key);
        }
    }
    json_t *c = json_object_get(req, "command");
    rq->command = c == NULL ? "plan" : json_string_value(c);
    if (!one_of(rq->command, commands, sizeof commands / sizeof *commands)) {
        return kvplan__refuse(
            w, KVPLAN_INVALID_ARGUMENT, 2, "command",
            "command must be one of plan, fit, solve, sweep, compare, "
            "log, pools, models, gpus, flags, version");
    }
    rq->model = json_object_get(req, "model");
    rq->config = json_object_get(req, "config");
    rq->flags = json_object_get(req, "flags");
    rq->log = json_object_get(req, "log");
    rq->scenarios = json_object_get(req, "scenarios");
    rq->svg = json_object_get(req, "svg");
    rq->calibrate = json_object_get(req, "calibrate");
    json_t *env = json_object_get(req, "env");
    if (env != NULL && !json_is_object(env)) {
        return kvplan__refuse(w, KVPLAN_INVALID_ARGUMENT, 2, "env",
                              "env must be an object of variables: "
                              "{\"SGLANG_MAMBA_SSM_DTYPE\": \"float16\"}");
    }
    size_t ne = 0;
    json_object_foreach(env, key, v)
    {
        if ((!json_is_string(v) && !json_is_null(v)) || ne / 2 >= MAX_ENV) {
            return kvplan__refuse(
                w, KVPLAN_INVALID_ARGUMENT, 2, key,
                "env.%.100s: a variable is a string, or null to unset "
                "it (at most %d)",
                key, MAX_ENV);
        }
        if (!kvplan__env_is_read(key)) { /* a typo, or one kvplan ignores */
            const char *near = kvplan__env_nearest(key);
            return kvplan__refuse(
                w, KVPLAN_INVALID_ARGUMENT, 2, key,
                "env.%.100s: kvplan reads no such variable%s%s%s "
                "(docs/options.md lists those it reads)",
                key, near ? "; did you mean " : "", near ? near : "",
                near ? "?" : "");
        }
        if (kvplan__env_is_process_only(key)) {
            return kvplan__refuse(
                w, KVPLAN_INVALID_ARGUMENT, 2, key,
                "env.%.100s: a request may set only the variables that "
                "change a plan (SGLANG_*, VLLM_ALLOW_LONG_MAX_MODEL_LEN, "
                "HF_HUB_OFFLINE, KVPLAN_HUB_TIMEOUT, KVPLAN_HUB_DEADLINE); "
                "where the Hub is, its token and its cache come from the "
                "process's environment (docs/json-api.md, \"What a request "
                "may do\")",
                key);
        }
        rq->env[ne++] = key;
        rq->env[ne++] = json_string_value(v); /* NULL for null */
    }
    rq->env[ne] = NULL;
    return check_members(rq, w);
}

/* ---- the options ------------------------------------------------------------
 */

static void hold(held *h, const char *text, bool owned)
{
    if (h->n < MAX_HELD) {
        h->argv[h->n++] = text;
        if (owned && h->nowned < MAX_HELD)
            h->owned[h->nowned++] = (char *)text;
    } else if (owned) {
        free((char *)text);
    }
}

/* A scalar's text for a list (a number as the command line spells it);
 * NULL (owned: free it) out of memory or for a value not a scalar. */
static char *scalar_text(const json_t *v)
{
    char buf[64];
    if (json_is_string(v))
        return strdup(json_string_value(v));
    if (json_is_integer(v))
        snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        kvplan_format_double(json_real_value(v), buf, sizeof buf);
    else
        return NULL;
    return strdup(buf);
}

/* One flag of the request into the options (and its text into `h`). */
static kvplan_status set_flag(kvplan_options *o, const char *key, json_t *v,
                              held *h, kvplan_error *err)
{
    const kvplan_option *opt = kvplan_option_find(key);
    if (opt != NULL)
        hold(h, opt->flag, false);
    if (json_is_boolean(v)) {
        kvplan_status st =
            kvplan_options_set_switch(o, key, json_is_true(v), err);
        if (st == KVPLAN_OK && json_is_false(v) && h->n > 0)
            h->n--; /* a switch off: not on the command line */
        return st;
    }
    char *text = NULL;
    kvplan_status st;
    if (json_is_integer(v)) {
        st = kvplan_options_set_integer(o, key, json_integer_value(v), err);
        text = scalar_text(v);
    } else if (json_is_real(v)) {
        st = kvplan_options_set_number(o, key, json_real_value(v), err);
        text = scalar_text(v);
    } else {
        /* a string as it is; an object as its JSON text (kept: the options
         * borrow it) */
        text = json_is_string(v) ? strdup(json_string_value(v))
                                 : kvplan__dump(v, NULL);
        if (text == NULL)
            return kvplan__fail(err, KVPLAN_NOMEM, key, "out of memory");
        st = kvplan_options_set(o, key, text, err);
    }
    if (text != NULL)
        hold(h, text, true);
    return st;
}

/* The request's flags into the options: `question` names the command
 * whose own options it takes; a sweep's lists into `axes`. */
static kvplan_status set_flags(const request *rq, kvplan_options *o, held *h,
                               axis *axes, size_t *naxes, kvplan__writer *w)
{
    const char *key;
    json_t *v;
    kvplan_error err;
    bool sweep = strcmp(rq->command, "sweep") == 0;
    json_object_foreach(rq->flags, key, v)
    {
        if (json_is_null(v))
            continue;
        const kvplan_option *opt = kvplan_option_find(key);
        if (opt != NULL && opt->scope == KVPLAN_SCOPE_QUESTION &&
            strcmp(opt->question, rq->command) != 0) {
            return kvplan__refuse(w, KVPLAN_INVALID_ARGUMENT, 2, key,
                                  "%s is read by command %s only", key,
                                  opt->question);
        }
        if (sweep && opt != NULL && opt->sweep) {
            if (*naxes == KVPLAN_MAX_SWEEP_AXES)
                continue;
            axis *x = &axes[(*naxes)++];
            x->key = key;
            size_t n = json_is_array(v) ? json_array_size(v) : 1;
            for (size_t i = 0; i < n && x->n < KVPLAN_MAX_SWEEP_VALUES; i++) {
                json_t *e = json_is_array(v) ? json_array_get(v, i) : v;
                char *t = scalar_text(e);
                if (t == NULL) {
                    return kvplan__refuse(
                        w, KVPLAN_INVALID_ARGUMENT, 2, key,
                        "flags.%.100s: a list holds numbers or words "
                        "only",
                        key);
                }
                x->owned[x->n] = t;
                x->values[x->n++] = t;
            }
            continue;
        }
        if (json_is_array(v)) {
            return kvplan__refuse(
                w, KVPLAN_INVALID_ARGUMENT, 2, key,
                "flags.%.100s: a list is a sweep's, for an option it "
                "varies (kvplan_option.sweep)",
                key);
        }
        /* one option named twice ("tp_size" and "--tp-size"), or the
         * model named by both the member and a flag: which one is meant
         * is not known, so neither is taken */
        const kvplan__option_row *row =
            opt != NULL ? kvplan__row_of(opt) : NULL;
        if (row != NULL && kvplan__option_given(o, row)) {
            return kvplan__refuse(w, KVPLAN_INVALID_ARGUMENT, 2, key,
                                  "flags.%.100s: %s is given twice in the "
                                  "request (by two of its names)",
                                  key, opt->name);
        }
        if (opt != NULL && rq->model != NULL &&
            strcmp(opt->name, "model_path") == 0) {
            return kvplan__refuse(w, KVPLAN_INVALID_ARGUMENT, 2, key,
                                  "flags.%.100s: the model is named by the "
                                  "request's model member already",
                                  key);
        }
        if (set_flag(o, key, v, h, &err) != KVPLAN_OK) {
            /* the field names the request's key */
            if (err.code != KVPLAN_NOMEM)
                snprintf(err.field, sizeof err.field, "%.100s", key);
            return kvplan__failed(w, &err, true);
        }
    }
    return KVPLAN_OK;
}

kvplan_status kvplan__request_options(kvplan__writer *w, request *rq,
                                      kvplan_options *o, held *h, axis *axes,
                                      size_t *naxes)
{
    o->env = rq->env;
    kvplan_options_read_env(o);
    if (rq->model != NULL) {
        o->model_path = json_string_value(rq->model);
        hold(h, "--model-path", false);
        hold(h, o->model_path, false);
    }
    if (rq->config != NULL) {
        /* config.json's text: named as the command names its standard
         * input's, unless the request names the model */
        if (o->model_path == NULL)
            o->model_path = "-";
        if (json_is_string(rq->config)) {
            o->model_config = json_string_value(rq->config);
            o->model_config_len = json_string_length(rq->config);
        } else {
            rq->config_text = kvplan__dump(rq->config, &rq->config_len);
            if (rq->config_text == NULL) {
                return kvplan__refuse(w, KVPLAN_NOMEM, 4, NULL,
                                      "out of memory");
            }
            o->model_config = rq->config_text;
            o->model_config_len = rq->config_len;
        }
    }
    return set_flags(rq, o, h, axes, naxes, w);
}

/* The questions on a model, and log: the options read, then asked. */
static kvplan_status ask(kvplan__writer *w, request *rq,
                         kvplan_json_session *session)
{
    kvplan_options *o = malloc(sizeof *o);
    kvplan_plan *work = malloc(2 * sizeof *work);
    held *h = malloc(sizeof *h); /* 8 KiB, and 4 KiB a list: not zeroed */
    axis *ax = malloc(KVPLAN_MAX_SWEEP_AXES * sizeof *ax);
    size_t naxes = 0;
    kvplan_status st;
    if (o == NULL || work == NULL || h == NULL || ax == NULL) {
        st = kvplan__refuse(w, KVPLAN_NOMEM, 4, NULL, "out of memory");
    } else {
        h->n = h->nowned = 0;
        for (size_t k = 0; k < KVPLAN_MAX_SWEEP_AXES; k++)
            ax[k].n = 0;
        kvplan_options_init(o);
        if (strcmp(rq->command, "log") == 0)
            st = kvplan__ask_log(w, rq, o, h, ax, &naxes, work);
        else if ((st = kvplan__request_options(w, rq, o, h, ax, &naxes)) ==
                 KVPLAN_OK)
            st = kvplan__ask(w, rq, o, h, ax, naxes, work, session);
    }
    for (size_t k = 0; ax != NULL && k < naxes; k++)
        for (size_t i = 0; i < ax[k].n; i++)
            free(ax[k].owned[i]);
    for (size_t i = 0; h != NULL && i < h->nowned; i++)
        free(h->owned[i]);
    free(rq->config_text);
    free(o);
    free(work);
    free(h);
    free(ax);
    return st;
}

static kvplan_status run(kvplan__writer *w, json_t *req,
                         kvplan_json_session *session)
{
    request rq;
    kvplan_status st = read_request(req, &rq, w);
    if (st != KVPLAN_OK)
        return st;
    const char *c = rq.command;
    if (strcmp(c, "models") == 0)
        kvplan__doc_models(w);
    else if (strcmp(c, "gpus") == 0)
        kvplan__doc_gpus(w);
    else if (strcmp(c, "flags") == 0)
        kvplan__doc_options(w);
    else if (strcmp(c, "version") == 0)
        kvplan__doc_version_info(w);
    else if (strcmp(c, "pools") == 0)
        return kvplan__ask_pools(w, rq.scenarios);
    else
        return ask(w, &rq, session);
    return KVPLAN_OK;
}

kvplan_status kvplan_json_session_call_as(kvplan_json_session *session,
                                          kvplan_encoding encoding,
                                          const char *text, size_t len,
                                          char **response, size_t *response_len)
{
    if (response == NULL || (encoding != KVPLAN_ENCODING_JSON &&
                             encoding != KVPLAN_ENCODING_PICKLE))
        return KVPLAN_INVALID_ARGUMENT;
    *response = NULL;
    if (response_len != NULL)
        *response_len = 0;
    kvplan__writer w = {.pickle = encoding == KVPLAN_ENCODING_PICKLE};
    kvplan_status st;
    json_error_t jerr;
    json_t *req = text != NULL
                      ? json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr)
                      : NULL;
    if (text == NULL)
        st = kvplan__refuse(&w, KVPLAN_INVALID_ARGUMENT, 2, NULL,
                            "kvplan_json needs a request; got NULL");
    else if (req == NULL)
        st = kvplan__refuse(&w, KVPLAN_PARSE, 2, NULL,
                            "the request is not JSON: line %d, column %d: %s",
                            jerr.line, jerr.column, jerr.text);
    else
        st = run(&w, req, session);
    json_decref(req);
    kvplan_error err;
    if (kvplan__w_status(&w, &err) == KVPLAN_OVERFLOW)
        st = kvplan__failed(&w, &err, false); /* a figure JSON cannot hold */
    size_t n = 0;
    char *out = kvplan__w_take(&w, &n);
    if (out == NULL)
        return KVPLAN_NOMEM;
    *response = out;
    if (response_len != NULL)
        *response_len = n;
    return st;
}

kvplan_status kvplan_json_session_call(kvplan_json_session *session,
                                       const char *text, size_t len,
                                       char **response, size_t *response_len)
{
    return kvplan_json_session_call_as(session, KVPLAN_ENCODING_JSON, text, len,
                                       response, response_len);
}

kvplan_status kvplan_json(const char *text, size_t len, char **response,
                          size_t *response_len)
{
    return kvplan_json_session_call(NULL, text, len, response, response_len);
}

void kvplan_json_free(char *response)
{
    free(response);
}
