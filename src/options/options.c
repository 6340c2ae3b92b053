/*
 * options.c: every option by name (kvplan_options_set and its typed
 * twins), read as sglang's argparse reads its flags: "--flag value" text,
 * Python's int() and float() (no hex, no NaN), the words of each flag, a
 * size with a unit. A command line, a JSON request and Python all set
 * options here, so a value is refused in the same words wherever it comes
 * from; the error names the option as the caller spelled it. sglang's
 * environment variables are read in env.c.
 */
#include "options/options.h"

#include "common/json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(kvplan_kv_cache_dtype_flag) == sizeof(int) &&
                   sizeof(kvplan_dtype_flag) == sizeof(int) &&
                   sizeof(kvplan_spec_algorithm) == sizeof(int) &&
                   sizeof(kvplan_disaggregation_mode) == sizeof(int),
               "a WORD option keeps an enum as an int");

/* ---- the table, public ---------------------------------------------------
 */

const kvplan_option *kvplan_option_at(size_t index)
{
    if (index < kvplan__num_option_rows)
        return &kvplan__option_rows[index].pub;
    index -= kvplan__num_option_rows;
    return index < kvplan__num_sglang_rows ? &kvplan__sglang_rows[index].pub
                                           : NULL;
}

const kvplan_option *kvplan_option_find_n(const char *name, size_t len)
{
    const kvplan__option_row *row = kvplan__option_lookup(name, len);
    return row != NULL ? &row->pub : NULL;
}

const kvplan_option *kvplan_option_find(const char *name)
{
    return name != NULL ? kvplan_option_find_n(name, strlen(name)) : NULL;
}

void kvplan_options_init(kvplan_options *o)
{
    if (o == NULL)
        return;
    memset(o, 0, sizeof *o);
    o->struct_size = (uint32_t)sizeof *o;
    kvplan_plan_options_init(&o->plan);
    kvplan_engine_options_init(&o->engine_options);
    o->engine = KVPLAN_ENGINE_SGLANG;
    o->solve_for = KVPLAN_KNOB_MEM_FRACTION_STATIC;
    o->rank_by = KVPLAN_SWEEP_CONCURRENCY_PER_GPU;
}

const char *kvplan__option_field(const kvplan__option_row *row,
                                 const char *spelled)
{
    return spelled != NULL && spelled[0] == '-' ? row->pub.flag : row->pub.name;
}

/* ---- values ---------------------------------------------------------------
 */

/* A bad value: "FIELD: expected EXPECTED, got 'VALUE'". */
static kvplan_status bad(kvplan_error *err, const char *field,
                         const char *expected, const char *got)
{
    return kvplan__fail(err, KVPLAN_PARSE, field,
                        "%s: expected %s, got '%.80s'", field, expected, got);
}

/* Blanks after a number, as Python's int() and float() allow them. */
static bool only_blanks(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    return *s == '\0';
}

/* argparse's type=int: Python's int(), decimal, blanks around it. */
static bool parse_int(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (end == s || !only_blanks(end) || errno != 0)
        return false;
    *out = x;
    return true;
}

/* A hexadecimal float ("0x0.8p0", " -0X1p3"), which strtod reads and
 * Python's float() does not. */
static bool is_hex(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s == '+' || *s == '-')
        s++;
    return s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

/* argparse's type=float: Python's float(), no hexadecimal, finite. */
static bool parse_double(const char *s, double *out)
{
    char *end;
    if (is_hex(s))
        return false;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || !only_blanks(end) || errno != 0 || !isfinite(x))
        return false;
    *out = x;
    return true;
}

/* A size with a unit (B, KiB, MiB, GiB, TiB, KB, MB, GB, TB) in MiB; a
 * bare number is `bare_mib` MiB a unit. */
static kvplan_status size_mib(const char *text, double bare_mib,
                              const char *field, const char *expect,
                              double *mib, kvplan_error *err)
{
    static const struct {
        const char *unit;
        double mib;
    } units[] = {
        {"B", 1.0 / 1048576},  {"KiB", 1.0 / 1024},   {"MiB", 1.0},
        {"GiB", 1024.0},       {"TiB", 1048576.0},    {"KB", 1e3 / 1048576},
        {"MB", 1e6 / 1048576}, {"GB", 1e9 / 1048576}, {"TB", 1e12 / 1048576}};
    char *end = (char *)text;
    errno = 0;
    double x = 0;
    if (!is_hex(text))
        x = strtod(text, &end);
    if (end == text || errno != 0 || !isfinite(x) || x <= 0)
        return bad(err, field, expect, text);
    while (*end == ' ')
        end++;
    if (*end == '\0') {
        *mib = x * bare_mib;
        return KVPLAN_OK;
    }
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(end, units[i].unit) == 0) {
            *mib = x * units[i].mib;
            return KVPLAN_OK;
        }
    return bad(err, field,
               "a size with one of the units B, KiB, MiB, GiB, TiB, KB, MB, "
               "GB, TB",
               text);
}

/* "one of a, b, c" for a word set, into buf. */
static const char *one_of(int set, char *buf, size_t size)
{
    size_t n = (size_t)snprintf(buf, size, "one of ");
    const char *w;
    for (size_t i = 0;
         (w = kvplan_word_at((kvplan_word_set)set, i, NULL)) && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? ", " : "", w);
    return buf;
}

/* --gpu NAME | auto: a preset now, auto when the options are loaded. */
static kvplan_status gpu_value(kvplan_options *o, const char *field,
                               const char *v, kvplan_error *err)
{
    o->internal_.gpu_text = v;
    if (strcmp(v, "auto") == 0) { /* probed when the options are loaded */
        o->gpu_auto = true;
        o->plan.gpu_set = false;
        return KVPLAN_OK;
    }
    kvplan_gpu g;
    if (kvplan_gpu_preset(v, &g)) {
        o->gpu_auto = false;
        o->plan.gpu = g;
        o->plan.gpu_set = true;
        return KVPLAN_OK;
    }
    char list[400] = "", near[200] = "", upper[64];
    kvplan_gpu p;
    size_t n = 0, m = 0;
    snprintf(upper, sizeof upper, "%s", v);
    for (char *c = upper; *c; c++)
        *c = (*c >= 'a' && *c <= 'z') ? (char)(*c - 'a' + 'A') : *c;
    /* near misses: the presets it begins ("h100"), else those a few edits
     * away */
    for (int pass = 0; pass < 2 && m == 0; pass++)
        for (size_t i = 0; kvplan_gpu_preset_at(i, &p); i++) {
            if (pass == 0 && n < sizeof list)
                n +=
                    (size_t)snprintf(list + n, sizeof list - n, "%s, ", p.name);
            bool hit = pass == 0 ? strncmp(p.name, upper, strlen(upper)) == 0
                                 : kvplan_edit_distance(upper, p.name) <=
                                       (strlen(upper) >= 4 ? 2 : 1);
            if (hit && m < sizeof near)
                m += (size_t)snprintf(near + m, sizeof near - m, "%s%s",
                                      m ? " or " : "", p.name);
        }
    if (m > 0)
        return kvplan__fail(err, KVPLAN_PARSE, field,
                            "%s: unknown GPU '%.60s'; did you mean %s? "
                            "(kvplan --list-gpus lists them)",
                            field, v, near);
    return kvplan__fail(err, KVPLAN_PARSE, field,
                        "%s: unknown GPU '%.60s'; expected one of %sauto",
                        field, v, list);
}

/* --hisparse-config: a JSON object; host_to_device_ratio defaults to 2. */
static kvplan_status hisparse_value(kvplan_options *o,
                                    const kvplan__option_row *row,
                                    const char *field, const char *v,
                                    kvplan_error *err)
{
    json_error_t jerr;
    json_t *doc = json_loads(v, 0, &jerr);
    const json_t *r = json_object_get(doc, "host_to_device_ratio");
    if (!json_is_object(doc) || (r != NULL && !json_is_number(r))) {
        json_decref(doc);
        return bad(err, field, row->pub.expect, v);
    }
    if (r != NULL)
        o->plan.server.hisparse_host_to_device_ratio = json_number_value(r);
    o->internal_.hisparse_text = v;
    json_decref(doc);
    return KVPLAN_OK;
}

const void *kvplan__option_value(const kvplan_options *o,
                                 const kvplan__option_row *row)
{
    const char *base = (const char *)o;
    switch (row->region) {
    case KVPLAN__IN_PLAN:
        base = (const char *)&o->plan;
        break;
    case KVPLAN__IN_SERVER:
        base = (const char *)&o->plan.server;
        break;
    case KVPLAN__IN_ENGINE:
        base = (const char *)&o->engine_options;
        break;
    case KVPLAN__IN_OPTIONS:
        break;
    }
    return base + row->offset;
}

static bool within(const kvplan_option *o, double x)
{
    return (o->min_open ? x > o->min : x >= o->min) &&
           (o->max_open ? x < o->max : x <= o->max);
}

/* A word of the option's set: its value (WORD) or its static text. */
static kvplan_status word_value(const kvplan__option_row *row, void *field,
                                const char *spelled, const char *v,
                                kvplan_error *err)
{
    int w;
    char words[512];
    kvplan_word_set set = (kvplan_word_set)row->pub.words;
    if (!kvplan_word_value(set, v, &w))
        return bad(err, spelled, one_of(row->pub.words, words, sizeof words),
                   v);
    if (row->store == KVPLAN__STORE_WORD) {
        memcpy(field, &w, sizeof w);
        return KVPLAN_OK;
    }
    const char *x;
    for (size_t i = 0; (x = kvplan_word_at(set, i, NULL)) != NULL; i++)
        if (strcmp(x, v) == 0)
            break;
    *(const char **)field = x != NULL ? x : v;
    return KVPLAN_OK;
}

/* A count or a number within the row's bounds. */
static kvplan_status number_value(const kvplan__option_row *row, void *field,
                                  const char *spelled, const char *v,
                                  kvplan_error *err)
{
    const kvplan_option *o = &row->pub;
    if (row->store == KVPLAN__STORE_DOUBLE) {
        double d;
        if (!parse_double(v, &d))
            return bad(err, spelled, "a number", v);
        if (!within(o, d))
            return bad(err, spelled, o->expect, v);
        *(kvplan_opt_double *)field = (kvplan_opt_double){d, true};
        return KVPLAN_OK;
    }
    /* "auto" (vLLM's --max-model-len auto, or -1) where 0 means auto */
    if (row->zero_is_auto && row->store == KVPLAN__STORE_OPT_INT &&
        (strcmp(v, "auto") == 0 || strcmp(v, "-1") == 0)) {
        *(kvplan_opt_int *)field = (kvplan_opt_int){0, true};
        return KVPLAN_OK;
    }
    int64_t x;
    if (!parse_int(v, &x) || !within(o, (double)x))
        return bad(err, spelled, o->expect, v);
    if (row->store == KVPLAN__STORE_INT)
        *(int64_t *)field = x;
    else if (row->store == KVPLAN__STORE_INT32)
        *(int32_t *)field = (int32_t)x;
    else
        *(kvplan_opt_int *)field = (kvplan_opt_int){x, true};
    return KVPLAN_OK;
}

/* A size: a number with its unit (B, KB, MB, GB, TB decimal; KiB, MiB,
 * GiB, TiB binary), or a bare number where the option is in bytes (as
 * vLLM takes --kv-cache-memory-bytes). --gpu-memory is in MiB and takes
 * no bare number: "80" was 80 MiB to kvplan and 80 GB to its reader. */
static kvplan_status size_value(const kvplan__option_row *row, void *field,
                                const char *spelled, const char *v,
                                kvplan_error *err)
{
    double mib;
    if (row->store == KVPLAN__STORE_GPU_MEMORY) {
        char *end;
        double x = strtod(v, &end);
        if (end != v && *end == '\0' && !is_hex(v) && isfinite(x) && x > 0)
            return kvplan__fail(
                err, KVPLAN_PARSE, spelled,
                "%s: expected a size with its unit, got '%.40s': %.40sGiB is "
                "%.0f MiB, %.40sGB is %.0f MiB (an \"80GB\" H100's "
                "nvidia-smi total is 81559MiB: --gpu H100-80GB)",
                spelled, v, v, x * 1024, v, x * 1e9 / 1048576);
        KVPLAN__TRY(size_mib(v, 1.0, spelled, row->pub.expect, &mib, err));
        if (!within(&row->pub, mib))
            return bad(err, spelled, "a GPU memory between 1 MiB and 1 EiB", v);
        *(kvplan_opt_double *)field = (kvplan_opt_double){mib, true};
        return KVPLAN_OK;
    }
    char *end;
    double b = strtod(v, &end);
    if (end != v && *end == '\0' && !is_hex(v) && b >= 0 && b < 9.2e18 &&
        b == floor(b)) {
        if (!within(&row->pub, b))
            return bad(err, spelled, row->pub.expect, v);
        *(kvplan_opt_int *)field = (kvplan_opt_int){(int64_t)b, true};
        return KVPLAN_OK;
    }
    KVPLAN__TRY(
        size_mib(v, 1.0 / 1048576, spelled, row->pub.expect, &mib, err));
    double bytes = floor(mib * 1048576.0 + 0.5);
    if (!(bytes < 9.2e18) || !within(&row->pub, bytes))
        return bad(err, spelled, row->pub.expect, v);
    *(kvplan_opt_int *)field = (kvplan_opt_int){(int64_t)bytes, true};
    return KVPLAN_OK;
}

/* sglang's flag that kvplan does not read: listed. */
static void not_read(kvplan_options *o, const kvplan__option_row *row)
{
    struct kvplan__options_internal *in = &o->internal_;
    uint16_t index = (uint16_t)(kvplan__num_option_rows +
                                (size_t)(row - kvplan__sglang_rows));
    for (size_t i = 0; i < in->num_not_read; i++)
        if (in->not_read[i] == index)
            return; /* given twice: listed once */
    if (in->num_not_read < KVPLAN__MAX_NOT_READ)
        in->not_read[in->num_not_read++] = index;
    else
        in->not_read_dropped++;
}

kvplan_status kvplan__options_store(kvplan_options *o,
                                    const kvplan__option_row *row,
                                    const char *spelled, const char *v,
                                    kvplan_error *err)
{
    kvplan__option_mark_given(o, row, v);
    const char *f = kvplan__option_field(row, spelled);
    void *field = (void *)kvplan__option_value(o, row);
    /* a fraction given over a log's is the operator's, not as printed */
    if (field == (void *)&o->plan.mem_fraction_static)
        o->plan.mem_fraction_printed = false;
    if (row->store == KVPLAN__STORE_NONE) {
        not_read(o, row);
        return KVPLAN_OK;
    }
    if (row->store == KVPLAN__STORE_BOOL) {
        if (v != NULL && strcmp(v, "true") != 0 && strcmp(v, "false") != 0)
            return bad(err, f, "true or false (a switch takes no value)", v);
        *(bool *)field = v == NULL || strcmp(v, "true") == 0;
        return KVPLAN_OK;
    }
    if (v == NULL)
        return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, f, "%s needs a value",
                            f);
    switch (row->store) {
    case KVPLAN__STORE_OPT_INT:
    case KVPLAN__STORE_INT:
    case KVPLAN__STORE_INT32:
    case KVPLAN__STORE_DOUBLE:
        return number_value(row, field, f, v, err);
    case KVPLAN__STORE_WORD:
    case KVPLAN__STORE_NAME:
        return word_value(row, field, f, v, err);
    case KVPLAN__STORE_TEXT:
        *(const char **)field = v;
        return KVPLAN_OK;
    case KVPLAN__STORE_GPU:
        return gpu_value(o, f, v, err);
    case KVPLAN__STORE_GPU_MEMORY:
    case KVPLAN__STORE_BYTES:
        return size_value(row, field, f, v, err);
    case KVPLAN__STORE_HISPARSE:
        return hisparse_value(o, row, f, v, err);
    case KVPLAN__STORE_VERSION:
    case KVPLAN__STORE_VLLM_VERSION:
    case KVPLAN__STORE_TRTLLM_VERSION:
        return kvplan__version_value(o, row, field, f, v, err);
    case KVPLAN__STORE_ENGINE: {
        static const char *const names[] = {"sglang", "vllm", "trtllm"};
        for (int e = 0; e < 3; e++)
            if (strcmp(v, names[e]) == 0 ||
                (e == 2 && strcmp(v, "tensorrt-llm") == 0)) {
                o->engine = (kvplan_engine)e;
                o->internal_.engine_text = v;
                return KVPLAN_OK;
            }
        return bad(err, f, row->pub.expect, v);
    }
    case KVPLAN__STORE_KNOB:
        if (!kvplan_knob_from_name(v, &o->solve_for))
            return bad(err, f, row->pub.expect, v);
        return KVPLAN_OK;
    case KVPLAN__STORE_RANK_KEY:
        if (!kvplan_sweep_key_from_name(v, &o->rank_by))
            return bad(err, f, row->pub.expect, v);
        return KVPLAN_OK;
    default:
        return KVPLAN_OK;
    }
}

/* The row `name` names, or an error with a "did you mean". */
static kvplan_status row_named(const kvplan_options *o, const char *name,
                               const kvplan__option_row **row,
                               kvplan_error *err)
{
    KVPLAN__FAIL_IF(o == NULL || name == NULL, err, KVPLAN_INVALID_ARGUMENT,
                    NULL,
                    "kvplan_options_set needs options and a name; got "
                    "NULL");
    KVPLAN__FAIL_IF(o->struct_size != sizeof *o, err, KVPLAN_INVALID_ARGUMENT,
                    "struct_size",
                    "kvplan_options.struct_size is %u, expected %zu: fill the "
                    "options with kvplan_options_init() of this kvplan.h",
                    (unsigned)o->struct_size, sizeof *o);
    *row = kvplan__option_lookup(name, strlen(name));
    if (*row != NULL)
        return KVPLAN_OK;
    char near[96];
    const char *n =
        kvplan__option_nearest(name, strlen(name), near, sizeof near);
    return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, name,
                        "%.100s: unknown option%s%s%s", name,
                        n ? "; did you mean " : "", n ? n : "", n ? "?" : "");
}

kvplan_status kvplan_options_set(kvplan_options *o, const char *name,
                                 const char *text, kvplan_error *err)
{
    const kvplan__option_row *row;
    KVPLAN__TRY(row_named(o, name, &row, err));
    KVPLAN__TRY(kvplan__options_store(o, row, name, text, err));
    return kvplan__ok(err);
}

/* A value of the wrong type: "FIELD: expected EXPECTED, got WHAT". */
static kvplan_status wrong_type(const kvplan__option_row *row, const char *name,
                                const char *what, kvplan_error *err)
{
    const kvplan_option *o = &row->pub;
    const char *f = kvplan__option_field(row, name);
    char words[512];
    const char *expect = o->expect;
    if (o->type == KVPLAN_OPTION_SWITCH)
        expect = "true or false";
    else if (o->type == KVPLAN_OPTION_WORD)
        expect = one_of(o->words, words, sizeof words);
    else if (expect == NULL)
        expect = o->type == KVPLAN_OPTION_NUMBER ? "a number" : "text";
    return kvplan__fail(err, KVPLAN_PARSE, f, "%s: expected %s, got %s", f,
                        expect, what);
}

/* Whether the row takes a number (a JSON number, Python's int or float). */
static bool takes_number(const kvplan__option_row *row)
{
    kvplan_option_type t = row->pub.type;
    return t == KVPLAN_OPTION_INTEGER || t == KVPLAN_OPTION_NUMBER ||
           t == KVPLAN_OPTION_SIZE || t == KVPLAN_OPTION_NOT_READ;
}

kvplan_status kvplan_options_set_integer(kvplan_options *o, const char *name,
                                         int64_t value, kvplan_error *err)
{
    const kvplan__option_row *row;
    KVPLAN__TRY(row_named(o, name, &row, err));
    char text[40];
    snprintf(text, sizeof text, "%lld", (long long)value);
    if (!takes_number(row) && row->store != KVPLAN__STORE_VERSION)
        return wrong_type(row, name, text, err);
    if (row->store == KVPLAN__STORE_GPU_MEMORY) /* a number in its unit */
        snprintf(text, sizeof text, "%lldMiB", (long long)value);
    KVPLAN__TRY(kvplan__options_store(o, row, name, text, err));
    return kvplan__ok(err);
}

kvplan_status kvplan_options_set_number(kvplan_options *o, const char *name,
                                        double value, kvplan_error *err)
{
    const kvplan__option_row *row;
    KVPLAN__TRY(row_named(o, name, &row, err));
    char text[40];
    kvplan_format_double(value, text, sizeof text);
    if (!takes_number(row))
        return wrong_type(row, name, text, err);
    if (row->pub.type != KVPLAN_OPTION_NUMBER && isfinite(value) &&
        value == floor(value) &&
        fabs(value) < 0x1p63) /* 16.0 is 16 to an integer option */
        snprintf(text, sizeof text, "%lld", (long long)value);
    if (row->store == KVPLAN__STORE_GPU_MEMORY) { /* a number in its unit */
        size_t n = strlen(text);
        snprintf(text + n, sizeof text - n, "MiB");
    }
    KVPLAN__TRY(kvplan__options_store(o, row, name, text, err));
    return kvplan__ok(err);
}

kvplan_status kvplan_options_set_switch(kvplan_options *o, const char *name,
                                        bool value, kvplan_error *err)
{
    const kvplan__option_row *row;
    KVPLAN__TRY(row_named(o, name, &row, err));
    if (row->pub.type != KVPLAN_OPTION_SWITCH &&
        row->pub.type != KVPLAN_OPTION_NOT_READ)
        return wrong_type(row, name, value ? "true" : "false", err);
    if (row->pub.type == KVPLAN_OPTION_NOT_READ && !value)
        return kvplan__ok(err); /* off: not given */
    KVPLAN__TRY(
        kvplan__options_store(o, row, name, value ? NULL : "false", err));
    return kvplan__ok(err);
}

/* ---- the GPU ----------------------------------------------------------------
 */

kvplan_status kvplan__options_resolve_gpu(kvplan_options *o, int *count,
                                          kvplan_error *err)
{
    kvplan_plan_options *p = &o->plan;
    if (count != NULL)
        *count = 0;
    if (o->gpu_auto && !p->gpu_set) { /* once: a copy keeps the probe's */
        int seen = 0;
        KVPLAN__TRY(kvplan_gpu_probe(&p->gpu, &seen, err));
        p->gpu_set = true;
        if (count != NULL)
            *count = seen;
    }
    if (o->gpu_memory_mib.set) {
        /* another board's total; sm90 unless --gpu names the board */
        if (!p->gpu_set) {
            kvplan_gpu_preset(KVPLAN_DEFAULT_GPU, &p->gpu);
            snprintf(p->gpu.name, sizeof p->gpu.name, "custom");
        }
        p->gpu.total_mib = o->gpu_memory_mib.value;
        p->gpu_set = true;
    }
    if (!p->gpu_set && !p->available_bytes.set) {
        kvplan_gpu_preset(KVPLAN_DEFAULT_GPU, &p->gpu);
        p->gpu_set = true;
    }
    return KVPLAN_OK;
}
