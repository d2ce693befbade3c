/* flags.c: the notes that name an entry's flagged runs (run_flags: worked out and stored by the
 * writer, read here as each run's flags), so that every report using the runs says which are
 * suspect and why one looks up in `tta ls runs`. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/check.h"
#include "reports/builders.h"
#include "reports/render.h"

/* Runs listed by name per flag before "and N more". */
#define FLAG_NAMES_LISTED 3

/* Is flag (len bytes) one of the comma-separated names of list (NULL: none)? */
static int listed_in(const char *list, const char *flag, size_t len) {
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == len && !strncmp(p, flag, len)) return 1;
        p = end ? end + 1 : NULL;
    }
    return 0;
}

/* The last component of a run's path. */
static const char *run_name(const tta_run_data *r) {
    const char *slash = r->file ? strrchr(r->file, '/') : NULL;
    return slash ? slash + 1 : r->file ? r->file : "?";
}

void tta_table_note_flags(tta_table *t, size_t row, const tta_entry_data *e, const char *explained) {
    tta_table_note_flags_of(t, row, e, explained, NULL);
}

void tta_table_note_flags_of(tta_table *t, size_t row, const tta_entry_data *e, const char *explained,
                             const char *label) {
    assert(t && e);
    /* the entry's distinct flags, in the order the runs name them */
    char **flags = NULL;
    size_t n_flags = 0, cap = 0;
    for (size_t i = 0; i < e->n_runs; i++)
        for (const char *p = e->runs[i].flags; p && *p;) {
            const char *end = strchr(p, ',');
            size_t len = end ? (size_t)(end - p) : strlen(p);
            int seen = listed_in(explained, p, len);
            for (size_t k = 0; k < n_flags && !seen; k++) seen = strlen(flags[k]) == len && !strncmp(flags[k], p, len);
            if (!seen) {
                growArray(flags, &cap, n_flags + 1);
                flags[n_flags] = mallocCheck(len + 1);
                memcpy(flags[n_flags], p, len);
                flags[n_flags++][len] = '\0';
            }
            p = end ? end + 1 : NULL;
        }
    if (!n_flags) return;
    buf b = {0};
    if (label) buf_printf(&b, "flagged runs of %s (tta ls runs says why): ", label);
    else buf_puts(&b, "flagged runs (tta ls runs says why): ");
    for (size_t k = 0; k < n_flags; k++) {
        size_t count = 0, listed = 0;
        for (size_t i = 0; i < e->n_runs; i++) count += listed_in(e->runs[i].flags, flags[k], strlen(flags[k]));
        buf_printf(&b, "%s%s ", k ? "; " : "", flags[k]);
        for (size_t i = 0; i < e->n_runs && listed < FLAG_NAMES_LISTED; i++)
            if (listed_in(e->runs[i].flags, flags[k], strlen(flags[k])))
                buf_printf(&b, "%s%s", listed++ ? ", " : "", run_name(&e->runs[i]));
        if (count > listed) buf_printf(&b, " and %zu more", count - listed);
        free(flags[k]);
    }
    free(flags);
    tta_table_add_note(t, row, buf_str(&b));
    buf_free(&b);
}

void tta_table_note_run_flags(tta_table *t, size_t row, const tta_run_data *r) {
    assert(t && r);
    if (r->flag_reasons && *r->flag_reasons) tta_table_add_note(t, row, r->flag_reasons);
}
