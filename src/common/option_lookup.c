/*
 * option_lookup.c: an option by the name a caller gives (option_table.h):
 * its sglang name with '-' or '_', a flag, an alias, in the table of the
 * options kvplan reads, then in sglang's it does not; and the nearest
 * name to a misspelled one.
 */
#include "common/option_table.h"

#include <stdio.h>
#include <string.h>

/* Whether `word` is name[0..len): the first three characters compared
 * first (every flag begins with "--"), and no strlen over the table. */
static bool is(const char *name, size_t len, const char *word)
{
    return word != NULL && word[0] == name[0] &&
           (len < 3 || (word[1] == name[1] && word[2] == name[2])) &&
           strncmp(word, name, len) == 0 && word[len] == '\0';
}

/* One row `name` names: its flag or an alias exactly (all begin with
 * "--"), or `spelled`, the name with a leading "--" dropped and '-' read
 * as '_' ("tp-size" and "--tp_size" are "tp_size"); NULL when none. Rows
 * past `n` of `rows` are not looked at. */
static const kvplan__option_row *in(const kvplan__option_row *rows, size_t n,
                                    const char *name, size_t len,
                                    const char *spelled)
{
    bool dashes = len > 2 && name[0] == '-' && name[1] == '-';
    for (size_t i = 0; i < n; i++) {
        const kvplan_option *o = &rows[i].pub;
        if (spelled != NULL && o->name[0] == spelled[0] &&
            strcmp(o->name, spelled) == 0)
            return &rows[i];
        if (dashes && (is(name, len, o->flag) || is(name, len, o->alias) ||
                       is(name, len, o->alias2)))
            return &rows[i];
    }
    return NULL;
}

const kvplan__option_row *kvplan__option_lookup(const char *name, size_t len)
{
    if (name == NULL || len == 0)
        return NULL;
    char spelled[96];
    size_t at = len >= 2 && name[0] == '-' && name[1] == '-' ? 2 : 0;
    bool fits = len - at < sizeof spelled;
    for (size_t i = at; fits && i < len; i++)
        spelled[i - at] = name[i] == '-' ? '_' : name[i];
    if (fits)
        spelled[len - at] = '\0';
    const char *sp = fits ? spelled : NULL; /* no name is as long */
    const kvplan__option_row *r =
        in(kvplan__option_rows, kvplan__num_option_rows, name, len, sp);
    return r != NULL ? r
                     : in(kvplan__sglang_rows, kvplan__num_sglang_rows, name,
                          len, sp);
}

const char *kvplan__option_nearest(const char *name, size_t len, char *buf,
                                   size_t size)
{
    char given[96];
    snprintf(given, sizeof given, "%.*s", (int)(len < 90 ? len : 90), name);
    bool flag = len > 2 && name[0] == '-' && name[1] == '-';
    const kvplan_option *best = NULL;
    int d = 4;
    for (int pass = 0; pass < 2; pass++) {
        const kvplan__option_row *rows =
            pass == 0 ? kvplan__option_rows : kvplan__sglang_rows;
        size_t n =
            pass == 0 ? kvplan__num_option_rows : kvplan__num_sglang_rows;
        for (size_t i = 0; i < n; i++) {
            int x = kvplan_edit_distance(given, flag ? rows[i].pub.flag
                                                     : rows[i].pub.name);
            if (x < d) {
                d = x;
                best = &rows[i].pub;
            }
        }
    }
    if (best == NULL)
        return NULL;
    snprintf(buf, size, "%s", flag ? best->flag : best->name);
    return buf;
}
