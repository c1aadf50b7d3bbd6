-- Latency percentiles as rows, whatever the tool: every measurement named p<N>_[read_|write_|trim_](latency|clat)_ms
-- (p99_9 = the 99.9th percentile). direction is read/write/trim, or 'all' when the tool merges them;
-- kind says which latency the tool measured ('latency': the tool's headline latency, which for fio is
-- completion latency unless the job set lat_percentiles; 'clat': completion latency stated apart).
CREATE OR REPLACE VIEW latency_percentiles AS
SELECT study, system, tool, run_id, source_id,
       workload_label(block_size_bytes, read_pct, random_pct, NULL, workload) AS workload,
       config_label, raid_level, outstanding_ios AS load, scope, target,
       coalesce(nullif(regexp_extract(metric, '^p[0-9_]+_(read|write|trim)_', 1), ''), 'all') AS direction,
       regexp_extract(metric, '_(latency|clat)_ms$', 1) AS kind,
       replace(regexp_extract(metric, '^p([0-9_]+)_', 1), '_', '.')::DOUBLE AS percentile,
       value AS latency_ms, metric
FROM measurements
WHERE regexp_matches(metric, '^p[0-9]+(_[0-9]+)?_((read|write|trim)_)?(latency|clat)_ms$') AND value IS NOT NULL;
