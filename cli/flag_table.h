/*
 * flag_table.h: the rows of the command's one flag table (flag_table.c),
 * for the files that read it: the parser (flags.c) and the writers of
 * --help and of the JSON echo (flags_out.c).
 */
#ifndef KVPLAN_FLAG_TABLE_H
#define KVPLAN_FLAG_TABLE_H

#include "flags.h"

#include <stddef.h>

typedef enum kind {
    K_OPT_INT, /* a kvplan_opt_int */
    K_INT,     /* an int64_t with a default */
    K_DOUBLE,  /* a kvplan_opt_double */
    K_TRUE,    /* store_true: a bool */
    K_WORD,    /* a word of a kvplan_word_set, stored as its enum value */
    K_NAME,    /* a word of a kvplan_word_set, stored as the text */
    K_TEXT,    /* kept as given */
    K_GPU,     /* --gpu NAME | auto */
    K_GPU_MEMORY,
    K_HISPARSE, /* --hisparse-config JSON */
    K_VERSION,  /* --sglang-version V: a kvplan_sglang_profile */
    K_BYTES,    /* a kvplan_opt_int of bytes: 8589934592, 8GiB, 8G */
    K_ENGINE    /* --engine sglang|vllm|trtllm */
} kind;

typedef struct flag {
    const char *name;
    const char *alias;
    kind kind;
    size_t offset; /* into cli_args */
    int64_t min;   /* integers: the least value */
    double lo, hi; /* K_DOUBLE: lo < x (<= hi when hi_closed, else <) */
    bool hi_closed;
    int words;          /* K_WORD, K_NAME: the kvplan_word_set */
    const char *expect; /* what a bad value is told it should be */
    const char *meta;   /* the value in --help; NULL: the words */
    const char *help;
    const char *section; /* starts a section of --help */
    const char *json;    /* key in the "requested" echo; NULL: none */
    const char *alias2;  /* sglang's long spelling (--tensor-parallel-size) */
} flag;

extern const flag cli_flags[];
extern const size_t cli_num_flags;

#endif /* KVPLAN_FLAG_TABLE_H */
