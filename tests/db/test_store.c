/* test_store.c: the database writer (db/): writing parsed files, replacement, failed
 * files, the run_tta view's rules (tolerance, lower-is-better, DAWNBench TTA, reached), and
 * the division fix-up from system descriptions. Parsed files are built by hand here so that
 * the store is tested apart from the parsers. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "db/reader.h"
#include "db/writer.h"
#include "ingest/parsed.h"
#include "ingest/records.h"
#include "test_sql.h"
#include "tta_test.h"

static char db_path[256];

static sqlite3 *fresh_db(void) {
    snprintf(db_path, sizeof db_path, "/tmp/tta_test_store_%d.db", (int)getpid());
    unlink(db_path);
    char wal[300], shm[300];
    snprintf(wal, sizeof wal, "%s-wal", db_path);
    snprintf(shm, sizeof shm, "%s-shm", db_path);
    unlink(wal);
    unlink(shm);
    sqlite3 *db = NULL;
    tta_error err;
    int rc = tta_db_open(db_path, &db, &err);
    if (rc != TTA_OK) fprintf(stderr, "%s\n", err.text);
    CHECK(rc == TTA_OK);
    return db;
}

/* A fresh database and a store on it (the test fails if either cannot be had). */
static tta_store *open_store(sqlite3 **db) {
    *db = fresh_db();
    tta_store *s = NULL;
    CHECK(tta_store_open(*db, &s, NULL) == TTA_OK);
    return s;
}

/* Writes the parsed file f through the writer (as ingest.c does, through its db view), then
 * frees the records the view encoded (the files here are built by hand, never tta_parsed_free'd). */
static int write_parsed(tta_store *s, tta_parsed_file *f, tta_error *err) {
    tta_db_file view = tta_parsed_db_file(f);
    int rc = tta_store_write(s, &view, err);
    free(f->records);
    free(f->records_files);
    f->records = f->records_files = NULL;
    f->records_len = 0;
    return rc;
}

static tta_str span(const char *s) { return (tta_str){s, (uint32_t)strlen(s)}; }

/* A run record with evaluations of the given qualities at epochs 1..n, 100 s apart. */
static void make_run(tta_parsed_file *f, const char *path, const char *round, const char *benchmark,
                     const char *division, const double *q, size_t n, tta_run_status status) {
    memset(f, 0, sizeof *f);
    f->path = (char *)path;
    f->format = TTA_FMT_MLLOG;
    f->size = 100;
    f->hash = 42;
    f->run.round = (char *)round;
    f->run.division = (char *)division;
    f->run.submitter = "Acme";
    f->run.system = "box8";
    f->run.benchmark = (char *)benchmark;
    f->run.run_index = 1;
    f->run.run_start_s = 1000;
    f->run.run_stop_s = 1000 + 100.0 * n + 5;
    f->run.status = status;
    f->run.target = NAN;
    f->run.target2 = NAN;
    f->run.global_batch_size = 256;
    f->run.train_samples = NAN;
    f->run.eval_samples = NAN;
    /* As the builder leaves them: the checker's reading at run_stop (the last evaluation). */
    f->run.cp_status = status;
    f->run.cp_epoch_num = n ? (double)n : NAN;
    f->run.cp_samples_count = f->run.cp_train_samples = NAN;
    f->run.cp_first_passing_step = f->run.cp_first_passing_samples = NAN;
    static tta_eval evals[16];
    static tta_event events[2];
    for (size_t i = 0; i < n; i++) {
        evals[i] = (tta_eval){.time_s = 1000 + 100.0 * (i + 1), .epoch = (double)(i + 1), .samples = NAN,
                              .quality = q[i], .quality2 = NAN};
    }
    f->run.evals = evals;
    f->run.n_evals = n;
    events[0] = (tta_event){.key = span("run_start"), .value = span("null"), .time_s = 1000, .epoch_num = NAN,
                            .samples = NAN, .line = 1, .type = TTA_EV_START};
    events[1] = (tta_event){.key = span("run_stop"), .value = span("null"), .metadata = span("{\"status\": \"success\"}"),
                            .time_s = f->run.run_stop_s, .epoch_num = NAN, .samples = NAN, .line = 2,
                            .type = TTA_EV_END};
    f->events = events;
    f->n_events = 2;
}

TEST(run_tta_view_rules) {
    sqlite3 *db;
    tta_error err;
    tta_store *s = open_store(&db);
    tta_parsed_file f;
    /* GNMT v0.5 target 21.8 BLEU: 21.799999 meets it within the 1e-6 relative tolerance. */
    double gnmt[] = {19.0, 21.799999, 21.9};
    make_run(&f, "a/result_1.txt", "v0.5", "gnmt", "closed", gnmt, 3, TTA_RUN_SUCCESS);
    CHECK(write_parsed(s, &f, &err) == TTA_OK);
    /* A run whose last evaluation falls back below the target: not reached, but epochs counts
     * the first evaluation at the target. */
    double resnet[] = {0.70, 0.76, 0.758};
    make_run(&f, "a/result_2.txt", "v0.7", "resnet", "closed", resnet, 3, TTA_RUN_ABORTED);
    CHECK(write_parsed(s, &f, &err) == TTA_OK);
    /* Lower is better: rnnt WER 0.058. */
    double rnnt[] = {0.09, 0.0581, 0.0579};
    make_run(&f, "a/result_3.txt", "v1.0", "rnnt", "closed", rnnt, 3, TTA_RUN_SUCCESS);
    CHECK(write_parsed(s, &f, &err) == TTA_OK);
    tta_store_counts c = tta_store_committed(s);
    CHECK(c.runs == 0 && c.ingested == 0); /* counted when their transaction commits */
    CHECK(tta_store_flush(s, &err) == TTA_OK);
    c = tta_store_committed(s);
    CHECK(c.runs == 3 && c.events == 6 && c.ingested == 3 && c.failed == 0);

    CHECK(test_query_real(db, "SELECT reached FROM run_tta WHERE file = 'a/result_1.txt'") == 1);
    CHECK(test_query_real(db, "SELECT epochs FROM run_tta WHERE file = 'a/result_1.txt'") == 2);
    CHECK_NEAR(test_query_real(db, "SELECT tta_s FROM run_tta WHERE file = 'a/result_1.txt'"), 305, 1e-9);
    CHECK(test_query_real(db, "SELECT reached FROM run_tta WHERE file = 'a/result_2.txt'") == 0);
    CHECK(test_query_real(db, "SELECT epochs FROM run_tta WHERE file = 'a/result_2.txt'") == 2);
    /* v1.0 has an RCP checker: progress is its reading, the last evaluation's epoch_num (3), not
     * the first evaluation meeting the target (2). */
    CHECK(test_query_real(db, "SELECT reached FROM run_tta WHERE file = 'a/result_3.txt'") == 1);
    CHECK(test_query_real(db, "SELECT epochs FROM run_tta WHERE file = 'a/result_3.txt'") == 3);
    CHECK(test_query_real(db, "SELECT progress FROM run_tta WHERE file = 'a/result_3.txt'") == 3);
    CHECK(test_query_real(db, "SELECT success_unmet FROM run_tta WHERE file = 'a/result_3.txt'") == 0);
    /* v0.5 has none: the first evaluation meeting the target. */
    CHECK(test_query_real(db, "SELECT progress FROM run_tta WHERE file = 'a/result_1.txt'") == 2);
    /* A run that did not succeed has no convergence point in rounds with a checker. */
    CHECK(test_query_real(db, "SELECT count(*) FROM events e JOIN runs r ON r.id = e.run_id") == 6);
    tta_store_close(s);
    sqlite3_close(db);
}

/* A log that says success with its last evaluation below the target is flagged; a failed run has
 * no convergence point where the RCP checker reads one; two metrics each in their direction. */
TEST(run_tta_flags_and_two_metrics) {
    sqlite3 *db;
    tta_error err;
    tta_store *s = open_store(&db);
    tta_parsed_file f;
    double resnet[] = {0.70, 0.75886};
    make_run(&f, "b/result_1.txt", "v3.1", "resnet", "closed", resnet, 2, TTA_RUN_SUCCESS);
    CHECK(write_parsed(s, &f, &err) == TTA_OK);
    make_run(&f, "b/result_2.txt", "v3.1", "resnet", "closed", resnet, 2, TTA_RUN_ABORTED);
    CHECK(write_parsed(s, &f, &err) == TTA_OK);
    /* stable_diffusion: FID 85 <= 90 with CLIP 0.14 < 0.15 fails; FID 80 with CLIP 0.16 passes. */
    double fid[] = {85, 80};
    make_run(&f, "b/result_3.txt", "v3.1", "stable_diffusion", "closed", fid, 2, TTA_RUN_SUCCESS);
    static tta_eval sd[2];
    sd[0] = f.run.evals[0];
    sd[1] = f.run.evals[1];
    sd[0].quality2 = 0.14;
    sd[1].quality2 = 0.16;
    f.run.evals = sd;
    f.run.cp_first_passing_step = 1000;
    CHECK(write_parsed(s, &f, &err) == TTA_OK);
    CHECK(tta_store_flush(s, &err) == TTA_OK);
    CHECK(test_query_real(db, "SELECT success_unmet FROM run_tta WHERE file = 'b/result_1.txt'") == 1);
    CHECK(test_query_real(db, "SELECT count(*) FROM run_tta WHERE file = 'b/result_1.txt'"
                         " AND flag_reasons LIKE '%0.75886%does not meet the target (0.759)%'") == 1);
    CHECK(test_query_real(db, "SELECT success_unmet FROM run_tta WHERE file = 'b/result_2.txt'") == 0);
    CHECK(isnan(test_query_real(db, "SELECT progress FROM run_tta WHERE file = 'b/result_2.txt'")));
    CHECK(test_query_real(db, "SELECT meets FROM evaluation_meets m JOIN run_tta r ON r.run_id = m.run_id"
                         " WHERE r.file = 'b/result_3.txt' AND m.seq = 0") == 0);
    CHECK(test_query_real(db, "SELECT reached FROM run_tta WHERE file = 'b/result_3.txt'") == 1);
    CHECK(test_query_real(db, "SELECT progress FROM run_tta WHERE file = 'b/result_3.txt'") == 1000);
    tta_store_close(s);
    sqlite3_close(db);
}

/* The facts follow what is written: a run far outside its entry is flagged and left out of the
 * entry's statistics until it is removed; a run published again in a later round names the
 * earlier one; new rules work out every fact again (the triggers of schema 5 and db/facts.c). */
TEST(facts_follow_changes) {
    sqlite3 *db;
    tta_error err;
    tta_store *s = open_store(&db);
    tta_parsed_file f;
    double q[] = {0.70, 0.76};
    const char *paths[] = {"c/result_1.txt", "c/result_2.txt", "c/result_3.txt", "c/result_4.txt"};
    for (int i = 0; i < 4; i++) {
        make_run(&f, paths[i], "v3.1", "resnet", "closed", q, 2, TTA_RUN_SUCCESS);
        f.run.run_start_s = 1000 + 10000.0 * i;
        f.run.run_stop_s = f.run.run_start_s + (i == 3 ? 6000 : 200 + i); /* the last: 30x the others */
        CHECK(write_parsed(s, &f, &err) == TTA_OK);
    }
    /* the first run again, in a later round */
    make_run(&f, "d/result_1.txt", "v4.0", "resnet", "closed", q, 2, TTA_RUN_SUCCESS);
    f.run.run_start_s = 1000;
    f.run.run_stop_s = 1200;
    CHECK(write_parsed(s, &f, &err) == TTA_OK);
    CHECK(tta_store_flush(s, &err) == TTA_OK); /* each commit works out the facts it needs */
    CHECK(test_query_real(db, "SELECT count(*) FROM facts_pending") == 0);
    CHECK(test_query_real(db, "SELECT count(*) FROM run_facts") == 5);
    CHECK(test_query_real(db, "SELECT time_suspect FROM run_tta WHERE file = 'c/result_4.txt'") == 1);
    CHECK(test_query_real(db, "SELECT count(*) FROM run_tta WHERE file = 'c/result_4.txt'"
                              " AND flags = 'far_outside_entry' AND flag_reasons LIKE '100.00 min against the median%'") == 1);
    CHECK(test_query_real(db, "SELECT count(*) FROM run_tta WHERE file LIKE 'c/%' AND flags = ''") == 3);
    CHECK(test_query_real(db, "SELECT count(*) FROM run_tta WHERE file = 'd/result_1.txt' AND flags = 'republished'"
                              " AND flag_reasons = 'the same run as c/result_1.txt of round v3.1 (equal run_start)'") == 1);
    /* removing the odd run works its entry out again; removing the original clears the copy's flag */
    CHECK(tta_store_forget(s, "c/result_4.txt", &err) == TTA_OK);
    CHECK(tta_store_forget(s, "c/result_1.txt", &err) == TTA_OK);
    CHECK(tta_store_finish(s, &err) == TTA_OK);
    CHECK(test_query_real(db, "SELECT count(*) FROM run_facts") == 3);
    CHECK(test_query_real(db, "SELECT count(*) FROM run_flags") == 0);
    /* new rules: every verdict and fact again (here: the copy of the rules is made stale) */
    sqlite3_exec(db, "UPDATE rule_meta SET value = 'stale' WHERE key = 'fingerprint';"
                     "UPDATE run_facts SET reached = NULL, tta_s = NULL;", NULL, NULL, NULL);
    tta_store_close(s);
    sqlite3_close(db);
    CHECK(tta_db_open(db_path, &db, &err) == TTA_OK);
    CHECK(test_query_real(db, "SELECT count(*) FROM facts_pending") == 0);
    CHECK(test_query_real(db, "SELECT count(*) FROM run_tta WHERE reached = 1 AND tta_s > 0") == 3);
    CHECK(test_query_real(db, "SELECT count(*) FROM evaluations WHERE meets IS NULL") == 0);
    sqlite3_close(db);
}

TEST(replace_and_failed_files) {
    sqlite3 *db;
    tta_error err;
    tta_store *s = open_store(&db);
    tta_parsed_file f;
    double q[] = {0.5, 0.77};
    make_run(&f, "x/result_0.txt", "v0.7", "resnet", "closed", q, 2, TTA_RUN_SUCCESS);
    CHECK(write_parsed(s, &f, &err) == TTA_OK);
    CHECK(write_parsed(s, &f, &err) == TTA_OK); /* replaces, not duplicates */
    CHECK(test_query_real(db, "SELECT count(*) FROM runs") == 1);
    CHECK(test_query_real(db, "SELECT count(*) FROM evaluations") == 2);
    CHECK(test_query_real(db, "SELECT count(*) FROM events") == 2);

    tta_parsed_file bad;
    memset(&bad, 0, sizeof bad);
    bad.path = "x/result_0.txt";
    bad.format = TTA_FMT_MLLOG;
    bad.failed = 1;
    bad.error = "x/result_0.txt:7: unterminated JSON object";
    CHECK(write_parsed(s, &bad, &err) == TTA_OK);
    CHECK(test_query_real(db, "SELECT count(*) FROM runs") == 0);
    CHECK(test_query_real(db, "SELECT count(*) FROM sources WHERE status = 'failed' AND error LIKE '%:7: %'") == 1);
    tta_stored_source *v;
    size_t n;
    CHECK(tta_store_load_sources(s, &v, &n, &err) == TTA_OK);
    CHECK(n == 1 && !v[0].ok);
    tta_stored_sources_free(v, n);
    tta_store_close(s);
    sqlite3_close(db);
}

TEST(division_from_system_description) {
    sqlite3 *db;
    tta_error err;
    tta_store *s = open_store(&db);
    tta_parsed_file f;
    double q[] = {0.5, 0.77};
    make_run(&f, "y/result_0.txt", "v0.5", "resnet", NULL, q, 2, TTA_RUN_SUCCESS);
    CHECK(write_parsed(s, &f, &err) == TTA_OK);
    CHECK(test_query_real(db, "SELECT count(*) FROM entries WHERE division = 'unknown'") == 1);
    tta_parsed_file sys;
    memset(&sys, 0, sizeof sys);
    sys.path = "y/entry.json";
    sys.format = TTA_FMT_ENTRY_JSON;
    sys.system = (tta_system_record){.round = "v0.5", .submitter = "Acme", .name = "box8", .division = "closed",
                                     .nodes = 1, .accelerators_per_node = 8, .accelerators = 8,
                                     .raw_json = "{}"};
    CHECK(write_parsed(s, &sys, &err) == TTA_OK);
    CHECK(tta_store_finish(s, &err) == TTA_OK);
    CHECK(test_query_real(db, "SELECT count(*) FROM entries WHERE division = 'unknown'") == 0);
    CHECK(test_query_real(db, "SELECT count(*) FROM run_tta WHERE division = 'closed' AND accelerators = 8") == 1);
    /* A later run of the same entry finds the division at once. */
    make_run(&f, "y/result_1.txt", "v0.5", "resnet", NULL, q, 2, TTA_RUN_SUCCESS);
    CHECK(write_parsed(s, &f, &err) == TTA_OK);
    CHECK(test_query_real(db, "SELECT count(*) FROM entries") == 1);
    tta_store_close(s);
    sqlite3_close(db);
}

/* The records JSON: every element [line, time, key, value, metadata, epoch_num, samples]; times
 * in whole ms exact, other numbers round-trip, NAN as null, keys escaped, spans copied. */
TEST(records_encoding) {
    tta_event ev[4] = {
        {.key = span("run_start"), .value = span("null"), .time_s = 1593135220.254, .epoch_num = NAN,
         .samples = NAN, .line = 1},
        {.key = span("eval_accuracy"), .value = span("0.759"), .metadata = span("{\"epoch_num\": 3}"),
         .time_s = 1593135221.5, .epoch_num = 3, .samples = 384000, .line = 12},
        {.key = span("we\"ird\nkey\xc3\xa9"), .time_s = NAN, .epoch_num = 2.5, .samples = -1, .line = 4000000000u},
        {.key = span("tiny"), .value = span("[1, 2]"), .time_s = 0.0001234, .epoch_num = 1e300, .samples = 0,
         .line = 7},
    };
    buf b = {0}, files = {0};
    /* Line numbers at every digit-pair boundary. */
    static const uint32_t lines[] = {0, 9, 10, 99, 100, 101, 999, 1000, 65536, 999999, 4294967295u};
    tta_event lev[11];
    for (int i = 0; i < 11; i++)
        lev[i] = (tta_event){.key = span("k"), .value = span("1"), .time_s = 12.5, .epoch_num = NAN,
                             .samples = lines[i], .line = lines[i]};
    tta_records_encode(lev, 11, &b, &files);
    CHECK(files.len == 0);
    CHECK_STR(buf_str(&b), "[[0,12.5,\"k\",1,null,null,0],[9,12.5,\"k\",1,null,null,9],[10,12.5,\"k\",1,null,null,10],"
                           "[99,12.5,\"k\",1,null,null,99],[100,12.5,\"k\",1,null,null,100],"
                           "[101,12.5,\"k\",1,null,null,101],[999,12.5,\"k\",1,null,null,999],"
                           "[1000,12.5,\"k\",1,null,null,1000],[65536,12.5,\"k\",1,null,null,65536],"
                           "[999999,12.5,\"k\",1,null,null,999999],"
                           "[4294967295,12.5,\"k\",1,null,null,4294967295]]");
    tta_records_encode(ev, 4, &b, &files);
    CHECK_STR(buf_str(&b), "[[1,1593135220.254,\"run_start\",null,null,null,null],"
                           "[12,1593135221.5,\"eval_accuracy\",0.759,{\"epoch_num\": 3},3,384000],"
                           "[4000000000,null,\"we\\\"ird\\nkey\xc3\xa9\",null,null,2.5,-1],"
                           "[7,0.0001234,\"tiny\",[1, 2],null,1e+300,0]]");
    CHECK(b.len == strlen(buf_str(&b)));
    tta_records_encode(ev, 0, &b, &files);
    CHECK_STR(buf_str(&b), "[]");

    /* Metadata paths are kept once per run: "file" becomes an index into files and the element
     * ends with 1; a "file" outside the metadata span (not the parser's) stays in place. */
    static const char m1[] = "{\"file\": \"/opt/a.py\", \"lineno\": 7}";
    static const char m2[] = "{\"lineno\": 9, \"file\": \"/opt/b.py\", \"epoch_num\": 2}";
    static const char m3[] = "{\"file\": \"/opt/a.py\"}";
    tta_event fe[4] = {
        {.key = span("a"), .value = span("1"), .metadata = span(m1), .file = {m1 + 9, 11}, .time_s = 1,
         .epoch_num = NAN, .samples = NAN, .line = 1},
        {.key = span("b"), .value = span("2"), .metadata = span(m2), .file = {m2 + 22, 11}, .time_s = 2,
         .epoch_num = 2, .samples = NAN, .line = 2},
        {.key = span("c"), .value = span("3"), .metadata = span(m3), .file = {m3 + 9, 11}, .time_s = 3,
         .epoch_num = NAN, .samples = NAN, .line = 3},
        {.key = span("d"), .value = span("4"), .metadata = span(m3), .file = {m1 + 9, 11}, .time_s = 4,
         .epoch_num = NAN, .samples = NAN, .line = 4},
    };
    tta_records_encode(fe, 4, &b, &files);
    CHECK_STR(buf_str(&b), "[[1,1,\"a\",1,{\"file\": 0, \"lineno\": 7},null,null,1],"
                           "[2,2,\"b\",2,{\"lineno\": 9, \"file\": 1, \"epoch_num\": 2},2,null,1],"
                           "[3,3,\"c\",3,{\"file\": 0},null,null,1],"
                           "[4,4,\"d\",4,{\"file\": \"/opt/a.py\"},null,null]]");
    CHECK_STR(buf_str(&files), "[\"/opt/a.py\",\"/opt/b.py\"]");
    buf_free(&b);
    buf_free(&files);

    /* Encoded by the caller (the parser threads) or by the store: the same stored text. */
    sqlite3 *db;
    tta_error err;
    tta_store *s = open_store(&db);
    tta_parsed_file f;
    double q[] = {0.5, 0.77};
    make_run(&f, "r/result_0.txt", "v0.7", "resnet", "closed", q, 2, TTA_RUN_SUCCESS);
    CHECK(write_parsed(s, &f, &err) == TTA_OK);
    make_run(&f, "r/result_1.txt", "v0.7", "resnet", "closed", q, 2, TTA_RUN_SUCCESS);
    tta_parsed_encode_records(&f);
    CHECK(f.records && f.records_len == strlen(f.records));
    CHECK(write_parsed(s, &f, &err) == TTA_OK);
    free(f.records);
    CHECK(tta_store_flush(s, &err) == TTA_OK);
    CHECK(test_query_real(db, "SELECT count(DISTINCT records) FROM event_log") == 1);
    CHECK(test_query_real(db, "SELECT count(*) FROM event_log WHERE files IS NULL") == 2); /* no paths */
    CHECK(test_query_real(db, "SELECT count(*) FROM event_log WHERE json_valid(records)") == 2);
    CHECK(test_query_real(db, "SELECT count(*) FROM events WHERE key = 'run_stop' AND metadata ->> '$.status' = 'success'")
          == 2);
    tta_store_close(s);
    sqlite3_close(db);
}

/* A database error (here a full disk: max_page_count) rolls back the whole open transaction:
 * the files before the failing one in it go too, as a crash would take them; what earlier
 * commits stored stays, the database stays consistent, and writing again completes the job. */
TEST(database_error_rolls_back_the_open_transaction) {
    sqlite3 *db;
    tta_error err;
    tta_store *s = open_store(&db);
    tta_parsed_file f;
    double q[] = {0.5, 0.77};
    make_run(&f, "d/result_0.txt", "v0.7", "resnet", "closed", q, 2, TTA_RUN_SUCCESS);
    CHECK(write_parsed(s, &f, &err) == TTA_OK);
    CHECK(tta_store_flush(s, &err) == TTA_OK);
    make_run(&f, "d/result_1.txt", "v0.7", "resnet", "closed", q, 2, TTA_RUN_SUCCESS);
    CHECK(write_parsed(s, &f, &err) == TTA_OK);
    tta_parsed_file bad;
    memset(&bad, 0, sizeof bad);
    bad.path = "d/result_2.txt";
    bad.format = TTA_FMT_MLLOG;
    bad.failed = 1;
    bad.error = "d/result_2.txt:3: unterminated JSON object";
    CHECK(write_parsed(s, &bad, &err) == TTA_OK);

    /* A run whose records need more pages than the disk has left. */
    CHECK(sqlite3_exec(db, "PRAGMA max_page_count = 1", NULL, NULL, NULL) == SQLITE_OK);
    CHECK(test_query_real(db, "PRAGMA max_page_count") > 1); /* clamped to the pages in use */
    static char big_value[200000];
    memset(big_value, '7', sizeof big_value - 1);
    make_run(&f, "d/result_3.txt", "v0.7", "resnet", "closed", q, 2, TTA_RUN_SUCCESS);
    f.events[0].value = span(big_value);
    CHECK(write_parsed(s, &f, &err) == TTA_EDB);
    CHECK(strstr(err.text, "d/result_3.txt: storing: ") && strstr(err.text, "full") &&
          strstr(err.text, "the 2 before it in the open transaction were rolled back"));
    tta_store_counts c = tta_store_committed(s);
    CHECK(c.ingested == 1 && c.failed == 0 && c.runs == 1 && c.events == 2);
    CHECK(tta_store_rolled_back(s) == 2);
    CHECK(tta_store_flush(s, &err) == TTA_OK); /* nothing open */
    CHECK(test_query_real(db, "SELECT count(*) FROM sources") == 1);
    CHECK(test_query_real(db, "SELECT count(*) FROM sources WHERE path = 'd/result_0.txt'") == 1);
    CHECK(test_query_real(db, "SELECT count(*) FROM runs") == 1);
    CHECK(test_query_real(db, "SELECT count(*) FROM evaluations") == 2);
    CHECK(test_query_real(db, "SELECT count(*) FROM entries") == 1);
    CHECK(test_query_real(db, "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check = 'ok'") == 1);
    CHECK(test_query_real(db, "SELECT count(*) FROM pragma_foreign_key_check") == 0);

    /* Room again: the same files go in, the entry cache holds no rolled-back id. */
    CHECK(sqlite3_exec(db, "PRAGMA max_page_count = 1073741823", NULL, NULL, NULL) == SQLITE_OK);
    make_run(&f, "d/result_1.txt", "v0.7", "resnet", "closed", q, 2, TTA_RUN_SUCCESS);
    CHECK(write_parsed(s, &f, &err) == TTA_OK);
    CHECK(write_parsed(s, &bad, &err) == TTA_OK);
    make_run(&f, "d/result_3.txt", "v0.7", "resnet", "closed", q, 2, TTA_RUN_SUCCESS);
    f.events[0].value = span(big_value);
    CHECK(write_parsed(s, &f, &err) == TTA_OK);
    CHECK(tta_store_finish(s, &err) == TTA_OK);
    c = tta_store_committed(s);
    CHECK(c.ingested == 3 && c.failed == 1 && c.runs == 3);
    CHECK(test_query_real(db, "SELECT count(*) FROM runs") == 3);
    CHECK(test_query_real(db, "SELECT count(*) FROM runs r JOIN entries e ON e.id = r.entry_id") == 3);
    CHECK(test_query_real(db, "SELECT max(length(records)) FROM event_log") > 200000);
    tta_store_close(s);
    sqlite3_close(db);
}

static long long file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

/* The checkpointer copies committed WAL frames into the database file while the writer goes on,
 * and gives the connection its automatic checkpoints back when stopped. An in-memory database
 * has nothing to copy. */
TEST(checkpointer_copies_the_wal_while_writing) {
    sqlite3 *mem = NULL;
    CHECK(sqlite3_open(":memory:", &mem) == SQLITE_OK);
    CHECK(tta_checkpointer_start(mem, 1) == NULL);
    sqlite3_close(mem);

    sqlite3 *db = fresh_db();
    CHECK(sqlite3_exec(db, "CREATE TABLE filler(x BLOB)", NULL, NULL, NULL) == SQLITE_OK);
    CHECK(sqlite3_wal_checkpoint_v2(db, "main", SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL) == SQLITE_OK);
    long long before = file_size(db_path);
    tta_checkpointer *c = tta_checkpointer_start(db, 1);
    CHECK(c != NULL);
    /* 40 transactions of 1 MB; the main file must take them in while the connection is open
     * (its own close would copy them otherwise). Wait for the thread, up to 20 s. */
    long long written = 0;
    for (int t = 0; t < 40; t++) {
        CHECK(sqlite3_exec(db, "BEGIN; WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 128)"
                               " INSERT INTO filler SELECT randomblob(8192) FROM n; COMMIT;", NULL, NULL, NULL) == SQLITE_OK);
        written += 128 * 8192;
    }
    for (int waited = 0; waited < 2000 && file_size(db_path) < before + written / 2; waited++) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    CHECK(file_size(db_path) >= before + written / 2);
    tta_checkpointer_stop(c);
    CHECK(test_query_real(db, "PRAGMA wal_autocheckpoint") == 16384);
    CHECK(test_query_real(db, "SELECT count(*) FROM filler") == 40 * 128);
    CHECK(test_query_real(db, "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check = 'ok'") == 1);
    tta_checkpointer_stop(NULL);
    sqlite3_close(db);
}

/* More rows than one multi-row INSERT takes (evaluations, epochs, hyperparameters go 32 to an
 * execution, the rest one by one): every row lands once, in order, with its values; a repeated
 * hyperparameter keeps its first value, within a multi-row execution or across, and an empty key
 * is skipped. */
TEST(bulk_rows) {
    sqlite3 *db;
    tta_error err;
    tta_store *s = open_store(&db);
    tta_parsed_file f;
    double q[] = {0.5};
    make_run(&f, "b/result_0.txt", "v0.7", "resnet", "closed", q, 1, TTA_RUN_SUCCESS);
    static tta_eval evals[70];
    static tta_epoch_mark epochs[65];
    static tta_kv hp[40];
    static char keys[40][16], values[40][16];
    for (int i = 0; i < 70; i++)
        evals[i] = (tta_eval){.time_s = 2000 + i, .epoch = i + 1, .samples = 1000.0 * i, .quality = 0.001 * i,
                              .quality2 = i % 2 ? NAN : 0.5};
    for (int i = 0; i < 65; i++) epochs[i] = (tta_epoch_mark){.epoch = i + 1, .start_s = 10.0 * i, .stop_s = NAN};
    for (int i = 0; i < 40; i++) {
        snprintf(keys[i], sizeof keys[i], "opt_k%d", i % 30); /* keys 0..9 come twice: inside a bulk and after */
        snprintf(values[i], sizeof values[i], "%d", i);
        hp[i] = (tta_kv){span(keys[i]), span(values[i])};
    }
    hp[5].key = (tta_str){0};
    f.run.evals = evals;
    f.run.n_evals = 70;
    f.run.epochs = epochs;
    f.run.n_epochs = 65;
    f.run.hparams = hp;
    f.run.n_hparams = 40;
    CHECK(write_parsed(s, &f, &err) == TTA_OK);
    CHECK(tta_store_flush(s, &err) == TTA_OK);
    CHECK(test_query_real(db, "SELECT count(*) FROM evaluations") == 70);
    CHECK(test_query_real(db, "SELECT count(*) FROM evaluations WHERE time = 2000 + seq AND epoch = seq + 1"
                         " AND samples = 1000 * seq AND abs(quality - 0.001 * seq) < 1e-12"
                         " AND (quality2 IS NULL) = (seq % 2 = 1)") == 70);
    CHECK(test_query_real(db, "SELECT count(*) FROM epochs WHERE epoch = seq + 1 AND start = 10 * seq AND stop IS NULL")
          == 65);
    CHECK(test_query_real(db, "SELECT max(seq) FROM epochs") == 64);
    CHECK(test_query_real(db, "SELECT count(*) FROM hyperparameters") == 30);
    CHECK(test_query_real(db, "SELECT value FROM hyperparameters WHERE key = 'opt_k1'") == 1);  /* not 31 */
    CHECK(test_query_real(db, "SELECT value FROM hyperparameters WHERE key = 'opt_k9'") == 9);  /* not 39 */
    CHECK(test_query_real(db, "SELECT value FROM hyperparameters WHERE key = 'opt_k5'") == 35); /* the first had no key */
    tta_store_close(s);
    sqlite3_close(db);
}

/* Paths kept once per run read back in place: the events view gives each record's metadata as
 * logged (members, values and order), for the records written with and without an index. */
TEST(events_view_puts_paths_back) {
    sqlite3 *db;
    tta_error err;
    tta_store *s = open_store(&db);
    tta_parsed_file f;
    double q[] = {0.5, 0.77};
    make_run(&f, "p/result_0.txt", "v0.7", "resnet", "closed", q, 2, TTA_RUN_SUCCESS);
    static const char m1[] = "{\"file\": \"/w/t\\\"q.py\", \"lineno\": 7, \"status\": \"success\"}";
    static const char m2[] = "{\"lineno\": 9, \"file\": \"/w/u.py\"}";
    f.events[0].metadata = span(m2);
    f.events[0].file = (tta_str){m2 + 22, 9};
    f.events[1].metadata = span(m1);
    f.events[1].file = (tta_str){m1 + 9, 12};
    CHECK(write_parsed(s, &f, &err) == TTA_OK);
    CHECK(tta_store_flush(s, &err) == TTA_OK);
    CHECK(test_query_real(db, "SELECT count(*) FROM event_log WHERE files = '[\"/w/u.py\",\"/w/t\\\"q.py\"]'") == 1);
    CHECK(test_query_real(db, "SELECT count(*) FROM events WHERE seq = 0 AND metadata = json('{\"lineno\": 9, \"file\": \"/w/u.py\"}')")
          == 1);
    CHECK(test_query_real(db, "SELECT count(*) FROM events WHERE seq = 1 AND metadata = "
                         "json('{\"file\": \"/w/t\\\"q.py\", \"lineno\": 7, \"status\": \"success\"}')") == 1);
    CHECK(test_query_real(db, "SELECT count(*) FROM events WHERE metadata ->> 'file' = '/w/t\"q.py'") == 1);
    /* A row of an older tta (no files, no eighth element) reads as it was stored. */
    CHECK(sqlite3_exec(db, "PRAGMA foreign_keys=OFF; INSERT INTO event_log(run_id, n, records) SELECT id + 100, 1, "
                           "'[[1,2,\"k\",null,{\"file\":3},null,null]]' FROM runs;",
                       NULL, NULL, NULL) == SQLITE_OK);
    CHECK(test_query_real(db, "SELECT metadata ->> 'file' FROM events WHERE run_id > 100") == 3);
    tta_store_close(s);
    sqlite3_close(db);
}

int main(void) {
    RUN(run_tta_view_rules);
    RUN(run_tta_flags_and_two_metrics);
    RUN(facts_follow_changes);
    RUN(replace_and_failed_files);
    RUN(division_from_system_description);
    RUN(records_encoding);
    RUN(database_error_rolls_back_the_open_transaction);
    RUN(checkpointer_copies_the_wal_while_writing);
    RUN(bulk_rows);
    RUN(events_view_puts_paths_back);
    unlink(db_path);
    return test_summary();
}
