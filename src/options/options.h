/*
 * options.h: the options room's internals; not installed.
 *
 * Every option by name (options.c: kvplan_options and its setters over
 * the one table of common/option_table.c), and what the options name
 * loaded (load.c: the GPU resolved, a calibration, the model from a path,
 * the Hub, its cache or the catalog, its weights measured). It sits above
 * the plan, the engines, the Hub and the log: it is how a question's
 * inputs become the library's calls, for the command, the JSON request
 * and any embedder alike.
 */
#ifndef KVPLAN_OPTIONS_H
#define KVPLAN_OPTIONS_H

#include "common/internal.h"
#include "common/option_table.h"

/* The GPU of the options: --gpu auto probes the local GPUs (their count
 * into *count, when not NULL), --gpu-memory replaces the total, and
 * without either the default board is taken unless --available-bytes
 * skips the budget. */
kvplan_status kvplan__options_resolve_gpu(kvplan_options *o, int *count,
                                          kvplan_error *err);

/* Sets the row's value from `text`; `spelled` is the name as the caller
 * gave it (the error's field). */
kvplan_status kvplan__options_store(kvplan_options *o,
                                    const kvplan__option_row *row,
                                    const char *spelled, const char *text,
                                    kvplan_error *err);

/* The field an error names for `row` spelled `spelled`: its flag when the
 * caller wrote a flag, else its name. */
const char *kvplan__option_field(const kvplan__option_row *row,
                                 const char *spelled);

#endif /* KVPLAN_OPTIONS_H */
