/*
 * cli.c: the command's exit statuses for the library's statuses, and its
 * one error printer (cli.h).
 */
#include "cli.h"
#include "jsonout.h"

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

int cli_error(const char *who, const kvplan_error *err, int rc, bool json)
{
    if (!json) {
        fprintf(stderr, "%s: %s\n", who, err->message);
        return rc;
    }
    json_t *o = json_pack("{s:s, s:o, s:o, s:i}", "error",
                          kvplan_status_name(err->code), "field",
                          err->field[0] ? cli_json_text(err->field)
                                        : json_null(),
                          "message", cli_json_text(err->message),
                          "exit_status", rc);
    if (o == NULL || cli_json_write(o, stdout) != 0 ||
        fputc('\n', stdout) == EOF)
        rc = CLI_EXIT_INTERNAL;
    json_decref(o);
    return fflush(stdout) != 0 ? CLI_EXIT_INTERNAL : rc;
}
