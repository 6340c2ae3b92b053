/*
 * cmd_plan.c: the main job, a plan of one server: the flags parsed, the
 * GPU resolved, the model (and its draft) loaded with its weights measured
 * from a model directory, kvplan_plan_compute, then the text or JSON
 * report. And the two listings of what is built in.
 */
#include "calibration.h"
#include "cli.h"
#include "engines.h"
#include "flags.h"
#include "json/doc.h"
#include "launch.h"
#include "options/options.h"
#include "report.h"
#include "versions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The Hub's progress, on a terminal. */
static void on_progress(void *ctx, size_t done, size_t total, const char *file)
{
    const char *repo = ctx;
    fprintf(stderr, "\rkvplan: %s from the Hub: %zu of %zu files (%.60s)%s",
            repo, done, total, file, done == total ? "\n" : "   ");
}

static int fail(const kvplan_error *err, int rc, bool json)
{
    return cli_error("kvplan", err, rc, json);
}

kvplan__doc cli_doc(const cli_args *cli, const kvplan_model *model)
{
    return (kvplan__doc){&cli->o, &cli->loaded, model, {NULL, NULL, NULL}};
}

void cli_report_json(kvplan__writer *w, const char *key, const cli_args *cli,
                     const kvplan_model *model, const kvplan_plan *plan)
{
    kvplan__doc d = cli_doc(cli, model);
    kvplan__doc_plan(w, key, &d, plan, false);
}

void cli_unused_warnings(const cli_args *cli)
{
    char text[320];
    for (size_t i = 0;
         kvplan__options_unused(&cli->o, i, text, sizeof text) != NULL; i++)
        fprintf(stderr, "kvplan: warning: %s\n", text);
}

/* The plan's warnings, and sglang's flags that change memory in ways
 * kvplan does not model, on standard error. */
void cli_warnings(const cli_args *cli, const kvplan_plan *plan)
{
    char probe[240];
    kvplan__doc d = cli_doc(cli, NULL);
    if (kvplan__probe_short(&d, plan, probe, sizeof probe))
        fprintf(stderr, "kvplan: warning: %s\n", probe);
    for (size_t i = 0; i < plan->num_warnings; i++)
        fprintf(stderr, "kvplan: warning: %s\n", plan->warnings[i].message);
    for (size_t i = 0; i < cli->o.internal_.num_bad_env; i++)
        fprintf(stderr,
                "kvplan: warning: %s='%.60s' is not a value of its kind; "
                "sglang warns and takes the default, as kvplan does\n",
                cli->o.internal_.bad_env[i],
                kvplan_options_getenv(&cli->o, cli->o.internal_.bad_env[i]));
    cli_unused_warnings(cli);
    cli_launch_notes(stderr, cli);
    const kvplan_option *g;
    for (size_t i = 0; (g = kvplan__not_read(&cli->o, i)) != NULL; i++)
        if (g->memory != NULL)
            fprintf(stderr,
                    "kvplan: warning: %s is read by sglang, not by kvplan: "
                    "%s\n",
                    g->flag, g->memory);
}

int cli_write_svg(const cli_args *cli, const kvplan_model *model,
                  const kvplan_plan *plan)
{
    if (cli->svg_path == NULL)
        return CLI_EXIT_OK;
    kvplan__doc d = cli_doc(cli, model);
    FILE *f = fopen(cli->svg_path, "w");
    int bad = f == NULL || kvplan__svg_plan(f, &d, plan) != 0;
    if (f != NULL && fclose(f) != 0)
        bad = 1;
    if (!bad)
        return CLI_EXIT_OK;
    fprintf(stderr, "kvplan: --svg: cannot write %s\n", cli->svg_path);
    return CLI_EXIT_INTERNAL;
}

int cli_report(const cli_args *cli, const kvplan_model *model,
               const kvplan_plan *plan)
{
    int rc = cli_write_svg(cli, model, plan);
    cli_warnings(cli, plan);
    if (cli->json) {
        kvplan__writer w = {0};
        cli_report_json(&w, NULL, cli, model, plan);
        if (kvplan__w_print(&w, stdout, true) != 0)
            rc = CLI_EXIT_INTERNAL;
    } else if (cli_report_text(stdout, cli, model, plan) != 0 ||
               (cli->o.internal_.compare_version_text != NULL &&
                cli_compare_text(stdout, cli, model, plan) != 0)) {
        rc = CLI_EXIT_INTERNAL;
    }
    return fflush(stdout) != 0 ? CLI_EXIT_INTERNAL : rc;
}

bool cli_wants_json(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--json") == 0)
            return true;
    return false;
}

kvplan_status cli_load(cli_args *cli, kvplan_model **model,
                       kvplan_model **draft, kvplan_error *err)
{
    *model = *draft = NULL;
    kvplan_options *o = &cli->o;
    char *text = NULL;
    if (o->model_path != NULL && strcmp(o->model_path, "-") == 0) {
        /* --model-path -: config.json's text on standard input */
        size_t len = 0;
        /* the library's cap (32 MiB), one byte past it to be refused */
        text = cli_read_stream(stdin, (32u << 20) + 1, "--model-path",
                               "config.json", &len, err);
        if (text == NULL)
            return err->code;
        o->model_config = text;
        o->model_config_len = len;
    }
    if (fileno(stderr) >= 0 && isatty(fileno(stderr))) {
        o->progress = on_progress;
        o->progress_ctx = (void *)o->model_path;
    }
    kvplan_status st = kvplan_options_load(o, &cli->loaded, err);
    free(text);
    o->model_config = NULL; /* read: the model holds what it needs */
    if (st != KVPLAN_OK)
        return st;
    for (size_t i = 0; i < cli->loaded.num_warnings; i++)
        fprintf(stderr, "kvplan: warning: %s\n", cli->loaded.warnings[i]);
    *model = cli->loaded.model;
    *draft = cli->loaded.draft;
    return KVPLAN_OK;
}

int cli_plan_failed(const char *who, kvplan_status st, const kvplan_error *err,
                    bool json)
{
    /* a value out of range is a usage error */
    return cli_error(who, err,
                     st == KVPLAN_INVALID_ARGUMENT ? CLI_EXIT_USAGE
                                                   : cli_exit_for(err->code),
                     json);
}

int cli_cmd_plan(int argc, char **argv)
{
    cli_args *cli = malloc(sizeof *cli);
    kvplan_plan *plan = malloc(sizeof *plan);
    kvplan_model *model = NULL, *draft = NULL;
    kvplan_error err;
    bool json = cli_wants_json(argc, argv);
    int rc = CLI_EXIT_OK;
    kvplan_status st;
    if (cli == NULL || plan == NULL) {
        fprintf(stderr, "kvplan: out of memory\n");
        rc = CLI_EXIT_INTERNAL;
    } else if ((st = cli_parse(argc, argv, 1, NULL, cli, &err)) != KVPLAN_OK) {
        rc = fail(&err, CLI_EXIT_USAGE, json); /* unknown flag, bad value */
    } else if (cli->help) {
        rc = cli_help(stdout) == 0 && fflush(stdout) == 0 ? CLI_EXIT_OK
                                                          : CLI_EXIT_INTERNAL;
    } else if ((st = cli_load(cli, &model, &draft, &err)) != KVPLAN_OK) {
        rc = fail(&err, cli_exit_for(err.code), json);
    } else if (cli->o.engine != KVPLAN_ENGINE_SGLANG) {
        rc = cli_engine_report(cli, model);
    } else if ((st = kvplan_plan_compute(model, &cli->o.plan, plan, &err)) !=
               KVPLAN_OK) {
        rc = cli_plan_failed("kvplan", st, &err, json);
    } else {
        rc = cli_report(cli, model, plan);
    }
    kvplan_model_free(model);
    kvplan_model_free(draft);
    free(plan);
    free(cli);
    return rc;
}

int cli_cmd_list_gpus(void)
{
    fprintf(stdout, "%-12s %10s  %s\n", "NAME", "TOTAL MiB", "COMPUTE");
    kvplan_gpu g;
    for (size_t i = 0; kvplan_gpu_preset_at(i, &g); i++)
        fprintf(stdout, "%-12s %10.0f  %s\n", g.name, g.total_mib, g.arch);
    return fflush(stdout) == 0 ? CLI_EXIT_OK : CLI_EXIT_INTERNAL;
}

/* The built-in catalog: short name, Hugging Face id, what kvplan makes
 * of it. */
int cli_cmd_list_models(void)
{
    fprintf(stdout, "%-36s %-48s %s\n", "NAME", "HUGGING FACE ID",
            "ARCHITECTURE");
    for (size_t i = 0; kvplan_catalog_name(i) != NULL; i++) {
        kvplan_model *m = NULL;
        kvplan_error err;
        const char *what;
        char buf[160];
        if (kvplan_model_load(kvplan_catalog_name(i), &m, &err) == KVPLAN_OK) {
            const kvplan_model_info *info = kvplan_model_get_info(m);
            snprintf(buf, sizeof buf, "%s%s", info->architecture,
                     info->is_draft_only ? " (draft head)" : "");
            what = buf;
        } else {
            snprintf(buf, sizeof buf, "(refused: %s)",
                     err.code == KVPLAN_PARSE ? "not a Hugging Face config"
                                              : "architecture not served");
            what = buf;
        }
        const char *hf = kvplan_catalog_hf_id(i);
        fprintf(stdout, "%-36s %-48s %s\n", kvplan_catalog_name(i),
                hf[0] ? hf : "-", what);
        kvplan_model_free(m);
    }
    return fflush(stdout) == 0 ? CLI_EXIT_OK : CLI_EXIT_INTERNAL;
}
