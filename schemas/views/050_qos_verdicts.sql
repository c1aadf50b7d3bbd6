-- QoS verdicts: every criterion a study declares (sidecar `criteria = [...]`, defined in a
-- criteria file such as criteria.csv, table qos_criteria) against the runs of that study (of each
-- system's current measurement: current_runs, 012_study_runs.sql), and the
-- saturation point (the largest load that still meets every criterion).
--
-- The criterion's iolab_metric column names the metric it tests; the worst value of the run is
-- judged: the highest for an upper bound (<=, <), the lowest for a lower bound (>=, >), over the
-- run's totals (scopes all/test), volumes and instances, and per-target shares of I/Os within a
-- latency (vscsiStats per virtual disk). pct_ios_within_30ms also comes from latency histogram
-- bins (latency_bin_shares). A criterion no study declares judges nothing, and a criterion judges the
-- runs of its own tool only (its criteria file's tool column, or any: macro tool_applies,
-- 025_declared.sql): the Jetstress latency bounds never judge an Iometer run.
CREATE OR REPLACE VIEW latency_bin_shares AS
SELECT r.run_id, 'all' AS scope, NULL AS target, 'pct_ios_within_30ms' AS metric,
       -- DOUBLE, not 100.0: Spark would do the division in DECIMAL and keep 6 decimals
       100 * CAST(sum(b.io_count) FILTER (b.upper_us IS NOT NULL AND b.upper_us <= 30000) AS DOUBLE)
       / nullif(sum(b.io_count), 0) AS value
FROM iometer_latency_bins b
JOIN iometer_results ir ON ir.source_id = b.source_id AND ir.line_no = b.line_no AND ir.row_type = 'ALL'
JOIN runs r ON r.source_id = ir.source_id AND r.run_key = 's' || ir.session_no || '/r' || ir.block_no
GROUP BY r.run_id;

CREATE OR REPLACE VIEW qos_verdicts AS
WITH crit AS (
    SELECT study, criterion, comparator, threshold, unit, citation, iolab_metric AS metric, tool AS rule_tool,
           CASE WHEN comparator IN ('>=', '>') THEN 'min' ELSE 'max' END AS pick
    FROM study_declarations
    WHERE kind = 'criterion' AND defined AND comparator IN ('<=', '<', '>=', '>') AND iolab_metric IS NOT NULL
), vals AS (
    SELECT run_id, metric, max(value) AS worst_high, min(value) AS worst_low
    -- measurements, not samples: a latency of a direction with no I/O is missing there, not 0
    FROM (SELECT s.run_id, s.metric, s.value FROM current_measurements s LEFT JOIN metric_vocabulary v ON v.metric = s.metric
          WHERE s.scope IN ('all', 'test', 'volume', 'instance')
             OR (s.scope = 'target' AND v.role = 'qos')  -- shares of I/Os within a latency, per virtual disk
          UNION ALL SELECT run_id, metric, value FROM latency_bin_shares)
    GROUP BY ALL
), run_labels AS (  -- the runs of each system's current measurement (current_runs, 012_study_runs.sql)
    SELECT DISTINCT run_id, study, system, tool, workload, workload_label, block_size_bytes, config_label, tiles,
           started_at, measurement, measured_by, measurement_no
    FROM current_runs
)
SELECT p.run_id, p.study, p.system, p.tool, p.workload, p.workload_label, p.block_size_bytes, p.config_label, p.tiles,
       p.started_at, p.measurement, p.measured_by, p.measurement_no, c.criterion, c.metric, CASE WHEN c.pick = 'min' THEN v.worst_low ELSE v.worst_high END AS value,
       c.comparator, c.threshold, c.unit, c.citation,
       CASE c.comparator
            WHEN '<=' THEN value <= c.threshold WHEN '<' THEN value < c.threshold
            WHEN '>=' THEN value >= c.threshold WHEN '>' THEN value > c.threshold END AS passed
FROM crit c
JOIN run_labels p ON p.study = c.study AND tool_applies(c.rule_tool, p.tool)
JOIN vals v ON v.run_id = p.run_id AND v.metric = c.metric;

-- Saturation (the one definition, DESIGN.md "The domain, in numbers"): along each outstanding-I/O,
-- tiles or drives curve of each system's current measurement, the largest load up to which every
-- run meets every criterion that applies to it: walking up the curve from its smallest load, the
-- load before the first one where any run (a repeat included) fails one. first_failing_load is that
-- load (NULL: none fails); saturation_load is NULL where the smallest load already fails. A curve
-- no criterion of the study judges (none applies to its tool) has no row. The knee of the scaling
-- view is another thing: where a curve first delivers under 80 % of linear scaling, not a limit.
CREATE OR REPLACE VIEW saturation AS
WITH run_ok AS (
    SELECT run_id, bool_and(passed) AS all_passed, string_agg(criterion, ', ' ORDER BY criterion) AS criteria
    FROM qos_verdicts GROUP BY run_id
), loads AS (
    SELECT sp.study, sp.system, sp.tool, sp.workload, sp.axis, sp.load, bool_and(ok.all_passed) AS passed,
           any_value(ok.criteria) AS criteria
    FROM scaling_points sp JOIN run_ok ok USING (run_id)
    WHERE sp.axis IN ('outstanding_ios', 'tiles', 'drives')  -- scaling_points: the current measurement
    GROUP BY ALL
), firsts AS (
    SELECT study, system, tool, workload, axis, min(load) FILTER (NOT passed) AS first_failing_load,
           max(load) AS max_load_tested, any_value(criteria) AS criteria
    FROM loads GROUP BY ALL
)
SELECT f.study, f.system, f.tool, f.workload, f.axis,
       max(l.load) FILTER (f.first_failing_load IS NULL OR l.load < f.first_failing_load) AS saturation_load,
       f.max_load_tested, f.criteria, f.first_failing_load
FROM firsts f
JOIN loads l ON l.study IS NOT DISTINCT FROM f.study AND l.system IS NOT DISTINCT FROM f.system AND l.tool = f.tool
            AND l.workload = f.workload AND l.axis = f.axis
GROUP BY f.study, f.system, f.tool, f.workload, f.axis, f.max_load_tested, f.criteria, f.first_failing_load;
