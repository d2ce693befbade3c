/* parse.c: parse dispatch (parse.h): a source's format detected once, its DAWNBench sibling
 * found once, and its bytes handed to the parser the format names. */
#include "ingest/parse.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"
#include "common/check.h"
#include "common/hash.h"
#include "ingest/parse_common.h"
#include "ingest/parsers.h"
#include "ingest/pathmeta.h"

void tta_source_init(tta_source *s, const char *path, const char *data, size_t len) {
    assert(s && path && (data || len == 0));
    memset(s, 0, sizeof *s);
    s->path = path;
    s->data = data ? data : "";
    s->len = len;
    s->format = tta_detect_format(path, s->data, len);
}

char *tta_source_sibling_path(const char *path) {
    size_t n = strlen(path);
    if (n < 4 || strcasecmp(path + n - 4, ".tsv") != 0) return NULL;
    char *sib = mallocCheck(n + 2);
    memcpy(sib, path, n - 4);
    memcpy(sib + n - 4, ".json", 6);
    return sib;
}

void tta_source_read_sibling(tta_source *s) {
    assert(s && !s->sibling.data);
    if (s->format != TTA_FMT_DAWNBENCH_TSV) return;
    char *sib = tta_source_sibling_path(s->path);
    if (!sib) return;
    int code = tta_file_load(sib, TTA_PARSE_SIBLING_LIMIT, "a DAWNBench description", TTA_FILE_READ, &s->sibling,
                             &s->sibling_error);
    if (code == TTA_ENOTFOUND) tta_error_clear(&s->sibling_error); /* a TSV without a description */
    if (code == TTA_OK && s->sibling.len == 0) tta_file_free(&s->sibling); /* an empty one says nothing */
    free(sib);
}

uint64_t tta_source_hash(const tta_source *s) {
    uint64_t h = tta_hash64(s->data, s->len, 0);
    if (s->sibling.data) h = tta_hash64(s->sibling.data, s->sibling.len, h);
    return h;
}

void tta_source_free(tta_source *s) {
    tta_file_free(&s->sibling);
    tta_error_clear(&s->sibling_error);
}

void tta_parse_fail_unreadable(tta_parsed_file *out, const char *path, const tta_error *e) {
    /* The loader's text is "<path>: <reason>": the reason, with the line a parsed file's error has. */
    size_t n = strlen(path);
    const char *reason = strncmp(e->text, path, n) == 0 && !strncmp(e->text + n, ": ", 2) ? e->text + n + 2 : e->text;
    buf b = {0};
    buf_printf(&b, "%s:0: %s", path, reason);
    free(out->path);
    free(out->error);
    out->path = strdupCheck(path);
    out->failed = 1;
    out->error = buf_take(&b);
}

int tta_parse_source(const tta_source *s, uint64_t hash, tta_parsed_file *out) {
    assert(s && out);
    free(out->path);
    out->path = strdupCheck(s->path);
    out->size = s->len;
    out->hash = hash;
    out->format = s->format;
    if (s->sibling_error.code != TTA_OK) {
        tta_parse_fail(out, 0, "%s", s->sibling_error.text);
        return 0;
    }
    tta_path_meta pm;
    tta_path_meta_read(s->path, &out->arena, &pm);
    switch (s->format) {
    case TTA_FMT_MLPERF_V05:
    case TTA_FMT_MLPERF_V06:
    case TTA_FMT_MLLOG:
    case TTA_FMT_MLPERF_TEXT:
    case TTA_FMT_POWER:
        return tta_parse_log(out, s->data, s->len, &pm);
    case TTA_FMT_DAWNBENCH_TSV:
        return tta_parse_dawnbench_tsv(out, s->data, s->len, &pm, s->sibling.data, s->sibling.len);
    case TTA_FMT_SYSTEM_JSON:
    case TTA_FMT_ENTRY_JSON:
    case TTA_FMT_DAWNBENCH_JSON:
        return tta_parse_description(out, s->data, s->len, &pm);
    case TTA_FMT_SCALING:
        return tta_parse_scaling(out, s->data, s->len, &pm);
    case TTA_FMT_SUMMARY:
        return tta_parse_summary(out, s->data, s->len, &pm);
    case TTA_FMT_ALGOPERF_EVALS:
    case TTA_FMT_ALGOPERF_JSON:
    case TTA_FMT_ALGOPERF_TARGETS:
        return tta_parse_algoperf(out, s->data, s->len);
    case TTA_FMT_UNKNOWN:
        break;
    }
    return 0;
}

int tta_parse_buffer(const char *path, const char *data, size_t len, tta_parsed_file *out) {
    assert(path && out && (data || len == 0));
    tta_source s;
    tta_source_init(&s, path, data, len);
    tta_source_read_sibling(&s);
    /* ingest.c hashes before parsing (to skip unchanged files) and sets the hash first. */
    uint64_t hash = out->hash ? out->hash : tta_source_hash(&s);
    int rc = tta_parse_source(&s, hash, out);
    tta_source_free(&s);
    return rc;
}

int tta_parse_file(const char *path, tta_parsed_file *out) {
    tta_error e;
    tta_file file;
    if (tta_file_load(path, TTA_PARSE_FILE_LIMIT, "a result log", TTA_FILE_MAP_LARGE, &file, &e) != TTA_OK) {
        tta_parse_fail_unreadable(out, path, &e);
        return -1;
    }
    int rc = tta_parse_buffer(path, file.data, file.len, out);
    out->file = file;
    return rc;
}
