-- The places in the analysis: every file found where it is now (source_history keeps those that
-- left). The same bytes twice in one study are one measurement: the copy with the smaller path
-- counts, the other stays in source_history (left_at NULL) but not here.
CREATE OR REPLACE VIEW source_files AS
SELECT source_id, path, sha256, size_bytes, format, parser, parser_version, tool_version, ingested_at, status,
       error, error_line, study, system, generation, tiles, vms, config_label, price_usd, watts, tags, labels,
       content_id, mtime_ns, archive, archive_member
FROM (
    SELECT *, row_number() OVER (PARTITION BY sha256, study, status ORDER BY path, source_id) AS copy_no
    FROM source_history
    WHERE left_at IS NULL
) h
WHERE status <> 'ok' OR copy_no = 1;

-- The copies that do not count, each beside the copy that does. other_labels: the two are labelled
-- differently (another system, generation, configuration, price...): the same bytes cannot be two
-- measurements, so only the counted copy's labels are used. An ingest and `iolab info` say so.
CREATE OR REPLACE VIEW study_copies AS
SELECT h.study, h.path, h.system, c.path AS counted_path, c.system AS counted_system,
       h.labels::VARCHAR IS DISTINCT FROM c.labels::VARCHAR AS other_labels
FROM source_history h
JOIN source_files c ON c.sha256 = h.sha256 AND c.study IS NOT DISTINCT FROM h.study AND c.status = 'ok'
WHERE h.left_at IS NULL AND h.status = 'ok' AND h.source_id <> c.source_id;
