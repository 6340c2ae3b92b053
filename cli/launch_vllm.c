/*
 * launch_vllm.c: a pasted vllm serve command's own spellings and its
 * --config YAML (launch_vllm.h), as vLLM's FlexibleArgumentParser reads
 * them (vllm/utils/argparse_utils.py, read at 00da11e, 2026):
 *
 * - a long flag's name, from its "--" to its first ".", has its
 *   underscores read as dashes (--max_model_len is --max-model-len);
 * - --config FILE (.yaml or .yml only): yaml.safe_load of a mapping, each
 *   member one flag (true: --key; false: --no-key where that flag exists,
 *   else nothing; a list: --key and its items; a mapping: --key and its
 *   JSON; else --key and the value), inserted after `serve MODEL` and
 *   before the command's other flags, so the command's own flag wins over
 *   the file's (_pull_args_from_config: "cli > config > defaults"). kvplan
 *   reads each member as the flag it becomes, skipping those the command
 *   gives itself; a model the command does not name comes from `model`.
 */
#include "launch_vllm.h"

#include "cli.h"
#include "common/option_table.h"
#include "launch.h"
#include "options/options.h"

#include <stdio.h>
#include <string.h>

#include "yaml_file.h"

const char *cli_vllm_name(const char *arg, size_t len, char *buf, size_t size)
{
    if (len < 3 || arg[0] != '-' || arg[1] != '-' || len >= size ||
        memchr(arg, '_', len) == NULL)
        return arg;
    memcpy(buf, arg, len);
    buf[len] = '\0';
    for (size_t k = 2; k < len && buf[k] != '.'; k++)
        if (buf[k] == '_')
            buf[k] = '-';
    return buf;
}

/* vLLM's flags that change GPU memory in ways kvplan does not model: what
 * each changes (vLLM's EngineArgs). The others kvplan does not read change
 * none it plans. */
static const struct {
    const char *flag, *changes;
} memory[] = {
    {"--cpu-offload-gb", "weights kept on the CPU"},
    {"--speculative-config", "a draft model's weights and KV cache"},
    {"--compilation-config", "the CUDA graphs captured"},
    {"--cuda-graph-sizes", "the CUDA graphs captured"},
    {"--max-cudagraph-capture-size", "the CUDA graphs captured"},
    {"--limit-mm-per-prompt", "the multimodal encoder's profile run"},
    {"--mm-processor-kwargs", "the multimodal encoder's profile run"},
    {"--enable-lora", "LoRA adapters' weights"},
    {"--max-loras", "LoRA adapters' weights"},
    {"--max-lora-rank", "LoRA adapters' weights"},
    {"--hf-overrides", "the model's config"},
    {"--kv-transfer-config", "a KV connector's buffers"},
    {"--kv-offloading-size", "KV blocks offloaded"},
    {"--enable-expert-parallel", "the MoE layers' all-to-all buffers"},
    {"--attention-config.use_fp4_indexer_cache",
     "DeepSeek-V4's indexer keys (kvplan's --fp4-indexer-cache)"},
    {"--enable-prefix-caching",
     "a mamba hybrid's state blocks (--mamba-cache-mode says which)"},
    {"--config", "the flags its YAML gives"},
};

const char *cli_vllm_memory_effect(const char *a, size_t n)
{
    /* -O0 .. -O3 (--optimization-level): -O0 compiles nothing and captures
     * no CUDA graphs */
    if ((n >= 2 && a[0] == '-' && a[1] == 'O' &&
         strspn(a + 2, "0123456789") == n - 2) ||
        (n == 20 && memcmp(a, "--optimization-level", 20) == 0))
        return "the compilation level: -O0 captures no CUDA graphs";
    for (size_t k = 0; k < sizeof memory / sizeof memory[0]; k++)
        if (strlen(memory[k].flag) == n && memcmp(memory[k].flag, a, n) == 0)
            return memory[k].changes;
    return NULL;
}

bool cli_vllm_config_flag(int argc, char **argv, int *i, cli_args *cli,
                          kvplan_status *st, kvplan_error *err)
{
    const char *arg = argv[*i];
    bool eq = strncmp(arg, "--config=", 9) == 0;
    if (strcmp(arg, "--config") != 0 && !eq)
        return false;
    const char *v = eq ? arg + 9 : *i + 1 < argc ? argv[++*i] : NULL;
    /* _pull_args_from_config runs on `"--config" in args` */
    if (!cli_launch_config_value(cli, "vLLM",
                                 "More than one config file specified!", v, eq,
                                 cli->launch.config_path, st, err))
        return true;
    if (cli->files_remote)
        cli_launch_not_read(&cli->launch, "--config");
    else
        cli->launch.config_path = v;
    return true;
}

#ifdef KVPLAN_NO_YAML

kvplan_status cli_vllm_config(cli_args *cli, kvplan_error *err)
{
    (void)err;
    if (cli->launch.config_path != NULL &&
        cli->launch.engine == KVPLAN_ENGINE_VLLM)
        cli_launch_not_read(&cli->launch, "--config");
    cli->launch.config_path = NULL; /* listed, not read */
    return KVPLAN_OK;
}

#else

/* Whether the command line gave `flag` itself: an option kvplan read
 * (kvplan__option_given), or one listed as not read. */
static bool given(const cli_args *cli, const char *flag)
{
    const cli_launch *l = &cli->launch;
    char buf[128];
    const kvplan_option *o;
    for (size_t k = 0; (o = kvplan_option_at(k)) != NULL; k++)
        if (o->vllm != NULL && strcmp(o->vllm, flag) == 0)
            return kvplan__option_given(&cli->o, kvplan__row_of(o));
    for (size_t k = 0; k < l->num_not_read; k++) {
        const char *a = l->not_read[k], *eq = strchr(a, '=');
        size_t n = eq ? (size_t)(eq - a) : strlen(a);
        a = cli_vllm_name(a, n, buf, sizeof buf);
        if (strlen(flag) == n && memcmp(a, flag, n) == 0)
            return true;
    }
    return false;
}

/* One member as the words vLLM makes of it, read as the command's. */
static kvplan_status member(cli_args *cli, const char *path, const char *key,
                            yaml_node_t *v, kvplan_error *err)
{
    cli_launch *l = &cli->launch;
    char flag[128], buf[128], *words[3];
    int n = 0;
    snprintf(flag, sizeof flag, "--%s", key);
    const char *name = cli_vllm_name(flag, strlen(flag), buf, sizeof buf);
    if (strcmp(name, "--model") == 0) { /* the positional's stand-in */
        if (v->type == YAML_SCALAR_NODE && cli->o.model_path == NULL)
            cli->o.model_path =
                cli_yaml_keep(l, (const char *)v->data.scalar.value);
        return KVPLAN_OK;
    }
    const char *s =
        v->type == YAML_SCALAR_NODE ? (const char *)v->data.scalar.value : NULL;
    bool yes = cli_yaml_bool(v) == 1, no = cli_yaml_bool(v) == 0;
    if (cli_yaml_null(v))
        return KVPLAN_OK; /* None: the default */
    if (no) { /* --no-KEY where vLLM has it; kvplan's switches are off */
        char off[136];
        snprintf(off, sizeof off, "--no-%s", name + 2);
        if (given(cli, name) || given(cli, off))
            return KVPLAN_OK;
        words[n++] = (char *)cli_yaml_keep(l, off);
    } else {
        if (given(cli, name))
            return KVPLAN_OK;
        words[n++] = (char *)cli_yaml_keep(l, name);
        if (!yes)
            words[n++] =
                (char *)cli_yaml_keep(l, s != NULL                      ? s
                                         : v->type == YAML_MAPPING_NODE ? "{}"
                                                                        : "[]");
    }
    for (int k = 0; k < n; k++)
        if (words[k] == NULL)
            return cli_usage_error(err, "--config",
                                   "--config %.200s: its members are too "
                                   "long for kvplan",
                                   path);
    words[n] = NULL;
    int i = 0;
    kvplan_status st = cli_launch_flag(n, words, &i, cli, err);
    if (st == KVPLAN_OK && i + 1 < n) /* a switch given a word */
        return cli_usage_error(err, "--config",
                               "--config %.200s: %s: vLLM makes it %s %.60s, "
                               "a flag that takes no value (argparse: "
                               "\"unrecognized arguments\")",
                               path, key, words[0], words[1]);
    if (st != KVPLAN_OK && err->code != KVPLAN_NOMEM) {
        char why[sizeof err->message];
        snprintf(why, sizeof why, "%s", err->message);
        return cli_usage_error(err, "--config", "--config %.200s: %s: %s", path,
                               key, why);
    }
    return st;
}

kvplan_status cli_vllm_config(cli_args *cli, kvplan_error *err)
{
    cli_launch *l = &cli->launch;
    const char *path = l->config_path;
    if (path == NULL || l->engine != KVPLAN_ENGINE_VLLM)
        return KVPLAN_OK;
    const char *dot = strrchr(path, '.');
    if (dot == NULL || (strcmp(dot, ".yaml") != 0 && strcmp(dot, ".yml") != 0))
        return cli_usage_error(err, "--config",
                               "--config %.200s: vLLM refuses it (\"Config "
                               "file must be of a yaml/yml type\")",
                               path);
    yaml_document_t doc;
    yaml_node_t *root;
    CLI_TRY(cli_yaml_load("--config", path, "vLLM",
                          "vllm serve's arguments (vLLM calls "
                          "config.items())",
                          &doc, &root, err));
    kvplan_status st = KVPLAN_OK;
    if (root == NULL)
        st = cli_usage_error(err, "--config",
                             "--config %.200s: empty (vLLM calls "
                             "config.items() on it)",
                             path);
    if (st == KVPLAN_OK)
        st = cli_yaml_each(cli, &doc, root, path, member, err);
    yaml_document_delete(&doc);
    return st;
}

#endif
