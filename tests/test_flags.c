/*
 * test_flags.c: the flag table is the single source of the command's
 * options: every row appears in --help and in the README's flag list,
 * every bound is the library's too, and the JSON echo names each flag.
 *
 *   test_flags README.md
 */
#include "check.h"
#include "flag_table.h"
#include "flags.h"

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
static void test_parsing(void)
{
    cli_args *cli = malloc(sizeof *cli);
    kvplan_error err;
    char *a1[] = {"kvplan", "--tp", "2 ", "--mem-fraction-static", " 0.5 ",
                  NULL};
    CHECK_INT(cli_parse(5, a1, 1, cli, &err), KVPLAN_OK);
    CHECK_INT(cli->options.server.tp_size, 2);
    CHECK_DOUBLE(cli->options.mem_fraction_static.value, 0.5);
    char *a2[] = {"kvplan", "--mem-fraction-static", "0x0.8p0", NULL};
    CHECK_INT(cli_parse(3, a2, 1, cli, &err), KVPLAN_PARSE);
    char *a3[] = {"kvplan", "--gpu-memory", "0x50GiB", NULL};
    CHECK_INT(cli_parse(3, a3, 1, cli, &err), KVPLAN_PARSE);
    /* a pasted command: the interpreter skipped, sglang's own flags
     * accepted and listed, --flag=value and nargs values taken */
    char *a4[] = {"kvplan", "--", "python3", "-m", "sglang.launch_server",
                  "--model", "qwen3-8b", "--host", "0.0.0.0",
                  "--trust-remote-code", "--lora-paths", "a=/x", "b=/y",
                  "--tp=2", "--log-level", "info", NULL};
    CHECK_INT(cli_parse(16, a4, 1, cli, &err), KVPLAN_OK);
    CHECK_STR(cli->model_path, "qwen3-8b");
    CHECK_INT(cli->options.server.tp_size, 2);
    CHECK_INT(cli->num_ignored, 4);
    CHECK(cli->launch_command);
    char *a5[] = {"kvplan", "--", "sglang", "serve", "qwen3-8b", "--port",
                  "8000", NULL};
    CHECK_INT(cli_parse(7, a5, 1, cli, &err), KVPLAN_OK);
    CHECK_STR(cli->model_path, "qwen3-8b");
    /* an unknown flag: named, with the nearest */
    char *a6[] = {"kvplan", "--tp-sise", "2", NULL};
    CHECK_INT(cli_parse(3, a6, 1, cli, &err), KVPLAN_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "did you mean --tp-size?");
    /* variables sglang warns of and ignores */
    setenv("SGLANG_SWA_EVICTION_INTERVAL", "garbage", 1);
    setenv("SGLANG_OPT_USE_ONLINE_COMPRESS", "maybe", 1);
    char *a7[] = {"kvplan", NULL};
    CHECK_INT(cli_parse(1, a7, 1, cli, &err), KVPLAN_OK);
    CHECK_INT(cli->num_bad_env, 2);
    CHECK_INT(cli->options.server.SGLANG_SWA_EVICTION_INTERVAL, 128);
    setenv("SGLANG_SWA_EVICTION_INTERVAL", "64", 1);
    unsetenv("SGLANG_OPT_USE_ONLINE_COMPRESS");
    CHECK_INT(cli_parse(1, a7, 1, cli, &err), KVPLAN_OK);
    CHECK_INT(cli->num_bad_env, 0);
    CHECK_INT(cli->options.server.SGLANG_SWA_EVICTION_INTERVAL, 64);
    unsetenv("SGLANG_SWA_EVICTION_INTERVAL");
    free(cli);
}

int main(int argc, char **argv)
{
    test_parsing();
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
    CHECK_INT(cli_parse(10, args, 1, &cli, &err), KVPLAN_OK);
    json_t *echo = cli_requested_json(&cli);
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
    CHECK_INT(cli_parse(1, none, 1, &cli, &err), KVPLAN_OK);
    echo = cli_requested_json(&cli);
    CHECK(json_is_null(json_object_get(echo, "page_size")));
    CHECK_INT(json_integer_value(json_object_get(echo, "tp_size")), 1);
    json_decref(echo);

    /* --gpu auto is only recorded while parsing: no driver is touched */
    char *gpu_auto[] = {"kvplan", "--gpu", "auto", NULL};
    CHECK_INT(cli_parse(3, gpu_auto, 1, &cli, &err), KVPLAN_OK);
    CHECK(cli.gpu_auto);
    CHECK(!cli.options.gpu_set);

    /* the command's bounds are the library's */
    char *frac[] = {"kvplan", "--mem-fraction-static", "0.5", NULL};
    CHECK_INT(cli_parse(3, frac, 1, &cli, &err), KVPLAN_OK);
    cli.options.gpu_set = kvplan_gpu_preset("H100-80GB", &cli.options.gpu);
    CHECK_INT(kvplan_plan_options_validate(&cli.options, &err), KVPLAN_OK);
    char *frac_bad[] = {"kvplan", "--mem-fraction-static", "1.5", NULL};
    CHECK_INT(cli_parse(3, frac_bad, 1, &cli, &err), KVPLAN_PARSE);
    CHECK_STR(err.field, "--mem-fraction-static");
    /* every bound of the table the library enforces too: a value below a
     * row's least, or at a fraction's open end, put straight into the
     * options (no parser), is refused by kvplan_plan_options_validate
     * naming the row's flag. --available-bytes and --weight-bytes take 0
     * in the library (the command asks for a positive size), and a page
     * size of 0 is KVPLAN_PAGE_SIZE_AUTO: those are tried at -1. */
    size_t bounded = 0;
    for (size_t i = 0; i < cli_num_flags; i++) {
        const flag *f = &cli_flags[i];
        size_t at = offsetof(cli_args, options);
        if (f->offset < at || f->offset >= at + sizeof(kvplan_plan_options))
            continue; /* not an option of the library */
        bool is_int =
            (f->kind == K_OPT_INT || f->kind == K_INT) && f->min != INT64_MIN;
        bool is_frac = f->kind == K_DOUBLE && f->expect != NULL;
        if (!is_int && !is_frac)
            continue;
        char *no_args[] = {"kvplan", NULL};
        CHECK_INT(cli_parse(1, no_args, 1, &cli, &err), KVPLAN_OK);
        cli.options.gpu_set = kvplan_gpu_preset("H100-80GB", &cli.options.gpu);
        void *field = (char *)&cli + f->offset;
        int64_t below = strcmp(f->name, "--available-bytes") == 0 ||
                                strcmp(f->name, "--weight-bytes") == 0 ||
                                strcmp(f->name, "--page-size") == 0
                            ? -1
                            : f->min - 1;
        if (f->kind == K_OPT_INT)
            *(kvplan_opt_int *)field = (kvplan_opt_int){below, true};
        else if (f->kind == K_INT)
            *(int64_t *)field = below;
        else
            *(kvplan_opt_double *)field = (kvplan_opt_double){f->lo, true};
        kvplan_status st = kvplan_plan_options_validate(&cli.options, &err);
        if (st != KVPLAN_INVALID_ARGUMENT || strcmp(err.field, f->name) != 0)
            CHECK_FAIL_("%s: the library takes the value the command "
                        "refuses (status %d, field '%s')",
                        f->name, (int)st, err.field);
        else
            check_passed_++;
        bounded++;
    }
    CHECK(bounded >= 15);
    free(help_text);
    free(readme_text);
    return check_report();
}
