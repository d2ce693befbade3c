/* test_data.c: Fashion-MNIST from Debian's dataset-fashion-mnist (skips where it is absent): counts,
 * labels and pixel sums computed independently with Python's gzip and struct:
 *   60000 training images; label 0 = 9, label 59999 = 5; pixel sum of image 0 = 76247, of image
 *   50000 = 50221; first test label = 9.
 * The splits (train 50,000 / unseen 10,000 / validation 10,000), the shifted copy, and bad files. */
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "replay/data.h"
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
    char err[256];
    CHECK(tta_data_fashion_mnist(dir, &train, &unseen, &val, err, sizeof err) == 0);
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
    char err[256];
    CHECK(tta_data_read_idx("/nonexistent/x.gz", "/nonexistent/y.gz", &d, err, sizeof err) == -1);
    CHECK(strstr(err, "/nonexistent/x.gz") != NULL);
    char path[64];
    snprintf(path, sizeof path, "/tmp/tta_test_idx_%d", (int)getpid());
    FILE *f = fopen(path, "wb");
    fputs("not an idx file at all", f);
    fclose(f);
    CHECK(tta_data_read_idx(path, path, &d, err, sizeof err) == -1);
    CHECK(strstr(err, "not an IDX image file") != NULL);
    unlink(path);
}

int main(void) {
    FILE *probe = fopen("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz", "rb");
    if (probe) {
        fclose(probe);
        RUN(fashion_mnist_splits);
    } else {
        printf("fashion_mnist_splits: skipped (Debian's dataset-fashion-mnist is not installed)\n");
    }
    RUN(shift_moves_pixels);
    RUN(bad_files);
    return test_summary();
}
