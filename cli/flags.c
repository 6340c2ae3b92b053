/*
 * flags.c: the command's arguments, read into kvplan_options through the
 * library's one table of options (kvplan_option_find_n,
 * kvplan_options_set): "--flag value" or "--flag=value" as sglang's
 * argparse reads them, switches alone. The command keeps only what is its
 * own: --json, --svg, --help, and a pasted launch command after "--",
 * where sglang's flags kvplan does not read are taken and listed.
 */
#include "flags.h"

#include "cli.h"
#include "launch.h"
#include "launch_trtllm.h"
#include "launch_vllm.h"
#include "sglang_config.h"
#include "common/internal.h"
#include "options/options.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- errors ------------------------------------------------------------ */

static kvplan_status fail(kvplan_error *err, kvplan_status code,
                          const char *flag_name, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static kvplan_status fail(kvplan_error *err, kvplan_status code,
                          const char *flag_name, const char *fmt, ...)
{
    memset(err, 0, sizeof *err);
    err->code = code;
    snprintf(err->field, sizeof err->field, "%.100s", flag_name);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return code;
}

/* ---- the command's own flags -------------------------------------------- */

typedef enum own_kind { OWN_JSON, OWN_SVG, OWN_HELP } own_kind;

static const struct own {
    const char *name, *alias;
    own_kind kind;
    const char *meta, *help;
} own_flags[] = {
    {"--json", NULL, OWN_JSON, NULL,
     "the plan as JSON (schema: docs/plan.schema.json)"},
    {"--svg", NULL, OWN_SVG, "FILE",
     "also draw it as SVG: one GPU's memory and the requests at once "
     "against the context length (a sweep: its rows as bars)"},
    {"--help", "-h", OWN_HELP, NULL, "show this help"},
};
#define NUM_OWN (sizeof own_flags / sizeof own_flags[0])

static const struct own *own_flag(const char *arg, size_t len)
{
    for (size_t i = 0; i < NUM_OWN; i++) {
        const char *names[2] = {own_flags[i].name, own_flags[i].alias};
        for (int j = 0; j < 2; j++)
            if (names[j] && strlen(names[j]) == len &&
                strncmp(names[j], arg, len) == 0)
                return &own_flags[i];
    }
    return NULL;
}

/* The nearest flag (the table's, the command's or sglang's) to `arg`,
 * within 3 edits. */
static const char *nearest(const char *arg, size_t len)
{
    char name[96];
    snprintf(name, sizeof name, "%.*s", (int)(len < 90 ? len : 90), arg);
    const char *best = NULL;
    int d = 4;
    const kvplan_option *o;
    for (size_t k = 0; (o = kvplan_option_at(k)) != NULL; k++) {
        int x = kvplan_edit_distance(name, o->flag);
        if (x < d) {
            d = x;
            best = o->flag;
        }
    }
    for (size_t k = 0; k < NUM_OWN; k++) {
        int x = kvplan_edit_distance(name, own_flags[k].name);
        if (x < d) {
            d = x;
            best = own_flags[k].name;
        }
    }
    return best;
}

/* The command nearest a first argument that is none (kvplan fitt), within
 * 2 edits. */
static const char *nearest_command(const char *arg)
{
    static const char *const commands[] = {"fit", "solve", "sweep", "compare",
                                           "log", "pools", "help"};
    return kvplan__nearest_word(arg, commands,
                                sizeof commands / sizeof *commands, 2);
}

/* An argument that is a value, not a flag: anything but "--x" ("-1" is a
 * value). */
bool cli_is_value(const char *a)
{
    return !(a[0] == '-' && a[1] == '-' && a[2] != '\0') &&
           !(a[0] == '-' && a[1] != '\0' && !(a[1] >= '0' && a[1] <= '9') &&
             a[1] != '.');
}

/* `cli` emptied, the options at their defaults. */
static cli_args *fresh(cli_args *cli, bool files_remote)
{
    memset(cli, 0, sizeof *cli);
    kvplan_options_init(&cli->o);
    cli->files_remote = files_remote;
    return cli;
}

kvplan_status cli_parse(int argc, char **argv, int first, const char *question,
                        cli_args *cli, kvplan_error *err)
{
    return cli_parse_over(argc, argv, first, question, fresh(cli, false), err);
}

kvplan_status cli_parse_in_container(int argc, char **argv, int first,
                                     cli_args *cli, kvplan_error *err)
{
    return cli_parse_over(argc, argv, first, NULL, fresh(cli, true), err);
}

/* The value of a flag: "--flag=value" or the next argument. */
static kvplan_status value_of(int argc, char **argv, int *i, const char *eq,
                              const char *name, const char **v,
                              kvplan_error *err)
{
    if (eq != NULL)
        *v = eq + 1;
    else if (*i + 1 < argc)
        *v = argv[++*i];
    else
        return fail(err, KVPLAN_INVALID_ARGUMENT, name, "%s needs a value",
                    name);
    return KVPLAN_OK;
}

/* One argument that is an option of the table (its row `o`). */
static kvplan_status table_flag(int argc, char **argv, int *i, const char *eq,
                                const kvplan_option *o, const char *question,
                                cli_args *cli, kvplan_error *err)
{
    kvplan_status st;
    if (strcmp(o->flag, "--config") == 0 &&
        cli_sglang_config_flag(argc, argv, i, eq, cli, &st, err))
        return st; /* its YAML, read after the flags */
    if (o->type == KVPLAN_OPTION_NOT_READ) {
        /* sglang's own: taken, its values skipped, listed as not read */
        CLI_TRY(kvplan_options_set(&cli->o, o->flag, NULL, err));
        bool takes_value = o->meta != NULL;
        if (!takes_value || eq != NULL)
            return KVPLAN_OK;
        while (*i + 1 < argc && cli_is_value(argv[*i + 1]))
            ++*i; /* one value, or several (nargs) */
        return KVPLAN_OK;
    }
    if (o->scope == KVPLAN_SCOPE_QUESTION &&
        (question == NULL || strcmp(question, o->question) != 0))
        return fail(err, KVPLAN_INVALID_ARGUMENT, o->flag,
                    "%s is read by kvplan %s only", o->flag, o->question);
    if (o->type == KVPLAN_OPTION_SWITCH) {
        if (eq)
            return fail(err, KVPLAN_INVALID_ARGUMENT, o->flag,
                        "%s takes no value", o->flag);
        return kvplan_options_set(&cli->o, o->flag, NULL, err);
    }
    const char *v = NULL;
    CLI_TRY(value_of(argc, argv, i, eq, o->flag, &v, err));
    return kvplan_options_set(&cli->o, o->flag, v, err);
}

kvplan_status cli_parse_over(int argc, char **argv, int first,
                             const char *question, cli_args *cli,
                             kvplan_error *err)
{
    kvplan_options_read_env(&cli->o);
    for (int i = first; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--") == 0 && !cli->launch.active) {
            int next = argc;
            CLI_TRY(cli_launch_start(argc, argv, i + 1, cli, &next, err));
            i = next - 1;
            continue;
        }
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        const struct own *own = own_flag(arg, len);
        /* another engine's pasted command: its flags in its spelling
         * (kvplan's own --json, --svg, --help stay kvplan's) */
        if (cli->launch.active && cli->launch.engine != KVPLAN_ENGINE_SGLANG &&
            own == NULL) {
            CLI_TRY(cli_launch_flag(argc, argv, &i, cli, err));
            continue;
        }
        const kvplan_option *o =
            arg[0] == '-' ? kvplan_option_find_n(arg, len) : NULL;
        if (own != NULL && own->kind != OWN_SVG) {
            if (eq)
                return fail(err, KVPLAN_INVALID_ARGUMENT, own->name,
                            "%s takes no value", own->name);
            if (own->kind == OWN_JSON)
                cli->json = true;
            else
                cli->help = true;
        } else if (own != NULL) {
            CLI_TRY(
                value_of(argc, argv, &i, eq, own->name, &cli->svg_path, err));
        } else if (o != NULL && cli->launch.active &&
                   memchr(arg, '_', len) != NULL) {
            /* a pasted sglang command: its argparse knows the dashes */
            return fail(err, KVPLAN_INVALID_ARGUMENT, o->flag,
                        "--: %.*s is not a flag of %s, whose argparse reads "
                        "%s only (sglang: \"unrecognized arguments\"); "
                        "kvplan's own flags, before --, take either",
                        (int)len, arg, cli_launch_program(&cli->launch),
                        o->flag);
        } else if (o != NULL) {
            CLI_TRY(table_flag(argc, argv, &i, eq, o, question, cli, err));
        } else {
            const char *near = arg[0] == '-' ? nearest(arg, len)
                               : i == 1      ? nearest_command(arg)
                                             : NULL;
            return fail(err, KVPLAN_INVALID_ARGUMENT, arg,
                        "%.100s: %s%s%s%s (see kvplan --help)", arg,
                        arg[0] == '-' ? "unknown option"
                                      : "unexpected argument",
                        near ? "; did you mean " : "", near ? near : "",
                        near ? "?" : "");
        }
    }
    /* the engine's YAML (--config), with the command's flags; kvplan's
     * own --config is --engine's */
    CLI_TRY(cli_config_to_engine(cli, err));
    CLI_TRY(cli_trtllm_config(cli, err));
    CLI_TRY(cli_vllm_config(cli, err));
    CLI_TRY(cli_sglang_config(cli, err));
    /* a launch command names its model (sglang's --model-path is
     * required, vLLM's and TRT-LLM's MODEL positional): a pasted one
     * without it is not planned as the default model */
    if (cli->launch.program != NULL && cli->o.model_path == NULL)
        return cli_usage_error(err, "--model-path",
                               "--: the pasted command (%s) names no model: "
                               "give --model-path, or the MODEL after serve",
                               cli->launch.program);
    CLI_TRY(kvplan__options_for_question(&cli->o, question, true, err));
    /* --svg draws a plan (plan, fit, solve) or a sweep's rows */
    if (cli->svg_path != NULL && question != NULL &&
        (strcmp(question, "compare") == 0 || strcmp(question, "log") == 0))
        return cli_usage_error(err, "--svg",
                               "--svg draws a plan or a sweep's rows; kvplan "
                               "%s has no picture",
                               question);
    return KVPLAN_OK;
}

kvplan_status cli_resolve_gpu(cli_args *cli, kvplan_error *err)
{
    return kvplan__options_resolve_gpu(&cli->o, &cli->loaded.gpu_count, err);
}
