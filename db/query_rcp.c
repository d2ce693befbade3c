/* query_rcp.c: the entries of a selection as MLCommons' RCP checker sees them: each with its
 * round's ruleset and its benchmark's rule there, and each run as the checker reads its file
 * (converged or not, its convergence point run_tta.progress, its batch size), in file order (the
 * checker's glob). Two queries; the entries and their runs come in the same order. */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "db/query.h"

/* Each entry with its round's ruleset and the rule of its benchmark there (NULLs without one). */
static const char entries_sql[] =
    "SELECT e.id, e.round, rr.ruleset, e.division, e.submitter, e.system, e.benchmark,"
    "  b.benchmark IS NOT NULL, b.rcp, b.rcp_name, COALESCE(b.progress_unit, 'epochs')"
    " FROM entries e"
    " LEFT JOIN rule_rounds rr ON rr.round = e.round"
    " LEFT JOIN benchmark_rules b ON b.ruleset = rr.ruleset AND b.benchmark = e.benchmark"
    " WHERE" DB_ENTRY_FILTER("e") " AND EXISTS (SELECT 1 FROM runs r WHERE r.entry_id = e.id)"
    " ORDER BY e.round, e.division, e.submitter, e.system, e.benchmark, e.id";

/* Each run: converged when its last run_stop says success, its convergence point and batch size. */
static const char runs_sql[] =
    "SELECT t.entry_id, t.file, x.converged, t.progress, t.global_batch_size, t.flags"
    " FROM run_tta t JOIN run_facts x ON x.run_id = t.run_id JOIN entries e ON e.id = t.entry_id"
    " WHERE" DB_ENTRY_FILTER("e") " ORDER BY e.round, e.division, e.submitter, e.system, e.benchmark, e.id, t.file";

void tta_rcp_entries_free(tta_rcp_entry_row *e, size_t n) {
    for (size_t i = 0; i < n; i++) {
        free(e[i].round);
        free(e[i].ruleset);
        free(e[i].division);
        free(e[i].submitter);
        free(e[i].system);
        free(e[i].benchmark);
        free(e[i].rcp_name);
        free(e[i].unit);
        for (size_t j = 0; j < e[i].n_runs; j++) {
            free(e[i].runs[j].file);
            free(e[i].runs[j].flags);
        }
        free(e[i].runs);
    }
    free(e);
}

int tta_db_rcp_entries(sqlite3 *db, const tta_filter *f, tta_rcp_entry_row **out, size_t *n_out, tta_error *err) {
    assert(db && out && n_out);
    *out = NULL;
    *n_out = 0;
    sqlite3_stmt *st;
    int rc = db_prepare_filtered(db, entries_sql, f, &st, "loading entries", err);
    if (rc != TTA_OK) return rc;
    tta_rcp_entry_row *e = NULL;
    size_t n = 0, cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        growArray(e, &cap, n + 1);
        tta_rcp_entry_row *x = &e[n++];
        memset(x, 0, sizeof *x);
        x->id = sqlite3_column_int64(st, 0);
        x->round = db_col_text(st, 1);
        x->ruleset = db_col_text(st, 2);
        x->division = db_col_text(st, 3);
        x->submitter = db_col_text(st, 4);
        x->system = db_col_text(st, 5);
        x->benchmark = db_col_text(st, 6);
        x->has_rule = sqlite3_column_int(st, 7);
        x->rcp = sqlite3_column_int(st, 8);
        x->rcp_name = db_col_text(st, 9);
        x->unit = db_col_text(st, 10);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        tta_rcp_entries_free(e, n);
        return db_fail(err, db, "loading entries");
    }
    rc = db_prepare_filtered(db, runs_sql, f, &st, "loading runs", err);
    if (rc != TTA_OK) {
        tta_rcp_entries_free(e, n);
        return rc;
    }
    size_t k = 0; /* both queries list entries in the same order: walk them together */
    size_t *caps = callocCheck(n ? n : 1, sizeof *caps);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        while (k < n && e[k].id != id) k++;
        assert(k < n); /* every run's entry was listed */
        tta_rcp_entry_row *x = &e[k];
        growArray(x->runs, &caps[k], x->n_runs + 1);
        x->runs[x->n_runs++] = (tta_rcp_run_row){
            .file = db_col_text(st, 1),
            .converged = sqlite3_column_int(st, 2),
            .progress = db_col_real(st, 3),
            .global_batch_size = db_col_real(st, 4),
            .flags = db_col_text(st, 5),
        };
    }
    sqlite3_finalize(st);
    free(caps);
    if (rc != SQLITE_DONE) {
        tta_rcp_entries_free(e, n);
        return db_fail(err, db, "loading runs");
    }
    *out = e;
    *n_out = n;
    return TTA_OK;
}
