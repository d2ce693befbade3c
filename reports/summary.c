/* summary.c: per-entry figures shared by the variance, speedup and scaling reports. */
#include "reports/summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"

int tta_entry_is_mlperf(const tta_entry_data *e) { return e->round && e->round[0] == 'v'; }

int tta_run_succeeded(const tta_run_data *r) {
    if (isnan(r->tta_s) || !r->status) return 0;
    if (!strcmp(r->status, "success")) return 1;
    return !strcmp(r->status, "unknown") && r->reached == 1;
}

/* Seed of the CV bootstrap: fixed, so that a report is the same every time it is made. */
#define SUMMARY_BOOTSTRAP_SEED 20190613UL
#define SUMMARY_BOOTSTRAP_RESAMPLES 2000

void tta_summarize_entry(const tta_entry_data *e, tta_entry_summary *s, int with_cv_ci) {
    memset(s, 0, sizeof *s);
    s->entry = e;
    size_t n = e->n_runs;
    s->runs = n;
    double *times = mallocCheck((n ? n : 1) * sizeof *times);
    int *success = mallocCheck((n ? n : 1) * sizeof *success);
    double *ok = mallocCheck((n ? n : 1) * sizeof *ok);
    double *tta = mallocCheck((n ? n : 1) * sizeof *tta), *epochs = mallocCheck((n ? n : 1) * sizeof *epochs);
    s->batch = NAN;
    for (size_t i = 0; i < n; i++) {
        const tta_run_data *r = &e->runs[i];
        times[i] = r->tta_s;
        success[i] = tta_run_succeeded(r);
        s->reached += r->reached == 1;
        if (success[i]) ok[s->succeeded++] = r->tta_s;
        tta[i] = success[i] ? r->tta_s : NAN;
        epochs[i] = r->epochs;
        if (isnan(s->batch) && !isnan(r->global_batch_size)) s->batch = r->global_batch_size;
    }
    s->tta_mean_s = tta_mean(ok, s->succeeded);
    if (tta_entry_is_mlperf(e)) {
        s->score = tta_official_score(times, success, n, e->benchmark, e->round);
        s->score_s = s->score.score;
    } else {
        s->score = (tta_score){.score = NAN, .n_runs = n, .why = "no official score outside MLPerf rounds"};
        s->score_s = s->tta_mean_s;
    }
    /* The summarizer multiplies the olympic mean by the folder's scaling factor; the wall-clock
     * score (score_s) stays what the runs measured, for speedups. */
    s->scaling_factor = e->scaling_factor > 0 ? e->scaling_factor : 1.0;
    s->published_s = s->score.score * s->scaling_factor;
    s->dec = tta_decompose(tta, epochs, n);
    if (with_cv_ci)
        s->cv = tta_cv_bootstrap(ok, s->succeeded, SUMMARY_BOOTSTRAP_RESAMPLES, 0.05, SUMMARY_BOOTSTRAP_SEED);
    else
        s->cv = (tta_cv_ci){.cv = tta_cv(ok, s->succeeded), .low = NAN, .high = NAN};
    free(times);
    free(success);
    free(ok);
    free(tta);
    free(epochs);
}
