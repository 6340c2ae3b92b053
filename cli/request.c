/*
 * request.c: kvplan_json, the library's one JSON entry point
 * (docs/json-api.md). A request document names a command, a model and
 * sglang's flags by their ServerArgs names; the command runs in memory,
 * on streams lent to the calling thread (cli_io_lend), and the answer is
 * the document `kvplan ... --json` prints, byte for byte. The Python
 * package and the web calculator call nothing else.
 *
 *   {"command": "plan", "model": "llama-3.1-8b-instruct",
 *    "flags": {"tp_size": 2, "gpu": "H100"}}
 */
#include "cli.h"
#include "flags.h"

#include "common/option_table.h"
#include "jsonout.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 512
#define MAX_ENV 64

/* The command line the request spells, each argument owned. */
typedef struct args {
    char *v[MAX_ARGS + 1];
    int n;
    bool full, nomem;
    /* the request's key of each flag argument, for the error's field */
    const char *key[MAX_ARGS];
} args;

static void push(args *a, const char *s, const char *key)
{
    if (a->n >= MAX_ARGS) {
        a->full = true;
        return;
    }
    char *d = malloc(strlen(s) + 1);
    if (d == NULL) {
        a->nomem = true;
        return;
    }
    strcpy(d, s);
    a->key[a->n] = key;
    a->v[a->n++] = d;
}

static void args_free(args *a)
{
    for (int i = 0; i < a->n; i++)
        free(a->v[i]);
}

/* The JSON text of `v` as cli_json_write writes it (compact enough for a
 * flag's value), or NULL. */
static char *dump(const json_t *v, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (f == NULL)
        return NULL;
    int bad = cli_json_write(v, f);
    if (fclose(f) != 0 || bad != 0) {
        free(buf);
        return NULL;
    }
    if (len != NULL)
        *len = n;
    return buf;
}

typedef struct answer {
    char *text;
    size_t len;
    int rc;
} answer;

/* `doc` as the answer with status `rc` (status 4 when memory ran out). */
static answer listing(json_t *doc, int rc)
{
    answer a = {NULL, 0, rc};
    if (doc != NULL)
        a.text = dump(doc, &a.len);
    json_decref(doc);
    if (a.text == NULL)
        a.rc = CLI_EXIT_INTERNAL;
    return a;
}

/* The error object the command writes under --json, built here for what
 * the request itself gets wrong. */
static answer refuse(kvplan_status code, int rc, const char *field,
                     const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static answer refuse(kvplan_status code, int rc, const char *field,
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
    return listing(cli_error_json(&err, rc), rc);
}

/* "tp_size" -> "--tp-size"; a key that is already a flag stays. */
static void flag_name(const char *key, char *out, size_t size)
{
    if (strncmp(key, "--", 2) == 0) {
        snprintf(out, size, "%s", key);
        return;
    }
    const kvplan_option *o = kvplan_option_find(key);
    if (o != NULL) {
        snprintf(out, size, "%s", o->flag);
        return;
    }
    snprintf(out, size, "--%s", key);
    for (char *p = out + 2; *p; p++)
        if (*p == '_')
            *p = '-';
}

/* A scalar as the command line spells it; false when `v` is not one. */
static bool scalar_text(const json_t *v, char *out, size_t size)
{
    if (json_is_string(v))
        snprintf(out, size, "%s", json_string_value(v));
    else if (json_is_integer(v))
        snprintf(out, size, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        kvplan_format_double(json_real_value(v), out, size);
    else if (json_is_boolean(v))
        snprintf(out, size, "%s", json_is_true(v) ? "true" : "false");
    else
        return false;
    return true;
}

/* The flags object as arguments. A list (kvplan sweep's) is joined with
 * commas; an object (--json-model-override-args, --hisparse-config) is
 * its JSON text; true is a flag alone; false and null leave it out. */
static answer add_flags(args *a, json_t *flags)
{
    const char *key;
    json_t *v;
    json_object_foreach(flags, key, v)
    {
        char name[128];
        flag_name(key, name, sizeof name);
        if (strcmp(name, "--json") == 0 || json_is_null(v) || json_is_false(v))
            continue;
        if (json_is_true(v)) {
            push(a, name, key);
            continue;
        }
        char *text = NULL;
        if (json_is_object(v)) {
            text = dump(v, NULL);
        } else if (json_is_array(v)) {
            size_t n = json_array_size(v), cap = 64 * n + 1, at = 0;
            text = malloc(cap);
            for (size_t i = 0; text != NULL && i < n; i++) {
                char one[4096];
                if (!scalar_text(json_array_get(v, i), one, sizeof one)) {
                    free(text);
                    return refuse(KVPLAN_INVALID_ARGUMENT, CLI_EXIT_USAGE, key,
                                  "flags.%.100s: a list holds numbers or "
                                  "words only",
                                  key);
                }
                size_t l = strlen(one);
                if (at + l + 2 > cap) {
                    char *t = realloc(text, cap = 2 * (at + l + 2));
                    if (t == NULL) {
                        free(text);
                        text = NULL;
                        break;
                    }
                    text = t;
                }
                if (i > 0)
                    text[at++] = ',';
                memcpy(text + at, one, l);
                at += l;
                text[at] = '\0';
            }
            if (text != NULL && n == 0)
                text[0] = '\0';
        } else if (json_is_string(v)) { /* whole, however long */
            text = malloc(json_string_length(v) + 1);
            if (text != NULL)
                memcpy(text, json_string_value(v), json_string_length(v) + 1);
        } else {
            text = malloc(64);
            if (text != NULL)
                scalar_text(v, text, 64);
        }
        if (text == NULL)
            return (answer){NULL, 0, CLI_EXIT_INTERNAL};
        push(a, name, key);
        push(a, text, key);
        free(text);
    }
    return (answer){NULL, 0, CLI_EXIT_OK};
}

/* The built-in lists as JSON: the catalog, the GPU presets, the flags. */
static json_t *list_models(void)
{
    json_t *l = json_array();
    const char *name;
    for (size_t i = 0; l != NULL && (name = kvplan_catalog_name(i)) != NULL;
         i++) {
        kvplan_model *m = NULL;
        const char *arch = "";
        bool draft = false;
        if (kvplan_model_load(name, &m, NULL) == KVPLAN_OK) {
            arch = kvplan_model_get_info(m)->architecture;
            draft = kvplan_model_get_info(m)->is_draft_only;
        }
        json_t *o =
            json_pack("{s:o, s:o, s:o, s:b}", "name", cli_json_text(name),
                      "hf_id", cli_json_text(kvplan_catalog_hf_id(i)),
                      "architecture", cli_json_text(arch), "draft_head", draft);
        kvplan_model_free(m);
        if (json_array_append_new(l, o) != 0) {
            json_decref(l);
            return NULL;
        }
    }
    return l;
}

static json_t *list_gpus(void)
{
    json_t *l = json_array();
    kvplan_gpu g;
    for (size_t i = 0; l != NULL && kvplan_gpu_preset_at(i, &g); i++)
        if (json_array_append_new(l, json_pack("{s:s, s:f, s:s}", "name",
                                               g.name, "total_mib", g.total_mib,
                                               "arch", g.arch)) != 0) {
            json_decref(l);
            return NULL;
        }
    return l;
}

static const char *kind_name(const kvplan_option *o)
{
    switch (kvplan__row_of(o)->store) {
    case KVPLAN__STORE_GPU:
        return "gpu";
    case KVPLAN__STORE_HISPARSE:
        return "object";
    case KVPLAN__STORE_VERSION:
        return "version";
    case KVPLAN__STORE_ENGINE:
    case KVPLAN__STORE_KNOB:
    case KVPLAN__STORE_RANK_KEY:
        return "word";
    default:
        break;
    }
    switch (o->type) {
    case KVPLAN_OPTION_INTEGER:
        return "integer";
    case KVPLAN_OPTION_NUMBER:
        return "number";
    case KVPLAN_OPTION_SWITCH:
        return "boolean";
    case KVPLAN_OPTION_WORD:
        return "word";
    case KVPLAN_OPTION_SIZE:
        return "size";
    default:
        return "text";
    }
}

static json_t *list_flags(void)
{
    json_t *l = json_array();
    const kvplan_option *o;
    for (size_t i = 0; l != NULL && (o = kvplan_option_at(i)) != NULL &&
                       o->type != KVPLAN_OPTION_NOT_READ;
         i++) {
        json_t *words = json_array();
        const char *w;
        for (size_t k = 0; words != NULL && o->type == KVPLAN_OPTION_WORD &&
                           (w = kvplan_word_at((kvplan_word_set)o->words, k,
                                               NULL)) != NULL;
             k++)
            json_array_append_new(words, json_string(w));
        json_t *one = json_pack("{s:s, s:s, s:s, s:b, s:o, s:o}", "flag",
                                o->flag, "key", o->name, "kind", kind_name(o),
                                "sglang", o->scope == KVPLAN_SCOPE_SGLANG,
                                "words", words ? words : json_null(), "help",
                                cli_json_text(o->help));
        if (json_array_append_new(l, one) != 0) {
            json_decref(l);
            return NULL;
        }
    }
    return l;
}

/* What the command wrote, as the answer: its --json document (an error
 * object whose field is a flag names it by the request's key); text
 * that is not JSON (--help) is wrapped. */
static answer collect(const args *a, char *out, size_t out_len, char *err,
                      int rc)
{
    size_t i = 0;
    while (i < out_len && (out[i] == ' ' || out[i] == '\n'))
        i++;
    if (i < out_len && (out[i] == '{' || out[i] == '[')) {
        while (out_len > 0 && out[out_len - 1] == '\n')
            out[--out_len] = '\0';
        answer ans = {out, out_len, rc};
        if (rc == CLI_EXIT_OK || out[i] != '{' || out_len > 8192)
            return ans;
        json_t *doc = json_loadb(out, out_len, 0, NULL);
        json_t *field = json_object_get(doc, "field");
        for (int k = 0; json_is_string(field) && k < a->n; k++)
            if (a->key[k] != NULL &&
                strcmp(a->v[k], json_string_value(field)) == 0) {
                json_object_set_new(doc, "field", json_string(a->key[k]));
                char *t = dump(doc, &ans.len);
                if (t != NULL) {
                    free(out);
                    ans.text = t;
                }
                break;
            }
        json_decref(doc);
        return ans;
    }
    if (rc == CLI_EXIT_OK) { /* text, not JSON: --help */
        answer ans = listing(json_pack("{s:o, s:i}", "text", cli_json_text(out),
                                       "exit_status", rc),
                             rc);
        free(out);
        return ans;
    }
    free(out);
    size_t n = strlen(err);
    while (n > 0 && err[n - 1] == '\n')
        err[--n] = '\0';
    return refuse(rc == CLI_EXIT_USAGE ? KVPLAN_INVALID_ARGUMENT : KVPLAN_IO,
                  rc, NULL, "%s", err);
}

/* kvplan pools' answers, one JSON line each, as one list. */
static bool lines_to_list(char **text, size_t *len)
{
    char *t = malloc(*len * 2 + 4);
    if (t == NULL)
        return false;
    size_t at = 0;
    t[at++] = '[';
    for (char *p = *text, *nl; p < *text + *len; p = nl + 1) {
        nl = memchr(p, '\n', (size_t)(*text + *len - p));
        if (nl == NULL)
            nl = *text + *len;
        if (nl == p)
            continue;
        if (at > 1) {
            t[at++] = ',';
            t[at++] = ' ';
        }
        memcpy(t + at, p, (size_t)(nl - p));
        at += (size_t)(nl - p);
    }
    t[at++] = ']';
    t[at] = '\0';
    free(*text);
    *text = t;
    *len = at;
    return true;
}

/* `doc` with "svg": the picture, as its last member. */
static void add_svg(answer *ans, const char *svg, size_t len)
{
    char *end = ans->text != NULL ? strrchr(ans->text, '}') : NULL;
    json_t *s = len > 0 ? json_stringn_nocheck(svg, len) : NULL;
    size_t sl = 0;
    char *st = s != NULL ? dump(s, &sl) : NULL;
    json_decref(s);
    if (end == NULL || st == NULL) {
        free(st);
        return;
    }
    size_t head = (size_t)(end - ans->text);
    char *t = malloc(head + sl + 16);
    if (t != NULL) {
        memcpy(t, ans->text, head);
        size_t at = head;
        memcpy(t + at, ", \"svg\": ", 9);
        at += 9;
        memcpy(t + at, st, sl);
        at += sl;
        t[at++] = '}';
        t[at] = '\0';
        free(ans->text);
        ans->text = t;
        ans->len = at;
    }
    free(st);
}

static const char *const commands[] = {"plan",    "fit",   "solve",  "sweep",
                                       "compare", "log",   "pools",  "models",
                                       "gpus",    "flags", "version"};
static const char *const members[] = {"command", "model",     "config", "flags",
                                      "log",     "scenarios", "svg",    "env"};

static answer run(json_t *req)
{
    if (!json_is_object(req))
        return refuse(KVPLAN_PARSE, CLI_EXIT_USAGE, NULL,
                      "the request must be a JSON object: {\"command\": "
                      "\"plan\", \"model\": ..., \"flags\": {...}}");
    const char *key;
    json_t *v;
    json_object_foreach(req, key, v)
    {
        bool known = false;
        for (size_t i = 0; i < sizeof members / sizeof *members; i++)
            known |= strcmp(key, members[i]) == 0;
        if (!known)
            return refuse(KVPLAN_INVALID_ARGUMENT, CLI_EXIT_USAGE, key,
                          "unknown member '%.100s' of the request; expected "
                          "command, model, config, flags, log, scenarios, "
                          "svg, env",
                          key);
    }
    json_t *c = json_object_get(req, "command");
    const char *cmd = c == NULL ? "plan" : json_string_value(c);
    size_t which = sizeof commands / sizeof *commands;
    for (size_t i = 0; cmd != NULL && i < which; i++)
        if (strcmp(cmd, commands[i]) == 0)
            which = i;
    if (cmd == NULL || which == sizeof commands / sizeof *commands)
        return refuse(
            KVPLAN_INVALID_ARGUMENT, CLI_EXIT_USAGE, "command",
            "command must be one of plan, fit, solve, sweep, compare, log, "
            "pools, models, gpus, flags, version");
    if (strcmp(cmd, "models") == 0)
        return listing(list_models(), CLI_EXIT_OK);
    if (strcmp(cmd, "gpus") == 0)
        return listing(list_gpus(), CLI_EXIT_OK);
    if (strcmp(cmd, "flags") == 0)
        return listing(list_flags(), CLI_EXIT_OK);
    if (strcmp(cmd, "version") == 0)
        return listing(json_pack("{s:s, s:i}", "version", kvplan_version(),
                                 "version_number",
                                 (int)kvplan_version_number()),
                       CLI_EXIT_OK);
    json_t *model = json_object_get(req, "model"),
           *config = json_object_get(req, "config"),
           *flags = json_object_get(req, "flags"),
           *log = json_object_get(req, "log"),
           *scen = json_object_get(req, "scenarios"),
           *svg = json_object_get(req, "svg");
    if (model != NULL && !json_is_string(model))
        return refuse(KVPLAN_INVALID_ARGUMENT, CLI_EXIT_USAGE, "model",
                      "model must be a string: a catalog name, a Hugging "
                      "Face id or a path");
    if (config != NULL && !json_is_object(config) && !json_is_string(config))
        return refuse(KVPLAN_INVALID_ARGUMENT, CLI_EXIT_USAGE, "config",
                      "config must be config.json: an object, or its text");
    if (flags != NULL && !json_is_object(flags))
        return refuse(KVPLAN_INVALID_ARGUMENT, CLI_EXIT_USAGE, "flags",
                      "flags must be an object of sglang's flags by their "
                      "names: {\"tp_size\": 2}");
    json_t *env = json_object_get(req, "env");
    const char *envv[2 * MAX_ENV + 1];
    size_t ne = 0;
    if (env != NULL && !json_is_object(env))
        return refuse(KVPLAN_INVALID_ARGUMENT, CLI_EXIT_USAGE, "env",
                      "env must be an object of variables: "
                      "{\"SGLANG_MAMBA_SSM_DTYPE\": \"float16\"}");
    const char *name;
    json_t *value;
    json_object_foreach(env, name, value)
    {
        if ((!json_is_string(value) && !json_is_null(value)) ||
            ne / 2 >= MAX_ENV)
            return refuse(KVPLAN_INVALID_ARGUMENT, CLI_EXIT_USAGE, name,
                          "env.%.100s: a variable is a string, or null to "
                          "unset it (at most %d)",
                          name, MAX_ENV);
        envv[ne++] = name;
        envv[ne++] = json_string_value(value); /* NULL for null */
    }
    envv[ne] = NULL;
    if (svg != NULL && !json_is_boolean(svg))
        return refuse(KVPLAN_INVALID_ARGUMENT, CLI_EXIT_USAGE, "svg",
                      "svg must be true or false");
    bool is_log = strcmp(cmd, "log") == 0, is_pools = strcmp(cmd, "pools") == 0;
    if (is_log != (log != NULL) || (log != NULL && !json_is_string(log)))
        return refuse(KVPLAN_INVALID_ARGUMENT, CLI_EXIT_USAGE, "log",
                      is_log ? "command log needs log: the log's text"
                             : "log is read by command log only");
    if (is_pools != (scen != NULL) ||
        (scen != NULL && !json_is_array(scen) && !json_is_string(scen)))
        return refuse(KVPLAN_INVALID_ARGUMENT, CLI_EXIT_USAGE, "scenarios",
                      is_pools ? "command pools needs scenarios: a list of "
                                 "scenario objects, or their JSON lines"
                               : "scenarios are read by command pools only");

    args a = {.n = 0};
    answer ans = {NULL, 0, CLI_EXIT_OK};
    char *in_text = NULL, *config_text = NULL;
    size_t in_len = 0, config_len = 0;
    push(&a, "kvplan", NULL);
    if (which != 0)
        push(&a, cmd, NULL);
    if (is_log) {
        push(&a, "-", NULL);
        in_text = (char *)json_string_value(log);
        in_len = json_string_length(log);
    }
    if (config != NULL) {
        push(&a, "--model-path", "config");
        push(&a, "-", "config");
        if (json_is_string(config)) {
            config_len = json_string_length(config);
            config_text = (char *)json_string_value(config);
        } else {
            config_text = dump(config, &config_len);
        }
    } else if (model != NULL) {
        push(&a, "--model-path", "model");
        push(&a, json_string_value(model), "model");
    }
    if (flags != NULL)
        ans = add_flags(&a, flags);
    if (!is_pools)
        push(&a, "--json", NULL);
    if (svg != NULL && json_is_true(svg)) {
        push(&a, "--svg", "svg");
        push(&a, "(the response's svg)", "svg");
    }
    char *scen_text = NULL;
    if (is_pools && json_is_string(scen)) {
        in_text = (char *)json_string_value(scen);
        in_len = json_string_length(scen);
    } else if (is_pools) {
        /* one scenario a line */
        size_t n = 0;
        FILE *f = open_memstream(&scen_text, &n);
        size_t i;
        json_t *s;
        json_array_foreach(scen, i, s)
        {
            if (f != NULL &&
                (cli_json_write(s, f) != 0 || fputc('\n', f) == EOF))
                break;
        }
        if (f != NULL && fclose(f) == 0) {
            in_text = scen_text;
            in_len = n;
        } else {
            ans.rc = CLI_EXIT_INTERNAL;
        }
    }
    if (a.full)
        ans = refuse(KVPLAN_INVALID_ARGUMENT, CLI_EXIT_USAGE, "flags",
                     "more than %d flags", MAX_ARGS / 2);
    if (ans.text != NULL || ans.rc != CLI_EXIT_OK || a.nomem ||
        (config != NULL && config_text == NULL)) {
        if (ans.text == NULL && ans.rc == CLI_EXIT_OK)
            ans.rc = CLI_EXIT_INTERNAL;
        goto done;
    }

    char *out = NULL, *err = NULL, *pic = NULL;
    size_t out_len = 0, err_len = 0, pic_len = 0;
    cli_io io = {NULL,
                 open_memstream(&out, &out_len),
                 open_memstream(&err, &err_len),
                 NULL,
                 NULL,
                 NULL,
                 envv};
    if (in_text != NULL)
        io.in =
            fmemopen(in_len ? in_text : (char *)"", in_len ? in_len : 1, "r");
    if (config_text != NULL)
        io.config = fmemopen(config_text, config_len ? config_len : 1, "r");
    io.config_name = model != NULL ? json_string_value(model) : "config.json";
    if (svg != NULL && json_is_true(svg))
        io.svg = open_memstream(&pic, &pic_len);
    if (io.out == NULL || io.err == NULL ||
        (in_text != NULL && io.in == NULL) ||
        (config_text != NULL && io.config == NULL) ||
        (svg != NULL && json_is_true(svg) && io.svg == NULL)) {
        ans.rc = CLI_EXIT_INTERNAL;
    } else {
        cli_io saved;
        cli_io_lend(&io, &saved);
        a.v[a.n] = NULL;
        ans.rc = cli_run(a.n, a.v);
        cli_io_lend(&saved, &io);
    }
    FILE *streams[] = {io.in, io.out, io.err, io.config, io.svg};
    for (size_t i = 0; i < sizeof streams / sizeof *streams; i++)
        if (streams[i] != NULL && fclose(streams[i]) != 0)
            ans.rc = CLI_EXIT_INTERNAL;
    if (is_pools && out != NULL && ans.rc != CLI_EXIT_INTERNAL) {
        if (ans.rc != CLI_EXIT_OK) /* a scenario refused: its line's error */
            out_len = 0;
        else if (!lines_to_list(&out, &out_len))
            ans.rc = CLI_EXIT_INTERNAL;
    }
    if (out != NULL && err != NULL && ans.rc != CLI_EXIT_INTERNAL) {
        ans = collect(&a, out, out_len, err, ans.rc);
        out = NULL;
        if (pic != NULL && ans.rc == CLI_EXIT_OK)
            add_svg(&ans, pic, pic_len);
    }
    free(out);
    free(err);
    free(pic);
done:
    if (config != NULL && !json_is_string(config))
        free(config_text);
    free(scen_text);
    args_free(&a);
    return ans;
}

int kvplan_json(const char *request, size_t len, char **response,
                size_t *response_len)
{
    if (response == NULL)
        return CLI_EXIT_USAGE;
    *response = NULL;
    if (response_len != NULL)
        *response_len = 0;
    answer ans;
    json_error_t jerr;
    json_t *req = request != NULL
                      ? json_loadb(request, len, JSON_REJECT_DUPLICATES, &jerr)
                      : NULL;
    if (request == NULL)
        ans = refuse(KVPLAN_INVALID_ARGUMENT, CLI_EXIT_USAGE, NULL,
                     "kvplan_json needs a request; got NULL");
    else if (req == NULL)
        ans = refuse(KVPLAN_PARSE, CLI_EXIT_USAGE, NULL,
                     "the request is not JSON: line %d, column %d: %s",
                     jerr.line, jerr.column, jerr.text);
    else
        ans = run(req);
    json_decref(req);
    *response = ans.text;
    if (response_len != NULL)
        *response_len = ans.text != NULL ? ans.len : 0;
    return ans.text == NULL ? CLI_EXIT_INTERNAL : ans.rc;
}

void kvplan_json_free(char *response)
{
    free(response);
}
