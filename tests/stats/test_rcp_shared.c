/* test_rcp_shared.c: the RCP check on every MLCommons reference file in ../shared/rcp against
 * MLCommons' own rcp_checker (mlperf_logging 4.1.59, run by reference_values.py; for dlrm, whose
 * run count left the checker's table in 2023, with the 5 runs it had before): the number of
 * points and the pruned batch sizes of every file, every statistic of the points of six files, and
 * the verdicts for unet3d (4 runs dropped from each end), llama31_405b (its 46080-sample slack) and
 * llama2_70b_lora ("samples to converge"). Skips when ../shared is absent. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"
#include "tta_test.h"

static const char *shared;

typedef struct {
    const char *version, *benchmark;
    size_t n_points;
    double pruned[10]; /* batch sizes of pruned_rcp_data, 0-terminated */
} rcp_file;

static const rcp_file files[] = {
    {"1.0.0", "bert", 8, {256, 3072, 6144, 6912, 12288}},
    {"1.0.0", "dlrm", 3, {32768, 71680}},
    {"1.0.0", "maskrcnn", 6, {48, 64, 128, 272}},
    {"1.0.0", "resnet", 9, {1632, 3264, 32768, 65536}},
    {"1.0.0", "rnnt", 3, {2048, 3072}},
    {"1.0.0", "ssd", 3, {1024, 4096}},
    {"1.0.0", "unet3d", 4, {80}},
    {"1.1.0", "bert", 11, {256, 3072, 4096, 6144, 6912, 12288, 13056}},
    {"1.1.0", "dlrm", 3, {32768, 71680}},
    {"1.1.0", "maskrcnn", 6, {48, 64, 128, 272}},
    {"1.1.0", "resnet", 9, {1632, 3264, 32768, 49152, 65536}},
    {"1.1.0", "rnnt", 4, {2048, 3072, 6144}},
    {"1.1.0", "ssd", 4, {1024, 1536, 4096}},
    {"1.1.0", "unet3d", 5, {80, 84}},
    {"2.0.0", "bert", 13, {256, 3072, 4608, 6144, 6912, 12288, 13056, 16384}},
    {"2.0.0", "dlrm", 3, {32768, 71680}},
    {"2.0.0", "maskrcnn", 7, {8, 128, 272}},
    {"2.0.0", "resnet", 10, {1632, 3264, 32768, 49152, 67840}},
    {"2.0.0", "rnnt", 6, {512, 1024, 1536, 6144}},
    {"2.0.0", "ssd", 3, {256, 4096}},
    {"2.0.0", "unet3d", 5, {80, 84}},
    {"2.1.0", "bert", 13, {448, 4608, 6144, 6912, 12288, 13056, 16384}},
    {"2.1.0", "dlrm", 3, {32768, 71680}},
    {"2.1.0", "maskrcnn", 7, {8, 128, 272}},
    {"2.1.0", "resnet", 10, {1632, 3264, 32768, 49152, 67840}},
    {"2.1.0", "rnnt", 6, {512, 1024, 1536, 6144}},
    {"2.1.0", "ssd", 5, {256, 2048, 4096}},
    {"2.1.0", "unet3d", 5, {80, 84}},
    {"3.0.0", "bert", 13, {448, 4608, 6144, 6912, 12288, 13056, 16384}},
    {"3.0.0", "dlrm_dcnv2", 5, {32768, 55296, 135168}},
    {"3.0.0", "gpt3", 5, {2048, 3072, 4096, 8192}},
    {"3.0.0", "maskrcnn", 7, {8, 128, 272}},
    {"3.0.0", "resnet", 10, {1632, 3264, 32768, 49152, 67840}},
    {"3.0.0", "rnnt", 6, {512, 1024, 1536, 6144}},
    {"3.0.0", "ssd", 7, {256, 768, 2048, 4096}},
    {"3.0.0", "unet3d", 6, {80, 84}},
    {"3.1.0", "bert", 13, {448, 4608, 6144, 6912, 12288, 13056, 16384}},
    {"3.1.0", "dlrm_dcnv2", 5, {32768, 55296, 135168}},
    {"3.1.0", "gpt3", 5, {2048, 3072, 4096, 8192}},
    {"3.1.0", "maskrcnn", 7, {8, 128, 272}},
    {"3.1.0", "resnet", 10, {1632, 3264, 32768, 49152, 67840}},
    {"3.1.0", "rnnt", 6, {512, 1024, 1536, 6144}},
    {"3.1.0", "ssd", 8, {256, 320, 768, 2048, 4096}},
    {"3.1.0", "stable_diffusion", 3, {2048}},
    {"3.1.0", "unet3d", 6, {56, 80, 84}},
    {"4.0.0", "bert", 13, {448, 4608, 6144, 6912, 12288, 13056, 16384}},
    {"4.0.0", "dlrm_dcnv2", 5, {32768, 55296, 135168}},
    {"4.0.0", "gnn", 5, {4096, 32768, 262144}},
    {"4.0.0", "gpt3", 5, {2048, 3072, 4096, 8192}},
    {"4.0.0", "llama2_70b_lora", 4, {8, 16, 128}},
    {"4.0.0", "resnet", 10, {1632, 3264, 32768, 49152, 67840}},
    {"4.0.0", "ssd", 9, {256, 320, 768, 2560, 4096}},
    {"4.0.0", "stable_diffusion", 4, {512, 1024, 2048}},
    {"4.0.0", "unet3d", 4, {28, 56, 84}},
    {"4.1.0", "bert", 13, {448, 4608, 6144, 6912, 12288, 13056, 16384}},
    {"4.1.0", "dlrm_dcnv2", 5, {32768, 55296, 135168}},
    {"4.1.0", "gnn", 5, {4096, 32768, 262144}},
    {"4.1.0", "gpt3", 6, {2048, 3072, 4096, 6144, 8192}},
    {"4.1.0", "llama2_70b_lora", 4, {8, 16, 128}},
    {"4.1.0", "ssd", 9, {256, 320, 768, 2560, 4096}},
    {"4.1.0", "stable_diffusion", 5, {256, 1024, 2048}},
    {"5.0.0", "bert", 13, {448, 4608, 6144, 6912, 12288, 13056, 16384}},
    {"5.0.0", "dlrm_dcnv2", 5, {32768, 55296, 135168}},
    {"5.0.0", "llama2_70b_lora", 4, {8, 16, 128}},
    {"5.0.0", "llama31_405b", 6, {1152, 2304, 9216}},
    {"5.0.0", "retinanet", 9, {256, 320, 768, 2560, 4096}},
    {"5.0.0", "rgat", 5, {4096, 32768, 262144}},
    {"5.0.0", "stable_diffusion", 5, {256, 2048}},
    {"5.1.0", "bert", 13, {448, 4608, 6144, 6912, 12288, 13056, 16384}},
    {"5.1.0", "dlrm_dcnv2", 6, {32768, 55296, 160000}},
    {"5.1.0", "flux1", 4, {512, 1024, 2048, 4096}},
    {"5.1.0", "llama2_70b_lora", 4, {8, 16, 128}},
    {"5.1.0", "llama31_405b", 3, {1152, 2304, 4608}},
    {"5.1.0", "llama31_8b", 5, {16, 32, 64, 96, 128}},
    {"5.1.0", "retinanet", 9, {256, 320, 768, 2560, 4096}},
    {"5.1.0", "rgat", 5, {4096, 32768, 262144}},
    {"6.0.0", "deepseekv3_671b", 3, {15360, 16384, 18432}},
    {"6.0.0", "dlrm_dcnv2", 6, {32768, 55296, 160000}},
    {"6.0.0", "flux1", 4, {512, 2048, 4096}},
    {"6.0.0", "gpt_oss_20b", 3, {16, 64}},
    {"6.0.0", "llama2_70b_lora", 4, {8, 16, 128}},
    {"6.0.0", "llama31_405b", 3, {1152, 2304, 4608}},
    {"6.0.0", "llama31_8b", 5, {16, 32, 64, 96, 128}},
    {"6.1.0", "deepseekv3_671b", 3, {15360, 16384, 18432}},
    {"6.1.0", "flux1", 4, {512, 2048, 4096}},
    {"6.1.0", "gpt_oss_20b", 3, {16, 64}},
    {"6.1.0", "llama2_70b_lora", 4, {8, 16, 128}},
    {"6.1.0", "llama31_8b", 5, {16, 32, 64, 96, 128}},
    {"6.1.0", "qwen35_397b_grpo", 3, {256, 512, 1024}},
};

static const double points_resnet_4_0_0[][4] = {
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
static const double points_unet3d_3_0_0[][4] = {
    {2, 2659.746835443038, 582.4044356584124, 2469.0900142057026},
    {32, 2386.0666666666666, 582.2765884957115, 2199.4057177474106},
    {56, 2266.9444444444443, 571.541774501217, 2076.8125515306974},
    {64, 3270.2065217391305, 611.9357458916745, 3074.694419664696},
    {80, 1603.7777777777778, 293.8280747307854, 1506.031519446108},
    {84, 2302.3809523809523, 413.6403010790276, 2168.3317038629734},
};
static const double points_gpt3_4_1_0[][4] = {
    {1536, 1195376640.0, 45174036.582446955, 1076517411.4733024},
    {2048, 1177760563.2, 24907706.161334988, 1119593070.2524886},
    {3072, 1218025881.6, 4400200850.360171, 3.461837768554687e-05},
    {4096, 1258291200.0, 18757497.724598557, 1208937591.6597962},
    {6144, 1409286144.0, 0.0, 1409286144.0},
    {8192, 1623195648.0, 23726566.40606289, 1560767722.7587714},
};
static const double points_llama2_70b_lora_5_0_0[][4] = {
    {8, 3178.6666666666665, 299.91358755481554, 2960.6339616775513},
    {16, 4032.0, 411.3462774840682, 3732.957371234894},
    {32, 6037.333333333333, 323.56415128997224, 5802.107027212778},
    {128, 11264.0, 844.8000000000001, 10649.842998504639},
};
static const double points_llama31_405b_5_0_0[][4] = {
    {1008, 324576.0, 0.0, 324576.0},
    {1152, 322560.0, 0.0, 322560.0},
    {2304, 380160.0, 21722.32031805074, 323005.52746608853},
    {4608, 495360.0, 21722.32031805074, 438205.52742116153},
    {6912, 604800.0, 24192.0, 541147.4536987022},
    {9216, 691200.0, 37624.16244914962, 592205.5496647954},
};
static const double points_bert_1_0_0[][4] = {
    {256, 2549219.5555555555, 218406.13406770426, 2390441.5519584813},
    {448, 2621696.0, 169650.35400422834, 2498362.7216735},
    {1536, 2776278.222222222, 82207.5271103565, 2716514.575543456},
    {3072, 2764498.6666666665, 166119.33957778665, 2643732.3832027484},
    {6144, 3319125.3333333335, 146691.13630155026, 3212483.0639822287},
    {6912, 3601920.0, 121792.77701013308, 3513378.4667561017},
    {8192, 4186112.0, 88430.92304030304, 4121824.037241757},
    {12288, 4931584.0, 217327.44530592542, 4773590.187088132},
};

/* Loads training_<version>/rcps_<benchmark>.json from ../shared/rcp. */
static int load(const char *version, const char *benchmark, tta_rcp_set *set) {
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/rcp/training_%s", shared, version);
    tta_error err;
    int status = tta_rcp_load(dir, benchmark, set, &err);
    if (status != TTA_OK) fprintf(stderr, "%s %s: %s\n", version, benchmark, err.text);
    return status;
}

TEST(pruned_sets_of_every_file) {
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        tta_rcp_set set;
        CHECK(load(files[f].version, files[f].benchmark, &set) == 0);
        size_t n_pruned = 0;
        while (n_pruned < 10 && files[f].pruned[n_pruned] > 0) n_pruned++;
        int same = set.n == files[f].n_points && set.n_pruned == n_pruned;
        for (size_t i = 0; same && i < n_pruned; i++) same = set.pruned[i].bs == files[f].pruned[i];
        if (!same) fprintf(stderr, "%s %s: %zu points, %zu pruned\n", files[f].version, files[f].benchmark, set.n,
                           set.n_pruned);
        CHECK(same);
        tta_rcp_free(&set);
    }
}

/* Every point's BS, RCP Mean, RCP Stdev and Min Epochs. */
static void check_points(const char *version, const char *benchmark, const double (*expect)[4], size_t n) {
    tta_rcp_set set;
    CHECK(load(version, benchmark, &set) == 0);
    CHECK(set.n == n);
    for (size_t i = 0; i < n && i < set.n; i++) {
        CHECK(set.points[i].bs == expect[i][0]);
        CHECK_REL(set.points[i].mean, expect[i][1], 1e-14);
        CHECK_NEAR(set.points[i].stdev, expect[i][2], 1e-13 * expect[i][1]);
        CHECK_NEAR(set.points[i].min_epochs, expect[i][3], 1e-12 * expect[i][1]);
    }
    tta_rcp_free(&set);
}

#define CHECK_POINTS(version, benchmark, table) check_points(version, benchmark, table, sizeof table / sizeof table[0])

TEST(point_statistics) {
    CHECK_POINTS("4.0.0", "resnet", points_resnet_4_0_0);
    CHECK_POINTS("3.0.0", "unet3d", points_unet3d_3_0_0);
    CHECK_POINTS("4.1.0", "gpt3", points_gpt3_4_1_0);
    CHECK_POINTS("5.0.0", "llama2_70b_lora", points_llama2_70b_lora_5_0_0);
    CHECK_POINTS("5.0.0", "llama31_405b", points_llama31_405b_5_0_0);
    CHECK_POINTS("1.0.0", "bert", points_bert_1_0_0);
}

/* tta_rcp_check of n runs at batch size bs. */
static tta_rcp_result check_at(const tta_rcp_set *set, double bs, const double *progress, size_t n,
                               const char *benchmark) {
    tta_rcp_run runs[64];
    CHECK(n <= 64);
    for (size_t i = 0; i < n && i < 64; i++) runs[i] = (tta_rcp_run){.progress = progress[i], .bs = bs};
    return tta_rcp_check(set, runs, n < 64 ? n : 64, benchmark);
}

/* Verdicts, messages and factors: check_directory on result files (reference_values.py). */
TEST(unet3d_drops_four_runs_each_end) {
    tta_rcp_set set;
    CHECK(load("3.0.0", "unet3d", &set) == 0 && set.submission_runs == 40);
    /* four fast outliers, 1500 1505 .. 1655, four runs that did not converge */
    double e[40];
    for (int i = 0; i < 4; i++) e[i] = 1000;
    for (int i = 0; i < 32; i++) e[4 + i] = 1500 + 5 * i;
    for (int i = 36; i < 40; i++) e[i] = NAN;
    tta_rcp_result r = check_at(&set, 80, e, 40, "unet3d");
    CHECK(r.pass == 1 && r.kind == TTA_RCP_FOUND);
    CHECK_STR(r.msg, "RCP found");
    CHECK_REL(r.subm_mean, 1577.5, 1e-15);
    CHECK_REL(r.min_mean, 1506.031519446108, 1e-12);
    CHECK_REL(r.normalization, 1.0166578622997007, 1e-14);
    r = check_at(&set, 82, e, 40, "unet3d"); /* interpolated between 80 and 84 */
    CHECK(r.pass == 0 && r.kind == TTA_RCP_INTERPOLATION);
    CHECK_REL(r.rcp_mean, 1953.079365079365, 1e-13);
    CHECK_REL(r.min_mean, 1837.523821983072, 1e-12);
    CHECK_REL(r.speedup, 1.2380851759615625, 1e-13);
    CHECK_REL(r.normalization, 1.2380851759615625, 1e-13);
    e[35] = NAN; /* a fifth run that did not converge */
    r = check_at(&set, 80, e, 40, "unet3d");
    CHECK(r.pass == 0 && r.kind == TTA_RCP_INSUFFICIENT && r.normalization == 1.0);
    CHECK_STR(r.msg, "Insufficient convergence");
    for (int i = 0; i < 4; i++) e[i] = 3000;
    for (int i = 0; i < 32; i++) e[4 + i] = 3100 + 10 * i;
    r = check_at(&set, 56, e, 40, "unet3d"); /* 56 was pruned: below 80, the smallest */
    CHECK(r.pass == 1 && r.kind == TTA_RCP_SMALLER_BATCH);
    CHECK_STR(r.msg, "RCP not found but slower convergence on smaller batch size");
    CHECK_REL(r.rcp_mean, 1603.7777777777778, 1e-14);
    CHECK_REL(r.subm_mean, 3255.0, 1e-15);
    tta_rcp_free(&set);
}

TEST(llama31_405b_slack) {
    tta_rcp_set set;
    CHECK(load("5.0.0", "llama31_405b", &set) == 0 && set.submission_runs == 3);
    /* at 1152 the references agree exactly (stdev 0): the limit is 322560 - 46080 */
    double pass[] = {280000, 290000, 300000}, fail[] = {270000, 275000, 300000}, interp[] = {300000, 340000, 400000};
    tta_rcp_result r = check_at(&set, 1152, pass, 3, NULL);
    CHECK(r.pass == 1);
    CHECK_REL(r.min_mean, 276480.0, 1e-15);
    CHECK_REL(r.normalization, 1.1122758620689654, 1e-14);
    r = check_at(&set, 1152, fail, 3, NULL);
    CHECK(r.pass == 0);
    CHECK_REL(r.speedup, 1.1729454545454545, 1e-14);
    CHECK_REL(r.normalization, 1.1729454545454545, 1e-14);
    r = check_at(&set, 3000, interp, 3, NULL);
    CHECK(r.pass == 1 && r.kind == TTA_RCP_INTERPOLATION);
    CHECK_REL(r.rcp_mean, 411480.0, 1e-14);
    CHECK_REL(r.min_mean, 314636.2756200554, 1e-12);
    CHECK_REL(r.normalization, 1.210235294117647, 1e-14);
    tta_rcp_free(&set);
}

TEST(llama2_70b_lora_samples) {
    tta_rcp_set set;
    CHECK(load("5.0.0", "llama2_70b_lora", &set) == 0);
    double s[] = {2800, 3000, 3100, 3100, 3200, 3300, 3300, 3400, 3500, 3600};
    tta_rcp_result r = check_at(&set, 8, s, 10, NULL);
    CHECK(r.pass == 1 && r.normalization == 1.0);
    CHECK_REL(r.subm_mean, 3237.5, 1e-15);
    CHECK_REL(r.min_mean, 2960.6339616775513, 1e-12);
    tta_rcp_free(&set);
}

TEST(benchmarks_without_reference_points) {
    tta_rcp_set set;
    char dir[4200];
    tta_error err;
    snprintf(dir, sizeof dir, "%s/rcp/training_1.0.0", shared);
    CHECK(tta_rcp_load(dir, "minigo", &set, &err) == TTA_ENOTFOUND && err.text[0]); /* rcp_checker: KeyError */
    double e[] = {20, 21, 22, 23, 24, 25, 26, 27, 28, 29};
    tta_rcp_result r = check_at(&set, 2048, e, 10, "minigo");
    CHECK(r.kind == TTA_RCP_NO_REFERENCE && r.pass == -1);
    tta_rcp_free(&set);
}

int main(void) {
    shared = test_shared_dir();
    if (!shared) test_skip("../shared (TTA_SHARED_DIR) is absent: no reference convergence points to check");
    RUN(pruned_sets_of_every_file);
    RUN(point_statistics);
    RUN(unet3d_drops_four_runs_each_end);
    RUN(llama31_405b_slack);
    RUN(llama2_70b_lora_samples);
    RUN(benchmarks_without_reference_points);
    return test_summary();
}
