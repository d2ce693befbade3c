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

#include "common/error.h"

typedef struct {
    float *images;   /* n * c * h * w */
    int32_t *labels; /* n */
    size_t n;
    int c, h, w;
    int classes;
    int owner;       /* 1: frees the arrays */
    float norm_mean, norm_std; /* pixels are (raw - norm_mean) / norm_std, raw in [0, 1]; norm_std 0:
                                  the raw values themselves (tta_data_normalize) */
} tta_dataset;

/* Standardises d's images in place: each value v (a pixel / 255, or a channel value in [0, 1])
 * becomes (v - mean) / std, and d remembers mean and std (a copy made from it, such as
 * tta_data_shifted's, works in the same scale). std must be > 0; d must not be normalised already.
 * A view shares its parent's arrays: normalise the parent, or disjoint views once each. */
void tta_data_normalize(tta_dataset *d, double mean, double std);

/* Reads an IDX image file and its label file (gzip or plain). Returns TTA_OK, or a code with
 * err's text "<path>: reason": the file loader's (common/file.h: TTA_ENOTFOUND for a missing
 * file, TTA_EIO when it cannot be read), TTA_EINPUT for a broken gzip stream, a wrong magic
 * number, labels that do not match the images or a size that does not match the header (a file
 * cut short), TTA_EINTERNAL when zlib cannot start. On failure *out holds nothing to free. */
int tta_data_read_idx(const char *images_path, const char *labels_path, tta_dataset *out, tta_error *err);

/* Fashion-MNIST from a folder holding train-images-idx3-ubyte(.gz), train-labels-idx1-ubyte(.gz),
 * t10k-images-idx3-ubyte(.gz), t10k-labels-idx1-ubyte(.gz): train (first 50,000), unseen (last
 * 10,000 of the training file) and validation (the test file). Errors as tta_data_read_idx's,
 * and TTA_EINPUT for a training file of 10,000 images or fewer; on failure nothing to free. */
int tta_data_fashion_mnist(const char *dir, tta_dataset *train, tta_dataset *unseen, tta_dataset *validation,
                           tta_error *err);

/* A view of rows [first, first + n) of d (shares d's memory). */
tta_dataset tta_data_view(const tta_dataset *d, size_t first, size_t n);

/* A copy of d with each image moved by a random offset in [-max_shift, max_shift] per axis (zero
 * fill) plus Gaussian noise of standard deviation sigma, clamped to [0, 1], from seed. */
tta_dataset tta_data_shifted(const tta_dataset *d, int max_shift, double sigma, uint64_t seed);

void tta_dataset_free(tta_dataset *d);

/* CIFAR-10/100 binary files (the "binary version" from the dataset's site, user supplied):
 * records of a label byte (CIFAR-100: coarse then fine; tta uses the fine label) and 3072 bytes
 * of 32x32 pixels, red plane then green then blue. Reads and concatenates npaths files.
 * Returns TTA_OK, or a code with err's text "<path>: reason": TTA_ENOTFOUND (no such file),
 * TTA_EIO (it cannot be opened or read), TTA_EINPUT (a size that is not a whole number of
 * records, a label out of range). On failure *out holds nothing to free. */
int tta_data_read_cifar(const char *const *paths, int npaths, int cifar100, tta_dataset *out, tta_error *err);

/* CIFAR-10 from a folder holding data_batch_1..5.bin and test_batch.bin (or its
 * cifar-10-batches-bin/ subfolder), CIFAR-100 from train.bin and test.bin (or cifar-100-binary/):
 * train = the first 40,000 training images, unseen = the last 10,000, validation = the test file.
 * Errors as tta_data_read_cifar's, and TTA_EINPUT for 10,000 training images or fewer. */
int tta_data_cifar(const char *dir, int cifar100, tta_dataset *train, tta_dataset *unseen, tta_dataset *validation,
                   tta_error *err);

/* Generated data for tests: n images of c x h x w in [0, 1], each a class-specific pattern (a
 * bright bar whose position depends on the label) plus uniform noise of amplitude noise, labels
 * uniform over classes; deterministic from seed. Learnable, so training curves rise. */
tta_dataset tta_data_generated(size_t n, int c, int h, int w, int classes, double noise, uint64_t seed);

/* Augmentation done by the trainer inside the timed region. */
typedef struct {
    int crop_pad; /* random crop of h x w from the image zero-padded by crop_pad on each side; 0: none */
    int flip;     /* 1: horizontal flip with probability 1/2 */
} tta_augment;

/* Gathers the n samples idx[0..n) of d into x (NCHW) and y, augmenting each. The random crop
 * offset and flip of a sample are a hash of (seed, step, its index in d), so a batch is the same
 * whichever thread or data-parallel rank builds it and whatever came before. */
void tta_data_gather(float *x, int32_t *y, const tta_dataset *d, const size_t *idx, size_t n, const tta_augment *a,
                     uint64_t seed, uint64_t step);

/* A data loader: one thread that builds the next batches of an epoch (gather + augmentation)
 * while the caller trains on the current one. Two slots; waits are passive (condition variables).
 * The loader reads d and order, which must stay valid and unchanged until tta_loader_free. */
typedef struct tta_loader tta_loader;

/* Starts a loader over the batches order[s*bs + first .. s*bs + first + n) for steps s in
 * [0, steps); a batch's augmentation uses step = step0 + s. threaded = 0 builds each batch in
 * tta_loader_next instead (same batches). */
tta_loader *tta_loader_start(const tta_dataset *d, const size_t *order, size_t steps, size_t bs, size_t first,
                             size_t n, const tta_augment *a, uint64_t seed, uint64_t step0, int threaded);
/* The next batch (x: n images NCHW, y: n labels), valid until the next call. *wait_s gets the
 * time spent waiting for it (the data-loading time the training loop sees). NULL after the last. */
int tta_loader_next(tta_loader *l, const float **x, const int32_t **y, double *wait_s);
/* Stops the thread (also early) and frees the loader. */
void tta_loader_free(tta_loader *l);

#endif
