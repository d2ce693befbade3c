/* test_errors.c: the replay's public functions report failures in common/error.h's convention
 * (replay.h): a tta_status code and one line naming the file and the reason. A missing IDX file
 * is TTA_ENOTFOUND, one cut short TTA_EINPUT, one that cannot be read TTA_EIO; the code reaches
 * tta_replay_runs' caller with "seed <s>: " in front; bad arguments of the profiler and of the
 * peaks' measurement are TTA_EINPUT before any work. A NULL tta_error still gets the code. */
#include "replay/replay.h"
#include "tta_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/tta_test_replay_errors_XXXXXX";

/* dir/name, in a static buffer (callers copy it to keep it). */
static const char *in_dir(const char *name) {
    static char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

static void write_bytes(const char *path, const unsigned char *b, size_t n) {
    FILE *f = fopen(path, "wb");
    fwrite(b, 1, n, f);
    fclose(f);
}

/* A SPEC of an MNIST-like dataset in data_dir (train on 32 images, one epoch), loaded. */
static int load_spec(const char *data_dir, tta_replay_spec *s) {
    char path[512];
    snprintf(path, sizeof path, "%s/spec.json", dir);
    FILE *f = fopen(path, "w");
    fprintf(f, "{\"benchmark\": \"mnist\", \"dataset\": {\"kind\": \"mnist\", \"path\": \"%s\"}, \"model\": \"mlp\",\n"
               " \"model_params\": \"hidden1=16,hidden2=16\", \"optimizer\": {\"kind\": \"sgd\", \"momentum\": 0.9},\n"
               " \"schedule\": {\"type\": \"piecewiseLinear\", \"epochs\": [0, 1], \"values\": [0.05, 0.05]},\n"
               " \"batch_size\": 32, \"target\": {\"metric\": \"top1\", \"value\": 0.9}, \"max_epochs\": 1,\n"
               " \"seeds\": [3], \"train_subset\": 32}\n",
            data_dir);
    fclose(f);
    tta_error e;
    int rc = tta_replay_spec_load(path, s, &e);
    if (rc != TTA_OK) fprintf(stderr, "%s\n", e.text);
    return rc;
}

TEST(missing_idx_file_is_not_found) {
    char empty[512];
    snprintf(empty, sizeof empty, "%s", in_dir("empty"));
    CHECK(mkdir(empty, 0700) == 0);
    tta_replay_spec s;
    CHECK(load_spec(empty, &s) == TTA_OK);
    tta_dataset train, unseen, val;
    tta_error e;
    CHECK(tta_replay_load_data(&s, &train, &unseen, &val, &e) == TTA_ENOTFOUND);
    CHECK(e.code == TTA_ENOTFOUND);
    char want[1024];
    snprintf(want, sizeof want, "%s/train-images-idx3-ubyte.gz: no such file", empty);
    CHECK(strcmp(e.text, want) == 0);
    CHECK(tta_replay_load_data(&s, &train, &unseen, &val, NULL) == TTA_ENOTFOUND);
    tta_replay_spec_free(&s);
}

TEST(truncated_idx_file_is_bad_input) {
    char data[512];
    snprintf(data, sizeof data, "%s", in_dir("cut"));
    CHECK(mkdir(data, 0700) == 0);
    /* the header says 3 images of 2x2; the pixels of two follow */
    const unsigned char img[16 + 8] = {0, 0, 8, 3, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 2, 1, 2, 3, 4, 5, 6, 7, 8};
    const unsigned char lab[8 + 3] = {0, 0, 8, 1, 0, 0, 0, 3, 2, 0, 1};
    char ip[600], lp[600];
    snprintf(ip, sizeof ip, "%s/train-images-idx3-ubyte", data);
    snprintf(lp, sizeof lp, "%s/train-labels-idx1-ubyte", data);
    write_bytes(ip, img, sizeof img);
    write_bytes(lp, lab, sizeof lab);
    tta_replay_spec s;
    CHECK(load_spec(data, &s) == TTA_OK);
    tta_dataset train, unseen, val;
    tta_error e;
    CHECK(tta_replay_load_data(&s, &train, &unseen, &val, &e) == TTA_EINPUT);
    char want[1024];
    snprintf(want, sizeof want, "%s: size does not match 3 images of 2x2", ip);
    CHECK(e.code == TTA_EINPUT && strcmp(e.text, want) == 0);
    /* a file that is there but cannot be read (root reads it anyway) */
    if (geteuid() != 0) {
        CHECK(chmod(ip, 0) == 0);
        CHECK(tta_replay_load_data(&s, &train, &unseen, &val, &e) == TTA_EIO);
        CHECK(strstr(e.text, ip) == e.text && strstr(e.text, ": cannot open: ") != NULL);
        chmod(ip, 0600);
    } else {
        printf("truncated_idx_file_is_bad_input: the unreadable case skipped (running as root)\n");
    }
    tta_replay_spec_free(&s);
}

TEST(unknown_dataset_kind_is_bad_input) {
    tta_replay_spec s;
    CHECK(load_spec(dir, &s) == TTA_OK);
    free(s.dataset_kind);
    s.dataset_kind = strdup("svhn"); /* a spec made by hand: the loader only knows five */
    tta_dataset train, unseen, val;
    tta_error e;
    CHECK(tta_replay_load_data(&s, &train, &unseen, &val, &e) == TTA_EINPUT);
    CHECK(strcmp(e.text, "dataset kind \"svhn\": unknown") == 0);
    tta_profile_options po = {.threads = 1};
    tta_profile_result r[1];
    int batches[1] = {0}, done = -1;
    CHECK(tta_profile_sweep(&s, &po, batches, 1, r, &done, &e) == TTA_EINPUT && done == 0);
    CHECK(strcmp(e.text, "dataset kind \"svhn\": unknown") == 0);
    tta_replay_spec_free(&s);
}

TEST(runs_without_data_say_which_seed_and_file) {
    char empty[512];
    snprintf(empty, sizeof empty, "%s", in_dir("empty"));
    tta_replay_spec s;
    CHECK(load_spec(empty, &s) == TTA_OK);
    char logs[512];
    snprintf(logs, sizeof logs, "%s", in_dir("logs"));
    tta_replay_runs_options opt = {.command = "test", .threads = 1, .log_dir = logs, .no_checkpoint = 1,
                                   .one_process = 1};
    tta_replay_batch b;
    tta_error e;
    CHECK(tta_replay_runs(&s, &opt, &b, &e) == TTA_ENOTFOUND);
    char want[1024];
    snprintf(want, sizeof want, "seed 3: %s/train-images-idx3-ubyte.gz: no such file", empty);
    CHECK(e.code == TTA_ENOTFOUND && strcmp(e.text, want) == 0);
    CHECK(b.n_runs == 0);
    /* the run's log ends before its first step, aborted */
    FILE *f = fopen(b.runs[0].log, "r");
    CHECK(f != NULL);
    char line[4096];
    int aborted = 0;
    while (f && fgets(line, sizeof line, f)) aborted |= strstr(line, "\"run_stop\"") && strstr(line, "\"aborted\"");
    if (f) fclose(f);
    CHECK(aborted);
    tta_replay_batch_free(&b);
    tta_replay_spec_free(&s);
}

TEST(profile_of_no_batch_is_bad_input) {
    tta_replay_spec s;
    CHECK(load_spec(dir, &s) == TTA_OK);
    s.batch_size = 0;
    tta_profile_options po = {.threads = 1};
    tta_profile_result r[2];
    int batches[2] = {0, 0}, done = -1;
    tta_error e;
    CHECK(tta_profile_sweep(&s, &po, batches, 2, r, &done, &e) == TTA_EINPUT && done == 0);
    CHECK(strcmp(e.text, "batch size 0: not a positive number") == 0);
    tta_replay_spec_free(&s);
}

TEST(peaks_with_threads_out_of_range_measure_nothing) {
    tta_peaks p;
    tta_error e;
    CHECK(tta_measure_peaks(0, &p, &e) == TTA_EINPUT);
    CHECK(e.code == TTA_EINPUT && strcmp(e.text, "threads must be 1..64, not 0") == 0);
    CHECK(tta_measure_peaks(65, &p, &e) == TTA_EINPUT && strstr(e.text, "not 65") != NULL);
    CHECK(tta_measure_peaks(-1, &p, NULL) == TTA_EINPUT);
    CHECK(p.sgemm_gflops == 0 && p.triad_gbs == 0);
}

int main(void) {
    if (!mkdtemp(dir)) test_skip("cannot make a temporary folder");
    RUN(missing_idx_file_is_not_found);
    RUN(truncated_idx_file_is_bad_input);
    RUN(unknown_dataset_kind_is_bad_input);
    RUN(runs_without_data_say_which_seed_and_file);
    RUN(profile_of_no_batch_is_bad_input);
    RUN(peaks_with_threads_out_of_range_measure_nothing);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return test_summary();
}
