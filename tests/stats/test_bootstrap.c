/* test_bootstrap.c: percentile-bootstrap intervals against an independent Python replica
 * (reference_values.py: numpy's MT19937 with legacy seeding is GSL's mt19937, gsl_rng_uniform_int's
 * rejection rule, numpy.percentile). */
#include <math.h>

#include "stats/stats.h"
#include "tta_test.h"

static const double x[] = {100, 104, 98, 110, 95, 101, 99, 103};

TEST(cv_interval_matches_replica) {
    tta_cv_ci a = tta_cv_bootstrap(x, 8, 2000, 0.05, 42);
    CHECK(a.reason == TTA_REASON_NONE && a.why == NULL && a.resamples == 2000);
    CHECK_REL(a.cv, 0.04182981320024053, 1e-13);
    CHECK_REL(a.low, 0.01735608759595201, 1e-12);
    CHECK_REL(a.high, 0.05593268182981242, 1e-12);
    tta_cv_ci d = tta_cv_bootstrap(x, 8, 0, 0.05, 42); /* 0: the default 2000 */
    CHECK(d.resamples == 2000 && d.low == a.low && d.high == a.high);
    tta_cv_ci b = tta_cv_bootstrap(x, 8, 500, 0.1, 7); /* a 90% interval, other seed */
    CHECK_REL(b.low, 0.018207842867903053, 1e-12);
    CHECK_REL(b.high, 0.053890264982048935, 1e-12);
    tta_cv_ci c = tta_cv_bootstrap(x, 8, 2000, 0.05, 43);
    CHECK(c.low != a.low); /* the seed matters */
}

TEST(cv_interval_edges) {
    double same[] = {7, 7, 7};
    tta_cv_ci c = tta_cv_bootstrap(same, 3, 500, 0.05, 1);
    CHECK(c.cv == 0 && c.low == 0 && c.high == 0 && c.reason == TTA_REASON_NONE);
    c = tta_cv_bootstrap(x, 1, 500, 0.05, 1);
    CHECK(c.cv == 0 && isnan(c.low) && isnan(c.high) && c.reason == TTA_ONE_VALUE && c.why != NULL);
    c = tta_cv_bootstrap(x, 0, 500, 0.05, 1);
    CHECK(isnan(c.cv) && c.reason == TTA_NO_VALUES);
    double zero_mean[] = {-1, 1};
    c = tta_cv_bootstrap(zero_mean, 2, 500, 0.05, 1);
    CHECK(isnan(c.cv) && c.reason == TTA_ZERO_MEAN);
    c = tta_cv_bootstrap(x, 8, 500, 1.5, 1);
    CHECK(isnan(c.low) && c.reason == TTA_BAD_ARGUMENT);
}

TEST(ratio_interval_matches_replica) {
    double a[] = {100, 104, 98, 110, 95}, b[] = {90, 93, 91, 97, 88, 92};
    double lo, hi;
    CHECK(tta_ratio_ci(a, 5, b, 6, 2000, 0.05, 7, &lo, &hi) == TTA_REASON_NONE);
    CHECK_REL(lo, 1.0499932915921288, 1e-12);
    CHECK_REL(hi, 1.1629764065335753, 1e-12);
    CHECK(tta_ratio_ci(a, 5, b, 0, 2000, 0.05, 7, &lo, &hi) == TTA_NO_VALUES);
    CHECK(isnan(lo) && isnan(hi));
    double zeros[] = {0, 0};
    CHECK(tta_ratio_ci(a, 5, zeros, 2, 100, 0.05, 7, &lo, &hi) == TTA_ZERO_MEAN);
    CHECK(tta_ratio_ci(a, 5, b, 6, 100, 0, 7, &lo, &hi) == TTA_BAD_ARGUMENT);
}

int main(void) {
    RUN(cv_interval_matches_replica);
    RUN(cv_interval_edges);
    RUN(ratio_interval_matches_replica);
    return test_summary();
}
