/* facts.c: the one place a run's facts are worked out (schemas/005_run_facts.sql says why).
 *
 * For every entry in facts_pending, each of its runs gets, from the database's copy of the rules,
 * its evaluations' verdicts (evaluations.meets), its row of run_facts and its run_flags; then
 * facts_pending is emptied. One transaction: a reader sees the old facts or the new ones. Every
 * statement works on the pending entries' runs only (temp.fact_runs), so an ingest of one file into
 * a large database works out that file's entry, not the whole database.
 */
#include <assert.h>

#include "db/writer.h"
#include "db/query.h"
#include "common/check.h"

#include <stdlib.h>

/* Relative tolerance of a target (logs print float32: v0.5 GNMT logs 21.799999237 for 21.8). */
#define MEETS(q, t, hib) \
    "(CASE WHEN " hib " THEN " q " >= " t " - 1e-6 * abs(" t ") ELSE " q " <= " t " + 1e-6 * abs(" t ") END)"

/* Seconds by which a run_start may precede init_start / init_stop before it is impossible: the
 * records of one log come from ranks whose clocks agree to well under a second. */
#define INIT_SLACK_S "1.0"
/* A run this many times the entry's median duration (or a this-th of it) is far outside it. */
#define FAR_FACTOR "10.0"
/* Runs an entry needs for its median to say what is far outside it. */
#define FAR_MIN_RUNS "3"

/* An AlgoPerf run's workload target's column (schemas/010_algoperf.sql), from its leaderboard's latest
 * targets file: whether its metric is minimised, and the metric (algoperf_runs.c writes the target). */
#define AP_TARGET(col) \
    "(SELECT t." col " FROM algoperf_targets t WHERE ap.source_id IS NOT NULL AND t.workload = e.benchmark" \
    "  AND t.source_id = (SELECT max(x.source_id) FROM algoperf_targets x WHERE x.version = e.round))"

/* The runs being worked out, with their rule (the connection's own table). */
static const char fact_runs_sql[] =
    "CREATE TEMP TABLE IF NOT EXISTS fact_runs(run_id INTEGER PRIMARY KEY, entry_id INTEGER, status TEXT,"
    "  ruleset TEXT, progress_rule TEXT, target REAL, target2 REAL, hib INTEGER, hib2 INTEGER, metric TEXT,"
    "  metric2 TEXT, unit TEXT, quality_scale TEXT, train_set_size REAL, tta_s REAL, system_id INTEGER,"
    "  checker_progress REAL, to_threshold INTEGER, converged INTEGER, algoperf INTEGER)";

/* The statements, in order; prepared once per writer (a batch of files runs them all). */
static const char refresh_sql[] =
    "DELETE FROM temp.fact_runs;"
    /* The rule of each run: its round's ruleset and benchmark; without one (replays), the target
     * the run logged, higher is better, progress in epochs of the first evaluation that meets. */
    "INSERT INTO temp.fact_runs"
    " SELECT r.id, r.entry_id, r.status, rr.ruleset, b.progress,"
    "   COALESCE(b.target, r.target), CASE WHEN b.target IS NOT NULL THEN b.target2 ELSE r.target2 END,"
    "   COALESCE(b.higher_is_better, 1 - " AP_TARGET("minimize") ", 1),"
    "   CASE WHEN b.target IS NOT NULL THEN b.higher_is_better2"
    "        ELSE COALESCE(b.higher_is_better, 1 - " AP_TARGET("minimize") ", 1) END,"
    "   COALESCE(b.metric, " AP_TARGET("metric") "), b.metric2,"
    /* AlgoPerf trials count optimizer steps (global_step), not epochs */
    "   CASE WHEN ap.source_id IS NOT NULL THEN 'steps' ELSE COALESCE(b.progress_unit, 'epochs') END,"
    "   b.quality_scale, b.train_set_size,"
    /* the duration; DAWNBench ranks by the time to the threshold instead (below, once each
     * evaluation's verdict is known) */
    "   CASE WHEN e.round = 'dawnbench' OR ap.source_id IS NOT NULL THEN NULL ELSE r.run_stop - r.run_start END,"
    "   (SELECT x.id FROM systems x WHERE x.round = e.round AND x.submitter = e.submitter AND x.name = e.system"
    "     ORDER BY x.id DESC LIMIT 1),"
    /* the convergence point as MLCommons' RCP checker reads it: at the last run_stop, and only
     * when that says success */
    "   CASE WHEN b.progress IS NULL OR b.progress = 'epoch_of_first_meeting' THEN NULL"
    "        WHEN COALESCE(r.cp_status, r.status) <> 'success' THEN NULL"
    "        WHEN b.progress = 'epoch_num' THEN round(r.cp_epoch_num, 3)"
    "        WHEN b.progress = 'samples_count' THEN r.cp_samples_count"
    "        WHEN b.progress = 'train_samples' THEN r.cp_train_samples"
    "        WHEN b.progress = 'first_passing_step_num' THEN r.cp_first_passing_step"
    "        WHEN b.progress = 'first_passing_samples_count' THEN r.cp_first_passing_samples END,"
    "   e.round = 'dawnbench' OR ap.source_id IS NOT NULL,"
    "   COALESCE(r.cp_status, r.status) = 'success'," /* converged, as the RCP checker reads it */
    "   ap.source_id IS NOT NULL"
    " FROM runs r JOIN entries e ON e.id = r.entry_id"
    " LEFT JOIN algoperf_files ap ON ap.source_id = r.source_id"
    " LEFT JOIN rule_rounds rr ON rr.round = e.round"
    " LEFT JOIN benchmark_rules b ON b.ruleset = rr.ruleset AND b.benchmark = e.benchmark"
    " WHERE r.entry_id IN (SELECT entry_id FROM facts_pending);"

    /* Each evaluation against its run's target(s), each metric in its own direction. */
    /* A verdict depends on the run's own target alone: worked out once, for the evaluations
     * that have none yet (new runs; every one after the rules' copy changed, whose trigger clears
     * them), not again for the other runs of an entry a new run joins. Not UPDATE ... FROM:
     * SQLite would scan every evaluation of the database for it. */
    "UPDATE evaluations AS v SET meets = (SELECT CASE"
    "   WHEN f.target IS NULL OR v.quality IS NULL THEN NULL"
    "   WHEN f.algoperf THEN CASE WHEN f.hib THEN v.quality >= f.target ELSE v.quality <= f.target END"
    "   WHEN " MEETS("v.quality", "f.target", "f.hib")
    "    AND (f.target2 IS NULL OR (v.quality2 IS NOT NULL AND " MEETS("v.quality2", "f.target2", "f.hib2") "))"
    "   THEN 1 ELSE 0 END FROM temp.fact_runs f WHERE f.run_id = v.run_id)"
    " WHERE v.run_id IN (SELECT run_id FROM temp.fact_runs) AND v.meets IS NULL;"
    /* DAWNBench: the time of the first evaluation at the threshold (its TSV's first row there) */
    "UPDATE temp.fact_runs SET tta_s = (SELECT v.time - r.run_start FROM evaluations v, runs r"
    "   WHERE r.id = fact_runs.run_id AND v.run_id = r.id AND v.meets = 1 ORDER BY v.seq LIMIT 1)"
    " WHERE to_threshold;"

    "DELETE FROM run_facts WHERE run_id IN (SELECT run_id FROM temp.fact_runs);"
    "INSERT INTO run_facts(run_id, ruleset, progress_rule, tta_s, reached, last_quality, progress, progress_unit,"
    "  epochs, samples_to_target, target, target2, higher_is_better, higher_is_better2, metric, metric2,"
    "  quality_scale, train_set_size, accelerators, nodes, accelerator_model, success_unmet, succeeded,"
    "  converged, time_suspect)"
    " SELECT run_id, ruleset, progress_rule, tta_s, reached, last_quality, progress, unit,"
    /* epochs: progress in epochs where epochs mean something. The checker's samples over the
     * rules' training-set size; a first meeting's samples over the training-set size the runs
     * logged (v0.7 BERT logs train_samples as the samples it trained on, not the set's size: a
     * "size" the run reaches at its target is not one). */
    "   CASE WHEN unit = 'epochs' THEN progress"
    "        WHEN unit = 'samples' AND checker AND train_set_size > 0 THEN progress / train_set_size"
    "        WHEN unit = 'samples' AND NOT checker AND entry_train_samples > first_samples * 1.01"
    "        THEN first_samples / entry_train_samples END,"
    "   first_samples, target, target2, hib, hib2, metric, metric2, quality_scale, train_set_size,"
    "   accelerators, nodes, accelerator_model,"
    "   CASE WHEN status = 'success' AND (reached = 0 OR (reached IS NULL AND target IS NOT NULL)) THEN 1 ELSE 0 END,"
    /* succeeded: a duration, and run_stop says success, or says nothing (v0.5 NVIDIA, Alibaba
     * v0.6 log a bare run_stop) and the last evaluation meets the target */
    "   CASE WHEN tta_s IS NULL THEN 0 WHEN status = 'success' THEN 1"
    "        WHEN status = 'unknown' AND reached = 1 THEN 1 ELSE 0 END, COALESCE(converged, 0), 0"
    " FROM (SELECT f.*, sy.accelerators, sy.nodes, sy.accelerator_model,"
    "   f.progress_rule IS NOT NULL AND f.progress_rule <> 'epoch_of_first_meeting' AS checker,"
    /* reached: the last evaluation meets; for benchmarks that converge at their first passing
     * step (their evaluations finish out of order, stable_diffusion) any does, and for AlgoPerf, whose
     * trials train to their budget past the target, any does too */
    "   CASE WHEN f.progress_rule LIKE 'first_passing%' OR f.algoperf"
    "        THEN (SELECT max(v.meets) FROM evaluations v WHERE v.run_id = f.run_id)"
    "        ELSE (SELECT v.meets FROM evaluations v WHERE v.run_id = f.run_id ORDER BY v.seq DESC LIMIT 1) END"
    "     AS reached,"
    "   (SELECT v.quality FROM evaluations v WHERE v.run_id = f.run_id ORDER BY v.seq DESC LIMIT 1) AS last_quality,"
    "   (SELECT v.samples FROM evaluations v WHERE v.run_id = f.run_id AND v.meets = 1 ORDER BY v.seq LIMIT 1)"
    "     AS first_samples,"
    /* progress: the checker's where the ruleset has one, else the first meeting's epoch (or its
     * samples, for a benchmark that counts samples) */
    "   CASE WHEN f.progress_rule IS NOT NULL AND f.progress_rule <> 'epoch_of_first_meeting' THEN f.checker_progress"
    "        ELSE (SELECT CASE WHEN f.unit = 'samples' THEN v.samples"
    /* an AlgoPerf evaluation's step: its trial file's row (the run's seq is the row's index) */
    "                          WHEN f.unit = 'steps' THEN (SELECT a.global_step FROM runs x"
    "                            JOIN algoperf_evals a ON a.source_id = x.source_id AND a.idx = v.seq"
    "                            WHERE x.id = f.run_id)"
    "                          ELSE v.epoch END FROM evaluations v"
    "              WHERE v.run_id = f.run_id AND v.meets = 1 ORDER BY v.seq LIMIT 1) END AS progress,"
    "   (SELECT max(x.train_samples) FROM runs x WHERE x.entry_id = f.entry_id) AS entry_train_samples"
    "   FROM temp.fact_runs f LEFT JOIN systems sy ON sy.id = f.system_id);"

    /* ---- Flags (docs/database.md, "run_flags"): each with the sentence a report shows. */
    "DELETE FROM run_flags WHERE run_id IN (SELECT run_id FROM temp.fact_runs);"
    "INSERT INTO run_flags SELECT f.run_id, 'aborted', 'its run_stop says aborted'"
    " FROM temp.fact_runs f WHERE f.status = 'aborted';"
    "INSERT INTO run_flags SELECT x.run_id, 'success_unmet',"
    "   CASE WHEN x.reached IS NULL THEN 'the log says success but has no evaluation of its quality'"
    "        WHEN x.progress_rule LIKE 'first_passing%'"
    "        THEN 'the log says success but none of its evaluations meets the targets'"
    "        ELSE printf('the log says success but its last evaluation (%s) does not meet the target (%s)',"
    "                    x.last_quality, x.target) END"
    " FROM run_facts x WHERE x.success_unmet AND x.run_id IN (SELECT run_id FROM temp.fact_runs);"
    /* not compliant: MLCommons' compliance checks fail the log (ingest's verdict, schemas/008_compliance.sql) */
    "INSERT INTO run_flags SELECT r.id, 'not_compliant',"
    "   'MLCommons'' compliance checker fails it, so its summarizer drops the run: ' || r.compliance_reason"
    " FROM runs r WHERE r.compliance = 'fail' AND r.id IN (SELECT run_id FROM temp.fact_runs);"
    "INSERT INTO run_flags SELECT r.id, 'unreadable_record',"
    "   printf('%d log record%s cannot be read (the first at line %d): MLCommons'' summarizer drops the run',"
    "          r.unreadable_records, CASE WHEN r.unreadable_records = 1 THEN '' ELSE 's' END,"
    "          r.first_unreadable_line)"
    " FROM runs r WHERE r.unreadable_records > 0 AND r.id IN (SELECT run_id FROM temp.fact_runs);"
    "INSERT INTO run_flags SELECT run_id, 'impossible_timing', why FROM ("
    " SELECT f.run_id, CASE"
    "   WHEN f.tta_s <= 0 THEN printf('its duration is not positive (run_stop - run_start = %.3f s)', f.tta_s)"
    "   WHEN r.run_start < r.init_start - " INIT_SLACK_S
    "   THEN printf('run_start is %.1f s (%.1f h) before init_start', r.init_start - r.run_start,"
    "               (r.init_start - r.run_start) / 3600.0)"
    "   WHEN r.run_start < r.init_stop - " INIT_SLACK_S
    "   THEN printf('run_start is %.1f s (%.1f h) before init_stop', r.init_stop - r.run_start,"
    "               (r.init_stop - r.run_start) / 3600.0) END AS why"
    " FROM temp.fact_runs f JOIN runs r ON r.id = f.run_id) WHERE why IS NOT NULL;"
    /* far outside its entry: against the median duration of the entry's runs (positive ones) */
    "INSERT INTO run_flags SELECT f.run_id, 'far_outside_entry',"
    "   printf('%.2f min against the median %.2f min of its entry''s %d runs (%s)', f.tta_s / 60.0,"
    "          m.median / 60.0, m.n, CASE WHEN f.tta_s > m.median THEN printf('%.0fx', f.tta_s / m.median)"
    "                                     ELSE printf('1/%.0f', m.median / f.tta_s) END)"
    " FROM temp.fact_runs f JOIN (SELECT entry_id, avg(tta_s) AS median, max(n) AS n FROM ("
    "     SELECT entry_id, tta_s, row_number() OVER (PARTITION BY entry_id ORDER BY tta_s) AS k,"
    "            count(*) OVER (PARTITION BY entry_id) AS n"
    "     FROM temp.fact_runs WHERE tta_s > 0)"
    "   WHERE k IN ((n + 1) / 2, (n + 2) / 2) GROUP BY entry_id) m ON m.entry_id = f.entry_id"
    " WHERE m.n >= " FAR_MIN_RUNS " AND f.tta_s > 0"
    "   AND (f.tta_s > " FAR_FACTOR " * m.median OR f.tta_s * " FAR_FACTOR " < m.median);"
    /* the same run published again: an equal run_start in an earlier round (the earliest named) */
    "INSERT INTO run_flags SELECT run_id, 'republished',"
    "   printf('the same run as %s of round %s (equal run_start)', path, round) FROM ("
    " SELECT f.run_id, s.path, oe.round, min(orr.ord)"
    /* CROSS JOIN keeps the pending runs the outer loop (else SQLite walks every run_start) */
    " FROM temp.fact_runs f CROSS JOIN runs r ON r.id = f.run_id JOIN entries e ON e.id = r.entry_id"
    " JOIN rule_rounds rr ON rr.round = e.round"
    " CROSS JOIN runs o ON o.run_start = r.run_start AND o.id <> r.id"
    " JOIN entries oe ON oe.id = o.entry_id JOIN rule_rounds orr ON orr.round = oe.round AND orr.ord < rr.ord"
    " JOIN sources s ON s.id = o.source_id"
    " WHERE r.run_start > 0 GROUP BY f.run_id);"
    /* A duration that is not positive, or far outside its entry, is no time to trust. A run_start
     * before the initialisation alone is not: v0.7 Intel logs carry an init block written after the
     * runs by another script (generate_submission_details.py), before durations that agree. */
    "UPDATE run_facts SET time_suspect = COALESCE(tta_s <= 0, 0) OR EXISTS (SELECT 1 FROM run_flags g"
    "   WHERE g.run_id = run_facts.run_id AND g.flag = 'far_outside_entry')"
    " WHERE run_id IN (SELECT run_id FROM temp.fact_runs);"
    "DELETE FROM facts_pending;"
    "DELETE FROM temp.fact_runs;";

struct db_facts {
    sqlite3 *db;
    sqlite3_stmt *pending; /* is anything pending? */
    sqlite3_stmt **st;     /* refresh_sql's statements */
    size_t n;
};

int db_facts_open(sqlite3 *db, db_facts **out, tta_error *err) {
    assert(db && out);
    *out = NULL;
    db_facts *f = callocCheck(1, sizeof *f);
    f->db = db;
    size_t cap = 0;
    int rc = sqlite3_exec(db, fact_runs_sql, NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v3(db, "SELECT EXISTS (SELECT 1 FROM facts_pending)", -1, SQLITE_PREPARE_PERSISTENT,
                                &f->pending, NULL);
    for (const char *sql = refresh_sql; rc == SQLITE_OK && *sql;) {
        sqlite3_stmt *st = NULL;
        rc = sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, &sql);
        if (rc != SQLITE_OK || !st) break; /* the end: only blanks were left */
        growArray(f->st, &cap, f->n + 1);
        f->st[f->n++] = st;
    }
    if (rc != SQLITE_OK) {
        tta_fail(err, TTA_EDB, "database: preparing the runs' facts: %s", sqlite3_errmsg(db));
        db_facts_close(f);
        return TTA_EDB;
    }
    *out = f;
    return TTA_OK;
}

void db_facts_close(db_facts *f) {
    if (!f) return;
    sqlite3_finalize(f->pending);
    for (size_t i = 0; i < f->n; i++) sqlite3_finalize(f->st[i]);
    free(f->st);
    free(f);
}

/* 1 when facts_pending has a row, 0 when not, -1 when SQLite cannot say. */
static int facts_pending(db_facts *f) {
    int rc = sqlite3_step(f->pending), pending = rc == SQLITE_ROW ? sqlite3_column_int(f->pending, 0) : -1;
    sqlite3_reset(f->pending);
    return pending;
}

int db_facts_work_out(db_facts *f, tta_error *err) {
    int pending = facts_pending(f);
    if (pending == 0) return TTA_OK;
    for (size_t i = 0; pending > 0 && i < f->n; i++) {
        int rc = sqlite3_step(f->st[i]);
        sqlite3_reset(f->st[i]);
        if (rc != SQLITE_DONE) pending = -1;
    }
    if (pending < 0)
        return tta_fail(err, TTA_EDB, "database: working out the runs' facts: %s", sqlite3_errmsg(f->db));
    return TTA_OK;
}

int tta_db_facts_stale(sqlite3 *db) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT EXISTS (SELECT 1 FROM facts_pending)", -1, &st, NULL) != SQLITE_OK) return -1;
    int rc = sqlite3_step(st), pending = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
    sqlite3_finalize(st);
    return pending;
}

int tta_db_facts_refresh(sqlite3 *db, tta_error *err) {
    assert(db);
    int pending = tta_db_facts_stale(db);
    if (pending == 0) return TTA_OK;
    if (pending < 0)
        return tta_fail(err, TTA_EDB, "database: reading what needs working out: %s", sqlite3_errmsg(db));
    db_facts *f;
    int rc = db_facts_open(db, &f, err);
    if (rc != TTA_OK) return rc;
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        rc = tta_fail(err, TTA_EDB, "database: working out the runs' facts: %s", sqlite3_errmsg(db));
    else {
        rc = db_facts_work_out(f, err);
        if (rc == TTA_OK && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
            rc = tta_fail(err, TTA_EDB, "database: working out the runs' facts: %s", sqlite3_errmsg(db));
        if (rc != TTA_OK) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    }
    db_facts_close(f);
    return rc;
}
