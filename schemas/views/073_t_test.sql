-- The two-sided p-value of Student's t and the Benjamini-Hochberg adjustment, for the
-- false-discovery-rate columns of the views that give verdicts (comparison_fdr, 076; trends, 078).
--
-- t_p2(t, df)   P(|T| >= |t|) for T ~ Student's t with df degrees of freedom, df a whole number
--               >= 1 (the views' Welch df is rounded down, 074_noise.sql). Exact, not approximated:
--               for whole df the t distribution function is a finite sum (Abramowitz & Stegun
--               26.7.3 and 26.7.4): with theta = atan(|t| / sqrt(df)),
--                 df odd:  A = 2/pi (theta + sin(theta) sum_{j=0}^{(df-3)/2} 4^j j!^2 / (2j+1)! cos^(2j+1)(theta))
--                 df even: A = sin(theta) sum_{j=0}^{df/2-1} (2j)! / (4^j j!^2) cos^(2j)(theta)
--               and p = 1 - A; df/2 terms, their coefficients from ln_gamma. NULL where t or df is
--               NULL or df < 1. Tested against a regularized incomplete beta in plain Python
--               (tests/test_fdr.py: within 1e-12).
-- welch_p(diff, va, na, vb, nb)  the two-sided p of Welch's t test of a difference ``diff`` between two
--               means whose variances of the mean are va and vb (sd^2 / n), over na and nb runs:
--               t_p2(diff / sqrt(va + vb), welch_df(...)); where neither side varies, 1 if the means are
--               equal and 0 if not (no t to compute). The caller says when there is no test (n < 2).
-- ln_gamma(x)   ln Gamma(x) for x > 0, Lanczos (g = 7, 9 terms; relative error ~1e-15): plain
--               arithmetic, so the lake's Spark SQL computes it too (it has no lgamma).
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
CREATE OR REPLACE MACRO ln_gamma(x) AS  -- (x): the lake's Spark translation puts the argument in as written
    0.5 * ln(2 * pi()) + ((x) - 0.5) * ln((x) + 6.5) - ((x) + 6.5)
    + ln(0.99999999999980993 + 676.5203681218851 / (x) - 1259.1392167224028 / ((x) + 1)
         + 771.32342877765313 / ((x) + 2) - 176.61502916214059 / ((x) + 3) + 12.507343278686905 / ((x) + 4)
         - 0.13857109526572012 / ((x) + 5) + 9.9843695780195716e-6 / ((x) + 6) + 1.5056327351493116e-7 / ((x) + 7));

CREATE OR REPLACE MACRO t_p2(t, df) AS
    CASE WHEN t IS NULL OR df IS NULL OR df < 1 THEN NULL
         WHEN df = 1 THEN greatest(0.0, least(1.0, 1.0 - 2.0 / pi() * atan(abs(t))))
         ELSE greatest(0.0, least(1.0, 1.0 - CASE
             WHEN df % 2 = 1 THEN
                 2.0 / pi() * (atan(abs(t) / sqrt(df))
                     + sin(atan(abs(t) / sqrt(df)))
                       * list_sum(list_transform(range(0, CAST((df - 1) / 2 AS BIGINT)),
                             lambda j: exp(j * ln(4.0) + 2 * ln_gamma(j + 1) - ln_gamma(2 * j + 2))
                                       * pow(cos(atan(abs(t) / sqrt(df))), 2 * j + 1))))
             ELSE
                 sin(atan(abs(t) / sqrt(df)))
                 * list_sum(list_transform(range(0, CAST(df / 2 AS BIGINT)),
                       lambda j: exp(ln_gamma(2 * j + 1) - j * ln(4.0) - 2 * ln_gamma(j + 1))
                                 * pow(cos(atan(abs(t) / sqrt(df))), 2 * j)))
             END))
    END;

CREATE OR REPLACE MACRO bh_family(p, fam) AS count(p) OVER (PARTITION BY fam);

CREATE OR REPLACE MACRO bh_step(p, fam) AS
    (p) * bh_family(p, fam) / row_number() OVER (PARTITION BY fam, (p) IS NULL ORDER BY p);

CREATE OR REPLACE MACRO bh_q(step, p, fam) AS
    CASE WHEN (p) IS NOT NULL THEN
         least(1.0, min(step) OVER (PARTITION BY fam, (p) IS NULL ORDER BY p DESC
                                    RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)) END;

CREATE OR REPLACE MACRO fdr_verdict(verdict, q) AS
    CASE WHEN (verdict) IN ('better', 'worse') AND NOT (q) < 0.05 THEN 'within noise' ELSE verdict END;

CREATE OR REPLACE MACRO welch_p(diff, va, na, vb, nb) AS  -- (x): as ln_gamma, for the lake's translation
    CASE WHEN (va) + (vb) = 0 THEN CASE WHEN (diff) = 0 THEN 1.0 ELSE 0.0 END
         ELSE t_p2((diff) / sqrt((va) + (vb)), welch_df(va, na, vb, nb)) END;
