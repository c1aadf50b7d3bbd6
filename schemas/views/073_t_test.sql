-- Welch's t test and the Benjamini-Hochberg adjustment, for the false-discovery-rate columns of the
-- views that give verdicts (comparison_fdr, 076; trends, 078).
--
-- welch_p(diff, va, na, vb, nb)  the two-sided p of Welch's t test of a difference ``diff`` between two
--               means whose variances of the mean are va and vb (sd^2 / n), over na and nb runs:
--               t_p2(diff / sqrt(va + vb), welch_df(...)) with the fractional Welch-Satterthwaite df
--               (002_statistics.sql), as scipy.stats.ttest_ind_from_stats(..., equal_var=False) gives it.
--               NULL where neither side varies: no noise to judge a difference by (scipy: nan), so the
--               point is no hypothesis of the false-discovery family. The caller says when there is no
--               test (n < 2).
-- Benjamini-Hochberg over a family of verdicts (the rows of one `fam`, those with a p-value), in two
-- steps because the second is a window over the first (a view computes bh_step in one CTE and
-- bh_q over it in the next):
-- bh_family(p, fam)      m, how many rows of the family have a p-value.
-- bh_step(p, fam)        p x m / rank, the rank among the family's p-values (NULL where p is NULL).
-- bh_q(step, p, fam)     the adjusted p-value: the running minimum of the steps from the largest p
--                        down, at most 1 (RANGE: tied p-values get one q, whatever their rank), i.e.
--                        min over rank k >= i of p_(k) x m / k; NULL where p is NULL.
-- fdr_verdict(verdict, q)  the verdict with the family's false discovery rate held at 5 %: a
--                        'better' or 'worse' whose q is not below 0.05 becomes 'within noise';
--                        every other verdict is kept (the adjustment only takes claims away).
-- near(x)                a mean or standard deviation as part of a hypothesis's key (076, 078: the
--                        rows that are one hypothesis): to single precision, since two engines, or
--                        two orders of summing, agree to the last bits of a double, not exactly.
CREATE OR REPLACE MACRO near(x) AS CAST(x AS FLOAT);

CREATE OR REPLACE MACRO bh_family(p, fam) AS count(p) OVER (PARTITION BY fam);

CREATE OR REPLACE MACRO bh_step(p, fam) AS
    (p) * bh_family(p, fam) / row_number() OVER (PARTITION BY fam, (p) IS NULL ORDER BY p);

CREATE OR REPLACE MACRO bh_q(step, p, fam) AS
    CASE WHEN (p) IS NOT NULL THEN
         least(1.0, min(step) OVER (PARTITION BY fam, (p) IS NULL ORDER BY p DESC
                                    RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)) END;

CREATE OR REPLACE MACRO fdr_verdict(verdict, q) AS
    CASE WHEN (verdict) IN ('better', 'worse') AND NOT (q) < 0.05 THEN 'within noise' ELSE verdict END;

CREATE OR REPLACE MACRO welch_p(diff, va, na, vb, nb) AS  -- (x): for the lake's translation
    CASE WHEN (va) + (vb) > 0 THEN t_p2((diff) / sqrt((va) + (vb)), welch_df(va, na, vb, nb)) END;
