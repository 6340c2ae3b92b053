/*
 * text.c: JSON's strings and integers exactly as Python's json.dumps
 * writes them (non-ASCII escaped, each invalid byte of text from outside
 * as U+FFFD), into the growing buffer (text.h) documents are written in.
 */
#include "json/text.h"

#include <stdio.h>
#include <stdlib.h>

uint32_t kvplan__utf8_next(const unsigned char **p, const unsigned char *end)
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

/* ---- the buffer the text is written into ---------------------------------
 * One growing buffer, then one write: a document is hundreds of small
 * pieces, and a FILE's locks and checks per piece cost more than the
 * pieces. */

void kvplan__text_grow(kvplan__text *t, size_t more)
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

static char *put_u(char *q, uint32_t c)
{
    static const char hex[] = "0123456789abcdef";
    *q++ = '\\';
    *q++ = 'u';
    for (int shift = 12; shift >= 0; shift -= 4)
        *q++ = hex[(c >> shift) & 0xF];
    return q;
}

/* The bytes written as they are in a JSON string: printable ASCII but
 * '"' (0x22) and '\\' (0x5C); sixteen bytes a row. */
/* clang-format off */
const unsigned char kvplan__plain[256] = {
    /* 0x00 - 0x1F: controls */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x22 '"' */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, /* 0x5C '\\' */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, /* 0x7F DEL */
    /* 0x80 - 0xFF: UTF-8's, 0 */
};
/* clang-format on */

void kvplan__text_string(kvplan__text *t, const char *str, size_t len)
{
    /* at most 6 bytes written for each read (an invalid byte's \ufffd),
     * and the quotes */
    if (len > (SIZE_MAX - 3) / 6) {
        t->bad = true;
        return;
    }
    if (!kvplan__text_room(t, 6 * len + 2))
        return;
    const unsigned char *p = (const unsigned char *)str;
    const unsigned char *end = p + len;
    char *q = t->text + t->len;
    *q++ = '"';
    while (p < end) {
        /* a run of printable ASCII needing no escape, in one piece */
        const unsigned char *run = p;
        while (end - p >= 8 && kvplan__plain8(p))
            p += 8;
        while (p < end && kvplan__plain[*p])
            p++;
        memcpy(q, run, (size_t)(p - run));
        q += p - run;
        if (p == end)
            break;
        uint32_t c = kvplan__utf8_next(&p, end);
        char esc = c == '"'    ? '"'
                   : c == '\\' ? '\\'
                   : c == '\n' ? 'n'
                   : c == '\r' ? 'r'
                   : c == '\t' ? 't'
                   : c == '\b' ? 'b'
                   : c == '\f' ? 'f'
                               : 0;
        if (esc != 0) {
            *q++ = '\\';
            *q++ = esc;
        } else if (c < 0x10000) {
            q = put_u(q, c); /* a control or non-ASCII character */
        } else {
            uint32_t v = c - 0x10000; /* a surrogate pair */
            q = put_u(q, 0xD800 + (v >> 10));
            q = put_u(q, 0xDC00 + (v & 0x3FF));
        }
    }
    *q++ = '"';
    t->len = (size_t)(q - t->text);
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
    kvplan__text_put(t, q, (size_t)(buf + sizeof buf - q));
}
