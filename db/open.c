/* open.c: opening the tta database, migrating its schema (schemas/NNN_*.sql, embedded) and
 * keeping its copy of the built-in benchmark rules current. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/buf.h"
#include "common/check.h"
#include "common/hash.h"
#include "common/rules.h"
#include "db/writer.h"
#include "db/query.h"

extern const char *const tta_migrations[];
extern const size_t tta_migrations_count;

int tta_schema_version(void) { return (int)tta_migrations_count; }

/* Fails with TTA_EDB and "<path>: <what>: <sqlite message>". */
static int db_error(tta_error *err, const char *path, const char *what, sqlite3 *db) {
    return tta_fail(err, TTA_EDB, "%s: %s: %s", path, what, db ? sqlite3_errmsg(db) : "out of memory");
}

/* Reads PRAGMA user_version; -1 on error. */
static int user_version(sqlite3 *db) {
    sqlite3_stmt *st;
    int v = -1;
    if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK) return -1;
    if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* The application_id tta writes into every database it creates (and into an older tta database
 * the first time a writer opens it): "tta1". */
#define TTA_APPLICATION_ID 0x74746131

/* The first integer of one-row query sql; -1 when it fails (not a database). */
static int pragma_int(sqlite3 *db, const char *sql) {
    sqlite3_stmt *st;
    int v = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
    if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* What a database file is to tta, read without changing it. */
enum { DB_TTA, DB_EMPTY, DB_OLD_TTA, DB_FOREIGN };

/* Tells tta's own databases from others: TTA_OK with *kind DB_TTA (tta's application_id),
 * DB_EMPTY (no table, no version, no application_id: a new file), DB_OLD_TTA (no application_id
 * but a user_version and tta's tables: written by a tta before application_id); else TTA_EDB with
 * "<path>: not a tta database (...); tta leaves it untouched". Reads only. */
static int identify(sqlite3 *db, const char *path, int *kind, tta_error *err) {
    int app = pragma_int(db, "PRAGMA application_id");
    int version = user_version(db);
    int tables = pragma_int(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
    int ours = pragma_int(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('sources',"
                              " 'entries', 'runs', 'systems')");
    if (app == -1 && version < 0)
        return tta_fail(err, TTA_EDB, "%s: not a tta database: %s", path, sqlite3_errmsg(db));
    if ((unsigned)app == TTA_APPLICATION_ID) {
        *kind = DB_TTA;
        return TTA_OK;
    }
    if (app != 0)
        return tta_fail(err, TTA_EDB, "%s: not a tta database (application_id 0x%08x: made by another program); tta"
                        " leaves it untouched (give tta another --db)", path, (unsigned)app);
    if (tables == 0 && version == 0) {
        *kind = DB_EMPTY;
        return TTA_OK;
    }
    if (version >= 1 && ours == 4) {
        *kind = DB_OLD_TTA;
        return TTA_OK;
    }
    return tta_fail(err, TTA_EDB, "%s: not a tta database (%d table%s, not tta's schema: made by another program); tta"
                    " leaves it untouched (give tta another --db)", path, tables, tables == 1 ? "" : "s");
}

/* Applies migrations [from, count) each in its own transaction, bumping user_version.
 * TTA_OK, or TTA_EDB with the failed migration rolled back. */
static int migrate(sqlite3 *db, const char *path, int from, tta_error *err) {
    for (size_t i = (size_t)from; i < tta_migrations_count; i++) {
        char *msg = NULL;
        buf sql = {0};
        buf_printf(&sql, "BEGIN IMMEDIATE;\n%s\n;PRAGMA user_version = %zu;\nCOMMIT;", tta_migrations[i], i + 1);
        int rc = sqlite3_exec(db, buf_str(&sql), NULL, NULL, &msg);
        buf_free(&sql);
        if (rc != SQLITE_OK) {
            tta_fail(err, TTA_EDB, "%s: migration %zu failed: %s", path, i + 1, msg ? msg : sqlite3_errmsg(db));
            sqlite3_free(msg);
            sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
            return TTA_EDB;
        }
    }
    return TTA_OK;
}

/* The fingerprint of the built-in rules text, as rule_meta keeps it. */
static void rules_fingerprint(char out[17]) {
    const char *text = tta_rules_text();
    snprintf(out, 17, "%016llx", (unsigned long long)tta_hash64(text, strlen(text), 0x72756c6573));
}

/* 1 when the database's copy of the rules is the built-in one's, 0 when not, -1 on error. */
static int rules_current(sqlite3 *db) {
    char want[17];
    rules_fingerprint(want);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT value FROM rule_meta WHERE key = 'fingerprint'", -1, &st, NULL) != SQLITE_OK)
        return -1;
    int same = 0;
    if (sqlite3_step(st) == SQLITE_ROW) {
        const unsigned char *have = sqlite3_column_text(st, 0);
        same = have && !strcmp((const char *)have, want);
    }
    sqlite3_finalize(st);
    return same;
}

static int bind_opt_real(sqlite3_stmt *st, int i, double v) {
    return v == v ? sqlite3_bind_double(st, i, v) : sqlite3_bind_null(st, i);
}

/* Replaces the database's copy of the rules (rule_rounds, benchmark_rules, benchmark_aliases)
 * with the built-in rules, in one transaction, when its fingerprint differs. TTA_OK, or TTA_EDB
 * with the transaction rolled back. */
static int sync_rules(sqlite3 *db, const char *path, tta_error *err) {
    int cur = rules_current(db);
    if (cur == 1) return TTA_OK;
    const tta_rules *rules = tta_rules_builtin();
    char fp[17], version[16];
    rules_fingerprint(fp);
    snprintf(version, sizeof version, "%d", rules->version);
    sqlite3_stmt *st[4] = {0};
    static const char *const sql[4] = {
        "INSERT INTO rule_rounds(round, ruleset, ord) VALUES (?1, ?2, ?3)",
        "INSERT INTO benchmark_aliases(name, benchmark, from_round, before_round) VALUES (?1, ?2, ?3, ?4)",
        "INSERT INTO benchmark_rules(ruleset, benchmark, metric, log_key, higher_is_better, target, metric2, target2,"
        " higher_is_better2, quality_scale, progress, progress_unit, train_set_size, runs_required, olympic_drop,"
        " max_failed, rcp, rcp_name, sources) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,"
        " ?15, ?16, ?17, ?18, ?19)",
        "INSERT OR REPLACE INTO rule_meta(key, value) VALUES ('fingerprint', ?1), ('version', ?2)",
    };
    static const char *const scales[] = {"asis", "fraction", "bleu", "percent"};
    int rc = sqlite3_exec(db, "BEGIN IMMEDIATE; DELETE FROM rule_rounds; DELETE FROM benchmark_aliases;"
                              " DELETE FROM benchmark_rules;", NULL, NULL, NULL);
    for (int i = 0; i < 4 && rc == SQLITE_OK; i++) rc = sqlite3_prepare_v2(db, sql[i], -1, &st[i], NULL);
    for (size_t i = 0; i < rules->n_rounds && rc == SQLITE_OK; i++) {
        sqlite3_bind_text(st[0], 1, rules->rounds[i].round, -1, SQLITE_STATIC);
        sqlite3_bind_text(st[0], 2, rules->rounds[i].ruleset, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st[0], 3, (sqlite3_int64)i);
        rc = sqlite3_step(st[0]) == SQLITE_DONE ? sqlite3_reset(st[0]) : sqlite3_errcode(db);
    }
    for (size_t i = 0; i < rules->n_aliases && rc == SQLITE_OK; i++) {
        const tta_rule_alias *a = &rules->aliases[i];
        sqlite3_bind_text(st[1], 1, a->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(st[1], 2, a->benchmark, -1, SQLITE_STATIC);
        sqlite3_bind_text(st[1], 3, a->from, -1, SQLITE_STATIC);
        sqlite3_bind_text(st[1], 4, a->before, -1, SQLITE_STATIC);
        rc = sqlite3_step(st[1]) == SQLITE_DONE ? sqlite3_reset(st[1]) : sqlite3_errcode(db);
    }
    for (size_t i = 0; i < rules->n_rules && rc == SQLITE_OK; i++) {
        const tta_rule *r = &rules->rules[i];
        sqlite3_stmt *s = st[2];
        sqlite3_bind_text(s, 1, r->ruleset, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 2, r->benchmark, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 3, r->metric, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 4, r->log_key, -1, SQLITE_STATIC);
        sqlite3_bind_int(s, 5, r->higher_is_better);
        sqlite3_bind_double(s, 6, r->target);
        sqlite3_bind_text(s, 7, r->metric2, -1, SQLITE_STATIC);
        bind_opt_real(s, 8, r->target2);
        if (r->higher_is_better2 >= 0)
            sqlite3_bind_int(s, 9, r->higher_is_better2);
        else
            sqlite3_bind_null(s, 9);
        sqlite3_bind_text(s, 10, scales[r->scale], -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 11, tta_progress_rule_name(r->progress), -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 12, r->progress_unit, -1, SQLITE_STATIC);
        bind_opt_real(s, 13, r->train_set_size);
        if (r->runs_required > 0)
            sqlite3_bind_int(s, 14, r->runs_required);
        else
            sqlite3_bind_null(s, 14);
        sqlite3_bind_int(s, 15, r->olympic_drop);
        sqlite3_bind_int(s, 16, r->max_failed);
        sqlite3_bind_int(s, 17, r->rcp);
        sqlite3_bind_text(s, 18, r->rcp_name, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 19, r->sources_json, -1, SQLITE_STATIC);
        rc = sqlite3_step(s) == SQLITE_DONE ? sqlite3_reset(s) : sqlite3_errcode(db);
    }
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(st[3], 1, fp, -1, SQLITE_STATIC);
        sqlite3_bind_text(st[3], 2, version, -1, SQLITE_STATIC);
        rc = sqlite3_step(st[3]) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
    }
    for (int i = 0; i < 4; i++) sqlite3_finalize(st[i]);
    if (rc == SQLITE_OK) rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        db_error(err, path, "cannot store the benchmark rules", db);
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        return TTA_EDB;
    }
    return TTA_OK;
}

/* Connection settings every tta connection uses. */
static int configure(sqlite3 *db, int writable) {
    sqlite3_busy_timeout(db, 30000);
    /* the filters' /PATTERN/ values (filter.c): every query that selects entries names REGEXP */
    int rc = db_register_regexp(db);
    if (rc != SQLITE_OK) return rc;
    /* The writer's cache holds one transaction's dirty pages and the upper b-tree pages: 4 MiB.
     * A larger one only grows with the pages an ingest appends, each new page costing a fault
     * and a clear of fresh memory (a 64 MiB cache made record-dense ingest ~20% slower);
     * readers keep 64 MiB for the reports' scans. */
    const char *sql = writable ? "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;"
                                 " PRAGMA wal_autocheckpoint=16384;"
                                 " PRAGMA cache_size=-4096; PRAGMA temp_store=MEMORY;"
                               : "PRAGMA foreign_keys=ON; PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY;";
    return sqlite3_exec(db, sql, NULL, NULL, NULL);
}

int tta_db_open(const char *path, sqlite3 **out, tta_error *err) {
    sqlite3 *db = NULL;
    *out = NULL;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        db_error(err, path, "cannot open database", db);
        sqlite3_close(db);
        return TTA_EDB;
    }
    /* A database another program made is refused before anything is written into it. */
    int kind;
    if (identify(db, path, &kind, err) != TTA_OK) {
        sqlite3_close(db);
        return TTA_EDB;
    }
    /* 16 KiB pages for a new database: a run's event log is one JSON array of tens of KB, which
     * 4 KiB pages split into long overflow chains (more pages, more write calls); an existing
     * database keeps its page size. */
    sqlite3_exec(db, "PRAGMA page_size=16384", NULL, NULL, NULL);
    if (configure(db, 1) != SQLITE_OK) {
        db_error(err, path, "cannot configure database", db);
        sqlite3_close(db);
        return TTA_EDB;
    }
    int v = user_version(db);
    if (v < 0) {
        db_error(err, path, "not a tta database", db);
        sqlite3_close(db);
        return TTA_EDB;
    }
    if (v > (int)tta_migrations_count) {
        tta_fail(err, TTA_EUNSUPPORTED, "%s: schema version %d is newer than this tta understands (%zu)", path, v,
                 tta_migrations_count);
        sqlite3_close(db);
        return TTA_EUNSUPPORTED;
    }
    /* The facts last: a migration or new rules leave every entry pending, and so may a crash
     * between an ingest's last commit and its tta_store_finish. */
    if ((rc = migrate(db, path, v, err)) != TTA_OK || (rc = sync_rules(db, path, err)) != TTA_OK ||
        (rc = tta_db_facts_refresh(db, err)) != TTA_OK) {
        sqlite3_close(db);
        return rc;
    }
    /* Marked as tta's: a new database, or an older tta's one (kept working as before). */
    if (kind != DB_TTA && sqlite3_exec(db, "PRAGMA application_id = 1953784113", NULL, NULL, NULL) != SQLITE_OK) {
        db_error(err, path, "cannot mark the database as tta's", db);
        sqlite3_close(db);
        return TTA_EDB;
    }
    *out = db;
    return TTA_OK;
}

int tta_db_open_existing(const char *path, sqlite3 **out, tta_error *err) {
    struct stat st;
    *out = NULL;
    if (stat(path, &st) != 0)
        return tta_fail(err, TTA_ENOTFOUND, "%s: no such database (run `tta ingest PATH...` first)", path);
    return tta_db_open(path, out, err);
}

int tta_db_open_readonly(const char *path, sqlite3 **out, tta_error *err) {
    struct stat st;
    *out = NULL;
    if (stat(path, &st) != 0)
        return tta_fail(err, TTA_ENOTFOUND, "%s: no such database (run `tta ingest PATH...` first)", path);
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc == SQLITE_OK) rc = configure(db, 0);
    if (rc != SQLITE_OK) {
        db_error(err, path, "cannot open database", db);
        sqlite3_close(db);
        return TTA_EDB;
    }
    int kind;
    if (identify(db, path, &kind, err) != TTA_OK) {
        sqlite3_close(db);
        return TTA_EDB;
    }
    if (kind == DB_EMPTY) {
        sqlite3_close(db);
        return tta_fail(err, TTA_EDB, "%s: an empty database (run `tta ingest PATH...` first)", path);
    }
    int v = user_version(db);
    if (v != (int)tta_migrations_count) {
        if (v < 0)
            tta_fail(err, TTA_EDB, "%s: not a tta database: %s", path, sqlite3_errmsg(db));
        else
            tta_fail(err, TTA_EDB, "%s: schema version %d, this tta needs %zu (run `tta ingest` to migrate)", path,
                     v, tta_migrations_count);
        sqlite3_close(db);
        return TTA_EDB;
    }
    if (rules_current(db) != 1 || tta_db_facts_stale(db) != 0) {
        /* Written by a tta with other rules, or facts left stale (an ingest stopped before its
         * end): bring them up to date (a writer's open does), or say that the answers follow the
         * database's older rules. */
        sqlite3 *rw = NULL;
        tta_error why;
        if (tta_db_open(path, &rw, &why) == TTA_OK)
            sqlite3_close(rw);
        else
            fprintf(stderr, "tta: %s (the answers follow the database's older rules or facts; run `tta ingest` to"
                    " refresh them)\n", why.text);
    }
    *out = db;
    return TTA_OK;
}

void tta_db_close(sqlite3 *db) { sqlite3_close(db); }

void tta_db_init_process(void) {
    /* No allocation statistics: with them every SQLite allocation takes a global mutex (the
     * ingest writer makes hundreds of thousands). */
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
