/* parsed.c: tta_parse_file / tta_parse_buffer: detect the format and hand the bytes to the
 * right parser; tta_parsed_free. */
#include <errno.h>
#include <fcntl.h>
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

int tta_parse_buffer(const char *path, const char *data, size_t len, tta_parsed_file *out) {
    out->path = strdupCheck(path);
    out->size = len;
    out->hash = tta_hash64(data, len, 0);
    out->format = tta_detect_format(path, data, len);
    tta_path_meta pm;
    tta_path_meta_read(path, &out->arena, &pm);
    switch (out->format) {
    case TTA_FMT_MLPERF_V05:
    case TTA_FMT_MLPERF_V06:
    case TTA_FMT_MLLOG:
    case TTA_FMT_MLPERF_TEXT:
    case TTA_FMT_POWER:
        return tta_parse_mlperf_log(out, data, len, &pm);
    case TTA_FMT_DAWNBENCH_TSV:
        return tta_parse_dawnbench_tsv(out, data, len, &pm);
    case TTA_FMT_SYSTEM_JSON:
    case TTA_FMT_ENTRY_JSON:
    case TTA_FMT_DAWNBENCH_JSON:
        return tta_parse_description(out, data, len, &pm);
    case TTA_FMT_UNKNOWN:
        break;
    }
    return 0;
}

int tta_parse_file(const char *path, tta_parsed_file *out) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        int e = errno;
        if (fd >= 0) close(fd);
        out->path = strdupCheck(path);
        out->failed = 1;
        buf b = {0};
        buf_printf(&b, "%s:0: cannot read: %s", path, strerror(e));
        out->error = tta_arena_strdup(&out->arena, buf_str(&b));
        buf_free(&b);
        return -1;
    }
    size_t len = (size_t)st.st_size;
    void *map = NULL;
    if (len) {
        map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            int e = errno;
            close(fd);
            out->path = strdupCheck(path);
            out->failed = 1;
            buf b = {0};
            buf_printf(&b, "%s:0: cannot map: %s", path, strerror(e));
            out->error = tta_arena_strdup(&out->arena, buf_str(&b));
            buf_free(&b);
            return -1;
        }
    }
    close(fd);
    int rc = tta_parse_buffer(path, map ? map : "", len, out);
    out->map = map;
    out->map_len = len;
    return rc;
}

void tta_parsed_free(tta_parsed_file *f) {
    free(f->path);
    free(f->events);
    free(f->run.evals);
    free(f->run.epochs);
    free(f->run.hparams);
    free(f->power.samples);
    tta_arena_free(&f->arena);
    if (f->map) munmap(f->map, f->map_len);
    memset(f, 0, sizeof *f);
}
