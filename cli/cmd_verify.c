/* cmd_verify.c: `tta verify ENTRY [--runs N] [--stop-at-target] [--max-epochs E] [--threshold T]
 * [--threads N] [--log-dir DIR] [--format table|csv|json|markdown]`: replays an ingested entry
 * from its own description, stores the runs as `tta replay` does, and writes the report of
 * reports.h (the claim beside the replays, measure by measure). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/replay_log.h"

static const char verify_help[] =
    "usage: tta verify ENTRY [--runs N] [--stop-at-target] [--max-epochs E] [--threshold T] [--threads N]\n"
    "                  [--log-dir DIR] [--format table|csv|json|markdown] [--wide]\n"
    "\n"
    "Replays an ingested entry (an id from `tta ls entries`, or round/division/submitter/system/benchmark;\n"
    "a DAWNBench entry whose description gives its recipe, such as the Fashion-MNIST claims) N times\n"
    "(default 3, seeds 0..N-1) and sets the replays beside the claim.\n"
    "By default each replay runs the claim's own schedule to its last epoch, as the claim did (it does not\n"
    "stop at the threshold): the TTA is the time to the first epoch whose validation accuracy meets the\n"
    "threshold (the log's run_stop is there; the epochs after it follow), and validation, unseen and shifted\n"
    "accuracy are compared at the claim's final epoch. --stop-at-target stops each replay at the threshold\n"
    "(MLPerf); accuracies are then compared at the stop. --max-epochs E caps the schedule at epoch E (for\n"
    "quick checks; the report says so and compares validation accuracy at epoch E; capped before the claim\n"
    "reached the threshold, the verdict is inconclusive). --threshold T: the validation accuracy to reach (a\n"
    "fraction, or a percentage above 1; default 0.88, the Fashion-MNIST threshold), for the claim and the\n"
    "replays alike. A claim's misc.inputNormalization (mean, std of pixel / 255) is replayed with it.\n"
    "The runs are logged under DIR/replay/results/ (DIR: --log-dir, default tta-logs) and ingested as round\n"
    "\"" TTA_REPLAY_ROUND "\", submitter \"" TTA_REPLAY_SUBMITTER "\", each log naming the claim (tta_replay_of).\n"
    "Rows: runs reaching the threshold, epochs to it, TTA, time per epoch, validation accuracy, unseen and\n"
    "shifted accuracy, generalization gap; columns: claim and replay (mean ± std (runs)), and Welch's test\n"
    "of the difference; then a verdict. CSV and JSON carry the means, stds, counts, p values and the entry\n"
    "ids of the claim and of the stored replays. (--sort and --top do not apply: the rows are measures.)\n";

int cmd_verify(const tta_cli *cli, int argc, char **argv) {
    const char *entry_spec = NULL, *log_dir = "tta-logs";
    long runs = 3, max_epochs = 0, threads = 0;
    int stop_at_target = 0, format = TTA_FORMAT_TABLE;
    double threshold = NAN;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int fr;
        tta_error ferr;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(verify_help, stdout);
            return 0;
        } else if (!strcmp(a, "--runs") || !strcmp(a, "--max-epochs") || !strcmp(a, "--threads")) {
            long n = cli_parse_positive(v);
            if (n < 0) return cli_usage_error("verify", "%s needs a positive number", a);
            *(!strcmp(a, "--runs") ? &runs : !strcmp(a, "--threads") ? &threads : &max_epochs) = n;
            i++;
        } else if (!strcmp(a, "--threshold")) {
            threshold = cli_parse_accuracy(v);
            if (isnan(threshold)) return cli_usage_error("verify", "--threshold needs an accuracy (0.88 or 88)");
            i++;
        } else if (!strcmp(a, "--stop-at-target")) {
            stop_at_target = 1;
        } else if (!strcmp(a, "--log-dir") && v) {
            log_dir = argv[++i];
        } else if (!strcmp(a, "--sort") || !strcmp(a, "--top")) {
            return cli_usage_error("verify", "%s does not apply: verify's rows are measures, in their order", a);
        } else if ((fr = cli_format_option(argc, argv, &i, &format, &ferr)) != 0) {
            if (fr < 0) return cli_usage_error("verify", "%s", ferr.text);
        } else if (a[0] == '-') {
            return cli_usage_error("verify", "unknown option '%s'", a);
        } else if (!entry_spec) {
            entry_spec = a;
        } else {
            return cli_usage_error("verify", "one ENTRY, not '%s' too", a);
        }
    }
    if (!entry_spec) return cli_usage_error("verify", "no ENTRY given");
    if (runs > TTA_VERIFY_MAX_RUNS) runs = TTA_VERIFY_MAX_RUNS;
    sqlite3 *db;
    tta_error oerr;
    if (tta_db_open_existing(cli->db_path, &db, &oerr) != TTA_OK) {
        fprintf(stderr, "tta verify: %s\n", oerr.text);
        return 1;
    }
    tta_entry_data *e = NULL;
    int status = tta_verify_load_claim(db, entry_spec, &e, &oerr);
    if (status != TTA_OK) {
        fprintf(stderr, "tta verify: %s\n", oerr.text);
        tta_db_close(db);
        return tta_exit_status(status);
    }
    tta_replay_spec spec;
    int have_spec = 0;
    if (cli_spec_from_entry(db, e->id, NULL, &spec, &oerr) != TTA_OK) {
        fprintf(stderr, "tta verify: %s\n", oerr.text);
        goto fail;
    }
    have_spec = 1;
    if (!isnan(threshold)) spec.target = threshold;
    tta_verify_side claim, replay;
    int schedule = spec.max_epochs, compared;
    if (tta_verify_claim_plan(db, e, spec.target, stop_at_target, (int)max_epochs, &schedule, &compared, &claim,
                              stderr, &oerr) != TTA_OK) {
        fprintf(stderr, "tta verify: %s\n", oerr.text);
        goto fail;
    }
    spec.max_epochs = schedule;
    tta_db_close(db);
    spec.origin = tta_entry_name(e);
    const char *nc = getenv("NO_COLOR");
    /* seeds 0..runs-1 */
    spec.n_seeds = (int)runs;
    for (int i = 0; i < spec.n_seeds; i++) spec.seeds[i] = (uint64_t)i;
    tta_replay_runs_options opt = {.command = "verify", .device = "cpu", .threads = (int)threads, .log_dir = log_dir,
                                   .max_epochs = compared, .to_schedule_end = !stop_at_target, .no_checkpoint = 1,
                                   .one_process = 1, .notes = stderr,
                                   .progress = isatty(fileno(stderr)) && !(nc && *nc) ? stderr : NULL};
    tta_replay_batch batch;
    int rc = tta_exit_status(tta_replay_runs(&spec, &opt, &batch, &oerr));
    if (rc) fprintf(stderr, "tta verify: %s\n", oerr.text);
    int done = batch.n_runs;
    /* Stored as `tta replay` stores its runs. */
    if (done > 0 && cli_store_replays(cli, "verify", &batch) != 0) rc = 1;
    int64_t replay_id = -1;
    if (done > 0 && tta_db_open(cli->db_path, &db, &oerr) == TTA_OK) {
        tta_db_replay_entry(db, batch.system, spec.benchmark, &replay_id, &oerr); /* -1 when none */
        tta_db_close(db);
    }
    tta_verify_replay_side(batch.runs, done, &replay);
    char *name = tta_entry_name(e);
    buf replay_name = {0}, out = {0};
    buf_printf(&replay_name, TTA_REPLAY_ROUND "/open/" TTA_REPLAY_SUBMITTER "/%s/%s", batch.system, spec.benchmark);
    tta_verify_context ctx = {.claim_entry_id = e->id, .replay_entry_id = replay_id, .claim_name = name,
                              .replay_name = buf_str(&replay_name), .threshold = spec.target,
                              .stop_at_target = stop_at_target, .compared_epoch = compared,
                              .schedule_epochs = schedule, .epoch_cap = compared < schedule ? compared : 0,
                              .runs_asked = (int)runs};
    tta_verify_write(&ctx, &claim, &replay, format, &out);
    fputs(buf_str(&out), stdout);
    buf_free(&out);
    buf_free(&replay_name);
    free(name);
    tta_replay_batch_free(&batch);
    tta_replay_spec_free(&spec);
    tta_entries_free(e, 1);
    return rc || done != runs ? 1 : 0;
fail:
    if (have_spec) tta_replay_spec_free(&spec);
    tta_entries_free(e, 1);
    tta_db_close(db);
    return 1;
}
