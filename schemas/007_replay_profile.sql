-- tta database schema: a replay's profile, typed: the memory the trainer allocated by category
-- (the log's tta_memory record) and each layer's FLOPs, bytes and time per step (its
-- tta_layer_profile record). common/replay_log.h names the records, common/profile_json.h their
-- members; a column is named as its member, and db/ builds its SQL of these columns from those
-- names. Ingest's parser fills them like any other record (the last of each record counts); the
-- records stay in event_log too.

-- One row per run whose log gives a tta_memory record: bytes by category (NULL where the record
-- lacks the member or it is not a number).
CREATE TABLE replay_memory (
    run_id          INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    weights         INTEGER,                -- parameters
    buffers         INTEGER,                -- batch-norm running statistics and the like
    weight_grads    INTEGER,
    optimizer_state INTEGER,                -- momentum and the like
    feature_maps    INTEGER,                -- activations, their gradients and what backward keeps
    workspace       INTEGER,                -- the kernels' scratch
    eval            INTEGER,                -- the inference path's buffers
    data            INTEGER                 -- the datasets held in memory (training, unseen, validation)
);

-- One row per run whose log gives a tta_layer_profile record.
CREATE TABLE replay_layer_profiles (
    run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    steps  INTEGER                          -- the training steps its times average over; NULL not a number
);

-- One row per layer of it, in the record's order (the optimizer's update is not a layer here).
CREATE TABLE replay_layers (
    run_id INTEGER NOT NULL REFERENCES replay_layer_profiles(run_id) ON DELETE CASCADE,
    idx    INTEGER NOT NULL,                -- its place in the record's layers, from 0
    name   TEXT,                            -- NULL where not a string
    type   TEXT,
    flops  REAL,                            -- analytic FLOPs of one step, forward and backward
    bytes  REAL,                            -- analytic bytes moved in one step
    time_s REAL,                            -- measured seconds per step (0: fused into another layer)
    PRIMARY KEY (run_id, idx)
) WITHOUT ROWID;

-- Replays stored before this version: the same rows, once, from their stored records
-- (event_log.records elements are [line, time, key, value, metadata, ...]); the last record of
-- each kind whose value is an object counts, as in the parser (a layer that is not an object: a
-- row of NULLs).
CREATE TEMP TABLE old_profile_records AS
SELECT run_id, key, v FROM (
    SELECT l.run_id, j.value ->> '$[2]' AS key, j.value -> '$[3]' AS v,
           row_number() OVER (PARTITION BY l.run_id, j.value ->> '$[2]' ORDER BY CAST(j.key AS INTEGER) DESC) AS latest
    FROM event_log l, json_each(l.records) j
    WHERE (instr(l.records, '"tta_memory"') > 0 OR instr(l.records, '"tta_layer_profile"') > 0)
      AND j.value ->> '$[2]' IN ('tta_memory', 'tta_layer_profile') AND json_type(j.value, '$[3]') = 'object')
WHERE latest = 1;

INSERT INTO replay_memory(run_id, weights, buffers, weight_grads, optimizer_state, feature_maps, workspace, eval, data)
SELECT run_id,
       CASE WHEN json_type(v, '$.weights') IN ('integer', 'real') THEN v ->> '$.weights' END,
       CASE WHEN json_type(v, '$.buffers') IN ('integer', 'real') THEN v ->> '$.buffers' END,
       CASE WHEN json_type(v, '$.weight_grads') IN ('integer', 'real') THEN v ->> '$.weight_grads' END,
       CASE WHEN json_type(v, '$.optimizer_state') IN ('integer', 'real') THEN v ->> '$.optimizer_state' END,
       CASE WHEN json_type(v, '$.feature_maps') IN ('integer', 'real') THEN v ->> '$.feature_maps' END,
       CASE WHEN json_type(v, '$.workspace') IN ('integer', 'real') THEN v ->> '$.workspace' END,
       CASE WHEN json_type(v, '$.eval') IN ('integer', 'real') THEN v ->> '$.eval' END,
       CASE WHEN json_type(v, '$.data') IN ('integer', 'real') THEN v ->> '$.data' END
FROM old_profile_records WHERE key = 'tta_memory';

INSERT INTO replay_layer_profiles(run_id, steps)
SELECT run_id, CASE WHEN json_type(v, '$.steps') IN ('integer', 'real') THEN v ->> '$.steps' END
FROM old_profile_records WHERE key = 'tta_layer_profile';

INSERT INTO replay_layers(run_id, idx, name, type, flops, bytes, time_s)
SELECT p.run_id, CAST(l.key AS INTEGER),
       CASE WHEN l.type <> 'object' THEN NULL WHEN json_type(l.value, '$.name') = 'text' THEN l.value ->> '$.name' END,
       CASE WHEN l.type <> 'object' THEN NULL WHEN json_type(l.value, '$.type') = 'text' THEN l.value ->> '$.type' END,
       CASE WHEN l.type <> 'object' THEN NULL
            WHEN json_type(l.value, '$.flops') IN ('integer', 'real') THEN l.value ->> '$.flops' END,
       CASE WHEN l.type <> 'object' THEN NULL
            WHEN json_type(l.value, '$.bytes') IN ('integer', 'real') THEN l.value ->> '$.bytes' END,
       CASE WHEN l.type <> 'object' THEN NULL
            WHEN json_type(l.value, '$.time_s') IN ('integer', 'real') THEN l.value ->> '$.time_s' END
FROM old_profile_records p, json_each(p.v, '$.layers') l
WHERE p.key = 'tta_layer_profile' AND json_type(p.v, '$.layers') = 'array';

DROP TABLE old_profile_records;
