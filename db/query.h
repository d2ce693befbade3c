/* query.h: what the query files of db/ share (internal to db/): the filter's SQL, binding it,
 * and reading columns into plain C values.
 *
 * Every query that selects entries writes DB_ENTRY_FILTER(alias) in its WHERE clause, with alias the
 * entries table's name in the query, and prepares through db_prepare_filtered, which checks the
 * filter's patterns and binds its named parameters. The filter is written here once. */
#ifndef TTA_DB_QUERY_H
#define TTA_DB_QUERY_H

#include <sqlite3.h>
#include <stdint.h>

#include "common/error.h"
#include "db/reader.h"

/* One text field of the filter over column col: its exact value (case-insensitive) when :name is
 * bound, its regular expression when :name_re is (REGEXP, filter.c; never both). */
#define DB_FILTER_TEXT(col, name)                                                      \
    " (:" name " IS NULL OR " col " = :" name " COLLATE NOCASE)"                       \
    " AND (:" name "_re IS NULL OR " col " REGEXP :" name "_re)"

/* The filter's system-description fields over entries table e: when any is set (:sys = 1), the
 * entry's system description (the last stored for its round, submitter and system, as
 * query_entries.c joins it) must exist and match each of them. */
#define DB_SYSTEM_FILTER(e)                                                                                   \
    " (:sys = 0 OR EXISTS (SELECT 1 FROM systems x WHERE x.id = (SELECT y.id FROM systems y"                 \
    " WHERE y.round = " e ".round AND y.submitter = " e ".submitter AND y.name = " e ".system"                  \
    " ORDER BY y.id DESC LIMIT 1) AND" DB_FILTER_TEXT("x.accelerator_model", "accelerator")                    \
    " AND" DB_FILTER_TEXT("x.framework", "framework") " AND" DB_FILTER_TEXT("x.status", "availability")       \
    " AND (:acc_min = 0 OR x.accelerators >= :acc_min) AND (:acc_max = 0 OR x.accelerators <= :acc_max)))"

/* The filter over the entries table named e (tta_filter: every field, and the entry id). */
#define DB_ENTRY_FILTER(e)                                                                                    \
    DB_FILTER_TEXT(e ".round", "round") " AND" DB_FILTER_TEXT(e ".division", "division")                    \
    " AND" DB_FILTER_TEXT(e ".submitter", "submitter") " AND" DB_FILTER_TEXT(e ".system", "system")         \
    " AND" DB_FILTER_TEXT(e ".benchmark", "benchmark") " AND (:entry = 0 OR " e ".id = :entry)"            \
    " AND" DB_SYSTEM_FILTER(e)

/* Prepares sql and binds f's fields to the filter's parameters that sql names (:round, :round_re,
 * ..., :entry, :sys, :acc_min, :acc_max; a parameter sql does not name is skipped). f NULL selects everything. TTA_OK with
 * *st (the caller finalizes it); TTA_EINPUT when a pattern of f does not compile (the error names
 * the field); TTA_EDB with "database: <what>: <SQLite's message>" when SQLite refuses. */
int db_prepare_filtered(sqlite3 *db, const char *sql, const tta_filter *f, sqlite3_stmt **st, const char *what,
                        tta_error *err);

/* Fails with TTA_EDB and "database: <what>: <SQLite's message>". */
int db_fail(tta_error *err, sqlite3 *db, const char *what);

/* The statements that work out the runs' facts (facts.c), prepared once on a connection (the
 * writer keeps one for its batches). db_facts_open: TTA_OK with *out, or TTA_EDB. */
typedef struct db_facts db_facts;
int db_facts_open(sqlite3 *db, db_facts **out, tta_error *err);
void db_facts_close(db_facts *f); /* NULL is a no-op */

/* Works out the facts of the runs of every entry in facts_pending and empties it, in the caller's
 * open transaction: the writer calls it before each commit, so that no reader sees a run without
 * its facts. TTA_OK (at once when nothing is pending), or TTA_EDB with err set (the caller rolls
 * back). */
int db_facts_work_out(db_facts *f, tta_error *err);

/* Writes the AlgoPerf leaderboards' studies again as runs of entries (algoperf_runs.c): each study
 * the run of its chosen trial, in its own transaction, which leaves the derived entries pending for
 * facts.c. *runs: the runs so written (every study of the database; NULL allowed). TTA_OK, or TTA_EDB
 * with err set and that transaction rolled back. */
int db_algoperf_runs(sqlite3 *db, int64_t *runs, tta_error *err);

/* Registers the REGEXP function (PCRE2) the filter's patterns use on db. SQLite's code. */
int db_register_regexp(sqlite3 *db);

/* Column i as a malloc'd string, NULL for SQL NULL. */
char *db_col_text(sqlite3_stmt *st, int i);
/* Column i as a double, NAN for SQL NULL. */
double db_col_real(sqlite3_stmt *st, int i);
/* Column i as a number: NAN when it is NULL or not a number (a JSON value read with ->> may be a
 * string or an object). */
double db_col_number(sqlite3_stmt *st, int i);
/* Column i as an int, -1 for SQL NULL. */
int db_col_count(sqlite3_stmt *st, int i);

#endif
