/* algoperf.c: AlgoPerf's scoring as its official code computes it (stats.h; docs/algoperf.md): time to
 * target per trial, study and workload, the held-out and 4x rules, performance ratios, profiles and the
 * benchmark score. The arithmetic follows scoring/performance_profile.py step by step (numpy's
 * linspace, median and trapz) so that the published scores come out to the last printed digit. */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "stats/stats.h"

long tta_algoperf_first_hit(const double *value, size_t n, double target, int minimize) {
    assert(value || n == 0);
    for (size_t i = 0; i < n; i++)
        if (minimize ? value[i] <= target : value[i] >= target) return (long)i; /* NAN compares false */
    return -1;
}

double tta_algoperf_study_time(const long *hit, const double *time, size_t n, long *trial) {
    assert((hit && time) || n == 0);
    long best = -1;
    for (size_t i = 0; i < n; i++)
        if (hit[i] >= 0 && (best < 0 || hit[i] < hit[best])) best = (long)i;
    if (trial) *trial = best;
    return best < 0 ? INFINITY : time[best];
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double tta_algoperf_median(const double *x, size_t n) {
    assert(x || n == 0);
    if (n == 0) return NAN;
    for (size_t i = 0; i < n; i++)
        if (isnan(x[i])) return NAN;
    double *v = mallocCheck(n * sizeof *v);
    memcpy(v, x, n * sizeof *v);
    qsort(v, n, sizeof *v, cmp_double);
    double m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0; /* inf + x = inf, as numpy's mean */
    free(v);
    return m;
}

/* The smallest non-NAN value of column w (pandas' min skips NAN); NAN when there is none. */
static double column_min(const double *t, size_t n_sub, size_t n_work, size_t w) {
    double m = NAN;
    for (size_t s = 0; s < n_sub; s++) {
        double v = t[s * n_work + w];
        if (!isnan(v) && (isnan(m) || v < m)) m = v;
    }
    return m;
}

void tta_algoperf_ratios(const double *t, const int *base_of, size_t n_sub, size_t n_work, double max_ratio,
                         double *ratio, double *scored) {
    assert((t && base_of && ratio) || n_sub * n_work == 0);
    size_t cells = n_sub * n_work;
    double *d = mallocCheck((cells ? cells : 1) * sizeof *d);
    if (cells) memcpy(d, t, cells * sizeof *d);
    /* 1. a held-out time counts only where its base workload was reached */
    for (size_t s = 0; s < n_sub; s++)
        for (size_t w = 0; w < n_work; w++) {
            if (base_of[w] < 0) continue;
            double base = d[s * n_work + (size_t)base_of[w]];
            if (isinf(base) || isnan(base)) d[s * n_work + w] = INFINITY;
        }
    /* 2. a time above max_ratio times the workload's best is a miss (the best taken before any is changed) */
    double *best = mallocCheck((n_work ? n_work : 1) * sizeof *best);
    for (size_t w = 0; w < n_work; w++) best[w] = column_min(d, n_sub, n_work, w);
    for (size_t s = 0; s < n_sub; s++)
        for (size_t w = 0; w < n_work; w++)
            if (d[s * n_work + w] > max_ratio * best[w]) d[s * n_work + w] = INFINITY;
    /* 3. a base time counts only where each of its held-out workloads was reached */
    for (size_t s = 0; s < n_sub; s++)
        for (size_t w = 0; w < n_work; w++) {
            if (base_of[w] < 0) continue;
            double held = d[s * n_work + w];
            if (isinf(held) || isnan(held)) d[s * n_work + (size_t)base_of[w]] = INFINITY;
        }
    if (scored && cells) memcpy(scored, d, cells * sizeof *d);
    /* 4. divided by the best of each base workload; pandas' update keeps a cell whose quotient is NAN
     * (inf / inf where nobody reached the workload) */
    for (size_t w = 0; w < n_work; w++) {
        double m = base_of[w] < 0 ? column_min(d, n_sub, n_work, w) : NAN;
        for (size_t s = 0; s < n_sub; s++) {
            double v = d[s * n_work + w];
            if (base_of[w] >= 0) {
                ratio[s * n_work + w] = NAN;
                continue;
            }
            double q = v / m;
            ratio[s * n_work + w] = isnan(q) ? v : q;
        }
    }
    free(best);
    free(d);
}

void tta_algoperf_taus(double lo, double hi, size_t n, double *tau) {
    assert(tau && n >= 2);
    double step = (hi - lo) / (double)(n - 1);
    for (size_t i = 0; i < n; i++) tau[i] = (double)i * step + lo;
    tau[n - 1] = hi;
}

void tta_algoperf_profile(const double *ratio, size_t n_work, size_t n_base, const double *tau, size_t n_tau,
                          double *rho) {
    assert((ratio || n_work == 0) && (tau || n_tau == 0) && (rho || n_tau == 0));
    for (size_t k = 0; k < n_tau; k++) {
        size_t c = 0;
        for (size_t w = 0; w < n_work; w++) c += ratio[w] <= tau[k]; /* NAN and INFINITY: no */
        rho[k] = n_base ? (double)c / (double)n_base : NAN;
    }
}

double tta_algoperf_score(const double *tau, const double *rho, size_t n_tau) {
    assert((tau && rho) || n_tau == 0);
    if (n_tau < 2) return NAN;
    double area = 0;
    for (size_t k = 0; k + 1 < n_tau; k++) area += (tau[k + 1] - tau[k]) * (rho[k + 1] + rho[k]) / 2.0;
    return area / (tau[n_tau - 1] - tau[0]);
}
