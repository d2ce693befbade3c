/* threads_auto.c: threads chosen by the load (see threads_auto.h). */
#include <assert.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "replay/threads_auto.h"

void tta_cpu_mask_self(tta_cpu_mask *m) {
    memset(m, 0, sizeof *m);
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        for (int i = 0; i < TTA_CPU_MAX && i < CPU_SETSIZE; i++)
            if (CPU_ISSET(i, &set)) m->on[i] = 1, m->n++;
    }
    if (m->n == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        for (long i = 0; i < (n > 0 ? n : 1) && i < TTA_CPU_MAX; i++) m->on[i] = 1, m->n++;
    }
}

/* Adds one /proc/stat CPU line's jiffies (after its name) to *all and *busy; 0, or -1. */
static int add_cpu_line(const char *p, unsigned long long *all, unsigned long long *busy) {
    /* user nice system idle iowait irq softirq steal (guest time is inside user already) */
    unsigned long long v[8] = {0};
    int n = sscanf(p, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
                   &v[7]);
    if (n < 4) return -1;
    unsigned long long a = 0;
    for (int i = 0; i < n; i++) a += v[i];
    *all += a;
    *busy += a - v[3] - (n > 4 ? v[4] : 0);
    return 0;
}

int tta_cpu_sample_parse(const char *proc_stat, const char *self_stat, const tta_cpu_mask *mask,
                         tta_cpu_sample *out) {
    assert(proc_stat && self_stat && out);
    unsigned long long all = 0, busy = 0;
    int found = 0;
    for (const char *line = proc_stat; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        if (strncmp(line, "cpu", 3) != 0) continue;
        if (line[3] == ' ' && !mask) {
            if (add_cpu_line(line + 4, &all, &busy) != 0) return -1;
            found = 1;
            break;
        }
        char *end;
        long id = strtol(line + 3, &end, 10);
        if (!mask || end == line + 3 || *end != ' ' || id < 0 || id >= TTA_CPU_MAX || !mask->on[id]) continue;
        if (add_cpu_line(end, &all, &busy) != 0) return -1;
        found++;
    }
    if (!found || (mask && found != mask->n)) return -1;
    const char *rp = strrchr(self_stat, ')');
    if (!rp) return -1;
    /* after ") ": state(3) ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime(14) stime */
    unsigned long long utime, stime;
    if (sscanf(rp + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2) return -1;
    out->all = all;
    out->busy = busy;
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

/* The CPU lines come first in /proc/stat: 64 KiB hold about 600 of them. */
#define PROC_STAT_BYTES 65536
int tta_cpu_sample_read(const tta_cpu_mask *mask, tta_cpu_sample *out) {
    char *st = malloc(PROC_STAT_BYTES), self[1024];
    int rc = -1;
    if (st && !read_text("/proc/stat", st, PROC_STAT_BYTES) && !read_text("/proc/self/stat", self, sizeof self)) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        out->wall_s = (double)t.tv_sec + t.tv_nsec * 1e-9;
        rc = tta_cpu_sample_parse(st, self, mask, out);
    }
    free(st);
    return rc;
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
