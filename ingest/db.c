/* db.c: opening the tta database and migrating its schema (schemas/NNN_*.sql, embedded). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/buf.h"
#include "common/check.h"
#include "ingest/ingest.h"

extern const char *const tta_migrations[];
extern const size_t tta_migrations_count;

int tta_schema_version(void) { return (int)tta_migrations_count; }

/* Sets *err to "<path>: <what>: <sqlite message>" (malloc'd). */
static void set_db_error(char **err, const char *path, const char *what, sqlite3 *db) {
    if (!err) return;
    buf b = {0};
    buf_printf(&b, "%s: %s: %s", path, what, db ? sqlite3_errmsg(db) : "out of memory");
    *err = buf_take(&b);
}

/* Reads PRAGMA user_version; -1 on error. */
static int user_version(sqlite3 *db) {
    sqlite3_stmt *st;
    int v = -1;
    if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK) return -1;
    if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* Applies migrations [from, count) each in its own transaction, bumping user_version. */
static int migrate(sqlite3 *db, const char *path, int from, char **err) {
    for (size_t i = (size_t)from; i < tta_migrations_count; i++) {
        char *msg = NULL;
        buf sql = {0};
        buf_printf(&sql, "BEGIN IMMEDIATE;\n%s\n;PRAGMA user_version = %zu;\nCOMMIT;", tta_migrations[i], i + 1);
        int rc = sqlite3_exec(db, buf_str(&sql), NULL, NULL, &msg);
        buf_free(&sql);
        if (rc != SQLITE_OK) {
            if (err) {
                buf b = {0};
                buf_printf(&b, "%s: migration %zu failed: %s", path, i + 1, msg ? msg : sqlite3_errmsg(db));
                *err = buf_take(&b);
            }
            sqlite3_free(msg);
            sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
            return rc;
        }
    }
    return SQLITE_OK;
}

/* Connection settings every tta connection uses. */
static int configure(sqlite3 *db, int writable) {
    sqlite3_busy_timeout(db, 30000);
    /* The writer's cache holds one transaction's dirty pages and the upper b-tree pages: 4 MiB.
     * A larger one only grows with the pages an ingest appends, each new page costing a fault
     * and a clear of fresh memory (a 64 MiB cache made record-dense ingest ~20% slower);
     * readers keep 64 MiB for the reports' scans. */
    const char *sql = writable ? "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;"
                                 " PRAGMA wal_autocheckpoint=16384;"
                                 " PRAGMA cache_size=-4096; PRAGMA temp_store=MEMORY;"
                               : "PRAGMA foreign_keys=ON; PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY;";
    return sqlite3_exec(db, sql, NULL, NULL, NULL);
}

int tta_db_open(const char *path, sqlite3 **out, char **err) {
    sqlite3 *db = NULL;
    *out = NULL;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        set_db_error(err, path, "cannot open database", db);
        sqlite3_close(db);
        return rc;
    }
    /* 16 KiB pages for a new database: a run's event log is one JSON array of tens of KB, which
     * 4 KiB pages split into long overflow chains (more pages, more write calls); an existing
     * database keeps its page size. */
    sqlite3_exec(db, "PRAGMA page_size=16384", NULL, NULL, NULL);
    if ((rc = configure(db, 1)) != SQLITE_OK) {
        set_db_error(err, path, "cannot configure database", db);
        sqlite3_close(db);
        return rc;
    }
    int v = user_version(db);
    if (v < 0) {
        set_db_error(err, path, "not a tta database", db);
        sqlite3_close(db);
        return SQLITE_NOTADB;
    }
    if (v > (int)tta_migrations_count) {
        if (err) {
            buf b = {0};
            buf_printf(&b, "%s: schema version %d is newer than this tta understands (%zu)", path, v,
                       tta_migrations_count);
            *err = buf_take(&b);
        }
        sqlite3_close(db);
        return SQLITE_MISMATCH;
    }
    if ((rc = migrate(db, path, v, err)) != SQLITE_OK) {
        sqlite3_close(db);
        return rc;
    }
    *out = db;
    return SQLITE_OK;
}

int tta_db_open_readonly(const char *path, sqlite3 **out, char **err) {
    struct stat st;
    *out = NULL;
    if (stat(path, &st) != 0) {
        if (err) {
            buf b = {0};
            buf_printf(&b, "%s: no such database (run `tta ingest PATH...` first)", path);
            *err = buf_take(&b);
        }
        return SQLITE_CANTOPEN;
    }
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc == SQLITE_OK) rc = configure(db, 0);
    if (rc != SQLITE_OK) {
        set_db_error(err, path, "cannot open database", db);
        sqlite3_close(db);
        return rc;
    }
    int v = user_version(db);
    if (v != (int)tta_migrations_count) {
        if (err) {
            buf b = {0};
            if (v < 0)
                buf_printf(&b, "%s: not a tta database: %s", path, sqlite3_errmsg(db));
            else
                buf_printf(&b, "%s: schema version %d, this tta needs %zu (run `tta ingest` to migrate)", path, v,
                           tta_migrations_count);
            *err = buf_take(&b);
        }
        sqlite3_close(db);
        return SQLITE_MISMATCH;
    }
    *out = db;
    return SQLITE_OK;
}
