/* test_stats.c: descriptives, the official score, bootstrap CV and the variance decomposition
 * against values computed independently (by hand and with numpy: see each test). */
#include <math.h>

#include "stats/stats.h"
#include "tta_test.h"

TEST(descriptives) {
    /* The textbook set: mean 5, population std 2, sample std sqrt(32/7). */
    double x[] = {2, 4, 4, 4, 5, 5, 7, 9};
    CHECK_NEAR(tta_mean(x, 8), 5.0, 1e-15);
    CHECK_NEAR(tta_std_population(x, 8), 2.0, 1e-15);
    CHECK_NEAR(tta_std_sample(x, 8), 2.138089935299395, 1e-14);
    CHECK_NEAR(tta_cv(x, 8), 0.4, 1e-15);
    CHECK(isnan(tta_mean(x, 0)));
    CHECK(isnan(tta_std_sample(x, 1)));
    CHECK(tta_std_population(x, 1) == 0);
    double zero[] = {0, 0};
    CHECK(isnan(tta_cv(zero, 2)));
}

TEST(meets_target_with_float32_tolerance) {
    CHECK(tta_meets_target(21.799999, 21.8, 1));  /* v0.5 GNMT: BLEU printed as float32 */
    CHECK(!tta_meets_target(21.79, 21.8, 1));
    CHECK(tta_meets_target(0.759, 0.759, 1));
    CHECK(tta_meets_target(0.05800005, 0.058, 0)); /* lower is better (WER) */
    CHECK(!tta_meets_target(0.0581, 0.058, 0));
    CHECK(!tta_meets_target(NAN, 0.5, 1));
}

TEST(official_score) {
    double t[] = {50, 10, 30, 20, 40};
    int ok[] = {1, 1, 1, 1, 1};
    tta_score s = tta_official_score(t, ok, 5, "resnet", "v0.7");
    CHECK_NEAR(s.score, 30.0, 1e-12); /* drop 10 and 50 */
    CHECK(s.n_used == 3 && s.n_dropped == 0 && s.required == 5 && s.why == NULL);
    /* One failed run: it is the one dropped from the top; only the fastest success goes. */
    int one_failed[] = {1, 1, 1, 1, 0};
    s = tta_official_score(t, one_failed, 5, "resnet", "v0.7");
    CHECK_NEAR(s.score, (20.0 + 30.0 + 50.0) / 3, 1e-12); /* successes 10 20 30 50 -> [20 30 50] */
    CHECK(s.n_dropped == 1 && s.n_used == 3);
    int two_failed[] = {1, 0, 1, 1, 0};
    s = tta_official_score(t, two_failed, 5, "resnet", "v0.7");
    CHECK(isnan(s.score) && s.why != NULL);
    /* Ten runs required for GNMT: five give a score with a warning. */
    s = tta_official_score(t, ok, 5, "gnmt", "v0.7");
    CHECK_NEAR(s.score, 30.0, 1e-12);
    CHECK(s.required == 10 && s.why != NULL);
    /* unet3d drops four from each end of forty. */
    double u[40];
    int uok[40];
    for (int i = 0; i < 40; i++) {
        u[i] = i + 1;
        uok[i] = 1;
    }
    s = tta_official_score(u, uok, 40, "unet3d", "v1.0");
    CHECK_NEAR(s.score, 20.5, 1e-12); /* mean of 5..36 */
    CHECK(s.n_used == 32);
    /* One run: nothing left after dropping. */
    s = tta_official_score(t, ok, 1, "resnet", "v0.7");
    CHECK(isnan(s.score));
    CHECK(tta_required_runs("resnet", "dawnbench") == 0);
}

TEST(bootstrap_cv) {
    double x[] = {100, 104, 98, 110, 95, 101, 99, 103};
    tta_cv_ci a = tta_cv_bootstrap(x, 8, 2000, 0.05, 42);
    tta_cv_ci b = tta_cv_bootstrap(x, 8, 2000, 0.05, 42);
    CHECK_NEAR(a.cv, tta_cv(x, 8), 1e-15);
    CHECK(a.low == b.low && a.high == b.high); /* seeded: repeatable */
    CHECK(a.low <= a.cv && a.cv <= a.high * 1.5);
    CHECK(a.low > 0 && a.high < 0.2);
    double same[] = {7, 7, 7};
    tta_cv_ci c = tta_cv_bootstrap(same, 3, 500, 0.05, 1);
    CHECK(c.cv == 0 && c.low == 0 && c.high == 0);
    tta_cv_ci d = tta_cv_bootstrap(x, 1, 500, 0.05, 1);
    CHECK(isnan(d.low) && d.why != NULL);
}

TEST(decomposition) {
    /* numpy: epochs [10 10 20], tta [100 110 200] */
    double tta[] = {100, 110, 200}, epochs[] = {10, 10, 20};
    tta_decomposition d = tta_decompose(tta, epochs, 3);
    CHECK(d.n == 3);
    CHECK_NEAR(d.epochs_mean, 13.333333333333334, 1e-12);
    CHECK_NEAR(d.epochs_std, 4.714045207910316, 1e-12);
    CHECK_NEAR(d.tpe_mean, 10.333333333333334, 1e-12);
    CHECK_NEAR(d.tpe_std, 0.4714045207910317, 1e-12);
    CHECK_NEAR(d.cv_ratio, 7.749999999999998, 1e-9);
    CHECK_NEAR(d.log_share_epochs, 1.1345539000341571, 1e-9);
    CHECK_NEAR(d.log_share_tpe, 0.02145125910477194, 1e-9);
    CHECK_NEAR(d.log_share_cov, -0.15600515913892793, 1e-9);
    CHECK_NEAR(d.log_share_epochs + d.log_share_tpe + d.log_share_cov, 1.0, 1e-12);
    /* identical runs: CV 0, ratio undefined */
    double same_t[] = {50, 50}, same_e[] = {5, 5};
    d = tta_decompose(same_t, same_e, 2);
    CHECK(d.cv_epochs == 0 && isnan(d.cv_ratio) && d.why != NULL);
    /* a run that never reached the target (NAN epochs) is left out */
    double t3[] = {100, 110, 300}, e3[] = {10, 11, NAN};
    d = tta_decompose(t3, e3, 3);
    CHECK(d.n == 2);
    CHECK(d.cv_tpe == 0 && isnan(d.cv_ratio));
    /* one run */
    d = tta_decompose(tta, epochs, 1);
    CHECK(d.n == 1 && d.epochs_std == 0 && isnan(d.cv_ratio) && d.why != NULL);
}

TEST(comparison) {
    /* scipy 1.10: ttest_ind(equal_var=False), mannwhitneyu(method='exact' / 'asymptotic') */
    double a[] = {100, 104, 98, 110, 95}, b[] = {90, 93, 91, 97, 88, 92};
    tta_welch w = tta_welch_test(a, 5, b, 6);
    CHECK_NEAR(w.t, 3.3164234814388185, 1e-12);
    CHECK_NEAR(w.df, 5.8127916170781395, 1e-10);
    CHECK_NEAR(w.p, 0.01684807957714376, 1e-10);
    tta_mwu m = tta_mann_whitney(a, 5, b, 6);
    CHECK(m.exact);
    CHECK_NEAR(m.u, 29.0, 0);
    CHECK_NEAR(m.p, 0.008658008658008658, 1e-12);
    double c[] = {1, 2, 2, 3, 4, 5}, d[] = {3, 4, 4, 6, 7, 8, 9};
    m = tta_mann_whitney(c, 6, d, 7);
    CHECK(!m.exact);
    CHECK_NEAR(m.u, 5.5, 0);
    CHECK_NEAR(m.p, 0.030715473098711102, 1e-10);
    /* identical groups: no difference */
    tta_welch same = tta_welch_test(a, 5, a, 5);
    CHECK_NEAR(same.t, 0, 1e-12);
    CHECK_NEAR(same.p, 1, 1e-12);
    CHECK(isnan(tta_welch_test(a, 1, b, 6).p));
    double lo, hi;
    tta_ratio_ci(a, 5, b, 6, 2000, 0.05, 7, &lo, &hi);
    double ratio = tta_mean(a, 5) / tta_mean(b, 6);
    CHECK(lo < ratio && ratio < hi && lo > 1.0 && hi < 1.2);
    /* effect size 1 (5% of 100 with sd 5): the noncentral t gives power 0.807 at n = 17 and
     * 0.781 at n = 16 (scipy.stats.nct). */
    CHECK_NEAR(tta_runs_needed(100, 5, 0.05, 0.05, 0.8), 17, 0);
    CHECK(isnan(tta_runs_needed(100, 0, 0.05, 0.05, 0.8)));
}

int main(void) {
    RUN(comparison);
    RUN(descriptives);
    RUN(meets_target_with_float32_tolerance);
    RUN(official_score);
    RUN(bootstrap_cv);
    RUN(decomposition);
    return test_summary();
}
