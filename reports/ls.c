/* ls.c: `tta ls runs|entries|systems`. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "reports/builders.h"
#include "reports/dataset.h"
#include "reports/render.h"
#include "reports/reports.h"

static const tta_column run_columns[] = {
    TTA_IDENTITY_COLUMNS,
    {"file", "file", TTA_COL_PATH, 0, TTA_FOR_ALL},
    {"status", "status", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    {"reached", "reached", TTA_COL_BOOL, 0, TTA_FOR_ALL},
    {"tta_s", "tta (min)", TTA_COL_MINUTES, 2, TTA_FOR_ALL},
    {"epochs", "epochs", TTA_COL_NUMBER, 1, TTA_FOR_ALL},
    {"accelerators", "acc", TTA_COL_INT, 0, TTA_FOR_ALL},
    {"global_batch_size", "batch", TTA_COL_INT, 0, TTA_FOR_ALL},
    {"progress", "progress", TTA_COL_NUMBER, 3, TTA_FOR_SCRIPTS},
    {"progress_unit", "unit", TTA_COL_TEXT, 0, TTA_FOR_SCRIPTS},
    {"success_unmet", "unmet", TTA_COL_BOOL, 0, TTA_FOR_SCRIPTS},
    {"flags", "flags", TTA_COL_TEXT, 0, TTA_FOR_ALL},
};

static const tta_column entry_columns[] = {
    TTA_IDENTITY_COLUMNS,
    {"runs", "runs", TTA_COL_INT, 0, TTA_FOR_ALL},
    {"reached", "reached", TTA_COL_INT, 0, TTA_FOR_ALL},
    {"accelerators", "acc", TTA_COL_INT, 0, TTA_FOR_ALL},
    {"metric", "metric", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    {"target", "target", TTA_COL_NUMBER, 3, TTA_FOR_ALL},
    {"tta_mean_s", "mean tta (min)", TTA_COL_MINUTES, 2, TTA_FOR_ALL},
};

/* A system description belongs to no entry (no id, no benchmark); its name (the description's
 * file name) is what the entries call their system. Ordered as listed: round, submitter, name. */
static const tta_column system_columns[] = {
    TTA_ROUND_COLUMN,
    TTA_SUBMITTER_COLUMN,
    TTA_SYSTEM_COLUMN,
    TTA_DIVISION_COLUMN,
    {"accelerator_model", "accelerator", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    {"accelerators", "acc", TTA_COL_INT, 0, TTA_FOR_ALL},
    {"nodes", "nodes", TTA_COL_INT, 0, TTA_FOR_ALL},
    {"host_processor", "host processor", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    {"framework", "framework", TTA_COL_TEXT, 0, TTA_FOR_ALL},
};

static void set_count(tta_table *t, size_t row, size_t col, int v, const char *why) {
    if (v >= 0) tta_table_set_number(t, row, col, v);
    else tta_table_set_missing(t, row, col, why);
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
            if (!isnan(r->epochs)) tta_table_set_number(t, row, 10, r->epochs);
            else if (!isnan(r->progress)) {
                buf why = {0};
                buf_printf(&why, "progress counts %s; the rules give no epoch size", e[i].unit ? e[i].unit : "samples");
                tta_table_set_missing(t, row, 10, buf_str(&why));
                buf_free(&why);
            } else
                tta_table_set_missing(t, row, 10, "did not converge, or progress not logged");
            set_count(t, row, 11, e[i].accelerators, "no system description");
            if (isnan(r->global_batch_size)) tta_table_set_missing(t, row, 12, "batch size not logged");
            else tta_table_set_number(t, row, 12, r->global_batch_size);
            if (isnan(r->progress)) tta_table_set_missing(t, row, 13, "did not converge, or progress not logged");
            else tta_table_set_number(t, row, 13, r->progress);
            tta_table_set_text(t, row, 14, e[i].unit);
            tta_table_set_bool(t, row, 15, r->success_unmet);
            /* each flag's reason as the run's note (run_flags, worked out when the run was written) */
            tta_table_set_text(t, row, 16, r->flags ? r->flags : "");
            tta_table_note_run_flags(t, row, r);
        }
    return 0;
}

static int ls_entries(const tta_entry_data *e, size_t n, tta_table *t) {
    for (size_t i = 0; i < n; i++) {
        size_t row = tta_table_add_row(t);
        int reached = 0;
        double sum = 0;
        int timed = 0;
        for (size_t j = 0; j < e[i].n_runs; j++) {
            reached += e[i].runs[j].reached == 1;
            if (!isnan(e[i].runs[j].tta_s)) {
                sum += e[i].runs[j].tta_s;
                timed++;
            }
        }
        tta_identity id = tta_entry_identity(&e[i]);
        tta_table_set_identity(t, row, &id);
        tta_table_set_number(t, row, 6, (double)e[i].n_runs);
        tta_table_set_number(t, row, 7, reached);
        set_count(t, row, 8, e[i].accelerators, "no system description");
        /* Replays (and rounds without rules) take the target their runs logged: the rules, which
         * name the metric, say nothing then, but the target is known. */
        if (e[i].metric) tta_table_set_text(t, row, 9, e[i].metric);
        else if (!isnan(e[i].target)) tta_table_set_missing(t, row, 9, "not named by rules for this round (the target is the runs' own)");
        else tta_table_set_missing(t, row, 9, "no known target for this benchmark");
        tta_table_set_number_or(t, row, 10, e[i].target, "no known target for this benchmark");
        if (timed) tta_table_set_number(t, row, 11, sum / timed);
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
        t = runs ? tta_table_new(run_columns, sizeof run_columns / sizeof run_columns[0])
                 : tta_table_new(entry_columns, sizeof entry_columns / sizeof entry_columns[0]);
        rc = runs ? ls_runs(e, n, t) : ls_entries(e, n, t);
        tta_entries_free(e, n);
    }
    if (rc == TTA_OK) tta_table_write(t, (tta_out_format)format, out);
    tta_table_free(t);
    return rc;
}
