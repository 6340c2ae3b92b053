/*
 * flags.h: the kvplan command's options: sglang's own flag names and
 * meanings for everything that affects memory, plus kvplan's (--gpu,
 * --gpu-memory, --available-bytes, --json, --explain).
 */
#ifndef KVPLAN_FLAGS_H
#define KVPLAN_FLAGS_H

#include "kvplan.h"

typedef struct cli_args {
    kvplan_plan_options options;
    const char *model_path;       /* NULL: the built-in default */
    const char *draft_model_path; /* --speculative-draft-model-path */
    const char *override_args;    /* --json-model-override-args */
    const char *gpu_name;         /* as given, for the report */
    int gpu_count;                /* --gpu auto: how many NVML saw */
    bool json;
    bool explain;
    bool help;
} cli_args;

/*
 * Parses argv[first..argc) into `cli`, reading sglang's environment
 * variables from the process environment. Returns KVPLAN_OK, or
 * KVPLAN_INVALID_ARGUMENT for a usage error (unknown flag, missing value)
 * and KVPLAN_PARSE for a bad value, with `err` naming the flag.
 */
kvplan_status cli_parse(int argc, char **argv, int first,
                                cli_args *cli, kvplan_error *err);

/* Parses a size with an optional unit (B, KiB, MiB, GiB, TiB, KB, MB, GB,
 * TB; a bare number is MiB) into MiB. */
kvplan_status cli_parse_size_mib(const char *text, const char *flag,
                                     double *mib, kvplan_error *err);

#endif /* KVPLAN_FLAGS_H */
