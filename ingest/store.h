/* store.h: writing parsed files into the database (internal to ingest/).
 *
 * One writer owns a tta_store (its prepared statements); it is not thread-safe. Each file is
 * written inside a savepoint of a transaction that groups files (about 8 MB of input or 0.5 s):
 * a file is stored whole or not at all, a failed file is undone alone, and a crash loses at most
 * the files of the open transaction, never what an earlier commit stored. Grouping matters: a
 * commit rewrites the root and interior pages of every table and index it touched, which for
 * one small file per commit doubled what the write-ahead log received.
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

/* Writes f (replacing whatever its path gave before) in its own savepoint, opening a
 * transaction if none is open and committing it when the batch is full. A failed parse
 * (f->failed) is recorded as a sources row with status 'failed' and its error, and nothing
 * else. Adds the runs and events written to *runs and *events. Returns SQLITE_OK, or an
 * error with *err set and this file's writes undone. */
int tta_store_write(tta_store *s, const tta_parsed_file *f, int64_t *runs, int64_t *events, char **err);

/* Commits the open transaction, if any (tta_store_finish and tta_store_close call it). */
int tta_store_flush(tta_store *s, char **err);

/* After a batch of files: fills divisions that were unknown when a run was stored from the
 * system descriptions that arrived since, and removes entries left without runs. */
int tta_store_finish(tta_store *s, char **err);

#endif
