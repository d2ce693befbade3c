/* test_energy.c: energy to train as MLCommons' result summarizer computes it, against values worked
 * out by hand (each case says its arithmetic). The values would change if a reading stood for the
 * interval after it instead of before, if the window ended at the last reading instead of the stop,
 * if the efficiency were left out or taken from the file's order, or if the runs averaged were
 * chosen by energy instead of by time. The real logs are compared with the summarizer itself in
 * tests/cli/report_energy.sh. */
#include <math.h>

#include "stats/stats.h"
#include "tta_test.h"

#define R TTA_POWER_READING
#define START TTA_POWER_START
#define STOP TTA_POWER_STOP
#define EFF TTA_POWER_CONVERSION_EFF
#define EST TTA_POWER_INTERCONNECT_EST
#define N(a) (sizeof(a) / sizeof((a)[0]))

TEST(node_energy_backward_rectangles_over_the_window) {
    /* readings 1000 W at 101, 2000 W at 103, 500 W at 107 after a start at 100: each stands for the
     * interval before it: 1000 x 1 + 2000 x 2 + 500 x 4 = 7000 W s over the window 110 - 100 = 10 s:
     * 700 W, x 0.9 = 630 W, x 20 s = 12600 J. (Forward rectangles: 11500 W s; the window to the last
     * reading, 7 s: 1000 W; no efficiency: 14000 J.) */
    tta_power_event ev[] = {{100, NAN, START}, {100, 0.9, EFF}, {101, 1000, R},
                            {103, 2000, R},    {107, 500, R},   {110, NAN, STOP}};
    tta_node_energy e = tta_power_node_energy(ev, N(ev), 20);
    CHECK(e.status == TTA_ENERGY_OK && e.why == NULL);
    CHECK_NEAR(e.avg_power_w, 630, 1e-9);
    CHECK_NEAR(e.energy_j, 12600, 1e-9);
    CHECK_NEAR(e.window_s, 10, 0);
    CHECK_NEAR(e.conversion_eff, 0.9, 0);
    CHECK(e.readings == 3 && e.stop_found);
}

TEST(node_energy_sorts_by_time_and_keeps_the_window) {
    /* In time order: eff 0.8 at 50, 9999 W at 99 (before the start: out), start 100, 100 W at 102
     * (x 2), 300 W at 104 (x 2; it came first in the file), stop 106, 5000 W at 108 (after the stop:
     * out), eff 0.5 at 200 (the last in time order, though not in the file). 800 W s / 6 s x 0.5 =
     * 66.67 W, x 3 s = 200 J. */
    tta_power_event ev[] = {{99, 9999, R},  {104, 300, R},     {100, NAN, START}, {102, 100, R},
                            {106, NAN, STOP}, {108, 5000, R}, {200, 0.5, EFF},    {50, 0.8, EFF}};
    tta_node_energy e = tta_power_node_energy(ev, N(ev), 3);
    CHECK(e.status == TTA_ENERGY_OK);
    CHECK_NEAR(e.avg_power_w, 0.5 * 800.0 / 6.0, 1e-12);
    CHECK_NEAR(e.energy_j, 200, 1e-9);
    CHECK(e.readings == 2);
    /* A reading at the start's time but before it in the file comes before it (a stable sort). */
    tta_power_event tie[] = {{100, 7000, R}, {100, NAN, START}, {101, 10, R}, {102, NAN, STOP}};
    e = tta_power_node_energy(tie, N(tie), 4);
    CHECK(e.readings == 1);
    CHECK_NEAR(e.energy_j, 10.0 / 2.0 * 4, 1e-12);
}

TEST(node_energy_restarts_stops_and_no_stop) {
    /* A second start restarts the window and the next reading's interval: 100 x 1 + 200 x 1 over
     * 10 - 5 s = 60 W. */
    tta_power_event restart[] = {{0, NAN, START}, {1, 100, R}, {5, NAN, START}, {6, 200, R}, {10, NAN, STOP}};
    tta_node_energy e = tta_power_node_energy(restart, N(restart), 10);
    CHECK_NEAR(e.avg_power_w, 60, 1e-12);
    CHECK_NEAR(e.energy_j, 600, 1e-9);
    /* Readings end at the first stop; the window at the last: 10 x 1 over 4 s. */
    tta_power_event two_stops[] = {{0, NAN, START}, {1, 10, R}, {2, NAN, STOP}, {3, 1000, R}, {4, NAN, STOP}};
    e = tta_power_node_energy(two_stops, N(two_stops), 1);
    CHECK_NEAR(e.avg_power_w, 2.5, 1e-12);
    /* No stop: the latest reading ends the window: (100 x 1 + 200 x 2) / 3 s, x 6 s = 1000 J. */
    tta_power_event no_stop[] = {{0, NAN, START}, {1, 100, R}, {3, 200, R}};
    e = tta_power_node_energy(no_stop, N(no_stop), 6);
    CHECK(e.status == TTA_ENERGY_OK && !e.stop_found);
    CHECK_NEAR(e.energy_j, 1000, 1e-9);
    /* A window without readings: 0 W, 0 J (as the summarizer). */
    tta_power_event none[] = {{0, NAN, START}, {5, NAN, STOP}};
    e = tta_power_node_energy(none, N(none), 6);
    CHECK(e.status == TTA_ENERGY_OK && e.readings == 0 && e.energy_j == 0);
}

TEST(node_energy_where_the_summarizer_stops) {
    tta_power_event no_start[] = {{1, 100, R}, {2, NAN, STOP}};
    tta_node_energy e = tta_power_node_energy(no_start, N(no_start), 10);
    CHECK(e.status == TTA_ENERGY_NO_START && isnan(e.energy_j) && e.why != NULL);
    /* stop == start: the summarizer divides by zero */
    tta_power_event empty[] = {{5, NAN, START}, {5, 100, R}, {5, NAN, STOP}};
    e = tta_power_node_energy(empty, N(empty), 10);
    CHECK(e.status == TTA_ENERGY_EMPTY_WINDOW && isnan(e.energy_j));
    /* stop before start; and no stop and no reading (the window would end at time 0) */
    tta_power_event before[] = {{5, NAN, START}, {6, 100, R}, {4, NAN, STOP}};
    CHECK(tta_power_node_energy(before, N(before), 10).status == TTA_ENERGY_EMPTY_WINDOW);
    tta_power_event lone[] = {{5, NAN, START}};
    CHECK(tta_power_node_energy(lone, N(lone), 10).status == TTA_ENERGY_EMPTY_WINDOW);
    tta_power_event nan_reading[] = {{0, NAN, START}, {1, NAN, R}, {2, NAN, STOP}};
    CHECK(tta_power_node_energy(nan_reading, N(nan_reading), 10).status == TTA_ENERGY_BAD_VALUE);
    tta_power_event nan_eff[] = {{0, NAN, START}, {0, NAN, EFF}, {1, 5, R}, {2, NAN, STOP}};
    CHECK(tta_power_node_energy(nan_eff, N(nan_eff), 10).status == TTA_ENERGY_BAD_VALUE);
    tta_power_event ok[] = {{0, NAN, START}, {1, 5, R}, {2, NAN, STOP}};
    e = tta_power_node_energy(ok, N(ok), NAN);
    CHECK(e.status == TTA_ENERGY_NO_TIME && isnan(e.energy_j));
    CHECK_NEAR(e.avg_power_w, 2.5, 1e-12);
}

TEST(switch_energy_from_the_first_estimate) {
    /* In file order: eff 0.9, estimate 50 W; what follows is not read: 0.9 x 50 x 10 s = 450 J. */
    tta_power_event ev[] = {{9, 0.9, EFF}, {10, 50, EST}, {1, 0.1, EFF}, {11, 70, EST}};
    tta_switch_energy s = tta_power_switch_energy(ev, N(ev), 10);
    CHECK(s.status == TTA_ENERGY_OK && s.has_estimate && isnan(s.measured_j));
    CHECK_NEAR(s.energy_j, 450, 1e-9);
    /* Measured readings only (Dell's v4.1 switch logs): 0 J, and the readings apart:
     * (600 x 1 + 800 x 1) / 2 s x 0.9 x 10 s = 6300 J. */
    tta_power_event measured[] = {{0, NAN, START}, {0, 0.9, EFF}, {1, 600, R}, {2, 800, R}, {2, NAN, STOP}};
    s = tta_power_switch_energy(measured, N(measured), 10);
    CHECK(s.status == TTA_ENERGY_OK && !s.has_estimate && s.energy_j == 0);
    CHECK_NEAR(s.measured_j, 6300, 1e-9);
    tta_power_event nan_est[] = {{10, NAN, EST}};
    CHECK(tta_power_switch_energy(nan_est, 1, 10).status == TTA_ENERGY_BAD_VALUE);
}

TEST(run_energy_sums_nodes_and_switches) {
    tta_power_event n0[] = {{0, NAN, START}, {1, 100, R}, {2, 300, R}, {2, NAN, STOP}}; /* 200 W */
    tta_power_event n1[] = {{0, NAN, START}, {0, 0.5, EFF}, {4, 100, R}, {4, NAN, STOP}}; /* 50 W */
    tta_power_event sw[] = {{0, 0.8, EFF}, {0, 25, EST}};                              /* 20 W */
    tta_power_event swm[] = {{0, NAN, START}, {3, 40, R}, {3, NAN, STOP}};             /* 40 W measured */
    tta_power_log logs[] = {{sw, N(sw), 1}, {n0, N(n0), 0}, {swm, N(swm), 1}, {n1, N(n1), 0}};
    tta_run_energy r = tta_run_energy_of(logs, N(logs), 10);
    CHECK(r.status == TTA_ENERGY_OK && r.nodes == 2 && r.switches == 2 && r.no_estimate == 1 && r.no_stop == 0);
    CHECK_NEAR(r.node_j, 2500, 1e-9);
    CHECK_NEAR(r.interconnect_j, 200, 1e-9);
    CHECK_NEAR(r.energy_j, 2700, 1e-9);
    CHECK_NEAR(r.avg_power_w, 270, 1e-9);
    CHECK_NEAR(r.interconnect_measured_j, 400, 1e-9);
    /* Only switches: the summarizer's assertion; a node that fails names itself. */
    CHECK(tta_run_energy_of(logs, 1, 10).status == TTA_ENERGY_NO_NODE_LOG);
    tta_power_event bad[] = {{1, 100, R}};
    tta_power_log with_bad[] = {{n0, N(n0), 0}, {bad, N(bad), 0}};
    r = tta_run_energy_of(with_bad, 2, 10);
    CHECK(r.status == TTA_ENERGY_NO_START && r.bad_log == 1 && isnan(r.energy_j) && r.why != NULL);
}

/* A run whose energy is e joules. */
static tta_run_energy run_of(double e) {
    return (tta_run_energy){.energy_j = e, .node_j = e - 1, .interconnect_j = 1, .status = TTA_ENERGY_OK};
}

TEST(energy_score_averages_the_runs_of_the_time_slice) {
    /* Times 50 10 30 20 40; by time the runs are 1 3 2 4 0 and the score averages 3 2 4 (20 30 40):
     * energies 900 310 420, mean 543.33, x 1.5 = 815. (By energy it would be 310 420 500.) */
    double t[] = {50, 10, 30, 20, 40};
    int ok[] = {1, 1, 1, 1, 1};
    tta_run_energy e[] = {run_of(500), run_of(100), run_of(310), run_of(900), run_of(420)};
    int used[5];
    tta_energy_score s = tta_energy_score_of(t, ok, e, 5, "resnet", "v4.1", 1.5, used);
    CHECK(s.status == TTA_ENERGY_OK && s.why == NULL && s.n_used == 3 && s.runs_with_energy == 5);
    CHECK_NEAR(s.energy_unscaled_j, 1630.0 / 3.0, 1e-9);
    CHECK_NEAR(s.energy_j, 815, 1e-9);
    CHECK_NEAR(s.node_j, (1630.0 - 3) / 3 * 1.5, 1e-9);
    CHECK_NEAR(s.interconnect_j, 1.5, 1e-12);
    CHECK_NEAR(s.avg_power_w, 1630.0 / 90.0, 1e-12);
    CHECK_NEAR(s.score.score, 30, 1e-12);
    CHECK(!used[0] && !used[1] && used[2] && used[3] && used[4]);
    /* The run of 40 failed: successes by time 10 20 30 50, slice [1 : 4]: 900 310 500. */
    int one_failed[] = {1, 1, 1, 1, 0};
    s = tta_energy_score_of(t, one_failed, e, 5, "resnet", "v4.1", 1, used);
    CHECK_NEAR(s.energy_j, 570, 1e-9);
    CHECK(used[0] && !used[1] && used[2] && used[3] && !used[4]);
}

TEST(energy_score_missing_values) {
    double t[] = {50, 10, 30, 20, 40};
    int ok[] = {1, 1, 1, 1, 1};
    tta_run_energy e[] = {run_of(500), run_of(100), run_of(310), run_of(900), run_of(420)};
    /* The fastest run (not averaged) without energy: the score stands. */
    e[1] = (tta_run_energy){.energy_j = NAN, .status = TTA_ENERGY_NO_START};
    tta_energy_score s = tta_energy_score_of(t, ok, e, 5, "resnet", "v4.1", 1, NULL);
    CHECK(s.status == TTA_ENERGY_OK && s.runs_with_energy == 4);
    CHECK_NEAR(s.energy_j, 1630.0 / 3.0, 1e-9);
    /* A run of the slice without energy: none, naming the run. */
    e[2] = (tta_run_energy){.energy_j = NAN, .status = TTA_ENERGY_EMPTY_WINDOW};
    s = tta_energy_score_of(t, ok, e, 5, "resnet", "v4.1", 1, NULL);
    CHECK(s.status == TTA_ENERGY_RUN_MISSING && s.missing_run == 2 && isnan(s.energy_j) && s.why != NULL);
    /* Two failed runs: no performance score, so no energy score; its reason is the score's. */
    int two_failed[] = {0, 1, 0, 1, 1};
    s = tta_energy_score_of(t, two_failed, e, 5, "resnet", "v4.1", 1, NULL);
    CHECK(s.status == TTA_ENERGY_NO_SCORE && s.score.reason == TTA_TOO_MANY_FAILED && s.why == s.score.why);
    e[2] = run_of(310);
    s = tta_energy_score_of(t, ok, e, 5, "resnet", "v4.1", NAN, NULL);
    CHECK(s.status == TTA_ENERGY_BAD_VALUE && isnan(s.energy_j));
}

TEST(energy_score_refuses_another_slice) {
    /* v0.5 NCF scores the first 50 converged runs in run order (runs 0-49, times 100-149), not the
     * slice of the fastest: the energy score says so instead of averaging other runs. */
    double t[52];
    int ok[52];
    tta_run_energy e[52];
    for (int i = 0; i < 52; i++) {
        t[i] = i < 50 ? 100 + i : i - 49;
        ok[i] = 1;
        e[i] = run_of(1000);
    }
    tta_energy_score s = tta_energy_score_of(t, ok, e, 52, "ncf", "v0.5", 1, NULL);
    CHECK(s.status == TTA_ENERGY_OTHER_SLICE && isnan(s.energy_j));
    s = tta_energy_score_of(t, ok, e, 52, "ncf", "v0.7", 1, NULL); /* no NCF rule: the summarizer's slice */
    CHECK(s.status == TTA_ENERGY_OK && s.n_used == 50);
    CHECK_NEAR(s.energy_j, 1000, 1e-9);
}

int main(void) {
    RUN(node_energy_backward_rectangles_over_the_window);
    RUN(node_energy_sorts_by_time_and_keeps_the_window);
    RUN(node_energy_restarts_stops_and_no_stop);
    RUN(node_energy_where_the_summarizer_stops);
    RUN(switch_energy_from_the_first_estimate);
    RUN(run_energy_sums_nodes_and_switches);
    RUN(energy_score_averages_the_runs_of_the_time_slice);
    RUN(energy_score_missing_values);
    RUN(energy_score_refuses_another_slice);
    return test_summary();
}
