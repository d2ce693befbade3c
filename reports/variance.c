/* variance.c: `tta report variance`: per entry, how stable the TTA is and where its variance
 * comes from (progress to target, or time per unit of progress: epochs, or millions of samples
 * where the benchmark counts samples and the rules give no training-set size). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/check.h"
#include "reports/builders.h"
#include "reports/dataset.h"
#include "reports/energy.h"
#include "reports/render.h"
#include "reports/summary.h"
#include "reports/reports.h"
#include "stats/stats.h"

enum {
    C_ACC = TTA_IDENTITY_COUNT, C_RUNS, C_REACHED, C_SCORE, C_SCALING,
    C_SCORE_UNSCALED, C_SUMMARY_SCORE, C_TTA_MEAN,
    C_CV, C_CV_LOW, C_CV_HIGH, C_CV_CI, C_UNIT, C_UNIT_SHORT, C_PROGRESS_MEAN, C_PROGRESS_STD, C_TPU_MEAN,
    C_TPU_STD, C_EPOCHS_MEAN, C_EPOCHS_STD, C_TPE_MEAN, C_TPE_STD, C_CV_RATIO, C_SHARE, C_SHARE_TPU, C_SHARE_COV,
    C_ENERGY_J, C_ENERGY_KWH, C_ACC_MIN, C_COST_HOUR, C_COST, C_SCALING_KIND, C_MODELS, C_INSTANCE, C_RATE, C_LOGS_URL, C_COUNT
};

static const tta_column variance_columns[C_COUNT] = {
    TTA_IDENTITY_COLUMNS,
    [C_ACC] = {"accelerators", "accel", TTA_COL_INT, 0, 0},
    [C_RUNS] = {"runs", "runs", TTA_COL_INT, 0, 0},
    [C_REACHED] = {"reached", "ok", TTA_COL_INT, 0, 0},
    [C_SCORE] = {"score_min", "score (min)", TTA_COL_NUMBER, 2, 0},
    [C_SCALING] = {"scaling_factor", "scaling", TTA_COL_NUMBER, 4, TTA_FOR_SCRIPTS},
    [C_SCORE_UNSCALED] = {"score_unscaled_min", "unscaled (min)", TTA_COL_NUMBER, 2, TTA_FOR_SCRIPTS},
    /* the score a summary.json (MLCommons' result summarizer's output) gives the entry: a cross-check */
    [C_SUMMARY_SCORE] = {"summary_score_min", "summary.json (min)", TTA_COL_NUMBER, 2, TTA_FOR_SCRIPTS},
    [C_TTA_MEAN] = {"tta_mean_s", "mean tta (min)", TTA_COL_MINUTES, 2, TTA_FOR_SCRIPTS},
    [C_CV] = {"cv", "cv (%)", TTA_COL_PERCENT, 1, 0},
    [C_CV_LOW] = {"cv_ci_low", "cv low (%)", TTA_COL_PERCENT, 1, TTA_FOR_SCRIPTS},
    [C_CV_HIGH] = {"cv_ci_high", "cv high (%)", TTA_COL_PERCENT, 1, TTA_FOR_SCRIPTS},
    [C_CV_CI] = {"cv_ci", "95% CI (%)", TTA_COL_TEXT, 0, TTA_FOR_PEOPLE},
    /* TTA = progress x time per unit of progress, in the entry's unit (summary.h) */
    [C_UNIT] = {"progress_unit", "unit", TTA_COL_TEXT, 0, TTA_FOR_SCRIPTS},
    [C_UNIT_SHORT] = {"unit_short", "unit", TTA_COL_TEXT, 0, TTA_FOR_PEOPLE},
    [C_PROGRESS_MEAN] = {"progress_mean", "progress", TTA_COL_NUMBER, 2, 0},
    [C_PROGRESS_STD] = {"progress_std", "± prog", TTA_COL_NUMBER, 2, TTA_FOR_SCRIPTS},
    [C_TPU_MEAN] = {"time_per_unit_mean_s", "s/unit", TTA_COL_SECONDS, 1, 0},
    [C_TPU_STD] = {"time_per_unit_std_s", "± s", TTA_COL_SECONDS, 1, TTA_FOR_SCRIPTS},
    /* the same where the unit is epochs (missing, with the reason, where it is not) */
    [C_EPOCHS_MEAN] = {"epochs_mean", "epochs", TTA_COL_NUMBER, 1, TTA_FOR_SCRIPTS},
    [C_EPOCHS_STD] = {"epochs_std", "± ep", TTA_COL_NUMBER, 1, TTA_FOR_SCRIPTS},
    [C_TPE_MEAN] = {"tpe_mean_s", "s/epoch", TTA_COL_SECONDS, 1, TTA_FOR_SCRIPTS},
    [C_TPE_STD] = {"tpe_std_s", "± s/ep", TTA_COL_SECONDS, 1, TTA_FOR_SCRIPTS},
    [C_CV_RATIO] = {"cv_ratio", "cv ratio", TTA_COL_NUMBER, 2, 0},
    /* shares of Var(log TTA): from log progress, log time per unit and twice their covariance */
    [C_SHARE] = {"log_var_share_progress", "var(log) share: prog (%)", TTA_COL_PERCENT, 0, 0},
    [C_SHARE_TPU] = {"log_var_share_time_per_unit", "var(log) share: s/unit (%)", TTA_COL_PERCENT, 0,
                     TTA_FOR_SCRIPTS},
    [C_SHARE_COV] = {"log_var_share_cov", "var(log) share: cov (%)", TTA_COL_PERCENT, 0, TTA_FOR_SCRIPTS},
    /* entries with power logs only (reports/energy.c): the summarizer's energy score */
    [C_ENERGY_J] = {"energy_j", "energy (J)", TTA_COL_NUMBER, 0, TTA_FOR_SCRIPTS},
    [C_ENERGY_KWH] = {"energy_kwh", "energy (kWh)", TTA_COL_NUMBER, 2, TTA_FOR_SCRIPTS},
    /* accelerators x the score (published; DAWNBench's, replays': mean TTA) in minutes */
    [C_ACC_MIN] = {"accelerator_minutes", "accel-min", TTA_COL_NUMBER, 0, 0},
    [C_COST_HOUR] = {"cost_per_hour_usd", "$/h", TTA_COL_NUMBER, 2, TTA_FOR_SCRIPTS},
    /* DAWNBench's cost to accuracy: cost per hour x the score in hours */
    [C_COST] = {"cost_usd", "cost ($)", TTA_COL_NUMBER, 2, 0},
    /* MLPerf HPC from v1.0: the folder's scaling; a weak-scaling entry's score_min is the time to
     * train every model instance (the summarizer's time_to_train_all), with these */
    [C_SCALING_KIND] = {"scaling", "scaling", TTA_COL_TEXT, 0, TTA_FOR_SCRIPTS},
    [C_MODELS] = {"number_of_models", "models", TTA_COL_INT, 0, TTA_FOR_SCRIPTS},
    [C_INSTANCE] = {"instance_scale", "acc/model", TTA_COL_INT, 0, TTA_FOR_SCRIPTS},
    [C_RATE] = {"models_per_min", "models/min", TTA_COL_NUMBER, 2, TTA_FOR_SCRIPTS},
    /* its logs (the system's cell links to them on the page); ls entries and the leaderboard also
     * give its system description */
    [C_LOGS_URL] = TTA_LOGS_URL_COLUMN,
};

/* An MLPerf HPC entry's scaling and, for a weak-scaling one, the rest of its score (the number of
 * instances, the accelerators of one, the throughput), with a note for people. */
static void weak_cells(tta_table *t, size_t row, const tta_entry_summary *s) {
    const char *not_weak = "not a weak-scaling entry (MLPerf HPC weak/ folders only)";
    tta_table_set_text(t, row, C_SCALING_KIND, s->entry->scaling);
    if (!s->weak) {
        tta_table_set_missing(t, row, C_MODELS, not_weak);
        tta_table_set_missing(t, row, C_INSTANCE, not_weak);
        tta_table_set_missing(t, row, C_RATE, not_weak);
        return;
    }
    const tta_weak_score *w = &s->weak_score;
    int scored = !isnan(w->time_all);
    tta_table_set_number_or(t, row, C_MODELS, scored ? (double)w->n_models : NAN, w->why);
    tta_table_set_number_or(t, row, C_INSTANCE, scored && w->instance_scale >= 0 ? w->instance_scale : NAN,
                            scored ? "the logs name no number_of_nodes" : w->why);
    tta_table_set_number_or(t, row, C_RATE, w->models_per_time * 60.0, w->why);
    buf b = {0};
    if (scored)
        buf_printf(&b, "weak scaling: the score is the time to train all %zu model instances at once (instance "
                   "scale %d: nodes x accelerators per node, as logged): %.2f models/min", w->n_models,
                   w->instance_scale, w->models_per_time * 60.0);
    else
        buf_printf(&b, "weak scaling: %s", w->why);
    tta_table_add_note(t, row, buf_str(&b));
    buf_free(&b);
}

/* Why the decomposition of s has no value (written to b). */
static void decomposition_why(const tta_entry_summary *s, buf *b) {
    const tta_decomposition *d = &s->dec;
    if (d->reason != TTA_NO_EPOCHS)
        buf_puts(b, d->why ? d->why : "not computable");
    else if (s->succeeded == 0)
        buf_puts(b, "no successful run");
    else if (s->below_batch == s->no_progress)
        buf_printf(b, "no successful run has its progress to target: %s", tta_below_batch_why);
    else
        buf_puts(b, "no successful run has its progress to target (not logged, or not converged as the RCP checker "
                    "reads it)");
}

/* The decomposition TTA = progress x time per unit of progress in the entry's unit, its epoch
 * columns where that unit is epochs, and the shares of Var(log TTA), shown as they are (a share
 * outside 0-100% is explained in the row's note, never clamped). */
static void decomposition_cells(tta_table *t, size_t row, const tta_entry_summary *s) {
    const tta_decomposition *d = &s->dec;
    buf why = {0};
    decomposition_why(s, &why);
    const char *dwhy = buf_str(&why);
    tta_table_set_text(t, row, C_UNIT, s->unit.key);
    tta_table_set_text(t, row, C_UNIT_SHORT, s->unit.label);
    tta_table_set_number_or(t, row, C_PROGRESS_MEAN, d->epochs_mean, dwhy);
    tta_table_set_number_or(t, row, C_PROGRESS_STD, d->epochs_std, dwhy);
    tta_table_set_number_or(t, row, C_TPU_MEAN, d->tpe_mean, dwhy);
    tta_table_set_number_or(t, row, C_TPU_STD, d->tpe_std, dwhy);
    if (s->unit.epochs) {
        tta_table_set_number_or(t, row, C_EPOCHS_MEAN, d->epochs_mean, dwhy);
        tta_table_set_number_or(t, row, C_EPOCHS_STD, d->epochs_std, dwhy);
        tta_table_set_number_or(t, row, C_TPE_MEAN, d->tpe_mean, dwhy);
        tta_table_set_number_or(t, row, C_TPE_STD, d->tpe_std, dwhy);
    } else {
        buf b = {0};
        buf_printf(&b, "progress counts %s and the rules give no training-set size: see progress_mean (%s)",
                   s->entry->unit, s->unit.key);
        tta_table_set_missing(t, row, C_EPOCHS_MEAN, buf_str(&b));
        tta_table_set_missing(t, row, C_EPOCHS_STD, buf_str(&b));
        tta_table_set_missing(t, row, C_TPE_MEAN, buf_str(&b));
        tta_table_set_missing(t, row, C_TPE_STD, buf_str(&b));
        buf_free(&b);
    }
    tta_table_set_number_or(t, row, C_CV_RATIO, d->cv_ratio, dwhy);
    tta_table_set_number_or(t, row, C_SHARE, d->log_share_epochs, dwhy);
    tta_table_set_number_or(t, row, C_SHARE_TPU, d->log_share_tpe, dwhy);
    tta_table_set_number_or(t, row, C_SHARE_COV, d->log_share_cov, dwhy);
    buf_free(&why);
    if (d->log_share_epochs > 1 || d->log_share_tpe > 1)
        tta_table_add_note(t, row, "a share of Var(log TTA) above 100%: the runs with more progress had the shorter "
                                   "time per unit (a negative covariance, whose share is below 0); the three shares "
                                   "sum to 100%");
    if (d->n > 0 && s->no_progress > 0) {
        buf b = {0};
        buf_printf(&b, "%zu of %zu successful runs left out of the decomposition: ", s->no_progress, s->succeeded);
        if (s->below_batch == s->no_progress)
            buf_puts(&b, tta_below_batch_why);
        else
            buf_puts(&b, "progress to target unknown (not logged, not converged as the RCP checker reads it, or a "
                         "sample count below one global batch)");
        tta_table_add_note(t, row, buf_str(&b));
        buf_free(&b);
    }
}

/* Appends the names (last path component) of up to three of e's runs with success_unmet whose
 * reached is `reached`, with their last quality, "; and N more" beyond. */
static void list_unmet(buf *b, const tta_entry_data *e, int reached, size_t count) {
    size_t listed = 0;
    for (size_t i = 0; i < e->n_runs && listed < 3; i++) {
        const tta_run_data *r = &e->runs[i];
        if (!r->success_unmet || r->reached != reached) continue;
        const char *name = r->file ? strrchr(r->file, '/') : NULL;
        name = name ? name + 1 : r->file ? r->file : "?";
        buf_printf(b, "%s%s", listed ? ", " : ": ", name);
        if (reached == 0 && !isnan(r->last_quality)) buf_printf(b, " (%.6g)", r->last_quality);
        listed++;
    }
    if (listed < count) buf_printf(b, " and %zu more", count - listed);
}

/* The row's note on runs whose log says success although their last evaluation misses the
 * target, or although they have no evaluation (the official tools believe the status): how many,
 * why, which, and their last value. */
static void success_unmet_note(tta_table *t, size_t row, const tta_entry_data *e) {
    size_t missed = 0, none = 0;
    for (size_t i = 0; i < e->n_runs; i++)
        if (e->runs[i].success_unmet) {
            missed += e->runs[i].reached == 0;
            none += e->runs[i].reached != 0;
        }
    buf b = {0};
    if (missed) {
        buf_printf(&b, "%zu run%s log%s success but %s last evaluation misses the target", missed,
                   missed == 1 ? "" : "s", missed == 1 ? "s" : "", missed == 1 ? "its" : "their");
        if (!isnan(e->target) && !isnan(e->target2)) buf_printf(&b, " (%.6g and %.6g)", e->target, e->target2);
        else if (!isnan(e->target)) buf_printf(&b, " (%.6g)", e->target);
        list_unmet(&b, e, 0, missed);
        tta_table_add_note(t, row, buf_str(&b));
        buf_clear(&b);
    }
    if (none) {
        buf_printf(&b, "%zu run%s log%s success but %s no evaluation of %s quality against the target", none,
                   none == 1 ? "" : "s", none == 1 ? "s" : "", none == 1 ? "has" : "have", none == 1 ? "its" : "their");
        list_unmet(&b, e, -1, none);
        tta_table_add_note(t, row, buf_str(&b));
    }
    buf_free(&b);
}

/* The row's note on successful runs left out of tta's own statistics (mean, CV, decomposition)
 * because a flag says their duration cannot be trusted: which runs, why, and the CV with them. The
 * official score keeps them, as MLCommons' summarizer does. */
static void time_suspect_note(tta_table *t, size_t row, const tta_entry_summary *s) {
    const tta_entry_data *e = s->entry;
    buf b = {0};
    buf_printf(&b, "mean, CV and decomposition leave out %zu run%s whose time cannot be trusted (the score keeps "
               "%s, as MLCommons' summarizer does)", s->time_suspect, s->time_suspect == 1 ? "" : "s",
               s->time_suspect == 1 ? "it" : "them");
    size_t listed = 0;
    for (size_t i = 0; i < e->n_runs; i++) {
        const tta_run_data *r = &e->runs[i];
        if (!r->time_suspect || !tta_run_succeeded(r)) continue;
        const char *name = r->file ? strrchr(r->file, '/') : NULL;
        name = name ? name + 1 : r->file ? r->file : "?";
        buf_printf(&b, "%s%s (%s)", listed++ ? "; " : ": ", name, r->flag_reasons ? r->flag_reasons : "flagged");
    }
    if (!isnan(s->cv_with_suspect) && s->succeeded >= 2)
        buf_printf(&b, "; with %s the CV would be %.1f%%", s->time_suspect == 1 ? "it" : "them", s->cv_with_suspect * 100);
    tta_table_add_note(t, row, buf_str(&b));
    buf_free(&b);
}

/* Scores closer than this (minutes) agree: the summarizer's to 0.01 min. */
#define SUMMARY_TOLERANCE_MIN 0.01

/* The summary_score_min cell of an entry (left empty when no summary.json names it) and, when
 * it differs from tta's published score, a note with both numbers and the likely reason where
 * one explains it: the factor of scaling.json left out, or the runs with an unreadable record
 * that tta drops counted; else other result files. */
static void summary_cells(tta_table *t, size_t row, const tta_entry_summary *s) {
    const tta_entry_data *e = s->entry;
    if (!(e->summary_score_min > 0)) return; /* empty without a reason: most folders have no summary.json */
    double theirs = e->summary_score_min, ours = s->published_s / 60.0;
    tta_table_set_number(t, row, C_SUMMARY_SCORE, theirs);
    if (fabs(theirs - ours) <= SUMMARY_TOLERANCE_MIN) return;
    buf b = {0};
    if (isnan(ours))
        buf_printf(&b, "summary.json gives %.2f min, tta no score (%s)", theirs, s->score.why ? s->score.why : "none");
    else
        buf_printf(&b, "summary.json gives %.2f min, tta %.2f min", theirs, ours);
    double unscaled = s->score.score / 60.0;
    if (!isnan(ours) && s->scaling_factor != 1.0 && fabs(theirs - unscaled) <= SUMMARY_TOLERANCE_MIN)
        buf_printf(&b, ": the summary's score is without scaling.json's factor %.4f", s->scaling_factor);
    else if (s->unreadable_runs) {
        /* The olympic mean with the unreadable runs counted, as a summarizer that read them would. */
        size_t n = e->n_runs;
        double *times = mallocCheck((n ? n : 1) * sizeof *times);
        int *ok = mallocCheck((n ? n : 1) * sizeof *ok);
        for (size_t i = 0; i < n; i++) {
            times[i] = e->runs[i].tta_s;
            ok[i] = tta_run_succeeded(&e->runs[i]);
        }
        tta_score all = tta_official_score(times, ok, n, e->benchmark, e->round);
        free(times);
        free(ok);
        if (fabs(theirs - all.score * s->scaling_factor / 60.0) <= SUMMARY_TOLERANCE_MIN)
            buf_printf(&b, ": the summary counts the %zu run%s with an unreadable log record that tta drops",
                       s->unreadable_runs, s->unreadable_runs == 1 ? "" : "s");
        else
            buf_puts(&b, ": likely other result files than tta read (tta drops runs with an unreadable record)");
    } else
        buf_printf(&b, ": likely other result files than the %zu run%s tta read", e->n_runs, e->n_runs == 1 ? "" : "s");
    tta_table_add_note(t, row, buf_str(&b));
    buf_free(&b);
}

/* Accelerator-minutes and cost to accuracy (summary.h); a cost left blank, without a footnote, for
 * an entry whose description gives no cost per hour (every MLPerf entry). */
static void per_accelerator_cells(tta_table *t, size_t row, const tta_entry_summary *s) {
    const tta_entry_data *e = s->entry;
    const char *why = e->accelerators == 0  ? "no accelerator (CPU only)"
                      : e->accelerators < 0 ? "no accelerator count in the system description"
                      : s->weak             ? "weak scaling: no time to train one model (see the models/min)"
                                            : "no score";
    tta_table_set_number_or(t, row, C_ACC_MIN, tta_entry_accelerator_minutes(s), why);
    if (!isnan(e->cost_per_hour)) {
        tta_table_set_number(t, row, C_COST_HOUR, e->cost_per_hour);
        tta_table_set_number_or(t, row, C_COST, tta_entry_cost_usd(s), "no successful run");
    } else {
        tta_table_set_missing(t, row, C_COST_HOUR, NULL);
        tta_table_set_missing(t, row, C_COST, NULL);
    }
}

/* Fills one row for entry e. */
static void variance_row(tta_table *t, const tta_entry_summary *summary) {
    const tta_entry_data *e = summary->entry;
    const tta_entry_summary s = *summary;
    size_t row = tta_table_add_row(t);
    tta_identity id = tta_entry_identity(e);
    tta_table_set_identity(t, row, &id);
    tta_table_set_published(t, row, e);
    if (e->accelerators >= 0) tta_table_set_number(t, row, C_ACC, e->accelerators);
    else tta_table_set_missing(t, row, C_ACC, "no system description");
    tta_table_set_number(t, row, C_RUNS, (double)s.runs);
    tta_table_set_number(t, row, C_REACHED, (double)s.reached);
    /* The published score: the olympic mean times the folder's scaling.json factor. */
    tta_table_set_number_or(t, row, C_SCORE, s.published_s / 60.0, s.score.why);
    tta_table_set_number(t, row, C_SCALING, s.scaling_factor);
    tta_table_set_number_or(t, row, C_SCORE_UNSCALED, s.score.score / 60.0, s.score.why);
    if (s.unreadable_runs) {
        buf b = {0};
        buf_printf(&b, "%zu run%s with an unreadable log record, dropped from the score as MLCommons' summarizer"
                   " drops them", s.unreadable_runs, s.unreadable_runs == 1 ? "" : "s");
        tta_table_add_note(t, row, buf_str(&b));
        buf_free(&b);
    }
    if (s.unread_logs) {
        buf b = {0};
        buf_printf(&b, "%zu result log%s beside the runs hold%s no run (no run_start): counted as dropped run%s in"
                   " the score, as MLCommons' summarizer counts %s", s.unread_logs, s.unread_logs == 1 ? "" : "s",
                   s.unread_logs == 1 ? "s" : "", s.unread_logs == 1 ? "" : "s", s.unread_logs == 1 ? "it" : "them");
        tta_table_add_note(t, row, buf_str(&b));
        buf_free(&b);
    }
    if (!isnan(s.published_s) && s.scaling_factor != 1.0) {
        buf b = {0};
        buf_printf(&b, "score × %.4f (scaling.json: RCP normalisation)", s.scaling_factor);
        tta_table_add_note(t, row, buf_str(&b));
        buf_free(&b);
    }
    if (!isnan(s.score.score) && s.score.why) tta_table_add_note(t, row, s.score.why);
    weak_cells(t, row, &s);
    summary_cells(t, row, &s);
    const char *none_why = s.succeeded == 0 ? "no successful run" : "no successful run whose time can be trusted";
    tta_table_set_number_or(t, row, C_TTA_MEAN, s.tta_mean_s, none_why);
    const char *cv_why = s.counted == 0 ? none_why : s.cv.why;
    /* One run has no spread: its CV of 0 would read as perfectly stable. */
    tta_table_set_number_or(t, row, C_CV, s.counted >= 2 ? s.cv.cv : NAN, s.counted == 1 ? "one successful run" : cv_why);
    tta_table_set_number_or(t, row, C_CV_LOW, s.cv.low, cv_why);
    tta_table_set_number_or(t, row, C_CV_HIGH, s.cv.high, cv_why);
    if (!isnan(s.cv.low)) {
        buf b = {0};
        buf_printf(&b, "%.1f–%.1f", s.cv.low * 100, s.cv.high * 100);
        tta_table_set_text(t, row, C_CV_CI, buf_str(&b));
        buf_free(&b);
    } else {
        tta_table_set_missing(t, row, C_CV_CI, cv_why ? cv_why : "not computable");
    }
    decomposition_cells(t, row, &s);
    per_accelerator_cells(t, row, &s);
    if (s.time_suspect) time_suspect_note(t, row, &s);
    if (s.success_unmet) success_unmet_note(t, row, e);
    /* the other flags (the notes above explain these) */
    tta_table_note_flags(t, row, e, s.time_suspect ? "success_unmet,unreadable_record,far_outside_entry"
                                                   : "success_unmet,unreadable_record");
}

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Entries of one round and benchmark converge within a few times one another (the RCP checker
 * bounds how fast; nobody publishes ten times slower). An entry whose mean progress is more than
 * OUTLIER_FACTOR times off the median of its round's entries of the benchmark (three or more, in
 * one unit) gets a note: its logs likely count progress otherwise than the rules read it (epochs
 * where the rules read samples; a training-set size where they read the samples trained). */
#define OUTLIER_FACTOR 10.0
#define OUTLIER_MIN_ENTRIES 3

static void progress_outlier_notes(tta_table *t, const tta_entry_summary *s, size_t n) {
    double *v = mallocCheck((n ? n : 1) * sizeof *v);
    for (size_t i = 0; i < n; i++) {
        double p = s[i].dec.epochs_mean;
        if (!(p > 0)) continue;
        size_t k = 0;
        for (size_t j = 0; j < n; j++)
            if (s[j].dec.epochs_mean > 0 && !strcmp(s[j].entry->round, s[i].entry->round) &&
                !strcmp(s[j].entry->benchmark, s[i].entry->benchmark) && tta_progress_scale_same(&s[j].unit, &s[i].unit))
                v[k++] = s[j].dec.epochs_mean;
        if (k < OUTLIER_MIN_ENTRIES) continue;
        qsort(v, k, sizeof *v, compare_double);
        double median = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
        if (p * OUTLIER_FACTOR >= median && p <= median * OUTLIER_FACTOR) continue;
        buf b = {0};
        buf_printf(&b, "progress %.4g %s is %.0f× %s the median of the round's %zu %s entries (%.4g %s): its logs may "
                   "not count progress as the rules read it (another unit, or another count)", p, s[i].unit.label,
                   p < median ? median / p : p / median, p < median ? "below" : "above", k, s[i].entry->benchmark,
                   median, s[i].unit.label);
        tta_table_add_note(t, i, buf_str(&b));
        buf_free(&b);
    }
    free(v);
}

tta_table *tta_variance_table(const tta_entry_data *e, size_t n) {
    tta_table *t = tta_table_new(variance_columns, C_COUNT);
    /* On a narrow terminal the decomposition gives way before the names do: the CV, its CI and
     * the share of Var(log TTA) stay; cv ratio goes first, then progress with its unit, and
     * accelerator-minutes and cost with them. */
    tta_table_set_fit(t, C_CV_CI, 1, 0);
    tta_table_set_fit(t, C_CV_RATIO, 0, 2);
    tta_table_set_fit(t, C_UNIT_SHORT, 0, 1);
    tta_table_set_fit(t, C_PROGRESS_MEAN, 0, 1);
    tta_table_set_fit(t, C_TPU_MEAN, 0, 1);
    tta_table_set_fit(t, C_ACC_MIN, 0, 1);
    tta_table_set_fit(t, C_COST, 0, 1);
    tta_entry_summary *s = callocCheck(n ? n : 1, sizeof *s);
    for (size_t i = 0; i < n; i++) {
        tta_summarize_entry(&e[i], &s[i], 1);
        variance_row(t, &s[i]);
    }
    progress_outlier_notes(t, s, n); /* row i is entry i */
    free(s);
    return t;
}

void tta_variance_plot(const tta_entry_data *e, size_t n, const tta_report_options *o, buf *svg) {
    (void)o; /* no option changes this plot */
    tta_strip_group *g = callocCheck(n ? n : 1, sizeof *g);
    double **values = callocCheck(n ? n : 1, sizeof *values);
    char **names = callocCheck(n ? n : 1, sizeof *names);
    for (size_t i = 0; i < n; i++) {
        values[i] = mallocCheck((e[i].n_runs + 1) * sizeof **values);
        size_t k = 0;
        for (size_t r = 0; r < e[i].n_runs; r++) /* as the table: a time a flag distrusts is left out */
            if (tta_run_succeeded(&e[i].runs[r]) && !e[i].runs[r].time_suspect)
                values[i][k++] = e[i].runs[r].tta_s / 60.0;
        buf b = {0};
        tta_plot_entry_name(&b, e, n, i);
        names[i] = buf_take(&b);
        g[i] = (tta_strip_group){names[i], values[i], k};
    }
    /* A log axis when the entries' TTAs span more than two orders of magnitude. */
    double lo = INFINITY, hi = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < g[i].n; k++) {
            if (values[i][k] > 0 && values[i][k] < lo) lo = values[i][k];
            if (values[i][k] > hi) hi = values[i][k];
        }
    int log_axis = hi > 0 && lo < INFINITY && hi / lo > 100;
    buf title = {0};
    tta_plot_title(&title, e, n, "time to accuracy of each successful run");
    tta_strip_plot p = {.title = buf_str(&title),
                        .y = {.label = "TTA (min)", .scale = log_axis ? TTA_AXIS_LOG10 : TTA_AXIS_LINEAR,
                              .include_zero = !log_axis},
                        .value_name = "run", .groups = g, .n_groups = n};
    tta_svg_strip(svg, &p);
    buf_free(&title);
    for (size_t i = 0; i < n; i++) {
        free(values[i]);
        free(names[i]);
    }
    free(values);
    free(names);
    free(g);
}

/* The energy score of the entries with power logs (empty, without a reason, for the others). Energy
 * is for scripts: the text table and Markdown do not show it. */
int tta_variance_energy(sqlite3 *db, const tta_entry_data *e, size_t n, tta_table *t, int format, char **err) {
    if (format != TTA_FORMAT_CSV && format != TTA_FORMAT_JSON) return 0;
    tta_energy_data d;
    if (tta_energy_load_for(db, e, n, &d, err)) return 1;
    for (size_t i = 0; i < n; i++) {
        if (d.row_of[i] < 0) continue;
        const tta_energy_score *s = &d.rows[d.row_of[i]].score;
        tta_table_set_number_or(t, i, C_ENERGY_J, s->energy_j, s->why);
        tta_table_set_number_or(t, i, C_ENERGY_KWH, s->energy_j / 3.6e6, s->why);
    }
    tta_energy_free(&d);
    return 0;
}
