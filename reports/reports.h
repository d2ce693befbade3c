/* reports.h: the reports module's contract: what `tta ls` and `tta report` print, computed
 * from the database (stats/ does the arithmetic, render.h the writing).
 *
 * Every function reads the database given (through db/'s queries: no SQL here), writes results
 * to out in the requested format and returns 0, or 1 with *err set (malloc'd; the caller frees)
 * when the database cannot be read or the request cannot be met (e.g. an unknown entry, a filter
 * whose regular expression does not compile). A filter's text field may be a regular expression
 * written /PATTERN/ (db.h, tta_filter).
 */
#ifndef TTA_REPORTS_H
#define TTA_REPORTS_H

#include <stdint.h>
#include <stdio.h>

#include "db/db.h" /* the database handle and the selection of entries, tta_filter */

/* Output formats (render.h's tta_out_format values). */
enum { TTA_FORMAT_TABLE = 0, TTA_FORMAT_CSV = 1, TTA_FORMAT_JSON = 2, TTA_FORMAT_MARKDOWN = 3 };

/* How a report is written: the table's format, and optionally its plot as an SVG file. */
typedef struct {
    int format;
    const char *svg_path; /* NULL: no plot */
    int runs;             /* energy: the table of runs instead of entries (--runs) */
} tta_report_options;

/* `tta ls runs|entries|systems`: one row per run (round, division, submitter, system,
 * benchmark, file, status, reached, tta_s, epochs, accelerators, global_batch_size), per entry
 * (with runs, reached, accelerators, target) or per system description. */
int tta_report_ls(sqlite3 *db, const char *what, const tta_filter *f, int format, FILE *out, char **err);

/* `tta report variance`: one row per entry: round, division, submitter, system, benchmark,
 * accelerators, runs, reached, score_min (the official olympic mean, minutes), tta_mean_s, cv
 * (population std / mean of the successful runs' TTA) with cv_ci_low/high (95% bootstrap), the
 * decomposition TTA = progress x time per unit in the entry's progress_unit (epochs, or
 * million_samples where the rules give no epoch size): progress_mean/std, time_per_unit_mean_s/std_s,
 * the same as epochs_mean/std and tpe_mean_s/tpe_std_s where the unit is epochs, cv_ratio =
 * CV(progress)/CV(time per unit), the shares of Var(log TTA) (log_var_share_progress,
 * _time_per_unit, _cov; summing to 1), energy where a folder has power logs, and notes on runs
 * that claim success without meeting the target (docs/statistics.md, section 4). */
int tta_report_variance(sqlite3 *db, const tta_filter *f, const tta_report_options *o, FILE *out, char **err);

/* `tta report speedup`: for each pair of entries of one submitter, benchmark, round and
 * division (base: fewer accelerators, else the longer time per unit of progress): base_system,
 * system, base_accelerators, accelerators, batch sizes, progress_unit, progress and time per unit
 * of both (epochs where the unit is epochs), throughput_speedup (ratio of the times per unit, in
 * one unit; missing with the reason otherwise), tta_speedup (ratio of scores) and gap =
 * throughput_speedup / tta_speedup. No pair: one line on stderr says why. */
int tta_report_speedup(sqlite3 *db, const tta_filter *f, const tta_report_options *o, FILE *out, char **err);

/* `tta report scaling`: per series (submitter, benchmark, round, division, accelerator model)
 * with two or more entries, each system's accelerators, progress_unit, time_per_unit_mean_s,
 * speedup_tpe (throughput: ratio of the times per unit) and speedup_tta over the smallest, and
 * efficiency_tpe / efficiency_tta against linear scaling. No series: one line on stderr says why. */
int tta_report_scaling(sqlite3 *db, const tta_filter *f, const tta_report_options *o, FILE *out, char **err);

/* `tta report trend`: per benchmark (its canonical name) and round of the selection, rounds in time
 * order (rule_rounds.ord), the division f->division (closed when NULL): one row per band of
 * accelerator counts ("all", then "1-8", "9-64", "65-512", "513+" where the round has a scored entry
 * of the band): benchmark, band, round, division, metric, target, target2, target_changed (the metric
 * or a target differs from the previous round's), previous_target, entries (with a published score),
 * the best: score_min (published: olympic mean x scaling.json, minutes), id, submitter, system,
 * accelerators; median_min of the band, speedup = previous round's best / this best, and
 * accelerators_ratio = this best's accelerators / the previous best's. o->svg_path: the score (log
 * axis) against the round, a line for the best and one per band, the median dashed, a file per
 * benchmark. No row: one line on stderr says why. docs/statistics.md section 14. */
int tta_report_trend(sqlite3 *db, const tta_filter *f, const tta_report_options *o, FILE *out, char **err);

/* `tta report comm`: one row per entry whose runs logged tta_epoch_breakdown records (`tta
 * replay`; published logs have none and are not listed): entry (the id of `tta ls entries`),
 * round, submitter, system, benchmark, workers (tta_world_size, 1 when not logged), runs, epochs
 * (records used), epoch_s (mean seconds per epoch, training + evaluation), and as fractions of
 * that time summed over every epoch of every run: comm_share (communication not overlapped with
 * compute), comm_total_share (all of it, overlapped or not), compute_share (forward + backward +
 * optimizer), data_share, eval_share; rank_comm_spread = max / min of the ranks' total
 * communication (missing for one worker). o->svg_path gets a stacked bar per entry. With no
 * such entry: the empty table, exit 0 (and a note on stderr for the table format). */
int tta_report_comm(sqlite3 *db, const tta_filter *f, const tta_report_options *o, FILE *out, char **err);

/* `tta report energy`: per entry with power logs (results/<system>/<benchmark>/power/result_N/
 * node_K.txt, sw_K.txt): entry, round, division, submitter, system, benchmark, run_count,
 * power_runs (runs whose energy is known), used_runs, score_min, energy_j and energy_kwh (the
 * result summarizer's energy score: the mean energy of the performance score's olympic slice x
 * scaling_factor), energy_unscaled_j, avg_power_w, node_j, interconnect_j, interconnect_measured_j
 * (switch readings the summarizer ignores), scaling_factor; per run (o->runs, and nested as "runs"
 * in JSON): run_index, file, success, used, tta_s, energy_j, energy_kwh, node_j, interconnect_j,
 * interconnect_measured_j, avg_power_w, nodes, switches. o->svg_path: each run's energy against its
 * TTA. With no such entry: the empty table, exit 0 (and a note on stderr for the table format). */
int tta_report_energy(sqlite3 *db, const tta_filter *f, const tta_report_options *o, FILE *out, char **err);

/* `tta report summary`: one round's results table as MLCommons' result summarizer writes it: a row
 * per system (division, availability, submitter, system, number_of_nodes, host_processor_model_name,
 * host_processors_count, accelerator_model_name, accelerators_count, framework, notes, private_id,
 * as the summarizer reads the system description), a column per benchmark of the round with the
 * published score in minutes (olympic mean x scaling.json), details_url, code_url; then round,
 * system_folder and <benchmark>_entry, the entry id of each cell. CSV: the summarizer's columns,
 * order and number formatting (pandas' to_csv), tta's columns after them. A selection of several
 * rounds is an error (*err names them). docs/statistics.md section 13. */
int tta_report_summary(sqlite3 *db, const tta_filter *f, const tta_report_options *o, FILE *out, char **err);

/* `tta report curves`: per entry and epoch, the runs evaluated there and the mean and
 * population std of their quality, with the target. */
int tta_report_curves(sqlite3 *db, const tta_filter *f, const tta_report_options *o, FILE *out, char **err);

/* `tta report threshold --at LIST`: each run's time (from run_start) and epochs at the first
 * evaluation meeting each threshold (in the benchmark's stored quality scale). */
int tta_report_threshold(sqlite3 *db, const tta_filter *f, const double *thresholds, size_t n_thresholds,
                         int format, FILE *out, char **err);

/* `tta report compare A B`: two entries (ids from `tta ls entries`, or round/division/
 * submitter/system/benchmark): runs, mean TTAs, their ratio with a 95% bootstrap CI, Welch's
 * t-test, Mann–Whitney U, and the runs per entry a t-test needs to tell a 5% (1%) difference at
 * alpha 0.05 with 80% power. */
int tta_report_compare(sqlite3 *db, const char *a, const char *b, int format, FILE *out, char **err);

/* `tta report rcp --rcp-dir DIR`: per entry, MLCommons' RCP checker's verdict (check_directory,
 * pruned reference points) from each run's convergence point (run_tta.progress) and the rules:
 * id, round, ruleset, division, submitter, system, benchmark, runs, bs, verdict (pass/fail), message
 * (the checker's words), rcp_mean, min_mean, subm_mean, normalization (the checker's factor),
 * progress_unit. DIR is one training_X.Y.Z folder of rcps_<name>.json, or a folder of such folders
 * (each entry is checked against its round's ruleset); entries the checker cannot judge get a note
 * and no verdict. docs/statistics.md section 8. */
int tta_report_rcp(sqlite3 *db, const tta_filter *f, const char *rcp_dir, int format, FILE *out, char **err);

/* `tta report html OUT.html`: one self-contained page (no script, no URL) with the tables and
 * plots of the variance, speedup, scaling and curves reports for the selection (and of the comm
 * report when an entry has a time breakdown, of the energy report when one has power logs, of the
 * latest profile when one is stored). generated_at is
 * printed on the page (the page never reads the clock). */
int tta_report_html(sqlite3 *db, const tta_filter *f, const char *path, const char *generated_at, char **err);

/* Told that done of total steps of a long report are done (done from 0 to total). Called on the
 * thread that runs the report, between steps; it must be quick (a display rate-limits itself). */
typedef void (*tta_report_progress_fn)(void *ctx, size_t done, size_t total);

/* tta_report_html, telling progress (unless NULL) where it is: (0, total) once the entries are
 * loaded, (k, total) as the k-th table section (variance, curves, speedup, scaling) is done, and
 * (total, total) when the sections after them are too. */
int tta_report_html_progress(sqlite3 *db, const tta_filter *f, const char *path, const char *generated_at,
                             tta_report_progress_fn progress, void *progress_ctx, char **err);

/* `tta report profile [--profile ID]`: a profile stored by `tta profile` (ID, else the latest)
 * with the other batch sizes of its sweep: a table of profiles (profile, host, model, device,
 * threads, batch, step_s, samples_per_s, gflops, sgemm_peak_share, data/forward/backward/
 * optimizer_share, mem_* bytes) and a table of its layers (name, type, fused_into, flops, bytes,
 * time_s, step_share, gflops, intensity, roof_gflops = min(SGEMM peak, bandwidth x intensity),
 * roof_share, bound) against the host's latest peaks (`tta profile --peaks`) at the nearest
 * thread count. JSON: {"profiles": [...], "layers": [...]}; CSV: the layers. o->svg_path gets
 * the roofline, memory_svg (NULL: none) the memory by category per batch size. With no profile
 * stored: empty tables, exit 0. */
int tta_report_profile(sqlite3 *db, int64_t profile_id, const tta_report_options *o, const char *memory_svg,
                       FILE *out, char **err);

#endif
