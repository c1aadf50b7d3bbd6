-- Latency histograms, one row per bin, from every format that writes bins, of each system's current
-- measurement (current_runs, current_files: 012_study_runs.sql):
--   Iometer 1.1.0 latency bins of a run's ALL row (iometer_latency_bins)
--   vscsiStats latency histograms per virtual disk (vscsi_histograms kind latency_us, all I/Os)
--   fio json+ bins of each job (fio_latency_bins), per direction: `read`, `write`... for the
--   completion latency (clat, fio's histogram), `read lat` / `read slat` for the others. fio
--   writes each bin's representative value (stat.c plat_idx_to_val, 64 bins per power of two):
--   below 128 the value is the bin [v, v+1); above, v = 2^m + (k + 0.5) x 2^(m-6) and the bin is
--   [2^m + k x 2^(m-6), 2^m + (k+1) x 2^(m-6)); bin_no is fio's index (m - 5) x 64 + k. ns (3.x)
--   or us (2.x), as fio_latency_bins.unit says.
-- Bounds in microseconds; upper_us NULL = open-ended last bin. share_pct = the bin's share of
-- the histogram's I/Os.
CREATE OR REPLACE VIEW latency_histograms AS
WITH bins AS (
    SELECT r.study, r.source_id AS place_id, r.system, r.measurement, r.measured_by, r.measurement_no, r.run_id,
           r.workload_label, 'all' AS scope, NULL AS target, 'all' AS direction, b.bin_no, b.lower_us, b.upper_us,
           b.io_count::DOUBLE AS io_count
    FROM iometer_latency_bins b
    JOIN iometer_results ir ON ir.source_id = b.source_id AND ir.line_no = b.line_no AND ir.row_type = 'ALL'
    JOIN current_runs r ON r.content_id = ir.source_id AND r.run_key = 's' || ir.session_no || '/r' || ir.block_no
    UNION ALL
    -- a capture of the file's virtual disks, not of a run: the file's place (current_files)
    SELECT f.study, f.source_id, f.system, NULL, NULL, NULL, NULL, coalesce(h.vdisk, h.title), 'target', h.vdisk,
           h.direction, k.bucket_no,
           lag(k.upper_bound) OVER (PARTITION BY k.source_id, k.histogram_no ORDER BY k.bucket_no),
           CASE WHEN NOT k.is_overflow THEN k.upper_bound END, k.frequency::DOUBLE
    FROM vscsi_buckets k
    JOIN vscsi_histograms h ON h.source_id = k.source_id AND h.histogram_no = k.histogram_no AND h.kind = 'latency_us'
    JOIN current_files f ON f.content_id = k.source_id
    UNION ALL
    SELECT r.study, r.source_id, r.system, r.measurement, r.measured_by, r.measurement_no, r.run_id, r.workload_label,
           'all', NULL, CASE WHEN b.stat = 'clat' THEN b.ddir ELSE b.ddir || ' ' || b.stat END,
           b.bin_no, b.lower / b.per_us, (b.lower + b.width) / b.per_us, b.count::DOUBLE
    FROM (SELECT *, CASE WHEN bin_value < 128 THEN bin_value::BIGINT
                         ELSE (m - 5) * 64 + floor((bin_value - 2 ** m) / 2 ** (m - 6))::BIGINT END AS bin_no,
                    CASE WHEN bin_value < 128 THEN bin_value
                         ELSE 2 ** m + floor((bin_value - 2 ** m) / 2 ** (m - 6)) * 2 ** (m - 6) END AS lower,
                    CASE WHEN bin_value < 128 THEN 1 ELSE 2 ** (m - 6) END AS width,
                    CASE unit WHEN 'ns' THEN 1000.0 ELSE 1.0 END AS per_us
          FROM (SELECT *, CASE WHEN bin_value >= 128 THEN floor(log2(bin_value))::INTEGER END AS m
                FROM fio_latency_bins)) b
    JOIN fio_jobs j ON j.source_id = b.source_id AND j.doc_no = b.doc_no AND j.job_no = b.job_no
    JOIN current_runs r ON r.content_id = j.source_id AND r.run_key = j.run_key
)
SELECT *, 100.0 * io_count / nullif(sum(io_count) OVER (PARTITION BY place_id, run_id, target, direction, workload_label), 0) AS share_pct,
       CASE WHEN upper_us IS NULL THEN '> ' || coalesce(lower_us::BIGINT, 0) || ' µs'
            ELSE '≤ ' || upper_us::BIGINT || ' µs' END AS bin_label
FROM bins;
