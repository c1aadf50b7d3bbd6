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
