/* rcp.c: the reference convergence point (RCP) check, as MLCommons' rcp_checker does it:
 * reference means are olympic means, standard deviations use all runs (ddof 0); a submission
 * passes when its olympic mean of epochs is at least the smallest mean a one-sided pooled
 * t-test (alpha 0.05) accepts; batch sizes between reference points are interpolated linearly;
 * reference points slower than the interpolation of their neighbours are pruned first. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>

#include "common/buf.h"
#include "common/check.h"
#include "stats/stats.h"

#define RCP_ALPHA 0.05
#define RCP_TOLERANCE 1e-4
#define RCP_NOT_CONVERGED 1e9

size_t tta_rcp_submission_runs(const char *b) {
    static const struct {
        const char *name;
        size_t runs;
    } t[] = {{"bert", 10}, {"dlrm_dcnv2", 10}, {"gpt3", 3}, {"maskrcnn", 5}, {"resnet", 5}, {"ssd", 5},
             {"retinanet", 5}, {"unet3d", 40}, {"rnnt", 10}, {"stable_diffusion", 10}, {"gnn", 10},
             {"llama2_70b_lora", 10}};
    for (size_t i = 0; b && i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(b, t[i].name)) return t[i].runs;
    return 0;
}

static size_t rejected(const char *benchmark) { return benchmark && !strcmp(benchmark, "unet3d") ? 4 : 1; }

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* P(T <= t) of the pooled two-sample t statistic of (m1, s1, n1) against (m2, s2, n2): the
 * one-sided p-value rcp_checker derives from scipy's ttest_ind_from_stats(equal_var=True). */
static double pooled_one_sided_p(double m1, double s1, size_t n1, double m2, double s2, size_t n2) {
    double df = (double)(n1 + n2 - 2);
    double sp2 = ((double)(n1 - 1) * s1 * s1 + (double)(n2 - 1) * s2 * s2) / df;
    double t = (m1 - m2) / sqrt(sp2 * (1.0 / (double)n1 + 1.0 / (double)n2));
    return gsl_cdf_tdist_P(t, df);
}

double tta_rcp_min_mean(double mean, double stdev, size_t n_ref, size_t n_subm) {
    gsl_set_error_handler_off();
    if (stdev == 0) return mean;
    double hi = mean, lo = 0.0, mid = (lo + hi) / 2;
    while (hi - lo > RCP_TOLERANCE) {
        /* rcp_checker passes (mid, stdev, n_ref) as the first sample and (mean, stdev, n_subm)
         * as the second: mirrored here. */
        double p = pooled_one_sided_p(mid, stdev, n_ref, mean, stdev, n_subm);
        if (p > RCP_ALPHA)
            hi = mid;
        else
            lo = mid;
        mid = (lo + hi) / 2;
    }
    return mid;
}

/* Linear interpolation of mean and stdev at bs between two points, with its minimum mean. */
static tta_rcp_point interpolate(double bs, const tta_rcp_point *lo, const tta_rcp_point *hi, size_t subm_runs) {
    double w = (bs - lo->bs) / (hi->bs - lo->bs);
    tta_rcp_point p = {.bs = bs, .mean = lo->mean + w * (hi->mean - lo->mean),
                       .stdev = lo->stdev + w * (hi->stdev - lo->stdev)};
    p.min_epochs = tta_rcp_min_mean(p.mean, p.stdev, subm_runs * 2, subm_runs - 2);
    return p;
}

static int compare_bs(const void *a, const void *b) {
    double x = ((const tta_rcp_point *)a)->bs, y = ((const tta_rcp_point *)b)->bs;
    return (x > y) - (x < y);
}

/* rcp_checker's pruning: drop points with a batch size below the fastest-converging one,
 * then every point slower than the interpolation of its neighbours. */
static void prune(tta_rcp_set *set) {
    set->pruned = mallocCheck((set->n ? set->n : 1) * sizeof *set->pruned);
    if (set->n == 0) return;
    size_t fastest = 0;
    for (size_t i = 1; i < set->n; i++)
        if (set->points[i].mean < set->points[fastest].mean) fastest = i;
    size_t m = 0;
    for (size_t i = 0; i < set->n; i++)
        if (set->points[i].bs >= set->points[fastest].bs) set->pruned[m++] = set->points[i];
    for (size_t i = 1; m >= 3 && i + 1 < m;) {
        tta_rcp_point p = interpolate(set->pruned[i].bs, &set->pruned[i - 1], &set->pruned[i + 1], set->submission_runs);
        if (set->pruned[i].mean > p.mean) {
            memmove(&set->pruned[i], &set->pruned[i + 1], (m - i - 1) * sizeof *set->pruned);
            m--;
            if (i > 1) i--;
        } else {
            i++;
        }
    }
    set->n_pruned = m;
}

static void set_error(char **err, const char *fmt, const char *a, const char *b) {
    if (!err) return;
    buf e = {0};
    buf_printf(&e, fmt, a, b);
    *err = buf_take(&e);
}

int tta_rcp_load(const char *dir, const char *benchmark, tta_rcp_set *set, char **err) {
    gsl_set_error_handler_off();
    memset(set, 0, sizeof *set);
    set->submission_runs = tta_rcp_submission_runs(benchmark);
    buf path = {0};
    buf_printf(&path, "%s/rcps_%s.json", dir, benchmark);
    FILE *f = fopen(buf_str(&path), "rb");
    if (!f) {
        set_error(err, "no reference convergence points for %s in %s", benchmark, dir);
        buf_free(&path);
        return 1;
    }
    buf text = {0};
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) buf_append(&text, chunk, got);
    fclose(f);
    cJSON *root = cJSON_Parse(buf_str(&text));
    buf_free(&text);
    if (!cJSON_IsObject(root)) {
        set_error(err, "%s: %s", buf_str(&path), "not a JSON object of reference points");
        cJSON_Delete(root);
        buf_free(&path);
        return -1;
    }
    if (set->submission_runs == 0) set->submission_runs = 10;
    size_t cap = 0;
    const cJSON *rec;
    cJSON_ArrayForEach(rec, root) {
        const cJSON *bs = cJSON_GetObjectItemCaseSensitive(rec, "BS");
        const cJSON *runs = cJSON_GetObjectItemCaseSensitive(rec, "Epochs to converge");
        if (!runs) runs = cJSON_GetObjectItemCaseSensitive(rec, "samples to converge");
        if (!cJSON_IsNumber(bs) || !cJSON_IsArray(runs) || cJSON_GetArraySize(runs) < 3) continue;
        size_t k = (size_t)cJSON_GetArraySize(runs), j = 0;
        double *v = mallocCheck(k * sizeof *v);
        const cJSON *x;
        cJSON_ArrayForEach(x, runs) if (cJSON_IsNumber(x)) v[j++] = x->valuedouble;
        size_t rej = rejected(benchmark);
        if (j <= 2 * rej) {
            free(v);
            continue;
        }
        qsort(v, j, sizeof *v, compare_double);
        double sum = 0;
        for (size_t i = rej; i < j - rej; i++) sum += v[i];
        tta_rcp_point p = {.bs = bs->valuedouble, .mean = sum / (double)(j - 2 * rej),
                           .stdev = tta_std_population(v, j), .runs = j};
        p.min_epochs = tta_rcp_min_mean(p.mean, p.stdev, j - 2 * rej, set->submission_runs - 2);
        growArray(set->points, &cap, set->n + 1);
        set->points[set->n++] = p;
        free(v);
    }
    cJSON_Delete(root);
    if (set->n == 0) {
        set_error(err, "%s: %s", buf_str(&path), "no usable reference point");
        buf_free(&path);
        return -1;
    }
    buf_free(&path);
    qsort(set->points, set->n, sizeof *set->points, compare_bs);
    prune(set);
    return 0;
}

void tta_rcp_free(tta_rcp_set *set) {
    free(set->points);
    free(set->pruned);
    memset(set, 0, sizeof *set);
}

/* Passes when the submission's mean is at least the point's minimum acceptable mean. */
static void evaluate(const tta_rcp_point *p, double subm_mean, tta_rcp_result *r) {
    r->rcp_mean = p->mean;
    r->min_mean = p->min_epochs;
    double norm = p->mean / subm_mean;
    r->normalization = norm < 1 ? 1.0 : norm;
    r->status = subm_mean >= p->min_epochs ? TTA_RCP_PASS : TTA_RCP_FAIL;
}

tta_rcp_result tta_rcp_check(const tta_rcp_set *set, double bs, const double *epochs, size_t n,
                             const char *benchmark) {
    tta_rcp_result r = {.status = TTA_RCP_BAD_INPUT, .rcp_mean = NAN, .min_mean = NAN, .subm_mean = NAN,
                        .normalization = 1.0};
    if (set->n_pruned == 0) {
        r.status = TTA_RCP_NO_REFERENCE;
        r.why = "no reference convergence points for this benchmark";
        return r;
    }
    if (isnan(bs) || bs <= 0 || n == 0) {
        r.why = "no global batch size or no runs";
        return r;
    }
    size_t rej = rejected(benchmark), failed = 0;
    double *v = mallocCheck(n * sizeof *v);
    for (size_t i = 0; i < n; i++) {
        v[i] = isnan(epochs[i]) || epochs[i] <= 0 ? RCP_NOT_CONVERGED : epochs[i];
        failed += v[i] == RCP_NOT_CONVERGED;
    }
    if (failed > rej) {
        free(v);
        r.status = TTA_RCP_NO_CONVERGENCE;
        r.why = "insufficient convergence: more failed runs than olympic scoring drops";
        return r;
    }
    if (n <= 2 * rej) {
        free(v);
        r.why = "too few runs for an olympic mean of epochs";
        return r;
    }
    qsort(v, n, sizeof *v, compare_double);
    double sum = 0;
    for (size_t i = rej; i < n - rej; i++) sum += v[i];
    r.subm_mean = sum / (double)(n - 2 * rej);
    free(v);

    const tta_rcp_point *pts = set->pruned, *exact = NULL, *below = NULL, *above = NULL;
    for (size_t i = 0; i < set->n_pruned; i++) {
        if (pts[i].bs == bs) exact = &pts[i];
        if (pts[i].bs < bs && (!below || pts[i].bs > below->bs)) below = &pts[i];
        if (pts[i].bs > bs && (!above || pts[i].bs < above->bs)) above = &pts[i];
    }
    if (exact) {
        r.how = "reference point";
        evaluate(exact, r.subm_mean, &r);
    } else if (below && above) {
        tta_rcp_point p = interpolate(bs, below, above, set->submission_runs);
        r.how = "interpolated";
        evaluate(&p, r.subm_mean, &r);
    } else if (!below && above) {
        /* Smaller than every reference: compared with the smallest, which converges faster. */
        r.how = "smallest reference point";
        evaluate(&pts[0], r.subm_mean, &r);
        if (r.status == TTA_RCP_FAIL) {
            r.status = TTA_RCP_MISSING_POINT;
            r.why = "no reference point at this batch size (one must be submitted)";
        }
    } else {
        r.status = TTA_RCP_MISSING_POINT;
        r.why = "batch size above every reference point (one must be submitted)";
    }
    return r;
}
