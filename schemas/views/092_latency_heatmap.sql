-- Latency heatmaps: fio completion-latency histogram logs (write_hist_log, table fio_hist_log) as
-- I/O counts per time interval and latency octave, one row per file, direction, interval and octave
-- that holds I/Os.
--
-- Bins: fio's fine bins (stat.c plat_val_to_idx / plat_idx_to_val, FIO_IO_U_PLAT_BITS 6) are summed,
-- whole, into powers of two of the file's unit. A fine bin below index 128 is one unit wide, [i, i+1);
-- from 128 on, index i lies in the group [2^m, 2^(m+1)) with m = floor(i / 64) + 5, cut into 64 bins
-- of 2^(m-6). So the octave [2^k, 2^(k+1)) is exactly the fine bins 2^k .. 2^(k+1)-1 for k < 7 and the
-- 64 bins of group k from 7 on: no fine bin straddles an octave's edge. Bin 0 is its own row, [0, 1).
-- fio clamps every latency past its last bin into that bin (index 1215 in fio 2.x, 1855 in 3.x), so
-- the top octave (2^23 us in 2.x, 2^33 ns in 3.x) has no upper bound: upper_ms is NULL there.
-- Units: 1216 bins per row is fio 2.x, in usec; 1856 is fio 3.x, in ns (fio_hist_log.unit says which);
-- lower_ms / upper_ms are the octave's bounds in ms, the schema's latency unit (us / 1000, ns / 10^6).
-- Time: fio writes the end of each interval (msec since the job started); the interval starts at the
-- previous row's time for the same direction, or at the job's start (0) for the first row.
-- io_count: the I/Os completed in that octave during the interval; fio_bins: how many of fio's nonzero
-- fine bins were summed into it; line_no: the file's line (the first, if one interval has several
-- lines, e.g. one per block size: lines says how many).
CREATE OR REPLACE VIEW latency_heatmap AS
WITH b AS (
    SELECT source_id, ddir, msec, unit, line_no, count,
           CASE WHEN bin = 0 THEN -1 WHEN bin < 64 THEN CAST(floor(log2(bin)) AS INTEGER)
                ELSE CAST(floor(bin / 64) AS INTEGER) + 5 END AS octave
    FROM fio_hist_log
), cells AS (
    SELECT source_id, ddir, msec, unit, octave, min(line_no) AS line_no, count(DISTINCT line_no) AS lines,
           sum(count) AS io_count, count(*) AS fio_bins
    FROM b GROUP BY source_id, ddir, msec, unit, octave
), times AS (
    SELECT source_id, ddir, msec, coalesce(lag(msec) OVER (PARTITION BY source_id, ddir ORDER BY msec), 0) AS start_msec
    FROM (SELECT DISTINCT source_id, ddir, msec FROM fio_hist_log)
), bounds AS (
    SELECT c.*, t.start_msec,
           CASE WHEN c.octave < 0 THEN 0 ELSE 2 ** c.octave END AS lower_unit,
           CASE WHEN c.octave < 0 THEN 1 WHEN c.octave < CASE c.unit WHEN 'ns' THEN 33 ELSE 23 END
                THEN 2 ** (c.octave + 1) END AS upper_unit,
           CAST(CASE c.unit WHEN 'ns' THEN 1000000 ELSE 1000 END AS DOUBLE) AS per_ms
    FROM cells c JOIN times t ON t.source_id = c.source_id AND t.ddir = c.ddir AND t.msec = c.msec
)
SELECT f.study, f.source_id AS place_id, coalesce(f.system, '(no system label)') AS system,
       regexp_extract(f.path, '([^/]+)$', 1) AS file,
       CASE x.ddir WHEN 0 THEN 'read' WHEN 1 THEN 'write' WHEN 2 THEN 'trim' ELSE 'ddir ' || x.ddir END AS direction,
       CAST(x.start_msec AS DOUBLE) / 1000 AS time_start_s, CAST(x.msec AS DOUBLE) / 1000 AS time_s,
       x.lower_unit / x.per_ms AS lower_ms, x.upper_unit / x.per_ms AS upper_ms,
       CASE WHEN x.upper_unit IS NULL THEN '>= ' || CAST(x.lower_unit AS BIGINT) || ' ' || x.unit
            ELSE CAST(x.lower_unit AS BIGINT) || '-' || CAST(x.upper_unit AS BIGINT) || ' ' || x.unit END AS bin_label,
       x.unit AS file_unit, CAST(x.io_count AS BIGINT) AS io_count, x.fio_bins, x.line_no, x.lines
FROM bounds x
-- of each system's current measurement (012_study_runs.sql)
JOIN current_files f ON f.content_id = x.source_id;
