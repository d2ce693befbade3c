/* spec.c: reading and validating a replay SPEC (see replay.h, schemas/replay-spec.schema.json). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/check.h"
#include "common/file.h"
#include "replay/replay.h"

/* A SPEC is a short hand-written recipe: anything larger is not one. */
#define SPEC_LIMIT TTA_FILE_MIB

static int fail(tta_error *err, const char *path, const char *field, const char *why) {
    return tta_fail(err, TTA_EINPUT, "%s: %s: %s", path, field, why);
}

static char *text(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) && *v->valuestring ? strdupCheck(v->valuestring) : NULL;
}

static int read_optimizer(const cJSON *o, tta_opt_config *c, const char *path, tta_error *err) {
    memset(c, 0, sizeof *c);
    if (!cJSON_IsObject(o)) return fail(err, path, "optimizer", "missing (an object)");
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(o, "kind");
    const char *k = cJSON_IsString(kind) ? kind->valuestring : "";
    if (!strcmp(k, "sgd")) c->kind = TTA_OPT_SGD;
    else if (!strcmp(k, "adam")) c->kind = TTA_OPT_ADAM;
    else if (!strcmp(k, "adamw")) c->kind = TTA_OPT_ADAMW;
    else if (!strcmp(k, "lars")) c->kind = TTA_OPT_LARS;
    else return fail(err, path, "optimizer.kind", "one of sgd, adam, adamw, lars");
    const cJSON *v;
    c->momentum = cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(o, "momentum")) ? v->valuedouble : 0;
    c->nesterov = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "nesterov"));
    c->caffe = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "caffe"));
    c->weight_decay = cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(o, "weight_decay")) ? v->valuedouble : 0;
    c->beta1 = cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(o, "beta1")) ? v->valuedouble : 0.9;
    c->beta2 = cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(o, "beta2")) ? v->valuedouble : 0.999;
    c->eps = cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(o, "eps")) ? v->valuedouble : 1e-8;
    c->eta = cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(o, "eta")) ? v->valuedouble : 0.001;
    if (c->momentum < 0 || c->momentum >= 1) return fail(err, path, "optimizer.momentum", "in [0, 1)");
    if (c->weight_decay < 0) return fail(err, path, "optimizer.weight_decay", "not negative");
    return 0;
}

/* The 1-based line of at in text. */
static unsigned line_of(const char *text, const char *at) {
    unsigned line = 1;
    for (const char *p = text; p < at; p++) line += *p == '\n';
    return line;
}

int tta_replay_spec_load(const char *path, tta_replay_spec *s, tta_error *err) {
    memset(s, 0, sizeof *s);
    tta_file file;
    int code = tta_file_load(path, SPEC_LIMIT, "a replay SPEC", TTA_FILE_READ, &file, err);
    if (code != TTA_OK) return code;
    const char *parse_end = NULL;
    cJSON *o = cJSON_ParseWithLengthOpts(file.data, file.len, &parse_end, 0);
    int rc = TTA_EINPUT;
    if (!o) {
        const char *at = parse_end && parse_end >= file.data && parse_end <= file.data + file.len ? parse_end : file.data;
        tta_fail(err, TTA_EINPUT, "%s:%u: not valid JSON (a SPEC is one JSON object)", path, line_of(file.data, at));
        tta_file_free(&file);
        goto out;
    }
    tta_file_free(&file);
    if (!cJSON_IsObject(o)) {
        fail(err, path, "file", "not a JSON object");
        goto out;
    }
    s->benchmark = text(o, "benchmark");
    s->model = text(o, "model");
    s->model_params = text(o, "model_params");
    s->origin = text(o, "origin");
    const cJSON *ds = cJSON_GetObjectItemCaseSensitive(o, "dataset");
    if (!s->benchmark) { fail(err, path, "benchmark", "missing (a name such as \"fashion-mnist\")"); goto out; }
    if (!s->model) { fail(err, path, "model", "missing (a shipped model such as \"mlp\", or a file)"); goto out; }
    if (!cJSON_IsObject(ds)) { fail(err, path, "dataset", "missing (an object with kind and path)"); goto out; }
    s->dataset_kind = text(ds, "kind");
    s->dataset_path = text(ds, "path");
    static const char *const kinds[] = {"fashion-mnist", "mnist", "cifar10", "cifar100", "generated"};
    int known = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) known |= s->dataset_kind && !strcmp(s->dataset_kind, kinds[i]);
    if (!known) {
        fail(err, path, "dataset.kind", "one of fashion-mnist, mnist (IDX files), cifar10, cifar100 (binary files), generated");
        goto out;
    }
    if (!strcmp(s->dataset_kind, "generated")) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(ds, "n");
        s->generated_n = cJSON_IsNumber(n) ? (long)n->valuedouble : 4000;
        if (s->generated_n < 16 || s->generated_n > 10000000) { fail(err, path, "dataset.n", "from 16 to 10,000,000 images"); goto out; }
    } else if (!s->dataset_path) {
        if (!strcmp(s->dataset_kind, "fashion-mnist")) s->dataset_path = strdupCheck("/usr/share/datasets/fashion-mnist");
        else { fail(err, path, "dataset.path", "missing (the folder of the dataset's files)"); goto out; }
    }
    const cJSON *aug = cJSON_GetObjectItemCaseSensitive(o, "augment"), *av;
    if (aug && !cJSON_IsObject(aug)) { fail(err, path, "augment", "an object {crop_pad, flip}"); goto out; }
    s->crop_pad = cJSON_IsNumber(av = cJSON_GetObjectItemCaseSensitive(aug, "crop_pad")) ? (int)av->valuedouble : 0;
    s->flip = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(aug, "flip"));
    if (s->crop_pad < 0 || s->crop_pad > 16) { fail(err, path, "augment.crop_pad", "from 0 to 16 pixels"); goto out; }
    const cJSON *ls = cJSON_GetObjectItemCaseSensitive(o, "lr_scaling");
    const cJSON *rule = cJSON_IsString(ls) ? ls : cJSON_GetObjectItemCaseSensitive(ls, "rule");
    const char *r = cJSON_IsString(rule) ? rule->valuestring : "none";
    if (!strcmp(r, "none")) s->lr_scaling = TTA_LR_SCALING_NONE;
    else if (!strcmp(r, "linear")) {
        s->lr_scaling = TTA_LR_SCALING_LINEAR;
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(ls, "warmup_epochs");
        s->lr_scaling_warmup = cJSON_IsNumber(w) ? w->valuedouble : 0;
        if (s->lr_scaling_warmup < 0) { fail(err, path, "lr_scaling.warmup_epochs", "not negative"); goto out; }
    } else if (!strcmp(r, "table")) {
        s->lr_scaling = TTA_LR_SCALING_TABLE;
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(ls, "factors"), *e;
        cJSON_ArrayForEach(e, f) {
            long k = e->string ? strtol(e->string, NULL, 10) : 0;
            if (k < 1 || k > 64 || !cJSON_IsNumber(e) || e->valuedouble <= 0) {
                fail(err, path, "lr_scaling.factors", "{\"K\": factor} with K from 1 to 64 and factor > 0");
                goto out;
            }
            s->lr_scaling_table[k] = e->valuedouble;
        }
    } else {
        fail(err, path, "lr_scaling", "none, linear or table");
        goto out;
    }
    if (read_optimizer(cJSON_GetObjectItemCaseSensitive(o, "optimizer"), &s->optimizer, path, err)) goto out;
    const cJSON *sch = cJSON_GetObjectItemCaseSensitive(o, "schedule");
    char *sch_text = sch ? cJSON_PrintUnformatted(sch) : NULL;
    char serr[200];
    int srch = sch_text ? tta_lr_schedule_parse(sch_text, &s->schedule, serr, sizeof serr) : -1;
    free(sch_text);
    if (srch) {
        fail(err, path, "schedule", sch ? serr : "missing");
        goto out;
    }
    const cJSON *v;
    s->batch_size = cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(o, "batch_size")) ? (int)v->valuedouble : 0;
    if (s->batch_size < 1 || s->batch_size > 65536) { fail(err, path, "batch_size", "a whole number from 1 to 65536"); goto out; }
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "target");
    v = cJSON_GetObjectItemCaseSensitive(t, "value");
    if (!cJSON_IsNumber(v) || v->valuedouble <= 0 || v->valuedouble > 1) {
        fail(err, path, "target.value", "validation top-1 accuracy as a fraction in (0, 1]");
        goto out;
    }
    s->target = v->valuedouble;
    s->max_epochs = cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(o, "max_epochs")) ? (int)v->valuedouble : 0;
    if (s->max_epochs < 1 || s->max_epochs > 10000) { fail(err, path, "max_epochs", "a whole number from 1 to 10000"); goto out; }
    s->train_subset = cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(o, "train_subset")) ? (long)v->valuedouble : 0;
    const cJSON *norm = cJSON_GetObjectItemCaseSensitive(o, "input_normalization");
    if (norm) {
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(norm, "mean"), *ns = cJSON_GetObjectItemCaseSensitive(norm, "std");
        if (!cJSON_IsNumber(nm) || !cJSON_IsNumber(ns) || ns->valuedouble <= 0) {
            fail(err, path, "input_normalization", "an object {mean, std} with std > 0 (of pixel / 255)");
            goto out;
        }
        s->input_mean = nm->valuedouble;
        s->input_std = ns->valuedouble;
    }
    const cJSON *seeds = cJSON_GetObjectItemCaseSensitive(o, "seeds"), *x;
    cJSON_ArrayForEach(x, seeds) if (cJSON_IsNumber(x) && s->n_seeds < 64) s->seeds[s->n_seeds++] = (uint64_t)x->valuedouble;
    if (s->n_seeds == 0) s->seeds[s->n_seeds++] = 0;
    rc = TTA_OK;
out:
    cJSON_Delete(o);
    if (rc) tta_replay_spec_free(s);
    return rc;
}

void tta_replay_spec_free(tta_replay_spec *s) {
    free(s->benchmark);
    free(s->model);
    free(s->model_params);
    free(s->dataset_kind);
    free(s->dataset_path);
    free(s->origin);
    memset(s, 0, sizeof *s);
}

int tta_replay_input_shape(const tta_replay_spec *s, int *c, int *h, int *w, int *classes) {
    const char *k = s->dataset_kind ? s->dataset_kind : "";
    if (!strcmp(k, "cifar10") || !strcmp(k, "cifar100")) {
        *c = 3, *h = *w = 32, *classes = !strcmp(k, "cifar100") ? 100 : 10;
    } else if (!strcmp(k, "fashion-mnist") || !strcmp(k, "mnist")) {
        *c = 1, *h = *w = 28, *classes = 10;
    } else if (!strcmp(k, "generated")) {
        *c = 1, *h = *w = 16, *classes = 4; /* small, learnable in seconds (tests) */
    } else {
        return -1;
    }
    return 0;
}

/* The spec's dataset as read, each pixel / 255 (or a generated value), not yet normalised. */
static int load_raw(const tta_replay_spec *s, tta_dataset *train, tta_dataset *unseen, tta_dataset *val,
                    tta_error *err) {
    const char *k = s->dataset_kind ? s->dataset_kind : "";
    int cifar = !strcmp(k, "cifar10") || !strcmp(k, "cifar100");
    int idx = !strcmp(k, "fashion-mnist") || !strcmp(k, "mnist");
    if ((cifar || idx) && !s->dataset_path)
        return tta_fail(err, TTA_EINPUT, "dataset kind \"%s\": no path to its files", k);
    if (cifar) return tta_data_cifar(s->dataset_path, !strcmp(k, "cifar100"), train, unseen, val, err);
    if (idx) return tta_data_fashion_mnist(s->dataset_path, train, unseen, val, err);
    if (!strcmp(k, "generated")) {
        int c, h, w, classes;
        tta_replay_input_shape(s, &c, &h, &w, &classes);
        size_t n = (size_t)s->generated_n;
        *train = tta_data_generated(n, c, h, w, classes, 1.0, 1);
        *val = tta_data_generated(n / 4 + 1, c, h, w, classes, 1.0, 2);
        *unseen = tta_data_generated(n / 4 + 1, c, h, w, classes, 1.0, 3);
        return TTA_OK;
    }
    return tta_fail(err, TTA_EINPUT, "dataset kind \"%s\": unknown", k);
}

int tta_replay_load_data(const tta_replay_spec *s, tta_dataset *train, tta_dataset *unseen, tta_dataset *val,
                         tta_error *err) {
    int rc = load_raw(s, train, unseen, val, err);
    if (rc == TTA_OK && s->input_std > 0) {
        /* the three splits are disjoint (unseen may be a view of the rows after train's) */
        tta_data_normalize(train, s->input_mean, s->input_std);
        tta_data_normalize(unseen, s->input_mean, s->input_std);
        tta_data_normalize(val, s->input_mean, s->input_std);
    }
    return rc;
}

double tta_replay_lr_factor(const tta_replay_spec *s, int workers, double epochs) {
    if (workers <= 1) return 1;
    switch (s->lr_scaling) {
    case TTA_LR_SCALING_NONE: return 1;
    case TTA_LR_SCALING_LINEAR:
        if (s->lr_scaling_warmup > 0 && epochs < s->lr_scaling_warmup)
            return 1 + (workers - 1) * (epochs / s->lr_scaling_warmup);
        return workers;
    case TTA_LR_SCALING_TABLE:
        return workers <= 64 && s->lr_scaling_table[workers] > 0 ? s->lr_scaling_table[workers] : 1;
    }
    return 1;
}
