/* test_descriptive.c: means, standard deviations, CV, olympic means and target checks, against the
 * NIST Statistical Reference Datasets (certified values, univariate summary statistics:
 * itl.nist.gov/div898/strd) and values worked out by hand. */
#include <math.h>

#include "stats/stats.h"
#include "tta_test.h"

/* NIST StRD "Mavro" (50 values; certified mean 2.00185600000000, sd 4.29123454003053E-04). */
static const double mavro[50] = {
    2.00180, 2.00170, 2.00180, 2.00190, 2.00180, 2.00170, 2.00150, 2.00140, 2.00150, 2.00150,
    2.00170, 2.00180, 2.00180, 2.00190, 2.00190, 2.00210, 2.00200, 2.00160, 2.00140, 2.00130,
    2.00130, 2.00150, 2.00150, 2.00160, 2.00150, 2.00140, 2.00130, 2.00140, 2.00150, 2.00140,
    2.00150, 2.00160, 2.00150, 2.00160, 2.00190, 2.00200, 2.00200, 2.00210, 2.00220, 2.00230,
    2.00240, 2.00250, 2.00270, 2.00260, 2.00260, 2.00260, 2.00270, 2.00260, 2.00250, 2.00240};

/* NIST StRD "Michelso" (100 values; certified mean 299.852400000000, sd 0.0790105478190518). */
static const double michelson[100] = {
    299.85, 299.74, 299.90, 300.07, 299.93, 299.85, 299.95, 299.98, 299.98, 299.88, 300.00, 299.98, 299.93,
    299.65, 299.76, 299.81, 300.00, 300.00, 299.96, 299.96, 299.96, 299.94, 299.96, 299.94, 299.88, 299.80,
    299.85, 299.88, 299.90, 299.84, 299.83, 299.79, 299.81, 299.88, 299.88, 299.83, 299.80, 299.79, 299.76,
    299.80, 299.88, 299.88, 299.88, 299.86, 299.72, 299.72, 299.62, 299.86, 299.97, 299.95, 299.88, 299.91,
    299.85, 299.87, 299.84, 299.84, 299.85, 299.84, 299.84, 299.84, 299.89, 299.81, 299.81, 299.82, 299.80,
    299.77, 299.76, 299.74, 299.75, 299.76, 299.91, 299.92, 299.89, 299.86, 299.88, 299.72, 299.84, 299.85,
    299.85, 299.78, 299.89, 299.84, 299.78, 299.81, 299.76, 299.81, 299.79, 299.81, 299.82, 299.85, 299.87,
    299.87, 299.81, 299.74, 299.81, 299.94, 299.95, 299.80, 299.81, 299.87};

TEST(nist_strd) {
    /* The population std is the certified sample sd times sqrt((n - 1) / n). */
    CHECK_REL(tta_mean(mavro, 50), 2.00185600000000, 1e-15);
    CHECK_REL(tta_std_sample(mavro, 50), 4.29123454003053e-04, 1e-12);
    CHECK_REL(tta_std_population(mavro, 50), 4.29123454003053e-04 * sqrt(49.0 / 50.0), 1e-12);
    CHECK_REL(tta_cv(mavro, 50), 4.29123454003053e-04 * sqrt(49.0 / 50.0) / 2.00185600000000, 1e-12);
    CHECK_REL(tta_mean(michelson, 100), 299.852400000000, 1e-15);
    CHECK_REL(tta_std_sample(michelson, 100), 0.0790105478190518, 1e-12);
    CHECK_REL(tta_std_population(michelson, 100), 0.0790105478190518 * sqrt(99.0 / 100.0), 1e-12);
    /* NumAcc1: {10000001, 10000003, 10000002}: mean 10000002, sd 1. */
    double acc1[] = {10000001, 10000003, 10000002};
    CHECK_REL(tta_mean(acc1, 3), 10000002, 1e-15);
    CHECK_REL(tta_std_sample(acc1, 3), 1.0, 1e-15);
    /* NumAcc3: 1000000.2 then 500 pairs 1000000.1, 1000000.3: mean 1000000.2, sd 0.1 (GSL's own test
     * accepts 1e-9 for this large offset). */
    double acc3[1001];
    acc3[0] = 1000000.2;
    for (int i = 1; i < 1000; i += 2) {
        acc3[i] = 1000000.1;
        acc3[i + 1] = 1000000.3;
    }
    CHECK_REL(tta_mean(acc3, 1001), 1000000.2, 1e-15);
    CHECK_REL(tta_std_sample(acc3, 1001), 0.1, 1e-9);
}

TEST(textbook_set_and_edges) {
    /* {2 4 4 4 5 5 7 9}: mean 5, squared deviations sum to 32: population std 2, sample sqrt(32/7). */
    double x[] = {2, 4, 4, 4, 5, 5, 7, 9};
    CHECK_NEAR(tta_mean(x, 8), 5.0, 1e-15);
    CHECK_NEAR(tta_std_population(x, 8), 2.0, 1e-15);
    CHECK_NEAR(tta_std_sample(x, 8), sqrt(32.0 / 7.0), 1e-15);
    CHECK_NEAR(tta_cv(x, 8), 0.4, 1e-15);
    CHECK(isnan(tta_mean(x, 0)) && isnan(tta_std_population(x, 0)) && isnan(tta_cv(x, 0)));
    CHECK(isnan(tta_std_sample(x, 1)));
    CHECK(tta_std_population(x, 1) == 0 && tta_cv(x, 1) == 0);
    double same[] = {7, 7, 7, 7};
    CHECK(tta_std_population(same, 4) == 0 && tta_cv(same, 4) == 0);
    double zero[] = {-1, 1};
    CHECK(isnan(tta_cv(zero, 2)));
    double with_nan[] = {1, NAN, 3};
    CHECK(isnan(tta_mean(with_nan, 3)));
}

TEST(describe_reasons) {
    double x[] = {2, 4, 4, 4, 5, 5, 7, 9};
    tta_summary s = tta_describe(x, 8);
    CHECK(s.reason == TTA_REASON_NONE && s.why == NULL && s.n == 8);
    CHECK_NEAR(s.std, 2.0, 1e-15);
    CHECK_NEAR(s.std_sample, sqrt(32.0 / 7.0), 1e-15);
    s = tta_describe(x, 1);
    CHECK(s.reason == TTA_ONE_VALUE && s.why != NULL && s.cv == 0 && isnan(s.std_sample));
    s = tta_describe(x, 0);
    CHECK(s.reason == TTA_NO_VALUES && isnan(s.mean));
    double zero[] = {-2, 2};
    s = tta_describe(zero, 2);
    CHECK(s.reason == TTA_ZERO_MEAN && isnan(s.cv));
    CHECK(tta_reason_text(TTA_REASON_NONE) == NULL);
    CHECK(tta_reason_is_warning(TTA_FEWER_RUNS_THAN_REQUIRED) && !tta_reason_is_warning(TTA_TOO_MANY_FAILED));
    for (int r = TTA_NO_VALUES; r <= TTA_NUMERICAL_ERROR; r++) CHECK(tta_reason_text((tta_reason)r) != NULL);
}

TEST(olympic_mean) {
    double x[] = {50, 10, 30, 20, 40};
    CHECK_NEAR(tta_olympic_mean(x, 5, 1, 1), 30.0, 1e-15);         /* (20 + 30 + 40) / 3 */
    CHECK_NEAR(tta_olympic_mean(x, 5, 1, 0), 35.0, 1e-15);         /* (20 + 30 + 40 + 50) / 4 */
    CHECK_NEAR(tta_olympic_mean(x, 5, 0, 0), 30.0, 1e-15);
    CHECK_NEAR(tta_olympic_mean(x, 5, 2, 2), 30.0, 1e-15);         /* the median alone */
    CHECK(isnan(tta_olympic_mean(x, 5, 3, 2)) && isnan(tta_olympic_mean(x, 2, 1, 1)));
    CHECK(isnan(tta_olympic_mean(x, 0, 0, 0)));
    double with_nan[] = {1, NAN, 3, 4};
    CHECK(isnan(tta_olympic_mean(with_nan, 4, 1, 1)));
    CHECK(x[0] == 50 && x[1] == 10); /* the input is not sorted in place */
}

TEST(meets_target_with_float32_tolerance) {
    CHECK(tta_meets_target(21.799999, 21.8, 1)); /* v0.5 GNMT: BLEU 21.799999237 against 21.8 */
    CHECK(tta_meets_target(21.8 * (1 - 0.9e-6), 21.8, 1));
    CHECK(!tta_meets_target(21.8 * (1 - 1.1e-6), 21.8, 1));
    CHECK(!tta_meets_target(21.79, 21.8, 1));
    CHECK(tta_meets_target(0.759, 0.759, 1));
    CHECK(tta_meets_target(0.05800005, 0.058, 0)); /* lower is better (WER) */
    CHECK(!tta_meets_target(0.0581, 0.058, 0));
    CHECK(tta_meets_target(0.01, 0.058, 0) && !tta_meets_target(0.01, 0.058, 1));
    CHECK(!tta_meets_target(NAN, 0.5, 1) && !tta_meets_target(0.5, NAN, 1));
}

int main(void) {
    RUN(nist_strd);
    RUN(textbook_set_and_edges);
    RUN(describe_reasons);
    RUN(olympic_mean);
    RUN(meets_target_with_float32_tolerance);
    return test_summary();
}
