/*
 * text.c: the ASCII text rules kvplan applies where sglang or Python
 * compares or strips names: case-insensitive equality (catalog names, GPU
 * presets, sglang's upper-cased flag words) and str.strip(); and the
 * engines' release numbers as their users write them.
 */
#include "common/internal.h"

#include <stdlib.h>
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
    enum { CAP = 4 }; /* "more than 3 edits" is all a "did you mean" asks */
    if (a == NULL || b == NULL)
        return CAP;
    size_t m = strlen(a), n = strlen(b);
    if (m > 120 || n > 120 || (m > n ? m - n : n - m) >= CAP)
        return CAP;
    /* Levenshtein in the band |i - j| < CAP: cells outside it are at
     * least CAP, so each row costs 2 CAP - 1 cells */
    int row[122];
    for (size_t j = 0; j <= n; j++)
        row[j] = j < CAP ? (int)j : CAP;
    row[n + 1] = CAP;
    for (size_t i = 1; i <= m; i++) {
        size_t lo = i > CAP - 1 ? i - (CAP - 1) : 1;
        size_t hi = i + (CAP - 1) < n ? i + (CAP - 1) : n;
        int diag = row[lo - 1];
        row[lo - 1] = lo == 1 ? (i < CAP ? (int)i : CAP) : CAP;
        int least = row[lo - 1];
        for (size_t j = lo; j <= hi; j++) {
            int up = row[j];
            int best = diag + (lower(a[i - 1]) != lower(b[j - 1]));
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            best = best < CAP ? best : CAP;
            row[j] = best;
            diag = up;
            least = best < least ? best : least;
        }
        if (hi < n)
            row[hi + 1] = CAP; /* the band's right edge */
        if (least >= CAP)
            return CAP;
    }
    return row[n] < CAP ? row[n] : CAP;
}

const char *kvplan__nearest_word(const char *name, const char *const *words,
                                 size_t n, int within)
{
    const char *best = NULL;
    int d = within + 1;
    for (size_t i = 0; i < n; i++) {
        int x = kvplan_edit_distance(name, words[i]);
        if (x < d) {
            d = x;
            best = words[i];
        }
    }
    return best;
}

long kvplan__release_number(const char *v)
{
    if (*v == 'v' || *v == 'V')
        v++;
    long part[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) {
        char *end;
        if (*v < '0' || *v > '9')
            return -1;
        part[i] = strtol(v, &end, 10);
        if (part[i] > 99)
            return -1;
        v = end;
        if (i < 2 && *v++ != '.')
            return -1;
    }
    /* what may follow: .postN, rcN, .devN, +local */
    if (*v != '\0' && *v != '.' && *v != '+' && strncmp(v, "rc", 2) != 0 &&
        strncmp(v, "post", 4) != 0 && *v != '-')
        return -1;
    return part[0] * 10000 + part[1] * 100 + part[2];
}
