/* test_decompose.c: epochs x time-per-epoch variance decomposition against numpy (population
 * moments; reference_values.py). */
#include <math.h>

#include "stats/stats.h"
#include "tta_test.h"

TEST(three_runs) {
    double tta[] = {100, 110, 200}, epochs[] = {10, 10, 20};
    tta_decomposition d = tta_decompose(tta, epochs, 3);
    CHECK(d.n == 3 && d.reason == TTA_REASON_NONE && d.why == NULL);
    CHECK_NEAR(d.epochs_mean, 13.333333333333334, 1e-12);
    CHECK_NEAR(d.epochs_std, 4.714045207910316, 1e-12);
    CHECK_NEAR(d.tpe_mean, 10.333333333333334, 1e-12);
    CHECK_NEAR(d.tpe_std, 0.4714045207910317, 1e-12);
    CHECK_REL(d.cv_ratio, 7.749999999999998, 1e-12);
    CHECK_REL(d.log_share_epochs, 1.1345539000341571, 1e-10);
    CHECK_REL(d.log_share_tpe, 0.02145125910477194, 1e-10);
    CHECK_REL(d.log_share_cov, -0.15600515913892793, 1e-10);
    CHECK_NEAR(d.log_share_epochs + d.log_share_tpe + d.log_share_cov, 1.0, 1e-12);
}

TEST(five_runs) {
    double tta[] = {3600, 3900, 4100, 3500, 4400}, epochs[] = {40, 42, 44, 39, 46};
    tta_decomposition d = tta_decompose(tta, epochs, 5);
    CHECK(d.n == 5 && d.reason == TTA_REASON_NONE);
    CHECK_NEAR(d.epochs_mean, 42.2, 1e-12);
    CHECK_REL(d.epochs_std, 2.5612496949731396, 1e-12);
    CHECK_REL(d.tpe_mean, 92.28694493911885, 1e-12);
    CHECK_REL(d.tpe_std, 2.197701646645706, 1e-11);
    CHECK_REL(d.cv_ratio, 2.548654727500094, 1e-11);
    CHECK_REL(d.log_share_epochs, 0.520403504429533, 1e-10);
    CHECK_REL(d.log_share_tpe, 0.08044162144633771, 1e-10);
    CHECK_REL(d.log_share_cov, 0.39915487412412265, 1e-10);
}

TEST(missing_and_degenerate_runs) {
    /* identical runs: CV 0, ratio undefined, no variance to share */
    double same_t[] = {50, 50}, same_e[] = {5, 5};
    tta_decomposition d = tta_decompose(same_t, same_e, 2);
    CHECK(d.cv_epochs == 0 && d.cv_tpe == 0 && isnan(d.cv_ratio));
    CHECK(d.reason == TTA_IDENTICAL_VALUES && d.why != NULL && isnan(d.log_share_epochs));
    /* a run that never reached the target (NAN TTA) and one without epochs are left out */
    double t3[] = {100, 110, NAN, 300}, e3[] = {10, 11, 12, NAN};
    d = tta_decompose(t3, e3, 4);
    CHECK(d.n == 2 && d.cv_tpe == 0 && isnan(d.cv_ratio) && d.reason == TTA_IDENTICAL_VALUES);
    CHECK_NEAR(d.epochs_mean, 10.5, 1e-12);
    /* identical TTAs from different epochs: no variance to decompose, but the CV ratio exists */
    double flat_t[] = {100, 100, 100}, flat_e[] = {8, 10, 12.5};
    d = tta_decompose(flat_t, flat_e, 3);
    CHECK(d.reason == TTA_NO_VARIANCE && isnan(d.log_share_tpe));
    CHECK_NEAR(d.cv_ratio, 1.0, 1e-12); /* tpe 12.5 10 8: the same values as the epochs */
    double tta[] = {100, 110, 200}, epochs[] = {10, 10, 20};
    d = tta_decompose(tta, epochs, 1);
    CHECK(d.n == 1 && d.epochs_std == 0 && isnan(d.cv_ratio) && d.reason == TTA_ONE_VALUE);
    d = tta_decompose(tta, epochs, 0);
    CHECK(d.n == 0 && isnan(d.epochs_mean) && d.reason == TTA_NO_EPOCHS);
    double negative[] = {-1, 0};
    d = tta_decompose(negative, epochs, 2);
    CHECK(d.n == 0 && d.reason == TTA_NO_EPOCHS);
}

int main(void) {
    RUN(three_runs);
    RUN(five_runs);
    RUN(missing_and_degenerate_runs);
    return test_summary();
}
