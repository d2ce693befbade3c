/* reader.h: db/'s readers' contract (db.h says who includes which): the entry filter every report
 * applies, and every query of entries, runs and their facts (as the writer stored them: nothing
 * here derives a run's facts), systems, rules, power logs, profiles and replays. Ownership and
 * errors as db.h says. */
#ifndef TTA_DB_READER_H
#define TTA_DB_READER_H

#include "common/replay_log.h"
#include "db/db.h"

/* ---- Selecting entries: the filter every report applies (filter.c) ------------------------ */

/* Which entries a query reads. NULL / 0 fields match everything. A text field matches its value
 * case-insensitively; one written /PATTERN/ (e.g. "/^dgxa100/") is a PCRE2 regular expression
 * that must match somewhere in the value (anchor it with ^ and $ for the whole value),
 * case-insensitively unless the pattern says (?-i). A query compiles each pattern once (with
 * JIT). */
typedef struct {
    const char *round, *division, *submitter, *system, *benchmark;
    int64_t entry_id;
    /* The entry's system description (the one the entries query joins: the last stored for its
     * round, submitter and system); an entry without one matches none of these once set. */
    const char *accelerator_model; /* "NVIDIA A100-SXM4-40GB (400W)"; a pattern: "/a100/" */
    const char *framework;         /* "MXNet NGC20.06" */
    const char *availability;      /* the description's status: available, preview, research, onprem ... */
    int accelerators_min, accelerators_max; /* total accelerators in [min, max]; 0: no bound */
} tta_filter;

/* 1 when value is written /PATTERN/ (a regular expression for the filter), else 0. */
int tta_filter_is_pattern(const char *value);

/* TTA_OK when value is plain text or a pattern PCRE2 compiles; else TTA_EINPUT with "bad regular
 * expression /PATTERN/: <PCRE2's message> at offset N" (N counts bytes of PATTERN). */
int tta_filter_value_check(const char *value, tta_error *err);

/* tta_filter_value_check of every text field of f (NULL: TTA_OK); the error starts with the field's
 * name ("system: bad regular expression ..."), and a range whose min is above its max is
 * "accelerators: MIN above MAX". Every query below that takes a filter checks it so and fails with
 * TTA_EINPUT before reading anything. */
int tta_filter_check(const tta_filter *f, tta_error *err);

/* Is f a mistake (filter_values.c)? Each plain value of f must be one its column holds
 * (case-insensitively; rounds, divisions, submitters and systems of entries and of system
 * descriptions, benchmarks of entries) and f->entry_id (when set) an entry's id. TTA_OK when so,
 * and also when a /PATTERN/ matches no value of its column: then note (when not NULL) gets "no
 * <field> matches /PATTERN/: no entry matches" (note's code TTA_ENOTFOUND; TTA_OK when every
 * pattern matches). Else TTA_ENOTFOUND with "no benchmark 'resent'; did you mean resnet?" (the
 * column's values nearest by edit distance, when any is near) or "no entry 99999 (entries are
 * numbered 1 to 620; ...)"; TTA_EINPUT for a bad pattern (tta_filter_check's); TTA_EDB. Values
 * that each exist but select nothing together are no mistake (TTA_OK). */
int tta_filter_validate(sqlite3 *db, const tta_filter *f, tta_error *note, tta_error *err);

/* ---- Entries, runs and evaluations of a selection (query_entries.c) ----------------------- */

/* One evaluation of a run. */
typedef struct {
    double time_s;   /* seconds since run_start */
    double epoch;    /* epochs completed, from 1; NAN unknown */
    double samples;  /* NAN unknown */
    double steps;    /* optimizer steps taken (AlgoPerf trials log global_step); NAN unknown */
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
    int not_compliant;  /* 1: flag not_compliant, MLCommons' compliance checks fail its log (the summarizer
                           drops such a run from the official score) */
    double samples_to_target; /* NAN unknown */
    double global_batch_size; /* NAN unknown */
    int has_seed;
    int64_t seed;
    int log_nodes;      /* the log's number_of_nodes (MLPerf HPC: a weak-scaling instance's size); -1 none */
    int log_accelerators_per_node; /* the log's accelerators_per_node; -1 none */
    int succeeded;      /* 1: it has a duration and its run_stop says success, or says nothing and its
                           last evaluation meets the target (v0.5 NVIDIA, Alibaba v0.6) */
    int time_suspect;   /* 1: its duration cannot be trusted (not positive, or flag far_outside_entry):
                           tta's own statistics leave it out and say so */
    char *flags;        /* its flags' names, comma-separated in name order (run_flags); NULL when none */
    char *flag_reasons; /* their reasons, "; "-separated in the same order; NULL when none */
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
    int unread_logs;         /* result logs beside its runs' that ingest read as no run (no run_start: a
                                cut-off log); MLCommons' summarizer counts each as a dropped run */
    double summary_score_min; /* the score a summary.json (the result summarizer's) gives the entry; NAN */
    double train_samples;    /* training-set size logged by the runs; NAN unknown */
    double cost_per_hour;    /* US dollars per hour of the system the entry ran on, as its description
                                says (DAWNBench's "costPerHour"); NAN unknown or negative */
    char *scaling;           /* MLPerf HPC from v1.0: "strong" or "weak" (the folder); NULL elsewhere */
    char *description_file;  /* the file of its system's description as ingested (sources.path); NULL none */
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
    char *flags;              /* its flags' names, comma-separated (run_tta.flags); "" when none */
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

/* ---- Profiles of replayed runs (query_replay_profile.c) -------------------------------------- */

/* One layer of a replay's layer profile (TTA_KEY_LAYER_PROFILE, common/replay_log.h), a row of
 * replay_layers. */
typedef struct {
    char *name, *type;   /* NULL where the log's member was not a string */
    double flops, bytes; /* analytic, of one training step (forward and backward); NAN unknown */
    double time_s;       /* measured seconds per step (0: fused into another layer); NAN unknown */
} tta_replay_layer_row;

/* A replayed run's profile as its log gave it (TTA_KEY_MEMORY, TTA_KEY_LAYER_PROFILE), with
 * what names the run. */
typedef struct {
    int64_t entry_id, run_id;
    char *round, *submitter, *system, *benchmark; /* its entry's */
    int run_index;                                /* N of result_N.txt; -1 none */
    int has_memory;                               /* 1: the log gave a memory record */
    double memory[TTA_REPLAY_MEMORY_CATEGORIES];  /* bytes of category tta_replay_memory[i]; NAN unknown */
    int has_layers;                               /* 1: the log gave a layer profile */
    double steps;                                 /* the training steps its times average over; NAN unknown */
    tta_replay_layer_row *layers;                 /* n_layers, in the record's order */
    size_t n_layers;
} tta_replay_profile;

/* The profiles of the runs of f (NULL: all) whose logs gave a memory record or a layer profile
 * (replays; no published log has them), by entry and run. TTA_OK with *out (free with
 * tta_replay_profiles_free; none: NULL, 0); TTA_EINPUT or TTA_EDB. */
int tta_db_replay_profiles(sqlite3 *db, const tta_filter *f, tta_replay_profile **out, size_t *n, tta_error *err);
void tta_replay_profiles_free(tta_replay_profile *p, size_t n);

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
    char algorithm[32]; /* a convolution's ("winograd", ...); "" where the backend has one */
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

/* ---- AlgoPerf leaderboards (query_algoperf.c; schemas/010_algoperf.sql) ------------------- */

/* A benchmark version's workload, as its targets file lists it. */
typedef struct {
    char *workload, *metric; /* the scored column is validation/<metric> */
    double target;
    int minimize;            /* 1: lower is better */
    int64_t step_hint;       /* -1 unknown */
    char *role;              /* "base", "held_out", "other" */
    char *base;              /* held_out: its base workload; else NULL */
} tta_algoperf_workload;

/* One trial's evaluations (an eval_measurements.csv), with what scoring needs. */
typedef struct {
    char *leaderboard, *ruleset, *submission, *workload, *framework; /* framework NULL: none */
    int study, trial;
    int selected;            /* the filter's submitter (or none) matches its submission */
    double max_runtime_s;    /* its meta_data_0.json's workload.max_allowed_runtime_sec; NAN unknown */
    double *score;           /* n: each evaluation's score (submission time, s); NAN where empty */
    double *value;           /* n: its validation/<metric> for the workload's metric (NAN: none, or the
                                leaderboard's version has no targets for the workload) */
    size_t n;
} tta_algoperf_trial;

/* The leaderboards (f->round: "algoperf-v0.5") and rulesets (f->division: external_tuning, self_tuning) f
 * selects, every submission of them (scores are relative to all of them; f->submitter only sets
 * .selected), their trials ordered by leaderboard, ruleset, submission, workload, study, trial.
 * TTA_OK with *out (free with tta_algoperf_trials_free) and *n; TTA_EINPUT (a bad pattern) or TTA_EDB. */
int tta_db_algoperf_trials(sqlite3 *db, const tta_filter *f, tta_algoperf_trial **out, size_t *n, tta_error *err);
void tta_algoperf_trials_free(tta_algoperf_trial *t, size_t n);

/* The workloads of benchmark version (a leaderboard: "algoperf-v0.5") as its latest stored targets file lists
 * them, in the file's order; none when no targets file of that version is stored. TTA_OK or TTA_EDB. */
int tta_db_algoperf_workloads(sqlite3 *db, const char *version, tta_algoperf_workload **out, size_t *n,
                              tta_error *err);
void tta_algoperf_workloads_free(tta_algoperf_workload *w, size_t n);

#endif
