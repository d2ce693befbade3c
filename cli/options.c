/* options.c: what every command shares: usage errors, positive numbers, filters, --format and --wide. */
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

/* "MIN:MAX", "MIN:" or ":MAX" (positive whole numbers, MIN <= MAX) into *min and *max (0: no
 * bound); 0, or -1 when it is not one. */
static int parse_range(const char *s, int *min, int *max) {
    const char *colon = strchr(s, ':');
    if (!colon) return -1;
    char lo[32] = "";
    if ((size_t)(colon - s) >= sizeof lo) return -1;
    memcpy(lo, s, (size_t)(colon - s));
    long a = *lo ? cli_parse_positive(lo) : 0, b = colon[1] ? cli_parse_positive(colon + 1) : 0;
    if (a < 0 || b < 0 || a > 1 << 24 || b > 1 << 24 || (a && b && a > b) || (!a && !b)) return -1;
    *min = (int)a;
    *max = (int)b;
    return 0;
}

int cli_filter_option(int argc, char **argv, int *i, tta_filter *f, tta_error *err) {
    static const char *const names[] = {"--round",       "--division",  "--submitter", "--system",
                                        "--benchmark",   "--accelerator", "--framework", "--availability"};
    const char **fields[] = {&f->round,     &f->division,          &f->submitter, &f->system,
                             &f->benchmark, &f->accelerator_model, &f->framework, &f->availability};
    if (strcmp(argv[*i], "--accelerators") == 0) {
        if (*i + 1 >= argc || parse_range(argv[*i + 1], &f->accelerators_min, &f->accelerators_max) != 0) return -1;
        ++*i;
        return 1;
    }
    for (int k = 0; k < 8; k++) {
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
    if (strcmp(argv[*i], "--sort") == 0 || strcmp(argv[*i], "--top") == 0) {
        /* read by tta_table_write (reports/render.h): every table, in every format, ordered then cut */
        int top = argv[*i][2] == 't';
        const char *v = *i + 1 < argc ? argv[*i + 1] : NULL;
        if (!v || (top ? cli_parse_positive(v) < 0 : (!*v || strstr(v, ",,") || v[strlen(v) - 1] == ',')))
            return tta_fail(err, TTA_EUSAGE, top ? "--top needs a positive number of rows"
                                                 : "--sort needs column keys, COL[,COL] (-COL descending)"), -1;
        ++*i;
        setenv(top ? "TTA_TOP" : "TTA_SORT", v, 1);
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

long cli_parse_threads(const char *s, int *auto_threads) {
    *auto_threads = s && !strcmp(s, "auto");
    if (!*auto_threads) return cli_parse_positive(s);
    cpu_set_t set; /* the CPUs this process may run on (taskset, a container's cpuset) */
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    return ncpu > 0 ? ncpu : 1;
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
