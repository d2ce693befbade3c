/* file.c: tta_file_load, the one whole-file reader (file.h). */
#include "common/file.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/check.h"

char *tta_file_size_text(size_t bytes, char *out, size_t cap) {
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
    if (bytes < 1024) {
        snprintf(out, cap, "%zu byte%s", bytes, bytes == 1 ? "" : "s");
        return out;
    }
    double v = (double)bytes / 1024.0;
    size_t u = 0;
    while (v >= 1024.0 && u + 1 < sizeof units / sizeof units[0]) {
        v /= 1024.0;
        u++;
    }
    double tenths = (double)(long long)(v * 10.0 + 0.5) / 10.0;
    if (tenths == (double)(long long)tenths)
        snprintf(out, cap, "%lld %s", (long long)tenths, units[u]);
    else
        snprintf(out, cap, "%.1f %s", tenths, units[u]);
    return out;
}

/* "<path>: is <size>, the limit for <what> is <limit>"; exact byte counts when both round alike. */
static int too_large(tta_error *err, const char *path, size_t size, int at_least, size_t limit, const char *what) {
    char s[32], l[32];
    tta_file_size_text(size, s, sizeof s);
    tta_file_size_text(limit, l, sizeof l);
    if (strcmp(s, l) == 0) {
        snprintf(s, sizeof s, "%zu bytes", size);
        snprintf(l, sizeof l, "%zu bytes", limit);
    }
    return tta_fail(err, TTA_EINPUT, "%s: is %s%s, the limit for %s is %s", path, at_least ? "over " : "", s,
                    what ? what : "this file", l);
}

static int open_failed(tta_error *err, const char *path, int errnum) {
    if (errnum == ENOENT || errnum == ENOTDIR) return tta_fail(err, TTA_ENOTFOUND, "%s: no such file", path);
    if (errnum == EISDIR) return tta_fail(err, TTA_EINPUT, "%s: is a directory, not a file", path);
    return tta_fail(err, TTA_EIO, "%s: cannot open: %s", path, strerror(errnum));
}

/* Reads exactly len bytes of a regular file; 0, or the errno (-1: it ended early). */
static int read_exactly(int fd, char *p, size_t len) {
    size_t got = 0;
    while (got < len) {
        ssize_t k = read(fd, p + got, len - got);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) return errno ? errno : EIO;
        if (k == 0) return -1;
        got += (size_t)k;
    }
    return 0;
}

/* A file that cannot be sized first (a pipe, a device): read to its end within limit. */
static int read_stream(int fd, const char *path, size_t limit, const char *what, tta_file *out, tta_error *err) {
    size_t cap = 65536, len = 0;
    char *p = mallocCheck(cap + 1);
    for (;;) {
        if (len == cap) {
            cap *= 2;
            p = reallocCheck(p, cap + 1);
        }
        ssize_t k = read(fd, p + len, cap - len);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) {
            int e = errno;
            free(p);
            return tta_fail(err, TTA_EIO, "%s: cannot read: %s", path, strerror(e));
        }
        if (k == 0) break;
        len += (size_t)k;
        if (len > limit) {
            free(p);
            return too_large(err, path, limit, 1, limit, what);
        }
    }
    p[len] = '\0';
    out->data = p;
    out->len = len;
    return TTA_OK;
}

int tta_file_load(const char *path, size_t limit, const char *what, unsigned flags, tta_file *out,
                  tta_error *err) {
    assert(path && out);
    memset(out, 0, sizeof *out);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return open_failed(err, path, errno);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return tta_fail(err, TTA_EIO, "%s: cannot read: %s", path, strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return open_failed(err, path, EISDIR);
    }
    int rc;
    if (!S_ISREG(st.st_mode)) {
        rc = read_stream(fd, path, limit, what, out, err);
        close(fd);
        return rc;
    }
    size_t len = (size_t)st.st_size;
    if ((off_t)len != st.st_size || len > limit) {
        close(fd);
        return too_large(err, path, len, 0, limit, what);
    }
    if ((flags & TTA_FILE_MAP_LARGE) && len >= TTA_FILE_MAP_FROM) {
        void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
        int e = errno;
        close(fd);
        if (map == MAP_FAILED) return tta_fail(err, TTA_EIO, "%s: cannot read: %s", path, strerror(e));
        madvise(map, len, MADV_SEQUENTIAL);
        out->data = map;
        out->len = len;
        out->mapped = 1;
        return TTA_OK;
    }
    char *p = mallocCheck(len + 1);
    int e = read_exactly(fd, p, len);
    close(fd);
    if (e != 0) {
        free(p);
        if (e < 0) return tta_fail(err, TTA_EIO, "%s: cannot read: the file shrank while it was read", path);
        return tta_fail(err, TTA_EIO, "%s: cannot read: %s", path, strerror(e));
    }
    p[len] = '\0';
    out->data = p;
    out->len = len;
    return TTA_OK;
}

void tta_file_free(tta_file *f) {
    if (!f) return;
    if (f->mapped)
        munmap(f->data, f->len);
    else
        free(f->data);
    memset(f, 0, sizeof *f);
}
