/* rcp.c: `tta report rcp --rcp-dir DIR`: each entry's verdict, message and normalisation factor as
 * MLCommons' RCP checker (check_directory, rcp_pass "pruned_rcps") gives them, from each run's
 * convergence point as the database keeps it (run_tta.progress, read the checker's way) and the
 * benchmark rules (rule_rounds, benchmark_rules). DIR is one training_X.Y.Z folder (every entry is
 * checked against it) or a folder of such folders (each entry against its round's ruleset). Entries
 * the checker cannot judge (no folder, no file, a converged run without a convergence point) get a
 * note instead of a verdict. */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/check.h"
#include "common/rules.h"
#include "reports/builders.h"
#include "reports/dataset.h"
#include "reports/render.h"
#include "reports/reports.h"
#include "stats/stats.h"

enum {
    R_ID, R_ROUND, R_RULESET, R_DIVISION, R_SUBMITTER, R_SYSTEM, R_BENCHMARK, R_RUNS, R_BS, R_VERDICT, R_MESSAGE,
    R_RCP_MEAN, R_MIN_MEAN, R_SUBM_MEAN, R_MEAN_UNIT, R_NORM, R_UNIT, R_COUNT
};

/* People see the verdict with the checker's message, the submission's mean against the smallest
 * passing one (with its unit) and the factor; scripts get every column. The ruleset the entry is checked against
 * follows its round; the division is for scripts only (rcp_table). */
static const tta_column rcp_columns[R_COUNT] = {
    [R_ID] = TTA_ENTRY_COLUMN,
    [R_ROUND] = TTA_ROUND_COLUMN,
    [R_RULESET] = {"ruleset", "rules", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [R_DIVISION] = TTA_DIVISION_COLUMN,
    [R_SUBMITTER] = TTA_SUBMITTER_COLUMN,
    [R_SYSTEM] = TTA_SYSTEM_COLUMN,
    [R_BENCHMARK] = TTA_BENCHMARK_COLUMN,
    [R_RUNS] = {"runs", "runs", TTA_COL_INT, 0, TTA_FOR_SCRIPTS},
    [R_BS] = {"bs", "batch", TTA_COL_INT, 0, TTA_FOR_ALL},
    [R_VERDICT] = {"verdict", "verdict", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [R_MESSAGE] = {"message", "message", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [R_RCP_MEAN] = {"rcp_mean", "rcp mean", TTA_COL_NUMBER, 2, TTA_FOR_SCRIPTS},
    [R_MIN_MEAN] = {"min_mean", "min ok", TTA_COL_NUMBER, 2, TTA_FOR_SCRIPTS},
    [R_SUBM_MEAN] = {"subm_mean", "mean", TTA_COL_NUMBER, 2, TTA_FOR_ALL},
    /* the mean's unit beside it for people (epochs or samples, as the benchmark's rule counts);
     * scripts read progress_unit */
    [R_MEAN_UNIT] = {"mean_unit", "unit", TTA_COL_TEXT, 0, TTA_FOR_PEOPLE},
    [R_NORM] = {"normalization", "norm", TTA_COL_NUMBER, 4, TTA_FOR_ALL},
    [R_UNIT] = {"progress_unit", "unit", TTA_COL_TEXT, 0, TTA_FOR_SCRIPTS},
};

/* The table of rcp_columns, whose division only scripts get: people's table leaves its width to
 * the checker's message. */
static tta_table *rcp_table(void) {
    tta_column cols[R_COUNT];
    memcpy(cols, rcp_columns, sizeof cols);
    cols[R_DIVISION].audience = TTA_FOR_SCRIPTS;
    return tta_table_new(cols, R_COUNT);
}

/* Marks the verdict and every statistic of the row missing for why. */
static void no_verdict(tta_table *t, size_t row, const char *why) {
    for (int col = R_VERDICT; col <= R_NORM; col++) tta_table_set_missing(t, row, (size_t)col, why);
}

/* The row's note naming the entry's flagged runs (run_flags: an aborted run counts as not converged
 * for the checker; the others are read as logged): up to three by name, then how many more. */
static void flags_note(tta_table *t, size_t row, const tta_rcp_entry_row *x) {
    buf b = {0};
    size_t flagged = 0;
    for (size_t j = 0; j < x->n_runs; j++) {
        const tta_rcp_run_row *r = &x->runs[j];
        if (!r->flags || !*r->flags) continue;
        if (flagged++ < 3) {
            const char *name = r->file ? strrchr(r->file, '/') : NULL;
            buf_printf(&b, "%s%s (%s)", flagged > 1 ? "; " : "flagged runs (tta ls runs says why): ",
                       name ? name + 1 : r->file ? r->file : "?", r->flags);
        }
    }
    if (flagged > 3) buf_printf(&b, " and %zu more", flagged - 3);
    if (flagged) tta_table_add_note(t, row, buf_str(&b));
    buf_free(&b);
}

int tta_report_rcp(sqlite3 *db, const tta_filter *f, const char *rcp_dir, int format, FILE *out, char **err) {
    static const tta_filter all = {0};
    if (!f) f = &all;
    tta_rcp_judge *judge;
    tta_error judge_err;
    if (tta_rcp_judge_new(rcp_dir, &judge, &judge_err) != TTA_OK) return tta_report_fail(&judge_err, err);
    tta_rcp_entry_row *rows;
    size_t n;
    tta_error db_err;
    if (tta_db_rcp_entries(db, f, &rows, &n, &db_err) != TTA_OK) {
        tta_rcp_judge_free(judge);
        return tta_report_fail(&db_err, err);
    }
    tta_table *t = rcp_table();
    buf why = {0};
    for (size_t i = 0; i < n; i++) {
        const tta_rcp_entry_row *x = &rows[i];
        size_t row = tta_table_add_row(t);
        tta_identity id = {.id = x->id, .round = x->round, .division = x->division, .submitter = x->submitter,
                           .system = x->system, .benchmark = x->benchmark};
        tta_table_set_identity(t, row, &id);
        tta_table_set_text(t, row, R_RULESET, x->ruleset);
        tta_table_set_number(t, row, R_RUNS, (double)x->n_runs);
        tta_table_set_text(t, row, R_UNIT, x->unit);
        tta_table_set_text(t, row, R_MEAN_UNIT, x->unit);
        flags_note(t, row, x);
        buf_clear(&why);
        tta_rcp_result r;
        if (!tta_rcp_judge_entry(judge, x, &r, &why)) {
            no_verdict(t, row, buf_str(&why));
            continue;
        }
        tta_table_set_number_or(t, row, R_BS, r.bs, r.msg);
        tta_table_set_text(t, row, R_VERDICT, r.pass ? "pass" : "fail");
        tta_table_set_text(t, row, R_MESSAGE, r.msg);
        const char *unevaluated = "no reference point was evaluated";
        tta_table_set_number_or(t, row, R_RCP_MEAN, r.rcp_mean, unevaluated);
        tta_table_set_number_or(t, row, R_MIN_MEAN, r.min_mean, unevaluated);
        tta_table_set_number_or(t, row, R_SUBM_MEAN, r.subm_mean,
                                r.kind == TTA_RCP_INSUFFICIENT ? "Insufficient convergence" : "too few runs");
        tta_table_set_number_or(t, row, R_NORM, r.normalization, "too few runs");
    }
    tta_table_write(t, (tta_out_format)format, out);
    tta_table_free(t);
    buf_free(&why);
    tta_rcp_judge_free(judge);
    tta_rcp_entries_free(rows, n);
    return 0;
}
