-- fio client/server runs (`fio --client=host ...`): each job entry's server, and fio's `All clients`
-- sum (ingest/formats/fio_json.py, fio_text.py).
ALTER TABLE fio_jobs ADD COLUMN hostname VARCHAR;
ALTER TABLE fio_jobs ADD COLUMN port INTEGER;
ALTER TABLE fio_jobs ADD COLUMN all_clients BOOLEAN;
COMMENT ON COLUMN fio_jobs.hostname IS 'Client/server runs: the server the job ran on, as fio names it (JSON `hostname`: the --client argument; text: the server''s own hostname in `<host>`); NULL for a local run.';
COMMENT ON COLUMN fio_jobs.port IS 'Client/server JSON: the server''s port (`port`); NULL for a local run or the text output (which does not print it).';
COMMENT ON COLUMN fio_jobs.all_clients IS 'Client/server runs: true for fio''s `All clients` entry (the sum of every client''s job entries; its samples have scope test), false for a host''s own job; NULL for a local run.';
ALTER TABLE fio_disk_util ADD COLUMN hostname VARCHAR;
ALTER TABLE fio_disk_util ADD COLUMN port INTEGER;
COMMENT ON COLUMN fio_disk_util.hostname IS 'Client/server JSON: the server whose disk this is (`hostname`); NULL for a local run.';
COMMENT ON COLUMN fio_disk_util.port IS 'Client/server JSON: that server''s port; NULL for a local run.';
-- fio normal (text) output (fio_text.py) writes the same tables: say what its rows hold.
COMMENT ON COLUMN fio_jobs.doc_no IS '1-based JSON document, terse line, or text report (a text file holds one per run or --status-interval report) within the file.';
COMMENT ON COLUMN fio_jobs.line_no IS 'Line of the job''s jobname key (JSON), of the terse line, or of the text report''s header (`name: (groupid=...`).';
COMMENT ON COLUMN fio_percentiles.unit IS 'us (fio 2.x JSON, terse), ns (fio 3.x JSON *_ns), or the text''s own unit (ns, us, ms: `clat percentiles (usec)`), as written.';
COMMENT ON COLUMN fio_job_values.path IS 'JSON path (dots, [i] for list items), terse field name, or for the text output <ddir>.<iops|bw|io|run>, <ddir>.<stat>.<min|max|avg|stddev>, cpu.*, issued.*, sync.*, errors.total (value as printed, with its unit).';
COMMENT ON COLUMN fio_messages.doc_no IS 'The JSON document (or terse line) the text comes before, NULL after the last one; for the text output the report the line belongs to.';
