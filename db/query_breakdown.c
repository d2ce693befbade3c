/* query_breakdown.c: the per-epoch time breakdown records that `tta replay` logs
 * (tta_epoch_breakdown, with tta_world_size) of a selection's runs, read from the stored event
 * logs of round local (where every replay is filed: published logs have no breakdown and are not
 * read); instr() skips, unparsed, the local logs that hold none. */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "common/check.h"
#include "common/replay_log.h"
#include "db/query.h"

static const char breakdown_sql[] =
    "SELECT r.entry_id, r.id, j.value ->> '$[2]', j.value ->> '$[3]',"
    "  j.value ->> '$[3].epoch_s', j.value ->> '$[3].data_s', j.value ->> '$[3].forward_s',"
    "  j.value ->> '$[3].backward_s', j.value ->> '$[3].optimizer_s', j.value ->> '$[3].comm_exposed_s',"
    "  j.value ->> '$[3].comm_total_s', j.value ->> '$[3].eval_s', j.value -> '$[3].rank_comm_total_s'"
    " FROM entries e JOIN runs r ON r.entry_id = e.id JOIN event_log l ON l.run_id = r.id, json_each(l.records) j"
    " WHERE e.round = '" TTA_REPLAY_ROUND "' AND" DB_ENTRY_FILTER("e") " AND instr(l.records, '\"tta_epoch_breakdown\"') > 0"
    "  AND j.value ->> '$[2]' IN ('tta_world_size', 'tta_epoch_breakdown')"
    " ORDER BY r.entry_id, r.id, CAST(j.key AS INTEGER)";

/* The JSON array of column i as numbers (NAN for an element that is not one); none when the
 * column is not an array. */
static void rank_col(sqlite3_stmt *st, int i, tta_epoch_breakdown *b) {
    const unsigned char *text = sqlite3_column_text(st, i);
    cJSON *a = text ? cJSON_Parse((const char *)text) : NULL;
    if (cJSON_IsArray(a) && cJSON_GetArraySize(a) > 0) {
        b->n_ranks = (size_t)cJSON_GetArraySize(a);
        b->rank_comm_total_s = mallocCheck(b->n_ranks * sizeof *b->rank_comm_total_s);
        size_t k = 0;
        const cJSON *x;
        cJSON_ArrayForEach(x, a) b->rank_comm_total_s[k++] = cJSON_IsNumber(x) ? x->valuedouble : NAN;
    }
    cJSON_Delete(a);
}

void tta_epoch_breakdowns_free(tta_epoch_breakdown *b, size_t n) {
    for (size_t i = 0; i < n; i++) free(b[i].rank_comm_total_s);
    free(b);
}

int tta_db_epoch_breakdowns(sqlite3 *db, const tta_filter *f, tta_epoch_breakdown **out, size_t *n_out,
                            tta_error *err) {
    assert(db && out && n_out);
    *out = NULL;
    *n_out = 0;
    sqlite3_stmt *st;
    int rc = db_prepare_filtered(db, breakdown_sql, f, &st, "loading the time breakdown", err);
    if (rc != TTA_OK) return rc;
    tta_epoch_breakdown *b = NULL;
    size_t n = 0, cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        growArray(b, &cap, n + 1);
        tta_epoch_breakdown *x = &b[n++];
        memset(x, 0, sizeof *x);
        x->entry_id = sqlite3_column_int64(st, 0);
        x->run_id = sqlite3_column_int64(st, 1);
        const char *key = (const char *)sqlite3_column_text(st, 2);
        if (key && !strcmp(key, "tta_world_size")) {
            x->is_world_size = 1;
            x->world_size = sqlite3_column_int(st, 3);
            continue;
        }
        double *v[8] = {&x->epoch_s, &x->data_s, &x->forward_s, &x->backward_s, &x->optimizer_s,
                        &x->comm_exposed_s, &x->comm_total_s, &x->eval_s};
        for (int k = 0; k < 8; k++) *v[k] = db_col_number(st, 4 + k);
        rank_col(st, 12, x);
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
