/*
 * cli.c: the command's dispatch (cli_run), its exit statuses for the
 * library's statuses, and its one error printer (cli.h).
 */
#include "cli.h"
#include "common/internal.h"
#include "json/doc.h"
#include "launch.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

char *cli_read_stream(FILE *f, size_t max, const char *field, const char *what,
                      size_t *len, kvplan_error *err)
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

char *cli_read_file(const char *path, size_t max, const char *field,
                    const char *what, size_t *len, kvplan_error *err)
{
    bool in = strcmp(path, "-") == 0, special = false;
    /* never blocks: a FIFO is refused at the open (review R3) */
    FILE *f = in ? stdin : kvplan__open_regular(path, &special);
    if (f == NULL) {
        memset(err, 0, sizeof *err);
        snprintf(err->field, sizeof err->field, "%s", field);
        err->code = KVPLAN_IO;
        snprintf(err->message, sizeof err->message,
                 "%.200s: cannot be read as %s (a regular file, or - for "
                 "standard input)",
                 path, what);
        return NULL;
    }
    char *buf = cli_read_stream(f, max, field, path, len, err);
    if (!in)
        fclose(f);
    return buf;
}

double cli_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int run(int argc, char **argv);

#ifdef KVPLAN_NO_SERVE
int cli_cmd_serve(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "kvplan serve: this kvplan was built without "
                    "libmicrohttpd or libyaml (KVPLAN_WITH_SERVE=OFF, or "
                    "libmicrohttpd-dev not installed): install "
                    "libmicrohttpd-dev and build again\n");
    return CLI_EXIT_USAGE;
}
#endif

#ifdef KVPLAN_NO_YAML
int cli_cmd_check(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "kvplan check: this kvplan was built without libyaml "
                    "(KVPLAN_WITH_YAML=OFF, or libyaml-dev not installed): "
                    "install libyaml-dev and build again\n");
    return CLI_EXIT_USAGE;
}
#endif

int cli_run(int argc, char **argv)
{
    /* a launch command quoted whole after "--", split into its words */
    char **words = NULL, *owned = NULL;
    kvplan_error err;
    int n = cli_expand_launch(argc, argv, &words, &owned, &err);
    if (n < 0)
        return cli_error("kvplan", &err,
                         cli_exit_for(err.code) == CLI_EXIT_BAD_INPUT
                             ? CLI_EXIT_USAGE
                             : cli_exit_for(err.code),
                         cli_wants_json(argc, argv));
    int rc = run(n, words);
    free(owned);
    /* a closed standard output or a full disk: said, not only an exit
     * status (the commands return 4 without a word) */
    int e = errno;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        if (fflush(stdout) != 0)
            e = errno;
        fprintf(stderr, "kvplan: cannot write the output: %s\n",
                strerror(e != 0 ? e : EIO));
        rc = CLI_EXIT_INTERNAL;
    }
    return rc;
}

/* kvplan help [COMMAND]: COMMAND --help. */
static int help_command(int argc, char **argv)
{
    static const char *const commands[] = {"fit", "solve", "sweep", "compare",
                                           "log", "pools", "check"};
    if (argc > 3) {
        fprintf(stderr, "kvplan help: one command at most\n");
        return CLI_EXIT_USAGE;
    }
    if (argc == 2 || strcmp(argv[2], "plan") == 0) {
        char *args[] = {argv[0], "--help", NULL};
        return cli_cmd_plan(2, args);
    }
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (strcmp(argv[2], commands[i]) == 0) {
            char *args[] = {argv[0], argv[2], "--help", NULL};
            return run(3, args);
        }
    fprintf(stderr,
            "kvplan help: '%.80s' is not a command: fit, solve, sweep, "
            "compare, log, pools, check (or none: the plan)\n",
            argv[2]);
    return CLI_EXIT_USAGE;
}

static int run(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "";
    if (strcmp(cmd, "--version") == 0 && argc == 2) {
        fprintf(stdout, "kvplan %s\n", kvplan_version());
        return fflush(stdout) == 0 ? CLI_EXIT_OK : CLI_EXIT_INTERNAL;
    }
    if (strcmp(cmd, "help") == 0)
        return help_command(argc, argv);
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
    if (strcmp(cmd, "check") == 0)
        return cli_cmd_check(argc, argv);
    if (strcmp(cmd, "serve") == 0)
        return cli_cmd_serve(argc, argv);
    if (strcmp(cmd, "--list-models") == 0 && argc == 2)
        return cli_cmd_list_models();
    if (strcmp(cmd, "--list-gpus") == 0 && argc == 2)
        return cli_cmd_list_gpus();
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--list-models") == 0 ||
            strcmp(argv[i], "--list-gpus") == 0 ||
            strcmp(argv[i], "--version") == 0) {
            fprintf(stderr, "kvplan: %s takes no other option (run it alone)\n",
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
    fprintf(stderr, "kvplan: %s\n", err->message);
    return cli_exit_for(err->code);
}

int cli_error(const char *who, const kvplan_error *err, int rc, bool json)
{
    if (!json) {
        fprintf(stderr, "%s: %s\n", who, err->message);
        return rc;
    }
    kvplan__writer w = {0};
    kvplan__w_error(&w, err, rc);
    if (kvplan__w_print(&w, stdout, true) != 0)
        rc = CLI_EXIT_INTERNAL;
    return fflush(stdout) != 0 ? CLI_EXIT_INTERNAL : rc;
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

int cli_take_own(int argc, char **argv, int first, cli_own_flag *own, size_t n,
                 char **rest, kvplan_error *err)
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
