-- Every run of every study, with or without numbers in measurements (a time-series capture's
-- values are in the Parquet store): one row per run and place the file was found, with the labels
-- measurements gives it (the run's own, else its file's).
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
    fm.measurement,
    fm.measured_by,
    fm.measurement_no,
    fm.is_current                            AS current_measurement
FROM runs r
JOIN source_files f ON f.content_id = r.source_id AND f.status = 'ok'
LEFT JOIN file_measurements fm ON fm.source_id = f.source_id AND fm.study = f.study
      AND fm.system = coalesce(r.system, f.system);
