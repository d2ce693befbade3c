/* test_layout.c: what `tta ingest` reads in a results tree of the later rounds: run numbers of
 * result_<id>_<n>.txt, which files the walk skips and why (sample logs under benchmarks/, copies in
 * raw_logs/, logs not named result_*.txt), a file named on the command line always read, and
 * scaling.json as an entry_files row keyed like its folder's runs, and what an ingest returns when
 * a path is missing, a file malformed or the database refuses (ingest.h). Real paths from the corpus;
 * fixtures/mlperf/v2.1/Intel (a folder with its scaling.json), v4.1/Lambda (result_<id>_<n>.txt)
 * and v3.0/Azure/benchmarks (a sample log) are real excerpts (fixtures/README.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "ingest/ingest.h"
#include "ingest/parse.h"
#include "ingest/pathmeta.h"
#include "test_sql.h"
#include "tta_test.h"

#define INTEL "fixtures/mlperf/v2.1/Intel/results/1-node-SPR-pytorch/dlrm"
#define LAMBDA "fixtures/mlperf/v4.1/Lambda/results/lambda_1cc_n2_H100-SXM-80GB_ngc24.04_nemo/llama2_70b_lora"
#define SAMPLE_DIR "fixtures/mlperf/v3.0/Azure"
#define SAMPLE SAMPLE_DIR "/benchmarks/maskrcnn/implementations/ND_H100_v5/results/230503232823702563316_1.log"

static int run_index(const char *stem) { return tta_trailing_index(stem, strlen(stem)); }

TEST(run_index_of_result_names) {
    CHECK(run_index("result_0") == 0);
    CHECK(run_index("result_12") == 12);
    CHECK(run_index("result_3_4n16r_32k_1593118427") == 3);       /* Intel v0.7 */
    CHECK(run_index("result_220520100725096152634_9") == 9);      /* HazyResearch v2.0 */
    CHECK(run_index("result_221014125755525478304_10") == 10);    /* Azure-HazyResearch v2.1 */
    CHECK(run_index("result_240928162719380693721_01") == 1);     /* Lambda v4.1 */
    CHECK(run_index("result_run3") == 3);                         /* Intel v0.7 minigo */
    CHECK(run_index("230730105751422914054_02") == 2);            /* a sample log's name */
    CHECK(run_index("result_1593118427") == -1);                  /* an id alone names no run */
    /* The power folder of such a run gets the same number. */
    tta_arena a = {0};
    tta_path_meta m;
    tta_path_meta_read("v4.1/Lambda/results/box/bert/power/result_240928162719380693721_01/node_0.txt", &a, &m);
    CHECK(m.power && m.run_index == 1);
    tta_arena_free(&a);
}

/* The skip kind of a path read as format f, and its subfolder (NULL when none). */
static tta_skip_kind skip_of(const char *path, tta_format f, char *subfolder, size_t cap) {
    tta_arena a = {0};
    tta_path_meta m;
    tta_path_meta_read(path, &a, &m);
    tta_skip_kind k = tta_path_skip(path, &m, f);
    if (subfolder) snprintf(subfolder, cap, "%s", m.subfolder ? m.subfolder : "");
    tta_arena_free(&a);
    return k;
}

TEST(skip_rules) {
    const tta_format L = TTA_FMT_MLLOG;
    /* Sample logs in code folders (real paths): benchmarks/ and GIGABYTE's benchmark/, with or
     * without a benchmark folder above implementations/, with or without the round folder. */
    CHECK(skip_of("v3.1/Azure/benchmarks/maskrcnn/implementations/ND_H100_v5/results/230516165854918721162_2.log", L,
                  NULL, 0) == TTA_SKIP_CODE_FOLDER);
    CHECK(skip_of("v3.1/Lenovo/benchmarks/bert/implementations/SR675v3-8xH100_PCIe_80GB_350W/scripts/results/"
                  "230927044520534388186_1.log", L, NULL, 0) == TTA_SKIP_CODE_FOLDER);
    CHECK(skip_of("v3.0/Supermicro/benchmarks/implementations/AS-4125GS-TNRT_8_H100-PCIe-80GB/rnnt/results/"
                  "230510051852889544066_1.log", L, NULL, 0) == TTA_SKIP_CODE_FOLDER);
    CHECK(skip_of("v2.1/GIGABYTE/benchmark/maskrcnn/implementations/pytorch/cocoapi/results/val2014_fake_eval_res.txt",
                  L, NULL, 0) == TTA_SKIP_CODE_FOLDER);
    CHECK(skip_of("/data/training_results_v3.1/Clemson/benchmarks/bert/results/x_01.log", L, NULL, 0) ==
          TTA_SKIP_CODE_FOLDER); /* the folder after the submitter */
    CHECK(skip_of("Azure/benchmarks/maskrcnn/implementations/ND_H100_v5/results/x_1.log", L, NULL, 0) ==
          TTA_SKIP_CODE_FOLDER); /* no round folder: implementations/ tells */
    CHECK(skip_of("v3.1/Azure/benchmarks/maskrcnn/implementations/ND_H100_v5/systems/box.json", TTA_FMT_SYSTEM_JSON,
                  NULL, 0) == TTA_SKIP_CODE_FOLDER);
    /* A folder named benchmarks above the tree, or a user's own logs there, is no code folder. */
    CHECK(skip_of("/home/me/benchmarks/training_results_v3.1/NVIDIA/results/dgxh100/bert/result_0.txt", L, NULL, 0) ==
          TTA_SKIP_NONE);
    CHECK(skip_of("/home/me/benchmarks/runs/train.log", L, NULL, 0) == TTA_SKIP_NONE);
    CHECK(skip_of("/home/me/benchmarks/NVIDIA/results/dgxh100/bert/result_0.txt", L, NULL, 0) == TTA_SKIP_NONE);

    /* Copies in subfolders of a benchmark folder; power logs are read. */
    char sub[64];
    CHECK(skip_of("v0.7/Intel/results/8-nodes-32s-cpx-tensorflow/minigo/raw_logs/train_run2.log", L, sub,
                  sizeof sub) == TTA_SKIP_SUBFOLDER);
    CHECK_STR(sub, "raw_logs");
    CHECK(skip_of("v0.7/Intel/results/1-node-8s-cpx-2-mxnet/resnet/logs/32_workers_0.log", L, sub, sizeof sub) ==
          TTA_SKIP_SUBFOLDER);
    CHECK_STR(sub, "logs");
    CHECK(skip_of("v4.1/Dell/results/8xXE9680x8H100-SXM-80GB-POWER/llama2_70b_lora/power/result_0/node_0.txt",
                  TTA_FMT_POWER, NULL, 0) == TTA_SKIP_NONE);

    /* Result files; other logs in results folders from v1.0 on, not before. */
    CHECK(skip_of("v3.1/NVIDIA/results/dgxh100/bert/result_0.txt", L, NULL, 0) == TTA_SKIP_NONE);
    CHECK(skip_of("v2.0/HazyResearch/results/azurea100_ngc22.04_pytorch/bert/result_220520100725096152634_9.txt", L,
                  NULL, 0) == TTA_SKIP_NONE);
    CHECK(skip_of("v3.1/NVIDIA/results/dgxh100/bert/compliance_checker.log", L, NULL, 0) == TTA_SKIP_NOT_RESULT);
    CHECK(skip_of("v3.1/NVIDIA/results/dgxh100/bert/result_0.log", L, NULL, 0) == TTA_SKIP_NOT_RESULT);
    CHECK(skip_of("v3.1/NVIDIA/results/dgxh100/result_0.txt", L, NULL, 0) == TTA_SKIP_NOT_RESULT);
    CHECK(skip_of("NVIDIA/results/dgxh100/bert/train.log", L, NULL, 0) == TTA_SKIP_NOT_RESULT); /* round unknown */
    CHECK(skip_of("v0.7/Alibaba/results/a100-8/resnet/200711025203744603517_3.log", L, NULL, 0) == TTA_SKIP_NONE);
    CHECK(skip_of("v0.7/Alibaba/results/v100-256/result_1.txt", L, NULL, 0) == TTA_SKIP_NONE);
    CHECK(skip_of("Intel/results/skx/minigo/train.log", TTA_FMT_MLPERF_V06, NULL, 0) == TTA_SKIP_NONE);
    CHECK(skip_of("runs/local/train.log", L, NULL, 0) == TTA_SKIP_NONE); /* no results tree */

    /* scaling.json: read in the benchmark folder only. */
    CHECK(skip_of("v3.1/NVIDIA/results/dgxh100/bert/scaling.json", TTA_FMT_SCALING, NULL, 0) == TTA_SKIP_NONE);
    CHECK(skip_of("v3.1/NVIDIA/results/dgxh100/scaling.json", TTA_FMT_SCALING, NULL, 0) == TTA_SKIP_NOT_RESULT);
    CHECK(skip_of("v3.1/NVIDIA/scaling.json", TTA_FMT_SCALING, NULL, 0) == TTA_SKIP_NOT_RESULT);
    CHECK(skip_of("v3.1/NVIDIA/results/dgxh100/bert/README.md", TTA_FMT_UNKNOWN, NULL, 0) == TTA_SKIP_NONE);
}

/* Parses text as the file at path. */
static tta_parsed_file parse_text(const char *path, const char *text) {
    tta_parsed_file f = {0};
    CHECK(tta_parse_buffer(path, text, strlen(text), &f) == 0);
    return f;
}

/* The error of text parsed as a benchmark folder's scaling.json, without its path. */
static void check_scaling_error(const char *text, const char *expected) {
    static const char path[] = "v3.1/NVIDIA/results/dgxh100/bert/scaling.json";
    tta_parsed_file f = parse_text(path, text);
    CHECK(f.format == TTA_FMT_SCALING && f.failed && f.error);
    const char *e = f.error && !strncmp(f.error, path, sizeof path - 1) ? f.error + sizeof path - 1 : "";
    CHECK_STR(e, expected);
    tta_parsed_free(&f);
}

TEST(scaling_json) {
    tta_parsed_file f = {0};
    CHECK(tta_parse_file(INTEL "/scaling.json", &f) == 0);
    CHECK(f.format == TTA_FMT_SCALING && !f.failed);
    CHECK_STR(tta_format_name(f.format), "scaling");
    const tta_entry_file_record *e = &f.entry_file;
    CHECK(e->scaling_factor == 1.0035714285714286);
    CHECK_STR(e->kind, "scaling");
    CHECK_STR(e->round, "v2.1");
    CHECK_STR(e->submitter, "Intel");
    CHECK_STR(e->system, "1-node-SPR-pytorch");
    CHECK_STR(e->benchmark, "dlrm");
    CHECK(e->content.n == 38 && !memcmp(e->content.p, "{\"scaling_factor\": 1.0035714285714286}", 38));
    tta_parsed_free(&f);

    /* Written without spaces, over lines, with a byte-order mark; an integer. */
    f = parse_text("v3.1/X/results/box/bert/scaling.json", "\xEF\xBB\xBF{\n  \"scaling_factor\":2\n}\n");
    CHECK(!f.failed && f.entry_file.scaling_factor == 2.0);
    tta_parsed_free(&f);

    check_scaling_error("", ":1: empty scaling.json: expected {\"scaling_factor\": <number>}");
    check_scaling_error("{\n  \"scaling_factor\": 1.04,\n}\n", ":3: not valid JSON");
    check_scaling_error("{\"scaling_factor\": 1.04}\n{}\n", ":2: text after the JSON value");
    check_scaling_error("[1.04]\n", ":1: not a JSON object: expected {\"scaling_factor\": <number>}");
    check_scaling_error("{\"scaling\": 1.04}\n", ":1: no scaling_factor member");
    check_scaling_error("{\n\"scaling_factor\": \"1.04\"}\n", ":2: scaling_factor must be a number, not a string");
    check_scaling_error("{\"scaling_factor\": -1}\n", ":1: scaling_factor must be a positive number, not -1");
    check_scaling_error("{\"scaling_factor\": 0}\n", ":1: scaling_factor must be a positive number, not 0");
}

static char db_path[256];

static sqlite3 *fresh_db(void) {
    snprintf(db_path, sizeof db_path, "/tmp/tta_test_layout_%d.db", (int)getpid());
    sqlite3 *db = test_db_fresh(db_path);
    CHECK(db != NULL);
    return db;
}

/* The first column of the first row as text, in out. */
static void query_text(sqlite3 *db, const char *sql, char *out, size_t cap) {
    sqlite3_stmt *st;
    out[0] = '\0';
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        snprintf(out, cap, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
}

/* The error of the last ingest() (its text is empty after TTA_OK). */
static tta_error ingest_err;

static int ingest(sqlite3 *db, const char *const *paths, int n, tta_ingest_stats *st) {
    tta_ingest_options opts = {.jobs = 2, .quiet = 1};
    int rc = tta_ingest_paths(db, paths, n, &opts, st, NULL, &ingest_err);
    CHECK(ingest_err.code == rc);
    return rc;
}

TEST(ingest_fixtures) {
    sqlite3 *db = fresh_db();
    tta_ingest_stats st;
    const char *const paths[] = {"fixtures/mlperf/v2.1", "fixtures/mlperf/v4.1", SAMPLE_DIR};
    CHECK(ingest(db, paths, 3, &st) == TTA_OK);
    /* 3 runs and scaling.json of the layout fixtures, and beside them the 7 runs of the rules'
     * fixtures of v2.1 and v4.1 (tests/ingest/test_rules_fixtures.c) with their 7 descriptions. */
    CHECK(st.runs == 10 && st.failed == 0 && st.files == 18);
    CHECK(st.skipped_code_folder == 1 && st.skipped_subfolder == 0 && st.skipped_not_result == 0 && st.removed == 0);
    CHECK(test_query_real(db, "SELECT count(*) FROM sources WHERE path LIKE '%/benchmarks/%'") == 0);
    CHECK(test_query_real(db, "SELECT run_index FROM runs r JOIN sources s ON s.id = r.source_id"
                    " WHERE s.path LIKE '%result_240928173110932524937_1.txt'") == 1);
    /* The scaling row joins the entry of its folder's runs. */
    CHECK(test_query_real(db, "SELECT count(*) FROM entry_files") == 1);
    CHECK(test_query_real(db, "SELECT f.scaling_factor FROM entry_files f"
                    " JOIN entries e USING (round, submitter, system, benchmark)"
                    " WHERE f.kind = 'scaling' AND (SELECT count(*) FROM runs r WHERE r.entry_id = e.id) = 2") ==
          1.0035714285714286);
    char text[128];
    query_text(db, "SELECT format FROM sources WHERE path LIKE '%scaling.json'", text, sizeof text);
    CHECK_STR(text, "scaling");

    /* Named on the command line, the sample log is read: an entry of the placeholder submitter. */
    const char *const named[] = {SAMPLE};
    CHECK(ingest(db, named, 1, &st) == TTA_OK);
    CHECK(st.runs == 1 && st.skipped_code_folder == 0);
    query_text(db, "SELECT e.submitter FROM runs r JOIN entries e ON e.id = r.entry_id"
                   " JOIN sources s ON s.id = r.source_id WHERE s.path LIKE '%/benchmarks/%'", text, sizeof text);
    CHECK_STR(text, "SUBMISSION_ORG_PLACEHOLDER");
    /* Found again in its folder, it is removed, and its entry with it. */
    const char *const folder[] = {SAMPLE_DIR};
    CHECK(ingest(db, folder, 1, &st) == TTA_OK);
    CHECK(st.skipped_code_folder == 1 && st.removed == 1);
    CHECK(test_query_real(db, "SELECT count(*) FROM sources WHERE path LIKE '%/benchmarks/%'") == 0);
    CHECK(test_query_real(db, "SELECT count(*) FROM entries WHERE submitter = 'SUBMISSION_ORG_PLACEHOLDER'") == 0);
    CHECK(test_query_real(db, "SELECT count(*) FROM runs") == 10);
    sqlite3_close(db);
}

static char root[128];

/* Copies the file at src to root/rel (folders made as needed). */
static void put_copy(const char *src, const char *rel) {
    char p[512];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    for (char *s = p + strlen(root) + 1; (s = strchr(s, '/')) != NULL; s++) {
        *s = '\0';
        mkdir(p, 0755);
        *s = '/';
    }
    buf cmd = {0};
    buf_printf(&cmd, "cp '%s' '%s'", src, p);
    CHECK(system(buf_str(&cmd)) == 0);
    buf_free(&cmd);
}

static void put_text(const char *rel, const char *text) {
    char p[512];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

TEST(ingest_tree) {
    snprintf(root, sizeof root, "/tmp/tta_test_layout_%d", (int)getpid());
    mkdir(root, 0755);
    const char *log = INTEL "/result_0.txt";
    put_copy(log, "v3.1/Acme/results/box/dlrm/result_0.txt");
    put_copy(log, "v3.1/Acme/results/box/dlrm/raw_logs/result_0.txt");     /* a copy */
    put_copy(log, "v3.1/Acme/results/box/dlrm/package_checker_output.log"); /* not read by the tools */
    put_copy(log, "v3.1/Acme/results/box/stray.log");                       /* no benchmark folder */
    put_copy(INTEL "/scaling.json", "v3.1/Acme/results/box/dlrm/scaling.json");
    put_copy(INTEL "/scaling.json", "v3.1/Acme/results/box/scaling.json");   /* not a benchmark folder's */
    put_copy(log, "v0.7/Acme/results/box/dlrm/200711025203744603517_3.log"); /* v0.7: read as before */
    put_copy("fixtures/quirks/README.md", "v3.1/Acme/results/box/dlrm/README.md");
    sqlite3 *db = fresh_db();
    tta_ingest_stats st;
    const char *const paths[] = {root};
    CHECK(ingest(db, paths, 1, &st) == TTA_OK);
    CHECK(st.runs == 2 && st.failed == 0 && st.skipped == 1);
    CHECK(st.skipped_subfolder == 1 && st.skipped_not_result == 3 && st.skipped_code_folder == 0);
    CHECK_STR(st.subfolders, "raw_logs/");
    CHECK(test_query_real(db, "SELECT count(*) FROM runs r JOIN entries e ON e.id = r.entry_id WHERE e.round = 'v0.7'"
                    " AND r.run_index = 3") == 1);
    CHECK(test_query_real(db, "SELECT count(*) FROM entry_files WHERE round = 'v3.1' AND submitter = 'Acme' AND system = 'box'"
                    " AND benchmark = 'dlrm' AND scaling_factor = 1.0035714285714286") == 1);

    /* A changed scaling.json replaces its row; a malformed one leaves a failed source and no row. */
    put_text("v3.1/Acme/results/box/dlrm/scaling.json", "{\"scaling_factor\": 1.25}\n");
    CHECK(ingest(db, paths, 1, &st) == TTA_OK);
    CHECK(st.ingested == 1 && st.unchanged == 2);
    CHECK(test_query_real(db, "SELECT count(*) FROM entry_files") == 1);
    CHECK(test_query_real(db, "SELECT scaling_factor FROM entry_files") == 1.25);
    put_text("v3.1/Acme/results/box/dlrm/scaling.json", "{\n  \"scaling_factor\": \"1.25\"\n}\n");
    CHECK(ingest(db, paths, 1, &st) == TTA_EINPUT);
    CHECK(st.failed == 1);
    CHECK(test_query_real(db, "SELECT count(*) FROM entry_files") == 0);
    char text[512], expected[512];
    query_text(db, "SELECT error FROM sources WHERE status = 'failed'", text, sizeof text);
    snprintf(expected, sizeof expected, "%s/v3.1/Acme/results/box/dlrm/scaling.json:2: scaling_factor must be a number,"
             " not a string", root);
    CHECK_STR(text, expected);
    CHECK_STR(ingest_err.text, expected); /* the same line as in sources */

    /* The copy named on the command line is read, as a run of its entry. */
    char copy[256];
    snprintf(copy, sizeof copy, "%s/v3.1/Acme/results/box/dlrm/raw_logs/result_0.txt", root);
    const char *const named[] = {copy};
    CHECK(ingest(db, named, 1, &st) == TTA_OK);
    CHECK(st.runs == 1);
    CHECK(test_query_real(db, "SELECT count(*) FROM runs r JOIN entries e ON e.id = r.entry_id WHERE e.round = 'v3.1'") == 2);
    sqlite3_close(db);

    buf cmd = {0};
    buf_printf(&cmd, "rm -rf '%s' '%s' '%s-wal' '%s-shm'", root, db_path, db_path, db_path);
    CHECK(system(buf_str(&cmd)) == 0);
    buf_free(&cmd);
}

/* What tta_ingest_paths returns (ingest.h): a path that is not there, or a malformed file, leaves
 * the rest stored and is the code of the first problem, its line in err; a database that refuses
 * stops the ingest with TTA_EDB. */
TEST(ingest_outcomes) {
    sqlite3 *db = fresh_db();
    tta_ingest_stats st;
    const char *const missing[] = {"fixtures/no-such-folder", INTEL, "fixtures/no-such-file.txt"};
    CHECK(ingest(db, missing, 3, &st) == TTA_ENOTFOUND);
    CHECK_STR(ingest_err.text, "fixtures/no-such-folder: No such file or directory"); /* the first */
    CHECK(st.runs == 2 && st.failed == 0 && st.ingested == 3);                        /* INTEL stored */
    CHECK(test_query_real(db, "SELECT count(*) FROM runs") == 2);

    /* A malformed file among good ones: TTA_EINPUT with its line; the good ones are stored. */
    snprintf(root, sizeof root, "/tmp/tta_test_layout_outcomes_%d", (int)getpid());
    mkdir(root, 0755);
    put_copy(LAMBDA "/result_240928173110932524937_1.txt", "v4.1/Acme/results/box/llama2_70b_lora/result_1.txt");
    put_text("v4.1/Acme/results/box/llama2_70b_lora/scaling.json", "{\"scaling_factor\": -1}\n");
    const char *const tree[] = {root};
    CHECK(ingest(db, tree, 1, &st) == TTA_EINPUT);
    char expected[512];
    snprintf(expected, sizeof expected, "%s/v4.1/Acme/results/box/llama2_70b_lora/scaling.json:1: scaling_factor must"
             " be a positive number, not -1", root);
    CHECK_STR(ingest_err.text, expected);
    CHECK(st.files == 2 && st.runs == 1 && st.failed == 1 && st.ingested == 1);
    /* A missing path comes first (the walk precedes the files). */
    const char *const both[] = {root, "fixtures/no-such-folder"};
    put_text("v4.1/Acme/results/box/llama2_70b_lora/scaling.json", "{\"scaling_factor\": -2}\n");
    CHECK(ingest(db, both, 2, &st) == TTA_ENOTFOUND && st.failed == 1);
    CHECK_STR(ingest_err.text, "fixtures/no-such-folder: No such file or directory");
    /* Without a tta_error the code is still returned. */
    tta_ingest_options opts = {.jobs = 1, .quiet = 1};
    CHECK(tta_ingest_paths(db, missing, 1, &opts, &st, NULL, NULL) == TTA_ENOTFOUND);

    /* The database refuses every write: TTA_EDB with SQLite's message, nothing counted as stored. */
    CHECK(sqlite3_exec(db, "PRAGMA query_only = 1", NULL, NULL, NULL) == SQLITE_OK);
    put_text("v4.1/Acme/results/box/llama2_70b_lora/scaling.json", "{\"scaling_factor\": 1.5}\n");
    CHECK(ingest(db, tree, 1, &st) == TTA_EDB);
    CHECK(strstr(ingest_err.text, "readonly") != NULL || strstr(ingest_err.text, "read-only") != NULL ||
          strstr(ingest_err.text, "query_only") != NULL);
    CHECK(st.ingested == 0 && st.runs == 0);
    sqlite3_close(db);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    CHECK(system(cmd) == 0);
}

int main(void) {
    RUN(run_index_of_result_names);
    RUN(skip_rules);
    RUN(scaling_json);
    RUN(ingest_fixtures);
    RUN(ingest_tree);
    RUN(ingest_outcomes);
    return test_summary();
}
