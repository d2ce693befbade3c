/* cpu_internal.h: what backend_cpu.c (context, memory, element-wise ops, sgemm linear) and
 * cpu_dnnl.c (oneDNN convolution, batch norm, pooling) share. Private to the cpu backend.
 *
 * Layout rule of the cpu backend: a tensor of shape (n, c, h, w) is stored nChw8c when
 * c % 8 == 0, else NCHW. nChw8c is what oneDNN's AVX2 kernels run on natively, so feature maps
 * stay blocked from the first convolution to the classifier and are reordered only at the
 * edges (upload of the input, flatten before a linear layer, download for tests). At h = w = 1
 * both layouts are the same bytes, so a linear layer reads a pooled tensor as [n][c] directly.
 */
#ifndef TTA_REPLAY_CPU_INTERNAL_H
#define TTA_REPLAY_CPU_INTERNAL_H

#include <oneapi/dnnl/dnnl.h>

#include "replay/engine.h"

typedef struct {
    dnnl_engine_t engine;
    dnnl_stream_t stream;
    int threads;
    int verbose;
    size_t allocated; /* bytes from cpu_alloc not yet freed */
} cpu_ctx;

static inline int cpu_blocked(tta_shape s) { return s.c % 8 == 0; }

/* Physical index of logical element (n, c, h, w) of a tensor of shape s. */
static inline size_t cpu_offset(tta_shape s, int n, int c, int h, int w) {
    if (cpu_blocked(s))
        return ((((size_t)n * (s.c / 8) + c / 8) * s.h + h) * s.w + w) * 8 + (c & 7);
    return (((size_t)n * s.c + c) * s.h + h) * s.w + w;
}

/* The oneDNN memory descriptor of an activation of shape s under the layout rule. */
void cpu_md(dnnl_memory_desc_t *md, tta_shape s);

/* Aborts with the call site on a oneDNN error: every call here is on descriptors the backend
 * built itself, so a failure is a bug, except in op_init, which returns errors as values. */
void cpu_dnnl_check(dnnl_status_t st, const char *what, const char *file, int line);
#define DNNL_CHECK(call) cpu_dnnl_check((call), #call, __FILE__, __LINE__)

/* cpu_dnnl.c: the oneDNN ops. */
int cpu_conv_init(cpu_ctx *c, tta_op *op, char *err, size_t errlen);
int cpu_bn_init(cpu_ctx *c, tta_op *op, char *err, size_t errlen);
int cpu_pool_init(cpu_ctx *c, tta_op *op, char *err, size_t errlen);
void cpu_dnnl_release(cpu_ctx *c, tta_op *op);
void cpu_conv_prepare(void *ctx, tta_op *op, const float *w, const float *b);
void cpu_conv_forward(void *ctx, tta_op *op, float *out, const float *inp);
void cpu_conv_backward(void *ctx, tta_op *op, float *dinp, float *dw, float *db, float *dout,
                       const float *inp, const float *out);
void cpu_bn_forward(void *ctx, tta_op *op, float *out, const float *inp, const float *gamma,
                    const float *beta, float *run_mean, float *run_var);
void cpu_bn_backward(void *ctx, tta_op *op, float *dinp, float *dgamma, float *dbeta, float *dout,
                     const float *inp, const float *out, const float *gamma, const float *beta);
void cpu_pool_forward(void *ctx, tta_op *op, float *out, const float *inp);
void cpu_pool_backward(void *ctx, tta_op *op, float *dinp, const float *dout, const float *inp,
                       const float *out);

/* cpu_conv_direct.c: the weight (and bias) gradient of a first convolution with an NCHW input
 * and a blocked output, for kernels up to CPU_CONV_DIRECT_MAX_K, on `threads` OpenMP threads;
 * scratch holds cpu_conv_dw_direct_scratch bytes. */
#define CPU_CONV_DIRECT_MAX_K 7
size_t cpu_conv_dw_direct_scratch(tta_shape in, tta_shape out, int K, int S, int P, int threads);
void cpu_conv_dw_direct(float *dw, float *db, const float *inp, const float *dout, tta_shape in, tta_shape out,
                        int K, int S, int P, int threads, void *scratch);

#endif
