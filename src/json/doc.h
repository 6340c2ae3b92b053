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
 * compared byte for byte with the reference oracle's. Documents are
 * written straight into text by a writer (no tree of values): each value
 * in turn, a member's key with it, each object's members put in order at
 * its end. Text from outside (a path, a config's name, a message quoting
 * them) is kept byte for byte however invalid its UTF-8: each invalid
 * byte is written as U+FFFD. */

/* Text written into memory: `text` (NUL-terminated, `len` bytes, the
 * caller frees it), `bad` once memory ran out. Start with {0}. */
typedef struct kvplan__text {
    char *text;
    size_t len, cap;
    bool bad;
} kvplan__text;

/* A JSON string of `len` bytes, an integer, appended to `t`. */
void kvplan__text_string(kvplan__text *t, const char *s, size_t len);
void kvplan__text_integer(kvplan__text *t, int64_t x);

#define KVPLAN__WRITER_DEPTH 16

struct kvplan__open {
    size_t start, first, count;
    bool object;
};

/* A document being written, as JSON text or (`pickle` set at the start)
 * as Python's pickle. Start with {0}; every call takes `key`, the
 * member's name inside an object and NULL elsewhere (a list's element, the
 * document itself); the writer keeps the pointer until the object ends, so
 * the text must live that long (a literal, the option table's, a jansson
 * value's being written). A mistake (a key missing or unasked, an end unopened,
 * deeper than 16) or memory running out spoils the document: its status
 * says so, and nothing is given out. */
typedef struct kvplan__writer {
    kvplan__text t;
    struct kvplan__member *members;
    size_t nmembers, members_cap;
    struct kvplan__open open[KVPLAN__WRITER_DEPTH];
    size_t depth;
    char *scratch;
    size_t scratch_cap;
    /* the first member that was not finite (copied: a key need not live
     * as long as the writer); empty when none */
    char nonfinite[64];
    bool pickle;               /* Python's pickle (protocol 2), not JSON text */
    struct kvplan__memo *memo; /* pickle: the keys made once */
    size_t memo_count, memo_cap;
    uint32_t *memo_slots;
    size_t slots_cap;
    kvplan__text memo_keys;
} kvplan__writer;

void kvplan__w_object(kvplan__writer *w, const char *key);
void kvplan__w_array(kvplan__writer *w, const char *key);
void kvplan__w_end(kvplan__writer *w);
void kvplan__w_int(kvplan__writer *w, const char *key, int64_t v);
/* A non-finite `v` spoils the document (status KVPLAN_OVERFLOW). */
void kvplan__w_real(kvplan__writer *w, const char *key, double v);
/* repr(v) as a JSON string, as the golden file writes a coefficient. */
void kvplan__w_repr(kvplan__writer *w, const char *key, double v);
void kvplan__w_bool(kvplan__writer *w, const char *key, bool v);
void kvplan__w_null(kvplan__writer *w, const char *key);
/* NULL writes null. */
void kvplan__w_str(kvplan__writer *w, const char *key, const char *s);
void kvplan__w_strn(kvplan__writer *w, const char *key, const char *s,
                    size_t len);
void kvplan__w_opt_int(kvplan__writer *w, const char *key, kvplan_opt_int v);
void kvplan__w_opt_real(kvplan__writer *w, const char *key,
                        kvplan_opt_double v);
/* A value read with jansson (a request's member), written again. */
void kvplan__w_json(kvplan__writer *w, const char *key, const json_t *v);
/* Whatever was written replaced by the error document: {"error", "field"
 * (null when none), "message", "exit_status": the command's}. */
void kvplan__w_error(kvplan__writer *w, const kvplan_error *err,
                     int exit_status);
/* Empties the document, keeping the buffers. */
void kvplan__w_reset(kvplan__writer *w);
/* KVPLAN_OK for a whole document; KVPLAN_NOMEM, or KVPLAN_OVERFLOW for a
 * number JSON cannot hold (err names the member). */
kvplan_status kvplan__w_status(const kvplan__writer *w, kvplan_error *err);
/* The text (the caller frees it; `len` its length: a pickle is binary),
 * or NULL when the document is not whole; the writer is freed either
 * way. */
char *kvplan__w_take(kvplan__writer *w, size_t *len);
/* Writes the text (and a newline) to `out` and frees the writer: 0, or -1
 * when the document is not whole or the write failed. */
int kvplan__w_print(kvplan__writer *w, FILE *out, bool newline);
void kvplan__w_free(kvplan__writer *w);
/* The text of a jansson value; NULL out of memory. */
char *kvplan__dump(const json_t *v, size_t *len);

/* ---- what every document of a question reads ---------------------------- */

typedef struct kvplan__doc {
    const kvplan_options *o;     /* as requested, then loaded */
    const kvplan_loaded *loaded; /* where the model was read, what was
                                    measured */
    const kvplan_model *model;
    /* a pasted launch's flags kvplan does not read, as sentences for the
     * engine plan's notes (cli_launch_note_text), and what its YAML
     * replaced; NULL: none */
    const char *launch_notes[3];
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

/* The plan's document; with `svg`, its picture as "svg" too. */
void kvplan__doc_plan(kvplan__writer *w, const char *key, const kvplan__doc *d,
                      const kvplan_plan *p, bool svg);
/* The plan's "capacity" object (docs/capacity.md). */
void kvplan__doc_capacity(kvplan__writer *w, const char *key,
                          const kvplan_capacity *c);
/* The "requested" echo: every option the table echoes, as given (null
 * where absent). */
void kvplan__doc_requested(kvplan__writer *w, const char *key,
                           const kvplan_options *o);

/* ---- doc_versions.c: the sglang version followed, --compare-version ----- */

/* An array at `key` of the names of the rules `at` lists whose bit is in
 * `bits` (sglang's, vLLM's or TensorRT-LLM's rules). */
void kvplan__w_rules(kvplan__writer *w, const char *key, uint64_t bits,
                     bool (*at)(size_t, kvplan_rule_info *));
/* {"profile", "exact", "rules": [names]} of the plan. */
void kvplan__doc_version(kvplan__writer *w, const char *key,
                         const kvplan_plan *p);
/* The comparison's document. */
void kvplan__doc_version_compare(kvplan__writer *w, const char *key,
                                 const kvplan_version_comparison *c);

/* ---- doc_engine.c: --engine vllm|trtllm and kvplan compare --------------- */

/* An engine plan note's room: the longest (a V2 plan naming why it is
 * V2, Gemma 4's) is near 340 bytes. */
#define KVPLAN__ENGINE_NOTE 512
#define KVPLAN__ENGINE_NOTES 5
/* The engine plan's notes: which terms are estimates, how to set them;
 * returns how many (at most KVPLAN__ENGINE_NOTES). */
size_t
kvplan__engine_notes(const kvplan_engine_plan *p,
                     char out[KVPLAN__ENGINE_NOTES][KVPLAN__ENGINE_NOTE]);
/* vLLM's KV-cache groups (DSA's MLA and indexer layers: one). */
int64_t kvplan__engine_groups(const kvplan_engine_plan *p);
/* vLLM's "{:,}": 1234567 -> "1,234,567". */
const char *kvplan__grouped(int64_t v, char *buf, size_t size);
/* The engine's plan; with `requested`, the options' echo too. */
void kvplan__doc_engine(kvplan__writer *w, const char *key,
                        const kvplan__doc *d, const kvplan_engine_plan *p,
                        bool requested);
/* What each engine's headline count is, and why the columns differ. */
const char *kvplan__tokens_are(kvplan_engine e, uint64_t vllm_rules,
                               int32_t trtllm_manager);
const char *kvplan__reason_text(kvplan_compare_reason r, uint64_t rules);
void kvplan__doc_compare(kvplan__writer *w, const kvplan__doc *d,
                         const kvplan_comparison *c);

/* ---- doc_questions.c: fit, solve, sweep ---------------------------------- */

/* fit's head, into an open object (the plan follows as "plan"): with
 * --concurrency N (n > 0) the longest context L; else the most requests
 * of the plan's context_len. */
void kvplan__doc_fit_head(kvplan__writer *w, int64_t n, const kvplan_plan *p);
/* solve's head, into an open object, the answer's value as its knob
 * writes it. */
void kvplan__doc_solve_head(kvplan__writer *w, kvplan_knob knob,
                            const kvplan_solution *sol, const kvplan_target *t,
                            const kvplan_plan *p);
/* solve that found none: the error document with the best reached. */
void kvplan__doc_solve_none(kvplan__writer *w, const kvplan_error *e,
                            const kvplan_solution *sol);
/* The answer's value into the options: the plan printed is the forward
 * plan at it. */
void kvplan__solution_apply(kvplan_options *o, kvplan_knob knob,
                            const kvplan_solution *sol);
/* A sweep row, a list's element: `flags` its command line; `plan` its
 * plan (with `rd`, its options), NULL when it does not plan. */
void kvplan__doc_sweep_row(kvplan__writer *w, const kvplan_sweep_axis *axes,
                           size_t naxes, const kvplan_sweep_row *r, size_t rank,
                           const char *const *flags, size_t nflags,
                           const kvplan__doc *rd, const kvplan_plan *plan);
/* A sweep row's plan, planned again (the rows keep figures only, so that a
 * large sweep's document streams): its options into `row`, its plan into
 * `work`; false when it does not plan. */
bool kvplan__sweep_row_plan(const kvplan_model *m, const kvplan_options *base,
                            const kvplan_sweep_axis *axes, size_t naxes,
                            const kvplan_sweep_row *r, kvplan_options *row,
                            kvplan_plan *work);
/* What binds a sweep row's concurrency, in words. */
const char *kvplan__row_binding(const kvplan_sweep_row *r);

/* ---- doc_log.c: kvplan log ------------------------------------------------
 */

/* A log's causes, as the array "causes" (both readers'). */
void kvplan__doc_log_causes(kvplan__writer *w, const kvplan_log_cause *causes,
                            size_t n);
/* An engine log's calibration's first members: what it is, whose log,
 * which model, GPU and ranks (doc_vllm_log.c). */
void kvplan__doc_calibration_head(kvplan__writer *w, const char *engine,
                                  const char *source, const char *model,
                                  const kvplan_engine_options *o);
/* A vLLM log's calibration (kvplan log --calibrate; kvplan --calibration
 * reads it back), an object at `key` (doc_vllm_log.c). */
void kvplan__doc_vllm_calibration(kvplan__writer *w, const char *key,
                                  const char *source, const char *model,
                                  const kvplan_engine_options *o,
                                  const kvplan_vllm_log_readings *r,
                                  const kvplan_vllm_calibration *c);

/* A TensorRT-LLM log's calibration, a whole object (doc_trtllm_log.c). */
void kvplan__doc_trtllm_calibration(kvplan__writer *w, const char *source,
                                    const char *model,
                                    const kvplan_engine_options *o,
                                    const kvplan_trtllm_log_readings *r,
                                    const kvplan_trtllm_calibration *c);
/* A TensorRT-LLM log's document, a whole object (doc_trtllm_log.c). */
void kvplan__doc_trtllm_log(kvplan__writer *w,
                            const kvplan_trtllm_log_readings *r,
                            const char *model, const kvplan_engine_options *eo,
                            const kvplan_trtllm_log_result *x);
/* A vLLM log's document, a whole object (doc_vllm_log.c). */
void kvplan__doc_vllm_log(kvplan__writer *w, const kvplan_vllm_log_readings *r,
                          const char *model, const kvplan_engine_options *eo,
                          const kvplan_vllm_log_result *x,
                          const kvplan_vllm_calibration *cal);

/* The log's document, into an open object. */
void kvplan__doc_log_members(kvplan__writer *w, const kvplan_log_readings *r,
                             const char *model, const kvplan_log_result *x,
                             kvplan_sglang_profile version);
/* A calibration (kvplan log --calibrate) of the log's readings and the
 * options it was planned with. */
void kvplan__doc_calibration(kvplan__writer *w, const char *key,
                             const char *source, const kvplan_log_readings *r,
                             const kvplan_plan_options *o, bool gpu_inferred,
                             const char *model);

/* ---- doc_lists.c: what is built in ----------------------------------------
 */

void kvplan__doc_models(kvplan__writer *w);
void kvplan__doc_gpus(kvplan__writer *w);
void kvplan__doc_options(kvplan__writer *w);
void kvplan__doc_version_info(kvplan__writer *w);

/* ---- svg.c: the pictures (plain SVG) --------------------------------------
 */

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
