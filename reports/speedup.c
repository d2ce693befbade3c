/* speedup.c: `tta report speedup` and `tta report scaling`: throughput speedup against TTA
 * speedup between entries of one submitter on one benchmark, and scaling with accelerators. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "reports/dataset.h"
#include "reports/render.h"
#include "reports/reports.h"
#include "reports/summary.h"
#include "stats/stats.h"

/* Entries of one group: same round, division, submitter and benchmark. */
static int same_group(const tta_entry_data *a, const tta_entry_data *b) {
    return !strcmp(a->round, b->round) && !strcmp(a->division, b->division) &&
           !strcmp(a->submitter, b->submitter) && !strcmp(a->benchmark, b->benchmark);
}

enum {
    S_ROUND, S_DIVISION, S_SUBMITTER, S_BENCHMARK, S_BASE_SYSTEM, S_SYSTEM, S_BASE_ACC, S_ACC, S_BASE_BATCH,
    S_BATCH, S_BASE_EPOCHS, S_EPOCHS, S_THROUGHPUT, S_TTA, S_GAP, S_COUNT
};

static const tta_column speedup_columns[S_COUNT] = {
    [S_ROUND] = {"round", "round", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [S_DIVISION] = {"division", "div", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [S_SUBMITTER] = {"submitter", "submitter", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [S_BENCHMARK] = {"benchmark", "bench", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [S_BASE_SYSTEM] = {"base_system", "base system", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [S_SYSTEM] = {"system", "system", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [S_BASE_ACC] = {"base_accelerators", "base acc", TTA_COL_INT, 0, TTA_FOR_ALL},
    [S_ACC] = {"accelerators", "acc", TTA_COL_INT, 0, TTA_FOR_ALL},
    [S_BASE_BATCH] = {"base_global_batch_size", "base batch", TTA_COL_INT, 0, TTA_FOR_SCRIPTS},
    [S_BATCH] = {"global_batch_size", "batch", TTA_COL_INT, 0, TTA_FOR_SCRIPTS},
    [S_BASE_EPOCHS] = {"base_epochs", "base ep", TTA_COL_NUMBER, 1, TTA_FOR_ALL},
    [S_EPOCHS] = {"epochs", "epochs", TTA_COL_NUMBER, 1, TTA_FOR_ALL},
    [S_THROUGHPUT] = {"throughput_speedup", "thr ×", TTA_COL_NUMBER, 2, TTA_FOR_ALL},
    [S_TTA] = {"tta_speedup", "tta ×", TTA_COL_NUMBER, 2, TTA_FOR_ALL},
    [S_GAP] = {"gap", "gap", TTA_COL_NUMBER, 2, TTA_FOR_ALL},
};

static void number_or(tta_table *t, size_t row, size_t col, double v, const char *why) {
    if (isnan(v)) tta_table_set_missing(t, row, col, why);
    else tta_table_set_number(t, row, col, v);
}

/* Is a the base of the pair (a, b)? Fewer accelerators; where unknown, the longer epoch. */
static int is_base(const tta_entry_summary *a, const tta_entry_summary *b) {
    int aa = a->entry->accelerators, ba = b->entry->accelerators;
    if (aa > 0 && ba > 0 && aa != ba) return aa < ba;
    double at = a->dec.tpe_mean, bt = b->dec.tpe_mean;
    if (!isnan(at) && !isnan(bt) && at != bt) return at > bt;
    return strcmp(a->entry->system, b->entry->system) < 0;
}

static void speedup_row(tta_table *t, const tta_entry_summary *base, const tta_entry_summary *s) {
    size_t row = tta_table_add_row(t);
    const tta_entry_data *e = s->entry;
    tta_table_set_text(t, row, S_ROUND, e->round);
    tta_table_set_text(t, row, S_DIVISION, e->division);
    tta_table_set_text(t, row, S_SUBMITTER, e->submitter);
    tta_table_set_text(t, row, S_BENCHMARK, e->benchmark);
    tta_table_set_text(t, row, S_BASE_SYSTEM, base->entry->system);
    tta_table_set_text(t, row, S_SYSTEM, e->system);
    number_or(t, row, S_BASE_ACC, base->entry->accelerators >= 0 ? base->entry->accelerators : NAN,
              "no system description");
    number_or(t, row, S_ACC, e->accelerators >= 0 ? e->accelerators : NAN, "no system description");
    number_or(t, row, S_BASE_BATCH, base->batch, "batch size not logged");
    number_or(t, row, S_BATCH, s->batch, "batch size not logged");
    number_or(t, row, S_BASE_EPOCHS, base->dec.epochs_mean, "epochs to target unknown");
    number_or(t, row, S_EPOCHS, s->dec.epochs_mean, "epochs to target unknown");
    tta_speedup sp = tta_speedup_of(base->dec.tpe_mean, base->score_s, s->dec.tpe_mean, s->score_s);
    number_or(t, row, S_THROUGHPUT, sp.throughput_speedup, "time per epoch unknown");
    number_or(t, row, S_TTA, sp.tta_speedup, "no score");
    number_or(t, row, S_GAP, sp.gap, "needs both speedups");
}

static tta_entry_summary *summarize_all(const tta_entry_data *e, size_t n) {
    tta_entry_summary *s = callocCheck(n ? n : 1, sizeof *s);
    for (size_t i = 0; i < n; i++) tta_summarize_entry(&e[i], &s[i]);
    return s;
}

int tta_report_speedup(sqlite3 *db, const tta_filter *f, int format, FILE *out, char **err) {
    tta_entry_data *e;
    size_t n;
    if (tta_entries_load(db, f, 0, &e, &n, err) != SQLITE_OK) return 1;
    tta_entry_summary *s = summarize_all(e, n);
    tta_table *t = tta_table_new(speedup_columns, S_COUNT);
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            if (!same_group(&e[i], &e[j])) continue;
            if (is_base(&s[i], &s[j])) speedup_row(t, &s[i], &s[j]);
            else speedup_row(t, &s[j], &s[i]);
        }
    tta_table_write(t, (tta_out_format)format, out);
    tta_table_free(t);
    free(s);
    tta_entries_free(e, n);
    return 0;
}

enum {
    K_ROUND, K_DIVISION, K_SUBMITTER, K_BENCHMARK, K_BASE, K_SYSTEM, K_ACC, K_TPE, K_SCORE, K_SPEEDUP_TPE,
    K_SPEEDUP_TTA, K_EFF_TPE, K_EFF_TTA, K_COUNT
};

static const tta_column scaling_columns[K_COUNT] = {
    [K_ROUND] = {"round", "round", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [K_DIVISION] = {"division", "div", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [K_SUBMITTER] = {"submitter", "submitter", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [K_BENCHMARK] = {"benchmark", "bench", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [K_BASE] = {"base_system", "series base", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [K_SYSTEM] = {"system", "system", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [K_ACC] = {"accelerators", "acc", TTA_COL_INT, 0, TTA_FOR_ALL},
    [K_TPE] = {"tpe_mean_s", "s/epoch", TTA_COL_SECONDS, 1, TTA_FOR_ALL},
    [K_SCORE] = {"score_s", "tta (min)", TTA_COL_MINUTES, 2, TTA_FOR_ALL},
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

int tta_report_scaling(sqlite3 *db, const tta_filter *f, int format, FILE *out, char **err) {
    tta_entry_data *e;
    size_t n;
    if (tta_entries_load(db, f, 0, &e, &n, err) != SQLITE_OK) return 1;
    tta_entry_summary *s = summarize_all(e, n);
    tta_table *t = tta_table_new(scaling_columns, K_COUNT);
    int *done = callocCheck(n ? n : 1, sizeof *done);
    for (size_t i = 0; i < n; i++) {
        if (done[i]) continue;
        /* The series of entry i: every entry of its group; base = fewest accelerators, then
         * the fastest score among those. */
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
        for (size_t j = i; j < n; j++) {
            if (!same_series(&e[i], &e[j])) continue;
            size_t row = tta_table_add_row(t);
            tta_table_set_text(t, row, K_ROUND, e[j].round);
            tta_table_set_text(t, row, K_DIVISION, e[j].division);
            tta_table_set_text(t, row, K_SUBMITTER, e[j].submitter);
            tta_table_set_text(t, row, K_BENCHMARK, e[j].benchmark);
            tta_table_set_text(t, row, K_BASE, e[base].system);
            tta_table_set_text(t, row, K_SYSTEM, e[j].system);
            number_or(t, row, K_ACC, e[j].accelerators > 0 ? e[j].accelerators : NAN,
                      "accelerator count unknown: not in the series");
            number_or(t, row, K_TPE, s[j].dec.tpe_mean, "time per epoch unknown");
            number_or(t, row, K_SCORE, s[j].score_s, "no score");
            tta_speedup sp = tta_speedup_of(s[base].dec.tpe_mean, s[base].score_s, s[j].dec.tpe_mean, s[j].score_s);
            number_or(t, row, K_SPEEDUP_TPE, sp.throughput_speedup, "time per epoch unknown");
            number_or(t, row, K_SPEEDUP_TTA, sp.tta_speedup, "no score");
            double acc = e[j].accelerators > 0 ? e[j].accelerators : NAN;
            number_or(t, row, K_EFF_TPE, tta_scaling_efficiency(sp.throughput_speedup, e[base].accelerators, acc),
                      "needs the speedup and the accelerator count");
            number_or(t, row, K_EFF_TTA, tta_scaling_efficiency(sp.tta_speedup, e[base].accelerators, acc),
                      "needs the speedup and the accelerator count");
        }
    }
    tta_table_write(t, (tta_out_format)format, out);
    tta_table_free(t);
    free(done);
    free(s);
    tta_entries_free(e, n);
    return 0;
}
