-- tta database schema, version 1.
-- Applied by tta_db_open when PRAGMA user_version < 1. Documented in docs/database.md.
-- Times are seconds (REAL). Values logged as JSON keep their JSON text.

-- One row per file tta has read (or tried to read).
CREATE TABLE sources (
    id          INTEGER PRIMARY KEY,
    path        TEXT NOT NULL UNIQUE,     -- as walked (absolute or relative to the ingest cwd)
    size        INTEGER NOT NULL,
    hash        TEXT NOT NULL,            -- 64-bit content hash, 16 hex digits
    format      TEXT NOT NULL,            -- mlperf-v0.5, mlperf-v0.6, mlperf-text, mllog, power, dawnbench-tsv, ...
    status      TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
    error       TEXT,                     -- "<path>:<line>: <reason>" when failed
    ingested_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);

-- System descriptions: <submitter>/systems/<name>.json, v0.5 entry.json, DAWNBench entry JSON.
CREATE TABLE systems (
    id                    INTEGER PRIMARY KEY,
    source_id             INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
    round                 TEXT NOT NULL,
    submitter             TEXT NOT NULL,
    name                  TEXT NOT NULL,
    division              TEXT,
    status                TEXT,
    accelerator_model     TEXT,
    nodes                 INTEGER,
    accelerators_per_node INTEGER,
    accelerators          INTEGER,        -- total; 0 for CPU-only systems; NULL unknown
    host_processor        TEXT,
    framework             TEXT,
    description           TEXT            -- the whole description as JSON
);
CREATE INDEX systems_key ON systems(round, submitter, name);

-- An entry: one submitter's system on one benchmark in one round and division.
CREATE TABLE entries (
    id        INTEGER PRIMARY KEY,
    round     TEXT NOT NULL,
    division  TEXT NOT NULL,
    submitter TEXT NOT NULL,
    system    TEXT NOT NULL,
    benchmark TEXT NOT NULL,
    UNIQUE (round, division, submitter, system, benchmark)
);

-- One row per training run (an MLPerf result log, a DAWNBench TSV, a replay log).
CREATE TABLE runs (
    id                INTEGER PRIMARY KEY,
    source_id         INTEGER NOT NULL UNIQUE REFERENCES sources(id) ON DELETE CASCADE,
    entry_id          INTEGER NOT NULL REFERENCES entries(id),
    run_index         INTEGER,            -- N of result_N.txt; NULL when the name has none
    platform          TEXT,               -- submission_platform as logged
    seed              INTEGER,
    run_start         REAL,               -- seconds (unix time for MLPerf; 0 for DAWNBench)
    run_stop          REAL,
    status            TEXT NOT NULL CHECK (status IN ('success', 'aborted', 'unknown')),
    target            REAL,               -- quality target logged by the run itself, if any
    target2           REAL,
    global_batch_size REAL,
    train_samples     REAL,               -- training-set size, when logged
    eval_samples      REAL,
    dawnbench_tta     REAL                -- DAWNBench only: seconds at the first epoch at threshold
);
CREATE INDEX runs_entry ON runs(entry_id);

-- Every log record of a run, in file order, kept as one JSON array per run:
-- [[line, time, key, value, metadata, epoch_num, samples], ...] (value and metadata as JSON).
-- One row per run instead of one per record makes ingest several times faster (a round holds
-- hundreds of thousands of records); the view `events` below gives one row per record.
CREATE TABLE event_log (
    run_id  INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    n       INTEGER NOT NULL,             -- records in the array
    records TEXT NOT NULL                 -- JSON array, one element per record
);

-- One row per log record.
CREATE VIEW events AS
SELECT l.run_id,
       CAST(j.key AS INTEGER)  AS seq,
       j.value ->> '$[0]'      AS line,
       j.value ->> '$[1]'      AS time,
       j.value ->> '$[2]'      AS key,
       j.value -> '$[3]'       AS value,
       CASE WHEN json_type(j.value, '$[4]') = 'null' THEN NULL ELSE j.value -> '$[4]' END AS metadata,
       j.value ->> '$[5]'      AS epoch_num,
       j.value ->> '$[6]'      AS samples
FROM event_log l, json_each(l.records) j;

-- Evaluations of quality, in file order.
CREATE TABLE evaluations (
    run_id   INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq      INTEGER NOT NULL,
    time     REAL,
    epoch    REAL,                        -- epochs completed, counting from 1
    samples  REAL,
    quality  REAL,
    quality2 REAL,                        -- second metric (maskrcnn SEGM)
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;

-- Epoch boundaries (epoch_start/epoch_stop markers, DAWNBench rows).
CREATE TABLE epochs (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq    INTEGER NOT NULL,
    epoch  REAL,
    start  REAL,
    stop   REAL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;

-- Hyperparameters (opt_*, batch sizes, DAWNBench misc), value as JSON. A key logged several
-- times (every rank) keeps its first value.
CREATE TABLE hyperparameters (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    key    TEXT NOT NULL,
    value  TEXT,
    PRIMARY KEY (run_id, key)
) WITHOUT ROWID;

-- MLPerf power logs: samples linked to the run they measured (result_N of the same entry).
CREATE TABLE power_samples (
    source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
    round     TEXT,
    submitter TEXT,
    system    TEXT,
    benchmark TEXT,
    run_index INTEGER,
    node      TEXT,
    time      REAL,
    key       TEXT,
    value     REAL
);
CREATE INDEX power_samples_run ON power_samples(round, submitter, system, benchmark, run_index);

-- Quality targets per round and benchmark ('*' = any round without its own row), in the scale
-- the ingest normalises qualities to (docs/ingest.md): fractions for accuracy, mAP, AUC, hit
-- rate and win rate; BLEU points; percent for DAWNBench.
CREATE TABLE targets (
    round            TEXT NOT NULL,
    benchmark        TEXT NOT NULL,
    metric           TEXT NOT NULL,
    target           REAL NOT NULL,
    higher_is_better INTEGER NOT NULL,
    metric2          TEXT,
    target2          REAL,
    unit             TEXT NOT NULL,       -- 'epochs' or 'samples': how progress is counted
    PRIMARY KEY (round, benchmark)
);
INSERT INTO targets VALUES
    ('v0.5', 'resnet',      'top1',        0.749,  1, NULL,   NULL,  'epochs'),
    ('v0.5', 'ssd',         'mAP',         0.212,  1, NULL,   NULL,  'epochs'),
    ('v0.5', 'maskrcnn',    'bbox_mAP',    0.377,  1, 'segm_mAP', 0.339, 'epochs'),
    ('v0.5', 'gnmt',        'BLEU',        21.8,   1, NULL,   NULL,  'epochs'),
    ('v0.5', 'transformer', 'BLEU',        25.0,   1, NULL,   NULL,  'epochs'),
    ('v0.5', 'ncf',         'hit_rate',    0.635,  1, NULL,   NULL,  'epochs'),
    ('v0.5', 'minigo',      'win_rate',    0.40,   1, NULL,   NULL,  'epochs'),
    ('v0.6', 'resnet',      'top1',        0.759,  1, NULL,   NULL,  'epochs'),
    ('v0.6', 'ssd',         'mAP',         0.23,   1, NULL,   NULL,  'epochs'),
    ('v0.6', 'maskrcnn',    'bbox_mAP',    0.377,  1, 'segm_mAP', 0.339, 'epochs'),
    ('v0.6', 'gnmt',        'BLEU',        24.0,   1, NULL,   NULL,  'epochs'),
    ('v0.6', 'transformer', 'BLEU',        25.0,   1, NULL,   NULL,  'epochs'),
    ('v0.6', 'minigo',      'win_rate',    0.50,   1, NULL,   NULL,  'epochs'),
    ('*',    'resnet',      'top1',        0.759,  1, NULL,   NULL,  'epochs'),
    ('*',    'ssd',         'mAP',         0.23,   1, NULL,   NULL,  'epochs'),
    ('*',    'retinanet',   'mAP',         0.34,   1, NULL,   NULL,  'epochs'),
    ('*',    'maskrcnn',    'bbox_mAP',    0.377,  1, 'segm_mAP', 0.339, 'epochs'),
    ('*',    'gnmt',        'BLEU',        24.0,   1, NULL,   NULL,  'epochs'),
    ('*',    'transformer', 'BLEU',        25.0,   1, NULL,   NULL,  'epochs'),
    ('*',    'minigo',      'win_rate',    0.50,   1, NULL,   NULL,  'epochs'),
    ('v0.7', 'bert',        'mlm_accuracy', 0.712, 1, NULL,   NULL,  'samples'),
    ('*',    'bert',        'mlm_accuracy', 0.720, 1, NULL,   NULL,  'samples'),
    ('*',    'dlrm',        'AUC',         0.8025, 1, NULL,   NULL,  'epochs'),
    ('*',    'dlrm_dcnv2',  'AUC',         0.80275, 1, NULL,  NULL,  'samples'),
    ('*',    'rnnt',        'WER',         0.058,  0, NULL,   NULL,  'epochs'),
    ('*',    'unet3d',      'mean_dice',   0.908,  1, NULL,   NULL,  'epochs'),
    ('*',    'gpt3',        'log_perplexity', 2.69, 0, NULL,  NULL,  'samples'),
    ('*',    'llama2_70b_lora', 'eval_loss', 0.925, 0, NULL,  NULL,  'samples'),
    ('*',    'stable_diffusion', 'FID',    90.0,   0, 'CLIP', 0.15,  'samples'),
    ('*',    'gnn',         'accuracy',    0.72,   1, NULL,   NULL,  'samples'),
    ('dawnbench', 'cifar10',  'top1',      94.0,   1, NULL,   NULL,  'epochs'),
    ('dawnbench', 'imagenet', 'top5',      93.0,   1, NULL,   NULL,  'epochs'),
    ('dawnbench', 'squad',    'F1',        75.0,   1, NULL,   NULL,  'epochs'),
    -- No official threshold: tta's choice for the Fashion-MNIST claims (docs/ingest.md).
    ('dawnbench', 'fashion-mnist', 'top1', 88.0,   1, NULL,   NULL,  'epochs');

-- The target that applies to each run: its own logged target, else the round's, else '*'.
CREATE VIEW run_targets AS
SELECT r.id AS run_id,
       COALESCE(r.target, t.target, tw.target)  AS target,
       COALESCE(r.target2, t.target2, tw.target2) AS target2,
       COALESCE(t.higher_is_better, tw.higher_is_better, 1) AS higher_is_better,
       COALESCE(t.metric, tw.metric) AS metric,
       COALESCE(t.unit, tw.unit, 'epochs') AS unit
FROM runs r
JOIN entries e ON e.id = r.entry_id
LEFT JOIN targets t ON t.round = e.round AND t.benchmark = e.benchmark
LEFT JOIN targets tw ON tw.round = '*' AND tw.benchmark = e.benchmark;

-- Does each evaluation meet its run's target (relative tolerance 1e-6: logs print float32)?
CREATE VIEW evaluation_meets AS
SELECT v.run_id, v.seq, v.time, v.epoch, v.samples, v.quality, v.quality2,
       CASE
         WHEN rt.target IS NULL OR v.quality IS NULL THEN NULL
         WHEN (CASE WHEN rt.higher_is_better
                    THEN v.quality >= rt.target - 1e-6 * abs(rt.target)
                    ELSE v.quality <= rt.target + 1e-6 * abs(rt.target) END)
          AND (rt.target2 IS NULL OR v.quality2 IS NULL OR
               (CASE WHEN rt.higher_is_better
                     THEN v.quality2 >= rt.target2 - 1e-6 * abs(rt.target2)
                     ELSE v.quality2 <= rt.target2 + 1e-6 * abs(rt.target2) END))
         THEN 1 ELSE 0 END AS meets
FROM evaluations v JOIN run_targets rt ON rt.run_id = v.run_id;

-- Per-run time to accuracy: the MLPerf rule (run_stop - run_start) or DAWNBench's (time of the
-- first epoch at the threshold); reached = the last evaluation meets the target; epochs = the
-- epoch count at the first evaluation that meets it.
CREATE VIEW run_tta AS
SELECT r.id AS run_id,
       e.id AS entry_id,
       e.round, e.division, e.submitter, e.system, e.benchmark,
       s.path AS file,
       r.run_index, r.seed, r.status,
       r.run_start, r.run_stop,
       (SELECT m.meets FROM evaluation_meets m WHERE m.run_id = r.id ORDER BY m.seq DESC LIMIT 1) AS reached,
       CASE WHEN e.round = 'dawnbench' THEN r.dawnbench_tta
            ELSE r.run_stop - r.run_start END AS tta_s,
       (SELECT m.epoch FROM evaluation_meets m WHERE m.run_id = r.id AND m.meets = 1 ORDER BY m.seq LIMIT 1) AS epochs,
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
LEFT JOIN systems sy ON sy.id = (SELECT id FROM systems x
                                 WHERE x.round = e.round AND x.submitter = e.submitter AND x.name = e.system
                                 ORDER BY x.id DESC LIMIT 1);
