/*
 * parse.c: the readings of an sglang start-up log (docs/log.md).
 *
 * A log is any bytes: lines are scanned for the phrases sglang prints
 * (docs/sglang-rules.md §3.1's prints), each number parsed where it
 * stands, bounded, without allocating. Nothing is defaulted: a reading
 * no line printed stays unset.
 */
#include "log/log.h"

#include <string.h>

/* The rank of a "[date time TPn]" prefix, or -1. */
static int64_t line_rank(kvplan__log_span l)
{
    if (l.s >= l.end || *l.s != '[')
        return -1;
    const char *close = memchr(l.s, ']', (size_t)(l.end - l.s));
    if (close == NULL)
        return -1;
    const char *tp = kvplan__log_find_word(l.s, close, "TP");
    int64_t r;
    if (tp == NULL)
        return -1;
    tp += 2;
    return kvplan__log_parse_int(&tp, close, &r) && r >= 0 ? r : -1;
}

/* ---- server_args=ServerArgs(key=value, ...) ----------------------------- */

/* The end of a value starting at p: a quoted string, a bracketed list or
 * dict (quotes inside honoured), or a bare word up to ',' or ')'. */
static const char *value_end(const char *p, const char *end, bool spaced)
{
    if (p < end && (*p == '\'' || *p == '"')) {
        char q = *p++;
        while (p < end && *p != q)
            p += (*p == '\\' && p + 1 < end) ? 2 : 1;
        return p < end ? p + 1 : end;
    }
    int depth = 0;
    char q = 0;
    for (; p < end; p++) {
        char c = *p;
        if (q != 0) {
            if (c == '\\' && p + 1 < end)
                p++;
            else if (c == q)
                q = 0;
        } else if (c == '\'' || c == '"') {
            q = c;
        } else if (c == '(' || c == '[' || c == '{') {
            depth++;
        } else if (c == ')' || c == ']' || c == '}') {
            if (depth == 0)
                return p;
            depth--;
        } else if ((c == ',' || (spaced && c == ' ')) && depth == 0) {
            return p;
        }
    }
    return end;
}

typedef enum arg_kind { A_TEXT, A_DOUBLE, A_INT, A_BOOL } arg_kind;

/* The server arguments kvplan reads, and where they go. */
#define ARG(kind, name)                                                        \
    {                                                                          \
#name, kind, offsetof(kvplan_log_args, name),                          \
            sizeof(((kvplan_log_args *)0)->name)                               \
    }
static const struct arg {
    const char *name;
    arg_kind kind;
    size_t offset, size;
} args[] = {
    ARG(A_TEXT, model_path),
    ARG(A_TEXT, dtype),
    ARG(A_TEXT, kv_cache_dtype),
    ARG(A_TEXT, quantization),
    ARG(A_TEXT, attention_backend),
    ARG(A_TEXT, speculative_algorithm),
    ARG(A_TEXT, speculative_draft_model_path),
    ARG(A_DOUBLE, mem_fraction_static),
    ARG(A_INT, tp_size),
    ARG(A_INT, pp_size),
    ARG(A_INT, dp_size),
    ARG(A_INT, ep_size),
    ARG(A_INT, page_size),
    ARG(A_INT, context_length),
    ARG(A_INT, chunked_prefill_size),
    ARG(A_INT, max_prefill_tokens),
    ARG(A_INT, max_running_requests),
    ARG(A_INT, max_total_tokens),
    ARG(A_INT, cuda_graph_max_bs),
    ARG(A_INT, speculative_num_steps),
    ARG(A_INT, speculative_eagle_topk),
    ARG(A_INT, speculative_num_draft_tokens),
    ARG(A_BOOL, enable_dp_attention),
    ARG(A_BOOL, disable_cuda_graph),
    ARG(A_BOOL, disable_radix_cache),
    ARG(A_BOOL, is_embedding),
};
#undef ARG

static void read_arg(kvplan_log_args *a, const char *key, size_t klen,
                     const char *v, const char *vend)
{
    for (size_t i = 0; i < sizeof args / sizeof args[0]; i++) {
        if (strlen(args[i].name) != klen ||
            memcmp(args[i].name, key, klen) != 0)
            continue;
        char *field = (char *)a + args[i].offset;
        size_t n = (size_t)(vend - v);
        if (n == 4 && memcmp(v, "None", 4) == 0)
            return; /* None: not set */
        switch (args[i].kind) {
        case A_TEXT:
            if (n >= 2 && (*v == '\'' || *v == '"') && vend[-1] == *v) {
                bool fit =
                    kvplan__log_copy_text(field, args[i].size, v + 1, n - 2);
                if (field == a->model_path)
                    a->model_path_cut = !fit;
            }
            return;
        case A_DOUBLE: {
            double x;
            const char *p = v;
            if (kvplan__log_parse_double(&p, vend, &x) && p == vend)
                *(kvplan_opt_double *)(void *)field =
                    (kvplan_opt_double){x, true};
            return;
        }
        case A_INT: {
            int64_t x;
            const char *p = v;
            if (kvplan__log_parse_int(&p, vend, &x) && p == vend)
                *(kvplan_opt_int *)(void *)field = (kvplan_opt_int){x, true};
            return;
        }
        case A_BOOL:
            if (n == 4 && memcmp(v, "True", 4) == 0)
                *(kvplan_opt_int *)(void *)field = (kvplan_opt_int){1, true};
            else if (n == 5 && memcmp(v, "False", 5) == 0)
                *(kvplan_opt_int *)(void *)field = (kvplan_opt_int){0, true};
            return;
        }
    }
}

/* key=value pieces after "ServerArgs(", each one read where kvplan knows
 * it; "..." cuts and anything else that is no key=value are skipped. The
 * scan is linear: every step moves forward. `spaced`: the cut form people
 * paste ("server_args ... tp_size=4 ... mem_fraction_static=0.8"), whose
 * bare values end at a space too. */
static void read_server_args(kvplan_log_args *a, const char *p, const char *end,
                             bool spaced)
{
    a->present = true;
    while (p < end && *p != ')') {
        while (p < end && (*p == ' ' || *p == ','))
            p++;
        if (p >= end || *p == ')')
            break;
        const char *key = p;
        while (p < end &&
               ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                (*p >= '0' && *p <= '9') || *p == '_'))
            p++;
        size_t klen = (size_t)(p - key);
        if (klen == 0 || p >= end || *p != '=') {
            /* not a key=value ("...", a cut): step over it, a character
             * or a word at a time, to the next key */
            p += klen == 0;
            continue;
        }
        const char *v = ++p, *vend = value_end(p, end, spaced);
        read_arg(a, key, klen, v, vend);
        p = vend > v ? vend : v + 1;
    }
}

/* ---- the lines ------------------------------------------------------------
 */

/* What the scan carries from line to line. */
typedef struct scan {
    uint8_t seen[KVPLAN__LOG_MAX_RANKS / 8]; /* the ranks met */
    /* a "Load weight end" met (on the log, on each listed rank): later
     * begins are a draft's */
    bool loaded;
    bool rank_loaded[KVPLAN_LOG_MAX_RANKS];
} scan;

/* The listed slot of `rank`: its own, a new one while there is room, or
 * NULL (no rank, or past the 64 listed). */
static kvplan_log_rank *rank_slot(kvplan_log_readings *r, int64_t rank)
{
    if (rank < 0)
        return NULL;
    for (size_t i = 0; i < r->num_rank_readings; i++)
        if (r->rank_readings[i].rank == rank)
            return &r->rank_readings[i];
    if (r->num_rank_readings == KVPLAN_LOG_MAX_RANKS)
        return NULL;
    kvplan_log_rank *s = &r->rank_readings[r->num_rank_readings++];
    memset(s, 0, sizeof *s);
    s->rank = rank;
    return s;
}

/* The release after "sglang" or "SGLang" on the line: a few separators
 * (" version", "==", ":", " v") and then d.d.d with its suffix. */
static void read_version(kvplan_log_readings *r, kvplan__log_span l)
{
    const char *k = kvplan__log_find(l.s, l.end, "sglang");
    if (k == NULL)
        k = kvplan__log_find(l.s, l.end, "SGLang");
    if (k == NULL)
        return;
    const char *p = k + 6;
    static const char *const skips[] = {" version", " Version", "==", ":",
                                        " v",       " ",        "="};
    for (size_t i = 0; i < sizeof skips / sizeof skips[0]; i++) {
        size_t n = strlen(skips[i]);
        if ((size_t)(l.end - p) >= n && strncmp(p, skips[i], n) == 0)
            p += n;
    }
    while (p < l.end && *p == ' ')
        p++;
    if (p < l.end && (*p == 'v' || *p == 'V'))
        p++;
    const char *e = p;
    int dots = 0;
    while (e < l.end && ((*e >= '0' && *e <= '9') || *e == '.' ||
                         (*e >= 'a' && *e <= 'z') || *e == '+')) {
        dots += *e == '.';
        e++;
    }
    if (e - p >= 5 && dots >= 2 && *p >= '0' && *p <= '9')
        kvplan__log_copy_text(r->sglang_version, sizeof r->sglang_version, p,
                              (size_t)(e - p));
}

static void read_line(kvplan_log_readings *r, kvplan__log_span l, scan *st)
{
    bool used = true;
    /* the server arguments: the whole "ServerArgs(...)", or the cut form
     * people paste, "server_args ... key=value ... key=value" */
    const char *sa = kvplan__log_find(l.s, l.end, "ServerArgs(");
    const char *cut =
        sa == NULL ? kvplan__log_find(l.s, l.end, "server_args ...") : NULL;
    const char *from = sa != NULL    ? sa + strlen("ServerArgs(")
                       : cut != NULL ? cut + strlen("server_args ...")
                                     : NULL;
    double x;
    int64_t n;
    bool begin = false, end = false;
    if (from == NULL) {
        begin = kvplan__log_find(l.s, l.end, "Load weight begin.") != NULL;
        end =
            !begin && kvplan__log_find(l.s, l.end, "Load weight end.") != NULL;
    }
    kvplan_log_rank *slot = begin || end ? rank_slot(r, line_rank(l)) : NULL;
    bool *loaded =
        slot != NULL ? &st->rank_loaded[slot - r->rank_readings] : &st->loaded;
    if (from != NULL) {
        read_server_args(&r->args, from, l.end, cut != NULL);
    } else if (begin) {
        /* the target's: a draft loads after it (its free memory is not
         * the one the budget subtracts from) */
        if (!*loaded && kvplan__log_gib_after(l, "avail mem=", &x)) {
            kvplan__log_set_min(&r->free_before_gib, x);
            if (slot != NULL)
                kvplan__log_set_min(&slot->free_before_gib, x);
        }
    } else if (end) {
        *loaded = true;
        /* the last load's free memory: after target and draft */
        if (kvplan__log_gib_after(l, "avail mem=", &x)) {
            kvplan__log_set_min(&r->free_after_gib, x);
            if (slot != NULL)
                kvplan__log_set_min(&slot->free_after_gib, x);
        }
        if (kvplan__log_gib_after(l, "mem usage=", &x)) {
            kvplan__log_set_max(&r->weights_gib, x);
            if (slot != NULL)
                kvplan__log_set_max(&slot->weights_gib, x);
        }
        if (r->model_class[0] == '\0') /* the target's, not a draft's */
            kvplan__log_word_after(l, "type=", r->model_class,
                                   sizeof r->model_class);
        if (r->model_dtype[0] == '\0')
            kvplan__log_word_after(l, "dtype=torch.", r->model_dtype,
                                   sizeof r->model_dtype);
    } else if (kvplan__log_find(l.s, l.end, "Init torch distributed ends.") !=
               NULL) {
        if (kvplan__log_gib_after(l, "mem usage=", &x))
            kvplan__log_set_max(&r->distributed_gib, x);
    } else if (kvplan__log_find(l.s, l.end, "KV Cache is allocated.") != NULL) {
        if (kvplan__log_int_after(l, "#tokens:", &n))
            r->kv_tokens = (kvplan_opt_int){n, true};
        if (kvplan__log_gib_after(l, "K size:", &x))
            r->k_size_gib = (kvplan_opt_double){x, true};
        if (kvplan__log_gib_after(l, "V size:", &x))
            r->v_size_gib = (kvplan_opt_double){x, true};
        if (kvplan__log_gib_after(l, "KV size:", &x))
            r->kv_size_gib = (kvplan_opt_double){x, true};
    } else if (kvplan__log_find(l.s, l.end, "Memory pool end.") != NULL) {
        if (kvplan__log_gib_after(l, "avail mem=", &x))
            kvplan__log_set_min(&r->pool_end_gib, x);
    } else if (kvplan__log_find(l.s, l.end, "Using KV cache dtype:") != NULL) {
        kvplan__log_word_after(l, "dtype: torch.", r->kv_dtype,
                               sizeof r->kv_dtype);
    } else if (kvplan__log_find_word(l.s, l.end, "max_total_num_tokens=") !=
               NULL) {
        if (kvplan__log_int_after(l, "max_total_num_tokens=", &n))
            r->max_total_num_tokens = (kvplan_opt_int){n, true};
        if (kvplan__log_int_after(l, "max_prefill_tokens=", &n))
            r->max_prefill_tokens = (kvplan_opt_int){n, true};
        if (kvplan__log_int_after(l, "max_running_requests=", &n))
            r->max_running_requests = (kvplan_opt_int){n, true};
        if (kvplan__log_int_after(l, "context_len=", &n))
            r->context_len = (kvplan_opt_int){n, true};
        if (kvplan__log_gib_after(l, "available_gpu_mem=", &x))
            r->available_gpu_mem_gib = (kvplan_opt_double){x, true};
    } else {
        used = false;
    }
    if (from == NULL && r->sglang_version[0] == '\0') {
        read_version(r, l);
        used |= r->sglang_version[0] != '\0';
    }
    if (!used)
        return;
    r->lines_used++;
    int64_t rank = line_rank(l);
    if (rank >= 0 && rank < KVPLAN__LOG_MAX_RANKS &&
        !(st->seen[rank / 8] & (1u << (rank % 8)))) {
        st->seen[rank / 8] |= (uint8_t)(1u << (rank % 8));
        r->ranks++;
    }
    /* the first "[YYYY-MM-DD" */
    if (r->date[0] == '\0' && l.end - l.s >= 11 && l.s[0] == '[' &&
        l.s[5] == '-' && l.s[8] == '-')
        kvplan__log_copy_text(r->date, sizeof r->date, l.s + 1, 10);
}

/* Whether a value was read: a figure, a word, the version, a server
 * argument (a README that quotes "server_args=ServerArgs(" reads none). */
static bool anything_read(const kvplan_log_readings *r)
{
    const kvplan_log_args *a = &r->args;
    const kvplan_opt_int *ints[] = {&r->kv_tokens,
                                    &r->max_total_num_tokens,
                                    &r->max_prefill_tokens,
                                    &r->max_running_requests,
                                    &r->context_len,
                                    &a->tp_size,
                                    &a->pp_size,
                                    &a->dp_size,
                                    &a->ep_size,
                                    &a->page_size,
                                    &a->context_length,
                                    &a->chunked_prefill_size,
                                    &a->max_prefill_tokens,
                                    &a->max_running_requests,
                                    &a->max_total_tokens,
                                    &a->cuda_graph_max_bs,
                                    &a->speculative_num_steps,
                                    &a->speculative_eagle_topk,
                                    &a->speculative_num_draft_tokens,
                                    &a->enable_dp_attention,
                                    &a->disable_cuda_graph,
                                    &a->disable_radix_cache,
                                    &a->is_embedding};
    const kvplan_opt_double *reals[] = {
        &r->free_before_gib,    &r->free_after_gib, &r->weights_gib,
        &r->distributed_gib,    &r->pool_end_gib,   &r->k_size_gib,
        &r->v_size_gib,         &r->kv_size_gib,    &r->available_gpu_mem_gib,
        &a->mem_fraction_static};
    const char *words[] = {r->model_class,
                           r->model_dtype,
                           r->kv_dtype,
                           r->sglang_version,
                           a->model_path,
                           a->dtype,
                           a->kv_cache_dtype,
                           a->quantization,
                           a->attention_backend,
                           a->speculative_algorithm,
                           a->speculative_draft_model_path};
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
        if (ints[i]->set)
            return true;
    for (size_t i = 0; i < sizeof reals / sizeof *reals; i++)
        if (reals[i]->set)
            return true;
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (words[i][0] != '\0')
            return true;
    return false;
}

kvplan_status kvplan_log_parse(const char *text, size_t len,
                               kvplan_log_readings *out, kvplan_error *err)
{
    KVPLAN__FAIL_IF(out == NULL || (text == NULL && len > 0), err,
                    KVPLAN_INVALID_ARGUMENT, NULL,
                    "kvplan_log_parse: text and out must not be NULL");
    memset(out, 0, sizeof *out);
    scan st;
    memset(&st, 0, sizeof st);
    const char *p = text, *end = text + len;
    kvplan__log_span l;
    while (kvplan__log_next_line(&p, end, &l)) {
        out->lines++;
        read_line(out, l, &st);
    }
    KVPLAN__FAIL_IF(out->lines_used > 0 && !anything_read(out), err,
                    KVPLAN_PARSE, "log",
                    "%lld of %lld lines name sglang's start-up, but no value "
                    "could be read from them (a text about sglang, not its "
                    "log?)",
                    (long long)out->lines_used, (long long)out->lines);
    KVPLAN__FAIL_IF(out->lines_used == 0, err, KVPLAN_PARSE, "log",
                    "no line of an sglang start-up in %lld lines: expected "
                    "\"Load weight begin. avail mem=\", \"KV Cache is "
                    "allocated\", \"max_total_num_tokens=\" or "
                    "\"server_args=ServerArgs(\"",
                    (long long)out->lines);
    return kvplan__ok(err);
}
