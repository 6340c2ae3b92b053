/*
 * arith.h: arithmetic with Python's meaning and checked bounds; not
 * installed.
 *
 * The reference computes on arbitrary-precision ints and IEEE doubles;
 * kvplan computes on int64_t and doubles, and every step that could leave
 * int64 sets an overflow flag instead of wrapping. A function runs its
 * formula, then tests the flag once.
 */
#ifndef KVPLAN_ARITH_H
#define KVPLAN_ARITH_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* a + b, a - b, a * b; on overflow sets *ovf and returns 0. */
static inline int64_t kvplan__add(int64_t a, int64_t b, bool *ovf)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) {
        *ovf = true;
        return 0;
    }
    return r;
}

static inline int64_t kvplan__sub(int64_t a, int64_t b, bool *ovf)
{
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r)) {
        *ovf = true;
        return 0;
    }
    return r;
}

static inline int64_t kvplan__mul(int64_t a, int64_t b, bool *ovf)
{
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r)) {
        *ovf = true;
        return 0;
    }
    return r;
}

/* Python's a // b on ints: rounds toward minus infinity. The caller has
 * checked b != 0; INT64_MIN // -1 sets *ovf.
 *
 * Page sizes, windows and most divisors here are powers of two: those take
 * a shift (floor division by 2^k, also for negative a) instead of a
 * hardware division, which dominates the cost of a profiling call. */
static inline int64_t kvplan__floordiv(int64_t a, int64_t b, bool *ovf)
{
    if (b > 0 && (b & (b - 1)) == 0) {
        int k = __builtin_ctzll((unsigned long long)b);
        return a >= 0 ? a >> k : ~(~a >> k);
    }
    if (a >= 0 && b > 0)
        return (int64_t)((uint64_t)a / (uint64_t)b);
    if (b == -1 && a == INT64_MIN) {
        *ovf = true;
        return 0;
    }
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q -= 1;
    return q;
}

/* Python's x // page * page: x aligned down to a multiple of page. */
static inline int64_t kvplan__align_down(int64_t x, int64_t page, bool *ovf)
{
    return kvplan__mul(kvplan__floordiv(x, page, ovf), page, ovf);
}

/* sglang's ceil_div(a, b) = (a + b - 1) // b and ceil_align = that * b. */
static inline int64_t kvplan__ceil_div(int64_t a, int64_t b, bool *ovf)
{
    return kvplan__floordiv(kvplan__sub(kvplan__add(a, b, ovf), 1, ovf), b,
                            ovf);
}

static inline int64_t kvplan__ceil_align(int64_t a, int64_t b, bool *ovf)
{
    return kvplan__mul(kvplan__ceil_div(a, b, ovf), b, ovf);
}

static inline int64_t kvplan__min(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static inline int64_t kvplan__max(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* Python's int(x) for a float: truncation toward zero. NaN, infinities and
 * values outside int64 set *ovf. */
static inline int64_t kvplan__trunc(double x, bool *ovf)
{
    /* 2^63 is exact as a double; every double below it in magnitude
     * truncates into int64. */
    if (!(x > -9223372036854775808.0 && x < 9223372036854775808.0)) {
        if (x == -9223372036854775808.0)
            return INT64_MIN;
        *ovf = true;
        return 0;
    }
    return (int64_t)x;
}

/*
 * Python's float floor division a // b, as CPython computes it
 * (float_floor_div): not floor(a / b), which can be one too big when a is
 * close to a multiple of b. The caller has checked b != 0.
 */
static inline double kvplan__py_float_floordiv_ref(double a, double b)
{
    double mod = fmod(a, b);
    double div = (a - mod) / b;
    if (mod != 0.0) {
        if ((b < 0.0) != (mod < 0.0))
            div -= 1.0;
    }
    if (div != 0.0) {
        double floordiv = floor(div);
        if (div - floordiv > 0.5)
            floordiv += 1.0;
        return floordiv;
    }
    return copysign(0.0, a / b);
}

/*
 * The same, faster. For a >= 0, b >= 1 and a quotient below 2^50, CPython's
 * algorithm returns the exact floor of the real quotient (fmod is exact,
 * and the rounding of (a - mod) / b stays far below the 0.5 its correction
 * step allows). floor(a / b) is that floor or one more, since rounding is
 * monotonic; which one is settled exactly: q * b > a is tested with
 * Dekker's error-free product (no FMA needed), and the difference of two
 * doubles within a factor of two is exact (Sterbenz). Anything else takes
 * CPython's algorithm itself. tests/test_arith.c checks the two agree.
 */
static inline double kvplan__py_float_floordiv(double a, double b)
{
    if (!(a >= 0.0 && a <= 0x1p62 && b >= 1.0 && b <= 0x1p62))
        return kvplan__py_float_floordiv_ref(a, b);
    double q = floor(a / b);
    if (!(q < 0x1p50))
        return kvplan__py_float_floordiv_ref(a, b);
    if (q == 0.0)
        return copysign(0.0, a);      /* CPython: the sign of a / b, b > 0 */
    const double split = 134217729.0; /* 2^27 + 1 */
    double cq = split * q, qh = cq - (cq - q), ql = q - qh;
    double cb = split * b, bh = cb - (cb - b), bl = b - bh;
    double p = q * b;
    double e = ((qh * bh - p) + qh * bl + ql * bh) + ql * bl; /* q*b = p+e */
    if ((p - a) + e > 0.0)
        q -= 1.0;
    return q;
}

/* Python's round(x, 3): the double nearest to the exact binary value
 * rounded to three decimals, half to even; printf's "%.3f" and strtod do
 * exactly that. */
static inline double kvplan__py_round3_ref(double x)
{
    char buf[400]; /* "%.3f" of DBL_MAX is 313 characters */
    snprintf(buf, sizeof buf, "%.3f", x);
    return strtod(buf, NULL);
}

/*
 * The same, without a text round trip. x * 1000 is p + e exactly (Dekker's
 * split, as above; 1000 needs 10 bits). The integer k nearest to p + e,
 * half to even, is floor(p) or one more: p - floor(p) is exact, and when it
 * is not 0.5 the tiny e (at most half an ulp of p) cannot move it past 0.5.
 * k / 1000 is then one correctly rounded division, the double nearest to
 * the decimal k / 1000, which is what strtod returns. Outside 2^40, or for
 * NaN, the reference. tests/test_arith.c checks the two agree.
 */
static inline double kvplan__py_round3(double x)
{
    if (!(x > -0x1p40 && x < 0x1p40))
        return kvplan__py_round3_ref(x);
    const double split = 134217729.0; /* 2^27 + 1 */
    double cx = split * x, xh = cx - (cx - x), xl = x - xh;
    double ph = xh * 1000.0, pl = xl * 1000.0; /* both exact */
    double p = ph + pl, bb = p - ph;
    double e = (ph - (p - bb)) + (pl - bb); /* x * 1000 = p + e */
    double f = floor(p), d = p - f;
    double k = f;
    if (d > 0.5 || (d == 0.5 && (e > 0.0 || (e == 0.0 && fmod(f, 2.0) != 0.0))))
        k = f + 1.0;
    double r = k / 1000.0;
    return r == 0.0 ? copysign(0.0, x) : r;
}

/* An int64 as Python turns it into a float (round half to even, which is
 * what the C conversion does in the default rounding mode). */
static inline double kvplan__to_double(int64_t x)
{
    return (double)x;
}

#endif /* KVPLAN_ARITH_H */
