-- runs without UNIQUE (source_id, run_key). DuckDB kept that index in memory for every run a file
-- inserted, ~75 bytes a run until the commit and about twice that while committing: the 3.1 million
-- runs of a 32 MB IOzone table (a run per cell) took 174 MB of index in the transaction and 380 MB at
-- its commit, most of what kept that file's ingest over 1 GB. The writer refuses a file whose runs
-- repeat a key before any row goes in (ingest/store/writer.py, RunIds), and the runs validation suite
-- expects (source_id, run_key) unique. DuckDB cannot drop a constraint, so the table is made anew, its
-- columns, order, types and comments as before.
CREATE TABLE runs_v080 (
    run_id           BIGINT PRIMARY KEY,
    source_id        BIGINT NOT NULL,
    run_key          VARCHAR NOT NULL,
    tool             VARCHAR NOT NULL,
    tool_version     VARCHAR,
    started_at       TIMESTAMP,
    ended_at         TIMESTAMP,
    workload         VARCHAR,
    description      VARCHAR,
    status           VARCHAR,
    test_type        VARCHAR,
    block_size_bytes BIGINT,
    read_pct         DOUBLE,
    random_pct       DOUBLE,
    run_group        VARCHAR,
    system           VARCHAR,
    generation       VARCHAR,
    config_label     VARCHAR,
    raid_level       VARCHAR,
    drives           INTEGER,
    tiles            INTEGER,
    queue_depth      INTEGER,
    workers          INTEGER,
    outstanding_ios  INTEGER
);
INSERT INTO runs_v080
SELECT run_id, source_id, run_key, tool, tool_version, started_at, ended_at, workload, description, status,
       test_type, block_size_bytes, read_pct, random_pct, run_group, system, generation, config_label,
       raid_level, drives, tiles, queue_depth, workers, outstanding_ios
FROM runs;
DROP TABLE runs;
ALTER TABLE runs_v080 RENAME TO runs;

COMMENT ON TABLE runs IS 'One measured test point: an Iometer results block, an Orion test, a Jetstress test, a published row.';
COMMENT ON COLUMN runs.run_key IS 'Key of the run inside its file (e.g. s1/r3 = Iometer session 1, results block 3).';
COMMENT ON COLUMN runs.tool IS 'Iometer, Orion, Jetstress, esxtop, perfmon, published, ...';
COMMENT ON COLUMN runs.tool_version IS 'Tool version string as written in the file.';
COMMENT ON COLUMN runs.started_at IS 'Start of the run (local time of the test host, as written).';
COMMENT ON COLUMN runs.ended_at IS 'End of the run (local time of the test host, as written).';
COMMENT ON COLUMN runs.workload IS 'Workload name: Iometer access specification, Jetstress test type, Orion test name.';
COMMENT ON COLUMN runs.description IS 'Free text the tool recorded (Iometer test description, Jetstress test description).';
COMMENT ON COLUMN runs.status IS 'complete, aborted, unterminated (file ends mid-session), pass, fail.';
COMMENT ON COLUMN runs.test_type IS 'Tool-specific test type (Iometer cycling mode, Orion -run, Jetstress Performance/Stress).';
COMMENT ON COLUMN runs.block_size_bytes IS 'Transfer size in bytes when the workload uses one size; NULL for mixed sizes.';
COMMENT ON COLUMN runs.read_pct IS 'Share of reads in percent when the workload has one read/write mix.';
COMMENT ON COLUMN runs.random_pct IS 'Share of random I/O in percent when the workload has one.';
COMMENT ON COLUMN runs.system IS 'System under test when the file names it per run (published tables); else NULL and the sidecar label applies.';
COMMENT ON COLUMN runs.generation IS 'Product generation named per run (published tables).';
COMMENT ON COLUMN runs.config_label IS 'Configuration named per run (e.g. Write Cache Enabled).';
COMMENT ON COLUMN runs.raid_level IS 'RAID level named per run (e.g. RAID-10).';
COMMENT ON COLUMN runs.drives IS 'Physical drives behind the run as the file states it (published tables: HDDs / drives behind).';
COMMENT ON COLUMN runs.tiles IS 'Tiles named per run (published tables).';
COMMENT ON COLUMN runs.run_group IS 'Runs of one test spread over several files (ORION <test>_<date>_summary.txt, _iops.csv, ...) share this key.';
COMMENT ON COLUMN runs.run_id IS 'Surrogate key of the run.';
COMMENT ON COLUMN runs.source_id IS 'The file the run was read from (source_files).';
COMMENT ON COLUMN runs.queue_depth IS 'I/Os each worker/job/thread keeps in flight (fio iodepth, DiskSpd -o, Iometer outstanding I/Os per target), as the file states it.';
COMMENT ON COLUMN runs.workers IS 'Workers, jobs, threads or targets that each apply queue_depth (fio numjobs, DiskSpd -t x targets, vdbench threads), as the file states it.';
COMMENT ON COLUMN runs.outstanding_ios IS 'Total I/Os in flight: the load axis shared by every tool (queue_depth x workers where that is how the tool loads, else as the file states it).';
