-- Store files written from now on carry each point's sample time (series_points reads them without
-- a join); those written before are rewritten once, at the next writable open (db.upgrade_store).
ALTER TABLE point_files ADD COLUMN has_times BOOLEAN DEFAULT false;
COMMENT ON COLUMN point_files.has_times IS 'Whether the file holds each point''s time (ts); false: written before, awaiting its rewrite.';
