/* compare.c: are two entries' TTAs different? Welch's t-test and the Mann-Whitney U test. */
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_statistics_double.h>

#include "common/check.h"
#include "stats/stats.h"

/* Exact p-values up to this many runs per group (the count table has (m n + 1)(n + 1) doubles). */
#define MWU_EXACT_MAX 50

tta_welch tta_welch_test(const double *a, size_t na, const double *b, size_t nb) {
    gsl_set_error_handler_off();
    tta_welch w = {NAN, NAN, NAN, TTA_REASON_NONE, NULL};
    if (na < 2 || nb < 2) {
        w.reason = na == 0 || nb == 0 ? TTA_NO_VALUES : TTA_ONE_VALUE;
        w.why = tta_reason_text(w.reason);
        return w;
    }
    double ma = gsl_stats_mean(a, 1, na), mb = gsl_stats_mean(b, 1, nb);
    double va = gsl_stats_variance_m(a, 1, na, ma) / (double)na; /* squared standard errors */
    double vb = gsl_stats_variance_m(b, 1, nb, mb) / (double)nb;
    if (!(va + vb > 0)) {
        w.reason = TTA_IDENTICAL_VALUES;
        w.why = tta_reason_text(w.reason);
        return w;
    }
    w.t = (ma - mb) / sqrt(va + vb);
    /* Welch-Satterthwaite degrees of freedom. */
    w.df = (va + vb) * (va + vb) / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
    w.p = fmin(1.0, 2.0 * gsl_cdf_tdist_Q(fabs(w.t), w.df));
    return w;
}

typedef struct {
    double v;
    int group; /* 0: a, 1: b */
} ranked;

static int compare_ranked(const void *x, const void *y) {
    double a = ((const ranked *)x)->v, b = ((const ranked *)y)->v;
    return (a > b) - (a < b);
}

/* Number of orderings of m values of a and n of b (no ties) with each U = 0..m n, as a malloc'd
 * array of m n + 1 doubles: f(i, j, u) = f(i - 1, j, u - j) + f(i, j - 1, u), the largest value
 * coming from a (it beats all j values of b) or from b. */
static double *mwu_counts(size_t m, size_t n) {
    size_t width = m * n + 1;
    double *prev = callocCheck((n + 1) * width, sizeof *prev);
    double *cur = callocCheck((n + 1) * width, sizeof *cur);
    for (size_t j = 0; j <= n; j++) prev[j * width] = 1; /* no value of a: U = 0 */
    for (size_t i = 1; i <= m; i++) {
        for (size_t j = 0; j <= n; j++)
            for (size_t u = 0; u < width; u++) {
                double f = 0;
                if (u <= i * j) {
                    if (u >= j) f += prev[j * width + (u - j)];
                    if (j > 0) f += cur[(j - 1) * width + u];
                }
                cur[j * width + u] = f;
            }
        double *t = prev;
        prev = cur;
        cur = t;
    }
    double *counts = mallocCheck(width * sizeof *counts);
    for (size_t u = 0; u < width; u++) counts[u] = prev[n * width + u];
    free(prev);
    free(cur);
    return counts;
}

/* Two-sided exact p of U = u: twice the smaller tail (scipy's method='exact'). */
static double mwu_exact_p(size_t m, size_t n, double u) {
    double *counts = mwu_counts(m, n);
    double total = 0, lower = 0, upper = 0;
    for (size_t k = 0; k <= m * n; k++) {
        total += counts[k];
        if ((double)k <= u) lower += counts[k];
        if ((double)k >= u) upper += counts[k];
    }
    free(counts);
    return fmin(1.0, 2.0 * fmin(lower, upper) / total);
}

tta_mwu tta_mann_whitney(const double *a, size_t na, const double *b, size_t nb) {
    gsl_set_error_handler_off();
    tta_mwu r = {NAN, NAN, 0, TTA_REASON_NONE, NULL};
    if (na == 0 || nb == 0) {
        r.reason = TTA_NO_VALUES;
        r.why = tta_reason_text(r.reason);
        return r;
    }
    size_t n = na + nb;
    ranked *v = mallocCheck(n * sizeof *v);
    for (size_t i = 0; i < na; i++) v[i] = (ranked){a[i], 0};
    for (size_t i = 0; i < nb; i++) v[na + i] = (ranked){b[i], 1};
    qsort(v, n, sizeof *v, compare_ranked);
    double rank_sum_a = 0, tie_term = 0; /* tie_term: sum of t^3 - t over groups of t ties */
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && v[j + 1].v == v[i].v) j++;
        double avg_rank = (double)(i + j) / 2.0 + 1.0, t = (double)(j - i + 1);
        tie_term += t * t * t - t;
        for (size_t k = i; k <= j; k++)
            if (v[k].group == 0) rank_sum_a += avg_rank;
        i = j + 1;
    }
    free(v);
    r.u = rank_sum_a - (double)na * (double)(na + 1) / 2.0;
    if (tie_term == 0 && na <= MWU_EXACT_MAX && nb <= MWU_EXACT_MAX) {
        r.exact = 1;
        r.p = mwu_exact_p(na, nb, r.u);
        return r;
    }
    /* Normal approximation, as scipy's method='asymptotic' with use_continuity=True. */
    double nn = (double)n, mu = (double)na * (double)nb / 2.0;
    double sigma = sqrt((double)na * (double)nb / 12.0 * ((nn + 1) - tie_term / (nn * (nn - 1))));
    if (!(sigma > 0)) { /* every value tied: no evidence of a difference */
        r.p = 1;
        return r;
    }
    double z = (fabs(r.u - mu) - 0.5) / sigma;
    r.p = fmin(1.0, 2.0 * gsl_cdf_ugaussian_Q(z));
    return r;
}
