/* tta_test.h: a minimal test harness for the C unit tests (one executable per test file).
 *
 *   TEST(name) { CHECK(x == 1); CHECK_NEAR(a, b, 1e-9); }
 *   int main(void) { RUN(name); return test_summary(); }
 *
 * A failed CHECK prints file:line and the expression and marks the test failed; the test goes
 * on so that one run shows every failure. test_summary() prints "N passed, N failed" and
 * returns the exit status. test_skip(msg) exits 77, which ctest reports as skipped.
 */
#ifndef TTA_TEST_H
#define TTA_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tta_test_failed_checks;
static int tta_tests_passed, tta_tests_failed;

#define TEST(name) static void test_##name(void)
#define RUN(name)                                                              \
    do {                                                                       \
        int before_ = tta_test_failed_checks;                                  \
        test_##name();                                                         \
        if (tta_test_failed_checks == before_) {                               \
            tta_tests_passed++;                                                \
        } else {                                                               \
            tta_tests_failed++;                                                \
            fprintf(stderr, "FAILED: %s\n", #name);                            \
        }                                                                      \
    } while (0)

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            tta_test_failed_checks++;                                          \
        }                                                                      \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                  \
    do {                                                                       \
        double a_ = (a), b_ = (b);                                             \
        if (!(fabs(a_ - b_) <= (tol))) {                                       \
            fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.17g, %s = %.17g (tol %g)\n", \
                    __FILE__, __LINE__, #a, a_, #b, b_, (double)(tol));        \
            tta_test_failed_checks++;                                          \
        }                                                                      \
    } while (0)

/* Relative tolerance: |a - b| <= rtol * max(|a|, |b|). */
#define CHECK_REL(a, b, rtol)                                                  \
    do {                                                                       \
        double a_ = (a), b_ = (b);                                             \
        double m_ = fabs(a_) > fabs(b_) ? fabs(a_) : fabs(b_);                 \
        if (!(fabs(a_ - b_) <= (rtol) * m_)) {                                 \
            fprintf(stderr, "%s:%d: CHECK_REL failed: %s = %.17g, %s = %.17g (rtol %g)\n", \
                    __FILE__, __LINE__, #a, a_, #b, b_, (double)(rtol));       \
            tta_test_failed_checks++;                                          \
        }                                                                      \
    } while (0)

#define CHECK_STR(a, b)                                                        \
    do {                                                                       \
        const char *a_ = (a), *b_ = (b);                                       \
        if (!a_ || !b_ || strcmp(a_, b_) != 0) {                               \
            fprintf(stderr, "%s:%d: CHECK_STR failed: %s = \"%s\", %s = \"%s\"\n", \
                    __FILE__, __LINE__, #a, a_ ? a_ : "(null)", #b, b_ ? b_ : "(null)"); \
            tta_test_failed_checks++;                                          \
        }                                                                      \
    } while (0)

static inline int test_summary(void) {
    printf("%d passed, %d failed\n", tta_tests_passed, tta_tests_failed);
    return tta_tests_failed ? 1 : 0;
}

static inline void test_skip(const char *why) {
    printf("SKIPPED: %s\n", why);
    exit(77);
}

/* The shared/ folder (corpus, rcp, claims), from $TTA_SHARED_DIR or ../shared; NULL if absent. */
static inline const char *test_shared_dir(void) {
    static char path[4096];
    const char *env = getenv("TTA_SHARED_DIR");
    snprintf(path, sizeof path, "%s", env && *env ? env : "../shared");
    FILE *f;
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/corpus/README.md", path);
    if ((f = fopen(probe, "r")) == NULL) return NULL;
    fclose(f);
    return path;
}

#endif
