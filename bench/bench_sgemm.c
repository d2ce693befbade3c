/* bench_sgemm.c: this machine's OpenBLAS SGEMM peak, the roof that bench/replay sets achieved
 * GFLOP/s against: C = A B for square float matrices of n (default 2048), best of reps.
 *
 *   bench_sgemm [--threads N] [--n 2048] [--reps 5]     prints {"sgemm_gflops": G, ...}
 */
#include <cblas.h>
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
    size_t nn = (size_t)n * n;
    float *a = mallocCheck(nn * sizeof *a), *b = mallocCheck(nn * sizeof *b), *c = mallocCheck(nn * sizeof *c);
    for (size_t i = 0; i < nn; i++) a[i] = (float)(i % 7) * 0.1f, b[i] = (float)(i % 5) * 0.2f;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, a, n, b, n, 0, c, n); /* warm-up */
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        double t0 = now_s();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, a, n, b, n, 0, c, n);
        double dt = now_s() - t0;
        if (dt < best) best = dt;
    }
    printf("{\"sgemm_gflops\": %.2f, \"n\": %d, \"threads\": %d, \"best_s\": %.4f}\n", 2.0 * n * n * (double)n / best * 1e-9,
           n, threads, best);
    free(a);
    free(b);
    free(c);
    return 0;
}
