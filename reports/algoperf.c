/* algoperf.c: `tta report algoperf`: an AlgoPerf leaderboard scored as its official code scores it
 * (docs/algoperf.md): per leaderboard and ruleset, each submission's time to target per workload
 * (median over studies of the best trial's time), the held-out and 4x rules, the performance
 * profiles over tau in [1, 4] (100 points) and the benchmark score (the normalised area under the
 * profile), ranked; the plot draws the profiles; the HTML page gets a section per ruleset.
 * The arithmetic is stats/'s (tta_algoperf_*); the trials come from db/ (tta_db_algoperf_trials).
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/check.h"
#include "reports/builders.h"
#include "reports/render.h"
#include "reports/reports.h"
#include "stats/stats.h"

/* The scoring code's constants (score_submissions.py: min_tau=1.0, max_tau=4.0, num_points=100; a
 * time above 4x the best is a miss: performance_profile.py). */
#define TAU_MIN 1.0
#define TAU_MAX 4.0
#define N_TAU 100
#define MAX_RATIO 4.0

/* One leaderboard and ruleset, scored. Cells are n_sub x n_cols, row-major. */
typedef struct {
    const char *leaderboard, *ruleset;
    tta_algoperf_workload *w; /* the version's workloads (owned) */
    size_t n_w;
    size_t *col;              /* n_cols: the scored workloads (base, then held-out, in the file's order) */
    size_t n_cols, n_base;
    const char **sub;         /* n_sub submissions, in name order (borrowed from the trials) */
    int *selected;
    size_t n_sub;
    double *time;             /* median over studies of the study's time to target; NAN: no trial */
    int *studies, *reached;   /* studies with a trial, and those reaching the target */
    double *max_runtime;      /* the largest max_allowed_runtime_sec of the cell's trials; NAN unknown */
    double *study_cv;         /* CV (population std / mean) of the study times that reached the target; NAN
                                 with fewer than 2 */
    double *scored, *ratio;   /* after the rules; ratios of base workloads */
    double *rho;              /* n_sub x N_TAU */
    double *score;            /* n_sub */
    int *rank;                /* n_sub: 1 = best score; ties share a rank */
} ap_board;

typedef struct {
    tta_algoperf_trial *trials;
    size_t n_trials;
    ap_board *boards;
    size_t n_boards;
    double tau[N_TAU];
} ap_data;

static void board_free(ap_board *b) {
    tta_algoperf_workloads_free(b->w, b->n_w);
    free(b->col);
    free(b->sub);
    free(b->selected);
    free(b->time);
    free(b->studies);
    free(b->reached);
    free(b->max_runtime);
    free(b->study_cv);
    free(b->scored);
    free(b->ratio);
    free(b->rho);
    free(b->score);
    free(b->rank);
}

static void ap_free(ap_data *d) {
    for (size_t i = 0; i < d->n_boards; i++) board_free(&d->boards[i]);
    free(d->boards);
    tta_algoperf_trials_free(d->trials, d->n_trials);
}

/* The time to target of one submission's trials t[0..n) of one workload w: per study (trials in
 * order) the study time, then the median; *studies and *reached count them. */
static double workload_time(const tta_algoperf_trial *t, size_t n, const tta_algoperf_workload *w, int *studies,
                            int *reached, double *max_runtime, double *study_cv) {
    double *study_time = mallocCheck((n ? n : 1) * sizeof *study_time);
    long *hit = mallocCheck((n ? n : 1) * sizeof *hit);
    double *at = mallocCheck((n ? n : 1) * sizeof *at);
    size_t k = 0;
    *studies = *reached = 0;
    *max_runtime = NAN;
    for (size_t i = 0; i < n;) {
        size_t j = i, m = 0;
        for (; j < n && t[j].study == t[i].study; j++, m++) {
            hit[m] = tta_algoperf_first_hit(t[j].value, t[j].n, w->target, w->minimize);
            at[m] = hit[m] >= 0 ? t[j].score[hit[m]] : NAN;
            if (!isnan(t[j].max_runtime_s) && !(t[j].max_runtime_s <= *max_runtime)) *max_runtime = t[j].max_runtime_s;
        }
        study_time[k] = tta_algoperf_study_time(hit, at, m, NULL);
        *reached += !isinf(study_time[k]);
        k++;
        i = j;
    }
    *studies = (int)k;
    double *finite = mallocCheck((k ? k : 1) * sizeof *finite);
    size_t nf = 0;
    for (size_t i = 0; i < k; i++)
        if (isfinite(study_time[i])) finite[nf++] = study_time[i];
    *study_cv = nf >= 2 ? tta_cv(finite, nf) : NAN;
    free(finite);
    double median = k ? tta_algoperf_median(study_time, k) : NAN;
    free(study_time);
    free(hit);
    free(at);
    return median;
}

/* Scores the trials t[0..n) of one leaderboard and ruleset (sorted by submission, workload, study,
 * trial) into b. 0, or 1 with *err (no targets for the leaderboard). */
static int board_build(sqlite3 *db, const tta_algoperf_trial *t, size_t n, const double *tau, ap_board *b,
                       char **err) {
    memset(b, 0, sizeof *b);
    b->leaderboard = t[0].leaderboard;
    b->ruleset = t[0].ruleset;
    tta_error e;
    if (tta_db_algoperf_workloads(db, b->leaderboard, &b->w, &b->n_w, &e) != TTA_OK) {
        *err = strdupCheck(e.text);
        return 1;
    }
    b->col = mallocCheck((b->n_w ? b->n_w : 1) * sizeof *b->col);
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < b->n_w; i++)
            if (!strcmp(b->w[i].role, pass ? "held_out" : "base")) b->col[b->n_cols++] = i;
    for (size_t i = 0; i < b->n_w; i++) b->n_base += !strcmp(b->w[i].role, "base");
    if (b->n_base == 0) {
        buf m = {0};
        buf_printf(&m, "AlgoPerf leaderboard %s: no workload targets of benchmark version %s stored (ingest its "
                   "workload_targets file)", b->leaderboard, b->leaderboard);
        *err = buf_take(&m);
        return 1;
    }
    b->sub = mallocCheck(n * sizeof *b->sub);
    b->selected = callocCheck(n, sizeof *b->selected);
    for (size_t i = 0; i < n; i++)
        if (b->n_sub == 0 || strcmp(b->sub[b->n_sub - 1], t[i].submission)) {
            b->sub[b->n_sub] = t[i].submission;
            b->selected[b->n_sub++] = t[i].selected;
        }
    size_t cells = b->n_sub * b->n_cols;
    b->time = mallocCheck(cells * sizeof *b->time);
    b->studies = callocCheck(cells, sizeof *b->studies);
    b->reached = callocCheck(cells, sizeof *b->reached);
    b->max_runtime = mallocCheck(cells * sizeof *b->max_runtime);
    b->study_cv = mallocCheck(cells * sizeof *b->study_cv);
    b->scored = mallocCheck(cells * sizeof *b->scored);
    b->ratio = mallocCheck(cells * sizeof *b->ratio);
    int *base_of = mallocCheck(b->n_cols * sizeof *base_of);
    for (size_t c = 0; c < b->n_cols; c++) {
        base_of[c] = -1;
        const char *base = b->w[b->col[c]].base;
        for (size_t k = 0; base && k < b->n_cols; k++)
            if (!strcmp(b->w[b->col[k]].workload, base)) base_of[c] = (int)k;
        assert(!base || base_of[c] >= 0); /* the parser checked that a held-out workload's base is listed */
    }
    for (size_t c = 0; c < cells; c++) b->time[c] = b->max_runtime[c] = b->study_cv[c] = NAN;
    size_t s = 0;
    for (size_t i = 0; i < n;) {
        while (strcmp(b->sub[s], t[i].submission)) s++;
        size_t j = i;
        while (j < n && !strcmp(t[j].submission, t[i].submission) && !strcmp(t[j].workload, t[i].workload)) j++;
        for (size_t c = 0; c < b->n_cols; c++)
            if (!strcmp(b->w[b->col[c]].workload, t[i].workload)) {
                size_t x = s * b->n_cols + c;
                b->time[x] = workload_time(&t[i], j - i, &b->w[b->col[c]], &b->studies[x], &b->reached[x],
                                           &b->max_runtime[x], &b->study_cv[x]);
            }
        i = j;
    }
    tta_algoperf_ratios(b->time, base_of, b->n_sub, b->n_cols, MAX_RATIO, b->ratio, b->scored);
    free(base_of);
    b->rho = mallocCheck(b->n_sub * N_TAU * sizeof *b->rho);
    b->score = mallocCheck(b->n_sub * sizeof *b->score);
    b->rank = mallocCheck(b->n_sub * sizeof *b->rank);
    for (size_t k = 0; k < b->n_sub; k++) {
        tta_algoperf_profile(&b->ratio[k * b->n_cols], b->n_cols, b->n_base, tau, N_TAU, &b->rho[k * N_TAU]);
        b->score[k] = tta_algoperf_score(tau, &b->rho[k * N_TAU], N_TAU);
    }
    for (size_t k = 0; k < b->n_sub; k++) {
        b->rank[k] = 1;
        for (size_t q = 0; q < b->n_sub; q++) b->rank[k] += b->score[q] > b->score[k];
    }
    return 0;
}

/* Loads and scores every leaderboard and ruleset f selects. 0, or 1 with *err. */
static int ap_load(sqlite3 *db, const tta_filter *f, ap_data *d, char **err) {
    memset(d, 0, sizeof *d);
    tta_algoperf_taus(TAU_MIN, TAU_MAX, N_TAU, d->tau);
    tta_error e;
    if (tta_db_algoperf_trials(db, f, &d->trials, &d->n_trials, &e) != TTA_OK) {
        *err = strdupCheck(e.text);
        return 1;
    }
    const tta_algoperf_trial *t = d->trials;
    for (size_t i = 0; i < d->n_trials;) {
        size_t j = i;
        while (j < d->n_trials && !strcmp(t[j].leaderboard, t[i].leaderboard) && !strcmp(t[j].ruleset, t[i].ruleset))
            j++;
        d->boards = reallocCheck(d->boards, (d->n_boards + 1) * sizeof *d->boards);
        if (board_build(db, &t[i], j - i, d->tau, &d->boards[d->n_boards++], err)) {
            ap_free(d);
            return 1;
        }
        i = j;
    }
    return 0;
}

/* ---- The tables ------------------------------------------------------------------------------ */

enum { L_BOARD, L_RULESET, L_RANK, L_SUB, L_SCORE, L_REACHED, L_BASE, L_PROFILE, L_COUNT };
static const tta_column leaderboard_columns[L_COUNT] = {
    [L_BOARD] = {"leaderboard", "leaderboard", TTA_COL_TEXT, 0, 0},
    [L_RULESET] = {"ruleset", "ruleset", TTA_COL_TEXT, 0, 0},
    [L_RANK] = {"rank", "rank", TTA_COL_INT, 0, 0},
    [L_SUB] = {"submission", "submission", TTA_COL_TEXT, 0, 0},
    [L_SCORE] = {"score", "score", TTA_COL_NUMBER, 4, 0},
    [L_REACHED] = {"workloads_scored", "scored", TTA_COL_INT, 0, 0},
    [L_BASE] = {"base_workloads", "of", TTA_COL_INT, 0, 0},
    /* the profile's 100 values at tau = 1 + 3k/99, space-separated (%.17g): for scripts */
    [L_PROFILE] = {"profile", "profile", TTA_COL_TEXT, 0, TTA_FOR_SCRIPTS},
};

static tta_table *leaderboard_table(const ap_data *d) {
    tta_table *t = tta_table_new(leaderboard_columns, L_COUNT);
    for (size_t i = 0; i < d->n_boards; i++) {
        const ap_board *b = &d->boards[i];
        for (int r = 1; r <= (int)b->n_sub; r++)
            for (size_t k = 0; k < b->n_sub; k++) {
                if (b->rank[k] != r || !b->selected[k]) continue;
                size_t row = tta_table_add_row(t), scored = 0;
                for (size_t c = 0; c < b->n_cols; c++) scored += isfinite(b->ratio[k * b->n_cols + c]);
                tta_table_set_text(t, row, L_BOARD, b->leaderboard);
                tta_table_set_text(t, row, L_RULESET, b->ruleset);
                tta_table_set_number(t, row, L_RANK, b->rank[k]);
                tta_table_set_text(t, row, L_SUB, b->sub[k]);
                tta_table_set_number(t, row, L_SCORE, b->score[k]);
                tta_table_set_number(t, row, L_REACHED, (double)scored);
                tta_table_set_number(t, row, L_BASE, (double)b->n_base);
                buf p = {0};
                for (size_t q = 0; q < N_TAU; q++) buf_printf(&p, "%s%.17g", q ? " " : "", b->rho[k * N_TAU + q]);
                tta_table_set_text(t, row, L_PROFILE, buf_str(&p));
                buf_free(&p);
            }
    }
    return t;
}

enum { W_BOARD, W_RULESET, W_SUB, W_WORKLOAD, W_ROLE, W_METRIC, W_TARGET, W_STUDIES, W_REACHED, W_TIME, W_CV,
       W_SCORED, W_RATIO, W_BUDGET, W_COUNT };
static const tta_column workload_columns[W_COUNT] = {
    [W_BOARD] = {"leaderboard", "leaderboard", TTA_COL_TEXT, 0, 0},
    [W_RULESET] = {"ruleset", "ruleset", TTA_COL_TEXT, 0, 0},
    [W_SUB] = {"submission", "submission", TTA_COL_TEXT, 0, 0},
    [W_WORKLOAD] = {"workload", "workload", TTA_COL_TEXT, 0, 0},
    [W_ROLE] = {"role", "role", TTA_COL_TEXT, 0, 0},
    [W_METRIC] = {"metric", "metric", TTA_COL_TEXT, 0, TTA_FOR_SCRIPTS},
    [W_TARGET] = {"target", "target", TTA_COL_NUMBER, 6, TTA_FOR_SCRIPTS},
    [W_STUDIES] = {"studies", "studies", TTA_COL_INT, 0, 0},
    [W_REACHED] = {"studies_reached", "reached", TTA_COL_INT, 0, 0},
    [W_TIME] = {"time_to_target_s", "time to target (s)", TTA_COL_SECONDS, 1, 0},
    [W_CV] = {"study_cv", "cv (%)", TTA_COL_PERCENT, 1, 0},
    [W_SCORED] = {"scored_time_s", "scored (s)", TTA_COL_SECONDS, 1, 0},
    [W_RATIO] = {"ratio", "ratio to best", TTA_COL_NUMBER, 3, 0},
    [W_BUDGET] = {"max_runtime_s", "budget (s)", TTA_COL_SECONDS, 0, 0},
};

/* Why a scored time is a miss where the median time was not. */
static const char *miss_reason(const ap_board *b, size_t k, size_t c) {
    size_t x = k * b->n_cols + c;
    if (isinf(b->time[x])) return "target missed in most studies";
    if (isnan(b->time[x])) return "no trial";
    const tta_algoperf_workload *w = &b->w[b->col[c]];
    if (w->base) return "base workload not reached, or over 4x the best held-out time";
    /* a base workload: over 4x, or a held-out workload of it missed */
    double best = INFINITY;
    for (size_t q = 0; q < b->n_sub; q++)
        if (b->time[q * b->n_cols + c] < best) best = b->time[q * b->n_cols + c];
    if (b->time[x] > MAX_RATIO * best) return "over 4x the best time";
    return "a held-out variant of the workload was missed (or over 4x its best)";
}

static tta_table *workload_table(const ap_data *d) {
    tta_table *t = tta_table_new(workload_columns, W_COUNT);
    for (size_t i = 0; i < d->n_boards; i++) {
        const ap_board *b = &d->boards[i];
        for (size_t k = 0; k < b->n_sub; k++) {
            if (!b->selected[k]) continue;
            for (size_t c = 0; c < b->n_cols; c++) {
                size_t x = k * b->n_cols + c, row = tta_table_add_row(t);
                const tta_algoperf_workload *w = &b->w[b->col[c]];
                tta_table_set_text(t, row, W_BOARD, b->leaderboard);
                tta_table_set_text(t, row, W_RULESET, b->ruleset);
                tta_table_set_text(t, row, W_SUB, b->sub[k]);
                tta_table_set_text(t, row, W_WORKLOAD, w->workload);
                tta_table_set_text(t, row, W_ROLE, w->role);
                tta_table_set_text(t, row, W_METRIC, w->metric);
                tta_table_set_number(t, row, W_TARGET, w->target);
                tta_table_set_number(t, row, W_STUDIES, b->studies[x]);
                tta_table_set_number(t, row, W_REACHED, b->reached[x]);
                if (isnan(b->time[x])) tta_table_set_missing(t, row, W_TIME, "no trial");
                else if (isinf(b->time[x])) tta_table_set_missing(t, row, W_TIME, "target missed in most studies");
                else tta_table_set_number(t, row, W_TIME, b->time[x]);
                tta_table_set_number_or(t, row, W_CV, b->study_cv[x], "fewer than 2 studies reached the target");
                if (isfinite(b->scored[x])) tta_table_set_number(t, row, W_SCORED, b->scored[x]);
                else tta_table_set_missing(t, row, W_SCORED, miss_reason(b, k, c));
                if (w->base) tta_table_set_missing(t, row, W_RATIO, "held-out workload: it only qualifies its base");
                else if (isfinite(b->ratio[x])) tta_table_set_number(t, row, W_RATIO, b->ratio[x]);
                else tta_table_set_missing(t, row, W_RATIO, miss_reason(b, k, c));
                tta_table_set_number_or(t, row, W_BUDGET, b->max_runtime[x], "no meta_data_0.json");
            }
        }
    }
    return t;
}

/* ---- The plot -------------------------------------------------------------------------------- */

/* The performance profiles of board b, a line per submission. */
static void profile_plot(const ap_data *d, const ap_board *b, buf *svg) {
    tta_series *series = callocCheck(b->n_sub ? b->n_sub : 1, sizeof *series);
    char **names = callocCheck(b->n_sub ? b->n_sub : 1, sizeof *names);
    size_t m = 0;
    for (int r = 1; r <= (int)b->n_sub; r++)
        for (size_t k = 0; k < b->n_sub; k++) {
            if (b->rank[k] != r || !b->selected[k]) continue;
            buf nm = {0};
            buf_printf(&nm, "%s (%.4f)", b->sub[k], b->score[k]);
            names[m] = buf_take(&nm);
            series[m] = (tta_series){.name = names[m], .x = d->tau, .y = &b->rho[k * N_TAU], .n = N_TAU,
                                     .marks = TTA_MARK_LINE};
            m++;
        }
    buf title = {0};
    buf_printf(&title, "AlgoPerf %s %s: performance profiles (score in brackets)", b->leaderboard, b->ruleset);
    tta_xy_plot p = {.title = buf_str(&title),
                     .x = {.label = "tau (time to target / the best one's)", .min = TAU_MIN, .max = TAU_MAX},
                     .y = {.label = "fraction of base workloads within tau", .min = 0, .max = 1},
                     .series = series, .n_series = m};
    tta_svg_xy(svg, &p);
    buf_free(&title);
    for (size_t k = 0; k < m; k++) free(names[k]);
    free(names);
    free(series);
}

/* "dir/name.svg" for one board of several: "dir/name-<leaderboard>-<ruleset>.svg". */
static char *board_plot_path(const char *path, const ap_board *b, int several) {
    buf p = {0};
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!several) buf_puts(&p, path);
    else if (dot && (!slash || dot > slash)) {
        buf_append(&p, path, (size_t)(dot - path));
        buf_printf(&p, "-%s-%s%s", b->leaderboard, b->ruleset, dot);
    } else buf_printf(&p, "%s-%s-%s.svg", path, b->leaderboard, b->ruleset);
    return buf_take(&p);
}

/* ---- The report and the HTML section --------------------------------------------------------- */

int tta_report_algoperf(sqlite3 *db, const tta_filter *f, const tta_report_options *o, FILE *out, char **err) {
    ap_data d;
    if (ap_load(db, f, &d, err)) return 1;
    if (d.n_boards == 0 && o->format == TTA_FORMAT_TABLE)
        fprintf(stderr, "tta report algoperf: no AlgoPerf trial selected; ingest a leaderboard's logs/ folder and its "
                        "workload_targets file\n");
    tta_table *t = o->runs ? workload_table(&d) : leaderboard_table(&d);
    tta_table_write(t, (tta_out_format)o->format, out);
    tta_table_free(t);
    int rc = 0;
    for (size_t i = 0; o->svg_path && i < d.n_boards && rc == 0; i++) {
        buf svg = {0};
        profile_plot(&d, &d.boards[i], &svg);
        char *path = board_plot_path(o->svg_path, &d.boards[i], d.n_boards > 1);
        rc = tta_write_file(path, &svg, err);
        free(path);
        buf_free(&svg);
    }
    ap_free(&d);
    return rc;
}

int tta_algoperf_html_section(sqlite3 *db, const tta_filter *f, buf *page, char **err) {
    ap_data d;
    char *why = NULL;
    if (ap_load(db, f, &d, &why)) {
        /* trials without their targets file: the page says so rather than failing whole */
        tta_html_heading(page, "AlgoPerf: training algorithms, performance profiles and benchmark scores");
        tta_html_paragraph(page, why);
        free(why);
        (void)err;
        return 0;
    }
    if (d.n_boards > 0) {
        tta_html_heading(page, "AlgoPerf: training algorithms, performance profiles and benchmark scores");
        tta_html_paragraph(page,
                           "Scored as AlgoPerf's official code scores a leaderboard: a workload's time to target is the "
                           "median over studies of the fastest trial's submission time (the trial that reaches the "
                           "target in the fewest evaluations); a time over 4x the best, or a base workload whose "
                           "held-out variant misses its target, counts as a miss; the profile is the fraction of the "
                           "base workloads within tau of the best, and the score its area over tau from 1 to 4, "
                           "divided by 3.");
        for (size_t i = 0; i < d.n_boards; i++) {
            ap_data one = d;
            one.boards = &d.boards[i];
            one.n_boards = 1;
            buf heading = {0}, svg = {0};
            buf_printf(&heading, "Leaderboard %s, %s", d.boards[i].leaderboard, d.boards[i].ruleset);
            tta_html_subheading(page, buf_str(&heading));
            profile_plot(&d, &d.boards[i], &svg);
            tta_html_figure(page, buf_str(&svg), "Performance profiles: a line per submission, its score in brackets");
            tta_table *t = leaderboard_table(&one);
            tta_html_table(page, t, NULL);
            tta_table_free(t);
            t = workload_table(&one);
            tta_html_details_begin(page, "Time to target per workload");
            tta_html_table(page, t, NULL);
            tta_html_details_end(page);
            tta_table_free(t);
            buf_free(&heading);
            buf_free(&svg);
        }
    }
    ap_free(&d);
    return 0;
}

int tta_algoperf_html_index(sqlite3 *db, const tta_filter *f, char *(*page_of)(const char *round, void *ctx), void *ctx,
                            buf *page, char **err) {
    assert(page_of);
    ap_data d;
    char *why = NULL;
    (void)err;
    if (ap_load(db, f, &d, &why)) { /* as the section: the reason said, the page made */
        tta_html_heading(page, "AlgoPerf: training algorithms, performance profiles and benchmark scores");
        tta_html_paragraph(page, why);
        free(why);
        return 0;
    }
    if (d.n_boards > 0) {
        tta_html_heading(page, "AlgoPerf: training algorithms, performance profiles and benchmark scores");
        tta_html_paragraph(page, "Each leaderboard's performance profiles, ranking and times per workload are on its "
                                 "round's page:");
        buf_puts(page, "<ul>\n");
        for (size_t i = 0; i < d.n_boards; i++) {
            const ap_board *b = &d.boards[i];
            char *href = page_of(b->leaderboard, ctx);
            buf_puts(page, "<li><a href=\"");
            tta_xml_escape(page, href);
            buf_puts(page, "#algoperf-training-algorithms-performance-profiles-and-benchmark-scores\">");
            buf text = {0};
            buf_printf(&text, "Leaderboard %s, %s", b->leaderboard, b->ruleset);
            tta_xml_escape(page, buf_str(&text));
            buf_clear(&text);
            buf_printf(&text, "</a>: %zu submissions", b->n_sub);
            buf_puts(page, buf_str(&text));
            for (size_t k = 0; k < b->n_sub; k++)
                if (b->rank[k] == 1) {
                    buf_clear(&text);
                    buf_printf(&text, "; the best score %.4f: ", b->score[k]);
                    buf_puts(page, buf_str(&text));
                    tta_xml_escape(page, b->sub[k]);
                }
            buf_puts(page, "</li>\n");
            buf_free(&text);
            free(href);
        }
        buf_puts(page, "</ul>\n");
    }
    ap_free(&d);
    return 0;
}
