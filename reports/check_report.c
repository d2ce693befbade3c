/* check_report.c: what `tta check` prints: one row per result log with its compliance verdict and
 * its first failing rule (check/check.h computes them), one row per package check of a folder, and
 * the summary line. */
#include <assert.h>
#include <stdio.h>

#include "common/buf.h"

#include "reports/reports.h"
#include "reports/builders.h"
#include "reports/render.h"

static const tta_column COLUMNS[] = {
    {"log", "log", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    {"ruleset", "ruleset", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    TTA_BENCHMARK_COLUMN,
    TTA_DIVISION_COLUMN,
    {"verdict", "verdict", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    {"failures", "failures", TTA_COL_INT, 0, TTA_FOR_ALL},
    {"rule", "first failing rule", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    {"line", "line", TTA_COL_INT, 0, TTA_FOR_SCRIPTS},
    {"where", "where", TTA_COL_TEXT, 0, TTA_FOR_PEOPLE},
    {"message", "message", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    {"config", "rule file", TTA_COL_TEXT, 0, TTA_FOR_SCRIPTS},
    {"rules", "rules", TTA_COL_TEXT, 0, TTA_FOR_SCRIPTS},
};

static const char *const VERDICTS[] = {"pass", "fail", "cannot evaluate"};

/* Writes the report. */
void tta_report_compliance(const tta_check_report *r, int format, int failing_only, FILE *out) {
    assert(r && out);
    tta_table *t = tta_table_new(COLUMNS, sizeof COLUMNS / sizeof COLUMNS[0]);
    char where[4200];
    for (size_t i = 0; i < r->n; i++) {
        const tta_check_log *l = &r->logs[i];
        if (failing_only && l->verdict == TTA_CHECK_PASS) continue;
        size_t row = tta_table_add_row(t);
        tta_table_set_text(t, row, 0, l->path);
        tta_table_set_text(t, row, 1, l->ruleset);
        tta_table_set_text(t, row, 2, l->benchmark);
        tta_table_set_text(t, row, 3, l->division);
        tta_table_set_text(t, row, 4, VERDICTS[l->verdict]);
        tta_table_set_number(t, row, 5, (double)l->n_failures);
        if (l->n_failures == 0) continue;
        const tta_check_failure *f = &l->failures[0];
        tta_table_set_text(t, row, 6, f->rule);
        if (f->line > 0) {
            tta_table_set_number(t, row, 7, (double)f->line);
            snprintf(where, sizeof where, "%s:%ld", l->path, f->line);
        } else {
            snprintf(where, sizeof where, "%s", l->path);
        }
        tta_table_set_text(t, row, 8, where);
        tta_table_set_text(t, row, 9, f->message);
        tta_table_set_text(t, row, 10, f->config);
        buf all = {0};
        for (size_t k = 0; k < l->n_failures; k++) buf_printf(&all, "%s%s", k ? " ; " : "", l->failures[k].rule);
        tta_table_set_text(t, row, 11, buf_str(&all));
        buf_free(&all);
    }
    tta_table_write(t, (tta_out_format)format, out);
    tta_table_free(t);
}

/* The summary line. */
void tta_check_summary(const tta_check_report *r, const char *source, buf *out) {
    assert(r && out);
    buf_printf(out, "tta check: %zu log%s, %zu compliant, %zu not compliant, %zu cannot be evaluated (rules: %s)",
               r->n, r->n == 1 ? "" : "s", r->n_pass, r->n_fail, r->n_unknown, source ? source : "?");
}

static const tta_column PACKAGE_COLUMNS[] = {
    {"org", "organisation", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    {"path", "path", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    {"check", "check", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    {"ruleset", "ruleset", TTA_COL_TEXT, 0, TTA_FOR_SCRIPTS},
    {"verdict", "verdict", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    {"key", "key", TTA_COL_TEXT, 0, TTA_FOR_SCRIPTS},
    {"message", "message", TTA_COL_TEXT, 0, TTA_FOR_ALL},
};

static const char *const PACKAGE_VERDICTS[] = {"pass", "warn", "fail", "cannot evaluate"};

/* Writes the package section. */
void tta_report_package(const tta_package_report *r, int format, int failing_only, FILE *out) {
    assert(r && out);
    tta_table *t = tta_table_new(PACKAGE_COLUMNS, sizeof PACKAGE_COLUMNS / sizeof PACKAGE_COLUMNS[0]);
    for (size_t i = 0; i < r->n; i++) {
        const tta_package_finding *f = &r->items[i];
        if (failing_only && f->verdict == TTA_PACKAGE_PASS) continue;
        size_t row = tta_table_add_row(t);
        tta_table_set_text(t, row, 0, f->org);
        tta_table_set_text(t, row, 1, f->path);
        tta_table_set_text(t, row, 2, f->check);
        tta_table_set_text(t, row, 3, f->ruleset);
        tta_table_set_text(t, row, 4, PACKAGE_VERDICTS[f->verdict]);
        tta_table_set_text(t, row, 5, f->key);
        tta_table_set_text(t, row, 6, f->message);
    }
    tta_table_write(t, (tta_out_format)format, out);
    tta_table_free(t);
}

/* The package part of the summary line. */
void tta_package_summary(const tta_package_report *r, buf *out) {
    assert(r && out);
    buf_printf(out, "; package: %zu check%s of %zu organisation%s, %zu pass, %zu warn, %zu fail, %zu cannot be evaluated "
                    "(rules: %s)", r->n, r->n == 1 ? "" : "s", r->n_orgs, r->n_orgs == 1 ? "" : "s", r->n_pass, r->n_warn,
               r->n_fail, r->n_unknown, tta_package_rules_source());
}
