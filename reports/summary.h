/* summary.h: what the reports need to know of an entry, computed once (internal to reports/). */
#ifndef TTA_REPORTS_SUMMARY_H
#define TTA_REPORTS_SUMMARY_H

#include "reports/dataset.h"
#include "stats/stats.h"

typedef struct {
    const tta_entry_data *entry;
    size_t runs, succeeded, reached;
    tta_score score;        /* official score in seconds before the scaling factor (MLPerf rounds only;
                               NAN otherwise): the olympic mean of the run times */
    double scaling_factor;  /* scaling.json beside the result files (RCP normalisation); 1 when none */
    double published_s;     /* the score MLCommons publishes: score x scaling_factor; NAN when none */
    double score_s;         /* score, else the mean TTA of the successful runs (DAWNBench, replays) */
    double tta_mean_s;      /* mean TTA of the successful runs */
    tta_decomposition dec;  /* epochs and time per epoch */
    double batch;           /* global batch size of the first run that logged one; NAN */
    tta_cv_ci cv;           /* CV of the successful runs' TTA with its bootstrap interval */
} tta_entry_summary;

/* Did the run succeed? Its run_stop status says so, or, for logs whose run_stop carries no
 * status (v0.5 NVIDIA, Alibaba v0.6), its last evaluation meets the target. */
int tta_run_succeeded(const tta_run_data *r);

/* Summarises e (its runs must be loaded); the CV's bootstrap interval (2000 resamples) only
 * when with_cv_ci, else cv.low/high are NAN. */
void tta_summarize_entry(const tta_entry_data *e, tta_entry_summary *s, int with_cv_ci);

/* 1 when the entry is from an MLPerf round (official scores apply). */
int tta_entry_is_mlperf(const tta_entry_data *e);

#endif
