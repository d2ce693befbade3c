/* db.h: the db module's contract. db/ owns tta's SQLite database: its schema and migrations
 * (schemas/NNN_*.sql, embedded), the copy of the benchmark rules kept in it, the writer that
 * stores what ingest parses, and every query more than one module needs. No other module
 * writes SQL against the schema (the user's own SQL, `tta sql`-style, aside); they call the
 * functions below and get plain C structs.
 *
 * Ownership: the caller owns the sqlite3 handle from tta_db_open / tta_db_open_readonly and
 * closes it with sqlite3_close (a handle is used by one thread at a time). Structs returned by
 * a query are the caller's, freed with the free function named beside the query.
 *
 * Errors: public functions return TTA_OK (0) or a tta_status code (common/error.h) and fill a
 * caller-owned tta_error (NULL allowed) with one line: "<path>: <reason>" for the database
 * file, SQLite's message where SQLite refused. TTA_EDB: SQLite refused (nothing of the failed
 * call was changed); TTA_ENOTFOUND: no such database or row; TTA_EUNSUPPORTED: a database
 * written by a newer tta.
 */
#ifndef TTA_DB_H
#define TTA_DB_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* ---- Opening and the schema (open.c) ---------------------------------------------------- */

/* Schema version this build writes (PRAGMA user_version after migration). */
int tta_schema_version(void);

/* Opens (creating if needed) the database at path for writing, sets WAL mode, foreign keys and
 * a busy timeout, applies every pending migration in schemas/ (each in its own transaction) and
 * refreshes the database's copy of the built-in benchmark rules when it differs. Returns TTA_OK
 * and *out, or TTA_EDB (cannot open, not a tta database, a migration failed) or
 * TTA_EUNSUPPORTED (a database written by a newer tta) with *out NULL and err set. */
int tta_db_open(const char *path, sqlite3 **out, tta_error *err);

/* Opens an existing database read-only (reports). Returns TTA_OK and *out; TTA_ENOTFOUND when
 * path does not exist; TTA_EDB when it cannot be opened or its schema is not this build's (run
 * `tta ingest` to migrate). When the database's copy of the rules is older than the built-in
 * one, it is refreshed through a short writable open (a note on stderr if that fails: the
 * answers then follow the database's rules). */
int tta_db_open_readonly(const char *path, sqlite3 **out, tta_error *err);

#endif
