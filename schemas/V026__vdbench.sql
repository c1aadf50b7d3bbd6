-- vdbench summary.html, totals.html and flatfile.html (ingest/formats/vdbench_summary.py, vdbench_flatfile.py).
CREATE TABLE vdbench_values (
    source_id BIGINT NOT NULL, file_kind VARCHAR, run_key VARCHAR, rd VARCHAR, interval VARCHAR, tod VARCHAR,
    column_name VARCHAR, value DOUBLE, text VARCHAR, line_no INTEGER
);
COMMENT ON TABLE vdbench_values IS 'Every value of the vdbench tables, one row per line and column: summary/totals interval and avg_ lines, the flatfile avg_ lines (flatfile interval lines are time series), and each RD''s settings from its Starting RD= line (interval ''(settings)'').';
COMMENT ON COLUMN vdbench_values.source_id IS 'The file (source_files).';
COMMENT ON COLUMN vdbench_values.file_kind IS 'summary, totals or flatfile.';
COMMENT ON COLUMN vdbench_values.run_key IS 'The run within the file (runs.run_key): run1, run2... one per Starting RD= line (summary/totals) or per RD and interval sequence (flatfile).';
COMMENT ON COLUMN vdbench_values.rd IS 'The RD name (Starting RD=..., flatfile Run column).';
COMMENT ON COLUMN vdbench_values.interval IS 'Interval number, avg_N-M for the run average, or (settings) for an RD setting.';
COMMENT ON COLUMN vdbench_values.tod IS 'Time of day printed at the start of the line (no date); NULL for settings.';
COMMENT ON COLUMN vdbench_values.column_name IS 'Column name: the header words joined by position (i/o rate, ReqstdOps resp, MB/sec 1024**2) or the flatfile header word; for settings the setting name (threads, elapsed, I/O rate).';
COMMENT ON COLUMN vdbench_values.value IS 'The number as written (MB/sec still in 2^20 bytes); NULL when the cell is text such as n/a.';
COMMENT ON COLUMN vdbench_values.text IS 'The cell as written when it is not a number (n/a, a timestamp, a setting value); NULL otherwise.';
COMMENT ON COLUMN vdbench_values.line_no IS 'Line of the raw file.';
