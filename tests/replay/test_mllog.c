/* test_mllog.c: the :::MLLOG writer: every line is valid JSON in MLCommons' shape, the fake clock
 * gives exact times, and `tta ingest`'s parser reads the log back as a run of round TTA_REPLAY_ROUND with
 * the right start, stop, status, evaluations and target. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/replay_log.h"
#include "ingest/parse.h"
#include "replay/mllog.h"
#include "tta_test.h"

/* A clock that advances one second per record. */
static int64_t fake_clock(void *ctx) {
    int64_t *t = ctx;
    *t += 1000;
    return *t;
}

static char dir[256], path[512];

static void write_log(void) {
    snprintf(dir, sizeof dir, "/tmp/tta_test_mllog_%d/results/box-cpu-2t/fashion-mnist", (int)getpid());
    char cmd[600];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    CHECK(system(cmd) == 0);
    snprintf(path, sizeof path, "%s/result_0.txt", dir);
    int64_t t = 1700000000000LL;
    tta_mllog *log = tta_mllog_open(path, fake_clock, &t);
    CHECK(log != NULL);
    if (!log) return;
    CHECK(tta_mllog_string(log, TTA_KEY_ROUND, TTA_REPLAY_ROUND) == 0);
    CHECK(tta_mllog_string(log, "submission_benchmark", "fashion-mnist") == 0);
    CHECK(tta_mllog_string(log, "submission_org", TTA_REPLAY_SUBMITTER) == 0);
    CHECK(tta_mllog_string(log, "submission_division", "open") == 0);
    CHECK(tta_mllog_number(log, "seed", 7) == 0);
    CHECK(tta_mllog_number(log, "global_batch_size", 128) == 0);
    CHECK(tta_mllog_number(log, "opt_base_learning_rate", 0.1) == 0);
    CHECK(tta_mllog_number(log, "eval_target", 0.88) == 0);
    CHECK(tta_mllog_event_json(log, TTA_MLLOG_START, "run_start", "null", NULL) == 0); /* t = 9 s */
    double acc[] = {0.83, 0.87, 0.885};
    for (int e = 1; e <= 3; e++) {
        CHECK(tta_mllog_epoch_event(log, TTA_MLLOG_START, "epoch_start", e) == 0);
        CHECK(tta_mllog_epoch_event(log, TTA_MLLOG_END, "epoch_stop", e) == 0);
        CHECK(tta_mllog_epoch_value(log, "eval_accuracy", acc[e - 1], e) == 0);
        CHECK(tta_mllog_epoch_value(log, "tta_unseen_accuracy", acc[e - 1] - 0.01, e) == 0);
    }
    CHECK(tta_mllog_run_stop(log, 1) == 0); /* t = 22 s */
    CHECK(tta_mllog_close(log) == 0);
}

TEST(lines_are_mllog_json) {
    write_log();
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f) return;
    char line[1024];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        CHECK(strncmp(line, ":::MLLOG {", 10) == 0);
        cJSON *j = cJSON_Parse(line + 9);
        CHECK(j != NULL);
        CHECK(cJSON_IsNumber(cJSON_GetObjectItem(j, "time_ms")));
        CHECK(cJSON_IsString(cJSON_GetObjectItem(j, "key")));
        CHECK(cJSON_IsObject(cJSON_GetObjectItem(j, "metadata")));
        if (n == 0) CHECK(cJSON_GetObjectItem(j, "time_ms")->valuedouble == 1700000001000.0);
        cJSON_Delete(j);
        n++;
    }
    fclose(f);
    CHECK(n == 22);
}

TEST(ingest_reads_it_back) {
    tta_parsed_file f;
    memset(&f, 0, sizeof f);
    CHECK(tta_parse_file(path, &f) == 0);
    CHECK(!f.failed);
    CHECK(f.format == TTA_FMT_MLLOG);
    CHECK_STR(f.run.round, TTA_REPLAY_ROUND);
    CHECK_STR(f.run.benchmark, "fashion-mnist");
    CHECK_STR(f.run.system, "box-cpu-2t");
    CHECK(f.run.status == TTA_RUN_SUCCESS);
    CHECK_NEAR(f.run.run_stop_s - f.run.run_start_s, 13.0, 1e-9);
    CHECK(f.run.n_evals == 3);
    if (f.run.n_evals == 3) {
        CHECK_NEAR(f.run.evals[2].epoch, 3, 0);
        CHECK_NEAR(f.run.evals[2].quality, 0.885, 1e-12);
    }
    CHECK(f.run.has_seed && f.run.seed == 7);
    CHECK_NEAR(f.run.global_batch_size, 128, 0);
    tta_parsed_free(&f);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf /tmp/tta_test_mllog_%d", (int)getpid());
    CHECK(system(cmd) == 0);
}

TEST(unwritable_path) {
    CHECK(tta_mllog_open("/nonexistent/dir/log.txt", NULL, NULL) == NULL);
}

int main(void) {
    RUN(lines_are_mllog_json);
    RUN(ingest_reads_it_back);
    RUN(unwritable_path);
    return test_summary();
}
