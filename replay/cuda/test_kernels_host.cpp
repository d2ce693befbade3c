/* test_kernels_host.cpp: the kernels of kernels.cu, run on the host through
 * kernels_host_emu.h, against the reference layers, so that CI checks them on machines
 * without a GPU (ctest replay/test_cuda_kernels_host; the backend-level tests check them
 * through cuDNN's neighbours where a device exists). Also checks the argument order of
 * backend_cuda.c's three cublasSgemm calls with OpenBLAS's column-major sgemm, which has
 * cuBLAS's semantics.
 *
 * Element-wise kernels, dropout, the shortcut, cross-entropy backward and BN folding compute
 * the reference's float (or double) expressions, so they must agree bit for bit; sums in a
 * different order (channel sums, the loss total) to float rounding. Max pooling is checked on
 * inputs with many tied maxima, with overlapping and non-overlapping windows. The SGD step
 * (k_sgd) must give tta_optim_step's bits in each of its four conventions, over tensors with and
 * without weight decay, some merged into one range and one left out of every range.
 */
#include <cblas.h>
#include <cmath>
#include <cstdio>
#include <vector>

extern "C" {
#include "replay/cuda/cuda_internal.h"
#include "replay/engine.h"
#include "replay/optim.h"
}

static int failed;
#define CHECK(c)                                                                   \
    do {                                                                           \
        if (!(c)) {                                                                \
            std::printf("%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c);     \
            failed++;                                                              \
        }                                                                          \
    } while (0)

static uint64_t rs = 7;
static float frand() {
    rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
    return (float)((rs >> 40) * (1.0 / 16777216.0)) * 2.0f - 1.0f;
}
/* n values in [-1, 1); ties: rounded to {-1, 0, 1} */
static std::vector<float> rnd(size_t n, bool ties = false) {
    std::vector<float> v(n);
    for (auto &x : v) x = ties ? std::round(frand()) : frand();
    return v;
}
/* max |a - b| relative to max |b| */
static double rel(const std::vector<float> &a, const std::vector<float> &b) {
    double md = 0, mx = 1e-30;
    for (size_t i = 0; i < a.size(); i++) {
        md = std::fmax(md, std::fabs((double)a[i] - b[i]));
        mx = std::fmax(mx, std::fabs(b[i]));
    }
    return md / mx;
}

static const cudaStream_t S = nullptr;

static void elementwise() {
    size_t n = 1000;
    auto a = rnd(n), b = rnd(n);
    std::vector<float> o(n), r(n);
    CHECK(tta_cu_fill(o.data(), 0.5f, n, S) == cudaSuccess && o[0] == 0.5f && o[n - 1] == 0.5f);
    o = a;
    tta_cu_accumulate(o.data(), b.data(), n, S);
    ref_add_forward_f(r.data(), a.data(), b.data(), n);
    CHECK(o == r);
    tta_cu_scale(o.data(), a.data(), 0.125f, n, S);
    ref_scale_forward_f(r.data(), a.data(), 0.125f, n);
    CHECK(o == r);
    tta_cu_relu_forward(o.data(), a.data(), n, S);
    ref_relu_forward_f(r.data(), a.data(), n);
    CHECK(o == r);
    std::vector<float> y = r;
    tta_cu_relu_backward(o.data(), b.data(), y.data(), n, S);
    ref_relu_backward_f(r.data(), b.data(), y.data(), n);
    CHECK(o == r);
    for (int relu = 0; relu < 2; relu++) {
        tta_cu_add(o.data(), a.data(), b.data(), n, relu, S);
        ref_add_forward_f(r.data(), a.data(), b.data(), n);
        if (relu) ref_relu_forward_f(r.data(), r.data(), n);
        CHECK(o == r);
    }
    tta_cu_dropout(o.data(), a.data(), n, 0.3f, 7, 3, S);
    ref_dropout_forward_f(r.data(), a.data(), n, 0.3f, 7, 3);
    CHECK(o == r);
}

/* bias + ReLU epilogue and per-channel sums on [4][5][50], the sums against the reference's
 * conv bias gradient */
static void bias_and_channel_sums() {
    int N = 4, C = 5, HW = 50;
    size_t n = (size_t)N * C * HW;
    auto a = rnd(n), bias = rnd(C);
    std::vector<float> o = a;
    tta_cu_bias_act(o.data(), bias.data(), N, C, HW, 1, S);
    int ok = 1;
    for (size_t i = 0; i < n; i++) {
        float v = a[i] + bias[i / HW % C];
        ok &= o[i] == (v > 0 ? v : 0.0f);
    }
    CHECK(ok);
    std::vector<float> sums(C), db(C), w(C * C, 0.0f), dw(C * C);
    tta_cu_channel_sum(sums.data(), a.data(), N, C, HW, S);
    ref_conv_backward_f(nullptr, dw.data(), db.data(), a.data(), a.data(), w.data(), N, C, 5, 10,
                        C, 1, 1, 0, 5, 10);
    CHECK(rel(sums, db) < 1e-6);
}

static void shortcut() {
    for (int H : {5, 6}) { /* odd and even input sizes, stride 2 */
        int B = 2, C = 16, OC = 32, St = 2, OH = (H + 1) / 2;
        auto x = rnd((size_t)B * C * H * H), dy = rnd((size_t)B * OC * OH * OH);
        std::vector<float> y1(dy.size(), 9.0f), y2(dy.size()), dx1(x.size(), 9.0f), dx2(x.size());
        tta_cu_shortcut_forward(y1.data(), x.data(), B, C, H, H, OC, St, 8, OH, OH, S);
        ref_shortcut_forward_f(y2.data(), x.data(), B, C, H, H, OC, St, 8, OH, OH);
        CHECK(y1 == y2);
        tta_cu_shortcut_backward(dx1.data(), dy.data(), B, C, H, H, OC, St, 8, OH, OH, S);
        ref_shortcut_backward_f(dx2.data(), dy.data(), B, C, H, H, OC, St, 8, OH, OH);
        CHECK(dx1 == dx2);
    }
}

static void maxpool_case(int B, int C, int H, int K, int St, int P, bool ties) {
    int OH = (H + 2 * P - K) / St + 1;
    auto x = rnd((size_t)B * C * H * H, ties), dy = rnd((size_t)B * C * OH * OH);
    std::vector<float> y1(dy.size()), y2(dy.size()), dx1(x.size(), 9.0f), dx2(x.size());
    tta_cu_maxpool_forward(y1.data(), x.data(), B * C, H, H, K, K, St, St, P, P, OH, OH, S);
    ref_maxpool_forward_f(y2.data(), x.data(), B, C, H, H, K, St, P, OH, OH);
    CHECK(y1 == y2);
    tta_cu_maxpool_backward(dx1.data(), dy.data(), x.data(), B * C, H, H, K, K, St, St, P, P, OH,
                            OH, S);
    ref_maxpool_backward_f(dx2.data(), dy.data(), x.data(), B, C, H, H, K, St, P, OH, OH);
    double e = rel(dx1, dx2); /* overlapping windows sum in the reference's order: exact */
    if (!(e == 0)) std::printf("maxpool H%d K%d S%d P%d ties %d: %g\n", H, K, St, P, ties, e);
    CHECK(e == 0);
}

static void pooling() {
    for (int ties = 0; ties < 2; ties++) {
        maxpool_case(2, 3, 8, 2, 2, 0, ties);
        maxpool_case(2, 3, 7, 2, 2, 0, ties); /* 7 -> 3: the last row is not read */
        maxpool_case(2, 3, 8, 3, 2, 1, ties); /* overlapping */
        maxpool_case(2, 3, 9, 3, 2, 1, ties);
        maxpool_case(2, 3, 7, 3, 1, 1, ties);
        maxpool_case(1, 2, 10, 4, 3, 1, ties);
        maxpool_case(1, 2, 10, 5, 2, 2, ties);
    }
    /* global max pooling: one window over the plane */
    int B = 2, C = 4, H = 4;
    auto x = rnd((size_t)B * C * H * H, true), dy = rnd(B * C);
    std::vector<float> y1(B * C), y2(B * C), dx1(x.size()), dx2(x.size());
    tta_cu_maxpool_forward(y1.data(), x.data(), B * C, H, H, H, H, H, H, 0, 0, 1, 1, S);
    ref_gmp_forward_f(y2.data(), x.data(), B, C, H * H);
    CHECK(y1 == y2);
    tta_cu_maxpool_backward(dx1.data(), dy.data(), x.data(), B * C, H, H, H, H, H, H, 0, 0, 1, 1, S);
    ref_gmp_backward_f(dx2.data(), dy.data(), x.data(), B, C, H * H);
    CHECK(dx1 == dx2);
}

static void xent() {
    for (float smoothing : {0.0f, 0.2f}) {
        int B = 300, K = 10; /* more samples than threads: each thread sums several */
        auto z = rnd((size_t)B * K);
        for (int i = 0; i < 4 * K; i++) z[i] = 0; /* tied logits: argmax is the first */
        std::vector<int32_t> lab(B);
        for (int i = 0; i < B; i++) lab[i] = (i * 7) % K;
        float res[2];
        int correct;
        tta_cu_xent_forward(res, z.data(), lab.data(), B, K, smoothing, S);
        float mean = ref_xent_forward_f(z.data(), lab.data(), B, K, smoothing, &correct);
        CHECK(std::fabs(res[0] - mean * B) <= 1e-6 * std::fabs(mean * B));
        CHECK(res[1] == correct);
        std::vector<float> d1(z.size()), d2(z.size());
        tta_cu_xent_backward(d1.data(), z.data(), lab.data(), B, K, smoothing, S);
        ref_xent_backward_f(d2.data(), z.data(), lab.data(), B, K, smoothing);
        CHECK(d1 == d2);
    }
}

/* against the reference backend's fold_bn expression (backend_ref.c) */
static void fold_bn() {
    int oc = 5, k = 12;
    auto w = rnd(oc * k), b = rnd(oc), g = rnd(oc), be = rnd(oc), mean = rnd(oc), var = rnd(oc);
    for (auto &v : var) v = 0.5f + v * v;
    for (int with_bias = 0; with_bias < 2; with_bias++) {
        const float *bp = with_bias ? b.data() : nullptr;
        std::vector<float> wf1(w.size()), bf1(oc), wf2(w.size()), bf2(oc);
        tta_cu_fold_bn(wf1.data(), bf1.data(), w.data(), bp, g.data(), be.data(), mean.data(),
                       var.data(), 1e-5f, oc, k, S);
        for (int o = 0; o < oc; o++) {
            double gg = g[o] / std::sqrt((double)var[o] + 1e-5f);
            for (int i = 0; i < k; i++) wf2[o * k + i] = (float)(w[o * k + i] * gg);
            bf2[o] = (float)(((bp ? bp[o] : 0.0) - mean[o]) * gg + be[o]);
        }
        CHECK(wf1 == wf2 && bf1 == bf2);
    }
}

/* backend_cuda.c's linear layer: the same (transa, transb, m, n, k, lda, ldb, ldc) as its
 * cublasSgemm calls, in OpenBLAS's column-major sgemm */
static void linear_gemm_arguments() {
    int B = 5, In = 33, O = 16;
    auto x = rnd(B * In), w = rnd(O * In), dy = rnd(B * O);
    std::vector<float> y1(B * O), y2(B * O), dx1(B * In), dx2(B * In), dw1(O * In), dw2(O * In);
    std::vector<float> db(O), sums(O);
    cblas_sgemm(CblasColMajor, CblasTrans, CblasNoTrans, O, B, In, 1, w.data(), In, x.data(), In,
                0, y1.data(), O);
    ref_linear_forward_f(y2.data(), x.data(), w.data(), nullptr, B, In, O);
    CHECK(rel(y1, y2) < 1e-6);
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasTrans, In, O, B, 1, x.data(), In, dy.data(), O,
                0, dw1.data(), In);
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, In, B, O, 1, w.data(), In, dy.data(), O,
                0, dx1.data(), In);
    ref_linear_backward_f(dx2.data(), dw2.data(), db.data(), dy.data(), x.data(), w.data(), B, In, O);
    CHECK(rel(dw1, dw2) < 1e-6);
    CHECK(rel(dx1, dx2) < 1e-6);
    tta_cu_channel_sum(sums.data(), dy.data(), B, O, 1, S); /* the bias gradient */
    CHECK(rel(sums, db) < 1e-6);
}

/* k_sgd against tta_optim_step: five tensors, decay on 0, 1 and 3 (0 and 1 adjacent: one range),
 * tensor 2 and the gap before tensor 4 outside every range (left alone), 5 steps at changing rates */
static void sgd() {
    const size_t offset[] = {0, 300, 310, 700, 1030}, count[] = {300, 10, 390, 320, 7}, n = 1037;
    for (int conv = 0; conv < 4; conv++) {
        tta_opt_config cfg = {};
        cfg.kind = TTA_OPT_SGD;
        cfg.momentum = 0.9;
        cfg.weight_decay = 5e-4;
        cfg.nesterov = conv & 1;
        cfg.caffe = conv >> 1;
        tta_optim host;
        CHECK(tta_optim_init(&host, &cfg, n) == 0);
        tta_param_tensor t[4];
        const int tensor_of[4] = {0, 1, 3, 4}; /* tensor 2 is not the optimizer's */
        for (int k = 0; k < 4; k++) {
            int j = tensor_of[k];
            t[k] = {offset[j], count[j], j != 4, 0};
        }
        tta_sgd_step a = {};
        a.momentum = (float)cfg.momentum;
        a.nesterov = cfg.nesterov;
        a.caffe = cfg.caffe;
        a.n_ranges = 3; /* tensors 0+1 (decay), 3 (decay), 4 (none) */
        a.begin[0] = 0, a.end[0] = 310, a.decay[0] = (float)cfg.weight_decay;
        a.begin[1] = 700, a.end[1] = 1020, a.decay[1] = (float)cfg.weight_decay;
        a.begin[2] = 1030, a.end[2] = 1037, a.decay[2] = 0.0f;
        auto p1 = rnd(n), p2 = p1;
        std::vector<float> v(n, 0.0f);
        for (int step = 0; step < 5; step++) {
            auto g = rnd(n);
            double lr = 0.05 * (step + 1) / 3.0;
            tta_optim_step(&host, p1.data(), g.data(), t, 4, lr);
            a.lr = (float)lr;
            CHECK(tta_cu_sgd(p2.data(), g.data(), v.data(), &a, S) == cudaSuccess);
        }
        CHECK(p1 == p2);
        CHECK(std::vector<float>(host.state, host.state + n) == v);
        CHECK(v[305] != 0.0f && v[1035] != 0.0f && v[500] == 0.0f && v[1025] == 0.0f);
        tta_optim_free(&host);
    }
}

int main() {
    elementwise();
    bias_and_channel_sums();
    shortcut();
    pooling();
    xent();
    fold_bn();
    linear_gemm_arguments();
    sgd();
    std::printf("%s\n", failed ? "FAILED" : "kernels.cu (host emulation) matches the reference");
    return failed ? 1 : 0;
}
