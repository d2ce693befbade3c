/* test_lookup.c: db's lookups of one value (lookup.c) on rows written through the writer with
 * tta_db_file built by hand: the entry of a description file, the replays' entry, an entry's
 * benchmark and model, a hyperparameter of its first run; and each one's TTA_ENOTFOUND. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/replay_log.h"
#include "db/reader.h"
#include "test_sql.h"
#include "tta_test.h"

static char db_path[256];

static void remove_db(void) { test_db_unlink(db_path); }

static tta_str span(const char *s) { return (tta_str){s, (uint32_t)strlen(s)}; }

/* A run of round/system on benchmark with run_index and the given hyperparameters. */
static int write_run(tta_store *s, const char *path, const char *round, const char *submitter, const char *system,
                     const char *benchmark, int run_index, tta_kv *hp, size_t n_hp) {
    tta_run_record r = {.round = (char *)round, .division = "closed", .submitter = (char *)submitter,
                        .system = (char *)system, .benchmark = (char *)benchmark, .run_index = run_index,
                        .run_start_s = NAN, .run_stop_s = NAN, .target = NAN, .target2 = NAN,
                        .global_batch_size = NAN, .train_samples = NAN, .eval_samples = NAN,
                        .hparams = hp, .n_hparams = n_hp, .cp_epoch_num = NAN, .cp_samples_count = NAN,
                        .cp_train_samples = NAN, .cp_first_passing_step = NAN, .cp_first_passing_samples = NAN};
    tta_db_file f = {.path = path, .format = "dawnbench-tsv", .size = 10, .hash = 7, .kind = TTA_DB_FILE_RUN,
                     .run = &r, .records = "[]", .records_len = 2};
    tta_error err;
    int rc = tta_store_write(s, &f, &err);
    if (rc != TTA_OK) fprintf(stderr, "%s\n", err.text);
    return rc;
}

TEST(lookups) {
    remove_db();
    sqlite3 *db = NULL;
    CHECK(tta_db_open(db_path, &db, NULL) == TTA_OK);
    tta_store *s = NULL;
    CHECK(tta_store_open(db, &s, NULL) == TTA_OK);
    tta_system_record y = {.round = "dawnbench", .submitter = "Acme", .name = "mlp-box", .division = "closed",
                           .nodes = -1, .accelerators_per_node = -1, .accelerators = -1,
                           .raw_json = "{\"model\": \"MLP 784-512-512-10, ReLU\"}"};
    tta_db_file desc = {.path = "d/mlp-box.json", .format = "dawnbench-json", .size = 40, .hash = 9,
                        .kind = TTA_DB_FILE_SYSTEM, .system = &y};
    tta_error err;
    CHECK(tta_store_write(s, &desc, &err) == TTA_OK);
    /* run 2 logs a batch size of 128, run 1 of 256 and no momentum: the first run's value wins */
    tta_kv second[] = {{span("batchSize"), span("128")}, {span("momentum"), span("0.9")}};
    tta_kv first[] = {{span("batchSize"), span("256")}, {span("learningRate"), span("[[0, 0.1]]")}};
    CHECK(write_run(s, "d/mlp-box_2.tsv", "dawnbench", "Acme", "mlp-box", "fashion-mnist", 2, second, 2) == TTA_OK);
    CHECK(write_run(s, "d/mlp-box_1.tsv", "dawnbench", "Acme", "mlp-box", "fashion-mnist", 1, first, 2) == TTA_OK);
    CHECK(write_run(s, "l/result_0.txt", TTA_REPLAY_ROUND, TTA_REPLAY_SUBMITTER, "host-cpu-2t", "fashion-mnist", 0, NULL, 0) == TTA_OK);
    CHECK(tta_store_finish(s, &err) == TTA_OK);
    tta_store_close(s);

    int64_t entry = 0, replays = 0;
    CHECK(tta_db_entry_of_description(db, "d/mlp-box.json", &entry, &err) == TTA_OK && entry > 0);
    CHECK(tta_db_entry_of_description(db, "d/other.json", &replays, &err) == TTA_ENOTFOUND);
    CHECK(replays == -1 && strstr(err.text, "d/other.json"));
    CHECK(tta_db_replay_entry(db, "host-cpu-2t", "fashion-mnist", &replays, &err) == TTA_OK);
    CHECK(replays > 0 && replays != entry);
    int64_t none = 0;
    CHECK(tta_db_replay_entry(db, "host-cpu-2t", "cifar10", &none, NULL) == TTA_ENOTFOUND && none == -1);

    tta_db_entry_described d;
    CHECK(tta_db_entry_description(db, entry, &d, &err) == TTA_OK);
    CHECK_STR(d.benchmark, "fashion-mnist");
    CHECK_STR(d.model, "MLP 784-512-512-10, ReLU");
    tta_db_entry_described_free(&d);
    CHECK(d.benchmark == NULL && d.model == NULL);
    CHECK(tta_db_entry_description(db, 9999, &d, &err) == TTA_ENOTFOUND);
    CHECK(d.benchmark == NULL && strstr(err.text, "entry 9999"));
    tta_db_entry_described_free(&d);

    char *v = NULL;
    CHECK(tta_db_entry_hparam(db, entry, "batchSize", &v, &err) == TTA_OK);
    CHECK_STR(v, "256");
    free(v);
    CHECK(tta_db_entry_hparam(db, entry, "momentum", &v, &err) == TTA_OK); /* only run 2 logged it */
    CHECK_STR(v, "0.9");
    free(v);
    CHECK(tta_db_entry_hparam(db, entry, "weightDecay", &v, &err) == TTA_ENOTFOUND && v == NULL);
    CHECK(tta_db_entry_hparam(db, replays, "batchSize", &v, NULL) == TTA_ENOTFOUND && v == NULL);
    tta_db_close(db);
    tta_db_close(NULL);
}

int main(void) {
    snprintf(db_path, sizeof db_path, "/tmp/tta_test_lookup_%d.db", (int)getpid());
    RUN(lookups);
    remove_db();
    return test_summary();
}
