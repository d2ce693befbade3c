/* descriptive.c: means, standard deviations, CV, olympic means and target checks. */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "common/check.h"
#include "stats/stats.h"

/* Mean of x[0..n); NAN when n is 0. GSL's running mean (accurate for large offsets). */
double tta_mean(const double *x, size_t n) {
    if (n == 0) return NAN;
    return gsl_stats_mean(x, 1, n);
}

/* Population standard deviation (divides by n); NAN when n is 0, 0 for one value. */
double tta_std_population(const double *x, size_t n) {
    if (n == 0) return NAN;
    if (n == 1) return isnan(x[0]) ? NAN : 0.0;
    double m = gsl_stats_mean(x, 1, n);
    /* gsl_stats_variance_with_fixed_mean divides by n: the population variance. */
    return sqrt(gsl_stats_variance_with_fixed_mean(x, 1, n, m));
}

/* Sample standard deviation (divides by n - 1); NAN when n < 2. */
double tta_std_sample(const double *x, size_t n) {
    if (n < 2) return NAN;
    return gsl_stats_sd(x, 1, n);
}

/* Population std over |mean|; NAN when n is 0 or the mean is 0. */
double tta_cv(const double *x, size_t n) {
    double m = tta_mean(x, n);
    if (isnan(m) || m == 0) return NAN;
    return tta_std_population(x, n) / fabs(m);
}

/* All descriptives at once, with the reason for the first one missing. */
tta_summary tta_describe(const double *x, size_t n) {
    tta_summary s = {.n = n, .mean = tta_mean(x, n), .std = tta_std_population(x, n),
                     .std_sample = tta_std_sample(x, n), .cv = tta_cv(x, n)};
    if (n == 0)
        s.reason = TTA_NO_VALUES;
    else if (n == 1)
        s.reason = TTA_ONE_VALUE;
    else if (s.mean == 0)
        s.reason = TTA_ZERO_MEAN;
    s.why = tta_reason_text(s.reason);
    return s;
}

/* Mean of sorted(x)[drop_low : n - drop_high], summed left to right as the summarizer's Python
 * sum() does; NAN when the slice is empty or x holds a NAN (it would not sort). */
double tta_olympic_mean(const double *x, size_t n, size_t drop_low, size_t drop_high) {
    if (n <= drop_low || n - drop_low <= drop_high) return NAN;
    for (size_t i = 0; i < n; i++)
        if (isnan(x[i])) return NAN;
    double *sorted = mallocCheck(n * sizeof *sorted);
    memcpy(sorted, x, n * sizeof *sorted);
    gsl_sort(sorted, 1, n);
    double sum = 0;
    size_t end = n - drop_high;
    assert(drop_low < end);
    for (size_t i = drop_low; i < end; i++) sum += sorted[i];
    free(sorted);
    return sum / (double)(end - drop_low);
}

/* q meets t within TTA_TARGET_RTOL of |t|, in the metric's direction. */
int tta_meets_target(double q, double t, int higher_is_better) {
    if (isnan(q) || isnan(t)) return 0;
    double slack = TTA_TARGET_RTOL * fabs(t);
    return higher_is_better ? q >= t - slack : q <= t + slack;
}
