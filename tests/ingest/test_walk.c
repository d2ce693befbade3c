/* test_walk.c: the listing of input files: regular files at any depth, a link to a file read,
 * a link to a folder not followed, hidden entries skipped, descriptions sorted before logs, a file
 * given itself marked named. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ingest/walk.h"
#include "tta_test.h"

static char root[128];

static void touch(const char *rel) {
    char p[256];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    FILE *f = fopen(p, "w");
    if (f) fclose(f);
}

static void dir(const char *rel) {
    char p[256];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    mkdir(p, 0755);
}

static void link_to(const char *target, const char *rel) {
    char p[256];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    CHECK(symlink(target, p) == 0);
}

/* The listed paths relative to root, joined with spaces. */
static void listed(const tta_walk_list *l, char *out, size_t n) {
    out[0] = '\0';
    size_t rl = strlen(root) + 1;
    for (size_t i = 0; i < l->n; i++) {
        if (i) strncat(out, " ", n - strlen(out) - 1);
        strncat(out, l->files[i].path + rl, n - strlen(out) - 1);
    }
}

TEST(tree) {
    snprintf(root, sizeof root, "/tmp/tta_test_walk_%d", (int)getpid());
    mkdir(root, 0755);
    dir("results");
    dir("results/box");
    dir("results/box/resnet");
    dir(".git");
    dir("systems");
    touch("results/box/resnet/result_0.txt");
    touch("results/box/resnet/result_1.txt");
    touch(".git/config");
    touch("systems/box.json");
    touch("README.md");
    link_to("results/box/resnet/result_0.txt", "linked_result.txt"); /* read */
    link_to("results", "linked_folder");                              /* not followed */
    link_to("missing", "dangling");                                   /* skipped */
    tta_walk_list l = {0};
    CHECK(tta_walk(root, &l, NULL, NULL) == TTA_OK);
    tta_walk_sort(&l);
    char got[1024];
    listed(&l, got, sizeof got);
    CHECK_STR(got, "systems/box.json README.md linked_result.txt results/box/resnet/result_0.txt "
                   "results/box/resnet/result_1.txt");
    for (size_t i = 0; i < l.n; i++) CHECK(!l.files[i].named); /* found in a folder */
    tta_walk_free(&l);

    /* A file given itself (named: always read); a path that does not exist. */
    char p[256];
    snprintf(p, sizeof p, "%s/README.md", root);
    CHECK(tta_walk(p, &l, NULL, NULL) == TTA_OK && l.n == 1 && strcmp(l.files[0].path, p) == 0 && l.files[0].named);
    /* Given again inside its folder: listed once, as named. */
    CHECK(tta_walk(root, &l, NULL, NULL) == TTA_OK && l.n == 6);
    tta_walk_sort(&l);
    CHECK(l.n == 5);
    for (size_t i = 0; i < l.n; i++) CHECK(l.files[i].named == (strcmp(l.files[i].path, p) == 0));
    tta_walk_free(&l);
    snprintf(p, sizeof p, "%s/nothing", root);
    tta_error err;
    CHECK(tta_walk(p, &l, NULL, &err) == TTA_ENOTFOUND && l.n == 0);
    char expected[300];
    snprintf(expected, sizeof expected, "%s: No such file or directory", p);
    CHECK_STR(err.text, expected);
    tta_walk_free(&l);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    CHECK(system(cmd) == 0);
}

int main(void) {
    RUN(tree);
    return test_summary();
}
