/* curves.c: quality curves across runs: per epoch, the mean and spread of the runs evaluated there. */
#include <assert.h>
#include <math.h>
#include <stdlib.h>

#include "common/check.h"
#include "stats/stats.h"

typedef struct {
    double epoch, quality;
    size_t run, order; /* order: index of the point within its run */
} curve_point;

/* By epoch, then run, then position in the run. */
static int compare_points(const void *x, const void *y) {
    const curve_point *a = x, *b = y;
    if (a->epoch != b->epoch) return a->epoch < b->epoch ? -1 : 1;
    if (a->run != b->run) return a->run < b->run ? -1 : 1;
    return (a->order > b->order) - (a->order < b->order);
}

/* One row per distinct epoch: every run's last value there, averaged. */
size_t tta_quality_curve(const double *const *epochs, const double *const *quality, const size_t *n_points,
                         size_t n_runs, tta_curve_stat *out, size_t max_out) {
    assert(n_runs == 0 || (epochs && quality && n_points));
    assert(max_out == 0 || out);
    size_t total = 0;
    for (size_t r = 0; r < n_runs; r++) total += n_points[r];
    curve_point *pts = mallocCheck((total ? total : 1) * sizeof *pts);
    size_t k = 0;
    for (size_t r = 0; r < n_runs; r++)
        for (size_t i = 0; i < n_points[r]; i++)
            if (!isnan(epochs[r][i]) && !isnan(quality[r][i]))
                pts[k++] = (curve_point){epochs[r][i], quality[r][i], r, i};
    qsort(pts, k, sizeof *pts, compare_points);
    double *vals = mallocCheck((n_runs ? n_runs : 1) * sizeof *vals);
    size_t n_out = 0;
    for (size_t i = 0; i < k && n_out < max_out;) {
        size_t n = 0, j = i;
        for (; j < k && pts[j].epoch == pts[i].epoch; j++)
            /* the last point of each run at this epoch (runs sorted, points in order within) */
            if (j + 1 == k || pts[j + 1].epoch != pts[j].epoch || pts[j + 1].run != pts[j].run)
                vals[n++] = pts[j].quality;
        out[n_out++] = (tta_curve_stat){pts[i].epoch, tta_mean(vals, n), tta_std_population(vals, n), n};
        i = j;
    }
    free(vals);
    free(pts);
    return n_out;
}
