/* check_scores.c: what `tta check` says per benchmark folder (results/<system>/<benchmark>/): the runs
 * found, the runs MLCommons' result summarizer drops (a log that fails the compliance checks as `tta
 * check` judged it, a run that did not succeed, a record tta cannot read), the score it publishes
 * (olympic mean x scaling.json) or why there is none, and the RCP checker's verdict. Nothing is worked
 * out here: the paths are ingested into a database in memory (ingest/, never a file), the score is
 * tta_summarize_entry's (as `tta report variance` and the results table give it) and the verdict
 * rcp_judge.c's (as `tta report rcp` gives it). */
#include <assert.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/check.h"
#include "common/file.h"
#include "ingest/ingest.h"
#include "reports/builders.h"
#include "reports/reports.h"
#include "reports/summary.h"

enum {
    F_FOLDER, F_ROUND, F_DIVISION, F_SUBMITTER, F_SYSTEM, F_BENCHMARK, F_RUNS, F_DROPPED, F_AVERAGED, F_SCORE,
    F_SCALING, F_SCORE_WHY, F_RCP, F_RCP_MESSAGE, F_RCP_REQUIRED, F_DROPPED_RUNS, F_COUNT
};

/* The folder's path comes first, as the log table's does; it names the round, submitter and system, so
 * people see only the division and benchmark beside it (tta_report_check_folders hides the others from
 * them) and scripts every identity column. */
static const tta_column COLUMNS[F_COUNT] = {
    [F_FOLDER] = {"folder", "folder", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [F_ROUND] = TTA_ROUND_COLUMN,
    [F_DIVISION] = TTA_DIVISION_COLUMN,
    [F_SUBMITTER] = TTA_SUBMITTER_COLUMN,
    [F_SYSTEM] = TTA_SYSTEM_COLUMN,
    [F_BENCHMARK] = TTA_BENCHMARK_COLUMN,
    [F_RUNS] = {"runs", "runs", TTA_COL_INT, 0, TTA_FOR_ALL},
    [F_DROPPED] = {"dropped", "dropped", TTA_COL_INT, 0, TTA_FOR_ALL},
    [F_AVERAGED] = {"averaged", "averaged", TTA_COL_INT, 0, TTA_FOR_ALL},
    [F_SCORE] = {"score_min", "score (min)", TTA_COL_NUMBER, 2, TTA_FOR_ALL},
    [F_SCALING] = {"scaling_factor", "scaling", TTA_COL_NUMBER, 4, TTA_FOR_SCRIPTS},
    [F_SCORE_WHY] = {"no_score_reason", "no score because", TTA_COL_TEXT, 0, TTA_FOR_SCRIPTS},
    [F_RCP] = {"rcp", "RCP", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [F_RCP_MESSAGE] = {"rcp_message", "RCP checker's message", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [F_RCP_REQUIRED] = {"rcp_required", "RCP required", TTA_COL_BOOL, 0, TTA_FOR_SCRIPTS},
    [F_DROPPED_RUNS] = {"dropped_runs", "dropped runs", TTA_COL_TEXT, 0, TTA_FOR_ALL},
};

/* The file's real path (malloc'd), or a copy of it when it has none. */
static char *real_path(const char *path) {
    char *r = realpath(path, NULL);
    return r ? r : strdupCheck(path);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The check's logs by real path, sorted, for looking a run's verdict up. */
typedef struct {
    char **path;            /* sorted */
    const tta_check_log **log; /* in path's order */
    size_t n;
} log_index;

static log_index index_logs(const tta_check_report *r) {
    log_index x = {callocCheck(r->n ? r->n : 1, sizeof *x.path), callocCheck(r->n ? r->n : 1, sizeof *x.log), r->n};
    typedef struct { char *path; const tta_check_log *log; } pair;
    pair *p = callocCheck(r->n ? r->n : 1, sizeof *p);
    for (size_t i = 0; i < r->n; i++) p[i] = (pair){real_path(r->logs[i].path), &r->logs[i]};
    qsort(p, r->n, sizeof *p, cmp_str);
    for (size_t i = 0; i < r->n; i++) x.path[i] = p[i].path, x.log[i] = p[i].log;
    free(p);
    return x;
}

static const tta_check_log *find_log(const log_index *x, const char *file) {
    if (!file) return NULL;
    char *key = real_path(file);
    char **hit = bsearch(&key, x->path, x->n, sizeof *x->path, cmp_str);
    free(key);
    return hit ? x->log[hit - x->path] : NULL;
}

static void index_free(log_index *x) {
    for (size_t i = 0; i < x->n; i++) free(x->path[i]);
    free(x->path);
    free(x->log);
}

/* The file's name after its folder. */
static const char *base_name(const char *path) {
    if (!path) return "(a run without a file)";
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Sets each run's not_compliant to the check's verdict of its log (a log the check did not see keeps
 * ingest's); returns how many runs the check saw. */
static size_t apply_verdicts(tta_entry_data *e, const log_index *x) {
    size_t seen = 0;
    for (size_t i = 0; i < e->n_runs; i++) {
        const tta_check_log *l = find_log(x, e->runs[i].file);
        if (!l) continue;
        seen++;
        e->runs[i].not_compliant = l->verdict == TTA_CHECK_FAIL;
    }
    return seen;
}

/* Adds to e a run for each log of the check in e's folder that ingest did not read as a run (no
 * run_start: a cut-off log): the summarizer counts such a log as a dropped run (its run_start or
 * run_stop is "not recorded"), and a dropped run stands in for a slow one in the olympic mean. The run
 * has id -1, its log's path, no time and no success. Returns how many were added. */
static size_t add_unread_logs(tta_entry_data *e, const char *folder, const log_index *x) {
    char *dir = real_path(folder);
    size_t dir_len = strlen(dir), added = 0;
    for (size_t i = 0; i < x->n; i++) {
        const char *p = x->path[i];
        if (strncmp(p, dir, dir_len) || p[dir_len] != '/' || strchr(p + dir_len + 1, '/')) continue;
        int read = 0;
        for (size_t k = 0; k < e->n_runs && !read; k++) {
            if (!e->runs[k].file) continue;
            char *rp = real_path(e->runs[k].file);
            read = !strcmp(rp, p);
            free(rp);
        }
        if (read) continue;
        e->runs = reallocCheck(e->runs, (e->n_runs + 1) * sizeof *e->runs);
        e->runs[e->n_runs++] = (tta_run_data){.id = -1, .run_index = -1, .file = strdupCheck(x->log[i]->path),
                                              .reached = -1, .tta_s = NAN, .run_start_s = NAN, .run_stop_s = NAN,
                                              .progress = NAN, .epochs = NAN, .last_quality = NAN,
                                              .first_unreadable_line = -1, .samples_to_target = NAN,
                                              .global_batch_size = NAN, .log_nodes = -1,
                                              .log_accelerators_per_node = -1};
        added++;
    }
    free(dir);
    return added;
}

/* Why the summarizer drops run r (static text in reason, or NULL when it keeps it). */
static const char *drop_reason(const tta_run_data *r, const log_index *x, char *reason, size_t cap) {
    if (r->id < 0) { /* add_unread_logs's */
        const tta_check_log *l = find_log(x, r->file);
        snprintf(reason, cap, "no run tta can read (%s)",
                 l && l->verdict == TTA_CHECK_FAIL && l->n_failures ? l->failures[0].rule : "no run_start");
    } else if (r->not_compliant) {
        const tta_check_log *l = find_log(x, r->file);
        snprintf(reason, cap, "not compliant (%s)", l && l->n_failures ? l->failures[0].rule : "its compliance checks");
    } else if (r->unreadable_records > 0) {
        snprintf(reason, cap, "a record tta cannot read");
    } else if (!tta_run_succeeded(r)) {
        snprintf(reason, cap, "did not succeed (run_stop status %s)", r->status ? r->status : "missing");
    } else {
        return NULL;
    }
    return reason;
}

/* The runs the summarizer drops, grouped by why: "not compliant (opt_lamb_epsilon: EXACTLY_ONE):
 * result_1.txt, result_10.txt, result_2.txt and 7 more; did not succeed (...): result_4.txt", into out;
 * returns their count. */
static size_t dropped_runs(const tta_entry_data *e, const log_index *x, buf *out) {
    char (*why)[160] = callocCheck(e->n_runs ? e->n_runs : 1, sizeof *why);
    size_t n = 0;
    for (size_t i = 0; i < e->n_runs; i++) n += drop_reason(&e->runs[i], x, why[i], sizeof why[i]) != NULL;
    for (size_t i = 0; i < e->n_runs; i++) {
        if (!why[i][0]) continue;
        int first = 1;
        for (size_t k = 0; k < i && first; k++) first = strcmp(why[k], why[i]) != 0;
        if (!first) continue;
        size_t named = 0, more = 0;
        buf_printf(out, "%s%s: ", out->len ? "; " : "", why[i]);
        for (size_t k = i; k < e->n_runs; k++) {
            if (strcmp(why[k], why[i])) continue;
            if (named < 3) buf_printf(out, "%s%s", named ? ", " : "", base_name(e->runs[k].file)), named++;
            else more++;
        }
        if (more) buf_printf(out, " and %zu more", more);
    }
    free(why);
    return n;
}

/* What dir/package_checker_params says of the RCP bypass, read as the package checker reads it
 * (readlines, then line == "rcp-bypass": only a last line without its newline matches): 1 a bypass;
 * -1 the file has a line "rcp-bypass" that the checker does not match (it ends in a newline); 0 none. */
static int params_bypass(const char *dir) {
    buf path = {0};
    buf_printf(&path, "%s/package_checker_params", dir);
    tta_file f;
    int said = 0;
    if (tta_file_load(buf_str(&path), 64 * TTA_FILE_KIB, "package checker parameters", TTA_FILE_READ, &f, NULL) ==
        TTA_OK) {
        const char *word = "rcp-bypass";
        size_t w = strlen(word);
        for (size_t i = 0; i + w <= f.len; i++) {
            if ((i > 0 && f.data[i - 1] != '\n' && f.data[i - 1] != '\r') || memcmp(f.data + i, word, w)) continue;
            if (i + w == f.len) said = 1;
            else if (!said && (f.data[i + w] == '\n' || f.data[i + w] == '\r')) said = -1;
        }
        tta_file_free(&f);
    }
    buf_free(&path);
    return said;
}

/* The bypass of the folder: the command's (--rcp-bypass), its system folder's or its own
 * package_checker_params, as the package checker ORs them; -1 when none but a file looks like one. */
static int folder_bypass(const char *folder, int global) {
    if (global) return 1;
    char *system = strdupCheck(folder);
    char *slash = strrchr(system, '/');
    if (slash) *slash = 0;
    int a = slash ? params_bypass(system) : 0, b = params_bypass(folder);
    free(system);
    return a == 1 || b == 1 ? 1 : a || b ? -1 : 0;
}

/* A short word for why a folder has no score, for the summary line. */
static const char *no_score_word(const tta_entry_summary *s, int unread) {
    if (unread) return "not in a benchmark folder";
    if (!tta_entry_is_mlperf(s->entry)) return "not an MLPerf round";
    switch (s->score.reason) {
    case TTA_TOO_MANY_FAILED: return "too many runs dropped";
    case TTA_TOO_FEW_RUNS: return "too few runs";
    default: return "no run";
    }
}

/* Counts of the summary line. */
typedef struct {
    size_t folders, scored, runs, dropped, rcp_pass, rcp_fail, rcp_none, rcp_closed_fail;
    const char *why[8]; /* distinct no-score words */
    size_t why_n[8], n_why;
} counts;

static void count_no_score(counts *c, const char *word) {
    for (size_t i = 0; i < c->n_why; i++)
        if (!strcmp(c->why[i], word)) return (void)c->why_n[i]++;
    if (c->n_why < 8) c->why[c->n_why] = word, c->why_n[c->n_why++] = 1;
}

/* One folder's row: its runs, what is dropped, the score. */
static void score_row(tta_table *t, size_t row, const tta_entry_data *e, const char *folder, const log_index *x,
                      counts *c) {
    tta_table_set_text(t, row, F_FOLDER, folder);
    /* logs right under results/<system>/ (v0.7 Alibaba): the summarizer reads benchmark folders only */
    const char *slash = strrchr(folder, '/');
    int unread = slash && slash - folder >= 8 && !strncmp(slash - 8, "/results", 8);
    tta_identity id = tta_entry_identity(e);
    tta_table_set_identity(t, row, &id);
    tta_entry_summary s;
    tta_summarize_entry(e, &s, 0);
    buf why = {0};
    size_t dropped = dropped_runs(e, x, &why);
    tta_table_set_number(t, row, F_RUNS, (double)e->n_runs);
    tta_table_set_number(t, row, F_DROPPED, (double)dropped);
    tta_table_set_text(t, row, F_DROPPED_RUNS, dropped ? buf_str(&why) : "");
    c->runs += e->n_runs;
    c->dropped += dropped;
    if (!isnan(s.published_s) && !unread) {
        c->scored++;
        tta_table_set_number(t, row, F_AVERAGED, (double)s.score.n_used);
        tta_table_set_number(t, row, F_SCORE, s.published_s / 60.0);
        tta_table_set_number(t, row, F_SCALING, s.scaling_factor);
        if (s.score.why) tta_table_add_note(t, row, s.score.why); /* a score with a warning */
    } else {
        char many[160];
        snprintf(many, sizeof many, "%zu of %zu runs dropped, more than the %zu olympic scoring may drop", dropped,
                 e->n_runs, s.score.max_dropped);
        const char *reason = unread ? "the logs lie in results/<system>/, not in a benchmark folder, where the "
                                      "summarizer reads them"
                             : s.score.reason == TTA_TOO_MANY_FAILED && !s.weak ? many
                             : s.score.why                                  ? s.score.why
                                                                            : "no official score";
        count_no_score(c, no_score_word(&s, unread));
        tta_table_set_number(t, row, F_AVERAGED, 0);
        buf r = {0};
        buf_printf(&r, "no score: %s", reason);
        tta_table_set_missing(t, row, F_SCORE, buf_str(&r));
        tta_table_set_text(t, row, F_SCORE_WHY, reason);
        buf_free(&r);
    }
    buf_free(&why);
}

/* The row's RCP verdict (judge NULL: no --rcp-dir). */
static void rcp_cells(tta_table *t, size_t row, const tta_entry_data *e, const tta_rcp_entry_row *x,
                      tta_rcp_judge *judge, int bypass, counts *c) {
    /* the package checker runs the RCP checker on closed-division folders only */
    int required = e->division && !strcmp(e->division, "closed");
    tta_table_set_bool(t, row, F_RCP_REQUIRED, required);
    buf why = {0};
    tta_rcp_result r;
    if (!judge) buf_printf(&why, "not checked: give --rcp-dir DIR (reference convergence points)");
    else if (!x) buf_printf(&why, "the RCP checker's view of the folder cannot be read");
    if (!why.len && tta_rcp_judge_entry(judge, x, &r, &why)) {
        if (bypass == 1) tta_rcp_bypass(&r);
        else if (bypass < 0 && !r.pass)
            tta_table_add_note(t, row, "package_checker_params says rcp-bypass on a line ending in a newline, which the "
                                       "package checker does not read as a bypass (it compares the line whole)");
        tta_table_set_text(t, row, F_RCP, r.pass ? "pass" : "fail");
        tta_table_set_text(t, row, F_RCP_MESSAGE, r.msg);
        c->rcp_pass += r.pass == 1;
        c->rcp_fail += r.pass == 0;
        c->rcp_closed_fail += r.pass == 0 && required;
        if (!r.pass && !required) tta_table_add_note(t, row, "open division: the package checker does not run the RCP checker");
    } else {
        c->rcp_none++;
        tta_table_set_text(t, row, F_RCP, "none");
        tta_table_set_text(t, row, F_RCP_MESSAGE, buf_str(&why));
    }
    buf_free(&why);
}

/* Adds the folder's row to t: its runs, score and RCP verdict, counted into c. */
static void folder_row(tta_table *t, tta_entry_data *e, const char *folder, const tta_rcp_entry_row *rr,
                       const log_index *x, tta_rcp_judge *judge, int bypass, counts *c) {
    size_t row = tta_table_add_row(t);
    c->folders++;
    score_row(t, row, e, folder, x, c);
    rcp_cells(t, row, e, rr, judge, bypass, c);
}

/* The summary line from the counts. */
static void summary_line(const counts *c, int rcp_checked, buf *out) {
    buf_printf(out, "tta check: %zu benchmark folder%s: %zu scored, %zu not", c->folders, c->folders == 1 ? "" : "s",
               c->scored, c->folders - c->scored);
    for (size_t i = 0; i < c->n_why; i++) buf_printf(out, "%s%zu %s", i ? ", " : " (", c->why_n[i], c->why[i]);
    buf_printf(out, "%s, %zu of %zu run%s dropped; RCP: ", c->n_why ? ")" : "", c->dropped, c->runs,
               c->runs == 1 ? "" : "s");
    if (!rcp_checked) buf_printf(out, "not checked (no --rcp-dir)");
    else buf_printf(out, "%zu pass, %zu fail, %zu without a verdict", c->rcp_pass, c->rcp_fail, c->rcp_none);
}

/* ---- Folders outside a round folder ----------------------------------------------------------
 * Ingest reads a run's round (and so its rules: required runs, progress) from a round folder in its
 * path ("v5.1", "training_results_v5.1"). A submission checked where it lies, with --ruleset
 * (~/submission/Org), has none: it is ingested through a symbolic link named after the ruleset's
 * round in a temporary folder (vX.Y/<org>/results/...), which ingest follows from the path given. */

/* Removes what nftw meets, deepest first, links as links (FTW_PHYS): only the temporary tree. */
static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st, (void)ftw;
    return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* Removes the temporary folder of round_view (none when tmp is empty) and frees tmp. */
static void remove_view(buf *tmp) {
    if (tmp->len) nftw(buf_str(tmp), remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    buf_free(tmp);
}

/* The path ingest is given for dir: dir itself when its path names a round (or no ruleset is known),
 * else a link to it under *tmp (a temporary folder made on first use in $TMPDIR or /tmp, "" before) at
 * <tmp>/v<X.Y>/<what of dir's path follows the organisation>, malloc'd. NULL when the link cannot be
 * made (dir is then ingested as it is). */
static char *round_view(const char *dir, const char *ruleset, buf *tmp) {
    char found[16];
    if (!ruleset || tta_check_ruleset_of_path(dir, found, sizeof found)) return strdupCheck(dir);
    char *real = real_path(dir);
    /* the organisation: the component before "results", or dir itself when it holds results/ */
    const char *org = NULL;
    for (const char *p = strstr(real, "/results"); p; p = strstr(p + 1, "/results"))
        if (p[8] == '/' || p[8] == 0) {
            org = p;
            while (org > real && org[-1] != '/') org--;
            break;
        }
    buf results = {0};
    buf_printf(&results, "%s/results", real);
    struct stat st;
    if (!org) org = stat(buf_str(&results), &st) == 0 ? strrchr(real, '/') + 1 : NULL;
    buf_free(&results);
    if (!tmp->len) {
        const char *base = getenv("TMPDIR");
        buf_printf(tmp, "%s/tta-check.XXXXXX", base && *base ? base : "/tmp");
        if (!mkdtemp(tmp->data)) return buf_free(tmp), free(real), NULL;
    }
    int major = 0, minor = 0;
    sscanf(ruleset, "%d.%d", &major, &minor);
    buf link = {0};
    buf_printf(&link, "%s/v%d.%d", buf_str(tmp), major, minor);
    if (org) buf_printf(&link, "/%s", org);
    /* the folders above the link's last component */
    for (char *p = link.data + tmp->len + 1; (p = strchr(p, '/')); p++) {
        *p = 0;
        mkdir(buf_str(&link), 0700);
        *p = '/';
    }
    int ok = symlink(real, buf_str(&link)) == 0;
    free(real);
    if (!ok) return buf_free(&link), NULL;
    return buf_take(&link);
}

int tta_report_check_folders(const tta_check_report *r, const char *const *paths, size_t n_paths,
                             const tta_check_folders_options *o, FILE *out, buf *summary, int *failing, tta_error *err) {
    assert(r && paths && o && summary && failing);
    *failing = 0;
    int format = o->format;
    tta_rcp_judge *judge = NULL;
    if (o->rcp_dir && tta_rcp_judge_new(o->rcp_dir, &judge, err) != TTA_OK) return err ? err->code : TTA_ENOTFOUND;
    /* the folders found under the paths: a log given by itself is checked alone */
    char **dirs = callocCheck(n_paths ? n_paths : 1, sizeof *dirs);
    size_t n_dirs = 0;
    buf tmp = {0};
    for (size_t i = 0; i < n_paths; i++) {
        struct stat st;
        if (stat(paths[i], &st) != 0 || !S_ISDIR(st.st_mode)) continue;
        dirs[n_dirs] = round_view(paths[i], o->ruleset, &tmp);
        if (!dirs[n_dirs]) dirs[n_dirs] = strdupCheck(paths[i]);
        n_dirs++;
    }
    sqlite3 *db = NULL;
    int rc = tta_db_open(":memory:", &db, err); /* never a file: the user's database is not touched */
    tta_ingest_stats stats;
    tta_ingest_options opts = {.jobs = o->jobs, .quiet = 1, .no_compliance = 1}; /* apply_verdicts gives r's */
    assert(n_dirs <= INT_MAX);
    if (rc == TTA_OK && n_dirs) {
        rc = tta_ingest_paths(db, (const char *const *)dirs, (int)n_dirs, &opts, &stats, NULL, err);
        if (rc != TTA_EDB) rc = TTA_OK; /* a file ingest refuses is no run, as the summarizer has none */
    }
    tta_entry_data *e = NULL;
    tta_rcp_entry_row *rows = NULL;
    size_t n = 0, n_rows = 0;
    if (rc == TTA_OK) rc = tta_db_entries(db, NULL, 0, &e, &n, err);
    if (rc == TTA_OK) rc = tta_db_rcp_entries(db, NULL, &rows, &n_rows, err);
    for (size_t i = 0; i < n_dirs; i++) free(dirs[i]);
    free(dirs);
    if (rc != TTA_OK) {
        remove_view(&tmp);
        tta_error_context(err, "the folders' scores");
        tta_entries_free(e, n);
        tta_db_close(db);
        tta_rcp_judge_free(judge);
        return rc;
    }
    log_index x = index_logs(r);
    tta_column cols[F_COUNT];
    memcpy(cols, COLUMNS, sizeof cols);
    cols[F_ROUND].audience = cols[F_SUBMITTER].audience = cols[F_SYSTEM].audience = TTA_FOR_SCRIPTS;
    tta_table *t = tta_table_new(cols, F_COUNT), *scratch = tta_table_new(cols, F_COUNT);
    counts c = {0};
    for (size_t i = 0; i < n; i++) {
        if (e[i].n_runs == 0 || apply_verdicts(&e[i], &x) == 0) continue; /* no log the check saw */
        const tta_rcp_entry_row *rr = NULL;
        for (size_t k = 0; k < n_rows && !rr; k++)
            if (rows[k].id == e[i].id) rr = &rows[k];
        const tta_check_log *l = NULL; /* apply_verdicts found one: its path is the user's, not round_view's */
        for (size_t k = 0; k < e[i].n_runs && !l; k++) l = find_log(&x, e[i].runs[k].file);
        char *folder = strdupCheck(l->path);
        char *slash = strrchr(folder, '/');
        if (slash) *slash = 0;
        add_unread_logs(&e[i], folder, &x);
        e[i].unread_logs = 0; /* the runs just added stand for them, each with its reason */
        apply_verdicts(&e[i], &x);
        int bypass = folder_bypass(folder, o->rcp_bypass);
        counts before = c;
        folder_row(o->failing_only ? scratch : t, &e[i], folder, rr, &x, judge, bypass, &c);
        int fails = c.scored == before.scored || c.rcp_closed_fail > before.rcp_closed_fail;
        counts again = {0}; /* --failing: the row again, into the table written */
        if (o->failing_only && fails) folder_row(t, &e[i], folder, rr, &x, judge, bypass, &again);
        free(folder);
    }
    tta_table_free(scratch);
    if (out && n_dirs && (format == TTA_FORMAT_TABLE || format == TTA_FORMAT_MARKDOWN)) fputc('\n', out); /* after the logs' */
    if (out && (n_dirs || format == TTA_FORMAT_JSON || format == TTA_FORMAT_CSV)) tta_table_write(t, (tta_out_format)format, out);
    if (n_dirs) summary_line(&c, judge != NULL, summary);
    *failing = c.folders > c.scored || c.rcp_closed_fail > 0;
    tta_table_free(t);
    index_free(&x);
    tta_rcp_entries_free(rows, n_rows);
    tta_entries_free(e, n);
    tta_db_close(db);
    tta_rcp_judge_free(judge);
    remove_view(&tmp); /* the runs' paths lie under it until here */
    return TTA_OK;
}
