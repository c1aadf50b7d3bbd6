-- ORION console transcripts (ingest/formats/orion_console.py); their result lines go to orion_headlines,
-- orion_latency_details and orion_histograms like the summary's.
CREATE TABLE orion_console_runs (
    source_id BIGINT NOT NULL, version VARCHAR, test_stamp VARCHAR, testname VARCHAR, estimated_minutes INTEGER,
    chatter VARCHAR[], commandline VARCHAR, run_type VARCHAR
);
COMMENT ON TABLE orion_console_runs IS 'One row per ORION console transcript: the banner, the test stamp, the estimate and the command typed.';
COMMENT ON COLUMN orion_console_runs.source_id IS 'The source file (source_files.source_id).';
COMMENT ON COLUMN orion_console_runs.version IS 'Version in the banner, as written (e.g. RDBMS_19.3.0.0.0DBRU_LINUX.X64_190417, 11.1.0.7.0).';
COMMENT ON COLUMN orion_console_runs.test_stamp IS '<testname>_<yyyymmdd>_<hhmm> line after the banner: the prefix of the run''s output files (runs.run_group).';
COMMENT ON COLUMN orion_console_runs.testname IS 'The test name part of test_stamp.';
COMMENT ON COLUMN orion_console_runs.estimated_minutes IS 'Calibration/Test will take approximately N minutes: ORION''s own estimate.';
COMMENT ON COLUMN orion_console_runs.chatter IS 'Informational lines as written (Using a large value for -cache_size..., Setting ftype=0).';
COMMENT ON COLUMN orion_console_runs.commandline IS 'The orion command typed at the prompt line before the banner, from "orion" on (NULL when the transcript starts at the banner).';
COMMENT ON COLUMN orion_console_runs.run_type IS '-run option of that command (simple, normal, oltp, dss, advanced).';
