/* data.h: datasets for the replay trainer (internal to replay/): images as float32 NCHW scaled to
 * [0, 1], labels as int32.
 *
 * Fashion-MNIST (and MNIST) come as IDX files, gzip-compressed or not (Debian's
 * dataset-fashion-mnist puts them in /usr/share/datasets/fashion-mnist/). The splits tta uses:
 * train = the first 50,000 training images; unseen = the last 10,000 training images (never
 * trained on, never used to decide the target); validation = the official 10,000 test images;
 * shifted = the unseen images moved by up to ±max_shift pixels with Gaussian noise, from a seed.
 *
 * Ownership: a tta_dataset owns its two arrays (tta_dataset_free). Views share their parent's.
 */
#ifndef TTA_REPLAY_DATA_H
#define TTA_REPLAY_DATA_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    float *images;   /* n * c * h * w */
    int32_t *labels; /* n */
    size_t n;
    int c, h, w;
    int classes;
    int owner;       /* 1: frees the arrays */
} tta_dataset;

/* Reads an IDX image file and its label file (gzip or plain). Returns 0, or -1 with
 * "<path>: reason" in err. */
int tta_data_read_idx(const char *images_path, const char *labels_path, tta_dataset *out, char *err, size_t errlen);

/* Fashion-MNIST from a folder holding train-images-idx3-ubyte(.gz), train-labels-idx1-ubyte(.gz),
 * t10k-images-idx3-ubyte(.gz), t10k-labels-idx1-ubyte(.gz): train (first 50,000), unseen (last
 * 10,000 of the training file) and validation (the test file). */
int tta_data_fashion_mnist(const char *dir, tta_dataset *train, tta_dataset *unseen, tta_dataset *validation,
                           char *err, size_t errlen);

/* A view of rows [first, first + n) of d (shares d's memory). */
tta_dataset tta_data_view(const tta_dataset *d, size_t first, size_t n);

/* A copy of d with each image moved by a random offset in [-max_shift, max_shift] per axis (zero
 * fill) plus Gaussian noise of standard deviation sigma, clamped to [0, 1], from seed. */
tta_dataset tta_data_shifted(const tta_dataset *d, int max_shift, double sigma, uint64_t seed);

void tta_dataset_free(tta_dataset *d);

#endif
