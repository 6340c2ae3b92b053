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

/* Room for `n` more bytes (and the NUL the text ends with); false once
 * memory ran out. */
static inline bool room(kvplan__text *t, size_t n)
{
    if (t->cap - t->len < n + 1)
        grow(t, n);
    return !t->bad;
}

/* The text is NUL-terminated only when given out (kvplan__w_take). */
static inline void put(kvplan__text *t, const char *s, size_t n)
{
    if (!room(t, n))
        return;
    memcpy(t->text + t->len, s, n);
    t->len += n;
}

static inline void put1(kvplan__text *t, char c)
{
    if (room(t, 1))
        t->text[t->len++] = c;
}

/* \uXXXX */
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
 * '"' (0x22) and '\\' (0x5C). */
static const unsigned char plain[256] = {
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

/* Whether the 8 bytes at p are all printable ASCII needing no escape:
 * none below 0x20 or above 0x7E, no '"' and no '\\' (each test a byte's
 * high bit: x - 0x20 borrows where a byte is below 0x20, v - 1 where
 * v = x ^ c is 0, that is where x is c). */
static inline bool plain8(const unsigned char *p)
{
    const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
    uint64_t x;
    memcpy(&x, p, sizeof x);
    uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\'),
             d = x ^ (ones * 0x7F);
    uint64_t bad = ((x - ones * 0x20) & ~x) | ((q - ones) & ~q) |
                   ((b - ones) & ~b) | ((d - ones) & ~d) | x;
    return (bad & high) == 0;
}

void kvplan__text_string(kvplan__text *t, const char *str, size_t len)
{
    /* at most 6 bytes written for each read (an invalid byte's \ufffd),
     * and the quotes */
    if (len > (SIZE_MAX - 3) / 6) {
        t->bad = true;
        return;
    }
    if (!room(t, 6 * len + 2))
        return;
    const unsigned char *p = (const unsigned char *)str;
    const unsigned char *end = p + len;
    char *q = t->text + t->len;
    *q++ = '"';
    while (p < end) {
        /* a run of printable ASCII needing no escape, in one piece */
        const unsigned char *run = p;
        while (end - p >= 8 && plain8(p))
            p += 8;
        while (p < end && plain[*p])
            p++;
        memcpy(q, run, (size_t)(p - run));
        q += p - run;
        if (p == end)
            break;
        uint32_t c = utf8_next(&p, end);
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
    put(t, q, (size_t)(buf + sizeof buf - q));
}


/* ---- Python's pickle, protocol 2 -------------------------------------------
 * The same documents for the Python binding, which unpickles them rather
 * than parsing JSON (pickle.loads builds a plan's dicts in half the time
 * json.loads takes). Only data: a dict is EMPTY_DICT MARK (key value)...
 * SETITEMS, a list EMPTY_LIST MARK value... APPENDS, and the scalars; no
 * memo, no global, nothing that runs code. Numbers as JSON would read
 * them back: a real's double exactly, an integer's value. */

#define PK_PROTO 0x80
#define PK_STOP '.'
#define PK_MARK '('
#define PK_EMPTY_DICT '}'
#define PK_SETITEMS 'u'
#define PK_EMPTY_LIST ']'
#define PK_APPENDS 'e'
#define PK_NONE 'N'
#define PK_TRUE 0x88
#define PK_FALSE 0x89
#define PK_BININT 'J'
#define PK_LONG1 0x8A
#define PK_BINFLOAT 'G'
#define PK_BINUNICODE 'X'

static void pk_le(kvplan__text *t, uint64_t v, size_t n)
{
    if (!room(t, n))
        return;
    for (size_t i = 0; i < n; i++)
        t->text[t->len++] = (char)(v >> (8 * i));
}

/* A str of `len` bytes: its UTF-8, each invalid byte as U+FFFD (as the
 * JSON text writes it: the two read back the same). */
static void pk_string(kvplan__text *t, const char *str, size_t len)
{
    if (len > UINT32_MAX / 3 || !room(t, 5 + 3 * len)) {
        t->bad = true;
        return;
    }
    t->text[t->len++] = PK_BINUNICODE;
    size_t at = t->len;
    t->len += 4; /* the length, once known */
    const unsigned char *p = (const unsigned char *)str, *end = p + len;
    while (p < end) {
        const unsigned char *run = p;
        while (p < end && *p < 0x80)
            p++;
        memcpy(t->text + t->len, run, (size_t)(p - run));
        t->len += (size_t)(p - run);
        if (p == end)
            break;
        const unsigned char *c = p;
        if (utf8_next(&p, end) == 0xFFFD) { /* U+FFFD, or an invalid byte */
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

static void pk_integer(kvplan__text *t, int64_t v)
{
    if (v >= INT32_MIN && v <= INT32_MAX) {
        put1(t, PK_BININT);
        pk_le(t, (uint64_t)v, 4);
    } else { /* two's complement, little-endian, 8 bytes */
        put1(t, (char)PK_LONG1);
        put1(t, 8);
        pk_le(t, (uint64_t)v, 8);
    }
}

static void pk_real(kvplan__text *t, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    put1(t, PK_BINFLOAT);
    for (int i = 7; i >= 0; i--) /* big-endian */
        put1(t, (char)(bits >> (8 * i)));
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

struct kvplan__memo {
    uint64_t prefix;
    size_t at, len; /* its bytes in w->memo_keys */
    uint32_t index;
    bool used;
};

/* The memo index of `key` (n bytes, `prefix` its first 8), given one the
 * first time it is seen; UINT32_MAX when memory runs out. */
static uint32_t memo_index(kvplan__writer *w, const char *key, size_t n,
                           uint64_t prefix)
{
    if (2 * (w->memo_count + 1) > w->memo_cap) { /* grow, rehash */
        size_t cap = w->memo_cap ? 2 * w->memo_cap : 256;
        struct kvplan__memo *t = calloc(cap, sizeof *t);
        if (t == NULL)
            return UINT32_MAX;
        for (size_t i = 0; i < w->memo_cap; i++) {
            struct kvplan__memo *e = &w->memo[i];
            if (!e->used)
                continue;
            size_t h = (size_t)((e->prefix ^ e->len) * 0x9E3779B97F4A7C15u >>
                                32) & (cap - 1);
            while (t[h].used)
                h = (h + 1) & (cap - 1);
            t[h] = *e;
        }
        free(w->memo);
        w->memo = t;
        w->memo_cap = cap;
    }
    size_t h = (size_t)((prefix ^ n) * 0x9E3779B97F4A7C15u >> 32) &
               (w->memo_cap - 1);
    for (;; h = (h + 1) & (w->memo_cap - 1)) {
        struct kvplan__memo *e = &w->memo[h];
        if (!e->used)
            break;
        if (e->prefix == prefix && e->len == n &&
            memcmp(w->memo_keys.text + e->at, key, n) == 0)
            return e->index;
    }
    size_t at = w->memo_keys.len;
    put(&w->memo_keys, key, n);
    if (w->memo_keys.bad)
        return UINT32_MAX;
    w->memo[h] = (struct kvplan__memo){prefix, at, n,
                                       (uint32_t)w->memo_count, true};
    return (uint32_t)w->memo_count++;
}

/* A memo slot: its one byte, or four. */
static void pk_memo_op(kvplan__text *t, char short_op, char long_op,
                       uint32_t index)
{
    if (index < 256) {
        put1(t, short_op);
        put1(t, (char)index);
    } else {
        put1(t, long_op);
        pk_le(t, index, 4);
    }
}

/* PROTO, the memo's head, the document (its own PROTO dropped), STOP: a
 * new buffer in place of w->t. */
static void pk_finish(kvplan__writer *w)
{
    if (w->t.len < 2) { /* no document was written */
        w->t.bad = true;
        return;
    }
    kvplan__text out = {NULL, 0, 0, false};
    put(&out, "\x80\x02", 2);
    const struct kvplan__memo **by_index =
        calloc(w->memo_count > 0 ? w->memo_count : 1, sizeof *by_index);
    if (by_index == NULL) {
        w->t.bad = true;
        return;
    }
    for (size_t i = 0; i < w->memo_cap; i++)
        if (w->memo[i].used)
            by_index[w->memo[i].index] = &w->memo[i];
    for (size_t i = 0; i < w->memo_count; i++) {
        pk_string(&out, w->memo_keys.text + by_index[i]->at,
                  by_index[i]->len);
        pk_memo_op(&out, PK_BINPUT, PK_LONG_BINPUT, (uint32_t)i);
        put1(&out, PK_POP);
    }
    free(by_index);
    put(&out, w->t.text + 2, w->t.len - 2);
    put1(&out, PK_STOP);
    if (out.bad) {
        free(out.text);
        w->t.bad = true;
        return;
    }
    free(w->t.text);
    w->t = out;
}

/* ---- the writer: values in order, each object's members sorted at its
 * end ---------------------------------------------------------------------
 * A member is written where it comes (in JSON "key": value, after ", "
 * unless it is its object's first); its key is remembered (the caller's
 * text, which lives as long as the object is open: UTF-8's byte order is
 * the code points' order, Python's). At the object's end its members are
 * laid out again in their keys' order, the last of equal keys kept (as
 * jansson's set, and a dict, keep it), unless they came in order. */

struct kvplan__member {
    size_t start;   /* where its text starts (its ", " included) */
    const char *key; /* the caller's: it lives until the object ends */
    size_t key_len;
    uint64_t prefix; /* its first 8 bytes, big-endian: most keys differ
                        there, and compare as one number */
};

static struct kvplan__open *top(kvplan__writer *w)
{
    return w->depth > 0 ? &w->open[w->depth - 1] : NULL;
}

static void fail(kvplan__writer *w)
{
    w->t.bad = true;
}

/* What comes before a value: its key in an object (required there, and
 * nowhere else), ", " after a sibling. */
static void before(kvplan__writer *w, const char *key)
{
    struct kvplan__open *o = top(w);
    if (o == NULL) {
        if (key != NULL || w->t.len > 0)
            fail(w); /* one value at the top, and no key */
        else if (w->pickle)
            put(&w->t, "\x80\x02", 2); /* PROTO 2 */
        return;
    }
    if (o->object != (key != NULL)) {
        fail(w);
        return;
    }
    if (key == NULL) {
        if (o->count++ > 0 && !w->pickle)
            put(&w->t, ", ", 2);
        return;
    }
    if (w->nmembers == w->members_cap) {
        size_t cap = w->members_cap ? 2 * w->members_cap : 64;
        struct kvplan__member *m = realloc(w->members, cap * sizeof *m);
        if (m == NULL) {
            fail(w);
            return;
        }
        w->members = m;
        w->members_cap = cap;
    }
    /* the key's length, its first 8 bytes (as one number: big-endian,
     * zeros after its end), whether it needs an escape (a key is most
     * often a literal, with none) */
    size_t n = strlen(key);
    const unsigned char *k = (const unsigned char *)key;
    uint64_t prefix = 0;
    if (n >= 8) /* a big-endian load, which compilers make one */
        prefix = (uint64_t)k[0] << 56 | (uint64_t)k[1] << 48 |
                 (uint64_t)k[2] << 40 | (uint64_t)k[3] << 32 |
                 (uint64_t)k[4] << 24 | (uint64_t)k[5] << 16 |
                 (uint64_t)k[6] << 8 | (uint64_t)k[7];
    else
        for (size_t i = 0; i < 8; i++)
            prefix = (prefix << 8) | (i < n ? k[i] : 0u);
    size_t at = 0;
    while (n - at >= 8 && plain8(k + at))
        at += 8;
    while (at < n && plain[k[at]])
        at++;
    bool all_plain = at == n;
    w->members[w->nmembers++] =
        (struct kvplan__member){w->t.len, key, n, prefix};
    if (w->pickle) {
        o->count++;
        uint32_t index = memo_index(w, key, n, prefix);
        if (index == UINT32_MAX)
            fail(w);
        else
            pk_memo_op(&w->t, PK_BINGET, PK_LONG_BINGET, index);
        return;
    }
    if (!room(&w->t, n + 6))
        return;
    char *q = w->t.text + w->t.len;
    if (o->count++ > 0) {
        *q++ = ',';
        *q++ = ' ';
    }
    if (all_plain) {
        *q++ = '"';
        memcpy(q, key, n);
        q += n;
        *q++ = '"';
        w->t.len = (size_t)(q - w->t.text);
    } else {
        w->t.len = (size_t)(q - w->t.text);
        kvplan__text_string(&w->t, key, n);
    }
    put(&w->t, ": ", 2);
}

static int key_cmp(const kvplan__writer *w, const struct kvplan__member *a,
                   const struct kvplan__member *b)
{
    (void)w;
    if (a->prefix != b->prefix)
        return a->prefix < b->prefix ? -1 : 1;
    const unsigned char *x = (const unsigned char *)a->key;
    const unsigned char *y = (const unsigned char *)b->key;
    size_t n = a->key_len < b->key_len ? a->key_len : b->key_len;
    int c = memcmp(x, y, n);
    return c != 0 ? c : (a->key_len > b->key_len) - (a->key_len < b->key_len);
}

/* The members of the object whose body starts at `body_at` (from
 * members[first]) laid out in their keys' order. */
static void sort_members(kvplan__writer *w, size_t body_at, size_t first)
{
    struct kvplan__member *m = w->members + first;
    size_t n = w->nmembers - first;
    bool in_order = true;
    for (size_t i = 1; i < n && in_order; i++)
        in_order = key_cmp(w, &m[i - 1], &m[i]) < 0;
    if (in_order)
        return;
    /* the order, by insertion (stable: of equal keys the last written
     * comes last), over indices kept in the scratch buffer's head */
    size_t sep = w->pickle ? 0 : 2; /* JSON's ", " */
    size_t need = n * sizeof(size_t) + (w->t.len - body_at) + 1;
    if (need > w->scratch_cap) {
        char *p = realloc(w->scratch, need);
        if (p == NULL) {
            fail(w);
            return;
        }
        w->scratch = p;
        w->scratch_cap = need;
    }
    size_t *order = (size_t *)(void *)w->scratch;
    for (size_t i = 0; i < n; i++) {
        /* after every key not greater: a binary search, then a move */
        size_t lo = 0, hi = i;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (key_cmp(w, &m[order[mid]], &m[i]) <= 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        memmove(order + lo + 1, order + lo, (i - lo) * sizeof *order);
        order[lo] = i;
    }
    char *out = w->scratch + n * sizeof(size_t);
    size_t len = 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = order[k];
        if (k + 1 < n && key_cmp(w, &m[i], &m[order[k + 1]]) == 0)
            continue; /* a later member of the same key replaces it */
        size_t from = m[i].start + (i > 0 ? sep : 0); /* its ", " dropped */
        size_t to = i + 1 < n ? m[i + 1].start : w->t.len;
        if (len > 0 && sep > 0) {
            memcpy(out + len, ", ", 2);
            len += 2;
        }
        memcpy(out + len, w->t.text + from, to - from);
        len += to - from;
    }
    memcpy(w->t.text + body_at, out, len);
    w->t.len = body_at + len;
}

static void open_value(kvplan__writer *w, const char *key, bool object)
{
    before(w, key);
    if (w->depth == KVPLAN__WRITER_DEPTH) {
        fail(w);
        return;
    }
    if (w->pickle) {
        put1(&w->t, object ? PK_EMPTY_DICT : PK_EMPTY_LIST);
        put1(&w->t, PK_MARK);
    } else {
        put1(&w->t, object ? '{' : '[');
    }
    w->open[w->depth++] =
        (struct kvplan__open){w->t.len, w->nmembers, 0, object};
}

void kvplan__w_object(kvplan__writer *w, const char *key)
{
    open_value(w, key, true);
}

void kvplan__w_array(kvplan__writer *w, const char *key)
{
    open_value(w, key, false);
}

void kvplan__w_end(kvplan__writer *w)
{
    struct kvplan__open *o = top(w);
    if (o == NULL) {
        fail(w);
        return;
    }
    w->depth--;
    if (!o->object) {
        put1(&w->t, w->pickle ? PK_APPENDS : ']');
        return;
    }
    if (!w->t.bad)
        sort_members(w, o->start, o->first);
    w->nmembers = o->first;
    put1(&w->t, w->pickle ? PK_SETITEMS : '}');
}

void kvplan__w_int(kvplan__writer *w, const char *key, int64_t v)
{
    before(w, key);
    if (w->pickle)
        pk_integer(&w->t, v);
    else
        kvplan__text_integer(&w->t, v);
}

void kvplan__w_real(kvplan__writer *w, const char *key, double v)
{
    before(w, key);
    if (!isfinite(v)) {
        /* JSON has no such number (Python writes NaN, which no strict
         * reader takes): a document that holds one is refused */
        if (w->nonfinite == NULL)
            w->nonfinite = key != NULL ? key : "a list's element";
        return;
    }
    if (w->pickle) {
        pk_real(&w->t, v);
        return;
    }
    char buf[40];
    put(&w->t, buf, kvplan_format_double(v, buf, sizeof buf));
}

void kvplan__w_repr(kvplan__writer *w, const char *key, double v)
{
    char buf[40];
    size_t n = kvplan_format_double(v, buf, sizeof buf);
    kvplan__w_strn(w, key, buf, n);
}

void kvplan__w_bool(kvplan__writer *w, const char *key, bool v)
{
    before(w, key);
    if (w->pickle)
        put1(&w->t, (char)(v ? PK_TRUE : PK_FALSE));
    else
        put(&w->t, v ? "true" : "false", v ? 4 : 5);
}

void kvplan__w_null(kvplan__writer *w, const char *key)
{
    before(w, key);
    if (w->pickle)
        put1(&w->t, PK_NONE);
    else
        put(&w->t, "null", 4);
}

void kvplan__w_str(kvplan__writer *w, const char *key, const char *s)
{
    if (s == NULL)
        kvplan__w_null(w, key);
    else
        kvplan__w_strn(w, key, s, strlen(s));
}

void kvplan__w_strn(kvplan__writer *w, const char *key, const char *s,
                    size_t len)
{
    before(w, key);
    if (w->pickle)
        pk_string(&w->t, s, len);
    else
        kvplan__text_string(&w->t, s, len);
}

void kvplan__w_opt_int(kvplan__writer *w, const char *key, kvplan_opt_int v)
{
    if (v.set)
        kvplan__w_int(w, key, v.value);
    else
        kvplan__w_null(w, key);
}

void kvplan__w_opt_real(kvplan__writer *w, const char *key,
                        kvplan_opt_double v)
{
    if (v.set)
        kvplan__w_real(w, key, v.value);
    else
        kvplan__w_null(w, key);
}

void kvplan__w_json(kvplan__writer *w, const char *key, const json_t *v)
{
    const kvplan__jansson *J = KVPLAN__J;
    switch (json_typeof(v)) {
    case JSON_NULL: kvplan__w_null(w, key); return;
    case JSON_TRUE: kvplan__w_bool(w, key, true); return;
    case JSON_FALSE: kvplan__w_bool(w, key, false); return;
    case JSON_INTEGER:
        kvplan__w_int(w, key, (int64_t)J->integer_value(v));
        return;
    case JSON_REAL: kvplan__w_real(w, key, J->real_value(v)); return;
    case JSON_STRING:
        kvplan__w_strn(w, key, J->string_value(v), J->string_length(v));
        return;
    case JSON_ARRAY:
        kvplan__w_array(w, key);
        for (size_t i = 0; i < J->array_size(v) && !w->t.bad; i++)
            kvplan__w_json(w, NULL, J->array_get(v, i));
        kvplan__w_end(w);
        return;
    case JSON_OBJECT:
        kvplan__w_object(w, key);
        for (void *it = J->object_iter((json_t *)v); it != NULL && !w->t.bad;
             it = J->object_iter_next((json_t *)v, it))
            kvplan__w_json(w, J->object_iter_key(it),
                           J->object_iter_value(it));
        kvplan__w_end(w);
        return;
    }
    fail(w);
}

void kvplan__w_error(kvplan__writer *w, const kvplan_error *err,
                     int exit_status)
{
    kvplan__w_reset(w);
    kvplan__w_object(w, NULL);
    kvplan__w_str(w, "error", kvplan_status_name(err->code));
    kvplan__w_str(w, "field", err->field[0] ? err->field : NULL);
    kvplan__w_str(w, "message", err->message);
    kvplan__w_int(w, "exit_status", exit_status);
    kvplan__w_end(w);
}

void kvplan__w_reset(kvplan__writer *w)
{
    w->t.len = 0; /* the encoding kept */
    w->t.bad = false;
    if (w->t.text != NULL)
        w->t.text[0] = '\0';
    w->nmembers = w->depth = 0;
    w->nonfinite = NULL;
    w->memo_keys.len = w->memo_count = 0;
    if (w->memo != NULL)
        memset(w->memo, 0, w->memo_cap * sizeof *w->memo);
}

kvplan_status kvplan__w_status(const kvplan__writer *w, kvplan_error *err)
{
    if (w->t.bad || w->depth != 0)
        return kvplan__fail(err, KVPLAN_NOMEM, NULL, "out of memory");
    if (w->nonfinite != NULL)
        return kvplan__fail(err, KVPLAN_OVERFLOW, w->nonfinite,
                            "%s: not a finite number; JSON cannot hold it",
                            w->nonfinite);
    return kvplan__ok(err);
}

char *kvplan__w_take(kvplan__writer *w, size_t *len)
{
    char *text = NULL;
    if (kvplan__w_status(w, NULL) == KVPLAN_OK) {
        if (w->pickle)
            pk_finish(w);
        text = room(&w->t, 0) && !w->t.bad ? w->t.text : NULL;
        if (text != NULL) {
            text[w->t.len] = '\0';
            if (len != NULL)
                *len = w->t.len;
            w->t.text = NULL;
        }
    }
    kvplan__w_free(w);
    return text;
}

int kvplan__w_print(kvplan__writer *w, FILE *out, bool newline)
{
    int rc = kvplan__w_status(w, NULL) == KVPLAN_OK &&
                     fwrite(w->t.text, 1, w->t.len, out) == w->t.len &&
                     (!newline || fputc('\n', out) != EOF)
                 ? 0
                 : -1;
    kvplan__w_free(w);
    return rc;
}

void kvplan__w_free(kvplan__writer *w)
{
    free(w->t.text);
    free(w->members);
    free(w->scratch);
    free(w->memo);
    free(w->memo_keys.text);
    bool pickle = w->pickle;
    *w = (kvplan__writer){0};
    w->pickle = pickle;
}

char *kvplan__dump(const json_t *v, size_t *len)
{
    kvplan__writer w = {0};
    kvplan__w_json(&w, NULL, v);
    return kvplan__w_take(&w, len);
}
