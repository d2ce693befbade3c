/* ingest.h: the ingest module's contract. Reads published MLPerf Training and DAWNBench logs
 * into a tta database (opened with db/db.h's tta_db_open; db/ writes the rows).
 *
 * Ownership: the caller owns the sqlite3 handle and closes it, and the tta_error it passes
 * (common/error.h).
 */
#ifndef TTA_INGEST_H
#define TTA_INGEST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"
#include "db/db.h"

/* Where an ingest is, for a progress display (the CLI's; this module draws nothing). */
typedef struct {
    size_t files_done;  /* files walked and handled (stored, unchanged, failed or skipped) */
    size_t files_total; /* files walked: the whole list, known before the first file is parsed */
    int64_t bytes;      /* bytes of the recognised files handled so far */
    int64_t runs;       /* runs written so far (committed or in the open transaction) */
    double seconds;     /* since the call began (the walk included) */
} tta_ingest_progress;

/* Told where the ingest is. event is TTA_INGEST_PROGRESS_UPDATE after each file the writer has
 * handled (the last with files_done == files_total), or TTA_INGEST_PROGRESS_DIAG
 * just before a line is written on diag (a display on the same terminal erases its line).
 * Threading: called on the thread that called tta_ingest_paths (the writer), never by a parser
 * thread, so the callback needs no lock; it must be quick (rate-limit drawing itself), since the
 * writer is the serial part of an ingest. p is valid during the call only. */
enum { TTA_INGEST_PROGRESS_UPDATE, TTA_INGEST_PROGRESS_DIAG };
typedef void (*tta_ingest_progress_fn)(void *ctx, const tta_ingest_progress *p, int event);

typedef struct {
    int jobs;       /* parser threads; <= 0 means the number of online CPUs */
    int quiet;      /* 1: no per-file error lines on diag */
    int verbose;    /* 1: a line "<path>: skipped: <reason>" on diag for every file skipped (else only
                     * for the files given themselves as paths), and "<path>: removed: no longer
                     * there" for every file removed because it left its folder */
    int no_compliance; /* 1: no compliance verdicts (runs.compliance NULL): for a caller that has them
                        * already (tta check's folder rows) */
    tta_ingest_progress_fn progress; /* NULL: none; owned by the caller, as is progress_ctx */
    void *progress_ctx;
} tta_ingest_options;

typedef struct {
    int64_t files;     /* files seen that tta reads (recognised formats) */
    int64_t skipped;   /* files seen that are not logs (READMEs, images, ...), of which: */
    int64_t skipped_empty;  /* empty files */
    int64_t skipped_binary; /* binary files (a NUL byte in the first 4 KiB); the rest: text without a
                             * log's records */
    /* Files of a format tta reads, found in folders where the official tools read no results
     * (not counted in files nor skipped; docs/ingest.md, "What is read"): */
    int64_t skipped_code_folder; /* under <submitter>/benchmarks/ or benchmark/ (sample logs) */
    int64_t skipped_subfolder;   /* logs in subfolders of results/<system>/<benchmark>/ other than power/ */
    int64_t skipped_not_result;  /* logs in results folders not named <benchmark>/result_*.txt (v1.0 on) */
    char subfolders[80];         /* those subfolders' names, "raw_logs/, logs/" (", ..." when more) */
    int64_t removed;             /* of those, files an earlier ingest had stored: removed from the database */
    int64_t vanished;  /* files an earlier ingest stored under a folder given as a path that are no
                        * longer there: removed from the database with their runs */
    int64_t ingested;  /* stored (new or changed) */
    int64_t unchanged; /* same content hash as already stored: skipped */
    int64_t failed;    /* malformed or unreadable: error recorded in sources, nothing else kept */
    int64_t runs;      /* runs stored by this call */
    int64_t events;    /* events stored by this call */
    int64_t bytes;     /* bytes of the files read */
    double seconds;    /* wall time of the call */
} tta_ingest_stats;

/* Walks each path (a file or a folder, recursively; symlinks are not followed into folders),
 * recognises each file by content, skips the files found in folders that are not where results
 * lie (pathmeta.h, tta_path_skip; a file given as a path is always read), parses with
 * opts->jobs threads and stores with one writer,
 * each file whole or not at all (files are grouped into transactions). A path that cannot be
 * walked gets one line "<path>: <reason>" on diag, and each failed file one line
 * "<path>:<line>: <reason>" (unless quiet) and a row in sources with status 'failed'. A file
 * skipped gets "<path>: skipped: <reason>" on diag when it was given itself as a path, or with
 * opts->verbose. Files an earlier ingest stored under a folder given as a path that are no longer
 * there lose what they gave (stats->vanished).
 *
 * Two outcomes differ, by code:
 *   - the ingest went through: every file that could be read is stored and *stats is complete.
 *     TTA_OK when nothing went wrong; else the code of the first problem met, with err holding
 *     its line (the same as on diag; the others are on diag only):
 *       TTA_ENOTFOUND  a path given does not exist ("<path>: No such file or directory"),
 *       TTA_EIO        a path given cannot be looked at ("<path>: Permission denied"),
 *       TTA_EINPUT     a file was malformed or unreadable ("<path>:<line>: <reason>"; stats->failed
 *                      counts them, each recorded in sources as 'failed').
 *   - the ingest stopped: TTA_EDB, the database failed (SQLite's message in err); the open
 *     transaction's files are rolled back and *stats counts only what was committed.
 * So a caller that stores what it can tests rc == TTA_EDB; one that needs every file, rc != TTA_OK. */
int tta_ingest_paths(sqlite3 *db, const char *const *paths, int n_paths, const tta_ingest_options *opts,
                     tta_ingest_stats *stats, FILE *diag, tta_error *err);

/* Writes what an ingest did: one line on diag per reason files were not read (sample logs,
 * subfolders, files the official tools do not read, rows removed, files that are no logs by why,
 * files no longer in their folder), then the summary: one JSON
 * object on out when json (files, ingested, unchanged, failed, skipped, not_results, not_logs,
 * vanished, runs, events, bytes, seconds; docs/output-formats.md), else one line on diag. */
void tta_ingest_write_summary(const tta_ingest_stats *stats, int json, FILE *out, FILE *diag);

/* Stores one profile of a training step: json is the object `tta profile --format json` prints,
 * sweep groups the profiles of one batch sweep (0: none; the first of a sweep passes -1 and its
 * own id becomes the sweep's); *id (when not NULL) gets its id. TTA_OK; TTA_EINPUT ("profile:
 * <field>: reason") or TTA_EDB with nothing stored. (profiles.c) */
int tta_ingest_profile(sqlite3 *db, const char *json, int64_t sweep, int64_t *id, tta_error *err);

/* Stores one host's measured peaks: json is `tta profile --peaks --format json`'s object. TTA_OK;
 * TTA_EINPUT or TTA_EDB with nothing stored. */
int tta_ingest_peaks(sqlite3 *db, const char *json, tta_error *err);

#endif
