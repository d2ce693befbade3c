/* loader.c: batch gathering with augmentation, and the loader thread that overlaps it with
 * training (see data.h). */
#include "replay/data.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/check.h"
#include "replay/engine.h" /* tta_mix64 */

void tta_data_gather(float *x, int32_t *y, const tta_dataset *d, const size_t *idx, size_t n, const tta_augment *a,
                     uint64_t seed, uint64_t step) {
    size_t plane = (size_t)d->h * d->w, img = plane * d->c;
    int pad = a ? a->crop_pad : 0, flip = a ? a->flip : 0;
    for (size_t k = 0; k < n; k++) {
        const float *src = d->images + idx[k] * img;
        float *dst = x + k * img;
        y[k] = d->labels[idx[k]];
        if (pad == 0 && !flip) {
            memcpy(dst, src, img * sizeof *dst);
            continue;
        }
        /* One hash per (seed, step, sample id): crop offsets (dy, dx) in [-pad, pad] and the flip bit;
         * by sample id, so that a data-parallel rank's shard draws what one process would. */
        uint64_t h = tta_mix64(tta_mix64(seed * 0x9e3779b97f4a7c15ULL + step) ^ (idx[k] * 0xd6e8feb86659fd93ULL + 1));
        int span = 2 * pad + 1;
        int dy = pad ? (int)(h % (uint64_t)span) - pad : 0;
        int dx = pad ? (int)((h >> 16) % (uint64_t)span) - pad : 0;
        int mirror = flip && ((h >> 40) & 1);
        for (int c = 0; c < d->c; c++) {
            const float *sp = src + c * plane;
            float *dp = dst + c * plane;
            for (int yy = 0; yy < d->h; yy++) {
                int sy = yy + dy;
                float *row = dp + (size_t)yy * d->w;
                if (sy < 0 || sy >= d->h) {
                    memset(row, 0, (size_t)d->w * sizeof *row);
                    continue;
                }
                const float *srow = sp + (size_t)sy * d->w;
                for (int xx = 0; xx < d->w; xx++) {
                    int ox = mirror ? d->w - 1 - xx : xx; /* flip after the crop, as torchvision */
                    int sx = ox + dx;
                    row[xx] = sx >= 0 && sx < d->w ? srow[sx] : 0.0f;
                }
            }
        }
    }
}

struct tta_loader {
    const tta_dataset *d;
    const size_t *order;
    size_t steps, bs, first, n;
    tta_augment aug;
    uint64_t seed, step0;
    int threaded;
    float *x[2];
    int32_t *y[2];
    size_t ready[2]; /* the step (+1) whose batch a slot holds; 0 = empty */
    size_t next_step;  /* the next step the consumer takes */
    int held;          /* the slot the consumer holds (-1: none) */
    int stop;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static void build(tta_loader *l, int slot, size_t s) {
    tta_data_gather(l->x[slot], l->y[slot], l->d, l->order + s * l->bs + l->first, l->n, &l->aug, l->seed,
                    l->step0 + s);
}

/* The producer: step s goes to slot s % 2 once the consumer has released it. */
static void *produce(void *arg) {
    tta_loader *l = arg;
    for (size_t s = 0; s < l->steps; s++) {
        int slot = (int)(s % 2);
        pthread_mutex_lock(&l->mu);
        while (!l->stop && (l->ready[slot] != 0 || l->held == slot)) pthread_cond_wait(&l->cv, &l->mu);
        int stop = l->stop;
        pthread_mutex_unlock(&l->mu);
        if (stop) break;
        build(l, slot, s);
        pthread_mutex_lock(&l->mu);
        l->ready[slot] = s + 1;
        pthread_cond_broadcast(&l->cv);
        pthread_mutex_unlock(&l->mu);
    }
    return NULL;
}

tta_loader *tta_loader_start(const tta_dataset *d, const size_t *order, size_t steps, size_t bs, size_t first,
                             size_t n, const tta_augment *a, uint64_t seed, uint64_t step0, int threaded) {
    assert(first + n <= bs);
    tta_loader *l = callocCheck(1, sizeof *l);
    *l = (tta_loader){.d = d, .order = order, .steps = steps, .bs = bs, .first = first, .n = n, .seed = seed,
                      .step0 = step0, .threaded = threaded, .held = -1};
    if (a) l->aug = *a;
    size_t img = (size_t)d->c * d->h * d->w;
    for (int i = 0; i < 2; i++) {
        l->x[i] = mallocCheck((n ? n : 1) * img * sizeof(float));
        l->y[i] = mallocCheck((n ? n : 1) * sizeof(int32_t));
    }
    pthread_mutex_init(&l->mu, NULL);
    pthread_cond_init(&l->cv, NULL);
    if (l->threaded && pthread_create(&l->thread, NULL, produce, l) != 0) l->threaded = 0;
    return l;
}

int tta_loader_next(tta_loader *l, const float **x, const int32_t **y, double *wait_s) {
    double t0 = now_s();
    if (l->next_step >= l->steps) {
        if (wait_s) *wait_s = 0;
        return 0;
    }
    size_t s = l->next_step++;
    int slot = (int)(s % 2);
    if (!l->threaded) {
        build(l, slot, s);
    } else {
        pthread_mutex_lock(&l->mu);
        if (l->held >= 0) l->ready[l->held] = 0; /* release the previous batch */
        l->held = -1;
        pthread_cond_broadcast(&l->cv);
        while (l->ready[slot] != s + 1) pthread_cond_wait(&l->cv, &l->mu);
        l->held = slot;
        pthread_mutex_unlock(&l->mu);
    }
    *x = l->x[slot];
    *y = l->y[slot];
    if (wait_s) *wait_s = now_s() - t0;
    return 1;
}

void tta_loader_free(tta_loader *l) {
    if (!l) return;
    if (l->threaded) {
        pthread_mutex_lock(&l->mu);
        l->stop = 1;
        pthread_cond_broadcast(&l->cv);
        pthread_mutex_unlock(&l->mu);
        pthread_join(l->thread, NULL);
    }
    pthread_mutex_destroy(&l->mu);
    pthread_cond_destroy(&l->cv);
    for (int i = 0; i < 2; i++) {
        free(l->x[i]);
        free(l->y[i]);
    }
    free(l);
}
