/* check.h: check/'s contract: MLCommons' compliance checks for MLPerf Training result logs, with the
 * rules as data (schemas/compliance_rules.json, transcribed from the checker's YAML; docs/compliance.md).
 *
 * tta_check_log_file gives one log's verdict for a ruleset ("5.1.0") as MLCommons' compliance checker
 * gives it when the result summarizer runs it before scoring (training_<ruleset>/common.yaml and the
 * division's and benchmark's files it chains), with every failed rule: its name, the log's line and a
 * sentence. tta_check_paths walks files and folders (a log, a benchmark or system folder, an
 * organisation, a round) and checks every result_*.txt under them. Where a rule uses Python that tta
 * does not evaluate, the rule is "cannot evaluate" and the log's verdict TTA_CHECK_UNKNOWN unless
 * another rule fails: never a silent pass or failure.
 */
#ifndef TTA_CHECK_CHECK_H
#define TTA_CHECK_CHECK_H

#include <stddef.h>

#include "common/error.h"

typedef enum {
    TTA_CHECK_PASS = 0,    /* every rule holds: the summarizer keeps the run */
    TTA_CHECK_FAIL = 1,    /* a rule fails: the summarizer drops the run */
    TTA_CHECK_UNKNOWN = 2, /* no rule fails but one cannot be evaluated by tta */
} tta_check_verdict;

/* One failed rule of a log. */
typedef struct {
    char *rule;          /* its name, as tests/official/compliance_tsv.py names the checker's messages:
                            "init_stop: ll.timestamp - s['first_init_start'] < (30*60*1e3)",
                            "run_stop: EXACTLY_ONE", "block_stop|epoch_stop: AT_LEAST_ONE_OR",
                            "eval_accuracy: ATLEAST_ONE_CHECK", "END: sorted(...", "parse errors",
                            "checker error", "error: CHECK" ... */
    char *config;        /* the rule file, e.g. "training_5.1.0/closed_bert.yaml"; NULL when none */
    long line;           /* the log's line (1-based) the failure is about; 0 for the whole log */
    char *message;       /* one sentence: what the rule wants and what the log has */
    int cannot_evaluate; /* 1: tta cannot evaluate this rule (the message says why) */
} tta_check_failure;

/* One log's verdict. */
typedef struct {
    char *path;
    char ruleset[16];
    tta_check_verdict verdict;
    tta_check_failure *failures; /* in the checker's order; the first is "the first failing rule" */
    size_t n_failures;
    char *benchmark; /* submission_benchmark as logged, or NULL */
    char *division;  /* submission_division as logged, or NULL */
    /* The seeds as MLCommons' seed checker reads them (the package checks), from the same reading of the
     * lines: seeds_status 0 read, -1 the checker's reading raises, -2 the checker stops (seeds_why says
     * why, the log's line first); each seed's where (its metadata's file and lineno as one comparable
     * key), its value in decimal and the log's line. */
    int seeds_status;
    char *seeds_why;
    struct tta_check_seed {
        char *where, *seed;
        long line;
    } *seeds;
    size_t n_seeds;
} tta_check_log;

/* Flags of the checks. */
enum {
    TTA_CHECK_AS_PUBLISHED = 1, /* the rule files as they were when the log's round was published, where the
                                   rules keep such a copy (a file changed after the round; docs/compliance.md),
                                   else today's: what the summarizer ran on the published round */
};

/* The compliance rules, read once from the embedded schemas/compliance_rules.json. */
typedef struct tta_check_rules tta_check_rules;

/* Reads the embedded rules (every expression parsed once). Returns TTA_OK or TTA_EINTERNAL. */
int tta_check_rules_load(tta_check_rules **out, tta_error *err);
/* Reads rules from the JSON text json[0..len) (name: what to call it in errors). Returns TTA_OK, or
 * TTA_EINPUT naming what is wrong. A rule whose Python tta cannot parse is kept as "cannot evaluate". */
int tta_check_rules_parse(const char *json, size_t len, const char *name, tta_check_rules **out, tta_error *err);
/* Frees rules (NULL allowed). */
void tta_check_rules_free(tta_check_rules *rules);
/* 1 when rules hold the ruleset (e.g. "5.1.0"). */
int tta_check_rules_has(const tta_check_rules *rules, const char *ruleset);
/* The rules' source line (the logging commit they were transcribed from). */
const char *tta_check_rules_source(const tta_check_rules *rules);
/* The rulesets held, as one comma-separated string. */
const char *tta_check_rules_rulesets(const tta_check_rules *rules);

/* Checks the log text data[0..len) (named path) against ruleset (flags: TTA_CHECK_*) into *out (freed with
 * tta_check_log_free). Returns TTA_OK (whatever the verdict), or TTA_ENOTFOUND for a ruleset the rules
 * lack. Thread-safe for distinct outs over the same rules. */
int tta_check_log_text(const tta_check_rules *rules, const char *ruleset, unsigned flags, const char *path,
                       const char *data, size_t len, tta_check_log *out, tta_error *err);
/* Reads the file at path and checks it as tta_check_log_text; TTA_ENOTFOUND/TTA_EIO/TTA_EINPUT for a
 * file that cannot be read. */
int tta_check_log_file(const tta_check_rules *rules, const char *ruleset, unsigned flags, const char *path,
                       tta_check_log *out, tta_error *err);
/* Frees what *log holds and zeroes it. */
void tta_check_log_free(tta_check_log *log);

/* The ruleset of the training round a path lies in, from a folder name such as "v5.1",
 * "training_results_v5.1" or "mlperf-training-v5.1" ("5.1.0" into out, cap bytes); 0 when the path
 * names no round. */
int tta_check_ruleset_of_path(const char *path, char *out, size_t cap);

/* Every log checked by tta_check_paths. */
typedef struct {
    tta_check_log *logs; /* sorted by path */
    size_t n;
    size_t n_pass, n_fail, n_unknown;
} tta_check_report;

/* Checks every result_*.txt under paths (files are checked whatever their name), each against ruleset,
 * or, when ruleset is NULL, the ruleset of its round's folder (tta_check_ruleset_of_path). jobs: worker
 * threads (0: one per CPU). Returns TTA_OK, TTA_ENOTFOUND for a missing path, TTA_EUSAGE when a log's
 * ruleset is unknown (the message says to give one), TTA_EINPUT when a path holds no result log. flags: as
 * tta_check_log_text's. */
int tta_check_paths(const tta_check_rules *rules, const char *const *paths, size_t n_paths, const char *ruleset,
                    unsigned flags, int jobs, tta_check_report *out, tta_error *err);
/* Frees what *r holds. */
void tta_check_report_free(tta_check_report *r);

/* ---- package checks: what MLCommons' package checker (mlperf_logging/package_checker) checks of a
 * submission beyond each log: the folder layout, the result files each benchmark needs, the logs'
 * compliance under olympic scoring, the seeds, the system descriptions, and scaling.json. The rules
 * that vary per ruleset are data (schemas/package_rules.json, and schemas/benchmark_rules.json's
 * runs_required and benchmark lists; docs/compliance.md). The RCP verdict is not here. ---- */

typedef enum {
    TTA_PACKAGE_PASS = 0,    /* the check holds */
    TTA_PACKAGE_WARN = 1,    /* the package checker warns and accepts (one non-compliant log, an odd file name) */
    TTA_PACKAGE_FAIL = 2,    /* the package checker rejects the folder (or stops on it) */
    TTA_PACKAGE_UNKNOWN = 3, /* tta cannot evaluate it (the message says why) */
} tta_package_verdict;

/* One check of one file or folder of a submission. */
typedef struct {
    char *org;     /* the organisation folder (as reached from the path given) */
    char *check;   /* "layout", "system_desc", "benchmark", "result_count", "file_names", "compliance", "seeds",
                      "scaling" */
    char *path;    /* what it is about, relative to org: "systems/x.json", "results/x/bert" */
    char ruleset[16];
    tta_package_verdict verdict;
    char *key;     /* a short reason for scripts ("found=4 expected=5", "missing:cooling", "repeated"); "" on a pass */
    char *message; /* one sentence: what the rule wants and what the folder has */
} tta_package_finding;

/* Every package check of the organisations under some paths. */
typedef struct {
    tta_package_finding *items; /* by org, then path, then check */
    size_t n;
    size_t n_orgs;
    size_t n_pass, n_warn, n_fail, n_unknown;
} tta_package_report;

/* Checks the system description text data[0..len) (named path, relative name rel "systems/x.json") as
 * the package checker's system_desc_checker does for ruleset: JSON as Python's json.load reads it, every
 * required field present, status one of the availability options where the ruleset asks. Fills *out
 * (freed with tta_package_finding_free; check "system_desc"). Never fails: a malformed file is a
 * finding with the reason and the line. */
void tta_check_system_desc_text(const char *ruleset, const char *org, const char *rel, const char *data, size_t len,
                                tta_package_finding *out);
/* Frees what *f holds and zeroes it. */
void tta_package_finding_free(tta_package_finding *f);

/* The package checks of every organisation folder under paths: a path that is an organisation folder
 * (it holds results/ or systems/), a round folder holding organisations (found down to three levels),
 * <org>/results, or a system or benchmark folder inside it (its checks only). Files, and folders in none of
 * these layouts, add nothing. Each org's ruleset is ruleset, or (NULL) its round folder's
 * (tta_check_ruleset_of_path). logs: the result logs already checked (tta_check_paths over the same
 * paths), whose verdicts the compliance check counts; a log not among them is checked here with rules
 * and flags. Returns TTA_OK (whatever the verdicts), or TTA_EUSAGE for an org with no ruleset. */
int tta_check_packages(const tta_check_rules *rules, const char *const *paths, size_t n_paths, const char *ruleset,
                       unsigned flags, const tta_check_report *logs, tta_package_report *out, tta_error *err);
/* Frees what *r holds. */
void tta_package_report_free(tta_package_report *r);
/* The package rules' source line (the logging commit they were read from). */
const char *tta_package_rules_source(void);

#endif
