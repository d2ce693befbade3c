/* filter.c: the selection of entries every report reads (tta_filter), written once: its SQL
 * (query.h's DB_ENTRY_FILTER), binding it, and the REGEXP function its patterns use.
 *
 * A field written /PATTERN/ is a PCRE2 regular expression. SQLite calls REGEXP once per row: the
 * pattern is compiled (with JIT where the machine has it) on the first row of a statement and
 * kept as the statement's auxiliary data for the rows after it, so a query compiles each pattern
 * once. Patterns are case-insensitive, as the filter's plain values are (COLLATE NOCASE); a
 * pattern may say (?-i). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <assert.h>
#include <stdlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/check.h"
#include "db/query.h"

/* UTF-8 patterns and values; a value that is not valid UTF-8 is matched as far as it is. */
#define DB_REGEX_OPTIONS (PCRE2_CASELESS | PCRE2_UTF | PCRE2_MATCH_INVALID_UTF)

/* The filter's text fields, in tta_filter's order, with the names of their SQL parameters. */
#define N_TEXT_FIELDS 8
static const char *const field_names[N_TEXT_FIELDS] = {"round",       "division",  "submitter",   "system",
                                                       "benchmark",   "accelerator", "framework", "availability"};

static void field_values(const tta_filter *f, const char *v[N_TEXT_FIELDS]) {
    v[0] = f->round;
    v[1] = f->division;
    v[2] = f->submitter;
    v[3] = f->system;
    v[4] = f->benchmark;
    v[5] = f->accelerator_model;
    v[6] = f->framework;
    v[7] = f->availability;
}

/* 1 when f sets a field of the entry's system description. */
static int filters_system(const tta_filter *f) {
    return f->accelerator_model || f->framework || f->availability || f->accelerators_min > 0 ||
           f->accelerators_max > 0;
}

int tta_filter_is_pattern(const char *value) {
    size_t n = value ? strlen(value) : 0;
    return n >= 2 && value[0] == '/' && value[n - 1] == '/';
}

/* Compiles pattern[0..len); NULL with "<PCRE2's message> at offset N" in msg when it does not. */
static pcre2_code *compile(const char *pattern, size_t len, char *msg, size_t msg_len) {
    int code;
    PCRE2_SIZE offset;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, len, DB_REGEX_OPTIONS, &code, &offset, NULL);
    if (!re) {
        PCRE2_UCHAR text[256];
        if (pcre2_get_error_message(code, text, sizeof text) < 0) snprintf((char *)text, sizeof text, "error %d", code);
        snprintf(msg, msg_len, "%s at offset %zu", (const char *)text, (size_t)offset);
    }
    return re;
}

int tta_filter_value_check(const char *value, tta_error *err) {
    if (!tta_filter_is_pattern(value)) return TTA_OK;
    char msg[320];
    pcre2_code *re = compile(value + 1, strlen(value) - 2, msg, sizeof msg);
    if (!re) return tta_fail(err, TTA_EINPUT, "bad regular expression %s: %s", value, msg);
    pcre2_code_free(re);
    return TTA_OK;
}

int tta_filter_check(const tta_filter *f, tta_error *err) {
    if (!f) return TTA_OK;
    const char *v[N_TEXT_FIELDS];
    field_values(f, v);
    for (int k = 0; k < N_TEXT_FIELDS; k++) {
        int rc = tta_filter_value_check(v[k], err);
        if (rc != TTA_OK) return tta_error_context(err, "%s", field_names[k]);
    }
    if (f->accelerators_min > 0 && f->accelerators_max > 0 && f->accelerators_min > f->accelerators_max)
        return tta_fail(err, TTA_EINPUT, "accelerators: %d above %d", f->accelerators_min, f->accelerators_max);
    return TTA_OK;
}

/* ---- REGEXP ----------------------------------------------------------------------------------- */

/* A compiled pattern with the match data its matches reuse: a statement's auxiliary data. */
typedef struct {
    pcre2_code *code;
    pcre2_match_data *match;
} db_regex;

static void regex_free(void *p) {
    db_regex *re = p;
    pcre2_match_data_free(re->match);
    pcre2_code_free(re->code);
    free(re);
}

/* regexp(PATTERN, VALUE), what `VALUE REGEXP PATTERN` calls: 1 when the pattern matches the value
 * anywhere, 0 when not, NULL when either is NULL; an error when the pattern does not compile or
 * PCRE2 gives up on the value (a match limit). */
static void regexp_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    assert(argc == 2);
    const unsigned char *value = sqlite3_value_text(argv[1]);
    int value_len = sqlite3_value_bytes(argv[1]);
    if (!value || sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
    db_regex *re = sqlite3_get_auxdata(ctx, 0);
    int fresh = re == NULL;
    if (fresh) {
        const char *pattern = (const char *)sqlite3_value_text(argv[0]);
        int pattern_len = sqlite3_value_bytes(argv[0]);
        char msg[320];
        pcre2_code *code = compile(pattern ? pattern : "", pattern ? (size_t)pattern_len : 0, msg, sizeof msg);
        if (!code) {
            char text[400];
            snprintf(text, sizeof text, "bad regular expression /%s/: %s", pattern ? pattern : "", msg);
            sqlite3_result_error(ctx, text, -1);
            return;
        }
        /* Without JIT (a machine PCRE2 has none for), pcre2_match interprets the pattern. */
        (void)pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
        re = mallocCheck(sizeof *re);
        re->code = code;
        re->match = pcre2_match_data_create_from_pattern(code, NULL);
        if (!re->match) {
            regex_free(re);
            sqlite3_result_error_nomem(ctx);
            return;
        }
    }
    int rc = pcre2_match(re->code, value, (PCRE2_SIZE)value_len, 0, 0, re->match, NULL);
    if (rc >= 0 || rc == PCRE2_ERROR_NOMATCH) {
        sqlite3_result_int(ctx, rc >= 0);
    } else {
        PCRE2_UCHAR text[256];
        if (pcre2_get_error_message(rc, text, sizeof text) < 0) snprintf((char *)text, sizeof text, "error %d", rc);
        sqlite3_result_error(ctx, (const char *)text, -1);
    }
    /* Last: SQLite may free the data at once (it says so), so nothing may use re after this. */
    if (fresh) sqlite3_set_auxdata(ctx, 0, re, regex_free);
}

int db_register_regexp(sqlite3 *db) {
    return sqlite3_create_function_v2(db, "regexp", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, NULL,
                                      regexp_function, NULL, NULL, NULL);
}

/* ---- statements --------------------------------------------------------------------------------- */

int db_fail(tta_error *err, sqlite3 *db, const char *what) {
    return tta_fail(err, TTA_EDB, "database: %s: %s", what, sqlite3_errmsg(db));
}

/* Binds text (len bytes, or to its end when len < 0) to the parameter called name, when the
 * statement has one. */
static void bind_named(sqlite3_stmt *st, const char *name, const char *text, int len) {
    int i = sqlite3_bind_parameter_index(st, name);
    if (i == 0) return;
    if (text) sqlite3_bind_text(st, i, text, len, SQLITE_TRANSIENT);
    else sqlite3_bind_null(st, i);
}

int db_prepare_filtered(sqlite3 *db, const char *sql, const tta_filter *f, sqlite3_stmt **st, const char *what,
                        tta_error *err) {
    static const tta_filter all = {0};
    if (!f) f = &all;
    *st = NULL;
    int rc = tta_filter_check(f, err);
    if (rc != TTA_OK) return rc;
    if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK) {
        sqlite3_finalize(*st);
        *st = NULL;
        return db_fail(err, db, what);
    }
    const char *v[N_TEXT_FIELDS];
    field_values(f, v);
    for (int k = 0; k < N_TEXT_FIELDS; k++) {
        char plain[32], re[32];
        snprintf(plain, sizeof plain, ":%s", field_names[k]);
        snprintf(re, sizeof re, ":%s_re", field_names[k]);
        int pattern = tta_filter_is_pattern(v[k]);
        bind_named(*st, plain, pattern ? NULL : v[k], -1);
        bind_named(*st, re, pattern ? v[k] + 1 : NULL, pattern ? (int)strlen(v[k]) - 2 : -1);
    }
    static const char *const ints[4] = {":entry", ":sys", ":acc_min", ":acc_max"};
    const int64_t values[4] = {f->entry_id, filters_system(f), f->accelerators_min, f->accelerators_max};
    for (int k = 0; k < 4; k++) {
        int i = sqlite3_bind_parameter_index(*st, ints[k]);
        if (i) sqlite3_bind_int64(*st, i, values[k]);
    }
    return TTA_OK;
}

/* ---- columns ------------------------------------------------------------------------------------- */

char *db_col_text(sqlite3_stmt *st, int i) {
    const unsigned char *t = sqlite3_column_text(st, i);
    return t ? strdupCheck((const char *)t) : NULL;
}

double db_col_real(sqlite3_stmt *st, int i) {
    return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

double db_col_number(sqlite3_stmt *st, int i) {
    int type = sqlite3_column_type(st, i);
    return type == SQLITE_INTEGER || type == SQLITE_FLOAT ? sqlite3_column_double(st, i) : NAN;
}

int db_col_count(sqlite3_stmt *st, int i) {
    return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int(st, i);
}
