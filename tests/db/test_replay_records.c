/* test_replay_records.c: a replay log's own records (world size, the claim it replays and how it
 * ran, final accuracies, per-epoch time breakdown with each rank's communication) as typed rows:
 * ingest's parser fills them through the writer, every column equals what the log's record says
 * (read back from the events view), fields that are missing or not numbers are NULL, the first of
 * a repeated record counts (the last world size), tta_db_epoch_breakdowns and tta_db_replay_links
 * read them, a re-ingest replaces them, and migration 006 fills the same rows from an older
 * database's stored records. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/check.h"
#include "common/replay_log.h"
#include "db/db.h"
#include "ingest/parse.h"
#include "ingest/parsed.h"
#include "test_sql.h"
#include "tta_test.h"

static char db_path[256];

/* A replay log as `tta replay` writes it on two ranks: the second breakdown has a field that is a
 * string, one that is null, one missing and a rank that is not a number; the third has no ranks. */
static const char replay_log[] =
    ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1700000000000, \"event_type\": \"POINT\", \"key\": \"tta_round\", "
    "\"value\": \"local\", \"metadata\": {}}\n"
    ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1700000000000, \"event_type\": \"POINT\", \"key\": "
    "\"submission_benchmark\", \"value\": \"generated\", \"metadata\": {}}\n"
    ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1700000000000, \"event_type\": \"POINT\", \"key\": \"submission_org\", "
    "\"value\": \"replay\", \"metadata\": {}}\n"
    ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1700000000000, \"event_type\": \"POINT\", \"key\": \"tta_world_size\", "
    "\"value\": 2, \"metadata\": {}}\n"
    ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1700000000000, \"event_type\": \"POINT\", \"key\": \"tta_replay_of\", "
    "\"value\": 7, \"metadata\": {}}\n"
    ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1700000000000, \"event_type\": \"POINT\", \"key\": \"tta_replay_of\", "
    "\"value\": \"dawnbench/open/anchors/mlp/fashion-mnist\", \"metadata\": {}}\n"
    ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1700000000000, \"event_type\": \"POINT\", \"key\": "
    "\"tta_to_schedule_end\", \"value\": 1, \"metadata\": {}}\n"
    ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1700000000000, \"event_type\": \"POINT\", \"key\": \"eval_target\", "
    "\"value\": 0.78, \"metadata\": {}}\n"
    ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1700000001000, \"event_type\": \"INTERVAL_START\", \"key\": "
    "\"run_start\", \"value\": null, \"metadata\": {}}\n"
    ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1700000002000, \"event_type\": \"POINT\", \"key\": "
    "\"tta_epoch_breakdown\", \"value\": {\"epoch_s\": 1.5, \"data_s\": 0.25, \"forward_s\": 0.5, \"backward_s\": 0.5, "
    "\"optimizer_s\": 0.125, \"comm_exposed_s\": 0.0625, \"comm_total_s\": 0.75, \"eval_s\": 0.3, "
    "\"rank_comm_total_s\": [0.75, 0.5]}, \"metadata\": {\"epoch_num\": 1}}\n"
    ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1700000003000, \"event_type\": \"POINT\", \"key\": "
    "\"tta_epoch_breakdown\", \"value\": {\"epoch_s\": 2, \"data_s\": \"0.5\", \"forward_s\": null, \"backward_s\": 1e-3, "
    "\"optimizer_s\": 0, \"comm_exposed_s\": 0.5, \"comm_total_s\": 0.875, "
    "\"rank_comm_total_s\": [0.875, \"n/a\"]}, \"metadata\": {\"epoch_num\": 2}}\n"
    ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1700000004000, \"event_type\": \"POINT\", \"key\": "
    "\"tta_epoch_breakdown\", \"value\": {\"epoch_s\": 3}, \"metadata\": {\"epoch_num\": 3}}\n"
    ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1700000005000, \"event_type\": \"INTERVAL_END\", \"key\": "
    "\"run_stop\", \"value\": null, \"metadata\": {\"status\": \"success\"}}\n"
    ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1700000006000, \"event_type\": \"POINT\", \"key\": "
    "\"tta_unseen_accuracy\", \"value\": 0.8125, \"metadata\": {}}\n"
    ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1700000006000, \"event_type\": \"POINT\", \"key\": "
    "\"tta_unseen_accuracy\", \"value\": 0.5, \"metadata\": {}}\n"
    ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1700000006000, \"event_type\": \"POINT\", \"key\": "
    "\"tta_shifted_accuracy\", \"value\": 0.625, \"metadata\": {}}\n";

/* A run that replays nothing and logged no run record of tta's: no replay_runs row. */
static const char plain_log[] =
    ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1700000000000, \"event_type\": \"POINT\", \"key\": "
    "\"submission_benchmark\", \"value\": \"generated\", \"metadata\": {}}\n"
    ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1700000001000, \"event_type\": \"INTERVAL_START\", \"key\": "
    "\"run_start\", \"value\": null, \"metadata\": {}}\n";

static const char log_path[] = "logs/replay/results/box-cpu-1t-x2/generated/result_0.txt";

/* Parses text as the log at path and stores it in db (a new store, committed). */
static void ingest_at(sqlite3 *db, const char *path, const char *text, uint64_t hash) {
    tta_parsed_file f = {0};
    f.hash = hash;
    CHECK(tta_parse_buffer(path, text, strlen(text), &f) == 0);
    CHECK(!f.failed);
    tta_store *s = NULL;
    CHECK(tta_store_open(db, &s, NULL) == TTA_OK);
    tta_db_file view = tta_parsed_db_file(&f);
    tta_error err;
    CHECK(tta_store_write(s, &view, &err) == TTA_OK);
    CHECK(tta_store_flush(s, &err) == TTA_OK);
    tta_store_close(s);
    tta_parsed_free(&f);
}

/* Parses text as the replay log and stores it in db. */
static void ingest_log(sqlite3 *db, const char *text, uint64_t hash) { ingest_at(db, log_path, text, hash); }

/* Every replay row as one text (the whole content of the three tables, ordered). */
static char *dump_rows(sqlite3 *db) {
    static const char *const sql[] = {
        "SELECT * FROM replay_runs ORDER BY run_id",
        "SELECT * FROM replay_epoch_breakdown ORDER BY run_id, seq",
        "SELECT * FROM replay_rank_comm ORDER BY run_id, seq, rank",
    };
    buf b = {0};
    for (size_t q = 0; q < sizeof sql / sizeof sql[0]; q++) {
        sqlite3_stmt *st;
        CHECK(sqlite3_prepare_v2(db, sql[q], -1, &st, NULL) == SQLITE_OK);
        while (sqlite3_step(st) == SQLITE_ROW) {
            for (int c = 0; c < sqlite3_column_count(st); c++) {
                const unsigned char *t = sqlite3_column_text(st, c);
                buf_printf(&b, "%s%s", c ? "|" : "", t ? (const char *)t : "NULL");
            }
            buf_putc(&b, '\n');
        }
        sqlite3_finalize(st);
        buf_putc(&b, '\n');
    }
    return buf_take(&b);
}

TEST(typed_rows_equal_the_log) {
    sqlite3 *db = test_db_fresh(db_path);
    CHECK(db != NULL);
    if (!db) return;
    ingest_log(db, replay_log, 1);
    CHECK(test_query_real(db, "SELECT count(*) FROM replay_runs") == 1);
    CHECK(test_query_real(db, "SELECT world_size FROM replay_runs") == 2);
    /* the first string names the claim, the first numbers count */
    CHECK(test_query_real(db, "SELECT count(*) FROM replay_runs WHERE replay_of = 'dawnbench/open/anchors/mlp/fashion-mnist'"
                              " AND to_schedule_end = 1 AND unseen_accuracy = 0.8125 AND shifted_accuracy = 0.625") == 1);
    tta_replay_link *links = NULL;
    size_t n_links = 0;
    CHECK(tta_db_replay_links(db, &links, &n_links, NULL) == TTA_OK && n_links == 1);
    if (n_links == 1) {
        CHECK(!strcmp(links[0].claim, "dawnbench/open/anchors/mlp/fashion-mnist"));
        CHECK(links[0].target == 0.78 && links[0].to_schedule_end == 1);
        CHECK(links[0].unseen_acc == 0.8125 && links[0].shifted_acc == 0.625);
    }
    tta_replay_links_free(links, n_links);
    CHECK(test_query_real(db, "SELECT count(*) FROM replay_epoch_breakdown") == 3);
    CHECK(test_query_real(db, "SELECT count(*) FROM replay_epoch_breakdown WHERE epoch = seq + 1") == 3);
    /* every field of every breakdown: the column is the record's member when it is a number */
    for (int i = 0; i < TTA_BREAKDOWN_FIELDS; i++) {
        buf q = {0};
        buf_printf(&q,
                   "SELECT count(*) FROM (SELECT run_id, row_number() OVER (PARTITION BY run_id ORDER BY seq) - 1 n,"
                   " value v FROM events WHERE key = '" TTA_KEY_EPOCH_BREAKDOWN "') e"
                   " JOIN replay_epoch_breakdown b ON b.run_id = e.run_id AND b.seq = e.n"
                   " WHERE b.%s IS (CASE WHEN json_type(e.v, '$.%s') IN ('integer', 'real') THEN e.v ->> '$.%s' END)",
                   tta_breakdown_names[i], tta_breakdown_names[i], tta_breakdown_names[i]);
        double same = test_query_real(db, buf_str(&q));
        if (same != 3) fprintf(stderr, "field %s: %g of 3 rows equal the log\n", tta_breakdown_names[i], same);
        CHECK(same == 3);
        buf_free(&q);
    }
    /* the odd ones: a string, a null and a missing member are NULL; 0 is 0 */
    CHECK(test_query_real(db, "SELECT count(*) FROM replay_epoch_breakdown WHERE seq = 1 AND data_s IS NULL"
                              " AND forward_s IS NULL AND eval_s IS NULL AND optimizer_s = 0 AND backward_s = 0.001") == 1);
    CHECK(test_query_real(db, "SELECT count(*) FROM replay_epoch_breakdown WHERE seq = 2 AND epoch_s = 3"
                              " AND data_s IS NULL AND comm_total_s IS NULL") == 1);
    CHECK(test_query_real(db, "SELECT count(*) FROM replay_rank_comm") == 4);
    CHECK(test_query_real(db, "SELECT count(*) FROM replay_rank_comm WHERE (seq, rank, comm_total_s) IN"
                              " (VALUES (0, 0, 0.75), (0, 1, 0.5), (1, 0, 0.875))") == 3);
    CHECK(test_query_real(db, "SELECT count(*) FROM replay_rank_comm WHERE seq = 1 AND rank = 1"
                              " AND comm_total_s IS NULL") == 1);

    /* the reader: the world size first, then the breakdowns in log order with their ranks */
    tta_epoch_breakdown *b = NULL;
    size_t n = 0;
    tta_error err;
    CHECK(tta_db_epoch_breakdowns(db, NULL, &b, &n, &err) == TTA_OK);
    CHECK(n == 4);
    if (n == 4) {
        CHECK(b[0].is_world_size && b[0].world_size == 2);
        CHECK(!b[1].is_world_size && b[1].epoch_s == 1.5 && b[1].data_s == 0.25 && b[1].forward_s == 0.5 &&
              b[1].backward_s == 0.5 && b[1].optimizer_s == 0.125 && b[1].comm_exposed_s == 0.0625 &&
              b[1].comm_total_s == 0.75 && b[1].eval_s == 0.3);
        CHECK(b[1].n_ranks == 2 && b[1].rank_comm_total_s[0] == 0.75 && b[1].rank_comm_total_s[1] == 0.5);
        CHECK(b[2].epoch_s == 2 && isnan(b[2].data_s) && isnan(b[2].forward_s) && isnan(b[2].eval_s));
        CHECK(b[2].n_ranks == 2 && b[2].rank_comm_total_s[0] == 0.875 && isnan(b[2].rank_comm_total_s[1]));
        CHECK(b[3].epoch_s == 3 && isnan(b[3].eval_s) && b[3].n_ranks == 0 && b[3].rank_comm_total_s == NULL);
        CHECK(b[1].run_id == b[0].run_id && b[3].run_id == b[0].run_id && b[0].entry_id > 0);
    }
    tta_epoch_breakdowns_free(b, n);
    /* a filter that selects another round gives nothing */
    tta_filter other = {.round = "v0.7"};
    CHECK(tta_db_epoch_breakdowns(db, &other, &b, &n, &err) == TTA_OK && n == 0);
    tta_epoch_breakdowns_free(b, n);

    /* a run without tta's records has no row */
    ingest_at(db, "logs/other/results/box/generated/result_1.txt", plain_log, 3);
    CHECK(test_query_real(db, "SELECT count(*) FROM runs") == 2);
    CHECK(test_query_real(db, "SELECT count(*) FROM replay_runs") == 1);

    /* the file changed: its rows are replaced, none are left over */
    char *changed = strdupCheck(replay_log);
    char *two = strstr(changed, "\"value\": 2,");
    CHECK(two != NULL);
    if (two) two[strlen("\"value\": ")] = '4';
    ingest_log(db, changed, 2);
    free(changed);
    CHECK(test_query_real(db, "SELECT count(*) FROM replay_runs") == 1);
    CHECK(test_query_real(db, "SELECT world_size FROM replay_runs") == 4);
    CHECK(test_query_real(db, "SELECT count(*) FROM replay_epoch_breakdown") == 3);
    CHECK(test_query_real(db, "SELECT count(*) FROM replay_rank_comm") == 4);
    CHECK(test_query_real(db, "SELECT count(*) FROM replay_rank_comm k LEFT JOIN runs r ON r.id = k.run_id"
                              " WHERE r.id IS NULL") == 0);
    sqlite3_close(db);
}

/* An older database (stored before the replay tables existed) gets the same rows from its stored
 * records as the parser gives: the tables are dropped and migration 006 is run again on the
 * stored event log. */
extern const char *const tta_migrations[];
extern const size_t tta_migrations_count;
TEST(migration_fills_the_same_rows) {
    sqlite3 *db = test_db_fresh(db_path);
    CHECK(db != NULL);
    if (!db) return;
    ingest_log(db, replay_log, 1);
    char *parsed = dump_rows(db);
    const char *migration = NULL;
    for (size_t i = 0; i < tta_migrations_count; i++)
        if (strstr(tta_migrations[i], "CREATE TABLE replay_epoch_breakdown")) migration = tta_migrations[i];
    CHECK(migration != NULL);
    if (migration) {
        CHECK(sqlite3_exec(db, "DROP TABLE replay_rank_comm; DROP TABLE replay_epoch_breakdown; DROP TABLE replay_runs",
                           NULL, NULL, NULL) == SQLITE_OK);
        char *msg = NULL;
        CHECK(sqlite3_exec(db, migration, NULL, NULL, &msg) == SQLITE_OK);
        if (msg) fprintf(stderr, "migration: %s\n", msg);
        sqlite3_free(msg);
        char *migrated = dump_rows(db);
        CHECK(strcmp(parsed, migrated) == 0);
        if (strcmp(parsed, migrated)) fprintf(stderr, "parsed:\n%s\nmigrated:\n%s\n", parsed, migrated);
        CHECK(strlen(migrated) > 40);
        free(migrated);
    }
    free(parsed);
    sqlite3_close(db);
}

int main(void) {
    snprintf(db_path, sizeof db_path, "/tmp/tta_test_replay_records_%d.db", (int)getpid());
    RUN(typed_rows_equal_the_log);
    RUN(migration_fills_the_same_rows);
    test_db_unlink(db_path);
    return test_summary();
}
