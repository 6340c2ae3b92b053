/*
 * write.c: JSON text exactly as Python's json.dumps(obj, sort_keys=True)
 * writes it (doc.h): the documents of the command's --json and of
 * kvplan_json, byte for byte the same.
 */
#include "json/doc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Decodes one UTF-8 sequence of [*p, end). Text from the user's files and
 * flags may be any bytes (kvplan__json_text keeps them): an invalid, overlong
 * or truncated sequence, or a surrogate, reads as U+FFFD, one byte, so
 * the document is valid JSON whatever the input. */
static uint32_t utf8_next(const unsigned char **p, const unsigned char *end)
{
    const unsigned char *s = *p;
    uint32_t c = s[0];
    int extra = c >= 0xF0 && c <= 0xF4   ? 3
                : c >= 0xE0 && c <= 0xEF ? 2
                : c >= 0xC2 && c <= 0xDF ? 1
                : c < 0x80               ? 0
                                         : -1;
    static const uint32_t least[] = {0, 0x80, 0x800, 0x10000};
    if (extra <= 0 || end - s <= extra) {
        *p = s + 1;
        return extra == 0 ? c : 0xFFFD;
    }
    c &= (uint32_t)(0x3F >> extra);
    for (int i = 1; i <= extra; i++) {
        if ((s[i] & 0xC0u) != 0x80u) {
            *p = s + 1;
            return 0xFFFD;
        }
        c = (c << 6) | (s[i] & 0x3Fu);
    }
    if (c < least[extra] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) {
        *p = s + 1;
        return 0xFFFD;
    }
    *p = s + 1 + extra;
    return c;
}

json_t *kvplan__json_text(const char *s)
{
    return json_string_nocheck(s != NULL ? s : "");
}

/* ---- the buffer the text is written into ---------------------------------
 * One growing buffer, then one write: a document is hundreds of small
 * pieces, and a FILE's locks and checks per piece cost more than the
 * pieces. */

static void grow(kvplan__text *t, size_t more)
{
    if (t->bad)
        return;
    size_t cap = t->cap ? t->cap : 4096;
    while (cap - t->len < more + 1) {
        if (cap > SIZE_MAX / 2) {
            t->bad = true;
            return;
        }
        cap *= 2;
    }
    if (cap != t->cap) {
        char *p = realloc(t->text, cap);
        if (p == NULL) {
            t->bad = true;
            return;
        }
        t->text = p;
        t->cap = cap;
    }
}

static void put(kvplan__text *t, const char *s, size_t n)
{
    if (t->cap - t->len < n + 1)
        grow(t, n);
    if (t->bad)
        return;
    memcpy(t->text + t->len, s, n);
    t->len += n;
    t->text[t->len] = '\0';
}

static void put1(kvplan__text *t, char c)
{
    put(t, &c, 1);
}

static void puts0(kvplan__text *t, const char *s)
{
    put(t, s, strlen(s));
}

void kvplan__text_string(kvplan__text *t, const char *str, size_t len)
{
    const unsigned char *p = (const unsigned char *)str;
    const unsigned char *end = p + len;
    put1(t, '"');
    while (p < end && !t->bad) {
        /* a run of printable ASCII needing no escape, in one piece */
        const unsigned char *run = p;
        while (p < end && *p >= 0x20 && *p < 0x7F && *p != '"' && *p != '\\')
            p++;
        put(t, (const char *)run, (size_t)(p - run));
        if (p == end)
            break;
        uint32_t c = utf8_next(&p, end);
        char esc[16];
        switch (c) {
        case '"': puts0(t, "\\\""); break;
        case '\\': puts0(t, "\\\\"); break;
        case '\n': puts0(t, "\\n"); break;
        case '\r': puts0(t, "\\r"); break;
        case '\t': puts0(t, "\\t"); break;
        case '\b': puts0(t, "\\b"); break;
        case '\f': puts0(t, "\\f"); break;
        default:
            if (c < 0x20 || (c >= 0x7F && c < 0x10000)) {
                snprintf(esc, sizeof esc, "\\u%04x", (unsigned)c);
                puts0(t, esc);
            } else if (c >= 0x10000) {
                uint32_t v = c - 0x10000;
                snprintf(esc, sizeof esc, "\\u%04x\\u%04x",
                         (unsigned)(0xD800 + (v >> 10)),
                         (unsigned)(0xDC00 + (v & 0x3FF)));
                puts0(t, esc);
            } else {
                put1(t, (char)c);
            }
        }
    }
    put1(t, '"');
}

static int cmp_keys(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* An integer's digits, by hand: printf's cost showed in a plan's process. */
void kvplan__text_integer(kvplan__text *t, int64_t x)
{
    char buf[24], *q = buf + sizeof buf;
    uint64_t u = x < 0 ? 0 - (uint64_t)x : (uint64_t)x;
    do {
        *--q = (char)('0' + u % 10);
        u /= 10;
    } while (u > 0);
    if (x < 0)
        *--q = '-';
    put(t, q, (size_t)(buf + sizeof buf - q));
}

static void object(kvplan__text *t, const json_t *v)
{
    size_t n = json_object_size(v);
    /* the keys in order: most objects are small, sorted on the stack by
     * insertion; larger ones by qsort */
    const char *small[48];
    const char **keys =
        n <= 48 ? small : malloc((n > 0 ? n : 1) * sizeof *keys);
    if (keys == NULL) {
        t->bad = true;
        return;
    }
    size_t i = 0;
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)v, key, value) keys[i++] = key;
    if (n <= 48) {
        for (size_t a = 1; a < n; a++) {
            const char *k = keys[a];
            size_t b = a;
            for (; b > 0 && strcmp(keys[b - 1], k) > 0; b--)
                keys[b] = keys[b - 1];
            keys[b] = k;
        }
    } else {
        qsort(keys, n, sizeof *keys, cmp_keys);
    }
    put1(t, '{');
    for (i = 0; i < n && !t->bad; i++) {
        if (i > 0)
            put(t, ", ", 2);
        kvplan__text_string(t, keys[i], strlen(keys[i]));
        put(t, ": ", 2);
        kvplan__text_json(t, json_object_get(v, keys[i]));
    }
    put1(t, '}');
    if (keys != small)
        free(keys);
}

void kvplan__text_json(kvplan__text *t, const json_t *v)
{
    char buf[40];
    switch (json_typeof(v)) {
    case JSON_NULL:
        puts0(t, "null");
        return;
    case JSON_TRUE:
        puts0(t, "true");
        return;
    case JSON_FALSE:
        puts0(t, "false");
        return;
    case JSON_INTEGER:
        kvplan__text_integer(t, (int64_t)json_integer_value(v));
        return;
    case JSON_REAL:
        put(t, buf, kvplan_format_double(json_real_value(v), buf, sizeof buf));
        return;
    case JSON_STRING:
        kvplan__text_string(t, json_string_value(v), json_string_length(v));
        return;
    case JSON_ARRAY:
        put1(t, '[');
        for (size_t i = 0; i < json_array_size(v) && !t->bad; i++) {
            if (i > 0)
                put(t, ", ", 2);
            kvplan__text_json(t, json_array_get(v, i));
        }
        put1(t, ']');
        return;
    case JSON_OBJECT:
        object(t, v);
        return;
    }
    t->bad = true;
}

int kvplan__json_write(const json_t *v, FILE *out)
{
    kvplan__text t = {NULL, 0, 0, false};
    kvplan__text_json(&t, v);
    int rc = !t.bad && fwrite(t.text, 1, t.len, out) == t.len ? 0 : -1;
    free(t.text);
    return rc;
}

int kvplan__json_write_string(const char *s, size_t len, FILE *out)
{
    kvplan__text t = {NULL, 0, 0, false};
    kvplan__text_string(&t, s, len);
    int rc = !t.bad && fwrite(t.text, 1, t.len, out) == t.len ? 0 : -1;
    free(t.text);
    return rc;
}

json_t *kvplan__json_error(const kvplan_error *err, int exit_status)
{
    return json_pack("{s:s, s:o, s:o, s:i}", "error",
                     kvplan_status_name(err->code), "field",
                     err->field[0] ? kvplan__json_text(err->field)
                                   : json_null(),
                     "message", kvplan__json_text(err->message), "exit_status",
                     exit_status);
}
