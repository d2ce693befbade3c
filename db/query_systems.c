/* query_systems.c: stored system descriptions (the systems table), listed by the filter or the
 * latest one of a results folder. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "db/query.h"

#define SYSTEM_COLUMNS                                                                                     \
    "round, submitter, name, division, status, description, accelerator_model, host_processor, framework," \
    " accelerators, nodes"

/* The filter over the systems table: a description names its round, division, submitter and
 * system (name), its accelerator model, framework, status (availability) and accelerators; the
 * benchmark and the entry do not apply. */
static const char systems_sql[] =
    "SELECT " SYSTEM_COLUMNS " FROM systems WHERE" DB_FILTER_TEXT("round", "round") " AND"
    DB_FILTER_TEXT("submitter", "submitter") " AND" DB_FILTER_TEXT("name", "system") " AND"
    DB_FILTER_TEXT("division", "division") " AND" DB_FILTER_TEXT("accelerator_model", "accelerator") " AND"
    DB_FILTER_TEXT("framework", "framework") " AND" DB_FILTER_TEXT("status", "availability")
    " AND (:acc_min = 0 OR accelerators >= :acc_min) AND (:acc_max = 0 OR accelerators <= :acc_max)"
    " ORDER BY round, submitter, name";

/* As the entries loader picks a system for an entry: the latest stored. */
static const char latest_sql[] =
    "SELECT " SYSTEM_COLUMNS " FROM systems WHERE round = ?1 AND submitter = ?2 AND name = ?3 ORDER BY id DESC LIMIT 1";

static void read_system(sqlite3_stmt *st, tta_system_row *s) {
    s->round = db_col_text(st, 0);
    s->submitter = db_col_text(st, 1);
    s->name = db_col_text(st, 2);
    s->division = db_col_text(st, 3);
    s->status = db_col_text(st, 4);
    s->description = db_col_text(st, 5);
    s->accelerator_model = db_col_text(st, 6);
    s->host_processor = db_col_text(st, 7);
    s->framework = db_col_text(st, 8);
    s->accelerators = db_col_count(st, 9);
    s->nodes = db_col_count(st, 10);
}

void tta_system_row_clear(tta_system_row *s) {
    free(s->round);
    free(s->submitter);
    free(s->name);
    free(s->division);
    free(s->status);
    free(s->description);
    free(s->accelerator_model);
    free(s->host_processor);
    free(s->framework);
    memset(s, 0, sizeof *s);
    s->accelerators = s->nodes = -1;
}

void tta_system_rows_free(tta_system_row *s, size_t n) {
    for (size_t i = 0; i < n; i++) tta_system_row_clear(&s[i]);
    free(s);
}

int tta_db_systems(sqlite3 *db, const tta_filter *f, tta_system_row **out, size_t *n_out, tta_error *err) {
    assert(db && out && n_out);
    *out = NULL;
    *n_out = 0;
    sqlite3_stmt *st;
    int rc = db_prepare_filtered(db, systems_sql, f, &st, "loading system descriptions", err);
    if (rc != TTA_OK) return rc;
    tta_system_row *s = NULL;
    size_t n = 0, cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        growArray(s, &cap, n + 1);
        read_system(st, &s[n++]);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        tta_system_rows_free(s, n);
        return db_fail(err, db, "loading system descriptions");
    }
    *out = s;
    *n_out = n;
    return TTA_OK;
}

int tta_db_system_latest(sqlite3 *db, const char *round, const char *submitter, const char *name, tta_system_row *out,
                         tta_error *err) {
    assert(db && round && submitter && name && out);
    memset(out, 0, sizeof *out);
    out->accelerators = out->nodes = -1;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, latest_sql, -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return db_fail(err, db, "loading system descriptions");
    }
    sqlite3_bind_text(st, 1, round, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, submitter, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, name, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) read_system(st, out);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return db_fail(err, db, "loading system descriptions");
    return TTA_OK;
}
