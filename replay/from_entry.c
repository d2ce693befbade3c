/* from_entry.c: a replay SPEC built from a DAWNBench entry's own description: its misc block
 * (optimizer, momentum, weightDecay, batchSize, learningRate schedule) and model, as the caller
 * read them from the database (tta_replay_recipe: replay reads no database). */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/check.h"
#include "replay/replay.h"

static double number_of(const char *json, double fallback) {
    if (!json) return fallback;
    char *end;
    double v = strtod(json, &end);
    return end == json ? fallback : v;
}

/* The model of a description ("MLP 784-512-512-10, ReLU"): a shipped model and its overrides. */
static int model_of(const char *text, char **model, char **params) {
    if (!text) return -1;
    if (strstr(text, "MLP") || strstr(text, "mlp")) {
        /* the hidden widths between the input and the output: 784-512-512-10 */
        int w[8], n = 0;
        for (const char *p = text; *p && n < 8;) {
            if (isdigit((unsigned char)*p)) {
                char *e;
                long v = strtol(p, &e, 10);
                if (*e == '-' || (n > 0 && p[-1] == '-')) w[n++] = (int)v;
                p = e;
            } else {
                p++;
            }
        }
        *model = strdupCheck("mlp");
        if (n == 4) {
            buf b = {0};
            buf_printf(&b, "hidden1=%d,hidden2=%d", w[1], w[2]);
            *params = buf_take(&b);
        }
        return 0;
    }
    if (strcasestr(text, "resnet9") || strcasestr(text, "resnet 9") || strcasestr(text, "resnet-9")) {
        *model = strdupCheck("resnet9");
        return 0;
    }
    return -1;
}

int tta_replay_spec_from_recipe(const tta_replay_recipe *r, const char *data_dir, tta_replay_spec *s,
                                tta_error *err) {
    memset(s, 0, sizeof *s);
    const long long entry = (long long)r->entry;
    const char *bench = r->benchmark, *model_text = r->model, *opt = r->optimizer, *mom = r->momentum;
    const char *wd = r->weight_decay, *bs = r->batch_size, *lr = r->learning_rate;
    int rc = TTA_EINPUT;
    if (!bench || strcmp(bench, "fashion-mnist")) {
        tta_fail(err, TTA_EUNSUPPORTED, "entry %lld: replay reads Fashion-MNIST; this entry's task is %s", entry,
                 bench ? bench : "unknown");
        rc = TTA_EUNSUPPORTED;
        goto out;
    }
    if (model_of(model_text, &s->model, &s->model_params) != 0) {
        tta_fail(err, TTA_EUNSUPPORTED, "entry %lld: model \"%s\" has no model file here (mlp, resnet9)", entry,
                 model_text ? model_text : "not described");
        rc = TTA_EUNSUPPORTED;
        goto out;
    }
    if (!lr || !bs) {
        tta_fail(err, TTA_EINPUT, "entry %lld: its description gives no %s", entry,
                 !lr ? "misc.learningRate" : "misc.batchSize");
        goto out;
    }
    char serr[200];
    if (tta_lr_schedule_parse(lr, &s->schedule, serr, sizeof serr) != 0) {
        tta_fail(err, TTA_EINPUT, "entry %lld: misc.learningRate: %s", entry, serr);
        goto out;
    }
    s->benchmark = strdupCheck("fashion-mnist");
    s->dataset_kind = strdupCheck("fashion-mnist");
    s->dataset_path = strdupCheck(data_dir ? data_dir : "/usr/share/datasets/fashion-mnist");
    int adam = opt && strcasestr(opt, "adam");
    s->optimizer = (tta_opt_config){.kind = adam ? TTA_OPT_ADAM : TTA_OPT_SGD, .momentum = number_of(mom, 0),
                                    .nesterov = opt && strcasestr(opt, "nesterov") != NULL,
                                    .weight_decay = number_of(wd, 0), .beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8};
    s->batch_size = (int)number_of(bs, 0);
    if (r->input_normalization) {
        /* misc.inputNormalization: pixel / 255, then (x - mean) / std */
        cJSON *n = cJSON_Parse(r->input_normalization);
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(n, "mean"), *ns = cJSON_GetObjectItemCaseSensitive(n, "std");
        int ok = cJSON_IsNumber(nm) && cJSON_IsNumber(ns) && ns->valuedouble > 0;
        if (ok) s->input_mean = nm->valuedouble, s->input_std = ns->valuedouble;
        cJSON_Delete(n);
        if (!ok) {
            tta_fail(err, TTA_EINPUT, "entry %lld: misc.inputNormalization: an object {mean, std} with std > 0", entry);
            goto out;
        }
    }
    s->target = 0.88; /* the Fashion-MNIST threshold tta files these claims under (docs/ingest.md) */
    s->max_epochs = s->schedule.kind == TTA_LR_PIECEWISE_LINEAR ? (int)ceil(s->schedule.epochs[s->schedule.n - 1]) : 15;
    s->n_seeds = 1;
    rc = TTA_OK;
out:
    if (rc) tta_replay_spec_free(s);
    return rc;
}
