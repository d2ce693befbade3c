/* query_algoperf.c: an AlgoPerf leaderboard's trials with their scored metric, and a benchmark
 * version's workloads (reader.h; schemas/010_algoperf.sql). */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "db/query.h"

/* The targets file of a version that counts: the latest stored. */
#define LATEST_TARGETS(version) \
    "(SELECT max(x.source_id) FROM algoperf_targets x WHERE x.version = " version ")"

/* One row per evaluation: the trial's place and evaluation, and the value of the metric its
 * workload is scored by. */
static const char trials_sql[] =
    "WITH latest AS (SELECT version, max(source_id) AS source_id FROM algoperf_targets GROUP BY version)"
    " SELECT f.source_id, f.leaderboard, f.ruleset, f.submission, f.workload, f.framework, f.study, f.trial,"
    " (" DB_FILTER_TEXT("f.submission", "submitter") ") AS selected,"
    " m.content ->> '$.\"workload.max_allowed_runtime_sec\"', e.score, v.value"
    " FROM algoperf_files f"
    " JOIN algoperf_evals e ON e.source_id = f.source_id"
    " LEFT JOIN algoperf_files m ON m.kind = 'meta_data' AND m.leaderboard = f.leaderboard AND m.ruleset = f.ruleset"
    "  AND m.submission = f.submission AND m.workload = f.workload AND m.study = f.study AND m.trial = f.trial"
    "  AND m.framework IS f.framework"
    " LEFT JOIN latest l ON l.version = f.leaderboard"
    " LEFT JOIN algoperf_targets t ON t.source_id = l.source_id AND t.workload = f.workload"
    " LEFT JOIN algoperf_values v ON v.source_id = f.source_id AND v.idx = e.idx AND v.name = 'validation/' || t.metric"
    " WHERE f.kind = 'eval_measurements' AND" DB_FILTER_TEXT("f.leaderboard", "round") " AND"
    DB_FILTER_TEXT("f.ruleset", "division")
    " ORDER BY f.leaderboard, f.ruleset, f.submission, f.workload, f.study, f.trial, f.source_id, e.idx";

int tta_db_algoperf_trials(sqlite3 *db, const tta_filter *f, tta_algoperf_trial **out, size_t *n, tta_error *err) {
    assert(db && out && n);
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st;
    int rc = db_prepare_filtered(db, trials_sql, f, &st, "reading AlgoPerf trials", err);
    if (rc != TTA_OK) return rc;
    tta_algoperf_trial *v = NULL;
    size_t count = 0, cap = 0, ecap = 0;
    int64_t last = -1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t source = sqlite3_column_int64(st, 0);
        if (source != last) {
            if (count == cap) {
                cap = cap ? 2 * cap : 256;
                v = reallocCheck(v, cap * sizeof *v);
            }
            tta_algoperf_trial *t = &v[count++];
            memset(t, 0, sizeof *t);
            t->leaderboard = db_col_text(st, 1);
            t->ruleset = db_col_text(st, 2);
            t->submission = db_col_text(st, 3);
            t->workload = db_col_text(st, 4);
            t->framework = db_col_text(st, 5);
            t->study = sqlite3_column_int(st, 6);
            t->trial = sqlite3_column_int(st, 7);
            t->selected = sqlite3_column_int(st, 8) != 0;
            t->max_runtime_s = db_col_number(st, 9);
            last = source;
            ecap = 0;
        }
        tta_algoperf_trial *t = &v[count - 1];
        if (t->n == ecap) {
            ecap = ecap ? 2 * ecap : 64;
            t->score = reallocCheck(t->score, ecap * sizeof *t->score);
            t->value = reallocCheck(t->value, ecap * sizeof *t->value);
        }
        t->score[t->n] = db_col_real(st, 10);
        t->value[t->n] = db_col_real(st, 11);
        t->n++;
    }
    if (rc != SQLITE_DONE) {
        rc = db_fail(err, db, "reading AlgoPerf trials");
        sqlite3_finalize(st);
        tta_algoperf_trials_free(v, count);
        return rc;
    }
    sqlite3_finalize(st);
    *out = v;
    *n = count;
    return TTA_OK;
}

void tta_algoperf_trials_free(tta_algoperf_trial *t, size_t n) {
    for (size_t i = 0; i < n; i++) {
        free(t[i].leaderboard);
        free(t[i].ruleset);
        free(t[i].submission);
        free(t[i].workload);
        free(t[i].framework);
        free(t[i].score);
        free(t[i].value);
    }
    free(t);
}

static const char workloads_sql[] =
    "SELECT workload, metric, target, minimize, step_hint, role, base FROM algoperf_targets"
    " WHERE source_id = " LATEST_TARGETS("?1") " ORDER BY rowid";

int tta_db_algoperf_workloads(sqlite3 *db, const char *version, tta_algoperf_workload **out, size_t *n,
                              tta_error *err) {
    assert(db && version && out && n);
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, workloads_sql, -1, &st, NULL) != SQLITE_OK)
        return db_fail(err, db, "reading AlgoPerf targets");
    sqlite3_bind_text(st, 1, version, -1, SQLITE_STATIC);
    tta_algoperf_workload *v = NULL;
    size_t count = 0, cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (count == cap) {
            cap = cap ? 2 * cap : 32;
            v = reallocCheck(v, cap * sizeof *v);
        }
        tta_algoperf_workload *w = &v[count++];
        w->workload = db_col_text(st, 0);
        w->metric = db_col_text(st, 1);
        w->target = db_col_real(st, 2);
        w->minimize = sqlite3_column_int(st, 3);
        w->step_hint = sqlite3_column_type(st, 4) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 4);
        w->role = db_col_text(st, 5);
        w->base = db_col_text(st, 6);
    }
    if (rc != SQLITE_DONE) {
        rc = db_fail(err, db, "reading AlgoPerf targets");
        sqlite3_finalize(st);
        tta_algoperf_workloads_free(v, count);
        return rc;
    }
    sqlite3_finalize(st);
    *out = v;
    *n = count;
    return TTA_OK;
}

void tta_algoperf_workloads_free(tta_algoperf_workload *w, size_t n) {
    for (size_t i = 0; i < n; i++) {
        free(w[i].workload);
        free(w[i].metric);
        free(w[i].role);
        free(w[i].base);
    }
    free(w);
}
