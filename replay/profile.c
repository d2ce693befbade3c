/* profile.c: `tta profile` (see replay.h): where a training step's time and memory go.
 *
 * The step is the trainer's: gather (and augment) a batch, forward, backward, optimizer update;
 * here the batch is built on the training thread so that data loading is measured instead of
 * hidden by the loader thread. Warm-up is detected as TBD does (Zhu et al., IISWC 2018): step
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
#include "replay/data.h"
#include "replay/engine.h"
#include "replay/replay.h"

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
    memset(r, 0, sizeof *r);
}

int tta_profile_run(const tta_replay_spec *spec, const tta_profile_options *opt, tta_profile_result *out, char *err,
                    size_t errlen) {
    memset(out, 0, sizeof *out);
    int batch = opt->batch > 0 ? opt->batch : spec->batch_size;
    int steps = opt->steps > 0 ? opt->steps : 20;
    int window = opt->window > 0 ? opt->window : 5;
    int max_warmup = opt->max_warmup > 0 ? opt->max_warmup : 60;
    double tol = opt->tolerance > 0 ? opt->tolerance : 0.05;
    int c, h, w, classes;
    if (tta_replay_input_shape(spec, &c, &h, &w, &classes) != 0) {
        snprintf(err, errlen, "dataset kind \"%s\": unknown", spec->dataset_kind ? spec->dataset_kind : "");
        return -1;
    }
    tta_model_config mc = {.backend = opt->device ? opt->device : "cpu", .backend_options = {.threads = opt->threads},
                           .channels = c, .height = h, .width = w, .classes = classes, .batch = batch,
                           .eval_batch = 1000, .seed = opt->seed, .overrides = spec->model_params,
                           .label_smoothing = -1};
    tta_model *m = NULL;
    if (tta_model_build(&m, spec->model, &mc, err, errlen) != 0) return -1;
    tta_backend *be = tta_model_backend(m);
    tta_model_init_params(m, opt->seed);
    int n_tensors;
    const tta_param_info *info = tta_model_param_info(m, &n_tensors);
    tta_param_tensor *tensors = callocCheck((size_t)n_tensors + 1, sizeof *tensors);
    for (int i = 0; i < n_tensors; i++)
        tensors[i] = (tta_param_tensor){info[i].offset, info[i].count,
                                        spec->optimizer.kind == TTA_OPT_LARS ? info[i].kind == TTA_PARAM_WEIGHT : 1};
    size_t np = tta_model_num_params(m);
    tta_optim optim;
    if (tta_optim_init(&optim, &spec->optimizer, np) != 0) {
        snprintf(err, errlen, "optimizer: invalid settings");
        free(tensors);
        tta_model_free(m);
        return -1;
    }
    float *host_params = NULL, *host_grads = NULL;
    if (!be->host_memory) {
        host_params = mallocCheck((np ? np : 1) * sizeof(float));
        host_grads = mallocCheck((np ? np : 1) * sizeof(float));
    }
    tta_dataset train, unseen, val;
    if (tta_replay_load_data(spec, &train, &unseen, &val, err, errlen) != 0) {
        tta_optim_free(&optim);
        free(tensors);
        tta_model_free(m);
        return -1;
    }
    int rc = 0;
    if (train.c != c || train.h != h || train.w != w || train.n < (size_t)batch) {
        snprintf(err, errlen, "%s: %zu training images of %dx%dx%d: not a batch of %d of %dx%dx%d",
                 spec->dataset_path ? spec->dataset_path : spec->dataset_kind, train.n, train.c, train.h, train.w,
                 batch, c, h, w);
        rc = -1;
    }
    size_t img = (size_t)c * h * w;
    float *x = mallocCheck((size_t)batch * img * sizeof *x);
    int32_t *y = mallocCheck((size_t)batch * sizeof *y);
    size_t *idx = mallocCheck((size_t)batch * sizeof *idx);
    tta_augment aug = {.crop_pad = spec->crop_pad, .flip = spec->flip};
    int cap = max_warmup + steps;
    out->step_trace = callocCheck((size_t)cap, sizeof *out->step_trace);
    double sum_data = 0, sum_fwd = 0, sum_bwd = 0, sum_opt = 0, sum_step = 0;
    uint64_t rng = opt->seed * 0x2545F4914F6CDD1DULL + 1;
    int measuring = 0;
    for (int s = 0; rc == 0 && s < cap; s++) {
        if (!measuring) {
            if (settled(out->step_trace, out->n_trace, window, tol)) out->settled = 1;
            if (out->settled || out->n_trace >= max_warmup) { /* (never settled: measure anyway, and say so) */
                measuring = 1;
                out->warmup_steps = out->n_trace;
                tta_model_reset_profile(m);
                tta_model_set_profiling(m, 1);
            }
        }
        if (measuring && out->measured_steps == steps) break;
        double t0 = now_s();
        for (int i = 0; i < batch; i++) { /* random batches, as a shuffled epoch gives */
            rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
            idx[i] = (size_t)((rng >> 33) % train.n);
        }
        tta_data_gather(x, y, &train, idx, (size_t)batch, &aug, opt->seed, (uint64_t)s);
        double t1 = now_s();
        tta_step_result res;
        if (tta_model_forward(m, x, y, batch, 1, &res) != 0) {
            snprintf(err, errlen, "forward failed at step %d", s);
            rc = -1;
            break;
        }
        double t2 = now_s();
        tta_model_backward(m);
        be->sync(be->ctx);
        double t3 = now_s();
        float *g = tta_model_grads(m);
        if (be->host_memory) {
            tta_optim_step(&optim, tta_model_params(m), g, tensors, (size_t)n_tensors, 0.01);
        } else {
            be->download(be->ctx, host_grads, g, np * sizeof(float));
            be->download(be->ctx, host_params, tta_model_params(m), np * sizeof(float));
            tta_optim_step(&optim, host_params, host_grads, tensors, (size_t)n_tensors, 0.01);
            be->upload(be->ctx, tta_model_params(m), host_params, np * sizeof(float));
        }
        double t4 = now_s();
        out->step_trace[out->n_trace++] = t4 - t0;
        if (measuring) {
            out->measured_steps++;
            sum_data += t1 - t0;
            sum_fwd += t2 - t1;
            sum_bwd += t3 - t2;
            sum_opt += t4 - t3;
            sum_step += t4 - t0;
        }
        if (opt->progress && (s + 1) % 10 == 0)
            fprintf(opt->progress, "profile: step %d: %.4f s%s\n", s + 1, t4 - t0, measuring ? "" : " (warm-up)");
    }
    tta_model_set_profiling(m, 0);
    if (rc == 0 && out->measured_steps == 0) {
        snprintf(err, errlen, "no step was measured");
        rc = -1;
    }
    if (rc == 0) {
        double k = 1.0 / out->measured_steps;
        snprintf(out->model, sizeof out->model, "%s", tta_model_name(m));
        snprintf(out->device, sizeof out->device, "%s", be->name);
        out->threads = opt->threads;
        out->batch = batch;
        out->step_s = sum_step * k;
        out->samples_per_s = batch / out->step_s;
        out->data_s = sum_data * k;
        out->forward_s = sum_fwd * k;
        out->backward_s = sum_bwd * k;
        out->optimizer_s = sum_opt * k;
        /* Layers: the model's, then the optimizer update as one more row. */
        int nl;
        const tta_layer_stats *st = tta_model_layer_stats(m, &nl);
        out->layers = callocCheck((size_t)nl + 2, sizeof *out->layers);
        for (int i = 0; i < nl; i++) {
            tta_profile_layer *L = &out->layers[out->n_layers++];
            snprintf(L->name, sizeof L->name, "%s", st[i].name);
            snprintf(L->type, sizeof L->type, "%s", st[i].type);
            if (st[i].fused_into) snprintf(L->fused_into, sizeof L->fused_into, "%s", st[i].fused_into);
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
                if (out->layers[j].fused_into[0] && !strcmp(out->layers[j].fused_into, L->name))
                    f += out->layers[j].flops;
            L->gflops = L->time_s > 0 ? f / L->time_s * 1e-9 : NAN;
            /* (the fused layer's traffic never reaches memory: its FLOPs ride on the host's bytes) */
            L->intensity = L->bytes > 0 ? f / L->bytes : NAN;
            out->layers_s += L->time_s;
            out->flops_per_step += L->flops;
            out->bytes_per_step += L->bytes;
        }
        double of, ob;
        optimizer_costs(&spec->optimizer, &of, &ob);
        tta_profile_layer *O = &out->layers[out->n_layers++];
        snprintf(O->name, sizeof O->name, "optimizer");
        snprintf(O->type, sizeof O->type, "update");
        O->flops = of * (double)np;
        O->bytes = ob * (double)np;
        O->time_s = out->optimizer_s;
        O->gflops = O->time_s > 0 ? O->flops / O->time_s * 1e-9 : NAN;
        O->intensity = O->flops / O->bytes;
        out->flops_per_step += O->flops;
        out->bytes_per_step += O->bytes;
        out->gflops = out->flops_per_step / out->step_s * 1e-9;
        out->intensity = out->bytes_per_step > 0 ? out->flops_per_step / out->bytes_per_step : NAN;
        out->unattributed_s = out->step_s - out->data_s - out->optimizer_s - out->layers_s;
        /* Memory: the model's accounting, the optimizer's state, the data in memory. */
        size_t mem[TTA_MEM_COUNT];
        tta_model_memory(m, mem);
        out->mem_weights = mem[TTA_MEM_WEIGHTS];
        out->mem_buffers = mem[TTA_MEM_BUFFERS];
        out->mem_weight_grads = mem[TTA_MEM_WEIGHT_GRADS];
        out->mem_activations = mem[TTA_MEM_ACTIVATIONS];
        out->mem_activation_grads = mem[TTA_MEM_ACT_GRADS];
        out->mem_saved = mem[TTA_MEM_SAVED];
        out->mem_feature_maps = mem[TTA_MEM_ACTIVATIONS] + mem[TTA_MEM_ACT_GRADS] + mem[TTA_MEM_SAVED];
        out->mem_workspace = mem[TTA_MEM_WORKSPACE];
        out->mem_eval = mem[TTA_MEM_EVAL];
        out->mem_optimizer_state = tta_optim_state_bytes(&optim);
        out->mem_data = dataset_bytes(&train) + dataset_bytes(&unseen) + dataset_bytes(&val) +
                        (size_t)batch * (img * sizeof(float) + sizeof(int32_t) + sizeof(size_t));
        out->mem_host_copies = host_params ? 2 * np * sizeof(float) : 0;
        out->allocator_total = be->allocated(be->ctx);
        out->mem_total = out->mem_weights + out->mem_buffers + out->mem_weight_grads + out->mem_optimizer_state +
                         out->mem_feature_maps + out->mem_workspace + out->mem_eval + out->mem_data +
                         out->mem_host_copies;
    }
    free(x);
    free(y);
    free(idx);
    free(host_params);
    free(host_grads);
    tta_dataset_free(&train);
    tta_dataset_free(&unseen);
    tta_dataset_free(&val);
    tta_optim_free(&optim);
    free(tensors);
    tta_model_free(m);
    if (rc) tta_profile_result_free(out);
    return rc;
}

/* A number, or null when it is not finite. */
static void json_num(buf *b, double v) {
    if (isfinite(v)) buf_json_number(b, v);
    else buf_puts(b, "null");
}

void tta_profile_json(const tta_profile_result *r, const char *host, const char *spec_path, buf *b) {
    buf_puts(b, "{\"host\": ");
    buf_json_string(b, host, strlen(host));
    buf_puts(b, ", \"spec\": ");
    buf_json_string(b, spec_path ? spec_path : "", spec_path ? strlen(spec_path) : 0);
    buf_puts(b, ", \"model\": ");
    buf_json_string(b, r->model, strlen(r->model));
    buf_puts(b, ", \"device\": ");
    buf_json_string(b, r->device, strlen(r->device));
    buf_printf(b, ", \"threads\": %d, \"batch\": %d, \"warmup_steps\": %d, \"settled\": %s, \"measured_steps\": %d",
               r->threads, r->batch, r->warmup_steps, r->settled ? "true" : "false", r->measured_steps);
    const char *k1[] = {"step_s", "samples_per_s", "flops_per_step", "bytes_per_step", "gflops", "intensity"};
    const double v1[] = {r->step_s, r->samples_per_s, r->flops_per_step, r->bytes_per_step, r->gflops, r->intensity};
    for (int i = 0; i < 6; i++) {
        buf_printf(b, ", \"%s\": ", k1[i]);
        json_num(b, v1[i]);
    }
    buf_puts(b, ", \"phases\": {");
    const char *k2[] = {"data_s", "forward_s", "backward_s", "optimizer_s", "layers_s", "unattributed_s"};
    const double v2[] = {r->data_s, r->forward_s, r->backward_s, r->optimizer_s, r->layers_s, r->unattributed_s};
    for (int i = 0; i < 6; i++) {
        buf_printf(b, "%s\"%s\": ", i ? ", " : "", k2[i]);
        json_num(b, v2[i]);
    }
    buf_puts(b, "}, \"memory\": {");
    const char *k3[] = {"weights", "weight_grads", "optimizer_state", "feature_maps", "workspace", "data", "total",
                        "buffers", "activations", "activation_grads", "saved", "eval", "host_copies",
                        "allocator_total"};
    const size_t v3[] = {r->mem_weights, r->mem_weight_grads, r->mem_optimizer_state, r->mem_feature_maps,
                         r->mem_workspace, r->mem_data, r->mem_total, r->mem_buffers, r->mem_activations,
                         r->mem_activation_grads, r->mem_saved, r->mem_eval, r->mem_host_copies,
                         r->allocator_total};
    for (int i = 0; i < 14; i++) buf_printf(b, "%s\"%s\": %zu", i ? ", " : "", k3[i], v3[i]);
    buf_puts(b, "}, \"layers\": [");
    for (int i = 0; i < r->n_layers; i++) {
        const tta_profile_layer *L = &r->layers[i];
        buf_puts(b, i ? ",\n  {\"name\": " : "\n  {\"name\": ");
        buf_json_string(b, L->name, strlen(L->name));
        buf_puts(b, ", \"type\": ");
        buf_json_string(b, L->type, strlen(L->type));
        buf_puts(b, ", \"fused_into\": ");
        if (L->fused_into[0]) buf_json_string(b, L->fused_into, strlen(L->fused_into));
        else buf_puts(b, "null");
        const char *k4[] = {"flops", "bytes", "time_s", "time_fwd_s", "time_bwd_s", "gflops", "intensity"};
        const double v4[] = {L->flops, L->bytes, L->time_s, L->time_fwd_s, L->time_bwd_s, L->gflops, L->intensity};
        for (int j = 0; j < 7; j++) {
            buf_printf(b, ", \"%s\": ", k4[j]);
            json_num(b, v4[j]);
        }
        buf_puts(b, "}");
    }
    buf_puts(b, "], \"step_trace_s\": [");
    for (int i = 0; i < r->n_trace; i++) {
        if (i) buf_puts(b, ", ");
        json_num(b, r->step_trace[i]);
    }
    buf_puts(b, "]}");
}
