-- Jetstress test log / JetstressCmd console transcript (ingest/formats/jetstress_log.py).
CREATE TABLE jetstress_log_tests (
    source_id BIGINT NOT NULL, jetstress_edition VARCHAR, jetstress_version VARCHAR, ese_version VARCHAR,
    ese_perflib_version VARCHAR, operating_system VARCHAR, os_version VARCHAR, operation_mode VARCHAR,
    verdict VARCHAR, started_at TIMESTAMP, ended_at TIMESTAMP
);
COMMENT ON TABLE jetstress_log_tests IS 'One row per Jetstress text log: versions, operating system, mode and verdict as the log states them.';
COMMENT ON COLUMN jetstress_log_tests.source_id IS 'The source file (source_files.source_id).';
COMMENT ON COLUMN jetstress_log_tests.jetstress_edition IS 'Year in "Microsoft Exchange Jetstress 2013 Core Engine" (NULL when the line names none).';
COMMENT ON COLUMN jetstress_log_tests.jetstress_version IS 'Engine version as written, e.g. 15.00.0995.000.';
COMMENT ON COLUMN jetstress_log_tests.ese_version IS 'Database Storage Engine (ESE) version as written.';
COMMENT ON COLUMN jetstress_log_tests.ese_perflib_version IS 'ESE Performance Library version as written.';
COMMENT ON COLUMN jetstress_log_tests.operating_system IS 'Operating system name as detected, e.g. Windows Server 2012 R2 Standard.';
COMMENT ON COLUMN jetstress_log_tests.os_version IS 'Operating system version in brackets, e.g. 6.2.9200.0.';
COMMENT ON COLUMN jetstress_log_tests.operation_mode IS 'Operation mode is <mode> (Performance, Stress, DatabaseBackup, SoftRecovery...).';
COMMENT ON COLUMN jetstress_log_tests.verdict IS 'Overall Test Result as written (Pass or Fail); NULL when the log states none.';
COMMENT ON COLUMN jetstress_log_tests.started_at IS 'Time of the first timed line (local time of the test machine).';
COMMENT ON COLUMN jetstress_log_tests.ended_at IS 'Time of the last timed line.';

CREATE TABLE jetstress_log_events (
    source_id BIGINT NOT NULL, line_no INTEGER, logged_at TIMESTAMP, logged_at_text VARCHAR, message VARCHAR, kind VARCHAR
);
COMMENT ON TABLE jetstress_log_events IS 'Every non-blank line of the log, in order.';
COMMENT ON COLUMN jetstress_log_events.source_id IS 'The source file (source_files.source_id).';
COMMENT ON COLUMN jetstress_log_events.line_no IS '1-based line number in the file.';
COMMENT ON COLUMN jetstress_log_events.logged_at IS 'The time, parsed as M/D/YYYY h:mm:ss AM (NULL for untimed lines or another culture''s form).';
COMMENT ON COLUMN jetstress_log_events.logged_at_text IS 'The time exactly as written before " -- " (NULL for untimed lines).';
COMMENT ON COLUMN jetstress_log_events.message IS 'The text after " -- ", or the whole untimed line (console wraps, PowerShell error records).';
COMMENT ON COLUMN jetstress_log_events.kind IS 'version, phase, setting, result, message (timed lines) or untimed.';

CREATE TABLE jetstress_log_values (
    source_id BIGINT NOT NULL, line_no INTEGER, name VARCHAR, target VARCHAR, value DOUBLE, unit VARCHAR, value_text VARCHAR
);
COMMENT ON TABLE jetstress_log_values IS 'Every number a recognised log line states, as written (the measured ones are also samples, in canonical units).';
COMMENT ON COLUMN jetstress_log_values.source_id IS 'The source file (source_files.source_id).';
COMMENT ON COLUMN jetstress_log_values.line_no IS '1-based line number in the file.';
COMMENT ON COLUMN jetstress_log_values.name IS 'What the number is, in the log''s words (I/O Database Reads Average Latency, Avg. Disk sec/Read, Inserts...).';
COMMENT ON COLUMN jetstress_log_values.target IS 'Instance, volume or performance-log file the number is about (NULL for the whole test).';
COMMENT ON COLUMN jetstress_log_values.value IS 'The number as written (Avg. Disk sec/Read stays in seconds here).';
COMMENT ON COLUMN jetstress_log_values.unit IS 'Unit as the line states it (ms, s, %, count, IO/s, 1/s), NULL where the line names none.';
COMMENT ON COLUMN jetstress_log_values.value_text IS 'The number''s text exactly as written.';
