-- Every run of every study, with or without numbers in measurements (a time-series capture's
-- values are in the Parquet store): one row per run and place the file was found, with the labels
-- measurements gives it (the run's own, else its file's) and the system's measurement it belongs to.
CREATE OR REPLACE VIEW study_runs AS
SELECT
    f.study,
    coalesce(r.system, f.system)             AS system,
    coalesce(r.generation, f.generation)     AS generation,
    coalesce(r.config_label, f.config_label) AS config_label,
    r.run_id,
    r.run_key,
    r.tool,
    r.tool_version,
    r.workload,
    r.started_at,
    r.ended_at,
    f.path                                   AS source_path,
    f.source_id,
    f.content_id,
    workload_label(r.block_size_bytes, r.read_pct, r.random_pct, r.outstanding_ios, r.workload) AS workload_label,
    r.block_size_bytes,
    r.read_pct,
    r.random_pct,
    r.outstanding_ios,
    r.queue_depth,
    r.workers,
    coalesce(r.tiles, f.tiles)               AS tiles,
    f.vms,
    r.raid_level,
    r.drives                                 AS drives_stated,
    f.sha256                                 AS source_sha256,
    fm.measurement,
    fm.measured_by,
    fm.measurement_no,
    fm.is_current                            AS current_measurement
FROM runs r
JOIN source_files f ON f.content_id = r.source_id AND f.status = 'ok'
LEFT JOIN file_measurements fm ON fm.source_id = f.source_id AND fm.study = f.study
      AND fm.system = coalesce(r.system, f.system);

-- The one base of every view and page that shows a system's current measurement (all but the trends and
-- the comparison's list of measurement pairs): the rule is file_measurements.is_current
-- (008_measurements_of_systems.sql), read here and nowhere else. A run of no system (or of no study) is
-- in no measurement: it stays. A system with several measurements and none current (none in order)
-- has none here: the pages say why (system_measurements.current_note).
--   current_measurements  the rows of measurements (one per number) of the current measurements;
--   current_runs          the rows of study_runs (one per run and place);
--   current_files         every place but those whose runs are all of measurements no longer current (a
--                         file with no run stays): for what a file holds beside its runs (histogram
--                         bins and logs, the price and power its sidecar gives).
CREATE OR REPLACE VIEW current_measurements AS
SELECT * FROM measurements WHERE coalesce(current_measurement, true);

CREATE OR REPLACE VIEW current_runs AS
SELECT * FROM study_runs WHERE coalesce(current_measurement, true);

CREATE OR REPLACE VIEW current_files AS
SELECT * FROM source_files
WHERE status = 'ok'
  AND source_id NOT IN (SELECT source_id FROM file_measurements GROUP BY source_id
                        HAVING max(CASE WHEN is_current THEN 1 ELSE 0 END) = 0);
