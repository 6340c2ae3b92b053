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

/* load.c: whether what `o` names cannot change between two loads (a
 * catalog name, config.json's text; a draft by a catalog name; no
 * calibration file), so that a session may keep its models. */
bool kvplan__options_reusable(const kvplan_options *o);
/* kvplan_options_load with the models already loaded for the same options
 * (kvplan__options_reusable): the GPU resolved, the draft set; `l` holds
 * the borrowed models. */
kvplan_status kvplan__options_load_with(kvplan_options *o, kvplan_loaded *l,
                                        kvplan_model *model,
                                        kvplan_model *draft, kvplan_error *err);

/* Records that the row was given, its value `v` (a switch set to "false"
 * is not). */
void kvplan__option_mark_given(kvplan_options *o, const kvplan__option_row *row,
                               const char *v);
/* Whether `name` is an environment variable kvplan reads (env.c); the
 * one nearest `name` within 3 edits, or NULL. */
bool kvplan__env_is_read(const char *name);

/* Whether `name` is one only the process's environment may set (a path,
 * an endpoint or a secret of the Hub's): refused in a request's env. */
bool kvplan__env_is_process_only(const char *name);
const char *kvplan__env_nearest(const char *name);

/* Whether the row was given (set by name). */
bool kvplan__option_given(const kvplan_options *o,
                          const kvplan__option_row *row);

/* The `index`-th option given that the engine asked (o->engine) does not
 * read, with a warning naming it and that engine's option of the same
 * meaning into `text`; NULL past the last. */
const kvplan_option *kvplan__options_unused(const kvplan_options *o,
                                            size_t index, char *text,
                                            size_t size);

/* Refuses what question `question` (NULL: a plan) does not read: another
 * engine than sglang for one that answers for sglang's pools (fit, solve,
 * sweep, log), --explain for one with no terms to explain (sweep,
 * compare); named as a flag (`flags`) or as a request's key. */
kvplan_status kvplan__options_for_question(const kvplan_options *o,
                                           const char *question, bool flags,
                                           kvplan_error *err);

/* --compare-version `v` (spelled `flag`: "--compare-version", or a
 * request's key) names no release of `engine`, vLLM or TensorRT-LLM:
 * refused in that engine's terms. */
kvplan_status kvplan__compare_release_refusal(kvplan_engine engine,
                                              const char *flag, const char *v,
                                              kvplan_error *err);

/* Sets the row's value from `text`; `spelled` is the name as the caller
 * gave it (the error's field). */
kvplan_status kvplan__options_store(kvplan_options *o,
                                    const kvplan__option_row *row,
                                    const char *spelled, const char *text,
                                    kvplan_error *err);

/* Where `row`'s value is kept in `o` (its region's struct, at its
 * offset). */
const void *kvplan__option_value(const kvplan_options *o,
                                 const kvplan__option_row *row);

/* The field an error names for `row` spelled `spelled`: its flag when the
 * caller wrote a flag, else its name. */
const char *kvplan__option_field(const kvplan__option_row *row,
                                 const char *spelled);

/* log.c: kvplan log's question over `o` (the log's options with the
 * caller's over them): the GPU where one is named, the model (the
 * options', else the log's model_path, tried as a path, its last two
 * parts as a Hub id, and its last part), the draft, the reconciled plan.
 * The model's absence is a cause in `x`, not an error. */
typedef struct kvplan__log_answer {
    kvplan_model *model, *draft; /* owned: kvplan__log_answer_free */
    const char *model_name;      /* the model's name, or the name tried */
    char why[600];               /* why no model was planned */
} kvplan__log_answer;

kvplan_status kvplan__log_question(kvplan_options *o,
                                   const kvplan_log_readings *r,
                                   kvplan_plan *work, kvplan_log_result *x,
                                   kvplan__log_answer *a, kvplan_error *err);
void kvplan__log_answer_free(kvplan__log_answer *a);

/* A vLLM log's question: the GPU named, the model (the options', else the
 * log's), the engine options `eo` (the log's arguments with the caller's
 * over them) and the log reconciled. */
kvplan_status
kvplan__vllm_log_question(kvplan_options *o, const kvplan_vllm_log_readings *r,
                          kvplan_engine_options *eo, kvplan_vllm_log_result *x,
                          kvplan__log_answer *a, kvplan_error *err);
/* A TensorRT-LLM log's question: the GPU named, the caller's model (the
 * log names none), the engine options, the interval from its own
 * available memory. */
kvplan_status kvplan__trtllm_log_question(kvplan_options *o,
                                          const kvplan_trtllm_log_readings *r,
                                          kvplan_engine_options *eo,
                                          kvplan_trtllm_log_result *x,
                                          kvplan__log_answer *a,
                                          kvplan_error *err);
/* The log's arguments into `o` (before the caller's flags, which win). */
kvplan_status kvplan__vllm_log_apply(const kvplan_vllm_log_readings *r,
                                     kvplan_options *o, kvplan_error *err);

/* --calibrate's needs: the log's load lines, and a GPU that holds what it
 * saw free before loading. */
kvplan_status kvplan__calibration_check(const kvplan_log_readings *r,
                                        const kvplan_log_result *x,
                                        kvplan_error *err);

/* ---- versions.c ------------------------------------------------------ */

/* A version option's value `v` (given as flag `f`): sglang's profile
 * (--sglang-version, --compare-version) or vLLM's (--vllm-version), into
 * `field`, its text kept for the documents' "requested". */
kvplan_status kvplan__version_value(kvplan_options *o,
                                    const kvplan__option_row *row, void *field,
                                    const char *f, const char *v,
                                    kvplan_error *err);

#endif /* KVPLAN_OPTIONS_H */
