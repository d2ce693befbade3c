/* query_breakdown.c: the per-epoch time breakdown that `tta replay` logs (TTA_KEY_EPOCH_BREAKDOWN,
 * with TTA_KEY_WORLD_SIZE) of a selection's runs, read from the typed tables ingest fills from
 * those records (replay_runs, replay_epoch_breakdown, replay_rank_comm;
 * schemas/006_replay_records.sql). Only replays log them: published runs have no rows there. */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/check.h"
#include "common/replay_log.h"
#include "db/query.h"

/* Columns of the query: entry, run, seq (-1: the run's world size row), world size, epoch, the
 * fields (common/replay_log.h order), rank, that rank's comm_total_s. */
enum { COL_ENTRY, COL_RUN, COL_SEQ, COL_WORLD, COL_EPOCH, COL_FIELDS };
#define COL_RANK (COL_FIELDS + TTA_BREAKDOWN_FIELDS)
#define COL_RANK_COMM (COL_RANK + 1)

/* The query (caller frees): each run's world size row first, then its breakdowns in log order,
 * one row per rank (a breakdown without ranks: one row, rank NULL). The field columns are named
 * as common/replay_log.h names them. */
static char *breakdown_sql(void) {
    buf b = {0};
    buf_puts(&b, "SELECT r.entry_id, r.id, -1, w.world_size, NULL");
    for (int i = 0; i < TTA_BREAKDOWN_FIELDS; i++) buf_puts(&b, ", NULL");
    buf_puts(&b, ", NULL, NULL FROM entries e JOIN runs r ON r.entry_id = e.id JOIN replay_runs w ON w.run_id = r.id"
                 " WHERE" DB_ENTRY_FILTER("e") " UNION ALL SELECT r.entry_id, r.id, b.seq, NULL, b.epoch");
    for (int i = 0; i < TTA_BREAKDOWN_FIELDS; i++) buf_printf(&b, ", b.%s", tta_breakdown_names[i]);
    buf_printf(&b,
               ", k.rank, k.comm_total_s FROM entries e JOIN runs r ON r.entry_id = e.id"
               " JOIN replay_epoch_breakdown b ON b.run_id = r.id"
               " LEFT JOIN replay_rank_comm k ON k.run_id = b.run_id AND k.seq = b.seq"
               " WHERE" DB_ENTRY_FILTER("e") " ORDER BY 1, 2, 3, %d",
               COL_RANK + 1);
    return buf_take(&b);
}

void tta_epoch_breakdowns_free(tta_epoch_breakdown *b, size_t n) {
    for (size_t i = 0; i < n; i++) free(b[i].rank_comm_total_s);
    free(b);
}

/* A new breakdown (or world size) record from the row st is on. */
static void start_record(sqlite3_stmt *st, tta_epoch_breakdown *x) {
    memset(x, 0, sizeof *x);
    x->entry_id = sqlite3_column_int64(st, COL_ENTRY);
    x->run_id = sqlite3_column_int64(st, COL_RUN);
    if (sqlite3_column_int64(st, COL_SEQ) < 0) {
        x->is_world_size = 1;
        x->world_size = sqlite3_column_int(st, COL_WORLD);
        return;
    }
    double *v[TTA_BREAKDOWN_FIELDS] = {
        [TTA_BREAKDOWN_EPOCH_S] = &x->epoch_s,
        [TTA_BREAKDOWN_DATA_S] = &x->data_s,
        [TTA_BREAKDOWN_FORWARD_S] = &x->forward_s,
        [TTA_BREAKDOWN_BACKWARD_S] = &x->backward_s,
        [TTA_BREAKDOWN_OPTIMIZER_S] = &x->optimizer_s,
        [TTA_BREAKDOWN_COMM_EXPOSED_S] = &x->comm_exposed_s,
        [TTA_BREAKDOWN_COMM_TOTAL_S] = &x->comm_total_s,
        [TTA_BREAKDOWN_EVAL_S] = &x->eval_s,
    };
    for (int k = 0; k < TTA_BREAKDOWN_FIELDS; k++) *v[k] = db_col_real(st, COL_FIELDS + k);
}

int tta_db_epoch_breakdowns(sqlite3 *db, const tta_filter *f, tta_epoch_breakdown **out, size_t *n_out,
                            tta_error *err) {
    assert(db && out && n_out);
    *out = NULL;
    *n_out = 0;
    sqlite3_stmt *st;
    char *sql = breakdown_sql();
    int rc = db_prepare_filtered(db, sql, f, &st, "loading the time breakdown", err);
    free(sql);
    if (rc != TTA_OK) return rc;
    tta_epoch_breakdown *b = NULL;
    size_t n = 0, cap = 0;
    int64_t seq = -1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t run = sqlite3_column_int64(st, COL_RUN), row_seq = sqlite3_column_int64(st, COL_SEQ);
        /* the next rank of the breakdown before, or a new record */
        if (!(n > 0 && !b[n - 1].is_world_size && b[n - 1].run_id == run && seq == row_seq && row_seq >= 0)) {
            growArray(b, &cap, n + 1);
            start_record(st, &b[n++]);
            seq = row_seq;
        }
        tta_epoch_breakdown *x = &b[n - 1];
        if (x->is_world_size || sqlite3_column_type(st, COL_RANK) == SQLITE_NULL) continue;
        x->rank_comm_total_s = reallocCheck(x->rank_comm_total_s, (x->n_ranks + 1) * sizeof *x->rank_comm_total_s);
        x->rank_comm_total_s[x->n_ranks++] = db_col_real(st, COL_RANK_COMM);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        tta_epoch_breakdowns_free(b, n);
        return db_fail(err, db, "loading the time breakdown");
    }
    *out = b;
    *n_out = n;
    return TTA_OK;
}
