/* test_gradcheck.c: every reference layer's backward against central finite differences of its
 * forward, in double precision (the _d instances of layers_ref.c, the same code as the float
 * layers that the backends are tested against).
 *
 * For a layer y = f(x, w) and a fixed random projection g, L = sum(g * y); the analytic
 * dL/dx and dL/dw come from backward(dout = g); the numeric ones from
 * (L(x + h e_i) - L(x - h e_i)) / 2h with h = 1e-5. Inputs are drawn away from the kinks of
 * ReLU and max (|x| >= 0.1, distinct values), so the comparison is smooth. Pass: relative error
 * below 1e-6 of the largest gradient entry.
 */
#include "replay/engine.h"
#include "tta_test.h"

static uint64_t rs = 2024;
static double drand(void) {
    rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rs >> 11) * 0x1.0p-53 * 2.0 - 1.0;
}
/* values in [-1, -0.1] U [0.1, 1], all distinct */
static double *rnd(size_t n) {
    double *p = malloc(n * sizeof(double) + 8);
    for (size_t i = 0; i < n; i++) {
        double v = drand();
        p[i] = (v < 0 ? -0.1 : 0.1) + 0.9 * v + 1e-7 * (double)i / (double)n;
    }
    return p;
}

#define H 1e-5
#define TOL 1e-6

/* A layer under test: forward(x, w) into y; backward into dx, dw given dy. */
typedef struct {
    size_t nx, nw, ny;
    void (*fwd)(const void *ctx, double *y, const double *x, const double *w);
    void (*bwd)(const void *ctx, double *dx, double *dw, const double *dy, const double *x,
                const double *w, const double *y);
    const void *ctx;
} layer;

static double loss(const layer *l, const double *g, const double *x, const double *w, double *y) {
    l->fwd(l->ctx, y, x, w);
    double s = 0;
    for (size_t i = 0; i < l->ny; i++) s += g[i] * y[i];
    return s;
}

static double check_array(const layer *l, const double *g, double *x, double *w, double *target,
                          size_t n, const double *analytic, double *y) {
    double md = 0, mx = 1e-12;
    for (size_t i = 0; i < n; i++) {
        double keep = target[i];
        target[i] = keep + H;
        double lp = loss(l, g, x, w, y);
        target[i] = keep - H;
        double lm = loss(l, g, x, w, y);
        target[i] = keep;
        double num = (lp - lm) / (2 * H);
        if (fabs(num - analytic[i]) > md) md = fabs(num - analytic[i]);
        if (fabs(analytic[i]) > mx) mx = fabs(analytic[i]);
    }
    return md / mx;
}

static void gradcheck(const char *name, const layer *l) {
    double *x = rnd(l->nx), *w = l->nw ? rnd(l->nw) : NULL, *g = rnd(l->ny);
    double *y = malloc(l->ny * sizeof(double)), *dx = calloc(l->nx, sizeof(double));
    double *dw = l->nw ? calloc(l->nw, sizeof(double)) : NULL;
    l->fwd(l->ctx, y, x, w);
    l->bwd(l->ctx, dx, dw, g, x, w, y);
    double ex = check_array(l, g, x, w, x, l->nx, dx, y);
    double ew = l->nw ? check_array(l, g, x, w, w, l->nw, dw, y) : 0;
    if (!(ex < TOL && ew < TOL)) fprintf(stderr, "%s: input %g, params %g\n", name, ex, ew);
    CHECK(ex < TOL);
    CHECK(ew < TOL);
    free(x), free(w), free(g), free(y), free(dx), free(dw);
}

/* --- conv: w holds the kernel then the bias ------------------------------------------------ */
typedef struct { int B, C, Hh, W, OC, K, S, P, OH, OW; } conv_cfg;
static void conv_f(const void *c_, double *y, const double *x, const double *w) {
    const conv_cfg *c = c_;
    ref_conv_forward_d(y, x, w, w + (size_t)c->OC * c->C * c->K * c->K, c->B, c->C, c->Hh, c->W, c->OC,
                       c->K, c->S, c->P, c->OH, c->OW);
}
static void conv_b(const void *c_, double *dx, double *dw, const double *dy, const double *x,
                   const double *w, const double *y) {
    const conv_cfg *c = c_;
    size_t nk = (size_t)c->OC * c->C * c->K * c->K;
    ref_conv_backward_d(dx, dw, dw + nk, dy, x, w, c->B, c->C, c->Hh, c->W, c->OC, c->K, c->S, c->P,
                        c->OH, c->OW);
}
TEST(conv) {
    conv_cfg cs[] = {{2, 3, 6, 6, 4, 3, 1, 1, 0, 0}, {2, 2, 7, 7, 3, 3, 2, 1, 0, 0}, {1, 4, 5, 5, 2, 1, 1, 0, 0, 0}};
    for (int i = 0; i < 3; i++) {
        conv_cfg *c = &cs[i];
        c->OH = (c->Hh + 2 * c->P - c->K) / c->S + 1;
        c->OW = (c->W + 2 * c->P - c->K) / c->S + 1;
        layer l = {(size_t)c->B * c->C * c->Hh * c->W, (size_t)c->OC * c->C * c->K * c->K + c->OC,
                   (size_t)c->B * c->OC * c->OH * c->OW, conv_f, conv_b, c};
        gradcheck("conv", &l);
    }
}

/* --- batch norm (train mode): w = gamma then beta ------------------------------------------- */
typedef struct { int B, C, HW; } bn_cfg;
static void bn_f(const void *c_, double *y, const double *x, const double *w) {
    const bn_cfg *c = c_;
    ref_bn_forward_d(y, NULL, NULL, x, w, w + c->C, NULL, NULL, c->B, c->C, c->HW, 1e-5, 0.1, 1);
}
static void bn_b(const void *c_, double *dx, double *dw, const double *dy, const double *x,
                 const double *w, const double *y) {
    const bn_cfg *c = c_;
    double mean[16], rstd[16];
    double *tmp = malloc(sizeof(double) * c->B * c->C * c->HW);
    ref_bn_forward_d(tmp, mean, rstd, x, w, w + c->C, NULL, NULL, c->B, c->C, c->HW, 1e-5, 0.1, 1);
    ref_bn_backward_d(dx, dw, dw + c->C, dy, x, w, mean, rstd, c->B, c->C, c->HW);
    free(tmp);
}
TEST(batchnorm) {
    bn_cfg c = {3, 4, 5};
    layer l = {60, 8, 60, bn_f, bn_b, &c};
    gradcheck("bn", &l);
    bn_cfg c2 = {6, 2, 1}; /* after a linear layer: H = W = 1 */
    layer l2 = {12, 4, 12, bn_f, bn_b, &c2};
    gradcheck("bn 1x1", &l2);
}

/* --- element-wise and pooling layers (no parameters) -------------------------------------- */
typedef struct { int B, C, Hh, K, S, P, OH; int kind; } pool_cfg;
static void pool_f(const void *c_, double *y, const double *x, const double *w) {
    const pool_cfg *c = c_;
    switch (c->kind) {
    case 0: ref_maxpool_forward_d(y, x, c->B, c->C, c->Hh, c->Hh, c->K, c->S, c->P, c->OH, c->OH); break;
    case 1: ref_avgpool_forward_d(y, x, c->B, c->C, c->Hh, c->Hh, c->K, c->S, c->P, c->OH, c->OH); break;
    case 2: ref_gap_forward_d(y, x, c->B, c->C, c->Hh * c->Hh); break;
    default: ref_gmp_forward_d(y, x, c->B, c->C, c->Hh * c->Hh); break;
    }
}
static void pool_b(const void *c_, double *dx, double *dw, const double *dy, const double *x,
                   const double *w, const double *y) {
    const pool_cfg *c = c_;
    switch (c->kind) {
    case 0: ref_maxpool_backward_d(dx, dy, x, c->B, c->C, c->Hh, c->Hh, c->K, c->S, c->P, c->OH, c->OH); break;
    case 1: ref_avgpool_backward_d(dx, dy, c->B, c->C, c->Hh, c->Hh, c->K, c->S, c->P, c->OH, c->OH); break;
    case 2: ref_gap_backward_d(dx, dy, c->B, c->C, c->Hh * c->Hh); break;
    default: ref_gmp_backward_d(dx, dy, x, c->B, c->C, c->Hh * c->Hh); break;
    }
}
TEST(pooling) {
    pool_cfg cs[] = {{2, 3, 7, 2, 2, 0, 0, 0}, {2, 2, 6, 3, 2, 1, 0, 0}, {2, 3, 7, 3, 2, 1, 0, 1},
                     {2, 2, 5, 2, 1, 0, 0, 1}, {2, 3, 4, 0, 0, 0, 1, 2}, {2, 3, 4, 0, 0, 0, 1, 3}};
    for (int i = 0; i < 6; i++) {
        pool_cfg *c = &cs[i];
        if (c->kind < 2) c->OH = (c->Hh + 2 * c->P - c->K) / c->S + 1;
        layer l = {(size_t)c->B * c->C * c->Hh * c->Hh, 0, (size_t)c->B * c->C * c->OH * c->OH, pool_f, pool_b, c};
        gradcheck(c->kind == 0 ? "maxpool" : c->kind == 1 ? "avgpool" : c->kind == 2 ? "gap" : "gmp", &l);
    }
}

typedef struct { int B, In, O; } lin_cfg;
static void lin_f(const void *c_, double *y, const double *x, const double *w) {
    const lin_cfg *c = c_;
    ref_linear_forward_d(y, x, w, w + (size_t)c->O * c->In, c->B, c->In, c->O);
}
static void lin_b(const void *c_, double *dx, double *dw, const double *dy, const double *x,
                  const double *w, const double *y) {
    const lin_cfg *c = c_;
    ref_linear_backward_d(dx, dw, dw + (size_t)c->O * c->In, dy, x, w, c->B, c->In, c->O);
}
TEST(linear) {
    lin_cfg c = {3, 7, 5};
    layer l = {21, 40, 15, lin_f, lin_b, &c};
    gradcheck("linear", &l);
}

static void relu_f(const void *c, double *y, const double *x, const double *w) { ref_relu_forward_d(y, x, 40); }
static void relu_b(const void *c, double *dx, double *dw, const double *dy, const double *x, const double *w,
                   const double *y) {
    ref_relu_backward_d(dx, dy, y, 40);
}
static void scale_f(const void *c, double *y, const double *x, const double *w) { ref_scale_forward_d(y, x, 0.125, 40); }
static void scale_b(const void *c, double *dx, double *dw, const double *dy, const double *x, const double *w,
                    const double *y) {
    ref_scale_forward_d(dx, dy, 0.125, 40);
}
static void drop_f(const void *c, double *y, const double *x, const double *w) { ref_dropout_forward_d(y, x, 40, 0.4f, 3, 5); }
static void drop_b(const void *c, double *dx, double *dw, const double *dy, const double *x, const double *w,
                   const double *y) {
    ref_dropout_backward_d(dx, dy, 40, 0.4f, 3, 5);
}
/* add: x holds both operands */
static void add_f(const void *c, double *y, const double *x, const double *w) { ref_add_forward_d(y, x, x + 20, 20); }
static void add_b(const void *c, double *dx, double *dw, const double *dy, const double *x, const double *w,
                  const double *y) {
    memcpy(dx, dy, 20 * sizeof(double)); /* the model routes dout to both inputs */
    memcpy(dx + 20, dy, 20 * sizeof(double));
}
/* option-A shortcut 2x3x5x5 -> 2x6x3x3, pad_front 1 */
static void sc_f(const void *c, double *y, const double *x, const double *w) {
    ref_shortcut_forward_d(y, x, 2, 3, 5, 5, 6, 2, 1, 3, 3);
}
static void sc_b(const void *c, double *dx, double *dw, const double *dy, const double *x, const double *w,
                 const double *y) {
    ref_shortcut_backward_d(dx, dy, 2, 3, 5, 5, 6, 2, 1, 3, 3);
}
TEST(elementwise) {
    layer relu = {40, 0, 40, relu_f, relu_b, NULL}, scale = {40, 0, 40, scale_f, scale_b, NULL};
    layer drop = {40, 0, 40, drop_f, drop_b, NULL}, add = {40, 0, 20, add_f, add_b, NULL};
    layer sc = {150, 0, 108, sc_f, sc_b, NULL};
    gradcheck("relu", &relu);
    gradcheck("scale", &scale);
    gradcheck("dropout", &drop);
    gradcheck("add", &add);
    gradcheck("shortcut", &sc);
}

/* cross-entropy: y is the scalar mean loss; labels fixed; smoothing 0 and 0.2 */
typedef struct { double smoothing; } xent_cfg;
static const int32_t xlab[4] = {2, 0, 4, 4};
static void xent_f(const void *c_, double *y, const double *x, const double *w) {
    const xent_cfg *c = c_;
    y[0] = ref_xent_forward_d(x, xlab, 4, 5, c->smoothing, NULL);
}
static void xent_b(const void *c_, double *dx, double *dw, const double *dy, const double *x, const double *w,
                   const double *y) {
    const xent_cfg *c = c_;
    ref_xent_backward_d(dx, x, xlab, 4, 5, c->smoothing);
    for (int i = 0; i < 20; i++) dx[i] *= dy[0];
}
TEST(cross_entropy) {
    xent_cfg a = {0.0}, b = {0.2};
    layer la = {20, 0, 1, xent_f, xent_b, &a}, lb = {20, 0, 1, xent_f, xent_b, &b};
    gradcheck("xent", &la);
    gradcheck("xent smoothing", &lb);
}

/* The check itself must be able to fail: a backward that is off by 1% is caught. */
static void lin_b_wrong(const void *c_, double *dx, double *dw, const double *dy, const double *x,
                        const double *w, const double *y) {
    lin_b(c_, dx, dw, dy, x, w, y);
    dw[3] *= 1.01;
}
TEST(detects_a_wrong_gradient) {
    lin_cfg c = {3, 7, 5};
    layer l = {21, 40, 15, lin_f, lin_b_wrong, &c};
    double *x = rnd(21), *w = rnd(40), *g = rnd(15), *y = malloc(15 * sizeof(double));
    double *dx = calloc(21, sizeof(double)), *dw = calloc(40, sizeof(double));
    l.bwd(l.ctx, dx, dw, g, x, w, y);
    CHECK(check_array(&l, g, x, w, w, 40, dw, y) > 1e-4);
    free(x), free(w), free(g), free(y), free(dx), free(dw);
}

int main(void) {
    RUN(conv);
    RUN(batchnorm);
    RUN(pooling);
    RUN(linear);
    RUN(elementwise);
    RUN(cross_entropy);
    RUN(detects_a_wrong_gradient);
    return test_summary();
}
