/* session.c: one training session (see session.h): set-up, the training step, evaluation. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/check.h"
#include "replay/session.h"

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* The fused update's callback (tta_param_update.apply): the block's tensor is the last one
 * starting at or before it (tensors sorted by offset, as the model lays them out). */
static void apply_update(void *ctx, size_t offset, int rows, int cols, size_t ld) {
    tta_session *s = ctx;
    int lo = 0, hi = s->n_tensors - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (s->tensors[mid].offset <= offset) lo = mid;
        else hi = mid - 1;
    }
    tta_optim_update_block(&s->optim, tta_model_params(s->m), tta_model_grads(s->m), &s->tensors[lo], s->lr_now,
                           offset, rows, cols, ld);
}

/* Fuses the update into backward where it is the same arithmetic as the separate pass: one
 * process (no gradient exchange between backward and the update), host memory, an elementwise
 * optimizer (tta_optim_fusable). */
static void fuse_update(tta_session *s, const tta_session_config *cfg) {
    if (cfg->unfused_update || s->K > 1 || s->exchange.kind != TTA_EXCHANGE_NONE || !s->be->ops->host_memory ||
        !tta_optim_fusable(&s->optim))
        return;
    for (int i = 1; i < s->n_tensors; i++) assert(s->tensors[i].offset > s->tensors[i - 1].offset);
    unsigned char *on = callocCheck((size_t)s->n_tensors + 1, 1);
    s->update = (tta_param_update){apply_update, s};
    s->fused = tta_model_set_update(s->m, &s->update, on);
    for (int i = 0; i < s->n_tensors; i++) s->tensors[i].fused = on[i];
    free(on);
}

/* The optimizer on the device (the backend's sgd_step): SGD, one process or gradients reduced on
 * the device, the session's tensors as ranges of equal decay (adjacent tensors merged). 1 when it
 * applies (s->sgd set but for the rate), 0 when the optimizer must step on the host mirror. */
static int plan_device_sgd(tta_session *s, const tta_session_config *cfg) {
    const tta_opt_config *c = cfg->optimizer;
    if (s->be->ops->host_memory || !s->be->ops->sgd_step || cfg->host_optimizer || c->kind != TTA_OPT_SGD ||
        (s->exchange.kind != TTA_EXCHANGE_NONE && s->exchange.kind != TTA_EXCHANGE_ON_DEVICE))
        return 0;
    tta_sgd_step *a = &s->sgd;
    memset(a, 0, sizeof *a);
    a->momentum = (float)c->momentum; /* the host loop's float rates (optim.c, sgd_step) */
    a->nesterov = c->nesterov;
    a->caffe = c->caffe;
    for (int i = 0; i < s->n_tensors; i++) {
        const tta_param_tensor *t = &s->tensors[i];
        float wd = t->decay ? (float)c->weight_decay : 0.0f;
        assert(i == 0 || t->offset >= s->tensors[i - 1].offset + s->tensors[i - 1].count);
        if (!t->count) continue;
        int last = a->n_ranges - 1;
        if (last >= 0 && a->end[last] == t->offset && a->decay[last] == wd) {
            a->end[last] += t->count;
            continue;
        }
        if (a->n_ranges == TTA_SGD_MAX_RANGES) return 0;
        a->begin[a->n_ranges] = t->offset;
        a->end[a->n_ranges] = t->offset + t->count;
        a->decay[a->n_ranges++] = wd;
    }
    return a->n_ranges > 0;
}

int tta_session_open(tta_session *s, const tta_session_config *cfg, char *err, size_t errlen) {
    assert(cfg->optimizer);
    memset(s, 0, sizeof *s);
    tta_model_config mc = {.backend = cfg->device ? cfg->device : "cpu", .backend_options = cfg->backend_options,
                           .channels = cfg->channels, .height = cfg->height, .width = cfg->width,
                           .classes = cfg->classes, .batch = cfg->batch, .eval_batch = cfg->eval_batch,
                           .seed = cfg->seed, .overrides = cfg->overrides, .label_smoothing = -1};
    if (tta_model_build(&s->m, cfg->model, &mc, err, errlen) != 0) return -1;
    s->be = tta_model_backend(s->m);
    s->comm = cfg->comm;
    s->K = cfg->comm ? cfg->comm->size : 1;
    s->rank = cfg->comm ? cfg->comm->rank : 0;
    tta_model_init_params(s->m, cfg->seed);
    const tta_param_info *info = tta_model_param_info(s->m, &s->n_tensors);
    s->tensors = callocCheck((size_t)s->n_tensors + 1, sizeof *s->tensors);
    int weights_only = cfg->decay_weights_only || cfg->optimizer->kind == TTA_OPT_LARS;
    for (int i = 0; i < s->n_tensors; i++)
        s->tensors[i] = (tta_param_tensor){info[i].offset, info[i].count,
                                           weights_only ? info[i].kind == TTA_PARAM_WEIGHT : 1, 0};
    s->n_params = tta_model_num_params(s->m);
    if (tta_optim_init(&s->optim, cfg->optimizer, s->n_params) != 0) {
        snprintf(err, errlen, "optimizer: invalid settings");
        tta_session_close(s);
        return -1;
    }
    if (cfg->auto_threads > 0) tta_cpu_mask_self(&s->cpus);
    int most = cfg->auto_threads < s->cpus.n ? cfg->auto_threads : s->cpus.n; /* (0 without auto) */
    if (most > 0 && tta_model_set_threads(s->m, most) == 0 && tta_cpu_sample_read(&s->cpus, &s->sample) == 0) {
        s->auto_max = most;
        s->opened_s = s->sample.wall_s;
    }
    tta_exchange_init(&s->exchange, cfg->comm, s->m);
    if (plan_device_sgd(s, cfg)) { /* velocity zero on the device, as optim.state on the host */
        s->device_velocity = s->be->ops->alloc(s->be->ctx, s->n_params * sizeof(float));
    } else if (!s->be->ops->host_memory) { /* the optimizer runs on host copies */
        s->host_params = mallocCheck((s->n_params ? s->n_params : 1) * sizeof(float));
        s->host_grads = mallocCheck((s->n_params ? s->n_params : 1) * sizeof(float));
    }
    /* Every rank starts from rank 0's weights. */
    if (tta_exchange_broadcast(&s->exchange, s->be, tta_model_params(s->m), s->n_params, err, errlen) != 0) {
        tta_session_close(s);
        return -1;
    }
    fuse_update(s, cfg);
    return 0;
}

void tta_session_close(tta_session *s) {
    if (s->device_velocity) s->be->ops->free(s->be->ctx, s->device_velocity);
    if (s->m) tta_exchange_free(&s->exchange);
    tta_optim_free(&s->optim);
    free(s->changes);
    free(s->tensors);
    free(s->host_params);
    free(s->host_grads);
    tta_model_free(s->m);
    memset(s, 0, sizeof *s);
}

/* The update of a device backend's parameters on the host mirror, after the exchange of its
 * gradients there; the exchange's time is not the optimizer's. */
static int update_on_mirror(tta_session *s, double lr, tta_step_times *t, char *err, size_t errlen) {
    size_t bytes = s->n_params * sizeof(float);
    double t0 = now_s();
    s->be->ops->download(s->be->ctx, s->host_grads, tta_model_grads(s->m), bytes);
    tta_exchange_times c = {0};
    if (tta_exchange_mirror_grads(&s->exchange, s->host_grads, s->n_params, &c, err, errlen) != 0) return -1;
    t->comm.exposed += c.exposed;
    t->comm.total += c.total;
    s->be->ops->download(s->be->ctx, s->host_params, tta_model_params(s->m), bytes);
    tta_optim_step(&s->optim, s->host_params, s->host_grads, s->tensors, (size_t)s->n_tensors, lr);
    s->be->ops->upload(s->be->ctx, tta_model_params(s->m), s->host_params, bytes);
    t->optimizer += now_s() - t0 - c.exposed; /* (a blocking exchange: exposed = its whole time) */
    return 0;
}

/* The step on the device: no copy crosses the bus. Timed to its end, as backward is. */
static void update_on_device(tta_session *s, double lr, tta_step_times *t) {
    double t0 = now_s();
    s->optim.step++; /* (as tta_optim_step counts; checkpoints keep it) */
    s->sgd.lr = (float)lr;
    s->be->ops->sgd_step(s->be->ctx, tta_model_params(s->m), tta_model_grads(s->m), s->device_velocity, &s->sgd);
    s->be->ops->sync(s->be->ctx);
    t->optimizer += now_s() - t0;
}

void tta_session_pull_state(tta_session *s) {
    if (s->device_velocity)
        s->be->ops->download(s->be->ctx, s->optim.state, s->device_velocity, s->n_params * sizeof(float));
}

void tta_session_push_state(tta_session *s) {
    if (s->device_velocity)
        s->be->ops->upload(s->be->ctx, s->device_velocity, s->optim.state, s->n_params * sizeof(float));
}

/* Auto threads: every half second, the cores other processes held since the last sample decide
 * the thread count of the next steps. */
#define AUTO_THREADS_PERIOD_S 0.5
static void adapt_threads(tta_session *s) {
    if (now_s() - s->sample.wall_s < AUTO_THREADS_PERIOD_S) return;
    tta_cpu_sample now;
    if (tta_cpu_sample_read(&s->cpus, &now) != 0) return;
    double others = tta_cpu_others(&s->sample, &now, s->cpus.n);
    s->sample = now;
    int cur = tta_model_threads(s->m);
    int next = tta_threads_decide(others, cur, s->auto_max, s->cpus.n);
    if (next == cur || tta_model_set_threads(s->m, next) != 0) return;
    growArray(s->changes, &s->changes_cap, s->n_changes + 1);
    s->changes[s->n_changes++] = (tta_thread_change){s->steps, now.wall_s - s->opened_s, cur, next, others};
}

int tta_session_step(tta_session *s, const float *x, const int32_t *y, int n, double lr, tta_step_times *t,
                     char *err, size_t errlen) {
    if (s->auto_max > 0) adapt_threads(s);
    s->steps++;
    double ta = now_s();
    tta_step_result res;
    if (tta_model_forward(s->m, x, y, n, 1, &res) != 0) {
        snprintf(err, errlen, "forward failed");
        return -1;
    }
    double tb = now_s();
    t->forward += tb - ta;
    t->loss = res.loss;
    tta_exchange_begin_step(&s->exchange);
    s->lr_now = lr; /* (the fused update's rate) */
    tta_model_backward(s->m);
    s->be->ops->sync(s->be->ctx); /* (a device backend's backward is timed to its end) */
    t->backward += now_s() - tb - s->exchange.hook_s;
    float *g = tta_model_grads(s->m);
    if (tta_exchange_device_grads(&s->exchange, g, s->n_params, &t->comm, err, errlen) != 0) return -1;
    if (s->device_velocity) {
        update_on_device(s, lr, t);
        return 0;
    }
    if (!s->be->ops->host_memory) return update_on_mirror(s, lr, t, err, errlen);
    double td = now_s();
    tta_optim_step(&s->optim, tta_model_params(s->m), g, s->tensors, (size_t)s->n_tensors, lr);
    t->optimizer += now_s() - td;
    return 0;
}

int tta_session_sum(tta_session *s, double *v, char *err, size_t errlen) {
    if (s->K <= 1) return 0;
    return s->comm->ops->allreduce_double(s->comm, v, err, errlen);
}

double tta_session_accuracy(tta_session *s, const tta_dataset *d) {
    char err[256];
    if (tta_exchange_broadcast(&s->exchange, s->be, tta_model_buffers(s->m), tta_model_num_buffers(s->m), err,
                               sizeof err) != 0)
        return NAN;
    size_t img = (size_t)d->c * d->h * d->w;
    size_t lo = d->n * (size_t)s->rank / (size_t)s->K, hi = d->n * (size_t)(s->rank + 1) / (size_t)s->K;
    long correct = 0;
    int rc = hi > lo ? tta_model_evaluate(s->m, d->images + lo * img, d->labels + lo, (long)(hi - lo), NULL, &correct)
                     : 0;
    double c = rc == 0 ? (double)correct : NAN;
    if (tta_session_sum(s, &c, err, sizeof err) != 0) return NAN;
    return d->n ? c / (double)d->n : NAN;
}
