/* file.h: the one way tta reads a whole file.
 *
 * Every caller that needs a file's bytes (a log to ingest, a replay SPEC, a model, an RCP table,
 * an IDX dataset) loads it with tta_file_load, stating the largest size it accepts and what the
 * file is, so that every failure reads alike and names the path and the reason:
 *   "<path>: no such file"                          TTA_ENOTFOUND
 *   "<path>: is a directory, not a file"            TTA_EINPUT
 *   "<path>: is 1.3 MiB, the limit for a model file is 1 MiB"   TTA_EINPUT
 *   "<path>: cannot open: <system reason>"          TTA_EIO (permission denied, ...)
 *   "<path>: cannot read: <system reason>"          TTA_EIO (an I/O error, a file that shrank)
 * The text always begins with "<path>: " (a caller may put a line number after the path).
 * Nothing is ever cut short silently: a file over its limit is an error, not its first bytes.
 */
#ifndef TTA_COMMON_FILE_H
#define TTA_COMMON_FILE_H

#include <stddef.h>

#include "common/error.h"

/* A loaded file. data is never NULL after a successful load (an empty file gives len 0).
 * Read files are NUL-terminated (data[len] == '\0'), so text parsers may treat data as a C
 * string; a mapped file (TTA_FILE_MAP_LARGE) is not. */
typedef struct {
    char *data;
    size_t len;
    int mapped; /* 1: data is a read-only mapping of the file; 0: malloc'd */
} tta_file;

/* Flags of tta_file_load. */
enum {
    TTA_FILE_READ = 0,      /* read the bytes into memory (NUL-terminated) */
    TTA_FILE_MAP_LARGE = 1, /* map files of TTA_FILE_MAP_FROM bytes or more read-only instead: memory
                               stays bounded by what the caller touches (ingest's large logs);
                               smaller ones are still read, which costs less than mapping
                               thousands of small files (page faults, TLB shootdowns) */
};
#define TTA_FILE_MAP_FROM ((size_t)4 << 20)

/* Common limits, named so that callers and messages agree. */
#define TTA_FILE_KIB ((size_t)1 << 10)
#define TTA_FILE_MIB ((size_t)1 << 20)
#define TTA_FILE_GIB ((size_t)1 << 30)

/* Loads the whole file at path into *out (which the caller frees with tta_file_free).
 * limit is the largest size accepted, in bytes; what names the file in the too-large message
 * ("a model file", "a replay SPEC"). Regular files are sized first and read (or mapped) whole;
 * other readable files (a pipe, /dev/stdin) are read to their end, within the limit.
 * Returns TTA_OK, or a code with err's text as listed above and *out zeroed.
 * Thread-safe (no global state). */
int tta_file_load(const char *path, size_t limit, const char *what, unsigned flags, tta_file *out,
                  tta_error *err);

/* Releases the bytes of f (read or mapped) and zeroes it; a zeroed tta_file is allowed. */
void tta_file_free(tta_file *f);

/* Writes a byte count for people into out: "812 bytes", "1.3 MiB", "4 GiB" (one decimal, none
 * when whole). Returns out. */
char *tta_file_size_text(size_t bytes, char *out, size_t cap);

#endif
