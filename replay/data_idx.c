/* data_idx.c: IDX files (MNIST family), the Fashion-MNIST splits, the shifted copy, normalisation. */
#include "replay/data.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "common/buf.h"
#include "common/check.h"
#include "common/file.h"

/* The largest IDX file read, compressed or not, and the largest it may inflate to (Fashion-MNIST's
 * training images are 26 MiB compressed, 45 MiB inflated). */
#define IDX_FILE_LIMIT (2 * TTA_FILE_GIB)
#define IDX_INFLATED_LIMIT (4 * TTA_FILE_GIB)

/* Inflates the gzip stream(s) in data[0..len) (members one after another, as gzip writes them
 * when appended) into a malloc'd array *out: TTA_OK, or TTA_EINPUT with err on a broken stream. */
static int gunzip(const char *path, const unsigned char *data, size_t len, unsigned char **out, size_t *out_len,
                  tta_error *err) {
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
        return tta_fail(err, TTA_EINTERNAL, "%s: cannot inflate: %s", path, z.msg ? z.msg : "zlib failed to start");
    size_t cap = len * 2 + 65536, n = 0, used = 0;
    unsigned char *p = mallocCheck(cap);
    for (;;) {
        if (n == cap) {
            if (cap >= IDX_INFLATED_LIMIT) {
                tta_fail(err, TTA_EINPUT, "%s: inflates to more than %zu bytes, the limit for an IDX file", path,
                         (size_t)IDX_INFLATED_LIMIT);
                goto fail;
            }
            cap = cap * 2 > IDX_INFLATED_LIMIT ? IDX_INFLATED_LIMIT : cap * 2;
            p = reallocCheck(p, cap);
        }
        size_t in = len - used > UINT_MAX ? UINT_MAX : len - used, room = cap - n > UINT_MAX ? UINT_MAX : cap - n;
        z.next_in = (unsigned char *)data + used;
        z.avail_in = (unsigned)in;
        z.next_out = p + n;
        z.avail_out = (unsigned)room;
        int zr = inflate(&z, Z_NO_FLUSH);
        used += in - z.avail_in;
        n += room - z.avail_out;
        if (zr == Z_STREAM_END) {
            /* another member may follow (trailing zero padding is not one) */
            while (used < len && data[used] == 0) used++;
            if (used == len) break;
            inflateReset(&z);
        } else if ((zr == Z_OK || zr == Z_BUF_ERROR) && n == cap) {
            continue; /* more room needed */
        } else if ((zr == Z_OK || zr == Z_BUF_ERROR) && used == len) {
            tta_fail(err, TTA_EINPUT, "%s: cannot inflate: the gzip stream ends early", path);
            goto fail;
        } else if (zr != Z_OK) {
            tta_fail(err, TTA_EINPUT, "%s: cannot inflate: %s", path, z.msg ? z.msg : "broken gzip stream");
            goto fail;
        }
    }
    inflateEnd(&z);
    *out = p;
    *out_len = n;
    return TTA_OK;
fail:
    inflateEnd(&z);
    free(p);
    return TTA_EINPUT;
}

/* Reads the whole of a (possibly gzip-compressed) file into a malloc'd *out: TTA_OK, or the file
 * loader's or gunzip's code with err. */
static int read_all(const char *path, unsigned char **out, size_t *len, tta_error *err) {
    *out = NULL;
    *len = 0;
    tta_file f;
    int rc = tta_file_load(path, IDX_FILE_LIMIT, "an IDX file", TTA_FILE_READ, &f, err);
    if (rc != TTA_OK) return rc;
    const unsigned char *d = (const unsigned char *)f.data;
    if (f.len >= 2 && d[0] == 0x1f && d[1] == 0x8b) {
        rc = gunzip(path, d, f.len, out, len, err);
        tta_file_free(&f);
        return rc;
    }
    *len = f.len;
    *out = (unsigned char *)f.data; /* read, not mapped: malloc'd, the caller frees it */
    return TTA_OK;
}

static uint32_t be32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int tta_data_read_idx(const char *images_path, const char *labels_path, tta_dataset *out, tta_error *err) {
    memset(out, 0, sizeof *out);
    size_t il, ll;
    unsigned char *img, *lab;
    int rc = read_all(images_path, &img, &il, err);
    if (rc != TTA_OK) return rc;
    rc = read_all(labels_path, &lab, &ll, err);
    if (rc != TTA_OK) {
        free(img);
        return rc;
    }
    rc = TTA_EINPUT;
    /* images: magic 0x00000803, count, rows, cols; labels: magic 0x00000801, count */
    if (il < 16 || be32(img) != 0x803) {
        tta_fail(err, rc, "%s: not an IDX image file (magic 0x803)", images_path);
        goto out;
    }
    if (ll < 8 || be32(lab) != 0x801) {
        tta_fail(err, rc, "%s: not an IDX label file (magic 0x801)", labels_path);
        goto out;
    }
    uint32_t n = be32(img + 4), h = be32(img + 8), w = be32(img + 12);
    if (be32(lab + 4) != n) {
        tta_fail(err, rc, "%s: %u labels for %u images", labels_path, be32(lab + 4), n);
        goto out;
    }
    if (h == 0 || w == 0 || h > 4096 || w > 4096 || il - 16 != (size_t)n * h * w || ll - 8 != n) {
        tta_fail(err, rc, "%s: size does not match %u images of %ux%u", images_path, n, h, w);
        goto out;
    }
    out->n = n;
    out->c = 1;
    out->h = (int)h;
    out->w = (int)w;
    out->owner = 1;
    /* on huge pages: every batch gathers from all over it (common/check.h) */
    out->images = mallocLarge((size_t)n * h * w * sizeof *out->images);
    out->labels = mallocCheck((size_t)n * sizeof *out->labels);
    int max_label = 0;
    /* in parallel: the first touch of each (huge) page faults it in, which is most of the time here */
    const size_t total = (size_t)n * h * w;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < total; i++) out->images[i] = img[16 + i] / 255.0f;
    for (size_t i = 0; i < n; i++) {
        out->labels[i] = lab[8 + i];
        if (lab[8 + i] > max_label) max_label = lab[8 + i];
    }
    out->classes = max_label + 1;
    rc = TTA_OK;
out:
    free(img);
    free(lab);
    return rc;
}

/* dir/name, or dir/name.gz when only that exists (a plain file that is there but cannot be read
 * is named as itself, not as a missing .gz). */
static char *idx_path(const char *dir, const char *name) {
    buf b = {0};
    buf_printf(&b, "%s/%s", dir, name);
    struct stat st;
    if (stat(buf_str(&b), &st) != 0) buf_puts(&b, ".gz");
    return buf_take(&b);
}

int tta_data_fashion_mnist(const char *dir, tta_dataset *train, tta_dataset *unseen, tta_dataset *validation,
                           tta_error *err) {
    char *ti = idx_path(dir, "train-images-idx3-ubyte"), *tl = idx_path(dir, "train-labels-idx1-ubyte");
    char *vi = idx_path(dir, "t10k-images-idx3-ubyte"), *vl = idx_path(dir, "t10k-labels-idx1-ubyte");
    tta_dataset all;
    int rc = tta_data_read_idx(ti, tl, &all, err);
    if (rc == TTA_OK) rc = tta_data_read_idx(vi, vl, validation, err);
    if (rc == TTA_OK && all.n <= 10000) {
        rc = tta_fail(err, TTA_EINPUT, "%s: %zu training images, need more than 10,000", ti, all.n);
        tta_dataset_free(validation);
    }
    if (rc == TTA_OK) {
        /* train and unseen share the training file's arrays: train owns them */
        *train = tta_data_view(&all, 0, all.n - 10000);
        train->owner = 1;
        *unseen = tta_data_view(&all, all.n - 10000, 10000);
    } else if (all.owner) {
        tta_dataset_free(&all);
    }
    free(ti);
    free(tl);
    free(vi);
    free(vl);
    return rc;
}

tta_dataset tta_data_view(const tta_dataset *d, size_t first, size_t n) {
    tta_dataset v = *d;
    if (first > d->n) first = d->n;
    if (n > d->n - first) n = d->n - first;
    v.images = d->images + first * (size_t)d->c * d->h * d->w;
    v.labels = d->labels + first;
    v.n = n;
    v.owner = 0;
    return v;
}

/* splitmix64: a small, well-mixed generator for reproducible shifts and noise. */
static uint64_t next_u64(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static double uniform01(uint64_t *s) { return (next_u64(s) >> 11) * (1.0 / 9007199254740992.0); }

tta_dataset tta_data_shifted(const tta_dataset *d, int max_shift, double sigma, uint64_t seed) {
    tta_dataset out = *d;
    size_t plane = (size_t)d->h * d->w, img = plane * d->c;
    out.images = mallocLarge((d->n ? d->n : 1) * img * sizeof *out.images);
    out.labels = mallocCheck((d->n ? d->n : 1) * sizeof *out.labels);
    memcpy(out.labels, d->labels, d->n * sizeof *out.labels);
    out.owner = 1;
    /* shift, noise and clamp act on the raw values in [0, 1]; a normalised set is read back to
     * them and the result normalised again, so the copy is in d's scale */
    int norm = d->norm_std > 0;
    float mean = norm ? d->norm_mean : 0, std = norm ? d->norm_std : 1;
    uint64_t s = seed;
    for (size_t i = 0; i < d->n; i++) {
        int span = 2 * max_shift + 1;
        int dy = (int)(next_u64(&s) % (uint64_t)span) - max_shift;
        int dx = (int)(next_u64(&s) % (uint64_t)span) - max_shift;
        for (int c = 0; c < d->c; c++)
            for (int y = 0; y < d->h; y++)
                for (int x = 0; x < d->w; x++) {
                    int sy = y - dy, sx = x - dx;
                    float v = (sy >= 0 && sy < d->h && sx >= 0 && sx < d->w)
                                  ? d->images[i * img + c * plane + (size_t)sy * d->w + sx] * std + mean
                                  : 0.0f;
                    if (sigma > 0) {
                        /* Box–Muller */
                        double u1 = uniform01(&s), u2 = uniform01(&s);
                        v += (float)(sigma * sqrt(-2.0 * log(u1 > 0 ? u1 : 1e-300)) * cos(2 * M_PI * u2));
                    }
                    v = v < 0 ? 0 : v > 1 ? 1 : v;
                    out.images[i * img + c * plane + (size_t)y * d->w + x] = norm ? (v - mean) / std : v;
                }
    }
    return out;
}

void tta_data_normalize(tta_dataset *d, double mean, double std) {
    assert(d && std > 0 && d->norm_std == 0);
    size_t count = d->n * (size_t)d->c * d->h * d->w;
    float m = (float)mean, inv = (float)(1.0 / std);
    for (size_t i = 0; i < count; i++) d->images[i] = (d->images[i] - m) * inv;
    d->norm_mean = m;
    d->norm_std = (float)std;
}

void tta_dataset_free(tta_dataset *d) {
    if (d->owner) {
        free(d->images);
        free(d->labels);
    }
    memset(d, 0, sizeof *d);
}
