/*
 * text.c: the ASCII text rules kvplan applies where sglang or Python
 * compares or strips names: case-insensitive equality (catalog names, GPU
 * presets, sglang's upper-cased flag words) and str.strip().
 */
#include "common/internal.h"

#include <string.h>

static char lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

bool kvplan__ascii_ieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (lower(*a) != lower(*b))
            return false;
    return *a == *b;
}

bool kvplan__ascii_ieq_n(const char *a, size_t n, const char *b)
{
    if (strlen(b) != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (lower(a[i]) != lower(b[i]))
            return false;
    return true;
}

/* Python's str.strip() whitespace, ASCII part (sglang strips env values). */
static bool py_space(char ch)
{
    return ch == ' ' || (ch >= '\t' && ch <= '\r') ||
           (ch >= '\x1c' && ch <= '\x1f');
}

void kvplan__py_strip(const char **b, size_t *n)
{
    while (*n > 0 && py_space(**b)) {
        (*b)++;
        (*n)--;
    }
    while (*n > 0 && py_space((*b)[*n - 1]))
        (*n)--;
}

int kvplan_edit_distance(const char *a, const char *b)
{
    if (a == NULL || b == NULL)
        return 9;
    size_t n = strlen(b);
    if (strlen(a) > 120 || n > 120)
        return 9;
    int row[121];
    for (size_t j = 0; j <= n; j++)
        row[j] = (int)j;
    for (size_t i = 1; a[i - 1]; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= n; j++) {
            int up = row[j];
            int best = diag + (lower(a[i - 1]) != lower(b[j - 1]));
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[n] < 9 ? row[n] : 9;
}
