/* cmd_verify.c: `tta verify ENTRY [--runs N] [--max-epochs E] [--threads N] [--log-dir DIR]`:
 * replays an ingested entry from its own description and sets the replay beside the claim. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/buf.h"
#include "replay/replay.h"
#include "reports/dataset.h"
#include "stats/stats.h"

static const char verify_help[] =
    "usage: tta verify ENTRY [--runs N] [--max-epochs E] [--threads N] [--log-dir DIR]\n"
    "\n"
    "Replays an ingested entry (an id from `tta ls entries`, or round/division/submitter/system/benchmark;\n"
    "a DAWNBench entry whose description gives its recipe, such as the Fashion-MNIST claims) N times and\n"
    "prints, beside the claim: runs that reached the target, epochs to target claimed and replayed (with\n"
    "a Welch test of the difference), time per epoch and TTA here, CV across runs, validation vs unseen vs\n"
    "shifted accuracy, and a one-line verdict.\n";

/* "mean ± std", or "n/a" when there is nothing to average. */
static const char *pm(char *out, size_t len, double m, double s) {
    if (isnan(m)) snprintf(out, len, "n/a");
    else snprintf(out, len, "%.1f ± %.1f", m, isnan(s) ? 0.0 : s);
    return out;
}

/* A percentage, or "n/a". */
static const char *pct(char *out, size_t len, double v) {
    if (isnan(v)) snprintf(out, len, "n/a");
    else snprintf(out, len, "%.1f", v * 100);
    return out;
}

static void mean_std(const double *x, size_t n, double *m, double *s) {
    *m = tta_mean(x, n);
    *s = tta_std_population(x, n);
}

int cmd_verify(const tta_cli *cli, int argc, char **argv) {
    const char *entry_spec = NULL, *log_dir = "tta-logs";
    long runs = 3, max_epochs = 0, threads = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(verify_help, stdout);
            return 0;
        } else if (!strcmp(a, "--runs") || !strcmp(a, "--max-epochs") || !strcmp(a, "--threads")) {
            long n = cli_parse_positive(v);
            if (n < 0) return cli_usage_error("verify", "%s needs a positive number", a);
            *(!strcmp(a, "--runs") ? &runs : !strcmp(a, "--threads") ? &threads : &max_epochs) = n;
            i++;
        } else if (!strcmp(a, "--log-dir") && v) {
            log_dir = argv[++i];
        } else if (a[0] == '-') {
            return cli_usage_error("verify", "unknown option '%s'", a);
        } else if (!entry_spec) {
            entry_spec = a;
        } else {
            return cli_usage_error("verify", "one ENTRY, not '%s' too", a);
        }
    }
    if (!entry_spec) return cli_usage_error("verify", "no ENTRY given");
    if (runs > 64) runs = 64;
    sqlite3 *db;
    char *err = NULL;
    if (tta_db_open(cli->db_path, &db, &err) != SQLITE_OK) {
        fprintf(stderr, "tta verify: %s\n", err ? err : cli->db_path);
        free(err);
        return 1;
    }
    tta_entry_data *e = NULL;
    if (tta_entry_load_named(db, entry_spec, &e, &err)) {
        fprintf(stderr, "tta verify: %s\n", err ? err : "cannot load the entry");
        free(err);
        sqlite3_close(db);
        return 1;
    }
    tta_replay_spec spec;
    char msg[512];
    if (tta_replay_spec_from_entry(db, e->id, NULL, &spec, msg, sizeof msg) != 0) {
        fprintf(stderr, "tta verify: %s\n", msg);
        tta_entries_free(e, 1);
        sqlite3_close(db);
        return 1;
    }
    sqlite3_close(db);
    spec.origin = tta_entry_name(e);
    char host[64] = "host", system[160];
    gethostname(host, sizeof host - 1);
    snprintf(system, sizeof system, "%s-cpu-%ldt", host, threads > 0 ? threads : 1);
    const char *nc = getenv("NO_COLOR");
    tta_replay_options opt = {.device = "cpu", .threads = (int)threads, .log_dir = log_dir, .system = system,
                              .max_epochs = (int)max_epochs,
                              .progress = isatty(fileno(stderr)) && !(nc && *nc) ? stderr : NULL};
    tta_replay_result *res = calloc((size_t)runs, sizeof *res);
    int done = 0;
    for (long i = 0; i < runs; i++) {
        if (tta_replay_run(&spec, (uint64_t)i, &opt, &res[i], msg, sizeof msg) != 0) {
            fprintf(stderr, "tta verify: run %ld: %s\n", i, msg);
            break;
        }
        done++;
    }
    /* The claim: its runs' epochs to the target and TTA. */
    double claim_ep[64], claim_tta[64], rep_ep[64], rep_tta[64], rep_tpe[64];
    size_t nc_ep = 0, nc_tta = 0, nr_ep = 0, nr_tta = 0;
    for (size_t i = 0; i < e->n_runs && i < 64; i++) {
        if (!isnan(e->runs[i].epochs)) claim_ep[nc_ep++] = e->runs[i].epochs;
        if (!isnan(e->runs[i].tta_s) && e->runs[i].reached == 1) claim_tta[nc_tta++] = e->runs[i].tta_s;
    }
    double val = 0, unseen = 0, shifted = 0;
    int reached = 0;
    for (int i = 0; i < done; i++) {
        reached += res[i].reached;
        rep_tpe[i] = res[i].wall_s / res[i].epochs;
        if (res[i].reached) {
            rep_ep[nr_ep++] = res[i].epochs;
            rep_tta[nr_tta++] = res[i].tta_s;
        }
        val += res[i].val_acc / done;
        unseen += res[i].unseen_acc / done;
        shifted += res[i].shifted_acc / done;
    }
    char *name = tta_entry_name(e);
    double m, s;
    printf("entry      %s\n", name);
    printf("target     validation top-1 >= %.1f%%\n", spec.target * 100);
    printf("%-22s %22s %22s\n", "", "claim", "replay here");
    printf("%-22s %22zu %22d\n", "runs", e->n_runs, done);
    size_t claim_reached = 0;
    for (size_t i = 0; i < e->n_runs; i++) claim_reached += e->runs[i].reached == 1;
    printf("%-22s %21.0f%% %21.0f%%\n", "reached the target", 100.0 * claim_reached / (e->n_runs ? e->n_runs : 1),
           100.0 * reached / (done ? done : 1));
    char a[48], b[48];
    mean_std(claim_ep, nc_ep, &m, &s);
    double rm, rs;
    mean_std(rep_ep, nr_ep, &rm, &rs);
    printf("%-22s %22s %22s\n", "epochs to target", pm(a, sizeof a, m, s), pm(b, sizeof b, rm, rs));
    mean_std(claim_tta, nc_tta, &m, &s);
    mean_std(rep_tta, nr_tta, &rm, &rs);
    printf("%-22s %22s %22s\n", "TTA (s)", pm(a, sizeof a, m, s), pm(b, sizeof b, rm, rs));
    printf("%-22s %22s %22s\n", "CV of TTA (%)", pct(a, sizeof a, nc_tta > 1 ? tta_cv(claim_tta, nc_tta) : NAN),
           pct(b, sizeof b, nr_tta > 1 ? tta_cv(rep_tta, nr_tta) : NAN));
    printf("%-22s %22s %22.2f\n", "time per epoch (s)", "", tta_mean(rep_tpe, (size_t)done));
    printf("%-22s %22s %21.2f%%\n", "validation accuracy", "", val * 100);
    printf("%-22s %22s %21.2f%%\n", "unseen accuracy", "", unseen * 100);
    printf("%-22s %22s %21.2f%%\n", "shifted accuracy", "", shifted * 100);
    printf("%-22s %22s %21.2f%%\n", "generalization gap", "", (val - unseen) * 100);
    /* Does the claimed number of epochs lie inside what this machine's runs show? */
    tta_welch w = tta_welch_test(claim_ep, nc_ep, rep_ep, nr_ep);
    const char *verdict;
    if (done == 0) verdict = "not verified: no replay finished";
    else if (reached == 0) verdict = "not reproduced: no replay reached the target";
    else if (!isnan(w.p) && w.p < 0.05) verdict = "the target is reached, but in a different number of epochs than claimed";
    else if (reached < done) verdict = "partly reproduced: some replays missed the target";
    else verdict = "reproduced: every replay reached the target, in as many epochs as claimed";
    if (!isnan(w.p)) printf("%-22s %45.3f\n", "epochs, Welch p", w.p);
    printf("verdict: %s\n", verdict);
    free(name);
    free(res);
    tta_replay_spec_free(&spec);
    tta_entries_free(e, 1);
    return done == runs ? 0 : 1;
}
