/*
 * main.c: the kvplan command.
 *
 *   kvplan               plan a built-in default and print the report
 *   kvplan pools         answer configurator scenarios (JSON lines, the
 *                        golden schema) read from standard input
 *   kvplan --help | --version
 *
 * Exit statuses (also in --help and the README):
 *   0 ok, 1 the plan does not fit, 2 usage, 3 bad input, 4 internal error.
 */
#include "jsonout.h"
#include "scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    EXIT_PLAN_OK = 0,
    EXIT_DOES_NOT_FIT = 1,
    EXIT_USAGE = 2,
    EXIT_BAD_INPUT = 3,
    EXIT_INTERNAL = 4
};

static const char usage_text[] =
    "usage: kvplan [COMMAND]\n"
    "\n"
    "Plan the KV-cache memory of an sglang server exactly as sglang's pool\n"
    "configurator would, without a GPU.\n"
    "\n"
    "commands:\n"
    "  (none)     plan the built-in default (Llama-3.1-8B-Instruct, one rank,\n"
    "             100 GiB for the KV cache) and print the report\n"
    "  pools      read configurator scenarios as JSON lines on standard input\n"
    "             (the golden schema: docs/pools.md) and write each back with\n"
    "             \"results\" filled in\n"
    "\n"
    "options:\n"
    "  --list-models  list the models of the built-in catalog\n"
    "  -h, --help     show this help\n"
    "  --version      show the version\n"
    "\n"
    "exit status:\n"
    "  0  ok\n"
    "  1  the plan does not fit: the budget cannot hold the KV-cache pools\n"
    "  2  usage: an unknown command or option\n"
    "  3  bad input: a malformed scenario or a configuration kvplan refuses\n"
    "  4  internal error (out of memory, write error)\n";

static int exit_for(kvplan_status st)
{
    switch (st) {
    case KVPLAN_OK:
        return EXIT_PLAN_OK;
    case KVPLAN_NOT_ENOUGH_MEMORY:
        return EXIT_DOES_NOT_FIT;
    case KVPLAN_NOMEM:
        return EXIT_INTERNAL;
    default:
        return EXIT_BAD_INPUT;
    }
}

/* ------------------------------------------------------------------------ */
/* kvplan pools                                                              */
/* ------------------------------------------------------------------------ */

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
    json_t *obj = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
    if (obj == NULL) {
        if (jerr.column > 0)
            fprintf(stderr, "kvplan pools: line %zu, column %d: %s\n",
                    lineno, jerr.column, jerr.text);
        else
            fprintf(stderr, "kvplan pools: line %zu: %s\n", lineno,
                    jerr.text);
        return EXIT_BAD_INPUT;
    }
    kvplan__scenario s;
    kvplan_error err;
    kvplan_status st = kvplan__scenario_parse(obj, &s, &err);
    if (st != KVPLAN_OK) {
        fprintf(stderr, "kvplan pools: line %zu: %s\n", lineno, err.message);
        json_decref(obj);
        return exit_for(st);
    }
    json_t *results = kvplan__scenario_run(&s);
    kvplan__scenario_free(&s);
    int rc = EXIT_PLAN_OK;
    if (results == NULL || json_object_set_new(obj, "results", results) != 0 ||
        kvplan__json_write(obj, stdout) != 0 || fputc('\n', stdout) == EOF) {
        fprintf(stderr, "kvplan pools: line %zu: out of memory or write "
                        "error\n",
                lineno);
        rc = EXIT_INTERNAL;
    }
    json_decref(obj);
    return rc;
}

static int cmd_pools(int argc, char **argv)
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
            return EXIT_PLAN_OK;
        }
        fprintf(stderr, "kvplan pools: unknown option '%s' (see kvplan pools "
                        "--help)\n",
                argv[i]);
        return EXIT_USAGE;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    size_t lineno = 0;
    int worst = EXIT_PLAN_OK;
    while ((len = getline(&line, &cap, stdin)) != -1) {
        lineno++;
        if ((size_t)len != strlen(line)) {
            fprintf(stderr, "kvplan pools: line %zu: contains a NUL byte\n",
                    lineno);
            worst = worst > EXIT_BAD_INPUT ? worst : EXIT_BAD_INPUT;
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
        return EXIT_INTERNAL;
    return worst;
}

/* ------------------------------------------------------------------------ */
/* The built-in default plan                                                 */
/* ------------------------------------------------------------------------ */

/*
 * Llama-3.1-8B-Instruct resolved by hand (spec §0.5): 32 layers, 8 KV heads
 * of dim 128, bf16 KV cache, one rank, page 1, with 100 GiB left for the KV
 * cache. The full flow from config.json and a GPU preset replaces this
 * once the model loader and the budget land.
 */
static int cmd_default(void)
{
    kvplan_rank r;
    kvplan_rank_init(&r);
    r.runner.kv_cache_dtype = KVPLAN_DTYPE_BFLOAT16;
    r.runner.start_layer = 0;
    r.runner.end_layer = 32;
    r.runner.num_effective_layers = 32;
    r.runner.page_size = 1;
    r.model.num_key_value_heads = 8;
    r.model.head_dim = (kvplan_opt_int){128, true};
    const int64_t available = 107374182400; /* 100 GiB */

    kvplan_configurator conf;
    kvplan_pool_config cfg;
    kvplan_error err;
    kvplan_status st = kvplan_configurator_init(&conf, &r, &err);
    if (st == KVPLAN_OK)
        st = kvplan_calculate_pool_sizes(&conf, available, r.runner.page_size,
                                         &cfg, &err);
    if (st != KVPLAN_OK) {
        fprintf(stderr, "kvplan: %s\n", err.message);
        return exit_for(st);
    }
    printf("kvplan %s: built-in default plan\n\n", kvplan_version());
    printf("model                 Llama-3.1-8B-Instruct (32 layers, 8 KV "
           "heads, head_dim 128)\n");
    printf("rank                  tp 1, pp 1, page_size 1, kv_cache_dtype "
           "bfloat16\n");
    printf("available_bytes       %lld (100.00 GiB, given)\n\n",
           (long long)available);
    printf("configurator          %s\n", kvplan_configurator_name(conf.kind));
    printf("cell_size             %lld bytes per token = 8 heads x (128 + "
           "128) x 32 layers x 2 bytes\n",
           (long long)conf.cell_size_bytes);
    printf("max_total_num_tokens  %lld = %lld // %lld, aligned to the page\n",
           (long long)cfg.max_total_num_tokens, (long long)available,
           (long long)conf.cell_size_bytes);
    printf("kv_pool_bytes         %lld (%.2f GiB)\n",
           (long long)(cfg.max_total_num_tokens * conf.cell_size_bytes),
           (double)(cfg.max_total_num_tokens * conf.cell_size_bytes) /
               (double)(1 << 30));
    return EXIT_PLAN_OK;
}

/* The built-in catalog: short name, Hugging Face id, what kvplan makes
 * of it. */
static int cmd_list_models(void)
{
    printf("%-36s %-48s %s\n", "NAME", "HUGGING FACE ID", "ARCHITECTURE");
    for (size_t i = 0; kvplan_catalog_name(i) != NULL; i++) {
        kvplan_model *m = NULL;
        kvplan_error err;
        const char *what;
        char buf[160];
        if (kvplan_model_load(kvplan_catalog_name(i), &m, &err) == KVPLAN_OK) {
            const kvplan_model_info *info = kvplan_model_get_info(m);
            snprintf(buf, sizeof buf, "%s%s", info->architecture,
                     info->is_draft_only ? " (draft head)" : "");
            what = buf;
        } else {
            snprintf(buf, sizeof buf, "(refused: %s)",
                     err.code == KVPLAN_PARSE ? "not a Hugging Face config"
                                              : "architecture not served");
            what = buf;
        }
        const char *hf = kvplan_catalog_hf_id(i);
        printf("%-36s %-48s %s\n", kvplan_catalog_name(i), hf[0] ? hf : "-",
               what);
        kvplan_model_free(m);
    }
    return fflush(stdout) == 0 ? EXIT_PLAN_OK : EXIT_INTERNAL;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return cmd_default();
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
        fputs(usage_text, stdout);
        return EXIT_PLAN_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("kvplan %s\n", kvplan_version());
        return EXIT_PLAN_OK;
    }
    if (strcmp(cmd, "pools") == 0)
        return cmd_pools(argc, argv);
    if (strcmp(cmd, "--list-models") == 0)
        return cmd_list_models();
    fprintf(stderr, "kvplan: unknown command or option '%s' (see kvplan "
                    "--help)\n",
            cmd);
    return EXIT_USAGE;
}
