/* speedup.c: `tta report speedup` and `tta report scaling`: throughput speedup against TTA
 * speedup between entries of one submitter on one benchmark, and scaling with accelerators.
 *
 * Throughput is the time per unit of progress (summary.h: epochs, or millions of samples...) of the
 * successful runs; two entries are compared only when they count progress in the same unit. TTA
 * speedups come from the scores (the olympic mean of the run times, before any scaling factor). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "reports/builders.h"
#include "reports/dataset.h"
#include "reports/render.h"
#include "reports/reports.h"
#include "reports/summary.h"
#include "stats/stats.h"

/* Entries of one group: same round, division, submitter and benchmark, and the same MLPerf HPC
 * scaling (a weak-scaling entry's runs are instances trained at once: no point of a strong-scaling
 * series). */
static int same_group(const tta_entry_data *a, const tta_entry_data *b) {
    int same_scaling = a->scaling && b->scaling ? !strcmp(a->scaling, b->scaling) : a->scaling == b->scaling;
    return !strcmp(a->round, b->round) && !strcmp(a->division, b->division) &&
           !strcmp(a->submitter, b->submitter) && !strcmp(a->benchmark, b->benchmark) && same_scaling;
}

/* Two entries of one submitter, round and benchmark reach the same target: their mean progress
 * differs by a few times at most (batch sizes differ; the RCP checker bounds how fast). More than
 * PROGRESS_RATIO_LIMIT times apart, one of them counts progress otherwise than the rules read it
 * (v3.1 unet3d logs that print epoch_num in epochs where the rules read samples). */
#define PROGRESS_RATIO_LIMIT 10.0

/* The throughput speedup of s over base (the ratio of their times per unit of progress), NAN
 * with *why (static, or in *b) when the two count progress in different units, their progress
 * is too far apart to be in one unit, or a time per unit is unknown; and the TTA speedup. */
static tta_speedup pair_speedup(const tta_entry_summary *base, const tta_entry_summary *s, buf *b,
                                const char **why) {
    int comparable = tta_progress_scale_same(&base->unit, &s->unit);
    *why = "time per unit of progress unknown";
    if (!comparable) {
        buf_clear(b);
        buf_printf(b, "the two entries count progress in different units (%s, %s): not compared", base->unit.key,
                   s->unit.key);
        *why = buf_str(b);
    } else {
        double pb = base->dec.epochs_mean, ps = s->dec.epochs_mean;
        if (pb > 0 && ps > 0 && (pb > ps * PROGRESS_RATIO_LIMIT || ps > pb * PROGRESS_RATIO_LIMIT)) {
            comparable = 0;
            buf_clear(b);
            buf_printf(b, "progress %.4g and %.4g %s are %.0f× apart: one entry's logs do not count progress as the "
                       "rules read it (not compared)", pb, ps, s->unit.label, pb > ps ? pb / ps : ps / pb);
            *why = buf_str(b);
        }
    }
    return tta_speedup_of(comparable ? base->dec.tpe_mean : NAN, base->score_s, comparable ? s->dec.tpe_mean : NAN,
                          s->score_s);
}

enum {
    S_BASE_ENTRY, S_ENTRY, S_ROUND, S_DIVISION, S_SUBMITTER, S_BENCHMARK, S_BASE_SYSTEM, S_SYSTEM, S_BASE_ACC, S_ACC, S_BASE_BATCH,
    S_BATCH, S_UNIT, S_UNIT_SHORT, S_BASE_PROGRESS, S_PROGRESS, S_BASE_TPU, S_TPU, S_BASE_EPOCHS, S_EPOCHS,
    S_THROUGHPUT, S_TTA, S_GAP, S_COUNT
};

/* A row is a pair: the base's id and system beside the entry's, the rest of the identity (the
 * pair's: round, division, submitter, benchmark) once between them. */
static const tta_column speedup_columns[S_COUNT] = {
    [S_BASE_ENTRY] = {"base_entry", "base id", TTA_COL_INT, 0, TTA_FOR_ALL},
    [S_ENTRY] = TTA_ENTRY_COLUMN,
    [S_ROUND] = TTA_ROUND_COLUMN,
    [S_DIVISION] = TTA_DIVISION_COLUMN,
    [S_SUBMITTER] = TTA_SUBMITTER_COLUMN,
    [S_BENCHMARK] = TTA_BENCHMARK_COLUMN,
    [S_BASE_SYSTEM] = {"base_system", "base system", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [S_SYSTEM] = TTA_SYSTEM_COLUMN,
    [S_BASE_ACC] = {"base_accelerators", "base accel", TTA_COL_INT, 0, TTA_FOR_ALL},
    [S_ACC] = {"accelerators", "accel", TTA_COL_INT, 0, TTA_FOR_ALL},
    [S_BASE_BATCH] = {"base_global_batch_size", "base batch", TTA_COL_INT, 0, TTA_FOR_SCRIPTS},
    [S_BATCH] = {"global_batch_size", "batch", TTA_COL_INT, 0, TTA_FOR_SCRIPTS},
    /* progress and time per unit of progress, each in its entry's unit (the pair's, when they agree) */
    [S_UNIT] = {"progress_unit", "unit", TTA_COL_TEXT, 0, TTA_FOR_SCRIPTS},
    [S_UNIT_SHORT] = {"unit_short", "unit", TTA_COL_TEXT, 0, TTA_FOR_PEOPLE},
    [S_BASE_PROGRESS] = {"base_progress", "base prog", TTA_COL_NUMBER, 2, TTA_FOR_ALL},
    [S_PROGRESS] = {"progress", "progress", TTA_COL_NUMBER, 2, TTA_FOR_ALL},
    [S_BASE_TPU] = {"base_time_per_unit_s", "base s/unit", TTA_COL_SECONDS, 1, TTA_FOR_SCRIPTS},
    [S_TPU] = {"time_per_unit_s", "s/unit", TTA_COL_SECONDS, 1, TTA_FOR_SCRIPTS},
    /* the same in epochs where both count epochs */
    [S_BASE_EPOCHS] = {"base_epochs", "base ep", TTA_COL_NUMBER, 1, TTA_FOR_SCRIPTS},
    [S_EPOCHS] = {"epochs", "epochs", TTA_COL_NUMBER, 1, TTA_FOR_SCRIPTS},
    [S_THROUGHPUT] = {"throughput_speedup", "thr ×", TTA_COL_NUMBER, 2, TTA_FOR_ALL},
    [S_TTA] = {"tta_speedup", "tta ×", TTA_COL_NUMBER, 2, TTA_FOR_ALL},
    [S_GAP] = {"gap", "gap", TTA_COL_NUMBER, 2, TTA_FOR_ALL},
};

/* Is a the base of the pair (a, b)? Fewer accelerators; where unknown, the longer time per unit of
 * progress (in one unit). */
static int is_base(const tta_entry_summary *a, const tta_entry_summary *b) {
    int aa = a->entry->accelerators, ba = b->entry->accelerators;
    if (aa > 0 && ba > 0 && aa != ba) return aa < ba;
    double at = a->dec.tpe_mean, bt = b->dec.tpe_mean;
    if (tta_progress_scale_same(&a->unit, &b->unit) && !isnan(at) && !isnan(bt) && at != bt) return at > bt;
    return strcmp(a->entry->system, b->entry->system) < 0;
}

static void speedup_row(tta_table *t, const tta_entry_summary *base, const tta_entry_summary *s) {
    size_t row = tta_table_add_row(t);
    const tta_entry_data *e = s->entry;
    tta_identity id = tta_entry_identity(e);
    tta_table_set_identity(t, row, &id);
    tta_table_note_flags(t, row, e, NULL);
    tta_table_set_number(t, row, S_BASE_ENTRY, (double)base->entry->id);
    tta_table_set_text(t, row, S_BASE_SYSTEM, base->entry->system);
    tta_table_set_number_or(t, row, S_BASE_ACC, base->entry->accelerators >= 0 ? base->entry->accelerators : NAN,
              "no system description");
    tta_table_set_number_or(t, row, S_ACC, e->accelerators >= 0 ? e->accelerators : NAN, "no system description");
    tta_table_set_number_or(t, row, S_BASE_BATCH, base->batch, "batch size not logged");
    tta_table_set_number_or(t, row, S_BATCH, s->batch, "batch size not logged");
    const char *why;
    buf wb = {0};
    tta_speedup sp = pair_speedup(base, s, &wb, &why);
    if (tta_progress_scale_same(&base->unit, &s->unit)) {
        tta_table_set_text(t, row, S_UNIT, s->unit.key);
        tta_table_set_text(t, row, S_UNIT_SHORT, s->unit.label);
    } else {
        tta_table_set_missing(t, row, S_UNIT, why);
        tta_table_set_missing(t, row, S_UNIT_SHORT, why);
    }
    static const char unknown[] = "progress to target unknown";
    tta_table_set_number_or(t, row, S_BASE_PROGRESS, base->dec.epochs_mean, unknown);
    tta_table_set_number_or(t, row, S_PROGRESS, s->dec.epochs_mean, unknown);
    tta_table_set_number_or(t, row, S_BASE_TPU, base->dec.tpe_mean, "time per unit of progress unknown");
    tta_table_set_number_or(t, row, S_TPU, s->dec.tpe_mean, "time per unit of progress unknown");
    static const char not_epochs[] = "progress is not counted in epochs (see progress_unit)";
    tta_table_set_number_or(t, row, S_BASE_EPOCHS, base->unit.epochs ? base->dec.epochs_mean : NAN,
                            base->unit.epochs ? unknown : not_epochs);
    tta_table_set_number_or(t, row, S_EPOCHS, s->unit.epochs ? s->dec.epochs_mean : NAN,
                            s->unit.epochs ? unknown : not_epochs);
    tta_table_set_number_or(t, row, S_THROUGHPUT, sp.throughput_speedup, why);
    tta_table_set_number_or(t, row, S_TTA, sp.tta_speedup, "no score");
    tta_table_set_number_or(t, row, S_GAP, sp.gap, "needs both speedups");
    buf_free(&wb);
}

static tta_entry_summary *summarize_all(const tta_entry_data *e, size_t n) {
    tta_entry_summary *s = callocCheck(n ? n : 1, sizeof *s);
    for (size_t i = 0; i < n; i++) tta_summarize_entry(&e[i], &s[i], 0);
    return s;
}

/* Calls fn(base, other, ctx) for every pair of entries of one group, base first. */
static void each_pair(const tta_entry_summary *s, size_t n,
                      void (*fn)(const tta_entry_summary *, const tta_entry_summary *, void *), void *ctx) {
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            if (!same_group(s[i].entry, s[j].entry)) continue;
            if (is_base(&s[i], &s[j])) fn(&s[i], &s[j], ctx);
            else fn(&s[j], &s[i], ctx);
        }
}

static void add_speedup_row(const tta_entry_summary *base, const tta_entry_summary *s, void *t) {
    speedup_row(t, base, s);
}

tta_table *tta_speedup_table(const tta_entry_data *e, size_t n) {
    tta_entry_summary *s = summarize_all(e, n);
    tta_table *t = tta_table_new(speedup_columns, S_COUNT);
    /* On a narrow terminal the progress of the pair gives way before the names do. */
    tta_table_set_fit(t, S_UNIT_SHORT, 0, 1);
    tta_table_set_fit(t, S_BASE_PROGRESS, 0, 1);
    tta_table_set_fit(t, S_PROGRESS, 0, 1);
    each_pair(s, n, add_speedup_row, t);
    free(s);
    return t;
}

typedef struct {
    char **names;
    double *values; /* [pair * 2 + {throughput, tta}] */
    size_t n, cap;
} speedup_bars;

static void add_speedup_bar(const tta_entry_summary *base, const tta_entry_summary *s, void *ctx) {
    speedup_bars *b = ctx;
    const char *why;
    buf wb = {0};
    tta_speedup sp = pair_speedup(base, s, &wb, &why);
    buf_free(&wb);
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 16;
        b->names = reallocCheck(b->names, b->cap * sizeof *b->names);
        b->values = reallocCheck(b->values, b->cap * 2 * sizeof *b->values);
    }
    buf name = {0};
    buf_printf(&name, "%s → %s (%s)", base->entry->system, s->entry->system, s->entry->benchmark);
    b->names[b->n] = buf_take(&name);
    b->values[b->n * 2] = sp.throughput_speedup;
    b->values[b->n * 2 + 1] = sp.tta_speedup;
    b->n++;
}

/* More pairs than this are drawn as points, not bars: the bars' labels would no longer be read. */
#define SPEEDUP_BARS_MAX 12

/* The pairs as points: TTA speedup against throughput speedup (log2 axes), with the line where
 * they are equal (a pair below it gained less in TTA than in throughput). */
static void speedup_scatter(const tta_entry_data *e, size_t n, const speedup_bars *b, buf *svg) {
    double *x = mallocCheck((b->n ? b->n : 1) * sizeof *x), *y = mallocCheck((b->n ? b->n : 1) * sizeof *y);
    double lo = INFINITY, hi = 0;
    for (size_t i = 0; i < b->n; i++) {
        x[i] = b->values[i * 2];
        y[i] = b->values[i * 2 + 1];
        for (int k = 0; k < 2; k++) {
            double v = k ? y[i] : x[i];
            if (v > 0 && v < lo) lo = v;
            if (v > 0 && v > hi) hi = v;
        }
    }
    if (!(lo < hi)) lo = 0.5, hi = 2;
    double dx[2] = {lo, hi}, dy[2] = {lo, hi};
    tta_series series[2] = {
        {"a pair of entries", x, y, b->n, NULL, NULL, TTA_MARK_POINTS, 0, 0},
        {"TTA speedup = throughput speedup", dx, dy, 2, NULL, NULL, TTA_MARK_LINE, 1, 1},
    };
    buf title = {0}, what = {0};
    buf_printf(&what, "TTA speedup against throughput speedup, %zu pairs", b->n);
    tta_plot_title(&title, e, n, buf_str(&what));
    tta_xy_plot p = {.title = buf_str(&title), .x = {.label = "throughput speedup over the base (×, log scale)",
                     .scale = TTA_AXIS_LOG2}, .y = {.label = "TTA speedup over the base (×, log scale)",
                     .scale = TTA_AXIS_LOG2}, .series = series, .n_series = 2};
    tta_svg_xy(svg, &p);
    buf_free(&title);
    buf_free(&what);
    free(x);
    free(y);
}

void tta_speedup_plot(const tta_entry_data *e, size_t n, const tta_report_options *o, buf *svg) {
    (void)o; /* no option changes this plot */
    tta_entry_summary *s = summarize_all(e, n);
    speedup_bars b = {0};
    each_pair(s, n, add_speedup_bar, &b);
    if (b.n > SPEEDUP_BARS_MAX) {
        speedup_scatter(e, n, &b, svg);
        for (size_t i = 0; i < b.n; i++) free(b.names[i]);
        free(b.names);
        free(b.values);
        free(s);
        return;
    }
    static const char *const series[] = {"throughput speedup", "TTA speedup"};
    tta_hline one = {1.0, "no speedup"};
    buf title = {0};
    tta_plot_title(&title, e, n, "throughput speedup against TTA speedup");
    tta_bar_plot p = {.title = buf_str(&title), .y = {.label = "speedup over the base (×)",
                      .include_zero = 1}, .categories = (const char *const *)b.names, .n_categories = b.n,
                      .series_names = series, .n_series = 2, .values = b.values, .label_values = 1,
                      .value_decimals = 1, .value_suffix = "×", .hlines = &one, .n_hlines = 1};
    tta_svg_bars(svg, &p);
    buf_free(&title);
    for (size_t i = 0; i < b.n; i++) free(b.names[i]);
    free(b.names);
    free(b.values);
    free(s);
}

/* A finisher (builders.h) that writes nothing to the table: when the speedup report has no row,
 * it says why in one line on stderr. */
int tta_speedup_explain(sqlite3 *db, const tta_entry_data *e, size_t n, tta_table *t, int format, char **err) {
    (void)db;
    (void)format;
    (void)err;
    if (tta_table_rows(t) > 0) return 0;
    if (n == 0)
        fprintf(stderr, "tta report speedup: no pairs: no entry matches the filters\n");
    else
        fprintf(stderr, "tta report speedup: no pairs: none of the %zu entries has another of the same round, division, "
                "submitter and benchmark to compare with\n", n);
    return 0;
}

enum {
    K_BASE_ENTRY, K_ENTRY, K_ROUND, K_DIVISION, K_SUBMITTER, K_BENCHMARK, K_BASE, K_SYSTEM, K_ACC, K_UNIT, K_UNIT_SHORT, K_TPU, K_TPE,
    K_SCORE, K_SPEEDUP_TPE, K_SPEEDUP_TTA, K_EFF_TPE, K_EFF_TTA, K_COUNT
};

/* As speedup's: the series' base beside each member, the series' identity once between them. */
static const tta_column scaling_columns[K_COUNT] = {
    [K_BASE_ENTRY] = {"base_entry", "base id", TTA_COL_INT, 0, TTA_FOR_ALL},
    [K_ENTRY] = TTA_ENTRY_COLUMN,
    [K_ROUND] = TTA_ROUND_COLUMN,
    [K_DIVISION] = TTA_DIVISION_COLUMN,
    [K_SUBMITTER] = TTA_SUBMITTER_COLUMN,
    [K_BENCHMARK] = TTA_BENCHMARK_COLUMN,
    [K_BASE] = {"base_system", "series base", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [K_SYSTEM] = TTA_SYSTEM_COLUMN,
    [K_ACC] = {"accelerators", "accel", TTA_COL_INT, 0, TTA_FOR_ALL},
    [K_UNIT] = {"progress_unit", "unit", TTA_COL_TEXT, 0, TTA_FOR_SCRIPTS},
    [K_UNIT_SHORT] = {"unit_short", "unit", TTA_COL_TEXT, 0, TTA_FOR_PEOPLE},
    [K_TPU] = {"time_per_unit_mean_s", "s/unit", TTA_COL_SECONDS, 1, TTA_FOR_ALL},
    [K_TPE] = {"tpe_mean_s", "s/epoch", TTA_COL_SECONDS, 1, TTA_FOR_SCRIPTS}, /* where the unit is epochs */
    [K_SCORE] = {"score_s", "tta (min)", TTA_COL_MINUTES, 2, TTA_FOR_ALL},
    /* the throughput speedup: the ratio of the times per unit of progress (the key is older than units) */
    [K_SPEEDUP_TPE] = {"speedup_tpe", "thr ×", TTA_COL_NUMBER, 2, TTA_FOR_ALL},
    [K_SPEEDUP_TTA] = {"speedup_tta", "tta ×", TTA_COL_NUMBER, 2, TTA_FOR_ALL},
    [K_EFF_TPE] = {"efficiency_tpe", "thr eff (%)", TTA_COL_PERCENT, 0, TTA_FOR_ALL},
    [K_EFF_TTA] = {"efficiency_tta", "tta eff (%)", TTA_COL_PERCENT, 0, TTA_FOR_ALL},
};

/* A scaling series also keeps to one kind of accelerator: DGX-1 (V100) and DGX A100 systems of
 * one submitter are two series, not one. */
static int same_series(const tta_entry_data *a, const tta_entry_data *b) {
    if (!same_group(a, b)) return 0;
    if (a->accelerator_model && b->accelerator_model) return !strcmp(a->accelerator_model, b->accelerator_model);
    return 1;
}

/* A series' members in the order people read a series: its base first, then by accelerators
 * (unknown counts last), ties in the entries' order. */
typedef struct {
    const tta_entry_data *e;
    size_t base;
} member_order;

static int compare_members(const void *pa, const void *pb, void *ctx) {
    const member_order *o = ctx;
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    if ((a == o->base) != (b == o->base)) return a == o->base ? -1 : 1;
    int x = o->e[a].accelerators, y = o->e[b].accelerators;
    if ((x <= 0) != (y <= 0)) return x <= 0 ? 1 : -1;
    if (x != y) return x < y ? -1 : 1;
    return (a > b) - (a < b);
}

/* Calls fn(base index, member index, ctx) for every member of every scaling series (two
 * entries or more, base = fewest accelerators, fastest among ties), the base first and then by
 * accelerators (compare_members). */
static void each_series_member(const tta_entry_data *e, const tta_entry_summary *s, size_t n,
                               void (*fn)(size_t base, size_t j, size_t series, void *), void *ctx) {
    int *done = callocCheck(n ? n : 1, sizeof *done);
    size_t series = 0;
    for (size_t i = 0; i < n; i++) {
        if (done[i]) continue;
        size_t members = 0, base = n;
        for (size_t j = i; j < n; j++) {
            if (!same_series(&e[i], &e[j])) continue;
            done[j] = 1;
            members++;
            if (e[j].accelerators <= 0) continue;
            if (base == n || e[j].accelerators < e[base].accelerators ||
                (e[j].accelerators == e[base].accelerators && s[j].score_s < s[base].score_s))
                base = j;
        }
        if (members < 2 || base == n) continue;
        size_t *order = mallocCheck(members * sizeof *order), m = 0;
        for (size_t j = i; j < n; j++)
            if (same_series(&e[i], &e[j])) order[m++] = j;
        member_order mo = {e, base};
        qsort_r(order, m, sizeof *order, compare_members, &mo);
        for (size_t k = 0; k < m; k++) fn(base, order[k], series, ctx);
        free(order);
        series++;
    }
    free(done);
}

typedef struct {
    const tta_entry_data *e;
    const tta_entry_summary *s;
    tta_table *t;
} scaling_ctx;

static void add_scaling_row(size_t base, size_t j, size_t series, void *ctx) {
    scaling_ctx *c = ctx;
    const tta_entry_data *e = c->e;
    const tta_entry_summary *s = c->s;
    tta_table *t = c->t;
    (void)series;
    size_t row = tta_table_add_row(t);
    tta_identity id = tta_entry_identity(&e[j]);
    tta_table_set_identity(t, row, &id);
    tta_table_note_flags(t, row, &e[j], NULL);
    tta_table_set_number(t, row, K_BASE_ENTRY, (double)e[base].id);
    tta_table_set_text(t, row, K_BASE, e[base].system);
    tta_table_set_number_or(t, row, K_ACC, e[j].accelerators > 0 ? e[j].accelerators : NAN,
              "accelerator count unknown: not in the series");
    tta_table_set_text(t, row, K_UNIT, s[j].unit.key);
    tta_table_set_text(t, row, K_UNIT_SHORT, s[j].unit.label);
    tta_table_set_number_or(t, row, K_TPU, s[j].dec.tpe_mean, "time per unit of progress unknown");
    tta_table_set_number_or(t, row, K_TPE, s[j].unit.epochs ? s[j].dec.tpe_mean : NAN,
                            s[j].unit.epochs ? "time per epoch unknown"
                                             : "progress is not counted in epochs (see progress_unit)");
    tta_table_set_number_or(t, row, K_SCORE, s[j].score_s, "no score");
    const char *why;
    buf wb = {0};
    tta_speedup sp = pair_speedup(&s[base], &s[j], &wb, &why);
    tta_table_set_number_or(t, row, K_SPEEDUP_TPE, sp.throughput_speedup, why);
    buf_free(&wb);
    tta_table_set_number_or(t, row, K_SPEEDUP_TTA, sp.tta_speedup, "no score");
    double acc = e[j].accelerators > 0 ? e[j].accelerators : NAN;
    tta_table_set_number_or(t, row, K_EFF_TPE, tta_scaling_efficiency(sp.throughput_speedup, e[base].accelerators, acc),
              "needs the speedup and the accelerator count");
    tta_table_set_number_or(t, row, K_EFF_TTA, tta_scaling_efficiency(sp.tta_speedup, e[base].accelerators, acc),
              "needs the speedup and the accelerator count");
}

tta_table *tta_scaling_table(const tta_entry_data *e, size_t n) {
    tta_entry_summary *s = summarize_all(e, n);
    scaling_ctx c = {e, s, tta_table_new(scaling_columns, K_COUNT)};
    /* On a narrow terminal the time per unit gives way before the names and speedups do. */
    tta_table_set_fit(c.t, K_UNIT_SHORT, 0, 1);
    tta_table_set_fit(c.t, K_TPU, 0, 1);
    each_series_member(e, s, n, add_scaling_row, &c);
    free(s);
    return c.t;
}

typedef struct {
    const tta_entry_data *e;
    const tta_entry_summary *s;
    /* per series: accelerators and the two speedups, in member order */
    double *x, *y_tpe, *y_tta;
    size_t *series_of;
    size_t *base_of; /* per series: its base entry (n entries allocated) */
    size_t n, cap, n_series;
} scaling_points;

static void add_scaling_point(size_t base, size_t j, size_t series, void *ctx) {
    scaling_points *p = ctx;
    if (p->e[j].accelerators <= 0) return;
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 32;
        p->x = reallocCheck(p->x, p->cap * sizeof *p->x);
        p->y_tpe = reallocCheck(p->y_tpe, p->cap * sizeof *p->y_tpe);
        p->y_tta = reallocCheck(p->y_tta, p->cap * sizeof *p->y_tta);
        p->series_of = reallocCheck(p->series_of, p->cap * sizeof *p->series_of);
    }
    const char *why;
    buf wb = {0};
    tta_speedup sp = pair_speedup(&p->s[base], &p->s[j], &wb, &why);
    buf_free(&wb);
    /* speedups over the base, against accelerators relative to the base */
    p->x[p->n] = (double)p->e[j].accelerators / (double)p->e[base].accelerators;
    p->y_tpe[p->n] = sp.throughput_speedup;
    p->y_tta[p->n] = sp.tta_speedup;
    p->series_of[p->n] = series;
    p->n++;
    p->base_of[series] = base;
    if (series + 1 > p->n_series) p->n_series = series + 1;
}

static int compare_by_x(const void *a, const void *b, void *ctx) {
    const double *x = ctx;
    double u = x[*(const size_t *)a], v = x[*(const size_t *)b];
    return (u > v) - (u < v);
}

void tta_scaling_plot(const tta_entry_data *e, size_t n, const tta_report_options *o, buf *svg) {
    (void)o; /* no option changes this plot */
    tta_entry_summary *s = summarize_all(e, n);
    scaling_points p = {.e = e, .s = s, .base_of = callocCheck(n ? n : 1, sizeof(size_t))};
    each_series_member(e, s, n, add_scaling_point, &p);
    /* Two series per scaling series (time per unit of progress, TTA), points ordered by accelerators, plus
     * the ideal line. */
    tta_series *series = callocCheck(p.n_series * 2 + 1, sizeof *series);
    double *xs = mallocCheck((p.n + 1) * sizeof *xs), *ya = mallocCheck((p.n + 1) * sizeof *ya);
    double *yb = mallocCheck((p.n + 1) * sizeof *yb);
    char **names = callocCheck(p.n_series * 2 + 1, sizeof *names);
    size_t k = 0, ns = 0;
    double xmax = 1;
    for (size_t q = 0; q < p.n_series; q++) {
        size_t start = k;
        size_t *idx = mallocCheck((p.n + 1) * sizeof *idx), m = 0;
        for (size_t i = 0; i < p.n; i++)
            if (p.series_of[i] == q) idx[m++] = i;
        qsort_r(idx, m, sizeof *idx, compare_by_x, p.x);
        for (size_t i = 0; i < m; i++) {
            xs[k] = p.x[idx[i]];
            ya[k] = p.y_tpe[idx[i]];
            yb[k] = p.y_tta[idx[i]];
            if (xs[k] > xmax) xmax = xs[k];
            k++;
        }
        free(idx);
        const tta_entry_data *b0 = &e[p.base_of[q]];
        buf a = {0}, b = {0};
        buf_printf(&a, "%s %s from %s: time per unit (%s)", b0->submitter, b0->benchmark, b0->system,
                   p.s[p.base_of[q]].unit.label);
        buf_printf(&b, "%s %s from %s: TTA", b0->submitter, b0->benchmark, b0->system);
        names[ns] = buf_take(&a);
        series[ns] = (tta_series){names[ns], xs + start, ya + start, k - start, NULL, NULL, TTA_MARK_LINE_POINTS, 0, 1};
        ns++;
        names[ns] = buf_take(&b);
        series[ns] = (tta_series){names[ns], xs + start, yb + start, k - start, NULL, NULL, TTA_MARK_LINE_POINTS, 0, 0};
        ns++;
    }
    double ideal_x[2] = {1, xmax}, ideal_y[2] = {1, xmax};
    series[ns++] = (tta_series){"ideal (linear)", ideal_x, ideal_y, 2, NULL, NULL, TTA_MARK_LINE, 1, 1};
    buf title = {0};
    tta_plot_title(&title, e, n, "speedup over each series' smallest system");
    tta_xy_plot plot = {.title = buf_str(&title),
                        .x = {.label = "accelerators / base accelerators", .scale = TTA_AXIS_LOG2},
                        .y = {.label = "speedup over the base (×)", .scale = TTA_AXIS_LOG2},
                        .series = series, .n_series = ns};
    tta_svg_xy(svg, &plot);
    buf_free(&title);
    for (size_t i = 0; i < ns; i++) free(names[i]);
    free(names);
    free(series);
    free(xs);
    free(ya);
    free(yb);
    free(p.x);
    free(p.y_tpe);
    free(p.y_tta);
    free(p.series_of);
    free(p.base_of);
    free(s);
}

/* A finisher (builders.h) that writes nothing to the table: when the scaling report has no row,
 * it says why in one line on stderr. */
int tta_scaling_explain(sqlite3 *db, const tta_entry_data *e, size_t n, tta_table *t, int format, char **err) {
    (void)db;
    (void)format;
    (void)err;
    if (tta_table_rows(t) > 0) return 0;
    if (n == 0)
        fprintf(stderr, "tta report scaling: no series: no entry matches the filters\n");
    else
        fprintf(stderr, "tta report scaling: no series: none of the %zu entries has another of the same round, division, "
                "submitter, benchmark and accelerator model, with a known accelerator count\n", n);
    return 0;
}
