/* lookup.c: small lookups of one value that the command line and replay's callers need: the
 * entry a description file gave, the entry replays were filed under, an entry's benchmark and
 * described model, a hyperparameter of an entry's first run. */
#include <stdlib.h>

#include "common/check.h"
#include "common/replay_log.h"
#include "db/reader.h"

/* Runs sql (one statement, binding text parameters 1..n_text and then the integer int_param
 * when has_int) and copies the first row's first column into *text (when text is not NULL) or
 * *id. TTA_OK, TTA_ENOTFOUND when no row or the value is NULL, TTA_EDB with SQLite's message. */
static int first_value(sqlite3 *db, const char *what, const char *sql, const char *const *texts, int n_text,
                       int has_int, int64_t int_param, char **text, int64_t *id, tta_error *err) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return tta_fail(err, TTA_EDB, "%s: %s", what, sqlite3_errmsg(db));
    for (int i = 0; i < n_text; i++) sqlite3_bind_text(st, i + 1, texts[i], -1, SQLITE_STATIC);
    if (has_int) sqlite3_bind_int64(st, n_text + 1, int_param);
    int rc = sqlite3_step(st);
    int status = TTA_OK;
    if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        if (text)
            *text = strdupCheck((const char *)sqlite3_column_text(st, 0));
        else
            *id = sqlite3_column_int64(st, 0);
    } else if (rc == SQLITE_ROW || rc == SQLITE_DONE) {
        status = tta_fail(err, TTA_ENOTFOUND, "%s: not in the database", what);
    } else {
        status = tta_fail(err, TTA_EDB, "%s: %s", what, sqlite3_errmsg(db));
    }
    sqlite3_finalize(st);
    return status;
}

int tta_db_entry_of_description(sqlite3 *db, const char *path, int64_t *entry, tta_error *err) {
    *entry = -1;
    const char *texts[1] = {path};
    return first_value(db, path,
                       "SELECT e.id FROM sources s JOIN systems y ON y.source_id = s.id JOIN entries e"
                       " ON e.round = y.round AND e.system = y.name WHERE s.path = ?1 AND s.status = 'ok'"
                       " ORDER BY e.id LIMIT 1",
                       texts, 1, 0, 0, NULL, entry, err);
}

int tta_db_replay_entry(sqlite3 *db, const char *system, const char *benchmark, int64_t *entry, tta_error *err) {
    *entry = -1;
    const char *texts[2] = {system, benchmark};
    return first_value(db, system,
                       "SELECT id FROM entries WHERE round = '" TTA_REPLAY_ROUND "' AND submitter = '" TTA_REPLAY_SUBMITTER
                       "' AND system = ?1"
                       " AND benchmark = ?2 ORDER BY id LIMIT 1",
                       texts, 2, 0, 0, NULL, entry, err);
}

int tta_db_entry_description(sqlite3 *db, int64_t entry, tta_db_entry_described *out, tta_error *err) {
    out->benchmark = out->model = NULL;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db,
                           "SELECT e.benchmark, (SELECT json_extract(y.description, '$.model') FROM systems y"
                           " WHERE y.round = e.round AND y.name = e.system ORDER BY y.id DESC LIMIT 1)"
                           " FROM entries e WHERE e.id = ?1",
                           -1, &st, NULL) != SQLITE_OK)
        return tta_fail(err, TTA_EDB, "entry %lld: %s", (long long)entry, sqlite3_errmsg(db));
    sqlite3_bind_int64(st, 1, entry);
    int rc = sqlite3_step(st), status = TTA_OK;
    if (rc == SQLITE_ROW) {
        if (sqlite3_column_text(st, 0)) out->benchmark = strdupCheck((const char *)sqlite3_column_text(st, 0));
        if (sqlite3_column_text(st, 1)) out->model = strdupCheck((const char *)sqlite3_column_text(st, 1));
    } else if (rc == SQLITE_DONE) {
        status = tta_fail(err, TTA_ENOTFOUND, "entry %lld: no such entry", (long long)entry);
    } else {
        status = tta_fail(err, TTA_EDB, "entry %lld: %s", (long long)entry, sqlite3_errmsg(db));
    }
    sqlite3_finalize(st);
    return status;
}

void tta_db_entry_described_free(tta_db_entry_described *d) {
    free(d->benchmark);
    free(d->model);
    d->benchmark = d->model = NULL;
}

int tta_db_entry_hparam(sqlite3 *db, int64_t entry, const char *key, char **value, tta_error *err) {
    *value = NULL;
    const char *texts[1] = {key};
    return first_value(db, key,
                       "SELECT h.value FROM hyperparameters h JOIN runs r ON r.id = h.run_id"
                       " WHERE h.key = ?1 AND r.entry_id = ?2 ORDER BY r.run_index LIMIT 1",
                       texts, 1, 1, entry, value, NULL, err);
}
