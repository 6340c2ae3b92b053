/*
 * pickle.c: Python's pickle, protocol 2 (text.h): the same documents for
 * the Python binding, which unpickles them rather than parsing JSON
 * (pickle.loads builds a plan's dicts in half the time json.loads takes).
 * Only data: dicts, lists, str, int, float, bool and None, the keys made
 * once through the memo; no global, nothing that runs code. Numbers as the
 * JSON text reads back: a float's double exactly, an int's value.
 */
#include "json/text.h"

#include <stdlib.h>

#define PK_STOP '.'
#define PK_BININT 'J'
#define PK_LONG1 0x8A
#define PK_BINFLOAT 'G'
#define PK_BINUNICODE 'X'

static void pk_le(kvplan__text *t, uint64_t v, size_t n)
{
    if (!kvplan__text_room(t, n))
        return;
    for (size_t i = 0; i < n; i++)
        t->text[t->len++] = (char)(v >> (8 * i));
}

/* A str of `len` bytes: its UTF-8, each invalid byte as U+FFFD (as the
 * JSON text writes it: the two read back the same). */
void kvplan__pk_string(kvplan__text *t, const char *str, size_t len)
{
    if (len > UINT32_MAX / 3 || !kvplan__text_room(t, 5 + 3 * len)) {
        t->bad = true;
        return;
    }
    t->text[t->len++] = PK_BINUNICODE;
    size_t at = t->len;
    t->len += 4; /* the length, once known */
    const unsigned char *p = (const unsigned char *)str, *end = p + len;
    while (p < end) {
        const unsigned char *run = p;
        uint64_t x;
        while (end - p >= 8 &&
               (memcpy(&x, p, 8), (x & 0x8080808080808080u) == 0))
            p += 8; /* ASCII, eight bytes at a time */
        while (p < end && *p < 0x80)
            p++;
        memcpy(t->text + t->len, run, (size_t)(p - run));
        t->len += (size_t)(p - run);
        if (p == end)
            break;
        const unsigned char *c = p;
        /* U+FFFD, or an invalid byte */
        if (kvplan__utf8_next(&p, end) == 0xFFFD) {
            memcpy(t->text + t->len, "\xEF\xBF\xBD", 3);
            t->len += 3;
        } else {
            memcpy(t->text + t->len, c, (size_t)(p - c));
            t->len += (size_t)(p - c);
        }
    }
    uint32_t n = (uint32_t)(t->len - at - 4);
    for (size_t i = 0; i < 4; i++)
        t->text[at + i] = (char)(n >> (8 * i));
}

void kvplan__pk_integer(kvplan__text *t, int64_t v)
{
    if (v >= INT32_MIN && v <= INT32_MAX) {
        kvplan__text_put1(t, PK_BININT);
        pk_le(t, (uint64_t)v, 4);
    } else { /* two's complement, little-endian, 8 bytes */
        kvplan__text_put1(t, (char)PK_LONG1);
        kvplan__text_put1(t, 8);
        pk_le(t, (uint64_t)v, 8);
    }
}

void kvplan__pk_real(kvplan__text *t, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    kvplan__text_put1(t, PK_BINFLOAT);
    for (int i = 7; i >= 0; i--) /* big-endian */
        kvplan__text_put1(t, (char)(bits >> (8 * i)));
}

/* Keys are memoized: each distinct key's str is made once, in a head the
 * document is given out with (str, BINPUT n, POP for each), and every
 * member names it by BINGET n. The head comes first whatever order the
 * members are sorted into, so no reference precedes its str. */

#define PK_BINGET 'h'
#define PK_LONG_BINGET 'j'
#define PK_BINPUT 'q'
#define PK_LONG_BINPUT 'r'
#define PK_POP '0'

/* A memo slot: its one byte, or four. */
static void pk_memo_op(kvplan__text *t, char short_op, char long_op,
                       uint32_t index)
{
    if (index < 256) {
        kvplan__text_put1(t, short_op);
        kvplan__text_put1(t, (char)index);
    } else {
        kvplan__text_put1(t, long_op);
        pk_le(t, index, 4);
    }
}

struct kvplan__memo {
    uint64_t prefix;
    uint32_t at, len; /* its bytes in w->memo_keys, the memo's head */
};

static size_t memo_hash(uint64_t prefix, size_t n, size_t cap)
{
    return (size_t)((prefix ^ n) * 0x9E3779B97F4A7C15u >> 32) & (cap - 1);
}

/* The memo index of `key` (n bytes, `prefix` its first 8), given one the
 * first time it is seen; UINT32_MAX when memory runs out. The keys are
 * kept in their order (w->memo), found through a table of their indices
 * plus one (w->memo_slots, 0 empty, at most half full). */
static uint32_t memo_index(kvplan__writer *w, const char *key, size_t n,
                           uint64_t prefix)
{
    if (n > UINT32_MAX || w->memo_keys.len > UINT32_MAX - n)
        return UINT32_MAX;
    if (2 * (w->memo_count + 1) > w->slots_cap) { /* grow, rehash */
        size_t cap = w->slots_cap ? 2 * w->slots_cap : 512;
        uint32_t *t = calloc(cap, sizeof *t);
        if (t == NULL)
            return UINT32_MAX;
        for (size_t i = 0; i < w->memo_count; i++) {
            size_t h = memo_hash(w->memo[i].prefix, w->memo[i].len, cap);
            while (t[h] != 0)
                h = (h + 1) & (cap - 1);
            t[h] = (uint32_t)i + 1;
        }
        free(w->memo_slots);
        w->memo_slots = t;
        w->slots_cap = cap;
    }
    size_t h = memo_hash(prefix, n, w->slots_cap);
    for (; w->memo_slots[h] != 0; h = (h + 1) & (w->slots_cap - 1)) {
        const struct kvplan__memo *e = &w->memo[w->memo_slots[h] - 1];
        if (e->prefix == prefix && e->len == n &&
            memcmp(w->memo_keys.text + e->at, key, n) == 0)
            return w->memo_slots[h] - 1;
    }
    if (w->memo_count == w->memo_cap) {
        size_t cap = w->memo_cap ? 2 * w->memo_cap : 256;
        struct kvplan__memo *m = realloc(w->memo, cap * sizeof *m);
        if (m == NULL)
            return UINT32_MAX;
        w->memo = m;
        w->memo_cap = cap;
    }
    /* its str, straight into the head: BINUNICODE, BINPUT, POP (the key's
     * bytes follow the opcode and its length; an invalid byte's U+FFFD
     * only makes a later key of the same bytes a second str) */
    uint32_t at = (uint32_t)w->memo_keys.len + 5;
    kvplan__pk_string(&w->memo_keys, key, n);
    pk_memo_op(&w->memo_keys, PK_BINPUT, PK_LONG_BINPUT,
               (uint32_t)w->memo_count);
    kvplan__text_put1(&w->memo_keys, PK_POP);
    if (w->memo_keys.bad)
        return UINT32_MAX;
    w->memo[w->memo_count] = (struct kvplan__memo){prefix, at, (uint32_t)n};
    w->memo_slots[h] = (uint32_t)w->memo_count + 1;
    return (uint32_t)w->memo_count++;
}

/* PROTO, the memo's head, the document (its own PROTO dropped), STOP: a
 * new buffer in place of w->t. */
void kvplan__pk_finish(kvplan__writer *w)
{
    if (w->t.len < 2) { /* no document was written */
        w->t.bad = true;
        return;
    }
    kvplan__text out = {NULL, 0, 0, false};
    if (!kvplan__text_room(&out, w->memo_keys.len + w->t.len + 1)) {
        w->t.bad = true;
        return;
    }
    kvplan__text_put(&out, KVPLAN__PK_PROTO, 2);
    kvplan__text_put(&out, w->memo_keys.text, w->memo_keys.len);
    kvplan__text_put(&out, w->t.text + 2, w->t.len - 2);
    kvplan__text_put1(&out, PK_STOP);
    if (out.bad) {
        free(out.text);
        w->t.bad = true;
        return;
    }
    free(w->t.text);
    w->t = out;
}

bool kvplan__pk_key(kvplan__writer *w, const char *key, size_t n,
                    uint64_t prefix)
{
    uint32_t index = memo_index(w, key, n, prefix);
    if (index == UINT32_MAX)
        return false;
    pk_memo_op(&w->t, PK_BINGET, PK_LONG_BINGET, index);
    return true;
}

void kvplan__pk_forget(kvplan__writer *w)
{
    w->memo_keys.len = w->memo_count = 0;
    if (w->memo_slots != NULL)
        memset(w->memo_slots, 0, w->slots_cap * sizeof *w->memo_slots);
}
