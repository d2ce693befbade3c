/* test_parse_detect.c: format detection (content first, the path where content cannot tell),
 * identity from the results layouts, run numbers from file names, benchmark names. */
#include "ingest/benchmarks.h"
#include "ingest/pathmeta.h"
#include "test_parse_util.h"

static tta_format detect(const char *path, const char *text) { return tta_detect_format(path, text, strlen(text)); }

TEST(formats_by_content) {
    CHECK(detect("a/x.txt", "noise\n0: :::MLLOG {\"key\": \"run_start\"}\n") == TTA_FMT_MLLOG);
    CHECK(detect("a/x.txt", ":::SYSJSON {}\n") == TTA_FMT_MLLOG);
    CHECK(detect("a/x.log", ":::MLL 1560822800.706 submission_benchmark: {}\n") == TTA_FMT_MLPERF_V06);
    CHECK(detect("a/x", ":::MLPv0.5.0 resnet 1543785241.948 (<string>:1) run_clear_caches\n") == TTA_FMT_MLPERF_V05);
    CHECK(detect("a/x.txt", "MLPerf: resnet [06/13/19 00:30:56], run_start\n") == TTA_FMT_MLPERF_TEXT);
    CHECK(detect("a/x.txt", "MLPerf: resnet is fast\n") == TTA_FMT_UNKNOWN);
    CHECK(detect("a/x.txt", "epoch\thours\ttop1Accuracy\n1\t0.1\t50\n") == TTA_FMT_DAWNBENCH_TSV);
    CHECK(detect("a/x.tsv", "\xef\xbb\xbf" "hours\tepoch\ttop5Accuracy\r\n") == TTA_FMT_DAWNBENCH_TSV);
    CHECK(detect("a/x.tsv", "a\tb\n") == TTA_FMT_UNKNOWN);
    CHECK(detect("a/README.md", ":::MLLOG {}\n") == TTA_FMT_UNKNOWN);
    CHECK(detect("a/results.tgz", ":::MLLOG {}\n") == TTA_FMT_UNKNOWN);
    CHECK(detect("a/notes.txt", "nothing to see\n") == TTA_FMT_UNKNOWN);
    CHECK(detect("a/empty.txt", "") == TTA_FMT_UNKNOWN);
    /* A marker beyond the first 64 KB of shell output. */
    size_t n = 200000;
    char *big = malloc(n + 64);
    memset(big, 'x', n);
    for (size_t i = 100; i < n; i += 100) big[i] = '\n';
    strcpy(big + n, "\n:::MLLOG {\"key\": \"run_start\"}\n");
    CHECK(tta_detect_format("a/log.txt", big, strlen(big)) == TTA_FMT_MLLOG);
    /* Binary: NUL bytes and no marker in the first 64 KB. */
    big[10] = '\0';
    CHECK(tta_detect_format("a/log.bin", big, n + 40) == TTA_FMT_UNKNOWN);
    free(big);
}

TEST(json_kinds) {
    const char *sys = "{\"submitter\": \"X\", \"system_name\": \"box\", \"number_of_nodes\": \"1\"}";
    CHECK(detect("v0.7/X/systems/box.json", sys) == TTA_FMT_SYSTEM_JSON);
    CHECK(detect("elsewhere/box.json", sys) == TTA_FMT_SYSTEM_JSON);
    CHECK(detect("v0.7/X/systems/box.json", "org: {\"value\": \"NVIDIA\"}\n") == TTA_FMT_SYSTEM_JSON);
    CHECK(detect("v0.5.0/x/results/box/entry.json", "{\"division\": \"closed\"}") == TTA_FMT_ENTRY_JSON);
    CHECK(detect("d/CIFAR10/train/a.json", "{\"author\": \"A\", \"hardware\": \"1 V100\"}") == TTA_FMT_DAWNBENCH_JSON);
    CHECK(detect("d/tsconfig.json", "{\"compilerOptions\": {}}") == TTA_FMT_UNKNOWN);
}

TEST(power_and_copies) {
    const char *log = ":::MLLOG {\"key\": \"power_reading\", \"value\": 1}\n";
    CHECK(detect("v3.0/X/results/box/bert/power/result_2/node_1.txt", log) == TTA_FMT_POWER);
    CHECK(detect("v3.0/X/results/box/bert/result_2.txt", log) == TTA_FMT_MLLOG);
    /* A copy in a subfolder is a log; the walk skips it (tta_path_skip, tests/ingest/test_layout.c). */
    CHECK(detect("v0.7/X/results/box/resnet/logs/32_workers_0.log", log) == TTA_FMT_MLLOG);
    CHECK(detect("v3.1/X/results/box/bert/scaling.json", "{\"scaling_factor\": 1.04}") == TTA_FMT_SCALING);
    CHECK(detect("v0.7/X/results/box/result_1.txt", log) == TTA_FMT_MLLOG);
}

static tta_path_meta meta(tta_arena *a, const char *path) {
    tta_path_meta m;
    tta_path_meta_read(path, a, &m);
    return m;
}

TEST(layouts) {
    tta_arena a = {0};
    tta_path_meta m = meta(&a, "/tmp/corpus/v0.7/NVIDIA/results/dgxa100_ngc20.06_mxnet/resnet/result_3.txt");
    CHECK_STR(m.round, "v0.7");
    CHECK_STR(m.submitter, "NVIDIA");
    CHECK_STR(m.system, "dgxa100_ngc20.06_mxnet");
    CHECK_STR(m.benchmark, "resnet");
    CHECK(m.run_index == 3 && m.layout == TTA_LAYOUT_RESULTS && !m.auxiliary && !m.power);
    m = meta(&a, "x/v0.5/v0.5.0/google/cloud_v2.8/ssd-tpuv2-8/results/tpu/ssd/result_0.txt");
    CHECK_STR(m.round, "v0.5");
    CHECK_STR(m.submitter, "google");
    CHECK_STR(m.system, "cloud_v2.8");
    m = meta(&a, "v0.5.0/intel/intel_resnet_submission/results/skx_8180_2s_1x/resnet/result_4.txt");
    CHECK_STR(m.submitter, "intel");
    CHECK_STR(m.system, "skx_8180_2s_1x");
    m = meta(&a, "training_results_v1.0/closed/Acme/results/box/bert/result_0.txt");
    CHECK_STR(m.round, "v1.0");
    CHECK_STR(m.division, "closed");
    CHECK_STR(m.submitter, "Acme");
    m = meta(&a, "v0.6/Google/results/tpu-v3-32/mask/result_1.txt");
    CHECK_STR(m.benchmark, "maskrcnn");
    m = meta(&a, "v0.7/Alibaba/results/v100-256/result_5.txt");
    CHECK_STR(m.system, "v100-256");
    CHECK(m.benchmark == NULL && m.run_index == 5);
    m = meta(&a, "v0.7/NVIDIA/systems/dgxa100_ngc20.06_mxnet.json");
    CHECK(m.layout == TTA_LAYOUT_SYSTEMS);
    CHECK_STR(m.submitter, "NVIDIA");
    CHECK_STR(m.system, "dgxa100_ngc20.06_mxnet");
    m = meta(&a, "v3.0/X/results/box/bert/power/result_7/sw_0.txt");
    CHECK(m.power && m.run_index == 7);
    CHECK_STR(m.stem, "sw_0");
    m = meta(&a, "dawnbench/ImageNet/train/x_1v100.tsv");
    CHECK_STR(m.benchmark, "imagenet");
    CHECK(m.round == NULL);
    /* "cloud_v3.8" is a TPU, not a round */
    m = meta(&a, "google/cloud_v3.8/results/tpu/gnmt/result_0.txt");
    CHECK(m.round == NULL);
    /* MLPerf HPC: rounds of their own, strong/ and weak/ between the system and the benchmark */
    m = meta(&a, "/tmp/corpus/mlperf-hpc-v1.0/hpc-v1.0/NVIDIA/results/dgxa100_n512_ngc21.09_pytorch/weak/deepcam/"
                 "result_17.txt");
    CHECK_STR(m.round, "hpc-v1.0");
    CHECK_STR(m.submitter, "NVIDIA");
    CHECK_STR(m.system, "dgxa100_n512_ngc21.09_pytorch");
    CHECK_STR(m.benchmark, "deepcam");
    CHECK_STR(m.scaling, "weak");
    CHECK(m.run_index == 17 && m.in_benchmark && !m.auxiliary);
    m = meta(&a, "hpc_results_v2.0/HelmholtzAI/results/horeka_gpu_n512_pytorch1.13/strong/oc20/result_0.txt");
    CHECK_STR(m.round, "hpc-v2.0");
    CHECK_STR(m.scaling, "strong");
    CHECK_STR(m.benchmark, "oc20");
    m = meta(&a, "hpc-v2.0/X/results/box/weak/oc20/pruned_results/result_1.txt");
    CHECK(m.auxiliary && m.scaling && !m.in_benchmark);
    m = meta(&a, "hpc-v0.7/LBNL/results/corigpu_n64_pt1.6.0/deepcam/result_1.txt");
    CHECK_STR(m.round, "hpc-v0.7");
    CHECK(m.scaling == NULL);
    CHECK_STR(m.benchmark, "deepcam");
    /* a Training round named v1.0 stays v1.0 */
    m = meta(&a, "v1.0/X/results/box/strong/result_0.txt");
    CHECK_STR(m.round, "v1.0");
    tta_arena_free(&a);
}

TEST(run_numbers) {
    static const struct {
        const char *stem;
        int index;
    } cases[] = {{"result_0", 0},    {"result_12", 12},        {"result_run10", 10},  {"train_run3", 3},
                 {"32_workers_4", 4}, {"200711025203744603517_3", 3}, {"result_3_4n16r_32k_1593118427", 3},
                 {"notes", -1},      {"1593118427", -1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK(tta_trailing_index(cases[i].stem, strlen(cases[i].stem)) == cases[i].index);
}

TEST(benchmark_names) {
    CHECK_STR(tta_benchmark_canonical("image_classification", 20, NULL), "resnet");
    /* mlcommons/training's reference folders: object_detection is Mask R-CNN, single_stage_detector SSD. */
    CHECK_STR(tta_benchmark_canonical("object_detection", 16, "v0.5"), "maskrcnn");
    CHECK_STR(tta_benchmark_canonical("single_stage_detector", 21, "v0.5"), "ssd");
    CHECK_STR(tta_benchmark_canonical("recommendation", 14, "v0.5"), "ncf");
    CHECK_STR(tta_benchmark_canonical("recommendation", 14, "v0.7"), "dlrm");
    CHECK_STR(tta_benchmark_canonical("Fashion-MNIST", 13, NULL), "fashion-mnist");
    CHECK_STR(tta_benchmark_canonical("CIFAR10", 7, NULL), "cifar10");
    CHECK(tta_benchmark_canonical("results", 7, NULL) == NULL);
    CHECK(tta_benchmark_scale("gnmt", NULL) == TTA_SCALE_BLEU && tta_benchmark_scale("minigo", NULL) == TTA_SCALE_FRACTION);
    CHECK(tta_benchmark_scale("gpt3", NULL) == TTA_SCALE_ASIS && tta_benchmark_scale(NULL, NULL) == TTA_SCALE_ASIS);
    CHECK(tta_round_compare("v0.7", "v1.0") < 0 && tta_round_compare("v1.0", "v0.7") > 0);
}

TEST(names_and_free) {
    CHECK_STR(tta_format_name(TTA_FMT_MLLOG), "mllog");
    CHECK_STR(tta_format_name(TTA_FMT_UNKNOWN), "unknown");
    CHECK_STR(tta_run_status_name(TTA_RUN_ABORTED), "aborted");
    tta_parsed_file f = {0};
    CHECK(tta_parse_file("fixtures/no/such/file.txt", &f) == -1);
    CHECK(f.failed && f.error && strstr(f.error, "fixtures/no/such/file.txt:0: no such file"));
    tta_parsed_free(&f);
    CHECK(f.path == NULL && f.error == NULL && f.n_events == 0);
    /* A hash set by the caller is kept (ingest.c hashes first). */
    f.hash = 42;
    CHECK(tta_parse_buffer("x/a.txt", "hello", 5, &f) == 0 && f.hash == 42 && f.format == TTA_FMT_UNKNOWN);
    tta_parsed_free(&f);
}

int main(void) {
    RUN(formats_by_content);
    RUN(json_kinds);
    RUN(power_and_copies);
    RUN(layouts);
    RUN(run_numbers);
    RUN(benchmark_names);
    RUN(names_and_free);
    return test_summary();
}
