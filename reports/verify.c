/* verify.c: `tta verify`'s comparison of a claim with its replays (contract: reports/reports.h). */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "reports/dataset.h"
#include "reports/render.h"
#include "reports/reports.h"
#include "reports/units.h"
#include "stats/stats.h"

void tta_verify_add(tta_verify_sample *s, double x) {
    assert(s);
    if (isnan(x) || s->n >= TTA_VERIFY_MAX_RUNS) return;
    s->v[s->n++] = x;
}

void tta_verify_curve_side(const tta_run_data *const *runs, size_t n, double scale, double threshold, int at_epoch,
                           const double *unseen, const double *shifted, tta_verify_side *out) {
    assert(out && (n == 0 || (runs && unseen && shifted)));
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < n && i < TTA_VERIFY_MAX_RUNS; i++) {
        const tta_run_data *r = runs[i];
        if (r->n_curve == 0) continue;
        out->runs++;
        const tta_curve_point *last = &r->curve[r->n_curve - 1], *at = NULL, *met = NULL;
        for (size_t k = 0; k < r->n_curve; k++) {
            const tta_curve_point *p = &r->curve[k];
            if (!met && p->quality * scale >= threshold * (1 - 1e-6)) met = p;
            if (at_epoch > 0 && !isnan(p->epoch) && (int)lround(p->epoch) == at_epoch) at = p;
        }
        if (at_epoch == 0) at = last;
        if (at_epoch < 0) at = met;
        if (!isnan(last->epoch) && (int)lround(last->epoch) > out->last_epoch) out->last_epoch = (int)lround(last->epoch);
        if (met) {
            out->reached++;
            tta_verify_add(&out->epochs, met->epoch);
            tta_verify_add(&out->tta_s, met->time_s);
        }
        if (at) {
            tta_verify_add(&out->val, at->quality * scale);
            if (!isnan(at->epoch) && at->epoch > 0) tta_verify_add(&out->s_per_epoch, at->time_s / at->epoch);
        }
        double u = unseen[i];
        if (!isnan(u) && u > 1) u /= 100;
        tta_verify_add(&out->unseen, u);
        tta_verify_add(&out->shifted, shifted[i]);
        tta_verify_add(&out->gap, last->quality * scale - u);
    }
}

int tta_verify_claim_side(sqlite3 *db, const tta_entry_data *e, double threshold, int at_epoch,
                          tta_verify_side *out, tta_error *err) {
    assert(db && e && out);
    /* to fractions, the common scale of accuracies (units.h): DAWNBench's are percentages */
    double scale = 1.0 / tta_entry_quality(e).divisor;
    size_t n = e->n_runs < TTA_VERIFY_MAX_RUNS ? e->n_runs : TTA_VERIFY_MAX_RUNS;
    const tta_run_data *runs[TTA_VERIFY_MAX_RUNS];
    double unseen[TTA_VERIFY_MAX_RUNS], shifted[TTA_VERIFY_MAX_RUNS];
    for (size_t i = 0; i < n; i++) {
        runs[i] = &e->runs[i];
        shifted[i] = NAN; /* a DAWNBench claim has none */
        int rc = tta_db_run_number(db, e->runs[i].id, "unseenAccuracy", &unseen[i], err);
        if (rc != TTA_OK) return rc;
    }
    tta_verify_curve_side(runs, n, scale, threshold, at_epoch, unseen, shifted, out);
    if (out->runs == 0)
        return tta_fail(err, TTA_EINPUT, "entry %lld has no evaluations to compare with (no per-epoch accuracy)",
                        (long long)e->id);
    return TTA_OK;
}

/* Welch's p of the two samples, NAN with *why when there is none. */
static double welch_p(const tta_verify_sample *a, const tta_verify_sample *b, const char **why) {
    *why = NULL;
    if (a->n == 0 || b->n == 0) {
        *why = a->n == 0 ? "no test: none claimed" : "no test: no replay value";
        return NAN;
    }
    if (a->n < 2 || b->n < 2) {
        *why = "no test: < 2 runs on a side";
        return NAN;
    }
    tta_welch w = tta_welch_test(a->v, a->n, b->v, b->n);
    if (isnan(w.p)) *why = w.why ? w.why : "no test: not computable";
    return w.p;
}

/* Whether two samples differ: 1 (Welch p < 0.05, or both without spread and unequal), 0 (they
 * do not: p >= 0.05, or both without spread and equal, where Welch's t is undefined), -1 untested
 * (fewer than 2 values on a side). */
static int samples_differ(const tta_verify_sample *a, const tta_verify_sample *b) {
    const char *why;
    if (a->n < 2 || b->n < 2) return -1;
    double p = welch_p(a, b, &why);
    if (!isnan(p)) return p < 0.05;
    double ma = tta_mean(a->v, a->n), mb = tta_mean(b->v, b->n);
    return fabs(ma - mb) > 1e-9 * fmax(1, fmax(fabs(ma), fabs(mb)));
}

/* The claim's earliest epoch at the threshold (its runs' smallest), 0 when no claimed run reached it. */
static int claim_first_epoch(const tta_verify_side *claim) {
    double m = INFINITY;
    for (size_t i = 0; i < claim->epochs.n; i++) m = fmin(m, claim->epochs.v[i]);
    return isinf(m) ? 0 : (int)lround(m);
}

const char *tta_verify_verdict(const tta_verify_context *c, const tta_verify_side *claim,
                               const tta_verify_side *replay, char *text, size_t len) {
    assert(c && claim && replay && text && len > 0);
    const char *v = NULL;
    int claimed = claim_first_epoch(claim);
    if (replay->runs == 0) {
        v = "not verified: no replay finished";
    } else if (c->epoch_cap > 0 && replay->reached < replay->runs && claimed > c->epoch_cap) {
        /* a replay stopped before the claim's own epochs to the threshold says nothing about them */
        snprintf(text, len, "inconclusive: capped at epoch %d, the claim reached the target at epoch %d", c->epoch_cap,
                 claimed);
        return text;
    } else if (replay->reached == 0) {
        v = "not reproduced: no replay reached the threshold";
    }
    if (v) {
        snprintf(text, len, "%s", v);
        return text;
    }
    int de = samples_differ(&claim->epochs, &replay->epochs), dv = samples_differ(&claim->val, &replay->val);
    int du = c->stop_at_target ? -1 : samples_differ(&claim->unseen, &replay->unseen);
    int epochs_differ = de == 1, acc_differ = dv == 1 || du == 1;
    if (epochs_differ && acc_differ)
        v = "not reproduced: epochs to the threshold and accuracy differ from the claim's (Welch p < 0.05)";
    else if (epochs_differ)
        v = "partly reproduced: the threshold is reached, in a different number of epochs than claimed";
    else if (acc_differ)
        v = c->stop_at_target ? "partly reproduced: the accuracy at the stop differs from the claim's"
            : c->epoch_cap > 0 ? "partly reproduced: the accuracy at the compared epoch differs from the claim's"
                               : "partly reproduced: the final accuracy differs from the claim's";
    else if (replay->reached < replay->runs)
        v = "partly reproduced: some replays missed the threshold";
    else if (de < 0)
        v = "consistent with the claim, untested: fewer than 2 runs on a side";
    else
        v = c->stop_at_target ? "reproduced: every replay reached the threshold, in as many epochs as claimed"
            : c->epoch_cap > 0 ? "reproduced: as many epochs to the threshold and the same accuracy at the compared "
                                 "epoch as claimed"
                               : "reproduced: as many epochs to the threshold and the same final accuracy as claimed";
    snprintf(text, len, "%s", v);
    return text;
}

enum { C_MEASURE, C_UNIT, C_CLAIM, C_REPLAY, C_TEST, C_CM, C_CS, C_CN, C_RM, C_RS, C_RN, C_P, C_CID, C_RID, C_THRESHOLD,
       C_MODE, C_COMPARED };

/* "mean ± std (n)" in the unit people read (percent for fractions). */
static void pm_text(char *out, size_t len, const tta_verify_sample *s, int percent, int decimals) {
    if (s->n == 0) {
        snprintf(out, len, "n/a");
        return;
    }
    double k = percent ? 100 : 1, m = tta_mean(s->v, s->n) * k, sd = tta_std_population(s->v, s->n) * k;
    snprintf(out, len, "%.*f ± %.*f%s (%zu)", decimals, m, decimals, sd, percent ? "%" : "", s->n);
}

static void add_measure(tta_table *t, const tta_verify_context *c, const char *measure, const char *unit,
                        const tta_verify_sample *a, const tta_verify_sample *b, int percent, int decimals,
                        const char *claim_missing, const char *replay_missing, const char *no_test) {
    size_t r = tta_table_add_row(t);
    char txt[96];
    tta_table_set_text(t, r, C_MEASURE, measure);
    tta_table_set_text(t, r, C_UNIT, unit);
    if (a->n) {
        pm_text(txt, sizeof txt, a, percent, decimals);
        tta_table_set_text(t, r, C_CLAIM, txt);
    } else {
        tta_table_set_missing(t, r, C_CLAIM, claim_missing);
    }
    if (b->n) {
        pm_text(txt, sizeof txt, b, percent, decimals);
        tta_table_set_text(t, r, C_REPLAY, txt);
    } else {
        tta_table_set_missing(t, r, C_REPLAY, replay_missing);
    }
    tta_table_set_number_or(t, r, C_CM, tta_mean(a->v, a->n), claim_missing);
    tta_table_set_number_or(t, r, C_CS, tta_std_population(a->v, a->n), claim_missing);
    tta_table_set_number(t, r, C_CN, (double)a->n);
    tta_table_set_number_or(t, r, C_RM, tta_mean(b->v, b->n), replay_missing);
    tta_table_set_number_or(t, r, C_RS, tta_std_population(b->v, b->n), replay_missing);
    tta_table_set_number(t, r, C_RN, (double)b->n);
    const char *why = no_test;
    double p = NAN;
    if (!no_test) p = welch_p(a, b, &why);
    if (!no_test && isnan(p) && a->n >= 2 && b->n >= 2) /* Welch's t needs some spread */
        why = samples_differ(a, b) ? "no test: no spread, values differ" : "no test: no spread, same value";
    if (!isnan(p)) {
        snprintf(txt, sizeof txt, "Welch p = %.3f%s", p, p < 0.05 ? " (differs)" : "");
        tta_table_set_text(t, r, C_TEST, txt);
        tta_table_set_number(t, r, C_P, p);
    } else {
        tta_table_set_text(t, r, C_TEST, why);
        tta_table_set_missing(t, r, C_P, why);
    }
    tta_table_set_number(t, r, C_CID, (double)c->claim_entry_id);
    if (c->replay_entry_id >= 0) tta_table_set_number(t, r, C_RID, (double)c->replay_entry_id);
    else tta_table_set_missing(t, r, C_RID, "the replays were not stored");
    /* how the sides were compared, on every row: CSV rows of several comparisons stay apart */
    tta_table_set_number(t, r, C_THRESHOLD, c->threshold);
    tta_table_set_text(t, r, C_MODE, c->stop_at_target ? "stop_at_target" : "schedule");
    if (c->stop_at_target) tta_table_set_missing(t, r, C_COMPARED, NULL); /* at each run's stop */
    else tta_table_set_number(t, r, C_COMPARED, c->compared_epoch);
}

tta_table *tta_verify_table(const tta_verify_context *c, const tta_verify_side *claim, const tta_verify_side *replay) {
    assert(c && claim && replay);
    static const tta_column cols[] = {
        {"measure", "measure", TTA_COL_TEXT, 0, TTA_FOR_ALL},
        {"unit", "unit", TTA_COL_TEXT, 0, TTA_FOR_SCRIPTS},
        {"claim", "claim", TTA_COL_TEXT, 0, TTA_FOR_PEOPLE},
        {"replay", "replay here", TTA_COL_TEXT, 0, TTA_FOR_PEOPLE},
        {"test", "test", TTA_COL_TEXT, 0, TTA_FOR_ALL},
        {"claim_mean", "claim mean", TTA_COL_NUMBER, 6, TTA_FOR_SCRIPTS},
        {"claim_std", "claim std", TTA_COL_NUMBER, 6, TTA_FOR_SCRIPTS},
        {"claim_n", "claim n", TTA_COL_INT, 0, TTA_FOR_SCRIPTS},
        {"replay_mean", "replay mean", TTA_COL_NUMBER, 6, TTA_FOR_SCRIPTS},
        {"replay_std", "replay std", TTA_COL_NUMBER, 6, TTA_FOR_SCRIPTS},
        {"replay_n", "replay n", TTA_COL_INT, 0, TTA_FOR_SCRIPTS},
        {"welch_p", "Welch p", TTA_COL_NUMBER, 3, TTA_FOR_SCRIPTS},
        {"claim_entry_id", "claim id", TTA_COL_INT, 0, TTA_FOR_SCRIPTS},
        {"replay_entry_id", "replay id", TTA_COL_INT, 0, TTA_FOR_SCRIPTS},
        {"threshold", "threshold", TTA_COL_NUMBER, 6, TTA_FOR_SCRIPTS},
        {"mode", "mode", TTA_COL_TEXT, 0, TTA_FOR_SCRIPTS},
        {"compared_epoch", "compared epoch", TTA_COL_INT, 0, TTA_FOR_SCRIPTS},
    };
    tta_table *t = tta_table_new(cols, sizeof cols / sizeof cols[0]);
    /* the measures, claim, replay and test are read whole: a narrow terminal wraps or widens, never cuts them */
    for (size_t j = 0; j < 5; j++)
        if (cols[j].audience != TTA_FOR_SCRIPTS) tta_table_set_fit(t, j, 1, 0);
    char label[128];
    /* runs that reached the threshold: a count, not tested */
    tta_verify_sample cr = {0}, rr = {0};
    for (int i = 0; i < claim->runs; i++) tta_verify_add(&cr, i < claim->reached);
    for (int i = 0; i < replay->runs; i++) tta_verify_add(&rr, i < replay->reached);
    snprintf(label, sizeof label, "runs reaching %.1f%%", c->threshold * 100);
    add_measure(t, c, label, "fraction", &cr, &rr, 1, 0, "no runs", "no replay finished", "not tested (a count)");
    snprintf(label, sizeof label, "epochs to %.1f%%", c->threshold * 100);
    add_measure(t, c, label, "epochs", &claim->epochs, &replay->epochs, 0, 1, "no run reached the threshold",
                "no replay reached the threshold", NULL);
    add_measure(t, c, "TTA (s)", "s", &claim->tta_s, &replay->tta_s, 0, 1, "no run reached the threshold",
                "no replay reached the threshold",
                "not tested: other machine");
    add_measure(t, c, "time per epoch (s)", "s", &claim->s_per_epoch, &replay->s_per_epoch, 0, 2,
                "the claim gives no time", "no replay finished", "not tested: other machine");
    if (c->stop_at_target) snprintf(label, sizeof label, "validation accuracy at the stop");
    else snprintf(label, sizeof label, "validation accuracy at epoch %d", c->compared_epoch);
    add_measure(t, c, label, "fraction", &claim->val, &replay->val, 1, 2, "the claim has no evaluation there",
                "no replay finished", NULL);
    const char *not_final = NULL;
    if (c->stop_at_target)
        not_final = "not compared: claim's at its last epoch";
    else if (c->compared_epoch != c->schedule_epochs)
        not_final = "not compared: claim's at its last epoch";
    add_measure(t, c, "unseen accuracy", "fraction", &claim->unseen, &replay->unseen, 1, 2,
                "the claim gives none (misc.unseenAccuracy)", "no replay finished", not_final);
    add_measure(t, c, "shifted accuracy", "fraction", &claim->shifted, &replay->shifted, 1, 2,
                "the claim gives none", "no replay finished", NULL);
    add_measure(t, c, "generalization gap (val - unseen)", "fraction", &claim->gap, &replay->gap, 1, 2,
                "the claim gives no unseen accuracy", "no replay finished", not_final);
    return t;
}

void tta_verify_intro(const tta_verify_context *c, int runs, buf *out) {
    assert(c && out);
    buf_printf(out, "claim      %s (entry %lld)\n", c->claim_name, (long long)c->claim_entry_id);
    if (c->replay_entry_id >= 0)
        buf_printf(out, "replay     %s (entry %lld), %d run%s\n", c->replay_name ? c->replay_name : "",
                   (long long)c->replay_entry_id, runs, runs == 1 ? "" : "s");
    else
        buf_printf(out, "replay     not stored, %d run%s\n", runs, runs == 1 ? "" : "s");
    buf_printf(out, "threshold  validation top-1 >= %.1f%%\n", c->threshold * 100);
    if (c->stop_at_target)
        buf_printf(out, "mode       --stop-at-target: each replay stopped at the threshold (MLPerf); accuracies "
                        "compared at the stop\n");
    else if (c->epoch_cap > 0 && c->epoch_cap < c->schedule_epochs)
        buf_printf(out, "mode       the claim's schedule CAPPED at epoch %d of %d (--max-epochs): accuracies "
                        "compared at epoch %d\n",
                   c->compared_epoch, c->schedule_epochs, c->compared_epoch);
    else
        buf_printf(out, "mode       the claim's schedule to its last epoch (%d), as the claim ran: accuracies "
                        "compared at epoch %d\n",
                   c->schedule_epochs, c->compared_epoch);
}

void tta_verify_write(const tta_verify_context *c, const tta_verify_side *claim, const tta_verify_side *replay,
                      int format, buf *out) {
    assert(c && claim && replay && out);
    tta_table *t = tta_verify_table(c, claim, replay);
    char verdict_text[TTA_VERIFY_VERDICT_MAX];
    const char *verdict = tta_verify_verdict(c, claim, replay, verdict_text, sizeof verdict_text);
    if (format == TTA_FORMAT_JSON) {
        buf_puts(out, "{\"claim_entry_id\": ");
        buf_printf(out, "%lld, \"replay_entry_id\": ", (long long)c->claim_entry_id);
        if (c->replay_entry_id >= 0) buf_printf(out, "%lld", (long long)c->replay_entry_id);
        else buf_puts(out, "null");
        buf_puts(out, ", \"claim\": ");
        buf_json_string(out, c->claim_name, strlen(c->claim_name));
        buf_puts(out, ", \"replay\": ");
        if (c->replay_name) buf_json_string(out, c->replay_name, strlen(c->replay_name));
        else buf_puts(out, "null");
        buf_puts(out, ", \"threshold\": ");
        buf_json_number(out, c->threshold);
        buf_printf(out, ", \"mode\": \"%s\", \"compared_epoch\": ", c->stop_at_target ? "stop_at_target" : "schedule");
        if (c->stop_at_target) buf_puts(out, "null");
        else buf_printf(out, "%d", c->compared_epoch);
        buf_printf(out, ", \"schedule_epochs\": %d, \"epoch_cap\": ", c->schedule_epochs);
        if (c->epoch_cap > 0) buf_printf(out, "%d", c->epoch_cap);
        else buf_puts(out, "null");
        buf_printf(out, ", \"runs\": %d, \"rows\": ", replay->runs);
        tta_table_render(t, TTA_OUT_JSON, NULL, out);
        while (out->len && (buf_str(out)[out->len - 1] == '\n')) out->len--;
        buf_puts(out, ", \"verdict\": ");
        buf_json_string(out, verdict, strlen(verdict));
        buf_puts(out, "}\n");
    } else if (format == TTA_FORMAT_CSV) {
        tta_table_render(t, TTA_OUT_CSV, NULL, out);
    } else {
        tta_verify_intro(c, replay->runs, out);
        /* laid out for stdout, where `tta verify` and `tta report verify` write it: whole into a pipe
         * and with --wide, as every table */
        tta_text_options o = tta_text_options_for(stdout);
        tta_table_render(t, format == TTA_FORMAT_MARKDOWN ? TTA_OUT_MARKDOWN : TTA_OUT_TABLE, &o, out);
        buf_printf(out, "verdict: %s\n", verdict);
    }
    tta_table_free(t);
}

/* Contract in reports.h. */
int tta_verify_load_claim(sqlite3 *db, const char *spec, tta_entry_data **e, tta_error *err) {
    assert(db && spec && e);
    *e = NULL;
    tta_entry_data *named = NULL;
    int rc = tta_entry_load_named(db, spec, &named, err);
    if (rc != TTA_OK) return rc;
    /* the entry again, with its evaluations */
    tta_filter f = {.entry_id = named->id};
    tta_entries_free(named, 1);
    size_t n = 0;
    rc = tta_db_entries(db, &f, 1, e, &n, err);
    if (rc == TTA_OK && n != 1) rc = tta_fail(err, TTA_ENOTFOUND, "entry %lld: gone while it was read", (long long)f.entry_id);
    if (rc != TTA_OK) {
        tta_entries_free(*e, n);
        *e = NULL;
    }
    return rc;
}

/* Contract in reports.h. */
int tta_verify_claim_plan(sqlite3 *db, const tta_entry_data *e, double threshold, int stop_at_target,
                          int max_epochs, int *schedule, int *compared, tta_verify_side *claim, FILE *notes,
                          tta_error *err) {
    /* The claim's side, first at its last epochs to learn its schedule's length. */
    int rc = tta_verify_claim_side(db, e, threshold, stop_at_target ? -1 : 0, claim, err);
    if (rc != TTA_OK) return rc;
    int recipe = *schedule;
    *schedule = claim->last_epoch > 0 ? claim->last_epoch : recipe;
    if (recipe != *schedule && notes)
        fprintf(notes, "tta verify: note: the claim's learning-rate schedule ends at epoch %d, its evaluations at "
                       "epoch %d: replays run %d epochs\n",
                recipe, *schedule, *schedule);
    *compared = max_epochs > 0 && max_epochs < *schedule ? max_epochs : *schedule;
    if (!stop_at_target && *compared != claim->last_epoch &&
        (rc = tta_verify_claim_side(db, e, threshold, *compared, claim, err)) != TTA_OK)
        return rc;
    claim->last_epoch = *schedule;
    return TTA_OK;
}

/* Contract in reports.h. */
void tta_verify_replay_side(const tta_replay_result *runs, int n_runs, tta_verify_side *out) {
    memset(out, 0, sizeof *out);
    for (int i = 0; i < n_runs; i++) {
        const tta_replay_result *r = &runs[i];
        out->runs++;
        if (r->reached) {
            out->reached++;
            tta_verify_add(&out->epochs, r->target_epoch);
            tta_verify_add(&out->tta_s, r->tta_s);
        }
        if (r->epochs > 0) tta_verify_add(&out->s_per_epoch, r->wall_s / r->epochs);
        tta_verify_add(&out->val, r->val_acc);
        tta_verify_add(&out->unseen, r->unseen_acc);
        tta_verify_add(&out->shifted, r->shifted_acc);
        tta_verify_add(&out->gap, r->val_acc - r->unseen_acc);
        if (r->epochs > out->last_epoch) out->last_epoch = r->epochs;
    }
}
