/* dataset.h: loading entries and their runs from the database for the reports (internal to
 * reports/). One query per table, no per-run queries: a whole round loads in milliseconds.
 *
 * Ownership: tta_entries_load allocates the array and everything it points to; release it
 * with tta_entries_free.
 */
#ifndef TTA_REPORTS_DATASET_H
#define TTA_REPORTS_DATASET_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "reports/reports.h"
#include "stats/stats.h"


typedef struct {
    double time_s;   /* seconds since run_start */
    double epoch;    /* epochs completed, from 1; NAN unknown */
    double samples;  /* NAN unknown */
    double quality;
    double quality2; /* NAN when none */
    int meets;       /* 1 / 0; -1 when the run has no target */
} tta_curve_point;

typedef struct {
    int64_t id;
    int run_index;      /* -1 when the file name has none */
    char *file;
    char *status;       /* success | aborted | unknown */
    int reached;        /* last evaluation meets the target: 1 / 0; -1 unknown (no evaluation or target) */
    double tta_s;       /* MLPerf: run_stop - run_start; DAWNBench: first epoch at threshold; NAN unknown */
    double progress;    /* the convergence point in the entry's unit: as MLCommons' RCP checker reads it
                           (rounds with one; NAN when the run did not converge), else the epoch of
                           the first evaluation meeting the target; NAN unknown */
    double epochs;      /* progress in epochs (samples / training-set size where the rules give one);
                           NAN when the target was not met, progress was not logged or epochs mean
                           nothing for the benchmark */
    int success_unmet;  /* 1: the log says success but its last evaluation misses the target (reached
                           0), or it has no evaluation of its quality against its known target (-1) */
    double last_quality; /* quality of the last evaluation; NAN when none */
    int unreadable_records;    /* records the parser could not read (the summarizer drops such a run) */
    int first_unreadable_line; /* the first of them; -1 when none */
    double samples_to_target; /* NAN unknown */
    double global_batch_size; /* NAN unknown */
    int has_seed;
    int64_t seed;
    tta_curve_point *curve; /* only when loaded with curves */
    size_t n_curve;
} tta_run_data;

typedef struct {
    int64_t id;
    char *round, *division, *submitter, *system, *benchmark;
    int accelerators;        /* -1 unknown */
    int nodes;               /* -1 unknown */
    char *accelerator_model; /* NULL unknown */
    char *metric;            /* NULL when no target is known */
    double target, target2;  /* NAN when none */
    int higher_is_better;
    char *unit;              /* "epochs" or "samples": what progress counts */
    char *ruleset;           /* the round's ruleset ("3.1.0"); NULL for rounds without rules */
    double train_set_size;   /* samples per epoch by the rules; NAN when none */
    double scaling_factor;   /* scaling.json beside the result files (RCP normalisation); 1 when none */
    double summary_score_min; /* the score a summary.json (the result summarizer's) gives the entry; NAN */
    double train_samples;    /* training-set size logged by the runs; NAN unknown */
    tta_run_data *runs;      /* ordered by run_index, then file */
    size_t n_runs;
} tta_entry_data;

/* Loads the entries matching f (ordered by round, division, submitter, system, benchmark) with
 * their runs, and each run's evaluation curve when with_curves. Returns SQLITE_OK, or an error
 * code with *err set (malloc'd). */
int tta_entries_load(sqlite3 *db, const tta_filter *f, int with_curves, tta_entry_data **out, size_t *n,
                     char **err);
void tta_entries_free(tta_entry_data *entries, size_t n);

/* "round/division/submitter/system/benchmark": a stable human name for an entry (malloc'd). */
char *tta_entry_name(const tta_entry_data *e);

/* The quality curve of an entry: per epoch, mean and std across its runs (curves loaded).
 * *out is malloc'd; returns the number of rows. */
size_t tta_entry_curve(const tta_entry_data *e, tta_curve_stat **out);

/* Loads the one entry spec names: an id from `tta ls entries`, or round/division/submitter/
 * system/benchmark. Returns 0, or 1 with *err ("no entry ..."). Free with tta_entries_free(e, 1). */
int tta_entry_load_named(sqlite3 *db, const char *spec, tta_entry_data **e, char **err);

#endif
