/* detect.c: which format a file is, from its content, and from its path where content cannot
 * tell (which JSON description it is; a power log; a copy of a log kept beside the results). */
#include <string.h>
#include <strings.h>

#include "ingest/jsonscan.h"
#include "ingest/parsed.h"

/* Content searched for markers before a file with NUL bytes is taken for binary. */
#define DETECT_TEXT_PROBE 65536

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

static const char *base_name(const char *path) {
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

/* The path component before the file name is "systems". */
static int in_systems_folder(const char *path) {
    const char *b = base_name(path);
    if (b == path) return 0;
    const char *d = b - 1; /* the '/' */
    while (d > path && d[-1] != '/') d--;
    return (size_t)(b - 1 - d) == 7 && memcmp(d, "systems", 7) == 0;
}

/* A results/<system>/<benchmark>/ subfolder: power/..., or another (raw_logs/, logs/, ...).
 * Returns 1 for power, 2 for another subfolder, 0 otherwise. (Whether a log in another
 * subfolder is read is the walk's question: pathmeta.h, tta_path_skip.) */
static int results_subfolder(const char *path) {
    const char *r = NULL;
    for (const char *p = path; (p = strstr(p, "results/")) != NULL; p++)
        if (p == path || p[-1] == '/') r = p;
    if (!r) return 0;
    const char *c[4] = {0};
    int n = 0;
    for (const char *p = r + 8; *p && n < 4; p++)
        if (*p == '/') c[n++] = p + 1;
    /* results/<system>/<benchmark>/<sub>/<file>: three slashes after results/ */
    if (n < 3) return 0;
    return strncmp(c[1], "power/", 6) == 0 ? 1 : 2;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* The format of the first MLPerf marker in [p, end), or TTA_FMT_UNKNOWN. */
static tta_format first_marker(const char *p, const char *end) {
    const char *s = p;
    while (s < end) {
        const char *m = tta_find_triple_colon(s, end);
        if (!m) break;
        size_t left = (size_t)(end - m);
        if (left >= 9 && memcmp(m + 3, "MLLOG ", 6) == 0) return TTA_FMT_MLLOG;
        if (left >= 11 && memcmp(m + 3, "SYSJSON ", 8) == 0) return TTA_FMT_MLLOG;
        if (left >= 7 && memcmp(m + 3, "MLL ", 4) == 0) return TTA_FMT_MLPERF_V06;
        if (left >= 13 && memcmp(m + 3, "MLPv0.5.0 ", 10) == 0) return TTA_FMT_MLPERF_V05;
        s = m + 1;
    }
    /* Alibaba v0.6: "MLPerf: <benchmark> [MM/DD/YY HH:MM:SS], key" */
    for (s = p; s < end;) {
        const char *m = memmem(s, (size_t)(end - s), "MLPerf: ", 8);
        if (!m) break;
        const char *q = m + 8;
        while (q < end && q - m < 48 && *q != ' ' && *q != '\n') q++;
        if (end - q >= 21 && q[0] == ' ' && q[1] == '[' && is_digit(q[2]) && q[4] == '/' && q[7] == '/' && q[10] == ' ' &&
            q[13] == ':' && q[19] == ']')
            return TTA_FMT_MLPERF_TEXT;
        s = m + 8;
    }
    return TTA_FMT_UNKNOWN;
}

/* A DAWNBench TSV header: tab-separated, with an "hours" column and an epoch or quality one. */
static int dawnbench_header(const char *p, const char *end) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    size_t n = eol ? (size_t)(eol - p) : (size_t)(end - p);
    if (!memchr(p, '\t', n)) return 0;
    int hours = 0, other = 0;
    const char *c = p, *e = p + n;
    while (c < e) {
        const char *tab = memchr(c, '\t', (size_t)(e - c));
        const char *ce = tab ? tab : e;
        const char *t = ce;
        while (t > c && (t[-1] == '\r' || t[-1] == ' ')) t--;
        size_t len = (size_t)(t - c);
        if (len == 5 && strncasecmp(c, "hours", 5) == 0) hours = 1;
        if ((len == 5 && strncasecmp(c, "epoch", 5) == 0) || (len == 12 && strncasecmp(c, "top1Accuracy", 12) == 0) ||
            (len == 12 && strncasecmp(c, "top5Accuracy", 12) == 0) || (len == 7 && strncasecmp(c, "f1Score", 7) == 0))
            other = 1;
        c = tab ? tab + 1 : e;
    }
    return hours && other;
}

/* Which JSON description: content where it tells, the path where it does not. */
static tta_format json_kind(const char *path, const char *head, size_t n) {
    if (strcasecmp(base_name(path), "entry.json") == 0) return TTA_FMT_ENTRY_JSON;
    /* The summarizer's scaling factor beside a folder's result logs (the name is all it reads). */
    if (strcmp(base_name(path), "scaling.json") == 0) return TTA_FMT_SCALING;
    /* The summarizer's output (summary.json, or what --csv names; only this name is read). */
    if (strcmp(base_name(path), "summary.json") == 0) return TTA_FMT_SUMMARY;
    if (in_systems_folder(path)) return TTA_FMT_SYSTEM_JSON;
    if (memmem(head, n, "\"author\"", 8) && (memmem(head, n, "\"hardware\"", 10) || memmem(head, n, "\"model\"", 7)))
        return TTA_FMT_DAWNBENCH_JSON;
    if (memmem(head, n, "\"system_name\"", 13) &&
        (memmem(head, n, "\"accelerators_per_node\"", 23) || memmem(head, n, "\"number_of_nodes\"", 17)))
        return TTA_FMT_SYSTEM_JSON;
    if (memmem(head, n, "\"nodes\"", 7) && memmem(head, n, "\"num_accelerators\"", 18)) return TTA_FMT_ENTRY_JSON;
    return TTA_FMT_UNKNOWN;
}

/* The path component that ends just before end ('/' or the path's start before it), as [*s, end). */
static const char *component_before(const char *path, const char *end) {
    const char *s = end;
    while (s > path && s[-1] != '/') s--;
    return s;
}

/* [s, e) is "<prefix><digits>". */
static int numbered_folder(const char *s, const char *e, const char *prefix) {
    size_t m = strlen(prefix);
    if ((size_t)(e - s) <= m || strncmp(s, prefix, m) != 0) return 0;
    for (const char *c = s + m; c < e; c++)
        if (!is_digit(*c)) return 0;
    return 1;
}

/* The file lies in an AlgoPerf trial folder, study_<N>/<workload>/trial_<N>/ (the scoring code
 * reads no other: a trial folder straight under study_<N> is a stray copy). */
static int in_trial_folder(const char *path) {
    const char *b = base_name(path);
    if (b == path) return 0;
    const char *trial = component_before(path, b - 1);
    if (trial == path || !numbered_folder(trial, b - 1, "trial_")) return 0;
    const char *workload = component_before(path, trial - 1);
    if (workload == path || workload == trial - 1) return 0;
    const char *study = component_before(path, workload - 1);
    return numbered_folder(study, workload - 1, "study_");
}

/* An AlgoPerf leaderboard's file: the names its harness writes in a trial folder, and a benchmark
 * version's targets file (workload_targets*.json with base_workloads). */
static tta_format algoperf_kind(const char *path, const char *head, size_t n) {
    const char *b = base_name(path);
    if (in_trial_folder(path)) {
        if (!strcmp(b, "eval_measurements.csv")) return TTA_FMT_ALGOPERF_EVALS;
        if (!strcmp(b, "hparams.json") || !strcmp(b, "meta_data_0.json") || !strcmp(b, "flags_0.json"))
            return TTA_FMT_ALGOPERF_JSON;
    }
    if (!strncmp(b, "workload_targets", 16) && ends_with(b, ".json") && memmem(head, n, "\"base_workloads\"", 16))
        return TTA_FMT_ALGOPERF_TARGETS;
    return TTA_FMT_UNKNOWN;
}

tta_format tta_detect_format(const char *path, const char *head, size_t head_len) {
    tta_format algoperf = algoperf_kind(path, head, head_len < DETECT_TEXT_PROBE ? head_len : DETECT_TEXT_PROBE);
    if (algoperf != TTA_FMT_UNKNOWN) return algoperf;
    static const char *const skipped[] = {".tgz", ".tar", ".gz", ".zip", ".png", ".jpg", ".jpeg", ".gif", ".svg", ".pdf",
                                          ".py", ".md", ".yml", ".yaml", ".sh", ".csv", ".zst", ".bz2", ".xz", ".ipynb",
                                          ".c", ".h", ".cc", ".cpp", ".html", ".xlsx", ".pb", ".pt", ".ckpt"};
    for (size_t i = 0; i < sizeof skipped / sizeof skipped[0]; i++)
        if (ends_with(path, skipped[i])) return TTA_FMT_UNKNOWN;
    const char *end = head + head_len, *p = head;
    if (head_len >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF) p += 3;
    const char *body = p;
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) p++;

    /* JSON descriptions (and v0.6 NVIDIA's systems/<name>.json, which hold log lines). */
    if (ends_with(path, ".json") || (p < end && *p == '{')) {
        size_t probe = (size_t)(end - body) < DETECT_TEXT_PROBE ? (size_t)(end - body) : DETECT_TEXT_PROBE;
        if (ends_with(path, ".json") || first_marker(body, body + probe) == TTA_FMT_UNKNOWN)
            return json_kind(path, body, probe);
    }
    if (dawnbench_header(body, end)) return TTA_FMT_DAWNBENCH_TSV;

    /* Logs: the first marker, wherever it is (real logs print it after pages of shell
     * output); a file with NUL bytes and no marker in its first 64 KB is binary. */
    size_t probe = head_len < DETECT_TEXT_PROBE ? head_len : DETECT_TEXT_PROBE;
    tta_format f = first_marker(head, head + probe);
    if (f == TTA_FMT_UNKNOWN && probe < head_len && !memchr(head, '\0', probe))
        f = first_marker(head + probe - 16, end); /* overlap: a marker across the boundary */
    if (f == TTA_FMT_UNKNOWN) return f;
    if (f == TTA_FMT_MLLOG && results_subfolder(path) == 1) return TTA_FMT_POWER;
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
    case TTA_FMT_SCALING: return "scaling";
    case TTA_FMT_SUMMARY: return "summary";
    case TTA_FMT_ALGOPERF_EVALS: return "algoperf-evals";
    case TTA_FMT_ALGOPERF_JSON: return "algoperf-json";
    case TTA_FMT_ALGOPERF_TARGETS: return "algoperf-targets";
    case TTA_FMT_UNKNOWN: break;
    }
    return "unknown";
}
