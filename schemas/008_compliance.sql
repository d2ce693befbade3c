-- tta database schema: each MLPerf Training run's verdict from MLCommons' compliance checks (check/,
-- docs/compliance.md), worked out by ingest from the log with its round's ruleset as the round was published
-- (`tta check --as-published`): 'pass', 'fail' or 'unknown' (a rule tta cannot evaluate), NULL where no
-- ruleset applies (v0.5, v0.6, DAWNBench, replays). compliance_reason: the first failing rule, its line and
-- what the rule wants, for a run that is not 'pass'. db/facts.c turns 'fail' into the run's flag
-- not_compliant; the official scores leave such a run out, as MLCommons' result summarizer does.
ALTER TABLE runs ADD COLUMN compliance TEXT CHECK (compliance IN ('pass', 'fail', 'unknown'));
ALTER TABLE runs ADD COLUMN compliance_reason TEXT;
-- Logs stored before this migration have no verdict: their next ingest reads them again (a stored hash
-- no file has).
UPDATE sources SET hash = 'before-008' WHERE format = 'mllog';
