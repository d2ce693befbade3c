/* query_replays.c: the runs that replay a claim (`tta replay ENTRY`, `tta verify`): what their
 * logs say about the claim and how they ran (tta_replay_of, tta_to_schedule_end, eval_target,
 * tta_unseen_accuracy, tta_shifted_accuracy; docs/replay.md), read from the stored event logs of
 * round local (where every replay is filed: the published logs are not read at all); instr()
 * skips, unparsed, the local logs that name no claim. */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "common/replay_log.h"
#include "db/query.h"

static const char links_sql[] =
    "SELECT r.entry_id, r.id, j.value ->> '$[2]', j.value ->> '$[3]'"
    " FROM entries e JOIN runs r ON r.entry_id = e.id JOIN event_log l ON l.run_id = r.id, json_each(l.records) j"
    " WHERE e.round = '" TTA_REPLAY_ROUND "' AND instr(l.records, '\"tta_replay_of\"') > 0"
    "  AND j.value ->> '$[2]' IN ('tta_replay_of', 'tta_to_schedule_end', 'eval_target', 'tta_unseen_accuracy',"
    "                            'tta_shifted_accuracy')"
    " ORDER BY r.entry_id, r.id, CAST(j.key AS INTEGER)";

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
        int64_t run = sqlite3_column_int64(st, 1);
        if (n == 0 || l[n - 1].run_id != run) {
            growArray(l, &cap, n + 1);
            l[n++] = (tta_replay_link){.entry_id = sqlite3_column_int64(st, 0), .run_id = run, .target = NAN,
                                       .to_schedule_end = -1, .unseen_acc = NAN, .shifted_acc = NAN};
        }
        tta_replay_link *x = &l[n - 1];
        const char *key = (const char *)sqlite3_column_text(st, 2);
        double v = db_col_number(st, 3);
        /* the first of a key counts, as a log's first hyperparameter does */
        if (!strcmp(key, "tta_replay_of")) {
            if (!x->claim && sqlite3_column_type(st, 3) == SQLITE_TEXT) x->claim = db_col_text(st, 3);
        } else if (!strcmp(key, "tta_to_schedule_end")) {
            if (x->to_schedule_end < 0 && !isnan(v)) x->to_schedule_end = v != 0;
        } else if (!strcmp(key, "eval_target")) {
            if (isnan(x->target)) x->target = v;
        } else if (!strcmp(key, "tta_unseen_accuracy")) {
            if (isnan(x->unseen_acc)) x->unseen_acc = v;
        } else if (isnan(x->shifted_acc)) {
            x->shifted_acc = v;
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        tta_replay_links_free(l, n);
        return db_fail(err, db, "loading the replays' claims");
    }
    /* a run whose tta_replay_of was not a string names no claim */
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (l[i].claim) l[k++] = l[i];
    }
    *out = l;
    *n_out = k;
    return TTA_OK;
}
