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
 * The step itself, with the gradients' exchange among the ranks, is the session's
 * (session.h). Batch-norm statistics stay per rank during training, as published entries do; before each
 * evaluation rank 0's running statistics are broadcast (as PyTorch's DDP broadcasts buffers), and
 * every rank evaluates a slice of the split, the hits summed.
 *
 * Checkpoints (checkpoint.h): after every epoch, <log_dir>/replay/checkpoints/<system>/<benchmark>/
 * seed_<s>.ckpt holds parameters, buffers, optimizer state, the shuffle generator, the clock and
 * the length of the log; --resume cuts the log back to it and continues with the clock where it
 * stopped.
 *
 * A run: set_up (untimed: output tree, session, log), load_data (the clock starts), then per
 * epoch train_epoch, evaluate and checkpoint, and finish.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/buf.h"
#include "common/check.h"
#include "common/profile_json.h"
#include "common/replay_log.h"
#include "replay/checkpoint.h"
#include "replay/data.h"
#include "replay/engine.h"
#include "replay/mllog.h"
#include "replay/replay.h"
#include "replay/session.h"

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

/* Seconds of one epoch by phase, summed over its steps. */
typedef struct {
    double data, forward, backward, optimizer, comm_exposed, comm_total, eval, epoch;
} phase_times;

typedef struct {
    const tta_replay_spec *spec;
    const tta_replay_options *opt;
    uint64_t seed;
    tta_replay_result *out;
    tta_session s;
    int K, rank, max_epochs;
    tta_mllog *log;          /* rank 0 only: NULL elsewhere, and the tta_mllog_* calls are skipped */
    log_clock clock;
    char ckpt_path[1100];
    tta_ckpt_header ck;      /* the checkpoint resumed from (resumed = 1) */
    int resumed;
    int c, h, w, classes;    /* the recipe's input shape */
    tta_dataset train, unseen, val, used; /* used: the trained part of train */
    size_t *order;           /* the epoch's shuffle */
    uint64_t rng;
    size_t bs, gbs, steps_per_epoch;
    double t0;               /* the clock's start (run_start; moved back on resume) */
    double train_time, sums[8];
    long trained, steps_run;
    size_t changes_logged;   /* auto threads: the session's thread changes already in the log */
    int epoch, stop_logged;  /* stop_logged: run_stop written at the target (to_schedule_end) */
    int no_data;             /* the data could not be read: the run ends before its first step */
} run_state;

/* ------------------------------------------------------------------------------------------ */
/* The run                                                                                      */

/* Writes the time breakdown record of one epoch (TTA_KEY_EPOCH_BREAKDOWN: seconds summed over the
 * epoch's steps, the members common/replay_log.h names; TTA_BREAKDOWN_RANK_COMM: each rank's
 * communication time). */
static void log_breakdown(run_state *r, const phase_times *pt, const double *rank_comm, int epoch) {
    buf v = {0}, meta = {0};
    const double vals[TTA_BREAKDOWN_FIELDS] = {
        [TTA_BREAKDOWN_EPOCH_S] = pt->epoch,
        [TTA_BREAKDOWN_DATA_S] = pt->data,
        [TTA_BREAKDOWN_FORWARD_S] = pt->forward,
        [TTA_BREAKDOWN_BACKWARD_S] = pt->backward,
        [TTA_BREAKDOWN_OPTIMIZER_S] = pt->optimizer,
        [TTA_BREAKDOWN_COMM_EXPOSED_S] = pt->comm_exposed,
        [TTA_BREAKDOWN_COMM_TOTAL_S] = pt->comm_total,
        [TTA_BREAKDOWN_EVAL_S] = pt->eval,
    };
    for (int i = 0; i < TTA_BREAKDOWN_FIELDS; i++) {
        buf_printf(&v, "%s\"%s\": ", i ? ", " : "{", tta_breakdown_names[i]);
        buf_json_number(&v, vals[i]);
    }
    buf_puts(&v, ", \"" TTA_BREAKDOWN_RANK_COMM "\": [");
    for (int k = 0; k < r->K; k++) {
        if (k) buf_puts(&v, ", ");
        buf_json_number(&v, rank_comm[k]);
    }
    buf_puts(&v, "]}");
    buf_printf(&meta, "\"epoch_num\": %d", epoch);
    tta_mllog_event_json(r->log, TTA_MLLOG_POINT, TTA_KEY_EPOCH_BREAKDOWN, buf_str(&v), buf_str(&meta));
    buf_free(&v);
    buf_free(&meta);
    for (; r->changes_logged < r->s.n_changes; r->changes_logged++) {
        const tta_thread_change *c = &r->s.changes[r->changes_logged];
        buf_printf(&v, "{\"step\": %ld, \"t_s\": ", c->step);
        buf_json_number(&v, c->t_s);
        buf_printf(&v, ", \"from\": %d, \"to\": %d, \"others_cores\": ", c->from, c->to);
        buf_json_number(&v, c->others);
        buf_puts(&v, "}");
        buf_printf(&meta, "\"epoch_num\": %d", epoch);
        tta_mllog_event_json(r->log, TTA_MLLOG_POINT, TTA_KEY_THREAD_CHANGE, buf_str(&v), buf_str(&meta));
        buf_free(&v);
        buf_free(&meta);
    }
}

/* The tta_memory record (TTA_KEY_MEMORY): bytes by category, exact from the trainer's
 * allocations (as `tta profile` reports them, under the same names: common/profile_json.h), the
 * categories of tta_replay_memory in its order (common/replay_log.h). */
static void log_memory(run_state *r, size_t data_bytes) {
    size_t mem[TTA_MEM_COUNT];
    tta_model_memory(r->s.m, mem);
    size_t bytes[TTA_PMEM_COUNT] = {
        [TTA_PMEM_WEIGHTS] = mem[TTA_MEM_WEIGHTS],
        [TTA_PMEM_BUFFERS] = mem[TTA_MEM_BUFFERS],
        [TTA_PMEM_WEIGHT_GRADS] = mem[TTA_MEM_WEIGHT_GRADS],
        [TTA_PMEM_OPTIMIZER_STATE] = tta_optim_state_bytes(&r->s.optim),
        [TTA_PMEM_FEATURE_MAPS] = mem[TTA_MEM_ACTIVATIONS] + mem[TTA_MEM_ACT_GRADS] + mem[TTA_MEM_SAVED],
        [TTA_PMEM_WORKSPACE] = mem[TTA_MEM_WORKSPACE],
        [TTA_PMEM_EVAL] = mem[TTA_MEM_EVAL],
        [TTA_PMEM_DATA] = data_bytes,
    };
    buf v = {0};
    for (int i = 0; i < TTA_REPLAY_MEMORY_CATEGORIES; i++)
        buf_printf(&v, "%s\"%s\": %zu", i ? ", " : "{", tta_profile_memory_names[tta_replay_memory[i]],
                   bytes[tta_replay_memory[i]]);
    buf_putc(&v, '}');
    tta_mllog_event_json(r->log, TTA_MLLOG_POINT, TTA_KEY_MEMORY, buf_str(&v), NULL);
    buf_free(&v);
}

/* The tta_layer_profile record (TTA_KEY_LAYER_PROFILE): per layer, analytic FLOPs and bytes of one training step and the
 * measured seconds per step, averaged over the run's steps (the model's per-op timers; a layer
 * fused into another has no time of its own); members named as a profile's layers are. */
static void log_layer_profile(run_state *r, long steps) {
    int nl;
    const tta_layer_stats *st = tta_model_layer_stats(r->s.m, &nl);
    buf v = {0};
    buf_printf(&v, "{\"" TTA_LAYER_PROFILE_STEPS "\": %ld, \"" TTA_PROFILE_LAYERS "\": [", steps);
    for (int i = 0; i < nl; i++) {
        buf_puts(&v, i ? ", {\"" TTA_LAYER_NAME "\": " : "{\"" TTA_LAYER_NAME "\": ");
        buf_json_string(&v, st[i].name, strlen(st[i].name));
        buf_puts(&v, ", \"" TTA_LAYER_TYPE "\": ");
        buf_json_string(&v, st[i].type, strlen(st[i].type));
        buf_printf(&v, ", \"%s\": ", tta_profile_layer_names[TTA_LAYER_FLOPS]);
        buf_json_number(&v, st[i].flops_fwd + st[i].flops_bwd);
        buf_printf(&v, ", \"%s\": ", tta_profile_layer_names[TTA_LAYER_BYTES]);
        buf_json_number(&v, st[i].bytes_fwd + st[i].bytes_bwd);
        buf_printf(&v, ", \"%s\": ", tta_profile_layer_names[TTA_LAYER_TIME_S]);
        buf_json_number(&v, steps > 0 ? (st[i].time_fwd + st[i].time_bwd) / (double)steps : 0);
        buf_puts(&v, "}");
    }
    buf_puts(&v, "]}");
    tta_mllog_event_json(r->log, TTA_MLLOG_POINT, TTA_KEY_LAYER_PROFILE, buf_str(&v), NULL);
    buf_free(&v);
}

/* 1 when any rank was asked to stop (all ranks must stop at the same step). */
static int stop_requested(run_state *r) {
    double s = r->opt->stop && *r->opt->stop ? 1 : 0;
    char err[128];
    if (tta_session_sum(&r->s, &s, err, sizeof err) != 0) return 1;
    return s > 0;
}

/* The output tree of the run on rank 0: the log <dir>/replay/results/<system>/<benchmark>/
 * result_<seed>.txt (a results layout that ingest reads like a published entry, round from the
 * log's tta_round), and the checkpoints' folder. */
static int make_output_tree(run_state *r, tta_error *err) {
    const tta_replay_options *opt = r->opt;
    tta_replay_checkpoint_path(r->spec, r->seed, opt, r->ckpt_path, sizeof r->ckpt_path);
    if (r->rank != 0) return TTA_OK;
    buf dir = {0};
    buf_printf(&dir, "%s/replay/results/%s/%s", opt->log_dir ? opt->log_dir : ".", opt->system ? opt->system : "local",
               r->spec->benchmark);
    char *slash = strrchr(r->ckpt_path, '/');
    *slash = '\0';
    int bad = make_dirs(buf_str(&dir)) != 0 || (!opt->no_checkpoint && make_dirs(r->ckpt_path) != 0);
    *slash = '/';
    int rc = TTA_OK;
    if (bad) rc = tta_fail(err, TTA_EIO, "%s: cannot create: %s", buf_str(&dir), strerror(errno));
    else snprintf(r->out->log, sizeof r->out->log, "%s/result_%llu.txt", buf_str(&dir), (unsigned long long)r->seed);
    buf_free(&dir);
    return rc;
}

/* A fresh run's log: result_<seed>.txt where no earlier replay left that name, else
 * result_<N>.txt with N past every result_<n>.txt of the folder, so that a replay never
 * overwrites an earlier one's log (its runs join the entry with new indices; the log carries its
 * seed). With checkpoints, <checkpoint>.log names the log, for --resume. */
static void choose_log_name(run_state *r) {
    struct stat st;
    if (stat(r->out->log, &st) == 0) {
        char *slash = strrchr(r->out->log, '/');
        *slash = '\0';
        long next = 0;
        DIR *d = opendir(r->out->log);
        struct dirent *de;
        while (d && (de = readdir(d)) != NULL) {
            char *end;
            if (strncmp(de->d_name, "result_", 7) || !isdigit((unsigned char)de->d_name[7])) continue;
            long n = strtol(de->d_name + 7, &end, 10);
            if (!strcmp(end, ".txt") && n >= next) next = n + 1;
        }
        if (d) closedir(d);
        *slash = '/';
        snprintf(slash + 1, sizeof r->out->log - (size_t)(slash + 1 - r->out->log), "result_%ld.txt", next);
    }
    if (r->opt->no_checkpoint) return;
    char side[sizeof r->ckpt_path + 8];
    snprintf(side, sizeof side, "%s.log", r->ckpt_path);
    FILE *f = fopen(side, "w");
    if (f) {
        fputs(r->out->log, f);
        fclose(f);
    }
}

/* The log a checkpoint belongs to (its <checkpoint>.log), when it names one; else the log keeps
 * its default name (checkpoints of older builds). */
static void checkpointed_log_name(run_state *r) {
    char side[sizeof r->ckpt_path + 8], name[sizeof r->out->log];
    snprintf(side, sizeof side, "%s.log", r->ckpt_path);
    FILE *f = fopen(side, "r");
    if (!f) return;
    if (fgets(name, sizeof name, f) && name[0]) snprintf(r->out->log, sizeof r->out->log, "%s", name);
    fclose(f);
}

/* Resume: the checkpoint, then the log cut back to the same epoch; else a new log (never over an
 * earlier replay's: choose_log_name). */
static int open_log(run_state *r, tta_error *err) {
    if (r->opt->resume) {
        int rc = tta_ckpt_load(&r->s, r->ckpt_path, r->spec, r->seed, &r->ck, &r->resumed, err);
        if (rc != TTA_OK) return rc;
        if (r->resumed && r->rank == 0) checkpointed_log_name(r);
        struct stat st;
        if (r->resumed && r->rank == 0 && (stat(r->out->log, &st) != 0 || st.st_size < r->ck.log_bytes))
            return tta_fail(err, TTA_EINPUT,
                            "%s: the log of the checkpointed run is missing or shorter than the checkpoint",
                            r->out->log);
    }
    if (r->rank != 0) return TTA_OK;
    if (!r->resumed) choose_log_name(r);
    if (r->resumed) {
        r->clock.offset_ms = r->ck.log_time_ms - tta_mllog_wall_clock(NULL);
        r->log = tta_mllog_open_at(r->out->log, (long)r->ck.log_bytes, shifted_clock, &r->clock);
    } else {
        r->log = tta_mllog_open(r->out->log, shifted_clock, &r->clock);
    }
    if (!r->log) return tta_fail(err, TTA_EIO, "%s: cannot write: %s", r->out->log, strerror(errno));
    return TTA_OK;
}

/* The log's opening records, up to run_start (untimed: the model exists, data are untouched). */
static void log_header(run_state *r) {
    const tta_replay_spec *spec = r->spec;
    tta_mllog *log = r->log;
    tta_mllog_string(log, TTA_KEY_ROUND, TTA_REPLAY_ROUND);
    tta_mllog_string(log, "submission_benchmark", spec->benchmark);
    tta_mllog_string(log, "submission_org", TTA_REPLAY_SUBMITTER);
    tta_mllog_string(log, "submission_division", "open");
    tta_mllog_string(log, "submission_platform", r->opt->system ? r->opt->system : "local");
    tta_mllog_string(log, "submission_status", "onprem");
    tta_mllog_event_json(log, TTA_MLLOG_START, "init_start", "null", NULL);
    tta_mllog_number(log, "seed", (double)r->seed);
    tta_mllog_number(log, "global_batch_size", spec->batch_size * r->K);
    tta_mllog_number(log, TTA_KEY_WORLD_SIZE, r->K);
    if (r->s.auto_max) tta_mllog_number(log, TTA_KEY_THREADS_AUTO, r->s.auto_max);
    if (spec->origin) tta_mllog_string(log, TTA_KEY_REPLAY_OF, spec->origin);
    /* how the run ends, so that a report reading the stored run compares it as it ran: 1 goes on
     * past the target to the schedule's end (DAWNBench, `tta verify`), 0 stops there (MLPerf) */
    tta_mllog_number(log, TTA_KEY_TO_SCHEDULE_END, r->opt->to_schedule_end ? 1 : 0);
    tta_mllog_number(log, "tta_local_batch_size", spec->batch_size);
    tta_mllog_number(log, "opt_base_learning_rate",
                     tta_lr_at(&spec->schedule, spec->schedule.warmup_epochs) * tta_replay_lr_factor(spec, r->K, 1e9));
    tta_mllog_number(log, "opt_momentum", spec->optimizer.momentum);
    tta_mllog_number(log, "opt_weight_decay", spec->optimizer.weight_decay);
    tta_mllog_number(log, "eval_target", spec->target);
    if (spec->input_std > 0) {
        tta_mllog_number(log, "tta_input_mean", spec->input_mean);
        tta_mllog_number(log, "tta_input_std", spec->input_std);
    }
    /* analytic FLOPs (engine.h), for achieved GFLOP/s next to samples/s */
    tta_mllog_number(log, "tta_train_flops_per_sample", tta_model_train_flops(r->s.m) / spec->batch_size);
    tta_mllog_number(log, "tta_eval_flops_per_sample", tta_model_eval_flops_per_sample(r->s.m));
    tta_mllog_event_json(log, TTA_MLLOG_END, "init_stop", "null", NULL);
    tta_mllog_event_json(log, TTA_MLLOG_START, "run_start", "null", NULL);
}

/* Untimed set-up: the output tree, the session (model, optimizer, exchange), the log. */
static int set_up(run_state *r, tta_error *err) {
    const tta_replay_spec *spec = r->spec;
    if (tta_replay_input_shape(spec, &r->c, &r->h, &r->w, &r->classes) != 0)
        return tta_fail(err, TTA_EINPUT, "dataset kind \"%s\": unknown", spec->dataset_kind ? spec->dataset_kind : "");
    int rc = make_output_tree(r, err);
    if (rc != TTA_OK) return rc;
    tta_session_config sc = {.model = spec->model, .overrides = spec->model_params, .device = r->opt->device,
                             .backend_options = {.threads = r->opt->threads}, .channels = r->c, .height = r->h,
                             .width = r->w, .classes = r->classes, .batch = spec->batch_size, .eval_batch = 1000,
                             .seed = r->seed, .optimizer = &spec->optimizer, .comm = r->opt->comm,
                             .auto_threads = r->opt->auto_threads ? r->opt->threads : 0};
    char why[TTA_ERROR_TEXT];
    if (tta_session_open(&r->s, &sc, why, sizeof why) != 0) return tta_fail(err, TTA_EINPUT, "%s", why);
    if ((rc = open_log(r, err)) != TTA_OK) return rc;
    if (r->log && !r->resumed) log_header(r);
    return TTA_OK;
}

/* Timed from here: the data are read (r->no_data when they could not be), the shuffle and the
 * batches set up, a resumed run's counters restored. */
static int load_data(run_state *r, tta_error *err) {
    const tta_replay_spec *spec = r->spec;
    r->t0 = now_s() - (r->resumed ? r->ck.elapsed_s : 0);
    int rc = tta_replay_load_data(spec, &r->train, &r->unseen, &r->val, err);
    if (rc != TTA_OK) {
        r->no_data = 1;
        return rc;
    }
    const tta_dataset *t = &r->train;
    if (t->c != r->c || t->h != r->h || t->w != r->w || t->classes > r->classes || r->val.c != r->c)
        return tta_fail(err, TTA_EINPUT, "%s: images of %dx%dx%d with %d classes, the recipe expects %dx%dx%d with %d",
                        spec->dataset_path ? spec->dataset_path : spec->dataset_kind, t->c, t->h, t->w, t->classes,
                        r->c, r->h, r->w, r->classes);
    size_t n = spec->train_subset > 0 && (size_t)spec->train_subset < t->n ? (size_t)spec->train_subset : t->n;
    r->used = tta_data_view(t, 0, n);
    if (r->log && !r->resumed) {
        tta_mllog_number(r->log, "train_samples", (double)r->used.n);
        tta_mllog_number(r->log, "eval_samples", (double)r->val.n);
        size_t img_bytes = (size_t)r->c * r->h * r->w * sizeof(float) + sizeof(int32_t);
        log_memory(r, (t->n + r->unseen.n + r->val.n) * img_bytes);
    }
    /* Per-layer timers (a clock read around each op; free on host backends, while a device
     * backend would have to synchronise, so they stay off there). */
    if (r->s.be->ops->host_memory) tta_model_set_profiling(r->s.m, 1);
    r->bs = (size_t)spec->batch_size;
    r->gbs = r->bs * (size_t)r->K;
    r->order = mallocCheck((r->used.n ? r->used.n : 1) * sizeof *r->order);
    r->rng = r->seed * 0x2545F4914F6CDD1DULL + 1;
    r->steps_per_epoch = r->used.n / r->gbs; /* the last partial batch is dropped, as drop_last */
    if (r->steps_per_epoch == 0)
        return tta_fail(err, TTA_EINPUT, "%zu training images make no global batch of %zu", r->used.n, r->gbs);
    if (r->resumed) {
        tta_replay_result *out = r->out;
        r->rng = r->ck.rng;
        r->train_time = r->ck.train_time;
        r->trained = (long)r->ck.trained;
        memcpy(r->sums, r->ck.sums, sizeof r->sums);
        r->epoch = out->resumed_from = out->epochs = r->ck.epoch;
        out->val_acc = r->ck.val_acc;
        out->reached = r->ck.val_acc >= spec->target * (1 - 1e-6);
        if (out->reached) out->target_epoch = r->ck.epoch;
    }
    return TTA_OK;
}

/* Trains one epoch (r->epoch); *steps gets the steps run, *loss_sum their losses. */
static int train_epoch(run_state *r, phase_times *pt, size_t *steps, double *loss_sum, tta_error *err) {
    const tta_replay_spec *spec = r->spec;
    size_t n = r->used.n;
    for (size_t i = 0; i < n; i++) r->order[i] = i;
    for (size_t i = n; i > 1; i--) { /* Fisher–Yates */
        size_t j = (size_t)(next_u64(&r->rng) % i), t = r->order[i - 1];
        r->order[i - 1] = r->order[j];
        r->order[j] = t;
    }
    uint64_t step0 = (uint64_t)(r->epoch - 1) * r->steps_per_epoch;
    tta_model_set_dropout_step(r->s.m, step0);
    tta_augment aug = {.crop_pad = spec->crop_pad, .flip = spec->flip};
    tta_loader *ld = tta_loader_start(&r->used, r->order, r->steps_per_epoch, r->gbs, r->bs * (size_t)r->rank, r->bs,
                                      &aug, r->seed, step0, !r->opt->no_loader_thread);
    int rc = TTA_OK;
    size_t s = 0;
    for (; s < r->steps_per_epoch; s++) {
        if (stop_requested(r)) {
            r->out->interrupted = 1;
            break;
        }
        const float *x;
        const int32_t *y;
        double wait;
        if (!tta_loader_next(ld, &x, &y, &wait)) break;
        pt->data += wait;
        double lr_epochs = (double)(r->epoch - 1) + (double)(s + 1) / (double)r->steps_per_epoch;
        double lr = tta_lr_at(&spec->schedule, lr_epochs) * tta_replay_lr_factor(spec, r->K, lr_epochs);
        tta_step_times st = {0};
        char why[256];
        int failed = tta_session_step(&r->s, x, y, (int)r->bs, lr, &st, why, sizeof why);
        pt->forward += st.forward;
        pt->backward += st.backward;
        pt->optimizer += st.optimizer;
        pt->comm_exposed += st.comm.exposed;
        pt->comm_total += st.comm.total;
        if (failed) { /* the backend's or the comm's library failed */
            rc = tta_fail(err, TTA_EINTERNAL, "%s at epoch %d", why, r->epoch);
            break;
        }
        *loss_sum += st.loss;
        r->steps_run++;
    }
    tta_loader_free(ld);
    *steps = s;
    return rc;
}

/* The end of an epoch of s steps: evaluation, the epoch's records and progress line, the target. */
static int evaluate(run_state *r, phase_times *pt, size_t s, double loss_sum, tta_error *err) {
    tta_replay_result *out = r->out;
    tta_mllog *log = r->log;
    int epoch = r->epoch;
    if (log) tta_mllog_epoch_event(log, TTA_MLLOG_END, "epoch_stop", epoch);
    double samples_s = (double)(s * r->gbs) / pt->epoch;
    if (log) tta_mllog_epoch_value(log, "tta_epoch_throughput", samples_s, epoch);
    if (log) tta_mllog_epoch_event(log, TTA_MLLOG_START, "eval_start", epoch);
    double tv = now_s();
    out->val_acc = tta_session_accuracy(&r->s, &r->val);
    pt->eval = now_s() - tv;
    if (log) tta_mllog_epoch_event(log, TTA_MLLOG_END, "eval_stop", epoch);
    if (log) tta_mllog_epoch_value(log, "eval_accuracy", out->val_acc, epoch);
    /* Each rank's communication time, gathered by sums of one-hot vectors (K is small). */
    double *rank_comm = callocCheck((size_t)r->K, sizeof *rank_comm);
    char why[256]; /* a failed sum leaves a figure of the record wrong, not the run */
    for (int k = 0; k < r->K; k++) {
        rank_comm[k] = k == r->rank ? pt->comm_total : 0;
        tta_session_sum(&r->s, &rank_comm[k], why, sizeof why);
    }
    if (r->K > 1) { /* the mean loss over the global batches */
        tta_session_sum(&r->s, &loss_sum, why, sizeof why);
        loss_sum /= r->K;
    }
    if (log) log_breakdown(r, pt, rank_comm, epoch);
    free(rank_comm);
    if (log && s) tta_mllog_epoch_value(log, "tta_train_loss", loss_sum / (double)s, epoch);
    const double ph[6] = {pt->data, pt->forward, pt->backward, pt->optimizer, pt->comm_exposed, pt->comm_total};
    for (int i = 0; i < 6; i++) r->sums[i] += ph[i];
    out->epochs = epoch;
    if (r->opt->progress && r->rank == 0)
        fprintf(r->opt->progress, "seed %llu epoch %d: loss %.4f  val %.2f%%  %.0f samples/s\n",
                (unsigned long long)r->seed, epoch, s ? loss_sum / (double)s : NAN, out->val_acc * 100, samples_s);
    if (isnan(out->val_acc)) return tta_fail(err, TTA_EINTERNAL, "evaluation failed at epoch %d", epoch);
    if (!out->reached && out->val_acc >= r->spec->target * (1 - 1e-6)) {
        out->reached = 1;
        out->target_epoch = epoch;
        /* DAWNBench-style: the clock of the TTA stops here, the schedule goes on */
        if (r->opt->to_schedule_end && epoch < r->max_epochs) {
            out->tta_s = now_s() - r->t0;
            if (log) tta_mllog_run_stop(log, 1);
            r->stop_logged = 1;
        }
    }
    return TTA_OK;
}

/* The checkpoint of the epoch just evaluated (rank 0). */
static int checkpoint(run_state *r, tta_error *err) {
    if (r->opt->no_checkpoint || r->rank != 0) return TTA_OK;
    tta_ckpt_header ck = {.seed = r->seed, .spec_hash = tta_ckpt_spec_hash(r->spec, r->K), .epoch = r->epoch,
                          .workers = r->K, .batch = (int32_t)r->bs, .rng = r->rng,
                          .log_bytes = tta_mllog_offset(r->log), .log_time_ms = shifted_clock(&r->clock),
                          .elapsed_s = now_s() - r->t0, .train_time = r->train_time, .val_acc = r->out->val_acc,
                          .trained = r->trained};
    memcpy(ck.sums, r->sums, sizeof ck.sums);
    return tta_ckpt_save(&r->s, r->ckpt_path, &ck, err);
}

/* Epochs until the target (or, with to_schedule_end, the epoch limit), a stop or an error. */
static int train(run_state *r, tta_error *err) {
    tta_replay_result *out = r->out;
    while ((!out->reached || r->opt->to_schedule_end) && r->epoch < r->max_epochs) {
        r->epoch++;
        if (r->log) tta_mllog_epoch_event(r->log, TTA_MLLOG_START, "epoch_start", r->epoch);
        phase_times pt = {0};
        double te = now_s(), loss_sum = 0;
        size_t s = 0;
        int rc = train_epoch(r, &pt, &s, &loss_sum, err);
        if (rc != TTA_OK) return rc;
        pt.epoch = now_s() - te;
        r->train_time += pt.epoch;
        r->trained += (long)(s * r->gbs);
        if (out->interrupted) return TTA_OK;
        if ((rc = evaluate(r, &pt, s, loss_sum, err)) != TTA_OK || (rc = checkpoint(r, err)) != TTA_OK) return rc;
    }
    return TTA_OK;
}

/* The end of the run (rc: how training went): run_stop, the figures of *out, accuracy on the
 * unseen and shifted splits (untimed), the log closed; returns rc, or TTA_EIO when closing failed. */
static int finish(run_state *r, int rc, tta_error *err) {
    tta_replay_result *out = r->out;
    tta_mllog *log = r->log;
    out->wall_s = now_s() - r->t0;
    if (!out->reached || (out->interrupted && !r->stop_logged)) out->tta_s = NAN;
    else if (!r->stop_logged) out->tta_s = out->wall_s; /* run_stop comes now, as the log says */
    if (log && rc == 0 && r->s.be->ops->host_memory) log_layer_profile(r, r->steps_run);
    if (log && !r->stop_logged) tta_mllog_run_stop(log, out->reached && !out->interrupted);
    double tt = r->train_time;
    out->samples_per_s = tt > 0 ? (double)r->trained / tt : NAN;
    out->comm_share = tt > 0 ? r->sums[4] / tt : NAN;
    out->comm_total_share = tt > 0 ? r->sums[5] / tt : NAN;
    out->data_share = tt > 0 ? r->sums[0] / tt : NAN;
    /* Generalization, untimed: data never trained on nor used for the target. */
    if (rc == 0) {
        tta_dataset shifted = tta_data_shifted(&r->unseen, 2, 0.05, 0x5eed);
        out->unseen_acc = tta_session_accuracy(&r->s, &r->unseen);
        out->shifted_acc = tta_session_accuracy(&r->s, &shifted);
        if (log) tta_mllog_number(log, TTA_KEY_UNSEEN_ACCURACY, out->unseen_acc);
        if (log) tta_mllog_number(log, TTA_KEY_SHIFTED_ACCURACY, out->shifted_acc);
        tta_dataset_free(&shifted);
    }
    size_t np = r->s.n_params;
    if (rc == 0 && r->opt->final_params && r->opt->final_params_count >= np)
        r->s.be->ops->download(r->s.be->ctx, r->opt->final_params, tta_model_params(r->s.m), np * sizeof(float));
    /* A finished run (reached or at its limit) needs no checkpoint; an interrupted one keeps it. */
    if (rc == 0 && !out->interrupted && !r->opt->no_checkpoint && r->rank == 0) remove(r->ckpt_path);
    if (log) {
        r->log = NULL;
        if (tta_mllog_close(log) != 0 && rc == TTA_OK)
            rc = tta_fail(err, TTA_EIO, "%s: writing the log failed", out->log);
    }
    return rc;
}

static void free_state(run_state *r) {
    if (r->log) tta_mllog_close(r->log);
    tta_dataset_free(&r->unseen);
    tta_dataset_free(&r->val);
    tta_dataset_free(&r->train);
    free(r->order);
    tta_session_close(&r->s);
}

int tta_replay_run(const tta_replay_spec *spec, uint64_t seed, const tta_replay_options *opt, tta_replay_result *out,
                   tta_error *err) {
    memset(out, 0, sizeof *out);
    out->seed = seed;
    out->tta_s = NAN;
    run_state R = {.spec = spec, .opt = opt, .seed = seed, .out = out, .K = 1};
    run_state *r = &R;
    if (opt->comm) {
        r->K = opt->comm->size;
        r->rank = opt->comm->rank;
    }
    out->workers = r->K;
    r->max_epochs = opt->max_epochs > 0 ? opt->max_epochs : spec->max_epochs;
    int rc = set_up(r, err);
    if (rc == TTA_OK) {
        rc = load_data(r, err);
        if (r->no_data) { /* the run stops before its first step */
            if (r->log) tta_mllog_run_stop(r->log, 0);
        } else {
            if (rc == TTA_OK) rc = train(r, err);
            rc = finish(r, rc, err);
        }
    }
    free_state(r);
    return rc;
}
