/* test_sql.h: what database tests share: a fresh database file, and the one number a query returns. */
#ifndef TTA_TEST_SQL_H
#define TTA_TEST_SQL_H

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <unistd.h>

#include "db/reader.h"
#include "db/writer.h"

/* Removes the database file path and its -wal and -shm companions (missing ones are fine). */
static inline void test_db_unlink(const char *path) {
    static const char *const suffix[] = {"", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) {
        char p[512];
        snprintf(p, sizeof p, "%s%s", path, suffix[i]);
        unlink(p);
    }
}

/* A new, empty database at path (an old one and its companions removed first), opened with
 * tta_db_open: the handle, or NULL with the reason on stderr. */
static inline sqlite3 *test_db_fresh(const char *path) {
    test_db_unlink(path);
    sqlite3 *db = NULL;
    tta_error err;
    if (tta_db_open(path, &db, &err) != TTA_OK) {
        fprintf(stderr, "%s: %s\n", path, err.text);
        return NULL;
    }
    return db;
}

/* The first column of the first row of sql as a number; NAN when there is no row, it is NULL, or
 * the SQL does not prepare (said on stderr). */
static inline double test_query_real(sqlite3 *db, const char *sql) {
    sqlite3_stmt *st;
    double v = NAN;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "bad sql: %s: %s\n", sql, sqlite3_errmsg(db));
        return NAN;
    }
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) v = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return v;
}

#endif
