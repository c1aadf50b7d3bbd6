-- Any metric against a load axis, with linearity against the smallest load and the knee.
--
-- Curves (each a fixed system/workload/config, varying one load):
--   outstanding_ios  run totals (scope 'all') that record their outstanding I/Os, any tool (Iometer
--                    cycling runs, fio/DiskSpd/... sweeps), per workload signature (workload_label)
--   small_oio        matrix points (scope 'point') with no large I/O outstanding (ORION Large=0)
--   large_oio        matrix points with no small I/O outstanding (ORION Small=0)
--   drives           runs that state their drive count (published tables), per RAID level, config,
--                    workload and block size
--   tiles            runs labelled with tiles (sidecars), per system and workload
-- A point's value is the mean of its repeats (mean_of, 002_statistics.sql: the comparison's and the
-- trends' definition), with n, sd and the mean's 95 % t interval (ci95_low, ci95_high: macros
-- mean_ci95_*, t from the t distribution, the low end never below 0; NULL for one run), never the best
-- repeat. Every point is of its system's current measurement: the curves read current_measurements
-- (012_study_runs.sql; older measurements are the trends'), and scaling_points carries the measurement.
-- Which metrics get a linearity comes from the
-- vocabulary (metric_vocabulary): throughputs only.
-- linearity = value / (first value x load / first load): 1.0 is perfect scaling.
-- knee: the first point whose linearity falls below 0.8 (the curve delivers < 80 % of linear).
-- load_curves: which curve a run's split of its load (queue_depth x workers, as the runs state them)
-- belongs to, per system, configuration and workload signature (the comparison's match key less the
-- load). A system that ran a workload's loads only one way (deeper queues, or more workers) has one
-- curve (curve NULL). Where any system of the study ran that workload both ways (fio-plot: iodepth x
-- numjobs), averaging or picking across splits would put one split's IOPS beside another's latency,
-- so every system's runs of that workload form a curve per worker count ('1 worker': the queue
-- depth grows) and a curve per queue depth ('QD 16': the workers grow), each of more than one split;
-- a split is on every such curve it shares, and on its worker count's where it shares none.
CREATE OR REPLACE VIEW load_curves AS
WITH s AS (
    SELECT DISTINCT study, system, config_label, raid_level, block_size_bytes, read_pct, random_pct,
           workload_key(read_pct, random_pct, workload) AS workload_key, queue_depth, workers
    FROM current_measurements WHERE outstanding_ios IS NOT NULL
), c AS (
    SELECT *, coalesce(min(workers) OVER g < max(workers) OVER g, false)
                  AND coalesce(min(queue_depth) OVER g < max(queue_depth) OVER g, false) AS both_ways,
           count(*) OVER (PARTITION BY study, system, config_label, raid_level, block_size_bytes, read_pct, random_pct,
                                       workload_key, workers) AS same_workers,
           count(*) OVER (PARTITION BY study, system, config_label, raid_level, block_size_bytes, read_pct, random_pct,
                                       workload_key, queue_depth) AS same_qd
    FROM s
    WINDOW g AS (PARTITION BY study, system, config_label, raid_level, block_size_bytes, read_pct, random_pct, workload_key)
), b AS (
    SELECT *, max(CASE WHEN both_ways THEN 1 ELSE 0 END) OVER (
                  PARTITION BY study, block_size_bytes, read_pct, random_pct, workload_key) = 1 AS by_split
    FROM c
)
SELECT study, system, config_label, raid_level, block_size_bytes, read_pct, random_pct, workload_key, queue_depth,
       workers, NULL::VARCHAR AS curve
FROM b WHERE NOT by_split
UNION ALL
SELECT study, system, config_label, raid_level, block_size_bytes, read_pct, random_pct, workload_key, queue_depth,
       workers, coalesce(CAST(workers AS VARCHAR), '?') || CASE WHEN workers = 1 THEN ' worker' ELSE ' workers' END
FROM b WHERE by_split AND (same_workers > 1 OR same_qd = 1)
UNION ALL
SELECT study, system, config_label, raid_level, block_size_bytes, read_pct, random_pct, workload_key, queue_depth,
       workers, 'QD ' || coalesce(CAST(queue_depth AS VARCHAR), '?')
FROM b WHERE by_split AND same_qd > 1;

CREATE OR REPLACE VIEW scaling_points AS
WITH mm AS MATERIALIZED (  -- read once: the branches below each take their part
    SELECT study, system, tool, workload, config_label, raid_level, block_size_bytes, read_pct, random_pct, queue_depth,
           workers, outstanding_ios, metric, value, unit, run_id, measurement, scope, target,
           small_oio, large_oio, run_group, drives_stated, tiles
    FROM current_measurements
), oio AS (  -- run totals that record their outstanding I/Os, with the split of that load
    SELECT m.study, m.system, m.tool, m.workload, m.config_label, m.raid_level, m.block_size_bytes, m.read_pct,
           m.random_pct, m.queue_depth, m.workers, m.outstanding_ios, m.metric, m.value, m.unit, m.run_id,
           m.measurement
    FROM mm m
    WHERE m.scope = 'all' AND m.outstanding_ios IS NOT NULL
      AND m.metric IN ('iops', 'mbps', 'avg_latency_ms')
    UNION ALL
    -- a run that states latency per direction only (fio, DiskSpd, ...): avg_latency_ms is the I/O-weighted
    -- mean of its read and write averages, sum(iops_d x latency_d) / sum(iops_d)
    SELECT l.study, l.system, l.tool, l.workload, l.config_label, l.raid_level, l.block_size_bytes, l.read_pct,
           l.random_pct, l.queue_depth, l.workers, l.outstanding_ios,
           'avg_latency_ms', sum(i.value * l.value) / nullif(sum(i.value), 0), 'ms', l.run_id,
           l.measurement
    FROM mm l
    JOIN mm i ON i.run_id = l.run_id AND i.study IS NOT DISTINCT FROM l.study AND i.scope = 'all'
     AND i.target IS NULL AND i.metric = CASE l.metric WHEN 'avg_read_latency_ms' THEN 'read_iops' ELSE 'write_iops' END
    WHERE l.scope = 'all' AND l.target IS NULL AND l.outstanding_ios IS NOT NULL
      AND l.metric IN ('avg_read_latency_ms', 'avg_write_latency_ms') AND l.value IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM mm a WHERE a.run_id = l.run_id AND a.scope = 'all' AND a.target IS NULL
                      AND a.metric = 'avg_latency_ms')
    GROUP BY l.study, l.system, l.tool, l.workload, l.config_label, l.raid_level, l.block_size_bytes, l.read_pct,
             l.random_pct, l.queue_depth, l.workers, l.outstanding_ios, l.run_id, l.measurement
)
-- each on its split's curve (load_curves): the curve, where there is one, ends the workload's label
SELECT o.study, o.system, o.tool,
       workload_label(o.block_size_bytes, o.read_pct, o.random_pct, NULL, o.workload) || coalesce(', ' || c.curve, '')
           AS workload,
       o.config_label, o.raid_level, o.block_size_bytes,
       'outstanding_ios' AS axis, o.outstanding_ios::DOUBLE AS load, o.metric, o.value, o.unit, o.run_id,
       o.measurement
FROM oio o JOIN load_curves c ON c.study IS NOT DISTINCT FROM o.study AND c.system IS NOT DISTINCT FROM o.system
 AND c.config_label IS NOT DISTINCT FROM o.config_label AND c.raid_level IS NOT DISTINCT FROM o.raid_level
 AND c.block_size_bytes IS NOT DISTINCT FROM o.block_size_bytes AND c.read_pct IS NOT DISTINCT FROM o.read_pct
 AND c.random_pct IS NOT DISTINCT FROM o.random_pct AND c.queue_depth IS NOT DISTINCT FROM o.queue_depth
 AND c.workers IS NOT DISTINCT FROM o.workers
 AND c.workload_key IS NOT DISTINCT FROM workload_key(o.read_pct, o.random_pct, o.workload)
UNION ALL
SELECT m.study, m.system, m.tool, coalesce(m.run_group, m.workload), m.config_label, m.raid_level, m.block_size_bytes,
       'small_oio', m.small_oio, m.metric, m.value, m.unit, m.run_id, m.measurement
FROM mm m
WHERE m.scope = 'point' AND m.large_oio = 0 AND m.small_oio > 0
UNION ALL
SELECT m.study, m.system, m.tool, coalesce(m.run_group, m.workload), m.config_label, m.raid_level, m.block_size_bytes,
       'large_oio', m.large_oio, m.metric, m.value, m.unit, m.run_id, m.measurement
FROM mm m
WHERE m.scope = 'point' AND m.small_oio = 0 AND m.large_oio > 0
UNION ALL
SELECT m.study, m.system, m.tool, m.workload, m.config_label, m.raid_level, m.block_size_bytes,
       'drives', m.drives_stated, m.metric, m.value, m.unit, m.run_id, m.measurement
FROM mm m
WHERE m.drives_stated IS NOT NULL AND m.metric IN ('iops', 'mbps')
UNION ALL
-- tiles: the run's own headline throughputs (metric_vocabulary.headline, role throughput; a run that also
-- states its drives is a drive curve)
SELECT m.study, m.system, m.tool, m.workload, m.config_label, m.raid_level, m.block_size_bytes,
       'tiles', m.tiles, m.metric, m.value, m.unit, m.run_id, m.measurement
FROM mm m JOIN metric_vocabulary v ON v.metric = m.metric AND v.headline AND v.role = 'throughput'
WHERE m.tiles IS NOT NULL AND m.drives_stated IS NULL AND m.scope IN ('all', 'test');

CREATE OR REPLACE VIEW scaling AS
WITH pts AS (
    -- one value per curve point: the mean of its repeats (a cycling Iometer file can repeat a load)
    SELECT p.study, p.system, p.measurement, p.tool, p.workload, p.config_label, p.raid_level, p.block_size_bytes,
           p.axis, p.metric, p.unit, p.load, mean_of(p.value) AS value, count(*) AS n, sd_of(p.value) AS sd,
           any_value(v.role) = 'throughput' AS throughput
    FROM scaling_points p LEFT JOIN metric_vocabulary v ON v.metric = p.metric
    GROUP BY p.study, p.system, p.measurement, p.tool, p.workload, p.config_label, p.raid_level, p.block_size_bytes,
             p.axis, p.metric, p.unit, p.load
), w AS (
    SELECT *,
           first_value(load) OVER c AS first_load, first_value(value) OVER c AS first_value,
           count(*) OVER (PARTITION BY study, system, tool, workload, config_label, raid_level, block_size_bytes, axis, metric) AS points,
           mean_ci95_half(sd, n) AS ci95_half  -- 002_statistics.sql
    FROM pts
    WINDOW c AS (PARTITION BY study, system, tool, workload, config_label, raid_level, block_size_bytes, axis, metric
                 ORDER BY load ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
), l AS (
    SELECT * EXCLUDE (throughput, ci95_half),
           mean_ci95_low(value, ci95_half) AS ci95_low, mean_ci95_high(value, ci95_half) AS ci95_high,
           CASE WHEN throughput AND first_value > 0 THEN value / (first_value * load / first_load) END AS linearity
    FROM w
)
SELECT *,
       coalesce(linearity < 0.8 AND coalesce(lag(linearity) OVER k >= 0.8, true), false) AS is_knee
FROM l
WHERE points > 1
WINDOW k AS (PARTITION BY study, system, tool, workload, config_label, raid_level, block_size_bytes, axis, metric ORDER BY load);
