/* reports.h: the reports module's contract: what `tta ls` and `tta report` print, computed
 * from the database (stats/ does the arithmetic, render.h the writing).
 *
 * Every function reads the database given (through db/'s queries: no SQL here) and writes results
 * to out in the requested format. When the database cannot be read or the request cannot be met
 * (e.g. an unknown entry, a filter whose regular expression does not compile), a function taking a
 * tta_error returns the code its contract names with the reason in the caller's tta_error
 * (common/error.h); one taking char **err (not yet turned, issue 13) returns 1 with *err set
 * (malloc'd; the caller frees). A filter's text field may be a regular expression written
 * /PATTERN/ (db.h, tta_filter).
 */
#ifndef TTA_REPORTS_H
#define TTA_REPORTS_H

#include <stdint.h>
#include <stdio.h>

#include "common/error.h"
#include "common/buf.h"
#include "db/reader.h" /* the database handle and the selection of entries, tta_filter */
#include "replay/replay.h" /* tta_replay_result: verify sets replays beside a claim */
#include "check/check.h"   /* tta_check_report: what `tta check` writes */

/* Output formats (render.h's tta_out_format values). */
enum { TTA_FORMAT_TABLE = 0, TTA_FORMAT_CSV = 1, TTA_FORMAT_JSON = 2, TTA_FORMAT_MARKDOWN = 3 };

/* Told that done of total steps of a long report are done (done from 0 to total). Called on the
 * thread that runs the report, between steps; it must be quick (a display rate-limits itself). */
typedef void (*tta_report_progress_fn)(void *ctx, size_t done, size_t total);

/* How a report is written: the table's format, optionally its plot as an SVG file, and what the
 * kinds that need more are given (unused fields: 0 / NULL). */
typedef struct {
    int format;
    const char *svg_path; /* NULL: no plot */
    int runs;             /* energy: the table of runs instead of entries (--runs) */
    const char *operand[2]; /* compare: the two entries; html: the page's path */
    int n_operands;
    const char *rcp_dir;                 /* rcp: --rcp-dir */
    const double *thresholds;            /* threshold: --at, in the stored quality scale */
    size_t n_thresholds;
    int64_t profile_id;                  /* profile: --profile (0: the latest) */
    const char *memory_svg;              /* profile: --memory-svg (NULL: none) */
    int x_time;                          /* curves: the plot's x axis is time (min), not progress (--x time) */
    const char *generated_at;            /* html: the timestamp printed on the page (it never reads the clock) */
    tta_report_progress_fn progress;     /* html: told how far the page is (NULL: nobody) */
    void *progress_ctx;
} tta_report_options;

/* `tta report KIND`: the reports tta knows, one table of kinds (report_run.c) that both the
 * command and the HTML page read. */

/* Writes the kinds with their help, the "kinds:" block of `tta report --help`. */
void tta_report_help(FILE *out);

/* The name of the registry's kind i (0, 1, ...), in the registry's order; NULL past the last
 * (for lists of the kinds elsewhere, such as `tta --help`). */
const char *tta_report_kind(size_t i);
/* Operands that follow the kind's name on the command line (compare: 2, html: 1, else 0); -1 when
 * no kind is called name. */
int tta_report_operands(const char *name);
/* Checks that kind exists and that o gives what it needs (its operands, rcp's --rcp-dir,
 * threshold's --at, --runs only with energy, --x time only with curves and html), before any
 * database is opened. TTA_OK, else
 * TTA_EUSAGE with err saying what is missing. */
int tta_report_check(const char *kind, const tta_report_options *o, tta_error *err);
/* Runs report kind over the entries of f (NULL: all) in the database: results to out in
 * o->format (html: the page to o->operand[0], nothing to out), plots to o->svg_path, notes on stderr. TTA_OK;
 * TTA_EUSAGE as tta_report_check; else a code with err saying why the database could not be read
 * or the request met (an unknown entry, an unwritable file). */
int tta_report_run(sqlite3 *db, const char *kind, const tta_filter *f, const tta_report_options *o, FILE *out,
                   tta_error *err);

/* `tta ls runs|entries|systems`: one row per run (round, division, submitter, system,
 * benchmark, file, status, reached, tta_s, epochs, accelerators, global_batch_size), per entry
 * (with runs, reached, accelerators, target) or per system description, of the selection f
 * (NULL: all), written to out in format. TTA_OK; TTA_EINPUT when what is none of the three or a
 * pattern of f does not compile, TTA_EDB when the database cannot be read (err says which; nothing
 * is written then). */
int tta_report_ls(sqlite3 *db, const char *what, const tta_filter *f, int format, FILE *out, tta_error *err);


/* ------------------------------------------------------------------------------------------ */
/* Entries as the user names them (dataset.c)                                                   */

/* "round/division/submitter/system/benchmark": a stable human name for an entry (malloc'd). */
char *tta_entry_name(const tta_entry_data *e);

/* Loads the one entry spec names: an id from `tta ls entries`, or round/division/submitter/
 * system/benchmark (without its runs' curves). TTA_OK with *e (free with tta_entries_free(*e, 1));
 * else *e is NULL and: TTA_EINPUT when spec is neither form ("'x' is neither an entry id nor
 * ..."), TTA_ENOTFOUND when no entry has that id or name ("no entry 'x' (see `tta ls entries`)"),
 * TTA_EDB when the database cannot be read. */
int tta_entry_load_named(sqlite3 *db, const char *spec, tta_entry_data **e, tta_error *err);

/* ------------------------------------------------------------------------------------------ */
/* `tta verify`'s report (verify.c)                                                            */
/* `tta verify`'s report: a claim (an ingested entry with per-epoch evaluations, such as a
 * DAWNBench entry) beside its replays on this machine, measure by measure, with Welch's test of
 * each difference (stats/). cli/cmd_verify.c runs the replays; this module only compares and writes.
 *
 * Ownership: plain values; the caller owns every string it passes.
 */
#define TTA_VERIFY_MAX_RUNS 64

/* One measure over the runs of a side: the runs' values (NAN: the run has none). */
typedef struct {
    double v[TTA_VERIFY_MAX_RUNS];
    size_t n;
} tta_verify_sample;

/* A side of the comparison (the claim, or the replays). Accuracies are fractions. */
typedef struct {
    int runs, reached;                 /* runs, and those whose validation accuracy met the threshold */
    tta_verify_sample epochs;          /* epochs to the threshold (first meeting epoch), reached runs */
    tta_verify_sample tta_s;           /* seconds to the end of that epoch's evaluation, reached runs */
    tta_verify_sample s_per_epoch;     /* wall seconds per epoch (training + evaluation) */
    tta_verify_sample val;             /* validation accuracy at the compared epoch */
    tta_verify_sample unseen, shifted; /* at the run's last epoch; empty when the side has none */
    tta_verify_sample gap;             /* validation - unseen accuracy, at the run's last epoch */
    int last_epoch;                    /* the largest epoch a run of this side reached (claim: its schedule) */
} tta_verify_side;

/* Appends x to s when it is a number (NAN is not a value; more than TTA_VERIFY_MAX_RUNS are dropped). */
void tta_verify_add(tta_verify_sample *s, double x);

/* The claim side from an ingested entry loaded with its curves (tta_entries_load(..., 1, ...)):
 * per run, the first evaluation at or above threshold (a fraction; the entry's evaluations may be
 * percentages, as DAWNBench's top1Accuracy: they are scaled when the entry's target is > 1) gives
 * epochs and TTA; validation accuracy is taken at epoch at_epoch (0: the run's last epoch; -1: the
 * run's first epoch at the threshold, i.e. where an MLPerf run stops; a run without an evaluation
 * there has none), seconds per epoch as the time of that evaluation
 * over its epoch; unseen accuracy is the run's hyperparameter "unseenAccuracy" (DAWNBench's
 * misc.unseenAccuracy, percent or fraction), measured at the run's last epoch, and gap is the last
 * epoch's validation accuracy minus it, whatever at_epoch. TTA_OK; TTA_EINPUT when the entry has no
 * evaluation to compare with; TTA_EDB when a hyperparameter cannot be read. */
int tta_verify_claim_side(sqlite3 *db, const tta_entry_data *e, double threshold, int at_epoch,
                          tta_verify_side *out, tta_error *err);

/* What the report says about how the two sides were run. */
typedef struct {
    int64_t claim_entry_id, replay_entry_id; /* replay_entry_id < 0: the replays were not stored */
    const char *claim_name, *replay_name;    /* replay_name may be NULL */
    double threshold;                        /* fraction */
    int stop_at_target;                      /* 1: replays stopped at the target (MLPerf); 0: ran the schedule */
    int compared_epoch;                      /* schedule mode: the epoch accuracies are compared at */
    int schedule_epochs;                     /* the claim's schedule, in epochs */
    int epoch_cap;                           /* 0: none; else the replays (and the comparison) stop there */
    int runs_asked;
} tta_verify_context;

/* The verdict in one line from the two sides and their tests, written into text (len bytes;
 * TTA_VERIFY_VERDICT_MAX holds every verdict), which it returns. Replays capped (epoch_cap) before
 * the claim's earliest epoch at the threshold that did not all reach it are "inconclusive: capped
 * at epoch E, the claim reached the target at epoch C", never "not reproduced". */
#define TTA_VERIFY_VERDICT_MAX 160
const char *tta_verify_verdict(const tta_verify_context *c, const tta_verify_side *claim,
                               const tta_verify_side *replay, char *text, size_t len);

/* Writes the report in format (TTA_FORMAT_TABLE/CSV/JSON/MARKDOWN) to out: rows = measures (runs
 * that reached the threshold, epochs to threshold, TTA, s/epoch, validation accuracy at the
 * compared epoch, unseen and shifted accuracy, generalization gap), columns = measure, claim and
 * replay (mean ± std (n) for people; *_mean, *_std, *_n for scripts), test (Welch's p, or why
 * there is none) and, for scripts, unit, welch_p, claim_entry_id and replay_entry_id. A table or
 * Markdown is preceded by lines naming the claim, the replays, the threshold and the mode (and the
 * epoch cap) and followed by "verdict: ..."; JSON is one object {claim_entry_id, replay_entry_id,
 * claim, replay, threshold, mode ("schedule" | "stop_at_target"), compared_epoch, schedule_epochs,
 * epoch_cap (null when none), runs, rows: [...], verdict}; CSV is the rows only. */
void tta_verify_write(const tta_verify_context *c, const tta_verify_side *claim, const tta_verify_side *replay,
                      int format, buf *out);


/* The claim `tta verify` checks: the entry spec names (an id, or round/division/submitter/system/
 * benchmark), loaded with its evaluation curves. TTA_OK with *e (free with tta_entries_free(*e, 1));
 * else *e is NULL and the code is tta_entry_load_named's (TTA_ENOTFOUND: no such entry; TTA_EINPUT:
 * a spec of neither form; TTA_EDB). */
int tta_verify_load_claim(sqlite3 *db, const char *spec, tta_entry_data **e, tta_error *err);

/* The claim's side as `tta verify` compares it, and the replays' plan: the claim's schedule
 * (*schedule: in, the recipe's epochs; out, the epochs of the claim's evaluations when it has
 * some, with a note on notes when they differ), the epoch accuracies are compared at (*compared:
 * the schedule's end, or max_epochs when it is smaller and > 0) and the claim's side at that
 * epoch (at the threshold when stop_at_target). TTA_OK, else tta_verify_claim_side's code. */
int tta_verify_claim_plan(sqlite3 *db, const tta_entry_data *e, double threshold, int stop_at_target,
                          int max_epochs, int *schedule, int *compared, tta_verify_side *claim, FILE *notes,
                          tta_error *err);

/* The replays' side from the runs a replay batch did (replay/replay.h): reached runs, epochs to
 * the threshold and TTA of those, s/epoch, validation, unseen and shifted accuracy, gap. */
void tta_verify_replay_side(const tta_replay_result *runs, int n_runs, tta_verify_side *out);

/* `tta check`: writes r, one row per log (log, ruleset, benchmark, division, verdict, failures, and its
 * first failing rule with its line and message; failing_only: only logs that do not pass) in format
 * (TTA_FORMAT_*), then, for a table or Markdown, the summary line (tta_check_summary). */
void tta_report_compliance(const tta_check_report *r, int format, int failing_only, FILE *out);
/* The one-line summary of r a submitter can paste: "tta check: 1669 logs, 1666 compliant, 3 not
 * compliant, 0 cannot be evaluated (rules: <source>)", into out. */
void tta_check_summary(const tta_check_report *r, const char *source, buf *out);
/* `tta check`'s verdicts per benchmark folder (check_scores.c), for the logs of r, which
 * tta_check_paths found under paths[0..n_paths): the folders among the paths (a log given by itself is
 * checked alone: no folder row) are ingested into a database in memory
 * (never a file) and, per folder (an entry) holding a log of r,
 * its runs, those MLCommons' result summarizer drops (a log r says fails the compliance checks, a run
 * that did not succeed, a record tta cannot read: dropped_runs says which and why), the score it
 * publishes (tta_summarize_entry: the olympic mean x scaling.json, in minutes) or why there is none,
 * and the RCP checker's verdict and message against the reference points of o->rcp_dir (as `tta report
 * rcp`; NULL: "none", not checked), with the package checker's bypass where it applies. Writes the table to out in format (NULL: no rows), the summary
 * line to summary ("tta check: 12 benchmark folders: 11 scored, 1 not (too many runs dropped), 2 of
 * 113 runs dropped; RCP: 10 pass, 1 fail, 1 without a verdict"), and sets *failing to 1 when a folder
 * gets no score or a closed-division folder fails the RCP check (the package checker runs it on the
 * closed division only). TTA_OK; TTA_ENOTFOUND when rcp_dir is no folder; TTA_EDB when the database
 * in memory fails. */
typedef struct {
    const char *rcp_dir; /* reference convergence points; NULL: no RCP verdict ("none") */
    int rcp_bypass;      /* 1: the package checker's --rcp-bypass for every folder (stats.h, tta_rcp_bypass); a
                            package_checker_params file saying rcp-bypass in a system or benchmark folder
                            bypasses that folder's check, as the package checker reads it */
    const char *ruleset; /* --ruleset (NULL: none): the round of folders whose path names none */
    int jobs;            /* ingest's threads; 0: one per CPU */
    int format;          /* TTA_FORMAT_* */
    int failing_only;    /* 1: rows only for the folders that set *failing (the summary counts every folder) */
} tta_check_folders_options;
int tta_report_check_folders(const tta_check_report *r, const char *const *paths, size_t n_paths,
                             const tta_check_folders_options *o, FILE *out, buf *summary, int *failing, tta_error *err);
/* `tta check`'s package section: one row per package check of a file or folder (organisation, path,
 * check, ruleset, verdict, key, message; failing_only: only those that do not pass) in format. */
void tta_report_package(const tta_package_report *r, int format, int failing_only, FILE *out);
/* The package checks' part of the summary line, appended to out: "; package: 812 checks of 17
 * organisations, 790 pass, 20 warn, 2 fail, 0 cannot be evaluated (rules: <source>)". */
void tta_package_summary(const tta_package_report *r, buf *out);

#endif
