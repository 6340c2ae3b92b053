/*
 * test_census.c: kvplan_model_parameters against transformers' own model
 * classes. tests/data/reference/transformers-census.jsonl counts the
 * parameters of each catalog config as transformers 5.17 builds it on the
 * meta device (tests/data/reference/README.md). For every config it
 * covers, kvplan's count is within 0.5 % of it, the LM head is there
 * exactly when the census says the model is untied, and the exceptions
 * are the table below, each with its reason. Where the census built a
 * ...ForCausalLM of a multimodal model (no vision tower in its split),
 * kvplan's text model is compared.
 *
 *   test_census CENSUS.jsonl
 */
#include "check.h"
#include "kvplan.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>

/* The configs kvplan does not count, and why. */
static const struct {
    const char *model;
    kvplan_status status; /* kvplan_model_load's */
    const char *why;
} exceptions[] = {
    {"jamba-tiny-random", KVPLAN_UNSUPPORTED,
     "sglang has no Jamba model class: kvplan refuses the model"},
    {"jamba-v0.1", KVPLAN_UNSUPPORTED,
     "sglang has no Jamba model class: kvplan refuses the model"},
};

static const char *exception_for(const char *model, kvplan_status *status)
{
    for (size_t i = 0; i < sizeof exceptions / sizeof exceptions[0]; i++)
        if (strcmp(exceptions[i].model, model) == 0) {
            *status = exceptions[i].status;
            return exceptions[i].why;
        }
    return NULL;
}

static int64_t member(const json_t *o, const char *key)
{
    return json_integer_value(json_object_get(o, key));
}

/* One census line: 1 when compared, 0 when the census could not build it
 * or the table excepts it. */
static int compare(const json_t *row, double *worst)
{
    const char *name = json_string_value(json_object_get(row, "model"));
    const json_t *split = json_object_get(row, "split");
    CHECK(name != NULL);
    if (name == NULL || json_object_get(row, "error") != NULL)
        return 0; /* custom code, or a type this transformers lacks */
    kvplan_status want = KVPLAN_OK;
    const char *why = exception_for(name, &want);
    kvplan_model *m = NULL;
    kvplan_error err;
    kvplan_status st = kvplan_model_load(name, &m, &err);
    if (why != NULL) {
        CHECK_INT(st, want);
        kvplan_model_free(m);
        printf("  %-40s excepted: %s\n", name, why);
        return 0;
    }
    CHECK_INT(st, KVPLAN_OK);
    if (st != KVPLAN_OK) {
        fprintf(stderr, "  %s: %s\n", name, err.message);
        return 0;
    }
    kvplan_model_params p;
    CHECK_INT(kvplan_model_parameters(m, &p, &err), KVPLAN_OK);
    kvplan_model_free(m);
    int64_t census = member(row, "params");
    /* the census's class built no vision tower: the text model */
    int64_t mine =
        json_object_get(split, "vision") != NULL ? p.total : p.total - p.vision;
    double off = 100.0 * (double)(mine - census) / (double)census;
    printf("  %-40s %16lld %16lld %+7.3f %%\n", name, (long long)mine,
           (long long)census, off);
    if (fabs(off) > 0.5)
        fprintf(stderr, "  %s: %lld parameters, transformers %lld (%+.2f %%)\n",
                name, (long long)mine, (long long)census, off);
    CHECK(fabs(off) <= 0.5);
    /* an LM head of its own exactly where transformers' is untied */
    bool tied = json_is_true(json_object_get(row, "tied"));
    CHECK_INT(p.lm_head == 0, tied);
    if (!tied)
        CHECK_INT(p.lm_head, member(split, "lm_head"));
    /* (Nemotron-H's is "embeddings", a name the census files under
     * "rest") */
    if (json_object_get(split, "embed") != NULL)
        CHECK_INT(p.embed, member(split, "embed"));
    if (fabs(off) > *worst)
        *worst = fabs(off);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_census CENSUS.jsonl\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    CHECK(f != NULL);
    if (f == NULL)
        return check_report();
    char line[4096];
    int compared = 0, lines = 0;
    double worst = 0;
    printf("  %-40s %16s %16s %9s\n", "model", "kvplan", "transformers", "off");
    while (fgets(line, sizeof line, f) != NULL) {
        json_error_t je;
        json_t *row = json_loads(line, 0, &je);
        CHECK(row != NULL);
        if (row == NULL)
            continue;
        lines++;
        compared += compare(row, &worst);
        json_decref(row);
    }
    fclose(f);
    /* 73 lines; 61 built by transformers, 2 of them excepted */
    CHECK_INT(lines, 73);
    CHECK_INT(compared, 59);
    printf("census: %d configs compared, the farthest %.3f %% off\n", compared,
           worst);
    /* kvplan_model_parameters refuses NULLs */
    kvplan_model_params p;
    CHECK_INT(kvplan_model_parameters(NULL, &p, NULL), KVPLAN_INVALID_ARGUMENT);
    return check_report();
}
