-- ORION tool tables (ingest/formats/orion.py, ingest/formats/orion_matrix.py).
CREATE TABLE orion_tests (
    source_id BIGINT NOT NULL, testname VARCHAR, version VARCHAR, commandline VARCHAR, run_type VARCHAR,
    small_io_bytes BIGINT, large_io_bytes BIGINT, io_types VARCHAR, simulated_array_type VARCHAR,
    stripe_depth_bytes BIGINT, write_pct DOUBLE, cache_size VARCHAR, duration_per_point_s INTEGER,
    small_columns INTEGER[], large_columns INTEGER[], total_data_points INTEGER, files_found INTEGER
);
COMMENT ON TABLE orion_tests IS 'One row per ORION summary: the command line and the test it maps to.';
COMMENT ON COLUMN orion_tests.small_io_bytes IS 'Small IO size (Small IO size: 8 KB -> 8192).';
COMMENT ON COLUMN orion_tests.large_io_bytes IS 'Large IO size in bytes.';
COMMENT ON COLUMN orion_tests.stripe_depth_bytes IS 'Stripe Depth of the simulated array in bytes (advanced runs).';
COMMENT ON COLUMN orion_tests.write_pct IS 'Write: share of writes in percent.';
COMMENT ON COLUMN orion_tests.cache_size IS 'Cache Size as written (often "Not Entered").';
COMMENT ON COLUMN orion_tests.small_columns IS 'Small Columns: outstanding small I/O levels of the matrix.';
COMMENT ON COLUMN orion_tests.large_columns IS 'Large Columns: outstanding large I/O levels of the matrix.';
COMMENT ON COLUMN orion_tests.files_found IS 'The "N FILEs found." count; equals the LUN rows.';

CREATE TABLE orion_headlines (
    source_id BIGINT NOT NULL, metric VARCHAR, value_as_written DOUBLE, unit_as_written VARCHAR,
    small_oio INTEGER, large_oio INTEGER, line_no INTEGER
);
COMMENT ON TABLE orion_headlines IS 'Maximum Large MBPS / Maximum Small IOPS / Minimum Small Latency lines exactly as written (unit text NULL in 10.2/11.1 = ms).';

CREATE TABLE orion_luns (source_id BIGINT NOT NULL, lun VARCHAR, size_bytes UBIGINT, line_no INTEGER);
COMMENT ON TABLE orion_luns IS 'The Name: <lun> Size: <bytes> lines.';

CREATE TABLE orion_latency_details (
    source_id BIGINT NOT NULL, io_size VARCHAR, direction VARCHAR, avg_ms DOUBLE, min_ms DOUBLE, max_ms DOUBLE,
    std_dev_ms DOUBLE, small_oio INTEGER, large_oio INTEGER, line_no INTEGER
);
COMMENT ON TABLE orion_latency_details IS '12c+ detail lines (Small Read Latency: avg=..., min=..., max=..., std dev=... @ point), in ms.';

CREATE TABLE orion_histograms (
    source_id BIGINT NOT NULL, io_size VARCHAR, small_oio INTEGER, large_oio INTEGER, lower_us BIGINT,
    upper_us BIGINT, read_ios BIGINT, read_cum_pct DOUBLE, write_ios BIGINT, write_cum_pct DOUBLE, line_no INTEGER
);
COMMENT ON TABLE orion_histograms IS '12c+ latency histogram rows: bucket in microseconds, read/write counts and cumulative percentages.';

CREATE TABLE orion_matrix (
    source_id BIGINT NOT NULL, run_group VARCHAR, testname VARCHAR, test_date VARCHAR, kind VARCHAR,
    small_oio INTEGER, large_oio INTEGER, value_as_written DOUBLE, line_no INTEGER
);
COMMENT ON TABLE orion_matrix IS 'Every point of _iops.csv / _mbps.csv / _lat.csv as written; points not run are absent.';
COMMENT ON COLUMN orion_matrix.kind IS 'iops (small I/Os per second), mbps (large-I/O MBPS as ORION reports it), lat (small-I/O latency, unit depends on the ORION version).';
