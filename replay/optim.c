/* optim.c: SGD (PyTorch and Caffe conventions), Adam, AdamW and LARS on flat arrays. */
#include "replay/optim.h"

#include <assert.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"

int tta_optim_init(tta_optim *o, const tta_opt_config *cfg, size_t n) {
    memset(o, 0, sizeof *o);
    if (cfg->momentum < 0 || cfg->weight_decay < 0) return -1;
    if ((cfg->kind == TTA_OPT_ADAM || cfg->kind == TTA_OPT_ADAMW) &&
        !(cfg->beta1 >= 0 && cfg->beta1 < 1 && cfg->beta2 >= 0 && cfg->beta2 < 1 && cfg->eps > 0))
        return -1;
    if (cfg->kind == TTA_OPT_LARS && !(cfg->eta > 0)) return -1;
    o->cfg = *cfg;
    o->n = n;
    size_t per = (cfg->kind == TTA_OPT_ADAM || cfg->kind == TTA_OPT_ADAMW) ? 2 : 1;
    o->state = callocCheck((n * per) > 0 ? n * per : 1, sizeof *o->state);
    return 0;
}

void tta_optim_free(tta_optim *o) {
    free(o->state);
    memset(o, 0, sizeof *o);
}

size_t tta_optim_state_bytes(const tta_optim *o) {
    size_t per = (o->cfg.kind == TTA_OPT_ADAM || o->cfg.kind == TTA_OPT_ADAMW) ? 2 : 1;
    return o->n * per * sizeof(float);
}

/* Momentum SGD over one tensor with learning rate lr and decay wd. One loop per convention, so
 * that each is a straight vectorisable pass over p, g and v. Every operation is rounded to float
 * on its own (no fused multiply-add), in the order written: sgd_step.h's contract, which the
 * device backends' updates also keep. */
static inline __attribute__((always_inline)) void sgd_tensor_body(const tta_opt_config *c, float *restrict p,
                                                                  const float *restrict g, float *restrict v,
                                                                  size_t n, float lr, float wd) {
    const float mu = (float)c->momentum;
    if (c->caffe && c->nesterov) {
        for (size_t i = 0; i < n; i++) {
            float gi = g[i] + wd * p[i];
            v[i] = mu * v[i] + lr * gi;
            p[i] -= mu * v[i] + lr * gi;
        }
    } else if (c->caffe) {
        for (size_t i = 0; i < n; i++) {
            float gi = g[i] + wd * p[i];
            v[i] = mu * v[i] + lr * gi;
            p[i] -= v[i];
        }
    } else if (c->nesterov) {
        for (size_t i = 0; i < n; i++) {
            float gi = g[i] + wd * p[i];
            v[i] = mu * v[i] + gi;
            p[i] -= lr * (gi + mu * v[i]);
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            float gi = g[i] + wd * p[i];
            v[i] = mu * v[i] + gi;
            p[i] -= lr * v[i];
        }
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
/* The same loops compiled for AVX2 without FMA (the target names no "fma", so the compiler cannot
 * fuse a multiply into an add): 8 floats a vector instead of the baseline's 4, and the same bits
 * (tests/replay/test_optim sgd_same_bits_any_length). The update streams five arrays and is
 * bound by the caches: fmnist-mlp's fc1 (401,408 parameters, one thread, Zen 4) took 95-101 us a
 * pass with SSE2 and 60-67 with AVX2; AVX-512 was no faster (58-65). */
__attribute__((target("avx2"))) static void sgd_tensor_avx2(const tta_opt_config *c, float *restrict p,
                                                            const float *restrict g, float *restrict v, size_t n,
                                                            float lr, float wd) {
    sgd_tensor_body(c, p, g, v, n, lr, wd);
}
#endif

/* sgd_tensor_body on the widest vectors the CPU has (the bits do not depend on which): AVX2, else
 * the baseline's, inlined here. */
static void sgd_tensor(const tta_opt_config *c, float *restrict p, const float *restrict g, float *restrict v,
                       size_t n, float lr, float wd) {
#if defined(__x86_64__) && defined(__GNUC__)
    if (__builtin_cpu_supports("avx2")) {
        sgd_tensor_avx2(c, p, g, v, n, lr, wd);
        return;
    }
#endif
    sgd_tensor_body(c, p, g, v, n, lr, wd);
}

/* Below this many parameters one thread updates them all: waking a sleeping (passive) OpenMP
 * thread costs more than the update. */
#define PARALLEL_MIN_PARAMS 65536

/* The SGD update of every tensor (LARS: with its per-tensor rate in local_lr), split into one
 * contiguous slice of each tensor per OpenMP thread. Element-wise, so the result does not
 * depend on the thread count. The MLP recipe's update went from 1.27 ms to a fraction of it. */
static void sgd_step(const tta_opt_config *c, float *params, const float *grads, float *state,
                     const tta_param_tensor *tensors, size_t n_tensors, const double *lr_of) {
    size_t n = 0;
    for (size_t k = 0; k < n_tensors; k++) n += tensors[k].fused ? 0 : tensors[k].count;
    if (!n) return; /* all updated during backward: no region */
#pragma omp parallel if (n >= PARALLEL_MIN_PARAMS)
    {
        size_t T = (size_t)omp_get_num_threads(), t = (size_t)omp_get_thread_num();
        for (size_t k = 0; k < n_tensors; k++) {
            const tta_param_tensor *tp = &tensors[k];
            if (tp->fused) continue;
            size_t i0 = tp->count * t / T, i1 = tp->count * (t + 1) / T;
            float wd = tp->decay ? (float)c->weight_decay : 0.0f;
            size_t o = tp->offset + i0;
            sgd_tensor(c, params + o, grads + o, state + o, i1 - i0, (float)lr_of[k], wd);
        }
    }
}

void tta_optim_sgd_ranges(const tta_sgd_step *a, float *params, const float *grads, float *velocity) {
    const tta_opt_config c = {.kind = TTA_OPT_SGD, .momentum = a->momentum, .nesterov = a->nesterov,
                              .caffe = a->caffe};
    for (int r = 0; r < a->n_ranges; r++) {
        size_t o = a->begin[r];
        sgd_tensor(&c, params + o, grads + o, velocity + o, a->end[r] - o, a->lr, a->decay[r]);
    }
}

int tta_optim_fusable(const tta_optim *o) { return o->cfg.kind == TTA_OPT_SGD; }

/* sgd_tensor on each row of the block, with the rate and decay sgd_step gives it (without LARS
 * its lr_of is lr x 1.0, exactly lr), so that each element gets the same operations. */
void tta_optim_update_block(const tta_optim *o, float *params, const float *grads, const tta_param_tensor *t,
                            double lr, size_t offset, int rows, int cols, size_t ld) {
    assert(tta_optim_fusable(o) && t->fused);
    assert(offset >= t->offset && rows >= 0 && cols >= 0);
    assert(!rows || offset + (size_t)(rows - 1) * ld + (size_t)cols <= t->offset + t->count);
    float wd = t->decay ? (float)o->cfg.weight_decay : 0.0f;
    for (int r = 0; r < rows; r++) {
        size_t at = offset + (size_t)r * ld;
        sgd_tensor(&o->cfg, params + at, grads + at, o->state + at, (size_t)cols, (float)lr, wd);
    }
}

static double norm2(const float *x, size_t n) {
    double s = 0;
    for (size_t i = 0; i < n; i++) s += (double)x[i] * x[i];
    return sqrt(s);
}

void tta_optim_step(tta_optim *o, float *params, const float *grads, const tta_param_tensor *tensors,
                    size_t n_tensors, double lr) {
    const tta_opt_config *c = &o->cfg;
    o->step++;
    for (size_t t = 0; t < n_tensors; t++) assert(tensors[t].offset + tensors[t].count <= o->n);
    if (c->kind == TTA_OPT_SGD || c->kind == TTA_OPT_LARS) {
        /* the rates on the stack for up to 64 tensors (no allocation in a step), else on the heap */
        double local_rates[64];
        double *lr_of = n_tensors <= 64 ? local_rates : mallocCheck(n_tensors * sizeof *lr_of);
        for (size_t t = 0; t < n_tensors; t++) {
            const tta_param_tensor *tp = &tensors[t];
            double local = 1.0;
            if (c->kind == TTA_OPT_LARS && tp->decay) {
                const float *p = params + tp->offset, *g = grads + tp->offset;
                double pn = norm2(p, tp->count), gn = norm2(g, tp->count);
                if (pn > 0 && gn > 0) local = c->eta * pn / (gn + c->weight_decay * pn);
            }
            lr_of[t] = lr * local;
        }
        sgd_step(c, params, grads, o->state, tensors, n_tensors, lr_of);
        if (lr_of != local_rates) free(lr_of);
        return;
    }
    for (size_t t = 0; t < n_tensors; t++) {
        const tta_param_tensor *tp = &tensors[t];
        assert(!tp->fused); /* (tta_optim_fusable: SGD only) */
        float *p = params + tp->offset;
        const float *g = grads + tp->offset;
        float wd = tp->decay ? (float)c->weight_decay : 0.0f;
        switch (c->kind) {
        case TTA_OPT_SGD:
        case TTA_OPT_LARS:
            break; /* above */
        case TTA_OPT_ADAM:
        case TTA_OPT_ADAMW: {
            float *m = o->state + tp->offset, *v = o->state + o->n + tp->offset;
            float b1 = (float)c->beta1, b2 = (float)c->beta2;
            double bc1 = 1.0 - pow(c->beta1, (double)o->step), bc2 = 1.0 - pow(c->beta2, (double)o->step);
            float step = (float)(lr / bc1), rb2 = (float)sqrt(bc2), eps = (float)c->eps;
            int decoupled = c->kind == TTA_OPT_ADAMW;
            for (size_t i = 0; i < tp->count; i++) {
                if (decoupled) p[i] -= (float)lr * wd * p[i];
                float gi = g[i] + (decoupled ? 0.0f : wd * p[i]);
                m[i] = b1 * m[i] + (1 - b1) * gi;
                v[i] = b2 * v[i] + (1 - b2) * gi * gi;
                /* PyTorch: p -= lr/bc1 · m / (sqrt(v)/sqrt(bc2) + eps) */
                p[i] -= step * m[i] / (sqrtf(v[i]) / rb2 + eps);
            }
            break;
        }
        }
    }
}
