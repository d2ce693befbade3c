/* test_parse_corpus.c: every file of the real corpus through the parsers.
 *
 * The corpus is /tmp/corpus when it is unpacked there, else $TTA_SHARED_DIR/corpus/<round>.tar.zst
 * unpacked into a temporary folder (also with TTA_TEST_CORPUS_ARCHIVES=1); without either the
 * test skips. Files `tta ingest` would not read where they lie (pathmeta.h, tta_path_skip: Intel
 * v0.7's copies in raw_logs/) are counted apart. Asserts: no file fails;
 * every result log gives a run with run_start, run_stop, identity and a status (unknown only
 * when its run_stop record carries none); every system description an accelerator count; and
 * the v0.7 scores computed from the parsed runs equal the official ones
 * (official-scores-v0.7.json: the olympic mean of run_stop - run_start over the result_*.txt
 * of each results/<system>/<benchmark> folder). Prints counts per round.
 */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/check.h"
#include "ingest/parse.h"
#include "ingest/pathmeta.h"
#include "tta_test.h"

typedef struct {
    char **v;
    size_t n, cap;
} path_list;

static void walk(path_list *l, const char *path) {
    struct stat st;
    if (lstat(path, &st) != 0) return;
    if (S_ISREG(st.st_mode)) {
        growArray(l->v, &l->cap, l->n + 1);
        l->v[l->n++] = strdupCheck(path);
        return;
    }
    if (!S_ISDIR(st.st_mode)) return;
    DIR *d = opendir(path);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        buf c = {0};
        buf_printf(&c, "%s/%s", path, e->d_name);
        walk(l, buf_str(&c));
        buf_free(&c);
    }
    closedir(d);
}

static int is_dir(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The corpus folder: /tmp/corpus, or the archives unpacked into *tmp (removed at the end). */
static const char *find_corpus(char *tmp, size_t cap) {
    const char *force = getenv("TTA_TEST_CORPUS_ARCHIVES"); /* 1: unpack even when /tmp/corpus exists */
    if (is_dir("/tmp/corpus/v0.7") && !(force && !strcmp(force, "1"))) return "/tmp/corpus";
    const char *shared = test_shared_dir();
    if (!shared) return NULL;
    snprintf(tmp, cap, "/tmp/tta-test-corpus-XXXXXX");
    if (!mkdtemp(tmp)) return NULL;
    static const char *const rounds[] = {"v0.5", "v0.6", "v0.7"};
    for (int i = 0; i < 3; i++) {
        buf cmd = {0};
        buf_printf(&cmd, "mkdir -p '%s/%s' && tar --zstd -xf '%s/corpus/mlperf-training-%s.tar.zst' -C '%s/%s'", tmp,
                   rounds[i], shared, rounds[i], tmp, rounds[i]);
        int rc = system(buf_str(&cmd));
        buf_free(&cmd);
        if (rc != 0) return NULL;
    }
    buf cmd = {0};
    buf_printf(&cmd, "mkdir -p '%s/dawnbench' && tar --zstd -xf '%s/corpus/dawnbench.tar.zst' -C '%s/dawnbench'", tmp,
               shared, tmp);
    int rc = system(buf_str(&cmd));
    buf_free(&cmd);
    return rc == 0 ? tmp : NULL;
}

static int is_run_format(tta_format f) {
    return f == TTA_FMT_MLPERF_V05 || f == TTA_FMT_MLPERF_V06 || f == TTA_FMT_MLLOG || f == TTA_FMT_MLPERF_TEXT ||
           f == TTA_FMT_DAWNBENCH_TSV;
}

/* 1 when the file's first run_stop record says nothing about the outcome (a bare run_stop). */
static int run_stop_without_status(const tta_parsed_file *f) {
    for (size_t i = 0; i < f->n_events; i++) {
        const tta_event *e = &f->events[i];
        if (e->key.n == 8 && !memcmp(e->key.p, "run_stop", 8)) {
            int has = (e->metadata.n && memmem(e->metadata.p, e->metadata.n, "\"status\"", 8)) ||
                      (e->value.n && (memmem(e->value.p, e->value.n, "success", 7) || memmem(e->value.p, e->value.n, "status", 6)));
            return !has;
        }
    }
    return 0;
}

/* Official v0.7 scores: one group of run times per results/<system>/<benchmark> folder. */
typedef struct {
    char *key;
    double times[64];
    int n, dropped;
} entry_times;

static entry_times *entry_for(entry_times **v, size_t *n, size_t *cap, const char *key) {
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*v)[i].key, key)) return &(*v)[i];
    growArray(*v, cap, *n + 1);
    entry_times *e = &(*v)[(*n)++];
    memset(e, 0, sizeof *e);
    e->key = strdupCheck(key);
    return e;
}

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The summarizer's olympic mean: sorted times sliced [1 : n - (1 - dropped)]. */
static double olympic_minutes(entry_times *e) {
    if (e->dropped > 1) return NAN;
    qsort(e->times, (size_t)e->n, sizeof e->times[0], compare_double);
    int lo = 1, hi = e->n - (1 - e->dropped);
    if (hi <= lo) return NAN;
    double s = 0;
    for (int i = lo; i < hi; i++) s += e->times[i];
    return s / (hi - lo) / 60.0;
}

TEST(corpus) {
    char tmp[64] = "";
    const char *root = find_corpus(tmp, sizeof tmp);
    if (!root) test_skip("no corpus: neither /tmp/corpus nor $TTA_SHARED_DIR/corpus/*.tar.zst");
    /* The rounds this test knows (the corpus folder may hold later ones: tests/cli/layouts.sh). */
    static const char *const rounds[] = {"v0.5", "v0.6", "v0.7", "dawnbench"};
    path_list files = {0};
    for (int k = 0; k < 4; k++) {
        buf dir = {0};
        buf_printf(&dir, "%s/%s", root, rounds[k]);
        walk(&files, buf_str(&dir));
        buf_free(&dir);
    }
    CHECK(files.n > 1500);

    size_t runs[4] = {0}, systems[4] = {0}, events[4] = {0}, unknown_status[4] = {0};
    size_t skipped = 0, not_results = 0, failed = 0, bad_runs = 0, bad_systems = 0;
    entry_times *entries = NULL;
    size_t n_entries = 0, cap_entries = 0;
    for (size_t i = 0; i < files.n; i++) {
        tta_parsed_file f = {0};
        int rc = tta_parse_file(files.v[i], &f);
        CHECK(rc == 0);
        if (f.failed) {
            failed++;
            fprintf(stderr, "failed: %s\n", f.error);
        }
        if (f.format == TTA_FMT_UNKNOWN) skipped++;
        /* What `tta ingest` of the folder would not read (copies in raw_logs/ ...): not a run. */
        tta_path_meta pm;
        tta_path_meta_read(files.v[i], &f.arena, &pm);
        if (tta_path_skip(files.v[i], &pm, f.format) != TTA_SKIP_NONE) {
            not_results++;
            tta_parsed_free(&f);
            continue;
        }
        int r = -1;
        const char *round = is_run_format(f.format) ? f.run.round : f.system.round;
        for (int k = 0; k < 4 && round; k++)
            if (!strcmp(round, rounds[k])) r = k;
        if (is_run_format(f.format) && !f.failed) {
            const tta_run_record *run = &f.run;
            int ok = r >= 0 && !isnan(run->run_start_s) && !isnan(run->run_stop_s) && run->run_stop_s >= run->run_start_s &&
                     run->submitter && run->system && run->benchmark && run->n_evals > 0;
            if (run->status == TTA_RUN_UNKNOWN) {
                if (!run_stop_without_status(&f)) ok = 0;
                if (r >= 0) unknown_status[r]++;
            }
            if (!ok) {
                bad_runs++;
                fprintf(stderr, "incomplete run: %s (round %s, start %g, stop %g, status %s, %s/%s/%s, %zu evals)\n",
                        files.v[i], run->round ? run->round : "?", run->run_start_s, run->run_stop_s,
                        tta_run_status_name(run->status), run->submitter ? run->submitter : "?",
                        run->system ? run->system : "?", run->benchmark ? run->benchmark : "?", run->n_evals);
            }
            if (r >= 0) {
                runs[r]++;
                events[r] += f.n_events;
            }
            /* The summarizer reads results/<system>/<benchmark>/result_*.txt. */
            const char *base = strrchr(files.v[i], '/');
            if (r == 2 && base && fnmatch("result_*.txt", base + 1, 0) == 0 && run->benchmark) {
                buf key = {0};
                buf_printf(&key, "%s/results/%s/%s", run->submitter, run->system, run->benchmark);
                entry_times *e = entry_for(&entries, &n_entries, &cap_entries, buf_str(&key));
                if (run->status == TTA_RUN_SUCCESS && e->n < 64)
                    e->times[e->n++] = run->run_stop_s - run->run_start_s;
                else
                    e->dropped++;
                buf_free(&key);
            }
        } else if (!f.failed && f.format != TTA_FMT_UNKNOWN) {
            if (r >= 0) systems[r]++;
            /* Every MLPerf description says how many accelerators (0 for CPU-only). */
            if (f.format != TTA_FMT_DAWNBENCH_JSON && f.system.accelerators < 0) {
                bad_systems++;
                fprintf(stderr, "system without accelerator count: %s\n", files.v[i]);
            }
            CHECK(f.system.raw_json != NULL);
        }
        tta_parsed_free(&f);
    }
    printf("corpus %s: %zu files, %zu skipped (not logs), %zu not read where they lie (copies)\n", root, files.n,
           skipped, not_results);
    for (int k = 0; k < 4; k++)
        printf("  %-10s %4zu runs (%zu with status unknown), %6zu events, %3zu descriptions\n", rounds[k], runs[k],
               unknown_status[k], events[k], systems[k]);
    CHECK(failed == 0);
    CHECK(bad_runs == 0);
    CHECK(bad_systems == 0);
    CHECK(runs[0] == 190 && runs[1] == 430 && runs[2] == 915 && runs[3] == 58);
    CHECK(not_results == 25); /* Intel v0.7's raw_logs/, processed_logs/ and logs/ */

    /* v0.7 scores against the official ones. */
    const char *shared = test_shared_dir();
    if (shared) {
        buf path = {0};
        buf_printf(&path, "%s/corpus/official-scores-v0.7.json", shared);
        FILE *fp = fopen(buf_str(&path), "rb");
        CHECK(fp != NULL);
        if (fp) {
            buf text = {0};
            char chunk[65536];
            size_t got;
            while ((got = fread(chunk, 1, sizeof chunk, fp)) > 0) buf_append(&text, chunk, got);
            fclose(fp);
            cJSON *doc = cJSON_Parse(buf_str(&text));
            const cJSON *scores = cJSON_GetObjectItemCaseSensitive(doc, "scores_min");
            int compared = 0, matched = 0;
            const cJSON *s;
            cJSON_ArrayForEach(s, scores) {
                compared++;
                entry_times *e = NULL;
                for (size_t i = 0; i < n_entries; i++)
                    if (!strcmp(entries[i].key, s->string)) e = &entries[i];
                double mine = e ? olympic_minutes(e) : NAN;
                if (fabs(mine - s->valuedouble) <= 1e-5)
                    matched++;
                else
                    fprintf(stderr, "score of %s: %.6f, official %.6f\n", s->string, mine, s->valuedouble);
            }
            printf("  v0.7 official scores: %d of %d equal\n", matched, compared);
            CHECK(compared > 90);
            CHECK(matched == compared);
            cJSON_Delete(doc);
            buf_free(&text);
        }
        buf_free(&path);
    }
    for (size_t i = 0; i < n_entries; i++) free(entries[i].key);
    free(entries);
    for (size_t i = 0; i < files.n; i++) free(files.v[i]);
    free(files.v);
    if (tmp[0]) {
        buf cmd = {0};
        buf_printf(&cmd, "rm -rf '%s'", tmp);
        if (system(buf_str(&cmd)) != 0) fprintf(stderr, "could not remove %s\n", tmp);
        buf_free(&cmd);
    }
}

int main(void) {
    RUN(corpus);
    return test_summary();
}
