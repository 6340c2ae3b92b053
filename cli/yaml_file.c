/*
 * yaml_file.c: an engine's YAML file of more arguments (yaml_file.h).
 */
#include "yaml_file.h"

#ifndef KVPLAN_NO_YAML
#include "cli.h"

#include <stdio.h>
#include <string.h>

/* Whether the stream holds no document after the one loaded (PyYAML's
 * safe_load refuses a second: "expected a single document"). */
static bool single(yaml_parser_t *parser)
{
    yaml_document_t next;
    if (!yaml_parser_load(parser, &next))
        return false; /* what follows is not YAML either */
    bool none = yaml_document_get_root_node(&next) == NULL;
    yaml_document_delete(&next);
    return none;
}

kvplan_status cli_yaml_load(const char *flag, const char *path, const char *who,
                            const char *what, yaml_document_t *doc,
                            yaml_node_t **root, kvplan_error *err)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return cli_usage_error(err, flag,
                               "%s %.200s: cannot be read (%s opens it "
                               "before it starts)",
                               flag, path, who);
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        fclose(f);
        return cli_usage_error(err, flag, "out of memory");
    }
    yaml_parser_set_input_file(&parser, f);
    kvplan_status st = KVPLAN_OK;
    if (!yaml_parser_load(&parser, doc)) {
        st = cli_usage_error(err, flag, "%s %.200s: not YAML (line %zu: %s)",
                             flag, path, parser.problem_mark.line + 1,
                             parser.problem ? parser.problem : "unreadable");
    } else if (!single(&parser)) {
        yaml_document_delete(doc);
        st = cli_usage_error(err, flag,
                             "%s %.200s: more than one YAML document (%s "
                             "reads one: yaml.safe_load)",
                             flag, path, who);
    } else {
        *root = yaml_document_get_root_node(doc);
        if (*root != NULL && (*root)->type != YAML_MAPPING_NODE) {
            yaml_document_delete(doc);
            st = cli_usage_error(err, flag,
                                 "%s %.200s: expected a mapping of %s", flag,
                                 path, what);
        }
    }
    yaml_parser_delete(&parser);
    fclose(f);
    return st;
}

kvplan_status cli_yaml_each(cli_args *cli, yaml_document_t *doc,
                            const yaml_node_t *root, const char *path,
                            cli_yaml_member fn, kvplan_error *err)
{
    if (root == NULL)
        return KVPLAN_OK;
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
         p < root->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(doc, p->key);
        yaml_node_t *v = yaml_document_get_node(doc, p->value);
        if (k == NULL || v == NULL || k->type != YAML_SCALAR_NODE)
            return cli_usage_error(err, "--config",
                                   "--config %.200s: expected a mapping of "
                                   "names",
                                   path);
        CLI_TRY(fn(cli, path, (const char *)k->data.scalar.value, v, err));
    }
    return KVPLAN_OK;
}

const char *cli_yaml_keep(cli_launch *l, const char *text)
{
    size_t n = strlen(text) + 1;
    if (n > sizeof l->config_text - l->config_used)
        return NULL;
    char *kept = l->config_text + l->config_used;
    memcpy(kept, text, n);
    l->config_used += n;
    return kept;
}

bool cli_yaml_null(const yaml_node_t *n)
{
    if (n->type != YAML_SCALAR_NODE ||
        n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    const char *s = (const char *)n->data.scalar.value;
    return s[0] == '\0' || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 ||
           strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0;
}

int cli_yaml_bool(const yaml_node_t *n)
{
    static const char *const words[2][9] = {
        {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"},
        {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"}};
    if (n->type != YAML_SCALAR_NODE ||
        n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return -1;
    const char *s = (const char *)n->data.scalar.value;
    for (int b = 0; b < 2; b++)
        for (size_t k = 0; k < 9; k++)
            if (strcmp(s, words[b][k]) == 0)
                return b;
    return -1;
}

#endif
