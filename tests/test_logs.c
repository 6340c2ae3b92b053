/*
 * test_logs.c: real sglang start-up logs (tests/logs, from public sources)
 * replayed through the budget: the log's GPU (from tests/logs/cases.tsv),
 * TP and mem_fraction_static, no --available-bytes. On the idle-GPU logs
 * kvplan's max_total_num_tokens is within 1 % of the logged count; the
 * others are reported. Prints the error per log.
 *
 *   test_logs LOGS_DIR
 */
#include "check.h"
#include "kvplan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The text after `key` in `text`, or NULL. */
static const char *after(const char *text, const char *key)
{
    const char *p = strstr(text, key);
    return p ? p + strlen(key) : NULL;
}

typedef struct logged {
    double fraction;      /* server_args mem_fraction_static */
    long long tp;         /* server_args tp_size */
    long long tokens;     /* "#tokens: N", else max_total_num_tokens=N */
    double free_before;   /* the least "Load weight begin. avail mem=" */
} logged;

static bool read_log(const char *path, logged *out)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return false;
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *x;
    memset(out, 0, sizeof *out);
    out->tp = 1;
    if ((x = after(text, "mem_fraction_static=")) != NULL)
        out->fraction = strtod(x, NULL);
    if ((x = after(text, "tp_size=")) != NULL)
        out->tp = strtoll(x, NULL, 10);
    if ((x = after(text, "#tokens: ")) != NULL ||
        (x = after(text, "max_total_num_tokens=")) != NULL)
        out->tokens = strtoll(x, NULL, 10);
    out->free_before = 1e30;
    for (x = text; (x = after(x, "Load weight begin. avail mem=")) != NULL;)
        out->free_before = fmin(out->free_before, strtod(x, NULL));
    return out->fraction > 0 && out->tokens > 0;
}

static long long plan_tokens(const char *model, const kvplan_gpu *gpu,
                             const logged *lg)
{
    kvplan_model *m = NULL;
    kvplan_error err;
    if (kvplan_model_load(model, &m, &err) != KVPLAN_OK) {
        CHECK_FAIL_("%s: %s", model, err.message);
        return -1;
    }
    kvplan_plan_options o;
    kvplan_plan_options_init(&o);
    o.gpu = *gpu;
    o.gpu_set = true;
    o.server.tp_size = lg->tp;
    o.mem_fraction_static = (kvplan_opt_double){lg->fraction, true};
    kvplan_plan *p = malloc(sizeof *p);
    long long t = -1;
    if (p != NULL && kvplan_plan_compute(m, &o, p, &err) == KVPLAN_OK)
        t = (long long)p->max_total_num_tokens;
    else
        CHECK_FAIL_("%s: %s", model, err.message);
    free(p);
    kvplan_model_free(m);
    return t;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_logs LOGS_DIR\n");
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/cases.tsv", argv[1]);
    FILE *cases = fopen(path, "r");
    CHECK(cases != NULL);
    if (cases == NULL)
        return check_report();
    char line[1024];
    int held = 0;
    while (fgets(line, sizeof line, cases) != NULL) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        char log[256], model[256], gpu_name[64], check[16];
        if (sscanf(line, "%255s %255s %63s %15s", log, model, gpu_name,
                   check) != 4) {
            CHECK_FAIL_("cases.tsv: bad line '%s'", line);
            continue;
        }
        logged lg;
        snprintf(path, sizeof path, "%s/%s", argv[1], log);
        if (!read_log(path, &lg)) {
            CHECK_FAIL_("%s: no mem_fraction_static or token count", log);
            continue;
        }
        if (strcmp(model, "-") == 0) {
            printf("%-40s logged %9lld tokens; not replayed (docs/budget.md)\n",
                   log, lg.tokens);
            continue;
        }
        char model_path[4096];
        if (strncmp(model, "models/", 7) == 0)
            snprintf(model_path, sizeof model_path, "%s/%s", argv[1], model);
        else
            snprintf(model_path, sizeof model_path, "%s", model);
        kvplan_gpu gpu;
        if (strcmp(gpu_name, "-") == 0) {
            /* an unknown, busy GPU: an idle one whose free memory is what
             * the log saw free (the NVIDIA context added back) */
            kvplan_gpu_preset(KVPLAN_DEFAULT_GPU, &gpu);
            gpu.total_mib = (lg.free_before + 0.95) * 1024;
            snprintf(gpu.name, sizeof gpu.name, "custom");
        } else {
            CHECK(kvplan_gpu_preset(gpu_name, &gpu));
        }
        long long got = plan_tokens(model_path, &gpu, &lg);
        double error = 100.0 * (double)(got - lg.tokens) / (double)lg.tokens;
        printf("%-40s logged %9lld tokens, kvplan %9lld: %+6.2f %%%s\n", log,
               lg.tokens, got, error,
               strcmp(check, "1%") == 0 ? "" : " (reported, docs/budget.md)");
        if (strcmp(check, "1%") == 0) {
            held++;
            if (!(fabs(error) < 1.0))
                CHECK_FAIL_("%s: %+.2f %% from the logged %lld tokens", log,
                            error, lg.tokens);
            else
                check_passed_++;
        }
    }
    fclose(cases);
    CHECK_INT(held, 5);
    /* Kimi-K2.5's mem_fraction_static was sglang's rule: kvplan's rule
     * gives the same value, vision tower (vt_ keys) included */
    kvplan_model *m = NULL;
    kvplan_error err;
    CHECK_INT(kvplan_model_load("kimi-k2.5", &m, &err), KVPLAN_OK);
    kvplan_plan_options o;
    kvplan_plan_options_init(&o);
    CHECK(kvplan_gpu_preset("MI355X", &o.gpu));
    o.gpu_set = true;
    o.server.tp_size = 8;
    kvplan_plan *p = malloc(sizeof *p);
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_OK);
    CHECK_DOUBLE(p->budget.mem_fraction_static, 0.8260405859375);
    CHECK_STR(p->attention_backend, "triton"); /* MLA, 8 heads per rank */
    free(p);
    kvplan_model_free(m);
    return check_report();
}
