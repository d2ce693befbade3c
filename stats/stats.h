/* stats.h: the statistics module's contract: pure numerical functions on plain C arrays.
 *
 * Nothing here reads a database or prints; the only I/O is tta_rcp_load reading one RCP JSON file.
 *
 * Ownership. Input arrays belong to the caller and are never modified or kept (functions that sort
 * work on a copy). Results are structs returned by value, or rows written into an array the caller
 * provides (its size is a parameter). The one exception is tta_rcp_set: tta_rcp_load fills it with
 * malloc'd arrays that tta_rcp_free releases; its error is a caller-owned tta_error (common/error.h).
 * Every `why` is a static string (never freed, never NULL when `reason` is not TTA_REASON_NONE).
 *
 * Missing values. A statistic that cannot be computed is NAN and its struct says why: `reason` is a
 * code for programs, `why` the same in words a report can print. Where inputs may be missing (a run
 * that never reached the target, an epoch not logged) the function says so and NAN marks them;
 * elsewhere NAN in an input propagates to the result.
 *
 * GSL. Functions that call GSL switch its aborting error handler off (a process-wide setting) and
 * check the status codes GSL returns. Random numbers come from a gsl_rng mt19937 seeded with the
 * caller's seed: the same inputs and seed give the same result, bit for bit. No function keeps
 * state between calls.
 *
 * Formulas, the official behaviour mirrored and where tta departs on purpose: docs/statistics.md.
 */
#ifndef TTA_STATS_H
#define TTA_STATS_H

#include <stddef.h>

#include "common/error.h"

/* ---- why a value is missing ---- */

typedef enum {
    TTA_REASON_NONE = 0,           /* no reason: the value is there (error.h's TTA_OK is a status, not a reason) */
    TTA_NO_VALUES,                 /* n == 0 */
    TTA_ONE_VALUE,                 /* one value: no spread to measure */
    TTA_ZERO_MEAN,                 /* the mean is 0: a CV is undefined */
    TTA_IDENTICAL_VALUES,          /* no spread in a denominator: the ratio is undefined (NAN) */
    TTA_BAD_ARGUMENT,              /* resamples, alpha, power, sizes out of range */
    TTA_TOO_MANY_FAILED,           /* more runs failed than olympic scoring may drop: no score */
    TTA_TOO_FEW_RUNS,              /* nothing left after the olympic slice */
    TTA_FEWER_RUNS_THAN_REQUIRED,  /* warning: value computed, but the rules require more runs */
    TTA_FEWER_CONVERGED_THAN_USED, /* warning: fewer converged runs than the rule's runs_scored (v0.5 NCF: 50) */
    TTA_NO_EPOCHS,                 /* no run reached the target with its epochs logged */
    TTA_NO_VARIANCE,               /* TTA identical in every run: no variance to decompose */
    TTA_NUMERICAL_ERROR,           /* a GSL routine reported an error */
} tta_reason;

/* The reason in words (static; NULL for TTA_REASON_NONE). */
const char *tta_reason_text(tta_reason reason);
/* 1 for reasons that accompany a computed value (TTA_FEWER_*), 0 otherwise. */
int tta_reason_is_warning(tta_reason reason);

/* ---- descriptives ---- */

double tta_mean(const double *x, size_t n);           /* NAN when n == 0 */
double tta_std_population(const double *x, size_t n); /* ddof 0; NAN when n == 0, 0 when n == 1 */
double tta_std_sample(const double *x, size_t n);     /* ddof 1; NAN when n < 2 */
/* Coefficient of variation: population std / |mean| (the DAWNBench/MLPerf analyses' definition);
 * NAN when n == 0 or the mean is 0; 0 when every value is the same. */
double tta_cv(const double *x, size_t n);

typedef struct {
    size_t n;
    double mean, std, std_sample, cv; /* std: population (ddof 0); std_sample: ddof 1 */
    tta_reason reason;                /* NO_VALUES, ONE_VALUE (std_sample NAN), ZERO_MEAN (cv NAN) */
    const char *why;
} tta_summary;

tta_summary tta_describe(const double *x, size_t n);

/* Mean of x without its drop_low smallest and drop_high largest values (sorted on a copy): the
 * olympic mean is tta_olympic_mean(x, n, 1, 1). NAN when nothing is left or x holds a NAN. */
double tta_olympic_mean(const double *x, size_t n, size_t drop_low, size_t drop_high);

/* Relative tolerance of a target comparison: logs print float32 values (BLEU 21.799999 meets 21.8). */
#define TTA_TARGET_RTOL 1e-6

/* Does quality q meet target t? q >= t - 1e-6|t| when higher is better, q <= t + 1e-6|t| otherwise;
 * 0 when either is NAN. */
int tta_meets_target(double q, double t, int higher_is_better);

/* ---- the official MLPerf score ---- */

typedef struct {
    double score;       /* olympic mean of the run times, in the caller's unit; NAN when none */
    size_t n_runs;      /* runs given */
    size_t n_used;      /* runs averaged */
    size_t n_dropped;   /* runs that did not succeed (success 0 or a NAN time) */
    size_t required;    /* runs the rules require for the benchmark and round (0 unknown) */
    size_t max_dropped; /* k of the slice below: 1, 4 for unet3d */
    tta_reason reason;  /* TOO_MANY_FAILED, TOO_FEW_RUNS, NO_VALUES: no score;
                           FEWER_RUNS_THAN_REQUIRED, FEWER_CONVERGED_THAN_USED: a score, with a warning */
    const char *why;
} tta_score;

/* Runs the MLPerf Training rules require (schemas/benchmark_rules.json runs_required of the
 * benchmark in round, "v0.7"): 5 for resnet, ssd, maskrcnn, retinanet and dlrm; 40 for unet3d; 3 for
 * gpt3, llama31_405b, deepseekv3_671b, qwen35_397b_grpo; 100 for v0.5 ncf ("run 100, use the first
 * 50 that converge"); 10 for the others. 0 when the rules have no such benchmark in the round
 * ("dawnbench", NULL, an unknown round). */
size_t tta_required_runs(const char *benchmark, const char *round);

/* How many of the fastest runs the summarizer always drops (and of the slowest, less the failed
 * runs): 4 for unet3d, 1 otherwise. */
size_t tta_max_dropped_runs(const char *benchmark);

/* The MLCommons result summarizer's score (mlperf_logging/result_summarizer, 4.1.59): with d runs
 * that did not succeed and k = tta_max_dropped_runs, more than k failed runs give no score; else the
 * successful times are sorted and sorted[k : n_success - (k - d)] averaged (a failed run stands for
 * a slowest one). Where the rule gives runs_scored N (v0.5 NCF: 50), the first N successful runs in
 * the given order (run order) are averaged instead, without their fastest and slowest.
 * success[i] != 0 marks a successful run. */
tta_score tta_official_score(const double *times, const int *success, size_t n, const char *benchmark,
                             const char *round);

/* MLPerf HPC's weak-scaling score (the result summarizer's _compute_weak_score_standalone, usage
 * hpc): many model instances trained at once on one machine, each a run of the entry. */
typedef struct {
    double time_all;        /* the last counted instance's stop less the first one's start, in the
                               caller's unit (time_to_train_all); NAN when no score */
    size_t n_models;        /* instances counted (number_of_models) */
    size_t n_given;         /* instances given */
    size_t required;        /* instances the summarizer needs for a score (the rules' runs_required) */
    int instance_scale;     /* accelerators of one instance: nodes x max(accelerators per node, 1) of
                               the first counted instance; -1 when its log says neither */
    double models_per_time; /* throughput: n_models / time_all; NAN when no score */
    tta_reason reason;      /* TOO_FEW_RUNS: fewer counted instances than required; NO_VALUES */
    const char *why;
} tta_weak_score;

/* The weak-scaling score of n instances: counted[i] != 0 marks an instance the summarizer keeps
 * (its log passes the checks: it converged and parses whole), start[i] and stop[i] its run_start
 * and run_stop (same unit, same clock), nodes[i] and per_node[i] its logged number_of_nodes and
 * accelerators_per_node (-1 unknown). With fewer counted instances than the rules' runs_required
 * for benchmark in round there is no score (the summarizer's "Not enough converging weak scaling
 * runs"). */
tta_weak_score tta_weak_scaling_score(const double *start, const double *stop, const int *counted, const int *nodes,
                                      const int *per_node, size_t n, const char *benchmark, const char *round);

/* ---- bootstrap confidence intervals (percentile method) ---- */

#define TTA_BOOTSTRAP_RESAMPLES 2000 /* used when resamples is 0 */

typedef struct {
    double cv, low, high; /* CV of x and its (1 - alpha) interval; NAN when not computable */
    size_t resamples;     /* resamples drawn */
    tta_reason reason;    /* NO_VALUES, ONE_VALUE, ZERO_MEAN, BAD_ARGUMENT, NUMERICAL_ERROR */
    const char *why;
} tta_cv_ci;

/* CV and its percentile-bootstrap (1 - alpha) interval: `resamples` resamples of n values drawn with
 * replacement (gsl_rng_uniform_int on mt19937 seeded with seed), the CV of each, and their alpha/2
 * and 1 - alpha/2 quantiles (linear interpolation between order statistics, as numpy's default).
 * Identical values give CV 0 and the interval [0, 0]. */
tta_cv_ci tta_cv_bootstrap(const double *x, size_t n, size_t resamples, double alpha, unsigned long seed);

/* Percentile-bootstrap (1 - alpha) interval of mean(a) / mean(b), each group resampled on its own
 * (per resample: n_a draws from a, then n_b from b). *low and *high are NAN unless TTA_REASON_NONE. */
tta_reason tta_ratio_ci(const double *a, size_t na, const double *b, size_t nb, size_t resamples, double alpha,
                        unsigned long seed, double *low, double *high);

/* ---- epochs x time per epoch ---- */

typedef struct {
    size_t n;                       /* runs with a positive TTA and positive epochs */
    double epochs_mean, epochs_std; /* population std */
    double tpe_mean, tpe_std;       /* time per epoch = TTA / epochs */
    double cv_epochs, cv_tpe;
    double cv_ratio;                /* cv_epochs / cv_tpe; NAN (IDENTICAL_VALUES) when cv_tpe is 0 */
    /* Var(log TTA) = Var(log epochs) + Var(log tpe) + 2 Cov(log epochs, log tpe), population
     * moments: each term's share of it. They sum to 1; a negative Cov can push a share above 1. */
    double log_share_epochs, log_share_tpe, log_share_cov;
    tta_reason reason;              /* NO_EPOCHS, ONE_VALUE, IDENTICAL_VALUES, NO_VARIANCE */
    const char *why;
} tta_decomposition;

/* Decomposes the variance of TTA = epochs x tpe over n runs; run i is skipped when tta[i] or
 * epochs[i] is NAN (never reached the target, epochs not logged) or not positive. */
tta_decomposition tta_decompose(const double *tta, const double *epochs, size_t n);

/* ---- quality curves ---- */

typedef struct {
    double epoch;
    double mean, std; /* population std across the runs present at this epoch */
    size_t n;         /* runs with an evaluation at this epoch */
} tta_curve_stat;

/* Mean and std of quality per epoch across runs. Run r has n_points[r] points (epochs[r][i],
 * quality[r][i]); epochs are matched exactly; a point with a NAN epoch or quality is missing; a run
 * evaluated twice at one epoch counts once, with its last value. Writes one row per distinct
 * epoch, in increasing order, at most max_out (the total number of points always suffices), and
 * returns how many it wrote. */
size_t tta_quality_curve(const double *const *epochs, const double *const *quality, const size_t *n_points,
                         size_t n_runs, tta_curve_stat *out, size_t max_out);

/* ---- threshold sensitivity ---- */

/* Index of the first point of a curve meeting threshold (tta_meets_target), or -1. */
long tta_first_meeting(const double *quality, size_t n, double threshold, int higher_is_better);

typedef struct {
    long index;   /* first evaluation meeting the threshold, -1 when none */
    double time;  /* its time; NAN when never reached */
    double epoch; /* its epoch; NAN when never reached (or not logged) */
} tta_crossing;

/* For a run's evaluations in order (time[i], epoch[i], quality[i]; epoch may be NULL) and each of
 * n_thresholds thresholds, the first evaluation meeting it: out[h] for thresholds[h]. */
void tta_threshold_crossings(const double *time, const double *epoch, const double *quality, size_t n,
                             const double *thresholds, size_t n_thresholds, int higher_is_better,
                             tta_crossing *out);

/* ---- throughput versus TTA, scaling ---- */

typedef struct {
    double throughput_speedup; /* base time per epoch / time per epoch */
    double tta_speedup;        /* base score / score */
    double gap;                /* throughput_speedup / tta_speedup: > 1 when TTA gains less than throughput */
} tta_speedup;

/* Speedup of an entry over a base entry; NAN parts where an input is NAN or not positive. */
tta_speedup tta_speedup_of(double base_tpe, double base_score, double tpe, double score);

/* Efficiency of a speedup against linear scaling from base_acc to acc accelerators:
 * speedup / (acc / base_acc); NAN when a count is not positive or the speedup is NAN. */
double tta_scaling_efficiency(double speedup, double base_acc, double acc);

typedef struct {
    double acc_ratio;                     /* acc / acc of the base */
    double speedup_tpe, speedup_tta;      /* tpe(base) / tpe, tta(base) / tta */
    double efficiency_tpe, efficiency_tta; /* speedup / acc_ratio */
} tta_scaling_point;

/* A scaling series (accelerators acc[i], time per epoch tpe[i], TTA tta[i]): the base is the point
 * with the fewest accelerators (among those, the smallest TTA); out[i] relates point i to it (NAN
 * parts where an input is missing). Returns the base's index, or -1 when no point has a positive
 * accelerator count (out is then all NAN). */
long tta_scaling_series(const double *acc, const double *tpe, const double *tta, size_t n, tta_scaling_point *out);

/* ---- comparing two entries' TTAs ---- */

typedef struct {
    double t, df, p;   /* Welch's t-test of mean(a) = mean(b), two-sided p from GSL's t distribution */
    tta_reason reason; /* NO_VALUES, ONE_VALUE (a group has < 2 values), IDENTICAL_VALUES (no spread) */
    const char *why;
} tta_welch;

tta_welch tta_welch_test(const double *a, size_t na, const double *b, size_t nb);

typedef struct {
    double u;          /* U of sample a: its rank sum - na(na+1)/2 (ties take average ranks) */
    double p;          /* two-sided */
    int exact;         /* 1: exact distribution of U (no ties, na and nb <= 50); 0: normal
                          approximation with tie and continuity correction */
    tta_reason reason; /* NO_VALUES when a group is empty */
    const char *why;
} tta_mwu;

tta_mwu tta_mann_whitney(const double *a, size_t na, const double *b, size_t nb);

/* Power of a two-sided two-sample t-test (equal variances, n runs per group, significance alpha)
 * for a standardised difference effect = |mu_a - mu_b| / sigma: P(|T'| > t_{1-alpha/2, 2n-2}) with
 * T' noncentral t (df 2n - 2, noncentrality effect sqrt(n/2)), integrated numerically with GSL.
 * NAN when n < 2 or alpha is not in (0, 1). */
double tta_t_test_power(double n, double effect, double alpha);

/* The smallest number of runs per group with which that test reaches `power` for a difference of
 * rel_diff x mean with standard deviation sd (exact noncentral t, starting from the normal
 * approximation 2 ((z_{1-alpha/2} + z_power) sd / (rel_diff mean))^2). At least 2. NAN when mean,
 * sd or rel_diff are not positive or alpha, power not in (0, 1). */
double tta_runs_needed(double mean, double sd, double rel_diff, double alpha, double power);

/* ---- reference convergence points (MLCommons rcp_checker, training rules 1.0.0 on) ---- */

typedef struct {
    double bs;          /* global batch size */
    double mean;        /* olympic mean of the reference runs' epochs (or samples) to converge */
    double stdev;       /* population std of all its runs */
    double min_epochs;  /* minimum acceptable submission mean ("Min Epochs", tta_rcp_min_mean) */
    double max_speedup; /* mean / min_epochs ("Max Speedup") */
    size_t runs;
} tta_rcp_point;

typedef struct {
    char benchmark[64];     /* as named in the file name */
    tta_rcp_point *points;  /* every reference point, by batch size (owned) */
    size_t n;
    tta_rcp_point *pruned;  /* after pruning ("pruned_rcps", what checks use; owned) */
    size_t n_pruned;
    size_t submission_runs; /* runs a submission makes (rcp_checker's table) */
} tta_rcp_set;

/* Which of rcp_checker's cases decided (check_directory's messages, in the checker's words). */
typedef enum {
    TTA_RCP_FOUND = 0,          /* "RCP found": a pruned point at exactly the batch size */
    TTA_RCP_INTERPOLATION,      /* "RCP Interpolation": between the nearest pruned points below and above */
    TTA_RCP_SMALLER_BATCH,      /* "RCP not found but slower convergence on smaller batch size" (a pass) */
    TTA_RCP_MISSING,            /* "Missing RCP, please submit RCP with BS = N" (a fail) */
    TTA_RCP_NONE_FOUND,         /* "Cannot find any RCPs" (a fail) */
    TTA_RCP_INSUFFICIENT,       /* "Insufficient convergence": more runs did not converge than it drops (a fail) */
    TTA_RCP_NO_BATCH_SIZE,      /* "Could not detect global_batch_size" (a fail) */
    TTA_RCP_BATCH_SIZES_DIFFER, /* "Batch sizes in files do not match" (a fail; the checker itself stops
                                   there with KeyError(None) instead of returning its verdict) */
    TTA_RCP_NO_REFERENCE,       /* no reference file for the benchmark: no verdict (the checker stops) */
} tta_rcp_case;

/* One run of a submission as rcp_checker's read_submission_file sees it. */
typedef struct {
    double progress; /* convergence point (epochs or samples); NAN: the run did not converge (1e9) */
    double bs;       /* its global_batch_size; NAN when the log has none (the checker's -1) */
} tta_rcp_run;

typedef struct {
    tta_rcp_case kind;
    int pass;             /* the verdict: 1 pass, 0 fail; -1 none (TTA_RCP_NO_REFERENCE) */
    char msg[96];         /* the checker's message, word for word ("" for TTA_RCP_NO_REFERENCE) */
    double bs;            /* the batch size the check used; NAN when none was found */
    double rcp_mean;      /* reference mean at the batch size (found, interpolated or the smallest point);
                             NAN when no point was evaluated */
    double min_mean;      /* smallest passing mean: rcp_mean / max_speedup */
    double subm_mean;     /* olympic mean of the submission's progress (NAN when too few runs) */
    double speedup;       /* rcp_mean / subm_mean */
    double normalization; /* the checker's third return value: max(1, speedup) wherever a point was
                             evaluated (pass or fail), else 1; NAN when subm_mean is (as the checker) */
} tta_rcp_result;

/* Runs a submission of the benchmark makes in rcp_checker's table (dlrm: 5, from the checker's
 * table before 2023); 0 unknown. */
size_t tta_rcp_submission_runs(const char *benchmark);

/* Loads <dir>/rcps_<benchmark>.json ("Epochs to converge", or "samples to converge" for
 * llama2_70b_lora and flux1, either accepted; at most 16 MiB: common/file.h), computes every
 * point's statistics and the pruned set. Returns TTA_OK; TTA_ENOTFOUND when there is no file for
 * the benchmark (set empty: checks report NO_REFERENCE; err says which benchmark and folder);
 * TTA_EINPUT when the file is malformed, too large or a directory, or the benchmark has no
 * submission run count, TTA_EIO when it cannot be read (err: "<path>: reason"). err may be NULL. */
int tta_rcp_load(const char *dir, const char *benchmark, tta_rcp_set *set, tta_error *err);
void tta_rcp_free(tta_rcp_set *set);

/* Smallest mean a submission may have and pass the one-sided pooled (equal-variance) t-test at alpha
 * 0.05 against a reference (mean, stdev, n_ref runs), bisected between 0 and mean to 1e-4 with
 * n_subm submission runs, as rcp_checker's _find_min_acceptable_mean; mean when stdev is 0. */
double tta_rcp_min_mean(double mean, double stdev, size_t n_ref, size_t n_subm);

/* rcp_checker's check_directory (rcp_pass "pruned_rcps") for a submission's runs, given in the
 * order the checker reads the files: the batch size is the first logged one (runs without one
 * before it do not count: the checker's -1), and any later run whose batch size differs from it,
 * or is not logged, gives TTA_RCP_BATCH_SIZES_DIFFER; a run that did not converge counts as 1e9,
 * and more than one of them
 * (four for unet3d) is "Insufficient convergence"; the submission mean is the olympic mean with 1
 * (unet3d: 4) runs dropped from each end; then the pruned point at exactly bs, else the
 * interpolation of the nearest pruned points below and above, else (bs below every point) the
 * smallest point, else "Missing RCP". benchmark names the submission's benchmark as the file does
 * (NULL: the set's). set may be empty (tta_rcp_load returned TTA_ENOTFOUND): TTA_RCP_NO_REFERENCE. */
tta_rcp_result tta_rcp_check(const tta_rcp_set *set, const tta_rcp_run *runs, size_t n, const char *benchmark);
/* The package checker's RCP bypass (check_directory with rcp_bypass: its --rcp-bypass, or a
 * package_checker_params file saying rcp-bypass): a failed verdict of the cases FOUND, INTERPOLATION or
 * MISSING becomes a pass, its message followed by " passed using rcp_bypass" (the submission committee
 * reviews it); any other verdict stays. Returns 1 when it changed *r. */
int tta_rcp_bypass(tta_rcp_result *r);

/* ---- energy to train (MLCommons' result summarizer, from MLPerf power logs) ---- */

/* The records of a power log (results/<system>/<benchmark>/power/result_N/node_K.txt or sw_K.txt)
 * that the summarizer reads; anything else is TTA_POWER_OTHER and ignored. */
typedef enum {
    TTA_POWER_OTHER = 0,
    TTA_POWER_READING,          /* power_reading: watts */
    TTA_POWER_START,            /* power_measurement_start */
    TTA_POWER_STOP,             /* power_measurement_stop */
    TTA_POWER_CONVERSION_EFF,   /* conversion_eff: a factor (0.96 for AC measurements, say) */
    TTA_POWER_INTERCONNECT_EST, /* interconnect_power_est: watts, a switch's estimate */
} tta_power_key;

typedef struct {
    double time_s;     /* the record's time_ms / 1000; NAN: the record is left out */
    double value;      /* NAN when the record carries no number */
    tta_power_key key;
} tta_power_event;

/* Why an energy is missing (tta_energy_status_text gives the words; static, NULL for OK). */
typedef enum {
    TTA_ENERGY_OK = 0,
    TTA_ENERGY_NO_TIME,      /* the run's time to train is unknown or not positive */
    TTA_ENERGY_NO_START,     /* a node log without power_measurement_start (summarizer: ValueError) */
    TTA_ENERGY_EMPTY_WINDOW, /* a node log's stop is not after its start (summarizer: ZeroDivisionError
                                when equal, a zero or negative energy when before) */
    TTA_ENERGY_BAD_VALUE,    /* a reading, efficiency, estimate or scaling factor it uses is not a number
                                (summarizer: TypeError) */
    TTA_ENERGY_NO_NODE_LOG,  /* a run without a node log (summarizer: AssertionError) */
    TTA_ENERGY_NO_SCORE,     /* the performance score has none (why: the score's reason) */
    TTA_ENERGY_RUN_MISSING,  /* a run of the score's slice has no energy (missing_run names it) */
    TTA_ENERGY_OTHER_SLICE,  /* the score is not the summarizer's olympic slice (v0.5/v0.6 NCF) */
} tta_energy_status;

const char *tta_energy_status_text(tta_energy_status status);

typedef struct {
    double energy_j;       /* avg_power_w x time to train */
    double avg_power_w;    /* conversion_eff x sum(reading_i x (t_i - t_{i-1})) / (stop - start) */
    double conversion_eff; /* the last conversion_eff in time order; 1 when none */
    double window_s;       /* stop - start */
    size_t readings;       /* readings integrated */
    int stop_found;        /* 0: no power_measurement_stop; the latest reading's time stood for it */
    tta_energy_status status; /* NO_START, EMPTY_WINDOW, BAD_VALUE, NO_TIME (avg_power_w is still set) */
    const char *why;
} tta_node_energy;

/* A node's energy over a run, as _compute_power_node: the log's n events (in log order) are
 * sorted by time (ties keep log order); from power_measurement_start (the last one restarts) each
 * power_reading up to the first power_measurement_stop adds value x (its time - the previous
 * reading's, or the start's); the sum over the window stop - start (the last stop; without one, the
 * latest reading integrated) is the mean power, times conversion_eff and the run's tta_s (s): joules.
 * Readings after the last reading and before the stop add nothing, though the window counts them. */
tta_node_energy tta_power_node_energy(const tta_power_event *ev, size_t n, double tta_s);

typedef struct {
    double energy_j;       /* conversion_eff x power_w x time to train; 0 without an estimate */
    double power_w;        /* the first interconnect_power_est; 0 when none */
    double conversion_eff; /* the last conversion_eff before it in log order; 1 when none */
    int has_estimate;
    double measured_j;     /* the switch's own power_reading records integrated as a node's
                              (tta_power_node_energy); NAN when it has none or they cannot be. The
                              summarizer ignores them: not in energy_j */
    tta_energy_status status; /* NO_TIME, BAD_VALUE */
    const char *why;
} tta_switch_energy;

/* A switch's energy over a run, as _compute_power_sw (log order, unsorted). */
tta_switch_energy tta_power_switch_energy(const tta_power_event *ev, size_t n, double tta_s);

typedef struct {
    const tta_power_event *events; /* in log order */
    size_t n;
    int is_switch;                 /* sw_K.txt (1) or node_K.txt (0) */
} tta_power_log;

typedef struct {
    double energy_j;                /* node_j + interconnect_j (the summarizer's run energy) */
    double node_j, interconnect_j;  /* the nodes' and the switches' (estimates) */
    double interconnect_measured_j; /* the switches' measured readings (not in energy_j); NAN: none */
    double avg_power_w;             /* energy_j / tta_s */
    size_t nodes, switches;         /* logs of each kind */
    size_t no_stop;                 /* node logs without power_measurement_stop */
    size_t no_estimate;             /* switch logs without interconnect_power_est (0 W) */
    tta_energy_status status;       /* NO_NODE_LOG, NO_TIME, or a log's status */
    size_t bad_log;                 /* the log that failed (an index into logs) */
    const char *why;
} tta_run_energy;

/* One run's energy, as _compute_total_power: the sum over its node logs and switch logs (in the
 * caller's order) for a run of tta_s seconds. NAN with the status of the first log that fails. */
tta_run_energy tta_run_energy_of(const tta_power_log *logs, size_t n_logs, double tta_s);

typedef struct {
    double energy_j;          /* energy_unscaled_j x scaling_factor: the summarizer's power score */
    double energy_unscaled_j; /* mean energy of the runs of the performance score's olympic slice */
    double node_j, interconnect_j; /* the same mean of each part, x scaling_factor */
    double avg_power_w;       /* their total energy / their total time (unscaled) */
    double scaling_factor;    /* as given */
    size_t n_used;            /* runs averaged */
    size_t runs_with_energy;  /* runs whose energy is known (status OK) */
    long missing_run;         /* RUN_MISSING: the first run of the slice without energy; else -1 */
    tta_score score;          /* the performance score (seconds) that chose the runs */
    tta_energy_status status; /* NO_SCORE, RUN_MISSING, OTHER_SLICE, BAD_VALUE */
    const char *why;
} tta_energy_score;

/* The energy score of an entry's n runs (times tta_s, success flags, energies): the runs of
 * tta_official_score's slice (the successful runs sorted by time, ties in run order, positions
 * [max_dropped, max_dropped + n_used)), their energies averaged in that order, times scaling_factor
 * (1 when the folder has no scaling.json). used (NULL, or n ints) gets 1 for the runs averaged. */
tta_energy_score tta_energy_score_of(const double *tta_s, const int *success, const tta_run_energy *runs, size_t n,
                                     const char *benchmark, const char *round, double scaling_factor, int *used);

/* ---- AlgoPerf scoring (algoperf.c; docs/algoperf.md) ----
 * As AlgoPerf's scoring code computes it (mlcommons/submissions_algorithms scoring/performance_profile.py
 * and score_submissions.py): a trial's time to target is the score (submission time, s) of its first
 * evaluation whose validation metric meets the target; a study's is that of the trial reaching the
 * target at the smallest evaluation index (the first such trial in the caller's order); a workload's
 * is the median over its studies (INFINITY counts as a miss). */

/* The index of the first of n evaluations whose value meets target (value <= target when minimize,
 * else >=; NAN never meets it), or -1. */
long tta_algoperf_first_hit(const double *value, size_t n, double target, int minimize);

/* One study's time to target from its n trials: hit[i] their first-hit indices (-1: none) and
 * time[i] their times at that index; the trial with the smallest index (the first of equal ones)
 * gives the time. INFINITY when no trial reaches the target. *trial (NULL allowed) gets its index or -1. */
double tta_algoperf_study_time(const long *hit, const double *time, size_t n, long *trial);

/* numpy's median of n values (sorted on a copy; the mean of the two middle ones when n is even):
 * INFINITY is a value like any other; NAN when n == 0 or a value is NAN. */
double tta_algoperf_median(const double *x, size_t n);

/* The performance ratios of n_sub submissions on n_work workloads: t is row-major n_sub x n_work,
 * each workload's time to target (INFINITY: missed, NAN: no trial). base_of[w] is -1 for a base
 * workload, else the index of the base workload a held-out workload w belongs to. In order, as the
 * scoring code does: a held-out time is a miss where its base's time is a miss or NAN; every time
 * above max_ratio times its workload's best is a miss; a base time is a miss where a held-out
 * workload of it is a miss or NAN; then each base workload's times are divided by its best. ratio
 * (n_sub x n_work) gets the ratios of the base workloads (INFINITY: a miss; NAN: no trial, or a
 * workload no submission reached) and NAN in held-out columns; scored (NULL allowed, n_sub x n_work)
 * gets the times after the rules (INFINITY where they made a miss). */
void tta_algoperf_ratios(const double *t, const int *base_of, size_t n_sub, size_t n_work, double max_ratio,
                         double *ratio, double *scored);

/* numpy.linspace(lo, hi, n): lo + i * (hi - lo) / (n - 1), the last point hi exactly. n >= 2. */
void tta_algoperf_taus(double lo, double hi, size_t n, double *tau);

/* The performance profile of one submission: rho[k] = (the base workloads w whose ratio[w] <= tau[k])
 * / n_base, over its n_work ratios (NAN and INFINITY never count; held-out columns are NAN). */
void tta_algoperf_profile(const double *ratio, size_t n_work, size_t n_base, const double *tau, size_t n_tau,
                          double *rho);

/* The benchmark score: the trapezoidal area under rho over tau, divided by tau's range. NAN when
 * n_tau < 2. */
double tta_algoperf_score(const double *tau, const double *rho, size_t n_tau);

#endif
