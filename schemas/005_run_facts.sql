-- tta database schema, version 5: each run's facts worked out once, when written.
--
-- Until version 4 a run's facts (reached, progress, epochs, ...) were derived twice, by the run_tta
-- view and by the C that loads entries for the reports, and the two disagreed. Now db/'s writer
-- (db/facts.c) works them out from the database's copy of the rules and stores them in run_facts,
-- each evaluation's verdict in evaluations.meets, and each suspect run's flags in run_flags. The
-- views below only project those columns: `tta ls`, every report and plain SQL read the same values.
--
-- What needs working out again is kept in facts_pending (an entry per row), filled by triggers:
-- a run written, moved or removed, a system description written or removed (accelerators), the
-- rules' copy replaced (every entry). The writer empties it at the end of an ingest; any tta that
-- opens the database for writing empties it first, so a crash between the two loses nothing.

-- When each run's initialisation began (the first init_start record) and ended (the last
-- init_stop): a run_start before them is impossible (flag impossible_timing).
ALTER TABLE runs ADD COLUMN init_start REAL;
ALTER TABLE runs ADD COLUMN init_stop REAL;
CREATE INDEX runs_start ON runs(run_start);

-- Does the evaluation meet its run's target(s): 1 / 0; NULL without a target or a quality (and
-- until worked out: the writer works out the NULL ones of the runs it works out).
ALTER TABLE evaluations ADD COLUMN meets INTEGER;

CREATE TABLE facts_pending (
    entry_id INTEGER PRIMARY KEY
);

-- One row per run: its facts as tta reads them everywhere (docs/database.md, "run_facts").
CREATE TABLE run_facts (
    run_id            INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    ruleset           TEXT,     -- the round's ruleset; NULL for rounds without rules (replays)
    progress_rule     TEXT,     -- benchmark_rules.progress; NULL without a rule
    tta_s             REAL,     -- duration: run_stop - run_start; DAWNBench: the time of the first evaluation at
                                -- the threshold (runs.dawnbench_tta is no longer written)
    reached           INTEGER,  -- the last evaluation meets the target(s) (any, for first_passing rules); NULL unknown
    last_quality      REAL,     -- quality of the last evaluation
    progress          REAL,     -- the convergence point in progress_unit (docs/database.md)
    progress_unit     TEXT NOT NULL,
    epochs            REAL,     -- progress in epochs; NULL where epochs mean nothing or it is unknown
    samples_to_target REAL,     -- samples at the first evaluation that meets the target
    target            REAL,
    target2           REAL,
    higher_is_better  INTEGER NOT NULL,
    higher_is_better2 INTEGER,
    metric            TEXT,
    metric2           TEXT,
    quality_scale     TEXT,     -- the rules' scale of qualities and targets (fraction, bleu, percent, asis)
    train_set_size    REAL,     -- the rules' samples per epoch
    accelerators      INTEGER,  -- of the system's latest description; NULL unknown
    nodes             INTEGER,
    accelerator_model TEXT,
    success_unmet     INTEGER NOT NULL, -- the log says success, but its last evaluation misses the target (or has none)
    succeeded         INTEGER NOT NULL, -- it has a duration and run_stop says success (or says nothing, and reached)
    converged         INTEGER NOT NULL, -- its last run_stop says success: converged as MLCommons' RCP checker reads it
    time_suspect      INTEGER NOT NULL  -- 1: its duration cannot be trusted (not positive, or far_outside_entry):
                                        -- tta's own statistics leave it out and say so
);

-- Why a run is suspect, one row per flag (docs/database.md lists them): its name and one sentence.
CREATE TABLE run_flags (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    flag   TEXT NOT NULL,
    reason TEXT NOT NULL,
    PRIMARY KEY (run_id, flag)
) WITHOUT ROWID;

-- A run published again elsewhere (an equal run_start) changes the other's flags too.
CREATE TRIGGER facts_run_insert AFTER INSERT ON runs BEGIN
    INSERT OR IGNORE INTO facts_pending VALUES (NEW.entry_id);
    INSERT OR IGNORE INTO facts_pending SELECT entry_id FROM runs WHERE run_start = NEW.run_start AND NEW.run_start > 0;
END;
CREATE TRIGGER facts_run_delete AFTER DELETE ON runs BEGIN
    INSERT OR IGNORE INTO facts_pending VALUES (OLD.entry_id);
    INSERT OR IGNORE INTO facts_pending SELECT entry_id FROM runs WHERE run_start = OLD.run_start AND OLD.run_start > 0;
END;
CREATE TRIGGER facts_run_move AFTER UPDATE OF entry_id ON runs BEGIN
    INSERT OR IGNORE INTO facts_pending VALUES (OLD.entry_id), (NEW.entry_id);
END;
CREATE TRIGGER facts_system_insert AFTER INSERT ON systems BEGIN
    INSERT OR IGNORE INTO facts_pending
    SELECT id FROM entries WHERE round = NEW.round AND submitter = NEW.submitter AND system = NEW.name;
END;
CREATE TRIGGER facts_system_delete AFTER DELETE ON systems BEGIN
    INSERT OR IGNORE INTO facts_pending
    SELECT id FROM entries WHERE round = OLD.round AND submitter = OLD.submitter AND system = OLD.name;
END;
CREATE TRIGGER facts_rules_changed AFTER INSERT ON rule_meta WHEN NEW.key = 'fingerprint' BEGIN
    INSERT OR IGNORE INTO facts_pending SELECT id FROM entries;
    UPDATE evaluations SET meets = NULL WHERE meets IS NOT NULL;
END;

DROP VIEW run_tta;
DROP VIEW run_progress;
DROP VIEW evaluation_meets;
DROP VIEW run_targets;

-- The views of version 4, now projections of the stored facts.
CREATE VIEW run_targets AS
SELECT run_id, target, target2, higher_is_better, COALESCE(higher_is_better2, higher_is_better) AS higher_is_better2,
       metric, metric2, progress_unit AS unit
FROM run_facts;

CREATE VIEW evaluation_meets AS
SELECT run_id, seq, time, epoch, samples, quality, quality2, meets FROM evaluations;

CREATE VIEW run_progress AS
SELECT run_id, ruleset,
       CASE WHEN progress_rule IS NOT NULL AND progress_rule <> 'epoch_of_first_meeting' THEN progress END
           AS checker_progress,
       progress_rule, progress_unit, train_set_size
FROM run_facts;

-- Per-run time to accuracy and the run's other facts (docs/database.md): what `tta ls runs` shows.
-- flags: the names of its flags, comma-separated in name order ('' when none); flag_reasons: their
-- reasons, '; '-separated in the same order.
CREATE VIEW run_tta AS
SELECT r.id AS run_id, e.id AS entry_id, e.round, e.division, e.submitter, e.system, e.benchmark,
       s.path AS file, r.run_index, r.seed, r.status, r.run_start, r.run_stop,
       f.reached, f.tta_s, f.progress, f.progress_unit, f.epochs, f.samples_to_target,
       r.global_batch_size, r.train_samples,
       f.target, f.target2, f.higher_is_better, f.metric, f.progress_unit AS unit,
       f.accelerators, f.accelerator_model, f.nodes,
       f.success_unmet, f.succeeded, f.time_suspect, f.last_quality, f.quality_scale,
       COALESCE((SELECT group_concat(flag, ',') FROM (SELECT flag FROM run_flags g WHERE g.run_id = r.id
                                                      ORDER BY flag)), '') AS flags,
       COALESCE((SELECT group_concat(reason, '; ') FROM (SELECT reason FROM run_flags g WHERE g.run_id = r.id
                                                         ORDER BY flag)), '') AS flag_reasons
FROM runs r
JOIN entries e ON e.id = r.entry_id
JOIN sources s ON s.id = r.source_id
JOIN run_facts f ON f.run_id = r.id;

INSERT OR IGNORE INTO facts_pending SELECT id FROM entries;

-- Runs stored before this version have no initialisation times: their files are read again by
-- the next ingest of them (a hash that no content has makes each file count as changed).
UPDATE sources SET hash = 'schema-5:reread' WHERE id IN (SELECT source_id FROM runs);
