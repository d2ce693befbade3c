/* bench_parse.c: parse-only throughput of the ingest parsers (no database).
 *
 *   build/bench_parse [--repeat N] [--list-failed] PATH...
 *
 * Reads every regular file under the paths into memory first (so the disk is out of the
 * measurement), then times what ingest does per file (parse.h: detect the format once, read a
 * DAWNBench sibling, hash, parse) over all of them, single threaded, N times (default 3), and
 * prints the best pass: MB/s over the bytes of the files tta reads, records (events) per second,
 * and counts per format. Hashing is included, as in ingest.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/check.h"
#include "ingest/parse.h"

typedef struct {
    char *path;
    char *data;
    size_t len;
} loaded_file;

typedef struct {
    loaded_file *v;
    size_t n, cap;
} file_list;

/* Appends the file at path, read whole into memory; returns 0, or -1 when it cannot be read. */
static int load_file(file_list *l, const char *path, size_t size) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) return -1;
    char *data = mallocCheck(size ? size : 1);
    size_t got = 0;
    while (got < size) {
        ssize_t r = read(fd, data + got, size - got);
        if (r <= 0) break;
        got += (size_t)r;
    }
    close(fd);
    growArray(l->v, &l->cap, l->n + 1);
    l->v[l->n++] = (loaded_file){strdupCheck(path), data, got};
    return 0;
}

/* Walks path (a file or a folder, recursively, skipping hidden entries). */
static void walk(file_list *l, const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "bench_parse: %s: cannot stat\n", path);
        return;
    }
    if (S_ISREG(st.st_mode)) {
        load_file(l, path, (size_t)st.st_size);
        return;
    }
    if (!S_ISDIR(st.st_mode)) return;
    DIR *d = opendir(path);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char *child;
        if (asprintf(&child, "%s/%s", path, e->d_name) < 0) continue;
        walk(l, child);
        free(child);
    }
    closedir(d);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    int repeat = 3, list_failed = 0;
    file_list files = {0};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
            repeat = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--list-failed")) {
            list_failed = 1;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: bench_parse [--repeat N] [--list-failed] PATH...\n");
            return 2;
        } else {
            walk(&files, argv[i]);
        }
    }
    if (files.n == 0) {
        fprintf(stderr, "usage: bench_parse [--repeat N] [--list-failed] PATH...\n");
        return 2;
    }
    if (repeat < 1) repeat = 1;
    double best = 1e30;
    size_t bytes = 0, events = 0, failed = 0, per_format[TTA_FMT_ALGOPERF_TARGETS + 1] = {0};
    for (int pass = 0; pass < repeat; pass++) {
        bytes = events = failed = 0;
        memset(per_format, 0, sizeof per_format);
        double t0 = now();
        for (size_t i = 0; i < files.n; i++) {
            const loaded_file *lf = &files.v[i];
            tta_source src;
            tta_source_init(&src, lf->path, lf->data, lf->len);
            per_format[src.format]++;
            if (src.format == TTA_FMT_UNKNOWN) continue;
            tta_source_read_sibling(&src);
            tta_parsed_file f = {0};
            tta_parse_source(&src, tta_source_hash(&src), &f);
            tta_source_free(&src);
            bytes += lf->len;
            events += f.n_events;
            if (f.failed) {
                failed++;
                if (list_failed && pass == 0) fprintf(stderr, "%s\n", f.error);
            }
            tta_parsed_free(&f);
        }
        double dt = now() - t0;
        if (dt < best) best = dt;
    }
    printf("files %zu (read %zu, skipped %zu), failed %zu\n", files.n, files.n - per_format[TTA_FMT_UNKNOWN],
           per_format[TTA_FMT_UNKNOWN], failed);
    for (int fmt = 1; fmt <= TTA_FMT_ALGOPERF_TARGETS; fmt++)
        if (per_format[fmt]) printf("  %-15s %zu\n", tta_format_name((tta_format)fmt), per_format[fmt]);
    printf("%.1f MB in %.3f s (best of %d): %.0f MB/s, %zu records, %.0f records/s\n", bytes / 1e6, best, repeat,
           bytes / 1e6 / best, events, events / best);
    for (size_t i = 0; i < files.n; i++) {
        free(files.v[i].path);
        free(files.v[i].data);
    }
    free(files.v);
    return 0;
}
