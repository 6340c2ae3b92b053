/*
 * main.c: the kvplan command.
 *
 *   kvplan [--model-path M] [sglang flags] [--gpu NAME | --gpu-memory SIZE
 *          | --gpu auto] [--available-bytes N] [--json] [--explain]
 *                        plan a server's KV cache (the main job; with no
 *                        argument, a built-in default)
 *   kvplan pools         answer configurator scenarios (JSON lines, the
 *                        golden schema) read from standard input
 *   kvplan --list-models | --list-gpus | --help | --version
 *
 * Exit statuses (also in --help and the README):
 *   0 ok, 1 the plan does not fit, 2 usage, 3 bad input, 4 internal error.
 */
#include "flags.h"
#include "jsonout.h"
#include "report.h"
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
    "usage: kvplan [--model-path MODEL] [SGLANG FLAGS] [--gpu NAME | "
    "--gpu-memory SIZE | --gpu auto]\n"
    "              [--available-bytes N] [--json] [--explain]\n"
    "       kvplan pools < scenarios.jsonl\n"
    "       kvplan --list-models | --list-gpus | --version\n"
    "\n"
    "Plans the KV-cache memory of an sglang server exactly as sglang's pool\n"
    "configurator would, without a GPU. With no argument: Llama-3.1-8B-Instruct\n"
    "on one H100-80GB with sglang's defaults.\n"
    "\n"
    "model:\n"
    "  --model-path MODEL     a model directory, a config.json, or a catalog "
    "name\n"
    "                         (kvplan --list-models); default "
    "llama-3.1-8b-instruct\n"
    "  --json-model-override-args JSON\n"
    "\n"
    "sglang flags (same names and meanings):\n"
    "  --tp-size N  --pp-size N  --dp-size N  --enable-dp-attention\n"
    "  --page-size N  --kv-cache-dtype auto|fp8_e5m2|fp8_e4m3|bf16|bfloat16|"
    "fp4_e2m1\n"
    "  --dtype auto|half|float16|bfloat16|float|float32\n"
    "  --mem-fraction-static F  --max-total-tokens N  --max-running-requests N\n"
    "  --context-length N  --chunked-prefill-size N  --max-prefill-tokens N\n"
    "  --swa-full-tokens-ratio R  --disable-radix-cache  "
    "--disable-overlap-schedule\n"
    "  --disable-cuda-graph  --cuda-graph-max-bs N  --attention-backend NAME\n"
    "  --speculative-algorithm EAGLE|EAGLE3|NEXTN|STANDALONE|DFLASH|DSPARK|"
    "NGRAM\n"
    "  --speculative-num-steps N  --speculative-eagle-topk N\n"
    "  --speculative-num-draft-tokens N  --speculative-draft-model-path MODEL\n"
    "  --disaggregation-mode null|prefill|decode  "
    "--disaggregation-decode-extra-slots N\n"
    "  --disable-hybrid-swa-memory  --enable-hisparse  --hisparse-config JSON\n"
    "  --enable-dsa-cache-layer-split\n"
    "  sglang's environment variables are read too (SGLANG_PP_LAYER_PARTITION,\n"
    "  SGLANG_SWA_EVICTION_INTERVAL, SGLANG_DSV4_COMPRESS_STATE_DTYPE, ...).\n"
    "\n"
    "budget:\n"
    "  --gpu NAME             a preset (kvplan --list-gpus), or auto: the local\n"
    "                         GPUs through the NVIDIA driver; default H100-80GB\n"
    "  --gpu-memory SIZE      total memory per GPU (80GB, 81559MiB; a bare "
    "number is MiB)\n"
    "  --available-bytes N    skip the budget: the bytes sglang's log shows for\n"
    "                         the KV cache (_profile_available_bytes)\n"
    "  --weight-bytes N       the model's weights in bytes (default: an "
    "estimate)\n"
    "\n"
    "output:\n"
    "  --json                 the plan as JSON (schema: docs/plan.schema.json)\n"
    "  --explain              every term of the bytes per token and of the "
    "budget\n"
    "\n"
    "commands:\n"
    "  pools                  read configurator scenarios as JSON lines on "
    "standard\n"
    "                         input (docs/pools.md) and write each back with\n"
    "                         \"results\" filled in\n"
    "  --list-models          list the models of the built-in catalog\n"
    "  --list-gpus            list the GPU presets\n"
    "  -h, --help             show this help\n"
    "  --version              show the version\n"
    "\n"
    "exit status:\n"
    "  0  ok\n"
    "  1  the plan does not fit: the budget cannot hold the KV-cache pools\n"
    "  2  usage: an unknown command, option or option value\n"
    "  3  bad input: a malformed model config or scenario, or a configuration\n"
    "     sglang refuses\n"
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
    json_t *obj = json_loadb(line, len, 0, &jerr); /* last key wins */
    if (obj == NULL) {
        if (jerr.column > 0)
            fprintf(stderr, "kvplan pools: line %zu, column %d: %s\n",
                    lineno, jerr.column, jerr.text);
        else
            fprintf(stderr, "kvplan pools: line %zu: %s\n", lineno,
                    jerr.text);
        return EXIT_BAD_INPUT;
    }
    cli_scenario s;
    kvplan_error err;
    kvplan_status st = cli_scenario_parse(obj, &s, &err);
    if (st != KVPLAN_OK) {
        fprintf(stderr, "kvplan pools: line %zu: %s\n", lineno, err.message);
        json_decref(obj);
        return exit_for(st);
    }
    json_t *results = cli_scenario_run(&s);
    cli_scenario_free(&s);
    int rc = EXIT_PLAN_OK;
    if (results == NULL || json_object_set_new(obj, "results", results) != 0 ||
        cli_json_write(obj, stdout) != 0 || fputc('\n', stdout) == EOF) {
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
/* The plan: the main job                                                    */
/* ------------------------------------------------------------------------ */

static int fail(const kvplan_error *err)
{
    fprintf(stderr, "kvplan: %s\n", err->message);
    return exit_for(err->code);
}

static int cmd_plan(int argc, char **argv)
{
    cli_args *cli = malloc(sizeof *cli);
    kvplan_plan *plan = malloc(sizeof *plan);
    kvplan_model *model = NULL, *draft = NULL;
    kvplan_error err;
    int rc = EXIT_PLAN_OK;
    if (cli == NULL || plan == NULL) {
        fprintf(stderr, "kvplan: out of memory\n");
        rc = EXIT_INTERNAL;
        goto done;
    }
    kvplan_status st = cli_parse(argc, argv, 1, cli, &err);
    if (st != KVPLAN_OK) {
        fprintf(stderr, "kvplan: %s\n", err.message);
        rc = st == KVPLAN_INVALID_ARGUMENT || st == KVPLAN_PARSE ? EXIT_USAGE
                                                                 : exit_for(st);
        goto done;
    }
    if (cli->help) {
        fputs(usage_text, stdout);
        goto done;
    }
    if (cli->model_path == NULL)
        cli->model_path = cli->options.model_path = "llama-3.1-8b-instruct";
    if (!cli->options.gpu_set && !cli->options.available_bytes.set) {
        kvplan_gpu_preset(KVPLAN_DEFAULT_GPU, &cli->options.gpu);
        cli->options.gpu_set = true;
        cli->gpu_name = cli->options.gpu.name;
    }
    if ((st = kvplan_model_load_override(cli->model_path, cli->override_args,
                                         &model, &err)) != KVPLAN_OK ||
        (cli->draft_model_path != NULL &&
         (st = kvplan_model_load(cli->draft_model_path, &draft, &err)) !=
             KVPLAN_OK)) {
        rc = fail(&err);
        goto done;
    }
    cli->options.server.speculative_draft_model = draft;
    /* a model directory's safetensors give the weights' real size (the
     * library estimates them otherwise); --weight-bytes wins */
    int64_t bytes;
    if (!cli->options.weight_bytes.set &&
        kvplan_weights_from_dir(cli->model_path, &bytes, NULL) == KVPLAN_OK)
        cli->options.weight_bytes = (kvplan_opt_int){bytes, true};
    if (cli->draft_model_path != NULL &&
        kvplan_weights_from_dir(cli->draft_model_path, &bytes, NULL) ==
            KVPLAN_OK)
        cli->options.draft_weight_bytes = (kvplan_opt_int){bytes, true};
    if ((st = kvplan_plan_compute(model, &cli->options, plan, &err)) !=
        KVPLAN_OK) {
        rc = fail(&err);
        goto done;
    }
    if (cli->json) {
        json_t *doc = cli_report_json(cli, model, plan);
        if (doc == NULL || cli_json_write(doc, stdout) != 0 ||
            fputc('\n', stdout) == EOF)
            rc = EXIT_INTERNAL;
        json_decref(doc);
    } else if (cli_report_text(stdout, cli, model, plan) != 0) {
        rc = EXIT_INTERNAL;
    }
    if (fflush(stdout) != 0)
        rc = EXIT_INTERNAL;
done:
    kvplan_model_free(model);
    kvplan_model_free(draft);
    free(plan);
    free(cli);
    return rc;
}

static int cmd_list_gpus(void)
{
    printf("%-12s %10s  %s\n", "NAME", "TOTAL MiB", "COMPUTE");
    kvplan_gpu g;
    for (size_t i = 0; kvplan_gpu_preset_at(i, &g); i++)
        printf("%-12s %10.0f  %s\n", g.name, g.total_mib, g.arch);
    return fflush(stdout) == 0 ? EXIT_PLAN_OK : EXIT_INTERNAL;
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
    const char *cmd = argc > 1 ? argv[1] : "";
    if (strcmp(cmd, "--version") == 0 && argc == 2) {
        printf("kvplan %s\n", kvplan_version());
        return EXIT_PLAN_OK;
    }
    if (strcmp(cmd, "pools") == 0)
        return cmd_pools(argc, argv);
    if (strcmp(cmd, "--list-models") == 0 && argc == 2)
        return cmd_list_models();
    if (strcmp(cmd, "--list-gpus") == 0 && argc == 2)
        return cmd_list_gpus();
    return cmd_plan(argc, argv);
}
