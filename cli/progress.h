/* progress.h: one live line on stderr while a long command works (`tta ingest`, `tta report html`).
 *
 * The line is rewritten in place ("\r" + erase to the end of the line), at most ten times a second,
 * cut to the terminal's width so that it never wraps, and erased by cli_progress_finish before the
 * command prints its summary. Nothing is drawn when the stream is not a terminal, when NO_COLOR is
 * set (non-empty), or when the command was asked to be quiet: output that is saved or read by a
 * program never holds a carriage return.
 *
 * Ownership and threading: the caller owns the cli_progress (usually on its stack) and calls every
 * function from one thread; nothing here is shared or global. The module that does the work never
 * sees it: it reports through a callback (ingest.h's tta_ingest_progress_fn, reports.h's
 * tta_report_progress_fn) that the command forwards here.
 */
#ifndef TTA_CLI_PROGRESS_H
#define TTA_CLI_PROGRESS_H

#include <stdio.h>

typedef struct {
    FILE *out;     /* where the line goes (stderr) */
    int enabled;   /* 1: out is a terminal, NO_COLOR is unset and the command is not quiet */
    int drawn;     /* 1: a line is on screen (to erase before other output) */
    double start;  /* monotonic seconds at cli_progress_start */
    double after;  /* draw nothing until start + after */
    double last;   /* when the line was last drawn */
    int width;     /* the terminal's columns when started */
} cli_progress;

/* Starts a display on out (stderr). quiet: the command's --quiet. after_ms: draw only once the
 * work has taken this long (0: from the first update); the environment variable
 * TTA_PROGRESS_AFTER_MS, when set to a number, replaces it (for tests: 0 forces the line). */
void cli_progress_start(cli_progress *p, FILE *out, int quiet, int after_ms);

/* 1 when cli_progress_update would draw now (enabled, past the delay, 100 ms since the last
 * line, or force); lets a caller skip formatting a line that would not be shown. */
int cli_progress_due(const cli_progress *p, int force);

/* Draws the line (printf format, no newline) when cli_progress_due(p, force). force ignores the
 * ten-a-second limit (not the delay): for the last state of the work. */
void cli_progress_update(cli_progress *p, int force, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Erases the line if one is drawn (before a diagnostic line goes to the same terminal); the next
 * update draws it again. */
void cli_progress_clear(cli_progress *p);

/* Erases the line for good; later updates draw nothing. */
void cli_progress_finish(cli_progress *p);

#endif
