/*
 * internal.h: what every room of the library shares; not installed.
 *
 * - errors: kvplan__fail() fills a caller's kvplan_error (which may be NULL)
 *   and returns the status, so a check reads as one line; KVPLAN__TRY and
 *   KVPLAN__FAIL_IF shorten the two patterns every function repeats;
 * - Python's text rules that sglang applies to flags and environment
 *   values (text.c, env.c);
 * - the checked, Python-exact arithmetic (arith.h).
 *
 * The library's rooms, each a folder of src/ (docs/architecture.md):
 * common <- core <- plan; common <- model; common <- budget. Nothing in
 * common knows about models, GPUs or plans.
 *
 * Sections marked § are those of docs/sglang-rules.md.
 */
#ifndef KVPLAN_INTERNAL_H
#define KVPLAN_INTERNAL_H

#include "kvplan.h"

#include "common/arith.h"

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#if defined(__GNUC__)
#define KVPLAN_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define KVPLAN_PRINTF(fmt, args)
#endif

/* Fills `err` (when not NULL) and returns `code`. `field` may be NULL. */
kvplan_status kvplan__fail(kvplan_error *err, kvplan_status code,
                           const char *field, const char *fmt, ...)
    KVPLAN_PRINTF(4, 5);

/* Clears `err` (when not NULL) and returns KVPLAN_OK. Inline: it ends
 * every successful compute call. */
static inline kvplan_status kvplan__ok(kvplan_error *err)
{
    if (err != NULL) {
        err->code = KVPLAN_OK;
        err->field[0] = '\0';
        err->message[0] = '\0';
        err->line = err->column = 0;
    }
    return KVPLAN_OK;
}

/* Python's str.strip() whitespace, ASCII part (sglang strips env values). */
static inline bool kvplan__py_space(char ch)
{
    return ch == ' ' || (ch >= '\t' && ch <= '\r') ||
           (ch >= '\x1c' && ch <= '\x1f');
}

/* Evaluates a kvplan_status expression and returns it from the enclosing
 * function unless it is KVPLAN_OK. */
#define KVPLAN__TRY(expr)                                                      \
    do {                                                                       \
        kvplan_status kvplan__st_ = (expr);                                    \
        if (kvplan__st_ != KVPLAN_OK)                                          \
            return kvplan__st_;                                                \
    } while (0)

/* Fails with `code` (field and message as kvplan__fail) when `cond`. */
#define KVPLAN__FAIL_IF(cond, err, code, field, ...)                           \
    do {                                                                       \
        if (cond)                                                              \
            return kvplan__fail((err), (code), (field), __VA_ARGS__);          \
    } while (0)

/* ---- names.c ---------------------------------------------------------- */

/* torch._utils._element_size of a dtype (fp4 packs two values a byte: 1);
 * 0 for an unset or unknown value. kvplan_dtype_size, inline: the core
 * asks on every configurator it builds. */
static inline int64_t kvplan__elem_bytes(kvplan_dtype dtype)
{
    switch (dtype) {
    case KVPLAN_DTYPE_FLOAT32:
        return 4;
    case KVPLAN_DTYPE_BFLOAT16:
    case KVPLAN_DTYPE_FLOAT16:
        return 2;
    case KVPLAN_DTYPE_FLOAT8_E4M3FN:
    case KVPLAN_DTYPE_FLOAT8_E5M2:
    case KVPLAN_DTYPE_FLOAT4_E2M1FN_X2:
    case KVPLAN_DTYPE_UINT8:
        return 1;
    case KVPLAN_DTYPE_UNSET:
        break;
    }
    return 0;
}

/* The dtype flags both ways, from one table of their words (names.c):
 * the model dtype sglang runs for --dtype `flag` (auto: the model's own,
 * `model_default`) and the flag that names a dtype (auto: none does); the
 * KV dtype --kv-cache-dtype `flag` runs (auto: KVPLAN_DTYPE_UNSET, the
 * rank decides) and the flag that names one (auto: none does, float16
 * and float32). */
kvplan_dtype kvplan__dtype_of_flag(kvplan_dtype_flag flag,
                                   kvplan_dtype model_default);
kvplan_dtype_flag kvplan__dtype_flag(kvplan_dtype dtype);
kvplan_dtype kvplan__kv_dtype_of_flag(kvplan_kv_cache_dtype_flag flag);
kvplan_kv_cache_dtype_flag kvplan__kv_dtype_flag(kvplan_dtype dtype);

/* ---- files.c: reading files without blocking ---------------------------- */

/* fopen(path, "rb") for a regular file only: NULL with *not_regular set
 * for a FIFO, a device or a directory (nothing blocks on them), NULL with
 * errno for a file that cannot be opened. */
FILE *kvplan__open_regular(const char *path, bool *not_regular);

/* A call of a library loaded at run time: its name, and where its
 * function pointer goes in the caller's table. */
typedef struct kvplan__dl_call {
    size_t offset;
    const char *name;
} kvplan__dl_call;
/* Resolves each of `calls` in `lib` (a dlopen handle) into `api` at its
 * offset (dl.c); returns the first name `lib` lacks, or NULL. */
const char *kvplan__dl_resolve(void *lib, const kvplan__dl_call *calls,
                               size_t n, void *api);

/* ---- text.c: ASCII and Python text rules ------------------------------- */

/* ASCII case-insensitive equality of two NUL-terminated strings. */
bool kvplan__ascii_ieq(const char *a, const char *b);
/* An engine's release as its users write it ("0.5.9", "v0.10.2",
 * "0.5.0rc0", "0.4.8.post1+cu128", "0.11.0-dev"): major * 10000 + minor *
 * 100 + patch; -1 when it is not one (each part at most 99). */
long kvplan__release_number(const char *v);

/* The same for a counted text `a` (n bytes) and a NUL-terminated `b`. */
bool kvplan__ascii_ieq_n(const char *a, size_t n, const char *b);

/* The word of `words[0..n)` nearest `name` within `within` edits (at
 * most 3: kvplan_edit_distance's cap), for a "did you mean"; NULL when
 * none is that near. */
const char *kvplan__nearest_word(const char *name, const char *const *words,
                                 size_t n, int within);

/* Python's str.strip() of ASCII whitespace on the text [*b, *b + *n). */
void kvplan__py_strip(const char **b, size_t *n);

/* ---- env.c: sglang's environment variable rules (§2.11) ---------------- */

/* SGLANG_DSV4_COMPRESS_STATE_DTYPE, as DSV4's configurator reads it
 * (NULL: the default "float32"): *size is the state's element size, 4 for
 * float32/fp32, 2 for bfloat16/bf16, case and blanks ignored. False for
 * any other word; `word` (size >= 32) then holds it, stripped and cut. */
bool kvplan__state_dtype_size(const char *raw, int64_t *size, char *word,
                              size_t word_size);

#endif /* KVPLAN_INTERNAL_H */
