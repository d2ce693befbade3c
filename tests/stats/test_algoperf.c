/* test_algoperf.c: AlgoPerf's scoring arithmetic (stats/algoperf.c) on cases worked by hand from the
 * official code (scoring/performance_profile.py, score_submissions.py of mlcommons/submissions_algorithms):
 * the first evaluation meeting a target, a study's trial, numpy's median with misses, the held-out and 4x
 * rules in their order, numpy's linspace, the profile and the normalised trapezoid. */
#include <math.h>

#include "stats/stats.h"
#include "tta_test.h"

TEST(first_hit_by_direction_and_nan) {
    double acc[] = {0.1, NAN, 0.5, 0.8, 0.9};
    CHECK(tta_algoperf_first_hit(acc, 5, 0.8, 0) == 3);   /* >= for accuracy */
    CHECK(tta_algoperf_first_hit(acc, 5, 0.95, 0) == -1);
    CHECK(tta_algoperf_first_hit(acc, 5, 0.2, 1) == 0);   /* <= for a loss */
    double nan_only[] = {NAN, NAN};
    CHECK(tta_algoperf_first_hit(nan_only, 2, 0.0, 1) == -1);
    CHECK(tta_algoperf_first_hit(NULL, 0, 0.0, 0) == -1);
}

TEST(study_takes_the_earliest_evaluation_not_the_smallest_time) {
    /* trial 0 reaches it at evaluation 6 in 7221 s, trial 1 at evaluation 6 in 7208 s, trial 2 at 7 in 7000 s:
     * the smallest index wins, the first of equal ones (trial 0) even though trial 1 was faster */
    long hit[] = {6, 6, 7, -1};
    double t[] = {7221.0, 7208.0, 7000.0, NAN};
    long trial;
    CHECK_NEAR(tta_algoperf_study_time(hit, t, 4, &trial), 7221.0, 0);
    CHECK(trial == 0);
    long none[] = {-1, -1};
    CHECK(isinf(tta_algoperf_study_time(none, t, 2, &trial)) && trial == -1);
}

TEST(median_as_numpy) {
    double odd[] = {5, INFINITY, 1};
    CHECK_NEAR(tta_algoperf_median(odd, 3), 5, 0);
    double two_miss[] = {INFINITY, 3, INFINITY};
    CHECK(isinf(tta_algoperf_median(two_miss, 3)));
    double even[] = {4, 1, 3, 2};
    CHECK_NEAR(tta_algoperf_median(even, 4), 2.5, 0);
    double even_miss[] = {1, INFINITY};
    CHECK(isinf(tta_algoperf_median(even_miss, 2)));
    double with_nan[] = {1, NAN, 2};
    CHECK(isnan(tta_algoperf_median(with_nan, 3)));
    CHECK(isnan(tta_algoperf_median(NULL, 0)));
}

TEST(rules_in_the_official_order) {
    /* workloads: A (base), B (base), A_var (held-out of A); submissions s0, s1, s2 */
    int base_of[] = {-1, -1, 0};
    double t[] = {
        100, 50, 10,        /* s0: the best on A and B */
        150, 300, 50,       /* s1: B over 4x 50; A_var 50 is over 4x the best (10): A becomes a miss */
        INFINITY, 100, 20,  /* s2: A missed, so A_var is a miss (rule 1) */
    };
    double ratio[9], scored[9];
    tta_algoperf_ratios(t, base_of, 3, 3, 4.0, ratio, scored);
    CHECK_NEAR(ratio[0], 1.0, 0);
    CHECK_NEAR(ratio[1], 1.0, 0);
    CHECK(isnan(ratio[2])); /* held-out columns carry no ratio */
    CHECK(isinf(scored[3]) && isinf(ratio[3])); /* s1's A: its variant was over 4x */
    CHECK(isinf(scored[4]) && isinf(ratio[4])); /* s1's B: 300 > 4 x 50 */
    CHECK(isinf(scored[5]));
    CHECK(isinf(scored[6]) && isinf(scored[8])); /* s2: base missed, variant too */
    CHECK_NEAR(ratio[7], 2.0, 0);
    /* s0 without a trial on A (NAN): its variant becomes a miss (rule 1), and so A a miss (rule 3),
     * INFINITY, not NAN, as the official code's filter returns; the best of B ignores nothing */
    double u[] = {NAN, 200, 10, 100, 100, 10};
    double r2[6];
    tta_algoperf_ratios(u, base_of, 2, 3, 4.0, r2, NULL);
    CHECK(isinf(r2[0]) && fabs(r2[1] - 2.0) < 1e-15);
    CHECK_NEAR(r2[3], 1.0, 0);
    /* without a held-out column a NAN stays NAN: no ratio */
    int bases[] = {-1, -1};
    double w[] = {NAN, 200, 100, 100};
    tta_algoperf_ratios(w, bases, 2, 2, 4.0, r2, NULL);
    CHECK(isnan(r2[0]) && fabs(r2[1] - 2.0) < 1e-15 && fabs(r2[2] - 1.0) < 1e-15);
    /* a held-out workload without a trial makes its base a miss */
    double v[] = {100, 100, NAN};
    double r3[3];
    tta_algoperf_ratios(v, base_of, 1, 3, 4.0, r3, NULL);
    CHECK(isinf(r3[0]) && fabs(r3[1] - 1.0) < 1e-15);
}

TEST(taus_profile_and_score) {
    double tau[100], rho[100];
    tta_algoperf_taus(1.0, 4.0, 100, tau);
    CHECK(tau[0] == 1.0 && tau[99] == 4.0);
    CHECK(tau[1] == 1.0 * (3.0 / 99.0) + 1.0); /* numpy: i * step + start */
    /* two base workloads: ratio 1 and 2.5, and a held-out column (NAN) that never counts */
    double ratio[] = {1.0, 2.5, NAN};
    tta_algoperf_profile(ratio, 3, 2, tau, 100, rho);
    CHECK_NEAR(rho[0], 0.5, 0);
    CHECK_NEAR(rho[99], 1.0, 0);
    /* 2.5 first counted at tau[50] = 1 + 50 * 3/99 = 2.51...: the area is 0.5 * 3 plus 0.5 * (4 - tau[50]),
     * the trapezoid on [tau[49], tau[50]] adding half a step */
    double step = 3.0 / 99.0;
    double want = (0.5 * 3.0 + 0.5 * (4.0 - tau[50]) + 0.5 * step / 2.0) / 3.0;
    CHECK_NEAR(tta_algoperf_score(tau, rho, 100), want, 1e-12);
    double all_best[] = {1.0, 1.0};
    tta_algoperf_profile(all_best, 2, 2, tau, 100, rho);
    CHECK_NEAR(tta_algoperf_score(tau, rho, 100), 1.0, 1e-12);
    double none[] = {INFINITY, NAN};
    tta_algoperf_profile(none, 2, 2, tau, 100, rho);
    CHECK_NEAR(tta_algoperf_score(tau, rho, 100), 0.0, 0);
    CHECK(isnan(tta_algoperf_score(tau, rho, 1)));
}

int main(void) {
    RUN(first_hit_by_direction_and_nan);
    RUN(study_takes_the_earliest_evaluation_not_the_smallest_time);
    RUN(median_as_numpy);
    RUN(rules_in_the_official_order);
    RUN(taus_profile_and_score);
    return test_summary();
}
