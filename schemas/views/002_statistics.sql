-- Statistics of repeated runs, one definition whichever view asks (scaling, comparison, trends).
--
-- mean_of(x), sd_of(x)      the mean and sample standard deviation of a point's repeats, summed in
--                           the order of their values, not of the rows: the same runs give the same
--                           bits whatever order the ingests stored them in (a database built step
--                           by step and a fresh one export the same bytes, and equal repeats on
--                           both sides of a comparison differ by exactly 0, whatever their counts)
--                           (Spark: its own avg and stddev_samp; the lake's check allows 1e-9)
-- welch_df(va, na, vb, nb)  Welch-Satterthwaite degrees of freedom of a difference of two means,
--                           va and vb each side's squared standard error (sd * sd / n), na and nb
--                           its runs; rounded down (conservative). NULL where neither side varies
--                           or a side has one run.
-- t975(df)                  t(0.975, df) from a table (Student's t, two-sided 95 %); 0 where df IS
--                           NULL (identical repeats: the interval is the point).
-- Where every repeat holds one value, that value is the mean: summed and divided, three runs of 0.1 give
-- 0.10000000000000002 while two give 0.1, and two sides of equal runs compared 2.2e-14 % apart ('better')
CREATE OR REPLACE MACRO mean_of(x) AS CASE WHEN min(x) = max(x) THEN min(x) ELSE avg(x ORDER BY x) END;

CREATE OR REPLACE MACRO sd_of(x) AS stddev_samp(x ORDER BY x);

CREATE OR REPLACE MACRO welch_df(va, na, vb, nb) AS
    CAST(floor((va + vb) * (va + vb)
               / nullif(va * va / nullif(na - 1, 0) + vb * vb / nullif(nb - 1, 0), 0)) AS INTEGER);

CREATE OR REPLACE MACRO t975(df) AS
    CASE WHEN df IS NULL THEN 0.0 WHEN df <= 1 THEN 12.706 WHEN df = 2 THEN 4.303 WHEN df = 3 THEN 3.182
         WHEN df = 4 THEN 2.776 WHEN df = 5 THEN 2.571 WHEN df = 6 THEN 2.447 WHEN df = 7 THEN 2.365
         WHEN df = 8 THEN 2.306 WHEN df = 9 THEN 2.262 WHEN df = 10 THEN 2.228 WHEN df = 11 THEN 2.201
         WHEN df = 12 THEN 2.179 WHEN df = 13 THEN 2.160 WHEN df = 14 THEN 2.145 WHEN df = 15 THEN 2.131
         WHEN df = 16 THEN 2.120 WHEN df = 17 THEN 2.110 WHEN df = 18 THEN 2.101 WHEN df = 19 THEN 2.093
         WHEN df <= 24 THEN 2.086 WHEN df <= 29 THEN 2.064 WHEN df <= 39 THEN 2.042
         WHEN df <= 59 THEN 2.021 WHEN df <= 119 THEN 2.000 ELSE 1.980 END;
