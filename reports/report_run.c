/* report_run.c: the common shape of the table reports, and the HTML page that gathers them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "reports/builders.h"
#include "reports/reports.h"

/* Writes buf to path (replacing it); 0, or 1 with *err. */
static int write_file(const char *path, const buf *b, char **err) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(b->data ? b->data : "", 1, b->len, f) != b->len || fclose(f) != 0) {
        buf e = {0};
        buf_printf(&e, "%s: cannot write: %s", path, strerror(errno));
        *err = buf_take(&e);
        if (f) fclose(f);
        return 1;
    }
    return 0;
}

int tta_run_table_report(sqlite3 *db, const tta_filter *f, int with_curves, tta_table_builder table,
                         tta_plot_builder plot, int format, FILE *out, const char *svg_path, char **err) {
    tta_entry_data *e;
    size_t n;
    if (tta_entries_load(db, f, with_curves, &e, &n, err) != SQLITE_OK) return 1;
    tta_table *t = table(e, n);
    tta_table_write(t, (tta_out_format)format, out);
    tta_table_free(t);
    int rc = 0;
    if (svg_path && plot) {
        buf svg = {0};
        plot(e, n, &svg);
        rc = write_file(svg_path, &svg, err);
        buf_free(&svg);
    }
    tta_entries_free(e, n);
    return rc;
}

int tta_report_html(sqlite3 *db, const tta_filter *f, const char *path, const char *generated_at, char **err) {
    tta_entry_data *e;
    size_t n;
    if (tta_entries_load(db, f, 1, &e, &n, err) != SQLITE_OK) return 1;
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

    static const struct {
        const char *heading, *caption;
        tta_table_builder table;
        tta_plot_builder plot;
    } sections[] = {
        {"Stability of TTA and where its variance comes from",
         "TTA of every successful run per entry", tta_variance_table, tta_variance_plot},
        {"Quality curves", "Mean quality per epoch with a ± std band, and the target", tta_curves_table,
         tta_curves_plot},
        {"Throughput speedup against TTA speedup", "Speedup of each entry over the base of its pair",
         tta_speedup_table, tta_speedup_plot},
        {"Scaling with accelerators", "Speedup over each series' smallest system; the grey line is linear scaling",
         tta_scaling_table, tta_scaling_plot},
    };
    for (size_t k = 0; k < sizeof sections / sizeof sections[0]; k++) {
        tta_html_heading(&page, sections[k].heading);
        tta_table *t = sections[k].table(e, n);
        if (tta_table_rows(t) > 0) {
            buf_clear(&svg);
            sections[k].plot(e, n, &svg);
            tta_html_figure(&page, buf_str(&svg), sections[k].caption);
        }
        tta_html_table(&page, t, NULL);
        tta_table_free(t);
    }
    tta_html_end(&page);
    int rc = write_file(path, &page, err);
    buf_free(&page);
    buf_free(&svg);
    tta_entries_free(e, n);
    return rc;
}
