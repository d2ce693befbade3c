/* identity.c: filling the identity columns (builders.h) that say which entry a row is. */
#include <assert.h>
#include <stddef.h>
#include <string.h>

#include "reports/builders.h"
#include "reports/render.h"

tta_identity tta_entry_identity(const tta_entry_data *e) {
    assert(e);
    return (tta_identity){e->id, e->round, e->division, e->submitter, e->system, e->benchmark};
}

void tta_table_set_identity(tta_table *t, size_t row, const tta_identity *id) {
    /* Found by key, not by position: reports order them differently (trend, speedup, rcp), and
     * the keys are the columns' contract with scripts. */
    static const tta_column columns[TTA_IDENTITY_COUNT] = {TTA_IDENTITY_COLUMNS};
    const char *texts[TTA_IDENTITY_COUNT] = {
        [TTA_IDENTITY_ROUND] = id->round,         [TTA_IDENTITY_DIVISION] = id->division,
        [TTA_IDENTITY_SUBMITTER] = id->submitter, [TTA_IDENTITY_SYSTEM] = id->system,
        [TTA_IDENTITY_BENCHMARK] = id->benchmark,
    };
    int found = 0;
    for (int k = 0; k < TTA_IDENTITY_COUNT; k++) {
        long col = tta_table_column(t, columns[k].key);
        if (col < 0) continue;
        found = 1;
        if (k == TTA_IDENTITY_ENTRY) tta_table_set_number(t, row, (size_t)col, (double)id->id);
        else tta_table_set_text(t, row, (size_t)col, texts[k]);
    }
    assert(found);
    (void)found;
}

int tta_one_benchmark(const tta_entry_data *e, size_t n) {
    int one = n > 0 && e[0].benchmark;
    for (size_t i = 1; one && i < n; i++) one = e[i].benchmark && !strcmp(e[i].benchmark, e[0].benchmark);
    return one;
}

void tta_plot_title(buf *out, const tta_entry_data *e, size_t n, const char *what) {
    assert(what);
    if (tta_one_benchmark(e, n)) buf_printf(out, "%s: ", e[0].benchmark);
    buf_puts(out, what);
}

void tta_plot_entry_name(buf *out, const tta_entry_data *e, size_t n, size_t i) {
    assert(i < n);
    buf_puts(out, e[i].system);
    if (!tta_one_benchmark(e, n)) buf_printf(out, " %s", e[i].benchmark);
}
