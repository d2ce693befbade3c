/* parse_common.h: what the format parsers share (internal to ingest/): building a parsed file
 * (failing it, keeping bytes and strings in its arena), reading relaxed and whole-file JSON, and
 * the run builder that turns log records into a run.
 *
 * The parsers (parsers.h) call these; nothing here calls a parser or the dispatcher (parse.h), so
 * that the arrows run one way: dispatch -> parsers -> these helpers.
 */
#ifndef TTA_INGEST_PARSE_COMMON_H
#define TTA_INGEST_PARSE_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "ingest/jsonscan.h"
#include "ingest/parsed.h"
#include "ingest/pathmeta.h"

/* ---- reading JSON as people write it (parse_relaxed.c, parse_whole_json.c) ---- */

/* A description's text (strict or relaxed JSON; with allow_lines also v0.6 NVIDIA's
 * "key: {json}" lines) as a cJSON tree the caller deletes, or NULL (parse_relaxed.c). */
struct cJSON *tta_parse_description_json(const char *data, size_t len, int allow_lines);

/* Converts relaxed JSON (Python reprs, single quotes, True/False/None, trailing commas,
 * comments, tuples; a leading byte-order mark; with TTA_RELAXED_BARE_WORDS also unquoted keys
 * and bare words as strings) that is exactly one value into strict JSON appended to out.
 * Returns 1, or 0 (out unchanged) when the text is not one value even read leniently
 * (parse_relaxed.c). */
#define TTA_RELAXED_BARE_WORDS 1
int tta_relaxed_to_json(const char *p, size_t n, int flags, buf *out);

/* A file that is one JSON value (scaling.json, summary.json; parse_whole_json.c): *value is it, and
 * 0 is returned; otherwise the file is failed with "<line>: <reason>" (empty_reason for an empty
 * file) and -1 returned. A byte-order mark is allowed. */
int tta_parse_whole_json(tta_parsed_file *f, const char *data, size_t len, const char *empty_reason,
                         tta_json_span *value);
/* The 1-based line of position at in data, and the JSON types in words ("an object", ...). */
uint32_t tta_line_at(const char *data, const char *at);
extern const char *const tta_json_type_names[];

/* ---- building a parsed file (parsed.c) ---- */

/* Sets f->failed and f->error = "<path>:<line>: <reason>" (malloc'd), unless already failed. */
void tta_parse_fail(tta_parsed_file *f, uint32_t line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A copy of n bytes in f's arena as a span. */
tta_str tta_parsed_keep(tta_parsed_file *f, const char *p, size_t n);

/* The content of a JSON string span as a NUL-terminated string in f's arena; NULL if not a
 * string. */
char *tta_parsed_string(tta_parsed_file *f, tta_json_span s);

/* Lowercase copy of s in f's arena (NULL stays NULL). */
char *tta_parsed_lower(tta_parsed_file *f, const char *s);

/* ---- run builder (parse_run.c): what log records mean for the run ---- */

/* The metadata members the run semantics read (NAN or absent when not logged). */
typedef struct {
    double epoch_num, samples, first_epoch, timestamp; /* samples: samples_count, else samples */
    double samples_count, step_num;                    /* as logged; NAN when absent */
    tta_json_span status, metric;
    tta_json_span file; /* the first "file" member when a string (the logging call's source file) */
} tta_meta_fields;

/* Starts *m empty; tta_meta_member takes in one member of a metadata object (any order; a
 * format reader calls it while it validates the object, saving a second pass). */
void tta_meta_init(tta_meta_fields *m);
void tta_meta_member(tta_meta_fields *m, tta_json_span key, tta_json_span value);

/* One log record as a format reader found it. */
typedef struct {
    tta_str key;         /* the record's key (decoded) */
    tta_json_span value; /* valid JSON; absent means the line had no value ("null") */
    tta_json_span meta;  /* valid JSON object, or absent */
    const tta_meta_fields *meta_fields; /* meta read already, or NULL (the builder reads it) */
    double time_s;       /* unix seconds; NAN when absent */
    uint32_t line;
    uint8_t type;        /* tta_event_type */
} tta_log_record;

/* An open-addressing table from 64-bit keys to indices (the builder's lookups). */
typedef struct {
    uint64_t *keys;
    uint32_t *vals;
    size_t cap, n;
} tta_index_map;

typedef struct {
    tta_parsed_file *f;
    const tta_path_meta *pm;
    int zero_based_epochs; /* v0.5 and the text form: eval_accuracy's "epoch" counts from 0 */
    int bleu_is_fraction;  /* :::MLLOG logs BLEU as a fraction of 1 */
    size_t cap_events, cap_evals, cap_epochs, cap_blocks, cap_hparams, cap_breakdowns;
    tta_epoch_mark *blocks; /* block_start/block_stop marks (used when there are no epoch marks) */
    size_t n_blocks;
    tta_index_map hparam_keys, epoch_index, block_index, eval_seen;
    int have_start;
    int stop_state;        /* 0: no run_stop; 1: a run_stop without status; 2: with a status */
    uint32_t stop_line;
    double eval_result_s;  /* minigo's eval_result metadata timestamp (seconds after run_start) */
    long pending_eval;     /* index of the last evaluation still without samples, or -1 */
    const char *log_benchmark; /* canonical, from submission_benchmark or the v0.5 line */
    char *log_org, *log_platform, *log_division;
    char *log_round; /* TTA_KEY_ROUND: the round a replay log names (TTA_REPLAY_ROUND) */
    char *sys_division, *sys_submitter, *sys_name; /* from a :::SYSJSON record */
    uint32_t first_bad_line;
    char first_bad_reason[96];
    uint32_t first_record_line;
    /* The convergence point as MLCommons' RCP checker reads it (read_submission_file): the values
     * of the last evaluation and train_samples record seen so far, and (stop) their copy at the
     * last run_stop record, whose status decides whether the run converged. */
    struct {
        double epoch_num, samples_count, train_samples;
        size_t n_sd; /* stable_diffusion points seen */
    } cp_now, cp_stop;
    /* stable_diffusion: FID and CLIP arrive as separate evaluations, not always in order; each
     * point is one step (step_num, else samples_count) with both metrics. */
    struct tta_sd_point {
        double step, samples, fid, clip;
        size_t eval; /* index into f->run.evals */
    } *sd;
    size_t n_sd, cap_sd;
    /* Whether a key names a hyperparameter, remembered for the last keys seen (a log repeats
     * a few dozen keys thousands of times): key bytes (pointing into the file or the arena),
     * length and answer; n == 0 is an empty slot. */
    struct {
        const char *p;
        uint32_t n;
        int is_hparam;
    } hparam_memo[64];
} tta_run_builder;

void tta_rb_init(tta_run_builder *b, tta_parsed_file *f, const tta_path_meta *pm);

/* Adds a record: an event, and whatever it means for the run. */
void tta_rb_record(tta_run_builder *b, const tta_log_record *r);

/* Remembers a record that could not be read (the first one names the file's error). */
void tta_rb_bad(tta_run_builder *b, uint32_t line, const char *reason);

/* The benchmark the v0.5 line's benchmark field names (used when no submission_benchmark). */
void tta_rb_benchmark_hint(tta_run_builder *b, const char *name, size_t n);

/* Resolves identity, scales and marks; fails the file when it had no usable record, or (with
 * need_run_start) no run_start; last_line (the file's last line) is the line of that message
 * when no record is at fault. Releases the builder's tables. */
void tta_rb_finish(tta_run_builder *b, uint32_t last_line, int need_run_start);

#endif
