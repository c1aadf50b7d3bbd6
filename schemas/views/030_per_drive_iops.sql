-- IOPS and MB/s per physical drive, per target and per run, with sizing helpers: the runs of each
-- system's current measurement (current_runs; measurement, measured_by and measurement_no say which).
--
-- Target level: the target's IOPS ('iops', else the sum of its read/write IOPS, e.g. Jetstress
-- database reads + writes) over the drives behind its volume (target_volumes).
-- Drives (both levels): drives_source says where the count came from (declared in the sidecar,
-- the profile's members, stated by a published table); profile_drives is what the profile says
-- where the sidecar's declared count overrides it.
-- Run level: the run's headline IOPS and MB/s (scope all/test, a metric the vocabulary marks
-- headline: metric_vocabulary.headline, whatever the tool) over the drives behind all of its distinct
-- volumes (volumes sharing an array/volume group count its drives once; an array's own per-volume
-- statistics, scope 'volume', map to profile volumes like any other target); where no target is
-- mapped, the drive count the run states (published tables: HDDs / drives behind). A target whose
-- every number is log I/O (metric_vocabulary.log_io: a Jetstress log volume) carries no
-- transactional I/O: its drives do not count for the run.
CREATE OR REPLACE VIEW target_throughput AS
SELECT s.run_id, s.target,
       coalesce(max(s.value) FILTER (s.metric = 'iops'),
                sum(s.value) FILTER (s.metric IN ('read_iops', 'write_iops', 'db_read_iops', 'db_write_iops',
                                                  'log_read_iops', 'log_write_iops'))) AS iops,
       max(s.value) FILTER (s.metric = 'mbps') AS mbps
FROM samples s
WHERE s.scope IN ('target', 'volume', 'instance')
GROUP BY ALL;

CREATE OR REPLACE VIEW run_throughput AS
SELECT r.run_id,
       max(h.value) FILTER (h.unit = 'IO/s') AS iops,
       max(h.value) FILTER (h.unit = 'MB/s') AS mbps
FROM runs r
LEFT JOIN (SELECT s.run_id, s.value, v.unit
           FROM samples s JOIN metric_vocabulary v ON v.metric = s.metric
           WHERE v.headline AND s.scope IN ('all', 'test')) h ON h.run_id = r.run_id
GROUP BY ALL;

-- Targets that carry only log I/O (every number of theirs is a log_io metric).
CREATE OR REPLACE VIEW log_targets AS
SELECT s.run_id, s.target
FROM samples s JOIN metric_vocabulary v ON v.metric = s.metric
WHERE s.target IS NOT NULL
GROUP BY s.run_id, s.target
HAVING bool_and(v.log_io);

-- The drives behind each run (per place of its file): the sum over its distinct volumes' groups
-- (volumes on one array/volume group share its drives and count once; a log volume carries no
-- transactional I/O and does not count), where the counts came from (target_volumes: declared in
-- the sidecar, else the profile's members) and profile_drives: what the profiles say of the volumes
-- whose count the sidecar declared instead (NULL where none did). per_drive_iops divides by drives;
-- the comparison and the efficiency state them.
CREATE OR REPLACE VIEW run_drives AS
SELECT run_id, source_id AS place_id, sum(drives) FILTER (first_on_group)::INTEGER AS drives,
       string_agg(DISTINCT volume, ', ' ORDER BY volume) AS volumes,
       string_agg(DISTINCT drives_source, ', ' ORDER BY drives_source) AS drives_source,
       string_agg(DISTINCT match_rule, ', ' ORDER BY match_rule) AS match_rule,
       string_agg(DISTINCT raid_level, ', ' ORDER BY raid_level) AS raid_level, any_value(array_name) AS array_name,
       sum(profile_drives) FILTER (first_on_group AND drives_source = 'declared')::INTEGER AS profile_drives
FROM (SELECT *, row_number() OVER (PARTITION BY run_id, source_id, spindles ORDER BY volume) = 1 AS first_on_group
      FROM (SELECT DISTINCT run_id, source_id, volume, array_name, drives, drives_source, match_rule, raid_level,
                   profile_drives,
                   -- volumes on one array/volume/disk group share its drives: they count once
                   coalesce(profile_source_id::VARCHAR || '/' || group_name, volume) AS spindles
            FROM target_volumes tv WHERE drives IS NOT NULL
            -- a log volume carries no transactional database I/O: it does not count
            AND NOT EXISTS (SELECT 1 FROM log_targets lt WHERE lt.run_id = tv.run_id AND lt.target = tv.target)))
GROUP BY run_id, source_id;

CREATE OR REPLACE VIEW per_drive_iops AS
WITH labels AS (  -- each run of its system's current measurement (current_runs, 012_study_runs.sql)
    SELECT r.run_id, r.run_key, r.tool, r.workload, r.workload_label, r.outstanding_ios, r.block_size_bytes,
           r.read_pct, r.random_pct, r.started_at, r.study, r.system, r.generation, r.tiles, r.vms, r.config_label,
           r.raid_level AS raid_level_stated, r.drives_stated, r.source_path, r.source_sha256, r.source_id AS place_id,
           r.measurement, r.measured_by, r.measurement_no
    FROM current_runs r
), target_level AS (
    SELECT l.*, 'target' AS level, tv.target, tv.volume, tv.array_name, tv.match_rule, tv.raid_level,
           tv.drives, tv.drives_source,
           CASE WHEN tv.drives_source = 'declared' THEN tv.profile_drives END AS profile_drives, tt.iops, tt.mbps
    FROM labels l
    JOIN target_volumes tv ON tv.run_id = l.run_id AND tv.source_id = l.place_id
    JOIN target_throughput tt ON tt.run_id = tv.run_id AND tt.target = tv.target
), run_level AS (
    SELECT l.*, 'run' AS level, NULL AS target, rd.volumes AS volume, rd.array_name,
           coalesce(rd.match_rule, CASE WHEN l.drives_stated IS NOT NULL THEN 'stated' END) AS match_rule,
           coalesce(rd.raid_level, l.raid_level_stated) AS raid_level,
           coalesce(rd.drives, l.drives_stated) AS drives,
           coalesce(rd.drives_source, CASE WHEN l.drives_stated IS NOT NULL THEN 'stated' END) AS drives_source,
           rd.profile_drives, rt.iops, rt.mbps
    FROM labels l
    -- ON, not USING: with USING, Spark moves the join columns to the front of l.*
    JOIN run_throughput rt ON rt.run_id = l.run_id
    LEFT JOIN run_drives rd ON rd.run_id = l.run_id AND rd.place_id = l.place_id
    WHERE rt.iops IS NOT NULL OR rt.mbps IS NOT NULL
)
SELECT * EXCLUDE (raid_level_stated, drives_stated),
       iops / nullif(drives, 0) AS iops_per_drive,
       mbps / nullif(drives, 0) AS mbps_per_drive
-- run_level and target_level list the same columns in the same order: a plain UNION ALL
FROM (SELECT * FROM run_level UNION ALL SELECT * FROM target_level);

-- Sizing: every sizing rule a study declares (sidecar `criteria = [...]`) against each run of the
-- rule's tool (its criteria file's tool column, or any: macro tool_applies, 025_declared.sql): the
-- Exchange rule of 0.5 IO/s per mailbox sizes Jetstress runs, never an Iometer sweep.
-- A rule is a qos_criteria row whose iolab_metric is a column of per_drive_iops (iops, mbps,
-- iops_per_drive, mbps_per_drive). multiple = that value / the rule's threshold: for a '=' rule
-- (e.g. 0.5 IO/s per Exchange mailbox) the number of units the run supports, for a '>=' rule
-- (e.g. 100 IO/s per disk) how many times the rule the run delivers.
CREATE OR REPLACE VIEW sizing AS
SELECT p.*, d.criterion, d.description AS rule, d.comparator, d.threshold, d.unit AS threshold_unit,
       d.iolab_metric AS rule_metric, d.tool AS rule_tool,
       CASE d.iolab_metric WHEN 'iops' THEN p.iops WHEN 'mbps' THEN p.mbps
            WHEN 'iops_per_drive' THEN p.iops_per_drive WHEN 'mbps_per_drive' THEN p.mbps_per_drive END
       / nullif(d.threshold, 0) AS multiple
FROM per_drive_iops p
JOIN study_declarations d ON d.study = p.study AND d.kind = 'criterion' AND d.defined
                         AND d.iolab_metric IN ('iops', 'mbps', 'iops_per_drive', 'mbps_per_drive')
                         AND tool_applies(d.tool, p.tool)
WHERE p.level = 'run';
