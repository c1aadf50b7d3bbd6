-- Re-ingest speed (issue 15): a place whose size, modification time and labels are unchanged is
-- skipped without hashing (`iolab ingest --verify` hashes anyway).
ALTER TABLE source_files ADD COLUMN mtime_ns BIGINT;
COMMENT ON COLUMN source_files.mtime_ns IS 'The file''s modification time (ns since the epoch) when it was last read or confirmed unchanged; with size_bytes it lets a re-ingest skip hashing an unchanged file (--verify hashes anyway). NULL for rejected files and for places stored before V012.';
