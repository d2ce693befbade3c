/* main.c: tta's entry point: global options and command dispatch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cblas.h>

#include "cli/cli.h"

static const char usage_head[] =
    "usage: tta [--db PATH] COMMAND [ARGS...]    (global options may also follow the command)\n"
    "\n"
    "Time-to-accuracy analysis of MLPerf Training and DAWNBench results.\n"
    "\n"
    "commands:\n"
    "  ingest [--jobs N] [--format text|json] [--quiet] [--verbose] PATH...\n"
    "        read logs (files or folders) into the database\n"
    "  ls runs|entries|systems [filters] [--format F] [--wide]\n"
    "        list what is stored\n"
    "  report KIND [operands] [filters] [--format F] [--svg FILE] ...\n"
    "        a report; KIND is one of\n";
static const char usage_tail[] =
    "  check [--ruleset X.Y.Z] [--failing] [--format F] PATH...\n"
    "        MLCommons' compliance checks on result logs (exit 1 when one fails)\n"
    "  replay SPEC | --from ENTRY.json [--runs N] [--format json] ...\n"
    "        train a recipe on this machine, log and ingest its runs\n"
    "  verify ENTRY [--runs N] ...\n"
    "        replay an ingested entry and check its claim\n"
    "  profile SPEC | --peaks\n"
    "        time, FLOPs and memory of a training step per layer; this host's roofs\n"
    "  help [COMMAND]\n"
    "        this text, or every option of COMMAND\n"
    "\n"
    "filters: --round R --division D --submitter S --system Y --benchmark B --entry ID; a value no\n"
    "         entry has is an error naming the nearest ones; /RE/ is a regular expression\n"
    "global options: --db PATH (the database: --db PATH, else $TTA_DB, else tta.db in the current\n"
    "         folder), --help, --version\n"
    "`tta help COMMAND` or `tta COMMAND --help` lists every option of a command.\n";

/* The top-level help: the commands, with the report kinds read from the reports' registry. */
static void usage(FILE *out) {
    fputs(usage_head, out);
    size_t col = 0;
    for (size_t k = 0; tta_report_kind(k); k++) {
        const char *name = tta_report_kind(k);
        if (col == 0) col = (size_t)fprintf(out, "       ");
        col += (size_t)fprintf(out, " %s%s", name, tta_report_kind(k + 1) ? "," : "\n");
        if (col > 90 && tta_report_kind(k + 1)) {
            fputc('\n', out);
            col = 0;
        }
    }
    fputs(usage_tail, out);
}

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
    {"check", cmd_check},
};

/* OpenBLAS (linked for GSL's CBLAS and replay's GEMMs) starts its worker threads when the
 * library loads, and idle workers spin in sched_yield: on this project's 2-vCPU machines that
 * costs every command time even when no BLAS call is made. Unless the environment sets a
 * thread count:
 * - the training commands (replay, verify, profile) set one worker and OpenMP's wait
 *   (tta_replay_wait_env: passive after a short spin) and start themselves again, once, so
 *   that the libraries read them at load; replay then raises the count it needs explicitly;
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
    tta_replay_wait_env();
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

/* Takes the global options that follow the command word (--db PATH, --db=PATH; up to a "--")
 * out of argv[from..argc) into cli, closing the gaps; returns the new argc. */
static int take_global_options(tta_cli *cli, int argc, char **argv, int from) {
    int out = from;
    for (int i = from; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            while (i < argc) argv[out++] = argv[i++];
            break;
        }
        if (strcmp(argv[i], "--db") == 0 && i + 1 < argc) {
            cli->db_path = argv[++i];
        } else if (strncmp(argv[i], "--db=", 5) == 0) {
            cli->db_path = argv[i] + 5;
        } else {
            argv[out++] = argv[i];
        }
    }
    argv[out] = NULL;
    return out;
}

/* The command called name; NULL when none is. */
static const command *find_command(const char *name) {
    for (size_t c = 0; c < sizeof commands / sizeof commands[0]; c++)
        if (strcmp(name, commands[c].name) == 0) return &commands[c];
    return NULL;
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
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--version") == 0) {
            puts("tta 0.1.0");
            return 0;
        } else {
            fprintf(stderr, "tta: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (i >= argc) {
        usage(stderr);
        return 2;
    }
    argc = take_global_options(&cli, argc, argv, i + 1);
    if (strcmp(argv[i], "help") == 0) {
        /* `tta help` is `tta --help`; `tta help COMMAND` is `tta COMMAND --help` */
        if (i + 1 >= argc) {
            usage(stdout);
            return 0;
        }
        const command *c = find_command(argv[i + 1]);
        if (!c) {
            fprintf(stderr, "tta help: no command '%s'\n", argv[i + 1]);
            usage(stderr);
            return 2;
        }
        char *help_argv[] = {argv[i + 1], "--help", NULL};
        return c->run(&cli, 2, help_argv);
    }
    const command *c = find_command(argv[i]);
    if (c) return c->run(&cli, argc - i, argv + i);
    fprintf(stderr, "tta: unknown command '%s'\n", argv[i]);
    usage(stderr);
    return 2;
}
