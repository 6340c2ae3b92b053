/*
 * versions.c: two sglang versions side by side (kvplan_version_compare,
 * --compare-version): the plan under each, and for every rule they differ
 * in, the plan with that rule alone switched, so that each rule's own
 * effect is seen (docs/versions.md).
 */
#include "plan/plan.h"

#include <stdio.h>
#include <string.h>

static void figures(const kvplan_model *m, const kvplan_plan_options *o,
                    kvplan_plan *p, kvplan_version_figures *f)
{
    kvplan_error err;
    memset(f, 0, sizeof *f);
    f->status = kvplan_plan_compute(m, o, p, &err);
    if (f->status != KVPLAN_OK) {
        snprintf(f->error, sizeof f->error, "%.190s", err.message);
        return;
    }
    const kvplan_stage_plan *sp = &p->stages[p->binding_stage];
    f->cell_size = sp->configurator.kind == KVPLAN_CONFIGURATOR_DSV4
                       ? sp->configurator.bytes_per_full_token
                       : sp->configurator.cell_size;
    f->mem_fraction_static = p->budget.mem_fraction_static;
    f->available_bytes = sp->available_bytes;
    f->max_total_num_tokens = p->max_total_num_tokens;
    f->max_running_requests = p->max_running_requests;
    f->swa_max_total_num_tokens = sp->pools.swa_max_total_num_tokens.set
                                      ? sp->pools.swa_max_total_num_tokens.value
                                      : 0;
}

/* Whether `f` differs from `base` in a figure a person reads. */
static bool moves(const kvplan_version_figures *f,
                  const kvplan_version_figures *base)
{
    if (f->status != KVPLAN_OK || base->status != KVPLAN_OK)
        return true;
    return f->cell_size != base->cell_size ||
           f->mem_fraction_static != base->mem_fraction_static ||
           f->max_total_num_tokens != base->max_total_num_tokens ||
           f->available_bytes != base->available_bytes ||
           f->max_running_requests != base->max_running_requests;
}

kvplan_status kvplan_version_compare(const kvplan_model *m,
                                     const kvplan_plan_options *options,
                                     kvplan_sglang_profile other,
                                     kvplan_plan *work,
                                     kvplan_version_comparison *out,
                                     kvplan_error *err)
{
    KVPLAN__FAIL_IF(m == NULL || options == NULL || work == NULL || out == NULL,
                    err, KVPLAN_INVALID_ARGUMENT, NULL,
                    "kvplan_version_compare needs a model, options, a plan "
                    "to work in and a result; got NULL");
    KVPLAN__FAIL_IF(kvplan_sglang_profile_name(other) == NULL, err,
                    KVPLAN_INVALID_ARGUMENT, "--compare-version",
                    "--compare-version: %d is not a kvplan_sglang_profile",
                    (int)other);
    memset(out, 0, offsetof(kvplan_version_comparison, rules));
    kvplan_plan_options o = *options;
    out->profile = o.sglang_version;
    out->compared = other;
    figures(m, &o, work, &out->plan);
    o.sglang_version = other;
    figures(m, &o, work, &out->compared_plan);
    o.sglang_version = options->sglang_version;
    uint64_t mine = kvplan_sglang_rules(options->sglang_version);
    uint64_t diff = mine ^ kvplan_sglang_rules(other);
    kvplan_rule_info r;
    for (size_t i = 0;
         kvplan_rule_at(i, &r) && out->num_rules < KVPLAN_MAX_RULES; i++) {
        if (!(diff & r.bit))
            continue;
        kvplan_rule_delta *d = &out->rules[out->num_rules++];
        d->rule = r;
        d->in_plan = (mine & r.bit) != 0;
        o.sglang_rules_flip = r.bit;
        figures(m, &o, work, &d->alone);
        d->changes = moves(&d->alone, &out->plan);
    }
    return kvplan__ok(err);
}
