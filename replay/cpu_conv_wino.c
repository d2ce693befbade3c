/* cpu_conv_wino.c: 3x3 convolutions of stride 1 and padding 1 by Winograd F(2x2, 3x3): the
 * forward (with bias and ReLU), the data gradient and the weight (and bias) gradient, on nChw8c
 * maps with AVX2 kernels or on nChw16c maps with AVX-512 kernels (one body at two widths,
 * cpu_conv_wino_kernels.h; both give the same bits).
 *
 * Why: oneDNN 2.6 has Winograd kernels for AVX-512 only. On an AVX2 host its direct kernels ran
 * fmnist-cnn's 3x3 convolutions at 72-80 % of the SGEMM peak (16 vector registers leave little
 * room for register blocking), and the step at 67-81 % of it (docs/replay.md, "Winograd on
 * AVX2 hosts"), against 92-104 % where oneDNN's AVX-512 Winograd runs. On an AVX-512 Zen 4 host
 * this F(2x2, 3x3), every pass, took 12-18 % less time than oneDNN's kernels where the channels
 * are few (ic*oc/(ic+oc) < 24; cpu_dnnl.c, conv_own_winograd; docs/replay.md, "tta's Winograd
 * on AVX-512 hosts").
 *
 * The algorithm (Lavin and Gray, "Fast Algorithms for Convolutional Neural Networks", 2016):
 * the output is cut into 2x2 tiles; each tile's 4x4 input window d becomes V = B^T d B, each
 * 3x3 filter g becomes U = G g G^T (once per step, cpu_wino_weights), and the 16 positions of
 * a transformed tile are 16 independent channel products
 *     M[p][tile][oc] = sum over ic of V[p][tile][ic] * U[p][ic][oc];
 * the output tile is A^T M A. That is 16 multiplications per 4 outputs instead of 36 (2.25x
 * fewer), plus the transforms, which are additions. F(2x2, 3x3)'s transforms have coefficients
 * 0, +-1 and +-1/2 only, so its rounding error stays close to the direct convolution's. The
 * data gradient is the same algorithm on dout with the filters turned and transposed; the
 * weight gradient runs the adjoints: dM = A dY A^T per output tile, dU[p] = V[p]^T dM[p] summed
 * over the tiles, dW = G^T dU G.
 *
 * Work is cut into units: one image's band of tile rows, or several whole images where one
 * image's tiles are few (7x7 maps: 16 tiles), sized so that a unit's V and M (16 x tiles x
 * (ic + oc) floats) fit a 256 KiB L2 with room to spare. In the forward and the data gradient
 * the units share no sums, so the result does not depend on the thread count or on which thread
 * takes which unit: they are handed out dynamically, and a thread that lost its core to another
 * process holds up no one (issue 21's busy machine). The weight gradient sums over every unit: the
 * units are cut into WINO_DW_SLOTS fixed, contiguous ranges, each summed in order into partial sums
 * of its own by whichever thread takes it (dynamically), and the partials are added in slot order:
 * its result does not depend on the thread count either, and a descheduled thread holds up only
 * the range it holds.
 */
#include <assert.h>
#include <omp.h>
#include <string.h>

#include "replay/cpu_internal.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define WINO_HAVE_KERNELS 1
#else
#define WINO_HAVE_KERNELS 0
#endif

/* The band budget: V and M of one unit, in bytes. */
#define WINO_BAND_BYTES (192 * 1024)
/* The weight gradient's ranges of units, each with partial sums of its own (16 x ic x oc floats):
 * 8 give 2 threads 4 ranges each to even out a thread that lost its core. */
#define WINO_DW_SLOTS 8

int cpu_wino_supported(const cpu_ctx *c, const tta_op *op) {
    const int lanes = cpu_blocked(c, op->in);
    return WINO_HAVE_KERNELS && op->kind == TTA_OP_CONV && op->kernel == 3 && op->stride == 1 && op->pad == 1 &&
           op->in.h == op->out.h && op->in.w == op->out.w && cpu_blocked(c, op->out) == lanes &&
           ((lanes == 8 && c->isa >= CPU_ISA_AVX2) || (lanes == 16 && c->isa == CPU_ISA_AVX512));
}

size_t cpu_wino_weights_bytes(int ic, int oc) { return cpu_align64((size_t)16 * ic * oc * sizeof(float)); }

/* How a batch of n maps of h x w (ic -> oc channels) is cut into units: `rows` tile rows of
 * `imgs` images each (imgs > 1 only where one image's tiles fit the budget several times; then
 * rows = th). n = 0 plans for the largest batch (scratch sizes). */
typedef struct {
    int th, tw;    /* tile rows and columns of a map */
    int rows;      /* tile rows per unit */
    int imgs;      /* images per unit */
    int bands;     /* units per group of images */
    int units;     /* units in all (for n > 0) */
    size_t tiles;  /* tiles of the largest unit */
} wino_plan;

static wino_plan plan_of(int n, int ic, int oc, int h, int w) {
    wino_plan pl = {.th = (h + 1) / 2, .tw = (w + 1) / 2, .imgs = 1};
    size_t per_row = (size_t)16 * pl.tw * (ic + oc) * sizeof(float);
    pl.rows = (int)(WINO_BAND_BYTES / per_row);
    if (pl.rows < 1) pl.rows = 1;
    if (pl.rows >= pl.th) {
        pl.imgs = pl.rows / pl.th;
        pl.rows = pl.th;
        if (n > 0 && pl.imgs > n) pl.imgs = n;
    }
    pl.bands = (pl.th + pl.rows - 1) / pl.rows;
    pl.units = n > 0 ? (n + pl.imgs - 1) / pl.imgs * pl.bands : 0;
    pl.tiles = (size_t)pl.imgs * pl.rows * pl.tw;
    return pl;
}

/* A thread's scratch: V, then M (or dM). The weight gradient's scratch adds, after every
 * thread's, WINO_DW_SLOTS partial sums: dU (16 x ic x oc floats) and the bias's (oc doubles). */
static size_t v_bytes(const wino_plan *pl, int ic) { return cpu_align64(16 * pl->tiles * ic * sizeof(float)); }
static size_t m_bytes(const wino_plan *pl, int oc) { return cpu_align64(16 * pl->tiles * oc * sizeof(float)); }
static size_t du_bytes(int ic, int oc) { return cpu_align64((size_t)16 * ic * oc * sizeof(float)); }
static size_t thread_bytes(int ic, int oc, int h, int w) {
    wino_plan pl = plan_of(0, ic, oc, h, w);
    return v_bytes(&pl, ic) + m_bytes(&pl, oc);
}
static size_t slot_bytes(int ic, int oc) { return du_bytes(ic, oc) + cpu_align64(oc * sizeof(double)); }

size_t cpu_wino_scratch(int ic, int oc, int h, int w, int threads) {
    return thread_bytes(ic, oc, h, w) * (size_t)threads;
}

size_t cpu_wino_dw_scratch(int ic, int oc, int h, int w, int threads) {
    return thread_bytes(ic, oc, h, w) * (size_t)threads + slot_bytes(ic, oc) * WINO_DW_SLOTS;
}

/* U = G g G^T for one 3x3 filter g (row-major), into u[16] (row-major 4x4). */
static void filter_transform(float u[16], const float g[9]) {
    float t[4][3]; /* G g */
    for (int j = 0; j < 3; j++) {
        t[0][j] = g[j];
        t[1][j] = 0.5f * (g[j] + g[3 + j] + g[6 + j]);
        t[2][j] = 0.5f * (g[j] - g[3 + j] + g[6 + j]);
        t[3][j] = g[6 + j];
    }
    for (int i = 0; i < 4; i++) { /* (G g) G^T */
        u[i * 4 + 0] = t[i][0];
        u[i * 4 + 1] = 0.5f * (t[i][0] + t[i][1] + t[i][2]);
        u[i * 4 + 2] = 0.5f * (t[i][0] - t[i][1] + t[i][2]);
        u[i * 4 + 3] = t[i][2];
    }
}

void cpu_wino_weights(float *U, const float *w, int oc, int ic, int data_gradient, int threads) {
    /* The data gradient is the forward convolution of dout with each filter turned by 180
     * degrees and the channels' roles swapped: W'[i][o][kh][kw] = w[o][i][2-kh][2-kw]. */
    const int K = data_gradient ? oc : ic, N = data_gradient ? ic : oc; /* the product's ic and oc */
#pragma omp parallel for schedule(static) num_threads(threads) if ((long)oc * ic >= 1024)
    for (int o = 0; o < oc; o++)
        for (int i = 0; i < ic; i++) {
            const float *g = w + ((size_t)o * ic + i) * 9;
            float gr[9], u[16];
            if (data_gradient)
                for (int k = 0; k < 9; k++) gr[k] = g[8 - k];
            filter_transform(u, data_gradient ? gr : g);
            int row = data_gradient ? o : i, col = data_gradient ? i : o;
            for (int p = 0; p < 16; p++) U[((size_t)p * K + row) * N + col] = u[p];
        }
}

/* dg = G^T du G for one 4x4 du (row-major), into dg[9] (row-major 3x3): the adjoint of
 * filter_transform, the weight gradient from the transformed one. */
static void filter_adjoint(float dg[9], const float du[16]) {
    float t[3][4]; /* G^T du */
    for (int j = 0; j < 4; j++) {
        t[0][j] = du[j] + 0.5f * (du[4 + j] + du[8 + j]);
        t[1][j] = 0.5f * (du[4 + j] - du[8 + j]);
        t[2][j] = 0.5f * (du[4 + j] + du[8 + j]) + du[12 + j];
    }
    for (int i = 0; i < 3; i++) { /* (G^T du) G */
        dg[i * 3 + 0] = t[i][0] + 0.5f * (t[i][1] + t[i][2]);
        dg[i * 3 + 1] = 0.5f * (t[i][1] - t[i][2]);
        dg[i * 3 + 2] = 0.5f * (t[i][1] + t[i][2]) + t[i][3];
    }
}

#if WINO_HAVE_KERNELS

/* The kernels, once per vector width (cpu_conv_wino_kernels.h): nChw8c maps with AVX2, nChw16c
 * maps with AVX-512. */
#define WV 8
#define WVEC __m256
#define WTARGET CPU_TARGET_AVX2
#define WFN(name) name##_avx2
#define WROWS 6
#define WLOAD(p) _mm256_loadu_ps(p)
#define WSTORE(p, v) _mm256_storeu_ps((p), (v))
#define WADD(a, b) _mm256_add_ps((a), (b))
#define WSUB(a, b) _mm256_sub_ps((a), (b))
#define WMAX(a, b) _mm256_max_ps((a), (b))
#define WFMA(a, b, c) _mm256_fmadd_ps((a), (b), (c))
#define WBCAST(p) _mm256_broadcast_ss(p)
#define WZERO() _mm256_setzero_ps()
#include "replay/cpu_conv_wino_kernels.h"

#define WV 16
#define WVEC __m512
#define WTARGET CPU_TARGET_AVX512
#define WFN(name) name##_avx512
#define WROWS 12
#define WLOAD(p) _mm512_loadu_ps(p)
#define WSTORE(p, v) _mm512_storeu_ps((p), (v))
#define WADD(a, b) _mm512_add_ps((a), (b))
#define WSUB(a, b) _mm512_sub_ps((a), (b))
#define WMAX(a, b) _mm512_max_ps((a), (b))
#define WFMA(a, b, c) _mm512_fmadd_ps((a), (b), (c))
#define WBCAST(p) _mm512_set1_ps(*(p))
#define WZERO() _mm512_setzero_ps()
#include "replay/cpu_conv_wino_kernels.h"

/* One width's kernels: the maps' channel block is `lanes`. */
typedef struct {
    int lanes;
    void (*product)(float *restrict C, const float *restrict A, int ar, int ak, const float *restrict B, int rows,
                    int K, int N, int add);
    void (*input_transform)(float *restrict V, size_t ps, int t0, const float *restrict x, int K, int h, int w,
                            int ty0, int rows);
    void (*output_transform)(float *restrict y, const float *restrict M, size_t ps, int t0, const float *bias,
                             int relu, int N, int h, int w, int ty0, int rows);
    void (*dout_transform)(float *restrict dM, size_t ps, int t0, const float *restrict dy, int N, int h, int w,
                           int ty0, int rows, double *bsum);
} wino_kernels;

static const wino_kernels wino_avx2 = {8, product_avx2, input_transform_avx2, output_transform_avx2,
                                       dout_transform_avx2};
static const wino_kernels wino_avx512 = {16, product_avx512, input_transform_avx512, output_transform_avx512,
                                         dout_transform_avx512};

/* The kernels for maps blocked by `lanes` (8 or 16). */
static const wino_kernels *kernels_of(int lanes) {
    assert(lanes == 8 || lanes == 16);
    return lanes == 16 ? &wino_avx512 : &wino_avx2;
}

/* The unit u of plan pl: its first image, image count, first tile row and tile rows. */
static void unit_of(const wino_plan *pl, int n, int u, int *img0, int *ni, int *ty0, int *r) {
    *img0 = u / pl->bands * pl->imgs;
    *ni = n - *img0 < pl->imgs ? n - *img0 : pl->imgs;
    *ty0 = u % pl->bands * pl->rows;
    *r = pl->th - *ty0 < pl->rows ? pl->th - *ty0 : pl->rows;
}

void cpu_wino_conv(float *out, const float *inp, const float *U, const float *bias, int relu, tta_shape in, int oc,
                   int lanes, int threads, void *scratch) {
    const int K = in.c, N = oc, h = in.h, w = in.w;
    const wino_kernels *kn = kernels_of(lanes);
    assert(K % lanes == 0 && N % lanes == 0 && threads >= 1);
    const wino_plan pl = plan_of(in.n, K, N, h, w);
    const size_t per_thread = thread_bytes(K, N, h, w);
    const size_t in_image = (size_t)K * h * w, out_image = (size_t)N * h * w;
#pragma omp parallel num_threads(threads)
    {
        char *mine = (char *)scratch + per_thread * omp_get_thread_num();
        float *V = (float *)mine, *M = (float *)(mine + v_bytes(&pl, K));
#pragma omp for schedule(dynamic, 1)
        for (int u = 0; u < pl.units; u++) {
            int img0, ni, ty0, r;
            unit_of(&pl, in.n, u, &img0, &ni, &ty0, &r);
            const int per_img = r * pl.tw, T = ni * per_img;
            for (int i = 0; i < ni; i++)
                kn->input_transform(V, (size_t)T * K, i * per_img, inp + (size_t)(img0 + i) * in_image, K, h, w, ty0, r);
            for (int p = 0; p < 16; p++)
                kn->product(M + (size_t)p * T * N, V + (size_t)p * T * K, K, 1, U + (size_t)p * K * N, T, K, N, 0);
            for (int i = 0; i < ni; i++)
                kn->output_transform(out + (size_t)(img0 + i) * out_image, M, (size_t)T * N, i * per_img, bias, relu, N, h,
                                 w, ty0, r);
        }
    }
}

void cpu_wino_conv_dw(float *dw, float *db, const float *inp, const float *dout, tta_shape in, int oc, int lanes,
                      int threads, void *scratch) {
    const int K = in.c, N = oc, h = in.h, w = in.w;
    const wino_kernels *kn = kernels_of(lanes);
    assert(K % lanes == 0 && N % lanes == 0 && threads >= 1);
    const wino_plan pl = plan_of(in.n, K, N, h, w);
    const size_t per_thread = thread_bytes(K, N, h, w), per_slot = slot_bytes(K, N);
    const size_t in_image = (size_t)K * h * w, out_image = (size_t)N * h * w;
    const size_t du_floats = (size_t)16 * K * N;
    char *slots = (char *)scratch + per_thread * threads;
#pragma omp parallel num_threads(threads)
    {
        char *mine = (char *)scratch + per_thread * omp_get_thread_num();
        float *V = (float *)mine, *dM = (float *)(mine + v_bytes(&pl, K));
#pragma omp for schedule(dynamic, 1)
        for (int k = 0; k < WINO_DW_SLOTS; k++) {
            float *dU = (float *)(slots + per_slot * k);
            double *bsum = (double *)((char *)dU + du_bytes(K, N));
            memset(dU, 0, per_slot); /* by the thread that sums into it, just before */
            const int u0 = (int)((long)pl.units * k / WINO_DW_SLOTS), u1 = (int)((long)pl.units * (k + 1) / WINO_DW_SLOTS);
            for (int u = u0; u < u1; u++) {
                int img0, ni, ty0, r;
                unit_of(&pl, in.n, u, &img0, &ni, &ty0, &r);
                const int per_img = r * pl.tw, T = ni * per_img;
                for (int i = 0; i < ni; i++) {
                    kn->input_transform(V, (size_t)T * K, i * per_img, inp + (size_t)(img0 + i) * in_image, K, h, w, ty0,
                                    r);
                    kn->dout_transform(dM, (size_t)T * N, i * per_img, dout + (size_t)(img0 + i) * out_image, N, h, w,
                                   ty0, r, db ? bsum : NULL);
                }
                for (int p = 0; p < 16; p++)
                    kn->product(dU + (size_t)p * K * N, V + (size_t)p * T * K, 1, K, dM + (size_t)p * T * N, K, T, N, 1);
            }
        }
        /* (the loop's barrier) the slots in order into slot 0, each element on one thread */
        float *sum = (float *)slots;
#pragma omp for schedule(static)
        for (size_t i = 0; i < du_floats; i++)
            for (int k = 1; k < WINO_DW_SLOTS; k++) sum[i] += ((const float *)(slots + per_slot * k))[i];
        /* (barrier) dW = G^T dU G per filter */
#pragma omp for schedule(static)
        for (int o = 0; o < N; o++)
            for (int i = 0; i < K; i++) {
                float du[16];
                for (int p = 0; p < 16; p++) du[p] = sum[((size_t)p * K + i) * N + o];
                filter_adjoint(dw + ((size_t)o * K + i) * 9, du);
            }
    }
    if (db) {
        const double *bs = (const double *)(slots + du_bytes(K, N));
        for (int o = 0; o < N; o++) {
            double t = bs[o];
            for (int k = 1; k < WINO_DW_SLOTS; k++) t += ((const double *)(slots + per_slot * k + du_bytes(K, N)))[o];
            db[o] = (float)t;
        }
    }
}

#else

void cpu_wino_conv(float *out, const float *inp, const float *U, const float *bias, int relu, tta_shape in, int oc,
                   int lanes, int threads, void *scratch) {
    (void)out, (void)inp, (void)U, (void)bias, (void)relu, (void)in, (void)oc, (void)lanes, (void)threads,
        (void)scratch;
    assert(!"cpu_wino_conv without x86-64 kernels: cpu_wino_supported is 0 there");
}

void cpu_wino_conv_dw(float *dw, float *db, const float *inp, const float *dout, tta_shape in, int oc, int lanes,
                      int threads, void *scratch) {
    (void)dw, (void)db, (void)inp, (void)dout, (void)in, (void)oc, (void)lanes, (void)threads, (void)scratch;
    assert(!"cpu_wino_conv_dw without x86-64 kernels: cpu_wino_supported is 0 there");
}

#endif
