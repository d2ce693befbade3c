/* parsed.c: tta_parse_file / tta_parse_buffer (detect the format, hand the bytes to its
 * parser), tta_parsed_free, and the helpers the parsers share for building a parsed file. */
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/check.h"
#include "common/hash.h"
#include "ingest/parsed.h"
#include "ingest/parsers.h"
#include "ingest/pathmeta.h"

void tta_parse_fail(tta_parsed_file *f, uint32_t line, const char *fmt, ...) {
    if (f->failed) return;
    buf b = {0};
    buf_printf(&b, "%s:%u: ", f->path ? f->path : "?", (unsigned)line);
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&b, fmt, ap);
    va_end(ap);
    f->failed = 1;
    free(f->error);
    f->error = buf_take(&b);
}

tta_str tta_parsed_keep(tta_parsed_file *f, const char *p, size_t n) {
    char *c = tta_arena_strndup(&f->arena, p, n);
    return (tta_str){c, (uint32_t)n};
}

char *tta_parsed_string(tta_parsed_file *f, tta_json_span s) {
    if (s.type != TTA_JSON_STRING) return NULL;
    if (s.plain) return tta_arena_strndup(&f->arena, s.p + 1, s.n - 2);
    buf b = {0};
    tta_json_string_decode(s, &b);
    char *c = tta_arena_strndup(&f->arena, buf_str(&b), b.len);
    buf_free(&b);
    return c;
}

char *tta_parsed_lower(tta_parsed_file *f, const char *s) {
    if (!s) return NULL;
    char *c = tta_arena_strdup(&f->arena, s);
    for (char *q = c; *q; q++) *q = (char)tolower((unsigned char)*q);
    return c;
}

int tta_parse_buffer(const char *path, const char *data, size_t len, tta_parsed_file *out) {
    assert(path && out && (data || len == 0));
    if (!data) data = "";
    free(out->path);
    out->path = strdupCheck(path);
    out->size = len;
    /* ingest.c hashes before parsing (to skip unchanged files) and sets hash first. */
    int own_hash = out->hash == 0;
    if (own_hash) out->hash = tta_hash64(data, len, 0);
    out->format = tta_detect_format(path, data, len);
    tta_path_meta pm;
    tta_path_meta_read(path, &out->arena, &pm);
    switch (out->format) {
    case TTA_FMT_MLPERF_V05:
    case TTA_FMT_MLPERF_V06:
    case TTA_FMT_MLLOG:
    case TTA_FMT_MLPERF_TEXT:
    case TTA_FMT_POWER:
        return tta_parse_log(out, data, len, &pm);
    case TTA_FMT_DAWNBENCH_TSV:
        return tta_parse_dawnbench_tsv(out, data, len, &pm, own_hash);
    case TTA_FMT_SYSTEM_JSON:
    case TTA_FMT_ENTRY_JSON:
    case TTA_FMT_DAWNBENCH_JSON:
        return tta_parse_description(out, data, len, &pm);
    case TTA_FMT_SCALING:
        return tta_parse_scaling(out, data, len, &pm);
    case TTA_FMT_SUMMARY:
        return tta_parse_summary(out, data, len, &pm);
    case TTA_FMT_UNKNOWN:
        break;
    }
    return 0;
}

/* Records an unreadable file: failed, with the reason. */
static int unreadable(tta_parsed_file *out, const char *path, const char *what, int errnum) {
    free(out->path);
    out->path = strdupCheck(path);
    out->failed = 1;
    buf b = {0};
    buf_printf(&b, "%s:0: %s: %s", path, what, strerror(errnum));
    free(out->error);
    out->error = buf_take(&b);
    return -1;
}

int tta_parse_file(const char *path, tta_parsed_file *out) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return unreadable(out, path, "cannot open", errno);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return unreadable(out, path, "cannot stat", e);
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return unreadable(out, path, "cannot read", EISDIR);
    }
    size_t len = (size_t)st.st_size;
    void *map = NULL;
    if (len > 0) {
        map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            int e = errno;
            close(fd);
            return unreadable(out, path, "cannot map", e);
        }
        madvise(map, len, MADV_SEQUENTIAL);
    }
    close(fd);
    int rc = tta_parse_buffer(path, map ? map : "", len, out);
    out->map = map;
    out->map_len = len;
    return rc;
}

void tta_parsed_free(tta_parsed_file *f) {
    free(f->path);
    free(f->error);
    free(f->events);
    free(f->records);
    free(f->records_files);
    free(f->run.evals);
    free(f->run.epochs);
    free(f->run.hparams);
    free(f->power.samples);
    free(f->entry_files);
    tta_arena_free(&f->arena);
    if (f->map) munmap(f->map, f->map_len);
    memset(f, 0, sizeof *f);
}
