/* cpu_pool.c: max pooling (and global max pooling) of the cpu backend on its own layouts, by
 * direct loops: one pass over the input forward, one over the input gradient backward, in one
 * parallel region per call.
 *
 * Why not oneDNN's: its pooling (v2.6, jit:avx2 and jit:avx512_core alike) ran the fmnist-cnn
 * pools at 1-3 GB/s, a tenth of this host's memory bandwidth (pool1 forward + backward 57 ms
 * of a 558 ms step on a loaded host, 10 %). Here a blocked pixel's 8 or 16 channels are one
 * vector; the forward keeps the first maximum of each window, and in training writes its
 * position in the window as one byte per output element (the backward's "workspace": 1/16 of
 * the input's bytes for a 2x2 window), so the backward reads the output gradient and that byte
 * only. PyTorch's rule: the gradient goes to the first maximum of the window (row-major scan).
 *
 * Every layout of the cpu backend is a stack of planes of B interleaved channels: nChw16c
 * (B = 16), nChw8c (B = 8) and NCHW (B = 1, one channel per plane); plane p of sample n holds
 * channels p*B .. p*B+B-1, H*W*B floats. The work is split by planes (no reduction, so the
 * result does not depend on the thread count nor on which thread computes which plane), in
 * ranges that a thread done with its own takes from (plane_share below).
 */
#include <assert.h>
#include <math.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <xmmintrin.h>

#include "common/check.h"
#include "replay/cpu_internal.h"
#include "replay/cpu_simd.h"

/* Shapes of one pooling op as this file walks them. */
typedef struct {
    int B;            /* channels per plane: 16, 8 or 1 */
    long planes;      /* n * c / B */
    int H, W, OH, OW; /* input and output plane sizes */
    int KH, KW, S, P; /* window, stride, padding (top and left) */
} pool_geom;

static pool_geom geom(const cpu_ctx *c, const tta_op *op) {
    pool_geom g;
    int b = cpu_blocked(c, op->in);
    g.B = b ? b : 1;
    g.planes = (long)op->in.n * op->in.c / g.B;
    g.H = op->in.h, g.W = op->in.w, g.OH = op->out.h, g.OW = op->out.w;
    if (op->kind == TTA_OP_GMP) {
        g.KH = g.H, g.KW = g.W, g.S = 1, g.P = 0;
    } else {
        g.KH = g.KW = op->kernel, g.S = op->stride, g.P = op->pad;
    }
    return g;
}

int cpu_maxpool_supported(const cpu_ctx *c, const tta_op *op) {
    if (op->kind != TTA_OP_MAXPOOL && op->kind != TTA_OP_GMP) return 0;
    pool_geom g = geom(c, op);
    /* the workspace byte holds a window position; the output block must match the input's */
    return g.KH * g.KW <= 256 && cpu_blocked(c, op->in) == cpu_blocked(c, op->out);
}

int cpu_maxpool_init(cpu_ctx *c, tta_op *op) {
    assert(cpu_maxpool_supported(c, op));
    op->impl = NULL;
    op->saved_bytes = op->train ? tta_shape_count(op->out) : 0; /* one window position per output */
    op->scratch_bytes = 0;
    return 0;
}

/* Vectors of V floats, ints and bytes (GCC's vector extensions): a blocked pixel's channels in
 * one register (two for 16 on AVX2). The max and its position are kept with compare masks and
 * the positions narrowed to bytes by __builtin_convertvector, so that every ISA build
 * (CPU_ISA_CLONES) gets straight-line vector code whatever its auto-vectoriser makes of it. */
typedef float vf16 __attribute__((vector_size(64)));
typedef int vi16 __attribute__((vector_size(64)));
typedef uint8_t vb16 __attribute__((vector_size(16)));
typedef float vf8 __attribute__((vector_size(32)));
typedef int vi8 __attribute__((vector_size(32)));
typedef uint8_t vb8 __attribute__((vector_size(8)));

/* One plane forward with B = V (16 or 8): out[oh][ow][:] = the first maximum of each window,
 * pos (may be NULL) its position kh*KW + kw. */
#define DEFINE_FWD_PLANE(V)                                                                                   \
    static inline __attribute__((always_inline)) void fwd_plane_##V(float *restrict out, uint8_t *restrict pos, \
                                                                    const float *restrict in, const pool_geom *g) { \
        for (int oh = 0; oh < g->OH; oh++) {                                                                  \
            int h0 = oh * g->S - g->P;                                                                        \
            int kh0 = h0 < 0 ? -h0 : 0, kh1 = g->H - h0 < g->KH ? g->H - h0 : g->KH;                          \
            for (int ow = 0; ow < g->OW; ow++) {                                                              \
                int w0 = ow * g->S - g->P;                                                                    \
                int kw0 = w0 < 0 ? -w0 : 0, kw1 = g->W - w0 < g->KW ? g->W - w0 : g->KW;                      \
                assert(kh0 < kh1 && kw0 < kw1);                                                               \
                vf##V best;                                                                                   \
                memcpy(&best, in + ((size_t)(h0 + kh0) * g->W + (w0 + kw0)) * V, sizeof best);                \
                vi##V at = (vi##V){0} + (kh0 * g->KW + kw0);                                                  \
                for (int kh = kh0; kh < kh1; kh++)                                                            \
                    for (int kw = kw0; kw < kw1; kw++) {                                                      \
                        vf##V x;                                                                              \
                        memcpy(&x, in + ((size_t)(h0 + kh) * g->W + (w0 + kw)) * V, sizeof x);                \
                        vi##V gt = x > best;                                                                  \
                        best = (vf##V)(((vi##V)x & gt) | ((vi##V)best & ~gt));                                \
                        at = (at & ~gt) | (((vi##V){0} + (kh * g->KW + kw)) & gt);                            \
                    }                                                                                         \
                memcpy(out + ((size_t)oh * g->OW + ow) * V, &best, sizeof best);                              \
                if (pos) {                                                                                    \
                    vb##V b = __builtin_convertvector(at, vb##V);                                             \
                    memcpy(pos + ((size_t)oh * g->OW + ow) * V, &b, sizeof b);                                \
                }                                                                                             \
            }                                                                                                 \
        }                                                                                                     \
    }
DEFINE_FWD_PLANE(16)
DEFINE_FWD_PLANE(8)

/* One plane forward of an NCHW tensor (one channel per plane). */
static inline __attribute__((always_inline)) void fwd_plane_1(float *restrict out, uint8_t *restrict pos,
                                                              const float *restrict in, const pool_geom *g) {
    for (int oh = 0; oh < g->OH; oh++) {
        int h0 = oh * g->S - g->P;
        int kh0 = h0 < 0 ? -h0 : 0, kh1 = g->H - h0 < g->KH ? g->H - h0 : g->KH;
        for (int ow = 0; ow < g->OW; ow++) {
            int w0 = ow * g->S - g->P;
            int kw0 = w0 < 0 ? -w0 : 0, kw1 = g->W - w0 < g->KW ? g->W - w0 : g->KW;
            assert(kh0 < kh1 && kw0 < kw1); /* PyTorch: padding at most half the window */
            float best = in[(size_t)(h0 + kh0) * g->W + (w0 + kw0)];
            int at = kh0 * g->KW + kw0;
            for (int kh = kh0; kh < kh1; kh++)
                for (int kw = kw0; kw < kw1; kw++) {
                    float x = in[(size_t)(h0 + kh) * g->W + (w0 + kw)];
                    if (x > best) best = x, at = kh * g->KW + kw;
                }
            out[(size_t)oh * g->OW + ow] = best;
            if (pos) pos[(size_t)oh * g->OW + ow] = (uint8_t)at;
        }
    }
}

static inline __attribute__((always_inline)) void fwd_planes_body(float *out, uint8_t *pos, const float *in,
                                                                  const pool_geom *g, long p0, long p1) {
    size_t isz = (size_t)g->H * g->W * g->B, osz = (size_t)g->OH * g->OW * g->B;
    for (long p = p0; p < p1; p++) {
        uint8_t *pp = pos ? pos + p * osz : NULL;
        if (g->B == 16)
            fwd_plane_16(out + p * osz, pp, in + p * isz, g);
        else if (g->B == 8)
            fwd_plane_8(out + p * osz, pp, in + p * isz, g);
        else
            fwd_plane_1(out + p * osz, pp, in + p * isz, g);
    }
}
CPU_ISA_CLONES(fwd_planes, (float *out, uint8_t *pos, const float *in, const pool_geom *g, long p0, long p1),
               (out, pos, in, g, p0, p1))

/* The windows tile the plane exactly (disjoint, no gaps, nothing left over): the backward
 * writes every input-gradient element once, window by window, with no zeroing first. */
static int tiles(const pool_geom *g) {
    return g->P == 0 && g->OH * g->KH == g->H && g->OW * g->KW == g->W && (g->KH == g->S || g->OH == 1) &&
           (g->KW == g->S || g->OW == 1);
}

/* Fast paths (AVX2 and AVX-512 builds; the baseline build and other shapes take the loops
 * above). The loops above are general (any window, stride, padding) and on 8-float vectors
 * ran at about half the bytes per instruction of 16-float ones: per output pixel a window
 * loop with its bounds, and __builtin_convertvector narrowing the positions to bytes, which
 * GCC's AVX2 build does lane by lane through general registers (and widens them back the same
 * way in the backward). The AVX2 cap ran the fmnist-cnn pools at 1.8-2.1x their bytes ÷
 * bandwidth against 1.3-1.5x with AVX-512. Here, with intrinsics:
 *  - a 2x2 window of stride 2 without padding (the cnn's pools): the four pixels compared in
 *    the row-major order of the loops above (x > best, strict: the first maximum wins, NaN and
 *    signed zeros as there), the positions narrowed by one byte shuffle (AVX2) or kept as
 *    bytes under the compare masks (AVX-512); backward, each output's four input pixels
 *    written with full-width streaming stores;
 *  - the global max pool: the plane's pixels in four contiguous runs scanned side by side
 *    (one scan is a chain of dependent compares, one pixel per compare latency), the runs'
 *    results merged in order with the same strict compare, which gives the first maximum of
 *    the whole scan: runs after the first start from -inf, so a run takes over only with a
 *    value above everything before it (and a NaN first pixel stays, as in one scan).
 * The results are the loops' bit for bit (tests/replay/test_layers, ties included). */
#if CPU_SIMD_X86
#define POOL_FAST 1

/* x > best (ordered, as C's >): take x and position k. */
#define STEP8(x, k)                                                                  \
    do {                                                                             \
        __m256 gt_ = _mm256_cmp_ps((x), best, _CMP_GT_OQ);                           \
        best = _mm256_blendv_ps(best, (x), gt_);                                     \
        at = _mm256_blendv_epi8(at, _mm256_set1_epi32(k), _mm256_castps_si256(gt_)); \
    } while (0)

/* 2x2, stride 2, no padding, B = 8: planes p0..p1. */
AVX2_INLINE void fwd2x2_8(float *out, uint8_t *pos, const float *in, const pool_geom *g, long p0, long p1) {
    size_t isz = (size_t)g->H * g->W * 8, osz = (size_t)g->OH * g->OW * 8;
    for (long p = p0; p < p1; p++)
        for (int oh = 0; oh < g->OH; oh++) {
            const float *r0 = in + p * isz + (size_t)2 * oh * g->W * 8, *r1 = r0 + (size_t)g->W * 8;
            float *o = out + p * osz + (size_t)oh * g->OW * 8;
            uint8_t *q = pos ? pos + p * osz + (size_t)oh * g->OW * 8 : NULL;
            for (int ow = 0; ow < g->OW; ow++) {
                _mm_prefetch((const char *)(r0 + 16 * ow) + CPU_PF_AHEAD, _MM_HINT_T0);
                _mm_prefetch((const char *)(r1 + 16 * ow) + CPU_PF_AHEAD, _MM_HINT_T0);
                __m256 best = _mm256_loadu_ps(r0 + 16 * ow);
                __m256i at = _mm256_setzero_si256();
                STEP8(_mm256_loadu_ps(r0 + 16 * ow + 8), 1);
                STEP8(_mm256_loadu_ps(r1 + 16 * ow), 2);
                STEP8(_mm256_loadu_ps(r1 + 16 * ow + 8), 3);
                _mm256_storeu_ps(o + 8 * ow, best);
                if (q) cpu_store_pos8(q + 8 * ow, at);
            }
        }
}

/* Backward of fwd2x2_8 where the windows tile the plane (H, W even): every input-gradient
 * pixel written once, a window's row (64 bytes, line-aligned: the planes are) by two
 * streaming stores. */
AVX2_INLINE void bwd2x2_8(float *dinp, const float *dout, const uint8_t *pos, const pool_geom *g, long p0, long p1) {
    size_t isz = (size_t)g->H * g->W * 8, osz = (size_t)g->OH * g->OW * 8;
    for (long p = p0; p < p1; p++)
        for (int oh = 0; oh < g->OH; oh++) {
            float *r0 = dinp + p * isz + (size_t)2 * oh * g->W * 8, *r1 = r0 + (size_t)g->W * 8;
            const float *d = dout + p * osz + (size_t)oh * g->OW * 8;
            const uint8_t *q = pos + p * osz + (size_t)oh * g->OW * 8;
            for (int ow = 0; ow < g->OW; ow++) {
                __m256 dy = _mm256_loadu_ps(d + 8 * ow);
                __m256i pv = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(q + 8 * ow)));
                _mm256_stream_ps(r0 + 16 * ow, _mm256_and_ps(dy, _mm256_castsi256_ps(_mm256_cmpeq_epi32(pv, _mm256_set1_epi32(0)))));
                _mm256_stream_ps(r0 + 16 * ow + 8, _mm256_and_ps(dy, _mm256_castsi256_ps(_mm256_cmpeq_epi32(pv, _mm256_set1_epi32(1)))));
                _mm256_stream_ps(r1 + 16 * ow, _mm256_and_ps(dy, _mm256_castsi256_ps(_mm256_cmpeq_epi32(pv, _mm256_set1_epi32(2)))));
                _mm256_stream_ps(r1 + 16 * ow + 8, _mm256_and_ps(dy, _mm256_castsi256_ps(_mm256_cmpeq_epi32(pv, _mm256_set1_epi32(3)))));
            }
        }
}

/* Global max pool, B = 8: n = H*W pixels of each plane in four runs (see above). */
AVX2_INLINE void gmp_fwd_8(float *out, uint8_t *pos, const float *in, const pool_geom *g, long p0, long p1) {
    int n = g->H * g->W, r = n / 4;
    assert(r >= 1 && n <= 256);
    for (long p = p0; p < p1; p++) {
        const float *x = in + p * (size_t)n * 8;
        for (int i = 0; i < n * 32; i += 64) _mm_prefetch((const char *)x + CPU_PF_AHEAD + i, _MM_HINT_T0);
        __m256 b[4];
        __m256i a[4];
        b[0] = _mm256_loadu_ps(x);
        b[1] = b[2] = b[3] = _mm256_set1_ps(-INFINITY);
        for (int k = 0; k < 4; k++) a[k] = _mm256_setzero_si256();
        for (int i = 0; i < r; i++)
            for (int k = 0; k < 4; k++) {
                __m256 v = _mm256_loadu_ps(x + (size_t)(k * r + i) * 8);
                __m256 gt = _mm256_cmp_ps(v, b[k], _CMP_GT_OQ);
                b[k] = _mm256_blendv_ps(b[k], v, gt);
                a[k] = _mm256_blendv_epi8(a[k], _mm256_set1_epi32(k * r + i), _mm256_castps_si256(gt));
            }
        for (int i = 4 * r; i < n; i++) { /* the rest of the last run */
            __m256 v = _mm256_loadu_ps(x + (size_t)i * 8);
            __m256 gt = _mm256_cmp_ps(v, b[3], _CMP_GT_OQ);
            b[3] = _mm256_blendv_ps(b[3], v, gt);
            a[3] = _mm256_blendv_epi8(a[3], _mm256_set1_epi32(i), _mm256_castps_si256(gt));
        }
        __m256 best = b[0];
        __m256i at = a[0];
        for (int k = 1; k < 4; k++) {
            __m256 gt = _mm256_cmp_ps(b[k], best, _CMP_GT_OQ);
            best = _mm256_blendv_ps(best, b[k], gt);
            at = _mm256_blendv_epi8(at, a[k], _mm256_castps_si256(gt));
        }
        _mm256_storeu_ps(out + p * 8, best);
        if (pos) cpu_store_pos8(pos + p * 8, at);
    }
}

/* Backward of the global max pool, B = 8: the plane written once, by streaming stores. */
AVX2_INLINE void gmp_bwd_8(float *dinp, const float *dout, const uint8_t *pos, const pool_geom *g, long p0, long p1) {
    int n = g->H * g->W;
    for (long p = p0; p < p1; p++) {
        float *d = dinp + p * (size_t)n * 8;
        __m256 dy = _mm256_loadu_ps(dout + p * 8);
        __m256i pv = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(pos + p * 8)));
        for (int i = 0; i < n; i++)
            _mm256_stream_ps(d + (size_t)i * 8,
                             _mm256_and_ps(dy, _mm256_castsi256_ps(_mm256_cmpeq_epi32(pv, _mm256_set1_epi32(i)))));
    }
}

/* The same with B = 16 on AVX-512: positions as bytes under the compare masks. */
#define STEP16(x, k)                                              \
    do {                                                          \
        __mmask16 gt_ = _mm512_cmp_ps_mask((x), best, _CMP_GT_OQ); \
        best = _mm512_mask_mov_ps(best, gt_, (x));                \
        at = _mm_mask_mov_epi8(at, gt_, _mm_set1_epi8(k));        \
    } while (0)

AVX512_INLINE void fwd2x2_16(float *out, uint8_t *pos, const float *in, const pool_geom *g, long p0, long p1) {
    size_t isz = (size_t)g->H * g->W * 16, osz = (size_t)g->OH * g->OW * 16;
    for (long p = p0; p < p1; p++)
        for (int oh = 0; oh < g->OH; oh++) {
            const float *r0 = in + p * isz + (size_t)2 * oh * g->W * 16, *r1 = r0 + (size_t)g->W * 16;
            float *o = out + p * osz + (size_t)oh * g->OW * 16;
            uint8_t *q = pos ? pos + p * osz + (size_t)oh * g->OW * 16 : NULL;
            for (int ow = 0; ow < g->OW; ow++) {
                _mm_prefetch((const char *)(r0 + 32 * ow) + CPU_PF_AHEAD, _MM_HINT_T0);
                _mm_prefetch((const char *)(r0 + 32 * ow) + CPU_PF_AHEAD + 64, _MM_HINT_T0);
                _mm_prefetch((const char *)(r1 + 32 * ow) + CPU_PF_AHEAD, _MM_HINT_T0);
                _mm_prefetch((const char *)(r1 + 32 * ow) + CPU_PF_AHEAD + 64, _MM_HINT_T0);
                __m512 best = _mm512_loadu_ps(r0 + 32 * ow);
                __m128i at = _mm_setzero_si128();
                STEP16(_mm512_loadu_ps(r0 + 32 * ow + 16), 1);
                STEP16(_mm512_loadu_ps(r1 + 32 * ow), 2);
                STEP16(_mm512_loadu_ps(r1 + 32 * ow + 16), 3);
                _mm512_storeu_ps(o + 16 * ow, best);
                if (q) _mm_storeu_si128((__m128i *)(q + 16 * ow), at);
            }
        }
}

AVX512_INLINE void bwd2x2_16(float *dinp, const float *dout, const uint8_t *pos, const pool_geom *g, long p0, long p1) {
    size_t isz = (size_t)g->H * g->W * 16, osz = (size_t)g->OH * g->OW * 16;
    for (long p = p0; p < p1; p++)
        for (int oh = 0; oh < g->OH; oh++) {
            float *r0 = dinp + p * isz + (size_t)2 * oh * g->W * 16, *r1 = r0 + (size_t)g->W * 16;
            const float *d = dout + p * osz + (size_t)oh * g->OW * 16;
            const uint8_t *q = pos + p * osz + (size_t)oh * g->OW * 16;
            for (int ow = 0; ow < g->OW; ow++) {
                __m512 dy = _mm512_loadu_ps(d + 16 * ow);
                __m128i pb = _mm_loadu_si128((const __m128i *)(q + 16 * ow));
                _mm512_stream_ps(r0 + 32 * ow, _mm512_maskz_mov_ps(_mm_cmpeq_epi8_mask(pb, _mm_set1_epi8(0)), dy));
                _mm512_stream_ps(r0 + 32 * ow + 16, _mm512_maskz_mov_ps(_mm_cmpeq_epi8_mask(pb, _mm_set1_epi8(1)), dy));
                _mm512_stream_ps(r1 + 32 * ow, _mm512_maskz_mov_ps(_mm_cmpeq_epi8_mask(pb, _mm_set1_epi8(2)), dy));
                _mm512_stream_ps(r1 + 32 * ow + 16, _mm512_maskz_mov_ps(_mm_cmpeq_epi8_mask(pb, _mm_set1_epi8(3)), dy));
            }
        }
}

AVX512_INLINE void gmp_fwd_16(float *out, uint8_t *pos, const float *in, const pool_geom *g, long p0, long p1) {
    int n = g->H * g->W, r = n / 4;
    assert(r >= 1 && n <= 256);
    for (long p = p0; p < p1; p++) {
        const float *x = in + p * (size_t)n * 16;
        for (int i = 0; i < n * 64; i += 64) _mm_prefetch((const char *)x + CPU_PF_AHEAD + i, _MM_HINT_T0);
        __m512 b[4];
        __m128i a[4];
        b[0] = _mm512_loadu_ps(x);
        b[1] = b[2] = b[3] = _mm512_set1_ps(-INFINITY);
        for (int k = 0; k < 4; k++) a[k] = _mm_setzero_si128();
        for (int i = 0; i < r; i++)
            for (int k = 0; k < 4; k++) {
                __m512 v = _mm512_loadu_ps(x + (size_t)(k * r + i) * 16);
                __mmask16 gt = _mm512_cmp_ps_mask(v, b[k], _CMP_GT_OQ);
                b[k] = _mm512_mask_mov_ps(b[k], gt, v);
                a[k] = _mm_mask_mov_epi8(a[k], gt, _mm_set1_epi8((char)(k * r + i)));
            }
        for (int i = 4 * r; i < n; i++) {
            __m512 v = _mm512_loadu_ps(x + (size_t)i * 16);
            __mmask16 gt = _mm512_cmp_ps_mask(v, b[3], _CMP_GT_OQ);
            b[3] = _mm512_mask_mov_ps(b[3], gt, v);
            a[3] = _mm_mask_mov_epi8(a[3], gt, _mm_set1_epi8((char)i));
        }
        __m512 best = b[0];
        __m128i at = a[0];
        for (int k = 1; k < 4; k++) {
            __mmask16 gt = _mm512_cmp_ps_mask(b[k], best, _CMP_GT_OQ);
            best = _mm512_mask_mov_ps(best, gt, b[k]);
            at = _mm_mask_mov_epi8(at, gt, a[k]);
        }
        _mm512_storeu_ps(out + p * 16, best);
        if (pos) _mm_storeu_si128((__m128i *)(pos + p * 16), at);
    }
}

AVX512_INLINE void gmp_bwd_16(float *dinp, const float *dout, const uint8_t *pos, const pool_geom *g, long p0, long p1) {
    int n = g->H * g->W;
    for (long p = p0; p < p1; p++) {
        float *d = dinp + p * (size_t)n * 16;
        __m512 dy = _mm512_loadu_ps(dout + p * 16);
        __m128i pb = _mm_loadu_si128((const __m128i *)(pos + p * 16));
        for (int i = 0; i < n; i++)
            _mm512_stream_ps(d + (size_t)i * 16, _mm512_maskz_mov_ps(_mm_cmpeq_epi8_mask(pb, _mm_set1_epi8((char)i)), dy));
    }
}

/* Which fast path takes an op: 0 none, else one of these. */
enum { FAST_NONE = 0, FAST_2X2, FAST_GMP };
static int fast_kind(int isa, const pool_geom *g, int backward) {
    if (isa != CPU_ISA_AVX2 && isa != CPU_ISA_AVX512) return FAST_NONE;
    if (g->B != 8 && !(g->B == 16 && isa == CPU_ISA_AVX512)) return FAST_NONE;
    if (g->OH == 1 && g->OW == 1 && g->KH == g->H && g->KW == g->W && g->P == 0 && g->H * g->W >= 4)
        return FAST_GMP;
    if (g->KH == 2 && g->KW == 2 && g->S == 2 && g->P == 0 && (!backward || tiles(g))) return FAST_2X2;
    return FAST_NONE;
}

CPU_TARGET_AVX2 static void fast_fwd_avx2(int kind, float *out, uint8_t *pos, const float *in, const pool_geom *g,
                                          long p0, long p1) {
    if (kind == FAST_2X2) fwd2x2_8(out, pos, in, g, p0, p1);
    else gmp_fwd_8(out, pos, in, g, p0, p1);
}
CPU_TARGET_AVX512 static void fast_fwd_avx512(int kind, float *out, uint8_t *pos, const float *in, const pool_geom *g,
                                              long p0, long p1) {
    if (g->B == 16) {
        if (kind == FAST_2X2) fwd2x2_16(out, pos, in, g, p0, p1);
        else gmp_fwd_16(out, pos, in, g, p0, p1);
    } else {
        if (kind == FAST_2X2) fwd2x2_8(out, pos, in, g, p0, p1);
        else gmp_fwd_8(out, pos, in, g, p0, p1);
    }
}
CPU_TARGET_AVX2 static void fast_bwd_avx2(int kind, float *dinp, const float *dout, const uint8_t *pos,
                                          const pool_geom *g, long p0, long p1) {
    if (kind == FAST_2X2) bwd2x2_8(dinp, dout, pos, g, p0, p1);
    else gmp_bwd_8(dinp, dout, pos, g, p0, p1);
}
CPU_TARGET_AVX512 static void fast_bwd_avx512(int kind, float *dinp, const float *dout, const uint8_t *pos,
                                              const pool_geom *g, long p0, long p1) {
    if (g->B == 16) {
        if (kind == FAST_2X2) bwd2x2_16(dinp, dout, pos, g, p0, p1);
        else gmp_bwd_16(dinp, dout, pos, g, p0, p1);
    } else {
        if (kind == FAST_2X2) bwd2x2_8(dinp, dout, pos, g, p0, p1);
        else gmp_bwd_8(dinp, dout, pos, g, p0, p1);
    }
}
#else
#define POOL_FAST 0
#endif

/* The planes shared out among a parallel region's threads. Thread t owns the t-th of T equal
 * ranges (the static split of before, which stays when the threads arrive together) and takes
 * it from the front, half of what is left at each take; once done, it takes from the other
 * ranges the same way, one atomic counter per range. Why: on a VM each parallel region wakes
 * its threads one by one (tta profile's gmp at 2 threads: the master starts its planes 14-22
 * us after the call, the other thread 22-49 us after it; as AVX2 the master's share took 130
 * us, the forward 209 us in all); with a static split the layer waits for the late thread's
 * whole share, here the master does part of it meanwhile. Likewise when a thread
 * loses its core to another process. Halves, not fixed chunks: each take is a locked
 * instruction, which waits for the thread's streaming stores to drain (the gmp backward
 * alone, 2 threads, AVX2: static 129-131 us, 64 KiB chunks 140-145, 16 KiB ones 167); halving
 * takes about log2(range / min) of them.
 * The last 2 x min planes of the master's range are its own last take (range T): the master
 * then comes last to the region's closing barrier. With OMP_WAIT_POLICY=PASSIVE the threads
 * there sleep, and a master that arrives first sleeps until the last thread wakes it: the
 * call returned 6-31 us (median 19, 8 runs, gmp, AVX-512 and AVX2) after both threads' work
 * ended; with this last take 1-2 us in half the runs, 11-23 in the others. */
enum { SHARE_MAX = 64, SHARE_MIN_BYTES = 1 << 15 };
typedef struct {
    _Alignas(64) atomic_long next; /* the range's next plane not yet taken */
    long end;                      /* one past the range's last plane */
} plane_range;

typedef struct {
    plane_range r[SHARE_MAX + 1]; /* the threads' ranges, then the master's last take */
    long min;                     /* planes in the smallest take */
} plane_share;

/* Sets up the share of planes 0 .. planes-1 among T threads (T <= SHARE_MAX). */
static void share_init(plane_share *s, long planes, int T, size_t plane_bytes) {
    assert(T >= 1 && T <= SHARE_MAX);
    s->min = plane_bytes >= SHARE_MIN_BYTES ? 1 : (long)(SHARE_MIN_BYTES / plane_bytes);
    for (int t = 0; t < T; t++) {
        atomic_init(&s->r[t].next, planes * t / T);
        s->r[t].end = planes * (t + 1) / T;
    }
    long last = s->r[0].end - 2 * s->min > 0 ? s->r[0].end - 2 * s->min : 0;
    atomic_init(&s->r[T].next, last);
    s->r[T].end = s->r[0].end;
    s->r[0].end = last;
}

/* The next planes [*p0, *p1) for thread t of T: from its own range, then from the others in
 * turn, then (the master) its last take (*k: the range it takes from now, 0 on the first
 * call). 0 when none is left. */
static int share_next(plane_share *s, int t, int T, int *k, long *p0, long *p1) {
    for (; *k < T; ++*k) {
        plane_range *r = &s->r[(t + *k) % T];
        long a = atomic_load_explicit(&r->next, memory_order_relaxed);
        while (a < r->end) {
            long n = (r->end - a) / 2;
            if (n < s->min) n = r->end - a < s->min ? r->end - a : s->min;
            if (atomic_compare_exchange_weak_explicit(&r->next, &a, a + n, memory_order_relaxed,
                                                      memory_order_relaxed)) {
                *p0 = a, *p1 = a + n;
                return 1;
            }
        }
    }
    if (t == 0 && *k == T) { /* only the master takes it: no atomic needed */
        ++*k;
        *p0 = atomic_load_explicit(&s->r[T].next, memory_order_relaxed), *p1 = s->r[T].end;
        return *p0 < *p1;
    }
    return 0;
}

/* Threads for a region: the backend's, at most SHARE_MAX (a larger team's extra threads find
 * no range and return at once). */
static int share_threads(void) {
    int T = omp_get_max_threads();
    return T < SHARE_MAX ? T : SHARE_MAX;
}

void cpu_maxpool_forward(void *ctx, tta_op *op, float *out, const float *inp) {
    cpu_ctx *c = ctx;
    pool_geom g = geom(c, op);
    uint8_t *pos = op->train ? op->saved : NULL;
    int isa = c->isa;
    int fast = POOL_FAST ? fast_kind(isa, &g, 0) : 0;
    int T = share_threads();
    plane_share sh;
    share_init(&sh, g.planes, T, sizeof(float) * g.H * g.W * g.B);
#pragma omp parallel num_threads(T)
    {
        int t = omp_get_thread_num(), k = 0;
        long p0, p1;
        while (t < T && share_next(&sh, t, T, &k, &p0, &p1)) {
#if POOL_FAST
            if (fast && isa == CPU_ISA_AVX512)
                fast_fwd_avx512(fast, out, pos, inp, &g, p0, p1);
            else if (fast)
                fast_fwd_avx2(fast, out, pos, inp, &g, p0, p1);
            else
#endif
                fwd_planes_isa(isa, out, pos, inp, &g, p0, p1);
        }
    }
}


/* One plane backward with B = V: for each window, its gradient where the window's maximum was,
 * 0 elsewhere (dinp zeroed first unless the windows tile the plane; then added, so that
 * overlapping windows sum). Where the windows tile the plane every element is written once,
 * with streaming stores (SSE's, in every build): the input gradient is 4x the bytes the
 * backward reads, and a normal store reads each line before writing it (pool1 of fmnist-cnn:
 * 8.8 -> 6.6-7.7 ms per step, the batch norm that reads the gradient next no slower). The
 * planes are 64-byte aligned (the model's allocations) and hold whole vectors. */
#define DEFINE_BWD_PLANE(V)                                                                                   \
    static inline __attribute__((always_inline)) void bwd_plane_##V(float *restrict dinp, const float *restrict dout, \
                                                                    const uint8_t *restrict pos, const pool_geom *g, \
                                                                    int tile) {                               \
        if (!tile) memset(dinp, 0, sizeof(float) * g->H * g->W * V);                                          \
        for (int oh = 0; oh < g->OH; oh++)                                                                    \
            for (int ow = 0; ow < g->OW; ow++) {                                                              \
                vf##V dy;                                                                                     \
                vb##V pb;                                                                                     \
                memcpy(&dy, dout + ((size_t)oh * g->OW + ow) * V, sizeof dy);                                 \
                memcpy(&pb, pos + ((size_t)oh * g->OW + ow) * V, sizeof pb);                                  \
                vi##V pv = __builtin_convertvector(pb, vi##V);                                                \
                int h0 = oh * g->S - g->P, w0 = ow * g->S - g->P;                                             \
                for (int kh = 0; kh < g->KH; kh++) {                                                          \
                    if (h0 + kh < 0 || h0 + kh >= g->H) continue;                                            \
                    for (int kw = 0; kw < g->KW; kw++) {                                                      \
                        if (w0 + kw < 0 || w0 + kw >= g->W) continue;                                        \
                        float *d = dinp + ((size_t)(h0 + kh) * g->W + (w0 + kw)) * V;                         \
                        vf##V v = (vf##V)((vi##V)dy & (pv == kh * g->KW + kw));                               \
                        if (!tile) {                                                                          \
                            vf##V old;                                                                        \
                            memcpy(&old, d, sizeof old);                                                      \
                            v += old;                                                                         \
                        }                                                                                     \
                        if (tile) {                                                                           \
                            for (int q = 0; q < V; q += 4) _mm_stream_ps(d + q, _mm_loadu_ps((float *)&v + q));      \
                        } else {                                                                              \
                            memcpy(d, &v, sizeof v);                                                          \
                        }                                                                                     \
                    }                                                                                         \
                }                                                                                             \
            }                                                                                                 \
    }
DEFINE_BWD_PLANE(16)
DEFINE_BWD_PLANE(8)

/* One plane backward of an NCHW tensor: zero, then add each window's gradient at its maximum. */
static inline __attribute__((always_inline)) void bwd_plane_1(float *restrict dinp, const float *restrict dout,
                                                              const uint8_t *restrict pos, const pool_geom *g) {
    memset(dinp, 0, sizeof(float) * g->H * g->W);
    for (int oh = 0; oh < g->OH; oh++)
        for (int ow = 0; ow < g->OW; ow++) {
            int k = pos[(size_t)oh * g->OW + ow];
            int h = oh * g->S - g->P + k / g->KW, w = ow * g->S - g->P + k % g->KW;
            dinp[(size_t)h * g->W + w] += dout[(size_t)oh * g->OW + ow];
        }
}

static inline __attribute__((always_inline)) void bwd_planes_body(float *dinp, const float *dout, const uint8_t *pos,
                                                                  const pool_geom *g, long p0, long p1) {
    size_t isz = (size_t)g->H * g->W * g->B, osz = (size_t)g->OH * g->OW * g->B;
    int tile = tiles(g);
    for (long p = p0; p < p1; p++) {
        if (g->B == 16)
            bwd_plane_16(dinp + p * isz, dout + p * osz, pos + p * osz, g, tile);
        else if (g->B == 8)
            bwd_plane_8(dinp + p * isz, dout + p * osz, pos + p * osz, g, tile);
        else
            bwd_plane_1(dinp + p * isz, dout + p * osz, pos + p * osz, g);
    }
}
CPU_ISA_CLONES(bwd_planes, (float *dinp, const float *dout, const uint8_t *pos, const pool_geom *g, long p0, long p1),
               (dinp, dout, pos, g, p0, p1))

void cpu_maxpool_backward(void *ctx, tta_op *op, float *dinp, const float *dout) {
    cpu_ctx *c = ctx;
    assert(op->train && op->saved);
    pool_geom g = geom(c, op);
    const uint8_t *pos = op->saved;
    assert(((uintptr_t)dinp & 15) == 0); /* the streaming stores' alignment */
    int isa = c->isa;
    /* the fast paths' full-width streaming stores want lines (the model's allocations are) */
    int fast = POOL_FAST && ((uintptr_t)dinp & 63) == 0 ? fast_kind(isa, &g, 1) : 0;
    int T = share_threads();
    plane_share sh;
    share_init(&sh, g.planes, T, sizeof(float) * g.H * g.W * g.B);
#pragma omp parallel num_threads(T)
    {
        int t = omp_get_thread_num(), k = 0;
        long p0, p1;
        while (t < T && share_next(&sh, t, T, &k, &p0, &p1)) {
#if POOL_FAST
            if (fast && isa == CPU_ISA_AVX512)
                fast_bwd_avx512(fast, dinp, dout, pos, &g, p0, p1);
            else if (fast)
                fast_bwd_avx2(fast, dinp, dout, pos, &g, p0, p1);
            else
#endif
                bwd_planes_isa(isa, dinp, dout, pos, &g, p0, p1);
        }
    }
    _mm_sfence(); /* the streaming stores are globally visible before the next layer reads them */
}
