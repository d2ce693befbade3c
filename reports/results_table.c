/* results_table.c: `tta report summary`: a round's results table as MLCommons publishes it, one row
 * per system and one column per benchmark of the round holding the official score in minutes.
 *
 * The CSV is the one MLCommons' result summarizer writes for the training usage
 * (mlcommons/logging@7bbf792 mlperf_logging/result_summarizer/result_summarizer.py: summarize_results,
 * _get_column_schema, _print_and_write): the same columns in the same order, the same rows in the
 * same order, and each cell written as pandas writes it (Python's str of the description's value,
 * repr of a float, LF line ends, fields quoted only when they must be), so that the two files can be
 * compared cell for cell. tta's own columns (round, the system's folder and each cell's entry id)
 * follow the summarizer's. Where tta's data cannot give the summarizer's cell (a description that
 * lacks a field the summarizer requires, where it stops), the cell is tta's reading of the
 * description and the row's note says so (JSON, table); docs/statistics.md lists these cases.
 *
 * A score is the published score (summary.h, published_s): the olympic mean of the runs the
 * summarizer counts times the folder's scaling.json factor, recomputed here from each run's
 * run_start and run_stop in the log's milliseconds in the summarizer's order of operations, so that
 * it is the summarizer's double to the last bit, not only to the minute.
 */
#include <assert.h>
#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"
#include "common/check.h"
#include "common/rules.h"
#include "reports/builders.h"
#include "reports/dataset.h"
#include "reports/render.h"
#include "reports/reports.h"
#include "reports/summary.h"

/* ---- the summarizer's benchmark columns --------------------------------------------------------
 * Each ruleset's benchmark columns, in the summarizer's order and spelling (its column is the
 * results folder's name; tta maps it to its canonical benchmark through benchmark_aliases: rgat is
 * tta's gnn), are rules data: "summary_columns" of schemas/benchmark_rules.json, with their source.
 * Rulesets without a list (0.5.0, DAWNBench, replays) get a column per benchmark the selection has. */

/* The summarizer's benchmark columns of ruleset ("0.7.0"), or NULL. */
static const tta_rule_columns *summarizer_columns(const char *ruleset) {
    return tta_rules_summary_columns(tta_rules_builtin(), ruleset);
}

/* ---- Python's str() of values --------------------------------------------------------------- */

/* Appends repr(v) as Python 3 writes a float: the shortest digits that read back to v, positional
 * for decimal exponents -4..15 ("39.77966166666667", "5.0"), else scientific ("1e-05", "1.5e+16"). */
static void py_float_repr(buf *out, double v) {
    if (isnan(v)) {
        buf_puts(out, "nan");
        return;
    }
    if (isinf(v)) {
        buf_puts(out, v < 0 ? "-inf" : "inf");
        return;
    }
    char tmp[48];
    int p = 1;
    for (; p <= 17; p++) {
        snprintf(tmp, sizeof tmp, "%.*e", p - 1, v);
        if (strtod(tmp, NULL) == v) break;
    }
    /* tmp: [-]d[.ddd]e[+-]XX */
    const char *s = tmp;
    if (*s == '-') {
        buf_putc(out, '-');
        s++;
    }
    char digits[24];
    size_t nd = 0;
    const char *e = strchr(s, 'e');
    assert(e);
    for (const char *q = s; q < e; q++)
        if (isdigit((unsigned char)*q)) digits[nd++] = *q;
    while (nd > 1 && digits[nd - 1] == '0') nd--; /* %.*e pads; the shortest form has no trailing 0 */
    digits[nd] = '\0';
    int exp10 = atoi(e + 1);
    if (exp10 >= -4 && exp10 < 16) {
        if (exp10 < 0) {
            buf_puts(out, "0.");
            for (int z = 0; z < -exp10 - 1; z++) buf_putc(out, '0');
            buf_puts(out, digits);
        } else {
            size_t int_len = (size_t)exp10 + 1;
            for (size_t i = 0; i < int_len; i++) buf_putc(out, i < nd ? digits[i] : '0');
            buf_putc(out, '.');
            if (nd > int_len) buf_puts(out, digits + int_len);
            else buf_putc(out, '0');
        }
    } else {
        buf_putc(out, digits[0]);
        if (nd > 1) {
            buf_putc(out, '.');
            buf_puts(out, digits + 1);
        }
        buf_printf(out, "e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
    }
}

/* Python's str() of a description value as json.load gives it (a string as is, an integer in
 * decimal, a float as repr, True/False/None). The description is stored re-serialised by cJSON,
 * which keeps no difference between 1 and 1.0: an integral number is written as an integer.
 * Arrays and objects are written as JSON (Python would write its repr). */
static void py_str(buf *out, const cJSON *v) {
    if (cJSON_IsString(v)) {
        buf_puts(out, v->valuestring);
    } else if (cJSON_IsBool(v)) {
        buf_puts(out, cJSON_IsTrue(v) ? "True" : "False");
    } else if (cJSON_IsNull(v)) {
        buf_puts(out, "None");
    } else if (cJSON_IsNumber(v)) {
        double d = v->valuedouble;
        if (fabs(d) < 9007199254740992.0 && d == trunc(d)) buf_printf(out, "%.0f", d);
        else py_float_repr(out, d);
    } else {
        char *s = cJSON_PrintUnformatted(v);
        buf_puts(out, s ? s : "");
        cJSON_free(s);
    }
}

/* Python's int() of a description value: a string of an optional sign and digits (spaces around
 * allowed), a number (truncated), a boolean. 0 with *v set, -1 where int() raises. */
static int py_int(const cJSON *v, long long *out) {
    if (cJSON_IsBool(v)) {
        *out = cJSON_IsTrue(v);
        return 0;
    }
    if (cJSON_IsNumber(v)) {
        if (!isfinite(v->valuedouble) || fabs(v->valuedouble) > 9e18) return -1;
        *out = (long long)trunc(v->valuedouble);
        return 0;
    }
    if (!cJSON_IsString(v)) return -1;
    const char *s = v->valuestring;
    while (isspace((unsigned char)*s)) s++;
    int neg = 0;
    if (*s == '+' || *s == '-') neg = *s++ == '-';
    if (!isdigit((unsigned char)*s)) return -1;
    long long n = 0;
    for (; isdigit((unsigned char)*s); s++) {
        if (n > 900000000000000000LL) return -1;
        n = n * 10 + (*s - '0');
    }
    while (isspace((unsigned char)*s)) s++;
    if (*s) return -1;
    *out = neg ? -n : n;
    return 0;
}

/* ---- rows ------------------------------------------------------------------------------------- */

/* The summarizer's columns before and after the benchmarks, in its order. */
enum {
    O_DIVISION, O_AVAILABILITY, O_SUBMITTER, O_SYSTEM, O_NODES, O_PROCESSOR, O_PROCESSORS, O_ACCELERATOR,
    O_ACCELERATORS, O_FRAMEWORK, O_NOTES, O_PRIVATE_ID, O_DETAILS_URL, O_CODE_URL, O_COUNT
};
enum { O_BEFORE_BENCHMARKS = O_DETAILS_URL };

static const char *const official_keys[O_COUNT] = {
    "division", "availability", "submitter", "system", "number_of_nodes", "host_processor_model_name",
    "host_processors_count", "accelerator_model_name", "accelerators_count", "framework", "notes", "private_id",
    "details_url", "code_url",
};

/* The official columns that are integers (pandas int64). */
static int is_count(int k) { return k == O_PROCESSORS || k == O_ACCELERATORS; }

typedef struct {
    const tta_entry_data *entry; /* NULL: the row has no entry of this benchmark */
    const tta_entry_summary *summary; /* the entry's */
    double minutes;              /* the published score; NAN: none (why) */
    const char *why;
} summary_cell;

typedef struct {
    const char *round, *submitter, *folder, *division; /* point into the entries */
    char *text[O_COUNT];   /* the summarizer's cell as Python writes it; NULL: missing (why[k]) */
    char *why[O_COUNT];
    long long count[O_COUNT]; /* O_PROCESSORS, O_ACCELERATORS when text is set */
    summary_cell *cells;   /* one per benchmark column */
    summary_cell *weak;    /* MLPerf HPC: one per benchmark column, the weak-scaling entry's (minutes:
                              its time_to_train_all) */
    size_t n_bench;        /* their number (the round's, for sorting) */
    char **notes;
    size_t n_notes, cap_notes;
} summary_row;

/* One round's table: its benchmark columns and rows, in the summarizer's order. */
typedef struct {
    const char *round;
    size_t n_bench;
    char **bench_name;   /* the column's name (the summarizer's) */
    char **bench;        /* tta's canonical benchmark for it */
    int *bench_used;     /* some row has an entry of it */
    int *weak_used;      /* some row has a weak-scaling entry of it (MLPerf HPC) */
    int has_weak;        /* some row has a weak-scaling entry */
    summary_row *rows;
    size_t n_rows;
} round_table;

/* Adds a copy of text to the row's notes unless it has it. */
static void row_note(summary_row *r, const char *text) {
    for (size_t i = 0; i < r->n_notes; i++)
        if (!strcmp(r->notes[i], text)) return;
    growArray(r->notes, &r->cap_notes, r->n_notes + 1);
    r->notes[r->n_notes++] = strdupCheck(text);
}

/* Sets the row's official cell k to a copy of s (not NULL). */
static void set_text(summary_row *r, int k, const char *s) {
    free(r->text[k]);
    r->text[k] = strdupCheck(s);
}

/* Marks the row's official cell k missing for why (copied). */
static void set_missing(summary_row *r, int k, const char *why) {
    free(r->text[k]);
    r->text[k] = NULL;
    free(r->why[k]);
    r->why[k] = strdupCheck(why);
}

/* Releases everything t owns (the entries it points into are the caller's) and zeroes it. */
static void round_table_free(round_table *t) {
    for (size_t i = 0; i < t->n_rows; i++) {
        summary_row *r = &t->rows[i];
        for (int k = 0; k < O_COUNT; k++) {
            free(r->text[k]);
            free(r->why[k]);
        }
        for (size_t j = 0; j < r->n_notes; j++) free(r->notes[j]);
        free(r->notes);
        free(r->cells);
        free(r->weak);
    }
    for (size_t b = 0; b < t->n_bench; b++) {
        free(t->bench_name[b]);
        free(t->bench[b]);
    }
    free(t->bench_name);
    free(t->bench);
    free(t->bench_used);
    free(t->weak_used);
    free(t->rows);
    memset(t, 0, sizeof *t);
}

/* ---- the description's cells, as _check_and_update_system_specs reads them ------------------- */

/* str() of the description's member key, or NULL when it has none (the summarizer's FieldError). */
static char *member_str(const cJSON *d, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(d, key);
    if (!v) return NULL;
    buf b = {0};
    py_str(&b, v);
    return buf_take(&b);
}

/* _pretty_framework: a TensorFlow framework loses its " commit hash = ..." (to the end of the line,
 * every copy of that text). */
static char *pretty_framework(const char *framework) {
    const char *at = strstr(framework, "TensorFlow") ? strstr(framework, " commit hash = ") : NULL;
    if (!at) return strdupCheck(framework);
    size_t n = strcspn(at, "\n");
    char *match = strndupCheck(at, n);
    buf b = {0};
    for (const char *p = framework; *p;) {
        const char *hit = strstr(p, match);
        if (!hit) {
            buf_puts(&b, p);
            break;
        }
        buf_append(&b, p, (size_t)(hit - p));
        p = hit + n;
    }
    free(match);
    return buf_take(&b);
}

/* Short ruleset as in the results repositories' names: _ruleset_url_prefix ("0.7.0" -> "0.7"). */
static void url_prefix(buf *b, const char *ruleset) {
    buf_puts(b, "https://github.com/mlcommons/training_results_v");
    size_t n = strlen(ruleset);
    buf_append(b, ruleset, n < 3 ? n : 3);
    for (const char *p = n < 3 ? ruleset + n : ruleset + 3; *p;) {
        if (p[0] == '.' && p[1] == '0') {
            p += 2;
            continue;
        }
        buf_putc(b, *p++);
    }
}

/* Fills the row's description cells from sys (and where it has none, what tta knows); split: the
 * folder's logs name more than one division, each with a row. */
static void describe_row(summary_row *r, const tta_system_row *sys, const char *ruleset, int split) {
    cJSON *d = sys->description ? cJSON_Parse(sys->description) : NULL;
    if (d && !cJSON_IsObject(d)) {
        cJSON_Delete(d);
        d = NULL;
    }
    buf b = {0}, absent = {0};
    if (!d) {
        /* the missing cells carry the reason (and the row's note in JSON) */
        for (int k = 0; k < O_COUNT; k++)
            if (k != O_DETAILS_URL && k != O_CODE_URL && k != O_PRIVATE_ID)
                set_missing(r, k, "no system description <submitter>/systems/<system folder>.json (the summarizer "
                                  "skips such a system)");
        set_text(r, O_DIVISION, r->division);
        set_text(r, O_SUBMITTER, r->submitter);
    } else {
        /* The fields the summarizer requires; the first it lacks stops it (a FieldError). */
        static const char *const required[] = {"division", "status", "submitter", "system_name",
                                               "host_processor_model_name", "number_of_nodes",
                                               "host_processor_core_count", "host_processors_per_node",
                                               "accelerator_model_name", "accelerators_per_node", "framework",
                                               "hw_notes", "sw_notes"};
        for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
            if (!cJSON_GetObjectItemCaseSensitive(d, required[i]))
                buf_printf(&absent, "%s\"%s\"", absent.len ? ", " : "", required[i]);
        struct {
            int k;
            const char *key;
            const char *fallback;
        } plain[] = {
            {O_DIVISION, "division", sys->division},      {O_AVAILABILITY, "status", sys->status},
            {O_SUBMITTER, "submitter", r->submitter},      {O_PROCESSOR, "host_processor_model_name", sys->host_processor},
        };
        for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
            char *s = member_str(d, plain[i].key);
            if (s) set_text(r, plain[i].k, s);
            else if (plain[i].fallback) set_text(r, plain[i].k, plain[i].fallback);
            else set_missing(r, plain[i].k, "not in the system description");
            free(s);
        }
        const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(d, "number_of_nodes");
        const cJSON *acc_per_node = cJSON_GetObjectItemCaseSensitive(d, "accelerators_per_node");
        long long n_nodes = 0, n_acc = 0, n_proc = 0;
        int nodes_ok = nodes && py_int(nodes, &n_nodes) == 0;
        /* system: _pretty_system_name (tpu-v3 -> TPUv3.<chips>) */
        char *name = member_str(d, "system_name");
        if (name && !strcmp(name, "tpu-v3")) {
            if (acc_per_node && py_int(acc_per_node, &n_acc) == 0) {
                buf_clear(&b);
                buf_printf(&b, "TPUv3.%lld", n_acc * 2);
                set_text(r, O_SYSTEM, buf_str(&b));
            } else {
                set_missing(r, O_SYSTEM, "tpu-v3 with no accelerators_per_node the summarizer can read as an integer");
            }
        } else if (name) {
            set_text(r, O_SYSTEM, name);
        } else {
            set_text(r, O_SYSTEM, r->folder);
        }
        free(name);
        if (nodes) {
            char *s = member_str(d, "number_of_nodes");
            set_text(r, O_NODES, s);
            free(s);
        } else if (sys->nodes >= 0) {
            buf_clear(&b);
            buf_printf(&b, "%d", sys->nodes);
            set_text(r, O_NODES, buf_str(&b));
        } else {
            set_missing(r, O_NODES, "not in the system description");
        }
        /* host_processors_count = int(host_processors_per_node) * int(number_of_nodes) */
        const cJSON *proc = cJSON_GetObjectItemCaseSensitive(d, "host_processors_per_node");
        if (proc && nodes_ok && cJSON_GetObjectItemCaseSensitive(d, "host_processor_core_count") &&
            py_int(proc, &n_proc) == 0) {
            r->count[O_PROCESSORS] = n_proc * n_nodes;
            buf_clear(&b);
            buf_printf(&b, "%lld", n_proc * n_nodes);
            set_text(r, O_PROCESSORS, buf_str(&b));
        } else {
            set_missing(r, O_PROCESSORS, "the description gives no host_processors_per_node x number_of_nodes as "
                                         "integers (and host_processor_core_count)");
        }
        char *acc = member_str(d, "accelerator_model_name");
        if (acc) set_text(r, O_ACCELERATOR, strcmp(acc, "tpu-v3") ? acc : "TPUv3");
        else if (sys->accelerator_model) set_text(r, O_ACCELERATOR, sys->accelerator_model);
        else set_missing(r, O_ACCELERATOR, "not in the system description");
        free(acc);
        if (acc_per_node && nodes_ok && py_int(acc_per_node, &n_acc) == 0) {
            r->count[O_ACCELERATORS] = n_acc * n_nodes;
            buf_clear(&b);
            buf_printf(&b, "%lld", n_acc * n_nodes);
            set_text(r, O_ACCELERATORS, buf_str(&b));
        } else if (sys->accelerators >= 0) {
            r->count[O_ACCELERATORS] = sys->accelerators;
            buf_clear(&b);
            buf_printf(&b, "%d", sys->accelerators);
            set_text(r, O_ACCELERATORS, buf_str(&b));
        } else {
            set_missing(r, O_ACCELERATORS, "the description gives no accelerators_per_node x number_of_nodes");
        }
        char *framework = member_str(d, "framework");
        if (framework) {
            char *pretty = pretty_framework(framework);
            set_text(r, O_FRAMEWORK, pretty);
            free(pretty);
        } else if (sys->framework) {
            set_text(r, O_FRAMEWORK, sys->framework);
        } else {
            set_missing(r, O_FRAMEWORK, "not in the system description");
        }
        free(framework);
        /* notes: ';'.join of the non-empty hw_notes and sw_notes */
        char *hw = member_str(d, "hw_notes"), *sw = member_str(d, "sw_notes");
        if (hw && sw) {
            buf_clear(&b);
            buf_printf(&b, "%s%s%s", hw, *hw && *sw ? ";" : "", sw);
            set_text(r, O_NOTES, buf_str(&b));
        } else {
            set_missing(r, O_NOTES, "the description has no hw_notes or no sw_notes");
        }
        free(hw);
        free(sw);
        if (absent.len) {
            buf_clear(&b);
            buf_printf(&b, "the system description has no %s field: the summarizer stops there (a FieldError); tta "
                           "shows its own reading of the description", buf_str(&absent));
            row_note(r, buf_str(&b));
        }
    }
    /* tta does not read results/<system>/privateid.json (none is published): empty, as the
     * summarizer writes it without --generate_private_ids */
    set_text(r, O_PRIVATE_ID, "");
    if (ruleset && summarizer_columns(ruleset)) {
        const char *submitter = r->text[O_SUBMITTER] && d ? r->text[O_SUBMITTER] : r->submitter;
        buf_clear(&b);
        url_prefix(&b, ruleset);
        buf_printf(&b, "/blob/main/%s/systems/%s.json", submitter, r->folder);
        set_text(r, O_DETAILS_URL, buf_str(&b));
        buf_clear(&b);
        url_prefix(&b, ruleset);
        buf_printf(&b, "/blob/master/%s/benchmarks", submitter);
        set_text(r, O_CODE_URL, buf_str(&b));
    } else {
        set_missing(r, O_DETAILS_URL, "no MLCommons results repository for this round");
        set_missing(r, O_CODE_URL, "no MLCommons results repository for this round");
    }
    /* Division: the description's, as the summarizer files the folder; where the logs name another,
     * the row says so, and where they name two (split), each row is the division its logs name. */
    if (d && r->text[O_DIVISION] && strcasecmp(r->text[O_DIVISION], r->division) != 0) {
        buf_clear(&b);
        if (split)
            buf_printf(&b, "the logs name division %s, the system description %s: the summarizer files every run of "
                           "the folder under the description's",
                       r->division, r->text[O_DIVISION]);
        else
            buf_printf(&b, "the logs name division %s, the system description %s: the row is the description's, as "
                           "the summarizer files it",
                       r->division, r->text[O_DIVISION]);
        row_note(r, buf_str(&b));
        if (split) set_text(r, O_DIVISION, r->division);
    }
    buf_free(&b);
    buf_free(&absent);
    cJSON_Delete(d);
}

/* ---- scores ----------------------------------------------------------------------------------- */

/* qsort order of doubles, ascending. */
static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The log's time in milliseconds from the stored seconds: ingest stored ms / 1000.0, and near
 * today's epoch times that division keeps every double apart, so the double whose division gives
 * s back is the logged one. Without one (a log in seconds), s x 1000. */
static double logged_ms(double s) {
    double guess = s * 1000.0, up = guess, down = guess;
    if (guess / 1000.0 == s) return guess;
    for (int k = 0; k < 4; k++) {
        up = nextafter(up, INFINITY);
        down = nextafter(down, -INFINITY);
        if (up / 1000.0 == s) return up;
        if (down / 1000.0 == s) return down;
    }
    return guess;
}

/* The summarizer's score of the entry in minutes, computed as it computes it: each counted run's
 * (stop_ms - start_ms) / 60 / 1000, sorted, the olympic slice summed left to right, * 1.0 / its
 * length, * the scaling factor. s gives the slice (tta_official_score). Falls back to s's own
 * score where the two disagree beyond the rounding of the stored seconds (NCF's first-fifty rule
 * of v0.5/v0.6 takes other runs). */
static double summarizer_minutes(const tta_entry_summary *s) {
    const tta_entry_data *e = s->entry;
    double published = s->published_s / 60.0;
    if (isnan(published)) return NAN;
    double *m = mallocCheck((e->n_runs ? e->n_runs : 1) * sizeof *m);
    size_t n = 0;
    for (size_t i = 0; i < e->n_runs; i++) {
        const tta_run_data *r = &e->runs[i];
        if (!tta_run_succeeded(r) || r->unreadable_records != 0 || r->not_compliant || isnan(r->tta_s)) continue;
        m[n++] = (logged_ms(r->run_stop_s) - logged_ms(r->run_start_s)) / 60 / 1000;
    }
    qsort(m, n, sizeof *m, compare_doubles);
    size_t k = s->score.max_dropped, used = s->score.n_used;
    double minutes = published;
    if (used > 0 && k + used <= n) {
        double sum = 0;
        for (size_t i = k; i < k + used; i++) sum += m[i];
        double exact = sum * 1.0 / (double)used * s->scaling_factor;
        /* the stored seconds (~1.6e9) are rounded to 2.4e-7 s: a few of those per run */
        if (fabs(exact - published) <= 1e-7 * s->scaling_factor + 1e-12 * fabs(published)) minutes = exact;
    }
    free(m);
    return minutes;
}

/* The summarizer's weak-scaling score of the entry in minutes (_compute_weak_score_standalone):
 * (the last counted instance's stop_ms - the first one's start_ms) / 60 / 1000, from the log's
 * milliseconds; NAN when s has no score. */
static double summarizer_weak_minutes(const tta_entry_summary *s) {
    const tta_entry_data *e = s->entry;
    if (isnan(s->published_s)) return NAN;
    double first = INFINITY, last = -INFINITY;
    for (size_t i = 0; i < e->n_runs; i++) {
        const tta_run_data *r = &e->runs[i];
        if (!tta_run_succeeded(r) || r->unreadable_records != 0 || isnan(r->tta_s)) continue;
        first = fmin(first, logged_ms(r->run_start_s));
        last = fmax(last, logged_ms(r->run_stop_s));
    }
    double exact = (last - first) / 60 / 1000, published = s->published_s / 60.0;
    return fabs(exact - published) <= 1e-7 ? exact : published;
}

/* ---- building the tables ---------------------------------------------------------------------- */

/* tta's canonical benchmark for a summarizer column name in round (benchmark_aliases), or a copy
 * of name. */
static char *canonical_benchmark(sqlite3 *db, const char *round, const char *name) {
    char *out = NULL;
    if (tta_db_benchmark_alias(db, round, name, &out, NULL) != TTA_OK) out = NULL;
    return out ? out : strdupCheck(name);
}

/* Appends a benchmark column: the summarizer's name (copied) and tta's benchmark (taken). */
static void add_bench(round_table *t, size_t *cap, const char *name, char *canonical) {
    growArray(t->bench_name, cap, t->n_bench + 1);
    t->bench = reallocCheck(t->bench, *cap * sizeof *t->bench);
    t->bench_name[t->n_bench] = strdupCheck(name);
    t->bench[t->n_bench++] = canonical;
}

/* qsort order of char * by strcmp. */
static int compare_strings(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The benchmark columns of round: the summarizer's, then any other benchmark of the entries. */
static void round_columns(sqlite3 *db, round_table *t, const tta_entry_data *e, size_t n) {
    size_t cap = 0;
    const char *ruleset = NULL;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(e[i].round, t->round) && e[i].ruleset) ruleset = e[i].ruleset;
    const tta_rule_columns *names = summarizer_columns(ruleset);
    for (size_t i = 0; names && i < names->n_benchmarks; i++)
        add_bench(t, &cap, names->benchmarks[i], canonical_benchmark(db, t->round, names->benchmarks[i]));
    char **extra = NULL;
    size_t n_extra = 0, cap_extra = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(e[i].round, t->round)) continue;
        int known = 0;
        for (size_t b = 0; b < t->n_bench && !known; b++) known = !strcmp(t->bench[b], e[i].benchmark);
        for (size_t b = 0; b < n_extra && !known; b++) known = !strcmp(extra[b], e[i].benchmark);
        if (known) continue;
        growArray(extra, &cap_extra, n_extra + 1);
        extra[n_extra++] = e[i].benchmark;
    }
    if (n_extra > 1) qsort(extra, n_extra, sizeof *extra, compare_strings);
    for (size_t i = 0; i < n_extra; i++) add_bench(t, &cap, extra[i], strdupCheck(extra[i]));
    free(extra);
    t->bench_used = callocCheck(t->n_bench ? t->n_bench : 1, sizeof *t->bench_used);
    t->weak_used = callocCheck(t->n_bench ? t->n_bench : 1, sizeof *t->weak_used);
}

/* Missing values sort last (pandas' na_position), as do missing texts. */
static int compare_cell_text(const summary_row *a, const summary_row *b, int k) {
    const char *x = a->text[k], *y = b->text[k];
    if (!x || !y) return (x == NULL) - (y == NULL);
    if (is_count(k)) return (a->count[k] > b->count[k]) - (a->count[k] < b->count[k]);
    return strcmp(x, y); /* bytes of UTF-8 sort as Python compares code points */
}


/* The summarizer's order (_print_and_write: sort_values by every column, left to right), then
 * tta's identity of the row. */
static int compare_rows(const void *pa, const void *pb) {
    const summary_row *a = pa, *b = pb;
    int c;
    for (int k = 0; k < O_BEFORE_BENCHMARKS; k++)
        if ((c = compare_cell_text(a, b, k))) return c;
    assert(a->n_bench == b->n_bench);
    for (size_t j = 0; j < a->n_bench; j++) {
        double x = a->cells[j].minutes, y = b->cells[j].minutes;
        if (isnan(x) || isnan(y)) c = isnan(x) - isnan(y);
        else c = (x > y) - (x < y);
        if (c) return c;
    }
    for (int k = O_BEFORE_BENCHMARKS; k < O_COUNT; k++)
        if ((c = compare_cell_text(a, b, k))) return c;
    if ((c = strcmp(a->folder, b->folder))) return c;
    return strcmp(a->division, b->division);
}

/* Puts t's rows in the summarizer's order (compare_rows). */
static void sort_rows(round_table *t) {
    if (t->n_rows > 1) qsort(t->rows, t->n_rows, sizeof *t->rows, compare_rows);
}

/* The distinct MLPerf rounds of e, in order (DAWNBench, replays and unknown rounds have no
 * official score and no results table). */
static size_t distinct_rounds(const tta_entry_data *e, size_t n, const char **rounds) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!tta_entry_is_mlperf(&e[i])) continue;
        size_t j = 0;
        while (j < k && strcmp(rounds[j], e[i].round)) j++;
        if (j == k) rounds[k++] = e[i].round;
    }
    return k;
}

/* Builds round's table from the loaded entries e (their summaries in s). 0, or 1 with *err. */
static int build_round(sqlite3 *db, const char *round, const tta_entry_data *e, const tta_entry_summary *s, size_t n,
                       round_table *t, char **err) {
    memset(t, 0, sizeof *t);
    t->round = round;
    round_columns(db, t, e, n);
    size_t cap = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(e[i].round, round)) continue;
        size_t r = 0;
        while (r < t->n_rows &&
               !(!strcmp(t->rows[r].submitter, e[i].submitter) && !strcmp(t->rows[r].folder, e[i].system) &&
                 !strcmp(t->rows[r].division, e[i].division)))
            r++;
        if (r == t->n_rows) {
            growArray(t->rows, &cap, t->n_rows + 1);
            summary_row *row = &t->rows[t->n_rows++];
            memset(row, 0, sizeof *row);
            row->round = e[i].round;
            row->submitter = e[i].submitter;
            row->folder = e[i].system;
            row->division = e[i].division;
            row->cells = callocCheck(t->n_bench ? t->n_bench : 1, sizeof *row->cells);
            row->weak = callocCheck(t->n_bench ? t->n_bench : 1, sizeof *row->weak);
            row->n_bench = t->n_bench;
            for (size_t b = 0; b < t->n_bench; b++) row->cells[b].minutes = row->weak[b].minutes = NAN;
        }
        summary_row *row = &t->rows[r];
        size_t b = 0;
        while (b < t->n_bench && strcmp(t->bench[b], e[i].benchmark)) b++;
        assert(b < t->n_bench);
        int weak = s[i].weak;
        summary_cell *c = weak ? &row->weak[b] : &row->cells[b];
        assert(!c->entry); /* entries are unique per (round, division, submitter, system, benchmark) */
        c->entry = &e[i];
        if (weak) t->weak_used[b] = t->has_weak = 1;
        else t->bench_used[b] = 1;
        c->minutes = weak ? summarizer_weak_minutes(&s[i]) : summarizer_minutes(&s[i]);
        c->why = isnan(c->minutes) ? (s[i].score.why ? s[i].score.why : "no official score") : NULL;
        c->summary = &s[i];
    }
    for (size_t r = 0; r < t->n_rows; r++) {
        tta_system_row sys;
        tta_error db_err;
        if (tta_db_system_latest(db, t->rows[r].round, t->rows[r].submitter, t->rows[r].folder, &sys, &db_err) !=
            TTA_OK)
            return tta_report_fail(&db_err, err);
        const char *ruleset = NULL;
        for (size_t b = 0; b < t->n_bench && !ruleset; b++)
            if (t->rows[r].cells[b].entry) ruleset = t->rows[r].cells[b].entry->ruleset;
            else if (t->rows[r].weak[b].entry) ruleset = t->rows[r].weak[b].entry->ruleset;
        int split = 0;
        for (size_t q = 0; q < t->n_rows && !split; q++)
            split = q != r && !strcmp(t->rows[q].submitter, t->rows[r].submitter) &&
                    !strcmp(t->rows[q].folder, t->rows[r].folder);
        describe_row(&t->rows[r], &sys, ruleset, split);
        tta_system_row_clear(&sys);
        /* the scores' notes after the description's */
        for (size_t b = 0; b < t->n_bench; b++) {
            const summary_cell *c = &t->rows[r].cells[b];
            buf note = {0};
            if (c->entry && !isnan(c->minutes) && c->summary->scaling_factor != 1.0)
                buf_printf(&note, "%s: score × %.4f (scaling.json: RCP normalisation)", t->bench_name[b],
                           c->summary->scaling_factor);
            else if (c->entry && !isnan(c->minutes) && c->summary->score.why)
                buf_printf(&note, "%s: %s", t->bench_name[b], c->summary->score.why);
            if (note.len) row_note(&t->rows[r], buf_str(&note));
            buf_clear(&note);
            const summary_cell *w = &t->rows[r].weak[b];
            if (w->entry && isnan(w->minutes))
                buf_printf(&note, "%s weak scaling: %s", t->bench_name[b], w->why);
            if (note.len) row_note(&t->rows[r], buf_str(&note));
            buf_free(&note);
        }
    }
    sort_rows(t);
    return 0;
}

/* Loads the selection and builds one table per round in it (*tables, *n_tables; free each with
 * round_table_free, then the array, then the entries). 0, or 1 with *err. */
static int build_tables(sqlite3 *db, const tta_filter *f, tta_entry_data **e, size_t *n, tta_entry_summary **s,
                        round_table **tables, size_t *n_tables, char **err) {
    *tables = NULL;
    *n_tables = 0;
    *s = NULL;
    if (tta_entries_load(db, f, 0, e, n, err)) return 1;
    *s = callocCheck(*n ? *n : 1, sizeof **s);
    for (size_t i = 0; i < *n; i++) tta_summarize_entry(&(*e)[i], &(*s)[i], 0);
    const char **rounds = mallocCheck((*n ? *n : 1) * sizeof *rounds);
    size_t nr = distinct_rounds(*e, *n, rounds);
    *tables = callocCheck(nr ? nr : 1, sizeof **tables);
    int rc = 0;
    for (size_t k = 0; k < nr && rc == 0; k++) {
        rc = build_round(db, rounds[k], *e, *s, *n, &(*tables)[k], err);
        (*n_tables)++;
    }
    free(rounds);
    return rc;
}

/* Releases what build_tables gave. */
static void free_tables(tta_entry_data *e, size_t n, tta_entry_summary *s, round_table *tables, size_t n_tables) {
    for (size_t k = 0; k < n_tables; k++) round_table_free(&tables[k]);
    free(tables);
    free(s);
    tta_entries_free(e, n);
}

/* ---- output ----------------------------------------------------------------------------------- */

/* The summarizer's CSV (as pandas' to_csv writes it: LF line ends, floats as repr, missing values
 * empty), then tta's columns round, system_folder and <benchmark>_entry. */
static void write_csv(const round_table *t, buf *out) {
    for (int k = 0; k < O_BEFORE_BENCHMARKS; k++) buf_printf(out, "%s,", official_keys[k]);
    for (size_t b = 0; b < t->n_bench; b++) {
        tta_csv_field(out, t->bench_name[b]);
        buf_putc(out, ',');
    }
    buf_printf(out, "%s,%s,round,system_folder", official_keys[O_DETAILS_URL], official_keys[O_CODE_URL]);
    for (size_t b = 0; b < t->n_bench; b++) {
        buf_putc(out, ',');
        buf_printf(out, "%s_entry", t->bench_name[b]);
    }
    /* MLPerf HPC: the summarizer's weak-table columns of each benchmark, then tta's throughput and
     * the weak-scaling entry */
    for (size_t b = 0; t->has_weak && b < t->n_bench; b++)
        buf_printf(out, ",%s:number_of_models,%s:instance_scale,%s:time_to_train_all,%s:models_per_min,%s_weak_entry",
                   t->bench_name[b], t->bench_name[b], t->bench_name[b], t->bench_name[b], t->bench_name[b]);
    buf_putc(out, '\n');
    for (size_t i = 0; i < t->n_rows; i++) {
        const summary_row *r = &t->rows[i];
        for (int k = 0; k < O_BEFORE_BENCHMARKS; k++) {
            if (r->text[k]) tta_csv_field(out, r->text[k]);
            buf_putc(out, ',');
        }
        for (size_t b = 0; b < t->n_bench; b++) {
            if (!isnan(r->cells[b].minutes)) py_float_repr(out, r->cells[b].minutes);
            buf_putc(out, ',');
        }
        for (int k = O_BEFORE_BENCHMARKS; k < O_COUNT; k++) {
            if (r->text[k]) tta_csv_field(out, r->text[k]);
            buf_putc(out, ',');
        }
        tta_csv_field(out, r->round);
        buf_putc(out, ',');
        tta_csv_field(out, r->folder);
        for (size_t b = 0; b < t->n_bench; b++) {
            buf_putc(out, ',');
            if (r->cells[b].entry) buf_printf(out, "%lld", (long long)r->cells[b].entry->id);
        }
        for (size_t b = 0; t->has_weak && b < t->n_bench; b++) {
            const summary_cell *w = &r->weak[b];
            int scored = w->entry && !isnan(w->minutes);
            const tta_weak_score *ws = scored ? &w->summary->weak_score : NULL;
            buf_putc(out, ',');
            if (scored) buf_printf(out, "%zu", ws->n_models);
            buf_putc(out, ',');
            if (scored && ws->instance_scale >= 0) buf_printf(out, "%d", ws->instance_scale);
            buf_putc(out, ',');
            if (scored) py_float_repr(out, w->minutes);
            buf_putc(out, ',');
            if (scored) py_float_repr(out, (double)ws->n_models / w->minutes);
            buf_putc(out, ',');
            if (w->entry) buf_printf(out, "%lld", (long long)w->entry->id);
        }
        buf_putc(out, '\n');
    }
}

/* Columns of the tta_table (JSON, table, Markdown, HTML): the summarizer's, then tta's. People see
 * the system's folder (what --system and the other reports name) beside its description, and the
 * benchmark columns that have an entry. */
typedef struct {
    tta_column *cols;
    size_t n_cols;
    int *role;  /* per column: the O_* index, or ROLE_BENCH + b, ROLE_ENTRY + b, ROLE_ACC_MIN + b, or a
                   ROLE_* below */
    buf names; /* owns the benchmark columns' keys and headers */
} summary_columns;

enum {
    ROLE_FOLDER_PEOPLE = -1, ROLE_ROUND = -2, ROLE_FOLDER = -3, ROLE_BENCH = 1000, ROLE_ENTRY = 2000,
    ROLE_ACC_MIN = 3000, /* <benchmark>_accelerator_minutes: the cell's entry's accelerators x its score */
    /* MLPerf HPC's weak-scaling score, as the summarizer's weak table names it (<benchmark>:...),
     * and its throughput */
    ROLE_W_TIME = 4000, ROLE_W_MODELS = 5000, ROLE_W_SCALE = 6000, ROLE_W_RATE = 7000, ROLE_W_END = 8000
};

/* Each benchmark's names in summary_columns.names: key and header of its score column, its
 * entry and accelerator-minutes keys, then key and header of each weak-scaling column. */
enum { NAME_KEY, NAME_HEADER, NAME_ENTRY, NAME_ACC_MIN, NAME_W_TIME, NAME_W_TIME_H, NAME_W_MODELS, NAME_W_MODELS_H,
       NAME_W_SCALE, NAME_W_SCALE_H, NAME_W_RATE, NAME_W_RATE_H, NAMES_PER_BENCH };

/* Releases c's arrays and names. */
static void summary_columns_free(summary_columns *c) {
    free(c->cols);
    free(c->role);
    buf_free(&c->names);
}

/* Appends a column and its role. */
static void add_column(summary_columns *c, size_t *cap, tta_column col, int role) {
    growArray(c->cols, cap, c->n_cols + 1);
    c->role = reallocCheck(c->role, *cap * sizeof *c->role);
    c->cols[c->n_cols] = col;
    c->role[c->n_cols++] = role;
}

/* Fills c with the columns of t's table (for_people: without benchmarks no row has). */
static void make_columns(const round_table *t, int for_people, summary_columns *c) {
    memset(c, 0, sizeof *c);
    size_t cap = 0;
    /* keys and headers of the benchmark columns live in c->names: offsets first, pointers after */
    size_t *key_at = mallocCheck((t->n_bench ? t->n_bench : 1) * NAMES_PER_BENCH * sizeof *key_at);
    static const char *const formats[NAMES_PER_BENCH] = {
        [NAME_KEY] = "%s", [NAME_HEADER] = "%s (min)", [NAME_ENTRY] = "%s_entry",
        [NAME_ACC_MIN] = "%s_accelerator_minutes", [NAME_W_TIME] = "%s:time_to_train_all",
        [NAME_W_TIME_H] = "%s weak (min)", [NAME_W_MODELS] = "%s:number_of_models", [NAME_W_MODELS_H] = "%s models",
        [NAME_W_SCALE] = "%s:instance_scale", [NAME_W_SCALE_H] = "%s acc/model",
        [NAME_W_RATE] = "%s:models_per_min", [NAME_W_RATE_H] = "%s models/min",
    };
    for (size_t b = 0; b < t->n_bench; b++)
        for (int k = 0; k < NAMES_PER_BENCH; k++) {
            key_at[NAMES_PER_BENCH * b + (size_t)k] = c->names.len;
            buf_printf(&c->names, formats[k], t->bench_name[b]);
            buf_putc(&c->names, '\0');
        }
    /* The summarizer's columns, in its order and with its names (CSV is compared with its CSV cell
     * by cell): a row is a system, not an entry. Division and submitter are the identity columns
     * (builders.h); its "system" is not: it is the description's system_name, which people do not
     * see (they see the folder, tta's system, headed "system"; scripts get it as system_folder). */
    static const tta_column fixed[O_COUNT] = {
        [O_DIVISION] = TTA_DIVISION_COLUMN,
        [O_AVAILABILITY] = {"availability", "availability", TTA_COL_TEXT, 0, 0},
        [O_SUBMITTER] = TTA_SUBMITTER_COLUMN,
        [O_SYSTEM] = {"system", "system name", TTA_COL_TEXT, 0, TTA_FOR_SCRIPTS},
        [O_NODES] = {"number_of_nodes", "nodes", TTA_COL_TEXT, 0, TTA_FOR_SCRIPTS},
        [O_PROCESSOR] = {"host_processor_model_name", "processor", TTA_COL_TEXT, 0, 0},
        [O_PROCESSORS] = {"host_processors_count", "cpus", TTA_COL_INT, 0, TTA_FOR_SCRIPTS},
        [O_ACCELERATOR] = {"accelerator_model_name", "accelerator", TTA_COL_TEXT, 0, 0},
        [O_ACCELERATORS] = {"accelerators_count", "accel", TTA_COL_INT, 0, 0},
        [O_FRAMEWORK] = {"framework", "framework", TTA_COL_TEXT, 0, 0},
        [O_NOTES] = {"notes", "notes", TTA_COL_TEXT, 0, TTA_FOR_SCRIPTS},
        [O_PRIVATE_ID] = {"private_id", "private id", TTA_COL_TEXT, 0, TTA_FOR_SCRIPTS},
        [O_DETAILS_URL] = {"details_url", "details", TTA_COL_TEXT, 0, TTA_FOR_SCRIPTS},
        [O_CODE_URL] = {"code_url", "code", TTA_COL_TEXT, 0, TTA_FOR_SCRIPTS},
    };
    for (int k = 0; k < O_BEFORE_BENCHMARKS; k++) {
        add_column(c, &cap, fixed[k], k);
        if (k == O_SUBMITTER)
            add_column(c, &cap, (tta_column){"folder", "system", TTA_COL_TEXT, 0, TTA_FOR_PEOPLE}, ROLE_FOLDER_PEOPLE);
    }
    for (size_t b = 0; b < t->n_bench; b++) {
        if (for_people && !t->bench_used[b]) continue;
        add_column(c, &cap, (tta_column){NULL, NULL, TTA_COL_NUMBER, 2, 0}, ROLE_BENCH + (int)b);
    }
    /* MLPerf HPC: the weak-scaling score of each benchmark (the summarizer's weak table) */
    for (size_t b = 0; t->has_weak && b < t->n_bench; b++) {
        if (for_people && !t->weak_used[b]) continue;
        add_column(c, &cap, (tta_column){NULL, NULL, TTA_COL_NUMBER, 2, 0}, ROLE_W_TIME + (int)b);
        add_column(c, &cap, (tta_column){NULL, NULL, TTA_COL_INT, 0, 0}, ROLE_W_MODELS + (int)b);
        add_column(c, &cap, (tta_column){NULL, NULL, TTA_COL_INT, 0, 0}, ROLE_W_SCALE + (int)b);
        add_column(c, &cap, (tta_column){NULL, NULL, TTA_COL_NUMBER, 2, 0}, ROLE_W_RATE + (int)b);
    }
    for (int k = O_BEFORE_BENCHMARKS; k < O_COUNT; k++) add_column(c, &cap, fixed[k], k);
    add_column(c, &cap, (tta_column)TTA_ROUND_COLUMN, ROLE_ROUND);
    add_column(c, &cap, (tta_column){"system_folder", "folder", TTA_COL_TEXT, 0, TTA_FOR_SCRIPTS}, ROLE_FOLDER);
    for (size_t b = 0; b < t->n_bench; b++)
        add_column(c, &cap, (tta_column){NULL, NULL, TTA_COL_INT, 0, TTA_FOR_SCRIPTS}, ROLE_ENTRY + (int)b);
    for (size_t b = 0; b < t->n_bench; b++)
        add_column(c, &cap, (tta_column){NULL, NULL, TTA_COL_NUMBER, 0, TTA_FOR_SCRIPTS}, ROLE_ACC_MIN + (int)b);
    /* the buffer is final: point the benchmark columns at their names */
    for (size_t j = 0; j < c->n_cols; j++) {
        int role = c->role[j];
        size_t key = 0, header = 0, b = 0;
        if (role >= ROLE_W_END) continue;
        if (role >= ROLE_W_TIME) {
            int group = (role - ROLE_W_TIME) / 1000; /* 0 time, 1 models, 2 scale, 3 rate */
            b = (size_t)(role % 1000);
            key = (size_t)(NAME_W_TIME + 2 * group);
            header = key + 1;
        } else if (role >= ROLE_ACC_MIN) {
            b = (size_t)(role - ROLE_ACC_MIN);
            key = header = NAME_ACC_MIN;
        } else if (role >= ROLE_ENTRY) {
            b = (size_t)(role - ROLE_ENTRY);
            key = header = NAME_ENTRY;
        } else if (role >= ROLE_BENCH) {
            b = (size_t)(role - ROLE_BENCH);
            key = NAME_KEY;
            header = NAME_HEADER;
        } else {
            continue;
        }
        c->cols[j].key = c->names.data + key_at[NAMES_PER_BENCH * b + key];
        c->cols[j].header = c->names.data + key_at[NAMES_PER_BENCH * b + header];
    }
    free(key_at);
}

/* The division as MLCommons' rules and its system-description schema spell it ("closed", "open"),
 * whatever case a description wrote it in ("Closed"): what people see. */
static void division_spelled(buf *out, const char *division) {
    for (const char *p = division; *p; p++) buf_putc(out, (char)tolower((unsigned char)*p));
}

/* Orders people's rows: by the division as spelled for them (a "Closed" description among the
 * closed rows), then the summarizer's order (the index: stable). */
static int compare_people_rows(const void *pa, const void *pb, void *ctx) {
    const round_table *t = ctx;
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    const char *x = t->rows[a].text[O_DIVISION], *y = t->rows[b].text[O_DIVISION];
    int c = x && y ? strcasecmp(x, y) : (x == NULL) - (y == NULL);
    return c ? c : (a > b) - (a < b);
}

/* How summary_table writes the division for people: spelled as MLCommons does (division_spelled),
 * and the rows grouped by it (the HTML page keeps the summarizer's row order: its sort ranks follow
 * it). */
enum { PEOPLE_SPELL = 1, PEOPLE_GROUP = 2 };

/* Sets a weak-scaling cell of column j: group 0 the time to train every instance (minutes), 1 the
 * instances counted, 2 the accelerators of one, 3 the throughput (instances per minute). */
static void set_weak_cell(tta_table *tab, size_t row, size_t j, const summary_cell *w, int group) {
    if (!w->entry) return;
    const tta_weak_score *ws = &w->summary->weak_score;
    switch (group) {
    case 0: tta_table_set_number_or(tab, row, j, w->minutes, w->why); break;
    case 1: tta_table_set_number_or(tab, row, j, isnan(w->minutes) ? NAN : (double)ws->n_models, w->why); break;
    case 2:
        tta_table_set_number_or(tab, row, j, ws->instance_scale >= 0 && !isnan(w->minutes) ? ws->instance_scale : NAN,
                                isnan(w->minutes) ? w->why : "the logs name no number_of_nodes");
        break;
    default: tta_table_set_number_or(tab, row, j, (double)ws->n_models / w->minutes, w->why); break;
    }
}

/* The round's table as a tta_table (columns from make_columns); people: PEOPLE_* flags, 0 for
 * scripts (the descriptions' text in the summarizer's order). */
static tta_table *summary_table(const round_table *t, const summary_columns *c, int people) {
    tta_table *tab = tta_table_new(c->cols, c->n_cols);
    /* On a narrow terminal the system's description gives way before its name and scores do:
     * availability first, then the processor, the framework, the accelerator's name. */
    for (size_t j = 0; j < c->n_cols; j++) {
        int role = c->role[j];
        int rank = role == O_AVAILABILITY ? 4 : role == O_PROCESSOR ? 3 : role == O_FRAMEWORK ? 2
                 : role == O_ACCELERATOR ? 1 : 0;
        if (rank) tta_table_set_fit(tab, j, 0, rank);
    }
    size_t *order = callocCheck(t->n_rows + 1, sizeof *order);
    for (size_t i = 0; i < t->n_rows; i++) order[i] = i;
    if ((people & PEOPLE_GROUP) && t->n_rows > 1) qsort_r(order, t->n_rows, sizeof *order, compare_people_rows, (void *)t);
    for (size_t i = 0; i < t->n_rows; i++) {
        const summary_row *r = &t->rows[order[i]];
        size_t row = tta_table_add_row(tab);
        for (size_t j = 0; j < c->n_cols; j++) {
            int role = c->role[j];
            if (role >= ROLE_W_TIME && role < ROLE_W_END) {
                set_weak_cell(tab, row, j, &r->weak[role % 1000], (role - ROLE_W_TIME) / 1000);
            } else if (role >= ROLE_ACC_MIN) {
                const summary_cell *cell = &r->cells[role - ROLE_ACC_MIN];
                if (cell->entry && cell->entry->accelerators > 0)
                    tta_table_set_number_or(tab, row, j, cell->entry->accelerators * cell->minutes, cell->why);
            } else if (role >= ROLE_ENTRY) {
                const summary_cell *cell = &r->cells[role - ROLE_ENTRY];
                if (cell->entry) tta_table_set_number(tab, row, j, (double)cell->entry->id);
            } else if (role >= ROLE_BENCH) {
                const summary_cell *cell = &r->cells[role - ROLE_BENCH];
                if (cell->entry) tta_table_set_number_or(tab, row, j, cell->minutes, cell->why);
            } else if (role == ROLE_ROUND) {
                tta_table_set_text(tab, row, j, r->round);
            } else if (role == ROLE_FOLDER || role == ROLE_FOLDER_PEOPLE) {
                tta_table_set_text(tab, row, j, r->folder);
            } else if (!r->text[role]) {
                tta_table_set_missing(tab, row, j, r->why[role]);
            } else if (is_count(role)) {
                tta_table_set_number(tab, row, j, (double)r->count[role]);
            } else if ((people & PEOPLE_SPELL) && role == O_DIVISION) {
                buf d = {0};
                division_spelled(&d, r->text[role]);
                tta_table_set_text(tab, row, j, buf_str(&d));
                buf_free(&d);
            } else {
                tta_table_set_text(tab, row, j, r->text[role]);
            }
        }
        for (size_t k = 0; k < r->n_notes; k++) tta_table_add_note(tab, row, r->notes[k]);
        /* each benchmark's flagged runs (the official score keeps them where the summarizer does) */
        for (size_t b = 0; b < t->n_bench; b++) {
            if (r->cells[b].entry) tta_table_note_flags_of(tab, row, r->cells[b].entry, NULL, t->bench_name[b]);
            if (r->weak[b].entry) tta_table_note_flags_of(tab, row, r->weak[b].entry, NULL, t->bench_name[b]);
        }
    }
    free(order);
    return tab;
}

int tta_report_summary(sqlite3 *db, const tta_filter *f, const tta_report_options *o, FILE *out, char **err) {
    tta_entry_data *e;
    tta_entry_summary *s;
    round_table *tables;
    size_t n, n_tables;
    int rc = build_tables(db, f, &e, &n, &s, &tables, &n_tables, err);
    if (rc == 0 && n_tables > 1) {
        buf b = {0};
        buf_puts(&b, "the results table is one round's: choose one with --round (the selection has");
        for (size_t k = 0; k < n_tables; k++) buf_printf(&b, "%s %s", k ? "," : "", tables[k].round);
        buf_puts(&b, ")");
        *err = buf_take(&b);
        rc = 1;
    }
    if (rc == 0) {
        round_table empty = {0};
        const round_table *t = n_tables ? &tables[0] : &empty;
        if (n_tables == 0 && n == 0) fputs("tta report summary: no entry matches the selection\n", stderr);
        else if (n_tables == 0)
            fprintf(stderr, "tta report summary: no MLPerf entry matches the selection (its %zu entr%s of DAWNBench, "
                            "replays or an unknown round ha%s no official score)\n",
                    n, n == 1 ? "y" : "ies", n == 1 ? "s" : "ve");
        buf b = {0};
        if (o->format == TTA_FORMAT_CSV) {
            write_csv(t, &b);
            fwrite(buf_str(&b), 1, b.len, out);
        } else {
            summary_columns c;
            make_columns(t, o->format != TTA_FORMAT_JSON, &c);
            tta_table *tab = summary_table(t, &c, o->format != TTA_FORMAT_JSON ? PEOPLE_SPELL | PEOPLE_GROUP : 0);
            tta_table_write(tab, (tta_out_format)o->format, out);
            tta_table_free(tab);
            summary_columns_free(&c);
        }
        buf_free(&b);
    }
    free_tables(e, n, s, tables, n_tables);
    return rc;
}

/* ---- the HTML section ------------------------------------------------------------------------- */

/* Sort keys of the HTML table (html.c's stylesheet has .k1 ... .k24). */
#define HTML_SORT_KEYS 24
/* A description (processor, accelerator, framework) up to this many characters fits its clipped
 * column's 10em on one line, whole: its cell needs no tooltip. */
#define CLIP_CHARS 15
#define HTML_WIDE_COLUMNS 16

typedef struct {
    const tta_table_display *d;
    size_t col;
} sort_ctx;

/* A row of the display to sort, with what it is sorted by (qsort has no context argument). */
typedef struct {
    size_t row;
    const sort_ctx *by;
} sort_item;

/* Rows of the display by one column: numbers by value, text by bytes, missing values last, ties
 * in the summarizer's order. */
static int compare_display_rows(const void *pa, const void *pb) {
    const sort_item *ia = pa, *ib = pb;
    size_t a = ia->row, b = ib->row;
    const tta_table_display *d = ia->by->d;
    size_t j = ia->by->col;
    int ma = d->note_of[a * d->n_cols + j] != 0, mb = d->note_of[b * d->n_cols + j] != 0;
    const char *x = d->cell[a * d->n_cols + j], *y = d->cell[b * d->n_cols + j];
    int c = ma - mb;
    if (!c && !ma && (!*x || !*y)) c = (*x == '\0') - (*y == '\0');
    if (!c && !ma && *x && *y) {
        if (tta_col_kind_is_numeric(d->col[j]->kind)) {
            double u = strtod(x, NULL), v = strtod(y, NULL);
            c = (u > v) - (u < v);
        } else {
            c = strcmp(x, y);
        }
    }
    return c ? c : (a > b) - (a < b);
}

/* Is the results table's column keyed key one whose text the page shows on one line, cut (the
 * descriptions of the processor, accelerator and framework)? */
static int is_clipped_column(const char *key) {
    static const char *const clipped[] = {"host_processor_model_name", "accelerator_model_name", "framework"};
    for (size_t k = 0; k < sizeof clipped / sizeof clipped[0]; k++)
        if (!strcmp(key, clipped[k])) return 1;
    return 0;
}

/* Appends the round's table as a section: a heading, a paragraph, then a table whose headers sort
 * it (links to #<id>-k<N>, a hidden target per key whose :target sets the cells' CSS order from
 * the row's --k<N>: no script), each score with its entry id below, linked to id="entry-<id>" when
 * anchors holds that anchor; a missing value is blank (its footnote mark kept). */
static void html_round(const round_table *t, const char *anchors, buf *page) {
    summary_columns c;
    make_columns(t, 1, &c);
    tta_table *tab = summary_table(t, &c, PEOPLE_SPELL);
    tta_table_display d;
    tta_table_display_init(&d, tab);
    buf id = {0}, text = {0};
    buf_printf(&id, "summary-%s", t->round);
    buf_printf(&text, "Results table: %s", t->round);
    tta_html_heading(page, buf_str(&text));
    buf_clear(&text);
    buf_printf(&text, "One row per system and one column per benchmark with the official score in minutes (the olympic "
                      "mean times the scaling.json factor), as MLCommons' result summarizer makes it "
                      "(`tta report summary --round %s --format csv` writes its CSV). Under each score, the entry id "
                      "to give `tta report compare`, `verify` and --entry. A column heading sorts the table by it.",
               t->round);
    tta_html_paragraph(page, buf_str(&text));
    /* which display column is which benchmark (the display holds the people's columns in order) */
    int *bench_of = mallocCheck((d.n_cols ? d.n_cols : 1) * sizeof *bench_of);
    for (size_t j = 0; j < d.n_cols; j++) {
        bench_of[j] = -1;
        for (size_t k = 0; k < c.n_cols; k++)
            if (d.col[j] == &c.cols[k] || !strcmp(d.col[j]->key, c.cols[k].key)) {
                if (c.role[k] >= ROLE_BENCH && c.role[k] < ROLE_ENTRY) bench_of[j] = c.role[k] - ROLE_BENCH;
                break;
            }
    }
    /* the columns shown: all but the round's, which the heading names (one round per table) */
    size_t *vis = mallocCheck((d.n_cols ? d.n_cols : 1) * sizeof *vis), n_vis = 0;
    for (size_t j = 0; j < d.n_cols; j++)
        if (strcmp(d.col[j]->key, "round") != 0) vis[n_vis++] = j;
    size_t n_keys = n_vis < HTML_SORT_KEYS ? n_vis : HTML_SORT_KEYS;
    size_t *rank = mallocCheck((d.n_rows ? d.n_rows : 1) * (n_keys ? n_keys : 1) * sizeof *rank);
    sort_item *order = mallocCheck((d.n_rows ? d.n_rows : 1) * sizeof *order);
    for (size_t v = 0; v < n_keys; v++) {
        sort_ctx ctx = {&d, vis[v]};
        for (size_t i = 0; i < d.n_rows; i++) order[i] = (sort_item){i, &ctx};
        if (d.n_rows > 1) qsort(order, d.n_rows, sizeof *order, compare_display_rows);
        for (size_t p = 0; p < d.n_rows; p++) rank[order[p].row * n_keys + v] = p + 1;
    }
    /* the columns' names for a phone's cards (each row one, its cells one under another) */
    const char **names = mallocCheck((n_vis ? n_vis : 1) * sizeof *names);
    for (size_t v = 0; v < n_vis; v++) names[v] = d.header[vis[v]];
    char label_cls[14];
    tta_html_cell_labels(page, names, n_vis, label_cls);
    free(names);
    buf_printf(page, "<div class=\"sortable\" id=\"");
    tta_xml_escape(page, buf_str(&id));
    buf_puts(page, "\">\n");
    for (size_t v = 0; v < n_keys; v++) {
        buf_puts(page, "<span id=\"");
        tta_xml_escape(page, buf_str(&id));
        buf_printf(page, "-k%zu\" class=\"k%zu\"></span>", v + 1, v + 1);
    }
    /* numeric columns right-aligned by the table's class (rK: the Kth column; the stylesheet's
     * rules reach HTML_SORT_KEYS), not a class on each of the table's thousands of cells */
    /* a table of more columns than HTML_WIDE_COLUMNS (HPC's: four a weak-scaling benchmark) is set
     * tighter still, to fit the page */
    buf_printf(page, "\n<div class=\"table-wrap\">\n<table class=\"%s dense%s", label_cls,
               n_vis > HTML_WIDE_COLUMNS ? " wide" : "");
    for (size_t v = 0; v < n_vis; v++)
        if (tta_col_kind_is_numeric(d.col[vis[v]]->kind)) {
            if (v < HTML_SORT_KEYS) buf_printf(page, " r%zu", v + 1);
        }
    buf_printf(page, "\" style=\"grid-template-columns:repeat(%zu,auto)\">\n<thead>\n<tr>", n_vis);
    for (size_t v = 0; v < n_vis; v++) {
        size_t j = vis[v];
        /* a number's long heading (a benchmark's) may break inside a word (class n); "accel" not */
        int numeric = tta_col_kind_is_numeric(d.col[j]->kind), breaks = numeric && strlen(d.header[j]) > 6;
        buf_puts(page, numeric && v >= HTML_SORT_KEYS ? (breaks ? "<th class=\"n num\">" : "<th class=\"num\">")
                       : breaks                       ? "<th class=\"n\">"
                                                      : "<th>");
        if (v < n_keys) {
            buf_puts(page, "<a href=\"#");
            tta_xml_escape(page, buf_str(&id));
            buf_printf(page, "-k%zu\" title=\"sort by this column\">", v + 1);
        }
        tta_html_escape_breakable(page, d.header[j]); /* "llama2_70b_lora (min)" may wrap at its '_' */
        if (v < n_keys) buf_puts(page, "</a>");
    }
    /* a cell's and a row's end tags are left out, as HTML allows (the next cell, row or the
     * table's end closes them) */
    buf_puts(page, "\n</thead>\n<tbody>\n");
    for (size_t i = 0; i < d.n_rows; i++) {
        buf_puts(page, "<tr style=\"");
        for (size_t v = 0; v < n_keys; v++) buf_printf(page, "--k%zu:%zu;", v + 1, rank[i * n_keys + v]);
        buf_puts(page, "\">");
        size_t cell_at = 0; /* where the last cell's content starts */
        for (size_t v = 0; v < n_vis; v++) {
            size_t j = vis[v], at = i * d.n_cols + j;
            int numeric = tta_col_kind_is_numeric(d.col[j]->kind), note = d.note_of[at];
            /* long descriptions (processor, accelerator, framework) take one line, cut with "…" and
             * whole in the tooltip, so that a row is as tall as its system's name; one that fits
             * (CLIP_CHARS) is a plain cell */
            int clip = !numeric && !note && is_clipped_column(d.col[j]->key) && tta_utf8_width(d.cell[at]) > CLIP_CHARS;
            if (numeric && v >= HTML_SORT_KEYS) buf_printf(page, "<td class=\"num%s\"", note ? " na" : "");
            else if (note || clip) buf_puts(page, note ? "<td class=\"na\"" : "<td class=\"clip\"");
            else buf_puts(page, "<td");
            if (note > 0 || clip) {
                buf_puts(page, " title=\"");
                tta_xml_escape(page, note > 0 ? d.note[note - 1] : d.cell[at]);
                buf_putc(page, '"');
            }
            buf_putc(page, '>');
            cell_at = page->len;
            /* as MLCommons' table: a cell without a value is blank (its footnote mark kept, the
             * reason in the tooltip) */
            const char *text = d.cell[at];
            if (note && !strncmp(text, "n/a", 3)) text += 3;
            if (numeric) tta_xml_escape(page, text);
            else tta_html_escape_breakable(page, text);
            if (v == 0) { /* the row's footnote marks, which may wrap after each comma: "closed¹,²,<wbr>³" */
                for (const char *m = d.row_mark[i]; *m;) {
                    size_t len = strcspn(m, ",");
                    char *part = strndupCheck(m, len + (m[len] == ','));
                    tta_xml_escape(page, part);
                    free(part);
                    m += len + (m[len] == ',');
                    if (*m) buf_puts(page, "<wbr>");
                }
            }
            const summary_cell *cell = bench_of[j] >= 0 ? &t->rows[i].cells[bench_of[j]] : NULL;
            if (cell && cell->entry) {
                char anchor[48];
                snprintf(anchor, sizeof anchor, "id=\"entry-%lld\"", (long long)cell->entry->id);
                if (anchors && strstr(anchors, anchor))
                    buf_printf(page, "<a href=\"#entry-%lld\">#%lld</a>", (long long)cell->entry->id,
                               (long long)cell->entry->id);
                else
                    buf_printf(page, "<span class=\"id\">#%lld</span>", (long long)cell->entry->id);
            }
        }
        /* an empty last cell is closed before the line's end, so that it stays :empty (a phone's
         * card leaves it out) */
        if (cell_at && page->len == cell_at) buf_puts(page, "</td>");
        buf_putc(page, '\n');
    }
    if (d.n_rows == 0) buf_printf(page, "<tr><td class=\"empty\">(no rows)</td></tr>\n");
    buf_puts(page, "</tbody>\n</table>\n</div>\n");
    if (d.n_notes) {
        buf_puts(page, "<ul class=\"notes\">\n");
        for (size_t k = 0; k < d.n_notes; k++) {
            buf_puts(page, "<li>");
            tta_superscript(page, (int)k + 1);
            buf_putc(page, ' ');
            tta_xml_escape(page, d.note[k]);
            buf_puts(page, "</li>\n");
        }
        buf_puts(page, "</ul>\n");
    }
    buf_puts(page, "</div>\n");
    free(rank);
    free(order);
    free(bench_of);
    free(vis);
    buf_free(&id);
    buf_free(&text);
    tta_table_display_free(&d);
    tta_table_free(tab);
    summary_columns_free(&c);
}

int tta_summary_html_section(sqlite3 *db, const tta_filter *f, buf *page, size_t at, char **err) {
    assert(at <= page->len);
    tta_entry_data *e;
    tta_entry_summary *s;
    round_table *tables;
    size_t n, n_tables;
    int rc = build_tables(db, f, &e, &n, &s, &tables, &n_tables, err);
    if (rc == 0 && n_tables > 0) {
        buf section = {0};
        for (size_t k = 0; k < n_tables; k++) html_round(&tables[k], buf_str(page), &section);
        /* insert at `at`: the results table opens the page, above the sections it links to */
        buf rest = {0};
        buf_append(&rest, page->data + at, page->len - at);
        page->len = at;
        buf_append(page, section.data, section.len);
        buf_append(page, rest.data, rest.len);
        buf_free(&rest);
        buf_free(&section);
    }
    free_tables(e, n, s, tables, n_tables);
    return rc;
}
