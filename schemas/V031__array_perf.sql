-- Storage Manager / Dell MDSM array performance statistics (ingest/formats/array_perf.py).
CREATE TABLE array_perf_captures (
    source_id BIGINT NOT NULL, dialect VARCHAR, array_name VARCHAR, title_text VARCHAR, captured_at_text VARCHAR,
    polling_interval_s DOUBLE, line_no INTEGER
);
COMMENT ON TABLE array_perf_captures IS 'One row per statistics file: which array, when, how often the Performance Monitor polled.';
COMMENT ON COLUMN array_perf_captures.source_id IS 'The file (source_files).';
COMMENT ON COLUMN array_perf_captures.dialect IS 'monitor (Performance Monitor "Save Performance Statistics" CSV, per capture iteration) or counters (support bundle performanceStatistics.csv, cumulative counters).';
COMMENT ON COLUMN array_perf_captures.array_name IS 'The storage array / subsystem name: from the title, or the "<array>, Slot N" block line.';
COMMENT ON COLUMN array_perf_captures.title_text IS 'The title row as written (monitor); NULL for counters.';
COMMENT ON COLUMN array_perf_captures.captured_at_text IS 'Date/Time of the title (locale-formatted, as written); NULL for counters (each row carries its own Time).';
COMMENT ON COLUMN array_perf_captures.polling_interval_s IS 'Polling interval in seconds (monitor); NULL for counters.';
COMMENT ON COLUMN array_perf_captures.line_no IS 'Line of the raw file.';

CREATE TABLE array_perf_values (
    source_id BIGINT NOT NULL, dialect VARCHAR, iteration INTEGER, captured_at_text VARCHAR, controller VARCHAR,
    object_kind VARCHAR, object_name VARCHAR, column_name VARCHAR, value_text VARCHAR, line_no INTEGER
);
COMMENT ON TABLE array_perf_values IS 'Every cell of the statistics, one row per object and column, as written (KB/second in 2^10 bytes; counters as printed, negative when a signed 32-bit counter wrapped).';
COMMENT ON COLUMN array_perf_values.source_id IS 'The file (source_files).';
COMMENT ON COLUMN array_perf_values.dialect IS 'monitor or counters (see array_perf_captures.dialect).';
COMMENT ON COLUMN array_perf_values.iteration IS 'Capture Iteration number (monitor; runs.run_key iterationN); NULL for counters (run counters).';
COMMENT ON COLUMN array_perf_values.captured_at_text IS 'Date/Time of the capture iteration (monitor) or the row''s Time cell (counters), as written.';
COMMENT ON COLUMN array_perf_values.controller IS 'The controller block the row sits in: Slot A/B/0/1; NULL for the array totals.';
COMMENT ON COLUMN array_perf_values.object_kind IS 'controller, volume (virtual disk / logical drive / volume) or totals (STORAGE ARRAY/SUBSYSTEM TOTALS).';
COMMENT ON COLUMN array_perf_values.object_name IS 'The volume name without its "Virtual Disk "/"Logical Drive "/"Volume " prefix; the row label for controllers and totals.';
COMMENT ON COLUMN array_perf_values.column_name IS 'The column as the file names it (Total IOs, Current KB/second, Total Cache Read Check Hits...), or note for "No Performance data to gather".';
COMMENT ON COLUMN array_perf_values.value_text IS 'The cell as written (empty when the monitor had no value).';
COMMENT ON COLUMN array_perf_values.line_no IS 'Line of the raw file.';
