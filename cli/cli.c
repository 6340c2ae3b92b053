/*
 * cli.c: the command's dispatch (cli_run), its streams, its exit statuses
 * for the library's statuses, and its one error printer (cli.h).
 */
#include "cli.h"
#include "jsonout.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The streams lent to this thread; NULL members: the process's own. */
static _Thread_local cli_io lent;

FILE *cli_in(void)
{
    return lent.in != NULL ? lent.in : stdin;
}

FILE *cli_out(void)
{
    return lent.out != NULL ? lent.out : stdout;
}

FILE *cli_err(void)
{
    return lent.err != NULL ? lent.err : stderr;
}

FILE *cli_config_in(void)
{
    return lent.config != NULL ? lent.config : stdin;
}

const char *cli_config_name(void)
{
    return lent.config_name != NULL ? lent.config_name : "config.json";
}

const char *cli_getenv(const char *name)
{
    for (const char *const *e = lent.env; e != NULL && e[0] != NULL; e += 2)
        if (strcmp(e[0], name) == 0)
            return e[1];
    return getenv(name);
}

const char *const *cli_env(void)
{
    return lent.env;
}

FILE *cli_svg_out(void)
{
    return lent.svg;
}

char *cli_read_stream(FILE *f, size_t max, const char *field,
                      const char *what, size_t *len, kvplan_error *err)
{
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap);
    while (buf != NULL && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n > max)
            break;
        if (n == cap - 1) {
            char *b = realloc(buf, cap * 2);
            if (b == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
            cap *= 2;
        }
    }
    memset(err, 0, sizeof *err);
    snprintf(err->field, sizeof err->field, "%s", field);
    if (buf == NULL || n > max || ferror(f)) {
        err->code = buf == NULL ? KVPLAN_NOMEM
                    : n > max   ? KVPLAN_PARSE
                                : KVPLAN_IO;
        snprintf(err->message, sizeof err->message, "%.200s: %s", what,
                 buf == NULL ? "out of memory"
                 : n > max   ? "too large"
                             : "cannot be read");
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

void cli_io_lend(const cli_io *io, cli_io *saved)
{
    cli_io before = lent;
    lent = *io;
    *saved = before;
}

int cli_run(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "";
    if (strcmp(cmd, "--version") == 0 && argc == 2) {
        fprintf(cli_out(), "kvplan %s\n", kvplan_version());
        return fflush(cli_out()) == 0 ? CLI_EXIT_OK : CLI_EXIT_INTERNAL;
    }
    if (strcmp(cmd, "pools") == 0)
        return cli_cmd_pools(argc, argv);
    if (strcmp(cmd, "log") == 0)
        return cli_cmd_log(argc, argv);
    if (strcmp(cmd, "fit") == 0)
        return cli_cmd_fit(argc, argv);
    if (strcmp(cmd, "solve") == 0)
        return cli_cmd_solve(argc, argv);
    if (strcmp(cmd, "sweep") == 0)
        return cli_cmd_sweep(argc, argv);
    if (strcmp(cmd, "compare") == 0)
        return cli_cmd_compare(argc, argv);
    if (strcmp(cmd, "--list-models") == 0 && argc == 2)
        return cli_cmd_list_models();
    if (strcmp(cmd, "--list-gpus") == 0 && argc == 2)
        return cli_cmd_list_gpus();
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--list-models") == 0 ||
            strcmp(argv[i], "--list-gpus") == 0 ||
            strcmp(argv[i], "--version") == 0) {
            fprintf(cli_err(),
                    "kvplan: %s takes no other option (run it alone)\n",
                    argv[i]);
            return CLI_EXIT_USAGE;
        }
    }
    return cli_cmd_plan(argc, argv);
}

int cli_exit_for(kvplan_status st)
{
    switch (st) {
    case KVPLAN_OK:
        return CLI_EXIT_OK;
    case KVPLAN_NOT_ENOUGH_MEMORY:
        return CLI_EXIT_DOES_NOT_FIT;
    case KVPLAN_NOMEM:
        return CLI_EXIT_INTERNAL;
    default:
        return CLI_EXIT_BAD_INPUT;
    }
}

int cli_fail(const kvplan_error *err)
{
    fprintf(cli_err(), "kvplan: %s\n", err->message);
    return cli_exit_for(err->code);
}

json_t *cli_error_json(const kvplan_error *err, int rc)
{
    return json_pack("{s:s, s:o, s:o, s:i}", "error",
                     kvplan_status_name(err->code), "field",
                     err->field[0] ? cli_json_text(err->field) : json_null(),
                     "message", cli_json_text(err->message), "exit_status",
                     rc);
}

int cli_error(const char *who, const kvplan_error *err, int rc, bool json)
{
    if (!json) {
        fprintf(cli_err(), "%s: %s\n", who, err->message);
        return rc;
    }
    json_t *o = cli_error_json(err, rc);
    if (o == NULL || cli_json_write(o, cli_out()) != 0 ||
        fputc('\n', cli_out()) == EOF)
        rc = CLI_EXIT_INTERNAL;
    json_decref(o);
    return fflush(cli_out()) != 0 ? CLI_EXIT_INTERNAL : rc;
}

kvplan_status cli_usage_error(kvplan_error *err, const char *field,
                              const char *fmt, ...)
{
    memset(err, 0, sizeof *err);
    err->code = KVPLAN_INVALID_ARGUMENT;
    snprintf(err->field, sizeof err->field, "%s", field);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return KVPLAN_INVALID_ARGUMENT;
}

int cli_take_own(int argc, char **argv, int first, cli_own_flag *own,
                 size_t n, char **rest, kvplan_error *err)
{
    int out = 0;
    rest[out++] = argv[0];
    for (int i = first; i < argc; i++) {
        const char *arg = argv[i];
        bool taken = false;
        for (size_t k = 0; k < n && !taken; k++) {
            size_t len = strlen(own[k].name);
            if (strncmp(arg, own[k].name, len) != 0)
                continue;
            if (arg[len] == '=') {
                own[k].value = arg + len + 1;
                taken = true;
            } else if (arg[len] == '\0') {
                if (i + 1 >= argc) {
                    cli_usage_error(err, own[k].name, "%s needs a value",
                                    own[k].name);
                    return -1;
                }
                own[k].value = argv[++i];
                taken = true;
            }
        }
        if (!taken)
            rest[out++] = argv[i];
    }
    return out;
}
