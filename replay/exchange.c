/* exchange.c: the gradient exchange of data-parallel training (see session.h).
 *
 * Host gradients are summed in buckets (contiguous ranges of the flat gradient array, last
 * layers first) whose reduction starts as soon as backward has finished them, then divided by
 * K; device gradients are reduced in one blocking call, on the device when the comm reduces
 * device memory, else on the host mirror after their download.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/check.h"
#include "replay/session.h"

struct tta_exchange_bucket {
    size_t lo, hi;   /* floats of the flat gradient array */
    int remaining;   /* tensors not yet final in this backward */
    int tensors;
    void *req;       /* started reduction, or NULL */
    double t_start, t_done;
    int done;
};

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static int tensor_at(const tta_exchange *x, size_t offset) {
    int lo = 0, hi = x->n_tensors - 1;
    while (lo <= hi) { /* param infos are sorted by offset */
        int mid = (lo + hi) / 2;
        if (x->info[mid].offset == offset) return mid;
        if (x->info[mid].offset < offset) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

/* Buckets of about 256 KiB of gradients, from the last tensor down (the order backward finishes
 * them), each a contiguous range: small enough that the first reductions start early in the
 * backward pass of the small models replayed here, large enough that per-call costs stay small. */
static void make_buckets(tta_exchange *x) {
    const size_t target = 64 * 1024; /* floats */
    x->bucket_of = mallocCheck(sizeof(int) * (size_t)(x->n_tensors ? x->n_tensors : 1));
    x->buckets = callocCheck((size_t)(x->n_tensors ? x->n_tensors : 1), sizeof *x->buckets);
    int b = -1;
    size_t size = target;
    for (int t = x->n_tensors - 1; t >= 0; t--) {
        if (size >= target) {
            b++;
            x->buckets[b] = (tta_exchange_bucket){.lo = x->info[t].offset, .hi = x->info[t].offset + x->info[t].count};
            size = 0;
        }
        x->buckets[b].lo = x->info[t].offset;
        x->buckets[b].tensors++;
        size += x->info[t].count;
        x->bucket_of[t] = b;
    }
    x->n_buckets = b + 1;
}

static void start_bucket(tta_exchange *x, tta_exchange_bucket *bk) {
    double t0 = now_s();
    bk->t_start = t0;
    if (!x->failed && x->comm->ops->iallreduce_sum(x->comm, tta_model_grads(x->m) + bk->lo, bk->hi - bk->lo, &bk->req,
                                                   x->failure, sizeof x->failure) != 0)
        x->failed = 1;
    x->hook_s += now_s() - t0;
}

/* Marks finished reductions (MPI_Test also moves them on while backward computes). */
static void poll_buckets(tta_exchange *x) {
    if (!x->comm->ops->test) return;
    double t0 = now_s();
    for (int b = 0; b < x->n_buckets; b++) {
        tta_exchange_bucket *bk = &x->buckets[b];
        if (!bk->req || bk->done) continue;
        int done = 0;
        if (x->comm->ops->test(x->comm, bk->req, &done) == 0 && done) {
            bk->done = 1;
            bk->t_done = now_s();
        }
    }
    x->hook_s += now_s() - t0;
}

/* The backward hook: a tensor's gradient is final; start its bucket when it is complete. */
static void grad_ready(void *ctx, size_t offset) {
    tta_exchange *x = ctx;
    int t = tensor_at(x, offset);
    if (t < 0) return;
    tta_exchange_bucket *bk = &x->buckets[x->bucket_of[t]];
    poll_buckets(x);
    if (--bk->remaining == 0) start_bucket(x, bk);
}

/* Finishes every bucket after backward, then averages the gradients g[0..n). */
static int finish_buckets(tta_exchange *x, float *g, size_t n, tta_exchange_times *t, char *err, size_t errlen) {
    double t0 = now_s();
    for (int b = 0; b < x->n_buckets; b++) {
        tta_exchange_bucket *bk = &x->buckets[b];
        if (bk->remaining > 0) start_bucket(x, bk); /* a tensor without a gradient this step */
    }
    for (int b = 0; b < x->n_buckets; b++) {
        tta_exchange_bucket *bk = &x->buckets[b];
        if (!bk->req) continue;
        if (!x->failed && x->comm->ops->wait(x->comm, bk->req, x->failure, sizeof x->failure) != 0) x->failed = 1;
        if (!bk->done) bk->t_done = now_s();
        t->total += bk->t_done - bk->t_start;
        bk->req = NULL;
    }
    t->exposed += now_s() - t0 + x->hook_s;
    if (x->failed) {
        snprintf(err, errlen, "%s", x->failure);
        return -1;
    }
    float inv = 1.0f / (float)x->K;
    for (size_t i = 0; i < n; i++) g[i] *= inv;
    return 0;
}

/* Sums n floats at g over the ranks without overlap: exposed = total = the time it took. */
static int allreduce_blocking(tta_exchange *x, float *g, size_t n, tta_exchange_times *t, char *err, size_t errlen) {
    double t0 = now_s();
    void *req = NULL;
    if (x->comm->ops->iallreduce_sum(x->comm, g, n, &req, err, errlen) != 0 ||
        x->comm->ops->wait(x->comm, req, err, errlen) != 0)
        return -1;
    double dt = now_s() - t0;
    t->exposed += dt;
    t->total += dt;
    return 0;
}

void tta_exchange_init(tta_exchange *x, tta_comm *comm, tta_model *m) {
    memset(x, 0, sizeof *x);
    x->K = comm ? comm->size : 1;
    x->m = m;
    x->info = tta_model_param_info(m, &x->n_tensors);
    if (x->K <= 1) {
        x->kind = TTA_EXCHANGE_NONE;
        return;
    }
    x->comm = comm;
    if (tta_model_backend(m)->ops->host_memory) {
        x->kind = TTA_EXCHANGE_OVERLAPPED;
        make_buckets(x);
        tta_model_set_grad_hook(m, grad_ready, x);
    } else {
        x->kind = comm->ops->device_memory ? TTA_EXCHANGE_ON_DEVICE : TTA_EXCHANGE_ON_MIRROR;
    }
}

void tta_exchange_free(tta_exchange *x) {
    if (x->kind == TTA_EXCHANGE_OVERLAPPED) tta_model_set_grad_hook(x->m, NULL, NULL);
    free(x->buckets);
    free(x->bucket_of);
    memset(x, 0, sizeof *x);
}

void tta_exchange_begin_step(tta_exchange *x) {
    for (int b = 0; b < x->n_buckets; b++) {
        x->buckets[b].remaining = x->buckets[b].tensors;
        x->buckets[b].req = NULL;
        x->buckets[b].done = 0;
    }
    x->hook_s = 0;
}

int tta_exchange_device_grads(tta_exchange *x, float *g, size_t n, tta_exchange_times *t, char *err, size_t errlen) {
    switch (x->kind) {
    case TTA_EXCHANGE_OVERLAPPED: return finish_buckets(x, g, n, t, err, errlen);
    case TTA_EXCHANGE_ON_DEVICE: return allreduce_blocking(x, g, n, t, err, errlen);
    default: return 0;
    }
}

int tta_exchange_mirror_grads(tta_exchange *x, float *h, size_t n, tta_exchange_times *t, char *err, size_t errlen) {
    if (x->kind == TTA_EXCHANGE_NONE) return 0;
    assert(x->kind != TTA_EXCHANGE_OVERLAPPED); /* host backends have no mirror */
    if (x->kind == TTA_EXCHANGE_ON_MIRROR && allreduce_blocking(x, h, n, t, err, errlen) != 0) return -1;
    for (size_t i = 0; i < n; i++) h[i] /= (float)x->K;
    return 0;
}

int tta_exchange_broadcast(tta_exchange *x, tta_backend *be, float *p, size_t n, char *err, size_t errlen) {
    if (x->kind == TTA_EXCHANGE_NONE || n == 0) return 0;
    if (be->ops->host_memory || x->comm->ops->device_memory)
        return x->comm->ops->broadcast(x->comm, p, n * sizeof(float), 0, err, errlen);
    float *h = mallocCheck(n * sizeof *h);
    be->ops->download(be->ctx, h, p, n * sizeof *h);
    int rc = x->comm->ops->broadcast(x->comm, h, n * sizeof *h, 0, err, errlen);
    be->ops->upload(be->ctx, p, h, n * sizeof *h);
    free(h);
    return rc;
}
