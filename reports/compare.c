/* compare.c: `tta report compare A B`: are two entries' TTAs really different? */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/check.h"
#include "reports/dataset.h"
#include "reports/builders.h"
#include "reports/render.h"
#include "reports/summary.h"
#include "reports/reports.h"
#include "reports/units.h"
#include "stats/stats.h"

enum {
    M_ID_A, M_ID_B, M_A, M_B, M_NA, M_NB, M_MEAN_A, M_MEAN_B, M_RATIO, M_RATIO_LOW, M_RATIO_HIGH, M_WELCH_T, M_WELCH_DF,
    M_WELCH_P, M_MWU_U, M_MWU_P, M_NEED_5, M_NEED_1, M_COUNT
};

static const tta_column compare_columns[M_COUNT] = {
    [M_ID_A] = {"id_a", "id A", TTA_COL_INT, 0, TTA_FOR_ALL},
    [M_ID_B] = {"id_b", "id B", TTA_COL_INT, 0, TTA_FOR_ALL},
    [M_A] = {"entry_a", "entry A", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [M_B] = {"entry_b", "entry B", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [M_NA] = {"runs_a", "runs A", TTA_COL_INT, 0, TTA_FOR_ALL},
    [M_NB] = {"runs_b", "runs B", TTA_COL_INT, 0, TTA_FOR_ALL},
    [M_MEAN_A] = {"tta_mean_a_s", "mean A (min)", TTA_COL_MINUTES, 2, TTA_FOR_ALL},
    [M_MEAN_B] = {"tta_mean_b_s", "mean B (min)", TTA_COL_MINUTES, 2, TTA_FOR_ALL},
    [M_RATIO] = {"ratio", "A/B", TTA_COL_NUMBER, 3, TTA_FOR_ALL},
    [M_RATIO_LOW] = {"ratio_ci_low", "95% CI low", TTA_COL_NUMBER, 3, TTA_FOR_ALL},
    [M_RATIO_HIGH] = {"ratio_ci_high", "95% CI high", TTA_COL_NUMBER, 3, TTA_FOR_ALL},
    [M_WELCH_T] = {"welch_t", "Welch t", TTA_COL_NUMBER, 2, TTA_FOR_SCRIPTS},
    [M_WELCH_DF] = {"welch_df", "df", TTA_COL_NUMBER, 1, TTA_FOR_SCRIPTS},
    [M_WELCH_P] = {"welch_p", "Welch p", TTA_COL_NUMBER, 4, TTA_FOR_ALL},
    [M_MWU_U] = {"mann_whitney_u", "U", TTA_COL_NUMBER, 1, TTA_FOR_SCRIPTS},
    [M_MWU_P] = {"mann_whitney_p", "M-W p", TTA_COL_NUMBER, 4, TTA_FOR_ALL},
    [M_NEED_5] = {"runs_needed_5pct", "runs for 5%", TTA_COL_INT, 0, TTA_FOR_ALL},
    [M_NEED_1] = {"runs_needed_1pct", "runs for 1%", TTA_COL_INT, 0, TTA_FOR_SCRIPTS},
};

#define COMPARE_SEED 20181106UL

/* The successful runs' TTAs of e; returns how many. */
static size_t successful_ttas(const tta_entry_data *e, double *out) {
    size_t k = 0;
    for (size_t i = 0; i < e->n_runs; i++) /* a time a flag says cannot be trusted is left out (noted) */
        if (tta_run_succeeded(&e->runs[i]) && !e->runs[i].time_suspect)
            out[k++] = e->runs[i].tta_s;
    return k;
}

/* 1 when a and b differ (NULL is "none", unlike any text), else 0. */
static int texts_differ(const char *a, const char *b) { return (a == NULL) != (b == NULL) || (a && strcmp(a, b)); }

/* The row's notes on what differs between two entries of one benchmark besides their runs: the
 * ruleset (the rules they ran under), the metric, the target (in the common scale, units.h), the
 * division (closed or open). */
static void note_differences(tta_table *t, size_t row, const tta_entry_data *a, const tta_entry_data *b) {
    buf n = {0};
    if (texts_differ(a->ruleset, b->ruleset)) {
        buf_printf(&n, "rulesets differ: A ran under %s, B under %s", a->ruleset ? a->ruleset : "no ruleset (its own target)",
                   b->ruleset ? b->ruleset : "no ruleset (its own target)");
        tta_table_add_note(t, row, buf_str(&n));
    }
    tta_quality_view va = tta_entry_quality(a), vb = tta_entry_quality(b);
    double ta = tta_quality_common(&va, a->target), tb = tta_quality_common(&vb, b->target);
    if (texts_differ(va.metric, vb.metric)) {
        buf_clear(&n);
        buf_printf(&n, "metrics differ: A %s, B %s", va.metric ? va.metric : "unknown", vb.metric ? vb.metric : "unknown");
        tta_table_add_note(t, row, buf_str(&n));
    }
    if (isnan(ta) != isnan(tb) || (!isnan(ta) && fabs(ta - tb) > 1e-9 * fabs(ta))) {
        buf_clear(&n);
        buf_printf(&n, "targets differ: A trains to %g, B to %g (%s): the TTAs reach different qualities", ta, tb, va.unit);
        tta_table_add_note(t, row, buf_str(&n));
    }
    if (texts_differ(a->division, b->division)) {
        buf_clear(&n);
        buf_printf(&n, "divisions differ: A %s, B %s (open entries may change the model or the rules)", a->division,
                   b->division);
        tta_table_add_note(t, row, buf_str(&n));
    }
    buf_free(&n);
}

/* Contract in builders.h. */
int tta_report_compare(sqlite3 *db, const char *a_spec, const char *b_spec, int format, FILE *out, tta_error *err) {
    tta_entry_data *ea, *eb;
    int rc = tta_entry_load_named(db, a_spec, &ea, err);
    if (rc != TTA_OK) return rc;
    rc = tta_entry_load_named(db, b_spec, &eb, err);
    if (rc != TTA_OK) {
        tta_entries_free(ea, 1);
        return rc;
    }
    if (strcmp(ea->benchmark, eb->benchmark) != 0) {
        rc = tta_fail(err, TTA_EUSAGE,
                      "entry %lld is %s and entry %lld is %s: the TTAs of different benchmarks measure different "
                      "work and are not compared (give two entries of one benchmark)",
                      (long long)ea->id, ea->benchmark, (long long)eb->id, eb->benchmark);
        tta_entries_free(ea, 1);
        tta_entries_free(eb, 1);
        return rc;
    }
    double *a = mallocCheck((ea->n_runs + 1) * sizeof *a), *b = mallocCheck((eb->n_runs + 1) * sizeof *b);
    size_t na = successful_ttas(ea, a), nb = successful_ttas(eb, b);
    tta_table *t = tta_table_new(compare_columns, M_COUNT);
    size_t row = tta_table_add_row(t);
    char *name_a = tta_entry_name(ea), *name_b = tta_entry_name(eb);
    tta_table_note_flags(t, row, ea, NULL); /* which runs are flagged; time_suspect ones are not compared */
    tta_table_note_flags(t, row, eb, NULL);
    tta_table_set_number(t, row, M_ID_A, (double)ea->id);
    tta_table_set_number(t, row, M_ID_B, (double)eb->id);
    tta_table_set_text(t, row, M_A, name_a);
    tta_table_set_text(t, row, M_B, name_b);
    tta_table_set_number(t, row, M_NA, (double)na);
    tta_table_set_number(t, row, M_NB, (double)nb);
    double ma = tta_mean(a, na), mb = tta_mean(b, nb);
    tta_table_set_number_or(t, row, M_MEAN_A, ma, "no successful run");
    tta_table_set_number_or(t, row, M_MEAN_B, mb, "no successful run");
    tta_table_set_number_or(t, row, M_RATIO, ma / mb, "no successful run");
    double lo, hi;
    tta_ratio_ci(a, na, b, nb, 2000, 0.05, COMPARE_SEED, &lo, &hi);
    tta_table_set_number_or(t, row, M_RATIO_LOW, lo, "needs runs in both entries");
    tta_table_set_number_or(t, row, M_RATIO_HIGH, hi, "needs runs in both entries");
    tta_welch w = tta_welch_test(a, na, b, nb);
    const char *few = "a t-test needs two runs or more in each entry, with some spread";
    tta_table_set_number_or(t, row, M_WELCH_T, w.t, few);
    tta_table_set_number_or(t, row, M_WELCH_DF, w.df, few);
    tta_table_set_number_or(t, row, M_WELCH_P, w.p, few);
    tta_mwu m = tta_mann_whitney(a, na, b, nb);
    tta_table_set_number_or(t, row, M_MWU_U, m.u, "needs runs in both entries");
    tta_table_set_number_or(t, row, M_MWU_P, m.p, "needs runs in both entries");
    /* Runs needed with the pooled standard deviation of both entries around their mean. */
    double sa = tta_std_sample(a, na), sb = tta_std_sample(b, nb);
    double pooled = NAN, mean = NAN;
    if (na >= 2 && nb >= 2) {
        pooled = sqrt(((double)(na - 1) * sa * sa + (double)(nb - 1) * sb * sb) / (double)(na + nb - 2));
        mean = (ma + mb) / 2;
    }
    const char *need_why = "needs two runs or more in each entry, with some spread";
    tta_table_set_number_or(t, row, M_NEED_5, tta_runs_needed(mean, pooled, 0.05, 0.05, 0.8), need_why);
    tta_table_set_number_or(t, row, M_NEED_1, tta_runs_needed(mean, pooled, 0.01, 0.05, 0.8), need_why);
    if (!isnan(w.p)) tta_table_add_note(t, row, w.p < 0.05 ? "different at alpha = 0.05 (Welch)"
                                                            : "not shown different at alpha = 0.05 (Welch)");
    note_differences(t, row, ea, eb);
    tta_table_write(t, (tta_out_format)format, out);
    tta_table_free(t);
    free(name_a);
    free(name_b);
    free(a);
    free(b);
    tta_entries_free(ea, 1);
    tta_entries_free(eb, 1);
    tta_error_clear(err);
    return TTA_OK;
}
