/* replay.h: the replay module's contract for the CLI: re-execute a training recipe on this
 * machine, with MLPerf's timing rules, write a :::MLLOG log per run that `tta ingest` reads, and
 * measure accuracy on validation, unseen and shifted data.
 *
 * A SPEC is a JSON file (schemas/replay-spec.schema.json):
 *   {"benchmark": "fashion-mnist", "dataset": {"kind": "fashion-mnist", "path": DIR},
 *    "model": "mlp", "model_params": "hidden1=512,hidden2=512",
 *    "optimizer": {"kind": "sgd", "momentum": 0.9, "nesterov": true, "weight_decay": 5e-4},
 *    "schedule": {"type": "piecewiseLinear", "epochs": [0, 2, 15], "values": [0, 0.1, 0]},
 *    "batch_size": 128, "target": {"metric": "top1", "value": 0.88}, "max_epochs": 15,
 *    "seeds": [0, 1, 2], "train_subset": 0}
 *
 * Ownership: a spec owns its strings (tta_replay_spec_free).
 */
#ifndef TTA_REPLAY_H
#define TTA_REPLAY_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "common/buf.h"
#include "common/error.h"
#include "replay/data.h"
#include "replay/optim.h"
#include "replay/schedule.h"

/* How the learning rate follows the number of data-parallel workers K. */
typedef enum {
    TTA_LR_SCALING_NONE,   /* the schedule as written, whatever K */
    TTA_LR_SCALING_LINEAR, /* Goyal et al.: lr x K, reached by a linear warm-up from lr over warmup epochs */
    TTA_LR_SCALING_TABLE   /* lr x factor[K] from the spec's table */
} tta_lr_scaling_kind;

typedef struct {
    char *benchmark;     /* as the runs are filed: "fashion-mnist" */
    char *dataset_kind;  /* "fashion-mnist", "mnist" (IDX), "cifar10", "cifar100" (binary), "generated" */
    char *dataset_path;
    long generated_n;    /* "generated": training images (validation and unseen: a quarter each) */
    int crop_pad, flip;  /* augmentation: random crop with this padding, horizontal flip */
    char *model;         /* a shipped model name or a model file */
    char *model_params;  /* overrides ("hidden1=256"), NULL for none */
    tta_opt_config optimizer;
    tta_lr_schedule schedule;
    int batch_size;
    double target;       /* validation top-1 accuracy as a fraction */
    int max_epochs;
    uint64_t seeds[64];
    int n_seeds;
    long train_subset;   /* 0: the whole training split; else its first N images (tests) */
    tta_lr_scaling_kind lr_scaling; /* data parallel: how lr follows K (batch_size is per worker) */
    double lr_scaling_warmup;       /* LINEAR: warm-up epochs */
    double lr_scaling_table[65];    /* TABLE: factor for K = index (0: unset) */
    double input_mean, input_std; /* inputs standardised as (pixel / 255 - input_mean) / input_std, the
                                     claim's misc.inputNormalization; input_std 0: pixel / 255 alone */
    char *origin;        /* the entry this recipe replays ("dawnbench/open/<author>/<name>/<task>"), or NULL;
                          * logged as tta_replay_of so that a replay keeps its link to the claim */
} tta_replay_spec;

/* Reads and validates a SPEC file (at most 1 MiB: common/file.h). Returns TTA_OK, or a tta_status
 * with err's text "<path>: <field>: reason" (TTA_EINPUT), "<path>:<line>: not valid JSON ..."
 * (TTA_EINPUT), or the loader's "<path>: no such file" (TTA_ENOTFOUND), "<path>: is 1.3 MiB, the
 * limit for a replay SPEC is 1 MiB" (TTA_EINPUT), "<path>: cannot read: ..." (TTA_EIO). On failure
 * *spec holds nothing to free. */
int tta_replay_spec_load(const char *path, tta_replay_spec *spec, tta_error *err);
void tta_replay_spec_free(tta_replay_spec *spec);

/* The per-sample input shape and class count of the spec's dataset (without reading it). */
int tta_replay_input_shape(const tta_replay_spec *spec, int *c, int *h, int *w, int *classes);

/* Reads the spec's dataset into its three splits (see data.h); the caller frees each with
 * tta_dataset_free (unseen may be a view of train's arrays: valid while train is). Returns TTA_OK,
 * or a code with err's text naming the file, and nothing in the splits to free:
 *   TTA_ENOTFOUND  "<path>: no such file" (IDX), "<path>: cannot open: ..." (CIFAR): a file is missing
 *   TTA_EIO        "<path>: cannot open: ..." / "cannot read: ...": a file is there but cannot be read
 *   TTA_EINPUT     "<path>: size does not match N images of HxW" (a file cut short), "<path>: not an
 *                  IDX image file ...", "<path>: cannot inflate: ...", "<path>: N training images,
 *                  need more than 10,000", a CIFAR size or label out of range; "dataset kind \"K\":
 *                  unknown" or "...: no path to its files" for a spec made by hand
 *   TTA_EINTERNAL  zlib cannot start. */
int tta_replay_load_data(const tta_replay_spec *spec, tta_dataset *train, tta_dataset *unseen, tta_dataset *val,
                         tta_error *err);

/* The learning-rate factor for K workers under the spec's scaling rule, at a point of training
 * (epochs, fractional): LINEAR ramps from 1 to K over the warm-up. */
double tta_replay_lr_factor(const tta_replay_spec *spec, int workers, double epochs);

typedef struct {
    uint64_t seed;
    int reached;          /* validation accuracy met the target (at some epoch, with to_schedule_end) */
    int epochs;           /* epochs run (to the target when reached, unless to_schedule_end) */
    int target_epoch;     /* the first epoch whose validation accuracy met the target; 0 when none */
    double tta_s;         /* run_start to the end of target_epoch's evaluation; NAN when not reached */
    double wall_s;        /* run_start to the end of the last epoch run */
    double samples_per_s; /* training samples per second of training time */
    double val_acc, unseen_acc, shifted_acc; /* after the last epoch */
    int interrupted;      /* stopped by the stop flag (Ctrl-C): status aborted, checkpoint kept */
    int resumed_from;     /* the epoch a resumed run continued after (0: a fresh run) */
    int workers;          /* data-parallel ranks */
    double comm_share, comm_total_share; /* communication (exposed, total) / training time */
    double data_share;    /* waiting for data / training time */
    char log[1024];       /* the run's :::MLLOG file (empty on ranks other than 0) */
} tta_replay_result;

typedef struct {
    const char *device;   /* "cpu" (or "reference") */
    int threads;          /* the most threads with auto_threads */
    int auto_threads;     /* 1: `--threads auto`: threads chosen by the load between steps (1..threads); the
                           * log records each change (TTA_KEY_THREAD_CHANGE) */
    const char *log_dir;  /* logs go to <log_dir>/replay/results/<system>/<benchmark>/result_<seed>.txt,
                           * or result_<N>.txt (N past the folder's logs) where an earlier log has that name */
    const char *system;   /* the system name the runs are filed under */
    int max_epochs;       /* 0: the spec's */
    int to_schedule_end;  /* 1: train to max_epochs whatever the target, as DAWNBench claims do: run_stop
                           * (success) is logged at the first epoch that meets the target and the
                           * epochs after it follow in the log; 0: stop at the target (MLPerf) */
    FILE *progress;       /* per-epoch lines; NULL for none */
    int resume;           /* 1: continue from the run's checkpoint when there is one */
    int no_checkpoint;    /* 1: write no checkpoints */
    int no_loader_thread; /* 1: build batches on the training thread */
    const volatile sig_atomic_t *stop; /* set (by a signal handler) to stop at the next step; may be NULL.
                                        * The handler must not run on a thread of the run: its frame on
                                        * a thread inside oneDNN's sgemm corrupts the heap (block the
                                        * signal before the run, take it on a thread of one's own, as
                                         * cli/interrupt.c does) */
    struct tta_comm *comm; /* data-parallel ranks (replay/comm.h); NULL: one process */
    float *final_params;   /* when not NULL: receives the trained parameters (host floats; tests) */
    size_t final_params_count; /* its capacity in floats */
} tta_replay_options;

/* The checkpoint file of a run: <log_dir>/replay/checkpoints/<system>/<benchmark>/seed_<seed>.ckpt */
void tta_replay_checkpoint_path(const tta_replay_spec *spec, uint64_t seed, const tta_replay_options *opt,
                                char *path, size_t len);

/* Trains one run of spec with seed; fills *out (the caller's; nothing in it to free). With
 * opt->comm of K ranks, every rank calls it: each trains on its 1/K of every global batch of
 * K x batch_size, gradients are averaged, rank 0 writes the log. A checkpoint is written after
 * every epoch (opt->resume continues from it: the log is cut back to that epoch and its clock
 * continues where it stopped). Returns TTA_OK (also when interrupted: out->interrupted), or a
 * code with err's one line:
 *   tta_replay_load_data's codes, when the data cannot be read (the log ends with run_stop aborted)
 *   TTA_EINPUT   the model cannot be set up on opt->device (an unknown model, bad overrides, a
 *                device this build or machine lacks: the engine does not yet tell these apart), data
 *                of another shape than the recipe's, too few images for one global batch, a
 *                checkpoint that cannot be resumed ("<path>: damaged ...")
 *   TTA_EIO      "<path>: cannot create: ..." (the output tree), "<path>: cannot write: ..." (the
 *                log, the checkpoint)
 *   TTA_EINTERNAL a training step or an evaluation failed in a library ("... at epoch E"). */
int tta_replay_run(const tta_replay_spec *spec, uint64_t seed, const tta_replay_options *opt, tta_replay_result *out,
                   tta_error *err);

/* A DAWNBench entry's description of its training, as the caller read it (from the database:
 * replay reads none). Strings are the caller's and NULL when not described; the hyperparameters
 * are JSON text as logged in the entry's misc block. */
typedef struct {
    int64_t entry;             /* the entry's id, for messages */
    const char *benchmark;     /* the entry's benchmark ("fashion-mnist") */
    const char *model;         /* its system description's model ("MLP 784-512-512-10, ReLU") */
    const char *optimizer, *momentum, *weight_decay, *batch_size, *learning_rate;
    const char *input_normalization; /* misc.inputNormalization: {"mean": m, "std": s, ...}; NULL: none */
} tta_replay_recipe;

/* A SPEC from an entry's description (model "MLP 784-512-512-10" -> mlp, "ResNet9" -> resnet9;
 * learning-rate schedule, optimizer, batch size, input normalisation), data read from data_dir
 * (NULL: the system's Fashion-MNIST). TTA_OK; TTA_EUNSUPPORTED (a task or model replay has no
 * files for) or TTA_EINPUT (no batch size or schedule, a schedule that does not parse, an input
 * normalisation without a number mean and a positive std), with "entry N: ..."
 * in err and nothing in *spec to free. */
int tta_replay_spec_from_recipe(const tta_replay_recipe *recipe, const char *data_dir, tta_replay_spec *spec,
                                tta_error *err);

/* ------------------------------------------------------------------------------------------ */
/* The runs of a recipe on this machine (`tta replay`, `tta verify`; runs.c)                   */

typedef struct {
    const char *command;  /* "replay", "verify": the "tta <command>: " of notes and errors */
    const char *device;   /* "cpu" (NULL), "reference", "cuda" */
    int threads;          /* per rank; 0: one, or under mpirun the node's CPUs shared by its ranks */
    int auto_threads;     /* 1: threads chosen by the load, up to threads (tta_replay_options); the system
                           * is then named <host>-<device>-auto<T>t */
    const char *log_dir;  /* the output tree's root; NULL: "tta-logs" */
    int max_epochs;       /* 0: the spec's */
    int to_schedule_end, resume, no_checkpoint, no_loader_thread; /* as tta_replay_options */
    int one_process;      /* 1: one process even when started by mpirun */
    FILE *progress;       /* per-epoch lines (rank 0 only); NULL for none */
    FILE *notes;          /* notes as "tta <command>: note: ..." (rank 0 only); NULL for none */
    const volatile sig_atomic_t *stop; /* as tta_replay_options */
} tta_replay_runs_options;

typedef struct {
    tta_replay_result *runs; /* the runs done, in the spec's seed order */
    int n_runs;
    int interrupted;         /* the last run was stopped by opt->stop */
    int rank, workers;       /* this process's rank, the data-parallel ranks */
    int threads;             /* threads per rank */
    char system[200];        /* the system the runs are filed under: <host>-<device>-<T>t[-x<K>] */
    char system_json[1200];  /* its description in the output tree (rank 0), "" when it could not be written */
} tta_replay_batch;

/* Runs every seed of spec (data parallel over the ranks of mpirun, unless opt->one_process),
 * each with tta_replay_run, writing the output tree under opt->log_dir: the logs
 * replay/results/<system>/<benchmark>/result_<seed>.txt (never over an earlier log: result_<N>.txt
 * then, N past the folder's logs) and the system's description
 * replay/systems/<system>.json, which ingest reads as K accelerators of one node. Stops at the
 * first failed or interrupted run. Fills *out (the caller frees it with tta_replay_batch_free,
 * also on failure: it holds the runs done before it). Returns TTA_OK, or the failed run's code
 * (tta_replay_run's) with err's text "seed <s>: <reason>"; or, when the ranks cannot be set up,
 * TTA_EUNSUPPORTED (NCCL without CUDA or a device) or TTA_EINTERNAL (MPI fails to start). */
int tta_replay_runs(const tta_replay_spec *spec, const tta_replay_runs_options *opt, tta_replay_batch *out,
                    tta_error *err);
void tta_replay_batch_free(tta_replay_batch *b);
/* The runs for people (a table and where the logs are) or as JSON ({"runs": [{seed, reached,
 * epochs, tta_s, wall_s, samples_per_s, val_acc, unseen_acc, shifted_acc, log, workers,
 * comm_share, comm_total_share, data_share, interrupted, resumed_from}]}), appended to b. */
void tta_replay_batch_text(const tta_replay_batch *batch, buf *b);
void tta_replay_batch_json(const tta_replay_batch *batch, buf *b);

/* ------------------------------------------------------------------------------------------ */
/* Profiling (`tta profile`, profile.c; peaks.c)                                                */

typedef struct {
    const char *device;  /* "cpu" (default), "reference", "cuda" */
    int threads;         /* 0: the libraries' default; the most threads with auto_threads */
    int auto_threads;    /* 1: `--threads auto`: threads chosen by the load between steps (1..threads) */
    int batch;           /* 0: the spec's batch_size */
    int steps;           /* steps measured after warm-up; 0: 20 */
    int window;          /* warm-up detection window in steps; 0: 5 */
    double tolerance;    /* settled when two consecutive windows' means differ by less; 0: 0.05 */
    int max_warmup;      /* at most this many warm-up steps (then measured anyway, settled = 0); 0: 60 */
    uint64_t seed;
    FILE *progress;      /* a line every 10 steps; NULL for none */
} tta_profile_options;

/* One row of the profile: a layer of the model (forward + backward of one step), or the
 * optimizer update (type "update"). A layer fused into another (ReLU into BN) has time 0 and
 * fused_into set; its host's gflops counts both layers' FLOPs. A Winograd convolution's flops
 * are the direct convolution's (the model's FLOPs), so its gflops can pass the SGEMM peak. */
typedef struct {
    char name[64], type[16], fused_into[64];
    char algorithm[32];                    /* a convolution's (tta_op.algorithm); "" where the
                                              backend has one algorithm for the layer */
    double flops, bytes;                   /* analytic, per step */
    double time_s, time_fwd_s, time_bwd_s; /* measured, per step */
    double gflops;                         /* achieved; NAN when not timed */
    double intensity;                      /* flops / bytes (operational intensity; a host of fused
                                              layers counts their FLOPs too, like gflops) */
} tta_profile_layer;

/* The OpenMP wait of a program that trains, in its environment, for libgomp to read at load:
 * where OMP_WAIT_POLICY is unset, PASSIVE (an idle thread sleeps: no spinning beside a neighbour
 * on a shared 2-vCPU machine) after a short spin of TTA_OMP_SPINCOUNT rounds (GOMP_SPINCOUNT,
 * unless set), which catches the next parallel region of a step without a futex wake-up. Returns
 * 1 when it set something (the program must then start again to take it), else 0: a user's
 * OMP_WAIT_POLICY is left as it is, spin and all. (replay/backend_cpu.c) */
#define TTA_OMP_SPINCOUNT "3000"
int tta_replay_wait_env(void);

typedef struct {
    char model[64], device[16];
    char threading[192]; /* cpu: the libraries' threads and OpenMP's wait, as they were read at
                            load (tta_backend_cpu_threading); "" on other devices */
    char pages[128];     /* cpu: the pages of the large buffers, read after the measured steps
                            (tta_backend_cpu_pages); "" on other devices */
    int threads, batch;
    int warmup_steps, settled, measured_steps;
    double *step_trace;  /* every step's seconds, warm-up first (n_trace) */
    int n_trace;
    double step_s, samples_per_s;          /* means over the measured steps */
    double flops_per_step, bytes_per_step, gflops, intensity;
    double data_s, forward_s, backward_s, optimizer_s; /* per step, by the step's own clock */
    double layers_s;                       /* sum of the model layers' times */
    double unattributed_s;                 /* step_s - data - optimizer - layers (loss, glue) */
    /* Memory in bytes, exact: the model's accounting by category (engine.h's tta_mem_kind), the
     * optimizer's state, the dataset splits and batch buffers in host memory, and a device
     * backend's host copies of parameters and gradients. feature_maps = activations +
     * activation_grads + saved. total is the sum of every category; allocator_total is what
     * the backend's allocator reports outstanding (= the model's categories). */
    size_t mem_weights, mem_buffers, mem_weight_grads, mem_optimizer_state, mem_feature_maps, mem_activations,
        mem_activation_grads, mem_saved, mem_workspace, mem_eval, mem_data, mem_host_copies, mem_total,
        allocator_total;
    tta_profile_layer *layers;             /* model layers in graph order, then "optimizer" */
    int n_layers;
    /* auto threads: the measured steps' mean thread count, and every change of the count over
     * the whole profile (warm-up included): at the start of step `step`, t_s seconds in, from ->
     * to threads because other processes held others_cores cores */
    int auto_threads;
    double mean_threads;
    struct tta_profile_thread_change {
        long step;
        double t_s;
        int from, to;
        double others_cores;
    } *thread_changes;
    int n_thread_changes;
} tta_profile_result;

/* Profiles training steps of spec at opt->batch (0: the spec's). The result owns its arrays
 * (tta_profile_result_free). Returns TTA_OK, or a code with err's line and nothing in *out to
 * free: tta_replay_load_data's codes; TTA_EINPUT for an unknown dataset kind, a batch size
 * below 1, a model that cannot be set up on opt->device (as tta_replay_run), data of another
 * shape or fewer images than one batch; TTA_EINTERNAL when a step fails in a library. */
int tta_profile_run(const tta_replay_spec *spec, const tta_profile_options *opt, tta_profile_result *out,
                    tta_error *err);
void tta_profile_result_free(tta_profile_result *r);
/* Profiles spec at each of n batch sizes in turn (batches[i]; 0: the spec's), opt's batch
 * aside: out[0..*done) are filled (the caller frees each with tta_profile_result_free, also on
 * failure). Returns TTA_OK, or tta_profile_run's code and err at the first failure, the
 * profiles before it kept. */
int tta_profile_sweep(const tta_replay_spec *spec, const tta_profile_options *opt, const int *batches, int n,
                      tta_profile_result *out, int *done, tta_error *err);
/* The profile for people: the step and its phases, the layers, memory by category, appended to b. */
void tta_profile_text(const tta_profile_result *r, buf *b);
/* The profile as one JSON object (the `tta profile --format json` contract: memory{weights,
 * weight_grads, optimizer_state, feature_maps, workspace, data, total, ...}, layers[{name, flops,
 * bytes, time_s, gflops, ...}], step_s, samples_per_s, ...), appended to b. */
void tta_profile_json(const tta_profile_result *r, const char *host, const char *spec_path, buf *b);

/* This machine's roofs, measured: SGEMM (square n = 2048, best of reps, by OpenBLAS and by
 * oneDNN, the two libraries the trainer calls; the roof is the better) and memory bandwidth (a
 * STREAM triad a = b + s*c over three arrays of 64 MiB, threads sharing it, best of reps; counted
 * as 3 x 4 bytes per element). */
typedef struct {
    int threads;
    double sgemm_gflops;          /* the roof: the better of the two below */
    double sgemm_openblas_gflops; /* cblas_sgemm */
    double sgemm_onednn_gflops;   /* dnnl_sgemm (0: it failed) */
    double triad_gbs;
    double copy_gbs;
} tta_peaks;

/* SGEMM C = A B for square float matrices of n, with threads threads, by oneDNN's dnnl_sgemm
 * (gflops[1]; 0 when it fails), then by OpenBLAS (gflops[0]), each the best of reps rounds after
 * a warm-up round (OpenMP's and OpenBLAS's thread counts are left at threads; OpenBLAS's workers
 * may still spin for about 0.1 s after it returns, so time nothing right after it). Returns the
 * better GFLOP/s: the machine's compute roof as tta profile --peaks and bench_sgemm give it. */
double tta_measure_sgemm(int threads, int n, int reps, double gflops[2]);

/* Measures the roofs with threads threads (1..64) into *out (the caller's; nothing to free): it
 * takes seconds and about 200 MiB. Returns TTA_OK, or TTA_EINPUT ("threads must be 1..64, not
 * N") with nothing measured. */
int tta_measure_peaks(int threads, tta_peaks *out, tta_error *err);
/* {"host": ..., "device": "cpu", "threads": T, "sgemm_gflops": G, "sgemm_openblas_gflops": G1,
 * "sgemm_onednn_gflops": G2, "mem_gbs": B, "copy_gbs": C} */
void tta_peaks_json(const tta_peaks *p, const char *host, buf *b);
/* One line for people: "<host>, T threads: SGEMM G GFLOP/s (oneDNN; OpenBLAS G1), memory B GB/s
 * (triad), ...". */
void tta_peaks_text(const tta_peaks *p, const char *host, buf *b);
/* The thread counts `tta profile --peaks` measures: threads when > 0, else 1 and the number of
 * CPUs (when more than one). Returns how many (1 or 2) in counts. */
int tta_peaks_thread_counts(int threads, int counts[2]);

#endif
