/* progress.c: the live progress line (see progress.h). */
#include "cli/progress.h"

#include <assert.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

/* At most this many lines a second. */
#define PROGRESS_HZ 10

static double mono_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The terminal's columns: its size, else COLUMNS, else 80. */
static int terminal_width(int fd) {
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
    const char *c = getenv("COLUMNS");
    long v = c ? strtol(c, NULL, 10) : 0;
    return v > 0 && v < 10000 ? (int)v : 80;
}

void cli_progress_start(cli_progress *p, FILE *out, int quiet, int after_ms) {
    assert(p && out && after_ms >= 0);
    memset(p, 0, sizeof *p);
    p->out = out;
    const char *nc = getenv("NO_COLOR");
    p->enabled = !quiet && !(nc && *nc) && isatty(fileno(out));
    const char *env = getenv("TTA_PROGRESS_AFTER_MS");
    if (env && *env) {
        char *end;
        long v = strtol(env, &end, 10);
        if (!*end && v >= 0) after_ms = (int)(v > 86400000 ? 86400000 : v);
    }
    p->start = mono_seconds();
    p->after = after_ms / 1000.0;
    p->last = -1.0;
    if (p->enabled) p->width = terminal_width(fileno(out));
}

int cli_progress_due(const cli_progress *p, int force) {
    if (!p->enabled) return 0;
    double now = mono_seconds();
    if (now - p->start < p->after) return 0;
    return force || p->last < 0 || now - p->last >= 1.0 / PROGRESS_HZ;
}

void cli_progress_update(cli_progress *p, int force, const char *fmt, ...) {
    if (!cli_progress_due(p, force)) return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    /* One column short of the width: a line that fills it would wrap on some terminals, and a
     * wrapped line is not rewritten by "\r". The line is ASCII: a byte is a column. */
    size_t max = p->width > 1 ? (size_t)p->width - 1 : 1;
    if (max >= sizeof line) max = sizeof line - 1;
    if ((size_t)n > max) line[max] = '\0';
    fprintf(p->out, "\r\033[K%s", line);
    fflush(p->out);
    p->drawn = 1;
    p->last = mono_seconds();
}

void cli_progress_clear(cli_progress *p) {
    if (!p->drawn) return;
    fputs("\r\033[K", p->out);
    fflush(p->out);
    p->drawn = 0;
}

void cli_progress_finish(cli_progress *p) {
    cli_progress_clear(p);
    p->enabled = 0;
}
