/* main.c: tta's entry point: global options and command dispatch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cblas.h>

#include "cli/cli.h"

static const char usage_text[] =
    "usage: tta [--db PATH] COMMAND [ARGS...]\n"
    "\n"
    "Time-to-accuracy analysis of MLPerf Training and DAWNBench results.\n"
    "\n"
    "commands:\n"
    "  ingest [--jobs N] [--format text|json] PATH...   read logs into the database\n"
    "  ls runs|entries|systems [filters] [--format F]     list what is stored\n"
    "  report KIND [filters] [--format F]                 variance, speedup, scaling, curves, compare,\n"
    "                                                     rcp, threshold, html (tta report --help)\n"
    "  replay SPEC [--runs N] [--format json] ...         re-execute a training recipe on this machine\n"
    "  verify ENTRY [--runs N]                            replay an ingested entry and check its claim\n"
    "  profile SPEC | --peaks                             time, FLOPs and memory of a training step per\n"
    "                                                     layer; this host's roofs (tta profile --help)\n"
    "\n"
    "The database is --db PATH, else $TTA_DB, else tta.db in the current folder.\n"
    "`tta COMMAND --help` describes a command.\n";

typedef struct {
    const char *name;
    int (*run)(const tta_cli *, int, char **);
} command;

static const command commands[] = {
    {"ingest", cmd_ingest},
    {"ls", cmd_ls},
    {"report", cmd_report},
    {"replay", cmd_replay},
    {"verify", cmd_verify},
    {"profile", cmd_profile},
};

/* OpenBLAS (linked for GSL's CBLAS and replay's GEMMs) starts its worker threads when the
 * library loads, and idle workers spin in sched_yield: on this project's 2-vCPU machines that
 * costs every command time even when no BLAS call is made. Unless the environment sets a
 * thread count:
 * - the training commands (replay, verify, profile) set one worker and passive OpenMP waits
 *   and start themselves again, once, so that the libraries read them at load; replay then
 *   raises the count it needs explicitly;
 * - every other command makes no parallel BLAS call and no OpenMP region: it sets one thread
 *   and stops the worker at once, as OpenBLAS itself does before a fork (a later parallel call
 *   would start the pool again), which spares it loading every library twice (8 ms). */
extern void blas_thread_shutdown_(void); /* OpenBLAS: exported, used by its own fork handler */

static int is_training_command(const char *name) {
    return name && (strcmp(name, "replay") == 0 || strcmp(name, "verify") == 0 || strcmp(name, "profile") == 0);
}

static void quiet_thread_pools(char **argv, const char *command_name) {
    if (getenv("OPENBLAS_NUM_THREADS") || getenv("TTA_REEXECED")) return;
    if (!is_training_command(command_name)) {
        openblas_set_num_threads(1);
        blas_thread_shutdown_();
        return;
    }
    setenv("OPENBLAS_NUM_THREADS", "1", 1);
    if (!getenv("OMP_WAIT_POLICY")) setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
    setenv("TTA_REEXECED", "1", 1);
    execv("/proc/self/exe", argv);
    /* exec failed (no /proc): carry on with the pools as they are */
}

/* The command word: the first argument after the global options (NULL when none). */
static const char *command_name(int argc, char **argv) {
    int i = 1;
    while (i < argc && argv[i][0] == '-') i += strcmp(argv[i], "--db") == 0 ? 2 : 1;
    return i < argc ? argv[i] : NULL;
}

int main(int argc, char **argv) {
    quiet_thread_pools(argv, command_name(argc, argv));
    /* Process-wide database settings: must precede the first open. */
    tta_db_init_process();
    tta_cli cli = {.argv0 = argv[0]};
    const char *env_db = getenv("TTA_DB");
    cli.db_path = env_db && *env_db ? env_db : "tta.db";
    int i = 1;
    while (i < argc && argv[i][0] == '-') {
        if (strcmp(argv[i], "--db") == 0 && i + 1 < argc) {
            cli.db_path = argv[i + 1];
            i += 2;
        } else if (strncmp(argv[i], "--db=", 5) == 0) {
            cli.db_path = argv[i] + 5;
            i++;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage_text, stdout);
            return 0;
        } else if (strcmp(argv[i], "--version") == 0) {
            puts("tta 0.1.0");
            return 0;
        } else {
            fprintf(stderr, "tta: unknown option '%s'\n%s", argv[i], usage_text);
            return 2;
        }
    }
    if (i >= argc) {
        fputs(usage_text, stderr);
        return 2;
    }
    for (size_t c = 0; c < sizeof commands / sizeof commands[0]; c++) {
        if (strcmp(argv[i], commands[c].name) == 0) return commands[c].run(&cli, argc - i, argv + i);
    }
    fprintf(stderr, "tta: unknown command '%s'\n%s", argv[i], usage_text);
    return 2;
}
