/*
 * flags_out.c: what the flag table writes: --help, its flag sections
 * generated row by row, and the "requested" echo of --json.
 */
#include "flag_table.h"
#include "jsonout.h"

#include <stdio.h>
#include <string.h>

#define NUM_FLAGS cli_num_flags

/* ---- --help -------------------------------------------------------------- */

static const char help_head[] =
    "usage: kvplan [--model-path MODEL] [SGLANG FLAGS] [--gpu NAME | "
    "--gpu-memory SIZE | --gpu auto]\n"
    "              [--available-bytes N] [--json] [--explain]\n"
    "       kvplan [KVPLAN FLAGS] -- python3 -m sglang.launch_server ARGS...\n"
    "       kvplan [KVPLAN FLAGS] -- sglang serve [MODEL] ARGS...\n"
    "       kvplan pools < scenarios.jsonl\n"
    "       kvplan log FILE|- [--model-path MODEL] [--gpu NAME] [FLAGS] [--json]\n"
    "              [--calibrate OUT]   (an sglang start-up log beside the plan)\n"
    "       kvplan fit --concurrency N | --context-length L [FLAGS] [--json]\n"
    "                                  (the longest context for N requests,\n"
    "                                  or the most requests of L tokens)\n"
    "       kvplan solve --target-tokens T | --target-concurrency N\n"
    "              [--solve-for KNOB] [FLAGS] [--json]\n"
    "                                  (the least value of a knob that reaches it)\n"
    "       kvplan sweep [FLAGS, some as comma lists] [--rank-by KEY]\n"
    "              [--json | --csv]     (one plan per combination, ranked)\n"
    "       kvplan --list-models | --list-gpus | --version\n"
    "\n"
    "Plans the KV-cache memory of an sglang server exactly as sglang's pool\n"
    "configurator would, without a GPU. With no argument: "
    "Llama-3.1-8B-Instruct\n"
    "on one H100-80GB with sglang's defaults. A pasted launch command works:\n"
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
    "commands:\n"
    "  pools                  read configurator scenarios as JSON lines on "
    "standard\n"
    "                         input (docs/pools.md) and write each back with\n"
    "                         \"results\" filled in\n"
    "  --list-models          list the models of the built-in catalog\n"
    "  --list-gpus            list the GPU presets\n"
    "  --version              show the version\n"
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

int cli_help(FILE *out)
{
    fputs(help_head, out);
    for (size_t i = 0; i < NUM_FLAGS; i++) {
        const flag *f = &cli_flags[i];
        if (f->section != NULL)
            fprintf(out, "\n%s:\n", f->section);
        char left[160];
        /* a short alias first ("-h, --help"), a long one after */
        bool short_alias = f->alias != NULL && f->alias[1] != '-';
        int n = snprintf(left, sizeof left, "  %s%s%s%s%s%s%s",
                         short_alias ? f->alias : "", short_alias ? ", " : "",
                         f->name, f->alias && !short_alias ? ", " : "",
                         f->alias && !short_alias ? f->alias : "",
                         f->alias2 ? ", " : "", f->alias2 ? f->alias2 : "");
        if (f->kind != K_TRUE) {
            char meta[400] = "";
            if (f->meta != NULL) {
                snprintf(meta, sizeof meta, "%s", f->meta);
            } else { /* the words, a|b|c */
                const char *w;
                size_t m = 0;
                for (size_t k = 0;
                     (w = kvplan_word_at((kvplan_word_set)f->words, k, NULL)) &&
                     m < sizeof meta;
                     k++)
                    m += (size_t)snprintf(meta + m, sizeof meta - m, "%s%s",
                                          k ? "|" : "", w);
            }
            n += snprintf(left + n, sizeof left - (size_t)n, " %s", meta);
        }
        if (n >= (int)sizeof left)
            n = (int)sizeof left - 1;
        fputs(left, out);
        if (n > 24) {
            fprintf(out, "\n%*s", 25, "");
        } else {
            fprintf(out, "%*s", 25 - n, "");
        }
        fold(out, f->help, 25, 25);
    }
    fputs(help_tail, out);
    return ferror(out) ? -1 : 0;
}

/* ---- the echo of what was requested ----------------------------------------
 */

static json_t *echo(const cli_args *cli, const flag *f)
{
    const void *field = (const char *)cli + f->offset;
    int w;
    switch (f->kind) {
    case K_OPT_INT: {
        const kvplan_opt_int *x = field;
        return x->set ? json_integer(x->value) : json_null();
    }
    case K_INT: /* below its least value only when never given: auto */
        return *(const int64_t *)field < f->min
                   ? json_null()
                   : json_integer(*(const int64_t *)field);
    case K_DOUBLE: {
        const kvplan_opt_double *x = field;
        return x->set ? json_real(x->value) : json_null();
    }
    case K_TRUE:
        return json_boolean(*(const bool *)field);
    case K_WORD: {
        memcpy(&w, field, sizeof w);
        const char *name = kvplan_word_name((kvplan_word_set)f->words, w);
        return name ? json_string(name) : json_null(); /* none: null */
    }
    case K_NAME:
    case K_TEXT: {
        const char *s = *(const char *const *)field;
        return s ? cli_json_text(s) : json_null();
    }
    case K_GPU:
        return cli->gpu_text ? cli_json_text(cli->gpu_text) : json_null();
    case K_GPU_MEMORY:
        return cli->gpu_memory_set ? json_real(cli->gpu_memory_mib)
                                   : json_null();
    case K_ENGINE:
        return cli->engine_text ? cli_json_text(cli->engine_text) : json_null();
    case K_BYTES: {
        const kvplan_opt_int *x = field;
        return x->set ? json_integer(x->value) : json_null();
    }
    case K_VERSION: {
        const char *t = f->offset == offsetof(cli_args, compare_version)
                            ? cli->compare_version_text
                            : cli->sglang_version;
        return t ? cli_json_text(t) : json_null();
    }
    case K_HISPARSE:
        return cli->hisparse_text
                   ? json_real(
                         cli->options.server.hisparse_host_to_device_ratio)
                   : json_null();
    }
    return json_null();
}

json_t *cli_requested_json(const cli_args *cli)
{
    json_t *o = json_object();
    for (size_t i = 0; o != NULL && i < NUM_FLAGS; i++) {
        if (cli_flags[i].json == NULL)
            continue;
        if (json_object_set_new(o, cli_flags[i].json,
                                echo(cli, &cli_flags[i])) != 0) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}
