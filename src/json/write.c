/*
 * write.c: JSON text exactly as Python's json.dumps(obj, sort_keys=True)
 * writes it (doc.h): the documents of the command's --json and of
 * kvplan_json, byte for byte the same.
 */
#include "json/doc.h"

#include <stdint.h>
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

int kvplan__json_write_string(const char *str, size_t len, FILE *out)
{
    const unsigned char *p = (const unsigned char *)str;
    const unsigned char *end = p + len;
    if (fputc('"', out) == EOF)
        return -1;
    while (p < end) {
        /* a run of printable ASCII needing no escape, in one write */
        const unsigned char *run = p;
        while (p < end && *p >= 0x20 && *p < 0x7F && *p != '"' && *p != '\\')
            p++;
        size_t n = (size_t)(p - run);
        if (n > 0 && fwrite(run, 1, n, out) != n)
            return -1;
        if (p == end)
            break;
        uint32_t c = utf8_next(&p, end);
        int rc;
        switch (c) {
        case '"':
            rc = fputs("\\\"", out);
            break;
        case '\\':
            rc = fputs("\\\\", out);
            break;
        case '\n':
            rc = fputs("\\n", out);
            break;
        case '\r':
            rc = fputs("\\r", out);
            break;
        case '\t':
            rc = fputs("\\t", out);
            break;
        case '\b':
            rc = fputs("\\b", out);
            break;
        case '\f':
            rc = fputs("\\f", out);
            break;
        default:
            if (c < 0x20 || (c >= 0x7F && c < 0x10000)) {
                rc = fprintf(out, "\\u%04x", c);
            } else if (c >= 0x10000) {
                uint32_t v = c - 0x10000;
                rc = fprintf(out, "\\u%04x\\u%04x", 0xD800 + (v >> 10),
                             0xDC00 + (v & 0x3FF));
            } else {
                rc = fputc((int)c, out);
            }
        }
        if (rc == EOF || rc < 0)
            return -1;
    }
    return fputc('"', out) == EOF ? -1 : 0;
}

static int cmp_keys(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int kvplan__json_write(const json_t *v, FILE *out)
{
    char buf[40];
    switch (json_typeof(v)) {
    case JSON_NULL:
        return fputs("null", out) == EOF ? -1 : 0;
    case JSON_TRUE:
        return fputs("true", out) == EOF ? -1 : 0;
    case JSON_FALSE:
        return fputs("false", out) == EOF ? -1 : 0;
    case JSON_INTEGER: {
        /* the digits by hand: printf's cost showed in a plan's process */
        json_int_t x = json_integer_value(v);
        uint64_t u = x < 0 ? 0 - (uint64_t)x : (uint64_t)x;
        char *q = buf + sizeof buf;
        do {
            *--q = (char)('0' + u % 10);
            u /= 10;
        } while (u > 0);
        if (x < 0)
            *--q = '-';
        size_t n = (size_t)(buf + sizeof buf - q);
        return fwrite(q, 1, n, out) == n ? 0 : -1;
    }
    case JSON_REAL:
        kvplan_format_double(json_real_value(v), buf, sizeof buf);
        return fputs(buf, out) == EOF ? -1 : 0;
    case JSON_STRING:
        return kvplan__json_write_string(json_string_value(v), json_string_length(v), out);
    case JSON_ARRAY: {
        if (fputc('[', out) == EOF)
            return -1;
        for (size_t i = 0; i < json_array_size(v); i++) {
            if ((i > 0 && fputs(", ", out) == EOF) ||
                kvplan__json_write(json_array_get(v, i), out) != 0)
                return -1;
        }
        return fputc(']', out) == EOF ? -1 : 0;
    }
    case JSON_OBJECT: {
        size_t n = json_object_size(v);
        /* the keys in order: most objects are small, sorted on the stack
         * by insertion; larger ones by qsort */
        const char *small[48];
        const char **keys =
            n <= 48 ? small : malloc((n > 0 ? n : 1) * sizeof *keys);
        if (keys == NULL)
            return -1;
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
        int rc = fputc('{', out) == EOF ? -1 : 0;
        for (i = 0; i < n && rc == 0; i++) {
            if ((i > 0 && fputs(", ", out) == EOF) ||
                kvplan__json_write_string(keys[i], strlen(keys[i]), out) != 0 ||
                fputs(": ", out) == EOF ||
                kvplan__json_write(json_object_get(v, keys[i]), out) != 0)
                rc = -1;
        }
        if (keys != small)
            free(keys);
        if (rc == 0 && fputc('}', out) == EOF)
            rc = -1;
        return rc;
    }
    }
    return -1;
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
