/* test_score.c: the official MLPerf score against the result summarizer's arithmetic (worked by
 * hand; the one-failed-run case also with the summarizer's own slice in reference_values.py), and
 * the runs the rules require. */
#include <math.h>

#include "stats/stats.h"
#include "tta_test.h"

TEST(olympic_score) {
    double t[] = {50, 10, 30, 20, 40};
    int ok[] = {1, 1, 1, 1, 1};
    tta_score s = tta_official_score(t, ok, 5, "resnet", "v0.7");
    CHECK_NEAR(s.score, 30.0, 1e-12); /* 10 and 50 dropped */
    CHECK(s.n_used == 3 && s.n_dropped == 0 && s.required == 5 && s.max_dropped == 1);
    CHECK(s.reason == TTA_REASON_NONE && s.why == NULL);
}

TEST(one_failed_run_stands_for_the_slowest) {
    /* The run of 40 failed: successes 10 20 30 50; sorted[1 : 4 - (1 - 1)] = 20 30 50 (the
     * summarizer drops only the fastest, even though the failed run was not the slowest). */
    double t[] = {50, 10, 30, 20, 40};
    int one_failed[] = {1, 1, 1, 1, 0};
    tta_score s = tta_official_score(t, one_failed, 5, "resnet", "v0.7");
    CHECK_NEAR(s.score, 100.0 / 3.0, 1e-12);
    CHECK(s.n_dropped == 1 && s.n_used == 3 && s.reason == TTA_REASON_NONE);
    /* A NAN time is a run that did not succeed either. */
    double t_nan[] = {50, 10, 30, 20, NAN};
    int ok[] = {1, 1, 1, 1, 1};
    s = tta_official_score(t_nan, ok, 5, "resnet", "v0.7");
    CHECK_NEAR(s.score, 100.0 / 3.0, 1e-12);
    CHECK(s.n_dropped == 1);
}

TEST(too_many_failed_or_too_few_runs) {
    double t[] = {50, 10, 30, 20, 40};
    int two_failed[] = {1, 0, 1, 1, 0};
    tta_score s = tta_official_score(t, two_failed, 5, "resnet", "v0.7");
    CHECK(isnan(s.score) && s.reason == TTA_TOO_MANY_FAILED && s.why != NULL && s.n_dropped == 2);
    int ok[] = {1, 1, 1, 1, 1};
    s = tta_official_score(t, ok, 1, "resnet", "v0.7"); /* sorted[1 : 0] */
    CHECK(isnan(s.score) && s.reason == TTA_TOO_FEW_RUNS);
    s = tta_official_score(t, ok, 2, "resnet", "v0.7"); /* sorted[1 : 1] */
    CHECK(isnan(s.score) && s.reason == TTA_TOO_FEW_RUNS);
    int last_failed[] = {1, 1, 0};
    s = tta_official_score(t, last_failed, 3, "resnet", "v0.7"); /* successes 10 50: sorted[1 : 2] */
    CHECK_NEAR(s.score, 50.0, 0);
    CHECK(s.n_used == 1 && s.reason == TTA_FEWER_RUNS_THAN_REQUIRED);
    s = tta_official_score(t, ok, 0, "resnet", "v0.7");
    CHECK(isnan(s.score) && s.reason == TTA_NO_VALUES && s.n_runs == 0);
}

TEST(fewer_runs_than_required_is_a_warning) {
    double t[] = {50, 10, 30, 20, 40};
    int ok[] = {1, 1, 1, 1, 1};
    tta_score s = tta_official_score(t, ok, 5, "gnmt", "v0.7"); /* GNMT requires 10 */
    CHECK_NEAR(s.score, 30.0, 1e-12);
    CHECK(s.required == 10 && s.reason == TTA_FEWER_RUNS_THAN_REQUIRED && tta_reason_is_warning(s.reason));
    s = tta_official_score(t, ok, 5, "resnet", "dawnbench"); /* no rule to compare with */
    CHECK_NEAR(s.score, 30.0, 1e-12);
    CHECK(s.required == 0 && s.reason == TTA_REASON_NONE);
}

TEST(unet3d_drops_four) {
    double u[41];
    int uok[41];
    for (int i = 0; i < 41; i++) {
        u[i] = i + 1;
        uok[i] = 1;
    }
    tta_score s = tta_official_score(u, uok, 40, "unet3d", "v1.0");
    CHECK_NEAR(s.score, 20.5, 1e-12); /* mean of 5..36 */
    CHECK(s.n_used == 32 && s.required == 40 && s.max_dropped == 4 && s.reason == TTA_REASON_NONE);
    /* The four fastest failed: successes 5..40, sorted[4 : 36 - 0] = 9..40. */
    for (int i = 0; i < 4; i++) uok[i] = 0;
    s = tta_official_score(u, uok, 40, "unet3d", "v1.0");
    CHECK_NEAR(s.score, 24.5, 1e-12);
    CHECK(s.n_used == 32 && s.n_dropped == 4);
    uok[4] = 0; /* five failed */
    s = tta_official_score(u, uok, 40, "unet3d", "v1.0");
    CHECK(isnan(s.score) && s.reason == TTA_TOO_MANY_FAILED);
}

TEST(ncf_first_fifty_converged) {
    /* v0.5 NCF: run 100, use the first 50 that converge (in run order), olympic. */
    double t[100], rev[100];
    int ok[100];
    for (int i = 0; i < 100; i++) {
        t[i] = i;
        rev[i] = 99 - i;
        ok[i] = i >= 30; /* the first 30 runs did not converge */
    }
    tta_score s = tta_official_score(t, ok, 100, "ncf", "v0.5");
    CHECK_NEAR(s.score, 54.5, 1e-12); /* runs 30..79 without 30 and 79: mean of 31..78 */
    CHECK(s.n_used == 48 && s.n_dropped == 30 && s.required == 100 && s.reason == TTA_REASON_NONE);
    s = tta_official_score(rev, ok, 100, "ncf", "v0.5"); /* runs 30..79 take 69..20 */
    CHECK_NEAR(s.score, 44.5, 1e-12);
    for (int i = 0; i < 100; i++) ok[i] = i >= 60; /* only 40 converged */
    s = tta_official_score(t, ok, 100, "ncf", "v0.5");
    CHECK_NEAR(s.score, 79.5, 1e-12); /* 61..98 */
    CHECK(s.n_used == 38 && s.reason == TTA_FEWER_CONVERGED_THAN_USED && s.why != NULL);
}

TEST(required_runs) {
    CHECK(tta_required_runs("resnet", "v0.7") == 5);
    CHECK(tta_required_runs("ssd", "v0.6") == 5);
    CHECK(tta_required_runs("maskrcnn", "v1.0") == 5);
    CHECK(tta_required_runs("dlrm", "v0.7") == 5);
    CHECK(tta_required_runs("dlrm_dcnv2", "v3.0") == 10);
    CHECK(tta_required_runs("bert", "v0.7") == 10);
    CHECK(tta_required_runs("minigo", "v0.6") == 10);
    CHECK(tta_required_runs("gnmt", "v0.5") == 10);
    CHECK(tta_required_runs("unet3d", "v1.0") == 40);
    CHECK(tta_required_runs("ncf", "v0.5") == 100);
    CHECK(tta_required_runs("gpt3", "v3.0") == 3);
    CHECK(tta_required_runs("llama31_405b", "v5.0") == 3);
    CHECK(tta_required_runs("llama2_70b_lora", "v4.0") == 10);
    CHECK(tta_required_runs("resnet", "dawnbench") == 0);
    CHECK(tta_required_runs("resnet", NULL) == 0);
    CHECK(tta_required_runs("resnet", "v") == 0);
    CHECK(tta_required_runs("cifar10", "v0.7") == 0);
    CHECK(tta_max_dropped_runs("unet3d") == 4 && tta_max_dropped_runs("resnet") == 1);
    CHECK(tta_max_dropped_runs(NULL) == 1);
}

int main(void) {
    RUN(olympic_score);
    RUN(one_failed_run_stands_for_the_slowest);
    RUN(too_many_failed_or_too_few_runs);
    RUN(fewer_runs_than_required_is_a_warning);
    RUN(unet3d_drops_four);
    RUN(ncf_first_fifty_converged);
    RUN(required_runs);
    return test_summary();
}
