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
 * result does not depend on the thread count).
 */
#include <assert.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <string.h>
#include <xmmintrin.h>

#include "common/check.h"
#include "replay/cpu_internal.h"

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

void cpu_maxpool_forward(void *ctx, tta_op *op, float *out, const float *inp) {
    cpu_ctx *c = ctx;
    pool_geom g = geom(c, op);
    uint8_t *pos = op->train ? op->saved : NULL;
    int isa = c->isa;
#pragma omp parallel
    {
        int t = omp_get_thread_num(), T = omp_get_num_threads();
        long p0 = g.planes * t / T, p1 = g.planes * (t + 1) / T;
        fwd_planes_isa(isa, out, pos, inp, &g, p0, p1);
    }
}

/* The windows tile the plane exactly (disjoint, no gaps, nothing left over): the backward
 * writes every input-gradient element once, window by window, with no zeroing first. */
static int tiles(const pool_geom *g) {
    return g->P == 0 && g->OH * g->KH == g->H && g->OW * g->KW == g->W && (g->KH == g->S || g->OH == 1) &&
           (g->KW == g->S || g->OW == 1);
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
#pragma omp parallel
    {
        int t = omp_get_thread_num(), T = omp_get_num_threads();
        long p0 = g.planes * t / T, p1 = g.planes * (t + 1) / T;
        bwd_planes_isa(isa, dinp, dout, pos, &g, p0, p1);
    }
    _mm_sfence(); /* the streaming stores are globally visible before the next layer reads them */
}
