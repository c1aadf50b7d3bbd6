-- Each place a file was found keeps its own labels; its content is parsed and stored once.
-- source_files holds one row per place (path + sha256, with that place's sidecar labels); the rows
-- parsed from the content (runs, samples, series, tool tables) hang off the first place that was
-- ingested, whose source_id every later place of the same content names as content_id.
ALTER TABLE source_files ADD COLUMN content_id BIGINT;
UPDATE source_files SET content_id = source_id;
COMMENT ON COLUMN source_files.content_id IS 'source_id under which this content''s parsed rows are stored (itself for the first place it was found). Join runs/tool tables with ON f.content_id = r.source_id to see a file in every study it was placed in.';
