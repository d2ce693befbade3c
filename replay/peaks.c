/* peaks.c: this machine's roofs for the roofline (see replay.h): SGEMM GFLOP/s, the better of
 * OpenBLAS's and oneDNN's, and memory bandwidth by a STREAM-style triad and copy. */
#include <assert.h>
#include <cblas.h>
#include <dnnl.h>
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/check.h"
#include "replay/replay.h"

void openblas_set_num_threads(int n);

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

typedef struct {
    float *a, *b, *c;
    size_t lo, hi;
    int triad; /* 1: a = b + s*c; 0: a = b */
} stream_part;

static void *stream_worker(void *arg) {
    stream_part *p = arg;
    if (p->triad)
        for (size_t i = p->lo; i < p->hi; i++) p->a[i] = p->b[i] + 3.0f * p->c[i];
    else
        memcpy(p->a + p->lo, p->b + p->lo, (p->hi - p->lo) * sizeof(float));
    return NULL;
}

/* Best seconds of reps passes of the kernel over n floats split among threads. */
static double stream_best(float *a, float *b, float *c, size_t n, int threads, int triad, int reps) {
    double best = 1e30;
    stream_part parts[64];
    pthread_t tid[64];
    for (int r = 0; r < reps; r++) {
        double t0 = now_s();
        for (int t = 0; t < threads; t++) {
            parts[t] = (stream_part){a, b, c, n * (size_t)t / (size_t)threads, n * (size_t)(t + 1) / (size_t)threads,
                                     triad};
            if (t > 0) pthread_create(&tid[t], NULL, stream_worker, &parts[t]);
        }
        stream_worker(&parts[0]);
        for (int t = 1; t < threads; t++) pthread_join(tid[t], NULL);
        double dt = now_s() - t0;
        if (dt < best) best = dt;
    }
    return best;
}

double tta_measure_sgemm(int threads, int n, int reps, double gflops[2]) {
    assert(threads >= 1 && n >= 1 && reps >= 1);
    openblas_set_num_threads(threads);
    omp_set_num_threads(threads); /* oneDNN's threads */
    size_t nn = (size_t)n * n;
    /* on the trainer's pages (backend_cpu.c, cpu_alloc) */
    float *a = mallocLarge(nn * sizeof *a), *b = mallocLarge(nn * sizeof *b), *c = mallocLarge(nn * sizeof *c);
    for (size_t i = 0; i < nn; i++) a[i] = (float)(i % 7) * 0.1f, b[i] = (float)(i % 5) * 0.2f;
    double best[2] = {INFINITY, INFINITY};
    /* oneDNN's rounds first, then OpenBLAS's, not the two in turn: after each multi-threaded call
     * OpenBLAS's worker threads spin for a while (its THREAD_TIMEOUT, about 0.1 s) before they
     * sleep, and a oneDNN call in that window ran with a CPU taken by a spinning worker. Measured
     * in turn on a 2-vCPU AMD EPYC, oneDNN's roof came out at half (245-315 against 476-497
     * GFLOP/s) in 3 of 14 runs; OPENBLAS_THREAD_TIMEOUT=4 (no spin) made all 8 runs right. */
    for (int lib = 1; lib >= 0; lib--)
        for (int r = 0; r <= reps; r++) { /* round 0 a warm-up */
            double t0 = now_s();
            if (lib == 0) cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, a, n, b, n, 0, c, n);
            else if (dnnl_sgemm('N', 'N', n, n, n, 1, a, n, b, n, 0, c, n) != dnnl_success) break;
            double dt = now_s() - t0;
            if (r > 0 && dt < best[lib]) best[lib] = dt;
        }
    free(a);
    free(b);
    free(c);
    for (int lib = 0; lib < 2; lib++) gflops[lib] = isfinite(best[lib]) ? 2.0 * n * (double)n * n / best[lib] * 1e-9 : 0;
    return gflops[0] > gflops[1] ? gflops[0] : gflops[1];
}

int tta_measure_peaks(int threads, tta_peaks *out, tta_error *err) {
    memset(out, 0, sizeof *out);
    if (threads < 1 || threads > 64) return tta_fail(err, TTA_EINPUT, "threads must be 1..64, not %d", threads);
    out->threads = threads;
    /* Bandwidth first, then the SGEMM (whose last calls, OpenBLAS's, leave its workers spinning:
     * tta_measure_sgemm). Arrays of 64 MiB each, far beyond any cache here; pages touched first. */
    size_t m = (size_t)16 << 20;
    float *x = mallocLarge(m * sizeof *x), *y = mallocLarge(m * sizeof *y), *z = mallocLarge(m * sizeof *z);
    for (size_t i = 0; i < m; i++) x[i] = 0, y[i] = 1, z[i] = 2;
    double tt = stream_best(x, y, z, m, threads, 1, 5);
    double tc = stream_best(x, y, z, m, threads, 0, 5);
    out->triad_gbs = 3.0 * sizeof(float) * (double)m / tt * 1e-9;
    out->copy_gbs = 2.0 * sizeof(float) * (double)m / tc * 1e-9;
    free(x);
    free(y);
    free(z);
    /* SGEMM: n = 2048 (17 GFLOP per call), best of 4 after a warm-up round, by each library the
     * trainer calls: the roof is the better one (oneDNN's ran 1-10 % above OpenBLAS's here, and
     * the convolutions, on oneDNN, above OpenBLAS's peak) */
    double g[2];
    out->sgemm_gflops = tta_measure_sgemm(threads, 2048, 4, g);
    out->sgemm_openblas_gflops = g[0];
    out->sgemm_onednn_gflops = g[1];
    return TTA_OK;
}

void tta_peaks_json(const tta_peaks *p, const char *host, buf *b) {
    buf_puts(b, "{\"host\": ");
    buf_json_string(b, host, strlen(host));
    buf_printf(b, ", \"device\": \"cpu\", \"threads\": %d, \"sgemm_gflops\": ", p->threads);
    buf_json_number(b, p->sgemm_gflops);
    buf_puts(b, ", \"sgemm_openblas_gflops\": ");
    buf_json_number(b, p->sgemm_openblas_gflops);
    buf_puts(b, ", \"sgemm_onednn_gflops\": ");
    buf_json_number(b, p->sgemm_onednn_gflops);
    buf_puts(b, ", \"mem_gbs\": ");
    buf_json_number(b, p->triad_gbs);
    buf_puts(b, ", \"copy_gbs\": ");
    buf_json_number(b, p->copy_gbs);
    buf_puts(b, "}");
}

void tta_peaks_text(const tta_peaks *p, const char *host, buf *b) {
    int onednn = p->sgemm_onednn_gflops > p->sgemm_openblas_gflops;
    buf_printf(b, "%s, %d thread%s: SGEMM %.1f GFLOP/s (%s; %s %.1f), memory %.1f GB/s (triad), %.1f GB/s (copy); "
                  "ridge at %.1f FLOP/byte\n",
               host, p->threads, p->threads == 1 ? "" : "s", p->sgemm_gflops, onednn ? "oneDNN" : "OpenBLAS",
               onednn ? "OpenBLAS" : "oneDNN", onednn ? p->sgemm_openblas_gflops : p->sgemm_onednn_gflops,
               p->triad_gbs, p->copy_gbs, p->sgemm_gflops / p->triad_gbs);
}

int tta_peaks_thread_counts(int threads, int counts[2]) {
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    counts[0] = threads > 0 ? threads : 1;
    counts[1] = ncpu > 1 ? (int)ncpu : 0;
    return threads > 0 || ncpu <= 1 ? 1 : 2;
}
