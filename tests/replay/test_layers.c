/* test_layers.c: every op of each fast backend against the reference backend (the plain C
 * layers), forward and backward: the cpu backend (oneDNN, sgemm, its own loops) and, where
 * built and a device is present, the cuda backend (cuDNN, cuBLAS, its kernels). Shapes cover
 * both of the cpu backend's layouts (nChw8c when C % 8 == 0, NCHW otherwise), odd sizes,
 * strides, padding, negative right padding (7x7 max pool to 3x3), fused ReLU, and skipped
 * input gradients; plus hand-computed values of the reference layers themselves.
 *
 * All data moves through the backend's upload/download functions (never by dereferencing
 * device memory), so the same checks hold for a backend whose memory is on a GPU. Without a
 * CUDA device the cuda part prints "test_layers: cuda: skipped: <reason>" and the rest runs.
 */
#include <assert.h>
#include <strings.h>

#include "replay/engine.h"
#include "tta_test.h"

static tta_backend *tb, *ref; /* the backend under test, the reference */

static uint64_t rs = 12345;
static float frand(void) {
    rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
    return (float)((rs >> 40) * (1.0 / 16777216.0)) * 2.0f - 1.0f;
}
static float *rnd(size_t n) {
    float *p = malloc(n * sizeof(float) + 4);
    for (size_t i = 0; i < n; i++) p[i] = frand();
    return p;
}

/* Both backends' view of one tensor: host NCHW values, device copies in each layout. */
typedef struct {
    tta_shape s;
    float *host;
    float *dt, *dr; /* cpu, reference device memory */
} ten;

static ten ten_new(tta_shape s, int random) {
    ten t = {.s = s};
    size_t n = tta_shape_count(s);
    t.host = random ? rnd(n) : calloc(n + 1, sizeof(float));
    t.dt = tb->ops->alloc(tb->ctx, n * sizeof(float));
    t.dr = ref->ops->alloc(ref->ctx, n * sizeof(float));
    tb->ops->tensor_upload(tb->ctx, t.dt, t.host, s);
    ref->ops->tensor_upload(ref->ctx, t.dr, t.host, s);
    return t;
}
static void ten_free(ten *t) {
    free(t->host);
    tb->ops->free(tb->ctx, t->dt);
    ref->ops->free(ref->ctx, t->dr);
}

/* Plain (parameter) arrays: same bytes on both backends. */
typedef struct {
    size_t n;
    float *host, *dt, *dr;
} arr;
static arr arr_new(size_t n, int random) {
    arr a = {.n = n};
    a.host = random ? rnd(n) : calloc(n + 1, sizeof(float));
    a.dt = tb->ops->alloc(tb->ctx, n * sizeof(float) + 4);
    a.dr = ref->ops->alloc(ref->ctx, n * sizeof(float) + 4);
    tb->ops->upload(tb->ctx, a.dt, a.host, n * sizeof(float));
    ref->ops->upload(ref->ctx, a.dr, a.host, n * sizeof(float));
    return a;
}
static void arr_free(arr *a) {
    free(a->host);
    tb->ops->free(tb->ctx, a->dt);
    ref->ops->free(ref->ctx, a->dr);
}

/* max |tested - ref| relative to max |ref| */
static double cmp_tensor(const ten *t) {
    size_t n = tta_shape_count(t->s);
    float *a = malloc(n * sizeof(float)), *b = malloc(n * sizeof(float));
    tb->ops->tensor_download(tb->ctx, a, t->dt, t->s);
    ref->ops->tensor_download(ref->ctx, b, t->dr, t->s);
    double md = 0, mr = 1e-6;
    for (size_t i = 0; i < n; i++) {
        if (fabs(a[i] - b[i]) > md) md = fabs(a[i] - b[i]);
        if (fabs(b[i]) > mr) mr = fabs(b[i]);
    }
    free(a);
    free(b);
    return md / mr;
}
static double cmp_arr(const arr *t) {
    float *a = malloc(t->n * sizeof(float) + 4), *b = malloc(t->n * sizeof(float) + 4);
    tb->ops->download(tb->ctx, a, t->dt, t->n * sizeof(float));
    ref->ops->download(ref->ctx, b, t->dr, t->n * sizeof(float));
    double md = 0, mr = 1e-6;
    for (size_t i = 0; i < t->n; i++) {
        if (fabs(a[i] - b[i]) > md) md = fabs(a[i] - b[i]);
        if (fabs(b[i]) > mr) mr = fabs(b[i]);
    }
    free(a);
    free(b);
    return md / mr;
}
/* Uploads a->host (changed by the caller) to both backends. */
static void arr_sync(arr *a) {
    tb->ops->upload(tb->ctx, a->dt, a->host, a->n * sizeof(float));
    ref->ops->upload(ref->ctx, a->dr, a->host, a->n * sizeof(float));
}

typedef struct {
    tta_op c, r;
    void *sc, *sr;
} opair;

static int opair_init(opair *o, const tta_op *tmpl) {
    char err[256];
    o->c = *tmpl;
    o->r = *tmpl;
    if (tb->ops->op_init(tb->ctx, &o->c, err, sizeof err)) {
        fprintf(stderr, "%s op_init(%s): %s\n", tb->ops->name, tta_op_kind_name(tmpl->kind), err);
        return -1;
    }
    if (ref->ops->op_init(ref->ctx, &o->r, err, sizeof err)) return -1;
    o->c.saved = tb->ops->alloc(tb->ctx, o->c.saved_bytes);
    o->c.scratch = tb->ops->alloc(tb->ctx, o->c.scratch_bytes);
    o->r.saved = ref->ops->alloc(ref->ctx, o->r.saved_bytes);
    o->r.scratch = ref->ops->alloc(ref->ctx, o->r.scratch_bytes);
    return 0;
}
static void opair_free(opair *o) {
    tb->ops->free(tb->ctx, o->c.saved);
    tb->ops->free(tb->ctx, o->c.scratch);
    ref->ops->free(ref->ctx, o->r.saved);
    ref->ops->free(ref->ctx, o->r.scratch);
    tb->ops->op_release(tb->ctx, &o->c);
    ref->ops->op_release(ref->ctx, &o->r);
}

#define TOL 2e-5

/* Readies op (a copy of a template: its impl, saved and scratch are not its own) on the backend
 * under test: op_init, then its saved state and scratch allocated. 0, or -1 with op_init's
 * message on stderr. */
static int op_up(tta_op *op) {
    char err[256];
    op->impl = NULL, op->saved = op->scratch = NULL;
    if (tb->ops->op_init(tb->ctx, op, err, sizeof err) != 0) {
        fprintf(stderr, "op_init: %s\n", err);
        return -1;
    }
    op->saved = tb->ops->alloc(tb->ctx, op->saved_bytes);
    op->scratch = tb->ops->alloc(tb->ctx, op->scratch_bytes);
    return 0;
}

/* Undoes op_up. */
static void op_down(tta_op *op) {
    tb->ops->free(tb->ctx, op->saved);
    tb->ops->free(tb->ctx, op->scratch);
    tb->ops->op_release(tb->ctx, op);
}

/* A batch norm's results on the backend under test into s, C floats each: dgamma, dbeta and,
 * with n = 4, the running mean and variance. */
static void stats_get(float *s, int n, int C, const arr *dg, const arr *db, const arr *rm, const arr *rv) {
    assert(n == 2 || (n == 4 && rm && rv));
    tb->ops->download(tb->ctx, s, dg->dt, C * sizeof(float));
    tb->ops->download(tb->ctx, s + C, db->dt, C * sizeof(float));
    if (n == 4) {
        tb->ops->download(tb->ctx, s + 2 * C, rm->dt, C * sizeof(float));
        tb->ops->download(tb->ctx, s + 3 * C, rv->dt, C * sizeof(float));
    }
}

/* Runs one convolution on both backends, forward and backward, training and inference; returns
 * the training op's algorithm on the backend under test (tta_op.algorithm: static, or NULL). */
static const char *conv_case_hw(int N, int C, int H, int W, int OC, int K, int S, int P, int bias, int relu,
                                int need_dinp) {
    int OH = (H + 2 * P - K) / S + 1, OW = (W + 2 * P - K) / S + 1;
    tta_op t = {.kind = TTA_OP_CONV, .train = 1, .need_dinp = need_dinp, .in = {N, C, H, W},
                .out = {N, OC, OH, OW}, .kernel = K, .stride = S, .pad = P, .bias = bias, .relu = relu};
    opair o;
    CHECK(opair_init(&o, &t) == 0);
    ten x = ten_new(t.in, 1), y = ten_new(t.out, 0), dy = ten_new(t.out, 1), dx = ten_new(t.in, 0);
    arr w = arr_new((size_t)OC * C * K * K, 1), b = arr_new(OC, 1), dw = arr_new(w.n, 0), db = arr_new(OC, 0);
    tb->ops->conv_prepare(tb->ctx, &o.c, w.dt, b.dt);
    ref->ops->conv_prepare(ref->ctx, &o.r, w.dr, b.dr);
    tb->ops->conv_forward(tb->ctx, &o.c, y.dt, x.dt);
    ref->ops->conv_forward(ref->ctx, &o.r, y.dr, x.dr);
    double e = cmp_tensor(&y);
    if (!(e < TOL)) fprintf(stderr, "[%s] conv fwd C%d H%d OC%d K%d S%d P%d: %g\n", tb->ops->name, C, H, OC, K, S, P, e);
    CHECK(e < TOL);
    tb->ops->conv_backward(tb->ctx, &o.c, dx.dt, dw.dt, bias ? db.dt : NULL, dy.dt, x.dt, y.dt);
    ref->ops->conv_backward(ref->ctx, &o.r, dx.dr, dw.dr, bias ? db.dr : NULL, dy.dr, x.dr, y.dr);
    if (need_dinp) CHECK(cmp_tensor(&dx) < TOL);
    e = cmp_arr(&dw);
    if (!(e < TOL)) fprintf(stderr, "[%s] conv dw C%d H%d OC%d K%d S%d P%d: %g\n", tb->ops->name, C, H, OC, K, S, P, e);
    CHECK(e < TOL);
    if (bias) CHECK(cmp_arr(&db) < TOL);
    /* inference op with the same weights gives the same output */
    tta_op ti = t;
    ti.train = 0;
    opair oi;
    CHECK(opair_init(&oi, &ti) == 0);
    tb->ops->conv_prepare(tb->ctx, &oi.c, w.dt, b.dt);
    ref->ops->conv_prepare(ref->ctx, &oi.r, w.dr, b.dr);
    tb->ops->conv_forward(tb->ctx, &oi.c, y.dt, x.dt);
    ref->ops->conv_forward(ref->ctx, &oi.r, y.dr, x.dr);
    CHECK(cmp_tensor(&y) < TOL);
    opair_free(&oi);
    ten_free(&x), ten_free(&y), ten_free(&dy), ten_free(&dx);
    arr_free(&w), arr_free(&b), arr_free(&dw), arr_free(&db);
    const char *algorithm = o.c.algorithm;
    opair_free(&o);
    return algorithm;
}
static const char *conv_case(int N, int C, int H, int OC, int K, int S, int P, int bias, int relu, int need_dinp) {
    return conv_case_hw(N, C, H, H, OC, K, S, P, bias, relu, need_dinp);
}

/* Whether oneDNN runs AVX-512 kernels here (the host has AVX-512 and ONEDNN_MAX_CPU_ISA does not
 * cap it below): then, and only then, the cpu backend has oneDNN's Winograd convolutions. */
static int onednn_runs_avx512(void) {
    const char *cap = getenv("ONEDNN_MAX_CPU_ISA");
    if (cap && (!strncasecmp(cap, "AVX2", 4) || !strncasecmp(cap, "SSE", 3) || !strcasecmp(cap, "AVX"))) return 0;
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
}

/* The convolution rule the cpu backend follows (cpu_internal.h CPU_CONV_RULE_*): TTA_CONV_RULE
 * where set, else the CPU's vendor and AMD family. Whether it is amd (Zen 5's), and whether zen4. */
static int conv_rule_is(const char *name) {
    const char *rule = getenv("TTA_CONV_RULE");
    if (rule) return strcmp(rule, name) == 0;
    __builtin_cpu_init();
    const char *host = !__builtin_cpu_is("amd") ? "intel" : __builtin_cpu_is("amdfam19h") ? "zen4" : "amd";
    return strcmp(host, name) == 0;
}
static int conv_rule_direct(void) {
    const char *rule = getenv("TTA_CONV_RULE");
    return rule && !strcmp(rule, "direct");
}
/* Whether the host runs tta's own Winograd (cpu_conv_wino.c) on 3x3 convolutions between
 * nChw8c maps: it has AVX2 and FMA, and the rule is not direct. */
static int own_winograd_here(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && !conv_rule_direct();
}

/* The cpu backend's Winograd convolutions (docs/replay.md "Winograd convolutions"): the results
 * within the same tolerance of the reference as the direct ones, on fmnist-cnn's four 3x3
 * shapes at small batches, and each shape on the algorithms the rule in cpu_dnnl.c gives.
 * On AVX-512: intel: oneDNN's, the forward too where ic*oc/(ic+oc) >= 20, only the backward
 * below; amd: oneDNN's forward and data gradient where ic*oc/(ic+oc) >= 20, the weight gradient
 * always direct; zen4: tta's own (every pass) where ic*oc/(ic+oc) < 24, above it as intel. Where
 * oneDNN runs AVX2 kernels (nChw8c maps): tta's own, every pass of every such shape.
 * TTA_CONV_RULE=direct, or off 3x3 stride 1: direct. */
TEST(conv_winograd_matches_reference) {
    int cpu = strcmp(tb->ops->name, "cpu") == 0, wino = cpu && onednn_runs_avx512() && !conv_rule_direct();
    int amd = conv_rule_is("amd"), own = cpu && !onednn_runs_avx512() && own_winograd_here();
    int own16 = wino && conv_rule_is("zen4"); /* tta's own on nChw16c maps, below 24 */
    const char *a, *big = own ? "winograd" : !wino ? "direct" : amd ? "winograd forward+data" : "winograd";
    const char *small = own || own16 ? "winograd" : !wino || amd ? "direct" : "winograd backward";
    a = conv_case(3, 32, 14, 64, 3, 1, 1, 1, 1, 1); /* layer2: bias, fused ReLU, odd batch */
    if (cpu) CHECK(a && !strcmp(a, own16 ? "winograd" : big));
    a = conv_case(2, 64, 7, 64, 3, 1, 1, 0, 0, 1);  /* res2 */
    if (cpu) CHECK(a && !strcmp(a, big));
    a = conv_case(2, 16, 28, 32, 3, 1, 1, 0, 0, 1); /* layer1 */
    if (cpu) CHECK(a && !strcmp(a, small));
    a = conv_case(2, 32, 14, 32, 3, 1, 1, 0, 0, 0); /* res1, no input gradient */
    if (cpu) CHECK(a && !strcmp(a, small));
    a = conv_case(2, 64, 7, 64, 3, 1, 1, 0, 0, 0);  /* no input gradient: amd's forward only */
    if (cpu) CHECK(a && !strcmp(a, own ? "winograd" : !wino ? "direct" : amd ? "winograd forward" : "winograd"));
    a = conv_case(2, 32, 14, 64, 3, 2, 1, 0, 0, 1); /* stride 2: direct everywhere */
    if (cpu) CHECK(a && !strcmp(a, "direct"));
    a = conv_case(2, 1, 28, 16, 3, 1, 1, 0, 0, 0);  /* one input channel: direct */
    if (cpu) CHECK(a && !strcmp(a, "direct"));
}

/* tta's own Winograd F(2x2, 3x3) (cpu_conv_wino.c) off fmnist-cnn's shapes: maps whose sides
 * are odd, unequal or 1 (tiles cut by the edge), channel counts that are not a multiple of 16
 * (the products' 8-wide column block), a band split (28x27 with 40 channels on both sides does
 * not fit one band), units of several images (3x3 maps), bias and ReLU; forward, data, weight
 * and bias gradients each against the reference. Maps of 24 or 40 channels are
 * nChw8c on AVX-512 hosts too, so these run tta's Winograd there as well. Then the same op with
 * 1 and 3 threads: the same bits, forward, data, weight and bias gradients. */
TEST(conv_own_winograd_edges) {
    int own = strcmp(tb->ops->name, "cpu") == 0 && own_winograd_here();
    /* nChw16c maps (on AVX-512 under the zen4 rule, ic*oc/(ic+oc) < 24): the 16-wide column block */
    int own16 = own && onednn_runs_avx512() && conv_rule_is("zen4");
    const char *b16 = conv_case_hw(3, 16, 5, 9, 48, 3, 1, 1, 1, 1, 1); /* odd sides, 32 + 16 columns */
    if (own16) CHECK(b16 && !strcmp(b16, "winograd"));
    b16 = conv_case_hw(2, 48, 28, 27, 32, 3, 1, 1, 1, 0, 1); /* several bands of tile rows */
    if (own16) CHECK(b16 && !strcmp(b16, "winograd"));
    b16 = conv_case_hw(7, 32, 3, 3, 48, 3, 1, 1, 0, 0, 1); /* several images a unit, the last one short */
    if (own16) CHECK(b16 && !strcmp(b16, "winograd"));
    b16 = conv_case_hw(2, 32, 1, 1, 16, 3, 1, 1, 0, 1, 0); /* a 1x1 map, no input gradient */
    if (own16) CHECK(b16 && !strcmp(b16, "winograd"));
    const char *a = conv_case_hw(3, 24, 5, 9, 40, 3, 1, 1, 1, 1, 1); /* odd sides, 8-wide columns */
    if (own) CHECK(a && !strcmp(a, "winograd"));
    a = conv_case_hw(2, 40, 1, 1, 24, 3, 1, 1, 1, 0, 1); /* a 1x1 map: one tile, 8 of 9 taps padding */
    if (own) CHECK(a && !strcmp(a, "winograd"));
    a = conv_case_hw(2, 24, 2, 7, 24, 3, 1, 1, 0, 1, 0); /* no input gradient */
    if (own) CHECK(a && !strcmp(a, "winograd"));
    a = conv_case_hw(2, 40, 28, 27, 40, 3, 1, 1, 1, 0, 1); /* several bands of tile rows, a bias */
    if (own) CHECK(a && !strcmp(a, "winograd"));
    a = conv_case_hw(7, 56, 3, 3, 56, 3, 1, 1, 1, 0, 1); /* several images a unit, the last one short */
    if (own) CHECK(a && !strcmp(a, "winograd"));
    if (!own || !tb->ops->set_threads) return;
    tta_op t = {.kind = TTA_OP_CONV, .train = 1, .need_dinp = 1, .in = {5, 24, 11, 11}, .out = {5, 40, 11, 11},
                .kernel = 3, .stride = 1, .pad = 1, .bias = 1, .relu = 0};
    tb->ops->set_threads(tb->ctx, 3);
    opair o;
    CHECK(opair_init(&o, &t) == 0);
    ten x = ten_new(t.in, 1), y = ten_new(t.out, 0), dy = ten_new(t.out, 1), dx = ten_new(t.in, 0);
    arr w = arr_new((size_t)40 * 24 * 9, 1), b = arr_new(40, 1), dw = arr_new(w.n, 0), db = arr_new(40, 0);
    size_t ny = tta_shape_count(t.out), nx = tta_shape_count(t.in);
    float *y3 = malloc(ny * sizeof(float)), *dx3 = malloc(nx * sizeof(float));
    float *y1 = malloc(ny * sizeof(float)), *dx1 = malloc(nx * sizeof(float));
    float *dw3 = malloc((w.n + 40) * sizeof(float)), *dw1 = malloc((w.n + 40) * sizeof(float));
    for (int threads = 3; threads >= 1; threads -= 2) {
        tb->ops->set_threads(tb->ctx, threads);
        tb->ops->conv_prepare(tb->ctx, &o.c, w.dt, b.dt);
        tb->ops->conv_forward(tb->ctx, &o.c, y.dt, x.dt);
        tb->ops->conv_backward(tb->ctx, &o.c, dx.dt, dw.dt, db.dt, dy.dt, x.dt, y.dt);
        tb->ops->tensor_download(tb->ctx, threads == 3 ? y3 : y1, y.dt, t.out);
        tb->ops->tensor_download(tb->ctx, threads == 3 ? dx3 : dx1, dx.dt, t.in);
        tb->ops->download(tb->ctx, threads == 3 ? dw3 : dw1, dw.dt, w.n * sizeof(float));
        tb->ops->download(tb->ctx, (threads == 3 ? dw3 : dw1) + w.n, db.dt, 40 * sizeof(float));
    }
    CHECK(!memcmp(y1, y3, ny * sizeof(float)));
    CHECK(!memcmp(dx1, dx3, nx * sizeof(float)));
    CHECK(!memcmp(dw1, dw3, (w.n + 40) * sizeof(float)));
    tb->ops->set_threads(tb->ctx, 2);
    free(y1), free(y3), free(dx1), free(dx3), free(dw1), free(dw3);
    ten_free(&x), ten_free(&y), ten_free(&dy), ten_free(&dx);
    arr_free(&w), arr_free(&b), arr_free(&dw), arr_free(&db);
    opair_free(&o);
}

TEST(conv_matches_reference) {
    conv_case(2, 3, 9, 8, 3, 1, 1, 1, 0, 0);    /* NCHW in, blocked out, first layer */
    conv_case(2, 1, 28, 16, 3, 1, 1, 0, 0, 0);  /* the fmnist-cnn prep layer */
    conv_case(3, 3, 11, 16, 3, 2, 1, 1, 1, 0);  /* first layer, stride 2, fused ReLU, odd batch */
    conv_case(1, 1, 12, 8, 5, 1, 0, 1, 0, 0);   /* first layer 5x5, one sample (a thread idle) */
    conv_case(2, 3, 15, 16, 7, 2, 3, 0, 1, 0);  /* an ImageNet-style 7x7/2 stem */
    conv_case(2, 3, 9, 8, 9, 1, 4, 1, 0, 0);    /* a kernel above the direct loops' limit */
    conv_case(2, 8, 8, 16, 3, 2, 1, 0, 1, 1);   /* blocked, stride 2, fused ReLU */
    conv_case(2, 16, 7, 8, 1, 1, 0, 1, 0, 1);   /* 1x1 */
    conv_case(2, 16, 8, 32, 1, 2, 0, 0, 0, 1);  /* option-B shortcut */
    conv_case(2, 6, 10, 16, 5, 1, 0, 1, 1, 1);  /* LeNet conv2: NCHW in */
    conv_case(3, 16, 5, 16, 3, 1, 1, 0, 0, 1);
    conv_case(2, 5, 6, 3, 3, 1, 2, 1, 0, 1);    /* NCHW both sides, big padding */
}

static void bn_case(int N, int C, int H, int relu) {
    tta_op t = {.kind = TTA_OP_BN, .train = 1, .need_dinp = 1, .in = {N, C, H, H}, .out = {N, C, H, H},
                .eps = 1e-5f, .momentum = 0.1f, .relu = relu};
    opair o;
    CHECK(opair_init(&o, &t) == 0);
    ten x = ten_new(t.in, 1), y = ten_new(t.out, 0), dy = ten_new(t.out, 1), dx = ten_new(t.in, 0);
    for (size_t i = 0; i < tta_shape_count(t.in); i++) x.host[i] = 3.0f + 2.0f * x.host[i];
    tb->ops->tensor_upload(tb->ctx, x.dt, x.host, x.s);
    ref->ops->tensor_upload(ref->ctx, x.dr, x.host, x.s);
    arr g = arr_new(C, 1), b = arr_new(C, 1), dg = arr_new(C, 0), db = arr_new(C, 0);
    arr rm = arr_new(C, 1), rv = arr_new(C, 0);
    for (int c = 0; c < C; c++) rv.host[c] = 1.0f + 0.5f * c;
    arr_sync(&rv);
    tb->ops->bn_forward(tb->ctx, &o.c, y.dt, x.dt, g.dt, b.dt, rm.dt, rv.dt);
    ref->ops->bn_forward(ref->ctx, &o.r, y.dr, x.dr, g.dr, b.dr, rm.dr, rv.dr);
    CHECK(cmp_tensor(&y) < 1e-5);
    CHECK(cmp_arr(&rm) < 1e-5);
    CHECK(cmp_arr(&rv) < 1e-5);
    tb->ops->bn_backward(tb->ctx, &o.c, dx.dt, dg.dt, db.dt, dy.dt, x.dt, y.dt, g.dt, b.dt);
    ref->ops->bn_backward(ref->ctx, &o.r, dx.dr, dg.dr, db.dr, dy.dr, x.dr, y.dr, g.dr, b.dr);
    double e = cmp_tensor(&dx);
    if (!(e < 1e-4)) fprintf(stderr, "[%s] bn dx N%d C%d H%d relu%d: %g\n", tb->ops->name, N, C, H, relu, e);
    CHECK(e < 1e-4);
    CHECK(cmp_arr(&dg) < 1e-4);
    CHECK(cmp_arr(&db) < 1e-5);
    /* eval mode: running statistics */
    tta_op te = t;
    te.train = 0;
    opair oe;
    CHECK(opair_init(&oe, &te) == 0);
    tb->ops->bn_forward(tb->ctx, &oe.c, y.dt, x.dt, g.dt, b.dt, rm.dt, rv.dt);
    ref->ops->bn_forward(ref->ctx, &oe.r, y.dr, x.dr, g.dr, b.dr, rm.dr, rv.dr);
    CHECK(cmp_tensor(&y) < 1e-5);
    opair_free(&oe);
    ten_free(&x), ten_free(&y), ten_free(&dy), ten_free(&dx);
    arr_free(&g), arr_free(&b), arr_free(&dg), arr_free(&db), arr_free(&rm), arr_free(&rv);
    opair_free(&o);
}

TEST(bn_matches_reference) {
    bn_case(4, 8, 5, 0);
    bn_case(4, 16, 6, 1);
    bn_case(3, 6, 4, 1); /* NCHW */
    bn_case(8, 32, 1, 0);
    bn_case(6, 64, 9, 1);  /* several channel blocks per sample, planes split among threads */
}

/* ties: inputs from {-1, 0, 1}, so most windows hold several maxima (the gradient goes to the
 * first) */
static void pool_case_t(tta_op_kind kind, int N, int C, int H, int K, int S, int P, int ties) {
    int OH = kind == TTA_OP_GAP || kind == TTA_OP_GMP ? 1 : (H + 2 * P - K) / S + 1;
    tta_op t = {.kind = kind, .train = 1, .need_dinp = 1, .in = {N, C, H, H}, .out = {N, C, OH, OH},
                .kernel = K, .stride = S, .pad = P};
    opair o;
    CHECK(opair_init(&o, &t) == 0);
    ten x = ten_new(t.in, 1), y = ten_new(t.out, 0), dy = ten_new(t.out, 1), dx = ten_new(t.in, 0);
    if (ties) {
        for (size_t i = 0; i < tta_shape_count(t.in); i++) x.host[i] = roundf(x.host[i]);
        tb->ops->tensor_upload(tb->ctx, x.dt, x.host, x.s);
        ref->ops->tensor_upload(ref->ctx, x.dr, x.host, x.s);
    }
    tb->ops->pool_forward(tb->ctx, &o.c, y.dt, x.dt);
    ref->ops->pool_forward(ref->ctx, &o.r, y.dr, x.dr);
    double e = cmp_tensor(&y);
    if (!(e < 1e-6)) fprintf(stderr, "[%s] %s fwd C%d H%d K%d S%d P%d: %g\n", tb->ops->name, tta_op_kind_name(kind), C, H, K, S, P, e);
    CHECK(e < 1e-6);
    tb->ops->pool_backward(tb->ctx, &o.c, dx.dt, dy.dt, x.dt, y.dt);
    ref->ops->pool_backward(ref->ctx, &o.r, dx.dr, dy.dr, x.dr, y.dr);
    e = cmp_tensor(&dx);
    if (!(e < 1e-6)) fprintf(stderr, "[%s] %s bwd C%d H%d K%d S%d P%d: %g\n", tb->ops->name, tta_op_kind_name(kind), C, H, K, S, P, e);
    CHECK(e < 1e-6);
    ten_free(&x), ten_free(&y), ten_free(&dy), ten_free(&dx);
    opair_free(&o);
}

static void pool_case(tta_op_kind kind, int N, int C, int H, int K, int S, int P) {
    pool_case_t(kind, N, C, H, K, S, P, 0);
}

TEST(pooling_matches_reference) {
    pool_case_t(TTA_OP_MAXPOOL, 2, 16, 8, 2, 2, 0, 1);
    pool_case_t(TTA_OP_MAXPOOL, 2, 8, 9, 3, 2, 1, 1); /* overlapping windows */
    pool_case_t(TTA_OP_MAXPOOL, 2, 5, 7, 3, 1, 1, 1);
    pool_case_t(TTA_OP_GMP, 2, 16, 4, 0, 0, 0, 1);
    pool_case(TTA_OP_MAXPOOL, 2, 16, 8, 2, 2, 0);
    pool_case(TTA_OP_MAXPOOL, 2, 16, 7, 2, 2, 0); /* 7 -> 3: the last row is not read */
    pool_case(TTA_OP_MAXPOOL, 2, 8, 8, 3, 2, 1);
    pool_case(TTA_OP_MAXPOOL, 2, 6, 10, 2, 2, 0); /* NCHW */
    pool_case(TTA_OP_AVGPOOL, 2, 16, 8, 2, 2, 0);
    pool_case(TTA_OP_AVGPOOL, 2, 8, 7, 3, 1, 1);
    pool_case(TTA_OP_AVGPOOL, 2, 5, 7, 3, 2, 1);
    pool_case(TTA_OP_GAP, 2, 16, 5, 0, 0, 0);
    pool_case(TTA_OP_GAP, 2, 6, 3, 0, 0, 0);
    pool_case(TTA_OP_GMP, 2, 16, 3, 0, 0, 0);
    pool_case(TTA_OP_GMP, 2, 5, 4, 0, 0, 0);
}

/* Max pooling bit for bit against the rule the cpu backend documents (cpu_pool.c): each window
 * scanned row-major from its first pixel, a pixel taken when it is > the best so far (so the
 * first maximum wins, +0 after -0 does not replace it, a NaN is never taken, and a NaN first
 * pixel stays), its gradient written there and +0 elsewhere. Inputs from {-inf, -1, -0, +0, 1,
 * +inf, NaN} and random values, on the shapes of the fast paths (2x2 stride 2, global max pool;
 * 8 and 16 channel blocks, several planes per thread) and of the general loops. Also against the
 * reference layers where NaN plays no part (the reference starts its forward from -inf). */
static void pool_scan_case(tta_op_kind kind, int N, int C, int H, int K, int S, int P, int nan) {
    int gm = kind == TTA_OP_GMP, OH = gm ? 1 : (H + 2 * P - K) / S + 1, KW = gm ? H : K, SS = gm ? 1 : S;
    tta_op t = {.kind = kind, .train = 1, .need_dinp = 1, .in = {N, C, H, H}, .out = {N, C, OH, OH},
                .kernel = K, .stride = S, .pad = P};
    opair o;
    CHECK(opair_init(&o, &t) == 0);
    ten x = ten_new(t.in, 1), y = ten_new(t.out, 0), dy = ten_new(t.out, 1), dx = ten_new(t.in, 0);
    const float special[] = {-INFINITY, -1.0f, -0.0f, 0.0f, 1.0f, INFINITY, NAN};
    size_t ni = tta_shape_count(t.in), no = tta_shape_count(t.out);
    for (size_t i = 0; i < ni; i++) {
        float r = frand();
        if (r < 0.6f) x.host[i] = special[(size_t)((r + 1.0f) / 1.6f * (nan ? 7 : 6)) % (nan ? 7 : 6)];
    }
    tb->ops->tensor_upload(tb->ctx, x.dt, x.host, x.s);
    ref->ops->tensor_upload(ref->ctx, x.dr, x.host, x.s);
    float *ey = calloc(no, sizeof(float)), *edx = calloc(ni, sizeof(float));
    for (size_t nc = 0; nc < (size_t)N * C; nc++)
        for (int oh = 0; oh < OH; oh++)
            for (int ow = 0; ow < OH; ow++) {
                int found = 0, at = 0;
                float best = 0;
                for (int kh = 0; kh < KW; kh++)
                    for (int kw = 0; kw < KW; kw++) {
                        int ih = oh * SS - P + kh, iw = ow * SS - P + kw;
                        if (ih < 0 || ih >= H || iw < 0 || iw >= H) continue;
                        float v = x.host[nc * H * H + ih * H + iw];
                        if (!found || v > best) best = v, at = ih * H + iw;
                        found = 1;
                    }
                ey[nc * OH * OH + oh * OH + ow] = best;
                edx[nc * H * H + at] += dy.host[nc * OH * OH + oh * OH + ow];
            }
    float *gy = malloc(no * sizeof(float)), *gdx = malloc(ni * sizeof(float));
    tb->ops->pool_forward(tb->ctx, &o.c, y.dt, x.dt);
    tb->ops->pool_backward(tb->ctx, &o.c, dx.dt, dy.dt, x.dt, y.dt);
    tb->ops->tensor_download(tb->ctx, gy, y.dt, t.out);
    tb->ops->tensor_download(tb->ctx, gdx, dx.dt, t.in);
    int fy = memcmp(gy, ey, no * sizeof(float)) != 0, fdx = memcmp(gdx, edx, ni * sizeof(float)) != 0;
    if (fy || fdx)
        fprintf(stderr, "[%s] %s scan rule C%d H%d K%d S%d P%d nan%d: forward %s, backward %s\n", tb->ops->name,
                tta_op_kind_name(kind), C, H, K, S, P, nan, fy ? "differs" : "same", fdx ? "differs" : "same");
    CHECK(!fy);
    CHECK(!fdx);
    if (!nan) { /* the reference layers: the same bits */
        ref->ops->pool_forward(ref->ctx, &o.r, y.dr, x.dr);
        ref->ops->pool_backward(ref->ctx, &o.r, dx.dr, dy.dr, x.dr, y.dr);
        ref->ops->tensor_download(ref->ctx, ey, y.dr, t.out);
        ref->ops->tensor_download(ref->ctx, edx, dx.dr, t.in);
        CHECK(memcmp(gy, ey, no * sizeof(float)) == 0);
        CHECK(memcmp(gdx, edx, ni * sizeof(float)) == 0);
    }
    free(ey), free(edx), free(gy), free(gdx);
    ten_free(&x), ten_free(&y), ten_free(&dy), ten_free(&dx);
    opair_free(&o);
}

TEST(maxpool_bits_match_scan_rule) {
    if (strcmp(tb->ops->name, "cpu") != 0) return; /* the cpu backend's rule (cuDNN has its own) */
    for (int nan = 0; nan <= 1; nan++) {
        pool_scan_case(TTA_OP_MAXPOOL, 3, 8, 8, 2, 2, 0, nan);   /* 2x2: nChw8c on every ISA */
        pool_scan_case(TTA_OP_MAXPOOL, 3, 16, 8, 2, 2, 0, nan);  /* nChw16c with AVX-512 */
        pool_scan_case(TTA_OP_MAXPOOL, 3, 24, 6, 2, 2, 0, nan);  /* nChw8c on an AVX-512 host */
        pool_scan_case(TTA_OP_MAXPOOL, 2, 48, 28, 2, 2, 0, nan); /* pool1's rows, planes split */
        pool_scan_case(TTA_OP_MAXPOOL, 3, 32, 7, 2, 2, 0, nan);  /* odd: the last row and column unread */
        pool_scan_case(TTA_OP_MAXPOOL, 2, 16, 9, 3, 2, 1, nan);  /* the general loops */
        pool_scan_case(TTA_OP_MAXPOOL, 2, 6, 8, 2, 2, 0, nan);   /* NCHW */
        pool_scan_case(TTA_OP_GMP, 3, 64, 7, 0, 0, 0, nan);      /* fmnist-cnn's: 49 pixels, four runs */
        pool_scan_case(TTA_OP_GMP, 3, 8, 7, 0, 0, 0, nan);
        pool_scan_case(TTA_OP_GMP, 3, 16, 3, 0, 0, 0, nan);      /* 9 pixels: the last run longer */
        pool_scan_case(TTA_OP_GMP, 3, 32, 2, 0, 0, 0, nan);      /* 4 pixels: one per run */
        pool_scan_case(TTA_OP_GMP, 3, 16, 1, 0, 0, 0, nan);      /* 1 pixel: the general loops */
        pool_scan_case(TTA_OP_GMP, 2, 24, 16, 0, 0, 0, nan);     /* 256 pixels: positions up to 255 */
    }
    /* The planes are shared out by ranges that a thread done with its own takes from (cpu_pool.c,
     * plane_share): the same bits with 1 thread, 3, and 5 on this 2-CPU host (late threads, whose
     * ranges the others take; ranges of one plane or none) */
    if (tb->ops->set_threads) {
        const int threads[] = {1, 3, 5};
        for (size_t k = 0; k < sizeof threads / sizeof threads[0]; k++) {
            tb->ops->set_threads(tb->ctx, threads[k]);
            for (int rep = 0; rep < 4; rep++) {
                pool_scan_case(TTA_OP_GMP, 256, 64, 7, 0, 0, 0, rep & 1); /* fmnist-cnn's, 2,048 or 4,096 planes */
                pool_scan_case(TTA_OP_GMP, 3, 8, 7, 0, 0, 0, rep & 1);    /* 3 planes (nChw8c) */
                pool_scan_case(TTA_OP_MAXPOOL, 9, 48, 28, 2, 2, 0, rep & 1);
                pool_scan_case(TTA_OP_MAXPOOL, 2, 16, 9, 3, 2, 1, rep & 1); /* the general loops */
            }
        }
        tb->ops->set_threads(tb->ctx, 2);
    }
}

/* Batch norm + ReLU + 2x2 max pool as one op (bn_pool_*, cpu_bn.c) against the reference
 * layers' separate BN, ReLU and max pool: the pooled output, running statistics, dx, dgamma,
 * dbeta. x takes values 0.25 apart (exact ties within a window, pick by the first maximum) and
 * some channels a negative shift (windows that are all zero after the ReLU: no gradient). Then
 * the same op at one thread: the same bits; without an input gradient: the same dgamma, dbeta;
 * eval mode against the reference's. */
static void bn_pool_case(int N, int C, int H) {
    if (!tb->ops->bn_pool_supported || !tb->ops->bn_pool_supported(tb->ctx, (tta_shape){N, C, H, H})) {
        fprintf(stderr, "[%s] bn_pool C%d H%d: not offered, skipped\n", tb->ops->name, C, H);
        return;
    }
    tta_shape in = {N, C, H, H}, po = {N, C, H / 2, H / 2};
    tta_op f = {.kind = TTA_OP_BN, .train = 1, .need_dinp = 1, .in = in, .out = po, .eps = 1e-5f, .momentum = 0.1f,
                .relu = 1, .pool = 1};
    tta_op tb_ = {.kind = TTA_OP_BN, .train = 1, .need_dinp = 1, .in = in, .out = in, .eps = 1e-5f, .momentum = 0.1f};
    tta_op tr = {.kind = TTA_OP_RELU, .train = 1, .need_dinp = 1, .in = in, .out = in};
    tta_op tp = {.kind = TTA_OP_MAXPOOL, .train = 1, .need_dinp = 1, .in = in, .out = po, .kernel = 2, .stride = 2};
    opair ob, orl, op_;
    CHECK(opair_init(&ob, &tb_) == 0);
    CHECK(opair_init(&orl, &tr) == 0);
    CHECK(opair_init(&op_, &tp) == 0);
    CHECK(op_up(&f) == 0);
    ten x = ten_new(in, 1), y = ten_new(in, 0), z = ten_new(in, 0), p = ten_new(po, 0);
    ten dp = ten_new(po, 1), dz = ten_new(in, 0), dx = ten_new(in, 0);
    for (size_t i = 0; i < tta_shape_count(in); i++) x.host[i] = 3.0f + 0.25f * roundf(8.0f * x.host[i]);
    tb->ops->tensor_upload(tb->ctx, x.dt, x.host, x.s);
    ref->ops->tensor_upload(ref->ctx, x.dr, x.host, x.s);
    arr g = arr_new(C, 1), b = arr_new(C, 1), dg = arr_new(C, 0), db = arr_new(C, 0);
    arr rm = arr_new(C, 1), rv = arr_new(C, 0);
    for (int c = 0; c < C; c++) {
        rv.host[c] = 1.0f + 0.5f * c;
        if (c % 3 == 0) b.host[c] -= 4.0f; /* mostly negative before the ReLU */
    }
    arr_sync(&rv), arr_sync(&b);
    float *rm0 = malloc(C * sizeof(float)), *rv0 = malloc(C * sizeof(float));
    memcpy(rm0, rm.host, C * sizeof(float)), memcpy(rv0, rv.host, C * sizeof(float));
    /* reference: three ops */
    ref->ops->bn_forward(ref->ctx, &ob.r, y.dr, x.dr, g.dr, b.dr, rm.dr, rv.dr);
    ref->ops->relu_forward(ref->ctx, &orl.r, z.dr, y.dr);
    ref->ops->pool_forward(ref->ctx, &op_.r, p.dr, z.dr);
    ref->ops->pool_backward(ref->ctx, &op_.r, dz.dr, dp.dr, z.dr, p.dr);
    ref->ops->relu_backward(ref->ctx, &orl.r, dz.dr, dz.dr, z.dr);
    ref->ops->bn_backward(ref->ctx, &ob.r, dx.dr, dg.dr, db.dr, dz.dr, x.dr, y.dr, g.dr, b.dr);
    /* fused */
    tb->ops->bn_pool_forward(tb->ctx, &f, p.dt, x.dt, g.dt, b.dt, rm.dt, rv.dt);
    tb->ops->bn_pool_backward(tb->ctx, &f, dx.dt, dg.dt, db.dt, dp.dt, x.dt, g.dt);
    double ep = cmp_tensor(&p), ex = cmp_tensor(&dx), eg = cmp_arr(&dg), eb = cmp_arr(&db);
    double em = cmp_arr(&rm), ev = cmp_arr(&rv);
    if (!(ep < 1e-5 && ex < 1e-4 && eg < 1e-4 && eb < 1e-5 && em < 1e-5 && ev < 1e-5))
        fprintf(stderr, "[%s] bn_pool N%d C%d H%d: out %g dx %g dgamma %g dbeta %g run_mean %g run_var %g\n",
                tb->ops->name, N, C, H, ep, ex, eg, eb, em, ev);
    CHECK(ep < 1e-5);
    CHECK(ex < 1e-4);
    CHECK(eg < 1e-4);
    CHECK(eb < 1e-5);
    CHECK(em < 1e-5);
    CHECK(ev < 1e-5);
    /* the same op at one thread: the same bits (fixed per-plane partial sums) */
    size_t no = tta_shape_count(po), ni = tta_shape_count(in);
    float *p2 = malloc(no * sizeof(float)), *dx2 = malloc(ni * sizeof(float)), *s2 = malloc(4 * C * sizeof(float));
    tb->ops->tensor_download(tb->ctx, p2, p.dt, po);
    tb->ops->tensor_download(tb->ctx, dx2, dx.dt, in);
    stats_get(s2, 4, C, &dg, &db, &rm, &rv);
    if (tb->ops->set_threads) {
        tb->ops->set_threads(tb->ctx, 1);
        tta_op f1 = f;
        CHECK(op_up(&f1) == 0);
        tb->ops->upload(tb->ctx, rm.dt, rm0, C * sizeof(float));
        tb->ops->upload(tb->ctx, rv.dt, rv0, C * sizeof(float));
        tb->ops->bn_pool_forward(tb->ctx, &f1, p.dt, x.dt, g.dt, b.dt, rm.dt, rv.dt);
        tb->ops->bn_pool_backward(tb->ctx, &f1, dx.dt, dg.dt, db.dt, dp.dt, x.dt, g.dt);
        float *p1 = malloc(no * sizeof(float)), *dx1 = malloc(ni * sizeof(float)), *s1 = malloc(4 * C * sizeof(float));
        tb->ops->tensor_download(tb->ctx, p1, p.dt, po);
        tb->ops->tensor_download(tb->ctx, dx1, dx.dt, in);
        stats_get(s1, 4, C, &dg, &db, &rm, &rv);
        CHECK(memcmp(p1, p2, no * sizeof(float)) == 0);
        CHECK(memcmp(dx1, dx2, ni * sizeof(float)) == 0);
        CHECK(memcmp(s1, s2, 4 * C * sizeof(float)) == 0);
        free(p1), free(dx1), free(s1);
        op_down(&f1);
        tb->ops->set_threads(tb->ctx, 2);
    }
    /* without an input gradient (need_dinp 0, dinp NULL): the same dgamma and dbeta */
    {
        tta_op f0 = f;
        f0.need_dinp = 0;
        CHECK(op_up(&f0) == 0);
        tb->ops->upload(tb->ctx, rm.dt, rm0, C * sizeof(float));
        tb->ops->upload(tb->ctx, rv.dt, rv0, C * sizeof(float));
        tb->ops->bn_pool_forward(tb->ctx, &f0, p.dt, x.dt, g.dt, b.dt, rm.dt, rv.dt);
        tb->ops->bn_pool_backward(tb->ctx, &f0, NULL, dg.dt, db.dt, dp.dt, x.dt, g.dt);
        float *s0 = malloc(2 * C * sizeof(float));
        stats_get(s0, 2, C, &dg, &db, NULL, NULL);
        CHECK(memcmp(s0, s2, 2 * C * sizeof(float)) == 0);
        free(s0);
        op_down(&f0);
    }
    /* eval mode: running statistics, no positions */
    tta_op fe = f, be_ = tb_;
    fe.train = be_.train = 0;
    CHECK(op_up(&fe) == 0);
    opair obe;
    CHECK(opair_init(&obe, &be_) == 0);
    arr_sync(&rm), arr_sync(&rv);
    ref->ops->bn_forward(ref->ctx, &obe.r, y.dr, x.dr, g.dr, b.dr, rm.dr, rv.dr);
    ref->ops->relu_forward(ref->ctx, &orl.r, z.dr, y.dr);
    ref->ops->pool_forward(ref->ctx, &op_.r, p.dr, z.dr);
    tb->ops->bn_pool_forward(tb->ctx, &fe, p.dt, x.dt, g.dt, b.dt, rm.dt, rv.dt);
    CHECK(cmp_tensor(&p) < 1e-5);
    op_down(&fe);
    opair_free(&obe);
    free(p2), free(dx2), free(s2), free(rm0), free(rv0);
    ten_free(&x), ten_free(&y), ten_free(&z), ten_free(&p), ten_free(&dp), ten_free(&dz), ten_free(&dx);
    arr_free(&g), arr_free(&b), arr_free(&dg), arr_free(&db), arr_free(&rm), arr_free(&rv);
    op_down(&f);
    opair_free(&ob), opair_free(&orl), opair_free(&op_);
}

TEST(bn_pool_matches_reference) {
    bn_pool_case(4, 32, 8);  /* nChw16c with AVX-512, nChw8c with AVX2 */
    bn_pool_case(3, 24, 6);  /* nChw8c on every ISA */
    bn_pool_case(5, 16, 28); /* layer1's rows, planes split among threads unevenly */
    bn_pool_case(2, 64, 14); /* several channel blocks per sample */
    bn_pool_case(2, 6, 8);   /* NCHW: not offered */
}

static void linear_case(int N, int In, int O, int bias, int relu, int need_dinp) {
    tta_op t = {.kind = TTA_OP_LINEAR, .train = 1, .need_dinp = need_dinp, .in = {N, In, 1, 1},
                .out = {N, O, 1, 1}, .bias = bias, .relu = relu};
    opair o;
    CHECK(opair_init(&o, &t) == 0);
    ten x = ten_new(t.in, 1), y = ten_new(t.out, 0), dy = ten_new(t.out, 1), dx = ten_new(t.in, 0);
    arr w = arr_new((size_t)O * In, 1), b = arr_new(O, 1), dw = arr_new(w.n, 0), db = arr_new(O, 0);
    tb->ops->linear_forward(tb->ctx, &o.c, y.dt, x.dt, w.dt, b.dt);
    ref->ops->linear_forward(ref->ctx, &o.r, y.dr, x.dr, w.dr, b.dr);
    CHECK(cmp_tensor(&y) < TOL);
    /* the backward masks by each backend's own output: an output within rounding of 0 would mask
     * differently (hundreds of them in the larger cases), so both get the reference's */
    ref->ops->tensor_download(ref->ctx, y.host, y.dr, t.out);
    tb->ops->tensor_upload(tb->ctx, y.dt, y.host, t.out);
    tb->ops->linear_backward(tb->ctx, &o.c, dx.dt, dw.dt, db.dt, dy.dt, x.dt, w.dt, y.dt);
    ref->ops->linear_backward(ref->ctx, &o.r, dx.dr, dw.dr, db.dr, dy.dr, x.dr, w.dr, y.dr);
    if (need_dinp) CHECK(cmp_tensor(&dx) < TOL);
    CHECK(cmp_arr(&dw) < TOL);
    if (bias) CHECK(cmp_arr(&db) < TOL);
    ten_free(&x), ten_free(&y), ten_free(&dy), ten_free(&dx);
    arr_free(&w), arr_free(&b), arr_free(&dw), arr_free(&db);
    opair_free(&o);
}

/* Batch norm + ReLU in training (bn_forward/bn_backward with op->relu; the cpu backend's
 * one-region op, cpu_bn.c, on blocked maps) against the reference layers' separate BN and ReLU:
 * the output, running statistics, dx, dgamma, dbeta. x takes values 0.25 apart and every third
 * channel a shift of -4 (mostly or wholly zero after the ReLU: little or no gradient). Then the
 * same op at one thread: the same bits; without an input gradient: the same dgamma, dbeta. */
static void bn_relu_case(int N, int C, int H, int W) {
    tta_shape in = {N, C, H, W};
    tta_op f = {.kind = TTA_OP_BN, .train = 1, .need_dinp = 1, .in = in, .out = in, .eps = 1e-5f, .momentum = 0.1f,
                .relu = 1};
    tta_op tb_ = f, tr = {.kind = TTA_OP_RELU, .train = 1, .need_dinp = 1, .in = in, .out = in};
    tb_.relu = 0;
    opair ob, orl;
    CHECK(opair_init(&ob, &tb_) == 0);
    CHECK(opair_init(&orl, &tr) == 0);
    CHECK(op_up(&f) == 0);
    ten x = ten_new(in, 1), y = ten_new(in, 0), z = ten_new(in, 0), dz = ten_new(in, 1), dy = ten_new(in, 0);
    ten dx = ten_new(in, 0);
    for (size_t i = 0; i < tta_shape_count(in); i++) x.host[i] = 3.0f + 0.25f * roundf(8.0f * x.host[i]);
    tb->ops->tensor_upload(tb->ctx, x.dt, x.host, x.s);
    ref->ops->tensor_upload(ref->ctx, x.dr, x.host, x.s);
    arr g = arr_new(C, 1), b = arr_new(C, 1), dg = arr_new(C, 0), db = arr_new(C, 0);
    arr rm = arr_new(C, 1), rv = arr_new(C, 0);
    for (int c = 0; c < C; c++) {
        rv.host[c] = 1.0f + 0.5f * c;
        if (c % 3 == 0) b.host[c] -= 4.0f;
    }
    arr_sync(&rv), arr_sync(&b);
    float *rm0 = malloc(C * sizeof(float)), *rv0 = malloc(C * sizeof(float));
    memcpy(rm0, rm.host, C * sizeof(float)), memcpy(rv0, rv.host, C * sizeof(float));
    /* reference: two ops (relu_backward on a copy of dz: dz stays the fused op's input) */
    ref->ops->bn_forward(ref->ctx, &ob.r, y.dr, x.dr, g.dr, b.dr, rm.dr, rv.dr);
    ref->ops->relu_forward(ref->ctx, &orl.r, z.dr, y.dr);
    ref->ops->relu_backward(ref->ctx, &orl.r, dy.dr, dz.dr, z.dr);
    ref->ops->bn_backward(ref->ctx, &ob.r, dx.dr, dg.dr, db.dr, dy.dr, x.dr, y.dr, g.dr, b.dr);
    /* fused */
    tb->ops->bn_forward(tb->ctx, &f, z.dt, x.dt, g.dt, b.dt, rm.dt, rv.dt);
    tb->ops->bn_backward(tb->ctx, &f, dx.dt, dg.dt, db.dt, dz.dt, x.dt, z.dt, g.dt, b.dt);
    double ez = cmp_tensor(&z), ex = cmp_tensor(&dx), eg = cmp_arr(&dg), eb = cmp_arr(&db);
    double em = cmp_arr(&rm), ev = cmp_arr(&rv);
    if (!(ez < 1e-5 && ex < 1e-4 && eg < 1e-4 && eb < 1e-5 && em < 1e-5 && ev < 1e-5))
        fprintf(stderr, "[%s] bn_relu N%d C%d H%d W%d: out %g dx %g dgamma %g dbeta %g run_mean %g run_var %g\n",
                tb->ops->name, N, C, H, W, ez, ex, eg, eb, em, ev);
    CHECK(ez < 1e-5);
    CHECK(ex < 1e-4);
    CHECK(eg < 1e-4);
    CHECK(eb < 1e-5);
    CHECK(em < 1e-5);
    CHECK(ev < 1e-5);
    /* the same op at one thread: the same bits */
    size_t ni = tta_shape_count(in);
    float *z2 = malloc(ni * sizeof(float)), *dx2 = malloc(ni * sizeof(float)), *s2 = malloc(4 * C * sizeof(float));
    tb->ops->tensor_download(tb->ctx, z2, z.dt, in);
    tb->ops->tensor_download(tb->ctx, dx2, dx.dt, in);
    stats_get(s2, 4, C, &dg, &db, &rm, &rv);
    if (tb->ops->set_threads) {
        tb->ops->set_threads(tb->ctx, 1);
        tta_op f1 = f;
        CHECK(op_up(&f1) == 0);
        tb->ops->upload(tb->ctx, rm.dt, rm0, C * sizeof(float));
        tb->ops->upload(tb->ctx, rv.dt, rv0, C * sizeof(float));
        tb->ops->bn_forward(tb->ctx, &f1, z.dt, x.dt, g.dt, b.dt, rm.dt, rv.dt);
        tb->ops->bn_backward(tb->ctx, &f1, dx.dt, dg.dt, db.dt, dz.dt, x.dt, z.dt, g.dt, b.dt);
        float *z1 = malloc(ni * sizeof(float)), *dx1 = malloc(ni * sizeof(float)), *s1 = malloc(4 * C * sizeof(float));
        tb->ops->tensor_download(tb->ctx, z1, z.dt, in);
        tb->ops->tensor_download(tb->ctx, dx1, dx.dt, in);
        stats_get(s1, 4, C, &dg, &db, &rm, &rv);
        CHECK(memcmp(z1, z2, ni * sizeof(float)) == 0);
        CHECK(memcmp(dx1, dx2, ni * sizeof(float)) == 0);
        CHECK(memcmp(s1, s2, 4 * C * sizeof(float)) == 0);
        free(z1), free(dx1), free(s1);
        op_down(&f1);
        tb->ops->set_threads(tb->ctx, 2);
    }
    /* the residual add fused after the ReLU (bn_relu_add_*, where the backend has it): each output
     * the bits of z + skip as the separate add gives them, the same running statistics; its
     * backward the op's own, the same bits as without the add (the ReLU's mask comes from x, not
     * from the output); in eval, the running statistics' z + skip within the tolerance */
    if (tb->ops->bn_relu_add_supported && tb->ops->bn_relu_add_supported(tb->ctx, in)) {
        tta_op fa = f;
        fa.add = 1;
        CHECK(op_up(&fa) == 0);
        ten sk = ten_new(in, 1), o = ten_new(in, 0);
        tb->ops->upload(tb->ctx, rm.dt, rm0, C * sizeof(float));
        tb->ops->upload(tb->ctx, rv.dt, rv0, C * sizeof(float));
        tb->ops->bn_relu_add_forward(tb->ctx, &fa, o.dt, x.dt, sk.dt, g.dt, b.dt, rm.dt, rv.dt);
        tb->ops->bn_backward(tb->ctx, &fa, dx.dt, dg.dt, db.dt, dz.dt, x.dt, o.dt, g.dt, b.dt);
        float *oa = malloc(ni * sizeof(float)), *dxa = malloc(ni * sizeof(float)), *sa = malloc(4 * C * sizeof(float));
        tb->ops->tensor_download(tb->ctx, oa, o.dt, in);
        tb->ops->tensor_download(tb->ctx, dxa, dx.dt, in);
        stats_get(sa, 4, C, &dg, &db, &rm, &rv);
        size_t same = 0;
        for (size_t i = 0; i < ni; i++) {
            float want = z2[i] + sk.host[i];
            same += memcmp(&oa[i], &want, sizeof want) == 0;
        }
        CHECK(same == ni);
        CHECK(memcmp(dxa, dx2, ni * sizeof(float)) == 0);
        CHECK(memcmp(sa, s2, 4 * C * sizeof(float)) == 0);
        op_down(&fa);
        tta_op fe = fa; /* eval: the running statistics, left as they are */
        fe.train = 0;
        fe.need_dinp = 0;
        CHECK(op_up(&fe) == 0);
        tb->ops->upload(tb->ctx, rm.dt, rm0, C * sizeof(float));
        tb->ops->upload(tb->ctx, rv.dt, rv0, C * sizeof(float));
        tb->ops->bn_relu_add_forward(tb->ctx, &fe, o.dt, x.dt, sk.dt, g.dt, b.dt, rm.dt, rv.dt);
        tb->ops->tensor_download(tb->ctx, oa, o.dt, in);
        double md = 0, mr = 1e-6;
        for (size_t i = 0; i < ni; i++) {
            int c = (int)(i / ((size_t)H * W) % C);
            double zc = (x.host[i] - rm0[c]) * g.host[c] / sqrt(rv0[c] + 1e-5) + b.host[c];
            double want = (zc > 0 ? zc : 0) + sk.host[i];
            if (fabs(oa[i] - want) > md) md = fabs(oa[i] - want);
            if (fabs(want) > mr) mr = fabs(want);
        }
        CHECK(md / mr < 1e-5);
        stats_get(sa, 4, C, &dg, &db, &rm, &rv);
        CHECK(memcmp(sa + 2 * C, rm0, C * sizeof(float)) == 0 && memcmp(sa + 3 * C, rv0, C * sizeof(float)) == 0);
        op_down(&fe);
        free(oa), free(dxa), free(sa);
        ten_free(&sk), ten_free(&o);
    }
    /* without an input gradient (need_dinp 0, dinp NULL): the same dgamma and dbeta */
    {
        tta_op f0 = f;
        f0.need_dinp = 0;
        CHECK(op_up(&f0) == 0);
        tb->ops->upload(tb->ctx, rm.dt, rm0, C * sizeof(float));
        tb->ops->upload(tb->ctx, rv.dt, rv0, C * sizeof(float));
        tb->ops->bn_forward(tb->ctx, &f0, z.dt, x.dt, g.dt, b.dt, rm.dt, rv.dt);
        tb->ops->bn_backward(tb->ctx, &f0, NULL, dg.dt, db.dt, dz.dt, x.dt, z.dt, g.dt, b.dt);
        float *s0 = malloc(2 * C * sizeof(float));
        stats_get(s0, 2, C, &dg, &db, NULL, NULL);
        /* bits where the op is the fused one (as at 2 threads); oneDNN's may differ in the last */
        for (int c = 0; c < 2 * C; c++) CHECK(fabsf(s0[c] - s2[c]) <= 1e-5f * (1.0f + fabsf(s2[c])));
        free(s0);
        op_down(&f0);
    }
    free(z2), free(dx2), free(s2), free(rm0), free(rv0);
    ten_free(&x), ten_free(&y), ten_free(&z), ten_free(&dz), ten_free(&dy), ten_free(&dx);
    arr_free(&g), arr_free(&b), arr_free(&dg), arr_free(&db), arr_free(&rm), arr_free(&rv);
    op_down(&f);
    opair_free(&ob), opair_free(&orl);
}

TEST(bn_relu_matches_reference) {
    bn_relu_case(4, 32, 8, 8);   /* nChw16c with AVX-512, nChw8c with AVX2 */
    bn_relu_case(3, 24, 7, 5);   /* nChw8c on every ISA; odd sizes */
    bn_relu_case(5, 16, 28, 28); /* fmnist-cnn's prep: planes split among threads unevenly */
    bn_relu_case(2, 64, 14, 14); /* several channel blocks per sample */
    bn_relu_case(1, 16, 3, 2);   /* one plane: a thread without work */
    bn_relu_case(8, 32, 1, 1);   /* one pixel a plane */
    bn_relu_case(2, 6, 8, 8);    /* NCHW: oneDNN's */
}

TEST(linear_matches_reference) {
    linear_case(4, 20, 10, 1, 0, 1);
    linear_case(5, 33, 16, 1, 1, 0);
    linear_case(3, 16, 7, 0, 1, 1);
    /* products of 1 M multiply-adds or more run sliced on the OpenMP threads (backend_cpu.c): the
     * mlp's first layer (C cut by columns), a tall batch (forward and input gradient cut by rows),
     * sizes that are no multiple of the 16-wide slices, bias or ReLU alone */
    linear_case(128, 784, 512, 1, 1, 0);
    linear_case(600, 300, 70, 1, 1, 1);
    linear_case(257, 123, 1030, 0, 1, 1);
    linear_case(40, 1000, 50, 1, 0, 1);
}

TEST(elementwise_match_reference) {
    tta_shape s = {2, 16, 5, 5}; /* blocked on the cpu backend */
    ten a = ten_new(s, 1), b = ten_new(s, 1), y = ten_new(s, 0), dx = ten_new(s, 0);
    tta_op t = {.kind = TTA_OP_ADD, .train = 1, .need_dinp = 1, .in = s, .out = s, .relu = 1};
    opair o;
    CHECK(opair_init(&o, &t) == 0);
    tb->ops->add_forward(tb->ctx, &o.c, y.dt, a.dt, b.dt);
    ref->ops->add_forward(ref->ctx, &o.r, y.dr, a.dr, b.dr);
    CHECK(cmp_tensor(&y) < 1e-7);
    opair_free(&o);
    t.kind = TTA_OP_RELU;
    t.relu = 0;
    CHECK(opair_init(&o, &t) == 0);
    tb->ops->relu_forward(tb->ctx, &o.c, y.dt, a.dt);
    ref->ops->relu_forward(ref->ctx, &o.r, y.dr, a.dr);
    CHECK(cmp_tensor(&y) < 1e-7);
    tb->ops->relu_backward(tb->ctx, &o.c, dx.dt, b.dt, y.dt);
    ref->ops->relu_backward(ref->ctx, &o.r, dx.dr, b.dr, y.dr);
    CHECK(cmp_tensor(&dx) < 1e-7);
    opair_free(&o);
    t.kind = TTA_OP_DROPOUT;
    t.p = 0.3f;
    CHECK(opair_init(&o, &t) == 0);
    tb->ops->dropout_forward(tb->ctx, &o.c, y.dt, a.dt, 7, 3);
    ref->ops->dropout_forward(ref->ctx, &o.r, y.dr, a.dr, 7, 3);
    CHECK(cmp_tensor(&y) < 1e-7);
    tb->ops->dropout_backward(tb->ctx, &o.c, dx.dt, b.dt, 7, 3);
    ref->ops->dropout_backward(ref->ctx, &o.r, dx.dr, b.dr, 7, 3);
    CHECK(cmp_tensor(&dx) < 1e-7);
    opair_free(&o);
    t.kind = TTA_OP_SCALE;
    t.factor = 0.125f;
    CHECK(opair_init(&o, &t) == 0);
    tb->ops->scale_forward(tb->ctx, &o.c, y.dt, a.dt);
    ref->ops->scale_forward(ref->ctx, &o.r, y.dr, a.dr);
    CHECK(cmp_tensor(&y) < 1e-7);
    opair_free(&o);
    /* flatten: blocked 16x5x5 -> 400 in NCHW order */
    tta_shape fs = {2, 400, 1, 1};
    ten f = ten_new(fs, 0), df = ten_new(fs, 1);
    t.kind = TTA_OP_FLATTEN;
    t.out = fs;
    CHECK(opair_init(&o, &t) == 0);
    tb->ops->flatten_forward(tb->ctx, &o.c, f.dt, a.dt);
    ref->ops->flatten_forward(ref->ctx, &o.r, f.dr, a.dr);
    CHECK(cmp_tensor(&f) < 1e-7);
    tb->ops->flatten_backward(tb->ctx, &o.c, dx.dt, df.dt);
    ref->ops->flatten_backward(ref->ctx, &o.r, dx.dr, df.dr);
    CHECK(cmp_tensor(&dx) < 1e-7);
    opair_free(&o);
    /* option-A shortcut 16x5x5 -> 32x3x3 */
    tta_shape ss = {2, 32, 3, 3};
    ten sy = ten_new(ss, 0), sdy = ten_new(ss, 1);
    t.kind = TTA_OP_PAD_SHORTCUT;
    t.out = ss;
    t.stride = 2;
    t.pad_front = 8;
    CHECK(opair_init(&o, &t) == 0);
    tb->ops->shortcut_forward(tb->ctx, &o.c, sy.dt, a.dt);
    ref->ops->shortcut_forward(ref->ctx, &o.r, sy.dr, a.dr);
    CHECK(cmp_tensor(&sy) < 1e-7);
    tb->ops->shortcut_backward(tb->ctx, &o.c, dx.dt, sdy.dt);
    ref->ops->shortcut_backward(ref->ctx, &o.r, dx.dr, sdy.dr);
    CHECK(cmp_tensor(&dx) < 1e-7);
    opair_free(&o);
    ten_free(&a), ten_free(&b), ten_free(&y), ten_free(&dx), ten_free(&f), ten_free(&df);
    ten_free(&sy), ten_free(&sdy);
}

/* Upload then download gives the same values on every backend; on the cpu backend (host
 * memory) the blocked position of one element is checked directly. */
TEST(layout_round_trip) {
    tta_shape s = {3, 24, 5, 7};
    float *h = rnd(tta_shape_count(s)), *back = malloc(tta_shape_count(s) * sizeof(float));
    float *d = tb->ops->alloc(tb->ctx, tta_shape_count(s) * sizeof(float));
    tb->ops->tensor_upload(tb->ctx, d, h, s);
    /* element (n=1, c=9, h=2, w=3) sits in block 1, lane 1 of the nChw8c layout */
    if (strcmp(tb->ops->name, "cpu") == 0)
        CHECK(d[(((1 * 3 + 1) * 5 + 2) * 7 + 3) * 8 + 1] == h[((1 * 24 + 9) * 5 + 2) * 7 + 3]);
    tb->ops->tensor_download(tb->ctx, back, d, s);
    CHECK(memcmp(h, back, tta_shape_count(s) * sizeof(float)) == 0);
    /* copy, fill and accumulate on flat arrays */
    size_t n = tta_shape_count(s);
    float *d2 = tb->ops->alloc(tb->ctx, n * sizeof(float));
    tb->ops->copy(tb->ctx, d2, d, n);
    tb->ops->accumulate(tb->ctx, d2, d, n);
    tb->ops->tensor_download(tb->ctx, back, d2, s); /* flat ops keep the layout */
    int ok = 1;
    for (size_t i = 0; i < n; i++) ok &= back[i] == 2 * h[i];
    CHECK(ok);
    tb->ops->fill(tb->ctx, d2, 0.5f, n);
    tb->ops->download(tb->ctx, back, d2, n * sizeof(float));
    CHECK(back[0] == 0.5f && back[n - 1] == 0.5f);
    tb->ops->free(tb->ctx, d2);
    tb->ops->free(tb->ctx, d);
    free(h);
    free(back);
}

/* fold_bn (the inference path's BN folding) against the reference backend's. */
TEST(fold_bn_matches_reference) {
    int oc = 5, k = 12;
    arr w = arr_new((size_t)oc * k, 1), b = arr_new(oc, 1), g = arr_new(oc, 1), be = arr_new(oc, 1);
    arr mean = arr_new(oc, 1), var = arr_new(oc, 1), wf = arr_new(w.n, 0), bf = arr_new(oc, 0);
    for (int o = 0; o < oc; o++) var.host[o] = 0.5f + var.host[o] * var.host[o];
    arr_sync(&var);
    tb->ops->fold_bn(tb->ctx, wf.dt, bf.dt, w.dt, b.dt, g.dt, be.dt, mean.dt, var.dt, 1e-5f, oc, k);
    ref->ops->fold_bn(ref->ctx, wf.dr, bf.dr, w.dr, b.dr, g.dr, be.dr, mean.dr, var.dr, 1e-5f, oc, k);
    CHECK(cmp_arr(&wf) < 1e-6);
    CHECK(cmp_arr(&bf) < 1e-6);
    tb->ops->fold_bn(tb->ctx, wf.dt, bf.dt, w.dt, NULL, g.dt, be.dt, mean.dt, var.dt, 1e-5f, oc, k);
    ref->ops->fold_bn(ref->ctx, wf.dr, bf.dr, w.dr, NULL, g.dr, be.dr, mean.dr, var.dr, 1e-5f, oc, k);
    CHECK(cmp_arr(&bf) < 1e-6);
    arr_free(&w), arr_free(&b), arr_free(&g), arr_free(&be), arr_free(&mean), arr_free(&var);
    arr_free(&wf), arr_free(&bf);
}

/* Hand-computed values of the reference layers. */
TEST(reference_values) {
    /* conv: 1x1x3x3 input 1..9, 2x2 kernel of ones, stride 1, no padding -> sums of windows */
    float x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w[4] = {1, 1, 1, 1}, b[1] = {0.5f}, y[4];
    ref_conv_forward_f(y, x, w, b, 1, 1, 3, 3, 1, 2, 1, 0, 2, 2);
    CHECK(y[0] == 12.5f && y[1] == 16.5f && y[2] == 24.5f && y[3] == 28.5f);
    /* max pool 2x2 stride 1 of the same input */
    ref_maxpool_forward_f(y, x, 1, 1, 3, 3, 2, 1, 0, 2, 2);
    CHECK(y[0] == 5 && y[1] == 6 && y[2] == 8 && y[3] == 9);
    /* avg pool 2x2 stride 2 padding 1 counts the padding: window (0,0) holds only x=1 */
    float ya[4];
    ref_avgpool_forward_f(ya, x, 1, 1, 3, 3, 2, 2, 1, 2, 2);
    CHECK_NEAR(ya[0], 0.25, 1e-7);
    CHECK_NEAR(ya[3], (5 + 6 + 8 + 9) / 4.0, 1e-6);
    /* batch norm of {1, 3} (one channel): mean 2, biased var 1 -> -1, +1 (eps aside) */
    float bx[2] = {1, 3}, by[2], mean, rstd, rm = 0, rv = 1, g = 1, be = 0;
    ref_bn_forward_f(by, &mean, &rstd, bx, &g, &be, &rm, &rv, 2, 1, 1, 1e-5f, 0.1f, 1);
    CHECK_NEAR(by[0], -1, 1e-4);
    CHECK_NEAR(by[1], 1, 1e-4);
    CHECK_NEAR(rm, 0.2, 1e-7);             /* 0.9*0 + 0.1*2 */
    CHECK_NEAR(rv, 0.9 + 0.1 * 2.0, 1e-6); /* unbiased variance 2 */
    /* cross-entropy of uniform logits over 4 classes: log 4, any smoothing */
    float z[8] = {0}, dz[8];
    int32_t lab[2] = {1, 3};
    int correct;
    CHECK_NEAR(ref_xent_forward_f(z, lab, 2, 4, 0.0f, &correct), log(4.0), 1e-6);
    CHECK_NEAR(ref_xent_forward_f(z, lab, 2, 4, 0.1f, NULL), log(4.0), 1e-6);
    CHECK(correct == 0); /* argmax of ties is class 0 */
    /* smoothing: the gradient is (softmax - q) / B with q = 0.9 onehot + 0.025 */
    ref_xent_backward_f(dz, z, lab, 2, 4, 0.1f);
    CHECK_NEAR(dz[1], (0.25 - 0.925) / 2, 1e-7);
    CHECK_NEAR(dz[0], (0.25 - 0.025) / 2, 1e-7);
    /* dropout keeps about 1 - p and scales by 1 / (1 - p) */
    int kept = 0;
    for (int i = 0; i < 100000; i++) kept += tta_dropout_keep(1, 2, i, 0.25f);
    CHECK(kept > 74000 && kept < 76000);
    float ones[4] = {1, 1, 1, 1}, dout[4];
    ref_dropout_forward_f(dout, ones, 4, 0.5f, 9, 9);
    for (int i = 0; i < 4; i++) CHECK(dout[i] == 0.0f || dout[i] == 2.0f);
}

TEST(xent_matches_reference) {
    tta_shape s = {6, 10, 1, 1};
    ten z = ten_new(s, 1), dz = ten_new(s, 0);
    int32_t lab[6] = {0, 3, 9, 2, 2, 5};
    int32_t *lc = tb->ops->alloc(tb->ctx, sizeof lab), *lr = ref->ops->alloc(ref->ctx, sizeof lab);
    tb->ops->upload(tb->ctx, lc, lab, sizeof lab);
    ref->ops->upload(ref->ctx, lr, lab, sizeof lab);
    float *rc = tb->ops->alloc(tb->ctx, 8), *rr = ref->ops->alloc(ref->ctx, 8);
    tta_op t = {.kind = TTA_OP_XENT, .in = s, .out = s, .smoothing = 0.2f};
    opair o;
    CHECK(opair_init(&o, &t) == 0);
    tb->ops->xent_forward(tb->ctx, &o.c, rc, z.dt, lc);
    ref->ops->xent_forward(ref->ctx, &o.r, rr, z.dr, lr);
    float hc[2], hr[2];
    tb->ops->download(tb->ctx, hc, rc, sizeof hc);
    ref->ops->download(ref->ctx, hr, rr, sizeof hr);
    CHECK_REL(hc[0], hr[0], 1e-6);
    CHECK(hc[1] == hr[1]);
    tb->ops->xent_backward(tb->ctx, &o.c, dz.dt, z.dt, lc);
    ref->ops->xent_backward(ref->ctx, &o.r, dz.dr, z.dr, lr);
    CHECK(cmp_tensor(&dz) < 1e-6);
    opair_free(&o);
    ten_free(&z), ten_free(&dz);
    tb->ops->free(tb->ctx, lc), ref->ops->free(ref->ctx, lr), tb->ops->free(tb->ctx, rc), ref->ops->free(ref->ctx, rr);
}

/* A cpu backend asked for blocks of 8 at most (a model with 8-channel maps) keeps a 32-channel
 * map nChw8c, whatever the ISA (on an AVX-512 host it would be nChw16c): element (n=1, c=9,
 * h=2, w=3) of a 2x32x3x4 map sits in block 1 of 4, lane 1. */
TEST(block_limit_keeps_nchw8c) {
    char err[256];
    tta_backend_options opt = {.threads = 1, .block_limit = 8};
    tta_backend *be = tta_backend_create("cpu", &opt, err, sizeof err);
    CHECK(be != NULL);
    if (!be) return;
    tta_shape s = {2, 32, 3, 4};
    float *h = rnd(tta_shape_count(s));
    float *d = be->ops->alloc(be->ctx, tta_shape_count(s) * sizeof(float));
    be->ops->tensor_upload(be->ctx, d, h, s);
    CHECK(d[(((1 * 4 + 1) * 3 + 2) * 4 + 3) * 8 + 1] == h[((1 * 32 + 9) * 3 + 2) * 4 + 3]);
    be->ops->free(be->ctx, d);
    be->ops->destroy(be);
    free(h);
}

int main(void) {
    char err[256];
    tta_backend_options opt = {.threads = 2, .verbose = getenv("TTA_VERBOSE") != NULL};
    ref = tta_backend_create("reference", NULL, err, sizeof err);
    if (!ref) {
        fprintf(stderr, "backend reference: %s\n", err);
        return 1;
    }
    RUN(reference_values);
    RUN(block_limit_keeps_nchw8c);
    /* every fast backend against the reference; "cuda" only where built and a device exists */
    const char *names[] = {"cpu", "cuda"};
    for (size_t b = 0; b < sizeof names / sizeof names[0]; b++) {
        tb = tta_backend_create(names[b], &opt, err, sizeof err);
        if (!tb) {
            if (strcmp(names[b], "cpu") == 0) {
                fprintf(stderr, "backend cpu: %s\n", err);
                return 1;
            }
            fprintf(stderr, "test_layers: %s: skipped: %s\n", names[b], err);
            continue;
        }
        fprintf(stderr, "test_layers: backend %s\n", tb->ops->name);
        RUN(layout_round_trip);
        RUN(conv_matches_reference);
        RUN(conv_winograd_matches_reference);
        RUN(conv_own_winograd_edges);
        RUN(bn_matches_reference);
        RUN(pooling_matches_reference);
        RUN(maxpool_bits_match_scan_rule);
        RUN(bn_pool_matches_reference);
        RUN(bn_relu_matches_reference);
        RUN(linear_matches_reference);
        RUN(elementwise_match_reference);
        RUN(fold_bn_matches_reference);
        RUN(xent_matches_reference);
        tb->ops->destroy(tb);
        tb = NULL;
    }
    ref->ops->destroy(ref);
    return test_summary();
}
