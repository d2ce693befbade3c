/* parsed.h: what a parser makes of one file (internal to ingest/).
 *
 * A parser turns the bytes of one file into a tta_parsed_file: the raw events (every
 * :::MLPv0.5.0 / :::MLL / :::MLLOG record, in file order) and what they mean for the run
 * (start, stop, status, evaluations, epochs, hyperparameters), or a system description, or
 * power samples. The store (store.c) writes it to SQLite whole or not at all.
 *
 * Ownership: a tta_parsed_file owns path, error, records and records_files (malloc'd), its arrays (events, evals,
 * epochs, hparams, power samples: malloc'd), its arena (strings, converted values) and, when
 * made by tta_parse_file (parse.h), the file's bytes; tta_parsed_free releases them. Other char *
 * fields point into the arena or at static strings and are never freed one by one. tta_str spans
 * point into the file's bytes or the arena: with tta_parse_buffer the caller's buffer must
 * outlive the parsed file. Parsing itself (detecting the format, dispatching): parse.h. Strings marked "NULL when unknown" are NUL-terminated; tta_str
 * spans are not.
 */
#ifndef TTA_INGEST_PARSED_H
#define TTA_INGEST_PARSED_H

#include <stddef.h>
#include <stdint.h>

#include "common/file.h"
#include "ingest/arena.h"

typedef enum {
    TTA_FMT_UNKNOWN = 0,    /* not a file tta reads (README, image, archive): skipped silently */
    TTA_FMT_MLPERF_V05,     /* ":::MLPv0.5.0 <bench> <unix s> (<file:line>) <key>[: <value>]" */
    TTA_FMT_MLPERF_V06,     /* ":::MLL <unix s> <key>: <json>" */
    TTA_FMT_MLLOG,          /* ":::MLLOG <json>" (v0.7 and later rounds) */
    TTA_FMT_MLPERF_TEXT,    /* "MLPerf: <bench> [MM/DD/YY HH:MM:SS], <key>[: <value>]" (Alibaba v0.6) */
    TTA_FMT_POWER,          /* :::MLLOG power log: results/<sys>/<bench>/power/result_N/{node,sw}_N.txt */
    TTA_FMT_DAWNBENCH_TSV,  /* per-epoch TSV (+ its sibling JSON description) */
    TTA_FMT_DAWNBENCH_JSON, /* DAWNBench entry description on its own (e.g. inference entries) */
    TTA_FMT_SYSTEM_JSON,    /* <submitter>/systems/<system>.json */
    TTA_FMT_ENTRY_JSON,     /* v0.5 results/<system>/entry.json */
    TTA_FMT_SCALING,        /* results/<system>/<benchmark>/scaling.json: {"scaling_factor": x} */
    TTA_FMT_SUMMARY,        /* summary.json anywhere: the result summarizer's records (the last format:
                               bench/bench_parse.c counts up to it) */
} tta_format;

/* Stable name of a format, as stored in sources.format ("mlperf-v0.5", "mllog", ...). */
const char *tta_format_name(tta_format f);

typedef struct {
    const char *p; /* not NUL-terminated; NULL with n == 0 when absent */
    uint32_t n;
} tta_str;

typedef enum { TTA_EV_POINT = 0, TTA_EV_START = 1, TTA_EV_END = 2 } tta_event_type;

typedef struct {
    tta_str key;
    tta_str value;     /* valid JSON text ("null" when the line had no value) */
    tta_str metadata;  /* valid JSON object text, or empty */
    tta_str file;      /* within metadata: its "file" member's value (a JSON string token), or empty */
    double time_s;     /* unix seconds (time_ms / 1000 for MLLOG); NAN when absent */
    double epoch_num;  /* metadata epoch_num (v0.5: the value's "epoch"), as logged; NAN when absent */
    double samples;    /* metadata samples_count / samples; NAN when absent */
    uint32_t line;     /* 1-based line number in the file */
    uint8_t type;      /* tta_event_type */
} tta_event;

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

typedef struct tta_parsed_file {
    char *path;             /* as given to the parser */
    tta_format format;
    uint64_t size;
    uint64_t hash;          /* tta_hash64 of the content (and of a DAWNBench TSV's sibling JSON) */
    int failed;             /* 1: error holds "<path>:<line>: <reason>"; nothing else is stored */
    char *error;
    tta_event *events;      /* every log record in file order (log formats only) */
    size_t n_events;
    char *records;          /* the events as event_log.records JSON (records.h), NULL until encoded */
    size_t records_len;
    char *records_files;    /* event_log.files: the JSON array of the paths records refer to, or NULL */
    tta_run_record run;     /* log formats and DAWNBench TSV */
    tta_system_record system; /* system / entry / DAWNBench JSON */
    tta_power_record power;   /* TTA_FMT_POWER */
    tta_entry_file_record entry_file; /* TTA_FMT_SCALING */
    tta_entry_file_record *entry_files; /* TTA_FMT_SUMMARY: one per record and score (malloc'd) */
    size_t n_entry_files;
    tta_arena arena;        /* owns strings and converted values */
    tta_file file;          /* the file's bytes when tta_parse_file loaded them (spans point into them) */
} tta_parsed_file;

/* Releases everything *f owns and zeroes it. */
void tta_parsed_free(tta_parsed_file *f);

#endif
