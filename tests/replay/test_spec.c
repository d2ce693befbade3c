/* test_spec.c: reading a replay SPEC (replay.h, tta_replay_spec_load): a good one, and each way a
 * file fails, with the path and the reason (a SPEC over 1 MiB once was cut at 1 MiB and then
 * called "not a JSON object"); a SPEC's input_normalization. */
#include "replay/replay.h"
#include "tta_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/tta_test_spec_XXXXXX";
static char path[256];

static const char *const good =
    "{\"benchmark\": \"generated\", \"dataset\": {\"kind\": \"generated\", \"n\": 512}, \"model\": \"mlp\",\n"
    " \"optimizer\": {\"kind\": \"sgd\", \"momentum\": 0.9},\n"
    " \"schedule\": {\"type\": \"piecewiseLinear\", \"epochs\": [0, 1], \"values\": [0.05, 0.05]},\n"
    " \"batch_size\": 32, \"target\": {\"metric\": \"top1\", \"value\": 0.9}, \"max_epochs\": 1, \"seeds\": [3]";

/* Writes good, then pad bytes of text inside an "origin" string, then the closing brace. */
static void write_spec(const char *name, size_t pad, const char *tail) {
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    fputs(good, f);
    if (pad) {
        fputs(",\n \"origin\": \"", f);
        for (size_t i = 0; i < pad; i++) fputc('o', f);
        fputc('"', f);
    }
    fputs(tail, f);
    fclose(f);
}

TEST(good_spec) {
    tta_replay_spec s;
    tta_error e;
    write_spec("good.json", 0, "}\n");
    CHECK(tta_replay_spec_load(path, &s, &e) == TTA_OK);
    CHECK(s.batch_size == 32 && s.max_epochs == 1 && s.n_seeds == 1 && s.seeds[0] == 3);
    CHECK(strcmp(s.model, "mlp") == 0 && strcmp(s.dataset_kind, "generated") == 0);
    tta_replay_spec_free(&s);
    unlink(path);
}

TEST(spec_over_the_limit_says_so) {
    tta_replay_spec s;
    tta_error e;
    write_spec("large.json", (size_t)1200 * 1024, "}\n");
    CHECK(tta_replay_spec_load(path, &s, &e) == TTA_EINPUT);
    char want[512];
    snprintf(want, sizeof want, "%s: is 1.2 MiB, the limit for a replay SPEC is 1 MiB", path);
    CHECK(strcmp(e.text, want) == 0);
    if (strcmp(e.text, want) != 0) fprintf(stderr, "got: %s\n", e.text);
    CHECK(s.model == NULL && s.benchmark == NULL);
    unlink(path);
}

TEST(broken_specs_name_path_and_reason) {
    tta_replay_spec s;
    tta_error e;
    snprintf(path, sizeof path, "%s/none.json", dir);
    CHECK(tta_replay_spec_load(path, &s, &e) == TTA_ENOTFOUND);
    CHECK(strstr(e.text, "none.json: no such file") != NULL);
    write_spec("broken.json", 0, ",\n oops}\n");
    CHECK(tta_replay_spec_load(path, &s, &e) == TTA_EINPUT);
    CHECK(strstr(e.text, "broken.json:5: not valid JSON") != NULL);
    unlink(path);
    snprintf(path, sizeof path, "%s/array.json", dir);
    FILE *f = fopen(path, "wb");
    fputs("[1, 2]\n", f);
    fclose(f);
    CHECK(tta_replay_spec_load(path, &s, &e) == TTA_EINPUT);
    CHECK(strstr(e.text, "array.json: file: not a JSON object") != NULL);
    unlink(path);
    write_spec("augment.json", 0, ", \"augment\": 3}\n");
    CHECK(tta_replay_spec_load(path, &s, &e) == TTA_EINPUT);
    CHECK(strstr(e.text, "augment.json: augment: an object") != NULL);
    unlink(path);
    CHECK(tta_replay_spec_load(dir, &s, &e) == TTA_EINPUT && strstr(e.text, "is a directory"));
}

/* "input_normalization": {mean, std} (a claim's misc.inputNormalization as a SPEC says it): read,
 * applied by tta_replay_load_data to every split, refused without a positive std. */
TEST(input_normalization) {
    tta_replay_spec s, raw;
    tta_error e;
    write_spec("norm.json", 0, ", \"input_normalization\": {\"mean\": 0.2854989469051361, \"std\": 0.3527843952178955}}\n");
    CHECK(tta_replay_spec_load(path, &s, &e) == TTA_OK);
    CHECK(s.input_mean == 0.2854989469051361 && s.input_std == 0.3527843952178955);
    write_spec("raw.json", 0, "}\n");
    CHECK(tta_replay_spec_load(path, &raw, &e) == TTA_OK && raw.input_std == 0);
    tta_dataset t[3], r[3];
    CHECK(tta_replay_load_data(&s, &t[0], &t[1], &t[2], &e) == TTA_OK);
    CHECK(tta_replay_load_data(&raw, &r[0], &r[1], &r[2], &e) == TTA_OK);
    for (int k = 0; k < 3; k++) {
        CHECK(t[k].norm_std > 0 && r[k].norm_std == 0);
        CHECK(fabs(t[k].images[7] - (r[k].images[7] - 0.2854989469051361) / 0.3527843952178955) < 1e-5);
        tta_dataset_free(&t[k]);
        tta_dataset_free(&r[k]);
    }
    tta_replay_spec_free(&s);
    tta_replay_spec_free(&raw);
    write_spec("badnorm.json", 0, ", \"input_normalization\": {\"mean\": 0.28, \"std\": -1}}\n");
    CHECK(tta_replay_spec_load(path, &s, &e) == TTA_EINPUT);
    CHECK(strstr(e.text, "badnorm.json: input_normalization: an object {mean, std} with std > 0") != NULL);
    unlink(path);
}

int main(void) {
    if (!mkdtemp(dir)) return 1;
    RUN(good_spec);
    RUN(spec_over_the_limit_says_so);
    RUN(broken_specs_name_path_and_reason);
    RUN(input_normalization);
    rmdir(dir);
    return test_summary();
}
