/* walk.c: tta_check_paths: the result logs under files and folders, each checked against its round's
 * ruleset (or the one given), on worker threads, sorted by path. */
#include "check/check.h"
#include "check/ruleset.h"

#include <assert.h>
#include <ctype.h>
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/check.h"

typedef struct {
    char **paths;
    size_t n, cap;
} list;

static void push(list *l, const char *p) {
    if (l->n == l->cap) growArray(l->paths, &l->cap, l->n + 1);
    l->paths[l->n++] = strdupCheck(p);
}

/* 1 when name is result_*.txt (a result log's name in the official layout). */
static int is_result_log(const char *name) {
    size_t n = strlen(name);
    return strncmp(name, "result_", 7) == 0 && n > 11 && strcmp(name + n - 4, ".txt") == 0;
}

/* Adds every result_*.txt under dir (depth-bounded; symbolic links to folders not followed). */
static void walk(const char *dir, int depth, list *out) {
    if (depth > 12) return;
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        size_t n = strlen(dir) + strlen(e->d_name) + 2;
        char *p = mallocCheck(n);
        snprintf(p, n, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0) {
            if (S_ISDIR(st.st_mode)) walk(p, depth + 1, out);
            else if ((S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) && is_result_log(e->d_name)) push(out, p);
        }
        free(p);
    }
    closedir(d);
}

/* The ruleset of the nearest folder naming a training round: v<major>.<minor> at the end of a path
 * component (v5.1, training_results_v5.1, mlperf-training-v5.1); none under a folder of another suite
 * (hpc, algoperf, inference), whose logs the training rulesets do not judge. */
int tta_check_ruleset_of_path(const char *path, char *out, size_t cap) {
    assert(path && out && cap > 0);
    char abs[4096];
    if (path[0] != '/' && getcwd(abs, sizeof abs - strlen(path) - 2)) {
        strcat(abs, "/");
        strcat(abs, path);
    } else {
        snprintf(abs, sizeof abs, "%s", path);
    }
    int found = 0;
    const char *p = abs;
    while (*p) {
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(n < 255 ? n : 255), p);
        for (char *c = name; *c; c++) *c = (char)tolower((unsigned char)*c);
        if (strstr(name, "hpc") || strstr(name, "algoperf") || strstr(name, "inference")) {
            found = 0; /* another benchmark suite's round: the training rulesets do not apply */
            if (!e) break;
            p = e + 1;
            continue;
        }
        for (size_t i = 0; i < n; i++) {
            unsigned maj, min;
            char tail;
            if (p[i] != 'v' || (i > 0 && p[i - 1] != '_' && p[i - 1] != '-')) continue;
            char comp[64];
            size_t m = n - i < sizeof comp ? n - i : sizeof comp - 1;
            memcpy(comp, p + i, m);
            comp[m] = '\0';
            if (sscanf(comp, "v%u.%u%c", &maj, &min, &tail) == 2 && maj < 100 && min < 100) {
                snprintf(out, cap, "%u.%u.0", maj, min);
                found = 1;
            }
        }
        if (!e) break;
        p = e + 1;
    }
    return found;
}

typedef struct {
    const tta_check_rules *rules;
    list *files;
    char (*rulesets)[16];
    unsigned flags;
    tta_check_log *logs;
    int *rc;
    tta_error *errs;
    atomic_size_t next;
} work;

/* A worker: takes the next file until none is left. */
static void *worker(void *arg) {
    work *w = arg;
    cc_arena scratch = {0}; /* this worker's memory, reused from log to log */
    for (;;) {
        size_t i = atomic_fetch_add(&w->next, 1);
        if (i >= w->files->n) break;
        w->rc[i] = cc_check_file(w->rules, w->rulesets[i], w->flags, w->files->paths[i], &scratch, &w->logs[i], &w->errs[i]);
    }
    cc_arena_free(&scratch);
    return NULL;
}

static int by_path(const void *a, const void *b) {
    return strcmp(((const tta_check_log *)a)->path, ((const tta_check_log *)b)->path);
}

/* Checks every result log under paths. */
int tta_check_paths(const tta_check_rules *rules, const char *const *paths, size_t n_paths, const char *ruleset,
                    unsigned flags, int jobs, tta_check_report *out, tta_error *err) {
    assert(rules && out && (paths || n_paths == 0));
    memset(out, 0, sizeof *out);
    list files = {0};
    int rc = TTA_OK;
    for (size_t i = 0; i < n_paths && rc == TTA_OK; i++) {
        struct stat st;
        if (stat(paths[i], &st) != 0) {
            rc = tta_fail(err, TTA_ENOTFOUND, "%s: no such file or folder", paths[i]);
        } else if (S_ISDIR(st.st_mode)) {
            size_t before = files.n;
            walk(paths[i], 0, &files);
            if (files.n == before) rc = tta_fail(err, TTA_EINPUT, "%s: no result log (result_*.txt) under this folder", paths[i]);
        } else {
            push(&files, paths[i]);
        }
    }
    char (*rulesets)[16] = callocCheck(files.n + 1, sizeof *rulesets);
    for (size_t i = 0; i < files.n && rc == TTA_OK; i++) {
        if (ruleset) snprintf(rulesets[i], sizeof rulesets[i], "%s", ruleset);
        else if (!tta_check_ruleset_of_path(files.paths[i], rulesets[i], sizeof rulesets[i]))
            rc = tta_fail(err, TTA_EUSAGE, "%s: no round folder (such as v5.1) in its path; give the ruleset with --ruleset 5.1.0",
                          files.paths[i]);
        if (rc == TTA_OK && !tta_check_rules_has(rules, rulesets[i]))
            rc = tta_fail(err, TTA_EUSAGE, "%s: no compliance rules for ruleset %s (tta has %s); give one with --ruleset",
                          files.paths[i], rulesets[i], tta_check_rules_rulesets(rules));
    }
    if (rc == TTA_OK && files.n) {
        out->logs = callocCheck(files.n, sizeof *out->logs);
        int *rcs = callocCheck(files.n, sizeof *rcs);
        tta_error *errs = callocCheck(files.n, sizeof *errs);
        work w = {.rules = rules, .files = &files, .rulesets = rulesets, .flags = flags, .logs = out->logs, .rc = rcs, .errs = errs};
        atomic_init(&w.next, 0);
        if (jobs <= 0) jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
        if (jobs < 1) jobs = 1;
        if ((size_t)jobs > files.n) jobs = (int)files.n;
        pthread_t *th = callocCheck((size_t)jobs, sizeof *th);
        int started = 0;
        for (int i = 1; i < jobs; i++)
            if (pthread_create(&th[i], NULL, worker, &w) == 0) started = i;
            else break;
        worker(&w);
        for (int i = 1; i <= started; i++) pthread_join(th[i], NULL);
        free(th);
        for (size_t i = 0; i < files.n; i++) {
            if (rcs[i] != TTA_OK && rc == TTA_OK) {
                rc = rcs[i];
                if (err) *err = errs[i];
            }
        }
        out->n = files.n;
        free(rcs);
        free(errs);
        if (rc != TTA_OK) {
            tta_check_report_free(out);
        } else {
            qsort(out->logs, out->n, sizeof *out->logs, by_path);
            for (size_t i = 0; i < out->n; i++) {
                tta_check_verdict v = out->logs[i].verdict;
                out->n_pass += v == TTA_CHECK_PASS;
                out->n_fail += v == TTA_CHECK_FAIL;
                out->n_unknown += v == TTA_CHECK_UNKNOWN;
            }
        }
    }
    for (size_t i = 0; i < files.n; i++) free(files.paths[i]);
    free(files.paths);
    free(rulesets);
    return rc;
}

/* Frees a report. */
void tta_check_report_free(tta_check_report *r) {
    if (!r) return;
    for (size_t i = 0; i < r->n; i++) tta_check_log_free(&r->logs[i]);
    free(r->logs);
    memset(r, 0, sizeof *r);
}
