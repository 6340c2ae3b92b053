/*
 * cli.c: the command's exit statuses for the library's statuses, and its
 * one error printer (cli.h).
 */
#include "cli.h"

#include <stdio.h>

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
