-- The SLA headline: per system, the highest load and IOPS at which a declared latency bound holds.
--
-- sla_declared: each study's bound, from its sidecar's sla = "<stat><=<number><unit>" (e.g.
-- sla = "p99<=1ms", any case), read once, by ingest/sla_bound.py, into the file's labels
-- (sla_bound: stat, metric, strict, bound_ms); this view reads that, never the text. The statistic
-- names the metric (mean/avg -> avg_latency_ms, max/p100 -> max_latency_ms, min/p0 ->
-- min_latency_ms, p99.9 -> p99_9_latency_ms); bound_ms is the bound in milliseconds.
-- One bound per study: sidecars of one study that state different bounds are refused (metric
-- NULL, sla_source says which bounds; the ingest names the sidecars, ingest/declared.py), never
-- resolved by picking one. `iolab compare --sla` shadows sla_declared for one bound.
-- A curve without that metric over all I/Os (fio reports percentiles per direction: p99_read_latency_ms)
-- is held to the bound in each direction it reports, a headline row per direction (sla_headline.metric).
CREATE OR REPLACE VIEW sla_declared AS
WITH d AS (
    SELECT study, labels->>'sla' AS sla, labels->'sla_bound'->>'stat' AS stat, labels->'sla_bound'->>'metric' AS metric,
           CAST(labels->'sla_bound'->>'strict' AS BOOLEAN) AS strict,
           CAST(labels->'sla_bound'->>'bound_ms' AS DOUBLE) AS bound_ms
    FROM source_files WHERE status = 'ok' AND (labels->>'sla') IS NOT NULL
), g AS (
    SELECT study, string_agg(DISTINCT sla, '", "' ORDER BY sla) AS sla,
           count(DISTINCT coalesce(metric, '?') || CASE WHEN strict THEN '<' ELSE '<=' END || coalesce(bound_ms, -1))
               AS bounds,
           count(*) FILTER (metric IS NULL) AS unread, min(stat) AS stat, min(metric) AS metric, bool_and(strict) AS strict,
           min(bound_ms) AS bound_ms
    FROM d GROUP BY study
)
SELECT study, sla,
       CASE WHEN bounds = 1 AND unread = 0 THEN stat END AS stat,
       CASE WHEN bounds = 1 AND unread = 0 THEN metric END AS metric,
       CASE WHEN bounds = 1 AND unread = 0 THEN strict END AS strict,
       CASE WHEN bounds = 1 AND unread = 0 THEN bound_ms END AS bound_ms,
       CASE WHEN unread > 0 THEN 'not read: ' || unread || ' file(s) were ingested before iolab read sla bounds once; '
                                 || 'run iolab ingest on the study again'
            WHEN bounds > 1 THEN 'refused: the sidecars of this study state different bounds ("' || sla
                                 || '"); a study has one: set sla once, in its top iolab.toml'
            ELSE 'sidecar: sla = "' || sla || '"' END AS sla_source
FROM g;

CREATE OR REPLACE VIEW sla_bounds AS
SELECT study, sla, stat, metric, strict, bound_ms, sla_source
FROM sla_declared WHERE metric IS NOT NULL;

-- sla_headline: one row per system and curve (configuration, RAID level, drives, workload, scope; and
-- load_curves' curve where the study ran a workload's loads split two ways: the label says which),
-- points ordered by load (total outstanding I/Os) with the bound's latency and the iops at the
-- same point (comparison_points: each system's current measurement, the mean of its repeats, one row per
-- point and unit). The headline is the last point that holds
-- before the first that does not, moved along the straight line between the two to where the
-- latency meets the bound (interpolated = true), for load and IOPS alike; where no point fails,
-- the last point (interpolated = false, holds_everywhere); where the first point already fails,
-- no load (NULL) and holds_nowhere. hold_n and fail_n: the runs averaged at the point that holds and at
-- the one that fails (a mean is never shown without its n).
CREATE OR REPLACE VIEW sla_headline AS
WITH matched AS (
    SELECT l.study, l.system, l.config_label, l.raid_level, l.drives, l.workload_key, l.block_size_bytes,
           l.read_pct, l.random_pct, l.scope, l.workload_label, c.curve, l.load,
           b.sla, l.metric, b.bound_ms, b.sla_source, l.value AS latency_ms, i.value AS iops, l.runs AS n,
           CASE WHEN b.strict THEN l.value < b.bound_ms ELSE l.value <= b.bound_ms END AS holds,
           l.metric = b.metric AS overall,
           max(CASE WHEN l.metric = b.metric THEN 1 ELSE 0 END) OVER (
               PARTITION BY l.study, l.system, l.config_label, l.raid_level, l.drives, l.workload_key,
                            l.block_size_bytes, l.read_pct, l.random_pct, l.scope, c.curve) AS has_overall
    FROM comparison_points l JOIN sla_bounds b ON b.study = l.study
     AND l.metric IN (b.metric, replace(b.metric, '_latency_ms', '_read_latency_ms'),
                      replace(b.metric, '_latency_ms', '_write_latency_ms'))
    JOIN load_curves c ON c.study IS NOT DISTINCT FROM l.study AND c.system IS NOT DISTINCT FROM l.system
 AND c.config_label IS NOT DISTINCT FROM l.config_label AND c.raid_level IS NOT DISTINCT FROM l.raid_level
 AND c.block_size_bytes IS NOT DISTINCT FROM l.block_size_bytes AND c.read_pct IS NOT DISTINCT FROM l.read_pct
 AND c.random_pct IS NOT DISTINCT FROM l.random_pct AND c.workload_key IS NOT DISTINCT FROM l.workload_key
 AND c.queue_depth IS NOT DISTINCT FROM l.queue_depth AND c.workers IS NOT DISTINCT FROM l.workers
    LEFT JOIN comparison_points i
      ON i.study = l.study AND i.system = l.system AND i.measurement = l.measurement AND i.metric = 'iops'
     AND i.scope = l.scope
     AND i.config_label IS NOT DISTINCT FROM l.config_label AND i.raid_level IS NOT DISTINCT FROM l.raid_level
     AND i.drives IS NOT DISTINCT FROM l.drives AND i.workload_key IS NOT DISTINCT FROM l.workload_key
     AND i.block_size_bytes IS NOT DISTINCT FROM l.block_size_bytes AND i.read_pct IS NOT DISTINCT FROM l.read_pct
     AND i.random_pct IS NOT DISTINCT FROM l.random_pct AND i.load IS NOT DISTINCT FROM l.load
     AND i.small_oio IS NOT DISTINCT FROM l.small_oio AND i.large_oio IS NOT DISTINCT FROM l.large_oio
     AND i.queue_depth IS NOT DISTINCT FROM l.queue_depth AND i.workers IS NOT DISTINCT FROM l.workers
    WHERE l.load IS NOT NULL AND l.small_oio IS NULL AND l.large_oio IS NULL AND l.current_measurement
), pts AS (  -- the bound's metric over all I/Os; where a curve has none (fio: per direction), each direction's
    SELECT study, system, config_label, raid_level, drives, workload_key, block_size_bytes, read_pct, random_pct,
           scope, workload_label, curve, load, sla, metric, bound_ms, sla_source, latency_ms, iops, n, holds
    FROM matched WHERE overall OR has_overall = 0
), curve AS (
    SELECT *, min(CASE WHEN NOT holds THEN load END) OVER w AS first_fail, max(load) OVER w AS last_load,
           count(*) OVER w AS points
    FROM pts
    WINDOW w AS (PARTITION BY study, system, config_label, raid_level, drives, workload_key, block_size_bytes,
                              read_pct, random_pct, scope, curve, metric)
), ends AS (
    SELECT study, system, config_label, raid_level, drives, workload_key, block_size_bytes, read_pct, random_pct,
           scope, curve, metric, any_value(workload_label) AS workload_label, any_value(sla) AS sla,
           any_value(bound_ms) AS bound_ms, any_value(sla_source) AS sla_source, any_value(points) AS points,
           max(CASE WHEN holds AND (first_fail IS NULL OR load < first_fail) THEN load END) AS hold_load,
           any_value(first_fail) AS fail_load
    FROM curve GROUP BY ALL
)
SELECT e.study, e.system, e.config_label, e.raid_level, e.drives,
       workload_label(e.block_size_bytes, e.read_pct, e.random_pct, NULL, e.workload_key) || coalesce(', ' || e.curve, '')
           AS workload_label, e.block_size_bytes,
       e.read_pct, e.random_pct, e.scope, e.sla, e.metric, e.bound_ms, e.points,
       h.load AS hold_load, h.latency_ms AS hold_latency_ms, h.iops AS hold_iops, h.n AS hold_n,
       f.load AS fail_load, f.latency_ms AS fail_latency_ms, f.iops AS fail_iops, f.n AS fail_n,
       CASE WHEN h.load IS NOT NULL AND f.load IS NOT NULL
            THEN h.load + (e.bound_ms - h.latency_ms) / nullif(f.latency_ms - h.latency_ms, 0) * (f.load - h.load)
            ELSE h.load END AS sla_load,
       CASE WHEN h.load IS NOT NULL AND f.load IS NOT NULL
            THEN h.iops + (e.bound_ms - h.latency_ms) / nullif(f.latency_ms - h.latency_ms, 0) * (f.iops - h.iops)
            ELSE h.iops END AS sla_iops,
       h.load IS NOT NULL AND f.load IS NOT NULL AS interpolated,
       CASE WHEN f.load IS NULL THEN 'holds at every measured load'
            WHEN h.load IS NULL THEN 'fails already at the lowest load'
            ELSE 'interpolated between load ' || h.load || ' (holds) and ' || f.load || ' (fails)' END AS how,
       e.sla_source
FROM ends e
LEFT JOIN curve h ON h.study = e.study AND h.system = e.system AND h.metric = e.metric AND h.scope = e.scope
 AND h.config_label IS NOT DISTINCT FROM e.config_label AND h.raid_level IS NOT DISTINCT FROM e.raid_level
 AND h.drives IS NOT DISTINCT FROM e.drives AND h.workload_key IS NOT DISTINCT FROM e.workload_key
 AND h.block_size_bytes IS NOT DISTINCT FROM e.block_size_bytes AND h.read_pct IS NOT DISTINCT FROM e.read_pct
 AND h.random_pct IS NOT DISTINCT FROM e.random_pct AND h.curve IS NOT DISTINCT FROM e.curve AND h.load = e.hold_load
LEFT JOIN curve f ON f.study = e.study AND f.system = e.system AND f.metric = e.metric AND f.scope = e.scope
 AND f.config_label IS NOT DISTINCT FROM e.config_label AND f.raid_level IS NOT DISTINCT FROM e.raid_level
 AND f.drives IS NOT DISTINCT FROM e.drives AND f.workload_key IS NOT DISTINCT FROM e.workload_key
 AND f.block_size_bytes IS NOT DISTINCT FROM e.block_size_bytes AND f.read_pct IS NOT DISTINCT FROM e.read_pct
 AND f.random_pct IS NOT DISTINCT FROM e.random_pct AND f.curve IS NOT DISTINCT FROM e.curve AND f.load = e.fail_load;
