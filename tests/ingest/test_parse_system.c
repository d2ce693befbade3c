/* test_parse_system.c: system descriptions (systems/<name>.json of every round, with their
 * quirks: trailing commas, numbers as strings, "divison", v0.6 NVIDIA's log lines), DAWNBench
 * entry descriptions and their "hardware" strings, and descriptions that cannot be read. */
#include "test_parse_util.h"

TEST(v07_system) {
    tta_parsed_file f = parse_path("fixtures/mlperf/v0.7/NVIDIA/systems/dgxa100_n2_ngc20.06_mxnet.json");
    const tta_system_record *s = &f.system;
    CHECK(f.format == TTA_FMT_SYSTEM_JSON && !f.failed);
    CHECK_STR(s->round, "v0.7");
    CHECK_STR(s->submitter, "NVIDIA");
    CHECK_STR(s->name, "dgxa100_n2_ngc20.06_mxnet");
    CHECK_STR(s->division, "closed");
    CHECK_STR(s->status, "onprem");
    CHECK_STR(s->accelerator_model, "NVIDIA A100-SXM4-40GB (400W)");
    CHECK(s->nodes == 2 && s->accelerators_per_node == 8 && s->accelerators == 16);
    CHECK_STR(s->host_processor, "AMD EPYC 7742");
    CHECK_STR(s->framework, "MXNet NVIDIA Release 20.06");
    tta_json_span v;
    CHECK(s->raw_json && tta_json_whole(s->raw_json, s->raw_json + strlen(s->raw_json), &v) && v.type == TTA_JSON_OBJECT);
    tta_parsed_free(&f);
}

TEST(quirky_systems) {
    /* Alibaba: trailing comma, "divison", counts as strings */
    tta_parsed_file f = parse_path("fixtures/quirks/trailing_comma.json");
    CHECK(f.format == TTA_FMT_SYSTEM_JSON && !f.failed);
    CHECK_STR(f.system.division, "closed");
    CHECK(f.system.nodes == 32 && f.system.accelerators == 256);
    CHECK_STR(f.system.submitter, "Alibaba"); /* no systems/ folder: the JSON's submitter */
    CHECK_STR(f.system.name, "trailing_comma");
    tta_json_span v;
    CHECK(tta_json_whole(f.system.raw_json, f.system.raw_json + strlen(f.system.raw_json), &v));
    tta_parsed_free(&f);
    /* Google v0.6: "1 200 GB", "-" placeholders */
    f = parse_path("fixtures/quirks/numbers_as_strings.json");
    CHECK(!f.failed && f.system.accelerators == 64 && f.system.nodes == 1);
    CHECK_STR(f.system.accelerator_model, "tpu-v3");
    tta_parsed_free(&f);
    f = parse_path("fixtures/quirks/divison.json");
    CHECK_STR(f.system.division, "closed");
    CHECK(f.system.accelerators == 8);
    tta_parsed_free(&f);
    /* v0.6 NVIDIA: the log's "key: {"value": ...}" lines, a Python dict in a string */
    f = parse_path("fixtures/quirks/systems/log_lines.json");
    CHECK(f.format == TTA_FMT_SYSTEM_JSON && !f.failed);
    CHECK_STR(f.system.division, "closed");
    CHECK(f.system.nodes == 130 && f.system.accelerators_per_node == 8 && f.system.accelerators == 1040);
    CHECK_STR(f.system.accelerator_model, "Tesla V100-SXM2-16GB");
    CHECK_STR(f.system.framework, "MXNet NVIDIA Release 19.05");
    CHECK(f.system.raw_json && strstr(f.system.raw_json, "\"entry\":{"));
    tta_parsed_free(&f);
    /* v0.6 Intel: "sumitter", "number of nodes", a CPU-only nodes list */
    f = parse_path("fixtures/mlperf/v0.6/Intel/systems/clx-8260l-2s-x32.json");
    CHECK(f.system.nodes == 32 && f.system.accelerators == 0 && f.system.accelerator_model == NULL);
    tta_parsed_free(&f);
}

/* A DAWNBench description's hardware string as a system. */
static tta_system_record hardware(tta_parsed_file *f, const char *hw) {
    char text[512];
    snprintf(text, sizeof text, "{\"author\": \"A\", \"hardware\": \"%s\", \"framework\": \"F\"}", hw);
    *f = parse_text("dawn/CIFAR10/train/entry_x.json", text);
    CHECK(f->format == TTA_FMT_DAWNBENCH_JSON && !f->failed);
    return f->system;
}

TEST(node_count_from_system_name) {
    /* DellEMC v0.7 describes 2xC4140 without number_of_nodes (the official summarizer stops on
     * it): the name says two nodes of four V100s. */
    tta_parsed_file f = parse_path("fixtures/mlperf/v0.7/DellEMC/systems/2xC4140.json");
    CHECK(!f.failed);
    CHECK(f.system.nodes == 2);
    CHECK(f.system.accelerators_per_node == 4);
    CHECK(f.system.accelerators == 8);
    tta_parsed_free(&f);
    f = parse_text("NVIDIA/systems/dgxa100_n32_ngc20.06_pytorch.json",
                   "{\"accelerators_per_node\": \"8\", \"accelerator_model_name\": \"A100\"}");
    CHECK(f.system.nodes == 32 && f.system.accelerators == 256);
    tta_parsed_free(&f);
    f = parse_text("Intel/systems/4-nodes-16s-cpx-pytorch.json",
                   "{\"accelerators_per_node\": \"0\", \"accelerator_model_name\": \"N/A\"}");
    CHECK(f.system.nodes == 4 && f.system.accelerators == 0);
    tta_parsed_free(&f);
    f = parse_text("X/systems/C4140.json", "{\"accelerators_per_node\": 4}");
    CHECK(f.system.accelerators != 8); /* no count in the name: not guessed as two */
    tta_parsed_free(&f);
}

TEST(dawnbench_hardware) {
    static const struct {
        const char *hw;
        int accelerators;
        const char *model;
    } cases[] = {
        {"8 * V100 (AWS p3.16xlarge)", 8, "V100"},
        {"1 TPUv2", 1, "TPUv2"},
        {"4xV100", 4, "V100"},
        {"1 x TPUv2", 1, "TPUv2"},
        {"Tesla V100 * 4 GPU / 488 GB / 56 CPU (Kakao Brain BrainCloud)", 4, "V100"},
        {"8 nodes with InfiniBand (8*P100 for each node)", 64, "P100"},
        {"16 * 8 * Tesla-V100(ModelArts Service)", 128, "Tesla-V100"},
        {"Lambda GPU Cloud - 4x GTX 1080 Ti", 4, "GTX 1080"},
        {"1 GPU (Nvidia GeForce GTX 1080 Ti)", 1, "GTX 1080"},
        {"V100 (AWS p3.2xlarge)", 1, "V100"},
        {"IBM AC922 + 4 * Nvidia Tesla V100 (NCSA HAL)", 4, "V100"},
        {"Baidu Cloud Tesla 8*V100-16GB/448 GB/96 CPU", 8, "V100-16GB"},
        {"60 GB / 16 CPU (Google Cloud [n1-standard-16])", -1, NULL},
        {"p3.16xlarge", -1, NULL},
        {"2 vCPU AMD EPYC (Zen 4), no GPU", 0, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tta_parsed_file f;
        tta_system_record s = hardware(&f, cases[i].hw);
        if (s.accelerators != cases[i].accelerators) fprintf(stderr, "hardware \"%s\": %d\n", cases[i].hw, s.accelerators);
        CHECK(s.accelerators == cases[i].accelerators);
        if (cases[i].model)
            CHECK_STR(s.accelerator_model, cases[i].model);
        else
            CHECK(s.accelerator_model == NULL);
        tta_parsed_free(&f);
    }
}

TEST(dawnbench_description) {
    tta_parsed_file f = parse_path("fixtures/dawnbench/CIFAR10/train/davidcpage_resnet9_1v100-ec2_pytorch.json");
    const tta_system_record *s = &f.system;
    CHECK(f.format == TTA_FMT_DAWNBENCH_JSON && !f.failed);
    CHECK_STR(s->round, "dawnbench");
    CHECK_STR(s->name, "davidcpage_resnet9_1v100-ec2_pytorch"); /* the system name its TSV's run gets */
    CHECK_STR(s->submitter, "David Page, myrtle.ai");
    CHECK_STR(s->division, "open");
    CHECK(s->accelerators == 1);
    CHECK_STR(s->accelerator_model, "V100");
    CHECK_STR(s->framework, "pytorch 0.4.0");
    tta_parsed_free(&f);
}

TEST(unreadable_descriptions) {
    tta_parsed_file f = parse_text("x/systems/box.json", "\n\n{\"division\": \"closed\", \"nodes\": [1, 2\n");
    CHECK(f.format == TTA_FMT_SYSTEM_JSON && f.failed);
    CHECK_STR(f.error, "x/systems/box.json:3: not a JSON object even read leniently");
    tta_parsed_free(&f);
    /* JSON that is not a description tta knows: not read at all. */
    f = parse_text("x/package.json", "{\"name\": \"tta\", \"version\": \"1\"}");
    CHECK(f.format == TTA_FMT_UNKNOWN && !f.failed);
    tta_parsed_free(&f);
}

int main(void) {
    RUN(v07_system);
    RUN(quirky_systems);
    RUN(node_count_from_system_name);
    RUN(dawnbench_hardware);
    RUN(dawnbench_description);
    RUN(unreadable_descriptions);
    return test_summary();
}
