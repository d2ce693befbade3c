/* report_run.c: the common shape of the table reports, and the HTML page that gathers them. */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/check.h"
#include "reports/builders.h"
#include "reports/energy.h"
#include "reports/reports.h"

int tta_write_file(const char *path, const buf *b, char **err) {
    FILE *f = fopen(path, "wb");
    int ok = f != NULL;
    if (ok) ok = fwrite(b->data ? b->data : "", 1, b->len, f) == b->len;
    if (f && fclose(f) != 0) ok = 0; /* closed once, whether the write failed or not */
    if (ok) return 0;
    buf e = {0};
    buf_printf(&e, "%s: cannot write: %s", path, strerror(errno));
    *err = buf_take(&e);
    return 1;
}

/* The distinct benchmarks of e, in order of first appearance; returns how many (names point
 * into e). */
static size_t distinct_benchmarks(const tta_entry_data *e, size_t n, const char **names) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < k && strcmp(names[j], e[i].benchmark)) j++;
        if (j == k) names[k++] = e[i].benchmark;
    }
    return k;
}

/* Shallow copies of the entries of one benchmark (the copies share the originals' memory and
 * are freed with free() alone). */
static tta_entry_data *entries_of(const tta_entry_data *e, size_t n, const char *benchmark, size_t *m) {
    tta_entry_data *out = mallocCheck((n ? n : 1) * sizeof *out);
    *m = 0;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(e[i].benchmark, benchmark)) out[(*m)++] = e[i];
    return out;
}

/* "dir/name.svg" for one benchmark of several: "dir/name-<benchmark>.svg". */
static char *plot_path(const char *path, const char *benchmark, int several) {
    buf b = {0};
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!several) {
        buf_puts(&b, path);
    } else if (dot && (!slash || dot > slash)) {
        buf_append(&b, path, (size_t)(dot - path));
        buf_printf(&b, "-%s%s", benchmark, dot);
    } else {
        buf_printf(&b, "%s-%s.svg", path, benchmark);
    }
    return buf_take(&b);
}

int tta_run_table_report(sqlite3 *db, const tta_filter *f, int with_curves, tta_table_builder table,
                         tta_plot_builder plot, int format, FILE *out, const char *svg_path, char **err) {
    return tta_run_table_report_finished(db, f, with_curves, table, NULL, plot, format, out, svg_path, err);
}

int tta_run_table_report_finished(sqlite3 *db, const tta_filter *f, int with_curves, tta_table_builder table,
                                  tta_table_finisher finish, tta_plot_builder plot, int format, FILE *out,
                                  const char *svg_path, char **err) {
    tta_entry_data *e;
    size_t n;
    if (tta_entries_load(db, f, with_curves, &e, &n, err)) return 1;
    tta_table *t = table(e, n);
    int rc = finish ? finish(db, e, n, t, err) : 0;
    if (rc == 0) tta_table_write(t, (tta_out_format)format, out);
    tta_table_free(t);
    if (rc == 0 && svg_path && plot) {
        /* One plot per benchmark: their scales differ by orders of magnitude. */
        const char **benches = mallocCheck((n ? n : 1) * sizeof *benches);
        size_t nb = distinct_benchmarks(e, n, benches);
        for (size_t b = 0; b < nb && rc == 0; b++) {
            size_t m;
            tta_entry_data *sub = entries_of(e, n, benches[b], &m);
            char *path = plot_path(svg_path, benches[b], nb > 1);
            buf svg = {0};
            plot(sub, m, &svg);
            rc = tta_write_file(path, &svg, err);
            if (rc == 0 && nb > 1) fprintf(stderr, "tta report: wrote %s\n", path);
            buf_free(&svg);
            free(path);
            free(sub);
        }
        if (nb == 0) {
            buf svg = {0};
            plot(e, 0, &svg);
            rc = tta_write_file(svg_path, &svg, err);
            buf_free(&svg);
        }
        free(benches);
    }
    tta_entries_free(e, n);
    return rc;
}

int tta_report_html(sqlite3 *db, const tta_filter *f, const char *path, const char *generated_at, char **err) {
    return tta_report_html_progress(db, f, path, generated_at, NULL, NULL, err);
}

/* Progress counts the table sections one by one, then the sections after them (comm, energy,
 * profile, ...) as one step, so that adding a section changes no count. */
#define HTML_LATER_STEPS 1

/* Counts one more section of total done and tells progress (if any). */
static void section_done(tta_report_progress_fn progress, void *ctx, size_t *done, size_t total) {
    ++*done;
    assert(*done <= total);
    if (progress) progress(ctx, *done, total);
}

int tta_report_html_progress(sqlite3 *db, const tta_filter *f, const char *path, const char *generated_at,
                             tta_report_progress_fn progress, void *progress_ctx, char **err) {
    tta_entry_data *e;
    size_t n;
    if (tta_entries_load(db, f, 1, &e, &n, err)) return 1;
    buf page = {0}, svg = {0};
    tta_html_begin(&page, "Time to accuracy", generated_at);
    buf intro = {0};
    size_t runs = 0;
    for (size_t i = 0; i < n; i++) runs += e[i].n_runs;
    buf_printf(&intro, "%zu entries, %zu runs. Scores are the official MLPerf olympic means in minutes; "
                       "CV is the population standard deviation of the successful runs' TTA over their mean. "
                       "docs/statistics.md gives every formula.", n, runs);
    tta_html_paragraph(&page, buf_str(&intro));
    buf_free(&intro);
    size_t summary_at = page.len; /* the results tables go here, above what they link to */

    static const struct {
        const char *heading, *caption;
        tta_table_builder table;
        tta_plot_builder plot;
        int pairs_only;     /* plot a benchmark only when its table has rows */
        const char *anchor; /* NULL, or the key of the column whose value makes a row's id "entry-N" */
    } sections[] = {
        /* the variance table has a row per entry: the entries' link targets */
        {"Stability of TTA and where its variance comes from",
         "TTA of every successful run per entry", tta_variance_table, tta_variance_plot, 0, "entry"},
        {"Quality curves", "Mean quality per epoch with a ± std band, and the target", tta_curves_table,
         tta_curves_plot, 0, NULL},
        {"Throughput speedup against TTA speedup", "Speedup of each entry over the base of its pair",
         tta_speedup_table, tta_speedup_plot, 1, NULL},
        {"Scaling with accelerators", "Speedup over each series' smallest system; the grey line is linear scaling",
         tta_scaling_table, tta_scaling_plot, 1, NULL},
    };
    size_t n_sections = sizeof sections / sizeof sections[0] + HTML_LATER_STEPS, done = 0;
    if (progress) progress(progress_ctx, 0, n_sections);
    for (size_t k = 0; k < sizeof sections / sizeof sections[0]; k++) {
        tta_html_heading(&page, sections[k].heading);
        tta_table *t = sections[k].table(e, n);
        if (tta_table_rows(t) > 0) {
            /* a figure per benchmark: their scales differ by orders of magnitude */
            const char **benches = mallocCheck((n ? n : 1) * sizeof *benches);
            size_t nb = distinct_benchmarks(e, n, benches);
            for (size_t b = 0; b < nb; b++) {
                size_t m;
                tta_entry_data *sub = entries_of(e, n, benches[b], &m);
                /* Pairs and series exist only for some benchmarks: no empty plots. */
                tta_table *st = sections[k].pairs_only ? sections[k].table(sub, m) : NULL;
                if (!st || tta_table_rows(st) > 0) {
                    buf_clear(&svg);
                    sections[k].plot(sub, m, &svg);
                    buf cap = {0};
                    buf_printf(&cap, "%s: %s", benches[b], sections[k].caption);
                    tta_html_figure(&page, buf_str(&svg), buf_str(&cap));
                    buf_free(&cap);
                }
                if (st) tta_table_free(st);
                free(sub);
            }
            free(benches);
        }
        if (sections[k].anchor) tta_html_table_anchored(&page, t, NULL, sections[k].anchor, "entry-");
        else tta_html_table(&page, t, NULL);
        tta_table_free(t);
        section_done(progress, progress_ctx, &done, n_sections);
    }
    int rc = tta_comm_html_section(db, f, &page, err);
    if (rc == 0) rc = tta_energy_html_section(db, f, &page, err);
    if (rc == 0) rc = tta_trend_html_section(db, f, &page, err);
    if (rc == 0) rc = tta_profile_html_section(db, &page, err);
    section_done(progress, progress_ctx, &done, n_sections);
    assert(done == n_sections);
    if (rc == 0) rc = tta_summary_html_section(db, f, &page, summary_at, err);
    tta_html_end(&page);
    if (rc == 0) rc = tta_write_file(path, &page, err);
    buf_free(&page);
    buf_free(&svg);
    tta_entries_free(e, n);
    return rc;
}
