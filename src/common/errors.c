/*
 * errors.c: status names and the one function that fills a kvplan_error.
 *
 * The names, kinds and values come from KVPLAN_STATUS_LIST in kvplan.h, so
 * the table below cannot drift from the enum.
 */
#include "common/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *kvplan_status_name(kvplan_status status)
{
    switch (status) {
#define KVPLAN_X_NAME(name, value, kind, text)                                 \
    case KVPLAN_##name:                                                        \
        return "KVPLAN_" #name;
        KVPLAN_STATUS_LIST(KVPLAN_X_NAME)
#undef KVPLAN_X_NAME
    }
    return "KVPLAN_UNKNOWN";
}

const char *kvplan_status_kind(kvplan_status status)
{
    switch (status) {
#define KVPLAN_X_KIND(name, value, kind, text)                                 \
    case KVPLAN_##name:                                                        \
        return kind;
        KVPLAN_STATUS_LIST(KVPLAN_X_KIND)
#undef KVPLAN_X_KIND
    }
    return "unknown";
}

kvplan_status kvplan__fail(kvplan_error *err, kvplan_status code,
                           const char *field, const char *fmt, ...)
{
    if (err == NULL)
        return code;
    memset(err, 0, sizeof *err);
    err->code = code;
    if (field != NULL)
        snprintf(err->field, sizeof err->field, "%s", field);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return code;
}

const char *kvplan_version(void)
{
    return KVPLAN_VERSION_STRING;
}
