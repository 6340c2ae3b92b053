/*
 * flags_out.c: --help, its flag sections generated row by row from the
 * library's table of options, then the command's own (the JSON's
 * "requested" echo is the library's: kvplan__doc_requested).
 */
#include "flags.h"

#include <stdio.h>
#include <string.h>

/* ---- --help -------------------------------------------------------------- */

static const char help_head[] =
    "usage: kvplan [--model-path MODEL] [SGLANG FLAGS] [--gpu NAME | "
    "--gpu-memory SIZE | --gpu auto]\n"
    "              [--available-bytes N] [--json] [--explain]\n"
    "       kvplan [KVPLAN FLAGS] -- python3 -m sglang.launch_server ARGS...\n"
    "       kvplan [KVPLAN FLAGS] -- sglang serve [MODEL] ARGS...\n"
    "       kvplan [KVPLAN FLAGS] -- vllm serve MODEL ARGS...  (as vLLM)\n"
    "       kvplan [KVPLAN FLAGS] -- trtllm-serve MODEL ARGS...  (as "
    "TensorRT-LLM)\n"
    "       kvplan pools < scenarios.jsonl\n"
    "       kvplan log FILE|- [--model-path MODEL] [--gpu NAME] [FLAGS] "
    "[--json]\n"
    "              [--calibrate OUT]   (an sglang start-up log beside the "
    "plan)\n"
    "       kvplan fit --concurrency N | --context-length L [FLAGS] [--json]\n"
    "                                  (the longest context for N requests,\n"
    "                                  or the most requests of L tokens)\n"
    "       kvplan solve --target-tokens T | --target-concurrency N\n"
    "              [--solve-for KNOB] [FLAGS] [--json]\n"
    "                                  (the least value of a knob that reaches "
    "it)\n"
    "       kvplan sweep [FLAGS, some as comma lists] [--rank-by KEY]\n"
    "              [--json | --csv]     (one plan per combination, ranked)\n"
    "       kvplan compare [FLAGS] [--json]  (sglang, vLLM, TRT-LLM side by "
    "side)\n"
    "       kvplan check FILE|- [--gpu NAME] [FLAGS] [--json]\n"
    "                                  (a Kubernetes manifest's servers: "
    "start or not)\n"
    "       kvplan help [COMMAND]\n"
    "       kvplan --list-models | --list-gpus | --version\n"
    "\n"
    "Plans the KV-cache memory of an sglang server exactly as sglang's pool\n"
    "configurator would, without a GPU. With no argument: "
    "Llama-3.1-8B-Instruct\n"
    "on one H100-80GB with sglang's defaults. A pasted launch command works,\n"
    "quoted whole or not (its VAR=value words are its environment):\n"
    "sglang's other flags (--host, --port, --trust-remote-code, ...) are\n"
    "accepted and listed as not read; those that change memory in ways\n"
    "kvplan does not model are warned of.\n";

static const char help_tail[] =
    "\n"
    "sglang's environment variables are read too (SGLANG_PP_LAYER_PARTITION,\n"
    "SGLANG_SWA_EVICTION_INTERVAL, SGLANG_DSV4_COMPRESS_STATE_DTYPE,\n"
    "SGLANG_MAMBA_SSM_DTYPE, ...).\n"
    "\n"
    "Warnings (a request longer than the pool holds, a tight reserve, a flag\n"
    "kvplan does not model) go to standard error, and to \"warnings\" in\n"
    "--json. Under --json an error is a JSON object on standard output:\n"
    "{\"error\", \"field\", \"message\", \"exit_status\"}.\n"
    "\n"
    "commands (kvplan help COMMAND, or COMMAND --help, for each):\n"
    "  (none)                 plan one server: the main job\n"
    "  fit                    the longest context for N requests, or the most\n"
    "                         requests of L tokens\n"
    "  solve                  the least value of a knob (--solve-for) that\n"
    "                         reaches a target\n"
    "  sweep                  one plan per combination of comma lists, ranked\n"
    "  compare                sglang, vLLM and TensorRT-LLM side by side, and\n"
    "                         why their figures differ\n"
    "  log                    an sglang start-up log beside the plan: why it\n"
    "                         says N tokens (--explain: the arithmetic)\n"
    "  pools                  read configurator scenarios as JSON lines on "
    "standard\n"
    "                         input (docs/pools.md) and write each back with\n"
    "                         \"results\" filled in\n"
    "  --list-models          list the models of the built-in catalog\n"
    "  --list-gpus            list the GPU presets\n"
    "  --version              show the version\n"
    "\n"
    "examples:\n"
    "  kvplan --model llama-3.1-70b-instruct --tp 4 --gpu H100-80GB\n"
    "  kvplan fit --concurrency 32 --model qwen3-32b --tp 2\n"
    "  kvplan solve --target-concurrency 16 --context-length 32768 "
    "--solve-for gpu\n"
    "  kvplan sweep --gpu H100-80GB,H200 --tp 1,2,4 --kv-cache-dtype "
    "auto,fp8_e4m3\n"
    "  kvplan compare --model gpt-oss-120b --tp 2\n"
    "  kvplan log server.log --model-path qwen3-8b --explain\n"
    "  kvplan -- \"python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B "
    "--tp 2\"\n"
    "  kvplan -- vllm serve Qwen/Qwen3-8B --max-model-len 32768\n"
    "  kvplan --model deepseek-v3 --tp 8 --gpu H200 --compare-version main\n"
    "\n"
    "exit status:\n"
    "  0  ok\n"
    "  1  the plan does not fit: the budget cannot hold the KV-cache pools,\n"
    "     or sglang could not start (the weights, req_to_token or the mamba\n"
    "     state exceed the memory they live in); the message names the flag\n"
    "  2  usage: an unknown command, option or option value\n"
    "  3  bad input: a malformed model config or scenario, a FIFO or device\n"
    "     given as a file, or a configuration sglang refuses (TP not dividing\n"
    "     the heads, DSA off page 64, an architecture it does not serve)\n"
    "  4  internal error (out of memory, write error)\n";

/* Writes `text` folded at 79 columns, starting at column `col`, every
 * line after the first indented by `indent`. */
static void fold(FILE *out, const char *text, int col, int indent)
{
    while (*text) {
        size_t room = (size_t)(79 - col), len = strlen(text), take = len;
        if (len > room) { /* the last blank that fits, else the first */
            take = 0;
            for (size_t k = 0; k < len && (k <= room || take == 0); k++)
                if (text[k] == ' ')
                    take = k;
            if (take == 0)
                take = len;
        }
        fprintf(out, "%.*s\n", (int)take, text);
        text += take;
        while (*text == ' ')
            text++;
        if (*text)
            fprintf(out, "%*s", indent, "");
        col = indent;
    }
}

/* One line of --help: the flag, its aliases and value, its help. */
static void help_row(FILE *out, const char *name, const char *alias,
                     const char *alias2, bool takes_value, const char *meta,
                     int words, const char *help)
{
    char left[160];
    /* a short alias first ("-h, --help"), a long one after */
    bool short_alias = alias != NULL && alias[1] != '-';
    int n = snprintf(left, sizeof left, "  %s%s%s%s%s%s%s",
                     short_alias ? alias : "", short_alias ? ", " : "", name,
                     alias && !short_alias ? ", " : "",
                     alias && !short_alias ? alias : "", alias2 ? ", " : "",
                     alias2 ? alias2 : "");
    if (takes_value) {
        char m[400] = "";
        if (meta != NULL) {
            snprintf(m, sizeof m, "%s", meta);
        } else { /* the words, a|b|c */
            const char *w;
            size_t k = 0;
            for (size_t i = 0;
                 (w = kvplan_word_at((kvplan_word_set)words, i, NULL)) &&
                 k < sizeof m;
                 i++)
                k += (size_t)snprintf(m + k, sizeof m - k, "%s%s", i ? "|" : "",
                                      w);
        }
        n += snprintf(left + n, sizeof left - (size_t)n, " %s", m);
    }
    if (n >= (int)sizeof left)
        n = (int)sizeof left - 1;
    fputs(left, out);
    if (n > 24)
        fprintf(out, "\n%*s", 25, "");
    else
        fprintf(out, "%*s", 25 - n, "");
    fold(out, help, 25, 25);
}

/* What --help lists of the library's table: all but the questions' own
 * (kvplan fit, solve and sweep have their own --help) and the output's
 * (listed with the command's). */
static bool in_help(const kvplan_option *o)
{
    return o->type != KVPLAN_OPTION_NOT_READ &&
           o->scope != KVPLAN_SCOPE_QUESTION && o->scope != KVPLAN_SCOPE_OUTPUT;
}

static void help_option(FILE *out, const kvplan_option *o)
{
    help_row(out, o->flag, o->alias, o->alias2, o->type != KVPLAN_OPTION_SWITCH,
             o->meta, o->words, o->help);
}

int cli_help(FILE *out)
{
    fputs(help_head, out);
    const kvplan_option *o;
    for (size_t i = 0; (o = kvplan_option_at(i)) != NULL; i++) {
        if (!in_help(o))
            continue;
        if (o->section != NULL)
            fprintf(out, "\n%s:\n", o->section);
        help_option(out, o);
    }
    /* the output: the command's own, and --explain */
    fprintf(out, "\noutput:\n");
    help_row(out, "--json", NULL, NULL, false, NULL, -1,
             "the plan as JSON (schema: docs/plan.schema.json)");
    help_row(out, "--svg", NULL, NULL, true, "FILE", -1,
             "also draw it as SVG: one GPU's memory and the requests at once "
             "against the context length (a sweep: its rows as bars)");
    help_option(out, kvplan_option_find("explain"));
    help_row(out, "--help", "-h", NULL, false, NULL, -1, "show this help");
    fputs(help_tail, out);
    return ferror(out) ? -1 : 0;
}

const char *cli_flag_at(size_t index)
{
    static const char *const own[] = {"--json", "--svg", "--help"};
    const kvplan_option *o;
    for (size_t i = 0; (o = kvplan_option_at(i)) != NULL; i++)
        if (in_help(o) || o->scope == KVPLAN_SCOPE_OUTPUT) {
            if (index == 0)
                return o->flag;
            index--;
        }
    return index < sizeof own / sizeof own[0] ? own[index] : NULL;
}
