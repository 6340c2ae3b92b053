/*
 * launch_vllm.h: a pasted vllm serve command's own spellings and the YAML
 * its --config names, read as vLLM's FlexibleArgumentParser reads them
 * (launch_vllm.c).
 */
#ifndef KVPLAN_LAUNCH_VLLM_H
#define KVPLAN_LAUNCH_VLLM_H

#include "flags.h"

/* `arg`'s first `len` characters with the underscores of a long flag's
 * name read as dashes (in `buf`), or `arg` itself when nothing changes. */
const char *cli_vllm_name(const char *arg, size_t len, char *buf, size_t size);

/* What a vllm serve flag kvplan does not read (its dashed name, as
 * cli_vllm_name gives it) changes in GPU memory, or NULL: none kvplan
 * plans. */
const char *cli_vllm_memory_effect(const char *flag, size_t len);

/* --config FILE at argv[*i]: true when it was (*st its outcome; the path
 * kept for cli_vllm_config). */
bool cli_vllm_config_flag(int argc, char **argv, int *i, cli_args *cli,
                          kvplan_status *st, kvplan_error *err);

/* Reads the YAML kept by cli_vllm_config_flag as flags the command did
 * not give itself; nothing when none was given. */
kvplan_status cli_vllm_config(cli_args *cli, kvplan_error *err);

#endif /* KVPLAN_LAUNCH_VLLM_H */
