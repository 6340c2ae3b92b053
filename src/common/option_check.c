/*
 * option_check.c: why a stored value is refused, in its option's own
 * terms (its flag, its bounds or its words), for the walks of
 * option_table.c that find it out of its row's bounds; and which engines
 * read a row.
 */
#include "common/option_table.h"

#include <stdio.h>
#include <string.h>

static kvplan_status out_of_range(const kvplan_option *o, const char *got,
                                  kvplan_error *err)
{
    return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, o->flag,
                        "%s must be %s, got %s", o->flag,
                        o->expect != NULL ? o->expect : "in range", got);
}

/* Why a row's value is refused, for one to_check (below) found out of its
 * bounds, or a word, a name or HiSparse's ratio to look at. */
kvplan_status kvplan__option_check_row(const kvplan__option_row *row,
                                       const void *base, const void *field,
                                       kvplan_error *err)
{
    const kvplan_option *o = &row->pub;
    char got[64];
    switch (row->store) {
    case KVPLAN__STORE_OPT_INT: /* to_check found it out of its bounds */
    case KVPLAN__STORE_BYTES:
        snprintf(got, sizeof got, "%lld",
                 (long long)((const kvplan_opt_int *)field)->value);
        return out_of_range(o, got, err);
    case KVPLAN__STORE_INT:
    case KVPLAN__STORE_INT32:
        snprintf(got, sizeof got, "%lld",
                 row->store == KVPLAN__STORE_INT
                     ? (long long)*(const int64_t *)field
                     : (long long)*(const int32_t *)field);
        return out_of_range(o, got, err);
    case KVPLAN__STORE_DOUBLE:
        snprintf(got, sizeof got, "%g",
                 ((const kvplan_opt_double *)field)->value);
        return out_of_range(o, got, err);
    case KVPLAN__STORE_HISPARSE: {
        /* read only when HiSparse is on */
        const kvplan_server_args *s = base;
        double h = *(const double *)field;
        if (!s->enable_hisparse || kvplan__option_in_bounds(o, h))
            return KVPLAN_OK;
        return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, o->flag,
                            "%s's host_to_device_ratio must be >= 1, got %g",
                            o->flag, h);
    }
    case KVPLAN__STORE_WORD: {
        int w;
        memcpy(&w, field, sizeof w);
        if (w == 0 || kvplan_word_name((kvplan_word_set)o->words, w) != NULL)
            return KVPLAN_OK; /* 0: auto, none, null */
        snprintf(got, sizeof got, "%d", w);
        return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, o->flag,
                            "%s must be one of its values (kvplan_word_at "
                            "lists them), got %s",
                            o->flag, got);
    }
    case KVPLAN__STORE_NAME: {
        const char *v = *(const char *const *)field;
        if (v == NULL || kvplan_word_value((kvplan_word_set)o->words, v, NULL))
            return KVPLAN_OK;
        char list[320] = "";
        size_t n = 0;
        const char *w;
        for (size_t i = 0;
             (w = kvplan_word_at((kvplan_word_set)o->words, i, NULL)) &&
             n < sizeof list;
             i++)
            n += (size_t)snprintf(list + n, sizeof list - n, "%s%s",
                                  i ? ", " : "", w);
        return kvplan__fail(
            err, KVPLAN_INVALID_ARGUMENT, o->flag,
            "%s '%.40s' is not one of %s: %s", o->flag, v,
            row->readers == KVPLAN__READ_VLLM ? "vLLM's" : "sglang's", list);
    }
    default:
        return KVPLAN_OK; /* checked where they are read */
    }
}

unsigned kvplan__option_readers(const kvplan__option_row *row)
{
    if (row->readers != 0)
        return row->readers;
    switch (row->pub.scope) {
    case KVPLAN_SCOPE_SGLANG:
        return KVPLAN__READ_SGLANG;
    case KVPLAN_SCOPE_ENGINE:
        return KVPLAN__READ_VLLM | KVPLAN__READ_TRTLLM;
    default:
        return KVPLAN__READ_ALL;
    }
}
