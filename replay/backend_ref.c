/* backend_ref.c: the "reference" backend (the float reference layers of layers_ref.c behind the
 * tta_backend interface), and tta_backend_create, which selects a backend by name.
 *
 * Host memory, NCHW everywhere, single-threaded. It exists so that tests can run a whole model
 * on the specification and compare the fast backends with it.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "replay/engine.h"
#include "replay/optim.h"

/* Per-op state: the weights given to conv_prepare (the reference needs no conversion). */
typedef struct {
    const float *w, *b;
} ref_impl;

/* The reference backend's state: the allocator's total. Each block is preceded by a 64-byte
 * header holding its requested size. */
typedef struct {
    size_t allocated;
} ref_ctx;

static void *ref_alloc(void *ctx, size_t bytes) {
    ref_ctx *c = ctx;
    size_t rounded = (bytes + 63) / 64 * 64;
    char *p = aligned_alloc(64, (rounded ? rounded : 64) + 64);
    if (!p) {
        fprintf(stderr, "reference backend: out of memory allocating %zu bytes\n", bytes);
        exit(1);
    }
    memset(p + 64, 0, rounded ? rounded : 64);
    *(size_t *)p = bytes;
    c->allocated += bytes;
    return p + 64;
}
static void ref_free(void *ctx, void *p) {
    if (!p) return;
    ref_ctx *c = ctx;
    char *base = (char *)p - 64;
    assert(c->allocated >= *(size_t *)base);
    c->allocated -= *(size_t *)base;
    free(base);
}
static size_t ref_allocated(void *ctx) { return ((ref_ctx *)ctx)->allocated; }
static void ref_memcpy(void *ctx, void *dst, const void *src, size_t bytes) {
    if (bytes) memmove(dst, src, bytes);
}
static void ref_sync(void *ctx) {}
static void ref_tensor_upload(void *ctx, float *dst, const float *src, tta_shape s) {
    memmove(dst, src, tta_shape_count(s) * sizeof(float));
}
static void ref_tensor_download(void *ctx, float *dst, const float *src, tta_shape s) {
    memmove(dst, src, tta_shape_count(s) * sizeof(float));
}
static void ref_copy(void *ctx, float *dst, const float *src, size_t n) {
    memmove(dst, src, n * sizeof(float));
}
static void ref_accumulate(void *ctx, float *dst, const float *src, size_t n) {
    for (size_t i = 0; i < n; i++) dst[i] += src[i];
}
static void ref_fill(void *ctx, float *dst, float v, size_t n) {
    for (size_t i = 0; i < n; i++) dst[i] = v;
}

static int ref_op_init(void *ctx, tta_op *op, char *err, size_t errlen) {
    op->impl = callocCheck(1, sizeof(ref_impl));
    op->saved_bytes = 0;
    op->scratch_bytes = 0;
    if (op->kind == TTA_OP_BN) op->saved_bytes = 2 * sizeof(float) * op->in.c; /* mean, rstd */
    return 0;
}
static void ref_op_release(void *ctx, tta_op *op) {
    free(op->impl);
    op->impl = NULL;
}

static void ref_conv_prepare(void *ctx, tta_op *op, const float *w, const float *b) {
    ref_impl *r = op->impl;
    r->w = w;
    r->b = op->bias ? b : NULL;
}
static void ref_conv_forward(void *ctx, tta_op *op, float *out, const float *inp) {
    ref_impl *r = op->impl;
    assert(r->w);
    ref_conv_forward_f(out, inp, r->w, r->b, op->in.n, op->in.c, op->in.h, op->in.w, op->out.c,
                       op->kernel, op->stride, op->pad, op->out.h, op->out.w);
    if (op->relu) ref_relu_forward_f(out, out, tta_shape_count(op->out));
}
static void ref_conv_backward(void *ctx, tta_op *op, float *dinp, float *dw, float *db, float *dout,
                              const float *inp, const float *out) {
    ref_impl *r = op->impl;
    if (op->relu) ref_relu_backward_f(dout, dout, out, tta_shape_count(op->out));
    ref_conv_backward_f(op->need_dinp ? dinp : NULL, dw, op->bias ? db : NULL, dout, inp, r->w,
                        op->in.n, op->in.c, op->in.h, op->in.w, op->out.c, op->kernel, op->stride,
                        op->pad, op->out.h, op->out.w);
}

static void ref_bn_forward(void *ctx, tta_op *op, float *out, const float *inp, const float *gamma,
                           const float *beta, float *run_mean, float *run_var) {
    float *mean = op->saved, *rstd = mean ? mean + op->in.c : NULL;
    ref_bn_forward_f(out, mean, rstd, inp, gamma, beta, run_mean, run_var, op->in.n, op->in.c,
                     op->in.h * op->in.w, op->eps, op->momentum, op->train);
    if (op->relu) ref_relu_forward_f(out, out, tta_shape_count(op->out));
}
static void ref_bn_backward(void *ctx, tta_op *op, float *dinp, float *dgamma, float *dbeta,
                            float *dout, const float *inp, const float *out, const float *gamma,
                            const float *beta) {
    assert(op->train);
    float *mean = op->saved, *rstd = mean + op->in.c;
    if (op->relu) ref_relu_backward_f(dout, dout, out, tta_shape_count(op->out));
    ref_bn_backward_f(op->need_dinp ? dinp : NULL, dgamma, dbeta, dout, inp, gamma, mean, rstd,
                      op->in.n, op->in.c, op->in.h * op->in.w);
}
static void ref_fold_bn(void *ctx, float *wf, float *bf, const float *w, const float *b,
                        const float *gamma, const float *beta, const float *mean, const float *var,
                        float eps, int oc, int k) {
    for (int o = 0; o < oc; o++) {
        double g = gamma[o] / sqrt((double)var[o] + eps);
        for (int i = 0; i < k; i++) wf[(size_t)o * k + i] = (float)(w[(size_t)o * k + i] * g);
        bf[o] = (float)(((b ? b[o] : 0.0) - mean[o]) * g + beta[o]);
    }
}

static void ref_relu_forward(void *ctx, tta_op *op, float *out, const float *inp) {
    ref_relu_forward_f(out, inp, tta_shape_count(op->out));
}
static void ref_relu_backward(void *ctx, tta_op *op, float *dinp, const float *dout,
                              const float *out) {
    ref_relu_backward_f(dinp, dout, out, tta_shape_count(op->out));
}

static void ref_pool_forward(void *ctx, tta_op *op, float *out, const float *inp) {
    tta_shape i = op->in, o = op->out;
    switch (op->kind) {
    case TTA_OP_MAXPOOL:
        ref_maxpool_forward_f(out, inp, i.n, i.c, i.h, i.w, op->kernel, op->stride, op->pad, o.h, o.w);
        break;
    case TTA_OP_AVGPOOL:
        ref_avgpool_forward_f(out, inp, i.n, i.c, i.h, i.w, op->kernel, op->stride, op->pad, o.h, o.w);
        break;
    case TTA_OP_GAP: ref_gap_forward_f(out, inp, i.n, i.c, i.h * i.w); break;
    case TTA_OP_GMP: ref_gmp_forward_f(out, inp, i.n, i.c, i.h * i.w); break;
    default: assert(!"not a pooling op");
    }
}
static void ref_pool_backward(void *ctx, tta_op *op, float *dinp, const float *dout,
                              const float *inp, const float *out) {
    tta_shape i = op->in, o = op->out;
    switch (op->kind) {
    case TTA_OP_MAXPOOL:
        ref_maxpool_backward_f(dinp, dout, inp, i.n, i.c, i.h, i.w, op->kernel, op->stride, op->pad,
                               o.h, o.w);
        break;
    case TTA_OP_AVGPOOL:
        ref_avgpool_backward_f(dinp, dout, i.n, i.c, i.h, i.w, op->kernel, op->stride, op->pad, o.h,
                               o.w);
        break;
    case TTA_OP_GAP: ref_gap_backward_f(dinp, dout, i.n, i.c, i.h * i.w); break;
    case TTA_OP_GMP: ref_gmp_backward_f(dinp, dout, inp, i.n, i.c, i.h * i.w); break;
    default: assert(!"not a pooling op");
    }
}

static void ref_linear_forward(void *ctx, tta_op *op, float *out, const float *inp, const float *w,
                               const float *b) {
    int In = op->in.c * op->in.h * op->in.w;
    ref_linear_forward_f(out, inp, w, op->bias ? b : NULL, op->in.n, In, op->out.c);
    if (op->relu) ref_relu_forward_f(out, out, tta_shape_count(op->out));
}
static void ref_linear_backward(void *ctx, tta_op *op, float *dinp, float *dw, float *db,
                                float *dout, const float *inp, const float *w, const float *out) {
    int In = op->in.c * op->in.h * op->in.w;
    if (op->relu) ref_relu_backward_f(dout, dout, out, tta_shape_count(op->out));
    ref_linear_backward_f(op->need_dinp ? dinp : NULL, dw, op->bias ? db : NULL, dout, inp, w,
                          op->in.n, In, op->out.c);
}

static void ref_add_forward(void *ctx, tta_op *op, float *out, const float *a, const float *b) {
    ref_add_forward_f(out, a, b, tta_shape_count(op->out));
    if (op->relu) ref_relu_forward_f(out, out, tta_shape_count(op->out));
}
static void ref_flatten_forward(void *ctx, tta_op *op, float *out, const float *inp) {
    memmove(out, inp, tta_shape_count(op->out) * sizeof(float));
}
static void ref_flatten_backward(void *ctx, tta_op *op, float *dinp, const float *dout) {
    memmove(dinp, dout, tta_shape_count(op->out) * sizeof(float));
}
static void ref_dropout_forward(void *ctx, tta_op *op, float *out, const float *inp, uint64_t seed,
                                uint64_t step) {
    ref_dropout_forward_f(out, inp, tta_shape_count(op->out), op->p, seed, step);
}
static void ref_dropout_backward(void *ctx, tta_op *op, float *dinp, const float *dout,
                                 uint64_t seed, uint64_t step) {
    ref_dropout_backward_f(dinp, dout, tta_shape_count(op->out), op->p, seed, step);
}
static void ref_scale_forward(void *ctx, tta_op *op, float *out, const float *inp) {
    ref_scale_forward_f(out, inp, op->factor, tta_shape_count(op->out));
}
static void ref_scale_backward(void *ctx, tta_op *op, float *dinp, const float *dout) {
    ref_scale_forward_f(dinp, dout, op->factor, tta_shape_count(op->out));
}
static void ref_shortcut_forward(void *ctx, tta_op *op, float *out, const float *inp) {
    ref_shortcut_forward_f(out, inp, op->in.n, op->in.c, op->in.h, op->in.w, op->out.c, op->stride,
                           op->pad_front, op->out.h, op->out.w);
}
static void ref_shortcut_backward(void *ctx, tta_op *op, float *dinp, const float *dout) {
    ref_shortcut_backward_f(dinp, dout, op->in.n, op->in.c, op->in.h, op->in.w, op->out.c,
                            op->stride, op->pad_front, op->out.h, op->out.w);
}
static void ref_xent_forward(void *ctx, tta_op *op, float *result, const float *logits,
                             const int32_t *labels) {
    int correct = 0;
    float mean = ref_xent_forward_f(logits, labels, op->in.n, op->in.c, op->smoothing, &correct);
    result[0] = mean * op->in.n;
    result[1] = (float)correct;
}
static void ref_xent_backward(void *ctx, tta_op *op, float *dlogits, const float *logits,
                              const int32_t *labels) {
    ref_xent_backward_f(dlogits, logits, labels, op->in.n, op->in.c, op->smoothing);
}

static void ref_destroy(tta_backend *be) {
    free(be->ctx);
    free(be);
}

/* Every method of the reference backend, shared by its two tables. */
#define REFERENCE_METHODS \
    .destroy = ref_destroy, \
    .alloc = ref_alloc, \
    .free = ref_free, \
    .allocated = ref_allocated, \
    .upload = ref_memcpy, \
    .download = ref_memcpy, \
    .sync = ref_sync, \
    .tensor_upload = ref_tensor_upload, \
    .tensor_download = ref_tensor_download, \
    .copy = ref_copy, \
    .accumulate = ref_accumulate, \
    .fill = ref_fill, \
    .op_init = ref_op_init, \
    .op_release = ref_op_release, \
    .conv_prepare = ref_conv_prepare, \
    .conv_forward = ref_conv_forward, \
    .conv_backward = ref_conv_backward, \
    .bn_forward = ref_bn_forward, \
    .bn_backward = ref_bn_backward, \
    .fold_bn = ref_fold_bn, \
    .relu_forward = ref_relu_forward, \
    .relu_backward = ref_relu_backward, \
    .pool_forward = ref_pool_forward, \
    .pool_backward = ref_pool_backward, \
    .linear_forward = ref_linear_forward, \
    .linear_backward = ref_linear_backward, \
    .add_forward = ref_add_forward, \
    .flatten_forward = ref_flatten_forward, \
    .flatten_backward = ref_flatten_backward, \
    .dropout_forward = ref_dropout_forward, \
    .dropout_backward = ref_dropout_backward, \
    .scale_forward = ref_scale_forward, \
    .scale_backward = ref_scale_backward, \
    .shortcut_forward = ref_shortcut_forward, \
    .shortcut_backward = ref_shortcut_backward, \
    .xent_forward = ref_xent_forward, \
    .xent_backward = ref_xent_backward

static const tta_backend_ops reference_ops = {
    .name = "reference",
    .host_memory = 1,
    REFERENCE_METHODS,
};

/* One momentum-SGD step over the ranges of a, with the host optimizer's arithmetic. */
static void ref_sgd_step(void *ctx, float *p, const float *g, float *v, const tta_sgd_step *a) {
    tta_optim_sgd_ranges(a, p, g, v);
}

/* The reference layers behaving as a device backend (tta_backend_options.emulate_device): the
 * engine then moves data only through upload and download, and the session steps SGD through
 * sgd_step or on its host mirror, as on cuda, so that tests check those paths without a GPU. */
static const tta_backend_ops reference_device_ops = {
    .name = "reference",
    .host_memory = 0,
    REFERENCE_METHODS,
    .sgd_step = ref_sgd_step,
};

tta_backend *tta_backend_reference_create(const tta_backend_options *opt, char *err,
                                          size_t errlen) {
    tta_backend *be = callocCheck(1, sizeof *be);
    be->ops = opt && opt->emulate_device ? &reference_device_ops : &reference_ops;
    be->ctx = callocCheck(1, sizeof(ref_ctx));
    return be;
}

tta_backend *tta_backend_create(const char *name, const tta_backend_options *opt, char *err,
                                size_t errlen) {
    tta_backend_options none = {0};
    if (!opt) opt = &none;
    if (!name || !*name || strcmp(name, "cpu") == 0) return tta_backend_cpu_create(opt, err, errlen);
    if (strcmp(name, "reference") == 0) return tta_backend_reference_create(opt, err, errlen);
#ifdef TTA_HAVE_CUDA
    if (strcmp(name, "cuda") == 0) return tta_backend_cuda_create(opt, err, errlen);
    snprintf(err, errlen, "unknown backend \"%s\" (known: cpu, reference, cuda)", name);
#else
    if (strcmp(name, "cuda") == 0)
        snprintf(err, errlen, "backend \"cuda\": this tta was built without CUDA (no nvcc, cuDNN or NCCL found, or "
                              "TTA_CUDA=OFF)");
    else
        snprintf(err, errlen, "unknown backend \"%s\" (known: cpu, reference)", name);
#endif
    return NULL;
}


const char *tta_param_kind_name(tta_param_kind k) {
    switch (k) {
    case TTA_PARAM_WEIGHT: return "weight";
    case TTA_PARAM_BIAS: return "bias";
    case TTA_PARAM_BN_SCALE: return "bn_scale";
    case TTA_PARAM_BN_SHIFT: return "bn_shift";
    }
    return NULL;
}
