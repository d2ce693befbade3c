/* backend_cpu.c: the "cpu" backend: oneDNN for convolution, batch norm and pooling
 * (cpu_dnnl.c), OpenBLAS's sgemm on the OpenMP threads for linear layers, and plain loops for the memory-bound rest
 * (ReLU, add, dropout, flatten, shortcut, cross-entropy), which walk each tensor once.
 *
 * Threads: Debian's oneDNN runs on GNU OpenMP (libgomp), one pool for every parallel loop of a
 * step. Its threads spin while idle by default; on 2-vCPU machines a spinning thread steals
 * cycles from the working one. tta_backend_cpu_create sets the thread count (and keeps
 * OpenBLAS's own pool at one thread: the linear layers call it on OpenMP's threads); OMP_WAIT_POLICY=PASSIVE must be in
 * the environment before the process starts (libgomp reads it once at load), which
 * tta_replay_reexec_passive() arranges for a command-line program.
 */
#include <assert.h>
#include <cblas.h>
#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dnnl.h>

#include "common/check.h"
#include "replay/cpu_internal.h"
#include "replay/replay.h"

/* ------------------------------------------------------------------------------------------ */
/* Memory and layout edges                                                                      */

/* Each block is preceded by a 64-byte header holding its requested size, so that free knows
 * what to take off the allocator's total (c->allocated). Blocks of 2 MiB and more (feature maps,
 * workspace, the data) go on huge pages unless TTA_HUGE_PAGES=0 (common/check.h, mallocLarge). */
static void *cpu_alloc(void *ctx, size_t bytes) {
    cpu_ctx *c = ctx;
    size_t rounded = cpu_align64(bytes);
    if (!rounded) rounded = 64;
    char *p = mallocLarge(rounded + 64);
    memset(p + 64, 0, rounded);
    *(size_t *)p = bytes;
    c->allocated += bytes;
    return p + 64;
}
static void cpu_free(void *ctx, void *p) {
    if (!p) return;
    cpu_ctx *c = ctx;
    char *base = (char *)p - 64;
    assert(c->allocated >= *(size_t *)base);
    c->allocated -= *(size_t *)base;
    free(base);
}
static size_t cpu_allocated(void *ctx) { return ((cpu_ctx *)ctx)->allocated; }
static void cpu_memcpy(void *ctx, void *dst, const void *src, size_t bytes) {
    if (bytes) memmove(dst, src, bytes);
}
static void cpu_sync(void *ctx) {}

static void cpu_tensor_upload(void *ctx, float *dst, const float *src, tta_shape s) {
    int b = cpu_blocked(ctx, s);
    if (!b || s.h * s.w == 1) {
        memmove(dst, src, tta_shape_count(s) * sizeof(float));
        return;
    }
    for (int n = 0; n < s.n; n++)
        for (int c = 0; c < s.c; c++)
            for (int h = 0; h < s.h; h++)
                for (int w = 0; w < s.w; w++)
                    dst[cpu_offset(b, s, n, c, h, w)] = src[(((size_t)n * s.c + c) * s.h + h) * s.w + w];
}
static void cpu_tensor_download(void *ctx, float *dst, const float *src, tta_shape s) {
    int b = cpu_blocked(ctx, s);
    if (!b || s.h * s.w == 1) {
        memmove(dst, src, tta_shape_count(s) * sizeof(float));
        return;
    }
    for (int n = 0; n < s.n; n++)
        for (int c = 0; c < s.c; c++)
            for (int h = 0; h < s.h; h++)
                for (int w = 0; w < s.w; w++)
                    dst[(((size_t)n * s.c + c) * s.h + h) * s.w + w] = src[cpu_offset(b, s, n, c, h, w)];
}

/* ------------------------------------------------------------------------------------------ */
/* Element-wise: one parallel loop each over tensors large enough to pay for the threads' wake-up
 * (PAR_MIN floats, 128 KiB); elementwise, so the result does not depend on the thread count. */

#define PAR_MIN ((size_t)1 << 15)

static void cpu_copy(void *ctx, float *dst, const float *src, size_t n) {
    memmove(dst, src, n * sizeof(float));
}
static void cpu_accumulate(void *ctx, float *restrict dst, const float *restrict src, size_t n) {
#pragma omp parallel for simd schedule(static) if (n >= PAR_MIN)
    for (size_t i = 0; i < n; i++) dst[i] += src[i];
}
static void cpu_fill(void *ctx, float *dst, float v, size_t n) {
    for (size_t i = 0; i < n; i++) dst[i] = v;
}

static void cpu_relu_forward(void *ctx, tta_op *op, float *out, const float *inp) {
    size_t n = tta_shape_count(op->out);
#pragma omp parallel for simd schedule(static) if (n >= PAR_MIN)
    for (size_t i = 0; i < n; i++) out[i] = inp[i] > 0 ? inp[i] : 0.0f;
}
static void cpu_relu_backward(void *ctx, tta_op *op, float *dinp, const float *dout,
                              const float *out) {
    size_t n = tta_shape_count(op->out);
#pragma omp parallel for simd schedule(static) if (n >= PAR_MIN)
    for (size_t i = 0; i < n; i++) dinp[i] = out[i] > 0 ? dout[i] : 0.0f;
}

static void cpu_add_forward(void *ctx, tta_op *op, float *out, const float *a, const float *b) {
    size_t n = tta_shape_count(op->out);
    if (op->relu) {
#pragma omp parallel for simd schedule(static) if (n >= PAR_MIN)
        for (size_t i = 0; i < n; i++) {
            float s = a[i] + b[i];
            out[i] = s > 0 ? s : 0.0f;
        }
    } else {
#pragma omp parallel for simd schedule(static) if (n >= PAR_MIN)
        for (size_t i = 0; i < n; i++) out[i] = a[i] + b[i];
    }
}

static void cpu_scale_forward(void *ctx, tta_op *op, float *out, const float *inp) {
    size_t n = tta_shape_count(op->out);
    float f = op->factor;
#pragma omp parallel for simd schedule(static) if (n >= PAR_MIN)
    for (size_t i = 0; i < n; i++) out[i] = inp[i] * f;
}
static void cpu_scale_backward(void *ctx, tta_op *op, float *dinp, const float *dout) {
    cpu_scale_forward(ctx, op, dinp, dout);
}

static void cpu_fold_bn(void *ctx, float *wf, float *bf, const float *w, const float *b,
                        const float *gamma, const float *beta, const float *mean, const float *var,
                        float eps, int oc, int k) {
    for (int o = 0; o < oc; o++) {
        double g = gamma[o] / sqrt((double)var[o] + eps);
        for (int i = 0; i < k; i++) wf[(size_t)o * k + i] = (float)(w[(size_t)o * k + i] * g);
        bf[o] = (float)(((b ? b[o] : 0.0) - mean[o]) * g + beta[o]);
    }
}

/* FLATTEN: the linear layer wants PyTorch's NCHW order; a blocked input is reordered. */
static void cpu_flatten_forward(void *ctx, tta_op *op, float *out, const float *inp) {
    cpu_tensor_download(ctx, out, inp, op->in);
}
static void cpu_flatten_backward(void *ctx, tta_op *op, float *dinp, const float *dout) {
    cpu_tensor_upload(ctx, dinp, dout, op->in);
}

/* DROPOUT: the mask index is the logical NCHW index, so blocked tensors draw the same mask as
 * the reference backend. */
static void dropout_apply(const cpu_ctx *c, tta_op *op, float *dst, const float *src, uint64_t seed,
                          uint64_t step) {
    tta_shape s = op->out;
    float scale = op->p < 1 ? 1.0f / (1.0f - op->p) : 0.0f;
    int b = cpu_blocked(c, s);
    if (!b || s.h * s.w == 1) {
        size_t n = tta_shape_count(s);
        for (size_t i = 0; i < n; i++)
            dst[i] = tta_dropout_keep(seed, step, i, op->p) ? src[i] * scale : 0.0f;
        return;
    }
    for (int n = 0; n < s.n; n++)
        for (int c = 0; c < s.c; c++)
            for (int h = 0; h < s.h; h++)
                for (int w = 0; w < s.w; w++) {
                    size_t o = cpu_offset(b, s, n, c, h, w);
                    size_t li = (((size_t)n * s.c + c) * s.h + h) * s.w + w;
                    dst[o] = tta_dropout_keep(seed, step, li, op->p) ? src[o] * scale : 0.0f;
                }
}
static void cpu_dropout_forward(void *ctx, tta_op *op, float *out, const float *inp, uint64_t seed,
                                uint64_t step) {
    dropout_apply(ctx, op, out, inp, seed, step);
}
static void cpu_dropout_backward(void *ctx, tta_op *op, float *dinp, const float *dout,
                                 uint64_t seed, uint64_t step) {
    dropout_apply(ctx, op, dinp, dout, seed, step);
}

/* PAD_SHORTCUT (option A): out channel c + pad_front = inp channel c subsampled by stride. */
static void cpu_shortcut_forward(void *ctx, tta_op *op, float *out, const float *inp) {
    tta_shape i = op->in, o = op->out;
    int bi = cpu_blocked(ctx, i), bo = cpu_blocked(ctx, o);
    memset(out, 0, tta_shape_count(o) * sizeof(float));
    for (int n = 0; n < o.n; n++)
        for (int c = 0; c < i.c; c++)
            for (int h = 0; h < o.h; h++)
                for (int w = 0; w < o.w; w++)
                    out[cpu_offset(bo, o, n, c + op->pad_front, h, w)] =
                        inp[cpu_offset(bi, i, n, c, h * op->stride, w * op->stride)];
}
static void cpu_shortcut_backward(void *ctx, tta_op *op, float *dinp, const float *dout) {
    tta_shape i = op->in, o = op->out;
    int bi = cpu_blocked(ctx, i), bo = cpu_blocked(ctx, o);
    memset(dinp, 0, tta_shape_count(i) * sizeof(float));
    for (int n = 0; n < o.n; n++)
        for (int c = 0; c < i.c; c++)
            for (int h = 0; h < o.h; h++)
                for (int w = 0; w < o.w; w++)
                    dinp[cpu_offset(bi, i, n, c, h * op->stride, w * op->stride)] =
                        dout[cpu_offset(bo, o, n, c + op->pad_front, h, w)];
}

/* Pooling: max pooling by cpu_pool.c's loops where it takes the op (op_init said so by leaving
 * impl NULL), else oneDNN's primitive. */
static void cpu_pool_fwd(void *ctx, tta_op *op, float *out, const float *inp) {
    if (!op->impl)
        cpu_maxpool_forward(ctx, op, out, inp);
    else
        cpu_pool_forward(ctx, op, out, inp);
}
static void cpu_pool_bwd(void *ctx, tta_op *op, float *dinp, const float *dout, const float *inp,
                         const float *out) {
    if (!op->impl)
        cpu_maxpool_backward(ctx, op, dinp, dout);
    else
        cpu_pool_backward(ctx, op, dinp, dout, inp, out);
}

/* ------------------------------------------------------------------------------------------ */
/* LINEAR through sgemm, run on the OpenMP threads. Row-major: out[B][O] = inp[B][In] * W[O][In]^T,
 * with the bias and the fused ReLU applied to each slice as soon as it is computed. Backward:
 * dW[O][In] = dout^T[O][B] * inp[B][In], dinp[B][In] = dout[B][O] * W[O][In], db = column sums of
 * dout; the first layer of a network (need_dinp == 0) skips dinp, a third of its cost.
 *
 * Each OpenMP thread calls a one-thread sgemm on its own pieces of C's columns (or rows, when
 * there are more of those; the cuts do not depend on the thread count, gemm_bounds), so each
 * element's sum over K is one call's, the same whatever the thread count (replay/test_fused_update
 * checks the bits at 1 and 2 threads). The products big enough
 * to be sliced (SGEMM_PARALLEL_MIN_MACS) go to oneDNN's sgemm (dnnl_sgemm, JIT-compiled for the
 * ISA at run time; inside the region, or with one thread, it runs on the calling thread alone):
 * on the mlp's slices (128 x 256 x 784 and the like, one thread, AVX-512) it ran at 175-183
 * GFLOP/s against OpenBLAS 0.3.21's 143-170 (the forward's W^T operand 143: OpenBLAS packs it on
 * every call); on AVX2 hosts the backward's go to OpenBLAS (gemm_library_openblas). The small ones
 * stay on OpenBLAS, on the calling thread: outside a region
 * dnnl_sgemm would start its own threads and might split K among them, and the bits would then
 * depend on the thread count. dnnl_sgemm must not be interrupted by a signal handler: its JIT
 * kernels point rsp into the heap (oneDNN issue #4845, fixed after 2.6), the handler's frame lands
 * there, and the heap is corrupted (the replay's Ctrl-C and SIGTERM are therefore taken on a
 * thread of their own, cli/interrupt.h). OpenBLAS's pthreads
 * pool, whose idle worker spins in sched_yield between calls, is not used: on 2 vCPUs it took the
 * core that the OpenMP loops, the loader thread and the optimizer needed (issue 21: about 17% of
 * the mlp replay's perf samples were that spinning). The pool stays at one thread
 * (cpu_set_threads). */

/* Below this many multiply-adds one thread does the product: waking a passive thread and the
 * barrier after it cost more than the second thread gains (the mlp's classifier, 128 x 10 x 512,
 * 20-30 us on one thread: three parallel regions fewer per step). */
#define SGEMM_PARALLEL_MIN_MACS (1 << 20)

/* One product C[M][N] = op(A) op(B) (row-major, op = transpose when ta / tb), and what to do to C
 * after it: add the bias b[N] to every row and/or apply the ReLU (forward only); openblas: its
 * slices go to OpenBLAS even when big (gemm_library_openblas). */
typedef struct {
    int ta, tb, M, N, K;
    const float *A, *B;
    int lda, ldb;
    float *C;
    const float *bias;
    int relu;
    int openblas;
} gemm_job;

static int gemm_big(const gemm_job *j) { return (double)j->M * j->N * j->K >= SGEMM_PARALLEL_MIN_MACS; }

/* Rows lo..hi of C (by_cols 0) or columns lo..hi (by_cols 1) of job j, on the calling thread. */
static void gemm_slice(const gemm_job *j, int by_cols, int lo, int hi) {
    int M = j->M, N = j->N, rows0 = 0, rows1 = M, cols0 = 0, cols1 = N;
    /* the slice: B's columns lo..hi (tb: its rows) or A's rows lo..hi (ta: its columns) */
    int m = by_cols ? M : hi - lo, n = by_cols ? hi - lo : N;
    const float *A = by_cols ? j->A : j->ta ? j->A + lo : j->A + (size_t)lo * j->lda;
    const float *B = !by_cols ? j->B : j->tb ? j->B + (size_t)lo * j->ldb : j->B + lo;
    float *C = by_cols ? j->C + lo : j->C + (size_t)lo * N;
    if (gemm_big(j) && !j->openblas) { /* (fails only on arguments out of range: these are the layer's own shapes) */
        dnnl_status_t st =
            dnnl_sgemm(j->ta ? 'T' : 'N', j->tb ? 'T' : 'N', m, n, j->K, 1.0f, A, j->lda, B, j->ldb, 0.0f, C, N);
        assert(st == dnnl_success);
        (void)st;
    } else
        cblas_sgemm(CblasRowMajor, j->ta ? CblasTrans : CblasNoTrans, j->tb ? CblasTrans : CblasNoTrans, m, n, j->K,
                    1.0f, A, j->lda, B, j->ldb, 0.0f, C, N);
    if (!j->bias && !j->relu) return;
    if (by_cols) cols0 = lo, cols1 = hi;
    else rows0 = lo, rows1 = hi;
    for (int n = rows0; n < rows1; n++) {
        float *row = j->C + (size_t)n * N;
        if (j->bias && j->relu) {
            for (int o = cols0; o < cols1; o++) {
                float v = row[o] + j->bias[o];
                row[o] = v > 0 ? v : 0.0f;
            }
        } else if (j->bias) {
            for (int o = cols0; o < cols1; o++) row[o] += j->bias[o];
        } else {
            for (int o = cols0; o < cols1; o++) row[o] = row[o] > 0 ? row[o] : 0.0f;
        }
    }
}


/* The pieces a product is computed in: C's columns (by_cols) or rows cut into gemm_pieces(len)
 * equal runs of 16, the same cuts whatever the thread count, each piece one sgemm call. Why fixed:
 * oneDNN's AVX2 sgemm sums an element's products in an order that depends on the shape of the call
 * (a 128 x 512 x 784 product cut into two row halves gave 922 of its 65,536 elements other bits;
 * its AVX-512 sgemm gave the same bits), so slices cut by the thread count made the bits depend on
 * it there. A thread takes a contiguous range of pieces. The count: one piece per GEMM_PIECE
 * (256) of length, made even, so that two threads (and four) share them evenly; pieces of 64 made
 * the mlp's step 10 % slower (more calls, each packing its other operand again). */
#define GEMM_PIECE 256

static int gemm_pieces(int len) {
    int np = (len + GEMM_PIECE - 1) / GEMM_PIECE;
    return np > 1 && np % 2 ? np + 1 : np;
}

/* Where piece p of np begins along a side of len (in runs of 16; len for p == np). */
static int gemm_piece_start(int len, int np, int p) {
    int units = (len + 15) / 16, at = units * p / np * 16;
    return at < len ? at : len;
}

/* Whether job j is cut into pieces of C's columns (else of its rows): the longer side, but a
 * weight gradient (A^T B) always into rows, whether its update is fused (which needs rows: one
 * contiguous block of the parameter per thread) or not and whatever the thread count, so that each
 * element is computed by the same call in every case: OpenBLAS's AVX2 (Haswell) kernels, which
 * compute it on AVX2 hosts (gemm_library_openblas), sum in an order that depends on the call's
 * shape (the mlp cut into columns at one thread and into rows at two gave other bits). */
static int gemm_by_cols(const gemm_job *j) { return !j->ta && j->N >= j->M; }

/* Thread t's pieces of nt, as the range lo..hi of C's columns or rows (gemm_by_cols) they cover. */
static void gemm_bounds(const gemm_job *j, int t, int nt, int *lo, int *hi) {
    int len = gemm_by_cols(j) ? j->N : j->M, np = gemm_pieces(len);
    *lo = gemm_piece_start(len, np, np * t / nt);
    *hi = gemm_piece_start(len, np, np * (t + 1) / nt);
}

/* Columns or rows (gemm_by_cols) lo..hi of j (whole pieces), one sgemm call a piece, on the
 * calling thread. */
static void gemm_range(const gemm_job *j, int lo, int hi) {
    int by_cols = gemm_by_cols(j), len = by_cols ? j->N : j->M, np = gemm_pieces(len);
    for (int p = 0; p < np; p++) {
        int a = gemm_piece_start(len, np, p), b = gemm_piece_start(len, np, p + 1);
        if (a >= lo && b <= hi && b > a) gemm_slice(j, by_cols, a, b);
    }
}

/* Runs the jobs (independent products) in one OpenMP region: each thread computes its pieces of
 * every job (gemm_bounds: the side gemm_by_cols says cut every GEMM_PIECE), with the job's bias and ReLU
 * on each piece, so that no barrier separates a product from its epilogue, nor two products from
 * each other. A job under SGEMM_PARALLEL_MIN_MACS runs whole on the calling thread, before the
 * region.
 *
 * u (NULL: none): the update of the parameter whose gradient job 0 is (C [M][N] at parameter
 * offset off), which job 1, if any, reads. Job 0 is then cut into rows, so that each thread
 * updates one contiguous block of the parameter: the rows of a column slice lie apart in memory,
 * and their update took 35-55% longer (the prefetcher starts again on every row; the mlp's fc1 and
 * fc2, one thread, in L3). A thread updates its block once no thread reads the parameter any more:
 * when job 1 runs in the region, each thread does its slice of job 1 first and counts it done, and
 * updates its block after its slice of job 0 once every thread has counted (by then they almost
 * always have: no thread waits for another's job 0, as at a barrier); at once when job 1 ran
 * before the region; the whole of it on the calling thread after the jobs when job 0 ran there. */
static void gemm_run(const gemm_job *jobs, int njobs, const tta_param_update *u, size_t off) {
    int T = omp_in_parallel() ? 1 : omp_get_max_threads(), big = 0;
    assert(njobs <= 2);
    for (int k = 0; k < njobs; k++) {
        const gemm_job *j = &jobs[k];
        if (!gemm_big(j)) gemm_slice(j, 0, 0, j->M);
        else if (T <= 1) gemm_range(j, 0, gemm_by_cols(j) ? j->N : j->M);
        else big++;
    }
    int split_update = u && T > 1 && gemm_big(&jobs[0]);
    assert(!split_update || !gemm_by_cols(&jobs[0])); /* (a fused update's job is a weight gradient: rows) */
    int wait = split_update && njobs > 1 && gemm_big(&jobs[1]), readers_done = 0;
    if (big) {
#pragma omp parallel num_threads(T)
        {
            int t = omp_get_thread_num(), nt = omp_get_num_threads(), lo, hi;
            for (int i = 0; i < njobs; i++) {
                int k = wait ? njobs - 1 - i : i; /* (waiting: job 1, the parameter's reader, first) */
                const gemm_job *j = &jobs[k];
                if (!gemm_big(j)) continue;
                gemm_bounds(j, t, nt, &lo, &hi);
                gemm_range(j, lo, hi);
                if (wait && k == 1) __atomic_add_fetch(&readers_done, 1, __ATOMIC_RELEASE);
            }
            if (split_update) {
                const gemm_job *j = &jobs[0];
                gemm_bounds(j, t, nt, &lo, &hi);
                while (wait && __atomic_load_n(&readers_done, __ATOMIC_ACQUIRE) < nt) sched_yield();
                if (hi > lo) u->apply(u->ctx, off + (size_t)lo * j->N, hi - lo, j->N, (size_t)j->N);
            }
        }
    }
    if (u && !split_update) u->apply(u->ctx, off, jobs[0].M, jobs[0].N, (size_t)jobs[0].N);
}

/* Whether the big slices of a product with these transpositions go to OpenBLAS rather than to
 * dnnl_sgemm on this backend's host: on AVX2 hosts, the backward's products (A^T B, the weight
 * gradient, and A B, the input gradient). oneDNN 2.6's AVX2 sgemm ran them at 72-84 GFLOP/s
 * against 107-109 for OpenBLAS 0.3.21's Haswell kernels (one thread, best of 200, on the mlp's
 * slices: 256 x 784 x 128 and 256 x 512 x 128 A^T B, 128 x 256 x 512 A B, leading dimensions 512
 * and 784; Zen 4 run as an AVX2 host, ONEDNN_MAX_CPU_ISA=AVX2 OPENBLAS_CORETYPE=Haswell), while on
 * A B^T, the forward, oneDNN's was the faster (110.6 against 105.6: OpenBLAS packs B^T on every
 * call). With AVX-512, oneDNN's is the faster on all three (105-113 against 96-104). The choice
 * depends on the host alone, so the bits do not change from one run to the next. */
static int gemm_library_openblas(const cpu_ctx *c, int ta, int tb) { return c->isa == CPU_ISA_AVX2 && (ta || !tb); }

static void cpu_linear_forward(void *ctx, tta_op *op, float *out, const float *inp, const float *w,
                               const float *b) {
    int B = op->in.n, In = op->in.c * op->in.h * op->in.w, O = op->out.c;
    gemm_job j = {0, 1, B, O, In, inp, w, In, In, out, op->bias ? b : NULL, op->relu,
                  gemm_library_openblas(ctx, 0, 1)};
    gemm_run(&j, 1, NULL, 0);
}

/* The part of a linear layer's backward before its products, on columns lo..hi of dout: masks
 * dout by the ReLU (out > 0) and sums the bias gradient db[lo..hi] over the rows (in row order, so
 * that a column's sum is the same whatever the range). */
static void linear_bwd_prologue(const tta_op *op, float *dout, const float *out, float *db, int lo, int hi) {
    int B = op->in.n, O = op->out.c;
    if (!op->relu && !op->bias) return;
    if (op->bias) memset(db + lo, 0, sizeof(float) * (size_t)(hi - lo));
    for (int n = 0; n < B; n++) {
        float *g = dout + (size_t)n * O;
        const float *y = out + (size_t)n * O;
        if (op->relu)
            for (int o = lo; o < hi; o++) g[o] = y[o] > 0 ? g[o] : 0.0f;
        if (op->bias)
            for (int o = lo; o < hi; o++) db[o] += g[o];
    }
}

static void linear_bwd_jobs(const cpu_ctx *c, const tta_op *op, float *dinp, float *dw, const float *dout,
                            const float *inp, const float *w, gemm_job j[2]) {
    int B = op->in.n, In = op->in.c * op->in.h * op->in.w, O = op->out.c;
    j[0] = (gemm_job){1, 0, O, In, B, dout, inp, O, In, dw, NULL, 0, gemm_library_openblas(c, 1, 0)};
    j[1] = (gemm_job){0, 0, B, In, O, dout, w, O, In, dinp, NULL, 0, gemm_library_openblas(c, 0, 0)};
}

static void cpu_linear_backward(void *ctx, tta_op *op, float *dinp, float *dw, float *db,
                                float *dout, const float *inp, const float *w, const float *out) {
    /* one pass: mask by the ReLU and sum the bias gradient */
    linear_bwd_prologue(op, dout, out, db, 0, op->out.c);
    /* with a fused update (op->update): the bias now (backward reads no bias), the weight slice by
     * slice in the region below */
    const tta_param_update *u = op->update;
    if (u && op->bias) u->apply(u->ctx, (size_t)op->b_off, 1, op->out.c, (size_t)op->out.c);
    /* the weight gradient and the input gradient: one region */
    gemm_job j[2];
    linear_bwd_jobs(ctx, op, dinp, dw, dout, inp, w, j);
    assert(!u || op->w_off >= 0);
    gemm_run(j, op->need_dinp ? 2 : 1, u, u ? (size_t)op->w_off : 0);
}

/* The backend's linear_backward_pair. Where both layers' updates are fused and every product is
 * big enough to be sliced, one region: thread t computes its columns lo..hi of a's input gradient
 * (the column slice that gemm_run gives it), which are b's output gradient columns lo..hi, so it
 * goes on at once with b on them: masks them and sums b's bias gradient there (and updates that
 * block of the bias), then its rows of a's weight gradient (and updates them, once every thread
 * has done its slice of a's input gradient, which reads a's weight), and b's weight gradient rows
 * lo..hi, which read only b's output gradient columns lo..hi (and updates them). One region a step
 * fewer than the two calls, and b's mask and bias sums on every thread instead of one. Each
 * element is computed by the same one-thread sgemm call on the same slice as in the two calls,
 * and each sum in the same order: the same bits. Otherwise the two calls. */
static void cpu_linear_backward_pair(void *ctx, const tta_linear_grad *a, const tta_linear_grad *b) {
    const tta_param_update *ua = a->op->update, *ub = b->op->update;
    int T = omp_in_parallel() ? 1 : omp_get_max_threads();
    gemm_job ja[2], jb[2];
    linear_bwd_jobs(ctx, a->op, a->dinp, a->dw, a->dout, a->inp, a->w, ja);
    linear_bwd_jobs(ctx, b->op, NULL, b->dw, b->dout, b->inp, b->w, jb);
    /* a's input gradient cut by columns (gemm_by_cols) and b's weight gradient by rows
     * (a fused update's), over the same length: the same bounds */
    int pair = T > 1 && ua && ub && a->op->need_dinp && !b->op->need_dinp && gemm_big(&ja[0]) && gemm_big(&ja[1]) &&
               gemm_big(&jb[0]) && gemm_by_cols(&ja[1]) && ja[1].N == jb[0].M && b->dout == a->dinp;
    if (!pair) {
        cpu_linear_backward(ctx, a->op, a->dinp, a->dw, a->db, a->dout, a->inp, a->w, a->out);
        cpu_linear_backward(ctx, b->op, b->dinp, b->dw, b->db, b->dout, b->inp, b->w, b->out);
        return;
    }
    assert(a->op->w_off >= 0 && b->op->w_off >= 0);
    linear_bwd_prologue(a->op, a->dout, a->out, a->db, 0, a->op->out.c);
    if (a->op->bias) ua->apply(ua->ctx, (size_t)a->op->b_off, 1, a->op->out.c, (size_t)a->op->out.c);
    int readers_done = 0;
#pragma omp parallel num_threads(T)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads(), lo, hi, rlo, rhi;
        gemm_bounds(&ja[1], t, nt, &lo, &hi);
        gemm_range(&ja[1], lo, hi);
        __atomic_add_fetch(&readers_done, 1, __ATOMIC_RELEASE);
        if (hi > lo) {
            linear_bwd_prologue(b->op, b->dout, b->out, b->db, lo, hi);
            if (b->op->bias) ub->apply(ub->ctx, (size_t)b->op->b_off + (size_t)lo, 1, hi - lo, (size_t)(hi - lo));
        }
        gemm_bounds(&ja[0], t, nt, &rlo, &rhi);
        gemm_range(&ja[0], rlo, rhi);
        if (hi > lo) {
            gemm_range(&jb[0], lo, hi);
            ub->apply(ub->ctx, (size_t)b->op->w_off + (size_t)lo * jb[0].N, hi - lo, jb[0].N, (size_t)jb[0].N);
        }
        while (__atomic_load_n(&readers_done, __ATOMIC_ACQUIRE) < nt) sched_yield();
        if (rhi > rlo)
            ua->apply(ua->ctx, (size_t)a->op->w_off + (size_t)rlo * ja[0].N, rhi - rlo, ja[0].N, (size_t)ja[0].N);
    }
}

/* The backend's parallel_rows: one OpenMP region, thread t's rows in gemm_run's pieces, fn called
 * once a piece (so a row's products are computed by the same calls whatever the thread count). */
static void cpu_parallel_rows(void *ctx, int n, void (*fn)(void *arg, int lo, int hi), void *arg) {
    int np = gemm_pieces(n);
#pragma omp parallel
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        for (int p = np * t / nt; p < np * (t + 1) / nt; p++) {
            int lo = gemm_piece_start(n, np, p), hi = gemm_piece_start(n, np, p + 1);
            if (hi > lo) fn(arg, lo, hi);
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* XENT                                                                                         */

static void cpu_xent_forward(void *ctx, tta_op *op, float *result, const float *logits,
                             const int32_t *labels) {
    int correct = 0;
    float mean = ref_xent_forward_f(logits, labels, op->in.n, op->in.c, op->smoothing, &correct);
    result[0] = mean * op->in.n;
    result[1] = (float)correct;
}
static void cpu_xent_backward(void *ctx, tta_op *op, float *dlogits, const float *logits,
                              const int32_t *labels) {
    ref_xent_backward_f(dlogits, logits, labels, op->in.n, op->in.c, op->smoothing);
}

/* ------------------------------------------------------------------------------------------ */
/* Ops                                                                                          */

/* (engine.h, bn_forward) cpu_bn.c's one-region BN + ReLU where it takes the op, else oneDNN's. */
static void cpu_bn_fwd(void *ctx, tta_op *op, float *out, const float *inp, const float *gamma, const float *beta,
                       float *run_mean, float *run_var) {
    if (cpu_bn_relu_taken(ctx, op))
        cpu_bn_relu_forward(ctx, op, out, inp, gamma, beta, run_mean, run_var);
    else
        cpu_bn_forward(ctx, op, out, inp, gamma, beta, run_mean, run_var);
}

/* (engine.h, bn_backward) As cpu_bn_fwd. */
static void cpu_bn_bwd(void *ctx, tta_op *op, float *dinp, float *dgamma, float *dbeta, float *dout, const float *inp,
                       const float *out, const float *gamma, const float *beta) {
    if (cpu_bn_relu_taken(ctx, op))
        cpu_bn_relu_backward(ctx, op, dinp, dgamma, dbeta, dout, inp, gamma, beta);
    else
        cpu_bn_backward(ctx, op, dinp, dgamma, dbeta, dout, inp, out, gamma, beta);
}

static int cpu_op_init(void *ctx, tta_op *op, char *err, size_t errlen) {
    cpu_ctx *c = ctx;
    op->impl = NULL;
    op->saved_bytes = op->scratch_bytes = 0;
    switch (op->kind) {
    case TTA_OP_CONV: return cpu_conv_init(c, op, err, errlen);
    case TTA_OP_BN:
        if (op->pool) return cpu_bn_pool_init(c, op, err, errlen);
        return cpu_bn_relu_taken(c, op) ? cpu_bn_relu_init(c, op) : cpu_bn_init(c, op, err, errlen);
    case TTA_OP_MAXPOOL:
    case TTA_OP_GMP:
        if (cpu_maxpool_supported(c, op)) return cpu_maxpool_init(c, op);
        return cpu_pool_init(c, op, err, errlen);
    case TTA_OP_AVGPOOL:
    case TTA_OP_GAP: return cpu_pool_init(c, op, err, errlen);
    case TTA_OP_LINEAR:
        if (op->in.h * op->in.w != 1 && cpu_blocked(c, op->in)) {
            snprintf(err, errlen, "linear layer needs a flat input (got %dx%dx%d)", op->in.c,
                     op->in.h, op->in.w);
            return -1;
        }
        return 0;
    default: return 0;
    }
}

static void cpu_op_release(void *ctx, tta_op *op) {
    switch (op->kind) {
    case TTA_OP_BN:
        if (op->pool || cpu_bn_relu_taken(ctx, op)) {
            cpu_bn_fused_release(ctx, op);
            break;
        }
        /* fall through */
    case TTA_OP_CONV:
    case TTA_OP_MAXPOOL:
    case TTA_OP_AVGPOOL:
    case TTA_OP_GAP:
    case TTA_OP_GMP: cpu_dnnl_release(ctx, op); break; /* nothing for cpu_pool.c's (impl NULL) */
    default: free(op->impl); op->impl = NULL;
    }
}

static void cpu_destroy(tta_backend *be) {
    cpu_ctx *c = be->ctx;
    dnnl_stream_destroy(c->stream);
    dnnl_engine_destroy(c->engine);
    free(c);
    free(be);
}

const char *tta_backend_cpu_threading(char *threading_desc, size_t len) {
    const char *wp = getenv("OMP_WAIT_POLICY"), *spin = getenv("GOMP_SPINCOUNT");
    snprintf(threading_desc, len,
             "openblas=%s(%d) onednn=gnu-openmp(%d) OMP_WAIT_POLICY=%s%s%s",
             openblas_get_parallel() == 1 ? "pthreads" : openblas_get_parallel() == 2 ? "openmp" : "sequential",
             openblas_get_num_threads(), omp_get_max_threads(), wp ? wp : "(unset: active spinning)",
             spin ? " GOMP_SPINCOUNT=" : "", spin ? spin : "");
    return threading_desc;
}

/* The bracketed word of a sysfs choice file ("always [madvise] never"), or "unknown". */
static void thp_mode(char *mode, size_t len) {
    snprintf(mode, len, "unknown");
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (!f) return;
    char line[128];
    if (fgets(line, sizeof line, f)) {
        char *a = strchr(line, '['), *b = a ? strchr(a, ']') : NULL;
        if (a && b) snprintf(mode, len, "%.*s", (int)(b - a - 1), a + 1);
    }
    fclose(f);
}

/* This process's resident and 2 MiB-page kB from /proc/self/smaps_rollup, one read; -1 each where
 * it cannot be read. */
static void smaps_kb(long *rss, long *huge) {
    *rss = *huge = -1;
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    if (!f) return;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "Rss:", 4) == 0) *rss = strtol(line + 4, NULL, 10);
        else if (strncmp(line, "AnonHugePages:", 14) == 0) *huge = strtol(line + 14, NULL, 10);
    }
    fclose(f);
}

const char *tta_backend_cpu_pages(char *dst, size_t len) {
    char mode[32];
    thp_mode(mode, sizeof mode);
    int n = tta_huge_pages_wanted() ? snprintf(dst, len, "huge (THP %s)", mode)
                                    : snprintf(dst, len, "small (TTA_HUGE_PAGES=0; THP %s)", mode);
    long rss, huge;
    smaps_kb(&rss, &huge);
    if (n >= 0 && (size_t)n < len && huge >= 0 && rss >= 0)
        snprintf(dst + n, len - (size_t)n, ": %ld of %ld MiB resident on 2 MiB pages", huge / 1024, rss / 1024);
    return dst;
}

static void cpu_set_threads(void *ctx, int threads) {
    cpu_ctx *c = ctx;
    assert(threads >= 1);
    c->threads = threads;
    /* process-wide: OpenMP has one pool per process. Every parallel loop of the backend runs on it
     * (oneDNN's primitives, tta's loops, the slices of the linear layers' sgemm); OpenBLAS's own
     * pool is kept at one thread, so that no idle worker of its spins beside ours. */
    openblas_set_num_threads(1);
    omp_set_num_threads(threads);
}

static const tta_backend_ops cpu_ops = {
    .name = "cpu",
    .host_memory = 1,
    .fuses_linear_update = 1,
    .bn_backward_keeps_dout = 1, /* oneDNN's diff_dst is read-only; the ReLU mask is its workspace */
    .destroy = cpu_destroy,
    .alloc = cpu_alloc,
    .free = cpu_free,
    .allocated = cpu_allocated,
    .upload = cpu_memcpy,
    .download = cpu_memcpy,
    .sync = cpu_sync,
    .tensor_upload = cpu_tensor_upload,
    .tensor_download = cpu_tensor_download,
    .copy = cpu_copy,
    .accumulate = cpu_accumulate,
    .fill = cpu_fill,
    .op_init = cpu_op_init,
    .op_release = cpu_op_release,
    .conv_prepare = cpu_conv_prepare,
    .conv_forward = cpu_conv_forward,
    .conv_backward = cpu_conv_backward,
    .bn_forward = cpu_bn_fwd,
    .bn_backward = cpu_bn_bwd,
    .bn_pool_supported = cpu_bn_pool_supported,
    .bn_relu_add_supported = cpu_bn_relu_add_supported,
    .bn_relu_add_forward = cpu_bn_relu_add_forward,
    .bn_pool_forward = cpu_bn_pool_forward,
    .bn_pool_backward = cpu_bn_pool_backward,
    .fold_bn = cpu_fold_bn,
    .relu_forward = cpu_relu_forward,
    .relu_backward = cpu_relu_backward,
    .pool_forward = cpu_pool_fwd,
    .pool_backward = cpu_pool_bwd,
    .linear_forward = cpu_linear_forward,
    .linear_backward = cpu_linear_backward,
    .linear_backward_pair = cpu_linear_backward_pair,
    .add_forward = cpu_add_forward,
    .flatten_forward = cpu_flatten_forward,
    .flatten_backward = cpu_flatten_backward,
    .dropout_forward = cpu_dropout_forward,
    .dropout_backward = cpu_dropout_backward,
    .scale_forward = cpu_scale_forward,
    .scale_backward = cpu_scale_backward,
    .shortcut_forward = cpu_shortcut_forward,
    .shortcut_backward = cpu_shortcut_backward,
    .xent_forward = cpu_xent_forward,
    .xent_backward = cpu_xent_backward,
    .set_threads = cpu_set_threads,
    .parallel_rows = cpu_parallel_rows,
};

/* The convolution rules' names (TTA_CONV_RULE's values), indexed by CPU_CONV_RULE_*. */
static const char *const conv_rule_names[] = {
    [CPU_CONV_RULE_INTEL] = "intel", [CPU_CONV_RULE_AMD] = "amd", [CPU_CONV_RULE_DIRECT] = "direct",
    [CPU_CONV_RULE_ZEN4] = "zen4"};

/* The convolution rule (cpu_internal.h, CPU_CONV_RULE_*): TTA_CONV_RULE where set, else the CPU's
 * vendor and, on AMD, its family (25: Zen 3 and 4, of which only Zen 4 has AVX-512, the only ISA
 * where the rules differ). Returns it, or -1 with a message in err for another value of
 * TTA_CONV_RULE. */
static int conv_rule_of_host(char *err, size_t errlen) {
    const char *rule = getenv("TTA_CONV_RULE");
    if (!rule) {
        if (!__builtin_cpu_is("amd")) return CPU_CONV_RULE_INTEL;
        return __builtin_cpu_is("amdfam19h") ? CPU_CONV_RULE_ZEN4 : CPU_CONV_RULE_AMD;
    }
    for (int i = 0; i < (int)(sizeof conv_rule_names / sizeof conv_rule_names[0]); i++)
        if (!strcmp(rule, conv_rule_names[i])) return i;
    snprintf(err, errlen, "TTA_CONV_RULE=%s: expected intel, amd, zen4 or direct", rule);
    return -1;
}

tta_backend *tta_backend_cpu_create(const tta_backend_options *opt, char *err, size_t errlen) {
    int conv_rule = conv_rule_of_host(err, errlen);
    if (conv_rule < 0) return NULL;
    cpu_ctx *c = callocCheck(1, sizeof *c);
    c->conv_rule = conv_rule;
    if (dnnl_engine_create(&c->engine, dnnl_cpu, 0) != dnnl_success) {
        snprintf(err, errlen, "oneDNN: cannot create a CPU engine");
        free(c);
        return NULL;
    }
    DNNL_CHECK(dnnl_stream_create(&c->stream, c->engine, dnnl_stream_default_flags));
    c->threads = opt ? opt->threads : 0;
    c->verbose = opt ? opt->verbose : 0;
    /* the block oneDNN's kernels want: its effective ISA is the CPU's, capped by
     * ONEDNN_MAX_CPU_ISA (how an AVX2 host is run on an AVX-512 one) */
    dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
    c->block = (isa & dnnl_cpu_isa_avx512_core) == dnnl_cpu_isa_avx512_core ? 16 : 8;
    if (opt && opt->block_limit == 8) c->block = 8; /* the model has 8-channel maps: one block for all */
    c->isa = (isa & dnnl_cpu_isa_avx512_core) == dnnl_cpu_isa_avx512_core     ? CPU_ISA_AVX512
             : (isa & dnnl_cpu_isa_avx2) == dnnl_cpu_isa_avx2 && __builtin_cpu_supports("fma") ? CPU_ISA_AVX2
                                                                                 : CPU_ISA_BASE;
    if (c->verbose)
        fprintf(stderr, "cpu backend: oneDNN ISA 0x%x, feature maps blocked by %d, %s convolution rule\n",
                (unsigned)isa, c->block, conv_rule_names[c->conv_rule]);
    if (c->threads > 0) cpu_set_threads(c, c->threads);
    tta_backend *be = callocCheck(1, sizeof *be);
    be->ops = &cpu_ops;
    be->ctx = c;
    return be;
}

/* (replay.h) Why a spin: under PASSIVE every parallel region wakes the other thread from a futex
 * (40-50 us on this project's VMs, 70 regions and 40 barriers a step of fmnist-cnn). 3000 rounds of
 * libgomp's spin (a pause each, 10.6 ns here: about 32 us) cover the gap between the regions of one
 * step; measured, docs/replay.md "The OpenMP wait". */
int tta_replay_wait_env(void) {
    if (getenv("OMP_WAIT_POLICY")) return 0;
    setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
    if (!getenv("GOMP_SPINCOUNT")) setenv("GOMP_SPINCOUNT", TTA_OMP_SPINCOUNT, 1);
    return 1;
}

int tta_replay_reexec_passive(char **argv) {
    if (!tta_replay_wait_env()) return 0;
    execv("/proc/self/exe", argv);
    return -1; /* exec failed: go on with spinning threads */
}
