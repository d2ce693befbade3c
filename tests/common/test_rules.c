/* test_rules.c: the benchmark rules (common/rules.c): the built-in file is valid and complete,
 * lookups follow rounds and aliases, and a malformed rules file is refused (TTA_EINPUT) with a
 * reason naming the file and the line or element at fault. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/rules.h"
#include "tta_test.h"

/* Parses text as t.json; returns the error's line (in a static buffer), or NULL on success.
 * A refusal is TTA_EINPUT and leaves the rules empty. */
static const char *parse_error(const char *text) {
    static tta_error err;
    tta_rules r;
    int rc = tta_rules_parse(text, strlen(text), "t.json", &r, &err);
    if (rc == TTA_OK) {
        tta_rules_free(&r);
        return NULL;
    }
    CHECK(rc == TTA_EINPUT && err.code == TTA_EINPUT);
    CHECK(r.n_rules == 0 && r.rules == NULL && r.owner == NULL);
    return err.text;
}

#define MINIMAL_HEAD                                                                                      \
    "{\"version\": 3, \"sources\": {\"cc\": \"checker\", \"tta\": \"ours\"},"                              \
    " \"rounds\": [{\"round\": \"v1.0\", \"ruleset\": \"1.0.0\", \"suite\": \"mlperf\", \"source\": \"cc\"},"           \
    "            {\"round\": \"v2.0\", \"ruleset\": \"2.0.0\", \"suite\": \"mlperf\", \"source\": \"cc\"},"           \
    "            {\"round\": \"other\", \"ruleset\": \"o\", \"suite\": \"elsewhere\", \"source\": \"tta\"}],"        \
    " \"summary_columns\": [{\"ruleset\": \"2.0.0\", \"benchmarks\": [\"b\", \"a\"], \"source\": \"cc\"}],"
#define RULE(rs, b, extra)                                                                                \
    "{\"ruleset\": \"" rs "\", \"benchmark\": \"" b "\", \"metric\": \"acc\", \"log_key\": \"eval_accuracy\","  \
    " \"higher_is_better\": true, \"target\": 0.5, \"quality_scale\": \"fraction\", \"progress\": \"epoch_num\"," \
    " \"progress_unit\": \"epochs\", \"olympic_drop\": 1, \"max_failed\": 1, \"sources\": {\"target\": \"cc\"}" extra "}"

TEST(minimal_file_parses_and_looks_up) {
    const char *text = MINIMAL_HEAD
        " \"aliases\": [{\"name\": \"rec\", \"benchmark\": \"a\", \"before\": \"v2.0\"},"
        "               {\"name\": \"rec\", \"benchmark\": \"b\", \"from\": \"v2.0\"}],"
        " \"benchmarks\": [" RULE("1.0.0", "a", "") "," RULE("2.0.0", "b", ", \"runs_required\": 7") "]}";
    tta_rules r;
    tta_error err;
    CHECK(tta_rules_parse(text, strlen(text), "t.json", &r, &err) == TTA_OK);
    CHECK(r.version == 3 && r.n_rounds == 3 && r.n_rules == 2 && r.n_aliases == 2);
    CHECK(tta_rules_is_mlperf_round(&r, "v1.0") && tta_rules_is_mlperf_round(&r, "V2.0"));
    CHECK(!tta_rules_is_mlperf_round(&r, "other") && !tta_rules_is_mlperf_round(&r, "v9.9"));
    CHECK(!tta_rules_is_mlperf_round(&r, NULL));
    const tta_rule_columns *cols = tta_rules_summary_columns(&r, "2.0.0");
    CHECK(cols && cols->n_benchmarks == 2 && !strcmp(cols->benchmarks[0], "b") && !strcmp(cols->benchmarks[1], "a"));
    CHECK(tta_rules_summary_columns(&r, "1.0.0") == NULL && tta_rules_summary_columns(&r, NULL) == NULL);
    CHECK(tta_rules_find(&r, "v2.0", "b")->runs_scored == 0);
    CHECK_STR(tta_rules_ruleset(&r, "v2.0"), "2.0.0");
    CHECK_STR(tta_rules_ruleset(&r, "V1.0"), "1.0.0");
    CHECK(tta_rules_ruleset(&r, "v9.9") == NULL);
    CHECK(tta_rules_find(&r, "v2.0", "b")->runs_required == 7);
    CHECK(tta_rules_find(&r, "v1.0", "b") == NULL);
    CHECK_STR(tta_rules_canonical(&r, "REC", 3, "v1.0"), "a");
    CHECK_STR(tta_rules_canonical(&r, " rec ", 5, "v2.0"), "b");
    CHECK_STR(tta_rules_canonical(&r, "rec", 3, NULL), "b"); /* today's meaning */
    CHECK(tta_rules_canonical(&r, "other", 5, NULL) == NULL);
    CHECK_STR(tta_rules_latest(&r, "b")->ruleset, "2.0.0");
    tta_rules_free(&r);
}

TEST(malformed_files_say_where) {
    const char *e = parse_error("{\"version\": 1,\n \"sources\": {}, oops}");
    CHECK_STR(e, "t.json:2: not valid JSON");
    e = parse_error("{\"version\": 1,\n \"sources\": {},\n \"rounds\": [\n  {\"round\": \"v1.0\",}\n]}");
    CHECK_STR(e, "t.json:4: not valid JSON");
    /* Without a tta_error the code is still returned. */
    tta_rules r;
    CHECK(tta_rules_parse("{", 1, NULL, &r, NULL) == TTA_EINPUT);
    e = parse_error(MINIMAL_HEAD " \"aliases\": [], \"benchmarks\": ["
                    RULE("1.0.0", "a", ", \"metric2\": \"segm\"") "]}");
    CHECK_STR(e, "t.json: 1.0.0 a: metric2, target2 and higher_is_better2 go together");
    e = parse_error(MINIMAL_HEAD " \"aliases\": [], \"benchmarks\": ["
                    "{\"ruleset\": \"1.0.0\", \"benchmark\": \"a\", \"metric\": \"acc\", \"log_key\": \"k\","
                    " \"higher_is_better\": true, \"target\": 0.5, \"quality_scale\": \"fraction\","
                    " \"progress\": \"epoch_num\", \"progress_unit\": \"epochs\", \"olympic_drop\": 1,"
                    " \"max_failed\": 1, \"sources\": {\"target\": \"nowhere\"}}]}");
    CHECK(e && strstr(e, "source \"nowhere\" is not defined"));
    e = parse_error(MINIMAL_HEAD " \"aliases\": [], \"benchmarks\": [" RULE("1.0.0", "a", "") ","
                    RULE("1.0.0", "a", "") "]}");
    CHECK(e && strstr(e, "ruleset 1.0.0 lists a twice"));
    e = parse_error(MINIMAL_HEAD " \"aliases\": [{\"name\": \"x\", \"benchmark\": \"zz\"}], \"benchmarks\": ["
                    RULE("1.0.0", "a", "") "]}");
    CHECK(e && strstr(e, "alias \"x\" names zz, which no ruleset has (nor replay_only)"));
    e = parse_error(MINIMAL_HEAD " \"aliases\": [], \"benchmarks\": ["
                    "{\"ruleset\": \"1.0.0\", \"benchmark\": \"a\", \"metric\": \"acc\", \"log_key\": \"k\","
                    " \"higher_is_better\": true, \"target\": 0.5, \"quality_scale\": \"fraction\","
                    " \"progress\": \"epoch_num\", \"progress_unit\": \"hours\", \"olympic_drop\": 1,"
                    " \"max_failed\": 1, \"sources\": {\"target\": \"cc\"}}]}");
    CHECK(e && strstr(e, "1.0.0 a: \"progress_unit\" must be epochs, samples, steps or tokens"));
    e = parse_error(MINIMAL_HEAD " \"aliases\": [], \"benchmarks\": ["
                    RULE("1.0.0", "a", ", \"runs_required\": 10, \"runs_scored\": 11") "]}");
    CHECK(e && strstr(e, "1.0.0 a: \"runs_scored\" must be a whole number from 3 (an olympic mean) to runs_required"));
    e = parse_error("{\"version\": 3, \"sources\": {\"cc\": \"checker\"}, \"rounds\": [{\"round\": \"v1.0\","
                    " \"ruleset\": \"1.0.0\", \"suite\": \"mlperf\"}], \"summary_columns\": [], \"aliases\": [],"
                    " \"benchmarks\": []}");
    CHECK(e && strstr(e, "rounds[0]: \"source\" must name the source of its facts"));
    e = parse_error("{\"version\": 3, \"sources\": {\"cc\": \"checker\"}, \"rounds\": [{\"round\": \"v1.0\","
                    " \"ruleset\": \"1.0.0\", \"source\": \"cc\"}], \"summary_columns\": [], \"aliases\": [],"
                    " \"benchmarks\": []}");
    CHECK(e && strstr(e, "rounds[0]: \"suite\" must be a non-empty string"));
    e = parse_error("{\"version\": 3, \"sources\": {\"cc\": \"checker\"}, \"rounds\": [{\"round\": \"v1.0\","
                    " \"ruleset\": \"1.0.0\", \"suite\": \"mlperf\", \"source\": \"cc\"}], \"summary_columns\":"
                    " [{\"ruleset\": \"9.0.0\", \"benchmarks\": [], \"source\": \"cc\"}], \"aliases\": [], \"benchmarks\": []}");
    CHECK(e && strstr(e, "summary_columns[0]: ruleset 9.0.0 governs no round"));
}

/* The built-in rules: every MLPerf round from v0.5 on has a ruleset with its benchmarks, and the
 * facts the reports and the RCP check depend on hold. */
TEST(builtin_rules) {
    const tta_rules *r = tta_rules_builtin();
    CHECK(r->n_rules > 0 && r->n_rounds > 0);
    for (size_t i = 0; i < r->n_rounds; i++) {
        size_t n = 0;
        for (size_t j = 0; j < r->n_rules; j++) n += !strcmp(r->rules[j].ruleset, r->rounds[i].ruleset);
        if (n == 0) fprintf(stderr, "round %s: no benchmarks\n", r->rounds[i].round);
        CHECK(n > 0);
    }
    for (size_t j = 0; j < r->n_rules; j++) {
        const tta_rule *x = &r->rules[j];
        CHECK(x->olympic_drop >= 1 && x->max_failed >= 1);
        CHECK(!isnan(x->target));
        CHECK(x->sources_json && x->sources_json[0] == '{');
    }
    CHECK_STR(tta_rules_canonical(r, "image_classification", 20, NULL), "resnet");
    CHECK_STR(tta_rules_canonical(r, "recommendation", 14, "v0.6"), "ncf");
    CHECK_STR(tta_rules_canonical(r, "recommendation", 14, "v0.7"), "dlrm");
    const tta_rule *gnmt = tta_rules_find(r, "v0.5", "gnmt");
    CHECK(gnmt && gnmt->scale == TTA_SCALE_BLEU && gnmt->target == 21.8);
    const tta_rule *mask = tta_rules_find(r, "v0.7", "maskrcnn");
    CHECK(mask && mask->metric2 && mask->target2 == 0.339 && mask->higher_is_better2 == 1);
    CHECK(tta_rules_find(r, "dawnbench", "imagenet")->target == 93.0);
    /* v0.5 NCF scores the first 50 runs that converge; every other rule scores every run */
    for (size_t j = 0; j < r->n_rules; j++) {
        const tta_rule *x = &r->rules[j];
        int ncf05 = !strcmp(x->ruleset, "0.5.0") && !strcmp(x->benchmark, "ncf");
        CHECK(x->runs_scored == (ncf05 ? 50 : 0));
    }
    /* MLPerf rounds are the v rounds (Training) and hpc-v rounds (HPC) the rules list; DAWNBench and
     * the replays' round are not */
    for (size_t i = 0; i < r->n_rounds; i++) {
        const char *name = r->rounds[i].round;
        int hpc = !strncmp(name, "hpc-v", 5);
        CHECK(tta_rules_is_mlperf_round(r, name) == (name[0] == 'v' || hpc));
        CHECK(tta_rules_is_hpc_round(r, name) == hpc);
    }
    CHECK(!tta_rules_is_mlperf_round(r, "dawnbench") && !tta_rules_is_mlperf_round(r, "local"));
    CHECK(!tta_rules_is_hpc_round(r, "v1.0") && tta_rules_is_hpc_round(r, "hpc-v1.0"));
    /* MLPerf HPC: the rulesets' benchmarks, targets and directions (compliance_checker/hpc_<ruleset>), runs
     * (benchmark_meta.py), and the RCP checker's folders */
    const tta_rule *cosmo = tta_rules_find(r, "hpc-v1.0", "cosmoflow"), *cam = tta_rules_find(r, "hpc-v2.0", "deepcam");
    CHECK(cosmo && !strcmp(cosmo->log_key, "eval_error") && !cosmo->higher_is_better && cosmo->target == 0.124 &&
          cosmo->runs_required == 10 && cosmo->rcp);
    CHECK(cam && cam->higher_is_better && cam->target == 0.82 && cam->runs_required == 5);
    const tta_rule *oc20 = tta_rules_find(r, "hpc-v3.0", "oc20"), *fold = tta_rules_find(r, "hpc-v3.0", "openfold");
    CHECK(oc20 && oc20->target == 0.036 && !oc20->higher_is_better && oc20->runs_required == 5);
    CHECK(fold && fold->target == 0.8 && fold->higher_is_better && fold->runs_required == 10 && fold->rcp);
    CHECK(!tta_rules_find(r, "hpc-v2.0", "openfold") && !tta_rules_find(r, "hpc-v0.7", "oc20"));
    CHECK(tta_rules_find(r, "hpc-v0.7", "deepcam") && !tta_rules_find(r, "hpc-v0.7", "deepcam")->rcp);
    char folder[64];
    tta_rules_rcp_folder(r, "hpc_2.0.0", folder, sizeof folder);
    CHECK(!strcmp(folder, "hpc_2.0.0"));
    tta_rules_rcp_folder(r, "3.1.0", folder, sizeof folder);
    CHECK(!strcmp(folder, "training_3.1.0"));
    /* the summarizer's columns: none for 0.5.0, its order for 0.7.0 and 5.1.0 */
    CHECK(tta_rules_summary_columns(r, "0.5.0") == NULL);
    const tta_rule_columns *c = tta_rules_summary_columns(r, "0.7.0");
    CHECK(c && c->n_benchmarks == 8 && !strcmp(c->benchmarks[0], "bert") && !strcmp(c->benchmarks[7], "transformer"));
    c = tta_rules_summary_columns(r, "5.1.0");
    CHECK(c && c->n_benchmarks == 7 && !strcmp(c->benchmarks[0], "llama31_8b") && !strcmp(c->benchmarks[5], "rgat"));
}

int main(void) {
    RUN(minimal_file_parses_and_looks_up);
    RUN(malformed_files_say_where);
    RUN(builtin_rules);
    return test_summary();
}
