/* threads_auto.h: threads chosen by the load (internal to replay/): `--threads auto` samples how
 * much CPU the rest of the machine uses (/proc/stat's busy jiffies minus this process's
 * utime + stime from /proc/self/stat) between training steps, and runs with one thread fewer
 * per core that other processes hold, back up when they leave. The decision is a pure function
 * of two samples, so tests feed it synthetic /proc text. Only the CPUs this process may run on
 * count (its affinity: taskset, a container's cpuset): their own "cpuN" lines of /proc/stat.
 */
#ifndef TTA_REPLAY_THREADS_AUTO_H
#define TTA_REPLAY_THREADS_AUTO_H

#define TTA_CPU_MAX 1024 /* CPUs numbered 0..1023, as glibc's cpu_set_t */

/* The CPUs this process may run on: on[i] for CPU i < TTA_CPU_MAX; n of them. */
typedef struct {
    int n;
    unsigned char on[TTA_CPU_MAX];
} tta_cpu_mask;

/* This process's CPUs (sched_getaffinity; every online CPU when it fails). */
void tta_cpu_mask_self(tta_cpu_mask *m);

/* One reading of the CPUs' time and this process's, in clock ticks. */
typedef struct {
    double wall_s;          /* CLOCK_MONOTONIC seconds */
    unsigned long long all; /* every jiffy of the CPUs read (user..steal) */
    unsigned long long busy; /* of them, not idle and not iowait */
    unsigned long long self; /* this process: utime + stime */
} tta_cpu_sample;

/* Parses the text of /proc/stat and of /proc/<pid>/stat (fields 14 and 15, after the command
 * name in parentheses, which may hold spaces and ')') into *out (wall_s is left as it was): the
 * "cpuN" lines of the CPUs in mask summed, or with mask NULL the "cpu " line of them all. 0, or
 * -1 when either text lacks the fields (a CPU of the mask without its line included). */
int tta_cpu_sample_parse(const char *proc_stat, const char *self_stat, const tta_cpu_mask *mask,
                         tta_cpu_sample *out);

/* Reads /proc/stat and /proc/self/stat now for the CPUs in mask, with the monotonic clock. 0, or
 * -1 (no /proc). */
int tta_cpu_sample_read(const tta_cpu_mask *mask, tta_cpu_sample *out);

/* Cores held by other processes on the CPUs read, between samples a and b (b later), in cores (0 .. ncpu, the CPUs read):
 * (busy - self jiffies) / all jiffies x ncpu. -1 when no jiffy elapsed. */
double tta_cpu_others(const tta_cpu_sample *a, const tta_cpu_sample *b, int ncpu);

/* The thread count for the next steps, from the cores others held (`others`, as above) on
 * ncpu CPUs, the current count and the most allowed (max <= ncpu): the cores others hold beyond
 * the ncpu - max we leave them anyway are taken from max, rounded (max - round(others - (ncpu -
 * max))), within 1..max, with a dead band of 0.1 core beyond each rounding point so that a
 * neighbour near half a core does not flip the count at every sample. others < 0 (no reading)
 * keeps current. */
int tta_threads_decide(double others, int current, int max, int ncpu);

#endif
