/* query_profiles.c: stored profiles of training steps (`tta profile`), their layers, and the
 * hosts' measured peaks (`tta profile --peaks`), for `tta report profile`. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "db/query.h"

#define PROFILE_COLUMNS                                                                                        \
    "id, coalesce(sweep, 0), host, device, model, measured_at, threads, batch, settled, warmup_steps, "       \
    "measured_steps, step_s, samples_per_s, gflops, flops_per_step, data_s, forward_s, backward_s, optimizer_s, " \
    "mem_weights, mem_weight_grads, mem_optimizer_state, mem_feature_maps, mem_workspace, mem_data, mem_total"

/* Column i into dst (truncated to len; "" for SQL NULL). */
static void text_into(sqlite3_stmt *st, int i, char *dst, size_t len) {
    const unsigned char *s = sqlite3_column_text(st, i);
    snprintf(dst, len, "%s", s ? (const char *)s : "");
}

static void read_profile(sqlite3_stmt *st, tta_profile_row *p) {
    p->id = sqlite3_column_int64(st, 0);
    p->sweep = sqlite3_column_int64(st, 1);
    text_into(st, 2, p->host, sizeof p->host);
    text_into(st, 3, p->device, sizeof p->device);
    text_into(st, 4, p->model, sizeof p->model);
    text_into(st, 5, p->measured_at, sizeof p->measured_at);
    p->threads = sqlite3_column_int(st, 6);
    p->batch = sqlite3_column_int(st, 7);
    p->settled = sqlite3_column_int(st, 8);
    p->warmup_steps = sqlite3_column_int(st, 9);
    p->measured_steps = sqlite3_column_int(st, 10);
    double *v[] = {&p->step_s, &p->samples_per_s, &p->gflops, &p->flops_per_step, &p->data_s, &p->forward_s,
                   &p->backward_s, &p->optimizer_s};
    for (int i = 0; i < 8; i++) *v[i] = db_col_real(st, 11 + i);
    for (int i = 0; i < 7; i++) p->mem[i] = db_col_real(st, 19 + i);
}

int tta_db_profiles(sqlite3 *db, int64_t id, tta_profile_row **rows, size_t *n, size_t *sel, tta_error *err) {
    assert(db && rows && n && sel);
    sqlite3_stmt *st = NULL;
    *rows = NULL;
    *n = 0;
    *sel = 0;
    if (id <= 0) {
        if (sqlite3_prepare_v2(db, "SELECT max(id) FROM profiles", -1, &st, NULL) != SQLITE_OK) {
            sqlite3_finalize(st);
            return db_fail(err, db, "profiles");
        }
        if (sqlite3_step(st) == SQLITE_ROW) id = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        if (id <= 0) return TTA_OK; /* none stored */
    }
    if (sqlite3_prepare_v2(db,
                           "SELECT " PROFILE_COLUMNS " FROM profiles WHERE id = ?1 OR (sweep IS NOT NULL AND "
                           "sweep = (SELECT sweep FROM profiles WHERE id = ?1)) ORDER BY batch, id",
                           -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return db_fail(err, db, "profiles");
    }
    sqlite3_bind_int64(st, 1, id);
    size_t cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        growArray(*rows, &cap, *n + 1);
        read_profile(st, &(*rows)[*n]);
        if ((*rows)[*n].id == id) *sel = *n;
        (*n)++;
    }
    sqlite3_finalize(st);
    if (*n == 0)
        return tta_fail(err, TTA_ENOTFOUND, "no profile %lld (`tta report profile` lists the stored ones)",
                        (long long)id);
    return TTA_OK;
}

int tta_db_profile_layers(sqlite3 *db, int64_t profile_id, tta_profile_layer_row **rows, size_t *n, tta_error *err) {
    assert(db && rows && n);
    sqlite3_stmt *st = NULL;
    *rows = NULL;
    *n = 0;
    if (sqlite3_prepare_v2(db,
                           "SELECT name, type, coalesce(fused_into, ''), flops, bytes, time_s, gflops, intensity, "
                           "coalesce(algorithm, '') "
                           "FROM profile_layers WHERE profile_id = ?1 ORDER BY idx",
                           -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return db_fail(err, db, "profile_layers");
    }
    sqlite3_bind_int64(st, 1, profile_id);
    size_t cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        growArray(*rows, &cap, *n + 1);
        tta_profile_layer_row *L = &(*rows)[(*n)++];
        text_into(st, 0, L->name, sizeof L->name);
        text_into(st, 1, L->type, sizeof L->type);
        text_into(st, 2, L->fused_into, sizeof L->fused_into);
        L->flops = db_col_real(st, 3);
        L->bytes = db_col_real(st, 4);
        L->time_s = db_col_real(st, 5);
        L->gflops = db_col_real(st, 6);
        L->intensity = db_col_real(st, 7);
        text_into(st, 8, L->algorithm, sizeof L->algorithm);
    }
    sqlite3_finalize(st);
    return TTA_OK;
}

int tta_db_host_peaks(sqlite3 *db, const char *host, int threads, tta_host_peaks *out) {
    assert(db && host && out);
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT sgemm_gflops, mem_gbs, threads FROM latest_peaks WHERE host = ?1 AND device = 'cpu' "
                           "ORDER BY abs(threads - ?2), threads DESC LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return 0;
    }
    sqlite3_bind_text(st, 1, host, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, threads);
    int found = 0;
    if (sqlite3_step(st) == SQLITE_ROW) {
        out->sgemm_gflops = sqlite3_column_double(st, 0);
        out->mem_gbs = sqlite3_column_double(st, 1);
        out->threads = sqlite3_column_int(st, 2);
        found = 1;
    }
    sqlite3_finalize(st);
    return found;
}
