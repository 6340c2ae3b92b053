/*
 * answer.c: a configurator's answers as JSON, in the golden schema
 * (docs/pools.md): what `kvplan pools` writes for each call and what the
 * plan's --json writes at its top level, from one writer.
 */
#include "jsonout.h"
#include "scenario.h"

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

json_t *cli_pool_config_json(const kvplan_configurator *conf,
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
    bad |= json_object_set_new(o, "message", cli_json_text(err->message));
    if (err->field[0] != '\0')
        bad |= json_object_set_new(o, "field", cli_json_text(err->field));
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

static bool append(void *ctx, size_t i, cli_outcome outcome,
                   const kvplan_configurator *conf,
                   const kvplan_pool_config *cfg, const kvplan_error *err)
{
    (void)i;
    json_t *answer;
    switch (outcome) {
    case CLI_ANSWERED:
        answer = cli_pool_config_json(conf, cfg);
        break;
    case CLI_SKIPPED:
        answer = json_pack("{s:s}", "skipped", "the call before it failed");
        break;
    default:
        answer = error_json(outcome == CLI_UNBUILT ? NULL : conf, err,
                            outcome == CLI_UNBUILT);
        break;
    }
    return json_array_append_new((json_t *)ctx, answer) == 0;
}

json_t *cli_scenario_run(const cli_scenario *s)
{
    json_t *results = json_array();
    if (results != NULL &&
        cli_scenario_replay(s, true, append, results) != s->num_calls) {
        json_decref(results);
        return NULL;
    }
    return results;
}
