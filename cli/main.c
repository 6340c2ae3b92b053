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

int main(int argc, char **argv)
{
    return cli_run(argc, argv);
}
