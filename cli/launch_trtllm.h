/*
 * launch_trtllm.h: a pasted trtllm-serve command's own spellings, its
 * --backend, and the YAML its --config (--extra_llm_api_options) names,
 * read as trtllm-serve reads them (launch_trtllm.c).
 */
#ifndef KVPLAN_LAUNCH_TRTLLM_H
#define KVPLAN_LAUNCH_TRTLLM_H

#include "flags.h"

/* The spelling kvplan's table holds for one of trtllm-serve's other names
 * of a flag (--tensor_parallel_size: --tp_size), or NULL. */
const char *cli_trtllm_canonical(const char *flag, size_t len);

/* What a trtllm-serve flag (as cli_trtllm_canonical names it) or YAML
 * member kvplan does not read changes in GPU memory, or NULL: none kvplan
 * plans. */
const char *cli_trtllm_memory_effect(const char *name, size_t len);

/* --backend and --config / --extra_llm_api_options at argv[*i]: true when
 * it was one of them (*st its outcome: --backend other than pytorch
 * refused; the YAML's path kept for cli_trtllm_config), false otherwise. */
bool cli_trtllm_flag(int argc, char **argv, int *i, cli_args *cli,
                     kvplan_status *st, kvplan_error *err);

/* Reads the YAML kept by cli_trtllm_flag over the options the command's
 * flags set, as trtllm-serve merges it; nothing when none was given. */
kvplan_status cli_trtllm_config(cli_args *cli, kvplan_error *err);

#endif /* KVPLAN_LAUNCH_TRTLLM_H */
