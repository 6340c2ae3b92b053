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

/* Shortest round-trip digits of |x| > 0: writes the significant digits
 * (no dot) to `digits` and returns the decimal exponent e such that
 * |x| = d.ddd * 10^e. */
static int shortest_digits(double x, char digits[32])
{
    char tmp[40];
    if (x < 1e15 && x == (double)(int64_t)x) {
        /* an integer: its digits, trailing zeros dropped below */
        int n = snprintf(tmp, sizeof tmp, "%lld", (long long)x);
        memcpy(digits, tmp, (size_t)n + 1);
        size_t k = (size_t)n;
        while (k > 1 && digits[k - 1] == '0')
            k--;
        digits[k] = '\0';
        return n - 1;
    }
    /* The nearest decimal of 15 significant digits, then 16, then 17 (which
     * always reads back): the first that reads back, its trailing zeros
     * dropped, is the shortest. A shorter decimal that reads back lies
     * within half an ulp of x (under 1.2e-16 x), far inside half the
     * 15-digit spacing (5e-16 x at least), so it is the 15-digit nearest,
     * padded; and when no 15-digit decimal reads back, the nearest of 16
     * is the closest 16-digit one, which reads back if any does. One
     * snprintf and one strtod for most doubles (a bisection took ten). */
    int p = 15;
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
        p = lo;
    }
    for (; p < 17; p++) {
        snprintf(tmp, sizeof tmp, "%.*e", p - 1, x);
        if (strtod(tmp, NULL) == x)
            break;
    }
    if (p == 17)
        snprintf(tmp, sizeof tmp, "%.16e", x);
    /* tmp is "d.ddde[+-]XX" or "de[+-]XX". */
    size_t n = 0;
    const char *q = tmp;
    for (; *q != 'e'; q++)
        if (*q >= '0' && *q <= '9')
            digits[n++] = *q;
    while (n > 1 && digits[n - 1] == '0')
        n--;
    digits[n] = '\0';
    return atoi(q + 1);
}

size_t kvplan_format_double(double x, char *buf, size_t size)
{
    char out[64];
    size_t len = 0;
    if (isnan(x)) {
        len = (size_t)snprintf(out, sizeof out, "nan");
    } else if (isinf(x)) {
        len = (size_t)snprintf(out, sizeof out, "%s", x < 0 ? "-inf" : "inf");
    } else if (x == 0.0) {
        len = (size_t)snprintf(out, sizeof out, "%s",
                               signbit(x) ? "-0.0" : "0.0");
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
