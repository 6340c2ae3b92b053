/*
 * doc_versions.c: the sglang version a plan follows, in its document, and
 * --compare-version's comparison (kvplan_version_compare): each rule that
 * differs, with what it alone changes (docs/versions.md).
 */
#include "json/doc.h"

void kvplan__doc_version(kvplan__writer *w, const char *key,
                         const kvplan_plan *p)
{
    kvplan__w_object(w, key);
    kvplan__w_str(w, "profile", kvplan_sglang_profile_name(p->sglang_version));
    kvplan__w_bool(w, "exact",
                   kvplan_sglang_profile_exact(p->sglang_version) &&
                       !(p->rules & ~kvplan_sglang_rules(p->sglang_version)));
    kvplan__w_rules(w, "rules", p->rules, kvplan_rule_at);
    kvplan__w_end(w);
}

void kvplan__w_rules(kvplan__writer *w, const char *key, uint64_t bits,
                     bool (*at)(size_t, kvplan_rule_info *))
{
    kvplan__w_array(w, key);
    kvplan_rule_info r;
    for (size_t i = 0; at(i, &r); i++)
        if (bits & r.bit)
            kvplan__w_str(w, NULL, r.name);
    kvplan__w_end(w);
}

/* A plan's figures; `tokens_change` against the plan's, when given. */
static void figures_json(kvplan__writer *w, const char *key,
                         const kvplan_version_figures *f,
                         const kvplan_version_figures *against)
{
    kvplan__w_object(w, key);
    if (f->status != KVPLAN_OK) {
        kvplan__w_str(w, "error", f->error);
        kvplan__w_end(w);
        return;
    }
    kvplan__w_real(w, "cell_size", f->cell_size);
    kvplan__w_real(w, "mem_fraction_static", f->mem_fraction_static);
    kvplan__w_int(w, "available_bytes", f->available_bytes);
    kvplan__w_int(w, "max_total_num_tokens", f->max_total_num_tokens);
    kvplan__w_int(w, "max_running_requests", f->max_running_requests);
    kvplan__w_int(w, "swa_max_total_num_tokens", f->swa_max_total_num_tokens);
    if (against != NULL && against->status == KVPLAN_OK)
        kvplan__w_int(w, "tokens_change",
                      f->max_total_num_tokens - against->max_total_num_tokens);
    kvplan__w_end(w);
}

void kvplan__doc_version_compare(kvplan__writer *w, const char *key,
                                 const kvplan_version_comparison *c)
{
    kvplan__w_object(w, key);
    kvplan__w_str(w, "profile", kvplan_sglang_profile_name(c->profile));
    kvplan__w_str(w, "compared", kvplan_sglang_profile_name(c->compared));
    figures_json(w, "plan", &c->plan, NULL);
    figures_json(w, "compared_plan", &c->compared_plan, NULL);
    kvplan__w_array(w, "rules");
    for (size_t i = 0; i < c->num_rules; i++) {
        const kvplan_rule_delta *d = &c->rules[i];
        const kvplan_rule_info *r = &d->rule;
        kvplan__w_object(w, NULL);
        kvplan__w_str(w, "rule", r->name);
        kvplan__w_str(w, "in", d->in_plan ? "plan" : "compared");
        kvplan__w_str(w, "source", r->source);
        kvplan__w_str(w, "summary", r->summary);
        kvplan__w_bool(w, "exact", r->exact);
        figures_json(w, "switched_alone", &d->alone, &c->plan);
        kvplan__w_end(w);
    }
    kvplan__w_end(w);
    kvplan__w_end(w);
}
