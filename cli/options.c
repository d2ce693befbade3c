/* options.c: what every command shares: usage errors, positive numbers, filters, --format and --wide. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

int cli_filter_option(int argc, char **argv, int *i, tta_filter *f, tta_error *err) {
    static const char *const names[] = {"--round", "--division", "--submitter", "--system", "--benchmark"};
    const char **fields[] = {&f->round, &f->division, &f->submitter, &f->system, &f->benchmark};
    for (int k = 0; k < 5; k++) {
        if (strcmp(argv[*i], names[k]) == 0) {
            if (*i + 1 >= argc) return tta_fail(err, TTA_EUSAGE, "%s needs a value", names[k]), -1;
            /* a /PATTERN/ that PCRE2 cannot compile is refused here, before the database is opened */
            if (tta_filter_value_check(argv[*i + 1], err) != TTA_OK) {
                tta_error_context(err, "%s", names[k]);
                return -1;
            }
            *fields[k] = argv[++*i];
            return 1;
        }
    }
    if (strcmp(argv[*i], "--entry") == 0) {
        long v = *i + 1 < argc ? cli_parse_positive(argv[*i + 1]) : -1;
        if (v < 0)
            return tta_fail(err, TTA_EUSAGE, "--entry needs an entry id (a positive number, `tta ls entries`)"), -1;
        f->entry_id = v;
        ++*i;
        return 1;
    }
    return 0;
}

int cli_format_option(int argc, char **argv, int *i, int *format, tta_error *err) {
    if (strcmp(argv[*i], "--wide") == 0) {
        /* read by tta_table_write (reports/render.h): tables print every value whole */
        setenv("TTA_WIDE", "1", 1);
        return 1;
    }
    if (strcmp(argv[*i], "--format") != 0) return 0;
    const char *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    if (!v) return tta_fail(err, TTA_EUSAGE, "--format needs table, csv, json or markdown"), -1;
    if (!strcmp(v, "table")) *format = TTA_FORMAT_TABLE;
    else if (!strcmp(v, "csv")) *format = TTA_FORMAT_CSV;
    else if (!strcmp(v, "json")) *format = TTA_FORMAT_JSON;
    else if (!strcmp(v, "markdown") || !strcmp(v, "md")) *format = TTA_FORMAT_MARKDOWN;
    else return tta_fail(err, TTA_EUSAGE, "--format '%s': not table, csv, json or markdown", v), -1;
    ++*i;
    return 1;
}

int cli_open_db_readonly(const tta_cli *cli, const char *cmd, sqlite3 **db) {
    tta_error err;
    if (tta_db_open_readonly(cli->db_path, db, &err) != TTA_OK) {
        fprintf(stderr, "tta %s: %s\n", cmd, err.text);
        return 1;
    }
    return 0;
}

int cli_open_db_filtered(const tta_cli *cli, const char *cmd, const tta_filter *f, int say_unmatched, sqlite3 **db) {
    if (cli_open_db_readonly(cli, cmd, db)) return 1;
    tta_error note, err;
    int rc = tta_filter_validate(*db, f, &note, &err);
    if (rc != TTA_OK) {
        fprintf(stderr, "tta %s: %s\n", cmd, err.text);
        tta_db_close(*db);
        *db = NULL;
        return 1;
    }
    if (say_unmatched && note.code != TTA_OK) fprintf(stderr, "tta %s: %s\n", cmd, note.text);
    return 0;
}

int cli_usage_error(const char *cmd, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "tta %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n(see `tta %s --help`)\n", cmd);
    va_end(ap);
    return 2;
}

long cli_parse_positive(const char *s) {
    if (!s || !*s) return -1;
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || v <= 0) return -1;
    return v;
}

int cli_parse_int_list(const char *s, int *b, int max) {
    int n = 0;
    while (*s) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v <= 0 || v > 1 << 20 || n >= max) return -1;
        b[n++] = (int)v;
        if (*end == ',') end++;
        else if (*end) return -1;
        s = end;
    }
    return n;
}

double cli_parse_accuracy(const char *s) {
    if (!s || !*s) return NAN;
    char *end;
    double v = strtod(s, &end);
    if (*end || !(v > 0) || v > 100) return NAN;
    return v > 1 ? v / 100 : v;
}
