/*
 * fuzz_flags.c: a command line, hostile (arguments separated by newlines),
 * through the flag parser and, when it parses, a whole plan of a catalog
 * model and both reports, the capacity's calls with usage and a request
 * drawn from the input, the plan updated to another GPU and fraction, and
 * for some inputs fit and solve.
 */
#include "flags.h"
#include "json/doc.h"
#include "report.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const models[] = {"llama-3.1-8b-instruct",
                                     "deepseek-v3.2",
                                     "gpt-oss-120b",
                                     "deepseek-v4-flash",
                                     "qwen3-next-80b-a3b-thinking",
                                     "mimo-v2-flash",
                                     "deepseek-v3",
                                     "gemma-4-26b-a4b"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* one model per run of the harness, loaded once */
    static kvplan_model *loaded[sizeof models / sizeof models[0]];
    size_t which = size > 0 ? data[0] % (sizeof models / sizeof models[0]) : 0;
    kvplan_error err;
    if (loaded[which] == NULL &&
        kvplan_model_load(models[which], &loaded[which], &err) != KVPLAN_OK)
        return 0;
    char *text = malloc(size + 1);
    char *argv[66];
    int argc = 0;
    if (text == NULL)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    argv[argc++] = "kvplan";
    for (char *p = size > 0 ? text + 1 : text; argc < 65;) {
        argv[argc++] = p;
        char *nl = strchr(p, '\n');
        if (nl == NULL)
            break;
        *nl = '\0';
        p = nl + 1;
    }
    argv[argc] = NULL;
    cli_args *cli = malloc(sizeof *cli);
    kvplan_plan *plan = malloc(sizeof *plan);
    if (cli != NULL && plan != NULL &&
        cli_parse(argc, argv, 1, NULL, cli, &err) == KVPLAN_OK) {
        cli->o.gpu_auto = false; /* no driver to probe in a fuzzer */
        cli->o.plan.server.speculative_draft_model = NULL;
        if (cli_resolve_gpu(cli, &err) == KVPLAN_OK &&
            kvplan_plan_compute(loaded[which], &cli->o.plan, plan, &err) ==
                KVPLAN_OK) {
            FILE *sink = fopen("/dev/null", "w");
            if (sink != NULL) {
                cli_report_text(sink, cli, loaded[which], plan);
                kvplan__writer w = {0};
                cli_report_json(&w, NULL, cli, loaded[which], plan);
                kvplan__w_print(&w, sink, true);
                fclose(sink);
            }
            /* the capacity's calls on figures from the input's tail */
            int64_t v[KVPLAN_MAX_POOLS + 3] = {0};
            for (size_t i = 0; i < sizeof v / sizeof v[0] && size > 9 * i + 9;
                 i++)
                memcpy(&v[i], data + size - 8 * (i + 1), 8);
            kvplan_usage u = {.running_requests = v[0]};
            memcpy(u.used, v + 3, sizeof u.used);
            kvplan_admission a;
            kvplan_admit(&plan->capacity, &u, v[1], v[2], &a, &err);
            kvplan_request_cost(&plan->capacity, v[1] & 0xffffff, v[2] & 0xffff,
                                a.cost, &err);
            /* a sweep's next row, on another GPU and fraction */
            kvplan_plan *next = malloc(sizeof *next);
            kvplan_plan_options o = cli->o.plan;
            if (next != NULL &&
                kvplan_gpu_preset_at((size_t)v[1] % 16, &o.gpu)) {
                o.gpu_set = true;
                o.mem_fraction_static = (kvplan_opt_double){
                    0.5 + (double)(v[2] & 0xff) / 600, true};
                kvplan_plan_update(loaded[which], &o, &cli->o.plan, plan, next,
                                   &err);
            }
            free(next);
            if (data[0] % 16 == 1) {
                int64_t len;
                kvplan_fit_context(loaded[which], &cli->o.plan,
                                   1 + (v[1] & 1023), plan, &len, &err);
            } else if (data[0] % 16 == 2) {
                kvplan_solution sol;
                kvplan_target t = {.concurrency = 1 + (v[1] & 255)};
                kvplan_solve(loaded[which], &cli->o.plan,
                             (kvplan_knob)(1 + (uint64_t)v[2] % 6), &t, plan,
                             &sol, &err);
            }
        }
    }
    free(plan);
    free(cli);
    free(text);
    return 0;
}
