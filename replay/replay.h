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

#include <stdint.h>
#include <stdio.h>
#include <sqlite3.h>

#include "replay/optim.h"
#include "replay/schedule.h"

typedef struct {
    char *benchmark;     /* as the runs are filed: "fashion-mnist" */
    char *dataset_kind;  /* "fashion-mnist" (IDX files) */
    char *dataset_path;
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
} tta_replay_spec;

/* Reads and validates a SPEC file. Returns 0, or -1 with "<path>: <field>: reason" in err. */
int tta_replay_spec_load(const char *path, tta_replay_spec *spec, char *err, size_t errlen);
void tta_replay_spec_free(tta_replay_spec *spec);

typedef struct {
    uint64_t seed;
    int reached;          /* validation accuracy met the target */
    int epochs;           /* epochs run (to the target when reached) */
    double tta_s;         /* run_start to the target; NAN when not reached */
    double wall_s;        /* run_start to run_stop */
    double samples_per_s; /* training samples per second of training time */
    double val_acc, unseen_acc, shifted_acc; /* after the last epoch */
    char log[1024];       /* the run's :::MLLOG file */
} tta_replay_result;

typedef struct {
    const char *device;   /* "cpu" (or "reference") */
    int threads;
    const char *log_dir;  /* logs go to <log_dir>/replay/results/<system>/<benchmark>/result_<seed>.txt */
    const char *system;   /* the system name the runs are filed under */
    int max_epochs;       /* 0: the spec's */
    FILE *progress;       /* per-epoch lines; NULL for none */
} tta_replay_options;

/* Trains one run of spec with seed; fills *out. Returns 0, or -1 with a message in err. */
int tta_replay_run(const tta_replay_spec *spec, uint64_t seed, const tta_replay_options *opt, tta_replay_result *out,
                   char *err, size_t errlen);

/* A SPEC from an ingested DAWNBench entry's description (misc: optimizer, momentum, weightDecay,
 * batchSize, learningRate; model "MLP 784-512-512-10" -> mlp): 0, or -1 with err. */
int tta_replay_spec_from_entry(sqlite3 *db, int64_t entry, const char *data_dir, tta_replay_spec *spec, char *err,
                               size_t errlen);

#endif
