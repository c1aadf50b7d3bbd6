-- elbencho --csvfile, --livecsv and --resfile text results (ingest/formats/elbencho_csv.py, elbencho_text.py).
CREATE TABLE elbencho_values (
    source_id BIGINT NOT NULL, file_kind VARCHAR, run_key VARCHAR, phase VARCHAR, column_name VARCHAR,
    value DOUBLE, text VARCHAR, line_no INTEGER
);
COMMENT ON TABLE elbencho_values IS 'Every cell of an elbencho result: one row per phase and column of the --csvfile CSV, per result line and column (first/last done, min/avg/max, percentiles) of the --resfile text, plus the text''s ISO DATE and COMMAND LINE. Numbers as written (MiB/s, us, ms).';
COMMENT ON COLUMN elbencho_values.source_id IS 'The file (source_files).';
COMMENT ON COLUMN elbencho_values.file_kind IS 'csv (--csvfile), live (--livecsv: its non-empty text cells, Label and Service; the numbers are time series) or text (--resfile).';
COMMENT ON COLUMN elbencho_values.run_key IS 'The run within the file (runs.run_key): one per phase row (csv) or phase block (text).';
COMMENT ON COLUMN elbencho_values.phase IS 'The phase (operation) as elbencho names it: WRITE, READ, RWMIX70, MIX-T, MKDIRS, SYNC, RMFILES...; NULL for the text header lines.';
COMMENT ON COLUMN elbencho_values.column_name IS 'The CSV header name (IOPS [last], IO lat us [avg], command) or, for text, the result type and column (IOPS [last], IO latency [avg], IO lat % us [99%], ISO DATE).';
COMMENT ON COLUMN elbencho_values.value IS 'The number as written, in elbencho''s unit (MiB/s, us, ms, count); for text latencies with a unit suffix (2.38ms) the value in microseconds. NULL for text cells and empty cells.';
COMMENT ON COLUMN elbencho_values.text IS 'The cell as written when it is not a plain number (label, path type, version, command line, 2.38ms); NULL otherwise.';
COMMENT ON COLUMN elbencho_values.line_no IS 'Line of the raw file.';
