-- DiskSpd for Linux (microsoft/diskspd-for-linux): its CPU table has an IO Wait column (issue 55).
ALTER TABLE diskspd_cpu ADD COLUMN iowait_pct DOUBLE;
COMMENT ON COLUMN diskspd_cpu.iowait_pct IS 'IO Wait %, as written (DiskSpd for Linux only: /proc/stat iowait); NULL for Windows DiskSpd, which has no such column.';
COMMENT ON TABLE diskspd_threads IS 'DiskSpd Total/Read/Write IO tables: one row per thread and target, plus the total: line (thread NULL), from Windows DiskSpd and DiskSpd for Linux text; XML: counts per thread and target (rates NULL). Checked when parsed: the rows sum to the total line, read and write to each thread''s total, rates are the counts over the test time.';
