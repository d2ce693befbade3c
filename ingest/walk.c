/* walk.c: recursive listing of input files. */
#include "ingest/walk.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/buf.h"
#include "common/check.h"

static void add_file(tta_walk_list *list, const char *path, int named) {
    growArray(list->files, &list->cap, list->n + 1);
    list->files[list->n].path = strdupCheck(path);
    list->files[list->n].named = named;
    list->n++;
}

/* Recurses into dir; depth guards against pathological trees. */
static void walk_dir(const char *dir, tta_walk_list *list, FILE *diag, int depth) {
    if (depth > 64) {
        if (diag) fprintf(diag, "%s: folder tree deeper than 64 levels: not descended\n", dir);
        return;
    }
    DIR *d = opendir(dir);
    if (!d) {
        if (diag) fprintf(diag, "%s: cannot open folder: %s\n", dir, strerror(errno));
        return;
    }
    struct dirent *de;
    buf path = {0};
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue; /* ., .., .git and other hidden entries */
        buf_clear(&path);
        size_t dl = strlen(dir);
        buf_append(&path, dir, dl);
        if (dl && dir[dl - 1] != '/') buf_putc(&path, '/');
        buf_puts(&path, de->d_name);
        /* The entry's type from the folder listing where the file system gives it (no stat
         * per file: a round has thousands), else from lstat. */
        mode_t type;
        if (de->d_type == DT_DIR) {
            type = S_IFDIR;
        } else if (de->d_type == DT_REG) {
            type = S_IFREG;
        } else if (de->d_type == DT_LNK) {
            type = S_IFLNK;
        } else {
            struct stat st;
            if (lstat(buf_str(&path), &st) != 0) continue;
            type = st.st_mode & S_IFMT;
        }
        if (type == S_IFDIR) {
            walk_dir(buf_str(&path), list, diag, depth + 1);
        } else if (type == S_IFREG) {
            add_file(list, buf_str(&path), 0);
        } else if (type == S_IFLNK) {
            /* A link to a file is read; a link to a folder is not followed (cycles). */
            struct stat target;
            if (stat(buf_str(&path), &target) == 0 && S_ISREG(target.st_mode)) add_file(list, buf_str(&path), 0);
        }
    }
    buf_free(&path);
    closedir(d);
}

int tta_walk(const char *path, tta_walk_list *list, FILE *diag, tta_error *err) {
    struct stat st;
    if (stat(path, &st) != 0) {
        int e = errno;
        return tta_fail(err, e == ENOENT || e == ENOTDIR ? TTA_ENOTFOUND : TTA_EIO, "%s: %s", path, strerror(e));
    }
    if (S_ISDIR(st.st_mode))
        walk_dir(path, list, diag, 0);
    else
        add_file(list, path, 1);
    return TTA_OK;
}

static int is_json(const char *p) {
    size_t n = strlen(p);
    return n >= 5 && strcmp(p + n - 5, ".json") == 0;
}

static int compare_files(const void *a, const void *b) {
    const tta_walk_file *x = a, *y = b;
    int jx = is_json(x->path), jy = is_json(y->path);
    if (jx != jy) return jy - jx;
    return strcmp(x->path, y->path);
}

void tta_walk_sort(tta_walk_list *list) {
    if (list->n < 2) return;
    qsort(list->files, list->n, sizeof list->files[0], compare_files);
    /* A path listed twice (a file named and also inside a folder named) is read once, as named. */
    size_t out = 1;
    for (size_t i = 1; i < list->n; i++) {
        tta_walk_file *last = &list->files[out - 1];
        if (strcmp(list->files[i].path, last->path) == 0) {
            last->named |= list->files[i].named;
            free(list->files[i].path);
        } else {
            list->files[out++] = list->files[i];
        }
    }
    list->n = out;
}

void tta_walk_free(tta_walk_list *list) {
    for (size_t i = 0; i < list->n; i++) free(list->files[i].path);
    free(list->files);
    memset(list, 0, sizeof *list);
}
