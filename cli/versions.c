/*
 * versions.c: --compare-version in the text report: against another
 * sglang version, each rule that differs with what it alone changes
 * (kvplan_version_compare: the plan planned again with that one rule
 * switched) and what the two versions' plans are (docs/versions.md).
 */
#include "versions.h"

#include <stdlib.h>
#include <string.h>

/* The comparison of the plan's options against --compare-version (the
 * caller frees it); NULL out of memory. */
static kvplan_version_comparison *compare(const cli_args *cli,
                                          const kvplan_model *model)
{
    kvplan_version_comparison *c = malloc(sizeof *c);
    kvplan_plan *p = malloc(sizeof *p);
    if (c != NULL && p != NULL &&
        kvplan_version_compare(model, &cli->o.plan, cli->o.compare_version, p,
                               c, NULL) != KVPLAN_OK) {
        free(c);
        c = NULL;
    }
    free(p);
    return c;
}

static void figures_text(FILE *out, const char *who,
                         const kvplan_version_figures *f)
{
    if (f->status != KVPLAN_OK) {
        fprintf(out, "  %-14s does not start: %s\n", who, f->error);
        return;
    }
    fprintf(out,
            "  %-14s cell %.10g B/token, mem_fraction_static %.4g, "
            "available %.2f GiB, max_total_num_tokens %lld, "
            "max_running_requests %lld\n",
            who, f->cell_size, f->mem_fraction_static,
            (double)f->available_bytes / 1073741824.0,
            (long long)f->max_total_num_tokens,
            (long long)f->max_running_requests);
}

int cli_compare_text(FILE *out, const cli_args *cli, const kvplan_model *model,
                     const kvplan_plan *plan)
{
    (void)plan;
    kvplan_version_comparison *c = compare(cli, model);
    if (c == NULL)
        return -1;
    const char *a = kvplan_sglang_profile_name(c->profile);
    const char *b = kvplan_sglang_profile_name(c->compared);
    fprintf(out,
            "\nsglang %s against %s: %zu rule%s differ (- %s's, switched "
            "off alone; + %s's, switched on alone)\n",
            a, b, c->num_rules, c->num_rules == 1 ? "" : "s", a, b);
    figures_text(out, a, &c->plan);
    figures_text(out, b, &c->compared_plan);
    char idle[1024] = "";
    size_t used = 0;
    for (size_t i = 0; i < c->num_rules; i++) {
        const kvplan_rule_delta *d = &c->rules[i];
        const kvplan_rule_info *r = &d->rule;
        const kvplan_version_figures *f = &d->alone;
        if (!d->changes) {
            if (used < sizeof idle)
                used += (size_t)snprintf(idle + used, sizeof idle - used,
                                         "%s%s", used ? ", " : "", r->name);
            continue;
        }
        fprintf(out, "  %s %-22s (%s; %s) %s\n", d->in_plan ? "-" : "+",
                r->name, d->in_plan ? a : b, r->exact ? "exact" : "approximate",
                r->source);
        fprintf(out, "      %s\n", r->summary);
        if (f->status != KVPLAN_OK)
            fprintf(out, "      alone: does not start: %s\n", f->error);
        else if (c->plan.status == KVPLAN_OK)
            fprintf(out,
                    "      alone: cell %.10g -> %.10g, fraction %.4g -> %.4g, "
                    "tokens %lld -> %lld (%+lld)\n",
                    c->plan.cell_size, f->cell_size,
                    c->plan.mem_fraction_static, f->mem_fraction_static,
                    (long long)c->plan.max_total_num_tokens,
                    (long long)f->max_total_num_tokens,
                    (long long)(f->max_total_num_tokens -
                                c->plan.max_total_num_tokens));
    }
    if (used > 0)
        fprintf(out, "  no effect on this plan: %s\n", idle);
    free(c);
    return 0;
}
