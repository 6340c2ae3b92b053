/*
 * sglang_config.c: sglang's --config FILE (sglang_config.h), read as
 * sglang's ConfigArgumentMerger reads it (server_args_config_parser.py,
 * 2026): a YAML (or JSON) mapping, each member one of launch_server's
 * flags, the file's flags put before the command's so the command's own
 * win ("CLI > Config > Defaults"); a store_true flag only set by true
 * (false adds nothing); `config` and `help` refused; an unknown member
 * ignored with a warning (listed here as not read). kvplan reads each
 * member as the flag it becomes, skipping those the command line gives,
 * and refuses a list or a mapping for a flag it reads as one value.
 */
#include "sglang_config.h"

#include "cli.h"
#include "common/option_table.h"
#include "launch.h"
#include "options/options.h"
#include "yaml_file.h"

#include <stdio.h>
#include <string.h>

bool cli_sglang_config_flag(int argc, char **argv, int *i, const char *eq,
                            cli_args *cli, kvplan_status *st, kvplan_error *err)
{
#ifdef KVPLAN_NO_YAML
    (void)argc, (void)argv, (void)i, (void)eq, (void)cli, (void)st, (void)err;
    return false; /* listed as not read, as sglang's other flags */
#else
    if (cli->files_remote)
        return false;
    const char *v = eq ? eq + 1 : *i + 1 < argc ? argv[++*i] : NULL;
    /* prepare_server_args merges on `"--config" in argv` */
    if (cli_launch_config_value(
            cli, "sglang", "Multiple config files specified! Only one allowed.",
            v, eq != NULL, cli->sglang_config, st, err))
        cli->sglang_config = v;
    return true;
#endif
}

kvplan_status cli_config_to_engine(cli_args *cli, kvplan_error *err)
{
    cli_launch *l = &cli->launch;
    if (cli->sglang_config == NULL || cli->o.engine == KVPLAN_ENGINE_SGLANG)
        return KVPLAN_OK;
    if (l->config_path != NULL)
        return cli_usage_error(err, "--config",
                               "--config %.200s and the pasted command's %s "
                               "%.200s: two config files; give one",
                               cli->sglang_config, l->config_flag,
                               l->config_path);
    l->engine = cli->o.engine;
    l->config_path = cli->sglang_config;
    l->config_flag = "--config";
    cli->sglang_config = NULL;
    return KVPLAN_OK;
}

#ifdef KVPLAN_NO_YAML

kvplan_status cli_sglang_config(cli_args *cli, kvplan_error *err)
{
    (void)cli, (void)err;
    return KVPLAN_OK;
}

#else

static kvplan_status member(cli_args *cli, const char *path, const char *key,
                            yaml_node_t *v, kvplan_error *err)
{
    char flag[128];
    int w = snprintf(flag, sizeof flag, "--%s", key);
    for (int k = 2; k < w && (size_t)k < sizeof flag; k++)
        flag[k] = flag[k] == '_' ? '-' : flag[k]; /* dest or flag */
    if (strcmp(flag, "--config") == 0 || strcmp(flag, "--help") == 0)
        return cli_usage_error(err, "--config",
                               "--config %.200s: %s: sglang refuses it "
                               "(\"cannot be specified in config file\")",
                               path, key);
    const kvplan_option *o = kvplan_option_find(flag);
    if (o == NULL || (o->scope != KVPLAN_SCOPE_SGLANG &&
                      o->type != KVPLAN_OPTION_NOT_READ)) {
        cli_launch_not_read(&cli->launch, flag); /* sglang: ignored, warned */
        return KVPLAN_OK;
    }
    if (kvplan__option_given(&cli->o, kvplan__row_of(o)) || cli_yaml_null(v) ||
        (o->type == KVPLAN_OPTION_SWITCH && cli_yaml_bool(v) == 0))
        return KVPLAN_OK; /* the command's own, None, or a switch off */
    const char *text = NULL;
    if (o->type == KVPLAN_OPTION_SWITCH && cli_yaml_bool(v) != 1)
        return cli_usage_error(err, "--config",
                               "--config %.200s: %s: sglang expects true or "
                               "false for a flag that takes no value",
                               path, key);
    if (v->type == YAML_SCALAR_NODE && o->type != KVPLAN_OPTION_SWITCH) {
        text = cli_yaml_keep(&cli->launch, (const char *)v->data.scalar.value);
        if (text == NULL)
            return cli_usage_error(err, "--config",
                                   "--config %.200s: its values are too long "
                                   "for kvplan",
                                   path);
    } else if (v->type != YAML_SCALAR_NODE &&
               o->type != KVPLAN_OPTION_NOT_READ) {
        return cli_usage_error(err, "--config",
                               "--config %.200s: %s: kvplan reads %s as one "
                               "value, not a %s",
                               path, key, o->flag,
                               v->type == YAML_SEQUENCE_NODE ? "list"
                                                             : "mapping");
    }
    kvplan_error e;
    kvplan_status st = kvplan_options_set(&cli->o, o->flag, text, &e);
    if (st != KVPLAN_OK && e.code != KVPLAN_NOMEM)
        return cli_usage_error(err, "--config", "--config %.200s: %s: %s", path,
                               key, e.message);
    if (st != KVPLAN_OK)
        *err = e;
    return st;
}

kvplan_status cli_sglang_config(cli_args *cli, kvplan_error *err)
{
    const char *path = cli->sglang_config;
    if (path == NULL)
        return KVPLAN_OK;
    const char *dot = strrchr(path, '.');
    if (dot == NULL || (strcmp(dot, ".yaml") != 0 && strcmp(dot, ".yml") != 0 &&
                        strcmp(dot, ".json") != 0))
        return cli_usage_error(err, "--config",
                               "--config %.200s: sglang refuses it (\"Config "
                               "file must be YAML or JSON format\")",
                               path);
    yaml_document_t doc;
    yaml_node_t *root;
    CLI_TRY(cli_yaml_load("--config", path, "sglang",
                          "launch_server's flags (sglang: \"Config file must "
                          "contain a dictionary at root level\")",
                          &doc, &root, err));
    kvplan_status st = cli_yaml_each(cli, &doc, root, path, member, err);
    yaml_document_delete(&doc);
    return st;
}

#endif
