/* pathmeta.c: identity from the results repositories' folder layouts. */
#include "ingest/pathmeta.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ingest/benchmarks.h"

#define MAX_COMPONENTS 64

const char *tta_round_normalize(const char *s, size_t n, tta_arena *arena) {
    /* Accept an optional prefix ending in 'v' or '_v' (training_results_v1.0), then
     * MAJOR.MINOR[.PATCH]. */
    const char *p = s, *end = s + n;
    const char *v = NULL;
    for (const char *q = s; q < end; q++)
        if (*q == 'v' || *q == 'V') v = q;
    if (v) {
        if (v != s && v[-1] != '_' && v[-1] != '-') return NULL;
        p = v + 1;
    } else if (n && !isdigit((unsigned char)*s)) {
        return NULL;
    }
    const char *maj = p;
    while (p < end && isdigit((unsigned char)*p)) p++;
    if (p == maj || p >= end || *p != '.') return NULL;
    int major = atoi(maj);
    p++;
    const char *min = p;
    while (p < end && isdigit((unsigned char)*p)) p++;
    if (p == min) return NULL;
    int minor = atoi(min);
    if (p < end && *p == '.') {
        p++;
        while (p < end && isdigit((unsigned char)*p)) p++;
    }
    if (p != end || major > 99 || minor > 99) return NULL;
    char buf[32];
    snprintf(buf, sizeof buf, "v%d.%d", major, minor);
    return tta_arena_strdup(arena, buf);
}

/* Run index from a file stem: result_N..., else the last group of digits (train_run3, x_4). */
static int stem_run_index(const char *stem) {
    if (strncmp(stem, "result_", 7) == 0 && isdigit((unsigned char)stem[7])) return atoi(stem + 7);
    const char *last = NULL;
    for (const char *p = stem; *p; p++)
        if (isdigit((unsigned char)*p) && (p == stem || !isdigit((unsigned char)p[-1]))) last = p;
    if (!last) return -1;
    long v = strtol(last, NULL, 10);
    return v >= 0 && v < 1000000 ? (int)v : -1;
}

void tta_path_meta_read(const char *path, tta_arena *arena, tta_path_meta *m) {
    memset(m, 0, sizeof *m);
    m->run_index = -1;
    const char *comp[MAX_COMPONENTS];
    size_t len[MAX_COMPONENTS];
    int n = 0;
    for (const char *p = path; *p && n < MAX_COMPONENTS;) {
        while (*p == '/') p++;
        if (!*p) break;
        const char *s = p;
        while (*p && *p != '/') p++;
        comp[n] = s;
        len[n] = (size_t)(p - s);
        n++;
    }
    if (n == 0) return;
    const char *file = comp[n - 1];
    size_t file_len = len[n - 1];
    const char *dot = NULL;
    for (size_t i = 0; i < file_len; i++)
        if (file[i] == '.') dot = file + i;
    size_t stem_len = dot && dot > file ? (size_t)(dot - file) : file_len;
    m->stem = tta_arena_strndup(arena, file, stem_len);
    m->run_index = stem_run_index(m->stem);

    int i_round = -1, i_results = -1, i_systems = -1;
    for (int i = 0; i < n - 1; i++) {
        const char *r = tta_round_normalize(comp[i], len[i], arena);
        if (r && (i_results < 0)) {
            m->round = r;
            i_round = i;
        }
        if (len[i] == 7 && memcmp(comp[i], "results", 7) == 0) i_results = i;
        if (len[i] == 7 && memcmp(comp[i], "systems", 7) == 0) i_systems = i;
    }
    if (i_results >= 0 && i_results > i_systems) {
        m->in_results = 1;
        /* v0.5's deeper layout: <round>/<submitter>/<submission...>/results/<system>/... */
        int i_sub = i_results - 1;
        if (i_round >= 0 && i_round + 1 < i_results) i_sub = i_round + 1;
        if (i_sub >= 0 && i_sub < i_results) m->submitter = tta_arena_strndup(arena, comp[i_sub], len[i_sub]);
        if (i_results + 1 < n - 1) m->system = tta_arena_strndup(arena, comp[i_results + 1], len[i_results + 1]);
        /* A submission folder holding per-benchmark folders (google/cloud_v3.8/gnmt-tpuv3-8/
         * results/tpu) names the system: "tpu" alone would merge different machines. */
        if (i_results - i_sub >= 3)
            m->system = tta_arena_strndup(arena, comp[i_sub + 1], len[i_sub + 1]);
        if (i_results + 2 < n - 1) {
            const char *b = tta_benchmark_canonical(comp[i_results + 2], len[i_results + 2]);
            if (b) m->benchmark = b;
            if (i_results + 3 < n - 1 && len[i_results + 3] == 5 && memcmp(comp[i_results + 3], "power", 5) == 0) {
                m->in_power = 1;
                /* power/result_N/node_M.txt: the run is result_N */
                if (i_results + 4 < n - 1) {
                    char *d = tta_arena_strndup(arena, comp[i_results + 4], len[i_results + 4]);
                    m->run_index = stem_run_index(d);
                }
            }
        }
    } else if (i_systems >= 0) {
        m->in_systems = 1;
        if (i_systems >= 1) m->submitter = tta_arena_strndup(arena, comp[i_systems - 1], len[i_systems - 1]);
        m->system = m->stem;
    }
    if (!m->benchmark) {
        /* DAWNBench folders: dawnbench/CIFAR10/train/... */
        for (int i = n - 2; i >= 0; i--) {
            const char *b = tta_benchmark_canonical(comp[i], len[i]);
            if (b && (!strcmp(b, "cifar10") || !strcmp(b, "imagenet") || !strcmp(b, "squad") ||
                      !strcmp(b, "fashion-mnist"))) {
                m->benchmark = b;
                break;
            }
        }
    }
}
