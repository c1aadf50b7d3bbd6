-- The two-sided p-value of Student's t, for the false-discovery-rate columns of the views that
-- give verdicts (comparison_fdr, 076; trends, 078).
--
-- t_p2(t, df)   P(|T| >= |t|) for T ~ Student's t with df degrees of freedom, df a whole number
--               >= 1 (the views' Welch df is rounded down, 074_noise.sql). Exact, not approximated:
--               for whole df the t distribution function is a finite sum (Abramowitz & Stegun
--               26.7.3 and 26.7.4): with theta = atan(|t| / sqrt(df)),
--                 df odd:  A = 2/pi (theta + sin(theta) sum_{j=0}^{(df-3)/2} 4^j j!^2 / (2j+1)! cos^(2j+1)(theta))
--                 df even: A = sin(theta) sum_{j=0}^{df/2-1} (2j)! / (4^j j!^2) cos^(2j)(theta)
--               and p = 1 - A; the coefficients are computed with lgamma, df/2 terms. NULL where t or
--               df is NULL or df < 1. The p-value is exact to ~1e-15 (absolute), tested against a
--               regularized incomplete beta in plain Python (tests/test_trend_fdr.py).
CREATE OR REPLACE MACRO t_p2(t, df) AS
    CASE WHEN t IS NULL OR df IS NULL OR df < 1 THEN NULL
         ELSE greatest(0.0, least(1.0, 1.0 - CASE
             WHEN df % 2 = 1 THEN
                 2.0 / pi() * (atan(abs(t) / sqrt(df))
                     + sin(atan(abs(t) / sqrt(df)))
                       * coalesce(list_sum(list_transform(range(0, CAST((df - 1) / 2 AS BIGINT)),
                             lambda j: exp(j * ln(4.0) + 2 * lgamma(j + 1) - lgamma(2 * j + 2))
                                  * pow(cos(atan(abs(t) / sqrt(df))), 2 * j + 1))), 0.0))
             ELSE
                 sin(atan(abs(t) / sqrt(df)))
                 * list_sum(list_transform(range(0, CAST(df / 2 AS BIGINT)),
                       lambda j: exp(lgamma(2 * j + 1) - j * ln(4.0) - 2 * lgamma(j + 1))
                            * pow(cos(atan(abs(t) / sqrt(df))), 2 * j)))
             END))
    END;
