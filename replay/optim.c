/* optim.c: SGD (PyTorch and Caffe conventions), Adam, AdamW and LARS on flat arrays. */
#include "replay/optim.h"

#include <assert.h>
#include <math.h>
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

/* Momentum SGD over one tensor with learning rate lr and decay wd. */
static void sgd_tensor(const tta_opt_config *c, float *p, const float *g, float *v, size_t n, float lr, float wd) {
    float mu = (float)c->momentum;
    for (size_t i = 0; i < n; i++) {
        float gi = g[i] + wd * p[i];
        if (c->caffe) {
            v[i] = mu * v[i] + lr * gi;
            p[i] -= c->nesterov ? mu * v[i] + lr * gi : v[i];
        } else {
            v[i] = mu * v[i] + gi;
            p[i] -= lr * (c->nesterov ? gi + mu * v[i] : v[i]);
        }
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
    for (size_t t = 0; t < n_tensors; t++) {
        const tta_param_tensor *tp = &tensors[t];
        assert(tp->offset + tp->count <= o->n);
        float *p = params + tp->offset;
        const float *g = grads + tp->offset;
        float wd = tp->decay ? (float)c->weight_decay : 0.0f;
        switch (c->kind) {
        case TTA_OPT_SGD:
            sgd_tensor(c, p, g, o->state + tp->offset, tp->count, (float)lr, wd);
            break;
        case TTA_OPT_LARS: {
            double local = 1.0;
            if (tp->decay) {
                double pn = norm2(p, tp->count), gn = norm2(g, tp->count);
                if (pn > 0 && gn > 0) local = c->eta * pn / (gn + c->weight_decay * pn);
            }
            sgd_tensor(c, p, g, o->state + tp->offset, tp->count, (float)(lr * local), wd);
            break;
        }
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
