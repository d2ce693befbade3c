/* rules.h: the benchmark rules (schemas/benchmark_rules.json) as C structures.
 *
 * The rules are data: quality metrics and targets, directions, how progress is counted, runs
 * required and dropped, the RCP checker's reading, benchmark aliases and the ruleset of each round,
 * each fact with its source. schemas/benchmark_rules.json is the one place they live; it is
 * embedded into the binary at build time, and the database keeps a copy in its benchmark_rules,
 * benchmark_aliases and rule_rounds tables (refreshed by tta_db_open) so that sqlite3 users see
 * the same facts. docs/benchmark-rules.md describes every field.
 *
 * Ownership. tta_rules_builtin() returns rules parsed once, on first use (pthread_once), and never
 * changed or freed afterwards: every pointer into them is valid for the life of the process and
 * safe to share between threads. tta_rules_parse() fills a caller's struct that tta_rules_free()
 * releases (tests load other files with it).
 */
#ifndef TTA_COMMON_RULES_H
#define TTA_COMMON_RULES_H

#include <stddef.h>

#include "common/error.h"

/* How a benchmark's quality is stored. */
typedef enum {
    TTA_SCALE_ASIS = 0, /* stored as logged (WER, log perplexity, loss, FID, CLIP, unknown benchmarks) */
    TTA_SCALE_FRACTION, /* accuracy, mAP, AUC, hit rate, win rate, dice: a fraction of 1 */
    TTA_SCALE_BLEU,     /* BLEU points (0-100) */
    TTA_SCALE_PERCENT,  /* DAWNBench accuracies and F1: percent */
} tta_quality_scale;

/* How a run's convergence point (its progress) is read. */
typedef enum {
    TTA_PROGRESS_FIRST_MEETING = 0,      /* epoch of the first evaluation meeting the target (no RCP checker) */
    TTA_PROGRESS_EPOCH_NUM,              /* metadata.epoch_num of the last evaluation before run_stop */
    TTA_PROGRESS_TRAIN_SAMPLES,          /* value of the last train_samples record before run_stop */
    TTA_PROGRESS_SAMPLES_COUNT,          /* metadata.samples_count of the last evaluation before run_stop */
    TTA_PROGRESS_FIRST_PASSING_STEP,     /* smallest metadata.step_num at which every metric passes */
    TTA_PROGRESS_FIRST_PASSING_SAMPLES,  /* smallest metadata.samples_count at which every metric passes */
} tta_progress_rule;

typedef struct {
    const char *ruleset;      /* "3.1.0", "dawnbench" */
    const char *benchmark;    /* canonical name */
    const char *metric;
    const char *log_key;      /* "eval_accuracy"; DAWNBench: the TSV column */
    int higher_is_better;
    double target;            /* in the stored scale */
    const char *metric2;      /* NULL when there is one metric */
    double target2;           /* NAN when there is one metric */
    int higher_is_better2;    /* -1 when there is one metric */
    tta_quality_scale scale;
    tta_progress_rule progress;
    const char *progress_unit; /* what the progress number counts: "epochs", "samples", "steps", "tokens" */
    int progress_in_epochs;   /* 1 when progress_unit is "epochs" */
    double train_set_size;    /* samples per epoch; NAN when the rules give none */
    int runs_required;        /* 0 when unknown */
    int runs_scored;          /* 0: every run counts, as the summarizer scores; N: the olympic mean of the
                                 first N runs that converge, in run order (v0.5 NCF: "Run 100, use first 50
                                 that converge") */
    int olympic_drop;         /* runs dropped from each end by olympic scoring */
    int max_failed;           /* runs that may fail and still give a score */
    int rcp;                  /* 1: the ruleset's RCP checker judges it */
    const char *rcp_name;     /* rcps_<rcp_name>.json */
    const char *sources_json; /* {"fact": "source text", ...} */
} tta_rule;

typedef struct {
    const char *round;   /* "v3.1", "dawnbench" */
    const char *ruleset; /* "3.1.0", "dawnbench" */
    const char *suite;   /* the benchmark suite it is a round of: "mlperf", "hpc", "dawnbench" */
    const char *rcp_folder; /* the RCP checker's folder of its reference points ("hpc_1.0.0"); NULL:
                               training_<ruleset> */
} tta_rule_round;

/* The benchmark columns of a ruleset's results table as MLCommons' result summarizer writes them:
 * names as the results folders spell them, in its order. */
typedef struct {
    const char *ruleset;
    const char **benchmarks;
    size_t n_benchmarks;
} tta_rule_columns;

typedef struct {
    const char *name;      /* lowercase, '_' for '-' and ' ' */
    const char *benchmark; /* canonical */
    const char *from;      /* round from which the alias applies; NULL: always */
    const char *before;    /* round before which it applies; NULL: always */
} tta_rule_alias;

typedef struct {
    int version;
    tta_rule_round *rounds; /* in time order */
    size_t n_rounds;
    tta_rule_alias *aliases;
    size_t n_aliases;
    tta_rule *rules;
    size_t n_rules;
    tta_rule_columns *columns; /* the rulesets the summarizer has a column list for */
    size_t n_columns;
    void *owner; /* the parsed document that the strings point into */
} tta_rules;

/* The rules embedded at build time, parsed on first use. A malformed embedded file is a build
 * defect (tests/common/test_rules.c checks it): the process then stops with the parser's message. */
const tta_rules *tta_rules_builtin(void);

/* The embedded file's text (for the database copy and `tta rules`). */
const char *tta_rules_text(void);

/* Parses rules from JSON text (len bytes; origin names it in messages, NULL: "rules") into *out,
 * which the caller frees with tta_rules_free; the strings point into out->owner. TTA_OK, or
 * TTA_EINPUT with *out empty and err holding the first fault: "<origin>:<line>: not valid JSON"
 * for a syntax error, else "<origin>: <element>: <reason>" naming the element at fault
 * ("3.1.0 resnet: \"target\" must be a number"; the parsed document keeps no line numbers). */
int tta_rules_parse(const char *json, size_t len, const char *origin, tta_rules *out, tta_error *err);
void tta_rules_free(tta_rules *r);

/* The ruleset of a round ("v3.1" -> "3.1.0"), or NULL when the rules do not know the round. */
const char *tta_rules_ruleset(const tta_rules *r, const char *round);

/* 1 when the rules know round as a round of MLPerf Training or MLPerf HPC (suite "mlperf" or "hpc":
 * scored by MLCommons' result summarizer, --usage training or hpc), else 0 (DAWNBench, replays,
 * rounds the rules do not know). */
int tta_rules_is_mlperf_round(const tta_rules *r, const char *round);

/* 1 when the rules know round as a round of MLPerf HPC (suite "hpc": strong- and weak-scaling
 * folders, the summarizer's --usage hpc), else 0. */
int tta_rules_is_hpc_round(const tta_rules *r, const char *round);

/* The name of the RCP checker's folder of ruleset's reference points into out (n bytes): the
 * round's rcp_folder ("hpc_1.0.0"), else "training_<ruleset>". */
void tta_rules_rcp_folder(const tta_rules *r, const char *ruleset, char *out, size_t n);

/* The summarizer's benchmark columns of ruleset ("0.7.0"), or NULL when it has none (0.5.0,
 * DAWNBench, NULL). */
const tta_rule_columns *tta_rules_summary_columns(const tta_rules *r, const char *ruleset);

/* Position of a round in time (0 = oldest), -1 when unknown. */
int tta_rules_round_order(const tta_rules *r, const char *round);

/* Position of a ruleset in time (the first round it governs), -1 when unknown. */
int tta_rules_ruleset_order(const tta_rules *r, const char *ruleset);

/* The rule for a benchmark in a round (through its ruleset), or NULL. */
const tta_rule *tta_rules_find(const tta_rules *r, const char *round, const char *benchmark);

/* The rule of the latest ruleset that has the benchmark (for a log whose round is unknown), or NULL. */
const tta_rule *tta_rules_latest(const tta_rules *r, const char *benchmark);

/* Canonical name of a benchmark as logged or as a folder name (n bytes; surrounding spaces and quotes
 * ignored; case, '-' and ' ' folded), or NULL. round (may be NULL: the latest meaning) picks between
 * aliases whose meaning changed ("recommendation": ncf before v0.7, dlrm from v0.7). The result
 * points into the rules. */
const char *tta_rules_canonical(const tta_rules *r, const char *name, size_t n, const char *round);

/* Names of the enums as the JSON file spells them; -1 / NULL for an unknown name. */
int tta_progress_rule_from_name(const char *name);
const char *tta_progress_rule_name(tta_progress_rule p);
int tta_quality_scale_from_name(const char *name);

#endif
