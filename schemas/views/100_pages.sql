-- What the report pages show beside the analysis views: each study's files, captures, series,
-- array profiles, histogram bins and hockey-stick points. Pages read these views, never
-- source_files or content_id themselves: which places of a file count is the views' rule, kept here.

-- Every file placed in a study, with its parser and outcome (the pages' provenance footer).
CREATE OR REPLACE VIEW study_files AS
SELECT f.study, f.source_id, f.path, f.format, f.parser, f.parser_version, f.tool_version, f.status,
       f.sha256, f.error, f.error_line
FROM source_files f;

-- Each time-series capture (esxtop, perfmon) under every study it is placed in, with its time span.
CREATE OR REPLACE VIEW study_captures AS
SELECT f.study, f.path AS capture, f.system, c.tool, c.time_zone, c.bias_minutes, c.series, c.samples,
       c.has_date, min(smp.ts) AS first_sample, max(smp.ts) AS last_sample
FROM pdh_captures c
JOIN source_files f ON f.content_id = c.source_id AND f.status = 'ok'
LEFT JOIN series_samples smp ON smp.source_id = c.source_id
GROUP BY f.study, f.path, f.system, c.tool, c.time_zone, c.bias_minutes, c.series, c.samples, c.has_date;

-- The series a study's captures hold, per host, object and counter.
CREATE OR REPLACE VIEW study_series AS
SELECT f.study, s.host, s.object, s.counter, s.unit, count(*) AS series
FROM series s
JOIN source_files f ON f.content_id = s.source_id AND f.status = 'ok'
GROUP BY f.study, s.host, s.object, s.counter, s.unit;

-- The storage array profiles placed in a study.
CREATE OR REPLACE VIEW study_profiles AS
SELECT f.study, a.array_name, a.profile_kind, a.firmware, a.controllers, a.controller_model,
       a.cache_mb_per_controller, a.stated_drives, a.stated_groups, a.stated_volumes, a.stated_hot_spares
FROM profile_arrays a
JOIN source_files f ON f.content_id = a.source_id AND f.status = 'ok';

-- Every latency bin of every run (of the current measurement: latency_histograms), with the file and run it
-- came from (repeated runs told apart).
CREATE OR REPLACE VIEW latency_histogram_bins AS
SELECT h.study, coalesce(h.system, '(no system label)') AS system, h.measurement, h.workload_label AS workload,
       regexp_extract(f.path, '([^/]+)$', 1) AS file, r.run_key AS run, h.run_id, h.target, h.direction, h.bin_no,
       h.bin_label, h.lower_us, h.upper_us, h.io_count, h.share_pct
FROM latency_histograms h
JOIN source_files f ON f.source_id = h.place_id
LEFT JOIN runs r ON r.run_id = h.run_id;

-- The hockey stick: IO/s and average latency at the same point of each outstanding-I/O curve.
CREATE OR REPLACE VIEW scaling_hockey_stick AS
SELECT i.study, coalesce(i.system, '(no system label)') AS system, i.workload, i.config_label, i.raid_level,
       i.tool, i.load, i.value AS iops, l.value AS latency_ms
FROM scaling i
JOIN scaling l ON l.study = i.study AND l.system IS NOT DISTINCT FROM i.system
     AND l.workload = i.workload AND l.config_label IS NOT DISTINCT FROM i.config_label
     AND l.raid_level IS NOT DISTINCT FROM i.raid_level AND l.axis = i.axis AND l.load = i.load
     AND l.tool = i.tool
WHERE i.axis = 'outstanding_ios' AND i.metric = 'iops' AND l.metric = 'avg_latency_ms';
