-- The two-sided p-value of Student's t, for the false-discovery-rate columns of the views that
-- give verdicts (comparison_fdr, 076; trends, 078).
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
-- ln_gamma(x)   ln Gamma(x) for x > 0, Lanczos (g = 7, 9 terms; relative error ~1e-15): plain
--               arithmetic, so the lake's Spark SQL computes it too (it has no lgamma).
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
