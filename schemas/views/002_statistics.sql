-- Statistics of repeated runs, one definition whichever view asks (scaling, comparison, trends), and
-- Student's t distribution as scipy computes it (scipy.stats.t.sf, t.ppf, ttest_ind_from_stats with
-- equal_var=False), in plain arithmetic that DuckDB and the lake's Spark SQL both run (the lake puts
-- each macro's body in place: ingest/lake/translate.py).
--
-- mean_of(x), sd_of(x)      the mean and sample standard deviation of a point's repeats, summed in
--                           the order of their values, not of the rows: the same runs give the same
--                           bits whatever order the ingests stored them in (a database built step
--                           by step and a fresh one export the same bytes, and equal repeats on
--                           both sides of a comparison differ by exactly 0, whatever their counts)
--                           (Spark: its own avg and stddev_samp; the lake's check allows 1e-9)
-- welch_df(va, na, vb, nb)  Welch-Satterthwaite degrees of freedom of a difference of two means,
--                           va and vb each side's squared standard error (sd * sd / n), na and nb
--                           its runs: (va + vb)^2 / (va^2 / (na - 1) + vb^2 / (nb - 1)), fractional,
--                           as scipy's Welch test takes it (never rounded). NULL where neither side
--                           varies or a side has one run.
-- t_p2(t, df)               P(|T| >= |t|) for T ~ Student's t with df > 0 degrees of freedom, any real
--                           df: the regularized incomplete beta I_x(df/2, 1/2), x = df / (df + t^2)
--                           (Abramowitz & Stegun 26.7.1, 26.5.8), by its continued fraction
--                           (beta_cf); where x is above (a + 1) / (a + b + 2) the fraction is slow
--                           and 1 - I_(1-x)(1/2, df/2) is taken instead (Numerical Recipes 6.4).
--                           1 where t = 0; NULL where t or df is NULL or df <= 0.
-- t975(df)                  t(0.975, df), the two-sided 95 % quantile (scipy.stats.t.ppf(0.975, df)),
--                           for real df >= 1 (below 1, 1: Welch's df is at least 1 where both sides
--                           have two runs; rounding can put it a hair under): Hill's approximation
--                           (G. W. Hill, Algorithm 396: Student's t-quantiles, CACM 13(10), 1970)
--                           refined by Halley steps on ln t_p2 against ln t (the t tails are powers
--                           of t: from Hill's 18 % at df 1 to 3e-15). 0 where df IS NULL
--                           (identical repeats: the interval is the point).
-- Accuracy against scipy 1.17 (tests/test_t_distribution.py, random df from 1 to 1e6 and p from 1e-12
-- to 1): t_p2 within 1e-10 relative, t975 within 1e-11 relative.
-- Where every repeat holds one value, that value is the mean: summed and divided, three runs of 0.1 give
-- 0.10000000000000002 while two give 0.1, and two sides of equal runs compared 2.2e-14 % apart ('better')
CREATE OR REPLACE MACRO mean_of(x) AS CASE WHEN min(x) = max(x) THEN min(x) ELSE avg(x ORDER BY x) END;

CREATE OR REPLACE MACRO sd_of(x) AS stddev_samp(x ORDER BY x);

CREATE OR REPLACE MACRO welch_df(va, na, vb, nb) AS
    ((va) + (vb)) * ((va) + (vb)) / nullif((va) * (va) / nullif((na) - 1, 0) + (vb) * (vb) / nullif((nb) - 1, 0), 0);

-- ln Gamma(x) for x > 0, Lanczos (g = 7, 9 terms; relative error ~1e-15): plain arithmetic, so the lake's
-- Spark SQL computes it too (it has no lgamma). (x): the lake's translation puts the argument in as written.
CREATE OR REPLACE MACRO ln_gamma(x) AS
    0.5 * ln(2 * pi()) + ((x) - 0.5) * ln((x) + 6.5) - ((x) + 6.5)
    + ln(0.99999999999980993 + 676.5203681218851 / (x) - 1259.1392167224028 / ((x) + 1)
         + 771.32342877765313 / ((x) + 2) - 176.61502916214059 / ((x) + 3) + 12.507343278686905 / ((x) + 4)
         - 0.13857109526572012 / ((x) + 5) + 9.9843695780195716e-6 / ((x) + 6) + 1.5056327351493116e-7 / ((x) + 7));

-- ln Gamma(a + 1/2) - ln Gamma(a), a > 0: below 10 the difference of ln_gamma; from 10 its asymptotic
-- series (Bernoulli: sum over k of (2^(1-2k) - 2) B_2k / (2k (2k - 1) a^(2k-1)), to a^-9: 4e-14 at a = 10),
-- since two ln_gamma of a large a differ in their last bits (6e6 at df 1e6: 1e-9 of a p-value).
CREATE OR REPLACE MACRO ln_gamma_half(a) AS
    CASE WHEN (a) < 10 THEN ln_gamma((a) + 0.5) - ln_gamma(a)
         ELSE 0.5 * ln(a) - 1 / (8 * (a)) + 1 / (192 * pow(a, 3)) - 1 / (640 * pow(a, 5))
              + 17 / (14336 * pow(a, 7)) - 31 / (18432 * pow(a, 9)) END;

-- ln(1 + u) to the last bits where u is small (DuckDB has no log1p): the rounding of 1 + u corrected
-- (D. Goldberg, What every computer scientist should know about floating-point arithmetic, 1991, thm 4).
CREATE OR REPLACE MACRO ln1p(u) AS
    CASE WHEN 1.0 + (u) = 1.0 THEN (u) ELSE ln(1.0 + (u)) * (u) / ((1.0 + (u)) - 1.0) END;

-- The continued fraction of I_x(a, b) (Numerical Recipes 6.4), 1 / (1 + d1 / (1 + d2 / (1 + ...))) with
-- d(2j) = j (b - j) x / ((a + 2j - 1)(a + 2j)) and d(2j+1) = -(a + j)(a + b + j) x / ((a + 2j)(a + 2j + 1)),
-- evaluated from its m-th pair of terms up (one number carried: a fold, which both engines have).
CREATE OR REPLACE MACRO beta_cf(a, b, x, m) AS
    1.0 / (1.0 - ((a) + (b)) * (x) / ((a) + 1) / list_reduce(range(m, 0, -1), lambda cf_acc, cf_j:
        1.0 + cf_j * ((b) - cf_j) * (x) / (((a) + 2 * cf_j - 1) * ((a) + 2 * cf_j))
              / (1.0 - ((a) + cf_j) * ((a) + (b) + cf_j) * (x) / (((a) + 2 * cf_j) * ((a) + 2 * cf_j + 1)) / cf_acc),
        CAST(1.0 AS DOUBLE)));

-- The pairs of terms beta_cf takes for I(df/2, 1/2) and its mirror, a = df/2: measured to 1e-15 over p
-- from 1e-13 to 1, 8 pairs at df 1 to 51 at df 3000 (fewer above); 8 + 4 sqrt(df) of them, at most 64.
CREATE OR REPLACE MACRO t_cf_pairs(a) AS CAST(least(64, 8 + ceil(4 * sqrt(2 * (a)))) AS BIGINT);

-- ln(x^a (1 - x)^(1/2) / B(a, 1/2)) with x = 1 / (1 + u), u = t^2 / df, a = df / 2: the front of both
-- fractions (B(a, 1/2) = sqrt(pi) Gamma(a) / Gamma(a + 1/2)).
CREATE OR REPLACE MACRO t_front(u, a) AS
    -(a) * ln1p(u) - 0.5 * ln1p(1.0 / (u)) - 0.5 * ln(pi()) + ln_gamma_half(a);

-- P(|T| >= t) from u = t^2 / df > 0 and a = df / 2.
CREATE OR REPLACE MACRO t_tail(u, a) AS
    least(1.0, CASE WHEN (u) > 1.5 / ((a) + 1)  -- x = 1 / (1 + u) below (a + 1) / (a + 1/2 + 2)
                    THEN exp(t_front(u, a)) / (a) * beta_cf(a, 0.5, 1.0 / (1.0 + (u)), t_cf_pairs(a))
                    ELSE 1.0 - 2.0 * exp(t_front(u, a)) * beta_cf(0.5, a, (u) / (1.0 + (u)), t_cf_pairs(a)) END);

-- (A one-element list names a value, as a let would: t_tail reads u and a in every term of its fractions,
-- and a macro's argument is put in as written, so an argument such as welch_df(...) would be computed
-- again at each term, in both engines. Cast to DOUBLE: DuckDB would take a whole df for a DECIMAL.)
CREATE OR REPLACE MACRO t_p2(t, df) AS
    CASE WHEN (t) IS NULL OR (df) IS NULL OR NOT (df) > 0 THEN NULL
         WHEN (t) = 0 THEN 1.0
         ELSE list_transform([CAST((t) * (t) / (df) AS DOUBLE)], lambda tp_u:
                  list_transform([CAST((df) / 2 AS DOUBLE)], lambda tp_a: t_tail(tp_u, tp_a))[1])[1] END;

-- The t density at t: (1 + t^2 / df)^(-(df + 1) / 2) / (sqrt(df) B(df / 2, 1/2)).
CREATE OR REPLACE MACRO t_density(t, df) AS
    exp(-((df) + 1) / 2 * ln1p((t) * (t) / (df)) - 0.5 * ln(df) - 0.5 * ln(pi()) + ln_gamma_half((df) / 2));

-- Hill's approximation of t(0.975, n) (Algorithm 396 with its two-sided P = 0.05, and 1.959963984540054 =
-- the normal quantile at 0.975 where it needs one): a = 1 / (n - 1/2), b = 48 / a^2,
-- c = ((20700 a / b - 98) a - 16) a + 96.36, d = ((94.5 / (b + c) - 3) / b + 1) sqrt(a pi / 2) n,
-- y = (d P)^(2 / n); the normal branch where y > 0.05 + a (n from about 3.9), else the small-n one.
CREATE OR REPLACE MACRO hill_a(n) AS 1.0 / ((n) - 0.5);
CREATE OR REPLACE MACRO hill_b(n) AS 48.0 / (hill_a(n) * hill_a(n));
CREATE OR REPLACE MACRO hill_c(n) AS ((20700 * hill_a(n) / hill_b(n) - 98) * hill_a(n) - 16) * hill_a(n) + 96.36;
CREATE OR REPLACE MACRO hill_d(n) AS
    ((94.5 / (hill_b(n) + hill_c(n)) - 3) / hill_b(n) + 1) * sqrt(hill_a(n) * pi() / 2) * (n);
CREATE OR REPLACE MACRO hill_y(n) AS pow(hill_d(n) * 0.05, 2 / (n));
CREATE OR REPLACE MACRO hill_normal_c(n, z) AS
    (((0.05 * hill_d(n) * (z) - 5) * (z) - 7) * (z) - 2) * (z) + hill_b(n) + hill_c(n)
    + CASE WHEN (n) < 5 THEN 0.3 * ((n) - 4.5) * ((z) + 0.6) ELSE 0 END;
CREATE OR REPLACE MACRO hill_normal_y(n, z) AS
    hill_a(n) * pow((((((0.4 * (z) * (z) + 6.3) * (z) * (z) + 36) * (z) * (z) + 94.5) / hill_normal_c(n, z)
                      - (z) * (z) - 3) / hill_b(n) + 1) * (z), 2);
CREATE OR REPLACE MACRO t_hill975(n) AS
    sqrt((n) * CASE WHEN hill_y(n) > 0.05 + hill_a(n)
                    THEN CASE WHEN hill_normal_y(n, 1.959963984540054e0) > 0.002
                              THEN exp(hill_normal_y(n, 1.959963984540054e0)) - 1
                              ELSE 0.5 * pow(hill_normal_y(n, 1.959963984540054e0), 2) + hill_normal_y(n, 1.959963984540054e0) END
                    ELSE ((1 / ((((n) + 6) / ((n) * hill_y(n)) - 0.089 * hill_d(n) - 0.822) * ((n) + 2) * 3)
                           + 0.5 / ((n) + 4)) * hill_y(n) - 1) * ((n) + 1) / ((n) + 2) + 1 / hill_y(n) END);

-- One Halley step of ln t_p2(t) = ln 0.05 against ln t (cubic: Hill's 18 % at df 1 is 1e-5 after one,
-- 3e-15 after two; from df 2, 3e-12 after one), p = t_p2(t, df), h = ln p - ln 0.05, q = t density / p:
-- t exp(2 h / (4 q + h (1 - (df + 1) t^2 / (df + t^2) + 2 q))).
CREATE OR REPLACE MACRO t_halley975(t, df, p) AS
    (t) * exp(2 * (ln(p) - ln(0.05))
              / (4 * (t) * t_density(t, df) / (p)
                 + (ln(p) - ln(0.05)) * (1 - ((df) + 1) * (t) * (t) / ((df) + (t) * (t)) + 2 * (t) * t_density(t, df) / (p))));

-- df below 1 is taken as 1; the steps: two below df 2, else one (each computes t_p2 once: the list of
-- one element names it, as a let would; so does t975 its df).
CREATE OR REPLACE MACRO t975_of(df) AS
    list_reduce(range(CASE WHEN (df) < 2 THEN 2 ELSE 1 END), lambda tq_t, tq_i:
                    list_transform([t_p2(tq_t, df)], lambda tq_p: t_halley975(tq_t, df, tq_p))[1],
                t_hill975(df));

CREATE OR REPLACE MACRO t975(df) AS
    CASE WHEN (df) IS NULL THEN 0.0
         ELSE list_transform([CAST(greatest(df, 1.0) AS DOUBLE)], lambda tq_df: t975_of(tq_df))[1] END;

-- same_mean(a, na, b, nb): the means a and b, of na and nb runs, are one number: they differ by no more than
-- the rounding of their sums can make two equal means differ (na + nb ulps of the larger: a sum of n doubles
-- is off by at most n - 1 roundings). Equal means are 0 % apart, never 2.2e-14 % (2 + 4 over 3 runs and
-- 3 + 3 over 2 are the same 2; 0.2 + 0.4 over 2 is 0.30000000000000004, 0.3 + 0.3 over 2 is 0.3).
CREATE OR REPLACE MACRO same_mean(a, na, b, nb) AS
    abs((a) - (b)) <= ((na) + (nb)) * 2.220446049250313e-16 * greatest(abs(a), abs(b));

-- The 95 % t interval of a mean of n runs with sample standard deviation sd: value -/+ half, half =
-- t975(n - 1) sd / sqrt(n) (mean_ci95_half; a view computes it once a row, then both ends from it); its low
-- end never below 0 where the mean is not (every metric of the vocabulary is a time, a rate, a count, a
-- size, a share or a price, none negative: an interval that crosses 0 says only that the runs vary, and cut
-- at 0 it still holds the true mean 95 times in 100). NULL for one run (sd NULL).
CREATE OR REPLACE MACRO mean_ci95_half(sd, n) AS t975((n) - 1) * (sd) / sqrt(n);

CREATE OR REPLACE MACRO mean_ci95_low(value, half) AS
    CASE WHEN (half) IS NULL THEN NULL WHEN (value) >= 0 THEN greatest(0.0, (value) - (half)) ELSE (value) - (half) END;

CREATE OR REPLACE MACRO mean_ci95_high(value, half) AS (value) + (half);
