/* package.c: tta_check_packages: what MLCommons' package checker (package_checker.py
 * check_training_package, logging commit of schemas/package_rules.json) checks of an organisation's
 * submission beyond each log, per folder: the layout (results/, systems/<system>.json with its
 * division), the benchmarks of the ruleset, the result files each needs, their names, the logs'
 * compliance under olympic scoring (with the power logs' checks), the seeds of closed-division
 * folders, and scaling.json. The RCP checker's verdict is not here (docs/compliance.md). */
#include "check/check.h"
#include "check/package.h"

#include <assert.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/buf.h"
#include "common/check.h"
#include "common/file.h"
#include "common/hash.h"
#include "common/rules.h"

/* The order of the checks within one path. */
static const char *const CHECKS[] = {"layout", "system_desc", "benchmark", "result_count", "file_names",
                                     "compliance", "seeds", "scaling"};

typedef struct {
    const tta_check_rules *rules;
    unsigned flags;
    const tta_check_report *logs;
    const tta_rules *brules;
    const cc_pkg_rules *prules;
    tta_package_finding *items;
    size_t n, cap;
    size_t n_orgs;
} ctx;

typedef struct {
    char **names;
    size_t n, cap;
} names;

static void names_free(names *l) {
    for (size_t i = 0; i < l->n; i++) free(l->names[i]);
    free(l->names);
    memset(l, 0, sizeof *l);
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* 1 when path is a folder (links followed, as os.path.isdir). */
static int is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* The entries of dir, sorted: folders only (os.listdir + isdir, hidden ones included) or every entry
 * but hidden ones (glob's '*'). */
static void list_dir(const char *dir, int folders_only, names *out) {
    memset(out, 0, sizeof *out);
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (!folders_only && e->d_name[0] == '.') continue;
        if (folders_only) {
            char *p = mallocCheck(strlen(dir) + strlen(e->d_name) + 2);
            sprintf(p, "%s/%s", dir, e->d_name);
            int keep = is_dir(p);
            free(p);
            if (!keep) continue;
        }
        if (out->n == out->cap) growArray(out->names, &out->cap, out->n + 1);
        out->names[out->n++] = strdupCheck(e->d_name);
    }
    closedir(d);
    if (out->n) qsort(out->names, out->n, sizeof *out->names, by_name);
}

static char *join(const char *a, const char *b) {
    char *p = mallocCheck(strlen(a) + strlen(b) + 2);
    sprintf(p, "%s/%s", a, b);
    return p;
}

/* Adds a finding; the message is printf-formatted. */
static void add(ctx *c, const char *org, const char *check, const char *rel, const char *ruleset, tta_package_verdict v,
                const char *key, const char *fmt, ...) __attribute__((format(printf, 8, 9)));
static void add(ctx *c, const char *org, const char *check, const char *rel, const char *ruleset, tta_package_verdict v,
                const char *key, const char *fmt, ...) {
    if (c->n == c->cap) growArray(c->items, &c->cap, c->n + 1);
    tta_package_finding *f = &c->items[c->n++];
    memset(f, 0, sizeof *f);
    f->org = strdupCheck(org);
    f->check = strdupCheck(check);
    f->path = strdupCheck(rel);
    snprintf(f->ruleset, sizeof f->ruleset, "%s", ruleset);
    f->verdict = v;
    f->key = strdupCheck(key ? key : "");
    buf m = {0};
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&m, fmt, ap);
    va_end(ap);
    f->message = buf_take(&m);
}

/* 1 when name matches glob result_*.txt. */
static int is_result_name(const char *name) {
    size_t n = strlen(name);
    return n >= 11 && strncmp(name, "result_", 7) == 0 && strcmp(name + n - 4, ".txt") == 0;
}

/* 1 when the params file at path has the line (readlines keeps each line's newline, so only a last
 * line without one can equal it, as the checker compares). */
static int params_line(const char *path, const char *line) {
    tta_file f;
    if (tta_file_load(path, TTA_FILE_MIB, "a params file", TTA_FILE_READ, &f, NULL) != TTA_OK) return 0;
    const char *last = f.data;
    for (size_t i = 0; i < f.len; i++)
        if (f.data[i] == '\n' || f.data[i] == '\r') last = f.data + i + 1;
    int yes = strlen(last) == (size_t)(f.data + f.len - last) && strcmp(last, line) == 0;
    tta_file_free(&f);
    return yes;
}

/* The log at path among the logs checked already (sorted by path), or NULL. */
static const tta_check_log *checked_log(const ctx *c, const char *path) {
    size_t lo = 0, hi = c->logs ? c->logs->n : 0;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int cmp = strcmp(c->logs->logs[mid].path, path);
        if (cmp == 0) return &c->logs->logs[mid];
        if (cmp < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

/* The verdict tta gives the log at path: from the logs checked already, else checked now. */
static tta_check_verdict log_verdict(ctx *c, const char *ruleset, const char *path, char **first_rule) {
    *first_rule = NULL;
    const tta_check_log *l = checked_log(c, path);
    if (l) {
        if (l->n_failures) *first_rule = strdupCheck(l->failures[0].rule);
        return l->verdict;
    }
    tta_check_log log;
    tta_error err;
    if (tta_check_log_file(c->rules, ruleset, c->flags, path, &log, &err) != TTA_OK) {
        *first_rule = strdupCheck(err.text);
        return TTA_CHECK_FAIL;
    }
    tta_check_verdict v = log.verdict;
    if (log.n_failures) *first_rule = strdupCheck(log.failures[0].rule);
    tta_check_log_free(&log);
    return v;
}

/* A power file's index: int(splitext(name)[0].split('_')[-1]); 0 or -1 when int() raises. */
static int power_index(const char *name, long *out) {
    const char *dot = strrchr(name, '.');
    size_t n = dot && dot != name ? (size_t)(dot - name) : strlen(name);
    const char *u = NULL;
    for (size_t i = 0; i < n; i++)
        if (name[i] == '_') u = name + i;
    const char *p = u ? u + 1 : name;
    size_t m = (size_t)(name + n - p);
    char tmp[64];
    if (m == 0 || m >= sizeof tmp) return -1;
    memcpy(tmp, p, m);
    tmp[m] = '\0';
    char *end;
    *out = strtol(tmp, &end, 10);
    return *end == '\0' ? 0 : -1;
}

/* The power checker (package_checker/power_checker.py): result names whose power logs are missing,
 * misnamed, or whose node or switch count differs from the most common one, into bad[]. Returns 0, or
 * -1 when the checker itself stops (why says how). */
static int power_check(const char *bench_dir, names *results, int *bad, char *why, size_t cap) {
    char *power = join(bench_dir, "power");
    size_t n = results->n;
    long *node_len = callocCheck(n + 1, sizeof *node_len), *sw_len = callocCheck(n + 1, sizeof *sw_len);
    size_t *idx = callocCheck(n + 1, sizeof *idx), k = 0;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        char stem[512];
        snprintf(stem, sizeof stem, "%.*s", (int)(strlen(results->names[i]) - 4), results->names[i]);
        char *dir = join(power, stem);
        if (!exists(dir)) {
            bad[i] = 1;
            free(dir);
            continue;
        }
        names files;
        list_dir(dir, 0, &files);
        long nodes = 0, sws = 0;
        for (size_t j = 0; j < files.n; j++) nodes += strncmp(files.names[j], "node", 4) == 0, sws += strncmp(files.names[j], "sw", 2) == 0;
        for (size_t j = 0; j < files.n && rc == 0; j++) {
            int is_node = strncmp(files.names[j], "node", 4) == 0, is_sw = strncmp(files.names[j], "sw", 2) == 0;
            if (!is_node && !is_sw) continue;
            long x;
            if (power_index(files.names[j], &x) != 0) {
                snprintf(why, cap, "power file %s/%s has no number after its last '_' (int() raises ValueError)", stem,
                         files.names[j]);
                rc = -1;
            } else if (x < 0 || x > (is_node ? nodes : sws) - 1) {
                bad[i] = 1;
            }
        }
        names_free(&files);
        free(dir);
        node_len[k] = nodes;
        sw_len[k] = sws;
        idx[k++] = i;
    }
    if (rc == 0 && k == 0) {
        snprintf(why, cap, "power/ holds no folder for any result file (max() of an empty list raises ValueError)");
        rc = -1;
    }
    for (int pass = 0; pass < 2 && rc == 0; pass++) {
        long *len = pass ? sw_len : node_len;
        long mode = len[0];
        size_t best = 0;
        for (size_t a = 0; a < k; a++) { /* the first of the most frequent counts, as max(counter, key=...) */
            size_t cnt = 0;
            for (size_t b = 0; b < k; b++) cnt += len[b] == len[a];
            if (cnt > best) best = cnt, mode = len[a];
        }
        for (size_t a = 0; a < k; a++)
            if (len[a] != mode) bad[idx[a]] = 1;
    }
    free(node_len);
    free(sw_len);
    free(idx);
    free(power);
    return rc;
}

/* The seed records seen so far in a folder: (where, seed) -> the result file that logged it first; an
 * open-addressing hash table (a log may print its seed from every rank: thousands of records). */
typedef struct {
    const char **where, **seed, **owner;
    size_t cap, n;
} seed_set;

static uint64_t seed_hash(const char *where, const char *seed) {
    uint64_t h = tta_hash64(where, strlen(where), 0x5eed);
    return tta_hash64(seed, strlen(seed), h);
}

/* The owner of (where, seed) if seen, else NULL after recording it for owner. */
static const char *seed_seen(seed_set *t, const char *where, const char *seed, const char *owner) {
    if (2 * (t->n + 1) > t->cap) {
        seed_set g = {.cap = t->cap ? t->cap * 2 : 64};
        g.where = callocCheck(g.cap, sizeof *g.where);
        g.seed = callocCheck(g.cap, sizeof *g.seed);
        g.owner = callocCheck(g.cap, sizeof *g.owner);
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->where[i]) continue;
            size_t k = seed_hash(t->where[i], t->seed[i]) & (g.cap - 1);
            while (g.where[k]) k = (k + 1) & (g.cap - 1);
            g.where[k] = t->where[i], g.seed[k] = t->seed[i], g.owner[k] = t->owner[i];
        }
        g.n = t->n;
        free(t->where);
        free(t->seed);
        free(t->owner);
        *t = g;
    }
    size_t k = seed_hash(where, seed) & (t->cap - 1);
    for (; t->where[k]; k = (k + 1) & (t->cap - 1))
        if (!strcmp(t->where[k], where) && !strcmp(t->seed[k], seed)) return t->owner[k];
    t->where[k] = where, t->seed[k] = seed, t->owner[k] = owner;
    t->n++;
    return NULL;
}

/* The seed checker on the result files of one folder (sorted by path): pass, or fail with the kinds. */
static void seed_check(ctx *c, const char *org, const char *rel, const char *ruleset, const char *bench_dir,
                       names *results) {
    cc_arena a = {0}, keep = {0}; /* a: one log's lines, reset after each; keep: the seeds seen */
    seed_set seen = {0};
    int no_seed = 0, repeated = 0, parse_error = 0, crashed = 0;
    buf first = {0};
    for (size_t i = 0; i < results->n && !crashed; i++) {
        char *path = join(bench_dir, results->names[i]);
        tta_file f;
        tta_error err;
        char why[1100];
        cc_seed *s = NULL;
        size_t ns = 0;
        int rc = -1;
        const tta_check_log *l = checked_log(c, path);
        if (l) { /* the seeds the compliance checks' reading of the log found */
            rc = l->seeds_status;
            if (rc) snprintf(why, sizeof why, "%s", l->seeds_why);
            ns = l->n_seeds;
            s = cc_alloc(&a, (ns ? ns : 1) * sizeof *s);
            for (size_t j = 0; j < ns; j++) s[j] = (cc_seed){l->seeds[j].where, l->seeds[j].seed, l->seeds[j].line};
        } else if (tta_file_load(path, TTA_FILE_GIB, "a result log", TTA_FILE_READ, &f, &err) != TTA_OK) {
            snprintf(why, sizeof why, "%s", err.text);
        } else {
            rc = cc_seeds_read(&a, f.data, f.len, &s, &ns, why, sizeof why);
            tta_file_free(&f);
        }
        if (rc == -2) {
            crashed = 1;
            if (!first.len) buf_printf(&first, "%s: %s; the package checker stops here", results->names[i], why);
        } else if (rc != 0) {
            if (!parse_error++ && !first.len) buf_printf(&first, "%s cannot be read: %s", results->names[i], why);
        } else if (ns == 0) {
            if (!no_seed++ && !first.len) buf_printf(&first, "%s logs no seed", results->names[i]);
        }
        for (size_t j = 0; rc == 0 && j < ns; j++) {
            const char *w = cc_strndup(&keep, s[j].where, strlen(s[j].where));
            const char *sd = cc_strndup(&keep, s[j].seed, strlen(s[j].seed));
            const char *owner = seed_seen(&seen, w, sd, results->names[i]);
            if (owner && !repeated++ && !first.len)
                buf_printf(&first, "%s logs seed %s (line %ld) from the same source line as %s", results->names[i],
                           s[j].seed, s[j].line, owner);
        }
        free(path);
        cc_arena_reset(&a);
    }
    if (crashed) {
        add(c, org, "seeds", rel, ruleset, TTA_PACKAGE_FAIL, "crash", "the seed checker needs hashable seed records; %s",
            buf_str(&first));
    } else if (no_seed || repeated || parse_error) {
        buf key = {0};
        if (no_seed) buf_puts(&key, "no_seed");
        if (parse_error) buf_printf(&key, "%sparse_error", key.len ? "," : "");
        if (repeated) buf_printf(&key, "%srepeated", key.len ? "," : "");
        add(c, org, "seeds", rel, ruleset, TTA_PACKAGE_FAIL, buf_str(&key),
            "every run must log a seed, readable by the log parser, never the same seed from the same source line as "
            "another run; %s (%d without a seed, %d unreadable, %d repeated)",
            buf_str(&first), no_seed, parse_error, repeated);
        buf_free(&key);
    } else {
        add(c, org, "seeds", rel, ruleset, TTA_PACKAGE_PASS, "", "each of the %zu runs logs its seeds, none repeated",
            results->n);
    }
    buf_free(&first);
    free(seen.where);
    free(seen.seed);
    free(seen.owner);
    cc_arena_free(&a);
    cc_arena_free(&keep);
}

/* scaling.json, which the RCP checker writes (closed division, where it runs) and the summarizer
 * multiplies the folder's score by. */
static void scaling_check(ctx *c, const char *org, const char *rel, const char *ruleset, const char *path, int rcp_runs) {
    tta_file f;
    tta_error err;
    if (tta_file_load(path, TTA_FILE_MIB, "a scaling.json", TTA_FILE_READ, &f, &err) != TTA_OK) {
        add(c, org, "scaling", rel, ruleset, TTA_PACKAGE_FAIL, "unreadable", "scaling.json must be readable: %s", err.text);
        return;
    }
    cc_arena a = {0};
    cc_val doc;
    char why[200];
    const cc_val *factor = NULL;
    if (cc_json_parse(&a, f.data, f.len, &doc, why, sizeof why) != 0) {
        add(c, org, "scaling", rel, ruleset, TTA_PACKAGE_FAIL, "json",
            "scaling.json must be JSON ({\"scaling_factor\": X}); it is not (%s), and the summarizer stops on it", why);
    } else if (doc.kind != CV_DICT || !(factor = cc_dict_get(doc.u.d, "scaling_factor", 14))) {
        add(c, org, "scaling", rel, ruleset, TTA_PACKAGE_FAIL, "no_factor",
            "scaling.json must be {\"scaling_factor\": X}; it has no scaling_factor, and the summarizer stops on it");
    } else if (factor->kind != CV_INT && factor->kind != CV_FLOAT) {
        add(c, org, "scaling", rel, ruleset, TTA_PACKAGE_FAIL, "not_number",
            "scaling.json's scaling_factor must be a number; it is not");
    } else {
        double x = factor->kind == CV_INT ? (double)factor->u.i : factor->u.f;
        if (!(x >= 1.0) || x > 1e6)
            add(c, org, "scaling", rel, ruleset, TTA_PACKAGE_FAIL, "range",
                "scaling_factor must be the RCP checker's normalisation, a finite factor of 1 or more; it is %g", x);
        else if (!rcp_runs)
            add(c, org, "scaling", rel, ruleset, TTA_PACKAGE_WARN, "no_rcp",
                "the RCP checker writes scaling.json only for closed-division folders of ruleset 1.0.0 on (not minigo); "
                "this folder has one (factor %g), which the summarizer still applies", x);
        else
            add(c, org, "scaling", rel, ruleset, TTA_PACKAGE_PASS, "",
                "scaling.json holds the factor %g, which the summarizer multiplies the score by", x);
    }
    cc_arena_free(&a);
    tta_file_free(&f);
}

/* The system's description as the checker reads it for a benchmark folder: its division into
 * closed (1: "closed"), or a problem (a finding); returns 0 when readable. */
static int system_division(ctx *c, const char *org, const char *system, const char *ruleset, int *closed) {
    char rel[1024];
    snprintf(rel, sizeof rel, "results/%s", system);
    char *sys = mallocCheck(strlen(org) + strlen(system) + 16);
    sprintf(sys, "%s/systems/%s.json", org, system);
    tta_file f;
    tta_error err;
    int rc = -1;
    *closed = 0;
    if (tta_file_load(sys, 16 * TTA_FILE_MIB, "a system description", TTA_FILE_READ, &f, &err) != TTA_OK) {
        add(c, org, "layout", rel, ruleset, TTA_PACKAGE_FAIL, "no_system_desc",
            "a system folder needs its description systems/%s.json, whose division the package checker reads (it stops "
            "without it): %s", system, err.text);
    } else {
        cc_arena a = {0};
        cc_val doc;
        char why[200];
        const cc_val *div = NULL;
        if (cc_json_parse(&a, f.data, f.len, &doc, why, sizeof why) != 0) {
            add(c, org, "layout", rel, ruleset, TTA_PACKAGE_FAIL, "system_desc_json",
                "the package checker reads the division from systems/%s.json, which is not JSON (%s): it stops here", system,
                why);
        } else if (doc.kind != CV_DICT || !(div = cc_dict_get(doc.u.d, "division", 8))) {
            add(c, org, "layout", rel, ruleset, TTA_PACKAGE_FAIL, "no_division",
                "the package checker reads the division from systems/%s.json, which has none (KeyError): it stops here",
                system);
        } else {
            *closed = div->kind == CV_STR && div->u.s->n == 6 && memcmp(div->u.s->p, "closed", 6) == 0;
            char v[80];
            cc_repr(*div, 0, v, sizeof v);
            add(c, org, "layout", rel, ruleset, TTA_PACKAGE_PASS, "",
                "a system folder needs its description systems/%s.json; it has one (division %s)", system, v);
            rc = 0;
        }
        cc_arena_free(&a);
        tta_file_free(&f);
    }
    free(sys);
    return rc;
}

/* The rule of a benchmark folder's name in a ruleset, or NULL. */
static const tta_rule *rule_of(const tta_rules *r, const char *ruleset, const char *bench) {
    const char *canon = tta_rules_canonical(r, bench, strlen(bench), NULL);
    for (size_t i = 0; i < r->n_rules; i++)
        if (!strcmp(r->rules[i].ruleset, ruleset) &&
            (!strcmp(r->rules[i].benchmark, bench) || (canon && !strcmp(r->rules[i].benchmark, canon))))
            return &r->rules[i];
    return NULL;
}

/* Every check of one benchmark folder. */
static void check_benchmark(ctx *c, const char *org, const char *system, const char *bench, const cc_pkg_ruleset *rs,
                            int closed, int system_seed_bypass) {
    const char *ruleset = rs->ruleset;
    char rel[1024];
    snprintf(rel, sizeof rel, "results/%s/%s", system, bench);
    const tta_rule_columns *cols = tta_rules_summary_columns(c->brules, ruleset);
    int allowed = 0;
    buf list = {0};
    for (size_t i = 0; cols && i < cols->n_benchmarks; i++) {
        allowed |= !strcmp(cols->benchmarks[i], bench);
        buf_printf(&list, "%s%s", i ? ", " : "", cols->benchmarks[i]);
    }
    if (!allowed) {
        add(c, org, "benchmark", rel, ruleset, cols ? TTA_PACKAGE_WARN : TTA_PACKAGE_UNKNOWN, "skipped",
            "a benchmark folder must be named after a benchmark of ruleset %s (%s); %s is not, and the package checker "
            "skips it with a warning", ruleset, cols ? buf_str(&list) : "the rules list none", bench);
        buf_free(&list);
        return;
    }
    buf_free(&list);
    char *sysdir = join(org, "results"), *sdir = join(sysdir, system), *dir = join(sdir, bench);
    free(sysdir);
    free(sdir);
    names all, results = {0};
    list_dir(dir, 0, &all);
    buf others = {0};
    size_t n_other = 0;
    for (size_t i = 0; i < all.n; i++) {
        if (is_result_name(all.names[i])) {
            if (results.n == results.cap) growArray(results.names, &results.cap, results.n + 1);
            results.names[results.n++] = strdupCheck(all.names[i]);
        } else if (strcmp(all.names[i], "package_checker_params") != 0) {
            if (n_other++ < 6) buf_printf(&others, "%s%s", n_other > 1 ? ", " : "", all.names[i]);
        }
    }
    if (n_other > 6) buf_printf(&others, ", ...");
    const tta_rule *rule = rule_of(c->brules, ruleset, bench);
    if (!rule || rule->runs_required <= 0)
        add(c, org, "result_count", rel, ruleset, TTA_PACKAGE_UNKNOWN, "no_rule",
            "the rules give no number of runs for %s in ruleset %s; the folder has %zu result files", bench, ruleset, results.n);
    else if ((size_t)rule->runs_required != results.n)
        add(c, org, "result_count", rel, ruleset, TTA_PACKAGE_FAIL, "", "%s needs exactly %d result files (result_*.txt) "
            "in ruleset %s; this folder has %zu", bench, rule->runs_required, ruleset, results.n);
    else
        add(c, org, "result_count", rel, ruleset, TTA_PACKAGE_PASS, "", "%s needs exactly %d result files in ruleset %s; "
            "this folder has them", bench, rule->runs_required, ruleset);
    if (rule && rule->runs_required > 0 && (size_t)rule->runs_required != results.n) {
        tta_package_finding *f = &c->items[c->n - 1];
        free(f->key);
        buf k = {0};
        buf_printf(&k, "found=%zu expected=%d", results.n, rule->runs_required);
        f->key = buf_take(&k);
    }
    if (n_other)
        add(c, org, "file_names", rel, ruleset, TTA_PACKAGE_WARN, "", "a benchmark folder should hold only result_*.txt "
            "(and package_checker_params); this one also has %s (the package checker warns)", buf_str(&others));
    else
        add(c, org, "file_names", rel, ruleset, TTA_PACKAGE_PASS, "", "every file is named result_*.txt");
    buf_free(&others);
    names_free(&all);

    /* the logs' compliance and the power logs, under olympic scoring */
    int *bad = callocCheck(results.n + 1, sizeof *bad);
    size_t n_unknown = 0;
    buf firsts = {0};
    for (size_t i = 0; i < results.n; i++) {
        char *path = join(dir, results.names[i]), *rule_name;
        tta_check_verdict v = log_verdict(c, ruleset, path, &rule_name);
        if (v == TTA_CHECK_FAIL) {
            bad[i] = 1;
            if (!firsts.len) buf_printf(&firsts, " (%s: %s)", results.names[i], rule_name ? rule_name : "?");
        }
        n_unknown += v == TTA_CHECK_UNKNOWN;
        free(rule_name);
        free(path);
    }
    char *power = join(dir, "power");
    char why[300] = "";
    int power_rc = exists(power) && results.n ? power_check(dir, &results, bad, why, sizeof why) : 0;
    size_t n_bad = 0;
    for (size_t i = 0; i < results.n; i++) n_bad += (size_t)bad[i];
    int tolerance = rule ? rule->max_failed : 1;
    if (power_rc != 0)
        add(c, org, "compliance", rel, ruleset, TTA_PACKAGE_FAIL, "crash", "the power checker stops on this folder: %s", why);
    else if (n_bad + n_unknown == 0)
        add(c, org, "compliance", rel, ruleset, TTA_PACKAGE_PASS, "", "each of the %zu result files is compliant%s",
            results.n, exists(power) ? " and has its power logs" : "");
    else {
        tta_package_verdict v = n_bad > (size_t)tolerance             ? TTA_PACKAGE_FAIL
                                : n_bad + n_unknown > (size_t)tolerance ? TTA_PACKAGE_UNKNOWN
                                                                        : TTA_PACKAGE_WARN;
        char key[40];
        snprintf(key, sizeof key, "noncompliant=%zu", n_bad);
        add(c, org, "compliance", rel, ruleset, v, key, "olympic scoring accepts at most %d non-compliant result file%s "
            "in a %s folder; this one has %zu%s%s%s", tolerance, tolerance == 1 ? "" : "s", bench, n_bad,
            n_unknown ? ", and some that tta cannot evaluate" : "", buf_str(&firsts), exists(power) ? " (power logs counted)" : "");
    }
    free(power);
    free(bad);
    buf_free(&firsts);

    if (rs->seeds_closed && closed) {
        char *bp = join(dir, "package_checker_params");
        if (system_seed_bypass || params_line(bp, "seed-checker-bypass"))
            add(c, org, "seeds", rel, ruleset, TTA_PACKAGE_PASS, "bypass",
                "the seed checker is bypassed by a package_checker_params line seed-checker-bypass");
        else
            seed_check(c, org, rel, ruleset, dir, &results);
        free(bp);
    }
    char *scaling = join(dir, "scaling.json");
    if (exists(scaling)) scaling_check(c, org, rel, ruleset, scaling, rs->rcp_closed && closed && strcmp(bench, "minigo") != 0);
    free(scaling);
    names_free(&results);
    free(dir);
}

/* Every check of one organisation folder (only_system / only_bench: a folder inside its results/). */
static int check_org(ctx *c, const char *org, const char *given_ruleset, const char *only_system, const char *only_bench,
                     tta_error *err) {
    char ruleset[16];
    if (given_ruleset) snprintf(ruleset, sizeof ruleset, "%s", given_ruleset);
    else if (!tta_check_ruleset_of_path(org, ruleset, sizeof ruleset))
        return tta_fail(err, TTA_EUSAGE, "%s: no round folder (such as v5.1) in its path; give the ruleset with --ruleset 5.1.0", org);
    c->n_orgs++;
    cc_pkg_ruleset rs;
    cc_pkg_ruleset_of(c->prules, ruleset, &rs);
    if (!rs.known) {
        add(c, org, "layout", ".", ruleset, TTA_PACKAGE_UNKNOWN, "no_ruleset",
            "the package rules have no training ruleset %s (schemas/package_rules.json)", ruleset);
        return TTA_OK;
    }
    char *systems = join(org, "systems"), *results = join(org, "results");
    if (rs.system_desc) {
        names files;
        list_dir(systems, 0, &files);
        for (size_t i = 0; i < files.n; i++) {
            size_t m = strlen(files.names[i]);
            if (m < 5 || strcmp(files.names[i] + m - 5, ".json") != 0) continue;
            if (only_system && (strncmp(files.names[i], only_system, m - 5) != 0 || strlen(only_system) != m - 5)) continue;
            char *p = join(systems, files.names[i]), rel[1024];
            snprintf(rel, sizeof rel, "systems/%s", files.names[i]);
            tta_file f;
            tta_error ferr;
            if (tta_file_load(p, 16 * TTA_FILE_MIB, "a system description", TTA_FILE_READ, &f, &ferr) != TTA_OK) {
                add(c, org, "system_desc", rel, ruleset, TTA_PACKAGE_FAIL, "unreadable", "a system description must be "
                    "readable: %s", ferr.text);
            } else {
                if (c->n == c->cap) growArray(c->items, &c->cap, c->n + 1);
                tta_check_system_desc_text(ruleset, org, rel, f.data, f.len, &c->items[c->n++]);
                tta_file_free(&f);
            }
            free(p);
        }
        names_free(&files);
    }
    if (!is_dir(results)) {
        add(c, org, "layout", "results", ruleset, TTA_PACKAGE_FAIL, "no_results",
            "an organisation folder must hold results/<system>/<benchmark>/result_N.txt; this one has no results/ "
            "folder (the package checker stops)");
    } else {
        names sys;
        list_dir(results, 1, &sys);
        for (size_t i = 0; i < sys.n; i++) {
            if (only_system && strcmp(sys.names[i], only_system) != 0) continue;
            char *sdir = join(results, sys.names[i]), *params = join(sdir, "package_checker_params");
            int bypass = params_line(params, "seed-checker-bypass");
            names benches;
            list_dir(sdir, 1, &benches);
            int closed = 0, readable = benches.n ? system_division(c, org, sys.names[i], ruleset, &closed) == 0 : 0;
            for (size_t j = 0; readable && j < benches.n; j++)
                if (!only_bench || !strcmp(benches.names[j], only_bench))
                    check_benchmark(c, org, sys.names[i], benches.names[j], &rs, closed, bypass);
            names_free(&benches);
            free(params);
            free(sdir);
        }
        names_free(&sys);
    }
    free(systems);
    free(results);
    return TTA_OK;
}

/* 1 when dir is an organisation folder (it holds results/ or systems/). */
static int is_org(const char *dir) {
    char *r = join(dir, "results"), *s = join(dir, "systems");
    int yes = is_dir(r) || is_dir(s);
    free(r);
    free(s);
    return yes;
}

/* The organisation folders under dir, down to depth levels, in name order. */
static int find_orgs(ctx *c, const char *dir, int depth, const char *ruleset, tta_error *err) {
    if (is_org(dir)) return check_org(c, dir, ruleset, NULL, NULL, err);
    if (depth <= 0) return TTA_OK;
    names sub;
    list_dir(dir, 1, &sub);
    int rc = TTA_OK;
    for (size_t i = 0; i < sub.n && rc == TTA_OK; i++) {
        if (sub.names[i][0] == '.') continue;
        char *p = join(dir, sub.names[i]);
        rc = find_orgs(c, p, depth - 1, ruleset, err);
        free(p);
    }
    names_free(&sub);
    return rc;
}

static int finding_order(const void *pa, const void *pb) {
    const tta_package_finding *a = pa, *b = pb;
    int d = strcmp(a->org, b->org);
    if (d) return d;
    if ((d = strcmp(a->path, b->path))) return d;
    size_t ia = 0, ib = 0;
    for (size_t i = 0; i < sizeof CHECKS / sizeof CHECKS[0]; i++) {
        if (!strcmp(a->check, CHECKS[i])) ia = i;
        if (!strcmp(b->check, CHECKS[i])) ib = i;
    }
    return ia < ib ? -1 : ia > ib;
}

/* The package checks of every organisation under paths. */
int tta_check_packages(const tta_check_rules *rules, const char *const *paths, size_t n_paths, const char *ruleset,
                       unsigned flags, const tta_check_report *logs, tta_package_report *out, tta_error *err) {
    assert(rules && out && (paths || n_paths == 0));
    memset(out, 0, sizeof *out);
    ctx c = {.rules = rules, .flags = flags, .logs = logs, .brules = tta_rules_builtin(), .prules = cc_pkg_rules_builtin()};
    int rc = TTA_OK;
    for (size_t i = 0; i < n_paths && rc == TTA_OK; i++) {
        if (!is_dir(paths[i])) continue;
        /* <org>/results itself */
        size_t len = strlen(paths[i]);
        while (len > 1 && paths[i][len - 1] == '/') len--;
        if (len >= 7 && !strncmp(paths[i] + len - 7, "results", 7) && (len == 7 || paths[i][len - 8] == '/')) {
            char *org = len == 7 ? strdupCheck(".") : strndupCheck(paths[i], len - 8);
            if (!*org) org = (free(org), strdupCheck("/"));
            int yes = is_org(org);
            if (yes) rc = check_org(&c, org, ruleset, NULL, NULL, err);
            free(org);
            if (yes) continue;
        }
        /* a system or benchmark folder inside <org>/results/ */
        const char *r = NULL, *q = paths[i];
        while ((q = strstr(q, "results/")) != NULL) {
            if (q == paths[i] || q[-1] == '/') r = q;
            q++;
        }
        if (r && !is_org(paths[i])) {
            char *org = r == paths[i] ? strdupCheck(".") : strndupCheck(paths[i], (size_t)(r - paths[i] - 1));
            char sys[512] = "", bench[512] = "";
            sscanf(r + 8, "%511[^/]/%511[^/]", sys, bench);
            if (sys[0] && is_org(org)) rc = check_org(&c, org, ruleset, sys, bench[0] ? bench : NULL, err);
            free(org);
            continue;
        }
        rc = find_orgs(&c, paths[i], 3, ruleset, err);
    }
    if (rc != TTA_OK) {
        for (size_t i = 0; i < c.n; i++) tta_package_finding_free(&c.items[i]);
        free(c.items);
        return rc;
    }
    if (c.n) qsort(c.items, c.n, sizeof *c.items, finding_order);
    out->items = c.items;
    out->n = c.n;
    out->n_orgs = c.n_orgs;
    for (size_t i = 0; i < c.n; i++) {
        out->n_pass += c.items[i].verdict == TTA_PACKAGE_PASS;
        out->n_warn += c.items[i].verdict == TTA_PACKAGE_WARN;
        out->n_fail += c.items[i].verdict == TTA_PACKAGE_FAIL;
        out->n_unknown += c.items[i].verdict == TTA_PACKAGE_UNKNOWN;
    }
    return TTA_OK;
}

/* Frees a report. */
void tta_package_report_free(tta_package_report *r) {
    if (!r) return;
    for (size_t i = 0; i < r->n; i++) tta_package_finding_free(&r->items[i]);
    free(r->items);
    memset(r, 0, sizeof *r);
}

/* The package rules' source. */
const char *tta_package_rules_source(void) {
    return cc_pkg_rules_builtin()->source;
}
