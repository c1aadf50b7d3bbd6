-- The comparison's verdicts, many at once: each row of comparison (075) with the two-sided Welch t
-- test's p-value of its difference and a Benjamini-Hochberg adjusted verdict.
--
-- p_value: t = diff / se, diff and se as the comparison's interval takes them (corrected baseline
-- against the system; se = sqrt(sd_b^2 / n_b + sd^2 / n), the baseline's sd corrected as its mean),
-- df the interval's fractional Welch-Satterthwaite df: scipy.stats.ttest_ind_from_stats(...,
-- equal_var=False) (macro welch_p, 073_t_test.sql). NULL where the verdict has no interval (one run on
-- a side, no direction) and where neither side varies: no noise to judge the difference by.
-- The family: each distinct hypothesis of the study once. A row whose system, measurements, point and
-- numbers (both means, standard deviations and run counts, the correction) are another row's is the same
-- hypothesis under another name (iops and read_iops of a read-only workload, a one-worker Iometer
-- run's worker and all rows): repeats_metric names the metric (and scope) it repeats, and it takes that
-- row's fdr_q; only the first of them, by scope ('all' first) then metric, is in the family.
-- fdr_family: how many distinct hypotheses of the study have a p-value (the family adjusted together).
-- fdr_q: the Benjamini-Hochberg adjusted p-value over that family (macro bh_q, 073_t_test.sql:
-- min over rank k >= i of p_(k) x m / k, at most 1; tied p-values get one q).
-- verdict_fdr: the verdict with the family's false discovery rate held at 5 % (macro fdr_verdict:
-- a 'better' or 'worse' whose fdr_q is not below 0.05 becomes 'within noise'; every other verdict
-- is kept, the adjustment only takes claims away). With nothing changed, noise alone makes about 5 % of the
-- fdr_family hypotheses 'better' or 'worse' (the 95 % interval misses 0 one time in 20).
-- finding: the system's point (measurements, workload, load and its split, configuration, RAID level,
-- drives, both sides), numbered within the study: the claims of a point's metrics are one finding,
-- which the pages and `iolab compare` count (ingest/fdr.py).
CREATE OR REPLACE VIEW comparison_fdr AS
WITH s AS (
    SELECT *,
           CASE direction WHEN 'higher' THEN sd_baseline * correction
                          WHEN 'lower' THEN sd_baseline / correction END AS fdr_sd_b,
           CASE direction WHEN 'higher' THEN value - baseline_value * correction
                          WHEN 'lower' THEN baseline_value / correction - value END AS fdr_diff
    FROM comparison
), v AS (
    SELECT *, fdr_sd_b * fdr_sd_b / n_baseline AS fdr_vb, sd * sd / n AS fdr_vs FROM s
), p AS (
    SELECT * EXCLUDE (fdr_sd_b, fdr_diff, fdr_vb, fdr_vs),
           CASE WHEN direction IS NULL OR n_baseline < 2 OR n < 2 THEN NULL
                ELSE welch_p(fdr_diff, fdr_vb, n_baseline, fdr_vs, n) END AS p_value,  -- 073_t_test.sql
           dense_rank() OVER (PARTITION BY study
                              ORDER BY system, baseline_measurement, measurement, baseline_config, config,
                                       baseline_raid_level, raid_level, baseline_drives, drives, workload_key,
                                       block_size_bytes, read_pct, random_pct, load, small_oio, large_oio,
                                       baseline_queue_depth, baseline_workers, queue_depth, workers) AS finding
    FROM v
), h AS (  -- the first row of each hypothesis, and the one it repeats
    SELECT *,
           first_value(metric || CASE WHEN scope <> 'all' THEN ' (' || scope || ')' ELSE '' END) OVER k AS fdr_first,
           row_number() OVER k AS fdr_copy
    FROM p
    WINDOW k AS (PARTITION BY study, finding, direction,
                              near(baseline_value), near(value), near(sd_baseline), near(sd), n_baseline, n, correction
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
                                          near(baseline_value), near(value), near(sd_baseline), near(sd), n_baseline, n,
                                          correction) AS fdr_q
    FROM f
)
SELECT *, fdr_verdict(verdict, fdr_q) AS verdict_fdr
FROM r;
