/*
 * flags.h: the kvplan command's options: sglang's own flag names and
 * meanings for everything that affects memory, plus kvplan's (--gpu,
 * --gpu-memory, --available-bytes, --weight-bytes, --json, --explain).
 *
 * One table (flags.c) is the source of the parser, each value's bounds,
 * --help, the JSON echo of what was requested, and the README's flag list
 * (tests/test_flags.c checks that every row is in --help and the README).
 */
#ifndef KVPLAN_FLAGS_H
#define KVPLAN_FLAGS_H

#include "kvplan.h"

#include "common/json.h" /* jansson, as the library calls it */
#include <stdio.h>

struct cli_sglang_flag;

#define CLI_MAX_IGNORED 64

typedef struct cli_args {
    kvplan_plan_options options;
    const char *model_path;       /* NULL: the built-in default */
    const char *draft_model_path; /* --speculative-draft-model-path */
    const char *override_args;    /* --json-model-override-args */
    const char *revision;         /* --revision */
    /* --model-path org/name: where it was read ("" for a local path or
     * the catalog), and why the catalog was taken instead of the Hub */
    char hub_source[96];
    char hub_note[400];
    char hub_dir[4096]; /* the snapshot folder read, "" when none */
    char hub_commit[48];
    const char *model_source; /* "hub", "hub_cache", "catalog", or NULL */
    const char *gpu_name;         /* the board's name, for the report */
    const char *gpu_text;         /* --gpu as given */
    const char *hisparse_text;    /* --hisparse-config as given */
    const char *calibration_path; /* --calibration */
    const char *svg_path;         /* --svg */
    const char *sglang_version;   /* --sglang-version as given */
    kvplan_sglang_profile compare_version; /* --compare-version */
    const char *compare_version_text;
    /* --engine and the other engines' flags (docs/engines.md) */
    kvplan_engine engine;
    const char *engine_text;
    kvplan_engine_options engine_options;
    bool gpu_auto;                /* --gpu auto: probe before planning */
    int gpu_count;                /* --gpu auto: how many NVML saw */
    bool gpu_memory_set;          /* --gpu-memory given */
    double gpu_memory_mib;
    bool json;
    bool explain;
    bool help;
    bool launch_command; /* "-- python3 -m sglang.launch_server ARGS" */
    bool weights_measured; /* from the model directory's safetensors */
    /* sglang's flags kvplan does not read, as given (the first 64) */
    const struct cli_sglang_flag *ignored[CLI_MAX_IGNORED];
    size_t num_ignored;
    /* sglang's variables set to a value not of their kind: sglang warns
     * and takes the default, and so does the command */
    const char *bad_env[8];
    size_t num_bad_env;
} cli_args;

/*
 * Parses argv[first..argc) into `cli`, reading sglang's environment
 * variables from the process environment. Returns KVPLAN_OK, or
 * KVPLAN_INVALID_ARGUMENT for a usage error (unknown flag, missing value)
 * and KVPLAN_PARSE for a bad value, with `err` naming the flag. Touches no
 * device: --gpu auto is only recorded (cli_resolve_gpu probes it).
 */
kvplan_status cli_parse(int argc, char **argv, int first, cli_args *cli,
                        kvplan_error *err);

/* The same over options already in `cli` (kvplan log: the flags a log
 * printed, then the command line's over them). */
kvplan_status cli_parse_over(int argc, char **argv, int first, cli_args *cli,
                             kvplan_error *err);

/* The GPU of the parsed flags: --gpu auto probes the local GPUs (NVML),
 * --gpu-memory overrides the total, and without either the default board
 * is assumed unless --available-bytes skips the budget. */
kvplan_status cli_resolve_gpu(cli_args *cli, kvplan_error *err);

/* Parses a size with an optional unit (B, KiB, MiB, GiB, TiB, KB, MB, GB,
 * TB; a bare number is MiB) into MiB. */
kvplan_status cli_parse_size_mib(const char *text, const char *flag,
                                 double *mib, kvplan_error *err);

/* Writes --help, its flag sections generated from the table. Returns 0, or
 * -1 on a write error. */
int cli_help(FILE *out);

/* The "requested" object of --json: every flag of the table with a JSON
 * key, as given (null where absent); NULL when out of memory. */
json_t *cli_requested_json(const cli_args *cli);

/* The table's name of the flag the first `len` bytes of `arg` spell
 * (an alias included: "--tp" -> "--tp-size"); NULL when not one. */
const char *cli_flag_canonical(const char *arg, size_t len);

/* The table's rows, for the tests: the `index`-th flag's name, NULL past
 * the end. */
const char *cli_flag_at(size_t index);

#endif /* KVPLAN_FLAGS_H */
