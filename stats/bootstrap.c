/* bootstrap.c: percentile-bootstrap confidence intervals: the CV of one sample, the ratio of the
 * means of two. Resamples come from a gsl_rng mt19937 seeded by the caller: deterministic. */
#include <assert.h>
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "common/check.h"
#include "stats/stats.h"

/* The alpha/2 and 1 - alpha/2 quantiles of stat[0..n) (sorted in place), interpolating linearly
 * between order statistics as numpy.percentile does by default. */
static void percentile_interval(double *stat, size_t n, double alpha, double *low, double *high) {
    assert(n > 0);
    gsl_sort(stat, 1, n);
    *low = gsl_stats_quantile_from_sorted_data(stat, 1, n, alpha / 2);
    *high = gsl_stats_quantile_from_sorted_data(stat, 1, n, 1 - alpha / 2);
}

/* A mt19937 generator seeded with seed; NULL when GSL cannot allocate it. */
static gsl_rng *seeded_rng(unsigned long seed) {
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (rng) gsl_rng_set(rng, seed);
    return rng;
}

static int valid_alpha(double alpha) { return alpha > 0 && alpha < 1; }

/* CV of x with its percentile-bootstrap interval. */
tta_cv_ci tta_cv_bootstrap(const double *x, size_t n, size_t resamples, double alpha, unsigned long seed) {
    gsl_set_error_handler_off();
    tta_cv_ci r = {.cv = tta_cv(x, n), .low = NAN, .high = NAN};
    if (resamples == 0) resamples = TTA_BOOTSTRAP_RESAMPLES;
    if (n == 0)
        r.reason = TTA_NO_VALUES;
    else if (n == 1)
        r.reason = TTA_ONE_VALUE;
    else if (isnan(r.cv))
        r.reason = TTA_ZERO_MEAN;
    else if (!valid_alpha(alpha))
        r.reason = TTA_BAD_ARGUMENT;
    if (r.reason != TTA_REASON_NONE) {
        r.why = tta_reason_text(r.reason);
        return r;
    }
    gsl_rng *rng = seeded_rng(seed);
    if (!rng) {
        r.reason = TTA_NUMERICAL_ERROR;
        r.why = tta_reason_text(r.reason);
        return r;
    }
    double *sample = mallocCheck(n * sizeof *sample);
    double *cvs = mallocCheck(resamples * sizeof *cvs);
    size_t kept = 0;
    for (size_t b = 0; b < resamples; b++) {
        for (size_t i = 0; i < n; i++) sample[i] = x[gsl_rng_uniform_int(rng, n)];
        double c = tta_cv(sample, n);
        /* A resample's mean is 0 only when x mixes signs; such resamples have no CV. */
        if (!isnan(c)) cvs[kept++] = c;
    }
    r.resamples = kept;
    if (kept)
        percentile_interval(cvs, kept, alpha, &r.low, &r.high);
    else
        r.reason = TTA_ZERO_MEAN;
    r.why = tta_reason_text(r.reason);
    free(sample);
    free(cvs);
    gsl_rng_free(rng);
    return r;
}

/* Mean of n draws (with replacement) from x. */
static double resampled_mean(gsl_rng *rng, const double *x, size_t n) {
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += x[gsl_rng_uniform_int(rng, n)];
    return sum / (double)n;
}

/* Interval of mean(a) / mean(b): both groups resampled on their own in each round. */
tta_reason tta_ratio_ci(const double *a, size_t na, const double *b, size_t nb, size_t resamples, double alpha,
                        unsigned long seed, double *low, double *high) {
    gsl_set_error_handler_off();
    assert(low && high && (na == 0 || a) && (nb == 0 || b));
    *low = *high = NAN;
    if (resamples == 0) resamples = TTA_BOOTSTRAP_RESAMPLES;
    if (na == 0 || nb == 0) return TTA_NO_VALUES;
    if (!valid_alpha(alpha)) return TTA_BAD_ARGUMENT;
    gsl_rng *rng = seeded_rng(seed);
    if (!rng) return TTA_NUMERICAL_ERROR;
    double *ratios = mallocCheck(resamples * sizeof *ratios);
    size_t kept = 0;
    for (size_t r = 0; r < resamples; r++) {
        double ma = resampled_mean(rng, a, na), mb = resampled_mean(rng, b, nb);
        if (mb != 0) ratios[kept++] = ma / mb;
    }
    tta_reason reason = TTA_REASON_NONE;
    if (kept)
        percentile_interval(ratios, kept, alpha, low, high);
    else
        reason = TTA_ZERO_MEAN;
    free(ratios);
    gsl_rng_free(rng);
    return reason;
}
