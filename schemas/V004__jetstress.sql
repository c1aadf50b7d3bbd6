-- Jetstress tool tables (ingest/formats/jetstress.py, ingest/formats/jetstress_config.py).
CREATE TABLE jetstress_tests (
    source_id BIGINT NOT NULL, report_type VARCHAR, verdict VARCHAR, machine_name VARCHAR, test_description VARCHAR,
    started_at TIMESTAMP, ended_at TIMESTAMP, jetstress_version VARCHAR, ese_version VARCHAR,
    operating_system VARCHAR, performance_log VARCHAR
);
COMMENT ON TABLE jetstress_tests IS 'One row per Jetstress HTML report: type, verdict, machine, times, versions.';
COMMENT ON COLUMN jetstress_tests.report_type IS 'Performance, Stress, DatabaseBackup, SoftRecovery or DBChecksum.';
COMMENT ON COLUMN jetstress_tests.verdict IS 'Overall Test Result as written: Pass or Fail.';

CREATE TABLE jetstress_values (source_id BIGINT NOT NULL, section VARCHAR, label VARCHAR, value_text VARCHAR, line_no INTEGER);
COMMENT ON TABLE jetstress_values IS 'Every label/value pair of the report (grid_row_header cell + value cell), text as written.';

CREATE TABLE jetstress_grids (
    source_id BIGINT NOT NULL, section VARCHAR, row_no INTEGER, col_no INTEGER, row_label VARCHAR,
    column_name VARCHAR, value_text VARCHAR, line_no INTEGER
);
COMMENT ON TABLE jetstress_grids IS 'Every cell of every grid table (per-volume, per-instance, host counters), text as written.';

CREATE TABLE jetstress_log (source_id BIGINT NOT NULL, section VARCHAR, line_no INTEGER, logged_at TIMESTAMP, message VARCHAR);
COMMENT ON TABLE jetstress_log IS 'The Test Log lines (M/D/YYYY h:mm:ss AM -- message).';

CREATE TABLE jetstress_config (source_id BIGINT NOT NULL, path VARCHAR, value_text VARCHAR);
COMMENT ON TABLE jetstress_config IS 'Every element and attribute of a JetstressConfig.xml, as /configuration/... paths.';

CREATE TABLE jetstress_thresholds (
    source_id BIGINT NOT NULL, name VARCHAR, test_run_types VARCHAR, avg_db_read_latency_ms DOUBLE,
    max_db_read_latency_ms DOUBLE, avg_log_write_latency_ms DOUBLE, max_log_write_latency_ms DOUBLE
);
COMMENT ON TABLE jetstress_thresholds IS 'Latency thresholds of a JetstressConfig.xml (Strict, Lenient), milliseconds.';
