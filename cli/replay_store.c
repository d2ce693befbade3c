/* replay_store.c: the replay commands' seams to the database (`tta replay`, `tta verify`):
 * the runs a replay wrote are ingested like any published log, and a DAWNBench entry file is
 * ingested to build a replay SPEC from its description. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/buf.h"

int cli_store_replays(const tta_cli *cli, const char *cmd, const tta_replay_batch *b) {
    sqlite3 *db = NULL;
    const char **paths = calloc((size_t)b->n_runs + 1, sizeof *paths);
    int np = 0, rc = 0;
    if (b->system_json[0]) paths[np++] = b->system_json;
    for (int i = 0; i < b->n_runs; i++) paths[np++] = b->runs[i].log;
    tta_ingest_options io = {.jobs = 1, .quiet = 0};
    tta_ingest_stats st;
    tta_error err;
    if (tta_db_open(cli->db_path, &db, &err) != TTA_OK) {
        fprintf(stderr, "tta %s: ingesting the logs: %s\n", cmd, err.text);
        rc = 1;
    } else if (tta_ingest_paths(db, paths, np, &io, &st, stderr, &err) != TTA_OK) {
        /* A path or log that failed is on stderr already (the ingest's diag); the database's failure is not. */
        fprintf(stderr, "tta %s: ingesting the logs: %s\n", cmd, err.code == TTA_EDB ? err.text : "failed");
        rc = 1;
    }
    free(paths);
    tta_db_close(db);
    return rc;
}

/* Ingests a DAWNBench entry file (and its .tsv) and builds the SPEC from its description:
 * 0, or 1 with the reason printed. */
int cli_spec_from_entry_file(const tta_cli *cli, const char *path, const char *model, const char *data,
                                tta_replay_spec *spec) {
    sqlite3 *db = NULL;
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
    if (tta_ingest_paths(db, paths, np, &io, &st, stderr, &oerr) == TTA_EDB) {
        fprintf(stderr, "tta replay: %s: %s\n", path, oerr.text);
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
    char id[32];
    snprintf(id, sizeof id, "%lld", (long long)entry);
    if (tta_entry_load_named(db, id, &e, NULL) == TTA_OK) {
        spec->origin = tta_entry_name(e);
        tta_entries_free(e, 1);
    }
    rc = 0;
out:
    buf_free(&tsv);
    tta_db_close(db);
    return rc;
}

int cli_store_profile_json(const tta_cli *cli, const char *what, const char *json, int64_t sweep, int64_t *id) {
    sqlite3 *db = NULL;
    int rc = 0;
    tta_error err;
    if (tta_db_open(cli->db_path, &db, &err) != TTA_OK ||
        (!strcmp(what, "peaks") ? tta_ingest_peaks(db, json, &err) : tta_ingest_profile(db, json, sweep, id, &err)) != TTA_OK) {
        fprintf(stderr, "tta profile: storing the %s in %s: %s\n", what, cli->db_path, err.text);
        rc = 1;
    }
    if (rc == 0 && id) fprintf(stderr, "tta profile: stored as profile %lld in %s\n", (long long)*id, cli->db_path);
    tta_db_close(db);
    return rc;
}
