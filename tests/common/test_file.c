/* test_file.c: the one whole-file loader (common/file.h): its bytes, and each way it fails. */
#include "common/file.h"
#include "tta_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/tta_test_file_XXXXXX";

static char *path_of(const char *name) {
    static char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

static void write_bytes(const char *path, size_t n, char c) {
    FILE *f = fopen(path, "wb");
    for (size_t i = 0; i < n; i++) fputc(c, f);
    fclose(f);
}

TEST(sizes_in_words) {
    char s[32];
    CHECK(strcmp(tta_file_size_text(0, s, sizeof s), "0 bytes") == 0);
    CHECK(strcmp(tta_file_size_text(1, s, sizeof s), "1 byte") == 0);
    CHECK(strcmp(tta_file_size_text(1024, s, sizeof s), "1 KiB") == 0);
    CHECK(strcmp(tta_file_size_text(1363149, s, sizeof s), "1.3 MiB") == 0);
    CHECK(strcmp(tta_file_size_text(TTA_FILE_GIB * 4, s, sizeof s), "4 GiB") == 0);
}

TEST(loads_whole_files) {
    tta_error e;
    tta_file f;
    write_bytes(path_of("a.txt"), 70000, 'x'); /* more than one read chunk */
    CHECK(tta_file_load(path_of("a.txt"), TTA_FILE_MIB, "a test file", TTA_FILE_READ, &f, &e) == TTA_OK);
    CHECK(f.len == 70000 && f.data[0] == 'x' && f.data[69999] == 'x' && f.data[70000] == '\0' && !f.mapped);
    tta_file_free(&f);
    CHECK(f.data == NULL && f.len == 0);
    write_bytes(path_of("empty"), 0, 0);
    CHECK(tta_file_load(path_of("empty"), 10, "a test file", TTA_FILE_READ, &f, &e) == TTA_OK);
    CHECK(f.data != NULL && f.len == 0 && f.data[0] == '\0');
    tta_file_free(&f);
    /* Exactly at the limit is accepted. */
    write_bytes(path_of("ten"), 10, 'y');
    CHECK(tta_file_load(path_of("ten"), 10, "a test file", TTA_FILE_READ, &f, &e) == TTA_OK && f.len == 10);
    tta_file_free(&f);
    /* Large files may be mapped; small ones are still read. */
    write_bytes(path_of("big"), TTA_FILE_MAP_FROM + 1, 'z');
    CHECK(tta_file_load(path_of("big"), TTA_FILE_GIB, "a log", TTA_FILE_MAP_LARGE, &f, &e) == TTA_OK);
    CHECK(f.mapped && f.len == TTA_FILE_MAP_FROM + 1 && f.data[f.len - 1] == 'z');
    tta_file_free(&f);
    CHECK(tta_file_load(path_of("ten"), TTA_FILE_GIB, "a log", TTA_FILE_MAP_LARGE, &f, &e) == TTA_OK && !f.mapped);
    tta_file_free(&f);
    /* A stream (no size known first) is read to its end. */
    CHECK(tta_file_load("/dev/null", 10, "a test file", TTA_FILE_READ, &f, &e) == TTA_OK && f.len == 0);
    tta_file_free(&f);
}

TEST(fails_naming_path_and_reason) {
    tta_error e;
    tta_file f;
    char want[512];
    CHECK(tta_file_load(path_of("none.json"), 10, "a test file", 0, &f, &e) == TTA_ENOTFOUND);
    snprintf(want, sizeof want, "%s: no such file", path_of("none.json"));
    CHECK(strcmp(e.text, want) == 0 && f.data == NULL);
    CHECK(tta_file_load(path_of("none/x.json"), 10, "a test file", 0, &f, &e) == TTA_ENOTFOUND);
    CHECK(tta_file_load(dir, 10, "a test file", 0, &f, &e) == TTA_EINPUT);
    snprintf(want, sizeof want, "%s: is a directory, not a file", dir);
    CHECK(strcmp(e.text, want) == 0);
    write_bytes(path_of("model.json"), 1363149, ' ');
    CHECK(tta_file_load(path_of("model.json"), TTA_FILE_MIB, "a model file", 0, &f, &e) == TTA_EINPUT);
    snprintf(want, sizeof want, "%s: is 1.3 MiB, the limit for a model file is 1 MiB", path_of("model.json"));
    CHECK(strcmp(e.text, want) == 0 && f.data == NULL);
    /* One byte over: the sizes in bytes, since both round to 1 MiB. */
    write_bytes(path_of("over.json"), TTA_FILE_MIB + 1, ' ');
    CHECK(tta_file_load(path_of("over.json"), TTA_FILE_MIB, "a replay SPEC", 0, &f, &e) == TTA_EINPUT);
    CHECK(strstr(e.text, ": is 1048577 bytes, the limit for a replay SPEC is 1048576 bytes") != NULL);
    CHECK(tta_file_load("/dev/zero", 100, "a test file", 0, &f, &e) == TTA_EINPUT);
    CHECK(strstr(e.text, "/dev/zero: is over 100 bytes, the limit for a test file is 100 bytes") != NULL);
    if (geteuid() != 0) { /* root reads anything */
        write_bytes(path_of("secret"), 3, 's');
        chmod(path_of("secret"), 0);
        CHECK(tta_file_load(path_of("secret"), 10, "a test file", 0, &f, &e) == TTA_EIO);
        CHECK(strstr(e.text, "secret: cannot open: ") != NULL);
    }
    CHECK(tta_file_load(path_of("none.json"), 10, "a test file", 0, &f, NULL) == TTA_ENOTFOUND);
}

int main(void) {
    if (!mkdtemp(dir)) return 1;
    RUN(sizes_in_words);
    RUN(loads_whole_files);
    RUN(fails_naming_path_and_reason);
    static const char *const names[] = {"a.txt", "empty", "ten", "big", "model.json", "over.json", "secret"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) unlink(path_of(names[i]));
    rmdir(dir);
    return test_summary();
}
