/* store.h: writing parsed files into the database (internal to ingest/).
 *
 * One writer owns a tta_store (its prepared statements); it is not thread-safe. Files are
 * written in transactions that group them (about 8 MB of input or 0.5 s): a file is stored
 * whole or not at all, and a crash, a full disk or any other database error loses at most the
 * files of the open transaction (which a re-run stores), never what an earlier commit stored.
 * Grouping matters: a commit rewrites the root and interior pages of every table and index it
 * touched, which for one small file per commit doubled what the write-ahead log received.
 * There is no savepoint per file: a malformed file is not a database error (it is stored as a
 * failed source), so only the database itself can fail a write, and then the whole open
 * transaction goes, as a crash would take it.
 */
#ifndef TTA_INGEST_STORE_H
#define TTA_INGEST_STORE_H

#include <sqlite3.h>
#include <stdint.h>

#include "ingest/parsed.h"

typedef struct tta_store tta_store;

/* What the database already holds for one path. */
typedef struct {
    char *path;
    uint64_t size;
    char hash[17];
    int ok; /* status = 'ok' */
} tta_stored_source;

/* Prepares the statements. Returns SQLITE_OK or an error with *err set (malloc'd). */
int tta_store_open(sqlite3 *db, tta_store **out, char **err);
void tta_store_close(tta_store *s);

/* Loads every stored source (path, size, hash, status) so that parser threads can tell an
 * unchanged file without touching the database. The caller frees with tta_stored_sources_free. */
int tta_store_load_sources(tta_store *s, tta_stored_source **out, size_t *n, char **err);
void tta_stored_sources_free(tta_stored_source *v, size_t n);

/* What committed transactions stored. */
typedef struct {
    int64_t ingested; /* files stored with their content */
    int64_t failed;   /* files stored as failed sources (malformed) */
    int64_t runs, events;
} tta_store_counts;

/* Writes f (replacing whatever its path gave before), opening a transaction if none is open
 * and committing it when the batch is full. A failed parse (f->failed) is recorded as a
 * sources row with status 'failed' and its error, and nothing else. The run's records are
 * f->records when the caller encoded them (records.h), else encoded here. Returns SQLITE_OK,
 * or a database error with *err set and the whole open transaction rolled back. */
int tta_store_write(tta_store *s, const tta_parsed_file *f, char **err);

/* Removes what path gave before (its sources row and, by cascade, its run, description, power
 * samples or entry file) in the open transaction (opened if none): a file an earlier ingest read
 * that is no longer read where it lies. Returns SQLITE_OK, or an error with *err set and the open
 * transaction rolled back. */
int tta_store_forget(tta_store *s, const char *path, char **err);

/* Commits the open transaction, if any (tta_store_finish and tta_store_close call it); on
 * failure rolls it back and sets *err. */
int tta_store_flush(tta_store *s, char **err);

/* Totals of the committed transactions, and the number of files rolled back after an error. */
tta_store_counts tta_store_committed(const tta_store *s);
/* Totals written so far: the committed transactions' and the open one's (for progress; a
 * database error may still roll the open one back). */
tta_store_counts tta_store_written(const tta_store *s);
int64_t tta_store_rolled_back(const tta_store *s);

/* After a batch of files: fills divisions that were unknown when a run was stored from the
 * system descriptions that arrived since, and removes entries left without runs. */
int tta_store_finish(tta_store *s, char **err);

#endif
