/* test_curves.c: quality curves across runs and threshold crossings, worked by hand. */
#include <math.h>

#include "stats/stats.h"
#include "tta_test.h"

TEST(quality_curve) {
    /* run 0 evaluates at epochs 1 2 3; run 1 at 1 2 2 4 (epoch 2 twice: its last value counts);
     * run 2 at 1 only (its other points miss an epoch or a quality). */
    double e0[] = {1, 2, 3}, q0[] = {0.5, 0.6, 0.7};
    double e1[] = {1, 2, 2, 4}, q1[] = {0.4, 0.55, 0.65, 0.8};
    double e2[] = {1, NAN, 3}, q2[] = {0.45, 0.9, NAN};
    const double *ep[] = {e0, e1, e2}, *q[] = {q0, q1, q2};
    size_t np[] = {3, 4, 3};
    tta_curve_stat out[10];
    size_t k = tta_quality_curve(ep, q, np, 3, out, 10);
    CHECK(k == 4);
    CHECK(out[0].epoch == 1 && out[0].n == 3);
    CHECK_NEAR(out[0].mean, 0.45, 1e-15);
    CHECK_NEAR(out[0].std, sqrt(0.005 / 3), 1e-15); /* deviations 0.05, -0.05, 0 */
    CHECK(out[1].epoch == 2 && out[1].n == 2);
    CHECK_NEAR(out[1].mean, 0.625, 1e-15);
    CHECK_NEAR(out[1].std, 0.025, 1e-15);
    CHECK(out[2].epoch == 3 && out[2].n == 1 && out[2].mean == 0.7 && out[2].std == 0);
    CHECK(out[3].epoch == 4 && out[3].n == 1 && out[3].mean == 0.8);
    CHECK(tta_quality_curve(ep, q, np, 3, out, 2) == 2 && out[1].epoch == 2);
    CHECK(tta_quality_curve(ep, q, np, 0, out, 10) == 0);
    size_t none[] = {0, 0, 0};
    CHECK(tta_quality_curve(ep, q, none, 3, out, 10) == 0);
}

TEST(threshold_crossings) {
    double time[] = {100, 200, 300, 400}, epoch[] = {1, 2, 3, 4}, q[] = {0.5, 0.7, 0.69, 0.75899994};
    double thresholds[] = {0.6, 0.7, 0.759, 0.8};
    tta_crossing c[4];
    tta_threshold_crossings(time, epoch, q, 4, thresholds, 4, 1, c);
    CHECK(c[0].index == 1 && c[0].time == 200 && c[0].epoch == 2);
    CHECK(c[1].index == 1 && c[1].time == 200);
    CHECK(c[2].index == 3 && c[2].time == 400 && c[2].epoch == 4); /* float32 0.759 meets 0.759 */
    CHECK(c[3].index == -1 && isnan(c[3].time) && isnan(c[3].epoch)); /* never reached */
    /* lower is better (a loss), epochs not logged */
    double loss[] = {3.0, 2.5, 2.1, 1.9}, targets[] = {2.5, 2.0};
    tta_threshold_crossings(time, NULL, loss, 4, targets, 2, 0, c);
    CHECK(c[0].index == 1 && c[0].time == 200 && isnan(c[0].epoch));
    CHECK(c[1].index == 3 && c[1].time == 400);
    CHECK(tta_first_meeting(q, 4, 0.7, 1) == 1 && tta_first_meeting(q, 0, 0.1, 1) == -1);
    double gaps[] = {NAN, 0.8};
    CHECK(tta_first_meeting(gaps, 2, 0.7, 1) == 1); /* a missing evaluation never meets */
}

int main(void) {
    RUN(quality_curve);
    RUN(threshold_crossings);
    return test_summary();
}
