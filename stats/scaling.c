/* scaling.c: throughput speedup against TTA speedup, and efficiency against linear scaling. */
#include <math.h>

#include "stats/stats.h"

static int positive(double x) { return !isnan(x) && x > 0; }

tta_speedup tta_speedup_of(double base_tpe, double base_score, double tpe, double score) {
    tta_speedup s = {NAN, NAN, NAN};
    if (positive(base_tpe) && positive(tpe)) s.throughput_speedup = base_tpe / tpe;
    if (positive(base_score) && positive(score)) s.tta_speedup = base_score / score;
    if (!isnan(s.throughput_speedup) && !isnan(s.tta_speedup)) s.gap = s.throughput_speedup / s.tta_speedup;
    return s;
}

double tta_scaling_efficiency(double speedup, double base_acc, double acc) {
    if (isnan(speedup) || !positive(base_acc) || !positive(acc)) return NAN;
    return speedup / (acc / base_acc);
}
