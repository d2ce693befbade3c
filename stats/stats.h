/* stats.h: the statistics module's contract: pure functions on plain arrays (GSL inside).
 *
 * No function here reads a database or prints. Inputs are arrays the caller owns; outputs are
 * structs filled by value. A statistic that cannot be computed (too few values, a zero mean)
 * is NAN, and the struct's `why` says why in words a report can print (a static string, never
 * freed). GSL's aborting error handler is switched off by every function that calls GSL.
 */
#ifndef TTA_STATS_H
#define TTA_STATS_H

#include <stddef.h>

/* ---- descriptives ---- */

double tta_mean(const double *x, size_t n);          /* NAN when n == 0 */
double tta_std_population(const double *x, size_t n); /* ddof 0; NAN when n == 0 */
double tta_std_sample(const double *x, size_t n);     /* ddof 1; NAN when n < 2 */
/* Coefficient of variation: population std / mean (the DAWNBench/MLPerf analyses' definition);
 * NAN when n == 0 or the mean is 0. */
double tta_cv(const double *x, size_t n);

/* Does quality q meet target t (relative tolerance 1e-6: logs print float32 values)? */
int tta_meets_target(double q, double t, int higher_is_better);

/* ---- the official MLPerf score ---- */

typedef struct {
    double score;      /* olympic mean of the run times, in the caller's unit; NAN when none */
    size_t n_runs;     /* runs given */
    size_t n_used;     /* runs averaged */
    size_t n_dropped;  /* runs that did not succeed */
    size_t required;   /* runs the rules require for the benchmark and round (0 unknown) */
    const char *why;   /* NULL, or why there is no score / what is off ("fewer runs than required") */
} tta_score;

/* Runs the rules require (MLPerf training_policies): vision 5, unet3d 40, most others 10;
 * 0 when unknown (DAWNBench, replays). */
size_t tta_required_runs(const char *benchmark, const char *round);

/* The MLCommons result summarizer's score: sort the times of the successful runs, drop the
 * fastest max_dropped (1; 4 for unet3d) and, of the slowest, max_dropped less the runs that
 * did not succeed, and average the rest. More failed runs than max_dropped: no score. */
tta_score tta_official_score(const double *times, const int *success, size_t n, const char *benchmark,
                             const char *round);

/* ---- CV with a bootstrap confidence interval ---- */

typedef struct {
    double cv, low, high; /* NAN when not computable */
    const char *why;
} tta_cv_ci;

/* CV and its percentile-bootstrap (1 - alpha) interval from `resamples` resamples drawn with a
 * mt19937 generator seeded with seed: the same inputs give the same interval. */
tta_cv_ci tta_cv_bootstrap(const double *x, size_t n, size_t resamples, double alpha, unsigned long seed);

/* ---- epochs × time per epoch ---- */

typedef struct {
    size_t n;                    /* runs with both epochs and time */
    double epochs_mean, epochs_std; /* population std */
    double tpe_mean, tpe_std;    /* time per epoch = TTA / epochs */
    double cv_epochs, cv_tpe;
    double cv_ratio;             /* cv_epochs / cv_tpe; NAN when cv_tpe is 0 */
    /* Var(log TTA) = Var(log epochs) + Var(log tpe) + 2 Cov: each share of it (sum to 1). */
    double log_share_epochs, log_share_tpe, log_share_cov;
    const char *why;
} tta_decomposition;

/* Decomposes the variance of TTA = epochs × tpe over runs; entries with NAN epochs or tta are
 * skipped. */
tta_decomposition tta_decompose(const double *tta, const double *epochs, size_t n);

/* ---- throughput versus TTA, scaling ---- */

typedef struct {
    double throughput_speedup; /* base time per epoch / time per epoch */
    double tta_speedup;        /* base score / score */
    double gap;                /* throughput_speedup / tta_speedup: > 1 when TTA gains less than throughput */
} tta_speedup;

/* Speedup of an entry over a base entry; NAN parts where an input is NAN or not positive. */
tta_speedup tta_speedup_of(double base_tpe, double base_score, double tpe, double score);

/* Efficiency of a speedup against linear scaling from base_acc to acc accelerators:
 * speedup / (acc / base_acc); NAN when the counts are unknown (<= 0). */
double tta_scaling_efficiency(double speedup, double base_acc, double acc);

/* ---- quality curves ---- */

typedef struct {
    double epoch;
    double mean, std; /* population std across the runs present at this epoch */
    size_t n;         /* runs with an evaluation at this epoch */
} tta_curve_stat;

/* Mean and std of quality per epoch across runs. Run r has n_points[r] points (epochs[r][i],
 * quality[r][i]); epochs are matched exactly (evaluations at the same epoch count). Writes at
 * most max_out rows, ordered by epoch, and returns how many. */
size_t tta_quality_curve(const double *const *epochs, const double *const *quality, const size_t *n_points,
                         size_t n_runs, tta_curve_stat *out, size_t max_out);

/* First point of a curve meeting threshold (relative tolerance 1e-6): its index, or -1. */
long tta_first_meeting(const double *quality, size_t n, double threshold, int higher_is_better);

/* ---- comparing two entries' TTAs ---- */

typedef struct {
    double t, df, p;  /* Welch's t-test, two-sided */
} tta_welch;

/* Welch's unequal-variance t-test of mean(a) = mean(b); NANs when a group has < 2 values or
 * both variances are 0. */
tta_welch tta_welch_test(const double *a, size_t na, const double *b, size_t nb);

typedef struct {
    double u;       /* U of sample a: sum of its ranks - na(na+1)/2 (ties take average ranks) */
    double p;       /* two-sided */
    int exact;      /* 1: exact distribution (no ties, na, nb <= 50); 0: normal approximation with
                       tie and continuity correction */
} tta_mwu;

tta_mwu tta_mann_whitney(const double *a, size_t na, const double *b, size_t nb);

/* Percentile-bootstrap (1 - alpha) interval of mean(a) / mean(b), resampling each group. */
void tta_ratio_ci(const double *a, size_t na, const double *b, size_t nb, size_t resamples, double alpha,
                  unsigned long seed, double *low, double *high);

/* Runs per group a two-sided two-sample t-test needs to detect a difference of rel_diff × the
 * mean at significance alpha with the given power, for a common standard deviation sd around
 * mean: n = 2 ((t_{1-alpha/2,df} + t_{power,df}) sd / (rel_diff mean))^2, iterated with
 * df = 2n - 2 from the normal approximation. NAN when sd or mean are not positive. */
double tta_runs_needed(double mean, double sd, double rel_diff, double alpha, double power);

/* ---- reference convergence points (MLCommons rcp_checker, training rules 1.0.0 on) ---- */

typedef struct {
    double bs;          /* global batch size */
    double mean;        /* olympic mean of the reference runs' epochs (or samples) to converge */
    double stdev;       /* population std of all its runs */
    double min_epochs;  /* minimum acceptable submission mean (bisection, see tta_rcp_min_mean) */
    size_t runs;
} tta_rcp_point;

typedef struct {
    tta_rcp_point *points; /* every reference point, by batch size */
    size_t n;
    tta_rcp_point *pruned; /* after pruning points slower than their neighbours' interpolation */
    size_t n_pruned;
    size_t submission_runs; /* runs a submission makes for this benchmark (rcp_checker's table) */
} tta_rcp_set;

typedef enum {
    TTA_RCP_PASS = 0,
    TTA_RCP_FAIL,             /* converges faster than the references allow */
    TTA_RCP_NO_REFERENCE,     /* no rcps_<benchmark>.json in the folder (the official checker crashes) */
    TTA_RCP_NO_CONVERGENCE,   /* more failed runs than olympic scoring can drop */
    TTA_RCP_MISSING_POINT,    /* batch size above every reference point */
    TTA_RCP_BAD_INPUT,        /* no batch size or no epochs */
} tta_rcp_status;

typedef struct {
    tta_rcp_status status;
    double rcp_mean;        /* reference mean at the batch size (found or interpolated) */
    double min_mean;        /* minimum acceptable mean at the batch size */
    double subm_mean;       /* olympic mean of the submission's epochs */
    double normalization;   /* rcp_mean / subm_mean when faster than the reference but passing; else 1 */
    const char *how;        /* "reference point", "interpolated", "smallest reference (slower convergence)" */
    const char *why;        /* for statuses other than PASS/FAIL */
} tta_rcp_result;

/* Runs a submission of the benchmark makes in the RCP checker's table (0 unknown). */
size_t tta_rcp_submission_runs(const char *benchmark);

/* Loads <dir>/rcps_<benchmark>.json and computes every point's statistics and the pruned set.
 * Returns 0; 1 when there is no file for the benchmark (set empty, *err says so); -1 when the
 * file is unreadable or malformed (*err: "<path>: reason"). *err is malloc'd. */
int tta_rcp_load(const char *dir, const char *benchmark, tta_rcp_set *set, char **err);
void tta_rcp_free(tta_rcp_set *set);

/* The smallest mean a submission may have and still pass the one-sided pooled t-test at
 * alpha 0.05 against a reference (mean, stdev, n_ref runs), bisecting between 0 and mean to
 * 1e-4; n_subm = submission runs - 2. */
double tta_rcp_min_mean(double mean, double stdev, size_t n_ref, size_t n_subm);

/* Checks a submission at batch size bs whose runs converged in epochs[i] (NAN or <= 0 for a
 * run that did not: it counts as 1e9) against the pruned reference points. */
tta_rcp_result tta_rcp_check(const tta_rcp_set *set, double bs, const double *epochs, size_t n,
                             const char *benchmark);

#endif
