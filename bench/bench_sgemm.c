/* bench_sgemm.c: this machine's SGEMM peak, the roof that bench/replay sets achieved GFLOP/s
 * against: C = A B for square float matrices of n (default 2048), best of reps, by OpenBLAS and by
 * oneDNN in turn (the libraries the trainer calls); the roof is the better, as `tta profile --peaks`.
 *
 *   bench_sgemm [--threads N] [--n 2048] [--reps 5]
 *   prints {"sgemm_gflops": G, "openblas_gflops": G1, "onednn_gflops": G2, ...}
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/replay.h"

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
    double g[2], best = tta_measure_sgemm(threads, n, reps, g);
    if (!(g[1] > 0)) {
        fprintf(stderr, "bench_sgemm: dnnl_sgemm failed\n");
        return 1;
    }
    printf("{\"sgemm_gflops\": %.2f, \"openblas_gflops\": %.2f, \"onednn_gflops\": %.2f, \"n\": %d, \"threads\": %d}\n",
           best, g[0], g[1], n, threads);
    return 0;
}
