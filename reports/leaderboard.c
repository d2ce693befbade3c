/* leaderboard.c: `tta report leaderboard`: per round, division and benchmark the best score, the
 * entry that holds it with its accelerators, accelerator-minutes, energy (where power was logged)
 * and cost (where the entry gives its cost per hour: DAWNBench), and the change against the
 * previous round's best of the same division and benchmark (docs/statistics.md section 15).
 *
 * The score is the published one (tta_summarize_entry's published_s: olympic mean x scaling.json)
 * for MLPerf rounds, and the mean TTA of the successful runs elsewhere (DAWNBench, which ranks an
 * entry by its time to the threshold, and replays). Where an entry of the group gives its cost
 * per hour, the group has a second row, ranked by cost to accuracy (cost per hour x score in
 * hours, as DAWNBench ranks it). Rounds are in rule_rounds.ord order (time), never by name.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/check.h"
#include "reports/builders.h"
#include "reports/dataset.h"
#include "reports/energy.h"
#include "reports/render.h"
#include "reports/reports.h"
#include "reports/summary.h"
#include "reports/units.h"

/* What a group's row is ranked by. */
typedef enum { RANK_TIME, RANK_COST, N_RANKS } rank_by;
static const char *const rank_keys[N_RANKS] = {"time", "cost"};

typedef struct {
    const char *round, *division, *benchmark;
    int ord;
    int shown;             /* its round is one the filter selects (the others give the previous best) */
    size_t entries;        /* of the group in the selection */
    size_t scored;         /* ... with a score */
    size_t costed;         /* ... with a score and a cost per hour */
    long best[N_RANKS];    /* index of the best entry by time / by cost; -1 none */
    int resubmitted;       /* the best by time holds the same runs as the previous round's best */
    long prev;             /* index (into the groups) of the previous round's group of the same
                              division and benchmark that has a best by time; -1 none */
    const tta_entry_data *rule; /* an entry of the group: its metric and target are the round's */
} lb_group;

typedef struct {
    tta_entry_data *entries;
    size_t n;
    tta_entry_summary *summary;
    double *score_s;  /* n: the entry's score (published, else mean TTA); NAN none */
    double *cost_usd; /* n: cost to accuracy; NAN unknown */
    double *energy_j; /* n: the energy score; NAN none */
    lb_group *groups;
    size_t n_groups;
} lb_data;

/* The ord of round, or past every known round (1 << 30) when the rules do not know it. */
static int ord_of(const tta_round_order *o, size_t n, const char *round) {
    for (size_t i = 0; i < n; i++)
        if (!strcmp(o[i].round, round)) return o[i].ord;
    return 1 << 30;
}

/* Are a and b the same text (both NULL counts as the same)? */
static int same_text(const char *a, const char *b) { return a && b ? strcmp(a, b) == 0 : a == b; }

/* Do two doubles differ beyond float rounding (NANs equal each other)? */
static int differs(double a, double b) {
    if (isnan(a) || isnan(b)) return isnan(a) != isnan(b);
    return fabs(a - b) > 1e-9 * fmax(fabs(a), fabs(b));
}

/* Do entries a and b train to a different metric or target (their rounds' rules)? */
static int target_changed(const tta_entry_data *a, const tta_entry_data *b) {
    return !same_text(a->metric, b->metric) || differs(a->target, b->target) || differs(a->target2, b->target2);
}

typedef struct {
    size_t i;
    const tta_entry_data *e;
    int ord;
} lb_key;

/* qsort order of lb_key: division, benchmark, round in time order, round name, entry id. */
static int compare_key(const void *pa, const void *pb) {
    const lb_key *a = pa, *b = pb;
    int c = strcmp(a->e->division, b->e->division);
    if (c) return c;
    if ((c = strcmp(a->e->benchmark, b->e->benchmark))) return c;
    if (a->ord != b->ord) return a->ord < b->ord ? -1 : 1;
    if ((c = strcmp(a->e->round, b->e->round))) return c;
    return (a->e->id > b->e->id) - (a->e->id < b->e->id);
}

/* qsort order of groups for the table: round in time order, round name, division, benchmark. */
static int compare_group(const void *pa, const void *pb) {
    const lb_group *a = pa, *b = pb;
    if (a->ord != b->ord) return a->ord < b->ord ? -1 : 1;
    int c = strcmp(a->round, b->round);
    if (c) return c;
    if ((c = strcmp(a->division, b->division))) return c;
    return strcmp(a->benchmark, b->benchmark);
}

/* Releases what lb_build allocated (and the entries it loaded). */
static void lb_free(lb_data *d) {
    free(d->groups);
    free(d->summary);
    free(d->score_s);
    free(d->cost_usd);
    free(d->energy_j);
    tta_entries_free(d->entries, d->n);
    memset(d, 0, sizeof *d);
}

/* Is x a better score than the best so far (index best, -1 none)? Lower wins; a tie keeps the lower
 * id (entries are visited in id order). */
static int better(const double *v, long best, size_t x) { return !isnan(v[x]) && (best < 0 || v[x] < v[best]); }

/* The distinct rounds of the entries of f (malloc'd copies in *rounds, n of them). 0, or 1 with *err. */
static int selected_rounds(sqlite3 *db, const tta_filter *f, char ***rounds, size_t *n, char **err) {
    tta_entry_data *e;
    size_t m;
    *rounds = NULL;
    *n = 0;
    if (tta_entries_load(db, f, 0, &e, &m, err)) return 1;
    *rounds = mallocCheck((m ? m : 1) * sizeof **rounds);
    for (size_t i = 0; i < m; i++) {
        size_t j = 0;
        while (j < *n && strcmp((*rounds)[j], e[i].round)) j++;
        if (j == *n) (*rounds)[(*n)++] = strdupCheck(e[i].round);
    }
    tta_entries_free(e, m);
    return 0;
}

/* Loads the entries of f in every round (the previous round's best is the change's base, whatever
 * f's round), scores them, and groups them by round, division and benchmark, each with its best by
 * time and by cost, its link to the previous round's group, and whether f's round selects it. 0,
 * or 1 with *err. */
static int lb_build(sqlite3 *db, const tta_filter *f, lb_data *d, char **err) {
    static const tta_filter none = {0};
    memset(d, 0, sizeof *d);
    if (!f) f = &none;
    char **rounds = NULL;
    size_t n_rounds = 0;
    if (f->round && selected_rounds(db, f, &rounds, &n_rounds, err)) return 1;
    tta_filter g = *f;
    g.round = NULL;
    if (tta_entries_load(db, &g, 0, &d->entries, &d->n, err)) {
        for (size_t k = 0; k < n_rounds; k++) free(rounds[k]);
        free(rounds);
        return 1;
    }
    tta_round_order *order;
    size_t n_order;
    tta_error db_err;
    if (tta_db_round_orders(db, &order, &n_order, &db_err) != TTA_OK) {
        lb_free(d);
        return tta_report_fail(&db_err, err);
    }
    tta_energy_data en;
    if (tta_energy_load_for(db, d->entries, d->n, &en, err)) {
        tta_round_orders_free(order, n_order);
        lb_free(d);
        return 1;
    }
    size_t n = d->n;
    d->summary = callocCheck(n ? n : 1, sizeof *d->summary);
    d->score_s = mallocCheck((n ? n : 1) * sizeof *d->score_s);
    d->cost_usd = mallocCheck((n ? n : 1) * sizeof *d->cost_usd);
    d->energy_j = mallocCheck((n ? n : 1) * sizeof *d->energy_j);
    lb_key *keys = mallocCheck((n ? n : 1) * sizeof *keys);
    for (size_t i = 0; i < n; i++) {
        const tta_entry_data *e = &d->entries[i];
        tta_summarize_entry(e, &d->summary[i], 0);
        d->score_s[i] = tta_entry_rank_score_s(&d->summary[i]);
        d->cost_usd[i] = tta_entry_cost_usd(&d->summary[i]);
        d->energy_j[i] = en.row_of[i] >= 0 ? en.rows[en.row_of[i]].score.energy_j : NAN;
        keys[i] = (lb_key){i, e, ord_of(order, n_order, e->round)};
    }
    tta_energy_free(&en);
    tta_round_orders_free(order, n_order);
    qsort(keys, n, sizeof *keys, compare_key);
    d->groups = callocCheck(n ? n : 1, sizeof *d->groups);
    for (size_t a = 0; a < n;) {
        /* one group: keys[a .. b), equal division, benchmark and round */
        size_t b = a;
        while (b < n && !strcmp(keys[b].e->division, keys[a].e->division) &&
               !strcmp(keys[b].e->benchmark, keys[a].e->benchmark) && !strcmp(keys[b].e->round, keys[a].e->round))
            b++;
        lb_group *g = &d->groups[d->n_groups++];
        *g = (lb_group){keys[a].e->round, keys[a].e->division, keys[a].e->benchmark, keys[a].ord, !f->round, b - a,
                        0, 0, {-1, -1}, 0, -1, keys[a].e};
        for (size_t k = 0; k < n_rounds; k++) g->shown |= !strcmp(rounds[k], g->round);
        if (tta_entry_is_algoperf(keys[a].e)) g->shown = 0; /* no rank score: tta report algoperf ranks them */
        for (size_t x = a; x < b; x++) {
            size_t i = keys[x].i;
            g->scored += !isnan(d->score_s[i]);
            g->costed += !isnan(d->cost_usd[i]);
            if (better(d->score_s, g->best[RANK_TIME], i)) g->best[RANK_TIME] = (long)i;
            if (better(d->cost_usd, g->best[RANK_COST], i)) g->best[RANK_COST] = (long)i;
        }
        /* the previous round's group of this division and benchmark with a best: groups of one
         * division and benchmark are consecutive here, in time order */
        for (long p = (long)d->n_groups - 2; p >= 0; p--) {
            const lb_group *q = &d->groups[p];
            if (strcmp(q->division, g->division) || strcmp(q->benchmark, g->benchmark)) break;
            if (q->best[RANK_TIME] >= 0) {
                g->prev = p;
                if (g->best[RANK_TIME] >= 0)
                    g->resubmitted = tta_db_same_runs(db, d->entries[g->best[RANK_TIME]].id,
                                                      d->entries[q->best[RANK_TIME]].id);
                break;
            }
        }
        a = b;
    }
    free(keys);
    for (size_t k = 0; k < n_rounds; k++) free(rounds[k]);
    free(rounds);
    /* rows by round (time order), division, benchmark: prev indexes move with the sort, so keep
     * them as the group's key and find them again */
    lb_group *copy = mallocCheck((d->n_groups ? d->n_groups : 1) * sizeof *copy);
    memcpy(copy, d->groups, d->n_groups * sizeof *copy);
    qsort(d->groups, d->n_groups, sizeof *d->groups, compare_group);
    for (size_t k = 0; k < d->n_groups; k++) {
        lb_group *g = &d->groups[k];
        if (g->prev < 0) continue;
        const lb_group *p = &copy[g->prev];
        g->prev = -1;
        for (size_t j = 0; j < d->n_groups; j++)
            if (d->groups[j].round == p->round && d->groups[j].division == p->division &&
                d->groups[j].benchmark == p->benchmark)
                g->prev = (long)j;
    }
    free(copy);
    return 0;
}

/* ---- the table ------------------------------------------------------------------------------------ */

enum {
    C_ROUND, C_DIVISION, C_BENCHMARK, C_RANKED, C_ENTRIES, C_SCORE, C_ENTRY, C_SUBMITTER, C_SYSTEM, C_ACC_MODEL,
    C_ACC, C_ACC_MIN, C_ENERGY_KWH, C_COST_HOUR, C_COST, C_PREV_ROUND, C_PREV_SCORE, C_PREV_ENTRY, C_SPEEDUP,
    C_TARGET_CHANGED, C_LOGS_URL, C_DESCRIPTION_URL, C_COUNT
};

/* A row is a group's best (round, division, benchmark, then what it is ranked by), not an entry:
 * the group's keys lead and the best entry's identity (entry, submitter, system) follows its
 * score, as in trend; the identity columns are taken one by one for that order. */
static const tta_column lb_columns[C_COUNT] = {
    [C_ROUND] = TTA_ROUND_COLUMN,
    [C_DIVISION] = TTA_DIVISION_COLUMN,
    [C_BENCHMARK] = TTA_BENCHMARK_COLUMN,
    [C_RANKED] = {"ranked_by", "by", TTA_COL_TEXT, 0, 0},
    [C_ENTRIES] = {"entries", "entries", TTA_COL_INT, 0, 0},
    [C_SCORE] = {"score_s", "best (min)", TTA_COL_MINUTES, 2, 0},
    [C_ENTRY] = TTA_ENTRY_COLUMN,
    [C_SUBMITTER] = TTA_SUBMITTER_COLUMN,
    [C_SYSTEM] = TTA_SYSTEM_COLUMN,
    [C_ACC_MODEL] = {"accelerator_model", "accelerator", TTA_COL_TEXT, 0, TTA_FOR_SCRIPTS},
    [C_ACC] = {"accelerators", "accel", TTA_COL_INT, 0, 0},
    [C_ACC_MIN] = {"accelerator_minutes", "accel-min", TTA_COL_NUMBER, 0, 0},
    [C_ENERGY_KWH] = {"energy_kwh", "energy (kWh)", TTA_COL_NUMBER, 2, 0},
    [C_COST_HOUR] = {"cost_per_hour_usd", "$/h", TTA_COL_NUMBER, 2, TTA_FOR_SCRIPTS},
    [C_COST] = {"cost_usd", "cost ($)", TTA_COL_NUMBER, 2, 0},
    [C_PREV_ROUND] = {"previous_round", "prev round", TTA_COL_TEXT, 0, 0},
    [C_PREV_SCORE] = {"previous_score_s", "prev best (min)", TTA_COL_MINUTES, 2, TTA_FOR_SCRIPTS},
    [C_PREV_ENTRY] = {"previous_entry", "prev id", TTA_COL_INT, 0, TTA_FOR_SCRIPTS},
    [C_SPEEDUP] = {"speedup", "speedup (×)", TTA_COL_NUMBER, 2, 0},
    [C_TARGET_CHANGED] = {"target_changed", "new target", TTA_COL_BOOL, 0, 0},
    [C_LOGS_URL] = TTA_LOGS_URL_COLUMN,
    [C_DESCRIPTION_URL] = TTA_DESCRIPTION_URL_COLUMN,
};

/* A target of entry e (a rule's) in the common quality scale (units.h). */
static double common_target(const tta_entry_data *e, double target) {
    tta_quality_view v = tta_entry_quality(e);
    return tta_quality_common(&v, target);
}

/* The cells of the entry that is a row's best (index i), ranked by r. */
static void best_cells(tta_table *t, size_t row, const lb_data *d, size_t i) {
    const tta_entry_data *e = &d->entries[i];
    const tta_entry_summary *s = &d->summary[i];
    tta_identity id = tta_entry_identity(e);
    tta_table_set_identity(t, row, &id);
    tta_table_set_published(t, row, e);
    tta_table_set_number(t, row, C_SCORE, d->score_s[i]);
    if (e->accelerator_model) tta_table_set_text(t, row, C_ACC_MODEL, e->accelerator_model);
    else tta_table_set_missing(t, row, C_ACC_MODEL, "no system description");
    if (e->accelerators > 0) {
        tta_table_set_number(t, row, C_ACC, e->accelerators);
        tta_table_set_number(t, row, C_ACC_MIN, tta_entry_accelerator_minutes(s));
    } else {
        const char *why = e->accelerators == 0 ? "no accelerator (CPU only)" : "no accelerator count in the "
                                                                               "system description";
        if (e->accelerators == 0) tta_table_set_number(t, row, C_ACC, 0);
        else tta_table_set_missing(t, row, C_ACC, why);
        tta_table_set_missing(t, row, C_ACC_MIN, why);
    }
    if (!isnan(d->energy_j[i])) tta_table_set_number(t, row, C_ENERGY_KWH, d->energy_j[i] / 3.6e6);
    else tta_table_set_missing(t, row, C_ENERGY_KWH, NULL); /* no power log: blank, nothing to explain */
    if (!isnan(e->cost_per_hour)) tta_table_set_number(t, row, C_COST_HOUR, e->cost_per_hour);
    if (!isnan(d->cost_usd[i])) tta_table_set_number(t, row, C_COST, d->cost_usd[i]);
    if (tta_entry_is_mlperf(e) && s->score.why) {
        buf b = {0};
        buf_printf(&b, "the best's score: %s", s->score.why);
        tta_table_add_note(t, row, buf_str(&b));
        buf_free(&b);
    }
    if (tta_entry_is_mlperf(e) && s->scaling_factor != 1.0) {
        buf b = {0};
        buf_printf(&b, "best score × %.4f (scaling.json: RCP normalisation)", s->scaling_factor);
        tta_table_add_note(t, row, buf_str(&b));
        buf_free(&b);
    }
}

/* Appends the row of group g ranked by r: its best, and the change from the previous round's best
 * (by the same ranking, when that round has one), each missing value with its reason. */
static void lb_row(tta_table *t, const lb_data *d, const lb_group *g, rank_by r) {
    size_t row = tta_table_add_row(t);
    tta_table_set_text(t, row, C_ROUND, g->round);
    tta_table_set_text(t, row, C_DIVISION, g->division);
    tta_table_set_text(t, row, C_BENCHMARK, g->benchmark);
    tta_table_set_text(t, row, C_RANKED, rank_keys[r]);
    tta_table_set_number(t, row, C_ENTRIES, (double)(r == RANK_TIME ? g->scored : g->costed));
    long best = g->best[r];
    if (best >= 0) {
        best_cells(t, row, d, (size_t)best);
    } else {
        const char *why = tta_entry_is_mlperf(g->rule) ? "no entry with a published score (five successful runs or "
                                                         "more, ten for some benchmarks)"
                                                       : "no entry with a successful run";
        for (int c = C_SCORE; c <= C_COST; c++) tta_table_set_missing(t, row, (size_t)c, why);
    }
    const lb_group *p = g->prev >= 0 ? &d->groups[g->prev] : NULL;
    long pb = p ? p->best[r] : -1;
    const char *why = !p ? "no earlier round of the benchmark in this division in the selection"
                      : pb < 0 ? "the previous round has no entry with a cost" : best < 0 ? "no best this round" : NULL;
    if (p) tta_table_set_text(t, row, C_PREV_ROUND, p->round);
    else tta_table_set_missing(t, row, C_PREV_ROUND, why);
    if (pb >= 0) {
        tta_table_set_number(t, row, C_PREV_SCORE, d->score_s[pb]);
        tta_table_set_number(t, row, C_PREV_ENTRY, (double)d->entries[pb].id);
    } else {
        tta_table_set_missing(t, row, C_PREV_SCORE, why);
        tta_table_set_missing(t, row, C_PREV_ENTRY, why);
    }
    if (why) {
        tta_table_set_missing(t, row, C_SPEEDUP, why);
        tta_table_set_missing(t, row, C_TARGET_CHANGED, why);
        return;
    }
    const double *v = r == RANK_TIME ? d->score_s : d->cost_usd;
    tta_table_set_number(t, row, C_SPEEDUP, v[pb] / v[best]);
    int changed = target_changed(g->rule, p->rule);
    tta_table_set_bool(t, row, C_TARGET_CHANGED, changed);
    if (r == RANK_TIME && g->resubmitted) {
        buf b = {0};
        buf_printf(&b, "the same runs as %s's best (entry %lld: equal run_start times), published again", p->round,
                   (long long)d->entries[pb].id);
        tta_table_add_note(t, row, buf_str(&b));
        buf_free(&b);
    }
    if (changed) {
        buf b = {0};
        const tta_entry_data *x = g->rule, *y = p->rule;
        buf_printf(&b, "the target changed since %s (%s %.6g, was %s %.6g): the speedup compares different tasks",
                   p->round, x->metric ? x->metric : "?", common_target(x, x->target), y->metric ? y->metric : "?",
                   common_target(y, y->target));
        tta_table_add_note(t, row, buf_str(&b));
        buf_free(&b);
    }
}

/* The leaderboard's rows: per group its best by time, and by cost where an entry of the group has
 * a cost per hour (or the previous round's had). */
static tta_table *lb_table(const lb_data *d) {
    tta_table *t = tta_table_new(lb_columns, C_COUNT);
    for (size_t k = 0; k < d->n_groups; k++) {
        const lb_group *g = &d->groups[k];
        if (!g->shown) continue;
        lb_row(t, d, g, RANK_TIME);
        if (g->costed > 0) lb_row(t, d, g, RANK_COST);
    }
    return t;
}

int tta_report_leaderboard(sqlite3 *db, const tta_filter *f, const tta_report_options *o, FILE *out, char **err) {
    lb_data d;
    if (lb_build(db, f, &d, err)) return 1;
    size_t shown = 0;
    for (size_t k = 0; k < d.n_groups; k++) shown += d.groups[k].shown;
    if (shown == 0) fprintf(stderr, "tta report leaderboard: no row: no entry matches the filters\n");
    tta_table *t = lb_table(&d);
    tta_table_write(t, (tta_out_format)o->format, out);
    tta_table_free(t);
    lb_free(&d);
    return 0;
}

int tta_leaderboard_html_section(sqlite3 *db, const tta_filter *f, buf *page, char **err) {
    lb_data d;
    if (lb_build(db, f, &d, err)) return 1;
    size_t shown = 0;
    for (size_t k = 0; k < d.n_groups; k++) shown += d.groups[k].shown;
    if (shown > 0) {
        tta_html_heading(page, "Leaderboard");
        tta_html_paragraph(page, "Per round, division and benchmark: the best score (MLPerf: the published score; "
                                 "DAWNBench: the time to the threshold) with its entry, accelerators, "
                                 "accelerator-minutes (accelerators × score), energy where power was logged, cost "
                                 "(cost per hour × time, DAWNBench) and the speedup over the previous round's best; "
                                 "rows \"by cost\" rank DAWNBench's entries by their cost to accuracy.");
        tta_table *t = lb_table(&d);
        tta_html_table(page, t, NULL);
        tta_table_free(t);
    }
    lb_free(&d);
    return 0;
}
