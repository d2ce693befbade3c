/* kernels.cu: the CUDA kernels of the "cuda" backend for what cuDNN and cuBLAS have no
 * primitive for (or none with the engine's exact rule): element-wise ops, bias and ReLU
 * epilogues, per-channel sums, dropout with engine.h's counter-based mask, the option-A
 * shortcut, max pooling with PyTorch's first-maximum gradient, softmax cross-entropy with
 * label smoothing, and BN folding. Contracts are in cuda_internal.h.
 *
 * Rules kept throughout: every result is deterministic (no atomics, reductions in a fixed
 * order), so two runs of a model are bit-identical like on the cpu backend; where the reference
 * layers compute in double (cross-entropy, BN folding) so do these kernels; element-wise
 * arithmetic is the reference's float expression, so those ops agree with it to the bit.
 */
#include <math.h>
#include <stdint.h>

#include "replay/cuda/cuda_internal.h"

#define THREADS 256
/* Grid-stride loops: enough blocks to fill any current GPU, few enough to launch cheaply. */
#define MAX_BLOCKS 8192

static unsigned blocks_for(size_t n) {
    size_t b = (n + THREADS - 1) / THREADS;
    return (unsigned)(b < MAX_BLOCKS ? b : MAX_BLOCKS);
}

/* The launch's error (a launch error is reported here; errors of the kernel's execution
 * surface at the next synchronising call). */
static cudaError_t launched(void) { return cudaGetLastError(); }

#define GRID_LOOP(i, n)                                                                            \
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);                        \
         i += (size_t)blockDim.x * gridDim.x)

/* ------------------------------------------------------------------------------------------ */
/* Element-wise                                                                                 */

__global__ void k_fill(float *dst, float v, size_t n) {
    GRID_LOOP(i, n) dst[i] = v;
}
__global__ void k_accumulate(float *dst, const float *src, size_t n) {
    GRID_LOOP(i, n) dst[i] += src[i];
}
__global__ void k_scale(float *dst, const float *src, float f, size_t n) {
    GRID_LOOP(i, n) dst[i] = src[i] * f;
}
__global__ void k_relu_forward(float *out, const float *inp, size_t n) {
    GRID_LOOP(i, n) out[i] = inp[i] > 0 ? inp[i] : 0.0f;
}
__global__ void k_relu_backward(float *dinp, const float *dout, const float *out, size_t n) {
    GRID_LOOP(i, n) dinp[i] = out[i] > 0 ? dout[i] : 0.0f;
}
__global__ void k_add(float *out, const float *a, const float *b, size_t n, int relu) {
    GRID_LOOP(i, n) {
        float v = a[i] + b[i];
        out[i] = relu && !(v > 0) ? 0.0f : v;
    }
}
__global__ void k_bias_act(float *x, const float *b, size_t n, int C, int HW, int relu) {
    GRID_LOOP(i, n) {
        float v = x[i];
        if (b) v += b[(i / HW) % C];
        x[i] = relu && !(v > 0) ? 0.0f : v;
    }
}

extern "C" cudaError_t tta_cu_fill(float *dst, float v, size_t n, cudaStream_t s) {
    if (n) k_fill<<<blocks_for(n), THREADS, 0, s>>>(dst, v, n);
    return launched();
}
extern "C" cudaError_t tta_cu_accumulate(float *dst, const float *src, size_t n, cudaStream_t s) {
    if (n) k_accumulate<<<blocks_for(n), THREADS, 0, s>>>(dst, src, n);
    return launched();
}
extern "C" cudaError_t tta_cu_scale(float *dst, const float *src, float f, size_t n, cudaStream_t s) {
    if (n) k_scale<<<blocks_for(n), THREADS, 0, s>>>(dst, src, f, n);
    return launched();
}
extern "C" cudaError_t tta_cu_relu_forward(float *out, const float *inp, size_t n, cudaStream_t s) {
    if (n) k_relu_forward<<<blocks_for(n), THREADS, 0, s>>>(out, inp, n);
    return launched();
}
extern "C" cudaError_t tta_cu_relu_backward(float *dinp, const float *dout, const float *out,
                                            size_t n, cudaStream_t s) {
    if (n) k_relu_backward<<<blocks_for(n), THREADS, 0, s>>>(dinp, dout, out, n);
    return launched();
}
extern "C" cudaError_t tta_cu_add(float *out, const float *a, const float *b, size_t n, int relu,
                                  cudaStream_t s) {
    if (n) k_add<<<blocks_for(n), THREADS, 0, s>>>(out, a, b, n, relu);
    return launched();
}
extern "C" cudaError_t tta_cu_bias_act(float *x, const float *b, int N, int C, int HW, int relu,
                                       cudaStream_t s) {
    size_t n = (size_t)N * C * HW;
    if (n && (b || relu)) k_bias_act<<<blocks_for(n), THREADS, 0, s>>>(x, b, n, C, HW, relu);
    return launched();
}

/* ------------------------------------------------------------------------------------------ */
/* The optimizer: momentum SGD (tta_sgd_step). __fmul_rn and __fadd_rn/__fsub_rn round every
 * product and sum to float, as the host's loops do, where nvcc would otherwise contract
 * a * b + c into one fused multiply-add (one rounding: other bits than tta_optim_step's). */

__global__ void k_sgd(float *p, const float *g, float *v, tta_sgd_step a) {
    const float mu = a.momentum, lr = a.lr;
    for (int r = 0; r < a.n_ranges; r++) {
        const float wd = a.decay[r];
        const size_t lo = a.begin[r], n = a.end[r] - a.begin[r];
        GRID_LOOP(k, n) {
            const size_t i = lo + k;
            const float gi = __fadd_rn(g[i], __fmul_rn(wd, p[i]));
            if (a.caffe) {
                const float vi = __fadd_rn(__fmul_rn(mu, v[i]), __fmul_rn(lr, gi));
                v[i] = vi;
                p[i] = __fsub_rn(p[i], a.nesterov ? __fadd_rn(__fmul_rn(mu, vi), __fmul_rn(lr, gi)) : vi);
            } else {
                const float vi = __fadd_rn(__fmul_rn(mu, v[i]), gi);
                v[i] = vi;
                p[i] = __fsub_rn(p[i], a.nesterov ? __fmul_rn(lr, __fadd_rn(gi, __fmul_rn(mu, vi)))
                                                  : __fmul_rn(lr, vi));
            }
        }
    }
}

extern "C" cudaError_t tta_cu_sgd(float *p, const float *g, float *v, const tta_sgd_step *a,
                                  cudaStream_t s) {
    size_t most = 0; /* the grid for the largest range; smaller ones leave threads idle */
    for (int r = 0; r < a->n_ranges; r++)
        if (a->end[r] - a->begin[r] > most) most = a->end[r] - a->begin[r];
    if (most) k_sgd<<<blocks_for(most), THREADS, 0, s>>>(p, g, v, *a);
    return launched();
}

/* One block per channel: each thread sums a strided slice of the channel's N*HW values, then
 * a shared-memory tree adds the partial sums. The order depends only on the shape, so the
 * result is the same on every run. Sums in double: a bias gradient over a large batch adds
 * many terms of both signs. */
__global__ void k_channel_sum(float *dst, const float *src, int N, int C, int HW) {
    __shared__ double part[THREADS];
    int c = blockIdx.x;
    size_t count = (size_t)N * HW;
    double acc = 0;
    for (size_t j = threadIdx.x; j < count; j += blockDim.x) {
        size_t n = j / HW, hw = j % HW;
        acc += src[(n * C + c) * HW + hw];
    }
    part[threadIdx.x] = acc;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) part[threadIdx.x] += part[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) dst[c] = (float)part[0];
}

extern "C" cudaError_t tta_cu_channel_sum(float *dst, const float *src, int N, int C, int HW,
                                          cudaStream_t s) {
    if (C > 0) k_channel_sum<<<C, THREADS, 0, s>>>(dst, src, N, C, HW);
    return launched();
}

/* ------------------------------------------------------------------------------------------ */
/* Dropout: engine.h's tta_mix64 / tta_dropout_keep, copied for the device (engine.h's inline
 * functions are host code). Keep them identical: the cpu and reference backends draw the same
 * mask from the same (seed, step, index). */

__device__ static inline uint64_t d_mix64(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}
__device__ static inline int d_dropout_keep(uint64_t seed, uint64_t step, uint64_t index, float p) {
    uint64_t h = d_mix64(seed * 0x9e3779b97f4a7c15ULL + step);
    h = d_mix64(h ^ (index * 0xd6e8feb86659fd93ULL));
    uint32_t u = (uint32_t)(h >> 40); /* 24 bits */
    return (float)u >= p * 16777216.0f;
}

__global__ void k_dropout(float *dst, const float *src, size_t n, float p, uint64_t seed,
                          uint64_t step) {
    float scale = p < 1 ? 1.0f / (1.0f - p) : 0.0f;
    GRID_LOOP(i, n) dst[i] = d_dropout_keep(seed, step, i, p) ? src[i] * scale : 0.0f;
}

extern "C" cudaError_t tta_cu_dropout(float *dst, const float *src, size_t n, float p,
                                      uint64_t seed, uint64_t step, cudaStream_t s) {
    if (n) k_dropout<<<blocks_for(n), THREADS, 0, s>>>(dst, src, n, p, seed, step);
    return launched();
}

/* ------------------------------------------------------------------------------------------ */
/* Option-A shortcut: one thread per output (forward) or input (backward) element, so every
 * element is written exactly once and the zeros need no separate fill. */

__global__ void k_shortcut_forward(float *out, const float *inp, int B, int C, int H, int W, int OC,
                                   int St, int pad_front, int OH, int OW) {
    size_t n = (size_t)B * OC * OH * OW;
    GRID_LOOP(i, n) {
        int ow = (int)(i % OW), oh = (int)(i / OW % OH), oc = (int)(i / ((size_t)OW * OH) % OC);
        size_t b = i / ((size_t)OW * OH * OC);
        int c = oc - pad_front;
        out[i] = c >= 0 && c < C ? inp[((b * C + c) * H + (size_t)oh * St) * W + (size_t)ow * St]
                                 : 0.0f;
    }
}

__global__ void k_shortcut_backward(float *dinp, const float *dout, int B, int C, int H, int W,
                                    int OC, int St, int pad_front, int OH, int OW) {
    size_t n = (size_t)B * C * H * W;
    GRID_LOOP(i, n) {
        int w = (int)(i % W), h = (int)(i / W % H), c = (int)(i / ((size_t)W * H) % C);
        size_t b = i / ((size_t)W * H * C);
        int oh = h / St, ow = w / St;
        int read = h % St == 0 && w % St == 0 && oh < OH && ow < OW;
        dinp[i] = read ? dout[((b * OC + c + pad_front) * OH + oh) * OW + ow] : 0.0f;
    }
}

extern "C" cudaError_t tta_cu_shortcut_forward(float *out, const float *inp, int B, int C, int H,
                                               int W, int OC, int St, int pad_front, int OH,
                                               int OW, cudaStream_t s) {
    size_t n = (size_t)B * OC * OH * OW;
    if (n)
        k_shortcut_forward<<<blocks_for(n), THREADS, 0, s>>>(out, inp, B, C, H, W, OC, St,
                                                             pad_front, OH, OW);
    return launched();
}
extern "C" cudaError_t tta_cu_shortcut_backward(float *dinp, const float *dout, int B, int C,
                                                int H, int W, int OC, int St, int pad_front,
                                                int OH, int OW, cudaStream_t s) {
    size_t n = (size_t)B * C * H * W;
    if (n)
        k_shortcut_backward<<<blocks_for(n), THREADS, 0, s>>>(dinp, dout, B, C, H, W, OC, St,
                                                              pad_front, OH, OW);
    return launched();
}

/* ------------------------------------------------------------------------------------------ */
/* Max pooling. cuDNN's max-pooling backward does not promise where the gradient of a window
 * with tied maxima goes; the engine's rule is PyTorch's: the first maximum in row-major order
 * among the in-bounds elements (padding never wins). */

/* The flat index (ih * W + iw) of the first maximum of window (oh, ow) of plane ip. */
__device__ static int window_argmax(const float *ip, int H, int W, int KH, int KW, int SH, int SW,
                                    int PH, int PW, int oh, int ow) {
    float m = -INFINITY;
    int arg = -1;
    for (int kh = 0; kh < KH; kh++) {
        int ih = oh * SH - PH + kh;
        if (ih < 0 || ih >= H) continue;
        for (int kw = 0; kw < KW; kw++) {
            int iw = ow * SW - PW + kw;
            if (iw < 0 || iw >= W) continue;
            float v = ip[ih * W + iw];
            if (v > m || arg < 0) {
                m = v;
                arg = ih * W + iw;
            }
        }
    }
    return arg; /* >= 0: a floor-mode window always holds an in-bounds element */
}

__global__ void k_maxpool_forward(float *out, const float *inp, int BC, int H, int W, int KH,
                                  int KW, int SH, int SW, int PH, int PW, int OH, int OW) {
    size_t n = (size_t)BC * OH * OW;
    GRID_LOOP(i, n) {
        int ow = (int)(i % OW), oh = (int)(i / OW % OH);
        const float *ip = inp + i / ((size_t)OW * OH) * H * W;
        out[i] = ip[window_argmax(ip, H, W, KH, KW, SH, SW, PH, PW, oh, ow)];
    }
}

/* Non-overlapping windows (stride >= window, which includes global max pooling): each input
 * element lies in at most one window, so one thread per window writes its gradient to its
 * argmax after the plane was zeroed, with no conflicts. */
__global__ void k_maxpool_backward_scatter(float *dinp, const float *dout, const float *inp, int BC,
                                           int H, int W, int KH, int KW, int SH, int SW, int PH,
                                           int PW, int OH, int OW) {
    size_t n = (size_t)BC * OH * OW;
    GRID_LOOP(i, n) {
        int ow = (int)(i % OW), oh = (int)(i / OW % OH);
        size_t plane = i / ((size_t)OW * OH) * H * W;
        int arg = window_argmax(inp + plane, H, W, KH, KW, SH, SW, PH, PW, oh, ow);
        dinp[plane + arg] = dout[i];
    }
}

/* Overlapping windows: one thread per input element gathers, over the windows that contain it
 * in (oh, ow) order, the gradients of those whose first maximum it is. */
__global__ void k_maxpool_backward_gather(float *dinp, const float *dout, const float *inp, int BC,
                                          int H, int W, int KH, int KW, int SH, int SW, int PH,
                                          int PW, int OH, int OW) {
    size_t n = (size_t)BC * H * W;
    GRID_LOOP(i, n) {
        int iw = (int)(i % W), ih = (int)(i / W % H);
        size_t bc = i / ((size_t)W * H);
        const float *ip = inp + bc * H * W;
        const float *dp = dout + bc * OH * OW;
        /* windows oh with oh*SH - PH <= ih <= oh*SH - PH + KH - 1 */
        int oh0 = ih + PH - KH + 1, oh1 = (ih + PH) / SH;
        oh0 = oh0 <= 0 ? 0 : (oh0 + SH - 1) / SH;
        int ow0 = iw + PW - KW + 1, ow1 = (iw + PW) / SW;
        ow0 = ow0 <= 0 ? 0 : (ow0 + SW - 1) / SW;
        if (oh1 > OH - 1) oh1 = OH - 1;
        if (ow1 > OW - 1) ow1 = OW - 1;
        float g = 0.0f;
        for (int oh = oh0; oh <= oh1; oh++)
            for (int ow = ow0; ow <= ow1; ow++)
                if (window_argmax(ip, H, W, KH, KW, SH, SW, PH, PW, oh, ow) == ih * W + iw)
                    g += dp[oh * OW + ow];
        dinp[i] = g;
    }
}

extern "C" cudaError_t tta_cu_maxpool_forward(float *out, const float *inp, int BC, int H, int W,
                                              int KH, int KW, int SH, int SW, int PH, int PW,
                                              int OH, int OW, cudaStream_t s) {
    size_t n = (size_t)BC * OH * OW;
    if (n)
        k_maxpool_forward<<<blocks_for(n), THREADS, 0, s>>>(out, inp, BC, H, W, KH, KW, SH, SW,
                                                            PH, PW, OH, OW);
    return launched();
}

extern "C" cudaError_t tta_cu_maxpool_backward(float *dinp, const float *dout, const float *inp,
                                               int BC, int H, int W, int KH, int KW, int SH,
                                               int SW, int PH, int PW, int OH, int OW,
                                               cudaStream_t s) {
    size_t nin = (size_t)BC * H * W, nout = (size_t)BC * OH * OW;
    if (!nin) return cudaSuccess;
    if (SH >= KH && SW >= KW) {
        cudaError_t e = cudaMemsetAsync(dinp, 0, nin * sizeof(float), s);
        if (e != cudaSuccess) return e;
        if (nout)
            k_maxpool_backward_scatter<<<blocks_for(nout), THREADS, 0, s>>>(
                dinp, dout, inp, BC, H, W, KH, KW, SH, SW, PH, PW, OH, OW);
    } else {
        k_maxpool_backward_gather<<<blocks_for(nin), THREADS, 0, s>>>(dinp, dout, inp, BC, H, W, KH,
                                                                      KW, SH, SW, PH, PW, OH, OW);
    }
    return launched();
}

/* ------------------------------------------------------------------------------------------ */
/* Softmax cross-entropy (PyTorch's CrossEntropyLoss(label_smoothing=e)): as
 * ref_xent_forward_f, in double. One block: each thread takes samples tid, tid + THREADS, ...,
 * and a fixed tree sums the per-thread totals, so the sum is deterministic. A batch has at most
 * a few thousand samples; one block is plenty and keeps the op free of scratch memory. */
__global__ void k_xent_forward(float *result, const float *logits, const int32_t *labels, int B,
                               int K, float smoothing) {
    __shared__ double loss[THREADS];
    __shared__ int hits[THREADS];
    double total = 0;
    int correct = 0;
    for (int n = threadIdx.x; n < B; n += blockDim.x) {
        const float *z = logits + (size_t)n * K;
        int arg = 0;
        for (int k = 1; k < K; k++)
            if (z[k] > z[arg]) arg = k;
        double mx = z[arg], s = 0, sumz = 0;
        for (int k = 0; k < K; k++) {
            s += exp((double)z[k] - mx);
            sumz += z[k];
        }
        double lse = mx + log(s);
        int y = labels[n];
        double nll = y >= 0 && y < K ? lse - z[y] : NAN; /* a bad label poisons the loss */
        double uniform = lse - sumz / K;
        total += (1.0 - smoothing) * nll + smoothing * uniform;
        correct += arg == y;
    }
    loss[threadIdx.x] = total;
    hits[threadIdx.x] = correct;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            loss[threadIdx.x] += loss[threadIdx.x + half];
            hits[threadIdx.x] += hits[threadIdx.x + half];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        result[0] = (float)loss[0];
        result[1] = (float)hits[0];
    }
}

/* One thread per sample (K is the number of classes: small). */
__global__ void k_xent_backward(float *dlogits, const float *logits, const int32_t *labels, int B,
                                int K, float smoothing) {
    for (int n = blockIdx.x * blockDim.x + threadIdx.x; n < B; n += blockDim.x * gridDim.x) {
        const float *z = logits + (size_t)n * K;
        float *dz = dlogits + (size_t)n * K;
        double mx = z[0], s = 0;
        for (int k = 1; k < K; k++)
            if (z[k] > mx) mx = z[k];
        for (int k = 0; k < K; k++) s += exp((double)z[k] - mx);
        for (int k = 0; k < K; k++) {
            /* smoothing / K in float, as the reference's expression */
            double q = smoothing / K + (k == labels[n] ? 1.0 - smoothing : 0.0);
            dz[k] = (float)((exp((double)z[k] - mx) / s - q) / B);
        }
    }
}

extern "C" cudaError_t tta_cu_xent_forward(float *result, const float *logits,
                                           const int32_t *labels, int B, int K, float smoothing,
                                           cudaStream_t s) {
    k_xent_forward<<<1, THREADS, 0, s>>>(result, logits, labels, B, K, smoothing);
    return launched();
}
extern "C" cudaError_t tta_cu_xent_backward(float *dlogits, const float *logits,
                                            const int32_t *labels, int B, int K, float smoothing,
                                            cudaStream_t s) {
    if (B > 0)
        k_xent_backward<<<blocks_for((size_t)B), THREADS, 0, s>>>(dlogits, logits, labels, B, K,
                                                                   smoothing);
    return launched();
}

/* ------------------------------------------------------------------------------------------ */
/* BN folding for the inference path: one thread per weight (and per output channel for the
 * bias), g recomputed per element in double as the reference does per channel. */
__global__ void k_fold_bn(float *wf, float *bf, const float *w, const float *b, const float *gamma,
                          const float *beta, const float *mean, const float *var, float eps, int oc,
                          int k) {
    size_t n = (size_t)oc * k;
    GRID_LOOP(i, n) {
        int o = (int)(i / k);
        double g = gamma[o] / sqrt((double)var[o] + eps);
        wf[i] = (float)(w[i] * g);
        if (i % k == 0) bf[o] = (float)(((b ? b[o] : 0.0) - mean[o]) * g + beta[o]);
    }
}

extern "C" cudaError_t tta_cu_fold_bn(float *wf, float *bf, const float *w, const float *b,
                                      const float *gamma, const float *beta, const float *mean,
                                      const float *var, float eps, int oc, int k, cudaStream_t s) {
    size_t n = (size_t)oc * k;
    if (n)
        k_fold_bn<<<blocks_for(n), THREADS, 0, s>>>(wf, bf, w, b, gamma, beta, mean, var, eps, oc,
                                                    k);
    return launched();
}
