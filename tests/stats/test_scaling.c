/* test_scaling.c: throughput versus TTA speedups and scaling efficiency, worked by hand. */
#include <math.h>

#include "stats/stats.h"
#include "tta_test.h"

TEST(speedup_gap) {
    /* 8 -> 64 accelerators: time per epoch 100 -> 16 (6.25x), score 4000 -> 1000 (4x) */
    tta_speedup s = tta_speedup_of(100, 4000, 16, 1000);
    CHECK_NEAR(s.throughput_speedup, 6.25, 1e-15);
    CHECK_NEAR(s.tta_speedup, 4.0, 1e-15);
    CHECK_NEAR(s.gap, 1.5625, 1e-15); /* TTA gains less than throughput: more epochs */
    s = tta_speedup_of(100, NAN, 16, 1000);
    CHECK(s.throughput_speedup == 6.25 && isnan(s.tta_speedup) && isnan(s.gap));
    s = tta_speedup_of(0, 4000, 16, -1);
    CHECK(isnan(s.throughput_speedup) && isnan(s.tta_speedup) && isnan(s.gap));
    CHECK_NEAR(tta_scaling_efficiency(6.25, 8, 64), 0.78125, 1e-15);
    CHECK(isnan(tta_scaling_efficiency(6.25, 0, 64)) && isnan(tta_scaling_efficiency(NAN, 8, 64)));
}

TEST(scaling_series) {
    /* 16, 8 (twice: the faster one is the base), 32 accelerators; the 32-accelerator TTA missing */
    double acc[] = {16, 8, 8, 32}, tpe[] = {50, 110, 100, 26}, tta[] = {2200, 4100, 4000, NAN};
    tta_scaling_point out[4];
    CHECK(tta_scaling_series(acc, tpe, tta, 4, out) == 2);
    CHECK_NEAR(out[0].acc_ratio, 2, 0);
    CHECK_NEAR(out[0].speedup_tpe, 2.0, 1e-15);
    CHECK_NEAR(out[0].speedup_tta, 4000.0 / 2200.0, 1e-15);
    CHECK_NEAR(out[0].efficiency_tpe, 1.0, 1e-15);
    CHECK_NEAR(out[0].efficiency_tta, 4000.0 / 2200.0 / 2, 1e-15);
    CHECK_NEAR(out[2].speedup_tpe, 1.0, 0);
    CHECK_NEAR(out[2].efficiency_tta, 1.0, 0);
    CHECK_NEAR(out[3].efficiency_tpe, 100.0 / 26.0 / 4, 1e-15);
    CHECK(isnan(out[3].speedup_tta) && isnan(out[3].efficiency_tta));
    double unknown[] = {0, NAN};
    CHECK(tta_scaling_series(unknown, tpe, tta, 2, out) == -1);
    CHECK(isnan(out[0].speedup_tpe) && isnan(out[1].acc_ratio));
}

int main(void) {
    RUN(speedup_gap);
    RUN(scaling_series);
    return test_summary();
}
