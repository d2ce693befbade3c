/* test_parse_v05.c: MLPerf v0.5 ":::MLPv0.5.0" logs and entry.json on the fixtures: a complete
 * Google GNMT entry, Intel NCF (shell output between records, a failed run) and ResNet (an
 * evaluation before the first epoch), BLEU printed in float32. Expected values were read from
 * the fixtures with Python. */
#include "test_parse_util.h"

#define GNMT "fixtures/mlperf/v0.5/v0.5.0/google/cloud_v3.8/gnmt-tpuv3-8/results/tpu/"

TEST(gnmt_entry) {
    static const double start[10] = {1544232771.4363604, 1544232858.3419185, 1544232796.4947672, 1544232787.5811799,
                                     1544232773.4774091, 1544232785.3725996, 1544232848.853445,  1544233120.4442647,
                                     1544232840.040468,  1544232886.8021364};
    static const double last[10] = {22.57, 22.4, 22.63, 22.51, 22.48, 22.52, 22.68, 22.48, 22.39, 22.47};
    double seconds[10];
    for (int i = 0; i < 10; i++) {
        char path[256];
        snprintf(path, sizeof path, GNMT "gnmt/result_%d.txt", i);
        tta_parsed_file f = parse_path(path);
        const tta_run_record *r = &f.run;
        CHECK(f.format == TTA_FMT_MLPERF_V05 && !f.failed);
        CHECK(isnan(r->init_start_s) && isnan(r->init_stop_s)); /* v0.5 logs no init_start/init_stop */
        CHECK_STR(r->round, "v0.5");
        CHECK_STR(r->submitter, "google");
        CHECK_STR(r->system, "cloud_v3.8"); /* the platform folder: "tpu" alone is every TPU */
        CHECK_STR(r->benchmark, "gnmt");
        CHECK(r->run_index == i);
        CHECK_NEAR(r->run_start_s, start[i], 1e-6);
        CHECK(r->status == TTA_RUN_SUCCESS); /* {"success": true} */
        CHECK(r->n_evals == 2);
        if (r->n_evals == 2) {
            CHECK(r->evals[0].epoch == 1); /* "epoch": 0, counted from 1 */
            CHECK(r->evals[0].line == 46);
            CHECK_NEAR(r->evals[1].quality, last[i], 1e-12); /* BLEU points as logged */
        }
        CHECK(r->target == 21.8);
        CHECK(epoch_reaching(r, r->target) == 2);
        CHECK(f.n_events == 91);
        CHECK(events_are_json(&f));
        seconds[i] = r->run_stop_s - r->run_start_s;
        tta_parsed_free(&f);
    }
    /* Olympic mean of 10 runs drops one on each side. */
    CHECK_NEAR(olympic_minutes(seconds, 10), 26.314338763058185, 1e-6);
}

TEST(gnmt_values) {
    tta_parsed_file f = parse_path(GNMT "gnmt/result_4.txt");
    const tta_run_record *r = &f.run;
    CHECK_NEAR(r->run_stop_s, 1544234336.7906258, 1e-6);
    CHECK(r->has_seed && r->seed == 1);
    /* Bare and JSON values become JSON text; "(file:line)" becomes metadata. */
    CHECK(str_is(f.events[0].key, "run_clear_caches") && str_is(f.events[0].value, "null"));
    CHECK(str_is(f.events[0].metadata, "{\"file\":\"<string>\",\"lineno\":1}"));
    CHECK(str_is(f.events[1].value, "{\"src\": 32316, \"tgt\": 32316}"));
    CHECK(str_is(f.events[12].key, "input_order") && str_is(f.events[12].value, "\"time_major\""));
    const tta_kv *lr = hparam(r, "opt_learning_rate");
    CHECK(lr && str_is(lr->value, "0.002"));
    tta_parsed_free(&f);
}

/* 21.799999237 meets 21.8 within the store's float32 tolerance: kept exactly as logged. */
TEST(gnmt_float_bleu) {
    tta_parsed_file f = parse_path("fixtures/quirks/gnmt_bleu_float.txt");
    CHECK(f.run.n_evals == 2);
    if (f.run.n_evals == 2) CHECK(f.run.evals[1].quality == 21.799999237060547);
    CHECK(epoch_reaching(&f.run, 21.8) == 2);
    tta_parsed_free(&f);
}

TEST(entry_json) {
    tta_parsed_file f = parse_path(GNMT "entry.json");
    const tta_system_record *s = &f.system;
    CHECK(f.format == TTA_FMT_ENTRY_JSON && !f.failed);
    CHECK_STR(s->round, "v0.5");
    CHECK_STR(s->submitter, "google");
    CHECK_STR(s->name, "cloud_v3.8"); /* the same name its runs get */
    CHECK_STR(s->division, "closed");
    CHECK_STR(s->accelerator_model, "tpuv3-8");
    CHECK(s->nodes == 1 && s->accelerators_per_node == 8 && s->accelerators == 8);
    CHECK_STR(s->framework, "TensorFlow 1.12");
    tta_parsed_free(&f);
    /* CPU only: "accelerator": "NA", "num_accelerators": 0 */
    f = parse_path("fixtures/mlperf/v0.5/v0.5.0/intel/intel_ncf_submission/results/skx8180/entry.json");
    CHECK_STR(f.system.name, "skx8180");
    CHECK(f.system.accelerators == 0);
    CHECK(f.system.accelerator_model == NULL);
    CHECK_STR(f.system.host_processor, "Intel(R) Xeon(R) Platinum 8180 CPU @ 2.50GHz");
    tta_parsed_free(&f);
}

/* The node group of google/research_v3.512/resnet-tpuv3-512/results/tpu/entry.json (v0.5 corpus,
 * verbatim): 512 is the tpuv3-512 slice on 32 hosts, not 512 per host. */
static const char tpu_pod_entry[] =
    "{\"division\": \"closed\", \"status\": \"research\", \"hardware\": \"tpuv3-512 + tpuv2-8\",\n"
    " \"nodes\": [{\"num_nodes\": 32, \"cpu\": \"Intel Skylake\", \"num_cores\": 0, \"num_vcpus\": 32,\n"
    " \"accelerator\": \"tpuv3-512\", \"num_accelerators\": 512, \"sys_mem_size\": 120}]}";

TEST(entry_json_pod_slice) {
    tta_parsed_file f = parse_text("v0.5.0/google/research_v3.512/resnet-tpuv3-512/results/tpu/entry.json", tpu_pod_entry);
    CHECK(f.format == TTA_FMT_ENTRY_JSON && !f.failed);
    CHECK_STR(f.system.accelerator_model, "tpuv3-512");
    CHECK(f.system.nodes == 32);
    CHECK(f.system.accelerators == 512);
    CHECK(f.system.accelerators_per_node == 16);
    tta_parsed_free(&f);
    /* research_v3.32: tpuv3-32 on 2 hosts */
    f = parse_text("v0.5.0/google/research_v3.32/ssd-tpuv3-32/results/tpu/entry.json",
                   "{\"division\": \"closed\", \"nodes\": [{\"num_nodes\": 2, \"accelerator\": \"tpuv3-32\", "
                   "\"num_accelerators\": 32}]}");
    CHECK(f.system.nodes == 2 && f.system.accelerators == 32 && f.system.accelerators_per_node == 16);
    tta_parsed_free(&f);
    /* Synthetic: a GPU pod (DGX-2H, 36 nodes of 16 V100): the name ends in "-32GB", no slice size,
     * so 16 is per node. */
    f = parse_text("v0.5.0/nvidia/results/dgx2h_n36/entry.json",
                   "{\"division\": \"closed\", \"nodes\": [{\"num_nodes\": 36, \"accelerator\": \"Tesla V100-SXM3-32GB\", "
                   "\"num_accelerators\": 16}]}");
    CHECK(f.system.nodes == 36 && f.system.accelerators == 576 && f.system.accelerators_per_node == 16);
    tta_parsed_free(&f);
    /* Synthetic: a slice name whose size is not the count (8 per host of a tpuv2-8 each): per node. */
    f = parse_text("v0.5.0/x/results/y/entry.json",
                   "{\"nodes\": [{\"num_nodes\": 4, \"accelerator\": \"tpuv2-8\", \"num_accelerators\": 2}]}");
    CHECK(f.system.nodes == 4 && f.system.accelerators == 8 && f.system.accelerators_per_node == 2);
    tta_parsed_free(&f);
}

TEST(intel_ncf_noise_and_failure) {
    tta_parsed_file f = parse_path("fixtures/mlperf/v0.5/v0.5.0/intel/intel_ncf_submission/results/skx8180/ncf/result_0.txt");
    const tta_run_record *r = &f.run;
    CHECK(!f.failed);
    CHECK_STR(r->submitter, "intel");
    CHECK_STR(r->system, "skx8180");
    CHECK_STR(r->benchmark, "ncf");
    CHECK_NEAR(r->run_start_s, 1542308773.108, 1e-6);
    CHECK_NEAR(r->run_stop_s, 1542313087.790, 1e-6);
    CHECK(r->status == TTA_RUN_ABORTED); /* {"success": false} */
    CHECK(r->n_evals == 20);
    if (r->n_evals == 20) {
        CHECK(r->evals[0].line == 99);
        CHECK_NEAR(r->evals[0].quality, 0.5348285, 1e-12);
        CHECK_NEAR(r->evals[19].quality, 0.6171359, 1e-12);
    }
    CHECK(isnan(epoch_reaching(r, 0.635)));
    CHECK(f.n_events == 196);
    CHECK(r->has_seed && r->seed == 1542308759);
    CHECK(events_are_json(&f));
    tta_parsed_free(&f);
    f = parse_path("fixtures/quirks/noise.txt");
    CHECK(!f.failed && f.n_events == 19);
    CHECK(f.run.status == TTA_RUN_ABORTED);
    tta_parsed_free(&f);
}

/* Intel's Caffe logs evaluate before training ("epoch": -1), with whole-second times. */
TEST(intel_resnet) {
    tta_parsed_file f = parse_path("fixtures/mlperf/v0.5/v0.5.0/intel/intel_resnet_submission/results/skx_8180_2s_1x/resnet/result_0.txt");
    const tta_run_record *r = &f.run;
    CHECK(!f.failed);
    CHECK(r->run_start_s == 1540939905 && r->run_stop_s == 1541567986);
    CHECK(r->n_evals == 65);
    if (r->n_evals == 65) {
        CHECK(r->evals[0].epoch == 0);
        CHECK(r->evals[0].line == 306);
        CHECK(r->evals[64].quality == 0.74914);
    }
    CHECK(epoch_reaching(r, 0.749) == 64);
    CHECK(r->target == 0.749);
    CHECK(f.n_events == 757);
    tta_parsed_free(&f);
}

int main(void) {
    RUN(gnmt_entry);
    RUN(gnmt_values);
    RUN(gnmt_float_bleu);
    RUN(entry_json);
    RUN(entry_json_pod_slice);
    RUN(intel_ncf_noise_and_failure);
    RUN(intel_resnet);
    return test_summary();
}
