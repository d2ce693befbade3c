/* test_open.c: opening the database: a new one gets the whole schema and the rules, an older
 * one is migrated keeping its rows, a newer one is refused; the read-only open refuses a missing
 * file and a database of another schema version. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "db/reader.h"
#include "db/writer.h"
#include "test_sql.h"
#include "tta_test.h"

static char db_path[256];

static void remove_db(void) { test_db_unlink(db_path); }

static sqlite3 *fresh_db(void) {
    sqlite3 *db = test_db_fresh(db_path);
    CHECK(db != NULL);
    return db;
}

TEST(migration_sets_version) {
    sqlite3 *db = fresh_db();
    CHECK(test_query_real(db, "PRAGMA user_version") == tta_schema_version());
    CHECK(test_query_real(db, "SELECT count(*) FROM benchmark_rules") > 20);
    CHECK(test_query_real(db, "SELECT count(*) FROM rule_rounds WHERE round = 'v0.7' AND ruleset = '0.7.0'") == 1);
    sqlite3_close(db);
    /* reopening is a no-op */
    sqlite3 *again = NULL;
    CHECK(tta_db_open(db_path, &again, NULL) == TTA_OK);
    CHECK(test_query_real(again, "PRAGMA user_version") == tta_schema_version());
    CHECK_STR(sqlite3_db_filename(again, "main") ? "ok" : "no", "ok");
    sqlite3_close(again);
}

/* A database of schema version 1 (before profiles) keeps what it stores when a newer tta opens it:
 * the migrations after 1 are applied and user_version follows. */
extern const char *const tta_migrations[];
TEST(older_schema_is_migrated) {
    remove_db();
    sqlite3 *raw = NULL;
    CHECK(sqlite3_open(db_path, &raw) == SQLITE_OK);
    CHECK(sqlite3_exec(raw, tta_migrations[0], NULL, NULL, NULL) == SQLITE_OK);
    CHECK(sqlite3_exec(raw,
                       "PRAGMA user_version = 1; INSERT INTO sources (path, size, hash, format, status) "
                       "VALUES ('old.log', 1, '0000000000000000', 'mllog', 'ok')",
                       NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(raw);
    sqlite3 *db = NULL;
    CHECK(tta_db_open(db_path, &db, NULL) == TTA_OK);
    CHECK(test_query_real(db, "PRAGMA user_version") == tta_schema_version());
    CHECK(tta_schema_version() >= 2);
    CHECK(test_query_real(db, "SELECT count(*) FROM sources WHERE path = 'old.log'") == 1);
    CHECK(test_query_real(db, "SELECT count(*) FROM profiles") == 0);
    CHECK(test_query_real(db, "SELECT count(*) FROM latest_peaks") == 0);
    sqlite3_close(db);
}

TEST(newer_schema_is_refused) {
    sqlite3 *db = fresh_db();
    sqlite3_exec(db, "PRAGMA user_version = 999", NULL, NULL, NULL);
    sqlite3_close(db);
    sqlite3 *again = NULL;
    tta_error err;
    CHECK(tta_db_open(db_path, &again, &err) == TTA_EUNSUPPORTED);
    CHECK(again == NULL && strstr(err.text, "newer"));
}

TEST(readonly_open) {
    remove_db();
    sqlite3 *db = (sqlite3 *)1;
    tta_error err;
    CHECK(tta_db_open_readonly(db_path, &db, &err) == TTA_ENOTFOUND);
    CHECK(db == NULL && strstr(err.text, "no such database") && strstr(err.text, db_path));
    sqlite3_close(fresh_db());
    CHECK(tta_db_open_readonly(db_path, &db, &err) == TTA_OK);
    CHECK(test_query_real(db, "PRAGMA user_version") == tta_schema_version());
    /* read-only: a write is refused */
    CHECK(sqlite3_exec(db, "DELETE FROM sources", NULL, NULL, NULL) == SQLITE_READONLY);
    sqlite3_close(db);
    /* a database of an older schema version must be migrated by a writer first */
    CHECK(sqlite3_open(db_path, &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, "PRAGMA user_version = 1", NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
    CHECK(tta_db_open_readonly(db_path, &db, &err) == TTA_EDB);
    CHECK(db == NULL && strstr(err.text, "run `tta ingest` to migrate"));
    /* a NULL error is allowed */
    CHECK(tta_db_open_readonly(db_path, &db, NULL) == TTA_EDB);
}

int main(void) {
    snprintf(db_path, sizeof db_path, "/tmp/tta_test_open_%d.db", (int)getpid());
    RUN(migration_sets_version);
    RUN(newer_schema_is_refused);
    RUN(older_schema_is_migrated);
    RUN(readonly_open);
    remove_db();
    return test_summary();
}
