/*
 * flags.h: the kvplan command's arguments: every option of the library's
 * one table (kvplan_option_at: sglang's flag names and meanings for all
 * that affects memory, kvplan's own --gpu, --gpu-memory, ...), set by
 * name into kvplan_options, and the command's own few: --json, --svg,
 * --help and a pasted launch command after "--".
 */
#ifndef KVPLAN_FLAGS_H
#define KVPLAN_FLAGS_H

#include "kvplan.h"

#include <stdio.h>

/* A launch command pasted after "--" (launch.c). */
#define CLI_MAX_LAUNCH_ENV 32
#define CLI_MAX_LAUNCH_NOT_READ 32
typedef struct cli_launch {
    bool active;          /* "--" was given */
    kvplan_engine engine; /* the engine its program starts */
    const char *program;  /* "vllm serve", "sglang.launch_server", ... */
    /* its leading VAR=value words, as kvplan_options.env */
    const char *env[2 * CLI_MAX_LAUNCH_ENV + 1];
    char env_names[CLI_MAX_LAUNCH_ENV][64];
    size_t num_env;
    /* vLLM's or TRT-LLM's flags kvplan does not read, and the members of
     * trtllm-serve's YAML it does not read */
    const char *not_read[CLI_MAX_LAUNCH_NOT_READ];
    size_t num_not_read;
    /* vllm serve's --config and trtllm-serve's --config /
     * --extra_llm_api_options FILE, read after the command's flags as the
     * engine reads it (launch_vllm.c, launch_trtllm.c) */
    const char *config_flag, *config_path;
    char config_words[CLI_MAX_LAUNCH_NOT_READ][96]; /* members not read */
    char config_text[8192]; /* the values set, kept while options live */
    size_t config_used;
    char config_note[400]; /* what the YAML replaced; "" */
} cli_launch;

typedef struct cli_args {
    kvplan_options o;     /* every option, by the library's table */
    const char *svg_path; /* --svg FILE */
    bool json;            /* --json */
    bool help;            /* --help */
    cli_launch launch;    /* "-- python3 -m sglang.launch_server ARGS" */
    /* kvplan check: a command's files are in its container, not here */
    bool files_remote;
    const char *sglang_config; /* sglang's --config FILE (sglang_config.c) */
    /* what loading the options found (cli_load): the model and its draft,
     * where they were read, what was measured */
    kvplan_loaded loaded;
} cli_args;

/*
 * Parses argv[first..argc) into `cli`, reading sglang's environment
 * variables first. `question` names the command whose own options it
 * takes ("fit", "solve", "sweep"; NULL for a plan). Returns KVPLAN_OK, or
 * KVPLAN_INVALID_ARGUMENT for a usage error (unknown flag, missing value)
 * and KVPLAN_PARSE for a bad value, with `err` naming the flag. Touches no
 * device: --gpu auto is only recorded.
 */
kvplan_status cli_parse(int argc, char **argv, int first, const char *question,
                        cli_args *cli, kvplan_error *err);
/* cli_parse for a container's command (kvplan check): the files it names
 * are in the container, so they are listed, not opened here. */
kvplan_status cli_parse_in_container(int argc, char **argv, int first,
                                     cli_args *cli, kvplan_error *err);

/* The same over options already in `cli` (kvplan log: the flags a log
 * printed, then the command line's over them). */
kvplan_status cli_parse_over(int argc, char **argv, int first,
                             const char *question, cli_args *cli,
                             kvplan_error *err);

/* The GPU of the parsed flags: --gpu auto probes the local GPUs (NVML),
 * --gpu-memory overrides the total, and without either the default board
 * is assumed unless --available-bytes skips the budget. */
kvplan_status cli_resolve_gpu(cli_args *cli, kvplan_error *err);

/* An argument that is a value, not a flag ("-1" is a value). */
bool cli_is_value(const char *arg);

/* Writes --help, its flag sections generated from the table. Returns 0, or
 * -1 on a write error. */
int cli_help(FILE *out);

/* The command's own rows of --help, for the tests: the `index`-th flag
 * --help lists (the library's and the command's), NULL past the end. */
const char *cli_flag_at(size_t index);

#endif /* KVPLAN_FLAGS_H */
