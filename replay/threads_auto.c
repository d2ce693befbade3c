/* threads_auto.c: threads chosen by the load (see threads_auto.h). */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "replay/threads_auto.h"

int tta_cpu_sample_parse(const char *proc_stat, const char *self_stat, tta_cpu_sample *out) {
    assert(proc_stat && self_stat && out);
    const char *line = proc_stat;
    while (line && strncmp(line, "cpu ", 4) != 0) {
        line = strchr(line, '\n');
        if (line) line++;
    }
    if (!line) return -1;
    /* user nice system idle iowait irq softirq steal (guest time is inside user already) */
    unsigned long long v[8] = {0};
    int n = sscanf(line + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                   &v[6], &v[7]);
    if (n < 4) return -1;
    unsigned long long all = 0;
    for (int i = 0; i < n; i++) all += v[i];
    const char *rp = strrchr(self_stat, ')');
    if (!rp) return -1;
    /* after ") ": state(3) ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime(14) stime */
    unsigned long long utime, stime;
    if (sscanf(rp + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2) return -1;
    out->all = all;
    out->busy = all - v[3] - (n > 4 ? v[4] : 0);
    out->self = utime + stime;
    return 0;
}

static int read_text(const char *path, char *buf, size_t len) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t n = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[n] = 0;
    return n ? 0 : -1;
}

int tta_cpu_sample_read(tta_cpu_sample *out) {
    char st[4096], self[1024]; /* the "cpu " line comes first in /proc/stat */
    if (read_text("/proc/stat", st, sizeof st) || read_text("/proc/self/stat", self, sizeof self)) return -1;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    out->wall_s = (double)t.tv_sec + t.tv_nsec * 1e-9;
    return tta_cpu_sample_parse(st, self, out);
}

double tta_cpu_others(const tta_cpu_sample *a, const tta_cpu_sample *b, int ncpu) {
    assert(ncpu >= 1);
    if (b->all <= a->all) return -1;
    double all = (double)(b->all - a->all);
    double busy = (double)(b->busy - a->busy), self = (double)b->self - (double)a->self;
    double others = (busy - self) / all * ncpu;
    return others < 0 ? 0 : others > ncpu ? ncpu : others;
}

int tta_threads_decide(double others, int current, int max, int ncpu) {
    assert(max >= 1 && current >= 1 && current <= max && ncpu >= 1);
    if (others < 0) return current;
    others -= ncpu > max ? ncpu - max : 0;
    if (others < 0) others = 0;
    /* the count current stands for covers others in [held - 0.5, held + 0.5]; move only when
     * others is 0.1 core beyond that range (a neighbour at 100 % of a core beside two spinning-
     * then-sleeping threads on two CPUs gets about 2/3 of a core: that must count as one) */
    double held = (double)(max - current);
    if (others > held - 0.6 && others < held + 0.6) return current;
    int want = max - (int)(others + 0.5);
    return want < 1 ? 1 : want > max ? max : want;
}
