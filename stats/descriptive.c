/* descriptive.c: means, standard deviations, CV, target checks. */
#include <math.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_statistics_double.h>

#include "stats/stats.h"

double tta_mean(const double *x, size_t n) {
    if (n == 0) return NAN;
    return gsl_stats_mean(x, 1, n);
}

double tta_std_population(const double *x, size_t n) {
    if (n == 0) return NAN;
    if (n == 1) return 0.0;
    double m = gsl_stats_mean(x, 1, n);
    /* gsl_stats_variance_with_fixed_mean divides by n: the population variance. */
    return sqrt(gsl_stats_variance_with_fixed_mean(x, 1, n, m));
}

double tta_std_sample(const double *x, size_t n) {
    if (n < 2) return NAN;
    return gsl_stats_sd(x, 1, n);
}

double tta_cv(const double *x, size_t n) {
    double m = tta_mean(x, n);
    if (isnan(m) || m == 0) return NAN;
    return tta_std_population(x, n) / fabs(m);
}

int tta_meets_target(double q, double t, int higher_is_better) {
    if (isnan(q) || isnan(t)) return 0;
    return higher_is_better ? q >= t - 1e-6 * fabs(t) : q <= t + 1e-6 * fabs(t);
}
