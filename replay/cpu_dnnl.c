/* cpu_dnnl.c: the cpu backend's oneDNN ops: convolution (forward with fused bias and ReLU,
 * backward data, backward weights+bias), batch normalisation (with oneDNN's fused-ReLU flag)
 * and pooling (average and global average; max pooling where cpu_pool.c's loops do not take
 * the op).
 *
 * Every op builds its primitives once, in op_init, for its exact shapes (the "primitive cache
 * per shape" is the op itself: a model builds one op per layer per batch size). Memory objects
 * are created once with no data and re-pointed at each call, so a training step allocates
 * nothing. Scratchpads are user-managed: the sizes go to op->scratch_bytes and the model hands
 * in one shared buffer, so memory accounting stays exact.
 */
#include <assert.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "replay/cpu_internal.h"

#define MAXARGS 12

/* One primitive, its memory objects (one per execution argument, re-pointed per call) and its
 * scratchpad size. */
typedef struct {
    dnnl_primitive_desc_t pd;
    dnnl_primitive_t prim;
    size_t scratch_bytes;
    int nargs;
    dnnl_exec_arg_t args[MAXARGS];
} prim_t;

typedef struct {
    prim_t fwd, bwd_d, bwd_w;
    prim_t reorder_wf, reorder_wbd, reorder_dw; /* user OIHW <-> the kernels' blocked weights */
    size_t wf_off, wbd_off;                     /* in op->saved; SIZE_MAX: use the user's */
    size_t dw_off;                              /* in op->scratch; SIZE_MAX: write the user's */
    int wbd_is_wf;                              /* backward data reads the forward weights */
    prim_t reorder_dout;                        /* blocked dout -> NCHW, for the plain fallback */
    size_t dout_off;                            /* in op->scratch; SIZE_MAX: no plain copy */
    int direct_dw;                              /* weight gradient by cpu_conv_dw_direct */
    int direct_threads;                         /* its thread count (scratch is sized for it) */
    int wino;                                   /* every pass by cpu_conv_wino.c, no oneDNN primitive */
    size_t uf_off, ubd_off;                     /* its transformed weights (forward, data gradient), in op->saved */
    int wino_threads;                           /* its thread count (scratch is sized for it) */
    const float *w, *b;                         /* from conv_prepare */
} conv_impl;

typedef struct {
    prim_t fwd, bwd;
    size_t ws_off; /* in op->saved, after mean and variance */
} bn_impl;

typedef struct {
    prim_t fwd, bwd;
} pool_impl;

void cpu_dnnl_check(dnnl_status_t st, const char *what, const char *file, int line) {
    if (st == dnnl_success) return;
    fprintf(stderr, "%s:%d: oneDNN error %d in %s\n", file, line, (int)st, what);
    abort();
}

void cpu_md(const cpu_ctx *c, dnnl_memory_desc_t *md, tta_shape s) {
    dnnl_dims_t dims = {s.n, s.c, s.h, s.w};
    int b = cpu_blocked(c, s);
    DNNL_CHECK(dnnl_memory_desc_init_by_tag(md, 4, dims, dnnl_f32,
                                            b == 16 ? dnnl_nChw16c : b == 8 ? dnnl_nChw8c : dnnl_nchw));
}

/* The name of the implementation oneDNN picked for p ("jit:avx512_core", "jit_wino_4x3:...",
 * "ref:any", ...); "" when p has none. */
static const char *prim_impl(const prim_t *p) {
    const char *impl = NULL;
    if (p->pd) dnnl_primitive_desc_query(p->pd, dnnl_query_impl_info_str, 0, &impl);
    return impl ? impl : "";
}

/* Creates the primitive for an op descriptor; 0, or -1 with a message when oneDNN has no
 * implementation (an unsupported shape is a user error, not a bug). */
static int prim_create(cpu_ctx *c, prim_t *p, const void *desc, int relu,
                       const_dnnl_primitive_desc_t hint, const char *what, char *err,
                       size_t errlen) {
    dnnl_primitive_attr_t attr;
    DNNL_CHECK(dnnl_primitive_attr_create(&attr));
    DNNL_CHECK(dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user));
    if (relu) {
        dnnl_post_ops_t po;
        DNNL_CHECK(dnnl_post_ops_create(&po));
        DNNL_CHECK(dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_relu, 0.0f, 0.0f));
        DNNL_CHECK(dnnl_primitive_attr_set_post_ops(attr, po));
        dnnl_post_ops_destroy(po);
    }
    dnnl_status_t st = dnnl_primitive_desc_create(&p->pd, desc, attr, c->engine, hint);
    dnnl_primitive_attr_destroy(attr);
    if (st != dnnl_success) {
        snprintf(err, errlen, "oneDNN has no %s for this shape (status %d)", what, (int)st);
        p->pd = NULL;
        return -1;
    }
    DNNL_CHECK(dnnl_primitive_create(&p->prim, p->pd));
    const dnnl_memory_desc_t *sp = dnnl_primitive_desc_query_md(p->pd, dnnl_query_scratchpad_md, 0);
    p->scratch_bytes = sp ? dnnl_memory_desc_get_size(sp) : 0;
    if (c->verbose)
        fprintf(stderr, "cpu backend: %s -> %s (scratchpad %zu bytes)\n", what, prim_impl(p), p->scratch_bytes);
    return 0;
}

static int reorder_create(cpu_ctx *c, prim_t *p, const dnnl_memory_desc_t *src,
                          const dnnl_memory_desc_t *dst, const char *what, char *err,
                          size_t errlen) {
    dnnl_primitive_attr_t attr;
    DNNL_CHECK(dnnl_primitive_attr_create(&attr));
    DNNL_CHECK(dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user));
    dnnl_status_t st = dnnl_reorder_primitive_desc_create(&p->pd, src, c->engine, dst, c->engine, attr);
    dnnl_primitive_attr_destroy(attr);
    if (st != dnnl_success) {
        snprintf(err, errlen, "oneDNN has no reorder for %s (status %d)", what, (int)st);
        p->pd = NULL;
        return -1;
    }
    DNNL_CHECK(dnnl_primitive_create(&p->prim, p->pd));
    const dnnl_memory_desc_t *sp = dnnl_primitive_desc_query_md(p->pd, dnnl_query_scratchpad_md, 0);
    p->scratch_bytes = sp ? dnnl_memory_desc_get_size(sp) : 0;
    return 0;
}

/* Binds every argument in list that the primitive takes (its md is not empty), plus the
 * scratchpad, to a memory object with no data yet. */
static void prim_bind(cpu_ctx *c, prim_t *p, const int *list, int n) {
    p->nargs = 0;
    for (int i = 0; i < n; i++) {
        const dnnl_memory_desc_t *md = dnnl_primitive_desc_query_md(p->pd, dnnl_query_exec_arg_md, list[i]);
        if (!md || md->ndims == 0) continue;
        assert(p->nargs < MAXARGS);
        dnnl_memory_t m;
        DNNL_CHECK(dnnl_memory_create(&m, md, c->engine, DNNL_MEMORY_NONE));
        p->args[p->nargs++] = (dnnl_exec_arg_t){list[i], m};
    }
    if (p->scratch_bytes) {
        const dnnl_memory_desc_t *md = dnnl_primitive_desc_query_md(p->pd, dnnl_query_scratchpad_md, 0);
        dnnl_memory_t m;
        DNNL_CHECK(dnnl_memory_create(&m, md, c->engine, DNNL_MEMORY_NONE));
        p->args[p->nargs++] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, m};
    }
}

static int prim_has(const prim_t *p, int arg) {
    for (int i = 0; i < p->nargs; i++)
        if (p->args[i].arg == arg) return 1;
    return 0;
}

static void prim_set(prim_t *p, int arg, const void *ptr) {
    for (int i = 0; i < p->nargs; i++)
        if (p->args[i].arg == arg) {
            DNNL_CHECK(dnnl_memory_set_data_handle(p->args[i].memory, (void *)ptr));
            return;
        }
    assert(!"argument not bound");
}

static void prim_run(cpu_ctx *c, prim_t *p, void *scratch) {
    if (p->scratch_bytes) prim_set(p, DNNL_ARG_SCRATCHPAD, scratch);
    DNNL_CHECK(dnnl_primitive_execute(p->prim, c->stream, p->nargs, p->args));
    DNNL_CHECK(dnnl_stream_wait(c->stream));
}

static void prim_destroy(prim_t *p) {
    for (int i = 0; i < p->nargs; i++) dnnl_memory_destroy(p->args[i].memory);
    if (p->prim) dnnl_primitive_destroy(p->prim);
    if (p->pd) dnnl_primitive_desc_destroy(p->pd);
    memset(p, 0, sizeof *p);
}

static size_t max_sz(size_t a, size_t b) { return a > b ? a : b; }

/* oneDNN's reference implementations are naive loops (100x slower than its JIT kernels). */
static int prim_is_ref(const prim_t *p) { return strncmp(prim_impl(p), "ref", 3) == 0; }

/* oneDNN's right padding that makes the output size PyTorch's floor((H + 2P - K) / S) + 1. It
 * may be negative (the last rows are not read), which oneDNN accepts. */
static dnnl_dim_t pad_right(int in, int out, int k, int s, int p) { return (dnnl_dim_t)(out - 1) * s + k - in - p; }

/* ------------------------------------------------------------------------------------------ */
/* Convolution                                                                                  */

/* Which algorithms a convolution runs. oneDNN 2.6 has Winograd F(4x4, 3x3) kernels for 3x3
 * convolutions of stride 1 on AVX-512 hosts only (jit_wino_4x3; none for AVX2, where every
 * convolution stays direct). They do 4x fewer multiplications in the channel products but add
 * transforms whose cost per product grows as 1/ic + 1/oc, so the better algorithm depends on
 * the shape, the pass and the CPU. Measured (fmnist-cnn, two threads, docs/replay.md
 * "Winograd convolutions"), one rule per CPU (cpu_ctx.conv_rule):
 *   intel (Xeon VM): the backward (data and weights) was faster with Winograd in every 3x3
 *     shape with 16 or more channels on both sides, the forward only where
 *     ic*oc/(ic+oc) >= 20 (32->64 and 64->64; 16->32 took twice as long, 32->32 the same).
 *   amd (EPYC, Zen 5): the forward as on intel, and the data gradient by the forward's rule
 *     (direct 10 % faster at 16->32, the same at 32->32, slower at 32->64 and 64->64); the
 *     weight gradient direct everywhere (Winograd 1.2-1.6x slower at 16->32 and 32->32,
 *     10 % slower at 32->64, the same at 64->64).
 *   zen4 (EPYC, Zen 4: AVX-512 on a 256-bit datapath): oneDNN's as on intel (its Winograd weight
 *     gradient beat the direct one there: 64->64's backward 5.1 against 6.5 ms), below
 *     ic*oc/(ic+oc) = 24 tta's own Winograd (conv_own_winograd).
 * oneDNN's own choice (dnnl_convolution_auto) takes Winograd for all of them.
 * The rules depend only on the shapes, the ISA and the CPU, never on timings, so a run's
 * bits do not change from one run to the next. Each returns the first index into
 * {winograd, direct} to try; where oneDNN has no Winograd kernel the direct one follows. */
static int conv_winograd_shape(const tta_op *op) {
    return op->kernel == 3 && op->stride == 1 && op->in.c >= 16 && op->out.c >= 16;
}
/* ic*oc/(ic+oc) >= ratio: the channel products outweigh the transforms enough */
static int conv_channels_at_least(const tta_op *op, long ratio) {
    long ic = op->in.c, oc = op->out.c;
    return ic * oc >= ratio * (ic + oc);
}
static int conv_forward_algos(const cpu_ctx *c, const tta_op *op) {
    if (c->conv_rule == CPU_CONV_RULE_DIRECT) return 1;
    return conv_winograd_shape(op) && conv_channels_at_least(op, 20) ? 0 : 1;
}
static int conv_backward_data_algos(const cpu_ctx *c, const tta_op *op) {
    if (c->conv_rule == CPU_CONV_RULE_DIRECT) return 1;
    if (c->conv_rule == CPU_CONV_RULE_AMD) return conv_forward_algos(c, op);
    return conv_winograd_shape(op) ? 0 : 1;
}
static int conv_backward_weights_algos(const cpu_ctx *c, const tta_op *op) {
    if (c->conv_rule != CPU_CONV_RULE_INTEL && c->conv_rule != CPU_CONV_RULE_ZEN4) return 1;
    return conv_winograd_shape(op) ? 0 : 1;
}

/* Whether a 3x3 convolution of stride 1 runs tta's own Winograd F(2x2, 3x3) (cpu_conv_wino.c),
 * every pass, instead of the rules above. Always 16 or more channels on both sides:
 *   nChw8c maps (an AVX2 host, where oneDNN 2.6 has no Winograd): on either vendor. Measured on
 *     fmnist-cnn's four shapes (AMD EPYC Zen 4 as an AVX2 host, docs/replay.md "Winograd on AVX2
 *     hosts"): the forward and the data gradient faster than oneDNN's direct kernels in each
 *     shape, the weight gradient in three shapes and the same in the fourth.
 *   nChw16c maps (AVX-512): under the zen4 rule, where ic*oc/(ic+oc) < 24. Measured on Zen 4
 *     (docs/replay.md "tta's Winograd on AVX-512 hosts"), forward + backward, 7 interleaved
 *     pairs: 16->32 and 32->32 a median 13 and 18 % less time than oneDNN's direct kernels (the
 *     amd rule's choice there), 32->64 12 % less than oneDNN's forward and data Winograd with a
 *     direct weight gradient; 64->64 on 7x7 maps 12-30 % more than that (oneDNN's F(4x4, 3x3)
 *     does 4x fewer multiplications, this one 2.25x, and its heavier transforms weigh less with
 *     more channels). The intel and amd rules keep oneDNN's: not measured on those CPUs (on Zen
 *     5 a full 512-bit datapath doubles the products' speed, not the transforms'). */
static int conv_own_winograd(const cpu_ctx *c, const tta_op *op) {
    if (c->conv_rule == CPU_CONV_RULE_DIRECT || !cpu_wino_supported(c, op) || !conv_winograd_shape(op)) return 0;
    if (cpu_blocked(c, op->in) == 8) return 1; /* oneDNN has no Winograd for nChw8c maps */
    return c->conv_rule == CPU_CONV_RULE_ZEN4 && !conv_channels_at_least(op, 24);
}

/* The thread count tta's Winograd runs on now: the backend's (which may change between steps,
 * tta_model_set_threads), at most the one its scratch was sized for. Its bits do not depend on
 * it. */
static int conv_wino_threads(const cpu_ctx *c, const conv_impl *ci) {
    int t = c->threads > 0 ? c->threads : omp_get_max_threads();
    return t < ci->wino_threads ? t : ci->wino_threads;
}

static int prim_is_winograd(const prim_t *p) { return strstr(prim_impl(p), "wino") != NULL; }

/* The algorithm a convolution's primitives run, for tta_op.algorithm (profiles show it: a
 * Winograd layer's GFLOP/s count the direct convolution's FLOPs and can pass the SGEMM peak). */
static const char *conv_algorithm_name(const conv_impl *ci, const tta_op *op) {
    static const char *const names[8] = {"direct", "winograd forward", "winograd data gradient",
                                         "winograd forward+data", "winograd weight gradient",
                                         "winograd forward+weight", "winograd backward", "winograd"};
    if (ci->wino) return names[7];
    int wf = prim_is_winograd(&ci->fwd), ww = prim_is_winograd(&ci->bwd_w);
    int wd = op->need_dinp ? prim_is_winograd(&ci->bwd_d) : ww;
    if (!op->train) return wf ? names[7] : names[0];
    return names[wf | wd << 1 | ww << 2];
}

/* Creates a training convolution's backward primitives (backward data when op->need_dinp,
 * then backward weights) from its forward's descriptors, first on the activations' layouts.
 * AVX2 oneDNN has no JIT backward for an NCHW input (C % 8 != 0: the first layer, LeNet's
 * conv2) with a blocked output; when it offers only its reference kernels there, both are
 * made again on an NCHW copy of dout (its GEMM kernels), and ci->dout_off = 0 marks that
 * fallback (else SIZE_MAX). Binds nothing. Returns 0, or -1 with a message in err. */
static int conv_backward_create(cpu_ctx *c, const tta_op *op, conv_impl *ci, const dnnl_memory_desc_t *src,
                                const dnnl_memory_desc_t *dst, const dnnl_memory_desc_t *wany,
                                const dnnl_memory_desc_t *bmd, const dnnl_dim_t *strides,
                                const dnnl_dim_t *pl, const dnnl_dim_t *pr, char *err, size_t errlen) {
    ci->dout_off = SIZE_MAX;
    for (int attempt = 0; attempt < 2; attempt++) {
        dnnl_memory_desc_t dd = *dst;
        if (attempt == 1) {
            dnnl_dims_t od = {op->out.n, op->out.c, op->out.h, op->out.w};
            DNNL_CHECK(dnnl_memory_desc_init_by_tag(&dd, 4, od, dnnl_f32, dnnl_nchw));
        }
        int first_d = conv_backward_data_algos(c, op), first_w = conv_backward_weights_algos(c, op);
        for (int a = first_d < first_w ? first_d : first_w; a < 2; a++) { /* Winograd first, where it may be */
            dnnl_alg_kind_t alg = a == 0 ? dnnl_convolution_winograd : dnnl_convolution_direct;
            dnnl_convolution_desc_t bd_, bw;
            if (op->need_dinp && !ci->bwd_d.pd && a >= first_d) {
                DNNL_CHECK(dnnl_convolution_backward_data_desc_init(&bd_, alg, src, wany, &dd, strides, pl, pr));
                if (prim_create(c, &ci->bwd_d, &bd_, 0, ci->fwd.pd, "convolution backward data", err,
                                errlen) && a == 1)
                    return -1;
            }
            if (!ci->bwd_w.pd && a >= first_w) {
                DNNL_CHECK(dnnl_convolution_backward_weights_desc_init(
                    &bw, alg, src, wany, op->bias ? bmd : NULL, &dd, strides, pl, pr));
                if (prim_create(c, &ci->bwd_w, &bw, 0, ci->fwd.pd, "convolution backward weights", err,
                                errlen) && a == 1)
                    return -1;
            }
        }
        int slow = prim_is_ref(&ci->bwd_w) || (op->need_dinp && prim_is_ref(&ci->bwd_d));
        if (attempt == 1 || !slow || !cpu_blocked(c, op->out) || cpu_blocked(c, op->in)) break;
        prim_destroy(&ci->bwd_w);
        prim_destroy(&ci->bwd_d);
        if (c->verbose) fprintf(stderr, "cpu backend: retrying the backward on an NCHW dout\n");
        ci->dout_off = 0; /* marks the fallback; cpu_conv_init sets the real offset */
    }
    return 0;
}

/* The init of a convolution that tta's Winograd runs whole: its transformed weights in op->saved
 * (the forward's, then the data gradient's where it has one), its units in scratch (the passes
 * run one at a time). Returns 0. */
static int conv_wino_init(const cpu_ctx *c, tta_op *op, conv_impl *ci) {
    ci->wino = 1;
    ci->wino_threads = c->threads > omp_get_max_threads() ? c->threads : omp_get_max_threads();
    ci->uf_off = 0;
    size_t saved = cpu_wino_weights_bytes(op->in.c, op->out.c);
    ci->ubd_off = SIZE_MAX;
    if (op->train && op->need_dinp) {
        ci->ubd_off = saved;
        saved += cpu_wino_weights_bytes(op->out.c, op->in.c);
    }
    size_t scratch = cpu_wino_scratch(op->in.c, op->out.c, op->in.h, op->in.w, ci->wino_threads);
    if (op->train)
        scratch = max_sz(scratch, cpu_wino_dw_scratch(op->in.c, op->out.c, op->in.h, op->in.w, ci->wino_threads));
    if (c->verbose)
        fprintf(stderr, "cpu backend: convolution -> tta winograd F(2x2,3x3) %s, every pass\n",
                cpu_blocked(c, op->in) == 16 ? "avx512" : "avx2");
    op->algorithm = conv_algorithm_name(ci, op);
    op->saved_bytes = saved;
    op->scratch_bytes = scratch;
    return 0;
}

int cpu_conv_init(cpu_ctx *c, tta_op *op, char *err, size_t errlen) {
    conv_impl *ci = callocCheck(1, sizeof *ci);
    op->impl = ci;
    dnnl_memory_desc_t src, dst, wany, wuser, bmd;
    cpu_md(c, &src, op->in);
    cpu_md(c, &dst, op->out);
    dnnl_dims_t wd = {op->out.c, op->in.c, op->kernel, op->kernel}, bd = {op->out.c};
    DNNL_CHECK(dnnl_memory_desc_init_by_tag(&wany, 4, wd, dnnl_f32, dnnl_format_tag_any));
    DNNL_CHECK(dnnl_memory_desc_init_by_tag(&wuser, 4, wd, dnnl_f32, dnnl_oihw));
    DNNL_CHECK(dnnl_memory_desc_init_by_tag(&bmd, 1, bd, dnnl_f32, dnnl_a));
    dnnl_dims_t strides = {op->stride, op->stride}, pl = {op->pad, op->pad};
    dnnl_dims_t pr = {pad_right(op->in.h, op->out.h, op->kernel, op->stride, op->pad),
                      pad_right(op->in.w, op->out.w, op->kernel, op->stride, op->pad)};
    if (conv_own_winograd(c, op)) return conv_wino_init(c, op, ci);
    for (int a = conv_forward_algos(c, op); !ci->fwd.pd; a++) { /* Winograd first, where it may be */
        dnnl_convolution_desc_t d;
        DNNL_CHECK(dnnl_convolution_forward_desc_init(
            &d, op->train ? dnnl_forward_training : dnnl_forward_inference,
            a == 0 ? dnnl_convolution_winograd : dnnl_convolution_direct, &src, &wany, op->bias ? &bmd : NULL,
            &dst, strides, pl, pr));
        if (prim_create(c, &ci->fwd, &d, op->relu, NULL, "convolution forward", err, errlen) && a == 1)
            return -1;
    }
    static const int fwd_args[] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_BIAS, DNNL_ARG_DST};
    prim_bind(c, &ci->fwd, fwd_args, 4);

    size_t saved = 0, scratch = ci->fwd.scratch_bytes;
    const dnnl_memory_desc_t *wf = dnnl_primitive_desc_query_md(ci->fwd.pd, dnnl_query_weights_md, 0);
    ci->wf_off = ci->wbd_off = ci->dw_off = SIZE_MAX;
    static const int reorder_args[] = {DNNL_ARG_FROM, DNNL_ARG_TO};
    if (!dnnl_memory_desc_equal(wf, &wuser)) {
        if (reorder_create(c, &ci->reorder_wf, &wuser, wf, "conv weights", err, errlen)) return -1;
        prim_bind(c, &ci->reorder_wf, reorder_args, 2);
        ci->wf_off = saved;
        saved += cpu_align64(dnnl_memory_desc_get_size(wf));
        scratch = max_sz(scratch, ci->reorder_wf.scratch_bytes);
    }
    if (op->train && !op->need_dinp && !cpu_blocked(c, op->in) && cpu_blocked(c, op->out) &&
        op->kernel <= CPU_CONV_DIRECT_MAX_K) {
        /* A first layer (NCHW input, blocked output, no input gradient): oneDNN has no fast
         * kernel for its backward (cpu_conv_direct.c says why); direct loops instead. */
        ci->direct_dw = 1;
        ci->direct_threads = c->threads > 0 ? c->threads : omp_get_max_threads();
        scratch = max_sz(scratch, cpu_conv_dw_direct_scratch(op->in, op->out, op->kernel, op->stride, op->pad,
                                                             ci->direct_threads));
    } else if (op->train) {
        /* Backward with the activations' layouts, or on an NCHW copy of dout where oneDNN has
         * no fast kernel for them. */
        if (conv_backward_create(c, op, ci, &src, &dst, &wany, &bmd, strides, pl, pr, err, errlen)) return -1;
        size_t sp = 0;
        if (op->need_dinp) {
            static const int args[] = {DNNL_ARG_DIFF_DST, DNNL_ARG_WEIGHTS, DNNL_ARG_DIFF_SRC};
            prim_bind(c, &ci->bwd_d, args, 3);
            sp = ci->bwd_d.scratch_bytes;
            const dnnl_memory_desc_t *wb = dnnl_primitive_desc_query_md(ci->bwd_d.pd, dnnl_query_weights_md, 0);
            if (dnnl_memory_desc_equal(wb, wf)) {
                ci->wbd_is_wf = 1;
            } else if (!dnnl_memory_desc_equal(wb, &wuser)) {
                if (reorder_create(c, &ci->reorder_wbd, &wuser, wb, "conv weights (backward)", err, errlen))
                    return -1;
                prim_bind(c, &ci->reorder_wbd, reorder_args, 2);
                ci->wbd_off = saved;
                saved += cpu_align64(dnnl_memory_desc_get_size(wb));
                scratch = max_sz(scratch, ci->reorder_wbd.scratch_bytes);
            }
        }
        static const int args[] = {DNNL_ARG_SRC, DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_WEIGHTS,
                                   DNNL_ARG_DIFF_BIAS};
        prim_bind(c, &ci->bwd_w, args, 4);
        const dnnl_memory_desc_t *dw = dnnl_primitive_desc_query_md(ci->bwd_w.pd, dnnl_query_diff_weights_md, 0);
        sp = max_sz(sp, ci->bwd_w.scratch_bytes);
        if (!dnnl_memory_desc_equal(dw, &wuser)) {
            if (reorder_create(c, &ci->reorder_dw, dw, &wuser, "conv weight gradient", err, errlen))
                return -1;
            prim_bind(c, &ci->reorder_dw, reorder_args, 2);
            sp = max_sz(sp, ci->reorder_dw.scratch_bytes);
        }
        if (ci->dout_off != SIZE_MAX) {
            dnnl_memory_desc_t plain;
            dnnl_dims_t od = {op->out.n, op->out.c, op->out.h, op->out.w};
            DNNL_CHECK(dnnl_memory_desc_init_by_tag(&plain, 4, od, dnnl_f32, dnnl_nchw));
            if (reorder_create(c, &ci->reorder_dout, &dst, &plain, "conv output gradient", err, errlen))
                return -1;
            prim_bind(c, &ci->reorder_dout, reorder_args, 2);
            sp = max_sz(sp, ci->reorder_dout.scratch_bytes);
        }
        /* scratch while backward runs: [scratchpad][blocked dw][NCHW dout] */
        size_t end = cpu_align64(sp);
        if (ci->reorder_dw.prim) {
            ci->dw_off = end;
            end += cpu_align64(dnnl_memory_desc_get_size(dw));
        }
        if (ci->dout_off != SIZE_MAX) {
            ci->dout_off = end;
            end += cpu_align64(tta_shape_count(op->out) * sizeof(float));
        }
        scratch = max_sz(scratch, end);
    }
    op->algorithm = conv_algorithm_name(ci, op);
    op->saved_bytes = saved;
    op->scratch_bytes = scratch;
    return 0;
}

void cpu_conv_prepare(void *ctx, tta_op *op, const float *w, const float *b) {
    cpu_ctx *c = ctx;
    conv_impl *ci = op->impl;
    ci->w = w;
    ci->b = op->bias ? b : NULL;
    if (ci->reorder_wf.prim) {
        prim_set(&ci->reorder_wf, DNNL_ARG_FROM, w);
        prim_set(&ci->reorder_wf, DNNL_ARG_TO, (char *)op->saved + ci->wf_off);
        prim_run(c, &ci->reorder_wf, op->scratch);
    }
    if (ci->reorder_wbd.prim) {
        prim_set(&ci->reorder_wbd, DNNL_ARG_FROM, w);
        prim_set(&ci->reorder_wbd, DNNL_ARG_TO, (char *)op->saved + ci->wbd_off);
        prim_run(c, &ci->reorder_wbd, op->scratch);
    }
    if (!ci->wino) return;
    cpu_wino_weights((float *)((char *)op->saved + ci->uf_off), w, op->out.c, op->in.c, 0, conv_wino_threads(c, ci));
    if (ci->ubd_off != SIZE_MAX)
        cpu_wino_weights((float *)((char *)op->saved + ci->ubd_off), w, op->out.c, op->in.c, 1,
                         conv_wino_threads(c, ci));
}

static const float *conv_wf(tta_op *op) {
    conv_impl *ci = op->impl;
    return ci->wf_off == SIZE_MAX ? ci->w : (const float *)((char *)op->saved + ci->wf_off);
}

void cpu_conv_forward(void *ctx, tta_op *op, float *out, const float *inp) {
    cpu_ctx *c = ctx;
    conv_impl *ci = op->impl;
    assert(ci->w);
    if (ci->wino) {
        cpu_wino_conv(out, inp, (const float *)((char *)op->saved + ci->uf_off), ci->b, op->relu, op->in, op->out.c,
                      cpu_blocked(c, op->in), conv_wino_threads(c, ci), op->scratch);
        return;
    }
    prim_set(&ci->fwd, DNNL_ARG_SRC, inp);
    prim_set(&ci->fwd, DNNL_ARG_WEIGHTS, conv_wf(op));
    if (op->bias) prim_set(&ci->fwd, DNNL_ARG_BIAS, ci->b);
    prim_set(&ci->fwd, DNNL_ARG_DST, out);
    prim_run(c, &ci->fwd, op->scratch);
}

/* The gradient through a ReLU fused on a conv's output: dout *= (out > 0), in place. */
static void relu_mask(float *dout, const float *out, size_t n) {
#pragma omp parallel for simd schedule(static) if (n >= ((size_t)1 << 15))
    for (size_t i = 0; i < n; i++) dout[i] = out[i] > 0 ? dout[i] : 0.0f;
}

void cpu_conv_backward(void *ctx, tta_op *op, float *dinp, float *dw, float *db, float *dout,
                       const float *inp, const float *out) {
    cpu_ctx *c = ctx;
    conv_impl *ci = op->impl;
    assert(op->train);
    if (op->relu) relu_mask(dout, out, tta_shape_count(op->out));
    if (ci->wino) { /* the data gradient, then the weight gradient: one after the other in scratch */
        if (op->need_dinp)
            cpu_wino_conv(dinp, dout, (const float *)((char *)op->saved + ci->ubd_off), NULL, 0, op->out, op->in.c,
                          cpu_blocked(c, op->in), conv_wino_threads(c, ci), op->scratch);
        cpu_wino_conv_dw(dw, op->bias ? db : NULL, inp, dout, op->in, op->out.c, cpu_blocked(c, op->in),
                         conv_wino_threads(c, ci), op->scratch);
        return;
    }
    if (ci->direct_dw) {
        cpu_conv_dw_direct(dw, op->bias ? db : NULL, inp, dout, op->in, op->out, cpu_blocked(c, op->out), op->kernel,
                           op->stride, op->pad, ci->direct_threads, c->isa, op->scratch);
        return;
    }
    const float *dk = dout;
    if (ci->reorder_dout.prim) {
        float *plain = (float *)((char *)op->scratch + ci->dout_off);
        prim_set(&ci->reorder_dout, DNNL_ARG_FROM, dout);
        prim_set(&ci->reorder_dout, DNNL_ARG_TO, plain);
        prim_run(c, &ci->reorder_dout, op->scratch);
        dk = plain;
    }
    if (op->need_dinp) {
        const float *wb = ci->wbd_is_wf ? conv_wf(op)
                          : ci->wbd_off == SIZE_MAX ? ci->w
                                                    : (const float *)((char *)op->saved + ci->wbd_off);
        prim_set(&ci->bwd_d, DNNL_ARG_DIFF_DST, dk);
        prim_set(&ci->bwd_d, DNNL_ARG_WEIGHTS, wb);
        prim_set(&ci->bwd_d, DNNL_ARG_DIFF_SRC, dinp);
        prim_run(c, &ci->bwd_d, op->scratch);
    }
    float *dwk = ci->dw_off == SIZE_MAX ? dw : (float *)((char *)op->scratch + ci->dw_off);
    prim_set(&ci->bwd_w, DNNL_ARG_SRC, inp);
    prim_set(&ci->bwd_w, DNNL_ARG_DIFF_DST, dk);
    prim_set(&ci->bwd_w, DNNL_ARG_DIFF_WEIGHTS, dwk);
    if (op->bias) prim_set(&ci->bwd_w, DNNL_ARG_DIFF_BIAS, db);
    prim_run(c, &ci->bwd_w, op->scratch);
    if (ci->reorder_dw.prim) {
        prim_set(&ci->reorder_dw, DNNL_ARG_FROM, dwk);
        prim_set(&ci->reorder_dw, DNNL_ARG_TO, dw);
        prim_run(c, &ci->reorder_dw, op->scratch);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Batch normalisation                                                                          */

int cpu_bn_init(cpu_ctx *c, tta_op *op, char *err, size_t errlen) {
    bn_impl *bi = callocCheck(1, sizeof *bi);
    op->impl = bi;
    dnnl_memory_desc_t data;
    cpu_md(c, &data, op->in);
    unsigned flags = dnnl_use_scale | dnnl_use_shift;
    if (op->relu) flags |= dnnl_fuse_norm_relu;
    if (!op->train) flags |= dnnl_use_global_stats;
    dnnl_batch_normalization_desc_t d;
    DNNL_CHECK(dnnl_batch_normalization_forward_desc_init(
        &d, op->train ? dnnl_forward_training : dnnl_forward_inference, &data, op->eps, flags));
    if (prim_create(c, &bi->fwd, &d, 0, NULL, "batch normalization forward", err, errlen)) return -1;
    static const int fargs[] = {DNNL_ARG_SRC,  DNNL_ARG_DST,   DNNL_ARG_SCALE,    DNNL_ARG_SHIFT,
                                DNNL_ARG_MEAN, DNNL_ARG_VARIANCE, DNNL_ARG_WORKSPACE};
    prim_bind(c, &bi->fwd, fargs, 7);
    size_t saved = 0, scratch = bi->fwd.scratch_bytes;
    if (op->train) {
        saved = 2 * cpu_align64(sizeof(float) * op->in.c); /* batch mean, batch variance */
        bi->ws_off = saved;
        const dnnl_memory_desc_t *ws = dnnl_primitive_desc_query_md(bi->fwd.pd, dnnl_query_workspace_md, 0);
        if (ws && ws->ndims) saved += cpu_align64(dnnl_memory_desc_get_size(ws));
        dnnl_batch_normalization_desc_t b;
        DNNL_CHECK(dnnl_batch_normalization_backward_desc_init(&b, dnnl_backward, &data, &data,
                                                               op->eps, flags & ~dnnl_use_global_stats));
        if (prim_create(c, &bi->bwd, &b, 0, bi->fwd.pd, "batch normalization backward", err, errlen))
            return -1;
        static const int bargs[] = {DNNL_ARG_SRC,       DNNL_ARG_MEAN,       DNNL_ARG_VARIANCE,
                                    DNNL_ARG_DIFF_DST,  DNNL_ARG_SCALE,      DNNL_ARG_SHIFT,
                                    DNNL_ARG_WORKSPACE, DNNL_ARG_DIFF_SRC,   DNNL_ARG_DIFF_SCALE,
                                    DNNL_ARG_DIFF_SHIFT};
        prim_bind(c, &bi->bwd, bargs, 10);
        size_t sp = bi->bwd.scratch_bytes;
        /* without an input gradient to write, diff_src goes to scratch */
        if (!op->need_dinp) sp = cpu_align64(sp) + cpu_align64(tta_shape_count(op->in) * sizeof(float));
        scratch = max_sz(scratch, sp);
    }
    op->saved_bytes = saved;
    op->scratch_bytes = scratch;
    return 0;
}

void cpu_bn_forward(void *ctx, tta_op *op, float *out, const float *inp, const float *gamma,
                    const float *beta, float *run_mean, float *run_var) {
    cpu_ctx *c = ctx;
    bn_impl *bi = op->impl;
    int C = op->in.c;
    float *mean = op->train ? (float *)op->saved : run_mean;
    float *var = op->train ? (float *)((char *)op->saved + cpu_align64(sizeof(float) * C)) : run_var;
    prim_set(&bi->fwd, DNNL_ARG_SRC, inp);
    prim_set(&bi->fwd, DNNL_ARG_DST, out);
    prim_set(&bi->fwd, DNNL_ARG_SCALE, gamma);
    prim_set(&bi->fwd, DNNL_ARG_SHIFT, beta);
    prim_set(&bi->fwd, DNNL_ARG_MEAN, mean);
    prim_set(&bi->fwd, DNNL_ARG_VARIANCE, var);
    if (prim_has(&bi->fwd, DNNL_ARG_WORKSPACE))
        prim_set(&bi->fwd, DNNL_ARG_WORKSPACE, (char *)op->saved + bi->ws_off);
    prim_run(c, &bi->fwd, op->scratch);
    if (op->train && run_mean && run_var) {
        /* PyTorch: running stats use the unbiased variance; normalisation the biased one */
        double N = (double)op->in.n * op->in.h * op->in.w;
        double unbias = N > 1 ? N / (N - 1) : 1.0, m = op->momentum;
        for (int i = 0; i < C; i++) {
            run_mean[i] = (float)((1 - m) * run_mean[i] + m * mean[i]);
            run_var[i] = (float)((1 - m) * run_var[i] + m * var[i] * unbias);
        }
    }
}

void cpu_bn_backward(void *ctx, tta_op *op, float *dinp, float *dgamma, float *dbeta, float *dout,
                     const float *inp, const float *out, const float *gamma, const float *beta) {
    cpu_ctx *c = ctx;
    bn_impl *bi = op->impl;
    assert(op->train);
    int C = op->in.c;
    prim_set(&bi->bwd, DNNL_ARG_SRC, inp);
    prim_set(&bi->bwd, DNNL_ARG_MEAN, op->saved);
    prim_set(&bi->bwd, DNNL_ARG_VARIANCE, (char *)op->saved + cpu_align64(sizeof(float) * C));
    prim_set(&bi->bwd, DNNL_ARG_DIFF_DST, dout);
    prim_set(&bi->bwd, DNNL_ARG_SCALE, gamma);
    if (prim_has(&bi->bwd, DNNL_ARG_SHIFT)) prim_set(&bi->bwd, DNNL_ARG_SHIFT, beta);
    if (prim_has(&bi->bwd, DNNL_ARG_WORKSPACE))
        prim_set(&bi->bwd, DNNL_ARG_WORKSPACE, (char *)op->saved + bi->ws_off);
    float *ds = op->need_dinp ? dinp : (float *)((char *)op->scratch + cpu_align64(bi->bwd.scratch_bytes));
    prim_set(&bi->bwd, DNNL_ARG_DIFF_SRC, ds);
    prim_set(&bi->bwd, DNNL_ARG_DIFF_SCALE, dgamma);
    prim_set(&bi->bwd, DNNL_ARG_DIFF_SHIFT, dbeta);
    prim_run(c, &bi->bwd, op->scratch);
}

/* ------------------------------------------------------------------------------------------ */
/* Pooling                                                                                      */

int cpu_pool_init(cpu_ctx *c, tta_op *op, char *err, size_t errlen) {
    pool_impl *pi = callocCheck(1, sizeof *pi);
    op->impl = pi;
    dnnl_memory_desc_t src, dst;
    cpu_md(c, &src, op->in);
    cpu_md(c, &dst, op->out);
    int kh = op->kernel, kw = op->kernel, s = op->stride, p = op->pad;
    if (op->kind == TTA_OP_GAP || op->kind == TTA_OP_GMP) {
        kh = op->in.h;
        kw = op->in.w;
        s = 1;
        p = 0;
    }
    dnnl_alg_kind_t alg = op->kind == TTA_OP_MAXPOOL || op->kind == TTA_OP_GMP
                              ? dnnl_pooling_max
                              : dnnl_pooling_avg_include_padding;
    dnnl_dims_t strides = {s, s}, kernel = {kh, kw}, dil = {0, 0}, pl = {p, p};
    dnnl_dims_t pr = {pad_right(op->in.h, op->out.h, kh, s, p), pad_right(op->in.w, op->out.w, kw, s, p)};
    dnnl_pooling_v2_desc_t d;
    DNNL_CHECK(dnnl_pooling_v2_forward_desc_init(
        &d, op->train ? dnnl_forward_training : dnnl_forward_inference, alg, &src, &dst, strides,
        kernel, dil, pl, pr));
    if (prim_create(c, &pi->fwd, &d, 0, NULL, "pooling forward", err, errlen)) return -1;
    static const int fargs[] = {DNNL_ARG_SRC, DNNL_ARG_DST, DNNL_ARG_WORKSPACE};
    prim_bind(c, &pi->fwd, fargs, 3);
    size_t saved = 0, scratch = pi->fwd.scratch_bytes;
    if (op->train) {
        const dnnl_memory_desc_t *ws = dnnl_primitive_desc_query_md(pi->fwd.pd, dnnl_query_workspace_md, 0);
        if (ws && ws->ndims) saved = cpu_align64(dnnl_memory_desc_get_size(ws));
        dnnl_pooling_v2_desc_t b;
        DNNL_CHECK(dnnl_pooling_v2_backward_desc_init(&b, alg, &src, &dst, strides, kernel, dil, pl, pr));
        if (prim_create(c, &pi->bwd, &b, 0, pi->fwd.pd, "pooling backward", err, errlen)) return -1;
        static const int bargs[] = {DNNL_ARG_DIFF_DST, DNNL_ARG_WORKSPACE, DNNL_ARG_DIFF_SRC};
        prim_bind(c, &pi->bwd, bargs, 3);
        scratch = max_sz(scratch, pi->bwd.scratch_bytes);
    }
    op->saved_bytes = saved;
    op->scratch_bytes = scratch;
    return 0;
}

void cpu_pool_forward(void *ctx, tta_op *op, float *out, const float *inp) {
    cpu_ctx *c = ctx;
    pool_impl *pi = op->impl;
    prim_set(&pi->fwd, DNNL_ARG_SRC, inp);
    prim_set(&pi->fwd, DNNL_ARG_DST, out);
    if (prim_has(&pi->fwd, DNNL_ARG_WORKSPACE)) prim_set(&pi->fwd, DNNL_ARG_WORKSPACE, op->saved);
    prim_run(c, &pi->fwd, op->scratch);
}

void cpu_pool_backward(void *ctx, tta_op *op, float *dinp, const float *dout, const float *inp,
                       const float *out) {
    cpu_ctx *c = ctx;
    pool_impl *pi = op->impl;
    assert(op->train);
    prim_set(&pi->bwd, DNNL_ARG_DIFF_DST, dout);
    prim_set(&pi->bwd, DNNL_ARG_DIFF_SRC, dinp);
    if (prim_has(&pi->bwd, DNNL_ARG_WORKSPACE)) prim_set(&pi->bwd, DNNL_ARG_WORKSPACE, op->saved);
    prim_run(c, &pi->bwd, op->scratch);
}

void cpu_dnnl_release(cpu_ctx *c, tta_op *op) {
    if (!op->impl) return;
    switch (op->kind) {
    case TTA_OP_CONV: {
        conv_impl *ci = op->impl;
        prim_destroy(&ci->fwd);
        prim_destroy(&ci->bwd_d);
        prim_destroy(&ci->bwd_w);
        prim_destroy(&ci->reorder_wf);
        prim_destroy(&ci->reorder_wbd);
        prim_destroy(&ci->reorder_dw);
        prim_destroy(&ci->reorder_dout);
        break;
    }
    case TTA_OP_BN: {
        bn_impl *bi = op->impl;
        prim_destroy(&bi->fwd);
        prim_destroy(&bi->bwd);
        break;
    }
    default: {
        pool_impl *pi = op->impl;
        prim_destroy(&pi->fwd);
        prim_destroy(&pi->bwd);
        break;
    }
    }
    free(op->impl);
    op->impl = NULL;
}
