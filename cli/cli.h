/*
 * cli.h: what the kvplan command's files share: its exit statuses (also in
 * --help and the README), the one error printer, and its commands.
 */
#ifndef KVPLAN_CLI_H
#define KVPLAN_CLI_H

#include "kvplan.h"

#include <stdio.h>

enum {
    CLI_EXIT_OK = 0,
    CLI_EXIT_DOES_NOT_FIT = 1, /* the budget cannot hold the pools */
    CLI_EXIT_USAGE = 2,        /* an unknown command, option or value */
    CLI_EXIT_BAD_INPUT = 3,    /* a malformed config or scenario, or a
                                  configuration sglang refuses */
    CLI_EXIT_INTERNAL = 4      /* out of memory, write error */
};

/* The whole of `f`, at most `max` bytes, NUL-terminated (free it); NULL
 * with `err` (naming `field`, the stream as `what`) when it cannot be read,
 * is larger, or memory runs out. */
char *cli_read_stream(FILE *f, size_t max, const char *field, const char *what,
                      size_t *len, kvplan_error *err);
/* The whole of the file at `path` ("-": standard input) through
 * cli_read_stream; a FIFO or a device is refused at the open, naming the
 * file as `what` ("a log", "a manifest"). */
char *cli_read_file(const char *path, size_t max, const char *field,
                    const char *what, size_t *len, kvplan_error *err);
/* A monotonic clock, in seconds. */
double cli_now(void);
/* The kvplan command: argv as main's; returns the exit status. */
int cli_run(int argc, char **argv);

/* Returns from the enclosing function unless `expr` is KVPLAN_OK. */
#define CLI_TRY(expr)                                                          \
    do {                                                                       \
        kvplan_status cli_st_ = (expr);                                        \
        if (cli_st_ != KVPLAN_OK)                                              \
            return cli_st_;                                                    \
    } while (0)

/* The exit status for a library status. */
int cli_exit_for(kvplan_status st);

/* Prints "kvplan: MESSAGE" on standard error; returns the exit status. */
int cli_fail(const kvplan_error *err);

/* An error of command `who` ("kvplan", "kvplan log"): "WHO: MESSAGE" on
 * standard error, or under --json an object on standard output (error,
 * field, message, exit_status). Returns `rc`. */
int cli_error(const char *who, const kvplan_error *err, int rc, bool json);

/* --json anywhere in argv: errors are written as JSON too, even a parse
 * error. */
bool cli_wants_json(int argc, char **argv);

/* A usage error naming `field` (KVPLAN_INVALID_ARGUMENT), for cli_error. */
kvplan_status cli_usage_error(kvplan_error *err, const char *field,
                              const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A flag of a command itself (kvplan fit --concurrency N), taken out of
 * argv before the plan flags are parsed. */
typedef struct cli_own_flag {
    const char *name;
    const char *value; /* NULL: absent */
} cli_own_flag;

/* Moves the command's own flags (FLAG VALUE or FLAG=VALUE) out of
 * argv[first..] into `own`; the rest go to `rest` (argv[0] first). Returns
 * the new argc, or -1 with `err` for a flag without its value. */
int cli_take_own(int argc, char **argv, int first, cli_own_flag *own, size_t n,
                 char **rest, kvplan_error *err);

/* The commands (argv as main's). */
int cli_cmd_plan(int argc, char **argv);
int cli_cmd_pools(int argc, char **argv);
int cli_cmd_log(int argc, char **argv);
int cli_cmd_fit(int argc, char **argv);
int cli_cmd_solve(int argc, char **argv);
int cli_cmd_sweep(int argc, char **argv);
int cli_cmd_compare(int argc, char **argv);
int cli_cmd_check(int argc, char **argv);
int cli_cmd_serve(int argc, char **argv);
int cli_cmd_list_gpus(void);
int cli_cmd_list_models(void);

/* kvplan log FILE for a vLLM log (cmd_log_vllm.c): `text` is the file's
 * `len` bytes; argv[0..argc) the flags after FILE, which win over the
 * log's. */
int cli_log_vllm(const char *path, const char *text, size_t len, int argc,
                 char **argv, bool json, const char *calibrate);
/* The same for a TensorRT-LLM log (cmd_log_trtllm.c). */
int cli_log_trtllm(const char *path, const char *text, size_t len, int argc,
                   char **argv, bool json, const char *calibrate);

#endif /* KVPLAN_CLI_H */
