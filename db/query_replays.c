/* query_replays.c: the runs that replay a claim (`tta replay ENTRY`, `tta verify`): what their
 * logs say about the claim and how they ran (TTA_KEY_REPLAY_OF, TTA_KEY_TO_SCHEDULE_END, the
 * final accuracies: common/replay_log.h; docs/replay.md), as ingest stored them typed in
 * replay_runs (schemas/006_replay_records.sql), with the run's eval_target (runs.target). */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "db/query.h"

static const char links_sql[] =
    "SELECT r.entry_id, r.id, w.replay_of, r.target, w.to_schedule_end, w.unseen_accuracy, w.shifted_accuracy"
    " FROM replay_runs w JOIN runs r ON r.id = w.run_id WHERE w.replay_of IS NOT NULL"
    " ORDER BY r.entry_id, r.id";

void tta_replay_links_free(tta_replay_link *l, size_t n) {
    for (size_t i = 0; i < n; i++) free(l[i].claim);
    free(l);
}

int tta_db_replay_links(sqlite3 *db, tta_replay_link **out, size_t *n_out, tta_error *err) {
    assert(db && out && n_out);
    *out = NULL;
    *n_out = 0;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, links_sql, -1, &st, NULL) != SQLITE_OK)
        return db_fail(err, db, "loading the replays' claims");
    tta_replay_link *l = NULL;
    size_t n = 0, cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        growArray(l, &cap, n + 1);
        l[n++] = (tta_replay_link){.entry_id = sqlite3_column_int64(st, 0), .run_id = sqlite3_column_int64(st, 1),
                                   .claim = db_col_text(st, 2), .target = db_col_real(st, 3),
                                   .to_schedule_end = db_col_count(st, 4), .unseen_acc = db_col_real(st, 5),
                                   .shifted_acc = db_col_real(st, 6)};
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        tta_replay_links_free(l, n);
        return db_fail(err, db, "loading the replays' claims");
    }
    *out = l;
    *n_out = n;
    return TTA_OK;
}
