/* bootstrap.c: a percentile-bootstrap confidence interval for the coefficient of variation. */
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "common/check.h"
#include "stats/stats.h"

tta_cv_ci tta_cv_bootstrap(const double *x, size_t n, size_t resamples, double alpha, unsigned long seed) {
    gsl_set_error_handler_off();
    tta_cv_ci r = {.cv = tta_cv(x, n), .low = NAN, .high = NAN};
    if (n < 2) {
        r.why = "one run: no spread to measure";
        return r;
    }
    if (isnan(r.cv)) {
        r.why = "mean TTA is zero";
        return r;
    }
    if (resamples < 10 || !(alpha > 0 && alpha < 1)) {
        r.why = "bootstrap needs at least 10 resamples and 0 < alpha < 1";
        return r;
    }
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!rng) {
        r.why = "out of memory";
        return r;
    }
    gsl_rng_set(rng, seed);
    double *sample = mallocCheck(n * sizeof *sample);
    double *cvs = mallocCheck(resamples * sizeof *cvs);
    size_t kept = 0;
    for (size_t b = 0; b < resamples; b++) {
        for (size_t i = 0; i < n; i++) sample[i] = x[gsl_rng_uniform_int(rng, n)];
        double c = tta_cv(sample, n);
        if (!isnan(c)) cvs[kept++] = c;
    }
    if (kept) {
        gsl_sort(cvs, 1, kept);
        r.low = gsl_stats_quantile_from_sorted_data(cvs, 1, kept, alpha / 2);
        r.high = gsl_stats_quantile_from_sorted_data(cvs, 1, kept, 1 - alpha / 2);
    }
    free(sample);
    free(cvs);
    gsl_rng_free(rng);
    return r;
}
