/* rcp_judge.c: MLCommons' RCP checker's verdict (check_directory, rcp_pass "pruned_rcps") of one entry
 * as the database keeps its runs (db/reader.h: tta_rcp_entry_row), against the reference points of a
 * --rcp-dir: one training_X.Y.Z folder, or a folder of such folders (each entry against its round's
 * ruleset). `tta report rcp` and `tta check` both ask it. Each reference file is read once per judge. */
#include <assert.h>
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/check.h"
#include "common/rules.h"
#include "reports/builders.h"

typedef struct {
    char *dir, *name;
    tta_rcp_set set;
    int status; /* tta_rcp_load's tta_status: TTA_ENOTFOUND is no file for the benchmark */
    tta_error err;
} rcp_cache;

struct tta_rcp_judge {
    char *dir;
    int per_ruleset; /* dir holds training_X.Y.Z folders */
    rcp_cache *cache;
    size_t n, cap;
};

/* 1 when path is a folder (or a link to one). */
static int is_dir(const char *path) {
    struct stat s;
    return stat(path, &s) == 0 && S_ISDIR(s.st_mode);
}

/* Is dir a folder of training_X.Y.Z (or hpc_X.Y.Z) folders (rather than one such folder of rcps_*.json)? */
static int holds_rulesets(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    int found = 0;
    buf path = {0};
    struct dirent *de;
    while (!found && (de = readdir(d))) {
        if (strncmp(de->d_name, "training_", 9) != 0 && strncmp(de->d_name, "hpc_", 4) != 0) continue;
        buf_clear(&path);
        buf_printf(&path, "%s/%s", dir, de->d_name);
        found = is_dir(buf_str(&path));
    }
    closedir(d);
    buf_free(&path);
    return found;
}

int tta_rcp_judge_new(const char *rcp_dir, tta_rcp_judge **out, tta_error *err) {
    assert(rcp_dir && out);
    *out = NULL;
    if (!is_dir(rcp_dir)) return tta_fail(err, TTA_ENOTFOUND, "--rcp-dir %s: not a folder", rcp_dir);
    tta_rcp_judge *j = callocCheck(1, sizeof *j);
    j->dir = strdupCheck(rcp_dir);
    j->per_ruleset = holds_rulesets(rcp_dir);
    *out = j;
    return TTA_OK;
}

void tta_rcp_judge_free(tta_rcp_judge *j) {
    if (!j) return;
    for (size_t i = 0; i < j->n; i++) {
        free(j->cache[i].dir);
        free(j->cache[i].name);
        tta_rcp_free(&j->cache[i].set);
    }
    free(j->cache);
    free(j->dir);
    free(j);
}

/* The reference set of dir/rcps_<name>.json, loaded once per judge. */
static const rcp_cache *cached_set(tta_rcp_judge *j, const char *dir, const char *name) {
    for (size_t i = 0; i < j->n; i++)
        if (!strcmp(j->cache[i].dir, dir) && !strcmp(j->cache[i].name, name)) return &j->cache[i];
    growArray(j->cache, &j->cap, j->n + 1);
    rcp_cache *c = &j->cache[j->n++];
    memset(c, 0, sizeof *c);
    c->dir = strdupCheck(dir);
    c->name = strdupCheck(name);
    c->status = tta_rcp_load(dir, name, &c->set, &c->err);
    return c;
}

/* The folder of x's reference points into dir, or why there is none into why. */
static void reference_dir(const tta_rcp_judge *j, const tta_rcp_entry_row *x, buf *dir, buf *why) {
    if (!j->per_ruleset) {
        buf_printf(dir, "%s", j->dir);
    } else if (!x->ruleset) {
        buf_printf(why, "no ruleset known for round %s", x->round ? x->round : "?");
    } else if (x->has_rule && !x->rcp) {
        buf_printf(why, "the RCP checker of rules %s does not judge %s", x->ruleset, x->benchmark);
    } else {
        char folder[64];
        tta_rules_rcp_folder(tta_rules_builtin(), x->ruleset, folder, sizeof folder);
        buf_printf(dir, "%s/%s", j->dir, folder);
        if (!is_dir(buf_str(dir)))
            buf_printf(why, "no RCP folder for round %s (rules %s) in %s", x->round, x->ruleset, j->dir);
    }
}

int tta_rcp_judge_entry(tta_rcp_judge *j, const tta_rcp_entry_row *x, tta_rcp_result *r, buf *why) {
    assert(j && x && r && why);
    memset(r, 0, sizeof *r);
    r->pass = -1;
    const char *name = x->rcp_name ? x->rcp_name : x->benchmark;
    buf dir = {0};
    size_t before = why->len;
    reference_dir(j, x, &dir, why);
    const rcp_cache *c = why->len > before ? NULL : cached_set(j, buf_str(&dir), name);
    if (c && c->status != TTA_OK && c->status != TTA_ENOTFOUND) {
        buf_printf(why, "%s", c->err.text);
    } else if (c && c->status == TTA_ENOTFOUND) { /* the checker stops (KeyError or no file) */
        buf_printf(why, "no reference convergence points for %s in %s (rcps_%s.json)", x->benchmark, buf_str(&dir),
                   name);
    }
    buf_free(&dir);
    if (why->len > before) return 0;
    tta_rcp_run *runs = mallocCheck((x->n_runs ? x->n_runs : 1) * sizeof *runs);
    for (size_t i = 0; i < x->n_runs; i++) {
        const tta_rcp_run_row *run = &x->runs[i];
        if (run->converged && isnan(run->progress)) { /* the checker stops too (conv_epoch unset) */
            buf_printf(why, "%s: the run converged but its convergence point is not logged", run->file);
            free(runs);
            return 0;
        }
        runs[i] = (tta_rcp_run){.progress = run->converged ? run->progress : NAN, .bs = run->global_batch_size};
    }
    *r = tta_rcp_check(&c->set, runs, x->n_runs, name);
    free(runs);
    assert(r->pass >= 0);
    return 1;
}
