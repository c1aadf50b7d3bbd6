-- QoS verdicts: every applicable criterion of qos_criteria (criteria.csv, extensible) against the
-- runs, and the saturation point (the largest load that still meets every criterion).
--
-- Criterion -> metric it tests (when the criteria file has no iolab_metric column):
--   jetstress_db_read_latency   db_read_latency_ms, worst database volume/instance of the run
--   jetstress_log_write_latency log_write_latency_ms, worst log volume/instance
--   ds4300_measurement_point    avg_latency_ms of the run (Iometer ALL row / published)
--   oracle_io_latency_target    ORION small-I/O latency (min_small_latency_ms, small_latency_ms points)
--   iomark_vm_response          pct_ios_within_30ms, from Iometer 1.1.0 latency bins (ALL row) or vscsiStats
--   vmmark_app_latency          app_latency_ms (no format records it yet: no verdicts)
CREATE OR REPLACE VIEW latency_bin_shares AS
SELECT r.run_id, 'all' AS scope, NULL AS target, 'pct_ios_within_30ms' AS metric,
       100.0 * sum(b.io_count) FILTER (b.upper_us IS NOT NULL AND b.upper_us <= 30000) / nullif(sum(b.io_count), 0) AS value
FROM iometer_latency_bins b
JOIN iometer_results ir ON ir.source_id = b.source_id AND ir.line_no = b.line_no AND ir.row_type = 'ALL'
JOIN runs r ON r.source_id = ir.source_id AND r.run_key = 's' || ir.session_no || '/r' || ir.block_no
GROUP BY r.run_id;

CREATE OR REPLACE VIEW qos_verdicts AS
WITH crit AS (
    SELECT q.criterion, q.comparator, q.threshold, q.unit, q.citation,
           coalesce(q.iolab_metric, m.metric) AS metric, m.pick
    FROM qos_criteria q
    JOIN source_files f ON f.content_id = q.source_id
    LEFT JOIN (VALUES ('jetstress_db_read_latency', 'db_read_latency_ms', 'max'),
                      ('jetstress_log_write_latency', 'log_write_latency_ms', 'max'),
                      ('ds4300_measurement_point', 'avg_latency_ms', 'max'),
                      ('oracle_io_latency_target', 'min_small_latency_ms', 'min'),
                      ('iomark_vm_response', 'pct_ios_within_30ms', 'min'),
                      ('vmmark_app_latency', 'app_latency_ms', 'max')) m(criterion, metric, pick)
           ON m.criterion = q.criterion
    WHERE f.status = 'ok' AND q.comparator IN ('<=', '<', '>=', '>')
), vals AS (
    SELECT run_id, metric, max(value) AS worst_high, min(value) AS worst_low
    FROM (SELECT run_id, metric, value FROM samples
          WHERE scope IN ('all', 'test', 'volume', 'instance')
             OR (scope = 'target' AND metric = 'pct_ios_within_30ms')  -- vscsiStats, per virtual disk
          UNION ALL SELECT run_id, metric, value FROM latency_bin_shares)
    GROUP BY ALL
)
SELECT p.run_id, p.study, p.system, p.tool, p.workload, p.block_size_bytes, p.tiles, p.started_at,
       c.criterion, c.metric, CASE WHEN c.pick = 'min' THEN v.worst_low ELSE v.worst_high END AS value,
       c.comparator, c.threshold, c.unit, c.citation,
       CASE c.comparator
            WHEN '<=' THEN value <= c.threshold WHEN '<' THEN value < c.threshold
            WHEN '>=' THEN value >= c.threshold WHEN '>' THEN value > c.threshold END AS passed
FROM crit c
JOIN vals v ON v.metric = c.metric
JOIN (SELECT DISTINCT run_id, study, system, tool, workload, block_size_bytes, tiles, started_at FROM per_drive_iops
      UNION SELECT r.run_id, f.study, coalesce(r.system, f.system), r.tool, r.workload, r.block_size_bytes,
                   coalesce(r.tiles, f.tiles), r.started_at
            FROM runs r JOIN source_files f ON f.content_id = r.source_id WHERE f.status = 'ok') p ON p.run_id = v.run_id;

-- Saturation: along each outstanding-I/O or tiles curve, the largest load whose run passes every
-- criterion that applies to it.
CREATE OR REPLACE VIEW saturation AS
WITH run_ok AS (
    SELECT run_id, bool_and(passed) AS all_passed, string_agg(criterion, ', ' ORDER BY criterion) AS criteria
    FROM qos_verdicts GROUP BY run_id
)
SELECT sp.study, sp.system, sp.tool, sp.workload, sp.axis,
       max(sp.load) FILTER (ok.all_passed) AS saturation_load,
       max(sp.load) AS max_load_tested,
       any_value(ok.criteria) AS criteria
FROM scaling_points sp JOIN run_ok ok USING (run_id)
WHERE sp.axis IN ('outstanding_ios', 'tiles', 'drives')
GROUP BY ALL;
