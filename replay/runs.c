/* runs.c: the runs of a recipe on this machine (see replay.h): the ranks and threads they run
 * on, the system they are filed under, its description in the output tree, and the runs' table
 * and JSON. */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/check.h"
#include "common/replay_log.h"
#include "replay/comm.h"
#include "replay/replay.h"

/* Threads per rank: as asked; else one, or under mpirun the node's CPUs shared among its ranks.
 * More ranks x threads than CPUs distort times and communication shares: a note says so. */
static int threads_per_rank(const tta_replay_runs_options *opt, int K, int rank) {
    long threads = opt->threads;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    const char *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    long local_ranks = local ? atol(local) : K;
    if (local_ranks < 1) local_ranks = 1;
    if (threads == 0 && K > 1) threads = ncpu / local_ranks > 0 ? ncpu / local_ranks : 1;
    if (rank == 0 && opt->notes && local_ranks * (threads > 0 ? threads : 1) > ncpu)
        fprintf(opt->notes, "tta %s: note: %ld ranks x %ld threads on %ld CPUs: oversubscribed, so times and "
                            "communication shares are distorted\n",
                opt->command, local_ranks, threads > 0 ? threads : 1, ncpu);
    return (int)threads;
}

/* The system description of this host's replays, so that ingest files K ranks as K accelerators
 * of one node (report scaling then compares K = 1, 2, 4 as published systems are compared):
 * <log_dir>/replay/systems/<system>.json into path. */
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
    buf_puts(&j, "{\n  \"" TTA_KEY_ROUND "\": \"" TTA_REPLAY_ROUND "\",\n  \"submitter\": \"" TTA_REPLAY_SUBMITTER
             "\",\n  \"division\": \"open\",\n");
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

/* The comm of this process into *comm: data parallel when started by mpirun (NCCL for the cuda
 * device, MPI otherwise), else one process. TTA_OK; TTA_EUNSUPPORTED when NCCL cannot be used
 * here (no CUDA in this build or no device), TTA_EINTERNAL when MPI fails to start. */
static int make_comm(const tta_replay_runs_options *opt, const char *device, tta_comm **comm, tta_error *err) {
    const char *kind = "self";
    if (!opt->one_process && tta_comm_launched_by_mpi()) kind = !strcmp(device, "cuda") ? "nccl" : "mpi";
    char why[TTA_ERROR_TEXT];
    *comm = tta_comm_create(kind, why, sizeof why);
    if (!*comm) return tta_fail(err, !strcmp(kind, "nccl") ? TTA_EUNSUPPORTED : TTA_EINTERNAL, "%s", why);
    return TTA_OK;
}

int tta_replay_runs(const tta_replay_spec *spec, const tta_replay_runs_options *opt, tta_replay_batch *out,
                    tta_error *err) {
    memset(out, 0, sizeof *out);
    const char *device = opt->device ? opt->device : "cpu", *log_dir = opt->log_dir ? opt->log_dir : "tta-logs";
    tta_comm *comm;
    int rc = make_comm(opt, device, &comm, err);
    if (rc != TTA_OK) return rc;
    out->workers = comm->size;
    out->rank = comm->rank;
    int threads = threads_per_rank(opt, out->workers, out->rank);
    out->threads = threads > 0 ? threads : 1;
    char host[64] = "host";
    gethostname(host, sizeof host - 1);
    int n = snprintf(out->system, sizeof out->system, "%s-%s-%s%dt", host, device, opt->auto_threads ? "auto" : "",
                     out->threads);
    assert(n > 0 && (size_t)n < sizeof out->system); /* a host name has at most 63 bytes */
    if (out->workers > 1) snprintf(out->system + n, sizeof out->system - (size_t)n, "-x%d", out->workers);
    tta_replay_options ro = {.device = device, .threads = threads, .auto_threads = opt->auto_threads,
                             .log_dir = log_dir, .system = out->system,
                             .max_epochs = opt->max_epochs, .to_schedule_end = opt->to_schedule_end,
                             .resume = opt->resume, .no_checkpoint = opt->no_checkpoint,
                             .no_loader_thread = opt->no_loader_thread, .stop = opt->stop, .comm = comm,
                             .progress = out->rank == 0 ? opt->progress : NULL};
    out->runs = callocCheck((size_t)spec->n_seeds + 1, sizeof *out->runs);
    for (int i = 0; i < spec->n_seeds && !out->interrupted; i++) {
        if ((rc = tta_replay_run(spec, spec->seeds[i], &ro, &out->runs[i], err)) != TTA_OK) {
            tta_error_context(err, "seed %llu%s", (unsigned long long)spec->seeds[i],
                              out->workers > 1 ? " (a rank)" : "");
            break;
        }
        out->interrupted = out->runs[i].interrupted;
        out->n_runs++;
    }
    /* Rank 0 describes the system the logs were written on, for ingest. */
    if (out->n_runs > 0 && out->rank == 0 &&
        write_system_json(log_dir, out->system, device, out->workers, out->threads, out->system_json,
                          sizeof out->system_json) != 0) {
        if (opt->notes)
            fprintf(opt->notes, "tta %s: %s: cannot write the system description: %s\n", opt->command,
                    out->system_json, strerror(errno));
        out->system_json[0] = '\0';
    }
    comm->ops->destroy(comm);
    return rc;
}

void tta_replay_batch_free(tta_replay_batch *b) {
    free(b->runs);
    memset(b, 0, sizeof *b);
}

static void json_run(buf *b, const tta_replay_result *r) {
    buf_printf(b, "{\"seed\": %llu, \"reached\": %s, \"epochs\": %d, \"tta_s\": ", (unsigned long long)r->seed,
               r->reached ? "true" : "false", r->epochs);
    const char *keys[] = {"wall_s", "samples_per_s", "val_acc", "unseen_acc", "shifted_acc"};
    const double vals[] = {r->wall_s, r->samples_per_s, r->val_acc, r->unseen_acc, r->shifted_acc};
    buf_json_number(b, r->tta_s);
    for (int i = 0; i < 5; i++) {
        buf_printf(b, ", \"%s\": ", keys[i]);
        buf_json_number(b, vals[i]);
    }
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

void tta_replay_batch_json(const tta_replay_batch *batch, buf *b) {
    buf_puts(b, "{\"runs\": [");
    for (int i = 0; i < batch->n_runs; i++) {
        if (i) buf_puts(b, ", ");
        json_run(b, &batch->runs[i]);
    }
    buf_puts(b, "]}\n");
}

void tta_replay_batch_text(const tta_replay_batch *batch, buf *b) {
    int K = batch->workers;
    buf_printf(b, "%-6s %-7s %6s %9s %9s %10s %7s %7s %8s%s\n", "seed", "reached", "epochs", "tta (s)", "wall (s)",
               "samples/s", "val %", "unseen%", "shifted%", K > 1 ? "  comm%" : "");
    for (int i = 0; i < batch->n_runs; i++) {
        const tta_replay_result *r = &batch->runs[i];
        char tta[32], comm_col[32] = "";
        if (isnan(r->tta_s)) snprintf(tta, sizeof tta, "n/a");
        else snprintf(tta, sizeof tta, "%.1f", r->tta_s);
        if (K > 1) snprintf(comm_col, sizeof comm_col, " %6.1f", r->comm_share * 100);
        buf_printf(b, "%-6llu %-7s %6d %9s %9.1f %10.0f %7.2f %7.2f %8.2f%s\n", (unsigned long long)r->seed,
                   r->interrupted ? "stopped" : r->reached ? "yes" : "no", r->epochs, tta, r->wall_s,
                   r->samples_per_s, r->val_acc * 100, r->unseen_acc * 100, r->shifted_acc * 100, comm_col);
    }
    if (batch->n_runs > 0) buf_printf(b, "logs: %s ...\n", batch->runs[0].log);
}
