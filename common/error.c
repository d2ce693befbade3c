/* error.c: the tta_error convention (error.h). */
#include "common/error.h"

#include <stdio.h>
#include <string.h>

int tta_vfail(tta_error *e, tta_status code, const char *fmt, va_list ap)
{
    if (e) {
        e->code = code;
        vsnprintf(e->text, sizeof e->text, fmt, ap);
    }
    return (int)code;
}

int tta_fail(tta_error *e, tta_status code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tta_vfail(e, code, fmt, ap);
    va_end(ap);
    return (int)code;
}

int tta_error_context(tta_error *e, const char *fmt, ...)
{
    if (!e || e->code == TTA_OK) return e ? (int)e->code : 0;
    char old[TTA_ERROR_TEXT];
    memcpy(old, e->text, sizeof old);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(e->text, sizeof e->text, fmt, ap);
    va_end(ap);
    /* A text longer than TTA_ERROR_TEXT loses its end, as tta_fail's does. */
    size_t used = n < 0 ? 0 : (size_t)n < sizeof e->text ? (size_t)n : sizeof e->text - 1;
    size_t room = sizeof e->text - used;
    if (room > 2) {
        memcpy(e->text + used, ": ", 2);
        size_t rest = strnlen(old, sizeof old);
        if (rest > room - 3) rest = room - 3;
        memcpy(e->text + used + 2, old, rest);
        e->text[used + 2 + rest] = '\0';
    }
    return (int)e->code;
}

void tta_error_clear(tta_error *e)
{
    if (!e) return;
    e->code = TTA_OK;
    e->text[0] = '\0';
}

const char *tta_status_name(tta_status code)
{
    static const char *const names[] = {
        [TTA_OK] = "ok", [TTA_EINPUT] = "input", [TTA_EUSAGE] = "usage",
        [TTA_ENOTFOUND] = "not found", [TTA_EIO] = "io", [TTA_EDB] = "database",
        [TTA_EUNSUPPORTED] = "unsupported", [TTA_EINTERNAL] = "internal",
    };
    if ((unsigned)code < sizeof names / sizeof names[0] && names[code]) return names[code];
    return "unknown";
}

int tta_exit_status(tta_status code)
{
    return code == TTA_OK ? 0 : code == TTA_EUSAGE ? 2 : 1;
}
