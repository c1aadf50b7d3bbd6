-- A compressed log (a .gz) is read as the file inside it: the place keeps the archive's path,
-- size and sha256, and these columns say what was inside and how it was unwrapped
-- (source_files shows them: schemas/views/000_places.sql).
ALTER TABLE source_history ADD COLUMN archive VARCHAR;
ALTER TABLE source_history ADD COLUMN archive_member VARCHAR;
COMMENT ON COLUMN source_history.archive IS 'How the file was unwrapped before parsing (gzip), NULL for a file read as it is; path, size_bytes and sha256 are the archive''s.';
COMMENT ON COLUMN source_history.archive_member IS 'The name of the file inside the archive that was parsed (the gzip header''s original name, else the archive''s name without .gz); its line numbers are the ones errors and samples refer to.';
