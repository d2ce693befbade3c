/* verify_stored.c: `tta report verify` and verify's section of the HTML page: each claim beside
 * the stored runs that replay it (`tta verify`, `tta replay ENTRY`), compared as those runs ran,
 * from the database alone (verify.c's measures, verdict and table).
 *
 * The runs of a replay entry are grouped by what they say in their logs (db.h, tta_replay_link):
 * the claim (tta_replay_of), the threshold (eval_target), whether they ran on to the schedule's end
 * (tta_to_schedule_end) and, when they did, the epoch they ended at (a --max-epochs cap); each
 * group is one comparison, as the `tta verify` that stored it printed it (its replay side now
 * read from the stored logs: TTA and time per epoch from the evaluations' times, as the claim's). */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/check.h"
#include "reports/builders.h"
#include "reports/dataset.h"
#include "reports/render.h"
#include "reports/reports.h"
#include "reports/units.h"

/* One comparison: runs of one replay entry that replay one claim in one way. */
typedef struct {
    const tta_entry_data *replay; /* the replay entry, loaded with curves */
    const char *claim;            /* the claim's name (points into the links) */
    double threshold;             /* fraction */
    int stop_at_target;
    int compared_epoch;           /* schedule mode: the epoch the runs ended at; 0 when stop_at_target */
    const tta_run_data *runs[TTA_VERIFY_MAX_RUNS];
    double unseen[TTA_VERIFY_MAX_RUNS], shifted[TTA_VERIFY_MAX_RUNS];
    size_t n;
} comparison;

/* Everything the comparisons point into. */
typedef struct {
    tta_replay_link *links;
    size_t n_links;
    tta_entry_data **replays; /* each loaded alone, with curves */
    size_t n_replays;
    comparison *cmp;
    size_t n_cmp;
} stored;

static void stored_free(stored *s) {
    for (size_t i = 0; i < s->n_replays; i++) tta_entries_free(s->replays[i], 1);
    free(s->replays);
    tta_replay_links_free(s->links, s->n_links);
    free(s->cmp);
    memset(s, 0, sizeof *s);
}

static const tta_run_data *find_run(const tta_entry_data *e, int64_t run_id) {
    for (size_t i = 0; i < e->n_runs; i++)
        if (e->runs[i].id == run_id) return &e->runs[i];
    return NULL;
}

/* 1 when run r went on past its first evaluation at threshold. */
static int ran_past_target(const tta_run_data *r, double threshold) {
    for (size_t k = 0; k + 1 < r->n_curve; k++)
        if (r->curve[k].quality >= threshold * (1 - 1e-6)) return 1;
    return 0;
}

static double threshold_of(const tta_replay_link *l, const tta_entry_data *replay) {
    return !isnan(l->target) ? l->target : replay->target;
}

/* Whether the run of link k stopped at the threshold. Its log says so (tta_to_schedule_end); a
 * replay stored before logs said it ran the claim's schedule when a run of its entry, claim and
 * threshold that does not say either went on past the threshold (a run that met it only at its
 * last epoch shows nothing by itself). */
static int stopped_at_target(const stored *s, size_t k, const tta_entry_data *replay) {
    const tta_replay_link *l = &s->links[k];
    if (l->to_schedule_end >= 0) return !l->to_schedule_end;
    double threshold = threshold_of(l, replay);
    for (size_t i = 0; i < s->n_links; i++) {
        const tta_replay_link *o = &s->links[i];
        if (o->entry_id != l->entry_id || o->to_schedule_end >= 0 || strcmp(o->claim, l->claim) ||
            threshold_of(o, replay) != threshold)
            continue;
        const tta_run_data *r = find_run(replay, o->run_id);
        if (r && ran_past_target(r, threshold)) return 0;
    }
    return 1;
}

/* The comparison run r of link k belongs to, added when it is the first. */
static comparison *comparison_of(stored *s, size_t *cap, const tta_entry_data *replay, size_t k,
                                 const tta_run_data *r) {
    const tta_replay_link *l = &s->links[k];
    double threshold = threshold_of(l, replay);
    int stop = stopped_at_target(s, k, replay);
    int compared = 0;
    if (!stop && r->n_curve > 0 && !isnan(r->curve[r->n_curve - 1].epoch))
        compared = (int)lround(r->curve[r->n_curve - 1].epoch);
    for (size_t i = 0; i < s->n_cmp; i++) {
        comparison *c = &s->cmp[i];
        if (c->replay == replay && !strcmp(c->claim, l->claim) && c->stop_at_target == stop &&
            c->compared_epoch == compared && (c->threshold == threshold || (isnan(c->threshold) && isnan(threshold))))
            return c;
    }
    growArray(s->cmp, cap, s->n_cmp + 1);
    comparison *c = &s->cmp[s->n_cmp++];
    memset(c, 0, sizeof *c);
    *c = (comparison){.replay = replay, .claim = l->claim, .threshold = threshold, .stop_at_target = stop,
                      .compared_epoch = compared};
    return c;
}

/* Loads the links and the replay entries they name, and groups the runs into comparisons. 0, or 1
 * with *err. */
static int stored_load(sqlite3 *db, stored *s, char **err) {
    memset(s, 0, sizeof *s);
    tta_error e;
    if (tta_db_replay_links(db, &s->links, &s->n_links, &e) != TTA_OK) return tta_report_fail(&e, err);
    s->replays = mallocCheck((s->n_links ? s->n_links : 1) * sizeof *s->replays);
    size_t cap = 0;
    for (size_t i = 0; i < s->n_links; i++) {
        const tta_replay_link *l = &s->links[i];
        /* links come by entry: a new entry is loaded once */
        if (s->n_replays == 0 || s->replays[s->n_replays - 1]->id != l->entry_id) {
            tta_filter f = {.entry_id = l->entry_id};
            tta_entry_data *x;
            size_t n;
            if (tta_entries_load(db, &f, 1, &x, &n, err)) {
                stored_free(s);
                return 1;
            }
            if (n != 1) {
                tta_entries_free(x, n);
                continue;
            }
            s->replays[s->n_replays++] = x;
        }
        const tta_entry_data *replay = s->replays[s->n_replays - 1];
        const tta_run_data *r = replay->id == l->entry_id ? find_run(replay, l->run_id) : NULL;
        if (!r) continue;
        comparison *c = comparison_of(s, &cap, replay, i, r);
        if (c->n == TTA_VERIFY_MAX_RUNS) continue;
        c->runs[c->n] = r;
        c->unseen[c->n] = l->unseen_acc;
        c->shifted[c->n] = l->shifted_acc;
        c->n++;
    }
    return 0;
}

/* 1 when entry id is among the entries of f (NULL or empty: every entry). */
static int selected(sqlite3 *db, const tta_filter *f, int64_t id, char **err, int *in) {
    static const tta_filter all = {0};
    if (!f || !memcmp(f, &all, sizeof all)) {
        *in = 1;
        return 0;
    }
    tta_filter g = *f;
    if (g.entry_id && g.entry_id != id) {
        *in = 0;
        return 0;
    }
    g.entry_id = id;
    tta_entry_data *e;
    size_t n;
    if (tta_entries_load(db, &g, 0, &e, &n, err)) return 1;
    *in = n > 0;
    tta_entries_free(e, n);
    return 0;
}

/* What a comparison's report is made of. */
typedef struct {
    tta_verify_context ctx;
    tta_verify_side claim, replay;
    char *claim_name, *replay_name;
} verification;

static void verification_free(verification *v) {
    free(v->claim_name);
    free(v->replay_name);
}

/* The claim side and the replay side of comparison c: 0 with *v; -1 when the claim is not in the
 * database (the replays were stored from another one) or has nothing to compare with (a note on
 * stderr says which). */
static int verification_of(sqlite3 *db, const comparison *c, verification *v) {
    memset(v, 0, sizeof *v);
    tta_entry_data *claim;
    tta_error why;
    if (tta_verify_load_claim(db, c->claim, &claim, &why) != TTA_OK) {
        fprintf(stderr, "tta report verify: note: %zu replay run%s of \"%s\" (entry %lld): %s\n", c->n,
                c->n == 1 ? "" : "s", c->claim, (long long)c->replay->id, why.text);
        return -1;
    }
    /* the claim's side as tta verify plans it: its schedule (its last evaluation's epoch), compared
     * where the replays were (at the threshold, or at the epoch they ended) */
    int schedule = 0, compared;
    if (tta_verify_claim_plan(db, claim, c->threshold, c->stop_at_target, c->compared_epoch, &schedule, &compared,
                              &v->claim, NULL, &why) != TTA_OK) {
        /* a claim without evaluations (or unreadable): nothing to compare with, the others still are */
        fprintf(stderr, "tta report verify: note: %zu replay run%s of entry %lld: %s\n", c->n, c->n == 1 ? "" : "s",
                (long long)claim->id, why.text);
        tta_entries_free(claim, 1);
        return -1;
    }
    int at = c->stop_at_target ? -1 : c->compared_epoch;
    double scale = 1.0 / tta_entry_quality(c->replay).divisor; /* to fractions (units.h) */
    tta_verify_curve_side(c->runs, c->n, scale, c->threshold, at, c->unseen, c->shifted, &v->replay);
    v->claim_name = tta_entry_name(claim);
    v->replay_name = tta_entry_name(c->replay);
    v->ctx = (tta_verify_context){.claim_entry_id = claim->id, .replay_entry_id = c->replay->id,
                                  .claim_name = v->claim_name, .replay_name = v->replay_name,
                                  .threshold = c->threshold, .stop_at_target = c->stop_at_target,
                                  .compared_epoch = c->compared_epoch, .schedule_epochs = schedule,
                                  .epoch_cap = !c->stop_at_target && c->compared_epoch < schedule ? c->compared_epoch : 0,
                                  .runs_asked = (int)c->n};
    tta_entries_free(claim, 1);
    return 0;
}

/* Calls each(v, ctx) for every comparison whose claim or replay entry f selects, in the order of
 * the replay entries and their runs. 0, or 1 with *err. */
typedef void (*verification_fn)(const verification *v, void *ctx);
static int each_verification(sqlite3 *db, const tta_filter *f, verification_fn each, void *ctx, char **err) {
    stored s;
    if (stored_load(db, &s, err)) return 1;
    int rc = 0;
    for (size_t i = 0; i < s.n_cmp && rc == 0; i++) {
        verification v;
        if (verification_of(db, &s.cmp[i], &v) < 0) continue;
        int in_replay = 0, in_claim = 0;
        rc = selected(db, f, v.ctx.replay_entry_id, err, &in_replay) ||
             (!in_replay && selected(db, f, v.ctx.claim_entry_id, err, &in_claim));
        if (rc == 0 && (in_replay || in_claim)) each(&v, ctx);
        verification_free(&v);
    }
    stored_free(&s);
    return rc;
}

/* ---- `tta report verify` ---- */

typedef struct {
    int format;
    buf *out;
    size_t n;
} report_ctx;

static void write_one(const verification *v, void *ctx) {
    report_ctx *r = ctx;
    buf one = {0};
    tta_verify_write(&v->ctx, &v->claim, &v->replay, r->format, &one);
    const char *text = buf_str(&one);
    if (r->format == TTA_FORMAT_CSV && r->n > 0) {
        /* one header for every comparison's rows */
        const char *nl = strchr(text, '\n');
        text = nl ? nl + 1 : "";
    }
    if (r->format == TTA_FORMAT_JSON) {
        buf_puts(r->out, r->n ? ",\n" : "[\n");
        size_t len = strlen(text);
        buf_append(r->out, text, len && text[len - 1] == '\n' ? len - 1 : len); /* one object, no newline */
    } else {
        if (r->n && r->format != TTA_FORMAT_CSV) buf_puts(r->out, "\n");
        buf_puts(r->out, text);
    }
    buf_free(&one);
    r->n++;
}

int tta_report_verify(sqlite3 *db, const tta_filter *f, int format, FILE *out, char **err) {
    buf b = {0};
    report_ctx r = {format, &b, 0};
    if (each_verification(db, f, write_one, &r, err)) {
        buf_free(&b);
        return 1;
    }
    if (r.n == 0) {
        static const char none[] =
            "no stored run replays a claim (`tta verify ENTRY` and `tta replay ENTRY` store theirs)";
        if (format == TTA_FORMAT_JSON) buf_puts(&b, "[]\n");
        else if (format == TTA_FORMAT_CSV) {
            /* the header alone */
            tta_verify_context c = {.claim_name = ""};
            tta_verify_side empty = {0};
            buf one = {0};
            tta_verify_write(&c, &empty, &empty, TTA_FORMAT_CSV, &one);
            buf_append(&b, buf_str(&one), strcspn(buf_str(&one), "\n") + 1);
            buf_free(&one);
        } else {
            buf_printf(&b, "(no rows)\n");
            fprintf(stderr, "tta report verify: %s\n", none);
        }
    } else if (format == TTA_FORMAT_JSON) {
        buf_puts(&b, "\n]\n");
    }
    fputs(buf_str(&b), out);
    buf_free(&b);
    return 0;
}

/* ---- the HTML page's section ---- */

typedef struct {
    buf *page;
    size_t n;
} html_ctx;

static void html_one(const verification *v, void *ctx) {
    html_ctx *h = ctx;
    if (h->n++ == 0) {
        tta_html_heading(h->page, "Claims replayed on this machine");
        tta_html_paragraph(h->page,
                           "Each claim beside the stored runs that replay it (tta verify, tta replay ENTRY), as they "
                           "ran: to the claim's schedule (or a --max-epochs cap), accuracies compared at the epoch "
                           "the replays ended, or stopped at the threshold (--stop-at-target). Means ± std (runs); "
                           "Welch's test of each difference where both sides have two runs or more.");
    }
    buf intro = {0};
    tta_verify_intro(&v->ctx, v->replay.runs, &intro);
    /* a paragraph per line: claim, replay, threshold, mode */
    char *text = buf_take(&intro), *line = text;
    for (char *nl; (nl = strchr(line, '\n')) != NULL; line = nl + 1) {
        *nl = '\0';
        tta_html_paragraph(h->page, line);
    }
    free(text);
    tta_table *t = tta_verify_table(&v->ctx, &v->claim, &v->replay);
    tta_html_table(h->page, t, NULL);
    tta_table_free(t);
    buf verdict = {0};
    char verdict_text[TTA_VERIFY_VERDICT_MAX];
    buf_printf(&verdict, "verdict: %s",
               tta_verify_verdict(&v->ctx, &v->claim, &v->replay, verdict_text, sizeof verdict_text));
    tta_html_paragraph(h->page, buf_str(&verdict));
    buf_free(&verdict);
}

int tta_verify_html_section(sqlite3 *db, const tta_filter *f, buf *page, char **err) {
    html_ctx h = {page, 0};
    return each_verification(db, f, html_one, &h, err);
}
