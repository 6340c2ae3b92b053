/*
 * format.c: doubles written as Python's repr() writes them.
 *
 * The reference reports fractional coefficients (a hybrid SWA cell size,
 * DeepSeek V4's bytes per full token) as repr() strings, and users compare
 * kvplan's output with sglang's logs, so kvplan prints the same text: the
 * shortest decimal that reads back to the same double, laid out in fixed
 * notation for decimal exponents -4..15 and in scientific notation
 * otherwise (CPython's float_repr_style "short", format code 'r').
 */
#include "common/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The significant digits of printf's "d.ddde[+-]XX" (or "de[+-]XX") into
 * `digits`, trailing zeros dropped; returns the exponent. */
static int digits_of(const char *text, char digits[32])
{
    size_t n = 0;
    const char *q = text;
    for (; *q != 'e'; q++)
        if (*q >= '0' && *q <= '9')
            digits[n++] = *q;
    while (n > 1 && digits[n - 1] == '0')
        n--;
    digits[n] = '\0';
    return atoi(q + 1);
}

#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 kvplan__u128;

/* The shortest decimal d * 10^-k (k >= 0) that reads back to x, found
 * exactly in 128-bit integers, for 0 < x < 2^53 (normal) while k <= 21.
 * x = f 2^e; the decimals that strtod reads as x lie between the midpoints
 * to x's neighbours, (4f - 2) and (4f + 2) times 2^(e-2) ((4f - 1) below a
 * power of two, where the spacing halves), ends included when f is even
 * (a tie reads as the even neighbour). For k = 0, 1, ..., the integers d in
 * that interval times 10^k: the first k that has one gives the fewest
 * digits; of its d, the nearest to x 10^k, a tie to the even one (as
 * repr() does: repr(2**50 + 0.25) is '1125899906842624.2'). Writes the
 * digits and returns true, or false outside that range (the general way
 * below answers). About 20 instructions per k tried. */
static bool shortest_exact(double x, char digits[32], int *exp10)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    int be = (int)(bits >> 52 & 0x7ff);
    if (be == 0 || x >= 0x1p53)
        return false; /* subnormal, or not in fixed notation's integers */
    uint64_t f = (bits & ((1ull << 52) - 1)) | 1ull << 52;
    int e = be - 1075, sh = 2 - e; /* x = f 2^e = 4f / 2^sh */
    if (sh > 127)
        return false;
    bool closed = (f & 1) == 0;
    kvplan__u128 lo = 4 * (kvplan__u128)f - (f == 1ull << 52 && be > 1 ? 1 : 2),
                 hi = 4 * (kvplan__u128)f + 2, mid = 4 * (kvplan__u128)f,
                 mask = ((kvplan__u128)1 << sh) - 1,
                 half = (kvplan__u128)1 << (sh - 1);
    /* no k below this one can hold a digit: x < 2^(e + 53), and d >= 1
     * needs x 10^k >= 1/2 */
    int k = (int)(-(double)(e + 53) * 0.30102999566398120 - 0.302);
    if (k < 0)
        k = 0;
    kvplan__u128 p = 1;
    for (int i = 0; i < k; i++)
        p *= 10;
    for (; k <= 21; k++, p *= 10) {
        kvplan__u128 l = lo * p, h = hi * p;
        kvplan__u128 dlo = (l >> sh) + ((l & mask) != 0 || !closed);
        kvplan__u128 dhi = (h >> sh) - ((h & mask) == 0 && !closed);
        if (dlo > dhi)
            continue;
        kvplan__u128 v = mid * p, r = v & mask, d = v >> sh;
        d += r > half || (r == half && (d & 1));
        d = d < dlo ? dlo : d > dhi ? dhi : d;
        char tmp[24];
        int n = 0;
        for (uint64_t u = (uint64_t)d; u > 0; u /= 10)
            tmp[n++] = (char)('0' + u % 10);
        int z = 0; /* trailing zeros: an integer x at k = 0 */
        while (z < n - 1 && tmp[z] == '0')
            z++;
        for (int i = 0; i < n - z; i++)
            digits[i] = tmp[n - 1 - i];
        digits[n - z] = '\0';
        *exp10 = n - 1 - k;
        return true;
    }
    return false;
}
#endif

/* The p digits d[0..p) one unit up in the last place, carried through the
 * nines; 99..9 becomes 100..0 with the exponent *ex one more. */
static void unit_up(char *d, int p, int *ex)
{
    int i = p - 1;
    for (; i >= 0 && d[i] == '9'; i--)
        d[i] = '0';
    if (i < 0) {
        d[0] = '1';
        (*ex)++;
    } else {
        d[i]++;
    }
}

/* Shortest round-trip digits of |x| > 0: writes the significant digits
 * (no dot) to `digits` and returns the decimal exponent e such that
 * |x| = d.ddd * 10^e. */
static int shortest_digits(double x, char digits[32])
{
    char tmp[40];
#ifdef __SIZEOF_INT128__
    int e10;
    if (shortest_exact(x, digits, &e10))
        return e10;
#endif
    /* The nearest decimal of 15 significant digits, then 16, then 17 (which
     * always reads back): the first that reads back, its trailing zeros
     * dropped, is the shortest. A shorter decimal that reads back lies
     * within half an ulp of x (under 1.2e-16 x), far inside half the
     * 15-digit spacing (5e-16 x at least), so it is the 15-digit nearest,
     * padded; and when no 15-digit decimal reads back, the nearest of 16
     * is the closest 16-digit one, which reads back if any does. */
    if (x < 0x1p-1022) {
        /* subnormal: fewer bits, so a shorter decimal may read back that
         * is not the 15-digit nearest; the least precision by bisection
         * (it is monotonic: the nearest (p+1)-digit decimal is never
         * farther than the nearest p-digit one) */
        int lo = 1, hi = 17;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            snprintf(tmp, sizeof tmp, "%.*e", mid - 1, x);
            if (strtod(tmp, NULL) == x)
                hi = mid;
            else
                lo = mid + 1;
        }
        snprintf(tmp, sizeof tmp, "%.*e", lo - 1, x);
        return digits_of(tmp, digits);
    }
    /* The 17 digits printf gives exactly, rounded to 15 and 16 here: the
     * same as rounding x itself unless the digits dropped are a tie (x may
     * lie either side of it), which printf then rounds. */
    char d17[40];
    snprintf(d17, sizeof d17, "%.16e", x);
    int e = digits_of(d17, digits);
    char all[18];
    size_t nd = strlen(digits);
    memset(all, '0', 17);
    memcpy(all, digits, nd);
    bool power_of_two = frexp(x, &(int){0}) == 0.5;
    for (int p = 15; p < 17; p++) {
        const char *tail = all + p; /* the digits rounded away */
        bool tie = tail[0] == '5' && (p == 16 || tail[1] == '0');
        if (tie) {
            snprintf(tmp, sizeof tmp, "%.*e", p - 1, x);
        } else {
            char r[24];
            memcpy(r, all, (size_t)p);
            int ex = e;
            if (tail[0] >= '5')
                unit_up(r, p, &ex);
            snprintf(tmp, sizeof tmp, "%c.%.*se%d", r[0], p - 1, r + 1, ex);
        }
        double back = strtod(tmp, NULL);
        if (back == x)
            return digits_of(tmp, digits);
        /* At a power of two the spacing below x is half that above, so a
         * 16-digit decimal above x may read back when the nearest, below
         * it, does not (2^-24: repr() writes 5.960464477539063e-08, the
         * upper of two equally near): the next one up. */
        if (p == 16 && power_of_two && back < x) {
            char up[32];
            int ex = digits_of(tmp, up), n = (int)strlen(up);
            memset(up + n, '0', (size_t)(p - n));
            unit_up(up, p, &ex);
            snprintf(tmp, sizeof tmp, "%c.%.*se%d", up[0], p - 1, up + 1, ex);
            if (strtod(tmp, NULL) == x)
                return digits_of(tmp, digits);
        }
    }
    return e; /* 17 digits */
}

size_t kvplan_format_double(double x, char *buf, size_t size)
{
    char out[64];
    size_t len = 0;
    const char *word = isnan(x)     ? "nan"
                       : isinf(x)   ? (x < 0 ? "-inf" : "inf")
                       : x != 0.0   ? NULL
                       : signbit(x) ? "-0.0"
                                    : "0.0";
    if (word != NULL) {
        len = strlen(word);
        memcpy(out, word, len + 1);
    } else {
        char digits[32];
        int e = shortest_digits(fabs(x), digits);
        int nd = (int)strlen(digits);
        if (x < 0)
            out[len++] = '-';
        if (e < -4 || e >= 16) {
            /* d[.ddd]e+XX, at least two exponent digits */
            out[len++] = digits[0];
            if (nd > 1) {
                out[len++] = '.';
                memcpy(out + len, digits + 1, (size_t)(nd - 1));
                len += (size_t)(nd - 1);
            }
            len += (size_t)snprintf(out + len, sizeof out - len, "e%c%02d",
                                    e < 0 ? '-' : '+', e < 0 ? -e : e);
        } else if (e < 0) {
            /* 0.000ddd */
            out[len++] = '0';
            out[len++] = '.';
            for (int i = -1; i > e; i--)
                out[len++] = '0';
            memcpy(out + len, digits, (size_t)nd);
            len += (size_t)nd;
        } else {
            /* ddd.ddd, with ".0" when there is no fraction */
            for (int i = 0; i <= e; i++)
                out[len++] = i < nd ? digits[i] : '0';
            out[len++] = '.';
            if (nd > e + 1) {
                memcpy(out + len, digits + e + 1, (size_t)(nd - e - 1));
                len += (size_t)(nd - e - 1);
            } else {
                out[len++] = '0';
            }
        }
        out[len] = '\0';
    }
    if (buf == NULL || len + 1 > size)
        return 0;
    memcpy(buf, out, len + 1);
    return len;
}
