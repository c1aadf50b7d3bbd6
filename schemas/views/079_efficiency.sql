-- Efficiency per study and system: $/VM, $/IOPS, IOPS per drive, IOPS per watt, score per kW, of each
-- system's current measurement (current_measurements, and per_drive_iops: 012_study_runs.sql).
-- Price and VM count come from the sidecar (price_usd, vms) or, failing that, from the study's
-- measurements (total_price in USD, total_vms, whatever file states them); power from the sidecar
-- (watts: the vocabulary has no power metric); score is the IOmark application_sets where a file
-- states one. price_source: 'sidecar' or 'file' (a results file states it, e.g. a published table's
-- total_price).
-- IOPS: the statistic of every page (docs/analysis.md), never the best single run: each matched
-- point's mean of its repeats (comparison_points, 075_comparison.sql: the system's current
-- measurement, a headline IO/s of the vocabulary at scope all/test), and of those the highest:
-- best_iops, at the point named by best_iops_workload (its workload and load), best_iops_load and
-- best_iops_runs (the repeats averaged); best_iops_drives the drives behind it (comparison_points:
-- declared, profile or stated) and best_iops_per_drive = best_iops / best_iops_drives. $/IOPS and
-- IOPS per watt divide by best_iops.
CREATE OR REPLACE VIEW efficiency AS
WITH pub AS (
    SELECT study, coalesce(system, '') AS system,
           max(value) FILTER (metric = 'total_price' AND unit = 'USD') AS price_usd,
           max(value) FILTER (metric = 'total_vms') AS vms,
           max(value) FILTER (metric = 'application_sets') AS score
    FROM current_measurements WHERE metric IN ('total_price', 'total_vms', 'application_sets') GROUP BY ALL
), lab AS (
    SELECT study, coalesce(system, '') AS system, max(price_usd) AS price_usd, max(watts) AS watts, max(vms) AS vms
    FROM current_files WHERE study IS NOT NULL GROUP BY ALL
), points AS (
    SELECT p.study, p.system, p.value, p.workload_label, p.load, p.runs, p.drives,
           row_number() OVER (PARTITION BY p.study, p.system
                              ORDER BY p.value DESC, p.load, p.workload_label, p.drives) AS pick
    FROM comparison_points p JOIN metric_vocabulary v ON v.metric = p.metric AND v.headline AND v.unit = 'IO/s'
    WHERE p.current_measurement AND p.scope IN ('all', 'test')
), perf AS (
    SELECT study, system, value AS best_iops, workload_label AS best_iops_workload, load AS best_iops_load,
           runs AS best_iops_runs, drives AS best_iops_drives, value / nullif(drives, 0) AS best_iops_per_drive
    FROM points WHERE pick = 1
), keys AS (
    SELECT study, system FROM pub UNION SELECT study, system FROM lab UNION SELECT study, system FROM perf
)
SELECT k.study, nullif(k.system, '') AS system,
       coalesce(l.price_usd, p.price_usd) AS price_usd,
       CASE WHEN l.price_usd IS NOT NULL THEN 'sidecar' WHEN p.price_usd IS NOT NULL THEN 'file' END AS price_source,
       l.watts AS watts,
       coalesce(l.vms, p.vms) AS vms,
       p.score,
       f.best_iops, f.best_iops_per_drive, f.best_iops_workload, f.best_iops_load, f.best_iops_runs, f.best_iops_drives,
       coalesce(l.price_usd, p.price_usd) / nullif(coalesce(l.vms, p.vms), 0) AS usd_per_vm,
       coalesce(l.price_usd, p.price_usd) / nullif(f.best_iops, 0) AS usd_per_iops,
       f.best_iops / nullif(l.watts, 0) AS iops_per_watt,
       p.score / nullif(l.watts / 1000, 0) AS score_per_kw
FROM keys k
LEFT JOIN pub p USING (study, system)
LEFT JOIN lab l USING (study, system)
LEFT JOIN perf f USING (study, system)
WHERE coalesce(l.price_usd, p.price_usd, l.watts, f.best_iops) IS NOT NULL;
