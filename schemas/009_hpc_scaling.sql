-- tta database schema: MLPerf HPC's strong- and weak-scaling results.
--
-- From v1.0 an MLPerf HPC system folder holds strong/<benchmark>/ (the runs of one training, scored
-- like MLPerf Training's: the olympic mean of the times to train) and weak/<benchmark>/ (many model
-- instances trained at once on one machine, scored by MLCommons' result summarizer as the time
-- from the first instance's run_start to the last one's run_stop, with the number of instances and
-- the accelerators of one). The folder sets the entry's scaling; the instance's size is what its log
-- says (the summarizer reads number_of_nodes and accelerators_per_node from the log, not from the
-- system description).

-- 'strong' or 'weak' for an MLPerf HPC entry from v1.0 (the folder its runs are in); NULL
-- elsewhere (v0.7 HPC folders and MLPerf Training are strong-scaling results without the folder).
ALTER TABLE entries ADD COLUMN scaling TEXT CHECK (scaling IN ('strong', 'weak'));

-- The log's number_of_nodes and accelerators_per_node records (the first of each); NULL when the
-- log has none or its value is not a count.
ALTER TABLE runs ADD COLUMN log_nodes INTEGER;
ALTER TABLE runs ADD COLUMN log_accelerators_per_node INTEGER;
