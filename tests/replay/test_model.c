/* test_model.c: model files (shipped ones build for 1/3 channels and 28/32 pixels; invalid
 * ones are rejected with a message naming the problem), parameter layout and init, whole-model
 * forward/backward of each fast backend (cpu; cuda where built and a device is present) against
 * the reference backend, the inference path against the plain eval forward, bit-identical
 * repeat runs, FLOP counts and memory accounting.
 *
 * Parameters, gradients and buffers are read and written only through the backend's
 * upload/download, so the checks hold for a backend whose memory is on a GPU. Without a CUDA
 * device the cuda part prints "test_model: cuda: skipped: <reason>" and the rest runs.
 */
#include "replay/engine.h"
#include "tta_test.h"

/* The fast backend under test ("cpu", then "cuda"). */
static const char *BE = "cpu";

/* A host copy of n floats of device memory d of m's backend (free it). */
static float *host_copy(tta_model *m, const float *d, size_t n) {
    float *h = malloc(n * sizeof(float) + 4);
    tta_backend *be = tta_model_backend(m);
    be->ops->download(be->ctx, h, d, n * sizeof(float));
    return h;
}

/* params -= lr * g (g on the host), through host copies of the parameters. */
static void sgd_step(tta_model *m, float lr, const float *g) {
    size_t np = tta_model_num_params(m);
    float *p = host_copy(m, tta_model_params(m), np);
    for (size_t j = 0; j < np; j++) p[j] -= lr * g[j];
    tta_backend *be = tta_model_backend(m);
    be->ops->upload(be->ctx, tta_model_params(m), p, np * sizeof(float));
    free(p);
}

static uint64_t rs = 99;
static float frand(void) {
    rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
    return (float)((rs >> 40) * (1.0 / 16777216.0)) * 2.0f - 1.0f;
}

static tta_model_config config(const char *backend, int c, int h, int classes, int batch) {
    tta_model_config cfg = {.backend = backend, .channels = c, .height = h, .width = h,
                            .classes = classes, .batch = batch, .seed = 42, .label_smoothing = -1};
    cfg.backend_options.threads = 2;
    return cfg;
}

static size_t true_params(tta_model *m) {
    int n;
    const tta_param_info *p = tta_model_param_info(m, &n);
    size_t s = 0;
    for (int i = 0; i < n; i++) s += p[i].count;
    return s;
}

TEST(shipped_models_build) {
    const char *names[] = {"mlp", "lenet", "resnet9", "resnet20", "resnet56"};
    for (int i = 0; i < 5; i++) {
        CHECK(tta_model_builtin(names[i]) != NULL);
        for (int c = 1; c <= 3; c += 2)
            for (int h = 28; h <= 32; h += 4) {
                char err[512] = "";
                tta_model_config cfg = config(BE, c, h, 10, 2);
                tta_model *m;
                int rc = tta_model_build(&m, names[i], &cfg, err, sizeof err);
                if (rc) fprintf(stderr, "[%s] %s %dx%d: %s\n", BE, names[i], c, h, err);
                CHECK(rc == 0);
                if (rc) continue;
                float *x = malloc(sizeof(float) * 2 * c * h * h);
                for (int k = 0; k < 2 * c * h * h; k++) x[k] = frand();
                int32_t y[2] = {3, 7};
                tta_step_result r;
                CHECK(tta_model_forward(m, x, y, 2, 1, &r) == 0);
                CHECK(isfinite(r.loss) && r.loss > 0);
                tta_model_backward(m);
                /* every byte the backend handed out is in one accounting category */
                size_t mem[TTA_MEM_COUNT], sum = 0;
                tta_model_memory(m, mem);
                for (int k = 0; k < TTA_MEM_COUNT; k++) sum += mem[k];
                tta_backend *be = tta_model_backend(m);
                CHECK(be->ops->allocated(be->ctx) == sum);
                free(x);
                tta_model_free(m);
            }
    }
}

TEST(parameter_counts) {
    /* counts of the PyTorch definitions of the same networks */
    struct { const char *name, *ov; int c, h; size_t params; } cases[] = {
        {"mlp", NULL, 1, 28, 784 * 512 + 512 + 512 * 512 + 512 + 512 * 10 + 10},
        {"lenet", NULL, 1, 28, 61706},
        {"lenet", NULL, 3, 32, 62006},
        {"resnet20", NULL, 3, 32, 269722},
        {"resnet56", NULL, 3, 32, 853018},
        {"resnet9", NULL, 3, 32, 6573120},
        {"mlp", "hidden1=256, hidden2=128", 1, 28, 784 * 256 + 256 + 256 * 128 + 128 + 1290},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[512];
        tta_model_config cfg = config("reference", cases[i].c, cases[i].h, 10, 1);
        cfg.overrides = cases[i].ov;
        tta_model *m;
        CHECK(tta_model_build(&m, cases[i].name, &cfg, err, sizeof err) == 0);
        size_t n = true_params(m);
        if (n != cases[i].params) fprintf(stderr, "%s: %zu params, want %zu\n", cases[i].name, n, cases[i].params);
        CHECK(n == cases[i].params);
        tta_model_free(m);
    }
}

static void expect_error(const char *json, const char *needle) {
    char err[512] = "";
    tta_model_config cfg = config("reference", 1, 8, 4, 2);
    int rc = tta_model_validate_json(json, &cfg, err, sizeof err);
    CHECK(rc != 0);
    if (!strstr(err, needle)) fprintf(stderr, "wanted \"%s\" in: %s\n", needle, err);
    CHECK(strstr(err, needle) != NULL);
}

TEST(invalid_models_rejected) {
    const char *ok = "{\"name\":\"t\",\"layers\":[{\"type\":\"flatten\"},{\"type\":\"linear\",\"out\":4}]}";
    char err[256];
    tta_model_config cfg = config("reference", 1, 8, 4, 2);
    CHECK(tta_model_validate_json(ok, &cfg, err, sizeof err) == 0);
    expect_error("{\"name\":\"t\",\"layers\":[{\"type\":\"flatten\"},{\"type\":\"dense\",\"out\":4}]}",
                 "unknown layer type \"dense\"");
    expect_error("{\"name\":\"t\",\"layers\":[{\"type\":\"flatten\"},{\"type\":\"linear\"}]}",
                 "missing required field \"out\"");
    expect_error("{\"name\":\"t\",\"layers\":[{\"type\":\"conv\",\"out\":4,\"kernel\":3,\"strides\":2}]}",
                 "unknown field \"strides\"");
    expect_error("{\"name\":\"t\",\"layers\":[{\"type\":\"flatten\"},{\"type\":\"linear\",\"out\":4,\"input\":\"nope\"}]}",
                 "input \"nope\" is not the name of an earlier layer");
    expect_error("{\"name\":\"t\",\"layers\":[{\"name\":\"a\",\"type\":\"flatten\"},{\"name\":\"a\",\"type\":\"linear\",\"out\":4}]}",
                 "duplicate layer name \"a\"");
    expect_error("{\"name\":\"t\",\"layers\":[{\"type\":\"flatten\"},{\"type\":\"linear\",\"out\":5}]}",
                 "not the 4 class logits");
    expect_error("{\"name\":\"t\",\"layers\":[{\"type\":\"linear\",\"out\":4}]}", "needs a flat input");
    expect_error("{\"name\":\"t\",\"layers\":[{\"name\":\"f\",\"type\":\"flatten\"},{\"name\":\"g\",\"type\":\"flatten\",\"input\":\"input\"},{\"type\":\"linear\",\"out\":4}]}",
                 "output of layer \"f\" is never used");
    expect_error("{\"name\":\"t\",\"layers\":[{\"type\":\"conv\",\"out\":\"$nope\",\"kernel\":3}]}",
                 "unknown parameter $nope");
    expect_error("{\"name\":\"t\",\"layers\":[{\"type\":\"conv\",\"out\":2,\"kernel\":9}]}",
                 "kernel 9 does not fit");
    expect_error("{\"name\":\"t\",\"layers\":[{\"type\":\"add\",\"inputs\":[\"input\"]}]}", "array of two");
    expect_error("{\"name\":\"t\",\"layers\":[]}", "non-empty array");
    expect_error("{\"layers\":[{\"type\":\"flatten\"}]}", "missing \"name\"");
    expect_error("{\"name\":\"t\",\"layers\":[{\"type\":\"flatten\"}", "not valid JSON");
    expect_error("{\"name\":\"t\",\"input\":[3,\"input\",\"input\"],\"layers\":[{\"type\":\"flatten\"},{\"type\":\"linear\",\"out\":4}]}",
                 "wants input channels 3");
    expect_error("{\"name\":\"t\",\"blocks\":{\"b\":{\"args\":{\"o\":null},\"layers\":[{\"type\":\"relu\"}]}},"
                 "\"layers\":[{\"type\":\"b\"}]}", "needs argument \"o\"");
    /* an override of a parameter the model does not have */
    cfg.overrides = "widht=2";
    char e2[256];
    tta_model *m;
    CHECK(tta_model_build(&m, "resnet9", &cfg, e2, sizeof e2) != 0);
    CHECK(strstr(e2, "no parameter \"widht\"") != NULL);
    CHECK(tta_model_build(&m, "no-such-model", &cfg, e2, sizeof e2) != 0);
    CHECK(strstr(e2, "not a shipped model") != NULL);
}

TEST(graph_expansion) {
    /* resnet20 option B: shapes change at layer2.0 and layer3.0, where a 1x1 conv + bn appear */
    char err[512];
    tta_model_config cfg = config("reference", 3, 32, 10, 2);
    cfg.overrides = "shortcut=B";
    tta_model *m;
    CHECK(tta_model_build(&m, "resnet20", &cfg, err, sizeof err) == 0);
    float w[32 * 16];
    CHECK(tta_model_get_tensor(m, "layer2.0.shortcut.conv.weight", w, 32 * 16) == 0);
    CHECK(tta_model_get_tensor(m, "layer1.0.shortcut.conv.weight", w, 16 * 16) != 0);
    CHECK(true_params(m) == 269722 + 16 * 32 + 2 * 32 + 32 * 64 + 2 * 64);
    tta_model_free(m);
    /* BN parameters are bn_scale / bn_shift (no weight decay for them in most recipes) */
    cfg.overrides = NULL;
    CHECK(tta_model_build(&m, "resnet20", &cfg, err, sizeof err) == 0);
    int n;
    const tta_param_info *p = tta_model_param_info(m, &n);
    int scales = 0, weights = 0;
    for (int i = 0; i < n; i++) {
        scales += p[i].kind == TTA_PARAM_BN_SCALE;
        weights += p[i].kind == TTA_PARAM_WEIGHT;
        CHECK(p[i].offset % 16 == 0);
    }
    CHECK(scales == 19 && weights == 20);
    int nb;
    tta_model_buffer_info(m, &nb);
    CHECK(nb == 38);
    tta_model_free(m);
}

TEST(init_like_pytorch) {
    char err[512];
    tta_model_config cfg = config(BE, 1, 28, 10, 4);
    tta_model *m;
    CHECK(tta_model_build(&m, "lenet", &cfg, err, sizeof err) == 0);
    int n;
    const tta_param_info *p = tta_model_param_info(m, &n);
    size_t np = tta_model_num_params(m);
    float *params = host_copy(m, tta_model_params(m), np);
    for (int i = 0; i < n; i++) {
        double bound = 1.0 / sqrt(p[i].fan_in), mx = 0, mean = 0;
        for (size_t k = 0; k < p[i].count; k++) {
            double v = params[p[i].offset + k];
            if (fabs(v) > mx) mx = fabs(v);
            mean += v / p[i].count;
        }
        CHECK(mx <= bound);
        if (p[i].count >= 1000) {
            CHECK(mx > 0.99 * bound);           /* uniform over the whole range */
            CHECK(fabs(mean) < 0.05 * bound);
        }
    }
    /* same seed, same values; another seed, others */
    tta_model *m2;
    CHECK(tta_model_build(&m2, "lenet", &cfg, err, sizeof err) == 0);
    float *p2 = host_copy(m2, tta_model_params(m2), np);
    CHECK(memcmp(params, p2, np * sizeof(float)) == 0);
    free(p2);
    tta_model_init_params(m2, 43);
    p2 = host_copy(m2, tta_model_params(m2), np);
    CHECK(memcmp(params, p2, np * sizeof(float)) != 0);
    free(p2);
    free(params);
    tta_model_free(m);
    tta_model_free(m2);
    /* BN: gamma 1, beta 0, running mean 0, var 1 */
    cfg = config(BE, 3, 32, 10, 2);
    CHECK(tta_model_build(&m, "resnet20", &cfg, err, sizeof err) == 0);
    float g[16], b[16], rm[16], rv[16];
    CHECK(tta_model_get_tensor(m, "bn1.weight", g, 16) == 0);
    CHECK(tta_model_get_tensor(m, "bn1.bias", b, 16) == 0);
    CHECK(tta_model_get_tensor(m, "bn1.running_mean", rm, 16) == 0);
    CHECK(tta_model_get_tensor(m, "bn1.running_var", rv, 16) == 0);
    CHECK(g[5] == 1 && b[5] == 0 && rm[5] == 0 && rv[5] == 1);
    tta_model_free(m);
}

/* Builds the same model on the tested backend and on the reference with equal parameters,
 * runs training steps on both and compares loss, every gradient and the updated running
 * statistics, then eval mode and the inference path. */
static void compare_backends(const char *name, const char *ov, int c, int h, int batch, int n,
                             double tol) {
    char err[512];
    tta_model_config cc = config(BE, c, h, 10, batch), rc = config("reference", c, h, 10, batch);
    cc.overrides = rc.overrides = ov;
    tta_model *mc, *mr;
    CHECK(tta_model_build(&mc, name, &cc, err, sizeof err) == 0);
    CHECK(tta_model_build(&mr, name, &rc, err, sizeof err) == 0);
    size_t np = tta_model_num_params(mc), sz = (size_t)n * c * h * h;
    float *x = malloc(sizeof(float) * sz);
    int32_t *y = malloc(sizeof(int32_t) * n);
    for (size_t i = 0; i < sz; i++) x[i] = frand();
    for (int i = 0; i < n; i++) y[i] = i % 10;
    tta_step_result a, b;
    for (int step = 0; step < 2; step++) {
        CHECK(tta_model_forward(mc, x, y, n, 1, &a) == 0);
        CHECK(tta_model_forward(mr, x, y, n, 1, &b) == 0);
        CHECK_REL(a.loss, b.loss, tol);
        CHECK(a.correct == b.correct);
        tta_model_backward(mc);
        tta_model_backward(mr);
        float *gc = host_copy(mc, tta_model_grads(mc), np), *gr = host_copy(mr, tta_model_grads(mr), np);
        int npi;
        const tta_param_info *pi = tta_model_param_info(mc, &npi);
        for (int k = 0; k < npi; k++) {
            double md = 0, mx = 1e-3;
            for (size_t j = pi[k].offset; j < pi[k].offset + pi[k].count; j++) {
                if (fabs(gc[j] - gr[j]) > md) md = fabs(gc[j] - gr[j]);
                if (fabs(gr[j]) > mx) mx = fabs(gr[j]);
            }
            if (!(md <= tol * mx))
                fprintf(stderr, "[%s] %s: grad %s differs by %g (max %g)\n", BE, name, pi[k].name, md, mx);
            CHECK(md <= tol * mx);
        }
        /* one SGD step on both so that the second step runs at other parameters */
        sgd_step(mc, 0.1f, gr);
        sgd_step(mr, 0.1f, gr);
        free(gc);
        free(gr);
    }
    size_t nb = tta_model_num_buffers(mc);
    float *bc = host_copy(mc, tta_model_buffers(mc), nb), *br = host_copy(mr, tta_model_buffers(mr), nb);
    for (size_t j = 0; j < nb; j++) CHECK_NEAR(bc[j], br[j], 1e-4 * (1 + fabs(br[j])));
    free(bc);
    free(br);
    /* eval mode and the fast inference path agree with the reference's eval forward */
    double ls_c, ls_r;
    long hc, hr;
    CHECK(tta_model_forward(mr, x, y, n, 0, &b) == 0);
    CHECK(tta_model_evaluate(mc, x, y, n, &ls_c, &hc) == 0);
    CHECK(tta_model_evaluate(mr, x, y, n, &ls_r, &hr) == 0);
    CHECK_REL(ls_c / n, b.loss, tol);
    CHECK_REL(ls_r / n, b.loss, 1e-5);
    CHECK(hr == b.correct);
    free(x);
    free(y);
    tta_model_free(mc);
    tta_model_free(mr);
}

TEST(backend_matches_reference_models) {
    compare_backends("mlp", "hidden1=64,hidden2=32", 1, 12, 8, 8, 1e-4);
    compare_backends("lenet", NULL, 1, 28, 4, 4, 1e-4);
    compare_backends("lenet", NULL, 3, 32, 4, 3, 1e-4); /* a short batch */
    compare_backends("resnet9", "width=0.125", 3, 16, 4, 4, 1e-4);
    compare_backends("resnet9", "width=0.125,global_pool=gap", 1, 28, 4, 4, 1e-4);
    compare_backends("resnet20", "width=0.5", 3, 16, 4, 4, 1e-4);
    compare_backends("resnet20", "width=0.5,shortcut=B", 1, 12, 4, 4, 1e-4);
}

/* resnet9_small's residual adds: on a backend whose bn_backward keeps dout (the cpu backend) the
 * add's input x (the pool's output, read by the branch's first conv too) shares the add's gradient
 * buffer with the branch, so the backward copies nothing (bytes_bwd 0, one feature map less of
 * gradients per add); the reference backend keeps the copy, and so does one whose bn_backward
 * writes dout (cuda: cuDNN's). On the cpu backend the add also runs inside the batch norm before
 * it (bn_relu_add_*), its gradient still passing through. The gradients themselves are compared with the reference backend by
 * backend_matches_reference_models (resnet9, resnet20) and below. */
TEST(residual_add_passes_gradient_through) {
    char err[512];
    size_t grads[2];
    int fused = 0; /* the cpu backend ran layer1.bn+pool1 and layer2.bn+pool2 as one op each */
    int adds_fused = 0; /* and res1.res2.bn+res1.add, res2.res2.bn+res2.add */
    tta_backend *probe = tta_backend_create(BE, NULL, err, sizeof err);
    CHECK(probe != NULL);
    if (!probe) return;
    int shares = probe->ops->bn_backward_keeps_dout;
    probe->ops->destroy(probe);
    for (int b = 0; b < 2; b++) {
        tta_model_config cfg = config(b ? "reference" : BE, 1, 28, 10, 4);
        tta_model *m;
        CHECK(tta_model_build(&m, "resnet9_small", &cfg, err, sizeof err) == 0);
        int nl, adds = 0;
        const tta_layer_stats *st = tta_model_layer_stats(m, &nl);
        for (int i = 0; i < nl; i++) {
            if (strcmp(st[i].type, "add") != 0) continue;
            double nout = 4.0 * st[i].out.c * st[i].out.h * st[i].out.w;
            adds++;
            if (!st[i].fused_into) {
                CHECK(st[i].bytes_fwd == 12 * nout);
                CHECK(st[i].bytes_bwd == (b || !shares ? 8 * nout : 0));
                continue;
            }
            /* the cpu backend's bn_relu_add_*: the add runs in its branch's last batch norm, whose row
             * counts one more map read forward, and the gradient passes through as before */
            CHECK(!b && strcmp(st[i].fused_into, strcmp(st[i].name, "res1.add") == 0 ? "res1.res2.bn" : "res2.res2.bn") == 0);
            CHECK(st[i].bytes_fwd == 0 && st[i].bytes_bwd == 0);
            for (int h = 0; h < nl; h++)
                if (strcmp(st[h].name, st[i].fused_into) == 0) {
                    CHECK(st[h].bytes_fwd == 4 * (2 * nout + nout) + 4 * nout); /* x twice, z + skip out, skip */
                    CHECK(st[h].bytes_bwd == 4 * (2 * nout + 2 * nout) + (shares ? 0 : 8 * nout));
                    adds_fused++;
                }
        }
        CHECK(adds == 2);
        for (int i = 0; i < nl; i++)
            if (!b && strcmp(st[i].type, "maxpool") == 0 && st[i].fused_into) {
                CHECK(strcmp(st[i].fused_into, strcmp(st[i].name, "pool1") == 0 ? "layer1.bn" : "layer2.bn") == 0);
                CHECK(st[i].bytes_fwd == 0 && st[i].bytes_bwd == 0); /* counted in the host's row */
                fused++;
            }
        size_t mem[TTA_MEM_COUNT];
        tta_model_memory(m, mem);
        grads[b] = mem[TTA_MEM_ACT_GRADS];
        tta_model_free(m);
    }
    /* the two maps that no longer have their own buffer where the adds pass through: 32x14x14 and
     * 64x7x7, batch 4; with BN + ReLU + max pool fused (bn_pool_*), the ReLU's output maps have
     * none either */
    CHECK(fused == 0 || fused == 2);
    CHECK(adds_fused == 0 || adds_fused == 2);
    CHECK(grads[1] - grads[0] == 4 * ((shares ? 32 * 14 * 14 + 64 * 7 * 7 : 0) +
                                      (fused ? 32 * 28 * 28 + 64 * 14 * 14 : 0)) * sizeof(float));
    compare_backends("resnet9_small", NULL, 1, 28, 4, 4, 1e-4);
}

/* resnet9_small's max pools (2x2 on 28x28 and 14x14 maps, the global one on 7x7) count the
 * window positions they write forward and read backward, a byte an output, besides the maps; a
 * pool fused into its batch norm (bn_pool_*: the cpu backend's 2x2 pools) counts nothing of its
 * own, its traffic being its host's. */
TEST(max_pool_bytes_count_positions) {
    char err[512];
    tta_model_config cfg = config(BE, 1, 28, 10, 4);
    tta_model *m;
    CHECK(tta_model_build(&m, "resnet9_small", &cfg, err, sizeof err) == 0);
    if (!m) return;
    int nl, pools = 0;
    const tta_layer_stats *st = tta_model_layer_stats(m, &nl);
    for (int i = 0; i < nl; i++) {
        int gmp = strcmp(st[i].type, "gmp") == 0;
        if (!gmp && strcmp(st[i].type, "maxpool") != 0) continue;
        double nout = 4.0 * st[i].out.c * st[i].out.h * st[i].out.w, nin = gmp ? nout * 49 : nout * 4;
        pools++;
        if (st[i].fused_into) {
            CHECK(!gmp && st[i].bytes_fwd == 0 && st[i].bytes_bwd == 0);
            continue;
        }
        CHECK(st[i].bytes_fwd == 4 * (nin + nout) + nout);
        CHECK(st[i].bytes_bwd == st[i].bytes_fwd);
    }
    CHECK(pools == 3);
    tta_model_free(m);
}

TEST(evaluate_matches_eval_forward_in_chunks) {
    /* 23 samples through an inference batch of 8: two full chunks and a short one */
    char err[512];
    tta_model_config cfg = config(BE, 1, 28, 10, 23);
    cfg.eval_batch = 8;
    cfg.overrides = "width=0.125";
    tta_model *m;
    CHECK(tta_model_build(&m, "resnet9", &cfg, err, sizeof err) == 0);
    int n = 23;
    float *x = malloc(sizeof(float) * n * 784);
    int32_t y[23];
    for (int i = 0; i < n * 784; i++) x[i] = frand();
    for (int i = 0; i < n; i++) y[i] = (i * 7) % 10;
    tta_step_result r;
    for (int s = 0; s < 3; s++) { /* move the running statistics away from 0 / 1 */
        CHECK(tta_model_forward(m, x, y, n, 1, &r) == 0);
    }
    CHECK(tta_model_forward(m, x, y, n, 0, &r) == 0);
    double ls;
    long hits;
    CHECK(tta_model_evaluate(m, x, y, n, &ls, &hits) == 0);
    CHECK_REL(ls / n, r.loss, 1e-4);
    CHECK(hits == r.correct);
    free(x);
    tta_model_free(m);
}

static void run_steps(const char *name, const char *ov, int c, int h, int batch, int steps, double *losses) {
    char err[512];
    tta_model_config cfg = config(BE, c, h, 10, batch);
    cfg.overrides = ov;
    tta_model *m;
    CHECK(tta_model_build(&m, name, &cfg, err, sizeof err) == 0);
    uint64_t seed = 5;
    size_t sz = (size_t)batch * c * h * h;
    float *x = malloc(sizeof(float) * sz);
    int32_t *y = malloc(sizeof(int32_t) * batch);
    for (size_t i = 0; i < sz; i++) {
        seed = seed * 6364136223846793005ULL + 1;
        x[i] = (float)(seed >> 40) / 16777216.0f;
    }
    for (int i = 0; i < batch; i++) y[i] = i % 10;
    for (int s = 0; s < steps; s++) {
        tta_step_result r;
        CHECK(tta_model_forward(m, x, y, batch, 1, &r) == 0);
        tta_model_backward(m);
        float *g = host_copy(m, tta_model_grads(m), tta_model_num_params(m));
        sgd_step(m, 0.05f, g);
        free(g);
        losses[s] = r.loss;
    }
    free(x);
    free(y);
    tta_model_free(m);
}

TEST(bit_identical_runs) {
    double a[4], b[4];
    run_steps("resnet9", "width=0.25", 1, 28, 32, 4, a);
    run_steps("resnet9", "width=0.25", 1, 28, 32, 4, b);
    CHECK(memcmp(a, b, sizeof a) == 0);
    CHECK(a[3] < a[0]); /* and it learns the fixed batch */
    run_steps("mlp", NULL, 1, 28, 64, 4, a);
    run_steps("mlp", NULL, 1, 28, 64, 4, b);
    CHECK(memcmp(a, b, sizeof a) == 0);
    CHECK(a[3] < a[0]);
}

TEST(dropout_deterministic_and_scaled) {
    const char *json =
        "{\"name\":\"d\",\"layers\":[{\"type\":\"flatten\"},{\"type\":\"linear\",\"out\":32},"
        "{\"type\":\"dropout\",\"p\":0.5},{\"type\":\"linear\",\"out\":4}]}";
    char err[256];
    tta_model_config cfg = config(BE, 1, 4, 4, 8);
    tta_model *m, *r;
    CHECK(tta_model_build_json(&m, json, "d", &cfg, err, sizeof err) == 0);
    cfg.backend = "reference";
    CHECK(tta_model_build_json(&r, json, "d", &cfg, err, sizeof err) == 0);
    float x[8 * 16];
    int32_t y[8] = {0, 1, 2, 3, 0, 1, 2, 3};
    for (int i = 0; i < 8 * 16; i++) x[i] = frand();
    tta_step_result a, b, c;
    CHECK(tta_model_forward(m, x, y, 8, 1, &a) == 0);
    CHECK(tta_model_forward(r, x, y, 8, 1, &b) == 0);
    CHECK_REL(a.loss, b.loss, 1e-5); /* the same mask on both backends */
    CHECK(tta_model_forward(m, x, y, 8, 1, &c) == 0);
    CHECK(c.loss != a.loss); /* the step counter moved the mask */
    tta_model_set_dropout_step(m, 0);
    CHECK(tta_model_forward(m, x, y, 8, 1, &c) == 0);
    CHECK(c.loss == a.loss);
    tta_model_free(m);
    tta_model_free(r);
}

/* FLOPs and bytes of each layer against hand-computed values: a conv with stride and padding, a
 * BN, a max pool, global average pooling and a linear layer, batch 4, 3x8x8 input. */
TEST(layer_flops_by_hand) {
    const char *json =
        "{\"name\": \"hand\", \"layers\": ["
        "{\"name\": \"c1\", \"type\": \"conv\", \"out\": 6, \"kernel\": 3, \"stride\": 1, \"pad\": 1, \"bias\": true},"
        "{\"name\": \"bn\", \"type\": \"bn\"},"
        "{\"name\": \"mp\", \"type\": \"maxpool\", \"kernel\": 2},"
        "{\"name\": \"c2\", \"type\": \"conv\", \"out\": 10, \"kernel\": 3, \"stride\": 2, \"pad\": 1, \"bias\": false},"
        "{\"name\": \"gap\", \"type\": \"gap\"},"
        "{\"name\": \"fc\", \"type\": \"linear\", \"out\": \"$classes\"}]}";
    char err[512];
    tta_model_config cfg = config(BE, 3, 8, 5, 4);
    tta_model *m;
    CHECK(tta_model_build_json(&m, json, "hand", &cfg, err, sizeof err) == 0);
    if (!m) return;
    int nl;
    const tta_layer_stats *st = tta_model_layer_stats(m, &nl);
    const tta_layer_stats *c1 = NULL, *bn = NULL, *mp = NULL, *c2 = NULL, *gap = NULL, *fc = NULL;
    for (int i = 0; i < nl; i++) {
        if (!strcmp(st[i].name, "c1")) c1 = &st[i];
        if (!strcmp(st[i].name, "bn")) bn = &st[i];
        if (!strcmp(st[i].name, "mp")) mp = &st[i];
        if (!strcmp(st[i].name, "c2")) c2 = &st[i];
        if (!strcmp(st[i].name, "gap")) gap = &st[i];
        if (!strcmp(st[i].name, "fc")) fc = &st[i];
    }
    CHECK(c1 && bn && mp && c2 && gap && fc);
    if (!(c1 && bn && mp && c2 && gap && fc)) return;
    /* c1: 4 x 6 x 8 x 8 outputs, each 3*3*3 multiply-adds, plus the bias; no input gradient
     * (the input needs none); weights 6*27 + 6 */
    double out1 = 4.0 * 6 * 8 * 8;
    CHECK(c1->flops_fwd == 2 * out1 * 27 + out1);
    CHECK(c1->flops_bwd == 2 * out1 * 27 + out1);
    CHECK(c1->bytes_fwd == 4 * (4.0 * 3 * 64 + out1 + 6 * 27 + 6));
    /* bn on 1536 values: 7 flops each forward, 9 backward */
    CHECK(bn->flops_fwd == 7 * out1 && bn->flops_bwd == 9 * out1);
    /* max pool 2x2: 4 x 6 x 4 x 4 outputs, 4 comparisons each */
    double outp = 4.0 * 6 * 4 * 4;
    CHECK(mp->flops_fwd == outp * 4 && mp->flops_bwd == outp);
    CHECK(mp->out.c == 6 && mp->out.h == 4 && mp->out.w == 4);
    /* its bytes: the input and output (gradients backward) and the window positions, a byte an
     * output, written forward and read backward; gap: input and output, no positions */
    CHECK(mp->bytes_fwd == 4 * (out1 + outp) + outp && mp->bytes_bwd == mp->bytes_fwd);
    /* c2, stride 2 pad 1 on 4x4: 2x2 outputs, fan-in 6*9; input gradient too */
    double out2 = 4.0 * 10 * 2 * 2;
    CHECK(c2->out.h == 2 && c2->out.w == 2);
    CHECK(c2->flops_fwd == 2 * out2 * 54);
    CHECK(c2->flops_bwd == 4 * out2 * 54);
    CHECK(c2->bytes_bwd == 4 * (out2 + outp + 540 + outp + 540));
    /* gap: one add per input value */
    CHECK(gap->flops_fwd == 4.0 * 10 * 4);
    CHECK(gap->bytes_fwd == 4 * (out2 + 4.0 * 10) && gap->bytes_bwd == gap->bytes_fwd);
    /* fc 10 -> 5 with bias */
    CHECK(fc->flops_fwd == 2 * 4.0 * 5 * 10 + 4 * 5);
    CHECK(fc->flops_bwd == 4 * 4.0 * 5 * 10 + 4 * 5);
    double total = 0;
    for (int i = 0; i < nl; i++) total += st[i].flops_fwd + st[i].flops_bwd;
    CHECK(tta_model_train_flops(m) == total);
    tta_model_free(m);
}

TEST(flops_and_memory) {
    char err[512];
    tta_model_config cfg = config(BE, 1, 28, 10, 128);
    tta_model *m;
    CHECK(tta_model_build(&m, "mlp", &cfg, err, sizeof err) == 0);
    /* forward 2*B*sum(in*out) + biases; backward twice that except fc1's input gradient */
    double B = 128, mac = 784.0 * 512 + 512.0 * 512 + 512.0 * 10;
    double fwd = 2 * B * mac + B * (512 + 512 + 10) + B * 1024; /* + the two ReLUs */
    double bwd = 2 * B * mac + 2 * B * (512.0 * 512 + 512.0 * 10) + B * (512 + 512 + 10) + B * 1024;
    CHECK_REL(tta_model_train_flops(m), fwd + bwd, 1e-9);
    size_t mem[TTA_MEM_COUNT];
    tta_model_memory(m, mem);
    CHECK(mem[TTA_MEM_WEIGHTS] == tta_model_num_params(m) * sizeof(float));
    CHECK(mem[TTA_MEM_WEIGHT_GRADS] == mem[TTA_MEM_WEIGHTS]);
    /* kept feature maps: input, flatten, fc1(+relu), fc2(+relu), logits */
    CHECK(mem[TTA_MEM_ACTIVATIONS] == 128 * (784 + 784 + 512 + 512 + 10) * sizeof(float));
    /* gradients of fc1, fc2, fc3 outputs (none for the input or flatten) */
    CHECK(mem[TTA_MEM_ACT_GRADS] == 128 * (512 + 512 + 10) * sizeof(float));
    CHECK(mem[TTA_MEM_EVAL] > 0);
    /* the accounting by category sums to what the backend's allocator has handed out */
    size_t mem_sum = 0;
    for (int k = 0; k < TTA_MEM_COUNT; k++) mem_sum += mem[k];
    tta_backend *be = tta_model_backend(m);
    CHECK(be->ops->allocated(be->ctx) == mem_sum);
    int nl;
    const tta_layer_stats *st = tta_model_layer_stats(m, &nl);
    CHECK(nl == 6);
    CHECK(st[2].fused_into && strcmp(st[2].fused_into, "fc1") == 0);
    char *sum = tta_model_summary(m);
    CHECK(strstr(sum, "fc2") != NULL);
    free(sum);
    /* profiling records time per layer */
    float *x = calloc(128 * 784, sizeof(float));
    int32_t y[128] = {0};
    tta_model_set_profiling(m, 1);
    tta_step_result r;
    CHECK(tta_model_forward(m, x, y, 128, 1, &r) == 0);
    tta_model_backward(m);
    st = tta_model_layer_stats(m, &nl);
    CHECK(st[1].calls_fwd == 1 && st[1].calls_bwd == 1 && st[1].time_fwd > 0);
    free(x);
    tta_model_free(m);
}

int main(void) {
    RUN(parameter_counts);
    RUN(invalid_models_rejected);
    RUN(graph_expansion);
    /* every fast backend; "cuda" only where built and a device exists */
    const char *names[] = {"cpu", "cuda"};
    for (size_t b = 0; b < sizeof names / sizeof names[0]; b++) {
        char err[256];
        tta_backend *probe = tta_backend_create(names[b], NULL, err, sizeof err);
        if (!probe) {
            if (strcmp(names[b], "cpu") == 0) {
                fprintf(stderr, "backend cpu: %s\n", err);
                return 1;
            }
            fprintf(stderr, "test_model: %s: skipped: %s\n", names[b], err);
            continue;
        }
        probe->ops->destroy(probe);
        BE = names[b];
        fprintf(stderr, "test_model: backend %s\n", BE);
        RUN(shipped_models_build);
        RUN(init_like_pytorch);
        RUN(backend_matches_reference_models);
        RUN(residual_add_passes_gradient_through);
        RUN(max_pool_bytes_count_positions);
        RUN(evaluate_matches_eval_forward_in_chunks);
        RUN(bit_identical_runs);
        RUN(dropout_deterministic_and_scaled);
        RUN(flops_and_memory);
        RUN(layer_flops_by_hand);
    }
    return test_summary();
}
