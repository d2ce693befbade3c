/* units.c: the common quality scale and the progress unit of every report (contract in units.h). */
#include "reports/units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/replay_log.h"
#include "common/rules.h"

/* Contract in units.h. */
tta_quality_view tta_entry_quality(const tta_entry_data *e) {
    const tta_rules *rules = tta_rules_builtin();
    tta_quality_view v = {.divisor = 1, .accuracy = 0, .unit = "as logged", .metric = e->metric};
    const tta_rule *latest = tta_rules_latest(rules, e->benchmark);
    if (!v.metric && latest) v.metric = latest->metric;
    if (e->round && !strcmp(e->round, TTA_REPLAY_ROUND)) {
        /* tta's replay logs write eval_accuracy as a fraction (docs/replay.md) */
        v.accuracy = 1;
        v.unit = "fraction";
        return v;
    }
    const tta_rule *rule = tta_rules_find(rules, e->round, e->benchmark);
    if (!rule) return v;
    switch (rule->scale) {
    case TTA_SCALE_PERCENT:
        v.divisor = 100;
        /* fall through */
    case TTA_SCALE_FRACTION:
        v.accuracy = 1;
        v.unit = "fraction";
        break;
    case TTA_SCALE_BLEU:
        v.unit = "BLEU";
        break;
    case TTA_SCALE_ASIS:
        break;
    }
    return v;
}

/* Contract in units.h. */
double tta_quality_common(const tta_quality_view *v, double stored) { return stored / v->divisor; }

/* Contract in units.h. */
int tta_entries_all_accuracy(const tta_entry_data *e, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!tta_entry_quality(&e[i]).accuracy) return 0;
    return n > 0;
}

/* Contract in units.h. */
tta_column tta_quality_column(const char *key, const char *header, const char *header_percent, int decimals,
                              int all_accuracy) {
    tta_column c = {key, all_accuracy ? header_percent : header, all_accuracy ? TTA_COL_PERCENT : TTA_COL_NUMBER,
                    decimals, TTA_FOR_ALL};
    return c;
}

/* Contract in units.h. */
tta_column tta_quality_unit_column(int all_accuracy) {
    tta_column c = {"quality_unit", "q. unit", TTA_COL_TEXT, 0, all_accuracy ? TTA_FOR_SCRIPTS : TTA_FOR_ALL};
    return c;
}

/* Contract in units.h. */
void tta_quality_axis_label(const tta_entry_data *e, size_t n, char *out, size_t len, int *percent) {
    *percent = tta_entries_all_accuracy(e, n);
    tta_quality_view v = n ? tta_entry_quality(&e[0]) : (tta_quality_view){.unit = "as logged"};
    const char *metric = v.metric ? v.metric : "quality";
    if (*percent) snprintf(out, len, "%s (%%)", metric);
    else if (!strcmp(v.unit, "BLEU")) snprintf(out, len, "%s (BLEU points)", metric);
    else snprintf(out, len, "%s (as logged)", metric);
}

/* Contract in units.h. */
double tta_eval_progress(const tta_entry_data *e, const tta_progress_scale *u, const tta_curve_point *p) {
    const char *unit = e->unit ? e->unit : "epochs";
    double x = NAN;
    if (!strcmp(unit, "epochs")) {
        x = p->epoch;
    } else if (!strcmp(unit, "samples") || !strcmp(unit, "tokens")) {
        /* the count the rules read: epoch_num where they say so (gpt3 logs tokens there), else
         * samples_count; an epoch_num of a sample-counted benchmark is no count (v0.7 BERT) */
        const tta_rule *rule = e->ruleset ? tta_rules_find(tta_rules_builtin(), e->round, e->benchmark) : NULL;
        int by_epoch_num = rule && rule->progress == TTA_PROGRESS_EPOCH_NUM;
        x = by_epoch_num && !isnan(p->epoch) ? p->epoch : p->samples;
    } else if (!strcmp(unit, "steps")) {
        x = p->steps;
    }
    return isnan(x) ? NAN : x / u->divisor;
}

/* Contract in units.h. */
const char *tta_progress_unit_label(const tta_progress_scale *u) { return u->epochs ? "epochs" : u->label; }
