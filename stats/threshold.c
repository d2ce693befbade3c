/* threshold.c: threshold sensitivity: when a run's evaluation curve first meets each of several
 * quality thresholds (with the same 1e-6 relative tolerance as the target check). */
#include <assert.h>
#include <math.h>

#include "stats/stats.h"

long tta_first_meeting(const double *quality, size_t n, double threshold, int higher_is_better) {
    for (size_t i = 0; i < n; i++)
        if (tta_meets_target(quality[i], threshold, higher_is_better)) return (long)i;
    return -1;
}

/* out[h]: time and epoch of the first evaluation meeting thresholds[h]; NAN when never reached. */
void tta_threshold_crossings(const double *time, const double *epoch, const double *quality, size_t n,
                             const double *thresholds, size_t n_thresholds, int higher_is_better,
                             tta_crossing *out) {
    assert((n == 0 || (time && quality)) && (n_thresholds == 0 || (thresholds && out)));
    for (size_t h = 0; h < n_thresholds; h++) {
        long at = tta_first_meeting(quality, n, thresholds[h], higher_is_better);
        out[h] = (tta_crossing){.index = at, .time = NAN, .epoch = NAN};
        if (at < 0) continue;
        out[h].time = time[at];
        if (epoch) out[h].epoch = epoch[at];
    }
}
