/* scaling.c: throughput speedup against TTA speedup, and efficiency against linear scaling. */
#include <assert.h>
#include <math.h>

#include "stats/stats.h"

static int positive(double x) { return x > 0; } /* false for NAN */

/* Ratio base / x of two positive numbers; NAN otherwise. */
static double speedup_ratio(double base, double x) { return positive(base) && positive(x) ? base / x : NAN; }

tta_speedup tta_speedup_of(double base_tpe, double base_score, double tpe, double score) {
    tta_speedup s = {speedup_ratio(base_tpe, tpe), speedup_ratio(base_score, score), NAN};
    if (!isnan(s.throughput_speedup) && !isnan(s.tta_speedup)) s.gap = s.throughput_speedup / s.tta_speedup;
    return s;
}

double tta_scaling_efficiency(double speedup, double base_acc, double acc) {
    if (isnan(speedup) || !positive(base_acc) || !positive(acc)) return NAN;
    return speedup / (acc / base_acc);
}

/* The point with the fewest accelerators; ties go to the smaller TTA (a NAN TTA loses). */
static long series_base(const double *acc, const double *tta, size_t n) {
    long base = -1;
    for (size_t i = 0; i < n; i++) {
        if (!positive(acc[i])) continue;
        if (base < 0 || acc[i] < acc[base] ||
            (acc[i] == acc[base] && (isnan(tta[base]) ? !isnan(tta[i]) : tta[i] < tta[base])))
            base = (long)i;
    }
    return base;
}

long tta_scaling_series(const double *acc, const double *tpe, const double *tta, size_t n, tta_scaling_point *out) {
    assert(n == 0 || (acc && tpe && tta && out));
    long base = series_base(acc, tta, n);
    for (size_t i = 0; i < n; i++) {
        out[i] = (tta_scaling_point){NAN, NAN, NAN, NAN, NAN};
        if (base < 0) continue;
        if (positive(acc[i])) out[i].acc_ratio = acc[i] / acc[base];
        out[i].speedup_tpe = speedup_ratio(tpe[base], tpe[i]);
        out[i].speedup_tta = speedup_ratio(tta[base], tta[i]);
        out[i].efficiency_tpe = tta_scaling_efficiency(out[i].speedup_tpe, acc[base], acc[i]);
        out[i].efficiency_tta = tta_scaling_efficiency(out[i].speedup_tta, acc[base], acc[i]);
    }
    return base;
}
