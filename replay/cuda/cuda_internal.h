/* cuda_internal.h: what backend_cuda.c (host code over cuDNN, cuBLAS and the CUDA runtime),
 * kernels.cu (the element-wise and small ops cuDNN has no primitive for), device.c (the device
 * choice) and comm_nccl.c share. Private to replay/cuda/.
 *
 * Layout rule of the cuda backend: every activation is plain NCHW (cuDNN's
 * CUDNN_TENSOR_NCHW), so tensor_upload/download are plain copies and flatten is the identity.
 *
 * The kernel launchers below are C functions (kernels.cu gives them C linkage). Each enqueues
 * its work on stream s and returns cudaGetLastError() of the launch (cudaSuccess, or why the
 * launch failed); the caller treats a failure as fatal (cu_check). Sizes are in elements. A
 * launcher never synchronises.
 */
#ifndef TTA_REPLAY_CUDA_INTERNAL_H
#define TTA_REPLAY_CUDA_INTERNAL_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/sgd_step.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Makes the device of this process current: with several devices and a launcher that tells
 * the node-local rank (OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, SLURM_LOCALID,
 * LOCAL_RANK), device local_rank % count, so that the ranks of one node share the devices
 * round-robin; else the current device (0 unless the caller chose). Returns the device index,
 * or -1 with a message in err ("no CUDA device: ...") when there is none. Idempotent: the
 * backend and the NCCL comm both call it, in either order. In device.c. */
int tta_cuda_select_device(char *err, size_t errlen);

/* dst[i] = v */
cudaError_t tta_cu_fill(float *dst, float v, size_t n, cudaStream_t s);
/* dst[i] += src[i] */
cudaError_t tta_cu_accumulate(float *dst, const float *src, size_t n, cudaStream_t s);
/* dst[i] = src[i] * f (dst may equal src) */
cudaError_t tta_cu_scale(float *dst, const float *src, float f, size_t n, cudaStream_t s);
/* out[i] = max(inp[i], 0) (out may equal inp) */
cudaError_t tta_cu_relu_forward(float *out, const float *inp, size_t n, cudaStream_t s);
/* dinp[i] = out[i] > 0 ? dout[i] : 0 (dinp may equal dout) */
cudaError_t tta_cu_relu_backward(float *dinp, const float *dout, const float *out, size_t n,
                                 cudaStream_t s);
/* out[i] = a[i] + b[i], then ReLU when relu */
cudaError_t tta_cu_add(float *out, const float *a, const float *b, size_t n, int relu,
                       cudaStream_t s);
/* x[N][C][HW] in place: x += b[c] (b may be NULL), then ReLU when relu */
cudaError_t tta_cu_bias_act(float *x, const float *b, int N, int C, int HW, int relu,
                            cudaStream_t s);
/* dst[c] = sum over n and hw of src[N][C][HW]: a bias gradient. Deterministic (fixed order). */
cudaError_t tta_cu_channel_sum(float *dst, const float *src, int N, int C, int HW,
                               cudaStream_t s);
/* Inverted dropout with the mask of engine.h's tta_dropout_keep(seed, step, i, p), i the NCHW
 * index: dst[i] = keep ? src[i] / (1 - p) : 0. Forward and backward alike. */
cudaError_t tta_cu_dropout(float *dst, const float *src, size_t n, float p, uint64_t seed,
                           uint64_t step, cudaStream_t s);
/* Option-A shortcut (see ref_shortcut_forward_f / _backward_f): out[B][OC][OH][OW] channel
 * c + pad_front = inp[:, c, ::St, ::St], other channels 0; backward the transpose, zeros
 * where no output read the input. */
cudaError_t tta_cu_shortcut_forward(float *out, const float *inp, int B, int C, int H, int W,
                                    int OC, int St, int pad_front, int OH, int OW,
                                    cudaStream_t s);
cudaError_t tta_cu_shortcut_backward(float *dinp, const float *dout, int B, int C, int H, int W,
                                     int OC, int St, int pad_front, int OH, int OW,
                                     cudaStream_t s);
/* Max pooling (PyTorch floor mode, padding never wins) of inp[B*C][H][W] with a KH x KW window,
 * strides SH, SW and paddings PH, PW into out[B*C][OH][OW]; global max pooling is the window
 * H x W. Backward sends each output gradient to the first maximum of its window (row-major
 * order, as PyTorch's CPU kernel and the reference layers), summing where windows overlap,
 * in a fixed order (deterministic, no atomics). */
cudaError_t tta_cu_maxpool_forward(float *out, const float *inp, int BC, int H, int W, int KH,
                                   int KW, int SH, int SW, int PH, int PW, int OH, int OW,
                                   cudaStream_t s);
cudaError_t tta_cu_maxpool_backward(float *dinp, const float *dout, const float *inp, int BC,
                                    int H, int W, int KH, int KW, int SH, int SW, int PH, int PW,
                                    int OH, int OW, cudaStream_t s);
/* Softmax cross-entropy with label smoothing over logits[B][K], labels int32 [B] (device):
 * result[0] = sum over the batch of the per-sample loss, result[1] = argmax (first maximum)
 * hits. Deterministic. */
cudaError_t tta_cu_xent_forward(float *result, const float *logits, const int32_t *labels, int B,
                                int K, float smoothing, cudaStream_t s);
/* dlogits of the batch-mean loss: (softmax - q) / B, q = (1 - smoothing) onehot + smoothing/K */
cudaError_t tta_cu_xent_backward(float *dlogits, const float *logits, const int32_t *labels,
                                 int B, int K, float smoothing, cudaStream_t s);
/* Folds eval-mode BN into a conv (see tta_backend.fold_bn): wf = w * g, bf = (b - mean) * g + beta,
 * g = gamma / sqrt(var + eps), in double like the reference. b may be NULL. */
cudaError_t tta_cu_fold_bn(float *wf, float *bf, const float *w, const float *b,
                           const float *gamma, const float *beta, const float *mean,
                           const float *var, float eps, int oc, int k, cudaStream_t s);

/* One momentum-SGD step (tta_backend_ops.sgd_step): p, g, v over a's ranges, bit for bit
 * tta_optim_step's SGD. */
cudaError_t tta_cu_sgd(float *p, const float *g, float *v, const tta_sgd_step *a, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
