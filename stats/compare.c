/* compare.c: are two entries' TTAs different? Welch's t-test, Mann–Whitney U, a bootstrap CI of
 * the ratio of means, and the runs a test would need. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "common/check.h"
#include "stats/stats.h"

tta_welch tta_welch_test(const double *a, size_t na, const double *b, size_t nb) {
    gsl_set_error_handler_off();
    tta_welch w = {NAN, NAN, NAN};
    if (na < 2 || nb < 2) return w;
    double ma = gsl_stats_mean(a, 1, na), mb = gsl_stats_mean(b, 1, nb);
    double va = gsl_stats_variance_m(a, 1, na, ma) / (double)na;
    double vb = gsl_stats_variance_m(b, 1, nb, mb) / (double)nb;
    if (va + vb <= 0) return w;
    w.t = (ma - mb) / sqrt(va + vb);
    w.df = (va + vb) * (va + vb) / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
    w.p = 2.0 * gsl_cdf_tdist_Q(fabs(w.t), w.df);
    if (w.p > 1) w.p = 1;
    return w;
}

typedef struct {
    double v;
    int group;
} ranked;

static int compare_ranked(const void *x, const void *y) {
    double a = ((const ranked *)x)->v, b = ((const ranked *)y)->v;
    return (a > b) - (a < b);
}

/* P(U <= u) under H0 for sample sizes m, n without ties: counts of arrangements by U
 * (f(m, n, u) = f(m-1, n, u-n) + f(m, n-1, u)), in doubles. */
static double mwu_cdf_exact(size_t m, size_t n, double u) {
    size_t umax = m * n;
    /* cnt[j][k]: arrangements of i of group a and j of group b with U = k, for the current i */
    double *prev = callocCheck((n + 1) * (umax + 1), sizeof *prev);
    double *cur = callocCheck((n + 1) * (umax + 1), sizeof *cur);
    for (size_t j = 0; j <= n; j++) prev[j * (umax + 1)] = 1; /* i = 0: U = 0 */
    for (size_t i = 1; i <= m; i++) {
        memset(cur, 0, (n + 1) * (umax + 1) * sizeof *cur);
        for (size_t j = 0; j <= n; j++)
            for (size_t k = 0; k <= i * j; k++) {
                /* the largest value is from a (U gains j) or from b */
                double v = 0;
                if (k >= j) v += prev[j * (umax + 1) + (k - j)];
                if (j > 0) v += cur[(j - 1) * (umax + 1) + k];
                cur[j * (umax + 1) + k] = v;
            }
        double *t = prev;
        prev = cur;
        cur = t;
    }
    double total = 0, below = 0;
    for (size_t k = 0; k <= umax; k++) {
        double c = prev[n * (umax + 1) + k];
        total += c;
        if ((double)k <= u + 1e-9) below += c;
    }
    free(prev);
    free(cur);
    return below / total;
}

tta_mwu tta_mann_whitney(const double *a, size_t na, const double *b, size_t nb) {
    gsl_set_error_handler_off();
    tta_mwu r = {NAN, NAN, 0};
    if (na == 0 || nb == 0) return r;
    size_t n = na + nb;
    ranked *v = mallocCheck(n * sizeof *v);
    for (size_t i = 0; i < na; i++) v[i] = (ranked){a[i], 0};
    for (size_t i = 0; i < nb; i++) v[na + i] = (ranked){b[i], 1};
    qsort(v, n, sizeof *v, compare_ranked);
    double rank_sum_a = 0, tie_term = 0;
    int ties = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && v[j + 1].v == v[i].v) j++;
        double avg = (double)(i + j) / 2.0 + 1.0;
        double t = (double)(j - i + 1);
        if (t > 1) {
            ties = 1;
            tie_term += t * t * t - t;
        }
        for (size_t k = i; k <= j; k++)
            if (v[k].group == 0) rank_sum_a += avg;
        i = j + 1;
    }
    free(v);
    r.u = rank_sum_a - (double)na * (double)(na + 1) / 2.0;
    double mu = (double)na * (double)nb / 2.0;
    if (!ties && na <= 50 && nb <= 50) {
        r.exact = 1;
        /* two-sided: twice the smaller tail (as scipy's method='exact') */
        double lower = mwu_cdf_exact(na, nb, r.u);
        double upper = 1.0 - mwu_cdf_exact(na, nb, r.u - 1);
        double p = 2.0 * (lower < upper ? lower : upper);
        r.p = p > 1 ? 1 : p;
        return r;
    }
    double nn = (double)n;
    double sigma = sqrt((double)na * (double)nb / 12.0 * ((nn + 1) - tie_term / (nn * (nn - 1))));
    if (sigma <= 0) {
        r.p = 1;
        return r;
    }
    double z = (fabs(r.u - mu) - 0.5) / sigma;
    if (z < 0) z = 0;
    r.p = 2.0 * gsl_cdf_ugaussian_Q(z);
    if (r.p > 1) r.p = 1;
    return r;
}

void tta_ratio_ci(const double *a, size_t na, const double *b, size_t nb, size_t resamples, double alpha,
                  unsigned long seed, double *low, double *high) {
    gsl_set_error_handler_off();
    *low = *high = NAN;
    if (na == 0 || nb == 0 || resamples < 10) return;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!rng) return;
    gsl_rng_set(rng, seed);
    double *ratios = mallocCheck(resamples * sizeof *ratios);
    size_t kept = 0;
    for (size_t r = 0; r < resamples; r++) {
        double sa = 0, sb = 0;
        for (size_t i = 0; i < na; i++) sa += a[gsl_rng_uniform_int(rng, na)];
        for (size_t i = 0; i < nb; i++) sb += b[gsl_rng_uniform_int(rng, nb)];
        if (sb != 0) ratios[kept++] = (sa / (double)na) / (sb / (double)nb);
    }
    if (kept) {
        gsl_sort(ratios, 1, kept);
        *low = gsl_stats_quantile_from_sorted_data(ratios, 1, kept, alpha / 2);
        *high = gsl_stats_quantile_from_sorted_data(ratios, 1, kept, 1 - alpha / 2);
    }
    free(ratios);
    gsl_rng_free(rng);
}

double tta_runs_needed(double mean, double sd, double rel_diff, double alpha, double power) {
    gsl_set_error_handler_off();
    if (!(mean > 0) || !(sd > 0) || !(rel_diff > 0)) return NAN;
    double effect = rel_diff * mean / sd;
    double n = 2.0 * pow((gsl_cdf_ugaussian_Pinv(1 - alpha / 2) + gsl_cdf_ugaussian_Pinv(power)) / effect, 2);
    for (int it = 0; it < 50; it++) {
        double df = 2.0 * n - 2.0;
        if (df < 1) df = 1;
        double next = 2.0 * pow((gsl_cdf_tdist_Pinv(1 - alpha / 2, df) + gsl_cdf_tdist_Pinv(power, df)) / effect, 2);
        if (fabs(next - n) < 1e-6) {
            n = next;
            break;
        }
        n = next;
    }
    n = ceil(n - 1e-9);
    return n < 2 ? 2 : n;
}
