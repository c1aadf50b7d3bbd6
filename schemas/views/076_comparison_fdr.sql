-- The comparison's verdicts, many at once: each row of comparison (075) with the two-sided Welch t
-- test's p-value of its difference and a Benjamini-Hochberg adjusted verdict.
--
-- p_value: t = diff / se, diff and se as the comparison's interval takes them (corrected baseline
-- against the system; se = sqrt(sd_b^2 / n_b + sd^2 / n), the baseline's sd corrected as its mean),
-- df the interval's (welch_df, rounded down; 074_noise.sql), P(|T| >= |t|) exact for whole df
-- (t_p2, 073_t_test.sql); 0 where neither side varies and the means differ, 1 where they are
-- equal; NULL where the verdict has no interval (one run on a side, no direction).
-- fdr_family: how many verdicts of the study have a p-value (the family adjusted together).
-- fdr_q: the Benjamini-Hochberg adjusted p-value over that family (macro bh_q, 073_t_test.sql:
-- min over rank k >= i of p_(k) x m / k, at most 1; tied p-values get one q).
-- verdict_fdr: the verdict with the family's false discovery rate held at 5 % (macro fdr_verdict:
-- a 'better' or 'worse' whose fdr_q is not below 0.05 becomes 'within noise'; every other verdict
-- is kept, the adjustment only takes claims away). With nothing changed, noise alone makes about 5 % of the
-- fdr_family verdicts 'better' or 'worse' (the 95 % interval misses 0 one time in 20).
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
                ELSE welch_p(fdr_diff, fdr_vb, n_baseline, fdr_vs, n) END AS p_value  -- 073_t_test.sql
    FROM v
), q AS (  -- Benjamini-Hochberg over the study's verdicts with a p-value (073_t_test.sql)
    SELECT *, bh_family(p_value, study) AS fdr_family, bh_step(p_value, study) AS bh FROM p
), f AS (
    SELECT * EXCLUDE (bh), bh_q(bh, p_value, study) AS fdr_q FROM q
)
SELECT *, fdr_verdict(verdict, fdr_q) AS verdict_fdr
FROM f;
