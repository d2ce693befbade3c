/* algoperf_runs.c: an AlgoPerf leaderboard's studies as runs of entries (docs/algoperf.md, "The
 * general reports"), so that tta ls, variance, curves and compare read them as they read MLPerf runs.
 *
 * An entry is a (leaderboard, ruleset, submission, workload): round = the leaderboard
 * ("algoperf-v0.5"), division = the ruleset, submitter = system = the submission, benchmark = the
 * workload. A run is a study: its trial that the official scoring chooses (the one that meets the
 * target at the smallest evaluation index; the lowest trial number among equals, and where none
 * meets it), whose eval_measurements.csv is the run's source. Its evaluations are that CSV's rows:
 * time = the score column (the submission time the scoring counts, s), quality = the workload's
 * target metric. The run's facts (the time to target, reached, flags) are worked out by facts.c as
 * for any run. The derived rows are written again whenever an AlgoPerf file or a targets file
 * changes; without a targets file for its leaderboard a trial gives no run.
 */
#include <assert.h>

#include "db/query.h"
#include "db/writer.h"

/* The latest targets file of a leaderboard (as the AlgoPerf report reads it). */
#define LATEST_TARGETS(version) "(SELECT max(x.source_id) FROM algoperf_targets x WHERE x.version = " version ")"

static const char rebuild_sql[] =
    "BEGIN IMMEDIATE;"
    "DELETE FROM runs WHERE source_id IN (SELECT source_id FROM algoperf_files WHERE kind = 'eval_measurements');"
    "CREATE TEMP TABLE IF NOT EXISTS algoperf_pick(source_id INTEGER PRIMARY KEY, leaderboard TEXT, ruleset TEXT,"
    "  submission TEXT, workload TEXT, study INTEGER, metric TEXT, target REAL);"
    "DELETE FROM temp.algoperf_pick;"
    "INSERT INTO temp.algoperf_pick SELECT source_id, leaderboard, ruleset, submission, workload, study, metric, target"
    " FROM (SELECT *, row_number() OVER (PARTITION BY leaderboard, ruleset, submission, workload, study"
    "        ORDER BY hit IS NULL, hit, trial, source_id) AS k"
    "  FROM (SELECT f.source_id, f.leaderboard, f.ruleset, f.submission, f.workload, f.study, f.trial, t.metric,"
    "          t.target, (SELECT min(v.idx) FROM algoperf_values v WHERE v.source_id = f.source_id"
    "            AND v.name = 'validation/' || t.metric"
    "            AND CASE WHEN t.minimize THEN v.value <= t.target ELSE v.value >= t.target END) AS hit"
    "        FROM algoperf_files f JOIN algoperf_targets t ON t.source_id = " LATEST_TARGETS("f.leaderboard")
    "          AND t.workload = f.workload"
    "        WHERE f.kind = 'eval_measurements'))"
    " WHERE k = 1;"
    "INSERT OR IGNORE INTO entries(round, division, submitter, system, benchmark)"
    " SELECT DISTINCT leaderboard, ruleset, submission, submission, workload FROM temp.algoperf_pick;"
    "INSERT INTO runs(source_id, entry_id, run_index, run_start, run_stop, status, target)"
    " SELECT p.source_id, e.id, p.study, 0, (SELECT max(a.score) FROM algoperf_evals a WHERE a.source_id = p.source_id),"
    "   'unknown', p.target"
    " FROM temp.algoperf_pick p JOIN entries e ON e.round = p.leaderboard AND e.division = p.ruleset"
    "   AND e.submitter = p.submission AND e.system = p.submission AND e.benchmark = p.workload;"
    "INSERT INTO evaluations(run_id, seq, time, quality)"
    " SELECT r.id, a.idx, a.score, v.value FROM temp.algoperf_pick p JOIN runs r ON r.source_id = p.source_id"
    " JOIN algoperf_evals a ON a.source_id = p.source_id"
    " LEFT JOIN algoperf_values v ON v.source_id = a.source_id AND v.idx = a.idx AND v.name = 'validation/' || p.metric;"
    "DELETE FROM temp.algoperf_pick;"
    "DELETE FROM entries WHERE round IN (SELECT DISTINCT leaderboard FROM algoperf_files)"
    "  AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.entry_id = entries.id);"
    "COMMIT;";

/* The runs rebuild_sql writes: one per study. */
static const char count_sql[] =
    "SELECT count(*) FROM runs WHERE source_id IN (SELECT source_id FROM algoperf_files WHERE kind = 'eval_measurements')";

int db_algoperf_runs(sqlite3 *db, int64_t *runs, tta_error *err) {
    assert(db);
    char *msg = NULL;
    if (sqlite3_exec(db, rebuild_sql, NULL, NULL, &msg) == SQLITE_OK) {
        if (!runs) return TTA_OK;
        sqlite3_stmt *st = NULL;
        int rc = sqlite3_prepare_v2(db, count_sql, -1, &st, NULL);
        if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) *runs = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        if (rc == SQLITE_ROW) return TTA_OK;
        return tta_fail(err, TTA_EDB, "database: counting the AlgoPerf studies' runs: %s", sqlite3_errmsg(db));
    }
    tta_fail(err, TTA_EDB, "database: the AlgoPerf studies as runs: %s", msg ? msg : sqlite3_errmsg(db));
    sqlite3_free(msg);
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return TTA_EDB;
}
