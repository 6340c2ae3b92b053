/*
 * hub.h: --model-path org/name, from the Hub, its cache or the catalog
 * (cli/hub.c, docs/hub.md).
 */
#ifndef KVPLAN_CLI_HUB_H
#define KVPLAN_CLI_HUB_H

#include "flags.h"

/* Where --model-path is read from: `dir` gets the Hub snapshot's folder
 * when the Hub or its cache has it, "" for a local path or the catalog
 * (then cli->hub_note may say why not the Hub). The Hub's error when
 * neither it nor the catalog has the model. */
kvplan_status cli_hub_resolve(cli_args *cli, char *dir, size_t size,
                              kvplan_error *err);

#endif /* KVPLAN_CLI_HUB_H */
