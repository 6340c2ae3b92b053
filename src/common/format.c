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

/* Shortest round-trip digits of |x| > 0: writes the significant digits
 * (no dot) to `digits` and returns the decimal exponent e such that
 * |x| = d.ddd * 10^e. */
static int shortest_digits(double x, char digits[32])
{
    char tmp[40];
    static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,
                                 1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                 1e12, 1e13, 1e14, 1e15, 1e16, 1e17};
    /* A decimal of few fractional digits, without printf: the least k
     * for which an integer m < 2^53 has m / 10^k == x (the division of two
     * exact doubles rounds once, as strtod does, so m e-k reads back) is
     * the shortest, when it is the only such m (of two, repr() takes the
     * nearer: left to the general way below). m is x * 10^k rounded, give
     * or take one (the product rounds too). Fixed notation only: 1e-4 <=
     * x < 2^53. */
    for (int k = 0; x >= 1e-4 && k < 18 && x * p10[k] < 0x1p53; k++) {
        double r = nearbyint(x * p10[k]), m = -1;
        int found = 0;
        for (int j = -1; j <= 1; j++) {
            double c = r + j; /* exact: r < 2^53 */
            if (c > 0 && c < 0x1p53 && c / p10[k] == x) {
                m = c;
                found++;
            }
        }
        if (found == 0)
            continue;
        if (found > 1)
            break;
        uint64_t u = (uint64_t)m;
        int n = 0;
        do {
            tmp[n++] = (char)('0' + u % 10);
            u /= 10;
        } while (u > 0);
        for (int i = 0; i < n; i++)
            digits[i] = tmp[n - 1 - i];
        size_t d = (size_t)n;
        while (d > 1 && digits[d - 1] == '0')
            d--;
        digits[d] = '\0';
        return n - 1 - k;
    }
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
    for (int p = 15; p < 17; p++) {
        const char *tail = all + p; /* the digits rounded away */
        bool tie = tail[0] == '5' && (p == 16 || tail[1] == '0');
        if (tie) {
            snprintf(tmp, sizeof tmp, "%.*e", p - 1, x);
        } else {
            char r[24];
            memcpy(r, all, (size_t)p);
            int i = p - 1;
            if (tail[0] >= '5') /* up: carry through the nines */
                for (; i >= 0 && r[i] == '9'; i--)
                    r[i] = '0';
            int ex = e;
            if (i < 0) { /* 99..9 up: 100..0, one more place */
                r[0] = '1';
                ex++;
            } else if (tail[0] >= '5') {
                r[i]++;
            }
            snprintf(tmp, sizeof tmp, "%c.%.*se%d", r[0], p - 1, r + 1, ex);
        }
        if (strtod(tmp, NULL) == x)
            return digits_of(tmp, digits);
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
