/* test_rcp.c: the RCP check against MLCommons' own rcp_checker (mlperf-logging 4.1.59), run on
 * fixtures/rcp/training_4.0.0/rcps_resnet.json (a copy of MLCommons' file): every number below
 * is what RCP_Checker('training', '4.0.0', 'resnet') computes. */
#include <math.h>

#include "stats/stats.h"
#include "tta_test.h"

static const char *rcp_dir = "fixtures/rcp/training_4.0.0";

TEST(reference_points) {
    tta_rcp_set set;
    char *err = NULL;
    CHECK(tta_rcp_load(rcp_dir, "resnet", &set, &err) == 0);
    CHECK(set.n == 10);
    CHECK(set.submission_runs == 5);
    /* full 1632: mean 35.0, stdev 1.0846522890932808, min epochs 33.80234241485596 */
    CHECK_NEAR(set.points[0].bs, 1632, 0);
    CHECK_NEAR(set.points[0].mean, 35.0, 1e-12);
    CHECK_NEAR(set.points[0].stdev, 1.0846522890932808, 1e-12);
    CHECK_NEAR(set.points[0].min_epochs, 33.80234241485596, 1e-9);
    CHECK_NEAR(set.points[1].mean, 35.15384615384615, 1e-12);
    CHECK_NEAR(set.points[1].min_epochs, 34.3096450658945, 1e-9);
    CHECK_NEAR(set.points[9].bs, 67840, 0);
    CHECK_NEAR(set.points[9].min_epochs, 85.18264433053824, 1e-9);
    /* pruned: 1632, 3264, 32768, 49152, 67840 */
    CHECK(set.n_pruned == 5);
    double expect[] = {1632, 3264, 32768, 49152, 67840};
    for (size_t i = 0; i < 5 && i < set.n_pruned; i++) CHECK_NEAR(set.pruned[i].bs, expect[i], 0);
    tta_rcp_free(&set);
}

TEST(submissions) {
    tta_rcp_set set;
    char *err = NULL;
    CHECK(tta_rcp_load(rcp_dir, "resnet", &set, &err) == 0);
    double ok[] = {34, 35, 35, 36, 37};
    tta_rcp_result r = tta_rcp_check(&set, 3264, ok, 5, "resnet");
    CHECK(r.status == TTA_RCP_PASS && r.normalization == 1.0);
    double fast[] = {30, 31, 31, 32, 33};
    r = tta_rcp_check(&set, 3264, fast, 5, "resnet");
    CHECK(r.status == TTA_RCP_FAIL);
    CHECK_NEAR(r.normalization, 1.1219312602291327, 1e-12);
    double one_failed[] = {36, 37, 37, 38, NAN}; /* a failed run counts as 1e9 epochs */
    r = tta_rcp_check(&set, 3264, one_failed, 5, "resnet");
    CHECK(r.status == TTA_RCP_PASS);
    double two_failed[] = {36, NAN, 37, 38, NAN};
    r = tta_rcp_check(&set, 3264, two_failed, 5, "resnet");
    CHECK(r.status == TTA_RCP_NO_CONVERGENCE);
    /* interpolated at 4000: mean 35.673869514433505, min 34.79806039529473 */
    double sub[] = {33, 34, 34, 35, 36};
    r = tta_rcp_check(&set, 4000, sub, 5, "resnet");
    CHECK_NEAR(r.rcp_mean, 35.673869514433505, 1e-9);
    CHECK_NEAR(r.min_mean, 34.79806039529473, 1e-9);
    CHECK(r.status == TTA_RCP_FAIL);
    CHECK_NEAR(r.normalization, 1.0390447431388399, 1e-9);
    /* above every point */
    r = tta_rcp_check(&set, 100000, ok, 5, "resnet");
    CHECK(r.status == TTA_RCP_MISSING_POINT);
    tta_rcp_free(&set);
}

TEST(no_reference_file) {
    tta_rcp_set set;
    char *err = NULL;
    CHECK(tta_rcp_load(rcp_dir, "minigo", &set, &err) == 1); /* the official checker: KeyError */
    CHECK(err != NULL);
    free(err);
    double e[] = {10, 11, 12};
    tta_rcp_result r = tta_rcp_check(&set, 256, e, 3, "minigo");
    CHECK(r.status == TTA_RCP_NO_REFERENCE && r.why);
    tta_rcp_free(&set);
}

int main(void) {
    RUN(reference_points);
    RUN(submissions);
    RUN(no_reference_file);
    return test_summary();
}
