-- Latency percentiles as rows, whatever the tool: every number of each system's current measurement
-- (current_measurements, 012_study_runs.sql) whose metric the vocabulary marks as a latency percentile
-- (metric_vocabulary.percentile; p99_9_read_latency_ms = the 99.9th).
-- direction is read/write/trim, or 'all' when the tool merges them (io_direction); kind says which
-- latency the tool measured (latency_kind: 'latency', the tool's headline latency, which for fio is
-- completion latency unless the job set lat_percentiles; 'clat': completion latency stated apart).
CREATE OR REPLACE VIEW latency_percentiles AS
SELECT m.study, m.system, m.measurement, m.measured_by, m.measurement_no, m.tool, m.run_id, m.source_id,
       workload_label(m.block_size_bytes, m.read_pct, m.random_pct, NULL, m.workload) AS workload,
       m.config_label, m.raid_level, m.outstanding_ios AS load, m.scope, m.target,
       coalesce(v.io_direction, 'all') AS direction, v.latency_kind AS kind, v.percentile,
       m.value AS latency_ms, m.metric
FROM current_measurements m JOIN metric_vocabulary v ON v.metric = m.metric
WHERE v.role = 'latency' AND v.percentile IS NOT NULL AND m.value IS NOT NULL;
