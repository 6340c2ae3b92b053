/*
 * versions.c: --sglang-version and --compare-version in the report: which
 * sglang the plan follows, and against another version each rule that
 * differs with what it alone changes (the plan planned again with that
 * one rule switched) and what the two versions' plans are
 * (docs/versions.md).
 */
#include "versions.h"

#include "jsonout.h"

#include <stdlib.h>
#include <string.h>

json_t *cli_version_json(const kvplan_plan *p)
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

/* What a comparison reports of one plan. */
typedef struct figures {
    bool ok;
    char error[200];
    double cell, fraction;
    int64_t available, tokens, requests, swa;
} figures;

static figures plan_figures(const kvplan_model *m, const kvplan_plan_options *o,
                            kvplan_plan *p)
{
    figures f = {.ok = false};
    kvplan_error err;
    if (kvplan_plan_compute(m, o, p, &err) != KVPLAN_OK) {
        snprintf(f.error, sizeof f.error, "%.190s", err.message);
        return f;
    }
    const kvplan_stage_plan *sp = &p->stages[p->binding_stage];
    f.ok = true;
    f.cell = sp->configurator.kind == KVPLAN_CONFIGURATOR_DSV4
                 ? sp->configurator.bytes_per_full_token
                 : sp->configurator.cell_size;
    f.fraction = p->budget.mem_fraction_static;
    f.available = sp->available_bytes;
    f.tokens = p->max_total_num_tokens;
    f.requests = p->max_running_requests;
    f.swa = sp->pools.swa_max_total_num_tokens.set
                ? sp->pools.swa_max_total_num_tokens.value
                : 0;
    return f;
}

static json_t *figures_json(const figures *f)
{
    if (!f->ok)
        return json_pack("{s:s}", "error", f->error);
    return json_pack("{s:f, s:f, s:I, s:I, s:I, s:I}", "cell_size", f->cell,
                     "mem_fraction_static", f->fraction, "available_bytes",
                     (json_int_t)f->available, "max_total_num_tokens",
                     (json_int_t)f->tokens, "max_running_requests",
                     (json_int_t)f->requests, "swa_max_total_num_tokens",
                     (json_int_t)f->swa);
}

/* The comparison's figures: [0] the plan's version, [1] the other, and
 * for each rule that differs the plan's version with that rule switched.
 * The caller frees *rows. */
typedef struct comparison {
    figures base, other;
    size_t n;
    kvplan_rule_info rule[64];
    figures alone[64];
} comparison;

static comparison *compare(const cli_args *cli, const kvplan_model *model,
                           const kvplan_plan *plan)
{
    comparison *c = calloc(1, sizeof *c);
    kvplan_plan *p = malloc(sizeof *p);
    if (c == NULL || p == NULL) {
        free(c);
        free(p);
        return NULL;
    }
    kvplan_plan_options o = cli->o.plan;
    c->base = plan_figures(model, &o, p);
    o.sglang_version = cli->o.compare_version;
    c->other = plan_figures(model, &o, p);
    uint64_t diff = kvplan_sglang_rules(cli->o.plan.sglang_version) ^
                    kvplan_sglang_rules(cli->o.compare_version);
    o.sglang_version = cli->o.plan.sglang_version;
    kvplan_rule_info r;
    for (size_t i = 0; kvplan_rule_at(i, &r) && c->n < 64; i++)
        if (diff & r.bit) {
            o.sglang_rules_flip = r.bit;
            c->rule[c->n] = r;
            c->alone[c->n++] = plan_figures(model, &o, p);
        }
    (void)plan;
    free(p);
    return c;
}

json_t *cli_compare_json(const cli_args *cli, const kvplan_model *model,
                         const kvplan_plan *plan)
{
    comparison *c = compare(cli, model, plan);
    if (c == NULL)
        return NULL;
    uint64_t mine = kvplan_sglang_rules(cli->o.plan.sglang_version);
    json_t *rules = json_array();
    for (size_t i = 0; rules != NULL && i < c->n; i++) {
        const kvplan_rule_info *r = &c->rule[i];
        json_t *alone = figures_json(&c->alone[i]);
        if (alone != NULL && c->alone[i].ok && c->base.ok)
            json_object_set_new(alone, "tokens_change",
                                json_integer((json_int_t)(c->alone[i].tokens -
                                                          c->base.tokens)));
        json_array_append_new(
            rules, json_pack("{s:s, s:s, s:s, s:s, s:b, s:o*}", "rule", r->name,
                             "in", (mine & r->bit) ? "plan" : "compared",
                             "source", r->source, "summary", r->summary,
                             "exact", r->exact, "switched_alone", alone));
    }
    json_t *o =
        json_pack("{s:s, s:s, s:o*, s:o*, s:o*}", "profile",
                  kvplan_sglang_profile_name(cli->o.plan.sglang_version),
                  "compared", kvplan_sglang_profile_name(cli->o.compare_version),
                  "plan", figures_json(&c->base), "compared_plan",
                  figures_json(&c->other), "rules", rules);
    free(c);
    return o;
}

static void figures_text(FILE *out, const char *who, const figures *f)
{
    if (!f->ok) {
        fprintf(out, "  %-14s does not start: %s\n", who, f->error);
        return;
    }
    fprintf(out,
            "  %-14s cell %.10g B/token, mem_fraction_static %.4g, "
            "available %.2f GiB, max_total_num_tokens %lld, "
            "max_running_requests %lld\n",
            who, f->cell, f->fraction, (double)f->available / 1073741824.0,
            (long long)f->tokens, (long long)f->requests);
}

int cli_compare_text(FILE *out, const cli_args *cli, const kvplan_model *model,
                     const kvplan_plan *plan)
{
    comparison *c = compare(cli, model, plan);
    if (c == NULL)
        return -1;
    const char *a = kvplan_sglang_profile_name(cli->o.plan.sglang_version);
    const char *b = kvplan_sglang_profile_name(cli->o.compare_version);
    uint64_t mine = kvplan_sglang_rules(cli->o.plan.sglang_version);
    fprintf(out,
            "\nsglang %s against %s: %zu rule%s differ (- %s's, switched "
            "off alone; + %s's, switched on alone)\n",
            a, b, c->n, c->n == 1 ? "" : "s", a, b);
    figures_text(out, a, &c->base);
    figures_text(out, b, &c->other);
    char idle[1024] = "";
    size_t used = 0;
    for (size_t i = 0; i < c->n; i++) {
        const kvplan_rule_info *r = &c->rule[i];
        const figures *f = &c->alone[i];
        if (f->ok && c->base.ok && f->cell == c->base.cell &&
            f->fraction == c->base.fraction && f->tokens == c->base.tokens &&
            f->available == c->base.available &&
            f->requests == c->base.requests) {
            if (used < sizeof idle)
                used += (size_t)snprintf(idle + used, sizeof idle - used,
                                         "%s%s", used ? ", " : "", r->name);
            continue;
        }
        fprintf(out, "  %s %-22s (%s; %s) %s\n", (mine & r->bit) ? "-" : "+",
                r->name, (mine & r->bit) ? a : b,
                r->exact ? "exact" : "approximate", r->source);
        fprintf(out, "      %s\n", r->summary);
        if (!f->ok)
            fprintf(out, "      alone: does not start: %s\n", f->error);
        else if (c->base.ok)
            fprintf(out,
                    "      alone: cell %.10g -> %.10g, fraction %.4g -> %.4g, "
                    "tokens %lld -> %lld (%+lld)\n",
                    c->base.cell, f->cell, c->base.fraction, f->fraction,
                    (long long)c->base.tokens, (long long)f->tokens,
                    (long long)(f->tokens - c->base.tokens));
    }
    if (used > 0)
        fprintf(out, "  no effect on this plan: %s\n", idle);
    free(c);
    return 0;
}
