/* pareto.c: `tta report pareto`: which entries no other beats on both time and resources. Per
 * entry with a score, its accelerators, accelerator-minutes and cost to accuracy, and whether it is
 * on the Pareto frontier of its round, division and benchmark: time against accelerators, and time
 * against cost where the entries give a cost per hour (DAWNBench); the plot draws time against
 * accelerators (or cost) with the frontier as a line (docs/statistics.md section 15).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/check.h"
#include "reports/builders.h"
#include "reports/summary.h"

enum { P_ACC = TTA_IDENTITY_COUNT, P_SCORE, P_ACC_MIN, P_COST, P_FRONT_ACC, P_FRONT_COST, P_COUNT };

static const tta_column pareto_columns[P_COUNT] = {
    TTA_IDENTITY_COLUMNS,
    [P_ACC] = {"accelerators", "accel", TTA_COL_INT, 0, 0},
    [P_SCORE] = {"score_s", "score (min)", TTA_COL_MINUTES, 2, 0},
    [P_ACC_MIN] = {"accelerator_minutes", "accel-min", TTA_COL_NUMBER, 0, 0},
    [P_COST] = {"cost_usd", "cost ($)", TTA_COL_NUMBER, 2, 0},
    [P_FRONT_ACC] = {"frontier_accelerators", "frontier (acc)", TTA_COL_BOOL, 0, 0},
    [P_FRONT_COST] = {"frontier_cost", "frontier ($)", TTA_COL_BOOL, 0, 0},
};

/* Marks front[i] = 1 for the entries i of idx[0..m) that no other of them dominates on (x, y): none
 * has x' <= x and y' <= y with one of them smaller. Entries whose x or y is NAN are left 0. */
static void frontier(const size_t *idx, size_t m, const double *x, const double *y, int *front) {
    for (size_t a = 0; a < m; a++) {
        size_t i = idx[a];
        if (isnan(x[i]) || isnan(y[i])) continue;
        int dominated = 0;
        for (size_t b = 0; b < m && !dominated; b++) {
            size_t j = idx[b];
            if (j == i || isnan(x[j]) || isnan(y[j])) continue;
            dominated = x[j] <= x[i] && y[j] <= y[i] && (x[j] < x[i] || y[j] < y[i]);
        }
        front[i] = !dominated;
    }
}

/* Each entry's score, accelerators (NAN: none or unknown) and cost, and whether it is on the frontier
 * of its round, division and benchmark by accelerators and by cost. Arrays of n, malloc'd. */
typedef struct {
    double *score, *acc, *cost;
    int *front_acc, *front_cost;
} pareto_data;

/* Computes d for e[0..n); release with pareto_free. */
static void pareto_compute(const tta_entry_data *e, size_t n, pareto_data *d) {
    size_t m = n ? n : 1;
    d->score = mallocCheck(m * sizeof *d->score);
    d->acc = mallocCheck(m * sizeof *d->acc);
    d->cost = mallocCheck(m * sizeof *d->cost);
    d->front_acc = callocCheck(m, sizeof *d->front_acc);
    d->front_cost = callocCheck(m, sizeof *d->front_cost);
    for (size_t i = 0; i < n; i++) {
        tta_entry_summary s;
        tta_summarize_entry(&e[i], &s, 0);
        d->score[i] = tta_entry_rank_score_s(&s);
        d->acc[i] = e[i].accelerators > 0 ? e[i].accelerators : NAN;
        d->cost[i] = tta_entry_cost_usd(&s);
    }
    size_t *idx = mallocCheck(m * sizeof *idx);
    int *done = callocCheck(m, sizeof *done);
    for (size_t i = 0; i < n; i++) {
        if (done[i]) continue;
        size_t k = 0;
        for (size_t j = i; j < n; j++)
            if (!done[j] && !strcmp(e[j].round, e[i].round) && !strcmp(e[j].division, e[i].division) &&
                !strcmp(e[j].benchmark, e[i].benchmark)) {
                idx[k++] = j;
                done[j] = 1;
            }
        frontier(idx, k, d->acc, d->score, d->front_acc);
        frontier(idx, k, d->cost, d->score, d->front_cost);
    }
    free(idx);
    free(done);
}

/* Releases pareto_compute's arrays. */
static void pareto_free(pareto_data *d) {
    free(d->score);
    free(d->acc);
    free(d->cost);
    free(d->front_acc);
    free(d->front_cost);
}

tta_table *tta_pareto_table(const tta_entry_data *e, size_t n) {
    tta_table *t = tta_table_new(pareto_columns, P_COUNT);
    pareto_data d;
    pareto_compute(e, n, &d);
    for (size_t i = 0; i < n; i++) {
        if (isnan(d.score[i])) continue; /* no score: on no frontier, and nothing to place */
        size_t row = tta_table_add_row(t);
        tta_identity id = tta_entry_identity(&e[i]);
        tta_table_set_identity(t, row, &id);
        if (e[i].accelerators >= 0) tta_table_set_number(t, row, P_ACC, e[i].accelerators);
        else tta_table_set_missing(t, row, P_ACC, "no accelerator count in the system description");
        tta_table_set_number(t, row, P_SCORE, d.score[i]);
        if (!isnan(d.acc[i])) {
            tta_table_set_number(t, row, P_ACC_MIN, d.acc[i] * d.score[i] / 60.0);
            tta_table_set_bool(t, row, P_FRONT_ACC, d.front_acc[i]);
        } else {
            const char *why = e[i].accelerators == 0 ? "no accelerator (CPU only)" : "accelerators unknown";
            tta_table_set_missing(t, row, P_ACC_MIN, why);
            tta_table_set_missing(t, row, P_FRONT_ACC, why);
        }
        if (!isnan(d.cost[i])) {
            tta_table_set_number(t, row, P_COST, d.cost[i]);
            tta_table_set_bool(t, row, P_FRONT_COST, d.front_cost[i]);
        }
    }
    pareto_free(&d);
    return t;
}

void tta_pareto_plot(const tta_entry_data *e, size_t n, const tta_report_options *o, buf *svg) {
    (void)o; /* no option changes this plot */
    pareto_data d;
    pareto_compute(e, n, &d);
    /* against cost where every scored entry has one (DAWNBench), else against accelerators */
    int by_cost = 0, scored = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(d.score[i])) {
            scored++;
            by_cost += !isnan(d.cost[i]);
        }
    by_cost = scored > 0 && by_cost == scored;
    const double *xv = by_cost ? d.cost : d.acc;
    size_t m = n ? n : 1, np = 0, nf = 0;
    /* the plot's one frontier, over every entry it draws (both divisions: the table keeps them apart) */
    size_t *all = mallocCheck(m * sizeof *all);
    int *front = callocCheck(m, sizeof *front);
    for (size_t i = 0; i < n; i++) all[i] = i;
    frontier(all, n, xv, d.score, front);
    free(all);
    double *px = mallocCheck(m * sizeof *px), *py = mallocCheck(m * sizeof *py);
    double *fx = mallocCheck(m * sizeof *fx), *fy = mallocCheck(m * sizeof *fy);
    for (size_t i = 0; i < n; i++) {
        if (isnan(d.score[i]) || isnan(xv[i])) continue;
        px[np] = xv[i];
        py[np++] = d.score[i] / 60.0;
        if (front[i]) {
            /* in order of x: insertion (a frontier has few points) */
            size_t k = nf++;
            while (k > 0 && fx[k - 1] > xv[i]) {
                fx[k] = fx[k - 1];
                fy[k] = fy[k - 1];
                k--;
            }
            fx[k] = xv[i];
            fy[k] = d.score[i] / 60.0;
        }
    }
    tta_series series[2] = {
        {"entry", px, py, np, NULL, NULL, TTA_MARK_POINTS, 0, 0, 0},
        {"Pareto frontier (no entry faster for as little)", fx, fy, nf, NULL, NULL, TTA_MARK_LINE_POINTS, 0, 0, 0},
    };
    buf title = {0};
    tta_plot_title(&title, e, n, by_cost ? "time against cost to accuracy" : "time against accelerators");
    tta_xy_plot p = {.title = buf_str(&title),
                     .x = {.label = by_cost ? "cost to accuracy ($, log scale)" : "accelerators (log scale)",
                           .scale = by_cost ? TTA_AXIS_LOG10 : TTA_AXIS_LOG2},
                     .y = {.label = "score (min, log scale)", .scale = TTA_AXIS_LOG10},
                     .series = series, .n_series = 2};
    tta_svg_xy(svg, &p);
    buf_free(&title);
    free(px);
    free(py);
    free(fx);
    free(fy);
    free(front);
    pareto_free(&d);
}
