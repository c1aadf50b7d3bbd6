-- ORION _lat.csv points with their unit resolved: 10.x and 11.1 write milliseconds, 12c and later
-- microseconds; the file itself does not say, so the version comes from the summary of the same
-- test (a run of the same tool with the same run_group, in the same folder, that states its version)
-- or from a sidecar key orion_version. No version: no number.
CREATE OR REPLACE VIEW orion_latency_points AS
WITH summaries AS (
    SELECT r.tool, r.run_group, regexp_replace(f.path, '[^/]*$', '') AS folder, any_value(r.tool_version) AS version
    FROM runs r JOIN source_files f ON f.content_id = r.source_id
    WHERE r.tool_version IS NOT NULL AND r.run_group IS NOT NULL AND f.status = 'ok'
    GROUP BY ALL
), points AS (
    SELECT m.*, r.run_id, f.source_id AS place_id,
           coalesce(s.version, f.labels->>'orion_version') AS orion_version
    FROM orion_matrix m
    JOIN source_files f ON f.content_id = m.source_id
    JOIN runs r ON r.source_id = m.source_id AND r.run_key = m.run_group
    LEFT JOIN summaries s ON s.tool = r.tool AND s.run_group = m.run_group AND s.folder = regexp_replace(f.path, '[^/]*$', '')
    WHERE m.kind = 'lat' AND f.status = 'ok'
)
SELECT *,
       CASE WHEN regexp_matches(orion_version, '^(10\.|11\.1)') THEN value_as_written
            WHEN regexp_matches(orion_version, '^(1[2-9]|2\d|RDBMS_(1[2-9]|2\d))') THEN value_as_written / 1000
       END AS latency_ms
FROM points;
