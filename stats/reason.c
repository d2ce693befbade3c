/* reason.c: why a statistic is missing, in words a report can print. */
#include "stats/stats.h"

const char *tta_reason_text(tta_reason reason) {
    switch (reason) {
    case TTA_REASON_NONE: return NULL;
    case TTA_NO_VALUES: return "no values";
    case TTA_ONE_VALUE: return "one value: no spread to measure";
    case TTA_ZERO_MEAN: return "mean is zero: CV undefined";
    case TTA_IDENTICAL_VALUES: return "no spread in the denominator: ratio undefined";
    case TTA_BAD_ARGUMENT: return "argument out of range";
    case TTA_TOO_MANY_FAILED: return "too many runs did not succeed for an official score";
    case TTA_TOO_FEW_RUNS: return "too few successful runs for an olympic mean";
    case TTA_FEWER_RUNS_THAN_REQUIRED: return "fewer runs than the rules require";
    case TTA_FEWER_CONVERGED_THAN_USED: return "fewer than the 50 converged runs the rules average";
    case TTA_NO_EPOCHS: return "no run reached the target with its epochs logged";
    case TTA_NO_VARIANCE: return "TTA identical in every run: no variance to decompose";
    case TTA_NUMERICAL_ERROR: return "a numerical routine failed";
    }
    return "unknown reason";
}

int tta_reason_is_warning(tta_reason reason) {
    return reason == TTA_FEWER_RUNS_THAN_REQUIRED || reason == TTA_FEWER_CONVERGED_THAN_USED;
}
