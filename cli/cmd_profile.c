/* cmd_profile.c: `tta profile SPEC [...]` and `tta profile --peaks`: where a training step's time
 * and memory go on this machine (replay/profile.c), and this machine's roofs (replay/peaks.c).
 * Results go to stdout and are stored in the database for `tta report profile`. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/buf.h"
#include "ingest/ingest.h"
#include "replay/replay.h"

static const char profile_help[] =
    "usage: tta profile SPEC [--device cpu|reference|cuda] [--threads N] [--batch B | --batch-sweep B1,B2,...]\n"
    "                   [--steps N] [--seed S] [--format text|json] [--no-store]\n"
    "       tta profile --peaks [--threads N] [--format text|json] [--no-store]\n"
    "\n"
    "Profiles training steps of a replay SPEC (the recipe's model, optimizer, data and augmentation):\n"
    "warm-up steps are discarded until throughput settles (two windows of 5 steps within 5%, as TBD),\n"
    "then --steps (default 20) are measured: seconds per step, samples/s, the step split into data\n"
    "loading, forward, backward and optimizer update, and per layer the analytic FLOPs and bytes, the\n"
    "measured time and the achieved GFLOP/s; memory by category (weights, weight gradients, optimizer\n"
    "state, feature maps kept for backward, workspace, data), exact from the trainer's allocations.\n"
    "--batch-sweep profiles each batch size in turn (how memory and throughput grow with the batch).\n"
    "\n"
    "--peaks measures this host's roofs: OpenBLAS SGEMM GFLOP/s and memory bandwidth (STREAM triad),\n"
    "for --threads N (default: 1 and the number of CPUs).\n"
    "\n"
    "Both store their results in the database (unless --no-store); `tta report profile` shows them\n"
    "with a roofline against the peaks. --threads defaults to 1, as in tta replay.\n";

/* "32,64,128" into b (at most max); the count, or -1. */
static int parse_batches(const char *s, int *b, int max) {
    int n = 0;
    while (*s) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v <= 0 || v > 1 << 20 || n >= max) return -1;
        b[n++] = (int)v;
        if (*end == ',') end++;
        else if (*end) return -1;
        s = end;
    }
    return n;
}

/* Opens the database and stores one JSON document with store; 0, or 1 after a message. */
static int store_json(const tta_cli *cli, const char *what, const char *json, int64_t sweep, int64_t *id) {
    sqlite3 *db = NULL;
    tta_error err;
    int rc = 0;
    if (tta_db_open(cli->db_path, &db, &err) != TTA_OK ||
        (!strcmp(what, "peaks") ? tta_store_peaks(db, json, &err) : tta_store_profile(db, json, sweep, id, &err)) != TTA_OK) {
        fprintf(stderr, "tta profile: storing the %s in %s: %s\n", what, cli->db_path, err.text);
        rc = 1;
    }
    tta_db_close(db);
    return rc;
}

static void print_bytes(const char *label, size_t b, size_t total) {
    printf("  %-18s %12.2f MiB  %5.1f%%\n", label, (double)b / 1048576.0, total ? 100.0 * (double)b / (double)total : 0);
}

/* The profile for people. */
static void print_profile(const tta_profile_result *r) {
    printf("%s on %s, %d thread%s, batch %d: %.4f s per step, %.0f samples/s, %.2f GFLOP/s\n", r->model, r->device,
           r->threads, r->threads == 1 ? "" : "s", r->batch, r->step_s, r->samples_per_s, r->gflops);
    printf("warm-up: %d steps discarded (%s); %d steps measured\n", r->warmup_steps,
           r->settled ? "throughput settled" : "throughput never settled: figures are noisy", r->measured_steps);
    printf("step: data %.1f%%  forward %.1f%%  backward %.1f%%  optimizer %.1f%%  unattributed %.1f%%\n",
           100 * r->data_s / r->step_s, 100 * r->forward_s / r->step_s, 100 * r->backward_s / r->step_s,
           100 * r->optimizer_s / r->step_s, 100 * r->unattributed_s / r->step_s);
    printf("\n%-22s %-8s %12s %12s %10s %7s %9s %9s\n", "layer", "type", "MFLOP", "MB moved", "time (ms)", "time%",
           "GFLOP/s", "FLOP/B");
    for (int i = 0; i < r->n_layers; i++) {
        const tta_profile_layer *L = &r->layers[i];
        char g[32], t[80], share[32];
        if (L->fused_into[0]) {
            snprintf(t, sizeof t, "(in %s)", L->fused_into);
            snprintf(g, sizeof g, "-");
            snprintf(share, sizeof share, "-");
        } else {
            snprintf(t, sizeof t, "%.3f", L->time_s * 1e3);
            snprintf(g, sizeof g, isfinite(L->gflops) ? "%.2f" : "-", L->gflops);
            snprintf(share, sizeof share, "%.1f", 100 * L->time_s / r->step_s);
        }
        printf("%-22.22s %-8.8s %12.2f %12.2f %10s %7s %9s %9.2f\n", L->name, L->type, L->flops * 1e-6, L->bytes * 1e-6,
               t, share, g, L->intensity);
    }
    printf("\nmemory (bytes the trainer allocated):\n");
    print_bytes("weights", r->mem_weights, r->mem_total);
    print_bytes("buffers (BN stats)", r->mem_buffers, r->mem_total);
    print_bytes("weight gradients", r->mem_weight_grads, r->mem_total);
    print_bytes("optimizer state", r->mem_optimizer_state, r->mem_total);
    print_bytes("feature maps", r->mem_feature_maps, r->mem_total);
    print_bytes("workspace", r->mem_workspace, r->mem_total);
    print_bytes("inference path", r->mem_eval, r->mem_total);
    print_bytes("data", r->mem_data, r->mem_total);
    if (r->mem_host_copies) print_bytes("host copies", r->mem_host_copies, r->mem_total);
    print_bytes("total", r->mem_total, r->mem_total);
}

static int run_peaks(const tta_cli *cli, long threads, int json, int store) {
    char host[64] = "host", err[256];
    gethostname(host, sizeof host - 1);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    long list[2] = {threads > 0 ? threads : 1, ncpu > 1 ? ncpu : 0};
    int n = threads > 0 || ncpu <= 1 ? 1 : 2;
    buf out = {0};
    int rc = 0;
    if (json) buf_puts(&out, "[");
    for (int i = 0; i < n && rc == 0; i++) {
        tta_peaks p;
        fprintf(stderr, "tta profile: measuring peaks with %ld thread%s ...\n", list[i], list[i] == 1 ? "" : "s");
        if (tta_measure_peaks((int)list[i], &p, err, sizeof err) != 0) {
            fprintf(stderr, "tta profile --peaks: %s\n", err);
            rc = 1;
            break;
        }
        buf j = {0};
        tta_peaks_json(&p, host, &j);
        if (store) rc = store_json(cli, "peaks", buf_str(&j), 0, NULL);
        if (json) {
            buf_puts(&out, i ? ",\n " : "");
            buf_puts(&out, buf_str(&j));
        } else {
            buf_printf(&out, "%s, %d thread%s: SGEMM %.1f GFLOP/s, memory %.1f GB/s (triad), %.1f GB/s (copy); ridge at %.1f FLOP/byte\n",
                       host, p.threads, p.threads == 1 ? "" : "s", p.sgemm_gflops, p.triad_gbs, p.copy_gbs,
                       p.sgemm_gflops / p.triad_gbs);
        }
        buf_free(&j);
    }
    if (json) buf_puts(&out, "]\n");
    if (rc == 0) fputs(buf_str(&out), stdout);
    buf_free(&out);
    return rc;
}

int cmd_profile(const tta_cli *cli, int argc, char **argv) {
    const char *spec_path = NULL, *device = "cpu";
    long threads = 0, steps = 0, seed = 0;
    int json = 0, store = 1, peaks = 0, batches[32], n_batches = 0, sweep = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(profile_help, stdout);
            return 0;
        } else if (!strcmp(a, "--threads") || !strcmp(a, "--steps")) {
            long n = cli_parse_positive(v);
            if (n < 0) return cli_usage_error("profile", "%s needs a positive number", a);
            *(!strcmp(a, "--threads") ? &threads : &steps) = n;
            i++;
        } else if (!strcmp(a, "--seed")) {
            char *end;
            seed = v ? strtol(v, &end, 10) : -1;
            if (!v || *end || seed < 0) return cli_usage_error("profile", "--seed needs a number");
            i++;
        } else if (!strcmp(a, "--batch") || !strcmp(a, "--batch-sweep")) {
            if (n_batches) return cli_usage_error("profile", "give --batch or --batch-sweep once");
            n_batches = v ? parse_batches(v, batches, 32) : -1;
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
        } else if (!strcmp(a, "--no-store")) {
            store = 0;
        } else if (!strcmp(a, "--peaks")) {
            peaks = 1;
        } else if (a[0] == '-') {
            return cli_usage_error("profile", "unknown option '%s'", a);
        } else if (!spec_path) {
            spec_path = a;
        } else {
            return cli_usage_error("profile", "one SPEC, not '%s' too", a);
        }
    }
    if (peaks) {
        if (spec_path || n_batches) return cli_usage_error("profile", "--peaks takes no SPEC or batch sizes");
        return run_peaks(cli, threads, json, store);
    }
    if (!spec_path) return cli_usage_error("profile", "say which SPEC to profile (or --peaks)");
    char err[1024], host[64] = "host";
    gethostname(host, sizeof host - 1);
    tta_replay_spec spec;
    tta_error spec_err;
    if (tta_replay_spec_load(spec_path, &spec, &spec_err) != TTA_OK) {
        fprintf(stderr, "tta profile: %s\n", spec_err.text);
        return tta_exit_status(spec_err.code);
    }
    if (!n_batches) batches[n_batches++] = 0; /* the spec's */
    buf out = {0};
    int rc = 0;
    int64_t sweep_id = sweep ? -1 : 0;
    if (json && sweep) buf_puts(&out, "{\"sweep\": [");
    for (int b = 0; b < n_batches && rc == 0; b++) {
        tta_profile_options po = {.device = device, .threads = (int)(threads > 0 ? threads : 1), .batch = batches[b],
                                  .steps = (int)steps, .seed = (uint64_t)seed,
                                  .progress = isatty(fileno(stderr)) ? stderr : NULL};
        tta_profile_result r;
        if (tta_profile_run(&spec, &po, &r, err, sizeof err) != 0) {
            fprintf(stderr, "tta profile: %s\n", err);
            rc = 1;
            break;
        }
        if (!r.settled)
            fprintf(stderr, "tta profile: note: batch %d: throughput did not settle within %d warm-up steps\n", r.batch,
                    r.warmup_steps);
        buf j = {0};
        tta_profile_json(&r, host, spec_path, &j);
        if (store) {
            int64_t id = 0;
            rc = store_json(cli, "profile", buf_str(&j), sweep_id, &id);
            if (rc == 0 && sweep_id < 0) sweep_id = id;
            if (rc == 0) fprintf(stderr, "tta profile: stored as profile %lld in %s\n", (long long)id, cli->db_path);
        }
        if (json) {
            if (sweep && b) buf_puts(&out, ",\n");
            buf_puts(&out, buf_str(&j));
        } else {
            if (b) putchar('\n');
            print_profile(&r);
        }
        buf_free(&j);
        tta_profile_result_free(&r);
    }
    if (json && sweep) buf_puts(&out, "]}");
    if (json && rc == 0) printf("%s\n", buf_str(&out));
    buf_free(&out);
    tta_replay_spec_free(&spec);
    return rc;
}
