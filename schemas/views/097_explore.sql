-- The explore page's numbers (notebooks/11-explore.py, iolab.reports.explore): any metric the study
-- measured against any load or workload dimension, picked on the page.
--
-- explore_runs: every number of each system's current measurement (008_measurements_of_systems.sql;
-- numbers of no system label belong to no measurement and are kept), each metric at the widest scope
-- the study states it at ('all', then 'test', 'point', 'host', 'instance', 'volume', 'manager',
-- 'processor', 'worker', 'target'): a run's total and its workers' or targets' parts are never two
-- points of one run at one load. With the run's load and workload dimensions as it states them,
-- the metric's role and direction (metric_vocabulary), and the file and line the number was read from.
-- workload: the run's workload less its load (block size and I/O mix, or its workload as written).
CREATE OR REPLACE VIEW explore_runs AS
WITH m AS (
    SELECT study, system, metric, unit, scope, target, workload, block_size_bytes, read_pct, random_pct,
           outstanding_ios, queue_depth, workers, small_oio, large_oio, tiles, vms, drives_stated, started_at,
           value, source_path, line_no, run_id,
           CASE scope WHEN 'all' THEN 1 WHEN 'test' THEN 2 WHEN 'point' THEN 3 WHEN 'host' THEN 4
                      WHEN 'instance' THEN 5 WHEN 'volume' THEN 6 WHEN 'manager' THEN 7 WHEN 'processor' THEN 8
                      WHEN 'worker' THEN 9 WHEN 'target' THEN 10 ELSE 11 END AS scope_rank
    FROM measurements
    WHERE study IS NOT NULL AND value IS NOT NULL AND coalesce(current_measurement, system IS NULL)
), w AS (
    SELECT *, min(scope_rank) OVER (PARTITION BY study, metric) AS widest FROM m
)
SELECT w.study, coalesce(w.system, '(no system label)') AS system, w.metric, w.unit, v.role,
       CASE WHEN v.lower_is_better THEN 'lower' WHEN NOT v.lower_is_better THEN 'higher' END AS direction,
       w.scope, w.target,
       workload_label(w.block_size_bytes, w.read_pct, w.random_pct, NULL, w.workload) AS workload,
       w.outstanding_ios, w.queue_depth, w.workers, w.block_size_bytes, w.read_pct, w.random_pct, w.small_oio,
       w.large_oio, w.tiles, w.vms, w.drives_stated AS drives, w.started_at AS run_start, w.value,
       w.source_path AS file, w.line_no AS line, w.run_id
FROM w LEFT JOIN metric_vocabulary v ON v.metric = w.metric
WHERE w.scope_rank = w.widest;

-- explore_series: each series of a study's time-series captures (esxtop, perfmon) that has a
-- canonical metric, with its capture's system, the metric's role and direction, a name for the
-- series (host, object, instance, counter) and its mean (series_summary), by which the page picks the
-- series it sends; their points are series_points' (time, sample number).
CREATE OR REPLACE VIEW explore_series AS
SELECT s.study, coalesce(f.system, '(no system label)') AS system, s.metric, s.unit, v.role,
       CASE WHEN v.lower_is_better THEN 'lower' WHEN NOT v.lower_is_better THEN 'higher' END AS direction,
       s.host || ' ' || s.object || coalesce(' (' || s.instance || ')', '') || ' ' || s.counter AS series,
       s.samples, s.avg, s.source_path AS file, s.series_id, s.source_id
FROM series_summary s
JOIN source_files f ON f.content_id = s.source_id AND f.study IS NOT DISTINCT FROM s.study AND f.status = 'ok'
     AND f.path = s.source_path
LEFT JOIN metric_vocabulary v ON v.metric = s.metric
WHERE s.metric IS NOT NULL AND s.study IS NOT NULL;
