/*
 * cmd_search.c: the questions, each answered with the plan it names:
 *
 *   kvplan fit --concurrency N [plan flags]     the longest --context-length
 *                                               at which N requests fit
 *   kvplan fit --context-length L [plan flags]  the most requests of L
 *   kvplan solve (--target-tokens T | --target-concurrency N)
 *                [--solve-for KNOB] [plan flags]
 *                                               the smallest knob value
 *
 * The plan printed with an answer is the one `kvplan --FLAG VALUE` prints
 * for it: the answer is written into the options before the report.
 */
#include "cli.h"
#include "flags.h"
#include "json/doc.h"
#include "report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the commands share: argv parsed past their own flags, the model
 * loaded, a plan to work in. */
typedef struct session {
    const char *who;
    cli_args *cli;
    kvplan_plan *plan;
    kvplan_model *model, *draft;
    bool json;
    kvplan_error err;
} session;

/* Returns 0 when ready (or -1 after --help), else the exit status. */
static int open_session(session *s, int argc, char **argv, const char *question,
                        int (*help)(FILE *))
{
    s->json = cli_wants_json(argc, argv);
    s->cli = malloc(sizeof *s->cli);
    s->plan = malloc(sizeof *s->plan);
    if (s->cli == NULL || s->plan == NULL) {
        fprintf(stderr, "%s: out of memory\n", s->who);
        return CLI_EXIT_INTERNAL;
    }
    if (cli_parse(argc, argv, 2, question, s->cli, &s->err) != KVPLAN_OK)
        return cli_error(s->who, &s->err, CLI_EXIT_USAGE, s->json);
    if (s->cli->help)
        return help(stdout) == 0 && fflush(stdout) == 0 ? -1
                                                        : CLI_EXIT_INTERNAL;
    if (cli_load(s->cli, &s->model, &s->draft, &s->err) != KVPLAN_OK)
        return cli_error(s->who, &s->err, cli_exit_for(s->err.code), s->json);
    return 0;
}

static void close_session(session *s)
{
    kvplan_model_free(s->model);
    kvplan_model_free(s->draft);
    free(s->plan);
    free(s->cli);
}

/* The answer's head and the plan at it: text, or one JSON object with
 * the plan under "plan". */
static int answer(session *s, kvplan__writer *head, const char *line)
{
    int rc = CLI_EXIT_OK;
    if (!s->json) {
        kvplan__w_free(head);
        fprintf(stdout, "%s\n\n", line);
        return cli_report(s->cli, s->model, s->plan);
    }
    rc = cli_write_svg(s->cli, s->model, s->plan);
    cli_warnings(s->cli, s->plan);
    cli_report_json(head, "plan", s->cli, s->model, s->plan);
    kvplan__w_end(head);
    if (kvplan__w_print(head, stdout, true) != 0)
        rc = CLI_EXIT_INTERNAL;
    return fflush(stdout) != 0 ? CLI_EXIT_INTERNAL : rc;
}

/* ---- fit ----------------------------------------------------------------- */

static int fit_help(FILE *out)
{
    fputs("usage: kvplan fit --concurrency N [plan flags] [--json]\n"
          "       kvplan fit --context-length L [plan flags] [--json]\n"
          "\n"
          "With --concurrency: the longest --context-length at which N "
          "requests of\nthat length run at once (up to --context-length, "
          "or the model's). With\n--context-length alone: how many "
          "requests of that length run at once,\nand what binds it. The "
          "plan printed is `kvplan --context-length L`'s.\nPlan flags: "
          "kvplan --help.\n",
          out);
    return ferror(out) ? -1 : 0;
}

int cli_cmd_fit(int argc, char **argv)
{
    session s = {.who = "kvplan fit"};
    int rc = open_session(&s, argc, argv, "fit", fit_help);
    if (rc != 0) {
        close_session(&s);
        return rc < 0 ? CLI_EXIT_OK : rc;
    }
    kvplan_plan_options *o = &s.cli->o.plan;
    char line[256];
    kvplan__writer head = {0};
    kvplan_status st;
    if (s.cli->o.concurrency.set) {
        int64_t n = s.cli->o.concurrency.value, len = 0;
        if ((st = kvplan_fit_context(s.model, o, n, s.plan, &len, &s.err)) !=
            KVPLAN_OK) {
            rc = cli_plan_failed(s.who, st, &s.err, s.json);
        } else {
            /* the report is the forward plan's: --context-length L */
            o->server.context_length = (kvplan_opt_int){len, true};
            const kvplan_capacity *c = &s.plan->capacity;
            snprintf(line, sizeof line,
                     "kvplan fit: %lld requests fit up to --context-length "
                     "%lld (%lld at that length; %s binds)",
                     (long long)n, (long long)len,
                     (long long)c->max_concurrency_at_context_len,
                     kvplan__binding_name(c, c->binding, c->binding_pool));
            kvplan__w_object(&head, NULL);
            kvplan__doc_fit_head(&head, n, s.plan);
            rc = answer(&s, &head, line);
        }
    } else if (!o->server.context_length.set) {
        cli_usage_error(&s.err, "--concurrency",
                        "it needs --concurrency N (the longest "
                        "context for N requests) or --context-length L (the "
                        "most requests of L tokens)");
        rc = cli_error(s.who, &s.err, CLI_EXIT_USAGE, s.json);
    } else if ((st = kvplan_plan_compute(s.model, o, s.plan, &s.err)) !=
               KVPLAN_OK) {
        rc = cli_plan_failed(s.who, st, &s.err, s.json);
    } else {
        const kvplan_capacity *c = &s.plan->capacity;
        snprintf(line, sizeof line,
                 "kvplan fit: %lld requests of --context-length %lld run at "
                 "once (%s binds)",
                 (long long)c->max_concurrency_at_context_len,
                 (long long)s.plan->context_len,
                 kvplan__binding_name(c, c->binding, c->binding_pool));
        kvplan__w_object(&head, NULL);
        kvplan__doc_fit_head(&head, 0, s.plan);
        rc = answer(&s, &head, line);
        if (rc == CLI_EXIT_OK && c->max_concurrency_at_context_len == 0)
            rc = CLI_EXIT_DOES_NOT_FIT; /* not one request of L fits */
    }
    close_session(&s);
    return rc;
}

/* ---- solve --------------------------------------------------------------- */

static int solve_help(FILE *out)
{
    fputs("usage: kvplan solve (--target-tokens T | --target-concurrency N "
          "[--context-length L])\n"
          "                    [--solve-for KNOB] [plan flags] [--json]\n"
          "\n"
          "The smallest value of one knob at which the plan reaches the "
          "target:\nmax_total_num_tokens >= T, or N requests of "
          "context_len at once. KNOB:\n"
          "  mem-fraction-static    (default) to 1e-6\n"
          "  tp-size                1, 2, 4, ... 64\n"
          "  gpu                    the presets, least memory first\n"
          "  max-running-requests\n"
          "  swa-full-tokens-ratio  to 1e-6\n"
          "  kv-cache-dtype         the widest: auto, bf16, fp8_e4m3, "
          "fp8_e5m2, fp4_e2m1\n"
          "Exit 1 when no value reaches it, with the best figure reached. "
          "Plan flags:\nkvplan --help.\n",
          out);
    return ferror(out) ? -1 : 0;
}

static const char *kv_flag_name(kvplan_kv_cache_dtype_flag f)
{
    return kvplan_word_name(KVPLAN_WORDS_KV_CACHE_DTYPE, (int)f);
}

int cli_cmd_solve(int argc, char **argv)
{
    session s = {.who = "kvplan solve"};
    int rc = open_session(&s, argc, argv, "solve", solve_help);
    if (rc != 0) {
        close_session(&s);
        return rc < 0 ? CLI_EXIT_OK : rc;
    }
    kvplan_plan_options *o = &s.cli->o.plan;
    kvplan_target t = {0};
    kvplan_knob knob = s.cli->o.solve_for;
    kvplan_error *e = &s.err;
    if (s.cli->o.target_tokens.set == s.cli->o.target_concurrency.set) {
        cli_usage_error(e, "--target-tokens",
                        "kvplan solve needs one target: --target-tokens T or "
                        "--target-concurrency N");
        rc = cli_error(s.who, e, CLI_EXIT_USAGE, s.json);
    }
    t.tokens = s.cli->o.target_tokens.value;
    t.concurrency = s.cli->o.target_concurrency.value;
    if (rc != 0) {
        close_session(&s);
        return rc;
    }
    kvplan_solution sol;
    kvplan_status st = kvplan_solve(s.model, o, knob, &t, s.plan, &sol, e);
    char what[80], value[80], line[320];
    if (t.tokens > 0)
        snprintf(what, sizeof what, "%lld tokens", (long long)t.tokens);
    else
        snprintf(what, sizeof what, "%lld requests at once",
                 (long long)t.concurrency);
    if (st == KVPLAN_NOT_ENOUGH_MEMORY && !sol.found) {
        if (!s.json) {
            fprintf(stderr, "%s: %s\n", s.who, e->message);
            rc = CLI_EXIT_DOES_NOT_FIT;
        } else {
            kvplan__writer w = {0};
            kvplan__doc_solve_none(&w, e, &sol);
            rc = kvplan__w_print(&w, stdout, true) != 0 ? CLI_EXIT_INTERNAL
                                                        : CLI_EXIT_DOES_NOT_FIT;
        }
        close_session(&s);
        return rc;
    }
    if (st != KVPLAN_OK) {
        rc = cli_plan_failed(s.who, st, e, s.json);
        close_session(&s);
        return rc;
    }
    /* the answer into the options: the report is the forward plan's */
    kvplan__solution_apply(&s.cli->o, knob, &sol);
    switch (knob) {
    case KVPLAN_KNOB_MEM_FRACTION_STATIC:
    case KVPLAN_KNOB_SWA_FULL_TOKENS_RATIO:
        snprintf(value, sizeof value, "%.6f", sol.value);
        break;
    case KVPLAN_KNOB_TP_SIZE:
    case KVPLAN_KNOB_MAX_RUNNING_REQUESTS:
        snprintf(value, sizeof value, "%lld", (long long)sol.value);
        break;
    case KVPLAN_KNOB_GPU:
        snprintf(value, sizeof value, "%s", sol.gpu.name);
        break;
    case KVPLAN_KNOB_KV_CACHE_DTYPE:
        snprintf(value, sizeof value, "%s", kv_flag_name(sol.kv_cache_dtype));
        break;
    }
    snprintf(line, sizeof line,
             "kvplan solve: --%s %s reaches %s (%lld; %lld plans searched)",
             kvplan_knob_name(knob), value, what, (long long)sol.figure,
             (long long)sol.plans);
    kvplan__writer head = {0};
    kvplan__w_object(&head, NULL);
    kvplan__doc_solve_head(&head, knob, &sol, &t, s.plan);
    rc = answer(&s, &head, line);
    close_session(&s);
    return rc;
}
