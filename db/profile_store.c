/* profile_store.c: profiles and host peaks into the database (see db.h). The JSON
 * documents are the ones `tta profile` prints, so a profile can be stored again from its file;
 * a profile's member names are common/profile_json.h's, which replay/ writes with. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "common/check.h"
#include "common/profile_json.h"
#include "db/writer.h"

/* A number member, or NAN when absent or not a number. */
static double num(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}
static const char *str(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void bind_num_or_null(sqlite3_stmt *st, int i, double v) {
    if (isfinite(v)) sqlite3_bind_double(st, i, v);
    else sqlite3_bind_null(st, i);
}

int tta_store_profile(sqlite3 *db, const char *json, int64_t sweep, int64_t *id, tta_error *err) {
    cJSON *root = cJSON_Parse(json);
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return tta_fail(err, TTA_EINPUT, "profile: not a JSON object");
    }
    const cJSON *mem = cJSON_GetObjectItemCaseSensitive(root, TTA_PROFILE_MEMORY);
    const cJSON *phases = cJSON_GetObjectItemCaseSensitive(root, TTA_PROFILE_PHASES);
    const cJSON *layers = cJSON_GetObjectItemCaseSensitive(root, TTA_PROFILE_LAYERS);
    /* the step's rates stored (columns step_s .. gflops), its phases (data_s .. unattributed_s) and
     * memory categories (mem_weights .. mem_total), in the columns' order */
    static const tta_profile_rate rates[] = {TTA_PROFILE_STEP_S, TTA_PROFILE_SAMPLES_PER_S, TTA_PROFILE_FLOPS_PER_STEP,
                                             TTA_PROFILE_BYTES_PER_STEP, TTA_PROFILE_GFLOPS};
    static const tta_profile_phase phase_cols[] = {TTA_PHASE_DATA_S, TTA_PHASE_FORWARD_S, TTA_PHASE_BACKWARD_S,
                                                   TTA_PHASE_OPTIMIZER_S, TTA_PHASE_UNATTRIBUTED_S};
    static const tta_profile_memory required_mem[] = {TTA_PMEM_WEIGHTS,      TTA_PMEM_WEIGHT_GRADS,
                                                      TTA_PMEM_OPTIMIZER_STATE, TTA_PMEM_FEATURE_MAPS,
                                                      TTA_PMEM_WORKSPACE,    TTA_PMEM_DATA, TTA_PMEM_TOTAL};
    const char *required_num[] = {TTA_PROFILE_THREADS, TTA_PROFILE_BATCH, TTA_PROFILE_WARMUP_STEPS,
                                  TTA_PROFILE_MEASURED_STEPS};
    int rc = TTA_EINPUT;
    if (!str(root, TTA_PROFILE_HOST) || !str(root, TTA_PROFILE_DEVICE) || !str(root, TTA_PROFILE_MODEL)) {
        rc = tta_fail(err, TTA_EINPUT, "profile: host, device and model must be strings");
        goto out;
    }
    for (size_t i = 0; i < sizeof required_num / sizeof *required_num + sizeof rates / sizeof *rates; i++) {
        size_t k = i - sizeof required_num / sizeof *required_num;
        const char *name = i < sizeof required_num / sizeof *required_num ? required_num[i]
                                                                           : tta_profile_rate_names[rates[k]];
        if (isnan(num(root, name))) {
            rc = tta_fail(err, TTA_EINPUT, "profile: %s: missing or not a number", name);
            goto out;
        }
    }
    if (!cJSON_IsObject(mem) || !cJSON_IsArray(layers)) {
        rc = tta_fail(err, TTA_EINPUT, "profile: memory (an object) and layers (an array) are required");
        goto out;
    }
    for (size_t i = 0; i < sizeof required_mem / sizeof *required_mem; i++)
        if (isnan(num(mem, tta_profile_memory_names[required_mem[i]]))) {
            rc = tta_fail(err, TTA_EINPUT, "profile: " TTA_PROFILE_MEMORY ".%s: missing or not a number",
                          tta_profile_memory_names[required_mem[i]]);
            goto out;
        }
    if (sqlite3_exec(db, "SAVEPOINT store_profile", NULL, NULL, NULL) != SQLITE_OK) {
        rc = tta_fail(err, TTA_EDB, "profile: %s", sqlite3_errmsg(db));
        goto out;
    }
    sqlite3_stmt *st = NULL;
    const char *sql =
        "INSERT INTO profiles (sweep, host, device, threads, spec, model, batch, warmup_steps, settled, "
        "measured_steps, step_s, samples_per_s, flops_per_step, bytes_per_step, gflops, data_s, forward_s, "
        "backward_s, optimizer_s, unattributed_s, mem_weights, mem_weight_grads, mem_optimizer_state, "
        "mem_feature_maps, mem_workspace, mem_data, mem_total, json) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, "
        "?22, ?23, ?24, ?25, ?26, ?27, ?28)";
    int ok = sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK;
    if (ok) {
        if (sweep > 0) sqlite3_bind_int64(st, 1, sweep);
        else sqlite3_bind_null(st, 1);
        sqlite3_bind_text(st, 2, str(root, TTA_PROFILE_HOST), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 3, str(root, TTA_PROFILE_DEVICE), -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(st, 4, (int)num(root, TTA_PROFILE_THREADS));
        if (str(root, TTA_PROFILE_SPEC)) sqlite3_bind_text(st, 5, str(root, TTA_PROFILE_SPEC), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 6, str(root, TTA_PROFILE_MODEL), -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(st, 7, (int)num(root, TTA_PROFILE_BATCH));
        sqlite3_bind_int(st, 8, (int)num(root, TTA_PROFILE_WARMUP_STEPS));
        sqlite3_bind_int(st, 9, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, TTA_PROFILE_SETTLED)));
        sqlite3_bind_int(st, 10, (int)num(root, TTA_PROFILE_MEASURED_STEPS));
        for (int i = 0; i < 5; i++) bind_num_or_null(st, 11 + i, num(root, tta_profile_rate_names[rates[i]]));
        for (int i = 0; i < 5; i++) bind_num_or_null(st, 16 + i, num(phases, tta_profile_phase_names[phase_cols[i]]));
        for (int i = 0; i < 7; i++)
            sqlite3_bind_int64(st, 21 + i, (sqlite3_int64)num(mem, tta_profile_memory_names[required_mem[i]]));
        sqlite3_bind_text(st, 28, json, -1, SQLITE_TRANSIENT);
        ok = sqlite3_step(st) == SQLITE_DONE;
    }
    sqlite3_finalize(st);
    int64_t pid = sqlite3_last_insert_rowid(db);
    if (ok && sweep < 0) {
        char q[128];
        snprintf(q, sizeof q, "UPDATE profiles SET sweep = id WHERE id = %lld", (long long)pid);
        ok = sqlite3_exec(db, q, NULL, NULL, NULL) == SQLITE_OK;
    }
    if (ok)
        ok = sqlite3_prepare_v2(db,
                                "INSERT INTO profile_layers (profile_id, idx, name, type, fused_into, flops, bytes, "
                                "time_s, gflops, intensity, algorithm) "
                                "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                                -1, &st, NULL) == SQLITE_OK;
    int idx = 0;
    const cJSON *L;
    if (ok) {
        cJSON_ArrayForEach(L, layers) {
            const char *const *k = tta_profile_layer_names;
            if (!str(L, TTA_LAYER_NAME) || !str(L, TTA_LAYER_TYPE) || isnan(num(L, k[TTA_LAYER_FLOPS])) ||
                isnan(num(L, k[TTA_LAYER_BYTES])) || isnan(num(L, k[TTA_LAYER_TIME_S]))) {
                sqlite3_finalize(st);
                sqlite3_exec(db, "ROLLBACK TO store_profile; RELEASE store_profile", NULL, NULL, NULL);
                rc = tta_fail(err, TTA_EINPUT, "profile: layers[%d]: name, type, flops, bytes and time_s are required", idx);
                goto out;
            }
            sqlite3_reset(st);
            sqlite3_bind_int64(st, 1, pid);
            sqlite3_bind_int(st, 2, idx++);
            sqlite3_bind_text(st, 3, str(L, TTA_LAYER_NAME), -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(st, 4, str(L, TTA_LAYER_TYPE), -1, SQLITE_TRANSIENT);
            const char *fused = str(L, TTA_LAYER_FUSED_INTO);
            if (fused) sqlite3_bind_text(st, 5, fused, -1, SQLITE_TRANSIENT);
            else sqlite3_bind_null(st, 5);
            sqlite3_bind_double(st, 6, num(L, k[TTA_LAYER_FLOPS]));
            sqlite3_bind_double(st, 7, num(L, k[TTA_LAYER_BYTES]));
            sqlite3_bind_double(st, 8, num(L, k[TTA_LAYER_TIME_S]));
            bind_num_or_null(st, 9, num(L, k[TTA_LAYER_GFLOPS]));
            bind_num_or_null(st, 10, num(L, k[TTA_LAYER_INTENSITY]));
            const char *algorithm = str(L, TTA_LAYER_ALGORITHM);
            if (algorithm) sqlite3_bind_text(st, 11, algorithm, -1, SQLITE_TRANSIENT);
            else sqlite3_bind_null(st, 11);
            if (sqlite3_step(st) != SQLITE_DONE) {
                ok = 0;
                break;
            }
        }
        sqlite3_finalize(st);
    }
    if (!ok) {
        rc = tta_fail(err, TTA_EDB, "profile: %s", sqlite3_errmsg(db));
        sqlite3_exec(db, "ROLLBACK TO store_profile; RELEASE store_profile", NULL, NULL, NULL);
        goto out;
    }
    if (sqlite3_exec(db, "RELEASE store_profile", NULL, NULL, NULL) != SQLITE_OK) {
        rc = tta_fail(err, TTA_EDB, "profile: %s", sqlite3_errmsg(db));
        goto out;
    }
    if (id) *id = pid;
    rc = TTA_OK;
out:
    cJSON_Delete(root);
    return rc;
}

int tta_store_peaks(sqlite3 *db, const char *json, tta_error *err) {
    cJSON *root = cJSON_Parse(json);
    int rc = TTA_EINPUT;
    if (!cJSON_IsObject(root)) {
        rc = tta_fail(err, TTA_EINPUT, "peaks: not a JSON object");
    } else if (!str(root, "host") || !str(root, "device") || !(num(root, "threads") >= 1) ||
               !(num(root, "sgemm_gflops") > 0) || !(num(root, "mem_gbs") > 0)) {
        rc = tta_fail(err, TTA_EINPUT, "peaks: host, device, threads >= 1, sgemm_gflops > 0 and mem_gbs > 0 are required");
    } else {
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(db,
                               "INSERT INTO host_peaks (host, device, threads, sgemm_gflops, mem_gbs, copy_gbs) "
                               "VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                               -1, &st, NULL) == SQLITE_OK) {
            sqlite3_bind_text(st, 1, str(root, "host"), -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(st, 2, str(root, "device"), -1, SQLITE_TRANSIENT);
            sqlite3_bind_int(st, 3, (int)num(root, "threads"));
            sqlite3_bind_double(st, 4, num(root, "sgemm_gflops"));
            sqlite3_bind_double(st, 5, num(root, "mem_gbs"));
            bind_num_or_null(st, 6, num(root, "copy_gbs"));
            if (sqlite3_step(st) == SQLITE_DONE) rc = TTA_OK;
        }
        if (rc) rc = tta_fail(err, TTA_EDB, "peaks: %s", sqlite3_errmsg(db));
        sqlite3_finalize(st);
    }
    cJSON_Delete(root);
    return rc;
}
