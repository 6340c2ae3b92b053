/*
 * log.h: the log room's internals; not installed.
 *
 * parse.c reads an sglang start-up log into kvplan_log_readings (no
 * allocation, nothing defaulted); reconcile.c turns the readings into plan
 * options, rebuilds the bytes sglang handed the configurator from the
 * printed free figures, and names the causes of each difference.
 * vllm_parse.c and vllm_reconcile.c do the same for a vLLM start-up log,
 * trtllm_log.c for a TensorRT-LLM one; scan.c holds the text scanning the
 * readers share. The log room sits
 * above the plan and the engines: it plans through the public API.
 */
#ifndef KVPLAN_LOG_H
#define KVPLAN_LOG_H

#include "common/internal.h"

#include <stdarg.h>

/* Distinct TPn prefixes counted (a log's ranks beyond are still read). */
#define KVPLAN__LOG_MAX_RANKS 4096

/* ---- scan.c: bounded text scanning ------------------------------------ */

/* [s, end) as a bounded string view: one line of a log. */
typedef struct kvplan__log_span {
    const char *s, *end;
} kvplan__log_span;

/* The next physical line of [*p, end), without its "\n" or "\r\n", into
 * `line`; advances *p past it. False at the end. */
bool kvplan__log_next_line(const char **p, const char *end,
                           kvplan__log_span *line);
/* The first `needle` in [s, end), or NULL. */
const char *kvplan__log_find(const char *s, const char *end,
                             const char *needle);
/* `needle` at a word's start: not preceded by a letter, digit or '_'. */
const char *kvplan__log_find_word(const char *s, const char *end,
                                  const char *needle);
/* A decimal number at *p ([-]digits[.digits], at most 17 digits, the
 * double nearest to it, without locale; not one with an exponent);
 * advances *p past it. */
bool kvplan__log_parse_double(const char **p, const char *end, double *out);
/* A decimal integer at *p ([-]digits, within int64, not the head of a
 * decimal); advances *p past it. */
bool kvplan__log_parse_int(const char **p, const char *end, int64_t *out);
/* Where the value after `key` (at a word's start) begins, the characters
 * of `skip` passed over; NULL when the line has no `key`. */
const char *kvplan__log_value_at(kvplan__log_span l, const char *key,
                                 const char *skip);
/* The number after `key` in the line (key includes its '=' or ": "),
 * blanks skipped. */
bool kvplan__log_double_after(kvplan__log_span l, const char *key, double *out);
/* A GiB figure a GPU can have, 0 to 2^20; anything else is not read. */
bool kvplan__log_gib_after(kvplan__log_span l, const char *key, double *out);
bool kvplan__log_int_after(kvplan__log_span l, const char *key, int64_t *out);
/* Copies [s, s + n) into `dst` of `size`, cut to fit; true when it fit. */
bool kvplan__log_copy_text(char *dst, size_t size, const char *s, size_t n);
/* The word after `key` (up to a ',', a blank or the line's end). */
bool kvplan__log_word_after(kvplan__log_span l, const char *key, char *dst,
                            size_t size);
/* Appends a cause (code, the compared row, the sentence) to `causes`,
 * `*n` of them so far, up to KVPLAN_MAX_LOG_CAUSES. */
void kvplan__log_vcause(kvplan_log_cause *causes, size_t *n,
                        kvplan_log_cause_code code, const char *row,
                        const char *fmt, va_list ap)
    __attribute__((format(printf, 5, 0)));
/* A TensorRT-LLM log's KV budget as KvCacheCreator printed it: 1.1's
 * "available KV cache memory when calculating max tokens", else 2026's
 * "Estimated max memory in KV cache" (after a given max_gpu_total_bytes);
 * unset when the log has neither. */
kvplan_opt_double
kvplan__trtllm_log_budget(const kvplan_trtllm_log_readings *r);
/* The least, the most of the values met. */
void kvplan__log_set_min(kvplan_opt_double *o, double v);
void kvplan__log_set_max(kvplan_opt_double *o, double v);

#endif /* KVPLAN_LOG_H */
