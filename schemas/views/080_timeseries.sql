-- Time series summarised per capture (avg, p95, max) so notebooks can join them to benchmark runs
-- by host and time window (series_summary.first_ts / last_ts: the times of the series' first and last
-- sample). series_points itself is created by
-- ingest/db.py (it reads the Parquet store, whose file list changes with every ingest).

-- Each series' numbers over its points: count, mean, exact p95, max, min, first and last sample.
-- A series belongs to one file and never changes, so the lake stores these rows as its export
-- writes the file's points (iolab.lake.export), and the lake's views read them there instead of
-- every point again (the exact p95 was most of Spark's time on a 10 GB lake).
CREATE OR REPLACE VIEW series_stats AS
SELECT source_id, series_id, count(value) AS samples, avg(value) AS avg, quantile_cont(value, 0.95) AS p95,
       max(value) AS max, min(value) AS min, min(sample_no) AS first_no, max(sample_no) AS last_no
FROM series_values GROUP BY source_id, series_id;

CREATE OR REPLACE VIEW series_summary AS
WITH v AS (  -- aggregate the raw values first (series_values: no time join), then label the few rows
    SELECT series_id, samples, avg, p95, max, min, first_no, last_no FROM series_stats
)
SELECT s.series_id, s.source_id, f.study, f.system, s.host, s.object, s.instance, s.instance_name, s.instance_id,
       s.sub_instance, s.counter, s.metric, s.unit, s.original_name,
       coalesce(v.samples, 0) AS samples, v.avg, v.p95, v.max, v.min, a.ts AS first_ts, b.ts AS last_ts,
       f.path AS source_path  -- the capture file, for a point's tooltip
FROM series s
JOIN source_files f ON f.content_id = s.source_id AND f.status = 'ok'
LEFT JOIN v USING (series_id)
LEFT JOIN series_samples a ON a.source_id = s.source_id AND a.sample_no = v.first_no
LEFT JOIN series_samples b ON b.source_id = s.source_id AND b.sample_no = v.last_no;

-- Per device / adapter / path / virtual disk / logical disk: IOPS, MB/s and latencies side by side.
-- esxtop MBytes are kept as esxtop prints them (it does not say 10^6 or 2^20); perfmon seconds -> ms.
CREATE OR REPLACE VIEW device_io AS
SELECT source_id, study, host, object, instance, min(first_ts) AS first_ts, max(last_ts) AS last_ts,
       max(avg) FILTER (metric = 'iops') AS iops_avg, max(p95) FILTER (metric = 'iops') AS iops_p95,
       max(max) FILTER (metric = 'iops') AS iops_max,
       max(avg) FILTER (metric = 'read_iops') AS read_iops_avg, max(avg) FILTER (metric = 'write_iops') AS write_iops_avg,
       max(avg) FILTER (metric = 'mbytes_read_per_s') AS mbytes_read_per_s_avg,
       max(avg) FILTER (metric = 'mbytes_written_per_s') AS mbytes_written_per_s_avg,
       max(avg) FILTER (metric = 'davg_ms') AS davg_ms_avg, max(p95) FILTER (metric = 'davg_ms') AS davg_ms_p95,
       max(avg) FILTER (metric = 'kavg_ms') AS kavg_ms_avg, max(avg) FILTER (metric = 'gavg_ms') AS gavg_ms_avg,
       max(p95) FILTER (metric = 'gavg_ms') AS gavg_ms_p95, max(avg) FILTER (metric = 'qavg_ms') AS qavg_ms_avg,
       max(avg) FILTER (metric = 'davg_read_ms') AS davg_read_ms_avg, max(avg) FILTER (metric = 'davg_write_ms') AS davg_write_ms_avg,
       max(avg) FILTER (metric = 'avg_read_latency_ms') AS vdisk_read_ms_avg,
       max(avg) FILTER (metric = 'avg_write_latency_ms') AS vdisk_write_ms_avg,
       1000 * max(avg) FILTER (metric = 'avg_read_latency_s') AS read_latency_ms_avg,
       1000 * max(avg) FILTER (metric = 'avg_write_latency_s') AS write_latency_ms_avg,
       max(avg) FILTER (metric = 'queue_length') AS queue_length_avg
FROM series_summary
WHERE object IN ('Physical Disk', 'Physical Disk Adapter', 'Physical Disk Path', 'Physical Disk SCSI Device',
                 'Physical Disk Per-Device-Per-World', 'Physical Disk Partition', 'Physical Disk NFS Volume',
                 'Virtual Disk', 'LogicalDisk', 'PhysicalDisk')
GROUP BY source_id, study, host, object, instance;

-- CPU: utilisation per physical CPU, used/ready per VM group and vCPU.
CREATE OR REPLACE VIEW cpu_usage AS
SELECT source_id, study, host, object, instance, instance_name, instance_id, sub_instance, counter, metric,
       samples, avg, p95, max, first_ts, last_ts
FROM series_summary
WHERE metric IN ('cpu_used_pct', 'cpu_ready_pct', 'cpu_util_pct', 'cpu_processor_time_pct');
