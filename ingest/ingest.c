/* ingest.c: `tta ingest`: walk, hash, parse in parallel, store with one writer.
 *
 * Parser threads take files from the walked list, load (common/file.h) and hash each one, skip it when
 * the database holds the same content, and otherwise parse it into a tta_parsed_file and encode
 * its records as the database stores them (records.h). They hand
 * results to the writer (the calling thread) through a bounded queue, so memory stays bounded
 * by what the queue may hold (QUEUE_FILES files, QUEUE_BYTES of input) plus one file per parser,
 * however large the tree.
 */
#include "ingest/ingest.h"
#include "db/writer.h"

#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/check.h"
#include "common/hash.h"
#include "ingest/compliance.h"
#include "ingest/parse.h"
#include "ingest/parsed.h"
#include "ingest/pathmeta.h"
#include "ingest/records.h"
#include "ingest/walk.h"

typedef enum { RESULT_SKIPPED, RESULT_UNCHANGED, RESULT_PARSED } result_kind;

/* Why a file of no format tta reads was skipped. */
enum { NOT_LOG_TEXT, NOT_LOG_EMPTY, NOT_LOG_BINARY };

typedef struct {
    result_kind kind;
    tta_skip_kind skip;     /* RESULT_SKIPPED: why (TTA_SKIP_NONE: not a format tta reads) */
    int forget;             /* skipped by where it lies, but stored by an earlier ingest: remove it */
    int not_log;            /* TTA_SKIP_NONE: why it is no log (a NOT_LOG_* reason) */
    int named;              /* the path was given itself */
    const char *path;       /* the walked file's path (owned by the walk list) */
    char subfolder[32];     /* TTA_SKIP_SUBFOLDER: the subfolder's name (cut to fit) */
    uint64_t bytes;
    tta_parsed_file parsed; /* RESULT_PARSED */
    tta_file file;          /* the file's bytes (read, or mapped when large), which parsed spans point into */
} file_result;

/* What the queue between the parsers and the writer may hold. The writer is the serial part of
 * an ingest and its pace is uneven (a commit writes megabytes at once): a queue of a few files
 * left the parsers blocked while it committed and the writer idle while they refilled it (both
 * waited ~50 ms of a 0.25 s ingest); 8 MiB of input absorbs a commit (4, 8, 16 and 32 MiB ran
 * alike; peak RSS grows with it). A file larger than QUEUE_BYTES still goes through, alone. */
#define QUEUE_FILES 256
#define QUEUE_BYTES (8u << 20)

/* A checkpoint is worth a thread's wake-up from this many WAL frames (pages) on. */
#define CHECKPOINT_FRAMES 128

typedef struct {
    const tta_walk_list *files;
    const tta_stored_source *stored; /* sorted by path */
    size_t n_stored;
    size_t max_text; /* the database's longest value (SQLITE_LIMIT_LENGTH) */
    const tta_check_rules *check_rules; /* MLCommons' compliance rules (NULL: not loaded, no verdicts) */
    pthread_mutex_t lock;
    pthread_cond_t not_full, not_empty;
    size_t next_file;   /* next index of files to parse */
    file_result **queue; /* ring buffer */
    size_t cap, head, count;
    uint64_t queued_bytes; /* input bytes of the files in the queue */
} ingest_work;

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int compare_stored(const void *a, const void *b) {
    return strcmp(((const tta_stored_source *)a)->path, ((const tta_stored_source *)b)->path);
}

static const tta_stored_source *find_stored(const ingest_work *w, const char *path) {
    if (w->n_stored == 0) return NULL;
    tta_stored_source key = {.path = (char *)path};
    return bsearch(&key, w->stored, w->n_stored, sizeof key, compare_stored);
}

/* Reads, hashes and (unless unchanged or not a log) parses one file. */
static file_result *process_file(const ingest_work *w, const tta_walk_file *wf) {
    file_result *r = callocCheck(1, sizeof *r);
    r->path = wf->path;
    r->named = wf->named;
    tta_error e;
    /* Large files are mapped (memory stays bounded by what the parser touches); small ones are
     * read: mapping and unmapping thousands of them costs more in page faults and TLB
     * shootdowns across the parser threads than the copy (common/file.h). */
    if (tta_file_load(wf->path, TTA_PARSE_FILE_LIMIT, "a result log", TTA_FILE_MAP_LARGE, &r->file, &e) != TTA_OK) {
        r->kind = RESULT_PARSED;
        tta_parse_fail_unreadable(&r->parsed, wf->path, &e);
        return r;
    }
    size_t len = r->file.len;
    /* Detection looks for the first marker, which real logs print after up to hundreds of KB
     * of shell output: it is given the whole file (it stops at the first marker). It runs once:
     * the parser is handed the format found here (parse.h). */
    tta_source src;
    tta_source_init(&src, wf->path, r->file.data, len);
    if (src.format == TTA_FMT_UNKNOWN) {
        r->kind = RESULT_SKIPPED;
        r->not_log = len == 0                                            ? NOT_LOG_EMPTY
                     : memchr(r->file.data, '\0', len < 4096 ? len : 4096) ? NOT_LOG_BINARY
                                                                         : NOT_LOG_TEXT;
        tta_file_free(&r->file);
        return r;
    }
    if (!wf->named) {
        /* Where the official tools read no results (sample logs under benchmarks/, copies in
         * raw_logs/, checker output): not read unless named on the command line. */
        tta_arena arena = {0};
        tta_path_meta pm;
        tta_path_meta_read(wf->path, &arena, &pm);
        r->skip = tta_path_skip(wf->path, &pm, src.format);
        if (r->skip == TTA_SKIP_SUBFOLDER) snprintf(r->subfolder, sizeof r->subfolder, "%s", pm.subfolder);
        tta_arena_free(&arena);
        if (r->skip != TTA_SKIP_NONE) {
            r->kind = RESULT_SKIPPED;
            r->forget = find_stored(w, wf->path) != NULL;
            tta_file_free(&r->file);
            return r;
        }
    }
    r->bytes = len;
    /* A DAWNBench TSV's description belongs to its run: read once, hashed with the TSV (a changed
     * description re-ingests the run) and handed to the parser. */
    tta_source_read_sibling(&src);
    uint64_t h = tta_source_hash(&src);
    const tta_stored_source *old = find_stored(w, wf->path);
    if (old && old->ok && old->size == len) {
        char hex[17];
        tta_hash_hex(h, hex);
        if (strcmp(hex, old->hash) == 0) {
            r->kind = RESULT_UNCHANGED;
            tta_source_free(&src);
            tta_file_free(&r->file);
            return r;
        }
    }
    r->kind = RESULT_PARSED;
    if (tta_parse_source(&src, h, &r->parsed) != 0 && !r->parsed.failed) {
        r->parsed.failed = 1;
        if (!r->parsed.error) {
            buf b = {0};
            buf_printf(&b, "%s:0: cannot parse", wf->path);
            r->parsed.error = buf_take(&b);
        }
    }
    tta_ingest_compliance(w->check_rules, &r->parsed, r->file.data, len);
    tta_source_free(&src);
    if (!r->parsed.failed && r->parsed.n_events) {
        /* Encoded here, in parallel, so that the single writer only binds the text. */
        tta_parsed_encode_records(&r->parsed);
        if (r->parsed.records_len >= w->max_text) {
            buf b = {0};
            buf_printf(&b, "%s:0: too many records to store: %zu records make %zu bytes of JSON, over the database's"
                       " limit of %zu bytes for one value", wf->path, r->parsed.n_events, r->parsed.records_len,
                       w->max_text);
            r->parsed.failed = 1;
            r->parsed.error = buf_take(&b);
        }
    }
    r->parsed.size = len;
    r->parsed.hash = h;
    return r;
}

static void free_result(file_result *r) {
    if (r->kind == RESULT_PARSED) tta_parsed_free(&r->parsed);
    tta_file_free(&r->file);
    free(r);
}

static void *parser_thread(void *arg) {
    ingest_work *w = arg;
    for (;;) {
        pthread_mutex_lock(&w->lock);
        size_t i = w->next_file++;
        pthread_mutex_unlock(&w->lock);
        if (i >= w->files->n) break;
        file_result *r = process_file(w, &w->files->files[i]);
        pthread_mutex_lock(&w->lock);
        while (w->count == w->cap || (w->count > 0 && w->queued_bytes + r->bytes > QUEUE_BYTES))
            pthread_cond_wait(&w->not_full, &w->lock);
        w->queue[(w->head + w->count) % w->cap] = r;
        w->count++;
        w->queued_bytes += r->bytes;
        pthread_cond_signal(&w->not_empty);
        pthread_mutex_unlock(&w->lock);
    }
    return NULL;
}

static file_result *next_result(ingest_work *w) {
    pthread_mutex_lock(&w->lock);
    while (w->count == 0) pthread_cond_wait(&w->not_empty, &w->lock);
    file_result *r = w->queue[w->head];
    w->head = (w->head + 1) % w->cap;
    w->count--;
    w->queued_bytes -= r->bytes;
    pthread_cond_broadcast(&w->not_full); /* waiters differ in what they need */
    pthread_mutex_unlock(&w->lock);
    return r;
}

/* Why r was skipped, for people. */
static const char *skip_reason(const file_result *r) {
    switch (r->skip) {
    case TTA_SKIP_NONE: break;
    case TTA_SKIP_CODE_FOLDER: return "a sample log under benchmarks/, not a result";
    case TTA_SKIP_SUBFOLDER: return "in a subfolder of a results folder: a copy, not a result";
    case TTA_SKIP_NOT_RESULT: return "not <benchmark>/result_*.txt: the official tools do not read it";
    }
    if (r->not_log == NOT_LOG_EMPTY) return "empty";
    if (r->not_log == NOT_LOG_BINARY) return "binary, not a log";
    return "no log tta reads (no :::MLLOG, :::MLL or :::MLPv0.5.0 record, no DAWNBench entry, system"
           " description, power log or scaling.json)";
}

/* Counts a skipped file by its reason; a subfolder's name is listed once. */
static void count_skipped(tta_ingest_stats *stats, const file_result *r) {
    switch (r->skip) {
    case TTA_SKIP_NONE:
        stats->skipped++;
        if (r->not_log == NOT_LOG_EMPTY) stats->skipped_empty++;
        if (r->not_log == NOT_LOG_BINARY) stats->skipped_binary++;
        return;
    case TTA_SKIP_CODE_FOLDER: stats->skipped_code_folder++; return;
    case TTA_SKIP_NOT_RESULT: stats->skipped_not_result++; return;
    case TTA_SKIP_SUBFOLDER: break;
    }
    stats->skipped_subfolder++;
    char name[40];
    snprintf(name, sizeof name, "%s/", r->subfolder);
    char *list = stats->subfolders;
    size_t cap = sizeof stats->subfolders, used = strlen(list), n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p++)
        if ((p == list || p[-1] == ' ') && (p[n] == ',' || p[n] == '\0')) return; /* listed */
    if (used >= 5 && !strcmp(list + used - 5, ", ...")) return;                  /* full */
    if (used + (used ? 2 : 0) + n + 5 < cap)
        snprintf(list + used, cap - used, "%s%s", used ? ", " : "", name);
    else
        snprintf(list + used, cap - used, ", ...");
}

static int default_jobs(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* Tells opts->progress (if any) where the ingest is: done of the walked files. */
static void report_progress(const tta_ingest_options *opts, const tta_store *store, const tta_ingest_stats *stats,
                            size_t done, size_t total, double t0, int event) {
    tta_ingest_progress p = {.files_done = done,
                             .files_total = total,
                             .bytes = stats->bytes,
                             .runs = tta_store_written(store).runs,
                             .seconds = now_seconds() - t0};
    opts->progress(opts->progress_ctx, &p, event);
}

/* The files an earlier ingest stored under a folder of paths that are no longer there: what they
 * gave is removed (stats->vanished counts them; --verbose names them). TTA_OK, or TTA_EDB. */
static int forget_vanished(tta_store *store, const tta_stored_source *stored, size_t n_stored,
                           const char *const *paths, int n_paths, const tta_ingest_options *opts,
                           tta_ingest_stats *stats, FILE *diag, tta_error *err) {
    for (int p = 0; p < n_paths; p++) {
        struct stat st;
        if (stat(paths[p], &st) != 0 || !S_ISDIR(st.st_mode)) continue;
        size_t n = strlen(paths[p]);
        while (n > 1 && paths[p][n - 1] == '/') n--;
        for (size_t i = 0; i < n_stored; i++) {
            const char *path = stored[i].path;
            if (strncmp(path, paths[p], n) || path[n] != '/' || access(path, F_OK) == 0) continue;
            if (tta_store_forget(store, path, err) != TTA_OK) return TTA_EDB;
            stats->vanished++;
            if (diag && opts && opts->verbose) fprintf(diag, "%s: removed: no longer there\n", path);
        }
    }
    return TTA_OK;
}

/* Keeps the first problem of an ingest that goes on (a path not walked, a failed file): the
 * code and line tta_ingest_paths returns when it ends without a database error. */
static void note_problem(tta_error *first, tta_status code, const char *text) {
    if (first->code == TTA_OK) tta_fail(first, code, "%s", text);
}

/* Contract in ingest.h. */
int tta_ingest_paths(sqlite3 *db, const char *const *paths, int n_paths, const tta_ingest_options *opts,
                     tta_ingest_stats *stats, FILE *diag, tta_error *err) {
    double t0 = now_seconds();
    memset(stats, 0, sizeof *stats);
    tta_error first;
    tta_error_clear(&first);
    tta_walk_list files = {0};
    for (int i = 0; i < n_paths; i++) {
        tta_error walk_err;
        if (tta_walk(paths[i], &files, diag, &walk_err) != TTA_OK) {
            if (diag) fprintf(diag, "%s\n", walk_err.text);
            note_problem(&first, walk_err.code, walk_err.text);
        }
    }
    tta_walk_sort(&files);

    tta_store *store = NULL;
    tta_error dberr;
    if (tta_store_open(db, &store, &dberr) != TTA_OK) {
        tta_walk_free(&files);
        return tta_fail(err, dberr.code, "%s", dberr.text);
    }
    ingest_work w = {.files = &files, .max_text = tta_db_max_value_bytes(db)};
    tta_stored_source *stored = NULL;
    size_t n_stored = 0;
    if (tta_store_load_sources(store, &stored, &n_stored, &dberr) != TTA_OK) {
        tta_stored_sources_free(stored, n_stored);
        tta_store_close(store);
        tta_walk_free(&files);
        return tta_fail(err, dberr.code, "%s", dberr.text);
    }
    if (n_stored > 1) qsort(stored, n_stored, sizeof *stored, compare_stored);
    w.stored = stored;
    w.n_stored = n_stored;

    tta_check_rules *check_rules = NULL;
    tta_error check_err;
    if (!(opts && opts->no_compliance) && tta_check_rules_load(&check_rules, &check_err) != TTA_OK && diag) /* a broken build; ingest goes on */
        fprintf(diag, "tta ingest: no compliance verdicts: %s\n", check_err.text);
    w.check_rules = check_rules;
    /* WAL frames are copied into the database file while the parsers work (db.h: tta_checkpointer). */
    tta_checkpointer *checkpointer = tta_checkpointer_start(db, CHECKPOINT_FRAMES);
    int jobs = opts && opts->jobs > 0 ? opts->jobs : default_jobs();
    if ((size_t)jobs > files.n && files.n > 0) jobs = (int)files.n;
    if (jobs < 1) jobs = 1;
    w.cap = QUEUE_FILES;
    w.queue = callocCheck(w.cap, sizeof *w.queue);
    pthread_mutex_init(&w.lock, NULL);
    pthread_cond_init(&w.not_full, NULL);
    pthread_cond_init(&w.not_empty, NULL);
    pthread_t *threads = callocCheck((size_t)jobs, sizeof *threads);
    int started = 0;
    for (int i = 0; i < jobs && files.n > 0; i++) {
        if (pthread_create(&threads[i], NULL, parser_thread, &w) == 0) started++;
    }
    /* With no thread started (resources exhausted), the loop below parses inline. */
    int show_progress = opts && opts->progress;
    int db_failed = 0;
    for (size_t done = 0; done < files.n; done++) {
        file_result *r = started ? next_result(&w) : process_file(&w, &files.files[done]);
        if (r->kind == RESULT_SKIPPED) {
            count_skipped(stats, r);
            /* a file given itself is named whatever; with --verbose, every file */
            if (diag && (r->named || (opts && opts->verbose))) {
                if (show_progress) report_progress(opts, store, stats, done, files.n, t0, TTA_INGEST_PROGRESS_DIAG);
                fprintf(diag, "%s: skipped: %s\n", r->path, skip_reason(r));
            }
            if (r->forget && !db_failed) {
                if (tta_store_forget(store, r->path, &dberr) != TTA_OK)
                    db_failed = 1;
                else
                    stats->removed++;
            }
        } else {
            stats->files++;
            stats->bytes += (int64_t)r->bytes;
            if (r->kind == RESULT_UNCHANGED) {
                stats->unchanged++;
            } else if (!db_failed) {
                tta_parsed_file *f = &r->parsed;
                tta_db_file view = tta_parsed_db_file(f);
                if (tta_store_write(store, &view, &dberr) != TTA_OK) {
                    db_failed = 1; /* keep draining the queue so threads can finish */
                } else if (f->failed) {
                    const char *line = f->error ? f->error : f->path;
                    note_problem(&first, TTA_EINPUT, line);
                    if (diag && !(opts && opts->quiet)) {
                        if (show_progress)
                            report_progress(opts, store, stats, done, files.n, t0, TTA_INGEST_PROGRESS_DIAG);
                        fprintf(diag, "%s\n", line);
                    }
                }
            }
        }
        free_result(r);
        if (show_progress) report_progress(opts, store, stats, done + 1, files.n, t0, TTA_INGEST_PROGRESS_UPDATE);
    }
    for (int i = 0; i < started; i++) pthread_join(threads[i], NULL);
    free(threads);
    free(w.queue);
    pthread_mutex_destroy(&w.lock);
    pthread_cond_destroy(&w.not_full);
    pthread_cond_destroy(&w.not_empty);
    if (!db_failed && forget_vanished(store, stored, n_stored, paths, n_paths, opts, stats, diag, &dberr) != TTA_OK)
        db_failed = 1;
    tta_stored_sources_free(stored, n_stored);
    if (!db_failed && tta_store_finish(store, &dberr) != TTA_OK) db_failed = 1;
    tta_checkpointer_stop(checkpointer);
    /* Counted as committed: after a database error, the rolled-back files are not stored. */
    tta_store_counts done = tta_store_committed(store);
    stats->ingested = done.ingested;
    stats->failed = done.failed;
    stats->runs = done.runs;
    stats->events = done.events;
    tta_store_close(store);
    tta_check_rules_free(check_rules);
    tta_walk_free(&files);
    stats->seconds = now_seconds() - t0;
    if (db_failed) return tta_fail(err, dberr.code, "%s", dberr.text);
    /* Each failed file stored was noted as it was written. */
    assert(stats->failed == 0 || first.code != TTA_OK);
    if (first.code != TTA_OK) return tta_fail(err, first.code, "%s", first.text);
    tta_error_clear(err);
    return TTA_OK;
}

/* Contract in ingest.h. */
void tta_ingest_write_summary(const tta_ingest_stats *stats, int json, FILE *out, FILE *diag) {
    const tta_ingest_stats st = *stats;
    /* Why files of formats tta reads were not read: one line per reason. */
    if (st.skipped_code_folder)
        fprintf(diag, "ingest: skipped %lld files under benchmarks/ (sample logs, not results)\n",
                (long long)st.skipped_code_folder);
    if (st.skipped_subfolder)
        fprintf(diag, "ingest: skipped %lld logs in subfolders of results folders (%s: copies, not results)\n",
                (long long)st.skipped_subfolder, st.subfolders);
    if (st.skipped_not_result)
        fprintf(diag, "ingest: skipped %lld files in results folders that the official tools do not read (not"
                " <benchmark>/result_*.txt: checker output, other logs)\n", (long long)st.skipped_not_result);
    if (st.removed)
        fprintf(diag, "ingest: removed %lld of those files from the database (stored by an earlier ingest)\n",
                (long long)st.removed);
    if (st.skipped)
        fprintf(diag, "ingest: skipped %lld files that are no logs tta reads: %lld empty, %lld binary, %lld text"
                " without a log's records (--verbose names them)\n", (long long)st.skipped, (long long)st.skipped_empty,
                (long long)st.skipped_binary, (long long)(st.skipped - st.skipped_empty - st.skipped_binary));
    if (st.vanished)
        fprintf(diag, "ingest: removed %lld files that are no longer in the folders ingested, and their runs, from the"
                " database (--verbose names them)\n", (long long)st.vanished);
    double mb = st.bytes / 1e6;
    double mbps = st.seconds > 0 ? mb / st.seconds : 0;
    if (json) {
        fprintf(out, "{\"files\": %lld, \"ingested\": %lld, \"unchanged\": %lld, \"failed\": %lld, \"skipped\": %lld, "
                "\"not_results\": {\"code_folder\": %lld, \"subfolder\": %lld, \"not_result\": %lld, "
                "\"removed\": %lld}, \"not_logs\": {\"empty\": %lld, \"binary\": %lld, \"text\": %lld}, "
                "\"vanished\": %lld, \"runs\": %lld, \"events\": %lld, \"bytes\": %lld, \"seconds\": %.6f}\n",
               (long long)st.files, (long long)st.ingested, (long long)st.unchanged, (long long)st.failed,
               (long long)st.skipped, (long long)st.skipped_code_folder, (long long)st.skipped_subfolder,
               (long long)st.skipped_not_result, (long long)st.removed, (long long)st.skipped_empty,
               (long long)st.skipped_binary, (long long)(st.skipped - st.skipped_empty - st.skipped_binary),
               (long long)st.vanished, (long long)st.runs, (long long)st.events,
               (long long)st.bytes, st.seconds);
    } else {
        fprintf(diag,
                "ingest: %lld files seen, %lld ingested, %lld unchanged, %lld failed (%lld other files skipped: no logs); "
                "%lld runs, %lld events; %.1f MB in %.2f s (%.0f MB/s)\n",
                (long long)st.files, (long long)st.ingested, (long long)st.unchanged, (long long)st.failed,
                (long long)st.skipped, (long long)st.runs, (long long)st.events, mb, st.seconds, mbps);
    }
}
