/* rcp.c: the reference convergence point (RCP) check, mirroring MLCommons' rcp_checker
 * (mlperf_logging/rcp_checker/rcp_checker.py, mlcommons/logging 7bbf792): reference statistics, the minimum
 * acceptable mean by bisection on a one-sided pooled t-test, pruning, interpolation between batch
 * sizes, the pass/fail decision and the score normalisation. Reading the files: rcp_load.c. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>

#include "common/check.h"
#include "common/rules.h"
#include "stats/rcp_internal.h"
#include "stats/stats.h"

#define RCP_ALPHA 0.05
#define RCP_TOLERANCE 1e-4
#define RCP_NOT_CONVERGED 1e9
/* llama31_405b from rules 5.0.0 on: the limit is lowered by one evaluation interval of samples. */
#define RCP_LLAMA31_405B_SLACK 46080.0

/* The runs a submission makes, from the rules (rcp_checker's submission_runs, recorded in
 * schemas/benchmark_rules.json): the latest ruleset whose RCP checker judges the benchmark, named
 * by its canonical name or by the name of its RCP file. */
size_t tta_rcp_submission_runs(const char *benchmark) {
    const tta_rules *rules = tta_rules_builtin();
    const tta_rule *best = NULL;
    int best_order = -2;
    for (size_t i = 0; benchmark && i < rules->n_rules; i++) {
        const tta_rule *r = &rules->rules[i];
        if (!r->rcp || r->runs_required <= 0) continue;
        if (strcmp(r->benchmark, benchmark) != 0 && strcmp(r->rcp_name, benchmark) != 0) continue;
        int order = tta_rules_ruleset_order(rules, r->ruleset);
        if (order > best_order) best = r, best_order = order;
    }
    return best ? (size_t)best->runs_required : 0;
}

/* rcp_checker hard-codes it (compute_rcp_stats, get_submission_epochs, _eval_submission_record). */
size_t tta_rcp_rejected(const char *benchmark) { return benchmark && !strcmp(benchmark, "unet3d") ? 4 : 1; }

/* P(T <= t) for the pooled equal-variance t statistic of sample 1 against sample 2: the one-sided
 * p-value rcp_checker derives from scipy's ttest_ind_from_stats(equal_var=True) (p/2 when t < 0,
 * 1 - p/2 otherwise). */
static double pooled_one_sided_p(double m1, double s1, size_t n1, double m2, double s2, size_t n2) {
    double df = (double)n1 + (double)n2 - 2.0;
    double pooled_var = ((double)n1 - 1.0) * s1 * s1 + ((double)n2 - 1.0) * s2 * s2;
    double denom = sqrt(pooled_var / df * (1.0 / (double)n1 + 1.0 / (double)n2));
    return gsl_cdf_tdist_P((m1 - m2) / denom, df);
}

/* _find_min_acceptable_mean: bisection keeping the largest mean the test rejects below. */
double tta_rcp_min_mean(double mean, double stdev, size_t n_ref, size_t n_subm) {
    gsl_set_error_handler_off();
    if (stdev == 0) return mean;
    double hi = mean, lo = 0.0, mid = (lo + hi) / 2;
    while (hi - lo > RCP_TOLERANCE) {
        /* As rcp_checker: the candidate mean with the reference's runs as sample 1, the reference
         * mean with the submission's runs as sample 2 (a NAN p, df 0, counts as rejected). */
        double p = pooled_one_sided_p(mid, stdev, n_ref, mean, stdev, n_subm);
        if (p > RCP_ALPHA)
            hi = mid;
        else
            lo = mid;
        mid = (lo + hi) / 2;
    }
    return mid;
}

/* Reference runs are references for twice the submission's runs less the two olympic drops. */
static size_t submission_samples(size_t submission_runs) { return submission_runs > 2 ? submission_runs - 2 : 1; }

tta_rcp_point tta_rcp_point_of(double bs, const double *runs, size_t n, size_t rejected, size_t submission_runs) {
    assert(n > 2 * rejected);
    tta_rcp_point p = {.bs = bs, .runs = n, .mean = tta_olympic_mean(runs, n, rejected, rejected),
                       .stdev = tta_std_population(runs, n)};
    p.min_epochs = tta_rcp_min_mean(p.mean, p.stdev, n - 2 * rejected, submission_samples(submission_runs));
    p.max_speedup = p.mean / p.min_epochs;
    return p;
}

/* numpy.interp(bs, [lo.bs, hi.bs], [lo.v, hi.v]) for lo.bs < bs < hi.bs: slope (x - x0) + y0. */
static double interp(double bs, double x0, double y0, double x1, double y1) {
    double slope = (y1 - y0) / (x1 - x0);
    return slope * (bs - x0) + y0;
}

/* _create_interp_rcp: mean and stdev interpolated linearly; the minimum mean with 2 x the
 * submission's runs as the reference's sample size. */
static tta_rcp_point interpolate(double bs, const tta_rcp_point *lo, const tta_rcp_point *hi, size_t submission_runs) {
    tta_rcp_point p = {.bs = bs, .mean = interp(bs, lo->bs, lo->mean, hi->bs, hi->mean),
                       .stdev = interp(bs, lo->bs, lo->stdev, hi->bs, hi->stdev)};
    p.min_epochs = tta_rcp_min_mean(p.mean, p.stdev, 2 * submission_runs, submission_samples(submission_runs));
    p.max_speedup = p.mean / p.min_epochs;
    return p;
}

/* Stable sort by batch size: qsort is not stable, so ties are ordered by the original index. */
static void sort_by_bs(tta_rcp_point *points, size_t n) {
    typedef struct {
        tta_rcp_point p;
        size_t index;
    } indexed;
    indexed *tmp = mallocCheck((n ? n : 1) * sizeof *tmp);
    for (size_t i = 0; i < n; i++) tmp[i] = (indexed){points[i], i};
    for (size_t i = 1; i < n; i++) /* insertion sort: a few points per file */
        for (size_t j = i; j > 0 && (tmp[j - 1].p.bs > tmp[j].p.bs ||
                                     (tmp[j - 1].p.bs == tmp[j].p.bs && tmp[j - 1].index > tmp[j].index));
             j--) {
            indexed t = tmp[j];
            tmp[j] = tmp[j - 1];
            tmp[j - 1] = t;
        }
    for (size_t i = 0; i < n; i++) points[i] = tmp[i].p;
    free(tmp);
}

/* _prune_rcps: (1) drop the points with a batch size below that of the fastest-converging point
 * (the first of the smallest means); (2) for i = 1 .. len - 2, drop point i while it converges
 * slower than the interpolation of its neighbours (i stays, as the checker's i = i - 1; i = i + 1:
 * not a lower convex envelope); the pruned set is every point whose batch size survived. */
void tta_rcp_prune(tta_rcp_set *set) {
    sort_by_bs(set->points, set->n);
    set->pruned = mallocCheck((set->n ? set->n : 1) * sizeof *set->pruned);
    set->n_pruned = 0;
    if (set->n == 0) return;
    size_t fastest = 0;
    for (size_t i = 1; i < set->n; i++)
        if (set->points[i].mean < set->points[fastest].mean) fastest = i;
    tta_rcp_point *kept = mallocCheck(set->n * sizeof *kept);
    size_t m = 0;
    for (size_t i = 0; i < set->n; i++)
        if (set->points[i].bs >= set->points[fastest].bs) kept[m++] = set->points[i];
    for (size_t i = 1; i + 1 < m;) {
        double expected = interp(kept[i].bs, kept[i - 1].bs, kept[i - 1].mean, kept[i + 1].bs, kept[i + 1].mean);
        if (kept[i].mean > expected) {
            memmove(&kept[i], &kept[i + 1], (m - i - 1) * sizeof *kept);
            m--;
        } else {
            i++;
        }
    }
    for (size_t i = 0; i < set->n; i++)
        for (size_t j = 0; j < m; j++)
            if (set->points[i].bs == kept[j].bs) {
                set->pruned[set->n_pruned++] = set->points[i];
                break;
            }
    free(kept);
}

void tta_rcp_free(tta_rcp_set *set) {
    free(set->points);
    free(set->pruned);
    memset(set, 0, sizeof *set);
}

/* rcp_checker's search bounds: _find_top_min_rcp starts from 0, _find_bottom_max_rcp and
 * _find_min_rcp from 1e9 (strict comparisons: a point at or beyond them is never picked). */
#define RCP_BS_CEILING 1e9

/* The olympic mean of the checker's _eval_submission_record: sorted, r dropped from each end,
 * numpy's mean of the rest (NAN when nothing is left, as np.mean of an empty slice). */
static double submission_mean(const double *v, size_t n, size_t r) {
    if (n <= 2 * r) return NAN;
    double *s = mallocCheck(n * sizeof *s);
    memcpy(s, v, n * sizeof *s);
    for (size_t i = 1; i < n; i++) /* insertion sort: tens of runs */
        for (size_t j = i; j > 0 && s[j - 1] > s[j]; j--) {
            double t = s[j];
            s[j] = s[j - 1];
            s[j - 1] = t;
        }
    double sum = 0;
    for (size_t i = r; i < n - r; i++) sum += s[i];
    free(s);
    return sum / (double)(n - 2 * r);
}

/* _eval_submission_record and _find_norm_factor: pass when the submission's mean is at least
 * rcp_mean / max_speedup; the factor is rcp_mean / subm_mean unless that is below 1 (a NAN stays:
 * `1.0 if f < 1 else f`), returned whatever the verdict. */
static void evaluate(const tta_rcp_point *p, const char *benchmark, tta_rcp_result *r) {
    double max_speedup = p->max_speedup;
    if (benchmark && !strcmp(benchmark, "llama31_405b"))
        max_speedup = p->mean / (p->min_epochs - RCP_LLAMA31_405B_SLACK);
    r->rcp_mean = p->mean;
    r->min_mean = p->mean / max_speedup;
    r->speedup = p->mean / r->subm_mean;
    r->pass = r->subm_mean >= r->min_mean;
    r->normalization = r->speedup < 1 ? 1.0 : r->speedup;
}

/* The first pruned point at exactly bs (_find_rcp), the nearest below (_find_top_min_rcp) and above
 * (_find_bottom_max_rcp) it, and the smallest (_find_min_rcp); NULL when none. */
static void neighbours(const tta_rcp_set *set, double bs, const tta_rcp_point **exact, const tta_rcp_point **below,
                       const tta_rcp_point **above, const tta_rcp_point **smallest) {
    *exact = *below = *above = *smallest = NULL;
    double below_bs = 0, above_bs = RCP_BS_CEILING, smallest_bs = RCP_BS_CEILING;
    for (size_t i = 0; i < set->n_pruned; i++) {
        const tta_rcp_point *p = &set->pruned[i];
        if (p->bs == bs && !*exact) *exact = p;
        if (p->bs < bs && p->bs > below_bs) *below = p, below_bs = p->bs;
        if (p->bs > bs && p->bs < above_bs) *above = p, above_bs = p->bs;
        if (p->bs < smallest_bs) *smallest = p, smallest_bs = p->bs;
    }
}

/* str(bs) as Python prints the value json.loads gave: integers without a fraction, other values in
 * the shortest form that reads back the same. */
static void format_bs(char *out, size_t size, double bs) {
    if (bs == floor(bs) && fabs(bs) < 1e16) {
        snprintf(out, size, "%.0f", bs);
        return;
    }
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(out, size, "%.*g", digits, bs);
        if (strtod(out, NULL) == bs) return;
    }
}

static tta_rcp_result decided(tta_rcp_result r, tta_rcp_case kind, int pass, const char *msg) {
    r.kind = kind;
    r.pass = pass;
    snprintf(r.msg, sizeof r.msg, "%s", msg);
    return r;
}

/* get_submission_epochs' batch size over the runs in order: NAN when none is logged; *differ when a
 * later one differs (or is missing after one was seen). */
static double submission_bs(const tta_rcp_run *runs, size_t n, int *differ) {
    double bs = NAN;
    *differ = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(bs)) bs = runs[i].bs;
        else if (!(runs[i].bs == bs)) *differ = 1;
    }
    return bs;
}

tta_rcp_result tta_rcp_check(const tta_rcp_set *set, const tta_rcp_run *runs, size_t n, const char *benchmark) {
    assert(set && (n == 0 || runs));
    tta_rcp_result r = {.kind = TTA_RCP_NO_REFERENCE, .pass = -1, .bs = NAN, .rcp_mean = NAN, .min_mean = NAN,
                        .subm_mean = NAN, .speedup = NAN, .normalization = 1.0};
    if (!benchmark) benchmark = set->benchmark;
    if (set->n == 0) return r; /* no file: the checker stops before it reads a run */
    int differ;
    r.bs = submission_bs(runs, n, &differ);
    if (differ) {
        r.bs = NAN;
        return decided(r, TTA_RCP_BATCH_SIZES_DIFFER, 0, "Batch sizes in files do not match");
    }
    if (isnan(r.bs)) return decided(r, TTA_RCP_NO_BATCH_SIZE, 0, "Could not detect global_batch_size");
    size_t rejected = tta_rcp_rejected(benchmark), failed = 0;
    double *v = mallocCheck((n ? n : 1) * sizeof *v);
    for (size_t i = 0; i < n; i++) {
        failed += isnan(runs[i].progress);
        v[i] = isnan(runs[i].progress) ? RCP_NOT_CONVERGED : runs[i].progress;
    }
    r.subm_mean = submission_mean(v, n, rejected);
    free(v);
    if (failed > rejected) {
        r.subm_mean = NAN;
        return decided(r, TTA_RCP_INSUFFICIENT, 0, "Insufficient convergence");
    }

    const tta_rcp_point *exact, *below, *above, *smallest;
    neighbours(set, r.bs, &exact, &below, &above, &smallest);
    char missing[sizeof r.msg], bs_text[40];
    format_bs(bs_text, sizeof bs_text, r.bs);
    snprintf(missing, sizeof missing, "Missing RCP, please submit RCP with BS = %s", bs_text);
    if (exact) {
        evaluate(exact, benchmark, &r);
        return decided(r, TTA_RCP_FOUND, r.pass, "RCP found");
    }
    if (below && above) {
        tta_rcp_point p = interpolate(r.bs, below, above, set->submission_runs);
        evaluate(&p, benchmark, &r);
        return decided(r, TTA_RCP_INTERPOLATION, r.pass, "RCP Interpolation");
    }
    if (below) return decided(r, TTA_RCP_MISSING, 0, missing);
    if (above) {
        /* Below every batch size: the smallest point converges fastest, so passing it is enough; the
         * factor is kept either way (the checker returns it with its "Missing RCP"). */
        evaluate(smallest, benchmark, &r);
        if (!r.pass) return decided(r, TTA_RCP_MISSING, 0, missing);
        return decided(r, TTA_RCP_SMALLER_BATCH, 1, "RCP not found but slower convergence on smaller batch size");
    }
    return decided(r, TTA_RCP_NONE_FOUND, 0, "Cannot find any RCPs");
}

int tta_rcp_bypass(tta_rcp_result *r) {
    assert(r);
    if (r->pass != 0) return 0;
    if (r->kind != TTA_RCP_FOUND && r->kind != TTA_RCP_INTERPOLATION && r->kind != TTA_RCP_MISSING) return 0;
    size_t len = strlen(r->msg);
    snprintf(r->msg + len, sizeof r->msg - len, " passed using rcp_bypass");
    r->pass = 1;
    return 1;
}
