/* cpu_internal.h: what backend_cpu.c (context, memory, element-wise ops, sgemm linear) and
 * cpu_dnnl.c (oneDNN convolution, batch norm, pooling) share. Private to the cpu backend.
 *
 * Layout rule of the cpu backend: a tensor of shape (n, c, h, w) is stored nChw16c when the
 * CPU runs oneDNN's AVX-512 kernels (cpu_ctx.block == 16, decided once at run time from
 * dnnl_get_effective_cpu_isa, so ONEDNN_MAX_CPU_ISA=AVX2 gives an AVX2 host's layout) and
 * c % 16 == 0; else nChw8c when c % 8 == 0; else NCHW. The block is one vector register of
 * floats (16 on AVX-512, 8 on AVX2), the layout oneDNN's kernels for that ISA run on natively
 * (an nChw8c tensor on an AVX-512 host gets oneDNN's AVX2 kernels: half the FLOPs per
 * instruction). Feature maps stay blocked from the first convolution to the classifier and
 * are reordered only at the edges (upload of the input, flatten before a linear layer,
 * download for tests). At h = w = 1 every layout is the same bytes, so a linear layer reads a
 * pooled tensor as [n][c] directly.
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
    int block;        /* 16 where oneDNN runs AVX-512 kernels, else 8 (the layout rule above) */
    int isa;          /* the backend's own loops: CPU_ISA_AVX512, CPU_ISA_AVX2 or CPU_ISA_BASE */
    int conv_rule;    /* which measured Winograd rule the convolutions follow: CPU_CONV_RULE_* */
    size_t allocated; /* bytes from cpu_alloc not yet freed */
} cpu_ctx;

/* Which build of the backend's own loops runs (cpu_conv_direct.c, cpu_pool.c): chosen at run
 * time from the ISA oneDNN runs (its effective ISA: what the CPU has, capped by
 * ONEDNN_MAX_CPU_ISA), so that both sides of the backend see the same machine. GCC's
 * target_clones("arch=...") is not used: its resolver asks for a CPU model by name, and on a
 * CPU it does not name (this project's Xeon VM) it ran the baseline SSE2 build. */
enum { CPU_ISA_BASE = 0, CPU_ISA_AVX2 = 1, CPU_ISA_AVX512 = 2 };

/* Which convolution algorithm (oneDNN's Winograd or direct kernels, or tta's own Winograd) each
 * pass of a convolution runs is a rule measured per CPU (cpu_dnnl.c, docs/replay.md "Winograd
 * convolutions"): intel (an Intel Xeon), amd (an AMD EPYC of family 26, Zen 5) and zen4 (AMD
 * family 25, Zen 4: AVX-512 on a 256-bit datapath), read from CPUID at run time;
 * TTA_CONV_RULE=intel|amd|zen4 overrides it (to test or measure any rule on any host), and
 * TTA_CONV_RULE=direct runs every pass on oneDNN's direct kernels (no Winograd, oneDNN's or tta's
 * own: the baseline a Winograd is measured against). A rule never depends on timings, so a run's
 * bits do not change from one run to the next on the same host. */
enum { CPU_CONV_RULE_INTEL = 0, CPU_CONV_RULE_AMD = 1, CPU_CONV_RULE_DIRECT = 2, CPU_CONV_RULE_ZEN4 = 3 };
#if defined(__x86_64__) && defined(__GNUC__)
#define CPU_TARGET_AVX512 __attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")))
#define CPU_TARGET_AVX2 __attribute__((target("avx2,fma")))
#else
#define CPU_TARGET_AVX512
#define CPU_TARGET_AVX2
#endif
/* CPU_ISA_CLONES(name, (params), (args)) defines name_avx512, name_avx2 and name_base, each
 * calling name##_body(args) (an always_inline function) compiled for its ISA, and
 * name##_isa(int isa, params) that calls the one for isa (a CPU_ISA_* value). */
#define CPU_ISA_CLONES(name, params, args)                                                        \
    CPU_TARGET_AVX512 static void name##_avx512 params { name##_body args; }                     \
    CPU_TARGET_AVX2 static void name##_avx2 params { name##_body args; }                         \
    static void name##_base params { name##_body args; }                                         \
    static inline void name##_isa(int isa_, CPU_ISA_UNPAREN params) {                            \
        if (isa_ == CPU_ISA_AVX512) name##_avx512 args;                                          \
        else if (isa_ == CPU_ISA_AVX2) name##_avx2 args;                                         \
        else name##_base args;                                                                   \
    }
#define CPU_ISA_UNPAREN(...) __VA_ARGS__

/* n rounded up to whole 64-byte lines: the alignment of every buffer the backend carves out of
 * op->saved and op->scratch (cpu_alloc returns 64-byte aligned memory). */
static inline size_t cpu_align64(size_t n) { return (n + 63) / 64 * 64; }

/* The channel block of a tensor of shape s under the layout rule: 16, 8, or 0 (NCHW). */
static inline int cpu_blocked(const cpu_ctx *c, tta_shape s) {
    if (c->block == 16 && s.c % 16 == 0) return 16;
    return s.c % 8 == 0 ? 8 : 0;
}

/* Physical index of logical element (n, c, h, w) of a tensor of shape s whose block is b
 * (cpu_blocked). */
static inline size_t cpu_offset(int b, tta_shape s, int n, int c, int h, int w) {
    if (b) return ((((size_t)n * (s.c / b) + c / b) * s.h + h) * s.w + w) * b + (c % b);
    return (((size_t)n * s.c + c) * s.h + h) * s.w + w;
}

/* The oneDNN memory descriptor of an activation of shape s under the layout rule. */
void cpu_md(const cpu_ctx *c, dnnl_memory_desc_t *md, tta_shape s);

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

/* cpu_pool.c: max pooling and global max pooling by direct loops on every layout of the
 * backend. cpu_maxpool_supported says whether an op is theirs (else cpu_pool_init's oneDNN
 * primitive runs it); init sets the op's saved bytes (one window position per output element
 * in training). */
int cpu_maxpool_supported(const cpu_ctx *c, const tta_op *op);
int cpu_maxpool_init(cpu_ctx *c, tta_op *op);
void cpu_maxpool_forward(void *ctx, tta_op *op, float *out, const float *inp);
void cpu_maxpool_backward(void *ctx, tta_op *op, float *dinp, const float *dout);

/* cpu_bn.c: batch norm + ReLU + 2x2 stride-2 max pool in one op (tta_backend_ops.bn_pool_*)
 * on nChw16c (AVX-512) and nChw8c (AVX2) maps of even height and width. init sets the op's saved
 * bytes (batch statistics; in training the winners' x and one position byte per output) and
 * scratch bytes (per-plane partial sums, per-thread coefficients for the thread count now).
 * cpu_bn_relu_*: the same without the pool, for a training BN op with a fused ReLU where
 * cpu_bn_relu_taken (blocked by 8 or 16, vector kernels for it); bn_forward/bn_backward's
 * contracts, with dout read only. cpu_bn_fused_release frees either's impl. */
int cpu_bn_pool_supported(void *ctx, tta_shape in);
int cpu_bn_pool_init(cpu_ctx *c, tta_op *op, char *err, size_t errlen);
void cpu_bn_fused_release(cpu_ctx *c, tta_op *op);
int cpu_bn_relu_taken(const cpu_ctx *c, const tta_op *op);
int cpu_bn_relu_init(cpu_ctx *c, tta_op *op);
void cpu_bn_relu_forward(cpu_ctx *c, tta_op *op, float *out, const float *inp, const float *gamma, const float *beta,
                         float *run_mean, float *run_var);
void cpu_bn_relu_backward(cpu_ctx *c, tta_op *op, float *dinp, float *dgamma, float *dbeta, const float *dout,
                          const float *inp, const float *gamma, const float *beta);
/* cpu_bn_relu_add_*: tta_backend_ops.bn_relu_add_* (engine.h), the same op with the residual add
 * after the ReLU in its forward's second pass; taken in training and in eval (cpu_bn_relu_taken). */
int cpu_bn_relu_add_supported(void *ctx, tta_shape in);
void cpu_bn_relu_add_forward(void *ctx, tta_op *op, float *out, const float *inp, const float *skip,
                             const float *gamma, const float *beta, float *run_mean, float *run_var);
void cpu_bn_pool_forward(void *ctx, tta_op *op, float *out, const float *inp, const float *gamma, const float *beta,
                         float *run_mean, float *run_var);
void cpu_bn_pool_backward(void *ctx, tta_op *op, float *dinp, float *dgamma, float *dbeta, const float *dout,
                          const float *inp, const float *gamma);

/* cpu_conv_direct.c: the weight (and bias) gradient of a first convolution with an NCHW input
 * and an output blocked by `block` (8 or 16), for kernels up to CPU_CONV_DIRECT_MAX_K, on
 * `threads` OpenMP threads; scratch holds cpu_conv_dw_direct_scratch bytes. */
#define CPU_CONV_DIRECT_MAX_K 7
size_t cpu_conv_dw_direct_scratch(tta_shape in, tta_shape out, int K, int S, int P, int threads);
void cpu_conv_dw_direct(float *dw, float *db, const float *inp, const float *dout, tta_shape in, tta_shape out,
                        int block, int K, int S, int P, int threads, int isa, void *scratch);

/* cpu_conv_wino.c: 3x3 convolutions of stride 1 and padding 1 by Winograd F(2x2, 3x3) on maps
 * blocked by `lanes` channels: nChw8c (AVX2 kernels) or nChw16c (AVX-512 kernels); the forward,
 * the data gradient and the weight gradient. The two widths give the same bits.
 * cpu_wino_supported: whether op is such a convolution on this host (its input and output both
 * nChw8c, or both nChw16c on an AVX-512 host). cpu_wino_weights writes U (cpu_wino_weights_bytes(ic, oc))
 * from w (OIHW, oc x ic x 3 x 3): the forward's, or with data_gradient the data gradient's.
 * cpu_wino_conv: out (oc channels, in's n, h and w) = the convolution of inp (shape in) by U,
 * plus bias (oc floats, or NULL), then a ReLU if relu; both maps blocked by lanes (8 or 16, a
 * divisor of in.c and oc); on `threads` OpenMP threads, with cpu_wino_scratch(in.c, oc, in.h,
 * in.w, threads) bytes of scratch. The result does not depend on the thread count. */
int cpu_wino_supported(const cpu_ctx *c, const tta_op *op);
size_t cpu_wino_weights_bytes(int ic, int oc);
size_t cpu_wino_scratch(int ic, int oc, int h, int w, int threads);
void cpu_wino_weights(float *U, const float *w, int oc, int ic, int data_gradient, int threads);
void cpu_wino_conv(float *out, const float *inp, const float *U, const float *bias, int relu, tta_shape in, int oc,
                   int lanes, int threads, void *scratch);
/* cpu_wino_conv_dw: dw (OIHW, oc x in.c x 3 x 3) and db (oc floats, or NULL) of the convolution
 * of inp (shape in) whose output gradient is dout (oc channels, in's n, h, w; already masked by
 * a fused ReLU), both blocked by lanes; with cpu_wino_dw_scratch(in.c, oc, in.h, in.w, threads)
 * bytes of scratch. Its bits do not depend on the thread count either. */
size_t cpu_wino_dw_scratch(int ic, int oc, int h, int w, int threads);
void cpu_wino_conv_dw(float *dw, float *db, const float *inp, const float *dout, tta_shape in, int oc, int lanes,
                      int threads, void *scratch);

#endif
