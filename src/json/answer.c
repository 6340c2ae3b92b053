/*
 * answer.c: a configurator's answers as JSON, in the golden schema
 * (docs/pools.md): what `kvplan pools` writes for each call and what the
 * plan's --json writes at its top level, from one writer.
 */
#include "json/doc.h"
#include "json/scenario.h"

#include <stdio.h>
#include <string.h>

static json_t *opt_json(kvplan_opt_int v)
{
    return v.set ? json_integer(v.value) : json_null();
}

static json_t *real_repr(double x)
{
    char buf[40];
    kvplan_format_double(x, buf, sizeof buf);
    return json_string(buf);
}

json_t *kvplan__pool_config_json(const kvplan_configurator *conf,
                             const kvplan_pool_config *cfg)
{
    json_t *o = json_object();
    if (o == NULL)
        return NULL;
    int bad = 0;
    bad |= json_object_set_new(
        o, "configurator", json_string(kvplan_configurator_name(conf->kind)));
    bad |= json_object_set_new(o, "max_total_num_tokens",
                               json_integer(cfg->max_total_num_tokens));
    bad |= json_object_set_new(o, "full_max_total_num_tokens",
                               opt_json(cfg->full_max_total_num_tokens));
    bad |= json_object_set_new(o, "swa_max_total_num_tokens",
                               opt_json(cfg->swa_max_total_num_tokens));
    bad |= json_object_set_new(o, "c4_max_total_num_tokens",
                               json_integer(cfg->c4_max_total_num_tokens));
    bad |= json_object_set_new(o, "c128_max_total_num_tokens",
                               json_integer(cfg->c128_max_total_num_tokens));
    bad |= json_object_set_new(o, "c4_state_pool_size",
                               json_integer(cfg->c4_state_pool_size));
    bad |= json_object_set_new(o, "c128_state_pool_size",
                               json_integer(cfg->c128_state_pool_size));
    bad |= json_object_set_new(o, "max_running_requests",
                               opt_json(cfg->max_running_requests));
    if (conf->kind == KVPLAN_CONFIGURATOR_DSV4) {
        bad |= json_object_set_new(o, "bytes_per_full_token",
                                   real_repr(conf->bytes_per_full_token));
    } else {
        bad |= json_object_set_new(o, "cell_size",
                                   conf->cell_size_is_float
                                       ? real_repr(conf->cell_size)
                                       : json_integer(conf->cell_size_bytes));
    }
    if (conf->kind == KVPLAN_CONFIGURATOR_SWA_CHUNK_CAP)
        bad |= json_object_set_new(o, "swa_cap", json_integer(conf->swa_cap));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *error_json(const kvplan_configurator *conf,
                          const kvplan_error *err, bool at_create)
{
    json_t *o = json_object();
    if (o == NULL)
        return NULL;
    int bad = 0;
    bad |= json_object_set_new(o, "error",
                               json_string(kvplan_status_kind(err->code)));
    bad |= json_object_set_new(o, "message", kvplan__json_text(err->message));
    if (err->field[0] != '\0')
        bad |= json_object_set_new(o, "field", kvplan__json_text(err->field));
    if (at_create)
        bad |= json_object_set_new(o, "stage", json_string("create"));
    else
        bad |= json_object_set_new(
            o, "configurator",
            json_string(kvplan_configurator_name(conf->kind)));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static bool append(void *ctx, size_t i, kvplan__outcome outcome,
                   const kvplan_configurator *conf,
                   const kvplan_pool_config *cfg, const kvplan_error *err)
{
    (void)i;
    json_t *answer;
    switch (outcome) {
    case KVPLAN__ANSWERED:
        answer = kvplan__pool_config_json(conf, cfg);
        break;
    case KVPLAN__SKIPPED:
        answer = json_pack("{s:s}", "skipped", "the call before it failed");
        break;
    default:
        answer = error_json(outcome == KVPLAN__UNBUILT ? NULL : conf, err,
                            outcome == KVPLAN__UNBUILT);
        break;
    }
    return json_array_append_new((json_t *)ctx, answer) == 0;
}

json_t *kvplan__scenario_run(const kvplan__scenario *s)
{
    json_t *results = json_array();
    if (results != NULL &&
        kvplan__scenario_replay(s, true, append, results) != s->num_calls) {
        json_decref(results);
        return NULL;
    }
    return results;
}

/* ---- the same answers, written straight (prepared scenarios) ------------ */

typedef struct writer {
    FILE *out;
    bool first; /* no member written yet in this object */
    bool bad;
} writer;

static void key(writer *w, const char *name)
{
    if (fputs(w->first ? "{\"" : ", \"", w->out) == EOF ||
        fputs(name, w->out) == EOF || fputs("\": ", w->out) == EOF)
        w->bad = true;
    w->first = false;
}

static void int_member(writer *w, const char *name, int64_t v)
{
    key(w, name);
    if (fprintf(w->out, "%lld", (long long)v) < 0)
        w->bad = true;
}

static void opt_member(writer *w, const char *name, kvplan_opt_int v)
{
    if (v.set) {
        int_member(w, name, v.value);
        return;
    }
    key(w, name);
    if (fputs("null", w->out) == EOF)
        w->bad = true;
}

static void text_member(writer *w, const char *name, const char *text)
{
    key(w, name);
    if (kvplan__json_write_string(text, strlen(text), w->out) != 0)
        w->bad = true;
}

static void repr_member(writer *w, const char *name, double x)
{
    char buf[40];
    kvplan_format_double(x, buf, sizeof buf);
    text_member(w, name, buf);
}

/* kvplan__pool_config_json's members, in their sorted order. */
static void write_config(writer *w, const kvplan_configurator *conf,
                         const kvplan_pool_config *cfg)
{
    bool dsv4 = conf->kind == KVPLAN_CONFIGURATOR_DSV4;
    if (dsv4)
        repr_member(w, "bytes_per_full_token", conf->bytes_per_full_token);
    int_member(w, "c128_max_total_num_tokens", cfg->c128_max_total_num_tokens);
    int_member(w, "c128_state_pool_size", cfg->c128_state_pool_size);
    int_member(w, "c4_max_total_num_tokens", cfg->c4_max_total_num_tokens);
    int_member(w, "c4_state_pool_size", cfg->c4_state_pool_size);
    if (!dsv4 && conf->cell_size_is_float)
        repr_member(w, "cell_size", conf->cell_size);
    else if (!dsv4)
        int_member(w, "cell_size", conf->cell_size_bytes);
    text_member(w, "configurator", kvplan_configurator_name(conf->kind));
    opt_member(w, "full_max_total_num_tokens", cfg->full_max_total_num_tokens);
    opt_member(w, "max_running_requests", cfg->max_running_requests);
    int_member(w, "max_total_num_tokens", cfg->max_total_num_tokens);
    if (conf->kind == KVPLAN_CONFIGURATOR_SWA_CHUNK_CAP)
        int_member(w, "swa_cap", conf->swa_cap);
    opt_member(w, "swa_max_total_num_tokens", cfg->swa_max_total_num_tokens);
}

/* error_json's members, in their sorted order. */
static void write_error(writer *w, const kvplan_configurator *conf,
                        const kvplan_error *err, bool at_create)
{
    if (!at_create)
        text_member(w, "configurator", kvplan_configurator_name(conf->kind));
    text_member(w, "error", kvplan_status_kind(err->code));
    if (err->field[0] != '\0')
        text_member(w, "field", err->field);
    text_member(w, "message", err->message);
    if (at_create)
        text_member(w, "stage", "create");
}

static bool write_one(void *ctx, size_t i, kvplan__outcome outcome,
                      const kvplan_configurator *conf,
                      const kvplan_pool_config *cfg, const kvplan_error *err)
{
    writer *w = ctx;
    if (i > 0 && fputs(", ", w->out) == EOF)
        w->bad = true;
    w->first = true;
    switch (outcome) {
    case KVPLAN__ANSWERED:
        write_config(w, conf, cfg);
        break;
    case KVPLAN__SKIPPED:
        text_member(w, "skipped", "the call before it failed");
        break;
    default:
        write_error(w, outcome == KVPLAN__UNBUILT ? NULL : conf, err,
                    outcome == KVPLAN__UNBUILT);
        break;
    }
    if (fputc('}', w->out) == EOF)
        w->bad = true;
    return !w->bad;
}

int kvplan__scenario_write_results(const kvplan__scenario *s, FILE *out)
{
    writer w = {out, true, fputc('[', out) == EOF};
    if (!w.bad && kvplan__scenario_replay(s, true, write_one, &w) !=
                      s->num_calls)
        w.bad = true;
    if (fputc(']', out) == EOF)
        w.bad = true;
    return w.bad ? -1 : 0;
}
