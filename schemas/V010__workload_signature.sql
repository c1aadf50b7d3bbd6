-- The workload signature of a run, independent of the tool, so that views compare like with like:
-- block size, read %, random % (already on runs) plus the load the tool applied.
ALTER TABLE runs ADD COLUMN queue_depth INTEGER;
ALTER TABLE runs ADD COLUMN workers INTEGER;
ALTER TABLE runs ADD COLUMN outstanding_ios INTEGER;
COMMENT ON COLUMN runs.queue_depth IS 'I/Os each worker/job/thread keeps in flight (fio iodepth, DiskSpd -o, Iometer outstanding I/Os per target), as the file states it.';
COMMENT ON COLUMN runs.workers IS 'Workers, jobs, threads or targets that each apply queue_depth (fio numjobs, DiskSpd -t x targets, vdbench threads), as the file states it.';
COMMENT ON COLUMN runs.outstanding_ios IS 'Total I/Os in flight: the load axis shared by every tool (queue_depth x workers where that is how the tool loads, else as the file states it).';
