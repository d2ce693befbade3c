-- tta database schema: an AlgoPerf leaderboard's logs and its workload targets (docs/algoperf.md).
--
-- An AlgoPerf leaderboard publishes, per ruleset (external_tuning, self_tuning), submission, study,
-- workload and trial, the folder logs/<ruleset>/<submission>/study_<N>/<workload>_<framework>/trial_<N>/
-- with eval_measurements.csv (one row per evaluation), hparams.json, meta_data_0.json and flags_0.json;
-- and the benchmark version's targets, workload_targets_v<XY>.json. Each file is one source (a row of
-- sources); what it gives is kept under that source and goes with it when the file is read again.

-- One row per trial file: where it lies (read from its path) and, for the JSON files, the JSON as written.
CREATE TABLE algoperf_files (
    source_id   INTEGER PRIMARY KEY REFERENCES sources(id) ON DELETE CASCADE,
    kind        TEXT NOT NULL,    -- eval_measurements, hparams, meta_data, flags
    leaderboard TEXT NOT NULL,    -- "algoperf-v0.5" (from a path component algoperf-v0.5 or algoperf_v05), or "unknown"
    ruleset     TEXT NOT NULL,    -- external_tuning or self_tuning
    submission  TEXT NOT NULL,
    study       INTEGER NOT NULL, -- N of study_<N>
    workload    TEXT NOT NULL,    -- the folder's name without its _jax / _pytorch suffix
    framework   TEXT,             -- jax, pytorch; NULL when the folder has no such suffix
    trial       INTEGER NOT NULL, -- N of trial_<N>
    content     TEXT              -- the JSON object as written (hparams, meta_data, flags); NULL for the CSV
);
CREATE INDEX algoperf_files_trial ON algoperf_files(leaderboard, ruleset, submission, workload, study, trial);

-- One row per evaluation of an eval_measurements.csv, in file order (idx from 0).
CREATE TABLE algoperf_evals (
    source_id       INTEGER NOT NULL REFERENCES algoperf_files(source_id) ON DELETE CASCADE,
    idx             INTEGER NOT NULL,
    global_step     REAL,         -- NULL where the cell is empty or not a number
    score           REAL,         -- "score": the submission time (s) the scoring code counts
    submission_time REAL,         -- accumulated_submission_time (s)
    eval_time       REAL,         -- accumulated_eval_time (s)
    total_duration  REAL,         -- total_duration (s)
    PRIMARY KEY (source_id, idx)
) WITHOUT ROWID;

-- The validation metrics of each evaluation (the columns validation/<metric> of the CSV; "nan" and
-- empty cells are NULL).
CREATE TABLE algoperf_values (
    source_id INTEGER NOT NULL REFERENCES algoperf_files(source_id) ON DELETE CASCADE,
    idx       INTEGER NOT NULL,
    name      TEXT NOT NULL,      -- "validation/accuracy", ...
    value     REAL,
    PRIMARY KEY (source_id, idx, name)
) WITHOUT ROWID;

-- A benchmark version's workloads as its targets file lists them.
CREATE TABLE algoperf_targets (
    source_id  INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
    version    TEXT NOT NULL,     -- "algoperf-v0.5" from "benchmark_version": "0.5"
    workload   TEXT NOT NULL,
    metric     TEXT NOT NULL,     -- target_metric_name: the column validation/<metric> is scored
    target     REAL NOT NULL,     -- validation_target_value
    minimize   INTEGER NOT NULL,  -- 1: lower is better (loss, wer, ...), as the scoring code's metric registry says
    step_hint  INTEGER,
    role       TEXT NOT NULL,     -- base, held_out (a variant scored with its base), other
    base       TEXT,              -- held_out: its base workload (the first base workload, in the file's
                                  -- base_workloads order, whose name is part of its name); else NULL
    PRIMARY KEY (source_id, workload)
);
CREATE INDEX algoperf_targets_version ON algoperf_targets(version, workload);
