/*
 * write.c: the documents, written straight (doc.h): each value in turn,
 * JSON text exactly as Python's json.dumps(obj, sort_keys=True) writes it
 * or Python's pickle (pickle.c) of the same, the members of each object
 * put in their keys' order at its end. The command's --json, kvplan_json
 * and the prepared scenarios all write through it.
 */
#include "json/text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the writer: values in order, each object's members sorted at its
 * end ---------------------------------------------------------------------
 * A member is written where it comes (in JSON "key": value, after ", "
 * unless it is its object's first); its key is remembered (the caller's
 * text, which lives as long as the object is open: UTF-8's byte order is
 * the code points' order, Python's). At the object's end its members are
 * laid out again in their keys' order, the last of equal keys kept (as
 * jansson's set, and a dict, keep it), unless they came in order. */

struct kvplan__member {
    size_t start;    /* where its text starts (its ", " included) */
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
            kvplan__text_put(&w->t, KVPLAN__PK_PROTO, 2);
        return;
    }
    if (o->object != (key != NULL)) {
        fail(w);
        return;
    }
    if (key == NULL) {
        if (o->count++ > 0 && !w->pickle)
            kvplan__text_put(&w->t, ", ", 2);
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
    w->members[w->nmembers++] =
        (struct kvplan__member){w->t.len, key, n, prefix};
    if (w->pickle) {
        o->count++;
        if (!kvplan__pk_key(w, key, n, prefix))
            fail(w);
        return;
    }
    size_t at = 0;
    while (n - at >= 8 && kvplan__plain8(k + at))
        at += 8;
    while (at < n && kvplan__plain[k[at]])
        at++;
    bool all_plain = at == n;
    if (!kvplan__text_room(&w->t, n + 6))
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
    kvplan__text_put(&w->t, ": ", 2);
}

static int key_cmp(const struct kvplan__member *a,
                   const struct kvplan__member *b)
{
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
    size_t n = w->nmembers - first;
    if (n < 2) /* nothing to sort; members may be NULL */
        return;
    struct kvplan__member *m = w->members + first;
    bool in_order = true;
    for (size_t i = 1; i < n && in_order; i++)
        in_order = key_cmp(&m[i - 1], &m[i]) < 0;
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
            if (key_cmp(&m[order[mid]], &m[i]) <= 0)
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
        if (k + 1 < n && key_cmp(&m[i], &m[order[k + 1]]) == 0)
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
        kvplan__text_put1(&w->t, object ? KVPLAN__PK_EMPTY_DICT
                                        : KVPLAN__PK_EMPTY_LIST);
        kvplan__text_put1(&w->t, KVPLAN__PK_MARK);
    } else {
        kvplan__text_put1(&w->t, object ? '{' : '[');
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
        kvplan__text_put1(&w->t, w->pickle ? KVPLAN__PK_APPENDS : ']');
        return;
    }
    if (!w->t.bad)
        sort_members(w, o->start, o->first);
    w->nmembers = o->first;
    kvplan__text_put1(&w->t, w->pickle ? KVPLAN__PK_SETITEMS : '}');
}

void kvplan__w_int(kvplan__writer *w, const char *key, int64_t v)
{
    before(w, key);
    if (w->pickle)
        kvplan__pk_integer(&w->t, v);
    else
        kvplan__text_integer(&w->t, v);
}

void kvplan__w_real(kvplan__writer *w, const char *key, double v)
{
    before(w, key);
    if (!isfinite(v)) {
        /* JSON has no such number (Python writes NaN, which no strict
         * reader takes): a document that holds one is refused */
        if (w->nonfinite[0] == '\0')
            snprintf(w->nonfinite, sizeof w->nonfinite, "%s",
                     key != NULL ? key : "a list's element");
        return;
    }
    if (w->pickle) {
        kvplan__pk_real(&w->t, v);
        return;
    }
    char buf[40];
    kvplan__text_put(&w->t, buf, kvplan_format_double(v, buf, sizeof buf));
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
        kvplan__text_put1(&w->t,
                          (char)(v ? KVPLAN__PK_TRUE : KVPLAN__PK_FALSE));
    else
        kvplan__text_put(&w->t, v ? "true" : "false", v ? 4 : 5);
}

void kvplan__w_null(kvplan__writer *w, const char *key)
{
    before(w, key);
    if (w->pickle)
        kvplan__text_put1(&w->t, KVPLAN__PK_NONE);
    else
        kvplan__text_put(&w->t, "null", 4);
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
        kvplan__pk_string(&w->t, s, len);
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

void kvplan__w_opt_real(kvplan__writer *w, const char *key, kvplan_opt_double v)
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
    case JSON_NULL:
        kvplan__w_null(w, key);
        return;
    case JSON_TRUE:
        kvplan__w_bool(w, key, true);
        return;
    case JSON_FALSE:
        kvplan__w_bool(w, key, false);
        return;
    case JSON_INTEGER:
        kvplan__w_int(w, key, (int64_t)J->integer_value(v));
        return;
    case JSON_REAL:
        kvplan__w_real(w, key, J->real_value(v));
        return;
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
            kvplan__w_json(w, J->object_iter_key(it), J->object_iter_value(it));
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
    w->nonfinite[0] = '\0';
    kvplan__pk_forget(w);
}

kvplan_status kvplan__w_status(const kvplan__writer *w, kvplan_error *err)
{
    if (w->t.bad || w->depth != 0)
        return kvplan__fail(err, KVPLAN_NOMEM, NULL, "out of memory");
    if (w->nonfinite[0] != '\0')
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
            kvplan__pk_finish(w);
        text = kvplan__text_room(&w->t, 0) && !w->t.bad ? w->t.text : NULL;
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
    free(w->memo_slots);
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
