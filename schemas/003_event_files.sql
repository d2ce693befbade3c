-- tta database schema, version 3: the source-file paths a run's records name in their metadata
-- ("file": "/workspace/.../train.py", the logging call's site) are kept once per run.
--
-- In a record-dense log the path is a third of every record's bytes and a run names a handful
-- of them. event_log.files holds the run's distinct paths as a JSON array; a record whose
-- metadata "file" was replaced by its index into it carries an eighth element, 1:
-- [line, time, key, value, metadata, epoch_num, samples, 1]. The view `events` puts the path
-- back in place (same member, same position), so its metadata is what the log said. Rows
-- stored before this version have no files and no eighth element and read as before.
ALTER TABLE event_log ADD COLUMN files TEXT; -- JSON array of strings, or NULL

DROP VIEW events;
CREATE VIEW events AS
SELECT l.run_id,
       CAST(j.key AS INTEGER)  AS seq,
       j.value ->> '$[0]'      AS line,
       j.value ->> '$[1]'      AS time,
       j.value ->> '$[2]'      AS key,
       j.value -> '$[3]'       AS value,
       CASE WHEN json_type(j.value, '$[4]') = 'null' THEN NULL
            WHEN j.value ->> '$[7]' = 1
            THEN json_set(j.value -> '$[4]', '$.file',
                          l.files ->> ('$[' || (j.value ->> '$[4].file') || ']'))
            ELSE j.value -> '$[4]' END AS metadata,
       j.value ->> '$[5]'      AS epoch_num,
       j.value ->> '$[6]'      AS samples
FROM event_log l, json_each(l.records) j;
