/* test_named.c: an entry named as users name it (tta_entry_load_named) and `tta ls`'s report
 * (tta_report_ls) answer with reports.h's codes: an unknown entry is TTA_ENOTFOUND, a name of
 * neither form, one that two entries answer, or an unknown list TTA_EINPUT, a database that cannot be read TTA_EDB, each with its
 * line in the tta_error. The database is fixtures/mlperf/v2.1/Intel ingested (one entry, 2 runs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ingest/ingest.h"
#include "reports/reports.h"
#include "test_sql.h"
#include "tta_test.h"

static char db_path[256];

static sqlite3 *fixture_db(void) {
    snprintf(db_path, sizeof db_path, "/tmp/tta_test_named_%d.db", (int)getpid());
    sqlite3 *db = test_db_fresh(db_path);
    CHECK(db != NULL);
    tta_error err;
    const char *const paths[] = {"fixtures/mlperf/v2.1/Intel"};
    tta_ingest_options opts = {.jobs = 1, .quiet = 1};
    tta_ingest_stats st;
    CHECK(tta_ingest_paths(db, paths, 1, &opts, &st, NULL, &err) == TTA_OK);
    CHECK(st.runs == 2);
    return db;
}

static void remove_db(sqlite3 *db) {
    tta_db_close(db);
    test_db_unlink(db_path);
}

TEST(entries_by_id_and_name) {
    sqlite3 *db = fixture_db();
    tta_error err;
    tta_entry_data *e = NULL;
    CHECK(tta_entry_load_named(db, "1", &e, &err) == TTA_OK && e != NULL);
    if (!e) return;
    CHECK(e->id == 1 && e->n_runs == 2);
    char *name = tta_entry_name(e);
    tta_entries_free(e, 1);
    CHECK_STR(name, "v2.1/closed/Intel/1-node-SPR-pytorch/dlrm");
    e = NULL;
    CHECK(tta_entry_load_named(db, name, &e, &err) == TTA_OK && e && e->id == 1);
    if (e) tta_entries_free(e, 1);
    free(name);

    /* Not there: TTA_ENOTFOUND, *e NULL, the spec in the text. */
    e = (tta_entry_data *)&err; /* anything but NULL */
    CHECK(tta_entry_load_named(db, "999", &e, &err) == TTA_ENOTFOUND && e == NULL);
    CHECK(err.code == TTA_ENOTFOUND);
    CHECK_STR(err.text, "no entry '999' (see `tta ls entries`)");
    CHECK(tta_entry_load_named(db, "v2.1/closed/Nobody/box/dlrm", &e, &err) == TTA_ENOTFOUND && e == NULL);
    CHECK_STR(err.text, "no entry 'v2.1/closed/Nobody/box/dlrm' (see `tta ls entries`)");
    /* Neither an id nor five parts: TTA_EINPUT. */
    CHECK(tta_entry_load_named(db, "v2.1/closed/Intel", &e, &err) == TTA_EINPUT && e == NULL);
    CHECK_STR(err.text, "'v2.1/closed/Intel' is neither an entry id nor round/division/submitter/system/benchmark");
    CHECK(tta_entry_load_named(db, "0", &e, NULL) == TTA_EINPUT); /* no tta_error: the code still */

    /* Names match whatever their case: two entries that differ in case only need an id. */
    CHECK(sqlite3_exec(db, "INSERT INTO entries (round, division, submitter, system, benchmark)"
                           " SELECT round, division, 'INTEL', system, benchmark FROM entries;"
                           " UPDATE runs SET entry_id = 2 WHERE id = (SELECT max(id) FROM runs)",
                       NULL, NULL, NULL) == SQLITE_OK);
    CHECK(tta_entry_load_named(db, "v2.1/closed/intel/1-node-SPR-pytorch/dlrm", &e, &err) == TTA_EINPUT && e == NULL);
    CHECK_STR(err.text, "'v2.1/closed/intel/1-node-SPR-pytorch/dlrm' names 2 entries (whatever their case): give its id"
                        " (see `tta ls entries`)");
    CHECK(tta_entry_load_named(db, "2", &e, &err) == TTA_OK && e && e->n_runs == 1);
    if (e) tta_entries_free(e, 1);

    /* A database without its entries table: TTA_EDB with SQLite's message. */
    CHECK(sqlite3_exec(db, "ALTER TABLE entries RENAME TO entries_gone", NULL, NULL, NULL) == SQLITE_OK);
    CHECK(tta_entry_load_named(db, "1", &e, &err) == TTA_EDB && e == NULL);
    CHECK(strstr(err.text, "entries") != NULL);
    remove_db(db);
}

TEST(ls_codes) {
    sqlite3 *db = fixture_db();
    tta_error err;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    CHECK(tta_report_ls(db, "entries", NULL, TTA_FORMAT_CSV, out, &err) == TTA_OK);
    CHECK(tta_report_ls(db, "systems", NULL, TTA_FORMAT_CSV, out, &err) == TTA_OK);
    fflush(out);
    CHECK(text && strstr(text, "1,v2.1,closed,Intel,1-node-SPR-pytorch,dlrm,") != NULL);
    size_t written = len;
    CHECK(tta_report_ls(db, "things", NULL, TTA_FORMAT_CSV, out, &err) == TTA_EINPUT);
    CHECK_STR(err.text, "nothing to list called 'things' (runs, entries, systems)");
    tta_filter bad = {.system = "/(/"};
    CHECK(tta_report_ls(db, "runs", &bad, TTA_FORMAT_CSV, out, &err) == TTA_EINPUT);
    CHECK(strstr(err.text, "bad regular expression /(/") != NULL);
    CHECK(sqlite3_exec(db, "ALTER TABLE runs RENAME TO runs_gone", NULL, NULL, NULL) == SQLITE_OK);
    CHECK(tta_report_ls(db, "runs", NULL, TTA_FORMAT_CSV, out, &err) == TTA_EDB);
    fflush(out);
    CHECK(len == written); /* nothing written after a failure */
    fclose(out);
    free(text);
    remove_db(db);
}

int main(void) {
    RUN(entries_by_id_and_name);
    RUN(ls_codes);
    return test_summary();
}
