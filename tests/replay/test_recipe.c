/* test_recipe.c: a replay SPEC from a DAWNBench entry's description given as a plain recipe
 * (replay reads no database): model, optimizer, batch size and schedule read; a task, model or
 * description replay cannot follow refused with its tta_status and "entry N: ...". */
#include <math.h>
#include <string.h>

#include "replay/replay.h"
#include "tta_test.h"

static const char schedule[] = "{\"type\": \"piecewiseLinear\", \"epochs\": [0, 2, 12], \"values\": [0, 0.1, 0]}";

TEST(mlp_entry) {
    tta_replay_recipe r = {.entry = 7, .benchmark = "fashion-mnist", .model = "MLP 784-256-128-10, ReLU",
                           .optimizer = "\"SGD with nesterov momentum\"", .momentum = "0.9",
                           .weight_decay = "5e-4", .batch_size = "128", .learning_rate = schedule};
    tta_replay_spec s;
    tta_error err;
    CHECK(tta_replay_spec_from_recipe(&r, "/data/fm", &s, &err) == TTA_OK);
    CHECK_STR(s.model, "mlp");
    CHECK_STR(s.model_params, "hidden1=256,hidden2=128");
    CHECK_STR(s.benchmark, "fashion-mnist");
    CHECK_STR(s.dataset_path, "/data/fm");
    CHECK(s.optimizer.kind == TTA_OPT_SGD && s.optimizer.nesterov && s.optimizer.momentum == 0.9);
    CHECK(s.optimizer.weight_decay == 5e-4 && s.batch_size == 128);
    CHECK(s.schedule.kind == TTA_LR_PIECEWISE_LINEAR && s.max_epochs == 12 && s.target == 0.88);
    tta_replay_spec_free(&s);
    /* no optimizer, momentum nor weight decay described: plain SGD; Adam by name */
    r.optimizer = "\"Adam\"";
    r.momentum = r.weight_decay = NULL;
    r.model = "ResNet-9";
    CHECK(tta_replay_spec_from_recipe(&r, NULL, &s, &err) == TTA_OK);
    CHECK_STR(s.model, "resnet9");
    CHECK(s.model_params == NULL && s.optimizer.kind == TTA_OPT_ADAM && s.optimizer.weight_decay == 0);
    CHECK_STR(s.dataset_path, "/usr/share/datasets/fashion-mnist");
    CHECK(s.input_std == 0); /* no misc.inputNormalization: pixel / 255 alone */
    tta_replay_spec_free(&s);
    /* the claims' misc.inputNormalization (../shared/claims/fmnist_mlp_pytorch_seed0.json) */
    r.input_normalization = "{\"scale\": \"pixel / 255\", \"mean\": 0.2854989469051361, \"std\": 0.3527843952178955,"
                            " \"statisticsFrom\": \"the first 50,000 training images (the training split)\"}";
    CHECK(tta_replay_spec_from_recipe(&r, NULL, &s, &err) == TTA_OK);
    CHECK(s.input_mean == 0.2854989469051361 && s.input_std == 0.3527843952178955);
    tta_replay_spec_free(&s);
}

TEST(refusals) {
    tta_replay_recipe r = {.entry = 3, .benchmark = "cifar10", .model = "MLP 784-512-512-10", .batch_size = "64",
                           .learning_rate = schedule};
    tta_replay_spec s;
    tta_error err;
    CHECK(tta_replay_spec_from_recipe(&r, NULL, &s, &err) == TTA_EUNSUPPORTED);
    CHECK_STR(err.text, "entry 3: replay reads Fashion-MNIST; this entry's task is cifar10");
    r.benchmark = NULL;
    CHECK(tta_replay_spec_from_recipe(&r, NULL, &s, &err) == TTA_EUNSUPPORTED && strstr(err.text, "task is unknown"));
    r.benchmark = "fashion-mnist";
    r.model = "a transformer";
    CHECK(tta_replay_spec_from_recipe(&r, NULL, &s, &err) == TTA_EUNSUPPORTED);
    CHECK_STR(err.text, "entry 3: model \"a transformer\" has no model file here (mlp, resnet9)");
    r.model = "MLP 784-512-512-10";
    r.batch_size = NULL;
    CHECK(tta_replay_spec_from_recipe(&r, NULL, &s, &err) == TTA_EINPUT);
    CHECK_STR(err.text, "entry 3: its description gives no misc.batchSize");
    r.batch_size = "64";
    r.learning_rate = "{\"type\": \"sawtooth\"}";
    CHECK(tta_replay_spec_from_recipe(&r, NULL, &s, &err) == TTA_EINPUT);
    CHECK(!strncmp(err.text, "entry 3: misc.learningRate: ", 28));
    CHECK(tta_replay_spec_from_recipe(&r, NULL, &s, NULL) == TTA_EINPUT); /* NULL error allowed */
    r.learning_rate = schedule;
    r.input_normalization = "{\"mean\": 0.28, \"std\": 0}";
    CHECK(tta_replay_spec_from_recipe(&r, NULL, &s, &err) == TTA_EINPUT);
    CHECK_STR(err.text, "entry 3: misc.inputNormalization: an object {mean, std} with std > 0");
}

int main(void) {
    RUN(mlp_entry);
    RUN(refusals);
    return test_summary();
}
