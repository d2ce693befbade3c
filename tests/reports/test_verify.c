/* test_verify.c: verify's comparison (reports/verify.c) on hand-made sides: the verdict (Welch's
 * test, and the cases it cannot decide: fewer than two runs, or no spread on either side), and a side
 * read from evaluation curves (first epoch at the threshold, the compared epoch, percentages,
 * unseen accuracy and gap). */
#include <math.h>
#include <string.h>

#include "reports/builders.h"
#include "reports/render.h"
#include "reports/reports.h"
#include "tta_test.h"

static tta_verify_sample sample(const double *v, size_t n) {
    tta_verify_sample s = {0};
    for (size_t i = 0; i < n; i++) tta_verify_add(&s, v[i]);
    return s;
}

/* Two sides of runs runs each, all reaching, with the given epochs and validation accuracies. */
static void sides(tta_verify_side *claim, tta_verify_side *replay, const double *ce, const double *re,
                  const double *cv, const double *rv, size_t nc, size_t nr) {
    memset(claim, 0, sizeof *claim);
    memset(replay, 0, sizeof *replay);
    claim->runs = claim->reached = (int)nc;
    replay->runs = replay->reached = (int)nr;
    claim->epochs = sample(ce, nc);
    replay->epochs = sample(re, nr);
    claim->val = sample(cv, nc);
    replay->val = sample(rv, nr);
}

TEST(verdict_without_spread) {
    tta_verify_context c = {.threshold = 0.5, .compared_epoch = 15, .schedule_epochs = 15};
    tta_verify_side a, b;
    char text[TTA_VERIFY_VERDICT_MAX];
    /* every run reaches the threshold at epoch 1 on both sides: Welch's t is undefined, yet the
     * epochs are the same; the accuracies do not differ (p > 0.05) */
    sides(&a, &b, (double[]){1, 1, 1}, (double[]){1, 1}, (double[]){0.90, 0.91, 0.92}, (double[]){0.905, 0.915}, 3, 2);
    CHECK(!strcmp(tta_verify_verdict(&c, &a, &b, text, sizeof text),
                  "reproduced: as many epochs to the threshold and the same final accuracy as claimed"));
    /* no spread and different epochs: they differ */
    sides(&a, &b, (double[]){1, 1, 1}, (double[]){2, 2}, (double[]){0.90, 0.91, 0.92}, (double[]){0.905, 0.915}, 3, 2);
    CHECK(!strcmp(tta_verify_verdict(&c, &a, &b, text, sizeof text),
                  "partly reproduced: the threshold is reached, in a different number of epochs than claimed"));
    /* capped: the accuracy compared is not the final one */
    c.epoch_cap = c.compared_epoch = 3;
    sides(&a, &b, (double[]){1, 1, 1}, (double[]){1, 1}, (double[]){0.90, 0.91, 0.92}, (double[]){0.70, 0.71}, 3, 2);
    CHECK(!strcmp(tta_verify_verdict(&c, &a, &b, text, sizeof text),
                  "partly reproduced: the accuracy at the compared epoch differs from the claim's"));
}

TEST(verdict_untested_and_missing) {
    tta_verify_context c = {.threshold = 0.5, .compared_epoch = 15, .schedule_epochs = 15};
    tta_verify_side a, b;
    char text[TTA_VERIFY_VERDICT_MAX];
    sides(&a, &b, (double[]){1, 2, 1}, (double[]){1}, (double[]){0.90, 0.91, 0.92}, (double[]){0.905}, 3, 1);
    CHECK(!strcmp(tta_verify_verdict(&c, &a, &b, text, sizeof text), "consistent with the claim, untested: fewer than 2 runs on a side"));
    b.reached = 0;
    CHECK(!strcmp(tta_verify_verdict(&c, &a, &b, text, sizeof text), "not reproduced: no replay reached the threshold"));
    b.runs = 0;
    CHECK(!strcmp(tta_verify_verdict(&c, &a, &b, text, sizeof text), "not verified: no replay finished"));
    /* some replays missed: partly */
    sides(&a, &b, (double[]){1, 2, 1}, (double[]){1, 2}, (double[]){0.90, 0.91, 0.92}, (double[]){0.905, 0.91}, 3, 2);
    b.runs = 3;
    CHECK(!strcmp(tta_verify_verdict(&c, &a, &b, text, sizeof text), "partly reproduced: some replays missed the threshold"));
}

/* Capped below the claim's epochs to the threshold: inconclusive, not "not reproduced"; capped
 * after them, a miss is a miss. */
TEST(verdict_capped_is_inconclusive) {
    tta_verify_context c = {.threshold = 0.88, .compared_epoch = 3, .schedule_epochs = 15, .epoch_cap = 3};
    tta_verify_side a, b;
    char text[TTA_VERIFY_VERDICT_MAX];
    sides(&a, &b, (double[]){8, 9, 8}, (double[]){0}, (double[]){0.86, 0.86, 0.86}, (double[]){0.85}, 3, 1);
    b.epochs.n = 0;
    b.reached = 0;
    CHECK(!strcmp(tta_verify_verdict(&c, &a, &b, text, sizeof text),
                  "inconclusive: capped at epoch 3, the claim reached the target at epoch 8"));
    c.epoch_cap = c.compared_epoch = 10;
    CHECK(!strcmp(tta_verify_verdict(&c, &a, &b, text, sizeof text), "not reproduced: no replay reached the threshold"));
}

/* The rows for people: the test column says why there is no p. */
TEST(table_says_why_no_test) {
    tta_verify_context c = {.claim_name = "claim", .threshold = 0.5, .compared_epoch = 15, .schedule_epochs = 15,
                            .claim_entry_id = 1, .replay_entry_id = 2};
    tta_verify_side a, b;
    sides(&a, &b, (double[]){1, 1, 1}, (double[]){2, 2}, (double[]){0.90, 0.91, 0.92}, (double[]){0.905, 0.915}, 3, 2);
    buf out = {0};
    tta_verify_write(&c, &a, &b, TTA_FORMAT_CSV, &out);
    CHECK(strstr(buf_str(&out), "epochs to 50.0%,epochs,\"no test: no spread, values differ\"") != NULL);
    CHECK(strstr(buf_str(&out), ",1,2,0.5,schedule,15,") != NULL); /* ids, threshold, mode, compared epoch */
    buf_free(&out);
}

/* The verify table's measures, values and tests are never cut, however narrow the terminal (its
 * notes, such as "no test: no spread, values differ", read whole), and into a pipe (ctest's stdout)
 * tta_verify_write lays it out whole. */
TEST(table_never_cuts_notes) {
    tta_verify_context c = {.claim_name = "claim", .threshold = 0.5, .compared_epoch = 15, .schedule_epochs = 15,
                            .claim_entry_id = 1, .replay_entry_id = 2};
    tta_verify_side a, b;
    sides(&a, &b, (double[]){1, 1, 1}, (double[]){2, 2}, (double[]){0.90, 0.91, 0.92}, (double[]){0.905, 0.915}, 3, 2);
    tta_table *t = tta_verify_table(&c, &a, &b);
    tta_text_options o = {.max_width = 40};
    buf out = {0};
    tta_table_render(t, TTA_OUT_TABLE, &o, &out);
    CHECK(strstr(buf_str(&out), "…") == NULL);
    CHECK(strstr(buf_str(&out), "no test: no spread, values differ") != NULL);
    tta_table_free(t);
    buf_clear(&out);
    tta_verify_write(&c, &a, &b, TTA_FORMAT_TABLE, &out);
    CHECK(strstr(buf_str(&out), "…") == NULL);
    CHECK(strstr(buf_str(&out), "generalization gap (val - unseen)") != NULL);
    buf_free(&out);
}

TEST(curve_side) {
    /* two DAWNBench-like runs in percent: qualities 80, 88.5, 90 and 87, 89, 91 at epochs 1-3, times 10 s/epoch */
    tta_curve_point p1[3] = {{.epoch = 1, .time_s = 10, .quality = 80}, {.epoch = 2, .time_s = 20, .quality = 88.5},
                             {.epoch = 3, .time_s = 30, .quality = 90}};
    tta_curve_point p2[3] = {{.epoch = 1, .time_s = 11, .quality = 87}, {.epoch = 2, .time_s = 22, .quality = 89},
                             {.epoch = 3, .time_s = 33, .quality = 91}};
    tta_run_data r1 = {.curve = p1, .n_curve = 3}, r2 = {.curve = p2, .n_curve = 3};
    const tta_run_data *runs[2] = {&r1, &r2};
    double unseen[2] = {89, 0.9}, shifted[2] = {NAN, 0.7}; /* a percentage and a fraction */
    tta_verify_side s;
    tta_verify_curve_side(runs, 2, 0.01, 0.88, 2, unseen, shifted, &s);
    CHECK(s.runs == 2 && s.reached == 2 && s.last_epoch == 3);
    CHECK(s.epochs.n == 2 && s.epochs.v[0] == 2 && s.epochs.v[1] == 2); /* 88.5 and 89 meet 88 at epoch 2 */
    CHECK_NEAR(s.tta_s.v[0], 20, 1e-12);
    CHECK(s.val.n == 2);
    CHECK_NEAR(s.val.v[0], 0.885, 1e-12); /* at epoch 2 */
    CHECK_NEAR(s.s_per_epoch.v[1], 11, 1e-12);
    CHECK(s.unseen.n == 2);
    CHECK_NEAR(s.unseen.v[0], 0.89, 1e-12);
    CHECK_NEAR(s.gap.v[1], 0.91 - 0.9, 1e-12); /* the last epoch's validation - unseen */
    CHECK(s.shifted.n == 1);
    /* at the threshold (-1): the validation accuracy where each run met it; 0: the last */
    tta_verify_curve_side(runs, 2, 0.01, 0.88, -1, unseen, shifted, &s);
    CHECK_NEAR(s.val.v[1], 0.89, 1e-12);
    tta_verify_curve_side(runs, 2, 0.01, 0.95, 0, unseen, shifted, &s);
    CHECK(s.reached == 0 && s.epochs.n == 0 && s.val.n == 2);
    CHECK_NEAR(s.val.v[0], 0.90, 1e-12);
}

int main(void) {
    RUN(verdict_without_spread);
    RUN(verdict_untested_and_missing);
    RUN(verdict_capped_is_inconclusive);
    RUN(table_says_why_no_test);
    RUN(table_never_cuts_notes);
    RUN(curve_side);
    return test_summary();
}
