/* parsed.c: the helpers the parsers share for building a parsed file (parse_common.h), and
 * tta_parsed_free. */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/check.h"
#include "ingest/parse_common.h"
#include "ingest/parsed.h"

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

void tta_parsed_free(tta_parsed_file *f) {
    free(f->path);
    free(f->error);
    free(f->events);
    free(f->records);
    free(f->records_files);
    free(f->run.evals);
    free(f->run.epochs);
    free(f->run.hparams);
    free(f->run.breakdowns);
    free(f->power.samples);
    free(f->entry_files);
    free(f->algoperf.evals);
    free(f->algoperf.values);
    free(f->algoperf.targets);
    tta_arena_free(&f->arena);
    tta_file_free(&f->file);
    memset(f, 0, sizeof *f);
}
