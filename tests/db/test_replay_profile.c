/* test_replay_profile.c: a replay log's profile (the tta_memory and tta_layer_profile records) as
 * typed rows: ingest's parser fills replay_memory, replay_layer_profiles and replay_layers through
 * the writer; every column equals what the log's last such record says (read back from the events
 * view); members that are missing or of the wrong type are NULL; a record whose value is not an
 * object is none; a re-ingest replaces the rows; tta_db_replay_profiles reads them; and migration
 * 007 fills the same rows from an older database's stored records. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/check.h"
#include "common/replay_log.h"
#include "db/db.h"
#include "db/reader.h"
#include "ingest/parse.h"
#include "ingest/parsed.h"
#include "test_sql.h"
#include "tta_test.h"

static char db_path[256];

#define REC(key, value) \
    ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1700000000000, \"event_type\": \"POINT\", \"key\": \"" key \
    "\", \"value\": " value ", \"metadata\": {}}\n"

/* A replay log with two memory records (the second counts: eval is a string, data missing) after
 * one that is not an object, and two layer profiles (the second counts: a layer with a number for
 * a name and a string for FLOPs, one that is not an object, one whose time is null) before one
 * that is not an object. */
static const char replay_log[] =
    REC("tta_round", "\"local\"")
    REC("submission_benchmark", "\"generated\"")
    REC("submission_org", "\"replay\"")
    REC("tta_world_size", "1")
    ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1700000001000, \"event_type\": \"INTERVAL_START\", \"key\": "
    "\"run_start\", \"value\": null, \"metadata\": {}}\n"
    REC("tta_memory", "\"lots\"")
    REC("tta_memory", "{\"weights\": 1, \"buffers\": 2, \"weight_grads\": 3, \"optimizer_state\": 4, "
                      "\"feature_maps\": 5, \"workspace\": 6, \"eval\": 7, \"data\": 8}")
    REC("tta_memory", "{\"weights\": 401408, \"buffers\": 2048, \"weight_grads\": 401408, \"optimizer_state\": 401408, "
                      "\"feature_maps\": 1.5e6, \"workspace\": 0, \"eval\": \"n/a\"}")
    REC("tta_layer_profile", "{\"steps\": 3, \"layers\": [{\"name\": \"old\", \"type\": \"linear\", \"flops\": 1, "
                             "\"bytes\": 2, \"time_s\": 3}]}")
    REC("tta_layer_profile", "{\"steps\": 12, \"layers\": [{\"name\": \"fc1\", \"type\": \"linear\", "
                             "\"flops\": 1.2582912e8, \"bytes\": 6.5e6, \"time_s\": 0.00125}, {\"name\": 5, \"type\": "
                             "\"relu\", \"flops\": \"many\", \"bytes\": 4096, \"time_s\": 0}, 7, {\"name\": \"fc2\", "
                             "\"type\": \"linear\", \"flops\": 20480, \"bytes\": 1024, \"time_s\": null}]}")
    REC("tta_layer_profile", "[1, 2]");

static const char log_path[] = "logs/replay/results/box-cpu-1t/generated/result_0.txt";

/* Parses text as the replay log and stores it in db (a new store, committed). */
static void ingest_log(sqlite3 *db, const char *text, uint64_t hash) {
    tta_parsed_file f = {0};
    f.hash = hash;
    CHECK(tta_parse_buffer(log_path, text, strlen(text), &f) == 0);
    CHECK(!f.failed);
    if (f.failed) fprintf(stderr, "%s\n", f.error);
    tta_store *s = NULL;
    CHECK(tta_store_open(db, &s, NULL) == TTA_OK);
    tta_db_file view = tta_parsed_db_file(&f);
    tta_error err;
    CHECK(tta_store_write(s, &view, &err) == TTA_OK);
    CHECK(tta_store_flush(s, &err) == TTA_OK);
    tta_store_close(s);
    tta_parsed_free(&f);
}

/* Every profile row as one text (the whole content of the three tables, ordered). */
static char *dump_rows(sqlite3 *db) {
    static const char *const sql[] = {
        "SELECT * FROM replay_memory ORDER BY run_id",
        "SELECT * FROM replay_layer_profiles ORDER BY run_id",
        "SELECT *, typeof(flops), typeof(bytes), typeof(time_s) FROM replay_layers ORDER BY run_id, idx",
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

/* The last record of key whose value is an object, as a SQL subquery of its value. */
#define LAST_OBJECT(key)                                                                                   \
    "(SELECT value FROM events WHERE key = '" key "' AND json_type(value) = 'object' ORDER BY seq DESC " \
    "LIMIT 1)"

TEST(typed_rows_equal_the_log) {
    sqlite3 *db = test_db_fresh(db_path);
    CHECK(db != NULL);
    if (!db) return;
    ingest_log(db, replay_log, 1);
    CHECK(test_query_real(db, "SELECT count(*) FROM replay_memory") == 1);
    /* every category: the column is the last record's member when it is a number */
    for (int i = 0; i < TTA_REPLAY_MEMORY_CATEGORIES; i++) {
        const char *name = tta_profile_memory_names[tta_replay_memory[i]];
        buf q = {0};
        buf_printf(&q,
                   "SELECT count(*) FROM replay_memory m, " LAST_OBJECT(TTA_KEY_MEMORY) " v"
                   " WHERE m.%s IS (CASE WHEN json_type(v.value, '$.%s') IN ('integer', 'real') THEN v.value ->> '$.%s' END)",
                   name, name, name);
        double same = test_query_real(db, buf_str(&q));
        if (same != 1) fprintf(stderr, "memory %s differs from the log\n", name);
        CHECK(same == 1);
        buf_free(&q);
    }
    CHECK(test_query_real(db, "SELECT count(*) FROM replay_memory WHERE weights = 401408 AND typeof(weights) = 'integer'"
                              " AND feature_maps = 1500000 AND workspace = 0 AND eval IS NULL AND data IS NULL") == 1);

    CHECK(test_query_real(db, "SELECT steps FROM replay_layer_profiles") == 12);
    CHECK(test_query_real(db, "SELECT count(*) FROM replay_layers") == 4);
    /* every layer: name and type when strings, the numbers when numbers, in the record's order */
    static const char layer_vs_log[] =
        "SELECT count(*) FROM replay_layers r, json_each(" LAST_OBJECT(TTA_KEY_LAYER_PROFILE) ", '$.layers') j"
        " WHERE r.idx = j.key"
        " AND r.name IS (CASE WHEN j.type <> 'object' THEN NULL WHEN json_type(j.value, '$.name') = 'text'"
        "                THEN j.value ->> '$.name' END)"
        " AND r.type IS (CASE WHEN j.type <> 'object' THEN NULL WHEN json_type(j.value, '$.type') = 'text'"
        "                THEN j.value ->> '$.type' END)"
        " AND r.flops IS (CASE WHEN j.type <> 'object' THEN NULL WHEN json_type(j.value, '$.flops') IN ('integer', 'real')"
        "                 THEN j.value ->> '$.flops' END)"
        " AND r.bytes IS (CASE WHEN j.type <> 'object' THEN NULL WHEN json_type(j.value, '$.bytes') IN ('integer', 'real')"
        "                 THEN j.value ->> '$.bytes' END)"
        " AND r.time_s IS (CASE WHEN j.type <> 'object' THEN NULL WHEN json_type(j.value, '$.time_s') IN ('integer', 'real')"
        "                  THEN j.value ->> '$.time_s' END)";
    CHECK(test_query_real(db, layer_vs_log) == 4);
    CHECK(test_query_real(db, "SELECT count(*) FROM replay_layers WHERE idx = 0 AND name = 'fc1' AND type = 'linear'"
                              " AND flops = 125829120 AND bytes = 6500000 AND time_s = 0.00125") == 1);
    CHECK(test_query_real(db, "SELECT count(*) FROM replay_layers WHERE idx = 1 AND name IS NULL AND type = 'relu'"
                              " AND flops IS NULL AND bytes = 4096 AND time_s = 0") == 1);
    CHECK(test_query_real(db, "SELECT count(*) FROM replay_layers WHERE idx = 2 AND name IS NULL AND type IS NULL"
                              " AND flops IS NULL AND bytes IS NULL AND time_s IS NULL") == 1);
    CHECK(test_query_real(db, "SELECT count(*) FROM replay_layers WHERE idx = 3 AND name = 'fc2' AND time_s IS NULL") == 1);

    /* the reader */
    tta_replay_profile *p = NULL;
    size_t n = 0;
    tta_error err;
    CHECK(tta_db_replay_profiles(db, NULL, &p, &n, &err) == TTA_OK);
    CHECK(n == 1);
    if (n == 1) {
        CHECK(p[0].run_id > 0 && p[0].entry_id > 0 && p[0].has_memory && p[0].has_layers);
        CHECK(!strcmp(p[0].system, "box-cpu-1t") && !strcmp(p[0].benchmark, "generated"));
        CHECK(p[0].memory[0] == 401408 && p[0].memory[4] == 1.5e6 && isnan(p[0].memory[6]) && isnan(p[0].memory[7]));
        CHECK(p[0].steps == 12 && p[0].n_layers == 4);
        if (p[0].n_layers == 4) {
            CHECK(!strcmp(p[0].layers[0].name, "fc1") && !strcmp(p[0].layers[0].type, "linear"));
            CHECK(p[0].layers[0].flops == 1.2582912e8 && p[0].layers[0].bytes == 6.5e6 &&
                  p[0].layers[0].time_s == 0.00125);
            CHECK(p[0].layers[1].name == NULL && isnan(p[0].layers[1].flops) && p[0].layers[1].bytes == 4096);
            CHECK(p[0].layers[2].type == NULL && isnan(p[0].layers[2].time_s));
        }
    }
    tta_replay_profiles_free(p, n);
    tta_filter other = {.round = "v0.7"};
    CHECK(tta_db_replay_profiles(db, &other, &p, &n, &err) == TTA_OK && n == 0);
    tta_replay_profiles_free(p, n);

    /* the file changed and has no layer profile now: its rows are replaced, none left over */
    char *changed = strdupCheck(replay_log);
    char *lp = strstr(changed, "tta_layer_profile");
    while (lp) {
        memcpy(lp, "tta_layer_profilx", 17);
        lp = strstr(lp, "tta_layer_profile");
    }
    char *w = strstr(changed, "401408");
    CHECK(w != NULL);
    if (w) w[0] = '5';
    ingest_log(db, changed, 2);
    free(changed);
    CHECK(test_query_real(db, "SELECT count(*) FROM replay_memory") == 1);
    CHECK(test_query_real(db, "SELECT weights FROM replay_memory") == 501408);
    CHECK(test_query_real(db, "SELECT count(*) FROM replay_layer_profiles") == 0);
    CHECK(test_query_real(db, "SELECT count(*) FROM replay_layers") == 0);
    CHECK(tta_db_replay_profiles(db, NULL, &p, &n, &err) == TTA_OK && n == 1);
    if (n == 1) CHECK(p[0].has_memory && !p[0].has_layers && p[0].n_layers == 0);
    tta_replay_profiles_free(p, n);
    sqlite3_close(db);
}

/* An older database (stored before the profile tables existed) gets the same rows from its stored
 * records as the parser gives: the tables are dropped and migration 007 is run again on the
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
        if (strstr(tta_migrations[i], "CREATE TABLE replay_layers")) migration = tta_migrations[i];
    CHECK(migration != NULL);
    if (migration) {
        CHECK(sqlite3_exec(db, "DROP TABLE replay_layers; DROP TABLE replay_layer_profiles; DROP TABLE replay_memory",
                           NULL, NULL, NULL) == SQLITE_OK);
        char *msg = NULL;
        CHECK(sqlite3_exec(db, migration, NULL, NULL, &msg) == SQLITE_OK);
        if (msg) fprintf(stderr, "migration: %s\n", msg);
        sqlite3_free(msg);
        char *migrated = dump_rows(db);
        CHECK(strcmp(parsed, migrated) == 0);
        if (strcmp(parsed, migrated)) fprintf(stderr, "parsed:\n%s\nmigrated:\n%s\n", parsed, migrated);
        CHECK(strstr(migrated, "fc1|linear") != NULL && strstr(migrated, "401408") != NULL);
        free(migrated);
    }
    free(parsed);
    sqlite3_close(db);
}

int main(void) {
    snprintf(db_path, sizeof db_path, "/tmp/tta_test_replay_profile_%d.db", (int)getpid());
    RUN(typed_rows_equal_the_log);
    RUN(migration_fills_the_same_rows);
    test_db_unlink(db_path);
    return test_summary();
}
