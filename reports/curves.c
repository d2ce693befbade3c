/* curves.c: `tta report curves` (quality per epoch across an entry's runs) and
 * `tta report threshold` (each run's TTA at other quality thresholds). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/check.h"
#include "reports/builders.h"
#include "reports/dataset.h"
#include "reports/render.h"
#include "reports/reports.h"
#include "stats/stats.h"

enum { Q_EPOCH = TTA_IDENTITY_COUNT, Q_RUNS, Q_MEAN, Q_STD, Q_TARGET, Q_COUNT };

static const tta_column curve_columns[Q_COUNT] = {
    TTA_IDENTITY_COLUMNS,
    [Q_EPOCH] = {"epoch", "epoch", TTA_COL_NUMBER, 1, TTA_FOR_ALL},
    [Q_RUNS] = {"runs", "runs", TTA_COL_INT, 0, TTA_FOR_ALL},
    [Q_MEAN] = {"quality_mean", "quality", TTA_COL_NUMBER, 4, TTA_FOR_ALL},
    [Q_STD] = {"quality_std", "± std", TTA_COL_NUMBER, 4, TTA_FOR_ALL},
    [Q_TARGET] = {"target", "target", TTA_COL_NUMBER, 4, TTA_FOR_ALL},
};

size_t tta_entry_curve(const tta_entry_data *e, tta_curve_stat **out) {
    size_t n = e->n_runs, total = 0;
    const double **ep = callocCheck(n ? n : 1, sizeof *ep), **q = callocCheck(n ? n : 1, sizeof *q);
    size_t *np = callocCheck(n ? n : 1, sizeof *np);
    for (size_t r = 0; r < n; r++) {
        const tta_run_data *run = &e->runs[r];
        double *a = mallocCheck((run->n_curve ? run->n_curve : 1) * sizeof *a);
        double *b = mallocCheck((run->n_curve ? run->n_curve : 1) * sizeof *b);
        for (size_t i = 0; i < run->n_curve; i++) {
            a[i] = run->curve[i].epoch;
            b[i] = run->curve[i].quality;
        }
        ep[r] = a;
        q[r] = b;
        np[r] = run->n_curve;
        total += run->n_curve;
    }
    *out = mallocCheck((total ? total : 1) * sizeof **out);
    size_t k = tta_quality_curve(ep, q, np, n, *out, total);
    for (size_t r = 0; r < n; r++) {
        free((void *)ep[r]);
        free((void *)q[r]);
    }
    free(ep);
    free(q);
    free(np);
    return k;
}

tta_table *tta_curves_table(const tta_entry_data *e, size_t n) {
    tta_table *t = tta_table_new(curve_columns, Q_COUNT);
    for (size_t i = 0; i < n; i++) {
        tta_identity id = tta_entry_identity(&e[i]);
        tta_curve_stat *c;
        size_t k = tta_entry_curve(&e[i], &c);
        for (size_t j = 0; j < k; j++) {
            size_t row = tta_table_add_row(t);
            tta_table_set_identity(t, row, &id);
            tta_table_set_number(t, row, Q_EPOCH, c[j].epoch);
            tta_table_set_number(t, row, Q_RUNS, (double)c[j].n);
            tta_table_set_number(t, row, Q_MEAN, c[j].mean);
            tta_table_set_number(t, row, Q_STD, c[j].std);
            if (isnan(e[i].target)) tta_table_set_missing(t, row, Q_TARGET, "no known target");
            else tta_table_set_number(t, row, Q_TARGET, e[i].target);
        }
        if (k == 0) {
            size_t row = tta_table_add_row(t);
            tta_table_set_identity(t, row, &id);
            tta_table_set_missing(t, row, Q_EPOCH, "no evaluation with an epoch number");
        }
        free(c);
    }
    return t;
}

void tta_curves_plot(const tta_entry_data *e, size_t n, buf *svg) {
    tta_series *series = callocCheck(n ? n : 1, sizeof *series);
    double **x = callocCheck(n ? n : 1, sizeof *x), **y = callocCheck(n ? n : 1, sizeof *y);
    double **err = callocCheck(n ? n : 1, sizeof *err);
    char **names = callocCheck(n ? n : 1, sizeof *names);
    tta_hline *targets = callocCheck(n ? n : 1, sizeof *targets);
    char **target_labels = callocCheck(n ? n : 1, sizeof *target_labels);
    size_t n_targets = 0;
    for (size_t i = 0; i < n; i++) {
        tta_curve_stat *c;
        size_t k = tta_entry_curve(&e[i], &c);
        x[i] = mallocCheck((k + 1) * sizeof **x);
        y[i] = mallocCheck((k + 1) * sizeof **y);
        err[i] = mallocCheck((k + 1) * sizeof **err);
        for (size_t j = 0; j < k; j++) {
            x[i][j] = c[j].epoch;
            y[i][j] = c[j].mean;
            err[i][j] = c[j].std;
        }
        free(c);
        buf name = {0};
        buf_printf(&name, "%s %s (%zu runs)", e[i].system, e[i].benchmark, e[i].n_runs);
        names[i] = buf_take(&name);
        series[i] = (tta_series){names[i], x[i], y[i], k, err[i], NULL, TTA_MARK_LINE_POINTS, 0, 0};
        /* one target line per distinct target */
        int seen = isnan(e[i].target);
        for (size_t t = 0; t < n_targets && !seen; t++) seen = targets[t].y == e[i].target;
        if (!seen) {
            buf l = {0};
            buf_printf(&l, "target %g (%s)", e[i].target, e[i].benchmark);
            target_labels[n_targets] = buf_take(&l);
            targets[n_targets] = (tta_hline){e[i].target, target_labels[n_targets]};
            n_targets++;
        }
    }
    tta_xy_plot p = {.title = "Quality per epoch: mean and ± std across runs", .x = {.label = "epoch"},
                     .y = {.label = "quality"}, .series = series, .n_series = n, .hlines = targets,
                     .n_hlines = n_targets};
    tta_svg_xy(svg, &p);
    for (size_t i = 0; i < n; i++) {
        free(x[i]);
        free(y[i]);
        free(err[i]);
        free(names[i]);
    }
    for (size_t t = 0; t < n_targets; t++) free(target_labels[t]);
    free(x);
    free(y);
    free(err);
    free(names);
    free(series);
    free(targets);
    free(target_labels);
}

enum { T_FILE = TTA_IDENTITY_COUNT, T_THRESHOLD, T_TTA, T_EPOCHS, T_COUNT };

static const tta_column threshold_columns[T_COUNT] = {
    TTA_IDENTITY_COLUMNS,
    [T_FILE] = {"file", "file", TTA_COL_PATH, 0, TTA_FOR_ALL},
    [T_THRESHOLD] = {"threshold", "threshold", TTA_COL_NUMBER, 4, TTA_FOR_ALL},
    [T_TTA] = {"tta_s", "tta (min)", TTA_COL_MINUTES, 2, TTA_FOR_ALL},
    [T_EPOCHS] = {"epochs", "epochs", TTA_COL_NUMBER, 1, TTA_FOR_ALL},
};

int tta_report_threshold(sqlite3 *db, const tta_filter *f, const double *thresholds, size_t n_thresholds,
                         int format, FILE *out, char **err) {
    tta_entry_data *e;
    size_t n;
    if (tta_entries_load(db, f, 1, &e, &n, err)) return 1;
    tta_table *t = tta_table_new(threshold_columns, T_COUNT);
    for (size_t i = 0; i < n; i++) {
        tta_identity id = tta_entry_identity(&e[i]);
        for (size_t r = 0; r < e[i].n_runs; r++) {
            const tta_run_data *run = &e[i].runs[r];
            double *q = mallocCheck((run->n_curve ? run->n_curve : 1) * sizeof *q);
            for (size_t k = 0; k < run->n_curve; k++) q[k] = run->curve[k].quality;
            for (size_t h = 0; h < n_thresholds; h++) {
                size_t row = tta_table_add_row(t);
                tta_table_set_identity(t, row, &id);
                tta_table_set_text(t, row, T_FILE, run->file);
                tta_table_set_number(t, row, T_THRESHOLD, thresholds[h]);
                long at = tta_first_meeting(q, run->n_curve, thresholds[h], e[i].higher_is_better);
                if (at < 0) {
                    tta_table_set_missing(t, row, T_TTA, "threshold never reached");
                    tta_table_set_missing(t, row, T_EPOCHS, "threshold never reached");
                } else {
                    /* DAWNBench times count from the start of training; MLPerf's from
                     * run_start, as the run's TTA does. */
                    tta_table_set_number(t, row, T_TTA, run->curve[at].time_s);
                    if (isnan(run->curve[at].epoch)) tta_table_set_missing(t, row, T_EPOCHS, "epoch not logged");
                    else tta_table_set_number(t, row, T_EPOCHS, run->curve[at].epoch);
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
