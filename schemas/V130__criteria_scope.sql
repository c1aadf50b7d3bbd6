-- A correction's scope beside its tool (ingest/formats/criteria.py, version 2): the metric roles and
-- canonical units it applies to (views study_corrections, metric_corrections in 025_declared.sql;
-- the tool column scopes qos_verdicts and sizing).
ALTER TABLE qos_criteria ADD COLUMN roles VARCHAR;
ALTER TABLE qos_criteria ADD COLUMN units VARCHAR;
COMMENT ON COLUMN qos_criteria.roles IS 'For a correction (comparator *): the metric roles it applies to (metric_vocabulary.role), ;-separated as the file lists them; NULL: none stated (throughput, the default).';
COMMENT ON COLUMN qos_criteria.units IS 'For a correction: the canonical units it is narrowed to (metric_vocabulary.unit), ;-separated; NULL: every unit of its roles.';
COMMENT ON COLUMN qos_criteria.tool IS 'The tool whose runs the row applies to, as runs.tool names it (any case), or any.';
