/* cmd_replay.c: `tta replay SPEC [--runs N] [--seed S] [--device cpu|reference|cuda] [--threads N]
 * [--log-dir DIR] [--max-epochs E] [--resume] [--no-checkpoint] [--format text|json]`, also as
 * `mpirun -np K tta replay ...` (data parallel). Ctrl-C stops the run at the next step: its log
 * ends with run_stop aborted and its checkpoint stays for --resume. */
#include <math.h>
#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/buf.h"
#include "replay/comm.h"
#include "reports/dataset.h"
#include "replay/replay.h"

static const char replay_help[] =
    "usage: tta replay SPEC | --from ENTRY.json [--model NAME] [--data DIR]  [--runs N] [--seed S] [--device cpu|reference|cuda] [--threads N]\n"
    "                  [--log-dir DIR] [--max-epochs E] [--resume] [--no-checkpoint] [--no-loader-thread]\n"
    "                  [--format text|json]\n"
    "       mpirun -np K tta replay SPEC ...   (data parallel over K ranks; global batch K x batch_size)\n"
    "\n"
    "Re-executes the training recipe in SPEC (a JSON file, schemas/replay-spec.schema.json) on this\n"
    "machine, with MLPerf's timing rules, once per seed (the spec's seeds, or --runs N from --seed S).\n"
    "Each run writes a :::MLLOG log under DIR/replay/results/<system>/<benchmark>/ (DIR: --log-dir, default\n"
    "tta-logs) and is ingested into the database as round \"local\", submitter \"replay\".\n"
    "--from ENTRY.json: a DAWNBench entry (its .tsv beside it, when there is one, is read too) is ingested\n"
    "and the SPEC built from its own description (misc: optimizer, momentum, weightDecay, batchSize,\n"
    "learningRate; its model, or --model NAME; the data in --data DIR); each run logs tta_replay_of, the\n"
    "entry it replays.\n"
    "A checkpoint is written after every epoch (DIR/replay/checkpoints/...); --resume continues an\n"
    "interrupted run from it. Ctrl-C stops cleanly: run_stop aborted, checkpoint kept, exit status 130.\n"
    "Under mpirun each rank trains on its share of every global batch and the gradients are averaged\n"
    "(MPI_Iallreduce in buckets, overlapped with backward); rank 0 writes the log and the output.\n"
    "JSON output: {\"runs\": [{seed, reached, epochs, tta_s, wall_s, samples_per_s, val_acc, unseen_acc,\n"
    "shifted_acc, log, workers, comm_share, comm_total_share, data_share, interrupted, resumed_from}]}.\n";

/* Set by SIGINT; the trainer polls it between steps. The only mutable global of the replay. */
static volatile sig_atomic_t replay_stop;

static void on_sigint(int sig) {
    (void)sig;
    replay_stop = 1;
    signal(SIGINT, SIG_DFL); /* a second Ctrl-C ends the process at once */
}

/* The system description of this host's replays, so that ingest files K ranks as K accelerators
 * of one node (report scaling then compares K = 1, 2, 4 as published systems are compared). */
static int write_system_json(const char *log_dir, const char *system, const char *device, int workers,
                             int threads, char *path, size_t len) {
    char d[1024];
    snprintf(d, sizeof d, "%s/replay", log_dir);
    snprintf(path, len, "%s/replay/systems", log_dir);
    if ((mkdir(log_dir, 0755) && errno != EEXIST) || (mkdir(d, 0755) && errno != EEXIST) ||
        (mkdir(path, 0755) && errno != EEXIST))
        return -1;
    snprintf(path, len, "%s/replay/systems/%s.json", log_dir, system);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    buf j = {0};
    buf_puts(&j, "{\n  \"tta_round\": \"local\",\n  \"submitter\": \"replay\",\n  \"division\": \"open\",\n");
    buf_puts(&j, "  \"status\": \"onprem\",\n  \"system_name\": ");
    buf_json_string(&j, system, strlen(system));
    buf_printf(&j, ",\n  \"number_of_nodes\": 1,\n  \"accelerators_per_node\": %d,\n", workers);
    buf_printf(&j, "  \"accelerator_model_name\": \"%s worker (one MPI rank, %d thread%s)\",\n", device, threads,
               threads == 1 ? "" : "s");
    buf_puts(&j, "  \"framework\": \"tta replay\"\n}\n");
    int ok = fputs(buf_str(&j), f) >= 0;
    buf_free(&j);
    return fclose(f) == 0 && ok ? 0 : -1;
}

/* Ingests the logs of done runs (res[0..done)) with the description of the system they ran on,
 * as round "local", submitter "replay": 0, or 1 with the reason printed as "tta <cmd>: ...". */
int cli_store_replays(const tta_cli *cli, const char *cmd, const char *log_dir, const char *system,
                      const char *device, int workers, int threads, const tta_replay_result *res, int done) {
    sqlite3 *db = NULL;
    char *ierr = NULL;
    char sys_path[1200];
    const char **paths = calloc((size_t)done + 1, sizeof *paths);
    int np = 0, rc = 0;
    if (write_system_json(log_dir, system, device, workers, threads, sys_path, sizeof sys_path) == 0)
        paths[np++] = sys_path;
    else
        fprintf(stderr, "tta %s: %s: cannot write the system description: %s\n", cmd, sys_path, strerror(errno));
    for (int i = 0; i < done; i++) paths[np++] = res[i].log;
    tta_ingest_options io = {.jobs = 1, .quiet = 0};
    tta_ingest_stats st;
    tta_error oerr;
    if (tta_db_open(cli->db_path, &db, &oerr) != TTA_OK) {
        fprintf(stderr, "tta %s: ingesting the logs: %s\n", cmd, oerr.text);
        rc = 1;
    } else if (tta_ingest_paths(db, paths, np, &io, &st, stderr, &ierr) != 0) {
        fprintf(stderr, "tta %s: ingesting the logs: %s\n", cmd, ierr ? ierr : "failed");
        rc = 1;
    }
    free(ierr);
    free(paths);
    tta_db_close(db);
    return rc;
}

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
    buf_printf(b, ", \"workers\": %d, \"comm_share\": ", r->workers);
    buf_json_number(b, r->comm_share);
    buf_puts(b, ", \"comm_total_share\": ");
    buf_json_number(b, r->comm_total_share);
    buf_puts(b, ", \"data_share\": ");
    buf_json_number(b, r->data_share);
    buf_printf(b, ", \"interrupted\": %s, \"resumed_from\": %d}", r->interrupted ? "true" : "false",
               r->resumed_from);
}

/* Ingests a DAWNBench entry file (and its .tsv) and builds the SPEC from its description:
 * 0, or 1 with the reason printed. */
static int spec_from_entry_file(const tta_cli *cli, const char *path, const char *model, const char *data,
                                tta_replay_spec *spec) {
    sqlite3 *db = NULL;
    char *ierr = NULL;
    buf tsv = {0};
    const char *dot = strrchr(path, '.');
    buf_append(&tsv, path, dot && !strchr(dot, '/') ? (size_t)(dot - path) : strlen(path));
    buf_puts(&tsv, ".tsv");
    const char *paths[2] = {path, buf_str(&tsv)};
    int np = access(buf_str(&tsv), R_OK) == 0 ? 2 : 1;
    tta_ingest_options io = {.jobs = 1, .quiet = 1};
    tta_ingest_stats st;
    int rc = 1;
    if (access(path, R_OK) != 0) {
        fprintf(stderr, "tta replay: %s: cannot read: %s\n", path, strerror(errno));
        goto out;
    }
    tta_error oerr;
    if (tta_db_open(cli->db_path, &db, &oerr) != TTA_OK) {
        fprintf(stderr, "tta replay: %s: %s\n", path, oerr.text);
        goto out;
    }
    if (tta_ingest_paths(db, paths, np, &io, &st, stderr, &ierr) < 0) {
        fprintf(stderr, "tta replay: %s: %s\n", path, ierr ? ierr : "cannot be ingested");
        goto out;
    }
    /* the entry the description belongs to */
    int64_t entry;
    if (tta_db_entry_of_description(db, path, &entry, &oerr) != TTA_OK) {
        fprintf(stderr, "tta replay: %s: not a DAWNBench entry with runs (its .tsv beside it gives the runs)\n", path);
        goto out;
    }
    if (cli_spec_from_entry(db, entry, data, spec, &oerr) != TTA_OK) {
        fprintf(stderr, "tta replay: %s: %s\n", path, oerr.text);
        goto out;
    }
    if (model) {
        free(spec->model);
        free(spec->model_params);
        spec->model = strdup(model);
        spec->model_params = NULL;
    }
    tta_entry_data *e = NULL;
    char *lerr = NULL, id[32];
    snprintf(id, sizeof id, "%lld", (long long)entry);
    if (tta_entry_load_named(db, id, &e, &lerr) == 0) {
        spec->origin = tta_entry_name(e);
        tta_entries_free(e, 1);
    }
    free(lerr);
    rc = 0;
out:
    free(ierr);
    buf_free(&tsv);
    tta_db_close(db);
    return rc;
}

int cmd_replay(const tta_cli *cli, int argc, char **argv) {
    const char *spec_path = NULL, *device = "cpu", *log_dir = "tta-logs";
    const char *from = NULL, *from_model = NULL, *from_data = NULL;
    long runs = 0, seed0 = 0, threads = 0, max_epochs = 0;
    int json = 0, resume = 0, no_checkpoint = 0, no_loader_thread = 0;
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
            if (strcmp(device, "cpu") && strcmp(device, "reference") && strcmp(device, "cuda"))
                return cli_usage_error("replay", "--device must be cpu, reference or cuda");
        } else if (!strcmp(a, "--log-dir") && v) {
            log_dir = argv[++i];
        } else if (!strcmp(a, "--from") && v) {
            from = argv[++i];
        } else if (!strcmp(a, "--model") && v) {
            from_model = argv[++i];
        } else if (!strcmp(a, "--data") && v) {
            from_data = argv[++i];
        } else if (!strcmp(a, "--resume")) {
            resume = 1;
        } else if (!strcmp(a, "--no-checkpoint")) {
            no_checkpoint = 1;
        } else if (!strcmp(a, "--no-loader-thread")) {
            no_loader_thread = 1;
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
    if (!spec_path && !from) return cli_usage_error("replay", "no SPEC (or --from ENTRY.json) given");
    if (spec_path && from) return cli_usage_error("replay", "a SPEC or --from ENTRY.json, not both");
    if ((from_model || from_data) && !from) return cli_usage_error("replay", "--model and --data go with --from");
    if (resume && no_checkpoint) return cli_usage_error("replay", "--resume needs checkpoints");
    tta_replay_spec spec;
    char err[512];
    if (from) {
        if (spec_from_entry_file(cli, from, from_model, from_data, &spec) != 0) return 1;
        spec_path = from;
    } else {
        tta_error spec_err;
        if (tta_replay_spec_load(spec_path, &spec, &spec_err) != TTA_OK) {
            fprintf(stderr, "tta replay: %s\n", spec_err.text);
            return tta_exit_status(spec_err.code);
        }
    }
    if (runs > 0) {
        spec.n_seeds = runs > 64 ? 64 : (int)runs;
        for (int i = 0; i < spec.n_seeds; i++) spec.seeds[i] = (uint64_t)(seed0 + i);
    }
    /* Data parallel when started by mpirun: NCCL for the cuda device, MPI otherwise. */
    tta_comm *comm = tta_comm_create(tta_comm_launched_by_mpi() ? (!strcmp(device, "cuda") ? "nccl" : "mpi") : "self",
                                     err, sizeof err);
    if (!comm) {
        fprintf(stderr, "tta replay: %s\n", err);
        tta_replay_spec_free(&spec);
        return 1;
    }
    int K = comm->size, rank = comm->rank;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    const char *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    long local_ranks = local ? atol(local) : K;
    if (local_ranks < 1) local_ranks = 1;
    if (threads == 0 && K > 1) threads = ncpu / local_ranks > 0 ? ncpu / local_ranks : 1;
    if (rank == 0 && local_ranks * (threads > 0 ? threads : 1) > ncpu)
        fprintf(stderr, "tta replay: note: %ld ranks x %ld threads on %ld CPUs: oversubscribed, so times and "
                        "communication shares are distorted\n",
                local_ranks, threads > 0 ? threads : 1, ncpu);
    char host[64] = "host", system[200];
    gethostname(host, sizeof host - 1);
    if (K > 1) snprintf(system, sizeof system, "%s-%s-%ldt-x%d", host, device, threads > 0 ? threads : 1, K);
    else snprintf(system, sizeof system, "%s-%s-%ldt", host, device, threads > 0 ? threads : 1);
    const char *nc = getenv("NO_COLOR");
    tta_replay_options opt = {.device = device, .threads = (int)threads, .log_dir = log_dir, .system = system,
                              .max_epochs = (int)max_epochs, .resume = resume, .no_checkpoint = no_checkpoint,
                              .no_loader_thread = no_loader_thread, .stop = &replay_stop, .comm = comm,
                              .progress = rank == 0 && isatty(fileno(stderr)) && !(nc && *nc) ? stderr : NULL};
    replay_stop = 0;
    void (*old_handler)(int) = signal(SIGINT, on_sigint);
    tta_replay_result *res = calloc((size_t)spec.n_seeds, sizeof *res);
    int rc = 0, done = 0, interrupted = 0;
    for (int i = 0; i < spec.n_seeds && res && !interrupted; i++) {
        if (tta_replay_run(&spec, spec.seeds[i], &opt, &res[i], err, sizeof err) != 0) {
            fprintf(stderr, "tta replay: seed %llu%s: %s\n", (unsigned long long)spec.seeds[i],
                    K > 1 ? " (a rank)" : "", err);
            rc = 1;
            break;
        }
        interrupted = res[i].interrupted;
        done++;
    }
    signal(SIGINT, old_handler);
    if (interrupted && rank == 0)
        fprintf(stderr, "tta replay: interrupted: run_stop aborted; `tta replay %s --resume` continues it\n", spec_path);
    /* Ingest what was written, like any published log, with the system it ran on. */
    if (done > 0 && rank == 0 && cli_store_replays(cli, "replay", log_dir, system, device, K,
                                                   threads > 0 ? (int)threads : 1, res, done) != 0)
        rc = 1;
    if (json && rank == 0 && done > 0) {
        buf b = {0};
        buf_puts(&b, "{\"runs\": [");
        for (int i = 0; i < done; i++) {
            if (i) buf_puts(&b, ", ");
            json_run(&b, &res[i]);
        }
        buf_puts(&b, "]}\n");
        fputs(buf_str(&b), stdout);
        buf_free(&b);
    } else if (rank == 0 && done > 0) {
        printf("%-6s %-7s %6s %9s %9s %10s %7s %7s %8s%s\n", "seed", "reached", "epochs", "tta (s)", "wall (s)",
               "samples/s", "val %", "unseen%", "shifted%", K > 1 ? "  comm%" : "");
        for (int i = 0; i < done; i++) {
            const tta_replay_result *r = &res[i];
            char tta[32], comm_col[32] = "";
            if (isnan(r->tta_s)) snprintf(tta, sizeof tta, "n/a");
            else snprintf(tta, sizeof tta, "%.1f", r->tta_s);
            if (K > 1) snprintf(comm_col, sizeof comm_col, " %6.1f", r->comm_share * 100);
            printf("%-6llu %-7s %6d %9s %9.1f %10.0f %7.2f %7.2f %8.2f%s\n", (unsigned long long)r->seed,
                   r->interrupted ? "stopped" : r->reached ? "yes" : "no", r->epochs, tta, r->wall_s, r->samples_per_s,
                   r->val_acc * 100, r->unseen_acc * 100, r->shifted_acc * 100, comm_col);
        }
        printf("logs: %s ...\n", res[0].log);
    }
    free(res);
    tta_replay_spec_free(&spec);
    comm->destroy(comm);
    return rc ? rc : interrupted ? 130 : 0;
}
