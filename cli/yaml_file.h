/*
 * yaml_file.h: an engine's YAML file of more arguments (vllm serve's and
 * sglang's --config, trtllm-serve's --config / --extra_llm_api_options),
 * loaded whole with libyaml's document loader, and its plain words as
 * PyYAML's safe_load reads them (YAML 1.1). Built with libyaml only.
 */
#ifndef KVPLAN_YAML_FILE_H
#define KVPLAN_YAML_FILE_H

#ifndef KVPLAN_NO_YAML
#include "flags.h"

#include <yaml.h>

/* Loads `path`, named `flag` on the command line, into `doc`, its root a
 * mapping (`what` says of what, for the refusal); a refusal names the flag
 * and the path. On KVPLAN_OK, free with yaml_document_delete; *root is
 * NULL for an empty file (safe_load's None). `who` is the engine that
 * opens it ("vLLM"). */
kvplan_status cli_yaml_load(const char *flag, const char *path, const char *who,
                            const char *what, yaml_document_t *doc,
                            yaml_node_t **root, kvplan_error *err);

/* A plain scalar read as null: ~, null, Null, NULL or nothing. */
bool cli_yaml_null(const yaml_node_t *n);

/* A plain scalar read as a boolean: 1 true (true, yes, on, in their three
 * cases), 0 false, -1 neither. */
int cli_yaml_bool(const yaml_node_t *n);

/* One member of a file's top mapping: its name `key` and value `v`. */
typedef kvplan_status (*cli_yaml_member)(cli_args *cli, const char *path,
                                         const char *key, yaml_node_t *v,
                                         kvplan_error *err);

/* Calls `fn` for each member of `root` (NULL: none) in order, until one
 * refuses; a name that is not a scalar is refused, naming `path`. */
kvplan_status cli_yaml_each(cli_args *cli, yaml_document_t *doc,
                            const yaml_node_t *root, const char *path,
                            cli_yaml_member fn, kvplan_error *err);

/* `text` copied into the launch's room, kept as long as the options that
 * borrow it; NULL when the room is full. */
const char *cli_yaml_keep(cli_launch *l, const char *text);

#endif
#endif /* KVPLAN_YAML_FILE_H */
