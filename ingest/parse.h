/* parse.h: parse dispatch, from a file's bytes to a tta_parsed_file (internal to ingest/).
 *
 * A source is one file as the dispatcher sees it: its bytes, its format (detected once, here),
 * and for a DAWNBench TSV the sibling description that belongs to its run (found once, here: the
 * same bytes are hashed, so that a change to the description alone re-ingests the run, and
 * parsed). The dispatcher hands the bytes to the parser the format names (parsers.h), which
 * builds the parsed file with the shared helpers (parse_common.h): dispatch -> parsers -> helpers.
 *
 * ingest.c walks a source step by step (it skips unknown formats before reading a sibling, and
 * unchanged files before parsing); tta_parse_buffer and tta_parse_file do all the steps at once.
 */
#ifndef TTA_INGEST_PARSE_H
#define TTA_INGEST_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/file.h"
#include "ingest/parsed.h"

/* The largest file tta_parse_file reads (a result log; the largest published are ~100 MiB), and
 * the largest DAWNBench description read beside a TSV. */
#define TTA_PARSE_FILE_LIMIT (16 * TTA_FILE_GIB)
#define TTA_PARSE_SIBLING_LIMIT (64 * TTA_FILE_MIB)

typedef struct {
    const char *path;        /* as given (not owned) */
    const char *data;        /* the file's bytes (the caller's; they outlive any parsed file made) */
    size_t len;
    tta_format format;       /* detected once, by tta_source_init */
    tta_file sibling;        /* a DAWNBench TSV's description, once read: data NULL when there is none */
    tta_error sibling_error; /* TTA_OK, or why a description that is there could not be read */
} tta_source;

/* Classifies a file by its content (the first bytes, head) and, where content alone cannot
 * tell (a JSON file), by its path. head_len may be less than the file's size (detect.c). */
tta_format tta_detect_format(const char *path, const char *head, size_t head_len);

/* Starts *s on data[0..len) of the file at path: detects its format (no I/O). */
void tta_source_init(tta_source *s, const char *path, const char *data, size_t len);

/* The sibling description's path of a DAWNBench TSV: path with its ".tsv" (in any case: "X.TSV"
 * too) replaced by ".json", malloc'd; NULL when path does not end in .tsv. */
char *tta_source_sibling_path(const char *path);

/* For a DAWNBench TSV, reads its sibling description (tta_source_sibling_path) into s->sibling:
 * none when there is no such file or it is empty; when it is there but cannot be read (too
 * large, unreadable), s->sibling_error says why and tta_parse_source fails the TSV with it.
 * Other formats: nothing. Call once, after tta_source_init. */
void tta_source_read_sibling(tta_source *s);

/* The content hash a source is stored under (sources.hash): tta_hash64 of the bytes, chained
 * with the sibling description's bytes when there is one. */
uint64_t tta_source_hash(const tta_source *s);

/* Parses s into *out (zeroed by the caller) with out->hash = hash. Returns 0, also for a file
 * recorded as failed (out->failed = 1 with out->error "<path>:<line>: <reason>": malformed input
 * is a value, not a crash). A TTA_FMT_UNKNOWN source gives a parsed file with no records.
 * Thread-safe: touches no global state. */
int tta_parse_source(const tta_source *s, uint64_t hash, tta_parsed_file *out);

/* Releases what s read (the sibling); the caller's bytes are untouched. */
void tta_source_free(tta_source *s);

/* Records on *out a file that could not be read: failed, with "<path>:0: <reason>" from e (the
 * loader's "<path>: <reason>", common/file.h). */
void tta_parse_fail_unreadable(tta_parsed_file *out, const char *path, const tta_error *e);

/* Parses an in-memory buffer as if it were the file at path (tests, fuzzing, bench): the
 * source's steps at once; the sibling of a DAWNBench TSV is read from the disk beside path when
 * it exists. out->hash is computed (tta_source_hash) unless the caller set it before the call.
 * The caller's buffer must outlive *out. Returns as tta_parse_source. */
int tta_parse_buffer(const char *path, const char *data, size_t len, tta_parsed_file *out);

/* Loads the file at path (common/file.h, TTA_PARSE_FILE_LIMIT; large files mapped) and parses it
 * into *out, which the caller zeroes first and which keeps the bytes (out->file). Returns 0 as
 * tta_parse_source, and -1 only when the file cannot be read at all (out->failed, out->error
 * "<path>:0: <reason>"). Thread-safe. */
int tta_parse_file(const char *path, tta_parsed_file *out);

#endif
