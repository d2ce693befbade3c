/* test_profile_json.c: the profile JSON that replay/ writes (tta_profile_json) carries every member
 * common/profile_json.h names, with the profile's values, and db/ stores that JSON into the profiles
 * and profile_layers columns with the same values: writer and reader share one list of names, so a
 * name changed on one side only fails here. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/profile_json.h"
#include "db/db.h"
#include "replay/replay.h"
#include "test_sql.h"
#include "tta_test.h"

/* A profile with a distinct value in every field. */
static void make_profile(tta_profile_result *r, tta_profile_layer *layers, double *trace) {
    memset(r, 0, sizeof *r);
    snprintf(r->model, sizeof r->model, "mlp");
    snprintf(r->device, sizeof r->device, "cpu");
    r->threads = 2, r->batch = 64, r->warmup_steps = 11, r->settled = 1, r->measured_steps = 8;
    r->step_s = 0.5, r->samples_per_s = 128, r->flops_per_step = 3e9, r->bytes_per_step = 2e8, r->gflops = 6,
    r->intensity = 15;
    r->data_s = 0.01, r->forward_s = 0.125, r->backward_s = 0.25, r->optimizer_s = 0.0625, r->layers_s = 0.375,
    r->unattributed_s = 0.0525;
    size_t *mem[TTA_PMEM_COUNT] = {
        [TTA_PMEM_WEIGHTS] = &r->mem_weights,
        [TTA_PMEM_WEIGHT_GRADS] = &r->mem_weight_grads,
        [TTA_PMEM_OPTIMIZER_STATE] = &r->mem_optimizer_state,
        [TTA_PMEM_FEATURE_MAPS] = &r->mem_feature_maps,
        [TTA_PMEM_WORKSPACE] = &r->mem_workspace,
        [TTA_PMEM_DATA] = &r->mem_data,
        [TTA_PMEM_TOTAL] = &r->mem_total,
        [TTA_PMEM_BUFFERS] = &r->mem_buffers,
        [TTA_PMEM_ACTIVATIONS] = &r->mem_activations,
        [TTA_PMEM_ACTIVATION_GRADS] = &r->mem_activation_grads,
        [TTA_PMEM_SAVED] = &r->mem_saved,
        [TTA_PMEM_EVAL] = &r->mem_eval,
        [TTA_PMEM_HOST_COPIES] = &r->mem_host_copies,
        [TTA_PMEM_ALLOCATOR_TOTAL] = &r->allocator_total,
    };
    for (int i = 0; i < TTA_PMEM_COUNT; i++) *mem[i] = 1000 + (size_t)i;
    memset(layers, 0, 2 * sizeof *layers);
    snprintf(layers[0].name, sizeof layers[0].name, "fc1");
    snprintf(layers[0].type, sizeof layers[0].type, "linear");
    layers[0].flops = 4e6, layers[0].bytes = 5e5, layers[0].time_s = 0.2, layers[0].time_fwd_s = 0.05;
    layers[0].time_bwd_s = 0.15, layers[0].gflops = 0.02, layers[0].intensity = 8;
    snprintf(layers[1].name, sizeof layers[1].name, "relu1");
    snprintf(layers[1].type, sizeof layers[1].type, "relu");
    snprintf(layers[1].fused_into, sizeof layers[1].fused_into, "fc1");
    layers[1].flops = 1e4, layers[1].bytes = 2e4, layers[1].gflops = NAN, layers[1].intensity = 0.5;
    r->layers = layers;
    r->n_layers = 2;
    trace[0] = 0.75, trace[1] = 0.5;
    r->step_trace = trace;
    r->n_trace = 2;
}

TEST(json_has_every_name) {
    tta_profile_result r;
    tta_profile_layer layers[2];
    double trace[2];
    make_profile(&r, layers, trace);
    buf b = {0};
    tta_profile_json(&r, "box", "spec.json", &b);
    cJSON *j = cJSON_Parse(buf_str(&b));
    CHECK(cJSON_IsObject(j));
    if (!j) return;
    const double rates[TTA_PROFILE_RATES] = {0.5, 128, 3e9, 2e8, 6, 15};
    for (int i = 0; i < TTA_PROFILE_RATES; i++)
        CHECK(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(j, tta_profile_rate_names[i])) == rates[i]);
    const cJSON *ph = cJSON_GetObjectItemCaseSensitive(j, TTA_PROFILE_PHASES);
    const double phases[TTA_PHASES] = {0.01, 0.125, 0.25, 0.0625, 0.375, 0.0525};
    for (int i = 0; i < TTA_PHASES; i++)
        CHECK(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(ph, tta_profile_phase_names[i])) == phases[i]);
    const cJSON *mem = cJSON_GetObjectItemCaseSensitive(j, TTA_PROFILE_MEMORY);
    CHECK(cJSON_GetArraySize(mem) == TTA_PMEM_COUNT);
    for (int i = 0; i < TTA_PMEM_COUNT; i++)
        CHECK(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(mem, tta_profile_memory_names[i])) == 1000 + i);
    const cJSON *L = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, TTA_PROFILE_LAYERS), 0);
    CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(L, TTA_LAYER_NAME)), "fc1"));
    CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(L, TTA_LAYER_TYPE)), "linear"));
    const double lv[TTA_LAYER_NUMBERS] = {4e6, 5e5, 0.2, 0.05, 0.15, 0.02, 8};
    for (int i = 0; i < TTA_LAYER_NUMBERS; i++)
        CHECK(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(L, tta_profile_layer_names[i])) == lv[i]);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, TTA_PROFILE_STEP_TRACE)) == 2);
    CHECK(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(j, TTA_PROFILE_WARMUP_STEPS)) == 11);
    cJSON_Delete(j);
    buf_free(&b);
}

TEST(db_stores_what_replay_writes) {
    char path[128];
    snprintf(path, sizeof path, "/tmp/tta_test_profile_json_%d.db", (int)getpid());
    sqlite3 *db = test_db_fresh(path);
    CHECK(db != NULL);
    if (!db) return;
    tta_profile_result r;
    tta_profile_layer layers[2];
    double trace[2];
    make_profile(&r, layers, trace);
    buf b = {0};
    tta_profile_json(&r, "box", "spec.json", &b);
    int64_t id = 0;
    tta_error err;
    CHECK(tta_store_profile(db, buf_str(&b), 0, &id, &err) == TTA_OK && id > 0);
    CHECK(test_query_real(db, "SELECT count(*) FROM profiles WHERE host = 'box' AND device = 'cpu' AND model = 'mlp'"
                              " AND spec = 'spec.json' AND threads = 2 AND batch = 64 AND warmup_steps = 11"
                              " AND settled = 1 AND measured_steps = 8") == 1);
    CHECK(test_query_real(db, "SELECT count(*) FROM profiles WHERE step_s = 0.5 AND samples_per_s = 128"
                              " AND flops_per_step = 3e9 AND bytes_per_step = 2e8 AND gflops = 6") == 1);
    CHECK(test_query_real(db, "SELECT count(*) FROM profiles WHERE data_s = 0.01 AND forward_s = 0.125"
                              " AND backward_s = 0.25 AND optimizer_s = 0.0625 AND unattributed_s = 0.0525") == 1);
    CHECK(test_query_real(db, "SELECT count(*) FROM profiles WHERE mem_weights = 1000 AND mem_weight_grads = 1001"
                              " AND mem_optimizer_state = 1002 AND mem_feature_maps = 1003 AND mem_workspace = 1004"
                              " AND mem_data = 1005 AND mem_total = 1006") == 1);
    CHECK(test_query_real(db, "SELECT count(*) FROM profile_layers WHERE idx = 0 AND name = 'fc1' AND type = 'linear'"
                              " AND fused_into IS NULL AND flops = 4e6 AND bytes = 5e5 AND time_s = 0.2"
                              " AND gflops = 0.02 AND intensity = 8") == 1);
    CHECK(test_query_real(db, "SELECT count(*) FROM profile_layers WHERE idx = 1 AND fused_into = 'fc1'"
                              " AND time_s = 0 AND gflops IS NULL") == 1);
    buf_free(&b);
    sqlite3_close(db);
    test_db_unlink(path);
}

int main(void) {
    RUN(json_has_every_name);
    RUN(db_stores_what_replay_writes);
    return test_summary();
}
