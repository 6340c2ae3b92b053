/*
 * doc.h: the json room's internals; not installed (docs/architecture.md).
 *
 * The documents the library answers with, written once for the command's
 * --json and for kvplan_json alike: JSON text as Python's json.dumps
 * writes it (write.c), the plan's (doc_plan.c), its notes and --explain's
 * lines (explain.c, also the text report's), the other questions'
 * (doc_questions.c, doc_engine.c, doc_log.c, doc_lists.c) and the
 * pictures (svg.c). kvplan_json (request.c) reads a request into options
 * through the option table and answers with these. This room sits above
 * all the others; nothing in it writes a file or reads the environment
 * but through the options.
 */
#ifndef KVPLAN_DOC_H
#define KVPLAN_DOC_H

#include "common/internal.h"
#include "common/json.h" /* jansson, as the library calls it */

#include <stdio.h>

#define KVPLAN__GIB 1073741824.0
#define KVPLAN__PLAN_SCHEMA_VERSION 3

/* ---- write.c: Python's json.dumps(obj, sort_keys=True) -------------------
 * ", " and ": " separators, keys sorted, non-ASCII escaped, reals in
 * repr() form (0.8, not 0.80000000000000004), so that kvplan's JSON can be
 * compared byte for byte with the reference oracle's. */

/* A JSON string of text from outside (a path, a config's name, a message
 * quoting them): kept byte for byte however invalid its UTF-8; the writer
 * turns each invalid byte into U+FFFD. NULL only when out of memory. */
json_t *kvplan__json_text(const char *s);

/* The error document: {"error", "field" (null when none), "message",
 * "exit_status": the command's}; NULL when out of memory. */
json_t *kvplan__json_error(const kvplan_error *err, int exit_status);

/* Text written into memory: `text` (NUL-terminated, `len` bytes, the
 * caller frees it), `bad` once memory ran out. Start with {0}. */
typedef struct kvplan__text {
    char *text;
    size_t len, cap;
    bool bad;
} kvplan__text;

/* `v`, a JSON string of `len` bytes, an integer, appended to `t`. */
void kvplan__text_json(kvplan__text *t, const json_t *v);
void kvplan__text_string(kvplan__text *t, const char *s, size_t len);
void kvplan__text_integer(kvplan__text *t, int64_t x);

/* Writes `v` to `out`; 0, or -1 on a write error or out of memory. */
int kvplan__json_write(const json_t *v, FILE *out);
/* A JSON string of `len` bytes, escaped as the writer escapes it. */
int kvplan__json_write_string(const char *s, size_t len, FILE *out);

/* ---- what every document of a question reads ---------------------------- */

typedef struct kvplan__doc {
    const kvplan_options *o;     /* as requested, then loaded */
    const kvplan_loaded *loaded; /* where the model was read, what was
                                    measured */
    const kvplan_model *model;
} kvplan__doc;

/* ---- explain.c: the notes and --explain's lines (text and JSON) --------- */

typedef struct kvplan__lines {
    char text[48][320];
    size_t n;
    size_t dropped; /* lines past the 48: counted, and said */
} kvplan__lines;

void kvplan__lines_add(kvplan__lines *l, const char *fmt, ...)
    KVPLAN_PRINTF(2, 3);

/* Python's repr() of x into buf (40 bytes); returns buf. */
const char *kvplan__repr(double x, char *buf);

/* The configurator's coefficient as sglang's log or the golden file
 * writes it, into buf (40 bytes). */
void kvplan__coefficient_text(const kvplan_configurator *c, char *buf);

/* The KV dtype as sglang names it on the plan's GPU. */
const char *kvplan__kv_dtype_name(const kvplan__doc *d, kvplan_dtype dtype);

/* What binds a capacity figure: a pool's name ("full", "swa") or the
 * limit's ("max_running_requests"). */
const char *kvplan__binding_name(const kvplan_capacity *c, kvplan_limit limit,
                                 size_t pool);

/* The terms of the bytes per token of stage `sp`, of the budget, and
 * where context_len, the KV dtype and max_running_requests come from. */
void kvplan__explain_cell(kvplan__lines *l, const kvplan_stage_plan *sp);
void kvplan__explain_budget(kvplan__lines *l, const kvplan__doc *d,
                            const kvplan_plan *p);
void kvplan__explain_serving(kvplan__lines *l, const kvplan__doc *d,
                             const kvplan_plan *p);

/* Where kvplan's figures are estimates, and where sglang allocates more
 * than its configurator prices; where a Hub id was read. */
void kvplan__notes(kvplan__lines *l, const kvplan_plan *p);
void kvplan__hub_notes(kvplan__lines *l, const kvplan__doc *d);

/* --gpu auto probed fewer GPUs than the plan occupies: true, with the
 * warning's text. */
bool kvplan__probe_short(const kvplan__doc *d, const kvplan_plan *plan,
                         char *text, size_t size);

/* sglang's flags given and not read: the `index`-th, NULL past them. */
const kvplan_option *kvplan__not_read(const kvplan_options *o, size_t index);

/* ---- doc_plan.c: the plan (schema docs/plan.schema.json) ---------------- */

/* NULL when out of memory: never a document with holes. */
json_t *kvplan__doc_plan(const kvplan__doc *d, const kvplan_plan *p);
/* The plan's "capacity" object (docs/capacity.md). */
json_t *kvplan__doc_capacity(const kvplan_capacity *c);
/* The "requested" echo: every option the table echoes, as given (null
 * where absent). */
json_t *kvplan__doc_requested(const kvplan_options *o);

/* ---- doc_versions.c: the sglang version followed, --compare-version ----- */

/* {"profile", "exact", "rules": [names]} of the plan. */
json_t *kvplan__doc_version(const kvplan_plan *p);
/* The comparison's document. */
json_t *kvplan__doc_version_compare(const kvplan_version_comparison *c);

/* ---- doc_engine.c: --engine vllm|trtllm and kvplan compare --------------- */

/* The engine plan's notes: which terms are estimates, how to set them;
 * returns how many (at most 3). */
size_t kvplan__engine_notes(const kvplan_engine_plan *p, char out[3][320]);
/* vLLM's KV-cache groups (DSA's MLA and indexer layers: one). */
int64_t kvplan__engine_groups(const kvplan_engine_plan *p);
/* vLLM's "{:,}": 1234567 -> "1,234,567". */
const char *kvplan__grouped(int64_t v, char *buf, size_t size);
json_t *kvplan__doc_engine(const kvplan__doc *d, const kvplan_engine_plan *p);
/* What each engine's headline count is, and why the columns differ. */
const char *kvplan__tokens_are(kvplan_engine e);
const char *kvplan__reason_text(kvplan_compare_reason r, uint64_t rules);
json_t *kvplan__doc_compare(const kvplan__doc *d, const kvplan_comparison *c);

/* ---- doc_questions.c: fit, solve, sweep ---------------------------------- */

/* fit's head: with --concurrency N (n > 0) the longest context L; else
 * the most requests of the plan's context_len. */
json_t *kvplan__doc_fit(int64_t n, const kvplan_plan *p);
/* solve's head, the answer's value as its knob writes it. */
json_t *kvplan__doc_solve(kvplan_knob knob, const kvplan_solution *sol,
                          const kvplan_target *t, const kvplan_plan *p);
/* solve that found none: the error document with the best reached. */
json_t *kvplan__doc_solve_none(const kvplan_error *e,
                               const kvplan_solution *sol);
/* The answer's value into the options: the plan printed is the forward
 * plan at it. */
void kvplan__solution_apply(kvplan_options *o, kvplan_knob knob,
                            const kvplan_solution *sol);
/* A sweep row (`plan` its plan document, or NULL when it does not plan);
 * `flags` its command line. */
json_t *kvplan__doc_sweep_row(const kvplan_sweep_axis *axes, size_t naxes,
                              const kvplan_sweep_row *r, size_t rank,
                              const char *const *flags, size_t nflags,
                              json_t *plan);
/* What binds a sweep row's concurrency, in words. */
const char *kvplan__row_binding(const kvplan_sweep_row *r);

/* ---- doc_log.c: kvplan log ------------------------------------------------ */

json_t *kvplan__doc_log(const kvplan_log_readings *r, const char *model,
                        const kvplan_log_result *x,
                        kvplan_sglang_profile version);
/* A calibration (kvplan log --calibrate) of the log's readings and the
 * options it was planned with; NULL out of memory. */
json_t *kvplan__doc_calibration(const char *source,
                                const kvplan_log_readings *r,
                                const kvplan_plan_options *o,
                                bool gpu_inferred, const char *model);

/* ---- doc_lists.c: what is built in ---------------------------------------- */

json_t *kvplan__doc_models(void);
json_t *kvplan__doc_gpus(void);
json_t *kvplan__doc_options(void);
json_t *kvplan__doc_version_info(void);

/* ---- svg.c: the pictures (plain SVG) -------------------------------------- */

/* One GPU's memory split and the requests at once against the context
 * length (forward plans at --context-length 256, 512, ... the model's),
 * the plan's own point marked. 0, or -1 when it cannot be written. */
int kvplan__svg_plan(FILE *f, const kvplan__doc *d, const kvplan_plan *plan);

/* A sweep's rows as bars, best first (the first 40). */
typedef struct kvplan__svg_bar {
    char label[96];
    double value;
    bool fits;
} kvplan__svg_bar;

int kvplan__svg_bars(FILE *f, const char *title, const char *figure,
                     const kvplan__svg_bar *bars, size_t n);

#endif /* KVPLAN_DOC_H */
