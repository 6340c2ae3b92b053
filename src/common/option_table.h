/*
 * option_table.h: the one table of options (option_table.c): every flag of
 * the command, key of a JSON request and keyword of Python, with where its
 * value is kept, its bounds, its words and its help; and sglang's flags
 * kvplan accepts without reading them (sglang_flags.c). The parser of the
 * command, the JSON request, --help, the documents' "requested" echo and
 * the library's own checks (kvplan_plan_options_validate,
 * kvplan_model_rank) all read it, so a bound is written once.
 *
 * Pure data and checks of stored values: this file knows the public
 * structs' layout and nothing of models, GPUs or plans.
 */
#ifndef KVPLAN_OPTION_TABLE_H
#define KVPLAN_OPTION_TABLE_H

#include "common/internal.h"

/* How a value is kept. */
typedef enum kvplan__store {
    KVPLAN__STORE_OPT_INT = 1,    /* a kvplan_opt_int */
    KVPLAN__STORE_INT,            /* an int64_t with a default */
    KVPLAN__STORE_INT32,          /* an int32_t with a default */
    KVPLAN__STORE_DOUBLE,         /* a kvplan_opt_double */
    KVPLAN__STORE_BOOL,           /* a bool (a switch) */
    KVPLAN__STORE_WORD,           /* a word set's value, as an int-sized enum */
    KVPLAN__STORE_NAME,           /* a word set's word, its static text */
    KVPLAN__STORE_TEXT,           /* the text given, borrowed */
    KVPLAN__STORE_GPU,            /* a GPU preset or auto */
    KVPLAN__STORE_GPU_MEMORY,     /* MiB, a kvplan_opt_double */
    KVPLAN__STORE_BYTES,          /* bytes, a kvplan_opt_int */
    KVPLAN__STORE_HISPARSE,       /* {"host_to_device_ratio": R} */
    KVPLAN__STORE_VERSION,        /* an sglang version: a profile */
    KVPLAN__STORE_VLLM_VERSION,   /* a vLLM version: a profile */
    KVPLAN__STORE_TRTLLM_VERSION, /* a TensorRT-LLM version: a profile */
    KVPLAN__STORE_ENGINE,         /* sglang, vllm, trtllm */
    KVPLAN__STORE_KNOB,           /* solve's knob: a kvplan_knob */
    KVPLAN__STORE_RANK_KEY,       /* sweep's key: a kvplan_sweep_key */
    KVPLAN__STORE_NONE            /* sglang's flag not read */
} kvplan__store;

/* The struct a value's offset is in. */
typedef enum kvplan__region {
    KVPLAN__IN_OPTIONS = 1, /* kvplan_options */
    KVPLAN__IN_PLAN,        /* kvplan_plan_options */
    KVPLAN__IN_SERVER,      /* kvplan_server_args */
    KVPLAN__IN_ENGINE       /* kvplan_engine_options */
} kvplan__region;

typedef struct kvplan__option_row {
    kvplan_option pub; /* first: a kvplan_option * is a row's */
    kvplan__store store;
    kvplan__region region;
    size_t offset;
    /* INTEGER kept as INT: a value of 0 means "auto" (--page-size) */
    bool zero_is_auto;
    /* the key of the documents' "requested" echo; NULL: the name */
    const char *echo_key;
    /* the engines whose plan reads it (KVPLAN__READ_*); 0: by its scope
     * (sglang's flags sglang's, the engines' flags vLLM's and TRT-LLM's,
     * kvplan's own all) */
    unsigned char readers;
    /* the option of the same meaning each engine reads instead (its
     * name, indexed by kvplan_engine); NULL where none is */
    const char *peer[3];
} kvplan__option_row;

#define KVPLAN__READ_SGLANG (1u << KVPLAN_ENGINE_SGLANG)
#define KVPLAN__READ_VLLM (1u << KVPLAN_ENGINE_VLLM)
#define KVPLAN__READ_TRTLLM (1u << KVPLAN_ENGINE_TRTLLM)
#define KVPLAN__READ_ALL 7u

/* The engines whose plan reads `row` (KVPLAN__READ_*). */
unsigned kvplan__option_readers(const kvplan__option_row *row);

/* Whether `x` is inside an option's bounds. */
static inline bool kvplan__option_in_bounds(const kvplan_option *o, double x)
{
    return (o->min_open ? x > o->min : x >= o->min) &&
           (o->max_open ? x < o->max : x <= o->max);
}

/* Why `row`'s value at `field` (inside the struct at `base`) is refused,
 * naming its flag and what it expects; KVPLAN_OK where it is not. */
kvplan_status kvplan__option_check_row(const kvplan__option_row *row,
                                       const void *base, const void *field,
                                       kvplan_error *err);

/* The options kvplan reads, then sglang's it does not; both static. */
extern const kvplan__option_row kvplan__option_rows[];
extern const size_t kvplan__num_option_rows;
extern const kvplan__option_row kvplan__sglang_rows[];
extern const size_t kvplan__num_sglang_rows;

/* The row of a public option (kvplan_option_at's pointers are rows). */
static inline const kvplan__option_row *
kvplan__row_of(const kvplan_option *option)
{
    return (const kvplan__option_row *)(const void *)option;
}

/* The row `name` spells (its first `len` bytes): a name, a flag, an alias,
 * or the name with dashes; NULL when none. */
const kvplan__option_row *kvplan__option_lookup(const char *name, size_t len);

/* The option nearest `name` within 3 edits (a "did you mean"), spelled as
 * `name` is (a flag, or a name); NULL when none is near. */
const char *kvplan__option_nearest(const char *name, size_t len, char *buf,
                                   size_t size);

/* Checks the stored values of every row kept in `region` (a
 * kvplan_plan_options, a kvplan_server_args or a kvplan_engine_options at
 * `base`) against its bounds and words. KVPLAN_INVALID_ARGUMENT naming
 * the flag of the first out of range. */
kvplan_status kvplan__options_check_region(kvplan__region region,
                                           const void *base, kvplan_error *err);

/* The same for the rows of several regions in one walk: a
 * kvplan_plan_options (`plan`), its server args, an engine's options;
 * NULL for a region not checked. */
kvplan_status kvplan__options_check(const void *plan, const void *server,
                                    const void *engine, kvplan_error *err);

/* The same for --mem-fraction-static alone (kvplan_plan_update's rows,
 * which change only the fraction). */
kvplan_status kvplan__options_check_fraction(const kvplan_plan_options *o,
                                             kvplan_error *err);

#endif /* KVPLAN_OPTION_TABLE_H */
