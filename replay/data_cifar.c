/* data_cifar.c: CIFAR-10/100 binary files and the CIFAR splits; generated data for tests. */
#include "replay/data.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/buf.h"
#include "common/check.h"

enum { CIFAR_PIXELS = 3 * 32 * 32 };

/* A file that cannot be opened: TTA_ENOTFOUND when it is not there, else TTA_EIO. */
static int cannot_open(const char *path, tta_error *err) {
    return tta_fail(err, errno == ENOENT ? TTA_ENOTFOUND : TTA_EIO, "%s: cannot open: %s", path, strerror(errno));
}

int tta_data_read_cifar(const char *const *paths, int npaths, int cifar100, tta_dataset *out, tta_error *err) {
    memset(out, 0, sizeof *out);
    size_t rec = (size_t)(cifar100 ? 2 : 1) + CIFAR_PIXELS, total = 0;
    int classes = cifar100 ? 100 : 10;
    for (int i = 0; i < npaths; i++) {
        struct stat st;
        if (stat(paths[i], &st) != 0) return cannot_open(paths[i], err);
        long long sz = (long long)st.st_size;
        if (sz == 0 || (size_t)sz % rec != 0)
            return tta_fail(err, TTA_EINPUT, "%s: %lld bytes is not a whole number of %zu-byte CIFAR-%d records",
                            paths[i], sz, rec, classes);
        total += (size_t)sz / rec;
    }
    out->images = mallocLarge((total ? total : 1) * CIFAR_PIXELS * sizeof *out->images);
    out->labels = mallocCheck((total ? total : 1) * sizeof *out->labels);
    out->c = 3;
    out->h = out->w = 32;
    out->classes = classes;
    out->owner = 1;
    unsigned char *r = mallocCheck(rec);
    size_t k = 0;
    int rc;
    for (int i = 0; i < npaths; i++) {
        FILE *f = fopen(paths[i], "rb");
        if (!f) {
            rc = cannot_open(paths[i], err);
            goto fail;
        }
        size_t in_file = 0;
        while (fread(r, 1, rec, f) == rec) {
            int label = r[cifar100 ? 1 : 0];
            if (label >= classes) {
                rc = tta_fail(err, TTA_EINPUT, "%s: record %zu: label %d is not below %d", paths[i], in_file + 1,
                              label, classes);
                fclose(f);
                goto fail;
            }
            if (k == total) break; /* the file grew while we read it */
            out->labels[k] = label;
            const unsigned char *px = r + rec - CIFAR_PIXELS;
            for (size_t p = 0; p < CIFAR_PIXELS; p++) out->images[k * CIFAR_PIXELS + p] = px[p] / 255.0f;
            k++;
            in_file++;
        }
        int bad = ferror(f);
        fclose(f);
        if (bad) {
            rc = tta_fail(err, TTA_EIO, "%s: read error", paths[i]);
            goto fail;
        }
    }
    out->n = k;
    free(r);
    return TTA_OK;
fail:
    free(r);
    tta_dataset_free(out);
    return rc;
}

/* dir/name when it exists, else dir/sub/name (the folder layout of the dataset's archive). */
static char *cifar_path(const char *dir, const char *sub, const char *name) {
    buf b = {0};
    buf_printf(&b, "%s/%s", dir, name);
    struct stat st;
    if (stat(buf_str(&b), &st) == 0) return buf_take(&b);
    buf_free(&b);
    buf_printf(&b, "%s/%s/%s", dir, sub, name);
    return buf_take(&b);
}

int tta_data_cifar(const char *dir, int cifar100, tta_dataset *train, tta_dataset *unseen, tta_dataset *validation,
                   tta_error *err) {
    const char *sub = cifar100 ? "cifar-100-binary" : "cifar-10-batches-bin";
    char *tp[5] = {0}, *vp;
    int nt = 0;
    if (cifar100) {
        tp[nt++] = cifar_path(dir, sub, "train.bin");
        vp = cifar_path(dir, sub, "test.bin");
    } else {
        for (int i = 1; i <= 5; i++) {
            char name[32];
            snprintf(name, sizeof name, "data_batch_%d.bin", i);
            tp[nt++] = cifar_path(dir, sub, name);
        }
        vp = cifar_path(dir, sub, "test_batch.bin");
    }
    tta_dataset all;
    int rc = tta_data_read_cifar((const char *const *)tp, nt, cifar100, &all, err);
    if (rc == TTA_OK) rc = tta_data_read_cifar((const char *const *)&vp, 1, cifar100, validation, err);
    if (rc == TTA_OK && all.n <= 10000) {
        rc = tta_fail(err, TTA_EINPUT, "%s: %zu training images, need more than 10,000", tp[0], all.n);
        tta_dataset_free(validation);
    }
    if (rc == TTA_OK) {
        *train = tta_data_view(&all, 0, all.n - 10000);
        train->owner = 1; /* train owns the arrays that unseen shares */
        *unseen = tta_data_view(&all, all.n - 10000, 10000);
    } else if (all.owner) {
        tta_dataset_free(&all);
    }
    for (int i = 0; i < nt; i++) free(tp[i]);
    free(vp);
    return rc;
}

/* splitmix64 */
static uint64_t next_u64(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

tta_dataset tta_data_generated(size_t n, int c, int h, int w, int classes, double noise, uint64_t seed) {
    tta_dataset d = {.n = n, .c = c, .h = h, .w = w, .classes = classes, .owner = 1};
    size_t img = (size_t)c * h * w;
    d.images = mallocLarge((n ? n : 1) * img * sizeof *d.images);
    d.labels = mallocCheck((n ? n : 1) * sizeof *d.labels);
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++) {
        int label = (int)(next_u64(&s) % (uint64_t)classes);
        d.labels[i] = label;
        /* class k lights row band k of h (horizontal bar), channel k % c a little brighter */
        int band = (int)((long)label * h / classes), bh = h / classes > 0 ? h / classes : 1;
        for (int ch = 0; ch < c; ch++)
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) {
                    double u = (next_u64(&s) >> 11) * (1.0 / 9007199254740992.0);
                    double v = noise * u;
                    if (y >= band && y < band + bh) v += ch == label % c ? 0.1 : 0.07;
                    d.images[i * img + ((size_t)ch * h + y) * w + x] = (float)(v > 1 ? 1 : v);
                }
    }
    return d;
}
