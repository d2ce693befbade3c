/* test_fused_update.c: the SGD update fused into the cpu backend's linear layers (each thread
 * updates the slice of weights whose gradient it has just computed; replay/session.c,
 * backend_cpu.c gemm_run) gives exactly the bits of the separate update pass after backward, at
 * 1 and 2 threads: every step's loss, then every parameter and every velocity, compared bit for
 * bit (memcmp) after 40 steps of the mlp at a changing learning rate.
 *
 * Two shapes: the recipe's mlp (784-512-512-10: fc2's input gradient is cut into the columns its
 * weight gradient is, so a thread updates its slice with no barrier; the classifier's products
 * run on one thread) and 784-64-512-10 (fc2's weight gradient, 512 x 64, is cut into rows: the
 * update waits for a barrier). Nesterov with weight decay on the weights only, as fmnist-mlp;
 * Caffe's convention on every tensor for the other. LARS and Adam are never fused (they need a
 * tensor's norms or the step count): the session keeps the separate pass for them.
 *
 * The trained model is then evaluated (tta_model_evaluate, 2,500 images in batches of 1,000: the
 * mlp's inference path runs each thread's rows through all three layers in one parallel region,
 * each layer with its own buffer): the loss sum and the hits must be the same bits at 1 and 2
 * threads (a buffer shared by two layers let a thread overwrite rows that another still read).
 *
 * The optimizer stepped on the device (session.c, the backend's sgd_step) and on host copies of
 * the parameters are checked the same way: on the reference layers behaving as a device backend
 * everywhere, and on cuda where a device is present. */
#include <string.h>
#include <unistd.h>

#include "replay/checkpoint.h"
#include "replay/session.h"
#include "tta_test.h"

#define STEPS 40
#define BATCH 128
#define PIXELS (28 * 28)

static uint64_t rs;
static float frand(void) {
    rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
    return (float)((rs >> 40) * (1.0 / 16777216.0)) * 2.0f - 1.0f;
}

typedef struct {
    float *params, *state;
    double loss[STEPS];
    double eval_loss;
    long eval_hits;
    size_t n;
    int fused;     /* tensors the session fused */
    int on_device; /* the optimizer stepped on the device */
} outcome;

/* Steps [from, to) of the synthetic batch stream (train_on's) on s; losses into loss[]. */
static void run_steps(tta_session *s, int from, int to, double *loss) {
    float *x = malloc(sizeof(float) * PIXELS * BATCH);
    int32_t y[BATCH];
    char err[256];
    rs = 11;
    for (int step = 0; step < to; step++) {
        for (size_t i = 0; i < (size_t)PIXELS * BATCH; i++) x[i] = frand();
        for (int i = 0; i < BATCH; i++) y[i] = (int32_t)((unsigned)(frand() * 1e6f + 1e6f) % 10);
        if (step < from) continue;
        tta_step_times t = {0};
        CHECK(tta_session_step(s, x, y, BATCH, 0.05 * (1 + step % 7) / 7.0, &t, err, sizeof err) == 0);
        loss[step] = t.loss;
    }
    free(x);
}

/* STEPS steps of a session of the mlp (overrides ov) with `threads` threads, fused or not, on the
 * same synthetic batches. */
static outcome train_on(const char *device, int emulate_device, int host_optimizer, const char *ov,
                        const tta_opt_config *opt, int weights_only, int threads, int unfused) {
    tta_session_config cfg = {.model = "mlp", .overrides = ov, .device = device,
                              .backend_options = {.threads = threads, .emulate_device = emulate_device},
                              .channels = 1, .height = 28, .width = 28,
                              .classes = 10, .batch = BATCH, .eval_batch = 1000, .seed = 3, .optimizer = opt,
                              .decay_weights_only = weights_only, .unfused_update = unfused,
                              .host_optimizer = host_optimizer};
    tta_session s;
    char err[256];
    outcome o = {0};
    if (tta_session_open(&s, &cfg, err, sizeof err) != 0) {
        fprintf(stderr, "test_fused_update: %s\n", err);
        CHECK(!"session opens");
        return o;
    }
    o.fused = s.fused;
    o.on_device = s.device_velocity != NULL;
    run_steps(&s, 0, STEPS, o.loss);
    enum { EVAL = 2500 };
    float *ex = malloc(sizeof(float) * PIXELS * EVAL);
    int32_t *ey = malloc(sizeof(int32_t) * EVAL);
    for (size_t i = 0; i < (size_t)PIXELS * EVAL; i++) ex[i] = frand();
    for (int i = 0; i < EVAL; i++) ey[i] = (int32_t)((unsigned)(frand() * 1e6f + 1e6f) % 10);
    CHECK(tta_model_evaluate(s.m, ex, ey, EVAL, &o.eval_loss, &o.eval_hits) == 0);
    free(ex);
    free(ey);
    o.n = s.n_params;
    o.params = malloc(o.n * sizeof(float));
    o.state = malloc(tta_optim_state_bytes(&s.optim));
    s.be->ops->download(s.be->ctx, o.params, tta_model_params(s.m), o.n * sizeof(float));
    tta_session_pull_state(&s); /* (a velocity on the device) */
    memcpy(o.state, s.optim.state, tta_optim_state_bytes(&s.optim));
    tta_session_close(&s);
    return o;
}

static outcome train(const char *ov, const tta_opt_config *opt, int weights_only, int threads, int unfused) {
    return train_on("cpu", 0, 0, ov, opt, weights_only, threads, unfused);
}

static void outcome_free(outcome *o) {
    free(o->params);
    free(o->state);
}

/* 1 when a and b are the same bits: losses, parameters, velocities. */
static int same(const outcome *a, const outcome *b) {
    return a->n == b->n && a->params && b->params && !memcmp(a->loss, b->loss, sizeof a->loss) &&
           a->eval_loss == b->eval_loss && a->eval_hits == b->eval_hits &&
           !memcmp(a->params, b->params, a->n * sizeof(float)) && !memcmp(a->state, b->state, a->n * sizeof(float));
}

/* The separate pass at 1 thread is the reference; fused at 1 and 2 threads, and the separate pass at
 * 2 threads, must give its bits. */
static void check_shape(const char *ov, const tta_opt_config *opt, int weights_only) {
    outcome ref = train(ov, opt, weights_only, 1, 1);
    outcome f1 = train(ov, opt, weights_only, 1, 0);
    outcome f2 = train(ov, opt, weights_only, 2, 0);
    outcome u2 = train(ov, opt, weights_only, 2, 1);
    CHECK(ref.fused == 0 && u2.fused == 0);
    CHECK(f1.fused == 6 && f2.fused == 6); /* fc1..fc3, weight and bias */
    CHECK(same(&ref, &f1));
    CHECK(same(&ref, &f2));
    CHECK(same(&ref, &u2));
    CHECK(ref.loss[STEPS - 1] < ref.loss[0]); /* it trains */
    CHECK(ref.eval_hits > 0 && ref.eval_loss > 0);
    outcome *all[] = {&ref, &f1, &f2, &u2};
    for (int i = 0; i < 4; i++) outcome_free(all[i]);
}

TEST(nesterov_recipe_mlp) {
    tta_opt_config sgd = {.kind = TTA_OPT_SGD, .momentum = 0.9, .nesterov = 1, .weight_decay = 5e-4};
    check_shape(NULL, &sgd, 1);
}

TEST(caffe_narrow_first_layer) {
    tta_opt_config sgd = {.kind = TTA_OPT_SGD, .momentum = 0.9, .caffe = 1, .weight_decay = 1e-3};
    check_shape("hidden1=64", &sgd, 0);
}

/* Optimizers that need more than one element at a time are not fused, and still train. */
TEST(lars_and_adam_unfused) {
    tta_opt_config lars = {.kind = TTA_OPT_LARS, .momentum = 0.9, .weight_decay = 5e-4, .eta = 0.001};
    tta_opt_config adam = {.kind = TTA_OPT_ADAM, .beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8};
    outcome l = train(NULL, &lars, 1, 2, 0), a = train(NULL, &adam, 0, 2, 0);
    CHECK(l.fused == 0 && a.fused == 0);
    CHECK(l.params && a.params);
    outcome_free(&l);
    outcome_free(&a);
}

/* The session's device paths without a GPU, on the reference layers behaving as a device backend
 * (emulate_device): SGD through the backend's sgd_step (ranges of equal decay: weights and biases
 * alternate when only weights decay) and on the host mirror give the bits of the reference
 * backend's own host step, in both conventions; the velocity goes to the host and back
 * (tta_session_pull_state, tta_session_push_state, as a checkpoint moves it). */
TEST(device_paths_on_emulated_device) {
    tta_opt_config nesterov = {.kind = TTA_OPT_SGD, .momentum = 0.9, .nesterov = 1, .weight_decay = 5e-4};
    tta_opt_config caffe = {.kind = TTA_OPT_SGD, .momentum = 0.9, .caffe = 1, .weight_decay = 1e-3};
    const tta_opt_config *opts[] = {&nesterov, &caffe};
    const char *small = "hidden1=32,hidden2=32";
    for (int k = 0; k < 2; k++) {
        outcome host = train_on("reference", 0, 0, small, opts[k], k == 0, 1, 0);
        outcome dev = train_on("reference", 1, 0, small, opts[k], k == 0, 1, 0);
        outcome mirror = train_on("reference", 1, 1, small, opts[k], k == 0, 1, 0);
        CHECK(!host.on_device && dev.on_device && !mirror.on_device);
        CHECK(same(&host, &dev));
        CHECK(same(&host, &mirror));
        CHECK(host.loss[STEPS - 1] < host.loss[0]);
        outcome_free(&host);
        outcome_free(&dev);
        outcome_free(&mirror);
    }
    /* the velocity's round trip */
    tta_session_config cfg = {.model = "mlp", .overrides = small, .device = "reference",
                              .backend_options = {.emulate_device = 1}, .channels = 1, .height = 28, .width = 28,
                              .classes = 10, .batch = 8, .eval_batch = 8, .seed = 3, .optimizer = &nesterov};
    tta_session s;
    char err[256];
    CHECK(tta_session_open(&s, &cfg, err, sizeof err) == 0);
    CHECK(s.device_velocity != NULL && s.host_params == NULL);
    size_t bytes = tta_optim_state_bytes(&s.optim);
    for (size_t i = 0; i < s.n_params; i++) s.device_velocity[i] = (float)i; /* (host memory underneath) */
    tta_session_pull_state(&s);
    CHECK(s.optim.state[0] == 0.0f && s.optim.state[s.n_params - 1] == (float)(s.n_params - 1));
    memset(s.optim.state, 0, bytes);
    s.optim.state[7] = 2.5f;
    tta_session_push_state(&s);
    CHECK(s.device_velocity[7] == 2.5f && s.device_velocity[8] == 0.0f);
    tta_session_close(&s);
}

/* A checkpoint of a session whose velocity lives on the (emulated) device: saved after 20 steps
 * and loaded into a fresh session, whose 20 more steps give the bits of 40 uninterrupted ones
 * (losses, parameters, velocity): the velocity crosses to the file and back. */
TEST(checkpoint_on_emulated_device) {
    tta_opt_config nesterov = {.kind = TTA_OPT_SGD, .momentum = 0.9, .nesterov = 1, .weight_decay = 5e-4};
    tta_session_config cfg = {.model = "mlp", .overrides = "hidden1=32,hidden2=32", .device = "reference",
                              .backend_options = {.emulate_device = 1}, .channels = 1, .height = 28, .width = 28,
                              .classes = 10, .batch = BATCH, .eval_batch = BATCH, .seed = 3, .optimizer = &nesterov,
                              .decay_weights_only = 1};
    tta_replay_spec spec = {.benchmark = "generated", .dataset_kind = "generated", .model = "mlp",
                            .model_params = "hidden1=32,hidden2=32", .batch_size = BATCH, .optimizer = nesterov};
    char path[] = "/tmp/tta-ckpt-XXXXXX", err[256];
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0) close(fd);
    double whole[STEPS] = {0}, parts[STEPS] = {0};
    tta_session a, b, c;
    CHECK(tta_session_open(&a, &cfg, err, sizeof err) == 0);
    CHECK(a.device_velocity != NULL);
    run_steps(&a, 0, STEPS, whole);
    CHECK(tta_session_open(&b, &cfg, err, sizeof err) == 0);
    run_steps(&b, 0, STEPS / 2, parts);
    tta_ckpt_header h = {.seed = cfg.seed, .spec_hash = tta_ckpt_spec_hash(&spec, 1)}, back;
    tta_error e = {0};
    CHECK(tta_ckpt_save(&b, path, &h, &e) == TTA_OK);
    tta_session_close(&b);
    CHECK(tta_session_open(&c, &cfg, err, sizeof err) == 0);
    int loaded = 0;
    CHECK(tta_ckpt_load(&c, path, &spec, cfg.seed, &back, &loaded, &e) == TTA_OK && loaded == 1);
    CHECK(back.optim_step == STEPS / 2);
    run_steps(&c, STEPS / 2, STEPS, parts);
    CHECK(!memcmp(whole, parts, sizeof whole));
    CHECK(!memcmp(tta_model_params(a.m), tta_model_params(c.m), a.n_params * sizeof(float)));
    CHECK(!memcmp(a.device_velocity, c.device_velocity, a.n_params * sizeof(float))); /* (host memory) */
    tta_session_close(&a);
    tta_session_close(&c);
    unlink(path);
}

/* cuda: the optimizer stepped on the device (the backend's sgd_step) gives the bits of the step
 * on host copies of the parameters, in PyTorch's and Caffe's conventions; a velocity pulled to
 * the host and pushed back (a checkpoint's round trip) is unchanged. */
TEST(device_sgd_matches_host_mirror) {
    tta_opt_config nesterov = {.kind = TTA_OPT_SGD, .momentum = 0.9, .nesterov = 1, .weight_decay = 5e-4};
    tta_opt_config caffe = {.kind = TTA_OPT_SGD, .momentum = 0.9, .caffe = 1, .weight_decay = 1e-3};
    const tta_opt_config *opts[] = {&nesterov, &caffe};
    for (int k = 0; k < 2; k++) {
        outcome dev = train_on("cuda", 0, 0, NULL, opts[k], k == 0, 1, 0);
        outcome mirror = train_on("cuda", 0, 1, NULL, opts[k], k == 0, 1, 0);
        CHECK(dev.on_device && !mirror.on_device);
        CHECK(same(&dev, &mirror));
        CHECK(dev.loss[STEPS - 1] < dev.loss[0]);
        outcome_free(&dev);
        outcome_free(&mirror);
    }
}

int main(void) {
    RUN(nesterov_recipe_mlp);
    RUN(caffe_narrow_first_layer);
    RUN(lars_and_adam_unfused);
    RUN(device_paths_on_emulated_device);
    RUN(checkpoint_on_emulated_device);
    char err[256];
    tta_backend *cuda = tta_backend_create("cuda", NULL, err, sizeof err);
    if (cuda) {
        cuda->ops->destroy(cuda);
        fprintf(stderr, "test_fused_update: backend cuda\n");
        RUN(device_sgd_matches_host_mirror);
    } else {
        fprintf(stderr, "test_fused_update: cuda: skipped: %s\n", err);
    }
    return test_summary();
}
