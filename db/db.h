/* db.h: the db module's base contract. db/ owns tta's SQLite database: its schema and migrations
 * (schemas/NNN_*.sql, embedded), the copy of the benchmark rules kept in it, each run's facts, the
 * writer that stores what ingest parses, and the queries other modules need: they call functions
 * and get plain C structs instead of writing SQL against the schema.
 *
 * The module has two contracts over this base (docs/architecture.md, "db/: two contracts"):
 *   db/reader.h  the readers': the entry filter and every query (reports/ and cli/ include it);
 *   db/writer.h  the writer's: the record types, the writer, the facts it works out, the WAL
 *                checkpointer, profiles (ingest/ includes it; what replay/ writes reaches the
 *                database through ingest).
 * This header holds what both need: opening and closing the database.
 *
 * Ownership: the caller owns the sqlite3 handle from tta_db_open / tta_db_open_readonly and
 * closes it with tta_db_close (a handle is used by one thread at a time). Structs returned by
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
 * refreshes the database's copy of the built-in benchmark rules when it differs. A database
 * another program made (an application_id not tta's, or tables without tta's schema) is refused
 * before anything is written to it; a new one, and an older tta's one (user_version 1..N with
 * tta's tables), get tta's application_id. Returns TTA_OK
 * and *out, or TTA_EDB (cannot open, not a tta database, a migration failed) or
 * TTA_EUNSUPPORTED (a database written by a newer tta) with *out NULL and err set. */
int tta_db_open(const char *path, sqlite3 **out, tta_error *err);

/* tta_db_open of a database that must exist already (a command that reads before it writes, such
 * as `tta verify`): TTA_ENOTFOUND ("<path>: no such database (run `tta ingest PATH...` first)")
 * with nothing created when path does not exist. */
int tta_db_open_existing(const char *path, sqlite3 **out, tta_error *err);

/* Opens an existing database read-only (reports). Returns TTA_OK and *out; TTA_ENOTFOUND when
 * path does not exist; TTA_EDB when it cannot be opened or its schema is not this build's (run
 * `tta ingest` to migrate). When the database's copy of the rules is older than the built-in
 * one, it is refreshed through a short writable open (a note on stderr if that fails: the
 * answers then follow the database's rules). */
int tta_db_open_readonly(const char *path, sqlite3 **out, tta_error *err);

/* Closes a handle of tta_db_open or tta_db_open_readonly (NULL is a no-op); an open writer
 * transaction is rolled back. */
void tta_db_close(sqlite3 *db);

/* Process-wide SQLite settings, called once at start-up before any database is opened (the
 * command line's main): no allocation statistics, which would take a global mutex on every
 * SQLite allocation (the ingest writer makes hundreds of thousands). */
void tta_db_init_process(void);

#endif
