/* summary.h: what the reports need to know of an entry, computed once (internal to reports/). */
#ifndef TTA_REPORTS_SUMMARY_H
#define TTA_REPORTS_SUMMARY_H

#include "reports/dataset.h"
#include "stats/stats.h"

/* The unit in which an entry's progress is decomposed, from its benchmark's rule (e->unit,
 * e->train_set_size): epochs where progress counts epochs, or counts samples that the rules'
 * training-set size turns into epochs; else millions of samples or tokens ("million_samples",
 * "million_tokens"), or the rule's unit as counted ("steps"). One unit per entry: its runs are
 * never mixed. */
typedef struct {
    int epochs;       /* 1: the unit is epochs */
    double divisor;   /* progress / divisor = progress in this unit: 1, the training-set size or 1e6 */
    char key[40];     /* for scripts: "epochs", "million_samples", "steps" */
    char label[24];   /* for people: "ep", "Msamples", "steps" */
} tta_progress_scale;

tta_progress_scale tta_entry_progress_scale(const tta_entry_data *e);

/* Do a and b count progress in one unit? */
int tta_progress_scale_same(const tta_progress_scale *a, const tta_progress_scale *b);

/* Why run r (of entry e) has no progress in the decomposition's unit, or NULL when it has one:
 * not converged (or not logged), or a sample count below the run's global batch size, which is
 * no sample count (v2.1 logs whose evaluations carry epoch_num 1 where the rules read samples). */
const char *tta_run_progress_problem(const tta_entry_data *e, const tta_run_data *r);
extern const char tta_below_batch_why[]; /* the second of those reasons */

typedef struct {
    const tta_entry_data *entry;
    size_t runs, succeeded, reached;
    size_t time_suspect;    /* successful runs whose duration a flag says cannot be trusted (run_facts) */
    size_t counted;         /* successful runs in tta's own statistics (mean, CV, decomposition):
                               succeeded - time_suspect */
    double cv_with_suspect; /* the CV with the time_suspect runs counted; NAN when there are none */
    tta_score score;        /* official score in seconds before the scaling factor (MLPerf rounds only;
                               NAN otherwise): the olympic mean of the run times */
    double scaling_factor;  /* scaling.json beside the result files (RCP normalisation); 1 when none */
    double published_s;     /* the score MLCommons publishes: score x scaling_factor; NAN when none */
    int weak;               /* 1: an MLPerf HPC weak-scaling entry: score is its time_to_train_all (the
                               summarizer's weak score, in seconds), weak_score the rest of it */
    tta_weak_score weak_score; /* time_all in seconds, models_per_time per second; only when weak */
    size_t unreadable_runs; /* runs with a record the parser could not read: dropped from the score */
    size_t not_compliant_runs; /* runs whose log fails MLCommons' compliance checks: dropped from the score */
    size_t unread_logs;        /* result logs beside the runs' that hold no run (entry's unread_logs): each
                                  counted as a dropped run in the score, as MLCommons' summarizer counts it */
    double score_s;         /* score, else the mean TTA of the successful runs (DAWNBench, replays); NAN for
                               a weak-scaling entry */
    double tta_mean_s;      /* mean TTA of the successful runs, time_suspect ones left out */
    tta_progress_scale unit; /* of dec */
    tta_decomposition dec;  /* TTA = progress x time per unit of progress, progress in `unit` (the
                               struct's epochs_* fields hold it, its tpe_* the time per unit) */
    size_t no_progress;     /* successful runs left out of dec: progress not converged or not logged */
    size_t below_batch;     /* ... and those whose sample count is below one global batch */
    size_t success_unmet;   /* runs whose log says success although the last evaluation misses the target */
    double batch;           /* global batch size of the first run that logged one; NAN */
    tta_cv_ci cv;           /* CV of the successful runs' TTA with its bootstrap interval (time_suspect
                               ones left out) */
} tta_entry_summary;

/* Did the run succeed (run_facts.succeeded: its run_stop status says so, or, for logs whose
 * run_stop carries no status (v0.5 NVIDIA, Alibaba v0.6), its last evaluation meets the target;
 * and it has a duration)? */
int tta_run_succeeded(const tta_run_data *r);

/* Summarises e (its runs must be loaded); the CV's bootstrap interval (2000 resamples) only
 * when with_cv_ci, else cv.low/high are NAN. */
void tta_summarize_entry(const tta_entry_data *e, tta_entry_summary *s, int with_cv_ci);

/* 1 when the entry is from an MLPerf round (official scores apply). */
int tta_entry_is_mlperf(const tta_entry_data *e);

/* 1 when the entry is a study set of an AlgoPerf leaderboard (round "algoperf-v0.5"; db/algoperf_runs.c). */
int tta_entry_is_algoperf(const tta_entry_data *e);

/* The score an entry is ranked by, in seconds: the published score for an MLPerf round, else the
 * mean TTA of the successful runs (DAWNBench ranks an entry by its time to the threshold); NAN
 * when it has none, and for an MLPerf HPC weak-scaling entry (its time to train every instance is
 * no time to train one model: the results table and tta report variance show it), and for an AlgoPerf
 * entry (its mean over the studies that reached the target is no AlgoPerf time: a miss counts, and
 * tta report algoperf ranks by the median over studies and the profiles). */
double tta_entry_rank_score_s(const tta_entry_summary *s);

/* Accelerator-minutes of an entry: its accelerators x its rank score in minutes; NAN when the
 * score is unknown or the entry has no accelerator (CPU only) or an unknown count. */
double tta_entry_accelerator_minutes(const tta_entry_summary *s);

/* Cost to accuracy in US dollars, as DAWNBench ranks it: the cost per hour its description gives x
 * its rank score in hours; NAN when either is unknown. */
double tta_entry_cost_usd(const tta_entry_summary *s);

#endif
