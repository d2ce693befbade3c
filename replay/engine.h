/* engine.h: the replay training engine (internal API of replay/).
 *
 * Three layers, each usable on its own:
 *
 *   1. Reference layers (layers_ref.c): plain C forward/backward of every layer on NCHW arrays,
 *      in float (ref_*_f) and double (ref_*_d, for finite-difference gradient checks). They are
 *      the specification: every backend must agree with them.
 *
 *   2. Backends (tta_backend): a `static const` table of methods (tta_backend_ops), one per op
 *      forward/backward, plus memory functions, over a `void *ctx`. "cpu" (backend_cpu.c + cpu_*.c: oneDNN and
 *      OpenBLAS) and "reference" (the float reference layers) are here; "cuda" (replay/cuda/) is
 *      added later behind exactly this interface.
 *
 *   3. Models (model.c): a graph read from a JSON model file (files in replay/models/, rules in
 *      schemas/model.schema.json), with one allocation for all parameters, one for all gradients,
 *      forward (train/eval), backward, a fast inference path, per-layer FLOP/byte/time counts and
 *      memory accounting.
 *
 * Memory and ownership rules (the whole engine follows them):
 *   - "Device memory" is memory returned by backend->alloc. The engine never dereferences it;
 *     it moves data in and out with backend->upload/download (raw bytes) or
 *     backend->tensor_upload/tensor_download (activations, which may be stored in a layout the
 *     backend chooses). When backend->ops->host_memory is 1 (cpu, reference), device pointers are
 *     ordinary host pointers and callers may read and write them directly (optimizers do).
 *   - Parameters and gradients are always stored in PyTorch's plain layout (conv weight OIHW,
 *     linear weight [out][in], BN vectors [C]) so that optimizers, checkpoints and fixtures see
 *     the same numbers on every backend; a backend that wants blocked weights converts them in
 *     conv_prepare.
 *   - Activations and activation gradients live in a layout that is a pure function of the
 *     tensor shape and the backend instance, chosen by the backend (the cpu backend uses
 *     nChw16c or nChw8c by the ISA oneDNN runs, replay/cpu_internal.h, else NCHW). Two tensors
 *     of equal shape therefore share a layout and element-wise ops (copy, accumulate, add) may
 *     treat them as flat arrays. The element count is always N*C*H*W: no backend pads.
 *   - A tta_op is owned by the model that built it; its `impl` by the backend (op_init creates,
 *     op_release frees). `saved` (op->saved_bytes, kept from forward to backward) and `scratch`
 *     (op->scratch_bytes, transient, shared by all ops of a model) are allocated by the model
 *     with backend->alloc after op_init, so the model's memory accounting is exact.
 *   - Backward functions overwrite their outputs (dinp, dw, db); they never accumulate. The model
 *     accumulates gradients of tensors with several consumers. A backward function of an op
 *     with a fused ReLU (op->relu) may overwrite dout with the masked gradient.
 *   - Errors are values: functions that can fail return 0 on success and -1 with a message in
 *     err (errlen bytes). Allocation failure exits (common/check.h).
 */
#ifndef TTA_REPLAY_ENGINE_H
#define TTA_REPLAY_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "replay/sgd_step.h"

/* ------------------------------------------------------------------------------------------ */
/* Ops                                                                                          */

typedef enum {
    TTA_OP_CONV,         /* 2-D convolution, optional bias, optional fused ReLU */
    TTA_OP_BN,           /* batch normalisation (train: batch stats; eval: running stats) */
    TTA_OP_RELU,         /* stand-alone ReLU (when it cannot be fused into its producer) */
    TTA_OP_MAXPOOL,      /* max pooling, PyTorch floor mode, padding counts as -inf */
    TTA_OP_AVGPOOL,      /* average pooling, PyTorch count_include_pad=True */
    TTA_OP_GAP,          /* global average pooling: C x H x W -> C x 1 x 1 */
    TTA_OP_GMP,          /* global max pooling: C x H x W -> C x 1 x 1 */
    TTA_OP_LINEAR,       /* fully connected on a flat input (H = W = 1), optional fused ReLU */
    TTA_OP_ADD,          /* element-wise sum of two equal-shape tensors, optional fused ReLU */
    TTA_OP_FLATTEN,      /* C x H x W -> (C*H*W) x 1 x 1 in NCHW order (PyTorch flatten) */
    TTA_OP_DROPOUT,      /* inverted dropout with a counter-based mask; identity in eval */
    TTA_OP_SCALE,        /* multiply by a constant (ResNet-9's final 0.125) */
    TTA_OP_PAD_SHORTCUT, /* option-A shortcut: x[:, :, ::s, ::s] zero-padded to more channels */
    TTA_OP_XENT,         /* softmax cross-entropy (mean over the batch, label smoothing) */
    TTA_OP_COUNT
} tta_op_kind;

/* The name used in model files ("conv", "bn", ...); NULL for an unknown kind. */
const char *tta_op_kind_name(tta_op_kind k);

typedef struct {
    int n, c, h, w;
} tta_shape;

/* A parameter update fused into a backward pass (the cpu backend's linear layers: the SGD step
 * on each thread's slice of the weight gradient it has just computed, while in cache, instead of
 * a pass of its own after backward). The backend calls apply(ctx, offset, rows, cols, ld) on
 * blocks of rows x cols parameters from `offset` of the model's flat arrays, rows ld apart, once
 * their gradients are final and nothing of the step reads those parameters any more; every
 * element of the op's weight and bias exactly once per backward, disjoint blocks possibly at the
 * same time from the backend's threads. The update of an element must depend on that element
 * alone (elementwise), so that the result is the unfused update's bit for bit. */
typedef struct {
    void (*apply)(void *ctx, size_t offset, int rows, int cols, size_t ld);
    void *ctx;
} tta_param_update;

static inline size_t tta_shape_count(tta_shape s) { return (size_t)s.n * s.c * s.h * s.w; }

/* One op instance: shapes and hyper-parameters (set by the model), backend state.
 * Shapes include the batch size n; a model builds one op per node per batch size it runs. */
typedef struct tta_op {
    tta_op_kind kind;
    int train;      /* 1: training forward (BN batch statistics, save what backward needs) */
    int need_dinp;  /* 1: backward must compute the input gradient(s) */
    tta_shape in;   /* input (ADD: both inputs) */
    tta_shape out;  /* output */
    int kernel, stride, pad; /* CONV, MAXPOOL, AVGPOOL; PAD_SHORTCUT uses stride */
    int bias;                /* CONV, LINEAR: has a bias */
    int relu;                /* CONV, BN, LINEAR, ADD: ReLU fused on the output */
    int pool;                /* BN (with relu): a 2x2 stride-2 max pool fused after the ReLU
                              * (bn_pool_*); out is then the pooled shape */
    int add;                 /* BN (with relu, no pool): a residual add fused after the ReLU
                              * (bn_relu_add_forward): out = relu(bn(inp)) + skip */
    int pad_front;           /* PAD_SHORTCUT: zero channels before the input's channels */
    float eps, momentum;     /* BN (PyTorch: 1e-5, 0.1) */
    float p;                 /* DROPOUT: drop probability */
    float factor;            /* SCALE */
    float smoothing;         /* XENT: label smoothing */
    /* Filled by backend->op_init: */
    size_t saved_bytes;   /* per-op memory kept from forward to backward (or from prepare to forward) */
    size_t scratch_bytes; /* transient memory needed during one call */
    void *impl;           /* backend-private (cached primitives); owned by the backend */
    const char *algorithm; /* CONV: a static name of the algorithm where the backend has more than
                            * one ("direct", "winograd", "winograd backward": the forward direct);
                            * NULL where it has one */
    /* Set by the model before the first call (device memory, or NULL when the size is 0): */
    void *saved;
    void *scratch;
    /* Set by the model before each training backward of a backend with fuses_linear_update, for
     * LINEAR ops (NULL: no fused update): the update and the offsets of the op's weight and bias
     * (-1: none) in the model's flat parameter arrays. */
    const tta_param_update *update;
    long w_off, b_off;
} tta_op;

/* ------------------------------------------------------------------------------------------ */
/* Backends                                                                                     */

/* One linear layer's backward: linear_backward's arguments, for linear_backward_pair. */
typedef struct {
    tta_op *op;
    float *dinp, *dw, *db, *dout;
    const float *inp, *w, *out;
} tta_linear_grad;

/* Memory categories of the model's accounting (tta_model_memory). */
typedef enum {
    TTA_MEM_WEIGHTS,      /* parameters */
    TTA_MEM_WEIGHT_GRADS, /* parameter gradients */
    TTA_MEM_BUFFERS,      /* BN running statistics */
    TTA_MEM_ACTIVATIONS,  /* feature maps kept from forward for backward (incl. the input batch) */
    TTA_MEM_ACT_GRADS,    /* gradients of feature maps */
    TTA_MEM_SAVED,        /* per-op saved state: BN batch stats, ReLU/pool masks, blocked weights */
    TTA_MEM_WORKSPACE,    /* scratchpads, gradient-accumulation temporaries, labels, loss */
    TTA_MEM_EVAL,         /* the inference path: its feature maps, folded weights, scratch */
    TTA_MEM_COUNT
} tta_mem_kind;

const char *tta_mem_kind_name(tta_mem_kind k);

typedef struct tta_backend tta_backend;

/* Backend options; zero-initialised means defaults. */
typedef struct {
    int threads; /* compute threads (OpenBLAS, oneDNN's OpenMP); 0 = leave the library default */
    int verbose; /* 1: print the implementation chosen for each primitive to stderr */
    /* cpu: the widest channel block a feature map may use (0: the one the ISA wants, 16 on AVX-512;
     * 8: nChw8c at most). tta_model_build asks for 8 when some blocked tensor of the graph has a
     * multiple of 8 but not of 16 channels, so that no convolution reads one block and writes
     * another (oneDNN has only reference kernels for that: 300x slower). */
    int block_limit;
    /* reference only: behave as a device backend (host_memory 0, sgd_step), so that tests check
     * the engine's and the session's device paths without a GPU. */
    int emulate_device;
} tta_backend_options;

/* A backend's methods: one `static const` table per backend kind (backend_cpu.c, backend_ref.c,
 * cuda/backend_cuda.c), shared by all its instances; the instance's state is in tta_backend.ctx. */
typedef struct tta_backend_ops {
    const char *name;
    int host_memory; /* device pointers are host pointers */
    int fuses_linear_update; /* 1: linear_backward applies op->update (tta_param_update) */
    int bn_backward_keeps_dout; /* 1: bn_backward never writes dout, fused ReLU included */

    void (*destroy)(tta_backend *be); /* frees ctx and be itself */

    /* Memory. alloc returns zero-filled memory aligned to 64 bytes, or exits when out of memory. */
    void *(*alloc)(void *ctx, size_t bytes);
    void (*free)(void *ctx, void *p);
    /* Bytes currently allocated by alloc and not yet freed, as requested (not rounded): the
     * allocator's own total, against which the model's accounting by category is checked. */
    size_t (*allocated)(void *ctx);
    void (*upload)(void *ctx, void *dst, const void *src_host, size_t bytes);
    void (*download)(void *ctx, void *dst_host, const void *src, size_t bytes);
    void (*sync)(void *ctx); /* waits for queued work (timing); no-op on synchronous backends */
    /* Activations: convert between host NCHW float and the backend layout for shape s. */
    void (*tensor_upload)(void *ctx, float *dst, const float *src_nchw, tta_shape s);
    void (*tensor_download)(void *ctx, float *dst_nchw, const float *src, tta_shape s);
    /* Element-wise on flat arrays of n floats in device memory. */
    void (*copy)(void *ctx, float *dst, const float *src, size_t n);
    void (*accumulate)(void *ctx, float *dst, const float *src, size_t n); /* dst += src */
    void (*fill)(void *ctx, float *dst, float value, size_t n);

    /* Ops. op_init validates the op for this backend, creates its primitives and sets
     * op->saved_bytes and op->scratch_bytes (the workspace queries). */
    int (*op_init)(void *ctx, tta_op *op, char *err, size_t errlen);
    void (*op_release)(void *ctx, tta_op *op);

    /* CONV. conv_prepare takes the weights (OIHW) and bias (NULL if none) that the next
     * conv_forward/conv_backward calls use; call it whenever they changed. It may convert them
     * into op->saved, or only remember the pointers (which must then stay valid). */
    void (*conv_prepare)(void *ctx, tta_op *op, const float *w, const float *b);
    void (*conv_forward)(void *ctx, tta_op *op, float *out, const float *inp);
    /* dinp may be NULL (op->need_dinp == 0); db is NULL when !op->bias. */
    void (*conv_backward)(void *ctx, tta_op *op, float *dinp, float *dw, float *db, float *dout,
                          const float *inp, const float *out);

    /* BN. train: normalise with batch statistics (biased variance), save them, and update
     * run_mean/run_var in place with op->momentum (unbiased variance, as PyTorch).
     * eval: normalise with run_mean/run_var. */
    void (*bn_forward)(void *ctx, tta_op *op, float *out, const float *inp, const float *gamma,
                       const float *beta, float *run_mean, float *run_var);
    void (*bn_backward)(void *ctx, tta_op *op, float *dinp, float *dgamma, float *dbeta,
                        float *dout, const float *inp, const float *out, const float *gamma,
                        const float *beta);
    /* Optional (NULL: none; the model runs BN, ReLU and max pool apart): batch norm + ReLU + 2x2
     * stride-2 max pool (no padding) as one op, op->kind TTA_OP_BN with op->relu and op->pool, op->out
     * the pooled shape. bn_pool_supported says whether the backend takes it for a BN input of shape
     * in (the batch n aside). forward: bn_forward's contract, out the pooled map (the window's first
     * maximum of the ReLU's output, PyTorch's rule). backward: bn_backward's with dout the pooled
     * map's gradient (routed to each window's first maximum where the ReLU passed it); dout is read
     * only. */
    int (*bn_pool_supported)(void *ctx, tta_shape in);
    void (*bn_pool_forward)(void *ctx, tta_op *op, float *out, const float *inp, const float *gamma,
                            const float *beta, float *run_mean, float *run_var);
    void (*bn_pool_backward)(void *ctx, tta_op *op, float *dinp, float *dgamma, float *dbeta,
                             const float *dout, const float *inp, const float *gamma);
    /* Optional (NULL: none; the model runs the add apart): batch norm + ReLU + the residual add
     * after them as one forward, op->kind TTA_OP_BN with op->relu and op->add: bn_forward's
     * contract with out = relu(bn(inp)) + skip, each element the same bits as the add of the
     * separate ops (skip has out's shape and layout and may not alias it). Its backward is
     * bn_backward's on the same op, which takes the ReLU's mask from inp, not from out; the model
     * hands the add's gradient to skip's tensor itself. bn_relu_add_supported says whether the
     * backend takes it for a BN input of shape in (the batch n aside), in training and in eval. */
    int (*bn_relu_add_supported)(void *ctx, tta_shape in);
    void (*bn_relu_add_forward)(void *ctx, tta_op *op, float *out, const float *inp, const float *skip,
                                const float *gamma, const float *beta, float *run_mean, float *run_var);
    /* Folds an eval-mode BN into the preceding conv: wf = w * g, bf = (b - mean) * g + beta with
     * g = gamma / sqrt(var + eps); w is [oc][k] (k = IC*KH*KW), b may be NULL (zero). */
    void (*fold_bn)(void *ctx, float *wf, float *bf, const float *w, const float *b,
                    const float *gamma, const float *beta, const float *mean, const float *var,
                    float eps, int oc, int k);

    /* RELU. backward: dinp = dout * (out > 0); dinp may equal dout. */
    void (*relu_forward)(void *ctx, tta_op *op, float *out, const float *inp);
    void (*relu_backward)(void *ctx, tta_op *op, float *dinp, const float *dout, const float *out);

    /* MAXPOOL, AVGPOOL, GAP, GMP. */
    void (*pool_forward)(void *ctx, tta_op *op, float *out, const float *inp);
    void (*pool_backward)(void *ctx, tta_op *op, float *dinp, const float *dout, const float *inp,
                          const float *out);

    /* LINEAR: out[n][o] = sum_i inp[n][i] w[o][i] + b[o]. With op->update (fuses_linear_update),
     * backward also applies it to w and b (the parameters at op->w_off, op->b_off). */
    void (*linear_forward)(void *ctx, tta_op *op, float *out, const float *inp, const float *w,
                           const float *b);
    void (*linear_backward)(void *ctx, tta_op *op, float *dinp, float *dw, float *db, float *dout,
                            const float *inp, const float *w, const float *out);
    /* Optional (NULL: none): linear_backward on a, then on b, where b's output is a's input and a
     * its only reader (b->dout is a->dinp, b->out is a->inp), in one call: the same results as the
     * two calls; the backend may interleave them (the cpu backend: one parallel region for both,
     * each thread going on to b's rows of the columns of a's dinp that it computed). */
    void (*linear_backward_pair)(void *ctx, const tta_linear_grad *a, const tta_linear_grad *b);

    /* ADD (forward only: its backward is the identity, routed by the model after
     * relu_backward when op->relu). */
    void (*add_forward)(void *ctx, tta_op *op, float *out, const float *a, const float *b);

    /* FLATTEN: a layout change only (identity on NCHW backends). */
    void (*flatten_forward)(void *ctx, tta_op *op, float *out, const float *inp);
    void (*flatten_backward)(void *ctx, tta_op *op, float *dinp, const float *dout);

    /* DROPOUT: keep element i (its NCHW index) iff tta_dropout_keep(seed, step, i, p); kept
     * elements are scaled by 1/(1-p). The same seed and step must be given to backward. */
    void (*dropout_forward)(void *ctx, tta_op *op, float *out, const float *inp, uint64_t seed,
                            uint64_t step);
    void (*dropout_backward)(void *ctx, tta_op *op, float *dinp, const float *dout, uint64_t seed,
                             uint64_t step);

    /* SCALE */
    void (*scale_forward)(void *ctx, tta_op *op, float *out, const float *inp);
    void (*scale_backward)(void *ctx, tta_op *op, float *dinp, const float *dout);

    /* PAD_SHORTCUT */
    void (*shortcut_forward)(void *ctx, tta_op *op, float *out, const float *inp);
    void (*shortcut_backward)(void *ctx, tta_op *op, float *dinp, const float *dout);

    /* XENT: logits [n][classes] (op->in = {n, classes, 1, 1}), labels int32 [n] in device memory.
     * forward writes result[0] = sum over the batch of the per-sample loss, result[1] = number of
     * samples whose argmax (first maximum) equals the label, both in device memory.
     * backward writes dlogits of the batch-mean loss. */
    void (*xent_forward)(void *ctx, tta_op *op, float *result, const float *logits,
                         const int32_t *labels);
    void (*xent_backward)(void *ctx, tta_op *op, float *dlogits, const float *logits,
                          const int32_t *labels);

    /* Optional (NULL: the backend has no thread count): sets the compute threads for the ops
     * initialised and run from now on (process-wide for the cpu backend's libraries). */
    void (*set_threads)(void *ctx, int threads);
    /* Optional (NULL: none): runs fn(arg, lo, hi) on disjoint ranges of rows covering 0..n, cut
     * where the thread count does not move the cuts, on the compute threads at the same time (a
     * thread may get several ranges, one call each); fn may call linear_forward on
     * ops whose batch is hi - lo (each then runs on its calling thread). The inference path of a
     * chain of linear layers runs each thread's rows through every layer without waiting for the
     * other threads between layers (rows are independent in evaluation). */
    void (*parallel_rows)(void *ctx, int n, void (*fn)(void *arg, int lo, int hi), void *arg);
    /* Optional (NULL: the session steps the optimizer on host copies of the parameters): one
     * momentum-SGD step on params, grads and velocity (flat arrays of device memory) as
     * tta_sgd_step says, queued like the ops (sync waits for it). For a backend whose memory is
     * not the host's, so that a step moves no parameter or gradient across the bus. */
    void (*sgd_step)(void *ctx, float *params, const float *grads, float *velocity, const tta_sgd_step *a);
} tta_backend_ops;

/* One backend instance: its method table and its state. Calls read be->ops->f(be->ctx, ...). */
struct tta_backend {
    const tta_backend_ops *ops;
    void *ctx;
};

/* Creates a backend by name: "cpu" or "reference" (and "cuda" where built). NULL with a message
 * in err for an unknown or unavailable name. The caller owns it: be->destroy(be). */
tta_backend *tta_backend_create(const char *name, const tta_backend_options *opt, char *err,
                                size_t errlen);
tta_backend *tta_backend_cpu_create(const tta_backend_options *opt, char *err, size_t errlen);
tta_backend *tta_backend_reference_create(const tta_backend_options *opt, char *err,
                                          size_t errlen);
/* Where built with CUDA (TTA_HAVE_CUDA; replay/cuda/): cuDNN + cuBLAS on the device of this
 * process (host_memory = 0). NULL with "no CUDA device: <reason>" when there is none. */
tta_backend *tta_backend_cuda_create(const tta_backend_options *opt, char *err, size_t errlen);

/* Threading setup of the cpu backend's libraries, for reports: e.g. "openblas=pthread(2)
 * onednn=omp(2) OMP_WAIT_POLICY=passive". */
const char *tta_backend_cpu_threading(char *dst, size_t len); /* writes dst, returns it */
/* The pages the cpu backend's large buffers are on, for reports: whether they were asked for huge
 * pages (common/check.h, tta_huge_pages_wanted), the kernel's transparent huge page mode, and how
 * much of this process's resident memory the kernel gave 2 MiB pages (Linux's
 * /proc/self/smaps_rollup), e.g. "huge (THP madvise): 490 of 733 MiB resident on 2 MiB pages".
 * Writes dst, returns it. */
const char *tta_backend_cpu_pages(char *dst, size_t len);
/* Makes oneDNN's OpenMP threads wait as tta_replay_wait_env (replay.h) says: if it set anything,
 * re-executes the program (/proc/self/exe) with argv, because libgomp reads it only at load.
 * Returns 0 when nothing was to set (or -1 if exec failed; the program goes on). Call it first
 * thing in main of a program that trains, before any thread starts. */
int tta_replay_reexec_passive(char **argv);

/* The dropout mask: a counter-based hash of (seed, step, index), so that every backend draws
 * the same mask with no state. Keep-probability is 1 - p with 24-bit resolution. */
static inline uint64_t tta_mix64(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}
static inline int tta_dropout_keep(uint64_t seed, uint64_t step, uint64_t index, float p) {
    uint64_t h = tta_mix64(seed * 0x9e3779b97f4a7c15ULL + step);
    h = tta_mix64(h ^ (index * 0xd6e8feb86659fd93ULL));
    uint32_t u = (uint32_t)(h >> 40); /* 24 bits */
    return (float)u >= p * 16777216.0f;
}

/* ------------------------------------------------------------------------------------------ */
/* Reference layers (layers_ref.c). NCHW, batch-major; every function overwrites its outputs.
 * Each exists as name_f (float) and name_d (double). Shapes: B batch, C channels, H x W input,
 * OC/OH/OW output; K kernel, S stride, P padding. */

#define TTA_REF_DECLARE(T, S)                                                                    \
    /* out[B][OC][OH][OW] = conv(inp[B][C][H][W], w[OC][C][K][K]) + b[OC] (b may be NULL) */     \
    void ref_conv_forward_##S(T *out, const T *inp, const T *w, const T *b, int B, int C, int H, \
                              int W, int OC, int K, int St, int P, int OH, int OW);              \
    /* dinp (may be NULL), dw, db (may be NULL) from dout */                                     \
    void ref_conv_backward_##S(T *dinp, T *dw, T *db, const T *dout, const T *inp, const T *w,   \
                               int B, int C, int H, int W, int OC, int K, int St, int P, int OH, \
                               int OW);                                                          \
    /* train: batch stats (biased var) into mean/rstd [C], updates run_mean/run_var (unbiased)   \
     * with momentum; eval: uses run_mean/run_var, mean/rstd untouched (may be NULL). */         \
    void ref_bn_forward_##S(T *out, T *mean, T *rstd, const T *inp, const T *gamma,              \
                            const T *beta, T *run_mean, T *run_var, int B, int C, int HW, T eps, \
                            T momentum, int train);                                              \
    /* train-mode backward (batch statistics depend on the input) */                             \
    void ref_bn_backward_##S(T *dinp, T *dgamma, T *dbeta, const T *dout, const T *inp,          \
                             const T *gamma, const T *mean, const T *rstd, int B, int C, int HW); \
    void ref_relu_forward_##S(T *out, const T *inp, size_t n);                                   \
    void ref_relu_backward_##S(T *dinp, const T *dout, const T *out, size_t n);                  \
    void ref_maxpool_forward_##S(T *out, const T *inp, int B, int C, int H, int W, int K, int St, \
                                 int P, int OH, int OW);                                         \
    /* the gradient goes to the first maximum of each window (PyTorch's CPU rule) */             \
    void ref_maxpool_backward_##S(T *dinp, const T *dout, const T *inp, int B, int C, int H,     \
                                  int W, int K, int St, int P, int OH, int OW);                  \
    void ref_avgpool_forward_##S(T *out, const T *inp, int B, int C, int H, int W, int K, int St, \
                                 int P, int OH, int OW);                                         \
    void ref_avgpool_backward_##S(T *dinp, const T *dout, int B, int C, int H, int W, int K,     \
                                  int St, int P, int OH, int OW);                                \
    void ref_gap_forward_##S(T *out, const T *inp, int B, int C, int HW);                        \
    void ref_gap_backward_##S(T *dinp, const T *dout, int B, int C, int HW);                     \
    void ref_gmp_forward_##S(T *out, const T *inp, int B, int C, int HW);                        \
    void ref_gmp_backward_##S(T *dinp, const T *dout, const T *inp, int B, int C, int HW);       \
    /* out[B][O] = inp[B][In] w[O][In]^T + b[O] (b may be NULL) */                                 \
    void ref_linear_forward_##S(T *out, const T *inp, const T *w, const T *b, int B, int In,     \
                                int O);                                                          \
    void ref_linear_backward_##S(T *dinp, T *dw, T *db, const T *dout, const T *inp, const T *w, \
                                 int B, int In, int O);                                           \
    void ref_add_forward_##S(T *out, const T *a, const T *b, size_t n);                          \
    void ref_scale_forward_##S(T *out, const T *inp, T factor, size_t n);                        \
    void ref_dropout_forward_##S(T *out, const T *inp, size_t n, float p, uint64_t seed,         \
                                 uint64_t step);                                                 \
    void ref_dropout_backward_##S(T *dinp, const T *dout, size_t n, float p, uint64_t seed,      \
                                  uint64_t step);                                                \
    /* out[B][OC][OH][OW]: channel c+pad_front of out = inp[:, c, ::S, ::S]; other channels 0 */ \
    void ref_shortcut_forward_##S(T *out, const T *inp, int B, int C, int H, int W, int OC,      \
                                  int St, int pad_front, int OH, int OW);                        \
    void ref_shortcut_backward_##S(T *dinp, const T *dout, int B, int C, int H, int W, int OC,   \
                                   int St, int pad_front, int OH, int OW);                       \
    /* returns the batch-mean loss; *correct = argmax hits (may be NULL) */                      \
    T ref_xent_forward_##S(const T *logits, const int32_t *labels, int B, int K, T smoothing,    \
                           int *correct);                                                        \
    void ref_xent_backward_##S(T *dlogits, const T *logits, const int32_t *labels, int B, int K, \
                               T smoothing);

TTA_REF_DECLARE(float, f)
TTA_REF_DECLARE(double, d)

/* ------------------------------------------------------------------------------------------ */
/* Models                                                                                       */

typedef enum {
    TTA_PARAM_WEIGHT,   /* conv/linear weights: weight decay applies */
    TTA_PARAM_BIAS,     /* conv/linear biases */
    TTA_PARAM_BN_SCALE, /* BN gamma */
    TTA_PARAM_BN_SHIFT  /* BN beta */
} tta_param_kind;

const char *tta_param_kind_name(tta_param_kind k);

#define TTA_NAME_MAX 64

/* One parameter tensor inside the flat parameter (and gradient) array. */
typedef struct {
    char name[TTA_NAME_MAX]; /* "<layer>.weight" / "<layer>.bias", as PyTorch's state_dict */
    size_t offset, count;    /* in floats */
    tta_param_kind kind;
    int fan_in;              /* for initialisation and reports */
} tta_param_info;

/* One buffer (BN running_mean / running_var) inside the flat buffer array. */
typedef struct {
    char name[TTA_NAME_MAX];
    size_t offset, count;
} tta_buffer_info;

typedef struct {
    const char *backend;     /* "cpu" (default) or "reference" */
    tta_backend_options backend_options;
    int channels, height, width; /* input shape per sample */
    int classes;
    int batch;               /* training batch size (the largest forward(train) batch) */
    int eval_batch;          /* inference-path batch size; 0 = batch */
    uint64_t seed;           /* parameter init and dropout masks */
    /* Model-file parameter overrides, "name=value" separated by commas or spaces
     * (e.g. "width=0.25" or "hidden1=256,hidden2=256"); NULL for none. */
    const char *overrides;
    float label_smoothing;   /* < 0: the model file's value (default 0) */
} tta_model_config;

typedef struct tta_model tta_model;

/* Builds a model from a model file: a path, or the name of a shipped model ("resnet9"), looked
 * up in $TTA_MODEL_DIR and then among the model files compiled into the library. */
int tta_model_build(tta_model **out, const char *path_or_name, const tta_model_config *cfg,
                    char *err, size_t errlen);
/* The same from JSON text; origin names it in messages. */
int tta_model_build_json(tta_model **out, const char *json, const char *origin,
                         const tta_model_config *cfg, char *err, size_t errlen);
/* Validates a model file's JSON against the rules of schemas/model.schema.json (known layer
 * types, required fields and their types, unique names, input references that exist,
 * shapes that work for cfg's input shape). 0 if valid. */
int tta_model_validate_json(const char *json, const tta_model_config *cfg, char *err,
                            size_t errlen);
void tta_model_free(tta_model *m);

/* The text of a shipped model file by name ("mlp"), or NULL; names lists them (NULL-terminated). */
const char *tta_model_builtin(const char *name);
extern const char *const tta_model_builtin_names[];

const char *tta_model_name(const tta_model *m);
tta_backend *tta_model_backend(tta_model *m);

/* Parameters: one device allocation of tta_model_num_params floats; gradients likewise, in the
 * same order. Buffers (BN running stats) are a separate allocation. */
size_t tta_model_num_params(const tta_model *m);
float *tta_model_params(tta_model *m);
float *tta_model_grads(tta_model *m);
const tta_param_info *tta_model_param_info(const tta_model *m, int *count);
size_t tta_model_num_buffers(const tta_model *m);
float *tta_model_buffers(tta_model *m);
const tta_buffer_info *tta_model_buffer_info(const tta_model *m, int *count);
/* Re-initialises parameters (PyTorch defaults: kaiming_uniform(a=sqrt(5)) weights, bias
 * U(+-1/sqrt(fan_in)), BN gamma 1 beta 0, running mean 0 var 1) from seed; deterministic. */
void tta_model_init_params(tta_model *m, uint64_t seed);
/* Host copies in and out of one parameter or buffer by name (tests, checkpoints). */
int tta_model_set_tensor(tta_model *m, const char *name, const float *src, size_t count);
int tta_model_get_tensor(tta_model *m, const char *name, float *dst, size_t count);

typedef struct {
    double loss;  /* batch-mean loss */
    int correct;  /* argmax hits */
} tta_step_result;

/* Forward over n samples (n <= batch in training mode; n <= eval_batch in eval mode): x host
 * NCHW float [n][C][H][W], labels host int32 [n]. train = 1 uses BN batch statistics (updating
 * running stats) and dropout, and keeps what backward needs; train = 0 runs the layers in
 * eval mode without folding (tta_model_evaluate is the fast path). Each training forward
 * advances the dropout step counter. */
int tta_model_forward(tta_model *m, const float *x, const int32_t *labels, int n, int train,
                      tta_step_result *res);
/* Backward of the last training forward: overwrites the gradients. */
void tta_model_backward(tta_model *m);
/* Logits of the last forward (host, [n][classes]). */
void tta_model_logits(tta_model *m, float *dst);
/* The fast inference path over any number of samples: eval-mode BN folded into the conv
 * weights, ReLU fused, no activations kept, batches of eval_batch. Sums the per-sample losses
 * into *loss_sum and hits into *correct (either may be NULL). */
int tta_model_evaluate(tta_model *m, const float *x, const int32_t *labels, long n,
                       double *loss_sum, long *correct);
void tta_model_set_dropout_step(tta_model *m, uint64_t step);
/* Changes the backend's compute threads between steps (`--threads auto`): the next training
 * forward builds (once, then reuses) its layers' primitives for that count, since oneDNN fixes a
 * primitive's threads when it is made; the plans of other counts stay cached. The evaluation
 * path keeps the count it was built with. 0, or -1 when the backend has no thread count to set
 * (reference, cuda). tta_model_threads: the count now (0: the library default). */
int tta_model_set_threads(tta_model *m, int threads);
int tta_model_threads(const tta_model *m);
/* Called during tta_model_backward each time the gradient of a parameter tensor is final, with
 * the tensor's offset (tta_param_info.offset); every tensor is reported once per backward, in
 * the order backward finishes them (last layers first). Data-parallel training starts a
 * bucket's allreduce from it while backward goes on. NULL turns it off. */
typedef void (*tta_grad_hook)(void *ctx, size_t param_offset);
void tta_model_set_grad_hook(tta_model *m, tta_grad_hook hook, void *ctx);
/* Fuses the parameter update u into the backward pass where the backend can (its
 * fuses_linear_update: every linear layer's weight and bias); NULL turns it off. fused (one entry
 * per tensor of tta_model_param_info, or NULL) gets 1 for each tensor backward will update, 0 for
 * the others, which the caller updates after backward as before. Returns how many are fused. The
 * caller must not fuse an update that needs gradients of other tensors or of other processes
 * (norms, clipping, a gradient exchange): backward applies it as soon as a layer is done. */
int tta_model_set_update(tta_model *m, const tta_param_update *u, unsigned char *fused);

/* Per-layer analytic costs for one training step at the training batch size (forward and
 * backward separately), and measured times when profiling is on. A layer fused into another
 * (ReLU into BN) reports its costs but its time is counted in the layer it is fused into. */
typedef struct {
    const char *name;
    const char *type;
    tta_shape out;          /* per-sample shape, n = 1 */
    double flops_fwd, flops_bwd; /* per batch */
    double bytes_fwd, bytes_bwd; /* compulsory memory traffic per batch */
    double time_fwd, time_bwd;   /* seconds summed over profiled calls */
    long calls_fwd, calls_bwd;
    const char *fused_into;      /* NULL or the layer whose op runs this one */
    const char *algorithm;       /* NULL, or the training op's tta_op.algorithm (a convolution) */
} tta_layer_stats;

const tta_layer_stats *tta_model_layer_stats(tta_model *m, int *count);
void tta_model_set_profiling(tta_model *m, int on); /* syncs the backend around each op */
void tta_model_reset_profile(tta_model *m);
/* Totals: FLOPs of one training step (forward + backward) and of one inference sample. */
double tta_model_train_flops(const tta_model *m);
double tta_model_eval_flops_per_sample(const tta_model *m);

/* Bytes allocated by the model, exact, by category (TTA_MEM_COUNT entries). */
void tta_model_memory(const tta_model *m, size_t bytes[TTA_MEM_COUNT]);

/* A one-line-per-layer summary (name, type, output shape, params, FLOPs) into a malloc'd
 * string that the caller frees. */
char *tta_model_summary(const tta_model *m);

#endif
