/* ls.c: `tta ls runs|entries|systems`. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "reports/builders.h"
#include "reports/dataset.h"
#include "reports/render.h"
#include "reports/reports.h"
#include "reports/summary.h"
#include "reports/units.h"

static const tta_column run_columns[] = {
    TTA_IDENTITY_COLUMNS,
    {"file", "file", TTA_COL_PATH, 0, TTA_FOR_ALL},
    {"status", "status", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    {"reached", "reached", TTA_COL_BOOL, 0, TTA_FOR_ALL},
    /* run_stop - run_start of every run, aborted or not: a time to accuracy only where the run
     * succeeded (DAWNBench: the time of the first epoch at the threshold); the key stays tta_s */
    {"tta_s", "duration (min)", TTA_COL_MINUTES, 2, TTA_FOR_ALL},
    {"epochs", "epochs", TTA_COL_NUMBER, 1, TTA_FOR_ALL},
    {"accelerators", "accel", TTA_COL_INT, 0, TTA_FOR_ALL},
    {"global_batch_size", "batch", TTA_COL_INT, 0, TTA_FOR_ALL},
    {"progress", "progress", TTA_COL_NUMBER, 3, TTA_FOR_SCRIPTS},
    {"progress_unit", "unit", TTA_COL_TEXT, 0, TTA_FOR_SCRIPTS},
    {"success_unmet", "unmet", TTA_COL_BOOL, 0, TTA_FOR_SCRIPTS},
    {"flags", "flags", TTA_COL_TEXT, 0, TTA_FOR_ALL},
};

enum {
    L_RUNS = TTA_IDENTITY_COUNT, L_SUCCEEDED, L_REACHED, L_ACC, L_METRIC, L_TARGET, L_QUALITY_UNIT, L_MEAN, L_COST_HOUR, L_COST, L_LOGS_URL, L_DESCRIPTION_URL,
    L_COUNT
};

/* The columns of `ls entries`: the target in the common quality scale (units.h), in percent for
 * people when every entry's metric is an accuracy (all_accuracy). */
static void entry_columns(int all_accuracy, tta_column *c) {
    const tta_column cols[L_COUNT] = {
        TTA_IDENTITY_COLUMNS,
        [L_RUNS] = {"runs", "runs", TTA_COL_INT, 0, TTA_FOR_ALL},
        [L_SUCCEEDED] = {"succeeded", "ok", TTA_COL_INT, 0, TTA_FOR_ALL},
        [L_REACHED] = {"reached", "reached", TTA_COL_INT, 0, TTA_FOR_ALL},
        [L_ACC] = {"accelerators", "accel", TTA_COL_INT, 0, TTA_FOR_ALL},
        [L_METRIC] = {"metric", "metric", TTA_COL_TEXT, 0, TTA_FOR_ALL},
        [L_TARGET] = tta_quality_column("target", "target", "target (%)", all_accuracy ? 1 : 3, all_accuracy),
        [L_QUALITY_UNIT] = tta_quality_unit_column(all_accuracy),
        [L_MEAN] = {"tta_mean_s", "mean tta of successful runs (min)", TTA_COL_MINUTES, 2, TTA_FOR_ALL},
        [L_COST_HOUR] = {"cost_per_hour_usd", "$/h", TTA_COL_NUMBER, 2, TTA_FOR_SCRIPTS},
        /* DAWNBench's cost to accuracy: cost per hour x the mean TTA in hours */
        [L_COST] = {"cost_usd", "cost ($)", TTA_COL_NUMBER, 2, TTA_FOR_ALL},
        [L_LOGS_URL] = TTA_LOGS_URL_COLUMN,
        [L_DESCRIPTION_URL] = TTA_DESCRIPTION_URL_COLUMN,
    };
    memcpy(c, cols, sizeof cols);
}

/* A system description belongs to no entry (no id, no benchmark); its name (the description's
 * file name) is what the entries call their system. Ordered as listed: round, submitter, name. */
static const tta_column system_columns[] = {
    TTA_ROUND_COLUMN,
    TTA_SUBMITTER_COLUMN,
    TTA_SYSTEM_COLUMN,
    TTA_DIVISION_COLUMN,
    {"accelerator_model", "accelerator", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    {"accelerators", "accel", TTA_COL_INT, 0, TTA_FOR_ALL},
    {"nodes", "nodes", TTA_COL_INT, 0, TTA_FOR_ALL},
    {"host_processor", "host processor", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    {"framework", "framework", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    {"availability", "availability", TTA_COL_TEXT, 0, TTA_FOR_ALL}, /* the description's status */
};

static void set_count(tta_table *t, size_t row, size_t col, int v, const char *why) {
    if (v >= 0) tta_table_set_number(t, row, col, v);
    else tta_table_set_missing(t, row, col, why);
}

/* Why run r has no convergence point (r->progress is NAN), as its log tells. */
static const char *no_progress_why(const tta_run_data *r) {
    if (r->reached == 1) return "reached the target, but the log gives no convergence point (progress not logged)";
    if (r->reached == 0) return "did not reach the target";
    return "no evaluation against a known target";
}

static int ls_runs(const tta_entry_data *e, size_t n, tta_table *t) {
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < e[i].n_runs; j++) {
            const tta_run_data *r = &e[i].runs[j];
            size_t row = tta_table_add_row(t);
            tta_identity id = tta_entry_identity(&e[i]);
            tta_table_set_identity(t, row, &id);
            tta_table_set_text(t, row, 6, r->file);
            tta_table_set_text(t, row, 7, r->status);
            if (r->reached >= 0) tta_table_set_bool(t, row, 8, r->reached);
            else tta_table_set_missing(t, row, 8, "no evaluation against a known target");
            if (isnan(r->tta_s)) tta_table_set_missing(t, row, 9, "no run_start/run_stop (or threshold never met)");
            else tta_table_set_number(t, row, 9, r->tta_s);
            if (!isnan(r->tta_s) && !tta_run_succeeded(r))
                tta_table_add_note(t, row, "did not succeed: its duration is no time to accuracy");
            if (!isnan(r->epochs)) tta_table_set_number(t, row, 10, r->epochs);
            else if (!isnan(r->progress)) {
                buf why = {0};
                buf_printf(&why, "progress counts %s; the rules give no epoch size", e[i].unit ? e[i].unit : "samples");
                tta_table_set_missing(t, row, 10, buf_str(&why));
                buf_free(&why);
            } else
                tta_table_set_missing(t, row, 10, no_progress_why(r));
            set_count(t, row, 11, e[i].accelerators, "no system description");
            if (isnan(r->global_batch_size)) tta_table_set_missing(t, row, 12, "batch size not logged");
            else tta_table_set_number(t, row, 12, r->global_batch_size);
            if (isnan(r->progress)) tta_table_set_missing(t, row, 13, no_progress_why(r));
            else tta_table_set_number(t, row, 13, r->progress);
            tta_table_set_text(t, row, 14, e[i].unit);
            tta_table_set_bool(t, row, 15, r->success_unmet);
            /* each flag's reason as the run's note (run_flags, worked out when the run was written) */
            tta_table_set_text(t, row, 16, r->flags ? r->flags : "");
            tta_table_note_run_flags(t, row, r);
        }
    return 0;
}

/* One row per entry: runs, successful runs (tta_run_succeeded), runs that reached the target,
 * the target in the common scale and the mean TTA of the successful runs only. */
static int ls_entries(const tta_entry_data *e, size_t n, tta_table *t) {
    for (size_t i = 0; i < n; i++) {
        size_t row = tta_table_add_row(t);
        int reached = 0, succeeded = 0;
        double sum = 0;
        for (size_t j = 0; j < e[i].n_runs; j++) {
            reached += e[i].runs[j].reached == 1;
            if (tta_run_succeeded(&e[i].runs[j])) {
                sum += e[i].runs[j].tta_s;
                succeeded++;
            }
        }
        tta_identity id = tta_entry_identity(&e[i]);
        tta_quality_view v = tta_entry_quality(&e[i]);
        tta_table_set_identity(t, row, &id);
        tta_table_set_number(t, row, L_RUNS, (double)e[i].n_runs);
        tta_table_set_number(t, row, L_SUCCEEDED, succeeded);
        tta_table_set_number(t, row, L_REACHED, reached);
        set_count(t, row, L_ACC, e[i].accelerators, "no system description");
        /* Replays (and rounds without rules) take the target their runs logged: the rules of the
         * round name no metric then; a replay's is its benchmark's latest rule's. */
        if (e[i].metric) tta_table_set_text(t, row, L_METRIC, e[i].metric);
        else if (v.metric && !isnan(e[i].target)) tta_table_set_text(t, row, L_METRIC, v.metric);
        else if (!isnan(e[i].target)) tta_table_set_missing(t, row, L_METRIC, "not named by rules for this round (the target is the runs' own)");
        else tta_table_set_missing(t, row, L_METRIC, "no known target for this benchmark");
        tta_table_set_number_or(t, row, L_TARGET, tta_quality_common(&v, e[i].target), "no known target for this benchmark");
        tta_table_set_text(t, row, L_QUALITY_UNIT, v.unit);
        if (succeeded) tta_table_set_number(t, row, L_MEAN, sum / succeeded);
        else tta_table_set_missing(t, row, L_MEAN, "no successful run");
        /* blank, without a footnote, where the description gives no cost per hour (MLPerf) */
        if (!isnan(e[i].cost_per_hour)) {
            tta_table_set_number(t, row, L_COST_HOUR, e[i].cost_per_hour);
            if (succeeded) tta_table_set_number(t, row, L_COST, e[i].cost_per_hour * sum / succeeded / 3600.0);
            else tta_table_set_missing(t, row, L_COST, "no successful run");
        }
        tta_table_set_published(t, row, &e[i]);
        tta_table_note_flags(t, row, &e[i], NULL);
    }
    return 0;
}

static int ls_systems(sqlite3 *db, const tta_filter *f, tta_table *t, tta_error *err) {
    tta_system_row *s;
    size_t n;
    int rc = tta_db_systems(db, f, &s, &n, err);
    if (rc != TTA_OK) return rc;
    for (size_t i = 0; i < n; i++) {
        size_t row = tta_table_add_row(t);
        tta_identity id = {.round = s[i].round, .division = s[i].division, .submitter = s[i].submitter,
                           .system = s[i].name};
        tta_table_set_identity(t, row, &id);
        if (s[i].accelerator_model) tta_table_set_text(t, row, 4, s[i].accelerator_model);
        if (s[i].accelerators >= 0) tta_table_set_number(t, row, 5, s[i].accelerators);
        if (s[i].nodes >= 0) tta_table_set_number(t, row, 6, s[i].nodes);
        if (s[i].host_processor) tta_table_set_text(t, row, 7, s[i].host_processor);
        if (s[i].framework) tta_table_set_text(t, row, 8, s[i].framework);
        if (s[i].status) tta_table_set_text(t, row, 9, s[i].status);
    }
    tta_system_rows_free(s, n);
    return TTA_OK;
}

/* Contract in reports.h. */
int tta_report_ls(sqlite3 *db, const char *what, const tta_filter *f, int format, FILE *out, tta_error *err) {
    tta_table *t;
    int rc = TTA_OK;
    if (!strcmp(what, "systems")) {
        t = tta_table_new(system_columns, sizeof system_columns / sizeof system_columns[0]);
        rc = ls_systems(db, f, t, err);
    } else {
        int runs = !strcmp(what, "runs");
        if (!runs && strcmp(what, "entries"))
            return tta_fail(err, TTA_EINPUT, "nothing to list called '%s' (runs, entries, systems)", what);
        tta_entry_data *e;
        size_t n;
        rc = tta_db_entries(db, f, 0, &e, &n, err);
        if (rc != TTA_OK) return rc;
        tta_column cols[L_COUNT];
        entry_columns(tta_entries_all_accuracy(e, n), cols);
        t = runs ? tta_table_new(run_columns, sizeof run_columns / sizeof run_columns[0]) : tta_table_new(cols, L_COUNT);
        if (runs) { /* on a narrow terminal the batch size, then the epochs give way first (said below) */
            tta_table_set_fit(t, (size_t)tta_table_column(t, "global_batch_size"), 0, 2);
            tta_table_set_fit(t, (size_t)tta_table_column(t, "epochs"), 0, 1);
        }
        rc = runs ? ls_runs(e, n, t) : ls_entries(e, n, t);
        tta_entries_free(e, n);
    }
    if (rc == TTA_OK) tta_table_write(t, (tta_out_format)format, out);
    tta_table_free(t);
    return rc;
}
