/* model.c: a trainable model built from a graph (model_spec.c) on a backend.
 *
 * Build: parameters laid out in one device allocation (and gradients in another, same
 * offsets), BN running statistics in a third; ReLUs fused into the conv/bn/linear/add that
 * produces their input when nothing else reads it; one feature-map buffer per tensor (all kept
 * for backward) and one gradient buffer per tensor that needs one (an add's single-consumer
 * input shares the add's gradient buffer: its gradient is the same values); one shared scratch
 * buffer; everything sized for the training batch and allocated once, so a step allocates
 * nothing. Ops (backend primitives) are built per batch size ("plans"), lazily for a smaller
 * last batch.
 *
 * The inference path (tta_model_evaluate) is a separate plan: eval-mode BN folded into the conv
 * before it, ReLU fused, no backward state, feature maps in a few buffers reused by liveness.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/buf.h"
#include "common/check.h"
#include "common/file.h"
#include "replay/model_internal.h"

typedef struct {
    int node;
    tta_op op;
} step;

typedef struct {
    int n, train;
    int threads; /* the backend's thread count its primitives were made for */
    step *steps;
    int nsteps;
    tta_op xent;
} plan;

typedef struct {
    int node;       /* the conv/bn/linear/... node */
    int bn_node;    /* eval-mode BN folded into this conv, or -1 */
    int relu_node;  /* ReLU fused, or -1 */
    int in[2];      /* estep indices of the inputs; -1 = the input batch */
    int last_use;   /* the last estep that reads this one's output */
    int buf;        /* buffer index of the output */
    float *wf, *bf; /* folded conv weights and bias (device), when bn_node >= 0 */
    tta_op op;
} estep;

typedef struct {
    int n;
    estep *steps;
    int nsteps;
    float **bufs;
    size_t *buf_floats;
    int nbufs;
    float *input;
    int32_t *labels;
    float *result;
    void *scratch;
    int first; /* 1: the first step flattens the input, which is uploaded into its output (skipped) */
    int chain; /* 1: steps first.. are a chain of linear layers run row-parallel, each with its own buffer */
} eval_plan;

typedef struct {
    void *p;
    size_t bytes;
    tta_mem_kind kind;
} allocation;

struct tta_model {
    tta_graph g;
    tta_backend *be;
    void *ctx;
    int batch, eval_batch;
    uint64_t seed;
    /* parameters */
    tta_param_info *pinfo;
    int npinfo;
    tta_buffer_info *binfo;
    int nbinfo;
    size_t nparams, nbuffers;
    float *params, *grads, *buffers;
    long *w_off, *b_off, *rm_off, *rv_off; /* per node, floats; -1 none (bn: gamma, beta) */
    /* graph analysis */
    int *fused_into; /* relu (or max pool) node -> the node it is fused into; -1 */
    int *fused_relu; /* node -> the relu node fused into it; -1 */
    int *fused_pool; /* bn node -> the max pool fused into it after its ReLU (bn_pool_*); -1 */
    int *fused_add;  /* bn node -> the residual add fused into it after its ReLU (bn_relu_add_*); -1 */
    int *add_skip;   /* bn node with a fused add -> the add's other input node */
    int *tensor_of;  /* node -> the node whose buffer holds its output */
    int *consumers;  /* tensor -> reads by ops */
    int *need_grad;  /* tensor -> gradient needed (a parameter is upstream) */
    /* training buffers, sized for batch */
    float *act_in;
    float **act, **grad;
    int *grad_alias; /* tensor -> 1 if its gradient buffer is another tensor's */
    float *tmp;      /* gradient accumulation temporary */
    int32_t *labels;
    float *result;
    void *scratch;
    size_t scratch_bytes;
    plan **plans; /* one per (batch, train, threads): oneDNN fixes a primitive's threads at creation */
    int threads;  /* the backend's compute threads now (tta_model_set_threads); 0: its default */
    int nplans;
    size_t plans_cap;
    plan *last;
    int last_n;
    uint64_t dropout_step, last_step;
    int *written; /* backward bookkeeping, per tensor */
    /* inference path */
    eval_plan ev;
    /* accounting and stats */
    size_t mem[TTA_MEM_COUNT];
    allocation *allocs;
    size_t nallocs, allocs_cap;
    tta_layer_stats *stats;
    char **fused_names;
    int profiling;
    tta_grad_hook grad_hook; /* called as parameter gradients become final (data parallel) */
    void *grad_hook_ctx;
    const tta_param_update *update; /* fused into the linear layers' backward (NULL: none) */
};

static void *m_alloc(tta_model *m, size_t bytes, tta_mem_kind kind) {
    if (!bytes) bytes = 4; /* an empty tensor still gets a valid pointer, counted as allocated */
    void *p = m->be->ops->alloc(m->ctx, bytes);
    growArray(m->allocs, &m->allocs_cap, m->nallocs + 1);
    m->allocs[m->nallocs++] = (allocation){p, bytes, kind};
    m->mem[kind] += bytes;
    return p;
}

static void m_free(tta_model *m, void *p) {
    for (size_t i = 0; i < m->nallocs; i++) {
        if (m->allocs[i].p != p) continue;
        m->mem[m->allocs[i].kind] -= m->allocs[i].bytes;
        m->be->ops->free(m->ctx, p);
        m->allocs[i] = m->allocs[--m->nallocs];
        return;
    }
    assert(!"freeing memory the model did not allocate");
}

static size_t node_count(const tta_node *n) { return (size_t)n->c * n->h * n->w; }
static size_t in_count(const tta_model *m, int node) {
    return node < 0 ? (size_t)m->g.in_c * m->g.in_h * m->g.in_w : node_count(&m->g.nodes[node]);
}
/* Floats per sample of tensor t's buffer: its host node's output, or the pooled map where a max
 * pool is fused into it. */
static size_t tensor_count(const tta_model *m, int t) {
    return node_count(&m->g.nodes[m->fused_pool[t] >= 0 ? m->fused_pool[t] : t]);
}
static tta_shape node_shape(const tta_model *m, int node, int n) {
    if (node < 0) return (tta_shape){n, m->g.in_c, m->g.in_h, m->g.in_w};
    const tta_node *nd = &m->g.nodes[node];
    return (tta_shape){n, nd->c, nd->h, nd->w};
}

/* ------------------------------------------------------------------------------------------ */
/* Parameters                                                                                   */

static void add_param(tta_model *m, size_t *cap, int node, const char *suffix, size_t count,
                      tta_param_kind kind, int fan_in, long *off) {
    growArray(m->pinfo, cap, (size_t)m->npinfo + 1);
    tta_param_info *p = &m->pinfo[m->npinfo++];
    snprintf(p->name, sizeof p->name, "%.47s.%.12s", m->g.nodes[node].name, suffix);
    p->offset = m->nparams;
    p->count = count;
    p->kind = kind;
    p->fan_in = fan_in;
    *off = (long)m->nparams;
    /* keep each tensor 16-float aligned so vector kernels never split a cache line oddly */
    m->nparams += (count + 15) / 16 * 16;
}

static void layout_params(tta_model *m) {
    size_t pcap = 0, bcap = 0;
    for (int i = 0; i < m->g.nnodes; i++) {
        tta_node *n = &m->g.nodes[i];
        m->w_off[i] = m->b_off[i] = m->rm_off[i] = m->rv_off[i] = -1;
        int C = n->in[0] < 0 ? m->g.in_c : m->g.nodes[n->in[0]].c;
        size_t incount = in_count(m, n->in[0]);
        if (n->kind == TTA_OP_CONV) {
            int fan = C * n->kernel * n->kernel;
            add_param(m, &pcap, i, "weight", (size_t)n->c * fan, TTA_PARAM_WEIGHT, fan, &m->w_off[i]);
            if (n->bias) add_param(m, &pcap, i, "bias", n->c, TTA_PARAM_BIAS, fan, &m->b_off[i]);
        } else if (n->kind == TTA_OP_LINEAR) {
            int fan = (int)incount;
            add_param(m, &pcap, i, "weight", (size_t)n->c * fan, TTA_PARAM_WEIGHT, fan, &m->w_off[i]);
            if (n->bias) add_param(m, &pcap, i, "bias", n->c, TTA_PARAM_BIAS, fan, &m->b_off[i]);
        } else if (n->kind == TTA_OP_BN) {
            add_param(m, &pcap, i, "weight", n->c, TTA_PARAM_BN_SCALE, 0, &m->w_off[i]);
            add_param(m, &pcap, i, "bias", n->c, TTA_PARAM_BN_SHIFT, 0, &m->b_off[i]);
            for (int k = 0; k < 2; k++) {
                growArray(m->binfo, &bcap, (size_t)m->nbinfo + 1);
                tta_buffer_info *b = &m->binfo[m->nbinfo++];
                snprintf(b->name, sizeof b->name, "%.47s.%.12s", n->name, k ? "running_var" : "running_mean");
                b->offset = m->nbuffers;
                b->count = n->c;
                (k ? m->rv_off : m->rm_off)[i] = (long)m->nbuffers;
                m->nbuffers += ((size_t)n->c + 15) / 16 * 16;
            }
        }
    }
}

static uint64_t rng_next(uint64_t *s) {
    *s += 0x9e3779b97f4a7c15ULL;
    return tta_mix64(*s);
}

static uint64_t name_hash(const char *s) {
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

void tta_model_init_params(tta_model *m, uint64_t seed) {
    float *hp = callocCheck(m->nparams ? m->nparams : 1, sizeof(float));
    for (int i = 0; i < m->npinfo; i++) {
        tta_param_info *p = &m->pinfo[i];
        float *dst = hp + p->offset;
        if (p->kind == TTA_PARAM_BN_SCALE) {
            for (size_t k = 0; k < p->count; k++) dst[k] = 1.0f;
            continue;
        }
        if (p->kind == TTA_PARAM_BN_SHIFT) continue;
        /* kaiming_uniform(a=sqrt(5)): bound = sqrt(6 / ((1 + a^2) fan_in)) = 1/sqrt(fan_in), the
         * same bound PyTorch uses for the bias. Each tensor has its own stream (seeded by its
         * name) so adding a layer does not change the others' initial values. */
        double bound = 1.0 / sqrt((double)p->fan_in);
        uint64_t s = tta_mix64(seed ^ name_hash(p->name));
        for (size_t k = 0; k < p->count; k++) {
            double u = (double)(rng_next(&s) >> 11) * 0x1.0p-53;
            dst[k] = (float)((2.0 * u - 1.0) * bound);
        }
    }
    m->be->ops->upload(m->ctx, m->params, hp, m->nparams * sizeof(float));
    free(hp);
    float *hb = callocCheck(m->nbuffers ? m->nbuffers : 1, sizeof(float));
    for (int i = 0; i < m->nbinfo; i++)
        if (strstr(m->binfo[i].name, ".running_var"))
            for (size_t k = 0; k < m->binfo[i].count; k++) hb[m->binfo[i].offset + k] = 1.0f;
    m->be->ops->upload(m->ctx, m->buffers, hb, m->nbuffers * sizeof(float));
    free(hb);
}

static int find_tensor(tta_model *m, const char *name, float **base, size_t *off, size_t *count) {
    for (int i = 0; i < m->npinfo; i++)
        if (strcmp(m->pinfo[i].name, name) == 0) {
            *base = m->params;
            *off = m->pinfo[i].offset;
            *count = m->pinfo[i].count;
            return 0;
        }
    for (int i = 0; i < m->nbinfo; i++)
        if (strcmp(m->binfo[i].name, name) == 0) {
            *base = m->buffers;
            *off = m->binfo[i].offset;
            *count = m->binfo[i].count;
            return 0;
        }
    return -1;
}

int tta_model_set_tensor(tta_model *m, const char *name, const float *src, size_t count) {
    float *base;
    size_t off, n;
    if (find_tensor(m, name, &base, &off, &n) || n != count) return -1;
    m->be->ops->upload(m->ctx, base + off, src, count * sizeof(float));
    return 0;
}

int tta_model_get_tensor(tta_model *m, const char *name, float *dst, size_t count) {
    float *base;
    size_t off, n;
    if (find_tensor(m, name, &base, &off, &n) || n != count) return -1;
    m->be->ops->download(m->ctx, dst, base + off, count * sizeof(float));
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Analysis: fusion, tensors, gradients                                                         */

static int fusable_into(tta_op_kind k) {
    return k == TTA_OP_CONV || k == TTA_OP_BN || k == TTA_OP_LINEAR || k == TTA_OP_ADD;
}

static void analyse(tta_model *m) {
    int N = m->g.nnodes;
    int *raw = callocCheck(N, sizeof(int)); /* node-level consumer counts */
    for (int i = 0; i < N; i++)
        for (int k = 0; k < m->g.nodes[i].nin; k++)
            if (m->g.nodes[i].in[k] >= 0) raw[m->g.nodes[i].in[k]]++;
    for (int i = 0; i < N; i++) {
        m->fused_into[i] = m->fused_relu[i] = m->fused_pool[i] = m->fused_add[i] = m->add_skip[i] = -1;
        m->tensor_of[i] = i;
    }
    for (int i = 0; i < N; i++) {
        tta_node *n = &m->g.nodes[i];
        int p = n->in[0];
        if (n->kind == TTA_OP_RELU && p >= 0 && raw[p] == 1 && fusable_into(m->g.nodes[p].kind) &&
            m->fused_relu[p] < 0) {
            m->fused_into[i] = p;
            m->fused_relu[p] = i;
            m->tensor_of[i] = p;
        }
    }
    /* a 2x2 stride-2 max pool reading only a BN's fused ReLU, where the backend has the op */
    for (int i = 0; i < N && m->be->ops->bn_pool_supported; i++) {
        tta_node *n = &m->g.nodes[i];
        int r = n->in[0], b = r >= 0 ? m->fused_into[r] : -1;
        if (n->kind != TTA_OP_MAXPOOL || n->kernel != 2 || n->stride != 2 || n->pad != 0 || b < 0 || raw[r] != 1 ||
            m->g.nodes[b].kind != TTA_OP_BN || m->fused_pool[b] >= 0)
            continue;
        if (!m->be->ops->bn_pool_supported(m->ctx, node_shape(m, b, 1))) continue;
        m->fused_into[i] = b;
        m->fused_pool[b] = i;
        m->tensor_of[i] = b;
    }
    /* a residual add (without a ReLU of its own) reading only a BN's fused ReLU (no pool) and a
     * tensor computed before that BN, where the backend has the op: the BN writes relu(z) + skip */
    for (int i = 0; i < N && m->be->ops->bn_relu_add_supported; i++) {
        tta_node *n = &m->g.nodes[i];
        if (n->kind != TTA_OP_ADD || m->fused_relu[i] >= 0 || n->nin != 2) continue;
        for (int k = 0; k < 2; k++) {
            int r = n->in[k], x = n->in[1 - k], b = r >= 0 ? m->fused_into[r] : -1;
            if (b < 0 || x < 0 || raw[r] != 1 || m->g.nodes[b].kind != TTA_OP_BN || m->fused_relu[b] != r ||
                m->fused_pool[b] >= 0 || m->fused_add[b] >= 0 || m->tensor_of[x] >= b)
                continue;
            if (!m->be->ops->bn_relu_add_supported(m->ctx, node_shape(m, b, 1))) continue;
            m->fused_into[i] = b;
            m->fused_add[b] = i;
            m->add_skip[b] = x;
            m->tensor_of[i] = b;
            break;
        }
    }
    free(raw);
    for (int i = 0; i < N; i++) m->consumers[i] = 0;
    for (int i = 0; i < N; i++) {
        if (m->fused_into[i] >= 0) continue;
        for (int k = 0; k < m->g.nodes[i].nin; k++) {
            int in = m->g.nodes[i].in[k];
            if (in >= 0) m->consumers[m->tensor_of[in]]++;
        }
        if (m->add_skip[i] >= 0) m->consumers[m->tensor_of[m->add_skip[i]]]++; /* the fused add's read */
    }
    for (int i = 0; i < N; i++) {
        tta_node *n = &m->g.nodes[i];
        int ng = m->w_off[i] >= 0;
        for (int k = 0; k < n->nin; k++)
            if (n->in[k] >= 0 && m->need_grad[m->tensor_of[n->in[k]]]) ng = 1;
        m->need_grad[i] = ng;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Plans                                                                                        */

static void op_from_node(const tta_model *m, int i, int n, int train, tta_op *op) {
    const tta_node *nd = &m->g.nodes[i];
    memset(op, 0, sizeof *op);
    op->kind = nd->kind;
    op->train = train;
    op->in = node_shape(m, nd->in[0], n);
    op->out = node_shape(m, i, n);
    op->kernel = nd->kernel;
    op->stride = nd->stride;
    op->pad = nd->pad;
    op->bias = nd->bias;
    op->pad_front = nd->pad_front;
    op->eps = nd->eps;
    op->momentum = nd->momentum;
    op->p = nd->p;
    op->factor = nd->factor;
    op->relu = m->fused_relu[i] >= 0;
    op->pool = m->fused_pool[i] >= 0;
    op->add = m->fused_add[i] >= 0;
    if (op->pool) op->out = node_shape(m, m->fused_pool[i], n);
    for (int k = 0; k < nd->nin; k++)
        if (nd->in[k] >= 0 && m->need_grad[m->tensor_of[nd->in[k]]]) op->need_dinp = 1;
}

static void xent_op(const tta_model *m, int n, tta_op *op) {
    memset(op, 0, sizeof *op);
    op->kind = TTA_OP_XENT;
    op->in = op->out = (tta_shape){n, m->g.nodes[m->g.nnodes - 1].c, 1, 1};
    op->smoothing = m->g.label_smoothing;
}

/* Makes room for scratch bytes in the shared scratch buffer, re-pointing every op. */
static void ensure_scratch(tta_model *m, size_t bytes) {
    if (bytes <= m->scratch_bytes) return;
    if (m->scratch) m_free(m, m->scratch);
    m->scratch = m_alloc(m, bytes, TTA_MEM_WORKSPACE);
    m->scratch_bytes = bytes;
    for (int p = 0; p < m->nplans; p++) {
        for (int s = 0; s < m->plans[p]->nsteps; s++) m->plans[p]->steps[s].op.scratch = m->scratch;
        m->plans[p]->xent.scratch = m->scratch;
    }
}

static int init_op(tta_model *m, tta_op *op, const char *name, tta_mem_kind saved_kind, char *err,
                   size_t errlen) {
    char e[256];
    if (m->be->ops->op_init(m->ctx, op, e, sizeof e)) {
        snprintf(err, errlen, "layer \"%s\": %s", name, e);
        return -1;
    }
    op->saved = op->saved_bytes ? m_alloc(m, op->saved_bytes, saved_kind) : NULL;
    return 0;
}

static void release_op(tta_model *m, tta_op *op) {
    if (op->saved) m_free(m, op->saved);
    op->saved = NULL;
    m->be->ops->op_release(m->ctx, op);
}

static plan *get_plan(tta_model *m, int n, int train, char *err, size_t errlen) {
    for (int i = 0; i < m->nplans; i++)
        if (m->plans[i]->n == n && m->plans[i]->train == train && m->plans[i]->threads == m->threads)
            return m->plans[i];
    plan *p = callocCheck(1, sizeof *p);
    p->n = n;
    p->train = train;
    p->threads = m->threads;
    p->steps = callocCheck(m->g.nnodes, sizeof(step));
    size_t scratch = 0;
    int rc = 0;
    for (int i = 0; i < m->g.nnodes && !rc; i++) {
        if (m->fused_into[i] >= 0) continue;
        step *s = &p->steps[p->nsteps];
        s->node = i;
        op_from_node(m, i, n, train, &s->op);
        if (init_op(m, &s->op, m->g.nodes[i].name, TTA_MEM_SAVED, err, errlen)) {
            rc = -1;
            break;
        }
        p->nsteps++;
        if (s->op.scratch_bytes > scratch) scratch = s->op.scratch_bytes;
        if (train && n == m->batch) m->stats[i].algorithm = s->op.algorithm;
    }
    if (!rc) {
        xent_op(m, n, &p->xent);
        rc = init_op(m, &p->xent, "loss", TTA_MEM_SAVED, err, errlen);
        if (!rc && p->xent.scratch_bytes > scratch) scratch = p->xent.scratch_bytes;
    }
    if (rc) {
        for (int s = 0; s < p->nsteps; s++) release_op(m, &p->steps[s].op);
        free(p->steps);
        free(p);
        return NULL;
    }
    growArray(m->plans, &m->plans_cap, (size_t)m->nplans + 1);
    m->plans[m->nplans++] = p;
    for (int s = 0; s < p->nsteps; s++) p->steps[s].op.scratch = m->scratch;
    p->xent.scratch = m->scratch;
    ensure_scratch(m, scratch);
    return p;
}

/* ------------------------------------------------------------------------------------------ */
/* Forward and backward                                                                         */

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static const float *tensor_in(tta_model *m, int node) {
    return node < 0 ? m->act_in : m->act[m->tensor_of[node]];
}

#define P(off) (m->params + (off))
#define G(off) (m->grads + (off))
#define BUF(off) (m->buffers + (off))

static void forward_step(tta_model *m, step *s, int train) {
    tta_backend *be = m->be;
    void *c = m->ctx;
    int i = s->node;
    const tta_node *nd = &m->g.nodes[i];
    tta_op *op = &s->op;
    float *out = m->act[m->tensor_of[i]];
    const float *x = tensor_in(m, nd->in[0]);
    switch (nd->kind) {
    case TTA_OP_CONV:
        be->ops->conv_prepare(c, op, P(m->w_off[i]), nd->bias ? P(m->b_off[i]) : NULL);
        be->ops->conv_forward(c, op, out, x);
        break;
    case TTA_OP_BN:
        if (op->pool)
            be->ops->bn_pool_forward(c, op, out, x, P(m->w_off[i]), P(m->b_off[i]), BUF(m->rm_off[i]), BUF(m->rv_off[i]));
        else if (op->add)
            be->ops->bn_relu_add_forward(c, op, out, x, tensor_in(m, m->add_skip[i]), P(m->w_off[i]), P(m->b_off[i]),
                                         BUF(m->rm_off[i]), BUF(m->rv_off[i]));
        else
            be->ops->bn_forward(c, op, out, x, P(m->w_off[i]), P(m->b_off[i]), BUF(m->rm_off[i]), BUF(m->rv_off[i]));
        break;
    case TTA_OP_RELU: be->ops->relu_forward(c, op, out, x); break;
    case TTA_OP_MAXPOOL:
    case TTA_OP_AVGPOOL:
    case TTA_OP_GAP:
    case TTA_OP_GMP: be->ops->pool_forward(c, op, out, x); break;
    case TTA_OP_LINEAR:
        be->ops->linear_forward(c, op, out, x, P(m->w_off[i]), nd->bias ? P(m->b_off[i]) : NULL);
        break;
    case TTA_OP_ADD: be->ops->add_forward(c, op, out, x, tensor_in(m, nd->in[1])); break;
    case TTA_OP_FLATTEN: be->ops->flatten_forward(c, op, out, x); break;
    case TTA_OP_DROPOUT:
        if (train)
            be->ops->dropout_forward(c, op, out, x, m->seed, m->last_step);
        else
            be->ops->copy(c, out, x, tta_shape_count(op->out));
        break;
    case TTA_OP_SCALE: be->ops->scale_forward(c, op, out, x); break;
    case TTA_OP_PAD_SHORTCUT: be->ops->shortcut_forward(c, op, out, x); break;
    default: assert(!"unexpected op in a plan");
    }
}

/* 1 when node flattens the model's input and nothing else reads the input: the batch is then
 * uploaded straight into the node's output (flatten orders a tensor as NCHW host memory is, so
 * uploading the batch as that [n][C*H*W] tensor is its flatten on every backend), one copy of
 * the batch fewer, and the node is skipped (its backward never runs: the input has no gradient). */
static int flattens_input(const tta_model *m, int node) {
    if (m->g.nodes[node].kind != TTA_OP_FLATTEN || m->g.nodes[node].in[0] != -1) return 0;
    for (int i = 0; i < m->g.nnodes; i++)
        for (int k = 0; k < m->g.nodes[i].nin; k++)
            if (i != node && m->g.nodes[i].in[k] == -1) return 0;
    return 1;
}

int tta_model_forward(tta_model *m, const float *x, const int32_t *labels, int n, int train,
                      tta_step_result *res) {
    char err[256];
    if (n <= 0 || n > m->batch) {
        fprintf(stderr, "tta_model_forward: batch of %d outside 1..%d\n", n, m->batch);
        return -1;
    }
    plan *p = get_plan(m, n, train, err, sizeof err);
    if (!p) {
        fprintf(stderr, "tta_model_forward: %s\n", err);
        return -1;
    }
    tta_backend *be = m->be;
    int first = p->nsteps > 0 && flattens_input(m, p->steps[0].node);
    if (first)
        be->ops->tensor_upload(m->ctx, m->act[m->tensor_of[p->steps[0].node]], x, p->steps[0].op.out);
    else
        be->ops->tensor_upload(m->ctx, m->act_in, x, node_shape(m, -1, n));
    be->ops->upload(m->ctx, m->labels, labels, sizeof(int32_t) * n);
    if (train) m->last_step = m->dropout_step++;
    for (int s = first; s < p->nsteps; s++) {
        double t0 = m->profiling ? now_s() : 0;
        forward_step(m, &p->steps[s], train);
        if (m->profiling) {
            be->ops->sync(m->ctx);
            tta_layer_stats *st = &m->stats[p->steps[s].node];
            st->time_fwd += now_s() - t0;
            st->calls_fwd++;
        }
    }
    const float *logits = m->act[m->tensor_of[m->g.nnodes - 1]];
    be->ops->xent_forward(m->ctx, &p->xent, m->result, logits, m->labels);
    float r[2];
    be->ops->download(m->ctx, r, m->result, sizeof r);
    if (res) {
        res->loss = r[0] / n;
        res->correct = (int)r[1];
    }
    m->last = p;
    m->last_n = n;
    return 0;
}

void tta_model_logits(tta_model *m, float *dst) {
    assert(m->last);
    m->be->ops->download(m->ctx, dst, m->act[m->tensor_of[m->g.nnodes - 1]],
                    sizeof(float) * m->last_n * m->g.nodes[m->g.nnodes - 1].c);
}

/* Whether the add at node a, whose input tensor t already shares the add's gradient buffer, can
 * hand that same buffer to its other input tensor x as well, instead of copying the gradient into
 * x's own buffer in the backward. The buffer then holds dL/d(add) until t's producer has read it
 * and dL/dx after x's other consumers have accumulated into it, so it needs: x's gradient not yet
 * placed (t != x); t's producer a batch norm on a backend whose bn_backward leaves dout as it is
 * (bn_backward_keeps_dout; a fused ReLU may mask it in place elsewhere); and every other consumer
 * of x before t's producer in the plan, so that their backward, which accumulates into x's
 * gradient, runs after t's producer has read dL/d(add). The gradients are the same bits as with
 * the copy: the same values are summed in the same order. */
static int add_passes_through(const tta_model *m, int a, int x, int t) {
    assert(m->g.nodes[a].kind == TTA_OP_ADD && m->tensor_of[t] == t);
    if (x == t || m->grad[x] || !m->need_grad[x] || !m->be->ops->bn_backward_keeps_dout) return 0;
    if (m->g.nodes[t].kind != TTA_OP_BN) return 0;
    for (int j = 0; j < m->g.nnodes; j++) {
        if (j == a || m->tensor_of[j] != j) continue; /* fused nodes run within their host */
        for (int k = 0; k < m->g.nodes[j].nin; k++) {
            int in = m->g.nodes[j].in[k];
            if (in >= 0 && m->tensor_of[in] == x && j > t) return 0;
        }
    }
    return 1;
}

/* Where the backward of a consumer writes the gradient for input tensor t: straight into
 * t's buffer the first time, else into tmp, to be accumulated. */
static float *grad_target(tta_model *m, int t) {
    return m->written[t] ? m->tmp : m->grad[t];
}

static void grad_done(tta_model *m, int t, float *dst, size_t count) {
    if (dst == m->tmp)
        m->be->ops->accumulate(m->ctx, m->grad[t], m->tmp, count);
    else
        m->written[t] = 1;
}

/* The backward of an add for its input node `in` (-1: the model's input): dout, the gradient of the
 * add's output, becomes that tensor's gradient: nothing to do where the two share a buffer (the
 * tensor's first gradient), else copied in (the first) or accumulated (the next ones). */
static void add_grad_to(tta_model *m, int in, float *dout, size_t cnt) {
    int t = in >= 0 ? m->tensor_of[in] : -1;
    if (t < 0 || !m->need_grad[t]) return;
    if (m->grad[t] == dout && !m->written[t]) {
        m->written[t] = 1; /* shares this add's gradient buffer */
    } else if (!m->written[t]) {
        m->be->ops->copy(m->ctx, m->grad[t], dout, cnt);
        m->written[t] = 1;
    } else {
        m->be->ops->accumulate(m->ctx, m->grad[t], dout, cnt);
    }
}

static void backward_step(tta_model *m, step *s) {
    tta_backend *be = m->be;
    void *c = m->ctx;
    int i = s->node;
    const tta_node *nd = &m->g.nodes[i];
    tta_op *op = &s->op;
    int t = m->tensor_of[i];
    if (!m->need_grad[t]) return; /* nothing upstream has parameters */
    assert(m->written[t]);
    float *dout = m->grad[t];
    const float *out = m->act[t];
    int in = nd->in[0];
    int ti = in >= 0 ? m->tensor_of[in] : -1;
    const float *x = tensor_in(m, in);
    int want = ti >= 0 && m->need_grad[ti];
    size_t cnt = tta_shape_count(op->in);
    float *dx = want ? grad_target(m, ti) : NULL;
    switch (nd->kind) {
    case TTA_OP_CONV:
        be->ops->conv_backward(c, op, dx, G(m->w_off[i]), nd->bias ? G(m->b_off[i]) : NULL, dout, x, out);
        break;
    case TTA_OP_BN:
        /* a fused add first hands its gradient to skip's tensor, as its own step did (bn_backward
         * reads dout and leaves it as it is) */
        if (op->add) add_grad_to(m, m->add_skip[i], dout, tta_shape_count(op->out));
        if (op->pool)
            be->ops->bn_pool_backward(c, op, dx, G(m->w_off[i]), G(m->b_off[i]), dout, x, P(m->w_off[i]));
        else
            be->ops->bn_backward(c, op, dx, G(m->w_off[i]), G(m->b_off[i]), dout, x, out, P(m->w_off[i]),
                                 P(m->b_off[i]));
        break;
    case TTA_OP_RELU: be->ops->relu_backward(c, op, dx, dout, out); break;
    case TTA_OP_MAXPOOL:
    case TTA_OP_AVGPOOL:
    case TTA_OP_GAP:
    case TTA_OP_GMP: be->ops->pool_backward(c, op, dx, dout, x, out); break;
    case TTA_OP_LINEAR:
        op->update = be->ops->fuses_linear_update ? m->update : NULL;
        op->w_off = m->w_off[i];
        op->b_off = m->b_off[i];
        be->ops->linear_backward(c, op, dx, G(m->w_off[i]), nd->bias ? G(m->b_off[i]) : NULL, dout, x,
                            P(m->w_off[i]), out);
        break;
    case TTA_OP_ADD:
        if (op->relu) be->ops->relu_backward(c, op, dout, dout, out);
        for (int k = 0; k < 2; k++) add_grad_to(m, nd->in[k], dout, cnt);
        return;
    case TTA_OP_FLATTEN: be->ops->flatten_backward(c, op, dx, dout); break;
    case TTA_OP_DROPOUT: be->ops->dropout_backward(c, op, dx, dout, m->seed, m->last_step); break;
    case TTA_OP_SCALE: be->ops->scale_backward(c, op, dx, dout); break;
    case TTA_OP_PAD_SHORTCUT: be->ops->shortcut_backward(c, op, dx, dout); break;
    default: assert(!"unexpected op in a plan");
    }
    if (want) grad_done(m, ti, dx, cnt);
}

/* The backward of step sa, a linear layer whose input is the output of step sb = sa - 1, a linear
 * layer (with its ReLU, if fused), with a's the first gradient written to that output (a its only reader), both updates
 * fused, in one linear_backward_pair call; returns 1, or 0 (nothing done) where that does not hold
 * or the backend has no such call. Not when profiling (each layer's time is its own call's) nor
 * with a grad_hook (set with an exchange, which turns the fused update off anyway). */
static int backward_linear_pair(tta_model *m, step *sa, step *sb) {
    tta_backend *be = m->be;
    const tta_node *na = &m->g.nodes[sa->node], *nb = &m->g.nodes[sb->node];
    if (!be->ops->linear_backward_pair || !m->update || m->profiling || m->grad_hook) return 0;
    if (na->kind != TTA_OP_LINEAR || nb->kind != TTA_OP_LINEAR || na->in[0] < 0) return 0;
    int ta = m->tensor_of[sa->node], tb = m->tensor_of[sb->node];
    if (m->tensor_of[na->in[0]] != tb) return 0; /* (a's input node may be b's fused ReLU: b's tensor) */
    if (!m->need_grad[ta] || !m->need_grad[tb] || m->written[tb] || sb->op.need_dinp) return 0;
    assert(m->written[ta]);
    tta_op *opa = &sa->op, *opb = &sb->op;
    opa->update = opb->update = m->update;
    opa->w_off = m->w_off[sa->node], opa->b_off = m->b_off[sa->node];
    opb->w_off = m->w_off[sb->node], opb->b_off = m->b_off[sb->node];
    float *dxa = m->grad[tb];
    tta_linear_grad a = {opa, dxa, G(m->w_off[sa->node]), na->bias ? G(m->b_off[sa->node]) : NULL, m->grad[ta],
                         tensor_in(m, na->in[0]), P(m->w_off[sa->node]), m->act[ta]};
    tta_linear_grad b = {opb, NULL, G(m->w_off[sb->node]), nb->bias ? G(m->b_off[sb->node]) : NULL, dxa,
                         tensor_in(m, nb->in[0]), P(m->w_off[sb->node]), m->act[tb]};
    be->ops->linear_backward_pair(m->ctx, &a, &b);
    m->written[tb] = 1;
    return 1;
}

void tta_model_backward(tta_model *m) {
    plan *p = m->last;
    assert(p && p->train && "backward needs a training forward");
    tta_backend *be = m->be;
    memset(m->written, 0, sizeof(int) * m->g.nnodes);
    int tl = m->tensor_of[m->g.nnodes - 1];
    be->ops->xent_backward(m->ctx, &p->xent, m->grad[tl], m->act[tl], m->labels);
    m->written[tl] = 1;
    for (int s = p->nsteps - 1; s >= 0; s--) {
        if (s > 0 && backward_linear_pair(m, &p->steps[s], &p->steps[s - 1])) {
            s--; /* both layers done */
            continue;
        }
        double t0 = m->profiling ? now_s() : 0;
        backward_step(m, &p->steps[s]);
        if (m->grad_hook) {
            int i = p->steps[s].node;
            if (m->w_off[i] >= 0) m->grad_hook(m->grad_hook_ctx, (size_t)m->w_off[i]);
            if (m->b_off[i] >= 0) m->grad_hook(m->grad_hook_ctx, (size_t)m->b_off[i]);
        }
        if (m->profiling) {
            be->ops->sync(m->ctx);
            tta_layer_stats *st = &m->stats[p->steps[s].node];
            st->time_bwd += now_s() - t0;
            st->calls_bwd++;
        }
    }
}

void tta_model_set_dropout_step(tta_model *m, uint64_t step) { m->dropout_step = step; }

int tta_model_set_threads(tta_model *m, int threads) {
    assert(threads >= 1);
    if (!m->be->ops->set_threads) return -1;
    if (threads == m->threads) return 0;
    m->be->ops->set_threads(m->ctx, threads);
    m->threads = threads;
    return 0;
}

int tta_model_threads(const tta_model *m) { return m->threads; }

void tta_model_set_grad_hook(tta_model *m, tta_grad_hook hook, void *ctx) {
    m->grad_hook = hook;
    m->grad_hook_ctx = ctx;
}

int tta_model_set_update(tta_model *m, const tta_param_update *u, unsigned char *fused) {
    m->update = m->be->ops->fuses_linear_update ? u : NULL;
    int count = 0;
    for (int k = 0; k < m->npinfo; k++) {
        int on = 0;
        for (int i = 0; m->update && i < m->g.nnodes && !on; i++)
            on = m->g.nodes[i].kind == TTA_OP_LINEAR &&
                 ((long)m->pinfo[k].offset == m->w_off[i] || (long)m->pinfo[k].offset == m->b_off[i]);
        if (fused) fused[k] = (unsigned char)on;
        count += on;
    }
    return count;
}

/* ------------------------------------------------------------------------------------------ */
/* Inference path                                                                               */

static int flattens_input(const tta_model *m, int node);
static int linear_chain(const tta_model *m, const eval_plan *ev, int first);

/* The inference path's buffers: each step's e->buf, ev->nbufs, and need[b] the floats of buffer b.
 * Greedy: the best-fitting free buffer, else a new one; a row-parallel chain (ev->chain) gets one
 * buffer per step, since a thread's rows of a buffer reused by a wider tensor would cover rows
 * another thread still reads. */
static void assign_buffers(eval_plan *ev, size_t *need) {
    int *busy = callocCheck(ev->nsteps + 1, sizeof(int));
    ev->buf_floats = callocCheck(ev->nsteps + 1, sizeof(size_t));
    for (int s = 0; s < ev->nsteps; s++) {
        estep *e = &ev->steps[s];
        size_t want = tta_shape_count(e->op.out);
        if (ev->chain) {
            need[ev->nbufs] = want;
            e->buf = ev->nbufs++;
            continue;
        }
        int best = -1;
        for (int b = 0; b < ev->nbufs; b++)
            if (!busy[b] && (best < 0 || need[b] < need[best]) && need[b] >= want) best = b;
        if (best < 0)
            for (int b = 0; b < ev->nbufs; b++) /* grow a free one rather than add one */
                if (!busy[b] && (best < 0 || need[b] > need[best])) best = b;
        if (best < 0) best = ev->nbufs++;
        if (need[best] < want) need[best] = want;
        busy[best] = 1;
        e->buf = best;
        for (int k = 0; k < 2; k++) {
            int j = e->in[k];
            if (j >= 0 && ev->steps[j].last_use == s) busy[ev->steps[j].buf] = 0;
        }
        if (e->last_use == s) busy[best] = 0; /* nothing reads it (cannot happen after validation) */
    }
    free(busy);
}

static int build_eval(tta_model *m, char *err, size_t errlen) {
    eval_plan *ev = &m->ev;
    int N = m->g.nnodes, n = m->eval_batch;
    ev->n = n;
    ev->steps = callocCheck(N, sizeof(estep));
    int *val = mallocCheck(sizeof(int) * N); /* node -> estep holding its value; -1 = input */
    int *raw = callocCheck(N, sizeof(int));
    for (int i = 0; i < N; i++)
        for (int k = 0; k < m->g.nodes[i].nin; k++)
            if (m->g.nodes[i].in[k] >= 0) raw[m->g.nodes[i].in[k]]++;
    for (int i = 0; i < N; i++) {
        const tta_node *nd = &m->g.nodes[i];
        int src = nd->in[0] >= 0 ? val[nd->in[0]] : -1;
        int pn = nd->in[0];
        if (nd->kind == TTA_OP_DROPOUT) { /* identity in eval */
            val[i] = src;
            continue;
        }
        if (nd->kind == TTA_OP_BN && pn >= 0 && m->g.nodes[pn].kind == TTA_OP_CONV && raw[pn] == 1 &&
            src >= 0 && ev->steps[src].node == pn && ev->steps[src].bn_node < 0 && ev->steps[src].relu_node < 0) {
            ev->steps[src].bn_node = i;
            val[i] = src;
            continue;
        }
        if (nd->kind == TTA_OP_RELU && pn >= 0 && raw[pn] == 1 && src >= 0 &&
            ev->steps[src].relu_node < 0 &&
            fusable_into(m->g.nodes[ev->steps[src].node].kind)) {
            /* the value of pn must be the estep's output (not an alias through dropout) */
            int head = ev->steps[src].node;
            int fused_last = ev->steps[src].bn_node >= 0 ? ev->steps[src].bn_node : head;
            if (fused_last == pn) {
                ev->steps[src].relu_node = i;
                val[i] = src;
                continue;
            }
        }
        estep *e = &ev->steps[ev->nsteps];
        e->node = i;
        e->bn_node = e->relu_node = -1;
        e->in[0] = src;
        e->in[1] = nd->nin > 1 ? (nd->in[1] >= 0 ? val[nd->in[1]] : -1) : -2;
        val[i] = ev->nsteps++;
    }
    int logits = val[N - 1];
    free(raw);
    free(val);
    if (logits < 0) {
        snprintf(err, errlen, "the model's output is its input");
        return -1;
    }
    /* ops */
    size_t scratch = 0;
    for (int s = 0; s < ev->nsteps; s++) {
        estep *e = &ev->steps[s];
        op_from_node(m, e->node, n, 0, &e->op);
        e->op.need_dinp = 0;
        e->op.relu = e->relu_node >= 0;
        e->op.pool = 0; /* the inference path runs a fused pool as its own step */
        e->op.out = node_shape(m, e->node, n);
        if (e->bn_node >= 0) e->op.bias = 1; /* the folded BN shift becomes the conv's bias */
        if (init_op(m, &e->op, m->g.nodes[e->node].name, TTA_MEM_EVAL, err, errlen)) return -1;
        if (e->op.scratch_bytes > scratch) scratch = e->op.scratch_bytes;
        if (e->bn_node >= 0) {
            const tta_node *nd = &m->g.nodes[e->node];
            int C = nd->in[0] < 0 ? m->g.in_c : m->g.nodes[nd->in[0]].c;
            size_t wc = (size_t)nd->c * C * nd->kernel * nd->kernel;
            e->wf = m_alloc(m, wc * sizeof(float), TTA_MEM_EVAL);
            e->bf = m_alloc(m, (size_t)nd->c * sizeof(float), TTA_MEM_EVAL);
        }
    }
    /* liveness: the logits live to the end */
    for (int s = 0; s < ev->nsteps; s++) ev->steps[s].last_use = s;
    for (int s = 0; s < ev->nsteps; s++)
        for (int k = 0; k < 2; k++) {
            int j = ev->steps[s].in[k];
            if (j >= 0) ev->steps[j].last_use = s;
        }
    ev->steps[logits].last_use = ev->nsteps;
    ev->first = ev->nsteps > 0 && ev->steps[0].in[0] == -1 && flattens_input(m, ev->steps[0].node);
    ev->chain = m->be->ops->parallel_rows && linear_chain(m, ev, ev->first);
    size_t *need = callocCheck(ev->nsteps + 1, sizeof(size_t));
    assign_buffers(ev, need);
    ev->bufs = callocCheck(ev->nbufs ? ev->nbufs : 1, sizeof(float *));
    for (int b = 0; b < ev->nbufs; b++) {
        ev->bufs[b] = m_alloc(m, need[b] * sizeof(float), TTA_MEM_EVAL);
        ev->buf_floats[b] = need[b];
    }
    free(need);
    ev->input = m_alloc(m, in_count(m, -1) * n * sizeof(float), TTA_MEM_EVAL);
    ev->labels = m_alloc(m, sizeof(int32_t) * n, TTA_MEM_EVAL);
    ev->result = m_alloc(m, 2 * sizeof(float), TTA_MEM_EVAL);
    ev->scratch = scratch ? m_alloc(m, scratch, TTA_MEM_EVAL) : NULL;
    for (int s = 0; s < ev->nsteps; s++) ev->steps[s].op.scratch = ev->scratch;
    return 0;
}

static const float *ev_in(eval_plan *ev, int j) { return j < 0 ? ev->input : ev->bufs[ev->steps[j].buf]; }

/* Steps first..nsteps-1 of the inference path, each a linear layer reading the one before it
 * (the mlp after its flatten): rows are then independent from the first layer to the last. */
static int linear_chain(const tta_model *m, const eval_plan *ev, int first) {
    if (first >= ev->nsteps) return 0;
    for (int s = first; s < ev->nsteps; s++)
        if (m->g.nodes[ev->steps[s].node].kind != TTA_OP_LINEAR || ev->steps[s].in[0] != s - 1 ||
            (s == first && first == 0))
            return 0;
    return 1;
}

typedef struct {
    tta_model *m;
    int first;
} chain_rows;

/* parallel_rows' function: rows lo..hi of the batch through every linear layer of the chain, on
 * the calling thread (each layer's op for hi - lo rows, its input and output offset by lo rows). */
static void chain_forward(void *arg, int lo, int hi) {
    chain_rows *cr = arg;
    tta_model *m = cr->m;
    eval_plan *ev = &m->ev;
    for (int s = cr->first; s < ev->nsteps; s++) {
        estep *e = &ev->steps[s];
        int i = e->node;
        tta_op op = e->op;
        size_t in = (size_t)op.in.c * op.in.h * op.in.w, out = (size_t)op.out.c * op.out.h * op.out.w;
        op.in.n = op.out.n = hi - lo;
        m->be->ops->linear_forward(m->ctx, &op, ev->bufs[e->buf] + (size_t)lo * out, ev_in(ev, e->in[0]) + (size_t)lo * in,
                                   P(m->w_off[i]), m->g.nodes[i].bias ? P(m->b_off[i]) : NULL);
    }
}

int tta_model_evaluate(tta_model *m, const float *x, const int32_t *labels, long n,
                       double *loss_sum, long *correct) {
    tta_backend *be = m->be;
    void *c = m->ctx;
    eval_plan *ev = &m->ev;
    /* weights: fold BN into the conv before it, then let the backend convert them once */
    for (int s = 0; s < ev->nsteps; s++) {
        estep *e = &ev->steps[s];
        int i = e->node;
        const tta_node *nd = &m->g.nodes[i];
        if (nd->kind != TTA_OP_CONV) continue;
        if (e->bn_node >= 0) {
            int b = e->bn_node;
            int C = nd->in[0] < 0 ? m->g.in_c : m->g.nodes[nd->in[0]].c;
            be->ops->fold_bn(c, e->wf, e->bf, P(m->w_off[i]), nd->bias ? P(m->b_off[i]) : NULL,
                        P(m->w_off[b]), P(m->b_off[b]), BUF(m->rm_off[b]), BUF(m->rv_off[b]),
                        m->g.nodes[b].eps, nd->c, C * nd->kernel * nd->kernel);
            be->ops->conv_prepare(c, &e->op, e->wf, e->bf);
        } else {
            be->ops->conv_prepare(c, &e->op, P(m->w_off[i]), nd->bias ? P(m->b_off[i]) : NULL);
        }
    }
    double lsum = 0;
    long hits = 0;
    size_t per = in_count(m, -1);
    for (long start = 0; start < n; start += ev->n) {
        int k = (int)(n - start < ev->n ? n - start : ev->n);
        /* a short last batch runs at the full batch size (rows are independent in eval
         * mode) and only its first k rows count */
        int first = ev->first;
        if (first) {
            tta_shape flat = ev->steps[0].op.out;
            flat.n = k;
            be->ops->tensor_upload(c, ev->bufs[ev->steps[0].buf], x + (size_t)start * per, flat);
        } else {
            be->ops->tensor_upload(c, ev->input, x + (size_t)start * per, node_shape(m, -1, k));
        }
        be->ops->upload(c, ev->labels, labels + start, sizeof(int32_t) * k);
        if (ev->chain) { /* one region for the whole chain */
            chain_rows cr = {m, first};
            be->ops->parallel_rows(c, ev->n, chain_forward, &cr);
        }
        for (int s = first; s < ev->nsteps && !ev->chain; s++) {
            estep *e = &ev->steps[s];
            int i = e->node;
            const tta_node *nd = &m->g.nodes[i];
            tta_op *op = &e->op;
            float *out = ev->bufs[e->buf];
            const float *in0 = ev_in(ev, e->in[0]);
            switch (nd->kind) {
            case TTA_OP_CONV: be->ops->conv_forward(c, op, out, in0); break;
            case TTA_OP_BN:
                be->ops->bn_forward(c, op, out, in0, P(m->w_off[i]), P(m->b_off[i]), BUF(m->rm_off[i]),
                               BUF(m->rv_off[i]));
                break;
            case TTA_OP_RELU: be->ops->relu_forward(c, op, out, in0); break;
            case TTA_OP_MAXPOOL:
            case TTA_OP_AVGPOOL:
            case TTA_OP_GAP:
            case TTA_OP_GMP: be->ops->pool_forward(c, op, out, in0); break;
            case TTA_OP_LINEAR:
                be->ops->linear_forward(c, op, out, in0, P(m->w_off[i]), nd->bias ? P(m->b_off[i]) : NULL);
                break;
            case TTA_OP_ADD: be->ops->add_forward(c, op, out, in0, ev_in(ev, e->in[1])); break;
            case TTA_OP_FLATTEN: be->ops->flatten_forward(c, op, out, in0); break;
            case TTA_OP_SCALE: be->ops->scale_forward(c, op, out, in0); break;
            case TTA_OP_PAD_SHORTCUT: be->ops->shortcut_forward(c, op, out, in0); break;
            default: assert(!"unexpected op in the inference plan");
            }
        }
        tta_op xo;
        xent_op(m, k, &xo);
        char err[128];
        if (m->be->ops->op_init(c, &xo, err, sizeof err)) return -1;
        assert(xo.saved_bytes == 0 && xo.scratch_bytes == 0);
        int last = ev->nsteps - 1;
        for (int s = 0; s < ev->nsteps; s++)
            if (ev->steps[s].last_use == ev->nsteps) last = s;
        be->ops->xent_forward(c, &xo, ev->result, ev->bufs[ev->steps[last].buf], ev->labels);
        be->ops->op_release(c, &xo);
        float r[2];
        be->ops->download(c, r, ev->result, sizeof r);
        lsum += r[0];
        hits += (long)r[1];
    }
    if (loss_sum) *loss_sum = lsum;
    if (correct) *correct = hits;
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Costs                                                                                        */

static void compute_stats(tta_model *m) {
    int N = m->g.nnodes;
    double B = m->batch;
    m->stats = callocCheck(N, sizeof(tta_layer_stats));
    for (int i = 0; i < N; i++) {
        const tta_node *nd = &m->g.nodes[i];
        tta_layer_stats *s = &m->stats[i];
        s->name = nd->name;
        s->type = tta_op_kind_name(nd->kind);
        s->out = (tta_shape){1, nd->c, nd->h, nd->w};
        s->fused_into = m->fused_into[i] >= 0 ? m->g.nodes[m->fused_into[i]].name : NULL;
        double nin = B * in_count(m, nd->in[0]), nout = B * node_count(nd);
        int dinp = 0;
        for (int k = 0; k < nd->nin; k++)
            if (nd->in[k] >= 0 && m->need_grad[m->tensor_of[nd->in[k]]]) dinp = 1;
        double wc = 0, bc = 0;
        for (int p = 0; p < m->npinfo; p++) {
            if ((long)m->pinfo[p].offset == m->w_off[i]) wc = m->pinfo[p].count;
            if ((long)m->pinfo[p].offset == m->b_off[i]) bc = m->pinfo[p].count;
        }
        switch (nd->kind) {
        case TTA_OP_CONV:
        case TTA_OP_LINEAR: {
            double F = 2.0 * nout * (wc / nd->c); /* 2 * outputs * (fan-in) */
            s->flops_fwd = F + (nd->bias ? nout : 0);
            s->flops_bwd = F + (dinp ? F : 0) + (nd->bias ? nout : 0);
            s->bytes_fwd = 4 * (nin + nout + wc + bc);
            s->bytes_bwd = 4 * (nout + nin + wc + bc + (dinp ? nin + wc : 0));
            break;
        }
        case TTA_OP_BN: /* statistics, normalise+affine; backward: two reductions and dx */
            s->flops_fwd = 7 * nin;
            s->flops_bwd = 9 * nin;
            s->bytes_fwd = 4 * (2 * nin + nout);
            s->bytes_bwd = 4 * (2 * nin + 2 * nout);
            if (m->fused_add[i] >= 0) { /* + ReLU + add: skip read; its gradient copied unless shared */
                int t = m->tensor_of[m->add_skip[i]];
                s->bytes_fwd += 4 * nout;
                if (m->need_grad[t] && m->grad[t] != m->grad[i]) s->bytes_bwd += 8 * nout;
            }
            if (m->fused_pool[i] >= 0) { /* + ReLU + max pool (cpu_bn.c): z is never stored */
                double np = B * node_count(&m->g.nodes[m->fused_pool[i]]);
                /* x twice; the pooled map, the winners' x and a position byte each */
                s->bytes_fwd = 4 * (2 * nin + 2 * np) + np;
                /* the pooled gradient, the winners' x, the bytes; then x, dx, the gradient, the bytes */
                s->bytes_bwd = 4 * 2 * np + np + (dinp ? 4 * (2 * nin + np) + np : 0);
            }
            break;
        /* a max pool in training also writes, and its backward reads, each output's window
         * position, one byte an output: the cpu backend's workspace (cpu_pool.c), so that its
         * backward reads neither input nor output (pool1: 5 % of its bytes; the cuda backend's
         * kernel re-reads the input instead, counted here as the cpu backend's) */
        case TTA_OP_MAXPOOL:
        case TTA_OP_AVGPOOL:
            s->flops_fwd = nout * nd->kernel * nd->kernel;
            s->flops_bwd = nd->kind == TTA_OP_AVGPOOL ? s->flops_fwd : nout;
            s->bytes_fwd = 4 * (nin + nout) + (nd->kind == TTA_OP_MAXPOOL ? nout : 0);
            s->bytes_bwd = 4 * (nin + nout) + (nd->kind == TTA_OP_MAXPOOL ? nout : 0);
            break;
        case TTA_OP_GAP:
        case TTA_OP_GMP:
            s->flops_fwd = s->flops_bwd = nin;
            s->bytes_fwd = s->bytes_bwd = 4 * (nin + nout) + (nd->kind == TTA_OP_GMP ? nout : 0);
            break;
        case TTA_OP_RELU:
        case TTA_OP_DROPOUT:
        case TTA_OP_SCALE:
            s->flops_fwd = s->flops_bwd = nout;
            s->bytes_fwd = 8 * nout;
            s->bytes_bwd = 12 * nout;
            break;
        case TTA_OP_ADD: /* backward: the fused ReLU's mask in place, a copy per input not sharing */
            s->flops_fwd = nout;
            s->bytes_fwd = 12 * nout;
            s->bytes_bwd = m->fused_relu[i] >= 0 ? 12 * nout : 0;
            for (int k = 0; k < 2; k++) {
                int t = nd->in[k] >= 0 ? m->tensor_of[nd->in[k]] : -1;
                if (t >= 0 && m->need_grad[t] && m->grad[t] != m->grad[m->tensor_of[i]]) s->bytes_bwd += 8 * nout;
            }
            break;
        case TTA_OP_FLATTEN:
        case TTA_OP_PAD_SHORTCUT:
            s->bytes_fwd = s->bytes_bwd = 4 * (nout + nin);
            break;
        default: break;
        }
        /* a fused layer (a ReLU, a max pool) runs inside its host's op, whose row counts the traffic */
        if (m->fused_into[i] >= 0) s->bytes_fwd = s->bytes_bwd = 0;
    }
}

const tta_layer_stats *tta_model_layer_stats(tta_model *m, int *count) {
    *count = m->g.nnodes;
    return m->stats;
}

void tta_model_set_profiling(tta_model *m, int on) { m->profiling = on; }

void tta_model_reset_profile(tta_model *m) {
    for (int i = 0; i < m->g.nnodes; i++) {
        m->stats[i].time_fwd = m->stats[i].time_bwd = 0;
        m->stats[i].calls_fwd = m->stats[i].calls_bwd = 0;
    }
}

double tta_model_train_flops(const tta_model *m) {
    double f = 0;
    for (int i = 0; i < m->g.nnodes; i++) f += m->stats[i].flops_fwd + m->stats[i].flops_bwd;
    return f;
}

double tta_model_eval_flops_per_sample(const tta_model *m) {
    double f = 0;
    for (int s = 0; s < m->ev.nsteps; s++) {
        const estep *e = &m->ev.steps[s];
        f += m->stats[e->node].flops_fwd;
        if (e->relu_node >= 0) f += m->stats[e->relu_node].flops_fwd;
    }
    return f / m->batch;
}

void tta_model_memory(const tta_model *m, size_t bytes[TTA_MEM_COUNT]) {
    memcpy(bytes, m->mem, sizeof m->mem);
}

char *tta_model_summary(const tta_model *m) {
    buf b = {0};
    buf_printf(&b, "%s: %zu parameters, batch %d, %.3f GFLOP per training step\n", m->g.name,
               m->nparams, m->batch, tta_model_train_flops(m) * 1e-9);
    for (int i = 0; i < m->g.nnodes; i++) {
        const tta_layer_stats *s = &m->stats[i];
        buf_printf(&b, "  %-24s %-12s %4dx%-3dx%-3d fwd %8.2f MFLOP bwd %8.2f MFLOP%s%s\n", s->name,
                   s->type, s->out.c, s->out.h, s->out.w, s->flops_fwd * 1e-6, s->flops_bwd * 1e-6,
                   s->fused_into ? "  fused into " : "", s->fused_into ? s->fused_into : "");
    }
    return buf_take(&b);
}

/* ------------------------------------------------------------------------------------------ */
/* Build and free                                                                               */

const char *tta_model_name(const tta_model *m) { return m->g.name; }
tta_backend *tta_model_backend(tta_model *m) { return m->be; }
size_t tta_model_num_params(const tta_model *m) { return m->nparams; }
float *tta_model_params(tta_model *m) { return m->params; }
float *tta_model_grads(tta_model *m) { return m->grads; }
const tta_param_info *tta_model_param_info(const tta_model *m, int *count) {
    *count = m->npinfo;
    return m->pinfo;
}
size_t tta_model_num_buffers(const tta_model *m) { return m->nbuffers; }
float *tta_model_buffers(tta_model *m) { return m->buffers; }
const tta_buffer_info *tta_model_buffer_info(const tta_model *m, int *count) {
    *count = m->nbinfo;
    return m->binfo;
}

void tta_model_free(tta_model *m) {
    if (!m) return;
    for (int p = 0; p < m->nplans; p++) {
        for (int s = 0; s < m->plans[p]->nsteps; s++) m->be->ops->op_release(m->ctx, &m->plans[p]->steps[s].op);
        m->be->ops->op_release(m->ctx, &m->plans[p]->xent);
        free(m->plans[p]->steps);
        free(m->plans[p]);
    }
    free(m->plans);
    for (int s = 0; s < m->ev.nsteps; s++)
        m->be->ops->op_release(m->ctx, &m->ev.steps[s].op);
    free(m->ev.steps);
    free(m->ev.bufs);
    free(m->ev.buf_floats);
    for (size_t i = 0; i < m->nallocs; i++) m->be->ops->free(m->ctx, m->allocs[i].p);
    free(m->allocs);
    if (m->be) m->be->ops->destroy(m->be);
    free(m->pinfo);
    free(m->binfo);
    free(m->w_off);
    free(m->b_off);
    free(m->rm_off);
    free(m->rv_off);
    free(m->fused_into);
    free(m->fused_relu);
    free(m->fused_pool);
    free(m->fused_add);
    free(m->add_skip);
    free(m->tensor_of);
    free(m->consumers);
    free(m->need_grad);
    free(m->act);
    free(m->grad);
    free(m->grad_alias);
    free(m->written);
    free(m->stats);
    tta_graph_free(&m->g);
    free(m);
}

/* 8 when a feature map of the graph (more than one pixel) has a multiple of 8 but not of 16
 * channels: the cpu backend then blocks every map by 8 (tta_backend_options.block_limit); else 0. */
static int block_limit(const tta_graph *g) {
    for (int i = 0; i < g->nnodes; i++) {
        const tta_node *n = &g->nodes[i];
        if (n->h * n->w > 1 && n->c % 8 == 0 && n->c % 16 != 0) return 8;
    }
    return 0;
}

int tta_model_build_json(tta_model **out, const char *json, const char *origin,
                         const tta_model_config *cfg, char *err, size_t errlen) {
    *out = NULL;
    if (!cfg || cfg->batch <= 0) {
        snprintf(err, errlen, "the batch size must be positive");
        return -1;
    }
    tta_model *m = callocCheck(1, sizeof *m);
    if (tta_graph_parse(&m->g, json, origin, cfg, err, errlen)) {
        free(m);
        return -1;
    }
    tta_backend_options bo = cfg->backend_options;
    if (!bo.block_limit) bo.block_limit = block_limit(&m->g);
    m->be = tta_backend_create(cfg->backend, &bo, err, errlen);
    m->threads = cfg->backend_options.threads;
    if (!m->be) {
        tta_model_free(m);
        return -1;
    }
    m->ctx = m->be->ctx;
    m->batch = cfg->batch;
    m->eval_batch = cfg->eval_batch > 0 ? cfg->eval_batch : cfg->batch;
    m->seed = cfg->seed;
    int N = m->g.nnodes;
    m->w_off = mallocCheck(sizeof(long) * N);
    m->b_off = mallocCheck(sizeof(long) * N);
    m->rm_off = mallocCheck(sizeof(long) * N);
    m->rv_off = mallocCheck(sizeof(long) * N);
    m->fused_into = mallocCheck(sizeof(int) * N);
    m->fused_relu = mallocCheck(sizeof(int) * N);
    m->fused_pool = mallocCheck(sizeof(int) * N);
    m->fused_add = mallocCheck(sizeof(int) * N);
    m->add_skip = mallocCheck(sizeof(int) * N);
    m->tensor_of = mallocCheck(sizeof(int) * N);
    m->consumers = callocCheck(N, sizeof(int));
    m->need_grad = callocCheck(N, sizeof(int));
    m->written = callocCheck(N, sizeof(int));
    m->act = callocCheck(N, sizeof(float *));
    m->grad = callocCheck(N, sizeof(float *));
    m->grad_alias = callocCheck(N, sizeof(int));
    layout_params(m);
    analyse(m);

    m->params = m_alloc(m, m->nparams * sizeof(float), TTA_MEM_WEIGHTS);
    m->grads = m_alloc(m, m->nparams * sizeof(float), TTA_MEM_WEIGHT_GRADS);
    m->buffers = m_alloc(m, m->nbuffers * sizeof(float), TTA_MEM_BUFFERS);
    tta_model_init_params(m, cfg->seed);

    size_t B = (size_t)m->batch, maxt = 0;
    int multi = 0;
    m->act_in = m_alloc(m, B * in_count(m, -1) * sizeof(float), TTA_MEM_ACTIVATIONS);
    for (int i = 0; i < N; i++)
        if (m->tensor_of[i] == i) m->act[i] = m_alloc(m, B * tensor_count(m, i) * sizeof(float), TTA_MEM_ACTIVATIONS);
    for (int i = 0; i < N; i++) m->act[i] = m->act[m->tensor_of[i]];
    /* gradient buffers, from the loss backwards so that an add's buffer exists before its
     * input decides to share it */
    for (int i = N - 1; i >= 0; i--) {
        if (m->tensor_of[i] != i || !m->need_grad[i]) continue;
        if (!m->grad[i]) m->grad[i] = m_alloc(m, B * tensor_count(m, i) * sizeof(float), TTA_MEM_ACT_GRADS);
        if (m->consumers[i] > 1) multi = 1;
        if (B * tensor_count(m, i) > maxt) maxt = B * tensor_count(m, i);
        const tta_node *nd = &m->g.nodes[i];
        if (m->fused_add[i] >= 0) { /* a BN holding an add: its skip may pass the gradient through */
            int other = m->tensor_of[m->add_skip[i]];
            if (add_passes_through(m, m->fused_add[i], other, i)) {
                m->grad[other] = m->grad[i];
                m->grad_alias[other] = 1;
            }
        } else if (nd->kind == TTA_OP_ADD) {
            /* at most one input shares (a second would see the first's in-place ReLU masking) */
            for (int k = 0; k < 2; k++) {
                int in = nd->in[k];
                if (in < 0) continue;
                int t = m->tensor_of[in];
                int other = nd->in[1 - k] >= 0 ? m->tensor_of[nd->in[1 - k]] : -1;
                if (m->need_grad[t] && m->consumers[t] == 1 && t != other && !m->grad[t]) {
                    m->grad[t] = m->grad[i];
                    m->grad_alias[t] = 1;
                    if (other >= 0 && add_passes_through(m, i, other, t)) {
                        m->grad[other] = m->grad[i]; /* the residual input too: no copy */
                        m->grad_alias[other] = 1;
                    }
                    break;
                }
            }
        }
    }
    for (int i = 0; i < N; i++) m->grad[i] = m->grad[m->tensor_of[i]];
    for (int i = 0; i < N; i++) /* an add reading the same tensor twice accumulates too */
        if (m->g.nodes[i].kind == TTA_OP_ADD && m->g.nodes[i].in[0] >= 0 && m->g.nodes[i].in[1] >= 0 &&
            m->tensor_of[m->g.nodes[i].in[0]] == m->tensor_of[m->g.nodes[i].in[1]])
            multi = 1;
    if (multi) m->tmp = m_alloc(m, maxt * sizeof(float), TTA_MEM_WORKSPACE);
    m->labels = m_alloc(m, B * sizeof(int32_t), TTA_MEM_WORKSPACE);
    m->result = m_alloc(m, 2 * sizeof(float), TTA_MEM_WORKSPACE);
    compute_stats(m);
    if (!get_plan(m, m->batch, 1, err, errlen) || build_eval(m, err, errlen)) {
        tta_model_free(m);
        return -1;
    }
    *out = m;
    return 0;
}

int tta_model_validate_json(const char *json, const tta_model_config *cfg, char *err,
                            size_t errlen) {
    tta_graph g;
    if (tta_graph_parse(&g, json, "model", cfg, err, errlen)) return -1;
    tta_graph_free(&g);
    return 0;
}

extern const char *const tta_model_builtin_texts[];

const char *tta_model_builtin(const char *name) {
    for (int i = 0; tta_model_builtin_names[i]; i++)
        if (strcmp(tta_model_builtin_names[i], name) == 0) return tta_model_builtin_texts[i];
    return NULL;
}

/* A model file is a graph of a few dozen layers in JSON (the shipped ones are under 2 KiB). */
#define MODEL_FILE_LIMIT TTA_FILE_MIB

/* Loads the model file at path into *file: TTA_OK, TTA_ENOTFOUND when there is none (the caller
 * looks further), or another code with err set. */
static int load_model_file(const char *path, tta_file *file, char *err, size_t errlen) {
    tta_error e;
    int code = tta_file_load(path, MODEL_FILE_LIMIT, "a model file", TTA_FILE_READ, file, &e);
    if (code != TTA_OK && code != TTA_ENOTFOUND) snprintf(err, errlen, "%s", e.text);
    return code;
}

int tta_model_build(tta_model **out, const char *path_or_name, const tta_model_config *cfg,
                    char *err, size_t errlen) {
    *out = NULL;
    tta_file file;
    int code = load_model_file(path_or_name, &file, err, errlen);
    const char *dir = getenv("TTA_MODEL_DIR");
    if (code == TTA_ENOTFOUND && dir && *dir && !strchr(path_or_name, '/')) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.json", dir, path_or_name);
        code = load_model_file(path, &file, err, errlen);
    }
    if (code == TTA_OK) {
        int rc = tta_model_build_json(out, file.data, path_or_name, cfg, err, errlen);
        tta_file_free(&file);
        return rc;
    }
    if (code != TTA_ENOTFOUND) return -1;
    const char *builtin = tta_model_builtin(path_or_name);
    if (!builtin) {
        buf names = {0};
        for (int i = 0; tta_model_builtin_names[i]; i++)
            buf_printf(&names, "%s%s", i ? ", " : "", tta_model_builtin_names[i]);
        snprintf(err, errlen, "model \"%s\": no such file, and not a shipped model (%s)",
                 path_or_name, buf_str(&names));
        buf_free(&names);
        return -1;
    }
    return tta_model_build_json(out, builtin, path_or_name, cfg, err, errlen);
}
