/* parsed.h: what a parser makes of one file (internal to ingest/).
 *
 * A parser turns the bytes of one file into a tta_parsed_file: the raw events (every
 * :::MLPv0.5.0 / :::MLL / :::MLLOG record, in file order) and what they mean for the run
 * (start, stop, status, evaluations, epochs, hyperparameters), or a system description, or
 * power samples (the record types are db/db.h's: what the writer stores). db/'s writer stores it,
 * through tta_parsed_db_file, whole or not at all.
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
#include "db/writer.h"
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
    TTA_FMT_SUMMARY,        /* summary.json anywhere: the result summarizer's records */
    TTA_FMT_ALGOPERF_EVALS, /* AlgoPerf .../study_<N>/<workload>_<framework>/trial_<N>/eval_measurements.csv */
    TTA_FMT_ALGOPERF_JSON,  /* the same folder's hparams.json, meta_data_0.json, flags_0.json */
    TTA_FMT_ALGOPERF_TARGETS, /* workload_targets*.json: a benchmark version's workloads and targets (the last
                               format: bench/bench_parse.c counts up to it) */
} tta_format;

/* Stable name of a format, as stored in sources.format ("mlperf-v0.5", "mllog", ...). */
const char *tta_format_name(tta_format f);

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
    tta_algoperf_record algoperf; /* the AlgoPerf formats (its arrays malloc'd) */
    tta_arena arena;        /* owns strings and converted values */
    tta_file file;          /* the file's bytes when tta_parse_file loaded them (spans point into them) */
} tta_parsed_file;

/* The view of f the database writer stores (db.h's tta_db_file; it points into f, which must
 * outlive it). Encodes f's records first when they are not yet (tta_parsed_encode_records). */
tta_db_file tta_parsed_db_file(tta_parsed_file *f);

/* Releases everything *f owns and zeroes it. */
void tta_parsed_free(tta_parsed_file *f);

#endif
