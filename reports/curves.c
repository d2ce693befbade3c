/* curves.c: `tta report curves` (quality per evaluation across an entry's runs) and
 * `tta report threshold` (each run's TTA at other quality thresholds). Qualities are in the common
 * scale and progress in the benchmark's unit (units.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/check.h"
#include "reports/builders.h"
#include "reports/dataset.h"
#include "reports/render.h"
#include "reports/reports.h"
#include "reports/units.h"
#include "stats/stats.h"

/* A curve of more evaluations than this is drawn as a line without a point per evaluation: on a
 * plot 700 px wide the points would merge, and each costs the page a mark. */
#define CURVE_POINTS_MAX 12
/* At most about this many points of a curve are drawn (the table keeps every evaluation). */
#define CURVE_PLOT_POINTS 32

/* One row of an entry's curve: the evaluations of its runs at one progress value (or, when the
 * entry logs no progress per evaluation, the k-th evaluation of each run). */
typedef struct {
    double progress; /* in the entry's unit; NAN when the rows go by evaluation */
    double time_s;   /* mean time of the row's evaluations since run_start */
    double mean, std; /* quality in the common scale, population std across runs */
    size_t n;        /* runs */
} curve_row;

/* Why the rows of an entry that logs no progress go by evaluation. */
static const char by_evaluation_why[] = "no evaluation logs its progress: the row is each run's k-th evaluation";

/* The curve of e (its runs loaded with curves) into *out (malloc'd); returns the number of rows.
 * *by_progress: 1 when the rows go by progress value (some evaluation logged it), 0 by ordinal. */
static size_t entry_curve_rows(const tta_entry_data *e, curve_row **out, int *by_progress) {
    size_t n = e->n_runs, total = 0;
    tta_progress_scale u = tta_entry_progress_scale(e);
    tta_quality_view v = tta_entry_quality(e);
    const double **key = callocCheck(n ? n : 1, sizeof *key), **q = callocCheck(n ? n : 1, sizeof *q);
    const double **t = callocCheck(n ? n : 1, sizeof *t);
    size_t *np = callocCheck(n ? n : 1, sizeof *np);
    *by_progress = 0;
    for (size_t r = 0; r < n; r++)
        for (size_t i = 0; i < e->runs[r].n_curve && !*by_progress; i++)
            *by_progress = !isnan(tta_eval_progress(e, &u, &e->runs[r].curve[i]));
    for (size_t r = 0; r < n; r++) {
        const tta_run_data *run = &e->runs[r];
        size_t m = run->n_curve ? run->n_curve : 1;
        double *a = mallocCheck(m * sizeof *a), *b = mallocCheck(m * sizeof *b), *c = mallocCheck(m * sizeof *c);
        for (size_t i = 0; i < run->n_curve; i++) {
            a[i] = *by_progress ? tta_eval_progress(e, &u, &run->curve[i]) : (double)(i + 1);
            b[i] = tta_quality_common(&v, run->curve[i].quality);
            c[i] = run->curve[i].time_s;
        }
        key[r] = a;
        q[r] = b;
        t[r] = c;
        np[r] = run->n_curve;
        total += run->n_curve;
    }
    tta_curve_stat *qs = mallocCheck((total ? total : 1) * sizeof *qs), *ts = mallocCheck((total ? total : 1) * sizeof *ts);
    size_t k = tta_quality_curve(key, q, np, n, qs, total);
    size_t kt = tta_quality_curve(key, t, np, n, ts, total);
    *out = mallocCheck((k ? k : 1) * sizeof **out);
    /* both are sorted by key; the times' keys are a subset where a time is not logged */
    for (size_t j = 0, jt = 0; j < k; j++) {
        while (jt < kt && ts[jt].epoch < qs[j].epoch) jt++;
        double time_s = jt < kt && ts[jt].epoch == qs[j].epoch ? ts[jt].mean : NAN;
        (*out)[j] = (curve_row){*by_progress ? qs[j].epoch : NAN, time_s, qs[j].mean, qs[j].std, qs[j].n};
    }
    for (size_t r = 0; r < n; r++) {
        free((void *)key[r]);
        free((void *)q[r]);
        free((void *)t[r]);
    }
    free(key);
    free(q);
    free(t);
    free(np);
    free(qs);
    free(ts);
    return k;
}

enum {
    Q_PROGRESS = TTA_IDENTITY_COUNT, Q_UNIT_KEY, Q_UNIT, Q_TIME, Q_RUNS, Q_MEAN, Q_STD, Q_TARGET, Q_QUALITY_UNIT,
    Q_COUNT
};

/* Contract in builders.h. */
tta_table *tta_curves_table(const tta_entry_data *e, size_t n) {
    int pct = tta_entries_all_accuracy(e, n);
    const tta_column cols[Q_COUNT] = {
        TTA_IDENTITY_COLUMNS,
        [Q_PROGRESS] = {"progress", "progress", TTA_COL_NUMBER, 3, TTA_FOR_ALL},
        [Q_UNIT_KEY] = {"progress_unit", "unit", TTA_COL_TEXT, 0, TTA_FOR_SCRIPTS},
        [Q_UNIT] = {"progress_unit_label", "unit", TTA_COL_TEXT, 0, TTA_FOR_PEOPLE},
        [Q_TIME] = {"time_s", "time (min)", TTA_COL_MINUTES, 2, TTA_FOR_ALL},
        [Q_RUNS] = {"runs", "runs", TTA_COL_INT, 0, TTA_FOR_ALL},
        [Q_MEAN] = tta_quality_column("quality_mean", "quality", "quality (%)", pct ? 2 : 4, pct),
        [Q_STD] = tta_quality_column("quality_std", "± std", "± std (%)", pct ? 2 : 4, pct),
        [Q_TARGET] = tta_quality_column("target", "target", "target (%)", pct ? 2 : 4, pct),
        [Q_QUALITY_UNIT] = tta_quality_unit_column(pct),
    };
    tta_table *t = tta_table_new(cols, Q_COUNT);
    /* On a narrow terminal the quality's unit (the metric's scale says it) gives way: every other
     * column names a row or carries the curve. */
    tta_table_set_fit(t, Q_QUALITY_UNIT, 0, 1);
    for (size_t i = 0; i < n; i++) {
        tta_identity id = tta_entry_identity(&e[i]);
        tta_progress_scale u = tta_entry_progress_scale(&e[i]);
        tta_quality_view v = tta_entry_quality(&e[i]);
        curve_row *c;
        int by_progress;
        size_t k = entry_curve_rows(&e[i], &c, &by_progress);
        for (size_t j = 0; j < k; j++) {
            size_t row = tta_table_add_row(t);
            tta_table_set_identity(t, row, &id);
            if (j == 0) tta_table_note_flags(t, row, &e[i], NULL); /* the entry's flagged runs, once */
            if (by_progress) tta_table_set_number(t, row, Q_PROGRESS, c[j].progress);
            else tta_table_set_missing(t, row, Q_PROGRESS, by_evaluation_why);
            tta_table_set_text(t, row, Q_UNIT_KEY, u.key);
            tta_table_set_text(t, row, Q_UNIT, tta_progress_unit_label(&u));
            tta_table_set_number_or(t, row, Q_TIME, c[j].time_s, "time not logged");
            tta_table_set_number(t, row, Q_RUNS, (double)c[j].n);
            tta_table_set_number(t, row, Q_MEAN, c[j].mean);
            tta_table_set_number(t, row, Q_STD, c[j].std);
            tta_table_set_number_or(t, row, Q_TARGET, tta_quality_common(&v, e[i].target), "no known target");
            tta_table_set_text(t, row, Q_QUALITY_UNIT, v.unit);
        }
        if (k == 0) {
            size_t row = tta_table_add_row(t);
            tta_table_set_identity(t, row, &id);
            tta_table_set_missing(t, row, Q_PROGRESS, "no evaluation of its quality");
        }
        free(c);
    }
    return t;
}

/* Contract in builders.h. */
void tta_curves_plot(const tta_entry_data *e, size_t n, const tta_report_options *o, buf *svg) {
    tta_series *series = callocCheck(n ? n : 1, sizeof *series);
    double **x = callocCheck(n ? n : 1, sizeof *x), **y = callocCheck(n ? n : 1, sizeof *y);
    double **err = callocCheck(n ? n : 1, sizeof *err);
    char **names = callocCheck(n ? n : 1, sizeof *names);
    tta_hline *targets = callocCheck(n ? n : 1, sizeof *targets);
    char **target_labels = callocCheck(n ? n : 1, sizeof *target_labels);
    size_t n_targets = 0;
    char ylabel[96];
    int pct;
    tta_quality_axis_label(e, n, ylabel, sizeof ylabel, &pct);
    double k_pct = pct ? 100 : 1;
    /* x: the benchmark's progress unit, unless asked for time or no entry logs its progress */
    curve_row **rows = callocCheck(n ? n : 1, sizeof *rows);
    size_t *nrows = callocCheck(n ? n : 1, sizeof *nrows);
    int *has_progress = callocCheck(n ? n : 1, sizeof *has_progress);
    int any_progress = 0;
    for (size_t i = 0; i < n; i++) {
        nrows[i] = entry_curve_rows(&e[i], &rows[i], &has_progress[i]);
        any_progress |= has_progress[i];
    }
    int by_time = (o && o->x_time) || !any_progress;
    tta_progress_scale u = n ? tta_entry_progress_scale(&e[0]) : (tta_progress_scale){.epochs = 1, .key = "epochs"};
    for (size_t i = 1; i < n && !by_time; i++) {
        tta_progress_scale ui = tta_entry_progress_scale(&e[i]);
        by_time = !tta_progress_scale_same(&u, &ui); /* one benchmark, but rounds may count differently */
    }
    for (size_t i = 0; i < n; i++) {
        size_t k = nrows[i];
        x[i] = mallocCheck((k + 1) * sizeof **x);
        y[i] = mallocCheck((k + 1) * sizeof **y);
        err[i] = mallocCheck((k + 1) * sizeof **err);
        /* a curve of more evaluations than the plot has room for keeps every stride-th (and its
         * last): on a plot 700 px wide more would only lengthen the page */
        size_t stride = (k + CURVE_PLOT_POINTS - 1) / CURVE_PLOT_POINTS, kept = 0;
        if (stride < 1) stride = 1;
        for (size_t j = 0; j < k; j++) {
            if (j % stride != 0 && j + 1 != k) continue;
            x[i][kept] = by_time ? rows[i][j].time_s / 60.0 : rows[i][j].progress;
            y[i][kept] = rows[i][j].mean * k_pct;
            err[i][kept] = rows[i][j].std * k_pct;
            kept++;
        }
        k = kept;
        buf name = {0};
        tta_plot_entry_name(&name, e, n, i);
        buf_printf(&name, " (%zu runs)", e[i].n_runs);
        /* drawn against progress, an entry that logs none has no point: say where it is */
        if (!by_time && !has_progress[i]) buf_puts(&name, ": no progress logged, see --x time");
        names[i] = buf_take(&name);
        /* a point per evaluation while they can be told apart; a long curve is its line and band */
        series[i] = (tta_series){names[i], x[i], y[i], k, err[i], NULL,
                                 k > CURVE_POINTS_MAX ? TTA_MARK_LINE : TTA_MARK_LINE_POINTS, 0, 0, 0};
        /* one target line per distinct target in the common scale */
        tta_quality_view v = tta_entry_quality(&e[i]);
        double target = tta_quality_common(&v, e[i].target) * k_pct;
        int seen = isnan(target);
        for (size_t t = 0; t < n_targets && !seen; t++) seen = fabs(targets[t].y - target) <= 1e-9 * fabs(target);
        if (!seen) {
            buf l = {0};
            buf_printf(&l, "target %g%s (%s)", target, pct ? "%" : "", e[i].benchmark);
            target_labels[n_targets] = buf_take(&l);
            targets[n_targets] = (tta_hline){target, target_labels[n_targets]};
            n_targets++;
        }
    }
    char xlabel[96];
    if (by_time) snprintf(xlabel, sizeof xlabel, "time from run_start (min)");
    else snprintf(xlabel, sizeof xlabel, "progress (%s)", tta_progress_unit_label(&u));
    buf title = {0};
    tta_plot_title(&title, e, n,
                   by_time ? (any_progress || !n ? "quality against time: mean and ± std across runs"
                                                 : "quality against time (no evaluation logs its progress): mean "
                                                   "and ± std across runs")
                           : "quality against progress: mean and ± std across runs");
    tta_xy_plot p = {.title = buf_str(&title), .x = {.label = xlabel}, .y = {.label = ylabel}, .series = series,
                     .n_series = n, .hlines = targets, .n_hlines = n_targets};
    tta_svg_xy(svg, &p);
    buf_free(&title);
    for (size_t i = 0; i < n; i++) {
        free(x[i]);
        free(y[i]);
        free(err[i]);
        free(names[i]);
        free(rows[i]);
    }
    for (size_t t = 0; t < n_targets; t++) free(target_labels[t]);
    free(rows);
    free(nrows);
    free(has_progress);
    free(x);
    free(y);
    free(err);
    free(names);
    free(series);
    free(targets);
    free(target_labels);
}

enum { T_FILE = TTA_IDENTITY_COUNT, T_THRESHOLD, T_TTA, T_PROGRESS, T_UNIT_KEY, T_UNIT, T_QUALITY_UNIT, T_COUNT };

/* Contract in builders.h. */
int tta_report_threshold(sqlite3 *db, const tta_filter *f, const double *thresholds, size_t n_thresholds,
                         int format, FILE *out, char **err) {
    tta_entry_data *e;
    size_t n;
    if (tta_entries_load(db, f, 1, &e, &n, err)) return 1;
    int pct = tta_entries_all_accuracy(e, n);
    const tta_column cols[T_COUNT] = {
        TTA_IDENTITY_COLUMNS,
        [T_FILE] = {"file", "file", TTA_COL_PATH, 0, TTA_FOR_ALL},
        [T_THRESHOLD] = tta_quality_column("threshold", "threshold", "threshold (%)", pct ? 2 : 4, pct),
        [T_TTA] = {"tta_s", "tta (min)", TTA_COL_MINUTES, 2, TTA_FOR_ALL},
        [T_PROGRESS] = {"progress", "progress", TTA_COL_NUMBER, 3, TTA_FOR_ALL},
        [T_UNIT_KEY] = {"progress_unit", "unit", TTA_COL_TEXT, 0, TTA_FOR_SCRIPTS},
        [T_UNIT] = {"progress_unit_label", "unit", TTA_COL_TEXT, 0, TTA_FOR_PEOPLE},
        [T_QUALITY_UNIT] = tta_quality_unit_column(pct),
    };
    tta_table *t = tta_table_new(cols, T_COUNT);
    for (size_t i = 0; i < n; i++) {
        tta_identity id = tta_entry_identity(&e[i]);
        tta_progress_scale u = tta_entry_progress_scale(&e[i]);
        tta_quality_view v = tta_entry_quality(&e[i]);
        for (size_t r = 0; r < e[i].n_runs; r++) {
            const tta_run_data *run = &e[i].runs[r];
            double *q = mallocCheck((run->n_curve ? run->n_curve : 1) * sizeof *q);
            for (size_t k = 0; k < run->n_curve; k++) q[k] = tta_quality_common(&v, run->curve[k].quality);
            for (size_t h = 0; h < n_thresholds; h++) {
                size_t row = tta_table_add_row(t);
                tta_table_set_identity(t, row, &id);
                if (h == 0) tta_table_note_run_flags(t, row, run); /* the run's flags, once */
                tta_table_set_text(t, row, T_FILE, run->file);
                tta_table_set_number(t, row, T_THRESHOLD, thresholds[h]);
                tta_table_set_text(t, row, T_UNIT_KEY, u.key);
                tta_table_set_text(t, row, T_UNIT, tta_progress_unit_label(&u));
                tta_table_set_text(t, row, T_QUALITY_UNIT, v.unit);
                long at = tta_first_meeting(q, run->n_curve, thresholds[h], e[i].higher_is_better);
                if (at < 0) {
                    tta_table_set_missing(t, row, T_TTA, "threshold never reached");
                    tta_table_set_missing(t, row, T_PROGRESS, "threshold never reached");
                } else {
                    /* DAWNBench times count from the start of training; MLPerf's from
                     * run_start, as the run's TTA does. */
                    tta_table_set_number(t, row, T_TTA, run->curve[at].time_s);
                    tta_table_set_number_or(t, row, T_PROGRESS, tta_eval_progress(&e[i], &u, &run->curve[at]),
                                            "the evaluation does not log its progress");
                }
            }
            free(q);
        }
    }
    tta_table_write(t, (tta_out_format)format, out);
    tta_table_free(t);
    tta_entries_free(e, n);
    return 0;
}
