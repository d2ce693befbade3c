/* cmd_profile.c: `tta profile SPEC [...]` and `tta profile --peaks`: where a training step's time
 * and memory go on this machine (replay/profile.c), and this machine's roofs (replay/peaks.c).
 * Results go to stdout and are stored in the database for `tta report profile`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/buf.h"

static const char profile_help[] =
    "usage: tta profile SPEC [--device cpu|reference|cuda] [--threads N|auto] [--batch B | --batch-sweep B1,B2,...]\n"
    "                   [--steps N] [--seed S] [--format text|json] [--no-store]\n"
    "       tta profile --peaks [--threads N] [--format text|json] [--no-store]\n"
    "\n"
    "Profiles training steps of a replay SPEC (the recipe's model, optimizer, data and augmentation):\n"
    "warm-up steps are discarded until throughput settles (two windows of 5 steps within 5%, as TBD),\n"
    "then --steps (default 20) are measured: seconds per step, samples/s, the step split into data\n"
    "loading, forward, backward and optimizer update, and per layer the analytic FLOPs and bytes, the\n"
    "measured time and the achieved GFLOP/s (a Winograd convolution's counts the direct one's FLOPs);\n"
    "memory by category, exact from the trainer's allocations.\n"
    "--batch-sweep profiles each batch size in turn (how memory and throughput grow with the batch).\n"
    "\n"
    "--peaks measures this host's roofs: SGEMM GFLOP/s (the better of OpenBLAS's and oneDNN's) and\n"
    "memory bandwidth (STREAM triad), for --threads N (default: 1 and the number of CPUs).\n"
    "\n"
    "Both store their results in the database (unless --no-store); `tta report profile` shows them\n"
    "with a roofline against the peaks. --threads: 1 by default; auto: one per CPU, fewer while others use them.\n";

static int run_peaks(const tta_cli *cli, long threads, int json, int store) {
    char host[64] = "host";
    gethostname(host, sizeof host - 1);
    int list[2], n = tta_peaks_thread_counts((int)threads, list), rc = 0;
    buf out = {0};
    if (json) buf_puts(&out, "[");
    for (int i = 0; i < n && rc == 0; i++) {
        tta_peaks p;
        tta_error err;
        fprintf(stderr, "tta profile: measuring peaks with %d thread%s ...\n", list[i], list[i] == 1 ? "" : "s");
        if ((rc = tta_exit_status(tta_measure_peaks(list[i], &p, &err))) != 0) {
            fprintf(stderr, "tta profile --peaks: %s\n", err.text);
            break;
        }
        buf j = {0};
        tta_peaks_json(&p, host, &j);
        if (store) rc = cli_store_profile_json(cli, "peaks", buf_str(&j), 0, NULL);
        if (json) buf_printf(&out, "%s%s", i ? ",\n " : "", buf_str(&j));
        else tta_peaks_text(&p, host, &out);
        buf_free(&j);
    }
    if (json) buf_puts(&out, "]\n");
    if (rc == 0) fputs(buf_str(&out), stdout);
    buf_free(&out);
    return rc;
}

/* Stores and writes the profiles r[0..n) of one spec (a sweep when sweep; failed: a profile after
 * them failed, so no JSON document is written): 0, or 1 after a message. */
static int store_and_print(const tta_cli *cli, const char *spec_path, tta_profile_result *r, int n, int sweep,
                           int json, int store, int failed) {
    char host[64] = "host";
    gethostname(host, sizeof host - 1);
    buf out = {0};
    int rc = 0;
    int64_t sweep_id = sweep ? -1 : 0, id = 0;
    if (json && sweep) buf_puts(&out, "{\"sweep\": [");
    for (int b = 0; b < n && rc == 0; b++) {
        if (!r[b].settled)
            fprintf(stderr, "tta profile: note: batch %d: throughput did not settle within %d warm-up steps\n",
                    r[b].batch, r[b].warmup_steps);
        buf j = {0};
        tta_profile_json(&r[b], host, spec_path, &j);
        if (store) rc = cli_store_profile_json(cli, "profile", buf_str(&j), sweep_id, &id);
        if (store && rc == 0 && sweep_id < 0) sweep_id = id;
        if (json) buf_printf(&out, "%s%s", sweep && b ? ",\n" : "", buf_str(&j));
        else buf_puts(&out, b ? "\n" : "");
        if (!json) tta_profile_text(&r[b], &out);
        buf_free(&j);
    }
    if (json && sweep) buf_puts(&out, "]}");
    if (!json || (rc == 0 && !failed)) printf("%s%s", buf_str(&out), json ? "\n" : "");
    buf_free(&out);
    return rc;
}

int cmd_profile(const tta_cli *cli, int argc, char **argv) {
    const char *spec_path = NULL, *device = "cpu";
    long threads = 0, steps = 0, seed = 0;
    int json = 0, store = 1, peaks = 0, batches[32], n_batches = 0, sweep = 0, auto_threads = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(profile_help, stdout);
            return 0;
        } else if (!strcmp(a, "--threads") || !strcmp(a, "--steps")) {
            long n = !strcmp(a, "--threads") ? cli_parse_threads(v, &auto_threads) : cli_parse_positive(v);
            if (n < 0) return cli_usage_error("profile", "%s needs a positive number%s", a, a[2] == 't' ? " or auto" : "");
            *(!strcmp(a, "--threads") ? &threads : &steps) = n;
            i++;
        } else if (!strcmp(a, "--seed")) {
            char *end;
            seed = v ? strtol(v, &end, 10) : -1;
            if (!v || *end || seed < 0) return cli_usage_error("profile", "--seed needs a number");
            i++;
        } else if (!strcmp(a, "--batch") || !strcmp(a, "--batch-sweep")) {
            if (n_batches) return cli_usage_error("profile", "give --batch or --batch-sweep once");
            n_batches = v ? cli_parse_int_list(v, batches, 32) : -1;
            if (n_batches <= 0 || (!strcmp(a, "--batch") && n_batches != 1))
                return cli_usage_error("profile", "%s needs %s", a,
                                       !strcmp(a, "--batch") ? "a positive number" : "a list like 32,64,128");
            sweep = !strcmp(a, "--batch-sweep");
            i++;
        } else if (!strcmp(a, "--device") && v) {
            device = argv[++i];
            if (strcmp(device, "cpu") && strcmp(device, "reference") && strcmp(device, "cuda"))
                return cli_usage_error("profile", "--device must be cpu, reference or cuda");
        } else if (!strcmp(a, "--format") && v) {
            json = !strcmp(argv[++i], "json");
            if (!json && strcmp(argv[i], "text")) return cli_usage_error("profile", "--format must be text or json");
        } else if (!strcmp(a, "--no-store") || !strcmp(a, "--peaks")) {
            *(!strcmp(a, "--peaks") ? &peaks : &store) = !strcmp(a, "--peaks");
        } else if (a[0] == '-') {
            return cli_usage_error("profile", "unknown option '%s'", a);
        } else if (!spec_path) {
            spec_path = a;
        } else {
            return cli_usage_error("profile", "one SPEC, not '%s' too", a);
        }
    }
    if (peaks) return spec_path || n_batches ? cli_usage_error("profile", "--peaks takes no SPEC or batch sizes")
                                             : run_peaks(cli, threads, json, store);
    if (!spec_path) return cli_usage_error("profile", "say which SPEC to profile (or --peaks)");
    tta_replay_spec spec;
    tta_error err;
    if (tta_replay_spec_load(spec_path, &spec, &err) != TTA_OK) {
        fprintf(stderr, "tta profile: %s\n", err.text);
        return tta_exit_status(err.code);
    }
    if (!n_batches) batches[n_batches++] = 0; /* the spec's */
    tta_profile_options po = {.device = device, .threads = (int)(threads > 0 ? threads : 1), .auto_threads = auto_threads,
                              .steps = (int)steps, .seed = (uint64_t)seed, .progress = isatty(fileno(stderr)) ? stderr : NULL};
    tta_profile_result r[32];
    int done = 0, rc = tta_exit_status(tta_profile_sweep(&spec, &po, batches, n_batches, r, &done, &err));
    if (rc) fprintf(stderr, "tta profile: %s\n", err.text);
    if (store_and_print(cli, spec_path, r, done, sweep, json, store, rc) != 0) rc = 1;
    for (int b = 0; b < done; b++) tta_profile_result_free(&r[b]);
    tta_replay_spec_free(&spec);
    return rc;
}
