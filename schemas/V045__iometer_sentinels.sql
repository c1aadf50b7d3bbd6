-- Iometer 1.1.0 writes -1 and 2^64-1 for "not applicable" (issue 12). Such cells are missing values in
-- samples and runs; the results table keeps them as written here.
ALTER TABLE iometer_results ADD COLUMN sentinels VARCHAR;
COMMENT ON COLUMN iometer_results.sentinels IS 'Cells that held Iometer''s not-applicable sentinel (-1 or 2^64-1), as written: "Queue Depth=-1; ...". -1 cells are NULL in their own column; 2^64-1 cells keep the value. Neither becomes a sample.';
