/* curves.c: quality curves across runs, and where a curve first meets a threshold. */
#include <math.h>
#include <stdlib.h>

#include "common/check.h"
#include "stats/stats.h"

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

size_t tta_quality_curve(const double *const *epochs, const double *const *quality, const size_t *n_points,
                         size_t n_runs, tta_curve_stat *out, size_t max_out) {
    /* The distinct epochs at which any run evaluated, in order. */
    size_t total = 0;
    for (size_t r = 0; r < n_runs; r++) total += n_points[r];
    double *all = mallocCheck((total ? total : 1) * sizeof *all);
    size_t k = 0;
    for (size_t r = 0; r < n_runs; r++)
        for (size_t i = 0; i < n_points[r]; i++)
            if (!isnan(epochs[r][i]) && !isnan(quality[r][i])) all[k++] = epochs[r][i];
    qsort(all, k, sizeof *all, compare_double);
    size_t n_out = 0;
    double *vals = mallocCheck((n_runs ? n_runs : 1) * sizeof *vals);
    for (size_t i = 0; i < k && n_out < max_out; i++) {
        if (i && all[i] == all[i - 1]) continue;
        double e = all[i];
        size_t n = 0;
        for (size_t r = 0; r < n_runs; r++) {
            /* a run's last evaluation at this epoch (ranks may repeat it) */
            double v = NAN;
            for (size_t j = 0; j < n_points[r]; j++)
                if (epochs[r][j] == e && !isnan(quality[r][j])) v = quality[r][j];
            if (!isnan(v)) vals[n++] = v;
        }
        out[n_out++] = (tta_curve_stat){e, tta_mean(vals, n), tta_std_population(vals, n), n};
    }
    free(vals);
    free(all);
    return n_out;
}

long tta_first_meeting(const double *quality, size_t n, double threshold, int higher_is_better) {
    for (size_t i = 0; i < n; i++)
        if (tta_meets_target(quality[i], threshold, higher_is_better)) return (long)i;
    return -1;
}
