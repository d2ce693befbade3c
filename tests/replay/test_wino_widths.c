/* test_wino_widths.c: tta's Winograd F(2x2, 3x3) (replay/cpu_conv_wino.c) gives the same bits
 * with its AVX-512 kernels on nChw16c maps as with its AVX2 kernels on nChw8c maps: the forward
 * (bias, ReLU), the data gradient, the weight and bias gradients, on a shape with odd sides,
 * a 16-wide column remainder (48 channels) and units of several images, at 1 and 2 threads.
 * The kernels are one body compiled at two widths (cpu_conv_wino_kernels.h), summing each
 * channel in the same order, so an AVX2 host and an AVX-512 host train the same convolutions.
 * Their values against the reference layers are test_layers' (conv_own_winograd_edges), on
 * either width by the host and the rule. Skips where the host lacks AVX-512. */
#include "replay/cpu_internal.h"
#include "tta_test.h"

static uint64_t rs = 777;
static float frand(void) {
    rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
    return (float)((rs >> 40) * (1.0 / 16777216.0)) * 2.0f - 1.0f;
}

/* dst (blocked by b) = src (NCHW, shape s), or back with to_plain. */
static void relayout(float *dst, const float *src, tta_shape s, int b, int to_plain) {
    for (int n = 0; n < s.n; n++)
        for (int c = 0; c < s.c; c++)
            for (int h = 0; h < s.h; h++)
                for (int w = 0; w < s.w; w++) {
                    size_t plain = (((size_t)n * s.c + c) * s.h + h) * s.w + w, blk = cpu_offset(b, s, n, c, h, w);
                    if (to_plain) dst[plain] = src[blk];
                    else dst[blk] = src[plain];
                }
}

typedef struct {
    float *y, *dx, *dw; /* NCHW y and dx; dw then db */
} results;

/* Every pass at width `lanes` on `threads` threads, the results back in NCHW. */
static results run(int lanes, int threads, tta_shape in, int oc, const float *x, const float *dy, const float *w,
                   const float *bias) {
    tta_shape out = {in.n, oc, in.h, in.w};
    size_t nx = tta_shape_count(in), ny = tta_shape_count(out), nw = (size_t)oc * in.c * 9;
    float *xb = malloc(nx * sizeof(float)), *dyb = malloc(ny * sizeof(float));
    float *yb = malloc(ny * sizeof(float)), *dxb = malloc(nx * sizeof(float));
    relayout(xb, x, in, lanes, 0);
    relayout(dyb, dy, out, lanes, 0);
    float *U = aligned_alloc(64, cpu_wino_weights_bytes(in.c, oc));
    float *Ubd = aligned_alloc(64, cpu_wino_weights_bytes(oc, in.c));
    cpu_wino_weights(U, w, oc, in.c, 0, threads);
    cpu_wino_weights(Ubd, w, oc, in.c, 1, threads);
    size_t sb = cpu_wino_dw_scratch(in.c, oc, in.h, in.w, threads);
    size_t sf = cpu_wino_scratch(oc, in.c, in.h, in.w, threads);
    void *scratch = aligned_alloc(64, cpu_align64(sb > sf ? sb : sf));
    results r = {malloc(ny * sizeof(float)), malloc(nx * sizeof(float)), malloc((nw + oc) * sizeof(float))};
    cpu_wino_conv(yb, xb, U, bias, 1, in, oc, lanes, threads, scratch);
    cpu_wino_conv(dxb, dyb, Ubd, NULL, 0, out, in.c, lanes, threads, scratch);
    cpu_wino_conv_dw(r.dw, r.dw + nw, xb, dyb, in, oc, lanes, threads, scratch);
    relayout(r.y, yb, out, lanes, 1);
    relayout(r.dx, dxb, in, lanes, 1);
    free(xb), free(dyb), free(yb), free(dxb), free(U), free(Ubd), free(scratch);
    return r;
}

static void results_free(results *r) { free(r->y), free(r->dx), free(r->dw); }

TEST(widths_same_bits) {
    const tta_shape in = {5, 32, 9, 7};
    const int oc = 48;
    tta_shape out = {in.n, oc, in.h, in.w};
    size_t nx = tta_shape_count(in), ny = tta_shape_count(out), nw = (size_t)oc * in.c * 9;
    float *x = malloc(nx * sizeof(float)), *dy = malloc(ny * sizeof(float)), *w = malloc(nw * sizeof(float));
    float bias[48];
    for (size_t i = 0; i < nx; i++) x[i] = frand();
    for (size_t i = 0; i < ny; i++) dy[i] = frand();
    for (size_t i = 0; i < nw; i++) w[i] = frand() * 0.2f;
    for (int i = 0; i < oc; i++) bias[i] = frand() * 0.1f;
    results a8 = run(8, 2, in, oc, x, dy, w, bias), a16 = run(16, 2, in, oc, x, dy, w, bias);
    results a16_1 = run(16, 1, in, oc, x, dy, w, bias);
    CHECK(!memcmp(a8.y, a16.y, ny * sizeof(float)));
    CHECK(!memcmp(a8.dx, a16.dx, nx * sizeof(float)));
    CHECK(!memcmp(a8.dw, a16.dw, (nw + oc) * sizeof(float)));
    CHECK(!memcmp(a16_1.y, a16.y, ny * sizeof(float)));
    CHECK(!memcmp(a16_1.dx, a16.dx, nx * sizeof(float)));
    CHECK(!memcmp(a16_1.dw, a16.dw, (nw + oc) * sizeof(float)));
    /* not a test of zeros: the ReLU lets some through, the gradients are not all zero */
    int positive = 0, nonzero = 0;
    for (size_t i = 0; i < ny; i++) positive += a16.y[i] > 0;
    for (size_t i = 0; i < nw; i++) nonzero += a16.dw[i] != 0;
    CHECK(positive > (int)(ny / 4) && positive < (int)ny);
    CHECK(nonzero == (int)nw);
    results_free(&a8), results_free(&a16), results_free(&a16_1);
    free(x), free(dy), free(w);
}

int main(void) {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bw") ||
        !__builtin_cpu_supports("avx512vl") || !__builtin_cpu_supports("avx512dq") ||
        !__builtin_cpu_supports("fma")) {
        fprintf(stderr, "test_wino_widths: skipped: the host has no AVX-512\n");
        return 77;
    }
    RUN(widths_same_bits);
    return test_summary();
}
