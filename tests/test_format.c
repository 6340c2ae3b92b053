/*
 * test_format.c: kvplan_format_double writes what Python's repr() writes.
 * Expected strings are Python 3's repr of the same doubles.
 */
#include "check.h"
#include "kvplan.h"

#include <math.h>

static const char *repr(double x)
{
    static char buf[64];
    if (kvplan_format_double(x, buf, sizeof buf) == 0)
        return "(error)";
    return buf;
}

int main(void)
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
    return check_report();
}
