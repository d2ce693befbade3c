/* pathmeta.c: identity from the results repositories' folder layouts.
 *
 * Published MLPerf results are laid out as <submitter>/results/<system>/<benchmark>/<log> with
 * <submitter>/systems/<system>.json beside; v0.5 nests one or two submission folders between
 * the submitter and results/ (v0.5.0/intel/intel_resnet_submission/results/<system>/...,
 * v0.5.0/google/cloud_v2.8/gnmt-tpuv2-8/results/tpu/...). DAWNBench entries sit in
 * <task>/train/<name>.tsv. MLPerf HPC (round folders hpc-vX.Y) puts strong/ or weak/ between the
 * system and the benchmark from v1.0. The path is read component by component; nothing touches the disk.
 */
#include "ingest/pathmeta.h"

#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "ingest/benchmarks.h"

#define MAX_COMPONENTS 128

const char *tta_round_from_name(const char *s, size_t n, tta_arena *arena) {
    /* "v0.7", "v0.5.0", or a repository name ending in it ("training_results_v1.0"): the
     * prefix must say so, because system folders look alike ("cloud_v3.8" is a TPU v3-8). */
    const char *end = s + n, *v = NULL;
    for (const char *q = s; q < end; q++)
        if ((*q == 'v' || *q == 'V') && (q == s || q[-1] == '_' || q[-1] == '-')) v = q;
    if (!v) return NULL;
    /* MLPerf HPC's rounds ("hpc-v1.0", "mlperf-hpc-v1.0", "hpc_results_v1.0") are rounds of their
     * own: "hpc-vX.Y". */
    int hpc = 0;
    for (const char *q = s; q + 3 <= v && !hpc; q++) hpc = strncasecmp(q, "hpc", 3) == 0;
    if (v != s && !hpc) {
        int named = 0;
        static const char *const words[] = {"result", "training", "mlperf", "round"};
        for (size_t w = 0; w < sizeof words / sizeof words[0] && !named; w++) {
            size_t wl = strlen(words[w]);
            for (const char *q = s; q + wl <= v && !named; q++) named = strncasecmp(q, words[w], wl) == 0;
        }
        if (!named) return NULL;
    }
    const char *p = v + 1, *maj = p;
    while (p < end && isdigit((unsigned char)*p)) p++;
    if (p == maj || p - maj > 2 || p >= end || *p != '.') return NULL;
    int major = 0;
    for (const char *d = maj; d < p; d++) major = major * 10 + (*d - '0');
    const char *min = ++p;
    while (p < end && isdigit((unsigned char)*p)) p++;
    if (p == min || p - min > 2) return NULL;
    int minor = 0;
    for (const char *d = min; d < p; d++) minor = minor * 10 + (*d - '0');
    if (p < end && *p == '.') {
        const char *patch = ++p;
        while (p < end && isdigit((unsigned char)*p)) p++;
        if (p == patch) return NULL;
    }
    if (p != end) return NULL;
    char tmp[24];
    snprintf(tmp, sizeof tmp, "%sv%d.%d", hpc ? "hpc-" : "", major, minor);
    return tta_arena_strdup(arena, tmp);
}

int tta_trailing_index(const char *s, size_t n) {
    /* result_N... names the run whatever follows (Intel's result_3_4n16r_32k_1593118427); a
     * longer first number is an id, and the run is the last number (HazyResearch v2.0's
     * result_220520100725096152634_9, Lambda v4.1's result_240928162719380693721_01). */
    if (n > 7 && !memcmp(s, "result_", 7) && isdigit((unsigned char)s[7])) {
        size_t e = 7;
        while (e < n && isdigit((unsigned char)s[e])) e++;
        if (e - 7 <= 6) {
            int v = 0;
            for (size_t i = 7; i < e; i++) v = v * 10 + (s[i] - '0');
            return v;
        }
    }
    /* Else the last group of digits that is not a timestamp or id (at most 6 digits). */
    size_t e = n;
    while (e > 0) {
        while (e > 0 && !isdigit((unsigned char)s[e - 1])) e--;
        size_t b = e;
        while (b > 0 && isdigit((unsigned char)s[b - 1])) b--;
        if (e > b && e - b <= 6) {
            int v = 0;
            for (size_t i = b; i < e; i++) v = v * 10 + (s[i] - '0');
            return v;
        }
        e = b;
    }
    return -1;
}

static int comp_is(const char *c, size_t n, const char *lit) { return strlen(lit) == n && memcmp(c, lit, n) == 0; }

void tta_path_meta_read(const char *path, tta_arena *arena, tta_path_meta *m) {
    memset(m, 0, sizeof *m);
    m->run_index = -1;
    const char *comp[MAX_COMPONENTS];
    size_t len[MAX_COMPONENTS];
    int n = 0;
    for (const char *p = path; *p;) {
        while (*p == '/') p++;
        if (!*p) break;
        const char *s = p;
        while (*p && *p != '/') p++;
        if (comp_is(s, (size_t)(p - s), ".")) continue;
        if (n == MAX_COMPONENTS) { /* keep the deepest components: they carry the layout */
            memmove(comp, comp + 1, sizeof comp[0] * (MAX_COMPONENTS - 1));
            memmove(len, len + 1, sizeof len[0] * (MAX_COMPONENTS - 1));
            n--;
        }
        comp[n] = s;
        len[n] = (size_t)(p - s);
        n++;
    }
    if (n == 0) return;
    const char *file = comp[n - 1];
    size_t file_len = len[n - 1], stem_len = file_len;
    for (size_t i = file_len; i-- > 1;) {
        if (file[i] == '.') {
            stem_len = i;
            break;
        }
    }
    m->stem = tta_arena_strndup(arena, file, stem_len);
    m->run_index = tta_trailing_index(file, stem_len);

    int i_results = -1, i_systems = -1;
    for (int i = 0; i < n - 1; i++) {
        if (comp_is(comp[i], len[i], "results") && i + 1 < n - 1) i_results = i;
        if (comp_is(comp[i], len[i], "systems") && i == n - 2) i_systems = i;
    }
    int i_anchor = i_results >= 0 ? i_results : i_systems;
    int i_round = -1;
    for (int i = 0; i < (i_anchor >= 0 ? i_anchor : n - 1); i++) {
        const char *r = tta_round_from_name(comp[i], len[i], arena);
        if (r) {
            m->round = r;
            i_round = i;
        }
        if (comp_is(comp[i], len[i], "closed")) m->division = "closed";
        if (comp_is(comp[i], len[i], "open")) m->division = "open";
    }

    if (i_anchor >= 0) {
        /* The folders between the round and results/ (division folders aside) name the
         * submitter, then v0.5's submission folders. */
        int between[MAX_COMPONENTS], nb = 0;
        if (i_round >= 0) {
            for (int i = i_round + 1; i < i_anchor; i++)
                if (!comp_is(comp[i], len[i], "closed") && !comp_is(comp[i], len[i], "open")) between[nb++] = i;
        }
        int i_sub = nb > 0 ? between[0] : i_anchor - 1;
        if (i_sub >= 0) m->submitter = tta_arena_strndup(arena, comp[i_sub], len[i_sub]);
        if (i_results >= 0) {
            m->layout = TTA_LAYOUT_RESULTS;
            int i_sys = i_results + 1;
            /* google/<platform>/<submission>/results/tpu: the platform folder names the system
             * ("tpu" alone would merge different machines). */
            if (nb >= 3) i_sys = between[1];
            m->system = tta_arena_strndup(arena, comp[i_sys], len[i_sys]);
            int i_bench = i_results + 2;
            /* MLPerf HPC from v1.0: results/<system>/strong|weak/<benchmark>/ */
            if (i_bench + 1 < n - 1 && (comp_is(comp[i_bench], len[i_bench], "strong") ||
                                        comp_is(comp[i_bench], len[i_bench], "weak"))) {
                m->scaling = comp_is(comp[i_bench], len[i_bench], "weak") ? "weak" : "strong";
                i_bench++;
            }
            if (i_bench < n - 1) {
                m->benchmark = tta_benchmark_canonical(comp[i_bench], len[i_bench], m->round);
                m->in_benchmark = i_bench == n - 2;
                if (i_bench + 1 < n - 1) {
                    if (comp_is(comp[i_bench + 1], len[i_bench + 1], "power")) {
                        m->power = 1;
                        if (i_bench + 2 < n - 1) {
                            m->dir_stem = tta_arena_strndup(arena, comp[i_bench + 2], len[i_bench + 2]);
                            m->run_index = tta_trailing_index(comp[i_bench + 2], len[i_bench + 2]);
                        }
                    } else {
                        m->auxiliary = 1;
                        m->subfolder = tta_arena_strndup(arena, comp[i_bench + 1], len[i_bench + 1]);
                    }
                }
            }
        } else {
            m->layout = TTA_LAYOUT_SYSTEMS;
            m->system = m->stem;
        }
    }
    /* Code folders: <submitter>/benchmarks/ (GIGABYTE v2.1: benchmark/), where some submitters
     * keep sample logs (benchmarks/<benchmark>/implementations/<impl>/results/<id>_N.log) that name
     * other submitters and systems. The folder after the round's submitter folder; without a
     * round folder, a benchmarks/ folder with an implementations/ folder below it. */
    int i_sub_folder = -1;
    if (i_round >= 0) {
        for (int i = i_round + 1; i < n - 1 && i_sub_folder < 0; i++)
            if (!comp_is(comp[i], len[i], "closed") && !comp_is(comp[i], len[i], "open")) i_sub_folder = i;
    }
    for (int i = i_round + 1; i < n - 1 && !m->code_folder; i++) {
        if (!comp_is(comp[i], len[i], "benchmarks") && !comp_is(comp[i], len[i], "benchmark")) continue;
        if (i_sub_folder >= 0 && i == i_sub_folder + 1) m->code_folder = 1;
        for (int j = i + 1; j < n - 1 && !m->code_folder; j++)
            if (comp_is(comp[j], len[j], "implementations")) m->code_folder = 1;
    }

    if (!m->benchmark) {
        /* DAWNBench task folders (dawnbench/CIFAR10/train/...). */
        for (int i = n - 2; i >= 0; i--) {
            const char *b = tta_benchmark_canonical(comp[i], len[i], NULL);
            if (tta_benchmark_is_dawnbench(b)) {
                m->benchmark = b;
                break;
            }
        }
    }
}

/* 1 for the formats that make runs (the result logs). */
static int is_run_log(tta_format f) {
    return f == TTA_FMT_MLPERF_V05 || f == TTA_FMT_MLPERF_V06 || f == TTA_FMT_MLLOG || f == TTA_FMT_MLPERF_TEXT;
}

/* The file name matches the summarizer's glob result_*.txt. */
static int is_result_name(const char *path) {
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    return n >= 11 && memcmp(b, "result_", 7) == 0 && memcmp(b + n - 4, ".txt", 4) == 0;
}

tta_skip_kind tta_path_skip(const char *path, const tta_path_meta *m, tta_format f) {
    assert(path && m);
    if (f == TTA_FMT_UNKNOWN) return TTA_SKIP_NONE;
    if (m->code_folder) return TTA_SKIP_CODE_FOLDER;
    /* The summarizer reads scaling.json in the benchmark folder only. */
    if (f == TTA_FMT_SCALING)
        return m->layout == TTA_LAYOUT_RESULTS && m->in_benchmark ? TTA_SKIP_NONE : TTA_SKIP_NOT_RESULT;
    if (!is_run_log(f) || m->layout != TTA_LAYOUT_RESULTS) return TTA_SKIP_NONE;
    if (m->auxiliary) return TTA_SKIP_SUBFOLDER;
    /* The official tools read results/<system>/<benchmark>/result_*.txt; tta reads the older
     * rounds' other names as before (Alibaba v0.7's <id>_N.log, logs in results/<system>/). The
     * v0.5 and v0.6 formats are of those rounds whatever the path says. */
    int older = (m->round && tta_round_compare(m->round, "v1.0") < 0) || f != TTA_FMT_MLLOG;
    if (older || (m->in_benchmark && is_result_name(path))) return TTA_SKIP_NONE;
    return TTA_SKIP_NOT_RESULT;
}

char *tta_dawnbench_entry_name(const char *stem, tta_arena *arena, int *run_index) {
    /* A DAWNBench stem names an entry ("resnet9_1v100"): only "_seed<N>" / "_run<N>" at its end
     * numbers a run of that entry, so that the seeds of one recipe make one entry. */
    if (run_index) *run_index = -1;
    const char *u = strrchr(stem, '_');
    if (u && (!strncasecmp(u + 1, "seed", 4) || !strncasecmp(u + 1, "run", 3))) {
        const char *d = u + 1 + (tolower((unsigned char)u[1]) == 's' ? 4 : 3);
        if (isdigit((unsigned char)*d)) {
            if (run_index) *run_index = tta_trailing_index(d, strlen(d));
            return tta_arena_strndup(arena, stem, (size_t)(u - stem));
        }
    }
    return (char *)stem;
}
