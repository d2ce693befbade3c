/* compliance.c: a parsed MLPerf Training run's compliance verdict (compliance.h). */
#include "ingest/compliance.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "common/buf.h"
#include "common/rules.h"

/* Sets f->run's verdict from check/'s. */
void tta_ingest_compliance(const tta_check_rules *rules, tta_parsed_file *f, const char *data, size_t len) {
    assert(f);
    if (!rules || f->failed || f->format != TTA_FMT_MLLOG || !f->run.round) return;
    const char *ruleset = tta_rules_ruleset(tta_rules_builtin(), f->run.round);
    if (!ruleset || !tta_check_rules_has(rules, ruleset)) return;
    tta_check_log log;
    tta_error err;
    if (tta_check_log_text(rules, ruleset, TTA_CHECK_AS_PUBLISHED, f->path, data, len, &log, &err) != TTA_OK) return;
    static const char *const verdicts[] = {"pass", "fail", "unknown"};
    f->run.compliance = verdicts[log.verdict];
    if (log.n_failures > 0 && log.verdict != TTA_CHECK_PASS) {
        const tta_check_failure *x = &log.failures[0];
        buf b = {0};
        buf_printf(&b, "%s", x->rule);
        if (x->line > 0) buf_printf(&b, " (line %ld)", x->line);
        buf_printf(&b, ": %s", x->message);
        if (log.n_failures > 1) buf_printf(&b, " (and %zu more rule%s)", log.n_failures - 1, log.n_failures == 2 ? "" : "s");
        f->run.compliance_reason = tta_arena_strdup(&f->arena, buf_str(&b));
        buf_free(&b);
    }
    tta_check_log_free(&log);
}
