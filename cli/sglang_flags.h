/*
 * sglang_flags.h: sglang's launch_server flags outside kvplan's own table
 * (sglang_flags.c): accepted, so a pasted command parses, and listed as
 * ignored.
 */
#ifndef KVPLAN_SGLANG_FLAGS_H
#define KVPLAN_SGLANG_FLAGS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct cli_sglang_flag {
    const char *name;
    bool takes_value; /* one value or several (nargs); else store_true */
    /* How it changes GPU memory in a way kvplan does not model; NULL when
     * it does not touch memory. */
    const char *memory;
} cli_sglang_flag;

/* The flag named by the first `len` bytes of `name`, or NULL. */
const cli_sglang_flag *cli_sglang_flag_find(const char *name, size_t len);

/* The `index`-th name, NULL past the end. */
const char *cli_sglang_flag_at(size_t index);

#endif /* KVPLAN_SGLANG_FLAGS_H */
