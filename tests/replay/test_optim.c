/* test_optim.c: optimizers against torch.optim (Debian python3-torch 1.13; the script that printed
 * the numbers is tests/replay/make_optim_reference.py), the Caffe convention and LARS against hand
 * arithmetic.
 *
 *   p = [0.5, -1, 2, 0.25] (decayed), b = [0.1, -0.2] (not decayed),
 *   loss = sum((p*[1,2,-1,0.5])^2) + sum(3 b^2) + sum(p)*sum(b), 5 steps. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "replay/optim.h"
#include "tta_test.h"

static const tta_param_tensor tensors[] = {{0, 4, 1, 0}, {4, 2, 0, 0}};

static void grads_of(const float *x, float *g) {
    static const float c[4] = {1, 2, -1, 0.5f};
    float sp = x[0] + x[1] + x[2] + x[3], sb = x[4] + x[5];
    for (int i = 0; i < 4; i++) g[i] = 2 * c[i] * c[i] * x[i] + sb;
    for (int j = 0; j < 2; j++) g[4 + j] = 6 * x[4 + j] + sp;
}

static void run(const tta_opt_config *cfg, const double *lrs, float *x) {
    const float start[6] = {0.5f, -1, 2, 0.25f, 0.1f, -0.2f};
    memcpy(x, start, sizeof start);
    tta_optim o;
    CHECK(tta_optim_init(&o, cfg, 6) == 0);
    float g[6];
    for (int s = 0; s < 5; s++) {
        grads_of(x, g);
        tta_optim_step(&o, x, g, tensors, 2, lrs[s]);
    }
    tta_optim_free(&o);
}

static void check_all(const float *x, const double *want, double tol) {
    for (int i = 0; i < 6; i++) CHECK_NEAR(x[i], want[i], tol);
}

TEST(sgd_like_pytorch) {
    float x[6];
    double lr[5] = {0.1, 0.1, 0.1, 0.1, 0.1};
    tta_opt_config c = {.kind = TTA_OPT_SGD, .momentum = 0.9, .nesterov = 1, .weight_decay = 5e-4};
    run(&c, lr, x);
    double nesterov[6] = {0.2629328966140747, -0.0226888544857502, -0.36069294810295105, 0.8875218629837036,
                          -0.060237862169742584, -0.0786706879734993};
    check_all(x, nesterov, 2e-6);
    /* plain momentum with a changing learning rate */
    double lrs[5] = {0.1, 0.05, 0.2, 0.02, 0.1};
    c.nesterov = 0;
    run(&c, lrs, x);
    double momentum[6] = {0.2638644278049469, -0.02625586837530136, -0.5610119104385376, 0.746406614780426,
                          -0.4706100523471832, -0.3625715970993042};
    check_all(x, momentum, 2e-6);
}

TEST(caffe_differs_when_lr_changes) {
    float a[6], b[6];
    double constant[5] = {0.1, 0.1, 0.1, 0.1, 0.1}, changing[5] = {0.1, 0.05, 0.2, 0.02, 0.1};
    tta_opt_config py = {.kind = TTA_OPT_SGD, .momentum = 0.9, .weight_decay = 5e-4};
    tta_opt_config caffe = py;
    caffe.caffe = 1;
    run(&py, constant, a);
    run(&caffe, constant, b);
    for (int i = 0; i < 6; i++) CHECK_NEAR(a[i], b[i], 1e-6); /* same with a constant rate */
    run(&py, changing, a);
    run(&caffe, changing, b);
    double diff = 0;
    for (int i = 0; i < 6; i++) diff += fabs(a[i] - b[i]);
    CHECK(diff > 1e-3);
    /* Caffe's first two steps by hand: v1 = lr1 g1, p1 = p0 - v1; v2 = mu v1 + lr2 g2 */
    float x[6] = {0.5f, -1, 2, 0.25f, 0.1f, -0.2f}, g[6];
    tta_optim o;
    CHECK(tta_optim_init(&o, &caffe, 6) == 0);
    grads_of(x, g);
    float p0 = x[0], g0 = g[0] + 5e-4f * x[0];
    tta_optim_step(&o, x, g, tensors, 2, 0.1);
    CHECK_NEAR(x[0], p0 - 0.1f * g0, 1e-7);
    tta_optim_free(&o);
}

TEST(adam_and_adamw_like_pytorch) {
    float x[6];
    double lr[5] = {0.01, 0.01, 0.01, 0.01, 0.01};
    tta_opt_config c = {.kind = TTA_OPT_ADAM, .beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8, .weight_decay = 1e-2};
    run(&c, lr, x);
    double adam[6] = {0.45025232434272766, -0.9500337243080139, 1.950047254562378, 0.24261260032653809,
                      0.05017015337944031, -0.2486375868320465};
    check_all(x, adam, 2e-6);
    c.kind = TTA_OPT_ADAMW;
    run(&c, lr, x);
    double adamw[6] = {0.45001405477523804, -0.9495442509651184, 1.949057936668396, 0.2453724443912506,
                       0.050169140100479126, -0.24864943325519562};
    check_all(x, adamw, 2e-6);
}

TEST(lars_trust_ratio) {
    /* one step without momentum: p -= lr * eta*|p|/(|g| + wd|p|) * (g + wd p) on decayed tensors */
    float x[6] = {0.5f, -1, 2, 0.25f, 0.1f, -0.2f}, g[6];
    grads_of(x, g);
    double pn = sqrt(0.25 + 1 + 4 + 0.0625), gn = 0;
    for (int i = 0; i < 4; i++) gn += (double)g[i] * g[i];
    gn = sqrt(gn);
    double local = 0.001 * pn / (gn + 1e-4 * pn);
    float want0 = (float)(0.5 - 2.0 * local * (g[0] + 1e-4 * 0.5)), want4 = (float)(0.1 - 2.0 * g[4]);
    tta_opt_config c = {.kind = TTA_OPT_LARS, .momentum = 0, .weight_decay = 1e-4, .eta = 0.001};
    tta_optim o;
    CHECK(tta_optim_init(&o, &c, 6) == 0);
    tta_optim_step(&o, x, g, tensors, 2, 2.0);
    CHECK_NEAR(x[0], want0, 1e-6);
    CHECK_NEAR(x[4], want4, 1e-6); /* no decay, no trust ratio: plain SGD */
    CHECK(tta_optim_state_bytes(&o) == 6 * sizeof(float));
    tta_optim_free(&o);
}

/* One SGD step of element i, every operation rounded to float on its own in the order that
 * sgd_step.h states (volatile: the compiler may not fuse a multiply into an add here). */
static void sgd_reference(const tta_opt_config *c, float *p, float g, float *v, float lr, float wd) {
    volatile float mu = (float)c->momentum, t, gi;
    t = wd * *p;
    gi = g + t;
    if (c->caffe) {
        volatile float a = mu * *v, b = lr * gi;
        *v = a + b;
        if (c->nesterov) {
            volatile float m = mu * *v, s = m + b;
            *p = *p - s;
        } else
            *p = *p - *v;
    } else {
        volatile float a = mu * *v;
        *v = a + gi;
        if (c->nesterov) {
            volatile float m = mu * *v, s = gi + m, d = lr * s;
            *p = *p - d;
        } else {
            volatile float d = lr * *v;
            *p = *p - d;
        }
    }
}

/* The SGD update, whatever the vectors it runs on (replay/optim.c picks them by the CPU), gives
 * the bits of the scalar arithmetic: every convention, decayed or not, tensors of every length
 * from 1 to 40 and one of 1,003 at odd offsets (the vector loops' heads and tails), through
 * tta_optim_step and through the fused block update. */
TEST(sgd_same_bits_any_length) {
    enum { N = 1003 + 40 * 41 / 2 };
    static float p[N], g[N], v[N], pw[N], vw[N];
    tta_param_tensor t[41];
    size_t at = 0;
    for (int k = 0; k < 41; k++) {
        size_t len = k < 40 ? (size_t)k + 1 : 1003;
        t[k] = (tta_param_tensor){at, len, k % 2, 0};
        at += len;
    }
    CHECK(at == N);
    for (int conv = 0; conv < 4; conv++) {
        tta_opt_config c = {.kind = TTA_OPT_SGD, .momentum = 0.9, .nesterov = conv & 1, .caffe = conv >> 1,
                            .weight_decay = 5e-4};
        tta_optim o;
        CHECK(tta_optim_init(&o, &c, N) == 0);
        uint32_t r = 12345u + (uint32_t)conv;
        for (int i = 0; i < N; i++) {
            r = r * 1664525u + 1013904223u;
            p[i] = pw[i] = (float)(r >> 8) / 16777216.0f - 0.5f;
            r = r * 1664525u + 1013904223u;
            g[i] = (float)(r >> 8) / 16777216.0f * 0.2f - 0.1f;
            vw[i] = 0;
        }
        double lrs[3] = {0.1, 0.0371, 0.25};
        for (int s = 0; s < 3; s++) {
            float lr = (float)lrs[s];
            if (s == 2) /* the last step through the fused path, in blocks of 3 rows of up to 7 */
                for (int k = 0; k < 41; k++) {
                    t[k].fused = 1;
                    for (size_t o0 = t[k].offset; o0 < t[k].offset + t[k].count;) {
                        size_t left = t[k].offset + t[k].count - o0, cols = left < 7 ? left : 7;
                        int rows = left >= 21 ? 3 : 1;
                        tta_optim_update_block(&o, p, g, &t[k], lrs[s], o0, rows, (int)cols, cols);
                        o0 += (size_t)rows * cols;
                    }
                }
            else
                tta_optim_step(&o, p, g, t, 41, lrs[s]);
            for (int k = 0; k < 41; k++)
                for (size_t i = t[k].offset; i < t[k].offset + t[k].count; i++)
                    sgd_reference(&c, &pw[i], g[i], &vw[i], lr, t[k].decay ? (float)c.weight_decay : 0.0f);
            memcpy(v, o.state, sizeof v);
            CHECK(!memcmp(p, pw, sizeof p));
            CHECK(!memcmp(v, vw, sizeof v));
        }
        for (int k = 0; k < 41; k++) t[k].fused = 0;
        tta_optim_free(&o);
    }
}

TEST(invalid_configs) {
    tta_optim o;
    tta_opt_config bad = {.kind = TTA_OPT_ADAM, .beta1 = 1.0, .beta2 = 0.999, .eps = 1e-8};
    CHECK(tta_optim_init(&o, &bad, 4) == -1);
    tta_opt_config lars = {.kind = TTA_OPT_LARS, .eta = 0};
    CHECK(tta_optim_init(&o, &lars, 4) == -1);
}

int main(void) {
    RUN(sgd_like_pytorch);
    RUN(caffe_differs_when_lr_changes);
    RUN(adam_and_adamw_like_pytorch);
    RUN(lars_trust_ratio);
    RUN(sgd_same_bits_any_length);
    RUN(invalid_configs);
    return test_summary();
}
