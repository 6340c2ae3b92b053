/*
 * test_catalogue.c: every option of the library's table (kvplan_option_at)
 * given a value of the wrong type through the command line and through a
 * JSON request is refused, naming the option in that entry point's terms:
 * the flag as spelled on the command line, the member as keyed in the
 * request (issue 25). Python's keywords: python/tests, InputContractTest.
 *
 * On a command line every value is text, so a wrong type is a word where a
 * number goes, a number's text where a word goes, a value given to a
 * switch; a path or a name (--model-path, --revision) has no wrong type
 * there and is checked when it is read.
 */
#include "check.h"
#include "flags.h"

#include "common/option_table.h"
#include "kvplan_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A command-line value of the wrong type for the row; NULL: none is. */
static const char *cli_wrong(const kvplan__option_row *row)
{
    switch (row->pub.type) {
    case KVPLAN_OPTION_INTEGER:
    case KVPLAN_OPTION_NUMBER:
        return "x1";
    case KVPLAN_OPTION_SIZE:
        return "lots";
    case KVPLAN_OPTION_WORD:
        return "no-such-word";
    case KVPLAN_OPTION_SWITCH:
        return "maybe"; /* as --switch=maybe */
    default:
        break;
    }
    switch (row->store) { /* texts that are words or JSON */
    case KVPLAN__STORE_GPU:
    case KVPLAN__STORE_ENGINE:
    case KVPLAN__STORE_VERSION:
        return "no-such-word";
    case KVPLAN__STORE_HISPARSE:
        return "[1]";
    default:
        return NULL;
    }
}

static void test_command_line(void)
{
    cli_args *cli = malloc(sizeof *cli);
    const kvplan_option *o;
    int tried = 0;
    for (size_t k = 0; cli != NULL && (o = kvplan_option_at(k)) != NULL; k++) {
        const kvplan__option_row *row = kvplan__row_of(o);
        const char *bad = cli_wrong(row);
        if (o->type == KVPLAN_OPTION_NOT_READ || bad == NULL)
            continue;
        char arg[128];
        char *argv[4] = {"kvplan", arg, NULL, NULL};
        int argc = 2;
        if (o->type == KVPLAN_OPTION_SWITCH) {
            snprintf(arg, sizeof arg, "%s=%s", o->flag, bad);
        } else {
            snprintf(arg, sizeof arg, "%s", o->flag);
            argv[argc++] = (char *)bad;
        }
        kvplan_error err;
        kvplan_status st = cli_parse(argc, argv, 1, o->question, cli, &err);
        tried++;
        if (st == KVPLAN_OK) {
            CHECK_FAIL_("%s %s: taken", arg, bad);
            continue;
        }
        CHECK_STR(err.field, o->flag);
        if (strstr(err.message, o->flag) == NULL)
            CHECK_FAIL_("%s %s: the message does not name it: %s", arg, bad,
                        err.message);
    }
    CHECK(tried > 40);
    free(cli);
}

/* A request's value of the wrong JSON type for the option. */
static const char *json_wrong(const kvplan_option *o)
{
    switch (o->type) {
    case KVPLAN_OPTION_INTEGER:
    case KVPLAN_OPTION_NUMBER:
    case KVPLAN_OPTION_SIZE:
        return "\"x1\"";
    case KVPLAN_OPTION_SWITCH:
        return "\"maybe\"";
    default:
        return "5"; /* a number where a word, a name or a path goes */
    }
}

static void test_request(void)
{
    const kvplan_option *o;
    int tried = 0;
    for (size_t k = 0; (o = kvplan_option_at(k)) != NULL; k++) {
        if (o->type == KVPLAN_OPTION_NOT_READ)
            continue;
        char req[256];
        snprintf(req, sizeof req,
                 "{\"command\": \"%s\", \"flags\": {\"%s\": %s}}",
                 o->question ? o->question : "plan", o->name, json_wrong(o));
        char *resp = NULL;
        kvplan_status st = kvplan_json(req, strlen(req), &resp, NULL);
        tried++;
        char field[160];
        snprintf(field, sizeof field, "\"field\": \"%s\"", o->name);
        if (st == KVPLAN_OK || resp == NULL)
            CHECK_FAIL_("%s: taken", req);
        else if (strstr(resp, field) == NULL)
            CHECK_FAIL_("%s: the field is not %s: %s", req, o->name, resp);
        else if (strstr(strstr(resp, "\"message\""), o->name) == NULL)
            CHECK_FAIL_("%s: the message does not name %s: %s", req, o->name,
                        resp);
        else
            check_passed_++;
        kvplan_json_free(resp);
    }
    CHECK(tried > 60);
}

int main(void)
{
    test_command_line();
    test_request();
    return check_report();
}
