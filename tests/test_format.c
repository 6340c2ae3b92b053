/*
 * test_format.c: kvplan_format_double writes what Python's repr() writes.
 * Expected strings are Python 3's repr of the same doubles; then, on many
 * doubles drawn here (200,000 by default; `test_format N` for more), what
 * repr() is checked against strtod and printf, which glibc rounds
 * correctly: the text reads back to the same double, no decimal of fewer
 * digits does, and of those of its length that do it is the nearest.
 */
#include "check.h"
#include "kvplan.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static const char *repr(double x)
{
    static char buf[64];
    if (kvplan_format_double(x, buf, sizeof buf) == 0)
        return "(error)";
    return buf;
}

/* The significant digits of a decimal's text ("0.00123", "1.5e-07",
 * "120.0": "123", "15", "12"), into `d`. */
static void sig_digits(const char *text, char d[40])
{
    size_t n = 0;
    for (const char *c = text; *c && *c != 'e'; c++)
        if (*c >= '0' && *c <= '9' && (n > 0 || *c != '0'))
            d[n++] = *c;
    while (n > 1 && d[n - 1] == '0')
        n--;
    d[n] = '\0';
}

/* printf's nearest decimal of p significant digits to x, moved `step`
 * units of its last digit (-1, 0, +1), as text; true when it reads back
 * to x. */
static bool reads_back(double x, int p, int step, char text[48])
{
    char d[40];
    snprintf(text, 48, "%.*e", p - 1, x);
    if (step != 0) {
        int ex = atoi(strchr(text, 'e') + 1);
        sig_digits(text, d);
        size_t n = strlen(d);
        while ((int)n < p)
            d[n++] = '0';
        d[n] = '\0';
        int i = p - 1;
        if (step > 0) {
            for (; i >= 0 && d[i] == '9'; i--)
                d[i] = '0';
            if (i < 0) {
                d[0] = '1';
                ex++;
            } else {
                d[i]++;
            }
        } else {
            for (; i >= 0 && d[i] == '0'; i--)
                d[i] = '9';
            if (i < 0)
                return false;
            d[i]--;
            if (d[0] == '0') { /* 100..0 down: 99..9, one place less */
                memmove(d, d + 1, (size_t)p);
                d[p - 1] = '9';
                ex--;
            }
        }
        snprintf(text, 48, "%c.%se%d", d[0], d + 1, ex);
    }
    return strtod(text, NULL) == x;
}

/* What repr() must write for x > 0, by its definition, checked. */
static bool repr_ok(double x, const char *got)
{
    char mine[40], ref[40], text[48];
    if (strtod(got, NULL) != x)
        return false;
    sig_digits(got, mine);
    int n = (int)strlen(mine);
    /* no decimal of n - 1 digits reads back: it would be printf's
     * nearest or one of its two neighbours */
    for (int step = -1; n > 1 && step <= 1; step++)
        if (reads_back(x, n - 1, step, text))
            return false;
    /* of n digits: the nearest, unless it does not read back (below a
     * power of two), then a neighbour */
    static const int steps[] = {0, -1, 1};
    for (int k = 0; k < 3; k++) {
        if (!reads_back(x, n, steps[k], text))
            continue;
        sig_digits(text, ref);
        return strcmp(ref, mine) == 0;
    }
    return false;
}

/* splitmix64: the draws, the same on every machine */
static uint64_t next_bits(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ z >> 30) * 0xbf58476d1ce4e5b9u;
    z = (z ^ z >> 27) * 0x94d049bb133111ebu;
    return z ^ z >> 31;
}

/* n doubles of the kinds kvplan prints and of every kind: any bits, GiB of
 * whole bytes, short decimals, ratios, powers of two and their
 * neighbours, the halves and quarters near 2^53 (ties); each checked. */
static void drawn(long n)
{
    uint64_t s = 20261204;
    long bad = 0;
    char buf[64];
    for (long i = 0; i < n; i++) {
        uint64_t b = next_bits(&s);
        double x;
        switch (i % 6) {
        case 0:
            memcpy(&x, &b, sizeof x);
            break;
        case 1:
            x = (double)(b >> 24) / 1073741824.0;
            break;
        case 2:
            x = (double)(b >> (11 + b % 40)) / pow(10, (double)(b >> 60));
            break;
        case 3:
            x = (double)(b >> 44 | 1) / (double)((b >> 8 & 0xfffff) | 1);
            break;
        case 4:
            x = ldexp(1.0, (int)(b % 2098) - 1074);
            x = b >> 62 == 0   ? nextafter(x, 0)
                : b >> 62 == 1 ? nextafter(x, INFINITY)
                               : x;
            break;
        default:
            x = ldexp((double)((b >> 11) | 1ull << 52), -(int)(b % 4));
        }
        x = fabs(x);
        if (!isfinite(x) || x == 0)
            continue;
        if (kvplan_format_double(x, buf, sizeof buf) == 0 || !repr_ok(x, buf)) {
            if (bad++ < 10)
                CHECK_FAIL_("%.17g is written %s", x, buf);
        }
    }
    printf("%ld drawn doubles, %ld not as repr() writes them\n", n, bad);
    CHECK_INT(bad, 0);
}

int main(int argc, char **argv)
{
    CHECK_STR(repr(66355.2), "66355.2");
    CHECK_STR(repr(0.8), "0.8");
    CHECK_STR(repr(0.1 + 0.2), "0.30000000000000004");
    CHECK_STR(repr(1.0), "1.0");
    CHECK_STR(repr(-2.5), "-2.5");
    CHECK_STR(repr(0.0), "0.0");
    CHECK_STR(repr(-0.0), "-0.0");
    CHECK_STR(repr(1e16), "1e+16");
    CHECK_STR(repr(1234567890123456.0), "1234567890123456.0");
    CHECK_STR(repr(12345678901234567.0), "1.2345678901234568e+16");
    CHECK_STR(repr(0.0001), "0.0001");
    CHECK_STR(repr(0.00001), "1e-05");
    CHECK_STR(repr(1.5e-7), "1.5e-07");
    CHECK_STR(repr(1e300), "1e+300");
    CHECK_STR(repr(5e-324), "5e-324");
    CHECK_STR(repr(8608.280232558142), "8608.280232558142");
    /* the way without printf (a few fractional digits, below 2^53), at
     * its edges; checked against repr() on 1.8 million doubles */
    CHECK_STR(repr(110.87890625), "110.87890625"); /* GiB of whole bytes */
    CHECK_STR(repr(0.903), "0.903");
    CHECK_STR(repr(123.456), "123.456");
    CHECK_STR(repr(1e15), "1000000000000000.0");
    CHECK_STR(repr(9007199254740991.0), "9007199254740991.0"); /* 2^53-1 */
    CHECK_STR(repr(9007199254740992.0), "9007199254740992.0"); /* 2^53 */
    CHECK_STR(repr(4503599627370497.5), "4503599627370498.0"); /* 2^52 + 1.5 */
    CHECK_STR(repr(0.00010000000000000002), "0.00010000000000000002");
    CHECK_STR(repr(9.999999999999999e-05), "9.999999999999999e-05");
    CHECK_STR(repr(INFINITY), "inf");
    CHECK_STR(repr(-INFINITY), "-inf");
    CHECK_STR(repr(NAN), "nan");
    /* too small a buffer: nothing written, 0 returned */
    char small[4];
    CHECK_INT(kvplan_format_double(66355.2, small, sizeof small), 0);
    CHECK_INT(kvplan_format_double(1.0, small, sizeof small), 3);
    CHECK_STR(small, "1.0");
    /* the exact way's edges (Python 3's repr) */
    CHECK_STR(repr(1125899906842624.25),
              "1125899906842624.2"); /* a tie: even */
    CHECK_STR(repr(1125899906842624.75), "1125899906842624.8");
    CHECK_STR(repr(0x1p-24), "5.960464477539063e-08"); /* the upper of two */
    CHECK_STR(repr(0x1p-44), "5.684341886080802e-14");
    CHECK_STR(repr(0x1p-1022), "2.2250738585072014e-308");
    CHECK_STR(repr(4503599627370496.0), "4503599627370496.0"); /* 2^52 */
    CHECK_STR(repr(0.000123), "0.000123");
    CHECK_STR(repr(74.53125), "74.53125");
    drawn(argc > 1 ? atol(argv[1]) : 200000);
    return check_report();
}
