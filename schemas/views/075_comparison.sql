-- Every system of a study against the study's baseline, at matched points, whatever the tools.
--
-- Baseline: study_baseline (the sidecar's baseline = "<system>", else the alphabetically first
-- system of the study; baseline_source says which).
-- Measurements: a system measured twice (two firmware releases, two days: 008_measurements_of_systems.sql)
-- is two measurements, never pooled as repeats. comparison_points holds every measurement's points;
-- comparison_measurements compares every measurement of a system with every measurement of the
-- baseline; comparison (and comparison_unmatched) is each system's current measurement (the newest)
-- against the baseline's current one: the default `iolab compare` and the page. baseline_measurement and
-- measurement say which were compared; `iolab compare --measurement SYSTEM=LABEL` reads the others.
-- Drives: the drives behind the run's volumes (run_drives, 030_per_drive_iops.sql: the sidecar's
-- declared count, else the array profile's members), else the count the run states (a published
-- table); drives_source says which ('declared over the profile's N' where a sidecar overrides one).
-- Points (comparison_points): run-level numbers (no target) averaged per system, measurement,
-- configuration, RAID level, drive count and match key: value = mean_of (the mean, summed in
-- the order of the values: 002_statistics.sql), runs = n, sd = sd_of. Match key, independent of the tool:
--   block_size_bytes, read_pct, random_pct, load (total outstanding I/Os: runs.outstanding_ios or
--   the sample's own), small_oio / large_oio (matrix points), scope, metric; a run without a
--   read/random mix (published tables) matches on its workload as written (workload_key).
-- A point is one split of its load too (queue_depth x workers, as the runs state them): a system's
-- runs at 16 x 1 and at 1 x 16 are two points, never averaged as repeats of one; the label says
-- the split where a system has more than one at that load. Pairing matches the load and prefers
-- the same split; another split is paired where the other system has no other (match_rule says so).
-- Pairing: each baseline point gets, per other system, one point with the same match key: the
-- same RAID level where both state one, then equal or else the nearest drive count (a point that
-- states one before one that does not), then the same configuration; where the baseline states no
-- configuration, the system's best one at that point. match_rule says how, with both drive counts
-- ('drives: 2 for 10': the system's for the baseline's; 'drives: equal (10)'; 'not stated'). Points that found no partner are in comparison_unmatched.
-- direction: from the vocabulary (metric_vocabulary.lower_is_better): 'lower' where a smaller value
-- is better (latencies, errors, CPU use, price), 'higher' where a larger one is; NULL where neither
-- is (counts, durations, settings): such a point has a ratio but no pct_better.
-- correction: the study's declared factor where its scope covers the metric (metric_corrections,
-- 025_declared.sql: the roles or metric its criteria file names, throughput by default; 1 for every
-- other metric: a count, a flag, CPU use is compared as measured), applied to the baseline: x factor
-- where higher is better, / factor where lower is better.
-- pct_better = (value / corrected baseline - 1) x 100 (higher) or (corrected baseline / value - 1)
-- x 100 (lower): positive means the system beats the baseline, by as much as the faster one's
-- throughput exceeds the slower's (a 34 % lower latency is +51.5 %: at one load, IO/s = outstanding
-- I/Os / latency, so a point's IO/s and latency give one % better). pct_difference = (value /
-- corrected baseline - 1) x 100 whatever the direction: how much higher (+) or lower (-) the system's
-- number is, the "34 % lower latency" of the pages and `iolab compare`. Means that differ only by the
-- rounding of their sums are one number (macro same_mean): 0 % both. ratio = value / baseline_value.
CREATE OR REPLACE VIEW comparison_points AS
WITH d AS (
    SELECT m.*, coalesce(rd.drives, m.drives_stated) AS drives,
           CASE WHEN rd.profile_drives IS NOT NULL THEN rd.drives_source || ' over the profile''s ' || rd.profile_drives
                WHEN rd.drives IS NOT NULL THEN rd.drives_source
                WHEN m.drives_stated IS NOT NULL THEN 'stated' END AS drives_source
    FROM measurements m LEFT JOIN run_drives rd ON rd.run_id = m.run_id AND rd.place_id = m.source_id
    WHERE m.target IS NULL AND m.value IS NOT NULL AND m.system IS NOT NULL AND m.study IS NOT NULL
), g AS (
    SELECT study, system, measurement, current_measurement, config_label, raid_level, drives,
           workload_key(read_pct, random_pct, workload) AS workload_key,
           block_size_bytes, read_pct, random_pct, outstanding_ios AS load, queue_depth, workers, small_oio,
           large_oio, scope, metric, unit,
           min(workload_label) AS workload_label, mean_of(value) AS value, count(*) AS runs,
           list(DISTINCT tool ORDER BY tool) AS tools, sd_of(value) AS sd,
           string_agg(DISTINCT drives_source, ', ' ORDER BY drives_source) AS drives_source
    FROM d
    GROUP BY study, system, measurement, current_measurement, config_label, raid_level, drives, workload_key,
             block_size_bytes, read_pct, random_pct, outstanding_ios, queue_depth, workers, small_oio, large_oio,
             scope, metric, unit
)
SELECT study, system, measurement, current_measurement, config_label, raid_level, drives, drives_source, workload_key,
       block_size_bytes, read_pct, random_pct, load, queue_depth, workers, small_oio, large_oio, scope, metric, unit,
       CASE WHEN count(*) OVER (PARTITION BY study, system, measurement, config_label, raid_level, drives, workload_key,
                                             block_size_bytes, read_pct, random_pct, load, small_oio, large_oio,
                                             scope, metric, unit) > 1
            THEN workload_label || ' (QD ' || split_text(queue_depth, workers) || ' workers)'
            ELSE workload_label END AS workload_label,
       value, runs, tools, sd
FROM g;

CREATE OR REPLACE VIEW comparison_candidates AS
SELECT o.study, o.metric, o.unit, b.baseline_system, b.baseline_source, s.system,
       o.measurement AS baseline_measurement, s.measurement, o.current_measurement AS baseline_current,
       s.current_measurement AS current, o.workload_label, o.workload_key, o.block_size_bytes, o.read_pct, o.random_pct, o.load, o.small_oio,
       o.large_oio, o.scope,
       o.config_label AS baseline_config, s.config_label AS config, o.raid_level AS baseline_raid_level,
       s.raid_level, o.drives AS baseline_drives, s.drives, o.drives_source AS baseline_drives_source,
       s.drives_source, o.value AS baseline_value, s.value,
       o.runs AS baseline_runs, s.runs, o.tools AS baseline_tools, s.tools,
       o.sd AS sd_baseline, s.sd, o.queue_depth AS baseline_queue_depth, o.workers AS baseline_workers,
       s.queue_depth, s.workers,
       CASE WHEN o.drives IS NULL AND s.drives IS NULL THEN 'drives: not stated'
            WHEN o.drives = s.drives THEN 'drives: equal (' || s.drives || ')'
            ELSE 'drives: ' || coalesce(CAST(s.drives AS VARCHAR), 'not stated') || ' for '
                 || coalesce(CAST(o.drives AS VARCHAR), 'not stated') END
       || CASE WHEN o.config_label IS NOT DISTINCT FROM s.config_label THEN '; config: equal'
               WHEN o.config_label IS NULL THEN '; config: best of the system (' || s.config_label || '), baseline states none'
               ELSE '; config: ' || coalesce(s.config_label, 'none') || ' for ' || o.config_label END
       || CASE WHEN o.queue_depth IS NOT DISTINCT FROM s.queue_depth AND o.workers IS NOT DISTINCT FROM s.workers THEN ''
               ELSE '; split: ' || split_text(s.queue_depth, s.workers) || ' for ' || split_text(o.queue_depth, o.workers) END
           AS match_rule,
       row_number() OVER (
           PARTITION BY o.study, s.system, o.measurement, s.measurement, o.config_label, o.raid_level, o.drives, o.workload_key, o.block_size_bytes,
                        o.read_pct, o.random_pct, o.load, o.queue_depth, o.workers, o.small_oio, o.large_oio, o.scope,
                        o.metric, o.unit
           ORDER BY o.raid_level IS NOT DISTINCT FROM s.raid_level DESC,
                    o.drives IS NOT DISTINCT FROM s.drives DESC,
                    (o.drives IS NULL) = (s.drives IS NULL) DESC,
                    abs(coalesce(s.drives, 0) - coalesce(o.drives, 0)) ASC, s.drives ASC,
                    o.config_label IS NOT DISTINCT FROM s.config_label DESC,
                    o.queue_depth IS NOT DISTINCT FROM s.queue_depth AND o.workers IS NOT DISTINCT FROM s.workers DESC,
                    CASE WHEN o.config_label IS NULL THEN
                         CASE WHEN v.lower_is_better THEN -s.value ELSE s.value END END DESC NULLS LAST,
                    s.config_label, s.queue_depth, s.workers) AS pick
FROM comparison_points o
JOIN study_baseline b ON b.study = o.study AND o.system = b.baseline_system
LEFT JOIN metric_vocabulary v ON v.metric = o.metric
JOIN comparison_points s
  ON s.study = o.study AND s.system <> o.system AND s.metric = o.metric AND s.scope = o.scope
 AND s.unit IS NOT DISTINCT FROM o.unit
 AND s.workload_key IS NOT DISTINCT FROM o.workload_key AND s.block_size_bytes IS NOT DISTINCT FROM o.block_size_bytes
 AND s.read_pct IS NOT DISTINCT FROM o.read_pct AND s.random_pct IS NOT DISTINCT FROM o.random_pct
 AND s.load IS NOT DISTINCT FROM o.load AND s.small_oio IS NOT DISTINCT FROM o.small_oio
 AND s.large_oio IS NOT DISTINCT FROM o.large_oio
 AND (s.raid_level IS NOT DISTINCT FROM o.raid_level OR s.raid_level IS NULL OR o.raid_level IS NULL);

-- Noise: n_baseline and n are the runs averaged on each side, sd_baseline and sd their sample
-- standard deviations (NULL for one run). ci95_low_pct / ci95_high_pct: a 95 % Welch t interval
-- on the difference of the means (corrected baseline against the system), with the fractional
-- Welch-Satterthwaite degrees of freedom and t(0.975, df) of the t distribution, as scipy gives them
-- (macros welch_df and t975, 002_statistics.sql), divided by the same denominator as pct_better
-- (the corrected baseline where higher is better, the system's value where lower is), so the
-- interval is centred on pct_better.
-- verdict: 'single run' when either side has one run (no difference is claimed); 'equal' when every
-- run on both sides has the same value (the difference is exactly 0: the means are summed in the order
-- of their values); 'better' or 'worse' when the whole interval is above or below 0, else 'within
-- noise'; NULL without a direction.
CREATE OR REPLACE VIEW comparison_measurements AS
WITH p AS (
    SELECT c.* EXCLUDE (pick),
           CASE v.lower_is_better WHEN true THEN 'lower' WHEN false THEN 'higher' END AS direction,
           coalesce(k.correction, 1.0) AS correction, k.correction_source
    FROM comparison_candidates c LEFT JOIN metric_corrections k ON k.study = c.study AND k.metric = c.metric
    LEFT JOIN metric_vocabulary v ON v.metric = c.metric
    WHERE c.pick = 1
), q AS (
    SELECT *,
           CASE direction WHEN 'higher' THEN baseline_value * correction
                          WHEN 'lower' THEN baseline_value / correction END AS b_mean,
           CASE direction WHEN 'higher' THEN sd_baseline * correction
                          WHEN 'lower' THEN sd_baseline / correction END AS b_sd,
           CASE direction WHEN 'higher' THEN baseline_value * correction WHEN 'lower' THEN value END AS denom
    FROM p
), w AS (
    SELECT *,
           b_sd * b_sd / baseline_runs AS vb, sd * sd / runs AS vs
    FROM q
), t AS (
    SELECT *,
           sqrt(vb + vs) AS se,
           welch_df(vb, baseline_runs, vs, runs) AS df,
           CASE WHEN direction IS NULL THEN NULL WHEN same_mean(value, runs, b_mean, baseline_runs) THEN 0.0
                WHEN direction = 'higher' THEN value - b_mean ELSE b_mean - value END AS diff  -- 002_statistics.sql
    FROM w
), tq AS MATERIALIZED (
    SELECT *, t975(df) AS t975  -- 002_statistics.sql
    FROM t
), r AS (
    SELECT * EXCLUDE (b_mean, b_sd, denom, vb, vs, se, df, diff, t975),
           value / nullif(baseline_value, 0) AS ratio,
           -- the same value on both sides is 0 % better, even where both are 0 (no errors on either; a
           -- corrected 0 is still 0: no reads in a write workload, on either side)
           CASE WHEN direction IS NOT NULL AND same_mean(value, runs, b_mean, baseline_runs) AND (correction = 1 OR value = 0)
                THEN 0.0
                WHEN direction = 'higher' THEN (value / nullif(baseline_value * correction, 0) - 1) * 100
                WHEN direction = 'lower' THEN (baseline_value / correction / nullif(value, 0) - 1) * 100 END AS pct_better,
           CASE WHEN same_mean(value, runs, coalesce(b_mean, baseline_value), baseline_runs) THEN 0.0
                ELSE (value / nullif(coalesce(b_mean, baseline_value), 0) - 1) * 100 END AS pct_difference,
           CASE WHEN direction IS NOT NULL AND same_mean(value, runs, baseline_value, baseline_runs) THEN 0.0
                WHEN direction = 'higher' THEN (value / nullif(baseline_value, 0) - 1) * 100
                WHEN direction = 'lower' THEN (baseline_value / nullif(value, 0) - 1) * 100 END AS pct_better_uncorrected,
           baseline_runs AS n_baseline, runs AS n,
           CASE WHEN diff = 0 AND se = 0 THEN 0.0 ELSE (diff - t975 * se) / nullif(denom, 0) * 100 END AS ci95_low_pct,
           CASE WHEN diff = 0 AND se = 0 THEN 0.0 ELSE (diff + t975 * se) / nullif(denom, 0) * 100 END AS ci95_high_pct
    FROM tq
)
SELECT *,
       CASE WHEN direction IS NULL THEN NULL
            WHEN n_baseline < 2 OR n < 2 THEN 'single run'
            WHEN value = baseline_value AND (correction = 1 OR value = 0) AND sd = 0 AND sd_baseline = 0 THEN 'equal'
            WHEN ci95_low_pct > 0 THEN 'better'
            WHEN ci95_high_pct < 0 THEN 'worse'
            ELSE 'within noise' END AS verdict
FROM r;

-- Each system's current measurement against the baseline's current one (008_measurements_of_systems.sql).
CREATE OR REPLACE VIEW comparison AS
SELECT * EXCLUDE (baseline_current, current) FROM comparison_measurements WHERE baseline_current AND current;

-- Points the comparison could not use, each with the reason in words: never dropped silently (the
-- current measurements: the comparison's own).
CREATE OR REPLACE VIEW comparison_unmatched AS
WITH b AS (SELECT * FROM study_baseline WHERE systems > 1),
cp AS (SELECT * FROM comparison_points WHERE current_measurement),
cc AS (SELECT * FROM comparison_candidates WHERE baseline_current AND current),
others AS (
    SELECT DISTINCT p.study, p.system FROM cp p JOIN b USING (study) WHERE p.system <> b.baseline_system
), base_missing AS (
    -- a baseline point that some other system has no point for
    SELECT o.*, x.system AS other_system, 'baseline' AS side,
           x.system || ' has no point at this workload, load, scope and metric' AS reason
    FROM cp o JOIN b ON b.study = o.study AND o.system = b.baseline_system
    JOIN others x ON x.study = o.study
    WHERE NOT EXISTS (SELECT 1 FROM cc c
                      WHERE c.study = o.study AND c.system = x.system AND c.metric = o.metric AND c.scope = o.scope
                        AND c.baseline_config IS NOT DISTINCT FROM o.config_label
                        AND c.baseline_raid_level IS NOT DISTINCT FROM o.raid_level
                        AND c.baseline_drives IS NOT DISTINCT FROM o.drives
                        AND c.workload_key IS NOT DISTINCT FROM o.workload_key
                        AND c.block_size_bytes IS NOT DISTINCT FROM o.block_size_bytes
                        AND c.read_pct IS NOT DISTINCT FROM o.read_pct AND c.random_pct IS NOT DISTINCT FROM o.random_pct
                        AND c.load IS NOT DISTINCT FROM o.load AND c.small_oio IS NOT DISTINCT FROM o.small_oio
                        AND c.large_oio IS NOT DISTINCT FROM o.large_oio
                        AND c.baseline_queue_depth IS NOT DISTINCT FROM o.queue_depth
                        AND c.baseline_workers IS NOT DISTINCT FROM o.workers)
), sys_missing AS (
    -- a system point never compared: no baseline point, or another configuration was paired
    SELECT s.*, b.baseline_system AS other_system, 'system' AS side,
           CASE WHEN EXISTS (SELECT 1 FROM cc c
                             WHERE c.study = s.study AND c.system = s.system AND c.metric = s.metric AND c.scope = s.scope
                               AND c.config IS NOT DISTINCT FROM s.config_label AND c.raid_level IS NOT DISTINCT FROM s.raid_level
                               AND c.drives IS NOT DISTINCT FROM s.drives AND c.workload_key IS NOT DISTINCT FROM s.workload_key
                               AND c.block_size_bytes IS NOT DISTINCT FROM s.block_size_bytes
                               AND c.read_pct IS NOT DISTINCT FROM s.read_pct AND c.random_pct IS NOT DISTINCT FROM s.random_pct
                               AND c.load IS NOT DISTINCT FROM s.load AND c.small_oio IS NOT DISTINCT FROM s.small_oio
                               AND c.large_oio IS NOT DISTINCT FROM s.large_oio
                               AND c.queue_depth IS NOT DISTINCT FROM s.queue_depth
                               AND c.workers IS NOT DISTINCT FROM s.workers)
                THEN 'another configuration, drive count or split of the load of ' || s.system || ' was compared at this point'
                ELSE 'the baseline (' || b.baseline_system || ') has no point at this workload, load, scope and metric' END AS reason
    FROM cp s JOIN b ON b.study = s.study AND s.system <> b.baseline_system
    WHERE NOT EXISTS (SELECT 1 FROM comparison c
                      WHERE c.study = s.study AND c.system = s.system AND c.metric = s.metric AND c.scope = s.scope
                        AND c.config IS NOT DISTINCT FROM s.config_label AND c.raid_level IS NOT DISTINCT FROM s.raid_level
                        AND c.drives IS NOT DISTINCT FROM s.drives AND c.workload_key IS NOT DISTINCT FROM s.workload_key
                        AND c.block_size_bytes IS NOT DISTINCT FROM s.block_size_bytes
                        AND c.read_pct IS NOT DISTINCT FROM s.read_pct AND c.random_pct IS NOT DISTINCT FROM s.random_pct
                        AND c.load IS NOT DISTINCT FROM s.load AND c.small_oio IS NOT DISTINCT FROM s.small_oio
                        AND c.large_oio IS NOT DISTINCT FROM s.large_oio
                        AND c.queue_depth IS NOT DISTINCT FROM s.queue_depth AND c.workers IS NOT DISTINCT FROM s.workers)
)
SELECT study, side, system, measurement, other_system, workload_label, workload_key, block_size_bytes, read_pct,
       random_pct, load, small_oio, large_oio, scope, metric, unit, config_label AS config, raid_level, drives, value,
       runs, reason
FROM base_missing
UNION ALL
SELECT study, side, system, measurement, other_system, workload_label, workload_key, block_size_bytes, read_pct,
       random_pct, load, small_oio, large_oio, scope, metric, unit, config_label, raid_level, drives, value, runs, reason
FROM sys_missing;
