/* builders.h: each report as a table (and a plot) built from loaded entries, shared by the
 * `tta report KIND` commands and the HTML page (internal to reports/).
 *
 * Ownership: tables come from tta_table_new (free with tta_table_free); plots are appended to
 * the caller's buffer. Entries must have been loaded with curves for the curve builders. */
#ifndef TTA_REPORTS_BUILDERS_H
#define TTA_REPORTS_BUILDERS_H

#include "common/buf.h"
#include "reports/dataset.h"
#include "reports/render.h"

/* ---- Which entry a row is: the identity columns ------------------------------------------------
 * Every report that shows an entry names it with these columns, defined here and nowhere else
 * (tests/arch/check_arch.py, rule "identity", fails on a report that spells one again): the keys
 * are what scripts read in CSV and JSON; the headers are short, one word, for the tables people
 * read (100 columns wide). A table that starts with all six, in this order, begins its column
 * definitions with TTA_IDENTITY_COLUMNS and numbers its own columns from TTA_IDENTITY_COUNT; a
 * table that needs another order or only some of them (trend, comm, rcp, speedup, ls systems,
 * the results table) takes them one by one and says why. tta_table_set_identity fills them,
 * wherever they stand. */
enum {
    TTA_IDENTITY_ENTRY, TTA_IDENTITY_ROUND, TTA_IDENTITY_DIVISION, TTA_IDENTITY_SUBMITTER, TTA_IDENTITY_SYSTEM,
    TTA_IDENTITY_BENCHMARK, TTA_IDENTITY_COUNT
};
#define TTA_ENTRY_COLUMN {"entry", "id", TTA_COL_INT, 0, TTA_FOR_ALL} /* the id of `tta ls entries` */
#define TTA_ROUND_COLUMN {"round", "round", TTA_COL_TEXT, 0, TTA_FOR_ALL}
#define TTA_DIVISION_COLUMN {"division", "div", TTA_COL_TEXT, 0, TTA_FOR_ALL}
#define TTA_SUBMITTER_COLUMN {"submitter", "submitter", TTA_COL_TEXT, 0, TTA_FOR_ALL}
#define TTA_SYSTEM_COLUMN {"system", "system", TTA_COL_TEXT, 0, TTA_FOR_ALL} /* the results folder's name */
#define TTA_BENCHMARK_COLUMN {"benchmark", "bench", TTA_COL_TEXT, 0, TTA_FOR_ALL}
/* The six first, for a table's definitions: {TTA_IDENTITY_COLUMNS, [X_RUNS] = {...}, ...}. */
#define TTA_IDENTITY_COLUMNS                                                                            \
    [TTA_IDENTITY_ENTRY] = TTA_ENTRY_COLUMN, [TTA_IDENTITY_ROUND] = TTA_ROUND_COLUMN,                   \
    [TTA_IDENTITY_DIVISION] = TTA_DIVISION_COLUMN, [TTA_IDENTITY_SUBMITTER] = TTA_SUBMITTER_COLUMN,     \
    [TTA_IDENTITY_SYSTEM] = TTA_SYSTEM_COLUMN, [TTA_IDENTITY_BENCHMARK] = TTA_BENCHMARK_COLUMN

/* What the identity columns of a row say; the strings are borrowed (the table copies them). */
typedef struct {
    int64_t id; /* the entry's id */
    const char *round, *division, *submitter, *system, *benchmark; /* NULL: missing */
} tta_identity;

/* e's identity (borrowing e's strings). */
tta_identity tta_entry_identity(const tta_entry_data *e);

/* Sets row's identity cells: each column of t keyed as one of the identity columns above gets
 * id's field; a field whose column t does not have is left out (comm has no division, ls systems
 * no entry). t must have at least one of them. */
void tta_table_set_identity(tta_table *t, size_t row, const tta_identity *id);

/* Where an entry is published, for scripts (CSV, JSON), and as links from its system's cell on the
 * HTML page (a TTA_COL_URL column's header is the key of the column that links to it): its logs,
 * and its system description (a small link "description" after the first). A table that has them
 * fills them with tta_table_set_published. */
#define TTA_LOGS_URL_COLUMN {"logs_url", "system", TTA_COL_URL, 0, TTA_FOR_SCRIPTS}
#define TTA_DESCRIPTION_URL_COLUMN {"description_url", "system", TTA_COL_URL, 0, TTA_FOR_SCRIPTS}
/* Sets row's logs_url and description_url cells (the columns of t so keyed; t must have one) to
 * e's addresses (tta_entry_logs_url, tta_entry_system_url); blank, without a reason, where there is
 * none (an entry's own description says nothing of it). */
void tta_table_set_published(tta_table *t, size_t row, const tta_entry_data *e);

/* The addresses where entry e is published (published.c), by its round's "published" rule and the
 * files as ingested: its logs (the folder of its first run's log, or that file where the rule says
 * "file") and its system description; NULL when the rules say nothing for its round (replays) or
 * the file's path holds none of the rule's folders. malloc'd. */
char *tta_entry_logs_url(const tta_entry_data *e);
char *tta_entry_system_url(const tta_entry_data *e);

/* A plot's title for entries e[0..n): "<benchmark>: <what>" when they share one benchmark (a page
 * holds a plot per benchmark: each must say which), else what alone. Appended to out. */
void tta_plot_title(buf *out, const tta_entry_data *e, size_t n, const char *what);
/* 1 when the entries e[0..n) (n > 0) share one benchmark, else 0. */
int tta_one_benchmark(const tta_entry_data *e, size_t n);
/* The name of entry e[i] of e[0..n) on a plot: its system, then its benchmark unless they share one
 * (which the plot's title names then: tta_plot_title). Appended to out. */
void tta_plot_entry_name(buf *out, const tta_entry_data *e, size_t n, size_t i);

/* Adds to row a note naming e's flagged runs by flag (run_flags, stored by the writer: "flagged
 * runs (tta ls runs says why): republished result_0.txt, result_1.txt and 8 more; aborted ..."),
 * leaving out the flags named in explained (comma-separated; NULL: none), which the report
 * explains in notes of its own. No note when no run is flagged. (flags.c) */
void tta_table_note_flags(tta_table *t, size_t row, const tta_entry_data *e, const char *explained);
/* The same, the note naming whose runs they are ("flagged runs of bert ..."): for a row that shows
 * several entries (the results table). */
void tta_table_note_flags_of(tta_table *t, size_t row, const tta_entry_data *e, const char *explained,
                             const char *label);
/* Adds to a run's row a note with the reasons of its flags (none when it has none). */
void tta_table_note_run_flags(tta_table *t, size_t row, const tta_run_data *r);

tta_table *tta_variance_table(const tta_entry_data *e, size_t n);
tta_table *tta_speedup_table(const tta_entry_data *e, size_t n);
tta_table *tta_scaling_table(const tta_entry_data *e, size_t n);
tta_table *tta_curves_table(const tta_entry_data *e, size_t n);
/* `tta report pareto` (pareto.c): per entry with a score (tta_entry_rank_score_s) its identity,
 * accelerators, score_s, accelerator_minutes, cost_usd, and frontier_accelerators / frontier_cost:
 * no entry of its round, division and benchmark is as fast or faster with as few or fewer
 * accelerators (as cheap or cheaper), one of them strictly (docs/statistics.md section 15). */
tta_table *tta_pareto_table(const tta_entry_data *e, size_t n);
/* The score (min, log10) against accelerators (log2), or against cost to accuracy ($, log10) where
 * every scored entry has one, a point per entry and the frontier of all of them (whatever their
 * round and division) as a line. */
void tta_pareto_plot(const tta_entry_data *e, size_t n, const tta_report_options *o, buf *svg);

/* TTA of every run as a strip plot, one column per entry (minutes). */
void tta_variance_plot(const tta_entry_data *e, size_t n, const tta_report_options *o, buf *svg);
/* Throughput speedup against TTA speedup, grouped bars per pair; more than 12 pairs: a point per
 * pair, TTA speedup against throughput speedup (log2 axes) with the line where they are equal. */
void tta_speedup_plot(const tta_entry_data *e, size_t n, const tta_report_options *o, buf *svg);
/* Speedup of time per epoch and of TTA against accelerators (log2 axes) per series, with the
 * ideal (linear) line. */
void tta_scaling_plot(const tta_entry_data *e, size_t n, const tta_report_options *o, buf *svg);
/* Quality against progress in the benchmark's unit (units.h; against time from run_start in minutes
 * with o->x_time, or when no entry logs its progress per evaluation, or when the entries count
 * progress in different units): the mean with a ± std band per entry, in the common quality scale
 * (percent for accuracies), and one target line per distinct target. */
void tta_curves_plot(const tta_entry_data *e, size_t n, const tta_report_options *o, buf *svg);

/* The table kinds' signatures: a table, and a plot (given the report's options: curves' --x), from
 * loaded entries; a finisher (NULL: none)
 * called on the built table before it is written in format, for cells that need the database (the
 * variance report's energy) or to say on stderr why a table is empty. It returns 0, or 1 with *err. */
typedef tta_table *(*tta_table_builder)(const tta_entry_data *, size_t);
typedef void (*tta_plot_builder)(const tta_entry_data *, size_t, const tta_report_options *, buf *);
typedef int (*tta_table_finisher)(sqlite3 *, const tta_entry_data *, size_t, tta_table *, int format, char **);

/* Finishers of the table kinds (variance.c, speedup.c): the variance table's energy (CSV and JSON
 * only); the line on stderr that says why speedup (scaling) has no pair (series). */
int tta_variance_energy(sqlite3 *db, const tta_entry_data *e, size_t n, tta_table *t, int format, char **err);
int tta_speedup_explain(sqlite3 *db, const tta_entry_data *e, size_t n, tta_table *t, int format, char **err);
int tta_scaling_explain(sqlite3 *db, const tta_entry_data *e, size_t n, tta_table *t, int format, char **err);

/* The other kinds, each its own command (report_run.c's registry calls them). Each reads the
 * database, writes to out in the format and returns 0, or 1 with *err (malloc'd). */

/* `tta report variance`: one row per entry: round, division, submitter, system, benchmark,
 * accelerators, runs, reached, score_min (the official olympic mean, minutes), tta_mean_s, cv
 * (population std / mean of the successful runs' TTA) with cv_ci_low/high (95% bootstrap), the
 * decomposition TTA = progress x time per unit in the entry's progress_unit (epochs, or
 * million_samples where the rules give no epoch size): progress_mean/std, time_per_unit_mean_s/std_s,
 * the same as epochs_mean/std and tpe_mean_s/tpe_std_s where the unit is epochs, cv_ratio =
 * CV(progress)/CV(time per unit), the shares of Var(log TTA) (log_var_share_progress,
 * _time_per_unit, _cov; summing to 1), energy where a folder has power logs, and notes on runs
 * that claim success without meeting the target (docs/statistics.md, section 4). */
/* (a table kind of report_run.c's registry: tta_variance_table, tta_variance_plot) */

/* `tta report speedup`: for each pair of entries of one submitter, benchmark, round and
 * division (base: fewer accelerators, else the longer time per unit of progress): base_system,
 * system, base_accelerators, accelerators, batch sizes, progress_unit, progress and time per unit
 * of both (epochs where the unit is epochs), throughput_speedup (ratio of the times per unit, in
 * one unit; missing with the reason otherwise), tta_speedup (ratio of scores) and gap =
 * throughput_speedup / tta_speedup. No pair: one line on stderr says why. */
/* (a table kind of report_run.c's registry: tta_speedup_table, tta_speedup_plot) */

/* `tta report scaling`: per series (submitter, benchmark, round, division, accelerator model)
 * with two or more entries, each system's accelerators, progress_unit, time_per_unit_mean_s,
 * speedup_tpe (throughput: ratio of the times per unit) and speedup_tta over the smallest, and
 * efficiency_tpe / efficiency_tta against linear scaling. No series: one line on stderr says why. */
/* (a table kind of report_run.c's registry: tta_scaling_table, tta_scaling_plot) */

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

/* `tta report algoperf` (algoperf.c; docs/algoperf.md): per AlgoPerf leaderboard (f->round: "algoperf-v0.5") and
 * ruleset (f->division: external_tuning, self_tuning), each submission (f->submitter selects which
 * are shown; all are scored) ranked by its benchmark score as the official scoring code computes it:
 * leaderboard, ruleset, rank, submission, score (normalised area under the performance profile, tau
 * 1 to 4), workloads_scored, base_workloads and (CSV, JSON) profile, the profile's values at the 100 taus
 * 1 + 3k/99 separated by spaces. o->runs: per submission and scored workload
 * (base and held-out) its role, metric, target, studies, studies_reached, time_to_target_s (median
 * over studies), study_cv (population CV of the study times that reached it: is the time stable), scored_time_s (after the held-out and 4x rules), ratio (to the best, base
 * workloads), max_runtime_s. o->svg_path: the performance profiles, a file per leaderboard and
 * ruleset (-<leaderboard>-<ruleset> before the extension when there are several). */
int tta_report_algoperf(sqlite3 *db, const tta_filter *f, const tta_report_options *o, FILE *out, char **err);
/* Its section of the HTML page: per leaderboard and ruleset the profiles, the ranking and (folded)
 * the times per workload; nothing when the database has no AlgoPerf trial f selects; the reason in a
 * paragraph when they cannot be scored (no targets file of their version). Returns 0 (err unused). */
int tta_algoperf_html_section(sqlite3 *db, const tta_filter *f, buf *page, char **err);
/* The index page's AlgoPerf section: a line per leaderboard and ruleset (its submissions, the best
 * score and its submission) linking to that section on its round's page, page_of(round, ctx)
 * (malloc'd); as tta_algoperf_html_section otherwise. Returns 0 (err unused). */
int tta_algoperf_html_index(sqlite3 *db, const tta_filter *f, char *(*page_of)(const char *round, void *ctx), void *ctx,
                            buf *page, char **err);

/* `tta report leaderboard`: per round (time order), division and benchmark of f: ranked_by "time",
 * and "cost" where an entry of the group gives its cost per hour (DAWNBench); entries (with a score,
 * or a cost), the best's score_s (MLPerf: published, olympic mean x scaling.json; else the mean TTA
 * of the successful runs), entry, submitter, system, accelerator_model, accelerators,
 * accelerator_minutes (accelerators x score in minutes), energy_kwh (the energy score where power
 * was logged), cost_per_hour_usd and cost_usd (cost per hour x score in hours), and against the
 * previous round of the division and benchmark that has a best: previous_round, previous_score_s,
 * previous_entry, speedup (previous / this, of the time or of the cost) and target_changed (the
 * rules' metric or target differs: a note says from what). docs/statistics.md section 15. */
int tta_report_leaderboard(sqlite3 *db, const tta_filter *f, const tta_report_options *o, FILE *out, char **err);
/* The leaderboard's section of the HTML page (heading, paragraph, table) for f; nothing when f
 * selects no entry. 0, or 1 with *err. */
int tta_leaderboard_html_section(sqlite3 *db, const tta_filter *f, buf *page, char **err);

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
 * system_folder and <benchmark>_entry, the entry id of each cell, and (JSON) <benchmark>_accelerator_minutes,
 * the cell's entry's accelerators x its score. CSV: the summarizer's columns,
 * order and number formatting (pandas' to_csv), tta's columns after them. A selection of several
 * rounds is an error (*err names them). docs/statistics.md section 13. */
int tta_report_summary(sqlite3 *db, const tta_filter *f, const tta_report_options *o, FILE *out, char **err);

/* `tta report curves`: per entry and progress value in the benchmark's unit (progress,
 * progress_unit; rows by each run's k-th evaluation when the entry logs no progress), the mean time
 * of those evaluations (time_s), the runs evaluated there and the mean and population std of their
 * quality in the common scale (units.h; quality_unit), with the target in the same scale. */
/* (a table kind of report_run.c's registry: tta_curves_table, tta_curves_plot) */

/* `tta report threshold --at LIST`: each run's time (from run_start) and progress in the benchmark's
 * unit (progress, progress_unit) at the first evaluation meeting each threshold, thresholds in the
 * common quality scale (units.h: fractions for accuracies, BLEU points, else as logged). */
int tta_report_threshold(sqlite3 *db, const tta_filter *f, const double *thresholds, size_t n_thresholds,
                         int format, FILE *out, char **err);

/* `tta report compare A B`: two entries of one benchmark (ids from `tta ls entries`, or
 * round/division/submitter/system/benchmark): successful runs, their mean TTAs, the ratio with a 95%
 * bootstrap CI, Welch's t-test, Mann–Whitney U, and the runs per entry a t-test needs to tell a 5%
 * (1%) difference at alpha 0.05 with 80% power; the row's notes say where the rulesets, metrics,
 * targets or divisions differ. TTA_OK; TTA_EUSAGE when the entries are of different benchmarks (err
 * says which); TTA_ENOTFOUND or TTA_EINPUT for an entry that cannot be named; TTA_EDB. */
int tta_report_compare(sqlite3 *db, const char *a, const char *b, int format, FILE *out, tta_error *err);

/* `tta report rcp --rcp-dir DIR`: per entry, MLCommons' RCP checker's verdict (check_directory,
 * pruned reference points) from each run's convergence point (run_tta.progress) and the rules:
 * id, round, ruleset, division, submitter, system, benchmark, runs, bs, verdict (pass/fail), message
 * (the checker's words), rcp_mean, min_mean, subm_mean, normalization (the checker's factor),
 * progress_unit. DIR is one training_X.Y.Z folder of rcps_<name>.json, or a folder of such folders
 * (each entry is checked against its round's ruleset); entries the checker cannot judge get a note
 * and no verdict. docs/statistics.md section 8. */
int tta_report_rcp(sqlite3 *db, const tta_filter *f, const char *rcp_dir, int format, FILE *out, char **err);

/* The RCP checker's verdicts of entries (rcp_judge.c), for `tta report rcp` and `tta check`: reference
 * points read from rcp_dir (one training_X.Y.Z folder, or a folder of them: each entry against its
 * round's ruleset), each file once per judge. tta_rcp_judge_new: TTA_OK with *out (free with
 * tta_rcp_judge_free), TTA_ENOTFOUND when rcp_dir is no folder. */
typedef struct tta_rcp_judge tta_rcp_judge;
int tta_rcp_judge_new(const char *rcp_dir, tta_rcp_judge **out, tta_error *err);
void tta_rcp_judge_free(tta_rcp_judge *j);
/* The checker's verdict of entry x: 1 with *r (r->pass 1 or 0, r->msg the checker's words); 0 when the
 * checker gives none (no reference folder or file, a ruleset it does not judge, a converged run without
 * a convergence point; the checker stops there), with the reason appended to why. */
int tta_rcp_judge_entry(tta_rcp_judge *j, const tta_rcp_entry_row *x, tta_rcp_result *r, buf *why);

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

/* `tta report profile` with an entry filter (f): the profile each selected replay logged of
 * itself while it trained (replay_log.h's TTA_KEY_MEMORY and TTA_KEY_LAYER_PROFILE, as ingest
 * stored them): a table of runs (entry, run, system, benchmark, run_index, steps, memory_bytes and
 * each memory category in bytes: weights, buffers, weight_grads, optimizer_state, feature_maps,
 * workspace, eval, data; people see MiB) and a table of their layers (run, name, type, flops,
 * bytes, time_s per step, layers_share of the layers' time, gflops, intensity). JSON: {"runs":
 * [...], "layers": [...]}; CSV: the layers; a table or Markdown: the runs, then each run's layers
 * under a line naming it. No replay with a profile in f: empty tables, exit 0. 0, or 1 with *err. */
int tta_report_replay_profile(sqlite3 *db, const tta_filter *f, int format, FILE *out, char **err);


/* `tta report verify`: each claim beside the stored runs that replay it (verify_stored.c), one
 * comparison per replay entry, claim, threshold and way of running (to the schedule's end, capped at
 * an epoch, or stopped at the threshold), written as `tta verify` writes its report (reports.h,
 * tta_verify_write): blocks for people, a JSON array of its objects, CSV rows under one header.
 * A comparison is listed when f selects its claim or its replay entry; a claim that is not stored is
 * a note on stderr. With none: the empty report, exit 0 (a note on stderr for the table format). */
int tta_report_verify(sqlite3 *db, const tta_filter *f, int format, FILE *out, char **err);
/* The same comparisons' section of the HTML page (heading, then per comparison its lines, table and
 * verdict); nothing when there is none. 0, or 1 with *err. */
int tta_verify_html_section(sqlite3 *db, const tta_filter *f, buf *page, char **err);

/* verify.c's parts that verify_stored.c reuses. */
/* A side from runs' evaluation curves: n runs (at most TTA_VERIFY_MAX_RUNS), qualities x scale as
 * fractions, first evaluation at threshold (epochs, TTA = its time), validation accuracy at epoch
 * at_epoch (0: the run's last; -1: at the threshold), s/epoch = that evaluation's time / its epoch,
 * unseen[i] (a percentage above 1 is scaled) and shifted[i] (NAN: none), gap = last - unseen. */
void tta_verify_curve_side(const tta_run_data *const *runs, size_t n, double scale, double threshold, int at_epoch,
                           const double *unseen, const double *shifted, tta_verify_side *out);
/* The rows of the report (the caller frees the table) and the lines above them for people. */
tta_table *tta_verify_table(const tta_verify_context *c, const tta_verify_side *claim, const tta_verify_side *replay);
void tta_verify_intro(const tta_verify_context *c, int runs, buf *out);

/* The latest profile's section of the HTML page (heading, roofline, memory plot, tables);
 * nothing when no profile is stored. 0, or 1 with *err. */
int tta_profile_html_section(sqlite3 *db, buf *page, char **err);

/* The trend report's section of the HTML page (heading, a plot per benchmark, the table) over every
 * round of the database: f's round does not apply (trend.c). 0, or 1 with *err. */
int tta_trend_html_section(sqlite3 *db, const tta_filter *f, buf *page, char **err);

/* The comm report's section of the HTML page (heading, stacked bars, table) for the entries of f
 * with a time breakdown (comm.c); nothing when none has one. 0, or 1 with *err. */
int tta_comm_html_section(sqlite3 *db, const tta_filter *f, buf *page, char **err);

/* The results tables of the rounds of f (`tta report summary`, results_table.c), inserted into page
 * at offset at (the page's top, so that it comes first); their entry ids link to the page's
 * id="entry-<id>" anchors where it has them. Nothing when f selects no entry. 0, or 1 with *err. */
int tta_summary_html_section(sqlite3 *db, const tta_filter *f, buf *page, size_t at, char **err);

#endif
