/* test_data.c: Fashion-MNIST from Debian's dataset-fashion-mnist (skips where it is absent): counts,
 * labels and pixel sums computed independently with Python's gzip and struct:
 *   60000 training images; label 0 = 9, label 59999 = 5; pixel sum of image 0 = 76247, of image
 *   50000 = 50221; first test label = 9.
 * The splits (train 50,000 / unseen 10,000 / validation 10,000), the shifted copy, and bad files. */
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "replay/data.h"

#include <zlib.h>
#include "tta_test.h"

static const char *dir = "/usr/share/datasets/fashion-mnist";

static double pixel_sum(const tta_dataset *d, size_t i) {
    double s = 0;
    size_t img = (size_t)d->c * d->h * d->w;
    for (size_t k = 0; k < img; k++) s += d->images[i * img + k];
    return s * 255.0;
}

TEST(fashion_mnist_splits) {
    tta_dataset train, unseen, val;
    tta_error err;
    CHECK(tta_data_fashion_mnist(dir, &train, &unseen, &val, &err) == TTA_OK);
    CHECK(train.n == 50000 && unseen.n == 10000 && val.n == 10000);
    CHECK(train.c == 1 && train.h == 28 && train.w == 28 && train.classes == 10);
    CHECK(train.labels[0] == 9);
    CHECK(unseen.labels[9999] == 5); /* training label 59999 */
    CHECK(val.labels[0] == 9);
    CHECK_NEAR(pixel_sum(&train, 0), 76247, 1e-2);
    CHECK_NEAR(pixel_sum(&unseen, 0), 50221, 1e-2); /* training image 50000 */
    /* unseen follows train in the same file: disjoint */
    CHECK(unseen.images == train.images + (size_t)50000 * 784);
    tta_dataset shifted = tta_data_shifted(&unseen, 2, 0.05, 42);
    tta_dataset again = tta_data_shifted(&unseen, 2, 0.05, 42);
    CHECK(shifted.n == 10000 && shifted.labels[9999] == 5);
    int same = 1, changed = 0;
    for (size_t k = 0; k < 784 * 100; k++) {
        same &= shifted.images[k] == again.images[k];
        changed += shifted.images[k] != unseen.images[k];
        CHECK(shifted.images[k] >= 0 && shifted.images[k] <= 1);
    }
    CHECK(same);          /* reproducible from its seed */
    CHECK(changed > 1000); /* and really moved */
    tta_dataset_free(&shifted);
    tta_dataset_free(&again);
    tta_dataset_free(&unseen); /* a view: frees nothing */
    tta_dataset_free(&train);
    tta_dataset_free(&val);
}

/* The claims' misc.inputNormalization (../shared/claims: pixel / 255, then the training split's
 * mean 0.28550 and std 0.35278): normalised with them, Fashion-MNIST's training split has mean 0
 * and std 1; validation and unseen are normalised with the training split's figures; a shifted
 * copy of a normalised split is the normalised shifted copy of the raw one. */
TEST(fashion_mnist_normalized) {
    const double mean = 0.2854989469051361, std = 0.3527843952178955;
    tta_dataset train, unseen, val, raw_train, raw_unseen, raw_val;
    tta_error err;
    CHECK(tta_data_fashion_mnist(dir, &train, &unseen, &val, &err) == TTA_OK);
    CHECK(tta_data_fashion_mnist(dir, &raw_train, &raw_unseen, &raw_val, &err) == TTA_OK);
    tta_data_normalize(&train, mean, std);
    tta_data_normalize(&unseen, mean, std);
    tta_data_normalize(&val, mean, std);
    size_t count = train.n * 784;
    double s1 = 0, s2 = 0;
    for (size_t k = 0; k < count; k++) s1 += train.images[k], s2 += (double)train.images[k] * train.images[k];
    double m = s1 / count, sd = sqrt(s2 / count - m * m);
    CHECK(fabs(m) < 1e-4 && fabs(sd - 1) < 1e-4);
    /* unseen (rows after train's in one array) normalised once, not twice */
    CHECK_NEAR(unseen.images[400], (raw_unseen.images[400] - mean) / std, 1e-5);
    CHECK_NEAR(val.images[400], (raw_val.images[400] - mean) / std, 1e-5);
    CHECK(unseen.norm_std > 0 && fabs(unseen.norm_mean - mean) < 1e-7);
    tta_dataset a = tta_data_shifted(&unseen, 2, 0.05, 42), b = tta_data_shifted(&raw_unseen, 2, 0.05, 42);
    CHECK(a.norm_std == unseen.norm_std);
    double worst = 0;
    for (size_t k = 0; k < 784 * 1000; k++) worst = fmax(worst, fabs(a.images[k] - (b.images[k] - mean) / std));
    CHECK(worst < 1e-4);
    tta_dataset_free(&a);
    tta_dataset_free(&b);
    tta_dataset_free(&train);
    tta_dataset_free(&val);
    tta_dataset_free(&raw_train);
    tta_dataset_free(&raw_val);
}

TEST(shift_moves_pixels) {
    /* one 1x3x3 image with a single bright pixel at the centre; no noise */
    float px[9] = {0, 0, 0, 0, 1, 0, 0, 0, 0};
    int32_t lab[1] = {3};
    tta_dataset d = {.images = px, .labels = lab, .n = 1, .c = 1, .h = 3, .w = 3, .classes = 4};
    int moved = 0;
    for (uint64_t seed = 1; seed < 40; seed++) {
        tta_dataset s = tta_data_shifted(&d, 1, 0.0, seed);
        double total = 0;
        for (int k = 0; k < 9; k++) total += s.images[k];
        CHECK_NEAR(total, 1.0, 0); /* one pixel moved by at most one place stays inside */
        moved += s.images[4] == 0;
        tta_dataset_free(&s);
    }
    CHECK(moved > 10);
}

TEST(bad_files) {
    tta_dataset d;
    tta_error err;
    CHECK(tta_data_read_idx("/nonexistent/x.gz", "/nonexistent/y.gz", &d, &err) == TTA_ENOTFOUND);
    CHECK(err.code == TTA_ENOTFOUND && strstr(err.text, "/nonexistent/x.gz: no such file") != NULL);
    char path[64];
    snprintf(path, sizeof path, "/tmp/tta_test_idx_%d", (int)getpid());
    FILE *f = fopen(path, "wb");
    fputs("not an idx file at all", f);
    fclose(f);
    CHECK(tta_data_read_idx(path, path, &d, &err) == TTA_EINPUT);
    CHECK(strstr(err.text, path) == err.text && strstr(err.text, ": not an IDX image file") != NULL);
    unlink(path);
}

/* Writes n CIFAR records: record i has label labels[i] (CIFAR-100: coarse 19 - fine) and pixel p
 * = (i * 7 + p) % 256. */
static void write_cifar(const char *path, int n, const int *labels, int cifar100, size_t extra_bytes) {
    FILE *f = fopen(path, "wb");
    for (int i = 0; i < n; i++) {
        if (cifar100) fputc(19 - labels[i] % 20, f);
        fputc(labels[i], f);
        for (int p = 0; p < 3072; p++) fputc((i * 7 + p) % 256, f);
    }
    for (size_t k = 0; k < extra_bytes; k++) fputc(0, f);
    fclose(f);
}

TEST(cifar_binary) {
    char p10[64], p100[64];
    snprintf(p10, sizeof p10, "/tmp/tta_cifar10_%d.bin", (int)getpid());
    snprintf(p100, sizeof p100, "/tmp/tta_cifar100_%d.bin", (int)getpid());
    int labels[3] = {3, 9, 0}, labels100[2] = {57, 99};
    write_cifar(p10, 3, labels, 0, 0);
    write_cifar(p100, 2, labels100, 1, 0);
    tta_dataset d;
    tta_error err;
    const char *paths[2] = {p10, p10};
    CHECK(tta_data_read_cifar(paths, 2, 0, &d, &err) == TTA_OK);
    CHECK(d.n == 6 && d.c == 3 && d.h == 32 && d.w == 32 && d.classes == 10);
    CHECK(d.labels[0] == 3 && d.labels[1] == 9 && d.labels[2] == 0 && d.labels[4] == 9);
    /* record 1: red plane first, pixel p = (7 + p) % 256; green starts at p = 1024 */
    CHECK_NEAR(d.images[3072 + 0], 7 / 255.0, 1e-7);
    CHECK_NEAR(d.images[3072 + 1024], ((7 + 1024) % 256) / 255.0, 1e-7);
    CHECK_NEAR(d.images[2 * 3072 + 3071], ((14 + 3071) % 256) / 255.0, 1e-7);
    tta_dataset_free(&d);
    const char *one100[1] = {p100};
    CHECK(tta_data_read_cifar(one100, 1, 1, &d, &err) == TTA_OK);
    CHECK(d.n == 2 && d.classes == 100 && d.labels[0] == 57 && d.labels[1] == 99); /* the fine label */
    tta_dataset_free(&d);
    /* a cut record, and a label out of range, are named with the file */
    write_cifar(p10, 2, labels, 0, 100);
    CHECK(tta_data_read_cifar(paths, 1, 0, &d, &err) == TTA_EINPUT);
    CHECK(strstr(err.text, p10) && strstr(err.text, "whole number of 3073-byte"));
    int bad[2] = {4, 12};
    write_cifar(p10, 2, bad, 0, 0);
    CHECK(tta_data_read_cifar(paths, 1, 0, &d, &err) == TTA_EINPUT);
    CHECK(strstr(err.text, "record 2: label 12 is not below 10") != NULL);
    unlink(p10);
    CHECK(tta_data_read_cifar(paths, 1, 0, &d, &err) == TTA_ENOTFOUND); /* gone */
    CHECK(strstr(err.text, p10) == err.text);
    unlink(p100);
}

TEST(augment_crop_flip) {
    /* one 1x3x3 image 1..9; crop_pad 1 and flip: every output is the image shifted by (dy, dx) in
     * [-1, 1] with zero fill, maybe mirrored; the pixel set is checked against all 18 cases. */
    float px[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    int32_t lab[1] = {2};
    tta_dataset d = {.images = px, .labels = lab, .n = 1, .c = 1, .h = 3, .w = 3, .classes = 3};
    tta_augment a = {.crop_pad = 1, .flip = 1};
    size_t idx[1] = {0};
    int seen[18] = {0};
    for (uint64_t step = 0; step < 400; step++) {
        float x[9];
        int32_t y[1];
        tta_data_gather(x, y, &d, idx, 1, &a, 7, step);
        CHECK(y[0] == 2);
        int found = -1;
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++)
                for (int m = 0; m < 2; m++) {
                    int same = 1;
                    for (int r = 0; r < 3; r++)
                        for (int c = 0; c < 3; c++) {
                            int oc = m ? 2 - c : c, sy = r + dy, sx = oc + dx;
                            float v = sy >= 0 && sy < 3 && sx >= 0 && sx < 3 ? px[sy * 3 + sx] : 0;
                            same &= x[r * 3 + c] == v;
                        }
                    if (same) found = ((dy + 1) * 3 + dx + 1) * 2 + m;
                }
        CHECK(found >= 0);
        if (found >= 0) seen[found]++;
        float again[9];
        tta_data_gather(again, y, &d, idx, 1, &a, 7, step);
        CHECK(memcmp(x, again, sizeof x) == 0); /* a function of (seed, step, sample) */
    }
    int kinds = 0;
    for (int k = 0; k < 18; k++) kinds += seen[k] > 0;
    CHECK(kinds == 18); /* every offset and both flips occur */
    /* no augmentation: a plain copy */
    float x[9];
    int32_t y[1];
    tta_data_gather(x, y, &d, idx, 1, NULL, 7, 0);
    CHECK(memcmp(x, px, sizeof x) == 0);
}

TEST(loader_thread_matches_inline) {
    tta_dataset d = tta_data_generated(100, 3, 8, 8, 5, 1.0, 11);
    tta_dataset again = tta_data_generated(100, 3, 8, 8, 5, 1.0, 11);
    CHECK(memcmp(d.images, again.images, 100 * 192 * sizeof(float)) == 0);
    CHECK(memcmp(d.labels, again.labels, 100 * sizeof(int32_t)) == 0);
    size_t order[100];
    for (size_t i = 0; i < 100; i++) order[i] = (i * 37) % 100;
    tta_augment a = {.crop_pad = 2, .flip = 1};
    /* 6 steps of a global batch 16, the slice [4, 12) of each (a data-parallel rank's share) */
    tta_loader *t = tta_loader_start(&d, order, 6, 16, 4, 8, &a, 5, 30, 1);
    tta_loader *u = tta_loader_start(&d, order, 6, 16, 4, 8, &a, 5, 30, 0);
    const float *xt, *xu;
    const int32_t *yt, *yu;
    double w;
    int steps = 0;
    while (tta_loader_next(t, &xt, &yt, &w)) {
        CHECK(tta_loader_next(u, &xu, &yu, &w) == 1);
        CHECK(memcmp(xt, xu, 8 * 192 * sizeof(float)) == 0);
        CHECK(memcmp(yt, yu, 8 * sizeof(int32_t)) == 0);
        float direct[8 * 192];
        int32_t ly[8];
        tta_data_gather(direct, ly, &d, order + steps * 16 + 4, 8, &a, 5, 30 + (uint64_t)steps);
        CHECK(memcmp(direct, xt, sizeof direct) == 0);
        steps++;
    }
    CHECK(steps == 6);
    CHECK(tta_loader_next(u, &xu, &yu, &w) == 0);
    tta_loader_free(t);
    tta_loader_free(u);
    /* stopped early: the thread ends */
    t = tta_loader_start(&d, order, 6, 16, 0, 16, &a, 5, 0, 1);
    CHECK(tta_loader_next(t, &xt, &yt, &w) == 1);
    tta_loader_free(t);
    tta_dataset_free(&d);
    tta_dataset_free(&again);
}


/* Writes bytes to path: plain, gzip in one member, or gzip in two members (the second holding
 * the last split bytes), or gzip cut short. */
enum { PLAIN, GZIP, GZIP_TWO_MEMBERS, GZIP_CUT };
static void write_idx(const char *path, const unsigned char *bytes, size_t n, int how) {
    if (how == PLAIN) {
        FILE *f = fopen(path, "wb");
        fwrite(bytes, 1, n, f);
        fclose(f);
        return;
    }
    size_t split = how == GZIP_TWO_MEMBERS ? n / 2 : n;
    gzFile g = gzopen(path, "wb");
    gzwrite(g, bytes, (unsigned)split);
    gzclose(g);
    if (how == GZIP_TWO_MEMBERS) {
        g = gzopen(path, "ab");
        gzwrite(g, bytes + split, (unsigned)(n - split));
        gzclose(g);
    }
    if (how == GZIP_CUT) {
        FILE *f = fopen(path, "rb");
        unsigned char whole[4096];
        size_t k = fread(whole, 1, sizeof whole, f);
        fclose(f);
        f = fopen(path, "wb");
        fwrite(whole, 1, k - 12, f); /* without the trailer and the last bytes of data */
        fclose(f);
    }
}

TEST(idx_plain_and_gzip) {
    /* 3 images of 2x2 and their labels */
    unsigned char img[16 + 12] = {0, 0, 8, 3, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 2,
                                  0, 255, 51, 102, 1, 2, 3, 4, 255, 255, 0, 0};
    unsigned char lab[8 + 3] = {0, 0, 8, 1, 0, 0, 0, 3, 2, 0, 1};
    char ip[64], lp[64];
    tta_error err;
    snprintf(ip, sizeof ip, "/tmp/tta_test_idx_i_%d", (int)getpid());
    snprintf(lp, sizeof lp, "/tmp/tta_test_idx_l_%d", (int)getpid());
    for (int how = PLAIN; how <= GZIP_TWO_MEMBERS; how++) {
        write_idx(ip, img, sizeof img, how);
        write_idx(lp, lab, sizeof lab, how);
        tta_dataset d;
        CHECK(tta_data_read_idx(ip, lp, &d, &err) == TTA_OK);
        CHECK(d.n == 3 && d.h == 2 && d.w == 2 && d.classes == 3);
        CHECK(d.n == 3 && d.images[1] == 1.0f && d.images[2] == 0.2f && d.labels[0] == 2 && d.labels[2] == 1);
        tta_dataset_free(&d);
    }
    write_idx(ip, img, sizeof img, GZIP_CUT);
    tta_dataset d;
    CHECK(tta_data_read_idx(ip, lp, &d, &err) == TTA_EINPUT);
    CHECK(strstr(err.text, ip) != NULL && strstr(err.text, "cannot inflate") != NULL);
    unlink(ip);
    unlink(lp);
}

int main(void) {
    FILE *probe = fopen("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz", "rb");
    if (probe) {
        fclose(probe);
        RUN(fashion_mnist_splits);
        RUN(fashion_mnist_normalized);
    } else {
        printf("fashion_mnist_splits: skipped (Debian's dataset-fashion-mnist is not installed)\n");
    }
    RUN(shift_moves_pixels);
    RUN(bad_files);
    RUN(idx_plain_and_gzip);
    RUN(cifar_binary);
    RUN(augment_crop_flip);
    RUN(loader_thread_matches_inline);
    return test_summary();
}
