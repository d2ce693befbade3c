/* query_power.c: the MLPerf power logs the ingest saw (sources of format 'power') and their stored
 * samples, for the energy reports. */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/check.h"
#include "db/query.h"

void tta_power_sources_free(tta_power_source *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        free(s[i].path);
        free(s[i].error);
    }
    free(s);
}

int tta_db_power_sources(sqlite3 *db, tta_power_source **out, size_t *n_out, tta_error *err) {
    assert(db && out && n_out);
    *out = NULL;
    *n_out = 0;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT id, path, status, error FROM sources WHERE format = 'power' ORDER BY path", -1,
                           &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return db_fail(err, db, "reading power log sources");
    }
    tta_power_source *s = NULL;
    size_t n = 0, cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        growArray(s, &cap, n + 1);
        tta_power_source *x = &s[n++];
        memset(x, 0, sizeof *x);
        x->source_id = sqlite3_column_int64(st, 0);
        x->path = strdupCheck((const char *)sqlite3_column_text(st, 1));
        const unsigned char *status = sqlite3_column_text(st, 2), *error = sqlite3_column_text(st, 3);
        if (status && strcmp((const char *)status, "ok") != 0)
            x->error = strdupCheck(error ? (const char *)error : "not stored");
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        tta_power_sources_free(s, n);
        return db_fail(err, db, "reading power log sources");
    }
    *out = s;
    *n_out = n;
    return TTA_OK;
}

int tta_db_power_samples(sqlite3 *db, const int64_t *source_ids, size_t n_ids, tta_power_sample_fn each, void *ctx,
                         tta_error *err) {
    assert(db && each && (source_ids || n_ids == 0));
    if (n_ids == 0) return TTA_OK;
    buf ids = {0};
    buf_putc(&ids, '[');
    for (size_t i = 0; i < n_ids; i++) buf_printf(&ids, "%s%lld", i ? "," : "", (long long)source_ids[i]);
    buf_putc(&ids, ']');
    sqlite3_stmt *st;
    int rc = TTA_OK;
    if (sqlite3_prepare_v2(db,
                           "SELECT source_id, time, key, value FROM power_samples"
                           " WHERE source_id IN (SELECT value FROM json_each(?1)) ORDER BY rowid",
                           -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        rc = db_fail(err, db, "reading power samples");
    } else {
        sqlite3_bind_text(st, 1, buf_str(&ids), -1, SQLITE_STATIC);
        int step;
        while ((step = sqlite3_step(st)) == SQLITE_ROW) {
            tta_power_sample_row s = {
                .source_id = sqlite3_column_int64(st, 0),
                .time_s = db_col_real(st, 1),
                .key = (const char *)sqlite3_column_text(st, 2),
                .value = db_col_real(st, 3),
            };
            each(ctx, &s);
        }
        if (step != SQLITE_DONE) rc = db_fail(err, db, "reading power samples");
        sqlite3_finalize(st);
    }
    buf_free(&ids);
    return rc;
}
