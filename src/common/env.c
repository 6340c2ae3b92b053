/*
 * env.c: sglang's environment variables, parsed as its environ.py parses
 * them (docs/sglang-rules.md §2.11): EnvBool, EnvInt, and the words of
 * SGLANG_DSV4_COMPRESS_STATE_DTYPE. Text in, values out: reading the
 * process environment is the caller's business (the command reads it; an
 * embedder passes what it has).
 */
#include "common/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool kvplan_env_bool(const char *b, size_t n, bool fallback)
{
    kvplan__py_strip(&b, &n);
    static const char *const yes[] = {"true", "1", "yes", "y"};
    static const char *const no[] = {"false", "0", "no", "n"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        if (kvplan__ascii_ieq_n(b, n, yes[i]))
            return true;
        if (kvplan__ascii_ieq_n(b, n, no[i]))
            return false;
    }
    return fallback;
}

int64_t kvplan_env_int(const char *b, size_t n, int64_t fallback)
{
    kvplan__py_strip(&b, &n);
    char digits[32];
    size_t nd = 0, i = 0;
    bool negative = false;
    if (i < n && (b[i] == '+' || b[i] == '-'))
        negative = b[i++] == '-';
    bool prev_digit = false;
    for (; i < n; i++) {
        if (b[i] >= '0' && b[i] <= '9') {
            if (nd + 1 >= sizeof digits)
                return fallback; /* too long for int64 */
            digits[nd++] = b[i];
            prev_digit = true;
        } else if (b[i] == '_' && prev_digit && i + 1 < n && b[i + 1] >= '0' &&
                   b[i + 1] <= '9') {
            prev_digit = false;
        } else {
            return fallback; /* not an int */
        }
    }
    if (nd == 0)
        return fallback;
    digits[nd] = '\0';
    errno = 0;
    long long x = strtoll(digits, NULL, 10);
    if (errno != 0)
        return fallback;
    return negative ? -(int64_t)x : (int64_t)x;
}

bool kvplan__state_dtype_size(const char *raw, int64_t *size, char *word,
                              size_t word_size)
{
    /* _get_dsv4_compress_state_dtype_sizes: strip, lower-case, look up */
    static const struct {
        const char *word;
        int64_t size;
    } words[] = {{"float32", 4}, {"fp32", 4}, {"bfloat16", 2}, {"bf16", 2}};
    if (raw == NULL)
        raw = "float32";
    const char *b = raw;
    size_t n = strlen(raw);
    kvplan__py_strip(&b, &n);
    size_t cut = n < word_size ? n : word_size - 1;
    for (size_t i = 0; i < cut; i++)
        word[i] =
            (b[i] >= 'A' && b[i] <= 'Z') ? (char)(b[i] - 'A' + 'a') : b[i];
    word[cut] = '\0';
    for (size_t i = 0; cut == n && i < sizeof words / sizeof words[0]; i++) {
        if (strcmp(word, words[i].word) == 0) {
            *size = words[i].size;
            return true;
        }
    }
    return false;
}
