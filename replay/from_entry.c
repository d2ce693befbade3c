/* from_entry.c: a replay SPEC built from an ingested DAWNBench entry's own description: its misc
 * block (optimizer, momentum, weightDecay, batchSize, learningRate schedule) and model. */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/check.h"
#include "replay/replay.h"

/* The first run's value of a hyperparameter of the entry, as JSON text (malloc'd) or NULL. */
static char *hparam(sqlite3 *db, int64_t entry, const char *key) {
    sqlite3_stmt *st;
    char *v = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT h.value FROM hyperparameters h JOIN runs r ON r.id = h.run_id"
                           " WHERE r.entry_id = ?1 AND h.key = ?2 ORDER BY r.run_index LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK)
        return NULL;
    sqlite3_bind_int64(st, 1, entry);
    sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        v = strdupCheck((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return v;
}

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

int tta_replay_spec_from_entry(sqlite3 *db, int64_t entry, const char *data_dir, tta_replay_spec *s, char *err,
                               size_t errlen) {
    memset(s, 0, sizeof *s);
    sqlite3_stmt *st;
    char *bench = NULL, *model_text = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT e.benchmark, (SELECT json_extract(y.description, '$.model') FROM systems y"
                           " WHERE y.round = e.round AND y.name = e.system ORDER BY y.id DESC LIMIT 1)"
                           " FROM entries e WHERE e.id = ?1",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, entry);
        if (sqlite3_step(st) == SQLITE_ROW) {
            if (sqlite3_column_text(st, 0)) bench = strdupCheck((const char *)sqlite3_column_text(st, 0));
            if (sqlite3_column_text(st, 1)) model_text = strdupCheck((const char *)sqlite3_column_text(st, 1));
        }
        sqlite3_finalize(st);
    }
    int rc = -1;
    char *opt = hparam(db, entry, "optimizer"), *mom = hparam(db, entry, "momentum");
    char *wd = hparam(db, entry, "weightDecay"), *bs = hparam(db, entry, "batchSize");
    char *lr = hparam(db, entry, "learningRate");
    if (!bench || strcmp(bench, "fashion-mnist")) {
        snprintf(err, errlen, "entry %lld: replay reads Fashion-MNIST; this entry's task is %s", (long long)entry,
                 bench ? bench : "unknown");
        goto out;
    }
    if (model_of(model_text, &s->model, &s->model_params) != 0) {
        snprintf(err, errlen, "entry %lld: model \"%s\" has no model file here (mlp, resnet9)", (long long)entry,
                 model_text ? model_text : "not described");
        goto out;
    }
    if (!lr || !bs) {
        snprintf(err, errlen, "entry %lld: its description gives no %s", (long long)entry,
                 !lr ? "misc.learningRate" : "misc.batchSize");
        goto out;
    }
    char serr[200];
    if (tta_lr_schedule_parse(lr, &s->schedule, serr, sizeof serr) != 0) {
        snprintf(err, errlen, "entry %lld: misc.learningRate: %s", (long long)entry, serr);
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
    s->target = 0.88; /* the Fashion-MNIST threshold tta files these claims under (docs/ingest.md) */
    s->max_epochs = s->schedule.kind == TTA_LR_PIECEWISE_LINEAR ? (int)ceil(s->schedule.epochs[s->schedule.n - 1]) : 15;
    s->n_seeds = 1;
    rc = 0;
out:
    free(bench);
    free(model_text);
    free(opt);
    free(mom);
    free(wd);
    free(bs);
    free(lr);
    if (rc) tta_replay_spec_free(s);
    return rc;
}
