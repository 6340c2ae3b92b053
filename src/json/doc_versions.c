/*
 * doc_versions.c: the sglang version a plan follows, in its document, and
 * --compare-version's comparison (kvplan_version_compare): each rule that
 * differs, with what it alone changes (docs/versions.md).
 */
#include "json/doc.h"

json_t *kvplan__doc_version(const kvplan_plan *p)
{
    json_t *rules = json_array();
    kvplan_rule_info r;
    for (size_t i = 0; rules != NULL && kvplan_rule_at(i, &r); i++)
        if ((p->rules & r.bit) &&
            json_array_append_new(rules, json_string(r.name)) != 0) {
            json_decref(rules);
            return NULL;
        }
    return json_pack("{s:s, s:b, s:o}", "profile",
                     kvplan_sglang_profile_name(p->sglang_version), "exact",
                     kvplan_sglang_profile_exact(p->sglang_version) &&
                         !(p->rules & ~kvplan_sglang_rules(p->sglang_version)),
                     "rules", rules);
}

static json_t *figures_json(const kvplan_version_figures *f)
{
    if (f->status != KVPLAN_OK)
        return json_pack("{s:s}", "error", f->error);
    return json_pack("{s:f, s:f, s:I, s:I, s:I, s:I}", "cell_size",
                     f->cell_size, "mem_fraction_static",
                     f->mem_fraction_static, "available_bytes",
                     (json_int_t)f->available_bytes, "max_total_num_tokens",
                     (json_int_t)f->max_total_num_tokens,
                     "max_running_requests",
                     (json_int_t)f->max_running_requests,
                     "swa_max_total_num_tokens",
                     (json_int_t)f->swa_max_total_num_tokens);
}

json_t *kvplan__doc_version_compare(const kvplan_version_comparison *c)
{
    json_t *rules = json_array();
    for (size_t i = 0; rules != NULL && i < c->num_rules; i++) {
        const kvplan_rule_delta *d = &c->rules[i];
        const kvplan_rule_info *r = &d->rule;
        json_t *alone = figures_json(&d->alone);
        if (alone != NULL && d->alone.status == KVPLAN_OK &&
            c->plan.status == KVPLAN_OK)
            json_object_set_new(
                alone, "tokens_change",
                json_integer((json_int_t)(d->alone.max_total_num_tokens -
                                          c->plan.max_total_num_tokens)));
        json_array_append_new(
            rules, json_pack("{s:s, s:s, s:s, s:s, s:b, s:o*}", "rule", r->name,
                             "in", d->in_plan ? "plan" : "compared", "source",
                             r->source, "summary", r->summary, "exact",
                             r->exact, "switched_alone", alone));
    }
    return json_pack("{s:s, s:s, s:o*, s:o*, s:o*}", "profile",
                     kvplan_sglang_profile_name(c->profile), "compared",
                     kvplan_sglang_profile_name(c->compared), "plan",
                     figures_json(&c->plan), "compared_plan",
                     figures_json(&c->compared_plan), "rules", rules);
}
