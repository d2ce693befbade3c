/* trainer.c: one replay run (see replay.h), with MLPerf's timing rules: the model is created and
 * initialised before the clock starts (init_start/init_stop); the clock starts (run_start) when
 * data is touched, i.e. before the dataset is read; every epoch ends with an evaluation on the
 * validation split; the clock stops when the target is met (run_stop success) or at the epoch
 * limit or a stop request (aborted); with opt->to_schedule_end (`tta verify`, DAWNBench-style) run_stop
 * is logged at the first epoch meeting the target and training goes on to the epoch limit, its
 * epochs logged after run_stop. Accuracy on the unseen and shifted splits is measured after
 * run_stop, on the final model, so that it does not change the TTA.
 *
 * Data parallel (opt->comm of K ranks): every rank draws the same shuffle; global batch s is
 * order[s*G .. (s+1)*G) with G = K x batch_size, rank r trains on its r-th slice of batch_size.
 * Gradients are summed in buckets (contiguous ranges of the flat gradient array, last layers
 * first) whose MPI_Iallreduce starts as soon as backward has finished them, then divided by K.
 * Batch-norm statistics stay per rank during training, as published entries do; before each
 * evaluation rank 0's running statistics are broadcast (as PyTorch's DDP broadcasts buffers), and
 * every rank evaluates a slice of the split, the hits summed.
 *
 * Checkpoints: after every epoch, <log_dir>/replay/checkpoints/<system>/<benchmark>/seed_<s>.ckpt
 * holds parameters, buffers, optimizer state, the shuffle generator, the clock and the length of
 * the log; --resume cuts the log back to it and continues with the clock where it stopped.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/buf.h"
#include "common/check.h"
#include "common/hash.h"
#include "replay/comm.h"
#include "replay/data.h"
#include "replay/engine.h"
#include "replay/mllog.h"
#include "replay/replay.h"

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* mkdir -p */
static int make_dirs(const char *path) {
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    return mkdir(tmp, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

/* splitmix64, for the per-epoch shuffle: reproducible from the seed. */
static uint64_t next_u64(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* The log's clock: the wall clock moved by offset_ms, so that a resumed run's log goes on from
 * the time its checkpoint was taken (the interruption is not counted). */
typedef struct {
    int64_t offset_ms;
} log_clock;

static int64_t shifted_clock(void *ctx) { return tta_mllog_wall_clock(NULL) + ((log_clock *)ctx)->offset_ms; }

/* ------------------------------------------------------------------------------------------ */
/* The run's state                                                                              */

typedef struct {
    size_t lo, hi;   /* floats of the flat gradient array */
    int remaining;   /* tensors not yet final in this backward */
    int tensors;
    void *req;       /* started reduction, or NULL */
    double t_start, t_done;
    int done;
} bucket;

typedef struct {
    double data, forward, backward, optimizer, comm_exposed, comm_total, eval, epoch;
} phase_times;

typedef struct {
    const tta_replay_spec *spec;
    const tta_replay_options *opt;
    tta_comm *comm;         /* NULL: one process */
    int K, rank;
    tta_model *m;
    tta_backend *be;
    tta_optim optim;
    tta_param_tensor *tensors;
    int n_tensors;
    const tta_param_info *info;
    float *host_params, *host_grads; /* a device backend's host copies (NULL on host backends) */
    /* buckets, for K > 1 */
    bucket *buckets;
    int n_buckets;
    int *bucket_of;          /* tensor -> bucket */
    double hook_comm;        /* comm time spent inside the backward hook this step */
    int comm_failed;
    char comm_err[256];
    tta_mllog *log;          /* rank 0 only */
    log_clock clock;
} run_state;

static int tensor_at(const run_state *r, size_t offset) {
    int lo = 0, hi = r->n_tensors - 1;
    while (lo <= hi) { /* param infos are sorted by offset */
        int mid = (lo + hi) / 2;
        if (r->info[mid].offset == offset) return mid;
        if (r->info[mid].offset < offset) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

/* Buckets of about 256 KiB of gradients, from the last tensor down (the order backward finishes
 * them), each a contiguous range: small enough that the first reductions start early in the
 * backward pass of the small models replayed here, large enough that per-call costs stay small. */
static void make_buckets(run_state *r) {
    const size_t target = 64 * 1024; /* floats */
    r->bucket_of = mallocCheck(sizeof(int) * (size_t)(r->n_tensors ? r->n_tensors : 1));
    r->buckets = callocCheck((size_t)(r->n_tensors ? r->n_tensors : 1), sizeof *r->buckets);
    int b = -1;
    size_t size = target;
    for (int t = r->n_tensors - 1; t >= 0; t--) {
        if (size >= target) {
            b++;
            r->buckets[b] = (bucket){.lo = r->info[t].offset, .hi = r->info[t].offset + r->info[t].count};
            size = 0;
        }
        r->buckets[b].lo = r->info[t].offset;
        r->buckets[b].tensors++;
        size += r->info[t].count;
        r->bucket_of[t] = b;
    }
    r->n_buckets = b + 1;
}

static void start_bucket(run_state *r, bucket *bk) {
    double t0 = now_s();
    bk->t_start = t0;
    if (!r->comm_failed &&
        r->comm->iallreduce_sum(r->comm, tta_model_grads(r->m) + bk->lo, bk->hi - bk->lo, &bk->req, r->comm_err,
                                sizeof r->comm_err) != 0)
        r->comm_failed = 1;
    r->hook_comm += now_s() - t0;
}

/* Marks finished reductions (MPI_Test also moves them on while backward computes). */
static void poll_buckets(run_state *r) {
    if (!r->comm->test) return;
    double t0 = now_s();
    for (int b = 0; b < r->n_buckets; b++) {
        bucket *bk = &r->buckets[b];
        if (!bk->req || bk->done) continue;
        int done = 0;
        if (r->comm->test(r->comm, bk->req, &done) == 0 && done) {
            bk->done = 1;
            bk->t_done = now_s();
        }
    }
    r->hook_comm += now_s() - t0;
}

/* The backward hook: a tensor's gradient is final; start its bucket when it is complete. */
static void grad_ready(void *ctx, size_t offset) {
    run_state *r = ctx;
    int t = tensor_at(r, offset);
    if (t < 0) return;
    bucket *bk = &r->buckets[r->bucket_of[t]];
    poll_buckets(r);
    if (--bk->remaining == 0) start_bucket(r, bk);
}

/* Finishes every bucket after backward: *exposed gets the time the training thread waited,
 * *total the time from each bucket's start to its end, summed. Then averages the gradients. */
static int finish_buckets(run_state *r, double *exposed, double *total, char *err, size_t errlen) {
    double t0 = now_s();
    for (int b = 0; b < r->n_buckets; b++) {
        bucket *bk = &r->buckets[b];
        if (bk->remaining > 0) start_bucket(r, bk); /* a tensor without a gradient this step */
    }
    for (int b = 0; b < r->n_buckets; b++) {
        bucket *bk = &r->buckets[b];
        if (!bk->req) continue;
        if (!r->comm_failed && r->comm->wait(r->comm, bk->req, r->comm_err, sizeof r->comm_err) != 0)
            r->comm_failed = 1;
        if (!bk->done) bk->t_done = now_s();
        *total += bk->t_done - bk->t_start;
        bk->req = NULL;
    }
    *exposed += now_s() - t0 + r->hook_comm;
    if (r->comm_failed) {
        snprintf(err, errlen, "%s", r->comm_err);
        return -1;
    }
    float *g = tta_model_grads(r->m), inv = 1.0f / (float)r->K;
    size_t n = tta_model_num_params(r->m);
    for (size_t i = 0; i < n; i++) g[i] *= inv;
    return 0;
}

static void reset_buckets(run_state *r) {
    for (int b = 0; b < r->n_buckets; b++) {
        r->buckets[b].remaining = r->buckets[b].tensors;
        r->buckets[b].req = NULL;
        r->buckets[b].done = 0;
    }
    r->hook_comm = 0;
}

/* Sums the gradients over ranks without overlap (device backends, and the gradients a device
 * backend downloaded): *exposed = *total = the time it took. */
static int allreduce_blocking(run_state *r, float *g, size_t n, double *exposed, double *total, char *err,
                              size_t errlen) {
    double t0 = now_s();
    void *req = NULL;
    if (r->comm->iallreduce_sum(r->comm, g, n, &req, err, errlen) != 0 || r->comm->wait(r->comm, req, err, errlen) != 0)
        return -1;
    double dt = now_s() - t0;
    *exposed += dt;
    *total += dt;
    return 0;
}

/* Copies rank 0's n floats at p (device memory of the model's backend) to every rank. */
static int broadcast_floats(run_state *r, float *p, size_t n, char *err, size_t errlen) {
    if (r->K <= 1 || n == 0) return 0;
    if (r->be->host_memory || !strcmp(r->comm->name, "nccl"))
        return r->comm->broadcast(r->comm, p, n * sizeof(float), 0, err, errlen);
    float *h = mallocCheck(n * sizeof *h);
    r->be->download(r->be->ctx, h, p, n * sizeof *h);
    int rc = r->comm->broadcast(r->comm, h, n * sizeof *h, 0, err, errlen);
    r->be->upload(r->be->ctx, p, h, n * sizeof *h);
    free(h);
    return rc;
}

/* Top-1 accuracy on d with the fast inference path, the split shared among the ranks. */
static double accuracy(run_state *r, const tta_dataset *d) {
    char err[256];
    if (broadcast_floats(r, tta_model_buffers(r->m), tta_model_num_buffers(r->m), err, sizeof err) != 0) return NAN;
    size_t img = (size_t)d->c * d->h * d->w;
    size_t lo = d->n * (size_t)r->rank / (size_t)r->K, hi = d->n * (size_t)(r->rank + 1) / (size_t)r->K;
    long correct = 0;
    int rc = hi > lo ? tta_model_evaluate(r->m, d->images + lo * img, d->labels + lo, (long)(hi - lo), NULL, &correct)
                     : 0;
    double c = rc == 0 ? (double)correct : NAN;
    if (r->K > 1 && r->comm->allreduce_double(r->comm, &c, err, sizeof err) != 0) return NAN;
    return d->n ? c / (double)d->n : NAN;
}

/* ------------------------------------------------------------------------------------------ */
/* Checkpoints                                                                                  */

#define CKPT_MAGIC "TTACKPT1"

typedef struct {
    char magic[8];
    uint64_t seed, spec_hash;
    int32_t epoch, workers, batch, reserved;
    uint64_t nparams, nbuffers, nstate;
    int64_t optim_step;
    uint64_t rng;
    int64_t log_bytes, log_time_ms;
    double elapsed_s, train_time, val_acc;
    double sums[8]; /* phase totals so far: data, fwd, bwd, opt, comm_exposed, comm_total */
    int64_t trained;
    uint64_t payload_hash;
} ckpt_header;

/* What a checkpoint must agree with to be continued: the recipe's fields that shape training. */
static uint64_t spec_hash(const tta_replay_spec *s, int K) {
    buf b = {0};
    buf_printf(&b, "%s|%s|%s|%s|%d|%d|%d|%.17g|%d|%ld|%d|%d|%d|%.17g|%.17g|%d", s->benchmark, s->dataset_kind,
               s->model, s->model_params ? s->model_params : "", s->batch_size, s->optimizer.kind, s->optimizer.nesterov,
               s->optimizer.momentum, s->optimizer.caffe, s->train_subset, s->crop_pad, s->flip, K,
               s->optimizer.weight_decay, s->schedule.warmup_epochs, s->lr_scaling);
    uint64_t h = tta_hash64(buf_str(&b), b.len, 0);
    buf_free(&b);
    return h;
}

void tta_replay_checkpoint_path(const tta_replay_spec *spec, uint64_t seed, const tta_replay_options *opt,
                                char *path, size_t len) {
    snprintf(path, len, "%s/replay/checkpoints/%s/%s/seed_%llu.ckpt", opt->log_dir ? opt->log_dir : ".",
             opt->system ? opt->system : "local", spec->benchmark, (unsigned long long)seed);
}

/* The host copies of parameters, buffers and optimizer state, in one array (the payload). */
static float *ckpt_payload(run_state *r, size_t *count) {
    size_t np = tta_model_num_params(r->m), nb = tta_model_num_buffers(r->m);
    size_t ns = tta_optim_state_bytes(&r->optim) / sizeof(float);
    float *p = mallocCheck((np + nb + ns + 1) * sizeof *p);
    r->be->download(r->be->ctx, p, tta_model_params(r->m), np * sizeof *p);
    r->be->download(r->be->ctx, p + np, tta_model_buffers(r->m), nb * sizeof *p);
    if (ns) memcpy(p + np + nb, r->optim.state, ns * sizeof *p);
    *count = np + nb + ns;
    return p;
}

/* Writes the checkpoint atomically (a temporary file renamed over the old one). */
static int save_checkpoint(run_state *r, const char *path, ckpt_header *h, char *err, size_t errlen) {
    size_t n;
    float *p = ckpt_payload(r, &n);
    h->payload_hash = tta_hash64(p, n * sizeof *p, 0);
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    int ok = f && fwrite(h, sizeof *h, 1, f) == 1 && fwrite(p, sizeof *p, n, f) == n;
    if (f && fclose(f) != 0) ok = 0;
    free(p);
    if (!ok || rename(tmp, path) != 0) {
        snprintf(err, errlen, "%s: cannot write the checkpoint: %s", path, strerror(errno));
        remove(tmp);
        return -1;
    }
    return 0;
}

/* Reads a checkpoint into the model and optimizer: 1 when loaded, 0 when there is none, -1 with
 * err when it exists but cannot be used (another recipe, a damaged file). */
static int load_checkpoint(run_state *r, const char *path, uint64_t seed, ckpt_header *h, char *err,
                           size_t errlen) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t np = tta_model_num_params(r->m), nb = tta_model_num_buffers(r->m);
    size_t ns = tta_optim_state_bytes(&r->optim) / sizeof(float);
    int rc = -1;
    float *p = NULL;
    if (fread(h, sizeof *h, 1, f) != 1 || memcmp(h->magic, CKPT_MAGIC, 8) != 0) {
        snprintf(err, errlen, "%s: not a tta checkpoint (or cut short)", path);
        goto out;
    }
    if (h->seed != seed || h->spec_hash != spec_hash(r->spec, r->K) || h->nparams != np || h->nbuffers != nb ||
        h->nstate != ns) {
        snprintf(err, errlen, "%s: made by another recipe, seed or number of workers; remove it to start afresh", path);
        goto out;
    }
    p = mallocCheck((np + nb + ns + 1) * sizeof *p);
    if (fread(p, sizeof *p, np + nb + ns, f) != np + nb + ns || tta_hash64(p, (np + nb + ns) * sizeof *p, 0) != h->payload_hash) {
        snprintf(err, errlen, "%s: damaged (its contents do not match their checksum)", path);
        goto out;
    }
    r->be->upload(r->be->ctx, tta_model_params(r->m), p, np * sizeof *p);
    r->be->upload(r->be->ctx, tta_model_buffers(r->m), p + np, nb * sizeof *p);
    if (ns) memcpy(r->optim.state, p + np + nb, ns * sizeof *p);
    r->optim.step = h->optim_step;
    rc = 1;
out:
    free(p);
    fclose(f);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* The run                                                                                      */

/* Writes the tta_epoch_breakdown record of one epoch (seconds, summed over the epoch's steps;
 * rank_comm_total_s: each rank's communication time). */
static void log_breakdown(run_state *r, const phase_times *pt, const double *rank_comm, int epoch) {
    buf v = {0}, meta = {0};
    buf_puts(&v, "{\"epoch_s\": ");
    buf_json_number(&v, pt->epoch);
    const char *names[] = {"data_s", "forward_s", "backward_s", "optimizer_s", "comm_exposed_s", "comm_total_s",
                           "eval_s"};
    const double vals[] = {pt->data, pt->forward, pt->backward, pt->optimizer, pt->comm_exposed, pt->comm_total,
                           pt->eval};
    for (int i = 0; i < 7; i++) {
        buf_printf(&v, ", \"%s\": ", names[i]);
        buf_json_number(&v, vals[i]);
    }
    buf_puts(&v, ", \"rank_comm_total_s\": [");
    for (int k = 0; k < r->K; k++) {
        if (k) buf_puts(&v, ", ");
        buf_json_number(&v, rank_comm[k]);
    }
    buf_puts(&v, "]}");
    buf_printf(&meta, "\"epoch_num\": %d", epoch);
    tta_mllog_event_json(r->log, TTA_MLLOG_POINT, "tta_epoch_breakdown", buf_str(&v), buf_str(&meta));
    buf_free(&v);
    buf_free(&meta);
}

/* The tta_memory record: bytes by category, exact from the trainer's allocations (as `tta
 * profile` reports them). */
static void log_memory(run_state *r, size_t data_bytes) {
    size_t mem[TTA_MEM_COUNT];
    tta_model_memory(r->m, mem);
    buf v = {0};
    buf_printf(&v,
               "{\"weights\": %zu, \"buffers\": %zu, \"weight_grads\": %zu, \"optimizer_state\": %zu, "
               "\"feature_maps\": %zu, \"workspace\": %zu, \"eval\": %zu, \"data\": %zu}",
               mem[TTA_MEM_WEIGHTS], mem[TTA_MEM_BUFFERS], mem[TTA_MEM_WEIGHT_GRADS], tta_optim_state_bytes(&r->optim),
               mem[TTA_MEM_ACTIVATIONS] + mem[TTA_MEM_ACT_GRADS] + mem[TTA_MEM_SAVED], mem[TTA_MEM_WORKSPACE],
               mem[TTA_MEM_EVAL], data_bytes);
    tta_mllog_event_json(r->log, TTA_MLLOG_POINT, "tta_memory", buf_str(&v), NULL);
    buf_free(&v);
}

/* The tta_layer_profile record: per layer, analytic FLOPs and bytes of one training step and the
 * measured seconds per step, averaged over the run's steps (the model's per-op timers; a layer
 * fused into another has no time of its own). */
static void log_layer_profile(run_state *r, long steps) {
    int nl;
    const tta_layer_stats *st = tta_model_layer_stats(r->m, &nl);
    buf v = {0};
    buf_printf(&v, "{\"steps\": %ld, \"layers\": [", steps);
    for (int i = 0; i < nl; i++) {
        buf_puts(&v, i ? ", {\"name\": " : "{\"name\": ");
        buf_json_string(&v, st[i].name, strlen(st[i].name));
        buf_puts(&v, ", \"type\": ");
        buf_json_string(&v, st[i].type, strlen(st[i].type));
        buf_puts(&v, ", \"flops\": ");
        buf_json_number(&v, st[i].flops_fwd + st[i].flops_bwd);
        buf_puts(&v, ", \"bytes\": ");
        buf_json_number(&v, st[i].bytes_fwd + st[i].bytes_bwd);
        buf_puts(&v, ", \"time_s\": ");
        buf_json_number(&v, steps > 0 ? (st[i].time_fwd + st[i].time_bwd) / (double)steps : 0);
        buf_puts(&v, "}");
    }
    buf_puts(&v, "]}");
    tta_mllog_event_json(r->log, TTA_MLLOG_POINT, "tta_layer_profile", buf_str(&v), NULL);
    buf_free(&v);
}

static void free_state(run_state *r) {
    if (r->log) tta_mllog_close(r->log);
    tta_optim_free(&r->optim);
    free(r->tensors);
    free(r->host_params);
    free(r->host_grads);
    free(r->buckets);
    free(r->bucket_of);
    tta_model_free(r->m);
}

/* 1 when any rank was asked to stop (all ranks must stop at the same step). */
static int stop_requested(run_state *r) {
    double s = r->opt->stop && *r->opt->stop ? 1 : 0;
    char err[128];
    if (r->K > 1 && r->comm->allreduce_double(r->comm, &s, err, sizeof err) != 0) return 1;
    return s > 0;
}

int tta_replay_run(const tta_replay_spec *spec, uint64_t seed, const tta_replay_options *opt, tta_replay_result *out,
                   char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    out->seed = seed;
    out->tta_s = NAN;
    run_state R = {.spec = spec, .opt = opt, .comm = opt->comm, .K = 1};
    run_state *r = &R;
    if (r->comm) {
        r->K = r->comm->size;
        r->rank = r->comm->rank;
    }
    out->workers = r->K;
    int max_epochs = opt->max_epochs > 0 ? opt->max_epochs : spec->max_epochs;
    const char *system = opt->system ? opt->system : "local";
    int c, h, w, classes;
    if (tta_replay_input_shape(spec, &c, &h, &w, &classes) != 0) {
        snprintf(err, errlen, "dataset kind \"%s\": unknown", spec->dataset_kind ? spec->dataset_kind : "");
        return -1;
    }

    /* The log: <dir>/replay/results/<system>/<benchmark>/result_<seed>.txt, a results layout
     * that ingest reads like a published entry (round from the log's tta_round). */
    char ckpt_path[1100] = "";
    tta_replay_checkpoint_path(spec, seed, opt, ckpt_path, sizeof ckpt_path);
    if (r->rank == 0) {
        buf dir = {0};
        buf_printf(&dir, "%s/replay/results/%s/%s", opt->log_dir ? opt->log_dir : ".", system, spec->benchmark);
        char *slash = strrchr(ckpt_path, '/');
        *slash = '\0';
        int bad = make_dirs(buf_str(&dir)) != 0 || (!opt->no_checkpoint && make_dirs(ckpt_path) != 0);
        *slash = '/';
        if (bad) {
            snprintf(err, errlen, "%s: cannot create: %s", buf_str(&dir), strerror(errno));
            buf_free(&dir);
            return -1;
        }
        snprintf(out->log, sizeof out->log, "%s/result_%llu.txt", buf_str(&dir), (unsigned long long)seed);
        buf_free(&dir);
    }

    /* Untimed: the model and the optimizer. */
    tta_model_config mc = {.backend = opt->device ? opt->device : "cpu", .backend_options = {.threads = opt->threads},
                           .channels = c, .height = h, .width = w, .classes = classes, .batch = spec->batch_size,
                           .eval_batch = 1000, .seed = seed, .overrides = spec->model_params,
                           .label_smoothing = -1};
    if (tta_model_build(&r->m, spec->model, &mc, err, errlen) != 0) return -1;
    r->be = tta_model_backend(r->m);
    tta_model_init_params(r->m, seed);
    r->info = tta_model_param_info(r->m, &r->n_tensors);
    r->tensors = callocCheck((size_t)r->n_tensors + 1, sizeof *r->tensors);
    /* Weight decay on every tensor, as PyTorch's optimizers apply it unless told otherwise (the
     * DAWNBench recipes replayed here do); LARS still skips biases and batch-norm parameters. */
    for (int i = 0; i < r->n_tensors; i++)
        r->tensors[i] = (tta_param_tensor){r->info[i].offset, r->info[i].count,
                                           spec->optimizer.kind == TTA_OPT_LARS ? r->info[i].kind == TTA_PARAM_WEIGHT : 1};
    size_t np = tta_model_num_params(r->m);
    if (tta_optim_init(&r->optim, &spec->optimizer, np) != 0) {
        snprintf(err, errlen, "optimizer: invalid settings");
        free_state(r);
        return -1;
    }
    if (!r->be->host_memory) { /* the optimizer runs on host copies */
        r->host_params = mallocCheck((np ? np : 1) * sizeof(float));
        r->host_grads = mallocCheck((np ? np : 1) * sizeof(float));
    }
    /* Every rank starts from rank 0's weights. */
    if (r->K > 1 && broadcast_floats(r, tta_model_params(r->m), np, err, errlen) != 0) {
        free_state(r);
        return -1;
    }
    if (r->K > 1 && r->be->host_memory) {
        make_buckets(r);
        tta_model_set_grad_hook(r->m, grad_ready, r);
    }

    /* Resume: the checkpoint, then the log cut back to the same epoch. */
    ckpt_header ck = {0};
    int resumed = 0;
    if (opt->resume) {
        resumed = load_checkpoint(r, ckpt_path, seed, &ck, err, errlen);
        if (resumed < 0) {
            free_state(r);
            return -1;
        }
        if (resumed && r->rank == 0) {
            struct stat st;
            if (stat(out->log, &st) != 0 || st.st_size < ck.log_bytes) {
                snprintf(err, errlen, "%s: the log of the checkpointed run is missing or shorter than the checkpoint",
                         out->log);
                free_state(r);
                return -1;
            }
        }
    }
    if (r->rank == 0) {
        if (resumed) {
            r->clock.offset_ms = ck.log_time_ms - tta_mllog_wall_clock(NULL);
            r->log = tta_mllog_open_at(out->log, (long)ck.log_bytes, shifted_clock, &r->clock);
        } else {
            r->log = tta_mllog_open(out->log, shifted_clock, &r->clock);
        }
        if (!r->log) {
            snprintf(err, errlen, "%s: cannot write: %s", out->log, strerror(errno));
            free_state(r);
            return -1;
        }
    }
    tta_mllog *log = r->log; /* NULL on ranks other than 0: the tta_mllog_* calls below are skipped */
    int global_batch = spec->batch_size * r->K;
    if (log && !resumed) {
        tta_mllog_string(log, "tta_round", "local");
        tta_mllog_string(log, "submission_benchmark", spec->benchmark);
        tta_mllog_string(log, "submission_org", "replay");
        tta_mllog_string(log, "submission_division", "open");
        tta_mllog_string(log, "submission_platform", system);
        tta_mllog_string(log, "submission_status", "onprem");
        tta_mllog_event_json(log, TTA_MLLOG_START, "init_start", "null", NULL);
        tta_mllog_number(log, "seed", (double)seed);
        tta_mllog_number(log, "global_batch_size", global_batch);
        tta_mllog_number(log, "tta_world_size", r->K);
        if (spec->origin) tta_mllog_string(log, "tta_replay_of", spec->origin);
        tta_mllog_number(log, "tta_local_batch_size", spec->batch_size);
        tta_mllog_number(log, "opt_base_learning_rate",
                         tta_lr_at(&spec->schedule, spec->schedule.warmup_epochs) *
                             tta_replay_lr_factor(spec, r->K, 1e9));
        tta_mllog_number(log, "opt_momentum", spec->optimizer.momentum);
        tta_mllog_number(log, "opt_weight_decay", spec->optimizer.weight_decay);
        tta_mllog_number(log, "eval_target", spec->target);
        /* analytic FLOPs (engine.h), for achieved GFLOP/s next to samples/s */
        tta_mllog_number(log, "tta_train_flops_per_sample", tta_model_train_flops(r->m) / spec->batch_size);
        tta_mllog_number(log, "tta_eval_flops_per_sample", tta_model_eval_flops_per_sample(r->m));
        tta_mllog_event_json(log, TTA_MLLOG_END, "init_stop", "null", NULL);
        tta_mllog_event_json(log, TTA_MLLOG_START, "run_start", "null", NULL);
    }

    /* Timed from here: data are touched. */
    double t0 = now_s() - (resumed ? ck.elapsed_s : 0);
    tta_dataset train, unseen, val;
    if (tta_replay_load_data(spec, &train, &unseen, &val, err, errlen) != 0) {
        if (log) tta_mllog_run_stop(log, 0);
        free_state(r);
        return -1;
    }
    int rc = 0;
    if (train.c != c || train.h != h || train.w != w || train.classes > classes || val.c != c) {
        snprintf(err, errlen, "%s: images of %dx%dx%d with %d classes, the recipe expects %dx%dx%d with %d",
                 spec->dataset_path ? spec->dataset_path : spec->dataset_kind, train.c, train.h, train.w,
                 train.classes, c, h, w, classes);
        rc = -1;
    }
    tta_dataset used = spec->train_subset > 0 && (size_t)spec->train_subset < train.n
                           ? tta_data_view(&train, 0, (size_t)spec->train_subset)
                           : tta_data_view(&train, 0, train.n);
    if (log && !resumed) {
        tta_mllog_number(log, "train_samples", (double)used.n);
        tta_mllog_number(log, "eval_samples", (double)val.n);
        size_t img_bytes = (size_t)c * h * w * sizeof(float) + sizeof(int32_t);
        log_memory(r, (train.n + unseen.n + val.n) * img_bytes);
    }
    /* Per-layer timers (a clock read around each op; free on host backends, while a device
     * backend would have to synchronise, so they stay off there). */
    if (r->be->host_memory) tta_model_set_profiling(r->m, 1);
    long steps_run = 0;

    size_t bs = (size_t)spec->batch_size, gbs = bs * (size_t)r->K;
    size_t *order = mallocCheck((used.n ? used.n : 1) * sizeof *order);
    uint64_t rng = seed * 0x2545F4914F6CDD1DULL + 1;
    size_t steps_per_epoch = used.n / gbs; /* the last partial batch is dropped, as drop_last */
    if (rc == 0 && steps_per_epoch == 0) {
        snprintf(err, errlen, "%zu training images make no global batch of %zu", used.n, gbs);
        rc = -1;
    }
    tta_augment aug = {.crop_pad = spec->crop_pad, .flip = spec->flip};
    double train_time = 0, sums[8] = {0};
    long trained = 0;
    int epoch = resumed ? ck.epoch : 0;
    if (resumed) {
        rng = ck.rng;
        train_time = ck.train_time;
        trained = (long)ck.trained;
        out->val_acc = ck.val_acc;
        memcpy(sums, ck.sums, sizeof sums);
        out->resumed_from = ck.epoch;
        out->epochs = ck.epoch;
        out->reached = ck.val_acc >= spec->target * (1 - 1e-6);
    }
    float *g_dev = tta_model_grads(r->m);
    int stop_logged = 0; /* run_stop written (to_schedule_end: at the target, before the schedule ends) */
    if (resumed && out->reached) out->target_epoch = ck.epoch;
    while (rc == 0 && (!out->reached || opt->to_schedule_end) && epoch < max_epochs) {
        epoch++;
        if (log) tta_mllog_epoch_event(log, TTA_MLLOG_START, "epoch_start", epoch);
        phase_times pt = {0};
        double te = now_s();
        for (size_t i = 0; i < used.n; i++) order[i] = i;
        for (size_t i = used.n; i > 1; i--) { /* Fisher–Yates */
            size_t j = (size_t)(next_u64(&rng) % i), t = order[i - 1];
            order[i - 1] = order[j];
            order[j] = t;
        }
        uint64_t step0 = (uint64_t)(epoch - 1) * steps_per_epoch;
        tta_model_set_dropout_step(r->m, step0);
        tta_loader *ld = tta_loader_start(&used, order, steps_per_epoch, gbs, bs * (size_t)r->rank, bs, &aug, seed,
                                          step0, !opt->no_loader_thread);
        double loss_sum = 0;
        size_t s = 0;
        const float *x;
        const int32_t *y;
        double wait;
        for (; s < steps_per_epoch; s++) {
            if (stop_requested(r)) {
                out->interrupted = 1;
                break;
            }
            if (!tta_loader_next(ld, &x, &y, &wait)) break;
            pt.data += wait;
            double ta = now_s();
            tta_step_result res;
            if (tta_model_forward(r->m, x, y, (int)bs, 1, &res) != 0) {
                snprintf(err, errlen, "forward failed at epoch %d", epoch);
                rc = -1;
                break;
            }
            double tb = now_s();
            pt.forward += tb - ta;
            loss_sum += res.loss;
            if (r->buckets) reset_buckets(r);
            tta_model_backward(r->m);
            double tc = now_s();
            pt.backward += tc - tb - r->hook_comm;
            double lr_epochs = (double)(epoch - 1) + (double)(s + 1) / (double)steps_per_epoch;
            double lr = tta_lr_at(&spec->schedule, lr_epochs) * tta_replay_lr_factor(spec, r->K, lr_epochs);
            double comm_before = pt.comm_exposed;
            if (r->buckets) {
                if (finish_buckets(r, &pt.comm_exposed, &pt.comm_total, err, errlen) != 0) rc = -1;
            } else if (r->K > 1 && !strcmp(r->comm->name, "nccl")) {
                if (allreduce_blocking(r, g_dev, np, &pt.comm_exposed, &pt.comm_total, err, errlen) != 0) rc = -1;
            }
            if (rc) break;
            double td = now_s();
            if (r->be->host_memory) {
                tta_optim_step(&r->optim, tta_model_params(r->m), g_dev, r->tensors, (size_t)r->n_tensors, lr);
            } else {
                r->be->download(r->be->ctx, r->host_grads, g_dev, np * sizeof(float));
                if (r->K > 1 && strcmp(r->comm->name, "nccl")) {
                    double t_c = now_s();
                    if (allreduce_blocking(r, r->host_grads, np, &pt.comm_exposed, &pt.comm_total, err, errlen)) {
                        rc = -1;
                        break;
                    }
                    td += now_s() - t_c;
                }
                if (r->K > 1)
                    for (size_t i = 0; i < np; i++) r->host_grads[i] /= (float)r->K;
                r->be->download(r->be->ctx, r->host_params, tta_model_params(r->m), np * sizeof(float));
                tta_optim_step(&r->optim, r->host_params, r->host_grads, r->tensors, (size_t)r->n_tensors, lr);
                r->be->upload(r->be->ctx, tta_model_params(r->m), r->host_params, np * sizeof(float));
            }
            pt.optimizer += now_s() - td;
            steps_run++;
            (void)comm_before;
        }
        tta_loader_free(ld);
        if (rc) break;
        pt.epoch = now_s() - te;
        train_time += pt.epoch;
        trained += (long)(s * gbs);
        if (out->interrupted) break;
        if (log) tta_mllog_epoch_event(log, TTA_MLLOG_END, "epoch_stop", epoch);
        double samples_s = (double)(s * gbs) / pt.epoch;
        if (log) tta_mllog_epoch_value(log, "tta_epoch_throughput", samples_s, epoch);
        if (log) tta_mllog_epoch_event(log, TTA_MLLOG_START, "eval_start", epoch);
        double tv = now_s();
        out->val_acc = accuracy(r, &val);
        pt.eval = now_s() - tv;
        if (log) tta_mllog_epoch_event(log, TTA_MLLOG_END, "eval_stop", epoch);
        if (log) tta_mllog_epoch_value(log, "eval_accuracy", out->val_acc, epoch);
        /* Each rank's communication time, gathered by sums of one-hot vectors (K is small). */
        double *rank_comm = callocCheck((size_t)r->K, sizeof *rank_comm);
        for (int k = 0; k < r->K; k++) {
            rank_comm[k] = k == r->rank ? pt.comm_total : 0;
            if (r->K > 1) r->comm->allreduce_double(r->comm, &rank_comm[k], err, errlen);
        }
        if (r->K > 1) { /* the mean loss over the global batches */
            r->comm->allreduce_double(r->comm, &loss_sum, err, errlen);
            loss_sum /= r->K;
        }
        if (log) log_breakdown(r, &pt, rank_comm, epoch);
        free(rank_comm);
        if (log && s) tta_mllog_epoch_value(log, "tta_train_loss", loss_sum / (double)s, epoch);
        const double ph[6] = {pt.data, pt.forward, pt.backward, pt.optimizer, pt.comm_exposed, pt.comm_total};
        for (int i = 0; i < 6; i++) sums[i] += ph[i];
        out->epochs = epoch;
        if (opt->progress && r->rank == 0)
            fprintf(opt->progress, "seed %llu epoch %d: loss %.4f  val %.2f%%  %.0f samples/s\n",
                    (unsigned long long)seed, epoch, s ? loss_sum / (double)s : NAN, out->val_acc * 100, samples_s);
        if (isnan(out->val_acc)) {
            snprintf(err, errlen, "evaluation failed at epoch %d", epoch);
            rc = -1;
            break;
        }
        if (!out->reached && out->val_acc >= spec->target * (1 - 1e-6)) {
            out->reached = 1;
            out->target_epoch = epoch;
            /* DAWNBench-style: the clock of the TTA stops here, the schedule goes on */
            if (opt->to_schedule_end && epoch < max_epochs) {
                out->tta_s = now_s() - t0;
                if (log) tta_mllog_run_stop(log, 1);
                stop_logged = 1;
            }
        }
        if (!opt->no_checkpoint && r->rank == 0) {
            ck = (ckpt_header){.seed = seed, .spec_hash = spec_hash(spec, r->K), .epoch = epoch, .workers = r->K,
                               .batch = (int32_t)bs, .nparams = np, .nbuffers = tta_model_num_buffers(r->m),
                               .nstate = tta_optim_state_bytes(&r->optim) / sizeof(float),
                               .optim_step = r->optim.step, .rng = rng, .log_bytes = tta_mllog_offset(log),
                               .log_time_ms = shifted_clock(&r->clock), .elapsed_s = now_s() - t0,
                               .train_time = train_time, .val_acc = out->val_acc, .trained = trained};
            memcpy(ck.magic, CKPT_MAGIC, 8);
            memcpy(ck.sums, sums, sizeof sums);
            if (save_checkpoint(r, ckpt_path, &ck, err, errlen) != 0) rc = -1;
        }
    }
    out->wall_s = now_s() - t0;
    if (!out->reached || (out->interrupted && !stop_logged)) out->tta_s = NAN;
    else if (!stop_logged) out->tta_s = out->wall_s; /* run_stop comes now, as the log says */
    if (log && rc == 0 && r->be->host_memory) log_layer_profile(r, steps_run);
    if (log && !stop_logged) tta_mllog_run_stop(log, out->reached && !out->interrupted);
    out->samples_per_s = train_time > 0 ? (double)trained / train_time : NAN;
    out->comm_share = train_time > 0 ? sums[4] / train_time : NAN;
    out->comm_total_share = train_time > 0 ? sums[5] / train_time : NAN;
    out->data_share = train_time > 0 ? sums[0] / train_time : NAN;

    /* Generalization, untimed: data never trained on nor used for the target. */
    if (rc == 0) {
        tta_dataset shifted = tta_data_shifted(&unseen, 2, 0.05, 0x5eed);
        out->unseen_acc = accuracy(r, &unseen);
        out->shifted_acc = accuracy(r, &shifted);
        if (log) tta_mllog_number(log, "tta_unseen_accuracy", out->unseen_acc);
        if (log) tta_mllog_number(log, "tta_shifted_accuracy", out->shifted_acc);
        tta_dataset_free(&shifted);
    }
    if (rc == 0 && opt->final_params && opt->final_params_count >= np)
        r->be->download(r->be->ctx, opt->final_params, tta_model_params(r->m), np * sizeof(float));
    /* A finished run (reached or at its limit) needs no checkpoint; an interrupted one keeps it. */
    if (rc == 0 && !out->interrupted && !opt->no_checkpoint && r->rank == 0) remove(ckpt_path);
    if (log) {
        r->log = NULL;
        if (tta_mllog_close(log) != 0 && rc == 0) {
            snprintf(err, errlen, "%s: writing the log failed", out->log);
            rc = -1;
        }
    }
    tta_dataset_free(&unseen);
    tta_dataset_free(&val);
    tta_dataset_free(&train);
    free(order);
    free_state(r);
    return rc;
}
