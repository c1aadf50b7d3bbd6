-- The public contract: one row per number, with its provenance and its labels, and the system's
-- measurement it belongs to (measurement, measured_by, measurement_no, current_measurement:
-- 008_measurements_of_systems.sql).
-- Numbers come from samples (written by the parsers in canonical units) plus the ORION latency
-- matrix points whose unit could be resolved (005_orion_latency_points.sql).
-- Missing is missing: a latency of a direction with no I/O (the run's read or write IOPS, I/O count
-- or bytes at that scope, target and load all 0, by metric_vocabulary's io_direction and log_io) is
-- left out; the file's 0 stays in the tool's own table (Iometer writes 0.00 ms for reads of a
-- write-only run).
CREATE OR REPLACE VIEW measurements AS
WITH idle AS (
    SELECT s.run_id, s.scope, s.target, s.outstanding_ios, v.io_direction, v.log_io
    FROM samples s JOIN metric_vocabulary v ON v.metric = s.metric
    WHERE v.io_direction IS NOT NULL AND v.role IN ('throughput', 'count')
    GROUP BY s.run_id, s.scope, s.target, s.outstanding_ios, v.io_direction, v.log_io
    HAVING max(s.value) = 0 AND min(s.value) = 0
), numbers AS (
    SELECT s.run_id, NULL::BIGINT AS place_id, s.scope, s.target, s.metric, s.value, s.unit, s.outstanding_ios,
           s.small_oio, s.large_oio, s.line_no
    FROM samples s
    LEFT JOIN metric_vocabulary v ON v.metric = s.metric AND v.role = 'latency' AND v.io_direction IS NOT NULL
    LEFT JOIN idle i ON i.run_id = s.run_id AND i.scope = s.scope AND i.target IS NOT DISTINCT FROM s.target
                    AND i.outstanding_ios IS NOT DISTINCT FROM s.outstanding_ios
                    AND i.io_direction = v.io_direction AND i.log_io = v.log_io
    WHERE i.run_id IS NULL
    UNION ALL
    SELECT run_id, place_id, 'point', NULL, 'small_latency_ms', latency_ms, 'ms', NULL, small_oio, large_oio, line_no
    FROM orion_latency_points
    WHERE latency_ms IS NOT NULL
)
SELECT
    f.sha256          AS source_sha256,
    f.path            AS source_path,
    f.format,
    r.tool,
    r.tool_version,
    r.run_id,
    r.run_key,
    r.started_at,
    r.ended_at,
    s.scope,
    s.target,
    r.workload,
    workload_label(r.block_size_bytes, r.read_pct, r.random_pct, coalesce(s.outstanding_ios, r.outstanding_ios), r.workload)
                      AS workload_label,
    s.metric,
    s.value,
    s.unit,
    coalesce(s.outstanding_ios, r.outstanding_ios) AS outstanding_ios,
    r.queue_depth,
    r.workers,
    s.small_oio,
    s.large_oio,
    r.block_size_bytes,
    r.read_pct,
    r.random_pct,
    r.status          AS run_status,
    r.test_type,
    r.run_group,
    r.description,
    f.study,
    coalesce(r.system, f.system)             AS system,
    coalesce(r.generation, f.generation)     AS generation,
    coalesce(r.tiles, f.tiles)               AS tiles,
    f.vms,
    coalesce(r.config_label, f.config_label) AS config_label,
    r.raid_level,
    r.drives                                 AS drives_stated,
    f.price_usd,
    f.watts,
    f.tags,
    f.source_id,
    f.content_id,
    s.line_no,
    fm.measurement,
    fm.measured_by,
    fm.measurement_no,
    fm.is_current                            AS current_measurement
FROM numbers s
JOIN runs r USING (run_id)
-- one row per place the file was found (the same content in two studies counts in both)
JOIN source_files f ON f.content_id = r.source_id AND (s.place_id IS NULL OR s.place_id = f.source_id)
-- the system's measurement this file belongs to (008_measurements_of_systems.sql)
LEFT JOIN file_measurements fm ON fm.source_id = f.source_id AND fm.study = f.study
      AND fm.system = coalesce(r.system, f.system)
WHERE f.status = 'ok';
