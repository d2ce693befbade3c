/* test_compare.c: Welch's t-test, Mann-Whitney U and t-test power against scipy 1.10
 * (ttest_ind(equal_var=False), mannwhitneyu(method='exact'/'asymptotic'), nct; see
 * reference_values.py). */
#include <math.h>

#include "stats/stats.h"
#include "tta_test.h"

static const double a[] = {100, 104, 98, 110, 95}, b[] = {90, 93, 91, 97, 88, 92};

TEST(welch) {
    tta_welch w = tta_welch_test(a, 5, b, 6);
    CHECK(w.reason == TTA_REASON_NONE && w.why == NULL);
    CHECK_REL(w.t, 3.3164234814388185, 1e-13);
    CHECK_REL(w.df, 5.8127916170781395, 1e-13);
    CHECK_REL(w.p, 0.01684807957714376, 1e-10);
    double c[] = {5.1, 5.3, 4.9}, d[] = {6.0, 6.2, 5.7, 6.4, 5.9, 6.1, 6.3};
    w = tta_welch_test(c, 3, d, 7);
    CHECK_REL(w.t, -6.701872450265123, 1e-12);
    CHECK_REL(w.p, 0.0014653791063272729, 1e-9);
    /* identical groups: t 0, p 1 */
    w = tta_welch_test(a, 5, a, 5);
    CHECK_NEAR(w.t, 0, 1e-12);
    CHECK_NEAR(w.p, 1, 1e-12);
    w = tta_welch_test(a, 1, b, 6);
    CHECK(isnan(w.t) && isnan(w.p) && w.reason == TTA_ONE_VALUE);
    double same[] = {3, 3, 3}, other[] = {4, 4};
    w = tta_welch_test(same, 3, other, 2);
    CHECK(isnan(w.p) && w.reason == TTA_IDENTICAL_VALUES && w.why != NULL);
    CHECK(tta_welch_test(a, 0, b, 6).reason == TTA_NO_VALUES);
}

TEST(mann_whitney) {
    tta_mwu m = tta_mann_whitney(a, 5, b, 6);
    CHECK(m.exact && m.reason == TTA_REASON_NONE);
    CHECK_NEAR(m.u, 29.0, 0);
    CHECK_REL(m.p, 0.008658008658008658, 1e-12);
    m = tta_mann_whitney(b, 6, a, 5); /* U of the other sample: 30 - 29 */
    CHECK_NEAR(m.u, 1.0, 0);
    CHECK_REL(m.p, 0.008658008658008658, 1e-12);
    /* ties: normal approximation with tie and continuity correction */
    double c[] = {1, 2, 2, 3, 4, 5}, d[] = {3, 4, 4, 6, 7, 8, 9};
    m = tta_mann_whitney(c, 6, d, 7);
    CHECK(!m.exact);
    CHECK_NEAR(m.u, 5.5, 0);
    CHECK_REL(m.p, 0.030715473098711102, 1e-12);
    /* 30 x 30 without ties: exact */
    double big_a[30], big_b[30];
    for (int i = 0; i < 30; i++) {
        big_a[i] = 1 + 2 * i;
        big_b[i] = 10.5 + 2 * i;
    }
    m = tta_mann_whitney(big_a, 30, big_b, 30);
    CHECK(m.exact);
    CHECK_NEAR(m.u, 325.0, 0);
    CHECK_REL(m.p, 0.06539911471328003, 1e-10);
    /* 51 x 51: beyond the exact table, normal approximation */
    double c51[51], d51[51];
    for (int i = 0; i < 51; i++) {
        c51[i] = i + 1;
        d51[i] = i + 1.5;
    }
    m = tta_mann_whitney(c51, 51, d51, 51);
    CHECK(!m.exact);
    CHECK_NEAR(m.u, 1275.0, 0);
    CHECK_REL(m.p, 0.867120090828166, 1e-12);
    /* everything tied: no difference */
    double same[] = {2, 2, 2};
    m = tta_mann_whitney(same, 3, same, 3);
    CHECK(!m.exact && m.p == 1 && m.u == 4.5);
    m = tta_mann_whitney(a, 5, b, 0);
    CHECK(isnan(m.u) && isnan(m.p) && m.reason == TTA_NO_VALUES);
}

TEST(power_noncentral_t) {
    /* scipy.stats.nct.sf(t, 2n - 2, effect sqrt(n/2)) + nct.cdf(-t, ...), t = t.isf(alpha/2, 2n - 2) */
    CHECK_NEAR(tta_t_test_power(17, 1.0, 0.05), 0.80703671514722, 1e-9);
    CHECK_NEAR(tta_t_test_power(16, 1.0, 0.05), 0.7813977924664224, 1e-9);
    CHECK_NEAR(tta_t_test_power(2, 5.0, 0.05), 0.7191805363672362, 1e-9);
    CHECK_NEAR(tta_t_test_power(10, 0.5, 0.05), 0.18509565629118482, 1e-9);
    CHECK_NEAR(tta_t_test_power(200, 0.3, 0.05), 0.8491491166340879, 1e-9);
    CHECK_NEAR(tta_t_test_power(3000, 0.05, 0.05), 0.49056196704153, 1e-9);
    CHECK_NEAR(tta_t_test_power(20, 0.0, 0.05), 0.05, 1e-9); /* no effect: the significance level */
    CHECK(isnan(tta_t_test_power(1, 1.0, 0.05)) && isnan(tta_t_test_power(10, 1.0, 0)));
}

TEST(runs_needed) {
    /* smallest n with power >= target (scipy nct, stepping n): effect 1 -> 17, 0.5 -> 64,
     * 2 -> 6, 0.2 -> 394; alpha 0.01, power 0.9, effect 0.5 -> 121 */
    CHECK_NEAR(tta_runs_needed(100, 5, 0.05, 0.05, 0.8), 17, 0);   /* effect 5 / 5 = 1 */
    CHECK_NEAR(tta_runs_needed(100, 10, 0.05, 0.05, 0.8), 64, 0);  /* 0.5 */
    CHECK_NEAR(tta_runs_needed(100, 2.5, 0.05, 0.05, 0.8), 6, 0);  /* 2 */
    CHECK_NEAR(tta_runs_needed(100, 5, 0.01, 0.05, 0.8), 394, 0);  /* 0.2 */
    CHECK_NEAR(tta_runs_needed(100, 10, 0.05, 0.01, 0.9), 121, 0); /* 0.5 */
    CHECK_NEAR(tta_runs_needed(100, 0.1, 0.5, 0.05, 0.8), 2, 0);   /* a huge effect: at least 2 */
    CHECK(isnan(tta_runs_needed(100, 0, 0.05, 0.05, 0.8)));
    CHECK(isnan(tta_runs_needed(NAN, 5, 0.05, 0.05, 0.8)));
    CHECK(isnan(tta_runs_needed(100, 5, 0.05, 0.05, 1.0)));
}

int main(void) {
    RUN(welch);
    RUN(mann_whitney);
    RUN(power_noncentral_t);
    RUN(runs_needed);
    return test_summary();
}
