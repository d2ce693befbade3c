-- tta database schema, version 2: profiles of training steps (`tta profile`) and the measured
-- peaks of each host (`tta profile --peaks`), for `tta report profile` and its roofline.
-- Sizes are bytes, times seconds, rates GFLOP/s and GB/s (10^9).

-- One row per `tta profile --peaks`: the roofs of a host.
CREATE TABLE host_peaks (
    id           INTEGER PRIMARY KEY,
    host         TEXT NOT NULL,
    device       TEXT NOT NULL,              -- "cpu"
    threads      INTEGER NOT NULL,
    sgemm_gflops REAL NOT NULL,              -- OpenBLAS SGEMM, n = 2048, best of 4
    mem_gbs      REAL NOT NULL,              -- STREAM triad, 3 x 4 bytes per element
    copy_gbs     REAL,
    measured_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE INDEX host_peaks_host ON host_peaks(host, device, threads);

-- The latest peaks of each host, device and thread count.
CREATE VIEW latest_peaks AS
SELECT p.* FROM host_peaks p
WHERE p.id = (SELECT max(q.id) FROM host_peaks q
              WHERE q.host = p.host AND q.device = p.device AND q.threads = p.threads);

-- One row per profiled configuration (a `tta profile` run, or one batch size of a sweep).
CREATE TABLE profiles (
    id               INTEGER PRIMARY KEY,
    sweep            INTEGER,                -- profiles of one --batch-sweep share it (the first's id)
    host             TEXT NOT NULL,
    device           TEXT NOT NULL,
    threads          INTEGER NOT NULL,
    spec             TEXT,
    model            TEXT NOT NULL,
    batch            INTEGER NOT NULL,
    warmup_steps     INTEGER NOT NULL,
    settled          INTEGER NOT NULL,       -- 1: throughput settled before measuring
    measured_steps   INTEGER NOT NULL,
    step_s           REAL NOT NULL,
    samples_per_s    REAL NOT NULL,
    flops_per_step   REAL NOT NULL,
    bytes_per_step   REAL NOT NULL,
    gflops           REAL NOT NULL,
    data_s           REAL, forward_s REAL, backward_s REAL, optimizer_s REAL, unattributed_s REAL,
    mem_weights      INTEGER NOT NULL,
    mem_weight_grads INTEGER NOT NULL,
    mem_optimizer_state INTEGER NOT NULL,
    mem_feature_maps INTEGER NOT NULL,
    mem_workspace    INTEGER NOT NULL,
    mem_data         INTEGER NOT NULL,
    mem_total        INTEGER NOT NULL,
    json             TEXT NOT NULL,          -- the whole `tta profile --format json` object
    measured_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);

-- The rows of a profile: the model's layers, then the optimizer update.
CREATE TABLE profile_layers (
    profile_id  INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    idx         INTEGER NOT NULL,
    name        TEXT NOT NULL,
    type        TEXT NOT NULL,
    fused_into  TEXT,
    flops       REAL NOT NULL,
    bytes       REAL NOT NULL,
    time_s      REAL NOT NULL,
    gflops      REAL,                        -- NULL when not timed (fused into another layer)
    intensity   REAL,                        -- flops / bytes
    PRIMARY KEY (profile_id, idx)
);
