/* walk.h: listing the files under the paths given to `tta ingest` (internal to ingest/). */
#ifndef TTA_INGEST_WALK_H
#define TTA_INGEST_WALK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"

typedef struct {
    char *path;
    int named; /* 1: the path was given itself (always read), not found in a folder */
} tta_walk_file;

typedef struct {
    tta_walk_file *files;
    size_t n, cap;
} tta_walk_list;

/* Appends every regular file under path (itself if a file, marked named) to list, recursing into folders
 * but not into symbolic links to folders nor hidden folders (.git). Unreadable folders below path
 * are reported on diag and skipped. TTA_OK; TTA_ENOTFOUND when path itself does not exist, TTA_EIO
 * when it cannot be looked at (err: "<path>: <the system's reason>"; nothing is listed). */
int tta_walk(const char *path, tta_walk_list *list, FILE *diag, tta_error *err);

/* Orders the list so that descriptions (*.json) come before logs, each group by path: a run
 * then finds its system's division already stored. A path listed twice is kept once (named if
 * either was). */
void tta_walk_sort(tta_walk_list *list);

void tta_walk_free(tta_walk_list *list);

#endif
