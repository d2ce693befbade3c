/* schedule.c: learning-rate schedules (see schedule.h). */
#include "replay/schedule.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Reads an array of at most TTA_SCHEDULE_MAX_POINTS numbers. */
static int read_numbers(const cJSON *a, double *out, size_t *n, const char *field, char *err, size_t errlen) {
    if (!cJSON_IsArray(a)) {
        snprintf(err, errlen, "%s: needs an array of numbers", field);
        return -1;
    }
    size_t k = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, a) {
        if (!cJSON_IsNumber(x) || k == TTA_SCHEDULE_MAX_POINTS) {
            snprintf(err, errlen, "%s: needs at most %d numbers", field, TTA_SCHEDULE_MAX_POINTS);
            return -1;
        }
        out[k++] = x->valuedouble;
    }
    *n = k;
    return 0;
}

static int number(const cJSON *o, const char *key, double fallback, double *out, int required, char *err,
                  size_t errlen) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v) {
        if (required) {
            snprintf(err, errlen, "%s: missing", key);
            return -1;
        }
        *out = fallback;
        return 0;
    }
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) {
        snprintf(err, errlen, "%s: needs a number", key);
        return -1;
    }
    *out = v->valuedouble;
    return 0;
}

int tta_lr_schedule_parse(const char *json, tta_lr_schedule *s, char *err, size_t errlen) {
    memset(s, 0, sizeof *s);
    cJSON *o = cJSON_Parse(json);
    int rc = -1;
    if (!cJSON_IsObject(o)) {
        snprintf(err, errlen, "schedule: not a JSON object");
        goto out;
    }
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(o, "type");
    const char *t = cJSON_IsString(type) ? type->valuestring : "";
    if (number(o, "warmup_epochs", 0, &s->warmup_epochs, 0, err, errlen)) goto out;
    if (s->warmup_epochs < 0) {
        snprintf(err, errlen, "warmup_epochs: must not be negative");
        goto out;
    }
    if (!strcmp(t, "piecewiseLinear") || !strcmp(t, "piecewise_linear")) {
        size_t ne, nv;
        s->kind = TTA_LR_PIECEWISE_LINEAR;
        if (read_numbers(cJSON_GetObjectItemCaseSensitive(o, "epochs"), s->epochs, &ne, "epochs", err, errlen) ||
            read_numbers(cJSON_GetObjectItemCaseSensitive(o, "values"), s->values, &nv, "values", err, errlen))
            goto out;
        if (ne == 0 || ne != nv) {
            snprintf(err, errlen, "values: needs one value per epoch (%zu epochs, %zu values)", ne, nv);
            goto out;
        }
        for (size_t i = 1; i < ne; i++)
            if (!(s->epochs[i] > s->epochs[i - 1])) {
                snprintf(err, errlen, "epochs: must increase");
                goto out;
            }
        s->n = ne;
    } else if (!strcmp(t, "step")) {
        s->kind = TTA_LR_STEP;
        if (number(o, "base", 0, &s->base, 1, err, errlen) || number(o, "gamma", 0.1, &s->gamma, 0, err, errlen) ||
            read_numbers(cJSON_GetObjectItemCaseSensitive(o, "milestones"), s->epochs, &s->n, "milestones", err,
                         errlen))
            goto out;
    } else if (!strcmp(t, "cosine")) {
        s->kind = TTA_LR_COSINE;
        if (number(o, "base", 0, &s->base, 1, err, errlen) ||
            number(o, "epochs", 0, &s->total_epochs, 1, err, errlen) ||
            number(o, "final", 0, &s->final_lr, 0, err, errlen))
            goto out;
    } else if (!strcmp(t, "polynomial")) {
        s->kind = TTA_LR_POLYNOMIAL;
        if (number(o, "base", 0, &s->base, 1, err, errlen) ||
            number(o, "epochs", 0, &s->total_epochs, 1, err, errlen) ||
            number(o, "power", 2, &s->power, 0, err, errlen) || number(o, "final", 0, &s->final_lr, 0, err, errlen))
            goto out;
    } else if (!strcmp(t, "invsqrt")) {
        s->kind = TTA_LR_INVSQRT;
        if (number(o, "base", 0, &s->base, 1, err, errlen)) goto out;
        if (!(s->warmup_epochs > 0)) {
            snprintf(err, errlen, "warmup_epochs: invsqrt needs a positive warm-up");
            goto out;
        }
    } else {
        snprintf(err, errlen, "type: unknown schedule '%s' (piecewiseLinear, step, cosine, polynomial, invsqrt)", t);
        goto out;
    }
    if ((s->kind == TTA_LR_COSINE || s->kind == TTA_LR_POLYNOMIAL) && !(s->total_epochs > 0)) {
        snprintf(err, errlen, "epochs: must be positive");
        goto out;
    }
    rc = 0;
out:
    cJSON_Delete(o);
    return rc;
}

/* The schedule's own value, before warm-up. */
static double base_value(const tta_lr_schedule *s, double e) {
    switch (s->kind) {
    case TTA_LR_PIECEWISE_LINEAR:
        if (e <= s->epochs[0]) return s->values[0];
        for (size_t i = 1; i < s->n; i++)
            if (e <= s->epochs[i]) {
                double w = (e - s->epochs[i - 1]) / (s->epochs[i] - s->epochs[i - 1]);
                return s->values[i - 1] + w * (s->values[i] - s->values[i - 1]);
            }
        return s->values[s->n - 1];
    case TTA_LR_STEP: {
        double lr = s->base;
        for (size_t i = 0; i < s->n; i++)
            if (e >= s->epochs[i]) lr *= s->gamma;
        return lr;
    }
    case TTA_LR_COSINE: {
        double p = e >= s->total_epochs ? 1.0 : e / s->total_epochs;
        return s->final_lr + 0.5 * (s->base - s->final_lr) * (1.0 + cos(M_PI * p));
    }
    case TTA_LR_POLYNOMIAL: {
        double p = e >= s->total_epochs ? 1.0 : e / s->total_epochs;
        return s->final_lr + (s->base - s->final_lr) * pow(1.0 - p, s->power);
    }
    case TTA_LR_INVSQRT: {
        double w = s->warmup_epochs, x = e > 0 ? e : 0;
        double a = x > 0 ? 1.0 / sqrt(x) : INFINITY, b = x / pow(w, 1.5);
        return s->base * (a < b ? a : b);
    }
    }
    return NAN;
}

double tta_lr_at(const tta_lr_schedule *s, double epoch) {
    if (s->kind != TTA_LR_INVSQRT && s->warmup_epochs > 0 && epoch < s->warmup_epochs)
        return base_value(s, s->warmup_epochs) * (epoch / s->warmup_epochs);
    return base_value(s, epoch);
}
