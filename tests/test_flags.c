/*
 * test_flags.c: the library's table of options is the single source of the
 * command's flags: every row appears in --help and in the README's flag
 * list, every bound the parser checks is the library's validation too, and
 * the JSON echo names each flag.
 *
 *   test_flags README.md
 */
#include "check.h"
#include "flags.h"
#include "launch.h"

#include "common/option_table.h"
#include "json/doc.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(FILE *f)
{
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    size_t got;
    while (b != NULL && (got = fread(b + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *g = realloc(b, cap *= 2);
            if (g == NULL) {
                free(b);
                return NULL;
            }
            b = g;
        }
    }
    if (b != NULL)
        b[n] = '\0';
    return b;
}

/* `name` as a whole flag in `text`: not followed by another name char. */
static bool mentions(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
        char after = p[n];
        if (!(after == '-' || (after >= 'a' && after <= 'z')))
            return true;
    }
    return false;
}

/* Values as Python's int() and float() read them (review D12), the
 * launch command's forms, and sglang's garbage variables said. */

/* The "requested" echo of the options, read back. */
static json_t *requested(const kvplan_options *o)
{
    kvplan__writer w = {0};
    kvplan__doc_requested(&w, NULL, o);
    char *text = kvplan__w_take(&w, NULL);
    json_t *echo = text != NULL ? json_loads(text, 0, NULL) : NULL;
    free(text);
    return echo;
}

static void test_parsing(void)
{
    cli_args *cli = malloc(sizeof *cli);
    kvplan_error err;
    char *a1[] = {"kvplan", "--tp", "2 ", "--mem-fraction-static",
                  " 0.5 ",  NULL};
    CHECK_INT(cli_parse(5, a1, 1, NULL, cli, &err), KVPLAN_OK);
    CHECK_INT(cli->o.plan.server.tp_size, 2);
    CHECK_DOUBLE(cli->o.plan.mem_fraction_static.value, 0.5);
    char *a2[] = {"kvplan", "--mem-fraction-static", "0x0.8p0", NULL};
    CHECK_INT(cli_parse(3, a2, 1, NULL, cli, &err), KVPLAN_PARSE);
    char *a3[] = {"kvplan", "--gpu-memory", "0x50GiB", NULL};
    CHECK_INT(cli_parse(3, a3, 1, NULL, cli, &err), KVPLAN_PARSE);
    /* a pasted command: the interpreter skipped, sglang's own flags
     * accepted and listed, --flag=value and nargs values taken */
    char *a4[] = {"kvplan",
                  "--",
                  "python3",
                  "-m",
                  "sglang.launch_server",
                  "--model",
                  "qwen3-8b",
                  "--host",
                  "0.0.0.0",
                  "--trust-remote-code",
                  "--lora-paths",
                  "a=/x",
                  "b=/y",
                  "--tp=2",
                  "--log-level",
                  "info",
                  NULL};
    CHECK_INT(cli_parse(16, a4, 1, NULL, cli, &err), KVPLAN_OK);
    CHECK_STR(cli->o.model_path, "qwen3-8b");
    CHECK_INT(cli->o.plan.server.tp_size, 2);
    CHECK_INT(cli->o.internal_.num_not_read, 4);
    CHECK_STR(kvplan__not_read(&cli->o, 0)->flag, "--host");
    CHECK(kvplan__not_read(&cli->o, 4) == NULL);
    CHECK(cli->launch.active);
    char *a5[] = {"kvplan",   "--",     "sglang", "serve",
                  "qwen3-8b", "--port", "8000",   NULL};
    CHECK_INT(cli_parse(7, a5, 1, NULL, cli, &err), KVPLAN_OK);
    CHECK_STR(cli->o.model_path, "qwen3-8b");
    /* an unknown flag: named, with the nearest */
    char *a6[] = {"kvplan", "--tp-sise", "2", NULL};
    CHECK_INT(cli_parse(3, a6, 1, NULL, cli, &err), KVPLAN_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "did you mean --tp-size?");
    /* a question's own flag, in another command: named as such */
    char *a8[] = {"kvplan", "--concurrency", "4", NULL};
    CHECK_INT(cli_parse(3, a8, 1, NULL, cli, &err), KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.message, "--concurrency is read by kvplan fit only");
    CHECK_INT(cli_parse(3, a8, 1, "fit", cli, &err), KVPLAN_OK);
    CHECK_INT(cli->o.concurrency.value, 4);
    /* variables sglang warns of and ignores */
    setenv("SGLANG_SWA_EVICTION_INTERVAL", "garbage", 1);
    setenv("SGLANG_OPT_USE_ONLINE_COMPRESS", "maybe", 1);
    char *a7[] = {"kvplan", NULL};
    CHECK_INT(cli_parse(1, a7, 1, NULL, cli, &err), KVPLAN_OK);
    CHECK_INT(cli->o.internal_.num_bad_env, 2);
    CHECK_INT(cli->o.plan.server.SGLANG_SWA_EVICTION_INTERVAL, 128);
    setenv("SGLANG_SWA_EVICTION_INTERVAL", "64", 1);
    unsetenv("SGLANG_OPT_USE_ONLINE_COMPRESS");
    CHECK_INT(cli_parse(1, a7, 1, NULL, cli, &err), KVPLAN_OK);
    CHECK_INT(cli->o.internal_.num_bad_env, 0);
    CHECK_INT(cli->o.plan.server.SGLANG_SWA_EVICTION_INTERVAL, 64);
    unsetenv("SGLANG_SWA_EVICTION_INTERVAL");
    free(cli);
}

/* A command quoted whole is split as POSIX sh splits a simple command
 * (XCU 2.2 quoting, 2.6.5 field splitting on blanks). */
static void test_shell_split(void)
{
    char buf[256], *w[16];
    int n = 0;
    kvplan_error err;
    const char *s = "A=1 python3 -m 'sglang.launch_server' --model-path "
                    "\"my model\" --x a\\ b --y \"q\\\"t\" \\\n --z # c";
    CHECK_INT(cli_shell_split(s, buf, w, 16, &n, &err), KVPLAN_OK);
    CHECK_INT(n, 11);
    if (n == 11) {
        CHECK_STR(w[0], "A=1");
        CHECK_STR(w[3], "sglang.launch_server");
        CHECK_STR(w[5], "my model");
        CHECK_STR(w[7], "a b");
        CHECK_STR(w[9], "q\"t");
        CHECK_STR(w[10], "--z");
    }
    const char *bad[] = {"a 'b",   "a \"b",   "a | b", "a; b",    "a > f",
                         "a $(b)", "a $HOME", "a `b`", "a \"$B\""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CHECK_INT(cli_shell_split(bad[i], buf, w, 16, &n, &err),
                  KVPLAN_INVALID_ARGUMENT);
        CHECK_STR(err.field, "--");
    }
    CHECK_INT(cli_shell_split("a b c", buf, w, 2, &n, &err),
              KVPLAN_INVALID_ARGUMENT);
}

int main(int argc, char **argv)
{
    test_parsing();
    test_shell_split();
    if (argc != 2) {
        fprintf(stderr, "usage: test_flags README.md\n");
        return 2;
    }
    FILE *readme = fopen(argv[1], "r");
    FILE *help = tmpfile();
    CHECK(readme != NULL && help != NULL);
    if (readme == NULL || help == NULL)
        return check_report();
    CHECK_INT(cli_help(help), 0);
    rewind(help);
    char *help_text = slurp(help), *readme_text = slurp(readme);
    fclose(help);
    fclose(readme);
    CHECK(help_text != NULL && readme_text != NULL);
    size_t rows = 0;
    for (const char *name;
         help_text && readme_text && (name = cli_flag_at(rows)) != NULL;
         rows++) {
        if (!mentions(help_text, name))
            CHECK_FAIL_("%s is in the flag table but not in --help", name);
        else
            check_passed_++;
        if (!mentions(readme_text, name))
            CHECK_FAIL_("%s is in the flag table but not in the README", name);
        else
            check_passed_++;
    }
    CHECK(rows > 30);

    /* a parsed command line echoes what was asked, and only that */
    char *args[] = {"kvplan",
                    "--tp",
                    "2",
                    "--page-size=16",
                    "--speculative-algorithm",
                    "nextn",
                    "--kv-cache-dtype",
                    "bfloat16",
                    "--gpu",
                    "h200",
                    NULL};
    cli_args cli;
    kvplan_error err;
    CHECK_INT(cli_parse(10, args, 1, NULL, &cli, &err), KVPLAN_OK);
    json_t *echo = requested(&cli.o);
    CHECK(echo != NULL);
    CHECK_INT(json_integer_value(json_object_get(echo, "tp_size")), 2);
    CHECK_INT(json_integer_value(json_object_get(echo, "page_size")), 16);
    /* sglang's words, canonical: NEXTN runs as EAGLE; bfloat16 is bf16 */
    CHECK_STR(json_string_value(json_object_get(echo, "speculative_algorithm")),
              "EAGLE");
    CHECK_STR(json_string_value(json_object_get(echo, "kv_cache_dtype")),
              "bf16");
    CHECK_STR(json_string_value(json_object_get(echo, "gpu")), "h200");
    CHECK(json_is_null(json_object_get(echo, "max_running_requests")));
    CHECK(json_is_null(json_object_get(echo, "mem_fraction_static")));
    json_decref(echo);
    /* the page size not given is auto: null */
    char *none[] = {"kvplan", NULL};
    CHECK_INT(cli_parse(1, none, 1, NULL, &cli, &err), KVPLAN_OK);
    echo = requested(&cli.o);
    CHECK(json_is_null(json_object_get(echo, "page_size")));
    CHECK_INT(json_integer_value(json_object_get(echo, "tp_size")), 1);
    json_decref(echo);

    /* --gpu auto is only recorded while parsing: no driver is touched */
    char *gpu_auto[] = {"kvplan", "--gpu", "auto", NULL};
    CHECK_INT(cli_parse(3, gpu_auto, 1, NULL, &cli, &err), KVPLAN_OK);
    CHECK(cli.o.gpu_auto);
    CHECK(!cli.o.plan.gpu_set);

    /* the command's bounds are the library's */
    char *frac[] = {"kvplan", "--mem-fraction-static", "0.5", NULL};
    CHECK_INT(cli_parse(3, frac, 1, NULL, &cli, &err), KVPLAN_OK);
    cli.o.plan.gpu_set = kvplan_gpu_preset("H100-80GB", &cli.o.plan.gpu);
    CHECK_INT(kvplan_plan_options_validate(&cli.o.plan, &err), KVPLAN_OK);
    char *frac_bad[] = {"kvplan", "--mem-fraction-static", "1.5", NULL};
    CHECK_INT(cli_parse(3, frac_bad, 1, NULL, &cli, &err), KVPLAN_PARSE);
    CHECK_STR(err.field, "--mem-fraction-static");
    /* every bound of the table the library enforces too: a value below a
     * row's least, or at a fraction's open end, put straight into the
     * options (no parser), is refused by kvplan_plan_options_validate
     * naming the row's flag (a page size of 0 is KVPLAN_PAGE_SIZE_AUTO:
     * tried at -1) */
    size_t bounded = 0;
    for (size_t i = 0; i < kvplan__num_option_rows; i++) {
        const kvplan__option_row *row = &kvplan__option_rows[i];
        const kvplan_option *f = &row->pub;
        if (row->region != KVPLAN__IN_PLAN && row->region != KVPLAN__IN_SERVER)
            continue; /* not a plan's option */
        bool is_int = (row->store == KVPLAN__STORE_OPT_INT ||
                       row->store == KVPLAN__STORE_INT) &&
                      f->min > -0x1p62;
        bool is_frac = row->store == KVPLAN__STORE_DOUBLE;
        if (!is_int && !is_frac)
            continue;
        char *no_args[] = {"kvplan", NULL};
        CHECK_INT(cli_parse(1, no_args, 1, NULL, &cli, &err), KVPLAN_OK);
        cli.o.plan.gpu_set = kvplan_gpu_preset("H100-80GB", &cli.o.plan.gpu);
        char *base = row->region == KVPLAN__IN_PLAN
                         ? (char *)&cli.o.plan
                         : (char *)&cli.o.plan.server;
        void *field = base + row->offset;
        int64_t below = row->zero_is_auto ? -1 : (int64_t)f->min - 1;
        if (row->store == KVPLAN__STORE_OPT_INT)
            *(kvplan_opt_int *)field = (kvplan_opt_int){below, true};
        else if (row->store == KVPLAN__STORE_INT)
            *(int64_t *)field = below;
        else
            *(kvplan_opt_double *)field = (kvplan_opt_double){f->min, true};
        kvplan_status st = kvplan_plan_options_validate(&cli.o.plan, &err);
        if (st != KVPLAN_INVALID_ARGUMENT || strcmp(err.field, f->flag) != 0)
            CHECK_FAIL_("%s: the library takes the value the command "
                        "refuses (status %d, field '%s')",
                        f->flag, (int)st, err.field);
        else
            check_passed_++;
        bounded++;
    }
    CHECK(bounded >= 15);
    free(help_text);
    free(readme_text);
    return check_report();
}
