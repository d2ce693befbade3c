/* db.h: the db module's contract. db/ owns tta's SQLite database: its schema and migrations
 * (schemas/NNN_*.sql, embedded), the copy of the benchmark rules kept in it, the writer that
 * stores what ingest parses, and the queries other modules need: they call the functions
 * below and get plain C structs instead of writing SQL against the schema.
 *
 * Ownership: the caller owns the sqlite3 handle from tta_db_open / tta_db_open_readonly and
 * closes it with tta_db_close (a handle is used by one thread at a time). Structs returned by
 * a query are the caller's, freed with the free function named beside the query.
 *
 * Errors: public functions return TTA_OK (0) or a tta_status code (common/error.h) and fill a
 * caller-owned tta_error (NULL allowed) with one line: "<path>: <reason>" for the database
 * file, SQLite's message where SQLite refused. TTA_EDB: SQLite refused (nothing of the failed
 * call was changed); TTA_ENOTFOUND: no such database or row; TTA_EUNSUPPORTED: a database
 * written by a newer tta.
 */
#ifndef TTA_DB_H
#define TTA_DB_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/replay_log.h"

/* ---- Opening and the schema (open.c) ---------------------------------------------------- */

/* Schema version this build writes (PRAGMA user_version after migration). */
int tta_schema_version(void);

/* Opens (creating if needed) the database at path for writing, sets WAL mode, foreign keys and
 * a busy timeout, applies every pending migration in schemas/ (each in its own transaction) and
 * refreshes the database's copy of the built-in benchmark rules when it differs. Returns TTA_OK
 * and *out, or TTA_EDB (cannot open, not a tta database, a migration failed) or
 * TTA_EUNSUPPORTED (a database written by a newer tta) with *out NULL and err set. */
int tta_db_open(const char *path, sqlite3 **out, tta_error *err);

/* Opens an existing database read-only (reports). Returns TTA_OK and *out; TTA_ENOTFOUND when
 * path does not exist; TTA_EDB when it cannot be opened or its schema is not this build's (run
 * `tta ingest` to migrate). When the database's copy of the rules is older than the built-in
 * one, it is refreshed through a short writable open (a note on stderr if that fails: the
 * answers then follow the database's rules). */
int tta_db_open_readonly(const char *path, sqlite3 **out, tta_error *err);

/* Closes a handle of tta_db_open or tta_db_open_readonly (NULL is a no-op); an open writer
 * transaction is rolled back. */
void tta_db_close(sqlite3 *db);

/* Process-wide SQLite settings, called once at start-up before any database is opened (the
 * command line's main): no allocation statistics, which would take a global mutex on every
 * SQLite allocation (the ingest writer makes hundreds of thousands). */
void tta_db_init_process(void);

/* ---- Selecting entries: the filter every report applies (filter.c) ------------------------ */

/* Which entries a query reads. NULL / 0 fields match everything. A text field matches its value
 * case-insensitively; one written /PATTERN/ (e.g. "/^dgxa100/") is a PCRE2 regular expression
 * that must match somewhere in the value (anchor it with ^ and $ for the whole value),
 * case-insensitively unless the pattern says (?-i). A query compiles each pattern once (with
 * JIT). */
typedef struct {
    const char *round, *division, *submitter, *system, *benchmark;
    int64_t entry_id;
} tta_filter;

/* 1 when value is written /PATTERN/ (a regular expression for the filter), else 0. */
int tta_filter_is_pattern(const char *value);

/* TTA_OK when value is plain text or a pattern PCRE2 compiles; else TTA_EINPUT with "bad regular
 * expression /PATTERN/: <PCRE2's message> at offset N" (N counts bytes of PATTERN). */
int tta_filter_value_check(const char *value, tta_error *err);

/* tta_filter_value_check of every field of f (NULL: TTA_OK); the error starts with the field's
 * name ("system: bad regular expression ..."). Every query below that takes a filter checks it so
 * and fails with TTA_EINPUT before reading anything. */
int tta_filter_check(const tta_filter *f, tta_error *err);

/* ---- Entries, runs and evaluations of a selection (query_entries.c) ----------------------- */

/* One evaluation of a run. */
typedef struct {
    double time_s;   /* seconds since run_start */
    double epoch;    /* epochs completed, from 1; NAN unknown */
    double samples;  /* NAN unknown */
    double quality;
    double quality2; /* NAN when none */
    int meets;       /* 1 / 0; -1 when the run has no target */
} tta_curve_point;

typedef struct {
    int64_t id;
    int run_index;      /* -1 when the file name has none */
    char *file;
    char *status;       /* success | aborted | unknown */
    int reached;        /* last evaluation meets the target: 1 / 0; -1 unknown (no evaluation or target) */
    double tta_s;       /* MLPerf: run_stop - run_start; DAWNBench: first epoch at threshold; NAN unknown */
    double run_start_s, run_stop_s; /* as stored (seconds of the log's clock); NAN unknown */
    double progress;    /* the convergence point in the entry's unit: as MLCommons' RCP checker reads it
                           (rounds with one; NAN when the run did not converge), else the epoch of
                           the first evaluation meeting the target; NAN unknown */
    double epochs;      /* progress in epochs (samples / training-set size where the rules give one);
                           NAN when the target was not met, progress was not logged or epochs mean
                           nothing for the benchmark */
    int success_unmet;  /* 1: the log says success but its last evaluation misses the target (reached
                           0), or it has no evaluation of its quality against its known target (-1) */
    double last_quality; /* quality of the last evaluation; NAN when none */
    int unreadable_records;    /* records the parser could not read (the summarizer drops such a run) */
    int first_unreadable_line; /* the first of them; -1 when none */
    double samples_to_target; /* NAN unknown */
    double global_batch_size; /* NAN unknown */
    int has_seed;
    int64_t seed;
    tta_curve_point *curve; /* only when loaded with curves */
    size_t n_curve;
} tta_run_data;

typedef struct {
    int64_t id;
    char *round, *division, *submitter, *system, *benchmark;
    int accelerators;        /* -1 unknown */
    int nodes;               /* -1 unknown */
    char *accelerator_model; /* NULL unknown */
    char *metric;            /* NULL when no target is known */
    double target, target2;  /* NAN when none */
    int higher_is_better;
    char *unit;              /* "epochs" or "samples": what progress counts */
    char *ruleset;           /* the round's ruleset ("3.1.0"); NULL for rounds without rules */
    double train_set_size;   /* samples per epoch by the rules; NAN when none */
    double scaling_factor;   /* scaling.json beside the result files (RCP normalisation); 1 when none */
    double summary_score_min; /* the score a summary.json (the result summarizer's) gives the entry; NAN */
    double train_samples;    /* training-set size logged by the runs; NAN unknown */
    tta_run_data *runs;      /* ordered by run_index, then file */
    size_t n_runs;
} tta_entry_data;

/* Loads the entries matching f (NULL: all) that have runs, ordered by round, division,
 * submitter, system, benchmark, with their runs, and each run's evaluation curve when
 * with_curves. One query per table, no per-run queries: a whole round loads in milliseconds.
 * TTA_OK with *out (free with tta_entries_free) and *n; TTA_EINPUT (a bad pattern in f) or TTA_EDB
 * with err set and nothing allocated. */
int tta_db_entries(sqlite3 *db, const tta_filter *f, int with_curves, tta_entry_data **out, size_t *n,
                   tta_error *err);
void tta_entries_free(tta_entry_data *entries, size_t n);

/* Do entries a and b hold the same runs: the same run_start times, run by run (a round's result
 * published again the next round under another name)? 1 or 0; 0 when either has none or the
 * database cannot say. */
int tta_db_same_runs(sqlite3 *db, int64_t a, int64_t b);

/* A run's hyperparameter key as a number: TTA_OK with *out (NAN when the run has none or its value
 * does not start with a number), or TTA_EDB. */
int tta_db_run_number(sqlite3 *db, int64_t run_id, const char *key, double *out, tta_error *err);

/* ---- The RCP checker's view of a selection (query_rcp.c) ----------------------------------- */

typedef struct {
    char *file;
    int converged;            /* its last run_stop says success */
    double progress;          /* its convergence point (run_tta.progress); NAN unknown */
    double global_batch_size; /* NAN unknown */
} tta_rcp_run_row;

typedef struct {
    int64_t id;
    char *round, *ruleset, *division, *submitter, *system, *benchmark; /* ruleset NULL: none */
    int has_rule, rcp;     /* a rule for the benchmark in the ruleset; does the checker judge it */
    char *rcp_name;        /* rcps_<rcp_name>.json; NULL: the benchmark's name */
    char *unit;            /* progress_unit ("epochs" without a rule) */
    tta_rcp_run_row *runs; /* in file order, as the checker globs them */
    size_t n_runs;
} tta_rcp_entry_row;

/* The entries of f (NULL: all) that have runs, ordered by round, division, submitter, system,
 * benchmark, id, with their runs. TTA_OK with *out (free with tta_rcp_entries_free); TTA_EINPUT or
 * TTA_EDB with err set. */
int tta_db_rcp_entries(sqlite3 *db, const tta_filter *f, tta_rcp_entry_row **out, size_t *n, tta_error *err);
void tta_rcp_entries_free(tta_rcp_entry_row *e, size_t n);

/* ---- Time breakdown records of replayed runs (query_breakdown.c) -------------------------- */

/* One world size or time breakdown record of a run's log (TTA_KEY_WORLD_SIZE, TTA_KEY_EPOCH_BREAKDOWN:
 * common/replay_log.h; docs/replay.md), as stored in the replay tables. */
typedef struct {
    int64_t entry_id, run_id;
    int is_world_size; /* 1: a tta_world_size record (world_size); 0: a tta_epoch_breakdown */
    int world_size;
    /* seconds, NAN where the record lacks the field or it is not a number */
    double epoch_s, data_s, forward_s, backward_s, optimizer_s, comm_exposed_s, comm_total_s, eval_s;
    double *rank_comm_total_s; /* n_ranks, each rank's communication (NAN: not a number); NULL when
                                  the record has no such array */
    size_t n_ranks;
} tta_epoch_breakdown;

/* The world size and breakdown records of the runs of f (NULL: all) that logged them (replays; no
 * published log has them): by entry and run, each run's world size first, then its breakdowns in
 * log order. TTA_OK with *out (free with tta_epoch_breakdowns_free); TTA_EINPUT or TTA_EDB. */
int tta_db_epoch_breakdowns(sqlite3 *db, const tta_filter *f, tta_epoch_breakdown **out, size_t *n,
                            tta_error *err);
void tta_epoch_breakdowns_free(tta_epoch_breakdown *b, size_t n);

/* ---- Replays of claims (query_replays.c) ------------------------------------------------------ */

/* A stored run that replays a claim, as its log says (docs/replay.md). */
typedef struct {
    int64_t entry_id, run_id;       /* the replay's entry (round local, submitter replay) and run */
    char *claim;                    /* tta_replay_of: the claim's round/division/submitter/system/benchmark */
    double target;                  /* eval_target (runs.target): the validation accuracy it was to reach; NAN
                                       when not logged */
    int to_schedule_end;            /* tta_to_schedule_end: 1 ran on past the target to the schedule's end,
                                       0 stopped at it; -1 not logged (replays stored before it was) */
    double unseen_acc, shifted_acc; /* the final model's, after run_stop; NAN when not logged */
} tta_replay_link;

/* Every stored run whose log names the claim it replays (tta_replay_of, stored typed in
 * replay_runs: only replays log it), by entry and run.
 * TTA_OK with *out (free with tta_replay_links_free; none: NULL, 0); TTA_EDB. */
int tta_db_replay_links(sqlite3 *db, tta_replay_link **out, size_t *n, tta_error *err);
void tta_replay_links_free(tta_replay_link *l, size_t n);

/* ---- Power logs (query_power.c) -------------------------------------------------------------- */

/* A power log file the ingest saw. */
typedef struct {
    int64_t source_id;
    char *path;
    char *error; /* why the ingest did not store it; NULL when stored */
} tta_power_source;

/* Every power log file the ingest saw (stored or not), sorted by path (bytes). TTA_OK with *out
 * (free with tta_power_sources_free), or TTA_EDB. */
int tta_db_power_sources(sqlite3 *db, tta_power_source **out, size_t *n, tta_error *err);
void tta_power_sources_free(tta_power_source *s, size_t n);

/* One stored reading or marker of a power log; key points into the database's row and is valid
 * only during the callback. */
typedef struct {
    int64_t source_id;
    double time_s; /* NAN unknown */
    const char *key; /* "power_reading", "power_measurement_start", ...; NULL unknown */
    double value;  /* NAN unknown */
} tta_power_sample_row;
typedef void (*tta_power_sample_fn)(void *ctx, const tta_power_sample_row *s);

/* Calls each for every sample of the files source_ids[0..n_ids), file by file in log order
 * (power logs hold many samples: they stream rather than fill an array). TTA_OK, or TTA_EDB. */
int tta_db_power_samples(sqlite3 *db, const int64_t *source_ids, size_t n_ids, tta_power_sample_fn each, void *ctx,
                         tta_error *err);

/* ---- System descriptions (query_systems.c) -------------------------------------------------- */

typedef struct {
    char *round, *submitter, *name, *division, *status; /* NULL where the description has none */
    char *description;                                  /* the description's JSON text as stored */
    char *accelerator_model, *host_processor, *framework;
    int accelerators, nodes;                            /* -1 unknown */
} tta_system_row;

/* The descriptions matching f's round, division, submitter and system (the description's name;
 * f's benchmark and entry do not apply), ordered by round, submitter, name. TTA_OK with *out (free
 * with tta_system_rows_free); TTA_EINPUT or TTA_EDB. */
int tta_db_systems(sqlite3 *db, const tta_filter *f, tta_system_row **out, size_t *n, tta_error *err);

/* The latest stored description of a results folder (round, submitter, folder name), as the
 * entries loader picks an entry's. TTA_OK with *out filled, or all NULL / -1 when there is none
 * (release with tta_system_row_clear); TTA_EDB. */
int tta_db_system_latest(sqlite3 *db, const char *round, const char *submitter, const char *name, tta_system_row *out,
                         tta_error *err);
void tta_system_row_clear(tta_system_row *s);
void tta_system_rows_free(tta_system_row *s, size_t n);

/* ---- The rules' rounds and benchmark names (query_rules.c) -------------------------------- */

typedef struct {
    char *round;
    int ord; /* rule_rounds.ord: time order */
} tta_round_order;

/* Every round the rules know, in time order. TTA_OK with *out (free with tta_round_orders_free),
 * or TTA_EDB. */
int tta_db_round_orders(sqlite3 *db, tta_round_order **out, size_t *n, tta_error *err);
void tta_round_orders_free(tta_round_order *o, size_t n);

/* tta's canonical benchmark for a results folder's name in round (benchmark_aliases: rgat is gnn
 * from v5.0): TTA_OK with *benchmark malloc'd, or NULL when no alias applies; TTA_EDB. */
int tta_db_benchmark_alias(sqlite3 *db, const char *round, const char *name, char **benchmark, tta_error *err);

/* ---- Profiles (query_profiles.c) ------------------------------------------------------------- */

/* A stored profile of a training step (`tta profile`). */
typedef struct {
    int64_t id, sweep; /* sweep 0: not part of a batch sweep */
    char host[64], device[16], model[64], measured_at[32];
    int threads, batch, settled, warmup_steps, measured_steps;
    double step_s, samples_per_s, gflops, flops_per_step;
    double data_s, forward_s, backward_s, optimizer_s; /* NAN unknown */
    double mem[7]; /* bytes: weights, weight_grads, optimizer_state, feature_maps, workspace, data, total */
} tta_profile_row;

/* One layer (or the optimizer update) of a profile. */
typedef struct {
    char name[64], type[16], fused_into[64]; /* fused_into "" when not fused */
    double flops, bytes, time_s, gflops, intensity;
} tta_profile_layer_row;

/* Profile id (0: the latest stored) and, when it belongs to a sweep, every profile of the sweep,
 * ordered by batch (else just itself); *sel is its index in *rows. TTA_OK with *rows (free()) and
 * *n (0 when no profile is stored and id was 0); TTA_ENOTFOUND when there is no profile id;
 * TTA_EDB. */
int tta_db_profiles(sqlite3 *db, int64_t id, tta_profile_row **rows, size_t *n, size_t *sel, tta_error *err);

/* The layers of a profile in order. TTA_OK with *rows (free()), or TTA_EDB. */
int tta_db_profile_layers(sqlite3 *db, int64_t profile_id, tta_profile_layer_row **rows, size_t *n, tta_error *err);

/* A host's latest measured peaks (`tta profile --peaks`) of the CPU. */
typedef struct {
    double sgemm_gflops, mem_gbs;
    int threads; /* the thread count they were measured at */
} tta_host_peaks;

/* The host's latest peaks at threads, else at the nearest thread count (the larger on a tie):
 * 1 with *out, 0 when the host has none (or the database cannot say). */
int tta_db_host_peaks(sqlite3 *db, const char *host, int threads, tta_host_peaks *out);

/* ---- Lookups of one value (lookup.c) --------------------------------------------------------
 * Each returns TTA_OK, TTA_ENOTFOUND (nothing in the database answers; err says what was
 * looked for) or TTA_EDB. */

/* The entry whose system a stored description file gave (sources.path = path, as given to
 * ingest; the entry of the lowest id when several). *entry is -1 unless TTA_OK. */
int tta_db_entry_of_description(sqlite3 *db, const char *path, int64_t *entry, tta_error *err);

/* The entry that `tta replay` / `tta verify` runs of system on benchmark were stored under
 * (round TTA_REPLAY_ROUND, submitter TTA_REPLAY_SUBMITTER: common/replay_log.h). *entry is -1 unless TTA_OK. */
int tta_db_replay_entry(sqlite3 *db, const char *system, const char *benchmark, int64_t *entry, tta_error *err);

/* What an entry says of itself: its benchmark, and the "model" of its system's latest
 * description (NULL when not described). Strings are malloc'd and the caller's: free with
 * tta_db_entry_described_free (also after an error: then both are NULL). */
typedef struct {
    char *benchmark;
    char *model;
} tta_db_entry_described;
int tta_db_entry_description(sqlite3 *db, int64_t entry, tta_db_entry_described *out, tta_error *err);
void tta_db_entry_described_free(tta_db_entry_described *d);

/* The value (JSON text, malloc'd, the caller frees) of the hyperparameter key in the entry's
 * first run (lowest run_index) that logged it; *value NULL unless TTA_OK. */
int tta_db_entry_hparam(sqlite3 *db, int64_t entry, const char *key, char **value, tta_error *err);

/* ---- What the writer stores (filled by ingest's parsers) -------------------------------- */

/* A span of text, not NUL-terminated; NULL with n == 0 when absent. */
typedef struct {
    const char *p;
    uint32_t n;
} tta_str;

typedef enum { TTA_RUN_UNKNOWN = 0, TTA_RUN_SUCCESS = 1, TTA_RUN_ABORTED = 2 } tta_run_status;
const char *tta_run_status_name(tta_run_status s); /* "unknown", "success", "aborted" */

typedef struct {
    double time_s;   /* same clock as run_start_s */
    double epoch;    /* epochs completed at this evaluation, counting from 1
                        (epoch_num as logged, or a 0-based index + 1); NAN when unknown */
    double samples;  /* training samples seen at this evaluation; NAN when unknown */
    double quality;  /* the benchmark's primary metric as logged (top-1, mAP BBOX, BLEU, AUC, F1...) */
    double quality2; /* second metric where a benchmark has two (maskrcnn SEGM); NAN otherwise */
    uint32_t line;
} tta_eval;

typedef struct {
    double epoch;   /* as in tta_eval.epoch */
    double start_s; /* NAN when absent */
    double stop_s;  /* NAN when absent */
} tta_epoch_mark;

typedef struct {
    tta_str key;
    tta_str value; /* JSON text */
} tta_kv;

/* ---- Replay records (what the writer stores of tta's own records of a replay log) ------------ */

/* One time breakdown record of a replay log (TTA_KEY_EPOCH_BREAKDOWN, common/replay_log.h): a row
 * of replay_epoch_breakdown, with its ranks' rows of replay_rank_comm. */
typedef struct {
    double epoch;                      /* its metadata epoch_num; NAN when absent */
    double seconds[TTA_BREAKDOWN_FIELDS]; /* by tta_breakdown_field; NAN where the record lacks the
                                          member or it is not a number */
    double *rank_comm_s;               /* n_ranks: each rank's comm_total_s (NAN: not a number); NULL
                                          when the record has no such array */
    uint32_t n_ranks;
} tta_breakdown_record;

/* One training run (an MLPerf result log or a DAWNBench TSV). */
typedef struct {
    /* Identity: round ("v0.5", "v0.6", "v0.7", ..., "dawnbench", "local"), division ("closed",
     * "open"), submitter, system, benchmark (canonical lowercase: resnet, ssd, maskrcnn, gnmt,
     * transformer, ncf, minigo, bert, dlrm, ...; DAWNBench: cifar10, imagenet, squad,
     * fashion-mnist). See docs/ingest.md for which comes from the log and which from the path.
     * NULL when unknown. */
    char *round, *division, *submitter, *system, *benchmark;
    char *platform;     /* submission_platform as logged, NULL when absent */
    int run_index;      /* N of result_N.txt (or of *_N.log), -1 when the name has none */
    int has_seed;
    int64_t seed;
    double run_start_s; /* NAN when absent */
    double run_stop_s;  /* NAN when absent */
    tta_run_status status;
    double target;      /* eval_target / quality target logged by the run; NAN when not logged */
    double target2;     /* second target (maskrcnn SEGM) when logged; NAN otherwise */
    double global_batch_size; /* NAN when unknown */
    double train_samples;     /* training-set size logged (train_samples), NAN when not */
    double eval_samples;      /* NAN when not logged */
    double tta_s;       /* only for DAWNBench (time of first epoch at threshold, computed by the
                           store's views otherwise): NAN */
    tta_eval *evals;
    size_t n_evals;
    tta_epoch_mark *epochs;
    size_t n_epochs;
    tta_kv *hparams;    /* optimizer and schedule hyperparameters, batch sizes, DAWNBench misc */
    size_t n_hparams;
    /* The convergence point candidates as MLCommons' RCP checker reads them at the last run_stop
     * record (runs.cp_*; schemas/004_benchmark_rules.sql): NAN when absent. cp_status is that
     * record's status (TTA_RUN_UNKNOWN without run_stop). Which one counts is the rule's. */
    double cp_epoch_num, cp_samples_count, cp_train_samples;
    double cp_first_passing_step, cp_first_passing_samples;
    tta_run_status cp_status;
    /* Records the format reader could not read (broken JSON, no key...): MLCommons' parser
     * rejects such a file, so its summarizer drops the run from the official score. */
    uint32_t unreadable_records, first_unreadable_line;
    /* tta's replay logs (common/replay_log.h; stored in replay_runs, replay_epoch_breakdown and
     * replay_rank_comm). replay_logged: the log gave one of the run's own records below (a row of
     * replay_runs): TTA_KEY_WORLD_SIZE's value (the last logged; NAN when not a number or none),
     * and the first string of TTA_KEY_REPLAY_OF (NULL), the first number of TTA_KEY_TO_SCHEDULE_END
     * (1 when not 0; -1 none), TTA_KEY_UNSEEN_ACCURACY and TTA_KEY_SHIFTED_ACCURACY (NAN none); and
     * every time breakdown record in log order. */
    int replay_logged;
    double world_size;
    char *replay_of;
    int to_schedule_end;
    double unseen_accuracy, shifted_accuracy;
    tta_breakdown_record *breakdowns;
    size_t n_breakdowns;
} tta_run_record;

/* A system description (systems/<name>.json, or v0.5 entry.json, or a DAWNBench entry JSON). */
typedef struct {
    char *round, *submitter, *name; /* name = file stem (or results/<system> folder for entry.json) */
    char *division, *status;        /* NULL when unknown */
    char *accelerator_model;        /* NULL when unknown */
    int nodes;                      /* -1 when unknown */
    int accelerators_per_node;      /* -1 when unknown */
    int accelerators;               /* total = nodes * per node; 0 for CPU-only; -1 unknown */
    char *host_processor;           /* NULL when unknown */
    char *framework;                /* NULL when unknown */
    char *raw_json;                 /* the description re-serialised as valid JSON */
} tta_system_record;

typedef struct {
    char *node;     /* "node_0", "sw_0" (file stem) */
    double time_s;
    tta_str key;    /* "power_reading", ... */
    double value;   /* NAN when the value is not a number */
} tta_power_sample;

typedef struct {
    /* Where the power log belongs: the run result_<run_index> of this entry. */
    char *round, *submitter, *system, *benchmark;
    int run_index;
    tta_power_sample *samples;
    size_t n_samples;
} tta_power_record;

/* A file published beside a folder's result logs (entry_files): scaling.json, the factor the
 * summarizer multiplies the folder's score by; or one score of a summary.json record. */
typedef struct {
    /* The folder's identity as its runs get it from the path (NULL when the path has none). */
    char *round, *submitter, *system, *benchmark;
    const char *kind;      /* "scaling" or "summary" */
    double scaling_factor; /* NAN when the file has none (always for "summary") */
    double score_min;      /* "summary": the summarizer's score in minutes; NAN for "scaling" */
    tta_str content;       /* the JSON value as written (spans the file's bytes): the object, or the
                              summary.json record */
} tta_entry_file_record;

/* What one file gives the database. */
typedef enum {
    TTA_DB_FILE_NONE = 0,     /* a sources row only (a failed file, or a format with no rows) */
    TTA_DB_FILE_RUN,          /* a run: runs, event_log, evaluations, epochs, hyperparameters */
    TTA_DB_FILE_SYSTEM,       /* a system description: systems */
    TTA_DB_FILE_POWER,        /* power samples of a run: power_samples */
    TTA_DB_FILE_ENTRY_FILES,  /* files beside a folder's logs: entry_files */
} tta_db_file_kind;

/* One file as the writer stores it: a view on the parser's result (nothing here is owned; it
 * must stay valid during tta_store_write). */
typedef struct {
    const char *path;         /* sources.path, as given */
    const char *format;       /* sources.format: the format's stable name ("mllog", ...) */
    uint64_t size;
    uint64_t hash;            /* sources.hash (tta_hash64 of the content) */
    int failed;               /* 1: a malformed file, stored as a sources row with status 'failed'
                                 and error ("<path>:<line>: <reason>", may be NULL), nothing else */
    const char *error;
    tta_db_file_kind kind;
    /* TTA_DB_FILE_RUN: the run, and its n_events log records already encoded as event_log's JSON
     * (records, records_len; records_files: the JSON array of the paths they name, or NULL). */
    const tta_run_record *run;
    size_t n_events;
    const char *records;
    size_t records_len;
    const char *records_files;
    const tta_system_record *system;          /* TTA_DB_FILE_SYSTEM */
    const tta_power_record *power;            /* TTA_DB_FILE_POWER */
    const tta_entry_file_record *entry_files; /* TTA_DB_FILE_ENTRY_FILES: n_entry_files of them */
    size_t n_entry_files;
} tta_db_file;

/* The longest text or blob the database stores in one value (SQLITE_LIMIT_LENGTH): a run whose
 * encoded records reach it cannot be stored (ingest fails such a file before the writer). */
size_t tta_db_max_value_bytes(sqlite3 *db);

/* ---- The writer (store.c) -----------------------------------------------------------------
 *
 * One writer owns a tta_store (its prepared statements); it is not thread-safe. Files are
 * written in transactions that group them (about 8 MB of input or 0.5 s): a file is stored
 * whole or not at all, and a crash, a full disk or any other database error loses at most the
 * files of the open transaction (which a re-run stores), never what an earlier commit stored.
 * Grouping matters: a commit rewrites the root and interior pages of every table and index it
 * touched, which for one small file per commit doubled what the write-ahead log received.
 * There is no savepoint per file: a malformed file is not a database error (it is stored as a
 * failed source), so only the database itself can fail a write, and then the whole open
 * transaction goes, as a crash would take it. Every error below is TTA_EDB with SQLite's
 * message and the path concerned. */

typedef struct tta_store tta_store;

/* What the database already holds for one path. */
typedef struct {
    char *path;
    uint64_t size;
    char hash[17];
    int ok; /* status = 'ok' */
} tta_stored_source;

/* Prepares the writer's statements on db (which must outlive the store). TTA_OK and *out, or
 * TTA_EDB with *out NULL. */
int tta_store_open(sqlite3 *db, tta_store **out, tta_error *err);
/* Commits the open transaction (a failure is lost: call tta_store_flush first to see it) and
 * frees s. NULL is a no-op. */
void tta_store_close(tta_store *s);

/* Loads every stored source (path, size, hash, status) so that parser threads can tell an
 * unchanged file without touching the database. The caller frees *out with
 * tta_stored_sources_free (also after an error). TTA_OK or TTA_EDB. */
int tta_store_load_sources(tta_store *s, tta_stored_source **out, size_t *n, tta_error *err);
void tta_stored_sources_free(tta_stored_source *v, size_t n);

/* What committed transactions stored. */
typedef struct {
    int64_t ingested; /* files stored with their content */
    int64_t failed;   /* files stored as failed sources (malformed) */
    int64_t runs, events;
} tta_store_counts;

/* Writes f (replacing whatever its path gave before), opening a transaction if none is open
 * and committing it when the batch is full. A failed file (f->failed) is recorded as a sources
 * row with status 'failed' and its error, and nothing else. TTA_OK, or TTA_EDB with the whole
 * open transaction rolled back (err says how many files went with it). */
int tta_store_write(tta_store *s, const tta_db_file *f, tta_error *err);

/* Removes what path gave before (its sources row and, by cascade, its run, description, power
 * samples or entry file) in the open transaction (opened if none): a file an earlier ingest read
 * that is no longer read where it lies. TTA_OK, or TTA_EDB with the open transaction rolled back. */
int tta_store_forget(tta_store *s, const char *path, tta_error *err);

/* Commits the open transaction, if any (tta_store_finish and tta_store_close call it). TTA_OK,
 * or TTA_EDB with it rolled back. */
int tta_store_flush(tta_store *s, tta_error *err);

/* Totals of the committed transactions, and the number of files rolled back after an error. */
tta_store_counts tta_store_committed(const tta_store *s);
/* Totals written so far: the committed transactions' and the open one's (for progress; a
 * database error may still roll the open one back). */
tta_store_counts tta_store_written(const tta_store *s);
int64_t tta_store_rolled_back(const tta_store *s);

/* After a batch of files: fills divisions that were unknown when a run was stored from the
 * system descriptions that arrived since, and removes entries left without runs. TTA_OK or
 * TTA_EDB (that fix-up rolled back; the files stay stored). */
int tta_store_finish(tta_store *s, tta_error *err);

/* ---- Copying the write-ahead log during a long write (checkpointer.c) ----------------------
 *
 * Without it the last connection's close copies every page the ingest wrote from the WAL into
 * the database file and syncs both, the parser threads long gone: on record-dense logs that
 * close took half as long as the ingest itself. With it the copy and its syncs overlap the
 * parsing and the close has little left to do (measured: `tta ingest` as a whole command 15%
 * faster on a disk, the same on tmpfs). The WAL itself still grows by what the ingest writes:
 * it restarts only when a writer begins a transaction after every frame was copied, and the
 * writer begins its next one at once.
 *
 * Ownership: the checkpointer owns its thread and connection; the caller keeps owning db, which
 * must outlive tta_checkpointer_stop. */

typedef struct tta_checkpointer tta_checkpointer;

/* Starts checkpointing db's WAL after each commit that leaves at least min_frames frames in it.
 * Returns NULL when db has no file of its own (in memory) or the thread or connection cannot be
 * had: the database is then checkpointed as SQLite does by itself, nothing is lost. */
tta_checkpointer *tta_checkpointer_start(sqlite3 *db, int min_frames);

/* Stops the thread (finishing a checkpoint under way), closes its connection and gives db back
 * its automatic checkpoints. NULL is a no-op. */
void tta_checkpointer_stop(tta_checkpointer *c);

/* ---- Profiles and host peaks (profile_store.c) ------------------------------------------ */

/* Stores one profile: json is the object `tta profile --format json` prints (replay.h's
 * tta_profile_json), as a row of profiles and its rows of profile_layers, in one transaction.
 * sweep groups the profiles of one batch sweep (0: none; the first profile of a sweep passes
 * -1 and its own id becomes the sweep's). *id (when not NULL) gets the new row's id. TTA_OK;
 * TTA_EINPUT ("profile: <field>: reason") or TTA_EDB, with nothing stored. */
int tta_store_profile(sqlite3 *db, const char *json, int64_t sweep, int64_t *id, tta_error *err);

/* Stores one host's measured peaks: json is `tta profile --peaks --format json`'s object
 * {"host", "device", "threads", "sgemm_gflops", "mem_gbs", "copy_gbs"}. TTA_OK; TTA_EINPUT or
 * TTA_EDB with nothing stored. */
int tta_store_peaks(sqlite3 *db, const char *json, tta_error *err);

#endif
