/* bench_engine: training-step and evaluation throughput of the replay engine on the two
 * Fashion-MNIST workloads, to set beside bench/torch_step.py (same models, same steps):
 *
 *   fmnist-mlp  mlp 784-512-512-10 (ReLU), batch 128
 *   fmnist-cnn  resnet9 at width 0.25 (16-32-64-128), 1x28x28, batch 256
 *
 * A training step is the trainer's (tta_session_step, replay/session.h): upload, forward, loss,
 * backward, and an SGD update with momentum 0.9 and weight decay 5e-4 on the weights. Evaluation is
 * tta_model_evaluate over 10,000 images (the inference path). Data are synthetic (speed does
 * not depend on the values).
 *
 *   bench_engine [--model mlp|cnn|all] [--steps N] [--warmup N] [--threads N]
 *                [--eval-images N] [--eval-batch N] [--width W] [--profile] [--json]
 *
 * Sets OMP_WAIT_POLICY=PASSIVE by re-executing itself unless the variable is already set
 * (OMP_WAIT_POLICY=ACTIVE measures spinning threads).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "replay/engine.h"
#include "replay/session.h"

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static uint64_t rs = 7;
static float frand(void) {
    rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
    return (float)((rs >> 40) * (1.0 / 16777216.0)) * 2.0f - 1.0f;
}

typedef struct {
    const char *label, *model, *overrides;
    int batch;
} workload;

typedef struct {
    int steps, warmup, threads, eval_images, eval_batch, profile, json;
} options;

static int run(const workload *w, const options *o) {
    char threading[256];
    tta_opt_config sgd = {.kind = TTA_OPT_SGD, .momentum = 0.9, .weight_decay = 5e-4};
    tta_session_config cfg = {.model = w->model, .overrides = w->overrides, .device = "cpu",
                              .backend_options = {.threads = o->threads, .verbose = getenv("TTA_VERBOSE") != NULL},
                              .channels = 1, .height = 28, .width = 28, .classes = 10, .batch = w->batch,
                              .eval_batch = o->eval_batch, .seed = 1, .optimizer = &sgd, .decay_weights_only = 1};
    char err[512];
    tta_session session;
    if (tta_session_open(&session, &cfg, err, sizeof err)) {
        fprintf(stderr, "bench_engine: %s\n", err);
        return 1;
    }
    tta_model *m = session.m;
    int B = w->batch, nbatches = 8;
    size_t per = 28 * 28;
    float *x = malloc(sizeof(float) * per * B * nbatches);
    int32_t *y = malloc(sizeof(int32_t) * B * nbatches);
    for (size_t i = 0; i < per * B * nbatches; i++) x[i] = frand();
    for (int i = 0; i < B * nbatches; i++) y[i] = (int32_t)((unsigned)(frand() * 1e6f) % 10);
    tta_step_times r = {0};
    for (int s = 0; s < o->warmup + o->steps; s++) {
        if (s == o->warmup) {
            tta_model_set_profiling(m, o->profile);
            tta_model_reset_profile(m);
        }
        double t0 = s == o->warmup ? now_s() : 0;
        static double start;
        if (s == o->warmup) start = t0;
        int b = s % nbatches;
        if (tta_session_step(&session, x + per * B * b, y + B * b, B, 0.01, &r, err, sizeof err)) {
            fprintf(stderr, "bench_engine: %s\n", err);
            return 1;
        }
        if (s == o->warmup + o->steps - 1) {
            double dt = now_s() - start;
            double sps = (double)B * o->steps / dt;
            double gflops = tta_model_train_flops(m) * o->steps / dt * 1e-9;
            tta_model_set_profiling(m, 0);
            /* evaluation over eval_images */
            int n = o->eval_images;
            float *ex = malloc(sizeof(float) * per * n);
            int32_t *ey = malloc(sizeof(int32_t) * n);
            for (int i = 0; i < n; i++) {
                memcpy(ex + per * i, x + per * (i % (B * nbatches)), per * sizeof(float));
                ey[i] = y[i % (B * nbatches)];
            }
            double ls;
            long hits;
            tta_model_evaluate(m, ex, ey, n > 1000 ? 1000 : n, &ls, &hits); /* warm up */
            double e0 = now_s();
            tta_model_evaluate(m, ex, ey, n, &ls, &hits);
            double edt = now_s() - e0;
            size_t mem[TTA_MEM_COUNT], total = 0;
            tta_model_memory(m, mem);
            for (int k = 0; k < TTA_MEM_COUNT; k++) total += mem[k];
            if (o->json) {
                printf("{\"workload\":\"%s\",\"engine\":\"tta\",\"batch\":%d,\"steps\":%d,\"samples_per_s\":%.1f,"
                       "\"gflops\":%.2f,\"step_gflop\":%.4f,\"eval_images\":%d,\"eval_s\":%.3f,"
                       "\"eval_images_per_s\":%.1f,\"memory_mib\":%.1f,\"threads\":\"%s\"}\n",
                       w->label, B, o->steps, sps, gflops, tta_model_train_flops(m) * 1e-9, n, edt,
                       n / edt, total / 1048576.0, tta_backend_cpu_threading(threading, sizeof threading));
            } else {
                printf("%-11s tta   batch %3d: %8.1f samples/s  %6.1f GFLOP/s (%.3f GFLOP/step)   "
                       "eval %d images in %.2f s (%.0f images/s)   loss %.3f\n",
                       w->label, B, sps, gflops, tta_model_train_flops(m) * 1e-9, n, edt, n / edt, r.loss);
                printf("            memory:");
                for (int k = 0; k < TTA_MEM_COUNT; k++)
                    printf(" %s %.1f MiB%s", tta_mem_kind_name(k), mem[k] / 1048576.0, k + 1 < TTA_MEM_COUNT ? "," : "\n");
            }
            if (o->profile) {
                int nl;
                const tta_layer_stats *st = tta_model_layer_stats(m, &nl);
                printf("            %-22s %-8s %9s %9s %8s %8s %7s %7s\n", "layer", "type", "fwd ms", "bwd ms",
                       "fwd GF/s", "bwd GF/s", "fwd GB/s", "bwd GB/s");
                for (int k = 0; k < nl; k++) {
                    if (st[k].fused_into) continue;
                    double tf = st[k].time_fwd / (st[k].calls_fwd ? st[k].calls_fwd : 1);
                    double tb = st[k].time_bwd / (st[k].calls_bwd ? st[k].calls_bwd : 1);
                    printf("            %-22s %-8s %9.3f %9.3f %8.1f %8.1f %7.1f %7.1f\n", st[k].name, st[k].type,
                           tf * 1e3, tb * 1e3, tf > 0 ? st[k].flops_fwd / tf * 1e-9 : 0,
                           tb > 0 ? st[k].flops_bwd / tb * 1e-9 : 0, tf > 0 ? st[k].bytes_fwd / tf * 1e-9 : 0,
                           tb > 0 ? st[k].bytes_bwd / tb * 1e-9 : 0);
                }
            }
            free(ex);
            free(ey);
        }
    }
    free(x);
    free(y);
    tta_session_close(&session);
    return 0;
}

int main(int argc, char **argv) {
    char threading[256];
    tta_replay_reexec_passive(argv);
    options o = {.steps = 0, .warmup = 5, .threads = 2, .eval_images = 10000, .eval_batch = 1000};
    const char *which = "all";
    char width_ov[64] = "width=0.25";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--model") && i + 1 < argc) which = argv[++i];
        else if (!strcmp(argv[i], "--steps") && i + 1 < argc) o.steps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--warmup") && i + 1 < argc) o.warmup = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc) o.threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--eval-images") && i + 1 < argc) o.eval_images = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--eval-batch") && i + 1 < argc) o.eval_batch = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--width") && i + 1 < argc) snprintf(width_ov, sizeof width_ov, "width=%s", argv[++i]);
        else if (!strcmp(argv[i], "--profile")) o.profile = 1;
        else if (!strcmp(argv[i], "--json")) o.json = 1;
        else {
            fprintf(stderr, "usage: bench_engine [--model mlp|cnn|all] [--steps N] [--warmup N] [--threads N] "
                            "[--eval-images N] [--eval-batch N] [--width W] [--profile] [--json]\n");
            return 2;
        }
    }
    if (!o.json) fprintf(stderr, "threading: %s\n", tta_backend_cpu_threading(threading, sizeof threading));
    workload mlp = {"fmnist-mlp", "mlp", NULL, 128}, cnn = {"fmnist-cnn", "resnet9", width_ov, 256};
    int rc = 0;
    if (!strcmp(which, "mlp") || !strcmp(which, "all")) {
        options om = o;
        if (!om.steps) om.steps = 300;
        rc |= run(&mlp, &om);
    }
    if (!strcmp(which, "cnn") || !strcmp(which, "all")) {
        options oc = o;
        if (!oc.steps) oc.steps = 20;
        rc |= run(&cnn, &oc);
    }
    if (!o.json) fprintf(stderr, "threading: %s\n", tta_backend_cpu_threading(threading, sizeof threading));
    return rc;
}
