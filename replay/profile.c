/* profile.c: `tta profile` (see replay.h): where a training step's time and memory go.
 *
 * The step is the trainer's (tta_session_step: forward, backward, optimizer update), after a
 * batch is gathered (and augmented) on the training thread, so that data loading is measured
 * instead of hidden by the loader thread. Warm-up is detected as TBD does (Zhu et al., IISWC 2018): step
 * times are watched until the mean of the last `window` steps is within `tolerance` of the mean
 * of the window before it; those steps are discarded and the next `steps` are measured with the
 * model's per-op timers on (the backend is synchronised around each op, which costs nothing on
 * the cpu backend).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/check.h"
#include "common/profile_json.h"
#include "replay/data.h"
#include "replay/engine.h"
#include "replay/replay.h"
#include "replay/session.h"

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* FLOPs and bytes of memory traffic per parameter of one optimizer update (optim.c's loops):
 * SGD reads p, g, v and writes p, v; Adam also reads and writes its second moment. */
static void optimizer_costs(const tta_opt_config *c, double *flops, double *bytes) {
    switch (c->kind) {
    case TTA_OPT_ADAM:
    case TTA_OPT_ADAMW: *flops = 16, *bytes = 28; break;
    case TTA_OPT_LARS: *flops = 12, *bytes = 20; break; /* + the two norms per tensor */
    default: *flops = c->nesterov ? 8 : 6, *bytes = 20; break;
    }
}

/* Bytes of a split's images and labels (the splits are disjoint, whichever array holds them). */
static size_t dataset_bytes(const tta_dataset *d) {
    return d->n * ((size_t)d->c * d->h * d->w * sizeof(float) + sizeof(int32_t));
}

/* The TBD rule over the step times t[0..n): 1 when the last window's mean is within tol of the
 * previous window's. */
static int settled(const double *t, int n, int window, double tol) {
    if (n < 2 * window) return 0;
    double a = 0, b = 0;
    for (int i = n - 2 * window; i < n - window; i++) a += t[i];
    for (int i = n - window; i < n; i++) b += t[i];
    return fabs(b - a) <= tol * b;
}

void tta_profile_result_free(tta_profile_result *r) {
    free(r->layers);
    free(r->step_trace);
    free(r->thread_changes);
    memset(r, 0, sizeof *r);
}

/* The measured figures of a profile from the model's per-layer timers and the step sums (data,
 * forward, backward, optimizer, whole step over the measured steps). */
static void fill_layers(tta_profile_result *out, tta_session *s, const tta_opt_config *optimizer,
                        const double sums[5]) {
    double k = 1.0 / out->measured_steps;
    out->step_s = sums[4] * k;
    out->samples_per_s = out->batch / out->step_s;
    out->data_s = sums[0] * k;
    out->forward_s = sums[1] * k;
    out->backward_s = sums[2] * k;
    out->optimizer_s = sums[3] * k;
    /* Layers: the model's, then the optimizer update as one more row. */
    int nl;
    const tta_layer_stats *st = tta_model_layer_stats(s->m, &nl);
    out->layers = callocCheck((size_t)nl + 2, sizeof *out->layers);
    for (int i = 0; i < nl; i++) {
        tta_profile_layer *L = &out->layers[out->n_layers++];
        snprintf(L->name, sizeof L->name, "%s", st[i].name);
        snprintf(L->type, sizeof L->type, "%s", st[i].type);
        if (st[i].fused_into) snprintf(L->fused_into, sizeof L->fused_into, "%s", st[i].fused_into);
        if (st[i].algorithm) snprintf(L->algorithm, sizeof L->algorithm, "%s", st[i].algorithm);
        L->flops = st[i].flops_fwd + st[i].flops_bwd;
        L->bytes = st[i].bytes_fwd + st[i].bytes_bwd;
        L->time_fwd_s = st[i].calls_fwd ? st[i].time_fwd / out->measured_steps : 0;
        L->time_bwd_s = st[i].calls_bwd ? st[i].time_bwd / out->measured_steps : 0;
        L->time_s = L->time_fwd_s + L->time_bwd_s;
    }
    /* A fused layer runs inside its host: the host's achieved rate counts both FLOPs. */
    for (int i = 0; i < out->n_layers; i++) {
        tta_profile_layer *L = &out->layers[i];
        double f = L->flops;
        for (int j = 0; j < out->n_layers; j++)
            if (out->layers[j].fused_into[0] && !strcmp(out->layers[j].fused_into, L->name)) f += out->layers[j].flops;
        L->gflops = L->time_s > 0 ? f / L->time_s * 1e-9 : NAN;
        /* (the fused layer's traffic never reaches memory: its FLOPs ride on the host's bytes) */
        L->intensity = L->bytes > 0 ? f / L->bytes : NAN;
        out->layers_s += L->time_s;
        out->flops_per_step += L->flops;
        out->bytes_per_step += L->bytes;
    }
    double of, ob;
    optimizer_costs(optimizer, &of, &ob);
    tta_profile_layer *O = &out->layers[out->n_layers++];
    snprintf(O->name, sizeof O->name, "optimizer");
    snprintf(O->type, sizeof O->type, "update");
    O->flops = of * (double)s->n_params;
    O->bytes = ob * (double)s->n_params;
    /* With the update fused into backward (s->fused tensors: tta_session_step), its time counts in
     * those layers' rows: with every tensor fused (the mlp) the row has no time of its own, as a
     * fused layer; else its time is the separate pass's over the others (the FLOPs are all). */
    O->time_s = s->fused && s->fused == s->n_tensors ? 0 : out->optimizer_s;
    O->gflops = O->time_s > 0 ? O->flops / O->time_s * 1e-9 : NAN;
    O->intensity = O->flops / O->bytes;
    out->flops_per_step += O->flops;
    out->bytes_per_step += O->bytes;
    out->gflops = out->flops_per_step / out->step_s * 1e-9;
    out->intensity = out->bytes_per_step > 0 ? out->flops_per_step / out->bytes_per_step : NAN;
    out->unattributed_s = out->step_s - out->data_s - out->optimizer_s - out->layers_s;
}

/* Memory: the model's accounting, the optimizer's state, the data in memory (data_bytes). */
static void fill_memory(tta_profile_result *out, tta_session *s, size_t data_bytes) {
    size_t mem[TTA_MEM_COUNT];
    tta_model_memory(s->m, mem);
    out->mem_weights = mem[TTA_MEM_WEIGHTS];
    out->mem_buffers = mem[TTA_MEM_BUFFERS];
    out->mem_weight_grads = mem[TTA_MEM_WEIGHT_GRADS];
    out->mem_activations = mem[TTA_MEM_ACTIVATIONS];
    out->mem_activation_grads = mem[TTA_MEM_ACT_GRADS];
    out->mem_saved = mem[TTA_MEM_SAVED];
    out->mem_feature_maps = mem[TTA_MEM_ACTIVATIONS] + mem[TTA_MEM_ACT_GRADS] + mem[TTA_MEM_SAVED];
    out->mem_workspace = mem[TTA_MEM_WORKSPACE];
    out->mem_eval = mem[TTA_MEM_EVAL];
    out->mem_optimizer_state = tta_optim_state_bytes(&s->optim);
    out->mem_data = data_bytes;
    out->mem_host_copies = s->host_params ? 2 * s->n_params * sizeof(float) : 0;
    out->allocator_total = s->be->ops->allocated(s->be->ctx);
    out->mem_total = out->mem_weights + out->mem_buffers + out->mem_weight_grads + out->mem_optimizer_state +
                     out->mem_feature_maps + out->mem_workspace + out->mem_eval + out->mem_data +
                     out->mem_host_copies;
}

/* "Convolution algorithms:" with one line per algorithm naming its layers, in layer order; nothing
 * when no layer says (the backend has one algorithm). */
static void text_algorithms(buf *out, const tta_profile_result *r) {
    int any_winograd = 0, header = 0;
    for (int i = 0; i < r->n_layers; i++) {
        const char *a = r->layers[i].algorithm;
        int first = 1; /* the first layer with this algorithm prints the line */
        for (int j = 0; j < i && a[0]; j++)
            if (!strcmp(r->layers[j].algorithm, a)) first = 0;
        if (!a[0] || !first) continue;
        if (!header) buf_puts(out, "\nconvolution algorithms:\n");
        header = 1;
        any_winograd |= tta_algorithm_is_winograd(a);
        buf_printf(out, "  %-24s", a);
        for (int j = i, n = 0; j < r->n_layers; j++)
            if (!strcmp(r->layers[j].algorithm, a)) buf_printf(out, "%s%s", n++ ? ", " : " ", r->layers[j].name);
        buf_puts(out, "\n");
    }
    if (any_winograd)
        buf_puts(out, "  (a Winograd layer's MFLOP and GFLOP/s are the direct convolution's: it does fewer\n"
                      "   multiplications, so its GFLOP/s can pass the SGEMM peak)\n");
}

/* Warm-up, then measured steps of batch random samples of train: the step trace and sums[5]
 * (data, forward, backward, optimizer, whole step) over the measured steps. */
static int run_steps(tta_profile_result *out, tta_session *s, const tta_dataset *train, const tta_replay_spec *spec,
                     const tta_profile_options *opt, double sums[5], tta_error *err) {
    int batch = out->batch, steps = opt->steps > 0 ? opt->steps : 20;
    int window = opt->window > 0 ? opt->window : 5;
    int max_warmup = opt->max_warmup > 0 ? opt->max_warmup : 60;
    double tol = opt->tolerance > 0 ? opt->tolerance : 0.05;
    size_t img = (size_t)train->c * train->h * train->w;
    float *x = mallocCheck((size_t)batch * img * sizeof *x);
    int32_t *y = mallocCheck((size_t)batch * sizeof *y);
    size_t *idx = mallocCheck((size_t)batch * sizeof *idx);
    tta_augment aug = {.crop_pad = spec->crop_pad, .flip = spec->flip};
    int cap = max_warmup + steps, measuring = 0, rc = TTA_OK;
    out->step_trace = callocCheck((size_t)cap, sizeof *out->step_trace);
    uint64_t rng = opt->seed * 0x2545F4914F6CDD1DULL + 1;
    for (int k = 0; k < cap; k++) {
        if (!measuring) {
            if (settled(out->step_trace, out->n_trace, window, tol)) out->settled = 1;
            if (out->settled || out->n_trace >= max_warmup) { /* (never settled: measure anyway, and say so) */
                measuring = 1;
                out->warmup_steps = out->n_trace;
                tta_model_reset_profile(s->m);
                tta_model_set_profiling(s->m, 1);
            }
        }
        if (measuring && out->measured_steps == steps) break;
        double t0 = now_s();
        for (int i = 0; i < batch; i++) { /* random batches, as a shuffled epoch gives */
            rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
            idx[i] = (size_t)((rng >> 33) % train->n);
        }
        tta_data_gather(x, y, train, idx, (size_t)batch, &aug, opt->seed, (uint64_t)k);
        double t1 = now_s();
        tta_step_times st = {0};
        char why[256];
        if (tta_session_step(s, x, y, batch, 0.01, &st, why, sizeof why) != 0) { /* a library failed */
            rc = tta_fail(err, TTA_EINTERNAL, "%s at step %d", why, k);
            break;
        }
        double t4 = now_s();
        out->step_trace[out->n_trace++] = t4 - t0;
        if (measuring) {
            out->measured_steps++;
            out->mean_threads += tta_model_threads(s->m); /* (divided once measured) */
            const double ph[5] = {t1 - t0, st.forward, st.backward, st.optimizer, t4 - t0};
            for (int i = 0; i < 5; i++) sums[i] += ph[i];
        }
        if (opt->progress && (k + 1) % 10 == 0)
            fprintf(opt->progress, "profile: step %d: %.4f s%s\n", k + 1, t4 - t0, measuring ? "" : " (warm-up)");
    }
    tta_model_set_profiling(s->m, 0);
    if (out->measured_steps) out->mean_threads /= out->measured_steps;
    free(x);
    free(y);
    free(idx);
    if (rc == TTA_OK && out->measured_steps == 0) rc = tta_fail(err, TTA_EINTERNAL, "no step was measured");
    return rc;
}

int tta_profile_run(const tta_replay_spec *spec, const tta_profile_options *opt, tta_profile_result *out,
                    tta_error *err) {
    memset(out, 0, sizeof *out);
    int batch = opt->batch > 0 ? opt->batch : spec->batch_size;
    int c, h, w, classes;
    if (tta_replay_input_shape(spec, &c, &h, &w, &classes) != 0)
        return tta_fail(err, TTA_EINPUT, "dataset kind \"%s\": unknown", spec->dataset_kind ? spec->dataset_kind : "");
    if (batch < 1) return tta_fail(err, TTA_EINPUT, "batch size %d: not a positive number", batch);
    tta_session s;
    tta_session_config sc = {.model = spec->model, .overrides = spec->model_params, .device = opt->device,
                             .backend_options = {.threads = opt->threads}, .channels = c, .height = h, .width = w,
                             .classes = classes, .batch = batch, .eval_batch = 1000, .seed = opt->seed,
                             .optimizer = &spec->optimizer, .auto_threads = opt->auto_threads ? opt->threads : 0};
    char why[TTA_ERROR_TEXT];
    if (tta_session_open(&s, &sc, why, sizeof why) != 0) return tta_fail(err, TTA_EINPUT, "%s", why);
    tta_dataset train, unseen, val;
    int rc = tta_replay_load_data(spec, &train, &unseen, &val, err);
    if (rc != TTA_OK) {
        tta_session_close(&s);
        return rc;
    }
    if (train.c != c || train.h != h || train.w != w || train.n < (size_t)batch)
        rc = tta_fail(err, TTA_EINPUT, "%s: %zu training images of %dx%dx%d: not a batch of %d of %dx%dx%d",
                      spec->dataset_path ? spec->dataset_path : spec->dataset_kind, train.n, train.c, train.h,
                      train.w, batch, c, h, w);
    out->batch = batch;
    double sums[5] = {0};
    if (rc == TTA_OK) rc = run_steps(out, &s, &train, spec, opt, sums, err);
    if (rc == TTA_OK) {
        snprintf(out->model, sizeof out->model, "%s", tta_model_name(s.m));
        snprintf(out->device, sizeof out->device, "%s", s.be->ops->name);
        if (strcmp(out->device, "cpu") == 0) {
            tta_backend_cpu_threading(out->threading, sizeof out->threading);
            tta_backend_cpu_pages(out->pages, sizeof out->pages);
        }
        out->threads = opt->threads;
        out->auto_threads = s.auto_max > 0;
        if (s.n_changes) out->thread_changes = callocCheck(s.n_changes, sizeof *out->thread_changes);
        for (size_t i = 0; i < s.n_changes; i++)
            out->thread_changes[out->n_thread_changes++] = (struct tta_profile_thread_change){
                s.changes[i].step, s.changes[i].t_s, s.changes[i].from, s.changes[i].to, s.changes[i].others};
        fill_layers(out, &s, &spec->optimizer, sums);
        size_t img = (size_t)c * h * w;
        fill_memory(out, &s, dataset_bytes(&train) + dataset_bytes(&unseen) + dataset_bytes(&val) +
                                 (size_t)batch * (img * sizeof(float) + sizeof(int32_t) + sizeof(size_t)));
    }
    tta_dataset_free(&train);
    tta_dataset_free(&unseen);
    tta_dataset_free(&val);
    tta_session_close(&s);
    if (rc) tta_profile_result_free(out);
    return rc;
}

int tta_profile_sweep(const tta_replay_spec *spec, const tta_profile_options *opt, const int *batches, int n,
                      tta_profile_result *out, int *done, tta_error *err) {
    *done = 0;
    for (int b = 0; b < n; b++) {
        tta_profile_options po = *opt;
        po.batch = batches[b];
        int rc = tta_profile_run(spec, &po, &out[b], err);
        if (rc != TTA_OK) return rc;
        ++*done;
    }
    return TTA_OK;
}

static void text_bytes(buf *out, const char *label, size_t b, size_t total) {
    buf_printf(out, "  %-18s %12.2f MiB  %5.1f%%\n", label, (double)b / 1048576.0,
               total ? 100.0 * (double)b / (double)total : 0);
}

void tta_profile_text(const tta_profile_result *r, buf *out) {
    buf_printf(out, "%s on %s, %d thread%s, batch %d: %.4f s per step, %.0f samples/s, %.2f GFLOP/s\n", r->model,
               r->device, r->threads, r->threads == 1 ? "" : "s", r->batch, r->step_s, r->samples_per_s, r->gflops);
    buf_printf(out, "warm-up: %d steps discarded (%s); %d steps measured\n", r->warmup_steps,
               r->settled ? "throughput settled" : "throughput never settled: figures are noisy", r->measured_steps);
    if (r->threading[0]) buf_printf(out, "threading: %s\n", r->threading);
    if (r->pages[0]) buf_printf(out, "pages: %s\n", r->pages);
    if (r->auto_threads) {
        buf_printf(out, "threads: auto (1..%d, by the load), %.2f on average over the measured steps; %d change%s",
                   r->threads, r->mean_threads, r->n_thread_changes, r->n_thread_changes == 1 ? "" : "s");
        for (int i = 0; i < r->n_thread_changes; i++) {
            const struct tta_profile_thread_change *c = &r->thread_changes[i];
            buf_printf(out, "%s step %ld (%.1f s): %d -> %d (others held %.2f cores)", i ? ";" : ":", c->step, c->t_s,
                       c->from, c->to, c->others_cores);
        }
        buf_puts(out, "\n");
    }
    buf_printf(out, "step: data %.1f%%  forward %.1f%%  backward %.1f%%  optimizer %.1f%%  unattributed %.1f%%\n",
               100 * r->data_s / r->step_s, 100 * r->forward_s / r->step_s, 100 * r->backward_s / r->step_s,
               100 * r->optimizer_s / r->step_s, 100 * r->unattributed_s / r->step_s);
    buf_printf(out, "\n%-22s %-8s %12s %12s %10s %7s %9s %9s\n", "layer", "type", "MFLOP", "MB moved", "time (ms)",
               "time%", "GFLOP/s", "FLOP/B");
    for (int i = 0; i < r->n_layers; i++) {
        const tta_profile_layer *L = &r->layers[i];
        char g[32], t[80], share[32], in[32];
        snprintf(in, sizeof in, isfinite(L->intensity) ? "%.2f" : "-", L->intensity); /* "-": no bytes of its own */
        if (L->fused_into[0]) {
            snprintf(t, sizeof t, "(in %s)", L->fused_into);
            snprintf(g, sizeof g, "-");
            snprintf(share, sizeof share, "-");
        } else {
            snprintf(t, sizeof t, "%.3f", L->time_s * 1e3);
            snprintf(g, sizeof g, isfinite(L->gflops) ? "%.2f" : "-", L->gflops);
            snprintf(share, sizeof share, "%.1f", 100 * L->time_s / r->step_s);
        }
        buf_printf(out, "%-22.22s %-8.8s %12.2f %12.2f %10s %7s %9s %9s\n", L->name, L->type, L->flops * 1e-6,
                   L->bytes * 1e-6, t, share, g, in);
    }
    text_algorithms(out, r);
    buf_printf(out, "\nmemory (bytes the trainer allocated):\n");
    text_bytes(out, "weights", r->mem_weights, r->mem_total);
    text_bytes(out, "buffers (BN stats)", r->mem_buffers, r->mem_total);
    text_bytes(out, "weight gradients", r->mem_weight_grads, r->mem_total);
    text_bytes(out, "optimizer state", r->mem_optimizer_state, r->mem_total);
    text_bytes(out, "feature maps", r->mem_feature_maps, r->mem_total);
    text_bytes(out, "workspace", r->mem_workspace, r->mem_total);
    text_bytes(out, "inference path", r->mem_eval, r->mem_total);
    text_bytes(out, "data", r->mem_data, r->mem_total);
    if (r->mem_host_copies) text_bytes(out, "host copies", r->mem_host_copies, r->mem_total);
    text_bytes(out, "total", r->mem_total, r->mem_total);
}

/* A number, or null when it is not finite. */
static void json_num(buf *b, double v) {
    if (isfinite(v)) buf_json_number(b, v);
    else buf_puts(b, "null");
}

void tta_profile_json(const tta_profile_result *r, const char *host, const char *spec_path, buf *b) {
    buf_puts(b, "{\"" TTA_PROFILE_HOST "\": ");
    buf_json_string(b, host, strlen(host));
    buf_puts(b, ", \"" TTA_PROFILE_SPEC "\": ");
    buf_json_string(b, spec_path ? spec_path : "", spec_path ? strlen(spec_path) : 0);
    buf_puts(b, ", \"" TTA_PROFILE_MODEL "\": ");
    buf_json_string(b, r->model, strlen(r->model));
    buf_puts(b, ", \"" TTA_PROFILE_DEVICE "\": ");
    buf_json_string(b, r->device, strlen(r->device));
    buf_printf(b,
               ", \"" TTA_PROFILE_THREADS "\": %d, \"" TTA_PROFILE_BATCH "\": %d, \"" TTA_PROFILE_WARMUP_STEPS
               "\": %d, \"" TTA_PROFILE_SETTLED "\": %s, \"" TTA_PROFILE_MEASURED_STEPS "\": %d",
               r->threads, r->batch, r->warmup_steps, r->settled ? "true" : "false", r->measured_steps);
    if (r->threading[0]) {
        buf_puts(b, ", \"" TTA_PROFILE_THREADING "\": ");
        buf_json_string(b, r->threading, strlen(r->threading));
    }
    if (r->pages[0]) {
        buf_puts(b, ", \"" TTA_PROFILE_PAGES "\": ");
        buf_json_string(b, r->pages, strlen(r->pages));
    }
    if (r->auto_threads) {
        buf_printf(b, ", \"" TTA_PROFILE_AUTO_THREADS "\": true, \"" TTA_PROFILE_MEAN_THREADS "\": ");
        json_num(b, r->mean_threads);
        buf_puts(b, ", \"" TTA_PROFILE_THREAD_CHANGES "\": [");
        for (int i = 0; i < r->n_thread_changes; i++) {
            const struct tta_profile_thread_change *c = &r->thread_changes[i];
            buf_printf(b, "%s{\"step\": %ld, \"t_s\": ", i ? ", " : "", c->step);
            json_num(b, c->t_s);
            buf_printf(b, ", \"from\": %d, \"to\": %d, \"others_cores\": ", c->from, c->to);
            json_num(b, c->others_cores);
            buf_puts(b, "}");
        }
        buf_puts(b, "]");
    }
    const double v1[TTA_PROFILE_RATES] = {
        [TTA_PROFILE_STEP_S] = r->step_s,         [TTA_PROFILE_SAMPLES_PER_S] = r->samples_per_s,
        [TTA_PROFILE_FLOPS_PER_STEP] = r->flops_per_step, [TTA_PROFILE_BYTES_PER_STEP] = r->bytes_per_step,
        [TTA_PROFILE_GFLOPS] = r->gflops,         [TTA_PROFILE_INTENSITY] = r->intensity,
    };
    for (int i = 0; i < TTA_PROFILE_RATES; i++) {
        buf_printf(b, ", \"%s\": ", tta_profile_rate_names[i]);
        json_num(b, v1[i]);
    }
    buf_puts(b, ", \"" TTA_PROFILE_PHASES "\": {");
    const double v2[TTA_PHASES] = {
        [TTA_PHASE_DATA_S] = r->data_s,           [TTA_PHASE_FORWARD_S] = r->forward_s,
        [TTA_PHASE_BACKWARD_S] = r->backward_s,   [TTA_PHASE_OPTIMIZER_S] = r->optimizer_s,
        [TTA_PHASE_LAYERS_S] = r->layers_s,       [TTA_PHASE_UNATTRIBUTED_S] = r->unattributed_s,
    };
    for (int i = 0; i < TTA_PHASES; i++) {
        buf_printf(b, "%s\"%s\": ", i ? ", " : "", tta_profile_phase_names[i]);
        json_num(b, v2[i]);
    }
    buf_puts(b, "}, \"" TTA_PROFILE_MEMORY "\": {");
    const size_t v3[TTA_PMEM_COUNT] = {
        [TTA_PMEM_WEIGHTS] = r->mem_weights,
        [TTA_PMEM_WEIGHT_GRADS] = r->mem_weight_grads,
        [TTA_PMEM_OPTIMIZER_STATE] = r->mem_optimizer_state,
        [TTA_PMEM_FEATURE_MAPS] = r->mem_feature_maps,
        [TTA_PMEM_WORKSPACE] = r->mem_workspace,
        [TTA_PMEM_DATA] = r->mem_data,
        [TTA_PMEM_TOTAL] = r->mem_total,
        [TTA_PMEM_BUFFERS] = r->mem_buffers,
        [TTA_PMEM_ACTIVATIONS] = r->mem_activations,
        [TTA_PMEM_ACTIVATION_GRADS] = r->mem_activation_grads,
        [TTA_PMEM_SAVED] = r->mem_saved,
        [TTA_PMEM_EVAL] = r->mem_eval,
        [TTA_PMEM_HOST_COPIES] = r->mem_host_copies,
        [TTA_PMEM_ALLOCATOR_TOTAL] = r->allocator_total,
    };
    for (int i = 0; i < TTA_PMEM_COUNT; i++)
        buf_printf(b, "%s\"%s\": %zu", i ? ", " : "", tta_profile_memory_names[i], v3[i]);
    buf_puts(b, "}, \"" TTA_PROFILE_LAYERS "\": [");
    for (int i = 0; i < r->n_layers; i++) {
        const tta_profile_layer *L = &r->layers[i];
        buf_puts(b, i ? ",\n  {\"" TTA_LAYER_NAME "\": " : "\n  {\"" TTA_LAYER_NAME "\": ");
        buf_json_string(b, L->name, strlen(L->name));
        buf_puts(b, ", \"" TTA_LAYER_TYPE "\": ");
        buf_json_string(b, L->type, strlen(L->type));
        buf_puts(b, ", \"" TTA_LAYER_FUSED_INTO "\": ");
        if (L->fused_into[0]) buf_json_string(b, L->fused_into, strlen(L->fused_into));
        else buf_puts(b, "null");
        if (L->algorithm[0]) {
            buf_puts(b, ", \"" TTA_LAYER_ALGORITHM "\": ");
            buf_json_string(b, L->algorithm, strlen(L->algorithm));
        }
        const double v4[TTA_LAYER_NUMBERS] = {
            [TTA_LAYER_FLOPS] = L->flops,           [TTA_LAYER_BYTES] = L->bytes,
            [TTA_LAYER_TIME_S] = L->time_s,         [TTA_LAYER_TIME_FWD_S] = L->time_fwd_s,
            [TTA_LAYER_TIME_BWD_S] = L->time_bwd_s, [TTA_LAYER_GFLOPS] = L->gflops,
            [TTA_LAYER_INTENSITY] = L->intensity,
        };
        for (int j = 0; j < TTA_LAYER_NUMBERS; j++) {
            buf_printf(b, ", \"%s\": ", tta_profile_layer_names[j]);
            json_num(b, v4[j]);
        }
        buf_puts(b, "}");
    }
    buf_puts(b, "], \"" TTA_PROFILE_STEP_TRACE "\": [");
    for (int i = 0; i < r->n_trace; i++) {
        if (i) buf_puts(b, ", ");
        json_num(b, r->step_trace[i]);
    }
    buf_puts(b, "]}");
}
