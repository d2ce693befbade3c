/* test_rcp.c: the RCP check against MLCommons' own rcp_checker (mlperf_logging 4.1.59, run by
 * reference_values.py) on fixtures/rcp/training_4.0.0/rcps_resnet.json (MLCommons' file) and on
 * synthetic files written to a temporary folder. The same on every file of ../shared/rcp:
 * test_rcp_shared.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats/stats.h"
#include "tta_test.h"

static const char *resnet_dir = "fixtures/rcp/training_4.0.0";

/* RCP_Checker('training', '4.0.0', 'resnet').rcp_data: BS, RCP Mean, RCP Stdev, Min Epochs. */
static const double resnet_points[10][4] = {
    {1632, 35.0, 1.0846522890932808, 33.80234241485596},
    {3264, 35.15384615384615, 0.7483314773547882, 34.3096450658945},
    {4096, 39.875, 1.0, 38.63396394252777},
    {8192, 41.875, 1.0, 40.63401639461517},
    {13056, 45.5, 0.66332495807108, 44.676806926727295},
    {32768, 56.0, 0.4472135954999579, 55.44498062133789},
    {49152, 68.0, 0.6324555320336759, 67.21508979797363},
    {58880, 80.0, 0.8306623862918076, 78.96915435791016},
    {65536, 84.5, 0.9219544457292888, 83.35580706596375},
    {67840, 85.84615384615384, 0.6388765649999398, 85.18264433053824},
};

TEST(reference_points) {
    tta_rcp_set set;
    tta_error err;
    CHECK(tta_rcp_load(resnet_dir, "resnet", &set, &err) == TTA_OK && err.code == TTA_OK && err.text[0] == 0);
    CHECK(set.n == 10 && set.submission_runs == 5);
    CHECK_STR(set.benchmark, "resnet");
    for (size_t i = 0; i < 10 && i < set.n; i++) {
        CHECK_NEAR(set.points[i].bs, resnet_points[i][0], 0);
        CHECK_REL(set.points[i].mean, resnet_points[i][1], 1e-14);
        CHECK_REL(set.points[i].stdev, resnet_points[i][2], 1e-13);
        CHECK_REL(set.points[i].min_epochs, resnet_points[i][3], 1e-12);
        CHECK_REL(set.points[i].max_speedup, resnet_points[i][1] / resnet_points[i][3], 1e-12);
    }
    /* pruned_rcp_data */
    double pruned[] = {1632, 3264, 32768, 49152, 67840};
    CHECK(set.n_pruned == 5);
    for (size_t i = 0; i < 5 && i < set.n_pruned; i++) CHECK_NEAR(set.pruned[i].bs, pruned[i], 0);
    tta_rcp_free(&set);
    CHECK(set.points == NULL && set.n == 0);
}

/* runs[i] = {epochs[i], bs} for n runs. */
static void runs_at(tta_rcp_run *runs, double bs, const double *epochs, size_t n) {
    for (size_t i = 0; i < n; i++) runs[i] = (tta_rcp_run){.progress = epochs[i], .bs = bs};
}

static tta_rcp_result check5(const tta_rcp_set *set, double bs, const double epochs[5]) {
    tta_rcp_run runs[5];
    runs_at(runs, bs, epochs, 5);
    return tta_rcp_check(set, runs, 5, "resnet");
}

typedef struct {
    double bs;
    double epochs[5];
    int pass;
    const char *msg;
    double rcp_mean, min_mean, subm_mean, normalization;
} resnet_case;

/* check_directory itself on result files with these runs (reference_values.py): verdict, message,
 * normalization; the record's mean and limit; the submission's olympic mean. */
static const resnet_case resnet_cases[] = {
    {3264, {34, 35, 35, 36, 37}, 1, "RCP found", 35.15384615384615, 34.3096450658945, 35.333333333333336, 1.0},
    {3264, {34.2, 34.3, 34.4, 34.5, 34.9}, 1, "RCP found", 35.15384615384615, 34.3096450658945, 34.4,
     1.0219141323792487},
    /* a fail keeps its factor: the checker returns it with the verdict */
    {3264, {30, 31, 31, 32, 33}, 0, "RCP found", 35.15384615384615, 34.3096450658945, 31.333333333333332,
     1.1219312602291327},
    {3264, {36, 37, 37, 38, NAN}, 1, "RCP found", 35.15384615384615, 34.3096450658945, 37.333333333333336, 1.0},
    /* 8192 was pruned: 3264 and 32768 are its neighbours */
    {4000, {33, 34, 34, 35, 36}, 0, "RCP Interpolation", 35.673869514433505, 34.79806039529473, 34.333333333333336,
     1.0390447431388399},
    {4000, {35, 35, 35.5, 36, 36}, 1, "RCP Interpolation", 35.673869514433505, 34.79806039529473, 35.5,
     1.0048977328009439},
    {8192, {39, 40, 41, 41, 42}, 1, "RCP Interpolation", 38.635741698648424, 37.81050375039801, 40.666666666666664,
     1.0},
    /* below every batch size: the smallest point decides, and a fail keeps its factor */
    {1024, {33, 34, 35, 36, 36}, 1, "RCP not found but slower convergence on smaller batch size", 35.0,
     33.80234241485596, 35.0, 1.0},
    {1024, {30, 31, 31, 32, 33}, 0, "Missing RCP, please submit RCP with BS = 1024", 35.0, 33.80234241485596,
     31.333333333333332, 1.1170212765957448},
    /* above every batch size: nothing evaluated */
    {100000, {90, 90, 90, 90, 90}, 0, "Missing RCP, please submit RCP with BS = 100000", NAN, NAN, 90.0, 1.0},
    {3264, {36, NAN, 37, 38, NAN}, 0, "Insufficient convergence", NAN, NAN, NAN, 1.0},
};

/* CHECK_REL, with NAN expected meaning NAN. */
#define CHECK_REL_OR_NAN(a, b, rtol) \
    do {                             \
        if (isnan(b)) CHECK(isnan(a)); \
        else CHECK_REL(a, b, rtol);  \
    } while (0)

TEST(resnet_submissions) {
    tta_rcp_set set;
    CHECK(tta_rcp_load(resnet_dir, "resnet", &set, NULL) == 0);
    for (size_t i = 0; i < sizeof resnet_cases / sizeof resnet_cases[0]; i++) {
        const resnet_case *c = &resnet_cases[i];
        tta_rcp_result r = check5(&set, c->bs, c->epochs);
        if (r.pass != c->pass || strcmp(r.msg, c->msg)) fprintf(stderr, "case %zu: %d %s\n", i, r.pass, r.msg);
        CHECK(r.pass == c->pass);
        CHECK_STR(r.msg, c->msg);
        CHECK(r.bs == c->bs);
        CHECK_REL_OR_NAN(r.rcp_mean, c->rcp_mean, 1e-13);
        CHECK_REL_OR_NAN(r.min_mean, c->min_mean, 1e-12);
        CHECK_REL_OR_NAN(r.subm_mean, c->subm_mean, 1e-14);
        CHECK_REL(r.normalization, c->normalization, 1e-13);
        if (!isnan(c->rcp_mean)) CHECK_REL(r.speedup, c->rcp_mean / c->subm_mean, 1e-13);
    }
    double ok[] = {34, 35, 35, 36, 37};
    tta_rcp_run runs[5];
    runs_at(runs, 3264, ok, 5);
    tta_rcp_result r = tta_rcp_check(&set, runs, 5, NULL); /* the set's benchmark */
    CHECK(r.pass == 1 && r.kind == TTA_RCP_FOUND);
    CHECK(check5(&set, 4000, ok).kind == TTA_RCP_INTERPOLATION);
    CHECK(check5(&set, 1024, ok).kind == TTA_RCP_SMALLER_BATCH);
    CHECK(check5(&set, 100000, ok).kind == TTA_RCP_MISSING);
    double two_failed[] = {36, NAN, 37, 38, NAN};
    CHECK(check5(&set, 3264, two_failed).kind == TTA_RCP_INSUFFICIENT);

    /* two runs: nothing left after dropping two; np.mean of nothing is NAN, "RCP found" fails with a
     * NAN factor */
    r = tta_rcp_check(&set, runs, 2, "resnet");
    CHECK(r.pass == 0 && r.kind == TTA_RCP_FOUND && isnan(r.subm_mean) && isnan(r.normalization));
    CHECK_STR(r.msg, "RCP found");
    r = tta_rcp_check(&set, runs, 0, "resnet"); /* no run, no batch size */
    CHECK(r.pass == 0 && r.kind == TTA_RCP_NO_BATCH_SIZE);

    /* batch sizes as get_submission_epochs reads them, file by file */
    runs[4].bs = 4096; /* KeyError(None) after "Batch sizes in files do not match" */
    r = tta_rcp_check(&set, runs, 5, "resnet");
    CHECK(r.pass == 0 && r.kind == TTA_RCP_BATCH_SIZES_DIFFER && isnan(r.bs) && r.normalization == 1.0);
    CHECK_STR(r.msg, "Batch sizes in files do not match");
    runs[4].bs = 3264;
    runs[0].bs = NAN; /* the first without one: the next one's counts */
    r = tta_rcp_check(&set, runs, 5, "resnet");
    CHECK(r.pass == 1 && r.kind == TTA_RCP_FOUND && r.bs == 3264);
    runs[0].bs = 3264;
    runs[2].bs = NAN; /* a later one without: they differ */
    CHECK(tta_rcp_check(&set, runs, 5, "resnet").kind == TTA_RCP_BATCH_SIZES_DIFFER);
    for (int i = 0; i < 5; i++) runs[i].bs = NAN;
    r = tta_rcp_check(&set, runs, 5, "resnet");
    CHECK(r.pass == 0 && r.kind == TTA_RCP_NO_BATCH_SIZE && r.normalization == 1.0);
    CHECK_STR(r.msg, "Could not detect global_batch_size");
    /* a batch size with a fraction is printed as Python prints the float */
    r = check5(&set, 1e5 + 0.5, ok);
    CHECK_STR(r.msg, "Missing RCP, please submit RCP with BS = 100000.5");
    tta_rcp_free(&set);
}

TEST(by_hand) {
    /* rcps_resnet.json, BS 3264: 15 runs 34 34 35x9 36 36 36 37 (sum 528, squares 18594): olympic
     * mean 457 / 13; std over all 15 runs sqrt((18594 - 528^2 / 15) / 15) = sqrt(8.4 / 15).
     * BS 32768: 55 56x8 57, olympic mean 448 / 8 = 56. BS 4000 lies between 3264 and 32768 (4096,
     * 8192 and 13056 are pruned): mean 457/13 + (56 - 457/13) (4000 - 3264) / (32768 - 3264). */
    tta_rcp_set set;
    CHECK(tta_rcp_load(resnet_dir, "resnet", &set, NULL) == 0);
    double runs3264[] = {34, 34, 35, 35, 35, 35, 35, 35, 35, 35, 35, 36, 36, 36, 37};
    CHECK_REL(set.points[1].mean, 457.0 / 13.0, 1e-15);
    CHECK_REL(set.points[1].stdev, tta_std_population(runs3264, 15), 1e-15);
    CHECK_REL(set.points[1].stdev, sqrt(8.4 / 15.0), 1e-14);
    CHECK(set.points[1].runs == 15);
    CHECK_REL(set.points[5].mean, 56.0, 1e-15);
    double ok[] = {35, 35, 36, 36, 36};
    tta_rcp_result r = check5(&set, 4000, ok);
    CHECK_REL(r.rcp_mean, 457.0 / 13.0 + (56.0 - 457.0 / 13.0) * 736.0 / 29504.0, 1e-14);
    CHECK_REL(r.subm_mean, 107.0 / 3.0, 1e-15);
    /* the factor is max(1, rcp mean / submission mean) */
    CHECK_REL(r.normalization, fmax(1.0, r.rcp_mean / r.subm_mean), 1e-15);
    tta_rcp_free(&set);
}

TEST(min_mean_bisection) {
    /* _find_min_acceptable_mean(mean, stdev, reference runs - 2) with 5 submission runs (- 2) */
    CHECK_REL(tta_rcp_min_mean(35.0, 1.0846522890932808, 15, 3), 33.80234241485596, 1e-12);
    CHECK_REL(tta_rcp_min_mean(100, 5, 18, 3), 94.60844993591309, 1e-12);
    CHECK(tta_rcp_min_mean(10, 0, 8, 3) == 10); /* no spread: the mean itself */
}

/* Writes text to dir/name. */
static void write_file(const char *dir, const char *name, const char *text) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

static void remove_file(const char *dir, const char *name) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    remove(path);
}

/* Points (BS, mean) (1, 12) (2, 10) (4, 14) (6, 30) (8, 20), three runs each: BS 1 goes (smaller
 * than the fastest point's), 6 goes (slower than the 4-8 interpolation); then 4 (14) is above the
 * 2-8 interpolation (13.33) but rcp_checker does not look back: pruned 2, 4, 8. */
static const char *synthetic_json =
    "{\"p1\": {\"Benchmark\": \"resnet\", \"BS\": 1, \"Hyperparams\": {}, \"Epochs to converge\": [11, 12, 13]},\n"
    " \"p6\": {\"Benchmark\": \"resnet\", \"BS\": 6, \"Hyperparams\": {}, \"Epochs to converge\": [29, 30, 31]},\n"
    " \"p2\": {\"Benchmark\": \"resnet\", \"BS\": 2, \"Hyperparams\": {}, \"Epochs to converge\": [9, 10, 11]},\n"
    " \"p4\": {\"Benchmark\": \"resnet\", \"BS\": 4, \"Hyperparams\": {}, \"Epochs to converge\": [13, 14, 15]},\n"
    " \"p8\": {\"Benchmark\": \"resnet\", \"BS\": 8, \"Hyperparams\": {}, \"Epochs to converge\": [19, 20, 21]}}\n";

TEST(synthetic_files) {
    char dir[] = "/tmp/tta-test-rcp-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    write_file(dir, "rcps_resnet.json", synthetic_json);
    tta_rcp_set set;
    tta_error err;
    CHECK(tta_rcp_load(dir, "resnet", &set, &err) == TTA_OK);
    CHECK(set.n == 5 && set.n_pruned == 3);
    double bs[] = {1, 2, 4, 6, 8}, min_epochs[] = {9.247055053710938, 7.247047424316406, 11.247013092041016,
                                                   27.247037887573242, 17.247047424316406};
    for (size_t i = 0; i < 5 && i < set.n; i++) {
        CHECK(set.points[i].bs == bs[i]);
        CHECK_REL(set.points[i].stdev, 0.816496580927726, 1e-14);
        CHECK_REL(set.points[i].min_epochs, min_epochs[i], 1e-12);
    }
    double pruned[] = {2, 4, 8};
    for (size_t i = 0; i < 3 && i < set.n_pruned; i++) CHECK(set.pruned[i].bs == pruned[i]);
    /* BS 6 was pruned: interpolated between 4 and 8 (mean 17, limit 16.03474235534668). */
    double pass[] = {15, 16, 16, 17, 18}, fail[] = {14, 15, 15, 15, 16}, at3[] = {11, 12, 12, 12, 13};
    tta_rcp_result r = check5(&set, 6, pass);
    CHECK(r.pass == 1 && r.kind == TTA_RCP_INTERPOLATION);
    CHECK_REL(r.rcp_mean, 17.0, 1e-15);
    CHECK_REL(r.min_mean, 16.03474235534668, 1e-12);
    CHECK_REL(r.normalization, 1.0408163265306123, 1e-14);
    r = check5(&set, 6, fail);
    CHECK(r.pass == 0 && r.kind == TTA_RCP_INTERPOLATION);
    CHECK_REL(r.speedup, 1.1333333333333333, 1e-14);
    CHECK_REL(r.normalization, 1.1333333333333333, 1e-14);
    r = check5(&set, 3, at3);
    CHECK(r.pass == 1 && r.normalization == 1.0);
    CHECK_REL(r.min_mean, 11.03471374511719, 1e-12);
    tta_rcp_free(&set);

    /* one point beyond the checker's 1e9 search bound: neither below nor above 1000 */
    write_file(dir, "rcps_resnet.json",
               "{\"p\": {\"Benchmark\": \"resnet\", \"BS\": 2e9, \"Epochs to converge\": [9, 10, 11]}}");
    CHECK(tta_rcp_load(dir, "resnet", &set, &err) == TTA_OK);
    double ten[] = {10, 10, 10, 10, 10};
    r = check5(&set, 1000, ten);
    CHECK(r.pass == 0 && r.kind == TTA_RCP_NONE_FOUND && r.normalization == 1.0);
    CHECK_STR(r.msg, "Cannot find any RCPs");
    tta_rcp_free(&set);

    /* no file: TTA_ENOTFOUND and checks say NO_REFERENCE (the official checker: KeyError/IOError) */
    CHECK(tta_rcp_load(dir, "minigo", &set, &err) == TTA_ENOTFOUND && strstr(err.text, "minigo"));
    double e[] = {10, 11, 12};
    tta_rcp_run three[3];
    runs_at(three, 256, e, 3);
    r = tta_rcp_check(&set, three, 3, "minigo");
    CHECK(r.kind == TTA_RCP_NO_REFERENCE && r.pass == -1 && r.msg[0] == 0);
    tta_rcp_free(&set);

    /* malformed files: TTA_EINPUT with the path and the reason, never a crash */
    write_file(dir, "rcps_bert.json", "{\"a\": {\"BS\": 256, \"Epochs to converge\": [1, 2,");
    CHECK(tta_rcp_load(dir, "bert", &set, &err) == TTA_EINPUT && strstr(err.text, "rcps_bert.json"));
    write_file(dir, "rcps_ssd.json", "{\"x\": {\"Benchmark\": \"ssd\", \"Epochs to converge\": [1, 2, 3]}}");
    CHECK(tta_rcp_load(dir, "ssd", &set, &err) == TTA_EINPUT && strstr(err.text, "\"x\"") && strstr(err.text, "BS"));
    write_file(dir, "rcps_ssd.json", "{\"x\": {\"Benchmark\": \"ssd\", \"BS\": 8, \"Epochs to converge\": [1, \"2\", 3]}}");
    CHECK(tta_rcp_load(dir, "ssd", &set, &err) == TTA_EINPUT && err.text[0]);
    write_file(dir, "rcps_ssd.json", "{\"x\": {\"Benchmark\": \"ssd\", \"BS\": 8, \"Epochs to converge\": [1, 2]}}");
    CHECK(tta_rcp_load(dir, "ssd", &set, &err) == TTA_EINPUT && strstr(err.text, "olympic"));
    write_file(dir, "rcps_ssd.json", "[]");
    CHECK(tta_rcp_load(dir, "ssd", &set, &err) == TTA_EINPUT && err.text[0]);
    write_file(dir, "rcps_ssd.json", "{}");
    CHECK(tta_rcp_load(dir, "ssd", &set, &err) == TTA_EINPUT && err.text[0]);
    CHECK(set.n == 0 && set.n_pruned == 0 && set.points == NULL);
    /* a benchmark rcp_checker has no run count for */
    write_file(dir, "rcps_mystery.json", synthetic_json);
    CHECK(tta_rcp_load(dir, "mystery", &set, &err) == TTA_EINPUT && strstr(err.text, "mystery"));
    CHECK(tta_rcp_load(dir, "../etc/passwd", &set, &err) == TTA_EINPUT);
    /* "samples to converge" for llama2_70b_lora, with either key accepted */
    write_file(dir, "rcps_llama2_70b_lora.json",
               "{\"a\": {\"Benchmark\": \"llama2_70b_lora\", \"BS\": 8, \"samples to converge\": [3000, 3100, 3300]},"
               " \"b\": {\"Benchmark\": \"llama2_70b_lora\", \"BS\": 16, \"Epochs to converge\": [4000, 4100, 4300]}}");
    CHECK(tta_rcp_load(dir, "llama2_70b_lora", &set, &err) == TTA_OK);
    CHECK(set.n == 2 && set.points[0].mean == 3100 && set.points[1].mean == 4100 && set.submission_runs == 10);
    tta_rcp_free(&set);

    const char *names[] = {"rcps_resnet.json", "rcps_bert.json", "rcps_ssd.json", "rcps_mystery.json",
                           "rcps_llama2_70b_lora.json"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) remove_file(dir, names[i]);
    rmdir(dir);
}

TEST(submission_runs_table) {
    CHECK(tta_rcp_submission_runs("resnet") == 5);
    CHECK(tta_rcp_submission_runs("unet3d") == 40);
    CHECK(tta_rcp_submission_runs("gpt3") == 3);
    CHECK(tta_rcp_submission_runs("dlrm") == 5);
    CHECK(tta_rcp_submission_runs("bert") == 10);
    CHECK(tta_rcp_submission_runs("minigo") == 0);
    CHECK(tta_rcp_submission_runs(NULL) == 0);
}

/* The package checker's RCP bypass: only a failed "RCP found", "RCP Interpolation" or "Missing RCP"
 * passes, with check_directory's words; any other verdict stays. */
TEST(bypass) {
    tta_rcp_result r = {.kind = TTA_RCP_FOUND, .pass = 0};
    snprintf(r.msg, sizeof r.msg, "RCP found");
    CHECK(tta_rcp_bypass(&r) == 1 && r.pass == 1 && !strcmp(r.msg, "RCP found passed using rcp_bypass"));
    CHECK(tta_rcp_bypass(&r) == 0 && !strcmp(r.msg, "RCP found passed using rcp_bypass")); /* a pass stays */
    r = (tta_rcp_result){.kind = TTA_RCP_MISSING, .pass = 0};
    snprintf(r.msg, sizeof r.msg, "Missing RCP, please submit RCP with BS = 3264");
    CHECK(tta_rcp_bypass(&r) == 1 && !strcmp(r.msg, "Missing RCP, please submit RCP with BS = 3264 passed using rcp_bypass"));
    r = (tta_rcp_result){.kind = TTA_RCP_INTERPOLATION, .pass = 0};
    CHECK(tta_rcp_bypass(&r) == 1 && r.pass == 1);
    const tta_rcp_case stay[] = {TTA_RCP_NONE_FOUND, TTA_RCP_INSUFFICIENT, TTA_RCP_NO_BATCH_SIZE,
                                 TTA_RCP_BATCH_SIZES_DIFFER};
    for (size_t i = 0; i < sizeof stay / sizeof stay[0]; i++) {
        r = (tta_rcp_result){.kind = stay[i], .pass = 0};
        snprintf(r.msg, sizeof r.msg, "Insufficient convergence");
        CHECK(tta_rcp_bypass(&r) == 0 && r.pass == 0 && !strcmp(r.msg, "Insufficient convergence"));
    }
    r = (tta_rcp_result){.kind = TTA_RCP_NO_REFERENCE, .pass = -1};
    CHECK(tta_rcp_bypass(&r) == 0 && r.pass == -1);
}

int main(void) {
    RUN(reference_points);
    RUN(resnet_submissions);
    RUN(by_hand);
    RUN(min_mean_bisection);
    RUN(synthetic_files);
    RUN(submission_runs_table);
    RUN(bypass);
    return test_summary();
}
