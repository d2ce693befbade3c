/* cpu_conv_direct.c: the weight gradient of a network's first convolution (NCHW input with a
 * few channels, nChw8c or nChw16c output, no input gradient), computed by direct loops.
 *
 * Why: oneDNN's AVX2 build has no JIT kernel for the backward of a convolution whose input is
 * NCHW and whose output is blocked. Its fallback (reorder dout to NCHW, then its GEMM-based
 * kernel) ran the fmnist-cnn stem (1 -> 16 channels, 3x3, 28x28) at 5 GFLOP/s: 24 ms of a
 * 185 ms step for 0.6% of its FLOPs. Here each output pixel's 8 (16) blocked channels are one
 * vector; a 3x3 tap is one broadcast of the input times that vector, accumulated in registers.
 *
 * Determinism: samples are split into one contiguous range per thread, each thread sums its
 * range into its own partial sums, and the partials are added in thread order; the result
 * depends on the thread count only, as the backend's contract requires.
 */
#include <assert.h>
#include <omp.h>
#include <string.h>

#include "replay/cpu_internal.h"

/* One sample's one input channel against one B-channel output block (B = V = 8 or 16):
 * acc[kh][kw][V] = sum over output pixels of x_padded[oh*S + kh][ow*S + kw] * dout[oh][ow][V].
 * xp: (OH-1)*S+K rows of Wp floats. The K*K accumulators are vectors of GCC's vector extensions
 * (one register each on AVX-512 for V = 16, on AVX2 for V = 8); K as a constant (the callers
 * pass 1, 3, 5 or 7 through the switch below) lets them live in registers. */
typedef float vf16 __attribute__((vector_size(64)));
typedef float vf8 __attribute__((vector_size(32)));
#define DEFINE_ACCUMULATE(V)                                                                                 \
    static inline __attribute__((always_inline)) void accumulate_plane_##V(                                 \
        float *restrict acc, const float *restrict xp, int Wp, const float *restrict dout, int OH, int OW, int S, \
        const int K) {                                                                                       \
        vf##V a[CPU_CONV_DIRECT_MAX_K * CPU_CONV_DIRECT_MAX_K];                                              \
        for (int k = 0; k < K * K; k++) a[k] = (vf##V){0};                                                   \
        for (int oh = 0; oh < OH; oh++) {                                                                    \
            const float *xrow = xp + (size_t)oh * S * Wp;                                                    \
            const float *drow = dout + (size_t)oh * OW * V;                                                  \
            for (int ow = 0; ow < OW; ow++) {                                                                \
                vf##V d;                                                                                     \
                memcpy(&d, drow + (size_t)ow * V, sizeof d);                                                 \
                const float *x = xrow + (size_t)ow * S;                                                      \
                for (int kh = 0; kh < K; kh++)                                                               \
                    for (int kw = 0; kw < K; kw++) a[kh * K + kw] += x[(size_t)kh * Wp + kw] * d;            \
            }                                                                                                \
        }                                                                                                    \
        for (int k = 0; k < K * K; k++) memcpy(acc + (size_t)k * V, &a[k], sizeof a[k]);                     \
    }
DEFINE_ACCUMULATE(16)
DEFINE_ACCUMULATE(8)

#define ACC_CASES(V)                                                                      \
    switch (K) {                                                                          \
    case 1: accumulate_plane_##V(acc, xp, Wp, dout, OH, OW, S, 1); break;                 \
    case 3: accumulate_plane_##V(acc, xp, Wp, dout, OH, OW, S, 3); break;                 \
    case 5: accumulate_plane_##V(acc, xp, Wp, dout, OH, OW, S, 5); break;                 \
    case 7: accumulate_plane_##V(acc, xp, Wp, dout, OH, OW, S, 7); break;                 \
    default: accumulate_plane_##V(acc, xp, Wp, dout, OH, OW, S, K); break;                \
    }

/* Built for AVX-512, AVX2 + FMA and the baseline (CPU_ISA_CLONES); the 8 (16) floats of a
 * blocked pixel are one register of the first two. */
static inline __attribute__((always_inline)) void accumulate_body(float *acc, const float *xp, int Wp, const float *dout,
                                                                  int OH, int OW, int S, int K, int B) {
    if (B == 16) {
        ACC_CASES(16)
    } else {
        ACC_CASES(8)
    }
}
CPU_ISA_CLONES(accumulate, (float *acc, const float *xp, int Wp, const float *dout, int OH, int OW, int S, int K, int B),
               (acc, xp, Wp, dout, OH, OW, S, K, B))

/* The per-thread scratch: `taps` partial sums (double: dw, then db) and a zero-padded input plane
 * of *Hp x *Wp floats, rounded up to 64 bytes. Returns its size in bytes. */
static size_t thread_layout(tta_shape in, tta_shape out, int K, int S, int P, size_t *taps, int *Hp, int *Wp) {
    int rows = (out.h - 1) * S + K, cols = (out.w - 1) * S + K;
    *Wp = cols > in.w + 2 * P ? cols : in.w + 2 * P;
    *Hp = rows > in.h + 2 * P ? rows : in.h + 2 * P;
    *taps = (size_t)out.c * in.c * K * K + out.c;
    return (*taps * sizeof(double) + (size_t)*Hp * *Wp * sizeof(float) + 63) / 64 * 64;
}

/* Bytes of scratch cpu_conv_dw_direct needs with `threads` threads. */
size_t cpu_conv_dw_direct_scratch(tta_shape in, tta_shape out, int K, int S, int P, int threads) {
    size_t taps;
    int Hp, Wp;
    return thread_layout(in, out, K, S, P, &taps, &Hp, &Wp) * (size_t)threads;
}

/* dw (OIHW, out.c x in.c x K x K) and db (out.c, or NULL) from inp (NCHW, shape in) and dout
 * (blocked by `block` channels, 8 or 16, shape out; already masked by a fused ReLU). Stride S, padding P on every side (the
 * right and bottom padding are whatever the output size implies, as in oneDNN). */
void cpu_conv_dw_direct(float *dw, float *db, const float *inp, const float *dout, tta_shape in, tta_shape out,
                        int block, int K, int S, int P, int threads, int isa, void *scratch) {
    assert((block == 8 || block == 16) && out.c % block == 0 && threads >= 1 && K <= CPU_CONV_DIRECT_MAX_K);
    const int C = in.c, B = block, OB = out.c / B;
    size_t taps;
    int Hp, Wp;
    const size_t per_thread = thread_layout(in, out, K, S, P, &taps, &Hp, &Wp);
    const size_t in_plane = (size_t)in.h * in.w, out_block = (size_t)out.h * out.w * B;
    /* every partial is zeroed here: OpenMP may give fewer threads than asked */
    for (int t = 0; t < threads; t++) memset((char *)scratch + per_thread * t, 0, taps * sizeof(double));

#pragma omp parallel num_threads(threads)
    {
        int t = omp_get_thread_num(), T = omp_get_num_threads();
        double *part = (double *)((char *)scratch + per_thread * t);
        float *xp = (float *)(part + taps);
        memset(xp, 0, (size_t)Hp * Wp * sizeof(float)); /* the padding border stays 0 */
        int n0 = (int)((long)in.n * t / T), n1 = (int)((long)in.n * (t + 1) / T);
        float acc[CPU_CONV_DIRECT_MAX_K * CPU_CONV_DIRECT_MAX_K * 16];
        for (int n = n0; n < n1; n++)
            for (int ci = 0; ci < C; ci++) {
                const float *x = inp + ((size_t)n * C + ci) * in_plane;
                for (int h = 0; h < in.h; h++) memcpy(xp + (size_t)(h + P) * Wp + P, x + (size_t)h * in.w, in.w * sizeof(float));
                for (int ob = 0; ob < OB; ob++) {
                    const float *d = dout + ((size_t)n * OB + ob) * out_block;
                    memset(acc, 0, sizeof(float) * B * K * K);
                    accumulate_isa(isa, acc, xp, Wp, d, out.h, out.w, S, K, B);
                    /* acc[kh][kw][l] belongs to output channel ob*B + l, input channel ci */
                    for (int l = 0; l < B; l++) {
                        double *pw = part + ((size_t)(ob * B + l) * C + ci) * K * K;
                        for (int k = 0; k < K * K; k++) pw[k] += acc[k * B + l];
                    }
                    if (ci == 0 && db) { /* the bias gradient: once per sample and block */
                        float bacc[16] = {0};
                        for (size_t i = 0; i < out_block; i += B)
                            for (int l = 0; l < B; l++) bacc[l] += d[i + l];
                        for (int l = 0; l < B; l++) part[taps - out.c + ob * B + l] += bacc[l];
                    }
                }
            }
    }
    /* partials in thread order */
    for (size_t i = 0; i < taps; i++) {
        double s = 0;
        for (int t = 0; t < threads; t++) s += ((const double *)((const char *)scratch + per_thread * t))[i];
        if (i < taps - out.c)
            dw[i] = (float)s;
        else if (db)
            db[i - (taps - out.c)] = (float)s;
    }
}
