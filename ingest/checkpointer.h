/* checkpointer.h: copying the write-ahead log into the database file during an ingest, from a
 * thread and a connection of its own (internal to ingest/).
 *
 * Without it the last connection's close copies every page the ingest wrote from the WAL into
 * the database file and syncs both, the parser threads long gone: on record-dense logs that
 * close took half as long as the ingest itself. With it the copy and its syncs overlap the
 * parsing and the close has little left to do (measured: `tta ingest` as a whole command 15%
 * faster on a disk, the same on tmpfs). The WAL itself still grows by what the ingest writes:
 * it restarts only when a writer begins a transaction after every frame was copied, and the
 * writer begins its next one at once.
 *
 * Ownership: the checkpointer owns its connection; the caller keeps owning db, which must outlive
 * tta_checkpointer_stop.
 */
#ifndef TTA_INGEST_CHECKPOINTER_H
#define TTA_INGEST_CHECKPOINTER_H

#include <sqlite3.h>

typedef struct tta_checkpointer tta_checkpointer;

/* Starts checkpointing db's WAL after each commit that leaves at least min_frames frames in it.
 * Returns NULL when db has no file of its own (in memory) or the thread or connection cannot be
 * had: the database is then checkpointed as SQLite does by itself, nothing is lost. */
tta_checkpointer *tta_checkpointer_start(sqlite3 *db, int min_frames);

/* Stops the thread (finishing a checkpoint under way), closes its connection and gives db back
 * its automatic checkpoints. NULL is a no-op. */
void tta_checkpointer_stop(tta_checkpointer *c);

#endif
