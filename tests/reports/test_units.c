/* test_units.c: the reports' one quality scale and progress unit (reports/units.h), over the
 * built-in rules: a DAWNBench accuracy (stored in percent) and a replay's (round local, stored as a
 * fraction) meet on one scale with one target; MLPerf's fractions stay; BLEU and log perplexity are
 * as logged; the columns' kinds follow the selection; an evaluation's progress is read in the
 * benchmark's unit (epochs; samples by samples_count, or as epochs through the rules' training-set
 * size; tokens by epoch_num where the rules read it; none for steps). */
#include <math.h>
#include <string.h>

#include "reports/units.h"
#include "tta_test.h"

/* An entry as the loader gives it, with only what units.c reads. */
static tta_entry_data entry(const char *round, const char *ruleset, const char *benchmark, const char *metric,
                            double target, const char *unit, double train_set_size) {
    tta_entry_data e = {0};
    e.round = (char *)round;
    e.ruleset = (char *)ruleset;
    e.benchmark = (char *)benchmark;
    e.metric = (char *)metric;
    e.target = target;
    e.unit = (char *)unit;
    e.train_set_size = train_set_size;
    return e;
}

/* Each case: an entry, its stored target, the target in the common scale, accuracy-like or not,
 * the unit's name for scripts. */
TEST(one_scale_per_metric) {
    static const struct {
        const char *round, *ruleset, *benchmark, *metric;
        double stored, common;
        int accuracy;
        const char *unit;
    } cases[] = {
        {"dawnbench", "dawnbench", "fashion-mnist", "top1", 88.0, 0.88, 1, "fraction"},
        {"local", NULL, "fashion-mnist", NULL, 0.88, 0.88, 1, "fraction"},
        {"dawnbench", "dawnbench", "cifar10", "top1", 94.0, 0.94, 1, "fraction"},
        {"v0.5", "0.5.0", "resnet", "top1", 0.749, 0.749, 1, "fraction"},
        {"v0.6", "0.6.0", "resnet", "top1", 0.759, 0.759, 1, "fraction"},
        {"v0.5", "0.5.0", "gnmt", "BLEU", 21.8, 21.8, 0, "BLEU"},
        {"v5.1", "5.1.0", "llama31_8b", "log_perplexity", 3.3, 3.3, 0, "as logged"},
        {"v9.9", NULL, "nosuchbench", NULL, 7.0, 7.0, 0, "as logged"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tta_entry_data e = entry(cases[i].round, cases[i].ruleset, cases[i].benchmark, cases[i].metric,
                                 cases[i].stored, "epochs", NAN);
        tta_quality_view v = tta_entry_quality(&e);
        CHECK(tta_quality_common(&v, cases[i].stored) == cases[i].common);
        CHECK(v.accuracy == cases[i].accuracy);
        CHECK_STR(v.unit, cases[i].unit);
        CHECK(isnan(tta_quality_common(&v, NAN)));
    }
    /* a replay's metric is its benchmark's rule's */
    tta_entry_data replay = entry("local", NULL, "fashion-mnist", NULL, 0.88, "epochs", NAN);
    CHECK_STR(tta_entry_quality(&replay).metric, "top1");
}

/* A table of accuracies shows them in percent; any other metric among them: numbers and a unit. */
TEST(columns_follow_the_selection) {
    tta_entry_data e[2] = {entry("dawnbench", "dawnbench", "fashion-mnist", "top1", 88, "epochs", NAN),
                           entry("local", NULL, "fashion-mnist", NULL, 0.88, "epochs", NAN)};
    CHECK(tta_entries_all_accuracy(e, 2) == 1);
    CHECK(tta_entries_all_accuracy(e, 0) == 0);
    tta_column c = tta_quality_column("target", "target", "target (%)", 1, 1);
    CHECK(c.kind == TTA_COL_PERCENT);
    CHECK_STR(c.header, "target (%)");
    CHECK(tta_quality_unit_column(1).audience == TTA_FOR_SCRIPTS);
    char label[64];
    int pct;
    tta_quality_axis_label(e, 2, label, sizeof label, &pct);
    CHECK(pct == 1);
    CHECK_STR(label, "top1 (%)");
    e[1] = entry("v0.5", "0.5.0", "gnmt", "BLEU", 21.8, "epochs", NAN);
    CHECK(tta_entries_all_accuracy(e, 2) == 0);
    c = tta_quality_column("target", "target", "target (%)", 3, 0);
    CHECK(c.kind == TTA_COL_NUMBER);
    CHECK_STR(c.header, "target");
    CHECK(tta_quality_unit_column(0).audience == TTA_FOR_ALL);
    tta_quality_axis_label(&e[1], 1, label, sizeof label, &pct);
    CHECK(pct == 0);
    CHECK_STR(label, "BLEU (BLEU points)");
}

/* An evaluation's x in the benchmark's unit, and the unit's name. */
TEST(progress_in_the_benchmarks_unit) {
    tta_curve_point p = {.time_s = 60, .epoch = 12256, .samples = 12256, .quality = 5.6};
    /* llama31_8b counts samples, the rules give no epoch size: millions of samples */
    tta_entry_data llama = entry("v5.1", "5.1.0", "llama31_8b", "log_perplexity", 3.3, "samples", NAN);
    tta_progress_scale u = tta_entry_progress_scale(&llama);
    CHECK_NEAR(tta_eval_progress(&llama, &u, &p), 0.012256, 1e-12);
    CHECK_STR(tta_progress_unit_label(&u), "Msamples");
    CHECK_STR(u.key, "million_samples");
    /* a sample-counted benchmark whose evaluation logs no sample count has no progress there (an
     * epoch_num is no count: v0.7 BERT) */
    tta_entry_data bert = entry("v0.7", "0.7.0", "bert", "mlm_accuracy", 0.712, "samples", NAN);
    tta_curve_point google = {.epoch = 2000, .samples = NAN};
    u = tta_entry_progress_scale(&bert);
    CHECK(isnan(tta_eval_progress(&bert, &u, &google)));
    /* gpt3 reads epoch_num as tokens */
    tta_entry_data gpt3 = entry("v4.1", "4.1.0", "gpt3", "log_perplexity", 2.69, "tokens", NAN);
    tta_curve_point g = {.epoch = 50331648, .samples = NAN};
    u = tta_entry_progress_scale(&gpt3);
    CHECK_NEAR(tta_eval_progress(&gpt3, &u, &g), 50.331648, 1e-9);
    CHECK_STR(tta_progress_unit_label(&u), "Mtokens");
    /* samples with a training-set size: epochs */
    tta_entry_data lora = entry("v4.1", "4.1.0", "llama2_70b_lora", "eval_loss", 0.925, "samples", 3901);
    tta_curve_point l = {.epoch = NAN, .samples = 3901 * 2};
    u = tta_entry_progress_scale(&lora);
    CHECK_NEAR(tta_eval_progress(&lora, &u, &l), 2.0, 1e-12);
    CHECK_STR(tta_progress_unit_label(&u), "epochs");
    /* epochs */
    tta_entry_data resnet = entry("v0.7", "0.7.0", "resnet", "top1", 0.759, "epochs", NAN);
    tta_curve_point r = {.epoch = 4, .samples = NAN, .steps = NAN};
    u = tta_entry_progress_scale(&resnet);
    CHECK(tta_eval_progress(&resnet, &u, &r) == 4);
    /* MLPerf logs no step per evaluation (stable_diffusion's rule counts steps at the first passing one) */
    tta_entry_data sd = entry("v3.1", "3.1.0", "stable_diffusion", "FID", 90, "steps", NAN);
    u = tta_entry_progress_scale(&sd);
    CHECK(isnan(tta_eval_progress(&sd, &u, &r)));
    CHECK_STR(tta_progress_unit_label(&u), "steps");
    /* an AlgoPerf trial's evaluation carries its global_step */
    tta_entry_data ogbg = entry("algoperf-v0.5", NULL, "ogbg", "mean_average_precision", 0.28098, "steps", NAN);
    tta_curve_point a = {.epoch = NAN, .samples = NAN, .steps = 22796};
    u = tta_entry_progress_scale(&ogbg);
    CHECK(tta_eval_progress(&ogbg, &u, &a) == 22796);
    CHECK_STR(tta_progress_unit_label(&u), "steps");
}

int main(void) {
    RUN(one_scale_per_metric);
    RUN(columns_follow_the_selection);
    RUN(progress_in_the_benchmarks_unit);
    return test_summary();
}
