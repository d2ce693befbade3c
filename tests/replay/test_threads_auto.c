/* test_threads_auto.c: `--threads auto`'s reading of /proc and its decision (replay/threads_auto.h),
 * on synthetic /proc/stat and /proc/self/stat text; then one real reading of this machine. */
#include <string.h>
#include <unistd.h>

#include "replay/threads_auto.h"
#include "tta_test.h"

/* /proc/stat's first lines with the "cpu " totals given; /proc/self/stat with utime and stime
 * (a command name holding ") " and spaces, as a process may name itself). */
static tta_cpu_sample sample(unsigned long long user, unsigned long long sys, unsigned long long idle,
                             unsigned long long iowait, unsigned long long utime, unsigned long long stime,
                             double wall) {
    char st[512], self[512];
    snprintf(st, sizeof st,
             "cpu  %llu 0 %llu %llu %llu 0 0 0 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\nintr 12345\nctxt 99\n", user, sys, idle,
             iowait);
    snprintf(self, sizeof self,
             "4242 (tta ) x (y) S 1 4242 4242 0 -1 4194304 1000 0 0 0 %llu %llu 0 0 20 0 3 0 100 1 1 18446744073709551615",
             utime, stime);
    tta_cpu_sample s = {.wall_s = wall};
    CHECK(tta_cpu_sample_parse(st, self, NULL, &s) == 0);
    return s;
}

TEST(parse) {
    tta_cpu_sample s = sample(1000, 200, 5000, 300, 70, 30, 1.0);
    CHECK(s.all == 6500);
    CHECK(s.busy == 1200); /* idle and iowait are not busy */
    CHECK(s.self == 100);
    CHECK(s.wall_s == 1.0);
    /* the cpu line may come after others; a kernel with 4 fields only */
    tta_cpu_sample t;
    const char *me = "1 (a) R 0 0 0 0 0 0 0 0 0 0 7 3";
    CHECK(tta_cpu_sample_parse("intr 1\ncpu  10 0 5 85\n", me, NULL, &t) == 0);
    CHECK(t.all == 100 && t.busy == 15 && t.self == 10);
    /* what is not /proc text is refused */
    CHECK(tta_cpu_sample_parse("cpu0 1 2 3 4\n", me, NULL, &t) == -1);
    CHECK(tta_cpu_sample_parse("cpu  1 2 3 4\n", "1 a R 0", NULL, &t) == -1);
    CHECK(tta_cpu_sample_parse("cpu  1 2 3 4\n", "1 (a) R 0 0", NULL, &t) == -1);
    CHECK(tta_cpu_sample_parse("", "", NULL, &t) == -1);
}

TEST(affinity_mask) {
    /* 4 CPUs, this process on CPUs 1 and 3 (taskset -c 1,3): only their lines count */
    const char *st = "cpu  1000 0 1000 6000 0 0 0 0 0 0\n"
                     "cpu0 400 0 100 1000 0 0 0 0 0 0\ncpu1 100 0 100 1800 0 0 0 0 0 0\n"
                     "cpu2 400 0 700 400 0 0 0 0 0 0\ncpu3 100 0 100 1800 0 0 0 0 0 0\nintr 5\n";
    const char *me = "7 (tta) R 0 0 0 0 0 0 0 0 0 0 150 50";
    tta_cpu_mask m = {0};
    m.on[1] = m.on[3] = 1;
    m.n = 2;
    tta_cpu_sample t;
    CHECK(tta_cpu_sample_parse(st, me, &m, &t) == 0);
    CHECK(t.all == 4000 && t.busy == 400 && t.self == 200);
    /* a CPU of the mask without its line (text cut short): no reading */
    m.on[5] = 1;
    m.n = 3;
    CHECK(tta_cpu_sample_parse(st, me, &m, &t) == -1);
    /* others held cores on CPUs 0 and 2 only: on ours, nobody but us */
    tta_cpu_sample a = {.all = 4000, .busy = 400, .self = 200},
                   b = {.all = 4200, .busy = 600, .self = 400}; /* we used all 200 busy jiffies */
    CHECK_NEAR(tta_cpu_others(&a, &b, 2), 0.0, 1e-12);
    /* this process's own mask: at least one CPU */
    tta_cpu_mask self;
    tta_cpu_mask_self(&self);
    CHECK(self.n >= 1);
}

TEST(others) {
    /* 2 CPUs, one second = 200 jiffies: we used 100 (one thread), the machine 190 busy in all:
     * others held 90 of 200 jiffies = 0.9 of a core */
    tta_cpu_sample a = sample(1000, 0, 1000, 0, 500, 0, 0), b = sample(1190, 0, 1010, 0, 600, 0, 1);
    CHECK_NEAR(tta_cpu_others(&a, &b, 2), 0.9, 1e-12);
    /* a quiet machine: all busy time is ours */
    b = sample(1180, 0, 1020, 0, 680, 0, 1);
    CHECK_NEAR(tta_cpu_others(&a, &b, 2), 0.0, 1e-12);
    /* no jiffy elapsed: no reading */
    CHECK(tta_cpu_others(&a, &a, 2) < 0);
    /* our ticks counted a little ahead of the machine's (different sampling): never below 0 */
    b = sample(1100, 0, 1100, 0, 610, 0, 1);
    CHECK(tta_cpu_others(&a, &b, 2) == 0.0);
}

TEST(decide) {
    /* 2 CPUs, up to 2 threads */
    CHECK(tta_threads_decide(0.0, 2, 2, 2) == 2);  /* quiet */
    CHECK(tta_threads_decide(0.5, 2, 2, 2) == 2);  /* inside the dead band */
    CHECK(tta_threads_decide(0.59, 2, 2, 2) == 2);
    CHECK(tta_threads_decide(0.67, 2, 2, 2) == 1); /* one busy neighbour beside our 2 threads: its fair share */
    CHECK(tta_threads_decide(1.0, 2, 2, 2) == 1);
    CHECK(tta_threads_decide(2.0, 2, 2, 2) == 1);  /* never below one */
    CHECK(tta_threads_decide(1.0, 1, 2, 2) == 1);  /* the neighbour stays: so do we */
    CHECK(tta_threads_decide(0.45, 1, 2, 2) == 1); /* dead band on the way up too */
    CHECK(tta_threads_decide(0.35, 1, 2, 2) == 2); /* it left: back up */
    CHECK(tta_threads_decide(-1, 1, 2, 2) == 1);   /* no reading: keep */
    CHECK(tta_threads_decide(-1, 2, 2, 2) == 2);
    /* 16 CPUs, up to 8 threads: the 8 we leave free absorb others first */
    CHECK(tta_threads_decide(7.5, 8, 8, 16) == 8);
    CHECK(tta_threads_decide(10.0, 8, 8, 16) == 6);
    CHECK(tta_threads_decide(10.0, 6, 8, 16) == 6);
    CHECK(tta_threads_decide(16.0, 6, 8, 16) == 1);
    CHECK(tta_threads_decide(3.0, 1, 8, 16) == 8);
    /* one CPU: always one */
    CHECK(tta_threads_decide(0.9, 1, 1, 1) == 1);
}

TEST(this_machine) {
    tta_cpu_sample a, b;
    tta_cpu_mask m;
    tta_cpu_mask_self(&m);
    if (tta_cpu_sample_read(&m, &a) != 0) {
        printf("  (no /proc: skipped the live reading)\n");
        return;
    }
    usleep(50000);
    CHECK(tta_cpu_sample_read(&m, &b) == 0);
    CHECK(b.wall_s > a.wall_s && b.all >= a.all && b.busy >= a.busy && b.self >= a.self);
    double o = tta_cpu_others(&a, &b, m.n);
    CHECK(o == -1 || (o >= 0 && o <= m.n));
}

int main(void) {
    RUN(parse);
    RUN(others);
    RUN(affinity_mask);
    RUN(decide);
    RUN(this_machine);
    return test_summary();
}
