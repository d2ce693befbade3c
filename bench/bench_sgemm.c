/* bench_sgemm.c: this machine's SGEMM peak, the roof that bench/replay sets achieved GFLOP/s
 * against: C = A B for square float matrices of n (default 2048), best of reps, by OpenBLAS and by
 * oneDNN in turn (the libraries the trainer calls); the roof is the better, as `tta profile --peaks`.
 *
 *   bench_sgemm [--threads N] [--n 2048] [--reps 5]
 *   prints {"sgemm_gflops": G, "openblas_gflops": G1, "onednn_gflops": G2, ...}
 */
#include <cblas.h>
#include <dnnl.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/check.h"

void openblas_set_num_threads(int n);

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    int threads = 1, n = 2048, reps = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--threads")) threads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--n")) n = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
    }
    if (threads < 1 || n < 16 || reps < 1) {
        fprintf(stderr, "usage: bench_sgemm [--threads N] [--n SIZE] [--reps R]\n");
        return 2;
    }
    openblas_set_num_threads(threads);
    omp_set_num_threads(threads); /* oneDNN's threads */
    size_t nn = (size_t)n * n;
    float *a = mallocCheck(nn * sizeof *a), *b = mallocCheck(nn * sizeof *b), *c = mallocCheck(nn * sizeof *c);
    for (size_t i = 0; i < nn; i++) a[i] = (float)(i % 7) * 0.1f, b[i] = (float)(i % 5) * 0.2f;
    double best[2] = {1e30, 1e30};
    for (int r = 0; r <= reps; r++) /* the libraries in turn; round 0 a warm-up */
        for (int lib = 0; lib < 2; lib++) {
            double t0 = now_s();
            if (lib == 0) cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, a, n, b, n, 0, c, n);
            else if (dnnl_sgemm('N', 'N', n, n, n, 1, a, n, b, n, 0, c, n) != dnnl_success) {
                fprintf(stderr, "bench_sgemm: dnnl_sgemm failed\n");
                return 1;
            }
            double dt = now_s() - t0;
            if (r > 0 && dt < best[lib]) best[lib] = dt;
        }
    double flop = 2.0 * n * n * (double)n, g0 = flop / best[0] * 1e-9, g1 = flop / best[1] * 1e-9;
    printf("{\"sgemm_gflops\": %.2f, \"openblas_gflops\": %.2f, \"onednn_gflops\": %.2f, \"n\": %d, \"threads\": %d}\n",
           g0 > g1 ? g0 : g1, g0, g1, n, threads);
    free(a);
    free(b);
    free(c);
    return 0;
}
