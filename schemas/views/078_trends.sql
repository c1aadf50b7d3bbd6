-- Trends over time: the same system measured again (new firmware, a new month).
--
-- A *measurement* is 008_measurements_of_systems.sql's (the one rule every view and page follows): per
-- study and system, the files of one firmware (sidecar `firmware = "..."`, measured_by 'firmware'), or,
-- for files with no firmware label, a session of runs (measured_by 'run date': a file starting more than
-- 12 hours after the last run of every earlier file begins a new one, named by its first day), or
-- 'no time' for files whose runs state no time at all (listed, never dropped).
-- A run's start (trend_runs.started_at, started_from): run_starts' (008_measurements_of_systems.sql): as the
-- file states it, else its end less its runtime (fio JSON).
-- Order (trend_measurements.measurement_no, 1 = oldest): the study's declared
-- `firmware_order = ["old", ..., "new"]` first, in its order; the rest by their first run.
-- A measurement with neither (a firmware not in the order, runs without any time) is
-- 'unordered': it has no measurement_no and is in no trend; it is listed, never dropped silently.
CREATE OR REPLACE VIEW trend_runs AS
SELECT m.* EXCLUDE (started_at), rs.started_at, rs.started_from, f.labels->>'firmware' AS firmware
FROM measurements m JOIN source_files f ON f.source_id = m.source_id
JOIN run_starts rs ON rs.run_id = m.run_id
WHERE m.target IS NULL AND m.value IS NOT NULL AND m.system IS NOT NULL AND m.study IS NOT NULL;

CREATE OR REPLACE VIEW trend_measurements AS
WITH r AS (
    SELECT study, system, measurement, count(DISTINCT run_id) AS runs FROM trend_runs GROUP BY study, system, measurement
)
SELECT s.study, s.system, s.measurement, s.measured_by, s.first_run, s.last_run, coalesce(r.runs, 0) AS runs, s.files,
       s.ordered_by, s.measurement_no,
       CAST(sum(CASE WHEN s.ordered_by <> 'unordered' THEN 1 ELSE 0 END) OVER (PARTITION BY s.study, s.system) AS BIGINT)
           AS measurements
FROM system_measurements s LEFT JOIN r USING (study, system, measurement);

-- One row per measurement and matched point (the comparison's match key and split: configuration, RAID
-- level, stated drives, workload, block size, read %, random %, load and its split (queue depth x
-- workers), ORION OIOs, scope, metric,
-- unit): the mean of its runs (value), their number (n) and sample standard deviation (sd), and
-- the mean's own 95 % t interval (value_ci95_low, value_ci95_high: value -/+ t975(n - 1) sd / sqrt(n),
-- the low end never below 0: macros mean_ci95_*, 002_statistics.sql; NULL for one run); point_measurements:
-- how many of the system's measurements have this point (trended: more than one, a trend to draw).
-- Against the previous measurement that has the same point (previous_*): pct_change, positive
-- where the new one is better ((value / previous - 1) x 100 where higher is better, (previous /
-- value - 1) x 100 where lower is: 075's pct_better), pct_difference = (value / previous - 1) x 100
-- whatever the direction (a latency 34 % lower is pct_difference -34, pct_change +51.5), both exactly 0
-- where the means differ only by the rounding of their sums (macro same_mean), and the 95 % Welch
-- interval of pct_change (ci95_low_pct, ci95_high_pct: the fractional Welch-Satterthwaite df and t975
-- of the t distribution, as the comparison's, 002_statistics.sql).
-- verdict: 'better' / 'worse' when the whole interval is above / below 0, else 'within noise'; 'equal'
-- when every run of both measurements has the same value (the difference is exactly 0: mean_of);
-- 'single run' when either side has one run; NULL for the first measurement or a metric without a
-- direction. regression: true when the verdict is 'worse' (lower IOPS or MB/s, higher latency,
-- outside the noise of both measurements' runs), false for 'better' or 'within noise', NULL where
-- no claim can be made.
-- Many verdicts at once (false discovery rate), as comparison_fdr (076): p_value is the two-sided Welch
-- t test's p of the same difference (welch_p, 073_t_test.sql: scipy's ttest_ind_from_stats with
-- equal_var=False; NULL where the verdict has no interval, and where neither measurement varies: no
-- noise to judge). finding numbers the system's point (both measurements, workload, load and its split,
-- configuration, RAID level, drives) within the study; a row repeating another row's numbers at its
-- finding is the same hypothesis (repeats_metric names the row it repeats: iops and read_iops of a
-- read-only workload) and takes its q. fdr_family: how many distinct hypotheses of the study have a
-- p-value (the family adjusted together); fdr_q: the Benjamini-Hochberg adjusted p-value over that
-- family (macro bh_q, 073_t_test.sql: min over rank k >= i of p_(k) x m / k, at most 1).
-- verdict_fdr: the verdict once the family's false discovery rate is held at 5 % (macro fdr_verdict:
-- a 'better' or 'worse' whose fdr_q is not below 0.05 becomes 'within noise'; every other verdict is
-- kept). Noise alone, with nothing changed, gives about 5 % of fdr_family hypotheses 'better' or 'worse'
-- (the pages say how many, and at how many findings).
CREATE OR REPLACE VIEW trends AS
WITH p AS (
    SELECT r.study, r.system, r.measurement, r.measured_by, r.config_label, r.raid_level, r.drives_stated AS drives,
           workload_key(r.read_pct, r.random_pct, r.workload) AS workload_key,
           r.block_size_bytes, r.read_pct, r.random_pct, r.outstanding_ios AS load, r.queue_depth, r.workers,
           r.small_oio, r.large_oio, r.scope, r.metric, r.unit, min(r.workload_label) AS base_label,
           mean_of(r.value) AS value, count(*) AS n, sd_of(r.value) AS sd
    FROM trend_runs r
    GROUP BY r.study, r.system, r.measurement, r.measured_by, r.config_label, r.raid_level, r.drives_stated,
             workload_key, r.block_size_bytes, r.read_pct, r.random_pct, r.outstanding_ios, r.queue_depth,
             r.workers, r.small_oio, r.large_oio, r.scope, r.metric, r.unit
), s AS (
    -- a load the system ran split more than one way (queue depth x workers): the label says which
    SELECT p.* EXCLUDE (base_label),
           CASE WHEN min(p.queue_depth) OVER k IS DISTINCT FROM max(p.queue_depth) OVER k
                  OR min(p.workers) OVER k IS DISTINCT FROM max(p.workers) OVER k
                THEN p.base_label || ' (QD ' || split_text(p.queue_depth, p.workers) || ' workers)'
                ELSE p.base_label END AS workload_label,
           t.measurement_no, t.measurements, t.first_run,
           CASE v.lower_is_better WHEN true THEN 'lower' WHEN false THEN 'higher' END AS direction
    FROM p JOIN trend_measurements t USING (study, system, measurement, measured_by)
    LEFT JOIN metric_vocabulary v ON v.metric = p.metric
    WHERE t.measurement_no IS NOT NULL
    WINDOW k AS (PARTITION BY p.study, p.system, p.config_label, p.raid_level, p.drives, p.workload_key,
                              p.block_size_bytes, p.read_pct, p.random_pct, p.load, p.small_oio, p.large_oio,
                              p.scope, p.metric, p.unit)
), l AS (
    SELECT *,
           lag(measurement) OVER w AS previous_measurement, lag(value) OVER w AS previous_value,
           lag(n) OVER w AS previous_n, lag(sd) OVER w AS previous_sd,
           count(*) OVER (PARTITION BY study, system, config_label, raid_level, drives, workload_key, block_size_bytes,
                                       read_pct, random_pct, load, queue_depth, workers, small_oio, large_oio, scope,
                                       metric, unit)
               AS point_measurements
    FROM s
    WINDOW w AS (PARTITION BY study, system, config_label, raid_level, drives, workload_key, block_size_bytes,
                              read_pct, random_pct, load, queue_depth, workers, small_oio, large_oio, scope, metric,
                              unit
                 ORDER BY measurement_no)
), v AS (
    SELECT *,
           previous_sd * previous_sd / previous_n AS vp, sd * sd / n AS vn,
           CASE WHEN direction IS NULL THEN NULL WHEN same_mean(value, n, previous_value, previous_n) THEN 0.0
                WHEN direction = 'higher' THEN value - previous_value ELSE previous_value - value END AS diff,
           CASE direction WHEN 'higher' THEN previous_value WHEN 'lower' THEN value END AS denom,
           mean_ci95_half(sd, n) AS ci95_half  -- 002_statistics.sql
    FROM l
), w AS MATERIALIZED (  -- the t distribution once a row (each end of each interval, each family step reads it)
    SELECT *,
           t975(welch_df(vp, previous_n, vn, n)) * sqrt(vp + vn) AS welch_half,  -- 002_statistics.sql
           CASE WHEN direction IS NULL OR previous_value IS NULL OR n < 2 OR previous_n < 2 THEN NULL
                ELSE welch_p(diff, vp, previous_n, vn, n) END AS p_value  -- 073_t_test.sql
    FROM v
), c AS (
    SELECT * EXCLUDE (vp, vn, diff, denom, ci95_half, welch_half),
           mean_ci95_low(value, ci95_half) AS value_ci95_low, mean_ci95_high(value, ci95_half) AS value_ci95_high,
           CASE WHEN direction IS NOT NULL AND same_mean(value, n, previous_value, previous_n) THEN 0.0  -- even both 0
                WHEN direction = 'higher' THEN (value / nullif(previous_value, 0) - 1) * 100
                WHEN direction = 'lower' THEN (previous_value / nullif(value, 0) - 1) * 100 END AS pct_change,
           CASE WHEN same_mean(value, n, previous_value, previous_n) THEN 0.0
                ELSE (value / nullif(previous_value, 0) - 1) * 100 END AS pct_difference,
           (diff - welch_half) / nullif(denom, 0) * 100 AS ci95_low_pct,
           (diff + welch_half) / nullif(denom, 0) * 100 AS ci95_high_pct
    FROM w
), d AS (
    SELECT *,
           CASE WHEN direction IS NULL OR previous_value IS NULL THEN NULL
                WHEN n < 2 OR previous_n < 2 THEN 'single run'
                WHEN value = previous_value AND sd = 0 AND previous_sd = 0 THEN 'equal'
                WHEN ci95_low_pct > 0 THEN 'better'
                WHEN ci95_high_pct < 0 THEN 'worse'
                ELSE 'within noise' END AS verdict,
           dense_rank() OVER (PARTITION BY study
                              ORDER BY system, previous_measurement, measurement, config_label, raid_level, drives,
                                       workload_key, block_size_bytes, read_pct, random_pct, load, queue_depth, workers,
                                       small_oio, large_oio) AS finding
    FROM c
), h AS (  -- the first row of each hypothesis, and the one it repeats (as comparison_fdr, 076)
    SELECT *,
           first_value(metric || CASE WHEN scope <> 'all' THEN ' (' || scope || ')' ELSE '' END) OVER k AS fdr_first,
           row_number() OVER k AS fdr_copy
    FROM d
    WINDOW k AS (PARTITION BY study, finding, direction,
                              near(previous_value), near(value), near(previous_sd), near(sd), previous_n, n
                 ORDER BY scope <> 'all', scope, metric)
), q AS (  -- Benjamini-Hochberg over the study's distinct hypotheses with a p-value (073_t_test.sql)
    SELECT *, bh_family(fdr_p, study) AS fdr_family, bh_step(fdr_p, study) AS bh
    FROM (SELECT *, CASE WHEN fdr_copy = 1 THEN p_value END AS fdr_p FROM h)
), f AS (
    SELECT * EXCLUDE (bh), bh_q(bh, fdr_p, study) AS fdr_q1 FROM q
), r AS (  -- a repeat takes the q of the row it repeats
    SELECT * EXCLUDE (fdr_first, fdr_copy, fdr_p, fdr_q1),
           CASE WHEN fdr_copy > 1 THEN fdr_first END AS repeats_metric,
           max(fdr_q1) OVER (PARTITION BY study, finding, direction,
                                          near(previous_value), near(value), near(previous_sd), near(sd), previous_n, n)
               AS fdr_q
    FROM f
)
SELECT *, CASE WHEN verdict IN ('better', 'worse', 'within noise', 'equal') THEN verdict = 'worse' END AS regression,
       point_measurements > 1 AS trended, fdr_verdict(verdict, fdr_q) AS verdict_fdr
FROM r;
