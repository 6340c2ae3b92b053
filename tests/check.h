/*
 * check.h: the tests' assertions. Each failed check prints where it is and
 * both operands, counts the failure, and lets the test go on; a test's main
 * returns check_report(), which prints "N passed, N failed".
 */
#ifndef KVPLAN_CHECK_H
#define KVPLAN_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int check_passed_;
static int check_failed_;

#define CHECK_FAIL_(...)                                                       \
    do {                                                                       \
        check_failed_++;                                                       \
        fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                        \
        fprintf(stderr, __VA_ARGS__);                                          \
        fputc('\n', stderr);                                                   \
    } while (0)

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (cond)                                                              \
            check_passed_++;                                                   \
        else                                                                   \
            CHECK_FAIL_("CHECK(%s) failed", #cond);                            \
    } while (0)

#define CHECK_INT(a, b)                                                        \
    do {                                                                       \
        int64_t a_ = (int64_t)(a), b_ = (int64_t)(b);                          \
        if (a_ == b_)                                                          \
            check_passed_++;                                                   \
        else                                                                   \
            CHECK_FAIL_("%s == %s: %" PRId64 " != %" PRId64, #a, #b, a_, b_);  \
    } while (0)

/* Bit-for-bit equality of doubles, shown with 17 digits. */
#define CHECK_DOUBLE(a, b)                                                     \
    do {                                                                       \
        double a_ = (a), b_ = (b);                                             \
        if (memcmp(&a_, &b_, sizeof a_) == 0)                                  \
            check_passed_++;                                                   \
        else                                                                   \
            CHECK_FAIL_("%s == %s: %.17g != %.17g", #a, #b, a_, b_);           \
    } while (0)

#define CHECK_STR(a, b)                                                        \
    do {                                                                       \
        const char *a_ = (a), *b_ = (b);                                       \
        if (a_ != NULL && b_ != NULL && strcmp(a_, b_) == 0)                   \
            check_passed_++;                                                   \
        else                                                                   \
            CHECK_FAIL_("%s == %s: \"%s\" != \"%s\"", #a, #b,                  \
                        a_ ? a_ : "(null)", b_ ? b_ : "(null)");               \
    } while (0)

/* `needle` occurs in `hay`. */
#define CHECK_CONTAINS(hay, needle)                                            \
    do {                                                                       \
        const char *h_ = (hay), *n_ = (needle);                                \
        if (h_ != NULL && strstr(h_, n_) != NULL)                              \
            check_passed_++;                                                   \
        else                                                                   \
            CHECK_FAIL_("%s does not contain \"%s\": \"%s\"", #hay, n_,        \
                        h_ ? h_ : "(null)");                                   \
    } while (0)

static inline int check_report(void)
{
    printf("%d passed, %d failed\n", check_passed_, check_failed_);
    return check_failed_ == 0 ? 0 : 1;
}

#endif /* KVPLAN_CHECK_H */
