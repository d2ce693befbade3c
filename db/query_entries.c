/* query_entries.c: entries, runs and evaluation curves (tta_entry_data), in three queries over the
 * filter's selection, and the other questions asked of a selection's runs.
 *
 * A run's facts are read as the writer stored them (run_facts, run_flags, evaluations.meets;
 * db/facts.c works them out): nothing here derives one, so the reports and plain SQL over run_tta
 * read the same values.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "db/query.h"

static const char entries_sql[] =
    /* the folders of the result logs ingest could not read as a run (no run_start: a cut-off log) */
    "WITH unread(dir) AS MATERIALIZED (SELECT rtrim(path, replace(path, '/', '')) FROM sources"
    "  WHERE status = 'failed' AND replace(path, rtrim(path, replace(path, '/', '')), '') GLOB 'result_*.txt')"
    "SELECT e.id, e.round, e.division, e.submitter, e.system, e.benchmark,"
    "  sy.accelerators, sy.nodes, sy.accelerator_model,"
    /* metric and progress unit: the rules', else the runs' facts (AlgoPerf: its targets file, steps) */
    "  COALESCE(t.metric, (SELECT f.metric FROM runs r JOIN run_facts f ON f.run_id = r.id"
    "     WHERE r.entry_id = e.id AND f.metric IS NOT NULL LIMIT 1)),"
    "  t.target, t.target2, COALESCE(t.higher_is_better, 1),"
    "  COALESCE(t.progress_unit, (SELECT f.progress_unit FROM runs r JOIN run_facts f ON f.run_id = r.id"
    "     WHERE r.entry_id = e.id LIMIT 1), 'epochs'),"
    "  (SELECT max(r.train_samples) FROM runs r WHERE r.entry_id = e.id),"
    "  (SELECT r.target FROM runs r WHERE r.entry_id = e.id AND r.target IS NOT NULL LIMIT 1),"
    "  (SELECT r.target2 FROM runs r WHERE r.entry_id = e.id AND r.target2 IS NOT NULL LIMIT 1),"
    "  rr.ruleset, t.train_set_size,"
    "  (SELECT f.scaling_factor FROM entry_files f WHERE f.kind = 'scaling' AND f.round = e.round"
    "     AND f.submitter = e.submitter AND f.system = e.system AND f.benchmark = e.benchmark"
    "     ORDER BY f.source_id DESC LIMIT 1),"
    /* the result summarizer's score where a summary.json names the entry (the last one read) */
    "  (SELECT f.score_min FROM entry_files f WHERE f.kind = 'summary' AND f.round = e.round"
    "     AND f.submitter = e.submitter AND f.system = e.system AND f.benchmark = e.benchmark"
    "     AND coalesce(json_extract(f.content, '$.division'), e.division) = e.division COLLATE NOCASE"
    "     ORDER BY f.source_id DESC LIMIT 1),"
    /* DAWNBench's cost per hour of the system it ran on, as the entry's description says */
    "  CASE WHEN json_valid(sy.description) THEN json_extract(sy.description, '$.costPerHour') END,"
    "  e.scaling,"
    /* the file of the entry's system description, as the ingest walked it: of several (v0.5: an
     * entry.json per submission of one system name) the one whose folder holds a run's log */
    "  COALESCE((SELECT p.path FROM systems x JOIN sources p ON p.id = x.source_id"
    "     WHERE x.round = e.round AND x.submitter = e.submitter AND x.name = e.system"
    "       AND EXISTS (SELECT 1 FROM runs r JOIN sources q ON q.id = r.source_id WHERE r.entry_id = e.id"
    "         AND substr(q.path, 1, length(rtrim(p.path, replace(p.path, '/', '')))) ="
    "             rtrim(p.path, replace(p.path, '/', '')))"
    "     ORDER BY x.id DESC LIMIT 1), (SELECT p.path FROM sources p WHERE p.id = sy.source_id)),"
    /* ... beside the entry's runs: the summarizer counts each as a dropped run */
    "  (SELECT count(*) FROM unread u WHERE u.dir IN (SELECT rtrim(p.path, replace(p.path, '/', ''))"
    "     FROM runs r JOIN sources p ON p.id = r.source_id WHERE r.entry_id = e.id))"
    " FROM entries e"
    " LEFT JOIN rule_rounds rr ON rr.round = e.round"
    " LEFT JOIN benchmark_rules t ON t.ruleset = rr.ruleset AND t.benchmark = e.benchmark"
    " LEFT JOIN systems sy ON sy.id = (SELECT x.id FROM systems x WHERE x.round = e.round"
    "   AND x.submitter = e.submitter AND x.name = e.system ORDER BY x.id DESC LIMIT 1)"
    " WHERE" DB_ENTRY_FILTER("e") " AND EXISTS (SELECT 1 FROM runs r WHERE r.entry_id = e.id)"
    " ORDER BY e.round, e.division, e.submitter, e.system, e.benchmark";

static const char runs_sql[] =
    "SELECT r.id, r.entry_id, r.run_index, s.path, r.status, r.run_start, r.run_stop, x.tta_s,"
    "  r.global_batch_size, r.seed, x.reached, x.progress, x.epochs, x.success_unmet, x.last_quality,"
    "  r.unreadable_records, r.first_unreadable_line, x.samples_to_target, x.time_suspect,"
    "  (SELECT group_concat(flag, ',') FROM (SELECT flag FROM run_flags g WHERE g.run_id = r.id ORDER BY flag)),"
    "  (SELECT group_concat(reason, '; ') FROM (SELECT reason FROM run_flags g WHERE g.run_id = r.id ORDER BY flag)),"
    "  x.succeeded, r.log_nodes, r.log_accelerators_per_node,"
    "  EXISTS (SELECT 1 FROM run_flags g WHERE g.run_id = r.id AND g.flag = 'not_compliant')"
    " FROM runs r JOIN entries e ON e.id = r.entry_id JOIN sources s ON s.id = r.source_id"
    " JOIN run_facts x ON x.run_id = r.id"
    " WHERE" DB_ENTRY_FILTER("e") " ORDER BY r.entry_id, r.run_index IS NULL, r.run_index, s.path";

static const char evals_sql[] =
    "SELECT m.run_id, m.time, m.epoch, m.samples, m.quality, m.quality2, m.meets, a.global_step"
    " FROM evaluation_meets m JOIN runs r ON r.id = m.run_id JOIN entries e ON e.id = r.entry_id"
    /* an AlgoPerf trial's step: its file's row (the evaluation's seq is the row's index) */
    " LEFT JOIN algoperf_evals a ON a.source_id = r.source_id AND a.idx = m.seq"
    " WHERE" DB_ENTRY_FILTER("e") " ORDER BY m.run_id, m.seq";

typedef struct {
    int64_t run_id;
    tta_run_data *run;
    double run_start;
} run_ref;

static int compare_run_ref(const void *a, const void *b) {
    int64_t x = ((const run_ref *)a)->run_id, y = ((const run_ref *)b)->run_id;
    return (x > y) - (x < y);
}

/* Reads the evaluation curves of the refs' runs (sorted by run id) into them. TTA_OK, or
 * TTA_EINPUT / TTA_EDB with err set. */
static int load_curves(sqlite3 *db, const tta_filter *f, run_ref *refs, size_t n_refs, tta_error *err) {
    sqlite3_stmt *st = NULL;
    int rc = db_prepare_filtered(db, evals_sql, f, &st, "loading evaluations", err);
    if (rc != TTA_OK) return rc;
    run_ref *cur = NULL;
    size_t curve_cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t run_id = sqlite3_column_int64(st, 0);
        if (!cur || cur->run_id != run_id) {
            run_ref key = {.run_id = run_id};
            cur = n_refs ? bsearch(&key, refs, n_refs, sizeof key, compare_run_ref) : NULL;
            curve_cap = 0;
        }
        if (!cur) continue;
        tta_run_data *r = cur->run;
        tta_curve_point p = {
            .time_s = db_col_real(st, 1) - cur->run_start,
            .epoch = db_col_real(st, 2),
            .samples = db_col_real(st, 3),
            .quality = db_col_real(st, 4),
            .quality2 = db_col_real(st, 5),
            .meets = db_col_count(st, 6),
            .steps = db_col_real(st, 7),
        };
        growArray(r->curve, &curve_cap, r->n_curve + 1);
        r->curve[r->n_curve++] = p;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? TTA_OK : db_fail(err, db, "loading evaluations");
}

/* The run of one row of runs_sql. */
static void read_run(sqlite3_stmt *st, tta_run_data *r) {
    memset(r, 0, sizeof *r);
    r->id = sqlite3_column_int64(st, 0);
    r->run_index = db_col_count(st, 2);
    r->file = db_col_text(st, 3);
    r->status = db_col_text(st, 4);
    r->run_start_s = db_col_real(st, 5);
    r->run_stop_s = db_col_real(st, 6);
    r->tta_s = db_col_real(st, 7);
    r->global_batch_size = db_col_real(st, 8);
    r->has_seed = sqlite3_column_type(st, 9) != SQLITE_NULL;
    r->seed = sqlite3_column_int64(st, 9);
    r->reached = db_col_count(st, 10);
    r->progress = db_col_real(st, 11);
    r->epochs = db_col_real(st, 12);
    r->success_unmet = sqlite3_column_int(st, 13) != 0;
    r->last_quality = db_col_real(st, 14);
    r->unreadable_records = sqlite3_column_int(st, 15);
    r->first_unreadable_line = db_col_count(st, 16);
    r->samples_to_target = db_col_real(st, 17);
    r->time_suspect = sqlite3_column_int(st, 18) != 0;
    r->flags = db_col_text(st, 19);
    r->flag_reasons = db_col_text(st, 20);
    r->succeeded = sqlite3_column_int(st, 21) != 0;
    r->log_nodes = db_col_count(st, 22);
    r->log_accelerators_per_node = db_col_count(st, 23);
    r->not_compliant = sqlite3_column_int(st, 24) != 0;
}

int tta_db_entries(sqlite3 *db, const tta_filter *f, int with_curves, tta_entry_data **out, size_t *n,
                   tta_error *err) {
    assert(db && out && n);
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st = NULL;
    int rc = db_prepare_filtered(db, entries_sql, f, &st, "loading entries", err);
    if (rc != TTA_OK) return rc;
    tta_entry_data *entries = NULL;
    size_t n_entries = 0, cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        growArray(entries, &cap, n_entries + 1);
        tta_entry_data *e = &entries[n_entries++];
        memset(e, 0, sizeof *e);
        e->id = sqlite3_column_int64(st, 0);
        e->round = db_col_text(st, 1);
        e->division = db_col_text(st, 2);
        e->submitter = db_col_text(st, 3);
        e->system = db_col_text(st, 4);
        e->benchmark = db_col_text(st, 5);
        e->accelerators = db_col_count(st, 6);
        e->nodes = db_col_count(st, 7);
        e->accelerator_model = db_col_text(st, 8);
        e->metric = db_col_text(st, 9);
        e->target = db_col_real(st, 10);
        e->target2 = db_col_real(st, 11);
        e->higher_is_better = sqlite3_column_int(st, 12);
        e->unit = db_col_text(st, 13);
        e->train_samples = db_col_real(st, 14);
        /* Without rules for the round (replays), the target the runs logged themselves. */
        if (isnan(e->target)) {
            e->target = db_col_real(st, 15);
            e->target2 = db_col_real(st, 16);
        }
        e->ruleset = db_col_text(st, 17);
        e->train_set_size = db_col_real(st, 18);
        e->scaling_factor = sqlite3_column_type(st, 19) == SQLITE_NULL ? 1.0 : db_col_real(st, 19);
        e->summary_score_min = db_col_real(st, 20);
        e->cost_per_hour = sqlite3_column_type(st, 21) == SQLITE_INTEGER || sqlite3_column_type(st, 21) == SQLITE_FLOAT
                               ? sqlite3_column_double(st, 21)
                               : NAN;
        if (!(e->cost_per_hour >= 0)) e->cost_per_hour = NAN;
        e->scaling = db_col_text(st, 22);
        e->description_file = db_col_text(st, 23);
        e->unread_logs = sqlite3_column_int(st, 24);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        tta_entries_free(entries, n_entries);
        return db_fail(err, db, "loading entries");
    }
    /* Entries arrive ordered by name, runs by entry id: find each run's entry by id through a
     * copy of the entries' indexes sorted by id. */
    size_t *order = mallocCheck((n_entries ? n_entries : 1) * sizeof *order);
    for (size_t i = 0; i < n_entries; i++) order[i] = i;
    /* insertion sort of indexes by id: entries are few (thousands at most) */
    for (size_t i = 1; i < n_entries; i++) {
        size_t k = order[i], j = i;
        while (j > 0 && entries[order[j - 1]].id > entries[k].id) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = k;
    }
    rc = db_prepare_filtered(db, runs_sql, f, &st, "loading runs", err);
    if (rc != TTA_OK) {
        free(order);
        tta_entries_free(entries, n_entries);
        return rc;
    }
    size_t *run_caps = callocCheck(n_entries ? n_entries : 1, sizeof *run_caps);
    size_t next = 0; /* runs come by entry id: the entry of the next run is at or after order[next] */
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t eid = sqlite3_column_int64(st, 1);
        while (next < n_entries && entries[order[next]].id < eid) next++;
        if (next == n_entries || entries[order[next]].id != eid) continue;
        size_t ei = order[next];
        tta_entry_data *e = &entries[ei];
        growArray(e->runs, &run_caps[ei], e->n_runs + 1);
        read_run(st, &e->runs[e->n_runs++]);
    }
    sqlite3_finalize(st);
    free(run_caps);
    free(order);
    if (rc != SQLITE_DONE) {
        db_fail(err, db, "loading runs");
        tta_entries_free(entries, n_entries);
        return TTA_EDB;
    }
    if (with_curves) {
        /* Every run by id, its evaluations' times counted from its run_start. */
        size_t n_refs = 0;
        for (size_t i = 0; i < n_entries; i++) n_refs += entries[i].n_runs;
        run_ref *refs = mallocCheck((n_refs ? n_refs : 1) * sizeof *refs);
        size_t k = 0;
        for (size_t i = 0; i < n_entries; i++)
            for (size_t j = 0; j < entries[i].n_runs; j++) {
                tta_run_data *r = &entries[i].runs[j];
                refs[k++] = (run_ref){.run_id = r->id, .run = r,
                                      .run_start = isnan(r->run_start_s) ? 0 : r->run_start_s};
            }
        if (n_refs > 1) qsort(refs, n_refs, sizeof *refs, compare_run_ref);
        rc = load_curves(db, f, refs, n_refs, err);
        free(refs);
        if (rc != TTA_OK) {
            tta_entries_free(entries, n_entries);
            return rc;
        }
    }
    *out = entries;
    *n = n_entries;
    return TTA_OK;
}

void tta_entries_free(tta_entry_data *entries, size_t n) {
    for (size_t i = 0; i < n; i++) {
        tta_entry_data *e = &entries[i];
        for (size_t j = 0; j < e->n_runs; j++) {
            free(e->runs[j].file);
            free(e->runs[j].status);
            free(e->runs[j].curve);
            free(e->runs[j].flags);
            free(e->runs[j].flag_reasons);
        }
        free(e->runs);
        free(e->round);
        free(e->division);
        free(e->submitter);
        free(e->system);
        free(e->benchmark);
        free(e->accelerator_model);
        free(e->description_file);
        free(e->metric);
        free(e->unit);
        free(e->ruleset);
        free(e->scaling);
    }
    free(entries);
}

int tta_db_same_runs(sqlite3 *db, int64_t a, int64_t b) {
    /* run_start as SQLite prints it, in order: the comparison trend.c has always made */
    static const char sql[] = "SELECT group_concat(run_start, ',') FROM (SELECT run_start FROM runs"
                              " WHERE entry_id = ?1 AND run_start IS NOT NULL ORDER BY run_start)";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return 0;
    }
    char *starts[2] = {NULL, NULL};
    int64_t ids[2] = {a, b};
    for (int k = 0; k < 2; k++) {
        sqlite3_bind_int64(st, 1, ids[k]);
        if (sqlite3_step(st) == SQLITE_ROW) starts[k] = db_col_text(st, 0);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    int same = starts[0] && starts[1] && !strcmp(starts[0], starts[1]);
    free(starts[0]);
    free(starts[1]);
    return same;
}

int tta_db_run_number(sqlite3 *db, int64_t run_id, const char *key, double *out, tta_error *err) {
    assert(db && key && out);
    *out = NAN;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT value FROM hyperparameters WHERE run_id = ?1 AND key = ?2", -1, &st, NULL) !=
        SQLITE_OK) {
        sqlite3_finalize(st);
        return db_fail(err, db, "reading a hyperparameter");
    }
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        char *end;
        double x = t ? strtod(t, &end) : 0;
        if (t && end != t) *out = x;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return db_fail(err, db, "reading a hyperparameter");
    return TTA_OK;
}
