/* query_rules.c: what the reports ask of the database's copy of the benchmark rules
 * (rule_rounds, benchmark_aliases) beyond what the entries loader joins in. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "db/query.h"

void tta_round_orders_free(tta_round_order *o, size_t n) {
    for (size_t i = 0; i < n; i++) free(o[i].round);
    free(o);
}

int tta_db_round_orders(sqlite3 *db, tta_round_order **out, size_t *n_out, tta_error *err) {
    assert(db && out && n_out);
    *out = NULL;
    *n_out = 0;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT round, ord FROM rule_rounds ORDER BY ord", -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return db_fail(err, db, "reading the rounds' order (rule_rounds)");
    }
    tta_round_order *o = NULL;
    size_t n = 0, cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        growArray(o, &cap, n + 1);
        const unsigned char *r = sqlite3_column_text(st, 0);
        o[n].round = strdupCheck(r ? (const char *)r : "");
        o[n++].ord = sqlite3_column_int(st, 1);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        tta_round_orders_free(o, n);
        return db_fail(err, db, "reading the rounds' order (rule_rounds)");
    }
    *out = o;
    *n_out = n;
    return TTA_OK;
}

int tta_db_benchmark_alias(sqlite3 *db, const char *round, const char *name, char **benchmark, tta_error *err) {
    assert(db && round && name && benchmark);
    *benchmark = NULL;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db,
                           "SELECT a.benchmark FROM benchmark_aliases a JOIN rule_rounds r ON r.round = ?1"
                           " LEFT JOIN rule_rounds f ON f.round = a.from_round"
                           " LEFT JOIN rule_rounds b ON b.round = a.before_round"
                           " WHERE a.name = ?2 AND (f.ord IS NULL OR r.ord >= f.ord)"
                           " AND (b.ord IS NULL OR r.ord < b.ord)"
                           " LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return db_fail(err, db, "reading benchmark aliases");
    }
    sqlite3_bind_text(st, 1, round, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) *benchmark = db_col_text(st, 0);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return db_fail(err, db, "reading benchmark aliases");
    return TTA_OK;
}
