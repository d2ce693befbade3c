/* verify.h: `tta verify`'s report: a claim (an ingested entry with per-epoch evaluations, such as a
 * DAWNBench entry) beside its replays on this machine, measure by measure, with Welch's test of
 * each difference (stats/). cli/cmd_verify.c runs the replays; this module only compares and writes.
 *
 * Ownership: plain values; the caller owns every string it passes.
 */
#ifndef TTA_REPORTS_VERIFY_H
#define TTA_REPORTS_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "reports/dataset.h"

#define TTA_VERIFY_MAX_RUNS 64

/* One measure over the runs of a side: the runs' values (NAN: the run has none). */
typedef struct {
    double v[TTA_VERIFY_MAX_RUNS];
    size_t n;
} tta_verify_sample;

/* A side of the comparison (the claim, or the replays). Accuracies are fractions. */
typedef struct {
    int runs, reached;                 /* runs, and those whose validation accuracy met the threshold */
    tta_verify_sample epochs;          /* epochs to the threshold (first meeting epoch), reached runs */
    tta_verify_sample tta_s;           /* seconds to the end of that epoch's evaluation, reached runs */
    tta_verify_sample s_per_epoch;     /* wall seconds per epoch (training + evaluation) */
    tta_verify_sample val;             /* validation accuracy at the compared epoch */
    tta_verify_sample unseen, shifted; /* at the run's last epoch; empty when the side has none */
    tta_verify_sample gap;             /* validation - unseen accuracy, at the run's last epoch */
    int last_epoch;                    /* the largest epoch a run of this side reached (claim: its schedule) */
} tta_verify_side;

/* Appends x to s when it is a number (NAN is not a value; more than TTA_VERIFY_MAX_RUNS are dropped). */
void tta_verify_add(tta_verify_sample *s, double x);

/* The claim side from an ingested entry loaded with its curves (tta_entries_load(..., 1, ...)):
 * per run, the first evaluation at or above threshold (a fraction; the entry's evaluations may be
 * percentages, as DAWNBench's top1Accuracy: they are scaled when the entry's target is > 1) gives
 * epochs and TTA; validation accuracy is taken at epoch at_epoch (0: the run's last epoch; -1: the
 * run's first epoch at the threshold, i.e. where an MLPerf run stops; a run without an evaluation
 * there has none), seconds per epoch as the time of that evaluation
 * over its epoch; unseen accuracy is the run's hyperparameter "unseenAccuracy" (DAWNBench's
 * misc.unseenAccuracy, percent or fraction), measured at the run's last epoch, and gap is the last
 * epoch's validation accuracy minus it, whatever at_epoch. Returns 0, or 1 with *err (malloc'd). */
int tta_verify_claim_side(sqlite3 *db, const tta_entry_data *e, double threshold, int at_epoch,
                          tta_verify_side *out, char **err);

/* What the report says about how the two sides were run. */
typedef struct {
    int64_t claim_entry_id, replay_entry_id; /* replay_entry_id < 0: the replays were not stored */
    const char *claim_name, *replay_name;    /* replay_name may be NULL */
    double threshold;                        /* fraction */
    int stop_at_target;                      /* 1: replays stopped at the target (MLPerf); 0: ran the schedule */
    int compared_epoch;                      /* schedule mode: the epoch accuracies are compared at */
    int schedule_epochs;                     /* the claim's schedule, in epochs */
    int epoch_cap;                           /* 0: none; else the replays (and the comparison) stop there */
    int runs_asked;
} tta_verify_context;

/* The verdict in one line (static text) from the two sides and their tests. */
const char *tta_verify_verdict(const tta_verify_context *c, const tta_verify_side *claim,
                               const tta_verify_side *replay);

/* Writes the report in format (TTA_FORMAT_TABLE/CSV/JSON/MARKDOWN) to out: rows = measures (runs
 * that reached the threshold, epochs to threshold, TTA, s/epoch, validation accuracy at the
 * compared epoch, unseen and shifted accuracy, generalization gap), columns = measure, claim and
 * replay (mean ± std (n) for people; *_mean, *_std, *_n for scripts), test (Welch's p, or why
 * there is none) and, for scripts, unit, welch_p, claim_entry_id and replay_entry_id. A table or
 * Markdown is preceded by lines naming the claim, the replays, the threshold and the mode (and the
 * epoch cap) and followed by "verdict: ..."; JSON is one object {claim_entry_id, replay_entry_id,
 * claim, replay, threshold, mode ("schedule" | "stop_at_target"), compared_epoch, schedule_epochs,
 * epoch_cap (null when none), runs, rows: [...], verdict}; CSV is the rows only. */
void tta_verify_write(const tta_verify_context *c, const tta_verify_side *claim, const tta_verify_side *replay,
                      int format, buf *out);

#endif
