/* trainer.c: one replay run (see replay.h), with MLPerf's timing rules: the model is created and
 * initialised before the clock starts (init_start/init_stop); the clock starts (run_start) when
 * data is touched, i.e. before the dataset is read; every epoch ends with an evaluation on the
 * validation split; the clock stops when the target is met (run_stop success) or at the epoch
 * limit (aborted). Accuracy on the unseen and shifted splits is measured after run_stop, on the
 * final model, so that it does not change the TTA.
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

/* Top-1 accuracy of m on d with the fast inference path. */
static double accuracy(tta_model *m, const tta_dataset *d) {
    long correct = 0;
    if (tta_model_evaluate(m, d->images, d->labels, (long)d->n, NULL, &correct) != 0) return NAN;
    return d->n ? (double)correct / (double)d->n : NAN;
}

int tta_replay_run(const tta_replay_spec *spec, uint64_t seed, const tta_replay_options *opt, tta_replay_result *out,
                   char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    out->seed = seed;
    out->tta_s = NAN;
    int max_epochs = opt->max_epochs > 0 ? opt->max_epochs : spec->max_epochs;
    const char *system = opt->system ? opt->system : "local";

    /* The log: <dir>/replay/results/<system>/<benchmark>/result_<seed>.txt, a results layout
     * that ingest reads like a published entry (round from the log's tta_round). */
    buf dir = {0};
    buf_printf(&dir, "%s/replay/results/%s/%s", opt->log_dir ? opt->log_dir : ".", system, spec->benchmark);
    if (make_dirs(buf_str(&dir)) != 0) {
        snprintf(err, errlen, "%s: cannot create: %s", buf_str(&dir), strerror(errno));
        buf_free(&dir);
        return -1;
    }
    snprintf(out->log, sizeof out->log, "%s/result_%llu.txt", buf_str(&dir), (unsigned long long)seed);
    buf_free(&dir);
    tta_mllog *log = tta_mllog_open(out->log, NULL, NULL);
    if (!log) {
        snprintf(err, errlen, "%s: cannot write: %s", out->log, strerror(errno));
        return -1;
    }
    tta_mllog_string(log, "tta_round", "local");
    tta_mllog_string(log, "submission_benchmark", spec->benchmark);
    tta_mllog_string(log, "submission_org", "replay");
    tta_mllog_string(log, "submission_division", "open");
    tta_mllog_string(log, "submission_platform", system);
    tta_mllog_string(log, "submission_status", "onprem");
    tta_mllog_event_json(log, TTA_MLLOG_START, "init_start", "null", NULL);

    /* Untimed: the model and the optimizer. */
    tta_model_config mc = {.backend = opt->device ? opt->device : "cpu", .backend_options = {.threads = opt->threads},
                           .channels = 1, .height = 28, .width = 28, .classes = 10, .batch = spec->batch_size,
                           .eval_batch = 1000, .seed = seed, .overrides = spec->model_params,
                           .label_smoothing = -1};
    tta_model *m = NULL;
    if (tta_model_build(&m, spec->model, &mc, err, errlen) != 0) {
        tta_mllog_close(log);
        return -1;
    }
    tta_model_init_params(m, seed);
    if (!tta_model_backend(m)->host_memory) {
        snprintf(err, errlen, "device %s: the optimizers need host memory (the cuda trainer is not there yet)",
                 mc.backend);
        tta_model_free(m);
        tta_mllog_close(log);
        return -1;
    }
    int n_info = 0;
    const tta_param_info *info = tta_model_param_info(m, &n_info);
    tta_param_tensor *tensors = callocCheck((size_t)n_info + 1, sizeof *tensors);
    /* Weight decay on every tensor, as PyTorch's optimizers apply it unless told otherwise (the
     * DAWNBench recipes replayed here do); LARS still skips biases and batch-norm parameters. */
    for (int i = 0; i < n_info; i++)
        tensors[i] = (tta_param_tensor){info[i].offset, info[i].count,
                                        spec->optimizer.kind == TTA_OPT_LARS ? info[i].kind == TTA_PARAM_WEIGHT : 1};
    tta_optim optim;
    if (tta_optim_init(&optim, &spec->optimizer, tta_model_num_params(m)) != 0) {
        snprintf(err, errlen, "optimizer: invalid settings");
        free(tensors);
        tta_model_free(m);
        tta_mllog_close(log);
        return -1;
    }
    tta_mllog_number(log, "seed", (double)seed);
    tta_mllog_number(log, "global_batch_size", spec->batch_size);
    tta_mllog_number(log, "opt_base_learning_rate", tta_lr_at(&spec->schedule, spec->schedule.warmup_epochs));
    tta_mllog_number(log, "opt_momentum", spec->optimizer.momentum);
    tta_mllog_number(log, "opt_weight_decay", spec->optimizer.weight_decay);
    tta_mllog_number(log, "eval_target", spec->target);
    tta_mllog_event_json(log, TTA_MLLOG_END, "init_stop", "null", NULL);

    /* Timed from here: data are touched. */
    tta_mllog_event_json(log, TTA_MLLOG_START, "run_start", "null", NULL);
    double t0 = now_s();
    tta_dataset train, unseen, val;
    if (tta_data_fashion_mnist(spec->dataset_path, &train, &unseen, &val, err, errlen) != 0) {
        tta_mllog_run_stop(log, 0);
        tta_mllog_close(log);
        tta_optim_free(&optim);
        free(tensors);
        tta_model_free(m);
        return -1;
    }
    tta_dataset used = train.n > 0 && spec->train_subset > 0 && (size_t)spec->train_subset < train.n
                           ? tta_data_view(&train, 0, (size_t)spec->train_subset)
                           : tta_data_view(&train, 0, train.n);
    tta_mllog_number(log, "train_samples", (double)used.n);
    tta_mllog_number(log, "eval_samples", (double)val.n);

    size_t img = (size_t)used.c * used.h * used.w, bs = (size_t)spec->batch_size;
    size_t *order = mallocCheck(used.n * sizeof *order);
    float *x = mallocCheck(bs * img * sizeof *x);
    int32_t *y = mallocCheck(bs * sizeof *y);
    uint64_t rng = seed * 0x2545F4914F6CDD1DULL + 1;
    size_t steps_per_epoch = used.n / bs; /* the last partial batch is dropped, as drop_last */
    double train_time = 0;
    long trained = 0;
    int epoch = 0;
    for (epoch = 1; epoch <= max_epochs; epoch++) {
        tta_mllog_epoch_event(log, TTA_MLLOG_START, "epoch_start", epoch);
        double te = now_s();
        for (size_t i = 0; i < used.n; i++) order[i] = i;
        for (size_t i = used.n; i > 1; i--) { /* Fisher–Yates */
            size_t j = (size_t)(next_u64(&rng) % i), t = order[i - 1];
            order[i - 1] = order[j];
            order[j] = t;
        }
        double loss_sum = 0;
        for (size_t s = 0; s < steps_per_epoch; s++) {
            for (size_t k = 0; k < bs; k++) {
                size_t idx = order[s * bs + k];
                memcpy(x + k * img, used.images + idx * img, img * sizeof *x);
                y[k] = used.labels[idx];
            }
            tta_step_result r;
            if (tta_model_forward(m, x, y, (int)bs, 1, &r) != 0) {
                snprintf(err, errlen, "forward failed at epoch %d", epoch);
                epoch = max_epochs + 1;
                break;
            }
            loss_sum += r.loss;
            tta_model_backward(m);
            double progress = (double)(epoch - 1) + (double)(s + 1) / (double)steps_per_epoch;
            tta_optim_step(&optim, tta_model_params(m), tta_model_grads(m), tensors, (size_t)n_info,
                           tta_lr_at(&spec->schedule, progress));
        }
        double epoch_train = now_s() - te;
        train_time += epoch_train;
        trained += (long)(steps_per_epoch * bs);
        tta_mllog_epoch_event(log, TTA_MLLOG_END, "epoch_stop", epoch);
        tta_mllog_epoch_value(log, "tta_epoch_throughput", (double)(steps_per_epoch * bs) / epoch_train, epoch);
        tta_mllog_epoch_event(log, TTA_MLLOG_START, "eval_start", epoch);
        out->val_acc = accuracy(m, &val);
        tta_mllog_epoch_event(log, TTA_MLLOG_END, "eval_stop", epoch);
        tta_mllog_epoch_value(log, "eval_accuracy", out->val_acc, epoch);
        out->epochs = epoch;
        if (opt->progress)
            fprintf(opt->progress, "seed %llu epoch %d: loss %.4f  val %.2f%%  %.0f samples/s\n",
                    (unsigned long long)seed, epoch, steps_per_epoch ? loss_sum / (double)steps_per_epoch : NAN,
                    out->val_acc * 100, (double)(steps_per_epoch * bs) / epoch_train);
        if (out->val_acc >= spec->target * (1 - 1e-6)) {
            out->reached = 1;
            break;
        }
    }
    out->wall_s = now_s() - t0;
    if (out->reached) out->tta_s = out->wall_s;
    tta_mllog_run_stop(log, out->reached);
    out->samples_per_s = train_time > 0 ? (double)trained / train_time : NAN;

    /* Generalization, untimed: data never trained on nor used for the target. */
    tta_dataset shifted = tta_data_shifted(&unseen, 2, 0.05, 0x5eed);
    out->unseen_acc = accuracy(m, &unseen);
    out->shifted_acc = accuracy(m, &shifted);
    tta_mllog_number(log, "tta_unseen_accuracy", out->unseen_acc);
    tta_mllog_number(log, "tta_shifted_accuracy", out->shifted_acc);
    int rc = tta_mllog_close(log) == 0 ? 0 : -1;
    if (rc) snprintf(err, errlen, "%s: writing the log failed", out->log);
    tta_dataset_free(&shifted);
    tta_dataset_free(&unseen);
    tta_dataset_free(&val);
    tta_dataset_free(&train);
    free(order);
    free(x);
    free(y);
    tta_optim_free(&optim);
    free(tensors);
    tta_model_free(m);
    return rc;
}
