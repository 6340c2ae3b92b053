/*
 * cmd_pools.c: kvplan pools: configurator scenarios in the golden schema
 * (docs/pools.md), one JSON object a line on standard input, each written
 * back with "results" filled in.
 */
#include "cli.h"
#include "json/doc.h"
#include "json/scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool blank(const char *s)
{
    for (; *s != '\0'; s++)
        if (*s != ' ' && *s != '\t' && *s != '\r' && *s != '\n')
            return false;
    return true;
}

/* Answers one line; returns an exit status for it. */
static int pools_line(const char *line, size_t len, size_t lineno)
{
    json_error_t jerr;
    json_t *obj = json_loadb(line, len, 0, &jerr); /* last key wins */
    if (obj == NULL) {
        if (jerr.column > 0)
            fprintf(stderr, "kvplan pools: line %zu, column %d: %s\n", lineno,
                    jerr.column, jerr.text);
        else
            fprintf(stderr, "kvplan pools: line %zu: %s\n", lineno, jerr.text);
        return CLI_EXIT_BAD_INPUT;
    }
    kvplan__scenario s;
    kvplan_error err;
    kvplan_status st = kvplan__scenario_parse(obj, &s, &err);
    if (st != KVPLAN_OK) {
        fprintf(stderr, "kvplan pools: line %zu: %s\n", lineno, err.message);
        json_decref(obj);
        return cli_exit_for(st);
    }
    kvplan__writer w = {0};
    kvplan__scenario_answer(&w, obj, &s);
    kvplan__scenario_free(&s);
    int rc = CLI_EXIT_OK;
    if (kvplan__w_print(&w, stdout, true) != 0) {
        fprintf(stderr,
                "kvplan pools: line %zu: out of memory or write "
                "error\n",
                lineno);
        rc = CLI_EXIT_INTERNAL;
    }
    json_decref(obj);
    return rc;
}

int cli_cmd_pools(int argc, char **argv)
{
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs("usage: kvplan pools < scenarios.jsonl\n"
                  "\n"
                  "Answers each scenario (one JSON object per line, the golden "
                  "schema of\ndocs/pools.md) with sglang's configurator and "
                  "writes it back with\n\"results\" filled in. A malformed "
                  "line is reported on standard error\nwith its number; the "
                  "other lines are still answered, and the exit\nstatus is "
                  "then 3.\n",
                  stdout);
            return CLI_EXIT_OK;
        }
        fprintf(stderr,
                "kvplan pools: unknown option '%s' (see kvplan pools "
                "--help)\n",
                argv[i]);
        return CLI_EXIT_USAGE;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    size_t lineno = 0;
    int worst = CLI_EXIT_OK;
    while ((len = getline(&line, &cap, stdin)) != -1) {
        lineno++;
        if ((size_t)len != strlen(line)) {
            fprintf(stderr, "kvplan pools: line %zu: contains a NUL byte\n",
                    lineno);
            worst = worst > CLI_EXIT_BAD_INPUT ? worst : CLI_EXIT_BAD_INPUT;
            continue;
        }
        if (blank(line))
            continue;
        int rc = pools_line(line, (size_t)len, lineno);
        if (rc > worst)
            worst = rc;
    }
    free(line);
    if (fflush(stdout) != 0)
        return CLI_EXIT_INTERNAL;
    return worst;
}
