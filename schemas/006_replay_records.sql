-- tta database schema: the records tta's replays log of themselves, typed (docs/replay.md,
-- common/replay_log.h names them). Ingest's parser fills these tables from a replay log like
-- any other record; the log's records stay in event_log too. A breakdown column is named as the
-- log's member (tta_breakdown_names): db/ builds its SQL of these columns from those names.

-- One row per run whose log gives one of tta's own run records (tta_world_size, tta_replay_of,
-- tta_to_schedule_end, tta_unseen_accuracy, tta_shifted_accuracy): a replay. Its eval_target is
-- runs.target.
CREATE TABLE replay_runs (
    run_id           INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    world_size       INTEGER,               -- data-parallel workers K (the last logged); NULL none
    replay_of        TEXT,                  -- the claim it replays, round/division/submitter/system/benchmark
    to_schedule_end  INTEGER,               -- 1: went on past the target to the schedule's end; 0: stopped
    unseen_accuracy  REAL,                  -- the final model's, on data never trained on (after run_stop)
    shifted_accuracy REAL                   -- the same on a shifted copy of it
);

-- One row per tta_epoch_breakdown record: seconds of one epoch, summed over its steps (NULL where
-- the record lacks the field or it is not a number).
CREATE TABLE replay_epoch_breakdown (
    run_id         INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq            INTEGER NOT NULL,        -- the record's place among the run's breakdowns, log order
    epoch          REAL,                    -- its metadata epoch_num
    epoch_s        REAL,                    -- training time of the epoch
    data_s         REAL,                    -- waiting for the loader
    forward_s      REAL,
    backward_s     REAL,                    -- without the communication calls of the backward hook
    optimizer_s    REAL,
    comm_exposed_s REAL,                    -- the training thread's time in communication calls
    comm_total_s   REAL,                    -- every bucket's duration, hidden or not
    eval_s         REAL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;

-- One row per rank of a breakdown's rank_comm_total_s (rank order).
CREATE TABLE replay_rank_comm (
    run_id       INTEGER NOT NULL,
    seq          INTEGER NOT NULL,
    rank         INTEGER NOT NULL,
    comm_total_s REAL,                      -- NULL when not a number
    PRIMARY KEY (run_id, seq, rank),
    FOREIGN KEY (run_id, seq) REFERENCES replay_epoch_breakdown(run_id, seq) ON DELETE CASCADE
) WITHOUT ROWID;

-- Replays stored before this version: the same rows, once, from their stored records
-- (event_log.records elements are [line, time, key, value, metadata, epoch_num, samples, ...]).
CREATE TEMP TABLE old_run_records AS
SELECT l.run_id, CAST(j.key AS INTEGER) AS pos, j.value ->> '$[2]' AS key, json_type(j.value, '$[3]') AS type,
       j.value ->> '$[3]' AS value
FROM event_log l, json_each(l.records) j
WHERE (instr(l.records, '"tta_world_size"') > 0 OR instr(l.records, '"tta_replay_of"') > 0
       OR instr(l.records, '"tta_to_schedule_end"') > 0 OR instr(l.records, '"tta_unseen_accuracy"') > 0
       OR instr(l.records, '"tta_shifted_accuracy"') > 0)
  AND j.value ->> '$[2]' IN ('tta_world_size', 'tta_replay_of', 'tta_to_schedule_end', 'tta_unseen_accuracy',
                             'tta_shifted_accuracy');

INSERT INTO replay_runs(run_id, world_size, replay_of, to_schedule_end, unseen_accuracy, shifted_accuracy)
SELECT r.run_id,
       (SELECT CASE WHEN type IN ('integer', 'real') THEN CAST(value AS INTEGER) END FROM old_run_records x
        WHERE x.run_id = r.run_id AND key = 'tta_world_size' ORDER BY pos DESC LIMIT 1),
       (SELECT value FROM old_run_records x
        WHERE x.run_id = r.run_id AND key = 'tta_replay_of' AND type = 'text' ORDER BY pos LIMIT 1),
       (SELECT value <> 0 FROM old_run_records x
        WHERE x.run_id = r.run_id AND key = 'tta_to_schedule_end' AND type IN ('integer', 'real') ORDER BY pos LIMIT 1),
       (SELECT value FROM old_run_records x
        WHERE x.run_id = r.run_id AND key = 'tta_unseen_accuracy' AND type IN ('integer', 'real') ORDER BY pos LIMIT 1),
       (SELECT value FROM old_run_records x
        WHERE x.run_id = r.run_id AND key = 'tta_shifted_accuracy' AND type IN ('integer', 'real') ORDER BY pos LIMIT 1)
FROM (SELECT DISTINCT run_id FROM old_run_records) r;

DROP TABLE old_run_records;

CREATE TEMP TABLE old_breakdowns AS
SELECT l.run_id, row_number() OVER (PARTITION BY l.run_id ORDER BY CAST(j.key AS INTEGER)) - 1 AS seq, j.value AS v
FROM event_log l, json_each(l.records) j
WHERE instr(l.records, '"tta_epoch_breakdown"') > 0 AND j.value ->> '$[2]' = 'tta_epoch_breakdown';

INSERT INTO replay_epoch_breakdown(run_id, seq, epoch, epoch_s, data_s, forward_s, backward_s, optimizer_s,
                                   comm_exposed_s, comm_total_s, eval_s)
SELECT run_id, seq,
       CASE WHEN json_type(v, '$[5]') IN ('integer', 'real') THEN v ->> '$[5]' END,
       CASE WHEN json_type(v, '$[3].epoch_s') IN ('integer', 'real') THEN v ->> '$[3].epoch_s' END,
       CASE WHEN json_type(v, '$[3].data_s') IN ('integer', 'real') THEN v ->> '$[3].data_s' END,
       CASE WHEN json_type(v, '$[3].forward_s') IN ('integer', 'real') THEN v ->> '$[3].forward_s' END,
       CASE WHEN json_type(v, '$[3].backward_s') IN ('integer', 'real') THEN v ->> '$[3].backward_s' END,
       CASE WHEN json_type(v, '$[3].optimizer_s') IN ('integer', 'real') THEN v ->> '$[3].optimizer_s' END,
       CASE WHEN json_type(v, '$[3].comm_exposed_s') IN ('integer', 'real') THEN v ->> '$[3].comm_exposed_s' END,
       CASE WHEN json_type(v, '$[3].comm_total_s') IN ('integer', 'real') THEN v ->> '$[3].comm_total_s' END,
       CASE WHEN json_type(v, '$[3].eval_s') IN ('integer', 'real') THEN v ->> '$[3].eval_s' END
FROM old_breakdowns;

INSERT INTO replay_rank_comm(run_id, seq, rank, comm_total_s)
SELECT b.run_id, b.seq, k.key, CASE WHEN k.type IN ('integer', 'real') THEN k.value END
FROM old_breakdowns b, json_each(b.v, '$[3].rank_comm_total_s') k
WHERE json_type(b.v, '$[3].rank_comm_total_s') = 'array';

DROP TABLE old_breakdowns;
