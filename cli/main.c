/*
 * main.c: the kvplan command.
 *
 *   kvplan [--model-path M] [sglang flags] [--gpu NAME | --gpu-memory SIZE
 *          | --gpu auto] [--available-bytes N] [--json] [--explain]
 *                        plan a server's KV cache (the main job; with no
 *                        argument, a built-in default)
 *   kvplan pools         answer configurator scenarios (JSON lines, the
 *                        golden schema) read from standard input
 *   kvplan log FILE|- [--model-path M] [--gpu G] [flags] [--json]
 *          [--calibrate OUT]
 *                        reconcile an sglang start-up log with the plan
 *   kvplan --list-models | --list-gpus | --help | --version
 *
 * Exit statuses (cli.h, also in --help and the README):
 *   0 ok, 1 the plan does not fit, 2 usage, 3 bad input, 4 internal error.
 */
#include "cli.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "";
    if (strcmp(cmd, "--version") == 0 && argc == 2) {
        printf("kvplan %s\n", kvplan_version());
        return CLI_EXIT_OK;
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
