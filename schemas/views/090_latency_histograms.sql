-- Latency histograms, one row per bin, from every format that writes bins:
--   Iometer 1.1.0 latency bins of a run's ALL row (iometer_latency_bins)
--   vscsiStats latency histograms per virtual disk (vscsi_histograms kind latency_us, all I/Os)
-- Bounds in microseconds; upper_us NULL = open-ended last bin. share_pct = the bin's share of
-- the histogram's I/Os. (fio latency bins join here once their table exists: one more UNION.)
CREATE OR REPLACE VIEW latency_histograms AS
WITH bins AS (
    SELECT f.study, f.source_id AS place_id, coalesce(r.system, f.system) AS system, r.run_id,
           workload_label(r.block_size_bytes, r.read_pct, r.random_pct, r.outstanding_ios, r.workload) AS workload_label,
           'all' AS scope, NULL AS target, 'all' AS direction, b.bin_no, b.lower_us, b.upper_us, b.io_count::DOUBLE AS io_count
    FROM iometer_latency_bins b
    JOIN iometer_results ir ON ir.source_id = b.source_id AND ir.line_no = b.line_no AND ir.row_type = 'ALL'
    JOIN runs r ON r.source_id = ir.source_id AND r.run_key = 's' || ir.session_no || '/r' || ir.block_no
    JOIN source_files f ON f.content_id = r.source_id AND f.status = 'ok'
    UNION ALL
    SELECT f.study, f.source_id, f.system, NULL, coalesce(h.vdisk, h.title), 'target', h.vdisk, h.direction,
           k.bucket_no, lag(k.upper_bound) OVER (PARTITION BY k.source_id, k.histogram_no ORDER BY k.bucket_no),
           CASE WHEN NOT k.is_overflow THEN k.upper_bound END, k.frequency::DOUBLE
    FROM vscsi_buckets k
    JOIN vscsi_histograms h ON h.source_id = k.source_id AND h.histogram_no = k.histogram_no AND h.kind = 'latency_us'
    JOIN source_files f ON f.content_id = k.source_id AND f.status = 'ok'
)
SELECT *, 100.0 * io_count / nullif(sum(io_count) OVER (PARTITION BY place_id, run_id, target, direction, workload_label), 0) AS share_pct,
       CASE WHEN upper_us IS NULL THEN '> ' || coalesce(lower_us::BIGINT, 0) || ' µs'
            ELSE '≤ ' || upper_us::BIGINT || ' µs' END AS bin_label
FROM bins;
