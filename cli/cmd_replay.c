/* cmd_replay.c: `tta replay SPEC [--runs N] [--seed S] [--device cpu] [--threads N]
 * [--log-dir DIR] [--max-epochs E] [--format text|json]` */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/buf.h"
#include "replay/replay.h"

static const char replay_help[] =
    "usage: tta replay SPEC [--runs N] [--seed S] [--device cpu] [--threads N] [--log-dir DIR]\n"
    "                  [--max-epochs E] [--format text|json]\n"
    "\n"
    "Re-executes the training recipe in SPEC (a JSON file, schemas/replay-spec.schema.json) on this\n"
    "machine, with MLPerf's timing rules, once per seed (the spec's seeds, or --runs N from --seed S).\n"
    "Each run writes a :::MLLOG log under DIR/replay/results/<system>/<benchmark>/ (DIR: --log-dir, default\n"
    "tta-logs) and is ingested into the database as round \"local\", submitter \"replay\".\n"
    "JSON output: {\"runs\": [{seed, reached, epochs, tta_s, wall_s, samples_per_s, val_acc, unseen_acc,\n"
    "shifted_acc, log}]}.\n";

static void json_run(buf *b, const tta_replay_result *r) {
    buf_printf(b, "{\"seed\": %llu, \"reached\": %s, \"epochs\": %d, \"tta_s\": ", (unsigned long long)r->seed,
               r->reached ? "true" : "false", r->epochs);
    buf_json_number(b, r->tta_s);
    buf_puts(b, ", \"wall_s\": ");
    buf_json_number(b, r->wall_s);
    buf_puts(b, ", \"samples_per_s\": ");
    buf_json_number(b, r->samples_per_s);
    buf_puts(b, ", \"val_acc\": ");
    buf_json_number(b, r->val_acc);
    buf_puts(b, ", \"unseen_acc\": ");
    buf_json_number(b, r->unseen_acc);
    buf_puts(b, ", \"shifted_acc\": ");
    buf_json_number(b, r->shifted_acc);
    buf_puts(b, ", \"log\": ");
    buf_json_string(b, r->log, strlen(r->log));
    buf_putc(b, '}');
}

int cmd_replay(const tta_cli *cli, int argc, char **argv) {
    const char *spec_path = NULL, *device = "cpu", *log_dir = "tta-logs";
    long runs = 0, seed0 = 0, threads = 0, max_epochs = 0;
    int json = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(replay_help, stdout);
            return 0;
        } else if (!strcmp(a, "--runs") || !strcmp(a, "--threads") || !strcmp(a, "--max-epochs")) {
            long n = cli_parse_positive(v);
            if (n < 0) return cli_usage_error("replay", "%s needs a positive number", a);
            *(!strcmp(a, "--runs") ? &runs : !strcmp(a, "--threads") ? &threads : &max_epochs) = n;
            i++;
        } else if (!strcmp(a, "--seed")) {
            char *end;
            seed0 = v ? strtol(v, &end, 10) : -1;
            if (!v || *end || seed0 < 0) return cli_usage_error("replay", "--seed needs a number");
            i++;
        } else if (!strcmp(a, "--device") && v) {
            device = argv[++i];
            if (strcmp(device, "cpu") && strcmp(device, "reference"))
                return cli_usage_error("replay", "--device %s: this build trains on cpu (or reference)", device);
        } else if (!strcmp(a, "--log-dir") && v) {
            log_dir = argv[++i];
        } else if (!strcmp(a, "--format") && v) {
            json = !strcmp(argv[++i], "json");
            if (!json && strcmp(argv[i], "text")) return cli_usage_error("replay", "--format must be text or json");
        } else if (a[0] == '-') {
            return cli_usage_error("replay", "unknown option '%s'", a);
        } else if (!spec_path) {
            spec_path = a;
        } else {
            return cli_usage_error("replay", "one SPEC, not '%s' too", a);
        }
    }
    if (!spec_path) return cli_usage_error("replay", "no SPEC given");
    tta_replay_spec spec;
    char err[512];
    if (tta_replay_spec_load(spec_path, &spec, err, sizeof err) != 0) {
        fprintf(stderr, "tta replay: %s\n", err);
        return 1;
    }
    if (runs > 0) {
        spec.n_seeds = runs > 64 ? 64 : (int)runs;
        for (int i = 0; i < spec.n_seeds; i++) spec.seeds[i] = (uint64_t)(seed0 + i);
    }
    char host[64] = "host", system[160];
    gethostname(host, sizeof host - 1);
    snprintf(system, sizeof system, "%s-%s-%ldt", host, device, threads > 0 ? threads : 1);
    const char *nc = getenv("NO_COLOR");
    tta_replay_options opt = {.device = device, .threads = (int)threads, .log_dir = log_dir, .system = system,
                              .max_epochs = (int)max_epochs,
                              .progress = isatty(fileno(stderr)) && !(nc && *nc) ? stderr : NULL};
    tta_replay_result *res = calloc((size_t)spec.n_seeds, sizeof *res);
    int rc = 0, done = 0;
    for (int i = 0; i < spec.n_seeds && res; i++) {
        if (tta_replay_run(&spec, spec.seeds[i], &opt, &res[i], err, sizeof err) != 0) {
            fprintf(stderr, "tta replay: seed %llu: %s\n", (unsigned long long)spec.seeds[i], err);
            rc = 1;
            break;
        }
        done++;
    }
    /* Ingest what was written, like any published log. */
    if (done > 0) {
        sqlite3 *db = NULL;
        char *ierr = NULL;
        const char **paths = calloc((size_t)done, sizeof *paths);
        for (int i = 0; i < done; i++) paths[i] = res[i].log;
        tta_ingest_options io = {.jobs = 1, .quiet = 0};
        tta_ingest_stats st;
        if (tta_db_open(cli->db_path, &db, &ierr) != SQLITE_OK ||
            tta_ingest_paths(db, paths, done, &io, &st, stderr, &ierr) != 0) {
            fprintf(stderr, "tta replay: ingesting the logs: %s\n", ierr ? ierr : "failed");
            rc = 1;
        }
        free(ierr);
        free(paths);
        sqlite3_close(db);
    }
    if (json) {
        buf b = {0};
        buf_puts(&b, "{\"runs\": [");
        for (int i = 0; i < done; i++) {
            if (i) buf_puts(&b, ", ");
            json_run(&b, &res[i]);
        }
        buf_puts(&b, "]}\n");
        fputs(buf_str(&b), stdout);
        buf_free(&b);
    } else {
        printf("%-6s %-7s %6s %9s %9s %10s %7s %7s %8s\n", "seed", "reached", "epochs", "tta (s)", "wall (s)",
               "samples/s", "val %", "unseen%", "shifted%");
        for (int i = 0; i < done; i++) {
            const tta_replay_result *r = &res[i];
            char tta[32];
            if (isnan(r->tta_s)) snprintf(tta, sizeof tta, "n/a");
            else snprintf(tta, sizeof tta, "%.1f", r->tta_s);
            printf("%-6llu %-7s %6d %9s %9.1f %10.0f %7.2f %7.2f %8.2f\n", (unsigned long long)r->seed,
                   r->reached ? "yes" : "no", r->epochs, tta, r->wall_s, r->samples_per_s, r->val_acc * 100,
                   r->unseen_acc * 100, r->shifted_acc * 100);
        }
        if (done) printf("logs: %s ...\n", res[0].log);
    }
    free(res);
    tta_replay_spec_free(&spec);
    return rc;
}
