/* test_sql.h: what database tests share: the one number a query returns. */
#ifndef TTA_TEST_SQL_H
#define TTA_TEST_SQL_H

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>

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
