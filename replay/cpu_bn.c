/* cpu_bn.c: batch normalisation (batch statistics) + ReLU as one op of the cpu backend, alone
 * (training bn_forward/bn_backward, where cpu_bn_relu_taken) or with a 2x2 stride-2 max pool after
 * it (tta_backend_ops.bn_pool_*), forward and backward, on nChw16c (AVX-512) and nChw8c (AVX2)
 * feature maps.
 *
 * Why: in fmnist-cnn the convolutions run at the SGEMM peak and what is left of the step is
 * memory-bound: oneDNN's batch norm (statistics, then normalise + ReLU writing z) and the max
 * pool after it (read z, write the pooled map and positions) each ran at memory speed per pass,
 * so only fewer passes make them faster. Here z is never written:
 *  - forward: pass 1 reads x for each channel's sum and sum of squares; pass 2 reads x,
 *    computes z = max(0, (x - mean) * gamma * rstd + beta), keeps each window's first maximum
 *    (row-major scan, strict >: PyTorch's rule and cpu_pool.c's, ties of zeros after the ReLU
 *    included) and writes the pooled output, the winner's x (for the backward's reductions)
 *    and one byte per output: the window position (bits 0-1) and the ReLU mask of the winner
 *    (bit 2: z > 0);
 *  - backward: the gradient of z is nonzero only at each window's recorded position where the
 *    mask is set, so the reductions sum(dy) and sum(dy * (x - mean)) run over the pooled grid
 *    (the output gradient, the byte, the winner's x: a quarter of x's size each); then one pass
 *    reads x and writes dx = gamma * rstd * (dy - mean(dy) - xhat * mean(dy * xhat)) for every
 *    element with streaming stores.
 * Without the pool (the BN + ReLU before a convolution or an add; oneDNN's batch norm ran several
 * barriers a direction, each waiting for a descheduled thread on a busy machine) the same two
 * passes a direction: forward pass 2 writes z with streaming stores (z + skip with ordinary ones
 * where a residual add is fused after the ReLU, bn_relu_add_*); the backward recomputes the
 * ReLU mask from x and the saved statistics with the forward's own coefficients (the same bits,
 * so nothing is saved for it), pass 1 sums dy and dy * (x - mean) over the live elements, pass 2
 * writes dx.
 * Each call is one OpenMP parallel region with one barrier (between its two passes); after it
 * every thread reduces the per-plane partial sums of all channels itself (a few thousand adds)
 * rather than waiting at a second barrier for one thread to do it. The partial sums are per
 * plane (a sample's channel block), row sums in float added into doubles, and are reduced in
 * plane order: the results do not depend on the thread count. The sums of squares are taken
 * about a shift (the channel's first value), so that a mean large next to the spread costs no
 * precision.
 *
 * Taken where the op's input is blocked by 16 (with AVX-512) or 8 (AVX2 or AVX-512), with even
 * height and width for the pool (the windows tile the map); elsewhere the model runs the three ops
 * apart, and a BN + ReLU without the pool runs oneDNN's (as in eval mode). Checked against the
 * reference layers' separate BN, ReLU and max pool in tests/replay/test_layers.c
 * (bn_pool_matches_reference, bn_relu_matches_reference).
 */
#include <assert.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <string.h>

#include "common/check.h"
#include "replay/cpu_internal.h"
#include "replay/cpu_simd.h"

#define BNP_FAST CPU_SIMD_X86

/* Per-channel coefficient vectors per thread: mean, then a (forward) or A, Bc, C2 (backward),
 * and beta (both: the ReLU mask of the backward without the pool). */
enum { NCOEF = 5 };

/* Shapes of one fused op as this file walks them. */
typedef struct {
    int B;       /* channels per plane: 16 or 8 */
    int N, C, CB; /* batch, channels, channel blocks (C / B) */
    long planes; /* N * CB */
    int H, W, OH, OW;
    int T; /* threads the scratch is sized for */
} bnp_geom;

/* Where the op keeps its state. saved: mean[C] and biased variance[C] (floats, 64-byte
 * aligned each), then with the pool in training the winners' x (one float per output) and the
 * position bytes (one per output). scratch: per-plane partial sums (planes x 2 x B doubles), then
 * per thread NCOEF float vectors of C, cstride apart (the per-channel coefficients of its passes). */
typedef struct {
    float *mean, *var, *xw;
    uint8_t *pos;
    double *part;
    float *coef; /* thread t's: coef + t * 4 * cstride */
    size_t cstride;
} bnp_mem;

/* The walk of op: its block, planes and sizes; T from op_init (impl), else the threads now. */
static bnp_geom geom(const cpu_ctx *c, const tta_op *op) {
    bnp_geom g;
    g.B = cpu_blocked(c, op->in);
    g.N = op->in.n, g.C = op->in.c, g.CB = g.B ? g.C / g.B : 0;
    g.planes = (long)g.N * g.CB;
    g.H = op->in.h, g.W = op->in.w, g.OH = op->out.h, g.OW = op->out.w;
    g.T = op->impl ? *(int *)op->impl : omp_get_max_threads();
    return g;
}

/* The parts of op->saved and op->scratch (the layout above). */
static bnp_mem mem(const tta_op *op, const bnp_geom *g) {
    bnp_mem m;
    size_t cb = cpu_align64(sizeof(float) * g->C), no = (size_t)g->N * g->C * g->OH * g->OW;
    m.mean = op->saved;
    m.var = (float *)((char *)op->saved + cb);
    m.xw = op->train && op->pool ? (float *)((char *)op->saved + 2 * cb) : NULL;
    m.pos = op->train && op->pool ? (uint8_t *)op->saved + 2 * cb + cpu_align64(no * sizeof(float)) : NULL;
    m.part = op->scratch;
    m.cstride = (size_t)(g->C + 15) / 16 * 16;
    m.coef = (float *)((char *)op->scratch + cpu_align64((size_t)g->planes * 2 * g->B * sizeof(double)));
    return m;
}

/* Scratch of an op of geometry g: the partial sums, then each thread's coefficients. */
static size_t scratch_bytes(const bnp_geom *g) {
    return cpu_align64((size_t)g->planes * 2 * g->B * sizeof(double)) +
           (size_t)g->T * NCOEF * ((size_t)(g->C + 15) / 16 * 16) * sizeof(float);
}

/* 1 / sqrt(var + eps) of a saved (float) variance: forward and backward take the same value. */
static double rstd_of(float var, float eps) { return 1.0 / sqrt((double)var + (double)eps); }

/* (cpu_internal.h) Blocked by 8 or 16 with vector kernels for it, even height and width. */
int cpu_bn_pool_supported(void *ctx, tta_shape in) {
    cpu_ctx *c = ctx;
    int b = cpu_blocked(c, in);
    if (!BNP_FAST || c->isa == CPU_ISA_BASE || (b != 8 && b != 16)) return 0;
    return in.h >= 2 && in.w >= 2 && in.h % 2 == 0 && in.w % 2 == 0;
}

/* (cpu_internal.h) impl holds the thread count the scratch is sized for. */
int cpu_bn_pool_init(cpu_ctx *c, tta_op *op, char *err, size_t errlen) {
    assert(op->kind == TTA_OP_BN && op->pool);
    if (!op->relu || !cpu_bn_pool_supported(c, op->in) || op->out.h * 2 != op->in.h || op->out.w * 2 != op->in.w ||
        op->out.c != op->in.c || op->out.n != op->in.n) {
        snprintf(err, errlen, "batch norm + ReLU + max pool: unsupported shape %dx%dx%d", op->in.c, op->in.h, op->in.w);
        return -1;
    }
    int *T = mallocCheck(sizeof *T);
    *T = omp_get_max_threads();
    op->impl = T;
    bnp_geom g = geom(c, op);
    size_t no = tta_shape_count(op->out);
    op->saved_bytes = 2 * cpu_align64(sizeof(float) * g.C) + (op->train ? cpu_align64(no * sizeof(float)) + no : 0);
    op->scratch_bytes = scratch_bytes(&g);
    return 0;
}

/* (cpu_internal.h) Training (or a fused residual add, in eval too), ReLU, no pool, blocked by 8
 * or 16 with vector kernels for it. */
int cpu_bn_relu_taken(const cpu_ctx *c, const tta_op *op) {
    int b = cpu_blocked(c, op->in);
    return BNP_FAST && c->isa != CPU_ISA_BASE && (b == 8 || b == 16) && op->kind == TTA_OP_BN &&
           (op->train || op->add) &&
           op->relu && !op->pool && op->out.n == op->in.n && op->out.c == op->in.c && op->out.h == op->in.h &&
           op->out.w == op->in.w;
}

/* (cpu_internal.h) impl holds the thread count the scratch is sized for; saved: the statistics. */
int cpu_bn_relu_init(cpu_ctx *c, tta_op *op) {
    assert(cpu_bn_relu_taken(c, op));
    int *T = mallocCheck(sizeof *T);
    *T = omp_get_max_threads();
    op->impl = T;
    bnp_geom g = geom(c, op);
    op->saved_bytes = 2 * cpu_align64(sizeof(float) * g.C);
    op->scratch_bytes = scratch_bytes(&g);
    return 0;
}

/* (cpu_internal.h) Frees impl. */
void cpu_bn_fused_release(cpu_ctx *c, tta_op *op) {
    (void)c;
    free(op->impl);
    op->impl = NULL;
}

#if BNP_FAST
#define AVX2_FN static CPU_TARGET_AVX2
#define AVX512_FN static CPU_TARGET_AVX512

/* ---- AVX-512, nChw16c ---- */

/* Adds the 16 floats of s into the 16 doubles lo (lanes 0-7), hi (lanes 8-15). */
#define ACC16(lo, hi, s)                                                                                          \
    do {                                                                                                          \
        lo = _mm512_add_pd(lo, _mm512_cvtps_pd(_mm512_castps512_ps256(s)));                                       \
        hi = _mm512_add_pd(hi, _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(s), 1)))); \
    } while (0)

/* Pass 1 forward: per plane, the sums of (x - K) and (x - K)^2 over its pixels, K the channel's
 * first value (plane cb of sample 0, pixel 0), into part[p][0][16] and part[p][1][16]. */
AVX512_FN void stats16(double *part, const float *x, const bnp_geom *g, long p0, long p1) {
    size_t isz = (size_t)g->H * g->W * 16;
    for (long p = p0; p < p1; p++) {
        const float *in = x + p * isz;
        __m512 k = _mm512_loadu_ps(x + (size_t)(p % g->CB) * isz);
        __m512d a0 = _mm512_setzero_pd(), a1 = a0, q0 = a0, q1 = a0;
        for (int h = 0; h < g->H; h++) {
            const float *r = in + (size_t)h * g->W * 16;
            __m512 s = _mm512_setzero_ps(), s2 = s, q = s, qq = s;
            int w = 0;
            for (; w + 1 < g->W; w += 2) {
                _mm_prefetch((const char *)(r + 16 * w) + CPU_PF_AHEAD, _MM_HINT_T0);
                _mm_prefetch((const char *)(r + 16 * w) + CPU_PF_AHEAD + 64, _MM_HINT_T0);
                __m512 d = _mm512_sub_ps(_mm512_loadu_ps(r + 16 * w), k);
                __m512 e = _mm512_sub_ps(_mm512_loadu_ps(r + 16 * w + 16), k);
                s = _mm512_add_ps(s, d);
                s2 = _mm512_add_ps(s2, e);
                q = _mm512_fmadd_ps(d, d, q);
                qq = _mm512_fmadd_ps(e, e, qq);
            }
            for (; w < g->W; w++) {
                __m512 d = _mm512_sub_ps(_mm512_loadu_ps(r + 16 * w), k);
                s = _mm512_add_ps(s, d);
                q = _mm512_fmadd_ps(d, d, q);
            }
            s = _mm512_add_ps(s, s2);
            q = _mm512_add_ps(q, qq);
            ACC16(a0, a1, s);
            ACC16(q0, q1, q);
        }
        double *o = part + (size_t)p * 32;
        _mm512_storeu_pd(o, a0), _mm512_storeu_pd(o + 8, a1);
        _mm512_storeu_pd(o + 16, q0), _mm512_storeu_pd(o + 24, q1);
    }
}

/* z of one pixel: max(0, (x - mean) * a + beta). */
#define Z16(x) _mm512_max_ps(_mm512_fmadd_ps(_mm512_sub_ps((x), m), a, b), zero)
/* z > best (strict: the first maximum wins): take z, its x and position k. */
#define TAKE16(z, x, k)                                            \
    do {                                                           \
        __mmask16 gt_ = _mm512_cmp_ps_mask((z), best, _CMP_GT_OQ); \
        best = _mm512_mask_mov_ps(best, gt_, (z));                 \
        bx = _mm512_mask_mov_ps(bx, gt_, (x));                     \
        at = _mm_mask_mov_epi8(at, gt_, _mm_set1_epi8(k));         \
    } while (0)

/* Pass 2 forward: the pooled z of planes p0..p1; xw and pos (training) may be NULL. coef:
 * mean, a, beta, each C floats cstride apart. */
AVX512_FN void fwd16(float *out, float *xw, uint8_t *pos, const float *x, const float *coef, size_t cstride,
                     const bnp_geom *g, long p0, long p1) {
    size_t isz = (size_t)g->H * g->W * 16, osz = (size_t)g->OH * g->OW * 16;
    const __m512 zero = _mm512_setzero_ps();
    for (long p = p0; p < p1; p++) {
        int c0 = (int)(p % g->CB) * 16;
        __m512 m = _mm512_loadu_ps(coef + c0), a = _mm512_loadu_ps(coef + cstride + c0),
               b = _mm512_loadu_ps(coef + 2 * cstride + c0);
        for (int oh = 0; oh < g->OH; oh++) {
            const float *r0 = x + p * isz + (size_t)2 * oh * g->W * 16, *r1 = r0 + (size_t)g->W * 16;
            size_t o = p * osz + (size_t)oh * g->OW * 16;
            for (int ow = 0; ow < g->OW; ow++, o += 16) {
                _mm_prefetch((const char *)(r0 + 32 * ow) + CPU_PF_AHEAD, _MM_HINT_T0);
                _mm_prefetch((const char *)(r0 + 32 * ow) + CPU_PF_AHEAD + 64, _MM_HINT_T0);
                _mm_prefetch((const char *)(r1 + 32 * ow) + CPU_PF_AHEAD, _MM_HINT_T0);
                _mm_prefetch((const char *)(r1 + 32 * ow) + CPU_PF_AHEAD + 64, _MM_HINT_T0);
                __m512 x0 = _mm512_loadu_ps(r0 + 32 * ow), x1 = _mm512_loadu_ps(r0 + 32 * ow + 16);
                __m512 x2 = _mm512_loadu_ps(r1 + 32 * ow), x3 = _mm512_loadu_ps(r1 + 32 * ow + 16);
                __m512 best = Z16(x0), bx = x0;
                __m128i at = _mm_setzero_si128();
                TAKE16(Z16(x1), x1, 1);
                TAKE16(Z16(x2), x2, 2);
                TAKE16(Z16(x3), x3, 3);
                _mm512_storeu_ps(out + o, best);
                if (pos) {
                    __mmask16 live = _mm512_cmp_ps_mask(best, zero, _CMP_GT_OQ);
                    at = _mm_mask_add_epi8(at, live, at, _mm_set1_epi8(4));
                    _mm512_storeu_ps(xw + o, bx);
                    _mm_storeu_si128((__m128i *)(pos + o), at);
                }
            }
        }
    }
}

/* Pass 1 backward: per plane, sum(dy) and sum(dy * (xw - mean)) over the pooled grid, dy the
 * output gradient where the winner's mask is set, into part[p][0..1][16]. */
AVX512_FN void bstats16(double *part, const float *dout, const float *xw, const uint8_t *pos, const float *mean,
                        const bnp_geom *g, long p0, long p1) {
    size_t osz = (size_t)g->OH * g->OW * 16;
    for (long p = p0; p < p1; p++) {
        __m512 m = _mm512_loadu_ps(mean + (p % g->CB) * 16);
        __m512d a0 = _mm512_setzero_pd(), a1 = a0, q0 = a0, q1 = a0;
        for (int oh = 0; oh < g->OH; oh++) {
            size_t o = p * osz + (size_t)oh * g->OW * 16;
            __m512 s = _mm512_setzero_ps(), q = s;
            for (int ow = 0; ow < g->OW; ow++, o += 16) {
                __mmask16 live = _mm_test_epi8_mask(_mm_loadu_si128((const __m128i *)(pos + o)), _mm_set1_epi8(4));
                __m512 dy = _mm512_maskz_loadu_ps(live, dout + o);
                s = _mm512_add_ps(s, dy);
                q = _mm512_fmadd_ps(dy, _mm512_sub_ps(_mm512_loadu_ps(xw + o), m), q);
            }
            ACC16(a0, a1, s);
            ACC16(q0, q1, q);
        }
        double *o = part + (size_t)p * 32;
        _mm512_storeu_pd(o, a0), _mm512_storeu_pd(o + 8, a1);
        _mm512_storeu_pd(o + 16, q0), _mm512_storeu_pd(o + 24, q1);
    }
}

/* dx of one pixel: A * dy + Bc * (x - mean) + C2, dy the window's live gradient at position k. */
#define DX16(ptr, k)                                                                                          \
    do {                                                                                                      \
        __m512 dy_ = _mm512_maskz_mov_ps(_mm_cmpeq_epi8_mask(at, _mm_set1_epi8(k)), d);                       \
        __m512 v_ = _mm512_fmadd_ps(A, dy_, _mm512_fmadd_ps(Bc, _mm512_sub_ps(_mm512_loadu_ps(ptr), m), C2)); \
        _mm512_stream_ps((ptr) - x + dinp, v_);                                                               \
    } while (0)

/* Pass 2 backward: dx of planes p0..p1. coef: mean, A, Bc, C2, each C floats cstride apart. */
AVX512_FN void bwd16(float *dinp, const float *dout, const uint8_t *pos, const float *x, const float *coef,
                     size_t cstride, const bnp_geom *g, long p0, long p1) {
    size_t isz = (size_t)g->H * g->W * 16, osz = (size_t)g->OH * g->OW * 16;
    for (long p = p0; p < p1; p++) {
        int c0 = (int)(p % g->CB) * 16;
        __m512 m = _mm512_loadu_ps(coef + c0), A = _mm512_loadu_ps(coef + cstride + c0),
               Bc = _mm512_loadu_ps(coef + 2 * cstride + c0), C2 = _mm512_loadu_ps(coef + 3 * cstride + c0);
        for (int oh = 0; oh < g->OH; oh++) {
            const float *r0 = x + p * isz + (size_t)2 * oh * g->W * 16, *r1 = r0 + (size_t)g->W * 16;
            size_t o = p * osz + (size_t)oh * g->OW * 16;
            for (int ow = 0; ow < g->OW; ow++, o += 16) {
                _mm_prefetch((const char *)(r0 + 32 * ow) + CPU_PF_AHEAD, _MM_HINT_T0);
                _mm_prefetch((const char *)(r0 + 32 * ow) + CPU_PF_AHEAD + 64, _MM_HINT_T0);
                _mm_prefetch((const char *)(r1 + 32 * ow) + CPU_PF_AHEAD, _MM_HINT_T0);
                _mm_prefetch((const char *)(r1 + 32 * ow) + CPU_PF_AHEAD + 64, _MM_HINT_T0);
                __m128i q = _mm_loadu_si128((const __m128i *)(pos + o));
                __mmask16 live = _mm_test_epi8_mask(q, _mm_set1_epi8(4));
                __m512 d = _mm512_maskz_loadu_ps(live, dout + o);
                __m128i at = _mm_and_si128(q, _mm_set1_epi8(3));
                DX16(r0 + 32 * ow, 0);
                DX16(r0 + 32 * ow + 16, 1);
                DX16(r1 + 32 * ow, 2);
                DX16(r1 + 32 * ow + 16, 3);
            }
        }
    }
}

/* Without the pool. Forward pass 2: z of planes p0..p1, streaming stores; or, where skip is not
 * NULL (the residual add fused after the ReLU), z + skip with ordinary stores: the next
 * convolution reads that map at once, and streamed it came back from memory (layer2's forward
 * 0.19 ms slower in fmnist-cnn, the add's whole saving). coef: mean, a, beta. */
AVX512_FN void fwdz16(float *out, const float *x, const float *skip, const float *coef, size_t cstride,
                      const bnp_geom *g, long p0, long p1) {
    size_t isz = (size_t)g->H * g->W * 16;
    const __m512 zero = _mm512_setzero_ps();
    for (long p = p0; p < p1; p++) {
        int c0 = (int)(p % g->CB) * 16;
        __m512 m = _mm512_loadu_ps(coef + c0), a = _mm512_loadu_ps(coef + cstride + c0),
               b = _mm512_loadu_ps(coef + 2 * cstride + c0);
        const float *in = x + p * isz;
        float *o = out + p * isz;
        if (skip) {
            const float *r = skip + p * isz;
            for (size_t i = 0; i < isz; i += 16) {
                _mm_prefetch((const char *)(in + i) + CPU_PF_AHEAD, _MM_HINT_T0);
                _mm_prefetch((const char *)(r + i) + CPU_PF_AHEAD, _MM_HINT_T0);
                _mm512_store_ps(o + i, _mm512_add_ps(Z16(_mm512_loadu_ps(in + i)), _mm512_loadu_ps(r + i)));
            }
            continue;
        }
        for (size_t i = 0; i < isz; i += 16) {
            _mm_prefetch((const char *)(in + i) + CPU_PF_AHEAD, _MM_HINT_T0);
            _mm512_stream_ps(o + i, Z16(_mm512_loadu_ps(in + i)));
        }
    }
}

/* The ReLU mask of x recomputed as the forward's Z16 did (coefficients m, a, b). */
#define LIVE16(xv) _mm512_cmp_ps_mask(_mm512_fmadd_ps(_mm512_sub_ps((xv), m), a, b), zero, _CMP_GT_OQ)

/* Without the pool. Backward pass 1: per plane, sum(dy) and sum(dy * (x - mean)) over the
 * elements the ReLU passed, into part[p][0..1][16]. coef: mean, a (index 1), beta (index 4). */
AVX512_FN void bstatsz16(double *part, const float *dout, const float *x, const float *coef, size_t cstride,
                         const bnp_geom *g, long p0, long p1) {
    size_t isz = (size_t)g->H * g->W * 16, rsz = (size_t)g->W * 16;
    const __m512 zero = _mm512_setzero_ps();
    for (long p = p0; p < p1; p++) {
        int c0 = (int)(p % g->CB) * 16;
        __m512 m = _mm512_loadu_ps(coef + c0), a = _mm512_loadu_ps(coef + cstride + c0),
               b = _mm512_loadu_ps(coef + 4 * cstride + c0);
        __m512d a0 = _mm512_setzero_pd(), a1 = a0, q0 = a0, q1 = a0;
        for (int h = 0; h < g->H; h++) {
            const float *r = x + p * isz + h * rsz, *d = dout + p * isz + h * rsz;
            __m512 s = _mm512_setzero_ps(), q = s;
            for (size_t i = 0; i < rsz; i += 16) {
                _mm_prefetch((const char *)(r + i) + CPU_PF_AHEAD, _MM_HINT_T0);
                _mm_prefetch((const char *)(d + i) + CPU_PF_AHEAD, _MM_HINT_T0);
                __m512 xv = _mm512_loadu_ps(r + i);
                __m512 dy = _mm512_maskz_loadu_ps(LIVE16(xv), d + i);
                s = _mm512_add_ps(s, dy);
                q = _mm512_fmadd_ps(dy, _mm512_sub_ps(xv, m), q);
            }
            ACC16(a0, a1, s);
            ACC16(q0, q1, q);
        }
        double *o = part + (size_t)p * 32;
        _mm512_storeu_pd(o, a0), _mm512_storeu_pd(o + 8, a1);
        _mm512_storeu_pd(o + 16, q0), _mm512_storeu_pd(o + 24, q1);
    }
}

/* Without the pool. Backward pass 2: dx = A dy + Bc (x - mean) + C2 of planes p0..p1, dy zero
 * where the ReLU stopped it. coef: mean, A (= the forward's a), Bc, C2, beta. */
AVX512_FN void bwdz16(float *dinp, const float *dout, const float *x, const float *coef, size_t cstride,
                      const bnp_geom *g, long p0, long p1) {
    size_t isz = (size_t)g->H * g->W * 16;
    const __m512 zero = _mm512_setzero_ps();
    for (long p = p0; p < p1; p++) {
        int c0 = (int)(p % g->CB) * 16;
        __m512 m = _mm512_loadu_ps(coef + c0), a = _mm512_loadu_ps(coef + cstride + c0),
               Bc = _mm512_loadu_ps(coef + 2 * cstride + c0), C2 = _mm512_loadu_ps(coef + 3 * cstride + c0),
               b = _mm512_loadu_ps(coef + 4 * cstride + c0);
        size_t base = p * isz;
        for (size_t i = base; i < base + isz; i += 16) {
            _mm_prefetch((const char *)(x + i) + CPU_PF_AHEAD, _MM_HINT_T0);
            _mm_prefetch((const char *)(dout + i) + CPU_PF_AHEAD, _MM_HINT_T0);
            __m512 xv = _mm512_loadu_ps(x + i);
            __m512 dy = _mm512_maskz_loadu_ps(LIVE16(xv), dout + i);
            _mm512_stream_ps(dinp + i, _mm512_fmadd_ps(a, dy, _mm512_fmadd_ps(Bc, _mm512_sub_ps(xv, m), C2)));
        }
    }
}

/* ---- AVX2, nChw8c ---- */

/* Adds the 8 floats of s into the 8 doubles lo, hi. */
#define ACC8(lo, hi, s)                                                   \
    do {                                                                  \
        lo = _mm256_add_pd(lo, _mm256_cvtps_pd(_mm256_castps256_ps128(s))); \
        hi = _mm256_add_pd(hi, _mm256_cvtps_pd(_mm256_extractf128_ps(s, 1))); \
    } while (0)

/* stats16 on nChw8c. */
AVX2_FN void stats8(double *part, const float *x, const bnp_geom *g, long p0, long p1) {
    size_t isz = (size_t)g->H * g->W * 8;
    for (long p = p0; p < p1; p++) {
        const float *in = x + p * isz;
        __m256 k = _mm256_loadu_ps(x + (size_t)(p % g->CB) * isz);
        __m256d a0 = _mm256_setzero_pd(), a1 = a0, q0 = a0, q1 = a0;
        for (int h = 0; h < g->H; h++) {
            const float *r = in + (size_t)h * g->W * 8;
            __m256 s = _mm256_setzero_ps(), s2 = s, q = s, qq = s;
            int w = 0;
            for (; w + 1 < g->W; w += 2) {
                _mm_prefetch((const char *)(r + 8 * w) + CPU_PF_AHEAD, _MM_HINT_T0);
                __m256 d = _mm256_sub_ps(_mm256_loadu_ps(r + 8 * w), k);
                __m256 e = _mm256_sub_ps(_mm256_loadu_ps(r + 8 * w + 8), k);
                s = _mm256_add_ps(s, d);
                s2 = _mm256_add_ps(s2, e);
                q = _mm256_fmadd_ps(d, d, q);
                qq = _mm256_fmadd_ps(e, e, qq);
            }
            for (; w < g->W; w++) {
                __m256 d = _mm256_sub_ps(_mm256_loadu_ps(r + 8 * w), k);
                s = _mm256_add_ps(s, d);
                q = _mm256_fmadd_ps(d, d, q);
            }
            s = _mm256_add_ps(s, s2);
            q = _mm256_add_ps(q, qq);
            ACC8(a0, a1, s);
            ACC8(q0, q1, q);
        }
        double *o = part + (size_t)p * 16;
        _mm256_storeu_pd(o, a0), _mm256_storeu_pd(o + 4, a1);
        _mm256_storeu_pd(o + 8, q0), _mm256_storeu_pd(o + 12, q1);
    }
}

#define Z8(x) _mm256_max_ps(_mm256_fmadd_ps(_mm256_sub_ps((x), m), a, b), zero)
#define TAKE8(z, x, k)                                                               \
    do {                                                                             \
        __m256 z_ = (z);                                                             \
        __m256 gt_ = _mm256_cmp_ps(z_, best, _CMP_GT_OQ);                            \
        best = _mm256_blendv_ps(best, z_, gt_);                                      \
        bx = _mm256_blendv_ps(bx, (x), gt_);                                         \
        at = _mm256_blendv_epi8(at, _mm256_set1_epi32(k), _mm256_castps_si256(gt_)); \
    } while (0)

/* fwd16 on nChw8c: positions as int32 lanes, narrowed to bytes by pos8. */
AVX2_FN void fwd8(float *out, float *xw, uint8_t *pos, const float *x, const float *coef, size_t cstride,
                  const bnp_geom *g, long p0, long p1) {
    size_t isz = (size_t)g->H * g->W * 8, osz = (size_t)g->OH * g->OW * 8;
    const __m256 zero = _mm256_setzero_ps();
    for (long p = p0; p < p1; p++) {
        int c0 = (int)(p % g->CB) * 8;
        __m256 m = _mm256_loadu_ps(coef + c0), a = _mm256_loadu_ps(coef + cstride + c0),
               b = _mm256_loadu_ps(coef + 2 * cstride + c0);
        for (int oh = 0; oh < g->OH; oh++) {
            const float *r0 = x + p * isz + (size_t)2 * oh * g->W * 8, *r1 = r0 + (size_t)g->W * 8;
            size_t o = p * osz + (size_t)oh * g->OW * 8;
            for (int ow = 0; ow < g->OW; ow++, o += 8) {
                _mm_prefetch((const char *)(r0 + 16 * ow) + CPU_PF_AHEAD, _MM_HINT_T0);
                _mm_prefetch((const char *)(r1 + 16 * ow) + CPU_PF_AHEAD, _MM_HINT_T0);
                __m256 x0 = _mm256_loadu_ps(r0 + 16 * ow), x1 = _mm256_loadu_ps(r0 + 16 * ow + 8);
                __m256 x2 = _mm256_loadu_ps(r1 + 16 * ow), x3 = _mm256_loadu_ps(r1 + 16 * ow + 8);
                __m256 best = Z8(x0), bx = x0;
                __m256i at = _mm256_setzero_si256();
                TAKE8(Z8(x1), x1, 1);
                TAKE8(Z8(x2), x2, 2);
                TAKE8(Z8(x3), x3, 3);
                _mm256_storeu_ps(out + o, best);
                if (pos) {
                    __m256i live = _mm256_castps_si256(_mm256_cmp_ps(best, zero, _CMP_GT_OQ));
                    at = _mm256_or_si256(at, _mm256_and_si256(live, _mm256_set1_epi32(4)));
                    _mm256_storeu_ps(xw + o, bx);
                    cpu_store_pos8(pos + o, at);
                }
            }
        }
    }
}

/* The 8 bytes at p as int32 lanes. */
#define LOADPOS8(p) _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(p)))

/* bstats16 on nChw8c. */
AVX2_FN void bstats8(double *part, const float *dout, const float *xw, const uint8_t *pos, const float *mean,
                     const bnp_geom *g, long p0, long p1) {
    size_t osz = (size_t)g->OH * g->OW * 8;
    const __m256i four = _mm256_set1_epi32(4);
    for (long p = p0; p < p1; p++) {
        __m256 m = _mm256_loadu_ps(mean + (p % g->CB) * 8);
        __m256d a0 = _mm256_setzero_pd(), a1 = a0, q0 = a0, q1 = a0;
        for (int oh = 0; oh < g->OH; oh++) {
            size_t o = p * osz + (size_t)oh * g->OW * 8;
            __m256 s = _mm256_setzero_ps(), q = s;
            for (int ow = 0; ow < g->OW; ow++, o += 8) {
                __m256i live = _mm256_cmpeq_epi32(_mm256_and_si256(LOADPOS8(pos + o), four), four);
                __m256 dy = _mm256_and_ps(_mm256_loadu_ps(dout + o), _mm256_castsi256_ps(live));
                s = _mm256_add_ps(s, dy);
                q = _mm256_fmadd_ps(dy, _mm256_sub_ps(_mm256_loadu_ps(xw + o), m), q);
            }
            ACC8(a0, a1, s);
            ACC8(q0, q1, q);
        }
        double *o = part + (size_t)p * 16;
        _mm256_storeu_pd(o, a0), _mm256_storeu_pd(o + 4, a1);
        _mm256_storeu_pd(o + 8, q0), _mm256_storeu_pd(o + 12, q1);
    }
}

#define DX8(ptr, k)                                                                                           \
    do {                                                                                                      \
        __m256 dy_ = _mm256_and_ps(d, _mm256_castsi256_ps(_mm256_cmpeq_epi32(at, _mm256_set1_epi32(k))));     \
        __m256 v_ = _mm256_fmadd_ps(A, dy_, _mm256_fmadd_ps(Bc, _mm256_sub_ps(_mm256_loadu_ps(ptr), m), C2)); \
        _mm256_stream_ps((ptr) - x + dinp, v_);                                                               \
    } while (0)

/* bwd16 on nChw8c. */
AVX2_FN void bwd8(float *dinp, const float *dout, const uint8_t *pos, const float *x, const float *coef,
                  size_t cstride, const bnp_geom *g, long p0, long p1) {
    size_t isz = (size_t)g->H * g->W * 8, osz = (size_t)g->OH * g->OW * 8;
    const __m256i four = _mm256_set1_epi32(4), three = _mm256_set1_epi32(3);
    for (long p = p0; p < p1; p++) {
        int c0 = (int)(p % g->CB) * 8;
        __m256 m = _mm256_loadu_ps(coef + c0), A = _mm256_loadu_ps(coef + cstride + c0),
               Bc = _mm256_loadu_ps(coef + 2 * cstride + c0), C2 = _mm256_loadu_ps(coef + 3 * cstride + c0);
        for (int oh = 0; oh < g->OH; oh++) {
            const float *r0 = x + p * isz + (size_t)2 * oh * g->W * 8, *r1 = r0 + (size_t)g->W * 8;
            size_t o = p * osz + (size_t)oh * g->OW * 8;
            for (int ow = 0; ow < g->OW; ow++, o += 8) {
                _mm_prefetch((const char *)(r0 + 16 * ow) + CPU_PF_AHEAD, _MM_HINT_T0);
                _mm_prefetch((const char *)(r1 + 16 * ow) + CPU_PF_AHEAD, _MM_HINT_T0);
                __m256i q = LOADPOS8(pos + o);
                __m256i live = _mm256_cmpeq_epi32(_mm256_and_si256(q, four), four);
                __m256 d = _mm256_and_ps(_mm256_loadu_ps(dout + o), _mm256_castsi256_ps(live));
                __m256i at = _mm256_and_si256(q, three);
                DX8(r0 + 16 * ow, 0);
                DX8(r0 + 16 * ow + 8, 1);
                DX8(r1 + 16 * ow, 2);
                DX8(r1 + 16 * ow + 8, 3);
            }
        }
    }
}

/* fwdz16 on nChw8c. */
AVX2_FN void fwdz8(float *out, const float *x, const float *skip, const float *coef, size_t cstride,
                   const bnp_geom *g, long p0, long p1) {
    size_t isz = (size_t)g->H * g->W * 8;
    const __m256 zero = _mm256_setzero_ps();
    for (long p = p0; p < p1; p++) {
        int c0 = (int)(p % g->CB) * 8;
        __m256 m = _mm256_loadu_ps(coef + c0), a = _mm256_loadu_ps(coef + cstride + c0),
               b = _mm256_loadu_ps(coef + 2 * cstride + c0);
        const float *in = x + p * isz;
        float *o = out + p * isz;
        if (skip) {
            const float *r = skip + p * isz;
            for (size_t i = 0; i < isz; i += 8) {
                if (i % 16 == 0) {
                    _mm_prefetch((const char *)(in + i) + CPU_PF_AHEAD, _MM_HINT_T0);
                    _mm_prefetch((const char *)(r + i) + CPU_PF_AHEAD, _MM_HINT_T0);
                }
                _mm256_store_ps(o + i, _mm256_add_ps(Z8(_mm256_loadu_ps(in + i)), _mm256_loadu_ps(r + i)));
            }
            continue;
        }
        for (size_t i = 0; i < isz; i += 8) {
            if (i % 16 == 0) _mm_prefetch((const char *)(in + i) + CPU_PF_AHEAD, _MM_HINT_T0);
            _mm256_stream_ps(o + i, Z8(_mm256_loadu_ps(in + i)));
        }
    }
}

/* LIVE16 on nChw8c: all ones where the ReLU passed. */
#define LIVE8(xv) _mm256_cmp_ps(_mm256_fmadd_ps(_mm256_sub_ps((xv), m), a, b), zero, _CMP_GT_OQ)

/* bstatsz16 on nChw8c. */
AVX2_FN void bstatsz8(double *part, const float *dout, const float *x, const float *coef, size_t cstride,
                      const bnp_geom *g, long p0, long p1) {
    size_t isz = (size_t)g->H * g->W * 8, rsz = (size_t)g->W * 8;
    const __m256 zero = _mm256_setzero_ps();
    for (long p = p0; p < p1; p++) {
        int c0 = (int)(p % g->CB) * 8;
        __m256 m = _mm256_loadu_ps(coef + c0), a = _mm256_loadu_ps(coef + cstride + c0),
               b = _mm256_loadu_ps(coef + 4 * cstride + c0);
        __m256d a0 = _mm256_setzero_pd(), a1 = a0, q0 = a0, q1 = a0;
        for (int h = 0; h < g->H; h++) {
            const float *r = x + p * isz + h * rsz, *d = dout + p * isz + h * rsz;
            __m256 s = _mm256_setzero_ps(), q = s;
            for (size_t i = 0; i < rsz; i += 8) {
                if (i % 16 == 0) {
                    _mm_prefetch((const char *)(r + i) + CPU_PF_AHEAD, _MM_HINT_T0);
                    _mm_prefetch((const char *)(d + i) + CPU_PF_AHEAD, _MM_HINT_T0);
                }
                __m256 xv = _mm256_loadu_ps(r + i);
                __m256 dy = _mm256_and_ps(_mm256_loadu_ps(d + i), LIVE8(xv));
                s = _mm256_add_ps(s, dy);
                q = _mm256_fmadd_ps(dy, _mm256_sub_ps(xv, m), q);
            }
            ACC8(a0, a1, s);
            ACC8(q0, q1, q);
        }
        double *o = part + (size_t)p * 16;
        _mm256_storeu_pd(o, a0), _mm256_storeu_pd(o + 4, a1);
        _mm256_storeu_pd(o + 8, q0), _mm256_storeu_pd(o + 12, q1);
    }
}

/* bwdz16 on nChw8c. */
AVX2_FN void bwdz8(float *dinp, const float *dout, const float *x, const float *coef, size_t cstride,
                   const bnp_geom *g, long p0, long p1) {
    size_t isz = (size_t)g->H * g->W * 8;
    const __m256 zero = _mm256_setzero_ps();
    for (long p = p0; p < p1; p++) {
        int c0 = (int)(p % g->CB) * 8;
        __m256 m = _mm256_loadu_ps(coef + c0), a = _mm256_loadu_ps(coef + cstride + c0),
               Bc = _mm256_loadu_ps(coef + 2 * cstride + c0), C2 = _mm256_loadu_ps(coef + 3 * cstride + c0),
               b = _mm256_loadu_ps(coef + 4 * cstride + c0);
        size_t base = p * isz;
        for (size_t i = base; i < base + isz; i += 8) {
            if (i % 16 == 0) {
                _mm_prefetch((const char *)(x + i) + CPU_PF_AHEAD, _MM_HINT_T0);
                _mm_prefetch((const char *)(dout + i) + CPU_PF_AHEAD, _MM_HINT_T0);
            }
            __m256 xv = _mm256_loadu_ps(x + i);
            __m256 dy = _mm256_and_ps(_mm256_loadu_ps(dout + i), LIVE8(xv));
            _mm256_stream_ps(dinp + i, _mm256_fmadd_ps(a, dy, _mm256_fmadd_ps(Bc, _mm256_sub_ps(xv, m), C2)));
        }
    }
}
#endif /* BNP_FAST */

/* Sums the per-plane partials of channel c (two sums: k = 0, 1) in plane order. */
static void channel_sums(const double *part, const bnp_geom *g, int c, double *s0, double *s1) {
    double a = 0, b = 0;
    int cb = c / g->B, l = c % g->B;
    for (int n = 0; n < g->N; n++) {
        const double *q = part + ((size_t)n * g->CB + cb) * 2 * g->B;
        a += q[l];
        b += q[g->B + l];
    }
    *s0 = a, *s1 = b;
}

/* The forward of a fused op (pooled or not): one region with pass 1, a barrier, each thread's
 * coefficients, pass 2; then the running statistics. */
static void fused_forward(cpu_ctx *c, tta_op *op, float *out, const float *inp, const float *skip, const float *gamma,
                          const float *beta, float *run_mean, float *run_var) {
#if BNP_FAST
    bnp_geom g = geom(c, op);
    bnp_mem mm = mem(op, &g);
    int train = op->train, avx512 = g.B == 16, pool = op->pool;
    assert(avx512 ? c->isa == CPU_ISA_AVX512 : c->isa != CPU_ISA_BASE);
    assert(pool || ((uintptr_t)out & 63) == 0); /* full-line streaming stores */
    assert(!skip || (!pool && op->add));
    double M = (double)g.N * g.H * g.W;
#pragma omp parallel num_threads(g.T)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        long p0 = g.planes * t / nt, p1 = g.planes * (t + 1) / nt;
        float *cf = mm.coef + (size_t)t * NCOEF * mm.cstride;
        if (train) {
            if (avx512)
                stats16(mm.part, inp, &g, p0, p1);
            else
                stats8(mm.part, inp, &g, p0, p1);
#pragma omp barrier
        }
        for (int ch = 0; ch < g.C; ch++) {
            float mu, var;
            if (train) {
                double s, q;
                channel_sums(mm.part, &g, ch, &s, &q);
                /* K: the channel's first value (stats16/stats8) */
                double K = inp[cpu_offset(g.B, op->in, 0, ch, 0, 0)], d = s / M, v = q / M - d * d;
                mu = (float)(K + d);
                var = (float)(v < 0 ? 0 : v);
                if (t == 0) mm.mean[ch] = mu, mm.var[ch] = var;
            } else {
                mu = run_mean[ch];
                var = run_var[ch];
            }
            cf[ch] = mu;
            cf[mm.cstride + ch] = (float)(gamma[ch] * rstd_of(var, op->eps));
            cf[2 * mm.cstride + ch] = beta[ch];
        }
        if (pool && avx512)
            fwd16(out, mm.xw, mm.pos, inp, cf, mm.cstride, &g, p0, p1);
        else if (pool)
            fwd8(out, mm.xw, mm.pos, inp, cf, mm.cstride, &g, p0, p1);
        else if (avx512)
            fwdz16(out, inp, skip, cf, mm.cstride, &g, p0, p1);
        else
            fwdz8(out, inp, skip, cf, mm.cstride, &g, p0, p1);
    }
    if (!pool) _mm_sfence(); /* the streaming stores are visible before the next layer reads them */
    if (train && run_mean && run_var) { /* as cpu_bn_forward: PyTorch's unbiased variance */
        double unbias = M > 1 ? M / (M - 1) : 1.0, mo = op->momentum;
        for (int i = 0; i < g.C; i++) {
            run_mean[i] = (float)((1 - mo) * run_mean[i] + mo * mm.mean[i]);
            run_var[i] = (float)((1 - mo) * run_var[i] + mo * mm.var[i] * unbias);
        }
    }
#else
    (void)c, (void)op, (void)out, (void)inp, (void)skip, (void)gamma, (void)beta, (void)run_mean, (void)run_var;
    assert(!"fused batch norm on a build without the vector kernels");
#endif
}

/* The backward of a fused op: one region with pass 1 (on the pooled grid, or on the whole map
 * with the ReLU mask recomputed from x), a barrier, each thread's coefficients (thread 0 writes
 * dgamma, dbeta), pass 2 writing dx where an input gradient is wanted. */
static void fused_backward(cpu_ctx *c, tta_op *op, float *dinp, float *dgamma, float *dbeta, const float *dout,
                           const float *inp, const float *gamma, const float *beta) {
#if BNP_FAST
    assert(op->train && op->saved);
    bnp_geom g = geom(c, op);
    bnp_mem mm = mem(op, &g);
    int avx512 = g.B == 16, want = op->need_dinp && dinp, pool = op->pool;
    assert(!want || ((uintptr_t)dinp & 63) == 0); /* full-line streaming stores */
    double M = (double)g.N * g.H * g.W;
#pragma omp parallel num_threads(g.T)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        long p0 = g.planes * t / nt, p1 = g.planes * (t + 1) / nt;
        float *cf = mm.coef + (size_t)t * NCOEF * mm.cstride;
        if (!pool) /* the forward's mean, a, beta: its ReLU mask */
            for (int ch = 0; ch < g.C; ch++) {
                cf[ch] = mm.mean[ch];
                cf[mm.cstride + ch] = (float)(gamma[ch] * rstd_of(mm.var[ch], op->eps));
                cf[4 * mm.cstride + ch] = beta[ch];
            }
        if (pool && avx512)
            bstats16(mm.part, dout, mm.xw, mm.pos, mm.mean, &g, p0, p1);
        else if (pool)
            bstats8(mm.part, dout, mm.xw, mm.pos, mm.mean, &g, p0, p1);
        else if (avx512)
            bstatsz16(mm.part, dout, inp, cf, mm.cstride, &g, p0, p1);
        else
            bstatsz8(mm.part, dout, inp, cf, mm.cstride, &g, p0, p1);
#pragma omp barrier
        /* dx = A dy + Bc (x - mean) + C2: mean, A, Bc, C2 */
        for (int ch = 0; ch < g.C; ch++) {
            double sdy, sdyx;
            channel_sums(mm.part, &g, ch, &sdy, &sdyx);
            double rstd = rstd_of(mm.var[ch], op->eps), gr = gamma[ch] * rstd;
            if (t == 0) {
                dgamma[ch] = (float)(sdyx * rstd);
                dbeta[ch] = (float)sdy;
            }
            cf[ch] = mm.mean[ch];
            cf[mm.cstride + ch] = (float)gr;
            cf[2 * mm.cstride + ch] = (float)(-gr * rstd * rstd * sdyx / M);
            cf[3 * mm.cstride + ch] = (float)(-gr * sdy / M);
        }
        if (want && pool && avx512)
            bwd16(dinp, dout, mm.pos, inp, cf, mm.cstride, &g, p0, p1);
        else if (want && pool)
            bwd8(dinp, dout, mm.pos, inp, cf, mm.cstride, &g, p0, p1);
        else if (want && avx512)
            bwdz16(dinp, dout, inp, cf, mm.cstride, &g, p0, p1);
        else if (want)
            bwdz8(dinp, dout, inp, cf, mm.cstride, &g, p0, p1);
    }
    _mm_sfence(); /* the streaming stores are globally visible before the next layer reads them */
#else
    (void)c, (void)op, (void)dinp, (void)dgamma, (void)dbeta, (void)dout, (void)inp, (void)gamma, (void)beta;
    assert(!"fused batch norm on a build without the vector kernels");
#endif
}

/* (engine.h, bn_pool_forward) fused_forward. */
void cpu_bn_pool_forward(void *ctx, tta_op *op, float *out, const float *inp, const float *gamma, const float *beta,
                         float *run_mean, float *run_var) {
    assert(op->pool);
    fused_forward(ctx, op, out, inp, NULL, gamma, beta, run_mean, run_var);
}

/* (engine.h, bn_pool_backward) fused_backward. */
void cpu_bn_pool_backward(void *ctx, tta_op *op, float *dinp, float *dgamma, float *dbeta, const float *dout,
                          const float *inp, const float *gamma) {
    assert(op->pool);
    fused_backward(ctx, op, dinp, dgamma, dbeta, dout, inp, gamma, NULL);
}

/* (cpu_internal.h) fused_forward. */
void cpu_bn_relu_forward(cpu_ctx *c, tta_op *op, float *out, const float *inp, const float *gamma, const float *beta,
                         float *run_mean, float *run_var) {
    assert(cpu_bn_relu_taken(c, op) && !op->add);
    fused_forward(c, op, out, inp, NULL, gamma, beta, run_mean, run_var);
}

/* (engine.h, bn_relu_add_supported) Where cpu_bn_relu_taken would take the op: blocked by 8 or 16
 * with vector kernels for it. */
int cpu_bn_relu_add_supported(void *ctx, tta_shape in) {
    cpu_ctx *c = ctx;
    int b = cpu_blocked(c, in);
    return BNP_FAST && c->isa != CPU_ISA_BASE && (b == 8 || b == 16);
}

/* (engine.h, bn_relu_add_forward) fused_forward with skip added to each z of its second pass. */
void cpu_bn_relu_add_forward(void *ctx, tta_op *op, float *out, const float *inp, const float *skip,
                             const float *gamma, const float *beta, float *run_mean, float *run_var) {
    assert(op->add && cpu_bn_relu_taken(ctx, op) && skip && skip != out);
    fused_forward(ctx, op, out, inp, skip, gamma, beta, run_mean, run_var);
}

/* (cpu_internal.h) fused_backward; dout is read only. */
void cpu_bn_relu_backward(cpu_ctx *c, tta_op *op, float *dinp, float *dgamma, float *dbeta, const float *dout,
                          const float *inp, const float *gamma, const float *beta) {
    assert(cpu_bn_relu_taken(c, op));
    fused_backward(c, op, dinp, dgamma, dbeta, dout, inp, gamma, beta);
}
