-- fio JSON / json+ / terse v3 results and histogram logs (ingest/formats/fio_json.py, fio_terse.py, fio_log.py).
CREATE TABLE fio_jobs (
    source_id BIGINT NOT NULL, doc_no INTEGER, job_no INTEGER, run_key VARCHAR, jobname VARCHAR, groupid BIGINT,
    error BIGINT, fio_version VARCHAR, line_no INTEGER
);
COMMENT ON TABLE fio_jobs IS 'One row per fio job entry (a run): JSON document / terse line number, job index, name and errno.';
COMMENT ON COLUMN fio_jobs.source_id IS 'The file (source_files).';
COMMENT ON COLUMN fio_jobs.doc_no IS '1-based JSON document (or terse line) within the file.';
COMMENT ON COLUMN fio_jobs.job_no IS '1-based job entry within the document.';
COMMENT ON COLUMN fio_jobs.run_key IS 'runs.run_key of this job in the same file.';
COMMENT ON COLUMN fio_jobs.jobname IS 'jobname as written (empty under group_reporting in terse output).';
COMMENT ON COLUMN fio_jobs.groupid IS 'fio groupid.';
COMMENT ON COLUMN fio_jobs.error IS 'fio error field: the errno of the first error (0 = none), not a count.';
COMMENT ON COLUMN fio_jobs.fio_version IS 'fio version string of the document (e.g. fio-3.16).';
COMMENT ON COLUMN fio_jobs.line_no IS 'Line of the job''s jobname key (JSON) or of the terse line.';

CREATE TABLE fio_options (
    source_id BIGINT NOT NULL, doc_no INTEGER, job_no INTEGER, section VARCHAR, key VARCHAR, value VARCHAR, ordinal INTEGER
);
COMMENT ON TABLE fio_options IS 'Every fio option of the JSON global options and job options, duplicates kept (fio writes e.g. filename twice).';
COMMENT ON COLUMN fio_options.source_id IS 'The file (source_files).';
COMMENT ON COLUMN fio_options.doc_no IS '1-based JSON document within the file.';
COMMENT ON COLUMN fio_options.job_no IS '1-based job entry; NULL for global options.';
COMMENT ON COLUMN fio_options.section IS 'global or job.';
COMMENT ON COLUMN fio_options.key IS 'Option name as written.';
COMMENT ON COLUMN fio_options.value IS 'Option value as written.';
COMMENT ON COLUMN fio_options.ordinal IS '1-based position of the option in its section (tells duplicates apart).';

CREATE TABLE fio_job_values (
    source_id BIGINT NOT NULL, doc_no INTEGER, job_no INTEGER, path VARCHAR, value VARCHAR, value_num DOUBLE
);
COMMENT ON TABLE fio_job_values IS 'Every other value of a job entry, flattened (JSON: read.clat_ns.mean, iodepth_level.4, ...; terse: the HOWTO short field names), in fio''s own units.';
COMMENT ON COLUMN fio_job_values.source_id IS 'The file (source_files).';
COMMENT ON COLUMN fio_job_values.doc_no IS '1-based JSON document (or terse line) within the file.';
COMMENT ON COLUMN fio_job_values.job_no IS '1-based job entry within the document.';
COMMENT ON COLUMN fio_job_values.path IS 'JSON path (dots, [i] for list items) or terse field name.';
COMMENT ON COLUMN fio_job_values.value IS 'The value as text (JSON numbers re-serialised).';
COMMENT ON COLUMN fio_job_values.value_num IS 'The value as a number where it is one.';

CREATE TABLE fio_percentiles (
    source_id BIGINT NOT NULL, doc_no INTEGER, job_no INTEGER, ddir VARCHAR, stat VARCHAR, percentile DOUBLE,
    value DOUBLE, unit VARCHAR, line_no INTEGER
);
COMMENT ON TABLE fio_percentiles IS 'Every latency percentile fio wrote (placeholder 0.00 / 0%=0 slots dropped), as written.';
COMMENT ON COLUMN fio_percentiles.source_id IS 'The file (source_files).';
COMMENT ON COLUMN fio_percentiles.doc_no IS '1-based JSON document (or terse line) within the file.';
COMMENT ON COLUMN fio_percentiles.job_no IS '1-based job entry within the document.';
COMMENT ON COLUMN fio_percentiles.ddir IS 'read, write, trim, sync or mixed.';
COMMENT ON COLUMN fio_percentiles.stat IS 'clat (completion), lat (total) or slat (submission) latency.';
COMMENT ON COLUMN fio_percentiles.percentile IS 'The percentile, 0 to 100 (99.9 = 99.9th).';
COMMENT ON COLUMN fio_percentiles.value IS 'Latency at that percentile, in unit.';
COMMENT ON COLUMN fio_percentiles.unit IS 'us (fio 2.x JSON, terse) or ns (fio 3.x JSON *_ns).';
COMMENT ON COLUMN fio_percentiles.line_no IS 'Line of the job (JSON jobname key, terse line).';

CREATE TABLE fio_latency_bins (
    source_id BIGINT NOT NULL, doc_no INTEGER, job_no INTEGER, ddir VARCHAR, stat VARCHAR, bin_value DOUBLE, unit VARCHAR,
    count DOUBLE, line_no INTEGER
);
COMMENT ON TABLE fio_latency_bins IS 'json+ latency histogram bins: the bin''s representative latency and its I/O count (nonzero bins, as fio writes them).';
COMMENT ON COLUMN fio_latency_bins.source_id IS 'The file (source_files).';
COMMENT ON COLUMN fio_latency_bins.doc_no IS '1-based JSON document within the file.';
COMMENT ON COLUMN fio_latency_bins.job_no IS '1-based job entry within the document.';
COMMENT ON COLUMN fio_latency_bins.ddir IS 'read, write, trim, sync or mixed.';
COMMENT ON COLUMN fio_latency_bins.stat IS 'clat, lat or slat.';
COMMENT ON COLUMN fio_latency_bins.bin_value IS 'The bin key: fio''s representative latency of the bin, in unit.';
COMMENT ON COLUMN fio_latency_bins.unit IS 'us (fio 2.x) or ns (fio 3.x).';
COMMENT ON COLUMN fio_latency_bins.count IS 'I/Os in the bin.';
COMMENT ON COLUMN fio_latency_bins.line_no IS 'Line of the job''s jobname key.';

CREATE TABLE fio_disk_util (
    source_id BIGINT NOT NULL, doc_no INTEGER, name VARCHAR, read_ios DOUBLE, write_ios DOUBLE, read_merges DOUBLE,
    write_merges DOUBLE, read_ticks DOUBLE, write_ticks DOUBLE, in_queue DOUBLE, util DOUBLE, aggr_read_ios DOUBLE,
    aggr_write_ios DOUBLE, aggr_read_merges DOUBLE, aggr_write_merges DOUBLE, aggr_read_ticks DOUBLE,
    aggr_write_ticks DOUBLE, aggr_in_queue DOUBLE, aggr_util DOUBLE, line_no INTEGER
);
COMMENT ON TABLE fio_disk_util IS 'fio disk utilisation per device and document (Linux block stats over the run); aggr_* are the member-device averages fio adds for md/dm devices.';
COMMENT ON COLUMN fio_disk_util.source_id IS 'The file (source_files).';
COMMENT ON COLUMN fio_disk_util.doc_no IS '1-based JSON document (or terse line) within the file.';
COMMENT ON COLUMN fio_disk_util.name IS 'Block device name (sdb, md127, nvme0n1).';
COMMENT ON COLUMN fio_disk_util.read_ios IS 'Read I/Os the device completed.';
COMMENT ON COLUMN fio_disk_util.write_ios IS 'Write I/Os the device completed.';
COMMENT ON COLUMN fio_disk_util.read_merges IS 'Merged reads.';
COMMENT ON COLUMN fio_disk_util.write_merges IS 'Merged writes.';
COMMENT ON COLUMN fio_disk_util.read_ticks IS 'ms spent on reads.';
COMMENT ON COLUMN fio_disk_util.write_ticks IS 'ms spent on writes.';
COMMENT ON COLUMN fio_disk_util.in_queue IS 'ms of I/O time in queue.';
COMMENT ON COLUMN fio_disk_util.util IS 'Device utilisation %, as written.';
COMMENT ON COLUMN fio_disk_util.aggr_read_ios IS 'Member devices: average read I/Os.';
COMMENT ON COLUMN fio_disk_util.aggr_write_ios IS 'Member devices: average write I/Os.';
COMMENT ON COLUMN fio_disk_util.aggr_read_merges IS 'Member devices: average read merges.';
COMMENT ON COLUMN fio_disk_util.aggr_write_merges IS 'Member devices: average write merges (fio spells the JSON key aggr_write_merge).';
COMMENT ON COLUMN fio_disk_util.aggr_read_ticks IS 'Member devices: average read ms.';
COMMENT ON COLUMN fio_disk_util.aggr_write_ticks IS 'Member devices: average write ms.';
COMMENT ON COLUMN fio_disk_util.aggr_in_queue IS 'Member devices: average in-queue ms.';
COMMENT ON COLUMN fio_disk_util.aggr_util IS 'Member devices: highest utilisation %.';
COMMENT ON COLUMN fio_disk_util.line_no IS 'Line of the document (JSON) or the terse line.';

CREATE TABLE fio_messages (
    source_id BIGINT NOT NULL, doc_no INTEGER, line_no INTEGER, text VARCHAR
);
COMMENT ON TABLE fio_messages IS 'Text lines around the results (fio: warnings and errors, terminating on signal N, stray characters).';
COMMENT ON COLUMN fio_messages.source_id IS 'The file (source_files).';
COMMENT ON COLUMN fio_messages.doc_no IS 'The JSON document (or terse line) the text comes before; NULL after the last one.';
COMMENT ON COLUMN fio_messages.line_no IS '1-based line in the file.';
COMMENT ON COLUMN fio_messages.text IS 'The line (or the stray text before a document), trimmed.';

CREATE TABLE fio_hist_log (
    source_id BIGINT NOT NULL, msec BIGINT, ddir INTEGER, bs BIGINT, bin INTEGER, bin_value BIGINT, unit VARCHAR,
    count BIGINT, line_no INTEGER
);
COMMENT ON TABLE fio_hist_log IS 'fio completion-latency histogram log (write_hist_log, *_clat_hist.N.log), long form: nonzero bins only.';
COMMENT ON COLUMN fio_hist_log.source_id IS 'The file (source_files).';
COMMENT ON COLUMN fio_hist_log.msec IS 'Time of the interval end, ms since the job started.';
COMMENT ON COLUMN fio_hist_log.ddir IS 'Data direction: 0 read, 1 write, 2 trim.';
COMMENT ON COLUMN fio_hist_log.bs IS 'Block size column as written (0 when fio averaged over block sizes).';
COMMENT ON COLUMN fio_hist_log.bin IS '0-based bin index (fio FIO_IO_U_PLAT layout: 1216 bins in 2.x, 1856 in 3.x).';
COMMENT ON COLUMN fio_hist_log.bin_value IS 'The bin''s representative latency (fio plat_idx_to_val), in unit.';
COMMENT ON COLUMN fio_hist_log.unit IS 'us for 1216-bin logs (fio 2.x), ns for 1856-bin logs (fio 3.x).';
COMMENT ON COLUMN fio_hist_log.count IS 'I/Os completed in the bin during the interval.';
COMMENT ON COLUMN fio_hist_log.line_no IS '1-based line in the file.';
