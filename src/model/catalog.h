/*
 * catalog.h: the model configs built into kvplan (data/models), embedded at
 * build time by cmake/embed_catalog.cmake so that a catalog name works from
 * the build tree and after installation alike.
 */
#ifndef KVPLAN_CATALOG_H
#define KVPLAN_CATALOG_H

#include <stddef.h>

typedef struct kvplan__catalog_entry {
    const char *name;    /* short name: the folder in data/models */
    const char *hf_id;   /* Hugging Face id; "" when the entry has none */
    const char *aliases; /* other ids of the same config, comma-separated */
    const unsigned char *json;
    size_t json_size;
} kvplan__catalog_entry;

extern const kvplan__catalog_entry kvplan__catalog[];
extern const size_t kvplan__catalog_count;

/* The entry whose short name, Hugging Face id or alias is `name` (any
 * case); NULL when none (model/load.c). */
const kvplan__catalog_entry *kvplan__catalog_entry_of(const char *name);

#endif /* KVPLAN_CATALOG_H */
