/* test_torch_reference.c: the engine against PyTorch, from the fixtures that
 * tests/replay/make_torch_reference.py wrote under fixtures/replay/torch (no Python needed here).
 *
 * Tolerances (relative to the largest magnitude of the tensor compared; PyTorch's values are
 * float64 answers, ours float32):
 *   layers: outputs and gradients 1e-4;
 *   models: loss and logits 1e-4, each parameter gradient 1e-3, running statistics 1e-4;
 *   ten SGD steps (lr 0.1, with and without momentum 0.9) on a fixed batch: each loss 1e-3;
 *   the inference-path loss after the momentum run 1e-3.
 * Every check runs on the cpu backend, on the reference backend and, where built and a device
 * is present, on the cuda backend (else "test_torch_reference: cuda: skipped: <reason>").
 * Device memory is only touched through upload/download, as a GPU backend requires.
 */
#include <dirent.h>

#include "replay/engine.h"
#include "tta_test.h"

typedef struct {
    char name[128];
    int dtype; /* 0 float32, 1 int32, 2 text */
    int ndim;
    int dims[8];
    size_t count;
    void *data;
} fx_entry;

typedef struct {
    fx_entry *e;
    int n;
} fixture;

static int fx_load(fixture *f, const char *path) {
    memset(f, 0, sizeof *f);
    FILE *fp = fopen(path, "rb");
    if (!fp) return -1;
    char magic[8];
    uint32_t n;
    if (fread(magic, 1, 8, fp) != 8 || memcmp(magic, "TTAFIX1", 8) != 0 || fread(&n, 4, 1, fp) != 1) {
        fclose(fp);
        return -1;
    }
    f->e = calloc(n, sizeof(fx_entry));
    for (uint32_t i = 0; i < n; i++) {
        fx_entry *e = &f->e[i];
        uint32_t len, dt, nd;
        if (fread(&len, 4, 1, fp) != 1 || len >= sizeof e->name || fread(e->name, 1, len, fp) != len ||
            fread(&dt, 4, 1, fp) != 1 || fread(&nd, 4, 1, fp) != 1 || nd > 8)
            break;
        e->dtype = (int)dt;
        e->ndim = (int)nd;
        e->count = 1;
        for (uint32_t k = 0; k < nd; k++) {
            uint32_t d;
            if (fread(&d, 4, 1, fp) != 1) break;
            e->dims[k] = (int)d;
            e->count *= d;
        }
        size_t bytes = e->count * (dt == 2 ? 1 : 4);
        e->data = calloc(1, bytes + 1); /* text stays NUL-terminated */
        if (fread(e->data, 1, bytes, fp) != bytes) break;
        f->n++;
    }
    fclose(fp);
    return f->n == (int)n ? 0 : -1;
}

static void fx_free(fixture *f) {
    for (int i = 0; i < f->n; i++) free(f->e[i].data);
    free(f->e);
}

static const fx_entry *fx_get(const fixture *f, const char *name) {
    for (int i = 0; i < f->n; i++)
        if (strcmp(f->e[i].name, name) == 0) return &f->e[i];
    return NULL;
}
static const float *fx_f(const fixture *f, const char *name) {
    const fx_entry *e = fx_get(f, name);
    return e && e->dtype == 0 ? e->data : NULL;
}
static const int32_t *fx_i(const fixture *f, const char *name) {
    const fx_entry *e = fx_get(f, name);
    return e && e->dtype == 1 ? e->data : NULL;
}

static char fixdir[4096];

static double rel_err(const float *a, const float *b, size_t n) {
    double md = 0, mx = 1e-30;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - b[i]);
        if (!(d <= md)) md = d; /* NaN propagates */
        if (fabs(b[i]) > mx) mx = fabs(b[i]);
    }
    return md / mx;
}

/* ------------------------------------------------------------------------------------------ */
/* Layers */

typedef struct {
    tta_backend *be;
    tta_op op;
} lop;

static float *dev(tta_backend *be, const float *host, size_t n) {
    float *d = be->ops->alloc(be->ctx, n * sizeof(float) + 64);
    if (host) be->ops->upload(be->ctx, d, host, n * sizeof(float));
    return d;
}
static float *dev_ten(tta_backend *be, const float *host, tta_shape s) {
    float *d = be->ops->alloc(be->ctx, tta_shape_count(s) * sizeof(float) + 64);
    if (host) be->ops->tensor_upload(be->ctx, d, host, s);
    return d;
}
static float *host_t(tta_backend *be, const float *d, tta_shape s) {
    float *h = malloc(tta_shape_count(s) * sizeof(float));
    be->ops->tensor_download(be->ctx, h, d, s);
    return h;
}
static float *host_a(tta_backend *be, const float *d, size_t n) {
    float *h = malloc(n * sizeof(float) + 4);
    be->ops->download(be->ctx, h, d, n * sizeof(float));
    return h;
}

#define LAYER_TOL 1e-4

/* Checks device tensor d (shape s) against fixture entry name. */
static void check_t(tta_backend *be, const fixture *f, const char *file, const char *name,
                    const float *d, tta_shape s) {
    const float *want = fx_f(f, name);
    CHECK(want != NULL);
    if (!want) return;
    float *got = host_t(be, d, s);
    double e = rel_err(got, want, tta_shape_count(s));
    if (!(e <= LAYER_TOL)) fprintf(stderr, "%s [%s]: %s off by %g\n", file, be->ops->name, name, e);
    CHECK(e <= LAYER_TOL);
    free(got);
}
static void check_a(tta_backend *be, const fixture *f, const char *file, const char *name,
                    const float *d, size_t n) {
    const float *want = fx_f(f, name);
    CHECK(want != NULL);
    if (!want) return;
    float *got = host_a(be, d, n);
    double e = rel_err(got, want, n);
    if (!(e <= LAYER_TOL)) fprintf(stderr, "%s [%s]: %s off by %g\n", file, be->ops->name, name, e);
    CHECK(e <= LAYER_TOL);
    free(got);
}

static void run_layer(tta_backend *be, const fixture *f, const char *file) {
    const char *kind = fx_get(f, "kind")->data;
    const int32_t *I = fx_i(f, "ints");
    tta_op op = {.train = 1, .need_dinp = 1};
    char err[256];
    void *c = be->ctx;
    if (strcmp(kind, "xent") == 0) {
        tta_shape s = {I[0], I[1], 1, 1};
        op.kind = TTA_OP_XENT;
        op.in = op.out = s;
        op.smoothing = fx_f(f, "smoothing")[0];
        CHECK(be->ops->op_init(c, &op, err, sizeof err) == 0);
        float *z = dev_ten(be, fx_f(f, "x"), s), *dz = dev_ten(be, NULL, s), *res = dev(be, NULL, 2);
        int32_t *lab = be->ops->alloc(c, sizeof(int32_t) * I[0]);
        be->ops->upload(c, lab, fx_i(f, "labels"), sizeof(int32_t) * I[0]);
        be->ops->xent_forward(c, &op, res, z, lab);
        float r[2];
        be->ops->download(c, r, res, sizeof r);
        CHECK_REL(r[0] / I[0], fx_f(f, "y")[0], LAYER_TOL);
        be->ops->xent_backward(c, &op, dz, z, lab);
        check_t(be, f, file, "dx", dz, s);
        be->ops->op_release(c, &op);
        be->ops->free(c, z), be->ops->free(c, dz), be->ops->free(c, res), be->ops->free(c, lab);
        return;
    }
    tta_shape in = {I[0], I[1], I[2], I[3]}, out = in;
    size_t np0 = 0, np1 = 0;
    if (strcmp(kind, "conv") == 0) {
        op.kind = TTA_OP_CONV;
        op.kernel = I[5], op.stride = I[6], op.pad = I[7], op.bias = I[8], op.relu = I[9];
        out = (tta_shape){I[0], I[4], (I[2] + 2 * I[7] - I[5]) / I[6] + 1, (I[3] + 2 * I[7] - I[5]) / I[6] + 1};
        np0 = (size_t)I[4] * I[1] * I[5] * I[5];
        np1 = I[4];
    } else if (strcmp(kind, "bn") == 0) {
        op.kind = TTA_OP_BN;
        op.eps = 1e-5f, op.momentum = 0.1f, op.relu = I[4];
        np0 = np1 = I[1];
    } else if (strcmp(kind, "linear") == 0) {
        op.kind = TTA_OP_LINEAR;
        in = (tta_shape){I[0], I[1], 1, 1};
        out = (tta_shape){I[0], I[2], 1, 1};
        op.bias = I[3], op.relu = I[4];
        np0 = (size_t)I[1] * I[2];
        np1 = I[2];
    } else if (!strcmp(kind, "maxpool") || !strcmp(kind, "avgpool") || !strcmp(kind, "gap") || !strcmp(kind, "gmp")) {
        op.kind = !strcmp(kind, "maxpool") ? TTA_OP_MAXPOOL : !strcmp(kind, "avgpool") ? TTA_OP_AVGPOOL
                  : !strcmp(kind, "gap") ? TTA_OP_GAP : TTA_OP_GMP;
        op.kernel = I[4], op.stride = I[5], op.pad = I[6];
        if (op.kind == TTA_OP_GAP || op.kind == TTA_OP_GMP)
            out.h = out.w = 1;
        else
            out.h = (I[2] + 2 * I[6] - I[4]) / I[5] + 1, out.w = (I[3] + 2 * I[6] - I[4]) / I[5] + 1;
    } else if (!strcmp(kind, "relu")) {
        op.kind = TTA_OP_RELU;
    } else if (!strcmp(kind, "dropout")) {
        op.kind = TTA_OP_DROPOUT;
        op.p = 0.3f;
    } else if (!strcmp(kind, "scale")) {
        op.kind = TTA_OP_SCALE;
        op.factor = 0.125f;
    } else if (!strcmp(kind, "flatten")) {
        op.kind = TTA_OP_FLATTEN;
        out = (tta_shape){I[0], I[1] * I[2] * I[3], 1, 1};
    } else if (!strcmp(kind, "pad_shortcut")) {
        op.kind = TTA_OP_PAD_SHORTCUT;
        op.stride = I[5], op.pad_front = I[6];
        out = (tta_shape){I[0], I[4], (I[2] + I[5] - 1) / I[5], (I[3] + I[5] - 1) / I[5]};
    } else {
        CHECK(!"unknown layer kind in fixture");
        return;
    }
    op.in = in;
    op.out = out;
    CHECK(be->ops->op_init(c, &op, err, sizeof err) == 0);
    op.saved = be->ops->alloc(c, op.saved_bytes + 64);
    op.scratch = be->ops->alloc(c, op.scratch_bytes + 64);
    float *x = dev_ten(be, fx_f(f, "x"), in), *y = dev_ten(be, NULL, out), *dy = dev_ten(be, fx_f(f, "dy"), out);
    float *dx = dev_ten(be, NULL, in);
    float *p0 = np0 ? dev(be, fx_f(f, "p0"), np0) : NULL, *p1 = np1 ? dev(be, fx_f(f, "p1"), np1) : NULL;
    float *dp0 = np0 ? dev(be, NULL, np0) : NULL, *dp1 = np1 ? dev(be, NULL, np1) : NULL;
    float *rm = np0 ? dev(be, NULL, np0) : NULL, *rv = np0 ? dev(be, NULL, np0) : NULL;
    switch (op.kind) {
    case TTA_OP_CONV:
        be->ops->conv_prepare(c, &op, p0, p1);
        be->ops->conv_forward(c, &op, y, x);
        check_t(be, f, file, "y", y, out);
        be->ops->conv_backward(c, &op, dx, dp0, op.bias ? dp1 : NULL, dy, x, y);
        check_a(be, f, file, "dp0", dp0, np0);
        if (op.bias) check_a(be, f, file, "dp1", dp1, np1);
        break;
    case TTA_OP_BN:
        be->ops->bn_forward(c, &op, y, x, p0, p1, rm, rv);
        check_t(be, f, file, "y", y, out);
        be->ops->bn_backward(c, &op, dx, dp0, dp1, dy, x, y, p0, p1);
        check_a(be, f, file, "dp0", dp0, np0);
        check_a(be, f, file, "dp1", dp1, np1);
        break;
    case TTA_OP_LINEAR:
        be->ops->linear_forward(c, &op, y, x, p0, p1);
        check_t(be, f, file, "y", y, out);
        be->ops->linear_backward(c, &op, dx, dp0, dp1, dy, x, p0, y);
        check_a(be, f, file, "dp0", dp0, np0);
        check_a(be, f, file, "dp1", dp1, np1);
        break;
    case TTA_OP_RELU:
        be->ops->relu_forward(c, &op, y, x);
        check_t(be, f, file, "y", y, out);
        be->ops->relu_backward(c, &op, dx, dy, y);
        break;
    case TTA_OP_DROPOUT:
        be->ops->dropout_forward(c, &op, y, x, (uint64_t)I[4], (uint64_t)I[5]);
        check_t(be, f, file, "y", y, out);
        be->ops->dropout_backward(c, &op, dx, dy, (uint64_t)I[4], (uint64_t)I[5]);
        break;
    case TTA_OP_SCALE:
        be->ops->scale_forward(c, &op, y, x);
        check_t(be, f, file, "y", y, out);
        be->ops->scale_backward(c, &op, dx, dy);
        break;
    case TTA_OP_FLATTEN:
        be->ops->flatten_forward(c, &op, y, x);
        check_t(be, f, file, "y", y, out);
        be->ops->flatten_backward(c, &op, dx, dy);
        break;
    case TTA_OP_PAD_SHORTCUT:
        be->ops->shortcut_forward(c, &op, y, x);
        check_t(be, f, file, "y", y, out);
        be->ops->shortcut_backward(c, &op, dx, dy);
        break;
    default:
        be->ops->pool_forward(c, &op, y, x);
        check_t(be, f, file, "y", y, out);
        be->ops->pool_backward(c, &op, dx, dy, x, y);
        break;
    }
    check_t(be, f, file, "dx", dx, in);
    be->ops->free(c, op.saved), be->ops->free(c, op.scratch);
    be->ops->op_release(c, &op);
    float *all[] = {x, y, dy, dx, p0, p1, dp0, dp1, rm, rv};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (all[i]) be->ops->free(c, all[i]);
}

/* ------------------------------------------------------------------------------------------ */
/* Models */

static void set_init(tta_model *m, const fixture *f) {
    int covered = 0, n;
    const tta_param_info *pi = tta_model_param_info(m, &n);
    for (int i = 0; i < f->n; i++) {
        if (strncmp(f->e[i].name, "init:", 5) != 0) continue;
        CHECK(tta_model_set_tensor(m, f->e[i].name + 5, f->e[i].data, f->e[i].count) == 0);
        for (int k = 0; k < n; k++) covered += strcmp(pi[k].name, f->e[i].name + 5) == 0;
    }
    CHECK(covered == n); /* the fixture names every parameter the engine has */
    tta_model_set_dropout_step(m, 0);
}

static void run_model(const char *backend, const fixture *f, const char *file) {
    const int32_t *cfgv = fx_i(f, "config");
    tta_model_config cfg = {.backend = backend, .channels = cfgv[0], .height = cfgv[1], .width = cfgv[2],
                            .classes = cfgv[3], .batch = cfgv[4], .seed = 0, .label_smoothing = -1};
    cfg.backend_options.threads = 2;
    const char *ov = fx_get(f, "overrides")->data;
    cfg.overrides = *ov ? ov : NULL;
    char err[512];
    tta_model *m;
    int rc = tta_model_build_json(&m, fx_get(f, "json")->data, file, &cfg, err, sizeof err);
    if (rc) fprintf(stderr, "%s: %s\n", file, err);
    CHECK(rc == 0);
    if (rc) return;
    int B = cfg.batch, K = cfg.classes;
    const float *x = fx_f(f, "x");
    const int32_t *y = fx_i(f, "labels");
    set_init(m, f);
    tta_step_result r;
    CHECK(tta_model_forward(m, x, y, B, 1, &r) == 0);
    CHECK_REL(r.loss, fx_f(f, "loss")[0], 1e-4);
    float *logits = malloc(sizeof(float) * B * K);
    tta_model_logits(m, logits);
    double e = rel_err(logits, fx_f(f, "logits"), (size_t)B * K);
    if (!(e <= 1e-4)) fprintf(stderr, "%s [%s]: logits off by %g\n", file, backend, e);
    CHECK(e <= 1e-4);
    free(logits);
    tta_model_backward(m);
    int n;
    const tta_param_info *pi = tta_model_param_info(m, &n);
    float *g = host_a(tta_model_backend(m), tta_model_grads(m), tta_model_num_params(m));
    /* A gradient that is zero in exact arithmetic (a conv bias right before BN) is float noise
     * on our side: errors count relative to the largest gradient of the model at least. */
    double gmax = 0;
    for (int k = 0; k < n; k++) {
        char name[160];
        snprintf(name, sizeof name, "grad:%s", pi[k].name);
        const float *want = fx_f(f, name);
        for (size_t j = 0; want && j < pi[k].count; j++) gmax = fmax(gmax, fabs(want[j]));
    }
    for (int k = 0; k < n; k++) {
        char name[160];
        snprintf(name, sizeof name, "grad:%s", pi[k].name);
        const float *want = fx_f(f, name);
        CHECK(want != NULL);
        if (!want) continue;
        double md = 0, mx = 1e-3 * gmax;
        for (size_t j = 0; j < pi[k].count; j++) {
            md = fmax(md, fabs((double)g[pi[k].offset + j] - want[j]));
            mx = fmax(mx, fabs(want[j]));
        }
        e = md / mx;
        if (!(e <= 1e-3)) fprintf(stderr, "%s [%s]: %s off by %g\n", file, backend, name, e);
        CHECK(e <= 1e-3);
    }
    free(g);
    int nb;
    const tta_buffer_info *bi = tta_model_buffer_info(m, &nb);
    for (int k = 0; k < nb; k++) {
        char name[160];
        snprintf(name, sizeof name, "step1:%s", bi[k].name);
        float *got = malloc(sizeof(float) * bi[k].count);
        CHECK(tta_model_get_tensor(m, bi[k].name, got, bi[k].count) == 0);
        e = rel_err(got, fx_f(f, name), bi[k].count);
        if (!(e <= 1e-4)) fprintf(stderr, "%s [%s]: %s off by %g\n", file, backend, name, e);
        CHECK(e <= 1e-4);
        free(got);
    }
    /* ten steps of SGD, then with momentum 0.9 (PyTorch: v = mu v + g; p -= lr v), on host
     * copies of the parameters and gradients */
    tta_backend *be = tta_model_backend(m);
    for (int mom = 0; mom < 2; mom++) {
        set_init(m, f);
        size_t np = tta_model_num_params(m);
        float *v = calloc(np, sizeof(float));
        float *p = host_a(be, tta_model_params(m), np);
        const float *want = fx_f(f, mom ? "losses_momentum" : "losses_sgd");
        for (int s = 0; s < 10; s++) {
            CHECK(tta_model_forward(m, x, y, B, 1, &r) == 0);
            if (!(fabs(r.loss - want[s]) <= 1e-3 * fabs(want[s])))
                fprintf(stderr, "%s [%s]: %s step %d: %.7f vs %.7f\n", file, backend,
                        mom ? "momentum" : "sgd", s, r.loss, want[s]);
            CHECK_REL(r.loss, want[s], 1e-3);
            tta_model_backward(m);
            float *gr = host_a(be, tta_model_grads(m), np);
            for (size_t j = 0; j < np; j++) {
                v[j] = (mom ? 0.9f : 0.0f) * v[j] + gr[j];
                p[j] -= 0.1f * v[j];
            }
            be->ops->upload(be->ctx, tta_model_params(m), p, np * sizeof(float));
            free(gr);
        }
        free(p);
        free(v);
    }
    double ls;
    CHECK(tta_model_evaluate(m, x, y, B, &ls, NULL) == 0);
    CHECK_REL(ls / B, fx_f(f, "eval_loss")[0], 1e-3);
    tta_model_free(m);
}

static int for_each(const char *prefix, void (*fn)(const fixture *, const char *)) {
    DIR *d = opendir(fixdir);
    if (!d) return -1;
    struct dirent *de;
    int count = 0;
    while ((de = readdir(d))) {
        if (strncmp(de->d_name, prefix, strlen(prefix)) != 0) continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", fixdir, de->d_name);
        fixture f;
        int rc = fx_load(&f, path);
        CHECK(rc == 0);
        if (!rc) fn(&f, de->d_name);
        fx_free(&f);
        count++;
    }
    closedir(d);
    return count;
}

/* cpu, reference, and cuda when it could be created */
static tta_backend *backends[3];
static int nbackends;

static void layer_fn(const fixture *f, const char *file) {
    for (int b = 0; b < nbackends; b++) run_layer(backends[b], f, file);
}
static void model_fn(const fixture *f, const char *file) {
    for (int b = 0; b < nbackends; b++) run_model(backends[b]->ops->name, f, file);
}

TEST(layers_match_pytorch) { CHECK(for_each("layer_", layer_fn) >= 19); }
TEST(models_match_pytorch) { CHECK(for_each("model_", model_fn) >= 7); }

int main(void) {
    const char *src = getenv("TTA_SOURCE_DIR");
    snprintf(fixdir, sizeof fixdir, "%s/fixtures/replay/torch", src && *src ? src : ".");
    char err[256];
    tta_backend_options opt = {.threads = 2};
    const char *names[] = {"cpu", "reference", "cuda"};
    for (int b = 0; b < 3; b++) {
        tta_backend *be = tta_backend_create(names[b], &opt, err, sizeof err);
        if (be) {
            backends[nbackends++] = be;
            fprintf(stderr, "test_torch_reference: backend %s\n", names[b]);
        } else if (strcmp(names[b], "cuda") == 0) {
            fprintf(stderr, "test_torch_reference: cuda: skipped: %s\n", err);
        } else {
            fprintf(stderr, "backend %s: %s\n", names[b], err);
            return 1;
        }
    }
    RUN(layers_match_pytorch);
    RUN(models_match_pytorch);
    for (int b = 0; b < nbackends; b++) backends[b]->ops->destroy(backends[b]);
    return test_summary();
}
