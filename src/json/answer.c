/*
 * answer.c: a configurator's answers as JSON, in the golden schema
 * (docs/pools.md): what `kvplan pools` writes for each call, what prepared
 * scenarios give back, and what the plan's --json writes at its top level,
 * from one writer.
 */
#include "json/doc.h"
#include "json/scenario.h"

#include <string.h>

/* Written in the keys' order (the writer then has nothing to sort: the
 * prepared scenarios write thousands). */
void kvplan__pool_config_members(kvplan__writer *w,
                                 const kvplan_configurator *conf,
                                 const kvplan_pool_config *cfg)
{
    bool dsv4 = conf->kind == KVPLAN_CONFIGURATOR_DSV4;
    if (dsv4)
        kvplan__w_repr(w, "bytes_per_full_token", conf->bytes_per_full_token);
    kvplan__w_int(w, "c128_max_total_num_tokens",
                  cfg->c128_max_total_num_tokens);
    kvplan__w_int(w, "c128_state_pool_size", cfg->c128_state_pool_size);
    kvplan__w_int(w, "c4_max_total_num_tokens", cfg->c4_max_total_num_tokens);
    kvplan__w_int(w, "c4_state_pool_size", cfg->c4_state_pool_size);
    if (!dsv4 && conf->cell_size_is_float)
        kvplan__w_repr(w, "cell_size", conf->cell_size);
    else if (!dsv4)
        kvplan__w_int(w, "cell_size", conf->cell_size_bytes);
    kvplan__w_str(w, "configurator", kvplan_configurator_name(conf->kind));
    kvplan__w_opt_int(w, "full_max_total_num_tokens",
                      cfg->full_max_total_num_tokens);
    kvplan__w_opt_int(w, "max_running_requests", cfg->max_running_requests);
    kvplan__w_int(w, "max_total_num_tokens", cfg->max_total_num_tokens);
    if (conf->kind == KVPLAN_CONFIGURATOR_SWA_CHUNK_CAP)
        kvplan__w_int(w, "swa_cap", conf->swa_cap);
    kvplan__w_opt_int(w, "swa_max_total_num_tokens",
                      cfg->swa_max_total_num_tokens);
}

static void error_members(kvplan__writer *w, const kvplan_configurator *conf,
                          const kvplan_error *err, bool at_create)
{
    if (!at_create)
        kvplan__w_str(w, "configurator", kvplan_configurator_name(conf->kind));
    kvplan__w_str(w, "error", kvplan_status_kind(err->code));
    if (err->field[0] != '\0')
        kvplan__w_str(w, "field", err->field);
    kvplan__w_str(w, "message", err->message);
    if (at_create)
        kvplan__w_str(w, "stage", "create");
}

static bool append(void *ctx, size_t i, kvplan__outcome outcome,
                   const kvplan_configurator *conf,
                   const kvplan_pool_config *cfg, const kvplan_error *err)
{
    kvplan__writer *w = ctx;
    (void)i;
    kvplan__w_object(w, NULL);
    switch (outcome) {
    case KVPLAN__ANSWERED:
        kvplan__pool_config_members(w, conf, cfg);
        break;
    case KVPLAN__SKIPPED:
        kvplan__w_str(w, "skipped", "the call before it failed");
        break;
    default:
        error_members(w, outcome == KVPLAN__UNBUILT ? NULL : conf, err,
                      outcome == KVPLAN__UNBUILT);
        break;
    }
    kvplan__w_end(w);
    return !w->t.bad;
}

void kvplan__scenario_results(kvplan__writer *w, const char *key,
                              const kvplan__scenario *s)
{
    kvplan__w_array(w, key);
    if (kvplan__scenario_replay(s, true, append, w) != s->num_calls)
        w->t.bad = true;
    kvplan__w_end(w);
}

void kvplan__scenario_answer(kvplan__writer *w, const json_t *obj,
                             const kvplan__scenario *s)
{
    kvplan__w_object(w, NULL);
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)obj, key, v) /* its results replaced */
        if (strcmp(key, "results") != 0) kvplan__w_json(w, key, v);
    kvplan__scenario_results(w, "results", s);
    kvplan__w_end(w);
}
