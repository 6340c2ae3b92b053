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
#include "jsonout.h"
#include "report.h"
#include "svg.h"
#include "versions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The Hub's progress, on a terminal. */
static void on_progress(void *ctx, size_t done, size_t total,
                        const char *file)
{
    const char *repo = ctx;
    fprintf(cli_err(), "\rkvplan: %s from the Hub: %zu of %zu files (%.60s)%s",
            repo, done, total, file, done == total ? "\n" : "   ");
}

static int fail(const kvplan_error *err, int rc, bool json)
{
    return cli_error("kvplan", err, rc, json);
}

bool cli_probe_short(const cli_args *cli, const kvplan_plan *plan,
                     char *text, size_t size)
{
    const kvplan_fleet *f = &plan->fleet;
    int64_t need = f->gpus;
    if (cli->loaded.gpu_count <= 0 || need <= cli->loaded.gpu_count)
        return false;
    char replicas[48] = "";
    if (f->replicas > 1)
        snprintf(replicas, sizeof replicas, " x %lld replicas",
                 (long long)f->replicas);
    snprintf(text, size,
             "--gpu auto sees %d GPU%s here, and the plan spreads over %lld "
             "(tp %lld x pp %lld%s): the other %lld are assumed to be like "
             "the smallest seen",
             cli->loaded.gpu_count, cli->loaded.gpu_count == 1 ? "" : "s", (long long)need,
             (long long)plan->resolved.tp_size,
             (long long)plan->resolved.pp_size, replicas,
             (long long)(need - cli->loaded.gpu_count));
    return true;
}

/* The plan's warnings, and sglang's flags that change memory in ways
 * kvplan does not model, on standard error. */
void cli_warnings(const cli_args *cli, const kvplan_plan *plan)
{
    char probe[240];
    if (cli_probe_short(cli, plan, probe, sizeof probe))
        fprintf(cli_err(), "kvplan: warning: %s\n", probe);
    for (size_t i = 0; i < plan->num_warnings; i++)
        fprintf(cli_err(), "kvplan: warning: %s\n", plan->warnings[i].message);
    for (size_t i = 0; i < cli->o.internal_.num_bad_env; i++)
        fprintf(cli_err(),
                "kvplan: warning: %s='%.60s' is not a value of its kind; "
                "sglang warns and takes the default, as kvplan does\n",
                cli->o.internal_.bad_env[i], cli_getenv(cli->o.internal_.bad_env[i]));
    const kvplan_option *g;
    for (size_t i = 0; (g = cli_not_read(cli, i)) != NULL; i++)
        if (g->memory != NULL)
            fprintf(cli_err(),
                    "kvplan: warning: %s is read by sglang, not by kvplan: "
                    "%s\n",
                    g->flag, g->memory);
}

int cli_write_svg(const cli_args *cli, const kvplan_model *model,
                  const kvplan_plan *plan)
{
    if (cli->svg_path == NULL ||
        cli_svg_plan(cli->svg_path, cli, model, plan) == 0)
        return CLI_EXIT_OK;
    fprintf(cli_err(), "kvplan: --svg: cannot write %s\n", cli->svg_path);
    return CLI_EXIT_INTERNAL;
}

int cli_report(const cli_args *cli, const kvplan_model *model,
               const kvplan_plan *plan)
{
    int rc = cli_write_svg(cli, model, plan);
    cli_warnings(cli, plan);
    if (cli->json) {
        json_t *doc = cli_report_json(cli, model, plan);
        if (doc == NULL || cli_json_write(doc, cli_out()) != 0 ||
            fputc('\n', cli_out()) == EOF)
            rc = CLI_EXIT_INTERNAL;
        json_decref(doc);
    } else if (cli_report_text(cli_out(), cli, model, plan) != 0 ||
               (cli->o.internal_.compare_version_text != NULL &&
                cli_compare_text(cli_out(), cli, model, plan) != 0)) {
        rc = CLI_EXIT_INTERNAL;
    }
    return fflush(cli_out()) != 0 ? CLI_EXIT_INTERNAL : rc;
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
        text = cli_read_stream(cli_config_in(), 64u << 20, "--model-path",
                               cli_config_name(), &len, err);
        if (text == NULL)
            return err->code;
        o->model_config = text;
        o->model_config_len = len;
    }
    if (fileno(cli_err()) >= 0 && isatty(fileno(cli_err()))) {
        o->progress = on_progress;
        o->progress_ctx = (void *)o->model_path;
    }
    kvplan_status st = kvplan_options_load(o, &cli->loaded, err);
    free(text);
    o->model_config = NULL; /* read: the model holds what it needs */
    if (st != KVPLAN_OK)
        return st;
    for (size_t i = 0; i < cli->loaded.num_warnings; i++)
        fprintf(cli_err(), "kvplan: warning: %s\n", cli->loaded.warnings[i]);
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
        fprintf(cli_err(), "kvplan: out of memory\n");
        rc = CLI_EXIT_INTERNAL;
    } else if ((st = cli_parse(argc, argv, 1, NULL, cli, &err)) != KVPLAN_OK) {
        rc = fail(&err, CLI_EXIT_USAGE, json); /* unknown flag, bad value */
    } else if (cli->help) {
        rc = cli_help(cli_out()) == 0 && fflush(cli_out()) == 0 ? CLI_EXIT_OK
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
    fprintf(cli_out(), "%-12s %10s  %s\n", "NAME", "TOTAL MiB", "COMPUTE");
    kvplan_gpu g;
    for (size_t i = 0; kvplan_gpu_preset_at(i, &g); i++)
        fprintf(cli_out(), "%-12s %10.0f  %s\n", g.name, g.total_mib, g.arch);
    return fflush(cli_out()) == 0 ? CLI_EXIT_OK : CLI_EXIT_INTERNAL;
}

/* The built-in catalog: short name, Hugging Face id, what kvplan makes
 * of it. */
int cli_cmd_list_models(void)
{
    fprintf(cli_out(), "%-36s %-48s %s\n", "NAME", "HUGGING FACE ID", "ARCHITECTURE");
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
        fprintf(cli_out(), "%-36s %-48s %s\n", kvplan_catalog_name(i), hf[0] ? hf : "-",
               what);
        kvplan_model_free(m);
    }
    return fflush(cli_out()) == 0 ? CLI_EXIT_OK : CLI_EXIT_INTERNAL;
}
