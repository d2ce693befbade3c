/* detect.c: which format a file is, from its content (and its path where content cannot tell). */
#include <string.h>
#include <strings.h>

#include "ingest/parsed.h"

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

/* 1 when the path is in a power/ folder of a results tree. */
static int in_power_folder(const char *path) { return strstr(path, "/power/") != NULL || strncmp(path, "power/", 6) == 0; }

/* Logs in a subfolder of results/<system>/<benchmark>/ (logs/, raw_logs/, processed_logs/) are
 * per-worker or raw copies of a run, not result logs: the official summarizer reads only the
 * logs in the benchmark folder. Counts path components after the last "results". */
static int is_auxiliary_log(const char *path) {
    const char *r = NULL;
    for (const char *p = path; (p = strstr(p, "results/")) != NULL; p++)
        if (p == path || p[-1] == '/') r = p;
    if (!r || in_power_folder(path)) return 0;
    int slashes = 0;
    for (const char *p = r; *p; p++) slashes += *p == '/';
    return slashes > 3; /* results/<system>/<benchmark>/<sub>/<file> */
}

/* The first byte of content after an optional UTF-8 byte-order mark and white space. */
static const char *skip_bom_ws(const char *p, const char *end) {
    if (end - p >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF)
        p += 3;
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) p++;
    return p;
}

/* Finds the first MLPerf marker; returns its format or TTA_FMT_UNKNOWN. */
static tta_format first_marker(const char *data, size_t len) {
    const char *p = data, *end = data + len;
    while (p < end) {
        const char *c = memchr(p, ':', (size_t)(end - p));
        if (!c) break;
        if (end - c >= 6 && c[1] == ':' && c[2] == ':' && c[3] == 'M' && c[4] == 'L') {
            if (end - c >= 9 && memcmp(c + 3, "MLLOG ", 6) == 0) return TTA_FMT_MLLOG;
            if (end - c >= 7 && memcmp(c + 3, "MLL ", 4) == 0) return TTA_FMT_MLPERF_V06;
            if (end - c >= 10 && memcmp(c + 3, "MLPv0.5", 7) == 0) return TTA_FMT_MLPERF_V05;
        }
        p = c + 1;
    }
    /* Alibaba v0.6: "MLPerf: <benchmark> [MM/DD/YY HH:MM:SS], key" */
    p = data;
    while (p < end) {
        const char *m = memmem(p, (size_t)(end - p), "MLPerf: ", 8);
        if (!m) break;
        const char *q = m + 8;
        while (q < end && *q != ' ' && *q != '\n' && q - m < 48) q++;
        if (end - q >= 21 && q[0] == ' ' && q[1] == '[' && q[4] == '/' && q[7] == '/' && q[19] == ']')
            return TTA_FMT_MLPERF_TEXT;
        p = m + 8;
    }
    return TTA_FMT_UNKNOWN;
}

tta_format tta_detect_format(const char *path, const char *head, size_t head_len) {
    const char *end = head + head_len;
    const char *p = skip_bom_ws(head, end);
    if (ends_with(path, ".json") || (p < end && *p == '{' && !memmem(head, head_len, ":::", 3))) {
        if (p >= end || *p != '{') return TTA_FMT_UNKNOWN;
        if (ends_with(path, "/entry.json") || strcmp(path, "entry.json") == 0) return TTA_FMT_ENTRY_JSON;
        if (strstr(path, "/systems/") || strncmp(path, "systems/", 8) == 0) return TTA_FMT_SYSTEM_JSON;
        /* DAWNBench descriptions carry these keys; anything else JSON is not ours. */
        if (memmem(head, head_len, "\"author\"", 8) && (memmem(head, head_len, "\"hardware\"", 10) ||
                                                         memmem(head, head_len, "\"framework\"", 11)))
            return TTA_FMT_DAWNBENCH_JSON;
        /* A system description outside a systems/ folder (a user's own). */
        if (memmem(head, head_len, "\"accelerator_model_name\"", 24) &&
            memmem(head, head_len, "\"number_of_nodes\"", 17))
            return TTA_FMT_SYSTEM_JSON;
        return TTA_FMT_UNKNOWN;
    }
    if (ends_with(path, ".tsv")) {
        /* A DAWNBench per-epoch log: a header with epoch and hours columns. */
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (memmem(p, n, "epoch", 5) && memmem(p, n, "hours", 5)) return TTA_FMT_DAWNBENCH_TSV;
        return TTA_FMT_UNKNOWN;
    }
    /* Archives, images, source code and the like are not read at all. */
    static const char *const skipped[] = {".tgz", ".tar", ".gz", ".zip", ".png", ".jpg", ".pdf", ".py", ".md",
                                          ".yml", ".yaml", ".sh", ".csv", ".zst", ".bz2", ".xz"};
    for (size_t i = 0; i < sizeof skipped / sizeof skipped[0]; i++)
        if (ends_with(path, skipped[i])) return TTA_FMT_UNKNOWN;
    if (memchr(head, '\0', head_len < 4096 ? head_len : 4096)) return TTA_FMT_UNKNOWN; /* binary */
    tta_format f = first_marker(head, head_len);
    if (f == TTA_FMT_UNKNOWN) return f;
    if (in_power_folder(path) && f == TTA_FMT_MLLOG) return TTA_FMT_POWER;
    if (is_auxiliary_log(path)) return TTA_FMT_UNKNOWN;
    return f;
}

const char *tta_format_name(tta_format f) {
    switch (f) {
    case TTA_FMT_MLPERF_V05: return "mlperf-v0.5";
    case TTA_FMT_MLPERF_V06: return "mlperf-v0.6";
    case TTA_FMT_MLLOG: return "mllog";
    case TTA_FMT_MLPERF_TEXT: return "mlperf-text";
    case TTA_FMT_POWER: return "power";
    case TTA_FMT_DAWNBENCH_TSV: return "dawnbench-tsv";
    case TTA_FMT_DAWNBENCH_JSON: return "dawnbench-json";
    case TTA_FMT_SYSTEM_JSON: return "system-json";
    case TTA_FMT_ENTRY_JSON: return "entry-json";
    case TTA_FMT_UNKNOWN: break;
    }
    return "unknown";
}

const char *tta_run_status_name(tta_run_status s) {
    switch (s) {
    case TTA_RUN_SUCCESS: return "success";
    case TTA_RUN_ABORTED: return "aborted";
    case TTA_RUN_UNKNOWN: break;
    }
    return "unknown";
}
