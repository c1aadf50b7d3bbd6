-- DiskSpd text (-Rtext) and XML (-Rxml) results (ingest/formats/diskspd_text.py, diskspd_xml.py).
CREATE TABLE diskspd_params (
    source_id BIGINT NOT NULL, run_key VARCHAR, param_no INTEGER, name VARCHAR, value VARCHAR, line_no INTEGER
);
COMMENT ON TABLE diskspd_params IS 'DiskSpd text: the command line and every Input parameters / System information line of a run, in order, as written.';
COMMENT ON COLUMN diskspd_params.source_id IS 'The file (source_files).';
COMMENT ON COLUMN diskspd_params.run_key IS 'The run within the file (runs.run_key): run1, run2... in the order of their Command Line: lines.';
COMMENT ON COLUMN diskspd_params.param_no IS 'Position of the line within the run (0 = the command line).';
COMMENT ON COLUMN diskspd_params.name IS 'Text before the first colon (the whole line for lines such as "measuring latency").';
COMMENT ON COLUMN diskspd_params.value IS 'Text after the first colon, trimmed; empty when the line has none.';
COMMENT ON COLUMN diskspd_params.line_no IS 'Line of the raw file.';

CREATE TABLE diskspd_threads (
    source_id BIGINT NOT NULL, run_key VARCHAR, kind VARCHAR, thread INTEGER, target VARCHAR, target_size VARCHAR,
    bytes BIGINT, ios BIGINT, mib_per_s DOUBLE, iops DOUBLE, avg_latency_ms DOUBLE, iops_stddev DOUBLE,
    latency_stddev_ms DOUBLE, line_no INTEGER
);
COMMENT ON TABLE diskspd_threads IS 'DiskSpd Total/Read/Write IO tables: one row per thread and target, plus the total: line (thread NULL); XML: counts per thread and target (rates NULL).';
COMMENT ON COLUMN diskspd_threads.source_id IS 'The file (source_files).';
COMMENT ON COLUMN diskspd_threads.run_key IS 'The run within the file (runs.run_key).';
COMMENT ON COLUMN diskspd_threads.kind IS 'total, read or write: which table (Total IO, Read IO, Write IO).';
COMMENT ON COLUMN diskspd_threads.thread IS 'Thread number; NULL on the total: line.';
COMMENT ON COLUMN diskspd_threads.target IS 'The file or device the thread worked on, as written.';
COMMENT ON COLUMN diskspd_threads.target_size IS 'Target size as printed in parentheses (8192MB, 1GiB) or the XML FileSize in bytes.';
COMMENT ON COLUMN diskspd_threads.bytes IS 'Bytes transferred.';
COMMENT ON COLUMN diskspd_threads.ios IS 'I/Os completed.';
COMMENT ON COLUMN diskspd_threads.mib_per_s IS 'The MiB/s (2.2) or MB/s (2.0) column as written: 2^20 bytes per second in both.';
COMMENT ON COLUMN diskspd_threads.iops IS 'The I/O per s column as written.';
COMMENT ON COLUMN diskspd_threads.avg_latency_ms IS 'AvgLat (ms) as written; NULL when the row has no I/Os (DiskSpd prints 0.000) or latency was not measured.';
COMMENT ON COLUMN diskspd_threads.iops_stddev IS 'IopsStdDev (I/O per s) as written; NULL in layouts without it (N/A).';
COMMENT ON COLUMN diskspd_threads.latency_stddev_ms IS 'LatStdDev (ms) as written; NULL for N/A.';
COMMENT ON COLUMN diskspd_threads.line_no IS 'Line of the raw file (NULL for XML).';

CREATE TABLE diskspd_latency_percentiles (
    source_id BIGINT NOT NULL, run_key VARCHAR, percentile VARCHAR, read_ms DOUBLE, write_ms DOUBLE, total_ms DOUBLE,
    line_no INTEGER
);
COMMENT ON TABLE diskspd_latency_percentiles IS 'DiskSpd latency distribution (-L): text %-ile rows (min, 25th ... 9-nines, max) or XML buckets (0, 1..99, 99.9 ... 100).';
COMMENT ON COLUMN diskspd_latency_percentiles.source_id IS 'The file (source_files).';
COMMENT ON COLUMN diskspd_latency_percentiles.run_key IS 'The run within the file (runs.run_key).';
COMMENT ON COLUMN diskspd_latency_percentiles.percentile IS 'Row label as written: min, 25th, 3-nines, max (text) or 0, 50, 99.9, 100 (XML).';
COMMENT ON COLUMN diskspd_latency_percentiles.read_ms IS 'Read latency at that percentile, ms; NULL for N/A (no reads).';
COMMENT ON COLUMN diskspd_latency_percentiles.write_ms IS 'Write latency at that percentile, ms; NULL for N/A (no writes).';
COMMENT ON COLUMN diskspd_latency_percentiles.total_ms IS 'Latency of all I/Os at that percentile, ms.';
COMMENT ON COLUMN diskspd_latency_percentiles.line_no IS 'Line of the raw file (NULL for XML).';

CREATE TABLE diskspd_cpu (
    source_id BIGINT NOT NULL, run_key VARCHAR, core INTEGER, cpu INTEGER, usage_pct DOUBLE, user_pct DOUBLE,
    kernel_pct DOUBLE, idle_pct DOUBLE, line_no INTEGER
);
COMMENT ON TABLE diskspd_cpu IS 'DiskSpd CPU table: one row per CPU and the avg. row (cpu NULL).';
COMMENT ON COLUMN diskspd_cpu.source_id IS 'The file (source_files).';
COMMENT ON COLUMN diskspd_cpu.run_key IS 'The run within the file (runs.run_key).';
COMMENT ON COLUMN diskspd_cpu.core IS 'Core number (2.2 layout Core column); NULL where not printed.';
COMMENT ON COLUMN diskspd_cpu.cpu IS 'Logical CPU number; NULL on the avg. row.';
COMMENT ON COLUMN diskspd_cpu.usage_pct IS 'Usage %, as written.';
COMMENT ON COLUMN diskspd_cpu.user_pct IS 'User %, as written.';
COMMENT ON COLUMN diskspd_cpu.kernel_pct IS 'Kernel %, as written (DiskSpd excludes idle time from it).';
COMMENT ON COLUMN diskspd_cpu.idle_pct IS 'Idle %, as written.';
COMMENT ON COLUMN diskspd_cpu.line_no IS 'Line of the raw file (NULL for XML).';
