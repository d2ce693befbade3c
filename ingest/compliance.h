/* compliance.h: ingest's use of check/ (internal to ingest/): each MLPerf Training log's verdict from
 * MLCommons' compliance checks, worked out on the parser thread and stored with the run
 * (runs.compliance, schemas/008_compliance.sql). */
#ifndef TTA_INGEST_COMPLIANCE_H
#define TTA_INGEST_COMPLIANCE_H

#include <stddef.h>

#include "check/check.h"
#include "ingest/parsed.h"

/* Checks the parsed run f of the log text data[0..len) against its round's ruleset as published
 * (TTA_CHECK_AS_PUBLISHED) when rules hold that ruleset, and sets f->run.compliance and
 * f->run.compliance_reason (in f's arena); leaves them NULL for a file that is not an MLLOG run or a
 * round without rules. Thread-safe over shared rules. */
void tta_ingest_compliance(const tta_check_rules *rules, tta_parsed_file *f, const char *data, size_t len);

#endif
