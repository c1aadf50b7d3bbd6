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

-- Per study, system and tool: the runs (tests: an Iometer run, a Jetstress report...), the time-series
-- captures (esxtop, perfmon: a file of series, never counted as runs) and the drives behind the runs
-- (run_drives: declared, or the profile's; the pages' systems table and the print edition's cover).
CREATE OR REPLACE VIEW study_system_runs AS
WITH r AS (
    SELECT r.study, r.system, r.tool, r.run_id, r.source_id,
           EXISTS (SELECT 1 FROM pdh_captures c WHERE c.source_id = r.content_id) AS captured
    FROM current_runs r  -- each system's current measurement, as every page but the trends shows it
)
SELECT r.study, r.system, r.tool, count(DISTINCT r.run_id) FILTER (NOT r.captured) AS runs,
       count(DISTINCT r.source_id) FILTER (r.captured) AS captures,
       string_agg(DISTINCT rd.drives || ' (' || rd.drives_source || ')', ', ' ORDER BY rd.drives || ' (' || rd.drives_source || ')')
           AS drives
FROM r LEFT JOIN run_drives rd ON rd.run_id = r.run_id AND rd.place_id = r.source_id
GROUP BY r.study, r.system, r.tool;

-- The files a study's numbers depend on besides its own results (the print edition's appendix): each
-- array profile whose drive counts divide its per-drive figures (target_volumes: drives from the
-- profile; a count the sidecar declares instead does not read it), with the lines read (each mapped
-- volume's line, its group's heading and the group's member drives), and each criteria file whose
-- criteria, sizing rules and corrections the study declares (study_declarations), with their lines.
-- path: the file's place in the study where it has one, else its first place (criteria files often
-- sit in a study of their own).
CREATE OR REPLACE VIEW study_dependencies AS
WITH used AS (
    SELECT DISTINCT f.study, tv.profile_source_id AS content_id, tv.volume, tv.group_name, tv.drives
    FROM target_volumes tv JOIN source_files f ON f.source_id = tv.source_id AND f.status = 'ok'
    WHERE tv.profile_source_id IS NOT NULL AND tv.drives_source = 'profile' AND f.study IS NOT NULL
), profile_lines AS (
    SELECT u.study, u.content_id, v.line_no FROM used u
    JOIN profile_volumes v ON v.source_id = u.content_id AND v.volume_name = u.volume
    UNION
    SELECT u.study, u.content_id, g.line_no FROM used u
    JOIN profile_groups g ON g.source_id = u.content_id AND g.group_name = u.group_name
    UNION
    SELECT u.study, u.content_id, d.line_no FROM used u
    JOIN profile_group_drives d ON d.source_id = u.content_id AND d.group_name = u.group_name
), said AS (
    SELECT study, content_id, 'volume ' || volume || ' on group ' || group_name || ' (' || drives || ' drives)' AS what
    FROM used
), deps AS (
    SELECT s.study, s.content_id, 'array profile' AS kind,
           'drive counts: ' || string_agg(DISTINCT s.what, '; ' ORDER BY s.what) AS used_for, any_value(l.lines) AS lines
    FROM said s
    JOIN (SELECT study, content_id, list(DISTINCT line_no ORDER BY line_no) AS lines FROM profile_lines
          GROUP BY study, content_id) l ON l.study = s.study AND l.content_id = s.content_id
    GROUP BY s.study, s.content_id
    UNION ALL
    SELECT study, criteria_source_id, 'criteria',
           string_agg(DISTINCT kind || ' ' || criterion, ', ' ORDER BY kind || ' ' || criterion),
           list(DISTINCT line_no ORDER BY line_no)
    FROM study_declarations WHERE defined AND criteria_source_id IS NOT NULL GROUP BY study, criteria_source_id
), places AS (
    SELECT d.study, d.content_id, f.path, f.sha256, f.format, f.study AS file_study,
           row_number() OVER (PARTITION BY d.study, d.content_id, d.kind
                              ORDER BY f.study IS NOT DISTINCT FROM d.study DESC, f.path) AS pick
    FROM deps d JOIN source_files f ON f.content_id = d.content_id AND f.status = 'ok'
)
SELECT d.study, d.kind, p.path, p.sha256, p.format, p.file_study, d.used_for, d.lines, d.content_id
FROM deps d JOIN places p ON p.study = d.study AND p.content_id = d.content_id AND p.pick = 1;
