/*
 * scan.c: the text scanning both log readers share (parse.c for sglang,
 * vllm_parse.c for vLLM): bounded searches in a line, numbers parsed
 * where they stand without locale or allocation, words copied cut to
 * their field.
 */
#include "log/log.h"

#include <stdio.h>
#include <string.h>

/* The first `needle` in [s, end), or NULL. */
bool kvplan__log_next_line(const char **p, const char *end,
                           kvplan__log_span *line)
{
    if (*p >= end)
        return false;
    const char *nl = memchr(*p, '\n', (size_t)(end - *p));
    const char *e = nl != NULL ? nl : end;
    *line = (kvplan__log_span){*p, e > *p && e[-1] == '\r' ? e - 1 : e};
    *p = nl != NULL ? nl + 1 : end;
    return true;
}

const char *kvplan__log_find(const char *s, const char *end, const char *needle)
{
    size_t n = strlen(needle);
    if (n == 0 || (size_t)(end - s) < n)
        return NULL;
    const char *last = end - n;
    for (const char *p = s; p <= last; p++) {
        p = memchr(p, needle[0], (size_t)(last - p) + 1);
        if (p == NULL)
            return NULL;
        if (memcmp(p, needle, n) == 0)
            return p;
    }
    return NULL;
}

/* `needle` at a word's start: not preceded by a letter, digit or '_' (so
 * "K size:" does not match inside "KV size:"). */
const char *kvplan__log_find_word(const char *s, const char *end,
                                  const char *needle)
{
    for (const char *p = s; (p = kvplan__log_find(p, end, needle)) != NULL;
         p++) {
        char b = p > s ? p[-1] : ' ';
        bool word = (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') ||
                    (b >= '0' && b <= '9') || b == '_';
        if (!word)
            return p;
    }
    return NULL;
}

/* Decimal digits at *s into *num (at most 17 of them with *count, the
 * digits already taken); how many were read, or -1 past 17. */
static int digits(const char **s, const char *end, int64_t *num, int *count)
{
    int n = 0;
    for (; *s < end && **s >= '0' && **s <= '9'; (*s)++, n++) {
        if (++*count > 17)
            return -1;
        *num = *num * 10 + (**s - '0');
    }
    return n;
}

/* A decimal number at *p: [-]digits[.digits], at most 17 digits in all,
 * as the double nearest to it (one correctly rounded division, the value
 * strtod gives, without its locale). Advances *p past it. */
bool kvplan__log_parse_double(const char **p, const char *end, double *out)
{
    const char *s = *p;
    bool neg = s < end && *s == '-';
    s += neg;
    int64_t num = 0;
    int count = 0, whole = digits(&s, end, &num, &count), frac = 0;
    if (whole >= 0 && s < end && *s == '.') {
        s++;
        frac = digits(&s, end, &num, &count);
    }
    if (whole < 0 || frac < 0 || whole + frac == 0 || num > ((int64_t)1 << 53))
        return false;
    /* an exponent ("1e9", Python's repr of a large or tiny float) is not
     * read: refused, rather than its mantissa taken for the number */
    if (s < end && (*s == 'e' || *s == 'E') && s + 1 < end &&
        ((s[1] >= '0' && s[1] <= '9') || s[1] == '-' || s[1] == '+'))
        return false;
    static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,
                                   1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17};
    double v = (double)num / pow10[frac];
    *out = neg ? -v : v;
    *p = s;
    return true;
}

/* A decimal integer at *p: [-]digits, within int64. */
bool kvplan__log_parse_int(const char **p, const char *end, int64_t *out)
{
    const char *s = *p;
    bool neg = s < end && *s == '-';
    s += neg;
    int64_t v = 0;
    bool any = false;
    while (s < end && *s >= '0' && *s <= '9') {
        int d = *s++ - '0';
        if (v > (INT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
        any = true;
    }
    /* an integer, not the head of a decimal */
    if (!any || (s < end && *s == '.'))
        return false;
    *out = neg ? -v : v;
    *p = s;
    return true;
}

const char *kvplan__log_value_at(kvplan__log_span l, const char *key,
                                 const char *skip)
{
    const char *k = kvplan__log_find_word(l.s, l.end, key);
    if (k == NULL)
        return NULL;
    const char *p = k + strlen(key);
    while (p < l.end && strchr(skip, *p) != NULL && *p != '\0')
        p++;
    return p;
}

/* The number after `key` in the line (key includes its '=' or ": "). */
bool kvplan__log_double_after(kvplan__log_span l, const char *key, double *out)
{
    const char *p = kvplan__log_value_at(l, key, " ");
    return p != NULL && kvplan__log_parse_double(&p, l.end, out);
}

/* A GiB figure: one a GPU can have, 0 to 2^20 GiB (a PiB); anything else
 * is not read (a garbled line must not become a budget). */
bool kvplan__log_gib_after(kvplan__log_span l, const char *key, double *out)
{
    return kvplan__log_double_after(l, key, out) && *out >= 0 &&
           *out <= 1048576.0;
}

bool kvplan__log_int_after(kvplan__log_span l, const char *key, int64_t *out)
{
    const char *p = kvplan__log_value_at(l, key, " ");
    return p != NULL && kvplan__log_parse_int(&p, l.end, out);
}

void kvplan__log_vcause(kvplan_log_cause *causes, size_t *n,
                        kvplan_log_cause_code code, const char *row,
                        const char *fmt, va_list ap)
{
    if (*n >= KVPLAN_MAX_LOG_CAUSES)
        return;
    kvplan_log_cause *c = &causes[(*n)++];
    c->code = code;
    snprintf(c->row, sizeof c->row, "%s", row);
    vsnprintf(c->text, sizeof c->text, fmt, ap);
}

/* Copies [s, s + n) into `dst` of `size`, cut to fit; true when it fit. */
bool kvplan__log_copy_text(char *dst, size_t size, const char *s, size_t n)
{
    bool fit = n < size;
    if (!fit)
        n = size - 1;
    memcpy(dst, s, n);
    dst[n] = '\0';
    return fit;
}

/* The word after `key` (up to a ',', a blank or the line's end). */
bool kvplan__log_word_after(kvplan__log_span l, const char *key, char *dst,
                            size_t size)
{
    const char *k = kvplan__log_find_word(l.s, l.end, key);
    if (k == NULL)
        return false;
    const char *p = k + strlen(key), *e = p;
    while (e < l.end && *e != ',' && *e != ' ' && *e != '\r')
        e++;
    if (e == p)
        return false;
    kvplan__log_copy_text(dst, size, p, (size_t)(e - p));
    return true;
}

void kvplan__log_set_min(kvplan_opt_double *o, double v)
{
    if (!o->set || v < o->value)
        *o = (kvplan_opt_double){v, true};
}

void kvplan__log_set_max(kvplan_opt_double *o, double v)
{
    if (!o->set || v > o->value)
        *o = (kvplan_opt_double){v, true};
}
