-- tta database schema, version 4: benchmark rules as data, each run's convergence point as MLCommons'
-- RCP checker reads it, and the files beside a folder's result logs (scaling.json, summary.json).
--
-- The rules tables (rule_rounds, benchmark_rules, benchmark_aliases) are a copy of
-- schemas/benchmark_rules.json, the one place the facts live: every tta that opens the database for
-- writing refreshes them when the file's version differs from the copy's (rule_meta). They replace
-- version 1's `targets` table, which kept the same thresholds a second time.

CREATE TABLE rule_meta (
    key   TEXT PRIMARY KEY,
    value TEXT
);

-- The ruleset that governs each round ("v3.1" -> "3.1.0"; "dawnbench" -> "dawnbench").
CREATE TABLE rule_rounds (
    round   TEXT PRIMARY KEY,
    ruleset TEXT NOT NULL,
    ord     INTEGER NOT NULL               -- rounds in time order
);

-- One row per benchmark of each ruleset. Qualities and targets are in the scale tta stores
-- (quality_scale); docs/benchmark-rules.md explains every column and names the sources.
CREATE TABLE benchmark_rules (
    ruleset           TEXT NOT NULL,
    benchmark         TEXT NOT NULL,
    metric            TEXT NOT NULL,
    log_key           TEXT NOT NULL,
    higher_is_better  INTEGER NOT NULL,
    target            REAL NOT NULL,
    metric2           TEXT,
    target2           REAL,
    higher_is_better2 INTEGER,
    quality_scale     TEXT NOT NULL,        -- fraction, bleu, percent, asis
    progress          TEXT NOT NULL,        -- how the RCP checker reads the convergence point
    progress_unit     TEXT NOT NULL CHECK (progress_unit IN ('epochs', 'samples', 'steps', 'tokens')),
    train_set_size    REAL,                 -- samples per epoch where the rules fix it
    runs_required     INTEGER,
    olympic_drop      INTEGER NOT NULL,
    max_failed        INTEGER NOT NULL,
    rcp               INTEGER NOT NULL,     -- 1: the ruleset's RCP checker judges it
    rcp_name          TEXT,                 -- rcps_<rcp_name>.json
    sources           TEXT NOT NULL,        -- JSON: fact -> source text
    PRIMARY KEY (ruleset, benchmark)
);

-- Names logs and folders use for benchmarks (lowercase, '_' for '-' and ' ').
CREATE TABLE benchmark_aliases (
    name         TEXT NOT NULL,
    benchmark    TEXT NOT NULL,
    from_round   TEXT,                      -- applies from this round on (NULL: always)
    before_round TEXT                       -- applies before this round (NULL: always)
);

-- The convergence point candidates of a run, read as the RCP checker reads them (at the last
-- run_stop record; NULL when the log has none): which one counts is the rule's `progress`.
ALTER TABLE runs ADD COLUMN cp_epoch_num REAL;         -- metadata.epoch_num of the last evaluation
ALTER TABLE runs ADD COLUMN cp_samples_count REAL;     -- metadata.samples_count of the last evaluation
ALTER TABLE runs ADD COLUMN cp_train_samples REAL;     -- value of the last train_samples record
ALTER TABLE runs ADD COLUMN cp_first_passing_step REAL;    -- stable_diffusion: first step_num passing both
ALTER TABLE runs ADD COLUMN cp_first_passing_samples REAL; -- ... and by samples_count
ALTER TABLE runs ADD COLUMN cp_status TEXT;            -- status of the last run_stop record (the checker's)
-- Log records that could not be read (broken JSON...): MLCommons' parser rejects such a file, and
-- its summarizer drops the run from the official score.
ALTER TABLE runs ADD COLUMN unreadable_records INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN first_unreadable_line INTEGER;

-- Files published beside a folder's result logs: scaling.json (the RCP normalisation factor the
-- summarizer multiplies the score by; one row) and summary.json (the result summarizer's output: one
-- row per record and score, keyed by the record's submitter and system folder; a cross-check).
CREATE TABLE entry_files (
    source_id      INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
    round          TEXT,
    submitter      TEXT,
    system         TEXT,
    benchmark      TEXT,
    kind           TEXT NOT NULL CHECK (kind IN ('scaling', 'summary')),
    scaling_factor REAL,                    -- kind 'scaling'
    score_min      REAL,                    -- kind 'summary': the result summarizer's score (minutes)
    content        TEXT                     -- the file as JSON ('summary': the record)
);
CREATE INDEX entry_files_key ON entry_files(round, submitter, system, benchmark);
CREATE INDEX entry_files_source ON entry_files(source_id);

DROP VIEW run_tta;
DROP VIEW evaluation_meets;
DROP VIEW run_targets;
DROP TABLE targets;

-- The rule that applies to each run: its round's ruleset and benchmark (NULL for rounds without
-- rules: replays, unknown rounds).
CREATE VIEW run_rules AS
SELECT r.id AS run_id, rr.ruleset, b.*
FROM runs r
JOIN entries e ON e.id = r.entry_id
LEFT JOIN rule_rounds rr ON rr.round = e.round
LEFT JOIN benchmark_rules b ON b.ruleset = rr.ruleset AND b.benchmark = e.benchmark;

-- The target that applies to each run: the rules', else the run's own logged one (replays).
CREATE VIEW run_targets AS
SELECT r.id AS run_id,
       COALESCE(b.target, r.target)   AS target,
       CASE WHEN b.target IS NOT NULL THEN b.target2 ELSE r.target2 END AS target2,
       COALESCE(b.higher_is_better, 1) AS higher_is_better,
       CASE WHEN b.target IS NOT NULL THEN b.higher_is_better2 ELSE COALESCE(b.higher_is_better, 1) END
                                       AS higher_is_better2,
       b.metric, b.metric2,
       COALESCE(b.progress_unit, 'epochs') AS unit
FROM runs r
LEFT JOIN run_rules b ON b.run_id = r.id;

-- Does each evaluation meet its run's target(s) (relative tolerance 1e-6: logs print float32)?
-- Each metric in its own direction (stable_diffusion: FID lower, CLIP higher).
CREATE VIEW evaluation_meets AS
SELECT v.run_id, v.seq, v.time, v.epoch, v.samples, v.quality, v.quality2,
       CASE
         WHEN rt.target IS NULL OR v.quality IS NULL THEN NULL
         WHEN (CASE WHEN rt.higher_is_better
                    THEN v.quality >= rt.target - 1e-6 * abs(rt.target)
                    ELSE v.quality <= rt.target + 1e-6 * abs(rt.target) END)
          AND (rt.target2 IS NULL OR
               (v.quality2 IS NOT NULL AND
                (CASE WHEN rt.higher_is_better2
                      THEN v.quality2 >= rt.target2 - 1e-6 * abs(rt.target2)
                      ELSE v.quality2 <= rt.target2 + 1e-6 * abs(rt.target2) END)))
         THEN 1 ELSE 0 END AS meets
FROM evaluations v JOIN run_targets rt ON rt.run_id = v.run_id;

-- Each run's convergence point as MLCommons' RCP checker reads it (progress, in progress_unit;
-- NULL when the run did not converge: its last run_stop is not a success), and its epochs.
CREATE VIEW run_progress AS
SELECT r.id AS run_id,
       b.ruleset,
       CASE WHEN b.progress IS NULL OR b.progress = 'epoch_of_first_meeting' THEN NULL
            WHEN COALESCE(r.cp_status, r.status) <> 'success' THEN NULL
            WHEN b.progress = 'epoch_num' THEN round(r.cp_epoch_num, 3)
            WHEN b.progress = 'samples_count' THEN r.cp_samples_count
            WHEN b.progress = 'train_samples' THEN r.cp_train_samples
            WHEN b.progress = 'first_passing_step_num' THEN r.cp_first_passing_step
            WHEN b.progress = 'first_passing_samples_count' THEN r.cp_first_passing_samples
       END AS checker_progress,
       b.progress AS progress_rule,
       COALESCE(b.progress_unit, 'epochs') AS progress_unit,
       b.train_set_size
FROM runs r
LEFT JOIN run_rules b ON b.run_id = r.id;

-- Per-run time to accuracy: the MLPerf rule (run_stop - run_start) or DAWNBench's (time of the
-- first epoch at the threshold); reached = the last evaluation meets the target(s) (for benchmarks
-- whose evaluations finish out of order and converge at the first passing step, stable_diffusion:
-- any evaluation does); progress =
-- the convergence point as the RCP checker reads it (rounds with an RCP checker), else the epoch
-- of the first evaluation that meets the target; epochs = progress in epochs (samples divided by
-- the training-set size where the rules give one; NULL where epochs mean nothing);
-- success_unmet = the log says success but its last evaluation does not meet the target.
CREATE VIEW run_tta AS
SELECT run_id, entry_id, round, division, submitter, system, benchmark, file, run_index, seed, status,
       run_start, run_stop, reached, tta_s,
       progress, progress_unit,
       CASE WHEN progress_unit = 'epochs' THEN progress
            WHEN progress_unit = 'samples' AND train_set_size > 0 THEN progress / train_set_size END AS epochs,
       samples_to_target, global_batch_size, train_samples,
       target, target2, higher_is_better, metric, unit,
       accelerators, accelerator_model, nodes,
       CASE WHEN status = 'success' AND reached = 0 THEN 1
            WHEN status = 'success' AND reached IS NULL AND target IS NOT NULL THEN 1 ELSE 0 END AS success_unmet,
       CASE WHEN status = 'success' AND reached = 0 AND progress_rule LIKE 'first_passing%'
            THEN 'the log says success but none of its evaluations meets the targets'
            WHEN status = 'success' AND reached = 0
            THEN 'the log says success but its last evaluation (' || last_quality || ') does not meet the target ('
                 || target || ')'
            WHEN status = 'success' AND reached IS NULL AND target IS NOT NULL
            THEN 'the log says success but has no evaluation of its quality' END AS flag
FROM (
SELECT r.id AS run_id,
       e.id AS entry_id,
       e.round, e.division, e.submitter, e.system, e.benchmark,
       s.path AS file,
       r.run_index, r.seed, r.status,
       r.run_start, r.run_stop,
       CASE WHEN p.progress_rule LIKE 'first_passing%'
            THEN (SELECT max(m.meets) FROM evaluation_meets m WHERE m.run_id = r.id)
            ELSE (SELECT m.meets FROM evaluation_meets m WHERE m.run_id = r.id ORDER BY m.seq DESC LIMIT 1)
       END AS reached,
       (SELECT m.quality FROM evaluation_meets m WHERE m.run_id = r.id ORDER BY m.seq DESC LIMIT 1) AS last_quality,
       CASE WHEN e.round = 'dawnbench' THEN r.dawnbench_tta
            ELSE r.run_stop - r.run_start END AS tta_s,
       CASE WHEN p.progress_rule IS NOT NULL AND p.progress_rule <> 'epoch_of_first_meeting' THEN p.checker_progress
            ELSE (SELECT m.epoch FROM evaluation_meets m WHERE m.run_id = r.id AND m.meets = 1 ORDER BY m.seq LIMIT 1)
       END AS progress,
       p.progress_unit,
       p.progress_rule,
       p.train_set_size,
       (SELECT m.samples FROM evaluation_meets m WHERE m.run_id = r.id AND m.meets = 1 ORDER BY m.seq LIMIT 1) AS samples_to_target,
       r.global_batch_size,
       r.train_samples,
       rt.target, rt.target2, rt.higher_is_better, rt.metric, rt.unit,
       sy.accelerators,
       sy.accelerator_model,
       sy.nodes
FROM runs r
JOIN entries e ON e.id = r.entry_id
JOIN sources s ON s.id = r.source_id
JOIN run_targets rt ON rt.run_id = r.id
JOIN run_progress p ON p.run_id = r.id
LEFT JOIN systems sy ON sy.id = (SELECT id FROM systems x
                                 WHERE x.round = e.round AND x.submitter = e.submitter AND x.name = e.system
                                 ORDER BY x.id DESC LIMIT 1)
);

-- Runs stored before this version have no cp_* values: their files are read again by the next
-- ingest of them (a hash that no content has makes each file count as changed).
UPDATE sources SET hash = 'schema-4:reread' WHERE id IN (SELECT source_id FROM runs);
