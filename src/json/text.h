/*
 * text.h: the json room's bytes (internal): the growing buffer documents
 * are written in, UTF-8 read back, which bytes a JSON string keeps as they
 * are, and Python's pickle. text.c writes JSON's strings and integers,
 * pickle.c pickle's values and its memo, write.c the documents over both.
 */
#ifndef KVPLAN_JSON_TEXT_H
#define KVPLAN_JSON_TEXT_H

#include "json/doc.h"

#include <stdint.h>
#include <string.h>

/* Grows `t` for `more` bytes and its NUL (bad when memory runs out). */
void kvplan__text_grow(kvplan__text *t, size_t more);

/* Room for `n` more bytes (and the NUL the text ends with); false once
 * memory ran out. */
static inline bool kvplan__text_room(kvplan__text *t, size_t n)
{
    if (t->cap - t->len < n + 1)
        kvplan__text_grow(t, n);
    return !t->bad;
}

/* The text is NUL-terminated only when given out (kvplan__w_take). */
static inline void kvplan__text_put(kvplan__text *t, const char *s, size_t n)
{
    /* nothing to put: `s` may be an empty text's NULL, which memcpy may
     * not be given even for 0 bytes (a pickle of no memoized keys) */
    if (n == 0 || !kvplan__text_room(t, n))
        return;
    memcpy(t->text + t->len, s, n);
    t->len += n;
}

static inline void kvplan__text_put1(kvplan__text *t, char c)
{
    if (kvplan__text_room(t, 1))
        t->text[t->len++] = c;
}

/* Decodes one UTF-8 sequence of [*p, end). Text from the user's files and
 * flags may be any bytes: an invalid, overlong or truncated sequence, or a
 * surrogate, reads as U+FFFD, one byte, so a document is valid whatever
 * the input. */
uint32_t kvplan__utf8_next(const unsigned char **p, const unsigned char *end);

/* The bytes a JSON string keeps as they are: printable ASCII but '"'
 * (0x22) and '\\' (0x5C). */
extern const unsigned char kvplan__plain[256];

/* Whether the 8 bytes at p are all kept as they are (each test a byte's
 * high bit: x - 0x20 borrows where a byte is below 0x20, v - 1 where
 * v = x ^ c is 0, that is where x is c). */
static inline bool kvplan__plain8(const unsigned char *p)
{
    const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
    uint64_t x;
    memcpy(&x, p, sizeof x);
    uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\'), d = x ^ (ones * 0x7F);
    uint64_t bad = ((x - ones * 0x20) & ~x) | ((q - ones) & ~q) |
                   ((b - ones) & ~b) | ((d - ones) & ~d) | x;
    return (bad & high) == 0;
}

/* ---- pickle.c: Python's pickle, protocol 2 ---------------------------------
 * Only data: a dict is EMPTY_DICT MARK (key value)... SETITEMS, a list
 * EMPTY_LIST MARK value... APPENDS, and the scalars; the keys by the
 * memo. */

#define KVPLAN__PK_PROTO "\x80\x02"
#define KVPLAN__PK_MARK '('
#define KVPLAN__PK_EMPTY_DICT '}'
#define KVPLAN__PK_SETITEMS 'u'
#define KVPLAN__PK_EMPTY_LIST ']'
#define KVPLAN__PK_APPENDS 'e'
#define KVPLAN__PK_NONE 'N'
#define KVPLAN__PK_TRUE '\x88'
#define KVPLAN__PK_FALSE '\x89'

/* A str (its UTF-8, each invalid byte as U+FFFD, as the JSON text writes
 * it), an int, a float (the double itself). */
void kvplan__pk_string(kvplan__text *t, const char *s, size_t len);
void kvplan__pk_integer(kvplan__text *t, int64_t v);
void kvplan__pk_real(kvplan__text *t, double v);
/* A member's key (n bytes, `prefix` its first 8): a reference to its str
 * in the memo, which it joins the first time; false when memory runs
 * out. */
bool kvplan__pk_key(kvplan__writer *w, const char *key, size_t n,
                    uint64_t prefix);
/* The memo emptied (a document begun again). */
void kvplan__pk_forget(kvplan__writer *w);
/* The document as given out: PROTO, the memo's head, the values, STOP
 * (w->t replaced); bad when memory runs out. */
void kvplan__pk_finish(kvplan__writer *w);

#endif /* KVPLAN_JSON_TEXT_H */
