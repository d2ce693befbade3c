/* cmd_replay.c: `tta replay SPEC [--runs N] [--seed S] [--device cpu|reference|cuda] [--threads N]
 * [--log-dir DIR] [--max-epochs E] [--resume] [--no-checkpoint] [--format text|json]`, also as
 * `mpirun -np K tta replay ...` (data parallel). Ctrl-C or SIGTERM stops the run at the next step: its log
 * ends with run_stop aborted and its checkpoint stays for --resume. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/interrupt.h"
#include "common/buf.h"
#include "common/replay_log.h"
#include "replay/replay.h"

static const char replay_help[] =
    "usage: tta replay SPEC | --from ENTRY.json [--model NAME] [--data DIR]  [--runs N] [--seed S] [--device cpu|reference|cuda] [--threads N|auto]\n"
    "                  [--log-dir DIR] [--max-epochs E] [--resume] [--no-checkpoint] [--no-loader-thread]\n"
    "                  [--format text|json]\n"
    "       mpirun -np K tta replay SPEC ...   (data parallel over K ranks; global batch K x batch_size)\n"
    "\n"
    "Re-executes the training recipe in SPEC (a JSON file, schemas/replay-spec.schema.json) on this\n"
    "machine, with MLPerf's timing rules, once per seed (the spec's seeds, --runs N from --seed S, or --seed S alone).\n"
    "Each run writes a :::MLLOG log under DIR/replay/results/<system>/<benchmark>/ (DIR: --log-dir, default\n"
    "tta-logs) and is ingested into the database as round \"" TTA_REPLAY_ROUND "\", submitter \"" TTA_REPLAY_SUBMITTER "\".\n"
    "--from ENTRY.json: a DAWNBench entry (its .tsv beside it, when there is one, is read too) is ingested\n"
    "and the SPEC built from its own description (misc: optimizer, momentum, weightDecay, batchSize,\n"
    "learningRate; its model, or --model NAME; the data in --data DIR); each run logs tta_replay_of, the\n"
    "entry it replays.\n"
    "A checkpoint is written after every epoch (DIR/replay/checkpoints/...); --resume continues an\n"
    "interrupted run from it. Ctrl-C or SIGTERM stops cleanly: run_stop aborted, checkpoint kept, exit status\n"
    "130 (Ctrl-C) or 143 (SIGTERM).\n"
    "--threads auto: one per CPU, fewer while other processes hold cores (not bit-reproducible: docs/replay.md).\n"
    "Under mpirun each rank trains on its share of every global batch and the gradients are averaged\n"
    "(MPI_Iallreduce in buckets, overlapped with backward); rank 0 writes the log and the output.\n"
    "JSON output: {\"runs\": [{seed, reached, epochs, tta_s, wall_s, samples_per_s, val_acc, unseen_acc,\n"
    "shifted_acc, log, workers, comm_share, comm_total_share, data_share, interrupted, resumed_from}]}.\n";

int cmd_replay(const tta_cli *cli, int argc, char **argv) {
    const char *spec_path = NULL, *device = "cpu", *log_dir = "tta-logs";
    const char *from = NULL, *from_model = NULL, *from_data = NULL;
    long runs = 0, seed0 = 0, threads = 0, max_epochs = 0;
    int json = 0, resume = 0, no_checkpoint = 0, no_loader_thread = 0, auto_threads = 0, seed_given = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(replay_help, stdout);
            return 0;
        } else if (!strcmp(a, "--runs") || !strcmp(a, "--threads") || !strcmp(a, "--max-epochs")) {
            long n = !strcmp(a, "--threads") ? cli_parse_threads(v, &auto_threads) : cli_parse_positive(v);
            if (n < 0) return cli_usage_error("replay", "%s needs a positive number%s", a, a[2] == 't' ? " or auto" : "");
            *(!strcmp(a, "--runs") ? &runs : !strcmp(a, "--threads") ? &threads : &max_epochs) = n;
            i++;
        } else if (!strcmp(a, "--seed")) {
            char *end;
            seed0 = v ? strtol(v, &end, 10) : -1;
            if (!v || *end || seed0 < 0) return cli_usage_error("replay", "--seed needs a number");
            seed_given = 1;
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
    tta_error err;
    if (from) {
        if (cli_spec_from_entry_file(cli, from, from_model, from_data, &spec) != 0) return 1;
        spec_path = from;
    } else if (tta_replay_spec_load(spec_path, &spec, &err) != TTA_OK) {
        fprintf(stderr, "tta replay: %s\n", err.text);
        return tta_exit_status(err.code);
    }
    /* --seed S alone is one run of seed S (it was ignored: the spec's seeds ran instead) */
    if (seed_given && runs == 0) runs = 1;
    if (runs > 0) {
        spec.n_seeds = runs > 64 ? 64 : (int)runs;
        for (int i = 0; i < spec.n_seeds; i++) spec.seeds[i] = (uint64_t)(seed0 + i);
    }
    const char *nc = getenv("NO_COLOR");
    tta_replay_runs_options opt = {.command = "replay", .device = device, .threads = (int)threads, .log_dir = log_dir,
                                   .max_epochs = (int)max_epochs, .resume = resume, .no_checkpoint = no_checkpoint,
                                   .no_loader_thread = no_loader_thread, .notes = stderr,
                                   .auto_threads = auto_threads,
                                   .progress = isatty(fileno(stderr)) && !(nc && *nc) ? stderr : NULL};
    opt.stop = cli_interrupt_begin(); /* Ctrl-C, SIGTERM: on a thread of their own (interrupt.h says why) */
    tta_replay_batch batch;
    int rc = tta_exit_status(tta_replay_runs(&spec, &opt, &batch, &err));
    cli_interrupt_end();
    if (rc) fprintf(stderr, "tta replay: %s\n", err.text);
    if (batch.interrupted && batch.rank == 0)
        fprintf(stderr, "tta replay: interrupted: run_stop aborted; `tta replay %s --resume` continues it\n",
                spec_path);
    /* Ingest what was written, like any published log, with the system it ran on. */
    if (batch.n_runs > 0 && batch.rank == 0) {
        if (cli_store_replays(cli, "replay", &batch) != 0) rc = 1;
        buf b = {0};
        (json ? tta_replay_batch_json : tta_replay_batch_text)(&batch, &b);
        fputs(buf_str(&b), stdout);
        buf_free(&b);
    }
    int interrupted = batch.interrupted;
    tta_replay_batch_free(&batch);
    tta_replay_spec_free(&spec);
    return rc ? rc : interrupted ? 128 + (*opt.stop ? *opt.stop : SIGINT) : 0; /* 130 Ctrl-C, 143 SIGTERM */
}
