/*
 * test_arith.c: Python's integer and float semantics as kvplan restates
 * them (src/internal.h): floor division, alignment, truncation, Python's
 * float floor division, and overflow detection.
 */
#include "check.h"
#include "common/internal.h"

#include <float.h>

static void test_floordiv(void)
{
    bool ovf = false;
    CHECK_INT(kvplan__floordiv(7, 2, &ovf), 3);
    CHECK_INT(kvplan__floordiv(-7, 2, &ovf), -4); /* Python: -7 // 2 == -4 */
    CHECK_INT(kvplan__floordiv(7, -2, &ovf), -4);
    CHECK_INT(kvplan__floordiv(-7, -2, &ovf), 3);
    CHECK_INT(kvplan__floordiv(-8, 2, &ovf), -4);
    CHECK(!ovf);
    kvplan__floordiv(INT64_MIN, -1, &ovf);
    CHECK(ovf);
}

static void test_align(void)
{
    bool ovf = false;
    CHECK_INT(kvplan__align_down(819200, 64, &ovf), 819200);
    CHECK_INT(kvplan__align_down(63, 64, &ovf), 0);
    CHECK_INT(kvplan__align_down(-1, 64, &ovf), -64); /* floor, as Python */
    CHECK_INT(kvplan__ceil_div(129, 128, &ovf), 2);
    CHECK_INT(kvplan__ceil_align(129, 128, &ovf), 256);
    CHECK_INT(kvplan__ceil_align(128, 128, &ovf), 128);
    CHECK_INT(kvplan__ceil_align(0, 64, &ovf), 0);
    CHECK(!ovf);
}

static void test_checked(void)
{
    bool ovf = false;
    CHECK_INT(kvplan__mul(INT64_MAX / 2, 2, &ovf), INT64_MAX - 1);
    CHECK(!ovf);
    kvplan__mul(INT64_MAX / 2 + 1, 2, &ovf);
    CHECK(ovf);
    ovf = false;
    kvplan__add(INT64_MAX, 1, &ovf);
    CHECK(ovf);
    ovf = false;
    kvplan__sub(INT64_MIN, 1, &ovf);
    CHECK(ovf);
    ovf = false;
    kvplan__ceil_div(INT64_MAX, 2, &ovf); /* INT64_MAX + 1 overflows */
    CHECK(ovf);
}

static void test_trunc(void)
{
    bool ovf = false;
    CHECK_INT(kvplan__trunc(2879.9999, &ovf), 2879);
    CHECK_INT(kvplan__trunc(-2.5, &ovf), -2); /* toward zero, as int() */
    CHECK_INT(kvplan__trunc(-9223372036854775808.0, &ovf), INT64_MIN);
    CHECK(!ovf);
    kvplan__trunc(9223372036854775808.0, &ovf);
    CHECK(ovf);
    ovf = false;
    kvplan__trunc(NAN, &ovf);
    CHECK(ovf);
    ovf = false;
    kvplan__trunc(INFINITY, &ovf);
    CHECK(ovf);
}

static void test_py_float_floordiv(void)
{
    /* docs/sglang-rules.md §0.2: floor(a / b) is one too big here; Python's //
     * is not. */
    CHECK_DOUBLE(kvplan__py_float_floordiv(185850181272.0, 8215.6), 22621619.0);
    CHECK(floor(185850181272.0 / 8215.6) == 22621620.0);
    CHECK_DOUBLE(kvplan__py_float_floordiv(193987661574.0, 3132.3), 61931379.0);
    CHECK(floor(193987661574.0 / 3132.3) == 61931380.0);
    /* the golden corner swa-float-floordiv-18-0.8: 3942400000 // 59392.0 */
    CHECK_DOUBLE(kvplan__py_float_floordiv(7.0, 2.0), 3.0);
    CHECK_DOUBLE(kvplan__py_float_floordiv(-7.0, 2.0), -4.0);
    CHECK_DOUBLE(kvplan__py_float_floordiv(7.0, -2.0), -4.0);
    CHECK_DOUBLE(kvplan__py_float_floordiv(0.0, 3.0), 0.0);
    CHECK_DOUBLE(kvplan__py_float_floordiv(-0.0, 3.0), -0.0);
    CHECK_DOUBLE(kvplan__py_float_floordiv(1.0, 0.1), 9.0); /* Python: 9.0 */
}

/* The fast floor division agrees with CPython's algorithm: on random
 * pairs across magnitudes, on exact multiples of fractional cells (where
 * floor(a / b) goes wrong) and on their neighbours. A small LCG keeps it
 * reproducible. */
static uint64_t lcg_state = 0x9E3779B97F4A7C15ull;

static uint64_t lcg(void)
{
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    return lcg_state >> 11;
}

static void test_fast_floordiv_agrees(void)
{
    long mismatches = 0, floor_wrong = 0;
    for (int i = 0; i < 2000000; i++) {
        double a, b;
        switch (i % 4) {
        case 0: /* a budget over a fractional cell, like HybridSWA */
            a = (double)(lcg() % 200000000000ull);
            b = (double)(lcg() % 2000000) / 10.0 + 1.0;
            break;
        case 1: /* an exact multiple of a fractional cell, +-0/1 */
            b = (double)(lcg() % 100000) * 0.8 + (double)(lcg() % 5000) + 1.0;
            a = (double)(lcg() % 50000000) * b + (double)((int)(lcg() % 3) - 1);
            break;
        case 2: /* wide magnitudes */
            a = ldexp((double)(lcg() % (1ull << 52)), (int)(lcg() % 40));
            b = ldexp((double)(lcg() % (1ull << 52)) + 1.0,
                      (int)(lcg() % 30) - 52);
            break;
        default: /* small ints and negatives take the reference path */
            a = (double)((int64_t)(lcg() % 2000001) - 1000000);
            b = (double)((int64_t)(lcg() % 2001) - 1000) / 8.0;
            if (b == 0.0)
                b = 1.0;
        }
        double want = kvplan__py_float_floordiv_ref(a, b);
        double got = kvplan__py_float_floordiv(a, b);
        if (memcmp(&want, &got, sizeof want) != 0 && mismatches++ < 5)
            fprintf(stderr, "%.17g // %.17g: %.17g, reference %.17g\n", a, b,
                    got, want);
        if (floor(a / b) != want)
            floor_wrong++;
    }
    CHECK_INT(mismatches, 0);
    CHECK(floor_wrong > 0); /* the cases really do tell the two apart */
}

/* Python's round(x, 3), as sglang's fraction rule takes it: fixed values
 * (Python's own answers), then the fast form against the text round trip on
 * the fractions a plan meets, on the exact halves (ties to even on the
 * binary value) and their neighbours, and across magnitudes and signs. */
static void test_py_round3(void)
{
    CHECK_DOUBLE(kvplan__py_round3(0.0625), 0.062); /* an exact tie: even */
    CHECK_DOUBLE(kvplan__py_round3(0.1875), 0.188); /* an exact tie: even */
    CHECK_DOUBLE(kvplan__py_round3(2.675), 2.675);  /* already 3 places */
    CHECK_DOUBLE(kvplan__py_round3(0.0005), 0.001); /* just above a half */
    CHECK_DOUBLE(kvplan__py_round3(0.0015), 0.002); /* just above a half */
    CHECK_DOUBLE(kvplan__py_round3(0.0025), 0.003); /* just above a half */
    CHECK_DOUBLE(kvplan__py_round3(0.0045), 0.004); /* just below a half */
    CHECK_DOUBLE(kvplan__py_round3(1.0005), 1.0);   /* just below a half */
    CHECK_DOUBLE(kvplan__py_round3(0.8774176), 0.877);
    CHECK_DOUBLE(kvplan__py_round3(-0.0004), -0.0);
    CHECK(signbit(kvplan__py_round3(-0.0004)));
    CHECK(!signbit(kvplan__py_round3(0.0004)));
    CHECK(signbit(kvplan__py_round3(-0.0)));
    CHECK(isnan(kvplan__py_round3(NAN)));
    CHECK_DOUBLE(kvplan__py_round3(1e300), 1e300);
    long mismatches = 0, naive_wrong = 0;
    for (int i = 0; i < 1000000; i++) {
        double x;
        switch (i % 4) {
        case 0: /* (gpu - reserved) / gpu on MiB figures */
            x = (double)(lcg() % 300000 + 1);
            x = (x - (double)(lcg() % 400000)) / x;
            break;
        case 1: { /* a half-thousandth, exact or as near as a double gets */
            double h = ((double)(lcg() % 4000000) - 2000000.0 + 0.5) / 1000.0;
            x = i % 8 == 1 ? h
                           : nextafter(h, (lcg() & 1) ? INFINITY : -INFINITY);
            break;
        }
        case 2: /* exact binary halves: k / 2^n with x * 1000 a tie */
            x = ldexp((double)(int64_t)(lcg() % 2000001 - 1000000),
                      -(int)(lcg() % 16));
            break;
        default: /* any magnitude, either sign */
            x = ldexp((double)lcg() / 9007199254740992.0,
                      (int)(lcg() % 100) - 60);
            if (lcg() & 1)
                x = -x;
            break;
        }
        double want = kvplan__py_round3_ref(x), got = kvplan__py_round3(x);
        if (memcmp(&want, &got, sizeof want) != 0 && mismatches++ < 5)
            fprintf(stderr, "round(%.17g, 3): %.17g, reference %.17g\n", x, got,
                    want);
        if (fabs(x) < 1e12 && nearbyint(x * 1000.0) / 1000.0 != want)
            naive_wrong++;
    }
    CHECK_INT(mismatches, 0);
    CHECK(naive_wrong > 0); /* the cases tell it from nearbyint(x * 1000) */
}

int main(void)
{
    test_floordiv();
    test_align();
    test_checked();
    test_trunc();
    test_py_float_floordiv();
    test_fast_floordiv_agrees();
    test_py_round3();
    return check_report();
}
