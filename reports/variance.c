/* variance.c: `tta report variance`: per entry, how stable the TTA is and where its variance
 * comes from (epochs to target or time per epoch). */
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
    C_ROUND, C_DIVISION, C_SUBMITTER, C_SYSTEM, C_BENCHMARK, C_ACC, C_RUNS, C_REACHED, C_SCORE, C_SCALING,
    C_SCORE_UNSCALED, C_TTA_MEAN,
    C_CV, C_CV_LOW, C_CV_HIGH, C_CV_CI, C_EPOCHS_MEAN, C_EPOCHS_STD, C_TPE_MEAN, C_TPE_STD, C_CV_RATIO,
    C_SHARE, C_ENERGY_J, C_ENERGY_KWH, C_COUNT
};

static const tta_column variance_columns[C_COUNT] = {
    [C_ROUND] = {"round", "round", TTA_COL_TEXT, 0, 0},
    [C_DIVISION] = {"division", "div", TTA_COL_TEXT, 0, 0},
    [C_SUBMITTER] = {"submitter", "submitter", TTA_COL_TEXT, 0, 0},
    [C_SYSTEM] = {"system", "system", TTA_COL_TEXT, 0, 0},
    [C_BENCHMARK] = {"benchmark", "bench", TTA_COL_TEXT, 0, 0},
    [C_ACC] = {"accelerators", "acc", TTA_COL_INT, 0, 0},
    [C_RUNS] = {"runs", "runs", TTA_COL_INT, 0, 0},
    [C_REACHED] = {"reached", "ok", TTA_COL_INT, 0, 0},
    [C_SCORE] = {"score_min", "score (min)", TTA_COL_NUMBER, 2, 0},
    [C_SCALING] = {"scaling_factor", "scaling", TTA_COL_NUMBER, 4, TTA_FOR_SCRIPTS},
    [C_SCORE_UNSCALED] = {"score_unscaled_min", "unscaled (min)", TTA_COL_NUMBER, 2, TTA_FOR_SCRIPTS},
    [C_TTA_MEAN] = {"tta_mean_s", "mean tta (min)", TTA_COL_MINUTES, 2, TTA_FOR_SCRIPTS},
    [C_CV] = {"cv", "cv (%)", TTA_COL_PERCENT, 1, 0},
    [C_CV_LOW] = {"cv_ci_low", "cv low (%)", TTA_COL_PERCENT, 1, TTA_FOR_SCRIPTS},
    [C_CV_HIGH] = {"cv_ci_high", "cv high (%)", TTA_COL_PERCENT, 1, TTA_FOR_SCRIPTS},
    [C_CV_CI] = {"cv_ci", "95% CI (%)", TTA_COL_TEXT, 0, TTA_FOR_PEOPLE},
    [C_EPOCHS_MEAN] = {"epochs_mean", "epochs", TTA_COL_NUMBER, 1, 0},
    [C_EPOCHS_STD] = {"epochs_std", "± ep", TTA_COL_NUMBER, 1, TTA_FOR_SCRIPTS},
    [C_TPE_MEAN] = {"tpe_mean_s", "s/epoch", TTA_COL_SECONDS, 1, 0},
    [C_TPE_STD] = {"tpe_std_s", "± s", TTA_COL_SECONDS, 1, TTA_FOR_SCRIPTS},
    [C_CV_RATIO] = {"cv_ratio", "cv ratio", TTA_COL_NUMBER, 2, 0},
    [C_SHARE] = {"log_var_share_epochs", "ep share", TTA_COL_PERCENT, 0, 0},
    /* entries with power logs only (reports/energy.c): the summarizer's energy score */
    [C_ENERGY_J] = {"energy_j", "energy (J)", TTA_COL_NUMBER, 0, TTA_FOR_SCRIPTS},
    [C_ENERGY_KWH] = {"energy_kwh", "energy (kWh)", TTA_COL_NUMBER, 2, TTA_FOR_SCRIPTS},
};

/* Fills one row for entry e. */
static void variance_row(tta_table *t, const tta_entry_data *e) {
    size_t row = tta_table_add_row(t);
    tta_entry_summary s;
    tta_summarize_entry(e, &s, 1);
    tta_table_set_text(t, row, C_ROUND, e->round);
    tta_table_set_text(t, row, C_DIVISION, e->division);
    tta_table_set_text(t, row, C_SUBMITTER, e->submitter);
    tta_table_set_text(t, row, C_SYSTEM, e->system);
    tta_table_set_text(t, row, C_BENCHMARK, e->benchmark);
    if (e->accelerators >= 0) tta_table_set_number(t, row, C_ACC, e->accelerators);
    else tta_table_set_missing(t, row, C_ACC, "no system description");
    tta_table_set_number(t, row, C_RUNS, (double)s.runs);
    tta_table_set_number(t, row, C_REACHED, (double)s.reached);
    /* The published score: the olympic mean times the folder's scaling.json factor. */
    tta_table_set_number_or(t, row, C_SCORE, s.published_s / 60.0, s.score.why);
    tta_table_set_number(t, row, C_SCALING, s.scaling_factor);
    tta_table_set_number_or(t, row, C_SCORE_UNSCALED, s.score.score / 60.0, s.score.why);
    if (!isnan(s.published_s) && s.scaling_factor != 1.0) {
        buf b = {0};
        buf_printf(&b, "score × %.4f (scaling.json: RCP normalisation)", s.scaling_factor);
        tta_table_add_note(t, row, buf_str(&b));
        buf_free(&b);
    }
    if (!isnan(s.score.score) && s.score.why) tta_table_add_note(t, row, s.score.why);
    tta_table_set_number_or(t, row, C_TTA_MEAN, s.tta_mean_s, "no successful run");
    const char *cv_why = s.succeeded == 0 ? "no successful run" : s.cv.why;
    /* One run has no spread: its CV of 0 would read as perfectly stable. */
    tta_table_set_number_or(t, row, C_CV, s.succeeded >= 2 ? s.cv.cv : NAN, s.succeeded == 1 ? "one successful run" : cv_why);
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
    const tta_decomposition *d = &s.dec;
    const char *dwhy = d->why ? d->why : "not computable";
    tta_table_set_number_or(t, row, C_EPOCHS_MEAN, d->epochs_mean, dwhy);
    tta_table_set_number_or(t, row, C_EPOCHS_STD, d->epochs_std, dwhy);
    tta_table_set_number_or(t, row, C_TPE_MEAN, d->tpe_mean, dwhy);
    tta_table_set_number_or(t, row, C_TPE_STD, d->tpe_std, dwhy);
    tta_table_set_number_or(t, row, C_CV_RATIO, d->cv_ratio, dwhy);
    tta_table_set_number_or(t, row, C_SHARE, d->log_share_epochs, dwhy);
}

tta_table *tta_variance_table(const tta_entry_data *e, size_t n) {
    tta_table *t = tta_table_new(variance_columns, C_COUNT);
    for (size_t i = 0; i < n; i++) variance_row(t, &e[i]);
    return t;
}

void tta_variance_plot(const tta_entry_data *e, size_t n, buf *svg) {
    tta_strip_group *g = callocCheck(n ? n : 1, sizeof *g);
    double **values = callocCheck(n ? n : 1, sizeof *values);
    char **names = callocCheck(n ? n : 1, sizeof *names);
    for (size_t i = 0; i < n; i++) {
        values[i] = mallocCheck((e[i].n_runs + 1) * sizeof **values);
        size_t k = 0;
        for (size_t r = 0; r < e[i].n_runs; r++)
            if (tta_run_succeeded(&e[i].runs[r]))
                values[i][k++] = e[i].runs[r].tta_s / 60.0;
        buf b = {0};
        buf_printf(&b, "%s %s", e[i].system, e[i].benchmark);
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
    tta_strip_plot p = {.title = "Time to accuracy of each successful run",
                        .y = {.label = "TTA (min)", .scale = log_axis ? TTA_AXIS_LOG10 : TTA_AXIS_LINEAR,
                              .include_zero = !log_axis},
                        .value_name = "run", .groups = g, .n_groups = n};
    tta_svg_strip(svg, &p);
    for (size_t i = 0; i < n; i++) {
        free(values[i]);
        free(names[i]);
    }
    free(values);
    free(names);
    free(g);
}

/* The energy score of the entries with power logs (empty, without a reason, for the others). */
static int variance_energy(sqlite3 *db, const tta_entry_data *e, size_t n, tta_table *t, char **err) {
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

int tta_report_variance(sqlite3 *db, const tta_filter *f, const tta_report_options *o, FILE *out, char **err) {
    /* Energy is for scripts: the text table and Markdown do not show it. */
    int scripts = o->format == TTA_FORMAT_CSV || o->format == TTA_FORMAT_JSON;
    return tta_run_table_report_finished(db, f, 0, tta_variance_table, scripts ? variance_energy : NULL,
                                         tta_variance_plot, o->format, out, o->svg_path, err);
}
