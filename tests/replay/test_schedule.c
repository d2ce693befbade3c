/* test_schedule.c: learning-rate schedules at chosen points, computed by hand. */
#include <math.h>

#include "replay/schedule.h"
#include "tta_test.h"

static tta_lr_schedule parse(const char *json) {
    tta_lr_schedule s;
    char err[200];
    int rc = tta_lr_schedule_parse(json, &s, err, sizeof err);
    if (rc) fprintf(stderr, "unexpected error: %s\n", err);
    CHECK(rc == 0);
    return s;
}

TEST(piecewise_linear_dawnbench) {
    /* fmnist-mlp's recipe: 0 -> 0.1 at epoch 2 -> 0 at epoch 15 */
    tta_lr_schedule s = parse("{\"type\": \"piecewiseLinear\", \"epochs\": [0, 2, 15], \"values\": [0, 0.1, 0]}");
    CHECK_NEAR(tta_lr_at(&s, 0), 0, 1e-15);
    CHECK_NEAR(tta_lr_at(&s, 1), 0.05, 1e-15);
    CHECK_NEAR(tta_lr_at(&s, 2), 0.1, 1e-15);
    CHECK_NEAR(tta_lr_at(&s, 8.5), 0.05, 1e-15); /* halfway from 2 to 15 */
    CHECK_NEAR(tta_lr_at(&s, 15), 0, 1e-15);
    CHECK_NEAR(tta_lr_at(&s, 20), 0, 1e-15);
}

TEST(step_cosine_polynomial_invsqrt) {
    tta_lr_schedule s = parse("{\"type\": \"step\", \"base\": 0.1, \"milestones\": [30, 60], \"gamma\": 0.1}");
    CHECK_NEAR(tta_lr_at(&s, 29.9), 0.1, 1e-15);
    CHECK_NEAR(tta_lr_at(&s, 30), 0.01, 1e-15);
    CHECK_NEAR(tta_lr_at(&s, 75), 0.001, 1e-15);
    s = parse("{\"type\": \"cosine\", \"base\": 0.1, \"epochs\": 90}");
    CHECK_NEAR(tta_lr_at(&s, 0), 0.1, 1e-15);
    CHECK_NEAR(tta_lr_at(&s, 45), 0.05, 1e-15); /* cos(pi/2) = 0 */
    CHECK_NEAR(tta_lr_at(&s, 90), 0, 1e-15);
    s = parse("{\"type\": \"polynomial\", \"base\": 2.0, \"epochs\": 40, \"power\": 2, \"final\": 0.0001}");
    CHECK_NEAR(tta_lr_at(&s, 20), 0.0001 + (2.0 - 0.0001) * 0.25, 1e-12);
    s = parse("{\"type\": \"invsqrt\", \"base\": 1.0, \"warmup_epochs\": 4}");
    CHECK_NEAR(tta_lr_at(&s, 2), 2.0 / 8.0, 1e-12); /* e / w^1.5 = 2 / 8 */
    CHECK_NEAR(tta_lr_at(&s, 16), 0.25, 1e-12);     /* 1 / sqrt(16) */
}

TEST(warmup) {
    /* linear warm-up to the cosine's value at epoch 5 */
    tta_lr_schedule s = parse("{\"type\": \"cosine\", \"base\": 0.4, \"epochs\": 10, \"warmup_epochs\": 5}");
    double at5 = 0.5 * 0.4 * (1 + cos(M_PI * 0.5));
    CHECK_NEAR(tta_lr_at(&s, 2.5), at5 / 2, 1e-12);
    CHECK_NEAR(tta_lr_at(&s, 5), at5, 1e-12);
}

TEST(errors) {
    tta_lr_schedule s;
    char err[200];
    CHECK(tta_lr_schedule_parse("{\"type\": \"piecewiseLinear\", \"epochs\": [0, 2], \"values\": [0]}", &s, err,
                                sizeof err) == -1);
    CHECK_STR(err, "values: needs one value per epoch (2 epochs, 1 values)");
    CHECK(tta_lr_schedule_parse("{\"type\": \"piecewiseLinear\", \"epochs\": [0, 0], \"values\": [0, 1]}", &s, err,
                                sizeof err) == -1);
    CHECK_STR(err, "epochs: must increase");
    CHECK(tta_lr_schedule_parse("{\"type\": \"cosine\", \"epochs\": 90}", &s, err, sizeof err) == -1);
    CHECK_STR(err, "base: missing");
    CHECK(tta_lr_schedule_parse("{\"type\": \"exp\"}", &s, err, sizeof err) == -1);
    CHECK(strstr(err, "unknown schedule 'exp'") != NULL);
    CHECK(tta_lr_schedule_parse("[1, 2]", &s, err, sizeof err) == -1);
    CHECK(tta_lr_schedule_parse("{\"type\": \"invsqrt\", \"base\": 1}", &s, err, sizeof err) == -1);
    CHECK(strstr(err, "warmup_epochs") != NULL);
}

int main(void) {
    RUN(piecewise_linear_dawnbench);
    RUN(step_cosine_polynomial_invsqrt);
    RUN(warmup);
    RUN(errors);
    return test_summary();
}
