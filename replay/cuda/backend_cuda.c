/* backend_cuda.c: the "cuda" backend: cuDNN 9 (legacy API) for convolution, batch norm and
 * average pooling, cuBLAS sgemm for linear layers, and the kernels of kernels.cu for the rest
 * (ReLU, add, bias, dropout, shortcut, max pooling, cross-entropy, BN folding).
 *
 * Device memory is real device memory (host_memory = 0): the engine moves data only through
 * upload/download. Activations are plain NCHW. Parameters stay in PyTorch's layout, which is
 * what cuDNN's NCHW filters and a transposed sgemm read directly, so conv_prepare only
 * remembers the pointers. All work is queued on one stream; upload and download wait for it
 * (their host buffers may be reused as soon as they return), sync waits for it (timing).
 *
 * Numerics: convolutions run with CUDNN_FMA_MATH and sgemm with cuBLAS's default (no TF32)
 * math, so results agree with the float reference to float rounding rather than TF32's
 * 10-bit mantissa; algorithms are the fastest *deterministic* ones cuDNN's heuristics offer,
 * so repeated runs are bit-identical as on the cpu backend.
 *
 * Errors: op_init and create return errors as values. After op_init every call is on
 * descriptors validated there, so a failing CUDA/cuDNN/cuBLAS call later is a bug or a lost
 * device: it prints the call and its site and exits (as allocation failure does).
 */
#include <assert.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "replay/cuda/cuda_internal.h"
#include "replay/cuda_module.h"
#include "replay/engine.h"

/* Workspace limit per convolution algorithm: an algorithm that wants more is skipped for one
 * that needs less (the model's scratch buffer is the largest op's need). */
#define WORKSPACE_LIMIT ((size_t)512 << 20)

typedef struct {
    int device;
    cudaStream_t stream;
    cudnnHandle_t dnn;
    cublasHandle_t blas;
    int verbose;
    /* Live allocations (pointer, requested bytes), for the allocator's total: device memory
     * has no room for a host-readable header. A model makes a few hundred. */
    struct cu_block { void *p; size_t bytes; } *blocks;
    size_t n_blocks, cap_blocks, allocated;
} cu_ctx;

/* Per-op state. Descriptors that an op kind does not use stay NULL. */
typedef struct {
    cudnnTensorDescriptor_t x, y, stat; /* input, output, per-channel [1][C][1][1] */
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t conv;
    cudnnPoolingDescriptor_t pool;
    cudnnConvolutionFwdAlgo_t fwd_algo;
    cudnnConvolutionBwdDataAlgo_t data_algo;
    cudnnConvolutionBwdFilterAlgo_t filter_algo;
    size_t fwd_ws, data_ws, filter_ws;
    const float *wp, *bp; /* CONV: weights and bias of conv_prepare */
} cu_impl;

/* ------------------------------------------------------------------------------------------ */
/* Fatal checks (after op_init)                                                                 */

static void cu_fail(const char *lib, const char *text, const char *what, const char *file,
                    int line) {
    fprintf(stderr, "%s:%d: cuda backend: %s: %s failed: %s\n", file, line, lib, what, text);
    exit(1);
}
#define CUDA_CHECK(call)                                                                           \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) cu_fail("CUDA", cudaGetErrorString(e_), #call, __FILE__, __LINE__); \
    } while (0)
#define CUDNN_CHECK(call)                                                                          \
    do {                                                                                           \
        cudnnStatus_t s_ = (call);                                                                 \
        if (s_ != CUDNN_STATUS_SUCCESS)                                                            \
            cu_fail("cuDNN", cudnnGetErrorString(s_), #call, __FILE__, __LINE__);                  \
    } while (0)
#define CUBLAS_CHECK(call)                                                                         \
    do {                                                                                           \
        cublasStatus_t s_ = (call);                                                                \
        if (s_ != CUBLAS_STATUS_SUCCESS)                                                           \
            cu_fail("cuBLAS", cublasGetStatusString(s_), #call, __FILE__, __LINE__);               \
    } while (0)

/* In op_init: a failing cuDNN call becomes the op's error message. */
#define CUDNN_TRY(call)                                                                            \
    do {                                                                                           \
        cudnnStatus_t s_ = (call);                                                                 \
        if (s_ != CUDNN_STATUS_SUCCESS) {                                                          \
            snprintf(err, errlen, "cuDNN: %s: %s", #call, cudnnGetErrorString(s_));                \
            return -1;                                                                             \
        }                                                                                          \
    } while (0)

/* ------------------------------------------------------------------------------------------ */
/* Memory                                                                                       */

static void *cu_alloc(void *ctx, size_t bytes) {
    cu_ctx *c = ctx;
    void *p = NULL;
    /* cudaMalloc aligns to at least 256 bytes, more than the 64 the engine asks for */
    cudaError_t e = cudaMalloc(&p, bytes ? bytes : 64);
    if (e != cudaSuccess) {
        fprintf(stderr, "cuda backend: out of device memory allocating %zu bytes: %s\n", bytes,
                cudaGetErrorString(e));
        exit(1);
    }
    CUDA_CHECK(cudaMemsetAsync(p, 0, bytes ? bytes : 64, c->stream));
    CUDA_CHECK(cudaStreamSynchronize(c->stream));
    if (c->n_blocks == c->cap_blocks) {
        c->cap_blocks = c->cap_blocks ? 2 * c->cap_blocks : 256;
        c->blocks = reallocCheck(c->blocks, c->cap_blocks * sizeof *c->blocks);
    }
    c->blocks[c->n_blocks++] = (struct cu_block){p, bytes};
    c->allocated += bytes;
    return p;
}

static void cu_free(void *ctx, void *p) {
    if (!p) return;
    cu_ctx *c = ctx;
    for (size_t i = c->n_blocks; i-- > 0;) {
        if (c->blocks[i].p != p) continue;
        c->allocated -= c->blocks[i].bytes;
        c->blocks[i] = c->blocks[--c->n_blocks];
        break;
    }
    CUDA_CHECK(cudaFree(p)); /* cudaFree waits for work that may still use p */
}

static size_t cu_allocated(void *ctx) { return ((cu_ctx *)ctx)->allocated; }

static void cu_upload(void *ctx, void *dst, const void *src_host, size_t bytes) {
    cu_ctx *c = ctx;
    if (!bytes) return;
    CUDA_CHECK(cudaMemcpyAsync(dst, src_host, bytes, cudaMemcpyHostToDevice, c->stream));
    CUDA_CHECK(cudaStreamSynchronize(c->stream)); /* the caller may reuse src_host at once */
}

static void cu_download(void *ctx, void *dst_host, const void *src, size_t bytes) {
    cu_ctx *c = ctx;
    if (!bytes) return;
    CUDA_CHECK(cudaMemcpyAsync(dst_host, src, bytes, cudaMemcpyDeviceToHost, c->stream));
    CUDA_CHECK(cudaStreamSynchronize(c->stream));
}

static void cu_sync(void *ctx) {
    cu_ctx *c = ctx;
    CUDA_CHECK(cudaStreamSynchronize(c->stream));
}

/* Activations are NCHW: the layout conversion is a copy. */
static void cu_tensor_upload(void *ctx, float *dst, const float *src_nchw, tta_shape s) {
    cu_upload(ctx, dst, src_nchw, tta_shape_count(s) * sizeof(float));
}
static void cu_tensor_download(void *ctx, float *dst_nchw, const float *src, tta_shape s) {
    cu_download(ctx, dst_nchw, src, tta_shape_count(s) * sizeof(float));
}

static void cu_copy(void *ctx, float *dst, const float *src, size_t n) {
    cu_ctx *c = ctx;
    if (n && dst != src)
        CUDA_CHECK(cudaMemcpyAsync(dst, src, n * sizeof(float), cudaMemcpyDeviceToDevice, c->stream));
}
static void cu_accumulate(void *ctx, float *dst, const float *src, size_t n) {
    cu_ctx *c = ctx;
    CUDA_CHECK(tta_cu_accumulate(dst, src, n, c->stream));
}
static void cu_fill(void *ctx, float *dst, float v, size_t n) {
    cu_ctx *c = ctx;
    CUDA_CHECK(tta_cu_fill(dst, v, n, c->stream));
}

/* ------------------------------------------------------------------------------------------ */
/* Op setup                                                                                     */

static int set_tensor(cudnnTensorDescriptor_t *d, tta_shape s, char *err, size_t errlen) {
    CUDNN_TRY(cudnnCreateTensorDescriptor(d));
    CUDNN_TRY(cudnnSetTensor4dDescriptor(*d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, s.n, s.c, s.h, s.w));
    return 0;
}

/* The first algorithm of cuDNN's heuristic ranking (fastest first) that is supported,
 * deterministic and within the workspace limit; failing that the first supported one within
 * the limit (results may then differ in the last bits between runs). -1 if none. The perf
 * structs of the three directions share this layout of algo/status/memory/determinism. */
#define PICK_ALGO(perf, count, out_algo, out_ws)                                                   \
    do {                                                                                           \
        int best_ = -1;                                                                            \
        for (int pass_ = 0; pass_ < 2 && best_ < 0; pass_++)                                       \
            for (int i_ = 0; i_ < (count) && best_ < 0; i_++)                                      \
                if ((perf)[i_].status == CUDNN_STATUS_SUCCESS &&                                   \
                    (perf)[i_].memory <= WORKSPACE_LIMIT &&                                        \
                    (pass_ == 1 || (perf)[i_].determinism == CUDNN_DETERMINISTIC))                 \
                    best_ = i_;                                                                    \
        if (best_ < 0) return -1;                                                                  \
        (out_algo) = (perf)[best_].algo;                                                           \
        (out_ws) = (perf)[best_].memory;                                                           \
    } while (0)

static int pick_fwd(cu_ctx *c, cu_impl *im) {
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int n = 0;
    if (cudnnGetConvolutionForwardAlgorithm_v7(c->dnn, im->x, im->w, im->conv, im->y,
                                               CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &n, perf) !=
        CUDNN_STATUS_SUCCESS)
        return -1;
    PICK_ALGO(perf, n, im->fwd_algo, im->fwd_ws);
    /* the heuristic's memory estimate is not always the size the call checks for */
    size_t ws = 0;
    if (cudnnGetConvolutionForwardWorkspaceSize(c->dnn, im->x, im->w, im->conv, im->y, im->fwd_algo,
                                                &ws) != CUDNN_STATUS_SUCCESS)
        return -1;
    if (ws > im->fwd_ws) im->fwd_ws = ws;
    return 0;
}

static int pick_data(cu_ctx *c, cu_impl *im) {
    cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    int n = 0;
    if (cudnnGetConvolutionBackwardDataAlgorithm_v7(c->dnn, im->w, im->y, im->conv, im->x,
                                                    CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &n,
                                                    perf) != CUDNN_STATUS_SUCCESS)
        return -1;
    PICK_ALGO(perf, n, im->data_algo, im->data_ws);
    size_t ws = 0;
    if (cudnnGetConvolutionBackwardDataWorkspaceSize(c->dnn, im->w, im->y, im->conv, im->x,
                                                     im->data_algo, &ws) != CUDNN_STATUS_SUCCESS)
        return -1;
    if (ws > im->data_ws) im->data_ws = ws;
    return 0;
}

static int pick_filter(cu_ctx *c, cu_impl *im) {
    cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
    int n = 0;
    if (cudnnGetConvolutionBackwardFilterAlgorithm_v7(c->dnn, im->x, im->y, im->conv, im->w,
                                                      CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &n,
                                                      perf) != CUDNN_STATUS_SUCCESS)
        return -1;
    PICK_ALGO(perf, n, im->filter_algo, im->filter_ws);
    size_t ws = 0;
    if (cudnnGetConvolutionBackwardFilterWorkspaceSize(c->dnn, im->x, im->y, im->conv, im->w,
                                                       im->filter_algo, &ws) != CUDNN_STATUS_SUCCESS)
        return -1;
    if (ws > im->filter_ws) im->filter_ws = ws;
    return 0;
}

static int conv_init(cu_ctx *c, tta_op *op, cu_impl *im, char *err, size_t errlen) {
    tta_shape i = op->in, o = op->out;
    if (o.h != (i.h + 2 * op->pad - op->kernel) / op->stride + 1 ||
        o.w != (i.w + 2 * op->pad - op->kernel) / op->stride + 1) {
        snprintf(err, errlen, "conv: output %dx%d does not match input %dx%d, kernel %d, stride %d, pad %d",
                 o.h, o.w, i.h, i.w, op->kernel, op->stride, op->pad);
        return -1;
    }
    if (set_tensor(&im->x, i, err, errlen) || set_tensor(&im->y, o, err, errlen)) return -1;
    CUDNN_TRY(cudnnCreateFilterDescriptor(&im->w));
    CUDNN_TRY(cudnnSetFilter4dDescriptor(im->w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, o.c, i.c,
                                         op->kernel, op->kernel));
    CUDNN_TRY(cudnnCreateConvolutionDescriptor(&im->conv));
    CUDNN_TRY(cudnnSetConvolution2dDescriptor(im->conv, op->pad, op->pad, op->stride, op->stride,
                                              1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    /* no TF32 tensor cores: float accuracy (see the file comment) */
    CUDNN_TRY(cudnnSetConvolutionMathType(im->conv, CUDNN_FMA_MATH));
    if (pick_fwd(c, im)) {
        snprintf(err, errlen, "cuDNN: no forward convolution algorithm for %dx%dx%d -> %dx%dx%d",
                 i.c, i.h, i.w, o.c, o.h, o.w);
        return -1;
    }
    op->scratch_bytes = im->fwd_ws;
    if (op->train) {
        if (pick_filter(c, im)) {
            snprintf(err, errlen, "cuDNN: no backward-filter convolution algorithm for %dx%dx%d -> %dx%dx%d",
                     i.c, i.h, i.w, o.c, o.h, o.w);
            return -1;
        }
        if (im->filter_ws > op->scratch_bytes) op->scratch_bytes = im->filter_ws;
        if (op->need_dinp) {
            if (pick_data(c, im)) {
                snprintf(err, errlen, "cuDNN: no backward-data convolution algorithm for %dx%dx%d -> %dx%dx%d",
                         i.c, i.h, i.w, o.c, o.h, o.w);
                return -1;
            }
            if (im->data_ws > op->scratch_bytes) op->scratch_bytes = im->data_ws;
        }
    }
    if (c->verbose)
        fprintf(stderr, "cuda: conv %dx%dx%dx%d -> %d k%d s%d p%d: fwd algo %d (%zu B)%s", i.n, i.c,
                i.h, i.w, o.c, op->kernel, op->stride, op->pad, (int)im->fwd_algo, im->fwd_ws,
                op->train ? "" : "\n");
    if (c->verbose && op->train)
        fprintf(stderr, ", filter algo %d (%zu B), data algo %d (%zu B)\n", (int)im->filter_algo,
                im->filter_ws, op->need_dinp ? (int)im->data_algo : -1, op->need_dinp ? im->data_ws : 0);
    return 0;
}

static int bn_init(cu_ctx *c, tta_op *op, cu_impl *im, char *err, size_t errlen) {
    if (op->eps < CUDNN_BN_MIN_EPSILON) {
        snprintf(err, errlen, "bn: eps %g is below cuDNN's minimum %g", op->eps, CUDNN_BN_MIN_EPSILON);
        return -1;
    }
    if (op->train && (size_t)op->in.n * op->in.h * op->in.w < 2) {
        snprintf(err, errlen, "bn: training needs more than one value per channel (got %dx%dx%d)",
                 op->in.n, op->in.h, op->in.w);
        return -1;
    }
    if (set_tensor(&im->x, op->in, err, errlen)) return -1;
    CUDNN_TRY(cudnnCreateTensorDescriptor(&im->stat));
    CUDNN_TRY(cudnnDeriveBNTensorDescriptor(im->stat, im->x, CUDNN_BATCHNORM_SPATIAL));
    if (op->train) {
        op->saved_bytes = 2 * sizeof(float) * op->in.c; /* batch mean, inverse std */
        /* the input gradient of a BN whose input needs none goes to scratch: cuDNN always
         * writes it */
        if (!op->need_dinp) op->scratch_bytes = tta_shape_count(op->in) * sizeof(float);
    }
    return 0;
}

static int pool_init(cu_ctx *c, tta_op *op, cu_impl *im, char *err, size_t errlen) {
    tta_shape i = op->in, o = op->out;
    if (op->kind == TTA_OP_GAP || op->kind == TTA_OP_GMP) {
        if (o.h != 1 || o.w != 1 || o.c != i.c) {
            snprintf(err, errlen, "%s: output must be %dx1x1", tta_op_kind_name(op->kind), i.c);
            return -1;
        }
    } else if (op->kernel < 1 || op->stride < 1 ||
               o.h != (i.h + 2 * op->pad - op->kernel) / op->stride + 1 ||
               o.w != (i.w + 2 * op->pad - op->kernel) / op->stride + 1) {
        snprintf(err, errlen, "%s: output %dx%d does not match input %dx%d, kernel %d, stride %d, pad %d",
                 tta_op_kind_name(op->kind), o.h, o.w, i.h, i.w, op->kernel, op->stride, op->pad);
        return -1;
    }
    if (op->kind == TTA_OP_MAXPOOL || op->kind == TTA_OP_GMP) return 0; /* kernels.cu */
    /* average pooling through cuDNN; global average pooling is one window over the plane */
    if (set_tensor(&im->x, i, err, errlen) || set_tensor(&im->y, o, err, errlen)) return -1;
    CUDNN_TRY(cudnnCreatePoolingDescriptor(&im->pool));
    if (op->kind == TTA_OP_GAP)
        CUDNN_TRY(cudnnSetPooling2dDescriptor(im->pool, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
                                              CUDNN_NOT_PROPAGATE_NAN, i.h, i.w, 0, 0, i.h, i.w));
    else /* PyTorch's count_include_pad=True: every window divides by kernel^2 */
        CUDNN_TRY(cudnnSetPooling2dDescriptor(im->pool, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
                                              CUDNN_NOT_PROPAGATE_NAN, op->kernel, op->kernel,
                                              op->pad, op->pad, op->stride, op->stride));
    int n, ch, h, w;
    CUDNN_TRY(cudnnGetPooling2dForwardOutputDim(im->pool, im->x, &n, &ch, &h, &w));
    if (n != o.n || ch != o.c || h != o.h || w != o.w) {
        snprintf(err, errlen, "%s: cuDNN computes output %dx%dx%dx%d, the model %dx%dx%dx%d",
                 tta_op_kind_name(op->kind), n, ch, h, w, o.n, o.c, o.h, o.w);
        return -1;
    }
    return 0;
}

static void impl_free(cu_impl *im) {
    if (!im) return;
    if (im->x) cudnnDestroyTensorDescriptor(im->x);
    if (im->y) cudnnDestroyTensorDescriptor(im->y);
    if (im->stat) cudnnDestroyTensorDescriptor(im->stat);
    if (im->w) cudnnDestroyFilterDescriptor(im->w);
    if (im->conv) cudnnDestroyConvolutionDescriptor(im->conv);
    if (im->pool) cudnnDestroyPoolingDescriptor(im->pool);
    free(im);
}

static int cu_op_init(void *ctx, tta_op *op, char *err, size_t errlen) {
    cu_ctx *c = ctx;
    op->saved_bytes = op->scratch_bytes = 0;
    cu_impl *im = callocCheck(1, sizeof *im);
    op->impl = im;
    int rc = 0;
    switch (op->kind) {
    case TTA_OP_CONV: rc = conv_init(c, op, im, err, errlen); break;
    case TTA_OP_BN: rc = bn_init(c, op, im, err, errlen); break;
    case TTA_OP_MAXPOOL:
    case TTA_OP_AVGPOOL:
    case TTA_OP_GAP:
    case TTA_OP_GMP: rc = pool_init(c, op, im, err, errlen); break;
    case TTA_OP_PAD_SHORTCUT:
        if (op->stride < 1 || op->pad_front < 0 || op->pad_front + op->in.c > op->out.c) {
            snprintf(err, errlen, "pad_shortcut: %d channels at %d do not fit in %d (stride %d)",
                     op->in.c, op->pad_front, op->out.c, op->stride);
            rc = -1;
        }
        break;
    default: break; /* everything else is a kernel with no state */
    }
    if (rc) {
        impl_free(im);
        op->impl = NULL;
        op->saved_bytes = op->scratch_bytes = 0;
    }
    return rc;
}

static void cu_op_release(void *ctx, tta_op *op) {
    impl_free(op->impl);
    op->impl = NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* CONV                                                                                         */

static const float one = 1.0f, zero = 0.0f;

static void cu_conv_prepare(void *ctx, tta_op *op, const float *w, const float *b) {
    cu_impl *im = op->impl;
    im->wp = w; /* OIHW is cuDNN's NCHW filter layout: nothing to convert */
    im->bp = op->bias ? b : NULL;
}

static void cu_conv_forward(void *ctx, tta_op *op, float *out, const float *inp) {
    cu_ctx *c = ctx;
    cu_impl *im = op->impl;
    assert(im->wp && (op->scratch || !op->scratch_bytes));
    CUDNN_CHECK(cudnnConvolutionForward(c->dnn, &one, im->x, inp, im->w, im->wp, im->conv,
                                        im->fwd_algo, op->scratch, im->fwd_ws, &zero, im->y, out));
    tta_shape o = op->out;
    CUDA_CHECK(tta_cu_bias_act(out, im->bp, o.n, o.c, o.h * o.w, op->relu, c->stream));
}

static void cu_conv_backward(void *ctx, tta_op *op, float *dinp, float *dw, float *db, float *dout,
                             const float *inp, const float *out) {
    cu_ctx *c = ctx;
    cu_impl *im = op->impl;
    tta_shape o = op->out;
    assert(op->train && im->wp);
    if (op->relu) CUDA_CHECK(tta_cu_relu_backward(dout, dout, out, tta_shape_count(o), c->stream));
    if (op->bias && db) CUDA_CHECK(tta_cu_channel_sum(db, dout, o.n, o.c, o.h * o.w, c->stream));
    CUDNN_CHECK(cudnnConvolutionBackwardFilter(c->dnn, &one, im->x, inp, im->y, dout, im->conv,
                                               im->filter_algo, op->scratch, im->filter_ws, &zero,
                                               im->w, dw));
    if (op->need_dinp && dinp)
        CUDNN_CHECK(cudnnConvolutionBackwardData(c->dnn, &one, im->w, im->wp, im->y, dout, im->conv,
                                                 im->data_algo, op->scratch, im->data_ws, &zero,
                                                 im->x, dinp));
}

/* ------------------------------------------------------------------------------------------ */
/* BN: cuDNN's spatial batch norm. Training uses the batch's biased variance to normalise and
 * updates the running variance with the unbiased one, as PyTorch (which calls the same
 * function with exponentialAverageFactor = momentum). */

static void cu_bn_forward(void *ctx, tta_op *op, float *out, const float *inp, const float *gamma,
                          const float *beta, float *run_mean, float *run_var) {
    cu_ctx *c = ctx;
    cu_impl *im = op->impl;
    if (op->train) {
        float *mean = op->saved, *istd = mean + op->in.c;
        assert(mean);
        CUDNN_CHECK(cudnnBatchNormalizationForwardTraining(
            c->dnn, CUDNN_BATCHNORM_SPATIAL, &one, &zero, im->x, inp, im->x, out, im->stat, gamma,
            beta, (double)op->momentum, run_mean, run_var, (double)op->eps, mean, istd));
    } else {
        CUDNN_CHECK(cudnnBatchNormalizationForwardInference(
            c->dnn, CUDNN_BATCHNORM_SPATIAL, &one, &zero, im->x, inp, im->x, out, im->stat, gamma,
            beta, run_mean, run_var, (double)op->eps));
    }
    if (op->relu) CUDA_CHECK(tta_cu_relu_forward(out, out, tta_shape_count(op->out), c->stream));
}

static void cu_bn_backward(void *ctx, tta_op *op, float *dinp, float *dgamma, float *dbeta,
                           float *dout, const float *inp, const float *out, const float *gamma,
                           const float *beta) {
    cu_ctx *c = ctx;
    cu_impl *im = op->impl;
    assert(op->train && op->saved);
    const float *mean = op->saved, *istd = mean + op->in.c;
    if (op->relu) CUDA_CHECK(tta_cu_relu_backward(dout, dout, out, tta_shape_count(op->out), c->stream));
    float *dx = op->need_dinp && dinp ? dinp : op->scratch;
    assert(dx);
    CUDNN_CHECK(cudnnBatchNormalizationBackward(c->dnn, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one,
                                                &zero, im->x, inp, im->x, dout, im->x, dx, im->stat,
                                                gamma, dgamma, dbeta, (double)op->eps, mean, istd));
}

static void cu_fold_bn(void *ctx, float *wf, float *bf, const float *w, const float *b,
                       const float *gamma, const float *beta, const float *mean, const float *var,
                       float eps, int oc, int k) {
    cu_ctx *c = ctx;
    CUDA_CHECK(tta_cu_fold_bn(wf, bf, w, b, gamma, beta, mean, var, eps, oc, k, c->stream));
}

/* ------------------------------------------------------------------------------------------ */
/* RELU, pooling                                                                                */

static void cu_relu_forward(void *ctx, tta_op *op, float *out, const float *inp) {
    cu_ctx *c = ctx;
    CUDA_CHECK(tta_cu_relu_forward(out, inp, tta_shape_count(op->out), c->stream));
}
static void cu_relu_backward(void *ctx, tta_op *op, float *dinp, const float *dout,
                             const float *out) {
    cu_ctx *c = ctx;
    if (dinp) CUDA_CHECK(tta_cu_relu_backward(dinp, dout, out, tta_shape_count(op->out), c->stream));
}

/* The window of a max-pooling op: GMP is one window over the whole plane. */
static void max_window(const tta_op *op, int *kh, int *kw, int *sh, int *sw, int *p) {
    if (op->kind == TTA_OP_GMP) {
        *kh = *sh = op->in.h;
        *kw = *sw = op->in.w;
        *p = 0;
    } else {
        *kh = *kw = op->kernel;
        *sh = *sw = op->stride;
        *p = op->pad;
    }
}

static void cu_pool_forward(void *ctx, tta_op *op, float *out, const float *inp) {
    cu_ctx *c = ctx;
    cu_impl *im = op->impl;
    tta_shape i = op->in, o = op->out;
    if (op->kind == TTA_OP_MAXPOOL || op->kind == TTA_OP_GMP) {
        int kh, kw, sh, sw, p;
        max_window(op, &kh, &kw, &sh, &sw, &p);
        CUDA_CHECK(tta_cu_maxpool_forward(out, inp, i.n * i.c, i.h, i.w, kh, kw, sh, sw, p, p, o.h,
                                          o.w, c->stream));
        return;
    }
    CUDNN_CHECK(cudnnPoolingForward(c->dnn, im->pool, &one, im->x, inp, &zero, im->y, out));
}

static void cu_pool_backward(void *ctx, tta_op *op, float *dinp, const float *dout,
                             const float *inp, const float *out) {
    cu_ctx *c = ctx;
    cu_impl *im = op->impl;
    tta_shape i = op->in, o = op->out;
    if (!dinp) return;
    if (op->kind == TTA_OP_MAXPOOL || op->kind == TTA_OP_GMP) {
        int kh, kw, sh, sw, p;
        max_window(op, &kh, &kw, &sh, &sw, &p);
        CUDA_CHECK(tta_cu_maxpool_backward(dinp, dout, inp, i.n * i.c, i.h, i.w, kh, kw, sh, sw, p,
                                           p, o.h, o.w, c->stream));
        return;
    }
    CUDNN_CHECK(cudnnPoolingBackward(c->dnn, im->pool, &one, im->y, out, im->y, dout, im->x, inp,
                                     &zero, im->x, dinp));
}

/* ------------------------------------------------------------------------------------------ */
/* LINEAR through cuBLAS (column-major). A row-major [r][k] matrix is a column-major k x r
 * one, so with every matrix read as its transpose:
 *   out[B][O] = inp[B][In] W[O][In]^T   ->  out^T (O x B) = W^T... = op(W) inp^T:
 *       sgemm(T, N, m=O, n=B, k=In, A=W (In x O, lda In), B=inp (In x B, ldb In), C ldc O);
 *   dW[O][In] = dout^T[O][B] inp[B][In]   ->  dW^T (In x O) = inp^T (In x B) dout (B x O):
 *       sgemm(N, T, m=In, n=O, k=B, A=inp (lda In), B=dout (O x B, ldb O), C=dW ldc In);
 *   dinp[B][In] = dout[B][O] W[O][In]     ->  dinp^T (In x B) = W^T (In x O) dout^T (O x B):
 *       sgemm(N, N, m=In, n=B, k=O, A=W (lda In), B=dout (ldb O), C=dinp ldc In).
 * Bias and ReLU are one epilogue pass; the bias gradient is a column sum of dout. */

static void cu_linear_forward(void *ctx, tta_op *op, float *out, const float *inp, const float *w,
                              const float *b) {
    cu_ctx *c = ctx;
    int B = op->in.n, In = op->in.c * op->in.h * op->in.w, O = op->out.c;
    CUBLAS_CHECK(cublasSgemm(c->blas, CUBLAS_OP_T, CUBLAS_OP_N, O, B, In, &one, w, In, inp, In,
                             &zero, out, O));
    CUDA_CHECK(tta_cu_bias_act(out, op->bias ? b : NULL, B, O, 1, op->relu, c->stream));
}

static void cu_linear_backward(void *ctx, tta_op *op, float *dinp, float *dw, float *db,
                               float *dout, const float *inp, const float *w, const float *out) {
    cu_ctx *c = ctx;
    int B = op->in.n, In = op->in.c * op->in.h * op->in.w, O = op->out.c;
    if (op->relu) CUDA_CHECK(tta_cu_relu_backward(dout, dout, out, (size_t)B * O, c->stream));
    if (op->bias && db) CUDA_CHECK(tta_cu_channel_sum(db, dout, B, O, 1, c->stream));
    CUBLAS_CHECK(cublasSgemm(c->blas, CUBLAS_OP_N, CUBLAS_OP_T, In, O, B, &one, inp, In, dout, O,
                             &zero, dw, In));
    if (op->need_dinp && dinp)
        CUBLAS_CHECK(cublasSgemm(c->blas, CUBLAS_OP_N, CUBLAS_OP_N, In, B, O, &one, w, In, dout, O,
                                 &zero, dinp, In));
}

/* ------------------------------------------------------------------------------------------ */
/* Element-wise ops                                                                             */

static void cu_add_forward(void *ctx, tta_op *op, float *out, const float *a, const float *b) {
    cu_ctx *c = ctx;
    CUDA_CHECK(tta_cu_add(out, a, b, tta_shape_count(op->out), op->relu, c->stream));
}

/* FLATTEN: activations are NCHW, so C x H x W is already the flat order. */
static void cu_flatten_forward(void *ctx, tta_op *op, float *out, const float *inp) {
    cu_copy(ctx, out, inp, tta_shape_count(op->out));
}
static void cu_flatten_backward(void *ctx, tta_op *op, float *dinp, const float *dout) {
    if (dinp) cu_copy(ctx, dinp, dout, tta_shape_count(op->out));
}

static void cu_dropout_forward(void *ctx, tta_op *op, float *out, const float *inp, uint64_t seed,
                               uint64_t step) {
    cu_ctx *c = ctx;
    CUDA_CHECK(tta_cu_dropout(out, inp, tta_shape_count(op->out), op->p, seed, step, c->stream));
}
static void cu_dropout_backward(void *ctx, tta_op *op, float *dinp, const float *dout,
                                uint64_t seed, uint64_t step) {
    cu_ctx *c = ctx;
    if (dinp)
        CUDA_CHECK(tta_cu_dropout(dinp, dout, tta_shape_count(op->out), op->p, seed, step, c->stream));
}

static void cu_scale_forward(void *ctx, tta_op *op, float *out, const float *inp) {
    cu_ctx *c = ctx;
    CUDA_CHECK(tta_cu_scale(out, inp, op->factor, tta_shape_count(op->out), c->stream));
}
static void cu_scale_backward(void *ctx, tta_op *op, float *dinp, const float *dout) {
    if (dinp) cu_scale_forward(ctx, op, dinp, dout);
}

static void cu_shortcut_forward(void *ctx, tta_op *op, float *out, const float *inp) {
    cu_ctx *c = ctx;
    tta_shape i = op->in, o = op->out;
    CUDA_CHECK(tta_cu_shortcut_forward(out, inp, i.n, i.c, i.h, i.w, o.c, op->stride, op->pad_front,
                                       o.h, o.w, c->stream));
}
static void cu_shortcut_backward(void *ctx, tta_op *op, float *dinp, const float *dout) {
    cu_ctx *c = ctx;
    tta_shape i = op->in, o = op->out;
    if (dinp)
        CUDA_CHECK(tta_cu_shortcut_backward(dinp, dout, i.n, i.c, i.h, i.w, o.c, op->stride,
                                            op->pad_front, o.h, o.w, c->stream));
}

static void cu_xent_forward(void *ctx, tta_op *op, float *result, const float *logits,
                            const int32_t *labels) {
    cu_ctx *c = ctx;
    CUDA_CHECK(tta_cu_xent_forward(result, logits, labels, op->in.n, op->in.c, op->smoothing,
                                   c->stream));
}
static void cu_xent_backward(void *ctx, tta_op *op, float *dlogits, const float *logits,
                             const int32_t *labels) {
    cu_ctx *c = ctx;
    CUDA_CHECK(tta_cu_xent_backward(dlogits, logits, labels, op->in.n, op->in.c, op->smoothing,
                                    c->stream));
}

/* The optimizer's step on the device (kernels.cu): no parameter or gradient crosses the bus. */
static void cu_sgd_step(void *ctx, float *params, const float *grads, float *velocity,
                        const tta_sgd_step *a) {
    cu_ctx *c = ctx;
    assert(a->n_ranges >= 1 && a->n_ranges <= TTA_SGD_MAX_RANGES);
    CUDA_CHECK(tta_cu_sgd(params, grads, velocity, a, c->stream));
}

/* ------------------------------------------------------------------------------------------ */
/* Create and destroy                                                                           */

/* The stream of the most recently created cuda backend (one per process in practice). */
static void cu_destroy(tta_backend *be) {
    cu_ctx *c = be->ctx;
    if (c->stream) cudaStreamSynchronize(c->stream);
    if (c->blas) cublasDestroy(c->blas);
    if (c->dnn) cudnnDestroy(c->dnn);
    if (c->stream) cudaStreamDestroy(c->stream);
    free(c->blocks);
    free(c);
    free(be);
}

static const tta_backend_ops cuda_ops = {
    .name = "cuda",
    .host_memory = 0,
    .destroy = cu_destroy,
    .alloc = cu_alloc,
    .free = cu_free,
    .allocated = cu_allocated,
    .upload = cu_upload,
    .download = cu_download,
    .sync = cu_sync,
    .tensor_upload = cu_tensor_upload,
    .tensor_download = cu_tensor_download,
    .copy = cu_copy,
    .accumulate = cu_accumulate,
    .fill = cu_fill,
    .op_init = cu_op_init,
    .op_release = cu_op_release,
    .conv_prepare = cu_conv_prepare,
    .conv_forward = cu_conv_forward,
    .conv_backward = cu_conv_backward,
    .bn_forward = cu_bn_forward,
    .bn_backward = cu_bn_backward,
    .fold_bn = cu_fold_bn,
    .relu_forward = cu_relu_forward,
    .relu_backward = cu_relu_backward,
    .pool_forward = cu_pool_forward,
    .pool_backward = cu_pool_backward,
    .linear_forward = cu_linear_forward,
    .linear_backward = cu_linear_backward,
    .add_forward = cu_add_forward,
    .flatten_forward = cu_flatten_forward,
    .flatten_backward = cu_flatten_backward,
    .dropout_forward = cu_dropout_forward,
    .dropout_backward = cu_dropout_backward,
    .scale_forward = cu_scale_forward,
    .scale_backward = cu_scale_backward,
    .shortcut_forward = cu_shortcut_forward,
    .shortcut_backward = cu_shortcut_backward,
    .xent_forward = cu_xent_forward,
    .xent_backward = cu_xent_backward,
    .sgd_step = cu_sgd_step,
};

tta_backend *tta_cuda_backend_create(const tta_backend_options *opt, char *err, size_t errlen) {
    int dev = tta_cuda_select_device(err, errlen);
    if (dev < 0) return NULL;
    cu_ctx *c = callocCheck(1, sizeof *c);
    tta_backend *be = callocCheck(1, sizeof *be);
    be->ops = &cuda_ops;
    be->ctx = c;
    c->device = dev;
    c->verbose = opt ? opt->verbose : 0;
    cudaError_t e = cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking);
    if (e != cudaSuccess) {
        snprintf(err, errlen, "CUDA device %d: cudaStreamCreate: %s", dev, cudaGetErrorString(e));
        c->stream = NULL;
        cu_destroy(be);
        return NULL;
    }
    cudnnStatus_t ds = cudnnCreate(&c->dnn);
    if (ds != CUDNN_STATUS_SUCCESS) {
        snprintf(err, errlen, "cuDNN: cudnnCreate: %s", cudnnGetErrorString(ds));
        c->dnn = NULL;
        cu_destroy(be);
        return NULL;
    }
    cublasStatus_t bs = cublasCreate(&c->blas);
    if (bs != CUBLAS_STATUS_SUCCESS) {
        snprintf(err, errlen, "cuBLAS: cublasCreate: %s", cublasGetStatusString(bs));
        c->blas = NULL;
        cu_destroy(be);
        return NULL;
    }
    if (cudnnSetStream(c->dnn, c->stream) != CUDNN_STATUS_SUCCESS ||
        cublasSetStream(c->blas, c->stream) != CUBLAS_STATUS_SUCCESS ||
        cublasSetMathMode(c->blas, CUBLAS_DEFAULT_MATH) != CUBLAS_STATUS_SUCCESS) {
        snprintf(err, errlen, "cuDNN/cuBLAS: cannot attach the stream");
        cu_destroy(be);
        return NULL;
    }
    if (c->verbose) {
        struct cudaDeviceProp p;
        if (cudaGetDeviceProperties(&p, dev) == cudaSuccess)
            fprintf(stderr, "cuda: device %d: %s (sm_%d%d, %.1f GiB), cuDNN %zu, cuBLAS %d\n", dev,
                    p.name, p.major, p.minor, p.totalGlobalMem / 1073741824.0, cudnnGetVersion(),
                    CUBLAS_VERSION);
    }
    return be;
}
