/* units.h: the one place where the reports decide in which scale a quality and in which unit a
 * run's progress are shown (internal to reports/). Every report that shows a quality, a target,
 * a threshold or a quality curve converts through here, so that two entries of one benchmark and
 * metric read on one scale with one target whatever their source stored (docs/statistics.md,
 * "Scales and units").
 *
 * Qualities. The database keeps each evaluation as its log wrote it: MLPerf's accuracies as
 * fractions, DAWNBench's as percent (the rules' quality_scale "percent"), tta's own replays
 * (round local) as fractions. The reports' common scale, one per metric: accuracy-like metrics
 * (the rules' "fraction" and "percent") as a fraction of 1 in CSV and JSON and as percent for
 * people (tables, plots); BLEU in BLEU points; anything else (loss, perplexity, WER, FID) as
 * logged.
 *
 * Progress. An evaluation's x position in the benchmark's progress unit (the rules'
 * progress_unit, tta_entry_progress_scale): epochs (samples turned into epochs where the rules
 * give the training-set size), millions of samples or tokens, or steps; or its time from
 * run_start in minutes.
 */
#ifndef TTA_REPORTS_UNITS_H
#define TTA_REPORTS_UNITS_H

#include "reports/dataset.h"
#include "reports/render.h"
#include "reports/summary.h"

/* How an entry's stored qualities map onto the common scale. */
typedef struct {
    double divisor;     /* stored value / divisor = value in the common scale (100 for percent) */
    int accuracy;       /* 1: a fraction of 1 in the common scale (people read it in percent) */
    const char *unit;   /* the common scale's name for scripts: "fraction", "BLEU", "as logged" */
    const char *metric; /* the metric's name: the entry's, else its benchmark's latest rule's; NULL */
} tta_quality_view;

/* e's view: the stored scale is its round's rule's quality_scale (tta_rules_find); round local
 * (replays, whose logs write accuracies as fractions) is a fraction whatever the benchmark, and
 * its metric is the benchmark's latest rule's; no rule: as logged. */
tta_quality_view tta_entry_quality(const tta_entry_data *e);

/* A stored quality (or target) of the view's entry in the common scale; NAN stays NAN. */
double tta_quality_common(const tta_quality_view *v, double stored);

/* 1 when every entry of e[0..n) is accuracy-like (n == 0: 0): a table of them shows its quality
 * columns in percent (TTA_COL_PERCENT), else as numbers beside their unit. */
int tta_entries_all_accuracy(const tta_entry_data *e, size_t n);

/* A quality column's definition: key for scripts; for people header_percent ("target (%)",
 * TTA_COL_PERCENT) when all_accuracy, else header (TTA_COL_NUMBER). decimals as shown. The
 * strings are borrowed (static text). */
tta_column tta_quality_column(const char *key, const char *header, const char *header_percent, int decimals,
                              int all_accuracy);

/* The column of the quality's unit (key "quality_unit", header "q. unit"): shown to people only
 * when the table's qualities are not all in percent (all_accuracy 0). */
tta_column tta_quality_unit_column(int all_accuracy);

/* The axis label of a quality plot of entries e[0..n) (one benchmark): "top1 (%)", "BLEU (BLEU)",
 * "log_perplexity (as logged)"; written into out (size len). *percent is set to 1 when the
 * plot's values are to be drawn in percent (common value x 100). */
void tta_quality_axis_label(const tta_entry_data *e, size_t n, char *out, size_t len, int *percent);

/* The progress of evaluation p of a run of e, in e's progress unit (tta_entry_progress_scale:
 * progress / divisor): the rules' reading of an evaluation (the epoch for epochs; the sample or
 * token count for samples and tokens, or the logged epoch_num where the rules read that as the
 * count); NAN when the log gives none (steps are not stored per evaluation). */
double tta_eval_progress(const tta_entry_data *e, const tta_progress_scale *u, const tta_curve_point *p);

/* The people's name of u with its unit, for headers and axes: "epochs", "Msamples", "Mtokens",
 * "steps". */
const char *tta_progress_unit_label(const tta_progress_scale *u);

#endif
