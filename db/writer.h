/* writer.h: db/'s writer's contract (db.h says who includes which): the records a parser fills,
 * the writer that stores them a file at a time, the runs' facts it works out when it commits, the
 * WAL checkpointer of a long write, and profiles. Ownership and errors as db.h says. */
#ifndef TTA_DB_WRITER_H
#define TTA_DB_WRITER_H

#include "common/replay_log.h"
#include "db/db.h"

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

/* One layer of a replay log's layer profile (TTA_KEY_LAYER_PROFILE, common/replay_log.h): a row
 * of replay_layers. */
typedef struct {
    char *name, *type;         /* NULL where the member is not a string */
    double flops, bytes;       /* of one training step, forward and backward; NAN: not a number */
    double time_s;             /* measured seconds per step; NAN: not a number */
} tta_replay_layer;

/* One training run (an MLPerf result log or a DAWNBench TSV). */
typedef struct {
    /* Identity: round ("v0.5", "v0.6", "v0.7", ..., "dawnbench", "local"), division ("closed",
     * "open"), submitter, system, benchmark (canonical lowercase: resnet, ssd, maskrcnn, gnmt,
     * transformer, ncf, minigo, bert, dlrm, ...; DAWNBench: cifar10, imagenet, squad,
     * fashion-mnist). See docs/ingest.md for which comes from the log and which from the path.
     * NULL when unknown. */
    char *round, *division, *submitter, *system, *benchmark;
    const char *scaling; /* MLPerf HPC from v1.0: "strong" or "weak", the folder the log is in; NULL */
    int log_nodes;       /* the log's number_of_nodes record (the first); -1 when absent */
    int log_accelerators_per_node; /* its accelerators_per_node record; -1 when absent */
    char *platform;     /* submission_platform as logged, NULL when absent */
    int run_index;      /* N of result_N.txt (or of *_N.log), -1 when the name has none */
    int has_seed;
    int64_t seed;
    double run_start_s; /* NAN when absent */
    double run_stop_s;  /* NAN when absent */
    double init_start_s; /* the first init_start record's time; NAN when absent */
    double init_stop_s;  /* the last init_stop's; NAN when absent */
    tta_run_status status;
    double target;      /* eval_target / quality target logged by the run; NAN when not logged */
    double target2;     /* second target (maskrcnn SEGM) when logged; NAN otherwise */
    double global_batch_size; /* NAN when unknown */
    double train_samples;     /* training-set size logged (train_samples), NAN when not */
    double eval_samples;      /* NAN when not logged */
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
    /* MLCommons' compliance checks on the log (check/check.h, its round's ruleset as published; runs.compliance):
     * NULL where none applies, else "pass", "fail" or "unknown"; compliance_reason: for a run that does not
     * pass, "<rule> (line N): <what the rule wants and what the log has>". */
    const char *compliance;
    char *compliance_reason;
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
    /* Its profile (the last of each record counts; stored in replay_memory and replay_layers):
     * has_memory when TTA_KEY_MEMORY is an object, then memory[i] the bytes of category
     * tta_replay_memory[i] (NAN: missing or not a number); has_layer_profile when
     * TTA_KEY_LAYER_PROFILE is an object, then layer_steps (NAN: not a number) and its layers in
     * order (none when its member is not an array). */
    int has_memory;
    double memory[TTA_REPLAY_MEMORY_CATEGORIES];
    int has_layer_profile;
    double layer_steps;
    tta_replay_layer *layers;
    size_t n_layers;
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

/* One file of an AlgoPerf leaderboard (schemas/010_algoperf.sql): a trial's eval_measurements.csv,
 * hparams.json, meta_data_0.json or flags_0.json (kind says which), or a benchmark version's
 * workload targets (kind "targets"). */
typedef struct {
    double global_step, score, submission_time, eval_time, total_duration; /* NAN: empty or not a number */
} tta_algoperf_eval;

typedef struct {
    uint32_t eval;  /* index into evals */
    tta_str name;   /* "validation/accuracy" */
    double value;   /* NAN: "nan" or empty */
} tta_algoperf_value;

typedef struct {
    char *workload, *metric;
    double target;
    int64_t step_hint;   /* -1 when absent */
    int minimize;        /* 1: lower is better */
    const char *role;    /* "base", "held_out", "other" */
    const char *base;    /* held_out: its base workload; else NULL */
} tta_algoperf_target;

typedef struct {
    const char *kind;     /* "eval_measurements", "hparams", "meta_data", "flags", "targets" */
    /* trial files: where the path says the file lies */
    char *leaderboard, *ruleset, *submission, *workload, *framework; /* framework NULL: no suffix */
    int study, trial;
    tta_str content;      /* the JSON files: the object as written */
    tta_algoperf_eval *evals; /* eval_measurements: one per row */
    size_t n_evals;
    tta_algoperf_value *values; /* eval_measurements: the validation/<metric> cells */
    size_t n_values;
    char *version;        /* targets: "algoperf-v0.5" (from "benchmark_version": "0.5") */
    tta_algoperf_target *targets;
    size_t n_targets;
} tta_algoperf_record;

/* What one file gives the database. */
typedef enum {
    TTA_DB_FILE_NONE = 0,     /* a sources row only (a failed file, or a format with no rows) */
    TTA_DB_FILE_RUN,          /* a run: runs, event_log, evaluations, epochs, hyperparameters */
    TTA_DB_FILE_SYSTEM,       /* a system description: systems */
    TTA_DB_FILE_POWER,        /* power samples of a run: power_samples */
    TTA_DB_FILE_ENTRY_FILES,  /* files beside a folder's logs: entry_files */
    TTA_DB_FILE_ALGOPERF,     /* an AlgoPerf trial file or targets file: algoperf_* */
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
    const tta_algoperf_record *algoperf;      /* TTA_DB_FILE_ALGOPERF */
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

/* ---- Each run's facts (facts.c) ----------------------------------------------------------
 *
 * A run's facts (duration, reached, progress and its unit, epochs, flags, ...) are worked out
 * once, by the writer, and stored (run_facts, run_flags, evaluations.meets; docs/database.md):
 * every reader, plain SQL included, reads those columns. Triggers keep the entries whose facts
 * are stale in facts_pending (a run or system description written or removed, the rules' copy
 * replaced). */

/* Works out the facts of every run of the pending entries and empties facts_pending, in one
 * transaction (none when nothing is pending). tta_store_finish and tta_db_open call it. TTA_OK,
 * or TTA_EDB with the transaction rolled back (the entries stay pending). */
int tta_db_facts_refresh(sqlite3 *db, tta_error *err);

/* 1 when some entry's facts are stale (facts_pending has rows), 0 when none, -1 when SQLite
 * cannot say. */
int tta_db_facts_stale(sqlite3 *db);

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
