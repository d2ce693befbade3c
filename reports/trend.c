/* trend.c: `tta report trend`: per benchmark, across rounds, how fast the field got faster and
 * where the gains came from scale: the best published score of each round, the best in each band
 * of accelerator counts, the median, and the speedup over the previous round's best
 * (docs/statistics.md section 14).
 *
 * Rounds are ordered by rule_rounds.ord (time order), never by their names ("v0.10" would sort
 * before "v0.7"); rounds the rules do not know come after, by name. A benchmark is its canonical
 * name (entries.benchmark); the target it is trained to is its round's rule, and a row says so
 * when that target differs from the previous round's.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/check.h"
#include "reports/builders.h"
#include "reports/dataset.h"
#include "reports/render.h"
#include "reports/reports.h"
#include "reports/summary.h"
#include "reports/units.h"

/* ---- bands of accelerator counts --------------------------------------------------------------- */

/* One node (8 accelerators: a DGX, a TPU v3-8 board, a 2-socket host's cards), a few nodes up to a
 * rack (64), a pod slice or several racks (512), and the large-scale runs beyond. "all" is every
 * entry, whatever its count. Entries without accelerators (CPU only: 0) or of unknown count are in
 * "all" only. */
typedef struct {
    const char *key;  /* scripts: "1-8" */
    const char *name; /* people: "1–8" */
    int lo, hi;       /* inclusive; hi 0: no upper bound */
} trend_band;

static const trend_band bands[] = {
    {"all", "all", 0, 0}, {"1-8", "1–8", 1, 8}, {"9-64", "9–64", 9, 64}, {"65-512", "65–512", 65, 512},
    {"513+", "513+", 513, 0},
};
#define N_BANDS (sizeof bands / sizeof bands[0])

/* Is an entry with this many accelerators (-1 unknown) in band b? */
static int in_band(size_t b, int accelerators) {
    assert(b < N_BANDS);
    if (b == 0) return 1;
    return accelerators >= bands[b].lo && (bands[b].hi == 0 || accelerators <= bands[b].hi);
}

/* ---- the trend, computed once for the table and the plots ---------------------------------------- */

typedef struct {
    size_t scored;   /* entries of the band with a published score */
    long best;       /* index (into the entries) of the lowest published score; -1 none */
    double median;   /* of the band's published scores; NAN none */
    int resubmitted; /* the best's runs are those of the previous round's best of the band */
} trend_cell;

typedef struct {
    const char *round;
    size_t n_entries;      /* of the benchmark in the round (selection) */
    size_t unscored;       /* ... without a published score */
    long first_unscored;   /* index of the first of them; -1 */
    size_t no_band;        /* ... with a score but in no band (no accelerators, or unknown) */
    size_t weak;           /* MLPerf HPC weak-scaling entries: not in the trend (their score times many
                              model instances) */
    const tta_entry_data *rule; /* an entry of the round: its metric and target are the round's */
    int target_changed;    /* the metric or a target differs from the previous round's (the row above) */
    trend_cell cell[N_BANDS];
} trend_round;

typedef struct {
    const char *benchmark;
    trend_round *rounds; /* in time order */
    size_t n_rounds;
} trend_series;

typedef struct {
    tta_entry_data *entries;
    tta_entry_summary *summary;
    size_t n_entries;
    trend_series *series; /* by benchmark name */
    size_t n_series;
    const char *division; /* the division selected */
} trend_data;

/* The ord of round, or past every known round (1 << 30) when the rules do not know it. */
static int ord_of(const tta_round_order *o, size_t n, const char *round) {
    for (size_t i = 0; i < n; i++)
        if (!strcmp(o[i].round, round)) return o[i].ord;
    return 1 << 30;
}

/* qsort order of doubles, ascending. */
static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n) (sorted in place); NAN when n is 0. */
static double median_of(double *v, size_t n) {
    if (n == 0) return NAN;
    qsort(v, n, sizeof *v, compare_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Do two doubles differ beyond float rounding (NANs equal each other)? */
static int differs(double a, double b) {
    if (isnan(a) || isnan(b)) return isnan(a) != isnan(b);
    return fabs(a - b) > 1e-9 * fmax(fabs(a), fabs(b));
}

/* Are a and b the same text (both NULL counts as the same)? */
static int same_text(const char *a, const char *b) { return a && b ? strcmp(a, b) == 0 : a == b; }

/* Releases what trend_build allocated (and the entries it loaded). */
static void trend_free(trend_data *t) {
    for (size_t k = 0; k < t->n_series; k++) free(t->series[k].rounds);
    free(t->series);
    free(t->summary);
    tta_entries_free(t->entries, t->n_entries);
    memset(t, 0, sizeof *t);
}

/* Entry order for grouping: benchmark, then round in time order, then id. */
typedef struct {
    size_t i;
    const char *benchmark;
    int ord;
    const char *round;
    int64_t id;
} entry_key;

/* qsort order of entry_key. */
static int compare_entry_key(const void *pa, const void *pb) {
    const entry_key *a = pa, *b = pb;
    int c = strcmp(a->benchmark, b->benchmark);
    if (c) return c;
    if (a->ord != b->ord) return a->ord < b->ord ? -1 : 1;
    c = strcmp(a->round, b->round);
    if (c) return c;
    return (a->id > b->id) - (a->id < b->id);
}

/* Loads the entries of f (division: f's, else closed) and computes the trend of each benchmark.
 * 0, or 1 with *err. */
static int trend_build(sqlite3 *db, const tta_filter *f, trend_data *t, char **err) {
    memset(t, 0, sizeof *t);
    tta_filter g = f ? *f : (tta_filter){0};
    if (!g.division) g.division = "closed";
    t->division = g.division;
    if (tta_entries_load(db, &g, 0, &t->entries, &t->n_entries, err)) return 1;
    tta_round_order *order;
    size_t n_order;
    tta_error db_err;
    if (tta_db_round_orders(db, &order, &n_order, &db_err) != TTA_OK) {
        trend_free(t);
        return tta_report_fail(&db_err, err);
    }
    size_t n = t->n_entries;
    t->summary = callocCheck(n ? n : 1, sizeof *t->summary);
    entry_key *keys = callocCheck(n ? n : 1, sizeof *keys);
    for (size_t i = 0; i < n; i++) {
        tta_summarize_entry(&t->entries[i], &t->summary[i], 0);
        const tta_entry_data *e = &t->entries[i];
        keys[i] = (entry_key){i, e->benchmark, ord_of(order, n_order, e->round), e->round, e->id};
    }
    qsort(keys, n, sizeof *keys, compare_entry_key);
    double *scores = mallocCheck((n ? n : 1) * sizeof *scores);
    size_t series_cap = 0;
    for (size_t a = 0; a < n;) {
        /* one benchmark: keys[a .. b) */
        size_t b = a;
        while (b < n && !strcmp(keys[b].benchmark, keys[a].benchmark)) b++;
        growArray(t->series, &series_cap, t->n_series + 1);
        trend_series *se = &t->series[t->n_series++];
        memset(se, 0, sizeof *se);
        se->benchmark = keys[a].benchmark;
        se->rounds = callocCheck(b - a, sizeof *se->rounds);
        for (size_t c = a; c < b;) {
            /* one round: keys[c .. d) */
            size_t d = c;
            while (d < b && !strcmp(keys[d].round, keys[c].round)) d++;
            trend_round *r = &se->rounds[se->n_rounds++];
            r->round = keys[c].round;
            r->n_entries = d - c;
            r->first_unscored = -1;
            r->rule = &t->entries[keys[c].i];
            for (size_t x = c; x < d; x++) {
                const tta_entry_summary *s = &t->summary[keys[x].i];
                if (s->weak) {
                    r->weak++;
                } else if (isnan(s->published_s)) {
                    if (r->unscored++ == 0) r->first_unscored = (long)keys[x].i;
                } else if (s->entry->accelerators <= 0) {
                    r->no_band++;
                }
            }
            for (size_t k = 0; k < N_BANDS; k++) {
                trend_cell *cell = &r->cell[k];
                cell->best = -1;
                for (size_t x = c; x < d; x++) {
                    const tta_entry_summary *s = &t->summary[keys[x].i];
                    if (s->weak || isnan(s->published_s) || !in_band(k, s->entry->accelerators)) continue;
                    scores[cell->scored++] = s->published_s;
                    /* the lowest score; ties to the lower id (keys are in id order) */
                    if (cell->best < 0 || s->published_s < t->summary[cell->best].published_s)
                        cell->best = (long)keys[x].i;
                }
                cell->median = median_of(scores, cell->scored);
            }
            if (se->n_rounds > 1) {
                const trend_round *p = &se->rounds[se->n_rounds - 2];
                const tta_entry_data *x = r->rule, *y = p->rule;
                r->target_changed = !same_text(x->metric, y->metric) || differs(x->target, y->target) ||
                                    differs(x->target2, y->target2);
                for (size_t k = 0; k < N_BANDS; k++)
                    if (r->cell[k].best >= 0 && p->cell[k].best >= 0)
                        r->cell[k].resubmitted =
                            tta_db_same_runs(db, t->entries[r->cell[k].best].id, t->entries[p->cell[k].best].id);
            }
            c = d;
        }
        a = b;
    }
    free(scores);
    free(keys);
    tta_round_orders_free(order, n_order);
    return 0;
}

/* ---- the table ------------------------------------------------------------------------------------ */

enum {
    C_BENCHMARK, C_BAND, C_ROUND, C_DIVISION, C_METRIC, C_TARGET, C_TARGET2, C_TARGET_CHANGED, C_PREV_TARGET,
    C_TARGET_TEXT, C_ENTRIES, C_SCORE, C_ID, C_SUBMITTER, C_SYSTEM, C_ACC, C_ACC_MIN, C_MEDIAN, C_SPEEDUP, C_ACC_RATIO,
    C_COUNT
};

/* A row is a benchmark's band in a round, not an entry: the benchmark comes first (the table reads
 * down the rounds), and the best entry's identity (id, submitter, system) follows its score. Its id
 * keeps the key scripts read, "id" (not "entry"). The rows are filled
 * by hand (trend_row): the benchmark is the series' canonical name and the division the
 * selection's, whether or not the band has a best entry. */
static const tta_column trend_columns[C_COUNT] = {
    [C_BENCHMARK] = TTA_BENCHMARK_COLUMN,
    [C_BAND] = {"band", "band (accel)", TTA_COL_TEXT, 0, 0},
    [C_ROUND] = TTA_ROUND_COLUMN,
    [C_DIVISION] = TTA_DIVISION_COLUMN,
    [C_METRIC] = {"metric", "metric", TTA_COL_TEXT, 0, TTA_FOR_SCRIPTS},
    [C_TARGET] = {"target", "target", TTA_COL_NUMBER, 4, TTA_FOR_SCRIPTS},
    [C_TARGET2] = {"target2", "target 2", TTA_COL_NUMBER, 4, TTA_FOR_SCRIPTS},
    [C_TARGET_CHANGED] = {"target_changed", "new target", TTA_COL_BOOL, 0, TTA_FOR_SCRIPTS},
    [C_PREV_TARGET] = {"previous_target", "previous target", TTA_COL_NUMBER, 4, TTA_FOR_SCRIPTS},
    [C_TARGET_TEXT] = {"target_text", "target", TTA_COL_TEXT, 0, TTA_FOR_PEOPLE},
    [C_ENTRIES] = {"entries", "entries", TTA_COL_INT, 0, 0},
    [C_SCORE] = {"score_min", "best (min)", TTA_COL_NUMBER, 3, 0},
    [C_ID] = {"id", "id", TTA_COL_INT, 0, 0},
    [C_SUBMITTER] = TTA_SUBMITTER_COLUMN,
    [C_SYSTEM] = TTA_SYSTEM_COLUMN,
    [C_ACC] = {"accelerators", "accel", TTA_COL_INT, 0, 0},
    [C_ACC_MIN] = {"accelerator_minutes", "accel-min", TTA_COL_NUMBER, 0, 0}, /* the best's accel x score */
    [C_MEDIAN] = {"median_min", "median (min)", TTA_COL_NUMBER, 3, 0},
    [C_SPEEDUP] = {"speedup", "speedup (×)", TTA_COL_NUMBER, 2, 0},
    [C_ACC_RATIO] = {"accelerators_ratio", "accel ratio (×)", TTA_COL_NUMBER, 2, 0},
};

/* A target of entry e (a rule's) in the common quality scale (units.h). */
static double common_target(const tta_entry_data *e, double target) {
    tta_quality_view v = tta_entry_quality(e);
    return tta_quality_common(&v, target);
}

/* "0.759", "0.759 (was 0.749)", "win_rate 0.5 (was pro_move_prediction 0.4)"; "90 & 0.15" for two
 * targets. */
static void target_text(buf *b, const tta_entry_data *e, const tta_entry_data *prev, int changed) {
    int metric_changed = prev && !same_text(e->metric, prev->metric);
    const tta_entry_data *show[2] = {e, changed ? prev : NULL};
    for (int k = 0; k < 2; k++) {
        const tta_entry_data *x = show[k];
        if (!x) continue;
        if (k) buf_puts(b, " (was ");
        if (metric_changed && x->metric) buf_printf(b, "%s ", x->metric);
        if (isnan(x->target)) buf_puts(b, "none");
        else buf_printf(b, "%.6g", common_target(x, x->target));
        if (!isnan(x->target2)) buf_printf(b, " & %.6g", common_target(x, x->target2));
        if (k) buf_putc(b, ')');
    }
}

/* Appends the row of band k in round ri of the series: the round's target (and the previous
 * round's where it changed), the band's best, median and speedup over the previous round's best,
 * each missing value with its reason, and the row's notes. */
static void trend_row(tta_table *t, const trend_data *d, const trend_series *se, size_t ri, size_t k) {
    assert(ri < se->n_rounds && k < N_BANDS);
    const trend_round *r = &se->rounds[ri], *p = ri > 0 ? &se->rounds[ri - 1] : NULL;
    const trend_cell *cell = &r->cell[k];
    size_t row = tta_table_add_row(t);
    buf b = {0};
    tta_table_set_text(t, row, C_BENCHMARK, se->benchmark);
    tta_table_set_text(t, row, C_BAND, bands[k].key);
    tta_table_set_text(t, row, C_ROUND, r->round);
    tta_table_set_text(t, row, C_DIVISION, d->division);
    const tta_entry_data *rule = r->rule;
    if (rule->metric) tta_table_set_text(t, row, C_METRIC, rule->metric);
    else tta_table_set_missing(t, row, C_METRIC, "no rule for the benchmark in this round");
    tta_table_set_number_or(t, row, C_TARGET, common_target(rule, rule->target), "no known target");
    if (!isnan(rule->target2)) tta_table_set_number(t, row, C_TARGET2, common_target(rule, rule->target2));
    if (p) {
        tta_table_set_bool(t, row, C_TARGET_CHANGED, r->target_changed);
        tta_table_set_number_or(t, row, C_PREV_TARGET, common_target(p->rule, p->rule->target), "no known target");
    } else {
        tta_table_set_missing(t, row, C_TARGET_CHANGED, "first round of the benchmark in the selection");
        tta_table_set_missing(t, row, C_PREV_TARGET, "first round of the benchmark in the selection");
    }
    target_text(&b, rule, p ? p->rule : NULL, r->target_changed);
    tta_table_set_text(t, row, C_TARGET_TEXT, buf_str(&b));
    buf_clear(&b);
    tta_table_set_number(t, row, C_ENTRIES, (double)cell->scored);
    if (cell->best >= 0) {
        const tta_entry_summary *s = &d->summary[cell->best];
        const tta_entry_data *e = s->entry;
        tta_table_set_number(t, row, C_SCORE, s->published_s / 60.0);
        tta_table_set_number(t, row, C_ID, (double)e->id);
        tta_table_set_text(t, row, C_SUBMITTER, e->submitter);
        tta_table_set_text(t, row, C_SYSTEM, e->system);
        if (e->accelerators >= 0) tta_table_set_number(t, row, C_ACC, e->accelerators);
        else tta_table_set_missing(t, row, C_ACC, "no system description");
        tta_table_set_number_or(t, row, C_ACC_MIN, tta_entry_accelerator_minutes(s),
                                e->accelerators == 0 ? "no accelerator (CPU only)" : "no system description");
        tta_table_set_number(t, row, C_MEDIAN, cell->median / 60.0);
        if (s->score.why) { /* a score with a warning (fewer runs than the rules require...) */
            buf_printf(&b, "the best's score: %s", s->score.why);
            tta_table_add_note(t, row, buf_str(&b));
            buf_clear(&b);
        }
        if (s->scaling_factor != 1.0) {
            buf_printf(&b, "best score × %.4f (scaling.json: RCP normalisation)", s->scaling_factor);
            tta_table_add_note(t, row, buf_str(&b));
            buf_clear(&b);
        }
    } else {
        const char *why = "no entry with a published score";
        if (r->unscored && r->first_unscored >= 0) {
            const tta_entry_summary *u = &d->summary[r->first_unscored];
            buf_printf(&b, "no entry with a published score (%s: %s)", u->entry->system,
                       u->score.why ? u->score.why : "no score");
            why = buf_str(&b);
        }
        for (int c = C_SCORE; c <= C_MEDIAN; c++) tta_table_set_missing(t, row, (size_t)c, why);
        buf_clear(&b);
    }
    /* the speedup over the previous round's best of the band */
    const char *why = NULL;
    if (!p) why = "first round of the benchmark in the selection";
    else if (cell->best < 0) why = "no entry with a published score";
    else if (p->cell[k].best < 0) {
        if (k) buf_printf(&b, "no entry of %s accelerators with a published score in %s", bands[k].name, p->round);
        else buf_printf(&b, "no entry with a published score in %s", p->round);
        why = buf_str(&b);
    }
    if (why) {
        tta_table_set_missing(t, row, C_SPEEDUP, why);
        tta_table_set_missing(t, row, C_ACC_RATIO, why);
    } else {
        const tta_entry_summary *s = &d->summary[cell->best], *q = &d->summary[p->cell[k].best];
        tta_table_set_number(t, row, C_SPEEDUP, q->published_s / s->published_s);
        if (s->entry->accelerators > 0 && q->entry->accelerators > 0)
            tta_table_set_number(t, row, C_ACC_RATIO, (double)s->entry->accelerators / q->entry->accelerators);
        else
            tta_table_set_missing(t, row, C_ACC_RATIO, "an accelerator count is 0 (CPU only) or unknown");
        if (r->target_changed) {
            buf_printf(&b, "the target changed since %s: the speedup compares different tasks", p->round);
            tta_table_add_note(t, row, buf_str(&b));
        }
        if (cell->resubmitted) {
            buf_clear(&b);
            buf_printf(&b, "the same runs as %s's best (entry %lld: equal run_start times), published again",
                       p->round, (long long)q->entry->id);
            tta_table_add_note(t, row, buf_str(&b));
        }
    }
    buf_clear(&b);
    if (k == 0 && r->unscored && cell->best >= 0) { /* else the cells say it */
        const tta_entry_summary *u = &d->summary[r->first_unscored];
        buf_printf(&b, "%zu of %zu entries without a published score (e.g. %s %s: %s)", r->unscored, r->n_entries,
                   u->entry->submitter, u->entry->system, u->score.why ? u->score.why : "no score");
        tta_table_add_note(t, row, buf_str(&b));
        buf_clear(&b);
    }
    if (k == 0 && r->weak) {
        buf_printf(&b, "%zu MLPerf HPC weak-scaling entr%s left out (a time to train many model instances, not one: "
                   "tta report summary shows %s)", r->weak, r->weak == 1 ? "y" : "ies", r->weak == 1 ? "it" : "them");
        tta_table_add_note(t, row, buf_str(&b));
        buf_clear(&b);
    }
    if (k == 0 && r->no_band) {
        buf_printf(&b, "%zu scored entr%s without accelerators (CPU only) or of unknown count: in no band", r->no_band,
                   r->no_band == 1 ? "y" : "ies");
        tta_table_add_note(t, row, buf_str(&b));
    }
    buf_free(&b);
}

/* Rows by benchmark, then band (all first), then round in time order: each block reads as one
 * line of the plot. A band gets a row in a round where it has a scored entry; "all" in every
 * round of the benchmark. */
static tta_table *trend_table(const trend_data *d) {
    tta_table *t = tta_table_new(trend_columns, C_COUNT);
    for (size_t i = 0; i < d->n_series; i++)
        for (size_t k = 0; k < N_BANDS; k++)
            for (size_t r = 0; r < d->series[i].n_rounds; r++)
                if (k == 0 || d->series[i].rounds[r].cell[k].scored > 0) trend_row(t, d, &d->series[i], r, k);
    return t;
}

/* ---- the plot ------------------------------------------------------------------------------------- */

/* The score against the round for one benchmark: log10 minutes, rounds evenly spaced in time
 * order; the best overall first, grey and dashed (it is always one band's best: drawn on top it
 * hid that band's line, the 513+ one most often), its points labelled with the accelerator count
 * where that changes (and "new target" where the target changed); then a line with points per
 * band over it, and the median in grey. Each band has its colour in every plot, whichever bands a
 * benchmark has. */
static void trend_plot(const trend_data *d, const trend_series *se, buf *svg) {
    size_t n = se->n_rounds;
    const char **names = mallocCheck((n ? n : 1) * sizeof *names);
    double *x = mallocCheck((N_BANDS + 1) * (n ? n : 1) * sizeof *x);
    double *y = mallocCheck((N_BANDS + 1) * (n ? n : 1) * sizeof *y);
    char **labels = callocCheck(n ? n : 1, sizeof *labels);
    char legend[N_BANDS][48];
    tta_series series[N_BANDS + 1];
    size_t ns = 0;
    for (size_t r = 0; r < n; r++) names[r] = se->rounds[r].round;
    /* drawing order: the best (band 0) under the bands 1.., then the median (N_BANDS) */
    for (size_t k = 0; k <= N_BANDS; k++) {
        double *xs = x + k * n, *ys = y + k * n;
        size_t m = 0;
        int last_acc = -2;
        for (size_t r = 0; r < n; r++) {
            const trend_cell *cell = &se->rounds[r].cell[k < N_BANDS ? k : 0];
            if (cell->best < 0) continue;
            xs[m] = (double)r;
            ys[m] = (k < N_BANDS ? d->summary[cell->best].published_s : cell->median) / 60.0;
            int acc = d->summary[cell->best].entry->accelerators;
            if (k == 0 && (acc != last_acc || se->rounds[r].target_changed)) {
                buf b = {0};
                if (acc > 0) buf_printf(&b, "%d accel", acc);
                else buf_puts(&b, acc == 0 ? "CPU" : "accel ?");
                if (se->rounds[r].target_changed) buf_puts(&b, ", new target");
                labels[m] = buf_take(&b);
            }
            last_acc = acc;
            m++;
        }
        if (m == 0 && k == N_BANDS) continue;
        if (m == 0) { /* no line, no legend, but its colour kept: each band has one colour in every plot */
            series[ns++] = (tta_series){NULL, xs, ys, 0, NULL, NULL, TTA_MARK_LINE, k == 0, 0};
            continue;
        }
        if (k == 0) snprintf(legend[k], sizeof legend[k], "best (all entries)");
        else if (k < N_BANDS) snprintf(legend[k], sizeof legend[k], "best at %s accel", bands[k].name);
        series[ns++] = (tta_series){k < N_BANDS ? legend[k] : "median (all entries)", xs, ys, m, NULL,
                                    k == 0 ? (const char *const *)labels : NULL,
                                    k < N_BANDS ? TTA_MARK_LINE_POINTS : TTA_MARK_LINE, k == 0 || k == N_BANDS,
                                    k == 0 || k == N_BANDS};
    }
    buf title = {0};
    buf_printf(&title, "%s: published score per round (%s division)", se->benchmark, d->division);
    tta_xy_plot p = {.title = buf_str(&title), .x = {.label = "round (time order)"},
                     .y = {.label = "score (min, log scale)", .scale = TTA_AXIS_LOG10}, .series = series,
                     .n_series = ns};
    if (n) tta_svg_xy_categories(svg, &p, names, n);
    else tta_svg_xy(svg, &p);
    buf_free(&title);
    for (size_t r = 0; r < n; r++) free(labels[r]);
    free(labels);
    free(x);
    free(y);
    free(names);
}

/* "dir/name.svg" for one benchmark of several: "dir/name-<benchmark>.svg". */
static char *plot_path(const char *path, const char *benchmark, int several) {
    buf b = {0};
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!several) buf_puts(&b, path);
    else if (dot && (!slash || dot > slash)) {
        buf_append(&b, path, (size_t)(dot - path));
        buf_printf(&b, "-%s%s", benchmark, dot);
    } else {
        buf_printf(&b, "%s-%s.svg", path, benchmark);
    }
    return buf_take(&b);
}

/* Entries matching f in any division (to say why the selected one has none). */
static size_t entries_in_any_division(sqlite3 *db, const tta_filter *f) {
    tta_filter g = *f;
    g.division = NULL;
    tta_entry_data *e;
    size_t n;
    char *err = NULL;
    if (tta_entries_load(db, &g, 0, &e, &n, &err)) {
        free(err);
        return 0;
    }
    tta_entries_free(e, n);
    return n;
}

int tta_report_trend(sqlite3 *db, const tta_filter *f, const tta_report_options *o, FILE *out, char **err) {
    static const tta_filter none = {0};
    if (!f) f = &none;
    trend_data d;
    if (trend_build(db, f, &d, err)) return 1;
    if (d.n_entries == 0) {
        size_t any = f->division ? 0 : entries_in_any_division(db, f);
        if (any)
            fprintf(stderr, "tta report trend: no row: no entry of the closed division matches the filters (%zu in "
                    "other divisions: --division open)\n", any);
        else
            fprintf(stderr, "tta report trend: no row: no entry matches the filters\n");
    }
    tta_table *t = trend_table(&d);
    tta_table_write(t, (tta_out_format)o->format, out);
    tta_table_free(t);
    int rc = 0;
    if (o->svg_path) {
        /* one plot per benchmark: their scores differ by orders of magnitude */
        for (size_t i = 0; i < d.n_series && rc == 0; i++) {
            char *path = plot_path(o->svg_path, d.series[i].benchmark, d.n_series > 1);
            buf svg = {0};
            trend_plot(&d, &d.series[i], &svg);
            rc = tta_write_file(path, &svg, err);
            if (rc == 0 && d.n_series > 1) fprintf(stderr, "tta report: wrote %s\n", path);
            buf_free(&svg);
            free(path);
        }
        if (d.n_series == 0) {
            buf svg = {0};
            trend_plot(&d, &(trend_series){"no benchmark", NULL, 0}, &svg);
            rc = tta_write_file(o->svg_path, &svg, err);
            buf_free(&svg);
        }
    }
    trend_free(&d);
    return rc;
}

int tta_trend_html_section(sqlite3 *db, const tta_filter *f, buf *page, char **err) {
    /* A trend needs rounds: the page's round filter does not apply here. */
    tta_filter g = f ? *f : (tta_filter){0};
    g.round = NULL;
    trend_data d;
    if (trend_build(db, &g, &d, err)) return 1;
    tta_html_heading(page, "Trend across rounds");
    buf b = {0};
    if (d.n_entries == 0) { /* say why in one line */
        buf_printf(&b, "No entry of the %s division matches the page's filters (in any round): no trend to show.",
                   d.division);
        tta_html_paragraph(page, buf_str(&b));
        buf_free(&b);
        trend_free(&d);
        return 0;
    }
    buf_printf(&b, "Per benchmark and round (%s division, every round in the database%s): the best published score "
               "with its entry, the best in each band of accelerator counts (1–8, 9–64, 65–512, 513+), the median, "
               "and the speedup over the previous round's best; a target that changed is shown with the old one.",
               d.division, f && f->round ? ", whatever the page's round" : "");
    tta_html_paragraph(page, buf_str(&b));
    buf_free(&b);
    for (size_t i = 0; i < d.n_series; i++) {
        buf svg = {0}, cap = {0};
        trend_plot(&d, &d.series[i], &svg);
        buf_printf(&cap, "%s: best score per round, overall and per band of accelerators; the grey dashed line is "
                   "the median", d.series[i].benchmark);
        tta_html_figure(page, buf_str(&svg), buf_str(&cap));
        buf_free(&svg);
        buf_free(&cap);
    }
    tta_table *t = trend_table(&d);
    tta_html_table(page, t, NULL);
    tta_table_free(t);
    trend_free(&d);
    return 0;
}
