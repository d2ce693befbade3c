/* session.h: one training session (internal to replay/): a model, its optimizer, the host
 * mirror that a device backend's optimizer runs on, and the exchange of gradients among
 * data-parallel ranks, stepped by tta_session_step. The trainer (trainer.c), the profiler
 * (profile.c) and bench/bench_engine.c all step through it, so that the step a profile or a
 * benchmark times is the step that trains.
 *
 * The gradient exchange (exchange.c) knows where gradients are reduced, from the backend's
 * memory and the comm's (tta_backend_ops.host_memory, tta_comm_ops.device_memory):
 *   - one rank: nothing to exchange;
 *   - host gradients, host comm (cpu + mpi): buckets of gradients are reduced while backward
 *     goes on (a gradient hook starts each bucket once its tensors are final);
 *   - device gradients, device comm (cuda + nccl): one blocking reduction on the device;
 *   - device gradients, host comm (cuda + mpi): one blocking reduction on the host mirror.
 * Gradients are averaged over the K ranks before the update.
 *
 * Ownership: a session owns its model, optimizer, mirror and exchange (tta_session_close); the
 * comm is the caller's and must outlive the session. Errors are values: 0, or -1 with a
 * message in err.
 */
#ifndef TTA_REPLAY_SESSION_H
#define TTA_REPLAY_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "replay/comm.h"
#include "replay/data.h"
#include "replay/engine.h"
#include "replay/optim.h"
#include "replay/threads_auto.h"

/* ------------------------------------------------------------------------------------------ */
/* The gradient exchange (exchange.c)                                                           */

typedef enum {
    TTA_EXCHANGE_NONE,       /* one rank */
    TTA_EXCHANGE_OVERLAPPED, /* host gradients, host comm: buckets reduced during backward */
    TTA_EXCHANGE_ON_DEVICE,  /* device gradients, device comm: reduced on the device after backward */
    TTA_EXCHANGE_ON_MIRROR   /* device gradients, host comm: reduced on the host mirror */
} tta_exchange_kind;

typedef struct tta_exchange_bucket tta_exchange_bucket;

typedef struct {
    tta_exchange_kind kind;
    tta_comm *comm;          /* NULL with kind NONE */
    int K;                   /* ranks */
    tta_model *m;
    const tta_param_info *info;
    int n_tensors;
    tta_exchange_bucket *buckets; /* OVERLAPPED only */
    int n_buckets;
    int *bucket_of;          /* tensor -> bucket */
    double hook_s;           /* exchange time spent inside backward (the gradient hook) this step */
    int failed;
    char failure[256];
} tta_exchange;

/* Seconds of communication of one step: exposed (the training thread waited), total (from each
 * reduction's start to its end, summed). */
typedef struct {
    double exposed, total;
} tta_exchange_times;

/* Sets up the exchange of m's gradients over comm (NULL or one rank: kind NONE); with kind
 * OVERLAPPED it installs m's gradient hook. */
void tta_exchange_init(tta_exchange *x, tta_comm *comm, tta_model *m);
void tta_exchange_free(tta_exchange *x);
/* Call before each backward (re-arms the buckets). */
void tta_exchange_begin_step(tta_exchange *x);
/* After backward, on the gradients where they are (g: the model's n gradients in the backend's
 * memory): OVERLAPPED finishes the buckets and averages; ON_DEVICE reduces on the device. */
int tta_exchange_device_grads(tta_exchange *x, float *g, size_t n, tta_exchange_times *t, char *err, size_t errlen);
/* On the host mirror of a device backend's gradients (h, n floats): ON_MIRROR reduces them;
 * every kind but NONE then averages them over the ranks. */
int tta_exchange_mirror_grads(tta_exchange *x, float *h, size_t n, tta_exchange_times *t, char *err, size_t errlen);
/* Copies rank 0's n floats at p (in be's memory) to every rank. */
int tta_exchange_broadcast(tta_exchange *x, tta_backend *be, float *p, size_t n, char *err, size_t errlen);

/* ------------------------------------------------------------------------------------------ */
/* The session (session.c)                                                                      */

typedef struct {
    const char *model;        /* a shipped model name or a model file */
    const char *overrides;    /* model parameter overrides, or NULL */
    const char *device;       /* backend name: "cpu" (NULL), "reference", "cuda" */
    tta_backend_options backend_options;
    int channels, height, width, classes;
    int batch;                /* training batch per rank */
    int eval_batch;           /* 0: the training batch */
    uint64_t seed;            /* parameter initialisation and dropout */
    const tta_opt_config *optimizer;
    int decay_weights_only;   /* 1: weight decay on conv/linear weights only (bench/torch_step.py's
                               * step); 0: on every tensor, as PyTorch's optimizers unless told
                               * otherwise (LARS: on weights only, whatever this says) */
    tta_comm *comm;           /* data-parallel ranks; NULL: one process */
    int auto_threads;         /* `--threads auto`: > 0 adapts the backend's threads to the load
                               * between steps, 1..auto_threads (backend_options.threads starts at
                               * it); 0: the fixed count */
    int unfused_update;       /* 1: the optimizer's own pass after backward even where the update
                               * could be fused into backward (tests compare the two) */
    int host_optimizer;       /* 1: a device backend's optimizer steps on host copies even where
                               * the backend could step it on the device (tests compare the two) */
} tta_session_config;

/* One change of the thread count under auto_threads: at the start of training step `step`
 * (from 0), `t_s` seconds after the session opened, from `from` to `to` threads, because other
 * processes held `others` cores over the last sample. */
typedef struct {
    long step;
    double t_s;
    int from, to;
    double others;
} tta_thread_change;

typedef struct {
    tta_model *m;
    tta_backend *be;
    tta_optim optim;
    tta_param_tensor *tensors; /* the optimizer's view of the parameter tensors */
    int n_tensors;
    size_t n_params;
    float *host_params, *host_grads; /* a device backend's host mirror (NULL on host backends
                                      * and where the optimizer steps on the device) */
    /* SGD on a device backend with sgd_step: the velocity in device memory (optim.state is then
     * only its host copy, for checkpoints: tta_session_pull_state, tta_session_push_state), and
     * the step's ranges. NULL: the optimizer steps on the host. */
    float *device_velocity;
    tta_sgd_step sgd;
    tta_exchange exchange;
    tta_comm *comm;            /* NULL: one process */
    int K, rank;
    long steps;                /* training steps taken */
    /* auto threads (auto_max > 0): the last /proc sample, the session's start, the changes */
    int auto_max;
    tta_cpu_mask cpus;         /* the CPUs this process may run on: the only ones read */
    tta_cpu_sample sample;
    double opened_s;
    tta_thread_change *changes;
    size_t n_changes, changes_cap;
    /* the update fused into backward (fused > 0 tensors: see tta_session_step), at rate lr_now */
    tta_param_update update;
    int fused;
    double lr_now;
} tta_session;

/* Seconds of the phases of one step, and its batch-mean loss. */
typedef struct {
    double forward, backward, optimizer;
    tta_exchange_times comm;
    double loss;
} tta_step_times;

/* Builds the model on its backend, initialises its parameters from cfg->seed (every rank then
 * takes rank 0's), sets up the optimizer, the mirror and the exchange. 0, or -1 with err (the
 * session is then empty and needs no close). */
int tta_session_open(tta_session *s, const tta_session_config *cfg, char *err, size_t errlen);
void tta_session_close(tta_session *s);

/* One training step on n samples (host NCHW x, labels y): forward, backward, the gradient
 * exchange, the update at learning rate lr (a device backend: on the device where it offers
 * sgd_step, the optimizer is SGD and the gradients are reduced there or not at all; else on the
 * host mirror). On one process with a host backend and SGD, the
 * update of the tensors the backend can update in backward (the cpu backend's linear layers) is
 * fused into backward (tta_model_set_update), with the same bits as the separate pass, which
 * does the rest (its time then counts as backward's). Under auto threads it first samples the load when
 * half a second has passed since the last sample and changes the thread count when
 * tta_threads_decide says so (appended to s->changes). Adds the phases' seconds to *t (its loss is set).
 * 0, or -1 with err. */
int tta_session_step(tta_session *s, const float *x, const int32_t *y, int n, double lr, tta_step_times *t,
                     char *err, size_t errlen);

/* The optimizer's state between the device and optim.state, where the device holds it
 * (device_velocity; no-ops elsewhere): pull copies it into optim.state (before a checkpoint
 * reads it), push copies optim.state back (after a checkpoint wrote it). */
void tta_session_pull_state(tta_session *s);
void tta_session_push_state(tta_session *s);

/* Top-1 accuracy on d with the inference path, the split shared among the ranks (rank 0's
 * batch-norm statistics first): NAN when evaluation or communication failed. */
double tta_session_accuracy(tta_session *s, const tta_dataset *d);

/* Sum of one double over the ranks (identity on one process): 0, or -1 with err. */
int tta_session_sum(tta_session *s, double *v, char *err, size_t errlen);

#endif
