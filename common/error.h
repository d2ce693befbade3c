/* error.h: the one error convention of tta's module seams.
 *
 * A public function that can fail for a reason the user must read returns an int status,
 * TTA_OK (0) on success, else one of the tta_status codes below, and fills a caller-owned
 * tta_error with the code and one line of text: "<path>:<line>: <reason>" where a file and line
 * are known, "<path>: <reason>" where only the file is, else "<reason>". The caller owns the
 * tta_error (usually on its stack); nothing in it needs freeing. A NULL tta_error is allowed:
 * the code is still returned and the text dropped.
 *
 * Inside a module, helpers may keep their own narrower conventions (a bool, a reason enum of a
 * parser, SQLite's codes); at the module's public header they are turned into a tta_error. The
 * command line maps a code to an exit status with tta_exit_status() (docs/architecture.md).
 *
 * Running out of memory is not an error value: check.h's wrappers end the process.
 */
#ifndef TTA_COMMON_ERROR_H
#define TTA_COMMON_ERROR_H

#include <stdarg.h>
#include <stddef.h>

typedef enum {
    TTA_OK = 0,
    TTA_EINPUT,       /* bad input: a malformed file, a value out of range, an unknown name */
    TTA_EUSAGE,       /* the command line itself is wrong (unknown option, missing argument) */
    TTA_ENOTFOUND,    /* what was asked for is not there: no such entry, run, file or rule */
    TTA_EIO,          /* reading or writing a file failed (the system's reason in the text) */
    TTA_EDB,          /* the database refused (SQLite's message in the text); nothing was changed */
    TTA_EUNSUPPORTED, /* this build or machine cannot do it (no GPU, no MPI, a newer database) */
    TTA_EINTERNAL,    /* a library we build on failed unexpectedly (oneDNN, GSL, cuDNN) */
} tta_status;

#define TTA_ERROR_TEXT 1024

typedef struct {
    tta_status code;
    char text[TTA_ERROR_TEXT];
} tta_error;

/* Sets *e (when not NULL) to code and the printf-formatted text; returns code, so that
 * `return tta_fail(e, TTA_EINPUT, "%s:%d: ...", path, line);` reads as one statement. */
int tta_fail(tta_error *e, tta_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int tta_vfail(tta_error *e, tta_status code, const char *fmt, va_list ap);

/* Puts "<context>: " in front of e's text (when e is not NULL and holds an error); returns
 * e's code. For a caller that adds where the callee could not know (a path, a run). */
int tta_error_context(tta_error *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Clears e to TTA_OK and an empty text. */
void tta_error_clear(tta_error *e);

/* The code's name ("input", "usage", "not found", ...), for JSON output and tests. */
const char *tta_status_name(tta_status code);

/* The command line's exit status for a code: 0 for TTA_OK, 2 for TTA_EUSAGE, 1 otherwise. */
int tta_exit_status(tta_status code);

#endif
