/*
 * sglang_config.h: sglang's --config FILE, its YAML (or JSON) of more
 * launch_server flags, read as sglang merges it (sglang_config.c).
 */
#ifndef KVPLAN_SGLANG_CONFIG_H
#define KVPLAN_SGLANG_CONFIG_H

#include "flags.h"

/* --config at argv[*i] (its value in `eq` or the next word): true when
 * kept for cli_sglang_config (*st its outcome); false when it is listed
 * as sglang's flag not read instead (kvplan check: a file in the
 * container; a kvplan built without libyaml). */
bool cli_sglang_config_flag(int argc, char **argv, int *i, const char *eq,
                            cli_args *cli, kvplan_status *st,
                            kvplan_error *err);

/* kvplan's own --config under --engine vllm or trtllm: that engine's
 * config file (vllm serve's --config, trtllm-serve's), handed to its
 * reader as a pasted command's would be; refused beside a pasted
 * command's own. */
kvplan_status cli_config_to_engine(cli_args *cli, kvplan_error *err);

/* Reads the file kept by cli_sglang_config_flag as flags the command line
 * did not give. */
kvplan_status cli_sglang_config(cli_args *cli, kvplan_error *err);

#endif /* KVPLAN_SGLANG_CONFIG_H */
